/* query.c — door 2: prepared reads. A query resolves its item list once into a plan and
 * re-resolves it only when sys->gen moved (every enable, disable, enable-set or mapping
 * change bumps it). Running a query is the body of a GET: its semantic checks, the selection
 * of entities (reads the caller's sets), ONE gather loop (pure: reads the store, writes the
 * caller's buffer), then the side effects (dead-process reports released, warning 20001
 * cleared) after the gather. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_query.h"

#define ITEM_PAUSES 21164

/* What the gather writes for an item. */
enum {
  OP_SIMPLE,     /* one cell in the 32-bit view */
  OP_TIME,       /* one time cell in MI_Time */
  OP_ZERO,       /* a zero slot (item error) */
  OP_ARRAY,      /* object- or semaphore-class cells (folded if asked) */
  OP_ENTITY,     /* the entity number: ldev (20020), processor (20040) */
  OP_PID,        /* the process's pid (20001) as a longint */
  OP_PROC        /* another process pseudo-item 20002-20012 (op + item - 20001) */
};

/* ---- plans ---- */

/* Lays out item num of domain d at mapping: catalog entry and size (fixed for the query). */
static void layout(int d, int32_t num, int mapping, mi_qitem *p) {
  const mi_item_info *it = mi_item_fast(num);
  memset(p, 0, sizeof *p);
  p->op = OP_ZERO;
  p->size = 4;
  if (!it || it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL)) return;
  p->it = it;
  int32_t sz = mi_item_size(it, mapping);
  p->size = sz < 4 ? 4 : sz;   /* a mapping outside 0-2: never gathered (-20007) */
}

/* Resolves item p (laid out) against the store and the caller's enable set en (NULL: none). */
static void resolve(const mi_system *sys, int d, int32_t num, const uint64_t *en, int mapping, mi_qitem *p) {
  const mi_item_info *it = p->it;
  p->off = 0; p->fold = 0; p->status = 0; p->op = OP_ZERO;
  if (!it) { p->status = MI_E_BAD_ITEM; return; }
  if (it->kind == MI_KIND_PSEUDO) {
    p->op = d != MI_DOM_PROCESS ? OP_ENTITY : num == 20001 ? OP_PID : (uint8_t)(OP_PROC + (num - 20001));
    return;
  }
  if ((en && !mi_bit(en, it->index)) || MI_OFF(sys, d, it->index) < 0) { p->status = MI_E_NOT_ENABLED; return; }
  p->off = MI_OFF(sys, d, it->index);
  if (it->kind == MI_KIND_OBJCL) {
    if (mapping < sys->mapping) { p->status = MI_E_MAPPING_CONVERSION; return; }
    p->fold = (uint8_t)(mapping != sys->mapping);
  }
  p->op = it->kind != MI_KIND_SIMPLE ? OP_ARRAY : it->unit == MI_UNIT_MI_TIME ? OP_TIME : OP_SIMPLE;
}

/* The caller's enable set for domain d (processors: none of their own). */
static const uint64_t *enable_set(const mi_session *s, int d) {
  return d == MI_DOM_GLOBAL ? s->glob_en : d == MI_DOM_PROCESS ? s->proc_en : d == MI_DOM_IO ? s->io_en : NULL;
}

/* Brings q's plan up to date: one compare when nothing changed. */
static inline void revalidate(mi_query *q) {
  const mi_system *sys = q->s->sys;
  if (q->valid && q->gen == sys->gen) return;
  const uint64_t *en = enable_set(q->s, q->domain);
  q->good = q->last = 0;
  for (int i = 0; i < q->n; i++) {
    resolve(sys, q->domain, q->nums[i], en, q->mapping, &q->pl[i]);
    q->stats[i] = q->pl[i].status;
    if (q->pl[i].status) q->last = i + 1; else q->good++;
  }
  q->gen = sys->gen;
  q->valid = 1;
}

void mi_query_init(mi_query *q, mi_session *s, int domain, int mapping, void *mem, int cap) {
  memset(q, 0, sizeof *q);
  q->s = s; q->domain = domain; q->mapping = mapping; q->cap = cap;
  q->pl = mem;
  q->nums = (int32_t *)(q->pl + cap);
  q->stats = q->nums + cap + 1;
  q->nums[0] = 0;
}

