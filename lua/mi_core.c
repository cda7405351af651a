/* mi_core.c — the Lua 5.4 C module `mi.core`: systems and sessions as userdata, the
 * manual's calls one to one (item-number arrays in; overall status, item statuses
 * and decoded values out), the catalog, and the simulator's controls. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lua.h"
#include "lauxlib.h"
#include "mi.h"
#include "mi_host.h"
#include "mi_sim.h"
#include "mi_linux.h"
#include "mi_query.h"
#include "mi_source.h"
#include "mi_userdef.h"
#include "mi_select.h"
#include "mi_export.h"
#include "mi_record.h"

#define SYS_MT "mi.system"
#define SES_MT "mi.session"
#define QRY_MT "mi.query"
#define EXP_MT "mi.exporter"

struct lses;
struct lrcd;
/* A system userdata: the system (NULL once closed), whether Lua frees it, and the sessions and
 * recorders opened on this userdata that are still open (closing the system closes them first). */
typedef struct lsys { mi_system *sys; int owned; struct lses *sessions; struct lrcd *recorders; } lsys;
/* A session userdata: the C session (NULL once closed), the system userdata it is linked to
 * while open (kept alive by user value 1), whether it was closed by its system's close, and
 * the records its last MIPROCGET of all processes returned (to size the next buffer).
 * User value 2 holds a cached GET buffer (a userdata), taken out while a GET uses it. */
typedef struct lses {
  mi_session *s;
  lsys *sys;
  struct lses *prev, *next;
  int sys_closed;
  int32_t procs_seen;
} lses;

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

/* Creates an empty system with the module's options, private or shared at path share;
 * raises if out of memory or the file cannot be made. */
static mi_system *new_system(lua_State *L, const char *share) {
  mi_system_options o = lua_options();
  o.share = share;
  errno = 0;
  mi_system *sys = mi_system_new(&o);
  if (!sys && share)
    luaL_error(L, "cannot share the store at '%s': %s", share, share_reason(errno));
  if (!sys) luaL_error(L, "cannot create the system: out of memory");
  return sys;
}

/* Returns the system userdata at i (raises if it is not one or is closed). */
static mi_system *checksys(lua_State *L, int i) {
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
    const char *d = lua_tostring(L, -1);
    int k = 0;
    while (mi_dist_name(k) && strcmp(mi_dist_name(k), d)) k++;
    if (!mi_dist_name(k)) luaL_error(L, "workload field '%s': unknown distribution '%s' (exponential, constant, uniform)", key, d);
    v = k;
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
static int opt_field(lua_State *L, int i, const char *k, int t) {
  int got = lua_getfield(L, i, k);
  if (got != LUA_TNIL && got != t)
    luaL_argerror(L, i, lua_pushfstring(L, "field '%s': %s expected, got %s", k, lua_typename(L, t), luaL_typename(L, -1)));
  return got;
}

/* Reads integer field k of the table at i into *v if present (returns 1); raises on another
 * type, a number without an integer value, or one outside lo..hi. */
static int opt_field_int(lua_State *L, int i, const char *k, lua_Integer lo, lua_Integer hi, lua_Integer *v) {
  int has = opt_field(L, i, k, LUA_TNUMBER) != LUA_TNIL;
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
  opt_field(L, t, "name", LUA_TSTRING);
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

/* core.system([{workload=NAME|base=NAME, <fields>, realtime=}] | "default") -> system userdata.
 * The built-in workload NAME (default "oltp") is the start; any field of core.workload_fields()
 * overrides it; an unknown key is an error (a typo must not silently run the default). */
static int l_system(lua_State *L) {
  lua_settop(L, 1);
  lsys *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);           /* closed until the system exists */
  luaL_setmetatable(L, SYS_MT);
  if (lua_isnoneornil(L, 1) || (lua_type(L, 1) == LUA_TSTRING && strcmp(lua_tostring(L, 1), "default") == 0)) {
    u->sys = mi_default_system();
    if (!u->sys) return luaL_error(L, "cannot create the default system");
    return 1;
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "host");
  int host = lua_toboolean(L, -1);
  lua_pop(L, 1);
  opt_field(L, 1, "share", LUA_TSTRING);   /* {share = PATH}: the store lives in that file (#12) */
  const char *share = lua_tostring(L, -1);
  lua_pop(L, 1);   /* the string stays alive in the table */
  if (host) {   /* {host = true, proc = "/proc", age_ms = 100}: the live machine */
    opt_field(L, 1, "proc", LUA_TSTRING);
    const char *root = lua_tostring(L, -1);
    lua_Integer age = -1;
    opt_field_int(L, 1, "age_ms", -1, INT32_MAX, &age);
    if (root && access(root, R_OK) != 0) return luaL_error(L, "cannot read proc root '%s'", root);
    mi_system *sys = new_system(L, share);
    if (mi_linux_attach(sys, root, (int)age) != 0) { mi_system_free(sys); return luaL_error(L, "cannot create the host system"); }
    u->sys = sys;
    lua_pop(L, 1);
    u->owned = 1;
    if (share) mi_system_publish_every(u->sys, 100);
    return 1;
  }
  mi_workload w;
  char name[64];
  table_workload(L, 1, &w, name, sizeof name);
  lua_getfield(L, 1, "realtime");
  int rt = lua_toboolean(L, -1);
  lua_pop(L, 1);
  mi_system *sys = new_system(L, share);
  if (mi_sim_attach(sys, &w, rt) != 0) {
    mi_system_free(sys);
    char why[160];
    if (mi_workload_check(&w, why, sizeof why) != 0) return luaL_error(L, "%s", why);
    return luaL_error(L, "cannot create the system (out of memory)");
  }
  u->sys = sys;
  u->owned = 1;
  if (share) mi_system_publish_every(u->sys, 100);   /* live for attached readers while this state idles */
  return 1;
}

/* core.attach(path [, trust]) -> system: the store another process shares at path (mi.system{share=},
 * mish --share, examples/embed --share), with this module's registry; trust accepts a store file
 * of another user. Raises with the reason if it cannot. */
static int l_attach(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  mi_attach_options ao = {.registry = lua_registry[0] ? lua_registry : NULL, .trust = lua_toboolean(L, 2)};
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

/* core.open(spec [, {cpus=, workload=<table of core.system's form>, age_ms=, virtual=}]) -> system
 * userdata: mi_system_open("sim", "sim:batch", "host", "host:/proc-root" or a registered NAME[:ARG])
 * with the module's registry; a sim opened so runs in real time after a minute of history unless
 * virtual is true. Raises with the core's reason, e.g. "unknown system 'x' (sim, host)". */
static int l_open(lua_State *L) {
  const char *spec = luaL_optstring(L, 1, "sim");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  mi_source_args a = {0};
  const char *share = NULL;
  mi_workload w;
  char name[64];
  if (lua_istable(L, 2)) {
    lua_Integer v;
    if (opt_field_int(L, 2, "cpus", INT32_MIN, INT32_MAX, &v)) a.cpus = (int)v;
    if (opt_field_int(L, 2, "age_ms", -1, INT32_MAX, &v)) a.age_ms = (int)v;
    lua_getfield(L, 2, "virtual");
    a.virtual_time = lua_toboolean(L, -1);
    lua_pop(L, 1);
    opt_field(L, 2, "share", LUA_TSTRING);   /* {share = PATH}: the store lives in that file (#12) */
    share = lua_tostring(L, -1);
    lua_pop(L, 1);   /* the string stays alive in the table */
    opt_field(L, 2, "window", LUA_TSTRING);  /* {window = "from=..,to=..,speed=.."}: a replay's (#13) */
    a.window = lua_tostring(L, -1);
    lua_pop(L, 1);
    if (opt_field(L, 2, "workload", LUA_TTABLE) == LUA_TTABLE) {
      table_workload(L, lua_gettop(L), &w, name, sizeof name);
      a.workload = &w;
    }
    lua_pop(L, 1);
  }
  lsys *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, SYS_MT);
  char err[256];
  mi_system_options o = lua_options();
  o.share = share;
  errno = 0;
  u->sys = mi_system_open(spec, &o, &a, err, sizeof err);
  if (!u->sys && share && strcmp(err, "out of memory") == 0)
    return luaL_error(L, "cannot share the store at '%s': %s", share, share_reason(errno));
  if (!u->sys) return luaL_error(L, "%s", err);
  if (share) mi_system_publish_every(u->sys, 100);   /* live for attached readers while this state idles */
  u->owned = 1;
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

/* core.sources() -> array of {name=, about=}: the sources mi_system_open knows, built-ins first. */
static int l_sources(lua_State *L) {
  lua_newtable(L);
  const mi_source_ops *o;
  for (int i = 0; (o = mi_source_at(i)); i++) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, o->name); lua_setfield(L, -2, "name");
    lua_pushstring(L, o->about ? o->about : ""); lua_setfield(L, -2, "about");
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
static void rcd_release(struct lrcd *c, int by_system);
static int sys_close(lua_State *L) {
  lsys *u = luaL_checkudata(L, 1, SYS_MT);
  while (u->recorders) rcd_release(u->recorders, 1);   /* their end marks, while the system is there */
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
  mi_system *sys = checksys(L, 1);
  lua_Integer ms = luaL_checkinteger(L, 2);
  luaL_argcheck(L, ms >= 0, 2, "milliseconds must be >= 0");
  if (!mi_sim_attached(sys)) return luaL_error(L, "this system is not simulated");
  mi_sim_advance(sys, ms);
  return 0;
}

/* system:now() -> the system's time in ticks since 1970 (a process's start_ticks is on this clock). */
static int sys_now(lua_State *L) {
  lua_pushinteger(L, mi_host_now(checksys(L, 1)));
  return 1;
}

/* system:refresh() -> processes seen: reads /proc now (host systems only). */
static int sys_refresh(lua_State *L) {
  mi_system *sys = checksys(L, 1);
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

/* system:realtime(on): keeps the model in step with the wall clock or not. */
static int sys_realtime(lua_State *L) {
  mi_system *sys = checksys(L, 1);
  mi_sim_set_realtime(sys, lua_toboolean(L, 2));
  return 0;
}

/* system:info() -> {cpus=, processes=, ticks=, devices={[ldev]=type name}, transactions=, host= (the host's reading health)}. */
static int sys_info(lua_State *L) {
  mi_system *sys = checksys(L, 1);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, mi_host_cpus(sys)); lua_setfield(L, -2, "cpus");
  lua_pushinteger(L, mi_host_proc_count(sys)); lua_setfield(L, -2, "processes");
  lua_pushinteger(L, mi_host_now(sys)); lua_setfield(L, -2, "ticks");
  lua_pushinteger(L, mi_sim_transactions(sys)); lua_setfield(L, -2, "transactions");
  lua_pushstring(L, mi_system_attached(sys) ? "attached" : mi_system_source_name(sys)); lua_setfield(L, -2, "source");
  if (mi_system_share_path(sys)) { lua_pushstring(L, mi_system_share_path(sys)); lua_setfield(L, -2, "share"); }
  if (mi_sim_workload(sys)) { push_workload(L, mi_sim_workload(sys)); lua_setfield(L, -2, "workload"); }
  mi_linux_health hh;
  if (mi_linux_health_get(sys, &hh) == 0) {   /* host = {refreshes, incomplete, failed_reads, malformed, errno, error, complete} */
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, hh.refreshes); lua_setfield(L, -2, "refreshes");
    lua_pushinteger(L, hh.incomplete); lua_setfield(L, -2, "incomplete");
    lua_pushinteger(L, hh.failed_reads); lua_setfield(L, -2, "failed_reads");
    lua_pushinteger(L, hh.malformed); lua_setfield(L, -2, "malformed");
    lua_pushinteger(L, hh.last_errno); lua_setfield(L, -2, "errno");
    if (hh.last_errno) { lua_pushstring(L, strerror(hh.last_errno)); lua_setfield(L, -2, "error"); }
    lua_pushboolean(L, hh.complete); lua_setfield(L, -2, "complete");
    lua_newtable(L);   /* disks = {[ldev] = the kernel's name} */
    for (int l = 1; mi_linux_disk_name(sys, l); l++) { lua_pushstring(L, mi_linux_disk_name(sys, l)); lua_rawseti(L, -2, l); }
    lua_setfield(L, -2, "disks");
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
static lses *checkses(lua_State *L, int i) {
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

/* A GET buffer: small ones on the C stack; bigger ones a userdata cached in the session's
 * user value 2 and taken out while in use, so a GET run by a finalizer during another GET's
 * decoding gets its own buffer (re-entrant), and an error leaves nothing to free. */
#define STACK_BUF 4096
typedef union stackbuf { uint8_t b[STACK_BUF]; int64_t align_; } stackbuf;

/* Returns a buffer of at least n bytes (8-aligned): sb if it is big enough, else the cached
 * userdata in user value BUF_UV of the session (or query) at ses, grown as needed, left on
 * the stack at *idx (0 for sb). */
#define BUF_UV(L, i) (luaL_testudata(L, i, "mi.query") ? 3 : 2)
static uint8_t *get_buffer(lua_State *L, int ses, size_t n, stackbuf *sb, int *idx) {
  *idx = 0;
  if (n <= STACK_BUF) return sb->b;
  int uv = BUF_UV(L, ses);
  if (lua_getiuservalue(L, ses, uv) == LUA_TUSERDATA) {
    size_t have = lua_rawlen(L, -1);
    if (have >= n && have / 4 <= n) {   /* big enough, and not far too big */
      lua_pushnil(L);
      lua_setiuservalue(L, ses, uv);
      *idx = lua_gettop(L);
      return lua_touserdata(L, -1);
    }
  }
  lua_pop(L, 1);
  uint8_t *b = lua_newuserdatauv(L, n, 0);
  *idx = lua_gettop(L);
  return b;
}

/* Puts the buffer at idx back as the session's cached buffer. */
static void put_buffer(lua_State *L, int ses, int idx) {
  if (!idx) return;
  lua_pushvalue(L, idx);
  lua_setiuservalue(L, ses, BUF_UV(L, ses));
}

/* session:priv(on): GETPRIVMODE / GETUSERMODE for this caller. */
static int ses_priv(lua_State *L) {
  mi_session_set_priv(checkses(L, 1)->s, lua_toboolean(L, 2));
  return 0;
}

/* Reads an item list (array of integer numbers) at i into nums (zero-terminated); returns n.
 * The list's raw length counts (a __len metamethod is not asked), at most MI_MAX_ITEMS - 1. */
static int get_items(lua_State *L, int i, int32_t *nums) {
  luaL_checktype(L, i, LUA_TTABLE);
  size_t len = lua_rawlen(L, i);
  if (len >= MI_MAX_ITEMS) luaL_argerror(L, i, lua_pushfstring(L, "too many items (%d; at most %d)", (int)(len > INT32_MAX ? INT32_MAX : len), MI_MAX_ITEMS - 1));
  int n = (int)len;
  for (int k = 1; k <= n; k++) {
    int ok = 0;
    lua_Integer v = 0;
    if (lua_rawgeti(L, i, k) == LUA_TNUMBER) v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < INT32_MIN || v > INT32_MAX)
      luaL_argerror(L, i, lua_pushfstring(L, "item %d is not a 32-bit integer (got %s)", k, luaL_typename(L, -1)));
    nums[k - 1] = (int32_t)v;
    lua_pop(L, 1);
  }
  nums[n] = 0;
  return n;
}

/* get_items, and the item statuses zeroed for them: a call that fails before it checks its
 * items writes none, and Lua must not see what the buffer held. */
static int get_items_st(lua_State *L, int i, int32_t *nums, int32_t *stats) {
  int n = get_items(L, i, nums);
  memset(stats, 0, sizeof(int32_t) * (size_t)n);
  return n;
}

/* Pushes the statuses array of n entries. */
static void push_statuses(lua_State *L, const int32_t *st, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) { lua_pushinteger(L, st[k]); lua_rawseti(L, -2, k + 1); }
}

/* Pushes what an ON returns to Lua: the overall status, the item statuses, the mapping; 3. */
static int push_on(lua_State *L, status_type st, const int32_t *stats, int n, int32_t map) {
  lua_pushinteger(L, mi_status_info(st));
  push_statuses(L, stats, n);
  lua_pushinteger(L, map);
  return 3;
}

/* One item's place in a GET buffer, resolved as the core resolves it; for a prepared query
 * also its offset in a record, whether it is keyed by name, and its index among the
 * string-valued items whose decoded strings are interned (-1: not one) with their offset in
 * a cache entry's raw bytes. */
typedef struct slot { const mi_item_info *it; int32_t size, num, at, soff; int16_t str; uint8_t named, kind; } slot;

/* Resolves the buffer slots of a GET's items in domain d at a mapping exactly as the core's
 * GETs do (core/README.md decision 11): an unknown item, an item of another domain and a
 * pseudo item in the global domain keep a 4-byte zero slot (it NULL). Returns the record size. */
static size_t plan_slots(mi_system *sys, const int32_t *nums, int n, int d, int mapping, slot *sl) {
  size_t rec = 0;
  for (int k = 0; k < n; k++) {
    const mi_item_info *it = mi_sys_item(sys, nums[k]);   /* user-defined counters too */
    if (it && (it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL))) it = NULL;
    int32_t sz = mi_item_size(it, mapping);
    if (sz < 4) { it = NULL; sz = 4; }   /* a mapping out of 0-2: the core writes nothing */
    sl[k].it = it;
    sl[k].size = sz;
    rec += (size_t)sz;
  }
  return rec;
}

/* Decodes the value in slot sl at p and pushes it (an invalid item's zero slot as 0). */
static void push_value(lua_State *L, const slot *sl, const uint8_t *p) {
  const mi_item_info *it = sl->it;
  int32_t v;
  char text[32];
  if (!it) { memcpy(&v, p, 4); lua_pushinteger(L, v); return; }
  switch (it->type) {
  case MI_TYPE_I64: { longint_type l; memcpy(&l, p, 8); lua_pushinteger(L, mi_longint_get(&l)); break; }
  case MI_TYPE_FILENAME: {   /* FILE.GROUP.ACCOUNT without the blank padding */
    filename_type f;
    memcpy(&f, p, sizeof f);
    char out[3 * 16 + 2];
    size_t k = 0;
    const char *part[3] = {f.filename, f.group, f.account};
    for (int j = 0; j < 3; j++) {
      size_t l = 16;
      for (uint64_t w; l >= 8; l -= 8) {   /* whole words of padding first (MPE names are short) */
        memcpy(&w, part[j] + l - 8, 8);
        if (w != 0x2020202020202020ull && w != 0) break;
      }
      while (l && (part[j][l - 1] == ' ' || part[j][l - 1] == 0)) l--;
      if (j && l) out[k++] = '.';
      memcpy(out + k, part[j], l);
      k += l;
    }
    lua_pushlstring(L, out, k);
    break;
  }
  case MI_TYPE_CLOCK: {   /* lua_pushfstring has no widths: format here */
    clock_type c; memcpy(&c, p, 4);
    snprintf(text, sizeof text, "%02d:%02d:%02d.%d", c.hour, c.min, c.sec, c.ten_sec);
    lua_pushstring(L, text);
    break;
  }
  case MI_TYPE_CALENDAR: {
    uint32_t c; memcpy(&c, p, 4);
    if (c) snprintf(text, sizeof text, "%d-%03d", MI_CAL_YEAR(c), MI_CAL_YDAY(c)); else text[0] = 0;
    lua_pushstring(L, text);
    break;
  }
  case MI_TYPE_JSNUM: { jsnum_type j; memcpy(&j, p, 4);
    if (MI_JS_TYPE(j)) {   /* "#S12" / "#J7" */
      char d[8];
      int num = MI_JS_NUM(j), k = 0, len = 0;
      do { d[k++] = (char)('0' + num % 10); num /= 10; } while (num);
      text[len++] = '#';
      text[len++] = MI_JS_TYPE(j) == MI_JS_JOB ? 'J' : 'S';
      while (k) text[len++] = d[--k];
      lua_pushlstring(L, text, (size_t)len);
    } else lua_pushliteral(L, "");
    break; }
  case MI_TYPE_I32A: {
    int n = sl->size / 4;
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) { memcpy(&v, p + 4 * k, 4); lua_pushinteger(L, v); lua_rawseti(L, -2, k + 1); }
    break;
  }
  default: memcpy(&v, p, 4); lua_pushinteger(L, v);
  }
}

