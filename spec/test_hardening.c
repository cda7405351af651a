/* test_hardening.c — hardening (#11): workload checks, the registry, AIFTIME, GET bounds and
 * caches, writer kinds, slots, processor references, removed LDEVs, the pid hash, extreme items.
 * Part of spec/test_core.c (#included there: one program, its helpers and statics shared; included
 * in order of definition). */

/* ---- issue 11, defects 5, 6 and 13: workloads set in C, the registry file, AIFTIME's clock ---- */

/* #11.5: a workload whose fields were changed directly in C is checked when a system is made of it. */
static void test_h11_workload_check(void) {
  char msg[160];
  for (int i = 0; mi_workload_name(i); i++) {
    EQ(mi_workload_check(mi_workload_builtin(mi_workload_name(i)), msg, sizeof msg), 0,
       "#11.5: every built-in workload is within the ranges of mi_workload_set");
  }
  mi_workload w = *mi_workload_builtin("oltp");
  w.disks = 906;
  CHECK(mi_sim_new(&w, 0) == NULL, "#11.5: mi_sim_new refuses disks = 906 (past the disk table)");
  EQ(mi_workload_check(&w, msg, sizeof msg), -2, "#11.5: mi_workload_check says disks = 906 is out of range");
  CHECK(strcmp(msg, "workload field 'disks' must be an integer in 1..105, got 906") == 0, "#11.5: the message names the field and its range");
  mi_system *sys = mi_system_new(NULL);
  EQ(mi_sim_attach(sys, &w, 0), -2, "#11.5: mi_sim_attach refuses an invalid workload with -2");
  CHECK(!mi_sim_attached(sys), "#11.5: and leaves the system alone");
  mi_system_free(sys);
  static const struct { const char *field; double v; } bad[] = {
    {"think_ms", NAN}, {"think_ms", 1e300}, {"txn_ios", -1}, {"job_ms", INFINITY}, {"disk_ms", 0},
    {"faults_per_io", NAN}, {"cpus", 0}, {"cpus", 9}, {"terminals", 21}, {"sessions", -1}, {"jobs", 601},
    {"memory_pages", 0}, {"think_dist", 3}, {"service_dist", -1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mi_workload x = *mi_workload_builtin("idle");
    double lo, hi; int kind;
    for (int k = 0; mi_workload_field(k, &lo, &hi, &kind, NULL); k++) {
      if (strcmp(mi_workload_field(k, NULL, NULL, NULL, NULL), bad[i].field)) continue;
      char *p = (char *)&x;   /* set the field the way a C program would, past mi_workload_set */
      if (kind == MI_WF_REAL) *(double *)(p + (strcmp(bad[i].field, "think_ms") == 0 ? offsetof(mi_workload, think_ms) :
        strcmp(bad[i].field, "txn_ios") == 0 ? offsetof(mi_workload, txn_ios) : strcmp(bad[i].field, "job_ms") == 0 ?
        offsetof(mi_workload, job_ms) : strcmp(bad[i].field, "disk_ms") == 0 ? offsetof(mi_workload, disk_ms) :
        offsetof(mi_workload, faults_per_io))) = bad[i].v;
    }
    if (!strcmp(bad[i].field, "cpus")) x.cpus = (int)bad[i].v;
    if (!strcmp(bad[i].field, "terminals")) x.terminals = (int)bad[i].v;
    if (!strcmp(bad[i].field, "sessions")) x.sessions = (int)bad[i].v;
    if (!strcmp(bad[i].field, "jobs")) x.jobs = (int)bad[i].v;
    if (!strcmp(bad[i].field, "memory_pages")) x.memory_pages = (int)bad[i].v;
    if (!strcmp(bad[i].field, "think_dist")) x.think_dist = (int)bad[i].v;
    if (!strcmp(bad[i].field, "service_dist")) x.service_dist = (int)bad[i].v;
    mi_system *y = mi_sim_new(&x, 0);
    char what[96];
    snprintf(what, sizeof what, "#11.5: mi_sim_new refuses %s = %g set directly", bad[i].field, bad[i].v);
    CHECK(y == NULL, what);
    mi_system_free(y);
    EQ(mi_workload_check(&x, msg, sizeof msg), -2, "#11.5: mi_workload_check agrees");
    CHECK(strstr(msg, bad[i].field) != NULL, "#11.5: and names the field");
  }
  mi_workload x = *mi_workload_builtin("idle");
  x.seed = UINT64_MAX;
  EQ(mi_workload_check(&x, msg, sizeof msg), -2, "#11.5: a seed above 2^53 (mi_workload_set's range) is refused too");
  EQ(mi_workload_check(NULL, msg, sizeof msg), -1, "#11.5: mi_workload_check(NULL) is -1");
  /* the largest machine the ranges allow runs (and stays inside its tables under ASan) */
  x = *mi_workload_builtin("disk");
  x.disks = 105; x.cpus = 8; x.terminals = 20; x.txn_ios = 1000;
  sys = mi_sim_new(&x, 0);
  CHECK(sys != NULL, "#11.5: disks = 105 and txn_ios = 1000 are accepted");
  mi_sim_advance(sys, 2000);
  CHECK(mi_host_device(sys, 199) == 1 && mi_host_device(sys, 200) == 0, "#11.5: 105 disks are LDEVs 1-5 and 100-199");
  mi_system_free(sys);
}

/* Writes text to path, replacing it. */
static void put_path(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
}

/* Reads path into buf (at most n-1 bytes, terminated); the length or -1. */
static long get_file(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t r = fread(buf, 1, n - 1, f);
  buf[r] = 0;
  fclose(f);
  return (long)r;
}

/* A privileged session on a fresh system whose registry is the file at path. */
static mi_system *reg_sys(const char *path, mi_session **s) {
  mi_system *sys = mi_system_new(&(mi_system_options){.registry = path});
  *s = mi_session_new(sys);
  mi_session_set_priv(*s, 1);
  return sys;
}

/* 1 if AIFACCESSON accepts uid on a fresh system reading the registry at path. */
static int reg_accepts(const char *path, int32_t uid) {
  mi_session *s; mi_system *sys = reg_sys(path, &s);
  status_type st;
  mi_accesson(s, &st, uid);
  mi_system_free(sys);
  return st.all == 0;
}

/* #11.6: the registry file is written safely, read strictly and loaded in linear time. */
static void test_h11_registry(void) {
  char path[300], buf[4096];
  snprintf(path, sizeof path, "%s-h11", regpath);
  status_type st;
  mi_session *s; mi_system *sys;
  /* 777 without a trailing newline, then AIFGLOBINSTALL 666 */
  put_path(path, "777");
  sys = reg_sys(path, &s);
  mi_globinstall(s, &st, 666);
  EQ(st.all, 0, "#11.6: AIFGLOBINSTALL after a last line without newline succeeds");
  mi_system_free(sys);
  get_file(path, buf, sizeof buf);
  CHECK(strcmp(buf, "777\n666\n") == 0, "#11.6: the new ID goes on its own line (777, 666; not 777666)");
  CHECK(reg_accepts(path, 777) && reg_accepts(path, 666), "#11.6: both 777 and 666 stay installed");
  CHECK(!reg_accepts(path, 777666), "#11.6: no bogus 777666 is authorised");
  /* a 200-character line: an error, never a phantom ID (the old reader saw 4242 at column 64) */
  char text[512];
  memset(text, 'x', 63);
  snprintf(text + 63, sizeof text - 63, "4242%133s\n777\n", "");
  put_path(path, text);
  sys = reg_sys(path, &s);
  CHECK(mi_registry_error(sys) && strcmp(mi_registry_error(sys), "line 1: longer than 80 characters") == 0,
        "#11.6: a 200-character line is reported as one error");
  mi_accesson(s, &st, 4242);
  EQ(INFO(st), -26, "#11.6: a 200-character line yields no phantom ID");
  mi_accesson(s, &st, 777);
  EQ(st.all, 0, "#11.6: the good lines of a corrupt registry still count");
  mi_globinstall(s, &st, 888);
  EQ(INFO(st), -48, "#11.6: AIFGLOBINSTALL into a corrupt registry gives -48");
  mi_system_free(sys);
  get_file(path, buf, sizeof buf);
  CHECK(strcmp(buf, text) == 0, "#11.6: and leaves the corrupt file as it was");
  /* garbage lines: none is an ID; blank lines, blanks around an ID and no final newline are fine */
  put_path(path, "12abc\nabc\n-5\n+7\n0\n99999999999\n2147483648\n0x10\n1 2\n\n  \t\n 31 \r\n007\n2147483647");
  sys = reg_sys(path, &s);
  CHECK(mi_registry_error(sys) && strcmp(mi_registry_error(sys), "line 1: not a decimal user ID (and 8 more bad lines)") == 0,
        "#11.6: garbage lines are one error naming the first and counting the rest");
  static const int32_t never[] = {12, 5, 999999999, 99999, 16, 1, 2, 10};
  int ok = 1;
  for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
    mi_accesson(s, &st, never[i]);
    ok &= INFO(st) == -26;
  }
  CHECK(ok, "#11.6: no garbage line becomes an ID (12abc, -5, +7, 0x10, 1 2 ...)");
  mi_accesson(s, &st, 31);
  EQ(st.all, 0, "#11.6: ' 31 ' with blanks and CR is ID 31");
  mi_accesson(s, &st, 7);
  EQ(st.all, 0, "#11.6: '007' is ID 7 (decimal)");
  mi_accesson(s, &st, 2147483647);
  EQ(st.all, 0, "#11.6: the last line without newline counts");
  mi_system_free(sys);
  /* 200k IDs: loaded in linear time (one pass and a sort), looked up by binary search */
  FILE *f = fopen(path, "w");
  for (int i = 200000; i >= 1; i--) fprintf(f, "%d\n", i * 7);
  fclose(f);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sys = reg_sys(path, &s);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("note: #11.6 loading 200000 registry IDs took %.1f ms\n",
         (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  EQ(sys->nuids, 200000, "#11.6: 200k IDs load");
  CHECK(mi_registry_has(sys, 7) && mi_registry_has(sys, 1400000) && mi_registry_has(sys, 700007) &&
        !mi_registry_has(sys, 700008), "#11.6: and are found by binary search");
  mi_globinstall(s, &st, 3);
  EQ(st.all, 0, "#11.6: AIFGLOBINSTALL into a 200k registry");
  mi_system_free(sys);
  CHECK(reg_accepts(path, 3) && reg_accepts(path, 1400000), "#11.6: which keeps every ID");
  /* two processes installing at once: every ID of both ends up in the file */
  unlink(path);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      mi_session *cs; mi_system *cy = reg_sys(path, &cs);
      int bad = 0;
      for (int i = 1; i <= 40; i++) { status_type cst; mi_globinstall(cs, &cst, 1000 * (k + 1) + i); bad |= cst.all != 0; }
      mi_system_free(cy);
      _exit(bad);
    }
  }
  int all_ok = 1;
  for (int k = 0; k < 2; k++) { int ws = 1; waitpid(kids[k], &ws, 0); all_ok &= WIFEXITED(ws) && WEXITSTATUS(ws) == 0; }
  CHECK(all_ok, "#11.6: concurrent AIFGLOBINSTALLs from two processes all succeed");
  sys = reg_sys(path, &s);
  int found = 0;
  for (int k = 0; k < 2; k++) for (int i = 1; i <= 40; i++) found += mi_registry_has(sys, 1000 * (k + 1) + i);
  EQ(found, 80, "#11.6: concurrent installs from two processes both end up in the file");
  CHECK(mi_registry_error(sys) == NULL, "#11.6: and the file stays well-formed");
  mi_system_free(sys);
  /* an unreadable registry path: -48, not a crash */
  sys = reg_sys("/nonexistent-dir/aifkuf", &s);
  mi_globinstall(s, &st, 5);
  EQ(INFO(st), -48, "#11.6: AIFGLOBINSTALL with an unwritable registry gives -48");
  mi_system_free(sys);
  unlink(path);
  snprintf(buf, sizeof buf, "%s.lock", path);
  unlink(buf);
}

