/* aif.c — the counter AIFs of chapter 5: MIGLOBON/GET/OFF, MIPROCON/GET/OFF,
 * MIIOON/GET/OFF and MIPRCSRGET. GETs gather from precomputed offsets into the
 * caller's buffer: no allocation, no search, no lock. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"


#define ITEM_PAUSES 21164

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

/* Settles the mapping of an ON call; 0, 20002 (warning) or a negative status. */
static int take_mapping(mi_system *sys, int32_t *mapping) {
  if (!mapping) return MI_E_BAD_POINTER;
  if ((uintptr_t)mapping & 3) return MI_E_BAD_ALIGNMENT;
  if (*mapping < 0 || *mapping > 2) return MI_E_BAD_MAPPING;
  if (sys->mapping < 0) { sys->mapping = *mapping; sys->gen++; return 0; }
  if (*mapping != sys->mapping) { *mapping = sys->mapping; return MI_E_MAPPING_NOT_GIVEN; }
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
  s->prcsr_held = 1;
  return 0;
}

/* Gives back the processor counters s holds, if any. */
static void release_processors(mi_session *s) {
  if (!s->prcsr_held) return;
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR); k++) mi_store_disable(s->sys, MI_DOM_PROCESSOR, k);
  s->prcsr_held = 0;
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
      if (!r && nums[i] == ITEM_PAUSES && !s->prcsr_held && (r = hold_processors(s)) != 0)
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

/* The value of a 64-bit cell in the AIF's 32-bit view (time counters in MI_Time). */
static inline int32_t view(const mi_system *sys, int64_t v, int time) {
  if (time) v = mi_round_ticks(sys, v);
  return (int32_t)(uint32_t)(uint64_t)v;
}

/* One requested item, resolved once per call. */
typedef struct plan {
  const mi_item_info *it;
  int32_t off;     /* word offset in a row (counters) */
  int32_t size;    /* bytes in the buffer */
  int16_t status;  /* 0 or an item error (the slot is zero-filled) */
  uint8_t time, fold;
  uint8_t kind;    /* it->kind, kept here so the copy loops need not follow it */
} plan;

/* Resolves item i of a GET for domain d; fills p and returns its status. */
static inline int resolve(mi_session *s, int d, int32_t num, const uint64_t *en, int mapping, plan *p) {
  const mi_system *sys = s->sys;
  const mi_item_info *it = mi_item_fast(num);
  p->it = NULL; p->off = 0; p->status = 0; p->time = 0; p->fold = 0; p->kind = 0;
  p->size = 4;
  if (!it || it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL)) return p->status = MI_E_BAD_ITEM;
  p->it = it;
  p->kind = it->kind;
  p->size = mi_item_size(it, mapping);
  if (it->kind == MI_KIND_PSEUDO) return 0;
  if (en && !mi_bit(en, it->index)) return p->status = MI_E_NOT_ENABLED;
  p->off = MI_OFF(sys, d, it->index);
  if (p->off < 0) return p->status = MI_E_NOT_ENABLED;
  p->time = it->unit == MI_UNIT_MI_TIME;
  if (it->kind == MI_KIND_OBJCL) {
    if (mapping < sys->mapping) return p->status = MI_E_MAPPING_CONVERSION;
    p->fold = (uint8_t)(mapping != sys->mapping);
  }
  return 0;
}

/* Copies one counter's value(s) for row into dst. */
static inline void put_counter(const mi_system *sys, const plan *p, const int64_t *row, int mapping, uint8_t *dst) {
  const int64_t *c = row + p->off;
  if (p->it->kind == MI_KIND_SIMPLE) {
    int32_t v = view(sys, *c, p->time);
    memcpy(dst, &v, 4);
    return;
  }
  int n = p->it->kind == MI_KIND_SEMCL ? MI_NSEMCL : mi_objcl_len(sys->mapping);
  if (!p->fold) {
    for (int k = 0; k < n; k++) { int32_t v = view(sys, c[k], p->time); memcpy(dst + 4 * k, &v, 4); }
    return;
  }
  int64_t acc[MI_NLARGE];
  int m = mi_objcl_len(mapping);
  memset(acc, 0, sizeof(int64_t) * (size_t)m);
  const uint16_t *f = mi_fold_[sys->mapping][mapping];
  for (int k = 0; k < n; k++) acc[f[k]] += c[k];
  for (int k = 0; k < m; k++) { int32_t v = view(sys, acc[k], p->time); memcpy(dst + 4 * k, &v, 4); }
}

