/* test_prcsr64.c — MIPRCSRGET on a machine of more than the MI's 8 processors (#32): the 64-CPU
 * fixture (spec/fixtures/host_cpu64, read in place from the repository root) gives processors
 * 0-7, num_of_prcsrs 8 and warning 32701; one processor, a short buffer and a machine of 8 keep
 * their statuses; the writer API's range. Included by test_core.c (its CHECK/EQ and new_sys). */

/* #32: MIPRCSRGET of all processors on a 64-CPU host says that more exist than it returns. */
static void test_prcsr64(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  if (mi_linux_attach(sys, "spec/fixtures/host_cpu64/proc", 0) != 0) {
    CHECK(0, "#32 attach the 64-CPU fixture (spec/fixtures/host_cpu64: run from the repository root)");
    mi_session_free(s);
    mi_system_free(sys);
    return;
  }
  EQ(mi_host_cpus(sys), 8, "#32 64 CPUs: the MI has 8 processors");
  EQ(mi_host_cpus_all(sys), 64, "#32 64 CPUs: the machine has 64");
  status_type st;
  int32_t g[] = {21164, 21177, 0}, gs[4], map = 1;
  mi_globon(s, &st, g, gs, &map, 0);
  EQ(st.all, 0, "#32 21164 on: the processors are on");
  int32_t items[] = {20040, 27023, 0}, stats[2] = {-1, -1}, buf[2 * 8], n = -1, id = -1;
  mi_prcsrget(s, &st, items, buf, stats, (int32_t)sizeof buf, 1, &id, &n, 0);
  EQ(st.s.info, MI_E_PROCESSORS_BEYOND_MI, "#32 all processors of 64 CPUs: warning 32701");
  EQ(st.s.subsys, MI_SUBSYS, "#32 the warning is the MI's subsystem's");
  CHECK(st.s.info >= 20000, "#32 32701 is a warning (>= 20000), not an error: the records are good");
  EQ(n, 8, "#32 num_of_prcsrs: the 8 returned");
  EQ(stats[0] | stats[1], 0, "#32 every item read");
  int ids = 1;
  for (int k = 0; k < 8; k++) ids &= buf[2 * k] == k;
  CHECK(ids, "#32 the records are processors 0-7, in order");
  CHECK(strstr(mi_status_message(MI_E_PROCESSORS_BEYOND_MI), "more processors") != NULL, "#32 32701 has its message");
  mi_prcsrget(s, &st, items, buf, stats, (int32_t)sizeof buf, 1, NULL, &n, 0);
  EQ(st.s.info, MI_E_PROCESSORS_BEYOND_MI, "#32 prcsr_id not passed means all: the warning too");
  id = 5;
  mi_prcsrget(s, &st, items, buf, stats, (int32_t)sizeof buf, 1, &id, &n, 0);
  EQ(st.all, 0, "#32 one processor asked for: status 0");
  EQ(n, 1, "#32 one processor asked for: one record");
  EQ(buf[0], 5, "#32 one processor asked for: that one");
  id = -1;
  mi_prcsrget(s, &st, items, buf, stats, 3 * 8, 1, &id, &n, 0);
  EQ(st.s.info, MI_E_BUFFER_PARTIAL, "#32 room for 3 records: -20015 (the rest next call), not the warning");
  EQ(n, 3, "#32 room for 3 records: 3");
  EQ(mi_host_set_cpus_all(sys, -1), -1, "#32 a machine of -1 processors is refused");
  EQ(mi_host_set_cpus_all(sys, MI_MAX_CPUS_ALL + 1), -1, "#32 more than MI_MAX_CPUS_ALL is refused");
  mi_session_free(s);
  mi_system_free(sys);
  /* a machine of 8 (the writer API alone): no warning, until the machine says it has 9 */
  sys = new_sys(&s, NULL);
  mi_host_set_cpus(sys, 8);
  mi_globon(s, &st, g, gs, &map, 0);
  mi_prcsrget(s, &st, items, buf, stats, (int32_t)sizeof buf, 1, &id, &n, 0);
  EQ(st.all, 0, "#32 8 processors of 8: status 0");
  EQ(n, 8, "#32 8 processors of 8: 8 records");
  EQ(mi_host_cpus_all(sys), 8, "#32 a machine not told otherwise has its MI processors");
  EQ(mi_host_set_cpus_all(sys, 9), 0, "#32 a machine of 9");
  mi_prcsrget(s, &st, items, buf, stats, (int32_t)sizeof buf, 1, &id, &n, 0);
  EQ(st.s.info, MI_E_PROCESSORS_BEYOND_MI, "#32 8 processors of 9: warning 32701");
  EQ(n, 8, "#32 8 processors of 9: 8 records");
  mi_session_free(s);
  mi_system_free(sys);
}
