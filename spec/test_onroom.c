/* test_onroom.c — an ON of a list of counters makes room for all of them at once (the exporter's
 * ON of every process counter regrew the process rows at each half again, zeroing and copying
 * every row each time: 70 MB of cells touched for 24 MB of rows). Included by test_core.c (its
 * CHECK/EQ counters, new_sys). */

/* One ON of every process counter: one regrowth of the rows (the arena holds the first ON's rows
 * and the new ones, no trail of intermediate sizes); values counted before survive it and every
 * new counter reads zero. */
static void test_on_room_once(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t map = 1, stats[1024], first[] = {25047, 0};
  for (int p = 0; p < 8; p++) { mi_proc_desc d = {.pid = 700 + p, .program = "P", .user = "U"}; mi_host_proc_create(sys, &d); }
  mi_procon(s, &st, first, stats, &map, NULL, 0);
  EQ(st.all, 0, "an ON of one process counter");
  mi_ctr c0 = mi_host_counter(25047);
  for (int p = 0; p < 8; p++) mi_host_add(sys, c0, p, 100 + p);
  const mi_host_view *v = (const mi_host_view *)(const void *)sys;
  int64_t first_rows = (int64_t)v->lane[MI_DOM_PROCESS].nent * v->lane[MI_DOM_PROCESS].stride;
  int32_t all[1024];
  int n = 0;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESS) && n < 1023; k++) {
    const mi_item_info *it = mi_domain_item(MI_DOM_PROCESS, k);
    if (it->kind != MI_KIND_PSEUDO && it->item != 25047) all[n++] = it->item;
  }
  all[n] = 0;
  mi_session *u = mi_session_new(sys);   /* another user: a session's process list is fixed by its first ON */
  mi_session_set_priv(u, 1);
  mi_accesson(u, &st, 666);
  mi_procon(u, &st, all, stats, &map, NULL, 0);
  EQ(st.all, 0, "another user's ON of every other process counter");
  int64_t rows = (int64_t)v->lane[MI_DOM_PROCESS].nent * v->lane[MI_DOM_PROCESS].stride;
  if (sys->seg->arena_top > first_rows + rows)
    printf("  arena %lld words, rows %lld + %lld\n", (long long)sys->seg->arena_top, (long long)first_rows, (long long)rows);
  CHECK(sys->seg->arena_top <= first_rows + rows, "the rows regrew once for the whole list (no trail of sizes in the arena)");
  int bad_old = 0, bad_new = 0;
  for (int p = 0; p < 8; p++) {
    bad_old += mi_host_value(sys, c0, p) != 100 + p;
    for (int j = 0; j < n; j++) bad_new += mi_host_value(sys, mi_host_counter(all[j]), p) != 0;
  }
  EQ(bad_old, 0, "values counted before the ON survive its regrowth");
  EQ(bad_new, 0, "every counter the ON placed reads zero");
  mi_session_free(u);
  mi_session_free(s);
  mi_system_free(sys);
}
