/* mi_host.h — the writer API: how a source (the simulated HP 3000, the live Linux
 * host, a program embedding the core) plays the operating system for the counter
 * store. Readers use mi.h; nothing here is needed to read counters.
 * For: writers — a source, or a program that embeds the core and plays the operating system.
 *
 * Threading: one writer per system publishes states — the refresh hook (AIF calls run it in
 * a write section), or a program's own writes bracketed by mi_host_begin/mi_host_publish.
 * Any number of reader threads (each with its own sessions) and attached processes read
 * consistent states meanwhile. Writes outside a write section are allowed only while the
 * system belongs to one thread and is not shared. */
#ifndef MI_HOST_H
#define MI_HOST_H

#include <stddef.h>
#include "mi_catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define MI_UNLIKELY(x) (x)
#endif

/* How the inline writers below store a cell. Readers never trust a value they gathered while a
 * write section stood open (the seqlock, core/STORE.md "Reads"), so a cell's store needs no
 * ordering, only to be one store. GCC treats even a relaxed __atomic_store as a barrier for all
 * memory others can see, so a batch writer reloaded its row handle after every add (+6% CPU in
 * the simulator's watched hour). Where an aligned 64-bit store is one instruction (x86-64,
 * AArch64) the writers store plainly; elsewhere, and under ThreadSanitizer (which checks the
 * protocol by the C11 rules), a relaxed atomic store. */
#if defined(__SANITIZE_THREAD__)
#define MI_TSAN_ 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MI_TSAN_ 1
#endif
#endif
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(MI_TSAN_) && !defined(MI_ATOMIC_CELLS)
#define MI_CELL_PUT(p, v) (*(p) = (v))
#else
#define MI_CELL_PUT(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#endif

/* Options for mi_system_new; a NULL pointer or zero fields mean the defaults. */
typedef struct mi_system_options {
  int max_users;           /* MI users at once (default 16; -20002 beyond) */
  int64_t max_cells;       /* 64-bit counter cells in the store (default 32M; -20004 beyond) */
  int max_ldevs;           /* LDEVs the MI device table holds (default 999; -20003/-20017 beyond) */
  int max_ldevs_per_user;  /* LDEVs one user may enable (default 999; -20010 beyond) */
  int max_processes;       /* process table size, at most 2700 (default 2700; warning 20001 beyond) */
  const char *registry;    /* user-ID registry file (NULL: memory only; the core reads no environment) */
  int64_t boot_ticks;      /* time base at creation, ticks since 1970 (default: now) */
  const char *share;       /* a path: the store is created in that file for other processes to
                            * attach (mi_system_attach); NULL = private memory. Nothing at the
                            * path is replaced but a stale store of this user (else NULL with
                            * errno EBUSY, EEXIST, ELOOP, EISDIR or EPERM); mi_system_free
                            * removes the file it made */
} mi_system_options;

/* Called at the start of every AIF call so a source can bring counters up to date. */
typedef void (*mi_refresh_fn)(mi_system *sys, void *arg);

/* Creates an empty system (no CPUs, devices or processes) with default configuration; NULL when out
 * of memory, when the share file cannot be made, or (errno ENAMETOOLONG) a path is 4096 bytes or more. */
MI_API mi_system *mi_system_new(const mi_system_options *opt);
/* Frees a system, its sessions' state and its source; accepts NULL. */
MI_API void mi_system_free(mi_system *sys);
/* Opens a write section: what the program writes until mi_host_publish is seen by readers
 * (other threads, attached processes) all at once. Sections nest; one writer at a time (a
 * second thread waits). Needed whenever the system is shared or read by other threads; a
 * system owned by one thread and not shared may be written without. */
MI_API void mi_host_begin(mi_system *sys);
/* Closes the write section opened by mi_host_begin; the outermost close publishes. */
MI_API void mi_host_publish(mi_system *sys);
/* Runs the refresh hook every ms milliseconds from a thread of the core (0 stops it), so a
 * shared system stays live for attached readers while its own program sits idle (a shell at
 * its prompt). Returns 0, or -1 (attached system, no hook, no thread). */
MI_API int mi_system_publish_every(mi_system *sys, int ms);
/* Installs a refresh hook (NULL to remove); fini (may be NULL) frees arg with the system. */
MI_API void mi_system_set_source(mi_system *sys, mi_refresh_fn fn, void *arg, void (*fini)(void *));
/* Returns the source argument installed with mi_system_set_source. */
MI_API void *mi_system_source(mi_system *sys);

