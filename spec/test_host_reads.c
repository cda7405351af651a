/* test_host_reads.c — the host reads what is on (#17, #32) and the writer handle. Part of
 * spec/test_core.c (#included there: one program, its helpers and statics shared; included in order
 * of definition). */

/* ---- issue 17: the host source reads only what enabled counters need ---- */

/* Failed reads the host counted so far. */
static int64_t h17_failed(mi_system *sys) {
  mi_linux_health hh;
  mi_linux_health_get(sys, &hh);
  return hh.failed_reads;
}

/* #17.1: a GET reads only the files its enabled counters need. Reads of a process's stat and io,
 * of interrupts and vmstat and of the root's listing fail by the test hook, so every attempt to
 * read one is counted: a global-only ON never touches them, a process counter reads the stats
 * but not io, a process I/O counter reads io too, the processor interrupts item reads interrupts. */
static void test_h17_host_reads_what_is_on(void) {
  char root[64];
  mi_session *s, *s2, *s3;
  mi_system *sys = host_fixture_sys(root, 100, 3, &s);
  mi_linux_refresh(sys);
  s2 = mi_session_new(sys); mi_session_set_priv(s2, 1);
  s3 = mi_session_new(sys); mi_session_set_priv(s3, 1);
  status_type st;
  int32_t glob[] = {21176, 21177, 21178, 21179, 21180, 21181, 21182, 21183, 21184, 21185, 21186, 21317,
                    21187, 21188, 21189, 21191, 21192, 21193, 21233, 21306, 21307, 21313, 21314, 0};
  int32_t stats[32], map = 1, buf[64];
  mi_globon(s, &st, glob, stats, &map, 666);
  EQ(st.all, 0, "MIGLOBON of testmiaif1's 23 items");
  put_file(root, "400/stat", "400 (late) S 1 1 1 0 -1 0 100 0 3 0 7 5 0 0 20 0 1 0 900 1000 10 0\n");
  put_file(root, "400/status", "Name:\tlate\nUid:\t1000\t1000\t1000\t1000\n");
  const char *fail[] = {"100/stat", "100/io", "interrupts", "vmstat", ""};
  for (int k = 0; k < 5; k++) mi_linux_inject_fail(sys, fail[k], EIO);
  mi_linux_health h0, hh;
  mi_linux_health_get(sys, &h0);
  for (int i = 0; i < 3; i++) mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 666);
  mi_linux_health_get(sys, &hh);
  EQ(hh.refreshes, h0.refreshes + 3, "#17.1 each MIGLOBGET refreshed the host (age 0)");
  /* 21307 (memory pressure) is vmstat's: each GET reads it, and nothing else that fails */
  EQ(hh.failed_reads, h0.failed_reads + 3, "#17.1 a global-only ON reads vmstat for 21307 and no process file, no listing, no interrupts");
  CHECK(mi_host_proc_slot(sys, 400) < 0, "#17.1 no process scan while nobody has processes on");
  /* MIPROCON of one pid born since: the ON's refresh brings the process table in first */
  mi_linux_inject_fail(sys, "", 0);
  longint_type pid;
  mi_longint_set(&pid, 400);
  int32_t pitems[] = {20001, 25047, 0}, prec[512], n = 0;
  mi_procon(s, &st, pitems, stats, &map, &pid, 666);
  EQ(st.all, 0, "#17.1 MIPROCON of a pid born while nobody read processes finds it");
  mi_procoff(s, &st, &pid, 666);
  longint_type all;
  mi_longint_set(&all, -1);
  mi_procon(s, &st, pitems, stats, &map, &all, 666);
  int64_t f0 = h17_failed(sys);
  mi_procget(s, &st, pitems, prec, stats, sizeof prec, 1, NULL, &n, NULL, 666);
  EQ(h17_failed(sys), f0 + 1, "#17.1 a process counter reads each stat (one failing) but no io, and a process GET no global file (vmstat for 21307 waits for a global read)");
  EQ(n, 4, "#17.1 every live process is read");
  /* a birth and a death while process counters are on */
  put_file(root, "401/stat", "401 (new) S 1 1 1 0 -1 0 100 0 3 0 7 5 0 0 20 0 1 0 900 1000 10 0\n");
  put_file(root, "401/status", "Name:\tnew\nUid:\t1000\t1000\t1000\t1000\n");
  rm_tree(strcat(strcpy((char[128]){0}, root), "/102"));
  mi_procget(s, &st, pitems, prec, stats, sizeof prec, 1, NULL, &n, NULL, 666);
  CHECK(alive_pid(sys, 401) && !alive_pid(sys, 102), "#17.1 births and deaths are seen while process counters are on");
  /* a process I/O counter: io is read too */
  int32_t ioitems[] = {20001, 25167, 0};
  mi_globinstall(s2, &st, 667); mi_accesson(s2, &st, 667);
  mi_procon(s2, &st, ioitems, stats, &map, &all, 667);
  EQ(st.all, 0, "a second user's MIPROCON of a process I/O item");
  mi_linux_inject_fail(sys, "100/stat", 0);   /* a failed stat skips the process: let it read */
  f0 = h17_failed(sys);
  mi_procget(s2, &st, ioitems, prec, stats, sizeof prec, 1, NULL, &n, NULL, 667);
  EQ(h17_failed(sys), f0 + 1, "#17.1 a process I/O counter reads io as well (one failing; no global file)");
  /* the processors' interrupts item reads interrupts; vmstat is read for 21307 (on since the first ON) */
  int32_t gp[] = {21164, 0};
  mi_globinstall(s3, &st, 668); mi_accesson(s3, &st, 668);
  mi_globon(s3, &st, gp, stats, &map, 668);
  mi_linux_inject_fail(sys, "100/io", 0);
  f0 = h17_failed(sys);
  mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 666);
  EQ(h17_failed(sys), f0 + 2, "#17.1 the interrupts item (27014) reads interrupts (and vmstat for 21307)");
  mi_session_free(s3);
  mi_session_free(s2);
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}

