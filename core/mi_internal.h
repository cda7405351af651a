/* mi_internal.h — the store, the system and the session as the core sees them.
 * Not installed; sources and readers use mi_host.h and mi.h. */
#ifndef MI_INTERNAL_H
#define MI_INTERNAL_H

#ifdef MI_SOURCE_BUILD
#error "a source (core/sources/) sees only mi_host.h and mi_source.h, never mi_internal.h"
#endif
#ifdef MI_READER_BUILD
#error "a reader above the query room (core/record/, recfile/, export/) reads the store through door 2 (mi_query.h)"
#endif

#include <stddef.h>
#include <stdint.h>
#include "mi_host.h"
#include "mi_userdef.h"
#include "mi_select.h"
#include "base/clock.h"
#include "catalog/catalog_int.h"

#define MI_PATH_MAX 4096   /* registry and share paths: a longer one is refused, never cut */
#define MI_MAX_USERS_LIMIT 64
#define MI_PROC_WORDS ((MI_MAX_PROCESSES + 63) / 64)
#define MI_LDEV_WORDS ((MI_MAX_LDEV + 1 + 63) / 64)
#define MI_PID_HASH 8192

/* Relaxed atomic access to what readers read while a writer may write it (see "Threads" in
 * core/README.md): on x86 and ARM a plain load or store, but the compiler keeps it whole. */
#define MI_LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define MI_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#define MI_CKIND_NONE 0xFF

enum { MI_PS_FREE = 0, MI_PS_ALIVE = 1, MI_PS_DEAD = 2 };

/* A process slot in the segment. Names are filename_type images kept as words so a reader
 * copies them with atomic loads. */
typedef struct mi_proc {
  int64_t pid;
  int64_t start_ticks, end_ticks;
  uint64_t user[6], program[6];   /* filename_type: file, group, account, 16 bytes each */
  uint32_t js;                    /* jsnum_type image */
  int32_t ptype;
  uint8_t state;
  uint16_t unreported;            /* users that still have to be told of the death */
  uint64_t born;                  /* birth sequence (seg births at create): read-active's order */
} mi_proc;

#define MI_EN_WORDS (MI_HOST_INDEX_LIMIT / 64)

/* An MI user (a session holding something on) as the segment keeps it. Written under the
 * writer lock only; mon, dead and untracked are also written by process births and deaths,
 * so they are read atomically. */
typedef struct mi_urec {
  int32_t used;             /* 1 while a session holds the record */
  int32_t owner_pid;        /* the process of that session, and its start time: a record whose */
  uint64_t owner_start;     /* process is gone is reclaimed by the next ON or attach */
  int32_t glob_on, proc_on, proc_all, io_on;
  int32_t proc_nitems, io_nitems, nldevs;
  int32_t untracked;        /* births missed since the last MIPROCGET (warning 20001) */
  uint16_t io_types;        /* bit t: device type t enabled */
  uint8_t udef_follow;      /* 1: a user-defined counter is enabled for this user as it is installed (a recorder's;
                               in the hole before the bitmaps, so the record keeps its size) */
  uint64_t glob_en[MI_EN_WORDS], proc_en[MI_EN_WORDS], io_en[MI_EN_WORDS];  /* bitmaps over dense items */
  int16_t proc_items[MI_HOST_INDEX_LIMIT], io_items[MI_HOST_INDEX_LIMIT];  /* dense indexes, in ON order */
  uint64_t mon[MI_PROC_WORDS];     /* monitored slots */
  uint64_t dead[MI_PROC_WORDS];    /* monitored slots whose death is not yet reported */
  uint64_t ldevs[MI_LDEV_WORDS];
  int32_t prcsr_held;       /* 1 while this user holds a reference on every processor counter (21164 on) */
  int32_t nsel;             /* MIPROCONSEL descriptors kept: births they select are monitored */
  int32_t sel_group[MI_SEL_MAX];   /* each descriptor's call (a selection is a union of calls) */
  mi_entity_desc sel[MI_SEL_MAX];
} mi_urec;

