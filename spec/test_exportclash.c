/* test_exportclash.c — the exporter's family-name clashes (core/export/openmetrics.c, fix_clashes)
 * across suffixes: a user-defined counter named like another family's "_created" sample is renamed
 * (fam_clash compares the names' lengths first, each with its suffix). Included by test_core.c. */

/* A user-defined counter "cpu_gmt_idle_seconds_created" would write the family name the processors'
 * counter cpu_gmt_idle_seconds writes as its _created sample: it takes the prefix "udef<item>_". */
static void test_export_clash_suffix(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_udef u;
  EQ(mi_udef_install(sys, &(mi_udef_desc){.name = "cpu_gmt_idle_seconds_created", .kind = MI_UDEF_ACCUM}, &u), 0,
     "a counter named like a processor family's _created sample");
  char err[160];
  mi_export *x = mi_export_new(sys, &(mi_export_options){.no_io = 1}, err, sizeof err);
  CHECK(x != NULL, "an exporter");
  if (!x) { mi_session_free(s); mi_system_free(sys); return; }
  mi_udef_add(sys, u, 0, 3);
  const char *om = scrape_text(x, MI_EXPORT_OPENMETRICS, "the scrape");
  char want[96];
  snprintf(want, sizeof want, "# TYPE mish_udef%d_cpu_gmt_idle_seconds_created counter\n", (int)u.item);
  CHECK(strstr(om, want) != NULL && strstr(om, "# TYPE mish_cpu_gmt_idle_seconds_created counter\n") == NULL,
        "the user-defined family is renamed: its name is the processor family's sample name");
  mi_export_free(x);
  mi_session_free(s);
  mi_system_free(sys);
}
