/* store.c — the counter store and the writer API: systems, processors, devices,
 * processes and the 64-bit counter cells that only enabled counters occupy. */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_internal.h"
#include "mi_source.h"

static const mi_system_options defaults = {16, 32 * 1024 * 1024, 999, 999, MI_MAX_PROCESSES, NULL, 0};

/* Fills the blank-padded 16-character field dst from a C string (NULL = blanks). */
static void pad16(char dst[16], const char *src) {
  size_t n = src ? strnlen(src, 16) : 0;
  memcpy(dst, src ? src : "", n);
  memset(dst + n, ' ', 16 - n);
}

mi_system *mi_system_new(const mi_system_options *opt) {
  mi_catalog_init();
  /* a path that does not fit is refused: cutting it would read and write another file */
  if (opt && ((opt->registry && strlen(opt->registry) >= MI_PATH_MAX) || (opt->share && strlen(opt->share) >= MI_PATH_MAX))) {
    errno = ENAMETOOLONG;
    return NULL;
  }
  mi_system *sys = calloc(1, sizeof *sys);
  if (!sys) return NULL;
  sys->opt = defaults;
  if (opt) {
    if (opt->max_users > 0) sys->opt.max_users = opt->max_users < MI_MAX_USERS_LIMIT ? opt->max_users : MI_MAX_USERS_LIMIT;
    if (opt->max_cells > 0) sys->opt.max_cells = opt->max_cells;
    if (opt->max_ldevs > 0) sys->opt.max_ldevs = opt->max_ldevs;
    if (opt->max_ldevs_per_user > 0) sys->opt.max_ldevs_per_user = opt->max_ldevs_per_user;
    if (opt->max_processes > 0 && opt->max_processes < MI_MAX_PROCESSES) sys->opt.max_processes = opt->max_processes;
    sys->opt.boot_ticks = opt->boot_ticks;
    if (opt->registry) {
      strncpy(sys->registry_path, opt->registry, sizeof sys->registry_path - 1);
    }
  }
  sys->opt.registry = sys->registry_path[0] ? sys->registry_path : NULL;
  sys->opt.share = NULL;
  mi_seg *g = mi_seg_new(sys, opt ? opt->share : NULL, sys->opt.max_cells);
  if (!g) { free(sys); return NULL; }
  g->max_users = sys->opt.max_users;
  g->max_cells = sys->opt.max_cells;
  g->max_ldevs = sys->opt.max_ldevs;
  g->max_ldevs_per_user = sys->opt.max_ldevs_per_user;
  g->max_processes = sys->opt.max_processes;
  memcpy(g->h.registry, sys->registry_path, sizeof g->h.registry);
  mi_config_defaults(sys);
  mi_set_round(g, g->cfg[3042 - 3001]);
  g->now = sys->opt.boot_ticks > 0 ? sys->opt.boot_ticks : mi_wall_ticks(g->cfg[3043 - 3001]);
  g->ncpu = 1;
  g->mapping = -1;
  for (int i = 0; i < MI_DOM_COUNT << MI_HOST_INDEX_BITS; i++) g->blk.off[i] = -1;
  memset(sys->ckind, MI_CKIND_NONE, sizeof sys->ckind);
  for (int d = 0; d < MI_DOM_COUNT; d++)
    for (int i = 0; i < mi_domain_counters_[d]; i++)
      sys->ckind[d << MI_HOST_INDEX_BITS | i] = mi_domain_item(d, i)->kind;
  static const int nent[MI_DOM_COUNT] = {1, MI_MAX_PROCESSES, MI_MAX_LDEV + 1, MI_MAX_PROCESSORS};
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    g->blk.lane[d].nent = nent[d];
    for (int i = 0; i < MI_HOST_INDEX_LIMIT; i++) g->dom[d].slot[i] = -1;
  }
  mi_registry_load(sys);
  return sys;
}

void mi_system_free(mi_system *sys) {
  if (!sys) return;
  mi_system_publish_every(sys, 0);
  mi_default_forget(sys);
  mi_store_free_sessions(sys);
  if (sys->refresh_fini) sys->refresh_fini(sys->refresh_arg);
  mi_seg_free(sys);
  free(sys->uids);
  free(sys);
}

void mi_system_set_source(mi_system *sys, mi_refresh_fn fn, void *arg, void (*fini)(void *)) {
  if (!sys || sys->attached) return;
  if (sys->refresh_fini && sys->refresh_arg != arg) sys->refresh_fini(sys->refresh_arg);
  sys->refresh = fn; sys->refresh_arg = arg; sys->refresh_fini = fini;
  sys->source_ops = NULL;
  if (sys->seg && sys->seg->source[0]) { mi_wlock(sys); sys->seg->source[0] = 0; mi_wunlock(sys); }
}

void *mi_system_source(mi_system *sys) { return sys ? sys->refresh_arg : NULL; }

/* Runs the source's refresh hook in a write section (not re-entrantly). If another thread is
 * writing, the caller reads the state it last published instead of waiting. */
