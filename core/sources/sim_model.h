/* sim_model.h — the simulated HP 3000's model, private to core/sources/sim*.c: the process
 * record, the model's state, the counter roles and rooms, the step's inline writer, and the
 * functions the model's files call in one another. Not installed; sources see mi_host.h only. */
#ifndef MI_SIM_MODEL_H
#define MI_SIM_MODEL_H

#include <math.h>
#include <stdint.h>
#include "mi_sim.h"
#include "mi_source.h"

#define STEP_MS 10
#define MAXP MI_MAX_PROCESSES

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
static inline int32_t reason_item(int k, int place) {
  static const int32_t base[5] = {21187, 21103, 25051, 25107, 27027};       /* k 0-55 */
  static const int32_t ext[5] = {0, 21651, 25264, 25293, 27083};            /* k 56-84: latch 5-32, release */
  static const int32_t pseudo[5] = {0, 21680, 25322, 25324, 27112};         /* k 85-86 */
  if (k < 56) return base[place] + k;
  if (k < 85) return ext[place] ? ext[place] + k - 56 : 0;
  return pseudo[place] ? pseudo[place] + k - 85 : 0;
}

/* The stop reason of a pmc_stop_* item (the room tables name reasons by it). */
static inline int reason_of(int32_t pmc) { return pmc <= 25106 ? pmc - 25051 : pmc <= 25292 ? 56 + pmc - 25264 : 85 + pmc - 25322; }

/* The rooms of the machine: each has operations (a workload field gives their rate) that move
 * its counters (room_events) and may make the process wait (room_waits). */
enum { R_FILE, R_IMAGE, R_SQL, R_IPC, R_MEM, R_TERM, R_SYS, NROOM };

/* The rows of the rooms' event table (sim_counters.c checks it). */
#define NEVROW 165