/* ---- configuration ---- */
/* Sets the number of processors (1-8); returns 0 or -1. */
MI_API int mi_host_set_cpus(mi_system *sys, int n);
/* Returns the number of processors. */
MI_API int mi_host_cpus(const mi_system *sys);
#define MI_MAX_CPUS_ALL 65536   /* processors a machine may say it has (mi_host_set_cpus_all) */
/* Sets how many processors the machine has in all, the MI's among them (0 to MI_MAX_CPUS_ALL;
 * 0: as many as mi_host_cpus); more than 8 makes MIPRCSRGET of all processors return its 8
 * with warning 32701. Returns 0 or -1. */
MI_API int mi_host_set_cpus_all(mi_system *sys, int n);
/* Returns how many processors the machine has in all (at least mi_host_cpus). */
MI_API int mi_host_cpus_all(const mi_system *sys);
/* Configures LDEV 1-999 as a device type (1-10, see mi_devtype); 0 removes it; returns 0 or -1.
 * Removing an LDEV or changing its type drops it from every user's MIIOON set and the MI
 * device table, and its counters restart from zero. */
MI_API int mi_host_set_device(mi_system *sys, int ldev, int type);
/* Returns the device type of an LDEV (0 if not configured). */
MI_API int mi_host_device(const mi_system *sys, int ldev);
/* Sets a configuration item's 32-bit value directly (no PUT rules), e.g. 3003 job count;
 * returns 0, or -1 for an unknown or non-32-bit item and for 3042/3043 below 1. */
MI_API int mi_host_config_set(mi_system *sys, int32_t item, int32_t value);
/* Reads a configuration item's 32-bit value (I32 and boolean items). */
MI_API int32_t mi_host_config(const mi_system *sys, int32_t item);
/* Sets a text configuration item (3037, 3044, 3045): copied, blank-padded to 8. */
MI_API int mi_host_config_text(mi_system *sys, int32_t item, const char *text);
/* Sets a mask item (3015 ALLOW: 12 bytes, 3016 LOGGING: 8) to the bytes AIFSCGET gives (a replay);
 * 0, or -1 for another item or size. */
MI_API int mi_host_config_mask(mi_system *sys, int32_t item, const uint8_t *bytes, int n);
/* Reads a mask item (3015, 3016) bit, 0-based as the manual numbers them. */
MI_API int mi_host_config_bit(const mi_system *sys, int32_t item, int bit);

/* ---- time ---- */
/* Advances the time base by ticks (>= 0). */
MI_API void mi_host_advance(mi_system *sys, int64_t ticks);
/* Returns the current time in ticks since 1970. */
MI_API int64_t mi_host_now(const mi_system *sys);
/* Sets the current time in ticks since 1970 (never backwards). */
MI_API void mi_host_set_now(mi_system *sys, int64_t ticks);
/* Returns ticks per millisecond (item 3043). */
MI_API int32_t mi_host_ticks_per_ms(const mi_system *sys);

/* ---- processes ---- */
/* What a new process is: pid (> 0), names (blank or NUL padded, up to 16 chars each). */
typedef struct mi_proc_desc {
  int64_t pid;
  const char *program, *program_group, *program_account;
  const char *user, *user_group, *account;
  int js_type;     /* 0 none (system process), 1 session, 2 job */
  int js_num;      /* 1-16383 */
  int proc_type;   /* item 20012: see MI_PT_* */
  int64_t start_ticks; /* 0 = now */
} mi_proc_desc;
enum { MI_PT_SYSTEM = 0, MI_PT_JSMAIN = 1, MI_PT_CI = 2, MI_PT_USER = 3, MI_PT_SON = 4 };

/* Creates a live process; returns its slot (>= 0, the entity for writes) or -1 (table full
 * or duplicate pid; users monitoring all processes get warning 20001 on the next GET). */
MI_API int mi_host_proc_create(mi_system *sys, const mi_proc_desc *d);
/* Gives live process slot a new program (FILE.GROUP.ACCOUNT parts as in mi_proc_desc) and, when
 * proc_type >= 0, a new process type: a host process that ran another executable (exec). Its
 * pid, start, user, job/session and counters stay; its row reads as changed (read-active).
 * 0, or -1 (no system, attached, not a live slot). */
