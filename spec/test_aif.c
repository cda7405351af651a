/* test_aif.c — the AIFs on a private system: access, catalog, the four domains, configuration,
 * AIFTIME, the upper-case API, the GET cache, the writer, status names. Part of spec/test_core.c
 * (#included there: one program, its helpers and statics shared; included in order of definition). */

static void test_access(void) {
  mi_system *sys = mi_system_new(&(mi_system_options){.registry = regpath});
  mi_session *s = mi_session_new(sys);
  status_type st;
  int32_t items[] = {21176, 0}, stats[1], map = 1;
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(INFO(st), -25, "decision 3: user mode call fails with -25");
  EQ(st.s.subsys, 516, "subsys is 516");
  mi_session_set_priv(s, 1);
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(INFO(st), -25, "decision 4: no user id and no AIFACCESSON gives -25");
  mi_globon(s, &st, items, stats, &map, 4242);
  EQ(INFO(st), -26, "decision 4: unknown user id gives -26");
  mi_accesson(s, &st, 4242);
  EQ(INFO(st), -26, "AIFACCESSON with unknown id gives -26");
  mi_globinstall(s, &st, 4242);
  EQ(st.all, 0, "AIFGLOBINSTALL installs");
  mi_globinstall(s, &st, 4242);
  EQ(st.all, 0, "AIFGLOBINSTALL twice is harmless");
  mi_globinstall(s, &st, -3);
  EQ(INFO(st), -26, "AIFGLOBINSTALL of a non-positive id gives -26");
  mi_globon(s, &st, items, stats, &map, 4242);
  EQ(st.all, 0, "user id passed per call works");
  mi_globoff(s, &st, 4242);
  mi_accesson(s, &st, 4242);
  EQ(st.all, 0, "AIFACCESSON");
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(st.all, 0, "after AIFACCESSON no user id is needed");
  mi_accessoff(s, &st, 4242);
  EQ(st.all, 0, "AIFACCESSOFF");
  mi_globoff(s, &st, 0);
  EQ(INFO(st), -25, "after AIFACCESSOFF calls fail with -25");
  /* the registry survives in its file */
  mi_system *sys2 = mi_system_new(&(mi_system_options){.registry = regpath});
  mi_session *s2 = mi_session_new(sys2);
  mi_session_set_priv(s2, 1);
  mi_accesson(s2, &st, 4242);
  EQ(st.all, 0, "installed id is read back from the registry file");
  mi_accesson(NULL, &st, 1);
  EQ(INFO(st), -100, "no caller gives -100");
  mi_accesson(s2, NULL, 1); /* no status: must not crash */
  mi_system_free(sys2);
  mi_system_free(sys);
}

static void test_catalog(void) {
  const mi_item_info *it = mi_item_lookup(21177);
  CHECK(it && strcmp(it->name, "gmt_idle") == 0, "21177 is gmt_idle (Appendix H)");
  it = mi_item_lookup(21317);
  CHECK(it && strcmp(it->name, "gmt_cm_time") == 0, "21317 is gmt_cm_time");
  CHECK(mi_item_lookup(21500) == NULL, "unrecoverable gap items are unknown");
  CHECK(mi_item_lookup(0) == NULL && mi_item_lookup(-5) == NULL && mi_item_lookup(99999) == NULL, "out of range");
  it = mi_item_find("GMT_PAUSED", -1);
  CHECK(it && it->item == 21176, "find by name, case-insensitive");
  it = mi_item_find("gmt_cm_time", MI_DOM_PROCESSOR);
  CHECK(it && it->item == 27026, "same name in another domain");
  EQ(mi_item_size(mi_item_lookup(21254), 0), 2880, "large object class is 720*4 bytes");
  EQ(mi_item_size(mi_item_lookup(21254), 1), 132, "small object class is 33*4 bytes");
  EQ(mi_item_size(mi_item_lookup(21254), 2), 40, "standard object class is 10*4 bytes");
  EQ(mi_item_size(mi_item_lookup(21088), 2), 1024, "semaphore class is 256*4 bytes");
  EQ(mi_item_size(mi_item_lookup(20003), 2), 48, "filename_type is 48 bytes");
  EQ(mi_item_size(mi_item_lookup(20001), 2), 8, "pid is 8 bytes");
  EQ(mi_objcl_len(0) + mi_objcl_len(1) + mi_objcl_len(2), 763, "object class maps: 720+33+10");
  /* folding is consistent: large->standard equals large->small->standard */
  int bad = 0;
  for (int i = 0; i < 720; i++)
    if (mi_objcl_fold(0, 2, i) != mi_objcl_fold(1, 2, mi_objcl_fold(0, 1, i))) bad++;
  EQ(bad, 0, "folding large->standard goes through small");
  EQ(mi_objcl_fold(1, 0, 3), -1, "no folding to a finer map");
  CHECK(strcmp(mi_semcl_name(38), "semcl_mi_lookup") == 0, "semaphore class 38");
  CHECK(mi_semcl_name(256) == NULL, "semaphore class out of range");
  EQ(mi_status_code("BAD_ITEM"), -20006, "status by name");
  CHECK(strcmp(mi_status_name(-20008), "BUFFER_TOO_SMALL") == 0, "status name");
  CHECK(strcmp(mi_status_message(424242), "unknown status") == 0, "unknown status message");
  EQ(sizeof(status_type), 4, "status_type is 4 bytes");
  EQ(sizeof(longint_type), 8, "longint_type is 8 bytes");
  EQ(sizeof(clock_type), 4, "clock_type is 4 bytes");
  EQ(sizeof(date_type), 12, "date_type is 12 bytes");
  EQ(sizeof(datestr_type), 6, "datestr_type is 6 bytes");
  EQ(sizeof(filename_type), 48, "filename_type is 48 bytes");
  EQ(sizeof(jsnum_type), 4, "jsnum_type is 4 bytes");
  longint_type l; mi_longint_set(&l, -1);
  EQ(l.left, -1, "longint left"); EQ(mi_longint_get(&l), -1, "longint round trip");
  mi_longint_set(&l, 0x123456789LL);
  EQ(l.left, 1, "longint high word"); EQ(l.right, 0x23456789, "longint low word");
}

