/* defsys.c — the default system the program installed or the core opened (mi_set_default_system,
 * mi_default_installed); it is freed at exit and forgotten when freed. Which system is opened
 * when none is installed is the sources' policy (sources/defsys.c): the store never opens one. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_source.h"

static mi_system *default_system;
static int exit_hooked;

/* Frees the default system at exit (so leak checkers see a clean process). */
static void free_default(void) { mi_system_free(default_system); }

/* Makes sys the default and frees it at exit. */
static void adopt(mi_system *sys) {
  default_system = sys;
  if (!exit_hooked) exit_hooked = atexit(free_default) == 0;
}

void mi_default_forget(mi_system *sys) {
  if (sys && sys == default_system) default_system = NULL;
}

mi_system *mi_default_installed(void) { return default_system; }

int mi_default_exists(void) { return default_system != NULL; }

int mi_set_default_system(mi_system *sys) {
  if (!sys || (default_system && default_system != sys)) return -1;
  if (!default_system) adopt(sys);
  return 0;
}