/* Pushes one record (array of values in item order) decoded from p; returns the next record. */
static const uint8_t *push_record(lua_State *L, const slot *sl, int n, const uint8_t *p) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) { push_value(L, &sl[k], p); p += sl[k].size; lua_rawseti(L, -2, k + 1); }
  return p;
}

/* Checks a mapping argument: an integer 0-2 is passed through, anything else raises. */
static int32_t opt_int32(lua_State *L, int i, int32_t def) {
  lua_Integer v = luaL_optinteger(L, i, def);
  luaL_argcheck(L, v >= INT32_MIN && v <= INT32_MAX, i, "out of 32-bit range");
  return (int32_t)v;
}

/* core.accesson/accessoff/globinstall(session, user_id) -> overall */
static int l_accesson(lua_State *L) { status_type st; mi_accesson(checkses(L, 1)->s, &st, opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }
static int l_accessoff(lua_State *L) { status_type st; mi_accessoff(checkses(L, 1)->s, &st, opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }
static int l_globinstall(lua_State *L) { status_type st; mi_globinstall(checkses(L, 1)->s, &st, opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }

/* core.globon(session, items, mapping, user_id) -> overall, statuses, mapping */
static int l_globon(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = opt_int32(L, 3, 1);
  status_type st;
  mi_globon(u->s, &st, nums, stats, &map, opt_int32(L, 4, 0));
  return push_on(L, st, stats, n, map);
}

/* core.globget(session, items, mapping, user_id) -> overall, statuses, values */
static int l_globget(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  slot sl[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = opt_int32(L, 3, 1), uid = opt_int32(L, 4, 0);
  size_t sz = plan_slots(u->sys ? u->sys->sys : NULL, nums, n, MI_DOM_GLOBAL, map, sl);   /* at most 1023 x 2880 bytes */
  stackbuf sb;
  int bi;
  uint8_t *buf = get_buffer(L, 1, sz, &sb, &bi);
  status_type st;
  mi_globget(u->s, &st, nums, buf, stats, (int32_t)sz, map, uid);
  int code = mi_status_info(st);
  lua_pushinteger(L, code);
  push_statuses(L, stats, n);
  if (st.all == 0 || code > 0) push_record(L, sl, n, buf); else lua_pushnil(L);
  put_buffer(L, 1, bi);
  return 3;
}

/* core.globoff(session, user_id) -> overall */
static int l_globoff(lua_State *L) { status_type st; mi_globoff(checkses(L, 1)->s, &st, opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }

/* Reads an optional pid argument; returns 1 and fills l if given. */
static int opt_pid(lua_State *L, int i, longint_type *l) {
  if (lua_isnoneornil(L, i)) return 0;
  mi_longint_set(l, luaL_checkinteger(L, i));
  return 1;
}

/* core.procon(session, items, mapping, pid, user_id) -> overall, statuses, mapping */
static int l_procon(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = opt_int32(L, 3, 1);
  longint_type pid; int has = opt_pid(L, 4, &pid);
  status_type st;
  mi_procon(u->s, &st, nums, stats, &map, has ? &pid : NULL, opt_int32(L, 5, 0));
  return push_on(L, st, stats, n, map);
}

/* Records a multi-record GET makes room for when the caller names no count: one for one
 * entity; the processors there can be; the configured LDEVs of the selection; for all
 * processes the live ones plus as many as this session's last such GET returned (dead ones
 * waiting to be reported) plus some births. */
static size_t room_for(const lses *u, int kind, int one, int32_t sel) {
  mi_system *sys = mi_session_system(u->s);
  size_t want;
  if (one) return 1;
  if (kind == 2) return MI_MAX_PROCESSORS;
  if (kind == 1) {
    int bits = sel == -1 ? 0x7FE : sel <= -2 && sel >= -11 ? 1 << (-sel - 1) : 0;
    want = 0;
    for (int l = 1; l <= MI_MAX_LDEV; l++) want += (size_t)(bits >> mi_host_device(sys, l) & 1);
    return want ? want : 1;
  }
  want = (size_t)mi_host_proc_count(sys) + (size_t)u->procs_seen + 64;
  return want < MI_MAX_PROCESSES ? want : MI_MAX_PROCESSES;
}

/* Multi-record GET shared by process (kind 0), I/O (1) and processor (2) calls. Without a
 * record count the buffer holds room_for records (an I/O GET grows it on -20015: it has
 * nothing to lose); with one, exactly that many (the literal call: -20015 comes back with the
 * records that fitted; the dead-process reports among them are delivered). */
static int multi_get(lua_State *L, int kind) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  slot sl[MI_MAX_ITEMS];
  int n = get_items(L, 2, nums);
  int32_t map = opt_int32(L, 3, 1), sel = -1;
  longint_type pid;
  int has = 0;
  if (kind == 0) has = opt_pid(L, 4, &pid); else sel = opt_int32(L, 4, -1);
  int one = kind == 0 ? has && mi_longint_get(&pid) != -1 : sel >= (kind == 1 ? 1 : 0);   /* pid -1 = all */
  int32_t uid = opt_int32(L, 5, 0);
  int literal = !lua_isnoneornil(L, 6);
  lua_Integer maxrec = literal ? luaL_checkinteger(L, 6) : 0;
  luaL_argcheck(L, maxrec >= 0 && maxrec <= MI_MAX_PROCESSES, 6, "record count must be in 0..2700");
  int d = kind == 0 ? MI_DOM_PROCESS : kind == 1 ? MI_DOM_IO : MI_DOM_PROCESSOR;
  memset(stats, 0, sizeof(int32_t) * (size_t)n);   /* a GET failing before it plans writes none */
  size_t rec = plan_slots(u->sys ? u->sys->sys : NULL, nums, n, d, map, sl);
  size_t want = literal ? (size_t)maxrec : room_for(u, kind, one, sel);
  if (rec && want > INT32_MAX / rec) {
    luaL_argcheck(L, !literal, 6, "records too large for one buffer");
    want = INT32_MAX / rec;   /* the core says -20015 if they do not fit */
  }
  stackbuf sb;
  int bi;
  status_type st;
  int32_t count, key = 0;
  uint8_t *buf;
  for (;;) {
    size_t sz = rec * want;
    buf = get_buffer(L, 1, sz, &sb, &bi);
    count = 0;
    if (kind == 0)
      mi_procget(u->s, &st, nums, buf, stats, (int32_t)sz, map, has ? &pid : NULL, &count, &key, uid);
    else if (kind == 1)
      mi_ioget(u->s, &st, nums, buf, stats, (int32_t)sz, map, &sel, &count, uid);
    else
      mi_prcsrget(u->s, &st, nums, buf, stats, (int32_t)sz, map, &sel, &count, uid);
    if (kind != 1 || literal || mi_status_info(st) != MI_E_BUFFER_PARTIAL || want >= MI_MAX_LDEV) break;
    want = want * 2 < MI_MAX_LDEV ? want * 2 : MI_MAX_LDEV;
    if (bi) lua_pop(L, 1);   /* a bigger one next time round */
  }
  /* never read past what the core wrote: count records of exactly rec bytes */
  if (count < 0 || (rec && (size_t)count > want)) count = 0;
  if (kind == 0 && !one) u->procs_seen = count;
  int code = mi_status_info(st);
  lua_pushinteger(L, code);
  push_statuses(L, stats, n);
  lua_createtable(L, count, 0);
  const uint8_t *p = buf;
  for (int r = 0; r < count; r++) { p = push_record(L, sl, n, p); lua_rawseti(L, -2, r + 1); }
  put_buffer(L, 1, bi);
  return 3;
}

/* core.procget(session, items, mapping, pid, user_id [, maxrecords]) -> overall, statuses, records */
static int l_procget(lua_State *L) { return multi_get(L, 0); }
/* core.ioget(session, items, mapping, ldev, user_id [, maxrecords]) -> overall, statuses, records */
static int l_ioget(lua_State *L) { return multi_get(L, 1); }
/* core.prcsrget(session, items, mapping, prcsr_id, user_id [, maxrecords]) -> overall, statuses, records */
static int l_prcsrget(lua_State *L) { return multi_get(L, 2); }

/* ---- prepared queries ---- */

/* A query userdata: the C query (NULL once closed), its domain and items, where in a record
 * the pid state (process) or the ldev (I/O) sits (-1: not asked), the slots of the items an
 * entity is known by (pid / ldev / processor id, and a process's start; -1: not asked), the
 * fields of a record, the string-valued items interned per entity (their slots, at most
 * MAX_STR) and their raw bytes, and each item's slot.
 * User value 1: the session userdata (kept alive, checked open before every run); 2: the
 * keys, {[i] = name or false} (the name of the first item of the domain with it); 3: a cached
 * GET buffer; 4: the records' metatable, whose __index maps an item number to its name's slot
 * (a record holds each value once, under its name, or under its number when it has none);
 * 5 and 6: the interned strings (an icache userdata and its strings table, taken out while a
 * read uses them); 7: the keys a record or a columns table of this query has ({[key] = true}). */
typedef struct lqry {
  mi_query *q;
  int domain, n, nfields, nstr;
  int32_t state_at, ldev_at;
  int id_slot, start_slot;
  size_t strbytes;
  int16_t stri[16];
  slot sl[];
} lqry;
#define MAX_STR 16

/* The interned strings of a process query (#31.1): one entry per entity, found by its pid,
 * holding its identity (pid, start) and the raw bytes of its string-valued items (user and
 * program names, job number, times of day, dates); the strings decoded from them sit in a Lua
 * table at entry * nstr + j + 1. An entry is refreshed when the identity or any raw byte
 * differs, so a string is decoded once per entity and never carried to another. */
typedef struct icache { uint32_t cap, used; size_t esz; unsigned char e[]; } icache;
/* A cache entry's head (live 0: empty), followed by the raw bytes. */
typedef struct ientry { int64_t pid, start, live; } ientry;

/* The stack places of one read (qry_get): the keys at kbase.. (a name, or false for an item
 * keyed by number), the records' metatable at kbase + n, the keyset after it; state key and
 * values at kbase - 5 (process; "type" for I/O); the cache and its strings at kbase - 2, - 1;
 * the result, the old records by identity (into, made on the first mismatch) and the columns. */
typedef struct rdctx {
  lqry *qu;
  mi_system *sys;
  icache *ic;
  int kbase, res, byid, cbase, into, columns;
  lua_Integer oldlen;
} rdctx;
#define RD_MT(c) ((c)->kbase + (c)->qu->n)

/* Returns the open query at i with its session checked open (raises otherwise). */
static lqry *checkqry(lua_State *L, int i) {
  lqry *qu = luaL_checkudata(L, i, QRY_MT);
  if (!qu->q) luaL_argerror(L, i, "query is closed");
  lua_getiuservalue(L, i, 1);
  lses *u = lua_touserdata(L, -1);
  if (!u || !u->s) luaL_argerror(L, i, u && u->sys_closed ? "system is closed" : "session is closed");
  lua_pop(L, 1);
  return qu;
}

/* Returns the domain named (or numbered 0-3) by the argument at i; raises otherwise. */
static int check_domain(lua_State *L, int i) {
  static const char *const names[] = {"global", "process", "io", "processor", NULL};
  if (lua_type(L, i) == LUA_TNUMBER) {
    lua_Integer d = luaL_checkinteger(L, i);
    luaL_argcheck(L, d >= 0 && d < MI_DOM_COUNT, i, "domain must be 0-3");
    return (int)d;
  }
  return luaL_checkoption(L, i, NULL, names);
}

/* __index of a record: record[number] reads the value kept under that item's name. */
static int rec_index(lua_State *L) {
  if (!lua_isinteger(L, 2)) return 0;
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TSTRING) return 0;   /* the number's name */
  lua_rawget(L, 1);
  return 1;
}

/* Whether values of item type t are decoded to strings (interned per entity). */
static int string_type(int t) {
  return t == MI_TYPE_FILENAME || t == MI_TYPE_JSNUM || t == MI_TYPE_CLOCK || t == MI_TYPE_CALENDAR;
}

/* Resolves slot i of a new query: its item, size and offset; whether it is keyed by its name
 * (the first item of that name; "names seen" table at -1, the __index map at map); whether it
 * is one an entity is known by, or a string to intern. */
static void query_slot(lua_State *L, lqry *qu, int i, int32_t at, int map) {
  const mi_item_info *it;
  int32_t size, num = mi_query_item(qu->q, i, &it, &size);
  slot *sl = &qu->sl[i];
  *sl = (slot){.it = it, .size = size, .num = num, .at = at, .str = -1};
  if (!it) return;
  sl->kind = it->type == MI_TYPE_I32 ? 0 : it->type == MI_TYPE_I64 && size == 8 ? 1 : 2;
  if (lua_getfield(L, -1, it->name) == LUA_TNIL) sl->named = 1;
  lua_pop(L, 1);
  if (num == 20002 && qu->state_at < 0) qu->state_at = at;
  if (num == 20020 && qu->ldev_at < 0) qu->ldev_at = at;
  if (sl->named) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, it->name);
    lua_pushstring(L, it->name);
    lua_rawseti(L, map, num);   /* number -> name for the records' __index */
  }
  int id = qu->domain == MI_DOM_PROCESS ? 20001 : qu->domain == MI_DOM_IO ? 20020 : qu->domain == MI_DOM_PROCESSOR ? 20040 : 0;
  if (num == id && qu->id_slot < 0 && size >= (id == 20001 ? 8 : 4)) qu->id_slot = i;
  if (num == 20005 && qu->start_slot < 0 && size == 8) qu->start_slot = i;
  if (qu->domain == MI_DOM_PROCESS && string_type(it->type) && qu->nstr < MAX_STR) {
    qu->stri[qu->nstr] = (int16_t)i;
    sl->str = (int16_t)qu->nstr++;
    sl->soff = (int32_t)qu->strbytes;
    qu->strbytes += (size_t)size;
  }
}

/* core.query(session, domain, items, mapping) -> a prepared read (domain "global", "process",
 * "io", "processor"): q:get([sel [, user_id [, quiet [, into [, columns]]]]]) runs it; q:close() frees it. */
static int l_query(lua_State *L) {
  lses *u = checkses(L, 1);
  int d = check_domain(L, 2);
  int32_t nums[MI_MAX_ITEMS];
  int n = get_items(L, 3, nums);
  int32_t map = opt_int32(L, 4, 1);
  lqry *qu = lua_newuserdatauv(L, sizeof *qu + sizeof(slot) * (size_t)n, 7);
  memset(qu, 0, sizeof *qu);
  luaL_setmetatable(L, QRY_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  qu->q = mi_query_new(u->s, d, nums, n, map);
  if (!qu->q) return luaL_error(L, "cannot create a query");
  int q = lua_gettop(L);
  qu->domain = d;
  qu->n = n = mi_query_items(qu->q);
  qu->state_at = qu->ldev_at = -1;
  qu->id_slot = qu->start_slot = -1;
  lua_createtable(L, 0, 2);          /* q + 1: the records' metatable */
  lua_createtable(L, 0, n);          /* q + 2: its __index's map: item number -> name */
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, rec_index, 1);
  lua_setfield(L, q + 1, "__index");
  lua_pushstring(L, mi_domain_name(d));   /* and the records' domain (mi.delta reads what each item is) */
  lua_setfield(L, q + 1, "domain");
  lua_createtable(L, n, 0);          /* q + 3: keys */
  lua_createtable(L, 0, n + 1);      /* q + 4: names seen, then the keyset */
  int32_t at = 0;
  for (int i = 0; i < n; i++) {
    query_slot(L, qu, i, at, q + 2);
    if (qu->sl[i].named) lua_pushstring(L, qu->sl[i].it->name); else lua_pushboolean(L, 0);
    lua_rawseti(L, q + 3, i + 1);
    if (!qu->sl[i].named) { lua_pushboolean(L, 1); lua_rawseti(L, q + 4, qu->sl[i].num); }   /* keyed by number */
    at += qu->sl[i].size;
  }
  qu->nfields = n + (d == MI_DOM_PROCESS || d == MI_DOM_IO);
  if (d == MI_DOM_PROCESS || d == MI_DOM_IO) { lua_pushboolean(L, 1); lua_setfield(L, q + 4, d == MI_DOM_IO ? "type" : "state"); }
  lua_setiuservalue(L, q, 7);
  lua_setiuservalue(L, q, 2);
  lua_pop(L, 1);
  lua_setiuservalue(L, q, 4);
  return 1;
}

/* Finds (or makes) the cache entry of the process record at rec; sets *fresh when its strings
 * must be decoded (a new entity, a pid reused by another, a changed name). -1: the cache is
 * full (the caller clears it) or the record names no pid. */
static int ic_entry(icache *ic, const lqry *qu, const uint8_t *rec, int *fresh) {
  longint_type l;
  memcpy(&l, rec + qu->sl[qu->id_slot].at, 8);
  int64_t pid = mi_longint_get(&l), start = 0;
  if (qu->start_slot >= 0) { memcpy(&l, rec + qu->sl[qu->start_slot].at, 8); start = mi_longint_get(&l); }
  uint64_t u = (uint64_t)pid;   /* pids near each other land in entries near each other: a read walks the cache in order */
  uint32_t mask = ic->cap - 1, h = (uint32_t)(u ^ u >> 13 ^ u >> 26) & mask;
  ientry *x;
  for (;; h = (h + 1) & mask) {
    x = (ientry *)(void *)(ic->e + (size_t)h * ic->esz);
    if (!x->live) {
      if (ic->used >= ic->cap / 4 * 3) return -1;
      ic->used++;
      x->live = 1;
      x->pid = pid;
      *fresh = 1;
      break;
    }
    if (x->pid == pid) break;
  }
  unsigned char *raw = (unsigned char *)(x + 1);
  if (x->start != start) *fresh = 1;
  for (int j = 0; j < qu->nstr && !*fresh; j++) {
    const slot *sl = &qu->sl[qu->stri[j]];
    *fresh = memcmp(raw + sl->soff, rec + sl->at, (size_t)sl->size) != 0;
  }
  if (*fresh) {
    x->start = start;
    for (int j = 0; j < qu->nstr; j++) {
      const slot *sl = &qu->sl[qu->stri[j]];
      memcpy(raw + sl->soff, rec + sl->at, (size_t)sl->size);
    }
  }
  return (int)h;
}

/* Takes the query's string cache out for a read of up to want records (made, or made bigger,
 * as needed: room for twice the records, its strings table sized to match) and leaves it and
 * its strings table at the stack's places kbase - 2 and - 1. A query with nothing to intern
 * (no string item, or no pid) gets none. */
static icache *ic_take(lua_State *L, const lqry *qu, size_t want) {
  if (qu->domain != MI_DOM_PROCESS || !qu->nstr || qu->id_slot < 0) { lua_pushnil(L); lua_pushnil(L); return NULL; }
  uint32_t cap = 64;
  while (cap < 2 * want + 64 && cap < 8192) cap *= 2;
  icache *ic = NULL;
  if (lua_getiuservalue(L, 1, 5) == LUA_TUSERDATA) ic = lua_touserdata(L, -1);
  lua_getiuservalue(L, 1, 6);
  if (!ic || ic->cap < cap || lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 2);
    size_t esz = (sizeof(ientry) + qu->strbytes + 7) / 8 * 8;
    ic = lua_newuserdatauv(L, sizeof *ic + esz * cap, 0);
    memset(ic, 0, sizeof *ic + esz * cap);
    ic->cap = cap;
    ic->esz = esz;
    lua_createtable(L, (int)cap * qu->nstr, 0);
  }
  lua_pushnil(L); lua_setiuservalue(L, 1, 5);   /* out while in use: a nested read makes its own */
  lua_pushnil(L); lua_setiuservalue(L, 1, 6);
  return ic;
}

