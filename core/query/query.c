/* query.c — door 2: prepared reads. A query resolves its item list once into a plan and
 * re-resolves it only when the segment's gen moved (every enable, disable, enable-set or
 * mapping change bumps it). Running a query is the body of a GET: its semantic checks, then
 * under the seqlock (read the sequence, gather, check nothing was published meanwhile, else
 * gather again) the plan check, the selection of entities and ONE gather loop — pure: it
 * reads the segment, writes the caller's buffer, and every row address and plan offset it
 * uses is checked to lie in the arena, so a torn read stays in the segment —, then the side
 * effects (dead-process reports released in a write section, warning 20001 cleared). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_internal.h"
#include "mi_query.h"

#define ITEM_PAUSES 21164
/* Gathers that saw a publish before a private system's GET reads under the writer lock (a last
 * resort: from the second gather on, writers hold off for the reader; see seg.c, "the hold-off"). */
#define READ_TRIES 4
/* How long a process attached to a shared store keeps trying a read before it says -32006: while
 * the store's sequence stands still (its writer stopped), and in all (a writer that ignores requests). */
#define MI_READ_WAIT_MS 60
#define MI_READ_GIVEUP_MS 2000

/* What the gather writes for an item. */
enum {
  OP_SIMPLE,     /* one cell in the 32-bit view */
  OP_TIME,       /* one time cell in MI_Time */
  OP_ZERO,       /* a zero slot (item error) */
  OP_ARRAY,      /* object- or semaphore-class cells (folded if asked) */
  OP_ENTITY,     /* the entity number: ldev (20020), processor (20040) */
  OP_PID,        /* the process's pid (20001) as a longint */
  OP_UDEF,       /* a user-defined counter other than a single ACCUM (store/udef.c) */
  OP_WIDE,       /* one cell as an int64 (time counters in MI_Time): a wide query */
  OP_WARRAY,     /* object- or semaphore-class cells as int64s: a wide query */
  OP_PROC        /* another process pseudo-item 20002-20012 (op + item - 20001); keep last */
};

/* ---- one read of the segment ---- */

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

/* The rows of domain d (NULL when it has none) and their stride, checked to lie in the arena
 * and to hold at least `need` entities. */
static const int64_t *rd_rows(rd *r, int d, int32_t need, int32_t *stride) {
  const mi_host_lane *ln = &r->g->blk.lane[d];
  int64_t at = MI_LD(ln->cells);
  int32_t st = MI_LD(ln->stride), ne = MI_LD(ln->nent);
  *stride = 0;
  if (!at) return NULL;
  if (at < r->g->arena_base || st <= 0 || ne < need ||
      at + (int64_t)st * ne > r->g->arena_base + r->g->arena_words) { r->torn = 1; return NULL; }
  *stride = st;
  return (const int64_t *)(const void *)&r->g->blk + at;
}

/* Runs the statements (returning a status) until they saw one published state: the seqlock
 * read. The first gather starts at once if a state is published (the hot path: one load); any
 * later one first asks writers to hold off and waits for the open section's publish (seg.c,
 * "the hold-off": a futex handoff, so the reader needs no lock and no luck in scheduling).
 * After READ_TRIES gathers that each saw a publish, a private system's reader (or the owner of a
 * shared store) runs the next one inside a write section, still open on return when `locked` is
 * set; a process attached to a shared store never takes the lock for a read: it tries again,
 * and gives up with `busy` set once the store's sequence stood odd and still for
 * MI_READ_WAIT_MS (a writer stopped inside its section — Ctrl-Z, a debugger — must not hang its
 * readers) or after MI_READ_GIVEUP_MS in all. READ_LOOP_OR first tries `alt` (an expression,
 * 1 when it read the values another way: glob_snap) before each wait. */
#define READ_LOOP(sys, locked, busy, ...) READ_LOOP_OR(sys, locked, busy, 0, __VA_ARGS__)
#define READ_LOOP_OR(sys, locked, busy, alt, ...) do {                        \
    stuck st_ = {0, 0, 0, 0};                                                 \
    for (int tries_ = 0;; tries_++) {                                         \
      if (tries_ && !(locked) && (alt)) break;                                \
      if (tries_ >= READ_TRIES && !(locked)) {                                \
        int w_ = read_stuck((sys), &st_);                                     \
        if (w_ == 1) (locked) = 1;                                            \
        else if (w_ == 2) { (busy) = 1; break; }                              \
      }                                                                       \
      uint64_t q_;                                                            \
      if (!((locked) || !tries_ ? mi_read_try((sys), &q_)                     \
                                : mi_read_wait((sys), &q_, &st_.req))) continue; \
      __VA_ARGS__;                                                            \
      if (mi_read_valid((sys), q_)) break;                                    \
      MI_FIG((sys)->rf.retries);                                              \
    }                                                                         \
    if (st_.req) mi_read_hold((sys), st_.req);                                \
  } while (0)

/* A starving attached reader's state: when it began waiting, its standing hold-off request,
 * the sequence it last saw and since when. */
typedef struct stuck { int64_t since; uint64_t req, seq; int64_t seq_ms; } stuck;

/* What a reader that keeps seeing publishes does next: 1 it took the write lock (a private
 * system, or the owner of a shared store), 0 try again (its hold-off request renewed by the
 * next wait), 2 give up (the store stays busy). */
