/* mish.c — the mish shell: a Lua 5.4 host in the manner of lua.c with the `mi`
 * module built in. REPL with line editing, history and completion; batch scripts,
 * -e, stdin (Lua source only, never precompiled chunks); Ctrl-C interrupts a running loop
 * through a count hook and cancels a half-typed line at the prompt. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>
#include <pwd.h>
#include <sys/select.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "mi_host.h"
#include "mi_sim.h"
#include "mi_source.h"

#define MISH_VERSION "0.1.0"

/* ---- signals ----
 * While a chunk runs, SIGINT, SIGTERM and SIGHUP raise a Lua error in it (through a count
 * hook), so pcall-protected cleanup runs (glance restores the terminal); a second one acts at
 * once. After SIGTERM/SIGHUP mish then dies by that signal. At the prompt SIGINT cancels the
 * line; SIGTERM/SIGHUP give the terminal back and end mish. */
static lua_State *globalL;
static volatile sig_atomic_t run_signal;    /* the signal that interrupted the running chunk */
static volatile sig_atomic_t prompt_signal; /* a signal that arrived at the prompt */

/* Ends mish by sig (the parent sees "killed by sig"), as after cleanup a process should. */
static void die_by_signal(int sig) {
  fflush(NULL);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(128 + sig);
}

/* Hook set by the signal handler: raises an error in the running Lua code. */
static void lstop(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  if (run_signal == SIGINT) luaL_error(L, "interrupted!");
  luaL_error(L, "terminated by signal %s", run_signal == SIGHUP ? "SIGHUP" : "SIGTERM");
}

