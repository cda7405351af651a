/* test_parkrows.c — a parked process counter turned on again restarts from zero in the rows below
 * proc_hi only (core/store/store.c, mi_store_enable), as a regrowth does: the rows above may hold
 * what dead processes counted there, and a process that takes such a slot must still read zero
 * (its row is zeroed when it is created). Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* Processes at slots 0-29 count 25047; those at 20-29 die and are freed (proc_hi falls to 20). One
 * session's OFF parks 25047 while another keeps 25048 on; its ON again restarts 25047: the slots
 * below 20 read zero, and so do new processes at slots 20-24. */
static void test_park_rows_above_hi(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t map = 1, stats[8], count = 0, both[] = {20001, 25047, 25048, 0}, other[] = {20001, 25048, 0}, one[] = {20001, 25047, 0};
  procs_30(sys, 700);
  mi_session *u = mi_session_new(sys);
  mi_session_set_priv(u, 1);
  mi_accesson(u, &st, 666);
  mi_procon(s, &st, both, stats, &map, NULL, 0);
  EQ(st.all, 0, "an ON of two process counters");
  mi_procon(u, &st, other, stats, &map, NULL, 0);
  EQ(st.all, 0, "another user's ON of one of them");
  mi_ctr c0 = mi_host_counter(25047);
  count_then_end_top_ten(sys, c0);
  static uint8_t buf[1 << 16];
  mi_procget(s, &st, both, buf, stats, (int32_t)sizeof buf, 1, NULL, &count, NULL, 0);
  mi_procget(u, &st, other, buf, stats, (int32_t)sizeof buf, 1, NULL, &count, NULL, 0);   /* both told: freed */
  EQ(mi_host_proc_hi(sys), 20, "the dead processes' slots are free, proc_hi falls");
  mi_procoff(s, &st, NULL, 0);
  const mi_item_info *it = mi_item_lookup(25047);
  EQ(MI_OFF(sys, MI_DOM_PROCESS, it->index), -1, "nobody counts 25047 any more");
  CHECK(sys->seg->dom[MI_DOM_PROCESS].slot[it->index] >= 0, "its slot is parked (25048 keeps the rows)");
  mi_procon(s, &st, one, stats, &map, NULL, 0);
  EQ(st.all, 0, "the ON again: the parked slot restarts");
  int bad_low = 0;
  for (int p = 0; p < 20; p++) bad_low += mi_host_value(sys, c0, p) != 0;
  EQ(bad_low, 0, "the live processes' 25047 restarts from zero");
  EQ(new_procs_counted(sys, c0, 1700), 0, "a process at a slot above the old proc_hi reads zero where a dead one counted");
  mi_session_free(u);
  mi_session_free(s);
  mi_system_free(sys);
}

/* The I/O rows above the highest configured LDEV are not kept either (store.c kept_rows): a
 * regrowth copies the rows up to it, and a device configured above starts from zero whatever its
 * row held (a writer may add to an LDEV that is no device). */
static void test_park_io_rows_above_highest(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  for (int l = 1; l <= 3; l++) mi_host_set_device(sys, l, 1);   /* disks */
  status_type st;
  int32_t one[] = {20020, 23048, 0}, stats[24], map = 1, ldev = -2;
  int32_t more[] = {20020, 23000, 23001, 23002, 23003, 23004, 23005, 23006, 23007, 23008, 23009, 23010, 23011, 23012, 0};
  mi_ioon(s, &st, one, stats, &map, &ldev, 0);
  EQ(st.all, 0, "MIIOON of completed reads on the disks");
  mi_ctr rd = mi_host_counter(23048);
  mi_host_add(sys, rd, 3, 30);
  mi_host_add(sys, rd, 50, 7);   /* LDEV 50 is no device: a write to its row is nobody's */
  EQ(mi_host_value(sys, rd, 50), 0, "an LDEV that is no device reads no counter");
  mi_host_set_device(sys, 50, 1);
  EQ(mi_host_value(sys, rd, 50), 0, "a device configured above the kept rows starts from zero");
  mi_host_add(sys, rd, 50, 5);
  mi_session *u = mi_session_new(sys);
  mi_session_set_priv(u, 1);
  mi_accesson(u, &st, 666);
  int32_t stride0 = sys->seg->blk.lane[MI_DOM_IO].stride;
  mi_ioon(u, &st, more, stats, &map, &ldev, 666);
  EQ(st.all, 0, "another user's ON of 13 more I/O counters");
  CHECK(sys->seg->blk.lane[MI_DOM_IO].stride > stride0, "the I/O rows regrew");
  EQ(mi_host_value(sys, rd, 3), 30, "a regrowth keeps a disk's count");
  EQ(mi_host_value(sys, rd, 50), 5, "a regrowth keeps the count of the highest configured LDEV");
  mi_session_free(u);
  mi_session_free(s);
  mi_system_free(sys);
}
