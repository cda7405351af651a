/* aif.c — the counter AIFs of chapter 5: MIGLOBON/GET/OFF, MIPROCON/GET/OFF,
 * MIIOON/GET/OFF and MIPRCSRGET. ONs and OFFs change the store in a write section;
 * GETs gather from precomputed offsets into the caller's buffer under the seqlock
 * (gather, check that nothing was published meanwhile, else gather again): no
 * allocation, no search, no lock. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"


#define ITEM_PAUSES 21164
/* Gathers that saw a publish before a GET reads under the writer lock (so a writer that
 * publishes faster than a long GET gathers cannot starve it). */
#define READ_TRIES 4

/* ---- shared checks ---- */

/* Checks the parameters every ON/GET shares; returns the item count or a negative status. */
static int check_list(mi_session *s, int32_t *nums, int32_t *stats, int32_t user_id) {
  int rc = mi_enter(s, user_id);
  if (rc) return rc;
  if (!nums) return MI_E_BAD_POINTER;
  if ((uintptr_t)nums & 3) return MI_E_PARM2_ALIGNMENT;
  if (!stats) return MI_E_BAD_ITEM_STATUS;
  if ((uintptr_t)stats & 3) return MI_E_BAD_ALIGNMENT;
  int n = mi_list_len(nums);
  return n < 0 ? MI_E_NO_TERMINATOR : n;
}

/* Settles the mapping of an ON call (in a write section); 0, 20002 (warning) or a negative status. */
static int take_mapping(mi_system *sys, int32_t *mapping) {
  mi_seg *g = sys->seg;
  if (!mapping) return MI_E_BAD_POINTER;
  if ((uintptr_t)mapping & 3) return MI_E_BAD_ALIGNMENT;
  if (*mapping < 0 || *mapping > 2) return MI_E_BAD_MAPPING;
  if (g->mapping < 0) { MI_ST(g->mapping, *mapping); MI_ST(g->h.gen, g->h.gen + 1); return 0; }
  if (*mapping != g->mapping) { *mapping = g->mapping; return MI_E_MAPPING_NOT_GIVEN; }
  return 0;
}

/* Writes the overall status of an ON/GET: errors as the last failing index, else warning or 0. */
static void finish(status_type *st, int n, int good, int last, int warn) {
  if (n > 0 && good == 0) MI_STATUS(st, MI_E_NO_VALID_ITEMS);
  else MI_STATUS(st, last ? last : warn);
}

/* Takes a reference on every processor counter for s (its 21164 went on): all or none,
 * so an OFF gives back exactly what this session took; 0 or -20004. */
static int hold_processors(mi_session *s) {
  int n = mi_domain_counters(MI_DOM_PROCESSOR);
  for (int k = 0; k < n; k++)
    if (mi_store_enable(s->sys, MI_DOM_PROCESSOR, k)) {
      while (k-- > 0) mi_store_disable(s->sys, MI_DOM_PROCESSOR, k);
      return MI_E_TOO_MANY_COUNTERS;
    }
  s->u->prcsr_held = 1;
  return 0;
}

/* Gives back the processor counters s holds, if any. */
static void release_processors(mi_session *s) {
  if (!s->u->prcsr_held) return;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR); k++) mi_store_disable(s->sys, MI_DOM_PROCESSOR, k);
  s->u->prcsr_held = 0;
}

/* Enables the items of a list in domain d for session s, setting bits in en.
 * With `same`, the valid items must equal the set already enabled (else -20001). */
static int enable_list(mi_session *s, int d, int32_t *nums, int32_t *stats, int n, uint64_t *en,
                       int16_t *order, int32_t *norder, int *good, int *last) {
  mi_system *sys = s->sys;
  *good = 0; *last = 0;
  for (int i = 0; i < n; i++) {
    const mi_item_info *it = mi_item_lookup(nums[i]);
    int r = 0;
    if (!it || it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL)) r = MI_E_BAD_ITEM;
    else if (it->kind != MI_KIND_PSEUDO && !mi_bit(en, it->index)) {
      r = mi_store_enable(sys, d, it->index);
      /* 21164 brings the processor counters: without room for all of them it is not on */
      if (!r && nums[i] == ITEM_PAUSES && !s->u->prcsr_held && (r = hold_processors(s)) != 0)
        mi_store_disable(sys, d, it->index);
      if (!r) {
        mi_bit_set(en, it->index);
        if (order) order[(*norder)++] = it->index;
      }
    }
    stats[i] = r;
    if (r) *last = i + 1; else (*good)++;
  }
  return 0;
}

/* Disables every item set in en for domain d and clears en. */
static void disable_all(mi_session *s, int d, uint64_t *en) {
  int n = mi_domain_counters(d);
  for (int i = 0; i < n; i++)
    if (mi_bit(en, i)) mi_store_disable(s->sys, d, i);
  if (d == MI_DOM_GLOBAL) release_processors(s);
  memset(en, 0, (size_t)(n + 63) / 64 * 8);
}

/* ---- value gathering ---- */

/* What one gather reads once: the segment, the rounding factor and the system mapping. A
 * gather that meets an impossible combination (a layout changing under it) sets torn and
 * reads nothing there; the seqlock then has it gather again. */
typedef struct rd {
  const mi_seg *g;
  mi_round rnd;
  int mapping;     /* 0-2, or -1 when nobody has anything on */
  int torn;
} rd;

/* Starts a gather: reads what every value of it uses. */
static void rd_start(rd *r, const mi_system *sys) {
  r->g = sys->seg;
  r->rnd = mi_round_of(r->g);
  r->torn = 0;
  r->mapping = MI_LD(r->g->mapping);
  if (r->mapping > 2) { r->mapping = -1; r->torn = 1; }
}

/* The rows of domain d (NULL when it has none) and their stride and count, checked to lie in
 * the arena. */