/* Writes the item values of one process record. */
static void put_pseudo_proc(const mi_system *sys, const mi_proc *pr, int32_t item, uint8_t *dst) {
  int32_t tpm = sys->cfg[3043 - 3001], v;
  longint_type l; clock_type ck; uint32_t cal;
  switch (item) {
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

/* Checks a GET's buffer and mapping; 0 or a negative status. */
static int check_buffer(const void *buf, int32_t size, int mapping) {
  if (mapping < 0 || mapping > 2) return MI_E_BAD_MAPPING;
  if (!buf) return MI_E_BAD_BUFFER;
  if ((uintptr_t)buf & 3) return MI_E_BUFFER_ALIGNMENT;
  if (size < 0) return MI_E_BUFFER_TOO_SMALL;
  return 0;
}

/* Resolves a GET's items into plans; returns the record size, fills *good and *last. */
static int32_t plan_all(mi_session *s, int d, int32_t *nums, int32_t *stats, int n, const uint64_t *en,
                        int mapping, plan *pl, int *good, int *last) {
  int32_t rec = 0;
  *good = 0; *last = 0;
  for (int i = 0; i < n; i++) {
    int r = resolve(s, d, nums[i], en, mapping, &pl[i]);
    stats[i] = r;
    if (r) *last = i + 1; else (*good)++;
    rec += pl[i].size;
  }
  return rec;
}

/* The last MIGLOBGET list of a session, resolved: a repeated GET of the same list (the usual
 * sampling loop) copies from these plans instead of resolving every item again. Allocated at
 * MIGLOBON for that call's list length; a GET with a longer list just resolves. */
struct mi_glob_cache {
  uint64_t gen;          /* sys->gen when filled; 0 = empty */
  int32_t cap, n, mapping, rec, good, last;
  int32_t *nums, *stats;
  plan *pl;
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
    nc->cap = n;
    if (!nc->nums || !nc->stats || !nc->pl) { mi_glob_cache_free(nc); nc = NULL; }
  }
  if (!nc) return;  /* no cache: every GET resolves, results unchanged */
  mi_glob_cache_free(c);
  s->gcache = nc;
}

void mi_glob_cache_free(struct mi_glob_cache *c) {
  if (!c) return;
  free(c->nums); free(c->stats); free(c->pl); free(c);
}

/* Serves a MIGLOBGET from the cache if the list, mapping and store layout are unchanged. */
static int glob_cached(mi_session *s, status_type *st, const int32_t *nums, int n, uint8_t *out,
                       int32_t *stats, int32_t size, int mapping) {
  const struct mi_glob_cache *c = s->gcache;
  const mi_system *sys = s->sys;
  if (!c || c->gen != sys->gen || c->n != n || c->mapping != mapping || c->rec > size ||
      memcmp(c->nums, nums, sizeof(int32_t) * (size_t)n) != 0)
    return 0;
  const int64_t *row = sys->view.lane[MI_DOM_GLOBAL].cells;
  for (int i = 0; i < n; i++) {
    const plan *p = &c->pl[i];
    if (p->status) memset(out, 0, (size_t)p->size);
    else if (p->kind == MI_KIND_SIMPLE) {
      int32_t v = view(sys, row[p->off], p->time);
      memcpy(out, &v, 4);
    } else put_counter(sys, p, row, mapping, out);
    out += p->size;
  }
  memcpy(stats, c->stats, sizeof(int32_t) * (size_t)n);
  finish(st, n, c->good, c->last, 0);
  return 1;
}

/* ---- global ---- */

void mi_globon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  if (s->glob_on) { MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }
  if (s->gcache) s->gcache->gen = 0;   /* the cached statuses were for the old enable set */
  int rc = mi_user_take(s);
  if (rc) { MI_STATUS(st, rc); return; }
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); mi_user_release_if_idle(s); return; }
  int good, last;
  enable_list(s, MI_DOM_GLOBAL, nums, stats, n, s->glob_en, NULL, NULL, &good, &last);
  s->glob_on = good > 0;
  if (good) glob_cache_reserve(s, n);
  finish(st, n, good, last, warn);
  if (!good) mi_user_release_if_idle(s);
}

