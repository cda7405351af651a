/* store.c — the counter store and the writer API: systems, processors, devices,
 * processes and the 64-bit counter cells that only enabled counters occupy. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"

static const mi_system_options defaults = {16, 32 * 1024 * 1024, 999, 999, MI_MAX_PROCESSES, NULL, 0};

/* Fills the blank-padded 16-character field dst from a C string (NULL = blanks). */
static void pad16(char dst[16], const char *src) {
  size_t n = src ? strnlen(src, 16) : 0;
  memcpy(dst, src ? src : "", n);
  memset(dst + n, ' ', 16 - n);
}

mi_system *mi_system_new(const mi_system_options *opt) {
  mi_catalog_init();
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
  mi_config_defaults(sys);
  mi_set_round(sys, sys->cfg[3042 - 3001]);
  sys->now = sys->opt.boot_ticks > 0 ? sys->opt.boot_ticks : mi_wall_ticks(sys->cfg[3043 - 3001]);
  sys->ncpu = 1;
  sys->mapping = -1;
  sys->procs = calloc(MI_MAX_PROCESSES, sizeof *sys->procs);
  sys->view.live = calloc(MI_MAX_PROCESSES, 1);
  sys->view.off = malloc(sizeof *sys->view.off * (MI_DOM_COUNT << MI_HOST_INDEX_BITS));
  if (!sys->procs || !sys->view.live || !sys->view.off) { mi_system_free(sys); return NULL; }
  for (int i = 0; i < MI_DOM_COUNT << MI_HOST_INDEX_BITS; i++) sys->view.off[i] = -1;
  static const int nent[MI_DOM_COUNT] = {1, MI_MAX_PROCESSES, MI_MAX_LDEV + 1, MI_MAX_PROCESSORS};
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    mi_store *st = &sys->dom[d];
    int n = mi_domain_counters_[d];
    sys->view.lane[d].nent = nent[d];
    st->slot = malloc(sizeof *st->slot * (size_t)n);
    st->refs = calloc((size_t)n, sizeof *st->refs);
    if (!st->slot || !st->refs) { mi_system_free(sys); return NULL; }
    for (int i = 0; i < n; i++) st->slot[i] = -1;
  }
  mi_registry_load(sys);
  return sys;
}

void mi_system_free(mi_system *sys) {
  if (!sys) return;
  mi_default_forget(sys);
  while (sys->sessions) mi_session_free(sys->sessions);
  if (sys->refresh_fini) sys->refresh_fini(sys->refresh_arg);
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    free(sys->dom[d].slot); free(sys->dom[d].refs); free(sys->view.lane[d].cells);
  }
  free(sys->procs);
  free(sys->view.live);
  free(sys->view.off);
  free(sys->uids);
  free(sys);
}

void mi_system_set_source(mi_system *sys, mi_refresh_fn fn, void *arg, void (*fini)(void *)) {
  if (!sys) return;
  if (sys->refresh_fini && sys->refresh_arg != arg) sys->refresh_fini(sys->refresh_arg);
  sys->refresh = fn; sys->refresh_arg = arg; sys->refresh_fini = fini;
  sys->source_ops = NULL;
}

void *mi_system_source(mi_system *sys) { return sys ? sys->refresh_arg : NULL; }

/* Runs the source's refresh hook (not re-entrantly). */
void mi_sys_refresh(mi_system *sys) {
  if (sys->refresh && !sys->in_refresh) {
    sys->in_refresh = 1;
    sys->refresh(sys, sys->refresh_arg);
    sys->in_refresh = 0;
  }
}

/* ---- cells ---- */

/* Grows a domain's rows to new_stride words, keeping existing values; 0 or -1. */
static int grow(mi_host_lane *st, int32_t new_stride) {
  int64_t *cells = calloc((size_t)st->nent * (size_t)new_stride, sizeof *cells);
  if (!cells) return -1;
  for (int e = 0; st->cells && e < st->nent; e++)
    memcpy(cells + (size_t)e * new_stride, st->cells + (size_t)e * st->stride, sizeof *cells * (size_t)st->stride);
  free(st->cells);
  st->cells = cells;
  st->stride = new_stride;
  return 0;
}

int mi_store_enable(mi_system *sys, int domain, int index) {
  mi_store *st = &sys->dom[domain];
  mi_host_lane *ln = &sys->view.lane[domain];
  if (st->refs[index]++ > 0) return 0;
  sys->gen++;
  if (st->slot[index] < 0) {
    int words = mi_item_words(mi_domain_item(domain, index), sys->mapping < 0 ? 0 : sys->mapping);
    int64_t extra = (int64_t)words * ln->nent;
    if (sys->cells_used + extra > sys->opt.max_cells || grow(ln, ln->stride + words) < 0) {
      st->refs[index]--;
      return MI_E_TOO_MANY_COUNTERS;
    }
    sys->cells_used += extra;
    st->slot[index] = ln->stride - words;
  } else {
    /* a parked slot restarts from zero */
    int words = mi_item_words(mi_domain_item(domain, index), sys->mapping);
    for (int e = 0; e < ln->nent; e++)
      memset(ln->cells + (size_t)e * ln->stride + st->slot[index], 0, sizeof(int64_t) * (size_t)words);
  }
  MI_OFF(sys, domain, index) = st->slot[index];
  st->active++;
  return 0;
}

