/* aif.c — the counter AIFs of chapter 5: MIGLOBON/GET/OFF, MIPROCON/GET/OFF,
 * MIIOON/GET/OFF and MIPRCSRGET. ONs and OFFs change the store in a write section; the
 * GETs check their parameters and run a prepared query (query.c), which gathers under the
 * seqlock: no allocation, no search, no lock when the plan holds. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_query.h"


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

/* Settles the mapping of an ON call (in a write section); 0, 20002 (warning) or a negative status. */
static int take_mapping(mi_system *sys, int32_t *mapping) {
  mi_seg *g = sys->seg;
  if (!mapping) return MI_E_BAD_POINTER;
  if ((uintptr_t)mapping & 3) return MI_E_BAD_ALIGNMENT;
  if (*mapping < 0 || *mapping > 2) return MI_E_BAD_MAPPING;
  int32_t m = MI_LD(g->mapping);
  if (m < 0 && sys->readonly) return 0;   /* nothing is collected: every item says so */
  if (m < 0) { MI_ST(g->mapping, *mapping); MI_ST(g->h.gen, g->h.gen + 1); return 0; }
  if (*mapping != m) { *mapping = m; return MI_E_MAPPING_NOT_GIVEN; }
  return 0;
}

/* Writes the overall status of an ON/GET: errors as the last failing index, else warning or 0. */
static void finish(status_type *st, int n, int good, int last, int warn) {
  if (n > 0 && good == 0) MI_STATUS(st, MI_E_NO_VALID_ITEMS);
  else MI_STATUS(st, last ? last : warn);
}

/* s's own enable set changed (in its section): its prepared plans re-resolve. A read-write
 * session bumps the segment's gen (the layout may have moved too); a read-only one, whose set
 * is private, its own generation. */
static void enables_changed(mi_session *s) {
  if (s->sys->readonly) s->lgen++;
  else MI_ST(s->sys->seg->h.gen, s->sys->seg->h.gen + 1);
}

/* A read-only session's ON of dense counter (d, index): 0 if the store collects it (someone
 * enabled it: it has its cells), else MI_E_STORE_NOT_COLLECTED; nothing is written. */
static int collected(mi_system *sys, int d, int index) {
  return MI_LD(MI_OFF(sys, d, index)) >= 0 ? 0 : MI_E_STORE_NOT_COLLECTED;
}

/* Takes a reference on every processor counter for s (its 21164 went on): all or none,
 * so an OFF gives back exactly what this session took; 0 or -20004. */
static int hold_processors(mi_session *s) {
  int n = mi_domain_counters(MI_DOM_PROCESSOR);
  for (int k = 0; k < n && s->sys->readonly; k++)   /* read-only: only if the store collects them all */
    if (collected(s->sys, MI_DOM_PROCESSOR, k)) return MI_E_STORE_NOT_COLLECTED;
  for (int k = 0; k < n && !s->sys->readonly; k++)
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
  for (int k = 0; k < mi_domain_counters(MI_DOM_PROCESSOR) && !s->sys->readonly; k++) mi_store_disable(s->sys, MI_DOM_PROCESSOR, k);
  s->u->prcsr_held = 0;
}

/* Enables the items of a list in domain d for session s, setting bits in en.
 * With `same`, the valid items must equal the set already enabled (else -20001). */