MI_API int mi_host_proc_identity(mi_system *sys, int slot, const char *program, const char *group, const char *account, int proc_type);
/* Ends a live process; its counters freeze and each user monitoring it is told once. */
MI_API int mi_host_proc_exit(mi_system *sys, int slot);
/* Returns the slot of a live or dead-but-unreported pid, or -1. */
MI_API int mi_host_proc_slot(const mi_system *sys, int64_t pid);
/* Returns the number of live processes. */
MI_API int mi_host_proc_count(const mi_system *sys);
/* Returns 1 if job/session (type, num) has a live process. */
MI_API int mi_host_js_live(const mi_system *sys, int js_type, int js_num);

/* ---- counters ---- */
/* Counter indexes of every domain are below this (the catalog build checks it). */
#define MI_HOST_INDEX_BITS 10
#define MI_HOST_INDEX_LIMIT (1 << MI_HOST_INDEX_BITS)

/* A resolved counter: obtain once with mi_host_counter, then write with it.
 * id = domain << MI_HOST_INDEX_BITS | index within the domain; -1 for an unknown item. */
typedef struct mi_ctr { int32_t id; } mi_ctr;
/* Resolves a counter item (not a pseudo-item); id -1 if unknown. */
MI_API mi_ctr mi_host_counter(int32_t item);
/* Resolves a counter by name within a domain; id -1 if unknown. */
MI_API mi_ctr mi_host_counter_named(const char *name, int domain);
/* Returns 1 if anyone counts c now (a source may skip work otherwise). */
MI_API int mi_host_active(const mi_system *sys, mi_ctr c);

/* The counter store as the inline writers below read it: a view of the writer block of the
 * system's segment (see core/STORE.md, "The segment"), pointers the core sets when it maps the
 * store and keeps valid while the system lives (the block's own layout is the store's and not
 * part of this header). A system begins with its view (an ABI promise of this header), so a
 * writer reaches each array with one load. It is here for the inline writers only: a source
 * writes through them (mi_host_add, mi_host_wadd, a row handle), never by reading the view. */
typedef struct mi_host_lane {
  int64_t cells;        /* word offset of row 0 from the view's base; 0 while the domain counts nothing */
  int32_t stride;       /* words per row */
  int32_t nent;         /* rows: 1 global, 2700 process slots, LDEV 0-999, processors 0-7 */
} mi_host_lane;
typedef struct mi_host_view {
  mi_host_lane *lane;         /* per domain (MI_DOM_*), at word 0 of the block (a lane's cells count
                                 from here), the counter -> word table right after them: the
                                 inline writers reach both through this one pointer */
  int64_t *base;              /* = lane, as words */
  const int32_t *off;         /* = the table after the lanes: counter id -> word offset in its
                                 rows; -1 = nobody counts it */
  const uint8_t *live;        /* process slot -> 1 while its process is alive */
  uint64_t *mod;              /* process slot -> the read-active epoch when its row was last written */
  uint64_t *epoch;            /* read-active CHANGED: each such read takes the next epoch */
} mi_host_view;

/* How mi_host_cell_ is asked: to read (any row), to write (a live process's row only; the
 * row is marked written), to check (live only, no mark), or to write any row (a replay
 * writing a dead process's final values; marked). */
enum { MI_CELL_READ = 0, MI_CELL_WRITE = 1, MI_CELL_CHECK = 2, MI_CELL_WRITE_ANY = 3 };

/* Marks process slot `entity`'s row written now (its mark takes the CHANGED epoch), so
 * read-active's CHANGED mode looks at it again (#14): the one mark on the store's arrays,
 * behind mi_host_mark_ (the view's) and the store's own block. */