/* Sets up the writer side: one counter, one entity. */
static void test_global(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {21176, 21177, 21254, 21088, 21164, 0}, stats[5], map = 1;
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(st.all, 0, "MIGLOBON");
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(INFO(st), -20001, "MIGLOBON twice returns -20001");
  mi_ctr paused = mi_host_counter(21176), idle = mi_host_counter(21177), pf = mi_host_counter(21254);
  CHECK(mi_host_active(sys, paused), "enabled counter is active");
  CHECK(!mi_host_active(sys, mi_host_counter(21000)), "not enabled counter is not active");
  mi_host_add(sys, paused, 0, 8000 * 3);   /* 3 ms of ticks = 24 MI_Time units of 125 us */
  mi_host_add(sys, idle, 0, 999);          /* below one MI_Time unit */
  mi_host_add_objcl(sys, pf, 0, 0, 5);     /* transient data */
  mi_host_add_objcl(sys, pf, 0, 29, 7);    /* objcl_ci_tmp -> small 13 */
  mi_host_add_objcl(sys, pf, 0, 694, 11);  /* turbo root -> small 31 */
  mi_host_sem_block(sys, MI_DOM_GLOBAL, 0, 38, 2);
  mi_host_sem_block(sys, MI_DOM_GLOBAL, 0, 38, 9);
  mi_host_add(sys, mi_host_counter(21000), 0, 5); /* not enabled: ignored */
  struct { int32_t paused, idle, pf[33], sem[256], pauses; } b;
  mi_globget(s, &st, items, &b, stats, sizeof b, 1, 0);
  EQ(st.all, 0, "MIGLOBGET");
  EQ(b.paused, 24, "time counters come back in MI_Time (ticks / 3042)");
  EQ(b.idle, 0, "MI_Time rounds down");
  EQ(b.pf[0], 5, "object class 0");
  EQ(b.pf[13], 7, "large 29 folds into small 13");
  EQ(b.pf[31], 11, "large 694 folds into small 31");
  EQ(b.sem[38], 1, "semaphore bucket 1-3");
  /* folding to standard on GET preserves sums */
  struct { int32_t paused, idle, pf[10]; } c;
  int32_t items2[] = {21176, 21177, 21254, 0};
  mi_globget(s, &st, items2, &c, stats, sizeof c, 2, 0);
  EQ(st.all, 0, "GET with a coarser mapping");
  EQ(c.pf[0] + c.pf[1] + c.pf[7] + c.pf[2], 23, "folding preserves sums");
  EQ(c.pf[7], 11, "turbo files are file objects in the standard map");
  int32_t big[800];
  mi_globget(s, &st, items2, big, stats, sizeof big, 0, 0);
  EQ(stats[2], -20014, "decision 6: a finer map than the one in use gives -20014");
  EQ(INFO(st), 3, "overall info is the 1-based index of the last failing item");
  mi_globget(s, &st, items2, &c, stats, sizeof c, 7, 0);
  EQ(INFO(st), -20007, "mapping outside 0-2 gives -20007");
  mi_globget(s, &st, items2, &c, stats, 8, 2, 0);
  EQ(INFO(st), -20008, "decision 11: short buffer gives -20008");
  mi_globget(s, &st, items2, &c, stats, -1, 2, 0);
  EQ(INFO(st), -20008, "negative buffer size gives -20008");
  mi_globget(s, &st, items2, NULL, stats, sizeof c, 2, 0);
  EQ(INFO(st), -20018, "NULL buffer gives -20018");
  mi_globget(s, &st, items2, (char *)&c + 1, stats, sizeof c - 4, 2, 0);
  EQ(INFO(st), -20019, "misaligned buffer gives -20019");
  mi_globget(s, &st, items2, &c, NULL, sizeof c, 2, 0);
  EQ(INFO(st), -22, "NULL item statuses give -22");
  mi_globget(s, &st, NULL, &c, stats, sizeof c, 2, 0);
  EQ(INFO(st), -5, "NULL item list gives -5");
  int32_t unterminated[MI_MAX_ITEMS + 4];
  for (int i = 0; i < MI_MAX_ITEMS + 4; i++) unterminated[i] = 21176;
  int32_t *bigstats = calloc(MI_MAX_ITEMS + 4, 4);
  mi_globget(s, &st, unterminated, &c, bigstats, sizeof c, 2, 0);
  EQ(INFO(st), -115, "no zero terminator within the bound gives -115");
  free(bigstats);
  int32_t mixed[] = {21176, 25047, 99, 21000, 0}, ms[4], mb[4];
  mi_globget(s, &st, mixed, mb, ms, sizeof mb, 1, 0);
  EQ(ms[0], 0, "valid item ok");
  EQ(ms[1], -20006, "an item of another domain gives -20006");
  EQ(ms[2], -20006, "an unknown item gives -20006");
  EQ(ms[3], -20013, "a valid item not enabled by the caller gives -20013");
  EQ(INFO(st), 4, "overall info is the last failing index");
  int32_t none[] = {99, 25047, 0};
  mi_globget(s, &st, none, mb, ms, sizeof mb, 1, 0);
  EQ(INFO(st), -20012, "no valid items gives -20012");
  /* 32-bit wrap of the AIF view */
  mi_ctr cpauses = mi_host_counter(21164);
  mi_host_add(sys, cpauses, 0, 2147483647LL);
  mi_host_add(sys, cpauses, 0, 2);
  int32_t one[] = {21164, 0}, v;
  mi_globget(s, &st, one, &v, ms, 4, 1, 0);
  EQ(v, -2147483647, "counters wrap from maxint to minint");
  EQ(mi_host_value(sys, cpauses, 0), 2147483649LL, "the store keeps 64 bits");
  mi_globoff(s, &st, 0);
  EQ(st.all, 0, "MIGLOBOFF");
  CHECK(!mi_host_active(sys, paused), "counters stop when nobody has them on");
  mi_globoff(s, &st, 0);
  EQ(INFO(st), -20013, "MIGLOBOFF when nothing is on gives -20013");
  mi_globget(s, &st, one, &v, ms, 4, 1, 0);
  EQ(INFO(st), -20013, "GET before ON gives -20013");
  int32_t bad[] = {99, 0}, bs[1];
  map = 9;
  mi_globon(s, &st, bad, bs, &map, 0);
  EQ(INFO(st), -20007, "ON with mapping 9 gives -20007");
  map = 1;
  mi_globon(s, &st, bad, bs, &map, 0);
  EQ(INFO(st), -20012, "ON with no valid item gives -20012");
  mi_globon(s, &st, bad, bs, NULL, 0);
  EQ(INFO(st), -5, "ON with NULL mapping gives -5");
  mi_system_free(sys);
}

