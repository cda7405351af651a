/* sim_sched.c — the simulated machine's clock and dispatcher: the configuration a step reads,
 * the wake-up queue, the dispatch queue by priority, process states, the CPUs' steps and the
 * level counters a step leaves. */
#include <stdlib.h>
#include <string.h>
#include "sim_model.h"

/* The wake-up queue is a 4-ary min-heap of single-number keys: half the levels of a binary
 * one, the four children of a node in one cache line, one comparison each. (at, idx) is a
 * strict order, so any heap wakes the same processes in the same order. */
#define WH_D 4

/* Moves the queue's base time up to its earliest wake-up (or to at when empty), so keys never
 * outgrow WAKE_SPAN: every pending wake-up is within the run of think and service times. */
static void heap_rebase(sim *s, int64_t at) {
  int64_t base = s->nheap ? s->wbase + (int64_t)(s->heap[0] >> WAKE_IDX_BITS) : at;
  uint64_t shift = (uint64_t)(base - s->wbase) << WAKE_IDX_BITS;
  for (int i = 0; i < s->nheap; i++) s->heap[i] -= shift;   /* the heap order stays */
  s->wbase = base;
}

/* Queues process idx to wake at `at`. */
static void heap_push(sim *s, int64_t at, int idx) {
  if (at - s->wbase >= WAKE_SPAN) heap_rebase(s, at);
  int i = s->nheap++;
  wake_ev e = (uint64_t)(at > s->wbase ? at - s->wbase : 0) << WAKE_IDX_BITS | (uint64_t)idx;
  while (i > 0 && e < s->heap[(i - 1) / WH_D]) { s->heap[i] = s->heap[(i - 1) / WH_D]; i = (i - 1) / WH_D; }
  s->heap[i] = e;
}