static int read_stuck(mi_system *sys, stuck *k) {
  if (!sys->attached) {
    if (k->req) k->req = mi_read_hold(sys, k->req);   /* withdrawn: the lock's writer must not wait for it */
    return mi_wlock_bounded(sys) == 0 ? 1 : 2;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  uint64_t seq = __atomic_load_n(&sys->seg->h.seq, __ATOMIC_RELAXED);
  if (!k->since || seq != k->seq) { k->seq = seq; k->seq_ms = now; }
  if (!k->since) k->since = now;
  if (now - k->seq_ms >= MI_READ_WAIT_MS || now - k->since >= MI_READ_GIVEUP_MS) return 2;
  return 0;
}

/* "Not enabled", unless the enable flags just read came from a store file that shrank (the SIGBUS
 * guard gave zero pages): then the store's own status. */
static int not_enabled(mi_system *sys) {
  int b = sys->shared ? mi_owner_check(sys) : 0;
  return b ? b : MI_E_NOT_ENABLED;
}

/* The status of a read that ended busy or on a broken store, else 0. */
static int read_failed(const mi_system *sys, int busy) {
  return sys->broken ? sys->broken : busy ? MI_E_STORE_BUSY : 0;
}

/* ---- plans ---- */

/* Lays out item num of domain d at mapping: catalog entry and size (fixed for the query); a
 * wide query's counters take 8 bytes per value. */
static void layout(mi_system *sys, int d, int32_t num, int mapping, int wide, mi_qitem *p) {
  const mi_item_info *it = mi_sys_item_fast(sys, num);
  memset(p, 0, sizeof *p);
  p->op = OP_ZERO;
  p->size = 4;
  if (!it || it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL)) return;
  p->it = it;
  int32_t sz = mi_item_size(it, mapping);
  p->size = sz < 4 ? 4 : sz;   /* a mapping outside 0-2: never gathered (-20007) */
  if (wide && it->kind != MI_KIND_PSEUDO) p->size *= 2;
  if (wide && (uint32_t)num - MI_UDEF_FIRST < MI_UDEF_MAX) {   /* 8 bytes per value it shows */
    const mi_udef_info *u = (const mi_udef_info *)(const void *)it;
    p->size = 8 * (u->kind == MI_UDEF_ACCUM ? u->elements : u->kind == MI_UDEF_QBUSY ? 2 : 1);
  }
}

/* Resolves item p (laid out) against the segment as r reads it and the caller's enable set
 * en (NULL: none). */
static void resolve(rd *r, int d, int32_t num, const uint64_t *en, int mapping, int wide, mi_qitem *p) {
  const mi_item_info *it = p->it;
  p->off = 0; p->words = 0; p->fold = 0; p->status = 0; p->op = OP_ZERO;
  if (!it) { p->status = MI_E_BAD_ITEM; return; }
  if (it->kind == MI_KIND_PSEUDO) {
    p->op = d != MI_DOM_PROCESS ? OP_ENTITY : num == 20001 ? OP_PID : (uint8_t)(OP_PROC + (num - 20001));
    return;
  }
  if (en && !mi_bit(en, it->index)) { p->status = MI_E_NOT_ENABLED; return; }
  int32_t off = MI_LD(r->g->blk.off[(d << MI_HOST_INDEX_BITS) + it->index]);
  if (off < 0) { p->status = MI_E_NOT_ENABLED; return; }
  p->off = off;
  p->words = 1;
  if (it->kind == MI_KIND_SEMCL) p->words = MI_NSEMCL;
  if (it->kind == MI_KIND_OBJCL) {
    if (r->mapping < 0) { r->torn = 1; p->status = MI_E_NOT_ENABLED; return; }
    if (mapping < r->mapping) { p->status = MI_E_MAPPING_CONVERSION; return; }
    p->fold = (uint8_t)(mapping != r->mapping);
    p->words = mi_objcl_len(r->mapping);
  }
  p->op = it->kind != MI_KIND_SIMPLE ? OP_ARRAY : it->unit == MI_UNIT_MI_TIME ? OP_TIME : OP_SIMPLE;
  if ((uint32_t)num - MI_UDEF_FIRST < MI_UDEF_MAX) {   /* user-defined: its cells and kind */
    const mi_udef_info *u = (const mi_udef_info *)(const void *)it;
    p->words = u->kind == MI_UDEF_ACCUM ? u->elements : u->kind == MI_UDEF_FACCUM ? 1 : u->kind == MI_UDEF_QBUSY ? 4 : 3;
    if (!(u->kind == MI_UDEF_ACCUM && u->elements == 1)) p->op = OP_UDEF;
  }
  if (wide && p->op != OP_UDEF) p->op = p->op == OP_ARRAY ? OP_WARRAY : OP_WIDE;
}

/* The caller's enable set for domain d (processors: none of their own). */
static const uint64_t *enable_set(const mi_session *s, int d) {
  const mi_urec *u = s->u;
  return d == MI_DOM_GLOBAL ? u->glob_en : d == MI_DOM_PROCESS ? u->proc_en : d == MI_DOM_IO ? u->io_en : NULL;
}

/* Brings q's plan up to date for this read (one compare when nothing changed); returns 1 if
 * it resolved. A plan resolved now is marked valid only once its read proved consistent
 * (settle). Rows of fewer words than the plan reaches make the read torn. */
static inline int prepare(mi_query *q, rd *r, int32_t stride) {
  uint64_t gen = MI_LD(r->g->h.gen);
  int fresh = 0;
  if (!(q->valid && q->gen == gen && q->sysmap == r->mapping && q->lgen == q->s->lgen)) {
    const uint64_t *en = enable_set(q->s, q->domain);
    int plain = 1;
    q->valid = 0;
    q->good = q->last = 0;
    q->reach = 0;
    for (int i = 0; i < q->n; i++) {
      mi_qitem *p = &q->pl[i];
      resolve(r, q->domain, q->nums[i], en, q->mapping, q->wide, p);
      q->stats[i] = p->status;
      if (p->status) q->last = i + 1; else q->good++;
      if (p->words && p->off + p->words > q->reach) q->reach = p->off + p->words;
      if (!((p->op == OP_SIMPLE || p->op == OP_TIME) && p->size == 4) && !(p->op == OP_PID && p->size == 8 && q->domain == MI_DOM_PROCESS))
        plain = 0;
    }
    q->plain = plain;
    q->gen = gen;
    q->lgen = q->s->lgen;
    q->sysmap = r->mapping;
    fresh = 1;
  }
  if (q->reach > stride) r->torn = 1;
  return fresh;
}

/* After a consistent read: a plan resolved in it is kept. */
static inline void settle(mi_query *q, const rd *r, int fresh) {
  if (fresh && !r->torn) q->valid = 1;
}