static void test_mapping_users(void) {
  mi_system_options o = {.max_users = 2};
  mi_session *a; mi_system *sys = new_sys(&a, &o);
  mi_session *b = mi_session_new(sys), *c = mi_session_new(sys);
  mi_session_set_priv(b, 1); mi_session_set_priv(c, 1);
  status_type st;
  mi_accesson(b, &st, 666); mi_accesson(c, &st, 666);
  int32_t items[] = {21254, 0}, stats[1], map = 0;
  mi_globon(a, &st, items, stats, &map, 0);
  EQ(st.all, 0, "first user picks the large map");
  map = 2;
  mi_globon(b, &st, items, stats, &map, 0);
  EQ(INFO(st), 20002, "decision 6: another mapping gives warning 20002");
  EQ(map, 0, "and the mapping in use comes back");
  mi_host_add_objcl(sys, mi_host_counter(21254), 0, 600, 4);
  int32_t std[10];
  mi_globget(b, &st, items, std, stats, sizeof std, 2, 0);
  EQ(std[mi_objcl_fold(0, 2, 600)], 4, "a GET folds large to standard");
  map = 1;
  mi_globon(c, &st, items, stats, &map, 0);
  EQ(INFO(st), -20002, "MI user limit gives -20002");
  mi_globoff(a, &st, 0);
  mi_globon(c, &st, items, stats, &map, 0);
  EQ(INFO(st), 20002, "a freed user slot can be taken; mapping still held by b");
  mi_globoff(b, &st, 0); mi_globoff(c, &st, 0);
  map = 1;
  mi_globon(c, &st, items, stats, &map, 0);
  EQ(st.all, 0, "once everyone is off the next user picks the mapping");
  mi_session_free(c); /* releases everything */
  map = 2;
  mi_globon(b, &st, items, stats, &map, 0);
  EQ(st.all, 0, "freeing a session turns its counters off");
  mi_session_free(NULL);
  mi_system_free(sys);
  mi_system_free(NULL);
}

static void test_counter_limit(void) {
  mi_system_options o = {.max_cells = 700};
  mi_session *s; mi_system *sys = new_sys(&s, &o);
  status_type st;
  int32_t items[] = {21176, 21254, 0}, stats[2], map = 0;
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(stats[0], 0, "small counter fits");
  EQ(stats[1], -20004, "a 720-cell counter over the limit gives -20004");
  EQ(INFO(st), 2, "overall points at it");
  mi_system_free(sys);
}

static mi_proc_desc proc(int64_t pid, const char *prog) {
  mi_proc_desc d = {0};
  d.pid = pid; d.program = prog; d.program_group = "PUB"; d.program_account = "SYS";
  d.user = "MGR"; d.account = "SYS"; d.js_type = 1; d.js_num = 42; d.proc_type = MI_PT_USER;
  return d;
}

