/* sim_work.c — the simulated machine's work: processes born and ended, sessions logging on
 * with transactions between think times at their terminals, batch jobs admitted by the job
 * fence and limits, and the levels the model writes anew when counting starts. */
#include <string.h>
#include "sim_model.h"

/* Writes every level the model keeps: the system's (once a second, and whenever the layout
 * moved) and, with procs, every live process's (when the layout moved: an ON starts its cells
 * at zero, and a level written while nobody counted it was not kept). A level is written whole,
 * never added to, so it reads the same whenever it was enabled. */
void sim_write_levels(mi_system *sys, sim *s, int procs) {
  sim_storage_levels(sys, s);
  mi_host_set(sys, s->c[G_LRU], 0, s->lru_depth);
  sim_loader_levels(sys, s);
  sim_swap_levels(s);
  if (!procs) return;
  /* the layout moved: the levels written on events or each step too */
  sim_pop_levels(sys, s);
  sim_xm_levels(sys, s);
  sim_repair_levels(sys, s);
  mi_host_row irow;
  if (IO_ON(s))
    for (int l = 1; l <= MI_MAX_LDEV; l++)
      if (mi_host_device(sys, l) == 1) RSET(sim_row(s, &irow, MI_DOM_IO, l), I_QCUR, s->disk_out[l]);   /* the discs' queues */
  for (int k = 0; k < NREASON; k++) blk_changed(s, k);
  sim_levels(sys, s, s->nrdy);
  for (int i = 0, hi = mi_host_proc_hi(sys); i < hi; i++)
    if (s->p[i].state != S_FREE) sim_proc_levels(sys, s, &s->p[i]);
}

/* Creates a model process; returns its index or -1. */
int sim_spawn(mi_system *sys, sim *s, int kind, const char *prog, const char *user, int js_type, int js) {
  mi_proc_desc d = {0};
  d.pid = ++s->next_pid;
  d.program = prog; d.program_group = "PUB"; d.program_account = kind == K_SYS || kind == K_JSMAIN ? "SYS" : "PROD";
  d.user = user; d.user_group = "PUB"; d.account = kind == K_SYS || kind == K_JSMAIN ? "SYS" : "PROD";
  d.js_type = js_type; d.js_num = js;
  d.proc_type = kind == K_SYS ? MI_PT_SYSTEM : kind == K_JSMAIN ? MI_PT_JSMAIN : kind == K_CI ? MI_PT_CI : MI_PT_USER;
  int slot = mi_host_proc_create(sys, &d);
  if (slot < 0) return -1;
  sproc *p = &s->p[slot];
  memset(p, 0, sizeof *p);
  p->slot = slot; p->kind = kind; p->js = js;
  p->queue = kind == K_JOB ? Q_DS : kind == K_SYS ? Q_BS : Q_CS;
  p->cm = kind == K_USER && rnd(s) < 0.2;
  int64_t now = mi_host_now(sys);
  p->ready_since = now;
  if (kind == K_USER) { p->think_start = now; p->wake = now + think(s, sys, s->w.think_ms); p->term = s->next_term; }
  if (kind == K_JOB) { p->work_left = expo(s, sys, s->w.job_ms); p->burst = expo(s, sys, s->w.job_cpu_ms); }
  p->cpu = slot % mi_host_cpus(sys);
  sim_set_state(s, p, kind == K_USER ? S_THINK : kind == K_JOB ? S_READY : S_IDLE);
  p->swap_room = sim_swap_room_of(p);
  sim_storage(sys, s, p, 1);
  if (kind == K_CI) stop(sys, s, p, K_CHILD, 0);   /* the CI waits for its program from now on */
  if (kind == K_USER || kind == K_JOB) {   /* the loader maps its program and the system XL */
    ADD(sys, s, G_PGM_ALLOC, 0, 1); ADD(sys, s, G_LIB_ALLOC, 0, 1);
    sim_loader_levels(sys, s);
  }
  return slot;
}

