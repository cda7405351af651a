/* mi_system.c — mi.core's systems and sessions: core.system / attach / open and the default
 * system, the workload tables, a system userdata's methods (advance, info, close ...), and
 * sessions, which close with their system. */
#include "mi_lua_int.h"

/* ---- systems ---- */

/* The user-ID registry file of every system Lua creates: $MI_AIFKUF when the module was opened
 * (the program reads the environment, never the core), else memory only. */
static char lua_registry[512];

/* The system options of a system Lua creates. */
static mi_system_options lua_options(void) {
  mi_system_options o = {0};
  o.registry = lua_registry[0] ? lua_registry : NULL;
  return o;
}

/* Why a store could not be created at a path, from mi_system_new's errno. */
static const char *share_reason(int e) {
  switch (e) {
  case EBUSY: return "a live store is there";
  case EEXIST: return "a file that is not a mish store is there (mish never replaces it)";
  case ELOOP: return "it is a symbolic link (mish never follows or replaces one)";
  case EISDIR: return "it is a directory";
  case EPERM: return "a store of another user is there";
  case 0: return "out of memory";
  default: return strerror(e);
  }
}

/* Returns the system userdata at i (raises if it is not one or is closed). */
mi_system *mil_checksys(lua_State *L, int i) {
  lsys *u = luaL_checkudata(L, i, SYS_MT);
  if (!u->sys) luaL_argerror(L, i, "system is closed");
  return u->sys;
}

/* Index of workload field `key`, or -1. */
static int field_index(const char *key) {
  const char *f;
  for (int i = 0; (f = mi_workload_field(i, NULL, NULL, NULL, NULL)); i++)
    if (strcmp(f, key) == 0) return i;
  return -1;
}

/* Sets workload field `key` from the value at the top of the stack; raises naming the field. */
static void set_field(lua_State *L, mi_workload *w, const char *key) {
  double v, lo = 0, hi = 0;
  int kind = MI_WF_INTEGER;
  mi_workload_field(field_index(key), &lo, &hi, &kind, NULL);
  if (kind == MI_WF_DIST && lua_type(L, -1) == LUA_TSTRING) {
    size_t len;
    const char *d = lua_tolstring(L, -1, &len);
    int k = 0;   /* the whole string: "uniform\0x" is no distribution (campaign finding 10) */
    while (mi_dist_name(k) && (strlen(mi_dist_name(k)) != len || memcmp(mi_dist_name(k), d, len))) k++;
    if (!mi_dist_name(k)) luaL_error(L, "workload field '%s': unknown distribution '%s' (exponential, constant, uniform)", key, d);
    v = k;
  } else if (kind == MI_WF_DIST) {   /* a code (0.0 for exponential) would pass silently as a name */
    luaL_error(L, "workload field '%s': distribution name expected (exponential, constant, uniform), got %s", key,
               luaL_typename(L, -1));
    return;
  } else if (lua_type(L, -1) == LUA_TNUMBER) v = lua_tonumber(L, -1);
  else { luaL_error(L, "workload field '%s': number expected, got %s", key, luaL_typename(L, -1)); return; }
  if (mi_workload_set(w, key, v) == -2) {
    char range[80];
    snprintf(range, sizeof range, "%.15g..%.15g", lo, hi);
    luaL_error(L, "workload field '%s' must be %s in %s, got %s", key, kind == MI_WF_REAL ? "a number" : "an integer",
               range, lua_tostring(L, -1));
  }
}

/* Pushes field k of the table at i and returns its type; raises "bad argument #i to 'f'
 * (field 'k': T expected, got X)" unless it is nil or of type t. */
int mil_opt_field(lua_State *L, int i, const char *k, int t) {
  int got = lua_getfield(L, i, k);
  if (got != LUA_TNIL && got != t)
    luaL_argerror(L, i, lua_pushfstring(L, "field '%s': %s expected, got %s", k, lua_typename(L, t), luaL_typename(L, -1)));
  return got;
}

/* Reads integer field k of the table at i into *v if present (returns 1); raises on another
 * type, a number without an integer value, or one outside lo..hi. */
int mil_opt_field_int(lua_State *L, int i, const char *k, lua_Integer lo, lua_Integer hi, lua_Integer *v) {
  int has = mil_opt_field(L, i, k, LUA_TNUMBER) != LUA_TNIL;
  if (has) {
    int ok;
    *v = lua_tointegerx(L, -1, &ok);
    if (!ok || *v < lo || *v > hi)
      luaL_argerror(L, i, lua_pushfstring(L, "field '%s': %s integer expected", k, hi == INT32_MAX ? "a 32-bit" : "an"));
  }
  lua_pop(L, 1);
  return has;
}

