/* sim.c — the simulated HP 3000. A deterministic, step-driven model (10 ms steps of
 * virtual time): CPUs dispatching the CS/DS/ES queues with the tunable bases, limits
 * and quanta of items 3023-3032, sessions with think/CPU/disk transactions on
 * terminals, batch jobs admitted by the job fence and limits, disks with queues,
 * page faults and semaphore blocks by class. Everything goes through mi_host.h. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_sim.h"
#include "mi_source.h"

#define STEP_MS 10
#define MAXP MI_MAX_PROCESSES

/* built-in workloads: generated from core/catalog/workloads.tsv */
extern const mi_workload mi_workloads_[];
extern const int mi_nworkloads_;

const mi_workload *mi_workload_builtin(const char *name) {
  for (int i = 0; name && i < mi_nworkloads_; i++)
    if (strcmp(mi_workloads_[i].name, name) == 0) return &mi_workloads_[i];
  return NULL;
}

const char *mi_workload_name(int i) { return i >= 0 && i < mi_nworkloads_ ? mi_workloads_[i].name : NULL; }

static const char *const dist_names[] = {"exponential", "constant", "uniform"};
const char *mi_dist_name(int d) { return d >= 0 && d <= 2 ? dist_names[d] : NULL; }

/* The settable fields of a workload: name, place, kind (i int, d double, u seed, t distribution), range. */
static const struct wfield {
  const char *name; size_t off; char kind; double min, max; const char *about;
} wfields[] = {
  {"cpus", offsetof(mi_workload, cpus), 'i', 1, 8, "processors"},
  {"disks", offsetof(mi_workload, disks), 'i', 1, 105, "disk LDEVs (1-5, then 100-199)"},
  {"terminals", offsetof(mi_workload, terminals), 'i', 1, 20, "terminal LDEVs (20-39)"},
  {"sessions", offsetof(mi_workload, sessions), 'i', 0, 1300, "interactive sessions (two processes each)"},
  {"jobs", offsetof(mi_workload, jobs), 'i', 0, 600, "batch jobs (one process each)"},
  {"think_ms", offsetof(mi_workload, think_ms), 'd', 0, 3600000, "mean think time, ms"},
  {"txn_cpu_ms", offsetof(mi_workload, txn_cpu_ms), 'd', 0, 600000, "mean CPU per transaction, ms"},
  {"txn_ios", offsetof(mi_workload, txn_ios), 'd', 0, 1000, "mean disk I/Os per transaction"},
  {"job_cpu_ms", offsetof(mi_workload, job_cpu_ms), 'd', 0, 600000, "mean job CPU burst between I/Os, ms"},
  {"job_ms", offsetof(mi_workload, job_ms), 'd', 0, 1e9, "mean CPU a job needs in all, ms"},
  {"disk_ms", offsetof(mi_workload, disk_ms), 'd', 0.01, 10000, "mean disk service time, ms"},
  {"faults_per_io", offsetof(mi_workload, faults_per_io), 'd', 0, 100, "page faults per disk I/O"},
  {"memory_pages", offsetof(mi_workload, memory_pages), 'i', 1, 2147483647.0, "main memory in 2 KB pages (item 3039)"},
  {"think_dist", offsetof(mi_workload, think_dist), 't', 0, 2, "think-time distribution"},
  {"service_dist", offsetof(mi_workload, service_dist), 't', 0, 2, "CPU and disk service distribution"},
  {"seed", offsetof(mi_workload, seed), 'u', 0, 9007199254740992.0, "random seed (same seed, same counters)"},
  {"file_opens", offsetof(mi_workload, file_opens), 'd', 0, 1000, "file-system opens per transaction (per 4 job bursts)"},
  {"image_calls", offsetof(mi_workload, image_calls), 'd', 0, 1000, "TurboIMAGE calls per transaction (per 4 job bursts)"},
  {"sql_stmts", offsetof(mi_workload, sql_stmts), 'd', 0, 1000, "SQL statements per transaction (per 4 job bursts)"},
  {"ipc_msgs", offsetof(mi_workload, ipc_msgs), 'd', 0, 1000, "IPC messages per transaction (per 4 job bursts)"},
};
#define NFIELDS ((int)(sizeof wfields / sizeof wfields[0]))

static const struct wfield *wfield(const char *name) {
  for (int i = 0; name && i < NFIELDS; i++)
    if (strcmp(wfields[i].name, name) == 0) return &wfields[i];
  return NULL;
}

/* Returns 1 if v is a value field f may hold: within its range (NaN never is), whole unless real. */
static int field_ok(const struct wfield *f, double v) {
  return v >= f->min && v <= f->max && (f->kind == 'd' || v == floor(v));
}

/* Reads field f of w as a double. */
static double field_value(const mi_workload *w, const struct wfield *f) {
  const char *p = (const char *)w + f->off;
  return f->kind == 'd' ? *(const double *)p : f->kind == 'u' ? (double)*(const uint64_t *)p : *(const int *)p;
}

int mi_workload_set(mi_workload *w, const char *field, double v) {
  const struct wfield *f = wfield(field);
  if (!w || !f) return -1;
  if (!field_ok(f, v)) return -2;
  char *p = (char *)w + f->off;
  if (f->kind == 'd') *(double *)p = v;
  else if (f->kind == 'u') *(uint64_t *)p = (uint64_t)v;
  else *(int *)p = (int)v;
  return 0;
}

int mi_workload_check(const mi_workload *w, char *msg, size_t size) {
  if (msg && size) msg[0] = 0;
  if (!w) { if (msg && size) snprintf(msg, size, "no workload"); return -1; }
  for (int i = 0; i < NFIELDS; i++) {
    const struct wfield *f = &wfields[i];
    /* a seed above 2^53 is checked exactly: as a double it could round into range */
    int seed_big = f->kind == 'u' && w->seed > (uint64_t)f->max;
    double v = field_value(w, f);
    if (seed_big || !field_ok(f, v)) {
      if (msg && size)
        snprintf(msg, size, "workload field '%s' must be %s in %.15g..%.15g, got %.17g", f->name,
                 f->kind == 'd' ? "a number" : "an integer", f->min, f->max, v);
      return -2;
    }
  }
  return 0;
}

int mi_workload_get(const mi_workload *w, const char *field, double *v) {
  const struct wfield *f = wfield(field);
  if (!w || !f || !v) return -1;
  *v = field_value(w, f);
  return 0;
}

const char *mi_workload_field(int i, double *min, double *max, int *kind, const char **about) {
  if (i < 0 || i >= NFIELDS) return NULL;
  if (kind) *kind = wfields[i].kind == 'd' ? MI_WF_REAL : wfields[i].kind == 't' ? MI_WF_DIST : MI_WF_INTEGER;
  if (min) *min = wfields[i].min;
  if (max) *max = wfields[i].max;
  if (about) *about = wfields[i].about;
  return wfields[i].name;
}

enum { K_SYS, K_JSMAIN, K_CI, K_USER, K_JOB };
enum { UNIT_PRINTER = 6, UNIT_TAPE = 7 };   /* LDEVs of the default machine (defsys.c) */
enum { S_FREE, S_THINK, S_READY, S_IO, S_IDLE, S_SLEEP /* system process between duties */,
       S_WAIT /* blocked in a room (a lock, a port, a page fault ...) for reason p->reason */ };
enum { Q_AS, Q_BS, Q_CS, Q_DS, Q_ES };

/* A process of the model: two cache lines, what a launch, a wake-up and the end of a burst
 * touch in the first (the dispatch loop reads one line per process it passes). */
typedef struct sproc {
  _Alignas(64) int64_t burst;   /* (the alignment applies to each name of a declaration) */
  int64_t quantum_used, ready_since, wake;
  int32_t pri, slot;
  uint32_t hkey;          /* while in the dispatch queue: its priority level's key + 1, else 0 */
  int32_t rnext, rprev;   /* while in the dispatch queue: its neighbours in its level's line, -1 none */
  uint8_t state, kind, queue, cm;
  uint8_t after_wait;     /* 1 after a room's wait: the next burst goes straight to its disc I/O */
  uint8_t first_done;
  uint8_t io_other;       /* while IO: 1 when the device is not a disc (printer, tape) */
  int8_t cpu;             /* the CPU that last ran it (stops are counted on it) */
  uint8_t short_sleep;    /* while SLEEP: 1 when the pause is one second or less (21119) */
  uint8_t long_sleep;     /* while SLEEP: 1 when the pause is two seconds or more (21156) */
  uint8_t reason;         /* while WAIT: the stop reason (NREASON index) */
  /* the second line */
  int64_t work_left, txn_start, think_start;
  int64_t txn_cpu;        /* CPU ticks of a session's transaction so far */
  int32_t ios_left, disk, term, js;
  int32_t rpos;           /* index in the ready list while READY */
  int32_t unit;           /* a job's own device (printer or tape LDEV), 0 none */
  int32_t sysno;          /* a system process's place in the default machine's list (6 = SYSMAIN) */
  int16_t swap_pg;        /* its pages that swap-ins brought into memory, replaceable until it ends */
  int16_t swap_room;      /* ... at most its non-resident pages of its class (set at its birth) */
} sproc;
_Static_assert(sizeof(sproc) == 128, "a model process is two cache lines");

/* A pending wake-up (a thinking session's next transaction, an I/O's completion ...) as one
 * number: ticks from the queue's base time above 12 bits of process index, so one comparison
 * orders by time, then by process. */
typedef uint64_t wake_ev;
#define WAKE_IDX_BITS 12    /* process slots < 4096 */
#define WAKE_SPAN ((int64_t)1 << 50)   /* the most ticks ahead of the base a key holds (4.5 years at 8,000 a ms) */
#define WH_NB 4096          /* buckets of the wake-up wheel (a power of 2) */

/* Counter handles by role; resolved once from item numbers. */
enum {
  G_PAUSES, G_PAUSED, G_IDLE_T, G_IDLE_C, G_FETCH_T, G_SWAPIN_T, G_TOS_T, G_DISP_T, G_Q_T, /* +5 */
  G_Q_C = G_Q_T + 5, G_CUR_Q = G_Q_C + 5, G_CM_T = G_CUR_Q + 5, G_SW2CM, G_SW2NM, G_RESP, G_FIRST = G_RESP + 10,
  G_THINK = G_FIRST + 10, G_MINTH = G_THINK + 10, G_MAXTH, G_CUM_RQ, G_CUR_RQ, G_MAX_RQ, G_BLK_TRM, G_BLK_DISC,
  G_STOP_DISC, G_STOP_TRM, G_STOP_QX, G_STOP_PF, G_PF = G_STOP_PF + 7, G_PF_LEN, G_CLOCK, G_PRESS, G_COMPL,
  G_CUR_CI, G_CUR_SYS, G_CUR_USER, G_FREE_MEM, G_LAUNCH_STOP_PRI, G_PREF_C, G_PREF_LEN, G_PREF_PG, G_PREF_IO,
  G_POST_C, G_POST_LEN, G_POST_PG, G_POST_IO, G_STOP_PREF, G_STOP_OTHER_IO,
  P_TIME, P_READY, P_LAUNCH, P_PRI, P_STOP_TRM, P_STOP_TRM_T, P_STOP_DISC, P_STOP_DISC_T, P_STOP_QX, P_DREAD, P_DWRITE,
  P_DREAD_SZ, P_DWRITE_SZ, P_TREAD, P_TWRITE, P_LTRD, P_LTWT, P_RESP_T, P_FIRST_T, P_THINK_T, P_TERM_READS, P_CM_T,
  P_SW2CM, P_PF, P_DREAD_OBJ, P_DWRITE_OBJ, P_STOP_PF,
  I_COMPL, I_WT_RTT, I_RD_RTT, I_QD, I_QMAX = I_QD + 8, I_QCUR, I_QCUM, I_RDX, I_WTX,
  I_QDELAY, I_SERVICE, I_COMPLETED, I_CRD, I_CWR, I_RD_OBJ, I_WT_OBJ, I_TRESP, I_TTHINK, I_TREADS, I_SWRD, I_SWWT,
  C_IDLE_C, C_IDLE_T, C_FETCH_C, C_FETCH_T, C_DISP_C, C_DISP_T, C_EXT_ICS, C_LAUNCH, C_INTR, C_Q_C, C_Q_T = C_Q_C + 5,
  C_CM_T = C_Q_T + 5, C_STOP_DISC, C_STOP_TRM, C_STOP_QX,
  G_REQ_SECS, G_RQ_T, G_BLK_OTHER = G_RQ_T + 8, G_BLK_TIMER, G_BLK_CHILD,
  G_SWAPIN_C, G_TOS_C, G_FETCH_C, G_TOS_TRAP, /* +3 */ C_REPL_C = G_TOS_TRAP + 3, C_REPL_T, C_SWAP_C, C_SWAP_T,
  C_TOS_C, C_TOS_T, C_COMPL, G_SEC_CUR, G_SEC_CUM = G_SEC_CUR + 10, G_VM_CUR = G_SEC_CUM + 10,
  G_VM_CUM = G_VM_CUR + 10, G_OBJ_CUR = G_VM_CUM + 10, G_OBJ_CUM = G_OBJ_CUR + 10, P_SEC_CUR = G_OBJ_CUM + 10,
  P_SEC_CUM = P_SEC_CUR + 10, P_VM_CUR = P_SEC_CUM + 10, P_VM_CUM = P_VM_CUR + 10, G_CUM_ALLOC = P_VM_CUM + 10,
  P_CUM_ALLOC, P_MAIN_PG, G_CUM_ALLOC_FREE, G_ROC_CUR, G_ROC_CUM, G_SWAP_PG, G_RES_PG, G_FRZ_PG_CUR,
  G_PF_VIRGIN, G_PF_IO_PG, G_PF_IO_MIBS, G_PROC_CI, G_PROC_NONCI, P_DOTHER_OBJ, P_DRD_SZ_OBJ, P_DWT_SZ_OBJ,
  I_OBJ_RD, I_OBJ_WT, I_RDLEN, I_WTLEN, I_REQ_SECS, I_NONMM_RD, I_NONMM_WT, I_CM_RD, I_CM_WT, I_CM_BRD, I_CM_BWT,
  I_FIRST_T, I_TIMED_T, I_TIMED_C, I_VQD, I_VQMAX = I_VQD + 8, I_VRQCUM, I_VWQCUM, I_VRQW, I_VWQW = I_VRQW + 5,
  I_VRQWT = I_VWQW + 5, I_VWQWT, I_VRSV, I_VWSV = I_VRSV + 5, I_VRSVT = I_VWSV + 5, I_VWSVT,
  P_LRD_SZ, P_LWT_SZ, P_TRD_SZ, P_TWT_SZ, P_TIMED_T, P_TIMED_C, P_TAPE_RD, P_TAPE_RD_SZ, P_PRN_WT, P_PRN_WT_SZ,
  P_TAPE_OTHER, P_PRN_OTHER, P_TERM_OTHER, P_SW2CM_WRAP, G_SW2CM_WRAP, G_MAX_PF_DEPTH,
  G_PGM_ALLOC, G_LIB_ALLOC, G_CUR_PGM, G_CUR_LIB, G_THINK_UNDER, I_REP_START, I_REP_STOP, I_REP_KB, I_REP_MIBS,
  I_REP_T, I_REP_PCT, P_SW2NM, G_DISP_C, P_DOTHER, I_CTRL, P_TAPE_WT, P_TAPE_WT_SZ, G_LRU,
  G_PF_VIRGIN_UB, G_PF_VIRGIN_UB_PG, G_PREF_VIRGIN /* +3 */, G_PREF_UB = G_PREF_VIRGIN + 3, G_POST_UB, NCTR
};

/* The counters of the global domain that every launch adds to: summed through a step and added
 * once at its end (readers see whole steps, so they see the same). */
