/* udef.c — user-defined counters (mi_userdef.h): the table in the segment, installing a
 * counter (a write section that bumps the layout generation), each process's catalog view
 * of the table, and the level writers of BUSY/QUEUE/QBUSY counters. */
#include <ctype.h>
#include <sched.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "mi_internal.h"

static const char *const kind_names[] = {"?", "accum", "faccum", "busy", "queue", "qbusy"};

const char *mi_udef_kind_name(int kind) { return kind >= 1 && kind <= MI_UDEF_QBUSY ? kind_names[kind] : "?"; }

int mi_udef_kind_find(const char *name) {
  for (int k = 1; name && k <= MI_UDEF_QBUSY; k++)
    if (strcasecmp(kind_names[k], name) == 0) return k;
  return 0;
}

/* Cells per row a counter of this kind and element count takes. */
static int words_of(int kind, int elements) {
  switch (kind) {
  case MI_UDEF_ACCUM: return elements;
  case MI_UDEF_FACCUM: return 1;
  case MI_UDEF_QBUSY: return 4;   /* busy, queue, level, since */
  default: return 3;              /* accumulated, level, since */
  }
}

int mi_udef_rec_ok(const mi_udef_rec *r, int k) {
  return r->item == MI_UDEF_FIRST + k && r->domain < MI_DOM_COUNT && r->kind >= MI_UDEF_ACCUM && r->kind <= MI_UDEF_QBUSY &&
         r->index >= 0 && r->index < MI_HOST_INDEX_LIMIT && r->elements >= 1 && r->elements <= MI_UDEF_MAX_ELEMENTS &&
         (r->elements == 1 || r->kind == MI_UDEF_ACCUM) && r->words == words_of(r->kind, r->elements) &&
         memchr(r->name, 0, sizeof r->name) && r->name[0] && memchr(r->unit, 0, sizeof r->unit) && memchr(r->help, 0, sizeof r->help);
}

/* Fills the catalog entry of table entry k from the segment (entries never change once published). */
static void build(mi_system *sys, int k) {
  const mi_udef_rec *r = &sys->seg->udef[k];
  mi_udef_info *u = &sys->udef_info[k];
  memset(u, 0, sizeof *u);
  u->item.item = r->item;
  u->item.name = r->name;
  u->item.domain = r->domain;
  u->item.kind = MI_KIND_SIMPLE;
  u->item.instrumented = MI_INST_YES;
  u->item.source = MI_SRC_INFERRED;
  u->item.index = r->index;
  int time = r->kind == MI_UDEF_BUSY || r->kind == MI_UDEF_QUEUE || r->kind == MI_UDEF_QBUSY;
  u->item.unit = time ? MI_UNIT_MI_TIME : MI_UNIT_COUNT;
  u->item.type = r->kind == MI_UDEF_FACCUM ? MI_TYPE_I64
               : r->kind == MI_UDEF_QBUSY || r->elements > 1 ? MI_TYPE_I32A : MI_TYPE_I32;
  u->kind = r->kind;
  u->elements = r->elements;
  u->unit = r->unit;
  u->help = r->help;
  u->item.description = r->help[0] ? r->help : r->name;   /* what help() and the exporter's HELP show */
  u->owner_pid = r->owner_pid;
  u->handle.c.id = r->domain << MI_HOST_INDEX_BITS | r->index;
  u->handle.item = r->item;
  u->handle.kind = r->kind;
  u->handle.elements = r->elements;
  /* the kind table of the writers: a single ACCUM/FACCUM cell is a simple counter */
  if ((r->kind == MI_UDEF_ACCUM && r->elements == 1) || r->kind == MI_UDEF_FACCUM)
    sys->ckind[u->handle.c.id] = MI_KIND_SIMPLE;
}

void mi_udef_sync(mi_system *sys) {
  int n = __atomic_load_n(&sys->seg->udef_n, __ATOMIC_ACQUIRE);
  if (n > MI_UDEF_MAX) n = MI_UDEF_MAX;
  if (__atomic_load_n(&sys->udef_seen, __ATOMIC_ACQUIRE) >= n) return;
  while (__atomic_exchange_n(&sys->udef_busy, 1, __ATOMIC_ACQUIRE)) sched_yield();
  /* an entry a store file got wrong (a crafted or damaged store) ends the table for this process */
  int k = sys->udef_seen;
  for (; k < n && mi_udef_rec_ok(&sys->seg->udef[k], k); k++) build(sys, k);
  n = k;
  if (n > sys->udef_seen) __atomic_store_n(&sys->udef_seen, n, __ATOMIC_RELEASE);
  __atomic_store_n(&sys->udef_busy, 0, __ATOMIC_RELEASE);
}

