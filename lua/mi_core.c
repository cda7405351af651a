/* mi_core.c — the Lua 5.4 C module `mi.core`: luaopen_mi_core gathers the binding's files
 * (systems and sessions, the AIF calls, prepared queries, the catalog and user-defined
 * counters, the exporter and recordings) into one module; embedding helpers. */
#include "mi_lua_int.h"

/* Creates a metatable with methods, __gc and __close. */
void mil_new_mt(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction close) {
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

/* Prepends this executable's directory (and rel under it) to package.path (mi_lua.h). */
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

/* Pushes an embedding program's system as a system userdata Lua never frees (mi_lua.h). */
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
/* Opens the module: its metatables and its functions, one table. */
int luaopen_mi_core(lua_State *L) {
  lua_newtable(L);
  mil_open_system(L);   /* (first: the program's registry) */
  mil_open_aif(L);
  mil_open_read(L);
  mil_open_cols(L);
  mil_open_catalog(L);
  mil_open_record(L);
  mil_open_stats(L);
  lua_pushinteger(L, MI_MAX_ITEMS); lua_setfield(L, -2, "MAX_ITEMS");
  return 1;
}
