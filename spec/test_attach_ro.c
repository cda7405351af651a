/* test_attach_ro.c — readers attach read-only (#27.8): a plain attach maps the store PROT_READ,
 * every read AIF works on it or returns its documented status, and nothing it does changes a byte
 * of the store; writing (ON of items nobody collects, PUT, user-defined counters) takes the
 * explicit read-write mode. Included by test_core.c (its CHECK/EQ counters, regpath, new_sys). */

/* The permissions of this process's mapping of the file at path ("r--s", "rw-s"), "" if none. */
static const char *ro_maps_perms(const char *path, char perms[8]) {
  perms[0] = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return perms;
  char line[4600];
  size_t n = strlen(path);
  while (fgets(line, sizeof line, f)) {
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == ' ')) line[--l] = 0;
    if (l < n || strcmp(line + l - n, path) != 0) continue;
    char *sp = strchr(line, ' ');
    if (sp) { memcpy(perms, sp + 1, 4); perms[4] = 0; }
    break;
  }
  fclose(f);
  return perms;
}

/* FNV-1a of the whole file at path (0 if it cannot be read). */
static uint64_t ro_file_hash(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  static unsigned char buf[1 << 16];
  uint64_t h = 1469598103934665603ull;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < n; i++) h = (h ^ buf[i]) * 1099511628211ull;
  close(fd);
  return h;
}

/* A privileged session on sys with the tests' user 666. */
static mi_session *ro_session(mi_system *sys) {
  mi_session *a = sys ? mi_session_new(sys) : NULL;
  if (!a) return NULL;
  mi_session_set_priv(a, 1);
  status_type st;
  mi_accesson(a, &st, 666);
  return a;
}

/* Records of a MIPROCGET of {20001, 25001} (pid, a count). */
typedef struct { int32_t pid[2]; int32_t cpu; } ro_prec;

/* Every AIF on a read-only attach: its reads work, its ON takes collected items only, its writes
 * are refused; its read path changes no byte of the store file. */