/* Puts the string cache back (qry_get, after a read that completed). */
static void ic_put(lua_State *L, const rdctx *c) {
  if (!c->ic) return;
  lua_pushvalue(L, c->kbase - 2); lua_setiuservalue(L, 1, 5);
  lua_pushvalue(L, c->kbase - 1); lua_setiuservalue(L, 1, 6);
}

/* Pushes the value of slot i of the record at rec, of cache entry e (-1: none): a string
 * item's interned copy, decoded and stored first when the entry is fresh. */
static void push_slot(lua_State *L, const rdctx *c, int i, const uint8_t *rec, int e, int fresh) {
  const slot *sl = &c->qu->sl[i];
  if (sl->kind == 0) { int32_t v; memcpy(&v, rec + sl->at, 4); lua_pushinteger(L, v); return; }   /* the most of them */
  if (sl->kind == 1) { longint_type l; memcpy(&l, rec + sl->at, 8); lua_pushinteger(L, mi_longint_get(&l)); return; }
  if (sl->str < 0 || e < 0) { push_value(L, sl, rec + sl->at); return; }
  lua_Integer k = (lua_Integer)e * c->qu->nstr + sl->str + 1;
  if (!fresh) { lua_rawgeti(L, c->kbase - 1, k); return; }
  push_value(L, sl, rec + sl->at);
  lua_pushvalue(L, -1);
  lua_rawseti(L, c->kbase - 1, k);
}

/* The cache entry of the record at rec (-1: none), clearing a full cache once; sets *fresh. */
static int rec_entry(const rdctx *c, const uint8_t *rec, int *fresh) {
  *fresh = 0;
  if (!c->ic) return -1;
  int e = ic_entry(c->ic, c->qu, rec, fresh);
  if (e < 0) {   /* full of entities gone: start afresh */
    memset(c->ic->e, 0, c->ic->esz * c->ic->cap);
    c->ic->used = 0;
    e = ic_entry(c->ic, c->qu, rec, fresh);
  }
  return e;
}

/* Pushes the extra value of the record at rec: its state (process: "alive" or "dead") or its
 * device type's name (I/O; nil, or false with nil_as_false, when it has none). 0: no extra. */
static int push_extra(lua_State *L, const rdctx *c, const uint8_t *rec, int nil_as_false) {
  const lqry *qu = c->qu;
  if (qu->domain == MI_DOM_PROCESS) {
    int32_t v = 0;
    if (qu->state_at >= 0) memcpy(&v, rec + qu->state_at, 4);
    lua_pushvalue(L, v == 1 ? c->kbase - 4 : c->kbase - 3);
    return 1;
  }
  if (qu->domain != MI_DOM_IO) return 0;
  int32_t l = 0;
  if (qu->ldev_at >= 0) memcpy(&l, rec + qu->ldev_at, 4);
  int t = l >= 1 && l <= MI_MAX_LDEV ? mi_host_device(c->sys, l) : 0;
  if (t) lua_pushstring(L, mi_devtype(t)->name); else if (nil_as_false) lua_pushboolean(L, 0); else lua_pushnil(L);
  return 1;
}

/* Sets the fields of the record table at the top from rec: each item under its name (or
 * number), and state (process) or type (I/O). */