void mi_sys_refresh(mi_system *sys) {
  if (!sys->refresh || !mi_wtrylock(sys)) return;
  if (!sys->in_refresh) {
    sys->in_refresh = 1;
    sys->refresh(sys, sys->refresh_arg);
    sys->in_refresh = 0;
  }
  mi_wunlock(sys);
}

/* mi_sys_refresh before an ON of domain: the source sees the ON coming (mi_host_wants), so a
 * source that keeps a domain's entities only while someone reads them brings them in first. */
void mi_sys_refresh_for(mi_system *sys, int domain) {
  __atomic_fetch_or(&sys->want_dom, 1 << domain, __ATOMIC_RELAXED);
  mi_sys_refresh(sys);
  __atomic_fetch_and(&sys->want_dom, ~(1 << domain), __ATOMIC_RELAXED);
}

/* The system whose reads' refreshes this thread holds (mi_sys_hold), NULL none. */
static _Thread_local const mi_system *held;

/* mi_sys_refresh before a read of domain alone: the source may leave other domains for the
 * reads that return them (mi_host_reading). Nothing while this thread holds sys's reads. */
void mi_sys_refresh_read(mi_system *sys, int domain) {
  if (sys->attached) return;   /* no source (mi_system_set_source refuses one): no flags to set, no line to touch */
  if (held == sys) return;
  __atomic_fetch_or(&sys->read_dom, 1 << domain, __ATOMIC_RELAXED);
  mi_sys_refresh(sys);
  __atomic_fetch_and(&sys->read_dom, ~(1 << domain), __ATOMIC_RELAXED);
}

/* One mi_sys_refresh for reads of the domains of bit mask domains, then the reads this thread
 * makes of sys refresh nothing until mi_sys_release (one reading of several domains: an
 * exporter's scrape reads the source once, not once per domain). An ON still refreshes. */
void mi_sys_hold(mi_system *sys, int domains) {
  held = NULL;
  __atomic_fetch_or(&sys->read_dom, domains, __ATOMIC_RELAXED);
  mi_sys_refresh(sys);
  __atomic_fetch_and(&sys->read_dom, ~domains, __ATOMIC_RELAXED);
  held = sys;
}

/* Ends mi_sys_hold: the reads refresh again. */
void mi_sys_release(mi_system *sys) {
  if (held == sys) held = NULL;
}

/* The thread of mi_system_publish_every. */
struct mi_publisher {
  pthread_t t;
  mi_system *sys;
  int ms, stop;
  pthread_mutex_t mu;
  pthread_cond_t cv;
};

