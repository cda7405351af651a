/* fuzz_export.c — #15: the exposition formatter (mi_export_format) over a writer-driven system the
 * input plays: processes with any program names (bytes of the input: quotes, backslashes, newlines,
 * invalid UTF-8), job/session kinds, counter adds and deaths, scraped in between. Checks: every line
 * of both formats is a comment or `name{label="value",...} number` with the escapes the formats
 * allow and valid UTF-8; OpenMetrics ends with "# EOF"; the aggregated pmc_disc_read of each
 * program/kind group is exactly the sum of what the input added to its processes, dead or alive
 * (a group's counter never goes down); the same for each element of a user-defined per-process
 * ACCUM array (#14.2: an `element` label), beside QBUSY pairs whose levels the input sets and
 * user-defined names that clash with other families (each family must appear once). */
#include "fuzz_common.h"
#include "fuzz_keep.h"
#include "mi_export.h"
#include "mi_userdef.h"

/* One system for the whole run; each input's processes get fresh pids and a group name of
 * their own. Each input makes its own exporter and frees it at the end: the input's mallocs and
 * frees balance, so libFuzzer does not rerun it for a leak check with a scan of the heap (28% of
 * the time while exporters lived across inputs and kept each group's totals), its exposition
 * holds its own groups only, and an input means the same thing alone as in a run. The ONs stay
 * cheap because a keeper session turns the same counters on (renewed every RENEW inputs): an
 * input's exporter only adds references (no rows regrown over the 2,700 process slots) and its
 * free leaves them on. The keeper's MIPROCON names one process of its own, which then ends, not
 * every process: a session that follows a process is told of its death, and the store keeps a
 * dead process's slot until each follower has read it, which a keeper never does (its one dead
 * process goes when the keeper does). */
static mi_system *sys;
static mi_session *keeper;
static int64_t next_pid = 100;
static unsigned runs;
#define NEL 4
static mi_udef hist, psrv, gsrv;   /* a per-process ACCUM array, a per-process and a global QBUSY */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  sys = mi_system_new(&(mi_system_options){0});
  mi_udef_install(sys, &(mi_udef_desc){.name = "fz_hist", .kind = MI_UDEF_ACCUM, .elements = NEL, .per_process = 1}, &hist);
  mi_udef_install(sys, &(mi_udef_desc){.name = "fz_srv", .kind = MI_UDEF_QBUSY, .per_process = 1, .help = "a \\ \n help"}, &psrv);
  mi_udef_install(sys, &(mi_udef_desc){.name = "fz_g", .kind = MI_UDEF_QBUSY}, &gsrv);
  mi_udef_install(sys, &(mi_udef_desc){.name = "fz_srv_busy", .kind = MI_UDEF_BUSY, .per_process = 1}, NULL);   /* clashes */
  mi_udef_install(sys, &(mi_udef_desc){.name = "exporter_scrapes", .kind = MI_UDEF_ACCUM}, NULL);
  return 0;
}

/* The items the exporters format (mi_export_options.items): of every domain, one item of each
 * shape the formatter treats apart (kind, time unit, gauge or counter), the renew-th of its
 * shape, so renewals walk through every instrumented item's name and help; plus 25167
 * (pmc_disc_read), whose group sums check_groups checks. The whole catalog's exposition is
 * ~123 KB before any process exists: formatting it 1-3 times per input and turning every
 * process counter on over 2,700 rows at each renewal held the harness near 20 inputs a second. */
static int32_t items[MI_MAX_ITEMS];
static unsigned renewals;

/* Fills items[] for this renewal. */
static void pick_items(void) {
  int n = 0;
  items[n++] = 25167;
  for (int d = 0; d < MI_DOM_COUNT; d++)
    for (int shape = 0; shape < 4 * 2 * 2; shape++) {
      int count = 0, want = -1;
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0, c = mi_item_count(); i < c; i++) {
          const mi_item_info *it = mi_item_at(i);
          if (!it || it->domain != d || it->kind == MI_KIND_PSEUDO || it->instrumented != MI_INST_YES) continue;
          int sh = (int)it->kind % 4 * 4 + (it->unit == MI_UNIT_MI_TIME) * 2 + mi_export_is_gauge(it);
          if (sh != shape) continue;
          if (pass == 0) count++;
          else if (want-- == 0 && it->item != 25167 && n < MI_MAX_ITEMS - 1) items[n++] = it->item;
        }
        if (pass == 0) { if (!count) break; want = (int)(renewals % (unsigned)count); }
      }
    }
  items[n] = 0;
}

/* (Re)makes the keeper every RENEW inputs, with the next items: a renewal turns on the items it
 * picks anew, growing the rows of all 2,700 process slots (a few ms; every 8 inputs that was a
 * third of the time; every 32, a tenth). */
