/* mish_env.h — how the C examples choose their system: from the environment, as the README
 * shows (MISH_CPUS=1 examples/testmiaif1). The core reads no environment; this helper of the
 * examples does, opens the system with mi_system_open and installs it as the default that the
 * upper-case API measures:
 *   MISH_SYSTEM   sim (default), host, or any spec of mi_system_open (sim:batch, host:/proc-root)
 *   MISH_WORKLOAD a built-in workload for sim (idle, oltp, batch, memory, disk, image, sql, ipc, ...)
 *   MISH_CPUS     simulated processors, 1-8
 *   MISH_PROC     the proc root the host system reads (default /proc)
 *   MISH_REPLAY   a recording to measure played back (= MISH_SYSTEM=replay:FILE); MISH_FROM,
 *                 MISH_TO and MISH_SPEED its window and pace (default 1: the recording follows the
 *                 wall clock; max: each mish_env_pause steps it; see core/RECORDING.md), the same
 *                 for MISH_SYSTEM=replay:FILE; without a recording they are an error
 *   MI_AIFKUF     the user-ID registry file (default: memory only)
 * A value that names nothing (MISH_SYSTEM=vax) or that does not fit the others (MISH_WORKLOAD
 * or MISH_CPUS with MISH_SYSTEM=host, MISH_PROC with sim) is an error naming it: exit status 2.
 * The examples wait with mish_env_pause and read their interval timer with mish_env_clock_ms, so
 * on a replay they see each recorded sample with its recorded interval at any MISH_SPEED, and
 * end (exit 0) at the end of the recording, as `mish --replay` scripts do. */
#ifndef MISH_ENV_H
#define MISH_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_source.h"
#include "mi_record.h"

static double mish_env_speed_ = -1;   /* the replay's pace: -1 no replay, 0 max, else N (MISH_SPEED) */

/* Installs the default system the environment describes and returns its number of processors;
 * prints why and exits 2 if it cannot. */
static int mish_env_default(const char *prog) {
  const char *system = getenv("MISH_SYSTEM"), *workload = getenv("MISH_WORKLOAD");
  const char *cpus = getenv("MISH_CPUS"), *proc = getenv("MISH_PROC"), *registry = getenv("MI_AIFKUF");
  char spec[1024], err[256];
  mi_source_args a = {0};
  mi_system_options o = {0};
  const char *replay = getenv("MISH_REPLAY"), *replay_var = "MISH_REPLAY";
  const char *from = getenv("MISH_FROM"), *to = getenv("MISH_TO"), *speed = getenv("MISH_SPEED");
  char window[512] = "";
  if ((!replay || !replay[0]) && system && strncmp(system, "replay:", 7) == 0) {   /* MISH_SYSTEM=replay:FILE */
    replay = system + 7;
    replay_var = "MISH_SYSTEM";
  } else if (replay && replay[0]) {
    static char rspec[1024];
    snprintf(rspec, sizeof rspec, "replay:%s", replay);
    system = rspec;
  }
  if (replay && replay[0]) {   /* #13: a recording, paced by the wall clock unless MISH_SPEED says */
    snprintf(window, sizeof window, "speed=%s%s%s%s%s", speed && speed[0] ? speed : "1", from && from[0] ? ",from=" : "",
             from && from[0] ? from : "", to && to[0] ? ",to=" : "", to && to[0] ? to : "");
    a.window = window;
    mish_env_speed_ = speed && speed[0] && strcmp(speed, "max") == 0 ? 0 : speed && speed[0] ? atof(speed) : 1;
  }
  if (!system || !system[0]) system = "sim";
  const char *pace = speed && speed[0] ? "MISH_SPEED" : from && from[0] ? "MISH_FROM" : to && to[0] ? "MISH_TO" : NULL;
  if (pace && !(replay && replay[0])) {   /* never silently ignored (#16.3) */
    fprintf(stderr, "%s: %s=%s needs a recording to replay (MISH_REPLAY=FILE)\n", prog, pace, getenv(pace));
    exit(2);
  }
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
                    : strncmp(spec, "host:", 5) == 0 && proc && proc[0] ? "MISH_PROC" : replay && replay[0] ? (strncmp(err, "bad speed", 9) == 0 ? "MISH_SPEED" : strncmp(err, "bad time", 8) == 0 ? "MISH_FROM or MISH_TO" : replay_var)
                    : "MISH_SYSTEM";
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

/* Ends the program (exit 0) at the end of a replayed recording, saying on stderr if it was not whole. */
static void mish_env_replay_end(void) {
  char what[256];
  if (mi_replay_state(mi_default_system(), what, sizeof what) > 0) fprintf(stderr, "the recording is not whole: %s\n", what);
  fflush(stdout);
  exit(0);
}

/* Waits `seconds` (the original programs' PAUSE): a wall-clock sleep, except on a replay: at
 * MISH_SPEED=max it steps the recording by `seconds` (at least to its next sample), at speed N it
 * sleeps seconds / N; past the recording's end the program ends (exit 0). */
static void mish_env_pause(double seconds) {
  if (mish_env_speed_ == 0) {
    if (mi_replay_step(mi_default_system(), (int64_t)(seconds * 1000 + 0.5)) == 0) mish_env_replay_end();
    return;
  }
  if (mish_env_speed_ > 0) {
    if (mi_replay_ended(mi_default_system()) == 1) mish_env_replay_end();
    seconds /= mish_env_speed_;
  }
  struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Milliseconds of the interval timer (the original programs' TIMER): a monotonic clock, or on a
 * replay the recorded time of the sample the system shows (read it after the GET). */
static int64_t mish_env_clock_ms(void) {
  if (mish_env_speed_ >= 0) return mi_replay_clock_ms(mi_default_system());
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
