/* mish.c — the mish shell: a Lua 5.4 host in the manner of lua.c with the `mi`
 * module built in. REPL with line editing, history and completion; batch scripts,
 * -e, stdin; Ctrl-C interrupts a running loop through a count hook. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "mi_host.h"
#include "mi_sim.h"

#define MISH_VERSION "0.1.0"

#ifdef MISH_READLINE
#include <readline/readline.h>
#include <readline/history.h>
#define mish_readline(p) readline(p)
#define mish_addhistory(l) add_history(l)
#define mish_freeline(l) free(l)
#else
/* Plain fallback: reads one line with fgets into a static buffer. */
static char *mish_readline(const char *p) {
  static char buf[4096];
  fputs(p, stdout); fflush(stdout);
  if (!fgets(buf, sizeof buf, stdin)) return NULL;
  buf[strcspn(buf, "\n")] = 0;
  return strdup(buf);
}
#define mish_addhistory(l) ((void)(l))
#define mish_freeline(l) free(l)
#endif

#include "mi_lua.h"

static lua_State *globalL;
static const char *progname = "mish";

/* Hook set by the SIGINT handler: raises an error in the running Lua code. */
static void lstop(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted!");
}

/* SIGINT: arms the hook (no Lua calls from a signal handler). */
static void laction(int i) {
  signal(i, SIG_DFL);
  lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static int at_prompt;   /* 1 while a line typed at the prompt runs */

/* Message handler: adds a traceback to errors; at the prompt it keeps the traceback for
 * traceback() and leaves only the message, which is what a user at a prompt reads. */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  if (at_prompt) {
    luaL_traceback(L, L, msg, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "mish.traceback");
    lua_pushstring(L, msg);
    return 1;
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* traceback(): prints where the last error at the prompt came from. */
static int l_traceback(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "mish.traceback");
  puts(lua_isstring(L, -1) ? lua_tostring(L, -1) : "no error at the prompt yet");
  return 0;
}

/* Calls the function on the stack with narg args, with Ctrl-C armed; returns the status. */
static int docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  globalL = L;
  signal(SIGINT, laction);
  int status = lua_pcall(L, narg, nres, base);
  signal(SIGINT, SIG_DFL);
  lua_remove(L, base);
  return status;
}

/* Prints an error message left by a failed call. */
static int report(lua_State *L, int status) {
  if (status != LUA_OK) {
    fprintf(stderr, "%s: %s\n", progname, lua_tostring(L, -1));
    fflush(stderr);
    lua_pop(L, 1);
  }
  return status;
}


/* Runs a chunk of Lua source with a name; returns the status. */
static int dostring(lua_State *L, const char *s, const char *name) {
  int status = luaL_loadbuffer(L, s, strlen(s), name);
  if (status == LUA_OK) status = docall(L, 0, 0);
  return report(L, status);
}

/* ---- REPL ---- */

/* Returns 1 if the load error says the input is incomplete. */
static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    if (lmsg >= 5 && strcmp(msg + lmsg - 5, "<eof>") == 0) { lua_pop(L, 1); return 1; }
  }
  return 0;
}

/* Reads one (possibly multi-line) statement and compiles it; returns status or -1 at EOF. */
static int loadline(lua_State *L) {
  char *line = mish_readline("mish> ");
  if (!line) return -1;
  lua_pushstring(L, line);
  if (line[0]) mish_addhistory(line);
  mish_freeline(line);
  /* first as an expression */
  const char *retline = lua_pushfstring(L, "return %s;", lua_tostring(L, -1));
  int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
  if (status == LUA_OK) { lua_remove(L, -2); lua_remove(L, -2); return status; }
  lua_pop(L, 2);
  for (;;) {
    size_t len;
    const char *code = lua_tolstring(L, -1, &len);
    status = luaL_loadbuffer(L, code, len, "=stdin");
    if (!incomplete(L, status)) break;
    char *more = mish_readline("  >> ");
    if (!more) return -1;
    lua_pushliteral(L, "\n");
    lua_pushstring(L, more);
    mish_freeline(more);
    lua_concat(L, 3);
  }
  lua_remove(L, -2);
  return status;
}