int mi_counter_words(mi_system *sys, int d, int i, int mapping) {
  if (i < mi_domain_counters_[d]) return mi_item_words(mi_domain_item(d, i), mapping);
  const mi_seg *g = sys->seg;
  for (int k = 0; k < g->udef_n && k < MI_UDEF_MAX; k++)
    if (g->udef[k].domain == d && g->udef[k].index == i) return g->udef[k].words;
  return 1;
}

/* 0 if name is 1-31 characters [A-Za-z0-9_] starting with a letter; copies it in lower case. */
static int check_name(const char *name, char out[MI_UDEF_NAME]) {
  size_t n = strlen(name);
  if (n == 0 || n >= MI_UDEF_NAME || !isalpha((unsigned char)name[0])) return -1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (!(isalnum(c) || c == '_') || c > 127) return -1;
    out[i] = (char)tolower(c);
  }
  out[n] = 0;
  return 0;
}

int mi_udef_install(mi_system *sys, const mi_udef_desc *d, mi_udef *out) {
  return mi_udef_install_as(sys, d, (int32_t)getpid(), out);
}

int mi_udef_install_as(mi_system *sys, const mi_udef_desc *d, int32_t pid, mi_udef *out) {
  if (!sys || !d || !d->name) return MI_E_BAD_POINTER;
  if (sys->attached) { int rc = mi_owner_check(sys); if (rc) return rc; }
  char name[MI_UDEF_NAME];
  if (check_name(d->name, name)) return MI_E_USERDEF_NAME;
  if (d->kind < MI_UDEF_ACCUM || d->kind > MI_UDEF_QBUSY) return MI_E_USERDEF_KIND;
  int elements = d->elements == 0 ? 1 : d->elements;
  if (elements < 1 || elements > MI_UDEF_MAX_ELEMENTS || (elements > 1 && d->kind != MI_UDEF_ACCUM))
    return MI_E_USERDEF_ELEMENTS;
  if ((d->unit && strlen(d->unit) >= MI_UDEF_UNIT) || (d->help && strlen(d->help) >= MI_UDEF_HELP))
    return MI_E_USERDEF_TEXT;
  if (d->per_process != 0 && d->per_process != 1) return MI_E_USERDEF_DOMAIN;
  int dom = d->per_process ? MI_DOM_PROCESS : MI_DOM_GLOBAL;
  if (mi_item_find(name, -1)) return MI_E_USERDEF_DUPLICATE;
  int rc = mi_wlock_bounded(sys);
  if (rc) return rc;
  mi_seg *g = sys->seg;
  int n = g->udef_n, mine = 0;
  for (int k = 0; k < n && !rc; k++) {
    if (strcmp(g->udef[k].name, name) == 0) rc = MI_E_USERDEF_DUPLICATE;
    if (g->udef[k].owner_pid == pid) mine++;
  }
  int index = mi_domain_counters_[dom] + g->udef_dom_n[dom];
  if (!rc && mine >= MI_UDEF_PER_PROCESS) rc = MI_E_USERDEF_TOO_MANY;
  if (!rc && (n >= MI_UDEF_MAX || index >= MI_HOST_INDEX_LIMIT)) rc = MI_E_USERDEF_FULL;
  if (!rc) {
    mi_udef_rec *r = &g->udef[n];
    memset(r, 0, sizeof *r);
    r->item = MI_UDEF_FIRST + n;
    r->owner_pid = pid;
    r->domain = (uint8_t)dom;
    r->kind = (uint8_t)d->kind;
    r->index = (int16_t)index;
    r->elements = (int16_t)elements;
    r->words = (int16_t)words_of(d->kind, elements);
    memcpy(r->name, name, sizeof name);
    if (d->unit) strcpy(r->unit, d->unit);
    if (d->help) strcpy(r->help, d->help);
    g->udef_dom_n[dom]++;
    MI_ST(g->h.gen, g->h.gen + 1);   /* the catalog grew: prepared plans re-resolve */
    __atomic_store_n(&g->udef_n, n + 1, __ATOMIC_RELEASE);
    mi_udef_follow_installed(sys, dom, index);   /* a recorder of every counter counts it from now */
  }
  mi_wunlock(sys);
  if (rc) return rc;
  mi_udef_sync(sys);
  if (out) *out = sys->udef_info[n].handle;
  return 0;
}

