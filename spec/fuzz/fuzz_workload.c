/* fuzz_workload.c — workload tables (core/mi_sim.h): mi_workload_set with random names and
 * values, then the workload (or, sometimes, a struct with raw random fields) given to
 * mi_sim_new and stepped a little while a session reads it through the AIFs.
 * Checks: mi_workload_set accepts exactly the values inside mi_workload_field's range (whole
 * numbers for integer fields) and changes nothing otherwise; a workload built with it always
 * makes a system; the simulator's per-class arrays add up to their totals; common GET checks. */
#include <math.h>
#include "fuzz_common.h"
#include "mi_sim.h"

#define UID_ARG 666

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  setenv("TZ", "UTC", 1);
  return 0;
}

/* A double: small whole numbers, a field's edges, fractions, or special values. */
static double pick_double(fz_in *in, double lo, double hi) {
  uint8_t k = fz_u8(in);
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e300, -1e300, INFINITY, -INFINITY, NAN, 1e-300,
                                   2147483647.0, 2147483648.0, 4294967296.0, 9007199254740992.0, 9007199254740993.0,
                                   1.8446744073709552e19, 906, 905, 105, 106, 1300, 1301, 600, 601, 2700};
  if (k < 80) return lo + (double)(fz_u16(in) % 64);
  if (k < 120) { double e[] = {lo, hi, lo - 1, hi + 1, nextafter(lo, -INFINITY), nextafter(hi, INFINITY)}; return e[fz_u8(in) % 6]; }
  if (k < 160) return lo + (hi - lo) * (fz_u16(in) / 65535.0);
  if (k < 220) return special[fz_u8(in) % (sizeof special / sizeof special[0])];
  uint64_t bits = fz_u64(in);
  double d; memcpy(&d, &bits, 8);
  return d;
}

/* Field names: the real ones, near misses, junk, NULL. */
static const char *pick_field(fz_in *in, char *buf, int *index) {
  uint8_t k = fz_u8(in);
  int nf = 0;
  while (mi_workload_field(nf, NULL, NULL, NULL, NULL)) nf++;
  *index = -1;
  if (k < 200) { *index = fz_u8(in) % nf; return mi_workload_field(*index, NULL, NULL, NULL, NULL); }
  if (k < 210) return NULL;
  if (k < 230) { snprintf(buf, 40, "%s", mi_workload_field(fz_u8(in) % nf, NULL, NULL, NULL, NULL)); buf[fz_u8(in) % 8] ^= (char)fz_u8(in); return buf; }
  int n = fz_u8(in) % 20;
  for (int i = 0; i < n; i++) buf[i] = (char)(fz_u8(in) | 1);
  buf[n] = 0;
  return buf;
}

/* Checks mi_workload_set against mi_workload_field's description of the field. */
static void set_checked(mi_workload *w, const char *name, int index, double v) {
  if (!w) { FZ_CHECK(mi_workload_set(NULL, name, v) == -1, "mi_workload_set(NULL, ...) did not return -1"); return; }
  mi_workload before = *w;
  int rc = mi_workload_set(w, name, v);
  int known = name && index >= 0;
  if (!known && name) {   /* a near miss may still name a field */
    const char *f;
    for (int i = 0; (f = mi_workload_field(i, NULL, NULL, NULL, NULL)); i++) if (!strcmp(f, name)) { known = 1; index = i; }
  }
  double lo = 0, hi = 0, got = 0;
  int kind = 0;
  if (known) mi_workload_field(index, &lo, &hi, &kind, NULL);
  int ok = known && v >= lo && v <= hi && (kind == MI_WF_REAL || v == floor(v));
  FZ_CHECK(rc == (!known ? -1 : ok ? 0 : -2), "mi_workload_set(%s, %.17g) = %d (range %g..%g, kind %d)", name ? name : "NULL",
           v, rc, lo, hi, kind);
  if (rc) {
    FZ_CHECK(memcmp(&before, w, sizeof before) == 0, "mi_workload_set(%s, %.17g) failed but changed the workload",
             name ? name : "NULL", v);
    return;
  }
  FZ_CHECK(mi_workload_get(w, name, &got) == 0 && got == v, "mi_workload_get(%s) = %.17g after setting %.17g", name, got, v);
}