/* A domain's bookkeeping beside its public lane (blk->lane[d], blk->off). */
typedef struct mi_store {
  int32_t slot[MI_HOST_INDEX_LIMIT];   /* dense item -> allocated offset, kept while the row layout lives */
  uint16_t refs[MI_HOST_INDEX_LIMIT];  /* dense item -> number of users that enabled it */
  int32_t active;                      /* items with refs > 0 */
  int32_t used;                        /* words of each row given to counters (the lane's stride may be more) */
} mi_store;

#define MI_SEG_MAGIC "MISHSEG1"
#define MI_SEG_VERSION 10  /* 2: the user-defined counter table; 3: the owner's source name; 4: row marks for CHANGED; 5: rows with room to grow;
                              6: users that follow installs, the configuration generation; 7: the owner's flock, readers' hold-off requests;
                              8: the published copy of the global rows (mi_snap), futex handoff;
                              9: the processors the machine has beyond the MI's 8 (ncpu_all);
                              10: the published copy a ring of MI_SNAP_BUFS */
#define MI_SEG_ORDER 0x01020304u
#define MI_ARENA_FREE 512

/* A user-defined counter as the segment keeps it (store/udef.c). Entries are written once, in a
 * write section, before the count that publishes them moves; never removed. */
typedef struct mi_udef_rec {
  int32_t item, owner_pid;
  uint8_t domain, kind;
  int16_t index, elements, words;   /* dense index in its domain, array elements, cells per row */
  char name[MI_UDEF_NAME], unit[MI_UDEF_UNIT], help[MI_UDEF_HELP];
} mi_udef_rec;

/* The segment header: the part an attaching process checks before it maps the rest. */
typedef struct mi_seg_hdr {
  char magic[8];            /* MI_SEG_MAGIC */
  uint32_t version;         /* MI_SEG_VERSION */
  uint32_t order;           /* MI_SEG_ORDER as the creator stored it (byte order) */
  uint64_t size;            /* bytes of the whole segment (the file's size when shared) */
  uint32_t seg_bytes, rec_bytes, proc_bytes, blk_bytes;  /* layout sizes (word size, padding) */
  int32_t owner_pid;        /* the creating process ... */
  uint32_t closed;          /* 1 once the owner freed the system */
  uint64_t owner_start;     /* ... and its start time (clock ticks since boot) */
  uint64_t boot_id;         /* the boot it started in */
  char registry[MI_PATH_MAX]; /* the owner's user-ID registry file ("" = memory only) */
  /* the writer lock and the publish sequence, on a line of their own */
  __attribute__((aligned(64))) uint32_t lock;   /* tid of the thread in a write section, 0 = free */
  uint32_t depth;           /* nesting of that thread's write sections */
  uint64_t seq;             /* odd while a write section is open */
  uint64_t gen;             /* bumped whenever offsets, enables or the mapping change */
  uint32_t waiting;         /* thread id of one waiting for the lock (0 none): a writer lets it in first */
  uint32_t cfg_gen;         /* bumped whenever a configuration item's value changes (mi_host_config_gen) */
  uint32_t pad0_;
  uint64_t read_req;        /* 0, or when a reader last asked writers to hold off (monotonic ns; seg.c, "the
                               hold-off"): a request older than MI_READ_HOLD_NS is void */
  uint32_t hold_wait;       /* 1 while a writer sleeps (futex) on read_req's low word: a withdrawing reader wakes it */
  uint32_t snap_want;       /* publishes left that copy the global rows (mi_snap): a reader that found a section open renews it */
  char pad_[12];
} mi_seg_hdr;

/* The global rows as one publish left them (seg.c, "the published copy"): a GET that finds a
 * write section open reads the last publish here instead of waiting for the writer. */
#define MI_SNAP_WORDS 2048
/* Copies in the ring (a power of two): a reader's copy holds while the writer makes fewer than this
 * many more, so a writer that publishes every few hundred ns leaves a reader microseconds, not one
 * section, to read it (two buffers: 663 of 4,800 bench reads found theirs rewritten). */