#define RENEW 64
static void renew(void) {
  pick_items();
  renewals++;
  mi_session *old = keeper;   /* freed after: the items both have on stay on (no rows regrown for them) */
  keeper = mi_session_new(sys);
  FZ_CHECK(keeper, "no keeper session");
  mi_session_set_priv(keeper, 1);
  /* what an exporter of items turns on (list_items): the listed items of each domain, 21164
   * (it holds the processor counters), the user-defined counters; no I/O (no_io) */
  int32_t g[MI_MAX_ITEMS], p[MI_MAX_ITEMS], stats[MI_MAX_ITEMS], m = MI_MAP_STANDARD;
  int ng = 0, np = 0;
  g[ng++] = 21164;
  for (int i = 0; items[i]; i++) {
    const mi_item_info *it = mi_item_lookup(items[i]);
    if (it && it->domain == MI_DOM_GLOBAL && items[i] != 21164) g[ng++] = items[i];
    else if (it && it->domain == MI_DOM_PROCESS) p[np++] = items[i];
  }
  for (int i = 0, c = mi_udef_count(sys); i < c; i++) {
    const mi_udef_info *u = mi_udef_at(sys, i);
    if (u && u->item.domain == MI_DOM_GLOBAL) g[ng++] = u->item.item;
    else if (u && u->item.domain == MI_DOM_PROCESS) p[np++] = u->item.item;
  }
  g[ng] = p[np] = 0;
  status_type st;
  mi_globinstall(keeper, &st, 666);
  mi_accesson(keeper, &st, 666);
  mi_globon(keeper, &st, g, stats, &m, 666);
  FZ_CHECK(st.all == 0, "keeper MIGLOBON: %d", mi_status_info(st));
  longint_type pid;
  mi_longint_set(&pid, next_pid);
  int slot = mi_host_proc_create(sys, &(mi_proc_desc){.pid = next_pid++, .program = "KEEPER"});
  mi_procon(keeper, &st, p, stats, &m, &pid, 666);
  FZ_CHECK(slot >= 0 && st.all == 0, "keeper MIPROCON: %d (slot %d)", mi_status_info(st), slot);
  mi_host_proc_exit(sys, slot);
  mi_session_free(old);
}

/* The checks below read every byte of each exposition (about 220 KB: the global and processor
 * families) a few times per input; they are the harness's, not the core's, so they are built
 * without coverage callbacks (one per comparison, most of their time) and feed the fuzzer
 * nothing. ASan still checks their reads. */
#define NOCOV __attribute__((no_sanitize("coverage")))

/* Checks one line of an exposition; returns 1 if it is well formed. */
NOCOV static int line_ok(const char *p, const char *e) {
  if (p < e && *p == '#') return 1;
  const char *s = p;
  if (p >= e || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == ':')) return 0;
  while (p < e && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == ':')) p++;
  if (p - s > 200) return 0;
  if (p < e && *p == '{') {
    p++;
    for (;;) {
      while (p < e && ((*p >= 'a' && *p <= 'z') || *p == '_')) p++;
      if (p + 1 >= e || p[0] != '=' || p[1] != '"') return 0;
      p += 2;
      while (p < e && *p != '"') {
        if (*p == '\\') { if (p + 1 >= e || (p[1] != '\\' && p[1] != '"' && p[1] != 'n')) return 0; p += 2; continue; }
        if ((unsigned char)*p < 0x20) return 0;
        p++;
      }
      if (p >= e) return 0;
      p++;
      if (p < e && *p == ',') { p++; continue; }
      if (p < e && *p == '}') { p++; break; }
      return 0;
    }
  }
  if (p >= e || *p != ' ') return 0;
  p++;
  char *end;
  strtod(p, &end);
  return end == e && end > p;
}

/* Compares two names ending at a blank (qsort). */
NOCOV static int cmp_name(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  for (; *x != ' ' && *x == *y; x++, y++) {}
  return (*x == ' ' ? 0 : (unsigned char)*x) - (*y == ' ' ? 0 : (unsigned char)*y);
}