/* Refreshes every p->ms until told to stop. */
static void *publisher(void *arg) {
  struct mi_publisher *p = arg;
  pthread_mutex_lock(&p->mu);
  while (!p->stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)p->ms % 1000 * 1000000;
    ts.tv_sec += p->ms / 1000 + ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    if (p->stop) break;
    pthread_mutex_unlock(&p->mu);
    mi_sys_refresh(p->sys);   /* a try: if the program is writing, its publish will do */
    pthread_mutex_lock(&p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

int mi_system_publish_every(mi_system *sys, int ms) {
  if (!sys) return -1;
  if (sys->pub) {
    struct mi_publisher *p = sys->pub;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->t, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
    sys->pub = NULL;
  }
  if (ms <= 0) return 0;
  if (sys->attached || !sys->refresh) return -1;
  struct mi_publisher *p = calloc(1, sizeof *p);
  if (!p) return -1;
  p->sys = sys; p->ms = ms;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  if (pthread_create(&p->t, NULL, publisher, p) != 0) { free(p); return -1; }
  sys->pub = p;
  return 0;
}

/* ---- the arena of counter cells ---- */

/* Hands out a region of words from the arena (first fit); its word offset from the writer
 * block, or 0 if the arena is full (or, for a shared store, the disk has no room for it). */
static int64_t arena_alloc(mi_system *sys, int64_t words) {
  mi_seg *g = sys->seg;
  for (int i = 0; i < g->nfree; i++) {
    if (g->freel[i].len < words) continue;
    int64_t off = g->freel[i].off;
    g->freel[i].off += words;
    g->freel[i].len -= words;
    if (!g->freel[i].len) {
      memmove(&g->freel[i], &g->freel[i + 1], sizeof g->freel[0] * (size_t)(g->nfree - i - 1));
      g->nfree--;
    }
    return g->arena_base + off;
  }
  if (g->arena_top + words > g->arena_words) return 0;
  if (mi_seg_reserve(sys, g->arena_base + g->arena_top + words) != 0) return 0;
  int64_t off = g->arena_top;
  g->arena_top += words;
  return g->arena_base + off;
}

/* Gives a region back (coalesced with its neighbours; the top of the arena shrinks). */
static void arena_free(mi_seg *g, int64_t at, int64_t words) {
  int64_t off = at - g->arena_base;
  int i = 0;
  while (i < g->nfree && g->freel[i].off < off) i++;
  if (i > 0 && g->freel[i - 1].off + g->freel[i - 1].len == off) {
    g->freel[i - 1].len += words;
    if (i < g->nfree && g->freel[i - 1].off + g->freel[i - 1].len == g->freel[i].off) {
      g->freel[i - 1].len += g->freel[i].len;
      memmove(&g->freel[i], &g->freel[i + 1], sizeof g->freel[0] * (size_t)(g->nfree - i - 1));
      g->nfree--;
    }
    i--;
  } else if (i < g->nfree && off + words == g->freel[i].off) {
    g->freel[i].off = off;
    g->freel[i].len += words;
  } else {
    if (g->nfree == MI_ARENA_FREE) return;   /* list full: the region is lost until the store idles */
    memmove(&g->freel[i + 1], &g->freel[i], sizeof g->freel[0] * (size_t)(g->nfree - i));
    g->freel[i].off = off;
    g->freel[i].len = words;
    g->nfree++;
  }
  if (g->freel[i].off + g->freel[i].len == g->arena_top) {   /* the last region: back to the top */
    g->arena_top = g->freel[i].off;
    g->nfree--;
  }
}

/* Zeroes n cells word by word (readers may be loading them). */
static void cells_zero(int64_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) MI_ST(p[i], 0);
}

/* ---- cells ---- */

/* The rows of lane ln whose cells are kept: the process slots below proc_hi, the I/O rows up
 * to the highest LDEV configured (a row is zeroed whole when its device is configured:
 * mi_host_set_device), every row of the other lanes. */
static int32_t kept_rows(const mi_seg *g, const mi_host_lane *ln) {
  if (ln == &g->blk.lane[MI_DOM_PROCESS]) return g->proc_hi < ln->nent ? g->proc_hi : ln->nent;
  if (ln != &g->blk.lane[MI_DOM_IO]) return ln->nent;
  int32_t l = MI_MAX_LDEV + 1;
  uint64_t w;
  while (l >= 8) {   /* eight LDEVs at a time: a machine of a few dozen devices in a table of 999 */
    memcpy(&w, g->devtype + l - 8, sizeof w);
    if (w) break;
    l -= 8;
  }
  while (l > 0 && !g->devtype[l - 1]) l--;
  return l < ln->nent ? l : ln->nent;
}

/* Gives a domain's rows room for `need` words each in a new region, keeping the `used` words
 * of each row; 0 or -1. The new rows take half again what is needed (when the arena has it),
 * so an ON of n counters regrows the rows O(log n) times, not n times; the room past `used`
 * stays zero for the counters enabled next. Each row is copied and its rest zeroed in one pass.
 * Of the process rows only the slots below proc_hi are: a slot's row is zeroed whole when a
 * process takes it (proc_create), so the rows above hold nothing anyone reads (2,700 rows for a
 * machine of a few hundred processes: an ON of process counters spent most of its time here).
 * The same for the I/O rows above the highest configured LDEV (kept_rows): 999 rows for the
 * simulator's few dozen devices. */
static int grow(mi_system *sys, mi_host_lane *ln, int32_t used, int32_t need) {
  mi_seg *g = sys->seg;
  int32_t new_stride = need > INT32_MAX / 2 ? need : need + need / 2 + 4;
  int64_t at = arena_alloc(sys, (int64_t)ln->nent * new_stride);
  if (!at) at = arena_alloc(sys, (int64_t)ln->nent * (new_stride = need));
  if (!at) return -1;
  int64_t *cells = (int64_t *)(void *)&g->blk + at, *old = MI_CELLS(g, ln);
  int32_t rows = kept_rows(g, ln), keep = old ? used : 0;
  for (int e = 0; e < rows; e++) {
    int64_t *row = cells + (size_t)e * new_stride;
    for (int k = 0; k < keep; k++) MI_ST(row[k], MI_LD(old[(size_t)e * ln->stride + k]));
    cells_zero(row + keep, (size_t)(new_stride - keep));
  }
  int64_t old_at = ln->cells, old_words = (int64_t)ln->nent * ln->stride;
  MI_ST(ln->cells, at);
  MI_ST(ln->stride, new_stride);
  if (old_at) arena_free(g, old_at, old_words);
  return 0;
}

int mi_store_reserve(mi_system *sys, int domain, int64_t words) {
  mi_seg *g = sys->seg;
  mi_store *st = &g->dom[domain];
  mi_host_lane *ln = &g->blk.lane[domain];
  if (words <= 0 || st->used + words <= ln->stride) return 0;
  if (st->used + words > INT32_MAX / 2 || g->cells_used + words * ln->nent > g->max_cells) return -1;
  MI_ST(g->h.gen, g->h.gen + 1);
  return grow(sys, ln, st->used, (int32_t)(st->used + words));
}

int mi_store_enable(mi_system *sys, int domain, int index) {
  mi_seg *g = sys->seg;
  mi_store *st = &g->dom[domain];
  mi_host_lane *ln = &g->blk.lane[domain];
  if (st->refs[index]++ > 0) return 0;
  MI_ST(g->h.gen, g->h.gen + 1);
  if (st->slot[index] < 0) {
    int words = mi_counter_words(sys, domain, index, g->mapping < 0 ? 0 : g->mapping);
    int64_t extra = (int64_t)words * ln->nent;
    if (g->cells_used + extra > g->max_cells || (st->used + words > ln->stride && grow(sys, ln, st->used, st->used + words) < 0)) {
      st->refs[index]--;
      return MI_E_TOO_MANY_COUNTERS;
    }
    g->cells_used += extra;
    st->slot[index] = st->used;
    st->used += words;
  } else {
    /* a parked slot restarts from zero; one outside its rows (an attached store's file that
     * says so: untrusted) turns nothing on. Only the kept rows are zeroed, as in grow: a
     * process taking a slot above, or a device configured above, zeroes its whole row */
    int words = mi_counter_words(sys, domain, index, g->mapping);
    int64_t *cells = MI_CELLS(g, ln);
    if (!cells || words <= 0 || (int64_t)st->slot[index] + words > ln->stride) {
      st->refs[index]--;
      return MI_E_STORE_TRUNCATED;
    }
    int32_t rows = kept_rows(g, ln);
    for (int e = 0; e < rows; e++) cells_zero(cells + (size_t)e * ln->stride + st->slot[index], (size_t)words);
  }
  MI_ST(MI_OFF(sys, domain, index), st->slot[index]);
  st->active++;
  return 0;
}

void mi_store_disable(mi_system *sys, int domain, int index) {
  mi_seg *g = sys->seg;
  mi_store *st = &g->dom[domain];
  if (st->refs[index] == 0) return;
  if (--st->refs[index] == 0) {
    MI_ST(g->h.gen, g->h.gen + 1);
    MI_ST(MI_OFF(sys, domain, index), -1);
    st->active--;
  }
}

/* Frees the rows of idle domains and forgets the mapping once nobody has anything on. */
void mi_store_reset_if_idle(mi_system *sys) {
  mi_seg *g = sys->seg;
  int any = 0;
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    mi_store *st = &g->dom[d];
    mi_host_lane *ln = &g->blk.lane[d];
    if (st->active) { any = 1; continue; }
    if (ln->cells) {
      g->cells_used -= (int64_t)st->used * ln->nent;
      int64_t at = ln->cells, words = (int64_t)ln->stride * ln->nent;
      MI_ST(ln->cells, 0);
      MI_ST(ln->stride, 0);
      st->used = 0;
      arena_free(g, at, words);
      for (int i = 0; i < MI_HOST_INDEX_LIMIT; i++) st->slot[i] = -1;   /* user-defined counters too */
    }
  }
  if (!any) {
    for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
      const mi_urec *u = &g->users[i];
      if (u->used && (u->glob_on || u->proc_on || u->io_on)) return;
    }
    MI_ST(g->mapping, -1);
    MI_ST(g->h.gen, g->h.gen + 1);
    g->arena_top = 0;   /* nothing lives in the arena: start it afresh */
    g->nfree = 0;
  }
}