void mi_udef_follow_installed(mi_system *sys, int d, int index) {
  mi_seg *g = sys->seg;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
    mi_urec *u = &g->users[i];
    if (!u->used || !u->udef_follow) continue;
    uint64_t *en = d == MI_DOM_PROCESS ? u->proc_en : u->glob_en;
    if (mi_bit(en, index) || mi_store_enable(sys, d, index) != 0) continue;   /* full: it is not recorded */
    mi_bit_set(en, index);
    if (d == MI_DOM_GLOBAL) { u->glob_on = 1; continue; }
    if (!u->proc_on) {   /* as an MIPROCON of every process */
      for (int w = 0; w < MI_PROC_WORDS; w++) { MI_ST(u->mon[w], 0); MI_ST(u->dead[w], 0); }
      MI_ST(u->untracked, 0);
      u->proc_nitems = 0;
      u->proc_all = 1;
      for (int k = 0; k < g->proc_hi; k++) if (g->procs[k].state == MI_PS_ALIVE) mi_abit_set(u->mon, k);
      u->proc_on = 1;
    }
    u->proc_items[u->proc_nitems++] = (int16_t)index;
  }
}

int mi_udef_count(mi_system *sys) {
  if (!sys) return 0;
  mi_udef_sync(sys);
  return __atomic_load_n(&sys->udef_seen, __ATOMIC_ACQUIRE);
}

const mi_udef_info *mi_udef_at(mi_system *sys, int i) {
  return i >= 0 && i < mi_udef_count(sys) ? &sys->udef_info[i] : NULL;
}

const mi_udef_info *mi_udef_find(mi_system *sys, const char *name) {
  int n = mi_udef_count(sys);
  for (int k = 0; name && k < n; k++)
    if (strcasecmp(sys->udef_info[k].item.name, name) == 0) return &sys->udef_info[k];
  return NULL;
}

const mi_item_info *mi_sys_item(mi_system *sys, int32_t num) {
  mi_catalog_init();
  return sys ? mi_sys_item_fast(sys, num) : mi_item_lookup(num);
}

/* The cells of u for entity when u is an installed counter of this system (kind and size as
 * the table says), else NULL. */
static int64_t *cells_of(mi_system *sys, mi_udef u, int entity, int live_only, const mi_udef_info **info) {
  int k = u.item - MI_UDEF_FIRST;
  if (!sys || k < 0 || k >= mi_udef_count(sys)) return NULL;
  const mi_udef_info *ui = &sys->udef_info[k];
  if (ui->handle.c.id != u.c.id) return NULL;
  *info = ui;
  mi_host_view rv;   /* a read-only system's view counts nothing (no writer writes): a read reads the store */
  const mi_system *vs = sys;
  if (sys->readonly && !live_only) { mi_view_set(&rv, &sys->seg->blk); vs = (const mi_system *)(const void *)&rv; }
  return mi_host_cell_(vs, u.c, entity, live_only);
}

void mi_udef_set(mi_system *sys, mi_udef u, int entity, int64_t level) {
  const mi_udef_info *ui;
  int64_t *p = cells_of(sys, u, entity, 1, &ui);
  if (!p) return;
  if (ui->kind == MI_UDEF_ACCUM || ui->kind == MI_UDEF_FACCUM) { MI_ST(p[0], level); return; }
  if (level < 0) level = 0;
  int w = ui->kind == MI_UDEF_QBUSY ? 4 : 3;
  int64_t now = MI_LD(sys->seg->now), since = p[w - 1];
  if (since > 0 && now > since) {   /* book the time since the last change at the old level */
    MI_ST(p[0], mi_udef_level_value(p, ui->kind, now, 0));
    if (ui->kind == MI_UDEF_QBUSY) MI_ST(p[1], mi_udef_level_value(p, ui->kind, now, 1));
  }
  MI_ST(p[w - 2], level);
  if (since == 0 || now > since) MI_ST(p[w - 1], now);
}

int64_t mi_udef_value(mi_system *sys, mi_udef u, int entity) {
  const mi_udef_info *ui;
  const int64_t *p = cells_of(sys, u, entity, 0, &ui);
  if (!p) return 0;
  return mi_udef_level_value(p, ui->kind, MI_LD(sys->seg->now), 0);
}