enum { SG_DISP_T, SG_DISP_C, SG_REQ_SECS, SG_Q_T, SG_Q_C = SG_Q_T + 5, SG_CM_T = SG_Q_C + 5, SG_SW2CM, SG_SW2NM,
       SG_FETCH_C, SG_CLOCK, SG_FETCH_T, NSG };

/* Stop reasons: the 56 of the manual's table (gmc_stop_* 21187-21242), the SQL latch levels 5-32
 * and release (only per process, per processor and as cur_blk levels), the memory manager's
 * pseudo I/O read and write. Index k's items follow from k (reason_item); those the manual
 * marks not instrumented are left unresolved, so they stay zero. */
#define NREASON 87
enum { RS_G_STOP, RS_G_BLK, RS_P_STOP, RS_P_TIME, RS_C_STOP };
enum {   /* reasons the code names (the rest come from the room tables) */
  K_PF0 = 0 /* 7 page-fault kinds */, K_TERM_READ = 7, K_TERM_WRITE, K_DISC_IO, K_OTHER_IO, K_PREFETCH = 14,
  K_QUANTUM = 15, K_TIMER = 16, K_CHILD = 19, K_PREEMPT = 44, K_DISC_PREEMPT, K_PRI_PREEMPT, K_LONG_PAUSE = 53,
  K_PSEUDO_RD = 85, K_PSEUDO_WT = 86
};

/* The item of stop reason k in place RS_* (0 when the manual has none there). */
static int32_t reason_item(int k, int place) {
  static const int32_t base[5] = {21187, 21103, 25051, 25107, 27027};       /* k 0-55 */
  static const int32_t ext[5] = {0, 21651, 25264, 25293, 27083};            /* k 56-84: latch 5-32, release */
  static const int32_t pseudo[5] = {0, 21680, 25322, 25324, 27112};         /* k 85-86 */
  if (k < 56) return base[place] + k;
  if (k < 85) return ext[place] ? ext[place] + k - 56 : 0;
  return pseudo[place] ? pseudo[place] + k - 85 : 0;
}

/* The stop reason of a pmc_stop_* item (the room tables name reasons by it). */
static int reason_of(int32_t pmc) { return pmc <= 25106 ? pmc - 25051 : pmc <= 25292 ? 56 + pmc - 25264 : 85 + pmc - 25322; }

/* The rooms of the machine: each has operations (a workload field gives their rate) that move
 * its counters (room_events) and may make the process wait (room_waits). */
enum { R_FILE, R_IMAGE, R_SQL, R_IPC, R_MEM, R_TERM, R_SYS, NROOM };

/* What one operation of a room counts: global item, process item (0 none), how many per
 * operation on average (whole part always, the fraction by chance), and for a run of n
 * consecutive items (a histogram) one of them chosen at random. Pairs keep "the processes'
 * sum is the global". A watermark row (the catalog's reading) records a depth drawn for each of
 * its events as a maximum instead; a level cannot be a row (gmc_sm_lru_depth is modeled in
 * room_op). */
static const struct evrow { int room; int32_t gitem, pitem; double per_op; int n; } evrows[] = {
  /* file system: opens, closes, the mapped-file reads and writes, space for new files */
  {R_FILE, 21359, 25256, 1}, {R_FILE, 21360, 25257, 1}, {R_FILE, 21358, 25255, 0.15}, {R_FILE, 21361, 25258, 0.05},
  {R_FILE, 21334, 25248, 3}, {R_FILE, 21335, 25249, 1}, {R_FILE, 21342, 25250, 0.6}, {R_FILE, 21344, 25252, 0.2},
  {R_FILE, 21351, 25251, 0.3}, {R_FILE, 21352, 25254, 0.1},
  {R_FILE, 21353, 25253, 0.05}, {R_FILE, 21336, 0, 2.4}, {R_FILE, 21337, 0, 0.6}, {R_FILE, 21338, 0, 1.3},
  {R_FILE, 21340, 0, 0.3}, {R_FILE, 21326, 0, 0.3}, {R_FILE, 21327, 0, 0.1},
  {R_FILE, 21330, 0, 0.1}, {R_FILE, 21331, 0, 0.02}, {R_FILE, 21345, 0, 0.01}, {R_FILE, 21346, 0, 0.01},
  {R_FILE, 21354, 0, 0.01}, {R_FILE, 21355, 0, 0.01}, {R_FILE, 21356, 0, 0.02},
  {R_FILE, 21362, 0, 1}, {R_FILE, 21363, 0, 0.4}, {R_FILE, 21364, 0, 2}, {R_FILE, 21365, 0, 0.6},
  {R_FILE, 21366, 0, 0.15}, {R_FILE, 21367, 0, 0.05}, {R_FILE, 21368, 0, 1.2}, {R_FILE, 21369, 0, 0.4},
  {R_FILE, 21370, 0, 0.002}, {R_FILE, 21371, 0, 0.001}, {R_FILE, 21372, 0, 0.001}, {R_FILE, 21373, 0, 0.001},
  {R_FILE, 21374, 0, 0.3}, {R_FILE, 21375, 0, 0.1}, {R_FILE, 21376, 0, 0.2}, {R_FILE, 21377, 0, 0.07},
  {R_FILE, 21378, 0, 0.05}, {R_FILE, 21379, 0, 0.02}, {R_FILE, 21380, 0, 0.03}, {R_FILE, 21381, 0, 0.01},
  {R_FILE, 21382, 0, 0.05}, {R_FILE, 21383, 0, 0.01}, {R_FILE, 21384, 0, 0.4}, {R_FILE, 21385, 0, 0.08},
  {R_FILE, 21386, 0, 0.02}, {R_FILE, 21387, 0, 0.01}, {R_FILE, 21388, 0, 0.01}, {R_FILE, 21389, 0, 0.005},
  /* the system log (file system and TurboIMAGE recovery): transactions, writes, freezes by pages */
  {R_FILE, 21549, 0, 0.2}, {R_FILE, 21551, 0, 0.19}, {R_FILE, 21552, 0, 0.01}, {R_FILE, 21550, 0, 0.02},
  {R_FILE, 21553, 0, 0.2}, {R_FILE, 21557, 0, 0.001}, {R_FILE, 21558, 0, 0.01}, {R_FILE, 21560, 0, 0.01},
  {R_FILE, 21561, 0, 0.005}, {R_FILE, 21563, 0, 0.01}, {R_FILE, 21564, 0, 0.005}, {R_FILE, 21565, 0, 0.005},
  {R_FILE, 21578, 0, 0.05}, {R_FILE, 21579, 0, 0.01}, {R_FILE, 21580, 0, 0.6}, {R_FILE, 21581, 0, 0.6},
  {R_FILE, 21582, 0, 0.1, 10}, {R_FILE, 21592, 0, 0.2, 8},
  {R_IMAGE, 21549, 0, 0.3}, {R_IMAGE, 21551, 0, 0.29}, {R_IMAGE, 21552, 0, 0.01}, {R_IMAGE, 21553, 0, 0.3},
  {R_IMAGE, 21582, 0, 0.1, 10}, {R_IMAGE, 21592, 0, 0.3, 8}, {R_IMAGE, 21580, 0, 0.5}, {R_IMAGE, 21581, 0, 0.5},
  {R_IMAGE, 21334, 25248, 2}, {R_IMAGE, 21336, 0, 1.8}, {R_IMAGE, 21337, 0, 0.2},
  /* the user log of SQL: transactions, nested ones, aborts, log writes and freezes by pages */
  {R_SQL, 21600, 0, 0.3}, {R_SQL, 21601, 0, 0.03}, {R_SQL, 21602, 0, 0.29}, {R_SQL, 21603, 0, 0.01},
  {R_SQL, 21604, 0, 0.3}, {R_SQL, 21608, 0, 0.001}, {R_SQL, 21609, 0, 0.02}, {R_SQL, 21611, 0, 0.02},
  {R_SQL, 21612, 0, 0.005}, {R_SQL, 21614, 0, 0.01}, {R_SQL, 21615, 0, 0.005}, {R_SQL, 21616, 0, 0.005},
  {R_SQL, 21629, 0, 0.05}, {R_SQL, 21630, 0, 0.01}, {R_SQL, 21631, 0, 0.8}, {R_SQL, 21632, 0, 0.8},
  {R_SQL, 21633, 0, 0.1, 10}, {R_SQL, 21643, 0, 0.3, 8},
  /* IPC: transfers on the ICS, the PFP's ports and pools, make-present */
  {R_IPC, 21081, 25259, 0.3}, {R_IPC, 21085, 25260, 0.02}, {R_IPC, 21082, 0, 0.01}, {R_IPC, 21083, 0, 0.01},
  {R_IPC, 21084, 0, 0.005}, {R_IPC, 21086, 0, 0.05}, {R_IPC, 21087, 0, 0.02},
  /* the memory manager, per page fault: virgin pages, overlays, the VPN caches, the KO and PP tables */
  {R_MEM, 21477, 0, 0.2}, {R_MEM, 21478, 0, 0.02}, {R_MEM, 21479, 0, 0.3}, {R_MEM, 21480, 0, 0.1},
  {R_MEM, 21481, 0, 0.1}, {R_MEM, 21482, 0, 0.2}, {R_MEM, 21450, 0, 0.3}, {R_MEM, 21451, 0, 0.1},
  {R_MEM, 21452, 0, 0.05}, {R_MEM, 21453, 0, 0.1}, {R_MEM, 21454, 0, 0.05}, {R_MEM, 21455, 0, 0.02},
  {R_MEM, 21456, 0, 0.01}, {R_MEM, 21457, 0, 0.05}, {R_MEM, 21458, 0, 0.02}, {R_MEM, 21459, 0, 0.01},
  {R_MEM, 21461, 0, 0.02}, {R_MEM, 21462, 0, 0.01}, {R_MEM, 21463, 0, 0.01}, {R_MEM, 21464, 0, 0.6},
  {R_MEM, 21465, 0, 0.3}, {R_MEM, 21466, 0, 0.1}, {R_MEM, 21467, 0, 0.2}, {R_MEM, 21468, 0, 0.1},
  {R_MEM, 21469, 0, 0.05}, {R_MEM, 21470, 0, 0.02}, {R_MEM, 21471, 0, 0.01}, {R_MEM, 21472, 0, 0.01},
  {R_MEM, 21473, 0, 0.05}, {R_MEM, 21474, 0, 0.1}, {R_MEM, 21475, 0, 0.2}, {R_MEM, 21476, 0, 0.4},
  {R_MEM, 21296, 0, 0.3}, {R_MEM, 21297, 0, 0.5}, {R_MEM, 21298, 0, 0.05}, {R_MEM, 21299, 0, 0.5},
  {R_MEM, 21300, 0, 0.05}, {R_MEM, 21304, 0, 0.3}, {R_MEM, 21305, 0, 0.01}, {R_MEM, 21312, 0, 8},
  /* ... and by the faulting object's class: overlay candidates made, kicked out, recovered,
   * frozen pages, background and unknown-purpose transfers, extent faults */
  {R_MEM, 21274, 0, 0.2}, {R_MEM, 21275, 0, 0.4}, {R_MEM, 21276, 0, 0.5}, {R_MEM, 21277, 0, 0.3},
  {R_MEM, 21278, 0, 0.1}, {R_MEM, 21279, 0, 0.2}, {R_MEM, 21280, 0, 0.1}, {R_MEM, 21281, 0, 0.05},
  {R_MEM, 21282, 0, 0.05}, {R_MEM, 21283, 0, 0.1}, {R_MEM, 21284, 0, 0.05}, {R_MEM, 21287, 0, 0.05},
  {R_MEM, 21288, 0, 0.02}, {R_MEM, 21289, 0, 0.01}, {R_MEM, 21290, 0, 0.02}, {R_MEM, 21291, 0, 0.01},
  {R_MEM, 21292, 0, 0.1}, {R_MEM, 21293, 0, 0.05}, {R_MEM, 21483, 0, 0.01},
};
#define NEVROW ((int)(sizeof evrows / sizeof evrows[0]))

/* Rows that count a subset of another row's events (core/sim/BOOKS.md 7): the subset's global
 * item, the total's, and a group whose subsets share the bound (a write either fetches its page
 * or gets a virgin one). An operation counts at most as many of a group's events as the total's
 * whole count per operation in its room. */
static const struct { int32_t sub, total; int group; } subrows[] = {
  {21342, 21334, 0}, {21351, 21334, 1}, {21344, 21335, 2}, {21353, 21335, 2}, {21352, 21335, 3}, {21358, 21359, 4},
};
#define NSUBGRP 5
#define LRU_MAX 1000        /* closed-file entries the file system's LRU list keeps (ours: the manual gives no size) */
#define EV_MAXHITS 64       /* the most fraction events one operation counts */
#define EV_CELLS 256        /* cells of a room's fraction sum that start the search for a row */
#define EV_TOP_BITS 10      /* a draw's top bits that name its row outright in most cases */
#define EV_TOP (1 << EV_TOP_BITS)
#define EV_SPLIT 255        /* ... not in this cell: a row boundary falls inside it */

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
static const struct { int room; int cls[6]; double chance; } semrows[] = {
  {R_FILE, {19, 20, 21, 22, 23, 24}, 0.05}, {R_IMAGE, {55, 56, 57, 59, 60, 75}, 0.1},
  {R_SQL, {29, 30, 31, 34, 63, 64}, 0.08}, {R_IPC, {1, 3, 6, 7, 8, 27}, 0.08},
  {R_MEM, {9, 10, 13, 42, 44, 72}, 0.03}, {R_TERM, {28, 38, 41, 70, 71, 73}, 0.01},
};