/* Removes the earliest wake-up. */
static void heap_pop(sim *s) {
  wake_ev last = s->heap[--s->nheap];
  int i = 0, n = s->nheap;
  for (;;) {
    int c = WH_D * i + 1;
    if (c >= n) break;
    if (c + WH_D <= n) {   /* four children: the least of them without branches */
      const wake_ev *h = &s->heap[c];
      int a = h[1] < h[0], b = 2 + (h[3] < h[2]);
      c += h[b] < h[a] ? b : a;
    } else
      for (int k = c + 1; k < n; k++) if (s->heap[k] < s->heap[c]) c = k;
    if (!(s->heap[c] < last)) break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (n) s->heap[i] = last;
}

/* The wake-up wheel: most wake-ups are due within a minute, so they wait in buckets of about
 * a step (2^wh_shift ticks) on a ring of WH_NB: a push is O(1), and a step looks at its one or
 * two buckets. A wake-up beyond the ring's horizon waits in the heap above until the wheel
 * comes near it. The due ones are sorted by (time, process), the order the heap alone gave. */
static void wake_push(sim *s, int64_t at, int idx) {
  if (s->wh_in[idx]) {   /* a process has one wake-up: an older one leaves (the model never does this) */
    int32_t *link = &s->wh_head[(s->wh_at[idx] >> s->wh_shift < s->wh_cur ? s->wh_cur : s->wh_at[idx] >> s->wh_shift) & (WH_NB - 1)];
    while (*link && *link != idx + 1) link = &s->wh_next[*link - 1];
    if (*link) *link = s->wh_next[idx];
    s->wh_in[idx] = 0;
  }
  int64_t b = at >> s->wh_shift;
  if (b < s->wh_cur) b = s->wh_cur;
  if (b >= s->wh_cur + WH_NB) { heap_push(s, at, idx); return; }
  int32_t *head = &s->wh_head[b & (WH_NB - 1)];
  s->wh_at[idx] = at;
  s->wh_next[idx] = *head;
  *head = idx + 1;
  s->wh_in[idx] = 1;
}

/* Orders wake-ups by time, then process. */
static int due_cmp(const void *a, const void *b) {
  const struct due *x = a, *y = b;
  return x->at != y->at ? (x->at < y->at ? -1 : 1) : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Takes every wake-up due by now off the wheel and the heap into s->due, earliest first;
 * returns how many. Moves the wheel's start to now and brings the heap's wake-ups that are
 * now within its horizon onto it. */
static int wake_collect(sim *s, int64_t now) {
  int n = 0;
  int64_t last = now >> s->wh_shift, nb;
  if (last < s->wh_cur) last = s->wh_cur;
  nb = last - s->wh_cur + 1 < WH_NB ? last - s->wh_cur + 1 : WH_NB;   /* a long jump: every bucket once */
  for (int64_t b = s->wh_cur; b < s->wh_cur + nb; b++)
    for (int32_t *link = &s->wh_head[b & (WH_NB - 1)]; *link;) {
      int i = *link - 1;
      if (s->wh_at[i] > now) { link = &s->wh_next[i]; continue; }
      *link = s->wh_next[i];
      s->wh_in[i] = 0;
      s->due[n].at = s->wh_at[i]; s->due[n++].idx = i;
    }
  s->wh_cur = last;
  while (s->nheap) {
    wake_ev e = s->heap[0];
    int idx = (int)(e & ((1u << WAKE_IDX_BITS) - 1));
    int64_t at = (int64_t)(e >> WAKE_IDX_BITS) + s->wbase;
    if (at > now && at >> s->wh_shift >= s->wh_cur + WH_NB) break;
    heap_pop(s);
    if (at <= now) { s->due[n].at = at; s->due[n++].idx = idx; }
    else if (!s->wh_in[idx] && s->p[idx].wake == at) wake_push(s, at, idx);   /* else stale */
  }
  if (n < 2) return n;
  /* few: an insertion sort on one number each, (time - the earliest) above the process */
  int64_t lo = s->due[0].at, hi = lo;
  for (int i = 1; i < n; i++) { lo = s->due[i].at < lo ? s->due[i].at : lo; hi = s->due[i].at > hi ? s->due[i].at : hi; }
  if (n > 16 || hi - lo >= WAKE_SPAN) { qsort(s->due, (size_t)n, sizeof s->due[0], due_cmp); return n; }
  uint64_t key[16];
  for (int i = 0; i < n; i++) key[i] = (uint64_t)(s->due[i].at - lo) << WAKE_IDX_BITS | (uint64_t)s->due[i].idx;
  for (int i = 1; i < n; i++) {
    uint64_t k = key[i];
    int j = i;
    for (; j > 0 && key[j - 1] > k; j--) key[j] = key[j - 1];
    key[j] = k;
  }
  for (int i = 0; i < n; i++) { s->due[i].idx = (int32_t)(key[i] & ((1u << WAKE_IDX_BITS) - 1)); s->due[i].at = lo + (int64_t)(key[i] >> WAKE_IDX_BITS); }
  return n;
}

/* The dispatch queue: a READY process not yet run in this step waits in the line of its
 * priority level; the highest level's first comer is dispatched next (higher priority, then
 * first come, first served: a process whose burst outlasted the step goes behind its equals,
 * round robin). Levels are the priorities clamped to 0-2^24, kept ascending, so the top is the
 * last; a push finds its level by binary search among the few present, a pop is O(1). */
static uint32_t rq_level(const sproc *p) {
  int64_t pb = (int64_t)p->pri + (1 << 23);
  return (uint32_t)(pb < 0 ? 0 : pb > (1 << 24) - 1 ? (1 << 24) - 1 : pb);
}

/* The index of level key in the ascending levels, or where it would go. */
static int rq_find(const sim *s, uint32_t key) {
  int lo = 0, hi = s->nlv;
  while (lo < hi) { int mid = (lo + hi) / 2; if (s->lv[mid].key < key) lo = mid + 1; else hi = mid; }
  return lo;
}

/* Adds a READY process to the end of its level's line. */
static void rh_push(sim *s, sproc *p) {
  uint32_t key = rq_level(p);
  int i = s->nlv - 1;
  if (i < 0 || s->lv[i].key != key) {   /* most pushes go to the top level */
    i = rq_find(s, key);
    if (i == s->nlv || s->lv[i].key != key) {
      memmove(&s->lv[i + 1], &s->lv[i], (size_t)(s->nlv - i) * sizeof s->lv[0]);
      s->nlv++;
      s->lv[i].key = key; s->lv[i].head = s->lv[i].tail = -1;
    }
  }
  struct rlevel *l = &s->lv[i];
  p->hkey = key + 1;
  p->rnext = -1;
  p->rprev = l->tail;
  if (l->tail >= 0) s->p[l->tail].rnext = p->slot; else l->head = p->slot;
  l->tail = p->slot;
}

/* Takes p out of the dispatch queue. */
static void rh_remove(sim *s, sproc *p) {
  int i = rq_find(s, p->hkey - 1);
  struct rlevel *l = &s->lv[i];
  if (p->rprev >= 0) s->p[p->rprev].rnext = p->rnext; else l->head = p->rnext;
  if (p->rnext >= 0) s->p[p->rnext].rprev = p->rprev; else l->tail = p->rprev;
  if (l->head < 0) { memmove(&s->lv[i], &s->lv[i + 1], (size_t)(s->nlv - i - 1) * sizeof s->lv[0]); s->nlv--; }
  p->hkey = 0;
}

/* Takes the first process of the top level off the dispatch queue; -1 when it is empty. */
static int rh_pop(sim *s) {
  if (!s->nlv) return -1;
  struct rlevel *l = &s->lv[s->nlv - 1];
  sproc *p = &s->p[l->head];
  l->head = p->rnext;
  if (l->head >= 0) s->p[l->head].rprev = -1; else s->nlv--;
  p->hkey = 0;
  return p->slot;
}

/* Moves p to a new state, keeping the ready list, the wait counts and the wake queue
 * (p->wake must already hold the wake-up time when entering THINK or IO). */
void sim_set_state(sim *s, sproc *p, int state) {
  int child = p->kind == K_CI;   /* a session's CI idles waiting for its child program */
  if (p->state == S_READY) {
    if (p->hkey) rh_remove(s, p);
    int last = s->rdy[--s->nrdy];
    s->rdy[p->rpos] = last;
    s->p[last].rpos = p->rpos;
    s->nq[p->queue]--;
  } else if (p->state == S_IO) { s->nio--; s->nio_other -= p->io_other; }
  else if (p->state == S_THINK) s->nthink--;
  else if (p->state == S_SLEEP) { s->ntimer -= p->short_sleep; s->nlong -= p->long_sleep; }
  else if (p->state == S_WAIT) { s->nblk[p->reason]--; blk_changed(s, p->reason); }
  else if (p->state == S_IDLE) s->nchild -= child;
  if (state == S_READY && p->state != S_READY) s->rq_entries++;
  if ((p->state == S_FREE) != (state == S_FREE)) s->npop[p->kind] += state == S_FREE ? -1 : 1;
  p->state = state;
  if (state == S_READY) { p->rpos = s->nrdy; s->rdy[s->nrdy++] = p->slot; s->nq[p->queue]++; rh_push(s, p); }
  else if (state == S_IO) { s->nio++; s->nio_other += p->io_other; wake_push(s, p->wake, p->slot); }
  else if (state == S_THINK) { s->nthink++; wake_push(s, p->wake, p->slot); }
  else if (state == S_SLEEP) { s->ntimer += p->short_sleep; s->nlong += p->long_sleep; wake_push(s, p->wake, p->slot); }
  else if (state == S_WAIT) { s->nblk[p->reason]++; blk_changed(s, p->reason); wake_push(s, p->wake, p->slot); }
  else if (state == S_IDLE) s->nchild += child;
}

/* Reads the configuration a step uses many times: ticks per ms, the queues' priority bases and
 * limits (3019-3028 by queue) and quanta in ticks (3029 CS max, 3031 DS, 3032 ES; the others
 * unlimited); a PUT lands between steps, so a step sees one configuration throughout. */
void sim_cache_config(mi_system *sys, sim *s) {
  /* the items are read again only when a configuration value changed (#17) */
  uint32_t gen = mi_host_config_gen(sys);
  if (!s->cfg_read || gen != s->cfg_gen) {
    s->tpm = mi_host_ticks_per_ms(sys);
    s->tpm_2 = s->tpm / 2; s->tpm_5 = s->tpm / 5; s->tpm_10 = s->tpm / 10;
    s->tpm_20 = s->tpm / 20; s->tpm_50 = s->tpm / 50; s->tpm_3c = s->tpm * 3 / 100;
    for (int i = 0; i < 14; i++) s->cfg_q[i] = CFG(sys, 3019 + i);   /* 3019-3032 */
    s->cfg_gen = gen;
    s->cfg_read = 1;
  }
  const int32_t *cfg = s->cfg_q;
  for (int q = 0; q < 5; q++) {
    s->qb[q] = cfg[2 * q];
    s->ql[q] = cfg[2 * q + 1];
    s->qt[q] = (int64_t)(q == Q_CS ? cfg[10] : q == Q_DS ? cfg[12] : q == Q_ES ? cfg[13] : 1000000) * s->tpm;
  }
  /* the CS quantum follows the sessions' average CPU per transaction, within 3030..3029 */
  double lo = cfg[11], hi = cfg[10], avg = s->cs_avg_ms > 0 ? s->cs_avg_ms : hi;
  s->qt[Q_CS] = (int64_t)((avg < lo ? lo : avg > hi ? (hi > lo ? hi : lo) : avg) * (double)s->tpm);
}

/* Picks the ready process of highest priority not yet run in this step (the first come among
 * equals); -1 if none. O(1): the first of the dispatch queue's top level. */
static int pick(sim *s) {
  return rh_pop(s);
}

/* Gives p priority pri, counting the adjustment (pmc_process_priority counts how often a
 * process's priority changed, not what it is). */
void sim_set_pri(sim *s, sproc *p, int32_t pri) {
  if (p->pri == pri) return;
  p->pri = pri;
  cadd(s, P_PRI, p->slot, 1);
}

/* A system process wakes for its periodic duty, in the BS queue. */
static void duty_wake(mi_system *sys, sim *s, sproc *p) {
  p->burst = expo(s, sys, 2.0) + 1;
  sim_set_pri(s, p, QBASE(s, p->queue));
  p->quantum_used = 0;
}

/* The wake-ups due by now, earliest first, made ready; counts the interrupts (I/O completions)
 * and returns how many sessions woke at CS priority. */
static void wake_due(mi_system *sys, sim *s, int64_t now, int *interrupts, int woke[3]) {
  for (int k = 0, n = wake_collect(s, now); k < n; k++) {
    sproc *p = &s->p[s->due[k].idx];
    if (!((p->state == S_THINK || p->state == S_IO || p->state == S_SLEEP || p->state == S_WAIT) && p->wake == s->due[k].at))
      continue;   /* stale */
    if (p->state == S_IO) { sim_io_done(sys, s, p); (*interrupts)++; woke[1] += p->queue == Q_CS; }
    else if (p->state == S_SLEEP) { duty_wake(sys, s, p); woke[2]++; }
    else if (p->state == S_THINK) { sim_terminal_read(sys, s, p, now); woke[0]++; }
    p->ready_since = now;
    sim_set_state(s, p, S_READY);
  }
}

/* Queue accounting at the step's start: per-queue lengths, preemptions of batch processes by
 * waking sessions, ready-queue entries and the time at each ready-queue length. */
static void queue_accounting(mi_system *sys, sim *s, const int woke[3]) {
  mi_host_row *gr = &s->g0;
  /* the processes dispatched in the last step that are still READY may run again */
  for (int k = 0; k < s->nran; k++) {
    sproc *p = &s->p[s->ran[k]];
    if (p->state == S_READY && !p->hkey) rh_push(s, p);
  }
  s->nran = 0;
  /* a session waking at CS priority (its terminal read: priority preemption; its disc I/O: disc
   * I/O preemption) or a system process waking for its duty (preemption) preempts a batch
   * process that held a CPU at the step's end */
  static const int why[3] = {K_PRI_PREEMPT, K_DISC_PREEMPT, K_PREEMPT};
  for (int w = 0, cpu = 0; w < 3; w++)
    for (int n = woke[w]; n > 0 && cpu < 8; cpu++) {
      int slot = s->low_slot[cpu];
      if (slot < 0 || s->p[slot].state != S_READY) continue;
      stop(sys, s, &s->p[slot], why[w], 0);   /* it stays ready: the stop takes no time (25151-25153) */
      n--;
    }
  RADD(gr, G_CUM_RQ, s->rq_entries);
  s->rq_entries = 0;
  memcpy(s->nq_seen, s->nq, sizeof s->nq);   /* the queues as the CPUs found them (21159-21163) */
}

/* The roles of the step's sums (SG_*). */
static const int sg_role[NSG] = {G_DISP_T, G_DISP_C, G_REQ_SECS, G_Q_T, G_Q_T + 1, G_Q_T + 2, G_Q_T + 3, G_Q_T + 4,
  G_Q_C, G_Q_C + 1, G_Q_C + 2, G_Q_C + 3, G_Q_C + 4, G_CM_T, G_SW2CM, G_SW2NM, G_FETCH_C, G_CLOCK, G_FETCH_T};

/* Adds the step's sums to their counters (while anybody counts) and clears them. */
static void add_sums(sim *s) {
  mi_host_row *gr = &s->g0;
  if (ON(s, MI_DOM_GLOBAL))
    for (int i = 0; i < NSG; i++) RADD(gr, sg_role[i], s->sg[i]);
  memset(s->sg, 0, sizeof s->sg);
}

/* A launch swaps p in: up to 8 more of its pages come into memory as replaceable ones, as long
 * as it has pages that are not resident (21294 is a level: they stay until p ends). Returns the
 * pages added. */
static int swap_in(sim *s, sproc *p) {
  int room = p->swap_room - p->swap_pg, n = room < 8 ? room : 8;
  if (n <= 0) return 0;
  p->swap_pg = (int16_t)(p->swap_pg + n);
  s->swap_cur[p->cm] += n;
  return n;
}

/* A CPU launches p and runs it for up to its quantum from *budget; while anybody counts, p's
 * row is opened into s->lrow (for the burst's end to write through too). */
static void dispatch(mi_system *sys, sim *s, sproc *p, int cpu, int64_t now, int64_t at, int64_t *budget) {
  (void)sys;
  int64_t disp = s->tpm_20 < *budget ? s->tpm_20 : *budget;   /* 50 us to launch */
  *budget -= disp;
  s->sg[SG_DISP_T] += disp;
  s->sg[SG_DISP_C]++;
  /* its wait in this step, from the step's start or its entry to this moment (an earlier
   * step's share was counted at that step's end: ready_time) */
  int64_t waited = at - (p->ready_since > now ? p->ready_since : now);
  if (waited < 0) waited = 0;
  s->rq_area += waited;
  /* its own wait since it was last written (ready_flush) */
  int64_t own = at - (p->ready_since > s->rq_flush ? p->ready_since : s->rq_flush);
  p->cpu = cpu;
  /* memory over 80% in use: a launched process may have to be swapped in first (0.5 ms) */
  int swapped = 0, swap_pages = 0, trapped = 0;
  int64_t sw = 0, tt = 0;
  if (s->pressure > 0.8 && rnd(s) < (s->pressure - 0.8) && *budget > 0) {
    sw = s->tpm_2 < *budget ? s->tpm_2 : *budget;
    *budget -= sw;
    swapped = 1;
    swap_pages = swap_in(s, p);
  }
  /* a stack overflow trap every 1,009th launch (20 us) */
  ++s->dispatches;
  if (--s->trap_in == 0 && (s->trap_in = 1009, *budget > 0)) {
    tt = s->tpm_50 < *budget ? s->tpm_50 : *budget;
    *budget -= tt;
    trapped = 1;
  }
  int64_t qleft = QUANTUM(s, p->queue) - p->quantum_used;
  int64_t run = p->burst < *budget ? p->burst : *budget;
  if (run > qleft) run = qleft > 0 ? qleft : 0;
  *budget -= run; p->burst -= run; p->quantum_used += run;
  s->sg[SG_Q_T + p->queue] += run;
  s->sg[SG_Q_C + p->queue]++;
  p->txn_cpu += run;
  if (p->cm) { s->sg[SG_CM_T] += run; s->sg[SG_SW2CM]++; s->sg[SG_SW2NM]++; }
  if (p->kind == K_JOB) p->work_left -= run;
  if (!s->cnt) return;
  /* the launch's counters */
  mi_host_row *cr = &s->crow[cpu & 7], *gr = &s->g0;
  mi_host_row prl, *pr = sim_row(s, &prl, MI_DOM_PROCESS, p->slot);   /* (a local: its fields stay in registers) */
  if (CPU_ON(s)) {
    RADD(cr, C_DISP_T, disp); RADD(cr, C_DISP_C, 1); RADD(cr, C_LAUNCH, 1);
    RADD(cr, C_Q_T + p->queue, run); RADD(cr, C_Q_C + p->queue, 1);
    if (swapped) { RADD(cr, C_SWAP_T, sw); RADD(cr, C_SWAP_C, 1); }
    if (trapped) { RADD(cr, C_TOS_T, tt); RADD(cr, C_TOS_C, 1); }
    if (p->cm) RADD(cr, C_CM_T, run);
  }
  RADD(pr, P_LAUNCH, 1); RADD(pr, P_READY, own > 0 ? own : 0);
  if (swapped) {
    RADD(gr, G_SWAPIN_T, sw); RADD(gr, G_SWAPIN_C, 1);
    if (swap_pages) sim_swap_levels(s);
  }
  if (trapped) {
    RADD(gr, G_TOS_T, tt); RADD(gr, G_TOS_C, 1);
    RADD(gr, G_TOS_TRAP + (int)(s->dispatches / 1009 % 3), 1);
  }
  RADD(pr, P_TIME, run);
  if (p->cm) { RADD(pr, P_CM_T, run); RADD(pr, P_SW2CM, 1); RADD(pr, P_SW2NM, 1); }
  s->lrow.cells = prl.cells; s->lrow.words = prl.words;   /* (what a word's writes read: RADD, ROBJ, RSET, RMAX) */
}

/* A burst stopped at time at with work left: on an expired quantum the priority decays toward
 * the limit; it is ready again from at. */
static void burst_stopped(mi_system *sys, sim *s, sproc *p, int cpu, int64_t at) {
  if (p->quantum_used >= QUANTUM(s, p->queue)) {   /* quantum expired: decay toward the limit */
    p->quantum_used = 0;
    sim_set_pri(s, p, p->pri - 128 < QLIMIT(s, p->queue) ? QLIMIT(s, p->queue) : p->pri - 128);
    (void)cpu;
    stop(sys, s, p, K_QUANTUM, 0);   /* it stays ready: the stop takes no time (25122) */
  }
  p->ready_since = at;
}

/* The ready queue over the step of len ticks from now that just ran: each process still ready
 * waited from the step's start or its entry to the step's end, and with the launched ones'
 * waits that is the queue's area (21094). Those still ready did not run in the step (a wait of
 * the whole step) unless they ran and stopped with work left (the step's `ran`: from their
 * stop). The step counts at the length of its mean queue, rounded to the nearest (21095-21102:
 * 0, 1, 2, 3-4, 5-8, 9-16, 17-32, over 32). */
static void ready_time(sim *s, int64_t now, int64_t len) {
  int64_t area = s->rq_area, end = now + len;
  s->rq_area = 0;
  if (!s->cnt) return;   /* (only counters follow from it) */
  area += (int64_t)(s->nrdy - s->nran) * len;
  for (int k = 0; k < s->nran; k++) area += end - s->p[s->ran[k]].ready_since;
  int64_t m = (area + len / 2) / len;
  RADD(&s->g0, G_RQ_T + (m <= 2 ? (int)m : m <= 4 ? 3 : m <= 8 ? 4 : m <= 16 ? 5 : m <= 32 ? 6 : 7), len);
  s->sg[SG_REQ_SECS] += area;
}

/* One CPU's step of len ticks: its share of the interrupts, then dispatching ready processes
 * until the budget is spent; the rest is paused (nio: processes wait on disk) or idle.
 * Returns 1 when a batch process held this CPU to the step's end. */
static int run_cpu(mi_system *sys, sim *s, int cpu, int64_t now, int64_t len, int interrupts, int nio) {
  mi_host_row *cr = &s->crow[(cpu) & 7], *gr = &s->g0;
  int64_t budget = len;
  int ncpu = mi_host_cpus(sys), low_left = 0;
  /* this CPU's share of the step's interrupts (most steps have fewer than CPUs: no division) */
  int nint = interrupts < ncpu ? cpu < interrupts : interrupts / ncpu + (cpu < interrupts % ncpu);
  int64_t ics = nint * s->tpm_3c;   /* 30 us each */
  if (ics > budget) ics = budget;
  budget -= ics;
  if (CPU_ON(s)) { RADD(cr, C_EXT_ICS, ics); RADD(cr, C_INTR, nint); }
  /* memory over 90% in use: the memory manager replenishes the critical pool on the ICS, on
   * each CPU every 10th step (0.1 ms) */
  if (s->pressure > 0.9 && s->step_no % 10 == (uint64_t)cpu % 10 && budget > 0) {
    int64_t rp = s->tpm_10 < budget ? s->tpm_10 : budget;
    budget -= rp;
    if (CPU_ON(s)) { RADD(cr, C_REPL_C, 1); RADD(cr, C_REPL_T, rp); }
  }
  s->low_slot[cpu] = -1;
  for (int idx; budget > 0 && (idx = pick(s)) >= 0;) {
    sproc *p = &s->p[idx];
    dispatch(sys, s, p, cpu, now, now + (len - budget), &budget);
    if (p->burst > 0) {
      burst_stopped(sys, s, p, cpu, now + (len - budget));
      s->ran[s->nran++] = idx;
      if (p->queue >= Q_DS && budget == 0) { low_left++; s->low_slot[cpu] = p->slot; }   /* held to the end */
      continue;
    }
    sim_burst_done(sys, s, p, cpu, now, len, &budget);
  }
  /* what is left is paused (a process waits on disk) or idle */
  if (budget > 0 && s->cnt) {   /* (exclusive states: 27006 and 21177 idle, 21176 paused) */
    if (nio) { RADD(gr, G_PAUSED, budget); RADD(gr, G_PAUSES, 1); }
    else {
      RADD(gr, G_IDLE_T, budget); RADD(gr, G_IDLE_C, 1);
      if (CPU_ON(s)) { RADD(cr, C_IDLE_T, budget); RADD(cr, C_IDLE_C, 1); }
    }
  }
  return low_left;
}

/* The level counters as the step leaves them, which is what the next GET sees. */
void sim_levels(mi_system *sys, sim *s, int nready) {
  (void)sys;
  if (!s->cnt) return;
  mi_host_row *gr = &s->g0;
  /* the reasons whose count of waiting processes moved first: the states counted on their own
   * below (terminal, disc, timer, child, long pause) share a word with their reason, and
   * their own count is the one that holds (all reasons are "moved" when counting starts) */
  for (int i = 0; i < s->ndirty; i++) {
    int k = s->dirty[i];
    s->blk_dirty[k] = 0;
    mi_host_row_setw(gr, s->rsset[k], s->nblk[k]);
  }
  s->ndirty = 0;
  RSET(gr, G_CUR_RQ, s->nrdy);
  RMAX(gr, G_MAX_RQ, s->nrdy > nready ? s->nrdy : nready);
  for (int q = 0; q < 5; q++) RSET(gr, G_CUR_Q + q, s->nq_seen[q]);
  RSET(gr, G_BLK_DISC, s->nio - s->nio_other);
  RSET(gr, G_BLK_OTHER, s->nio_other);
  RSET(gr, G_BLK_TRM, s->nthink);
  RSET(gr, G_BLK_TIMER, s->ntimer);
  RSET(gr, G_BLK_CHILD, s->nchild);
  mi_host_row_setw(gr, s->rsset[K_LONG_PAUSE], s->nlong);
  RSET(gr, G_MINTH, 100);          /* the think-time filter thresholds of the manual (21030/21031: */
  RSET(gr, G_MAXTH, 2147483647);   /* 100 ms and MAXINT) */
}

/* Runs one step of ms (1-10) milliseconds of the model. */
void sim_step(mi_system *sys, sim *s, int64_t ms) {
  sim_cache_config(sys, s);
  s->step_no++;
  if (sim_sync_counting(sys, s)) sim_write_levels(sys, s, 1);   /* counters enabled since: their levels now */
  int64_t tpm = s->tpm, len = ms * tpm, now = mi_host_now(sys);
  int ncpu = mi_host_cpus(sys);
  if (now - s->last_logon >= 1000 * tpm) {
    sim_logon(sys, s);
    s->last_logon = now;
    sim_xm_second(sys, s, now);
    sim_write_levels(sys, s, 0);
    sim_repair_second(sys, s, now);
  }
  int interrupts = 0, woke[3] = {0, 0, 0};   /* sessions from the terminal, from disc I/O, system processes */
  wake_due(sys, s, now, &interrupts, woke);
  int nready = s->nrdy, nio = s->nio - s->nio_other;   /* nio: on discs */
  queue_accounting(sys, s, woke);
  int low_left = 0;
  for (int cpu = 0; cpu < ncpu; cpu++) low_left += run_cpu(sys, s, cpu, now, len, interrupts, nio);
  s->low_running = low_left;
  ready_time(s, now, len);
  add_sums(s);
  sim_levels(sys, s, nready);
  mi_host_advance(sys, len);
}

/* Writes the waits of the processes ready now since the last writing into their 25048 (a launch
 * writes the rest of a wait): every MI call's refresh does, so a GET sees each process's ready
 * time up to its moment, and a wait that straddles two GETs is split between them. */
void sim_ready_flush(mi_system *sys, sim *s) {
  int64_t now = mi_host_now(sys);
  int32_t w = s->lay_ok ? s->col[P_READY] : -1;
  if (w >= 0)
    for (int i = 0; i < s->nrdy; i++) {
      sproc *p = &s->p[s->rdy[i]];
      int64_t t = now - (p->ready_since > s->rq_flush ? p->ready_since : s->rq_flush);
      if (t > 0) { mi_host_row prw, *pr = sim_row(s, &prw, MI_DOM_PROCESS, p->slot); mi_host_row_addw(pr, w, t); }
    }
  s->rq_flush = now;
}
