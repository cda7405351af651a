/* mi_sim.h — the simulated HP 3000: a deterministic model of a Series 900 that
 * drives the counter store only through the writer API (mi_host.h).
 * For: programs and tests that drive the simulated HP 3000 directly (workloads, stepping). */
#ifndef MI_SIM_H
#define MI_SIM_H

#include <stddef.h>
#include "mi_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a time is drawn around its mean. */
enum { MI_DIST_EXPONENTIAL = 0, MI_DIST_CONSTANT = 1, MI_DIST_UNIFORM = 2 /* 0 .. 2 x mean */ };

/* A workload: the machine and its users. Times are means in milliseconds. The built-in
 * ones come from core/catalog/workloads.tsv; a program may copy one and change fields
 * (directly or by name with mi_workload_set, which checks ranges); mi_sim_attach and
 * mi_sim_new check every field against the same ranges (mi_workload_check). */
typedef struct mi_workload {
  const char *name;
  int cpus;              /* 1-8 */
  int disks;             /* disk LDEVs (1-5, then 100..) */
  int terminals;         /* terminal LDEVs (20-39) */
  int sessions;          /* interactive sessions wanted (each a CI and a user process) */
  int jobs;              /* batch jobs wanted (one process each) */
  double think_ms;       /* session think time */
  double txn_cpu_ms;     /* CPU per transaction */
  double txn_ios;        /* disk I/Os per transaction */
  double job_cpu_ms;     /* CPU per job burst between I/Os */
  double job_ms;         /* CPU a job needs before it ends */
  double disk_ms;        /* disk service time */
  double faults_per_io;  /* page faults per disk I/O (memory pressure) */
  int memory_pages;      /* item 3039, 2 KB pages */
  int think_dist;        /* MI_DIST_* of think times */
  int service_dist;      /* MI_DIST_* of CPU bursts and disk service times */
  uint64_t seed;         /* same seed + same calls = same counters */
  const char *about;     /* one line for people */
  /* the rooms of the machine beyond CPU, disc and terminal (issue 18): operations per
   * transaction of a session, per burst of a job (0 = the room is quiet) */
  double file_opens;     /* file-system opens (each with its reads, writes, close, space) */
  double image_calls;    /* TurboIMAGE intrinsic calls (locks, buffers, the DB monitor) */
  double sql_stmts;      /* SQL statements (locks, latches, the transaction logs) */
  double ipc_msgs;       /* messages through ports, mail and message files */
} mi_workload;

/* Returns a built-in workload: "idle", "oltp", "batch", "memory", "disk", "image", "sql", "ipc",
 * "memory-pressure" (core/catalog/workloads.tsv); NULL if none. */
MI_API const mi_workload *mi_workload_builtin(const char *name);
/* Returns the name of built-in workload i, or NULL past the end. */
MI_API const char *mi_workload_name(int i);
/* Sets a numeric field of w by name (distributions by index); 0, -1 unknown field, -2 out of range. */
MI_API int mi_workload_set(mi_workload *w, const char *field, double value);
/* Checks every field of w against the ranges of mi_workload_set: 0, -1 if w is NULL, -2 if a
 * field is out of range; msg (may be NULL) receives why, e.g. "workload field 'disks' must be
 * an integer in 1..105, got 906". */
MI_API int mi_workload_check(const mi_workload *w, char *msg, size_t size);
/* Reads a numeric field of w by name into *value; 0 or -1 if there is no such field. */
MI_API int mi_workload_get(const mi_workload *w, const char *field, double *value);
/* What a workload field holds: a whole number, any number, or a distribution (MI_DIST_*). */
enum { MI_WF_INTEGER = 0, MI_WF_REAL = 1, MI_WF_DIST = 2 };
/* Describes settable field i (NULL past the end): range, kind (MI_WF_*) and a one-line meaning;
 * any out-pointer may be NULL. */
MI_API const char *mi_workload_field(int i, double *min, double *max, int *kind, const char **about);
/* Returns the name of distribution d ("exponential", "constant", "uniform"), NULL if none. */
MI_API const char *mi_dist_name(int d);
/* Configures sys as the workload's machine and drives it from now on (w NULL = "oltp").
 * realtime: each AIF call first catches the model up with the wall clock. 0, -1 (no system,
 * no memory) or -2 (a field out of range: mi_workload_check says which). */
MI_API int mi_sim_attach(mi_system *sys, const mi_workload *w, int realtime);
/* Advances the model by ms of virtual time (deterministic). */
MI_API void mi_sim_advance(mi_system *sys, int64_t ms);
/* Switches real-time pacing on or off. */
MI_API void mi_sim_set_realtime(mi_system *sys, int on);
/* Sets the most wall-clock time (ms, default one hour) one real-time catch-up replays; a longer
 * gap (a suspended program) is skipped: the clock jumps over it and nothing happens in it. */
MI_API void mi_sim_set_max_catchup(mi_system *sys, int64_t ms);
/* Returns 1 if sys is driven by the simulator. */
MI_API int mi_sim_attached(mi_system *sys);
/* Creates a new system driven by a workload (w NULL = "oltp"); NULL on failure, which is an
 * invalid workload when mi_workload_check(w, msg, size) fails (it says why), else no memory. */
MI_API mi_system *mi_sim_new(const mi_workload *w, int realtime);
/* Returns the workload driving sys (its `about` is NULL), or NULL if sys is not simulated. */
MI_API const mi_workload *mi_sim_workload(mi_system *sys);
/* Returns the number of transactions completed so far. */
MI_API int64_t mi_sim_transactions(mi_system *sys);

#ifdef __cplusplus
}
#endif
#endif