#define NSUBGRP 5
#define LRU_MAX 1000        /* closed-file entries the file system's LRU list keeps (ours: the manual gives no size) */
#define EV_MAXHITS 64       /* the most fraction events one operation counts */
#define EV_CELLS 256        /* cells of a room's fraction sum that start the search for a row */
#define EV_TOP_BITS 10      /* a draw's top bits that name its row outright in most cases */
#define EV_TOP (1 << EV_TOP_BITS)
#define EV_SPLIT 255        /* ... not in this cell: row boundaries fall inside it */
#define EV_NSPL 88          /* cells of a room with one boundary inside, told apart by a threshold (ev_spl) */
#define EV_SPL0 (EV_SPLIT - EV_NSPL)   /* ev_top's code of the first: EV_SPL0 + k is ev_spl[room][k] */
_Static_assert(NEVROW < EV_SPL0, "ev_top's codes: the rows, then the one-boundary cells, then EV_SPLIT");

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
  uint8_t ev_top[NROOM][EV_TOP];               /* the row (evrows index) of every draw with these top bits, EV_SPLIT if it varies */
  uint8_t ev_ntop[NROOM][EV_TOP];              /* ... the number of events of an operation's draw, the same way */
  struct evspl { uint64_t t; uint8_t a, b; } ev_spl[NROOM][EV_NSPL + 1];   /* a cell with one boundary: row a below draw t,
                                                  row b from it (sim_ev_row's answer without its search); the
                                                  last, never filled, is read by the other cells (unused) */
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
  /* the step's writer (#17): the store's words as a step sees them (sync_layout) */
  int32_t col[NCTR];        /* role -> its word in its domain's row, -1 while nobody counts it */
  int32_t ocol[NCTR];       /* ... an object-class counter's first word, -1 for other kinds */
  int32_t scol[NCTR];       /* ... a simple counter's word (levels, maxima), -1 for other kinds */
  int32_t rscol[NREASON][5];   /* stop reason and place -> its word */
  int32_t evcol[NEVROW][2];    /* room event row -> its global and process words */
  struct evact { int32_t g, p, whole; uint8_t n, objcl, wmark, grp, pmul; } evact[NEVROW];  /* ... the same with
                               the row's shape (ev_whole, ev_grp, ev_pmul ...), together: one load a row */
  struct evf { int32_t g, p, om; uint8_t odd; } evf[NEVROW];   /* a row as a fraction's event writes it, branch-free in
                               most rows: its global word g (+ the operation's class word where om is -1: by class),
                               its process word p (-1 by class); odd 1 for a histogram, a watermark or a subset */
  int32_t hcol[NEVROW][10];    /* a histogram row's buckets -> their words */
  uint8_t room_cnt[NROOM];     /* 1 when anybody counts one of a room's event rows (else its draws are skipped) */
  int16_t fold[720];        /* object class -> its word within the counter's cells (the mapping's fold) */
  int fold_m;               /* the mapping fold was read for (INT_MIN before the first reading) */
  uint8_t rkind[NCTR];      /* role -> its counter's kind (MI_KIND_*) */
  uint64_t lay_gen;         /* the layout generation the words were read at */
  int lay_cnt, lay_ok;      /* ... and s->cnt then; 0 before the first reading */
  mi_host_row g0;           /* the global row (refused while nobody counts the domain) */
  mi_host_row crow[8];      /* each processor's row (...) */
  mi_host_row lrow;         /* the row of the process launched last, as its launch opened it while the step counts:
                               only its cells and words (what the by-word writes read; copying the whole handle
                               cost every launch its unused fields), by counter it takes nothing (n 0) */
  int32_t rsset[NREASON];   /* stop reason -> its global cur_blk level's word (simple counters only), -1 */
  mi_ctr semq[2][3];        /* the semaphore-queue buckets 21088-21090 (global) and 25261-25263 (process) */
  int32_t semcol[2][3];     /* ... their first words (a class's cell is the word + the class), -1 */
  mi_system *sys;           /* the system the model drives */
  int64_t sg[NSG];          /* this step's sums of the global counters of launches */
  int64_t next_pid;
  int32_t cfg_q[14];        /* items 3019-3032 as cache_config last read them */
  uint32_t cfg_gen;         /* the configuration generation they were read at */
  int cfg_read;             /* 1 once they were read */
  int npop[5];              /* live processes by kind (K_*): logon's census */
} sim;