/* Checks a whole exposition: lines and UTF-8. */
NOCOV static void check_text(const char *t, size_t n, int om) {
  FZ_CHECK(t && strlen(t) == n, "text of %zu bytes", n);
  for (const unsigned char *p = (const unsigned char *)t; *p;) {
    unsigned c = *p;
    int k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4 : 0;
    FZ_CHECK(k > 0, "byte 0x%02x is not UTF-8", c);
    for (int j = 1; j < k; j++) FZ_CHECK((p[j] & 0xC0) == 0x80, "bad UTF-8 continuation");
    p += k;
  }
  for (const char *p = t; *p;) {
    const char *e = strchr(p, '\n');
    FZ_CHECK(e, "an unterminated last line");
    FZ_CHECK(line_ok(p, e), "bad line: %.*s", (int)(e - p), p);
    p = e + 1;
  }
  if (om) FZ_CHECK(n >= 6 && strcmp(t + n - 6, "# EOF\n") == 0, "OpenMetrics without # EOF");
  /* each family once: the TYPE lines' names, sorted, have no neighbours alike (one pass: the
   * sanitizers' strstr measures the whole text at every call) */
  static const char *fams[8192];
  int nf = 0;
  for (const char *p = t; *p && nf < 8192;) {
    if (strncmp(p, "# TYPE ", 7) == 0) fams[nf++] = p + 7;
    const char *e = strchr(p, '\n');
    p = e ? e + 1 : p + strlen(p);
  }
  qsort(fams, (size_t)nf, sizeof *fams, cmp_name);
  for (int i = 1; i < nf; i++) FZ_CHECK(cmp_name(&fams[i - 1], &fams[i]) != 0, "family twice: %.60s", fams[i]);
}

/* Model of a label value as the exposition writes it, escapes left out: a control byte other
 * than newline and any byte not part of a well-formed UTF-8 sequence (overlong 2-byte leads,
 * leads past U+10FFFF, missing continuations) become '?'. out holds 4 bytes per input byte. */
NOCOV static void render_label(const char *in, char *out) {
  const unsigned char *p = (const unsigned char *)in;
  while (*p) {
    unsigned c = *p;
    int len = 0;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3;
    else if (c >= 0xF0 && c <= 0xF4) len = 4;
    int ok = len > 0;
    for (int k = 1; ok && k < len; k++) ok = p[k] >= 0x80 && p[k] <= 0xBF;
    if (!ok || (len == 1 && c < 0x20 && c != '\n')) { *out++ = '?'; p++; continue; }
    memcpy(out, p, (size_t)len);
    out += len; p += len;
  }
  *out = 0;
}

#define NP 8
/* Checks the per-group series of a text exposition t (n bytes): each program/kind group's
 * pmc_disc_read and fz_hist elements are what the input added to its processes. */