void mi_store_disable(mi_system *sys, int domain, int index) {
  mi_store *st = &sys->dom[domain];
  if (st->refs[index] == 0) return;
  if (--st->refs[index] == 0) {
    sys->gen++;
    MI_OFF(sys, domain, index) = -1;
    st->active--;
  }
}

/* Frees the rows of idle domains and forgets the mapping once nobody has anything on. */
void mi_store_reset_if_idle(mi_system *sys) {
  int any = 0;
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    mi_store *st = &sys->dom[d];
    mi_host_lane *ln = &sys->view.lane[d];
    if (st->active) { any = 1; continue; }
    if (ln->cells) {
      sys->cells_used -= (int64_t)ln->stride * ln->nent;
      free(ln->cells);
      ln->cells = NULL;
      ln->stride = 0;
      for (int i = 0; i < mi_domain_counters_[d]; i++) st->slot[i] = -1;
    }
  }
  if (!any) {
    for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
      mi_session *s = sys->users[i];
      if (s && (s->glob_on || s->proc_on || s->io_on)) return;
    }
    sys->mapping = -1;
    sys->gen++;
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
  return sys && (uint32_t)c.id < (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS && sys->view.off[c.id] >= 0;
}

void mi_host_add_call(mi_system *sys, mi_ctr c, int e, int64_t delta) { mi_host_add(sys, c, e, delta); }

void mi_host_add_objcl(mi_system *sys, mi_ctr c, int e, int cls, int64_t delta) {
  int64_t *p = mi_host_cell_(sys, c, e, 1);
  if (p && (unsigned)cls < MI_NLARGE) p[mi_fold_[0][sys->mapping][cls]] += delta;
}

void mi_host_add_semcl(mi_system *sys, mi_ctr c, int e, int cls, int64_t delta) {
  int64_t *p = mi_host_cell_(sys, c, e, 1);
  if (p && (unsigned)cls < MI_NSEMCL) p[cls] += delta;
}

void mi_host_sem_block(mi_system *sys, int domain, int e, int cls, int qlen) {
  static mi_ctr bucket[2][3];
  static int resolved;
  if (!resolved) {
    for (int b = 0; b < 3; b++) { bucket[0][b] = mi_host_counter(21088 + b); bucket[1][b] = mi_host_counter(25261 + b); }
    resolved = 1;
  }
  if (qlen < 1) return;
  int b = qlen <= 3 ? 0 : qlen <= 6 ? 1 : 2;
  mi_host_add_semcl(sys, bucket[domain == MI_DOM_PROCESS][b], e, cls, 1);
}

void mi_host_set(mi_system *sys, mi_ctr c, int e, int64_t value) {
  int64_t *p = mi_host_cell_(sys, c, e, 1);
  if (p) *p = value;
}

void mi_host_max(mi_system *sys, mi_ctr c, int e, int64_t value) {
  int64_t *p = mi_host_cell_(sys, c, e, 1);
  if (p && value > *p) *p = value;
}

int64_t mi_host_value(const mi_system *sys, mi_ctr c, int e) {
  const int64_t *p = mi_host_cell_(sys, c, e, 0);   /* a dead process still reads */
  return p ? *p : 0;
}

/* ---- hardware and time ---- */

int mi_host_set_cpus(mi_system *sys, int n) {
  if (!sys || n < 1 || n > MI_MAX_PROCESSORS) return -1;
  sys->ncpu = n;
  return 0;
}

int mi_host_cpus(const mi_system *sys) { return sys ? sys->ncpu : 0; }

int mi_host_set_device(mi_system *sys, int ldev, int type) {
  if (!sys || ldev < 1 || ldev > MI_MAX_LDEV || type < 0 || type > mi_ndevtypes_) return -1;
  sys->devtype[ldev] = (uint8_t)type;
  return 0;
}

int mi_host_device(const mi_system *sys, int ldev) {
  return sys && ldev >= 1 && ldev <= MI_MAX_LDEV ? sys->devtype[ldev] : 0;
}

void mi_host_advance(mi_system *sys, int64_t ticks) {
  if (sys && ticks > 0) sys->now += ticks;
}

int64_t mi_host_now(const mi_system *sys) { return sys ? sys->now : 0; }

void mi_host_set_now(mi_system *sys, int64_t ticks) {
  if (sys && ticks > sys->now) sys->now = ticks;
}

int32_t mi_host_ticks_per_ms(const mi_system *sys) { return sys->cfg[3043 - 3001]; }

/* ---- processes ---- */

static uint32_t hash_pid(int64_t pid) {
  uint64_t x = (uint64_t)pid * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(x >> 51) & (MI_PID_HASH - 1);
}