static void test_process(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  mi_proc_desc d1 = proc(101, "EDITOR"), d2 = proc(102, "QUERY");
  int a = mi_host_proc_create(sys, &d1), b = mi_host_proc_create(sys, &d2);
  CHECK(a >= 0 && b >= 0, "processes created");
  EQ(mi_host_proc_create(sys, &d1), -1, "duplicate pid refused");
  int32_t items[] = {20001, 20002, 20004, 25047, 20011, 0}, stats[5], map = 1;
  longint_type all; mi_longint_set(&all, -1);
  mi_procon(s, &st, items, stats, &map, &all, 0);
  EQ(st.all, 0, "MIPROCON all");
  mi_ctr ptime = mi_host_counter(25047);
  mi_host_add(sys, ptime, a, 8000 * 10);
  mi_proc_desc d3 = proc(103, "LATE");
  int c = mi_host_proc_create(sys, &d3);
  mi_host_add(sys, ptime, c, 8000);
  struct rec { longint_type pid; int32_t state; filename_type prog; int32_t time; jsnum_type js; } r[8];
  int32_t n = -1, key = 0;
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(st.all, 0, "MIPROCGET all");
  EQ(n, 3, "decision 8: pid -1 includes processes born later");
  EQ(mi_longint_get(&r[0].pid), 101, "first record pid");
  EQ(r[0].time, 80, "process time in MI_Time");
  CHECK(memcmp(r[0].prog.filename, "EDITOR          ", 16) == 0, "program name blank padded");
  EQ(MI_JS_TYPE(r[0].js), 1, "session"); EQ(MI_JS_NUM(r[0].js), 42, "session number");
  mi_host_add(sys, ptime, b, 8000);
  mi_host_proc_exit(sys, b);
  mi_host_add(sys, ptime, b, 8000); /* after death: ignored */
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(n, 3, "the dead process is reported");
  EQ(r[1].state, 1, "decision 8: dead process reported with PID state 1");
  EQ(r[1].time, 8, "its counters froze at death");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(n, 2, "decision 8: ... once, then forgotten");
  EQ(mi_host_proc_slot(sys, 102), -1, "its slot is freed");
  /* one pid, fast key */
  longint_type one; mi_longint_set(&one, 103);
  mi_procget(s, &st, items, r, stats, sizeof r, 1, &one, &n, &key, 0);
  EQ(st.all, 0, "MIPROCGET one pid");
  EQ(key, c + 1, "miproc_ptr comes back as a key");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, &one, &n, &key, 0);
  EQ(mi_longint_get(&r[0].pid), 103, "the key finds the process");
  key = 99999;
  mi_procget(s, &st, items, r, stats, sizeof r, 1, &one, &n, &key, 0);
  EQ(INFO(st), -20020, "a bad miproc_ptr gives -20020");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, &one, &n, (int32_t *)((char *)&key + 1), 0);
  EQ(INFO(st), -20021, "a misaligned miproc_ptr gives -20021");
  longint_type nope; mi_longint_set(&nope, 5555);
  mi_procget(s, &st, items, r, stats, sizeof r, 1, &nope, &n, NULL, 0);
  EQ(INFO(st), -20005, "an unknown pid gives -20005");
  /* partial buffers keep what did not fit */
  mi_host_proc_exit(sys, c);
  mi_procget(s, &st, items, r, stats, (int32_t)sizeof r[0], 1, NULL, &n, NULL, 0);
  EQ(INFO(st), -20015, "room for one of two records gives -20015");
  EQ(n, 1, "one record returned");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(n, 2, "the dead one that did not fit is still reported");
  EQ(r[1].state, 1, "as dead");
  mi_procget(s, &st, items, r, stats, 10, 1, NULL, &n, NULL, 0);
  EQ(INFO(st), -20008, "a buffer too small for one record gives -20008");
  /* a second ON must name the same counters */
  int32_t other[] = {25049, 0}, os[1];
  longint_type live; mi_longint_set(&live, 101);
  mi_procon(s, &st, other, os, &map, &live, 0);
  EQ(INFO(st), -20001, "decision 8: a different counter set gives -20001");
  /* turning one process off ends "all" */
  mi_proc_desc d4 = proc(104, "X"), d5 = proc(105, "Y");
  mi_host_proc_create(sys, &d4);
  longint_type p4; mi_longint_set(&p4, 104);
  mi_procoff(s, &st, &p4, 0);
  EQ(st.all, 0, "MIPROCOFF of one pid");
  mi_host_proc_create(sys, &d5);
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(n, 1, "decision 8: after one pid is turned off, newcomers are not monitored");
  mi_procoff(s, &st, &p4, 0);
  EQ(INFO(st), -20005, "turning off a pid not monitored gives -20005");
  mi_procoff(s, &st, NULL, 0);
  EQ(st.all, 0, "MIPROCOFF all");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(INFO(st), -20013, "GET after OFF gives -20013");
  mi_procon(s, &st, items, stats, &map, &nope, 0);
  EQ(INFO(st), -20005, "MIPROCON of an unknown pid gives -20005");
  /* all data gone gives -20009 */
  mi_procon(s, &st, items, stats, &map, &p4, 0);
  EQ(st.all, 0, "MIPROCON one pid");
  mi_host_proc_exit(sys, mi_host_proc_slot(sys, 104));
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(n, 1, "death reported");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(INFO(st), -20009, "nothing left to report gives -20009");
  mi_system_free(sys);
}

static void test_process_table_full(void) {
  mi_system_options o = {.max_processes = 3};
  mi_session *s; mi_system *sys = new_sys(&s, &o);
  status_type st;
  int32_t items[] = {20001, 25047, 0}, stats[2], map = 1, n;
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  for (int i = 1; i <= 4; i++) { mi_proc_desc d = proc(i, "P"); mi_host_proc_create(sys, &d); }
  struct { longint_type pid; int32_t t; } r[8];
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(INFO(st), 20001, "a birth the table could not hold gives warning 20001");
  EQ(n, 3, "the tracked processes are reported");
  mi_procget(s, &st, items, r, stats, sizeof r, 1, NULL, &n, NULL, 0);
  EQ(st.all, 0, "the warning is given once");
  mi_system_free(sys);
}