/* ---- writer API ---- */

mi_ctr mi_host_counter(int32_t item) {
  const mi_item_info *it = mi_item_lookup(item);
  mi_ctr c = {-1};
  if (it && it->index >= 0) c.id = it->domain << MI_HOST_INDEX_BITS | it->index;
  return c;
}

mi_ctr mi_host_counter_named(const char *name, int domain) {
  const mi_item_info *it = mi_item_find(name, domain);
  mi_ctr c = {-1};
  if (it && it->index >= 0) c.id = it->domain << MI_HOST_INDEX_BITS | it->index;
  return c;
}

int mi_host_active(const mi_system *sys, mi_ctr c) {
  return sys && (uint32_t)c.id < (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS && MI_LD(sys->seg->blk.off[c.id]) >= 0;
}

/* The inline writer's rule on the store's own block: its live flags, row marks and epoch sit at
 * fixed offsets from the one base, where the view would cost this call three more loads. */
void mi_host_add_call(mi_system *sys, mi_ctr c, int e, int64_t delta) {
  if (MI_UNLIKELY(!sys)) return;
  mi_host_block *b = (mi_host_block *)(void *)sys->view.lane;
  int64_t *p = mi_host_cell_in_(b->lane, b->live, b->mod, &b->epoch, c, e, MI_CELL_WRITE);
  if (p) MI_CELL_PUT(p, *p + delta);
}

void mi_host_wr_resolve(mi_host_wr *w) {
  if (!w) return;
  w->nent = 0;
  w->cell0 = NULL;
  w->live = NULL;
  mi_system *sys = w->sys;
  if (!sys || sys->attached || (uint32_t)w->c.id >= (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS) { w->gen = NULL; return; }
  mi_seg *g = sys->seg;
  w->gen = &g->h.gen;
  w->at = MI_LD(g->h.gen);   /* first: a change after this is seen at the next add */
  int d = w->c.id >> MI_HOST_INDEX_BITS;
  const mi_host_lane *ln = &g->blk.lane[d];
  int32_t o = MI_LD(g->blk.off[w->c.id]);
  int64_t cells = MI_LD(ln->cells);
  if (o < 0 || !cells) return;
  w->cell0 = (int64_t *)(void *)&g->blk + cells + o;
  w->stride = MI_LD(ln->stride);
  if (d == MI_DOM_PROCESS) { w->live = sys->view.live; w->mod = sys->view.mod; w->epoch = sys->view.epoch; }
  w->nent = MI_LD(ln->nent);
}

/* The cell of counter c for entity e when c is a counter of this kind, else NULL (the kind
 * table is indexed only once mi_host_cell_ has range-checked c). */
static inline int64_t *cell_of_kind(const mi_system *sys, mi_ctr c, int e, int live_only, int kind) {
  mi_host_view rv;   /* a read-only system's view counts nothing (no writer writes): a read reads the store */
  const mi_system *vs = sys;
  if (sys && sys->readonly && live_only == MI_CELL_READ) { mi_view_set(&rv, &sys->seg->blk); vs = (const mi_system *)(const void *)&rv; }
  int64_t *p = mi_host_cell_(vs, c, e, live_only);
  return p && sys->ckind[c.id] == kind ? p : NULL;
}

void mi_host_add_objcl(mi_system *sys, mi_ctr c, int e, int cls, int64_t delta) {
  int64_t *p = cell_of_kind(sys, c, e, 1, MI_KIND_OBJCL);
  int m = p ? MI_LD(sys->seg->mapping) : -1;
  if (p && (unsigned)cls < MI_NLARGE && m >= 0 && m <= 2) {
    p += mi_fold_[0][m][cls];
    MI_ST(*p, *p + delta);
  }
}

void mi_host_add_semcl(mi_system *sys, mi_ctr c, int e, int cls, int64_t delta) {
  int64_t *p = cell_of_kind(sys, c, e, 1, MI_KIND_SEMCL);
  if (p && (unsigned)cls < MI_NSEMCL) MI_ST(p[cls], p[cls] + delta);
}

void mi_host_sem_block(mi_system *sys, int domain, int e, int cls, int qlen) {
  if (qlen < 1 || (domain != MI_DOM_GLOBAL && domain != MI_DOM_PROCESS)) return;
  int b = qlen <= 3 ? 0 : qlen <= 6 ? 1 : 2;
  mi_host_add_semcl(sys, mi_host_counter(domain == MI_DOM_PROCESS ? 25261 + b : 21088 + b), e, cls, 1);
}

/* set and max mark a process row only when its value moves, so a source that sets every
 * counter on each refresh (the host) leaves unchanged rows unchanged for CHANGED reads. */
void mi_host_set(mi_system *sys, mi_ctr c, int e, int64_t value) {
  int64_t *p = cell_of_kind(sys, c, e, MI_CELL_CHECK, MI_KIND_SIMPLE);
  if (p && *p != value) { MI_ST(*p, value); if (c.id >> MI_HOST_INDEX_BITS == MI_DOM_PROCESS) mi_blk_mark(&sys->seg->blk, e); }
}

void mi_host_max(mi_system *sys, mi_ctr c, int e, int64_t value) {
  int64_t *p = cell_of_kind(sys, c, e, MI_CELL_CHECK, MI_KIND_SIMPLE);
  if (p && value > *p) { MI_ST(*p, value); if (c.id >> MI_HOST_INDEX_BITS == MI_DOM_PROCESS) mi_blk_mark(&sys->seg->blk, e); }
}

int64_t mi_host_value(const mi_system *sys, mi_ctr c, int e) {
  /* an LDEV not configured has no counters (its row may be above the kept ones: kept_rows) */
  if (c.id >> MI_HOST_INDEX_BITS == MI_DOM_IO && !mi_host_device(sys, e)) return 0;
  const int64_t *p = cell_of_kind(sys, c, e, 0, MI_KIND_SIMPLE);   /* a dead process still reads */
  return p ? MI_LD(*p) : 0;
}

/* ---- hardware and time ---- */

int mi_host_set_cpus(mi_system *sys, int n) {
  if (!sys || sys->attached || n < 1 || n > MI_MAX_PROCESSORS) return -1;
  MI_ST(sys->seg->ncpu, n);
  return 0;
}

int mi_host_cpus(const mi_system *sys) { return sys ? MI_LD(sys->seg->ncpu) : 0; }

int mi_host_set_cpus_all(mi_system *sys, int n) {
  if (!sys || sys->attached || n < 0 || n > MI_MAX_CPUS_ALL) return -1;
  MI_ST(sys->seg->ncpu_all, n);
  return 0;
}

int mi_host_cpus_all(const mi_system *sys) {
  if (!sys) return 0;
  int32_t n = MI_LD(sys->seg->ncpu), all = MI_LD(sys->seg->ncpu_all);
  return all > n ? all : n;
}

int mi_host_set_device(mi_system *sys, int ldev, int type) {
  if (!sys || sys->attached || ldev < 1 || ldev > MI_MAX_LDEV || type < 0 || type > mi_ndevtypes_) return -1;
  mi_wlock(sys);
  mi_seg *g = sys->seg;
  if (g->devtype[ldev] != type) {
    /* a device that goes (or becomes another) leaves every user's set; its counters restart,
     * and a device configured starts from zero (its row may be above the kept ones) */
    if (g->devtype[ldev]) mi_io_forget_ldev(sys, ldev);
    mi_host_lane *ln = &g->blk.lane[MI_DOM_IO];
    int64_t *cells = MI_CELLS(g, ln);
    if (cells) cells_zero(cells + (size_t)ldev * ln->stride, (size_t)ln->stride);
    MI_ST(g->devtype[ldev], (uint8_t)type);
  }
  mi_wunlock(sys);
  return 0;
}

int mi_host_device(const mi_system *sys, int ldev) {
  return sys && ldev >= 1 && ldev <= MI_MAX_LDEV ? MI_LD(sys->seg->devtype[ldev]) : 0;
}

void mi_host_advance(mi_system *sys, int64_t ticks) {
  if (sys && !sys->attached && ticks > 0) MI_ST(sys->seg->now, sys->seg->now + ticks);
}

int64_t mi_host_now(const mi_system *sys) { return sys ? MI_LD(sys->seg->now) : 0; }

void mi_host_set_now(mi_system *sys, int64_t ticks) {
  if (sys && !sys->attached && ticks > sys->seg->now) MI_ST(sys->seg->now, ticks);
}

int32_t mi_host_ticks_per_ms(const mi_system *sys) { return sys ? MI_LD(sys->seg->cfg[3043 - 3001]) : 0; }

/* ---- processes ---- */

static uint32_t hash_pid(int64_t pid) {
  uint64_t x = (uint64_t)pid * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 51) & (MI_PID_HASH - 1);
}

/* The pid hash: open addressing with linear probing over slot + 1 (0 = empty). It holds at
 * most MI_MAX_PROCESSES of its MI_PID_HASH entries, so a probe always meets an empty entry. */
int mi_host_proc_slot(const mi_system *sys, int64_t pid) {
  if (!sys) return -1;
  const mi_seg *g = sys->seg;
  for (uint32_t h = hash_pid(pid), n = 0; n < MI_PID_HASH; h = (h + 1) & (MI_PID_HASH - 1), n++) {
    int32_t v = MI_LD(g->pid_hash[h]);
    if (v == 0) return -1;
    if (v > 0 && v <= MI_MAX_PROCESSES && MI_LD(g->procs[v - 1].pid) == pid) return v - 1;
  }
  return -1;
}

/* Removes pid from the hash by backward-shift deletion: each later entry of the probe run
 * whose home is not cyclically in (hole, entry] moves into the hole, so no tombstones are
 * left and a lookup costs the same after any number of deaths. Runs in a write section: a
 * reader that looks a pid up meanwhile retries on the changed seq. */
static void unhash(mi_seg *g, int64_t pid) {
  const uint32_t mask = MI_PID_HASH - 1;
  uint32_t i = hash_pid(pid), n = 0;
  for (;; i = (i + 1) & mask, n++) {
    if (n == MI_PID_HASH || g->pid_hash[i] == 0) return;
    if (g->procs[g->pid_hash[i] - 1].pid == pid) break;
  }
  for (uint32_t j = (i + 1) & mask;; j = (j + 1) & mask) {
    int32_t v = g->pid_hash[j];
    if (v == 0) break;
    uint32_t home = hash_pid(g->procs[v - 1].pid);
    /* v stays if its home lies cyclically in (i, j]: the hole at i is not on its probe path */
    if (((j - home) & mask) < ((j - i) & mask)) continue;
    MI_ST(g->pid_hash[i], v);
    i = j;
  }
  MI_ST(g->pid_hash[i], 0);
}

/* Stores a blank-padded 48-byte name (three 16-character fields) word by word. */
static void put_name(uint64_t dst[6], const char *a, const char *b, const char *c) {
  char img[48];
  pad16(img, a); pad16(img + 16, b); pad16(img + 32, c);
  for (int k = 0; k < 6; k++) { uint64_t w; memcpy(&w, img + 8 * k, 8); MI_ST(dst[k], w); }
}

/* Creates a process (in a write section). */
static int proc_create(mi_system *sys, const mi_proc_desc *d) {
  mi_seg *g = sys->seg;
  if (mi_host_proc_slot(sys, d->pid) >= 0) return -1;
  int slot = -1;
  for (int i = g->free_lo; i < g->max_processes; i++)   /* the lowest free slot */
    if (g->procs[i].state == MI_PS_FREE) { slot = i; break; }
  MI_ST(g->free_lo, slot < 0 ? g->max_processes : slot + 1);
  if (slot < 0) {
    for (int i = 0; i < MI_MAX_USERS_LIMIT; i++)
      if (g->users[i].used && (g->users[i].proc_all || g->users[i].nsel)) MI_ST(g->users[i].untracked, g->users[i].untracked + 1);
    return -1;
  }
  uint32_t h = hash_pid(d->pid);
  while (g->pid_hash[h] != 0) h = (h + 1) & (MI_PID_HASH - 1);
  mi_proc *p = &g->procs[slot];
  MI_ST(p->pid, d->pid);
  MI_ST(p->end_ticks, 0);
  MI_ST(p->start_ticks, d->start_ticks > 0 ? d->start_ticks : g->now);
  put_name(p->user, d->user, d->user_group, d->account);
  put_name(p->program, d->program, d->program_group, d->program_account);
  MI_ST(p->js, d->js_type == 1 || d->js_type == 2 ? (uint32_t)(uint16_t)((d->js_type << 14) | (d->js_num & 0x3FFF)) : 0u);
  MI_ST(p->ptype, d->proc_type);
  p->unreported = 0;
  MI_ST(g->births, g->births + 1);
  MI_ST(p->born, g->births);
  mi_host_lane *ln = &g->blk.lane[MI_DOM_PROCESS];
  int64_t *cells = MI_CELLS(g, ln);
  if (cells) cells_zero(cells + (size_t)slot * ln->stride, (size_t)ln->stride);
  MI_ST(p->state, MI_PS_ALIVE);
  MI_ST(g->blk.live[slot], 1);
  mi_blk_mark(&g->blk, slot);
  MI_ST(g->pid_hash[h], slot + 1);
  if (slot >= g->proc_hi) MI_ST(g->proc_hi, slot + 1);
  MI_ST(g->nproc_alive, g->nproc_alive + 1);
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++)
    if (g->users[i].used && (g->users[i].proc_all || (g->users[i].nsel && mi_sel_birth(&g->users[i], p))))
      mi_abit_set(g->users[i].mon, slot);
  return slot;
}

