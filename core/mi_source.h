/* mi_source.h — sources as ops tables: how a program chooses what a system measures.
 * For: programs that choose or register what a system measures (sim, host, replay, their own).
 * A source (the simulated HP 3000 "sim", the live Linux host "host", or one a program
 * registers) is a small table of operations found by name; mi_system_open("NAME[:ARG]")
 * creates a system and lets the source open on it. Sources see only this header and
 * mi_host.h: the core's internals are not theirs (core/sources/ is compiled with
 * MI_SOURCE_BUILD, under which mi_internal.h refuses to be included).
 *
 * The default system (mi.h's upper-case API, mi_default_system) is what the program
 * installs with mi_set_default_system, else what mi_default_configure said, else the
 * built-in default: "sim" (the oltp workload, 2 CPUs, real time, a minute of history).
 * The core reads no environment variable: programs pass what they were told. */
#ifndef MI_SOURCE_H
#define MI_SOURCE_H

#include <stddef.h>
#include "mi_host.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mi_workload;   /* mi_sim.h */

/* What a program asks of a source beyond its spec's ARG; zero fields mean the source's defaults. */
typedef struct mi_source_args {
  int cpus;                             /* a simulating source: processors 1-8 (0 = the workload's) */
  const struct mi_workload *workload;   /* sim: run this workload (e.g. one read from a file) instead of ARG's */
  int virtual_time;                     /* sim: no real-time pacing and no history; the program steps it */
  int age_ms;                           /* host: re-read /proc when older than this (0 = 100 ms, -1 = every call) */
  const char *window;                   /* replay: "from=T,to=T,speed=N|max" (mi_record.h; NULL = all, max) */
} mi_source_args;

/* ---- a source's options (#28.2): each source says once what a program may choose of it; mish's
 * options and --help, mi.open_system's and mi.set_default's options and the examples' MISH_*
 * variables are read from these tables, so a new source's options need no code in them. ---- */
/* The type of an option's value. */
enum {
  MI_SOPT_TEXT = 0,   /* any text */
  MI_SOPT_INT,        /* a whole number in min..max */
  MI_SOPT_PATH,       /* a file or directory that must be readable */
  MI_SOPT_WORKLOAD    /* a built-in workload's name (mi_sim.h); a program that reads workload files
                       * may take a file instead and pass the workload in mi_source_args.workload */
};
/* Where an option's value goes when a system is opened (mi_source_choose). */
enum {
  MI_SOPT_TO_ARG = 1, /* the spec's ARG: NAME:VALUE (one such option per source: it conflicts with an ARG in the spec) */
  MI_SOPT_TO_CPUS,    /* mi_source_args.cpus */
  MI_SOPT_TO_WINDOW   /* a part "option=VALUE" of mi_source_args.window */
};
/* One option of a source. Its name is the program's word for it: mish --NAME, $MISH_NAME (upper
 * case, '-' as '_'), mi.open_system's opts.NAME. An option given with a system whose source does
 * not list it is a conflict (the sources that list it are the system kinds it applies to). */
typedef struct mi_source_option {
  const char *name;   /* letters, digits and '-'; NULL ends a source's list */
  int type;           /* MI_SOPT_TEXT, _INT, _PATH, _WORKLOAD */
  int to;             /* MI_SOPT_TO_ARG, _CPUS, _WINDOW */
  long min, max;      /* an MI_SOPT_INT's range */
  const char *value;  /* what the value is called in help texts: "N", "DIR", "T" */
  const char *help;   /* one line for help texts */
} mi_source_option;

/* A source: what it is called, one line for people, and its operations. */
typedef struct mi_source_ops {
  const char *name;    /* letters, digits, '_' and '-'; what mi_system_open's spec names */
  const char *about;   /* one line for help texts */
  /* Makes the empty system sys measure this source: configures it, then installs the source
   * with mi_source_attach(sys, ops, state). arg is the spec's text after ':' (NULL if none);
   * a is never NULL. Returns 0, or -1 with a message in err (err may be NULL). */
  int (*open)(mi_system *sys, const char *arg, const mi_source_args *a, char *err, size_t errlen);
  /* Brings counters up to date; run at the start of every AIF call (may be NULL). */
  void (*refresh)(mi_system *sys, void *state);
  /* Frees the state when the system is freed or gets another source (may be NULL). */
  void (*close)(void *state);
  /* The options a program may give this source, ended by one with a NULL name (NULL: none). */
  const mi_source_option *options;
} mi_source_ops;

