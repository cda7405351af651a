/* test_rowhandle.c — the row handle of mi_host.h (#31.3, #28.4): a batch writer's row opened
 * once per entity. Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* The view of sys (the public view every system begins with). */
static const mi_host_view *rh_block(mi_system *sys) { return (const mi_host_view *)(const void *)sys; }

/* A row handle writes what mi_host_add writes and refuses what it ignores; its CHANGED mark is
 * taken once, at the open. */
static void test_i31_row_handle(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  mi_host_row r;
  mi_ctr g[3] = {mi_host_counter(21184), mi_host_counter(21183), mi_host_counter(21031)};   /* 21031: a maximum */
  CHECK(!mi_host_row_open(NULL, &r, MI_DOM_GLOBAL, 0), "#31.3 a row of no system is refused");
  mi_host_row_add(&r, g[0], 5);   /* ignored, no crash */
  CHECK(!mi_host_row_open(sys, &r, MI_DOM_GLOBAL, 0), "#31.3 a row of a domain nobody counts is refused");
  mi_host_row_add(&r, g[0], 5);
  EQ(mi_host_value(sys, g[0], 0), 0, "#31.3 ... and adds nothing");
  EQ(mi_host_domains(sys), 0, "#31.3 mi_host_domains: nothing counted yet");
  int32_t gi[] = {21184, 21183, 21031, 0}, stats[8], map = 1;
  mi_globon(s, &st, gi, stats, &map, 666);
  EQ(mi_host_domains(sys), 1 << MI_DOM_GLOBAL, "#31.3 mi_host_domains: the global domain counts once a user enabled it");
  CHECK(mi_host_row_open(sys, &r, MI_DOM_GLOBAL, 0), "#31.3 the global row opens once counted");
  CHECK(!mi_host_row_open(sys, &(mi_host_row){0}, MI_DOM_GLOBAL, 1) && !mi_host_row_open(sys, &(mi_host_row){0}, 7, 0),
        "#31.3 a global entity other than 0 and an unknown domain are refused");
  EQ(mi_host_row_word(&r, g[1]), mi_host_word(sys, g[1]), "#31.3 the handle's word of a counter is mi_host_word's");
  EQ(mi_host_row_word(&r, mi_host_counter(25047)), -1, "#31.3 a process counter has no word in a global row");
  EQ(mi_host_word(sys, mi_host_counter(21185)), -1, "#31.3 nor a counter nobody counts");
  mi_host_row_add(&r, g[0], 7);
  mi_host_row_add(&r, mi_host_counter(25047), 7);   /* another domain's counter: ignored */
  mi_host_row_add(&r, (mi_ctr){-1}, 7);
  mi_host_row_addw(&r, mi_host_word(sys, g[1]), 3);
  mi_host_row_max(&r, g[2], 40);
  mi_host_row_max(&r, g[2], 30);
  EQ(mi_host_value(sys, g[0], 0), 7, "#31.3 a global add through the handle");
  EQ(mi_host_value(sys, g[1], 0), 3, "#31.3 an add by word");
  EQ(mi_host_value(sys, g[2], 0), 40, "#31.3 a maximum through the handle only rises");
  mi_host_row_close(&r);
  mi_host_row_add(&r, g[0], 100);
  EQ(mi_host_value(sys, g[0], 0), 7, "#31.3 a closed handle writes nothing");

  /* two processes, the same writes: A through handles, B through mi_host_add and friends */
  mi_proc_desc d = {0};
  d.pid = 501;
  int a = mi_host_proc_create(sys, &d);
  d.pid = 502;
  int b = mi_host_proc_create(sys, &d);
  int32_t pi[] = {25047, 25048, 25049, 25167, 25168, 25202, 0};   /* 25202: by object class */
  longint_type all;
  mi_longint_set(&all, -1);
  mi_procon(s, &st, pi, stats, &map, &all, 666);
  mi_ctr pc[5] = {mi_host_counter(25047), mi_host_counter(25048), mi_host_counter(25049), mi_host_counter(25167), mi_host_counter(25168)};
  mi_ctr pf = mi_host_counter(25202);
  uint64_t x = 12345;
  int ops = 0;
  for (int batch = 0; batch < 200; batch++) {
    mi_host_row ra;
    if (!mi_host_row_open(sys, &ra, MI_DOM_PROCESS, a)) break;
    for (int k = 0; k < 6; k++, ops++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      int c = (int)(x % 5), how = (int)(x >> 8 & 3), cls = (int)((x >> 12) % 720);
      int64_t v = (int64_t)(x >> 20 & 0xFFFF);
      if (how == 0) { mi_host_row_add(&ra, pc[c], v); mi_host_add(sys, pc[c], b, v); }
      else if (how == 1) { mi_host_row_set(&ra, pc[c], v); mi_host_set(sys, pc[c], b, v); }
      else if (how == 2) { mi_host_row_max(&ra, pc[c], v); mi_host_max(sys, pc[c], b, v); }
      else {
        mi_host_row_addw(&ra, mi_host_word(sys, pf) + mi_host_objcl_word(sys, cls), v);
        mi_host_add_objcl(sys, pf, b, cls, v);
      }
    }
    mi_host_row_close(&ra);
  }
  int same = 1;
  for (int c = 0; c < 5; c++) same &= mi_host_value(sys, pc[c], a) == mi_host_value(sys, pc[c], b);
  /* the object-class counter's words of both rows, read in the block */
  const mi_host_view *blk = rh_block(sys);
  const int64_t *row0 = blk->base + blk->lane[MI_DOM_PROCESS].cells;
  int32_t stride = blk->lane[MI_DOM_PROCESS].stride, w0 = mi_host_word(sys, pf), nw = 0, cls_same = 1;
  for (int cls = 0; cls < 720; cls++) if (mi_host_objcl_word(sys, cls) >= nw) nw = mi_host_objcl_word(sys, cls) + 1;
  for (int k = 0; k < nw; k++) cls_same &= row0[(size_t)a * stride + w0 + k] == row0[(size_t)b * stride + w0 + k];
  CHECK(w0 >= 0 && nw > 1 && cls_same, "#31.3 object-class words through the handle equal mi_host_add_objcl's");
  CHECK(same && ops == 1200 && mi_host_value(sys, pc[0], a) != 0, "#31.3 1,200 adds, sets and maxima through handles equal mi_host_add's, mi_host_set's and mi_host_max's");

  /* the CHANGED mark: taken at the open, not at every add */
  uint64_t e0 = __atomic_add_fetch(blk->epoch, 1, __ATOMIC_RELAXED);   /* as a CHANGED read takes the next epoch */
  CHECK(mi_host_row_open(sys, &r, MI_DOM_PROCESS, a), "#31.3 a live process's row opens");
  EQ(blk->mod[a], e0, "#31.3 the open marks the process's row written (read-active CHANGED)");
  uint64_t e1 = __atomic_add_fetch(blk->epoch, 1, __ATOMIC_RELAXED);
  for (int k = 0; k < 10; k++) mi_host_row_add(&r, pc[k % 5], 1);
  EQ(blk->mod[a], e0, "#31.3 adds through an open row store no mark: one mark per entity and batch");
  mi_host_add(sys, pc[0], a, 1);
  EQ(blk->mod[a], e1, "#31.3 (where mi_host_add marks at each add)");
  CHECK(blk->mod[b] < e0, "#31.3 the other process's row is not marked by A's open");

  /* a dead process, an entity out of range */
  int64_t before = mi_host_value(sys, pc[0], a);
  mi_host_proc_exit(sys, a);
  uint64_t e2 = __atomic_add_fetch(blk->epoch, 1, __ATOMIC_RELAXED);
  CHECK(!mi_host_row_open(sys, &r, MI_DOM_PROCESS, a), "#31.3 a write to a dead process is refused at the open");
  mi_host_row_add(&r, pc[0], 9);
  mi_host_row_addw(&r, 0, 9);
  EQ(mi_host_value(sys, pc[0], a), before, "#31.3 ... its counters stay frozen for its death report");
  CHECK(blk->mod[a] != e2, "#31.3 ... and its row is not marked");
  CHECK(!mi_host_row_open(sys, &r, MI_DOM_PROCESS, MI_MAX_PROCESSES) && !mi_host_row_open(sys, &r, MI_DOM_PROCESS, -1),
        "#31.3 a process slot out of range is refused");
  mi_session_free(s);
  mi_system_free(sys);
}