static void test_io(void) {
  mi_system_options o = {.max_ldevs = 6, .max_ldevs_per_user = 5};
  mi_session *s; mi_system *sys = new_sys(&s, &o);
  for (int l = 1; l <= 4; l++) mi_host_set_device(sys, l, 1);  /* disks */
  mi_host_set_device(sys, 7, 2);                                   /* tape */
  for (int l = 20; l <= 22; l++) mi_host_set_device(sys, l, 3);  /* terminals */
  status_type st;
  int32_t items[] = {20020, 23048, 23049, 23050, 0}, stats[4], map = 1, ldev = -2, n;
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(st.all, 0, "MIIOON all disks");
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(INFO(st), -20001, "decision 9: a second ON of a type gives -20001");
  ldev = 3;
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(INFO(st), -20001, "an ldev of a type already on gives -20001");
  mi_ctr rd = mi_host_counter(23048), rdo = mi_host_counter(23050);
  mi_host_add(sys, rd, 2, 10);
  mi_host_add_objcl(sys, rdo, 2, 7, 10);
  struct { int32_t ldev, rd, wr, obj[33]; } r[8];
  ldev = -1;
  mi_ioget(s, &st, items, r, stats, sizeof r, 1, &ldev, &n, 0);
  EQ(st.all, 0, "MIIOGET");
  EQ(n, 4, "four disks");
  EQ(r[1].ldev, 2, "LDEV item 20020");
  EQ(r[1].rd, 10, "reads of ldev 2");
  EQ(r[1].obj[7], 10, "reads per object class");
  ldev = 7;
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(st.all, 0, "MIIOON one tape");
  ldev = -4;
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(INFO(st), -20017, "a type that does not fit gives -20017");
  ldev = 20;
  int32_t items2[] = {20020, 23048, 23049, 23050, 0};
  mi_ioon(s, &st, items2, stats, &map, &ldev, 0);
  EQ(INFO(st), -20010, "one more ldev than the user's limit gives -20010");
  ldev = 5;
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(INFO(st), -20016, "an unconfigured ldev gives -20016");
  ldev = -12;
  mi_ioon(s, &st, items, stats, &map, &ldev, 0);
  EQ(INFO(st), -20016, "ldev -12 gives -20016");
  ldev = 3;
  mi_iooff(s, &st, &ldev, 0);
  EQ(st.all, 0, "MIIOOFF of one disk");
  ldev = -1;
  mi_ioget(s, &st, items, r, stats, sizeof r, 1, &ldev, &n, 0);
  EQ(n, 1, "decision 9: turning one ldev off turns its type off (the tape stays)");
  EQ(r[0].ldev, 7, "the tape");
  ldev = 2;
  mi_ioget(s, &st, items, r, stats, sizeof r, 1, &ldev, &n, 0);
  EQ(INFO(st), -20013, "GET of an ldev not enabled gives -20013");
  /* device table limit across users */
  mi_session *t = mi_session_new(sys);
  mi_session_set_priv(t, 1);
  mi_accesson(t, &st, 666);
  ldev = -2;
  mi_ioon(t, &st, items, stats, &map, &ldev, 0);
  EQ(st.all, 0, "second user enables disks (table holds 5)");
  ldev = -4;
  mi_ioon(t, &st, items, stats, &map, &ldev, 0);
  EQ(INFO(st), -20017, "the MI device table is full for a type");
  ldev = 20;
  mi_ioon(t, &st, items, stats, &map, &ldev, 0);
  EQ(st.all, 0, "one more ldev fits the table (6)");
  mi_ioon(s, &st, items, stats, &map, &(int32_t){21}, 0);
  EQ(INFO(st), -20003, "a single ldev over the table gives -20003");
  mi_iooff(t, &st, NULL, 0);
  EQ(st.all, 0, "MIIOOFF all");
  mi_system_free(sys);
}

static void test_processor(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  mi_host_set_cpus(sys, 2);
  status_type st;
  int32_t items[] = {20040, 27006, 27013, 0}, stats[3], n, id = -1;
  struct { int32_t id, idle, launches; } r[8];
  mi_prcsrget(s, &st, items, r, stats, sizeof r, 1, &id, &n, 0);
  EQ(INFO(st), -20013, "decision 10: processors need 21164 on");
  int32_t g[] = {21176, 0}, gs[1], map = 1;
  mi_globon(s, &st, g, gs, &map, 0);
  mi_prcsrget(s, &st, items, r, stats, sizeof r, 1, &id, &n, 0);
  EQ(INFO(st), -20013, "still off without 21164");
  mi_globoff(s, &st, 0);
  int32_t g2[] = {21164, 0};
  mi_globon(s, &st, g2, gs, &map, 0);
  mi_host_add(sys, mi_host_counter(27006), 1, 8000 * 100);
  mi_host_add(sys, mi_host_counter(27013), 1, 5);
  mi_prcsrget(s, &st, items, r, stats, sizeof r, 1, &id, &n, 0);
  EQ(st.all, 0, "MIPRCSRGET");
  EQ(n, 8, "all eight processors come back");
  EQ(r[1].id, 1, "processor id item 20040");
  EQ(r[1].idle, 800, "processor idle in MI_Time");
  EQ(r[1].launches, 5, "launches");
  id = 1;
  mi_prcsrget(s, &st, items, r, stats, sizeof r, 1, &id, &n, 0);
  EQ(n, 1, "one processor"); EQ(r[0].launches, 5, "its counters");
  id = 8;
  mi_prcsrget(s, &st, items, r, stats, sizeof r, 1, &id, &n, 0);
  EQ(INFO(st), -20016, "processor 8 is invalid");
  mi_globoff(s, &st, 0);
  CHECK(!mi_host_active(sys, mi_host_counter(27006)), "processor counters stop with 21164");
  mi_system_free(sys);
}