void mi_query_bind(mi_query *q, const int32_t *nums, int n, int mapping) {
  q->n = n;
  q->mapping = mapping;
  q->rec = 0;
  for (int i = 0; i < n; i++) {
    q->nums[i] = nums[i];
    layout(q->domain, nums[i], mapping, &q->pl[i]);
    q->rec += q->pl[i].size;
  }
  q->nums[n] = 0;
  q->valid = 0;
}

int mi_query_same(const mi_query *q, const int32_t *nums, int n, int mapping) {
  return q->n == n && q->mapping == mapping && memcmp(q->nums, nums, sizeof(int32_t) * (size_t)n) == 0;
}

/* ---- the gather ---- */

/* The value of a 64-bit cell in the AIF's 32-bit view (time counters in MI_Time). */
static inline int32_t view(const mi_system *sys, int64_t v, int time) {
  if (time) v = mi_round_ticks(sys, v);
  return (int32_t)(uint32_t)(uint64_t)v;
}

/* Writes an object- or semaphore-class counter's values (folded to the query's map if asked). */
static void put_array(const mi_system *sys, const mi_qitem *p, const int64_t *row, int mapping, uint8_t *dst) {
  const int64_t *c = row + p->off;
  int time = p->it->unit == MI_UNIT_MI_TIME;
  int n = p->it->kind == MI_KIND_SEMCL ? MI_NSEMCL : mi_objcl_len(sys->mapping);
  if (!p->fold) {
    for (int k = 0; k < n; k++) { int32_t v = view(sys, c[k], time); memcpy(dst + 4 * k, &v, 4); }
    return;
  }
  int64_t acc[MI_NLARGE];
  int m = mi_objcl_len(mapping);
  memset(acc, 0, sizeof(int64_t) * (size_t)m);
  const uint16_t *f = mi_fold_[sys->mapping][mapping];
  for (int k = 0; k < n; k++) acc[f[k]] += c[k];
  for (int k = 0; k < m; k++) { int32_t v = view(sys, acc[k], time); memcpy(dst + 4 * k, &v, 4); }
}

/* Writes process pseudo-item 20001 + k of pr. */
static void put_pseudo_proc(const mi_system *sys, const mi_proc *pr, int k, uint8_t *dst) {
  int32_t tpm = sys->cfg[3043 - 3001], v;
  longint_type l; clock_type ck; uint32_t cal;
  switch (k + 20001) {
  case 20001: mi_longint_set(&l, pr->pid); memcpy(dst, &l, 8); break;
  case 20002: v = pr->state == MI_PS_DEAD; memcpy(dst, &v, 4); break;
  case 20003: memcpy(dst, &pr->user, sizeof pr->user); break;
  case 20004: memcpy(dst, &pr->program, sizeof pr->program); break;
  case 20005: mi_longint_set(&l, pr->start_ticks); memcpy(dst, &l, 8); break;
  case 20006: mi_longint_set(&l, pr->end_ticks); memcpy(dst, &l, 8); break;
  case 20007: mi_ticks_to_clock(pr->start_ticks, tpm, &ck); memcpy(dst, &ck, 4); break;
  case 20008: mi_ticks_to_clock(pr->end_ticks, tpm, &ck); memcpy(dst, &ck, 4); break;
  case 20009: cal = mi_ticks_to_calendar(pr->start_ticks, tpm); memcpy(dst, &cal, 4); break;
  case 20010: cal = mi_ticks_to_calendar(pr->end_ticks, tpm); memcpy(dst, &cal, 4); break;
  case 20011: memcpy(dst, &pr->js, 4); break;
  case 20012: memcpy(dst, &pr->ptype, 4); break;
  default: memset(dst, 0, 4);
  }
}

/* THE gather loop: one record of q's items per entity of ents[0..n) at out, records packed.
 * Pure: reads the store and the process table, writes only out[0 .. n * q->rec). */