typedef struct sim {
  mi_workload w;
  char name[64];            /* w.name points here: the caller's workload may not outlive us */
  uint64_t rng;
  int64_t sim_ms, t0_wall;
  int64_t max_catchup_ms;   /* the most wall-clock time one real-time refresh replays */
  int realtime;
  sproc p[MAXP];
  wake_ev heap[MAXP + 1];   /* min-heap on (at, idx): who wakes next */
  int64_t wbase;            /* the wake-up keys' base time */
  int nheap;                /* (the heap holds only wake-ups beyond the wheel's horizon) */
  int32_t wh_head[WH_NB];   /* wake-up wheel: each bucket's last-queued process + 1, 0 none */
  int32_t wh_next[MAXP];    /* the process queued before it in its bucket + 1, 0 none */
  int64_t wh_at[MAXP];      /* the time a process in the wheel wakes at */
  uint8_t wh_in[MAXP];      /* 1 while a process is in the wheel */
  int64_t wh_cur;           /* the wheel's first bucket number (time >> wh_shift) */
  int wh_shift;             /* log2 of a bucket's ticks */
  struct due { int64_t at; int32_t idx; } due[2 * MAXP + 2];   /* the wake-ups due this step */
  int rdy[MAXP], nrdy;      /* READY processes */
  struct rlevel { uint32_t key; int32_t head, tail; } lv[MAXP];  /* dispatch queue: READY processes not run */
  int nlv;                  /* this step, a line (first come first) per priority level, levels ascending */
  int ran[MAXP], nran;      /* processes dispatched this step still READY (back into the queue at the next) */
  int nq[5];                /* READY processes by queue */
  int nq_seen[5];           /* ... as the last step's CPUs found them (21159-21163: a step runs the BS processes it wakes at once) */
  int64_t tpm;              /* ticks per ms (3043), read at each step's start */
  int64_t tpm_2, tpm_5, tpm_10, tpm_20, tpm_50, tpm_3c;   /* its 1/2, 1/5 ... 1/50 and 3/100 (no division per event) */
  int32_t qb[5], ql[5];     /* each queue's base and limit priority (3019-3028), read at each step's start */
  int64_t qt[5];            /* each queue's quantum in ticks (3029-3032), read at each step's start */
  mi_ctr rs[NREASON][5];    /* stop reason -> its global stop, global cur_blk, process count, process time, processor counters */
  mi_ctr ev[NEVROW][2];     /* room event row -> its global and process counters */
  uint8_t ev_objcl[NEVROW]; /* 1 when the row's global counter is by object class */
  uint8_t ev_wmark[NEVROW]; /* 1 when the row's global counter is a watermark (a depth per event, kept as the maximum) */
  int64_t lru_depth;        /* closed-file entries on the file system's LRU list (21339, a level) */
  int32_t ev_whole[NEVROW]; /* each row's whole count per operation */
  uint8_t ev_pmul[NEVROW];  /* what one event adds to the row's process counter (an FOPEN opens four: 25256) */
  uint8_t ev_grp[NEVROW];   /* 1 + the subset group of a row (subrows), 0 none */
  int32_t ev_cap[NROOM][NSUBGRP];   /* a group's bound per operation of a room */
  int whole[NROOM][NEVROW], nwhole[NROOM];     /* each room's rows with a whole count */
  int chance[NROOM][NEVROW], nchance[NROOM];   /* ... and with a fraction, */
  double cum[NROOM][NEVROW];                   /* their cumulative fractions, */
  double ev_lambda[NROOM], ev_exp[NROOM];      /* the fractions' sum and e to its minus */
  double ev_pois[NROOM][EV_MAXHITS + 1];       /* P(events <= k) of each room, summed as the draw sums it */
  double ev_cellw[NROOM];                      /* EV_CELLS / the fractions' sum */
  uint16_t ev_cell[NROOM][EV_CELLS];           /* the row a fraction-sum cell's start falls in (a search's start) */
  uint8_t ev_top[NROOM][EV_TOP];               /* the row of every draw with these top bits, EV_SPLIT if it varies */
  uint8_t ev_ntop[NROOM][EV_TOP];              /* ... the number of events of an operation's draw, the same way */
  mi_ctr ev_hist[NEVROW][10];                  /* a histogram row's counters, bucket by bucket */
  int64_t room_ops[NROOM];  /* operations of each room so far (the transaction logs' ticks read them) */
  int nblk[NREASON];        /* processes in WAIT by reason (the gmc_cur_blk_* levels) */
  uint8_t blk_dirty[NREASON];
  int dirty[NREASON], ndirty;  /* the reasons whose blocked count changed since the last step */
  int nlong;                /* system processes in a pause of two seconds or more */
  int low_slot[8];          /* the DS/ES process each CPU held at the end of the last step, -1 none */
  double pressure;          /* memory in use / memory size (item 3039), from the last census */
  int64_t store_cur[3][10]; /* secondary storage, virtual memory and objects of the live processes by class */
  int64_t swap_cur[2];      /* replaceable pages in memory (21294) of native-mode and CM processes */
  int64_t xm_last_write[2], xm_last_ckpt[2], xm_min_between[2], xm_min_dur[2], xm_commits[2];
  int64_t xm_min_blk[2];    /* the shortest wait of a checkpoint for the previous one (21577, 21628) */
  int64_t rep_start, rep_stop, rep_mibs, rep_time, rep_pct;   /* the mirror repair's levels (23069-23074): ticks since boot, per repair */
  int64_t dispatches;
  int trap_in;              /* launches until the next stack overflow trap (every 1,009th) */
  int cnt;                  /* the domains that count anything, a bit each (read at each step's start) */
  uint8_t rdom[NCTR];       /* role -> its counter's domain (MI_DOM_COUNT: no counter) */
  double cs_avg_ms;         /* running average of the sessions' CPU per transaction (the CS quantum) */
  int64_t boot;             /* the clock when the model started: time stamps are kept from it */
  uint64_t step_no;
  uint64_t opseq;           /* rooms' operations so far (the event rows' draws are keyed by it) */
  uint64_t mmseq;           /* disc prefetches and posts so far (their kinds are drawn by it) */
  int ev_lo[NROOM], ev_hi[NROOM], wt_lo[NROOM], wt_hi[NROOM];   /* each room's rows in the tables */
  int nio, nthink;          /* processes waiting on I/O (any device) / at the terminal */
  int nio_other, ntimer, nchild;  /* ... on a non-disc device / a pause of <= 1 s / their children */
  int64_t rq_entries;       /* entries into the ready queue since the last step */
  int64_t rq_area;          /* this step's ready-queue area so far: the waits of the processes it launched */
  int64_t rq_flush;         /* when the waiting processes' 25048 was last written (ready_flush) */
  int ncpu, nsessions, njobs, next_term;
  int64_t disk_busy[MI_MAX_LDEV + 1];
  int disk_out[MI_MAX_LDEV + 1];
  int64_t txns, last_logon;
  int low_running;          /* CPUs a DS/ES process held at the end of the last step */
  mi_ctr c[NCTR];           /* role -> its counter */
  /* the step's writer (#17): the store's rows as a step sees them (sync_layout) */
  struct slane { int64_t *row0; int32_t stride, nent; } lane[MI_DOM_COUNT];  /* row 0, words a row, rows; NULL/0 off */
  int32_t col[NCTR];        /* role -> its word in its domain's row, -1 while nobody counts it */
  int32_t ocol[NCTR];       /* ... an object-class counter's first word, -1 for other kinds */
  int32_t scol[NCTR];       /* ... a simple counter's word (levels, maxima), -1 for other kinds */
  int32_t rscol[NREASON][5];   /* stop reason and place -> its word */
  int32_t evcol[NEVROW][2];    /* room event row -> its global and process words */
  struct evact { int32_t g, p; uint8_t n, objcl, wmark; } evact[NEVROW];  /* ... the same with the row's shape, together */
  int32_t hcol[NEVROW][10];    /* a histogram row's buckets -> their words */
  int16_t fold[720];        /* object class -> its word within the counter's cells (the mapping's fold) */
  uint8_t rkind[NCTR];      /* role -> its counter's kind (MI_KIND_*) */
  uint64_t lay_gen;         /* the layout generation the words were read at */
  int lay_cnt, lay_ok;      /* ... and s->cnt then; 0 before the first reading */
  int64_t *g0;              /* the global row (the sink while nobody counts the domain) */
  int64_t *crow[8];         /* each processor's row (the sink ...) */
  int32_t rsset[NREASON];   /* stop reason -> its global cur_blk level's word (simple counters only), -1 */
  int64_t *sink;            /* a row nobody reads: where adds to a dead or unknown entity go */
  int32_t nsink;            /* its words (the largest row) */
  uint64_t sink_mark;       /* the mark of a sink row */
  const uint8_t *live;      /* the store's process-alive flags, */
  uint64_t *mod;            /* row marks (read-active CHANGED) */
  const uint64_t *epoch;    /* and CHANGED epoch */
  int64_t sg[NSG];          /* this step's sums of the global counters of launches */
  int64_t next_pid;
  int32_t cfg_q[14];        /* items 3019-3032 as cache_config last read them */
  uint32_t cfg_gen;         /* the configuration generation they were read at */
  int cfg_read;             /* 1 once they were read */
  int npop[5];              /* live processes by kind (K_*): logon's census */
} sim;

/* The item behind each role (n > 1: the role and the n - 1 after it take consecutive items),
 * keyed by role name so an entry cannot drift from its neighbours' positions. */
static const struct { int role; int32_t item; int n; } roles[] = {
  {G_PAUSES, 21164}, {G_PAUSED, 21176}, {G_IDLE_T, 21177}, {G_IDLE_C, 21165}, {G_FETCH_T, 21178},
  {G_SWAPIN_T, 21179}, {G_TOS_T, 21180}, {G_DISP_T, 21181}, {G_Q_T, 21182, 5}, {G_Q_C, 21170, 5},
  {G_CUR_Q, 21159, 5}, {G_CM_T, 21317}, {G_SW2CM, 21314}, {G_SW2NM, 21313}, {G_RESP, 21000, 10},
  {G_FIRST, 21010, 10}, {G_THINK, 21020, 10}, {G_MINTH, 21030}, {G_MAXTH, 21031}, {G_CUM_RQ, 21091},
  {G_CUR_RQ, 21092}, {G_MAX_RQ, 21093}, {G_BLK_TRM, 21110}, {G_BLK_DISC, 21112}, {G_STOP_DISC, 21196},
  {G_STOP_TRM, 21194}, {G_STOP_QX, 21202}, {G_STOP_PF, 21187, 7}, {G_PF, 21254}, {G_PF_LEN, 21255},
  {G_CLOCK, 21306}, {G_PRESS, 21307}, {G_COMPL, 21318}, {G_CUR_CI, 21320}, {G_CUR_SYS, 21319},
  {G_CUR_USER, 21322}, {G_FREE_MEM, 21309}, {G_LAUNCH_STOP_PRI, 21233}, {G_PREF_C, 21261},
  {G_PREF_LEN, 21262}, {G_PREF_PG, 21267}, {G_PREF_IO, 21268}, {G_POST_C, 21269}, {G_POST_LEN, 21270},
  {G_POST_PG, 21272}, {G_POST_IO, 21273}, {G_STOP_PREF, 21201}, {G_STOP_OTHER_IO, 21197}, {P_TIME, 25047},
  {P_READY, 25048}, {P_LAUNCH, 25049}, {P_PRI, 25050}, {P_STOP_TRM, 25058}, {P_STOP_TRM_T, 25114},
  {P_STOP_DISC, 25060}, {P_STOP_DISC_T, 25116}, {P_STOP_QX, 25066}, {P_DREAD, 25167}, {P_DWRITE, 25168},
  {P_DREAD_SZ, 25169}, {P_DWRITE_SZ, 25170}, {P_TREAD, 25172}, {P_TWRITE, 25173}, {P_LTRD, 25163},
  {P_LTWT, 25164}, {P_RESP_T, 25190}, {P_FIRST_T, 25191}, {P_THINK_T, 25192}, {P_TERM_READS, 25195},
  {P_CM_T, 25199}, {P_SW2CM, 25197}, {P_PF, 25202}, {P_DREAD_OBJ, 25243}, {P_DWRITE_OBJ, 25244},
  {P_STOP_PF, 25051}, {I_COMPL, 23022},
  {I_WT_RTT, 23023}, {I_RD_RTT, 23024}, {I_QD, 23025, 8}, {I_QMAX, 23033}, {I_QCUR, 23034}, {I_QCUM, 23035},
  {I_RDX, 23040}, {I_WTX, 23041}, {I_QDELAY, 23044}, {I_SERVICE, 23045}, {I_COMPLETED, 23046},
  {I_CRD, 23048}, {I_CWR, 23049}, {I_RD_OBJ, 23050}, {I_WT_OBJ, 23051}, {I_TRESP, 23054}, {I_TTHINK, 23056},
  {I_TREADS, 23059}, {I_SWRD, 23009}, {I_SWWT, 23010}, {C_IDLE_C, 27000}, {C_IDLE_T, 27006},
  {C_FETCH_C, 27002}, {C_FETCH_T, 27008}, {C_DISP_C, 27005}, {C_DISP_T, 27011}, {C_EXT_ICS, 27012},
  {C_LAUNCH, 27013}, {C_INTR, 27014}, {C_Q_C, 27016, 5}, {C_Q_T, 27021, 5}, {C_CM_T, 27026},
  {C_STOP_DISC, 27036}, {C_STOP_TRM, 27034}, {C_STOP_QX, 27042}, {G_REQ_SECS, 21094}, {G_RQ_T, 21095, 8},
  {G_BLK_OTHER, 21113}, {G_BLK_TIMER, 21119}, {G_BLK_CHILD, 21122},
  {G_SWAPIN_C, 21167}, {G_TOS_C, 21168}, {G_FETCH_C, 21166}, {G_TOS_TRAP, 21301, 3}, {C_REPL_C, 27001},
  {C_REPL_T, 27007}, {C_SWAP_C, 27003}, {C_SWAP_T, 27009}, {C_TOS_C, 27004}, {C_TOS_T, 27010}, {C_COMPL, 27015},
  {G_SEC_CUR, 21390, 10}, {G_SEC_CUM, 21400, 10}, {G_VM_CUR, 21410, 10}, {G_VM_CUM, 21420, 10},
  {G_OBJ_CUR, 21430, 10}, {G_OBJ_CUM, 21440, 10}, {P_SEC_CUR, 25203, 10}, {P_SEC_CUM, 25213, 10},
  {P_VM_CUR, 25223, 10}, {P_VM_CUM, 25233, 10}, {G_CUM_ALLOC, 21295}, {P_CUM_ALLOC, 25200}, {P_MAIN_PG, 25201},
  {G_CUM_ALLOC_FREE, 21308}, {G_ROC_CUR, 21310}, {G_ROC_CUM, 21311}, {G_SWAP_PG, 21294}, {G_RES_PG, 21286},
  {G_FRZ_PG_CUR, 21285}, {G_PF_VIRGIN, 21256}, {G_PF_IO_PG, 21259}, {G_PF_IO_MIBS, 21260}, {G_PROC_CI, 21321},
  {P_DOTHER_OBJ, 25247}, {P_DRD_SZ_OBJ, 25245}, {P_DWT_SZ_OBJ, 25246}, {I_OBJ_RD, 23052}, {I_OBJ_WT, 23053},
  {I_RDLEN, 23036}, {I_WTLEN, 23037}, {I_REQ_SECS, 23043}, {I_NONMM_RD, 23004}, {I_NONMM_WT, 23005},
  {I_CM_RD, 23013}, {I_CM_WT, 23015}, {I_CM_BRD, 23014}, {I_CM_BWT, 23016}, {I_FIRST_T, 23055},
  {I_TIMED_T, 23057}, {I_TIMED_C, 23058}, {I_VQD, 23060, 8}, {I_VQMAX, 23068}, {I_VRQCUM, 23075},
  {I_VWQCUM, 23076}, {I_VRQW, 23077, 5}, {I_VWQW, 23082, 5}, {I_VRQWT, 23087}, {I_VWQWT, 23088},
  {I_VRSV, 23089, 5}, {I_VWSV, 23094, 5}, {I_VRSVT, 23099}, {I_VWSVT, 23100}, {P_LRD_SZ, 25165},
  {P_LWT_SZ, 25166}, {P_TRD_SZ, 25174}, {P_TWT_SZ, 25175}, {P_TIMED_T, 25193}, {P_TIMED_C, 25194},
  {P_TAPE_RD, 25177}, {P_TAPE_RD_SZ, 25179}, {P_PRN_WT, 25182}, {P_PRN_WT_SZ, 25183}, {P_TAPE_OTHER, 25181},
  {P_PRN_OTHER, 25184}, {P_TERM_OTHER, 25176}, {G_MAX_PF_DEPTH, 21460}, {G_PGM_ALLOC, 21246},
  {G_LIB_ALLOC, 21247}, {G_CUR_PGM, 21250}, {G_CUR_LIB, 21251}, {G_THINK_UNDER, 21032}, {I_REP_START, 23069},
  {I_REP_STOP, 23070}, {I_REP_KB, 23071}, {I_REP_MIBS, 23072}, {I_REP_T, 23073}, {I_REP_PCT, 23074},
  {P_SW2NM, 25196}, {G_DISP_C, 21169}, {P_DOTHER, 25171}, {I_CTRL, 23039}, {P_TAPE_WT, 25178},
  {P_TAPE_WT_SZ, 25180}, {G_LRU, 21339},
  {G_PF_VIRGIN_UB, 21257}, {G_PF_VIRGIN_UB_PG, 21258}, {G_PREF_VIRGIN, 21263, 3}, {G_PREF_UB, 21266}, {G_POST_UB, 21271},
};

/* A counter only if the manual says it is instrumented: the rest must stay zero, so the model
 * never gets a handle to them. */
static mi_ctr inst_counter(int32_t item) {
  const mi_item_info *it = item ? mi_item_lookup(item) : NULL;
  mi_ctr none = {-1};
  return it && it->instrumented == MI_INST_YES ? mi_host_counter(item) : none;
}

