/* test_export_udef.c — the exporter and user-defined counters, every source kind. Part of
 * spec/test_core.c (#included there: one program, its helpers and statics shared; included in order
 * of definition). */

/* Scrapes x (the scrape checked, what names it) and returns its exposition in format f, "" if none. */
static const char *scrape_text(mi_export *x, int f, const char *what) {
  EQ(mi_export_scrape(x), 0, what);
  const char *t = mi_export_format(x, f, NULL);
  return t ? t : "";
}

/* #15 + #14.2 + #16.7: the exporter names user-defined counters and gives every family the
 * catalog's description as HELP */
static void test_export_udef_help(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_udef orders, waiting;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "orders_placed", .kind = MI_UDEF_ACCUM, .help = "orders the shop took"}, &orders), 0, "#15 a counter of the program's own");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "sort_keys", .kind = MI_UDEF_ACCUM, .elements = 4}, NULL), 0, "#15 an array counter");
  mi_udef_install(sys, &(mi_udef_desc){.name = "work_list", .kind = MI_UDEF_QUEUE}, &waiting);
  char err[160];
  mi_export *x = mi_export_new(sys, &(mi_export_options){0}, err, sizeof err);
  CHECK(x != NULL, "#15 an exporter over a system with user-defined counters");
  if (!x) { mi_session_free(s); mi_system_free(sys); return; }
  mi_udef_add(sys, orders, 0, 7);
  const char *t = scrape_text(x, MI_EXPORT_TEXT, "#15 the scrape reads them");
  CHECK(strstr(t, "\nmish_orders_placed_total 7\n") != NULL, "#15 a user-defined ACCUM is exported as a counter with its value");
  CHECK(strstr(t, "# HELP mish_orders_placed_total orders the shop took\n") != NULL, "#15 its help text is its HELP");
  CHECK(strstr(t, "mish_work_list_seconds_total") != NULL, "#15 a QUEUE counter is exported in seconds");
  CHECK(strstr(t, "sort_keys") == NULL, "#14.2 an ACCUM array shows no series while every element is 0 (as class arrays)");
  char help[300];
  snprintf(help, sizeof help, "# HELP mish_gmt_idle_seconds_total %s\n", mi_item_description(21177));
  CHECK(strstr(t, help) != NULL, "#16.7 a built-in family's HELP is the catalog's description");
  mi_export_free(x);
  mi_session_free(s);
  mi_system_free(sys);
}

/* #14.2 a counter a program installs after the exporter started is exported from the next
 * scrape on (the exporter plans again; its counters restart), in the exporter's own session
 * and in a caller's. */
static void test_export_udef_late(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_udef early, late;
  mi_udef_install(sys, &(mi_udef_desc){.name = "early_orders", .kind = MI_UDEF_ACCUM}, &early);
  char err[160];
  mi_export *x = mi_export_new(sys, &(mi_export_options){.pids = 2}, err, sizeof err);
  mi_session *mine = mi_session_new(sys);
  mi_session_set_priv(mine, 1);
  mi_export *y = mi_export_new_on(mine, &(mi_export_options){.mapping = "small"}, err, sizeof err);
  CHECK(x && y, "#14.2 two exporters");
  if (!x || !y) { mi_export_free(x); mi_export_free(y); mi_session_free(mine); mi_session_free(s); mi_system_free(sys); return; }
  mi_udef_add(sys, early, 0, 2);
  EQ(mi_export_scrape(x), 0, "#14.2 a scrape");
  EQ(mi_export_scrape(y), 0, "#14.2 a scrape in a caller's session");
  const char *t = mi_export_format(x, MI_EXPORT_TEXT, NULL);
  CHECK(t && strstr(t, "\nmish_early_orders_total 2\n") && !strstr(t, "late_orders"), "#14.2 before: the early counter only");
  mi_udef_install(sys, &(mi_udef_desc){.name = "late_orders", .kind = MI_UDEF_ACCUM, .help = "installed later"}, &late);
  mi_udef_add(sys, late, 0, 5);   /* nobody counts it yet: lost, as any add to a counter not on */
  EQ(mi_export_scrape(x), 0, "#14.2 the scrape after an install plans again");
  mi_udef_add(sys, late, 0, 4);
  mi_udef_add(sys, early, 0, 1);
  EQ(mi_export_scrape(x), 0, "#14.2 and scrapes");
  EQ(mi_export_scrape(y), 0, "#14.2 the caller's session's exporter plans again too");
  t = mi_export_format(x, MI_EXPORT_TEXT, NULL);
  CHECK(t && strstr(t, "# HELP mish_late_orders_total installed later\n") && strstr(t, "\nmish_late_orders_total 4\n"),
        "#14.2 the counter installed after the exporter started is exported with its help and value");
  CHECK(t && strstr(t, "\nmish_early_orders_total 3\n"), "#14.2 a counter another user kept on goes on through the new plan");
  CHECK(t && strstr(t, "mish_exporter_scrapes_total 3\n"), "#14.2 the scrape count goes on");
  t = mi_export_format(y, MI_EXPORT_TEXT, NULL);
  CHECK(t && strstr(t, "\nmish_late_orders_total 4\n") && strstr(t, "mapping=\"standard\""), "#14.2 ... and in the caller's session (the mapping in use wins)");
  mi_export_free(y);
  mi_session_free(mine);
  mi_export_free(x);
  mi_session_free(s);
  mi_system_free(sys);
}