/* #17.1 with #32's system-wide families: vmstat and schedstat are read only while one of their
 * items is counted (or an ON is under way); the CPU times alone read /proc/stat. */
static void test_h32_sys_files_read_for_their_items(void) {
  char root[64];
  mi_session *s;
  mi_system *sys = host_fixture_sys(root, 100, 3, &s);
  status_type st;
  int32_t glob[] = {21177, 21184, 21092, 0}, vm[] = {21295, 0}, stats[8], map = 1, buf[16];
  mi_globon(s, &st, glob, stats, &map, 666);
  EQ(st.all, 0, "MIGLOBON of CPU times and the ready queue");
  mi_linux_inject_fail(sys, "vmstat", EIO);
  mi_linux_inject_fail(sys, "schedstat", EIO);
  int64_t f0 = h17_failed(sys);
  for (int i = 0; i < 3; i++) mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 666);
  EQ(h17_failed(sys), f0, "#32 CPU times alone read neither vmstat nor schedstat");
  mi_globoff(s, &st, 666);
  mi_globon(s, &st, vm, stats, &map, 666);
  f0 = h17_failed(sys);
  mi_globget(s, &st, vm, buf, stats, sizeof buf, 1, 666);
  EQ(h17_failed(sys), f0 + 1, "#32 21295 (pgalloc) reads vmstat once per refresh, not schedstat");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}

/* Campaign finding 6 (spec/fuzz/regress/proc/stat-listing-a-cpu-twice-is-malformed): a /proc/stat
 * listing cpu0 twice spoils the reading like a cut cpu line. The last line used to win, rebasing
 * cpu0 to its second (lower) figures, so the next reading counted growth from there: 102 jiffies
 * of user time where the CPU had used 2. */
