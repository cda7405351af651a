/* mish_env.h — how the C examples choose their system: from the environment, as the README
 * shows (MISH_CPUS=1 examples/testmiaif1). The core reads no environment; this helper of the
 * examples does, opens the system with mi_system_open and installs it as the default that the
 * upper-case API measures:
 *   MISH_SYSTEM   sim (default), host, or any spec of mi_system_open (sim:batch, host:/proc-root)
 *   MISH_REPLAY   a recording to measure played back (= MISH_SYSTEM=replay:FILE), paced by the
 *                 wall clock unless MISH_SPEED says (max: each mish_env_pause steps it; see
 *                 core/RECORDING.md)
 *   MISH_<OPTION> each option of the sources' tables (mi_source_option), upper case: MISH_WORKLOAD
 *                 and MISH_CPUS (sim), MISH_PROC (host), MISH_FROM, MISH_TO, MISH_SPEED (replay)
 *   MI_AIFKUF     the user-ID registry file (default: memory only)
 * A value that names nothing (MISH_SYSTEM=vax) or that does not fit the others (an option of a
 * source other than the system's: MISH_WORKLOAD or MISH_CPUS with MISH_SYSTEM=host, MISH_PROC with
 * sim, MISH_SPEED without a recording) is an error naming it: exit status 2.
 * The examples wait with mish_env_pause and read their interval timer with mish_env_clock_ms, so
 * on a replay they see each recorded sample with its recorded interval at any MISH_SPEED, and
 * end (exit 0) at the end of the recording, as `mish --replay` scripts do. */
#ifndef MISH_ENV_H
#define MISH_ENV_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_source.h"
#include "mi_record.h"

static double mish_env_speed_ = -1;   /* the replay's pace: -1 no replay, 0 max, else N (MISH_SPEED) */

#define MISH_ENV_MAX 32   /* source options read from the environment */

/* Collects the sources' options set in the environment ($MISH_<OPTION>, each name once) into
 * names/values/vars (var: the variable, for messages); returns how many. */
static int mish_env_options(const char *names[], const char *values[], char vars[][48]) {
  int n = 0;
  const mi_source_ops *ops;
  const mi_source_option *o;
  for (int i = 0; (ops = mi_source_at(i)); i++)
    for (int k = 0; (o = mi_source_option_at(ops, k)) && n < MISH_ENV_MAX; k++) {
      int seen = 0;
      for (int j = 0; j < n; j++) seen |= strcmp(names[j], o->name) == 0;
      snprintf(vars[n], sizeof vars[n], "MISH_%s", o->name);
      for (char *c = vars[n]; *c; c++) *c = *c == '-' ? '_' : (char)toupper((unsigned char)*c);
      const char *v = getenv(vars[n]);
      if (seen || !v || !v[0]) continue;
      names[n] = o->name;
      values[n++] = v;
    }
  return n;
}

/* Installs the default system the environment describes and returns its number of processors;
 * prints why and exits 2 if it cannot. */
static int mish_env_default(const char *prog) {
  const char *system = getenv("MISH_SYSTEM"), *registry = getenv("MI_AIFKUF");
  const char *replay = getenv("MISH_REPLAY"), *replay_var = "MISH_REPLAY";
  char err[256], rspec[1024], vars[MISH_ENV_MAX + 1][48];
  const char *names[MISH_ENV_MAX + 1], *values[MISH_ENV_MAX + 1];
  int n = mish_env_options(names, values, vars);
  if ((!replay || !replay[0]) && system && strncmp(system, "replay:", 7) == 0) {   /* MISH_SYSTEM=replay:FILE */
    replay = system + 7;
    replay_var = "MISH_SYSTEM";
  } else if (replay && replay[0]) {
    snprintf(rspec, sizeof rspec, "replay:%s", replay);
    system = rspec;
  }
  if (!system || !system[0]) system = "sim";
  const mi_source_ops *ops = mi_source_find(system);
  int speed = -1;
  for (int k = 0; k < n; k++) {   /* an option of another source than the system's: never silently ignored (#16.3) */
    if (strcmp(names[k], "speed") == 0) speed = k;
    const mi_source_ops *owner = mi_source_option_owner(names[k], NULL);
    if (!ops || !owner || mi_source_option_find(ops, names[k])) continue;
    if (strcmp(owner->name, "replay") == 0) fprintf(stderr, "%s: %s=%s needs a recording to replay (MISH_REPLAY=FILE)\n", prog, vars[k], values[k]);
    else fprintf(stderr, "%s: %s=%s needs the %s system, not MISH_SYSTEM=%s\n", prog, vars[k], values[k], owner->name, system);
    exit(2);
  }
  if (replay && replay[0]) {   /* #13: a recording, paced by the wall clock unless MISH_SPEED says */
    if (speed < 0) { snprintf(vars[n], sizeof vars[n], "MISH_SPEED"); names[n] = "speed"; values[n++] = "1"; }
    const char *sp = speed >= 0 ? values[speed] : "1";
    mish_env_speed_ = strcmp(sp, "max") == 0 ? 0 : atof(sp);
  }
  mi_source_choice c;
  if (mi_source_choose(&c, system, names, values, n, err, sizeof err) != 0) {
    int k = 0;   /* name the variable the bad option came from */
    while (k < n && !(strncmp(err + 1, names[k], strlen(names[k])) == 0 && err[1 + strlen(names[k])] == '\'')) k++;
    fprintf(stderr, "%s: %s: %s\n", prog, k < n ? vars[k] : "MISH_SYSTEM", err);
    exit(2);
  }
  mi_system_options o = {0};
  o.registry = registry && registry[0] ? registry : NULL;
  mi_system *sys = mi_system_open(c.spec, &o, &c.args, err, sizeof err);
  if (!sys) {   /* name the variable the bad part came from */
    const char *var = !(replay && replay[0]) ? "MISH_SYSTEM" : strncmp(err, "bad speed", 9) == 0 ? "MISH_SPEED"
                    : strncmp(err, "bad time", 8) == 0 ? "MISH_FROM or MISH_TO" : replay_var;
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
