/* sim_rooms.c — the rooms of the simulated machine (file system, TurboIMAGE, SQL, IPC, memory
 * manager, terminals, system duties): the events an operation counts, its semaphore blocks and
 * waits, and the transaction manager's logs. */
#include "sim_model.h"

/* The waits an operation of a room may end in: the stop reason (by its pmc_stop_* item), the
 * chance per operation and the mean wait in ms (0: a stop that leaves the process ready, as the
 * dispatcher's urgent work does, counted without a time: 25129 stays zero). The port of
 * 25084 is not used (the manual), so no row stops on it. */
static const struct waitrow { int room; int32_t reason; double chance, ms; } waitrows[] = {
  {R_FILE, 25083, 0.01, 30}, {R_FILE, 25085, 0.01, 20}, {R_FILE, 25090, 0.005, 40},
  {R_FILE, 25091, 0.02, 15}, {R_FILE, 25092, 0.02, 10}, {R_FILE, 25087, 0.001, 50}, {R_FILE, 25064, 0.005, 20},
  {R_IMAGE, 25089, 0.02, 10}, {R_IMAGE, 25069, 0.01, 8}, {R_IMAGE, 25078, 0.01, 15}, {R_IMAGE, 25080, 0.01, 10},
  {R_SQL, 25098, 0.03, 40}, {R_SQL, 25099, 0.01, 2}, {R_SQL, 25100, 0.008, 2}, {R_SQL, 25101, 0.006, 2},
  {R_SQL, 25102, 0.004, 2}, {R_SQL, 25103, 0.01, 10},
  {R_SQL, 25264, .002, 5}, {R_SQL, 25265, .002, 5}, {R_SQL, 25266, .002, 5}, {R_SQL, 25267, .002, 5},
  {R_SQL, 25268, .002, 5}, {R_SQL, 25269, .002, 5}, {R_SQL, 25270, .002, 5}, {R_SQL, 25271, .002, 5},
  {R_SQL, 25272, .002, 5}, {R_SQL, 25273, .002, 5}, {R_SQL, 25274, .002, 5}, {R_SQL, 25275, .002, 5},
  {R_SQL, 25276, .002, 5}, {R_SQL, 25277, .002, 5}, {R_SQL, 25278, .002, 5}, {R_SQL, 25279, .002, 5},
  {R_SQL, 25280, .002, 5}, {R_SQL, 25281, .002, 5}, {R_SQL, 25282, .002, 5}, {R_SQL, 25283, .002, 5},
  {R_SQL, 25284, .002, 5}, {R_SQL, 25285, .002, 5}, {R_SQL, 25286, .002, 5}, {R_SQL, 25287, .002, 5},
  {R_SQL, 25288, .002, 5}, {R_SQL, 25289, .002, 5}, {R_SQL, 25290, .002, 5}, {R_SQL, 25291, .002, 5},
  {R_IPC, 25074, 0.1, 30}, {R_IPC, 25075, 0.03, 50}, {R_IPC, 25077, 0.05, 40}, {R_IPC, 25076, 0.005, 10},
  {R_IPC, 25062, 0.03, 5}, {R_IPC, 25088, 0.01, 10}, {R_IPC, 25082, 0.005, 20}, {R_IPC, 25068, 0.005, 30},
  {R_IPC, 25094, 0.01, 100},
  {R_MEM, 25081, 0.01, 10}, {R_MEM, 25093, 0.02, 12}, {R_MEM, 25105, 0.005, 5}, {R_MEM, 25322, 0.03, 30},
  {R_MEM, 25323, 0.02, 30},
  {R_SYS, 25063, 0.02, 5}, {R_SYS, 25072, 0.01, 5}, {R_SYS, 25073, 0.01, 0}, {R_SYS, 25086, 0.0005, 100},
  {R_SYS, 25106, 0.005, 10}, {R_SYS, 25292, 0.01, 1},
};
#define NWAITROW ((int)(sizeof waitrows / sizeof waitrows[0]))

/* Semaphore classes each room blocks on (semcl.tsv), with the chance an operation blocks. */
static const struct { int room; int cls[6]; double chance; } semrows[] = {   /* (row r is room r's; R_SYS has none) */
  [R_FILE] = {R_FILE, {19, 20, 21, 22, 23, 24}, 0.05}, [R_IMAGE] = {R_IMAGE, {55, 56, 57, 59, 60, 75}, 0.1},
  [R_SQL] = {R_SQL, {29, 30, 31, 34, 63, 64}, 0.08}, [R_IPC] = {R_IPC, {1, 3, 6, 7, 8, 27}, 0.08},
  [R_MEM] = {R_MEM, {9, 10, 13, 42, 44, 72}, 0.03}, [R_TERM] = {R_TERM, {28, 38, 41, 70, 71, 73}, 0.01},
};
#define NSEMROW ((int)(sizeof semrows / sizeof semrows[0]))