static const int64_t *rd_rows(rd *r, int d, int32_t *stride, int32_t *nent) {
  const mi_host_lane *ln = &r->g->blk.lane[d];
  int64_t at = MI_LD(ln->cells);
  int32_t st = MI_LD(ln->stride), ne = MI_LD(ln->nent);
  *stride = 0; *nent = 0;
  if (!at) return NULL;
  if (at < r->g->arena_base || st <= 0 || ne <= 0 ||
      at + (int64_t)st * ne > r->g->arena_base + r->g->arena_words) { r->torn = 1; return NULL; }
  *stride = st; *nent = ne;
  return (const int64_t *)(const void *)&r->g->blk + at;
}

/* The value of a 64-bit cell in the AIF's 32-bit view (time counters in MI_Time). */
static inline int32_t view(const rd *r, int64_t v, int time) {
  if (time) v = mi_round_div(&r->rnd, v);
  return (int32_t)(uint32_t)(uint64_t)v;
}

/* One requested item, resolved once per call. */
typedef struct plan {
  const mi_item_info *it;
  int32_t off;     /* word offset in a row (counters) */
  int32_t size;    /* bytes in the buffer */
  int32_t words;   /* cells the counter occupies in a row */
  int16_t status;  /* 0 or an item error (the slot is zero-filled) */
  uint8_t time, fold;
  uint8_t kind;    /* it->kind, kept here so the copy loops need not follow it */
} plan;

/* Resolves item num of a GET for domain d against rows of `stride` words; fills p and
 * returns its status. */
static inline int resolve(rd *r, int d, int32_t num, const uint64_t *en, int mapping, int32_t stride, plan *p) {
  const mi_item_info *it = mi_item_fast(num);
  p->it = NULL; p->off = 0; p->status = 0; p->time = 0; p->fold = 0; p->kind = 0; p->words = 0;
  p->size = 4;
  if (!it || it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL)) return p->status = MI_E_BAD_ITEM;
  p->it = it;
  p->kind = it->kind;
  p->size = mi_item_size(it, mapping);
  if (it->kind == MI_KIND_PSEUDO) return 0;
  if (en && !mi_bit(en, it->index)) return p->status = MI_E_NOT_ENABLED;
  p->off = MI_LD(r->g->blk.off[(d << MI_HOST_INDEX_BITS) + it->index]);
  if (p->off < 0) return p->status = MI_E_NOT_ENABLED;
  p->time = it->unit == MI_UNIT_MI_TIME;
  p->words = 1;
  if (it->kind == MI_KIND_SEMCL) p->words = MI_NSEMCL;
  if (it->kind == MI_KIND_OBJCL) {
    if (r->mapping < 0) { r->torn = 1; return p->status = MI_E_NOT_ENABLED; }
    if (mapping < r->mapping) return p->status = MI_E_MAPPING_CONVERSION;
    p->fold = (uint8_t)(mapping != r->mapping);
    p->words = mi_objcl_len(r->mapping);
  }
  if (p->off + p->words > stride) { r->torn = 1; return p->status = MI_E_NOT_ENABLED; }
  return 0;
}

/* Copies one counter's value(s) for row into dst. */
static inline void put_counter(const rd *r, const plan *p, const int64_t *row, int mapping, uint8_t *dst) {
  const int64_t *c = row + p->off;
  if (p->kind == MI_KIND_SIMPLE) {
    int32_t v = view(r, MI_LD(*c), p->time);
    memcpy(dst, &v, 4);
    return;
  }
  int n = p->words;
  if (!p->fold) {
    for (int k = 0; k < n; k++) { int32_t v = view(r, MI_LD(c[k]), p->time); memcpy(dst + 4 * k, &v, 4); }
    return;
  }
  int64_t acc[MI_NLARGE];
  int m = mi_objcl_len(mapping);
  memset(acc, 0, sizeof(int64_t) * (size_t)m);
  const uint16_t *f = mi_fold_[r->mapping][mapping];
  for (int k = 0; k < n; k++) acc[f[k]] += MI_LD(c[k]);
  for (int k = 0; k < m; k++) { int32_t v = view(r, acc[k], p->time); memcpy(dst + 4 * k, &v, 4); }
}

/* Copies a 48-byte name kept as words. */
static void put_name(uint8_t *dst, const uint64_t w[6]) {
  for (int k = 0; k < 6; k++) { uint64_t x = MI_LD(w[k]); memcpy(dst + 8 * k, &x, 8); }
}

/* Stores x as a longint_type (high word first) at dst. */
static inline void put_longint(uint8_t *dst, int64_t x) {
  longint_type l = {(int32_t)(uint32_t)((uint64_t)x >> 32), (int32_t)(uint32_t)(uint64_t)x};
  memcpy(dst, &l, 8);
}

/* Writes the item values of one process record. */
static void put_pseudo_proc(const rd *r, const mi_proc *pr, int32_t item, uint8_t *dst) {
  int32_t tpm = MI_LD(r->g->cfg[3043 - 3001]), v;
  if (tpm < 1) tpm = 1;
  clock_type ck; uint32_t cal;
  switch (item) {
  case 20001: put_longint(dst, MI_LD(pr->pid)); break;
  case 20002: v = MI_LD(pr->state) == MI_PS_DEAD; memcpy(dst, &v, 4); break;
  case 20003: put_name(dst, pr->user); break;
  case 20004: put_name(dst, pr->program); break;
  case 20005: put_longint(dst, MI_LD(pr->start_ticks)); break;
  case 20006: put_longint(dst, MI_LD(pr->end_ticks)); break;
  case 20007: mi_ticks_to_clock(MI_LD(pr->start_ticks), tpm, &ck); memcpy(dst, &ck, 4); break;
  case 20008: mi_ticks_to_clock(MI_LD(pr->end_ticks), tpm, &ck); memcpy(dst, &ck, 4); break;
  case 20009: cal = mi_ticks_to_calendar(MI_LD(pr->start_ticks), tpm); memcpy(dst, &cal, 4); break;
  case 20010: cal = mi_ticks_to_calendar(MI_LD(pr->end_ticks), tpm); memcpy(dst, &cal, 4); break;
  case 20011: { uint32_t js = MI_LD(pr->js); memcpy(dst, &js, 4); break; }
  case 20012: v = MI_LD(pr->ptype); memcpy(dst, &v, 4); break;
  default: memset(dst, 0, 4);
  }
}

