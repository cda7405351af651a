/* test_udef.c — user-defined counters (#14.2): install, GET, errors, a shared store, rebinding,
 * dead owners. Part of spec/test_core.c (#included there: one program, its helpers and statics
 * shared; included in order of definition). */

/* #14.2 user-defined counters: install, bump, read by MIGLOBGET/MIPROCGET, kinds and arrays. */
static void test_udef_install_and_get(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t stats[8], map = 1, buf[16];
  int32_t early[] = {MI_UDEF_FIRST, 0};
  mi_globon(s, &st, early, stats, &map, 0);
  EQ(stats[0], -20006, "#14.2 an item number of the reserved range is unknown before anything is installed");
  mi_udef u, f, b, q, qb, arr;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "Orders_Placed", .kind = MI_UDEF_ACCUM, .unit = "orders",
                                           .help = "orders the program placed"}, &u), 0, "#14.2 an ACCUM counter installs");
  EQ(u.item, MI_UDEF_FIRST, "#14.2 the first counter gets the first number of the reserved range");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "bytes_total", .kind = MI_UDEF_FACCUM}, &f), 0, "#14.2 FACCUM installs");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "worker_busy", .kind = MI_UDEF_BUSY}, &b), 0, "#14.2 BUSY installs");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "work_queue", .kind = MI_UDEF_QUEUE}, &q), 0, "#14.2 QUEUE installs");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "server_q", .kind = MI_UDEF_QBUSY}, &qb), 0, "#14.2 QBUSY installs");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "hist", .kind = MI_UDEF_ACCUM, .elements = 4}, &arr), 0, "#14.2 an ACCUM array installs");
  EQ(mi_udef_count(sys), 6, "#14.2 the table holds six counters");
  const mi_item_info *it = mi_sys_item(sys, MI_UDEF_FIRST);
  CHECK(it && strcmp(it->name, "orders_placed") == 0 && it->domain == MI_DOM_GLOBAL, "#14.2 the catalog of the system names the counter (lower case)");
  const mi_udef_info *ui = mi_udef_find(sys, "ORDERS_PLACED");
  CHECK(ui && ui->kind == MI_UDEF_ACCUM && strcmp(ui->unit, "orders") == 0 && strcmp(ui->help, "orders the program placed") == 0,
        "#14.2 mi_udef_find gives kind, unit and help");
  CHECK(mi_udef_at(sys, 5) && mi_udef_at(sys, 5)->item.item == MI_UDEF_FIRST + 5 && !mi_udef_at(sys, 6) && !mi_udef_at(sys, -1),
        "#14.2 mi_udef_at enumerates in install order");
  CHECK(mi_sys_item(sys, 21177) == mi_item_lookup(21177), "#14.2 mi_sys_item gives built-in items too");
  mi_udef_add(sys, u, 0, 9);
  EQ(mi_udef_value(sys, u, 0), 0, "#14.2 a counter nobody enabled does not count");
  int32_t items[] = {21177, u.item, f.item, b.item, q.item, qb.item, arr.item, 0};
  mi_globoff(s, &st, 0);
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(INFO(st), 0, "#14.2 MIGLOBON takes user-defined counters");
  mi_host_begin(sys);
  mi_udef_add(sys, u, 0, 3);
  mi_udef_add(sys, u, 0, 4);
  mi_udef_add(sys, f, 0, (int64_t)5 << 33);
  mi_udef_set(sys, b, 0, 1);
  mi_udef_set(sys, q, 0, 3);
  mi_udef_set(sys, qb, 0, 2);
  mi_udef_add_at(sys, arr, 0, 0, 1);
  mi_udef_add_at(sys, arr, 0, 3, 7);
  mi_udef_add_at(sys, arr, 0, 4, 100);    /* beyond the array: ignored */
  mi_udef_add_at(sys, arr, 0, -1, 100);
  mi_host_advance(sys, 8000 * 1000);      /* 1 s at level: 8,000,000 ticks = 8000 MI_Time */
  mi_udef_set(sys, q, 0, 1);              /* 3 for 1 s booked, then level 1 */
  mi_host_advance(sys, 8000 * 500);
  mi_host_publish(sys);
  memset(buf, 0x55, sizeof buf);
  mi_globget(s, &st, items, buf, stats, sizeof buf, 1, 0);
  EQ(INFO(st), 0, "#14.2 MIGLOBGET reads user-defined counters");
  EQ(buf[1], 7, "#14.2 ACCUM: the adds");
  longint_type li;
  memcpy(&li, &buf[2], 8);
  EQ(mi_longint_get(&li), (int64_t)5 << 33, "#14.2 FACCUM: 64 bits as a longint");
  EQ(buf[4], 12000, "#14.2 BUSY: the time at level > 0 in MI_Time (1.5 s)");
  EQ(buf[5], 3 * 8000 + 4000, "#14.2 QUEUE: the time integral of the level (3 for 1 s, 1 for 0.5 s)");
  EQ(buf[6], 12000, "#14.2 QBUSY: the busy part");
  EQ(buf[7], 2 * 12000, "#14.2 QBUSY: the queue part");
  EQ(buf[8], 1, "#14.2 ACCUM array element 0");
  EQ(buf[9], 0, "#14.2 ACCUM array element 1");
  EQ(buf[11], 7, "#14.2 ACCUM array element 3; writes beyond the array are ignored");
  EQ(mi_udef_value(sys, q, 0), (int64_t)(3 * 8000 + 4000) * 1000, "#14.2 mi_udef_value reads the same in ticks");
  mi_udef_set(sys, u, 0, 40);
  EQ(mi_udef_value(sys, u, 0), 40, "#14.2 set gives an ACCUM its value");
  /* per process */
  mi_udef pp;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "p_orders", .kind = MI_UDEF_ACCUM, .per_process = 1}, &pp), 0,
     "#14.2 a per-process counter installs");
  EQ(pp.c.id >> MI_HOST_INDEX_BITS, MI_DOM_PROCESS, "#14.2 in the process domain");
  mi_proc_desc d = {.pid = 777, .program = "SHOP", .user = "U", .proc_type = MI_PT_USER};
  int slot = mi_host_proc_create(sys, &d);
  int32_t pitems[] = {20001, pp.item, 0}, nrec = 0, ptr = 0;
  longint_type pid;
  mi_longint_set(&pid, 777);
  mi_procon(s, &st, pitems, stats, &map, &pid, 0);
  EQ(INFO(st), 0, "#14.2 MIPROCON takes a per-process counter");
  mi_udef_add(sys, pp, slot, 11);
  mi_procget(s, &st, pitems, buf, stats, sizeof buf, 1, &pid, &nrec, &ptr, 0);
  EQ(INFO(st), 0, "#14.2 MIPROCGET reads it");
  EQ(buf[2], 11, "#14.2 the process's value");
  int32_t wrong[] = {u.item, 0};
  mi_procget(s, &st, wrong, buf, stats, sizeof buf, 1, &pid, &nrec, &ptr, 0);
  EQ(stats[0], -20006, "#14.2 a global counter in MIPROCGET is an item of another domain");
  mi_system_free(sys);
}