/* Prints the results of an expression through mi.shell.pretty. */
static void print_results(lua_State *L) {
  int n = lua_gettop(L);
  if (n == 0) return;
  lua_getglobal(L, "__mish_print");
  lua_insert(L, 1);
  if (lua_pcall(L, n, 0, 0) != LUA_OK) report(L, LUA_ERRRUN);
}

#ifdef MISH_READLINE
/* Readline completion: asks mi.shell.complete for candidates. */
static char *completion_gen(const char *text, int state) {
  static int idx, count;
  lua_State *L = globalL;
  if (!state) {
    lua_getglobal(L, "__mish_complete");
    lua_pushstring(L, text);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) { lua_pop(L, 1); return NULL; }
    lua_setfield(L, LUA_REGISTRYINDEX, "mish.completions");
    idx = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, "mish.completions");
    count = (int)luaL_len(L, -1);
    lua_pop(L, 1);
  }
  if (idx >= count) return NULL;
  lua_getfield(L, LUA_REGISTRYINDEX, "mish.completions");
  lua_rawgeti(L, -1, ++idx);
  char *r = strdup(lua_tostring(L, -1));
  lua_pop(L, 2);
  return r;
}

/* Readline hook: completes Lua names, mi functions and counter names. */
static char **completion(const char *text, int start, int end) {
  (void)start; (void)end;
  rl_completion_append_character = '\0';
  return rl_completion_matches(text, completion_gen);
}
#endif