/* Tenths of a second since midnight from an AIFTIME clock. */
static long tenths_of(const clock_type *c) { return ((c->hour * 60L + c->min) * 60 + c->sec) * 10 + c->ten_sec; }

/* #11.13: AIFTIME without ticks or microseconds reads the measured system's clock now. */
static void test_h11_aiftime(void) {
  status_type st;
  clock_type c1, c2;
  mi_system *sys = mi_sim_new(mi_workload_builtin("idle"), 1);
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  mi_globinstall(s, &st, 666);
  mi_accesson(s, &st, 666);
  mi_time(s, &st, NULL, NULL, &c1, NULL, NULL, 0);
  usleep(1100000);
  mi_time(s, &st, NULL, NULL, &c2, NULL, NULL, 0);
  long d = (tenths_of(&c2) - tenths_of(&c1) + 864000) % 864000;
  CHECK(d >= 10 && d <= 16, "#11.13: two AIFTIMEs 1.1 s apart on a real-time sim differ by about 1 s");
  /* a gap longer than the catch-up limit is skipped, but the clock still jumps over it */
  mi_sim_set_max_catchup(sys, 100);
  mi_time(s, &st, NULL, NULL, &c1, NULL, NULL, 0);
  usleep(600000);
  mi_time(s, &st, NULL, NULL, &c2, NULL, NULL, 0);
  d = (tenths_of(&c2) - tenths_of(&c1) + 864000) % 864000;
  CHECK(d >= 5 && d <= 10, "#11.13: a skipped gap still moves the clock");
  mi_system_free(sys);
  /* the default system's clock is the wall clock, not its creation plus its minute of history */
  sys = mi_system_open("sim", NULL, NULL, NULL, 0);
  s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  mi_globinstall(s, &st, 666);
  mi_accesson(s, &st, 666);
  for (int k = 0; k < 2; k++) {
    if (k) usleep(1100000);
    mi_time(s, &st, NULL, NULL, &c1, NULL, NULL, 0);
    struct timespec now; struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    localtime_r(&now.tv_sec, &tm);
    clock_type w = {(uint8_t)tm.tm_hour, (uint8_t)tm.tm_min, (uint8_t)tm.tm_sec, (uint8_t)(now.tv_nsec / 100000000)};
    d = labs((tenths_of(&c1) - tenths_of(&w) + 864000 + 432000) % 864000 - 432000);
    CHECK(st.all == 0 && d <= 20, k ? "#11.13: and keeps reading the wall clock 1.1 s later"
                                    : "#11.13: the default system's AIFTIME is within 2 s of the wall clock");
  }
  mi_system_free(sys);
  /* a tick rate a source set to 0 or 1: -3014, not a division by zero or an overflow */
  mi_session *t; sys = new_sys(&t, NULL);
  longint_type big;
  mi_longint_set(&big, INT64_MAX);
  mi_host_config_set(sys, 3043, 1);
  mi_time(t, &st, &big, NULL, &c1, NULL, NULL, 0);
  EQ(INFO(st), -3014, "#11.13: AIFTIME of ticks too large for microseconds gives -3014");
  mi_host_config_set(sys, 3043, 0);
  mi_time(t, &st, &big, NULL, &c1, NULL, NULL, 0);
  EQ(INFO(st), -3014, "#11.13: AIFTIME with a tick rate of 0 gives -3014");
  mi_time(t, &st, NULL, NULL, &c1, NULL, NULL, 0);
  EQ(INFO(st), -3014, "#11.13: and so does 'now' at a tick rate of 0");
  mi_host_config_set(sys, 3043, 8000);
  date_type dt;
  mi_time(t, &st, NULL, &big, NULL, &dt, NULL, 0);
  CHECK(st.all == 0 && dt.year > 290000, "#11.13: AIFTIME of the largest microseconds is a year near 292000");
  mi_system_free(sys);
}