/* Each room's rows of the wait table (waitrows are grouped by room). */
void sim_wait_rows(sim *s) {
  for (int i = NWAITROW - 1; i >= 0; i--) { s->wt_lo[waitrows[i].room] = i; if (!s->wt_hi[waitrows[i].room]) s->wt_hi[waitrows[i].room] = i + 1; }
}

/* p stops for reason k at time at and waits ticks (a room's lock, port, fault ...). */
void sim_wait_on(mi_system *sys, sim *s, sproc *p, int k, int64_t at, int64_t ticks) {
  stop(sys, s, p, k, ticks);
  p->reason = k;
  p->wake = at + ticks;
  p->after_wait = 1;
  p->burst = s->tpm_2 + 1;   /* half a millisecond to pick up where it stopped */
  sim_set_state(s, p, S_WAIT);
}

/* A depth drawn from an event's bits for a watermark row (a hash chain a collision found):
 * 2 and more, each further entry half as likely, at most 17. */
static int64_t ev_depth(uint64_t x) {
  uint32_t y = (uint32_t)(x >> 16) | 0x8000u;
  return 2 + __builtin_ctz(y);
}

/* 1 if anybody counts one of room's event rows in this step (else its draws are skipped: they
 * are keyed by the operation's number, not drawn from the model's stream, so skipping them
 * changes no other count; read with the layout at the step's start). */
static int counting(const sim *s, int room) {
  return (s->cnt & (1 << MI_DOM_GLOBAL | 1 << MI_DOM_PROCESS)) != 0 && s->room_cnt[room];
}

/* The event counters of one operation of a room by p (evrows) on an object of class cls: each
 * row's whole count, and its fraction by chance. The rows' words and shapes come from s->evact
 * (one load a row; a fraction's event reads s->evf, and evact only for an odd row), the rows'
 * cells through the two rows' pointers held in locals, and the operation's draws from one hash
 * base (ev_hash's, taken apart: the same bits). */