static int enable_list(mi_session *s, int d, int32_t *nums, int32_t *stats, int n, uint64_t *en,
                       int16_t *order, int32_t *norder, int *good, int *last) {
  mi_system *sys = s->sys;
  *good = 0; *last = 0;
  /* room for the whole list first: enabled one by one, the rows regrow at each half again, and
   * each regrowth zeroes and copies every row (an exporter's ON of every process counter
   * zeroed 70 MB of cells for 24 MB of rows). Without room, each enable grows as before. */
  uint64_t seen[MI_HOST_INDEX_LIMIT / 64] = {0};
  const mi_store *st = &sys->seg->dom[d];
  int64_t words = 0;
  for (int i = 0; i < n; i++) {
    const mi_item_info *it = mi_sys_item(sys, nums[i]);
    if (!it || it->domain != d || it->kind == MI_KIND_PSEUDO || mi_bit(en, it->index) || mi_bit(seen, it->index)) continue;
    mi_bit_set(seen, it->index);
    if (st->refs[it->index] == 0 && st->slot[it->index] < 0)
      words += mi_counter_words(sys, d, it->index, sys->seg->mapping < 0 ? 0 : sys->seg->mapping);
  }
  if (!sys->readonly) mi_store_reserve(sys, d, words);   /* a read-only reader writes nothing (#27.8) */
  for (int i = 0; i < n; i++) {
    const mi_item_info *it = mi_sys_item(sys, nums[i]);
    int r = 0;
    if (!it || it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL)) r = MI_E_BAD_ITEM;
    else if (it->kind != MI_KIND_PSEUDO && !mi_bit(en, it->index)) {
      r = sys->readonly ? collected(sys, d, it->index) : mi_store_enable(sys, d, it->index);
      /* 21164 brings the processor counters: without room for all of them it is not on */
      if (!r && nums[i] == ITEM_PAUSES && !s->u->prcsr_held && (r = hold_processors(s)) != 0 && !sys->readonly)
        mi_store_disable(sys, d, it->index);
      if (!r) {
        mi_bit_set(en, it->index);
        enables_changed(s);   /* the caller's enable set changed: prepared plans re-resolve */
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
  int n = MI_HOST_INDEX_LIMIT;   /* user-defined counters follow the catalog's */
  enables_changed(s);   /* the caller's enable set changes: prepared plans re-resolve */
  for (int i = 0; i < n && !s->sys->readonly; i++)   /* a read-only session's set is its own */
    if (mi_bit(en, i)) mi_store_disable(s->sys, d, i);
  if (d == MI_DOM_GLOBAL) release_processors(s);
  memset(en, 0, (size_t)(n + 63) / 64 * 8);
}

/* ---- prepared queries ---- */

/* A session's prepared GETs, one query per domain: a sampling loop asks for the same list
 * every time, so a GET whose list and mapping match the domain's query runs it as it is (its
 * plan re-resolves only when the segment's gen moved); another list rebinds the query when it
 * fits (no allocation: the room is reserved by the ON calls, never by a GET), else the GET
 * runs a query over stack memory. */
struct mi_glob_cache {
  mi_query q[MI_DOM_COUNT];
};

/* Makes room in s's query for domain d for lists of n items (called by ON calls only). */
static void query_reserve(mi_session *s, int d, int n) {
  if (!s->gcache) s->gcache = calloc(1, sizeof *s->gcache);
  if (!s->gcache) return;  /* no cache: every GET runs a stack query, results unchanged */
  mi_query *q = &s->gcache->q[d];
  if (q->pl && q->cap >= n) return;
  if (n < 32) n = 32;
  void *mem = malloc(MI_QUERY_MEM(n));
  if (!mem) return;
  free(q->pl);
  mi_query_init(q, s, d, -1, mem, n);
}

void mi_glob_cache_free(struct mi_glob_cache *c) {
  if (!c) return;
  for (int d = 0; d < MI_DOM_COUNT; d++) free(c->q[d].pl);
  free(c);
}

/* Forgets s's resolved plans (its own enable set changed). */
static void query_forget(mi_session *s) {
  if (s->gcache)
    for (int d = 0; d < MI_DOM_COUNT; d++) s->gcache->q[d].valid = 0;
}

/* A GET's query when the session's does not fit the list: a temporary one over stack memory
 * (in a function of its own, so the common path keeps a small stack frame), run by fn. */
typedef int (*query_fn)(mi_query *q, void *arg);
static __attribute__((noinline)) int run_tmp(mi_session *s, int d, const int32_t *nums, int n, int mapping,
                                             query_fn fn, void *arg) {
  mi_query q;
  _Alignas(8) uint8_t mem[MI_QUERY_MEM(MI_MAX_ITEMS)];
  mi_query_init(&q, s, d, mapping, mem, MI_MAX_ITEMS - 1);
  mi_query_bind(&q, nums, n, mapping);
  return fn(&q, arg);
}

/* Runs fn on the query a GET of nums (n items) at mapping in domain d uses: the session's,
 * rebound to this list if needed and it fits, else a temporary one. */
static inline int with_query(mi_session *s, int d, const int32_t *nums, int n, int mapping, query_fn fn, void *arg) {
  mi_query *q = s->gcache ? &s->gcache->q[d] : NULL;
  if (q && q->pl) {
    if (mi_query_same(q, nums, n, mapping)) return fn(q, arg);
    if (n <= q->cap) { mi_query_bind(q, nums, n, mapping); return fn(q, arg); }
  }
  return run_tmp(s, d, nums, n, mapping, fn, arg);
}

/* The arguments of a GET's body. */
typedef struct get_args {
  uint8_t *buf; int32_t size; int64_t sel; int32_t *count, *key, *stats;
} get_args;
static int glob_body(mi_query *q, void *a) { get_args *g = a; return mi_query_exec_glob(q, g->buf, g->size, g->stats); }
static int proc_body(mi_query *q, void *a) { get_args *g = a; return mi_query_exec_proc(q, g->buf, g->size, g->sel, g->count, g->key, g->stats); }
static int io_body(mi_query *q, void *a) { get_args *g = a; return mi_query_exec_io(q, g->buf, g->size, (int32_t)g->sel, g->count, g->stats); }
static int prcsr_body(mi_query *q, void *a) { get_args *g = a; return mi_query_exec_prcsr(q, g->buf, g->size, (int32_t)g->sel, g->count, g->stats); }

/* ---- global ---- */

/* MIGLOBON in a write section. */
static void globon_locked(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int n, int32_t *mapping) {
  mi_system *sys = s->sys;
  if (s->u->glob_on) { MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }
  query_forget(s);   /* the resolved statuses were for the old enable set */
  int rc = mi_user_take(s);
  if (rc) { MI_STATUS(st, rc); return; }
  int warn = take_mapping(sys, mapping);
  if (warn < 0) { MI_STATUS(st, warn); mi_user_release_if_idle(s); return; }
  int good, last;
  enable_list(s, MI_DOM_GLOBAL, nums, stats, n, s->u->glob_en, NULL, NULL, &good, &last);
  s->u->glob_on = good > 0;
  if (good) { query_reserve(s, MI_DOM_GLOBAL, n); query_reserve(s, MI_DOM_PROCESSOR, 0); }
  finish(st, n, good, last, warn);
  if (!good) mi_user_release_if_idle(s);
}

void mi_globon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh_for(sys, MI_DOM_GLOBAL);   /* the source takes its baselines before the ON */
  int rc = mi_user_section(sys);
  if (rc) { MI_STATUS(st, rc); return; }
  globon_locked(s, st, nums, stats, n, mapping);
  mi_user_section_end(sys);
}

void mi_globget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                int32_t mapping, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = mi_query_check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  get_args g = {buf, size, 0, NULL, NULL, stats};
  MI_STATUS(st, with_query(s, MI_DOM_GLOBAL, nums, n, mapping, glob_body, &g));
}