/* ---- issue 11 "Harden the seams" ---- */

/* #11.1: a MIGLOBGET that fails with -20008 part-way leaves the plan cache usable: the next
 * GET of the cached list writes its 8 bytes, not the 2,880 of the failed list's plan. */
static void test_h11_glob_cache_failed_get(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t on[] = {21177, 21176, 0}, stats[4], map = 0;
  mi_globon(s, &st, on, stats, &map, 0);
  EQ(st.all, 0, "#11.1 MIGLOBON {21177, 21176} mapping 0");
  mi_host_add(sys, mi_host_counter(21177), 0, 5000);
  struct { int32_t v[2]; uint8_t guard[4096]; } b;
  memset(&b, 0x5A, sizeof b);
  mi_globget(s, &st, on, b.v, stats, 8, 0, 0);
  EQ(st.all, 0, "#11.1 GET into 8 bytes");
  int32_t big[] = {21254, 21255, 0};
  uint8_t *bb = malloc(2884);
  mi_globget(s, &st, big, bb, stats, 2884, 0, 0);
  EQ(INFO(st), -20008, "#11.1 GET of two 2,880-byte items into 2,884 bytes gives -20008");
  free(bb);
  for (int k = 0; k < 2; k++) {
    memset(&b, 0x5A, sizeof b);
    mi_globget(s, &st, on, b.v, stats, 8, 0, 0);
    EQ(st.all, 0, "#11.1 a failed MIGLOBGET leaves the plan cache usable");
    EQ(b.v[0], 5, "#11.1 the first list's value after a failed GET");
    int intact = 1;
    for (size_t i = 0; i < sizeof b.guard; i++) intact &= b.guard[i] == 0x5A;
    CHECK(intact, "#11.1 a GET after a failed GET writes nothing past buffer_size");
  }
  mi_system_free(sys);
}