int mi_host_proc_create(mi_system *sys, const mi_proc_desc *d) {
  if (!sys || sys->attached || !d || d->pid <= 0) return -1;
  mi_wlock(sys);
  int slot = proc_create(sys, d);
  mi_wunlock(sys);
  return slot;
}

int mi_host_proc_identity(mi_system *sys, int slot, const char *program, const char *group, const char *account, int proc_type) {
  if (!sys || sys->attached || !program || (unsigned)slot >= (unsigned)MI_MAX_PROCESSES) return -1;
  mi_wlock(sys);
  mi_seg *g = sys->seg;
  int ok = slot < g->max_processes && g->procs[slot].state == MI_PS_ALIVE;
  if (ok) {
    mi_proc *p = &g->procs[slot];
    put_name(p->program, program, group, account);
    if (proc_type >= 0) MI_ST(p->ptype, proc_type);
    mi_blk_mark(&g->blk, slot);
  }
  mi_wunlock(sys);
  return ok ? 0 : -1;
}

/* Frees a dead slot once nobody has to be told about it. */
static void maybe_free(mi_seg *g, int slot) {
  mi_proc *p = &g->procs[slot];
  if (p->state != MI_PS_DEAD || p->unreported) return;
  unhash(g, p->pid);
  MI_ST(p->state, MI_PS_FREE);
  if (slot < g->free_lo) MI_ST(g->free_lo, slot);
  int hi = g->proc_hi;
  while (hi > 0 && g->procs[hi - 1].state == MI_PS_FREE) hi--;
  MI_ST(g->proc_hi, hi);
}