/* Reads the workload table at t into *out: the built-in `base` or `workload` (default "oltp") with
 * any field of core.workload_fields() set over it; name (namelen bytes) receives its name. Raises
 * on an unknown built-in or field (a typo must not silently run the default) or a value out of range. */
static void table_workload(lua_State *L, int t, mi_workload *out, char *name, size_t namelen) {
  lua_getfield(L, t, "base");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_getfield(L, t, "workload"); }
  if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "workload must be a built-in name here");
  const char *wname = luaL_optstring(L, -1, "oltp");
  const mi_workload *b = mi_workload_builtin(wname);
  if (!b) {
    luaL_Buffer lb;
    luaL_buffinit(L, &lb);
    for (int i = 0; mi_workload_name(i); i++) { luaL_addstring(&lb, mi_workload_name(i)); luaL_addstring(&lb, ", "); }
    luaL_pushresult(&lb);
    luaL_error(L, "unknown workload '%s' (try %sor a workload file)", wname, lua_tostring(L, -1));
  }
  mi_workload w = *b;
  lua_pop(L, 1);
  mil_opt_field(L, t, "name", LUA_TSTRING);
  snprintf(name, namelen, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : w.name);
  w.name = name;
  lua_pop(L, 1);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "workload keys must be field names");
    const char *k = lua_tostring(L, -2);
    if (!strcmp(k, "workload") || !strcmp(k, "base") || !strcmp(k, "realtime") || !strcmp(k, "name") ||
        !strcmp(k, "about") || !strcmp(k, "host") || !strcmp(k, "share")) { lua_pop(L, 1); continue; }
    double dummy;
    if (mi_workload_get(&w, k, &dummy) != 0) luaL_error(L, "unknown workload field '%s' (see mi.workload_fields())", k);
    set_field(L, &w, k);
    lua_pop(L, 1);
  }
  *out = w;
}

#define MAX_CHOSEN 32   /* source options one open may name */

/* Collects the sources' options present in the table at t (every registered source's, by name:
 * mi_source_option) into names/values, leaving their texts on the stack; a workload given as a
 * table is read into *w (name in wname) and *wl points to it (its value NULL: passed in the
 * arguments). Returns how many. Raises on a value that is neither text, number nor such a table. */
static int table_options(lua_State *L, int t, const char **names, const char **values, const mi_workload **wl,
                         mi_workload *w, char *wname, size_t wlen) {
  int n = 0;
  const mi_source_ops *ops;
  const mi_source_option *o;
  for (int i = 0; (ops = mi_source_at(i)); i++)
    for (int k = 0; (o = mi_source_option_at(ops, k)) && n < MAX_CHOSEN; k++) {
      int seen = 0;
      for (int j = 0; j < n; j++) seen |= strcmp(names[j], o->name) == 0;
      if (seen) continue;   /* two sources with an option of one name: given once */
      int type = lua_getfield(L, t, o->name);
      if (type == LUA_TNIL) { lua_pop(L, 1); continue; }
      luaL_checkstack(L, 4, "too many options");
      names[n] = o->name;
      if (type == LUA_TTABLE && o->type == MI_SOPT_WORKLOAD) {
        table_workload(L, lua_gettop(L), w, wname, wlen);
        *wl = w;
        values[n++] = NULL;
      } else if (type == LUA_TNUMBER && (o->type == MI_SOPT_INT || o->type == MI_SOPT_TEXT)) {   /* a whole number as one ("3", not "3.0") */
        int isint;
        lua_Integer v = lua_tointegerx(L, -1, &isint);
        values[n++] = isint ? lua_pushfstring(L, "%I", (LUAI_UACINT)v) : lua_tostring(L, -1);
      } else if (type == LUA_TSTRING) values[n++] = lua_tostring(L, -1);
      else   /* a path or a workload's name is text (a workload may be a table too) */
        luaL_argerror(L, t, lua_pushfstring(L, "field '%s': %s expected, got %s", o->name,
                                            o->type == MI_SOPT_INT ? "number" : "string", luaL_typename(L, -1)));
    }
  return n;
}

/* Opens spec with the source options of the table at t (0: none) and the arguments a (a caller's
 * age_ms, virtual time, workload and window), in the store file share if not NULL: pushes the
 * system userdata, or raises with the core's reason. */
