/* mish.c — the mish shell: a Lua 5.4 host in the manner of lua.c with the `mi`
 * module built in. REPL with line editing, history and completion; batch scripts,
 * -e, stdin (Lua source only, never precompiled chunks); Ctrl-C interrupts a running loop
 * through a count hook and cancels a half-typed line at the prompt. */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <pwd.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "mi_host.h"
#include "mi_sim.h"
#include "mi_linux.h"
#include "mi_source.h"
#include "mi_export.h"

#define MISH_VERSION "0.1.0"

/* ---- signals ----
 * While a chunk runs, SIGINT, SIGTERM and SIGHUP raise a Lua error in it (through a count
 * hook), so pcall-protected cleanup runs (glance restores the terminal); a second one acts at
 * once. After SIGTERM/SIGHUP mish then dies by that signal. At the prompt SIGINT cancels the
 * line; SIGTERM/SIGHUP give the terminal back and end mish. */
static lua_State *globalL;
static volatile sig_atomic_t run_signal;    /* the signal that interrupted the running chunk */
static volatile sig_atomic_t prompt_signal; /* a signal that arrived at the prompt */

static void stop_recorder(void);
static char rec_share[PATH_MAX + 16];   /* --record without --share/--attach: the store file made for it */
static char rec_dir[PATH_MAX];     /* ... in this private directory (mkdtemp), removed at exit */

/* --share, --record: frees the default system when it lives in a store file this mish made —
 * readers see it closed, and the library removes the file it made (only that file: never one
 * put at the path since) — and removes --record's private directory. */
static void free_shared_default(void) {
  if (mi_default_exists()) {
    mi_system *d = mi_default_system();
    if (mi_system_share_path(d) && !mi_system_attached(d)) mi_system_free(d);
  }
  if (rec_dir[0]) rmdir(rec_dir);
  rec_dir[0] = 0;
}