static void test_config(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t nums[] = {3042, 3043, 3044, 3015, 3009, 0}, stats[5], rf = 0, tpm = 0;
  char ver[8]; uint8_t allow[12], single = 9;
  void *ptrs[] = {&rf, &tpm, ver, allow, &single};
  mi_scget(s, &st, nums, ptrs, stats, 0);
  EQ(st.all, 0, "AIFSCGET");
  EQ(rf, 1000, "rounding factor"); EQ(tpm, 8000, "ticks per ms");
  CHECK(memcmp(ver, "A.00.00 ", 8) == 0, "MI version");
  EQ(single, 0, "boolean item");
  int32_t bad[] = {3042, 4000, 0}; void *bp[] = {NULL, &rf};
  mi_scget(s, &st, bad, bp, stats, 0);
  EQ(stats[0], -5, "NULL item pointer gives -5");
  EQ(stats[1], -20006, "unknown config item gives -20006");
  int32_t aligned[] = {3042, 0}; void *ap[] = {(char *)&rf + 1};
  mi_scget(s, &st, aligned, ap, stats, 0);
  EQ(stats[0], -6, "misaligned I32 pointer gives -6");
  /* PUT */
  int32_t pn[] = {3001, 0}, fence = 9, pst[1];
  void *pp[] = {&fence};
  mi_scput(s, &st, pn, pp, pst, 0, NULL, NULL, NULL);
  EQ(st.all, 0, "AIFSCPUT job fence");
  EQ(mi_host_config(sys, 3001), 9, "written");
  fence = 15;
  mi_scput(s, &st, pn, pp, pst, 0, NULL, NULL, NULL);
  EQ(pst[0], -3005, "job fence 15 gives -3005");
  EQ(mi_host_config(sys, 3001), 9, "not written");
  /* all or nothing */
  int32_t two[] = {3001, 3002, 0}, lim = 20000, ts[2]; fence = 3;
  void *tp[] = {&fence, &lim};
  mi_scput(s, &st, two, tp, ts, 0, NULL, NULL, NULL);
  EQ(ts[1], -3006, "job limit out of range"); EQ(INFO(st), 2, "overall points at it");
  EQ(mi_host_config(sys, 3001), 9, "decision 5: nothing written when one item fails");
  lim = 500;
  mi_scput(s, &st, two, tp, ts, 0, NULL, NULL, NULL);
  EQ(ts[1], -3006, "job limit above the configured maximum (3036) gives -3006");
  /* verification */
  int32_t vn[] = {3001, 0}, vs[1], expect = 7; void *vp[] = {&expect};
  fence = 4;
  mi_scput(s, &st, pn, pp, pst, 0, vn, vp, vs);
  EQ(INFO(st), -24, "decision 5: verification failure gives -24");
  EQ(vs[0], -7, "and -7 for the mismatch");
  EQ(mi_host_config(sys, 3001), 9, "nothing written");
  expect = 9;
  mi_scput(s, &st, pn, pp, pst, 0, vn, vp, vs);
  EQ(st.all, 0, "verified PUT"); EQ(vs[0], 0, "verification status 0");
  EQ(mi_host_config(sys, 3001), 4, "written after verification");
  mi_scput(s, &st, pn, pp, pst, 0, vn, vp, NULL);
  EQ(INFO(st), -20, "two of three verification arrays give -20");
  mi_scput(s, &st, pn, pp, pst, 0, vn, NULL, NULL);
  EQ(INFO(st), -20, "one of three verification arrays gives -20");
  int32_t ro[] = {3003, 0}, zero = 0; void *rp[] = {&zero};
  mi_scput(s, &st, ro, rp, pst, 0, NULL, NULL, NULL);
  EQ(pst[0], -20006, "a VERIFY-only item cannot be PUT");
  /* cross-item rules */
  int32_t q[] = {3023, 0}, base = 2000; void *qp[] = {&base};
  mi_scput(s, &st, q, qp, pst, 0, NULL, NULL, NULL);
  EQ(pst[0], -3012, "CS base below CS limit gives -3012");
  int32_t qq[] = {3024, 3023, 0}, qs[2], lim2 = 1000; void *qqp[] = {&lim2, &base};
  mi_scput(s, &st, qq, qqp, qs, 0, NULL, NULL, NULL);
  EQ(st.all, 0, "base and limit moved together");
  int32_t sec[] = {3008, 0}, js = 2; void *sp[] = {&js};
  mi_scput(s, &st, sec, sp, pst, 0, NULL, NULL, NULL);
  EQ(pst[0], -3010, "job security must be 0 or 3");
  mi_proc_desc d = proc(300, "CI"); d.js_type = 2; d.js_num = 77;
  mi_host_proc_create(sys, &d);
  int32_t nj[] = {3006, 0}, jn = 77; void *np[] = {&jn};
  mi_scput(s, &st, nj, np, pst, 0, NULL, NULL, NULL);
  EQ(pst[0], -3008, "next job number of a live job gives -3008");
  uint8_t mask[12] = {0x80}; int32_t mn[] = {3015, 0}; void *mp[] = {mask};
  mi_scput(s, &st, mn, mp, pst, 0, NULL, NULL, NULL);
  EQ(st.all, 0, "ALLOW mask PUT");
  EQ(mi_host_config_bit(sys, 3015, 0), 1, "bit 0 set");
  mi_system_free(sys);
}

static void test_time(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  setenv("TZ", "UTC", 1);
  longint_type t; clock_type c; date_type d; datestr_type ds;
  mi_longint_set(&t, (int64_t)86400 * 1000 * 8000 + 8000 * 1500); /* 1970-01-02 00:00:01.5 */
  mi_time(s, &st, &t, NULL, &c, &d, &ds, 0);
  EQ(st.all, 0, "AIFTIME from ticks");
  EQ(d.year, 1970, "year"); EQ(d.month, 1, "month"); EQ(d.day_of_month, 2, "day");
  EQ(c.sec, 1, "second"); EQ(c.ten_sec, 5, "tenths");
  CHECK(memcmp(ds.month_str, "Jan", 3) == 0 && memcmp(ds.day_of_week, "Fri", 3) == 0, "names");
  mi_longint_set(&t, (int64_t)1795000000 * 1000000);
  mi_time(s, &st, NULL, &t, NULL, &d, NULL, 0);
  EQ(d.year, 2026, "AIFTIME from microseconds");
  mi_longint_set(&t, -1);
  mi_time(s, &st, &t, NULL, &c, NULL, NULL, 0);
  EQ(INFO(st), -3014, "decision 12: negative ticks give -3014");
  mi_time(s, &st, NULL, NULL, NULL, &d, NULL, 0);
  EQ(st.all, 0, "AIFTIME now"); EQ(d.year, 2023, "now is the system's clock (boot 2023)");
  mi_system_free(sys);
}