/* Handler while a chunk runs: arms the hook (no Lua calls from a signal handler). */
static void laction(int i) {
  run_signal = i;
  lua_sethook(globalL, lstop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* Handler at the prompt: only notes the signal; the line reader acts on it. */
static void prompt_action(int i) { prompt_signal = i; }

static const int caught_signals[3] = {SIGINT, SIGTERM, SIGHUP};

/* Installs handler for SIGINT, SIGTERM and SIGHUP (old[] keeps the previous ones). No
 * SA_RESTART: a read waiting for input returns, so the signal is acted on at once. */
static void catch_signals(void (*handler)(int), int flags, struct sigaction old[3]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  for (int k = 0; k < 3; k++) sigaction(caught_signals[k], &sa, &old[k]);
}

/* Puts back the handlers catch_signals replaced. */
static void restore_signals(const struct sigaction old[3]) {
  for (int k = 0; k < 3; k++) sigaction(caught_signals[k], &old[k], NULL);
}

/* ---- line reading ---- */
static char mish_cancelled[1];   /* mish_readline's answer when Ctrl-C cancelled the line */

#ifdef MISH_READLINE
#include <readline/readline.h>
#include <readline/history.h>

static char *rl_line;   /* the line the callback received */
static int rl_got;      /* 1 once it did (the line is NULL at end of input) */

/* Readline callback: keeps the entered line and stops reading. */
static void rl_line_done(char *line) {
  rl_line = line;
  rl_got = 1;
  rl_callback_handler_remove();
}

/* Reads one line with readline's callback interface, so that a signal at the prompt can be
 * handled: returns the line (to free), NULL at end of input, or mish_cancelled on Ctrl-C. */
static char *mish_readline(const char *prompt) {
  struct sigaction old[3];
  sigset_t block, orig;
  sigemptyset(&block);
  for (int k = 0; k < 3; k++) sigaddset(&block, caught_signals[k]);
  prompt_signal = 0;
  catch_signals(prompt_action, 0, old);   /* readline passes these on to us after its cleanup */
  rl_persistent_signal_handlers = 1;      /* and keeps its own in place until the line is read */
  rl_got = 0;
  rl_line = NULL;
  rl_callback_handler_install(prompt, rl_line_done);
  sigprocmask(SIG_BLOCK, &block, &orig);
  int fd = fileno(rl_instream ? rl_instream : stdin);
  while (!rl_got) {
    if (prompt_signal || rl_pending_signal()) {
      sigprocmask(SIG_SETMASK, &orig, NULL);
      rl_check_signals();                 /* readline restores the terminal, then calls us */
      sigprocmask(SIG_BLOCK, &block, NULL);
      if (!prompt_signal) continue;       /* a signal readline handles alone (e.g. a resize) */
      break;
    }
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(fd, &fds);
    int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &orig);
    if (r < 0 && errno == EINTR) continue;
    sigprocmask(SIG_SETMASK, &orig, NULL);
    if (r < 0) { rl_callback_handler_remove(); break; }
    rl_callback_read_char();
    sigprocmask(SIG_BLOCK, &block, NULL);
  }
  sigprocmask(SIG_SETMASK, &orig, NULL);
  int sig = prompt_signal;
  if (sig && !rl_got) {                   /* drop the half-typed line and its editing state */
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_callback_handler_remove();
    free(rl_line);
    rl_line = NULL;
  }
  restore_signals(old);
  if (sig == SIGTERM || sig == SIGHUP) die_by_signal(sig);
  if (sig == SIGINT && !rl_got) { fputs("\n", stdout); fflush(stdout); return mish_cancelled; }
  return rl_line;
}
#define mish_freeline(l) free(l)
#else
/* Plain fallback: reads one line from stdin; mish_cancelled on Ctrl-C, NULL at end of input. */
static char *mish_readline(const char *p) {
  struct sigaction old[3];
  char *buf = NULL;
  size_t cap = 0;
  prompt_signal = 0;
  catch_signals(prompt_action, 0, old);
  fputs(p, stdout); fflush(stdout);
  ssize_t n = getline(&buf, &cap, stdin);
  restore_signals(old);
  int sig = prompt_signal;
  if (sig == SIGTERM || sig == SIGHUP) die_by_signal(sig);
  if (n < 0 && sig == SIGINT) { clearerr(stdin); free(buf); fputs("\n", stdout); fflush(stdout); return mish_cancelled; }
  if (n < 0) { free(buf); return NULL; }
  buf[strcspn(buf, "\n")] = 0;
  return buf;
}
#define mish_freeline(l) free(l)
#endif

#include "mi_lua.h"

static const char *progname = "mish";

/* ---- history ---- */
static char histfile[PATH_MAX];   /* "" when there is no history file */

/* Picks the history file: $HOME/.mish_history, else the password entry's home; none when
 * neither is an absolute directory other than "/" (never the root or the current directory),
 * and none when the lines do not come from a terminal (mish -i < file). */
static void history_init(void) {
  const char *home = getenv("HOME");
  histfile[0] = 0;
  if (!isatty(0)) return;
  if (!home || home[0] != '/') {
    struct passwd *pw = getpwuid(getuid());
    home = pw ? pw->pw_dir : NULL;
  }
  if (!home || home[0] != '/' || home[strspn(home, "/")] == 0) return;
  size_t len = strlen(home);
  while (len > 1 && home[len - 1] == '/') len--;
  if (snprintf(histfile, sizeof histfile, "%.*s/.mish_history", (int)len, home) >= (int)sizeof histfile)
    histfile[0] = 0;
#ifdef MISH_READLINE
  if (!histfile[0]) return;
  if (read_history(histfile) == 0) history_truncate_file(histfile, 1000);   /* created at the first line */
#endif
}

/* Remembers an entered line: in the session's history and at once in the history file. */
static void history_add(const char *line) {
  if (!line[0]) return;
#ifdef MISH_READLINE
  add_history(line);
  if (histfile[0] && append_history(1, histfile) == ENOENT) write_history(histfile);   /* creates it */
#endif
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

/* Calls the function on the stack with narg args, with Ctrl-C, SIGTERM and SIGHUP armed;
 * returns the status. After SIGTERM or SIGHUP (and the chunk's own cleanup) mish dies by it. */
static int docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  struct sigaction old[3];
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  globalL = L;
  run_signal = 0;
  catch_signals(laction, SA_RESETHAND, old);
  int status = lua_pcall(L, narg, nres, base);
  restore_signals(old);
  lua_sethook(L, NULL, 0, 0);   /* a signal just after the chunk must not hit the next one */
  lua_remove(L, base);
  if (run_signal == SIGTERM || run_signal == SIGHUP) die_by_signal(run_signal);
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


/* After a failed text-only load: names the source of a refused precompiled chunk. */
static void name_binary(lua_State *L, int status, const char *source) {
  const char *msg = lua_tostring(L, -1);
  if (status == LUA_ERRSYNTAX && msg && strncmp(msg, "attempt to load a binary chunk", 30) == 0) {
    lua_pushfstring(L, "%s: %s: mish runs Lua source only", source, msg);
    lua_remove(L, -2);
  }
}

/* Runs a chunk of Lua source (text only, never precompiled) with a name; returns the status. */
static int dostring(lua_State *L, const char *s, const char *name) {
  int status = luaL_loadbufferx(L, s, strlen(s), name, "t");
  if (status != LUA_OK) name_binary(L, status, name[0] == '=' || name[0] == '@' ? name + 1 : name);
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

/* Reads one (possibly multi-line) statement and compiles it (as text); returns the status,
 * -1 at end of input or -2 when Ctrl-C cancelled it. Every entered line goes to the history. */
static int loadline(lua_State *L) {
  char *line = mish_readline("mish> ");
  if (!line) return -1;
  if (line == mish_cancelled) return -2;
  lua_pushstring(L, line);
  history_add(line);
  mish_freeline(line);
  /* first as an expression */
  const char *retline = lua_pushfstring(L, "return %s;", lua_tostring(L, -1));
  int status = luaL_loadbufferx(L, retline, strlen(retline), "=stdin", "t");
  if (status == LUA_OK) { lua_remove(L, -2); lua_remove(L, -2); return status; }
  lua_pop(L, 2);
  for (;;) {
    size_t len;
    const char *code = lua_tolstring(L, -1, &len);
    status = luaL_loadbufferx(L, code, len, "=stdin", "t");
    if (!incomplete(L, status)) break;
    char *more = mish_readline("  >> ");
    if (!more) return -1;
    if (more == mish_cancelled) { lua_pop(L, 1); return -2; }
    history_add(more);
    lua_pushliteral(L, "\n");
    lua_pushstring(L, more);
    mish_freeline(more);
    lua_concat(L, 3);
  }
  lua_remove(L, -2);
  return status;
}

/* Prints the results of an expression through mi.shell.pretty (Ctrl-C stops a long print). */
static void print_results(lua_State *L) {
  int n = lua_gettop(L);
  if (n == 0) return;
  lua_getglobal(L, "__mish_print");
  lua_insert(L, 1);
  report(L, docall(L, n, 0));
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
#endif
  history_init();
  lua_register(L, "traceback", l_traceback);
  while ((status = loadline(L)) != -1) {
    if (status == -2) { lua_settop(L, 0); continue; }   /* Ctrl-C: a fresh prompt */
    at_prompt = 1;
    if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) print_results(L);
    else report(L, status);
    at_prompt = 0;
    lua_settop(L, 0);
  }
  lua_settop(L, 0);
  fputs("\n", stdout);
}

static void usage(void) {
  printf("usage: %s [options] [script [args]]\n"
         "  -e code          run code\n"
         "  -i               enter the prompt after running the script\n"
         "  -                run standard input\n"
         "  --system SPEC    system to measure: sim (the simulated HP 3000, default), sim:WORKLOAD,\n"
         "                   host (this Linux machine, from /proc) or host:/path/to/proc-root\n"
         "  --workload W     simulated workload: idle, oltp (default), batch, memory, disk,\n"
         "                   or a Lua file returning a workload table (see examples/workloads/)\n"
         "  --cpus N         simulated processors (1-8)\n"
         "  --share PATH     publish this shell's system in PATH for other processes\n"
         "                   (removed at exit)\n"
         "  --attach PATH    measure the system another process shares in PATH\n"
         "  --proc DIR       the proc root the host system reads (default /proc)\n"
         "  --replay FILE    measure a recording (scripts/record.lua) played back; with\n"
         "  --from T --to T  its window (ISO 8601 or offsets such as +10m) and\n"
         "  --speed N|max    its pace (default max: a script's sleep steps the recording)\n"
         "  (unset options come from $MISH_SYSTEM, $MISH_WORKLOAD, $MISH_CPUS, $MISH_PROC)\n"
         "  --version        print the version\n"
         "  --help           print this help\n", progname);
}

/* The protected main: parses arguments, sets up `mi`, `s`, `help`, then runs. */
static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  int interactive = 0, script = 0, ran = 0;
  /* the options of the measured system: the command line, else the environment */
  const char *system = getenv("MISH_SYSTEM"), *workload = getenv("MISH_WORKLOAD");
  const char *cpus = getenv("MISH_CPUS"), *proc = getenv("MISH_PROC");
  const char *share = NULL, *attach = NULL;
  const char *replay = NULL, *from = NULL, *to = NULL, *speed = NULL;   /* #13 */
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
    if ((strcmp(a, "--system") == 0) && i + 1 < argc) { system = argv[++i]; continue; }
    if ((strcmp(a, "--proc") == 0) && i + 1 < argc) { proc = argv[++i]; continue; }
    if ((strcmp(a, "--workload") == 0) && i + 1 < argc) { workload = argv[++i]; continue; }
    if ((strcmp(a, "--cpus") == 0) && i + 1 < argc) { cpus = argv[++i]; continue; }
    if ((strcmp(a, "--share") == 0) && i + 1 < argc) { share = argv[++i]; continue; }
    if ((strcmp(a, "--attach") == 0) && i + 1 < argc) { attach = argv[++i]; continue; }
    if ((strcmp(a, "--replay") == 0) && i + 1 < argc) { replay = argv[++i]; continue; }
    if ((strcmp(a, "--from") == 0) && i + 1 < argc) { from = argv[++i]; continue; }
    if ((strcmp(a, "--to") == 0) && i + 1 < argc) { to = argv[++i]; continue; }
    if ((strcmp(a, "--speed") == 0) && i + 1 < argc) { speed = argv[++i]; continue; }
    if (strcmp(a, "-e") == 0 && i + 1 < argc) { i++; continue; }
    if (a[0] == '-' && a[1] && strcmp(a, "-") != 0) { fprintf(stderr, "%s: unrecognized option '%s'\n", progname, a); usage(); lua_pushinteger(L, 1); return 1; }
    script = i;
    break;
  }
  if (workload && workload[0] && !mi_workload_builtin(workload) && access(workload, R_OK) != 0) {
    fprintf(stderr, "%s: unknown workload '%s' (idle, oltp, batch, memory, disk, or a readable .lua file)\n", progname, workload);
    lua_pushinteger(L, 1); return 1;
  }
  if (share && attach) {
    fprintf(stderr, "%s: --share publishes this shell's system, --attach measures another's: not both\n", progname);
    lua_pushinteger(L, 1); return 1;
  }
  if ((from || to || speed) && !replay) {
    fprintf(stderr, "%s: --from, --to and --speed go with --replay FILE\n", progname);
    lua_pushinteger(L, 1); return 1;
  }
  if (replay && (attach || share)) {
    fprintf(stderr, "%s: --replay measures a recording: not with --%s\n", progname, attach ? "attach" : "share");
    lua_pushinteger(L, 1); return 1;
  }
  /* mish_options: what the Lua side builds the one default system from (mi.set_default) */
  lua_createtable(L, 0, 11);
  const char *const keys[] = {"system", "workload", "cpus", "proc", "share", "attach", "replay", "from", "to", "speed", "version"},
                    *vals[] = {system, workload, cpus, proc, share, attach, replay, from, to, speed, MISH_VERSION};
  for (int k = 0; k < 11; k++)
    if (vals[k] && vals[k][0]) { lua_pushstring(L, vals[k]); lua_setfield(L, -2, keys[k]); }
  lua_setglobal(L, "mish_options");
  if (dostring(L, "mi = require('mi'); local sh = require('mi.shell'); help = sh.help\n"
                  "__mish_print = function(...) local t = table.pack(...) for i = 1, t.n do print(sh.pretty(t[i])) end end\n"
                  "__mish_complete = function(w) return sh.complete(w, _G) end", "=mish") != LUA_OK) { lua_pushinteger(L, 1); return 1; }
  /* the one default system, from the options; a bad option is one line, not a traceback */
  lua_getglobal(L, "mi");
  lua_getfield(L, -1, "set_default");
  lua_getglobal(L, "mish_options");
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    fprintf(stderr, "%s: %s\n", progname, lua_isstring(L, -1) ? lua_tostring(L, -1) : "cannot build the system");
    lua_pushinteger(L, 1); return 1;
  }
  lua_pop(L, 1);
  if (share) { lua_pushstring(L, share); lua_setglobal(L, "__mish_share"); }   /* main removes it at exit */
  if (dostring(L, "s = mi.open()", "=mish") != LUA_OK) { lua_pushinteger(L, 1); return 1; }
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
    int status = luaL_loadfilex(L, fname, "t");   /* text only: precompiled chunks can crash Lua */
    if (status != LUA_OK) name_binary(L, status, fname ? fname : "stdin");
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
               "((s:info().source == 'host' and 'this Linux host' or s:info().source == 'attached' and "
               "'the store at ' .. s:info().share or 'a simulated HP 3000') .. ' (%%d CPUs, %%d processes)')"
               ":format(s:info().cpus, s:info().processes)))", MISH_VERSION);
      dostring(L, banner, "=mish");
    }
    repl(L);
  } else if (!ran) {
    int status = luaL_loadfilex(L, NULL, "t");
    if (status != LUA_OK) name_binary(L, status, "stdin");
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
  /* --share: the default system lives in the store file; free it (readers see it closed), then
   * the file is ours to remove */
  lua_getglobal(L, "__mish_share");
  char path[4096] = "";
  if (lua_isstring(L, -1)) snprintf(path, sizeof path, "%s", lua_tostring(L, -1));
  lua_close(L);
  if (path[0]) {
    if (mi_default_exists()) mi_system_free(mi_default_system());
    unlink(path);
  }
  return rc;
}