/* Ends mish by sig (the parent sees "killed by sig"), as after cleanup a process should. */
static void die_by_signal(int sig) {
  stop_recorder();   /* --record: the recorder takes its last sample and closes the file */
  free_shared_default();
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

/* Message handler: leaves only the message, which is what a user reads, and keeps the
 * traceback for traceback() at the prompt; adds the traceback to an error inside mi itself. */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  /* at the prompt, and for errors in the user's own code, the message alone (#16.4); an error
   * placed inside mi's own modules is a bug of ours: its traceback helps the report */
  const char *colon = strchr(msg, ':');
  int ours = colon && colon - msg > 3 && memmem(msg, (size_t)(colon - msg), "mi/", 3) != NULL;
  if (at_prompt || !ours) {
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
  /* statements then an expression ("s:on(...); s:get(...)"): the expression's values are
   * printed too (#16.6); tried at each ';' from the right, a split inside a string fails to load */
  const char *text = lua_tostring(L, -1);
  for (const char *semi = strrchr(text, ';'); semi; ) {
    const char *tail = semi + 1 + strspn(semi + 1, " \t");
    if (*tail) {
      const char *both = lua_pushfstring(L, "%s return %s;", lua_pushlstring(L, text, (size_t)(semi - text + 1)), tail);
      if (luaL_loadbufferx(L, both, strlen(both), "=stdin", "t") == LUA_OK) {
        lua_replace(L, -4);   /* the line gives way to the chunk */
        lua_pop(L, 2);
        return LUA_OK;
      }
      lua_pop(L, 3);
    }
    while (semi > text && *--semi != ';') {}
    if (*semi != ';') break;
  }
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
static int comp_start;   /* where the word being completed starts in the line */

/* Readline completion: asks mi.shell.complete for candidates. */
static char *completion_gen(const char *text, int state) {
  static int idx, count;
  lua_State *L = globalL;
  if (!state) {
    lua_getglobal(L, "__mish_complete");
    lua_pushstring(L, text);
    lua_pushlstring(L, rl_line_buffer, (size_t)comp_start);   /* the line before the word */
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) { lua_pop(L, 1); return NULL; }
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

/* Readline hook: lists the candidates, with each item's description beside it (mi.shell.listing). */
static void show_matches(char **matches, int num, int max) {
  lua_State *L = globalL;
  int top = lua_gettop(L);
  const char *text = NULL;
  lua_getglobal(L, "require");
  lua_pushstring(L, "mi.shell");
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_getfield(L, -1, "listing") == LUA_TFUNCTION) {
    lua_createtable(L, num, 0);
    for (int i = 1; i <= num; i++) { lua_pushstring(L, matches[i]); lua_rawseti(L, -2, i); }
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) text = lua_tostring(L, -1);
  }
  rl_crlf();
  if (text) fputs(text, rl_outstream ? rl_outstream : stdout);
  else rl_display_match_list(matches, num, max);
  lua_settop(L, top);
  rl_forced_update_display();
}

/* Readline hook: completes Lua names, mi functions and counter names. */
static char **completion(const char *text, int start, int end) {
  (void)end;
  comp_start = start >= 0 && (size_t)start <= strlen(rl_line_buffer) ? start : 0;
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
  rl_completion_display_matches_hook = show_matches;
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

/* ---- --serve: the exporter's HTTP server on the default system (core/export/) ---- */
static volatile int serve_stop;
static void serve_signal(int sig) { (void)sig; serve_stop = 1; }
static void serve_ready(const char *addr, void *arg) {
  (void)arg;
  fprintf(stderr, "%s: serving http://%s/metrics (Ctrl-C to stop)\n", progname, addr);
}

/* Serves /metrics for the default system until SIGINT/SIGTERM (min_interval seconds between reads,
 * pids per-PID series at most, the host's process files every proc_interval seconds at most);
 * the exit status. */
static int serve(const char *addr, double min_interval, long pids, double proc_interval) {
  char err[256];
  /* the host's per-process files at most every --proc-interval: a scrape between reads the
   * process figures of the last reading, the system-wide files as often as scraped */
  mi_linux_set_process_age(mi_default_system(), (int)(proc_interval * 1000 + 0.5));
  mi_export *x = mi_export_new(mi_default_system(), &(mi_export_options){.pids = (int)pids}, err, sizeof err);
  if (!x) { fprintf(stderr, "%s: --serve: %s\n", progname, err); return 1; }
  struct sigaction sa, old[2];
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = serve_signal;   /* no SA_RESTART: poll returns at once */
  sigaction(SIGINT, &sa, &old[0]);
  sigaction(SIGTERM, &sa, &old[1]);
  mi_serve_options o = {.listen = addr, .min_interval_ms = min_interval > 0 ? (int)(min_interval * 1000 + 0.5) : 1, .stop = &serve_stop,
                        .ready = serve_ready};
  int rc = mi_serve(x, &o, err, sizeof err);
  sigaction(SIGINT, &old[0], NULL);
  sigaction(SIGTERM, &old[1], NULL);
  mi_export_free(x);
  if (rc) fprintf(stderr, "%s: --serve: %s\n", progname, err);
  return rc ? 1 : 0;
}

/* ---- options ----
 * mish's own options, one row each: the flag, the environment variable that gives it when the
 * flag is absent (NULL: none), the key of mish_options (what mi.set_default reads). The options
 * of the measured systems (--workload, --cpus, --proc, --from ...) are not typed here: at start
 * every registered source's options (mi_source_option) are added after these rows as --NAME,
 * $MISH_NAME and key NAME, with their help, type and the system kinds they apply to. A new
 * option of mish is a new row (and a rule in opts_conflict if it conflicts with others). A bad
 * value or a conflict is one line naming what the user typed, exit 2. */
enum { O_SYSTEM, O_SHARE, O_ATTACH, O_ATTACHRW, O_SERVE, O_MININT, O_PIDS, O_REPLAY, O_RECORD, O_RECINT, O_PROCINT, O_COLLECT,
       NOWN };
#define MAX_OPTS (NOWN + 32)
typedef struct {
  const char *flag, *env, *key;
  const mi_source_option *src;   /* a system's option: the first source's that has it; NULL: mish's own */
} opt_row;
static opt_row options[MAX_OPTS] = {
  {"--system", "MISH_SYSTEM", "system", NULL}, {"--share", NULL, "share", NULL}, {"--attach", NULL, "attach", NULL},
  {"--attach-rw", NULL, "attach_rw", NULL},   /* #27.8 */
  {"--serve", NULL, NULL, NULL}, {"--min-interval", NULL, NULL, NULL}, {"--pids", NULL, NULL, NULL},   /* the exporter's (no key: not the system's) */
  {"--replay", NULL, "replay", NULL},   /* #13 */
  {"--record", NULL, NULL, NULL}, {"--record-interval", NULL, NULL, NULL},   /* the recorder's (not the system's) */
  {"--proc-interval", NULL, NULL, NULL},   /* the exporter's on the host (#32) */
  {"--collect", NULL, "collect", NULL},    /* what --share collects for read-only readers (#27.8) */
};
static int nopts = NOWN;              /* mish's own and then the sources' */
static char src_names[MAX_OPTS - NOWN][2][48];   /* the sources' options' flags and variables */
static double serve_interval = 0.5;   /* --min-interval, checked */
static long serve_pids;               /* --pids, checked */
static double serve_proc_interval = 5;   /* --proc-interval: the host's process files at most this often, checked */
static const char *optval[MAX_OPTS];   /* each option's value (NULL: not given) */
static int optcmd[MAX_OPTS];           /* 1 if it came from the command line, 0 from the environment */
static char optname[MAX_OPTS][160];    /* how the user gave it: "--cpus 9" or "MISH_CPUS=9" */

/* Adds every registered source's options to the table (once per name): --NAME, $MISH_NAME. */
static void add_source_options(void) {
  const mi_source_ops *ops;
  const mi_source_option *o;
  for (int i = 0; (ops = mi_source_at(i)); i++)
    for (int k = 0; (o = mi_source_option_at(ops, k)) && nopts < MAX_OPTS; k++) {
      int seen = 0;
      for (int j = NOWN; j < nopts; j++) seen |= strcmp(options[j].key, o->name) == 0;
      if (seen) continue;
      char *flag = src_names[nopts - NOWN][0], *env = src_names[nopts - NOWN][1];
      snprintf(flag, sizeof src_names[0][0], "--%s", o->name);
      snprintf(env, sizeof src_names[0][1], "MISH_%s", o->name);
      for (char *c = env; *c; c++) *c = *c == '-' ? '_' : (char)toupper((unsigned char)*c);
      options[nopts++] = (opt_row){flag, env, o->name, o};
    }
}

/* The index of the option whose key is key, or -1. */
static int opt_index(const char *key) {
  for (int k = 0; k < nopts; k++)
    if (options[k].key && strcmp(options[k].key, key) == 0) return k;
  return -1;
}

/* Names option k as the user gave it (for error messages). */
static const char *opt_said(int k) {
  if (optcmd[k]) snprintf(optname[k], sizeof optname[k], "%s %s", options[k].flag, optval[k]);
  else snprintf(optname[k], sizeof optname[k], "%s=%s", options[k].env, optval[k]);
  return optname[k];
}

/* Prints an option error (a format and its arguments) and a hint; returns 2, mish's exit status for it. */
static int opt_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", progname);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (try %s --help)\n", progname);
  va_end(ap);
  return 2;
}