#include "mi_record.h"

/* Returns 1 if no "# TYPE NAME" line of t repeats (each family once). */
static int types_unique(const char *t) {
  for (const char *p = strstr(t, "# TYPE "); p; p = strstr(p + 1, "# TYPE ")) {
    const char *e = strchr(p + 7, ' ');
    if (!e) return 0;
    char line[300];
    snprintf(line, sizeof line, "%.*s ", (int)(e - p), p);
    if (strstr(e, line)) return 0;
  }
  return 1;
}

/* Returns 1 if t has a line beginning with prefix and ending with "suffix\n" (a sample with labels between). */
static int has_sample(const char *t, const char *prefix, const char *suffix) {
  size_t sl = strlen(suffix);
  for (const char *p = t; (p = strstr(p, prefix)); p++) {
    if (p != t && p[-1] != '\n') continue;
    const char *e = strchr(p, '\n');
    if (e && (size_t)(e - p) >= sl && memcmp(e - sl, suffix, sl) == 0) return 1;
  }
  return 0;
}

/* #14.2 leftovers (issue 14/16): ACCUM arrays and QBUSY pairs are exported, with labels; user-defined
 * counters are counters whatever their names; names that clash with another family are made unique */
static void test_export_udef_arrays_qbusy(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_udef keys, srv, ph, psrv, qmax, bytes;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "sort_keys", .kind = MI_UDEF_ACCUM, .elements = 4, .help = "keys sorted by size class"}, &keys), 0, "#14.2 an array counter");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "server", .kind = MI_UDEF_QBUSY, .help = "the order server"}, &srv), 0, "#14.2 a QBUSY counter");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "p_hist", .kind = MI_UDEF_ACCUM, .elements = 3, .per_process = 1}, &ph), 0, "#14.2 a per-process array");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "p_srv", .kind = MI_UDEF_QBUSY, .per_process = 1}, &psrv), 0, "#14.2 a per-process QBUSY");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "queue_max", .kind = MI_UDEF_ACCUM}, &qmax), 0, "#14.2 a counter named like a level");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "bytes_total", .kind = MI_UDEF_FACCUM}, &bytes), 0, "#14.2 a counter named ..._total");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "server_busy", .kind = MI_UDEF_BUSY}, NULL), 0, "#14.2 a name the QBUSY's half takes");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "cpu_gmt_idle", .kind = MI_UDEF_BUSY}, NULL), 0, "#14.2 a name a processor family takes");
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "exporter_info", .kind = MI_UDEF_ACCUM}, NULL), 0, "#14.2 a name the exporter's own family takes");
  int slot = mi_host_proc_create(sys, &(mi_proc_desc){.pid = 4242, .program = "SORTER", .program_group = "PUB", .js_type = MI_JS_JOB, .js_num = 7, .proc_type = MI_PT_USER});
  CHECK(slot >= 0, "#14.2 a process to count in");
  char err[160];
  mi_export *x = mi_export_new(sys, &(mi_export_options){.pids = 4, .no_io = 1}, err, sizeof err);
  CHECK(x != NULL, "#14.2 an exporter over arrays and QBUSY pairs");
  if (!x) { mi_session_free(s); mi_system_free(sys); return; }
  mi_udef_add_at(sys, keys, 0, 1, 4);
  mi_udef_add_at(sys, keys, 0, 3, 2);
  mi_udef_add_at(sys, ph, slot, 2, 5);
  mi_udef_add(sys, qmax, 0, 3);
  mi_udef_add(sys, bytes, 0, 5);
  mi_udef_set(sys, srv, 0, 2);
  mi_udef_set(sys, psrv, slot, 3);
  mi_host_advance(sys, (int64_t)1000 * 8000);   /* 1 s at level 2 (3 for the process) */
  mi_udef_set(sys, srv, 0, 0);
  mi_udef_set(sys, psrv, slot, 0);
  mi_host_advance(sys, (int64_t)500 * 8000);
  const char *om = scrape_text(x, MI_EXPORT_OPENMETRICS, "#14.2 the scrape reads them");
  CHECK(strstr(om, "# TYPE mish_sort_keys counter\n") && strstr(om, "\nmish_sort_keys_total{element=\"1\"} 4\n") &&
        strstr(om, "\nmish_sort_keys_total{element=\"3\"} 2\n") && !strstr(om, "element=\"0\"") && !strstr(om, "element=\"2\"} 0"),
        "#14.2 an ACCUM array: one counter family, a series per element (0-based) once nonzero");
  CHECK(strstr(om, "# HELP mish_sort_keys keys sorted by size class\n") != NULL, "#14.2 the array's HELP is its help text");
  CHECK(strstr(om, "# TYPE mish_server_busy_seconds counter\n# UNIT mish_server_busy_seconds seconds\n") &&
        strstr(om, "\nmish_server_busy_seconds_total 1\n") && strstr(om, "\nmish_server_queue_seconds_total 2\n"),
        "#14.2 a QBUSY pair: two counter families in seconds, busy 1 s and queue 2 s (level 2 for 1 s)");
  CHECK(strstr(om, "# HELP mish_server_busy_seconds the order server (busy: ") && strstr(om, "# HELP mish_server_queue_seconds the order server (queue: "),
        "#14.2 each half's HELP says which it is");
  CHECK(has_sample(om, "mish_p_hist_total{program=\"SORTER.PUB", ",kind=\"job\",element=\"2\"} 5") &&
        has_sample(om, "mish_pid_p_hist_total{pid=\"4242\"", "element=\"2\"} 5"),
        "#14.2 a per-process array: per program and per PID, an element label after the others");
  CHECK(has_sample(om, "mish_p_srv_busy_seconds_total{program=\"SORTER.PUB", "} 1") &&
        has_sample(om, "mish_p_srv_queue_seconds_total{program=\"SORTER.PUB", "} 3"), "#14.2 a per-process QBUSY pair");
  CHECK(strstr(om, "# TYPE mish_queue_max counter\n") && strstr(om, "\nmish_queue_max_total 3\n"),
        "#14.2 a user-defined counter named like a level (queue_max) is a counter");
  CHECK(strstr(om, "# TYPE mish_bytes counter\n") && strstr(om, "\nmish_bytes_total 5\n") && !strstr(om, "_total_total"),
        "#14.2 a user-defined bytes_total is family mish_bytes, sample mish_bytes_total (no _total_total)");
  CHECK(strstr(om, "# TYPE mish_udef29006_server_busy_seconds counter\n") && strstr(om, "# TYPE mish_udef29007_cpu_gmt_idle_seconds counter\n") &&
        strstr(om, "# TYPE mish_udef29008_exporter_info counter\n") && strstr(om, "# TYPE mish_cpu_gmt_idle_seconds counter\n"),
        "#14.2 user-defined names another family takes get the prefix udef<item>_ (built-ins keep theirs)");
  CHECK(types_unique(om), "#14.2 every family appears once (OpenMetrics)");
  const char *t = mi_export_format(x, MI_EXPORT_TEXT, NULL);
  if (!t) t = "";
  CHECK(strstr(t, "# TYPE mish_bytes_total counter\n") && strstr(t, "\nmish_server_queue_seconds_total 2\n") &&
        strstr(t, "\nmish_sort_keys_total{element=\"1\"} 4\n") && types_unique(t), "#14.2 the same in text 0.0.4, each family once");
  mi_export_free(x);
  mi_session_free(s);
  mi_system_free(sys);
}