NOCOV static void check_groups(const char *t, size_t n, const char *run, char names[][20], const int *kinds,
                               const int64_t *sum, int64_t hsum[][NEL]) {
  /* each group's total is what was added to it (names repeat: sum per distinct program/kind) */
  /* groups are by the label as written: names that differ only in bytes written as '?' are one
   * series (a label set is one series), so the model compares the rendered names */
  static char rn[NP][4 * 20 + 1];
  for (int i = 0; i < NP; i++) render_label(names[i], rn[i]);
  for (int i = 0; i < NP; i++) {
    int64_t want = 0, first = 1;
    for (int j = 0; j < NP; j++) {
      if (strcmp(rn[j], rn[i]) == 0 && kinds[j] == kinds[i]) { want += sum[j]; if (j < i) first = 0; }
    }
    if (!first || !want) continue;
    /* find its series: the escaped name and kind */
    static const char *const kn[3] = {"system", "session", "job"};
    char label[200], *q = label;
    q += sprintf(q, "mish_pmc_disc_read_total{program=\"");
    for (const unsigned char *p = (const unsigned char *)names[i]; *p; p++) {
      if (*p == '\\' || *p == '"') { *q++ = '\\'; *q++ = (char)*p; }
      else if (*p == '\n') { *q++ = '\\'; *q++ = 'n'; }
      else *q++ = (char)*p;   /* bytes the formatter turns into '?' make the lookup miss: skipped below */
    }
    q += sprintf(q, ".%s\",kind=\"%s\"} ", run, kn[kinds[i]]);
    const char *hit = memmem(t, n, label, strlen(label));
    int plain = 1;
    for (const unsigned char *p = (const unsigned char *)names[i]; *p; p++) plain &= *p >= 0x20 && *p < 0x7F;
    if (!plain) continue;
    FZ_CHECK(hit, "no series %s", label);
    FZ_CHECK(strtoll(hit + strlen(label), NULL, 10) == want, "group %s: %s, want %lld", label, hit + strlen(label),
             (long long)want);
  }
  /* each element of fz_hist per group (plain names only): the sum of what was added, its series
   * present once nonzero */
  for (int i = 0; i < NP; i++) {
    int first = 1, plain = 1;
    for (int j = 0; j < i; j++) if (strcmp(rn[j], rn[i]) == 0 && kinds[j] == kinds[i]) first = 0;
    for (const unsigned char *p = (const unsigned char *)names[i]; *p; p++) plain &= *p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\';
    if (!first || !plain) continue;
    static const char *const kn2[3] = {"system", "session", "job"};
    for (int e = 0; e < NEL; e++) {
      int64_t want = 0;
      for (int j = 0; j < NP; j++) if (strcmp(rn[j], rn[i]) == 0 && kinds[j] == kinds[i]) want += hsum[j][e];   /* one series per rendered label */
      if (!want) continue;
      char label[200];
      snprintf(label, sizeof label, "mish_fz_hist_total{program=\"%s.%s\",kind=\"%s\",element=\"%d\"} ", names[i], run, kn2[kinds[i]], e);
      const char *hit = memmem(t, n, label, strlen(label));
      FZ_CHECK(hit, "no series %s", label);
      FZ_CHECK(strtoll(hit + strlen(label), NULL, 10) == want, "element %s: %s, want %lld", label, hit + strlen(label), (long long)want);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  if (runs % RENEW == 0) renew();
  FZ_CHECK(sys && keeper, "no keeper");
  int which = fz_range(&in, 0, 1);   /* aggregates only, or per-PID series for 2 processes */
  char err[160] = "";
  mi_export *x = mi_export_new(sys, &(mi_export_options){.pids = 2 * which, .no_io = 1, .items = items}, err, sizeof err);
  FZ_CHECK(x, "no exporter: %s", err);
  char run[16];
  snprintf(run, sizeof run, "R%u", runs++);
  FZ_CHECK(mi_export_scrape(x) == 0, "scrape failed");   /* a first scrape with no process of its own yet */
  int scrapes = 0;
  mi_ctr rd = mi_host_counter(25167);
  char names[NP][20];
  int kinds[NP], slot[NP];
  int64_t sum[NP] = {0};   /* what was added to the processes of program/kind i */
  int64_t hsum[NP][NEL] = {{0}};   /* ... to each element of their fz_hist */
  for (int i = 0; i < NP; i++) {
    int l = fz_range(&in, 1, 16);
    for (int k = 0; k < l; k++) names[i][k] = (char)(fz_u8(&in) | 1);   /* no NUL inside */
    names[i][l] = 0;
    kinds[i] = fz_range(&in, 0, 2);
    slot[i] = -1;
  }
  while (in.n) {
    int op = fz_range(&in, 0, 6), i = fz_range(&in, 0, NP - 1);
    if (op == 0 && slot[i] < 0) {
      mi_proc_desc d = {.pid = next_pid++, .program = names[i], .program_group = run, .js_type = kinds[i], .js_num = kinds[i] ? i + 1 : 0,
                        .proc_type = kinds[i] ? MI_PT_USER : MI_PT_SYSTEM};
      slot[i] = mi_host_proc_create(sys, &d);
    } else if (op == 1 && slot[i] >= 0) {
      int64_t v = fz_range(&in, 0, 1000000);
      mi_host_add(sys, rd, slot[i], v);
      sum[i] += v;
    } else if (op == 2 && slot[i] >= 0) {
      /* a dead process's totals stay in its group: nothing to undo */
      mi_host_proc_exit(sys, slot[i]);
      slot[i] = -1;
    } else if (op == 4 && slot[i] >= 0) {
      int e = fz_range(&in, 0, NEL - 1);
      int64_t v = fz_range(&in, 0, 1000);
      mi_udef_add_at(sys, hist, slot[i], e, v);
      hsum[i][e] += v;
    } else if (op == 5) {   /* levels and time: the QBUSY pairs (values not checked, only the form) */
      int lv = fz_range(&in, 0, 9);
      if (slot[i] >= 0) mi_udef_set(sys, psrv, slot[i], lv);
      mi_udef_set(sys, gsrv, 0, lv);
    } else if (op == 6) {
      mi_host_advance(sys, fz_range(&in, 0, 100000));
    } else if (op == 3 && scrapes++ < 2) {
      FZ_CHECK(mi_export_scrape(x) == 0, "scrape failed");
      size_t n;
      const char *t = mi_export_format(x, MI_EXPORT_OPENMETRICS, &n);
      check_text(t, n, 1);
    }
  }
  FZ_CHECK(mi_export_scrape(x) == 0, "scrape failed");
  size_t n;
  const char *t = mi_export_format(x, MI_EXPORT_TEXT, &n);
  check_text(t, n, 0);
  check_groups(t, n, run, names, kinds, sum, hsum);
  for (int i = 0; i < NP; i++) if (slot[i] >= 0) mi_host_proc_exit(sys, slot[i]);   /* the next input starts clean */
  mi_export_free(x);
  return 0;
}