static void test_upper_api(void) {
  /* the implicit caller: the manual's calls on the default system */
  status_type st;
  int32_t items[] = {21176, 21177, 0}, stats[2], map = 1, buf[2];
  MIGLOBON(&st, items, stats, &map, 0);
  EQ(INFO(st), -25, "upper-case API starts in user mode");
  GETPRIVMODE();
  AIFGLOBINSTALL(&st, 666);
  AIFACCESSON(&st, 666);
  EQ(st.all, 0, "AIFACCESSON on the default caller");
  MIGLOBON(&st, items, stats, &map, 0);
  EQ(st.all, 0, "MIGLOBON on the default system");
  MIGLOBGET(&st, items, buf, stats, sizeof buf, map, 0);
  EQ(st.all, 0, "MIGLOBGET on the default system");
  CHECK(mi_host_cpus(mi_default_system()) >= 1, "the default system has CPUs");
  CHECK(mi_host_device(mi_default_system(), 1) == 1, "and disks");
  /* a second caller in the same process */
  mi_session *other = mi_session_new(NULL);
  mi_session *prev = mi_session_use(other);
  MIGLOBOFF(&st, 0);
  EQ(INFO(st), -25, "a second caller has its own privilege and access");
  mi_session_use(prev);
  mi_session_free(other);
  MIGLOBOFF(&st, 0);
  EQ(st.all, 0, "MIGLOBOFF");
  AIFACCESSOFF(&st, 666);
  GETUSERMODE();
}

/* MIGLOBGET's plan cache must never serve a stale plan, and MI_Time division is exact. */
static void test_get_cache(void) {
  mi_session *s, *s2;
  mi_system *sys = new_sys(&s, NULL);
  s2 = mi_session_new(sys);
  mi_session_set_priv(s2, 1);
  status_type st;
  int32_t on[] = {21000, 21176, 0}, stats[4], map = 1, buf[1200];
  mi_globon(s, &st, on, stats, &map, 0);
  mi_host_add(sys, mi_host_counter(21000), 0, 5);
  mi_host_add(sys, mi_host_counter(21176), 0, 8000);
  for (int k = 0; k < 3; k++) {  /* first call fills the cache, later ones use it */
    mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
    EQ(st.all, 0, "cached GET status");
    EQ(buf[0], 5, "cached GET value 1");
    EQ(buf[1], 8, "cached GET time value in MI_Time");
  }
  int32_t swapped[] = {21176, 21000, 0};
  mi_globget(s, &st, swapped, buf, stats, sizeof buf, 1, 0);
  EQ(buf[0], 8, "same length, other order: not served from the cache");
  EQ(buf[1], 5, "same length, other order: second value");
  int32_t big[] = {21254, 21255, 0}, map2 = 1;
  mi_globon(s2, &st, big, stats, &map2, 666);   /* grows the global row */
  mi_host_add(sys, mi_host_counter(21000), 0, 1);
  mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
  EQ(buf[0], 6, "after another user grew the row the cached plan is rebuilt");
  EQ(buf[1], 8, "and the time item still reads right");
  mi_globget(s, &st, on, buf, stats, 4, 1, 0);
  EQ(INFO(st), MI_E_BUFFER_TOO_SMALL, "a short buffer is caught even when the list is cached");
  int32_t other[] = {21000, 21001, 0};
  mi_globget(s, &st, other, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], MI_E_NOT_ENABLED, "an item not enabled gets its status");
  EQ(INFO(st), 2, "overall status names the failing index");
  mi_globoff(s, &st, 0);
  int32_t on2[] = {21001, 21000, 0};
  mi_globon(s, &st, on2, stats, &map, 0);
  mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], MI_E_NOT_ENABLED, "after OFF/ON the old plan is not reused");
  EQ(buf[1], 0, "and the slot is zero-filled");
  mi_host_config_set(sys, 3042, 7);
  mi_globoff(s, &st, 0);
  mi_globon(s, &st, on, stats, &map, 0);
  mi_host_add(sys, mi_host_counter(21176), 0, 1000);
  mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
  EQ(buf[1], 142, "rounding factor 7: 1000 ticks are 142 MI_Time");
  mi_system_free(sys);
  /* the multiply-shift division agrees with '/' for every factor class */
  mi_system_options o = {0};
  mi_system *t = mi_system_new(&o);
  int32_t rs[] = {1, 2, 3, 7, 1000, 1024, 7919, 65535, 1000000, 2147483647};
  uint64_t x = 88172645463325252ull;
  int bad = 0;
  for (size_t r = 0; r < sizeof rs / sizeof rs[0]; r++) {
    mi_host_config_set(t, 3042, rs[r]);
    for (int k = 0; k < 200000; k++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      int64_t v = (int64_t)(x >> (k % 64 == 0 ? 1 : (unsigned)(k % 63) + 1));
      if (k < 4) v = (int64_t)INT64_MAX - k;
      if (mi_round_ticks(t, v) != v / rs[r]) bad++;
    }
  }
  EQ(bad, 0, "ticks / rounding factor exact for 2M values and 10 factors");
  mi_system_free(t);
}

/* The inline writer (mi_host.h) and its exported twin keep the writer contract: bad
 * handles, entities and systems are ignored; only live processes and enabled counters
 * move; the view the inline code reads follows growth, parking and process slots. */
