/* fuzz_common.h — shared parts of the fuzz harnesses: an input reader, owned memory with
 * canaries, per-session models of what a caller enabled, and the invariant checks every
 * GET must pass (statuses from Appendix A, nothing written past a buffer, item statuses
 * that agree with the caller's ONs, per-class arrays that add up to their totals).
 * Included once by each harness (one translation unit per harness, built with clang). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi_internal.h"

/* The libFuzzer entry points each harness defines. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fz_scratch_rm(void);

/* ---- failing ---------------------------------------------------------------------- */

/* Reports a broken invariant and aborts, so the fuzzer keeps the input as a crash. */
#define FZ_CHECK(cond, ...)                                                           \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "\n*** INVARIANT FAILED (%s:%d, %s): %s\n    ", __FILE__,     \
              __LINE__, __func__, #cond);                                             \
      fprintf(stderr, __VA_ARGS__);                                                   \
      fputc('\n', stderr);                                                            \
      fz_scratch_rm();                                                                \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

/* ---- known defects being fixed elsewhere ------------------------------------------- */
/* MI_FUZZ_AVOID=all (or a comma list of the names below) steers the harnesses around
 * defects already reported, so a long run can find the next one. make test never sets it. */
enum {
  FZ_AVOID_CACHE = 1,     /* cache: MIGLOBGET plan cache poisoned by a failed -20008 GET */
  FZ_AVOID_OBJCL = 2,     /* objcl: mi_host_add_objcl/semcl given a simple counter */
  FZ_AVOID_DISKS = 4,     /* disks: workload disks >= 906 */
  FZ_AVOID_REGLINE = 8,   /* regline: registry lines (long lines, no final newline) */
  FZ_AVOID_STATEND = 16,  /* statend: /proc/[pid]/stat ending right after ')' */
  FZ_AVOID_HUGE = 32,     /* huge: huge numbers in /proc files */
  FZ_AVOID_PIDHASH = 64,  /* pidhash: pid hash slow after many deaths */
  FZ_AVOID_TPM0 = 128,    /* tpm0: item 3043 (ticks per ms) set to 0 or less by a source */
  FZ_AVOID_WLRAW = 256,   /* wlraw: workload struct fields out of their ranges given to mi_sim_new */
  FZ_AVOID_REGPATH = 512, /* regpath: a registry path longer than the core's 512-byte buffer */
  FZ_AVOID_INTMIN = 1024, /* intmin: GET item numbers below INT32_MIN + 20000 (mi_item_fast overflows) */
  FZ_AVOID_NULLROW = 2048,/* nullrow: MIIOGET/MIPRCSRGET while the domain has no cells (NULL + 0) */
  FZ_AVOID_PRCSR = 4096,  /* prcsr: no "21164 on => processor counters readable" check (cell limit) */
};
static unsigned fz_avoid;
/* The harness's own checks and models are built without coverage callbacks: their branches say
 * nothing about the core, and a GET's checks read every byte of its records (a trace-cmp
 * callback per byte and per loop turn was a twentieth of fuzz_workload's time). The core code
 * they call is instrumented as usual; the decoders of the input keep theirs. Not inlined: the
 * callbacks are added after inlining, so an inlined check would get its caller's. */
#define FZ_NOCOV __attribute__((no_sanitize("coverage"), noinline))
/* MI_FUZZ_TRACE=1: harnesses say what they did (to check seeds and diagnose crashes). */
static int fz_trace;
#define FZ_TRACE(...) do { if (fz_trace) fprintf(stderr, __VA_ARGS__); } while (0)

/* Reads MI_FUZZ_AVOID into fz_avoid (call once from LLVMFuzzerInitialize). */
static inline void fz_avoid_init(void) {
  static const struct { const char *name; unsigned bit; } names[] = {
    {"cache", FZ_AVOID_CACHE}, {"objcl", FZ_AVOID_OBJCL}, {"disks", FZ_AVOID_DISKS},
    {"regline", FZ_AVOID_REGLINE}, {"statend", FZ_AVOID_STATEND}, {"huge", FZ_AVOID_HUGE},
    {"pidhash", FZ_AVOID_PIDHASH}, {"tpm0", FZ_AVOID_TPM0}, {"wlraw", FZ_AVOID_WLRAW},
    {"regpath", FZ_AVOID_REGPATH}, {"intmin", FZ_AVOID_INTMIN},
    {"nullrow", FZ_AVOID_NULLROW}, {"prcsr", FZ_AVOID_PRCSR},
  };
  fz_trace = getenv("MI_FUZZ_TRACE") != NULL;
  const char *e = getenv("MI_FUZZ_AVOID");
  if (!e) return;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strstr(e, "all") || strstr(e, names[i].name)) fz_avoid |= names[i].bit;
}