#define MI_SNAP_BUFS 8
typedef struct mi_snap {
  uint64_t seq, gen;          /* the (even) sequence of the publish it holds, the layout generation then */
  int32_t stride, mapping;    /* words copied (0: no rows, or more than MI_SNAP_WORDS), the system mapping */
  int32_t round, round_shift; /* the rounding factor then (mi_round) */
  uint64_t round_magic;
  int64_t cells[MI_SNAP_WORDS];
} mi_snap;

/* The writer block (the store's, in the segment; writers see it through mi_host_view): the
 * lanes, the counter -> word table, process liveness and read-active's CHANGED marks. */
typedef struct mi_host_block {
  mi_host_lane lane[MI_DOM_COUNT];
  int32_t off[MI_DOM_COUNT << MI_HOST_INDEX_BITS]; /* counter id -> word offset in its rows; -1 = nobody counts it */
  uint8_t live[MI_MAX_PROCESSES];  /* process slot -> 1 while its process is alive (mirrors the process table) */
  uint64_t epoch;                  /* read-active CHANGED: each such read takes the next epoch */
  uint64_t mod[MI_MAX_PROCESSES];  /* process slot -> the epoch when its row was last written */
} mi_host_block;
/* Marks process slot e of block b written now (mi_host_mark_ on the store's own block). */
static inline void mi_blk_mark(mi_host_block *b, int e) { mi_host_mark_in_(b->mod, &b->epoch, e); }
/* Points view v at writer block b (the view's base is the block's word 0). */
_Static_assert(offsetof(mi_host_block, lane) == 0 && offsetof(mi_host_block, off) == sizeof(mi_host_lane) * MI_DOM_COUNT,
               "mi_host.h's inline writers find the word table right after the lanes, at word 0");
static inline void mi_view_set(mi_host_view *v, mi_host_block *b) {
  v->base = (int64_t *)(void *)b; v->off = b->off; v->lane = b->lane;
  v->live = b->live; v->mod = b->mod; v->epoch = &b->epoch;
}

/* The segment: every system-wide table, addressed by offsets (no pointers inside), then the
 * writer block and the arena of counter cells. */
typedef struct mi_seg {
  mi_seg_hdr h;
  /* limits (mi_system_options) */
  int32_t max_users, max_ldevs, max_ldevs_per_user, max_processes;
  int64_t max_cells;
  char source[32];                   /* the owner's source (mi_system_source_name), "" = none ("custom") */
  /* configuration */
  int32_t cfg[MI_NCONFIG];           /* I32 and boolean items */
  uint8_t allow[12], logging[8];     /* packed boolean arrays, bit 0 = MSB of byte 0 */
  char text[3][8];                   /* 3037, 3044, 3045 */
  int32_t round;                     /* item 3042, MI_Time = ticks / round */
  int32_t round_shift;
  uint64_t round_magic;              /* ticks / round as a multiply: see mi_set_round */
  /* time and hardware */
  int64_t now;
  int32_t ncpu;
  int32_t ncpu_all;                  /* the processors the machine has (0: ncpu); more than 8: MIPRCSRGET warns */
  uint8_t devtype[MI_MAX_LDEV + 1];
  /* processes */
  int32_t nproc_alive, proc_hi;
  int32_t free_lo, free_pad_;        /* no free process slot below free_lo (proc_create's search starts there) */
  uint64_t births;                   /* processes created so far (mi_proc.born) */
  int32_t pid_hash[MI_PID_HASH];     /* slot + 1, 0 empty; linear probing, backward-shift deletion */
  mi_proc procs[MI_MAX_PROCESSES];
  /* counters */
  mi_store dom[MI_DOM_COUNT];
  int32_t mapping;                   /* system mapping, -1 when nobody has anything on */
  int32_t ldevs_enabled;             /* LDEVs in the MI device table (any user) */
  int64_t cells_used;
  uint16_t ldev_refs[MI_MAX_LDEV + 1];
  /* MI users */
  mi_urec users[MI_MAX_USERS_LIMIT];
  /* user-defined counters (store/udef.c): n entries published (release store after writing them) */
  int32_t udef_n, udef_dom_n[MI_DOM_COUNT];
  mi_udef_rec udef[MI_UDEF_MAX];
  /* the arena: words after the writer block; [arena_base, arena_base + arena_top) handed out,
   * free regions listed by offset (coalesced) */
  int64_t arena_base, arena_words, arena_top;
  int32_t nfree;
  struct { int64_t off, len; } freel[MI_ARENA_FREE];
  /* the published copy of the global rows, a ring of MI_SNAP_BUFS: snap[snap_idx % MI_SNAP_BUFS] is
   * the last one made, snap_writing the one being made (a reader's copy k is good while
   * snap_writing - k < MI_SNAP_BUFS) */
  __attribute__((aligned(64))) uint32_t snap_idx, snap_writing;
  mi_snap snap[MI_SNAP_BUFS];
  /* last: the writer block; the arena's cells follow it */
  __attribute__((aligned(64))) mi_host_block blk;
} mi_seg;

