/* test_export_order.c — the order of an exporter's families with an item list: the catalog's
 * (simple counters first, then arrays), whatever the order of the list, each item once.
 * Included by test_core.c (its CHECK/EQ counters, new_sys). */

/* Copies the "# TYPE" lines of text t into out (at most n bytes): the families in order. */
static void type_lines(const char *t, char *out, size_t n) {
  size_t k = 0;
  for (const char *p = t; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t l = e ? (size_t)(e - p + 1) : strlen(p);
    if (strncmp(p, "# TYPE ", 7) == 0 && k + l < n) { memcpy(out + k, p, l); k += l; }
    p += l;
  }
  out[k] = 0;
}

/* Two exporters, one given {25168, 25167, 21177, 25167} and one {21177, 25167, 25168}, write the
 * same families in the same order, 25167's before 25168's (its catalog place), each once. */
static void test_export_items_order(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  int32_t scrambled[] = {25168, 25167, 21177, 25167, 0}, sorted[] = {21177, 25167, 25168, 0};
  char err[160] = "";
  mi_export *x = mi_export_new(sys, &(mi_export_options){.items = scrambled}, err, sizeof err);
  mi_export *y = mi_export_new(sys, &(mi_export_options){.items = sorted}, err, sizeof err);
  CHECK(x && y, "exporters of a scrambled list with a repeat and of the same list in catalog order open");
  int a = mi_host_proc_create(sys, &(mi_proc_desc){.pid = 300, .program = "EDIT", .js_type = 1, .js_num = 5, .proc_type = MI_PT_USER});
  mi_host_add(sys, mi_host_counter(25167), a, 7);
  mi_host_add(sys, mi_host_counter(25168), a, 3);
  if (x && y) {
    static char tx[16384], ty[16384];
    type_lines(mi_export_format(x, MI_EXPORT_TEXT, NULL), tx, sizeof tx);
    type_lines(mi_export_format(y, MI_EXPORT_TEXT, NULL), ty, sizeof ty);
    CHECK(tx[0] && strcmp(tx, ty) == 0, "the list's order does not change the families' order");
    const char *r = strstr(tx, "# TYPE mish_pmc_disc_read_total "), *w = strstr(tx, "# TYPE mish_pmc_disc_write_total ");
    CHECK(r && w && r < w && !strstr(r + 1, "# TYPE mish_pmc_disc_read_total "), "25167 before 25168 (catalog order), once");
  }
  mi_export_free(x);
  mi_export_free(y);
  mi_session_free(s);
  mi_system_free(sys);
}
