/* defsys.c — the one default-system policy: the system the program installed
 * (mi_set_default_system), else one opened from what it configured (mi_default_configure),
 * else the built-in default, mi_system_open("sim"): the oltp workload on 2 CPUs in real time
 * after a minute of history. Nothing here reads the environment: programs decide. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_source.h"

static mi_system *default_system;
static char default_spec[256] = "sim";
static mi_system_options default_opt;
static char default_registry[MI_PATH_MAX];
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

mi_system *mi_default_system(void) {
  if (!default_system) {
    mi_system *sys = mi_system_open(default_spec, &default_opt, NULL, NULL, 0);
    if (sys) adopt(sys);
  }
  return default_system;
}

int mi_default_exists(void) { return default_system != NULL; }

int mi_default_configure(const char *spec, const mi_system_options *opt) {
  if (default_system) return -1;
  if (spec && (!mi_source_find(spec[0] ? spec : "sim") || strlen(spec) >= sizeof default_spec)) return -2;
  if (opt && opt->registry && strlen(opt->registry) >= sizeof default_registry) return -2;
  if (spec) strcpy(default_spec, spec[0] ? spec : "sim");
  if (opt) {
    default_opt = *opt;
    default_registry[0] = 0;
    if (opt->registry) strncat(default_registry, opt->registry, sizeof default_registry - 1);
    default_opt.registry = default_registry[0] ? default_registry : NULL;
  }
  return 0;
}

int mi_set_default_system(mi_system *sys) {
  if (!sys || (default_system && default_system != sys)) return -1;
  if (!default_system) adopt(sys);
  return 0;
}