/* The word offset of dense counter (domain, index) in its rows, -1 when not counted. */
#define MI_OFF(sys, d, i) ((sys)->seg->blk.off[((d) << MI_HOST_INDEX_BITS) + (i)])
/* The cells of a lane (NULL while it has none). */
#define MI_CELLS(seg, ln) ((ln)->cells ? (int64_t *)(void *)&(seg)->blk + (ln)->cells : (int64_t *)NULL)

/* A read-only session's own tracking of the processes it monitors (#27.8; query.c): the owner
 * keeps no record of such a reader, so births and deaths are found by the birth sequence `born`
 * of each slot. view: what the read in progress found, taken once that read proved consistent. */
typedef struct mi_ro_track {
  uint64_t births;                   /* the store's births at the last read taken: a live process born later is new */
  uint64_t born[MI_MAX_PROCESSES];   /* slot -> born of the process followed there (its mon bit set) */
  uint64_t vbirths, vmon[MI_PROC_WORDS], vdead[MI_PROC_WORDS], vborn[MI_MAX_PROCESSES];
} mi_ro_track;

struct mi_session {
  mi_system *sys;
  mi_session *next, *prev;  /* all sessions of the system */
  int slot;                 /* index in seg->users, -1 while the session holds nothing */
  int priv;
  int32_t access_uid;       /* set by AIFACCESSON */
  int32_t ok_uid;           /* last user_id validated against the registry */
  mi_urec *u;               /* seg->users[slot], or `local` (all zero) while holding no slot */
  /* MIGLOBGET plan cache: the last list resolved, valid while seg gen and the mapping hold */
  struct mi_glob_cache *gcache;
  struct mi_ra *ra;         /* read-active state (select.c), NULL until the first MIREADACTIVE */
  mi_ro_track *ro;          /* read-only system: the processes it follows (NULL until its first MIPROCON) */
  uint64_t lgen;            /* read-only system: bumped when its own enable set changes (its plans re-resolve;
                               a read-write session bumps the segment's gen instead) */
  mi_urec local;            /* read-only system: the session's MI-user record, kept here, never in the store */
};

/* What the reads of one process did beyond their first gather, for `make bench` (#31.2): counted
 * off the hot path with relaxed loads and stores (threads of one process may lose a count). */
typedef struct mi_read_figs {
  uint64_t retries;      /* gathers that saw a publish (or a torn layout) and were repeated */
  uint64_t copy_torn;    /* reads of the published copy that the writer rewrote meanwhile */
  uint64_t copy_old;     /* looks at the copy that found it not the last publish (or another plan) */
  uint64_t waits;        /* waits for an open section's publish (mi_read_wait) */
  uint64_t sleeps;       /* of those, futex sleeps that slept (not refused at once) */
} mi_read_figs;

/* Adds one to a figure (relaxed: no data race, a lost count at worst). */
#define MI_FIG(x) MI_ST((x), MI_LD(x) + 1)

/* A system as one process sees it: the view (first), its mapping of the segment, and what
 * stays per process (options, registry, source, sessions). */