/* Registers a source (the table must outlive its use; it is not copied). 0; -1 NULL ops, no open
 * or a bad name; -2 the name is taken (the built-ins "sim" and "host" are always there); -3 full. */
MI_API int mi_source_register(const mi_source_ops *ops);   /* at startup, before other threads use the core */
/* Returns the source registered under name (up to a ':' if any), or NULL. */
MI_API const mi_source_ops *mi_source_find(const char *name);
/* Returns registered source i (0, 1, ...: the built-ins first), NULL past the end: for help texts. */
MI_API const mi_source_ops *mi_source_at(int i);
/* Returns option i (0, 1, ...) of ops, NULL past the end. */
MI_API const mi_source_option *mi_source_option_at(const mi_source_ops *ops, int i);
/* Returns the option called name of ops, NULL if ops has none so called. */
MI_API const mi_source_option *mi_source_option_find(const mi_source_ops *ops, const char *name);
/* Returns the first registered source (from mi_source_at(*i), *i then its index) with an option
 * called name, or NULL: the system kinds an option applies to, one call each. */
MI_API const mi_source_ops *mi_source_option_owner(const char *name, int *i);
/* Checks value against option o's type: 0, or -1 with why in err (an MI_SOPT_INT: "<help> must be
 * a whole number MIN-MAX"; a workload must be built in, or with files_ok a readable file). */
MI_API int mi_source_option_check(const mi_source_option *o, const char *value, int files_ok, char *err, size_t errlen);

/* What mi_source_choose makes of a system and its options: the spec and the source's arguments
 * to pass to mi_system_open (args.window points into window; c must outlive the open). */
typedef struct mi_source_choice {
  char spec[4200];
  char window[640];
  mi_source_args args;
  const mi_source_ops *ops;   /* the source spec names */
} mi_source_choice;
/* Folds n options (names[k] = values[k]) into a spec and arguments for the system spec (NULL or
 * "" = "sim"): each option must be one of the source's and pass mi_source_option_check (a workload
 * built in), an ARG option not be given twice (an ARG in spec too). A NULL value is an option the
 * caller passes in c->args itself (a workload read from a file): checked for its source and
 * conflicts only. 0; -1 with why in err, naming the option ("'cpus' goes with sim, not host"). */
MI_API int mi_source_choose(mi_source_choice *c, const char *spec, const char *const names[], const char *const values[],
                            int n, char *err, size_t errlen);

/* Creates a system measuring spec: "sim", "sim:WORKLOAD", "host", "host:/path/to/proc-root" or
 * a registered "NAME[:ARG]" (NULL or "" = "sim"); opt are the system's limits and registry, a the
 * source's arguments (either may be NULL). NULL on failure, with the reason in err (may be NULL),
 * e.g. "unknown system 'x' (sim, host, replay)". */
MI_API mi_system *mi_system_open(const char *spec, const mi_system_options *opt, const mi_source_args *a,
                                 char *err, size_t errlen);

/* Installs ops (with its state) as the source of sys: its refresh runs before every AIF call, its
 * close frees state with the system. A previous source's state is closed first. 0 or -1. */
MI_API int mi_source_attach(mi_system *sys, const mi_source_ops *ops, void *state);
/* Returns the ops table driving sys, or NULL (none, or a hook from mi_system_set_source). */
MI_API const mi_source_ops *mi_system_source_ops(const mi_system *sys);
/* Returns the name of the source driving sys: its ops' name ("sim", "host", "replay", a
 * registered name), "attached" for a store attached with mi_system_attach (its owner measures:
 * mi_system_owner_source), or "custom" when no ops table drives it (a bare refresh hook, a
 * program writing on its own). */
MI_API const char *mi_system_source_name(const mi_system *sys);
/* Returns what the owner of sys's store measures: for an attached store the owner's
 * mi_system_source_name as it published it in the segment ("custom" if it has none), else
 * sys's own; valid until the calling thread's next call. */
