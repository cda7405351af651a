/* defsys.c — the default system of the upper-case API: a configured HP 3000
 * (CPUs, disks, tapes, terminals, printers, a handful of system processes). */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_sim.h"
#include "mi_linux.h"

#define HISTORY_MS 60000   /* virtual history of the default system before it goes real-time */

/* Configures the default machine's hardware and system processes on sys. */
void mi_default_config(mi_system *sys, int ncpu, int disks, int terminals) {
  /* disks 1-5 then 100-199, terminals from 20; one of each other type */
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

mi_system *mi_sim_default_new(void) {
  /* MISH_SYSTEM=host: the live machine (MISH_PROC names another /proc, e.g. a fixture) */
  const char *which = getenv("MISH_SYSTEM");
  if (which && strcmp(which, "host") == 0) return mi_linux_new(getenv("MISH_PROC"), -1);
  const char *name = getenv("MISH_WORKLOAD"), *cpus = getenv("MISH_CPUS");
  const mi_workload *b = mi_workload_builtin(name ? name : "oltp");
  mi_workload w = *(b ? b : mi_workload_builtin("oltp"));
  if (cpus && atoi(cpus) >= 1 && atoi(cpus) <= 8) w.cpus = atoi(cpus);
  /* the shell starts on a machine in its stride: a minute of virtual history first, a minute
   * that lies in the past, so that the clock then reads the wall clock and runs with it */
  mi_system *sys = mi_system_new(NULL);
  if (!sys) return NULL;
  int64_t tpm = mi_host_ticks_per_ms(sys);
  sys->seg->now = mi_wall_ticks((int32_t)tpm) - HISTORY_MS * tpm;   /* nothing lives on sys yet */
  if (mi_sim_attach(sys, &w, 0) != 0) { mi_system_free(sys); return NULL; }
  mi_sim_advance(sys, HISTORY_MS);
  int64_t lag = (mi_wall_ticks((int32_t)tpm) - mi_host_now(sys)) / tpm;   /* the history took time to run */
  if (lag > 0) mi_sim_advance(sys, lag < HISTORY_MS ? lag : HISTORY_MS);
  mi_sim_set_realtime(sys, 1);
  return sys;
}