static void gather(const mi_system *sys, const mi_query *q, const int32_t *ents, int n, uint8_t *out) {
  const mi_host_lane *ln = &sys->view.lane[q->domain];
  const mi_qitem *pl = q->pl, *pe = pl + q->n;
  int procs = q->domain == MI_DOM_PROCESS;
  for (int e = 0; e < n; e++) {
    int ent = ents[e];
    const int64_t *row = ln->cells ? ln->cells + (size_t)ent * (size_t)ln->stride : NULL;
    if (procs && e + 8 < n) __builtin_prefetch(&sys->procs[ents[e + 8]]);
    for (const mi_qitem *p = pl; p < pe; out += p->size, p++) {
      int32_t v;
      if (p->op <= OP_TIME) {   /* the common case first, no jump table */
        int64_t c = row[p->off];
        if (p->op == OP_TIME) c = mi_round_ticks(sys, c);
        v = (int32_t)(uint32_t)(uint64_t)c;
        memcpy(out, &v, 4);
        continue;
      }
      switch (p->op) {
      case OP_PID: {
        uint64_t pid = (uint64_t)sys->procs[ent].pid;
        int32_t w[2] = {(int32_t)(uint32_t)(pid >> 32), (int32_t)(uint32_t)pid};   /* left = high word */
        memcpy(out, w, 8);
        break;
      }
      case OP_ARRAY: put_array(sys, p, row, q->mapping, out); break;
      case OP_ZERO: memset(out, 0, (size_t)p->size); break;
      case OP_ENTITY: v = ent; memcpy(out, &v, 4); break;
      default: put_pseudo_proc(sys, &sys->procs[ent], p->op - OP_PROC, out);
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

int mi_query_exec_glob(mi_query *q, uint8_t *buf, int32_t size, int32_t *stats) {
  mi_session *s = q->s;
  if (!s->glob_on) return MI_E_NOT_ENABLED;
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  revalidate(q);
  put_stats(q, stats);
  if (q->rec > size) return MI_E_BUFFER_TOO_SMALL;
  static const int32_t zero = 0;
  gather(sys, q, &zero, 1, buf);
  return finish(q, 0);
}

int mi_query_exec_proc(mi_query *q, uint8_t *buf, int32_t size, int64_t want, int32_t *count, int32_t *key,
                       int32_t *stats) {
  mi_session *s = q->s;
  if (count) *count = 0;
  if (!s->proc_on) return MI_E_NOT_ENABLED;
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  revalidate(q);
  put_stats(q, stats);
  if (q->n > 0 && !q->good) return MI_E_NO_VALID_ITEMS;
  if (q->rec > size || q->rec == 0) return MI_E_BUFFER_TOO_SMALL;
  int32_t fit = size / q->rec, done = 0;
  if (want != -1) {
    int slot = -1;
    if (key && *key > 0 && sys->procs[*key - 1].pid == want && sys->procs[*key - 1].state != MI_PS_FREE)
      slot = *key - 1;
    else slot = mi_host_proc_slot(sys, want);
    if (slot < 0 || !mi_bit(s->mon, slot)) return MI_E_NO_SUCH_PID;
    gather(sys, q, &slot, 1, buf);
    done = 1;
    if (key) *key = slot + 1;
    if (mi_bit(s->dead, slot)) mi_proc_release_user(sys, s, slot);
  } else {
    int32_t ents[MI_MAX_PROCESSES];
    int more = 0;
    for (int w = 0; w < MI_PROC_WORDS && !more; w++)
      for (uint64_t bits = s->mon[w]; bits; bits &= bits - 1) {
        if (done == fit) { more = 1; break; }
        ents[done++] = w * 64 + __builtin_ctzll(bits);
      }
    gather(sys, q, ents, done, buf);
    /* after the gather: the dead processes reported are forgotten */
    uint64_t anydead = 0;
    for (int w = 0; w < MI_PROC_WORDS; w++) anydead |= s->dead[w];
    for (int e = 0; anydead && e < done; e++)
      if (mi_bit(s->dead, ents[e])) mi_proc_release_user(sys, s, ents[e]);
    if (count) *count = done;
    if (more) return MI_E_BUFFER_PARTIAL;
    if (!done) return MI_E_NO_PROCESS_DATA;
  }
  if (count) *count = done;
  int warn = 0;
  if (s->untracked) { warn = MI_E_PROCESSES_UNTRACKED; s->untracked = 0; }
  return finish(q, warn);
}

int mi_query_exec_io(mi_query *q, uint8_t *buf, int32_t size, int32_t sel, int32_t *count, int32_t *stats) {
  mi_session *s = q->s;
  mi_system *sys = s->sys;
  if (count) *count = 0;
  if (sel == 0 || sel < -11 || sel > MI_MAX_LDEV) return MI_E_BAD_LDEV;
  if (!s->io_on) return MI_E_NOT_ENABLED;
  if (sel >= 1 && !mi_bit(s->ldevs, sel)) return MI_E_NOT_ENABLED;
  mi_sys_refresh(sys);
  revalidate(q);
  put_stats(q, stats);
  if (q->n > 0 && !q->good) return MI_E_NO_VALID_ITEMS;
  if (q->rec > size || q->rec == 0) return MI_E_BUFFER_TOO_SMALL;
  int bits = sel == -1 ? 0x7FE : sel < 0 ? 1 << (-sel - 1) : 0;
  int32_t fit = size / q->rec, done = 0, ents[MI_MAX_LDEV];
  int more = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    if (!mi_bit(s->ldevs, l) || (sel >= 1 ? l != sel : !(bits >> sys->devtype[l] & 1))) continue;
    if (done == fit) { more = 1; break; }
    ents[done++] = l;
  }
  gather(sys, q, ents, done, buf);
  if (count) *count = done;
  if (more) return MI_E_BUFFER_PARTIAL;
  return finish(q, 0);
}

int mi_query_exec_prcsr(mi_query *q, uint8_t *buf, int32_t size, int32_t id, int32_t *count, int32_t *stats) {
  mi_session *s = q->s;
  mi_system *sys = s->sys;
  if (count) *count = 0;
  if (id < -1 || id >= MI_MAX_PROCESSORS) return MI_E_BAD_LDEV;
  const mi_item_info *pauses = mi_item_fast(ITEM_PAUSES);
  if (!s->glob_on || !mi_bit(s->glob_en, pauses->index)) return MI_E_NOT_ENABLED;
  mi_sys_refresh(sys);
  revalidate(q);
  put_stats(q, stats);
  if (q->n > 0 && !q->good) return MI_E_NO_VALID_ITEMS;
  int first = id < 0 ? 0 : id, want = id < 0 ? MI_MAX_PROCESSORS : 1;
  if (q->rec == 0 || q->rec > size) return MI_E_BUFFER_TOO_SMALL;
  int32_t fit = size / q->rec, done = 0, ents[MI_MAX_PROCESSORS] = {0};
  while (done < want && done < fit) { ents[done] = first + done; done++; }
  gather(sys, q, ents, done, buf);
  if (count) *count = done;
  if (done < want) return MI_E_BUFFER_PARTIAL;
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

int mi_query_run(mi_query *q, void *buf, int32_t size, int64_t sel, int32_t *count, int32_t *stats, int32_t user_id) {
  if (count) *count = 0;
  if (!q) return MI_E_INTERNAL_NO_CALLER;
  int rc = mi_enter(q->s, user_id);
  if (!rc) rc = mi_query_check_buffer(buf, size, q->mapping);
  if (rc) return rc;
  switch (q->domain) {
  case MI_DOM_GLOBAL: rc = mi_query_exec_glob(q, buf, size, stats); if (count) *count = rc >= 0; return rc;
  case MI_DOM_PROCESS: return mi_query_exec_proc(q, buf, size, sel, count, NULL, stats);
  case MI_DOM_IO:
    return mi_query_exec_io(q, buf, size, sel < INT32_MIN || sel > INT32_MAX ? 0 : (int32_t)sel, count, stats);
  default:
    return mi_query_exec_prcsr(q, buf, size, sel < INT32_MIN || sel > INT32_MAX ? -2 : (int32_t)sel, count, stats);
  }
}

int32_t mi_query_record_size(const mi_query *q) { return q ? q->rec : 0; }
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
  mi_sys_refresh(sys);
  int n = 0;
  if (sel != -1 && !(q->domain == MI_DOM_IO && sel <= -2)) return 1;
  if (q->domain == MI_DOM_PROCESS)
    for (int w = 0; w < MI_PROC_WORDS; w++) n += __builtin_popcountll(s->mon[w]);
  else if (q->domain == MI_DOM_IO) {
    int bits = sel == -1 ? 0x7FE : sel >= -11 ? 1 << (-sel - 1) : 0;
    for (int l = 1; l <= MI_MAX_LDEV; l++) n += mi_bit(s->ldevs, l) && (bits >> sys->devtype[l] & 1);
  } else if (q->domain == MI_DOM_PROCESSOR) n = MI_MAX_PROCESSORS;
  return n > 0 ? n : 1;
}