/* #11.1: no GET of any domain writes past buffer_size, whatever the list, mapping and size:
 * random lists over every domain (pseudo items, class counters, unknown items), repeated
 * lists (the cache), sizes from 0 to a few records, each with a guard zone after the buffer. */
static void test_h11_get_bounds(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  mi_host_set_cpus(sys, 3);
  for (int l = 1; l <= 3; l++) mi_host_set_device(sys, l, 1);
  mi_host_set_device(sys, 7, 2);
  for (int p = 0; p < 5; p++) { mi_proc_desc d = proc(500 + p, "B"); mi_host_proc_create(sys, &d); }
  status_type st;
  int32_t g[] = {21000, 21176, 21254, 21088, 21164, 0}, pi[] = {20001, 20003, 25047, 25202, 25261, 0};
  int32_t io[] = {20020, 23048, 23050, 0}, stats[MI_MAX_ITEMS], map = 1;
  mi_globon(s, &st, g, stats, &map, 0);
  mi_procon(s, &st, pi, stats, &map, NULL, 0);
  mi_ioon(s, &st, io, stats, &map, NULL, 0);
  static const int32_t pool[] = {21000, 21001, 21176, 21254, 21255, 21088, 21164, 20001, 20002, 20003, 20004,
                                 20005, 20007, 20011, 20020, 20040, 25047, 25202, 25261, 23048, 23050, 27006,
                                 27013, 99, 30000, -4};
  const int npool = (int)(sizeof pool / sizeof pool[0]);
  enum { GUARD = 4096 };
  uint8_t *mem = malloc(20000 + GUARD);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  int32_t lists[6][12] = {{0}};   /* a few lists in turn, so cached plans meet other lists */
  int bad = 0, calls = 0;
  for (int it = 0; it < 20000; it++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    int32_t *list = lists[(x >> 4) % 6];
    if (x % 8 == 0 || it < 6) {   /* now and then a new list */
      int n = (int)((x >> 8) % 8);
      for (int k = 0; k < n; k++) list[k] = pool[(x >> (12 + 4 * k)) % (uint64_t)npool];
      list[n] = 0;
    }
    int32_t size = (int32_t)((x >> 40) % 7000) & ~3, mapping = (int32_t)((x >> 20) % 3), sel = -1, num, key = 0;
    memset(mem, 0xA5, (size_t)size + GUARD);
    switch ((x >> 50) % 4) {
    case 0: mi_globget(s, &st, list, mem, stats, size, mapping, 0); break;
    case 1: mi_procget(s, &st, list, mem, stats, size, mapping, NULL, &num, &key, 0); break;
    case 2: mi_ioget(s, &st, list, mem, stats, size, mapping, &sel, &num, 0); break;
    default: mi_prcsrget(s, &st, list, mem, stats, size, mapping, &sel, &num, 0); break;
    }
    calls++;
    for (int i = 0; i < GUARD; i++) if (mem[size + i] != 0xA5) { bad++; break; }
  }
  EQ(bad, 0, "#11.1 no GET of any domain writes past buffer_size (20,000 random GETs)");
  free(mem);
  mi_system_free(sys);
}

