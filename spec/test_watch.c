/* test_watch.c — a watching process query (mi_query_set_watch) and the exporter's scrape that
 * skips an unchanged process domain (#32: a scrape between the host's process readings copies
 * nothing). Part of spec/test_core.c (#included there: one program, its helpers and statics shared). */

/* #32 a watching query returns, after every step of a random history (most steps doing nothing;
 * writes, sets to the same value, a write to an item it does not read, births, deaths, another
 * session's ON/OFF, a new rounding factor, a rename), exactly what a fresh query of another user
 * returns; and a run after a step that did nothing, following a run with no death to tell,
 * writes nothing at all (a poisoned buffer stays poisoned) and says so. */
static void test_h32_watch_model(void) {
  mi_session *s, *ref, *other; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {20001, 20002, 20004, 25047, 25000, 25001, 0}, more[] = {25002, 25003, 0}, stats[8], map = 1;
  enum { NP = 200, MAXPID = 2000 };
  int slot_of[MAXPID], npid;
  model_setup(sys, s, &ref, &other, items, NP, slot_of, MAXPID, &npid);
  mi_query *w = mi_query_new(s, MI_DOM_PROCESS, items, 6, 1), *r = mi_query_new(ref, MI_DOM_PROCESS, items, 6, 1);
  CHECK(w && r, "#32 the queries open");
  if (!w || !r) { mi_query_free(w); mi_query_free(r); mi_session_free(other); mi_session_free(ref); mi_system_free(sys); return; }
  mi_query_set_wide(w, 1); mi_query_set_wide(r, 1);
  EQ(mi_query_set_watch(w, 1), 0, "#32 a process query watches");
  mi_query *g = mi_query_new(s, MI_DOM_GLOBAL, (int32_t[]){21092, 0}, 1, 1);
  EQ(mi_query_set_watch(g, 1), -1, "#32 only a process query watches");
  mi_query_free(g);
  size_t rec = (size_t)mi_query_record_size(w);   /* pid, state (at 8), program, three int64s */
  EQ(rec, 8 + 4 + 48 + 3 * 8, "#32 a wide record of the watched items");
  mi_ctr t = mi_host_counter(25047), c0 = mi_host_counter(25000), c1 = mi_host_counter(25001), c2 = mi_host_counter(25002);
  static uint64_t wbuf[MAXPID * 12], rbuf[MAXPID * 12], keep[MAXPID * 12];
  int bad = 0, bad_n = 0, bad_poison = 0, bad_flag = 0, kept = 0, gathered = 0, prev_told = 1, on = 0;
  for (int step = 0; step < 400; step++) {
    int nops = chg_rnd() % 3 ? 0 : 1 + (int)(chg_rnd() % 4);
    for (int k = 0; k < nops; k++) {
      int pid = 1 + (int)(chg_rnd() % (uint32_t)npid), sl = slot_of[pid];
      switch (chg_rnd() % 10) {
      case 0: if (sl >= 0) mi_host_add(sys, t, sl, 8000 * (int64_t)(1 + chg_rnd() % 3)); break;
      case 1: if (sl >= 0) mi_host_add(sys, c0, sl, 1); break;
      case 2: if (sl >= 0) mi_host_set(sys, c1, sl, mi_host_value(sys, c1, sl)); break;   /* the same value */
      case 3: if (sl >= 0) mi_host_set(sys, c1, sl, (int64_t)(chg_rnd() % 4)); break;
      case 4: if (sl >= 0) mi_host_add(sys, c2, sl, 5); break;                      /* an item it does not read */
      case 5: if (sl >= 0) { mi_host_proc_exit(sys, sl); slot_of[pid] = -1; }
              if (npid + 1 < MAXPID) { mi_proc_desc d = i14_proc(++npid, "P", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
                                       slot_of[npid] = mi_host_proc_create(sys, &d); }
              break;
      case 6: if (on) mi_procoff(other, &st, NULL, 0); else mi_procon(other, &st, more, stats, &map, NULL, 0);
              on = !on; break;
      case 7: if (sl >= 0) mi_host_proc_identity(sys, sl, chg_rnd() % 2 ? "Q" : "P", "PUB", "PROD", -1); break;
      default: if (chg_rnd() % 4 == 0) mi_host_config_set(sys, 3042, chg_rnd() % 2 ? 1000 : 8000); break;
      }
    }
    int32_t wn = 0, rn = 0;
    int expect_kept = nops == 0 && !prev_told;
    if (expect_kept) { memcpy(keep, wbuf, sizeof wbuf); memset(wbuf, 0xA5, sizeof wbuf); }
    int rc = mi_query_run(w, wbuf, (int32_t)sizeof wbuf, -1, &wn, NULL, 0);
    if (expect_kept) {
      const uint8_t *b = (const uint8_t *)wbuf;
      for (size_t i = 0; i < sizeof wbuf; i++) if (b[i] != 0xA5) { bad_poison++; break; }
      if (!mi_query_unchanged(w)) bad_flag++;
      memcpy(wbuf, keep, sizeof wbuf);
    }
    if (mi_query_unchanged(w)) kept++; else gathered++;
    int rrc = mi_query_run(r, rbuf, (int32_t)sizeof rbuf, -1, &rn, NULL, 0);
    if (rc != rrc || wn != rn) { if (bad_n < 3) printf("step %d: rc %d/%d n %d/%d\n", step, rc, rrc, wn, rn); bad_n++; continue; }
    if (memcmp(wbuf, rbuf, rec * (size_t)wn) != 0) bad++;
    prev_told = 0;
    for (int i = 0; i < wn; i++) {
      int32_t state;
      memcpy(&state, (const uint8_t *)wbuf + (size_t)i * rec + 8, 4);
      prev_told |= state != 0;
    }
  }
  EQ(bad_n, 0, "#32 a watching query returns the status and count a fresh query returns, step after step");
  EQ(bad, 0, "#32 ... and the same records, through writes, births, deaths, renames, ON/OFF and a new rounding");
  EQ(bad_poison, 0, "#32 a run that finds nothing changed writes nothing");
  EQ(bad_flag, 0, "#32 ... and says so (mi_query_unchanged)");
  CHECK(kept > 100 && gathered > 100, "#32 ... over many kept and gathered runs");
  mi_query_free(w); mi_query_free(r);
  mi_session_free(other); mi_session_free(ref);
  mi_system_free(sys);
}

/* #32 an exporter's scrape that finds the process domain unchanged gives the same process
 * series as the scrape before it (the groups' sums are kept, not summed again from nothing),
 * and the next write, birth and death show as before. */
static void test_h32_export_unchanged(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  char err[160];
  mi_export *x = mi_export_new(sys, &(mi_export_options){.pids = 1}, err, sizeof err);
  CHECK(x != NULL, "#32 an exporter opens");
  if (!x) { mi_session_free(s); mi_system_free(sys); return; }
  mi_proc_desc d = {.pid = 100, .program = "EDIT", .program_group = "PUB", .program_account = "SYS", .user = "MGR",
                    .account = "SYS", .js_type = 1, .js_num = 5, .proc_type = MI_PT_USER};
  int a = mi_host_proc_create(sys, &d);
  d.pid = 101;
  int b = mi_host_proc_create(sys, &d);
  mi_ctr rd = mi_host_counter(25167);
  mi_host_add(sys, rd, a, 10);
  mi_host_add(sys, rd, b, 5);
  const char *edit = "mish_pmc_disc_read_total{program=\"EDIT.PUB.SYS\",kind=\"session\"}";
  size_t n;
  const char *t = scrape_as(x, MI_EXPORT_TEXT, &n, "#32 a first scrape");
  EQ(expo_value(t, edit), 15, "#32 the first scrape sums the processes");
  for (int i = 0; i < 3; i++) {
    t = scrape_as(x, MI_EXPORT_TEXT, &n, "#32 a scrape with nothing written");
    EQ(expo_value(t, edit), 15, "#32 a scrape with nothing written keeps the sums");
    EQ(expo_value(t, "mish_exporter_processes"), 2, "#32 ... and the live processes");
    EQ(expo_lines(t, "mish_pid_pmc_disc_read_total{"), 1, "#32 ... and the per-PID series");
  }
  mi_host_add(sys, rd, b, 4);
  t = scrape_as(x, MI_EXPORT_TEXT, &n, "#32 a scrape after a write");
  EQ(expo_value(t, edit), 19, "#32 a write shows at the next scrape");
  mi_host_proc_exit(sys, a);
  t = scrape_as(x, MI_EXPORT_TEXT, &n, "#32 a scrape after a death");
  EQ(expo_value(t, edit), 19, "#32 a dead process's total stays in its group");
  EQ(expo_value(t, "mish_exporter_processes"), 1, "#32 a death shows at the next scrape");
  t = scrape_as(x, MI_EXPORT_TEXT, &n, "#32 a scrape after the death was told");
  EQ(expo_value(t, edit), 19, "#32 ... and stays there after");
  t = scrape_as(x, MI_EXPORT_TEXT, &n, "#32 and one more with nothing written");
  EQ(expo_value(t, edit), 19, "#32 ... through unchanged scrapes");
  EQ(expo_value(t, "mish_exporter_processes"), 1, "#32 ... with the live processes of the last read");
  mi_export_free(x);
  mi_session_free(s);
  mi_system_free(sys);
}
