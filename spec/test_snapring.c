/* test_snapring.c — the published copy of the global rows as a ring (#31.2): a reader's copy
 * holds while the writer makes fewer than MI_SNAP_BUFS more, and an attached reader's MIGLOBGET
 * reads the copy first. Included by test_core.c (its CHECK/EQ counters, regpath, new_sys). */

/* A GET of 21000 by an attached session in a thread of its own (the owner's thread may hold a
 * write section, which a GET of that thread would read as it stands). */
typedef struct sr_get { mi_session *a; int32_t v; int32_t st; uint64_t copies, waits; } sr_get;
static void *sr_get_main(void *arg) {
  sr_get *g = arg;
  int32_t items[] = {21000, 0}, stats[1];
  status_type st;
  mi_system *att = g->a->sys;
  uint64_t c0 = __atomic_load_n(&att->snap_reads, __ATOMIC_RELAXED), w0 = MI_LD(att->rf.waits);
  mi_globget(g->a, &st, items, &g->v, stats, sizeof g->v, 0, 0);
  g->st = st.all;
  g->copies = __atomic_load_n(&att->snap_reads, __ATOMIC_RELAXED) - c0;
  g->waits = MI_LD(att->rf.waits) - w0;
  return NULL;
}

/* Two GETs 70 ms apart (more than MI_READ_WAIT_MS), the second one's result kept. */
static void *sr_get_late_main(void *arg) {
  sr_get_main(arg);
  struct timespec nap = {0, 70000000};
  while (nanosleep(&nap, &nap) != 0) {}
  return sr_get_main(arg);
}

/* Runs sr_get_main in a thread and waits for it. */
static sr_get sr_get_in_thread(mi_session *a) {
  sr_get g = {.a = a, .st = -1};
  pthread_t t;
  if (pthread_create(&t, NULL, sr_get_main, &g) == 0) pthread_join(t, NULL);
  return g;
}

static void test_snap_ring(void) {
  char dir[256], sp[320];
  snprintf(dir, sizeof dir, "%s/mish-test-ring-XXXXXX", getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) { CHECK(0, "#31.2 a private directory for the ring tests"); return; }
  snprintf(sp, sizeof sp, "%s/ring", dir);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 16});
  CHECK(sys != NULL, "#31.2 an owner shares a store");
  if (!sys) { rmdir(dir); return; }
  status_type st;
  int32_t items[] = {21000, 0}, stats[1], map = 0;
  mi_globon(s, &st, items, stats, &map, 0);
  mi_ctr c = mi_host_counter(21000);
  /* the ring: copy k is good until the writer takes k + MI_SNAP_BUFS (a publish makes one copy) */
  int held = 0, lost = 0;
  for (int n = 0; n <= MI_SNAP_BUFS; n++) {
    uint32_t k;
    mi_snap_begin(sys, &k);
    for (int i = 0; i < n; i++) { mi_host_begin(sys); mi_host_add(sys, c, 0, 1); mi_host_publish(sys); }
    int ok = mi_snap_valid(sys, k);
    if (n < MI_SNAP_BUFS) held += ok;
    else lost = !ok;
  }
  EQ(held, MI_SNAP_BUFS, "#31.2 a reader's copy holds while the writer publishes up to MI_SNAP_BUFS - 1 more");
  EQ(lost, 1, "#31.2 ... and is seen rewritten once it published MI_SNAP_BUFS more");
  /* an attached reader reads the copy first: with the section closed, and with one open */
  mi_host_begin(sys); mi_host_add(sys, c, 0, 5 - mi_host_value(sys, c, 0)); mi_host_publish(sys);
  int err = 0;
  mi_system *att = mi_system_attach_with(sp, &(mi_attach_options){.registry = regpath}, &err);
  mi_session *a = att ? mi_session_new(att) : NULL;
  CHECK(a != NULL, "#31.2 a reader attaches read-only");
  if (a) {
    mi_session_set_priv(a, 1);
    mi_accesson(a, &st, 666);
    mi_globon(a, &st, items, stats, &map, 0);
    sr_get g = sr_get_in_thread(a);   /* builds its plan (a live gather) */
    EQ(g.st == 0 && g.v == 5, 1, "#31.2 the attached reader reads 5");
    g = sr_get_in_thread(a);
    EQ(g.st == 0 && g.v == 5 && g.copies == 1, 1, "#31.2 ... then reads it from the copy of the last publish, no section open");
    mi_host_begin(sys);
    mi_host_add(sys, c, 0, 7);   /* 12, not published */
    g = sr_get_in_thread(a);
    EQ(g.st == 0 && g.v == 5 && g.copies == 1 && g.waits == 0, 1,
       "#31.2 a section open: the reader reads the last publish (5) from the copy, no wait");
    mi_host_publish(sys);
    g = sr_get_in_thread(a);
    EQ(g.st == 0 && g.v == 12 && g.copies == 1, 1, "#31.2 published: the reader reads 12 from the new copy");
    /* a section that stands open past MI_READ_WAIT_MS while its writer is not stopped (here it
     * sleeps in pthread_join; on a loaded machine it waits for a CPU): the copy still serves */
    mi_host_begin(sys);
    mi_host_add(sys, c, 0, 1);   /* 13, not published */
    g = (sr_get){.a = a, .st = -1};
    pthread_t t;
    if (pthread_create(&t, NULL, sr_get_late_main, &g) == 0) pthread_join(t, NULL);
    mi_host_publish(sys);
    EQ(g.st == 0 && g.v == 12 && g.copies == 1 && g.waits == 0, 1,
       "#31.2 a section open over 60 ms, its writer not stopped: the reader reads the last publish (12) from the copy");
    mi_session_free(a);
  }
  mi_system_free(att);
  mi_session_free(s);
  mi_system_free(sys);
  CHECK(rmdir(dir) == 0, "#31.2 the ring tests leave their directory empty");
}