void mi_query_init(mi_query *q, mi_session *s, int domain, int mapping, void *mem, int cap) {
  memset(q, 0, sizeof *q);
  q->s = s; q->domain = domain; q->mapping = mapping; q->cap = cap;
  q->pl = mem;
  q->nums = (int32_t *)(q->pl + cap);
  q->stats = q->nums + cap + 1;
  q->nums[0] = 0;
  q->udef_seen = -1;
}

void mi_query_bind(mi_query *q, const int32_t *nums, int n, int mapping) {
  q->n = n;
  q->mapping = mapping;
  q->rec = 0;
  q->udef_seen = -1;
  for (int i = 0; i < n; i++) {
    q->nums[i] = nums[i];
    layout(q->s->sys, q->domain, nums[i], mapping, q->wide, &q->pl[i]);
    q->rec += q->pl[i].size;
    if (!q->pl[i].it && (uint32_t)nums[i] - MI_UDEF_FIRST < MI_UDEF_MAX) q->udef_seen = q->s->sys->udef_seen;
  }
  q->nums[n] = 0;
  q->valid = 0;
}

int mi_query_same(const mi_query *q, const int32_t *nums, int n, int mapping) {
  if (MI_UNLIKELY(q->udef_seen >= 0) && mi_udef_count(q->s->sys) > q->udef_seen) return 0;   /* installed since */
  return q->n == n && q->mapping == mapping && memcmp(q->nums, nums, sizeof(int32_t) * (size_t)n) == 0;
}

/* ---- the gather ---- */

/* The value of a 64-bit cell in the AIF's 32-bit view (time counters in MI_Time). */
static inline int32_t view(const rd *r, int64_t v, int time) {
  if (time) v = mi_round_div(&r->rnd, v);
  return (int32_t)(uint32_t)(uint64_t)v;
}

/* One class's cell added into a folded class: modulo 2^64 like the counters themselves, never
 * an overflow (an attached store's cells are whatever its file holds). */
static inline int64_t fold_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* Writes an object- or semaphore-class counter's values (folded to the query's map if asked). */
static void put_array(const rd *r, const mi_qitem *p, const int64_t *row, int mapping, uint8_t *dst) {
  const int64_t *c = row + p->off;
  int time = p->it->unit == MI_UNIT_MI_TIME;
  int n = p->words;
  if (!p->fold) {
    for (int k = 0; k < n; k++) { int32_t v = view(r, MI_LD(c[k]), time); memcpy(dst + 4 * k, &v, 4); }
    return;
  }
  int64_t acc[MI_NLARGE];
  int m = mi_objcl_len(mapping);
  memset(acc, 0, sizeof(int64_t) * (size_t)m);
  const uint16_t *f = mi_fold_[r->mapping][mapping];
  for (int k = 0; k < n; k++) acc[f[k]] = fold_add(acc[f[k]], MI_LD(c[k]));
  for (int k = 0; k < m; k++) { int32_t v = view(r, acc[k], time); memcpy(dst + 4 * k, &v, 4); }
}