/* #14.2 bad input and the limits give statuses, never a crash. */
static void test_udef_errors(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_udef u;
  EQ(mi_udef_install(NULL, &(mi_udef_desc){.name = "x", .kind = 1}, &u), -5, "#14.2 NULL system is -5");
  EQ(mi_udef_install(sys, NULL, &u), -5, "#14.2 NULL description is -5");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.kind = 1}, &u), -5, "#14.2 NULL name is -5");
  const char *bad[] = {"", "1abc", "a-b", "a b", "_x", "abcdefghijabcdefghijabcdefghijab", "caf\xc3\xa9"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    EQ(mi_udef_install(sys, &(mi_udef_desc){.name = bad[k], .kind = 1}, &u), -32401, "#14.2 a bad name is -32401");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "abcdefghijabcdefghijabcdefghija", .kind = 1}, NULL), 0, "#14.2 31 characters is fine, out may be NULL");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "gmt_idle", .kind = 1}, &u), -32402, "#14.2 a built-in item's name is a duplicate");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "dup", .kind = 1}, &u), 0, "#14.2 first dup");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "DUP", .kind = 2, .per_process = 1}, &u), -32402, "#14.2 a second counter of a name (any case, any domain) is -32402");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "k0", .kind = 0}, &u), -32403, "#14.2 kind 0 is -32403");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "k6", .kind = 6}, &u), -32403, "#14.2 kind 6 is -32403");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "e257", .kind = 1, .elements = 257}, &u), -32405, "#14.2 257 elements is -32405");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "eneg", .kind = 1, .elements = -1}, &u), -32405, "#14.2 negative elements is -32405");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "barr", .kind = MI_UDEF_BUSY, .elements = 2}, &u), -32405, "#14.2 an array of BUSY is -32405");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "e256", .kind = 1, .elements = 256}, &u), 0, "#14.2 256 elements is the limit");
  char longhelp[200];
  memset(longhelp, 'h', sizeof longhelp - 1); longhelp[199] = 0;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "lh", .kind = 1, .help = longhelp}, &u), -32407, "#14.2 a help text over 127 is -32407");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "lu", .kind = 1, .unit = "a unit too long!"}, &u), -32407, "#14.2 a unit over 15 is -32407");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "pp2", .kind = 1, .per_process = 2}, &u), -32408, "#14.2 per_process 2 is -32408");
  int n = mi_udef_count(sys);
  EQ(n, 3, "#14.2 failed installs leave the table alone");
  char name[32];
  int rc = 0, k;
  for (k = n; k < 100 && rc == 0; k++) {
    snprintf(name, sizeof name, "c%d", k);
    rc = mi_udef_install(sys, &(mi_udef_desc){.name = name, .kind = 1}, &u);
  }
  EQ(rc, -32404, "#14.2 the 86th counter of one program is -32404");
  EQ(mi_udef_count(sys), 85, "#14.2 85 counters per program");
  /* other programs fill the system's table (their owner pid stands in for them) */
  for (int j = 0; j < 85; j++) sys->seg->udef[j].owner_pid = -1;
  for (k = 0; k < 85; k++) { snprintf(name, sizeof name, "d%d", k); mi_udef_install(sys, &(mi_udef_desc){.name = name, .kind = 1}, &u); }
  for (int j = 85; j < 170; j++) sys->seg->udef[j].owner_pid = -2;
  for (k = 0; k < 85; k++) { snprintf(name, sizeof name, "e%d", k); mi_udef_install(sys, &(mi_udef_desc){.name = name, .kind = 1}, &u); }
  for (int j = 170; j < 255; j++) sys->seg->udef[j].owner_pid = -3;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "last", .kind = 1}, &u), 0, "#14.2 the 256th counter of a system installs");
  EQ(u.item, MI_UDEF_FIRST + 255, "#14.2 numbered 29255");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "over", .kind = 1}, &u), -32406, "#14.2 the 257th is -32406");
  /* a global counter of every one fits the domain's index space: enable them all and read */
  status_type st;
  int32_t items[257], stats[257], map = 1;
  for (k = 0; k < 256; k++) items[k] = MI_UDEF_FIRST + k;
  items[256] = 0;
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(INFO(st), 0, "#14.2 all 256 counters enable");
  mi_udef last = mi_udef_at(sys, 255)->handle;
  mi_udef_add(sys, last, 0, 3);
  int32_t one[] = {last.item, 0}, v = 0;
  mi_globget(s, &st, one, &v, stats, 4, 1, 0);
  EQ(v, 3, "#14.2 the last counter reads");
  /* forged handles are ignored */
  mi_udef forged = last;
  forged.item = MI_UDEF_FIRST + 300;
  mi_udef_set(sys, forged, 0, 5);
  EQ(mi_udef_value(sys, forged, 0), 0, "#14.2 a forged handle reads 0");
  mi_udef_set(NULL, last, 0, 5);
  EQ(mi_udef_value(NULL, last, 0), 0, "#14.2 NULL system reads 0");
  EQ(mi_udef_count(NULL), 0, "#14.2 NULL system has no counters");
  CHECK(mi_udef_find(sys, NULL) == NULL && mi_udef_find(sys, "nosuch") == NULL, "#14.2 find of nothing is NULL");
  CHECK(strcmp(mi_udef_kind_name(MI_UDEF_QBUSY), "qbusy") == 0 && mi_udef_kind_find("FACCUM") == MI_UDEF_FACCUM &&
        mi_udef_kind_find("x") == 0 && strcmp(mi_udef_kind_name(9), "?") == 0, "#14.2 kind names");
  mi_system_free(sys);
}

