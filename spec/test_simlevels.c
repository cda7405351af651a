/* test_simlevels.c — the simulator's storage levels (core/sources/sim_memory.c) when only one
 * domain counts: the levels a spawn writes are skipped while their domain counts nothing (#27
 * fuzzing: the boot's logons wrote 51 levels per process that no cell held), and must still be
 * there once the domain counts. Included by test_core.c (its CHECK/EQ counters). */

/* The storage levels of three systems on one workload and seed: A with the global levels on
 * only, C with the process levels on only, B with both. The model does not depend on what is
 * counted, so A's global levels are B's and C's process levels are B's; in B each global class
 * is the sum of the live processes' (storage, and virtual memory twice it). */
static void test_sim_storage_levels_one_domain(void) {
  mi_workload w = *mi_workload_builtin("oltp");
  w.cpus = 2; w.sessions = 120; w.jobs = 4; w.seed = 11;
  mi_system *sys[3];
  mi_session *ses[3];
  int32_t glist[22], plist[21], gs[22], ps[21], m = 1;
  for (int c = 0; c < 10; c++) { glist[c] = 21390 + c; glist[10 + c] = 21410 + c; plist[c] = 25203 + c; plist[10 + c] = 25223 + c; }
  glist[20] = 21310; glist[21] = 0; plist[20] = 0;
  status_type st;
  for (int k = 0; k < 3; k++) {
    sys[k] = mi_sim_new(&w, 0);
    ses[k] = user666(sys[k]);
    mi_sim_advance(sys[k], 500);   /* the boot's logons and a few more, nobody counting */
    if (k != 2) { mi_globon(ses[k], &st, glist, gs, &m, 0); EQ(st.all, 0, "an ON of the global storage levels"); }
    if (k != 0) { mi_procon(ses[k], &st, plist, ps, &m, NULL, 0); EQ(st.all, 0, "an ON of the process storage levels"); }
    mi_sim_advance(sys[k], 3000);   /* more logons (50 a second) with the levels on */
  }
  CHECK(mi_host_proc_count(sys[1]) > 100, "the sessions logged on while the levels counted");
  int gdiff = 0, pdiff = 0, sums = 0;
  int64_t total = 0;
  for (int i = 0; i < 21; i++) {
    mi_ctr c = mi_host_counter(glist[i]);
    gdiff += mi_host_value(sys[0], c, 0) != mi_host_value(sys[1], c, 0);
    total += mi_host_value(sys[1], c, 0);
  }
  CHECK(total > 0, "the global storage levels hold something");
  EQ(gdiff, 0, "global levels counted alone are those counted beside the process levels");
  for (int e = 0; e < mi_host_proc_hi(sys[1]); e++)
    for (int i = 0; i < 20; i++) {
      mi_ctr c = mi_host_counter(plist[i]);
      pdiff += mi_host_value(sys[2], c, e) != mi_host_value(sys[1], c, e);
    }
  EQ(pdiff, 0, "process levels counted alone are those counted beside the global levels");
  for (int c = 0; c < 10; c++) {
    int64_t sec = 0, vm = 0;
    for (int e = 0; e < mi_host_proc_hi(sys[1]); e++)
      if (sys[1]->seg->procs[e].state == MI_PS_ALIVE) {
        sec += mi_host_value(sys[1], mi_host_counter(25203 + c), e);
        vm += mi_host_value(sys[1], mi_host_counter(25223 + c), e);
      }
    sums += sec == mi_host_value(sys[1], mi_host_counter(21390 + c), 0) && vm == mi_host_value(sys[1], mi_host_counter(21410 + c), 0);
  }
  EQ(sums, 10, "each class's system level is the sum of the live processes' (storage and virtual memory)");
  for (int k = 0; k < 3; k++) mi_system_free(sys[k]);
}
