/* test_select.c — selection and read-active (#14, #30.9). Part of spec/test_core.c (#included
 * there: one program, its helpers and statics shared; included in order of definition). */

/* ---- issue 14: entity selection and read-active ---- */

/* A process description with a full identity. */
static mi_proc_desc i14_proc(int64_t pid, const char *prog, const char *pacct, const char *user, const char *uacct,
                             int js_type, int js_num, int ptype) {
  mi_proc_desc d = {0};
  d.pid = pid; d.program = prog; d.program_group = "PUB"; d.program_account = pacct;
  d.user = user; d.user_group = "PUB"; d.account = uacct; d.js_type = js_type; d.js_num = js_num; d.proc_type = ptype;
  return d;
}

/* A process descriptor (include when type > 0) with a program and user pattern. */
static mi_entity_desc i14_desc(int32_t type, const char *prog, const char *user) {
  mi_entity_desc d;
  mi_sel_init(&d, type);
  snprintf(d.program, sizeof d.program, "%s", prog ? prog : "");
  snprintf(d.user, sizeof d.user, "%s", user ? user : "");
  return d;
}

/* A blank-padded filename_type image. */
static void i14_name(char out[48], const char *a, const char *b, const char *c) {
  memset(out, ' ', 48);
  memcpy(out, a, strlen(a)); memcpy(out + 16, b, strlen(b)); memcpy(out + 32, c, strlen(c));
}

