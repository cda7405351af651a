/* raw.c — door 2's raw mode (#28.3): the store's own cells of prepared queries, with the
 * entities' identities, copied in one write section. The recorder reads through it; nothing
 * above the query room walks the segment. */
#include <string.h>
#include "mi_internal.h"
#include "mi_query.h"

int32_t mi_query_raw_words(const mi_query *q, int i) {
  if (!q || i < 0 || i >= q->n) return 0;
  const mi_item_info *it = q->pl[i].it;
  if (!it || it->kind == MI_KIND_PSEUDO) return 0;
  return mi_counter_words(q->s->sys, q->domain, it->index, q->mapping);
}

/* Lists the present entities of domain d into keys (ascending) and, for processes, fills v's
 * present[] and proc[] (v may be NULL); returns the count. Called in a write section. */
static int raw_entities(mi_session *s, int d, int32_t *keys, mi_raw_view *v) {
  const mi_seg *g = s->sys->seg;
  const uint64_t *told = s->u ? s->u->dead : NULL;   /* no MI-user record yet: no death to report */
  int n = 0;
  if (d == MI_DOM_GLOBAL) keys[n++] = 0;
  else if (d == MI_DOM_PROCESS) {
    for (int sl = 0; sl < g->proc_hi && sl < MI_MAX_PROCESSES; sl++) {
      const mi_proc *p = &g->procs[sl];
      int dead = p->state == MI_PS_DEAD && told && mi_bit(told, sl);
      if (p->state != MI_PS_ALIVE && !dead) continue;
      keys[n++] = sl;
      if (!v) continue;
      mi_raw_proc *o = &v->proc[sl];
      o->pid = p->pid; o->start_ticks = p->start_ticks; o->end_ticks = p->end_ticks;
      memcpy(o->user, p->user, sizeof o->user);
      memcpy(o->program, p->program, sizeof o->program);
      o->js = p->js; o->ptype = p->ptype;
      v->present[sl] = (uint8_t)(dead ? 2 : 1);
    }
  } else if (d == MI_DOM_IO) {
    for (int l = 1; l <= MI_MAX_LDEV; l++) if (g->devtype[l]) keys[n++] = l;
  } else {
    for (int c = 0; c < g->ncpu && c < MI_MAX_PROCESSORS; c++) keys[n++] = c;
  }
  return n;
}

/* Copies q's cells of the n entities keys[] into out (row after row). Called in a write section:
 * each item's words and offset are looked up once, before the entities (the layout cannot move
 * in the section), so a row costs a copy per item, not a catalog lookup per cell. */
static void raw_rows(const mi_query *q, const int32_t *keys, int n, int64_t *out) {
  mi_system *sys = q->s->sys;
  const mi_seg *g = sys->seg;
  int d = q->domain;
  const mi_host_lane *ln = &g->blk.lane[d];
  const int64_t *cells = MI_CELLS(g, ln);
  int32_t words[MI_MAX_ITEMS], off[MI_MAX_ITEMS], rw = 0;   /* off -1: the item's words read as zeros */
  int m = 0;                                                  /* items with words */
  for (int k = 0; k < q->n && k < MI_MAX_ITEMS; k++) {
    int32_t w = mi_query_raw_words(q, k);
    if (!w) continue;
    int32_t o = MI_OFF(sys, d, q->pl[k].it->index);
    words[m] = w;
    off[m++] = o >= 0 && o + w <= ln->stride ? o : -1;
    rw += w;
  }
  for (int i = 0; i < n; i++) {
    int64_t *dst = out + (size_t)i * (size_t)rw;
    int e = keys[i];
    if (!cells || e >= ln->nent) { memset(dst, 0, (size_t)rw * 8); continue; }
    const int64_t *row = cells + (size_t)e * ln->stride;
    for (int k = 0; k < m; k++) {
      if (off[k] < 0) memset(dst, 0, (size_t)words[k] * 8);
      else if (words[k] == 1) *dst = row[off[k]];
      else memcpy(dst, row + off[k], (size_t)words[k] * 8);
      dst += words[k];
    }
  }
}

int mi_query_raw_read(mi_session *s, mi_raw_view *v, mi_query *const *q, int nq, int64_t *const *cells,
                      int32_t *const *keys, int32_t *nkeys) {
  if (!s || nq < 0 || (nq && (!q || !cells || !keys || !nkeys))) return MI_E_BAD_POINTER;
  for (int k = 0; k < nq; k++)
    if (q[k] && (q[k]->s != s || !cells[k] || !keys[k])) return MI_E_BAD_POINTER;
  mi_system *sys = s->sys;
  int rc = mi_wlock_bounded(sys);
  if (rc) return rc;
  const mi_seg *g = sys->seg;
  if (v) {
    v->now = g->now;
    v->ncpu = g->ncpu;
    memcpy(v->devtype, g->devtype, sizeof v->devtype);
    memset(v->present, 0, sizeof v->present);
  }
  for (int k = 0; k < nq; k++) {
    if (!q[k]) continue;
    nkeys[k] = raw_entities(s, q[k]->domain, keys[k], v);
    raw_rows(q[k], keys[k], nkeys[k], cells[k]);
  }
  /* the dead read are reported now: released for s (the table reuses their slots) */
  for (int k = 0; k < nq; k++)
    if (q[k] && q[k]->domain == MI_DOM_PROCESS)
      for (int i = 0; i < nkeys[k]; i++)
        if (g->procs[keys[k][i]].state == MI_PS_DEAD && s->u) mi_proc_release_user(sys, s, keys[k][i]);
  mi_wunlock(sys);
  return 0;
}

int mi_query_item_on(mi_session *s, int32_t item) {
  if (!s || !s->u) return 0;
  const mi_item_info *it = mi_sys_item(s->sys, item);
  if (!it || it->kind == MI_KIND_PSEUDO) return 0;
  const mi_urec *u = s->u;
  const uint64_t *en = it->domain == MI_DOM_GLOBAL ? u->glob_en : it->domain == MI_DOM_PROCESS ? u->proc_en
                     : it->domain == MI_DOM_IO ? u->io_en : NULL;
  if (!en) return 0;
  return (int)((MI_LD(en[it->index >> 6]) >> (it->index & 63)) & 1);
}

void mi_query_refresh(mi_session *s) {
  if (s) mi_sys_refresh(s->sys);
}

void mi_query_hold(mi_session *s, int domains) {
  if (s) mi_sys_hold(s->sys, domains);
}

void mi_query_release(mi_session *s) {
  if (s) mi_sys_release(s->sys);
}
