/* defsys.c — the one default-system policy: the system the program installed
 * (mi_set_default_system), else one opened from what it configured (mi_default_configure),
 * else the built-in default, mi_system_open("sim"): the oltp workload on 2 CPUs in real time
 * after a minute of history. The store keeps which system is the default (store/defsys.c);
 * this room decides what to open. Nothing here reads the environment: programs decide. */
#include <stdlib.h>
#include <string.h>
#include "mi.h"
#include "mi_source.h"

static char default_spec[256] = "sim";
static mi_system_options default_opt;
static char default_registry[4096];   /* MI_PATH_MAX: a longer path is refused (-2) */

mi_system *mi_default_system(void) {
  mi_system *cur = mi_default_installed();
  if (cur) return cur;
  mi_system *sys = mi_system_open(default_spec, &default_opt, NULL, NULL, 0);
  if (sys && mi_set_default_system(sys)) mi_system_free(sys);   /* another thread installed one first */
  return mi_default_installed();
}

int mi_default_configure(const char *spec, const mi_system_options *opt) {
  if (mi_default_exists()) return -1;
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