static void fill_record(lua_State *L, const rdctx *c, const uint8_t *rec) {
  const lqry *qu = c->qu;
  int fresh, e = rec_entry(c, rec, &fresh);
  for (int i = 0; i < qu->n; i++) {
    if (qu->sl[i].named) {
      lua_pushvalue(L, c->kbase + i);
      push_slot(L, c, i, rec, e, fresh);
      lua_rawset(L, -3);
    } else {
      push_slot(L, c, i, rec, e, fresh);
      lua_rawseti(L, -2, qu->sl[i].num);
    }
  }
  if (qu->domain == MI_DOM_PROCESS || qu->domain == MI_DOM_IO) {
    lua_pushvalue(L, c->kbase - 5);
    push_extra(L, c, rec, 0);
    lua_rawset(L, -3);
  }
}

/* Pushes the field of slot i of the table at t, raw; returns its type. */
static int rawfield(lua_State *L, const rdctx *c, int t, int i) {
  t = lua_absindex(L, t);
  if (c->qu->sl[i].named) { lua_pushvalue(L, c->kbase + i); return lua_rawget(L, t); }
  return lua_rawgeti(L, t, c->qu->sl[i].num);
}

/* The identity value of slot i in the record at rec (pid and start as 64 bits, else 32). */
static int64_t id_value(const slot *sl, const uint8_t *rec) {
  if (sl->size == 8) { longint_type l; memcpy(&l, rec + sl->at, 8); return mi_longint_get(&l); }
  int32_t v;
  memcpy(&v, rec + sl->at, 4);
  return v;
}

/* Whether the table at t is a record of this query of the entity of the record at rec: the
 * query's record metatable, the same pid (ldev, processor id) and, for a process, start. */
static int same_entity(lua_State *L, const rdctx *c, int t, const uint8_t *rec) {
  t = lua_absindex(L, t);
  if (!lua_getmetatable(L, t)) return 0;
  int same = lua_rawequal(L, -1, RD_MT(c));
  lua_pop(L, 1);
  int ids[2] = {c->qu->id_slot, c->qu->start_slot};
  for (int k = 0; k < 2 && same; k++) {
    if (ids[k] < 0) continue;
    int isnum = 0;
    rawfield(L, c, t, ids[k]);
    same = lua_tointegerx(L, -1, &isnum) == id_value(&c->qu->sl[ids[k]], rec) && isnum;
    lua_pop(L, 1);
  }
  return same;
}

/* Indexes the caller's old records from pos on by identity (pid, ldev, processor id) in a new
 * table at c->byid: the first mismatch of a reused read (into). */
static void index_old(lua_State *L, rdctx *c, lua_Integer pos) {
  lua_createtable(L, 0, (int)(c->oldlen >= pos ? c->oldlen - pos + 1 : 0));
  for (lua_Integer k = pos; k <= c->oldlen; k++) {
    if (lua_rawgeti(L, c->res, k) != LUA_TTABLE) { lua_pop(L, 1); continue; }
    if (rawfield(L, c, -1, c->qu->id_slot) == LUA_TNUMBER) {
      lua_pushvalue(L, -2);
      lua_rawset(L, -4);   /* byid[id] = record (the last of an id wins; its start is checked at use) */
      lua_pop(L, 1);
    } else lua_pop(L, 2);
  }
  lua_replace(L, c->byid);
  c->into = 2;
}

/* Pushes the caller's record of the entity at rec for a reused read: the old one at pos if it
 * is that entity's, else one found by identity among those not placed yet (each used once).
 * Returns 0 (nothing pushed) when there is none: a new record is made. */
static int reuse_record(lua_State *L, rdctx *c, lua_Integer pos, const uint8_t *rec) {
  if (c->qu->id_slot < 0) return 0;   /* no identity: no reuse */
  if (c->into == 1) {
    if (lua_rawgeti(L, c->res, pos) == LUA_TTABLE && same_entity(L, c, -1, rec)) return 1;
    lua_pop(L, 1);
    index_old(L, c, pos);
  }
  lua_Integer id = id_value(&c->qu->sl[c->qu->id_slot], rec);
  if (lua_rawgeti(L, c->byid, id) != LUA_TTABLE || !same_entity(L, c, -1, rec)) { lua_pop(L, 1); return 0; }
  lua_pushnil(L);
  lua_rawseti(L, c->byid, id);
  return 1;
}

/* Places the record at rec as entry pos of the result: a column value each (columns), or a
 * record table, the caller's of the same entity reused (into) or a new one. */
static void place(lua_State *L, rdctx *c, lua_Integer pos, const uint8_t *rec) {
  const lqry *qu = c->qu;
  if (c->columns) {
    int fresh, e = rec_entry(c, rec, &fresh);
    for (int i = 0; i < qu->n; i++) { push_slot(L, c, i, rec, e, fresh); lua_rawseti(L, c->cbase + i, pos); }
    if (push_extra(L, c, rec, 1)) lua_rawseti(L, c->cbase + qu->n, pos);
    return;
  }
  if (!c->into || !reuse_record(L, c, pos, rec)) {
    lua_createtable(L, 0, qu->nfields);
    lua_pushvalue(L, RD_MT(c));
    lua_setmetatable(L, -2);
  }
  fill_record(L, c, rec);
  lua_rawseti(L, c->res, pos);
}

/* Removes the keys of the table at t that no record (or columns table) of this query has:
 * a reused table keeps nothing of another query's. */
static void drop_foreign(lua_State *L, const rdctx *c, int t) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    if (lua_rawget(L, RD_MT(c) + 1) == LUA_TNIL) { lua_pushvalue(L, -2); lua_pushnil(L); lua_rawset(L, t); }
    lua_pop(L, 1);
  }
}

/* Pushes the key of column i: the item's name (or number), the extra column's key last. */
static void push_colkey(lua_State *L, const rdctx *c, int i) {
  if (i == c->qu->n) lua_pushvalue(L, c->kbase - 5);
  else if (c->qu->sl[i].named) lua_pushvalue(L, c->kbase + i);
  else lua_pushinteger(L, c->qu->sl[i].num);
}

/* Sets the result (c->res) up before a read: a record table for the global domain (the
 * caller's with into), a list, or with columns a table of columns (the caller's reused: each
 * column at cbase.., the extra column last). want: the records expected. */
static void result_open(lua_State *L, rdctx *c, size_t want) {
  const lqry *qu = c->qu;
  int nc = qu->n + (qu->nfields > qu->n);
  if (c->into) { lua_pushvalue(L, 5); c->oldlen = (lua_Integer)lua_rawlen(L, 5); }
  else if (c->columns) lua_createtable(L, 0, nc);
  else if (qu->domain == MI_DOM_GLOBAL) lua_pushnil(L);   /* (made once the GET succeeded) */
  else lua_createtable(L, (int)(want < MI_MAX_PROCESSES ? want : MI_MAX_PROCESSES), 0);
  c->res = lua_gettop(L);
  lua_pushnil(L);
  c->byid = lua_gettop(L);
  c->cbase = c->byid + 1;
  if (!c->columns) return;
  for (int i = 0; i < nc; i++) {
    push_colkey(L, c, i);
    if (lua_rawget(L, c->res) != LUA_TTABLE) {   /* (the caller's column is reused) */
      lua_pop(L, 1);
      lua_createtable(L, (int)(want < MI_MAX_PROCESSES ? want : MI_MAX_PROCESSES), 0);
      push_colkey(L, c, i);
      lua_pushvalue(L, -2);
      lua_rawset(L, c->res);
    }
  }
}

/* Ends the result after count entries: the global record made (or the caller's filled); a
 * reused list's or columns' entries past count removed. */
static void result_close(lua_State *L, rdctx *c, const uint8_t *buf, lua_Integer count) {
  const lqry *qu = c->qu;
  int nc = qu->n + (qu->nfields > qu->n);
  if (c->into && (c->columns || qu->domain == MI_DOM_GLOBAL)) drop_foreign(L, c, c->res);
  if (qu->domain == MI_DOM_GLOBAL && !c->columns) {
    if (!c->into) {
      lua_createtable(L, 0, qu->nfields);
      lua_replace(L, c->res);
    }
    lua_pushvalue(L, c->res);
    lua_pushvalue(L, RD_MT(c));
    lua_setmetatable(L, -2);
    fill_record(L, c, buf);
    lua_pop(L, 1);
    return;
  }
  if (!c->into) return;
  if (!c->columns) { for (lua_Integer k = count + 1; k <= c->oldlen; k++) { lua_pushnil(L); lua_rawseti(L, c->res, k); } return; }
  for (int i = 0; i < nc; i++) {
    lua_Integer len = (lua_Integer)lua_rawlen(L, c->cbase + i);
    for (lua_Integer k = count + 1; k <= len; k++) { lua_pushnil(L); lua_rawseti(L, c->cbase + i, k); }
  }
}

/* q:get([sel [, user_id [, quiet [, into [, columns]]]]]) -> overall, statuses, data: the GET
 * of the query's domain for sel (pid, ldev or processor id; -1 or nil = all); with quiet,
 * statuses is nil when every item's status is 0 (no table to build). data: global, one table
 * keyed by item name and number (nil on error); else an array of such tables, one per record
 * (process records also have state = "alive"|"dead", I/O records type = the device type's
 * name). into: a table filled instead of a new one (for a list, the caller's records of the
 * same entities are reused and the rest removed). columns: {[key] = {values...}} with the
 * records' keys instead (an I/O device without a type: false). The buffer holds every record
 * there is; if processes outgrow it meanwhile (-20015), the dead-process reports among the
 * records that fitted are kept and the call repeated with more room. */
static int qry_get(lua_State *L) {
  lqry *qu = checkqry(L, 1);
  lua_Integer sel = luaL_optinteger(L, 2, -1);
  int32_t uid = opt_int32(L, 3, 0);
  int quiet = lua_toboolean(L, 4);
  if (!lua_isnoneornil(L, 5)) luaL_checktype(L, 5, LUA_TTABLE);
  rdctx c = {.qu = qu, .into = !lua_isnoneornil(L, 5), .columns = lua_toboolean(L, 6)};
  lua_settop(L, 6);
  lua_getiuservalue(L, 1, 1);
  c.sys = mi_session_system(((lses *)lua_touserdata(L, -1))->s);
  lua_pop(L, 1);
  int n = qu->n;
  luaL_checkstack(L, 2 * n + 24, "too many items");
  if (qu->domain == MI_DOM_PROCESS) { lua_pushliteral(L, "state"); lua_pushliteral(L, "dead"); lua_pushliteral(L, "alive"); }
  else if (qu->domain == MI_DOM_IO) { lua_pushliteral(L, "type"); lua_pushnil(L); lua_pushnil(L); }
  else lua_settop(L, 9);
  size_t rec = (size_t)mi_query_record_size(qu->q), want = 1;
  if (qu->domain != MI_DOM_GLOBAL) want = (size_t)mi_query_room(qu->q, sel);
  int all_procs = qu->domain == MI_DOM_PROCESS && sel == -1;
  if (all_procs) want = want + 64 < MI_MAX_PROCESSES ? want + 64 : MI_MAX_PROCESSES;
  if (rec && want > INT32_MAX / rec) want = INT32_MAX / rec;
  c.ic = ic_take(L, qu, want);   /* 10, 11 */
  c.kbase = lua_gettop(L) + 1;
  lua_getiuservalue(L, 1, 2);
  for (int i = 1; i <= n; i++) lua_rawgeti(L, c.kbase, i);
  lua_remove(L, c.kbase);   /* keys table out: slots kbase .. kbase + n - 1 hold the keys */
  lua_getiuservalue(L, 1, 4);   /* kbase + n: the records' metatable */
  lua_getiuservalue(L, 1, 7);   /* kbase + n + 1: the keyset */
  int32_t stats[MI_MAX_ITEMS];
  memset(stats, 0, sizeof(int32_t) * (size_t)n);
  result_open(L, &c, want);
  lua_Integer nres = 0;
  stackbuf sb;
  int bi, rc;
  int32_t count;
  for (;;) {
    uint8_t *buf = get_buffer(L, 1, rec * want, &sb, &bi);
    rc = mi_query_run(qu->q, buf, (int32_t)(rec * want), sel, &count, stats, uid);
    if (count < 0 || (size_t)count > want) count = 0;
    if (rc == MI_E_BUFFER_PARTIAL && all_procs && want < MI_MAX_PROCESSES) {
      for (int r = 0; r < count; r++) {   /* these reports are delivered now: keep them */
        int32_t dead = 0;
        if (qu->state_at >= 0) memcpy(&dead, buf + (size_t)r * rec + qu->state_at, 4);
        if (dead == 1) place(L, &c, ++nres, buf + (size_t)r * rec);
      }
      want = want * 2 + 64 < MI_MAX_PROCESSES ? want * 2 + 64 : MI_MAX_PROCESSES;
      if (bi) lua_pop(L, 1); else put_buffer(L, 1, bi);
      continue;
    }
    if (qu->domain == MI_DOM_GLOBAL) {
      if (rc < 0) { lua_pushnil(L); lua_replace(L, c.res); }
      else if (c.columns) { place(L, &c, 1, buf); result_close(L, &c, buf, 1); }
      else result_close(L, &c, buf, 1);
    } else {
      /* all processors: the C call gives all 8, as the manual does (unconfigured ones read 0);
       * a Lua caller gets the configured ones, which the system knows */
      if (qu->domain == MI_DOM_PROCESSOR && sel == -1) {
        int cpus = mi_host_cpus(c.sys);
        if (cpus >= 1 && cpus < count) count = cpus;
      }
      for (int r = 0; r < count; r++) place(L, &c, ++nres, buf + (size_t)r * rec);
      result_close(L, &c, buf, nres);
    }
    ic_put(L, &c);
    put_buffer(L, 1, bi);
    lua_pushinteger(L, rc);
    int any = !quiet;
    for (int k = 0; k < n && !any; k++) any = stats[k] != 0;
    if (any) push_statuses(L, stats, n); else lua_pushnil(L);
    lua_pushvalue(L, c.res);
    return 3;
  }
}

/* q:close() (also __gc, __close): frees the prepared read; later use raises "query is closed". */
static int qry_close(lua_State *L) {
  lqry *qu = luaL_checkudata(L, 1, QRY_MT);
  mi_query_free(qu->q);
  qu->q = NULL;
  lua_pushnil(L);
  lua_setiuservalue(L, 1, 3);
  return 0;
}

