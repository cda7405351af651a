/* mish_env.h — how the C examples choose their system: from the environment, as the README
 * shows (MISH_CPUS=1 examples/testmiaif1). The core reads no environment; this helper of the
 * examples does, opens the system with mi_system_open and installs it as the default that the
 * upper-case API measures:
 *   MISH_SYSTEM   sim (default), host, or any spec of mi_system_open (sim:batch, host:/proc-root)
 *   MISH_WORKLOAD a built-in workload for sim (idle, oltp, batch, memory, disk, image, sql, ipc, ...)
 *   MISH_CPUS     simulated processors, 1-8
 *   MISH_PROC     the proc root the host system reads (default /proc)
 *   MISH_REPLAY   a recording to measure played back (= MISH_SYSTEM=replay:FILE); MISH_FROM,
 *                 MISH_TO and MISH_SPEED its window and pace (default speed 1: the program's own
 *                 sleeps pace it; see core/RECORDING.md)
 *   MI_AIFKUF     the user-ID registry file (default: memory only)
 * A value that names nothing (MISH_SYSTEM=vax) or that does not fit the others (MISH_WORKLOAD
 * or MISH_CPUS with MISH_SYSTEM=host, MISH_PROC with sim) is an error naming it: exit status 2. */
#ifndef MISH_ENV_H
#define MISH_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mi_source.h"
#include "mi_record.h"

/* Installs the default system the environment describes and returns its number of processors;
 * prints why and exits 2 if it cannot. */
static int mish_env_default(const char *prog) {
  const char *system = getenv("MISH_SYSTEM"), *workload = getenv("MISH_WORKLOAD");
  const char *cpus = getenv("MISH_CPUS"), *proc = getenv("MISH_PROC"), *registry = getenv("MI_AIFKUF");
  char spec[1024], err[256];
  mi_source_args a = {0};
  mi_system_options o = {0};
  const char *replay = getenv("MISH_REPLAY");
  char window[512] = "";
  if (replay && replay[0]) {   /* #13: a recording, paced by the wall clock unless MISH_SPEED says */
    static char rspec[1024];
    snprintf(rspec, sizeof rspec, "replay:%s", replay);
    system = rspec;
    const char *from = getenv("MISH_FROM"), *to = getenv("MISH_TO"), *speed = getenv("MISH_SPEED");
    snprintf(window, sizeof window, "speed=%s%s%s%s%s", speed && speed[0] ? speed : "1", from && from[0] ? ",from=" : "",
             from && from[0] ? from : "", to && to[0] ? ",to=" : "", to && to[0] ? to : "");
    a.window = window;
  }
  if (!system || !system[0]) system = "sim";
  if (workload && workload[0] && strcmp(system, "sim") != 0) {
    fprintf(stderr, "%s: MISH_WORKLOAD=%s needs the simulated system, not MISH_SYSTEM=%s\n", prog, workload, system);
    exit(2);
  }
  if (cpus && cpus[0] && strncmp(system, "host", 4) == 0 && (system[4] == 0 || system[4] == ':')) {
    fprintf(stderr, "%s: MISH_CPUS=%s: the host has the processors it has (MISH_SYSTEM=%s)\n", prog, cpus, system);
    exit(2);
  }
  if (proc && proc[0] && strcmp(system, "host") != 0) {
    fprintf(stderr, "%s: MISH_PROC=%s needs MISH_SYSTEM=host, not '%s'\n", prog, proc, system);
    exit(2);
  }
  if (strcmp(system, "sim") == 0 && workload && workload[0]) snprintf(spec, sizeof spec, "sim:%s", workload);
  else if (strcmp(system, "host") == 0 && proc && proc[0]) snprintf(spec, sizeof spec, "host:%s", proc);
  else snprintf(spec, sizeof spec, "%s", system);
  if (cpus && cpus[0]) {
    char *end;
    long n = strtol(cpus, &end, 10);
    if (*end || n < 1 || n > 8) { fprintf(stderr, "%s: MISH_CPUS must be 1-8, got '%s'\n", prog, cpus); exit(2); }
    a.cpus = (int)n;
  }
  o.registry = registry && registry[0] ? registry : NULL;
  mi_system *sys = mi_system_open(spec, &o, &a, err, sizeof err);
  if (!sys) {   /* name the variable the bad part came from */
    const char *var = strncmp(spec, "sim:", 4) == 0 && workload && workload[0] ? "MISH_WORKLOAD"
                    : strncmp(spec, "host:", 5) == 0 && proc && proc[0] ? "MISH_PROC" : replay && replay[0] ? "MISH_REPLAY" : "MISH_SYSTEM";
    fprintf(stderr, "%s: %s: %s\n", prog, var, err);
    exit(2);
  }
  if (replay && replay[0]) {   /* a recording that is not whole is said, never silent (#13) */
    mi_rec_reader *rd = mi_rec_open(replay, NULL, 0);
    mi_rec_health h;
    if (rd && mi_rec_verify(rd, &h) != 0)
      fprintf(stderr, "%s: %s: %lld damaged region(s), %lld gap(s), torn tail %s\n", prog, replay, (long long)h.damaged_regions,
              (long long)h.seq_gaps, h.torn_at >= 0 ? "yes" : "no");
    mi_rec_close(rd);
  }
  if (mi_set_default_system(sys) != 0) { mi_system_free(sys); fprintf(stderr, "%s: a default system exists already\n", prog); exit(2); }
  return mi_host_cpus(sys);
}

#endif