/* #14.2 a counter installed in a shared store is seen, enabled and read by an attached process,
 * and an attached process may install and bump its own. */
static void test_udef_shared(void) {
  char path[256];
  snprintf(path, sizeof path, "/tmp/mish-test-udef-%d", (int)getpid());
  unlink(path);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.max_cells = 1 << 16, .share = path});
  if (!sys) { CHECK(0, "#14.2 shared store"); return; }
  mi_udef orders;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "orders", .kind = MI_UDEF_ACCUM}, &orders), 0, "#14.2 owner installs");
  int up[2], down[2];
  if (pipe(up) || pipe(down)) { CHECK(0, "pipe"); return; }
  pid_t kid = fork();
  if (kid == 0) {
    int err = 0, bad = 0;
    char c;
    mi_system *a = attach_t(path, &err);
    if (!a) _exit(10);
    const mi_udef_info *o = mi_udef_find(a, "orders");
    if (!o || o->item.item != MI_UDEF_FIRST) bad |= 1;
    mi_udef mine;
    if (mi_udef_install(a, &(mi_udef_desc){.name = "kid_ctr", .kind = MI_UDEF_FACCUM}, &mine)) bad |= 2;
    mi_session *ks = mi_session_new(a);
    mi_session_set_priv(ks, 1);
    status_type st;
    int32_t items[] = {MI_UDEF_FIRST, mine.item, 0}, stats[2], map = 1, buf[4];
    mi_globon(ks, &st, items, stats, &map, 666);
    if (INFO(st)) bad |= 4;
    mi_host_begin(a);
    mi_udef_add(a, mine, 0, 7);
    mi_host_publish(a);
    if (write(up[1], "r", 1) != 1 || read(down[0], &c, 1) != 1) _exit(11);
    mi_globget(ks, &st, items, buf, stats, sizeof buf, 1, 666);
    longint_type li;
    memcpy(&li, &buf[1], 8);
    if (INFO(st) || buf[0] != 5 || mi_longint_get(&li) != 7) bad |= 8;
    mi_session_free(ks);
    mi_system_free(a);
    _exit(bad);
  }
  char c;
  EQ(read(up[0], &c, 1), 1, "#14.2 the attached process is ready");
  const mi_udef_info *k = mi_udef_find(sys, "kid_ctr");
  CHECK(k && k->kind == MI_UDEF_FACCUM && k->owner_pid == kid, "#14.2 the owner sees the counter the attached process installed");
  mi_host_begin(sys);
  mi_udef_add(sys, orders, 0, 5);
  mi_host_publish(sys);
  EQ(mi_udef_value(sys, k->handle, 0), 7, "#14.2 the owner reads the attached process's bumps");
  EQ(write(down[1], "g", 1), 1, "go");
  int wst = 0;
  waitpid(kid, &wst, 0);
  EQ(WIFEXITED(wst) ? WEXITSTATUS(wst) : 99, 0, "#14.2 an attached process sees, enables and reads the owner's counter (bits: 1 find, 2 install, 4 ON, 8 GET)");
  close(up[0]); close(up[1]); close(down[0]); close(down[1]);
  mi_system_free(sys);
  unlink(path);
}

