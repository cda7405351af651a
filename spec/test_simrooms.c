/* test_simrooms.c — the simulator skips a room's event draws while nobody counts any of its
 * event rows (core/sources/sim_rooms.c, counting): the draws are keyed by the operation's number,
 * not taken from the model's stream, so skipping them changes no other count. Included by
 * test_core.c (its CHECK/EQ counters, user666). */

/* Two systems on one workload and seed: A counts process CPU, ready time and launches only (no
 * room's row: the draws are skipped), B the same and the file opens and disc reads of the file
 * system's rows (the draws run). Each process's three figures, paired by PID, are the same. */
static void test_sim_rooms_skipped_uncounted(void) {
  mi_workload w = *mi_workload_builtin("oltp");
  w.cpus = 2; w.sessions = 60; w.jobs = 4; w.seed = 7;
  int32_t la[] = {20001, 25047, 25048, 25049, 0}, lb[] = {20001, 25047, 25048, 25049, 25248, 25256, 0}, stats[8], m = 1;
  mi_system *sys[2];
  status_type st;
  for (int k = 0; k < 2; k++) {
    sys[k] = mi_sim_new(&w, 0);
    mi_session *s = user666(sys[k]);
    mi_procon(s, &st, k ? lb : la, stats, &m, NULL, 0);
    EQ(st.all, 0, "#31 rooms: a process ON");
    mi_sim_advance(sys[k], 5000);
  }
  mi_ctr fo = mi_host_counter(25256);
  int64_t opens = 0;
  int pairs = 0, diff = 0, a_opens = 0;
  for (int64_t pid = 1; pid < 2000; pid++) {
    int a = mi_host_proc_slot(sys[0], pid), b = mi_host_proc_slot(sys[1], pid);
    if (a < 0 || b < 0) { diff += (a < 0) != (b < 0); continue; }
    pairs++;
    for (int i = 1; i < 4; i++) diff += mi_host_value(sys[0], mi_host_counter(la[i]), a) != mi_host_value(sys[1], mi_host_counter(la[i]), b);
    opens += mi_host_value(sys[1], fo, b);
    a_opens += mi_host_value(sys[0], fo, a) != 0;
  }
  CHECK(pairs > 60, "#31 rooms: the same processes in both");
  CHECK(opens > 0, "#31 rooms: B counted the file system's events");
  EQ(a_opens, 0, "#31 rooms: nobody counts file opens in A");
  EQ(diff, 0, "#31 rooms: CPU, ready time and launches as with the rooms' draws");
  for (int k = 0; k < 2; k++) mi_system_free(sys[k]);
}