void sim_room_events(mi_system *sys, sim *s, mi_host_row *pr, int room, int cls) {
  uint64_t op = ++s->opseq;
  s->room_ops[room]++;
  (void)sys;
  if (!counting(s, room)) return;
  mi_host_row *gr = &s->g0;
  int64_t *gc = gr->cells, *pc = pr->cells;
  const uint32_t gn = (uint32_t)gr->words, pn = (uint32_t)pr->words;
  const int clsok = (unsigned)cls < 720u;
  const int32_t fw = clsok ? s->fold[cls] : 0;   /* the class's word within an object-class counter */
  const struct evact *act = s->evact;
  const uint64_t hb = ev_hash_base(s, op);
  for (int k = 0, nw = s->nwhole[room]; k < nw; k++) {
    const struct evact *a = &act[s->whole[room][k]];
    if (a->wmark) { if ((uint32_t)a->g < gn) { int64_t d = ev_depth(ev_mix(hb, 64 + k)); if (gc[a->g] < d) MI_CELL_PUT(gc + a->g, d); } }
    else if (a->objcl) { if (a->g >= 0 && clsok && (uint32_t)(a->g + fw) < gn) MI_CELL_PUT(gc + a->g + fw, gc[a->g + fw] + a->whole); }
    else {
      if ((uint32_t)a->g < gn) MI_CELL_PUT(gc + a->g, gc[a->g] + a->whole);
      if ((uint32_t)a->p < pn) MI_CELL_PUT(pc + a->p, pc[a->p] + (int64_t)a->whole * a->pmul);
    }
  }
  /* the fractions: a Poisson number of events (their mean the fractions' sum), each on a row
   * chosen by its fraction */
  if (!s->nchance[room]) return;
  uint64_t x0 = ev_mix(hb, 0);
  int hits = s->ev_ntop[room][x0 >> (64 - EV_TOP_BITS)];
  if (hits == EV_SPLIT) hits = sim_ev_hits(s, room, x0);
  const uint8_t *top = s->ev_top[room];
  const int *chance = s->chance[room];
  const struct evspl *spl = s->ev_spl[room];
  const struct evf *evf = s->evf;
  const int32_t fx = clsok ? fw : INT32_MIN / 2;   /* a class row's offset: out of the row for no class */
  int used[NSUBGRP] = {0};   /* each subset group's events in this operation */
  for (int h = 1; h <= hits; h++) {
    uint64_t x = ev_mix(hb, h);
    int i = top[x >> (64 - EV_TOP_BITS)];
    /* a cell with a boundary: one of two rows by its threshold, without a branch (other cells
     * read ev_spl's spare entry and keep their row); EV_SPLIT: the search */
    unsigned k = (unsigned)(i - EV_SPL0), kk = k < EV_NSPL ? k : EV_NSPL;
    int r = x < spl[kk].t ? spl[kk].a : spl[kk].b;
    i = k < EV_NSPL ? r : i;
    if (__builtin_expect(i == EV_SPLIT, 0)) i = chance[sim_ev_row(s, room, x)];
    const struct evf *f = &evf[i];
    if (!f->odd) {   /* most: a plain count, global and per process, or a count by class */
      uint32_t gw = (uint32_t)(f->g + (fx & f->om));
      if (gw < gn) MI_CELL_PUT(gc + gw, gc[gw] + 1);
      if ((uint32_t)f->p < pn) MI_CELL_PUT(pc + f->p, pc[f->p] + 1);
      continue;
    }
    const struct evact *a = &act[i];
    if (a->grp) {   /* a subset: no more than its total in one operation */
      int g = a->grp - 1;
      if (used[g] >= s->ev_cap[room][g]) continue;
      used[g]++;
    }
    if (a->n > 1) {   /* a histogram: one bucket per event */
      int32_t w = s->hcol[i][(x & 0x7FF) % (uint64_t)a->n];
      if ((uint32_t)w < gn) MI_CELL_PUT(gc + w, gc[w] + 1);
      continue;
    }
    if (a->objcl) { if (a->g >= 0 && clsok && (uint32_t)(a->g + fw) < gn) MI_CELL_PUT(gc + a->g + fw, gc[a->g + fw] + 1); }
    else if (a->wmark) { if ((uint32_t)a->g < gn) { int64_t d = ev_depth(x); if (gc[a->g] < d) MI_CELL_PUT(gc + a->g, d); } }
    else {
      if ((uint32_t)a->g < gn) MI_CELL_PUT(gc + a->g, gc[a->g] + 1);
      if ((uint32_t)a->p < pn) MI_CELL_PUT(pc + a->p, pc[a->p] + 1);
    }
  }
}

/* One operation of a room by p at time at: its events, maybe a semaphore block, maybe a wait.
 * Returns 1 when p now waits. */
int sim_room_op(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int room, int64_t at) {
  sim_room_events(sys, s, pr, room, 7);
  if (room == R_FILE) {
    if (s->lru_depth < LRU_MAX) s->lru_depth++;   /* the file it closes keeps its entry on the LRU list (full: one is reused) */
  }
  if (room == R_FILE && s->cnt) {   /* an open reads the directory and the file label: a control request to the first disc */
    RSET(&s->g0, G_LRU, s->lru_depth);
    RADD(pr, P_DOTHER, 1);
    ROBJ(pr, P_DOTHER_OBJ, 7, 1);
    mi_host_row irow;
    if (IO_ON(s)) RADD(sim_row(s, &irow, MI_DOM_IO, 1), I_CTRL, 1);
  }
  if (room < NSEMROW && rnd(s) < semrows[room].chance) {   /* (semrows[room] is the room's row) */
    int cls = semrows[room].cls[(int)(rnd(s) * 6) % 6], q = 1 + (int)(rnd(s) * 8);
    sem_block_row(s, pr, cls, q);
  }
  double u = rnd(s), acc = 0;
  for (int i = s->wt_lo[room]; i < s->wt_hi[room]; i++) {
    if (waitrows[i].room != room) continue;
    acc += waitrows[i].chance;
    if (u < acc) {
      if (waitrows[i].ms == 0) { stop(sys, s, p, reason_of(waitrows[i].reason), 0); return 0; }
      sim_wait_on(sys, s, p, reason_of(waitrows[i].reason), at, expo(s, sys, waitrows[i].ms) + 1);
      return 1;
    }
  }
  return 0;
}

/* The rooms' operations between two bursts of p: a session spreads its transaction's
 * operations over its I/Os, a job makes a quarter of the rates per burst. 1 when p waits. */