static void test_i14_descriptors(void) {
  const char *field = NULL;
  /* the name matcher's truth table: pattern, FILE, GROUP, ACCOUNT, parts, want */
  static const struct { const char *pat, *f, *g, *a; int parts, want; } t[] = {
    {"*.PUB.PROD", "EDITOR", "PUB", "PROD", 3, 1}, {"*.PUB.PROD", "EDITOR", "PUB", "SYS", 3, 0},
    {"ED?TOR", "EDITOR", "PUB", "SYS", 3, 1}, {"ED?TOR", "EDTOR", "PUB", "SYS", 3, 0},
    {"e*", "EDITOR", "X", "Y", 3, 1}, {"*", "ANY", "", "", 3, 1}, {"CI", "CI", "PUB", "SYS", 3, 1},
    {"CI.*.SYS", "CI", "PUB", "PROD", 3, 0}, {"A*B*C", "AXBYC", "", "", 3, 1}, {"A*B*C", "AXBY", "", "", 3, 0},
    {"?", "AB", "", "", 3, 0}, {"*?", "", "", "", 3, 0}, {"MGR.*", "MGR", "PUB", "PROD", 2, 1},
    {"*.SYS", "OPERATOR", "PUB", "SYS", 2, 1}, {"*.SYS", "OPERATOR", "SYS", "PROD", 2, 0},
    {"python3?11", "python3.11", "", "", 3, 1}, {"python3*", "python3.1", "", "", 3, 1},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char nm[48];
    memset(nm, ' ', 48);
    memcpy(nm, t[i].f, strlen(t[i].f) > 16 ? 16 : strlen(t[i].f));
    memcpy(nm + 16, t[i].g, strlen(t[i].g)); memcpy(nm + 32, t[i].a, strlen(t[i].a));
    char what[128];
    snprintf(what, sizeof what, "#14.1 pattern '%s' against %s.%s.%s", t[i].pat, t[i].f, t[i].g, t[i].a);
    EQ(mi_sel_name_match(t[i].pat, nm, t[i].parts), t[i].want, what);
  }
  /* bad descriptors name the descriptor and field */
  static const struct { const char *field, *prog, *user; int type, len, ptype, lo, hi, dt, jst, jsn; int64_t pid; } bad[] = {
    {"type", "", "", 5, 0, -1, -1, -1, -1, -1, -1, -1}, {"len", "", "", 2, 12, -1, -1, -1, -1, -1, -1, -1},
    {"pid", "", "", 2, 0, -1, -1, -1, -1, -1, -1, 0}, {"program", "A..B", "", 2, 0, -1, -1, -1, -1, -1, -1, -1},
    {"program", "A.B.C.D", "", -2, 0, -1, -1, -1, -1, -1, -1, -1}, {"program", "ABCDEFGHIJKLMNOPQ", "", 2, 0, -1, -1, -1, -1, -1, -1, -1},
    {"program", "A B", "", 2, 0, -1, -1, -1, -1, -1, -1, -1}, {"user", "", "A.B.C", 2, 0, -1, -1, -1, -1, -1, -1, -1},
    {"user", "", ".X", 2, 0, -1, -1, -1, -1, -1, -1, -1}, {"ptype", "", "", 2, 0, 9, -1, -1, -1, -1, -1, -1},
    {"js_type", "", "", 2, 0, -1, -1, -1, -1, 3, -1, -1}, {"js_num", "", "", 2, 0, -1, -1, -1, -1, 0, 5, -1},
    {"js_num", "", "", 2, 0, -1, -1, -1, -1, 1, 16384, -1}, {"ldev", "", "", 2, 0, -1, 1, 2, -1, -1, -1, -1},
    {"ldev", "", "", 3, 0, -1, 5, 2, -1, -1, -1, -1}, {"ldev", "", "", 3, 0, -1, 5, -1, -1, -1, -1, -1},
    {"devtype", "", "", 3, 0, -1, -1, -1, 11, -1, -1, -1}, {"program", "X", "", 3, 0, -1, -1, -1, -1, -1, -1, -1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mi_entity_desc d[2];
    mi_sel_init(&d[0], MI_SEL_PROCESS);
    mi_sel_init(&d[1], bad[i].type);
    if (bad[i].len) d[1].len = bad[i].len;
    snprintf(d[1].program, sizeof d[1].program, "%s", bad[i].prog);
    snprintf(d[1].user, sizeof d[1].user, "%s", bad[i].user);
    d[1].ptype = bad[i].ptype; d[1].ldev_lo = bad[i].lo; d[1].ldev_hi = bad[i].hi; d[1].devtype = bad[i].dt;
    d[1].js_type = bad[i].jst; d[1].js_num = bad[i].jsn; d[1].pid = bad[i].pid;
    int at = -9; const char *why = NULL;
    field = NULL;
    char what[128];
    snprintf(what, sizeof what, "#14.1 bad descriptor %zu is MI_E_BAD_DESCRIPTOR", i);
    EQ(mi_sel_check(d, 2, &at, &field, &why), MI_E_BAD_DESCRIPTOR, what);
    snprintf(what, sizeof what, "#14.1 bad descriptor %zu: field %s named (got %s)", i, bad[i].field, field ? field : "none");
    CHECK(at == 1 && field && strcmp(field, bad[i].field) == 0 && why && *why, what);
  }
  mi_entity_desc tmin; mi_sel_init(&tmin, INT32_MIN);
  field = NULL;
  CHECK(mi_sel_check(&tmin, 1, NULL, &field, NULL) == MI_E_BAD_DESCRIPTOR && field && !strcmp(field, "type"),
        "#14.1 a descriptor type of INT32_MIN is refused without overflowing (fuzz_select)");
  char unterminated[sizeof(mi_entity_desc)];
  mi_entity_desc *u = (mi_entity_desc *)(void *)unterminated;
  mi_sel_init(u, MI_SEL_PROCESS);
  memset(u->program, 'A', sizeof u->program);
  field = NULL;
  CHECK(mi_sel_check(u, 1, NULL, &field, NULL) == MI_E_BAD_DESCRIPTOR && field && !strcmp(field, "program"),
        "#14.1 a pattern not terminated within its field is refused");
  /* include/exclude truth table: includes *.PUB.PROD or user MGR.*, exclude system processes */
  mi_entity_desc sel[3] = {i14_desc(MI_SEL_PROCESS, "*.PUB.PROD", NULL), i14_desc(MI_SEL_PROCESS, NULL, "MGR.*"),
                           i14_desc(-MI_SEL_PROCESS, NULL, NULL)};
  sel[2].ptype = MI_PT_SYSTEM;
  static const struct { const char *prog, *pacct, *user, *uacct; int ptype, want; } tt[] = {
    {"EDITOR", "PROD", "CLERK", "PROD", MI_PT_USER, 1}, {"EDITOR", "SYS", "CLERK", "PROD", MI_PT_USER, 0},
    {"EDITOR", "SYS", "MGR", "SYS", MI_PT_CI, 1}, {"LOAD", "PROD", "OPERATOR", "SYS", MI_PT_SYSTEM, 0},
    {"LOAD", "SYS", "MGR", "SYS", MI_PT_SYSTEM, 0}, {"X", "Y", "Z", "W", MI_PT_SON, 0},
  };
  for (size_t i = 0; i < sizeof tt / sizeof tt[0]; i++) {
    mi_entity_info e = {.type = MI_SEL_PROCESS, .ptype = tt[i].ptype, .pid = 10};
    i14_name(e.program, tt[i].prog, "PUB", tt[i].pacct);
    i14_name(e.user, tt[i].user, "PUB", tt[i].uacct);
    char what[96];
    snprintf(what, sizeof what, "#14.1 include/exclude truth table row %zu", i);
    EQ(mi_sel_match(sel, 3, &e), tt[i].want, what);
  }
  mi_entity_info e = {.type = MI_SEL_PROCESS, .ptype = MI_PT_USER};
  i14_name(e.program, "A", "B", "C"); i14_name(e.user, "D", "E", "F");
  EQ(mi_sel_match(&sel[2], 1, &e), 1, "#14.1 excludes alone select everything else");
  EQ(mi_sel_match(NULL, 0, &e), 1, "#14.1 no descriptor selects everything");
  mi_entity_desc ld; mi_sel_init(&ld, MI_SEL_LDEV); ld.ldev_lo = 1; ld.ldev_hi = 5;
  EQ(mi_sel_match(&ld, 1, &e), 1, "#14.1 LDEV descriptors do not narrow processes");
}

/* The pids MIPROCGET of all returns for s, as a bitmap over pids < 4096 (dead reports too). */
static int i14_pids(mi_session *s, uint8_t *seen) {
  int32_t items[] = {20001, 0}, stats[1], n = 0;
  static longint_type buf[MI_MAX_PROCESSES];
  status_type st;
  memset(seen, 0, 4096);
  mi_procget(s, &st, items, buf, stats, sizeof buf, 1, NULL, &n, NULL, 0);
  for (int i = 0; i < n; i++) { int64_t p = mi_longint_get(&buf[i]); if (p >= 0 && p < 4096) seen[p] = 1; }
  return n;
}

static void test_i14_proconsel(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  mi_proc_desc ds[] = {
    i14_proc(11, "EDITOR", "PROD", "CLERK", "PROD", 1, 5, MI_PT_USER), i14_proc(12, "EDITOR", "SYS", "CLERK", "PROD", 1, 5, MI_PT_USER),
    i14_proc(13, "CI", "SYS", "MGR", "SYS", 1, 6, MI_PT_CI), i14_proc(14, "LOAD", "PROD", "OPERATOR", "SYS", 0, 0, MI_PT_SYSTEM),
    i14_proc(15, "QUERY", "SYS", "JOE", "ACCT", 2, 7, MI_PT_SON),
  };
  for (size_t i = 0; i < 5; i++) mi_host_proc_create(sys, &ds[i]);
  mi_entity_desc sel[3] = {i14_desc(MI_SEL_PROCESS, "*.PUB.PROD", NULL), i14_desc(MI_SEL_PROCESS, NULL, "MGR.*"),
                           i14_desc(-MI_SEL_PROCESS, NULL, NULL)};
  sel[2].ptype = MI_PT_SYSTEM;
  int32_t items[] = {20001, 25047, 0}, stats[2], map = 1;
  mi_entity_desc badd = i14_desc(MI_SEL_PROCESS, "A..B", NULL);
  mi_proconsel(s, &st, items, stats, &map, &badd, 1, 0);
  EQ(INFO(st), MI_E_BAD_DESCRIPTOR, "#14.1 MIPROCONSEL with a bad descriptor");
  EQ(s->u->proc_on, 0, "#14.1 ... enables nothing");
  mi_proconsel(s, &st, items, stats, &map, sel, 3, 0);
  EQ(st.all, 0, "#14.1 MIPROCONSEL");
  uint8_t seen[4096];
  EQ(i14_pids(s, seen), 2, "#14.1 the selection monitors the processes it matches");
  CHECK(seen[11] && seen[13] && !seen[12] && !seen[14] && !seen[15], "#14.1 ... exactly 11 and 13");
  /* processes born later are evaluated too */
  mi_proc_desc later[] = {
    i14_proc(21, "REPORT", "PROD", "CLERK", "PROD", 2, 8, MI_PT_USER), i14_proc(22, "REPORT", "SYS", "CLERK", "PROD", 2, 8, MI_PT_USER),
    i14_proc(23, "SPOOL", "SYS", "MGR", "SYS", 0, 0, MI_PT_SYSTEM), i14_proc(24, "FCOPY", "SYS", "MGR", "ACCT", 1, 9, MI_PT_SON),
  };
  for (size_t i = 0; i < 4; i++) mi_host_proc_create(sys, &later[i]);
  EQ(i14_pids(s, seen), 4, "#14.1 births after the ON are selected as the descriptors say");
  CHECK(seen[21] && seen[24] && !seen[22] && !seen[23], "#14.1 ... 21 (program) and 24 (user) in, 22 out, 23 excluded");
  /* a second selection adds (union); each keeps its own excludes */
  mi_entity_desc js; mi_sel_init(&js, MI_SEL_PROCESS); js.js_type = MI_SEL_JS_JOB; js.js_num = 7;
  mi_proconsel(s, &st, items, stats, &map, &js, 1, 0);
  EQ(st.all, 0, "#14.1 a second MIPROCONSEL");
  EQ(i14_pids(s, seen), 5, "#14.1 ... adds job #J7's process");
  mi_proc_desc j7 = i14_proc(31, "X", "Y", "Z", "W", 2, 7, MI_PT_SYSTEM), j8 = i14_proc(32, "X", "Y", "Z", "W", 2, 8, MI_PT_USER);
  mi_host_proc_create(sys, &j7); mi_host_proc_create(sys, &j8);
  EQ(i14_pids(s, seen), 6, "#14.1 a later birth in #J7 (a system process: the first selection's exclude is its own) is in");
  CHECK(seen[31] && !seen[32], "#14.1 ... #J8's is not");
  /* a different counter set is refused as MIPROCON refuses it */
  int32_t other[] = {25048, 0};
  mi_proconsel(s, &st, other, stats, &map, &js, 1, 0);
  EQ(INFO(st), MI_E_ALREADY_ENABLED, "#14.1 a MIPROCONSEL naming other counters: -20001");
  /* MIPROCOFF of one pid ends the selection: later births are not taken */
  longint_type p11; mi_longint_set(&p11, 11);
  mi_procoff(s, &st, &p11, 0);
  mi_proc_desc l2 = i14_proc(41, "REPORT", "PROD", "CLERK", "PROD", 2, 8, MI_PT_USER);
  mi_host_proc_create(sys, &l2);
  i14_pids(s, seen);
  CHECK(!seen[41] && !seen[11] && seen[13], "#14.1 MIPROCOFF of one pid ends the selection (decision 8)");
  /* plain MIPROCON of all: everything */
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  mi_proc_desc l3 = i14_proc(42, "A", "B", "C", "D", 0, 0, MI_PT_SYSTEM);
  mi_host_proc_create(sys, &l3);
  EQ(i14_pids(s, seen), mi_host_proc_count(sys), "#14.1 MIPROCON of all after a selection monitors everything");
  /* too many descriptors */
  mi_procoff(s, &st, NULL, 0);
  mi_entity_desc many[MI_SEL_MAX];
  for (int i = 0; i < MI_SEL_MAX; i++) many[i] = i14_desc(MI_SEL_PROCESS, "X*", NULL);
  mi_proconsel(s, &st, items, stats, &map, many, MI_SEL_MAX, 0);
  EQ(st.all, 0, "#14.1 MI_SEL_MAX descriptors are kept");
  mi_proconsel(s, &st, items, stats, &map, many, 1, 0);
  EQ(INFO(st), MI_E_SELECTION_FULL, "#14.1 one more: MI_E_SELECTION_FULL");
  mi_entity_desc ldv; mi_sel_init(&ldv, MI_SEL_LDEV);
  mi_proconsel(s, &st, items, stats, &map, &ldv, 1, 0);
  EQ(INFO(st), MI_E_BAD_DESCRIPTOR, "#14.1 an LDEV descriptor in a process selection");
  /* an empty selection is everything, births included */
  mi_procoff(s, &st, NULL, 0);
  mi_proconsel(s, &st, items, stats, &map, NULL, 0, 0);
  EQ(st.all, 0, "#14.1 MIPROCONSEL of no descriptor");
  mi_proc_desc l4 = i14_proc(43, "A", "B", "C", "D", 0, 0, MI_PT_SYSTEM);
  mi_host_proc_create(sys, &l4);
  i14_pids(s, seen);
  CHECK(seen[43] && seen[13], "#14.1 MIPROCONSEL of no descriptor monitors every process, births included");
  mi_system_free(sys);
}

/* Read-active records of items {20001, 20002, 25047}. */
typedef struct i14_rec { longint_type pid; int32_t state, time; } i14_rec;

static void test_i14_readactive_list(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {20001, 20002, 25047, 0}, stats[3], map = 1;
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  static int64_t live[MI_MAX_PROCESSES];   /* pids alive now, by slot (0 none) */
  int64_t next_pid = 1000;
  uint32_t rng = 12345;
  for (int i = 0; i < 300; i++) {
    mi_proc_desc d = i14_proc(next_pid, "P", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
    int slot = mi_host_proc_create(sys, &d);
    if (slot >= 0) { live[slot] = next_pid; mi_host_add(sys, mi_host_counter(25047), slot, 1000LL * (next_pid % 97)); }
    next_pid++;
  }
  static uint8_t seen[8192], alive_at_start[8192], died[8192], dead_told[8192];
  int births = 0, iterations = 0, dup = 0, missed = 0, bad_value = 0, twice_dead = 0;
  i14_rec buf[7];
  int32_t flags[7];
  while (births < 2700) {
    longint_type ctx; mi_longint_set(&ctx, 0);
    memset(seen, 0, sizeof seen); memset(died, 0, sizeof died);
    for (int slot = 0; slot < MI_MAX_PROCESSES; slot++) if (live[slot] && live[slot] < 8192) alive_at_start[live[slot]] = 1;
    int calls = 0;
    do {
      int32_t n = -1;
      mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
      if (st.all != 0) { EQ(INFO(st), 0, "#14.3 read-active LIST under churn"); break; }
      for (int r = 0; r < n; r++) {
        int64_t p = mi_longint_get(&buf[r].pid);
        if (p < 0 || p >= 8192) { bad_value++; continue; }
        if (buf[r].state == 1) { if (dead_told[p]++) twice_dead++; continue; }
        if (seen[p]++) dup++;
        if (buf[r].time != (int32_t)(p % 97)) bad_value++;
      }
      /* churn: 3 deaths and 3 births between calls */
      for (int k = 0; k < 3 && births < 2700; k++) {
        rng = rng * 1103515245u + 12345u;
        int slot = (int)(rng >> 8) % MI_MAX_PROCESSES, tries = 0;
        while (!live[slot] && tries++ < MI_MAX_PROCESSES) slot = (slot + 1) % MI_MAX_PROCESSES;
        if (live[slot]) { if (live[slot] < 8192) died[live[slot]] = 1; mi_host_proc_exit(sys, slot); live[slot] = 0; }
        mi_proc_desc d = i14_proc(next_pid, "P", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
        int ns = mi_host_proc_create(sys, &d);
        if (ns >= 0) { live[ns] = next_pid; mi_host_add(sys, mi_host_counter(25047), ns, 1000LL * (next_pid % 97)); births++; }
        next_pid++;
      }
      calls++;
    } while (mi_longint_get(&ctx) != 0 && calls < 10000);
    for (int64_t p = 0; p < 8192; p++) if (alive_at_start[p] && !died[p] && !seen[p] && !dead_told[p]) missed++;
    memset(alive_at_start, 0, sizeof alive_at_start);
    iterations++;
  }
  CHECK(births >= 2700, "#14.3 2,700 processes were born (and as many died) under the iterations");
  CHECK(iterations >= 10, "#14.3 ... across many iterations of 7-record calls");
  EQ(dup, 0, "#14.3 no entity is returned twice in an iteration");
  EQ(missed, 0, "#14.3 no entity alive throughout an iteration is missed");
  EQ(twice_dead, 0, "#14.3 a death is reported once");
  EQ(bad_value, 0, "#14.3 every record holds its own process's values");
  mi_system_free(sys);
}

/* #30.9: EXACT steps through the matches one call at a time, and a context continues only the
 * iteration it came from: another selection, session or entity type gets -32103. */
static void test_i30_readactive_context(void) {
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {20001, 20002, 25047, 0}, stats[3], map = 1, n = 0;
  i14_rec buf[64];
  for (int i = 0; i < 12; i++) {
    mi_proc_desc d = i14_proc(300 + i, i < 6 ? "EDITOR" : "QUERY", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
    mi_host_proc_create(sys, &d);
  }
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  mi_entity_desc ed = i14_desc(MI_SEL_PROCESS, "EDIT*", NULL), qu = i14_desc(MI_SEL_PROCESS, "QUERY", NULL);
  /* EXACT, one match per call, through all six editors in birth order */
  longint_type ctx; mi_longint_set(&ctx, 0);
  int calls = 0, got = 0, order = 1, ones = 1;
  int64_t last = 0;
  do {
    mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_EXACT, &ed, 1, &n, NULL, &ctx, 0);
    ones &= n == 1;
    if (n == 1) { int64_t p = mi_longint_get(&buf[0].pid); order &= p > last && p < 306; last = p; got++; }
    calls++;
  } while (st.all == 0 && mi_longint_get(&ctx) != 0 && calls < 50);
  CHECK(st.all == 0 && got == 6 && calls == 6 && ones && order, "#30.9 EXACT with its context steps through the 6 matches one call at a time");
  /* a context of the editors' iteration */
  mi_longint_set(&ctx, 0);
  mi_readactive(s, &st, items, buf, stats, 2 * sizeof(i14_rec), 1, MI_SEL_PROCESS, MI_RA_LIST, &ed, 1, &n, NULL, &ctx, 0);
  longint_type keep = ctx;
  CHECK(st.all == 0 && n == 2 && mi_longint_get(&ctx) != 0, "#30.9 a LIST page of 2 leaves a context");
  mi_entity_desc ed2 = i14_desc(MI_SEL_PROCESS, "edit*", NULL);   /* the same selection, another copy */
  mi_readactive(s, &st, items, buf, stats, 2 * sizeof(i14_rec), 1, MI_SEL_PROCESS, MI_RA_LIST, &ed2, 1, &n, NULL, &ctx, 0);
  CHECK(st.all == 0 && n == 2 && mi_longint_get(&buf[0].pid) == 302, "#30.9 the same selection (another copy, any case) continues it");
  ctx = keep;
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, &qu, 1, &n, NULL, &ctx, 0);
  CHECK(INFO(st) == MI_E_BAD_CONTEXT && n == 0, "#30.9 a context from another selection: -32103, nothing read");
  ctx = keep;
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, NULL, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#30.9 a context from a selection, given with none: -32103");
  /* another session of the same user, measuring the same processes */
  mi_session *s2 = mi_session_new(sys);
  mi_session_set_priv(s2, 1);
  mi_accesson(s2, &st, 666);
  mi_procon(s2, &st, items, stats, &map, NULL, 0);
  longint_type c2; mi_longint_set(&c2, 0);
  mi_readactive(s2, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, &ed, 1, &n, NULL, &c2, 0);
  CHECK(st.all == 0 && n == 6, "#30.9 the other session reads the editors itself");
  ctx = keep;
  mi_readactive(s2, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, &ed, 1, &n, NULL, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#30.9 a context from another session: -32103");
  /* another entity type: an LDEV iteration's context given to processes, and back */
  int32_t io[] = {20020, 23000, 0}, iost[2], lbuf[16];
  for (int l = 1; l <= 5; l++) mi_host_set_device(sys, l, 1);
  int32_t all_ldevs = -1;
  mi_ioon(s, &st, io, iost, &map, &all_ldevs, 0);
  longint_type lc; mi_longint_set(&lc, 0);
  mi_readactive(s, &st, io, lbuf, iost, 2 * 2 * 4, 1, MI_SEL_LDEV, MI_RA_LIST, NULL, 0, &n, NULL, &lc, 0);
  CHECK(st.all == 0 && n == 2 && mi_longint_get(&lc) != 0, "#30.9 an LDEV page of 2 leaves a context");
  longint_type lkeep = lc;
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, NULL, &lc, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#30.9 an LDEV context given to a process read: -32103");
  ctx = keep;
  mi_readactive(s, &st, io, lbuf, iost, sizeof lbuf, 1, MI_SEL_LDEV, MI_RA_LIST, NULL, 0, &n, NULL, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#30.9 a process context given to an LDEV read: -32103");
  lc = lkeep;
  mi_readactive(s, &st, io, lbuf, iost, sizeof lbuf, 1, MI_SEL_LDEV, MI_RA_LIST, NULL, 0, &n, NULL, &lc, 0);
  CHECK(st.all == 0 && n >= 3 && lbuf[0] == 3, "#30.9 ... while the LDEV read it came from continues with it");
  mi_longint_set(&ctx, 3);   /* a plain position, as the contexts were before: no call gave it */
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, NULL, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#30.9 a made-up context: -32103");
  mi_session_free(s2);
  mi_system_free(sys);
}

static mi_entity_desc badd_i14;
static void test_i14_readactive_modes(void) {
  badd_i14 = i14_desc(MI_SEL_PROCESS, "..", NULL);
  mi_session *s; mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {20001, 20002, 25047, 0}, stats[3], map = 1, n = 0, flags[64];
  i14_rec buf[64];
  int slots[20];
  for (int i = 0; i < 20; i++) {
    mi_proc_desc d = i14_proc(100 + i, i < 10 ? "EDITOR" : "QUERY", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
    slots[i] = mi_host_proc_create(sys, &d);
  }
  longint_type ctx; mi_longint_set(&ctx, 0);
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_NOT_ENABLED, "#14.3 read-active without MIPROCON: -20013");
  mi_procon(s, &st, items, stats, &map, NULL, 0);
  mi_ctr t = mi_host_counter(25047);
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, flags, &ctx, 0);
  int all1 = 1; for (int r = 0; r < n; r++) all1 &= flags[r] == 1;
  CHECK(st.all == 0 && n == 20 && all1 && mi_longint_get(&ctx) == 0, "#14.3 a first CHANGED read flags every record changed");
  mi_host_add(sys, t, slots[3], 8000); mi_host_add(sys, t, slots[7], 8000); mi_host_add(sys, t, slots[15], 80000);
  mi_host_add(sys, t, slots[16], 1);   /* below one MI_Time unit: the record does not change */
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, flags, &ctx, 0);
  int wrong = 0, changed = 0;
  for (int r = 0; r < n; r++) {
    int64_t p = mi_longint_get(&buf[r].pid);
    int want = p == 103 || p == 107 || p == 115;
    wrong += flags[r] != want; changed += flags[r];
  }
  CHECK(n == 20 && wrong == 0 && changed == 3, "#14.3 CHANGED flags exactly the 3 records that changed");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, flags, &ctx, 0);
  changed = 0; for (int r = 0; r < n; r++) changed += flags[r];
  EQ(changed, 0, "#14.3 ... and none when nothing changed since");
  mi_host_proc_exit(sys, slots[5]);
  mi_proc_desc nd = i14_proc(200, "EDITOR", "PROD", "U", "PROD", 1, 1, MI_PT_USER);
  int ns = mi_host_proc_create(sys, &nd);
  CHECK(ns == slots[5] || ns >= 0, "a birth");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_CHANGED, NULL, 0, &n, flags, &ctx, 0);
  int dead105 = 0, new200 = 0; changed = 0;
  for (int r = 0; r < n; r++) {
    int64_t p = mi_longint_get(&buf[r].pid);
    if (p == 105) dead105 = buf[r].state == 1 && flags[r] == 1;
    if (p == 200) new200 = flags[r] == 1;
    changed += flags[r];
  }
  CHECK(n == 21 && dead105 && new200 && changed == 2, "#14.3 a death (reported once, PID State 1) and a birth are changed records");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
  EQ(n, 20, "#14.3 the death was reported once");
  /* with a selection; EXACT */
  mi_entity_desc ed = i14_desc(MI_SEL_PROCESS, "EDIT*", NULL), ex = i14_desc(-MI_SEL_PROCESS, NULL, NULL);
  ex.pid = 101;
  mi_entity_desc two[2] = {ed, ex};
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, two, 2, &n, flags, &ctx, 0);
  int ok = st.all == 0 && n == 9;   /* 100-109 without 105 (dead) and 101, plus 200 */
  for (int r = 0; r < n; r++) { int64_t p = mi_longint_get(&buf[r].pid); ok &= (p >= 100 && p <= 109 && p != 101 && p != 105) || p == 200; }
  CHECK(ok, "#14.3 read-active narrowed by include/exclude");
  mi_entity_desc one = i14_desc(MI_SEL_PROCESS, NULL, NULL); one.pid = 112;
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_EXACT, &one, 1, &n, flags, &ctx, 0);
  CHECK(st.all == 0 && n == 1 && mi_longint_get(&buf[0].pid) == 112 && mi_longint_get(&ctx) == 0, "#14.3 EXACT returns the one entity");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_EXACT, NULL, 0, &n, flags, &ctx, 0);
  CHECK(st.all == 0 && n == 1 && mi_longint_get(&ctx) != 0, "#14.3 EXACT of many returns the first, and a context to the next (#30.9)");
  mi_longint_set(&ctx, 0);
  /* the context: paging by 3 sees every record once */
  int total = 0, callsn = 0;
  do {
    mi_readactive(s, &st, items, buf, stats, 3 * sizeof(i14_rec), 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, NULL, &ctx, 0);
    total += n; callsn++;
  } while (st.all == 0 && mi_longint_get(&ctx) != 0 && callsn < 100);
  CHECK(total == 20 && callsn == 7, "#14.3 LIST pages of 3 records: 20 records in 7 calls");
  /* bad calls */
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, 7, NULL, 0, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_MODE, "#14.3 an unknown mode");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, 4, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_MODE, "#14.3 an unknown entity type");
  mi_longint_set(&ctx, -2);
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#14.3 a negative context");
  mi_longint_set(&ctx, 1000000);
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_CONTEXT, "#14.3 a context beyond every birth");
  mi_longint_set(&ctx, -1);
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, &ex, 1, &n, flags, &ctx, 0);
  CHECK(st.all == 0 && n == 19, "#14.3 context -1 starts an iteration too");
  mi_readactive(s, &st, items, buf, stats, 4, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_BUFFER_TOO_SMALL, "#14.3 a buffer smaller than one record: -20008");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, &badd_i14, 1, &n, flags, &ctx, 0);
  EQ(INFO(st), MI_E_BAD_DESCRIPTOR, "#14.3 a bad descriptor");
  mi_readactive(s, &st, items, buf, stats, sizeof buf, 1, MI_SEL_PROCESS, MI_RA_LIST, NULL, 0, &n, flags, NULL, 0);
  EQ(INFO(st), MI_E_BAD_POINTER, "#14.3 a NULL context");
  /* LDEVs: MIIOONSEL of a range minus terminals, read by number */
  int32_t io[] = {20020, 23000, 0}, iost[2];
  for (int l = 1; l <= 5; l++) mi_host_set_device(sys, l, 1);
  for (int l = 20; l <= 25; l++) mi_host_set_device(sys, l, 3);
  mi_host_set_device(sys, 7, 2); mi_host_set_device(sys, 40, 1);
  mi_entity_desc r1; mi_sel_init(&r1, MI_SEL_LDEV); r1.ldev_lo = 1; r1.ldev_hi = 30;
  mi_entity_desc xt; mi_sel_init(&xt, -MI_SEL_LDEV); xt.devtype = 3;
  mi_entity_desc lsel[2] = {r1, xt};
  mi_ioonsel(s, &st, io, iost, &map, lsel, 2, 0);
  EQ(st.all, 0, "#14.1 MIIOONSEL of LDEVs 1-30 except terminals");
  int expect = 0;
  for (int l = 1; l <= 30; l++) expect += mi_host_device(sys, l) != 0 && mi_host_device(sys, l) != 3;
  int32_t lbuf[2 * 64], got = 0, lc = 0, order_ok = 1, last = 0;
  mi_longint_set(&ctx, 0);
  do {
    mi_readactive(s, &st, io, lbuf, iost, 2 * 2 * 4, 1, MI_SEL_LDEV, MI_RA_LIST, NULL, 0, &n, NULL, &ctx, 0);
    for (int r = 0; r < n; r++) { order_ok &= lbuf[2 * r] > last && mi_host_device(sys, lbuf[2 * r]) != 3; last = lbuf[2 * r]; }
    got += n; lc++;
  } while (st.all == 0 && mi_longint_get(&ctx) != 0 && lc < 100);
  CHECK(got == expect && expect > 2 && order_ok, "#14.3 read-active of LDEVs pages through the selection in LDEV order");
  mi_ioonsel(s, &st, io, iost, &map, lsel, 2, 0);
  EQ(INFO(st), MI_E_ALREADY_ENABLED, "#14.1 a second MIIOONSEL: -20001");
  mi_system_free(sys);
}
