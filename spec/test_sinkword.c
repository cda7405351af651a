/* test_sinkword.c — word 0 of every row is the writers' sink (core/STORE.md, "The sink word"):
 * no counter takes it, through ONs, OFFs, a regrowth and the rows freed and taken again, so a
 * write there (the simulator's step sends the writes of counters nobody counts there) changes
 * no counter. Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* The counters of every domain whose word is 0 (none may be). */
static int sink_taken(mi_system *sys) {
  int n = 0;
  for (int d = 0; d < MI_DOM_COUNT; d++)
    for (int k = 0; k < mi_domain_counters(d); k++) n += MI_OFF(sys, d, mi_domain_item(d, k)->index) == 0;
  return n;
}

/* Every domain's ON, a write at word 0 of each of its rows, the values read back; then all OFF
 * (the rows freed) and ON again in another order. */
static void test_sink_word_is_no_counter(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_host_set_device(sys, 1, 1);
  status_type st;
  int32_t map = 1, ldev = -2, stats[64];
  int32_t g[] = {21176, 21164, 21274, 21000, 0}, p[] = {20001, 25047, 25048, 25243, 0}, io[] = {20020, 23048, 23050, 0};
  int32_t g2[] = {21307, 21176, 0};
  procs_30(sys, 700);
  for (int round = 0; round < 2; round++) {
    mi_globon(s, &st, round ? g2 : g, stats, &map, 0);
    EQ(st.all, 0, "#31 sink: a global ON");
    mi_procon(s, &st, p, stats, &map, NULL, 0);
    EQ(st.all, 0, "#31 sink: a process ON");
    mi_ioon(s, &st, io, stats, &map, &ldev, 0);
    EQ(st.all, 0, "#31 sink: an I/O ON");
    EQ(sink_taken(sys), 0, round ? "#31 sink: no counter takes word 0 after the rows were freed and taken again"
                                 : "#31 sink: no counter takes word 0 of its domain's rows");
    mi_host_begin(sys);
    for (int d = 0; d < MI_DOM_COUNT; d++) {
      mi_host_row r;
      int n = d == MI_DOM_GLOBAL ? 1 : d == MI_DOM_PROCESS ? 30 : d == MI_DOM_IO ? 2 : 8;
      for (int e = 0; e < n; e++)
        if (mi_host_row_open(sys, &r, d, e)) mi_host_row_addw(&r, 0, 1000 + e);
    }
    mi_host_publish(sys);
    int moved = 0;
    for (int i = 0; g[i]; i++) moved += mi_host_value(sys, mi_host_counter(g[i]), 0) >= 1000;
    for (int i = 1; p[i]; i++)
      for (int e = 0; e < 30; e++) moved += mi_host_value(sys, mi_host_counter(p[i]), e) >= 1000;
    for (int i = 1; io[i]; i++) moved += mi_host_value(sys, mi_host_counter(io[i]), 1) >= 1000;
    EQ(moved, 0, "#31 sink: writes at word 0 of every row reach no counter");
    int32_t all_ldev = -2;
    mi_globoff(s, &st, 0); mi_procoff(s, &st, NULL, 0); mi_iooff(s, &st, &all_ldev, 0);
  }
  mi_session_free(s);
  mi_system_free(sys);
}