static void test_writer(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t on[] = {21000, 0}, stats[4], map = 1, buf[8];
  mi_globon(s, &st, on, stats, &map, 0);
  mi_ctr g = mi_host_counter(21000);
  EQ(mi_host_counter(20001).id, -1, "a pseudo-item is not a counter");
  EQ(mi_host_counter(99999).id, -1, "an unknown item is not a counter");
  EQ(mi_host_counter(21000).id >> MI_HOST_INDEX_BITS, MI_DOM_GLOBAL, "id carries the domain");
  EQ(mi_host_counter(25047).id >> MI_HOST_INDEX_BITS, MI_DOM_PROCESS, "process counter id");
  mi_ctr bad[] = {{-1}, {-7}, {MI_DOM_COUNT << MI_HOST_INDEX_BITS}, {INT32_MAX}, {INT32_MIN},
                  {MI_HOST_INDEX_LIMIT - 1}, {(MI_DOM_PROCESS << MI_HOST_INDEX_BITS) + MI_HOST_INDEX_LIMIT - 1}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    mi_host_add(sys, bad[k], 0, 1);
    mi_host_add_call(sys, bad[k], 0, 1);
    mi_host_set(sys, bad[k], 0, 1);
    mi_host_max(sys, bad[k], 0, 1);
    mi_host_add_objcl(sys, bad[k], 0, 3, 1);
    mi_host_add_semcl(sys, bad[k], 0, 3, 1);
    EQ(mi_host_value(sys, bad[k], 0), 0, "a forged counter handle reads 0");
    EQ(mi_host_active(sys, bad[k]), 0, "a forged counter handle is not active");
  }
  mi_host_add(NULL, g, 0, 1);
  mi_host_add_call(NULL, g, 0, 1);
  mi_host_set(NULL, g, 0, 1);
  EQ(mi_host_value(NULL, g, 0), 0, "NULL system reads 0");
  EQ(mi_host_active(NULL, g), 0, "NULL system has nothing active");
  mi_host_add(sys, g, 1, 5);   /* global has one entity */
  mi_host_add(sys, g, -1, 5);
  mi_host_add_call(sys, g, 1 << 30, 5);
  mi_host_add(sys, g, 0, 2);
  mi_host_add_call(sys, g, 0, 3);
  mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
  EQ(buf[0], 5, "only the entity-0 writes of the global counter count");
  /* another user grows the row: writes after the move land in the new cells */
  mi_session *s2 = mi_session_new(sys);
  mi_session_set_priv(s2, 1);
  int32_t more[] = {21001, 21002, 21003, 21254, 0}, m2 = 1;
  mi_globon(s2, &st, more, stats, &m2, 666);
  mi_host_add(sys, g, 0, 10);
  mi_host_add(sys, mi_host_counter(21254), 0, 1);
  mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
  EQ(buf[0], 15, "writes follow the grown row");
  /* processes: live slots only, never beyond the table */
  int32_t pon[] = {25047, 0}, ps[4];
  mi_procon(s, &st, pon, ps, &map, NULL, 0);
  mi_proc_desc d = {0};
  d.pid = 4242; d.program = "W"; d.user = "U";
  int a = mi_host_proc_create(sys, &d);
  mi_ctr pc = mi_host_counter(25047);
  mi_host_add(sys, pc, a, 7);
  mi_host_add(sys, pc, a + 1, 7);          /* a free slot */
  mi_host_add(sys, pc, MI_MAX_PROCESSES, 7);
  mi_host_add(sys, pc, -3, 7);
  EQ(mi_host_value(sys, pc, a), 7, "a live process counts");
  EQ(mi_host_value(sys, pc, a + 1), 0, "a free slot does not");
  mi_host_proc_exit(sys, a);
  mi_host_add(sys, pc, a, 100);
  mi_host_add_call(sys, pc, a, 100);
  EQ(mi_host_value(sys, pc, a), 7, "a dead process is frozen for its report");
  /* a disabled counter stops counting, a parked one restarts from zero */
  mi_globoff(s, &st, 0);
  mi_host_add(sys, g, 0, 1000);
  EQ(mi_host_active(sys, g), 0, "nobody counts 21000 after OFF");
  mi_globon(s, &st, on, stats, &map, 0);
  mi_host_add(sys, g, 0, 4);
  mi_globget(s, &st, on, buf, stats, sizeof buf, 1, 0);
  EQ(buf[0], 4, "re-enabled counter restarts from zero, the write while off is lost");
  mi_system_free(sys);
}

/* #11.14: a program written from Appendix B reads st.all, st.info and st.subsys directly;
 * st.info/st.subsys are the same halfwords as st.s.info/st.s.subsys. */
_Static_assert(offsetof(status_type, info) == offsetof(status_type, s.info), "#11.14 st.info is st.s.info");
_Static_assert(offsetof(status_type, subsys) == offsetof(status_type, s.subsys), "#11.14 st.subsys is st.s.subsys");
_Static_assert(sizeof(status_type) == 4, "#11.14 status_type is one 32-bit word");
static void test_status_names(void) {
  mi_system *sys = mi_system_new(&(mi_system_options){.registry = regpath});
  mi_session *s = mi_session_new(sys);
  status_type st;
  int32_t items[] = {21176, 0}, stats[1], map = 1;
  mi_globon(s, &st, items, stats, &map, 0);   /* user mode: -25 from subsystem 516 */
  EQ(st.info, -25, "#11.14 st.info holds the error number as the manual names it");
  EQ(st.subsys, MI_SUBSYS, "#11.14 st.subsys holds 516");
  EQ(st.s.info, st.info, "#11.14 st.s.info still works and agrees with st.info");
  CHECK(st.all != 0, "#11.14 st.all is non-zero on an error");
  st.info = 0; st.subsys = 0;
  EQ(st.all, 0, "#11.14 st.info and st.subsys together make up st.all");
  mi_session_free(s);
  mi_system_free(sys);
}
