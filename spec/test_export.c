/* test_export.c — the exporter (#15) and wide queries. Part of spec/test_core.c (#included there:
 * one program, its helpers and statics shared; included in order of definition). */

/* ---- #15: the exporter (mi_export.h) ---- */

/* The value of the sample line that starts with series + " " in an exposition, or -1e300. */
/* Scrapes x (checking it succeeds, as what) and returns its exposition in format fmt ("" if none). */
static const char *scrape_as(mi_export *x, int fmt, size_t *n, const char *what) {
  EQ(mi_export_scrape(x), 0, what);
  const char *t = mi_export_format(x, fmt, n);
  return t ? t : "";
}

static double expo_value(const char *text, const char *series) {
  size_t n = strlen(series);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, series, n) == 0 && p[n] == ' ') return strtod(p + n + 1, NULL);
  return -1e300;
}

/* Counts the lines of text that start with prefix. */
static int expo_lines(const char *text, const char *prefix) {
  int c = 0;
  size_t n = strlen(prefix);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) c += strncmp(p, prefix, n) == 0;
  return c;
}

static void test_export(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  char err[160];
  mi_export *x = mi_export_new(sys, &(mi_export_options){.pids = 1}, err, sizeof err);
  CHECK(x != NULL, "#15 an exporter opens on a writer-driven system");
  if (!x) { mi_session_free(s); mi_system_free(sys); return; }
  mi_proc_desc d = {.pid = 100, .program = "EDIT", .program_group = "PUB", .program_account = "SYS", .user = "MGR",
                    .account = "SYS", .js_type = 1, .js_num = 5, .proc_type = MI_PT_USER};
  int a = mi_host_proc_create(sys, &d);
  d.pid = 101; d.js_num = 6;
  int b = mi_host_proc_create(sys, &d);
  d.pid = 102; d.program = "BATCH"; d.js_type = 2; d.js_num = 7;
  int c = mi_host_proc_create(sys, &d);
  mi_ctr rd = mi_host_counter(25167), idle = mi_host_counter(21177), pft = mi_host_counter(21254);
  mi_host_add(sys, rd, a, 10);
  mi_host_add(sys, rd, b, 5);
  mi_host_add(sys, rd, c, 2);
  mi_host_add(sys, idle, 0, 8000 * 1000 + 8000 * 250);   /* 1.25 s in ticks */
  mi_host_add_objcl(sys, pft, 0, 1, 3);
  mi_host_set(sys, mi_host_counter(21092), 0, 4);
  EQ(mi_export_scrape(x), 0, "#15 a scrape reads the system");
  size_t n;
  const char *t = mi_export_format(x, MI_EXPORT_TEXT, &n);
  CHECK(t && n == strlen(t), "#15 the text exposition is a string of the length given");
  if (!t) t = "";
  EQ(expo_value(t, "mish_pmc_disc_read_total{program=\"EDIT.PUB.SYS\",kind=\"session\"}"), 15,
     "#15 processes are aggregated by program and job/session kind");
  EQ(expo_value(t, "mish_pmc_disc_read_total{program=\"BATCH.PUB.SYS\",kind=\"job\"}"), 2, "#15 a job's program is its own group");
  CHECK(expo_value(t, "mish_gmt_idle_seconds_total") == 1.25, "#15 MI_Time counters are _seconds_total, converted with 3042/3043");
  EQ(expo_value(t, "mish_gmc_cur_ready_queue"), 4, "#15 a level item is a gauge without _total");
  EQ(expo_lines(t, "# TYPE mish_gmc_cur_ready_queue gauge"), 1, "#15 a level item's TYPE is gauge");
  char cls[200];
  snprintf(cls, sizeof cls, "mish_gmc_page_flt_count_objcl_total{class=\"%s\"}", mi_objcl_name(MI_MAP_STANDARD, 1));
  EQ(expo_value(t, cls), 3, "#15 an object-class counter is one series per class of the mapping in use");
  EQ(expo_lines(t, "mish_pid_pmc_disc_read_total{"), 1, "#15 per-PID series are capped (pids = 1)");
  EQ(expo_value(t, "mish_exporter_pids_dropped"), 2, "#15 the processes over the cap are counted");
  EQ(expo_lines(t, "# EOF"), 0, "#15 text 0.0.4 has no # EOF");
  EQ(expo_value(t, "mish_exporter_info{source=\"custom\",mapping=\"standard\"}"), 1,
     "#15 the info series names the source and the mapping in use");
  /* a process dies: its group's counter keeps its total (never goes down) */
  mi_host_proc_exit(sys, a);
  mi_host_add(sys, rd, b, 1);
  t = scrape_as(x, MI_EXPORT_OPENMETRICS, &n, "#15 a scrape after a death");
  EQ(expo_value(t, "mish_pmc_disc_read_total{program=\"EDIT.PUB.SYS\",kind=\"session\"}"), 16,
     "#15 a dead process's totals stay in its group's counter");
  CHECK(expo_value(t, "mish_pmc_disc_read_created{program=\"EDIT.PUB.SYS\",kind=\"session\"}") >= 1.7e9,
        "#15 OpenMetrics counters carry _created (seconds since 1970)");
  EQ(expo_lines(t, "# UNIT mish_gmt_idle_seconds seconds"), 1, "#15 OpenMetrics names the unit of MI_Time families");
  EQ(expo_lines(t, "# TYPE mish_gmt_idle_seconds counter"), 1, "#15 OpenMetrics counter families are named without _total");
  CHECK(n >= 6 && strcmp(t + n - 6, "# EOF\n") == 0, "#15 OpenMetrics ends with # EOF");
  EQ(expo_value(t, "mish_exporter_processes"), 2, "#15 the live processes are counted");
  /* a process runs another program (a host exec): the old group keeps what it counted up to
   * the scrape that sees the new program, the new group counts from there; neither goes down */
  EQ(mi_host_proc_identity(sys, b, "VI", "PUB", "SYS", -1), 0, "#14 a live process takes another program");
  EQ(mi_export_scrape(x), 0, "#15 a scrape after an exec");
  mi_host_add(sys, rd, b, 4);
  t = scrape_as(x, MI_EXPORT_TEXT, &n, "#15 and another");
  EQ(expo_value(t, "mish_pmc_disc_read_total{program=\"EDIT.PUB.SYS\",kind=\"session\"}"), 16,
     "#15 after an exec the old program's counter keeps its total (does not go down)");
  EQ(expo_value(t, "mish_pmc_disc_read_total{program=\"VI.PUB.SYS\",kind=\"session\"}"), 4,
     "#15 ... and the new program's counts what the process did since");
  /* the catalog rules */
  EQ(mi_export_is_gauge(mi_item_lookup(21092)), 1, "#15 gmc_cur_ready_queue is a level");
  EQ(mi_export_is_gauge(mi_item_lookup(21093)), 1, "#15 gmc_max_ready_queue is a level");
  EQ(mi_export_is_gauge(mi_item_lookup(25050)), 0, "pmc_process_priority counts priority adjustments (the manual's sentence)");
  EQ(mi_export_is_gauge(mi_item_lookup(21233)), 0, "gmc_stop_priority_preemption counts stops");
  EQ(mi_export_is_gauge(mi_item_lookup(21307)), 0, "gmc_mem_pressure counts events");
  EQ(mi_export_is_gauge(mi_item_lookup(21566)), 0, "gmc_sl_num_checkpoints counts checkpoints");
  EQ(mi_export_is_gauge(mi_item_lookup(21339)), 1, "gmc_sm_lru_depth is a level (no cur/max in its name)");
  EQ(mi_export_is_gauge(mi_item_lookup(21338)), 1, "gmc_sm_hash_depth is a watermark");
  EQ(mi_item_lookup(21338)->reading, MI_READ_WATERMARK, "the catalog's reading column reaches C");
  EQ(mi_item_lookup(21092)->reading, MI_READ_LEVEL, "... a level");
  EQ(mi_item_lookup(21177)->reading, MI_READ_TOTAL, "... a total");
  CHECK(strcmp(mi_reading_name(MI_READ_WATERMARK), "watermark") == 0 && strcmp(mi_reading_name(9), "?") == 0, "mi_reading_name");
  EQ(mi_export_is_gauge(mi_item_lookup(21032)), 0, "#15 gmc_think_under_min_threshold counts");
  EQ(mi_export_is_gauge(mi_item_lookup(21177)), 0, "#15 gmt_idle counts");
  CHECK(strcmp(mi_export_help(mi_item_lookup(21177)), mi_item_description(21177)) == 0, "#15 #16.7 HELP is the item's description");
  mi_export_free(x);
  mi_session_free(s);
  mi_system_free(sys);
  /* content negotiation: OpenMetrics only when asked, never refused */
  EQ(mi_export_negotiate(NULL), MI_EXPORT_TEXT, "#15 no Accept: text 0.0.4");
  EQ(mi_export_negotiate("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"),
     MI_EXPORT_OPENMETRICS, "#15 Prometheus's Accept gets OpenMetrics");
  EQ(mi_export_negotiate("application/openmetrics-text; q=0"), MI_EXPORT_TEXT, "#15 q=0 refuses OpenMetrics");
  EQ(mi_export_negotiate("application/json"), MI_EXPORT_TEXT, "#15 an unknown type gets text, not 406");
  /* the request parser */
  mi_http_req r;
  const char *ok = "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: text/plain\r\nAccept: application/openmetrics-text\r\n\r\n";
  EQ(mi_http_parse(ok, strlen(ok), &r), (long long)strlen(ok), "#15 a request head is parsed to its end");
  {
    char e[128];
    EQ(mi_serve_check_listen("9100", e, sizeof e), 0, "listen: a port alone");
    EQ(mi_serve_check_listen("0.0.0.0:0", e, sizeof e), 0, "listen: host and port 0");
    EQ(mi_serve_check_listen("[::1]:9100", e, sizeof e), 0, "listen: a v6 address in brackets");
    EQ(mi_serve_check_listen("65536", e, sizeof e), -1, "listen: a port past 65535");
    CHECK(strstr(e, "bad port in '65536'") != NULL, "listen: the reason names the address");
    EQ(mi_serve_check_listen("[::1", e, sizeof e), -1, "listen: an unclosed bracket");
    EQ(mi_serve_check_listen("host:", e, sizeof e), -1, "listen: no port");
    EQ(mi_serve_check_listen("x:-1", NULL, 0), -1, "listen: a sign in the port, no room for a reason");
    EQ(mi_serve_check_listen(NULL, e, sizeof e), -1, "listen: NULL address");
  }
  CHECK(strcmp(r.path, "/metrics") == 0 && r.method == 1 && !r.close, "#15 path without the query, GET, keep-alive");
  CHECK(strcmp(r.accept, "text/plain,application/openmetrics-text") == 0, "#15 repeated Accept fields are joined");
  EQ(mi_http_parse(ok, 20, &r), 0, "#15 a partial head needs more bytes");
  EQ(mi_http_parse("GET /metrics HTTP/1.0\r\n\r\n", 25, &r), 25, "#15 HTTP/1.0");
  EQ(r.close, 1, "#15 HTTP/1.0 closes by default");
  EQ(mi_http_parse("GET /metrics HTTP/2.0\r\n\r\n", 25, &r), -1, "#15 another version is refused");
  EQ(mi_http_parse("GET metrics HTTP/1.1\r\n\r\n", 24, &r), -1, "#15 a target not starting with / is refused");
  EQ(mi_http_parse("GET /m HTTP/1.1\r\n folded\r\n\r\n", 28, &r), -1, "#15 obs-fold is refused");
  EQ(mi_http_parse("GET /m HTTP/1.1\r\nA: b\x01\r\n\r\n", 26, &r), -1, "#15 a control character in a field is refused");
  EQ(mi_http_parse("GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 49, &r), 49, "#27.11 HTTP/1.0 keep-alive");
  CHECK(!r.close && r.http10, "#27.11 HTTP/1.0 keep-alive is kept, and known as 1.0 (the answer says keep-alive)");
  const char *absf = "GET http://127.0.0.1:9100/metrics?x HTTP/1.1\r\n\r\n";
  EQ(mi_http_parse(absf, strlen(absf), &r), (long long)strlen(absf), "#27.11 an absolute-form target is accepted");
  CHECK(strcmp(r.path, "/metrics") == 0, "#27.11 an absolute-form target's path");
  EQ(mi_http_parse("GET HTTPS://h?q HTTP/1.1\r\n\r\n", 28, &r), 28, "#27.11 an absolute-form target without a path");
  CHECK(strcmp(r.path, "/") == 0, "#27.11 an absolute-form target without a path is /");
  EQ(mi_http_parse("GET http:// HTTP/1.1\r\n\r\n", 25, &r), -1, "#27.11 a scheme without an authority is refused");
  EQ(mi_http_parse("\r\n\r\nGET / HTTP/1.1\r\n\r\n", 22, &r), 22, "#27.11 empty lines before the request line are ignored");
  EQ(mi_http_parse("\r\n\n\r\n", 5, &r), 0, "#27.11 empty lines alone: more bytes needed");
  const char *post = "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
  CHECK(mi_http_parse(post, strlen(post), &r) > 0 && r.method == 0 && r.has_body, "#15 a POST with a body is seen as such");
}

/* #15: a wide query reads 64-bit values (MI_Time too) where the manual's 32-bit view wraps. */
static void test_query_wide(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {21000, 21177, 0}, stats[2], map = 2;
  mi_globon(s, &st, items, stats, &map, 0);
  mi_host_add(sys, mi_host_counter(21000), 0, 5000000000LL);
  mi_host_add(sys, mi_host_counter(21177), 0, 3000000000000LL);   /* 3e9 MI_Time units */
  mi_query *q = mi_query_new(s, MI_DOM_GLOBAL, items, 2, MI_MAP_STANDARD);
  int32_t narrow[2];
  EQ(mi_query_run(q, narrow, sizeof narrow, -1, NULL, NULL, 0), 0, "#15 the narrow read");
  EQ(narrow[0], (int32_t)(uint32_t)5000000000ULL, "#15 the manual's view wraps to 32 bits");
  EQ(mi_query_set_wide(q, 1), 0, "#15 a query turns wide");
  EQ(mi_query_record_size(q), 16, "#15 a wide record holds 8 bytes per value");
  int64_t wide[2] = {0, 0};
  EQ(mi_query_run(q, wide, sizeof wide, -1, NULL, NULL, 0), 0, "#15 the wide read");
  EQ(wide[0], 5000000000LL, "#15 a wide query reads the whole 64-bit count");
  EQ(wide[1], 3000000000LL, "#15 a wide query reads MI_Time (ticks / 3042) unwrapped");
  EQ(mi_query_set_wide(NULL, 1), -1, "#15 set_wide of NULL");
  mi_query_free(q);
  mi_session_free(s);
  mi_system_free(sys);
}