/* Checks a GET's buffer and mapping; 0 or a negative status. */
static int check_buffer(const void *buf, int32_t size, int mapping) {
  if (mapping < 0 || mapping > 2) return MI_E_BAD_MAPPING;
  if (!buf) return MI_E_BAD_BUFFER;
  if ((uintptr_t)buf & 3) return MI_E_BUFFER_ALIGNMENT;
  if (size < 0) return MI_E_BUFFER_TOO_SMALL;
  return 0;
}

/* Resolves a GET's items into plans; returns the record size, fills *good and *last. */
static int32_t plan_all(rd *r, int d, int32_t *nums, int32_t *stats, int n, const uint64_t *en,
                        int mapping, int32_t stride, plan *pl, int *good, int *last) {
  int32_t rec = 0;
  *good = 0; *last = 0;
  for (int i = 0; i < n; i++) {
    int st = resolve(r, d, nums[i], en, mapping, stride, &pl[i]);
    stats[i] = st;
    if (st) *last = i + 1; else (*good)++;
    rec += pl[i].size;
  }
  return rec;
}

/* Runs gather (returning a status) until it saw one published state: the seqlock read. After
 * READ_TRIES gathers that each saw a publish, the next one runs inside a write section; the
 * section is still open on return when *locked is set. */
#define READ_LOOP(sys, locked, ...) do {                                   \
    for (int tries_ = 0;; tries_++) {                                         \
      if (tries_ == READ_TRIES) { mi_wlock(sys); (locked) = 1; }              \
      uint64_t q_;                                                            \
      if (!mi_read_begin((sys), &q_)) continue;                               \
      __VA_ARGS__;                                                            \
      if (mi_read_valid((sys), q_)) break;                                    \
    }                                                                         \
  } while (0)

/* The last MIGLOBGET list of a session, resolved: a repeated GET of the same list (the usual
 * sampling loop) copies from these plans instead of resolving every item again. Allocated at
 * MIGLOBON for that call's list length; a GET with a longer list just resolves. */
struct mi_glob_cache {
  uint64_t gen;          /* seg gen when filled; 0 = empty */
  int32_t cap, n, mapping, rec, good, last;
  int32_t reach;         /* the rows' stride then: every plan lies within it */
  int32_t sysmap;        /* the system mapping then */
  int32_t *nums, *stats;
  plan *pl;
  /* the plans split for copying: plain counters, time counters, the rest */
  int np, nt, no;
  int32_t *p_off, *p_dst, *t_off, *t_dst, *o_idx, *o_dst;
};

/* Makes room in s's cache for lists of n items (called by MIGLOBON, never by a GET). */
static void glob_cache_reserve(mi_session *s, int n) {
  struct mi_glob_cache *c = s->gcache;
  if (c && c->cap >= n) return;
  if (n < 32) n = 32;
  struct mi_glob_cache *nc = calloc(1, sizeof *nc);
  if (nc) {
    nc->nums = malloc(sizeof(int32_t) * (size_t)n);
    nc->stats = malloc(sizeof(int32_t) * (size_t)n);
    nc->pl = malloc(sizeof(plan) * (size_t)n);
    nc->p_off = malloc(sizeof(int32_t) * 6 * (size_t)n);
    nc->cap = n;
    if (!nc->nums || !nc->stats || !nc->pl || !nc->p_off) { mi_glob_cache_free(nc); nc = NULL; }
    else {
      nc->p_dst = nc->p_off + n; nc->t_off = nc->p_dst + n; nc->t_dst = nc->t_off + n;
      nc->o_idx = nc->t_dst + n; nc->o_dst = nc->o_idx + n;
    }
  }
  if (!nc) return;  /* no cache: every GET resolves, results unchanged */
  mi_glob_cache_free(c);
  s->gcache = nc;
}

void mi_glob_cache_free(struct mi_glob_cache *c) {
  if (!c) return;
  free(c->nums); free(c->stats); free(c->pl); free(c->p_off); free(c);
}

/* Gathers a MIGLOBGET from the cache if the list, mapping and store layout (gen, read in this
 * gather) are unchanged: 1, or 0 to resolve. */
static int glob_cached(mi_session *s, rd *r, const int32_t *nums, int n, uint8_t *out, int32_t size, int mapping) {
  const struct mi_glob_cache *c = s->gcache;
  if (!c || c->gen != MI_LD(r->g->h.gen) || c->n != n || c->mapping != mapping || c->rec > size ||
      memcmp(c->nums, nums, sizeof(int32_t) * (size_t)n) != 0)
    return 0;
  int32_t stride, nent;
  const int64_t *row = rd_rows(r, MI_DOM_GLOBAL, &stride, &nent);
  if (!row || stride < c->reach || r->mapping != c->sysmap) { r->torn = 1; return 0; }
  const mi_round rnd = r->rnd;
  for (int k = 0; k < c->np; k++) {
    int32_t x = (int32_t)(uint32_t)(uint64_t)MI_LD(row[c->p_off[k]]);
    memcpy(out + c->p_dst[k], &x, 4);
  }
  for (int k = 0; k < c->nt; k++) {
    int32_t x = (int32_t)(uint32_t)(uint64_t)mi_round_div(&rnd, MI_LD(row[c->t_off[k]]));
    memcpy(out + c->t_dst[k], &x, 4);
  }
  for (int k = 0; k < c->no; k++) {
    const plan *p = &c->pl[c->o_idx[k]];
    if (p->status) memset(out + c->o_dst[k], 0, (size_t)p->size);
    else put_counter(r, p, row, mapping, out + c->o_dst[k]);
  }
  return 1;
}

/* ---- global ---- */

/* MIGLOBON in a write section. */
static void globon_locked(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int n, int32_t *mapping) {
  mi_system *sys = s->sys;
  if (s->u->glob_on) { MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }
  if (s->gcache) s->gcache->gen = 0;   /* the cached statuses were for the old enable set */
  int rc = mi_user_take(s);
  if (rc) { MI_STATUS(st, rc); return; }
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); mi_user_release_if_idle(s); return; }
  int good, last;
  enable_list(s, MI_DOM_GLOBAL, nums, stats, n, s->u->glob_en, NULL, NULL, &good, &last);
  s->u->glob_on = good > 0;
  if (good) glob_cache_reserve(s, n);
  finish(st, n, good, last, warn);
  if (!good) mi_user_release_if_idle(s);
}