/* core.procoff(session, pid, user_id) -> overall */
static int l_procoff(lua_State *L) {
  lses *u = checkses(L, 1);
  longint_type pid; int has = opt_pid(L, 2, &pid);
  status_type st;
  mi_procoff(u->s, &st, has ? &pid : NULL, opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  return 1;
}

/* ---- entity selection and read-active (issue 14, mi_select.h) ---- */

/* Raises "<list>[k].<field>: ..." (no position: the Lua layer adds the caller's). */
static int sel_error(lua_State *L, const char *list, int k, const char *field, const char *msg) {
  if (field) lua_pushfstring(L, "%s[%d].%s: %s", list, k, field, msg);
  else lua_pushfstring(L, "%s[%d]: %s", list, k, msg);
  return lua_error(L);
}

/* Reads an integer field value at the top of the stack; raises naming it. */
static lua_Integer sel_int(lua_State *L, const char *list, int k, const char *field, lua_Integer lo, lua_Integer hi) {
  int ok = 0;
  lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &ok) : 0;
  if (!ok) sel_error(L, list, k, field, lua_pushfstring(L, "integer expected, got %s", luaL_typename(L, -1)));
  if (v < lo || v > hi) sel_error(L, list, k, field, lua_pushfstring(L, "%I out of range %I-%I", v, lo, hi));
  return v;
}

/* Reads the string field value at the top of the stack; raises naming it. */
static const char *sel_str(lua_State *L, const char *list, int k, const char *field) {
  if (lua_type(L, -1) != LUA_TSTRING) sel_error(L, list, k, field, lua_pushfstring(L, "string expected, got %s", luaL_typename(L, -1)));
  return lua_tostring(L, -1);
}

/* Fills d from the descriptor table at index t (entry k of list `list`, an exclude if sign < 0)
 * for entities of kind (MI_SEL_PROCESS or MI_SEL_LDEV); raises naming the descriptor and field. */
static void sel_desc(lua_State *L, int t, const char *list, int k, int kind, int sign, mi_entity_desc *d) {
  static const char *const ptypes[] = {"system", "jsmain", "ci", "user", "son", NULL};
  static const char *const jskinds[] = {"none", "session", "job", NULL};
  if (lua_type(L, t) != LUA_TTABLE) sel_error(L, list, k, NULL, lua_pushfstring(L, "descriptor table expected, got %s", luaL_typename(L, t)));
  mi_sel_init(d, sign * kind);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    const char *f = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!f) sel_error(L, list, k, NULL, lua_pushfstring(L, "field names are strings (got a %s key)", luaL_typename(L, -2)));
    if (kind == MI_SEL_PROCESS && !strcmp(f, "pid")) d->pid = sel_int(L, list, k, f, 1, INT64_MAX);
    else if (kind == MI_SEL_PROCESS && (!strcmp(f, "program") || !strcmp(f, "user"))) {
      size_t len;
      const char *v = sel_str(L, list, k, f);
      len = lua_rawlen(L, -1);
      if (len >= MI_SEL_PATTERN) sel_error(L, list, k, f, lua_pushfstring(L, "pattern '%s' longer than %d characters", v, MI_SEL_PATTERN - 1));
      memcpy(*f == 'p' ? d->program : d->user, v, len + 1);
    } else if (kind == MI_SEL_PROCESS && (!strcmp(f, "session") || !strcmp(f, "job"))) {
      d->js_num = (int32_t)sel_int(L, list, k, f, 1, 16383);
      d->js_type = *f == 's' ? MI_SEL_JS_SESSION : MI_SEL_JS_JOB;
    } else if (kind == MI_SEL_PROCESS && (!strcmp(f, "type") || !strcmp(f, "js"))) {
      const char *const *names = *f == 't' ? ptypes : jskinds;
      const char *v = sel_str(L, list, k, f);
      int i = 0;
      while (names[i] && strcasecmp(names[i], v)) i++;
      if (!names[i]) sel_error(L, list, k, f, lua_pushfstring(L, "'%s' is not %s", v, *f == 't' ? "a process type (system, jsmain, ci, user, son)" : "a job/session kind (none, session, job)"));
      if (*f == 't') d->ptype = i; else d->js_type = i;
    } else if (kind == MI_SEL_LDEV && !strcmp(f, "ldev")) {
      lua_Integer lo = 0, hi = 0;
      if (lua_type(L, -1) == LUA_TSTRING) {
        const char *v = lua_tostring(L, -1);
        char tail;
        long long a, b;
        int m = sscanf(v, "%lld-%lld%c", &a, &b, &tail);
        if (m == 1 && sscanf(v, "%lld%c", &a, &tail) == 1) b = a, m = 2;
        if (m != 2) sel_error(L, list, k, f, lua_pushfstring(L, "'%s' is not an LDEV number or range 'lo-hi'", v));
        lo = a; hi = b;
      } else lo = hi = sel_int(L, list, k, f, INT32_MIN, INT32_MAX);
      if (lo < 1 || hi > MI_MAX_LDEV || lo > hi) sel_error(L, list, k, f, "not an LDEV or range within 1-999 (lo <= hi)");
      d->ldev_lo = (int32_t)lo; d->ldev_hi = (int32_t)hi;
    } else if (kind == MI_SEL_LDEV && !strcmp(f, "devtype")) {
      const char *v = sel_str(L, list, k, f);
      const mi_devtype_info *dt = mi_devtype_find(v);
      if (!dt) {   /* a plural: "disks" */
        char one[32];
        size_t n = strlen(v);
        if (n > 1 && n < sizeof one && v[n - 1] == 's') { memcpy(one, v, n - 1); one[n - 1] = 0; dt = mi_devtype_find(one); }
      }
      if (!dt) sel_error(L, list, k, f, lua_pushfstring(L, "'%s' is not a device type (disk, tape, terminal, ...)", v));
      d->devtype = dt->code;
    } else sel_error(L, list, k, NULL, lua_pushfstring(L, "unknown field '%s' of %s descriptor (%s)", f, kind == MI_SEL_PROCESS ? "a process" : "an LDEV",
                                                    kind == MI_SEL_PROCESS ? "pid, program, user, js, session, job, type" : "ldev, devtype"));
    lua_pop(L, 1);
  }
  const char *field = NULL, *why = NULL;
  if (mi_sel_check(d, 1, NULL, &field, &why)) {
    const char *lf = !strcmp(field, "ptype") ? "type" : !strcmp(field, "js_num") ? (d->js_type == MI_SEL_JS_JOB ? "job" : "session") : !strcmp(field, "js_type") ? "js" : field;
    const char *v = !strcmp(field, "program") ? d->program : !strcmp(field, "user") ? d->user : NULL;
    if (v) sel_error(L, list, k, lf, lua_pushfstring(L, "malformed pattern '%s' (%s)", v, why));
    sel_error(L, list, k, lf, why);
  }
}

/* Reads the include (index inc) and exclude (index exc) lists (nil or arrays of descriptor
 * tables) into d; returns the count. */
static int sel_list(lua_State *L, int inc, int exc, int kind, mi_entity_desc *d) {
  int n = 0;
  for (int pass = 0; pass < 2; pass++) {
    int i = pass ? exc : inc;
    const char *name = pass ? "exclude" : "include";
    if (lua_isnoneornil(L, i)) continue;
    if (lua_type(L, i) != LUA_TTABLE) { lua_pushfstring(L, "%s: a list of descriptor tables expected, got %s", name, luaL_typename(L, i)); lua_error(L); }
    size_t len = lua_rawlen(L, i);
    for (size_t k = 1; k <= len; k++) {
      if (n == MI_SEL_MAX) { lua_pushfstring(L, "%s: more than %d descriptors", name, MI_SEL_MAX); lua_error(L); }
      lua_rawgeti(L, i, (lua_Integer)k);
      sel_desc(L, lua_gettop(L), name, (int)k, kind, pass ? -1 : 1, &d[n++]);
      lua_pop(L, 1);
    }
  }
  return n;
}

/* core.proconsel / core.ioonsel(session, items, mapping, include, exclude [, user_id])
 * -> overall, statuses, mapping */
static int on_sel(lua_State *L, int kind) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = opt_int32(L, 3, 1), uid = opt_int32(L, 6, 0);
  mi_entity_desc d[MI_SEL_MAX];
  int nd = sel_list(L, 4, 5, kind, d);
  status_type st;
  if (kind == MI_SEL_PROCESS) mi_proconsel(u->s, &st, nums, stats, &map, d, nd, uid);
  else mi_ioonsel(u->s, &st, nums, stats, &map, d, nd, uid);
  return push_on(L, st, stats, n, map);
}
/* core.proconsel(session, items, mapping, include, exclude [, user_id]) -> overall, statuses, mapping (MIPROCONSEL). */
static int l_proconsel(lua_State *L) { return on_sel(L, MI_SEL_PROCESS); }
/* core.ioonsel(session, items, mapping, include, exclude [, user_id]) -> overall, statuses, mapping (MIIOONSEL). */
static int l_ioonsel(lua_State *L) { return on_sel(L, MI_SEL_LDEV); }

/* core.readactive(session, "process"|"ldev", items, mapping, "exact"|"list"|"changed", include,
 * exclude, max, context [, user_id]) -> overall, statuses, records (arrays of values in item
 * order), context (nil when the iteration is complete), flags (true = changed) */
static int l_readactive(lua_State *L) {
  static const char *const kinds[] = {"process", "ldev", NULL}, *const modes[] = {"exact", "list", "changed", NULL};
  lses *u = checkses(L, 1);
  int kind = luaL_checkoption(L, 2, NULL, kinds) == 0 ? MI_SEL_PROCESS : MI_SEL_LDEV;
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  slot sl[MI_MAX_ITEMS];
  int n = get_items(L, 3, nums);
  int32_t map = opt_int32(L, 4, 1);
  int mode = luaL_checkoption(L, 5, "list", modes);
  mi_entity_desc d[MI_SEL_MAX];
  int nd = sel_list(L, 6, 7, kind, d);
  lua_Integer max = luaL_optinteger(L, 8, kind == MI_SEL_PROCESS ? MI_MAX_PROCESSES : MI_MAX_LDEV);
  luaL_argcheck(L, max >= 1 && max <= MI_MAX_PROCESSES, 8, "max must be in 1..2700");
  longint_type ctx;
  mi_longint_set(&ctx, luaL_optinteger(L, 9, 0));
  int32_t uid = opt_int32(L, 10, 0);
  size_t rec = plan_slots(u->sys ? u->sys->sys : NULL, nums, n, kind == MI_SEL_PROCESS ? MI_DOM_PROCESS : MI_DOM_IO, map, sl);
  size_t want = (size_t)max;
  if (rec && want > INT32_MAX / rec) want = INT32_MAX / rec;
  stackbuf sb;
  int bi;
  uint8_t *buf = get_buffer(L, 1, rec * want, &sb, &bi);
  int32_t *flags = lua_newuserdatauv(L, sizeof(int32_t) * want, 0), count = 0;
  status_type st;
  memset(stats, 0, sizeof(int32_t) * (size_t)n);
  mi_readactive(u->s, &st, nums, buf, stats, (int32_t)(rec * want), map, kind, mode, d, nd, &count, flags, &ctx, uid);
  if (count < 0 || (size_t)count > want) count = 0;
  lua_pushinteger(L, mi_status_info(st));
  push_statuses(L, stats, n);
  lua_createtable(L, count, 0);
  const uint8_t *p = buf;
  for (int r = 0; r < count; r++) { p = push_record(L, sl, n, p); lua_rawseti(L, -2, r + 1); }
  if (mi_longint_get(&ctx) != 0 && count) lua_pushinteger(L, mi_longint_get(&ctx)); else lua_pushnil(L);
  lua_createtable(L, count, 0);
  for (int r = 0; r < count; r++) { lua_pushboolean(L, flags[r]); lua_rawseti(L, -2, r + 1); }
  if (bi) { lua_pushvalue(L, bi); lua_setiuservalue(L, 1, BUF_UV(L, 1)); }
  return 5;
}

/* core.ioon(session, items, mapping, ldev, user_id) -> overall, statuses, mapping */
static int l_ioon(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = opt_int32(L, 3, 1), ldev = opt_int32(L, 4, -1);
  status_type st;
  mi_ioon(u->s, &st, nums, stats, &map, &ldev, opt_int32(L, 5, 0));
  return push_on(L, st, stats, n, map);
}

/* core.iooff(session, ldev, user_id) -> overall */
static int l_iooff(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t ldev = opt_int32(L, 2, -1);
  status_type st;
  mi_iooff(u->s, &st, &ldev, opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  return 1;
}

/* Pushes a configuration value decoded from p. */
static void push_config(lua_State *L, const mi_config_info *c, const uint8_t *p) {
  int32_t v;
  switch (c->type) {
  case MI_CT_I32: memcpy(&v, p, 4); lua_pushinteger(L, v); break;
  case MI_CT_BOOL: lua_pushboolean(L, p[0] != 0); break;
  case MI_CT_CA8: lua_pushlstring(L, (const char *)p, 8); break;
  default: {
    int bits = c->type == MI_CT_BA96 ? 96 : 64;
    lua_newtable(L);
    for (int b = 0; b < bits; b++)
      if (p[b >> 3] & (0x80 >> (b & 7))) { lua_pushboolean(L, 1); lua_rawseti(L, -2, b); }
  }
  }
}

/* Encodes the Lua value at i for configuration item c into p; raises on a wrong type. */
static void to_config(lua_State *L, int i, const mi_config_info *c, uint8_t *p, const char *what) {
  memset(p, 0, 12);
  switch (c->type) {
  case MI_CT_I32: {
    int ok; lua_Integer v = lua_tointegerx(L, i, &ok);
    if (!ok || v < INT32_MIN || v > INT32_MAX) luaL_error(L, "%s: item %d (%s) needs a 32-bit integer", what, (int)c->item, c->name);
    int32_t w = (int32_t)v; memcpy(p, &w, 4);
    break;
  }
  case MI_CT_BOOL: p[0] = (uint8_t)lua_toboolean(L, i); break;
  case MI_CT_CA8: {
    size_t n; const char *s = lua_tolstring(L, i, &n);
    if (!s) luaL_error(L, "%s: item %d (%s) needs a string", what, (int)c->item, c->name);
    memset(p, ' ', 8); memcpy(p, s, n < 8 ? n : 8);
    break;
  }
  default: {
    int bits = c->type == MI_CT_BA96 ? 96 : 64;
    if (!lua_istable(L, i)) luaL_error(L, "%s: item %d (%s) needs a table of bit numbers", what, (int)c->item, c->name);
    for (int b = 0; b < bits; b++) {
      lua_rawgeti(L, i, b);
      if (lua_toboolean(L, -1)) p[b >> 3] |= (uint8_t)(0x80 >> (b & 7));
      lua_pop(L, 1);
    }
  }
  }
}

/* core.scget(session, items, user_id) -> overall, statuses, values */
static int l_scget(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  uint8_t vals[MI_MAX_ITEMS][16];
  void *ptrs[MI_MAX_ITEMS];
  for (int k = 0; k < n; k++) ptrs[k] = vals[k];
  status_type st;
  mi_scget(u->s, &st, nums, ptrs, stats, opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  push_statuses(L, stats, n);
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    const mi_config_info *c = mi_config_lookup(nums[k]);
    if (c && stats[k] == 0 && (st.all == 0 || mi_status_info(st) > 0)) push_config(L, c, vals[k]); else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, k + 1);
  }
  return 3;
}