/* #14.2 a session's MIGLOBGET of a list naming a counter not yet installed re-plans once it is. */
static void test_udef_rebind(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {21177, MI_UDEF_FIRST, 0}, stats[2], map = 1, buf[4];
  mi_globon(s, &st, items, stats, &map, 0);
  mi_globget(s, &st, items, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], -20006, "#14.2 before the install the number is unknown to the GET");
  mi_udef u;
  mi_udef_install(sys, &(mi_udef_desc){.name = "late", .kind = MI_UDEF_ACCUM}, &u);
  mi_globoff(s, &st, 0);
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(stats[1], 0, "#14.2 after it the ON takes it");
  mi_udef_add(sys, u, 0, 5);
  mi_globget(s, &st, items, buf, stats, sizeof buf, 1, 0);
  EQ(stats[1], 0, "#14.2 the same list's GET re-plans (no stale zero slot)");
  EQ(buf[1], 5, "#14.2 and reads the counter");
  mi_system_free(sys);
}

/* #14.2 a per-process level counter of a dead process stops at its death; an attached process
 * cannot install once the owner is gone. */
static void test_udef_dead_and_gone(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  mi_udef b;
  mi_udef_install(sys, &(mi_udef_desc){.name = "p_busy", .kind = MI_UDEF_BUSY, .per_process = 1}, &b);
  int32_t items[] = {20001, b.item, 0}, stats[2], map = 1, buf[8], nrec = 0, ptr = 0;
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  int slot = mi_host_proc_create(sys, &(mi_proc_desc){.pid = 31, .program = "P", .user = "U"});
  mi_udef_set(sys, b, slot, 1);
  mi_host_advance(sys, 8000 * 100);       /* 100 ms busy */
  mi_host_proc_exit(sys, slot);
  mi_host_advance(sys, 8000 * 900);
  longint_type pid;
  mi_longint_set(&pid, -1);
  mi_procget(s, &st, items, buf, stats, sizeof buf, 1, &pid, &nrec, &ptr, 0);
  EQ(nrec, 1, "#14.2 the dead process is reported");
  EQ(buf[2], 800, "#14.2 its busy time stops at its death (100 ms = 800 MI_Time), not at now");
  mi_system_free(sys);

  char path[256];
  snprintf(path, sizeof path, "/tmp/mish-test-udef-gone-%d", (int)getpid());
  unlink(path);
  sys = new_sys(&s, &(mi_system_options){.max_cells = 1 << 16, .share = path});
  int err = 0;
  mi_system *a = sys ? attach_t(path, &err) : NULL;
  CHECK(a != NULL, "#14.2 attach");
  mi_system_free(sys);
  unlink(path);
  if (a) {
    EQ(mi_udef_install(a, &(mi_udef_desc){.name = "late", .kind = 1}, NULL), -32005, "#14.2 installing in a store whose owner is gone is -32005");
    mi_system_free(a);
  }
}