struct mi_system {
  mi_host_view view;                 /* first: the inline writer in mi_host.h reads it here */
  mi_seg *seg;
  size_t map_size;
  int shared, attached;              /* in a file; attached to another process's store */
  int readonly;                      /* attached read-only (#27.8): mapped PROT_READ, nothing here writes the store */
  mi_host_block *ro_blk;             /* read-only: the writer block the view points at (nothing counted: every
                                      * inline writer does nothing); readers read seg->blk */
  int broken;                        /* sticky: MI_E_STORE_OWNER_GONE or _TRUNCATED once seen, else 0 */
  int store_fd;                      /* shared or attached: the store file, open for life (-1 none); the
                                      * owner holds an exclusive flock on it: a live store is a locked one */
  uint64_t store_dev, store_ino;     /* that file's identity: the owner removes its path at free only while
                                      * the path still names it */
  int64_t reserved;                  /* owner: bytes of the file given disk blocks (a full disk is -20004, not SIGBUS) */
  int bus_slot;                      /* shared: its entry in the SIGBUS guard (seg.c), -1 none */
  int64_t next_check_ms;             /* attached: next owner liveness check (monotonic) */
  int owner_pidfd;                   /* attached: a pidfd of the owner, opened before its start time was checked
                                      * (its liveness is a poll, not a read of /proc), -1 if none */
  uint64_t snap_seq;                 /* an open section's sequence a GET found ... */
  int64_t snap_ms;                   /* ... and since when (monotonic ms): one that stood MI_READ_WAIT_MS gets no
                                      * copy of the last publish (query.c, glob_snap; both atomic) */
  uint64_t snap_reads;               /* GETs this process served from that copy (relaxed, as mi_read_figs; tests and figures) */
  mi_read_figs rf;                   /* what this process's reads did beyond one gather (figures: make bench) */
  char share_path[MI_PATH_MAX];
  mi_system_options opt;
  char registry_path[MI_PATH_MAX];
  int32_t *uids; int nuids, cuids;   /* installed user IDs, sorted */
  char registry_err[128];            /* why the registry file was last found unusable, "" if not */
  mi_session *sessions;              /* every session, freed with the system */
  mi_session *collector;             /* owner: the standing MI user of mi_system_collect, NULL if none */
  uint8_t ckind[MI_DOM_COUNT << MI_HOST_INDEX_BITS]; /* counter id -> MI_KIND_*, MI_CKIND_NONE if none (per process: the catalog's) */
  /* source */
  mi_refresh_fn refresh; void *refresh_arg; void (*refresh_fini)(void *);
  const struct mi_source_ops *source_ops;   /* the ops table installed with mi_source_attach, or NULL */
  int in_refresh;
  int want_dom;                      /* bit d: an ON of domain d is under way (mi_host_wants); atomic */
  int read_dom;                      /* bit d: a read of domain d asked for this refresh (mi_host_reading); atomic */
  struct mi_publisher *pub;          /* mi_system_publish_every's thread, or NULL */
  /* user-defined counters as this process sees them (catalog entries into the segment's texts) */
  int udef_seen;                     /* entries of seg->udef built into udef_info (atomic) */
  int udef_busy;                     /* a thread is building them (spin flag) */
  mi_udef_info udef_info[MI_UDEF_MAX];
};

/* The value of a user-defined counter's cells c at time now (ticks): part 0 = the count or the
 * busy time, part 1 = QBUSY's queue integral. A level held since `since` adds its time; a
 * product beyond 64 bits saturates. */
static inline int64_t mi_udef_level_value(const int64_t *c, int kind, int64_t now, int part) {
  if (kind == MI_UDEF_ACCUM || kind == MI_UDEF_FACCUM) return MI_LD(c[part]);
  int w = kind == MI_UDEF_QBUSY ? 4 : 3;
  int64_t acc = MI_LD(c[part]), lvl = MI_LD(c[w - 2]), since = MI_LD(c[w - 1]), add, sum;
  if (since <= 0 || now <= since || lvl <= 0) return acc;
  int busy = kind == MI_UDEF_BUSY || (kind == MI_UDEF_QBUSY && part == 0);
  if (__builtin_mul_overflow(busy ? 1 : lvl, now - since, &add)) add = INT64_MAX;
  return __builtin_add_overflow(acc, add, &sum) ? INT64_MAX : sum;
}

