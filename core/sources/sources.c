/* sources.c — sources as ops tables: the registry of sources by name (the built-ins "sim" and
 * "host" first), mi_system_open, and the sources' options (what a program may choose of each).
 * Like the sources it lives with, it sees the public headers only; attaching a source and what a source may read of the core are in core/store/store.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi_source.h"
#include "mi_sim.h"

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

/* Says in err that spec names no registered source, and which there are. */
static void unknown_system(const char *spec, char *err, size_t errlen) {
  char names[256] = "";
  const mi_source_ops *o;
  for (int i = 0; (o = mi_source_at(i)); i++) {
    size_t used = strlen(names);
    snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", o->name);
  }
  snprintf(err, errlen, "unknown system '%.*s' (%s)", (int)(name_len(spec) > 64 ? 64 : name_len(spec)), spec, names);
}

mi_system *mi_system_open(const char *spec, const mi_system_options *opt, const mi_source_args *a,
                          char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  if (!spec || !spec[0]) spec = "sim";
  const mi_source_ops *ops = mi_source_find(spec);
  if (!ops) {
    if (err && errlen) unknown_system(spec, err, errlen);
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

/* ---- the sources' options (#28.2) ---- */

const mi_source_option *mi_source_option_at(const mi_source_ops *ops, int i) {
  if (!ops || !ops->options || i < 0) return NULL;
  for (int k = 0; k <= i; k++)
    if (!ops->options[k].name) return NULL;
  return &ops->options[i];
}

const mi_source_option *mi_source_option_find(const mi_source_ops *ops, const char *name) {
  const mi_source_option *o;
  for (int k = 0; name && (o = mi_source_option_at(ops, k)); k++)
    if (strcmp(o->name, name) == 0) return o;
  return NULL;
}

const mi_source_ops *mi_source_option_owner(const char *name, int *i) {
  const mi_source_ops *ops;
  for (int k = i && *i > 0 ? *i : 0; (ops = mi_source_at(k)); k++)
    if (mi_source_option_find(ops, name)) {
      if (i) *i = k;
      return ops;
    }
  return NULL;
}

int mi_source_option_check(const mi_source_option *o, const char *value, int files_ok, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  if (!o || !value) { snprintf(err, errlen, "no option or no value"); return -1; }
  if (!value[0]) { snprintf(err, errlen, "%s is empty", o->name); return -1; }
  if (o->type == MI_SOPT_INT) {
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (*end || errno || n < o->min || n > o->max) {
      snprintf(err, errlen, "%s must be a whole number %ld-%ld", o->help, o->min, o->max);
      return -1;
    }
  } else if (o->type == MI_SOPT_PATH && access(value, R_OK) != 0) {
    snprintf(err, errlen, "cannot read '%.200s': %s", value, strerror(errno));
    return -1;
  } else if (o->type == MI_SOPT_WORKLOAD && !mi_workload_builtin(value) && !(files_ok && access(value, R_OK) == 0)) {
    char known[256] = "";
    for (int i = 0; mi_workload_name(i); i++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", mi_workload_name(i), files_ok || mi_workload_name(i + 1) ? ", " : "");
    snprintf(err, errlen, "no such workload (%s%s)", known, files_ok ? "or a readable .lua file" : "");
    return -1;
  }
  return 0;
}

/* Adds option o = value to the choice c of source ops (whose spec has an ARG if *arg); 0 or -1. */
static int choose_one(mi_source_choice *c, const mi_source_option *o, const char *value, int *arg, char *err, size_t errlen) {
  if (value && mi_source_option_check(o, value, 0, err, errlen) != 0) {
    char why[256];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, errlen, "'%s': %s", o->name, why);
    return -1;
  }
  if (o->to == MI_SOPT_TO_ARG) {
    if (*arg) { snprintf(err, errlen, "'%s' is given twice: '%.64s' names it already", o->name, c->spec); return -1; }
    *arg = 1;
    if (value && snprintf(c->spec + strlen(c->spec), sizeof c->spec - strlen(c->spec), ":%s", value) >= (int)(sizeof c->spec - strlen(c->spec))) {
      snprintf(err, errlen, "'%s' is too long", o->name);
      return -1;
    }
  } else if (o->to == MI_SOPT_TO_CPUS && value) c->args.cpus = (int)strtol(value, NULL, 10);
  else if (o->to == MI_SOPT_TO_WINDOW && value) {
    size_t used = strlen(c->window);
    if (strchr(value, ',')) { snprintf(err, errlen, "bad %s '%.64s'", o->name, value); return -1; }   /* the window's separator */
    if (snprintf(c->window + used, sizeof c->window - used, "%s%s=%s", used ? "," : "", o->name, value) >= (int)(sizeof c->window - used)) {
      snprintf(err, errlen, "'%s' is too long", o->name);
      return -1;
    }
    c->args.window = c->window;
  }
  return 0;
}

int mi_source_choose(mi_source_choice *c, const char *spec, const char *const names[], const char *const values[], int n,
                     char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!c || n < 0 || (n && !names)) { snprintf(err, errlen, "bad arguments"); return -1; }
  memset(c, 0, sizeof *c);
  if (!spec || !spec[0]) spec = "sim";
  c->ops = mi_source_find(spec);
  if (!c->ops) { unknown_system(spec, err, errlen); return -1; }
  if (snprintf(c->spec, sizeof c->spec, "%s", spec) >= (int)sizeof c->spec) { snprintf(err, errlen, "the system's name is too long"); return -1; }
  int arg = strchr(spec, ':') != NULL;
  for (int k = 0; k < n; k++) {
    const mi_source_option *o = mi_source_option_find(c->ops, names[k]);
    if (!o) {
      int i = 0;
      const mi_source_ops *owner = mi_source_option_owner(names[k], &i);
      if (owner) snprintf(err, errlen, "'%s' goes with %s, not %s", names[k], owner->name, c->ops->name);
      else snprintf(err, errlen, "'%s' is no option of any system", names[k]);
      return -1;
    }
    if (choose_one(c, o, values ? values[k] : NULL, &arg, err, errlen) != 0) return -1;
  }
  return 0;
}
