/* sim_workload.c — the simulator's workloads: the built-in ones (core/catalog/workloads.tsv)
 * and the settable fields of a workload with their ranges (mi_sim.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "mi_sim.h"

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
