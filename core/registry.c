/* registry.c — installed MI user IDs (the AIFKUF.PUB.SYS analogue): kept in memory
 * and, when a path is configured, in a text file with one decimal ID per line. */
#include <stdio.h>
#include <stdlib.h>
#include "mi_internal.h"

/* Adds uid to the in-memory list; 0 or -1. */
static int remember(mi_system *sys, int32_t uid) {
  if (mi_registry_has(sys, uid)) return 0;
  if (sys->nuids == sys->cuids) {
    int c = sys->cuids ? sys->cuids * 2 : 8;
    int32_t *u = realloc(sys->uids, sizeof *u * (size_t)c);
    if (!u) return -1;
    sys->uids = u; sys->cuids = c;
  }
  sys->uids[sys->nuids++] = uid;
  return 0;
}

int mi_registry_load(mi_system *sys) {
  if (!sys->registry_path[0]) return 0;
  FILE *f = fopen(sys->registry_path, "r");
  if (!f) return 0;
  char line[64];
  while (fgets(line, sizeof line, f)) {
    char *end; long v = strtol(line, &end, 10);
    if (end != line && v > 0 && v <= INT32_MAX) remember(sys, (int32_t)v);
  }
  fclose(f);
  return 0;
}

int mi_registry_has(mi_system *sys, int32_t uid) {
  for (int i = 0; i < sys->nuids; i++)
    if (sys->uids[i] == uid) return 1;
  return 0;
}

int mi_registry_add(mi_system *sys, int32_t uid) {
  if (uid <= 0) return MI_E_NO_SUCH_USER_ID;
  if (mi_registry_has(sys, uid)) return 0;
  if (sys->registry_path[0]) {
    FILE *f = fopen(sys->registry_path, "a");
    if (!f) return MI_E_SHARED_CREATE;
    int bad = fprintf(f, "%d\n", (int)uid) < 0;
    bad |= fclose(f) != 0;
    if (bad) return MI_E_SHARED_CREATE;
  }
  return remember(sys, uid) ? MI_E_SHARED_CREATE : 0;
}