MI_API const char *mi_system_owner_source(const mi_system *sys);

/* ---- what a source may read of the core (the writer API's read side) ---- */
/* Returns one past the highest process slot in use (live or dead but unreported); 0 if none. */
MI_API int mi_host_proc_hi(const mi_system *sys);
/* Returns 1 if slot holds a live process, 0 otherwise (free, dead, out of range). */
MI_API int mi_host_proc_alive(const mi_system *sys, int slot);
/* Returns the pid in slot (live or dead but unreported), 0 for a free or bad slot. */
MI_API int64_t mi_host_proc_pid(const mi_system *sys, int slot);
/* Returns the layout generation: it changes whenever someone enables or disables counters or the
 * mapping changes, so a source that skips refreshes can re-read after a new ON. */
MI_API uint64_t mi_host_layout_gen(const mi_system *sys);
/* Returns the configuration generation: it changes whenever a configuration item's value does
 * (mi_host_config_set, AIFSCPUT ...), so a source may keep items it reads often until then. */
MI_API uint32_t mi_host_config_gen(const mi_system *sys);
/* Hashes n bytes at p into x (FNV-1a; start from MI_HOST_HASH0): how a source notices that a
 * name it keeps changed (a comm, a recorded program) without keeping the name. */
#define MI_HOST_HASH0 0xcbf29ce484222325ull
static inline uint64_t mi_host_hash(uint64_t x, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) x = (x ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
  return x;
}
/* Says whether anyone reads domain, so a source may skip the work of a domain nobody reads:
 * 2 while an ON of the domain is under way in this process (its refresh runs just before the
 * ON names a pid or LDEV and enables counters: the source brings entities in and takes every
 * baseline of the domain then); 1 if an MI user has the domain on, or the store is shared
 * (attached readers may name a pid or LDEV at any time); 0 otherwise. MI_DOM_GLOBAL stands
 * for processors too; domain -1 asks only whether an ON of any domain is under way (2 or 0,
 * without looking at the users: cheap enough for every call). Which counters are enabled:
 * mi_host_active (mi_host.h). */
MI_API int mi_host_wants(const mi_system *sys, int domain);
/* Says which domains the refresh under way serves: bit d (1 << MI_DOM_*) set when a read of
 * domain d asked for it, so a source may leave what that read does not return for the reads
 * that do (cumulative figures catch up then); 0 when the refresh serves everything (an ON, a
 * recorder's sample, a publisher thread, a call that reads no domain). */
MI_API int mi_host_reading(const mi_system *sys);
/* Returns the object-class mapping the store keeps (0-2), -1 while nobody has anything on. */
MI_API int mi_host_mapping(const mi_system *sys);
/* Returns the word of large-map class cls (0-719) within an object-class counter's cells under
 * the store's mapping (what mi_host_add_objcl adds to), -1 for a bad class or while no mapping
 * is kept. Changes only with the layout generation. */
MI_API int mi_host_objcl_word(const mi_system *sys, int cls);
/* Sets the time base of a system that has no process yet, backwards too (a source that replays
 * history before it goes real-time starts in the past); 0, or -1 if a process exists. */
MI_API int mi_host_rebase(mi_system *sys, int64_t ticks);

/* ---- the default system ---- */
/* Says what the default system will be when first needed: spec as for mi_system_open (NULL keeps
 * the configured one, initially "sim") and opt (NULL keeps the configured; opt->registry is
 * copied). 0; -1 if the default already exists; -2 if spec names no registered source or a path
 * is 4096 bytes or longer. */
MI_API int mi_default_configure(const char *spec, const mi_system_options *opt);
/* Installs sys as the default system (of the upper-case API and mi_default_system); the core
 * frees it at exit. 0 (also if sys is the default already); -1 if sys is NULL or another
 * default exists (installed, or created by an earlier use). */
MI_API int mi_set_default_system(mi_system *sys);
/* Returns 1 if the default system exists (installed or created), without creating it. */
MI_API int mi_default_exists(void);
/* The default system installed or opened so far, NULL if none (opens nothing). */
MI_API mi_system *mi_default_installed(void);

#ifdef __cplusplus
}
#endif
#endif