/* Returns 1 if options a and b, both given, cannot go together. A system's option goes with the
 * systems whose source has it (its table says), an ARG option not with a spec that has one. */
static int opts_conflict(int a, int b) {
  if (a > b) { int t = a; a = b; b = t; }
  if (b == O_ATTACH) return a == O_SYSTEM || a == O_SHARE;   /* the attached system is another's: nothing else chooses it */
  if (b == O_ATTACHRW) return a == O_SYSTEM || a == O_SHARE || a == O_ATTACH;   /* the same read-write (and not both) */
  if (b == O_REPLAY) return a <= O_ATTACHRW;   /* a recording is the system: nothing else chooses it */
  if (b == O_COLLECT && (a == O_ATTACH || a == O_ATTACHRW || a == O_REPLAY)) return 1;   /* only an owner collects */
  if (a == O_REPLAY && b == O_RECORD) return 1;   /* a recording of a replay: scripts/export.lua cuts one */
  if (b < NOWN) return 0;
  if (a == O_ATTACH) return 1;
  if (a != O_SYSTEM && a != O_REPLAY) return 0;
  const mi_source_ops *ops = mi_source_find(a == O_REPLAY ? "replay" : optval[O_SYSTEM]);
  if (!ops) return 0;   /* no such system: check_options says so */
  const mi_source_option *o = mi_source_option_find(ops, options[b].key);
  return !o || (a == O_SYSTEM && o->to == MI_SOPT_TO_ARG && strchr(optval[O_SYSTEM], ':'));   /* sim:W and a workload: twice */
}

/* Returns 1 if the measured system is a recording: --replay FILE or --system replay:FILE (#30.3). */
static int replaying(void) {
  return optval[O_REPLAY] || (optval[O_SYSTEM] && strncmp(optval[O_SYSTEM], "replay:", 7) == 0);
}

/* Parses option k as seconds in lo..hi into *v; 0, or 2 with the error printed. */
static int opt_seconds(int k, double lo, double hi, double *v) {
  char *end;
  *v = strtod(optval[k], &end);
  if (end == optval[k] || *end || !(*v >= lo && *v <= hi)) return opt_error("'%s': the interval is seconds, %g-%g", opt_said(k), lo, hi);
  return 0;
}

/* Checks the systems' options given without --system or --replay: those of the default system
 * (sim) stand; another's is an error, unless it came from the environment and the command line
 * chose the default system's options (then it gives way). Returns 0 or 2. */
static int check_default_system(void) {
  if (optval[O_SYSTEM] || optval[O_REPLAY]) return 0;
  const mi_source_ops *def = mi_source_find("sim");
  int cmd_default = 0;
  for (int j = NOWN; j < nopts; j++) cmd_default |= optval[j] && optcmd[j] && mi_source_option_find(def, options[j].key);
  for (int k = NOWN; k < nopts; k++) {
    if (!optval[k] || mi_source_option_find(def, options[k].key)) continue;
    if (!optcmd[k] && cmd_default) { optval[k] = NULL; continue; }
    const mi_source_ops *owner = mi_source_option_owner(options[k].key, NULL);
    if (strcmp(owner->name, "replay") != 0) return opt_error("'%s' needs the %s system (--system %s)", opt_said(k), owner->name, owner->name);
    char flags[160] = "";   /* a recording's options: --from, --to and --speed */
    const mi_source_option *o;
    for (int i = 0; (o = mi_source_option_at(owner, i)); i++)
      snprintf(flags + strlen(flags), sizeof flags - strlen(flags), "%s--%s", !i ? "" : mi_source_option_at(owner, i + 1) ? ", " : " and ", o->name);
    return opt_error("'%s' needs a recording: %s go with --replay FILE", opt_said(k), flags);
  }
  return 0;
}

/* Checks the values of the systems' options by their types (a workload: built in or a file) and
 * that --system names a source. Returns 0 or 2. */
static int check_system_values(void) {
  char err[256];
  for (int k = NOWN; k < nopts; k++)
    if (optval[k] && mi_source_option_check(options[k].src, optval[k], 1, err, sizeof err) != 0)
      return opt_error("'%s': %s", opt_said(k), err);
  if (optval[O_SYSTEM]) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(optval[O_SYSTEM], ":"), optval[O_SYSTEM]);
    if (!mi_source_find(name)) {
      char known[256] = "";
      for (int i = 0; mi_source_at(i); i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", mi_source_at(i)->name);
      return opt_error("'%s': no system '%s' (%s)", opt_said(O_SYSTEM), name, known);
    }
  }
  return 0;
}