/* udef.c: 1 if table entry k of a segment is well formed (a store file is input). */
int mi_udef_rec_ok(const mi_udef_rec *r, int k);
/* udef.c: brings sys->udef_info up to the segment's table (cheap when nothing was installed). */
void mi_udef_sync(mi_system *sys);
/* Cells per row of dense counter (d, i): the catalog's, or a user-defined counter's. */
int mi_counter_words(mi_system *sys, int d, int i, int mapping);
/* The catalog entry of item num for sys (built-in or user-defined), without the init check. */
static inline const mi_item_info *mi_sys_item_fast(mi_system *sys, int32_t num) {
  if ((uint32_t)num - MI_UDEF_FIRST < MI_UDEF_MAX) {
    int k = num - MI_UDEF_FIRST;
    if (k >= __atomic_load_n(&sys->udef_seen, __ATOMIC_ACQUIRE)) mi_udef_sync(sys);
    return k < __atomic_load_n(&sys->udef_seen, __ATOMIC_ACQUIRE) ? &sys->udef_info[k].item : 0;
  }
  return mi_item_fast(num);
}

/* Sets the MI rounding factor and its reciprocal: for 0 <= v < 2^63,
 * v / r == (v * magic) >> shift with magic = ceil(2^(63+k) / r), k = ceil(log2 r)
 * (Granlund-Montgomery: the error magic*r - 2^(63+k) < r <= 2^k keeps every quotient exact). */
static inline void mi_set_round(mi_seg *g, int32_t r) {
  if (r < 1) r = 1;
  int k = 0;
  while (((int64_t)1 << k) < r) k++;
  unsigned __int128 p = (unsigned __int128)1 << (63 + k);
  MI_ST(g->round, r);
  MI_ST(g->round_magic, (uint64_t)((p + (unsigned)r - 1) / (unsigned)r));
  MI_ST(g->round_shift, 63 + k);
}

/* The rounding factor as one GET reads it (once, so every value of the GET uses the same). */
typedef struct mi_round { int64_t r; uint64_t magic; int shift; } mi_round;
static inline mi_round mi_round_of(const mi_seg *g) {
  mi_round r = {MI_LD(g->round), MI_LD(g->round_magic), MI_LD(g->round_shift)};
  if (r.r < 1) r.r = 1;
  if (r.shift < 0 || r.shift > 126) r.shift = 63;   /* only a torn read: the GET is repeated */
  return r;
}
/* ticks -> MI_Time (floor division by the rounding factor), without a divide instruction. */
static inline int64_t mi_round_div(const mi_round *r, int64_t v) {
  if (v < 0) {   /* in unsigned arithmetic: an attached store's cell may hold INT64_MIN */
    uint64_t q = ((0 - (uint64_t)v) + (uint64_t)r->r - 1) / (uint64_t)r->r;
    return (int64_t)(0 - q);
  }
  return (int64_t)(((unsigned __int128)(uint64_t)v * r->magic) >> r->shift);
}
/* ticks -> MI_Time for a system. */
static inline int64_t mi_round_ticks(const mi_system *sys, int64_t v) {
  mi_round r = mi_round_of(sys->seg);
  return mi_round_div(&r, v);
}

/* seg.c: the segment, the writer lock (write sections) and the publish sequence (seqlock) */
mi_seg *mi_seg_new(mi_system *sys, const char *share, int64_t max_cells);  /* maps sys->seg; NULL + errno */
void mi_seg_free(mi_system *sys);
void mi_wlock(mi_system *sys);        /* opens a write section (nests in the same thread) */
int mi_wtrylock(mi_system *sys);      /* the same if free or already ours: 1, else 0 */
void mi_wunlock(mi_system *sys);      /* closes it; the outermost close publishes */
int mi_wheld(const mi_system *sys);   /* 1 if this thread is in a write section of sys */
int mi_writer_stopped(const mi_system *sys);   /* 1 if the thread in the open section is stopped (or cannot
                                                  be told), 0 if it runs, waits for a CPU or sleeps */
