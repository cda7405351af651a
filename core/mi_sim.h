/* mi_sim.h — the simulated HP 3000: a deterministic model of a Series 900 that
 * drives the counter store only through the writer API (mi_host.h). */
#ifndef MI_SIM_H
#define MI_SIM_H

#include "mi_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A workload: the machine and its users. Times are means in milliseconds. */
typedef struct mi_workload {
  const char *name;
  int cpus;              /* 1-8 */
  int disks;             /* disk LDEVs (1..n) */
  int terminals;         /* terminal LDEVs (20..) */
  int sessions;          /* interactive sessions wanted */
  int jobs;              /* batch jobs wanted */
  double think_ms;       /* session think time */
  double txn_cpu_ms;     /* CPU per transaction */
  double txn_ios;        /* disk I/Os per transaction */
  double job_cpu_ms;     /* CPU per job burst between I/Os */
  double job_ms;         /* CPU a job needs before it ends */
  double disk_ms;        /* disk service time */
  double faults_per_io;  /* page faults per disk I/O (memory pressure) */
  int memory_pages;      /* item 3039, 2 KB pages */
  uint64_t seed;
} mi_workload;

/* Returns a built-in workload: "idle", "oltp", "batch", "memory", "disk"; NULL if none. */
MI_API const mi_workload *mi_workload_builtin(const char *name);
/* Returns the name of built-in workload i, or NULL past the end. */
MI_API const char *mi_workload_name(int i);
/* Configures sys as the workload's machine and drives it from now on (w NULL = "oltp").
 * realtime: each AIF call first catches the model up with the wall clock. 0 or -1. */
MI_API int mi_sim_attach(mi_system *sys, const mi_workload *w, int realtime);
/* Advances the model by ms of virtual time (deterministic). */
MI_API void mi_sim_advance(mi_system *sys, int64_t ms);
/* Switches real-time pacing on or off. */
MI_API void mi_sim_set_realtime(mi_system *sys, int on);
/* Returns 1 if sys is driven by the simulator. */
MI_API int mi_sim_attached(mi_system *sys);
/* Creates a new system driven by a workload (w NULL = "oltp"); NULL on failure. */
MI_API mi_system *mi_sim_new(const mi_workload *w, int realtime);
/* Returns the number of transactions completed so far. */
MI_API int64_t mi_sim_transactions(mi_system *sys);

#ifdef __cplusplus
}
#endif
#endif