/* The row (its place among room's rows with a fraction) of a fraction event drawn as x: the
 * first whose cumulative fraction exceeds the draw scaled to the fractions' sum (the last if
 * none), searched from the draw's cell a step or two either way. */
static int ev_row(const sim *s, int room, uint64_t x) {
  const double *cum = s->cum[room];
  int nch = s->nchance[room];
  double v = (double)(x >> 11) * (1.0 / 9007199254740992.0) * s->ev_lambda[room];
  double cv = v * s->ev_cellw[room];
  int lo = s->ev_cell[room][cv < EV_CELLS - 1 ? (cv > 0 ? (int)cv : 0) : EV_CELLS - 1];
  while (lo < nch - 1 && cum[lo] <= v) lo++;
  while (lo > 0 && cum[lo - 1] > v) lo--;
  return lo;
}

/* The number of fraction events of an operation of room drawn as x: the first k whose Poisson
 * sum P(events <= k) reaches the draw (EV_MAXHITS at most). */
static int ev_hits(const sim *s, int room, uint64_t x) {
  double u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
  const double *pois = s->ev_pois[room];
  int hits = 0;
  while (hits < EV_MAXHITS && u > pois[hits]) hits++;
  return hits;
}

/* Resolves every role's counter handle from the table above (a role left out stays id -1). */
static void resolve(sim *s) {
  for (int i = 0; i < NCTR; i++) s->c[i].id = -1;
  for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++)
    for (int k = 0; k < (roles[r].n ? roles[r].n : 1); k++) {
      s->c[roles[r].role + k] = inst_counter(roles[r].item + k);
      const mi_item_info *it = mi_item_lookup(roles[r].item + k);
      s->rkind[roles[r].role + k] = (uint8_t)(it ? it->kind : MI_KIND_PSEUDO);
    }
  for (int k = 0; k < NREASON; k++)
    for (int place = 0; place < 5; place++) s->rs[k][place] = inst_counter(reason_item(k, place));
  for (int i = 0; i < NEVROW; i++) {
    s->ev[i][0] = inst_counter(evrows[i].gitem); s->ev[i][1] = inst_counter(evrows[i].pitem);
    const mi_item_info *it = mi_item_lookup(evrows[i].gitem);
    s->ev_objcl[i] = it && it->kind == MI_KIND_OBJCL;
    s->ev_wmark[i] = it && it->reading == MI_READ_WATERMARK;
    int r = evrows[i].room;
    double frac = evrows[i].per_op - (int32_t)evrows[i].per_op;
    s->ev_whole[i] = (int32_t)evrows[i].per_op;
    if (s->ev_whole[i]) s->whole[r][s->nwhole[r]++] = i;
    if (frac > 0) {
      s->ev_lambda[r] += frac;
      s->cum[r][s->nchance[r]] = s->ev_lambda[r];
      s->chance[r][s->nchance[r]++] = i;
    }
  }
  /* each room's rows are consecutive in its table */
  for (int r = 0; r < NROOM; r++) {
    s->ev_lo[r] = s->ev_hi[r] = s->wt_lo[r] = s->wt_hi[r] = 0;
    s->ev_exp[r] = exp(-s->ev_lambda[r]);
    /* the Poisson sums as room_events once computed them term by term, operation by operation */
    double pk = s->ev_exp[r], f = pk;
    s->ev_pois[r][0] = f;
    for (int k = 1; k <= EV_MAXHITS; k++) { pk *= s->ev_lambda[r] / k; f += pk; s->ev_pois[r][k] = f; }
    s->ev_cellw[r] = s->ev_lambda[r] > 0 ? EV_CELLS / s->ev_lambda[r] : 0;
    for (int c = 0, lo = 0; c < EV_CELLS && s->nchance[r]; c++) {
      double v = c / s->ev_cellw[r];
      while (lo < s->nchance[r] - 1 && s->cum[r][lo] <= v) lo++;
      s->ev_cell[r][c] = (uint16_t)lo;
    }
    /* the row is a non-decreasing function of the draw (every step of ev_row rounds
     * monotonically), so a cell whose first and last draws give one row gives it throughout */
    for (int c = 0; c < EV_TOP && s->nchance[r]; c++) {
      uint64_t x0 = (uint64_t)c << (64 - EV_TOP_BITS), x1 = x0 | (((uint64_t)1 << (64 - EV_TOP_BITS)) - 1);
      int a = ev_row(s, r, x0), b = ev_row(s, r, x1);
      s->ev_top[r][c] = (uint8_t)(a == b && a < EV_SPLIT ? a : EV_SPLIT);
      a = ev_hits(s, r, x0), b = ev_hits(s, r, x1);
      s->ev_ntop[r][c] = (uint8_t)(a == b && a < EV_SPLIT ? a : EV_SPLIT);
    }
  }
  for (int i = 0; i < NEVROW; i++) {
    for (int b = 0; b < evrows[i].n && b < 10; b++) s->ev_hist[i][b] = inst_counter(evrows[i].gitem + b);
    /* the manual counts an FOPEN and an FCLOSE four times for the process (root, account, group, file) */
    s->ev_pmul[i] = evrows[i].pitem == 25256 || evrows[i].pitem == 25257 ? 4 : 1;
    for (size_t j = 0; j < sizeof subrows / sizeof subrows[0]; j++) {
      if (evrows[i].gitem != subrows[j].sub) continue;
      s->ev_grp[i] = (uint8_t)(subrows[j].group + 1);
      for (int t = 0; t < NEVROW; t++)
        if (evrows[t].room == evrows[i].room && evrows[t].gitem == subrows[j].total) s->ev_cap[evrows[i].room][subrows[j].group] = (int32_t)evrows[t].per_op;
    }
  }
  for (int i = NEVROW - 1; i >= 0; i--) { s->ev_lo[evrows[i].room] = i; if (!s->ev_hi[evrows[i].room]) s->ev_hi[evrows[i].room] = i + 1; }
  for (int i = NWAITROW - 1; i >= 0; i--) { s->wt_lo[waitrows[i].room] = i; if (!s->wt_hi[waitrows[i].room]) s->wt_hi[waitrows[i].room] = i + 1; }
}

/* xorshift64*: the model's only source of randomness. */
static double rnd(sim *s) {
  s->rng ^= s->rng >> 12; s->rng ^= s->rng << 25; s->rng ^= s->rng >> 27;
  return (double)((s->rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* A sample with this mean drawn from distribution dist, in ticks of the system. */
static int64_t draw(sim *s, mi_system *sys, double mean_ms, int dist) {
  double u = rnd(s), x;
  if (dist == MI_DIST_CONSTANT) x = 1.0;
  else if (dist == MI_DIST_UNIFORM) x = 2.0 * u;
  else x = -log(1.0 - u);
  (void)sys;
  return (int64_t)(x * mean_ms * s->tpm);
}
#define think(s, sys, ms) draw((s), (sys), (ms), (s)->w.think_dist)
#define expo(s, sys, ms) draw((s), (sys), (ms), (s)->w.service_dist)

extern const mi_source_ops mi_source_sim_ops;
/* The model driving sys, or NULL if sys is not simulated. */
static sim *of(mi_system *sys) {
  return mi_system_source_ops(sys) == &mi_source_sim_ops ? (sim *)mi_system_source(sys) : NULL;
}

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

/* Notes that the count of processes blocked for reason k changed (levels() writes it). */
static void blk_changed(sim *s, int k) {
  if (!s->blk_dirty[k]) { s->blk_dirty[k] = 1; s->dirty[s->ndirty++] = k; }
}

/* Moves p to a new state, keeping the ready list, the wait counts and the wake queue
 * (p->wake must already hold the wake-up time when entering THINK or IO). */
static void set_state(sim *s, sproc *p, int state) {
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

/* Notes each role's domain (MI_DOM_COUNT: no counter). */
static void role_domains(sim *s) {
  for (int i = 0; i < NCTR; i++) s->rdom[i] = (uint8_t)(s->c[i].id >= 0 ? s->c[i].id >> MI_HOST_INDEX_BITS : MI_DOM_COUNT);
}

#define ON(s, dom) ((s)->cnt >> (dom) & 1)
/* Whether anybody counts the processors / the I/O devices in this step: their rows' adds are
 * skipped as a block (with their index arithmetic) while nobody does. */
#define CPU_ON(s) ON((s), MI_DOM_PROCESSOR)
#define IO_ON(s) ON((s), MI_DOM_IO)

/* ---- the step's writer (#17) ----
 * A step holds the store's write section (mi_host_begin), so the layout cannot move while it
 * runs: the step reads each domain's row 0, row size and rows, and each role's word in its row,
 * at its start (again only after the layout generation or the counting domains changed), and an
 * add is then a load of the word, a test and the add into the row. A code path computes the row
 * of its entity once (row_of, prow_of: the range and alive checks, once); an entity an add must
 * not reach gets the sink, a private row as long as the longest, never read. A process row is
 * marked written (CHANGED) with the epoch read when its row was taken: no read can end inside a
 * step (readers see whole steps), so a later mark would say nothing more. */
typedef struct prow { int64_t *row; uint64_t *mark; uint64_t ep; } prow;

static inline int64_t *row_of(const sim *s, int d, int e);

/* The word of counter c in its domain's row as the step sees it, -1 if nobody counts it. */
static int32_t word_of(const sim *s, const mi_host_block *b, mi_ctr c) {
  if (c.id < 0 || (uint32_t)c.id >= (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS) return -1;
  return s->lane[c.id >> MI_HOST_INDEX_BITS].row0 ? b->off[c.id] : -1;
}

/* Reads the store's layout into the step's rows and words if it moved since the last reading
 * (s->cnt must be this step's). On a failed allocation nothing is counted this step, and the
 * next step tries again. */
static int sync_layout(mi_system *sys, sim *s) {
  uint64_t gen = mi_host_layout_gen(sys);
  if (s->lay_ok && gen == s->lay_gen && s->cnt == s->lay_cnt) return 0;
  mi_host_block *b = ((const mi_host_view *)(const void *)sys)->blk;
  s->live = b->live; s->mod = b->mod; s->epoch = &b->epoch;
  int32_t most = 1;
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    int64_t cells = b->lane[d].cells;
    struct slane *l = &s->lane[d];
    if (ON(s, d) && cells) { l->row0 = (int64_t *)(void *)b + cells; l->stride = b->lane[d].stride; l->nent = b->lane[d].nent; }
    else { l->row0 = NULL; l->stride = 0; l->nent = 0; }
    if (l->stride > most) most = l->stride;
  }
  int ok = 1;
  if (most > s->nsink) {
    int64_t *sink = calloc((size_t)most, sizeof *sink);
    if (!sink) { ok = 0; for (int d = 0; d < MI_DOM_COUNT; d++) s->lane[d] = (struct slane){NULL, 0, 0}; }
    else { free(s->sink); s->sink = sink; s->nsink = most; }
  }
  int mapped = mi_host_mapping(sys) >= 0;   /* (a class's word is known: s->fold holds none below 0) */
  for (int i = 0; i < NCTR; i++) {
    int32_t w = word_of(s, b, s->c[i]);
    s->col[i] = w;
    s->ocol[i] = s->rkind[i] == MI_KIND_OBJCL && mapped ? w : -1;
    s->scol[i] = s->rkind[i] == MI_KIND_SIMPLE ? w : -1;
  }
  for (int k = 0; k < NREASON; k++)
    for (int place = 0; place < 5; place++) s->rscol[k][place] = word_of(s, b, s->rs[k][place]);
  for (int i = 0; i < NEVROW; i++) {
    s->evcol[i][0] = s->ev_objcl[i] && !mapped ? -1 : word_of(s, b, s->ev[i][0]);
    s->evcol[i][1] = word_of(s, b, s->ev[i][1]);
    for (int k = 0; k < 10; k++) s->hcol[i][k] = k < evrows[i].n ? word_of(s, b, s->ev_hist[i][k]) : -1;
    s->evact[i] = (struct evact){s->evcol[i][0], s->evcol[i][1], (uint8_t)evrows[i].n, s->ev_objcl[i], s->ev_wmark[i]};
  }
  for (int k = 0; k < NREASON; k++) {
    const mi_item_info *it = mi_item_lookup(reason_item(k, RS_G_BLK));
    s->rsset[k] = it && it->kind == MI_KIND_SIMPLE ? s->rscol[k][RS_G_BLK] : -1;
  }
  for (int cls = 0; cls < 720; cls++) s->fold[cls] = (int16_t)mi_host_objcl_word(sys, cls);
  s->g0 = row_of(s, MI_DOM_GLOBAL, 0);
  for (int c = 0; c < 8; c++) s->crow[c] = row_of(s, MI_DOM_PROCESSOR, c);
  s->lay_gen = gen; s->lay_cnt = s->cnt; s->lay_ok = ok;
  return 1;
}

/* Entity e's row of domain d (not the process domain), the sink if nobody counts the domain or
 * e is out of its range. */
static inline int64_t *row_of(const sim *s, int d, int e) {
  const struct slane *l = &s->lane[d];
  return (unsigned)e < (unsigned)l->nent ? l->row0 + (size_t)e * (size_t)l->stride : s->sink;
}

/* Process slot's row and its mark; the sink if nobody counts processes or the slot is not alive. */
static inline prow prow_of(sim *s, int slot) {
  const struct slane *l = &s->lane[MI_DOM_PROCESS];
  if ((unsigned)slot < (unsigned)l->nent && s->live[slot])
    return (prow){l->row0 + (size_t)slot * (size_t)l->stride, &s->mod[slot], __atomic_load_n(s->epoch, __ATOMIC_RELAXED)};
  return (prow){s->sink, &s->sink_mark, 0};
}

/* Adds v at word w (-1: nothing) of row r; of a process row pr (marks it). */
#define WADD(r, w, v) do { int32_t o_ = (w); if (o_ >= 0) { int64_t *c_ = (r) + o_; __atomic_store_n(c_, *c_ + (v), __ATOMIC_RELAXED); } } while (0)
#define PWADD(pr, w, v) do { int32_t o_ = (w); if (o_ >= 0) { int64_t *c_ = (pr).row + o_; \
    __atomic_store_n(c_, *c_ + (v), __ATOMIC_RELAXED); __atomic_store_n((pr).mark, (pr).ep, __ATOMIC_RELAXED); } } while (0)
/* Raises word w (-1: nothing) of row r to v. */
#define WMAX(r, w, v) do { int32_t o_ = (w); int64_t v_ = (v); if (o_ >= 0 && (r)[o_] < v_) __atomic_store_n((r) + o_, v_, __ATOMIC_RELAXED); } while (0)
/* Adds v to a role's counter in row r / process row pr. */
#define RADD(r, role, v) WADD(r, s->col[role], v)
#define PADD(pr, role, v) PWADD(pr, s->col[role], v)
/* Adds v to class cls of a role's object-class counter in row r / process row pr. */
#define ROBJ(r, role, cls, v) do { int32_t oc_ = s->ocol[role], k_ = (cls); \
    if (oc_ >= 0 && (unsigned)k_ < 720u) WADD(r, oc_ + s->fold[k_], v); } while (0)
#define POBJ(pr, role, cls, v) do { int32_t oc_ = s->ocol[role], k_ = (cls); \
    if (oc_ >= 0 && (unsigned)k_ < 720u) PWADD(pr, oc_ + s->fold[k_], v); } while (0)

/* Sets a simple counter of row r to v / raises it to v. */
#define RSETW(r, w, v) do { int32_t o_ = (w); int64_t v_ = (v); if (o_ >= 0 && (r)[o_] != v_) __atomic_store_n((r) + o_, v_, __ATOMIC_RELAXED); } while (0)
#define RSET(r, role, v) RSETW(r, s->scol[role], v)
#define RMAX(r, role, v) do { int32_t o_ = s->scol[role]; int64_t v_ = (v); if (o_ >= 0 && (r)[o_] < v_) __atomic_store_n((r) + o_, v_, __ATOMIC_RELAXED); } while (0)

