/* mi_lua.h — for C programs that embed Lua and the MI core together. */
#ifndef MI_LUA_H
#define MI_LUA_H

#include "lua.h"
#include "mi_host.h"

/* Opens the mi.core module (register it with luaL_requiref as "mi.core"). */
int luaopen_mi_core(lua_State *L);
/* Pushes sys as a system userdata that Lua can open sessions on; the caller keeps
 * ownership (Lua never frees it) and must keep it alive while Lua uses it. Closing the
 * userdata in Lua closes the sessions opened on it, never sys itself. */
void mi_lua_push_system(lua_State *L, mi_system *sys);

/* Prepends <directory of this executable>/<rel>/?.lua and ?/init.lua to package.path
 * (rel "" for lua/mish itself, "../lua" for a program in examples/). */
void mi_lua_path_from_exe(lua_State *L, const char *rel);

#endif