static void test_host_stat_cpu_listed_twice(void) {
  char root[64];
  mi_session *s;
  mi_system *sys = host_fixture_sys(root, 100, 1, &s);
  status_type st;
  int32_t on[] = {21164, 0}, stats[4], map = 1;   /* 21164 turns the processor items on (decision 10) */
  mi_globon(s, &st, on, stats, &map, 666);
  EQ(st.all, 0, "MIGLOBON of 21164: the processors are counted");
  mi_ctr user = mi_host_counter(27023);
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / sysconf(_SC_CLK_TCK), v0 = mi_host_value(sys, user, 0);
  mi_linux_health h0, h1;
  mi_linux_health_get(sys, &h0);
  put_file(root, "stat", "cpu  301 10 80 1500 60 15 15 20 0 0\ncpu0 101 10 50 800 20 5 5 10 0 0\n"
                         "cpu1 200 0 30 700 40 10 10 10 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\nbtime 1700000000\n");
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &h1);
  EQ(h1.malformed, h0.malformed + 1, "a stat listing cpu0 twice is malformed");
  EQ(mi_host_value(sys, user, 0), v0, "cpu0's user time does not move on a stat listing it twice");
  put_file(root, "stat", "cpu  302 10 80 1500 60 15 15 20 0 0\ncpu0 102 10 50 800 20 5 5 10 0 0\n"
                         "cpu1 200 0 30 700 40 10 10 10 0 0\nbtime 1700000000\n");
  mi_linux_refresh(sys);
  EQ(mi_host_value(sys, user, 0) - v0, 2 * tick, "cpu0's 2 jiffies since the last good reading, from its kept baseline");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}

/* #17.4: a writer handle adds where mi_host_add would, follows the rows when an ON moves them,
 * and ignores what mi_host_add ignores (nobody counts it, a dead process, a NULL system). */
static void test_h17_writer_handle(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  mi_host_wr w, wp, wn;
  mi_host_wr_init(&wn, NULL, mi_host_counter(21184));
  mi_host_wadd(&wn, 0, 5);   /* ignored, no crash */
  mi_host_wr_init(&w, sys, mi_host_counter(21184));
  mi_host_wadd(&w, 0, 5);
  EQ(mi_host_value(sys, mi_host_counter(21184), 0), 0, "#17.4 a handle of a counter nobody counts adds nothing");
  int32_t g1[] = {21184, 0}, g2[] = {21177, 21183, 21185, 0}, stats[8], map = 1;
  mi_globon(s, &st, g1, stats, &map, 666);
  mi_host_wadd(&w, 0, 7);
  EQ(mi_host_value(sys, mi_host_counter(21184), 0), 7, "#17.4 the handle made before the ON adds after it");
  mi_session *s2 = mi_session_new(sys);
  mi_session_set_priv(s2, 1);
  mi_globinstall(s2, &st, 667); mi_accesson(s2, &st, 667);
  mi_globon(s2, &st, g2, stats, &map, 667);   /* the global row grows: its cells move */
  mi_host_wadd(&w, 0, 4);
  EQ(mi_host_value(sys, mi_host_counter(21184), 0), 11, "#17.4 after the row moved the handle adds to the counter's cell");
  EQ(mi_host_value(sys, mi_host_counter(21183), 0), 0, "#17.4 and to no other");
  mi_globoff(s, &st, 666);
  mi_host_wadd(&w, 0, 4);   /* nobody counts it: ignored */
  mi_globon(s, &st, g1, stats, &map, 666);
  EQ(mi_host_value(sys, mi_host_counter(21184), 0), 0, "#17.4 an add while nobody counted it went nowhere");
  mi_proc_desc d = {0};
  d.pid = 4711;
  int slot = mi_host_proc_create(sys, &d);
  int32_t p1[] = {25047, 0};
  longint_type all;
  mi_longint_set(&all, -1);
  mi_procon(s, &st, p1, stats, &map, &all, 666);
  mi_host_wr_init(&wp, sys, mi_host_counter(25047));
  mi_host_wadd(&wp, slot, 9);
  mi_host_wadd(&wp, MI_MAX_PROCESSES, 9);   /* out of range: ignored */
  mi_host_wadd(&wp, -1, 9);
  EQ(mi_host_value(sys, mi_host_counter(25047), slot), 9, "#17.4 a process handle adds to a live process");
  mi_host_proc_exit(sys, slot);
  mi_host_wadd(&wp, slot, 9);
  EQ(mi_host_value(sys, mi_host_counter(25047), slot), 9, "#17.4 a dead process's counters stay frozen");
  mi_session_free(s2);
  mi_session_free(s);
  mi_system_free(sys);
}
