/* sim.c — the simulated HP 3000. A deterministic, step-driven model (10 ms steps of
 * virtual time): CPUs dispatching the CS/DS/ES queues with the tunable bases, limits
 * and quanta of items 3023-3032, sessions with think/CPU/disk transactions on
 * terminals, batch jobs admitted by the job fence and limits, disks with queues,
 * page faults and semaphore blocks by class. Everything goes through mi_host.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_internal.h"
#include "mi_sim.h"

#define STEP_MS 10
#define MAXP MI_MAX_PROCESSES

static const mi_workload builtins[] = {
  {"idle",   1, 2, 8,    2,  0, 60000, 5, 1, 0, 0, 12, 0.05, 65536, 1},
  {"oltp",   2, 4, 40,  32,  2, 8000, 40, 6, 30, 120000, 12, 0.3, 131072, 42},
  {"batch",  4, 6, 16,   8, 12, 15000, 30, 4, 80, 300000, 10, 0.2, 262144, 7},
  {"memory", 2, 4, 40,  40,  4, 6000, 35, 5, 40, 200000, 12, 4.0, 16384, 11},
  {"disk",   2, 3, 40,  30,  6, 5000, 15, 25, 10, 200000, 25, 0.3, 131072, 5},
};
#define NBUILTIN ((int)(sizeof builtins / sizeof builtins[0]))

const mi_workload *mi_workload_builtin(const char *name) {
  for (int i = 0; name && i < NBUILTIN; i++)
    if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
  return NULL;
}

const char *mi_workload_name(int i) { return i >= 0 && i < NBUILTIN ? builtins[i].name : NULL; }

enum { K_SYS, K_JSMAIN, K_CI, K_USER, K_JOB };
enum { S_FREE, S_THINK, S_READY, S_IO, S_IDLE };
enum { Q_AS, Q_BS, Q_CS, Q_DS, Q_ES };

typedef struct sproc {
  int slot, kind, state, queue, term, cm, js;
  int32_t pri;
  int64_t wake, burst, quantum_used, ready_since, txn_start, think_start, work_left;
  int ios_left, first_done, disk, ran;
} sproc;

/* Counter handles by role; resolved once from item numbers. */
enum {
  G_PAUSES, G_PAUSED, G_IDLE_T, G_IDLE_C, G_FETCH_T, G_SWAPIN_T, G_TOS_T, G_DISP_T, G_Q_T, /* +5 */
  G_Q_C = G_Q_T + 5, G_CUR_Q = G_Q_C + 5, G_CM_T = G_CUR_Q + 5, G_SW2CM, G_SW2NM, G_RESP, G_FIRST = G_RESP + 10,
  G_THINK = G_FIRST + 10, G_MINTH = G_THINK + 10, G_MAXTH, G_CUM_RQ, G_CUR_RQ, G_MAX_RQ, G_BLK_TRM, G_BLK_DISC,
  G_STOP_DISC, G_STOP_TRM, G_STOP_QX, G_STOP_PF, G_PF = G_STOP_PF + 7, G_PF_LEN, G_CLOCK, G_PRESS, G_COMPL,
  G_CUR_CI, G_CUR_SYS, G_CUR_USER, G_FREE_MEM, G_LAUNCH_STOP_PRI,
  P_TIME, P_READY, P_LAUNCH, P_PRI, P_STOP_TRM, P_STOP_TRM_T, P_STOP_DISC, P_STOP_DISC_T, P_STOP_QX, P_DREAD, P_DWRITE,
  P_DREAD_SZ, P_DWRITE_SZ, P_TREAD, P_TWRITE, P_LTRD, P_LTWT, P_RESP_T, P_FIRST_T, P_THINK_T, P_TERM_READS, P_CM_T,
  P_SW2CM, P_PF, P_DREAD_OBJ, P_DWRITE_OBJ, P_STOP_PF,
  I_LRD, I_LWT, I_RD_SZ, I_WT_SZ, I_COMPL, I_WT_RTT, I_RD_RTT, I_QD, I_QMAX = I_QD + 8, I_QCUR, I_QCUM, I_RDX, I_WTX,
  I_QDELAY, I_SERVICE, I_COMPLETED, I_CRD, I_CWR, I_RD_OBJ, I_WT_OBJ, I_TRESP, I_TTHINK, I_TREADS,
  C_IDLE_C, C_IDLE_T, C_FETCH_C, C_FETCH_T, C_DISP_C, C_DISP_T, C_EXT_ICS, C_LAUNCH, C_INTR, C_Q_C, C_Q_T = C_Q_C + 5,
  C_CM_T = C_Q_T + 5, C_STOP_DISC, C_STOP_TRM, C_STOP_QX, NCTR
};