/* Checks the options once gathered: an environment value that conflicts with a command-line
 * option gives way to it; any other conflict or a bad value is an error. Returns 0 or 2. */
static int check_options(void) {
  for (int a = 0; a < nopts; a++)
    for (int b = 0; b < nopts; b++)
      if (a != b && optval[a] && optval[b] && optcmd[a] && !optcmd[b] && opts_conflict(a, b)) optval[b] = NULL;
  for (int a = 0; a < nopts; a++)
    for (int b = a + 1; b < nopts; b++)
      if (optval[a] && optval[b] && opts_conflict(a, b)) {
        char sa[160];
        snprintf(sa, sizeof sa, "%s", opt_said(a));
        return opt_error("'%s' and '%s' do not go together", sa, opt_said(b));
      }
  int rc = check_default_system();
  if (rc) return rc;
  for (int k = 0; k < nopts; k++)
    if (optval[k] && !optval[k][0]) return opt_error("%s is empty", optcmd[k] ? options[k].flag : options[k].env);
  if ((rc = check_system_values())) return rc;
  if ((optval[O_MININT] || optval[O_PIDS]) && !optval[O_SERVE]) return opt_error("--min-interval and --pids go with --serve");
  if (optval[O_RECINT] && !optval[O_RECORD]) return opt_error("--record-interval goes with --record FILE");
  double v;
  if (optval[O_RECINT] && (rc = opt_seconds(O_RECINT, 0.01, 3600, &v))) return rc;
  if (optval[O_REPLAY] && access(optval[O_REPLAY], R_OK) != 0) return opt_error("'%s': %s", opt_said(O_REPLAY), strerror(errno));
  if (optval[O_SERVE]) {
    char err[256];
    if (mi_serve_check_listen(optval[O_SERVE], err, sizeof err) < 0) return opt_error("--serve: %s", err);
  }
  if (optval[O_MININT] && (rc = opt_seconds(O_MININT, 0, 3600, &serve_interval))) return rc;
  if (optval[O_PROCINT] && !optval[O_SERVE]) return opt_error("--proc-interval goes with --serve");
  if (optval[O_PROCINT] && (rc = opt_seconds(O_PROCINT, 0, 3600, &serve_proc_interval))) return rc;
  if (optval[O_PIDS]) {
    char *end;
    errno = 0;
    serve_pids = strtol(optval[O_PIDS], &end, 10);
    if (end == optval[O_PIDS] || *end || errno || serve_pids < 0 || serve_pids > 100000)
      return opt_error("'%s': per-PID series are a count, 0-100000", opt_said(O_PIDS));
  }
  return 0;
}

/* Prints the help: mish's own options, then every source's (from the registry, as parsed). */
static void usage(void) {
  printf("usage: %s [options] [script [args]]\n"
         "  -e code          run code\n"
         "  -i               enter the prompt after running the script\n"
         "  -                run standard input\n"
         "  -l [NAME]        list the scripts (mish NAME runs one), or show script NAME's options\n"
         "  --system SPEC    system to measure, NAME[:ARG] (default sim):\n", progname);
  const mi_source_ops *ops;
  for (int i = 0; (ops = mi_source_at(i)); i++) printf("                     %-7s %s\n", ops->name, ops->about ? ops->about : "");
  printf("  --share PATH     publish this shell's system in PATH for other processes\n"
         "                   (removed at exit); with --collect all|global,process,io every\n"
         "                   counter of those domains is collected for read-only readers\n"
         "  --attach PATH    measure the system another process shares in PATH, read-only\n"
         "                   (items its owner collects; needs only read permission)\n"
         "  --attach-rw PATH the same, read-write: turn on any item, AIFSCPUT, user-defined\n"
         "                   counters (needs write permission on PATH)\n"
         "  --serve [HOST:]PORT  serve /metrics (Prometheus/OpenMetrics) for the system; HOST\n"
         "                   defaults to 127.0.0.1 (loopback); with --min-interval SECONDS\n"
         "                   (0.5) between reads and --pids N (per-PID series, 0); the host's\n"
         "                   process files at most every --proc-interval SECONDS (5)\n"
         "  --replay FILE    measure a recording (scripts/record.lua) played back (= --system\n"
         "                   replay:FILE; paced by a script's sleeps, with --serve by its intervals)\n"
         "  --record FILE    record the system to FILE while mish runs (scripts/record.lua in\n"
         "                   a process of its own: a sample every --record-interval SECONDS,\n"
         "                   default 1, and one at exit); appends to an existing recording\n"
         "  the systems' own options (each source's table; a workload may also be a Lua file\n"
         "  returning a workload table, see examples/workloads/):\n");
  for (int k = NOWN; k < nopts; k++) {
    const mi_source_option *o = options[k].src;
    char left[64], range[40] = "";
    snprintf(left, sizeof left, "%s %s", options[k].flag, o->value ? o->value : "VALUE");
    if (o->type == MI_SOPT_INT) snprintf(range, sizeof range, " (%ld-%ld)", o->min, o->max);
    const mi_source_ops *owner = mi_source_option_owner(o->name, NULL);
    printf("  %-16s %s: %s%s\n", left, owner ? owner->name : "?", o->help ? o->help : "", range);
  }
  printf("  (unset options come from $MISH_SYSTEM and $MISH_<OPTION> of the systems' options, e.g.\n"
         "   $MISH_CPUS; the command line wins, and a variable that conflicts with it is ignored.\n"
         "   A bad option, value or variable is an error naming it, exit status 2; --opt=VALUE\n"
         "   works too)\n"
         "  --version        print the version\n"
         "  --help           print this help\n");
}