/* A raw random value for each field (no range checks), for the unchecked-struct path. */
static void raw_fields(fz_in *in, mi_workload *w) {
  uint8_t k = fz_u8(in);
  if (k & 1) w->cpus = fz_int32(in);
  if (k & 2) w->disks = fz_int32(in);
  if (k & 4) w->terminals = fz_int32(in);
  if (k & 8) { w->sessions = fz_int32(in) % 4000; w->jobs = fz_int32(in) % 4000; }
  if (k & 16) { w->think_ms = pick_double(in, 0, 1e4); w->txn_cpu_ms = pick_double(in, 0, 1e3); w->txn_ios = pick_double(in, 0, 50); }
  if (k & 32) { w->job_cpu_ms = pick_double(in, 0, 1e3); w->job_ms = pick_double(in, 0, 1e6); w->disk_ms = pick_double(in, 0, 100); }
  if (k & 64) { w->faults_per_io = pick_double(in, 0, 10); w->memory_pages = fz_int32(in); }
  if (k & 128) { w->think_dist = fz_int32(in); w->service_dist = fz_int32(in); w->seed = fz_u64(in); }
  if ((fz_avoid & FZ_AVOID_DISKS) && (w->disks >= 906 || w->disks < -1000)) w->disks = 5;
}

/* A session ON for one domain with the pair items and a few others; returns the list used. */
static void on(mi_session *s, fz_ses *m, int domain, fz_in *in) {
  /* not the large map: it makes each per-class process counter 2700 x 720 cells (slow; fuzz_aif covers it) */
  uint8_t mk = fz_u8(in);
  int32_t nums[16], stats[16], n = 0, mapping = 1 + mk % 2, ldev = -2;   /* -2: disks only */
  for (int k = 0; k < FZ_NPAIRS; k++) {
    const mi_item_info *t = fz_item(fz_pairs[k].total);
    if (t->domain == domain) { nums[n++] = fz_pairs[k].total; nums[n++] = fz_pairs[k].classes; }
  }
  int extra = fz_u8(in) % 4;
  for (int i = 0; i < extra; i++) nums[n++] = fz_pick_item(in, domain);
  if (domain == MI_DOM_GLOBAL && fz_u8(in) < 128) nums[n++] = 21164;
  nums[n] = 0;
  for (int i = 0; i < n; i++) if (!nums[i]) nums[i] = 1;
  status_type st;
  for (int i = 0; i < n; i++) stats[i] = 0x7EEEEEEE;
  if (domain == MI_DOM_GLOBAL) mi_globon(s, &st, nums, stats, &mapping, UID_ARG);
  else if (domain == MI_DOM_PROCESS) mi_procon(s, &st, nums, stats, &mapping, NULL, UID_ARG);
  else mi_ioon(s, &st, nums, stats, &mapping, &ldev, UID_ARG);
  fz_check_overall(st, n, "ON");
  for (int i = 0; i < n; i++) if (stats[i] != 0x7EEEEEEE) fz_check_item_status(stats[i], "ON", i);
  fz_model_on(domain == MI_DOM_GLOBAL ? m->glob : domain == MI_DOM_PROCESS ? m->proc : m->io, st, nums, stats, n);
}