void mi_globon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  mi_wlock(sys);
  globon_locked(s, st, nums, stats, n, mapping);
  mi_wunlock(sys);
}

/* One MIGLOBGET gather; a status (0 or -20008), with the item statuses and counts. */
static int glob_gather(mi_session *s, rd *r, int32_t *nums, int n, uint8_t *buf, int32_t *stats, int32_t size,
                       int mapping, int *good, int *last, int *cached) {
  struct mi_glob_cache *c = s->gcache;
  if ((*cached = glob_cached(s, r, nums, n, buf, size, mapping))) return 0;
  int32_t stride, nent;
  uint64_t gen = MI_LD(r->g->h.gen);
  const int64_t *row = rd_rows(r, MI_DOM_GLOBAL, &stride, &nent);
  uint8_t *out = buf;
  int32_t room = size;
  int keep = c && n <= c->cap;
  if (keep) c->gen = 0;   /* emptied while its plans are rewritten: a GET that fails part-way leaves it empty */
  *good = 0; *last = 0;
  for (int i = 0; i < n; i++) {
    plan p;
    int st = resolve(r, MI_DOM_GLOBAL, nums[i], s->u->glob_en, mapping, stride, &p);
    if (!st && !row) st = p.status = MI_E_NOT_ENABLED, r->torn = 1;
    if (p.size > room) return MI_E_BUFFER_TOO_SMALL;
    room -= p.size;
    if (st) { memset(out, 0, (size_t)p.size); *last = i + 1; }
    else { put_counter(r, &p, row, mapping, out); (*good)++; }
    stats[i] = st;
    if (keep) c->pl[i] = p;
    out += p.size;
  }
  if (keep && !r->torn) {
    memcpy(c->nums, nums, sizeof(int32_t) * (size_t)n);
    memcpy(c->stats, stats, sizeof(int32_t) * (size_t)n);
    c->n = n; c->mapping = mapping; c->good = *good; c->last = *last;
    c->rec = (int32_t)(out - buf);
    c->reach = stride;
    c->sysmap = r->mapping;
    int32_t dst = 0;
    c->np = c->nt = c->no = 0;
    for (int i = 0; i < n; i++) {
      const plan *p = &c->pl[i];
      if (!p->status && p->kind == MI_KIND_SIMPLE) {
        if (p->time) { c->t_off[c->nt] = p->off; c->t_dst[c->nt++] = dst; }
        else { c->p_off[c->np] = p->off; c->p_dst[c->np++] = dst; }
      } else { c->o_idx[c->no] = i; c->o_dst[c->no++] = dst; }
      dst += p->size;
    }
    c->gen = gen;
  } else if (c) c->gen = 0;
  return 0;
}

void mi_globget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                int32_t mapping, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if (!s->u->glob_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  int good = 0, last = 0, cached = 0, locked = 0;
  rd r;
  READ_LOOP(sys, locked, {
    rd_start(&r, sys);
    rc = glob_gather(s, &r, nums, n, buf, stats, size, mapping, &good, &last, &cached);
  });
  if (locked) mi_wunlock(sys);
  if (sys->owner_gone) { MI_STATUS(st, MI_E_STORE_OWNER_GONE); return; }
  if (rc) { if (s->gcache) s->gcache->gen = 0; MI_STATUS(st, rc); return; }
  if (cached) {
    memcpy(stats, s->gcache->stats, sizeof(int32_t) * (size_t)n);
    finish(st, n, s->gcache->good, s->gcache->last, 0);
    return;
  }
  finish(st, n, good, last, 0);
}

/* Turns off everything global s has on (in a write section). */
void mi_globoff_all(mi_session *s) {
  if (!s->u->glob_on) return;
  if (s->gcache) s->gcache->gen = 0;   /* the cached statuses were for this enable set */
  disable_all(s, MI_DOM_GLOBAL, s->u->glob_en);
  s->u->glob_on = 0;
  mi_user_release_if_idle(s);
}

void mi_globoff(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (!s->u->glob_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_wlock(s->sys);
  mi_globoff_all(s);
  mi_wunlock(s->sys);
  MI_STATUS(st, 0);
}

/* ---- processes ---- */

/* Returns 1 if the valid items of nums form exactly the set in en. */
static int same_set(int d, const int32_t *nums, int n, const uint64_t *en, int16_t count) {
  int seen = 0;
  uint64_t mark[16] = {0};
  for (int i = 0; i < n; i++) {
    const mi_item_info *it = mi_item_lookup(nums[i]);
    if (!it || it->domain != d || it->kind == MI_KIND_PSEUDO) continue;
    if (!mi_bit(en, it->index)) return 0;
    if (!mi_bit(mark, it->index)) { mi_bit_set(mark, it->index); seen++; }
  }
  return seen == count;
}

/* Marks every live process as monitored by s (MIPROCON of all). */
static void monitor_all(mi_session *s) {
  const mi_seg *g = s->sys->seg;
  s->u->proc_all = 1;
  for (int i = 0; i < g->proc_hi; i++)
    if (g->procs[i].state == MI_PS_ALIVE) mi_abit_set(s->u->mon, i);
}

/* MIPROCON in a write section. */
static void procon_locked(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int n, int32_t *mapping,
                          longint_type *pid) {
  mi_system *sys = s->sys;
  mi_urec *u = s->u;
  int64_t want = pid ? mi_longint_get(pid) : -1;
  int slot = -1;
  if (want != -1) {
    slot = mi_host_proc_slot(sys, want);
    if (slot < 0 || sys->seg->procs[slot].state != MI_PS_ALIVE) { MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
  }
  if (u->proc_on) {
    /* a further ON adds processes; it must name the same counters */
    if (!same_set(MI_DOM_PROCESS, nums, n, u->proc_en, (int16_t)u->proc_nitems)) { MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }
    int warn = take_mapping(sys, mapping);
    if (warn < 0) { MI_STATUS(st, warn); return; }
    int good = 0, last = 0;
    for (int i = 0; i < n; i++) {
      const mi_item_info *it = mi_item_lookup(nums[i]);
      stats[i] = it && it->domain == MI_DOM_PROCESS ? 0 : MI_E_BAD_ITEM;
      if (stats[i]) last = i + 1; else good++;
    }
    if (slot >= 0) mi_abit_set(u->mon, slot);
    else monitor_all(s);
    finish(st, n, good, last, warn);
    return;
  }
  int rc = mi_user_take(s);
  if (rc) { MI_STATUS(st, rc); return; }
  u = s->u;
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); mi_user_release_if_idle(s); return; }
  int good, last;
  u->proc_nitems = 0;
  enable_list(s, MI_DOM_PROCESS, nums, stats, n, u->proc_en, u->proc_items, &u->proc_nitems, &good, &last);
  if (!good) { finish(st, n, good, last, warn); mi_user_release_if_idle(s); return; }
  u->proc_on = 1;
  for (int w = 0; w < MI_PROC_WORDS; w++) { MI_ST(u->mon[w], 0); MI_ST(u->dead[w], 0); }
  MI_ST(u->untracked, 0);
  if (slot >= 0) mi_abit_set(u->mon, slot);
  else monitor_all(s);
  finish(st, n, good, last, warn);
}