/* Turns off everything global s has on (in a write section). */
void mi_globoff_all(mi_session *s) {
  if (!s->u->glob_on) return;
  query_forget(s);   /* the resolved statuses were for this enable set */
  disable_all(s, MI_DOM_GLOBAL, s->u->glob_en);
  s->u->glob_on = 0;
  mi_user_release_if_idle(s);
}

void mi_globoff(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (!s->u->glob_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  if ((rc = mi_user_section(s->sys))) { MI_STATUS(st, rc); return; }
  mi_globoff_all(s);
  mi_user_section_end(s->sys);
  MI_STATUS(st, 0);
}

/* ---- processes ---- */

/* Returns 1 if the valid items of nums form exactly the set in en. */
static int same_set(mi_system *sys, int d, const int32_t *nums, int n, const uint64_t *en, int16_t count) {
  int seen = 0;
  uint64_t mark[16] = {0};
  for (int i = 0; i < n; i++) {
    const mi_item_info *it = mi_sys_item(sys, nums[i]);
    if (!it || it->domain != d || it->kind == MI_KIND_PSEUDO) continue;
    if (!mi_bit(en, it->index)) return 0;
    if (!mi_bit(mark, it->index)) { mi_bit_set(mark, it->index); seen++; }
  }
  return seen == count;
}

/* Marks process slot as monitored by s (a read-only session follows its process privately). */
static void monitor(mi_session *s, int slot) {
  if (s->sys->readonly) mi_ro_follow(s, slot);
  else mi_abit_set(s->u->mon, slot);
}

/* Marks every live process as monitored by s (MIPROCON of all). */
static void monitor_all(mi_session *s) {
  const mi_seg *g = s->sys->seg;
  s->u->proc_all = 1;
  if (s->sys->readonly && s->ro) s->ro->births = MI_LD(g->births);   /* first: a birth after the scan is new */
  for (int i = 0, hi = MI_LD(g->proc_hi); i < hi && i < MI_MAX_PROCESSES; i++)
    if (MI_LD(g->procs[i].state) == MI_PS_ALIVE) monitor(s, i);
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
    if (slot < 0 || MI_LD(sys->seg->procs[slot].state) != MI_PS_ALIVE) { MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
  }
  if (sys->readonly && !s->ro && !(s->ro = calloc(1, sizeof *s->ro))) { MI_STATUS(st, MI_E_TOO_MANY_COUNTERS); return; }
  if (u->proc_on) {
    /* a further ON adds processes; it must name the same counters */
    if (!same_set(sys, MI_DOM_PROCESS, nums, n, u->proc_en, (int16_t)u->proc_nitems)) { MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }
    int warn = take_mapping(sys, mapping);
    if (warn < 0) { MI_STATUS(st, warn); return; }
    int good = 0, last = 0;
    for (int i = 0; i < n; i++) {
      const mi_item_info *it = mi_sys_item(sys, nums[i]);
      stats[i] = it && it->domain == MI_DOM_PROCESS ? 0 : MI_E_BAD_ITEM;
      if (stats[i]) last = i + 1; else good++;
    }
    if (slot >= 0) monitor(s, slot);
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
  query_reserve(s, MI_DOM_PROCESS, n);
  for (int w = 0; w < MI_PROC_WORDS; w++) { MI_ST(u->mon[w], 0); MI_ST(u->dead[w], 0); }
  MI_ST(u->untracked, 0);
  if (sys->readonly) s->ro->births = MI_LD(sys->seg->births);   /* births from now on are new */
  if (slot >= 0) monitor(s, slot);
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
  mi_sys_refresh_for(sys, MI_DOM_PROCESS);   /* the source brings its processes in before the ON names one */
  int rc = mi_user_section(sys);
  if (rc) { MI_STATUS(st, rc); return; }
  procon_locked(s, st, nums, stats, n, mapping, pid);
  mi_user_section_end(sys);
}

void mi_procget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                int32_t mapping, longint_type *pid, int32_t *num_of_pids, int32_t *miproc_ptr, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = mi_query_check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if (pid && ((uintptr_t)pid & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (num_of_pids && ((uintptr_t)num_of_pids & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  if (miproc_ptr && ((uintptr_t)miproc_ptr & 3)) { MI_STATUS(st, MI_E_MIPROC_ALIGNMENT); return; }
  if (miproc_ptr && (*miproc_ptr < 0 || *miproc_ptr > MI_MAX_PROCESSES)) { MI_STATUS(st, MI_E_BAD_MIPROC_PTR); return; }
  get_args g = {buf, size, pid ? mi_longint_get(pid) : -1, num_of_pids, miproc_ptr, stats};
  MI_STATUS(st, with_query(s, MI_DOM_PROCESS, nums, n, mapping, proc_body, &g));
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
  u->nsel = 0;   /* and any MIPROCONSEL selection */
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
  if ((rc = mi_user_section(s->sys))) { MI_STATUS(st, rc); return; }
  if (want == -1) { mi_procoff_all(s); mi_user_section_end(s->sys); MI_STATUS(st, 0); return; }
  int slot = mi_host_proc_slot(s->sys, want);
  if (slot < 0 || !mi_bit(s->u->mon, slot)) { mi_user_section_end(s->sys); MI_STATUS(st, MI_E_NO_SUCH_PID); return; }
  MI_ST(s->u->proc_all, 0);  /* turning one process off ends "all processes" */
  s->u->nsel = 0;            /* and any selection (MIPROCONSEL) */
  mi_proc_release_user(s->sys, s, slot);
  mi_user_section_end(s->sys);
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
  if (s->sys->readonly) { mi_bit_set(u->ldevs, ldev); u->nldevs++; return 0; }   /* not in the store's device table */
  if (!g->ldev_refs[ldev] && g->ldevs_enabled >= g->max_ldevs) return MI_E_LDEV_TABLE_FULL;
  if (!g->ldev_refs[ldev]++) g->ldevs_enabled++;
  mi_bit_set(u->ldevs, ldev);
  u->nldevs++;
  return 0;
}


/* Removes the LDEVs of the device types in bits from s's set (all of them for every type). */
static void drop_types(mi_session *s, int bits) {
  mi_seg *g = s->sys->seg;
  mi_urec *u = s->u;
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    if (!mi_bit(u->ldevs, l) || !(bits == 0x7FE || (bits >> MI_LD(g->devtype[l]) & 1))) continue;
    if (s->sys->readonly) { mi_bit_clr(u->ldevs, l); u->nldevs--; }   /* a private set */
    else mi_user_drop_ldev(g, u, l);
  }
  u->io_types &= (uint16_t)~bits;
}

/* MIIOON in a write section. */
static void ioon_locked(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int n, int32_t *mapping,
                        int32_t sel) {
  mi_system *sys = s->sys;
  mi_seg *g = sys->seg;
  int bits = type_bits(sys, sel);
  if (bits < 0) { MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (s->u->io_on && ((s->u->io_types & bits) || !same_set(s->sys, MI_DOM_IO, nums, n, s->u->io_en, (int16_t)s->u->io_nitems))) {
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
  if (!sys->readonly && g->ldevs_enabled + fresh > g->max_ldevs) { MI_STATUS(st, sel >= 1 ? MI_E_LDEV_TABLE_FULL : MI_E_DEVICE_TYPE_PARTIAL); return; }
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
    query_reserve(s, MI_DOM_IO, n);
  } else {
    good = 0; last = 0;
    for (int i = 0; i < n; i++) {
      const mi_item_info *it = mi_sys_item(s->sys, nums[i]);
      stats[i] = it && it->domain == MI_DOM_IO ? 0 : MI_E_BAD_ITEM;
      if (stats[i]) last = i + 1; else good++;
    }
  }
  u->io_types |= (uint16_t)bits;
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (g->devtype[l] && (bits >> g->devtype[l] & 1) && (sel < 1 || l == sel)) add_ldev(s, l);
  finish(st, n, good, last, warn);
}


void mi_ioon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t *ldev,
             int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  if (ldev && ((uintptr_t)ldev & 3)) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh_for(sys, MI_DOM_IO);   /* the source brings its devices in before the ON names one */
  int rc = mi_user_section(sys);
  if (rc) { MI_STATUS(st, rc); return; }
  ioon_locked(s, st, nums, stats, n, mapping, ldev ? *ldev : -1);
  mi_user_section_end(sys);
}

void mi_ioget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
              int32_t mapping, int32_t *ldev, int32_t *num_of_ldevs, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = mi_query_check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if ((ldev && ((uintptr_t)ldev & 3)) || (num_of_ldevs && ((uintptr_t)num_of_ldevs & 3))) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  get_args g = {buf, size, ldev ? *ldev : -1, num_of_ldevs, NULL, stats};
  MI_STATUS(st, with_query(s, MI_DOM_IO, nums, n, mapping, io_body, &g));
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
  if ((rc = mi_user_section(s->sys))) { MI_STATUS(st, rc); return; }
  int bits = type_bits(s->sys, sel);
  if (bits < 0) { mi_user_section_end(s->sys); MI_STATUS(st, MI_E_BAD_LDEV); return; }
  if (!s->u->io_on) { mi_user_section_end(s->sys); MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  drop_types(s, bits);
  if (!s->u->io_types) mi_iooff_all(s);
  mi_user_section_end(s->sys);
  MI_STATUS(st, 0);
}

/* ---- processors ---- */

void mi_prcsrget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                 int32_t mapping, int32_t *prcsr_id, int32_t *num_of_prcsrs, int32_t user_id) {
  if (!st) return;
  int n = check_list(s, nums, stats, user_id);
  if (n < 0) { MI_STATUS(st, n); return; }
  int rc = mi_query_check_buffer(buf, size, mapping);
  if (rc) { MI_STATUS(st, rc); return; }
  if ((prcsr_id && ((uintptr_t)prcsr_id & 3)) || (num_of_prcsrs && ((uintptr_t)num_of_prcsrs & 3))) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  get_args g = {buf, size, prcsr_id ? *prcsr_id : -1, num_of_prcsrs, NULL, stats};
  rc = with_query(s, MI_DOM_PROCESSOR, nums, n, mapping, prcsr_body, &g);
  /* all processors of a machine that has more than the MI's 8: the 8, said with a warning */
  if (rc == 0 && g.sel == -1 && mi_host_cpus_all(s->sys) > MI_MAX_PROCESSORS) rc = MI_E_PROCESSORS_BEYOND_MI;
  MI_STATUS(st, rc);
}

/* Door 2 entered as an AIF: the caller checks every AIF makes, then the prepared read (mi_query.h). */
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

/* ---- collecting for read-only readers (#27.8) ---- */

/* Enables every counter of domain d for the collector s (in a write section); 1 if any is on. */
static int collect_domain(mi_session *s, int d, uint64_t *en, int *rc) {
  int any = 0;
  for (int k = 0; k < mi_domain_counters(d); k++) {
    const mi_item_info *it = mi_domain_item(d, k);
    if (!it || it->kind == MI_KIND_PSEUDO) continue;
    if (mi_bit(en, k)) { any = 1; continue; }
    int r = mi_store_enable(s->sys, d, k);
    if (!r && it->item == ITEM_PAUSES && !s->u->prcsr_held && (r = hold_processors(s)) != 0) mi_store_disable(s->sys, d, k);
    if (r) { *rc = r; continue; }
    mi_bit_set(en, k);
    any = 1;
  }
  return any;
}

int mi_system_collect(mi_system *sys, int mask) {
  if (!sys) return MI_E_BAD_POINTER;
  if (sys->readonly) return MI_E_STORE_READONLY;
  if (!sys->collector && !(sys->collector = mi_session_new(sys))) return MI_E_TOO_MANY_COUNTERS;
  mi_session *s = sys->collector;
  int rc = mi_wlock_bounded(sys);
  if (rc) return rc;
  if (!(rc = mi_user_take(s))) {
    int32_t m = 2;   /* the standard object-class map if nobody chose one (the finest, large, would take 65
                        times the cells of each class counter: 13.6 M for the process domain alone) */
    take_mapping(sys, &m);
    mi_urec *u = s->u;
    /* on, yet monitoring no process and no LDEV: no death waits for this user to be told */
    if (mask & MI_COLLECT_GLOBAL) u->glob_on |= collect_domain(s, MI_DOM_GLOBAL, u->glob_en, &rc);
    if (mask & MI_COLLECT_PROCESS) u->proc_on |= collect_domain(s, MI_DOM_PROCESS, u->proc_en, &rc);
    if (mask & MI_COLLECT_IO) u->io_on |= collect_domain(s, MI_DOM_IO, u->io_en, &rc);
    enables_changed(s);
    mi_user_release_if_idle(s);
  }
  mi_wunlock(sys);
  return rc;
}