/* A GET of the pairs (plus a few items) for every record; common checks and per-class sums. */
static void get(mi_system *sys, mi_session *s, fz_ses *m, int domain, fz_in *in, const fz_epochs *ep) {
  int32_t nums[16], stats[16], n = 0, mapping = fz_u8(in) % 3, ldev = -2, count = -1;
  for (int k = 0; k < FZ_NPAIRS; k++) {
    const mi_item_info *t = fz_item(fz_pairs[k].total);
    if (t->domain == domain) { nums[n++] = fz_pairs[k].classes; nums[n++] = fz_pairs[k].total; }
  }
  if (domain == MI_DOM_PROCESSOR) { nums[n++] = 20040; nums[n++] = 27006; nums[n++] = 27023; }
  int extra = fz_u8(in) % 3;
  for (int i = 0; i < extra; i++) nums[n++] = fz_pick_item(in, domain);
  for (int i = 0; i < n; i++) if (!nums[i]) nums[i] = 1;
  nums[n] = 0;
  int64_t rec = fz_record_bytes(nums, n, domain, mapping);
  /* room for every record: a process record per slot below proc_hi (a dead one waits there
   * until every session is told), a device per LDEV. Sized to the system, not to 3,000: ASan
   * poisons and unpoisons a large buffer's shadow at each allocation and free (6% of the time) */
  int64_t nrec = domain == MI_DOM_GLOBAL ? 1 : domain == MI_DOM_PROCESSOR ? 8 : domain == MI_DOM_IO ? MI_MAX_LDEV : sys->seg->proc_hi + 1;
  int32_t size = (int32_t)(rec * nrec);
  if (fz_skip_nullrow(sys, domain)) return;
  uint8_t *buf = fz_alloc((size_t)size);
  status_type st;
  switch (domain) {
  case MI_DOM_GLOBAL: mi_globget(s, &st, nums, buf, stats, size, mapping, UID_ARG); count = 1; break;
  case MI_DOM_PROCESS: mi_procget(s, &st, nums, buf, stats, size, mapping, NULL, &count, NULL, UID_ARG); break;
  case MI_DOM_IO: mi_ioget(s, &st, nums, buf, stats, size, mapping, &ldev, &count, UID_ARG); break;
  default: ldev = -1; mi_prcsrget(s, &st, nums, buf, stats, size, mapping, &ldev, &count, UID_ARG);
  }
  fz_check_overall(st, n, "GET");
  fz_canary_check(buf, (size_t)size, "GET buffer");
  if (st.all == 0 || st.s.info > 0) {
    fz_get g = {"GET", domain, mapping, sys->seg->mapping, n, nums, stats,
                domain == MI_DOM_PROCESS ? m->proc : domain == MI_DOM_IO ? m->io : m->glob, m->glob[21164 - 20000], ep};
    fz_check_get_statuses(&g);
    FZ_CHECK(count >= 0 && count * rec <= size, "GET: %d records of %lld bytes in %d", count, (long long)rec, size);
    fz_check_records(&g, buf, count, rec);
  }
  free(buf);
}

/* A PUT of a few configuration items (the model reads limits, fences, queues and quanta).
 * Each value slot holds the largest item (12 bytes, the 96-bit allow mask): AIFSCPUT reads
 * an item's full size and cannot know the caller's buffer, so a 4-byte slot for a 12- or
 * 8-byte item is the caller's overflow, not the library's. The 4 input bytes of a value
 * are repeated to fill a byte-array item (the byte language is unchanged). */
static void put(mi_session *s, fz_in *in) {
  int32_t nums[4], stats[4];
  union { int32_t i[4]; int64_t align; } vals[4];
  void *items[4];
  int n = 1 + fz_u8(in) % 3;
  for (int i = 0; i < n; i++) {
    nums[i] = 3001 + fz_u8(in) % 46;
    const mi_config_info *c = mi_config_lookup(nums[i]);
    int32_t v = c && c->has_range ? fz_range(in, c->min, c->max) : fz_int32(in);
    for (int k = 0; k < 4; k++) vals[i].i[k] = v;
    items[i] = &vals[i];
  }
  nums[n] = 0;
  status_type st;
  mi_scput(s, &st, nums, items, stats, UID_ARG, NULL, NULL, NULL);
  fz_check_overall(st, n, "AIFSCPUT");
}

