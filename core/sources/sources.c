/* sources.c — sources as ops tables: the registry of sources by name (the built-ins "sim" and
 * "host" first) and mi_system_open. Like the sources it lives with, it sees the public headers
 * only; attaching a source and what a source may read of the core are in core/store/store.c. */
#include <stdio.h>
#include <string.h>
#include "mi_source.h"

#define MAX_SOURCES 32

extern const mi_source_ops mi_source_sim_ops, mi_source_host_ops, mi_source_replay_ops;   /* sim.c, linux.c, replay.c */

static const mi_source_ops *const builtin[] = {&mi_source_sim_ops, &mi_source_host_ops, &mi_source_replay_ops};
#define NBUILTIN ((int)(sizeof builtin / sizeof builtin[0]))
static const mi_source_ops *registered[MAX_SOURCES];
static int nregistered;

/* Length of a source name at the start of spec (up to ':' or the end). */
static size_t name_len(const char *spec) {
  const char *colon = strchr(spec, ':');
  return colon ? (size_t)(colon - spec) : strlen(spec);
}

const mi_source_ops *mi_source_at(int i) {
  if (i < 0) return NULL;
  if (i < NBUILTIN) return builtin[i];
  return i - NBUILTIN < nregistered ? registered[i - NBUILTIN] : NULL;
}

const mi_source_ops *mi_source_find(const char *name) {
  if (!name) return NULL;
  size_t n = name_len(name);
  const mi_source_ops *ops;
  for (int i = 0; (ops = mi_source_at(i)); i++)
    if (strlen(ops->name) == n && strncmp(ops->name, name, n) == 0) return ops;
  return NULL;
}

int mi_source_register(const mi_source_ops *ops) {
  if (!ops || !ops->open || !ops->name || !ops->name[0] || strlen(ops->name) > 31) return -1;
  for (const char *c = ops->name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
      return -1;
  if (mi_source_find(ops->name)) return -2;
  if (nregistered >= MAX_SOURCES) return -3;
  registered[nregistered++] = ops;
  return 0;
}

mi_system *mi_system_open(const char *spec, const mi_system_options *opt, const mi_source_args *a,
                          char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  if (!spec || !spec[0]) spec = "sim";
  const mi_source_ops *ops = mi_source_find(spec);
  if (!ops) {
    if (err && errlen) {
      char names[256] = "";
      const mi_source_ops *o;
      for (int i = 0; (o = mi_source_at(i)); i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", o->name);
      }
      snprintf(err, errlen, "unknown system '%.*s' (%s)", (int)(name_len(spec) > 64 ? 64 : name_len(spec)), spec, names);
    }
    return NULL;
  }
  const char *colon = strchr(spec, ':');
  static const mi_source_args none;
  mi_system *sys = mi_system_new(opt);
  if (!sys) {
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (ops->open(sys, colon ? colon + 1 : NULL, a ? a : &none, err, errlen) != 0) {
    if (err && errlen && !err[0]) snprintf(err, errlen, "cannot open system '%s'", ops->name);
    mi_system_free(sys);
    return NULL;
  }
  return sys;
}
