/* test_hold.c — one reading of several domains (mi_query_hold, door 2): an exporter's scrape
 * refreshes the source once, not once per domain (#28/#31: what the host reads). Part of
 * spec/test_core.c (#included there, after test_host.c: its fixture tree and rm_tree). */

/* Refreshes the host made so far. */
static int64_t hold_refreshes(mi_system *sys) {
  mi_linux_health hh;
  mi_linux_health_get(sys, &hh);
  return hh.refreshes;
}

/* Another thread's MIGLOBGET: session a[0], items a[1]; its status into a[2]. */
static void *hold_other_get(void *arg) {
  void **a = arg;
  status_type st;
  int32_t stats[8], buf[8];
  mi_globget(a[0], &st, a[1], buf, stats, sizeof buf, 1, 666);
  a[2] = (void *)(intptr_t)st.all;
  return NULL;
}

/* On a host at age 0 (each read refreshes): a hold refreshes once, the global, processor and
 * process reads after it on this thread refresh nothing, another thread's read still does, and
 * after the release each read refreshes again. */
static void test_hold_one_reading(void) {
  char root[64];
  mi_session *s;
  mi_system *sys = host_fixture_sys(root, 100, 3, &s);
  status_type st;
  int32_t glob[] = {21176, 21177, 0}, proc[] = {20001, 25047, 0}, stats[8], map = 1, buf[8], prec[256], n = 0;
  longint_type all;
  mi_longint_set(&all, -1);
  mi_globon(s, &st, glob, stats, &map, 666);
  mi_procon(s, &st, proc, stats, &map, &all, 666);
  EQ(st.all, 0, "hold: MIPROCON of every process");
  mi_session *s2 = mi_session_new(sys);   /* another thread's session, its own global items on */
  mi_session_set_priv(s2, 1);
  mi_accesson(s2, &st, 666);
  mi_globon(s2, &st, glob, stats, &map, 666);
  EQ(st.all, 0, "hold: the other session's MIGLOBON");
  int64_t r0 = hold_refreshes(sys);
  mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 666);
  EQ(hold_refreshes(sys), r0 + 1, "hold: without one a GET refreshes (age 0)");
  mi_query_hold(s, 1 << MI_DOM_GLOBAL | 1 << MI_DOM_PROCESS);
  EQ(hold_refreshes(sys), r0 + 2, "hold: the hold refreshes once");
  mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 666);
  mi_procget(s, &st, proc, prec, stats, sizeof prec, 1, NULL, &n, NULL, 666);
  EQ(n, 3, "hold: the process read under the hold returns the table its refresh read");
  EQ(hold_refreshes(sys), r0 + 2, "hold: the reads under the hold refresh nothing");
  void *arg[3] = {s2, glob, NULL};
  pthread_t t;
  pthread_create(&t, NULL, hold_other_get, arg);
  pthread_join(t, NULL);
  EQ((int)(intptr_t)arg[2], 0, "hold: the other thread's MIGLOBGET");
  EQ(hold_refreshes(sys), r0 + 3, "hold: another thread's read still refreshes");
  mi_query_release(s);
  mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 666);
  EQ(hold_refreshes(sys), r0 + 4, "hold: after the release a GET refreshes again");
  mi_session_free(s2);
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}
