/* test_simcache.c — the simulator's resolved tables (core/sources/sim_counters.c): worked out
 * once per process and copied into each new model, they must be what a model working them out
 * itself gets, byte for byte; two models of one workload still run alike. */

/* The cached tables equal fresh ones, before any model and after two; models still run. */
static void test_sim_resolve_cache(void) {
  CHECK(mi_sim_resolve_selfcheck() == 0, "sim cache: the first model's tables are a fresh model's");
  mi_system *s1 = mi_sim_new(mi_workload_builtin("oltp"), 0), *s2 = mi_sim_new(mi_workload_builtin("oltp"), 0);
  CHECK(s1 && s2, "sim cache: two models on one workload");
  if (s1 && s2) {
    mi_sim_advance(s1, 20000);
    mi_sim_advance(s2, 20000);
    CHECK(mi_sim_transactions(s1) > 0, "sim cache: a model runs transactions");
    CHECK(sim_counters_hash(s1) == sim_counters_hash(s2), "sim cache: two models of one workload count alike");
  }
  mi_system_free(s1);
  mi_system_free(s2);
  CHECK(mi_sim_resolve_selfcheck() == 0, "sim cache: a later model's tables are a fresh model's");
}