/* #11.4: every writer checks the counter's kind: a class writer given a simple counter (or
 * the other class kind) writes nothing, set/max/value only take simple counters, classes
 * out of range are ignored, and mi_host_add to a class counter adds to class 0. */
static void test_h11_writer_kinds(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t on[] = {21000, 21254, 21088, 0}, stats[4], map = 1;
  mi_globon(s, &st, on, stats, &map, 0);
  mi_ctr simple = mi_host_counter(21000), objcl = mi_host_counter(21254), semcl = mi_host_counter(21088);
  mi_host_add(sys, simple, 0, 7);
  mi_host_add_objcl(sys, simple, 0, 600, 1);   /* hundreds of words past the cell */
  mi_host_add_objcl(sys, simple, 0, 5, 1);
  mi_host_add_semcl(sys, simple, 0, 200, 1);
  mi_host_add_semcl(sys, simple, 0, 1, 1);
  mi_host_add_objcl(sys, semcl, 0, 3, 1);      /* the other class kind */
  mi_host_add_semcl(sys, objcl, 0, 3, 1);
  mi_host_add_objcl(sys, objcl, 0, -1, 1);     /* classes out of range */
  mi_host_add_objcl(sys, objcl, 0, 720, 1);
  mi_host_add_semcl(sys, semcl, 0, 256, 1);
  mi_host_add_semcl(sys, semcl, 0, -3, 1);
  mi_host_set(sys, objcl, 0, 99);              /* set/max take simple counters only */
  mi_host_max(sys, semcl, 0, 99);
  mi_host_sem_block(sys, MI_DOM_IO, 0, 38, 2); /* no semaphore buckets in the I/O domain */
  mi_host_sem_block(sys, 7, 0, 38, 2);
  mi_host_add(sys, objcl, 0, 3);               /* decision: class 0 */
  mi_host_add(sys, semcl, 0, 2);
  mi_host_add_objcl(sys, objcl, 0, 29, 4);     /* large 29 -> small 13 */
  mi_host_add_semcl(sys, semcl, 0, 38, 6);
  struct { int32_t simple, pf[33], sem[256]; } b;
  mi_globget(s, &st, on, &b, stats, sizeof b, 1, 0);
  EQ(st.all, 0, "#11.4 MIGLOBGET");
  EQ(b.simple, 7, "#11.4 the simple counter only has its own adds");
  int others = 0;
  for (int k = 1; k < 33; k++) if (k != 13) others += b.pf[k] != 0;
  for (int k = 1; k < 256; k++) if (k != 38) others += b.sem[k] != 0;
  EQ(others, 0, "#11.4 a class writer given a counter of another kind writes nowhere");
  EQ(b.pf[0], 3, "#11.4 mi_host_add to an object-class counter adds to class 0; set ignored");
  EQ(b.pf[13], 4, "#11.4 mi_host_add_objcl still folds large 29 into small 13");
  EQ(b.sem[0], 2, "#11.4 mi_host_add to a semaphore-class counter adds to class 0; max ignored");
  EQ(b.sem[38], 6, "#11.4 semaphore class 38; a block in the I/O domain is ignored");
  EQ(mi_host_value(sys, objcl, 0), 0, "#11.4 mi_host_value reads simple counters only");
  EQ(mi_host_value(sys, simple, 0), 7, "#11.4 mi_host_value of a simple counter");
  mi_system_free(sys);
  /* a class writer given a simple counter alone in its row must not write past the row */
  sys = new_sys(&s, NULL);
  int32_t one[] = {21000, 0};
  mi_globon(s, &st, one, stats, &map, 0);
  mi_host_add_objcl(sys, simple, 0, 719, 1);
  mi_host_add_semcl(sys, simple, 0, 255, 1);
  EQ(mi_host_value(sys, simple, 0), 0, "#11.4 class writes to a lone simple counter are ignored");
  EQ(mi_host_ticks_per_ms(NULL), 0, "a NULL system has no tick rate");
  EQ(mi_host_config_bit(NULL, 3015, 0), 0, "a NULL system has no mask bits");
  EQ(mi_host_config_set(sys, 3043, 0), -1, "ticks per ms 0 is refused (every time conversion divides by it)");
  EQ(mi_host_config_set(sys, 3042, -5), -1, "a rounding factor below 1 is refused");
  EQ(mi_host_config(sys, 3042), 1000, "and the factor is unchanged");
  mi_system_free(sys);
}