/* Logs sessions and jobs on (limits, fence) and counts them in 3003/3005. */
void sim_logon(mi_system *sys, sim *s) {
  /* one census of the live processes: sessions and jobs (the populations of 21319-21322 and
   * the memory in use follow from the counts by kind: pop_levels) */
  int sessions = s->npop[K_USER], jobs = s->npop[K_JOB];
  int32_t w = s->rscol[K_CHILD][RS_P_TIME];
  if (w >= 0)   /* each CI counts another second */
    for (int i = 0, hi = mi_host_proc_hi(sys); i < hi; i++)
      if (s->p[i].state != S_FREE && s->p[i].kind == K_CI) { mi_host_row pr; mi_host_row_addw(sim_row(s, &pr, MI_DOM_PROCESS, i), w, 1000 * s->tpm); }
  /* at most 50 logons a second: a large workload ramps up, and limits PUT meanwhile hold */
  int budget = 50;
  while (sessions < s->w.sessions && sessions < CFG(sys, 3004) && budget-- > 0) {
    int num = CFG(sys, 3007);
    mi_host_config_set(sys, 3007, num % 16383 + 1);
    int terms = s->w.terminals < 1 ? 1 : s->w.terminals > 20 ? 20 : s->w.terminals; /* LDEVs 20-39 */
    s->next_term = 20 + sessions % terms;
    if (sim_spawn(sys, s, K_CI, "CI", "USER", 1, num) < 0) break;
    if (sim_spawn(sys, s, K_USER, sessions % 3 ? "ORDERS" : "QUERY", "USER", 1, num) < 0) break;
    sessions++;
  }
  /* a job with INPRI 8 logs on while 8 > the job fence and the job limit allows */
  while (jobs < s->w.jobs && jobs < CFG(sys, 3002) && 8 > CFG(sys, 3001)) {
    int num = CFG(sys, 3006);
    mi_host_config_set(sys, 3006, num % 16383 + 1);
    int sl = sim_spawn(sys, s, K_JOB, jobs % 2 ? "BILLING" : "REPORTS", "BATCH", 2, num);
    if (sl < 0) break;
    s->p[sl].unit = jobs % 2 ? UNIT_TAPE : UNIT_PRINTER;
    if (jobs % 4 == 3) { s->p[sl].queue = Q_ES; s->nq[Q_DS]--; s->nq[Q_ES]++; }   /* every fourth job runs in ES */
    jobs++;
  }
  mi_host_config_set(sys, 3003, jobs);
  mi_host_config_set(sys, 3005, sessions);
  int64_t used = sim_pop_levels(sys, s), mem = s->w.memory_pages;
  s->pressure = (double)used / (double)(mem > 0 ? mem : 1);
}

/* Ends a job: its process dies. */
void sim_end_proc(mi_system *sys, sim *s, sproc *p) {
  sim_storage(sys, s, p, -1);
  if (p->swap_pg) {   /* its replaceable pages leave memory with it */
    s->swap_cur[p->cm] -= p->swap_pg;
    p->swap_pg = 0;
    sim_swap_levels(s);
  }
  mi_host_proc_exit(sys, p->slot);
  sim_set_state(s, p, S_FREE);
  if (p->kind == K_JOB) mi_host_config_set(sys, 3003, s->npop[K_JOB]);   /* JOB COUNT: the job logged off */
  sim_pop_levels(sys, s);
  ADD(sys, s, G_COMPL, 0, 1);
  ADD(sys, s, C_COMPL, p->cpu, 1);   /* 27015: a process terminated, on the CPU that ran it last */
}