/* Finds the scripts: next to the executable's folder (lua/mish -> scripts/) or installed
 * (bin/mish -> share/mish/scripts, share/mish). Fills dir ("" if none); returns it. */
static char *scripts_dir(char *dir, size_t size) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  dir[0] = 0;
  if (n <= 0) return dir;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  static const char *const rel[] = {"../scripts", "../share/mish/scripts", "../share/mish"};
  for (int k = 0; k < 3; k++) {
    char cand[PATH_MAX + 64];
    snprintf(cand, sizeof cand, "%s/%s/cpu.lua", exe, rel[k]);
    if (access(cand, R_OK) == 0) {
      char *real = realpath(cand, NULL);
      if (real) { *strrchr(real, '/') = 0; snprintf(dir, size, "%s", real); free(real); }
      return dir;
    }
  }
  return dir;
}

/* ---- --record: scripts/record.lua in a child process attached to this shell's store ---- */
static pid_t rec_child = -1;

/* Stops the recorder child, if any: SIGINT (it takes a last sample and closes the file), then
 * waits for it. Also at exit (atexit) and before dying by a signal. */
static void stop_recorder(void) {
  if (rec_child <= 0) return;
  pid_t c = rec_child;
  rec_child = -1;
  kill(c, SIGINT);
  int st;
  while (waitpid(c, &st, 0) < 0 && errno == EINTR) {}
}

/* Starts scripts/record.lua -o file attached to the store at path (a sample every interval
 * seconds) in its own process group (a Ctrl-C at the prompt is not for it); returns once it is
 * ready, 0, or 1 with the reason printed. Ready is the byte record.lua writes to the pipe named
 * by MISH_RECORD_READY once the recording is open and it is sampling: from then on, stopping it
 * gets the last sample (holding the file's lock came earlier, inside the open, where a SIGINT
 * lost the recorder before it could take one). */
static int start_recorder(const char *path, const char *file, const char *interval) {
  char sdir[PATH_MAX], script[PATH_MAX + 32], exe[PATH_MAX], env[32];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || !scripts_dir(sdir, sizeof sdir)[0]) { fprintf(stderr, "%s: --record: cannot find scripts/record.lua\n", progname); return 1; }
  exe[n] = 0;
  snprintf(script, sizeof script, "%s/record.lua", sdir);
  int rp[2];
  if (pipe(rp) != 0) { fprintf(stderr, "%s: --record: %s\n", progname, strerror(errno)); return 1; }
  fflush(NULL);
  pid_t c = fork();
  if (c < 0) { fprintf(stderr, "%s: --record: %s\n", progname, strerror(errno)); close(rp[0]); close(rp[1]); return 1; }
  if (c == 0) {
    setpgid(0, 0);
    close(rp[0]);
    snprintf(env, sizeof env, "%d", rp[1]);
    setenv("MISH_RECORD_READY", env, 1);
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0) { dup2(fd, 0); close(fd); }
    char *av[] = {exe, "--attach-rw", (char *)path,   /* it turns on every counter: read-write (#27.8) */ script, "-o", (char *)file, "--interval", (char *)interval, "--quiet", NULL};
    execv(exe, av);
    _exit(127);
  }
  close(rp[1]);
  rec_child = c;
  atexit(stop_recorder);
  /* ready when the recorder writes its byte; the pipe's end without one: it stopped and said why */
  char b;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(rp[0], &rd);
    struct timeval tv = {0, 100 * 1000};
    int r = select(rp[0] + 1, &rd, NULL, NULL, &tv);
    if (r > 0) {
      ssize_t got = read(rp[0], &b, 1);
      if (got == 1) { close(rp[0]); return 0; }
      if (got == 0) break;   /* it ended (or closed the pipe) without saying it is ready */
    } else if (r < 0 && errno != EINTR) break;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (t1.tv_sec - t0.tv_sec >= 10) {
      close(rp[0]);
      fprintf(stderr, "%s: --record %s: the recorder did not start in 10 s\n", progname, file);
      stop_recorder();
      return 1;
    }
  }
  close(rp[0]);
  int st;
  pid_t w;
  while ((w = waitpid(c, &st, 0)) < 0 && errno == EINTR) {}
  rec_child = -1;
  if (w == c)
    fprintf(stderr, "%s: --record %s: the recorder stopped (%s %d)\n", progname, file,
            WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  else
    fprintf(stderr, "%s: --record %s: the recorder stopped\n", progname, file);
  return 1;
}

/* Returns 1 if a (the word after an option) is an option of mish rather than a value. */
static int is_flag(const char *a) {
  return strncmp(a, "--", 2) == 0 || (a[0] == '-' && strchr("eihvl", a[1]) && a[1] && !a[2]);
}