/* #11.7: the MIGLOBGET cache is keyed on the session's own enable set: after this session's
 * OFF and ON (another session keeping the same counters on) statuses follow the new set. */
static void test_h11_glob_cache_session_set(void) {
  mi_session *a; mi_system *sys = new_sys(&a, NULL);
  mi_session *b = mi_session_new(sys);
  mi_session_set_priv(b, 1);
  status_type st;
  mi_accesson(b, &st, 666);
  int32_t both[] = {21000, 21001, 0}, first[] = {21000, 0}, stats[2], map = 1, buf[2];
  mi_globon(b, &st, both, stats, &map, 0);
  mi_globon(a, &st, both, stats, &map, 0);
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  EQ(st.all, 0, "#11.7 cached GET of both items");
  mi_globoff(a, &st, 0);
  mi_globon(a, &st, first, stats, &map, 0);
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], -20013, "#11.7 after OFF/ON without 21001 the cached status 0 is not reused");
  EQ(INFO(st), 2, "#11.7 overall status names it");
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], -20013, "#11.7 the cached -20013");
  mi_globoff(a, &st, 0);
  mi_globon(a, &st, both, stats, &map, 0);
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], 0, "#11.7 after OFF/ON with 21001 the cached -20013 is not reused");
  EQ(st.all, 0, "#11.7 overall status 0");
  mi_system_free(sys);
}

/* #11.8: items of another domain (and pseudo-items where a domain has none) are invalid and
 * keep a 4-byte zero slot in all four GETs, whatever their size in their own domain. */
static void test_h11_foreign_item_slots(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  mi_host_set_cpus(sys, 1);
  mi_host_set_device(sys, 1, 1);
  mi_proc_desc d = proc(77, "SLOTS");
  mi_host_proc_create(sys, &d);
  status_type st;
  int32_t g[] = {21000, 21164, 0}, p[] = {25047, 0}, io[] = {23048, 0}, stats[8], map = 1, n, sel;
  mi_globon(s, &st, g, stats, &map, 0);
  mi_procon(s, &st, p, stats, &map, NULL, 0);
  mi_ioon(s, &st, io, stats, &map, NULL, 0);
  mi_host_add(sys, mi_host_counter(21000), 0, 11);
  int32_t b[64];
  /* global: 20004 (a 48-byte process pseudo-item), 23050 (an I/O object-class counter), 20020 */
  int32_t gl[] = {20004, 21000, 23050, 20020, 21000, 0};
  memset(b, 0x5A, sizeof b);
  mi_globget(s, &st, gl, b, stats, 20, 1, 0);
  EQ(st.all == 0 ? 0 : INFO(st), 4, "#11.8 global GET: overall names the last invalid item");
  EQ(stats[0], -20006, "#11.8 20004 in a global GET is invalid");
  EQ(b[0], 0, "#11.8 20004 keeps a 4-byte zero slot in a global GET");
  EQ(b[1], 11, "#11.8 the next item follows at offset 4");
  EQ(b[2], 0, "#11.8 an I/O object-class counter keeps 4 bytes in a global GET");
  EQ(b[3], 0, "#11.8 20020 keeps 4 bytes in a global GET");
  EQ(b[4], 11, "#11.8 20 bytes in all");
  /* process: 20020, 20040, 21254 (a global class counter), then the pid */
  int32_t pl[] = {20020, 20040, 21254, 20001, 0};
  mi_procget(s, &st, pl, b, stats, 20, 1, NULL, &n, NULL, 0);
  EQ(n, 1, "#11.8 process GET: one 20-byte record fits 20 bytes");
  EQ(stats[2], -20006, "#11.8 a global counter in a process GET is invalid");
  longint_type pid; memcpy(&pid, &b[3], 8);
  EQ(mi_longint_get(&pid), 77, "#11.8 the pid follows three 4-byte invalid slots");
  /* I/O: 20001 (an 8-byte process pseudo-item), 20003, then 20020 */
  int32_t il[] = {20001, 20003, 20020, 23048, 0};
  sel = 1;
  mi_ioget(s, &st, il, b, stats, 16, 1, &sel, &n, 0);
  EQ(n, 1, "#11.8 I/O GET: one 16-byte record fits 16 bytes");
  EQ(b[0] | b[1], 0, "#11.8 process pseudo-items keep 4-byte zero slots in an I/O GET");
  EQ(b[2], 1, "#11.8 20020 follows at offset 8");
  /* processor: 20001, 20003, 20040, 21000 */
  int32_t cl[] = {20001, 20003, 20040, 21000, 0};
  sel = 0;
  mi_prcsrget(s, &st, cl, b, stats, 16, 1, &sel, &n, 0);
  EQ(n, 1, "#11.8 processor GET: one 16-byte record fits 16 bytes");
  EQ(stats[0], -20006, "#11.8 20001 in a processor GET is invalid");
  EQ(b[2], 0, "#11.8 20040 (processor 0) at offset 8");
  EQ(stats[3], -20006, "#11.8 a global counter in a processor GET is invalid");
  mi_system_free(sys);
}