/* Counts a value into a histogram of 10 counters by upper bounds in ms. */
static void histo(mi_system *sys, sim *s, int base, const int *bounds, int64_t ticks) {
  mi_host_row *gr = &s->g0;
  (void)sys;
  if (!s->cnt) return;   /* ADD's own test */
  int b = 0;   /* the bounds (ms, ascending) the time reaches, counted without a division or a branch */
  for (int k = 0; k < 9; k++) b += ticks >= bounds[k] * s->tpm;
  RADD(gr, base + b, 1);
}

static const int resp_bounds[9] = {500, 1000, 1500, 2000, 3000, 4000, 5000, 10000, 20000};
static const int think_bounds[9] = {1000, 2000, 3000, 4000, 5000, 10000, 20000, 30000, 40000};

/* A session's terminal read completes: its think time is counted and a transaction starts. */
void sim_terminal_read(mi_system *sys, sim *s, sproc *p, int64_t now) {
  int64_t think = now - p->think_start;
  histo(sys, s, G_THINK, think_bounds, think);
  if (think < 100 * s->tpm) ADD(sys, s, G_THINK_UNDER, 0, 1);   /* under 21030's 100 ms */
  /* p's row and its terminal's, opened once (p's only when one of its words here is counted:
   * a row opened is marked changed) */
  const int32_t *w = s->rscol[K_TERM_READ], *c = s->col;
  int pon = (w[RS_P_STOP] & w[RS_P_TIME] & c[P_THINK_T] & c[P_TERM_READS] & c[P_TRD_SZ] & c[P_TIMED_C] & c[P_TIMED_T]
             & c[P_LTRD] & c[P_TREAD]) >= 0;
  mi_host_row prw, *pr = sim_row(s, &prw, pon ? MI_DOM_PROCESS : MI_DOM_COUNT, p->slot);
  mi_host_row irw, *ir = sim_row(s, &irw, MI_DOM_IO, p->term);
  RADD(pr, P_THINK_T, think);
  stop_row(s, pr, p->cpu, K_TERM_READ, think);
  RADD(pr, P_TERM_READS, 1);
  int64_t rd_bytes = 8 + (int64_t)(72 * rnd(s));   /* drawn whether counted or not: the model's stream */
  RADD(pr, P_TRD_SZ, rd_bytes);
  sim_term_io(s, p, 0, rd_bytes);
  if (rnd(s) < 0.05) {   /* the read's timer popped: the user typed nothing */
    RADD(pr, P_TIMED_C, 1); RADD(pr, P_TIMED_T, think);
    RADD(ir, I_TIMED_C, 1); RADD(ir, I_TIMED_T, think);
  }
  RADD(pr, P_LTRD, 1);
  RADD(pr, P_TREAD, 1);
  RADD(ir, I_TTHINK, think);
  RADD(ir, I_TREADS, 1);
  p->txn_start = now;
  p->first_done = 0;
  p->ios_left = (int)(s->w.txn_ios * 2 * rnd(s) + 0.5);
  p->burst = expo(s, sys, s->w.txn_cpu_ms / (p->ios_left + 1)) + 1;
  sim_set_pri(s, p, QBASE(s, p->queue));
  p->quantum_used = 0;
}

/* A burst is done at time at: the first response, then the next I/O, a system process's sleep,
 * a session's response and think, or a job's end. p was launched last: while the step counts,
 * its launch opened its row (s->lrow). */
