/* fuzz_export.c — #15: the exposition formatter (mi_export_format) over a writer-driven system the
 * input plays: processes with any program names (bytes of the input: quotes, backslashes, newlines,
 * invalid UTF-8), job/session kinds, counter adds and deaths, scraped in between. Checks: every line
 * of both formats is a comment or `name{label="value",...} number` with the escapes the formats
 * allow and valid UTF-8; OpenMetrics ends with "# EOF"; the aggregated pmc_disc_read of each
 * program/kind group is exactly the sum of what the input added to its processes, dead or alive
 * (a group's counter never goes down). */
#include "fuzz_common.h"
#include "mi_export.h"

/* One system and exporter for the whole run (turning every process counter on costs about a
 * second); each input's processes get fresh pids and a group name of their own. */
static mi_system *sys;
static mi_export *xs[2];
static int64_t next_pid = 100;
static unsigned runs;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  sys = mi_system_new(&(mi_system_options){0});
  return 0;
}

/* (Re)makes the exporters: every 64 inputs, so their groups stay below the cap. */
static void renew(void) {
  for (int k = 0; k < 2; k++) {
    mi_export_free(xs[k]);
    xs[k] = mi_export_new(sys, &(mi_export_options){.pids = 2 * k, .no_io = 1}, NULL, 0);
  }
}

/* Checks one line of an exposition; returns 1 if it is well formed. */
static int line_ok(const char *p, const char *e) {
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

/* Checks a whole exposition: lines and UTF-8. */
static void check_text(const char *t, size_t n, int om) {
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
}

#define NP 8
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  if (runs % 64 == 0) renew();
  FZ_CHECK(sys && xs[0] && xs[1], "no exporter");
  mi_export *x = xs[fz_range(&in, 0, 1)];
  char run[16];
  snprintf(run, sizeof run, "R%u", runs++);
  for (int k = 0; k < 2; k++) FZ_CHECK(mi_export_scrape(xs[k]) == 0, "scrape failed");   /* earlier deaths reported */
  int scrapes = 0;
  mi_ctr rd = mi_host_counter(25167);
  char names[NP][20];
  int kinds[NP], slot[NP];
  int64_t sum[NP] = {0};   /* what was added to the processes of program/kind i */
  for (int i = 0; i < NP; i++) {
    int l = fz_range(&in, 1, 16);
    for (int k = 0; k < l; k++) names[i][k] = (char)(fz_u8(&in) | 1);   /* no NUL inside */
    names[i][l] = 0;
    kinds[i] = fz_range(&in, 0, 2);
    slot[i] = -1;
  }
  while (in.n) {
    int op = fz_range(&in, 0, 3), i = fz_range(&in, 0, NP - 1);
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
  /* each group's total is what was added to it (names repeat: sum per distinct program/kind) */
  for (int i = 0; i < NP; i++) {
    int64_t want = 0, first = 1;
    for (int j = 0; j < NP; j++) {
      if (strcmp(names[j], names[i]) == 0 && kinds[j] == kinds[i]) { want += sum[j]; if (j < i) first = 0; }
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
    const char *hit = strstr(t, label);
    int plain = 1;
    for (const unsigned char *p = (const unsigned char *)names[i]; *p; p++) plain &= *p >= 0x20 && *p < 0x7F;
    if (!plain) continue;
    FZ_CHECK(hit, "no series %s", label);
    FZ_CHECK(strtoll(hit + strlen(label), NULL, 10) == want, "group %s: %s, want %lld", label, hit + strlen(label),
             (long long)want);
  }
  for (int i = 0; i < NP; i++) if (slot[i] >= 0) mi_host_proc_exit(sys, slot[i]);   /* the next input starts clean */
  return 0;
}
