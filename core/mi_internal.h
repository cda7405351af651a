/* mi_internal.h — the store, the system and the session as the core sees them.
 * Not installed; sources and readers use mi_host.h and mi.h. */
#ifndef MI_INTERNAL_H
#define MI_INTERNAL_H

#ifdef MI_SOURCE_BUILD
#error "a source (core/sources/) sees only mi_host.h and mi_source.h, never mi_internal.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include "mi_host.h"

#define MI_NCONFIG 46
#define MI_NSEMCL 256
#define MI_NLARGE 720
#define MI_MAX_USERS_LIMIT 64
#define MI_PROC_WORDS ((MI_MAX_PROCESSES + 63) / 64)
#define MI_LDEV_WORDS ((MI_MAX_LDEV + 1 + 63) / 64)
#define MI_PID_HASH 8192

/* generated tables (core/gen/catalog_data.c) */
extern const mi_item_info mi_items_[];
extern const int mi_nitems_;
extern const int mi_domain_counters_[MI_DOM_COUNT];
extern const char *const mi_objcl_large_names_[], *const mi_objcl_small_names_[];
extern const char *const mi_objcl_standard_names_[], *const mi_semcl_names_[];
extern const uint8_t mi_objcl_large_fold_[], mi_objcl_small_fold_[];
extern const mi_config_info mi_config_[];
extern const mi_devtype_info mi_devtypes_[];
extern const int mi_ndevtypes_;

/* Fold table: fold_[from][to][i] = class of map `to` for class i of map `from` (from <= to). */
extern uint16_t mi_fold_[3][3][MI_NLARGE];
void mi_catalog_init(void);
extern int16_t mi_by_number_[8000];
/* mi_item_lookup without the init check, for the GET path (the catalog is ready once a system exists). */
static inline const mi_item_info *mi_item_fast(int32_t item) {
  uint32_t k = (uint32_t)(item - 20000);
  int p = k < 8000 ? mi_by_number_[k] : 0;
  return p ? &mi_items_[p - 1] : 0;
}

/* Counter cells of one domain: entity-major rows of `stride` 64-bit words. */
/* A domain's bookkeeping beside its public lane (sys->view: off, live, lane[d].cells/stride/nent). */
typedef struct mi_store {
  int32_t *slot;     /* dense item -> allocated offset, kept while the row layout lives */
  uint16_t *refs;    /* dense item -> number of users that enabled it */
  int32_t active;    /* items with refs > 0 */
} mi_store;

/* The word offset of dense counter (domain, index) in its rows, -1 when not counted. */
#define MI_OFF(sys, d, i) ((sys)->view.off[((d) << MI_HOST_INDEX_BITS) + (i)])

enum { MI_PS_FREE = 0, MI_PS_ALIVE = 1, MI_PS_DEAD = 2 };

typedef struct mi_proc {
  int64_t pid;
  int64_t start_ticks, end_ticks;
  filename_type user, program;
  jsnum_type js;
  int32_t ptype;
  uint8_t state;
  uint16_t unreported;   /* users that still have to be told of the death */
} mi_proc;

typedef struct mi_bits_user { uint64_t w[MI_PROC_WORDS]; } mi_procset;

struct mi_session {
  mi_system *sys;
  mi_session *next, *prev;  /* all sessions of the system */
  int slot;                 /* index in sys->users */
  int priv;
  int32_t access_uid;       /* set by AIFACCESSON */
  int32_t ok_uid;           /* last user_id validated against the registry */
  /* global */
  int glob_on;
  uint64_t *glob_en;        /* bitmap over dense global items */
  /* process */
  int proc_on, proc_all;
  int32_t proc_nitems;
  int16_t *proc_items;      /* dense indexes, in ON order */
  uint64_t *proc_en;        /* bitmap over dense process items */
  uint64_t mon[MI_PROC_WORDS];     /* monitored slots */
  uint64_t dead[MI_PROC_WORDS];    /* monitored slots whose death is not yet reported */
  int32_t untracked;        /* births missed since the last MIPROCGET (warning 20001) */
  /* io */
  int io_on;
  int32_t io_nitems;
  int16_t *io_items;
  uint64_t *io_en;
  uint16_t io_types;        /* bit t: device type t enabled */
  uint64_t ldevs[MI_LDEV_WORDS];
  int32_t nldevs;
  /* MIGLOBGET plan cache: the last list resolved, valid while sys->gen and the mapping hold */
  struct mi_glob_cache *gcache;
};

