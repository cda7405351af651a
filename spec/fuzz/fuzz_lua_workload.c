/* fuzz_lua_workload.c — the Lua workload-file loader: embeds Lua with the mi module, writes
 * the fuzz input to a file and runs mi.system{workload = file}, then a short session on it.
 * Checks: a bad file is a Lua error with a message (never a crash, never a non-string error);
 * a system made from a file runs the numbers the file gave; the session's calls work on it.
 * Lua runs with a memory cap and an instruction budget (a file may loop forever). */
#include <unistd.h>
#include "lauxlib.h"
#include "lualib.h"
#include "fuzz_common.h"
#include "mi_lua.h"

#define MEM_CAP (64u << 20)
#define BUDGET 2000000

static char dir[128], path[160];
static size_t mem_used, base_used;   /* bytes Lua holds; what it held before this input */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  unsetenv("MISH_WORKLOAD");
  setenv("TZ", "UTC", 1);
  snprintf(dir, sizeof dir, "%s", fz_scratch_dir("lua"));
  snprintf(path, sizeof path, "%s/fuzzed.lua", dir);
  return 0;
}

/* An allocator with a cap: past MEM_CAP more than before the input, Lua gets NULL (a memory error). */
static void *cap_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  (void)ud;
  if (!p) osize = 0;
  if (nsize == 0) { mem_used -= osize; free(p); return NULL; }
  if (nsize > osize && mem_used + (nsize - osize) > base_used + MEM_CAP) return NULL;
  void *q = realloc(p, nsize);
  if (q) mem_used = mem_used - osize + nsize;
  return q;
}

/* The count hook: past the budget, a Lua error. */
static void budget_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  luaL_error(L, "fuzz: instruction budget spent");
}

/* What the harness runs: path as ...; raises "INVARIANT: ..." for a broken invariant. */
static const char script[] =
  "local mi = require('mi')\n"
  "local path = ...\n"
  "local function fails(what, err)\n"
  "  if type(err) ~= 'string' then error('INVARIANT: ' .. what .. ' raised a ' .. type(err) .. ', not a message', 0) end\n"
  "  if err == '' then error('INVARIANT: ' .. what .. ' raised an empty message', 0) end\n"
  "end\n"
  "local trace = TRACE and function(...) io.stderr:write(table.concat({...}), '\\n') end or function() end\n"
  "local okw, t = pcall(mi.workload, path)\n"
  "if not okw then fails('mi.workload', t) end\n"
  "local ok, sys = pcall(mi.system, { workload = path })\n"
  "trace('mi.system: ', tostring(ok), ' ', tostring(sys))\n"
  "if not ok then fails('mi.system', sys) return end\n"
  "local info = sys:info()\n"
  "if okw and type(t) == 'table' and info.workload and not t.host then\n"
  "  for _, f in ipairs(mi.workload_fields()) do\n"
  "    local v, got = rawget(t, f.name), info.workload[f.name]\n"
  "    if math.type(v) == 'integer' or math.type(v) == 'float' or type(v) == 'string' then\n"
  "      if got ~= v then error('INVARIANT: the file set ' .. f.name .. ' = ' .. tostring(v) .. ' but the system runs ' .. tostring(got), 0) end\n"
  "    end\n"
  "  end\n"
  "end\n"
  "local run = function()\n"
  "  if info.source ~= 'sim' then return end\n"
  "  sys:advance(100)\n"
  "  local s = mi.open({ system = sys })\n"
  "  s:on('global', { 'gmc_pauses', 'gmt_cs_process', 'gmc_prefetch_count_objcl_' })\n"
  "  s:on('process', { 'pmt_process_time', 'pmc_disc_read' })\n"
  "  sys:advance(300)\n"
  "  local g = s:get('global')\n"
  "  local p = s:get('process')\n"
  "  s:close()\n"
  "end\n"
  "local okr, err = pcall(run)\n"
  "trace('session: ', tostring(okr), ' ', tostring(err))\n"
  "if not okr then fails('a session on the system', err) end\n"
  "sys:close()\n";

/* The Lua state of this worker: made once (libraries, the mi module, the script compiled), kept
 * between inputs (a fresh state per input opened the libraries and loaded the mi module from
 * its sources each time; over a fixed corpus the harness ran 170 inputs per CPU second this
 * way, 64 before). Each input runs the script with a fresh budget and a cap on what it
 * allocates, then one full collection closes what it left open. */
static lua_State *L;
static int script_ref;

/* Makes the worker's Lua state. */
static void lua_setup(void) {
  mem_used = 0;
  L = lua_newstate(cap_alloc, NULL);
  if (!L) abort();
  luaL_openlibs(L);
  luaL_requiref(L, "mi.core", luaopen_mi_core, 0);
  lua_pop(L, 1);
  mi_lua_path_from_exe(L, "../../../lua");
  lua_pushboolean(L, fz_trace);
  lua_setglobal(L, "TRACE");
  if (luaL_loadbuffer(L, script, sizeof script - 1, "=fuzz") != LUA_OK) {
    fprintf(stderr, "harness script: %s\n", lua_tostring(L, -1));
    abort();
  }
  script_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_gc(L, LUA_GCCOLLECT);
}

/* One input: the file, then the script above on the worker's state. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  fwrite(data, 1, size, f);
  fclose(f);
  if (!L) lua_setup();
  base_used = mem_used;
  lua_sethook(L, budget_hook, LUA_MASKCOUNT, BUDGET);
  lua_rawgeti(L, LUA_REGISTRYINDEX, script_ref);
  lua_pushstring(L, path);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    FZ_CHECK(!msg || strncmp(msg, "INVARIANT", 9) != 0, "%s", msg);
    /* other errors (the budget, memory, a missing module) only end this input */
    FZ_CHECK(!msg || !strstr(msg, "module 'mi' not found"), "%s", msg);
    lua_pop(L, 1);
  }
  lua_sethook(L, NULL, 0, 0);
  lua_settop(L, 0);
  /* systems and sessions an error left open are closed now (their finalizers run in this
   * collection; the memory they held goes in the next input's). One full collection an input:
   * a second one here and one before each input traversed the ~1 MB heap of the mi module and
   * its catalog twice more, a third of the harness's time */
  lua_gc(L, LUA_GCCOLLECT);
  return 0;
}
