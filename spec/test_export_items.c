/* test_export_items.c — mi_export_options.items: an exporter of chosen catalog items only.
 * Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* An item list exports those items (and the user-defined counters), nothing else; a list with a
 * number the exporter cannot export is refused with the reason. */
static void test_export_items(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  char err[160] = "";
  int32_t items[] = {21177, 25167, 0};
  mi_export *x = mi_export_new(sys, &(mi_export_options){.items = items}, err, sizeof err);
  CHECK(x != NULL, "an exporter of two items opens");
  if (!x) { mi_session_free(s); mi_system_free(sys); return; }
  mi_proc_desc d = {.pid = 300, .program = "EDIT", .program_group = "PUB", .program_account = "SYS", .user = "MGR",
                    .account = "SYS", .js_type = 1, .js_num = 5, .proc_type = MI_PT_USER};
  int a = mi_host_proc_create(sys, &d);
  mi_host_add(sys, mi_host_counter(25167), a, 7);
  mi_host_add(sys, mi_host_counter(21177), 0, 8000);
  EQ(mi_export_scrape(x), 0, "a scrape of two items reads the system");
  size_t n;
  const char *t = mi_export_format(x, MI_EXPORT_TEXT, &n);
  if (!t) t = "";
  CHECK(strstr(t, "mish_pmc_disc_read_total{program=\"EDIT.PUB.SYS\",kind=\"session\"} 7"), "the listed process item, by group");
  CHECK(strstr(t, "idle") != NULL, "the listed global item");
  CHECK(!strstr(t, "mish_pmc_disc_write"), "an item not listed is not exported");
  CHECK(!strstr(t, "mish_ldev_"), "no I/O family when the list has no I/O item");
  mi_export_free(x);
  int32_t bad[][2] = {{20001, 0}, {99999, 0}};
  const char *why[] = {"a pseudo-item", "not in the catalog"};
  for (int k = 0; k < 2; k++) {
    err[0] = 0;
    CHECK(!mi_export_new(sys, &(mi_export_options){.items = bad[k]}, err, sizeof err) && strstr(err, why[k]),
          "an item list with a pseudo-item or an unknown number is refused with the reason");
  }
  int32_t uninst[2] = {0, 0};
  for (int i = 0, c = mi_item_count(); i < c && !uninst[0]; i++) {
    const mi_item_info *it = mi_item_at(i);
    if (it && it->kind != MI_KIND_PSEUDO && it->instrumented != MI_INST_YES) uninst[0] = it->item;
  }
  CHECK(uninst[0] != 0, "the catalog has an item the manual calls not instrumented");
  CHECK(!mi_export_new(sys, &(mi_export_options){.items = uninst}, err, sizeof err) && strstr(err, "not instrumented"),
        "an item nothing measures is refused");
  mi_session_free(s);
  mi_system_free(sys);
}