/* core.scput(session, items, values, user_id [, ver_items, ver_values]) -> overall, statuses, ver_statuses */
static int l_scput(lua_State *L) {
  lses *u = checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS], vnums[MI_MAX_ITEMS], vstats[MI_MAX_ITEMS];
  uint8_t vals[MI_MAX_ITEMS][16], vvals[MI_MAX_ITEMS][16];
  void *ptrs[MI_MAX_ITEMS], *vptrs[MI_MAX_ITEMS];
  int n = get_items(L, 2, nums);
  luaL_checktype(L, 3, LUA_TTABLE);
  for (int k = 0; k < n; k++) {
    const mi_config_info *c = mi_config_lookup(nums[k]);
    ptrs[k] = vals[k];
    memset(vals[k], 0, sizeof vals[k]);
    lua_rawgeti(L, 3, k + 1);
    if (c) to_config(L, lua_gettop(L), c, vals[k], "value");
    lua_pop(L, 1);
  }
  int nv = 0, ver = !lua_isnoneornil(L, 5);
  if (ver) {
    nv = get_items(L, 5, vnums);
    luaL_checktype(L, 6, LUA_TTABLE);
    for (int k = 0; k < nv; k++) {
      const mi_config_info *c = mi_config_lookup(vnums[k]);
      vptrs[k] = vvals[k];
      memset(vvals[k], 0, sizeof vvals[k]);
      lua_rawgeti(L, 6, k + 1);
      if (c) to_config(L, lua_gettop(L), c, vvals[k], "expected value");
      lua_pop(L, 1);
    }
  }
  memset(stats, 0, sizeof(int32_t) * (size_t)n);   /* a call failing before it checks the items writes none */
  if (ver) memset(vstats, 0, sizeof(int32_t) * (size_t)nv);
  status_type st;
  mi_scput(u->s, &st, nums, ptrs, stats, opt_int32(L, 4, 0), ver ? vnums : NULL, ver ? vptrs : NULL, ver ? vstats : NULL);
  lua_pushinteger(L, mi_status_info(st));
  push_statuses(L, stats, n);
  if (ver) push_statuses(L, vstats, nv); else lua_pushnil(L);
  return 3;
}

/* core.time(session, {ticks=|micro=}, user_id) -> overall, {hour,min,sec,tenths,year,month,day,month_name,weekday} */
static int l_time(lua_State *L) {
  lses *u = checkses(L, 1);
  longint_type t, m; int ht = 0, hm = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer v;
    if ((ht = opt_field_int(L, 2, "ticks", LUA_MININTEGER, LUA_MAXINTEGER, &v))) mi_longint_set(&t, v);
    if ((hm = opt_field_int(L, 2, "micro", LUA_MININTEGER, LUA_MAXINTEGER, &v))) mi_longint_set(&m, v);
  }
  clock_type c; date_type d; datestr_type ds;
  status_type st;
  mi_time(u->s, &st, ht ? &t : NULL, hm ? &m : NULL, &c, &d, &ds, opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  if (st.all != 0) { lua_pushnil(L); return 2; }
  lua_createtable(L, 0, 9);
  lua_pushinteger(L, c.hour); lua_setfield(L, -2, "hour");
  lua_pushinteger(L, c.min); lua_setfield(L, -2, "min");
  lua_pushinteger(L, c.sec); lua_setfield(L, -2, "sec");
  lua_pushinteger(L, c.ten_sec); lua_setfield(L, -2, "tenths");
  lua_pushinteger(L, d.year); lua_setfield(L, -2, "year");
  lua_pushinteger(L, d.month); lua_setfield(L, -2, "month");
  lua_pushinteger(L, d.day_of_month); lua_setfield(L, -2, "day");
  lua_pushlstring(L, ds.month_str, 3); lua_setfield(L, -2, "month_name");
  lua_pushlstring(L, ds.day_of_week, 3); lua_setfield(L, -2, "weekday");
  return 2;
}

/* ---- catalog ---- */

/* Pushes an item description table. */
static void push_item(lua_State *L, const mi_item_info *it) {
  lua_createtable(L, 0, 11);
  lua_pushinteger(L, it->item); lua_setfield(L, -2, "item");
  lua_pushstring(L, it->name); lua_setfield(L, -2, "name");
  lua_pushstring(L, mi_domain_name(it->domain)); lua_setfield(L, -2, "domain");
  lua_pushstring(L, mi_kind_name(it->kind)); lua_setfield(L, -2, "kind");
  lua_pushstring(L, mi_unit_name(it->unit)); lua_setfield(L, -2, "unit");
  lua_pushstring(L, mi_type_name(it->type)); lua_setfield(L, -2, "type");
  lua_pushstring(L, mi_instrumented_name(it->instrumented)); lua_setfield(L, -2, "instrumented");
  lua_pushstring(L, mi_source_name(it->source)); lua_setfield(L, -2, "source");
  lua_pushstring(L, mi_reading_name(it->reading)); lua_setfield(L, -2, "reading");
  lua_pushinteger(L, mi_item_size(it, 2)); lua_setfield(L, -2, "size");
  lua_pushstring(L, it->description); lua_setfield(L, -2, "description");
}

/* core.items() -> array of every catalog item description. */
static int l_items(lua_State *L) {
  int n = mi_item_count();
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) { push_item(L, mi_item_at(i)); lua_rawseti(L, -2, i + 1); }
  return 1;
}

/* core.objcl_names(mapping) -> array of class names (index 1 = class 0). */
static int l_objcl_names(lua_State *L) {
  lua_Integer m = luaL_checkinteger(L, 1);
  luaL_argcheck(L, m >= 0 && m <= 2, 1, "mapping must be 0, 1 or 2");
  int n = mi_objcl_len((int)m);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) { lua_pushstring(L, mi_objcl_name((int)m, i)); lua_rawseti(L, -2, i + 1); }
  return 1;
}

/* core.semcl_names() -> array of the 256 semaphore class names. */
static int l_semcl_names(lua_State *L) {
  lua_createtable(L, 256, 0);
  for (int i = 0; i < 256; i++) { lua_pushstring(L, mi_semcl_name(i)); lua_rawseti(L, -2, i + 1); }
  return 1;
}

/* core.config_items() -> array of {item,name,type,put,min,max,error,label,description}. */
static int l_config_items(lua_State *L) {
  static const char *const types[] = {"I32", "B", "BA96", "BA64", "CA8"};
  lua_createtable(L, 46, 0);
  for (int i = 3001; i <= 3046; i++) {
    const mi_config_info *c = mi_config_lookup(i);
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, c->item); lua_setfield(L, -2, "item");
    lua_pushstring(L, c->name); lua_setfield(L, -2, "name");
    lua_pushstring(L, types[c->type]); lua_setfield(L, -2, "type");
    lua_pushboolean(L, c->put); lua_setfield(L, -2, "put");
    if (c->has_range) {
      lua_pushinteger(L, c->min); lua_setfield(L, -2, "min");
      lua_pushinteger(L, c->max); lua_setfield(L, -2, "max");
      lua_pushinteger(L, c->error); lua_setfield(L, -2, "error");
    }
    lua_pushstring(L, c->label); lua_setfield(L, -2, "label");
    lua_pushstring(L, c->description); lua_setfield(L, -2, "description");
    lua_rawseti(L, -2, i - 3000);
  }
  return 1;
}

/* core.statuses() -> array of {code,name,message}. */
static int l_statuses(lua_State *L) {
  int code; const char *name, *msg;
  lua_newtable(L);
  for (int i = 0; mi_status_at(i, &code, &name, &msg); i++) {
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, code); lua_setfield(L, -2, "code");
    lua_pushstring(L, name); lua_setfield(L, -2, "name");
    lua_pushstring(L, msg); lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* core.devtypes() -> array of {code,selector,name,label}. */
static int l_devtypes(lua_State *L) {
  int n = mi_devtype_count();
  lua_createtable(L, n, 0);
  for (int i = 1; i <= n; i++) {
    const mi_devtype_info *d = mi_devtype(i);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, d->code); lua_setfield(L, -2, "code");
    lua_pushinteger(L, d->selector); lua_setfield(L, -2, "selector");
    lua_pushstring(L, d->name); lua_setfield(L, -2, "name");
    lua_pushstring(L, d->label); lua_setfield(L, -2, "label");
    lua_rawseti(L, -2, i);
  }
  return 1;
}

/* core.workloads() -> array of built-in workload names. */
static int l_workloads(lua_State *L) {
  lua_newtable(L);
  for (int i = 0; mi_workload_name(i); i++) { lua_pushstring(L, mi_workload_name(i)); lua_rawseti(L, -2, i + 1); }
  return 1;
}

/* core.fold(from, to, class) -> folded class or nil. */
static int l_fold(lua_State *L) {
  lua_Integer from = luaL_checkinteger(L, 1), to = luaL_checkinteger(L, 2), cls = luaL_checkinteger(L, 3);
  int r = from >= 0 && from <= 2 && to >= 0 && to <= 2 && cls >= 0 && cls <= INT_MAX
            ? mi_objcl_fold((int)from, (int)to, (int)cls) : -1;
  if (r < 0) lua_pushnil(L); else lua_pushinteger(L, r);
  return 1;
}

/* ---- user-defined counters (mi_userdef.h) ---- */

#define UDEF_MT "mi.userdef"
/* A counter userdata: its system userdata (user value 1 keeps it alive) and handle. */
typedef struct ludef { lsys *ls; mi_udef h; int per_process; } ludef;

/* Pushes the catalog entry of a user-defined counter: an item table plus userdef, udef_kind,
 * elements, udef_unit and help. */
static void push_udef_item(lua_State *L, const mi_udef_info *u) {
  push_item(L, &u->item);
  lua_pushboolean(L, 1); lua_setfield(L, -2, "userdef");
  lua_pushstring(L, mi_udef_kind_name(u->kind)); lua_setfield(L, -2, "udef_kind");
  lua_pushinteger(L, u->elements); lua_setfield(L, -2, "elements");
  lua_pushstring(L, u->unit); lua_setfield(L, -2, "udef_unit");
  lua_pushstring(L, u->help); lua_setfield(L, -2, "help");
  lua_pushinteger(L, u->owner_pid); lua_setfield(L, -2, "owner_pid");
}

/* sys:udef_count() -> the number of user-defined counters of the system. */
static int sys_udef_count(lua_State *L) { lua_pushinteger(L, mi_udef_count(checksys(L, 1))); return 1; }

/* sys:udef_items([from]) -> the catalog entries of the system's user-defined counters from index from (0-based). */
static int sys_udef_items(lua_State *L) {
  mi_system *sys = checksys(L, 1);
  lua_Integer f = luaL_optinteger(L, 2, 0);
  int from = f < 0 ? 0 : f > MI_UDEF_MAX ? MI_UDEF_MAX : (int)f, n = mi_udef_count(sys);
  lua_createtable(L, n > from ? n - from : 0, 0);
  for (int i = from; i < n; i++) { push_udef_item(L, mi_udef_at(sys, i)); lua_rawseti(L, -2, i - from + 1); }
  return 1;
}