/* A searcher ahead of Lua's file searcher: the module's source as package.path finds it, loaded
 * from the bytecode `make` compiled beside it (mi/init.lua -> mi/init.luac) when that file is at
 * least as new as the source; otherwise (no bytecode, an edited source, another Lua's bytecode)
 * it steps aside and the source is parsed as usual. Parsing mi/init.lua was 3/4 of the
 * instructions of `mish -e ''` (#17.3). */
static int bytecode_searcher(lua_State *L) {
  luaL_checkstring(L, 1);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchpath");
  lua_pushvalue(L, 1);
  lua_getfield(L, -3, "path");
  lua_call(L, 2, 1);
  const char *src = lua_tostring(L, -1);
  char bc[PATH_MAX];
  struct stat a, b;
  if (!src || snprintf(bc, sizeof bc, "%sc", src) >= (int)sizeof bc || stat(src, &a) != 0 || stat(bc, &b) != 0 ||
      b.st_mtim.tv_sec < a.st_mtim.tv_sec || (b.st_mtim.tv_sec == a.st_mtim.tv_sec && b.st_mtim.tv_nsec < a.st_mtim.tv_nsec) ||
      luaL_loadfilex(L, bc, "b") != LUA_OK) {
    lua_settop(L, 1);
    lua_pushnil(L);   /* not here, nothing to add to a "not found" message: the next searcher looks */
    return 1;
  }
  lua_pushvalue(L, -2);   /* the loader's second argument: the source's name, as Lua's searcher gives */
  return 2;
}

/* Puts bytecode_searcher second in package.searchers (after the preload searcher). */
static void add_bytecode_searcher(lua_State *L) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  for (lua_Integer i = (lua_Integer)luaL_len(L, -1); i >= 2; i--) {
    lua_geti(L, -1, i);
    lua_seti(L, -2, i + 1);
  }
  lua_pushcfunction(L, bytecode_searcher);
  lua_seti(L, -2, 2);
  lua_pop(L, 2);
}

/* What pmain learns from the command line. */
typedef struct {
  int argc;
  char **argv;
  int interactive, script, ran;   /* -i; the script's index in argv (0: none); something ran */
  const char *list;               /* -l [NAME]: "" or NAME; NULL: not asked */
} mish_run;

/* Opens Lua's libraries, preloads mi.core and finds the mi modules (beside the executable, and
 * where make install put them), their bytecode first. */
static void open_libs(lua_State *L) {
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_mi_core);
  lua_setfield(L, -2, "mi.core");
  lua_pop(L, 1);
  mi_lua_path_from_exe(L, "");   /* lua/mi next to lua/mish */
  add_bytecode_searcher(L);
#ifdef MISH_LUA_DIR               /* an installed mish: where make install put mi, whatever PREFIX was */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushstring(L, ";" MISH_LUA_DIR "/?.lua;" MISH_LUA_DIR "/?/init.lua");
  lua_concat(L, 2);
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
#endif
}

/* Reads option k's value at argv[*i] (--flag VALUE or --flag=VALUE, a is the word); 0 or 2. */
static int take_value(mish_run *r, int *i, int k, size_t fl) {
  const char *a = r->argv[*i];
  if (a[fl] == '=') optval[k] = a + fl + 1;
  else if (*i + 1 < r->argc && !is_flag(r->argv[*i + 1])) optval[k] = r->argv[++*i];
  else return opt_error("%s needs a value", options[k].flag);
  optcmd[k] = 1;
  return 0;
}

/* Parses the command line (options, then the script and its arguments) over the environment's
 * values. Returns -1 to go on, or the exit status (0 after --help or --version, 2 for a bad option). */
static int parse_args(mish_run *r) {
  for (int k = 0; k < nopts; k++) { optval[k] = options[k].env ? getenv(options[k].env) : NULL; optcmd[k] = 0; }
  for (int i = 1; i < r->argc; i++) {
    const char *a = r->argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { usage(); return 0; }
    if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0) { printf("mish %s (Lua 5.4, MI A.00.00)\n", MISH_VERSION); return 0; }
    if (strcmp(a, "-i") == 0) { r->interactive = 1; continue; }
    if (strcmp(a, "-l") == 0) {   /* mish -l [NAME]: the scripts, or one's help (#16.9) */
      r->list = "";
      if (i + 1 < r->argc && !is_flag(r->argv[i + 1])) r->list = r->argv[++i];
      continue;
    }
    if (strcmp(a, "-e") == 0) {
      if (i + 1 >= r->argc) return opt_error("-e needs Lua code after it");
      i++; continue;
    }
    int k;
    size_t fl = 0;
    for (k = 0; k < nopts; k++) {
      fl = strlen(options[k].flag);
      if (strncmp(a, options[k].flag, fl) == 0 && (a[fl] == 0 || a[fl] == '=')) break;
    }
    if (k < nopts) {   /* --flag VALUE or --flag=VALUE */
      if (take_value(r, &i, k, fl)) return 2;
      continue;
    }
    if (a[0] == '-' && a[1]) return opt_error("unknown option '%s'", a);
    r->script = i;
    break;
  }
  return -1;
}