struct mi_system {
  mi_host_view view;                 /* first: the inline writer in mi_host.h reads it here */
  mi_system_options opt;
  char registry_path[512];
  int32_t *uids; int nuids, cuids;   /* installed user IDs, sorted */
  char registry_err[128];            /* why the registry file was last found unusable, "" if not */
  /* configuration */
  int32_t cfg[MI_NCONFIG];           /* I32 and boolean items */
  uint8_t allow[12], logging[8];     /* packed boolean arrays, bit 0 = MSB of byte 0 */
  char text[3][8];                   /* 3037, 3044, 3045 */
  /* time */
  int64_t now;
  int32_t round;                     /* item 3042, MI_Time = ticks / round */
  uint64_t round_magic;              /* ticks / round as a multiply: see mi_set_round */
  int round_shift;
  /* hardware */
  int ncpu;
  uint8_t devtype[MI_MAX_LDEV + 1];
  /* processes */
  mi_proc *procs;
  int nproc_alive, proc_hi;
  int32_t pid_hash[MI_PID_HASH];     /* slot + 1, 0 empty, -1 tombstone */
  /* counters */
  mi_store dom[MI_DOM_COUNT];
  uint64_t gen;                      /* bumped whenever offsets, enables or the mapping change */
  int mapping;                       /* system mapping, -1 when nobody has anything on */
  int64_t cells_used;
  int32_t ldevs_enabled;             /* LDEVs in the MI device table (any user) */
  uint16_t ldev_refs[MI_MAX_LDEV + 1];
  /* users */
  mi_session *users[MI_MAX_USERS_LIMIT];
  mi_session *sessions;              /* every session, freed with the system */
  /* source */
  mi_refresh_fn refresh; void *refresh_arg; void (*refresh_fini)(void *);
  const struct mi_source_ops *source_ops;   /* the ops table installed with mi_source_attach, or NULL */
  int in_refresh;
};

/* Sets the MI rounding factor and its reciprocal: for 0 <= v < 2^63,
 * v / r == (v * magic) >> shift with magic = ceil(2^(63+k) / r), k = ceil(log2 r)
 * (Granlund-Montgomery: the error magic*r - 2^(63+k) < r <= 2^k keeps every quotient exact). */
static inline void mi_set_round(mi_system *sys, int32_t r) {
  if (r < 1) r = 1;
  int k = 0;
  while (((int64_t)1 << k) < r) k++;
  unsigned __int128 p = (unsigned __int128)1 << (63 + k);
  sys->round = r;
  sys->round_magic = (uint64_t)((p + (unsigned)r - 1) / (unsigned)r);
  sys->round_shift = 63 + k;
}

/* ticks -> MI_Time (floor division by the rounding factor), without a divide instruction. */
static inline int64_t mi_round_ticks(const mi_system *sys, int64_t v) {
  if (v < 0) return -((-v + sys->round - 1) / sys->round);
  return (int64_t)(((unsigned __int128)(uint64_t)v * sys->round_magic) >> sys->round_shift);
}

/* store.c */
int mi_store_enable(mi_system *sys, int domain, int index);   /* 0 or -20004 */
void mi_store_disable(mi_system *sys, int domain, int index);
void mi_store_reset_if_idle(mi_system *sys);
int mi_item_words(const mi_item_info *it, int mapping);
void mi_proc_release_user(mi_system *sys, mi_session *s, int slot);
void mi_proc_reported(mi_system *sys, int slot);
void mi_sys_refresh(mi_system *sys);

/* session.c, aif.c, defsys.c */
int mi_enter(mi_session *s, int32_t user_id);
int mi_user_take(mi_session *s);
void mi_user_release_if_idle(mi_session *s);
void mi_globoff_all(mi_session *s);
void mi_glob_cache_free(struct mi_glob_cache *c);
void mi_procoff_all(mi_session *s);
void mi_iooff_all(mi_session *s);
void mi_default_forget(mi_system *sys);   /* defsys.c: sys is being freed; it is no longer the default */

/* registry.c */
int mi_registry_load(mi_system *sys);
int mi_registry_has(mi_system *sys, int32_t uid);
int mi_registry_add(mi_system *sys, int32_t uid);
const char *mi_registry_error(const mi_system *sys);   /* the registry file's problem, or NULL */

/* config.c */
void mi_config_defaults(mi_system *sys);

/* time helpers (aiftime.c) */
int64_t mi_wall_ticks(int32_t ticks_per_ms);
void mi_ticks_to_clock(int64_t ticks, int32_t tpm, clock_type *c);
uint32_t mi_ticks_to_calendar(int64_t ticks, int32_t tpm);

/* Counts a zero-terminated item list within MI_MAX_ITEMS; -1 if unterminated (-115). */
static inline int mi_list_len(const int32_t *nums) {
  for (int i = 0; i < MI_MAX_ITEMS; i++)
    if (nums[i] == 0) return i;
  return -1;
}

static inline int mi_bit(const uint64_t *w, int i) { return (int)((w[i >> 6] >> (i & 63)) & 1); }
static inline void mi_bit_set(uint64_t *w, int i) { w[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void mi_bit_clr(uint64_t *w, int i) { w[i >> 6] &= ~((uint64_t)1 << (i & 63)); }

#define MI_STATUS(st, code) mi_set_status((st), (code))
static inline void mi_set_status(status_type *st, int code) {
  if (!st) return;
  if (code == 0) { st->all = 0; return; }
  st->s.info = (int16_t)code;
  st->s.subsys = MI_SUBSYS;
}

#endif