static lsys *open_with(lua_State *L, const char *spec, int t, const mi_source_args *a, const char *share) {
  const char *names[MAX_CHOSEN], *values[MAX_CHOSEN];
  const mi_workload *wl = a->workload;
  mi_workload w;
  char wname[64], err[256];
  int n = t ? table_options(L, t, names, values, &wl, &w, wname, sizeof wname) : 0;
  mi_source_choice c;
  if (mi_source_choose(&c, spec, names, values, n, err, sizeof err) != 0) luaL_error(L, "%s", err);
  c.args.age_ms = a->age_ms;
  c.args.virtual_time = a->virtual_time;
  c.args.workload = wl;
  if (!c.args.window) c.args.window = a->window;
  lsys *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, SYS_MT);
  mi_system_options o = lua_options();
  o.share = share;
  errno = 0;
  u->sys = mi_system_open(c.spec, &o, &c.args, err, sizeof err);
  if (!u->sys && share && strcmp(err, "out of memory") == 0)
    luaL_error(L, "cannot share the store at '%s': %s", share, share_reason(errno));
  if (!u->sys) luaL_error(L, "%s", err);
  if (share) mi_system_publish_every(u->sys, 100);   /* live for attached readers while this state idles */
  mi_linux_time_refreshes(u->sys, 1);   /* a host's info() shows what its refreshes cost (-1: not the host) */
  u->owned = 1;
  return u;
}

/* core.system([{workload=NAME|base=NAME, <fields>, realtime=, share=}] | {host=true, proc=, age_ms=,
 * process_age_ms=, share=} | "default") -> system userdata. The built-in workload NAME (default "oltp")
 * is the start; any field of core.workload_fields() overrides it; an unknown key is an error (a typo
 * must not silently run the default). Both are opened as core.open opens a source. */
static int l_system(lua_State *L) {
  lua_settop(L, 1);
  if (lua_isnoneornil(L, 1) || (lua_type(L, 1) == LUA_TSTRING && strcmp(lua_tostring(L, 1), "default") == 0)) {
    lsys *u = lua_newuserdatauv(L, sizeof *u, 0);
    memset(u, 0, sizeof *u);           /* closed until the system exists */
    luaL_setmetatable(L, SYS_MT);
    u->sys = mi_default_system();
    if (!u->sys) return luaL_error(L, "cannot create the default system");
    return 1;
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "host");
  int host = lua_toboolean(L, -1);
  lua_pop(L, 1);
  mil_opt_field(L, 1, "share", LUA_TSTRING);   /* {share = PATH}: the store lives in that file (#12) */
  const char *share = lua_tostring(L, -1);
  lua_pop(L, 1);   /* the string stays alive in the table */
  mi_source_args a = {0};
  if (host) {   /* the live machine: the table's host options (proc) as core.open takes them */
    lua_Integer age = -1, page = 0;
    mil_opt_field_int(L, 1, "age_ms", -1, INT32_MAX, &age);
    mil_opt_field_int(L, 1, "process_age_ms", 0, INT32_MAX, &page);
    a.age_ms = age == -1 ? 0 : age == 0 ? -1 : (int)age;   /* here -1 is the default and 0 every call */
    lsys *u = open_with(L, "host", 1, &a, share);
    mi_linux_set_process_age(u->sys, (int)page);
    return 1;
  }
  mi_workload w;
  char name[64];
  table_workload(L, 1, &w, name, sizeof name);
  lua_getfield(L, 1, "realtime");
  int rt = lua_toboolean(L, -1);
  lua_pop(L, 1);
  a.workload = &w;
  a.virtual_time = 1;   /* a model the program steps, unless realtime */
  lsys *u = open_with(L, "sim", 0, &a, share);
  if (rt) mi_sim_set_realtime(u->sys, 1);
  return 1;
}

/* core.attach(path [, trust [, write]]) -> system: the store another process shares at path
 * (mi.system{share=}, mish --share, examples/embed --share), with this module's registry; trust
 * accepts a store file of another user; write attaches read-write (else read-only, #27.8).
 * Raises with the reason if it cannot. */