int mi_host_proc_exit(mi_system *sys, int slot) {
  if (!sys || sys->attached || slot < 0 || slot >= MI_MAX_PROCESSES) return -1;
  mi_wlock(sys);
  mi_seg *g = sys->seg;
  mi_proc *p = &g->procs[slot];
  if (p->state != MI_PS_ALIVE) { mi_wunlock(sys); return -1; }
  MI_ST(p->state, MI_PS_DEAD);
  MI_ST(g->blk.live[slot], 0);
  MI_ST(p->end_ticks, g->now);
  mi_blk_mark(&g->blk, slot);
  MI_ST(g->nproc_alive, g->nproc_alive - 1);
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
    mi_urec *u = &g->users[i];
    if (u->used && mi_bit(u->mon, slot)) { mi_abit_set(u->dead, slot); p->unreported++; }
  }
  maybe_free(g, slot);
  mi_wunlock(sys);
  return 0;
}

/* A user was told of a death (or stopped monitoring the process); in a write section. */
void mi_proc_release_user(mi_system *sys, mi_session *s, int slot) {
  mi_seg *g = sys->seg;
  mi_abit_clr(s->u->mon, slot);
  if (mi_bit(s->u->dead, slot)) {
    mi_abit_clr(s->u->dead, slot);
    if (g->procs[slot].unreported) g->procs[slot].unreported--;
    maybe_free(g, slot);
  }
}