/* put_array for a wide query: int64 values, time counters in MI_Time, never wrapped. */
static void put_warray(const rd *r, const mi_qitem *p, const int64_t *row, int mapping, uint8_t *dst) {
  const int64_t *c = row + p->off;
  int time = p->it->unit == MI_UNIT_MI_TIME;
  int n = p->words, m = n;
  int64_t acc[MI_NLARGE > MI_NSEMCL ? MI_NLARGE : MI_NSEMCL];
  if (!p->fold && !time) {   /* the common case: a straight copy */
    for (int k = 0; k < n; k++) { int64_t v = MI_LD(c[k]); memcpy(dst + 8 * k, &v, 8); }
    return;
  }
  if (!p->fold) for (int k = 0; k < n; k++) acc[k] = MI_LD(c[k]);
  else {
    m = mi_objcl_len(mapping);
    memset(acc, 0, sizeof(int64_t) * (size_t)m);
    const uint16_t *f = mi_fold_[r->mapping][mapping];
    for (int k = 0; k < n; k++) acc[f[k]] = fold_add(acc[f[k]], MI_LD(c[k]));
  }
  for (int k = 0; k < m; k++) {
    int64_t v = time ? mi_round_div(&r->rnd, acc[k]) : acc[k];
    memcpy(dst + 8 * k, &v, 8);
  }
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

/* Writes process pseudo-item 20001 + k of pr. */
static void put_pseudo_proc(const rd *r, const mi_proc *pr, int k, uint8_t *dst) {
  int32_t tpm = MI_LD(r->g->cfg[3043 - 3001]), v;
  if (tpm < 1) tpm = 1;
  clock_type ck; uint32_t cal;
  switch (k + 20001) {
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

/* Writes a user-defined counter (not a single ACCUM) of entity ent from its cells in row. */
static void put_udef(const rd *r, const mi_qitem *p, const int64_t *row, int ent, int procs, int wide, uint8_t *dst) {
  const mi_udef_info *u = (const mi_udef_info *)(const void *)p->it;
  const int64_t *c = row + p->off;
  int64_t now = MI_LD(r->g->now);
  if (procs && MI_LD(r->g->procs[ent].state) == MI_PS_DEAD) now = MI_LD(r->g->procs[ent].end_ticks);
  int64_t x[2];
  int nv = 1, time = 1;
  switch (u->kind) {
  case MI_UDEF_ACCUM:
    for (int k = 0; k < u->elements; k++) {
      int64_t w = MI_LD(c[k]);
      int32_t v = view(r, w, 0);
      if (wide) memcpy(dst + 8 * k, &w, 8); else memcpy(dst + 4 * k, &v, 4);
    }
    return;
  case MI_UDEF_FACCUM:
    x[0] = MI_LD(c[0]);
    if (wide) memcpy(dst, &x[0], 8); else put_longint(dst, x[0]);
    return;
  default:   /* BUSY, QUEUE: one time value; QBUSY: busy, then queue */
    x[0] = mi_udef_level_value(c, u->kind, now, 0);
    if (u->kind == MI_UDEF_QBUSY) { x[1] = mi_udef_level_value(c, u->kind, now, 1); nv = 2; }
  }
  for (int k = 0; k < nv; k++) {
    if (wide) { int64_t w = time ? mi_round_div(&r->rnd, x[k]) : x[k]; memcpy(dst + 8 * k, &w, 8); }
    else { int32_t v = view(r, x[k], time); memcpy(dst + 4 * k, &v, 4); }
  }
}

/* THE gather loop: one record of q's items per entity of ents[0..n) at out, records packed.
 * rows (NULL: none; counters read as zero) hold at least every entity named and q->reach
 * words each (prepare and rd_rows checked that). Pure: reads the segment, writes only
 * out[0 .. n * q->rec). */
static void gather(const rd *r, const mi_query *q, const int64_t *rows, int32_t stride, const int32_t *ents, int n,
                   uint8_t *out) {
  const mi_qitem *pl = q->pl, *pe = pl + q->n;
  const mi_seg *g = r->g;
  const mi_round rnd = r->rnd;
  int procs = q->domain == MI_DOM_PROCESS;
  if (q->plain && rows) {   /* every item one cell or the pid: no test of the row, no jump */
    for (int e = 0; e < n; e++) {
      int ent = ents[e];
      const int64_t *row = rows + (size_t)ent * (size_t)stride;
      if (procs && e + 8 < n) __builtin_prefetch(&g->procs[ents[e + 8]]);
      for (const mi_qitem *p = pl; p < pe; p++) {
        if (p->op == OP_PID) { put_longint(out, MI_LD(g->procs[ent].pid)); out += 8; continue; }
        int64_t c = MI_LD(row[p->off]);
        if (p->op == OP_TIME) c = mi_round_div(&rnd, c);
        int32_t v = (int32_t)(uint32_t)(uint64_t)c;
        memcpy(out, &v, 4);
        out += 4;
      }
    }
    return;
  }
  for (int e = 0; e < n; e++) {
    int ent = ents[e];
    const int64_t *row = rows ? rows + (size_t)ent * (size_t)stride : NULL;
    if (procs && e + 8 < n) __builtin_prefetch(&g->procs[ents[e + 8]]);
    for (const mi_qitem *p = pl; p < pe; out += p->size, p++) {
      int32_t v;
      if (p->op <= OP_TIME) {   /* the common case first, no jump table */
        int64_t c = row ? MI_LD(row[p->off]) : 0;
        if (p->op == OP_TIME) c = mi_round_div(&rnd, c);
        v = (int32_t)(uint32_t)(uint64_t)c;
        memcpy(out, &v, 4);
        continue;
      }
      switch (p->op) {
      case OP_WIDE: {
        int64_t c = row ? MI_LD(row[p->off]) : 0;
        if (p->it->unit == MI_UNIT_MI_TIME) c = mi_round_div(&rnd, c);
        memcpy(out, &c, 8);
        break;
      }
      case OP_WARRAY:
        if (row) put_warray(r, p, row, q->mapping, out);
        else memset(out, 0, (size_t)p->size);
        break;
      case OP_PID: put_longint(out, MI_LD(g->procs[ent].pid)); break;
      case OP_ARRAY:
        if (row) put_array(r, p, row, q->mapping, out);
        else memset(out, 0, (size_t)p->size);
        break;
      case OP_ZERO: memset(out, 0, (size_t)p->size); break;
      case OP_UDEF:
        if (row) put_udef(r, p, row, ent, procs, q->wide, out);
        else memset(out, 0, (size_t)p->size);
        break;
      case OP_ENTITY: v = ent; memcpy(out, &v, 4); break;
      default: put_pseudo_proc(r, &g->procs[ent], p->op - OP_PROC, out);
      }
    }
  }
}

/* ---- the GETs' bodies ---- */

/* The overall status of a GET that gathered: errors as the last failing index, else warn. */
static int finish(const mi_query *q, int warn) {
  if (q->n > 0 && q->good == 0) return MI_E_NO_VALID_ITEMS;
  return q->last ? q->last : warn;
}

/* Copies the plan's item statuses to stats. */
static void put_stats(const mi_query *q, int32_t *stats) {
  if (stats) memcpy(stats, q->stats, sizeof(int32_t) * (size_t)q->n);
}

int mi_query_check_buffer(const void *buf, int32_t size, int mapping) {
  if (mapping < 0 || mapping > 2) return MI_E_BAD_MAPPING;
  if (!buf) return MI_E_BAD_BUFFER;
  if ((uintptr_t)buf & 3) return MI_E_BUFFER_ALIGNMENT;
  if (size < 0) return MI_E_BUFFER_TOO_SMALL;
  return 0;
}

/* One MIGLOBGET read; a status (0 or -20008). */
static int glob_run(mi_query *q, rd *r, uint8_t *buf, int32_t size, int *fresh) {
  int32_t stride;
  const int64_t *rows = rd_rows(r, MI_DOM_GLOBAL, 1, &stride);
  *fresh = prepare(q, r, stride);
  if (q->reach > stride) rows = NULL;
  if (q->rec > size) return MI_E_BUFFER_TOO_SMALL;
  static const int32_t zero = 0;
  gather(r, q, rows, stride, &zero, 1, buf);
  return 0;
}

/* Reads of the copy a GET makes in a row while the writer keeps rewriting the one it reads: each
 * takes the newest, so only a reader stopped for MI_SNAP_BUFS - 1 publishes in each misses. */
#define SNAP_TRIES 4

/* MIGLOBGET from the published copy (seg.c, "the published copy"): the values of the last
 * publish, when the copy holds that publish or a later one (its sequence is at least the last
 * even one seen: a copy is made at the close of its section, so one sequence later is the section
 * closing now, whole), the plan is plain and was resolved at the copy's generation and mapping,
 * and this process has not seen one section stand open for MI_READ_WAIT_MS while its writer was
 * stopped (a writer stopped inside its section gets its readers -32006 as before, not its last
 * values forever; one only waiting for a CPU that long, on a loaded machine, does not). A copy
 * rewritten while read is read again at once from the newest (up to SNAP_TRIES): the writer is
 * running, so a wait for its publish could only be longer. 1 if served (*rc). */
static int glob_snap(mi_query *q, mi_system *sys, uint8_t *buf, int32_t size, int *rc) {
  const mi_seg *g = sys->seg;
  for (int t = 0; t < SNAP_TRIES; t++) {
    uint64_t live = __atomic_load_n(&g->h.seq, __ATOMIC_ACQUIRE);
    if (mi_wheld(sys)) return 0;
    if (live & 1) {   /* a section open: how long has this process seen it so? */
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
      int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
      if (live != MI_LD(sys->snap_seq)) { MI_ST(sys->snap_seq, live); MI_ST(sys->snap_ms, now); }
      else if (now - MI_LD(sys->snap_ms) >= MI_READ_WAIT_MS) {
        if (mi_writer_stopped(sys)) return 0;   /* its writer stopped: wait, then busy */
        MI_ST(sys->snap_ms, now);   /* only off its CPU (a loaded machine): the copy serves; look again later */
      }
    }
    uint32_t k;
    const mi_snap *b = mi_snap_begin(sys, &k);
    if (!q->valid || !q->plain || q->rec > size) return 0;
    int32_t stride = MI_LD(b->stride);
    if (MI_LD(b->seq) < (live & ~(uint64_t)1) || MI_LD(b->gen) != q->gen || MI_LD(b->mapping) != q->sysmap ||
        stride <= 0 || stride > MI_SNAP_WORDS || q->reach > stride) {
      MI_FIG(sys->rf.copy_old);
      return 0;
    }
    rd r = {.g = g, .mapping = q->sysmap};
    r.rnd = (mi_round){MI_LD(b->round), MI_LD(b->round_magic), MI_LD(b->round_shift)};
    if (r.rnd.r < 1) r.rnd.r = 1;
    if (r.rnd.shift < 0 || r.rnd.shift > 126) r.rnd.shift = 63;   /* only a rewritten copy: refused below */
    static const int32_t zero = 0;
    gather(&r, q, b->cells, stride, &zero, 1, buf);
    if (mi_snap_valid(sys, k)) {
      MI_FIG(sys->snap_reads);   /* (no locked add on the read path: threads of one process may lose a count) */
      *rc = 0;
      return 1;
    }
    if (sys->broken) return 0;
    MI_FIG(sys->rf.copy_torn);
  }
  return 0;
}

int mi_query_exec_glob(mi_query *q, uint8_t *buf, int32_t size, int32_t *stats) {
  mi_session *s = q->s;
  if (!s->u->glob_on) return not_enabled(s->sys);
  mi_system *sys = s->sys;
  mi_sys_refresh_read(sys, MI_DOM_GLOBAL);
  int rc = 0, locked = 0, fresh = 0, busy = 0, copy = 0;
  rd r;
  /* an attached reader reads the copy first: its owner makes one at every publish (seg.c), and
   * against a writer that publishes back to back a gather of the live rows mostly sees a publish */
  if (sys->attached) copy = glob_snap(q, sys, buf, size, &rc);
  if (!copy)
    READ_LOOP_OR(sys, locked, busy, (copy = glob_snap(q, sys, buf, size, &rc)), {
      rd_start(&r, sys);
      rc = glob_run(q, &r, buf, size, &fresh);
    });
  if (locked) mi_wunlock(sys);
  if (read_failed(sys, busy)) return read_failed(sys, busy);
  if (!copy) settle(q, &r, fresh);
  put_stats(q, stats);
  return rc ? rc : finish(q, 0);
}

/* What one MIPROCGET read produced beside the buffer. */
typedef struct proc_res {
  int32_t done;
  int slot;                          /* the one record of a single-pid GET */
  uint64_t told[MI_PROC_WORDS];      /* dead processes this GET reported */
  int32_t ents[MI_MAX_PROCESSES];
} proc_res;

/* One MIPROCGET read; a status (0 or an error, -20015/-20009 included). */
static int proc_run(mi_query *q, rd *r, uint8_t *buf, int32_t size, int64_t want, const int32_t *key,
                    proc_res *res, int *fresh) {
  mi_session *s = q->s;
  const mi_seg *g = r->g;
  const uint64_t *mon = s->u->mon, *dead = s->u->dead;
  if (s->sys->readonly && s->ro) { mi_ro_view(s, g); mon = s->ro->vmon; dead = s->ro->vdead; }   /* its own tracking */
  int32_t stride;
  const int64_t *rows = rd_rows(r, MI_DOM_PROCESS, MI_MAX_PROCESSES, &stride);
  *fresh = prepare(q, r, stride);
  if (q->reach > stride) rows = NULL;
  memset(res->told, 0, sizeof res->told);
  res->done = 0; res->slot = -1;
  if (q->n > 0 && !q->good) return MI_E_NO_VALID_ITEMS;
  if (q->rec > size || q->rec == 0) return MI_E_BUFFER_TOO_SMALL;
  int32_t fit = size / q->rec;
  if (want != -1) {
    int slot = -1;
    int32_t k = key ? *key : 0;
    if (k > 0 && k <= MI_MAX_PROCESSES && MI_LD(g->procs[k - 1].pid) == want &&
        MI_LD(g->procs[k - 1].state) != MI_PS_FREE)
      slot = k - 1;
    else slot = mi_host_proc_slot(s->sys, want);
    if (slot < 0 || !mi_abit(mon, slot)) return MI_E_NO_SUCH_PID;
    gather(r, q, rows, stride, &slot, 1, buf);
    res->done = 1;
    res->slot = slot;
    if (mi_abit(dead, slot)) mi_bit_set(res->told, slot);
    return 0;
  }
  int more = 0;
  for (int w = 0; w < MI_PROC_WORDS && !more; w++) {
    uint64_t bits = MI_LD(mon[w]), dw = MI_LD(dead[w]);
    while (bits) {
      int slot = w * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      if (res->done == fit) { more = 1; break; }
      res->ents[res->done++] = slot;
      if (dw >> (slot & 63) & 1) mi_bit_set(res->told, slot);
    }
  }
  gather(r, q, rows, stride, res->ents, res->done, buf);
  if (more) return MI_E_BUFFER_PARTIAL;
  if (!res->done) return MI_E_NO_PROCESS_DATA;
  return 0;
}

/* What a watching query's records are made of beside its rows: the rounding and ticks per ms. */
static inline uint64_t watch_key(const mi_seg *g) {
  return (uint64_t)(uint32_t)MI_LD(g->round) << 32 | (uint32_t)MI_LD(g->cfg[3043 - 3001]);
}

/* Inside the read: 1 when a watching query's last complete run of all processes (epoch
 * q->wepoch, taken before that read) still holds: its plan stands, nothing moves with time
 * alone, the monitored slots are the same with no death unreported, and no row was written,
 * no process born, renamed or ended since (each marks its row with the epoch of its write
 * section, which a write that read did not see loaded after q->wepoch was taken: read-active's
 * argument, core/STORE.md). */
static int proc_unchanged(const mi_query *q, const rd *r) {
  const mi_seg *g = r->g;
  const mi_urec *u = q->s->u;
  if (!q->wepoch || !q->valid || q->gen != MI_LD(g->h.gen) || q->sysmap != r->mapping || q->lgen != q->s->lgen ||
      q->wround != watch_key(g) || mi_query_time_varying(q))
    return 0;
  for (int w = 0; w < MI_PROC_WORDS; w++)
    if (MI_LD(u->mon[w]) != q->wmon[w] || MI_LD(u->dead[w])) return 0;
  uint64_t all = ~0ull;   /* marks are below 2^63: mod - e has the top bit set exactly when mod < e */
  for (int k = 0; k < MI_MAX_PROCESSES; k++) all &= MI_LD(g->blk.mod[k]) - q->wepoch;
  return (int)(all >> 63);
}

int mi_query_exec_proc(mi_query *q, uint8_t *buf, int32_t size, int64_t want, int32_t *count, int32_t *key,
                       int32_t *stats) {
  mi_session *s = q->s;
  if (count) *count = 0;
  if (!s->u->proc_on) return not_enabled(s->sys);
  mi_system *sys = s->sys;
  mi_sys_refresh_read(sys, MI_DOM_PROCESS);
  proc_res res;
  int rc = 0, locked = 0, fresh = 0, busy = 0, same = 0;
  /* a watching run of all processes takes its epoch before its read (as read-active's CHANGED) */
  int watch = q->watch && want == -1 && !sys->readonly;
  uint64_t ep = watch ? __atomic_add_fetch(&sys->seg->blk.epoch, 1, __ATOMIC_SEQ_CST) : 0;
  q->unchanged = 0;
  rd r;
  READ_LOOP(sys, locked, busy, {
    rd_start(&r, sys);
    same = watch && !r.torn && proc_unchanged(q, &r);
    if (same) {   /* the caller's buffer holds these records already */
      rc = 0; fresh = 0;
      res.done = q->wdone;
      memset(res.told, 0, sizeof res.told);
    } else rc = proc_run(q, &r, buf, size, want, key, &res, &fresh);
  });
  if (read_failed(sys, busy)) { if (locked) mi_wunlock(sys); q->wepoch = 0; return read_failed(sys, busy); }
  settle(q, &r, fresh);
  if (watch) {   /* a complete run with no death to tell is the one the next run compares with */
    int any = 0;
    for (int w = 0; w < MI_PROC_WORDS; w++) any |= res.told[w] != 0;
    q->unchanged = same;
    if (!same) q->wepoch = rc != 0 || any || r.torn || !q->valid ? 0 : ep;
    if (!same && q->wepoch) {
      q->wdone = res.done;
      q->wround = watch_key(r.g);
      for (int w = 0; w < MI_PROC_WORDS; w++) q->wmon[w] = MI_LD(s->u->mon[w]);
    }
  }
  put_stats(q, stats);
  if (sys->readonly && s->ro) mi_ro_take(s, res.told);   /* a read-only session forgets them on its own */
  /* after the gather: the deaths this GET reported are forgotten for this user (a change of
   * the table, so in a write section) */
  int any = 0;
  for (int w = 0; w < MI_PROC_WORDS; w++) any |= res.told[w] != 0;
  if (any && !locked && !sys->readonly && mi_wlock_bounded(sys) == 0) locked = 1;   /* busy: they are told again next time */
  if (any && locked) {
    for (int w = 0; w < MI_PROC_WORDS; w++)
      for (uint64_t b = res.told[w]; b; b &= b - 1) {
        int slot = w * 64 + __builtin_ctzll(b);
        if (mi_bit(s->u->dead, slot)) mi_proc_release_user(sys, s, slot);
      }
  }
  if (locked) mi_wunlock(sys);
  if (want != -1) {
    if (rc) return rc;
    if (key) *key = res.slot + 1;
  } else if (rc) {
    if (rc == MI_E_BUFFER_PARTIAL && count) *count = res.done;
    return rc;
  }
  if (count) *count = res.done;
  int warn = 0;
  if (__atomic_exchange_n(&s->u->untracked, 0, __ATOMIC_RELAXED)) warn = MI_E_PROCESSES_UNTRACKED;
  return finish(q, warn);
}

/* One MIIOGET read; a status (0 or an error, -20015 included). */
static int io_run(mi_query *q, rd *r, uint8_t *buf, int32_t size, int32_t sel, int32_t *done, int *fresh) {
  const mi_urec *u = q->s->u;
  int32_t stride, ents[MI_MAX_LDEV];
  const int64_t *rows = rd_rows(r, MI_DOM_IO, MI_MAX_LDEV + 1, &stride);
  *fresh = prepare(q, r, stride);
  if (q->reach > stride) rows = NULL;
  *done = 0;
  if (q->n > 0 && !q->good) return MI_E_NO_VALID_ITEMS;
  if (q->rec > size || q->rec == 0) return MI_E_BUFFER_TOO_SMALL;
  int bits = sel == -1 ? 0x7FE : sel < 0 ? 1 << (-sel - 1) : 0;
  int32_t fit = size / q->rec;
  int more = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    if (!mi_bit(u->ldevs, l) || (sel >= 1 ? l != sel : !(bits >> MI_LD(r->g->devtype[l]) & 1))) continue;
    if (*done == fit) { more = 1; break; }
    ents[(*done)++] = l;
  }
  gather(r, q, rows, stride, ents, *done, buf);
  return more ? MI_E_BUFFER_PARTIAL : 0;
}

/* One multi-record read of the I/O or processor domain: refresh, run under the seqlock,
 * settle the plan and the statuses; the status (-20015 with *count records included). */
typedef int (*run_fn)(mi_query *q, rd *r, uint8_t *buf, int32_t size, int32_t sel, int32_t *done, int *fresh);
static int exec_records(mi_query *q, run_fn run, uint8_t *buf, int32_t size, int32_t sel, int32_t *count, int32_t *stats) {
  mi_system *sys = q->s->sys;
  mi_sys_refresh_read(sys, q->domain);
  int rc = 0, locked = 0, fresh = 0, busy = 0;
  int32_t done = 0;
  rd r;
  READ_LOOP(sys, locked, busy, {
    rd_start(&r, sys);
    rc = run(q, &r, buf, size, sel, &done, &fresh);
  });
  if (locked) mi_wunlock(sys);
  if (read_failed(sys, busy)) return read_failed(sys, busy);
  settle(q, &r, fresh);
  put_stats(q, stats);
  if (rc && rc != MI_E_BUFFER_PARTIAL) return rc;
  if (count) *count = done;
  if (rc) return rc;
  return finish(q, 0);
}

int mi_query_exec_io(mi_query *q, uint8_t *buf, int32_t size, int32_t sel, int32_t *count, int32_t *stats) {
  mi_session *s = q->s;
  if (count) *count = 0;
  if (sel == 0 || sel < -11 || sel > MI_MAX_LDEV) return MI_E_BAD_LDEV;
  if (!s->u->io_on) return not_enabled(s->sys);
  if (sel >= 1 && !mi_bit(s->u->ldevs, sel)) return not_enabled(s->sys);
  return exec_records(q, io_run, buf, size, sel, count, stats);
}

/* One MIPRCSRGET read; a status (0 or an error, -20015 included). */
static int prcsr_run(mi_query *q, rd *r, uint8_t *buf, int32_t size, int32_t id, int32_t *done, int *fresh) {
  int32_t stride;
  const int64_t *rows = rd_rows(r, MI_DOM_PROCESSOR, MI_MAX_PROCESSORS, &stride);
  *fresh = prepare(q, r, stride);
  if (q->reach > stride) rows = NULL;
  *done = 0;
  if (q->n > 0 && !q->good) return MI_E_NO_VALID_ITEMS;
  int first = id < 0 ? 0 : id, want = id < 0 ? MI_MAX_PROCESSORS : 1;
  if (q->rec == 0 || q->rec > size) return MI_E_BUFFER_TOO_SMALL;
  int32_t fit = size / q->rec, ents[MI_MAX_PROCESSORS] = {0};
  while (*done < want && *done < fit) { ents[*done] = first + *done; (*done)++; }
  gather(r, q, rows, stride, ents, *done, buf);
  return *done < want ? MI_E_BUFFER_PARTIAL : 0;
}

int mi_query_exec_prcsr(mi_query *q, uint8_t *buf, int32_t size, int32_t id, int32_t *count, int32_t *stats) {
  mi_session *s = q->s;
  if (count) *count = 0;
  if (id < -1 || id >= MI_MAX_PROCESSORS) return MI_E_BAD_LDEV;
  const mi_item_info *pauses = mi_item_fast(ITEM_PAUSES);
  if (!s->u->glob_on || !mi_bit(s->u->glob_en, pauses->index)) return not_enabled(s->sys);
  return exec_records(q, prcsr_run, buf, size, id, count, stats);
}

/* ---- a read-only session's processes (#27.8) ----
 * The owner keeps no record of a read-only reader (it never writes the store), so such a session
 * follows the processes it monitors itself: per slot the birth sequence `born` of the process it
 * follows there (mi_ro_track). Inside each read it looks at the process table: a followed slot
 * still holding that birth is read (its death reported once, while the slot stays dead); a live
 * process born since its last read is taken when it monitors all processes or its selection
 * takes it; anything else is gone. The result is taken only after the read proved consistent. */

void mi_ro_view(mi_session *s, const mi_seg *g) {
  mi_ro_track *t = s->ro;
  const mi_urec *u = s->u;
  t->vbirths = MI_LD(g->births);
  memset(t->vmon, 0, sizeof t->vmon);
  memset(t->vdead, 0, sizeof t->vdead);
  int hi = MI_LD(g->proc_hi);
  if (hi < 0 || hi > MI_MAX_PROCESSES) hi = 0;   /* a torn read: read again */
  for (int slot = 0; slot < hi; slot++) {
    const mi_proc *p = &g->procs[slot];
    int st = MI_LD(p->state);
    uint64_t b = MI_LD(p->born);
    if (st == MI_PS_FREE) continue;
    if (!(mi_bit(u->mon, slot) && t->born[slot] == b) &&
        !(st == MI_PS_ALIVE && b > t->births && (u->proc_all || (u->nsel && mi_sel_birth(u, p)))))
      continue;
    mi_bit_set(t->vmon, slot);
    if (st == MI_PS_DEAD) mi_bit_set(t->vdead, slot);
    t->vborn[slot] = b;
  }
}

void mi_ro_take(mi_session *s, const uint64_t *told) {
  mi_ro_track *t = s->ro;
  for (int w = 0; w < MI_PROC_WORDS; w++) s->u->mon[w] = t->vmon[w] & ~told[w];
  for (int slot = 0; slot < MI_MAX_PROCESSES; slot++) t->born[slot] = mi_bit(s->u->mon, slot) ? t->vborn[slot] : 0;
  if (t->vbirths > t->births) t->births = t->vbirths;
}

void mi_ro_follow(mi_session *s, int slot) {
  mi_bit_set(s->u->mon, slot);
  s->ro->born[slot] = MI_LD(s->sys->seg->procs[slot].born);
}

/* ---- read-active (select.c): a GET over the entities a picker chooses ---- */

int mi_query_exec_pick(mi_query *q, uint8_t *buf, int32_t size, mi_query_pick pick, void *arg, int32_t *ents,
                       const int32_t *gat, const int32_t *ngat, int32_t *count, int32_t *stats) {
  mi_system *sys = q->s->sys;
  int rc = 0, locked = 0, fresh = 0, busy = 0, need = q->domain == MI_DOM_PROCESS ? MI_MAX_PROCESSES : MI_MAX_LDEV + 1;
  int32_t done = 0, stride;
  rd r;
  READ_LOOP(sys, locked, busy, {
    rd_start(&r, sys);
    const int64_t *rows = rd_rows(&r, q->domain, need, &stride);
    fresh = prepare(q, &r, stride);
    if (q->reach > stride) rows = NULL;
    done = 0;
    if (q->n > 0 && !q->good) rc = MI_E_NO_VALID_ITEMS;
    else if (q->rec > size || q->rec == 0) rc = MI_E_BUFFER_TOO_SMALL;
    else {
      rc = 0;
      done = pick(r.g, arg, ents, size / q->rec);
      if (done < 0) { r.torn = 1; done = 0; }
      if (!gat) gather(&r, q, rows, stride, ents, done, buf);
      else   /* only the records at positions gat[0..*ngat), in runs; the caller fills the rest */
        for (int32_t k = 0, j; k < *ngat; k = j) {
          for (j = k + 1; j < *ngat && gat[j] == gat[j - 1] + 1; j++) {}
          gather(&r, q, rows, stride, ents + gat[k], j - k, buf + (size_t)gat[k] * (size_t)q->rec);
        }
    }
  });
  if (locked) mi_wunlock(sys);
  if (read_failed(sys, busy)) return read_failed(sys, busy);
  settle(q, &r, fresh);
  put_stats(q, stats);
  if (rc) return rc;
  if (count) *count = done;
  return finish(q, 0);
}

/* ---- the public face ---- */

mi_query *mi_query_new(mi_session *s, int domain, const int32_t *items, int n, int mapping) {
  if (!s || domain < 0 || domain >= MI_DOM_COUNT || n < 0 || n >= MI_MAX_ITEMS || (n && !items)) return NULL;
  for (int i = 0; i < n; i++)
    if (items[i] == 0) { n = i; break; }
  int cap = n ? n : 1;
  mi_query *q = malloc(sizeof *q);
  void *mem = malloc(MI_QUERY_MEM(cap));
  if (!q || !mem) { free(q); free(mem); return NULL; }
  mi_query_init(q, s, domain, mapping, mem, cap);
  mi_query_bind(q, items, n, mapping);
  return q;
}

void mi_query_free(mi_query *q) {
  if (!q) return;
  free(q->pl);
  free(q);
}

int mi_query_set_wide(mi_query *q, int on) {
  if (!q) return -1;
  q->wide = on != 0;
  int32_t nums[MI_MAX_ITEMS];
  memcpy(nums, q->nums, sizeof(int32_t) * (size_t)q->n);
  mi_query_bind(q, nums, q->n, q->mapping);
  return 0;
}

int mi_query_set_watch(mi_query *q, int on) {
  if (!q || q->domain != MI_DOM_PROCESS) return -1;
  q->watch = on != 0;
  q->wepoch = 0;
  q->unchanged = 0;
  return 0;
}

int mi_query_unchanged(const mi_query *q) { return q ? q->unchanged : 0; }

int32_t mi_query_record_size(const mi_query *q) { return q ? q->rec : 0; }

int mi_query_time_varying(const mi_query *q) {
  for (int i = 0; i < q->n; i++)
    if (q->pl[i].op == OP_UDEF) {
      int k = ((const mi_udef_info *)(const void *)q->pl[i].it)->kind;
      if (k != MI_UDEF_ACCUM && k != MI_UDEF_FACCUM) return 1;
    }
  return 0;
}
int mi_query_items(const mi_query *q) { return q ? q->n : 0; }
int mi_query_domain(const mi_query *q) { return q ? q->domain : -1; }

int32_t mi_query_item(const mi_query *q, int i, const mi_item_info **it, int32_t *size) {
  if (!q || i < 0 || i >= q->n) { if (it) *it = NULL; if (size) *size = 0; return 0; }
  if (it) *it = q->pl[i].it;
  if (size) *size = q->pl[i].size;
  return q->nums[i];
}

int mi_query_room(mi_query *q, int64_t sel) {
  if (!q) return 1;
  mi_session *s = q->s;
  mi_system *sys = s->sys;
  mi_sys_refresh_read(sys, q->domain);
  int n = 0;
  if (sel != -1 && !(q->domain == MI_DOM_IO && sel <= -2)) return 1;
  if (q->domain == MI_DOM_PROCESS)
    for (int w = 0; w < MI_PROC_WORDS; w++) n += __builtin_popcountll(MI_LD(s->u->mon[w]));
  else if (q->domain == MI_DOM_IO) {
    int bits = sel == -1 ? 0x7FE : sel >= -11 ? 1 << (-sel - 1) : 0;
    for (int l = 1; l <= MI_MAX_LDEV; l++) n += mi_bit(s->u->ldevs, l) && (bits >> MI_LD(sys->seg->devtype[l]) & 1);
  } else if (q->domain == MI_DOM_PROCESSOR) n = MI_MAX_PROCESSORS;
  return n > 0 ? n : 1;
}