/* Adds to a role's counter for entity e where no row is at hand (an add outside a step finds
 * every word -1: s->cnt is 0 until a step reads it). */
static inline void cadd(sim *s, int role, int e, int64_t v) {
  if (s->col[role] < 0) return;
  if (s->rdom[role] == MI_DOM_PROCESS) { prow pr = prow_of(s, e); PADD(pr, role, v); }
  else { int64_t *r = row_of(s, s->rdom[role], e); RADD(r, role, v); }
}

/* Adds to a role's counter; nothing while nobody counts it, so an unwatched model pays for no
 * writes, and one watched for processes only pays nothing for its disc and processor counters.
 * The arguments must not draw: a skipped draw would change the model. */
#define ADD(sys, s, role, e, v) cadd((s), (role), (e), (v))
#define CFG(sys, item) mi_host_config((sys), (item))
/* Sets a level or raises a maximum in a step, nothing while its domain counts nothing (as ADD;
 * only in a step, where s->cnt is the step's). */
#define SET(sys, s, c, e, v) do { if ((s)->cnt && (c).id >= 0 && ON((s), (c).id >> MI_HOST_INDEX_BITS)) mi_host_set((sys), (c), (e), (v)); } while (0)
#define MAX(sys, s, c, e, v) do { if ((s)->cnt && (c).id >= 0 && ON((s), (c).id >> MI_HOST_INDEX_BITS)) mi_host_max((sys), (c), (e), (v)); } while (0)

/* Counts a stop of p for reason k lasting ticks: the global, process and processor counts and
 * the process's time (the manual's "stop" tables: each place sums what the others count). */
static inline void stop_row(sim *s, prow pr, int cpu, int k, int64_t ticks) {
  if (!s->cnt) return;
  const int32_t *w = s->rscol[k];
  WADD(s->g0, w[RS_G_STOP], 1);
  PWADD(pr, w[RS_P_STOP], 1);
  PWADD(pr, w[RS_P_TIME], ticks);
  if (CPU_ON(s)) WADD(s->crow[cpu & 7], w[RS_C_STOP], 1);
}

/* stop_row for p where its row is not at hand. */
static void stop(mi_system *sys, sim *s, const sproc *p, int k, int64_t ticks) {
  (void)sys;
  const int32_t *w = s->rscol[k];
  if ((w[RS_G_STOP] & w[RS_P_STOP] & w[RS_P_TIME] & w[RS_C_STOP]) < 0) return;   /* all four -1: nobody counts them */
  stop_row(s, prow_of(s, p->slot), p->cpu, k, ticks);
}

/* The secondary storage (sectors) a process holds by object class (temp data, perm data, NM
 * stack, CM stack, NM code, CM code, CM data, file objects, NM and CM system libraries): a
 * system process, a CI, a native-mode user program or job, a compatibility-mode one. Its
 * virtual memory is twice that; an object per class it uses; a quarter of it resident. */
static const int32_t store_sz[4][10] = {
  {32, 0, 64, 0, 256, 0, 0, 16, 512, 0}, {16, 0, 32, 0, 64, 0, 0, 8, 128, 0},
  {64, 32, 48, 0, 192, 0, 0, 128, 64, 0}, {32, 16, 16, 24, 0, 96, 32, 64, 0, 96},
};

/* The large-map classes 0-9 (the storage classes of store_sz). */
static const int CLS10[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

/* Writes a level kept by object class into row (the global row or a process's): class cls[k]
 * holds lv[k]; classes that fold into one word of the mapping in use are summed, and each word
 * is stored once (a reader never sees it half written). Nothing while nobody counts the role. */
static void objcl_level(sim *s, int64_t *row, int role, const int *cls, const int64_t *lv, int n) {
  int32_t oc = s->ocol[role];
  if (!s->cnt || oc < 0) return;
  for (int k = 0; k < n; k++) {
    int w = s->fold[cls[k]], first = 1;
    for (int j = 0; j < k; j++) if (s->fold[cls[j]] == w) first = 0;
    if (!first) continue;
    int64_t v = 0;
    for (int j = k; j < n; j++) if (s->fold[cls[j]] == w) v += lv[j];
    __atomic_store_n(row + oc + w, v, __ATOMIC_RELAXED);
  }
}

/* The system's resident pages by class (21286): a quarter of the live processes' storage. */
static void res_levels(sim *s) {
  int64_t lv[10];
  for (int c = 0; c < 10; c++) lv[c] = s->store_cur[0][c] / 4;
  objcl_level(s, s->g0, G_RES_PG, CLS10, lv, 10);
}

/* The replaceable pages in memory by class (21294): what swap-ins brought in. */
static void swap_levels(sim *s) {
  static const int cls[2] = {2, 3};
  objcl_level(s, s->g0, G_SWAP_PG, cls, s->swap_cur, 2);
}

/* The row of store_sz of p's kind. */
static const int32_t *store_of(const sproc *p) {
  return store_sz[p->kind == K_SYS || p->kind == K_JSMAIN ? 0 : p->kind == K_CI ? 1 : p->cm ? 3 : 2];
}

/* The pages of p that swap-ins may bring in: its non-resident pages of its class. */
static int16_t swap_room_of(const sproc *p) {
  int32_t sz = store_of(p)[p->cm ? 3 : 2];
  return (int16_t)(sz - sz / 4);
}

/* A live process's storage levels: its storage, virtual memory and main-memory pages by class. */
static void proc_levels(mi_system *sys, sim *s, const sproc *p) {
  const int32_t *sz = store_of(p);
  int64_t main_pg[10];
  for (int c = 0; c < 10; c++) {
    mi_host_set(sys, s->c[P_SEC_CUR + c], p->slot, sz[c]);
    mi_host_set(sys, s->c[P_VM_CUR + c], p->slot, 2 * sz[c]);
    main_pg[c] = sz[c] / 4;
  }
  objcl_level(s, prow_of(s, p->slot).row, P_MAIN_PG, CLS10, main_pg, 10);
}

/* The system's storage levels: storage, virtual memory and objects by class (the sums over the
 * live processes), the ROC pages and the resident pages by class. */
static void storage_levels(mi_system *sys, sim *s) {
  for (int c = 0; c < 10; c++)
    for (int m = 0; m < 3; m++)
      mi_host_set(sys, s->c[(m == 0 ? G_SEC_CUR : m == 1 ? G_VM_CUR : G_OBJ_CUR) + c], 0, s->store_cur[m][c]);
  mi_host_set(sys, s->c[G_ROC_CUR], 0, (s->store_cur[0][4] + s->store_cur[0][5]) / 4);
  res_levels(s);
}

/* A process comes (dir 1) or goes (dir -1): its storage, virtual memory and objects by class,
 * its resident pages, and the system's totals, which are the sums over the live processes. */
static void storage(mi_system *sys, sim *s, const sproc *p, int dir) {
  const int32_t *sz = store_of(p);
  int64_t pages = 0;
  for (int c = 0; c < 10; c++) {
    if (!sz[c]) continue;
    int64_t v[3] = {sz[c], 2 * sz[c], 1};
    for (int m = 0; m < 3; m++) {
      s->store_cur[m][c] += dir * v[m];
      if (dir > 0) ADD(sys, s, (m == 0 ? G_SEC_CUM : m == 1 ? G_VM_CUM : G_OBJ_CUM) + c, 0, v[m]);
    }
    if (dir > 0) { ADD(sys, s, P_SEC_CUM + c, p->slot, v[0]); ADD(sys, s, P_VM_CUM + c, p->slot, v[1]); }
    pages += sz[c] / 4;
  }
  if (dir > 0) proc_levels(sys, s, p);
  storage_levels(sys, s);
  if (dir > 0) { ADD(sys, s, G_CUM_ALLOC, 0, pages); ADD(sys, s, P_CUM_ALLOC, p->slot, pages); ADD(sys, s, G_ROC_CUM, 0, sz[4] / 4 + sz[5] / 4); }
  else ADD(sys, s, G_CUM_ALLOC_FREE, 0, pages);
}

/* The programs and libraries loaded now (21250, 21251): the sessions' two programs and the
 * jobs' two, and the system XL once a user program runs. */
static void loader_levels(mi_system *sys, sim *s) {
  int pgms = (s->w.sessions > 0) + (s->w.sessions > 1) + (s->w.jobs > 0) + (s->w.jobs > 1);
  mi_host_set(sys, s->c[G_CUR_PGM], 0, pgms);
  mi_host_set(sys, s->c[G_CUR_LIB], 0, pgms > 0);
}

/* The mirror repair's levels on LDEV 1 (23069, 23070, 23072-23074). */
static void repair_levels(mi_system *sys, sim *s) {
  if (!s->rep_start) return;
  mi_host_set(sys, s->c[I_REP_START], 1, s->rep_start);
  if (s->rep_stop) mi_host_set(sys, s->c[I_REP_STOP], 1, s->rep_stop);
  mi_host_set(sys, s->c[I_REP_MIBS], 1, s->rep_mibs);
  mi_host_set(sys, s->c[I_REP_T], 1, s->rep_time);
  mi_host_set(sys, s->c[I_REP_PCT], 1, s->rep_pct);
}

/* The transaction manager's times of day: the latest log post's end and checkpoint's start
 * (21556, 21573 and the user log's 21607, 21624), ticks since boot. */
static void xm_levels(mi_system *sys, sim *s) {
  for (int l = 0; l < 2; l++) {
    int32_t o = 51 * l;
    if (s->xm_last_write[l]) mi_host_set(sys, inst_counter(21556 + o), 0, s->xm_last_write[l] - s->boot);
    if (s->xm_last_ckpt[l]) mi_host_set(sys, inst_counter(21573 + o), 0, s->xm_last_ckpt[l] - s->boot);
  }
}

/* The census's levels: the live processes by kind (21319-21322: a session's program is created by
 * its CI, a job's process by the job's start-up, so it counts among the others) and the free
 * memory (21309, 128 pages of 2 KB per live process); returns the pages in use. */
static int64_t pop_levels(mi_system *sys, sim *s) {
  int sessions = s->npop[K_USER], ci = s->npop[K_CI];
  int sysp = s->npop[K_SYS] + s->npop[K_JSMAIN], user = sessions + s->npop[K_JOB];
  mi_host_set(sys, s->c[G_CUR_CI], 0, ci);
  mi_host_set(sys, s->c[G_CUR_SYS], 0, sysp);
  mi_host_set(sys, s->c[G_CUR_USER], 0, s->npop[K_JOB]);
  int64_t used = (int64_t)(ci + sysp + user) * 128, mem = s->w.memory_pages;
  mi_host_set(sys, s->c[G_FREE_MEM], 0, used < mem ? mem - used : mem / 64);
  mi_host_set(sys, s->c[G_PROC_CI], 0, sessions);   /* the sessions' programs, created by their CIs */
  return used;
}

static void levels(mi_system *sys, sim *s, int nready);

/* Writes every level the model keeps: the system's (once a second, and whenever the layout
 * moved) and, with procs, every live process's (when the layout moved: an ON starts its cells
 * at zero, and a level written while nobody counted it was not kept). A level is written whole,
 * never added to, so it reads the same whenever it was enabled. */
static void write_levels(mi_system *sys, sim *s, int procs) {
  storage_levels(sys, s);
  mi_host_set(sys, s->c[G_LRU], 0, s->lru_depth);
  loader_levels(sys, s);
  swap_levels(s);
  if (!procs) return;
  /* the layout moved: the levels written on events or each step too */
  pop_levels(sys, s);
  xm_levels(sys, s);
  repair_levels(sys, s);
  if (IO_ON(s))
    for (int l = 1; l <= MI_MAX_LDEV; l++)
      if (mi_host_device(sys, l) == 1) RSET(row_of(s, MI_DOM_IO, l), I_QCUR, s->disk_out[l]);   /* the discs' queues */
  for (int k = 0; k < NREASON; k++) blk_changed(s, k);
  levels(sys, s, s->nrdy);
  for (int i = 0, hi = mi_host_proc_hi(sys); i < hi; i++)
    if (s->p[i].state != S_FREE) proc_levels(sys, s, &s->p[i]);
}

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
  p->queue = kind == K_JOB ? Q_DS : kind == K_SYS ? Q_BS : Q_CS;
  p->cm = kind == K_USER && rnd(s) < 0.2;
  int64_t now = mi_host_now(sys);
  p->ready_since = now;
  if (kind == K_USER) { p->think_start = now; p->wake = now + think(s, sys, s->w.think_ms); p->term = s->next_term; }
  if (kind == K_JOB) { p->work_left = expo(s, sys, s->w.job_ms); p->burst = expo(s, sys, s->w.job_cpu_ms); }
  p->cpu = slot % mi_host_cpus(sys);
  set_state(s, p, kind == K_USER ? S_THINK : kind == K_JOB ? S_READY : S_IDLE);
  p->swap_room = swap_room_of(p);
  storage(sys, s, p, 1);
  if (kind == K_CI) stop(sys, s, p, K_CHILD, 0);   /* the CI waits for its program from now on */
  if (kind == K_USER || kind == K_JOB) {   /* the loader maps its program and the system XL */
    ADD(sys, s, G_PGM_ALLOC, 0, 1); ADD(sys, s, G_LIB_ALLOC, 0, 1);
    loader_levels(sys, s);
  }
  return slot;
}

#define QBASE(s, q) ((s)->qb[q])
#define QLIMIT(s, q) ((s)->ql[q])
#define QUANTUM(s, q) ((s)->qt[q])

/* Reads the configuration a step uses many times: ticks per ms, the queues' priority bases and
 * limits (3019-3028 by queue) and quanta in ticks (3029 CS max, 3031 DS, 3032 ES; the others
 * unlimited); a PUT lands between steps, so a step sees one configuration throughout. */