int mi_host_proc_count(const mi_system *sys) { return sys ? MI_LD(sys->seg->nproc_alive) : 0; }

int mi_host_js_live(const mi_system *sys, int js_type, int js_num) {
  uint32_t w = (uint16_t)((js_type << 14) | (js_num & 0x3FFF));
  const mi_seg *g = sys ? sys->seg : NULL;
  for (int i = 0, hi = g ? MI_LD(g->proc_hi) : 0; i < hi && i < MI_MAX_PROCESSES; i++)
    if (MI_LD(g->procs[i].state) == MI_PS_ALIVE && MI_LD(g->procs[i].js) == w) return 1;
  return 0;
}

/* ---- sources: attaching one, and the facts of the core a source may read (mi_source.h) ---- */

int mi_source_attach(mi_system *sys, const mi_source_ops *ops, void *state) {
  if (!sys || !ops) return -1;
  if (sys->attached) return -1;
  mi_system_set_source(sys, ops->refresh, state, ops->close);
  sys->source_ops = ops;
  mi_wlock(sys);   /* readers attached to a shared store learn what their owner measures */
  snprintf(sys->seg->source, sizeof sys->seg->source, "%s", ops->name ? ops->name : "");
  mi_wunlock(sys);
  return 0;
}

const mi_source_ops *mi_system_source_ops(const mi_system *sys) { return sys ? sys->source_ops : NULL; }