/* Pushes a counter userdata for handle h of the system userdata at index 1. */
static void push_udef(lua_State *L, mi_udef h) {
  ludef *c = lua_newuserdatauv(L, sizeof *c, 1);
  c->ls = luaL_checkudata(L, 1, SYS_MT);
  c->h = h;
  c->per_process = h.c.id >> MI_HOST_INDEX_BITS == MI_DOM_PROCESS;
  luaL_setmetatable(L, UDEF_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
}

/* sys:udef_install{name=, kind=, unit=, help=, per_process=, elements=} -> counter, or nil and the status code. */
static int sys_udef_install(lua_State *L) {
  mi_system *sys = checksys(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  mi_udef_desc d = {0};
  lua_getfield(L, 2, "name"); d.name = lua_tostring(L, -1);
  lua_getfield(L, 2, "kind");
  lua_Integer k = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : mi_udef_kind_find(lua_tostring(L, -1));
  d.kind = k < 0 || k > MI_UDEF_QBUSY ? 0 : (int)k;
  lua_getfield(L, 2, "unit"); d.unit = lua_tostring(L, -1);
  lua_getfield(L, 2, "help"); d.help = lua_tostring(L, -1);
  lua_getfield(L, 2, "per_process"); d.per_process = lua_toboolean(L, -1);
  lua_getfield(L, 2, "elements");
  lua_Integer e = luaL_optinteger(L, -1, 1);
  d.elements = e < -1 || e > INT_MAX ? -1 : (int)e;
  mi_udef h;
  int rc = mi_udef_install(sys, &d, &h);
  lua_settop(L, 2);
  if (rc) { lua_pushnil(L); lua_pushinteger(L, rc); return 2; }
  push_udef(L, h);
  return 1;
}

/* sys:udef(name) -> the counter userdata of an installed counter (to write it), or nil. */
static int sys_udef(lua_State *L) {
  const mi_udef_info *u = mi_udef_find(checksys(L, 1), luaL_checkstring(L, 2));
  if (!u) return 0;
  push_udef(L, u->handle);
  return 1;
}

/* The counter at 1 and its entity: 0, or the slot of the pid at index i (per-process counters). */
static ludef *checkudef(lua_State *L, int i, mi_system **sys, int *entity) {
  ludef *c = luaL_checkudata(L, 1, UDEF_MT);
  if (!c->ls->sys) luaL_error(L, "system is closed");
  *sys = c->ls->sys;
  *entity = 0;
  if (c->per_process) {
    lua_Integer pid = luaL_checkinteger(L, i);
    *entity = mi_host_proc_slot(*sys, pid);
    if (*entity < 0) luaL_error(L, "no process with pid %d", (int)pid);
  }
  return c;
}

/* Adds delta to element elem of counter h for entity e as mi_udef_add_at does, wrapping at
 * 64 bits rather than overflowing (a script may add anything). */
static void udef_bump(mi_system *sys, mi_udef h, int e, int elem, lua_Integer delta) {
  int64_t *p = mi_host_cell_(sys, h.c, e, 1);
  if (p && elem >= 0 && elem < h.elements && (elem == 0 || h.kind == MI_UDEF_ACCUM))
    __atomic_store_n(p + elem, (int64_t)((uint64_t)p[elem] + (uint64_t)delta), __ATOMIC_RELAXED);
}

/* c:add([delta = 1 [, pid]]) adds to an accum/faccum counter (busy/queue: ticks of time), in a write section. */
static int udef_add(lua_State *L) {
  mi_system *sys; int e;
  ludef *c = checkudef(L, 3, &sys, &e);
  lua_Integer delta = luaL_optinteger(L, 2, 1);
  mi_host_begin(sys);
  udef_bump(sys, c->h, e, 0, delta);
  mi_host_publish(sys);
  return 0;
}

/* c:add_at(element (1-based), delta [, pid]) adds to one element of an accum array. */
static int udef_add_at(lua_State *L) {
  mi_system *sys; int e;
  ludef *c = checkudef(L, 4, &sys, &e);
  lua_Integer el = luaL_checkinteger(L, 2), delta = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, el >= 1 && el <= c->h.elements, 2, "element out of range");
  mi_host_begin(sys);
  udef_bump(sys, c->h, e, (int)el - 1, delta);
  mi_host_publish(sys);
  return 0;
}

/* c:set(level [, pid]) sets a busy/queue/qbusy level now (or an accum's value). */
static int udef_set(lua_State *L) {
  mi_system *sys; int e;
  ludef *c = checkudef(L, 3, &sys, &e);
  lua_Integer v = luaL_checkinteger(L, 2);
  mi_host_begin(sys);
  mi_udef_set(sys, c->h, e, v);
  mi_host_publish(sys);
  return 0;
}

/* c:value([pid]) -> the counter's 64-bit value now (busy/queue in ticks; 0 while nobody enabled it). */
static int udef_value(lua_State *L) {
  mi_system *sys; int e;
  ludef *c = checkudef(L, 2, &sys, &e);
  lua_pushinteger(L, mi_udef_value(sys, c->h, e));
  return 1;
}

/* c.name, c.item, c.kind, c.elements, c.per_process, or a method. */
static int udef_index(lua_State *L) {
  ludef *c = luaL_checkudata(L, 1, UDEF_MT);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "item") == 0) lua_pushinteger(L, c->h.item);
  else if (strcmp(k, "kind") == 0) lua_pushstring(L, mi_udef_kind_name(c->h.kind));
  else if (strcmp(k, "elements") == 0) lua_pushinteger(L, c->h.elements);
  else if (strcmp(k, "per_process") == 0) lua_pushboolean(L, c->per_process);
  else if (strcmp(k, "name") == 0) {
    const mi_udef_info *u = c->ls->sys ? mi_udef_at(c->ls->sys, c->h.item - MI_UDEF_FIRST) : NULL;
    if (u) lua_pushstring(L, u->item.name); else lua_pushnil(L);
  } else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

/* Registers the counter metatable. */
static void udef_mt(lua_State *L) {
  static const luaL_Reg m[] = {{"add", udef_add}, {"add_at", udef_add_at}, {"set", udef_set}, {"value", udef_value}, {NULL, NULL}};
  luaL_newmetatable(L, UDEF_MT);
  lua_newtable(L); luaL_setfuncs(L, m, 0); lua_setfield(L, -2, "methods");
  lua_pushcfunction(L, udef_index); lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

/* ---- the exporter (#15, mi_export.h) ---- */
/* An exporter userdata: the exporter (NULL once closed) on a session userdata (user value 1). */
typedef struct lexp { mi_export *x; lses *ses; } lexp;

/* Returns the open exporter at i; raises if it, its session or its system is closed. */
static lexp *checkexp(lua_State *L, int i) {
  lexp *e = luaL_checkudata(L, i, EXP_MT);
  if (!e->x) luaL_error(L, "exporter is closed");
  if (!e->ses->s) {
    mi_export_forget_session(e->x);
    luaL_error(L, e->ses->sys_closed ? "system is closed" : "session is closed");
  }
  return e;
}

/* core.exporter(session, {pids=, mapping=, processes=, io=}) -> an exporter on that (fresh) session. */
static int l_exporter(lua_State *L) {
  lses *u = checkses(L, 1);
  mi_export_options o = {0};
  char err[256];
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    if (opt_field(L, 2, "pids", LUA_TNUMBER) != LUA_TNIL) {
      lua_Integer n = lua_tointeger(L, -1);
      luaL_argcheck(L, lua_isinteger(L, -1) && n >= 0 && n <= 1000000, 2, "field 'pids': a count 0-1000000 expected");
      o.pids = (int)n;
    }
    if (opt_field(L, 2, "mapping", LUA_TSTRING) != LUA_TNIL) o.mapping = lua_tostring(L, -1);
    if (opt_field(L, 2, "processes", LUA_TBOOLEAN) != LUA_TNIL) o.no_processes = !lua_toboolean(L, -1);
    if (opt_field(L, 2, "io", LUA_TBOOLEAN) != LUA_TNIL) o.no_io = !lua_toboolean(L, -1);
    if (opt_field(L, 2, "user_id", LUA_TNUMBER) != LUA_TNIL) o.user_id = (int32_t)luaL_checkinteger(L, -1);
  }
  lexp *e = lua_newuserdatauv(L, sizeof *e, 1);
  memset(e, 0, sizeof *e);
  luaL_setmetatable(L, EXP_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);   /* keeps the session userdata alive */
  e->ses = u;
  e->x = mi_export_new_on(u->s, &o, err, sizeof err);
  if (!e->x) return luaL_error(L, "cannot export: %s", err);
  return 1;
}

/* exporter:format(["openmetrics"|"text"]) -> the exposition of a fresh read of the system. */
static int exp_format(lua_State *L) {
  static const char *const fmts[] = {"text", "openmetrics", NULL};
  lexp *e = checkexp(L, 1);
  int f = luaL_checkoption(L, 2, "openmetrics", fmts);
  int rc = mi_export_scrape(e->x);
  if (rc < 0) return luaL_error(L, "cannot read the system: %d %s", rc, mi_status_message(rc));
  size_t n;
  const char *t = mi_export_format(e->x, f == 1 ? MI_EXPORT_OPENMETRICS : MI_EXPORT_TEXT, &n);
  if (!t) return luaL_error(L, "out of memory");
  lua_pushlstring(L, t, n);
  return 1;
}

/* __gc/__close/close of an exporter: its counters go off (its session stays), once. */
static int exp_close(lua_State *L) {
  lexp *e = luaL_checkudata(L, 1, EXP_MT);
  if (e->x) {
    if (!e->ses || !e->ses->s) mi_export_forget_session(e->x);
    mi_export_free(e->x);
    e->x = NULL;
  }
  return 0;
}
/* ---- recordings (#13): core.record, core.rec_open, the replay's clock ---- */
#define RCD_MT "mi.recorder"
#define RDR_MT "mi.recording"
/* A recorder userdata: the recorder (NULL once closed), the system userdata it records (kept
 * alive by user value 1, linked while open: closing the system closes the recorder first, its end
 * mark written), whether the system closed it, and what that close returned. */
typedef struct lrcd {
  mi_recorder *r;
  lsys *sys;
  struct lrcd *prev, *next;
  int sys_closed, close_rc;
} lrcd;
typedef struct lrdr { mi_rec_reader *r; } lrdr;

/* Closes a recorder userdata's recorder (end mark, index) and unlinks it from its system, once. */
static void rcd_release(lrcd *c, int by_system) {
  if (c->r) c->close_rc = mi_recorder_close(c->r);
  c->r = NULL;
  if (c->sys) {
    if (c->prev) c->prev->next = c->next; else c->sys->recorders = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
    c->sys = NULL;
    if (by_system) c->sys_closed = 1;
  }
}

/* Returns the open recorder at i (raises if it or its system is closed). */
static mi_recorder *checkrcd(lua_State *L, int i) {
  lrcd *u = luaL_checkudata(L, i, RCD_MT);
  if (!u->r) luaL_argerror(L, i, u->sys_closed ? "system is closed" : "recorder is closed");
  return u->r;
}
/* Returns the open reader at i (raises if closed). */
static mi_rec_reader *checkrdr(lua_State *L, int i) {
  lrdr *u = luaL_checkudata(L, i, RDR_MT);
  if (!u->r) luaL_argerror(L, i, "recording is closed");
  return u->r;
}

/* core.record(system, path, items, {fsync = "none"|"interval"|"every", fsync_ms, key_every,
 * index_every, mapping, machine, version}) -> a recorder (the first sample is written); raises. */
static int l_record(lua_State *L) {
  mi_system *sys = checksys(L, 1);
  lsys *y = lua_touserdata(L, 1);
  const char *path = luaL_checkstring(L, 2);
  int32_t nums[MI_MAX_ITEMS];
  int n = get_items(L, 3, nums);
  mi_rec_options o = {0};
  if (lua_istable(L, 4)) {
    lua_Integer v;
    if (opt_field_int(L, 4, "fsync_ms", 1, INT32_MAX, &v)) o.fsync_ms = (int)v;
    if (opt_field_int(L, 4, "key_every", 1, 1000000, &v)) o.key_every = (int)v;
    if (opt_field_int(L, 4, "index_every", 1, 100000, &v)) o.index_every = (int)v;
    if (opt_field_int(L, 4, "mapping", 0, 2, &v)) o.map1 = (int)v + 1;
    if (opt_field(L, 4, "fsync", LUA_TSTRING) == LUA_TSTRING) {
      const char *f = lua_tostring(L, -1);
      if (strcmp(f, "none") == 0) o.fsync = MI_REC_FSYNC_NONE;
      else if (strcmp(f, "every") == 0) o.fsync = MI_REC_FSYNC_EVERY;
      else if (strcmp(f, "interval") != 0) return luaL_error(L, "fsync must be none, interval or every, got '%s'", f);
    }
    lua_pop(L, 1);
    if (opt_field(L, 4, "machine", LUA_TSTRING) == LUA_TSTRING) o.machine = lua_tostring(L, -1);
    lua_pop(L, 1);   /* the strings stay alive in the table while we use them */
    if (opt_field(L, 4, "version", LUA_TSTRING) == LUA_TSTRING) o.mish_version = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lrcd *u = lua_newuserdatauv(L, sizeof *u, 1);
  memset(u, 0, sizeof *u);           /* closed until the recorder exists */
  luaL_setmetatable(L, RCD_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);       /* keeps the system userdata alive while the recorder lives */
  char err[512];
  u->r = mi_recorder_open(sys, path, nums, n, &o, err, sizeof err);
  if (!u->r) return luaL_error(L, "%s", err);
  u->sys = y;
  u->next = y->recorders;
  if (y->recorders) y->recorders->prev = u;
  y->recorders = u;
  return 1;
}
/* recorder:sample() -> true, or nil and the error (a write failed; "system is closed"). */
static int rcd_sample(lua_State *L) {
  lrcd *u = luaL_checkudata(L, 1, RCD_MT);
  if (!u->r && u->sys_closed) { luaL_pushfail(L); lua_pushliteral(L, "system is closed"); return 2; }
  if (mi_recorder_sample(checkrcd(L, 1)) == 0) { lua_pushboolean(L, 1); return 1; }
  luaL_pushfail(L);
  lua_pushstring(L, strerror(errno));
  return 2;
}
/* recorder:mark(text) -> true, or nil (and "system is closed"): a gap mark with a note. */
static int rcd_mark(lua_State *L) {
  lrcd *u = luaL_checkudata(L, 1, RCD_MT);
  if (!u->r && u->sys_closed) { luaL_pushfail(L); lua_pushliteral(L, "system is closed"); return 2; }
  lua_pushboolean(L, mi_recorder_mark(checkrcd(L, 1), luaL_optstring(L, 2, "")) == 0);
  return 1;
}
/* recorder:stats() -> {samples, records, bytes, raw_bytes, last_bytes, last_raw_bytes, cells}. */
static int rcd_stats(lua_State *L) {
  mi_rec_stats st;
  mi_recorder_stats(checkrcd(L, 1), &st);
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, st.samples); lua_setfield(L, -2, "samples");
  lua_pushinteger(L, st.records); lua_setfield(L, -2, "records");
  lua_pushinteger(L, st.bytes); lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, st.raw_bytes); lua_setfield(L, -2, "raw_bytes");
  lua_pushinteger(L, st.last_bytes); lua_setfield(L, -2, "last_bytes");
  lua_pushinteger(L, st.last_raw_bytes); lua_setfield(L, -2, "last_raw_bytes");
  lua_pushinteger(L, st.cells); lua_setfield(L, -2, "cells");
  return 1;
}
/* recorder:close() (also __gc/__close): writes the end mark and index; idempotent. true if the
 * recording ended well (closed with its system: what that close did). */
static int rcd_close(lua_State *L) {
  lrcd *u = luaL_checkudata(L, 1, RCD_MT);
  rcd_release(u, 0);
  lua_pushboolean(L, u->close_rc == 0);
  return 1;
}

/* core.rec_open(path) -> a recording to read; raises with the reason. */
static int l_rec_open(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lrdr *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->r = NULL;
  luaL_setmetatable(L, RDR_MT);
  char err[512];
  u->r = mi_rec_open(path, err, sizeof err);
  if (!u->r) return luaL_error(L, "%s", err);
  return 1;
}
static const char *const REV_NAMES[] = {"end", "segment", "entity", "config", "mark", "sample", "damage", "torn"};
static const char *const MARK_NAMES[] = {"?", "restart", "gap", "torn", "end"};
/* recording:next() -> the next event {type=, time=, offset=, bytes=, seq=, key=, skipped=, back= (the clock went
 * back), mark=, a=, b=, text=}, nil at the end. */