/* One input: a workload built by mi_workload_set (or raw), a system on it, ONs, advances, PUTs and GETs. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  const char *base = mi_workload_name(fz_u8(&in) % 5);
  FZ_CHECK(base && mi_workload_builtin(base), "built-in workload %d", 0);
  mi_workload w = *mi_workload_builtin(base);
  int nset = fz_u8(&in) % 12;
  for (int i = 0; i < nset; i++) {
    char buf[48]; int index;
    const char *name = pick_field(&in, buf, &index);
    double lo = 0, hi = 100;
    if (index >= 0) mi_workload_field(index, &lo, &hi, NULL, NULL);
    uint8_t nullw = fz_u8(&in);
    double v = pick_double(&in, lo, hi);
    set_checked(nullw < 4 ? NULL : &w, name, index, v);
  }
  /* stay cheap: a short run of a smaller machine unless the input insists */
  uint8_t cap_s = fz_u8(&in), cap_j = fz_u8(&in);
  if (w.sessions > 200 && cap_s < 200) w.sessions = 200;
  if (w.jobs > 100 && cap_j < 200) w.jobs = 100;
  uint8_t rk = fz_u8(&in);
  int raw = !(fz_avoid & FZ_AVOID_WLRAW) && rk < 40;
  if (raw) raw_fields(&in, &w);
  FZ_TRACE("workload %s%s: cpus %d disks %d terminals %d sessions %d jobs %d think %g txn_cpu %g ios %g job_cpu %g job %g "
           "disk %g faults %g pages %d dists %d/%d seed %llu\n", base, raw ? " (raw fields)" : "", w.cpus, w.disks, w.terminals,
           w.sessions, w.jobs, w.think_ms, w.txn_cpu_ms, w.txn_ios, w.job_cpu_ms, w.job_ms, w.disk_ms, w.faults_per_io,
           w.memory_pages, w.think_dist, w.service_dist, (unsigned long long)w.seed);
  mi_system *sys = mi_sim_new(&w, 0);
  if (!raw) FZ_CHECK(sys != NULL, "mi_sim_new failed for a workload made with mi_workload_set");
  if (!sys) return 0;
  /* at most 4 simulated seconds an input: the long runs (up to 38 s) were a tenth of the corpus
   * and half the harness's time; what long runs add up to is pinned by spec/test_simhash.c */
  int64_t run_left = 4000, step = fz_u8(&in) * 10;
  mi_sim_advance(sys, step);
  run_left -= step;
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, UID_ARG);
  static fz_ses m;
  memset(&m, 0, sizeof m);
  m.s = s;
  fz_epochs ep;
  memset(&ep, 0, sizeof ep);
  uint64_t op = 0;
  for (int ops = 0; ops < 24 && in.n; ops++) {
    uint8_t k = fz_u8(&in) % 8;
    if (k <= 2) on(s, &m, k, &in);
    else if (k == 3) {
      step = fz_u16(&in) % 1500;
      if (step > run_left) step = run_left;
      mi_sim_advance(sys, step);
      run_left -= step;
      FZ_TRACE("advanced: %lld transactions, %d processes\n", (long long)mi_sim_transactions(sys), mi_host_proc_count(sys));
    }
    else if (k == 4) put(s, &in);
    else if (k == 5) { static const int off[3] = {0, 1, 2}; int d = off[fz_u8(&in) % 3];
                       if (d == 0) mi_globoff(s, &st, UID_ARG); else if (d == 1) mi_procoff(s, &st, NULL, UID_ARG); else mi_iooff(s, &st, NULL, UID_ARG); }
    else get(sys, s, &m, fz_u8(&in) % 4, &in, &ep);
    fz_epochs_update(&ep, sys, ++op);
    fz_model_sync_off(&m);
  }
  mi_system_free(sys);
  return 0;
}