const char *mi_system_source_name(const mi_system *sys) {
  if (sys && sys->attached) return "attached";
  return sys && sys->source_ops ? sys->source_ops->name : "custom";
}

const char *mi_system_owner_source(const mi_system *sys) {
  if (!sys) return "custom";
  if (!sys->attached) return mi_system_source_name(sys);
  static _Thread_local char name[32];   /* a copy: the owner may change its source while we read */
  memcpy(name, sys->seg->source, sizeof name);
  name[sizeof name - 1] = 0;
  return name[0] ? name : "custom";
}

int mi_host_proc_hi(const mi_system *sys) { return sys ? MI_LD(sys->seg->proc_hi) : 0; }

int mi_host_proc_alive(const mi_system *sys, int slot) {
  return sys && slot >= 0 && slot < MI_MAX_PROCESSES && MI_LD(sys->seg->procs[slot].state) == MI_PS_ALIVE;
}

int64_t mi_host_proc_pid(const mi_system *sys, int slot) {
  if (!sys || slot < 0 || slot >= MI_MAX_PROCESSES || MI_LD(sys->seg->procs[slot].state) == MI_PS_FREE) return 0;
  return MI_LD(sys->seg->procs[slot].pid);
}

int mi_host_wants(const mi_system *sys, int domain) {
  if (sys && domain == -1) return __atomic_load_n(&sys->want_dom, __ATOMIC_RELAXED) ? 2 : 0;
  if (!sys || domain < 0 || domain >= MI_DOM_COUNT) return 0;
  if (__atomic_load_n(&sys->want_dom, __ATOMIC_RELAXED) >> domain & 1) return 2;
  if (sys->shared) return 1;
  const mi_seg *g = sys->seg;
  /* records from max_users up are never taken: mi_user_take takes the lowest free one, and only
   * while fewer than max_users are used (this store is private: nobody else takes one) */
  int n = g->max_users > 0 && g->max_users < MI_MAX_USERS_LIMIT ? g->max_users : MI_MAX_USERS_LIMIT;
  for (int i = 0; i < n; i++) {
    const mi_urec *u = &g->users[i];
    if (!MI_LD(u->used)) continue;
    if (domain == MI_DOM_PROCESS ? MI_LD(u->proc_on) : domain == MI_DOM_IO ? MI_LD(u->io_on) : MI_LD(u->glob_on)) return 1;
  }
  return 0;
}

int mi_host_reading(const mi_system *sys) { return sys ? __atomic_load_n(&sys->read_dom, __ATOMIC_RELAXED) : 0; }

uint64_t mi_host_layout_gen(const mi_system *sys) { return sys ? MI_LD(sys->seg->h.gen) : 0; }

int mi_host_mapping(const mi_system *sys) { return sys ? MI_LD(sys->seg->mapping) : -1; }

int mi_host_objcl_word(const mi_system *sys, int cls) {
  int m = mi_host_mapping(sys);
  return m >= 0 && m <= 2 && (unsigned)cls < MI_NLARGE ? mi_fold_[0][m][cls] : -1;
}

int32_t mi_host_word(const mi_system *sys, mi_ctr c) {
  if (!sys || (uint32_t)c.id >= (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS) return -1;
  const mi_host_block *b = &sys->seg->blk;
  return MI_LD(b->lane[c.id >> MI_HOST_INDEX_BITS].cells) ? MI_LD(b->off[c.id]) : -1;
}

int mi_host_domains(const mi_system *sys) {
  int m = 0;
  for (int d = 0; sys && d < MI_DOM_COUNT; d++) m |= (MI_LD(sys->seg->blk.lane[d].cells) != 0) << d;
  return m;
}

int mi_host_rebase(mi_system *sys, int64_t ticks) {
  if (!sys || sys->attached || MI_LD(sys->seg->proc_hi) > 0 || ticks < 0) return -1;
  MI_ST(sys->seg->now, ticks);
  return 0;
}