int mi_host_proc_slot(const mi_system *sys, int64_t pid) {
  if (!sys) return -1;
  for (uint32_t h = hash_pid(pid), n = 0; n < MI_PID_HASH; h = (h + 1) & (MI_PID_HASH - 1), n++) {
    int32_t v = sys->pid_hash[h];
    if (v == 0) return -1;
    if (v > 0 && sys->procs[v - 1].pid == pid) return v - 1;
  }
  return -1;
}

/* Removes pid from the hash. */
static void unhash(mi_system *sys, int64_t pid) {
  for (uint32_t h = hash_pid(pid), n = 0; n < MI_PID_HASH; h = (h + 1) & (MI_PID_HASH - 1), n++) {
    int32_t v = sys->pid_hash[h];
    if (v == 0) return;
    if (v > 0 && sys->procs[v - 1].pid == pid) { sys->pid_hash[h] = -1; return; }
  }
}

int mi_host_proc_create(mi_system *sys, const mi_proc_desc *d) {
  if (!sys || !d || d->pid <= 0 || mi_host_proc_slot(sys, d->pid) >= 0) return -1;
  int slot = -1;
  for (int i = 0; i < sys->opt.max_processes; i++)
    if (sys->procs[i].state == MI_PS_FREE) { slot = i; break; }
  if (slot < 0) {
    for (int i = 0; i < MI_MAX_USERS_LIMIT; i++)
      if (sys->users[i] && sys->users[i]->proc_all) sys->users[i]->untracked++;
    return -1;
  }
  uint32_t h = hash_pid(d->pid);
  while (sys->pid_hash[h] > 0) h = (h + 1) & (MI_PID_HASH - 1);
  sys->pid_hash[h] = slot + 1;
  mi_proc *p = &sys->procs[slot];
  memset(p, 0, sizeof *p);
  p->pid = d->pid;
  p->state = MI_PS_ALIVE;
  sys->view.live[slot] = 1;
  p->start_ticks = d->start_ticks > 0 ? d->start_ticks : sys->now;
  pad16(p->user.filename, d->user); pad16(p->user.group, d->user_group); pad16(p->user.account, d->account);
  pad16(p->program.filename, d->program); pad16(p->program.group, d->program_group);
  pad16(p->program.account, d->program_account);
  if (d->js_type == 1 || d->js_type == 2)
    p->js.js_word = (uint16_t)((d->js_type << 14) | (d->js_num & 0x3FFF));
  p->ptype = d->proc_type;
  mi_host_lane *ln = &sys->view.lane[MI_DOM_PROCESS];
  if (ln->cells) memset(ln->cells + (size_t)slot * ln->stride, 0, sizeof(int64_t) * (size_t)ln->stride);
  if (slot >= sys->proc_hi) sys->proc_hi = slot + 1;
  sys->nproc_alive++;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++)
    if (sys->users[i] && sys->users[i]->proc_all) mi_bit_set(sys->users[i]->mon, slot);
  return slot;
}

/* Frees a dead slot once nobody has to be told about it. */
static void maybe_free(mi_system *sys, int slot) {
  mi_proc *p = &sys->procs[slot];
  if (p->state != MI_PS_DEAD || p->unreported) return;
  unhash(sys, p->pid);
  p->state = MI_PS_FREE;
  while (sys->proc_hi > 0 && sys->procs[sys->proc_hi - 1].state == MI_PS_FREE) sys->proc_hi--;
}

int mi_host_proc_exit(mi_system *sys, int slot) {
  if (!sys || slot < 0 || slot >= MI_MAX_PROCESSES || sys->procs[slot].state != MI_PS_ALIVE) return -1;
  mi_proc *p = &sys->procs[slot];
  p->state = MI_PS_DEAD;
  sys->view.live[slot] = 0;
  p->end_ticks = sys->now;
  sys->nproc_alive--;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
    mi_session *s = sys->users[i];
    if (s && mi_bit(s->mon, slot)) { mi_bit_set(s->dead, slot); p->unreported++; }
  }
  maybe_free(sys, slot);
  return 0;
}

/* A user was told of a death (or stopped monitoring the process). */
void mi_proc_release_user(mi_system *sys, mi_session *s, int slot) {
  mi_bit_clr(s->mon, slot);
  if (mi_bit(s->dead, slot)) {
    mi_bit_clr(s->dead, slot);
    if (sys->procs[slot].unreported) sys->procs[slot].unreported--;
    maybe_free(sys, slot);
  }
}

int mi_host_proc_count(const mi_system *sys) { return sys ? sys->nproc_alive : 0; }

int mi_host_js_live(const mi_system *sys, int js_type, int js_num) {
  uint16_t w = (uint16_t)((js_type << 14) | (js_num & 0x3FFF));
  for (int i = 0; sys && i < sys->proc_hi; i++)
    if (sys->procs[i].state == MI_PS_ALIVE && sys->procs[i].js.js_word == w) return 1;
  return 0;
}