void mi_procon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
               longint_type *pid, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  if (pid && ((uintptr_t)pid & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  mi_wlock(sys);
  procon_locked(s, st, nums, stats, n, mapping, pid);
  mi_wunlock(sys);
}

/* A record's layout, split once per GET: plain and time counters (most items, copied in
 * tight loops), the pid (the usual first item), and the rest (other pseudo-items, class
 * arrays, zero-filled items). */
typedef struct rec_ops {
  int np, nt, no;
  int32_t pid_dst;                        /* -1: item 20001 not asked (or asked again) */
  int32_t p_off[MI_MAX_ITEMS], p_dst[MI_MAX_ITEMS];
  int32_t t_off[MI_MAX_ITEMS], t_dst[MI_MAX_ITEMS];
  int32_t o_idx[MI_MAX_ITEMS], o_dst[MI_MAX_ITEMS];
} rec_ops;

/* Splits the plans of a record by how each is copied. */
static void split_ops(const plan *pl, const int32_t *nums, int n, rec_ops *ops) {
  int32_t dst = 0;
  ops->np = ops->nt = ops->no = 0;
  ops->pid_dst = -1;
  for (int i = 0; i < n; i++) {
    const plan *p = &pl[i];
    if (p->kind == MI_KIND_SIMPLE && !p->status) {
      if (p->time) { ops->t_off[ops->nt] = p->off; ops->t_dst[ops->nt++] = dst; }
      else { ops->p_off[ops->np] = p->off; ops->p_dst[ops->np++] = dst; }
    } else if (p->kind == MI_KIND_PSEUDO && !p->status && nums[i] == 20001 && ops->pid_dst < 0) ops->pid_dst = dst;
    else { ops->o_idx[ops->no] = i; ops->o_dst[ops->no++] = dst; }
    dst += p->size;
  }
}

/* Writes one process record at out. */
static inline __attribute__((always_inline)) void put_proc_record(const rd *r, const mi_round *rnd, const plan *pl,
    const rec_ops *ops, const int32_t *nums, const int64_t *rows, int32_t stride, int slot, int mapping, uint8_t *out) {
  const int64_t *row = rows ? rows + (size_t)slot * stride : NULL;
  const mi_proc *pr = &r->g->procs[slot];
  if (ops->pid_dst >= 0) put_longint(out + ops->pid_dst, MI_LD(pr->pid));
  if (row) {
    for (int k = 0; k < ops->np; k++) {
      int32_t x = (int32_t)(uint32_t)(uint64_t)MI_LD(row[ops->p_off[k]]);
      memcpy(out + ops->p_dst[k], &x, 4);
    }
    for (int k = 0; k < ops->nt; k++) {
      int32_t x = (int32_t)(uint32_t)(uint64_t)mi_round_div(rnd, MI_LD(row[ops->t_off[k]]));
      memcpy(out + ops->t_dst[k], &x, 4);
    }
  } else {
    for (int k = 0; k < ops->np; k++) memset(out + ops->p_dst[k], 0, 4);
    for (int k = 0; k < ops->nt; k++) memset(out + ops->t_dst[k], 0, 4);
  }
  for (int k = 0; k < ops->no; k++) {
    const plan *p = &pl[ops->o_idx[k]];
    uint8_t *dst = out + ops->o_dst[k];
    if (p->status || (!row && p->kind != MI_KIND_PSEUDO)) memset(dst, 0, (size_t)p->size);
    else if (p->kind == MI_KIND_PSEUDO) put_pseudo_proc(r, pr, nums[ops->o_idx[k]], dst);
    else put_counter(r, p, row, mapping, dst);
  }
}

/* What one MIPROCGET gather produced beside the buffer. */
typedef struct proc_res {
  int good, last;
  int32_t done;
  int slot;                          /* the one record of a single-pid GET */
  uint64_t told[MI_PROC_WORDS];      /* dead processes this GET reported */
  rec_ops ops;
} proc_res;

/* One MIPROCGET gather; a status (0 or an error, -20015/-20009 included). */
static int proc_gather(mi_session *s, rd *r, int32_t *nums, int n, uint8_t *buf, int32_t *stats, int32_t size,
                       int mapping, int64_t want, const int32_t *miproc_ptr, proc_res *res) {
  plan pl[MI_MAX_ITEMS];
  int32_t stride, nent;
  const int64_t *rows = rd_rows(r, MI_DOM_PROCESS, &stride, &nent);
  if (rows && nent < MI_MAX_PROCESSES) { r->torn = 1; rows = NULL; }
  const mi_urec *u = s->u;
  memset(res->told, 0, sizeof res->told);
  res->done = 0; res->slot = -1;
  int32_t rec = plan_all(r, MI_DOM_PROCESS, nums, stats, n, u->proc_en, mapping, stride, pl, &res->good, &res->last);
  if (n > 0 && !res->good) return MI_E_NO_VALID_ITEMS;
  if (rec > size || rec == 0) return MI_E_BUFFER_TOO_SMALL;
  rec_ops *ops = &res->ops;
  split_ops(pl, nums, n, ops);
  const mi_round rnd = r->rnd;
  int32_t fit = size / rec;
  uint8_t *out = buf;
  const mi_seg *g = r->g;
  if (want != -1) {
    int slot = -1;
    int32_t k = miproc_ptr ? *miproc_ptr : 0;
    if (k > 0 && MI_LD(g->procs[k - 1].pid) == want && MI_LD(g->procs[k - 1].state) != MI_PS_FREE) slot = k - 1;
    else slot = mi_host_proc_slot(s->sys, want);
    if (slot < 0 || !mi_abit(u->mon, slot)) return MI_E_NO_SUCH_PID;
    put_proc_record(r, &rnd, pl, ops, nums, rows, stride, slot, mapping, out);
    res->done = 1;
    res->slot = slot;
    if (mi_abit(u->dead, slot)) mi_bit_set(res->told, slot);
    return 0;
  }
  int more = 0;
  for (int w = 0; w < MI_PROC_WORDS && !more; w++) {
    uint64_t bits = MI_LD(u->mon[w]), dead = MI_LD(u->dead[w]);
    while (bits) {
      int slot = w * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      if (res->done == fit) { more = 1; break; }
      put_proc_record(r, &rnd, pl, ops, nums, rows, stride, slot, mapping, out);
      out += rec;
      res->done++;
      if (dead >> (slot & 63) & 1) mi_bit_set(res->told, slot);
    }
  }
  if (more) return MI_E_BUFFER_PARTIAL;
  if (!res->done) return MI_E_NO_PROCESS_DATA;
  return 0;
}

void mi_procget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                int32_t mapping, longint_type *pid, int32_t *num_of_pids, int32_t *miproc_ptr, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if (pid && ((uintptr_t)pid & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (num_of_pids && ((uintptr_t)num_of_pids & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (miproc_ptr && ((uintptr_t)miproc_ptr & 3)) { MI_STATUS(st, MI_E_MIPROC_ALIGNMENT); return; }
  if (miproc_ptr && (*miproc_ptr < 0 || *miproc_ptr > MI_MAX_PROCESSES)) { MI_STATUS(st, MI_E_BAD_MIPROC_PTR); return; }
  if (num_of_pids) *num_of_pids = 0;
  if (!s->u->proc_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  int64_t want = pid ? mi_longint_get(pid) : -1;
  proc_res res;
  int locked = 0;
  rd r;
  READ_LOOP(sys, locked, {
    rd_start(&r, sys);
    rc = proc_gather(s, &r, nums, n, buf, stats, size, mapping, want, miproc_ptr, &res);
  });
  if (sys->owner_gone) { if (locked) mi_wunlock(sys); MI_STATUS(st, MI_E_STORE_OWNER_GONE); return; }
  /* the deaths this GET reported are forgotten for this user: that changes the table */
  int any = 0;
  for (int w = 0; w < MI_PROC_WORDS; w++) any |= res.told[w] != 0;
  if (any) {
    if (!locked) mi_wlock(sys);
    locked = 1;
    for (int w = 0; w < MI_PROC_WORDS; w++)
      for (uint64_t b = res.told[w]; b; b &= b - 1) {
        int slot = w * 64 + __builtin_ctzll(b);
        if (mi_bit(s->u->dead, slot)) mi_proc_release_user(sys, s, slot);
      }
  }
  if (locked) mi_wunlock(sys);
  if (want != -1) {
    if (rc) { MI_STATUS(st, rc); return; }
    if (miproc_ptr) *miproc_ptr = res.slot + 1;
  } else {
    if (num_of_pids) *num_of_pids = res.done;
    if (rc) { MI_STATUS(st, rc); return; }
  }
  if (num_of_pids) *num_of_pids = res.done;
  int warn = 0;
  if (__atomic_exchange_n(&s->u->untracked, 0, __ATOMIC_RELAXED)) warn = MI_E_PROCESSES_UNTRACKED;
  finish(st, n, res.good, res.last, warn);
}

/* Turns off everything s monitors in the process domain (in a write section). */
void mi_procoff_all(mi_session *s) {
  mi_urec *u = s->u;
  if (!u->proc_on) return;
  for (int i = 0; i < MI_MAX_PROCESSES; i++)
    if (mi_bit(u->mon, i)) mi_proc_release_user(s->sys, s, i);
  disable_all(s, MI_DOM_PROCESS, u->proc_en);
  u->proc_on = 0;
  MI_ST(u->proc_all, 0);
  u->proc_nitems = 0;
  mi_user_release_if_idle(s);
}

void mi_procoff(mi_session *s, status_type *st, longint_type *pid, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (pid && ((uintptr_t)pid & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (!s->u->proc_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  int64_t want = pid ? mi_longint_get(pid) : -1;
  mi_wlock(s->sys);
  if (want == -1) { mi_procoff_all(s); mi_wunlock(s->sys); MI_STATUS(st, 0); return; }
  int slot = mi_host_proc_slot(s->sys, want);
  if (slot < 0 || !mi_bit(s->u->mon, slot)) { mi_wunlock(s->sys); MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
  MI_ST(s->u->proc_all, 0);  /* turning one process off ends "all processes" */
  mi_proc_release_user(s->sys, s, slot);
  mi_wunlock(s->sys);
  MI_STATUS(st, 0);
}

/* ---- I/O ---- */

/* Returns the device-type bits an ldev selector names, or -1 if invalid. */
static int type_bits(const mi_system *sys, int32_t ldev) {
  if (ldev == -1) return 0x7FE;
  if (ldev <= -2 && ldev >= -11) return 1 << (-ldev - 1);
  if (ldev >= 1 && ldev <= MI_MAX_LDEV && MI_LD(sys->seg->devtype[ldev])) return 1 << MI_LD(sys->seg->devtype[ldev]);
  return -1;
}

/* Adds one LDEV to s's device set; 0 or a limit status. */
static int add_ldev(mi_session *s, int ldev) {
  mi_seg *g = s->sys->seg;
  mi_urec *u = s->u;
  if (mi_bit(u->ldevs, ldev)) return 0;
  if (u->nldevs >= g->max_ldevs_per_user) return MI_E_LDEV_LIMIT;
  if (!g->ldev_refs[ldev] && g->ldevs_enabled >= g->max_ldevs) return MI_E_LDEV_TABLE_FULL;
  if (!g->ldev_refs[ldev]++) g->ldevs_enabled++;
  mi_bit_set(u->ldevs, ldev);
  u->nldevs++;
  return 0;
}

/* Removes one LDEV from user record u's device set and gives back its MI device table reference. */
static void drop_ldev(mi_seg *g, mi_urec *u, int ldev) {
  if (!mi_bit(u->ldevs, ldev)) return;
  mi_bit_clr(u->ldevs, ldev);
  u->nldevs--;
  if (g->ldev_refs[ldev] && !--g->ldev_refs[ldev]) g->ldevs_enabled--;
}

/* Removes the LDEVs of the device types in bits from s's set (all of them for every type). */
static void drop_types(mi_session *s, int bits) {
  mi_seg *g = s->sys->seg;
  mi_urec *u = s->u;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (mi_bit(u->ldevs, l) && (bits == 0x7FE || (bits >> g->devtype[l] & 1))) drop_ldev(g, u, l);
  u->io_types &= (uint16_t)~bits;
}

/* MIIOON in a write section. */
static void ioon_locked(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int n, int32_t *mapping,
                        int32_t sel) {
  mi_system *sys = s->sys;
  mi_seg *g = sys->seg;
  int bits = type_bits(sys, sel);
  if (bits < 0) { MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (s->u->io_on && ((s->u->io_types & bits) || !same_set(MI_DOM_IO, nums, n, s->u->io_en, (int16_t)s->u->io_nitems))) {
    MI_STATUS(st, MI_E_ALREADY_ENABLED);
    return;
  }
  /* room check first: a type is enabled whole or not at all */
  int need = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (g->devtype[l] && (bits >> g->devtype[l] & 1) && (sel < 1 || l == sel) && !mi_bit(s->u->ldevs, l)) need++;
  int fresh = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (g->devtype[l] && (bits >> g->devtype[l] & 1) && (sel < 1 || l == sel) && !g->ldev_refs[l]) fresh++;
  if (s->u->nldevs + need > g->max_ldevs_per_user) { MI_STATUS(st, sel >= 1 ? MI_E_LDEV_LIMIT : MI_E_DEVICE_TYPE_PARTIAL); return; }
  if (g->ldevs_enabled + fresh > g->max_ldevs) { MI_STATUS(st, sel >= 1 ? MI_E_LDEV_TABLE_FULL : MI_E_DEVICE_TYPE_PARTIAL); return; }
  int first = !s->u->io_on;
  if (first) {
    int rc = mi_user_take(s);
    if (rc) { MI_STATUS(st, rc); return; }
  }
  mi_urec *u = s->u;
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); if (first) mi_user_release_if_idle(s); return; }
  int good, last;
  if (first) {
    u->io_nitems = 0;
    enable_list(s, MI_DOM_IO, nums, stats, n, u->io_en, u->io_items, &u->io_nitems, &good, &last);
    if (!good) { finish(st, n, good, last, warn); mi_user_release_if_idle(s); return; }
    u->io_on = 1;
  } else {
    good = 0; last = 0;
    for (int i = 0; i < n; i++) {
      const mi_item_info *it = mi_item_lookup(nums[i]);
      stats[i] = it && it->domain == MI_DOM_IO ? 0 : MI_E_BAD_ITEM;
      if (stats[i]) last = i + 1; else good++;
    }
  }
  u->io_types |= (uint16_t)bits;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (g->devtype[l] && (bits >> g->devtype[l] & 1) && (sel < 1 || l == sel)) add_ldev(s, l);
  finish(st, n, good, last, warn);
}

/* An LDEV was removed or changed type (in a write section): it leaves every MI user's set
 * (any process's) and the MI device table. */
void mi_io_forget_ldev(mi_system *sys, int ldev) {
  mi_seg *g = sys->seg;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++)
    if (g->users[i].used) drop_ldev(g, &g->users[i], ldev);
}

void mi_ioon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t *ldev,
             int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  if (ldev && ((uintptr_t)ldev & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  mi_wlock(sys);
  ioon_locked(s, st, nums, stats, n, mapping, ldev ? *ldev : -1);
  mi_wunlock(sys);
}

/* One MIIOGET gather; a status (0, or an error; -20015 with *done records). */
static int io_gather(mi_session *s, rd *r, int32_t *nums, int n, uint8_t *buf, int32_t *stats, int32_t size,
                     int mapping, int32_t sel, int *good, int *last, int32_t *done) {
  plan pl[MI_MAX_ITEMS];
  int32_t stride, nent;
  const int64_t *rows = rd_rows(r, MI_DOM_IO, &stride, &nent);
  if (rows && nent <= MI_MAX_LDEV) { r->torn = 1; rows = NULL; }
  *done = 0;
  int32_t rec = plan_all(r, MI_DOM_IO, nums, stats, n, s->u->io_en, mapping, stride, pl, good, last);
  if (n > 0 && !*good) return MI_E_NO_VALID_ITEMS;
  if (rec > size || rec == 0) return MI_E_BUFFER_TOO_SMALL;
  int bits = sel == -1 ? 0x7FE : sel < 0 ? 1 << (-sel - 1) : 0;
  int32_t fit = size / rec;
  uint8_t *out = buf;
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    if (!mi_bit(s->u->ldevs, l) || (sel >= 1 ? l != sel : !(bits >> MI_LD(r->g->devtype[l]) & 1))) continue;
    if (*done == fit) return MI_E_BUFFER_PARTIAL;
    const int64_t *row = rows ? rows + (size_t)l * stride : NULL;
    for (int i = 0; i < n; i++) {
      if (pl[i].status || (!row && pl[i].kind != MI_KIND_PSEUDO)) memset(out, 0, (size_t)pl[i].size);
      else if (pl[i].kind == MI_KIND_PSEUDO) { int32_t v = l; memcpy(out, &v, 4); }
      else put_counter(r, &pl[i], row, mapping, out);
      out += pl[i].size;
    }
    (*done)++;
  }
  return 0;
}

void mi_ioget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
              int32_t mapping, int32_t *ldev, int32_t *num_of_ldevs, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if ((ldev && ((uintptr_t)ldev & 3)) || (num_of_ldevs && ((uintptr_t)num_of_ldevs & 3))) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (num_of_ldevs) *num_of_ldevs = 0;
  mi_system *sys = s->sys;
  int32_t sel = ldev ? *ldev : -1;
  if (sel == 0 || sel < -11 || sel > MI_MAX_LDEV) { MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (!s->u->io_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  if (sel >= 1 && !mi_bit(s->u->ldevs, sel)) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_sys_refresh(sys);
  int good = 0, last = 0, locked = 0;
  int32_t done = 0;
  rd r;
  READ_LOOP(sys, locked, {
    rd_start(&r, sys);
    rc = io_gather(s, &r, nums, n, buf, stats, size, mapping, sel, &good, &last, &done);
  });
  if (locked) mi_wunlock(sys);
  if (sys->owner_gone) { MI_STATUS(st, MI_E_STORE_OWNER_GONE); return; }
  if (rc != MI_E_NO_VALID_ITEMS && rc != MI_E_BUFFER_TOO_SMALL && num_of_ldevs) *num_of_ldevs = done;
  if (rc) { MI_STATUS(st, rc); return; }
  finish(st, n, good, last, 0);
}

/* Turns off every device type s has on (in a write section). */
void mi_iooff_all(mi_session *s) {
  if (!s->u->io_on) return;
  drop_types(s, 0x7FE);
  disable_all(s, MI_DOM_IO, s->u->io_en);
  s->u->io_on = 0;
  s->u->io_nitems = 0;
  mi_user_release_if_idle(s);
}

void mi_iooff(mi_session *s, status_type *st, int32_t *ldev, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (ldev && ((uintptr_t)ldev & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  int32_t sel = ldev ? *ldev : -1;
  mi_wlock(s->sys);
  int bits = type_bits(s->sys, sel);
  if (bits < 0) { mi_wunlock(s->sys); MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (!s->u->io_on) { mi_wunlock(s->sys); MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  drop_types(s, bits);
  if (!s->u->io_types) mi_iooff_all(s);
  mi_wunlock(s->sys);
  MI_STATUS(st, 0);
}

/* ---- processors ---- */

/* One MIPRCSRGET gather; a status (0, or an error; -20015 with *done records). */
static int prcsr_gather(rd *r, int32_t *nums, int n, uint8_t *buf, int32_t *stats, int32_t size, int mapping,
                        int32_t id, int *good, int *last, int32_t *done) {
  plan pl[MI_MAX_ITEMS];
  int32_t stride, nent;
  const int64_t *rows = rd_rows(r, MI_DOM_PROCESSOR, &stride, &nent);
  if (rows && nent < MI_MAX_PROCESSORS) { r->torn = 1; rows = NULL; }
  *done = 0;
  int32_t rec = plan_all(r, MI_DOM_PROCESSOR, nums, stats, n, NULL, mapping, stride, pl, good, last);
  if (n > 0 && !*good) return MI_E_NO_VALID_ITEMS;
  int first = id < 0 ? 0 : id, count = id < 0 ? MI_MAX_PROCESSORS : 1;
  if (rec == 0 || rec > size) return MI_E_BUFFER_TOO_SMALL;
  int32_t fit = size / rec;
  uint8_t *out = buf;
  for (int c = first; c < first + count && *done < fit; c++, (*done)++) {
    const int64_t *row = rows ? rows + (size_t)c * stride : NULL;
    for (int i = 0; i < n; i++) {
      if (pl[i].status || (!row && pl[i].kind != MI_KIND_PSEUDO)) memset(out, 0, (size_t)pl[i].size);
      else if (pl[i].kind == MI_KIND_PSEUDO) { int32_t v = c; memcpy(out, &v, 4); }
      else put_counter(r, &pl[i], row, mapping, out);
      out += pl[i].size;
    }
  }
  return *done < count ? MI_E_BUFFER_PARTIAL : 0;
}

void mi_prcsrget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                 int32_t mapping, int32_t *prcsr_id, int32_t *num_of_prcsrs, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if ((prcsr_id && ((uintptr_t)prcsr_id & 3)) || (num_of_prcsrs && ((uintptr_t)num_of_prcsrs & 3))) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (num_of_prcsrs) *num_of_prcsrs = 0;
  int32_t id = prcsr_id ? *prcsr_id : -1;
  if (id < -1 || id >= MI_MAX_PROCESSORS) { MI_STATUS(st, MI_E_BAD_LDEV); return; }
  mi_system *sys = s->sys;
  const mi_item_info *pauses = mi_item_lookup(ITEM_PAUSES);
  if (!s->u->glob_on || !mi_bit(s->u->glob_en, pauses->index)) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_sys_refresh(sys);
  int good = 0, last = 0, locked = 0;
  int32_t done = 0;
  rd r;
  READ_LOOP(sys, locked, {
    rd_start(&r, sys);
    rc = prcsr_gather(&r, nums, n, buf, stats, size, mapping, id, &good, &last, &done);
  });
  if (locked) mi_wunlock(sys);
  if (sys->owner_gone) { MI_STATUS(st, MI_E_STORE_OWNER_GONE); return; }
  if ((rc == 0 || rc == MI_E_BUFFER_PARTIAL) && num_of_prcsrs) *num_of_prcsrs = done;
  if (rc) { MI_STATUS(st, rc); return; }
  finish(st, n, good, last, 0);
}