void mi_globget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                int32_t mapping, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if (!s->glob_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  if (glob_cached(s, st, nums, n, buf, stats, size, mapping)) return;
  const int64_t *row = sys->view.lane[MI_DOM_GLOBAL].cells;
  uint8_t *out = buf;
  int32_t room = size;
  struct mi_glob_cache *c = s->gcache;
  int keep = c && n <= c->cap;
  if (keep) c->gen = 0;   /* emptied while its plans are rewritten: a GET that fails part-way leaves it empty */
  int good = 0, last = 0;
  for (int i = 0; i < n; i++) {
    plan p;
    int r = resolve(s, MI_DOM_GLOBAL, nums[i], s->glob_en, mapping, &p);
    if (p.size > room) { MI_STATUS(st, MI_E_BUFFER_TOO_SMALL); return; }
    room -= p.size;
    if (r) { memset(out, 0, (size_t)p.size); last = i + 1; }
    else { put_counter(sys, &p, row, mapping, out); good++; }
    stats[i] = r;
    if (keep) c->pl[i] = p;
    out += p.size;
  }
  finish(st, n, good, last, 0);
  if (keep) {
    memcpy(c->nums, nums, sizeof(int32_t) * (size_t)n);
    memcpy(c->stats, stats, sizeof(int32_t) * (size_t)n);
    c->n = n; c->mapping = mapping; c->good = good; c->last = last;
    c->rec = (int32_t)(out - (uint8_t *)buf);
    c->gen = sys->gen;
  }
}

/* Turns off everything global s has on. */
void mi_globoff_all(mi_session *s) {
  if (!s->glob_on) return;
  if (s->gcache) s->gcache->gen = 0;   /* the cached statuses were for this enable set */
  disable_all(s, MI_DOM_GLOBAL, s->glob_en);
  s->glob_on = 0;
  mi_user_release_if_idle(s);
}