static void cache_config(mi_system *sys, sim *s) {
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

/* Logs sessions and jobs on (limits, fence) and counts them in 3003/3005. */
static void logon(mi_system *sys, sim *s) {
  /* one census of the live processes: sessions and jobs (the populations of 21319-21322 and
   * the memory in use follow from the counts by kind: pop_levels) */
  int sessions = s->npop[K_USER], jobs = s->npop[K_JOB];
  int32_t w = s->rscol[K_CHILD][RS_P_TIME];
  if (w >= 0)   /* each CI counts another second */
    for (int i = 0, hi = mi_host_proc_hi(sys); i < hi; i++)
      if (s->p[i].state != S_FREE && s->p[i].kind == K_CI) { prow pr = prow_of(s, i); PWADD(pr, w, 1000 * s->tpm); }
  /* at most 50 logons a second: a large workload ramps up, and limits PUT meanwhile hold */
  int budget = 50;
  while (sessions < s->w.sessions && sessions < CFG(sys, 3004) && budget-- > 0) {
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
    int sl = spawn(sys, s, K_JOB, jobs % 2 ? "BILLING" : "REPORTS", "BATCH", 2, num);
    if (sl < 0) break;
    s->p[sl].unit = jobs % 2 ? UNIT_TAPE : UNIT_PRINTER;
    if (jobs % 4 == 3) { s->p[sl].queue = Q_ES; s->nq[Q_DS]--; s->nq[Q_ES]++; }   /* every fourth job runs in ES */
    jobs++;
  }
  mi_host_config_set(sys, 3003, jobs);
  mi_host_config_set(sys, 3005, sessions);
  int64_t used = pop_levels(sys, s), mem = s->w.memory_pages;
  s->pressure = (double)used / (double)(mem > 0 ? mem : 1);
}

/* Ends a job: its process dies. */
static void end_proc(mi_system *sys, sim *s, sproc *p) {
  storage(sys, s, p, -1);
  if (p->swap_pg) {   /* its replaceable pages leave memory with it */
    s->swap_cur[p->cm] -= p->swap_pg;
    p->swap_pg = 0;
    swap_levels(s);
  }
  mi_host_proc_exit(sys, p->slot);
  set_state(s, p, S_FREE);
  if (p->kind == K_JOB) mi_host_config_set(sys, 3003, s->npop[K_JOB]);   /* JOB COUNT: the job logged off */
  pop_levels(sys, s);
  ADD(sys, s, G_COMPL, 0, 1);
  ADD(sys, s, C_COMPL, p->cpu, 1);   /* 27015: a process terminated, on the CPU that ran it last */
}

/* Counts a value into a histogram of 10 counters by upper bounds in ms. */
static void histo(mi_system *sys, sim *s, int base, const int *bounds, int64_t ticks) {
  int64_t *gr = s->g0;
  (void)sys;
  if (!s->cnt) return;   /* ADD's own test, before the division */
  int64_t ms = ticks / s->tpm;
  int b = 0;
  while (b < 9 && ms >= bounds[b]) b++;
  RADD(gr, base + b, 1);
}

static const int resp_bounds[9] = {500, 1000, 1500, 2000, 3000, 4000, 5000, 10000, 20000};
static const int think_bounds[9] = {1000, 2000, 3000, 4000, 5000, 10000, 20000, 30000, 40000};
static const int io_classes[6] = {7, 650, 695, 4, 2, 0};
static const int pf_classes[7][2] = {{4, 0}, {2, 1}, {0, 2}, {7, 3}, {5, 4}, {3, 5}, {6, 6}};

/* 64 random bits from (seed, operation, k): the rooms' event counts draw from them rather than
 * from the model's stream, so counting them or not (nobody enabled them) leaves the model, and
 * every other count, the same. */
static uint64_t ev_hash(const sim *s, uint64_t op, int k) {
  uint64_t x = s->w.seed ^ (op * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)k << 40);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* A process issues a disk I/O: device, process and global counters, then waits. */
static void issue_io(mi_system *sys, sim *s, sproc *p, prow pr, int64_t now, int cpu, int dev, int dev_write) {
  int disks = s->w.disks > 0 ? s->w.disks : 1;
  int ldev = dev ? dev : 1 + (int)(rnd(s) * disks) % disks;
  if (!dev && ldev > 5) ldev += 94;   /* disks are LDEVs 1-5, then 100-199 */
  int write = dev ? dev_write : rnd(s) < 0.3;
  int cls = io_classes[(int)(rnd(s) * 6) % 6];
  int32_t bytes = 1024 * (1 + (int)(rnd(s) * 8));
  int64_t start = s->disk_busy[ldev] > now ? s->disk_busy[ldev] : now;
  int64_t service = expo(s, sys, dev ? 4 * s->w.disk_ms : s->w.disk_ms) + 1;
  int64_t done = start + service;
  int depth = s->disk_out[ldev]++;
  s->disk_busy[ldev] = done;
  int64_t *ir = row_of(s, MI_DOM_IO, ldev), *gr = s->g0;
  const int cnt = s->cnt, ion = IO_ON(s);
  /* every type of device: bytes and round trips (23040/23041, 23023/23024); a tape or a printer
   * counts a non-disk request and its completion (23004/23005, 23022), a disc the rest (the
   * non-disk items never move on a disc, the disc's never elsewhere: core/sim/BOOKS.md 8) */
  if (ion) {
    RADD(ir, write ? I_WTX : I_RDX, bytes);
    RADD(ir, write ? I_WT_RTT : I_RD_RTT, done - now);
    if (dev) { RADD(ir, write ? I_NONMM_WT : I_NONMM_RD, 1); RADD(ir, I_COMPL, 1); }
  }
  if (ion && !dev) {
  RADD(ir, I_COMPLETED, 1);
  RADD(ir, write ? I_CWR : I_CRD, 1);
  RADD(ir, I_QDELAY, start - now);
  RADD(ir, I_SERVICE, service);
  RADD(ir, I_QD + (depth == 0 ? 0 : depth == 1 ? 1 : depth == 2 ? 2 : depth <= 4 ? 3 : depth <= 8 ? 4 : depth <= 16 ? 5 : depth <= 32 ? 6 : 7), 1);
  RMAX(ir, I_QMAX, depth + 1);
  RSET(ir, I_QCUR, s->disk_out[ldev]);
  RADD(ir, I_QCUM, depth + 1);
  }
  uint64_t x = dev ? 0 : ev_hash(s, ++s->mmseq, 1 << 20);   /* (whether counted or not) */
  if (!dev && cnt) {
    if (ion) {
      ROBJ(ir, write ? I_WT_OBJ : I_RD_OBJ, cls, 1);
      RADD(ir, write ? I_SWWT : I_SWRD, 1);   /* 23009/23010: disk read and write requests */
    }
    /* the memory manager: reads are prefetches into memory, writes are posts out of it */
    int pages = bytes / 2048 ? bytes / 2048 : 1;
    ROBJ(gr, write ? G_POST_C : G_PREF_C, cls, 1);
    ROBJ(gr, write ? G_POST_LEN : G_PREF_LEN, cls, pages);
    ROBJ(gr, write ? G_POST_PG : G_PREF_PG, cls, pages);
    ROBJ(gr, write ? G_POST_IO : G_PREF_IO, cls, 1);
    if (!write) stop_row(s, pr, p->cpu, K_PREFETCH, done - now);
    /* one in ten is asynchronous (21266, 21271); one read in twenty brings along a prefetch of
     * never-touched pages, which needs memory but no I/O (21263: evicting under pressure 21264,
     * else 21265). Drawn apart from the model's stream: counting them changes nothing else. */
    if (x % 10 == 0) ROBJ(gr, write ? G_POST_UB : G_PREF_UB, cls, 1);
    if (!write && x / 10 % 20 == 0) {
      ROBJ(gr, G_PREF_C, cls, 1); ROBJ(gr, G_PREF_LEN, cls, pages);
      ROBJ(gr, G_PREF_VIRGIN, cls, 1); ROBJ(gr, G_PREF_VIRGIN + (s->pressure > 0.8 ? 1 : 2), cls, 1);
    }
  }
  /* the same request seen by the disc's volume manager: queue depth, waits and service by bands
   * (only adds: nothing to do, not even the divisions, while nobody counts the discs) */
  if (ion && !dev) {
    static const int band_ms[4] = {25, 50, 100, 200};
    int64_t qw = (start - now) / s->tpm, sv = service / s->tpm;
    int bq = 0, bs = 0;
    while (bq < 4 && qw >= band_ms[bq]) bq++;
    while (bs < 4 && sv >= band_ms[bs]) bs++;
    RADD(ir, I_VQD + (depth == 0 ? 0 : depth == 1 ? 1 : depth == 2 ? 2 : depth <= 4 ? 3 : depth <= 8 ? 4 : depth <= 16 ? 5 : depth <= 32 ? 6 : 7), 1);
    RMAX(ir, I_VQMAX, depth + 1);
    RADD(ir, write ? I_VWQCUM : I_VRQCUM, 1);   /* requests queued (23075/23076) */
    RADD(ir, (write ? I_VWQW : I_VRQW) + bq, 1);
    RADD(ir, write ? I_VWQWT : I_VRQWT, start - now);
    RADD(ir, (write ? I_VWSV : I_VRSV) + bs, 1);
    RADD(ir, write ? I_VWSVT : I_VRSVT, service);
    RADD(ir, I_REQ_SECS, done - now);
    ROBJ(ir, write ? I_OBJ_WT : I_OBJ_RD, cls, bytes);
  }
  if (!dev) {   /* disc I/O counters of the process and the stop reasons; tape and printer are other I/O */
    if (cnt) {
    PADD(pr, write ? P_DWRITE : P_DREAD, 1);
    PADD(pr, write ? P_DWRITE_SZ : P_DREAD_SZ, bytes);
    POBJ(pr, write ? P_DWRITE_OBJ : P_DREAD_OBJ, cls, 1);
    PADD(pr, write ? P_LWT_SZ : P_LRD_SZ, bytes);
    POBJ(pr, write ? P_DWT_SZ_OBJ : P_DRD_SZ_OBJ, cls, bytes);
    stop_row(s, pr, p->cpu, K_DISC_IO, done - now);
    }
    (void)cpu;
  } else {   /* the job's printer or tape: a write or a read, now and then a control (form feed, rewind) */
    if (dev == UNIT_PRINTER) { PADD(pr, P_PRN_WT, 1); PADD(pr, P_PRN_WT_SZ, bytes); }
    else if (write) { PADD(pr, P_TAPE_WT, 1); PADD(pr, P_TAPE_WT_SZ, bytes); }
    else { PADD(pr, P_TAPE_RD, 1); PADD(pr, P_TAPE_RD_SZ, bytes); }
    if (rnd(s) < 0.05) PADD(pr, dev == UNIT_PRINTER ? P_PRN_OTHER : P_TAPE_OTHER, 1);
    stop_row(s, pr, p->cpu, K_OTHER_IO, done - now);
  }
  /* a file-system semaphore now and then, queue length from the disk queue */
  if (rnd(s) < 0.2) {
    static const int sem[4] = {19, 20, 23, 59};
    int cls_s = sem[(int)(rnd(s) * 4) % 4];
    mi_host_sem_block(sys, MI_DOM_GLOBAL, 0, cls_s, depth + 1);
    mi_host_sem_block(sys, MI_DOM_PROCESS, p->slot, cls_s, depth + 1);
  }
  p->disk = ldev;
  p->wake = done;
  p->io_other = dev != 0;
  set_state(s, p, S_IO);
}

/* p stops for reason k at time at and waits ticks (a room's lock, port, fault ...). */
static void wait_on(mi_system *sys, sim *s, sproc *p, int k, int64_t at, int64_t ticks) {
  stop(sys, s, p, k, ticks);
  p->reason = k;
  p->wake = at + ticks;
  p->after_wait = 1;
  p->burst = s->tpm_2 + 1;   /* half a millisecond to pick up where it stopped */
  set_state(s, p, S_WAIT);
}

/* A depth drawn from an event's bits for a watermark row (a hash chain a collision found):
 * 2 and more, each further entry half as likely, at most 17. */
static int64_t ev_depth(uint64_t x) {
  uint32_t y = (uint32_t)(x >> 16) | 0x8000u;
  return 2 + __builtin_ctz(y);
}

/* 1 if anybody counts the global or process domain now (else the event rows are skipped). */
static int counting(const mi_system *sys) {
  const mi_host_block *b = ((const mi_host_view *)(const void *)sys)->blk;
  return b->lane[MI_DOM_GLOBAL].cells || b->lane[MI_DOM_PROCESS].cells;
}

/* Counts n events of row i for p (its global counter, by class cls if it is by class, and its
 * per-process twin). */
static inline void ev_count(sim *s, int64_t *gr, prow pr, int i, int64_t n, int cls) {
  if (s->ev_objcl[i]) {   /* (an object-class row has no per-process twin) */
    int32_t w = s->evcol[i][0];
    if (w >= 0 && (unsigned)cls < 720u) WADD(gr, w + s->fold[cls], n);
    return;
  }
  WADD(gr, s->evcol[i][0], n);
  PWADD(pr, s->evcol[i][1], n * s->ev_pmul[i]);
}

/* The event counters of one operation of a room by p (evrows) on an object of class cls: each
 * row's whole count, and its fraction by chance. */
static void room_events(mi_system *sys, sim *s, prow pr, int room, int cls) {
  uint64_t op = ++s->opseq;
  s->room_ops[room]++;
  if (!counting(sys)) return;
  int64_t *gr = s->g0;
  for (int k = 0; k < s->nwhole[room]; k++) {
    int i = s->whole[room][k];
    if (s->ev_wmark[i]) WMAX(gr, s->evcol[i][0], ev_depth(ev_hash(s, op, 64 + k)));
    else ev_count(s, gr, pr, i, s->ev_whole[i], cls);
  }
  /* the fractions: a Poisson number of events (their mean the fractions' sum), each on a row
   * chosen by its fraction */
  int nch = s->nchance[room];
  if (!nch) return;
  uint64_t x0 = ev_hash(s, op, 0);
  int hits = s->ev_ntop[room][x0 >> (64 - EV_TOP_BITS)];
  if (hits == EV_SPLIT) hits = ev_hits(s, room, x0);
  const uint8_t *top = s->ev_top[room];
  const int *chance = s->chance[room];
  int used[NSUBGRP] = {0};   /* each subset group's events in this operation */
  for (int h = 1; h <= hits; h++) {
    uint64_t x = ev_hash(s, op, h);
    int lo = top[x >> (64 - EV_TOP_BITS)];
    if (lo == EV_SPLIT) lo = ev_row(s, room, x);
    int i = chance[lo];
    if (s->ev_grp[i]) {   /* a subset: no more than its total in one operation */
      int g = s->ev_grp[i] - 1;
      if (used[g] >= s->ev_cap[room][g]) continue;
      used[g]++;
    }
    const struct evact *a = &s->evact[i];
    if (a->n > 1) {   /* a histogram: one bucket per event */
      WADD(gr, s->hcol[i][(x & 0x7FF) % (uint64_t)a->n], 1);
      continue;
    }
    if (a->objcl) { if (a->g >= 0 && (unsigned)cls < 720u) WADD(gr, a->g + s->fold[cls], 1); }
    else if (a->wmark) WMAX(gr, a->g, ev_depth(x));
    else { WADD(gr, a->g, 1); PWADD(pr, a->p, 1); }
  }
}

/* One operation of a room by p at time at: its events, maybe a semaphore block, maybe a wait.
 * Returns 1 when p now waits. */
static int room_op(mi_system *sys, sim *s, sproc *p, prow pr, int room, int64_t at) {
  room_events(sys, s, pr, room, 7);
  if (room == R_FILE) {
    if (s->lru_depth < LRU_MAX) s->lru_depth++;   /* the file it closes keeps its entry on the LRU list (full: one is reused) */
  }
  if (room == R_FILE && s->cnt) {   /* an open reads the directory and the file label: a control request to the first disc */
    RSET(s->g0, G_LRU, s->lru_depth);
    PADD(pr, P_DOTHER, 1);
    POBJ(pr, P_DOTHER_OBJ, 7, 1);
    if (IO_ON(s)) RADD(row_of(s, MI_DOM_IO, 1), I_CTRL, 1);
  }
  for (size_t i = 0; i < sizeof semrows / sizeof semrows[0]; i++)
    if (semrows[i].room == room && rnd(s) < semrows[i].chance) {
      int cls = semrows[i].cls[(int)(rnd(s) * 6) % 6], q = 1 + (int)(rnd(s) * 8);
      mi_host_sem_block(sys, MI_DOM_GLOBAL, 0, cls, q);
      mi_host_sem_block(sys, MI_DOM_PROCESS, p->slot, cls, q);
    }
  double u = rnd(s), acc = 0;
  for (int i = s->wt_lo[room]; i < s->wt_hi[room]; i++) {
    if (waitrows[i].room != room) continue;
    acc += waitrows[i].chance;
    if (u < acc) {
      if (waitrows[i].ms == 0) { stop(sys, s, p, reason_of(waitrows[i].reason), 0); return 0; }
      wait_on(sys, s, p, reason_of(waitrows[i].reason), at, expo(s, sys, waitrows[i].ms) + 1);
      return 1;
    }
  }
  return 0;
}

/* The rooms' operations between two bursts of p: a session spreads its transaction's
 * operations over its I/Os, a job makes a quarter of the rates per burst. 1 when p waits. */
static int rooms(mi_system *sys, sim *s, sproc *p, prow pr, int64_t at) {
  const double rate[4] = {s->w.file_opens, s->w.image_calls, s->w.sql_stmts, s->w.ipc_msgs};
  double per = p->kind == K_USER ? 1.0 / (s->w.txn_ios + 1) : 0.25;
  for (int r = 0; r < 4; r++) {
    for (double x = rate[r] * per; x > 0; x -= 1) {
      if (x < 1 && rnd(s) >= x) break;
      if (room_op(sys, s, p, pr, r, at)) return 1;
    }
  }
  return 0;
}

/* Page faults that accompany an I/O under memory pressure; returns memory-manager ticks. A
 * fault that must read its page (one in four, more under pressure) makes p wait for it:
 * *waits is set then. */
static int64_t faults(mi_system *sys, sim *s, sproc *p, prow pr, int cpu, int64_t at, int *waits) {
  int64_t *cr = s->crow[(cpu) & 7], *gr = s->g0;
  int64_t n = 0, t = 0;
  double f = s->w.faults_per_io;
  while (f > 0) { if (rnd(s) < f) n++; f -= 1.0; }
  int wait_k = -1;
  for (int64_t i = 0; i < n; i++) {
    int k = (int)(rnd(s) * 7) % 7, cls = pf_classes[k][0];
    int io = rnd(s) < 0.25 + s->pressure / 4;
    if (s->cnt) {
      ROBJ(gr, G_PF, cls, 1);
      ROBJ(gr, G_PF_LEN, cls, 2);
      POBJ(pr, P_PF, cls, 1);
      if (io) { ROBJ(gr, G_PF_IO_PG, cls, 2); ROBJ(gr, G_PF_IO_MIBS, cls, 1); }
      if (cls == 0) {   /* new transient pages; with free memory to spare, served without evicting */
        ROBJ(gr, G_PF_VIRGIN, cls, 1);
        if (s->pressure < 0.8) { ROBJ(gr, G_PF_VIRGIN_UB, cls, 1); ROBJ(gr, G_PF_VIRGIN_UB_PG, cls, 2); }
      }
      if (CPU_ON(s)) RADD(cr, C_FETCH_C, 1);
    }
    if (io && wait_k < 0) wait_k = pf_classes[k][1];   /* p waits for the first page read */
    else stop_row(s, pr, p->cpu, pf_classes[k][1], s->tpm_5);   /* the rest are resolved meanwhile: 0.2 ms */
    s->sg[SG_FETCH_C]++;
    s->sg[SG_CLOCK]++;
    room_events(sys, s, pr, R_MEM, cls);
    t += s->tpm_5;   /* 0.2 ms of memory manager per fault */
  }
  if (n) { RADD(gr, G_PRESS, n > 1); mi_host_max(sys, s->c[G_MAX_PF_DEPTH], 0, n); }
  *waits = 0;
  if (wait_k >= 0) { wait_on(sys, s, p, wait_k, at, expo(s, sys, s->w.disk_ms) + 1); *waits = 1; }
  else if (n && room_op(sys, s, p, pr, R_MEM, at)) *waits = 1;
  return t;
}

/* Picks the ready process of highest priority not yet run in this step (the first come among
 * equals); -1 if none. O(1): the first of the dispatch queue's top level. */
static int pick(sim *s) {
  return rh_pop(s);
}

/* A disk I/O completes: the process leaves the disk's queue (one interrupt). */
static void io_done(mi_system *sys, sim *s, sproc *p) {
  (void)sys;
  s->disk_out[p->disk]--;
  if (IO_ON(s) && !p->io_other) RSET(row_of(s, MI_DOM_IO, p->disk), I_QCUR, s->disk_out[p->disk]);   /* (a disc's queue) */
}

/* Gives p priority pri, counting the adjustment (pmc_process_priority counts how often a
 * process's priority changed, not what it is). */
static void set_pri(sim *s, sproc *p, int32_t pri) {
  if (p->pri == pri) return;
  p->pri = pri;
  cadd(s, P_PRI, p->slot, 1);
}

/* A system process wakes for its periodic duty, in the BS queue. */
static void duty_wake(mi_system *sys, sim *s, sproc *p) {
  p->burst = expo(s, sys, 2.0) + 1;
  set_pri(s, p, QBASE(s, p->queue));
  p->quantum_used = 0;
}

/* A session's terminal transfer of bytes: a non-disk request and its completion on its terminal,
 * and for a compatibility-mode program a blocked CM one with its bytes (23004/23005, 23022,
 * 23013-23016, 23036/23037). Only in a step. */
static void term_io(sim *s, const sproc *p, int write, int64_t bytes) {
  if (!IO_ON(s)) return;
  int64_t *ir = row_of(s, MI_DOM_IO, p->term);
  RADD(ir, write ? I_NONMM_WT : I_NONMM_RD, 1);
  RADD(ir, I_COMPL, 1);
  if (p->cm) { RADD(ir, write ? I_CM_WT : I_CM_RD, 1); RADD(ir, write ? I_CM_BWT : I_CM_BRD, 1); RADD(ir, write ? I_WTLEN : I_RDLEN, bytes); }
}

/* A session's terminal read completes: its think time is counted and a transaction starts. */
static void terminal_read(mi_system *sys, sim *s, sproc *p, int64_t now) {
  int64_t think = now - p->think_start;
  histo(sys, s, G_THINK, think_bounds, think);
  if (think < 100 * s->tpm) ADD(sys, s, G_THINK_UNDER, 0, 1);   /* under 21030's 100 ms */
  ADD(sys, s, P_THINK_T, p->slot, think);
  stop(sys, s, p, K_TERM_READ, think);
  ADD(sys, s, P_TERM_READS, p->slot, 1);
  int64_t rd_bytes = 8 + (int64_t)(72 * rnd(s));   /* drawn whether counted or not: the model's stream */
  ADD(sys, s, P_TRD_SZ, p->slot, rd_bytes);
  term_io(s, p, 0, rd_bytes);
  if (rnd(s) < 0.05) {   /* the read's timer popped: the user typed nothing */
    ADD(sys, s, P_TIMED_C, p->slot, 1); ADD(sys, s, P_TIMED_T, p->slot, think);
    ADD(sys, s, I_TIMED_C, p->term, 1); ADD(sys, s, I_TIMED_T, p->term, think);
  }
  ADD(sys, s, P_LTRD, p->slot, 1);
  ADD(sys, s, P_TREAD, p->slot, 1);
  ADD(sys, s, I_TTHINK, p->term, think);
  ADD(sys, s, I_TREADS, p->term, 1);
  p->txn_start = now;
  p->first_done = 0;
  p->ios_left = (int)(s->w.txn_ios * 2 * rnd(s) + 0.5);
  p->burst = expo(s, sys, s->w.txn_cpu_ms / (p->ios_left + 1)) + 1;
  set_pri(s, p, QBASE(s, p->queue));
  p->quantum_used = 0;
}

/* The wake-ups due by now, earliest first, made ready; counts the interrupts (I/O completions)
 * and returns how many sessions woke at CS priority. */
static void wake_due(mi_system *sys, sim *s, int64_t now, int *interrupts, int woke[3]) {
  for (int k = 0, n = wake_collect(s, now); k < n; k++) {
    sproc *p = &s->p[s->due[k].idx];
    if (!((p->state == S_THINK || p->state == S_IO || p->state == S_SLEEP || p->state == S_WAIT) && p->wake == s->due[k].at))
      continue;   /* stale */
    if (p->state == S_IO) { io_done(sys, s, p); (*interrupts)++; woke[1] += p->queue == Q_CS; }
    else if (p->state == S_SLEEP) { duty_wake(sys, s, p); woke[2]++; }
    else if (p->state == S_THINK) { terminal_read(sys, s, p, now); woke[0]++; }
    p->ready_since = now;
    set_state(s, p, S_READY);
  }
}

/* Queue accounting at the step's start: per-queue lengths, preemptions of batch processes by
 * waking sessions, ready-queue entries and the time at each ready-queue length. */
static void queue_accounting(mi_system *sys, sim *s, const int woke[3]) {
  int64_t *gr = s->g0;
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
  int64_t *gr = s->g0;
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

/* A CPU launches p and runs it for up to its quantum from *budget. */
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
  int64_t *cr = s->crow[cpu & 7], *gr = s->g0;
  prow pr = prow_of(s, p->slot);
  if (CPU_ON(s)) {
    RADD(cr, C_DISP_T, disp); RADD(cr, C_DISP_C, 1); RADD(cr, C_LAUNCH, 1);
    RADD(cr, C_Q_T + p->queue, run); RADD(cr, C_Q_C + p->queue, 1);
    if (swapped) { RADD(cr, C_SWAP_T, sw); RADD(cr, C_SWAP_C, 1); }
    if (trapped) { RADD(cr, C_TOS_T, tt); RADD(cr, C_TOS_C, 1); }
    if (p->cm) RADD(cr, C_CM_T, run);
  }
  PADD(pr, P_LAUNCH, 1); PADD(pr, P_READY, own > 0 ? own : 0);
  if (swapped) {
    RADD(gr, G_SWAPIN_T, sw); RADD(gr, G_SWAPIN_C, 1);
    if (swap_pages) swap_levels(s);
  }
  if (trapped) {
    RADD(gr, G_TOS_T, tt); RADD(gr, G_TOS_C, 1);
    RADD(gr, G_TOS_TRAP + (int)(s->dispatches / 1009 % 3), 1);
  }
  PADD(pr, P_TIME, run);
  if (p->cm) { PADD(pr, P_CM_T, run); PADD(pr, P_SW2CM, 1); PADD(pr, P_SW2NM, 1); }
}

/* A burst stopped at time at with work left: on an expired quantum the priority decays toward
 * the limit; it is ready again from at. */
static void burst_stopped(mi_system *sys, sim *s, sproc *p, int cpu, int64_t at) {
  if (p->quantum_used >= QUANTUM(s, p->queue)) {   /* quantum expired: decay toward the limit */
    p->quantum_used = 0;
    set_pri(s, p, p->pri - 128 < QLIMIT(s, p->queue) ? QLIMIT(s, p->queue) : p->pri - 128);
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
  RADD(s->g0, G_RQ_T + (m <= 2 ? (int)m : m <= 4 ? 3 : m <= 8 ? 4 : m <= 16 ? 5 : m <= 32 ? 6 : 7), len);
  s->sg[SG_REQ_SECS] += area;
}

/* A burst is done at time at: the first response, then the next I/O, a system process's sleep,
 * a session's response and think, or a job's end. */
static void burst_done(mi_system *sys, sim *s, sproc *p, int cpu, int64_t now, int64_t len, int64_t *budget) {
  int64_t *cr = s->crow[(cpu) & 7];
  prow pr = prow_of(s, p->slot);
  int64_t tpm = s->tpm;
  if (p->kind == K_USER && !p->first_done) {
    p->first_done = 1;
    int64_t first = now + (len - *budget) - p->txn_start;
    histo(sys, s, G_FIRST, resp_bounds, first);
    if (s->cnt) {
      PADD(pr, P_FIRST_T, first);
      ADD(sys, s, I_FIRST_T, p->term, first);
      PADD(pr, P_LTWT, 1); PADD(pr, P_TWRITE, 1);
    }
  }
  if ((p->kind == K_USER && p->ios_left > 0) || (p->kind == K_JOB && p->work_left > 0)) {
    if (p->after_wait) p->after_wait = 0;   /* back from a room's wait: on to the I/O */
    else {
      int waits;
      int64_t mm = faults(sys, s, p, pr, cpu, now + (len - *budget), &waits);
      if (mm > *budget) mm = *budget;
      *budget -= mm;
      s->sg[SG_FETCH_T] += mm; if (CPU_ON(s)) RADD(cr, C_FETCH_T, mm);
      if (waits || rooms(sys, s, p, pr, now + (len - *budget))) return;
    }
    if (p->kind == K_USER) { p->ios_left--; p->burst = expo(s, sys, s->w.txn_cpu_ms / (p->ios_left + 2)) + 1; }
    else p->burst = expo(s, sys, s->w.job_cpu_ms) + 1;
    /* one job I/O in ten goes to the job's own device: REPORTS prints, BILLING reads tape */
    int dev = p->kind == K_JOB && p->unit && rnd(s) < 0.1 ? p->unit : 0;
    issue_io(sys, s, p, pr, now + (len - *budget), cpu, dev, dev == UNIT_PRINTER || (dev && p->work_left % 3 == 0));
  } else if (p->kind == K_SYS) {
    if (p->after_wait) p->after_wait = 0;
    else if (room_op(sys, s, p, pr, R_SYS, now + (len - *budget))) return;   /* its duty waits */
    /* duties every 0.5-1.5 s; SYSMAIN's every 2-5 s (a long pause) */
    double pause_ms = p->sysno == 6 ? 2000 + 3000 * rnd(s) : 500 + 1000 * rnd(s);
    p->wake = now + (len - *budget) + (int64_t)(pause_ms * tpm);
    p->short_sleep = pause_ms <= 1000;
    p->long_sleep = pause_ms >= 2000;
    stop_row(s, pr, p->cpu, p->long_sleep ? K_LONG_PAUSE : K_TIMER, p->wake - now - (len - *budget));
    set_state(s, p, S_SLEEP);
  } else if (p->kind == K_USER) {
    int64_t resp = now + (len - *budget) - p->txn_start;
    histo(sys, s, G_RESP, resp_bounds, resp);
    if (s->cnt) { PADD(pr, P_RESP_T, resp); ADD(sys, s, I_TRESP, p->term, resp); }
    double cpu_ms = (double)p->txn_cpu / (double)tpm;
    s->cs_avg_ms = s->cs_avg_ms > 0 ? 0.95 * s->cs_avg_ms + 0.05 * cpu_ms : cpu_ms;
    p->txn_cpu = 0;
    /* the reply goes to the terminal: a write of 200-1,800 bytes, the room's rare waits */
    stop_row(s, pr, p->cpu, K_TERM_WRITE, tpm * 2);
    int64_t wt_bytes = 200 + (int64_t)(1600 * rnd(s));
    PADD(pr, P_TWT_SZ, wt_bytes);
    term_io(s, p, 1, wt_bytes);
    room_events(sys, s, pr, R_TERM, 7);
    if (rnd(s) < 0.01) { stop_row(s, pr, p->cpu, reason_of(25071), tpm * 50); PADD(pr, P_TERM_OTHER, 1); }
    else if (rnd(s) < 0.002) stop_row(s, pr, p->cpu, reason_of(25079), tpm * 200);
    s->txns++;
    p->think_start = now + (len - *budget);
    p->wake = p->think_start + think(s, sys, s->w.think_ms);
    set_state(s, p, S_THINK);
  } else {
    end_proc(sys, s, p);
  }
}

/* One CPU's step of len ticks: its share of the interrupts, then dispatching ready processes
 * until the budget is spent; the rest is paused (nio: processes wait on disk) or idle.
 * Returns 1 when a batch process held this CPU to the step's end. */
static int run_cpu(mi_system *sys, sim *s, int cpu, int64_t now, int64_t len, int interrupts, int nio) {
  int64_t *cr = s->crow[(cpu) & 7], *gr = s->g0;
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
    burst_done(sys, s, p, cpu, now, len, &budget);
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
static void levels(mi_system *sys, sim *s, int nready) {
  (void)sys;
  if (!s->cnt) return;
  int64_t *gr = s->g0;
  /* the reasons whose count of waiting processes moved first: the states counted on their own
   * below (terminal, disc, timer, child, long pause) share a word with their reason, and
   * their own count is the one that holds (all reasons are "moved" when counting starts) */
  for (int i = 0; i < s->ndirty; i++) {
    int k = s->dirty[i];
    s->blk_dirty[k] = 0;
    RSETW(gr, s->rsset[k], s->nblk[k]);
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
  RSETW(gr, s->rsset[K_LONG_PAUSE], s->nlong);
  RSET(gr, G_MINTH, 100);          /* the think-time filter thresholds of the manual (21030/21031: */
  RSET(gr, G_MAXTH, 2147483647);   /* 100 ms and MAXINT) */
}

/* The transaction manager's logs, once a second: the system log (file system, TurboIMAGE) and
 * the user log (SQL) write when their rooms worked in the second, and checkpoint every minute.
 * The two logs' items are 51 apart (21554.., 21605..). */
static void xm_second(mi_system *sys, sim *s, int64_t now) {
  int64_t tpm = s->tpm, sec = s->sim_ms / 1000;
  int64_t ops[2] = {s->room_ops[R_FILE] + s->room_ops[R_IMAGE], s->room_ops[R_SQL]};
  for (int l = 0; l < 2; l++) {
    int32_t o = 51 * l;
    if (ops[l] == s->xm_commits[l]) continue;   /* the log was idle this second */
    s->xm_commits[l] = ops[l];
    mi_host_add(sys, inst_counter(21562 + o), 0, 1);                     /* timer pops */
    if (s->xm_last_write[l]) {
      int64_t between = now - s->xm_last_write[l];
      mi_host_add(sys, inst_counter(21554 + o), 0, between);
      mi_host_max(sys, inst_counter(21555 + o), 0, between);
    }
    s->xm_last_write[l] = now;
    mi_host_set(sys, inst_counter(21556 + o), 0, now - s->boot);
    mi_host_max(sys, inst_counter(21559 + o), 0, 1 + ops[l] % 7);          /* pins blocked by one write */
    if (sec % 60 == 0) {   /* a checkpoint: 20-80 ms, one in five blocked by a busy log */
      int64_t dur = (20 + ops[l] % 61) * tpm;
      mi_host_add(sys, inst_counter(21566 + o), 0, 1);
      if (s->xm_last_ckpt[l]) {
        int64_t between = now - s->xm_last_ckpt[l];
        mi_host_add(sys, inst_counter(21567 + o), 0, between);
        if (!s->xm_min_between[l] || between < s->xm_min_between[l]) s->xm_min_between[l] = between;
        mi_host_set(sys, inst_counter(21568 + o), 0, s->xm_min_between[l]);
        mi_host_max(sys, inst_counter(21569 + o), 0, between);
      }
      s->xm_last_ckpt[l] = now;
      mi_host_add(sys, inst_counter(21570 + o), 0, dur);
      if (!s->xm_min_dur[l] || dur < s->xm_min_dur[l]) s->xm_min_dur[l] = dur;
      mi_host_set(sys, inst_counter(21571 + o), 0, s->xm_min_dur[l]);
      mi_host_max(sys, inst_counter(21572 + o), 0, dur);
      mi_host_set(sys, inst_counter(21573 + o), 0, now - s->boot);
      if (sec / 60 % 5 == 1) {
        int64_t blk = dur / 4;
        mi_host_add(sys, inst_counter(21574 + o), 0, 1);
        mi_host_add(sys, inst_counter(21575 + o), 0, blk);
        mi_host_max(sys, inst_counter(21576 + o), 0, blk);
        if (!s->xm_min_blk[l] || blk < s->xm_min_blk[l]) s->xm_min_blk[l] = blk;
        mi_host_set(sys, inst_counter(21577 + o), 0, s->xm_min_blk[l]);
      }
    }
  }
}

/* A mirrored disc's repair, once a second: the first disc resynchronizes its mirror from the
 * 2nd to the 4th minute of every hour, 512 KB a second. */
static void repair_second(mi_system *sys, sim *s, int64_t now) {
  int64_t t = s->sim_ms / 1000 % 3600;
  if (t < 120 || t > 240) return;
  if (t == 120) { s->rep_start = now - s->boot; s->rep_mibs = s->rep_time = 0; }   /* a repair starts: its own figures from 0 */
  if (t == 240) s->rep_stop = now - s->boot;
  else {
    ADD(sys, s, I_REP_KB, 1, 512);
    s->rep_mibs++;
    s->rep_time += 1000 * s->tpm;
    s->rep_pct = (t - 120) * 100 / 120;
  }
  repair_levels(sys, s);
}

/* Reads which domains count and where their words are; 1 when the layout moved while
 * something counts (the levels must be written anew). */
static int sync_counting(mi_system *sys, sim *s) {
  const mi_host_block *b = ((const mi_host_view *)(const void *)sys)->blk;
  int was = s->cnt;
  s->cnt = 0;
  for (int d = 0; d < MI_DOM_COUNT; d++) s->cnt |= (b->lane[d].cells != 0) << d;
  if (s->cnt && !was) for (int k = 0; k < NREASON; k++) blk_changed(s, k);   /* the levels all anew */
  return sync_layout(sys, s) && s->cnt;
}

/* Runs one step of ms (1-10) milliseconds of the model. */
static void step(mi_system *sys, sim *s, int64_t ms) {
  cache_config(sys, s);
  s->step_no++;
  if (sync_counting(sys, s)) write_levels(sys, s, 1);   /* counters enabled since: their levels now */
  int64_t tpm = s->tpm, len = ms * tpm, now = mi_host_now(sys);
  int ncpu = mi_host_cpus(sys);
  if (now - s->last_logon >= 1000 * tpm) {
    logon(sys, s);
    s->last_logon = now;
    xm_second(sys, s, now);
    write_levels(sys, s, 0);
    repair_second(sys, s, now);
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
  levels(sys, s, nready);
  mi_host_advance(sys, len);
}

void mi_sim_advance(mi_system *sys, int64_t ms) {
  sim *s = of(sys);
  if (!s) return;
  for (; ms > 0; ms -= STEP_MS) {
    int64_t n = ms < STEP_MS ? ms : STEP_MS;
    mi_host_begin(sys);   /* readers see whole steps */
    step(sys, s, n);
    s->sim_ms += n;
    mi_host_publish(sys);
  }
}

/* Writes the waits of the processes ready now since the last writing into their 25048 (a launch
 * writes the rest of a wait): every MI call's refresh does, so a GET sees each process's ready
 * time up to its moment, and a wait that straddles two GETs is split between them. */
static void ready_flush(mi_system *sys, sim *s) {
  int64_t now = mi_host_now(sys);
  int32_t w = s->lay_ok ? s->col[P_READY] : -1;
  if (w >= 0)
    for (int i = 0; i < s->nrdy; i++) {
      sproc *p = &s->p[s->rdy[i]];
      int64_t t = now - (p->ready_since > s->rq_flush ? p->ready_since : s->rq_flush);
      if (t > 0) { prow pr = prow_of(s, p->slot); PWADD(pr, w, t); }
    }
  s->rq_flush = now;
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
  /* counters enabled since the last step read their levels now, not at the next step */
  if (!s->lay_ok || mi_host_layout_gen(sys) != s->lay_gen) {
    if (sync_counting(sys, s)) write_levels(sys, s, 1);
  }
  if (!s->realtime) { ready_flush(sys, s); return; }
  int64_t behind = mono_ms() - s->t0_wall - s->sim_ms;
  if (behind > s->max_catchup_ms) {   /* a suspended program: the gap is skipped, the clock jumps over it */
    int64_t skip = behind - s->max_catchup_ms;
    s->t0_wall += skip;
    mi_host_advance(sys, skip * mi_host_ticks_per_ms(sys));
    behind = s->max_catchup_ms;
  }
  if (behind > 0) mi_sim_advance(sys, behind);
  ready_flush(sys, s);
}

void mi_sim_set_max_catchup(mi_system *sys, int64_t ms) {
  sim *s = of(sys);
  if (s) s->max_catchup_ms = ms >= 0 ? ms : 0;
}

void mi_sim_set_realtime(mi_system *sys, int on) {
  sim *s = of(sys);
  if (!s) return;
  mi_host_begin(sys);   /* the refresh hook may run on another thread (mi_system_publish_every) */
  s->realtime = on;
  s->t0_wall = mono_ms() - s->sim_ms;
  mi_host_publish(sys);
}

int mi_sim_attached(mi_system *sys) { return of(sys) != NULL; }

const mi_workload *mi_sim_workload(mi_system *sys) { return mi_sim_attached(sys) ? &of(sys)->w : NULL; }

int64_t mi_sim_transactions(mi_system *sys) { return mi_sim_attached(sys) ? of(sys)->txns : 0; }

/* Configures the default machine's hardware and system processes on sys: disks 1-5 then
 * 100-199, terminals from 20, one of each other type, PIDs 1-7 the system processes. */
static void machine_config(mi_system *sys, int ncpu, int disks, int terminals) {
  static const struct { int first, last, type; } devs[] = {
    {7, 7, 2}, {6, 6, 4}, {10, 10, 6}, {11, 11, 5}, {40, 41, 7}, {50, 53, 8}, {60, 60, 9}, {70, 70, 10},
  };
  for (int d = 0; d < disks; d++) mi_host_set_device(sys, d < 5 ? 1 + d : 95 + d, 1);
  for (int t = 0; t < terminals && 20 + t <= 39; t++) mi_host_set_device(sys, 20 + t, 3);
  static const char *const sysprocs[] = {"PROGEN", "LOAD", "DISPATCH", "MEMMGR", "UCOP", "JSMAIN", "SYSMAIN"};
  mi_host_set_cpus(sys, ncpu);
  for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++)
    for (int l = devs[i].first; l <= devs[i].last; l++) mi_host_set_device(sys, l, devs[i].type);
  for (size_t i = 0; i < sizeof sysprocs / sizeof sysprocs[0]; i++) {
    mi_proc_desc d = {0};
    d.pid = (int64_t)(i + 1);
    d.program = sysprocs[i]; d.program_group = "PUB"; d.program_account = "SYS";
    d.user = "OPERATOR"; d.user_group = "PUB"; d.account = "SYS";
    d.proc_type = i == 5 ? MI_PT_JSMAIN : MI_PT_SYSTEM;
    mi_host_proc_create(sys, &d);
  }
}

int mi_sim_attach(mi_system *sys, const mi_workload *w, int realtime) {
  if (!sys) return -1;
  if (!w) w = mi_workload_builtin("oltp");
  if (mi_workload_check(w, NULL, 0) != 0) return -2;   /* fields set directly in C are checked here */
  size_t size = (sizeof(sim) + 63) / 64 * 64;   /* the process records are cache-line aligned */
  sim *s = aligned_alloc(64, size);
  if (!s) return -1;
  memset(s, 0, size);
  s->w = *w;
  snprintf(s->name, sizeof s->name, "%s", w->name ? w->name : "custom");
  s->w.name = s->name;
  s->w.about = NULL;
  s->rng = w->seed ? w->seed : 1;
  s->next_pid = 100;
  s->trap_in = 1009;
  s->max_catchup_ms = 3600000;
  resolve(s);
  role_domains(s);
  sync_layout(sys, s);   /* every word -1 until a step reads which domains count */
  cache_config(sys, s);
  s->boot = mi_host_now(sys);
  s->rq_flush = s->boot;
  s->wbase = s->boot;
  for (s->wh_shift = 0; s->wh_shift < 40 && ((int64_t)1 << s->wh_shift) < STEP_MS * s->tpm; s->wh_shift++) {}
  s->wh_cur = s->boot >> s->wh_shift;
  for (int c = 0; c < 8; c++) s->low_slot[c] = -1;   /* no CPU held by a batch process yet */
  machine_config(sys, w->cpus < 1 ? 1 : w->cpus > 8 ? 8 : w->cpus, w->disks > 105 ? 105 : w->disks, w->terminals);
  mi_host_config_set(sys, 3039, w->memory_pages);
  /* the machine is configured for its workload: limits that admit every session and job */
  if (w->sessions > mi_host_config(sys, 3004)) mi_host_config_set(sys, 3004, w->sessions);
  if (w->jobs > mi_host_config(sys, 3002)) mi_host_config_set(sys, 3002, w->jobs);
  if (w->sessions + w->jobs > mi_host_config(sys, 3036)) mi_host_config_set(sys, 3036, w->sessions + w->jobs);
  for (int i = 0; i < MAXP; i++) {
    int slot = mi_host_proc_slot(sys, i + 1);
    if (slot < 0) continue;
    sproc *p = &s->p[slot];
    p->slot = slot; p->kind = K_SYS; p->queue = i == 3 ? Q_AS : Q_BS;   /* MEMMGR runs in the linear AS queue */
    p->wake = mi_host_now(sys) + (int64_t)(i + 1) * 137 * mi_host_ticks_per_ms(sys);
    p->short_sleep = (i + 1) * 137 <= 1000;
    p->sysno = i;
    p->cpu = slot % mi_host_cpus(sys);
    set_state(s, p, S_SLEEP);
    p->swap_room = swap_room_of(p);
    storage(sys, s, p, 1);
  }
  mi_source_attach(sys, &mi_source_sim_ops, s);
  s->last_logon = mi_host_now(sys) - 1000 * mi_host_ticks_per_ms(sys);
  logon(sys, s);
  mi_sim_set_realtime(sys, realtime);
  return 0;
}

/* Frees a model (the source's release hook). */
static void sim_release(void *arg) {
  sim *s = arg;
  if (s) free(s->sink);
  free(s);
}

mi_system *mi_sim_new(const mi_workload *w, int realtime) {
  mi_system *sys = mi_system_new(NULL);
  if (sys && mi_sim_attach(sys, w, realtime) != 0) { mi_system_free(sys); return NULL; }
  return sys;
}

/* Wall-clock ticks since 1970 at tpm ticks per millisecond. */
static int64_t wall_ticks(int64_t tpm) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * tpm + (ts.tv_nsec % 1000000) * tpm / 1000000;
}

#define HISTORY_MS 60000   /* virtual history of an opened system before it goes real-time */

/* The "sim[:WORKLOAD]" source's open: the workload (a->workload, else the built-in ARG, else oltp)
 * with a->cpus processors; unless a->virtual_time, a minute of virtual history that lies in the
 * past (its clock starts a minute before now), then real time, so the first GET sees a machine in
 * its stride and the clock reads the wall clock from then on. */
static int sim_open(mi_system *sys, const char *arg, const mi_source_args *a, char *err, size_t errlen) {
  const mi_workload *b = a->workload;
  if (!b && !(b = mi_workload_builtin(arg && arg[0] ? arg : "oltp"))) {
    char names[128] = "";
    const char *n;
    for (int i = 0; (n = mi_workload_name(i)); i++) {
      size_t used = strlen(names);
      snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", n);
    }
    if (err && errlen) snprintf(err, errlen, "unknown workload '%.64s' (%s)", arg, names);
    return -1;
  }
  mi_workload w = *b;
  if (a->cpus) {
    if (a->cpus < 1 || a->cpus > 8) {
      if (err && errlen) snprintf(err, errlen, "cpus must be 1-8, got %d", a->cpus);
      return -1;
    }
    w.cpus = a->cpus;
  }
  if (mi_workload_check(&w, err, errlen) != 0) return -1;
  int64_t tpm = mi_host_ticks_per_ms(sys);
  if (!a->virtual_time) mi_host_rebase(sys, wall_ticks(tpm) - HISTORY_MS * tpm);   /* nothing lives on sys yet */
  if (mi_sim_attach(sys, &w, 0) != 0) {
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (a->virtual_time) return 0;
  mi_sim_advance(sys, HISTORY_MS);
  int64_t lag = (wall_ticks(tpm) - mi_host_now(sys)) / tpm;   /* the history took time to run */
  if (lag > 0) mi_sim_advance(sys, lag < HISTORY_MS ? lag : HISTORY_MS);
  mi_sim_set_realtime(sys, 1);
  return 0;
}

/* The simulated HP 3000 as a source. */
const mi_source_ops mi_source_sim_ops = {
  "sim", "the simulated HP 3000 (sim:WORKLOAD: idle, oltp, batch, memory, disk, image, sql, ipc, memory-pressure)", sim_open, refresh, sim_release,
};