typedef struct sim {
  mi_workload w;
  uint64_t rng;
  int64_t sim_ms, t0_wall;
  int realtime;
  sproc p[MAXP];
  int ncpu, nsessions, njobs, next_term;
  int64_t disk_busy[MI_MAX_LDEV + 1];
  int disk_out[MI_MAX_LDEV + 1];
  int64_t txns, last_logon;
  /* resolved counters */
  mi_ctr c[NCTR];
  int64_t next_pid;
} sim;

/* Item number of each role above, in order; runs of related items are expanded. */
static void resolve(sim *s) {
  int32_t map[NCTR];
  int k = 0;
#define ONE(x) map[k++] = (x)
#define RUN(first, n) for (int i_ = 0; i_ < (n); i_++) map[k++] = (first) + i_
  ONE(21164); ONE(21176); ONE(21177); ONE(21165); ONE(21178); ONE(21179); ONE(21180); ONE(21181);
  RUN(21182, 5); RUN(21170, 5); RUN(21159, 5); ONE(21317); ONE(21314); ONE(21313);
  RUN(21000, 10); RUN(21010, 10); RUN(21020, 10); ONE(21030); ONE(21031); ONE(21091); ONE(21092); ONE(21093);
  ONE(21110); ONE(21112); ONE(21196); ONE(21197); ONE(21203);
  ONE(21187); ONE(21188); ONE(21189); ONE(21190); ONE(21191); ONE(21192); ONE(21193);
  ONE(21254); ONE(21255); ONE(21306); ONE(21307); ONE(21318); ONE(21320); ONE(21319); ONE(21322); ONE(21309); ONE(21233);
  ONE(25047); ONE(25048); ONE(25049); ONE(25050); ONE(25058); ONE(25114); ONE(25060); ONE(25116); ONE(25066);
  ONE(25167); ONE(25168); ONE(25169); ONE(25170); ONE(25172); ONE(25173); ONE(25163); ONE(25164); ONE(25190);
  ONE(25191); ONE(25192); ONE(25195); ONE(25199); ONE(25197); ONE(25202); ONE(25243); ONE(25244); ONE(25051);
  ONE(23000); ONE(23001); ONE(23002); ONE(23003); ONE(23022); ONE(23023); ONE(23024); RUN(23025, 8); ONE(23033);
  ONE(23034); ONE(23035); ONE(23040); ONE(23041); ONE(23044); ONE(23045); ONE(23046); ONE(23048); ONE(23049);
  ONE(23050); ONE(23051); ONE(23054); ONE(23056); ONE(23059);
  ONE(27000); ONE(27006); ONE(27002); ONE(27008); ONE(27005); ONE(27011); ONE(27012); ONE(27013); ONE(27014);
  RUN(27016, 5); RUN(27021, 5); ONE(27026); ONE(27036); ONE(27034); ONE(27042);
#undef ONE
#undef RUN
  for (int i = 0; i < k && i < NCTR; i++) s->c[i] = mi_host_counter(map[i]);
  if (k != NCTR) abort();  /* the role list and the item list must match */
}

