/* sim.c — the simulated HP 3000. A deterministic, step-driven model (10 ms steps of
 * virtual time): CPUs dispatching the CS/DS/ES queues with the tunable bases, limits
 * and quanta of items 3023-3032, sessions with think/CPU/disk transactions on
 * terminals, batch jobs admitted by the job fence and limits, disks with queues,
 * page faults and semaphore blocks by class. Everything goes through mi_host.h.
 *
 * Its rooms, one file each around sim_model.h (the model's state and its step's writer):
 * sim_workload.c the workloads, sim_counters.c what it counts and where, sim_sched.c the clock
 * and dispatcher, sim_work.c sessions and jobs, sim_memory.c memory, sim_devices.c devices,
 * sim_rooms.c the rooms' operations; this file attaches a model to a system (the source). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim_model.h"

extern const mi_source_ops mi_source_sim_ops;
/* The model driving sys, or NULL if sys is not simulated. */
static sim *of(mi_system *sys) {
  return mi_system_source_ops(sys) == &mi_source_sim_ops ? (sim *)mi_system_source(sys) : NULL;
}

void mi_sim_advance(mi_system *sys, int64_t ms) {
  sim *s = of(sys);
  if (!s) return;
  for (; ms > 0; ms -= STEP_MS) {
    int64_t n = ms < STEP_MS ? ms : STEP_MS;
    mi_host_begin(sys);   /* readers see whole steps */
    sim_step(sys, s, n);
    s->sim_ms += n;
    mi_host_publish(sys);
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
  /* counters enabled since the last step read their levels now, not at the next step */
  if (!s->lay_ok || mi_host_layout_gen(sys) != s->lay_gen) {
    if (sim_sync_counting(sys, s)) sim_write_levels(sys, s, 1);
  }
  if (!s->realtime) { sim_ready_flush(sys, s); return; }
  int64_t behind = mono_ms() - s->t0_wall - s->sim_ms;
  if (behind > s->max_catchup_ms) {   /* a suspended program: the gap is skipped, the clock jumps over it */
    int64_t skip = behind - s->max_catchup_ms;
    s->t0_wall += skip;
    mi_host_advance(sys, skip * mi_host_ticks_per_ms(sys));
    behind = s->max_catchup_ms;
  }
  if (behind > 0) mi_sim_advance(sys, behind);
  sim_ready_flush(sys, s);
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
  s->sys = sys;
  s->w = *w;
  snprintf(s->name, sizeof s->name, "%s", w->name ? w->name : "custom");
  s->w.name = s->name;
  s->w.about = NULL;
  s->rng = w->seed ? w->seed : 1;
  s->next_pid = 100;
  s->trap_in = 1009;
  s->max_catchup_ms = 3600000;
  s->fold_m = INT_MIN;   /* no fold read yet */
  sim_resolve(s);
  sim_role_domains(s);
  sim_sync_layout(sys, s);   /* every word -1 until a step reads which domains count */
  sim_cache_config(sys, s);
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
  /* the processes there (machine_config's, and any the caller made) whose pid is 1..MAXP, in pid
   * order: found from the slots in use, not by a hash lookup of each of the MAXP pids */
  int nsys = 0, hi = mi_host_proc_hi(sys);
  int32_t *order = s->rdy;   /* scratch: nothing is READY before the first step */
  for (int slot = 0; slot < hi && slot < MAXP; slot++) {
    int64_t pid = mi_host_proc_pid(sys, slot);
    if (pid < 1 || pid > MAXP || mi_host_proc_slot(sys, pid) != slot) continue;
    int k = nsys++;
    for (; k > 0 && mi_host_proc_pid(sys, order[k - 1]) > pid; k--) order[k] = order[k - 1];
    order[k] = slot;
  }
  for (int o = 0; o < nsys; o++) {
    int slot = order[o], i = (int)mi_host_proc_pid(sys, slot) - 1;
    sproc *p = &s->p[slot];
    p->slot = slot; p->kind = K_SYS; p->queue = i == 3 ? Q_AS : Q_BS;   /* MEMMGR runs in the linear AS queue */
    p->wake = mi_host_now(sys) + (int64_t)(i + 1) * 137 * mi_host_ticks_per_ms(sys);
    p->short_sleep = (i + 1) * 137 <= 1000;
    p->sysno = i;
    p->cpu = slot % mi_host_cpus(sys);
    sim_set_state(s, p, S_SLEEP);
    p->swap_room = sim_swap_room_of(p);
    sim_storage(sys, s, p, 1);
  }
  memset(order, 0, sizeof *order * (size_t)nsys);
  mi_source_attach(sys, &mi_source_sim_ops, s);
  s->last_logon = mi_host_now(sys) - 1000 * mi_host_ticks_per_ms(sys);
  sim_logon(sys, s);
  mi_sim_set_realtime(sys, realtime);
  return 0;
}

/* Frees a model (the source's release hook). */
static void sim_release(void *arg) {
  sim *s = arg;
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

/* What a program may choose of the simulated machine. */
static const mi_source_option sim_options[] = {
  {"workload", MI_SOPT_WORKLOAD, MI_SOPT_TO_ARG, 0, 0, "W", "the simulated workload: idle, oltp (default), batch, memory, disk, ..."},
  {"cpus", MI_SOPT_INT, MI_SOPT_TO_CPUS, 1, 8, "N", "the number of CPUs"},
  {NULL, 0, 0, 0, 0, NULL, NULL},
};

/* The simulated HP 3000 as a source. */
const mi_source_ops mi_source_sim_ops = {
  "sim", "the simulated HP 3000 (sim:WORKLOAD: idle, oltp, batch, memory, disk, image, sql, ipc, memory-pressure)", sim_open, refresh, sim_release,
  sim_options,
};
