/* mi_userdef.h — user-defined counters (NonStop Measure's USERDEF entities in the MI): a
 * program that embeds the core, or attaches to a shared store, installs counters of its own
 * at run time and bumps them as cheaply as a source bumps the built-in ones. Installed
 * counters get item numbers MI_UDEF_FIRST.. (a range the manual does not use), appear in the
 * system's catalog (mi_udef_at, mi_sys_item) and are read by MIGLOBGET (global counters) or
 * MIPROCGET (per-process counters) once a user enabled them with MIGLOBON/MIPROCON, like
 * built-in items. See core/STORE.md, "User-defined counters".
 * For: programs that install and bump counters of their own beside the manual's items. */
#ifndef MI_USERDEF_H
#define MI_USERDEF_H

#include "mi_host.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MI_UDEF_FIRST 29000        /* item number of the first user-defined counter of a system */
#define MI_UDEF_MAX 256            /* user-defined counters a system holds */
#define MI_UDEF_PER_PROCESS 85     /* counters one program may install (NonStop Measure's limit) */
#define MI_UDEF_MAX_ELEMENTS 256   /* array elements of one counter (NonStop Measure's limit) */
#define MI_UDEF_NAME 32            /* bytes of a name, with its NUL */
#define MI_UDEF_UNIT 16
#define MI_UDEF_HELP 128

/* Counter kinds (NonStop Measure's names). A GET shows: ACCUM a count in the 32-bit view (an
 * array of them with elements > 1), FACCUM a 64-bit count (a longint), BUSY the time (MI_Time)
 * the level was above 0, QUEUE the time integral of the level (MI_Time x length: its delta over
 * an interval's MI_Time is the mean queue length), QBUSY both (2 values: busy, queue). */
enum { MI_UDEF_ACCUM = 1, MI_UDEF_FACCUM, MI_UDEF_BUSY, MI_UDEF_QUEUE, MI_UDEF_QBUSY };

/* What to install. name: 1-31 characters [a-z0-9_], starting with a letter (case is folded);
 * unit and help may be NULL; per_process: 0 = one global value (MIGLOBGET), 1 = one value per
 * process (MIPROCGET, written for a process slot); elements: 0 or 1 = a single value, up to
 * MI_UDEF_MAX_ELEMENTS for ACCUM arrays. */
typedef struct mi_udef_desc {
  const char *name;
  int kind;
  const char *unit, *help;
  int per_process;
  int elements;
} mi_udef_desc;

/* An installed counter as a program writes it: pass by value. */
typedef struct mi_udef {
  mi_ctr c;           /* the counter (domain global or process) */
  int32_t item;       /* its item number */
  int16_t kind, elements;
} mi_udef;

/* An installed counter as the catalog shows it: item is a catalog entry (name, domain, unit,
 * type) whose number lies in MI_UDEF_FIRST..; kind is MI_UDEF_*. Pointers live as long as
 * the system (the texts are in the store). */
typedef struct mi_udef_info {
  mi_item_info item;  /* first: a catalog entry of a user-defined counter is a mi_udef_info */
  int kind, elements;
  const char *unit, *help;
  int32_t owner_pid;  /* the process that installed it */
  mi_udef handle;
} mi_udef_info;

/* Installs a counter in sys (the owner's or an attached store: every process attached to it
 * sees it) and fills *out (may be NULL). Returns 0 or a status: -5 NULL system or desc,
 * -32401 bad name, -32402 a counter or built-in item of that domain has the name, -32403 bad
 * kind, -32404 more than MI_UDEF_PER_PROCESS by this program, -32405 elements out of 1-256
 * or an array of a kind other than ACCUM, -32406 the system's table is full, -32005 the
 * attached store's owner is gone. */
MI_API int mi_udef_install(mi_system *sys, const mi_udef_desc *d, mi_udef *out);
/* mi_udef_install on behalf of the program pid (its owner, and whose MI_UDEF_PER_PROCESS it counts
 * against): a replay recreating a recorded table of several programs' counters. */
MI_API int mi_udef_install_as(mi_system *sys, const mi_udef_desc *d, int32_t pid, mi_udef *out);
/* Returns the number of user-defined counters of sys (0 for NULL). */
MI_API int mi_udef_count(mi_system *sys);
/* Returns the i-th user-defined counter of sys in install order (item MI_UDEF_FIRST + i), or NULL:
 * the iteration recorders and exporters enumerate. */
MI_API const mi_udef_info *mi_udef_at(mi_system *sys, int i);
/* Returns the user-defined counter named name (case-insensitive), or NULL. */
MI_API const mi_udef_info *mi_udef_find(mi_system *sys, const char *name);
/* Returns the catalog entry of item num for sys: a built-in item or a user-defined counter. */
MI_API const mi_item_info *mi_sys_item(mi_system *sys, int32_t num);
/* Returns the name of a kind ("accum", ...), or "?". */
MI_API const char *mi_udef_kind_name(int kind);
/* Returns the kind of a name (case-insensitive), or 0 if none. */
MI_API int mi_udef_kind_find(const char *name);

/* Adds delta to an ACCUM or FACCUM counter (element 0) for entity 0 (global) or a process slot:
 * inline, the same cost as mi_host_add (it is mi_host_add); for BUSY/QUEUE/QBUSY it adds ticks
 * to the accumulated time. Ignored while nobody enabled the counter, as the built-in writers
 * are. One thread writes a counter (as for built-ins); a shared store's writer brackets its
 * adds with mi_host_begin/mi_host_publish. */
static inline void mi_udef_add(mi_system *sys, mi_udef u, int entity, int64_t delta) {
  mi_host_add(sys, u.c, entity, delta);
}
/* Adds delta to element elem (0 .. elements-1) of an ACCUM array; ignores an element out of range. */
static inline void mi_udef_add_at(mi_system *sys, mi_udef u, int entity, int elem, int64_t delta) {
  int64_t *p = mi_host_cell_(sys, u.c, entity, 1);
  if (p && (unsigned)elem < (unsigned)u.elements && u.kind == MI_UDEF_ACCUM)
    __atomic_store_n(p + elem, p[elem] + delta, __ATOMIC_RELAXED);
}
/* Sets the level of a BUSY, QUEUE or QBUSY counter at the system's time now (the time before
 * is booked at the old level), or the value of an ACCUM/FACCUM counter (element 0). A level
 * counter starts at level 0 when a user enables it. */
MI_API void mi_udef_set(mi_system *sys, mi_udef u, int entity, int64_t level);
/* Reads a counter as a GET would for entity (element 0; BUSY/QUEUE in ticks, QBUSY the busy
 * part), 0 while nobody enabled it. */
MI_API int64_t mi_udef_value(mi_system *sys, mi_udef u, int entity);

/* Makes s's MI user follow installs (a recorder's): every counter installed from now on is
 * enabled for it in the install's own write section, so no add is lost before s looks; those
 * installed from the from-th on are enabled now (a caller that enabled the ones it knew of
 * closes the gap). 0, or a status (no MI user record free; -32008 on a read-only attach). */
MI_API int mi_session_follow_udefs(mi_session *s, int from);

#ifdef __cplusplus
}
#endif
#endif
