/* test_core.c — C-level tests of the core: every decision of core/README.md and
 * every status the core can produce, through the manual's API and the writer API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi.h"
#include "mi_host.h"
#include "mi_internal.h"

static int passed, failed;
#define CHECK(cond, what) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, what); } } while (0)
#define EQ(a, b, what) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ == b_) passed++; else { failed++; \
  printf("FAIL %s:%d: %s: got %lld, want %lld\n", __FILE__, __LINE__, what, a_, b_); } } while (0)
#define INFO(st) mi_status_info(st)

static char regpath[256];

/* A fresh system with a registry holding user 666 and a privileged, authorized caller. */
static mi_system *new_sys(mi_session **s, const mi_system_options *o) {
  mi_system_options opt = o ? *o : (mi_system_options){0};
  opt.registry = regpath;
  opt.boot_ticks = (int64_t)1700000000 * 1000 * 8000;
  mi_system *sys = mi_system_new(&opt);
  *s = mi_session_new(sys);
  mi_session_set_priv(*s, 1);
  status_type st;
  mi_globinstall(*s, &st, 666);
  mi_accesson(*s, &st, 666);
  return sys;
}

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
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR); k++) refs += sys->dom[MI_DOM_PROCESSOR].refs[k];
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
  EQ(sys->ldevs_enabled, 2, "#11.10b a removed LDEV leaves the MI device table");
  EQ(sys->ldev_refs[2], 0, "#11.10b and holds no reference");
  EQ(a->nldevs, 2, "#11.10b and leaves the user's set");
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
  EQ(a->nldevs, 1, "#11.10b an LDEV whose type changes leaves the user's set");
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
  EQ(sys->ldevs_enabled, 0, "#11.10b everything off: the MI device table is empty");
  int left = 0;
  for (int l = 0; l <= MI_MAX_LDEV; l++) left += sys->ldev_refs[l];
  EQ(left + a->nldevs + b->nldevs, 0, "#11.10b no references or set entries are left");
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
    wrong += slot < 0 || sys->procs[slot].pid != live[i];
  }
  EQ(wrong, 0, "#11.12 every live pid is found after 200,000 births and deaths");
  int found = 0;
  for (int64_t p = 1; p <= next; p += 7) found += mi_host_proc_slot(sys, p) >= 0;
  int expect = 0;
  for (int i = 0; i < nlive; i++) expect += (live[i] - 1) % 7 == 0;
  EQ(found, expect, "#11.12 absent pids are not found");
  int used = 0;
  for (int h = 0; h < MI_PID_HASH; h++) used += sys->pid_hash[h] != 0;
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

int main(void) {
  snprintf(regpath, sizeof regpath, "/tmp/mish-test-registry-%d", (int)getpid());
  unlink(regpath);
  test_access();
  test_catalog();
  test_global();
  test_mapping_users();
  test_counter_limit();
  test_process();
  test_process_table_full();
  test_io();
  test_processor();
  test_config();
  test_time();
  test_get_cache();
  test_writer();
  test_h11_glob_cache_failed_get();
  test_h11_get_bounds();
  test_h11_writer_kinds();
  test_h11_glob_cache_session_set();
  test_h11_foreign_item_slots();
  test_h11_processor_refs();
  test_h11_ldev_removed();
  test_h11_pid_hash();
  test_h11_item_extremes();
  setenv("MI_AIFKUF", regpath, 1);
  test_upper_api();
  unlink(regpath);
  printf("C core: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