static int l_attach(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  mi_attach_options ao = {.registry = lua_registry[0] ? lua_registry : NULL, .trust = lua_toboolean(L, 2),
                          .write = lua_toboolean(L, 3)};
  lsys *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, SYS_MT);
  int err = 0;
  errno = 0;
  u->sys = mi_system_attach_with(path, &ao, &err);
  if (!u->sys) {
    int e = errno;
    const char *m = mi_status_message(err);
    if (strncmp(m, "mish: ", 6) == 0) m += 6;   /* the caller's message already says whose it is */
    if (err == MI_E_STORE_OPEN && e) return luaL_error(L, "cannot attach '%s': %s (%s)", path, m, strerror(e));
    return luaL_error(L, "cannot attach '%s': %s", path, m);
  }
  u->owned = 1;
  return 1;
}

/* core.collect(system, what): the owner of a shared store collects every counter of the domains
 * `what` names ("all", or a comma list of global, process, io) for read-only readers (#27.8).
 * Raises naming a bad word or the status. */
static int l_collect(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  const char *what = luaL_checkstring(L, 2);
  int mask = 0;
  for (const char *p = what; *p;) {
    size_t n = strcspn(p, ",");
    if (n == 3 && !strncmp(p, "all", 3)) mask |= MI_COLLECT_ALL;
    else if (n == 6 && !strncmp(p, "global", 6)) mask |= MI_COLLECT_GLOBAL;
    else if (n == 7 && !strncmp(p, "process", 7)) mask |= MI_COLLECT_PROCESS;
    else if (n == 2 && !strncmp(p, "io", 2)) mask |= MI_COLLECT_IO;
    else return luaL_error(L, "collect: '%s' is not all or a list of global, process, io", what);
    p += n + (p[n] == ',');
  }
  if (!mask) return luaL_error(L, "collect: '%s' is not all or a list of global, process, io", what);
  if (!mi_system_share_path(sys) || mi_system_attached(sys)) return luaL_error(L, "collect: only the owner of a shared store (share = PATH) collects for its readers");
  int rc = mi_system_collect(sys, mask);
  if (rc) return luaL_error(L, "collect: %s", mi_status_message(rc));
  return 0;
}

/* core.publish_every(system, ms): the owner's refresh thread every ms (0 stops it; core.system and
 * core.open start it at 100 ms for a shared store); true, or false if the system has no source. */
static int l_publish_every(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  lua_Integer ms = luaL_checkinteger(L, 2);
  luaL_argcheck(L, ms >= 0 && ms <= INT32_MAX, 2, "milliseconds 0 or more");
  lua_pushboolean(L, mi_system_publish_every(sys, (int)ms) == 0);
  return 1;
}

/* core.open(spec [, {<a source option by name: workload=, cpus=, proc=, from=, ...>, age_ms=,
 * virtual=, share=, window=}]) -> system userdata: mi_system_open("sim", "sim:batch", "host",
 * "host:/proc-root" or a registered NAME[:ARG]) with the source options folded in (mi_source_choose:
 * a workload may be a table of core.system's form) and the module's registry; a sim opened so runs
 * in real time after a minute of history unless virtual is true. Raises with the core's reason,
 * e.g. "unknown system 'x' (sim, host, replay)" or "'cpus' goes with sim, not host". */
