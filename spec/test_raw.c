/* test_raw.c — door 2's raw mode (#28.3): mi_query_raw_read, the recorder's only way into the
 * store. Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* A raw read gives each entity's own cells, its identity, and reports a death exactly once. */
static void test_i28_raw_read(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t gi[] = {21184, 21183, 21031, 0}, pi[] = {20001, 25047, 25202, 25167, 0}, stats[8], map = 1;
  mi_globon(s, &st, gi, stats, &map, 666);
  mi_proc_desc d = {0};
  d.pid = 701;
  int a = mi_host_proc_create(sys, &d);
  d.pid = 702;
  int b = mi_host_proc_create(sys, &d);
  mi_host_proc_identity(sys, b, "RAWPROG", "PUB", "SYS", 1);
  longint_type all;
  mi_longint_set(&all, -1);
  mi_procon(s, &st, pi, stats, &map, &all, 666);
  mi_host_add(sys, mi_host_counter(21184), 0, 11);
  mi_host_add(sys, mi_host_counter(21183), 0, 22);
  mi_host_add(sys, mi_host_counter(25047), a, 5);
  mi_host_add(sys, mi_host_counter(25047), b, 9);
  mi_host_add(sys, mi_host_counter(25167), b, 4);
  mi_host_add_objcl(sys, mi_host_counter(25202), b, 3, 6);   /* b's class counter: 6 and 2 in two classes, 0 for a */
  mi_host_add_objcl(sys, mi_host_counter(25202), b, 700, 2);
  mi_host_add(sys, mi_host_counter(21031), 0, 33);
  mi_query *q[MI_DOM_COUNT] = {mi_query_new(s, MI_DOM_GLOBAL, gi, 3, map), mi_query_new(s, MI_DOM_PROCESS, pi, 4, map)};
  EQ(mi_query_raw_words(q[1], 0), 0, "#28.3 a pseudo-item has no cells in a raw row");
  EQ(mi_query_raw_words(q[1], 1), 1, "#28.3 a simple counter: one cell");
  CHECK(mi_query_raw_words(q[1], 2) > 1, "#28.3 a class counter: its classes");
  EQ(mi_query_raw_words(q[1], 9), 0, "#28.3 an index past the list: 0");
  int rw[2] = {0, 0};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < mi_query_items(q[k]); i++) rw[k] += mi_query_raw_words(q[k], i);
  static int64_t gc[64], pc[MI_MAX_PROCESSES * 128];
  static int32_t gk[1], pk[MI_MAX_PROCESSES];
  static mi_raw_view v;
  int64_t *cells[MI_DOM_COUNT] = {gc, pc};
  int32_t *keys[MI_DOM_COUNT] = {gk, pk}, nk[MI_DOM_COUNT] = {-1, -1, -1, -1};
  CHECK(rw[1] <= 128, "#28.3 the test's rows fit");
  EQ(mi_query_raw_read(s, &v, q, 2, cells, keys, nk), 0, "#28.3 a raw read of the global and process rows");
  EQ(nk[0], 1, "#28.3 one global entity");
  EQ(gc[0], 11, "#28.3 the global cells in the list's order (21184)");
  EQ(gc[1], 22, "#28.3 ... (21183)");
  EQ(gc[2], 33, "#28.3 ... (21031, the last)");
  EQ(nk[1], 2, "#28.3 both live processes");
  int ia = pk[0] == a ? 0 : 1, ib = 1 - ia;
  EQ(pk[ia], a, "#28.3 keys are the slots");
  EQ(pk[ib], b, "#28.3 ... of each process");
  EQ(pc[(size_t)ib * rw[1] + 0], 9, "#28.3 a process's own cell (25047 of b), paired by slot");
  EQ(pc[(size_t)ia * rw[1] + 0], 5, "#28.3 ... and a's");
  EQ(pc[(size_t)ib * rw[1] + rw[1] - 1], 4, "#28.3 the last item after the class counter's cells (25167)");
  EQ(pc[(size_t)ia * rw[1] + rw[1] - 1], 0, "#28.3 ... a's own (none added)");
  {   /* the class counter's cells, word for word as the store holds them (through the public view) */
    const mi_host_view *hv = (const mi_host_view *)(const void *)sys;
    const int64_t *pcell = hv->base + hv->lane[MI_DOM_PROCESS].cells;
    int32_t cw = mi_query_raw_words(q[1], 2), coff = hv->off[mi_host_counter(25202).id], stride = hv->lane[MI_DOM_PROCESS].stride;
    int same = 1;
    int64_t csum[2] = {0, 0};
    for (int w = 0; w < cw; w++) {
      same &= pc[(size_t)ib * rw[1] + 1 + w] == pcell[(size_t)b * stride + coff + w];
      csum[0] += pc[(size_t)ia * rw[1] + 1 + w];
      csum[1] += pc[(size_t)ib * rw[1] + 1 + w];
    }
    CHECK(coff >= 0 && same, "#28.3 the class counter's cells of b, word for word the store's");
    EQ(csum[1], 6 + 2, "#28.3 ... as added to its classes");
    EQ(csum[0], 0, "#28.3 ... and a's, untouched");
  }
  EQ(v.present[a], 1, "#28.3 the view: a alive");
  EQ(v.proc[b].pid, 702, "#28.3 the view: b's pid");
  CHECK(memcmp(v.proc[b].program, "RAWPROG", 7) == 0, "#28.3 the view: b's program as the store keeps it");
  EQ(v.now, mi_host_now(sys), "#28.3 the view: the store's time");

  /* a death is reported by the first read after it, then the slot is released for this user */
  mi_host_proc_exit(sys, a);
  EQ(mi_query_raw_read(s, &v, q, 2, cells, keys, nk), 0, "#28.3 a raw read after a death");
  EQ(nk[1], 2, "#28.3 the dead process is read once more");
  EQ(v.present[a], 2, "#28.3 ... marked dead and reported now");
  EQ(pc[(size_t)(pk[0] == a ? 0 : 1) * rw[1]], 5, "#28.3 ... with its frozen cells");
  EQ(mi_query_raw_read(s, &v, q, 2, cells, keys, nk), 0, "#28.3 the next raw read");
  EQ(nk[1], 1, "#28.3 a reported death is not read again");
  EQ(v.present[a], 0, "#28.3 ... nor in the view");

  /* what is refused */
  EQ(mi_query_raw_read(NULL, &v, q, 2, cells, keys, nk), MI_E_BAD_POINTER, "#28.3 no session: bad pointer");
  int64_t *nocells[MI_DOM_COUNT] = {gc, NULL};
  EQ(mi_query_raw_read(s, &v, q, 2, nocells, keys, nk), MI_E_BAD_POINTER, "#28.3 a query without a cell array: bad pointer");
  mi_session *s2 = mi_session_new(sys);
  EQ(mi_query_raw_read(s2, &v, q, 2, cells, keys, nk), MI_E_BAD_POINTER, "#28.3 another session's query: bad pointer");
  EQ(mi_query_raw_read(s2, NULL, NULL, 0, NULL, NULL, NULL), 0, "#28.3 nothing asked: nothing read");
  EQ(mi_query_item_on(s, 25047), 1, "#28.3 mi_query_item_on: an item s turned on");
  EQ(mi_query_item_on(s2, 25047), 0, "#28.3 ... not for a session that turned nothing on");
  EQ(mi_query_item_on(s, 20001), 0, "#28.3 ... a pseudo-item is never on");
  mi_session_free(s2);
  for (int k = 0; k < 2; k++) mi_query_free(q[k]);
  mi_session_free(s);
  mi_system_free(sys);
}