/* xorshift64*: the model's only source of randomness. */
static double rnd(sim *s) {
  s->rng ^= s->rng >> 12; s->rng ^= s->rng << 25; s->rng ^= s->rng >> 27;
  return (double)((s->rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* An exponential sample with this mean, in ticks of the system. */
static int64_t expo(sim *s, mi_system *sys, double mean_ms) {
  double u = rnd(s);
  return (int64_t)(-log(1.0 - u) * mean_ms * mi_host_ticks_per_ms(sys));
}

static sim *of(mi_system *sys) { return (sim *)mi_system_source(sys); }

#define ADD(sys, s, role, e, v) mi_host_add((sys), (s)->c[role], (e), (v))
#define CFG(sys, item) mi_host_config((sys), (item))

/* Creates a model process; returns its index or -1. */
static int spawn(mi_system *sys, sim *s, int kind, const char *prog, const char *user, int js_type, int js) {
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
  p->state = kind == K_USER ? S_THINK : kind == K_JOB ? S_READY : S_IDLE;
  p->queue = kind == K_JOB ? Q_DS : kind == K_SYS ? Q_BS : Q_CS;
  p->cm = kind == K_USER && rnd(s) < 0.2;
  int64_t now = mi_host_now(sys);
  p->ready_since = now;
  if (kind == K_USER) { p->think_start = now; p->wake = now + expo(s, sys, s->w.think_ms); p->term = s->next_term; }
  if (kind == K_JOB) { p->work_left = expo(s, sys, s->w.job_ms); p->burst = expo(s, sys, s->w.job_cpu_ms); }
  return slot;
}

/* Priority base of a queue (items 3019-3028 by queue). */
static int32_t qbase(mi_system *sys, int q) { return CFG(sys, 3019 + 2 * q); }
static int32_t qlimit(mi_system *sys, int q) { return CFG(sys, 3020 + 2 * q); }

/* Quantum in ticks of a queue (3029 CS max, 3031 DS, 3032 ES; others unlimited). */
static int64_t quantum(mi_system *sys, int q) {
  int32_t ms = q == Q_CS ? CFG(sys, 3029) : q == Q_DS ? CFG(sys, 3031) : q == Q_ES ? CFG(sys, 3032) : 1000000;
  return (int64_t)ms * mi_host_ticks_per_ms(sys);
}

/* Logs sessions and jobs on (limits, fence) and counts them in 3003/3005. */
static void logon(mi_system *sys, sim *s) {
  int sessions = 0, jobs = 0;
  for (int i = 0; i < MAXP; i++)
    if (s->p[i].state != S_FREE && s->p[i].kind == K_USER) sessions++;
    else if (s->p[i].state != S_FREE && s->p[i].kind == K_JOB) jobs++;
  while (sessions < s->w.sessions && sessions < CFG(sys, 3004)) {
    int num = CFG(sys, 3007);
    mi_host_config_set(sys, 3007, num % 16383 + 1);
    int terms = s->w.terminals < 1 ? 1 : s->w.terminals > 20 ? 20 : s->w.terminals; /* LDEVs 20-39 */
    s->next_term = 20 + sessions % terms;
    if (spawn(sys, s, K_CI, "CI", "USER", 1, num) < 0) break;
    if (spawn(sys, s, K_USER, sessions % 3 ? "ORDERS" : "QUERY", "USER", 1, num) < 0) break;
    sessions++;
  }
  /* a job with INPRI 8 logs on while 8 > the job fence and the job limit allows */
  while (jobs < s->w.jobs && jobs < CFG(sys, 3002) && 8 > CFG(sys, 3001)) {
    int num = CFG(sys, 3006);
    mi_host_config_set(sys, 3006, num % 16383 + 1);
    if (spawn(sys, s, K_JOB, jobs % 2 ? "BILLING" : "REPORTS", "BATCH", 2, num) < 0) break;
    jobs++;
  }
  mi_host_config_set(sys, 3003, jobs);
  mi_host_config_set(sys, 3005, sessions);
}

/* Ends a job: its process dies. */
static void end_proc(mi_system *sys, sim *s, sproc *p) {
  mi_host_proc_exit(sys, p->slot);
  p->state = S_FREE;
  ADD(sys, s, G_COMPL, 0, 1);
}

/* Counts a value into a histogram of 10 counters by upper bounds in ms. */
static void histo(mi_system *sys, sim *s, int base, const int *bounds, int64_t ticks) {
  int64_t ms = ticks / mi_host_ticks_per_ms(sys);
  int b = 0;
  while (b < 9 && ms >= bounds[b]) b++;
  ADD(sys, s, base + b, 0, 1);
}

static const int resp_bounds[9] = {500, 1000, 1500, 2000, 3000, 4000, 5000, 10000, 20000};
static const int think_bounds[9] = {1000, 2000, 3000, 4000, 5000, 10000, 20000, 30000, 40000};
static const int io_classes[6] = {7, 650, 695, 4, 2, 0};
static const int pf_classes[7][2] = {{4, 0}, {2, 1}, {0, 2}, {7, 3}, {5, 4}, {3, 5}, {6, 6}};

/* A process issues a disk I/O: device, process and global counters, then waits. */
static void issue_io(mi_system *sys, sim *s, sproc *p, int64_t now, int cpu) {
  int disks = s->w.disks > 0 ? s->w.disks : 1;
  int ldev = 1 + (int)(rnd(s) * disks) % disks;
  int write = rnd(s) < 0.3;
  int cls = io_classes[(int)(rnd(s) * 6) % 6];
  int32_t bytes = 1024 * (1 + (int)(rnd(s) * 8));
  int64_t start = s->disk_busy[ldev] > now ? s->disk_busy[ldev] : now;
  int64_t service = expo(s, sys, s->w.disk_ms) + 1;
  int64_t done = start + service;
  int depth = s->disk_out[ldev]++;
  s->disk_busy[ldev] = done;
  ADD(sys, s, write ? I_LWT : I_LRD, ldev, 1);
  ADD(sys, s, write ? I_WT_SZ : I_RD_SZ, ldev, bytes);
  ADD(sys, s, write ? I_WTX : I_RDX, ldev, bytes);
  ADD(sys, s, I_COMPL, ldev, 1);
  ADD(sys, s, I_COMPLETED, ldev, 1);
  ADD(sys, s, write ? I_CWR : I_CRD, ldev, 1);
  ADD(sys, s, write ? I_WT_RTT : I_RD_RTT, ldev, done - now);
  ADD(sys, s, I_QDELAY, ldev, start - now);
  ADD(sys, s, I_SERVICE, ldev, service);
  ADD(sys, s, I_QD + (depth == 0 ? 0 : depth == 1 ? 1 : depth == 2 ? 2 : depth <= 4 ? 3 : depth <= 8 ? 4 : depth <= 16 ? 5 : depth <= 32 ? 6 : 7), ldev, 1);
  mi_host_max(sys, s->c[I_QMAX], ldev, depth + 1);
  mi_host_set(sys, s->c[I_QCUR], ldev, s->disk_out[ldev]);
  ADD(sys, s, I_QCUM, ldev, depth + 1);
  mi_host_add_objcl(sys, s->c[write ? I_WT_OBJ : I_RD_OBJ], ldev, cls, 1);
  ADD(sys, s, write ? P_DWRITE : P_DREAD, p->slot, 1);
  ADD(sys, s, write ? P_DWRITE_SZ : P_DREAD_SZ, p->slot, bytes);
  mi_host_add_objcl(sys, s->c[write ? P_DWRITE_OBJ : P_DREAD_OBJ], p->slot, cls, 1);
  ADD(sys, s, P_STOP_DISC, p->slot, 1);
  ADD(sys, s, P_STOP_DISC_T, p->slot, done - now);
  ADD(sys, s, G_STOP_DISC, 0, 1);
  ADD(sys, s, C_STOP_DISC, cpu, 1);
  /* a file-system semaphore now and then, queue length from the disk queue */
  if (rnd(s) < 0.2) {
    static const int sem[4] = {19, 20, 23, 59};
    int cls_s = sem[(int)(rnd(s) * 4) % 4];
    mi_host_sem_block(sys, MI_DOM_GLOBAL, 0, cls_s, depth + 1);
    mi_host_sem_block(sys, MI_DOM_PROCESS, p->slot, cls_s, depth + 1);
  }
  p->disk = ldev;
  p->state = S_IO;
  p->wake = done;
}

/* Page faults that accompany an I/O under memory pressure; returns memory-manager ticks. */
static int64_t faults(mi_system *sys, sim *s, sproc *p, int cpu) {
  int64_t n = 0, t = 0;
  double f = s->w.faults_per_io;
  while (f > 0) { if (rnd(s) < f) n++; f -= 1.0; }
  for (int64_t i = 0; i < n; i++) {
    int k = (int)(rnd(s) * 7) % 7;
    mi_host_add_objcl(sys, s->c[G_PF], 0, pf_classes[k][0], 1);
    mi_host_add_objcl(sys, s->c[G_PF_LEN], 0, pf_classes[k][0], 2);
    mi_host_add_objcl(sys, s->c[P_PF], p->slot, pf_classes[k][0], 1);
    ADD(sys, s, G_STOP_PF + pf_classes[k][1], 0, 1);
    ADD(sys, s, P_STOP_PF, p->slot, k == 0);
    ADD(sys, s, C_FETCH_C, cpu, 1);
    ADD(sys, s, G_CLOCK, 0, 1);
    t += mi_host_ticks_per_ms(sys) / 5;   /* 0.2 ms of memory manager per fault */
  }
  if (n) ADD(sys, s, G_PRESS, 0, n > 1);
  return t;
}

/* Picks the ready process of highest priority not yet run in this step; -1 if none. */
static int pick(sim *s, const int *ready, int n) {
  int best = -1;
  for (int k = 0; k < n; k++) {
    int i = ready[k];
    sproc *p = &s->p[i];
    if (p->state == S_READY && !p->ran && (best < 0 || p->pri > s->p[best].pri)) best = i;
  }
  return best;
}

/* Runs one step of ms (1-10) milliseconds of the model. */
static void step(mi_system *sys, sim *s, int64_t ms) {
  int64_t tpm = mi_host_ticks_per_ms(sys), len = ms * tpm, now = mi_host_now(sys);
  int ncpu = mi_host_cpus(sys);
  if (now - s->last_logon >= 1000 * tpm) { logon(sys, s); s->last_logon = now; }
  /* wake-ups */
  int interrupts = 0, nio = 0, nready = 0, nthink = 0, nq[5] = {0};
  static _Thread_local int ready[MAXP];
  for (int i = 0; i < sys->proc_hi; i++) {
    sproc *p = &s->p[i];
    p->ran = 0;
    if ((p->state == S_THINK || p->state == S_IO) && p->wake <= now) {
      if (p->state == S_IO) { s->disk_out[p->disk]--; mi_host_set(sys, s->c[I_QCUR], p->disk, s->disk_out[p->disk]); interrupts++; }
      else {
        int64_t think = now - p->think_start;
        histo(sys, s, G_THINK, think_bounds, think);
        ADD(sys, s, P_THINK_T, p->slot, think);
        ADD(sys, s, P_STOP_TRM, p->slot, 1);
        ADD(sys, s, P_STOP_TRM_T, p->slot, think);
        ADD(sys, s, G_STOP_TRM, 0, 1);
        ADD(sys, s, P_TERM_READS, p->slot, 1);
        ADD(sys, s, P_LTRD, p->slot, 1);
        ADD(sys, s, P_TREAD, p->slot, 1);
        ADD(sys, s, I_TTHINK, p->term, think);
        ADD(sys, s, I_TREADS, p->term, 1);
        p->txn_start = now;
        p->first_done = 0;
        p->ios_left = (int)(s->w.txn_ios * 2 * rnd(s) + 0.5);
        p->burst = expo(s, sys, s->w.txn_cpu_ms / (p->ios_left + 1)) + 1;
        p->pri = qbase(sys, p->queue);
        p->quantum_used = 0;
      }
      p->state = S_READY;
      p->ready_since = now;
    }
    if (p->state == S_READY) { ready[nready++] = i; nq[p->queue]++; }
    else if (p->state == S_IO) nio++;
    else if (p->state == S_THINK) nthink++;
  }
  ADD(sys, s, G_CUM_RQ, 0, nready);
  mi_host_set(sys, s->c[G_CUR_RQ], 0, nready);
  mi_host_max(sys, s->c[G_MAX_RQ], 0, nready);
  mi_host_set(sys, s->c[G_BLK_DISC], 0, nio);
  mi_host_set(sys, s->c[G_BLK_TRM], 0, nthink);
  for (int q = 0; q < 5; q++) mi_host_set(sys, s->c[G_CUR_Q + q], 0, nq[q]);
  /* CPUs */
  for (int cpu = 0; cpu < ncpu; cpu++) {
    int64_t budget = len;
    int64_t ics = (interrupts / ncpu + (cpu < interrupts % ncpu)) * (tpm * 3 / 100);   /* 30 us each */
    if (ics > budget) ics = budget;
    budget -= ics;
    ADD(sys, s, C_EXT_ICS, cpu, ics);
    ADD(sys, s, C_INTR, cpu, interrupts / ncpu + (cpu < interrupts % ncpu));
    for (int idx; budget > 0 && (idx = pick(s, ready, nready)) >= 0;) {
      sproc *p = &s->p[idx];
      p->ran = 1;
      int64_t disp = tpm / 20 < budget ? tpm / 20 : budget;   /* 50 us to launch */
      budget -= disp;
      ADD(sys, s, G_DISP_T, 0, disp); ADD(sys, s, C_DISP_T, cpu, disp); ADD(sys, s, C_DISP_C, cpu, 1);
      ADD(sys, s, C_LAUNCH, cpu, 1); ADD(sys, s, P_LAUNCH, p->slot, 1);
      ADD(sys, s, P_READY, p->slot, now - p->ready_since);
      int64_t qleft = quantum(sys, p->queue) - p->quantum_used;
      int64_t run = p->burst < budget ? p->burst : budget;
      if (run > qleft) run = qleft > 0 ? qleft : 0;
      budget -= run; p->burst -= run; p->quantum_used += run;
      ADD(sys, s, G_Q_T + p->queue, 0, run); ADD(sys, s, C_Q_T + p->queue, cpu, run);
      ADD(sys, s, G_Q_C + p->queue, 0, 1); ADD(sys, s, C_Q_C + p->queue, cpu, 1);
      ADD(sys, s, P_TIME, p->slot, run);
      mi_host_set(sys, s->c[P_PRI], p->slot, p->pri);
      if (p->cm) { ADD(sys, s, G_CM_T, 0, run); ADD(sys, s, C_CM_T, cpu, run); ADD(sys, s, P_CM_T, p->slot, run);
                   ADD(sys, s, G_SW2CM, 0, 1); ADD(sys, s, P_SW2CM, p->slot, 1); ADD(sys, s, G_SW2NM, 0, 1); }
      if (p->kind == K_JOB) p->work_left -= run;
      if (p->burst > 0) {
        if (p->quantum_used >= quantum(sys, p->queue)) {   /* quantum expired: decay toward the limit */
          p->quantum_used = 0;
          p->pri -= 128;
          if (p->pri < qlimit(sys, p->queue)) p->pri = qlimit(sys, p->queue);
          ADD(sys, s, P_STOP_QX, p->slot, 1); ADD(sys, s, G_STOP_QX, 0, 1); ADD(sys, s, C_STOP_QX, cpu, 1);
        }
        p->ready_since = now;
        continue;
      }
      /* burst done */
      if (p->kind == K_USER && !p->first_done) {
        p->first_done = 1;
        int64_t first = now + (len - budget) - p->txn_start;
        histo(sys, s, G_FIRST, resp_bounds, first);
        ADD(sys, s, P_FIRST_T, p->slot, first);
        ADD(sys, s, P_LTWT, p->slot, 1); ADD(sys, s, P_TWRITE, p->slot, 1);
      }
      if ((p->kind == K_USER && p->ios_left > 0) || (p->kind == K_JOB && p->work_left > 0)) {
        int64_t mm = faults(sys, s, p, cpu);
        if (mm > budget) mm = budget;
        budget -= mm;
        ADD(sys, s, G_FETCH_T, 0, mm); ADD(sys, s, C_FETCH_T, cpu, mm);
        if (p->kind == K_USER) { p->ios_left--; p->burst = expo(s, sys, s->w.txn_cpu_ms / (p->ios_left + 2)) + 1; }
        else p->burst = expo(s, sys, s->w.job_cpu_ms) + 1;
        issue_io(sys, s, p, now + (len - budget), cpu);
      } else if (p->kind == K_USER) {
        int64_t resp = now + (len - budget) - p->txn_start;
        histo(sys, s, G_RESP, resp_bounds, resp);
        ADD(sys, s, P_RESP_T, p->slot, resp);
        ADD(sys, s, I_TRESP, p->term, resp);
        s->txns++;
        p->state = S_THINK;
        p->think_start = now + (len - budget);
        p->wake = p->think_start + expo(s, sys, s->w.think_ms);
      } else {
        end_proc(sys, s, p);
      }
    }
    /* what is left is paused (a process waits on disk) or idle */
    if (budget > 0) {
      ADD(sys, s, C_IDLE_T, cpu, budget); ADD(sys, s, C_IDLE_C, cpu, 1);
      if (nio) { ADD(sys, s, G_PAUSED, 0, budget); ADD(sys, s, G_PAUSES, 0, 1); }
      else { ADD(sys, s, G_IDLE_T, 0, budget); ADD(sys, s, G_IDLE_C, 0, 1); }
    }
  }
  mi_host_advance(sys, len);
}

void mi_sim_advance(mi_system *sys, int64_t ms) {
  sim *s = sys ? of(sys) : NULL;
  if (!s) return;
  for (; ms > 0; ms -= STEP_MS) {
    int64_t n = ms < STEP_MS ? ms : STEP_MS;
    step(sys, s, n);
    s->sim_ms += n;
  }
}

/* Monotonic milliseconds. */
static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Refresh hook: in real time, catch the model up with the wall clock. */
static void refresh(mi_system *sys, void *arg) {
  sim *s = arg;
  if (!s->realtime) return;
  int64_t behind = mono_ms() - s->t0_wall - s->sim_ms;
  if (behind > 3600000) { s->t0_wall += behind - 3600000; behind = 3600000; } /* never more than an hour behind */
  if (behind > 0) mi_sim_advance(sys, behind);
}

void mi_sim_set_realtime(mi_system *sys, int on) {
  sim *s = sys ? of(sys) : NULL;
  if (!s) return;
  s->realtime = on;
  s->t0_wall = mono_ms() - s->sim_ms;
}

int mi_sim_attached(mi_system *sys) { return sys && sys->refresh == refresh; }

int64_t mi_sim_transactions(mi_system *sys) { return mi_sim_attached(sys) ? of(sys)->txns : 0; }

int mi_sim_attach(mi_system *sys, const mi_workload *w, int realtime) {
  if (!sys) return -1;
  if (!w) w = mi_workload_builtin("oltp");
  sim *s = calloc(1, sizeof *s);
  if (!s) return -1;
  s->w = *w;
  s->rng = w->seed ? w->seed : 1;
  s->next_pid = 100;
  resolve(s);
  mi_default_config(sys, w->cpus < 1 ? 1 : w->cpus > 8 ? 8 : w->cpus, w->disks > 105 ? 105 : w->disks, w->terminals);
  mi_host_config_set(sys, 3039, w->memory_pages);
  for (int i = 0; i < MAXP; i++) {
    int slot = mi_host_proc_slot(sys, i + 1);
    if (slot >= 0) { s->p[slot].slot = slot; s->p[slot].kind = K_SYS; s->p[slot].state = S_IDLE; }
  }
  mi_system_set_source(sys, refresh, s, free);
  s->last_logon = mi_host_now(sys) - 1000 * mi_host_ticks_per_ms(sys);
  logon(sys, s);
  mi_sim_set_realtime(sys, realtime);
  return 0;
}

mi_system *mi_sim_new(const mi_workload *w, int realtime) {
  mi_system *sys = mi_system_new(NULL);
  if (sys && mi_sim_attach(sys, w, realtime) != 0) { mi_system_free(sys); return NULL; }
  return sys;
}