static inline void mi_host_mark_in_(uint64_t *mod, const uint64_t *epoch, int entity) {
  __atomic_store_n(&mod[entity], __atomic_load_n(epoch, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}
/* mi_host_mark_in_ on view v's arrays; the writers below do it themselves. */
static inline void mi_host_mark_(const mi_host_view *v, int entity) { mi_host_mark_in_(v->mod, v->epoch, entity); }

/* The first cell of counter c for an entity in the store's arrays given one by one (lanes
 * with the word table after them, live flags, row marks, CHANGED epoch), or NULL when c is not
 * a counter, nobody counts it or the entity is out of range; in modes MI_CELL_WRITE and
 * MI_CELL_CHECK, also NULL for a process slot that is not alive. The writing modes mark a
 * process row written. The one rule behind every writer and mi_host_value: mi_host_cell_ gives
 * it the view's arrays, the store's exported calls their block's own (fixed offsets, no loads). */
static inline int64_t *mi_host_cell_in_(mi_host_lane *lanes, const uint8_t *live, uint64_t *mod, const uint64_t *epoch,
                                        mi_ctr c, int entity, int mode) {
  if (MI_UNLIKELY((uint32_t)c.id >= (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS)) return NULL;
  int32_t o = ((const int32_t *)(const void *)(lanes + MI_DOM_COUNT))[c.id];
  int d = c.id >> MI_HOST_INDEX_BITS;
  const mi_host_lane *ln = &lanes[d];
  if (MI_UNLIKELY(o < 0 || (unsigned)entity >= (unsigned)ln->nent)) return NULL;
  if (mode != MI_CELL_READ && d == MI_DOM_PROCESS) {
    if ((mode == MI_CELL_WRITE || mode == MI_CELL_CHECK) && MI_UNLIKELY(!live[entity])) return NULL;
    if (mode == MI_CELL_WRITE || mode == MI_CELL_WRITE_ANY)
      mi_host_mark_in_(mod, epoch, entity);
  }
  int64_t *p = (int64_t *)(void *)lanes + ln->cells + (size_t)entity * (size_t)ln->stride + (size_t)o;
  if (!p) __builtin_unreachable();   /* never at address 0: a caller's NULL test folds away */
  return p;
}
/* mi_host_cell_in_ on the system's view; NULL also for a NULL system. */
static inline int64_t *mi_host_cell_(const mi_system *sys, mi_ctr c, int entity, int mode) {
  if (MI_UNLIKELY(!sys)) return NULL;
  const mi_host_view *v = (const mi_host_view *)(const void *)sys;
  return mi_host_cell_in_(v->lane, v->live, v->mod, v->epoch, c, entity, mode);
}
/* Marks process slot `entity` of sys written (for a source that writes cells it got with
 * mi_host_cell_ in MI_CELL_READ or MI_CELL_CHECK mode, e.g. only when a value changed). */
static inline void mi_host_mark(mi_system *sys, int entity) {
  if (sys && (unsigned)entity < (unsigned)MI_MAX_PROCESSES) mi_host_mark_((const mi_host_view *)(const void *)sys, entity);
}

/* Entities: MI_DOM_GLOBAL 0; process slot; LDEV 1-999; processor 0-7. */
/* Adds delta to a simple counter (time counters take ticks); inline, the hot writer.
 * Ignores a NULL system, a bad counter or entity, a counter nobody enabled and a
 * process that is not alive. Given an object- or semaphore-class counter it adds to
 * class 0 (the writer does not look up kinds; use mi_host_add_objcl/_semcl for classes). */
static inline void mi_host_add(mi_system *sys, mi_ctr c, int entity, int64_t delta) {
  int64_t *p = mi_host_cell_(sys, c, entity, 1);
  if (p) MI_CELL_PUT(p, *p + delta);
}
/* A writer handle (#17.4): one counter resolved to its row base, re-resolved only when the
 * layout generation moved (an ON, OFF or mapping change; processes coming and going move no
 * cell). For a source that adds to the same counters over and over: mi_host_wadd costs
 * independent loads from the handle instead of the view's lookup chain. Set it up with
 * mi_host_wr_init; it stays valid while its system lives. Fields are the core's. */
typedef struct mi_host_wr {
  const uint64_t *gen;          /* the system's layout generation */
  uint64_t at;                  /* the generation it was resolved at */
  int64_t *cell0;               /* the counter's cell of entity 0; unused while nent is 0 */
  const uint8_t *live;          /* a process counter's live flags (the view's); NULL in the other domains */
  int32_t stride, nent;         /* words per row; rows (0 while nobody counts it) */
  mi_ctr c;
  mi_system *sys;
  uint64_t *mod, *epoch;        /* a process counter's row marks and CHANGED epoch (the view's) */
} mi_host_wr;                   /* (what an add reads first, in its first 40 bytes) */
/* Resolves w again for its system and counter (mi_host_wadd calls it when the layout moved). */
MI_API void mi_host_wr_resolve(mi_host_wr *w);
/* Makes w a handle of counter c in sys (a NULL system or a bad counter: every add is ignored). */
static inline void mi_host_wr_init(mi_host_wr *w, mi_system *sys, mi_ctr c) {
  w->sys = sys; w->c = c; w->gen = NULL; w->at = 0; w->nent = 0; w->cell0 = NULL; w->live = NULL; w->mod = w->epoch = NULL; w->stride = 0;
  mi_host_wr_resolve(w);
}
/* mi_host_add through a handle: the same checks (counter enabled, entity in range, process
 * alive) and the same add, no allocation, search or lock. */
static inline void mi_host_wadd(mi_host_wr *w, int entity, int64_t delta) {
  if (MI_UNLIKELY(!w->gen || __atomic_load_n(w->gen, __ATOMIC_RELAXED) != w->at)) mi_host_wr_resolve(w);
  if (MI_UNLIKELY((unsigned)entity >= (unsigned)w->nent)) return;
  if (w->live) {
    if (MI_UNLIKELY(!w->live[entity])) return;
    __atomic_store_n(&w->mod[entity], __atomic_load_n(w->epoch, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  }
  int64_t *p = w->cell0 + (size_t)entity * (size_t)w->stride;
  MI_CELL_PUT(p, *p + delta);
}

/* ---- row handles: batch writers (#31.3, #28.4) ----
 * Who it is for: a program that writes several counters of one entity at a time — an embedder
 * writing a batch, the simulator's step (core/sources/sim*.c writes only this way), a host
 * source's pass over a process. mi_host_row_open does the checks once per entity and batch:
 * the entity's range, whether its domain counts anything and, for a process, its live flag and
 * its CHANGED mark for read-active (one store, at the open); each write through the handle is
 * then a table load, one test and the write. A handle holds while the layout holds (no ON, OFF
 * or mapping change): inside one write section (mi_host_begin .. mi_host_publish), or while
 * the system belongs to one thread and nothing enables counters; open it again after. Close a
 * process's row before ending the process (mi_host_proc_exit): its frozen counters are its
 * death report, and an open row would still write them. A refused row (bad domain or entity,
 * dead process, nothing counted) takes every write and ignores it, as mi_host_add does.
 * Write by counter (mi_host_row_add/_set/_max: simple counters, as mi_host_add) or by word
 * (mi_host_word once per layout generation, then mi_host_row_addw/_setw/_maxw; an object-class
 * element is its counter's word + mi_host_objcl_word). Fields are the core's. */
typedef struct mi_host_row {
  int64_t *cells;        /* the entity's row (NULL when refused) */
  const int32_t *word;   /* the domain's counter index -> word in the row, -1 nobody counts it */
  int32_t base;          /* the domain's first counter id (domain << MI_HOST_INDEX_BITS) */
  int32_t n;             /* counter indexes the handle takes: MI_HOST_INDEX_LIMIT, 0 when refused */
  int32_t words;         /* the row's words, 0 when refused: a write lands only below it */
  int32_t entity;
} mi_host_row;
/* Opens entity's row of domain (MI_DOM_*) in sys for a batch of writes; 1, or 0 when refused
 * (the handle then ignores every write). A live process's row is marked written here, once. */
static inline int mi_host_row_open(mi_system *sys, mi_host_row *r, int domain, int entity) {
  int32_t base = (int32_t)((unsigned)domain << MI_HOST_INDEX_BITS);
  const mi_host_view *v = (const mi_host_view *)(const void *)sys;
  if (sys && (unsigned)domain < (unsigned)MI_DOM_COUNT) {
    const mi_host_lane *ln = &v->lane[domain];
    int64_t cells = __atomic_load_n(&ln->cells, __ATOMIC_RELAXED);
    if (cells && (unsigned)entity < (unsigned)ln->nent &&
        (domain != MI_DOM_PROCESS || v->live[entity])) {
      if (domain == MI_DOM_PROCESS) mi_host_mark_(v, entity);
      r->cells = (int64_t *)(void *)v->lane + cells + (size_t)entity * (size_t)ln->stride;
      r->word = (const int32_t *)(const void *)(v->lane + MI_DOM_COUNT) + base;
      r->base = base; r->n = MI_HOST_INDEX_LIMIT; r->words = ln->stride; r->entity = entity;
      return 1;
    }
  }
  r->cells = NULL; r->word = NULL; r->base = base; r->n = 0; r->words = 0; r->entity = entity;
  return 0;
}
/* Ends a batch: the handle ignores writes from now on (nothing else to do: the mark was taken
 * at the open, and readers see the writes when the write section is published). */
static inline void mi_host_row_close(mi_host_row *r) { r->n = 0; r->words = 0; }
/* The word of counter c in an open row, -1 when c is not of the row's domain, nobody counts
 * it or the row was refused. */
static inline int32_t mi_host_row_word(const mi_host_row *r, mi_ctr c) {
  uint32_t i = (uint32_t)c.id - (uint32_t)r->base;
  return i < (uint32_t)r->n ? r->word[i] : -1;
}
/* Adds delta at word w of the row (w from mi_host_word or mi_host_row_word; -1 and a refused
 * row: nothing). */
static inline void mi_host_row_addw(mi_host_row *r, int32_t w, int64_t delta) {
  if ((uint32_t)w < (uint32_t)r->words) { int64_t *p = r->cells + w; MI_CELL_PUT(p, *p + delta); }
}
/* Sets word w of the row to value (stored only when it differs). */
static inline void mi_host_row_setw(mi_host_row *r, int32_t w, int64_t value) {
  if ((uint32_t)w < (uint32_t)r->words && r->cells[w] != value) MI_CELL_PUT(r->cells + w, value);
}
/* Raises word w of the row to value if larger. */
static inline void mi_host_row_maxw(mi_host_row *r, int32_t w, int64_t value) {
  if ((uint32_t)w < (uint32_t)r->words && r->cells[w] < value) MI_CELL_PUT(r->cells + w, value);
}
/* Adds delta to counter c of the open row: mi_host_add's result, without its per-add checks. */
static inline void mi_host_row_add(mi_host_row *r, mi_ctr c, int64_t delta) { mi_host_row_addw(r, mi_host_row_word(r, c), delta); }
/* Sets a level counter of the open row (simple counters, as mi_host_add). */
static inline void mi_host_row_set(mi_host_row *r, mi_ctr c, int64_t value) { mi_host_row_setw(r, mi_host_row_word(r, c), value); }
/* Raises a maximum counter of the open row to value if larger (simple counters). */
static inline void mi_host_row_max(mi_host_row *r, mi_ctr c, int64_t value) { mi_host_row_maxw(r, mi_host_row_word(r, c), value); }
/* The word of counter c in its domain's rows, -1 when nobody counts it (or sys, c are bad):
 * resolve once per layout generation (mi_host_layout_gen), write with mi_host_row_addw. */
MI_API int32_t mi_host_word(const mi_system *sys, mi_ctr c);
/* The domains that count anything now, a bit each (1 << MI_DOM_*): a row of another domain is
 * refused. */
MI_API int mi_host_domains(const mi_system *sys);

/* The same as mi_host_add as an exported function, for callers that cannot inline (FFI). */
MI_API void mi_host_add_call(mi_system *sys, mi_ctr c, int entity, int64_t delta);
/* Adds delta to element `cls` (large-map class 0-719) of an object-class counter; ignores
 * any other kind of counter and a class out of range, as mi_host_add ignores bad input. */
MI_API void mi_host_add_objcl(mi_system *sys, mi_ctr c, int entity, int cls, int64_t delta);
/* Adds delta to element `cls` (0-255) of a semaphore-class counter; ignores any other kind
 * of counter and a class out of range. */
MI_API void mi_host_add_semcl(mi_system *sys, mi_ctr c, int entity, int cls, int64_t delta);
/* Records a block on a semaphore of class cls with queue length qlen: bumps the 1-3, 4-6 or
 * 7+ bucket counter of the domain (global 21088-21090, process 25261-25263); other domains,
 * qlen < 1 and a class out of range are ignored. */
MI_API void mi_host_sem_block(mi_system *sys, int domain, int entity, int cls, int qlen);
/* Sets a level ("current") counter; simple counters only (a class counter is ignored). */
MI_API void mi_host_set(mi_system *sys, mi_ctr c, int entity, int64_t value);
/* Raises a maximum counter to value if larger; simple counters only. */
MI_API void mi_host_max(mi_system *sys, mi_ctr c, int entity, int64_t value);
/* Reads the 64-bit value of a simple counter (ticks for time counters), 0 if not counted
 * or not a simple counter (read class counters with a GET). */
MI_API int64_t mi_host_value(const mi_system *sys, mi_ctr c, int entity);

#ifdef __cplusplus
}
#endif
#endif