/* After the options are checked: --record without --share/--attach shares this shell's store
 * in a private directory for the recorder; --serve runs alone; a served replay is paced by the
 * recording's own intervals unless --speed says otherwise (#30.3: nothing else would step it,
 * and /metrics would show its first sample forever). Returns 0 or the exit status. */
static int settle_options(const mish_run *r) {
  if (optval[O_RECORD] && !optval[O_SHARE] && !optval[O_ATTACH] && !optval[O_ATTACHRW]) {   /* the recorder attaches to this shell's store */
    /* a private directory, never a guessable name in a shared /tmp (another user could plant a store there) */
    const char *tmp = getenv("TMPDIR");
    snprintf(rec_dir, sizeof rec_dir, "%s/mish-record-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(rec_dir)) {
      rec_dir[0] = 0;
      return opt_error("--record: cannot make a private directory for the shell's store (%s)", strerror(errno));
    }
    snprintf(rec_share, sizeof rec_share, "%s/shell.store", rec_dir);
    optval[O_SHARE] = rec_share;
    optcmd[O_SHARE] = 1;
  }
  if (optval[O_SERVE] && (r->script || r->interactive || r->list))
    return opt_error("--serve serves until stopped: no script or prompt with it, nor -l");
  int speed = opt_index("speed");   /* the replay source's pace */
  if (optval[O_SERVE] && replaying() && speed >= 0 && !optval[speed]) { optval[speed] = "1"; optcmd[speed] = 1; }
  return 0;
}

/* Sets the global mish_options (what the Lua side builds the one default system from,
 * mi.set_default) and loads mi with the shell's helpers; mi.shell (help, printing results,
 * completion) is loaded when first used: a script or -e that never asks for help does not parse
 * it (#17.3). Returns the status of the load. */
static int load_mi(lua_State *L) {
  lua_createtable(L, 0, nopts);
  for (int k = 0; k < nopts; k++)
    if (optval[k] && options[k].key) { lua_pushstring(L, optval[k]); lua_setfield(L, -2, options[k].key); }
  lua_pushstring(L, MISH_VERSION);   /* what a recording's header says wrote it (#13) */
  lua_setfield(L, -2, "version");
  lua_setglobal(L, "mish_options");
  return dostring(L, "mi = require('mi'); local function sh() return require('mi.shell') end\n"
                     "help = function(...) return sh().help(...) end\n"
                     "__mish_print = function(...) local t, p = table.pack(...), sh().pretty for i = 1, t.n do print(p(t[i])) end end\n"
                     "__mish_complete = function(w, before) return sh().complete(w, _G, before) end", "=mish");
}

/* mish -l [NAME]: lists the scripts, or shows one's options; the exit status. */
static int list_scripts(lua_State *L, const char *list) {
  char sdir[PATH_MAX];
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mi.shell");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "list_scripts");
  lua_pushstring(L, scripts_dir(sdir, sizeof sdir));
  if (list[0]) lua_pushstring(L, list); else lua_pushnil(L);
  return report(L, docall(L, 2, 0)) == LUA_OK ? 0 : 2;
}

/* Makes the default system and the global s. With no option at all (#17.2) it is the core's
 * built-in one, the very machine mi.set_default({}) would build, made at its first use (a script
 * that never measures does not pay for a minute of simulated history); else the one the options
 * describe (a bad one is one line, not a traceback), then --record's recorder starts and --serve
 * serves. Returns -1 to go on, or the exit status. */
static int make_default(lua_State *L) {
  int plain = 1;
  for (int k = 0; k < nopts; k++) if (optval[k] && optval[k][0]) plain = 0;
  if (plain)
    return dostring(L, "setmetatable(_G, {__index = function(g, k) if k == 's' then setmetatable(g, nil)\n"
                       "  local v = mi.open() rawset(g, 's', v) return v end end})", "=mish") != LUA_OK ? 1 : -1;
  lua_getglobal(L, "mi");
  lua_getfield(L, -1, "set_default");
  lua_getglobal(L, "mish_options");
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    fprintf(stderr, "%s: %s\n", progname, lua_isstring(L, -1) ? lua_tostring(L, -1) : "cannot build the system");
    return 2;
  }
  lua_pop(L, 1);
  const char *share = optval[O_SHARE];
  if (optval[O_RECORD] && start_recorder(share ? share : optval[O_ATTACH] ? optval[O_ATTACH] : optval[O_ATTACHRW], optval[O_RECORD], optval[O_RECINT] ? optval[O_RECINT] : "1"))
    return 1;
  if (optval[O_SERVE]) return serve(optval[O_SERVE], serve_interval, serve_pids, serve_proc_interval);
  return dostring(L, "s = mi.open()", "=mish") != LUA_OK ? 1 : -1;
}

/* Sets arg as lua.c does, runs every -e and then the script (a name of mish -l's found among
 * the scripts). Returns -1 to go on, or the exit status after an error. */