int sim_rooms(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int64_t at) {
  const double rate[4] = {s->w.file_opens, s->w.image_calls, s->w.sql_stmts, s->w.ipc_msgs};
  double per = p->kind == K_USER ? 1.0 / (s->w.txn_ios + 1) : 0.25;
  for (int r = 0; r < 4; r++) {
    for (double x = rate[r] * per; x > 0; x -= 1) {
      if (x < 1 && rnd(s) >= x) break;
      if (sim_room_op(sys, s, p, pr, r, at)) return 1;
    }
  }
  return 0;
}

/* The transaction manager's times of day: the latest log post's end and checkpoint's start
 * (21556, 21573 and the user log's 21607, 21624), ticks since boot. */
void sim_xm_levels(mi_system *sys, sim *s) {
  for (int l = 0; l < 2; l++) {
    int32_t o = 51 * l;
    if (s->xm_last_write[l]) mi_host_set(sys, sim_inst_counter(21556 + o), 0, s->xm_last_write[l] - s->boot);
    if (s->xm_last_ckpt[l]) mi_host_set(sys, sim_inst_counter(21573 + o), 0, s->xm_last_ckpt[l] - s->boot);
  }
}

/* The transaction manager's logs, once a second: the system log (file system, TurboIMAGE) and
 * the user log (SQL) write when their rooms worked in the second, and checkpoint every minute.
 * The two logs' items are 51 apart (21554.., 21605..). */
void sim_xm_second(mi_system *sys, sim *s, int64_t now) {
  int64_t tpm = s->tpm, sec = s->sim_ms / 1000;
  int64_t ops[2] = {s->room_ops[R_FILE] + s->room_ops[R_IMAGE], s->room_ops[R_SQL]};
  for (int l = 0; l < 2; l++) {
    int32_t o = 51 * l;
    if (ops[l] == s->xm_commits[l]) continue;   /* the log was idle this second */
    s->xm_commits[l] = ops[l];
    mi_host_add(sys, sim_inst_counter(21562 + o), 0, 1);                     /* timer pops */
    if (s->xm_last_write[l]) {
      int64_t between = now - s->xm_last_write[l];
      mi_host_add(sys, sim_inst_counter(21554 + o), 0, between);
      mi_host_max(sys, sim_inst_counter(21555 + o), 0, between);
    }
    s->xm_last_write[l] = now;
    mi_host_set(sys, sim_inst_counter(21556 + o), 0, now - s->boot);
    mi_host_max(sys, sim_inst_counter(21559 + o), 0, 1 + ops[l] % 7);          /* pins blocked by one write */
    if (sec % 60 == 0) {   /* a checkpoint: 20-80 ms, one in five blocked by a busy log */
      int64_t dur = (20 + ops[l] % 61) * tpm;
      mi_host_add(sys, sim_inst_counter(21566 + o), 0, 1);
      if (s->xm_last_ckpt[l]) {
        int64_t between = now - s->xm_last_ckpt[l];
        mi_host_add(sys, sim_inst_counter(21567 + o), 0, between);
        if (!s->xm_min_between[l] || between < s->xm_min_between[l]) s->xm_min_between[l] = between;
        mi_host_set(sys, sim_inst_counter(21568 + o), 0, s->xm_min_between[l]);
        mi_host_max(sys, sim_inst_counter(21569 + o), 0, between);
      }
      s->xm_last_ckpt[l] = now;
      mi_host_add(sys, sim_inst_counter(21570 + o), 0, dur);
      if (!s->xm_min_dur[l] || dur < s->xm_min_dur[l]) s->xm_min_dur[l] = dur;
      mi_host_set(sys, sim_inst_counter(21571 + o), 0, s->xm_min_dur[l]);
      mi_host_max(sys, sim_inst_counter(21572 + o), 0, dur);
      mi_host_set(sys, sim_inst_counter(21573 + o), 0, now - s->boot);
      if (sec / 60 % 5 == 1) {
        int64_t blk = dur / 4;
        mi_host_add(sys, sim_inst_counter(21574 + o), 0, 1);
        mi_host_add(sys, sim_inst_counter(21575 + o), 0, blk);
        mi_host_max(sys, sim_inst_counter(21576 + o), 0, blk);
        if (!s->xm_min_blk[l] || blk < s->xm_min_blk[l]) s->xm_min_blk[l] = blk;
        mi_host_set(sys, sim_inst_counter(21577 + o), 0, s->xm_min_blk[l]);
      }
    }
  }
}