void mi_globoff(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (!s->glob_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_globoff_all(s);
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

void mi_procon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
               longint_type *pid, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  if (pid && ((uintptr_t)pid & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  int64_t want = pid ? mi_longint_get(pid) : -1;
  int slot = -1;
  if (want != -1) {
    slot = mi_host_proc_slot(sys, want);
    if (slot < 0 || sys->procs[slot].state != MI_PS_ALIVE) { MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
  }
  if (s->proc_on) {
    /* a further ON adds processes; it must name the same counters */
    if (!same_set(MI_DOM_PROCESS, nums, n, s->proc_en, (int16_t)s->proc_nitems)) { MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }
    int warn = take_mapping(sys, mapping);
    if (warn < 0) { MI_STATUS(st, warn); return; }
    int good = 0, last = 0;
    for (int i = 0; i < n; i++) {
      const mi_item_info *it = mi_item_lookup(nums[i]);
      stats[i] = it && it->domain == MI_DOM_PROCESS ? 0 : MI_E_BAD_ITEM;
      if (stats[i]) last = i + 1; else good++;
    }
    if (slot >= 0) mi_bit_set(s->mon, slot);
    else {
      s->proc_all = 1;
      for (int i = 0; i < sys->proc_hi; i++)
        if (sys->procs[i].state == MI_PS_ALIVE) mi_bit_set(s->mon, i);
    }
    finish(st, n, good, last, warn);
    return;
  }
  int rc = mi_user_take(s);
  if (rc) { MI_STATUS(st, rc); return; }
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); mi_user_release_if_idle(s); return; }
  int good, last;
  s->proc_nitems = 0;
  enable_list(s, MI_DOM_PROCESS, nums, stats, n, s->proc_en, s->proc_items, &s->proc_nitems, &good, &last);
  if (!good) { finish(st, n, good, last, warn); mi_user_release_if_idle(s); return; }
  s->proc_on = 1;
  memset(s->mon, 0, sizeof s->mon);
  memset(s->dead, 0, sizeof s->dead);
  s->untracked = 0;
  if (slot >= 0) mi_bit_set(s->mon, slot);
  else {
    s->proc_all = 1;
    for (int i = 0; i < sys->proc_hi; i++)
      if (sys->procs[i].state == MI_PS_ALIVE) mi_bit_set(s->mon, i);
  }
  finish(st, n, good, last, warn);
}

/* Writes one process record at out. */
static void put_proc_record(const mi_system *sys, const plan *pl, const int32_t *nums, int n, int slot,
                            int mapping, uint8_t *out) {
  const mi_host_lane *ps = &sys->view.lane[MI_DOM_PROCESS];
  const int64_t *row = ps->cells ? ps->cells + (size_t)slot * ps->stride : NULL;
  const mi_proc *pr = &sys->procs[slot];
  for (int i = 0; i < n; i++) {
    const plan *p = &pl[i];
    if (p->kind == MI_KIND_SIMPLE && !p->status && row) {
      int32_t v = view(sys, row[p->off], p->time);
      memcpy(out, &v, 4);
    } else if (p->status || (!row && p->kind != MI_KIND_PSEUDO)) memset(out, 0, (size_t)p->size);
    else if (p->kind == MI_KIND_PSEUDO) put_pseudo_proc(sys, pr, nums[i], out);
    else put_counter(sys, p, row, mapping, out);
    out += p->size;
  }
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
  if (!s->proc_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  plan pl[MI_MAX_ITEMS];
  int good, last;
  int32_t rec = plan_all(s, MI_DOM_PROCESS, nums, stats, n, s->proc_en, mapping, pl, &good, &last);
  if (n > 0 && !good) { MI_STATUS(st, MI_E_NO_VALID_ITEMS); return; }
  if (rec > size || rec == 0) { MI_STATUS(st, MI_E_BUFFER_TOO_SMALL); return; }
  int32_t fit = rec ? size / rec : 0, done = 0;
  uint8_t *out = buf;
  int64_t want = pid ? mi_longint_get(pid) : -1;
  if (want != -1) {
    int slot = -1;
    if (miproc_ptr && *miproc_ptr > 0 && sys->procs[*miproc_ptr - 1].pid == want &&
        sys->procs[*miproc_ptr - 1].state != MI_PS_FREE)
      slot = *miproc_ptr - 1;
    else slot = mi_host_proc_slot(sys, want);
    if (slot < 0 || !mi_bit(s->mon, slot)) { MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
    put_proc_record(sys, pl, nums, n, slot, mapping, out);
    done = 1;
    if (miproc_ptr) *miproc_ptr = slot + 1;
    if (mi_bit(s->dead, slot)) mi_proc_release_user(sys, s, slot);
  } else {
    int more = 0;
    for (int w = 0; w < MI_PROC_WORDS && !more; w++) {
      uint64_t bits = s->mon[w];
      while (bits) {
        int slot = w * 64 + __builtin_ctzll(bits);
        bits &= bits - 1;
        if (done == fit) { more = 1; break; }
        put_proc_record(sys, pl, nums, n, slot, mapping, out);
        out += rec;
        done++;
        if (mi_bit(s->dead, slot)) mi_proc_release_user(sys, s, slot);
      }
    }
    if (num_of_pids) *num_of_pids = done;
    if (more) { MI_STATUS(st, MI_E_BUFFER_PARTIAL); return; }
    if (!done) { MI_STATUS(st, MI_E_NO_PROCESS_DATA); return; }
  }
  if (num_of_pids) *num_of_pids = done;
  int warn = 0;
  if (s->untracked) { warn = MI_E_PROCESSES_UNTRACKED; s->untracked = 0; }
  finish(st, n, good, last, warn);
}

/* Turns off everything s monitors in the process domain. */
void mi_procoff_all(mi_session *s) {
  if (!s->proc_on) return;
  for (int i = 0; i < MI_MAX_PROCESSES; i++)
    if (mi_bit(s->mon, i)) mi_proc_release_user(s->sys, s, i);
  disable_all(s, MI_DOM_PROCESS, s->proc_en);
  s->proc_on = s->proc_all = 0;
  s->proc_nitems = 0;
  mi_user_release_if_idle(s);
}

void mi_procoff(mi_session *s, status_type *st, longint_type *pid, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (pid && ((uintptr_t)pid & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (!s->proc_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  int64_t want = pid ? mi_longint_get(pid) : -1;
  if (want == -1) { mi_procoff_all(s); MI_STATUS(st, 0); return; }
  int slot = mi_host_proc_slot(s->sys, want);
  if (slot < 0 || !mi_bit(s->mon, slot)) { MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
  s->proc_all = 0;  /* turning one process off ends "all processes" */
  mi_proc_release_user(s->sys, s, slot);
  MI_STATUS(st, 0);
}

/* ---- I/O ---- */

/* Returns the device-type bits an ldev selector names, or -1 if invalid. */
static int type_bits(const mi_system *sys, int32_t ldev) {
  if (ldev == -1) return 0x7FE;
  if (ldev <= -2 && ldev >= -11) return 1 << (-ldev - 1);
  if (ldev >= 1 && ldev <= MI_MAX_LDEV && sys->devtype[ldev]) return 1 << sys->devtype[ldev];
  return -1;
}

/* Adds one LDEV to s's device set; 0 or a limit status. */
static int add_ldev(mi_session *s, int ldev) {
  mi_system *sys = s->sys;
  if (mi_bit(s->ldevs, ldev)) return 0;
  if (s->nldevs >= sys->opt.max_ldevs_per_user) return MI_E_LDEV_LIMIT;
  if (!sys->ldev_refs[ldev] && sys->ldevs_enabled >= sys->opt.max_ldevs) return MI_E_LDEV_TABLE_FULL;
  if (!sys->ldev_refs[ldev]++) sys->ldevs_enabled++;
  mi_bit_set(s->ldevs, ldev);
  s->nldevs++;
  return 0;
}

/* Removes one LDEV from s's device set and gives back its MI device table reference. */
static void drop_ldev(mi_session *s, int ldev) {
  mi_system *sys = s->sys;
  if (!mi_bit(s->ldevs, ldev)) return;
  mi_bit_clr(s->ldevs, ldev);
  s->nldevs--;
  if (sys->ldev_refs[ldev] && !--sys->ldev_refs[ldev]) sys->ldevs_enabled--;
}

/* Removes the LDEVs of the device types in bits from s's set (all of them for every type). */
static void drop_types(mi_session *s, int bits) {
  mi_system *sys = s->sys;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (mi_bit(s->ldevs, l) && (bits == 0x7FE || (bits >> sys->devtype[l] & 1))) drop_ldev(s, l);
  s->io_types &= (uint16_t)~bits;
}

/* An LDEV was removed or changed type: it leaves every session's set and the MI device table. */
void mi_io_forget_ldev(mi_system *sys, int ldev) {
  for (mi_session *s = sys->sessions; s; s = s->next) drop_ldev(s, ldev);
}

void mi_ioon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t *ldev,
             int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  if (ldev && ((uintptr_t)ldev & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  int32_t sel = ldev ? *ldev : -1;
  int bits = type_bits(sys, sel);
  if (bits < 0) { MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (s->io_on && ((s->io_types & bits) || !same_set(MI_DOM_IO, nums, n, s->io_en, (int16_t)s->io_nitems))) {
    MI_STATUS(st, MI_E_ALREADY_ENABLED);
    return;
  }
  /* room check first: a type is enabled whole or not at all */
  int need = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (sys->devtype[l] && (bits >> sys->devtype[l] & 1) && (sel < 1 || l == sel) && !mi_bit(s->ldevs, l)) need++;
  int fresh = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (sys->devtype[l] && (bits >> sys->devtype[l] & 1) && (sel < 1 || l == sel) && !sys->ldev_refs[l]) fresh++;
  if (s->nldevs + need > sys->opt.max_ldevs_per_user) { MI_STATUS(st, sel >= 1 ? MI_E_LDEV_LIMIT : MI_E_DEVICE_TYPE_PARTIAL); return; }
  if (sys->ldevs_enabled + fresh > sys->opt.max_ldevs) { MI_STATUS(st, sel >= 1 ? MI_E_LDEV_TABLE_FULL : MI_E_DEVICE_TYPE_PARTIAL); return; }
  int first = !s->io_on;
  if (first) {
    int rc = mi_user_take(s);
    if (rc) { MI_STATUS(st, rc); return; }
  }
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); if (first) mi_user_release_if_idle(s); return; }
  int good, last;
  if (first) {
    s->io_nitems = 0;
    enable_list(s, MI_DOM_IO, nums, stats, n, s->io_en, s->io_items, &s->io_nitems, &good, &last);
    if (!good) { finish(st, n, good, last, warn); mi_user_release_if_idle(s); return; }
    s->io_on = 1;
  } else {
    good = 0; last = 0;
    for (int i = 0; i < n; i++) {
      const mi_item_info *it = mi_item_lookup(nums[i]);
      stats[i] = it && it->domain == MI_DOM_IO ? 0 : MI_E_BAD_ITEM;
      if (stats[i]) last = i + 1; else good++;
    }
  }
  s->io_types |= (uint16_t)bits;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (sys->devtype[l] && (bits >> sys->devtype[l] & 1) && (sel < 1 || l == sel)) add_ldev(s, l);
  finish(st, n, good, last, warn);
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
  if (!s->io_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  if (sel >= 1 && !mi_bit(s->ldevs, sel)) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_sys_refresh(sys);
  plan pl[MI_MAX_ITEMS];
  int good, last;
  int32_t rec = plan_all(s, MI_DOM_IO, nums, stats, n, s->io_en, mapping, pl, &good, &last);
  if (n > 0 && !good) { MI_STATUS(st, MI_E_NO_VALID_ITEMS); return; }
  if (rec > size || rec == 0) { MI_STATUS(st, MI_E_BUFFER_TOO_SMALL); return; }
  int bits = sel == -1 ? 0x7FE : sel < 0 ? 1 << (-sel - 1) : 0;
  int32_t fit = size / rec, done = 0;
  uint8_t *out = buf;
  const mi_host_lane *io = &sys->view.lane[MI_DOM_IO];
  int more = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    if (!mi_bit(s->ldevs, l) || (sel >= 1 ? l != sel : !(bits >> sys->devtype[l] & 1))) continue;
    if (done == fit) { more = 1; break; }
    const int64_t *row = io->cells ? io->cells + (size_t)l * io->stride : NULL;  /* NULL: only 20020 is on */
    for (int i = 0; i < n; i++) {
      if (pl[i].status) memset(out, 0, (size_t)pl[i].size);
      else if (pl[i].it->kind == MI_KIND_PSEUDO) { int32_t v = l; memcpy(out, &v, 4); }
      else put_counter(sys, &pl[i], row, mapping, out);
      out += pl[i].size;
    }
    done++;
  }
  if (num_of_ldevs) *num_of_ldevs = done;
  if (more) { MI_STATUS(st, MI_E_BUFFER_PARTIAL); return; }
  finish(st, n, good, last, 0);
}

/* Turns off every device type s has on. */
void mi_iooff_all(mi_session *s) {
  if (!s->io_on) return;
  drop_types(s, 0x7FE);
  disable_all(s, MI_DOM_IO, s->io_en);
  s->io_on = 0;
  s->io_nitems = 0;
  mi_user_release_if_idle(s);
}

void mi_iooff(mi_session *s, status_type *st, int32_t *ldev, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (ldev && ((uintptr_t)ldev & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  int32_t sel = ldev ? *ldev : -1;
  int bits = type_bits(s->sys, sel);
  if (bits < 0) { MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (!s->io_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  drop_types(s, bits);
  if (!s->io_types) mi_iooff_all(s);
  MI_STATUS(st, 0);
}

/* ---- processors ---- */

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
  if (!s->glob_on || !mi_bit(s->glob_en, pauses->index)) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  mi_sys_refresh(sys);
  plan pl[MI_MAX_ITEMS];
  int good, last;
  int32_t rec = plan_all(s, MI_DOM_PROCESSOR, nums, stats, n, NULL, mapping, pl, &good, &last);
  if (n > 0 && !good) { MI_STATUS(st, MI_E_NO_VALID_ITEMS); return; }
  int first = id < 0 ? 0 : id, count = id < 0 ? MI_MAX_PROCESSORS : 1;
  if (rec == 0 || rec > size) { MI_STATUS(st, MI_E_BUFFER_TOO_SMALL); return; }
  int32_t fit = size / rec, done = 0;
  const mi_host_lane *ps = &sys->view.lane[MI_DOM_PROCESSOR];
  uint8_t *out = buf;
  for (int c = first; c < first + count && done < fit; c++, done++) {
    const int64_t *row = ps->cells ? ps->cells + (size_t)c * ps->stride : NULL;
    for (int i = 0; i < n; i++) {
      if (pl[i].status) memset(out, 0, (size_t)pl[i].size);
      else if (pl[i].it->kind == MI_KIND_PSEUDO) { int32_t v = c; memcpy(out, &v, 4); }
      else put_counter(sys, &pl[i], row, mapping, out);
      out += pl[i].size;
    }
  }
  if (num_of_prcsrs) *num_of_prcsrs = done;
  if (done < count) { MI_STATUS(st, MI_E_BUFFER_PARTIAL); return; }
  finish(st, n, good, last, 0);
}
