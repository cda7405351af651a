/* test_growrows.c — a regrowth of the process rows copies and zeroes only the slots below
 * proc_hi (core/store/store.c, grow): the rows above may hold what an earlier region left there,
 * and a process that takes such a slot must still read zero in every counter (its row is zeroed
 * when it is created). Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* Creates processes of pids pid0 .. pid0+29 at slots 0-29. */
static void procs_30(mi_system *sys, int pid0) {
  for (int p = 0; p < 30; p++) { mi_proc_desc d = {.pid = pid0 + p, .program = "P", .user = "U"}; mi_host_proc_create(sys, &d); }
}

/* Counts 1000 + slot in c at slots 0-29, then ends the processes at 20-29. */
static void count_then_end_top_ten(mi_system *sys, mi_ctr c) {
  for (int p = 0; p < 30; p++) mi_host_add(sys, c, p, 1000 + p);
  for (int p = 20; p < 30; p++) mi_host_proc_exit(sys, p);
}

/* Creates processes of pids pid0 + slot at slots 20-24 (checked) and returns how many of them read
 * anything but zero in c. */
static int new_procs_counted(mi_system *sys, mi_ctr c, int pid0) {
  int bad = 0;
  for (int p = 20; p < 25; p++) {
    mi_proc_desc d = {.pid = pid0 + p, .program = "R", .user = "U"};
    int slot = mi_host_proc_create(sys, &d);
    EQ(slot, p, "a new process takes the lowest free slot");
    bad += mi_host_value(sys, c, slot) != 0;
  }
  return bad;
}

/* Processes at slots 20-29 count, die and are freed (proc_hi falls to 20); the ON goes off, the
 * arena starts afresh and the next ON's rows lie over the first ones, the dead slots' values still
 * there; new processes at those slots read zero (before and after a regrowth), and values
 * counted at slots 0-19 after the ON survive the regrowth. */
static void test_grow_rows_above_hi(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t map = 1, stats[64], count = 0, first[] = {20001, 25047, 0};
  procs_30(sys, 900);
  mi_procon(s, &st, first, stats, &map, NULL, 0);
  EQ(st.all, 0, "an ON of one process counter");
  mi_ctr c0 = mi_host_counter(25047);
  count_then_end_top_ten(sys, c0);
  static uint8_t buf[1 << 16];
  mi_procget(s, &st, first, buf, stats, (int32_t)sizeof buf, 1, NULL, &count, NULL, 0);   /* told of the deaths: freed */
  EQ(mi_host_proc_hi(sys), 20, "the dead processes' slots are free, proc_hi falls");
  mi_procoff(s, &st, NULL, 0);
  EQ(sys->seg->arena_top, 0, "nothing on: the arena starts afresh");
  mi_procon(s, &st, first, stats, &map, NULL, 0);
  EQ(st.all, 0, "the ON again: its rows where the first ones were");
  EQ(new_procs_counted(sys, c0, 1900), 0, "a process at a slot above the old proc_hi reads zero where a dead one counted");
  int32_t more[64];
  int n = 0;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESS) && n < 60; k++) {
    const mi_item_info *it = mi_domain_item(MI_DOM_PROCESS, k);
    if (it->kind != MI_KIND_PSEUDO && it->item != 25047) more[n++] = it->item;
  }
  more[n] = 0;
  for (int p = 0; p < 20; p++) mi_host_add(sys, c0, p, 5 + p);
  mi_session *u = mi_session_new(sys);   /* another user: a session's process list is fixed by its first ON */
  mi_session_set_priv(u, 1);
  mi_accesson(u, &st, 666);
  mi_procon(u, &st, more, stats, &map, NULL, 0);
  EQ(st.all, 0, "another user's ON of many counters: a regrowth");
  int bad_kept = 0, bad_new = 0;
  for (int p = 0; p < 20; p++) bad_kept += mi_host_value(sys, c0, p) != 5 + p;
  EQ(bad_kept, 0, "the values of the live slots survive the regrowth");
  for (int p = 25; p < 30; p++) {
    mi_proc_desc d = {.pid = 2000 + p, .program = "Q", .user = "U"};
    int slot = mi_host_proc_create(sys, &d);
    EQ(slot, p, "a new process takes the lowest free slot");
    bad_new += mi_host_value(sys, c0, slot) != 0;
    for (int j = 0; j < n; j++) bad_new += mi_host_value(sys, mi_host_counter(more[j]), slot) != 0;
  }
  EQ(bad_new, 0, "a process at a slot above the old proc_hi reads zero in every counter");
  mi_session_free(u);
  mi_session_free(s);
  mi_system_free(sys);
}