int mi_read_begin(mi_system *sys, uint64_t *q);   /* waits briefly for a published state: 1 and its sequence, or 0 */
int mi_read_valid(mi_system *sys, uint64_t q);    /* 1 if nothing was published since q */
const mi_snap *mi_snap_begin(mi_system *sys, uint32_t *k);  /* the last copy of the global rows (renews the readers'
                                                               interest) and its index k for mi_snap_valid */
int mi_snap_valid(mi_system *sys, uint32_t k);    /* 1 if copy k was not rewritten while read (and the file is whole) */
uint64_t mi_read_hold(mi_system *sys, uint64_t mine); /* 0: a starving reader asks writers to hold off (its
                                                         request returned); a request: withdraws it if it stands */
int mi_read_try(mi_system *sys, uint64_t *q);     /* one look: 1 and the sequence if a state is published (no wait), else 0 */
int mi_read_wait(mi_system *sys, uint64_t *q, uint64_t *req);  /* a reader that missed: posts (or renews) its hold-off
                                                         request *req and waits (spin, then futex) for the open section's
                                                         publish: 1 and its sequence, or 0 after ~1 ms (caller re-checks) */
int mi_owner_check(mi_system *sys);   /* shared: 0, or the sticky broken status (owner gone, file truncated) */
int mi_wlock_bounded(mi_system *sys); /* mi_wlock that gives up on a shared store held too long: 0 or -32006
                                         (-32008 on a read-only attach: it never writes) */
int mi_user_section(mi_system *sys);  /* opens a section for MI-user bookkeeping: a write section, or on a
                                         read-only attach (private bookkeeping) only the owner check; 0 or a status */
void mi_user_section_end(mi_system *sys);   /* closes it */
int mi_read_stalled(mi_system *sys, int64_t k[3]); /* a reader that keeps missing publishes: 1 once it must give
                                         up (-32006: seq odd and still 60 ms, or 2 s in all); k zeroed first */
int mi_seg_reserve(mi_system *sys, int64_t end_word);   /* owner: disk blocks for the arena up to end_word; 0 or -1 */
uint64_t mi_proc_start_time(int64_t pid);   /* clock ticks since boot, 0 if unknown */
uint64_t mi_boot_id(void);
int mi_pid_alive(int64_t pid, uint64_t start);   /* 1 if pid runs and started at start */

/* store.c */
int mi_store_enable(mi_system *sys, int domain, int index);   /* 0 or -20004 */
int mi_store_reserve(mi_system *sys, int domain, int64_t words);   /* room for words more per row in one regrowth:
                                                         0, or -1 when the cell limit or the arena has none */
void mi_store_disable(mi_system *sys, int domain, int index);
void mi_store_reset_if_idle(mi_system *sys);
void mi_proc_release_user(mi_system *sys, mi_session *s, int slot);
void mi_proc_reported(mi_system *sys, int slot);
void mi_sys_refresh(mi_system *sys);
void mi_sys_refresh_for(mi_system *sys, int domain);   /* the same, telling the source an ON of domain follows */
void mi_sys_refresh_read(mi_system *sys, int domain);  /* the same, telling the source a read of domain follows */
void mi_sys_hold(mi_system *sys, int domains);         /* one refresh for reads of several domains (bits), the reads after refreshing nothing */
void mi_sys_release(mi_system *sys);                   /* ends mi_sys_hold on this thread */

/* store/users.c: the MI-user records; what the AIF room does for the store, installed by it
 * (the store never calls upward: core/README.md "Rooms") */
typedef struct mi_store_upcalls {
  void (*session_free)(mi_session *s);        /* frees an open session of a system being freed */
  int (*user_off)(mi_system *sys, int slot);  /* turns off all a dead reader's record had on; 0 or -1 */
} mi_store_upcalls;
/* Installs the AIF room's hooks (once, before main). */
void mi_store_set_upcalls(const mi_store_upcalls *u);
/* Frees every session still open on sys (through the hook; none without AIFs). */
void mi_store_free_sessions(mi_system *sys);
/* Frees the MI-user records whose process is gone (bounded wait; busy: left for the next one). */
void mi_reclaim_users(mi_system *sys);
/* Removes LDEV ldev from user record u's set (in a write section). */
void mi_user_drop_ldev(mi_seg *g, mi_urec *u, int ldev);
/* An LDEV was removed or changed type (in a write section): it leaves every user's set. */
void mi_io_forget_ldev(mi_system *sys, int ldev);