static int run_chunks(lua_State *L, mish_run *r) {
  int script = r->script, argc = r->argc;
  char **argv = r->argv;
  lua_createtable(L, argc, 1);
  for (int k = 0; k < argc; k++) { lua_pushstring(L, argv[k]); lua_rawseti(L, -2, k - (script ? script : argc)); }
  lua_setglobal(L, "arg");
  for (int k = 1; k < (script ? script : argc); k++)
    if (strcmp(argv[k], "-e") == 0 && k + 1 < argc) {
      if (dostring(L, argv[++k], "=(command line)") != LUA_OK) return 1;
      r->ran = 1;
    }
  if (!script) return -1;
  char sdir[PATH_MAX];
  const char *fname = strcmp(argv[script], "-") == 0 ? NULL : argv[script];
  char byname[PATH_MAX + 300];   /* "mish cpu" (or scripts/cpu.lua from elsewhere): a script of mish -l */
  if (fname && access(fname, F_OK) != 0 && scripts_dir(sdir, sizeof sdir)[0]) {
    const char *base = strrchr(fname, '/') ? strrchr(fname, '/') + 1 : fname;
    snprintf(byname, sizeof byname, "%s/%s%s", sdir, base, strstr(base, ".lua") ? "" : ".lua");
    if ((base == fname || strncmp(fname, "scripts/", 8) == 0) && access(byname, R_OK) == 0) fname = byname;
  }
  int status = luaL_loadfilex(L, fname, "t");   /* text only: precompiled chunks can crash Lua */
  if (status != LUA_OK) name_binary(L, status, fname ? fname : "stdin");
  if (status == LUA_OK) {
    int n = argc - script - 1;
    luaL_checkstack(L, n, "too many arguments");
    for (int k = script + 1; k < argc; k++) lua_pushstring(L, argv[k]);
    status = docall(L, n, 0);
  }
  if (report(L, status) != LUA_OK) return 1;
  r->ran = 1;
  return -1;
}

/* The prompt (with the banner on a terminal) after -i or when nothing ran on a terminal, else
 * standard input run as a chunk when nothing ran. Returns the exit status. */
static int run_rest(lua_State *L, const mish_run *r) {
  if (r->interactive || (!r->ran && isatty(0))) {
    if (isatty(1)) {   /* what is measured: the source's own line (the registry's), or the attached store */
      char banner[768];
      snprintf(banner, sizeof banner, "local i = s:info() local what = i.source == 'attached' and 'the store at ' .. i.share or i.source\n"
               "for _, src in ipairs(require('mi.core').sources()) do if src.name == i.source then what = src.about:gsub(' %%(.*', '') end end\n"
               "print(string.format(require('mi.shell').banner, '%s', what .. (' (%%d CPUs, %%d processes)'):format(i.cpus, i.processes)))",
               MISH_VERSION);
      dostring(L, banner, "=mish");
    }
    repl(L);
  } else if (!r->ran) {
    int status = luaL_loadfilex(L, NULL, "t");
    if (status != LUA_OK) name_binary(L, status, "stdin");
    if (status == LUA_OK) status = docall(L, 0, 0);
    if (report(L, status) != LUA_OK) return 1;
  }
  return 0;
}

/* The protected main, in the manner of lua.c's: parses arguments, sets up `mi`, `s`, `help`,
 * then runs -e chunks, the script, the prompt or standard input. Leaves the exit status. */
static int pmain(lua_State *L) {
  mish_run r = {(int)lua_tointeger(L, 1), (char **)lua_touserdata(L, 2), 0, 0, 0, NULL};
  open_libs(L);
  add_source_options();   /* the systems' options, from the sources' tables (#28.2) */
  int rc = parse_args(&r);   /* -1: go on; else the exit status */
  if (rc < 0) rc = check_options() ? 2 : -1;
  if (rc < 0) rc = settle_options(&r) ? 2 : -1;
  if (rc < 0 && load_mi(L) != LUA_OK) rc = 1;
  if (rc < 0 && r.list) rc = list_scripts(L, r.list);
  if (rc < 0) rc = make_default(L);
  if (rc < 0) rc = run_chunks(L, &r);
  if (rc < 0) rc = run_rest(L, &r);
  lua_pushinteger(L, rc);
  return 1;
}

/* Keeps MISH_RECORD_READY (the readiness pipe start_recorder gives its recorder) only when it
 * names a descriptor above 2 open for writing on a pipe: scripts/record.lua writes a byte to it,
 * and a stray value must not have it write into a terminal or someone's file. */
static void check_record_ready(void) {
  const char *v = getenv("MISH_RECORD_READY");
  if (!v) return;
  char *end;
  errno = 0;
  long fd = strtol(v, &end, 10);
  struct stat sb;
  int fl = -1;
  if (errno || end == v || *end || fd < 3 || fd > INT_MAX || fstat((int)fd, &sb) != 0 || !S_ISFIFO(sb.st_mode) ||
      (fl = fcntl((int)fd, F_GETFL)) < 0 || (fl & O_ACCMODE) == O_RDONLY)
    unsetenv("MISH_RECORD_READY");
}

int main(int argc, char **argv) {
  if (argv[0] && argv[0][0]) progname = "mish";
  check_record_ready();
  lua_State *L = luaL_newstate();
  if (!L) { fprintf(stderr, "mish: cannot create Lua state\n"); return 1; }
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 2, 1, 0);
  int rc = status == LUA_OK ? (int)lua_tointeger(L, -1) : 1;
  if (status != LUA_OK) report(L, status);
  stop_recorder();   /* its last sample, while the store is still there */
  lua_close(L);
  free_shared_default();
  return rc;
}
