/* test_changed.c — read-active CHANGED (#14): the model, time-varying items, an attached writer.
 * Part of spec/test_core.c (#included there: one program, its helpers and statics shared; included
 * in order of definition). */

/* #14 read-active CHANGED copies a record instead of gathering it only when nobody wrote its
 * row since: a random history of writes (some that leave the record as it was), sets to the
 * same value, births, deaths, a slot reused, another user's ON/OFF moving the rows and a new
 * rounding factor; after each step a CHANGED iteration (7-record calls, or one call for all)
 * must return exactly
 * what a MIPROCGET of another user returns, flagged changed exactly when the record differs
 * from the one this caller was last given for that process. */
typedef struct chg_rec { longint_type pid; int32_t state, time, c0, c1; } chg_rec;
static uint64_t chg_seed = 0x9E3779B97F4A7C15ull;
static uint32_t chg_rnd(void) {
  chg_seed ^= chg_seed >> 12; chg_seed ^= chg_seed << 25; chg_seed ^= chg_seed >> 27;
  return (uint32_t)((chg_seed * 2685821657736338717ull) >> 32);
}
/* The setup of the random-history model checks (here and test_watch.c): two more privileged,
 * authorized sessions *ref and *other on sys, np processes (slot_of[pid]; pids 1..np, *npid the
 * last), and items turned on for s and *ref. */
