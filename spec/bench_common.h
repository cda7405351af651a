/* bench_common.h — what spec/bench.c and spec/bench_peers.c both use: the clock, and a session
 * on a fresh host system with one ON. Static functions in a header of the two bench programs. */
#ifndef MISH_BENCH_COMMON_H
#define MISH_BENCH_COMMON_H

#include <dirent.h>
#include <time.h>
#include "mi.h"
#include "mi_linux.h"

/* Nanoseconds of the monotonic clock. */
static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The processes /proc lists now. */
static int host_count(void) {
  DIR *d = opendir("/proc");
  int n = 0;
  struct dirent *de;
  while (d && (de = readdir(d))) n += de->d_name[0] >= '1' && de->d_name[0] <= '9';
  if (d) closedir(d);
  return n;
}

/* A session of a fresh host system (age 0: every GET reads /proc) with one ON: the global items
 * or, with process set, the items for all processes. NULL if the host cannot be read. */
static mi_session *host_session(int32_t *items, int process) {
  mi_system *hs = mi_linux_new(NULL, 0);
  if (!hs) return NULL;
  mi_session *h = mi_session_new(hs);
  status_type st;
  int32_t stats[32], map = 1;
  mi_session_set_priv(h, 1);
  mi_globinstall(h, &st, 666);
  mi_accesson(h, &st, 666);
  longint_type all;
  mi_longint_set(&all, -1);
  if (process) mi_procon(h, &st, items, stats, &map, &all, 0);
  else mi_globon(h, &st, items, stats, &map, 0);
  return h;
}

#endif