/* #11.10a: processor counters are held per session, all or nothing: a user whose 21164 ON
 * could not get them all (cell limit) gets -20004 for 21164, and its OFF never takes them
 * from another user who holds them. */
static void test_h11_processor_refs(void) {
  int pwords = 0;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR); k++)
    pwords += mi_item_words(mi_domain_item(MI_DOM_PROCESSOR, k), 1) * MI_MAX_PROCESSORS;
  /* room for C's process counter, A's 21176 and 21164, and all processor counters but one */
  mi_system_options o = {.max_cells = MI_MAX_PROCESSES + 2 + pwords - 1};
  mi_session *a; mi_system *sys = new_sys(&a, &o);
  mi_session *b = mi_session_new(sys), *c = mi_session_new(sys);
  status_type st;
  mi_session_set_priv(b, 1); mi_session_set_priv(c, 1);
  mi_accesson(b, &st, 666); mi_accesson(c, &st, 666);
  int32_t pc[] = {25047, 0}, ga[] = {21176, 21164, 0}, gb[] = {21164, 0}, stats[4], map = 1;
  mi_procon(c, &st, pc, stats, &map, NULL, 0);
  EQ(st.all, 0, "#11.10a C takes 2,700 cells");
  mi_globon(a, &st, ga, stats, &map, 0);
  EQ(stats[1], -20004, "#11.10a 21164 without room for every processor counter gives -20004");
  EQ(stats[0], 0, "#11.10a the other item is on");
  mi_procoff(c, &st, NULL, 0);          /* frees the process rows */
  mi_globon(b, &st, gb, stats, &map, 0);
  EQ(st.all, 0, "#11.10a B turns 21164 on");
  mi_globoff(a, &st, 0);
  int off = 0;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR); k++)
    off += !mi_host_active(sys, (mi_ctr){MI_DOM_PROCESSOR << MI_HOST_INDEX_BITS | k});
  EQ(off, 0, "#11.10a A's OFF leaves B every processor counter");
  int32_t items[] = {20040, 27006, 27113, 0}, r[3], n, id = 0;
  mi_prcsrget(b, &st, items, r, stats, sizeof r, 1, &id, &n, 0);
  EQ(st.all, 0, "#11.10a B's MIPRCSRGET of the first and last processor counters");
  mi_globoff(b, &st, 0);
  int refs = 0;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR); k++) refs += sys->seg->dom[MI_DOM_PROCESSOR].refs[k];
  EQ(refs, 0, "#11.10a every processor reference is given back");
  /* without the cell limit: two users in turn */
  mi_globon(a, &st, gb, stats, &map, 0);
  mi_globon(b, &st, gb, stats, &map, 0);
  mi_globoff(a, &st, 0);
  CHECK(mi_host_active(sys, mi_host_counter(27006)), "#11.10a the second user keeps processors after the first's OFF");
  mi_globoff(b, &st, 0);
  CHECK(!mi_host_active(sys, mi_host_counter(27006)), "#11.10a and they stop with the last");
  mi_system_free(sys);
}

/* #11.10b: removing an enabled LDEV (or changing its type) drops it from every user's set and
 * from the MI device table; its counters restart from zero when a device is configured there. */
static void test_h11_ldev_removed(void) {
  mi_system_options o = {.max_ldevs = 3};
  mi_session *a; mi_system *sys = new_sys(&a, &o);
  mi_session *b = mi_session_new(sys);
  status_type st;
  mi_session_set_priv(b, 1);
  mi_accesson(b, &st, 666);
  for (int l = 1; l <= 3; l++) mi_host_set_device(sys, l, 1);
  int32_t items[] = {20020, 23048, 0}, stats[2], map = 1, sel = -2, n;
  mi_ioon(a, &st, items, stats, &map, &sel, 0);
  EQ(st.all, 0, "#11.10b A enables the three disks (the table is full)");
  mi_host_add(sys, mi_host_counter(23048), 2, 10);
  mi_host_set_device(sys, 2, 0);
  EQ(sys->seg->ldevs_enabled, 2, "#11.10b a removed LDEV leaves the MI device table");
  EQ(sys->seg->ldev_refs[2], 0, "#11.10b and holds no reference");
  EQ(a->u->nldevs, 2, "#11.10b and leaves the user's set");
  int32_t r[8][2];
  sel = -1;
  mi_ioget(a, &st, items, r, stats, sizeof r, 1, &sel, &n, 0);
  EQ(n, 2, "#11.10b a GET of all devices returns the two left");
  sel = 2;
  mi_ioget(a, &st, items, r, stats, sizeof r, 1, &sel, &n, 0);
  EQ(INFO(st), -20013, "#11.10b a GET of the removed LDEV gives -20013");
  mi_host_set_device(sys, 4, 1);
  sel = 4;
  mi_ioon(b, &st, items, stats, &map, &sel, 0);
  EQ(st.all, 0, "#11.10b the freed table entry takes another LDEV");
  mi_host_set_device(sys, 3, 2);        /* a disk becomes a tape */
  EQ(a->u->nldevs, 1, "#11.10b an LDEV whose type changes leaves the user's set");
  sel = -1;
  mi_ioget(a, &st, items, r, stats, sizeof r, 1, &sel, &n, 0);
  EQ(n, 1, "#11.10b the disk-only user no longer gets it");
  mi_host_set_device(sys, 2, 1);
  sel = 2;
  mi_iooff(b, &st, NULL, 0);
  mi_ioon(b, &st, items, stats, &map, &sel, 0);
  mi_ioget(b, &st, items, r, stats, sizeof r, 1, &sel, &n, 0);
  EQ(r[0][1], 0, "#11.10b a device configured again starts from zero");
  mi_iooff(a, &st, NULL, 0);
  mi_iooff(b, &st, NULL, 0);
  EQ(sys->seg->ldevs_enabled, 0, "#11.10b everything off: the MI device table is empty");
  int left = 0;
  for (int l = 0; l <= MI_MAX_LDEV; l++) left += sys->seg->ldev_refs[l];
  EQ(left + a->u->nldevs + b->u->nldevs, 0, "#11.10b no references or set entries are left");
  mi_system_free(sys);
}