static void test_attach_ro_aifs(const char *dir) {
  char sp[320], perms[8];
  snprintf(sp, sizeof sp, "%s/ro.store", dir);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 22});
  CHECK(sys != NULL, "#27.8 an owner shares a store");
  if (!sys) return;
  mi_host_set_cpus(sys, 2);
  mi_host_set_device(sys, 1, 1);
  for (int p = 101; p <= 103; p++) mi_host_proc_create(sys, &(mi_proc_desc){.pid = p});
  status_type st;
  int32_t g1[] = {21000, 0}, gs[2], map = 2;
  mi_globon(s, &st, g1, gs, &map, 0);   /* the owner collects 21000 only, so far (the standard map) */
  mi_ctr busy = mi_host_counter(21000), cpu = mi_host_counter(25001);
  mi_host_begin(sys);
  mi_host_add(sys, busy, 0, 42);
  mi_host_publish(sys);

  int err = -1;
  mi_system *ro = mi_system_attach_with(sp, &(mi_attach_options){.registry = regpath}, &err);
  EQ(err, 0, "#27.8 a plain attach succeeds");
  CHECK(ro && mi_system_readonly(ro) && mi_system_attached(ro), "#27.8 ... and is read-only by default");
  if (!ro) { mi_session_free(s); mi_system_free(sys); return; }
  EQ(strcmp(ro_maps_perms(sp, perms), "r--s"), 0, "#27.8 the read-only attach maps the store r--s (PROT_READ, MAP_SHARED)");
  mi_session *a = ro_session(ro);
  /* an ON takes what the store collects; an item nobody collects says how to get it */
  int32_t g2[] = {21000, 21001, 0};
  mi_globon(a, &st, g2, gs, &map, 0);
  EQ(gs[0], 0, "#27.8 a read-only ON of an item the owner collects works");
  EQ(gs[1], MI_E_STORE_NOT_COLLECTED, "#27.8 a read-only ON of an item nobody collects: -32009 STORE_NOT_COLLECTED");
  CHECK(strstr(mi_status_message(MI_E_STORE_NOT_COLLECTED), "--attach-rw") &&
        strstr(mi_status_message(MI_E_STORE_NOT_COLLECTED), "collect"), "#27.8 ... whose message names the fixes");
  int32_t v[2] = {-1, -1};
  mi_globget(a, &st, g1, v, gs, sizeof v, 0, 0);
  EQ(st.all, 0, "#27.8 MIGLOBGET read-only");
  EQ(v[0], 42, "#27.8 ... reads the owner's value");
  char xerr[400] = "";
  int32_t xi[] = {21001, 0};
  mi_export *xe = mi_export_new(ro, &(mi_export_options){.items = xi, .no_io = 1, .no_processes = 1}, xerr, sizeof xerr);
  CHECK(!xe && strstr(xerr, "-32009") && strstr(xerr, "--attach-rw"),
        "#27.8 an exporter of items nobody collects on a read-only attach says why and how to fix it");
  mi_export_free(xe);
  /* the owner collects everything for its readers */
  EQ(mi_system_collect(sys, MI_COLLECT_ALL), 0, "#27.8 mi_system_collect(ALL) by the owner");
  EQ(mi_host_mapping(sys), 2, "#27.8 ... at the mapping its first ON chose");
  int32_t p1[] = {20001, 25001, 0}, ps[2], np = 0;
  ro_prec pr[8];
  mi_procon(a, &st, p1, ps, &map, NULL, 0);
  EQ(st.all, 0, "#27.8 a read-only MIPROCON of a collected item");
  mi_host_begin(sys);
  for (int k = 0; k < 3; k++) mi_host_add(sys, cpu, mi_host_proc_slot(sys, 101 + k), 10 * (k + 1));
  mi_host_publish(sys);
  mi_procget(a, &st, p1, pr, ps, sizeof pr, 0, NULL, &np, NULL, 0);
  EQ(st.all == 0 && np == 3, 1, "#27.8 MIPROCGET read-only: the three processes");
  /* births and deaths, seen without the owner keeping a record of the reader */
  mi_procon(s, &st, p1, ps, &map, NULL, 0);   /* the owner monitors them too: a dead slot waits for its report */
  mi_host_proc_create(sys, &(mi_proc_desc){.pid = 104});
  mi_procget(a, &st, p1, pr, ps, sizeof pr, 0, NULL, &np, NULL, 0);
  EQ(np, 4, "#27.8 a process born since is monitored (followed by its birth sequence)");
  mi_host_proc_exit(sys, mi_host_proc_slot(sys, 101));
  mi_procget(a, &st, p1, pr, ps, sizeof pr, 0, NULL, &np, NULL, 0);
  EQ(np, 4, "#27.8 a death is reported once (the slot is still the dead process's) ...");
  mi_procget(a, &st, p1, pr, ps, sizeof pr, 0, NULL, &np, NULL, 0);
  EQ(np, 3, "#27.8 ... then forgotten");
  int32_t io[] = {20020, 23000, 0}, is[2], ldev = -1, nl = 0, ir[8];
  mi_ioon(a, &st, io, is, &map, &ldev, 0);
  EQ(st.all, 0, "#27.8 a read-only MIIOON (collected)");
  int32_t g3[] = {21164, 0}, pc[] = {20040, 27000, 0}, pcs[2], id = -1, npc = 0, prr[16];
  mi_globoff(a, &st, 0);
  mi_globon(a, &st, g3, gs, &map, 0);
  EQ(st.all, 0, "#27.8 a read-only ON of 21164 (the processor counters collected)");

  /* from here the owner is idle: the reader's reads must not change a byte of the file */
  uint64_t before = ro_file_hash(sp);
  CHECK(before != 0, "#27.8 the store file hashes");
  mi_globget(a, &st, g3, v, gs, sizeof v, 0, 0);
  EQ(st.all, 0, "#27.8 MIGLOBGET");
  mi_procget(a, &st, p1, pr, ps, sizeof pr, 0, NULL, &np, NULL, 0);
  EQ(st.all == 0 && np == 3, 1, "#27.8 MIPROCGET");
  longint_type one;
  mi_longint_set(&one, 102);
  int32_t key = 0;
  mi_procget(a, &st, p1, pr, ps, sizeof pr, 0, &one, &np, &key, 0);
  EQ(st.all == 0 && pr[0].cpu == 20, 1, "#27.8 MIPROCGET of one pid reads its value");
  mi_ioget(a, &st, io, ir, is, sizeof ir, 0, &ldev, &nl, 0);
  EQ(st.all == 0 && nl == 1, 1, "#27.8 MIIOGET");
  mi_prcsrget(a, &st, pc, prr, pcs, sizeof prr, 0, &id, &npc, 0);
  EQ(st.all == 0 && npc == 8, 1, "#27.8 MIPRCSRGET");
  longint_type t;   /* AIFTIME's ticks are its input (the time to convert): set, not stack garbage */
  mi_longint_set(&t, 8000);
  clock_type c;
  mi_time(a, &st, &t, NULL, &c, NULL, NULL, 0);
  EQ(st.all, 0, "#27.8 AIFTIME");
  int32_t cn[] = {3042, 0}, cv = 0, cs[1];
  void *cp[] = {&cv};
  mi_scget(a, &st, cn, cp, cs, 0);
  EQ(st.all == 0 && cv == mi_host_config(sys, 3042), 1, "#27.8 AIFSCGET reads the owner's configuration");
  int32_t nrec = 0, flags[8];
  longint_type ctx;
  for (int mode = MI_RA_EXACT; mode <= MI_RA_CHANGED; mode++) {
    mi_longint_set(&ctx, 0);
    mi_readactive(a, &st, p1, pr, ps, sizeof pr, 0, MI_SEL_PROCESS, mode, NULL, 0, &nrec, flags, &ctx, 0);
    EQ(st.all == 0 && nrec == (mode == MI_RA_EXACT ? 1 : 3), 1, "#27.8 MIREADACTIVE (EXACT, LIST, CHANGED)");
  }
  mi_query *q = mi_query_new(a, MI_DOM_PROCESS, p1, 2, 0);
  int32_t cnt = 0;
  EQ(q && mi_query_run(q, pr, sizeof pr, -1, &cnt, ps, 0) == 0 && cnt == 3, 1, "#27.8 the query API");
  mi_query_free(q);
  int32_t fence = 9, fs[1], fn[] = {3001, 0};
  void *fp[] = {&fence};
  mi_scput(a, &st, fn, fp, fs, 0, NULL, NULL, NULL);
  EQ(INFO(st), MI_E_STORE_READONLY, "#27.8 AIFSCPUT read-only: -32008 STORE_READONLY");
  mi_udef u;
  EQ(mi_udef_install(ro, &(mi_udef_desc){.name = "ro_try", .kind = MI_UDEF_ACCUM}, &u), MI_E_STORE_READONLY,
     "#27.8 installing a user-defined counter read-only: -32008");
  mi_host_add(ro, busy, 0, 1000);   /* a writer call on a read-only system does nothing (no fault) */
  mi_procoff(a, &st, NULL, 0);
  EQ(st.all, 0, "#27.8 MIPROCOFF read-only");
  mi_session_free(a);
  EQ(ro_file_hash(sp) == before, 1, "#27.8 the reader's AIFs changed no byte of the store file");
  mi_system_free(ro);

  /* read-write on request: ON of anything, PUT, user-defined counters */
  mi_system *rw = mi_system_attach_with(sp, &(mi_attach_options){.registry = regpath, .write = 1}, &err);
  CHECK(rw && !mi_system_readonly(rw), "#27.8 .write = 1 attaches read-write");
  EQ(strcmp(ro_maps_perms(sp, perms), "rw-s"), 0, "#27.8 ... mapped rw-s");
  mi_session *w = ro_session(rw);
  mi_udef_desc ud = {.name = "rw_counter", .kind = MI_UDEF_ACCUM};
  EQ(w ? mi_udef_install(rw, &ud, &u) : -1, 0, "#27.8 a read-write attach installs a user-defined counter");
  mi_scput(w, &st, fn, fp, fs, 0, NULL, NULL, NULL);
  EQ(st.all, 0, "#27.8 ... and may AIFSCPUT");
  EQ(mi_system_collect(rw, MI_COLLECT_GLOBAL) != MI_E_STORE_READONLY, 1, "#27.8 mi_system_collect is not refused read-write");
  mi_session_free(w);
  mi_system_free(rw);
  mi_system *ro2 = mi_system_attach(sp, &err);
  EQ(ro2 ? mi_system_collect(ro2, MI_COLLECT_ALL) : 0, MI_E_STORE_READONLY, "#27.8 mi_system_collect read-only: -32008");
  mi_system_free(ro2);
  mi_session_free(s);
  mi_system_free(sys);
}

