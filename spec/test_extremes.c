/* test_extremes.c — the read path's arithmetic on cells at the ends of int64 (an attached store's
 * cells are whatever its file holds; the attach fuzz campaign found the fold's sum overflowing):
 * MI_Time rounding of negative values down to INT64_MIN, and class folding that wraps modulo 2^64
 * instead of overflowing. Included by test_core.c (its CHECK/EQ and new_sys). */

/* mi_round_div: floor division for every sign, INT64_MIN included (no overflow under UBSan). */
static void test_extremes_round(void) {
  mi_round r3 = {3, 0, 0}, r1 = {1, 0, 0}, r2 = {2, 0, 0};
  EQ(mi_round_div(&r3, -1), -1, "rounding -1 tick at 3 per MI_Time: -1 (floor)");
  EQ(mi_round_div(&r3, -3), -1, "-3 at 3: -1");
  EQ(mi_round_div(&r3, -4), -2, "-4 at 3: -2 (floor)");
  CHECK(mi_round_div(&r1, INT64_MIN) == INT64_MIN, "INT64_MIN at 1: itself, not an overflow");
  CHECK(mi_round_div(&r2, INT64_MIN) == INT64_MIN / 2, "INT64_MIN at 2: half of it");
}

/* A folded class counter whose cells sum past INT64_MAX reads the sum modulo 2^64 (the store's own
 * wrap): two large classes in different small classes but one standard class, each INT64_MAX,
 * read at the standard mapping: -2 in the 32-bit view. */
static void test_extremes_fold(void) {
  int k1 = -1, k2 = -1;
  for (int a = 0; a < MI_NLARGE && k2 < 0; a++)
    for (int b = a + 1; b < MI_NLARGE; b++)
      if (mi_fold_[0][2][a] == mi_fold_[0][2][b] && mi_fold_[0][1][a] != mi_fold_[0][1][b]) { k1 = a; k2 = b; break; }
  CHECK(k2 > 0, "two large classes of one standard class in different small ones");
  if (k2 < 0) return;
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t items[] = {21254, 0}, stats[2], map = 0;   /* gmc_page_flt_count_objcl_ at the large mapping */
  mi_globon(s, &st, items, stats, &map, 0);
  EQ(st.all, 0, "ON of an object-class counter");
  mi_ctr pf = mi_host_counter(21254);
  mi_host_add_objcl(sys, pf, 0, k1, INT64_MAX);
  mi_host_add_objcl(sys, pf, 0, k2, INT64_MAX);
  int32_t buf[16] = {0};
  mi_globget(s, &st, items, buf, stats, sizeof buf, 2, 0);
  EQ(st.all, 0, "a GET folding two INT64_MAX cells succeeds");
  EQ(buf[mi_fold_[0][2][k1]], -2, "their sum wraps modulo 2^64 (no signed overflow): -2 in 32 bits");
  mi_session_free(s);
  mi_system_free(sys);
}

static void test_extremes(void) {
  test_extremes_round();
  test_extremes_fold();
}
