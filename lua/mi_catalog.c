/* mi_catalog.c — mi.core's catalog (items, classes, configuration items, status codes,
 * device types, workloads) and user-defined counters (system:udef_install, udef handles). */
#include "mi_lua_int.h"

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
int mil_sys_udef_count(lua_State *L) { lua_pushinteger(L, mi_udef_count(mil_checksys(L, 1))); return 1; }

/* sys:udef_items([from]) -> the catalog entries of the system's user-defined counters from index from (0-based). */
int mil_sys_udef_items(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
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
int mil_sys_udef_install(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
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
int mil_sys_udef(lua_State *L) {
  const mi_udef_info *u = mi_udef_find(mil_checksys(L, 1), luaL_checkstring(L, 2));
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
void mil_udef_mt(lua_State *L) {
  static const luaL_Reg m[] = {{"add", udef_add}, {"add_at", udef_add_at}, {"set", udef_set}, {"value", udef_value}, {NULL, NULL}};
  luaL_newmetatable(L, UDEF_MT);
  lua_newtable(L); luaL_setfuncs(L, m, 0); lua_setfield(L, -2, "methods");
  lua_pushcfunction(L, udef_index); lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

static const luaL_Reg funcs[] = {
  {"items", l_items}, {"objcl_names", l_objcl_names}, {"semcl_names", l_semcl_names}, {"config_items", l_config_items},
  {"statuses", l_statuses}, {"devtypes", l_devtypes}, {"workloads", l_workloads}, {"fold", l_fold}, {NULL, NULL}};

/* Makes the user-defined counter metatable; adds the catalog's functions to the module table at the top. */
void mil_open_catalog(lua_State *L) {
  mil_udef_mt(L);
  luaL_setfuncs(L, funcs, 0);
}