/* Returns the labels of mish_exporter_info in an exposition of sys (a static buffer), "" if none. */
static const char *info_labels(mi_system *sys) {
  static char out[200];
  out[0] = 0;
  mi_export *x = mi_export_new(sys, &(mi_export_options){.no_processes = 1, .no_io = 1}, NULL, 0);
  const char *t = x ? mi_export_format(x, MI_EXPORT_OPENMETRICS, NULL) : NULL;
  const char *p = t ? strstr(t, "\nmish_exporter_info{") : NULL;
  if (p) { const char *e = strchr(p + 1, '}'); if (e) snprintf(out, sizeof out, "%.*s", (int)(e - p - 20), p + 20); }
  mi_export_free(x);
  return out;
}

static void count_refresh(mi_system *sys, void *arg) { (void)sys; (void)arg; }

/* #14.4 / #15: the exporter's info says what it measures for every kind of system: sim, host,
 * replay, a bare hook, and a store attached to each of them ("attached" and its owner's source) */
static void test_export_source_kinds(void) {
  char path[96], rec[96], err[200];
  snprintf(path, sizeof path, "/tmp/mish-test-xsrc-%d", (int)getpid());
  snprintf(rec, sizeof rec, "/tmp/mish-test-xsrc-%d.mirec", (int)getpid());
  unlink(rec);
  /* a recording to replay: two samples of a virtual-time sim */
  mi_system *sim = mi_system_open("sim:idle", NULL, &(mi_source_args){.virtual_time = 1}, err, sizeof err);
  int32_t items[] = {21177};
  mi_recorder *r = sim ? mi_recorder_open(sim, rec, items, 1, NULL, err, sizeof err) : NULL;
  CHECK(r != NULL, "#15 a recording for the replay case");
  if (r) { mi_sim_advance(sim, 100); mi_recorder_sample(r); mi_recorder_close(r); }
  mi_system_free(sim);
  static const struct { const char *spec, *own, *owner; } k[] = {
    {"sim:idle", "source=\"sim\",mapping", "sim"}, {"host", "source=\"host\",mapping", "host"},
    {"replay", "source=\"replay\",mapping", "replay"}, {NULL, "source=\"custom\",mapping", "custom"}};
  for (int i = 0; i < 4; i++) {
    char spec[200];
    if (k[i].spec && strcmp(k[i].spec, "replay") == 0) snprintf(spec, sizeof spec, "replay:%s", rec);
    else snprintf(spec, sizeof spec, "%s", k[i].spec ? k[i].spec : "");
    unlink(path);
    mi_system_options o = {.share = path};
    mi_system *sys;
    if (k[i].spec) sys = mi_system_open(spec, &o, &(mi_source_args){.virtual_time = 1}, err, sizeof err);
    else if ((sys = mi_system_new(&o))) mi_system_set_source(sys, count_refresh, NULL, NULL);
    char name[400];
    snprintf(name, sizeof name, "#15 a shared %s system opens", k[i].owner);
    CHECK(sys != NULL, name);
    if (!sys) continue;
    const char *own = info_labels(sys);
    snprintf(name, sizeof name, "#15 the exporter of a %s system says %s (no owner_source): %s", k[i].owner, k[i].own, own);
    CHECK(strncmp(own, k[i].own, strlen(k[i].own)) == 0, name);
    int e = 0;
    mi_system *att = attach_t(path, &e);
    snprintf(name, sizeof name, "#15 mi_system_source_name of a store attached to a %s system is \"attached\", its owner's %s", k[i].owner, k[i].owner);
    CHECK(att && strcmp(mi_system_source_name(att), "attached") == 0 && strcmp(mi_system_owner_source(att), k[i].owner) == 0 &&
          strcmp(mi_system_owner_source(sys), k[i].owner) == 0, name);
    char want[120];
    snprintf(want, sizeof want, "source=\"attached\",owner_source=\"%s\",mapping=", k[i].owner);
    const char *got = att ? info_labels(att) : "";
    snprintf(name, sizeof name, "#15 the exporter of a store attached to a %s system says %s: %s", k[i].owner, want, got);
    CHECK(strncmp(got, want, strlen(want)) == 0, name);
    mi_system_free(att);
    mi_system_free(sys);
  }
  unlink(path);
  unlink(rec);
}