/* A reader attached read-only while the owner keeps publishing and dies: statuses, no fault. */
static void test_attach_ro_owner_gone(const char *dir) {
  char sp[320];
  snprintf(sp, sizeof sp, "%s/gone.store", dir);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 16});
  if (!sys) { CHECK(0, "#27.8 an owner shares a store"); return; }
  EQ(mi_system_collect(sys, MI_COLLECT_GLOBAL), 0, "#27.8 the owner collects the global domain");
  int err = -1;
  mi_system *ro = mi_system_attach_with(sp, &(mi_attach_options){.registry = regpath}, &err);
  mi_session *a = ro_session(ro);
  status_type st;
  int32_t g[] = {21000, 21001, 0}, gs[2], map = 2, v[2];
  mi_globon(a, &st, g, gs, &map, 0);
  EQ(INFO(st), 0, "#27.8 every global item is on for a read-only reader once the owner collects them");
  mi_session_free(s);
  mi_system_free(sys);   /* the owner goes */
  mi_globget(a, &st, g, v, gs, sizeof v, 0, 0);
  EQ(INFO(st), MI_E_STORE_OWNER_GONE, "#27.8 once the owner is gone a read-only GET says -32005");
  mi_session_free(a);
  mi_system_free(ro);
}

/* A read-only ON of process items on an owner that collects nothing and has no row room left:
 * -32009, and no write (the ON's room reservation is the writer's; on a PROT_READ mapping a write
 * would fault). */