/* session.c, aif.c, defsys.c */
int mi_enter(mi_session *s, int32_t user_id);
int mi_user_take(mi_session *s);
void mi_user_release_if_idle(mi_session *s);
/* Enables the counter just installed (domain d, dense index) for every user that follows installs;
 * in a write section. */
void mi_udef_follow_installed(mi_system *sys, int d, int index);
void mi_globoff_all(mi_session *s);
void mi_glob_cache_free(struct mi_glob_cache *c);
void mi_procoff_all(mi_session *s);
void mi_iooff_all(mi_session *s);
void mi_default_forget(mi_system *sys);   /* defsys.c: sys is being freed; it is no longer the default */

/* query.c: a read-only session's processes (mi_ro_track) */
void mi_ro_view(mi_session *s, const mi_seg *g);   /* inside a read: the processes it monitors now, into the view */
void mi_ro_take(mi_session *s, const uint64_t *told);  /* after a consistent read: the view becomes the tracking,
                                                          less the deaths told */
void mi_ro_follow(mi_session *s, int slot);        /* follows the process in slot from now (an ON) */

/* select.c */
/* Reads process slot p's identity for the matcher (atomic loads; a seqlock read discards a race). */
void mi_sel_info_of(const mi_proc *p, mi_entity_info *e);
int mi_sel_birth(const mi_urec *u, const mi_proc *p);   /* 1 if u's selection takes a process born now */
void mi_ra_free(struct mi_ra *ra);

/* registry.c */
int mi_registry_load(mi_system *sys);
int mi_registry_has(mi_system *sys, int32_t uid);
int mi_registry_add(mi_system *sys, int32_t uid);
const char *mi_registry_error(const mi_system *sys);   /* the registry file's problem, or NULL */

/* store/config.c: the configuration cells */
void mi_config_defaults(mi_system *sys);
/* The mask bytes of item 3015 or 3016 (size in *nbytes). */
uint8_t *mi_config_mask(mi_system *sys, int32_t item, int *nbytes);
/* The 8-byte text of item 3037, 3044 or 3045, NULL for another item. */
char *mi_config_text(mi_system *sys, int32_t item);
/* Notes that a configuration value changed (in a write section): sources re-read it. */
void mi_config_changed(mi_seg *g);

/* time helpers: base/clock.h (the leaf) */

/* Counts a zero-terminated item list within MI_MAX_ITEMS; -1 if unterminated (-115). */
static inline int mi_list_len(const int32_t *nums) {
  for (int i = 0; i < MI_MAX_ITEMS; i++)
    if (nums[i] == 0) return i;
  return -1;
}

static inline int mi_bit(const uint64_t *w, int i) { return (int)((w[i >> 6] >> (i & 63)) & 1); }
static inline void mi_bit_set(uint64_t *w, int i) { w[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void mi_bit_clr(uint64_t *w, int i) { w[i >> 6] &= ~((uint64_t)1 << (i & 63)); }
/* The same on words readers load atomically (monitored and dead process sets). */
static inline int mi_abit(const uint64_t *w, int i) { return (int)((MI_LD(w[i >> 6]) >> (i & 63)) & 1); }
static inline void mi_abit_set(uint64_t *w, int i) { __atomic_fetch_or(&w[i >> 6], (uint64_t)1 << (i & 63), __ATOMIC_RELAXED); }
static inline void mi_abit_clr(uint64_t *w, int i) { __atomic_fetch_and(&w[i >> 6], ~((uint64_t)1 << (i & 63)), __ATOMIC_RELAXED); }

#define MI_STATUS(st, code) mi_set_status((st), (code))
static inline void mi_set_status(status_type *st, int code) {
  if (!st) return;
  if (code == 0) { st->all = 0; return; }
  st->s.info = (int16_t)code;
  st->s.subsys = MI_SUBSYS;
}

#endif