/* xorshift64*: the model's only source of randomness. */
static inline double rnd(sim *s) {
  s->rng ^= s->rng >> 12; s->rng ^= s->rng << 25; s->rng ^= s->rng >> 27;
  return (double)((s->rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* A sample with this mean drawn from distribution dist, in ticks of the system. */
static inline int64_t draw(sim *s, mi_system *sys, double mean_ms, int dist) {
  double u = rnd(s), x;
  if (dist == MI_DIST_CONSTANT) x = 1.0;
  else if (dist == MI_DIST_UNIFORM) x = 2.0 * u;
  else x = -log(1.0 - u);
  (void)sys;
  return (int64_t)(x * mean_ms * s->tpm);
}
#define think(s, sys, ms) draw((s), (sys), (ms), (s)->w.think_dist)
#define expo(s, sys, ms) draw((s), (sys), (ms), (s)->w.service_dist)

#define ON(s, dom) ((s)->cnt >> (dom) & 1)
/* Whether anybody counts the processors / the I/O devices in this step: their rows' adds are
 * skipped as a block (with their index arithmetic) while nobody does. */
#define CPU_ON(s) ON((s), MI_DOM_PROCESSOR)
#define IO_ON(s) ON((s), MI_DOM_IO)

/* ---- the step's writer (#17, #31.3) ----
 * A step holds the store's write section (mi_host_begin), so the layout cannot move while it
 * runs: the step reads each role's word in its domain's rows at its start (again only after the
 * layout generation or the counting domains changed), and writes through row handles
 * (mi_host.h): a code path opens its entity's row once (the range and alive checks and a
 * process's CHANGED mark, once), and an add is then a load of the word, a test and the add. A
 * row of an entity an add must not reach (or of a domain the step does not count) is refused,
 * and its writes are dropped. */

/* Opens entity e's row of domain d into r for the step's writes (refused while the step counts
 * nothing in d); returns r. */
static inline mi_host_row *sim_row(const sim *s, mi_host_row *r, int d, int e) {
  mi_host_row_open(ON(s, d) ? s->sys : NULL, r, d, e);
  return r;
}

/* Adds v to a role's counter in row r. */
#define RADD(r, role, v) mi_host_row_addw((r), s->col[role], (v))
/* Adds v to class cls of a role's object-class counter in row r. */
#define ROBJ(r, role, cls, v) do { int32_t oc_ = s->ocol[role], k_ = (cls); \
    if (oc_ >= 0 && (unsigned)k_ < 720u) mi_host_row_addw((r), oc_ + s->fold[k_], (v)); } while (0)

/* Sets a simple counter of row r to v / raises it to v. */
#define RSET(r, role, v) mi_host_row_setw((r), s->scol[role], (v))
#define RMAX(r, role, v) mi_host_row_maxw((r), s->scol[role], (v))

/* Adds to a role's counter for entity e where no row is at hand (an add outside a step finds
 * every word -1: s->cnt is 0 until a step reads it). */
static inline void cadd(sim *s, int role, int e, int64_t v) {
  if (s->col[role] < 0) return;
  mi_host_row r;
  RADD(sim_row(s, &r, s->rdom[role], e), role, v);
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
static inline void stop_row(sim *s, mi_host_row *pr, int cpu, int k, int64_t ticks) {
  if (!s->cnt) return;
  const int32_t *w = s->rscol[k];
  mi_host_row_addw(&s->g0, w[RS_G_STOP], 1);
  mi_host_row_addw(pr, w[RS_P_STOP], 1);
  mi_host_row_addw(pr, w[RS_P_TIME], ticks);
  if (CPU_ON(s)) mi_host_row_addw(&s->crow[cpu & 7], w[RS_C_STOP], 1);
}

/* stop_row for p where its row is not at hand. */
static inline void stop(mi_system *sys, sim *s, const sproc *p, int k, int64_t ticks) {
  (void)sys;
  const int32_t *w = s->rscol[k];
  if ((w[RS_G_STOP] & w[RS_P_STOP] & w[RS_P_TIME] & w[RS_C_STOP]) < 0) return;   /* all four -1: nobody counts them */
  mi_host_row pr;   /* (not opened, so not marked, while it would write nothing to the process) */
  sim_row(s, &pr, (w[RS_P_STOP] & w[RS_P_TIME]) < 0 ? MI_DOM_COUNT : MI_DOM_PROCESS, p->slot);
  stop_row(s, &pr, p->cpu, k, ticks);
}

/* Counts a block of p's on a semaphore of class cls (0-255) with queue length qlen (>= 1) in
 * the 1-3, 4-6 or 7+ bucket of the global row and p's row pr (mi_host_sem_block's counts,
 * through the step's rows: nothing while nobody counts them). */
static inline void sem_block_row(sim *s, mi_host_row *pr, int cls, int qlen) {
  int b = qlen <= 3 ? 0 : qlen <= 6 ? 1 : 2;
  if ((unsigned)cls >= 256u || qlen < 1) return;
  if (s->semcol[0][b] >= 0) mi_host_row_addw(&s->g0, s->semcol[0][b] + cls, 1);
  if (s->semcol[1][b] >= 0) mi_host_row_addw(pr, s->semcol[1][b] + cls, 1);
}

/* Notes that the count of processes blocked for reason k changed (sim_levels() writes it). */
static inline void blk_changed(sim *s, int k) {
  if (!s->blk_dirty[k]) { s->blk_dirty[k] = 1; s->dirty[s->ndirty++] = k; }
}

#define QBASE(s, q) ((s)->qb[q])
#define QLIMIT(s, q) ((s)->ql[q])
#define QUANTUM(s, q) ((s)->qt[q])

/* 64 random bits from (seed, operation, k): the rooms' event counts draw from them rather than
 * from the model's stream, so counting them or not (nobody enabled them) leaves the model, and
 * every other count, the same. */
static inline uint64_t ev_hash(const sim *s, uint64_t op, int k);
/* ev_hash in two parts, for many draws of one operation: its base from (seed, operation) ... */
static inline uint64_t ev_hash_base(const sim *s, uint64_t op) { return s->w.seed ^ (op * 0x9E3779B97F4A7C15ull); }
/* ... and draw k from the base: ev_hash(s, op, k) == ev_mix(ev_hash_base(s, op), k). */
static inline uint64_t ev_mix(uint64_t base, int k) {
  uint64_t x = base ^ ((uint64_t)k << 40);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
static inline uint64_t ev_hash(const sim *s, uint64_t op, int k) { return ev_mix(ev_hash_base(s, op), k); }

/* sim_counters.c */
mi_ctr sim_inst_counter(int32_t item);
int sim_ev_row(const sim *s, int room, uint64_t x);
int sim_ev_hits(const sim *s, int room, uint64_t x);
void sim_resolve(sim *s);
void sim_resolve_fresh(sim *s);
void sim_role_domains(sim *s);
int sim_sync_layout(mi_system *sys, sim *s);
int sim_sync_counting(mi_system *sys, sim *s);
/* sim_rooms.c */
void sim_wait_rows(sim *s);
void sim_wait_on(mi_system *sys, sim *s, sproc *p, int k, int64_t at, int64_t ticks);
void sim_room_events(mi_system *sys, sim *s, mi_host_row *pr, int room, int cls);
int sim_room_op(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int room, int64_t at);
int sim_rooms(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int64_t at);
void sim_xm_levels(mi_system *sys, sim *s);
void sim_xm_second(mi_system *sys, sim *s, int64_t now);
/* sim_memory.c */
void sim_swap_levels(sim *s);
int16_t sim_swap_room_of(const sproc *p);
void sim_proc_levels(mi_system *sys, sim *s, const sproc *p);
void sim_storage_levels(mi_system *sys, sim *s);
void sim_storage(mi_system *sys, sim *s, const sproc *p, int dir);
void sim_loader_levels(mi_system *sys, sim *s);
int64_t sim_pop_levels(mi_system *sys, sim *s);
int64_t sim_faults(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int cpu, int64_t at, int *waits);
/* sim_devices.c */
void sim_issue_io(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int64_t now, int cpu, int dev, int dev_write);
void sim_io_done(mi_system *sys, sim *s, sproc *p);
void sim_term_io(sim *s, const sproc *p, int write, int64_t bytes);
void sim_repair_levels(mi_system *sys, sim *s);
void sim_repair_second(mi_system *sys, sim *s, int64_t now);
/* sim_sched.c */
void sim_set_state(sim *s, sproc *p, int state);
void sim_cache_config(mi_system *sys, sim *s);
void sim_set_pri(sim *s, sproc *p, int32_t pri);
void sim_levels(mi_system *sys, sim *s, int nready);
void sim_step(mi_system *sys, sim *s, int64_t ms);
void sim_ready_flush(mi_system *sys, sim *s);
/* sim_work.c */
void sim_write_levels(mi_system *sys, sim *s, int procs);
int sim_spawn(mi_system *sys, sim *s, int kind, const char *prog, const char *user, int js_type, int js);
void sim_logon(mi_system *sys, sim *s);
void sim_end_proc(mi_system *sys, sim *s, sproc *p);
void sim_terminal_read(mi_system *sys, sim *s, sproc *p, int64_t now);
void sim_burst_done(mi_system *sys, sim *s, sproc *p, int cpu, int64_t now, int64_t len, int64_t *budget);

#endif