static void test_attach_ro_no_room(const char *dir) {
  char sp[320];
  snprintf(sp, sizeof sp, "%s/noroom.store", dir);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 22});
  if (!sys) { CHECK(0, "#27.8 an owner shares a store"); return; }
  int err = -1;
  mi_system *ro = mi_system_attach_with(sp, &(mi_attach_options){.registry = regpath}, &err);
  mi_session *a = ro_session(ro);
  status_type st;
  int32_t p[] = {25047, 25048, 25167, 0}, ps[3], map = 2;
  longint_type all;
  mi_longint_set(&all, -1);
  mi_procon(a, &st, p, ps, &map, &all, 0);
  EQ(ps[0], MI_E_STORE_NOT_COLLECTED, "#27.8 a read-only process ON with no row room: -32009, no write");
  mi_session_free(a);
  mi_system_free(ro);
  mi_session_free(s);
  mi_system_free(sys);
}

static void test_attach_ro(void) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/mish-test-ro-XXXXXX", getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) { CHECK(0, "#27.8 a private directory for the read-only tests"); return; }
  test_attach_ro_aifs(dir);
  test_attach_ro_owner_gone(dir);
  test_attach_ro_no_room(dir);
  CHECK(rmdir(dir) == 0, "#27.8 the read-only tests leave their directory empty");
}