static int l_open(lua_State *L) {
  const char *spec = luaL_optstring(L, 1, "sim");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  mi_source_args a = {0};
  const char *share = NULL;
  if (lua_istable(L, 2)) {
    lua_Integer v;
    if (mil_opt_field_int(L, 2, "age_ms", -1, INT32_MAX, &v)) a.age_ms = (int)v;
    lua_getfield(L, 2, "virtual");
    a.virtual_time = lua_toboolean(L, -1);
    lua_pop(L, 1);
    mil_opt_field(L, 2, "share", LUA_TSTRING);   /* {share = PATH}: the store lives in that file (#12) */
    share = lua_tostring(L, -1);
    lua_pop(L, 1);   /* the string stays alive in the table */
    mil_opt_field(L, 2, "window", LUA_TSTRING);  /* {window = "from=..,to=..,speed=.."}: a replay's (#13) */
    a.window = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  open_with(L, spec, lua_istable(L, 2) ? 2 : 0, &a, share);
  return 1;
}

/* core.set_default(system): installs a system Lua created as THE default (of core.system("default"),
 * the upper-case API and mi.open()); the core owns it from then on. Raises if another default exists. */
static int l_set_default(lua_State *L) {
  lsys *u = luaL_checkudata(L, 1, SYS_MT);
  if (!u->sys) luaL_argerror(L, 1, "system is closed");
  if (mi_set_default_system(u->sys) != 0) return luaL_error(L, "a default system exists already");
  u->owned = 0;   /* the core frees it at exit; this userdata is now a wrapper of the default */
  return 0;
}

/* core.default_exists() -> true once the default system exists (installed or created by a use). */
static int l_default_exists(lua_State *L) {
  lua_pushboolean(L, mi_default_exists());
  return 1;
}

/* Pushes source option o as {name=, type="text"|"int"|"path"|"workload", to="arg"|"cpus"|"window",
 * min=, max= (an int's), value=, help=, source=}. */
static void push_option(lua_State *L, const mi_source_option *o, const char *source) {
  static const char *const types[] = {"text", "int", "path", "workload"}, *const tos[] = {"?", "arg", "cpus", "window"};
  lua_createtable(L, 0, 8);
  lua_pushstring(L, o->name); lua_setfield(L, -2, "name");
  lua_pushstring(L, o->type >= 0 && o->type <= MI_SOPT_WORKLOAD ? types[o->type] : "text"); lua_setfield(L, -2, "type");
  lua_pushstring(L, o->to >= 1 && o->to <= MI_SOPT_TO_WINDOW ? tos[o->to] : "?"); lua_setfield(L, -2, "to");
  if (o->type == MI_SOPT_INT) {
    lua_pushinteger(L, o->min); lua_setfield(L, -2, "min");
    lua_pushinteger(L, o->max); lua_setfield(L, -2, "max");
  }
  lua_pushstring(L, o->value ? o->value : "VALUE"); lua_setfield(L, -2, "value");
  lua_pushstring(L, o->help ? o->help : ""); lua_setfield(L, -2, "help");
  lua_pushstring(L, source); lua_setfield(L, -2, "source");
}

/* core.sources() -> array of {name=, about=, options={...}}: the sources mi_system_open knows,
 * built-ins first, each with its options (push_option's tables, in the source's order). */
static int l_sources(lua_State *L) {
  lua_newtable(L);
  const mi_source_ops *o;
  for (int i = 0; (o = mi_source_at(i)); i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, o->name); lua_setfield(L, -2, "name");
    lua_pushstring(L, o->about ? o->about : ""); lua_setfield(L, -2, "about");
    lua_newtable(L);
    const mi_source_option *opt;
    for (int k = 0; (opt = mi_source_option_at(o, k)); k++) { push_option(L, opt, o->name); lua_rawseti(L, -2, k + 1); }
    lua_setfield(L, -2, "options");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* Pushes workload w as a table of its fields (distributions by name) plus name and about. */
static void push_workload(lua_State *L, const mi_workload *w) {
  lua_newtable(L);
  const char *f;
  int kind;
  for (int i = 0; (f = mi_workload_field(i, NULL, NULL, &kind, NULL)); i++) {
    double v = 0;
    mi_workload_get(w, f, &v);
    if (kind == MI_WF_DIST) lua_pushstring(L, mi_dist_name((int)v));
    else if (kind == MI_WF_INTEGER) lua_pushinteger(L, (lua_Integer)v);
    else lua_pushnumber(L, v);
    lua_setfield(L, -2, f);
  }
  if (w->name) { lua_pushstring(L, w->name); lua_setfield(L, -2, "name"); }
  if (w->about) { lua_pushstring(L, w->about); lua_setfield(L, -2, "about"); }
}

/* core.sleep(seconds): waits on the monotonic clock; returns early (false) if a signal arrives. */
static int l_sleep(lua_State *L) {
  double sec = luaL_checknumber(L, 1);
  luaL_argcheck(L, sec >= 0 && sec < 1e7, 1, "seconds must be in 0..1e7");
  struct timespec ts = {(time_t)sec, (long)((sec - (double)(time_t)sec) * 1e9)};
  lua_pushboolean(L, nanosleep(&ts, NULL) == 0);
  return 1;
}

/* core.clock() -> milliseconds of a monotonic clock (for interval arithmetic). */
static int l_clock(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6);
  return 1;
}

/* core.workload(name) -> table of a built-in workload's fields, or nil if there is none. */
static int l_workload(lua_State *L) {
  const mi_workload *w = mi_workload_builtin(luaL_checkstring(L, 1));
  if (!w) { lua_pushnil(L); return 1; }
  push_workload(L, w);
  return 1;
}

/* core.workload_fields() -> array of {name=, min=, max=, about=} for every settable field. */
static int l_workload_fields(lua_State *L) {
  lua_newtable(L);
  double lo, hi;
  const char *about, *f;
  for (int i = 0; (f = mi_workload_field(i, &lo, &hi, NULL, &about)); i++) {
    lua_createtable(L, 0, 4);
    lua_pushstring(L, f); lua_setfield(L, -2, "name");
    lua_pushnumber(L, lo); lua_setfield(L, -2, "min");
    lua_pushnumber(L, hi); lua_setfield(L, -2, "max");
    lua_pushstring(L, about); lua_setfield(L, -2, "about");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* Closes session e once: frees its C session (its system is still alive), unlinks it from its
 * system userdata; by_system marks it closed by its system's close. Idempotent. */
static void ses_release(lses *e, int by_system) {
  if (e->s) mi_session_free(e->s);
  e->s = NULL;
  if (e->sys) {
    if (e->prev) e->prev->next = e->next; else e->sys->sessions = e->next;
    if (e->next) e->next->prev = e->prev;
    e->prev = e->next = NULL;
    e->sys = NULL;
    if (by_system) e->sys_closed = 1;
  }
}

/* __gc/__close/close of a system: closes the sessions opened on this userdata, then frees an
 * owned system; a wrapper of the default (or an embedding program's) system leaves the system. */
static int sys_close(lua_State *L) {
  lsys *u = luaL_checkudata(L, 1, SYS_MT);
  while (u->recorders) mil_rcd_release(u->recorders, 1);   /* their end marks, while the system is there */
  while (u->sessions) ses_release(u->sessions, 1);
  if (u->sys && u->owned) mi_system_free(u->sys);
  u->sys = NULL;
  return 0;
}

/* system:closed() -> true once the system userdata is closed. */
static int sys_isclosed(lua_State *L) {
  lua_pushboolean(L, ((lsys *)luaL_checkudata(L, 1, SYS_MT))->sys == NULL);
  return 1;
}

/* system:advance(ms): runs the simulated model forward by ms of virtual time. */
static int sys_advance(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  lua_Integer ms = luaL_checkinteger(L, 2);
  luaL_argcheck(L, ms >= 0, 2, "milliseconds must be >= 0");
  if (!mi_sim_attached(sys)) return luaL_error(L, "this system is not simulated");
  mi_sim_advance(sys, ms);
  return 0;
}

/* system:now() -> the system's time in ticks since 1970 (a process's start_ticks is on this clock). */
static int sys_now(lua_State *L) {
  lua_pushinteger(L, mi_host_now(mil_checksys(L, 1)));
  return 1;
}

/* system:refresh() -> processes seen: reads /proc now (host systems only). */
static int sys_refresh(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  if (!mi_linux_attached(sys)) return luaL_error(L, "this system is not the host");
  lua_pushinteger(L, mi_linux_refresh(sys));
  return 1;
}

/* core.host_mapping() -> array of {item=, figure=} the host source drives. */
static int l_host_mapping(lua_State *L) {
  lua_newtable(L);
  const char *fig;
  int32_t item;
  for (int i = 0; (item = mi_linux_mapping(i, &fig)) != 0; i++) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, item); lua_setfield(L, -2, "item");
    lua_pushstring(L, fig); lua_setfield(L, -2, "figure");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* core.host_figure(item) -> the kernel figure behind an item on the host, or nil. */
static int l_host_figure(lua_State *L) {
  lua_Integer item = luaL_checkinteger(L, 1);
  const char *f = item >= INT32_MIN && item <= INT32_MAX ? mi_linux_figure((int32_t)item) : NULL;
  if (f) lua_pushstring(L, f); else lua_pushnil(L);
  return 1;
}

/* system:host_cpus() -> every processor's figures on the host, past the MI's 8 too: an array
 * ({cpu=, and the processor items' names: gmt_idle=, gmt_external_ics=, gmt_bs_process=,
 * gmt_cs_process=, gmt_ds_process=, gmc_interrupt_handler=, gmc_launches=}, processor k at
 * k + 1), counted since the host first read them; nil if the system is not the host. */
static int sys_host_cpus(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  mi_linux_cpu c[1024];
  int n = mi_linux_cpus(sys, c, 1024);
  if (n < 0) { lua_pushnil(L); return 1; }
  lua_createtable(L, n, 0);
  for (int i = 0; i < n && i < 1024; i++) {
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, c[i].cpu); lua_setfield(L, -2, "cpu");
    lua_pushinteger(L, c[i].idle); lua_setfield(L, -2, "gmt_idle");
    lua_pushinteger(L, c[i].ics); lua_setfield(L, -2, "gmt_external_ics");
    lua_pushinteger(L, c[i].bs); lua_setfield(L, -2, "gmt_bs_process");
    lua_pushinteger(L, c[i].cs); lua_setfield(L, -2, "gmt_cs_process");
    lua_pushinteger(L, c[i].ds); lua_setfield(L, -2, "gmt_ds_process");
    lua_pushinteger(L, c[i].interrupts); lua_setfield(L, -2, "gmc_interrupt_handler");
    lua_pushinteger(L, c[i].launches); lua_setfield(L, -2, "gmc_launches");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* system:realtime(on): keeps the model in step with the wall clock or not. */
static int sys_realtime(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  mi_sim_set_realtime(sys, lua_toboolean(L, 2));
  return 0;
}

/* system:info() -> {cpus=, processes=, ticks=, devices={[ldev]=type name}, transactions=, host= (the host's reading health)}. */
static int sys_info(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, mi_host_cpus(sys)); lua_setfield(L, -2, "cpus");
  lua_pushinteger(L, mi_host_proc_count(sys)); lua_setfield(L, -2, "processes");
  lua_pushinteger(L, mi_host_now(sys)); lua_setfield(L, -2, "ticks");
  lua_pushinteger(L, mi_sim_transactions(sys)); lua_setfield(L, -2, "transactions");
  lua_pushstring(L, mi_system_attached(sys) ? "attached" : mi_system_source_name(sys)); lua_setfield(L, -2, "source");
  if (mi_system_attached(sys)) { lua_pushboolean(L, mi_system_readonly(sys)); lua_setfield(L, -2, "readonly"); }   /* #27.8 */
  if (mi_system_share_path(sys)) { lua_pushstring(L, mi_system_share_path(sys)); lua_setfield(L, -2, "share"); }
  if (mi_sim_workload(sys)) { push_workload(L, mi_sim_workload(sys)); lua_setfield(L, -2, "workload"); }
  mi_linux_health hh;
  if (mi_linux_health_get(sys, &hh) == 0) {   /* host = {refreshes, incomplete, failed_reads, malformed, errno, error,
                                                * complete, disks, and the cost: files_read, last_files, cpu_s, last_cpu_s, self_cpu_s} */
    lua_createtable(L, 0, 13);
    lua_pushinteger(L, hh.files_read); lua_setfield(L, -2, "files_read");
    lua_pushinteger(L, hh.last_files); lua_setfield(L, -2, "last_files");
    if (hh.cpu_ns >= 0) {   /* nil: refreshes not timed (a system an embedder made, mi_linux_time_refreshes) */
      lua_pushnumber(L, hh.cpu_ns / 1e9); lua_setfield(L, -2, "cpu_s");
      lua_pushnumber(L, hh.last_cpu_ns / 1e9); lua_setfield(L, -2, "last_cpu_s");
    }
    lua_pushnumber(L, hh.self_cpu_ns / 1e9); lua_setfield(L, -2, "self_cpu_s");
    lua_pushinteger(L, hh.refreshes); lua_setfield(L, -2, "refreshes");
    if (hh.short_lived >= 0) { lua_pushinteger(L, hh.short_lived); lua_setfield(L, -2, "short_lived"); }   /* nil: not measured */
    lua_pushinteger(L, hh.incomplete); lua_setfield(L, -2, "incomplete");
    lua_pushinteger(L, hh.failed_reads); lua_setfield(L, -2, "failed_reads");
    lua_pushinteger(L, hh.malformed); lua_setfield(L, -2, "malformed");
    lua_pushinteger(L, hh.last_errno); lua_setfield(L, -2, "errno");
    if (hh.last_errno) { lua_pushstring(L, strerror(hh.last_errno)); lua_setfield(L, -2, "error"); }
    lua_pushboolean(L, hh.complete); lua_setfield(L, -2, "complete");
    lua_newtable(L);   /* disks = {[ldev] = the kernel's name} */
    for (int l = 1; mi_linux_disk_name(sys, l); l++) { lua_pushstring(L, mi_linux_disk_name(sys, l)); lua_rawseti(L, -2, l); }
    lua_setfield(L, -2, "disks");
    mi_linux_limits lim;   /* limits = {cpus, cpuset, cpu_max (CPUs' worth of time, quota / period), memory_max (bytes)} */
    if (mi_linux_limits_get(sys, &lim) == 0) {
      lua_createtable(L, 0, 4);
      lua_pushinteger(L, lim.cpus); lua_setfield(L, -2, "cpus");
      lua_pushinteger(L, lim.cpuset); lua_setfield(L, -2, "cpuset");
      if (lim.cpu_period_us > 0) { lua_pushnumber(L, (double)lim.cpu_quota_us / (double)lim.cpu_period_us); lua_setfield(L, -2, "cpu_max"); }
      if (lim.memory_max >= 0) { lua_pushinteger(L, lim.memory_max); lua_setfield(L, -2, "memory_max"); }
      lua_setfield(L, -2, "limits");
    }
    lua_setfield(L, -2, "host");
  }
  lua_newtable(L);
  for (int l = 1; l <= MI_MAX_LDEV; l++)
    if (mi_host_device(sys, l)) { lua_pushstring(L, mi_devtype(mi_host_device(sys, l))->name); lua_rawseti(L, -2, l); }
  lua_setfield(L, -2, "devices");
  return 1;
}

/* ---- sessions ---- */

/* Returns the open session at i (raises if it is not one, or it or its system is closed). */
lses *mil_checkses(lua_State *L, int i) {
  lses *u = luaL_checkudata(L, i, SES_MT);
  if (!u->s) luaL_argerror(L, i, u->sys_closed ? "system is closed" : "session is closed");
  return u;
}

/* core.session(system) -> a new MI caller on that system, privileged mode off. */
static int l_session(lua_State *L) {
  lsys *y = luaL_checkudata(L, 1, SYS_MT);
  if (!y->sys) luaL_argerror(L, 1, "system is closed");
  lses *u = lua_newuserdatauv(L, sizeof *u, 2);
  memset(u, 0, sizeof *u);          /* closed until the C session exists */
  luaL_setmetatable(L, SES_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);      /* keeps the system userdata alive while the session lives */
  u->s = mi_session_new(y->sys);
  if (!u->s) return luaL_error(L, "cannot create a session");
  u->sys = y;
  u->next = y->sessions;
  if (y->sessions) y->sessions->prev = u;
  y->sessions = u;
  return 1;
}

/* __gc/__close/close of a session: turns off all it enabled and frees it, once. */
static int ses_close(lua_State *L) {
  lses *u = luaL_checkudata(L, 1, SES_MT);
  ses_release(u, 0);
  lua_pushnil(L);
  lua_setiuservalue(L, 1, 2);       /* drops the cached GET buffer */
  return 0;
}

static const luaL_Reg sys_methods[] = {
  {"advance", sys_advance}, {"realtime", sys_realtime}, {"info", sys_info}, {"host_cpus", sys_host_cpus}, {"now", sys_now}, {"refresh", sys_refresh}, {"close", sys_close},
  {"closed", sys_isclosed}, {"udef_install", mil_sys_udef_install}, {"udef_items", mil_sys_udef_items},
  {"udef_count", mil_sys_udef_count}, {"udef", mil_sys_udef}, {NULL, NULL}};
static const luaL_Reg ses_methods[] = {{"priv", mil_ses_priv}, {"close", ses_close}, {NULL, NULL}};
static const luaL_Reg funcs[] = {
  {"system", l_system}, {"attach", l_attach}, {"collect", l_collect}, {"publish_every", l_publish_every}, {"open", l_open}, {"set_default", l_set_default}, {"default_exists", l_default_exists},
  {"sources", l_sources}, {"session", l_session}, {"workload", l_workload}, {"workload_fields", l_workload_fields}, {"sleep", l_sleep},
  {"host_figure", l_host_figure}, {"host_mapping", l_host_mapping}, {"clock", l_clock}, {NULL, NULL}};

/* Takes the program's registry ($MI_AIFKUF) for the systems Lua creates and a default not yet
 * made; makes the system and session metatables; adds this file's functions to the module
 * table at the top. */
void mil_open_system(lua_State *L) {
  const char *reg = getenv("MI_AIFKUF");
  if (reg && !lua_registry[0]) {
    snprintf(lua_registry, sizeof lua_registry, "%s", reg);
    mi_system_options o = lua_options();
    mi_default_configure(NULL, &o);   /* -1 when the program made its default already: it chose */
  }
  mil_new_mt(L, SYS_MT, sys_methods, sys_close);
  mil_new_mt(L, SES_MT, ses_methods, ses_close);
  luaL_setfuncs(L, funcs, 0);
}