static void model_setup(mi_system *sys, mi_session *s, mi_session **ref, mi_session **other, int32_t *items,
                        int np, int *slot_of, int maxpid, int *npid) {
  status_type st;
  int32_t stats[16], map = 1;
  *ref = mi_session_new(sys); *other = mi_session_new(sys);
  mi_session_set_priv(*ref, 1); mi_session_set_priv(*other, 1);
  mi_accesson(*ref, &st, 666); mi_accesson(*other, &st, 666);
  for (int i = 0; i < maxpid; i++) slot_of[i] = -1;
  for (*npid = 0; *npid < np;) {
    mi_proc_desc d = i14_proc(++*npid, "P", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
    slot_of[*npid] = mi_host_proc_create(sys, &d);
  }
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  mi_procon(*ref, &st, items, stats, &map, NULL, 0);
}

static void test_i14_changed_model(void) {
  mi_session *s, *ref, *other; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {20001, 20002, 25047, 25000, 25001, 0}, more[] = {25002, 25003, 25004, 0}, stats[8], map = 1;
  enum { NP = 300, MAXPID = 4000 };
  static chg_rec last[MAXPID];
  static int have[MAXPID];
  memset(have, 0, sizeof have);
  int slot_of[MAXPID], npid;
  model_setup(sys, s, &ref, &other, items, NP, slot_of, MAXPID, &npid);
  mi_ctr t = mi_host_counter(25047), c0 = mi_host_counter(25000), c1 = mi_host_counter(25001), c2 = mi_host_counter(25002);
  int bad_rec = 0, bad_flag = 0, bad_count = 0, kept_ok = 0, steps = 0, on = 0, changed_total = 0;
  static chg_rec got[MAXPID], rbuf[NP * 2];
  static int gotn[MAXPID];
  for (int step = 0; step < 120; step++, steps++) {
    int nops = (int)(chg_rnd() % 6);
    for (int k = 0; k < nops; k++) {
      int pid = 1 + (int)(chg_rnd() % (uint32_t)npid), sl = slot_of[pid];
      switch (chg_rnd() % 9) {
      case 0: if (sl >= 0) mi_host_add(sys, t, sl, 8000 * (int64_t)(1 + chg_rnd() % 3)); break;
      case 1: if (sl >= 0) mi_host_add(sys, t, sl, 1); break;                      /* below one MI_Time unit */
      case 2: if (sl >= 0) mi_host_add(sys, c0, sl, 1); break;
      case 3: if (sl >= 0) mi_host_set(sys, c1, sl, mi_host_value(sys, c1, sl)); break;   /* the same value */
      case 4: if (sl >= 0) mi_host_set(sys, c1, sl, (int64_t)(chg_rnd() % 4)); break;
      case 5: if (sl >= 0) mi_host_add(sys, c2, sl, 5); break;                      /* an item this caller does not read */
      case 6: if (sl >= 0) { mi_host_proc_exit(sys, sl); slot_of[pid] = -1; }     /* its slot may be reused below */
              if (npid + 1 < MAXPID) { mi_proc_desc d = i14_proc(++npid, "P", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
                                       slot_of[npid] = mi_host_proc_create(sys, &d); }
              break;
      case 7: if (on) mi_procoff(other, &st, NULL, 0); else mi_procon(other, &st, more, stats, &map, NULL, 0);
              on = !on; break;
      default: if (chg_rnd() % 4 == 0) mi_host_config_set(sys, 3042, chg_rnd() % 2 ? 1000 : 8000); break;
      }
    }
    /* the CHANGED iteration, 7 records a call */
    memset(gotn, 0, sizeof gotn);
    longint_type ctx; mi_longint_set(&ctx, 0);
    int calls = 0, flagsum = 0;
    int fit = step % 2 ? NP * 2 : 7;   /* 7 records a call, or all in one */
    do {
      static chg_rec b[NP * 2]; static int32_t fl[NP * 2]; int32_t n = 0;
      mi_readactive(s, &st, items, b, stats, (int32_t)(fit * sizeof b[0]), 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, fl, &ctx, 0);
      if (st.all != 0 && st.all != 20001) { bad_count++; break; }
      for (int r = 0; r < n; r++) {
        int64_t pid = mi_longint_get(&b[r].pid);
        if (pid < 1 || pid >= MAXPID) { bad_rec++; continue; }
        int want = !(have[pid] && memcmp(&last[pid], &b[r], sizeof b[r]) == 0);
        if (fl[r] != want) bad_flag++;
        if (!fl[r] && !want) kept_ok++;
        flagsum += fl[r];
        last[pid] = b[r]; have[pid] = 1; got[pid] = b[r]; gotn[pid]++;
      }
    } while (mi_longint_get(&ctx) != 0 && ++calls < 1000);
    changed_total += flagsum;
    /* the reference: another user's MIPROCGET of the same items now */
    int32_t n = 0;
    mi_procget(ref, &st, items, rbuf, stats, sizeof rbuf, 1, NULL, &n, NULL, 0);
    int seen = 0;
    for (int r = 0; r < n; r++) {
      int64_t pid = mi_longint_get(&rbuf[r].pid);
      if (pid < 1 || pid >= MAXPID || gotn[pid] != 1 || memcmp(&got[pid], &rbuf[r], sizeof rbuf[r])) bad_rec++;
      else seen++;
    }
    for (int p = 1; p < MAXPID; p++) if (gotn[p]) seen--;
    if (seen != 0) { if (bad_count < 3) printf("step %d: ref n %d st %d seen %d calls %d\n", step, n, st.all, seen, calls); bad_count++; }
  }
  EQ(bad_count, 0, "#14.3 CHANGED returns exactly the processes a MIPROCGET returns, step after step");
  EQ(bad_rec, 0, "#14.3 CHANGED's records (copied when unchanged) equal a MIPROCGET's, through writes, births, deaths, ON/OFF and a new rounding");
  EQ(bad_flag, 0, "#14.3 CHANGED flags a record changed exactly when it differs from the last one this caller was given");
  CHECK(kept_ok > 10000 && changed_total > 300, "#14.3 ... over many unchanged and changed records");
  mi_session_free(other); mi_session_free(ref);
  mi_system_free(sys);
}

/* #14.3 a busy counter's value moves with time alone (no write to its row): CHANGED must not
 * copy a stale record of it. */
static void test_i14_changed_time_varying(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  mi_udef b;
  mi_udef_install(sys, &(mi_udef_desc){.name = "p_busy", .kind = MI_UDEF_BUSY, .per_process = 1}, &b);
  int32_t items[] = {20001, b.item, 0}, stats[2], map = 1, n = 0, fl[4];
  struct { longint_type pid; int32_t busy; } r[4];
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  int slot = mi_host_proc_create(sys, &(mi_proc_desc){.pid = 41, .program = "P", .user = "U"});
  mi_host_proc_create(sys, &(mi_proc_desc){.pid = 42, .program = "P", .user = "U"});
  mi_udef_set(sys, b, slot, 1);
  longint_type ctx; mi_longint_set(&ctx, 0);
  mi_readactive(s, &st, items, r, stats, sizeof r, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, fl, &ctx, 0);
  mi_host_advance(sys, 8000 * 100);
  mi_readactive(s, &st, items, r, stats, sizeof r, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, fl, &ctx, 0);
  CHECK(n == 2 && mi_longint_get(&r[0].pid) == 41 && r[0].busy == 800 && fl[0] == 1 && fl[1] == 0,
        "#14.3 CHANGED sees a busy counter grow with time alone (800 MI_Time, flagged changed; the idle one not)");
  mi_system_free(sys);
}

/* #14.3 a per-process counter bumped by another process attached to a shared store marks the
 * row in the segment: the owner's CHANGED read sees exactly that record changed. */
static void test_i14_changed_attached_writer(void) {
  char path[256];
  snprintf(path, sizeof path, "/tmp/mish-test-chg-%d", (int)getpid());
  unlink(path);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.max_cells = 1 << 16, .share = path});
  if (!sys) { CHECK(0, "#14.3 shared store"); return; }
  mi_udef u;
  mi_udef_install(sys, &(mi_udef_desc){.name = "p_orders", .kind = MI_UDEF_ACCUM, .per_process = 1}, &u);
  for (int i = 0; i < 100; i++) mi_host_proc_create(sys, &(mi_proc_desc){.pid = 500 + i, .program = "P", .user = "U"});
  status_type st;
  int32_t items[] = {20001, u.item, 0}, stats[2], map = 1, n = 0, fl[128];
  struct { longint_type pid; int32_t v; } r[128];
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  longint_type ctx; mi_longint_set(&ctx, 0);
  mi_readactive(s, &st, items, r, stats, sizeof r, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, fl, &ctx, 0);
  pid_t kid = fork();
  if (kid == 0) {
    int err = 0;
    mi_system *a = attach_t(path, &err);
    if (!a) _exit(10);
    const mi_udef_info *o = mi_udef_find(a, "p_orders");
    if (!o) _exit(11);
    mi_host_begin(a);
    mi_udef_add(a, o->handle, mi_host_proc_slot(a, 542), 3);
    mi_host_publish(a);
    mi_system_free(a);
    _exit(0);
  }
  int ws = 0;
  waitpid(kid, &ws, 0);
  EQ(WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, 0, "#14.3 the attached writer ran");
  mi_readactive(s, &st, items, r, stats, sizeof r, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, fl, &ctx, 0);
  int changed = 0, right = 0;
  for (int i = 0; i < n; i++) {
    changed += fl[i];
    if (fl[i] && mi_longint_get(&r[i].pid) == 542 && r[i].v == 3) right = 1;
  }
  CHECK(n == 100 && changed == 1 && right, "#14.3 CHANGED sees the one record another process wrote through the shared store");
  mi_system_free(sys);
  unlink(path);
}