static int rdr_next(lua_State *L) {
  mi_rec_event ev;
  if (mi_rec_next(checkrdr(L, 1), &ev) == MI_REV_END) { lua_pushnil(L); return 1; }
  lua_createtable(L, 0, 8);
  lua_pushstring(L, REV_NAMES[ev.type]); lua_setfield(L, -2, "type");
  lua_pushinteger(L, ev.time); lua_setfield(L, -2, "time");
  lua_pushinteger(L, ev.offset); lua_setfield(L, -2, "offset");
  lua_pushinteger(L, ev.bytes); lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, (lua_Integer)ev.seq); lua_setfield(L, -2, "seq");
  if (ev.type == MI_REV_SAMPLE) {
    lua_pushboolean(L, ev.key); lua_setfield(L, -2, "key");
    lua_pushboolean(L, ev.skipped); lua_setfield(L, -2, "skipped");
    lua_pushboolean(L, ev.back); lua_setfield(L, -2, "back");
  }
  if (ev.type == MI_REV_MARK) {
    lua_pushstring(L, ev.mark >= 1 && ev.mark <= 4 ? MARK_NAMES[ev.mark] : "other"); lua_setfield(L, -2, "mark");
    lua_pushinteger(L, ev.a); lua_setfield(L, -2, "a");
    lua_pushinteger(L, ev.b); lua_setfield(L, -2, "b");
    lua_pushstring(L, ev.text ? ev.text : ""); lua_setfield(L, -2, "text");
  }
  return 1;
}
/* recording:verify() -> 0 clean | 1 torn tail | 2 damaged, and {bytes, records, samples, keys, segments,
 * damaged_regions, damaged_bytes, first_damage, torn_at, torn_bytes, seq_gaps, first_time, last_time,
 * continued, steps_back, first_step_back}. */
static int rdr_verify(lua_State *L) {
  mi_rec_health h;
  int rc = mi_rec_verify(checkrdr(L, 1), &h);
  lua_pushinteger(L, rc);
  lua_createtable(L, 0, 16);
  const char *k[] = {"bytes", "records", "samples", "keys", "segments", "damaged_regions", "damaged_bytes", "first_damage",
                     "torn_at", "torn_bytes", "seq_gaps", "first_time", "last_time", "continued", "steps_back", "first_step_back"};
  int64_t v[] = {h.bytes, h.records, h.samples, h.keys, h.segments, h.damaged_regions, h.damaged_bytes, h.first_damage,
                 h.torn_at, h.torn_bytes, h.seq_gaps, h.first_time, h.last_time, h.continued, h.steps_back, h.first_step_back};
  for (int i = 0; i < 16; i++) { lua_pushinteger(L, v[i]); lua_setfield(L, -2, k[i]); }
  return 2;
}
/* recording:seek(ticks) -> true if a key at or before it (or the start) was found. */
static int rdr_seek(lua_State *L) {
  lua_pushboolean(L, mi_rec_seek(checkrdr(L, 1), luaL_checkinteger(L, 2)) == 0);
  return 1;
}
/* recording:info() -> {version, tpm, mapping, mish_version, source, machine, first_time, last_time (the earliest
 * and latest sample), bytes, continued (the segment's header only grew the layout), udef_count, steps_back}. */
static int rdr_info(lua_State *L) {
  const mi_rec_info *in = mi_rec_info_get(checkrdr(L, 1));
  lua_createtable(L, 0, 9);
  lua_pushinteger(L, in->version); lua_setfield(L, -2, "version");
  lua_pushinteger(L, in->tpm); lua_setfield(L, -2, "tpm");
  lua_pushinteger(L, in->mapping); lua_setfield(L, -2, "mapping");
  lua_pushstring(L, in->mish_version); lua_setfield(L, -2, "mish_version");
  lua_pushstring(L, in->source); lua_setfield(L, -2, "source");
  lua_pushstring(L, in->machine); lua_setfield(L, -2, "machine");
  lua_pushinteger(L, in->first_time); lua_setfield(L, -2, "first_time");
  lua_pushinteger(L, in->last_time); lua_setfield(L, -2, "last_time");
  lua_pushinteger(L, in->file_bytes); lua_setfield(L, -2, "bytes");
  lua_pushboolean(L, in->continued); lua_setfield(L, -2, "continued");
  lua_pushinteger(L, in->udef_count); lua_setfield(L, -2, "udef_count");
  lua_pushinteger(L, in->steps_back); lua_setfield(L, -2, "steps_back");
  return 1;
}
/* recording:layout(domain) -> array of {item=, name=, kind=, unit=, reading=, words=}: the segment's items of the domain. */
static int rdr_layout(lua_State *L) {
  const mi_rec_item *its;
  int n = mi_rec_layout(checkrdr(L, 1), check_domain(L, 2), &its, NULL);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, its[i].item); lua_setfield(L, -2, "item");
    lua_pushinteger(L, its[i].words); lua_setfield(L, -2, "words");
    if (its[i].it) {
      lua_pushstring(L, its[i].it->name); lua_setfield(L, -2, "name");
      lua_pushstring(L, mi_kind_name(its[i].it->kind)); lua_setfield(L, -2, "kind");
      lua_pushstring(L, mi_unit_name(its[i].it->unit)); lua_setfield(L, -2, "unit");
      lua_pushstring(L, mi_reading_name(its[i].it->reading)); lua_setfield(L, -2, "reading");
    }
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}
/* recording:rows(domain) -> array of {key=, [i] = item i's value (class counters summed over classes;
 * a user-defined counter as mi_rec_udef_value gives it: a level counter's time up to the sample)}
 * for the entities of the latest sample (process rows also pid=, program=, user=). */
static int rdr_rows(lua_State *L) {
  mi_rec_reader *r = checkrdr(L, 1);
  int d = check_domain(L, 2);
  const mi_rec_item *its;
  int ni = mi_rec_layout(r, d, &its, NULL);
  const int32_t *keys;
  int n = mi_rec_present(r, d, &keys);
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    const int64_t *row = mi_rec_row(r, d, keys[k]);
    lua_createtable(L, ni, 4);
    lua_pushinteger(L, keys[k]); lua_setfield(L, -2, "key");
    if (d == MI_DOM_PROCESS) {
      const mi_rec_proc *p = mi_rec_process(r, keys[k]);
      char prog[17], user[17];
      memcpy(prog, p->program, 16); prog[16] = 0;
      memcpy(user, p->user, 16); user[16] = 0;
      for (int i = 15; i >= 0 && (prog[i] == ' ' || !prog[i]); i--) prog[i] = 0;
      for (int i = 15; i >= 0 && (user[i] == ' ' || !user[i]); i--) user[i] = 0;
      lua_pushinteger(L, p->pid); lua_setfield(L, -2, "pid");
      lua_pushstring(L, prog); lua_setfield(L, -2, "program");
      lua_pushstring(L, user); lua_setfield(L, -2, "user");
    }
    for (int i = 0; i < ni; i++) {
      int64_t v = 0;
      if ((uint32_t)its[i].item - MI_UDEF_FIRST < MI_UDEF_MAX) v = mi_rec_udef_value(r, its[i].item, row + its[i].at, 0);
      else for (int w = 0; w < its[i].words; w++) v += row[its[i].at + w];
      lua_pushinteger(L, v);
      lua_rawseti(L, -2, i + 1);
    }
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}
/* recording:close() (also __gc/__close); idempotent. */
static int rdr_close(lua_State *L) {
  lrdr *u = luaL_checkudata(L, 1, RDR_MT);
  mi_rec_close(u->r);
  u->r = NULL;
  return 0;
}
/* core.parse_time(text, base_ticks, tpm) -> ticks, or nil for text that is no time. */
static int l_parse_time(lua_State *L) {
  int64_t t;
  lua_Integer tpm = luaL_optinteger(L, 3, 1);
  if (tpm < 1 || tpm > INT32_MAX || mi_rec_parse_time(luaL_checkstring(L, 1), luaL_optinteger(L, 2, 0), (int32_t)tpm, &t) != 0) luaL_pushfail(L);
  else lua_pushinteger(L, t);
  return 1;
}
/* core.replay_step(system, ms) -> 1 moved, 0 at the end of the window, -1 not a replay. */
static int l_replay_step(lua_State *L) {
  lua_pushinteger(L, mi_replay_step(checksys(L, 1), luaL_checkinteger(L, 2)));
  return 1;
}
/* core.replay_clock(system) -> the recorded time shown, in ms since 1970 (-1: not a replay). */
static int l_replay_clock(lua_State *L) {
  lua_pushinteger(L, mi_replay_clock_ms(checksys(L, 1)));
  return 1;
}
/* core.replay_ended(system) -> true once the replay showed the last sample of its window. */
static int l_replay_ended(lua_State *L) {
  lua_pushboolean(L, mi_replay_ended(checksys(L, 1)) == 1);
  return 1;
}
/* core.replay_samples(system) -> the samples of the window the replay has applied so far (-1: not a replay). */
static int l_replay_samples(lua_State *L) {
  lua_pushinteger(L, mi_replay_samples(checksys(L, 1)));
  return 1;
}
/* core.replay_state(system) -> true and what was wrong with the file so far, or false. */
static int l_replay_state(lua_State *L) {
  char text[256];
  int rc = mi_replay_state(checksys(L, 1), text, sizeof text);
  lua_pushboolean(L, rc == 1);
  lua_pushstring(L, text);
  return 2;
}
/* core.wall_ms() -> milliseconds since 1970 of the wall clock (the timestamps of scripts' output). */
static int l_wall_ms(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
  return 1;
}
static const luaL_Reg rcd_methods[] = {{"sample", rcd_sample}, {"mark", rcd_mark}, {"stats", rcd_stats}, {"close", rcd_close}, {NULL, NULL}};
static const luaL_Reg rdr_methods[] = {{"next", rdr_next}, {"verify", rdr_verify}, {"seek", rdr_seek}, {"info", rdr_info},
  {"layout", rdr_layout}, {"rows", rdr_rows}, {"close", rdr_close}, {NULL, NULL}};
static const luaL_Reg rec_funcs[] = {{"record", l_record}, {"rec_open", l_rec_open}, {"parse_time", l_parse_time},
  {"replay_step", l_replay_step}, {"replay_clock", l_replay_clock}, {"replay_state", l_replay_state}, {"replay_ended", l_replay_ended}, {"replay_samples", l_replay_samples}, {"wall_ms", l_wall_ms}, {NULL, NULL}};

static const luaL_Reg sys_methods[] = {
  {"advance", sys_advance}, {"realtime", sys_realtime}, {"info", sys_info}, {"now", sys_now}, {"refresh", sys_refresh}, {"close", sys_close},
  {"closed", sys_isclosed}, {"udef_install", sys_udef_install}, {"udef_items", sys_udef_items},
  {"udef_count", sys_udef_count}, {"udef", sys_udef}, {NULL, NULL}};
static const luaL_Reg ses_methods[] = {{"priv", ses_priv}, {"close", ses_close}, {NULL, NULL}};
static const luaL_Reg qry_methods[] = {{"get", qry_get}, {"close", qry_close}, {NULL, NULL}};
static const luaL_Reg exp_methods[] = {{"format", exp_format}, {"close", exp_close}, {NULL, NULL}};
static const luaL_Reg funcs[] = {
  {"system", l_system}, {"attach", l_attach}, {"open", l_open}, {"set_default", l_set_default}, {"default_exists", l_default_exists},
  {"sources", l_sources}, {"session", l_session}, {"query", l_query}, {"accesson", l_accesson}, {"accessoff", l_accessoff},
  {"globinstall", l_globinstall}, {"globon", l_globon}, {"globget", l_globget}, {"globoff", l_globoff},
  {"procon", l_procon}, {"proconsel", l_proconsel}, {"ioonsel", l_ioonsel}, {"readactive", l_readactive}, {"procget", l_procget}, {"procoff", l_procoff}, {"ioon", l_ioon}, {"ioget", l_ioget},
  {"iooff", l_iooff}, {"prcsrget", l_prcsrget}, {"scget", l_scget}, {"scput", l_scput}, {"time", l_time},
  {"items", l_items}, {"objcl_names", l_objcl_names}, {"semcl_names", l_semcl_names},
  {"config_items", l_config_items}, {"statuses", l_statuses}, {"devtypes", l_devtypes},
  {"workloads", l_workloads}, {"workload", l_workload}, {"workload_fields", l_workload_fields}, {"sleep", l_sleep}, {"host_figure", l_host_figure}, {"host_mapping", l_host_mapping}, {"clock", l_clock}, {"fold", l_fold}, {"exporter", l_exporter}, {NULL, NULL}};

/* Creates a metatable with methods, __gc and __close. */
static void new_mt(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction close) {
  luaL_newmetatable(L, name);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, close); lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, close); lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}

__attribute__((visibility("default"))) int luaopen_mi_core(lua_State *L);
__attribute__((visibility("default"))) void mi_lua_push_system(lua_State *L, mi_system *sys);

__attribute__((visibility("default"))) void mi_lua_path_from_exe(lua_State *L, const char *rel);

void mi_lua_path_from_exe(lua_State *L, const char *rel) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return;
  *slash = 0;
  const char *sep = rel && *rel ? "/" : "";
  if (!rel) rel = "";
  lua_getglobal(L, "package");
  lua_pushfstring(L, "%s%s%s/?.lua;%s%s%s/?/init.lua;", exe, sep, rel, exe, sep, rel);
  lua_getfield(L, -2, "path");
  lua_concat(L, 2);
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
}

void mi_lua_push_system(lua_State *L, mi_system *sys) {
  if (luaL_getmetatable(L, SYS_MT) == LUA_TNIL) {   /* module not opened yet */
    lua_pop(L, 1);
    luaL_requiref(L, "mi.core", luaopen_mi_core, 0);
  }
  lua_pop(L, 1);
  lsys *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, SYS_MT);
  u->sys = sys;
}
int luaopen_mi_core(lua_State *L) {
  /* the program's registry: $MI_AIFKUF, for the systems Lua creates and a default not yet made */
  const char *reg = getenv("MI_AIFKUF");
  if (reg && !lua_registry[0]) {
    snprintf(lua_registry, sizeof lua_registry, "%s", reg);
    mi_system_options o = lua_options();
    mi_default_configure(NULL, &o);   /* -1 when the program made its default already: it chose */
  }
  new_mt(L, SYS_MT, sys_methods, sys_close);
  new_mt(L, SES_MT, ses_methods, ses_close);
  new_mt(L, QRY_MT, qry_methods, qry_close);
  udef_mt(L);
  new_mt(L, EXP_MT, exp_methods, exp_close);
  new_mt(L, RCD_MT, rcd_methods, rcd_close);   /* recordings (#13) */
  new_mt(L, RDR_MT, rdr_methods, rdr_close);
  luaL_newlib(L, funcs);
  luaL_setfuncs(L, rec_funcs, 0);
  lua_pushinteger(L, MI_MAX_ITEMS); lua_setfield(L, -2, "MAX_ITEMS");
  return 1;
}