/* #11.12: the pid hash reclaims deleted entries: after 100,000 births and deaths lookups are
 * still right and the table holds exactly the hashed processes (no tombstones). */
static void test_h11_pid_hash(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  static int64_t live[MI_MAX_PROCESSES];
  int nlive = 0;
  uint64_t x = 88172645463325252ull;
  int64_t next = 1;
  for (int k = 0; k < 100000; k++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    if (nlive < 2000 && (x % 3 || nlive == 0)) {
      mi_proc_desc d = proc(next += 1 + (int64_t)(x >> 40) % 5, "H");
      if (mi_host_proc_create(sys, &d) >= 0) live[nlive++] = d.pid;
    } else {
      int i = (int)((x >> 20) % (uint64_t)nlive);
      mi_host_proc_exit(sys, mi_host_proc_slot(sys, live[i]));
      live[i] = live[--nlive];
    }
  }
  for (int k = 0; k < 100000; k++) {   /* then 100,000 births and deaths of one process */
    mi_proc_desc d = proc(next += 3, "T");
    mi_host_proc_exit(sys, mi_host_proc_create(sys, &d));
  }
  int wrong = 0;
  for (int i = 0; i < nlive; i++) {
    int slot = mi_host_proc_slot(sys, live[i]);
    wrong += slot < 0 || sys->seg->procs[slot].pid != live[i];
  }
  EQ(wrong, 0, "#11.12 every live pid is found after 200,000 births and deaths");
  int found = 0;
  for (int64_t p = 1; p <= next; p += 7) found += mi_host_proc_slot(sys, p) >= 0;
  int expect = 0;
  for (int i = 0; i < nlive; i++) expect += (live[i] - 1) % 7 == 0;
  EQ(found, expect, "#11.12 absent pids are not found");
  int used = 0;
  for (int h = 0; h < MI_PID_HASH; h++) used += sys->seg->pid_hash[h] != 0;
  EQ(used, nlive, "#11.12 the pid hash holds the live processes only (no tombstones)");
  mi_system_free(sys);
}

/* Item numbers at the ends of int32 are unknown items in every GET (the catalog index is
 * computed without a signed overflow). */
static void test_h11_item_extremes(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  mi_host_set_cpus(sys, 1);
  mi_host_set_device(sys, 1, 1);
  mi_proc_desc d = proc(91, "X");
  mi_host_proc_create(sys, &d);
  status_type st;
  int32_t g[] = {21000, 21164, 0}, p[] = {25047, 0}, io[] = {23048, 0}, stats[4], map = 1, n, sel = -1;
  mi_globon(s, &st, g, stats, &map, 0);
  mi_procon(s, &st, p, stats, &map, NULL, 0);
  mi_ioon(s, &st, io, stats, &map, NULL, 0);
  int32_t list[] = {INT32_MIN, INT32_MAX, INT32_MIN + 19999, 0}, b[64];
  int bad = 0;
  mi_globget(s, &st, list, b, stats, sizeof b, 1, 0);
  bad += INFO(st) != -20012 || stats[0] != -20006;
  mi_procget(s, &st, list, b, stats, sizeof b, 1, NULL, &n, NULL, 0);
  bad += INFO(st) != -20012 || stats[0] != -20006;
  mi_ioget(s, &st, list, b, stats, sizeof b, 1, &sel, &n, 0);
  bad += INFO(st) != -20012 || stats[2] != -20006;
  mi_prcsrget(s, &st, list, b, stats, sizeof b, 1, &sel, &n, 0);
  bad += INFO(st) != -20012 || stats[1] != -20006;
  EQ(bad, 0, "item numbers INT32_MIN/INT32_MAX are unknown items (-20006, -20012) in all four GETs");
  mi_system_free(sys);
}