void sim_burst_done(mi_system *sys, sim *s, sproc *p, int cpu, int64_t now, int64_t len, int64_t *budget) {
  mi_host_row *cr = &s->crow[(cpu) & 7];
  mi_host_row prw, *pr = s->cnt ? &s->lrow : sim_row(s, &prw, MI_DOM_PROCESS, p->slot);
  int64_t tpm = s->tpm;
  if (p->kind == K_USER && !p->first_done) {
    p->first_done = 1;
    int64_t first = now + (len - *budget) - p->txn_start;
    histo(sys, s, G_FIRST, resp_bounds, first);
    if (s->cnt) {
      RADD(pr, P_FIRST_T, first);
      ADD(sys, s, I_FIRST_T, p->term, first);
      RADD(pr, P_LTWT, 1); RADD(pr, P_TWRITE, 1);
    }
  }
  if ((p->kind == K_USER && p->ios_left > 0) || (p->kind == K_JOB && p->work_left > 0)) {
    if (p->after_wait) p->after_wait = 0;   /* back from a room's wait: on to the I/O */
    else {
      int waits;
      int64_t mm = sim_faults(sys, s, p, pr, cpu, now + (len - *budget), &waits);
      if (mm > *budget) mm = *budget;
      *budget -= mm;
      s->sg[SG_FETCH_T] += mm; if (CPU_ON(s)) RADD(cr, C_FETCH_T, mm);
      if (waits || sim_rooms(sys, s, p, pr, now + (len - *budget))) return;
    }
    if (p->kind == K_USER) { p->ios_left--; p->burst = expo(s, sys, s->w.txn_cpu_ms / (p->ios_left + 2)) + 1; }
    else p->burst = expo(s, sys, s->w.job_cpu_ms) + 1;
    /* one job I/O in ten goes to the job's own device: REPORTS prints, BILLING reads tape */
    int dev = p->kind == K_JOB && p->unit && rnd(s) < 0.1 ? p->unit : 0;
    sim_issue_io(sys, s, p, pr, now + (len - *budget), cpu, dev, dev == UNIT_PRINTER || (dev && p->work_left % 3 == 0));
  } else if (p->kind == K_SYS) {
    if (p->after_wait) p->after_wait = 0;
    else if (sim_room_op(sys, s, p, pr, R_SYS, now + (len - *budget))) return;   /* its duty waits */
    /* duties every 0.5-1.5 s; SYSMAIN's every 2-5 s (a long pause) */
    double pause_ms = p->sysno == 6 ? 2000 + 3000 * rnd(s) : 500 + 1000 * rnd(s);
    p->wake = now + (len - *budget) + (int64_t)(pause_ms * tpm);
    p->short_sleep = pause_ms <= 1000;
    p->long_sleep = pause_ms >= 2000;
    stop_row(s, pr, p->cpu, p->long_sleep ? K_LONG_PAUSE : K_TIMER, p->wake - now - (len - *budget));
    sim_set_state(s, p, S_SLEEP);
  } else if (p->kind == K_USER) {
    int64_t resp = now + (len - *budget) - p->txn_start;
    histo(sys, s, G_RESP, resp_bounds, resp);
    if (s->cnt) { RADD(pr, P_RESP_T, resp); ADD(sys, s, I_TRESP, p->term, resp); }
    double cpu_ms = (double)p->txn_cpu / (double)tpm;
    s->cs_avg_ms = s->cs_avg_ms > 0 ? 0.95 * s->cs_avg_ms + 0.05 * cpu_ms : cpu_ms;
    p->txn_cpu = 0;
    /* the reply goes to the terminal: a write of 200-1,800 bytes, the room's rare waits */
    stop_row(s, pr, p->cpu, K_TERM_WRITE, tpm * 2);
    int64_t wt_bytes = 200 + (int64_t)(1600 * rnd(s));
    RADD(pr, P_TWT_SZ, wt_bytes);
    sim_term_io(s, p, 1, wt_bytes);
    sim_room_events(sys, s, pr, R_TERM, 7);
    if (rnd(s) < 0.01) { stop_row(s, pr, p->cpu, reason_of(25071), tpm * 50); RADD(pr, P_TERM_OTHER, 1); }
    else if (rnd(s) < 0.002) stop_row(s, pr, p->cpu, reason_of(25079), tpm * 200);
    s->txns++;
    p->think_start = now + (len - *budget);
    p->wake = p->think_start + think(s, sys, s->w.think_ms);
    sim_set_state(s, p, S_THINK);
  } else {
    sim_end_proc(sys, s, p);
  }
}