/* 1 if a GET of domain d should be skipped: its rows are NULL and nullrow is avoided. */
static inline int fz_skip_nullrow(const mi_system *sys, int d) {
  return (fz_avoid & FZ_AVOID_NULLROW) && (d == MI_DOM_IO || d == MI_DOM_PROCESSOR) && !sys->view.lane[d].cells;
}

/* ---- scratch directories ---- */

/* Removes one entry (nftw callback). */
static inline int fz_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  remove(path);
  return 0;
}
/* Removes a directory tree. */
static inline void fz_rm_tree(const char *path) { nftw(path, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static char fz_scratch[128];
/* Removes the scratch directory at exit. */
static inline void fz_scratch_rm(void) { if (fz_scratch[0]) fz_rm_tree(fz_scratch); }
/* Makes a private scratch directory (in memory when /dev/shm is there), removed at exit; returns it. */
static inline const char *fz_scratch_dir(const char *name) {
  snprintf(fz_scratch, sizeof fz_scratch, "%s/mi-fuzz-%s-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", name);
  if (!mkdtemp(fz_scratch)) abort();
  atexit(fz_scratch_rm);
  return fz_scratch;
}

/* Sanitizers call this with their one-line summary before they end the process: print it, clean up. */
void __sanitizer_report_error_summary(const char *summary);
void __sanitizer_report_error_summary(const char *summary) {
  fprintf(stderr, "%s\n", summary);
  fz_scratch_rm();
}

/* ---- reading the input ------------------------------------------------------------- */

typedef struct fz_in { const uint8_t *p; size_t n; } fz_in;

/* Next byte of the input, 0 once it is used up. */
static inline uint8_t fz_u8(fz_in *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}
/* Next 16/32/64-bit little-endian values (0 bytes past the end). */
static inline uint16_t fz_u16(fz_in *in) { uint16_t a = fz_u8(in); return (uint16_t)(a | fz_u8(in) << 8); }
static inline uint32_t fz_u32(fz_in *in) { uint32_t a = fz_u16(in); return a | (uint32_t)fz_u16(in) << 16; }
static inline uint64_t fz_u64(fz_in *in) { uint64_t a = fz_u32(in); return a | (uint64_t)fz_u32(in) << 32; }
/* A number in lo..hi (inclusive). */
static inline int fz_range(fz_in *in, int lo, int hi) {
  uint32_t span = (uint32_t)(hi - lo) + 1;
  return lo + (int)(span <= 256 ? fz_u8(in) % span : fz_u32(in) % span);
}
/* 1 with probability about k/256. */
static inline int fz_chance(fz_in *in, int k) { return fz_u8(in) < k; }

/* An "interesting" 32-bit integer: small values, edges, or anything. */
static inline int32_t fz_int32(fz_in *in) {
  static const int32_t edge[] = {0, 1, -1, 2, 3, 7, 8, 16, 255, 256, 1023, 1024, 1025, 2700, 2701,
                                 999, 1000, -2, -11, -12, INT32_MAX, INT32_MIN, INT32_MAX - 1, 65535, 65536};
  uint8_t k = fz_u8(in);
  if (k < 96) return edge[fz_u8(in) % (sizeof edge / sizeof edge[0])];
  if (k < 192) return (int32_t)(int8_t)fz_u8(in);
  return (int32_t)fz_u32(in);
}
/* An "interesting" 64-bit integer. */
static inline int64_t fz_int64(fz_in *in) {
  uint8_t k = fz_u8(in);
  if (k < 200) return fz_int32(in);
  if (k < 230) return (int64_t)(fz_u64(in) >> 1);
  return (int64_t)fz_u64(in);
}

/* ---- owned memory with canaries ---------------------------------------------------- */

#define FZ_CANARY 64
#define FZ_CANARY_BYTE 0xA5

void __asan_poison_memory_region(const volatile void *addr, size_t size);

/* Allocates n bytes (8-aligned) followed by a canary region; never NULL (aborts on OOM).
 * 64 KB or more (a GET buffer for 3000 records): a power-of-two block that fuzz_pool.c keeps
 * between inputs (the allocator maps such blocks afresh each time: a page fault per page),
 * poisoned past the canary so an overflow still reports. Freed with free(). */
static inline uint8_t *fz_alloc(size_t n) {
  size_t want = n + FZ_CANARY + 8, cap = 64 * 1024;
  uint8_t *p;
  if (want < cap) p = malloc(want);
  else {
    while (cap < want) cap *= 2;
    p = aligned_alloc(16, cap);
    if (p) __asan_poison_memory_region(p + want, cap - want);
  }
  if (!p) abort();
  memset(p + n, FZ_CANARY_BYTE, FZ_CANARY + 8);
  return p;
}
/* Checks that nothing was written in the canary region after the first n bytes of p. */
FZ_NOCOV static inline void fz_canary_check(const uint8_t *p, size_t n, const char *what) {
  for (size_t i = 0; i < FZ_CANARY; i++)
    FZ_CHECK(p[n + i] == FZ_CANARY_BYTE, "%s: byte %zu past its end (size %zu) was written", what, i, n);
}

/* ---- statuses ----------------------------------------------------------------------- */

/* An overall status must be 0, a 1-based item index (1..n), or a code of Appendix A. */
FZ_NOCOV static inline void fz_check_overall(status_type st, int n, const char *call) {
  if (st.all == 0) return;
  FZ_CHECK(st.s.subsys == MI_SUBSYS, "%s: overall status subsys %d (all=0x%08x)", call, st.s.subsys, (unsigned)st.all);
  int code = st.s.info;
  if (code >= 1 && code <= n) return;
  FZ_CHECK(code != 0 && mi_status_name(code) != NULL, "%s: overall status %d is not in Appendix A (list length %d)",
           call, code, n);
  FZ_CHECK(code < 1 || code >= 20000, "%s: overall status %d is an index past the list (length %d)", call, code, n);
}
/* The `all` word of a status carrying code (to compare with an overall status). */
static inline int32_t fz_all(int code) { status_type s; mi_set_status(&s, code); return s.all; }
#define MI_STATUS_ALL(code) fz_all(code)

/* An item status must be 0 or a code of Appendix A. */
FZ_NOCOV static inline void fz_check_item_status(int32_t v, const char *call, int i) {
  FZ_CHECK(v == 0 || mi_status_name(v) != NULL, "%s: item status [%d] = %d is not in Appendix A", call, i, (int)v);
}

/* ---- per-session models ------------------------------------------------------------ */

#define FZ_NITEMS 8000   /* item numbers 20000..27999 */
typedef struct fz_ses {
  mi_session *s;
  /* 1: enabled by an ON (status 0); the byte at FZ_NITEMS is 1 once any is set since the model
   * was last cleared, so clearing a model with nothing in it costs nothing */
  uint8_t glob[FZ_NITEMS + 1], proc[FZ_NITEMS + 1], io[FZ_NITEMS + 1];
  int32_t last[4][16];   /* the last list this caller used per domain (a sampling loop asks again) */
  int nlast[4];
} fz_ses;

/* The catalog entry of an item number, or NULL. */
static inline const mi_item_info *fz_item(int32_t item) { return mi_item_lookup(item); }
/* Index of an item number in the model arrays, or -1. */
FZ_NOCOV static inline int fz_idx(int32_t item) { return item >= 20000 && item < 20000 + FZ_NITEMS ? item - 20000 : -1; }

/* Forgets what the model says s has on for domains that the core says are off. */
FZ_NOCOV static inline void fz_model_sync_off(fz_ses *m) {
  if (!m->s) return;
  if (!m->s->u->glob_on && m->glob[FZ_NITEMS]) memset(m->glob, 0, sizeof m->glob);
  if (!m->s->u->proc_on && m->proc[FZ_NITEMS]) memset(m->proc, 0, sizeof m->proc);
  if (!m->s->u->io_on && m->io[FZ_NITEMS]) memset(m->io, 0, sizeof m->io);
}

/* Records the items an ON enabled (item statuses 0) unless the overall status is an error. */
FZ_NOCOV static inline void fz_model_on(uint8_t *set, status_type st, const int32_t *nums, const int32_t *stats, int n) {
  if (st.all != 0 && st.s.info < 0) return;
  for (int i = 0; i < n; i++) {
    int k = fz_idx(nums[i]);
    if (stats[i] == 0 && k >= 0) set[k] = set[FZ_NITEMS] = 1;
  }
}

/* ---- GET checks -------------------------------------------------------------------- */

/* Bytes an item takes in a GET buffer (4 for invalid items), as decision 11 says. */
FZ_NOCOV static inline int32_t fz_item_bytes(int32_t item, int domain, int mapping) {
  const mi_item_info *it = fz_item(item);
  if (!it || it->domain != domain || (it->kind == MI_KIND_PSEUDO && domain == MI_DOM_GLOBAL)) return 4;
  int32_t s = mi_item_size(it, mapping);
  return s > 0 ? s : 4;
}

/* Record size of a GET list (the harness's own sum, to size buffers and walk records). */
FZ_NOCOV static inline int64_t fz_record_bytes(const int32_t *nums, int n, int domain, int mapping) {
  int64_t r = 0;
  for (int i = 0; i < n; i++) r += fz_item_bytes(nums[i], domain, mapping);
  return r;
}

/* Pairs (total item, per-class item) whose classes add up to the total when both were
 * zeroed together (the writer harness keeps them so; the simulator documents them). */
typedef struct fz_pair { int32_t total, classes; } fz_pair;
static const fz_pair fz_pairs[] = {
  /* not 21201/21261: an all-virgin prefetch does no I/O and stops nobody (core/sim/BOOKS.md), so
   * prefetches by class only bound the stops from above (sim_books_spec checks that) */
  {23048, 23050},   /* io: completed reads and reads by class (sim_spec "classes to totals") */
  {23049, 23051},   /* io: completed writes and writes by class */
  {25167, 25243},   /* process: disc reads and disc reads by class (sim_spec) */
  {25168, 25244},   /* process: disc writes and disc writes by class */
};
#define FZ_NPAIRS ((int)(sizeof fz_pairs / sizeof fz_pairs[0]))

/* When each pair item's cells were last zeroed (an op counter), from the store's refcounts:
 * a pair adds up only if both halves restarted at the same moment. */
typedef struct fz_epochs {
  uint16_t refs[FZ_NPAIRS][2];
  uint64_t zeroed[FZ_NPAIRS][2];
} fz_epochs;

/* Updates the epochs after an operation numbered op (call after every call into the core). */
FZ_NOCOV static inline void fz_epochs_update(fz_epochs *e, const mi_system *sys, uint64_t op) {
  for (int k = 0; k < FZ_NPAIRS; k++)
    for (int h = 0; h < 2; h++) {
      const mi_item_info *it = fz_item(h ? fz_pairs[k].classes : fz_pairs[k].total);
      uint16_t r = sys->seg->dom[it->domain].refs[it->index];
      if (r && !e->refs[k][h]) e->zeroed[k][h] = op;
      e->refs[k][h] = r;
    }
}
/* 1 if pair k can be checked now: both halves counting and zeroed together. */
FZ_NOCOV static inline int fz_pair_live(const fz_epochs *e, int k) {
  return e->refs[k][0] && e->refs[k][1] && e->zeroed[k][0] == e->zeroed[k][1];
}

/* What one GET call asked and got, for the record checks. */
typedef struct fz_get {
  const char *call;
  int domain, mapping, sys_mapping, n;
  const int32_t *nums, *stats;
  const uint8_t *enabled;   /* the session's model for this domain (global model for processors) */
  int pauses_on;            /* processors: the caller has 21164 on */
  const fz_epochs *ep;      /* NULL: no pair checks */
} fz_get;

/* Checks the item statuses of a GET against what the caller enabled. */
FZ_NOCOV static inline void fz_check_get_statuses(const fz_get *g) {
  for (int i = 0; i < g->n; i++) {
    int32_t v = g->stats[i], item = g->nums[i];
    fz_check_item_status(v, g->call, i);
    const mi_item_info *it = fz_item(item);
    int valid = it && it->domain == g->domain && !(it->kind == MI_KIND_PSEUDO && g->domain == MI_DOM_GLOBAL);
    if (!valid) {
      FZ_CHECK(v == MI_E_BAD_ITEM, "%s: item %d of another domain or unknown has status %d, not -20006",
               g->call, (int)item, (int)v);
      continue;
    }
    if (it->kind == MI_KIND_PSEUDO) {
      FZ_CHECK(v == 0, "%s: pseudo-item %d has status %d", g->call, (int)item, (int)v);
      continue;
    }
    int on = g->domain == MI_DOM_PROCESSOR ? g->pauses_on : g->enabled[fz_idx(item)];
    if (v == 0)
      FZ_CHECK(on, "%s: item %d status 0 but the caller never enabled it", g->call, (int)item);
    else if (on && (g->domain != MI_DOM_PROCESSOR || !(fz_avoid & FZ_AVOID_PRCSR))) {
      int finer = it->kind == MI_KIND_OBJCL && g->mapping < g->sys_mapping;
      FZ_CHECK(finer ? v == MI_E_MAPPING_CONVERSION : 0,
               "%s: item %d enabled by the caller but its GET status is %d (mapping %d, system %d)",
               g->call, (int)item, (int)v, g->mapping, g->sys_mapping);
    }
  }
}

/* Where each item of a GET list sits in a record and how many bytes it takes (worked out once
 * per GET: each item's size is a catalog lookup). */
typedef struct fz_layout { int32_t off[MI_MAX_ITEMS], size[MI_MAX_ITEMS]; } fz_layout;
FZ_NOCOV static inline void fz_layout_of(const fz_get *g, fz_layout *l) {
  int32_t o = 0;
  for (int i = 0; i < g->n; i++) { l->off[i] = o; l->size[i] = fz_item_bytes(g->nums[i], g->domain, g->mapping); o += l->size[i]; }
}

/* Checks one record of a GET laid out as l: zero slots for failed items, classes adding up to totals. */
FZ_NOCOV static inline void fz_check_record_in(const fz_get *g, const fz_layout *l, const uint8_t *rec, int recno) {
  const int32_t *off = l->off;
  for (int i = 0; i < g->n; i++) {
    if (!g->stats[i]) continue;
    int32_t sz = l->size[i];
    for (int32_t b = 0; b < sz; b++)
      FZ_CHECK(rec[off[i] + b] == 0, "%s: record %d item %d (status %d) slot byte %d is not zero", g->call,
               recno, (int)g->nums[i], (int)g->stats[i], (int)b);
  }
  if (!g->ep) return;
  for (int k = 0; k < FZ_NPAIRS; k++) {
    if (!fz_pair_live(g->ep, k)) continue;
    int ti = -1, ci = -1;
    for (int i = 0; i < g->n; i++) {
      if (g->nums[i] == fz_pairs[k].total && !g->stats[i]) ti = i;
      if (g->nums[i] == fz_pairs[k].classes && !g->stats[i]) ci = i;
    }
    if (ti < 0 || ci < 0) continue;
    uint32_t total, sum = 0, v;
    memcpy(&total, rec + off[ti], 4);
    int len = mi_objcl_len(g->mapping);
    for (int c = 0; c < len; c++) { memcpy(&v, rec + off[ci] + 4 * c, 4); sum += v; }
    FZ_CHECK(sum == total, "%s: record %d: classes of %d add up to %u, total %d is %u", g->call, recno,
             (int)fz_pairs[k].classes, sum, (int)fz_pairs[k].total, total);
    FZ_TRACE("%s: record %d: pair %d/%d adds up (%u)\n", g->call, recno, (int)fz_pairs[k].total, (int)fz_pairs[k].classes, total);
  }
}

/* Checks one record of a GET: zero slots for failed items, classes adding up to totals. */
FZ_NOCOV static inline void fz_check_record(const fz_get *g, const uint8_t *rec, int recno) {
  fz_layout l;
  fz_layout_of(g, &l);
  fz_check_record_in(g, &l, rec, recno);
}

/* Checks the count records of rec bytes each at buf, as fz_check_record does one. */
FZ_NOCOV static inline void fz_check_records(const fz_get *g, const uint8_t *buf, int count, int64_t rec) {
  fz_layout l;
  fz_layout_of(g, &l);
  for (int r = 0; r < count; r++) fz_check_record_in(g, &l, buf + (size_t)r * (size_t)rec, r);
}

/* ---- item lists ------------------------------------------------------------------- */

/* An owned item list: ints[0..cap) with the list at `at` (possibly misaligned). */
typedef struct fz_list {
  uint8_t *mem;       /* owned */
  int32_t *nums;      /* what is passed (NULL, aligned or misaligned) */
  int32_t copy[MI_MAX_ITEMS + 1];   /* an aligned copy of the list the harness reads */
  int n;              /* items before the terminator; -1 if unterminated within 1024 */
} fz_list;

/* Picks an item number from a domain (or anywhere) for a list. */
static inline int32_t fz_pick_item(fz_in *in, int domain) {
  uint8_t k = fz_u8(in);
  if (k < 140 && domain >= 0) {
    int nd = mi_domain_counters(domain);
    const mi_item_info *it = mi_domain_item(domain, fz_u16(in) % nd);
    return it ? it->item : 21001;
  }
  if (k < 160) { /* a pair item: totals and classes turn up together often */
    const fz_pair *p = &fz_pairs[fz_u8(in) % FZ_NPAIRS];
    return fz_u8(in) & 1 ? p->total : p->classes;
  }
  if (k < 175) { static const int32_t ps[] = {20001, 20002, 20003, 20004, 20005, 20006, 20007, 20008, 20009,
                                               20010, 20011, 20012, 20020, 20040, 21164};
                 return ps[fz_u8(in) % (sizeof ps / sizeof ps[0])]; }
  if (k < 190) return domain == MI_DOM_PROCESSOR ? 20040 : 21164;   /* processors on; their id */
  if (k < 230) { const mi_item_info *it = mi_item_at(fz_u16(in) % mi_item_count()); return it ? it->item : 1; }
  int32_t v = fz_int32(in);
  if ((fz_avoid & FZ_AVOID_INTMIN) && v < INT32_MIN + 20000) v = -1;
  return v ? v : 1;
}

/* Builds an item list from the input: short lists mostly, sometimes long, unterminated,
 * with an early 0, NULL or misaligned. The memory always belongs to the harness. */
static inline void fz_make_list(fz_in *in, int domain, fz_list *l) {
  uint8_t shape = fz_u8(in);
  int n;
  if (shape < 200) n = fz_u8(in) % 12;
  else if (shape < 230) n = fz_range(in, 12, MI_MAX_ITEMS - 1);
  else n = -1;   /* unterminated within MI_MAX_ITEMS */
  int cap = MI_MAX_ITEMS + 1;
  l->mem = fz_alloc(sizeof(int32_t) * (size_t)cap + 8);
  int32_t *a = (int32_t *)(void *)l->mem;
  int m = n < 0 ? cap : n;
  for (int i = 0; i < m; i++) {
    if (i > 12 && n > 0) a[i] = a[i % 12];   /* long lists repeat their head: cheap to decode */
    else a[i] = fz_pick_item(in, domain);
    if (a[i] == 0) a[i] = 1;
  }
  if (n >= 0) a[n] = 0;
  l->n = n;
  memcpy(l->copy, a, sizeof(int32_t) * (size_t)(n < 0 ? 0 : n + 1));
  uint8_t ptr = fz_u8(in);
  if (ptr < 4) l->nums = NULL;
  else if (ptr < 8) {   /* misaligned: the same list shifted by 1-3 bytes */
    int sh = 1 + ptr % 3;
    memmove(l->mem + sh, l->mem, sizeof(int32_t) * (size_t)cap);
    l->nums = (int32_t *)(void *)(l->mem + sh);
  } else l->nums = a;
}
/* Frees a list made by fz_make_list or fz_make_list_again. */
static inline void fz_free_list(fz_list *l) { free(l->mem); l->mem = NULL; }

/* Remembers list l as the caller's last list of a domain (short lists only). */
static inline void fz_remember(fz_ses *m, int domain, const fz_list *l) {
  if (l->n < 0 || l->n > 16) return;
  memcpy(m->last[domain], l->copy, sizeof(int32_t) * (size_t)l->n);
  m->nlast[domain] = l->n;
}

/* Builds a list like fz_make_list, but often the caller's last list of the domain again
 * (possibly with the process pseudo-items in front): what a sampling loop does. */
static inline void fz_make_list_again(fz_in *in, fz_ses *m, int domain, fz_list *l) {
  uint8_t k = fz_u8(in);
  if (k >= 110 || !m->nlast[domain]) { fz_make_list(in, domain, l); return; }
  int32_t items[24];
  int n = 0;
  if (domain == MI_DOM_PROCESS && (k & 1)) {
    static const int32_t ps[] = {20001, 20002, 20004, 20005, 20007, 20009, 20011, 20012, 20006, 20008, 20010, 20003};
    int np = fz_u8(in) % 5;
    for (int i = 0; i < np; i++) items[n++] = ps[fz_u8(in) % 12];
  }
  for (int i = 0; i < m->nlast[domain]; i++) items[n++] = m->last[domain][i];
  l->mem = fz_alloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *a = (int32_t *)(void *)l->mem;
  memcpy(a, items, sizeof(int32_t) * (size_t)n);
  a[n] = 0;
  l->n = n;
  memcpy(l->copy, a, sizeof(int32_t) * (size_t)(n + 1));
  l->nums = a;
}

#endif