/* The interactive loop. */
static void repl(lua_State *L) {
  int status;
  globalL = L;
  lua_settop(L, 0);
#ifdef MISH_READLINE
  rl_readline_name = "mish";
  rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,+-*/[";
  rl_attempted_completion_function = completion;
  char hist[PATH_MAX];
  const char *home = getenv("HOME");
  snprintf(hist, sizeof hist, "%s/.mish_history", home ? home : ".");
  read_history(hist);
#endif
  lua_register(L, "traceback", l_traceback);
  while ((status = loadline(L)) != -1) {
    at_prompt = 1;
    if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
    at_prompt = 0;
    if (status == LUA_OK) print_results(L);
    else report(L, status);
    lua_settop(L, 0);
  }
#ifdef MISH_READLINE
  write_history(hist);
#endif
  lua_settop(L, 0);
  fputs("\n", stdout);
}

static void usage(void) {
  printf("usage: %s [options] [script [args]]\n"
         "  -e code          run code\n"
         "  -i               enter the prompt after running the script\n"
         "  -                run standard input\n"
         "  --system NAME    system to measure: sim (the simulated HP 3000, default) or host\n"
         "                   (this Linux machine, from /proc)\n"
         "  --workload W     simulated workload: idle, oltp (default), batch, memory, disk,\n"
         "                   or a Lua file returning a workload table (see examples/workloads/)\n"
         "  --cpus N         simulated processors (1-8)\n"
         "  --version        print the version\n"
         "  --help           print this help\n", progname);
}

/* The protected main: parses arguments, sets up `mi`, `s`, `help`, then runs. */
static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  int interactive = 0, script = 0, ran = 0;
  const char *workload = NULL, *cpus = NULL;
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_mi_core);
  lua_setfield(L, -2, "mi.core");
  lua_pop(L, 1);
  mi_lua_path_from_exe(L, "");   /* lua/mi next to lua/mish */
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { usage(); return 0; }
    if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0) { printf("mish %s (Lua 5.4, MI A.00.00)\n", MISH_VERSION); return 0; }
    if (strcmp(a, "-i") == 0) { interactive = 1; continue; }
    if ((strcmp(a, "--system") == 0) && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "sim") && strcmp(v, "default") && strcmp(v, "host")) {
        fprintf(stderr, "%s: unknown system '%s' (sim or host)\n", progname, v);
        lua_pushinteger(L, 1); return 1;
      }
      if (strcmp(v, "host") == 0) setenv("MISH_SYSTEM", "host", 1);
      continue;
    }
    if ((strcmp(a, "--workload") == 0) && i + 1 < argc) { workload = argv[++i]; continue; }
    if ((strcmp(a, "--cpus") == 0) && i + 1 < argc) { cpus = argv[++i]; continue; }
    if (strcmp(a, "-e") == 0 && i + 1 < argc) { i++; continue; }
    if (a[0] == '-' && a[1] && strcmp(a, "-") != 0) { fprintf(stderr, "%s: unrecognized option '%s'\n", progname, a); usage(); lua_pushinteger(L, 1); return 1; }
    script = i;
    break;
  }
  if (workload && !mi_workload_builtin(workload) && access(workload, R_OK) != 0) {
    fprintf(stderr, "%s: unknown workload '%s' (idle, oltp, batch, memory, disk, or a readable .lua file)\n", progname, workload);
    lua_pushinteger(L, 1); return 1;
  }
  if (workload) setenv("MISH_WORKLOAD", workload, 1);
  if (cpus) setenv("MISH_CPUS", cpus, 1);
  if (dostring(L, "mi = require('mi'); local sh = require('mi.shell'); help = sh.help\n"
                  "__mish_print = function(...) local t = table.pack(...) for i = 1, t.n do print(sh.pretty(t[i])) end end\n"
                  "__mish_complete = function(w) return sh.complete(w, _G) end\n"
                  "s = mi.open()", "=mish") != LUA_OK) { lua_pushinteger(L, 1); return 1; }
  /* arg table as lua.c does */
  lua_createtable(L, argc, 1);
  for (int k = 0; k < argc; k++) { lua_pushstring(L, argv[k]); lua_rawseti(L, -2, k - (script ? script : argc)); }
  lua_setglobal(L, "arg");
  for (int k = 1; k < (script ? script : argc); k++)
    if (strcmp(argv[k], "-e") == 0 && k + 1 < argc) {
      if (dostring(L, argv[++k], "=(command line)") != LUA_OK) { lua_pushinteger(L, 1); return 1; }
      ran = 1;
    }
  if (script) {
    const char *fname = strcmp(argv[script], "-") == 0 ? NULL : argv[script];
    int status = luaL_loadfile(L, fname);
    if (status == LUA_OK) {
      int n = argc - script - 1;
      luaL_checkstack(L, n, "too many arguments");
      for (int k = script + 1; k < argc; k++) lua_pushstring(L, argv[k]);
      status = docall(L, n, 0);
    }
    if (report(L, status) != LUA_OK) { lua_pushinteger(L, 1); return 1; }
    ran = 1;
  }
  if (interactive || (!ran && isatty(0))) {
    if (isatty(1)) {
      char banner[512];
      snprintf(banner, sizeof banner, "print(string.format(require('mi.shell').banner, '%s', "
               "((s:info().source == 'host' and 'this Linux host' or 'a simulated HP 3000') .. ' (%%d CPUs, %%d processes)')"
               ":format(s:info().cpus, s:info().processes)))", MISH_VERSION);
      dostring(L, banner, "=mish");
    }
    repl(L);
  } else if (!ran) {
    int status = luaL_loadfile(L, NULL);
    if (status == LUA_OK) status = docall(L, 0, 0);
    if (report(L, status) != LUA_OK) { lua_pushinteger(L, 1); return 1; }
  }
  lua_pushinteger(L, 0);
  return 1;
}

int main(int argc, char **argv) {
  if (argv[0] && argv[0][0]) progname = "mish";
  lua_State *L = luaL_newstate();
  if (!L) { fprintf(stderr, "mish: cannot create Lua state\n"); return 1; }
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 2, 1, 0);
  int rc = status == LUA_OK ? (int)lua_tointeger(L, -1) : 1;
  if (status != LUA_OK) report(L, status);
  lua_close(L);
  return rc;
}
