/* fuzz_pool.c — systems made once per worker and reset between inputs, linked into every
 * harness with -Wl,--wrap=mi_system_new,--wrap=mi_system_free (Makefile). A fresh system costs
 * about 5 ms under the sanitizers on this machine (the 1.2 MB segment header, the system and its
 * sessions are new memory: one page fault per page), which held the harnesses to 4-450 inputs a
 * second. The wrappers keep each private system the core frees, reset: its sessions are freed and
 * its source finished as mi_system_free does, then its segment header and its mi_system are
 * copied back from a snapshot taken when it was new and the cells it handed out are zeroed. The
 * next mi_system_new with the same max_cells and boot_ticks takes it and applies the other
 * options as mi_system_new does. A self-check at the first call compares pooled systems (fresh,
 * and reset after use) with systems made by the real mi_system_new, byte for byte, and aborts if
 * they differ: a change to mi_system_new or mi_system_free that the pool does not follow fails
 * every harness at once instead of fuzzing a system the core would never make.
 * Shared stores (opt->share), attached systems and too-long paths go to the real functions. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi_internal.h"

mi_system *__real_mi_system_new(const mi_system_options *opt);
void __real_mi_system_free(mi_system *sys);
mi_system *__wrap_mi_system_new(const mi_system_options *opt);
void __wrap_mi_system_free(mi_system *sys);

#define POOL 8
typedef struct pooled {
  mi_system *sys;         /* NULL: an empty place */
  int in_use;
  int64_t cells, boot;    /* the key: max_cells and boot_ticks as asked */
  mi_system *snap_sys;    /* the system as new (pointers into its own segment) */
  uint8_t *snap_seg;      /* the segment header (sizeof(mi_seg)) as new */
  int32_t *snap_uids;     /* the installed IDs as new (copied: the core reallocates them) */
  unsigned long used;     /* for least-recently-used eviction */
  size_t zeroed;          /* bytes of cells the last reset zeroed (the self-check reads them) */
} pooled;
static pooled pool[POOL];
static unsigned long clock_;
static int checked;

static void self_check(void);

/* The entry holding sys, or NULL. */
static pooled *find(const mi_system *sys) {
  for (int i = 0; i < POOL; i++) if (pool[i].sys && pool[i].sys == sys) return &pool[i];
  return NULL;
}

/* Applies the options a pooled system was not made with, as mi_system_new does. */
static void apply(mi_system *sys, const mi_system_options *opt) {
  mi_seg *g = sys->seg;
  if (opt) {
    if (opt->max_users > 0) sys->opt.max_users = opt->max_users < MI_MAX_USERS_LIMIT ? opt->max_users : MI_MAX_USERS_LIMIT;
    if (opt->max_ldevs > 0) sys->opt.max_ldevs = opt->max_ldevs;
    if (opt->max_ldevs_per_user > 0) sys->opt.max_ldevs_per_user = opt->max_ldevs_per_user;
    if (opt->max_processes > 0 && opt->max_processes < MI_MAX_PROCESSES) sys->opt.max_processes = opt->max_processes;
    if (opt->registry) strncpy(sys->registry_path, opt->registry, sizeof sys->registry_path - 1);
  }
  sys->opt.registry = sys->registry_path[0] ? sys->registry_path : NULL;
  g->max_users = sys->opt.max_users;
  g->max_ldevs = sys->opt.max_ldevs;
  g->max_ldevs_per_user = sys->opt.max_ldevs_per_user;
  g->max_processes = sys->opt.max_processes;
  memcpy(g->h.registry, sys->registry_path, sizeof g->h.registry);
  if (sys->opt.boot_ticks <= 0) g->now = mi_wall_ticks(g->cfg[3043 - 3001]);
  if (sys->registry_path[0]) mi_registry_load(sys);
}

/* Puts a pooled system back as it was new: what mi_system_free does before unmapping, then the
 * snapshot and zeroed cells. */
static void reset(pooled *e) {
  mi_system *sys = e->sys;
  mi_system_publish_every(sys, 0);
  mi_default_forget(sys);
  while (sys->sessions) mi_session_free(sys->sessions);
  if (sys->refresh_fini) sys->refresh_fini(sys->refresh_arg);
  free(sys->uids);
  mi_seg *g = sys->seg;
  size_t top = (size_t)g->arena_top * 8, room = sys->map_size - sizeof(mi_seg);
  e->zeroed = top < room ? top : room;
  memset((uint8_t *)g + sizeof(mi_seg), 0, e->zeroed);
  memcpy(g, e->snap_seg, sizeof(mi_seg));
  memcpy(sys, e->snap_sys, sizeof *sys);
  sys->uids = NULL;
  if (e->snap_sys->uids) {
    sys->uids = malloc(sizeof(int32_t) * (size_t)(e->snap_sys->cuids ? e->snap_sys->cuids : 1));
    if (!sys->uids) abort();
    memcpy(sys->uids, e->snap_uids, sizeof(int32_t) * (size_t)e->snap_sys->nuids);
  }
  e->in_use = 0;
}

/* Makes a system for the pool (max_cells and boot_ticks only) and takes its snapshot; NULL if
 * the pool is full of systems in use or the core cannot make one. */
static pooled *grow(int64_t cells, int64_t boot) {
  pooled *e = NULL;
  for (int i = 0; i < POOL && !e; i++) if (!pool[i].sys) e = &pool[i];
  for (int i = 0; i < POOL; i++)   /* else the least recently used free one goes */
    if (!e && !pool[i].in_use && (!e || pool[i].used < e->used)) e = &pool[i];
  if (!e) return NULL;
  if (e->sys) {
    __real_mi_system_free(e->sys);
    free(e->snap_sys); free(e->snap_seg); free(e->snap_uids);
    memset(e, 0, sizeof *e);
  }
  mi_system *sys = __real_mi_system_new(&(mi_system_options){.max_cells = cells, .boot_ticks = boot});
  if (!sys) return NULL;
  e->snap_sys = malloc(sizeof *sys);
  e->snap_seg = malloc(sizeof(mi_seg));
  e->snap_uids = malloc(sizeof(int32_t) * (size_t)(sys->nuids + 1));
  if (!e->snap_sys || !e->snap_seg || !e->snap_uids) abort();
  memcpy(e->snap_sys, sys, sizeof *sys);
  memcpy(e->snap_seg, sys->seg, sizeof(mi_seg));
  if (sys->nuids) memcpy(e->snap_uids, sys->uids, sizeof(int32_t) * (size_t)sys->nuids);
  e->sys = sys;
  e->cells = cells;
  e->boot = boot;
  return e;
}

/* mi_system_new: a pooled system when the options allow it, else the core's. */
mi_system *__wrap_mi_system_new(const mi_system_options *opt) {
  if (!checked) { checked = 1; self_check(); }
  if (opt && (opt->share || (opt->registry && strlen(opt->registry) >= MI_PATH_MAX))) return __real_mi_system_new(opt);
  int64_t cells = opt ? opt->max_cells : 0, boot = opt ? opt->boot_ticks : 0;
  if (cells < 0) cells = 0;
  if (boot < 0) boot = 0;
  pooled *e = NULL;
  for (int i = 0; i < POOL && !e; i++)
    if (pool[i].sys && !pool[i].in_use && pool[i].cells == cells && pool[i].boot == boot) e = &pool[i];
  if (!e) e = grow(cells, boot);
  if (!e) return __real_mi_system_new(opt);
  e->in_use = 1;
  e->used = ++clock_;
  apply(e->sys, opt);
  return e->sys;
}

/* mi_system_free: a pooled system is reset for the next input, any other freed. */
void __wrap_mi_system_free(mi_system *sys) {
  pooled *e = sys ? find(sys) : NULL;
  if (e && e->in_use) reset(e);
  else if (!e) __real_mi_system_free(sys);
}

/* ---- large blocks ---- */
/* The simulator's model is one 650 KB aligned_alloc per system, the Linux source's state one
 * 228 KB calloc, and fz_alloc (fuzz_common.h) takes GET buffers of 64 KB and more the same way. ASan serves blocks that large with a fresh
 * mapping each time (a page fault per page, a TLB flush at unmap): 30% of fuzz_workload's time. The wrappers keep up to BLOCKS such blocks when they are freed and
 * hand them out again for the same size, poisoned in between, so a use after free still
 * reports (use-after-poison). Other frees go to the allocator. */
void *__real_aligned_alloc(size_t align, size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_aligned_alloc(size_t align, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
void __asan_poison_memory_region(const volatile void *addr, size_t size);
void __asan_unpoison_memory_region(const volatile void *addr, size_t size);

#define BLOCKS 8
#define BLOCK_MIN (64 * 1024)
static struct { void *p; size_t align, size; int in_use; } blocks[BLOCKS];

/* aligned_alloc: a kept block of that size if one is free, else the allocator's (kept if there
 * is room). */
void *__wrap_aligned_alloc(size_t align, size_t size) {
  if (size < BLOCK_MIN) return __real_aligned_alloc(align, size);
  for (int i = 0; i < BLOCKS; i++)
    if (blocks[i].p && !blocks[i].in_use && blocks[i].align == align && blocks[i].size == size) {
      __asan_unpoison_memory_region(blocks[i].p, size);
      blocks[i].in_use = 1;
      return blocks[i].p;
    }
  void *p = __real_aligned_alloc(align, size);
  for (int i = 0; i < BLOCKS && p; i++)
    if (!blocks[i].p) { blocks[i].p = p; blocks[i].align = align; blocks[i].size = size; blocks[i].in_use = 1; break; }
  return p;
}

/* calloc: the same for blocks of BLOCK_MIN bytes and more (Linux source's 228 KB host state);
 * a kept block is zeroed as calloc promises. */
void *__wrap_calloc(size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes) || bytes < BLOCK_MIN) return __real_calloc(n, size);
  for (int i = 0; i < BLOCKS; i++)
    if (blocks[i].p && !blocks[i].in_use && blocks[i].align == 0 && blocks[i].size == bytes) {
      __asan_unpoison_memory_region(blocks[i].p, bytes);
      memset(blocks[i].p, 0, bytes);
      blocks[i].in_use = 1;
      return blocks[i].p;
    }
  void *p = __real_calloc(n, size);
  for (int i = 0; i < BLOCKS && p; i++)
    if (!blocks[i].p) { blocks[i].p = p; blocks[i].align = 0; blocks[i].size = bytes; blocks[i].in_use = 1; break; }
  return p;
}

/* A harness's own large blocks (fuzz_keep.h: attach, export), weak: NULL in the others. Each
 * returns 1 if it did the free or realloc (a block of its own, or a large realloc from NULL). */
int fz_own_free(void *p) __attribute__((weak));
int fz_own_realloc(void *p, size_t size, void **out) __attribute__((weak));

/* realloc: a kept block given to realloc leaves the cache (the allocator frees or moves it). */
void *__wrap_realloc(void *p, size_t size) {
  void *q;
  if (fz_own_realloc && fz_own_realloc(p, size, &q)) return q;
  if (p)
    for (int i = 0; i < BLOCKS; i++)
      if (blocks[i].p == p) {
        if (!blocks[i].in_use) { fprintf(stderr, "fuzz_pool: realloc of a freed %zu-byte block\n", blocks[i].size); abort(); }
        memset(&blocks[i], 0, sizeof blocks[i]);
        break;
      }
  return __real_realloc(p, size);
}

/* free: a kept block is poisoned until it is handed out again; anything else is freed. */
void __wrap_free(void *p) {
  if (p && fz_own_free && fz_own_free(p)) return;
  if (p)
    for (int i = 0; i < BLOCKS; i++)
      if (blocks[i].p == p) {
        if (!blocks[i].in_use) { fprintf(stderr, "fuzz_pool: double free of a %zu-byte block\n", blocks[i].size); abort(); }
        blocks[i].in_use = 0;
        __asan_poison_memory_region(p, blocks[i].size);
        return;
      }
  __real_free(p);
}

/* ASan's defaults for the harnesses (ASAN_OPTIONS still overrides them): a 16 MB quarantine
 * instead of 256 MB. Freed memory still waits 16 MB of allocations before it is reused (an input
 * allocates a few MB at most, so a use after free within an input is still caught), and the
 * allocator recycles pages it has already faulted in: aif ran 800 inputs per CPU second with
 * the default, 1,350 with this. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=16"; }

/* ---- the self-check ---- */

/* 1 if the n bytes at p are all zero. */
static int all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) if (p[i]) return 0;
  return 1;
}

/* Aborts with a message if a pooled system p differs from the real system r. */
static void same(const mi_system *p, const mi_system *r, const char *what) {
  const char *bad = NULL;
  mi_system pc = *p;   /* the pooled system with the real one's addresses */
  pc.seg = r->seg;
  pc.view = r->view;
  pc.uids = r->uids;
  if (p->opt.registry == p->registry_path) pc.opt.registry = r->registry_path;
  if (p->map_size != r->map_size) bad = "map size";
  else if (memcmp(p->seg, r->seg, sizeof(mi_seg)) != 0) {
    static char where[64];
    size_t i = 0;
    while (((const uint8_t *)p->seg)[i] == ((const uint8_t *)r->seg)[i]) i++;
    snprintf(where, sizeof where, "segment header (byte %zu)", i);
    bad = where;
  } else if (memcmp(&pc, r, sizeof pc) != 0) {
    static char where[64];
    size_t i = 0;
    while (((const uint8_t *)&pc)[i] == ((const uint8_t *)r)[i]) i++;
    snprintf(where, sizeof where, "struct mi_system (byte %zu)", i);
    bad = where;
  }
  else if (find(p) && !all_zero((const uint8_t *)p->seg + sizeof(mi_seg), find(p)->zeroed)) bad = "cells";
  else if (p->nuids != r->nuids || (p->nuids && memcmp(p->uids, r->uids, sizeof(int32_t) * (size_t)p->nuids)))
    bad = "installed IDs";
  if (!bad) return;
  fprintf(stderr, "fuzz_pool: a pooled system (%s) differs from mi_system_new's in its %s: "
                  "update spec/fuzz/fuzz_pool.c to follow mi_system_new/mi_system_free\n", what, bad);
  abort();
}

/* Uses a system the way the harnesses do: sessions, ONs, processes, devices, a PUT, installs. */
static void use(mi_system *sys) {
  mi_host_set_cpus(sys, 3);
  mi_host_set_device(sys, 1, 1);
  mi_proc_desc d = {.pid = 7, .program = "P"};
  int slot = mi_host_proc_create(sys, &d);
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  int32_t nums[] = {21001, 23048, 25167, 0}, stats[4], mapping = 1, ldev = -1;
  mi_globinstall(s, &st, 777);
  mi_globon(s, &st, nums, stats, &mapping, 777);
  mi_procon(s, &st, nums + 2, stats, &mapping, NULL, 777);
  mi_ioon(s, &st, nums + 1, stats, &mapping, &ldev, 777);
  mi_host_add(sys, mi_host_counter(25167), slot, 5);
  mi_host_advance(sys, 1000);
  mi_host_proc_exit(sys, slot);
  int32_t put[] = {3005, 0}, v = 3, *vp = &v;
  void *items[] = {vp};
  mi_scput(s, &st, put, items, stats, 777, NULL, NULL, NULL);
}

/* Removes a directory and the files in it (the registry and its lock). */
static void rm_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[256];
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { snprintf(p, sizeof p, "%s/%s", dir, e->d_name); unlink(p); }
  if (d) closedir(d);
  rmdir(dir);
}

static void self_check(void) {
  char dir[64], reg[96];
  snprintf(dir, sizeof dir, "%s/mi-fuzz-pool-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  if (!mkdtemp(dir)) abort();
  snprintf(reg, sizeof reg, "%s/reg", dir);
  const int64_t boot = (int64_t)1700000000 * 1000 * 8000;
  const mi_system_options opts[] = {
    {.boot_ticks = boot},
    {.max_users = 2, .max_cells = 5000, .max_ldevs = 5, .max_ldevs_per_user = 3, .max_processes = 7, .boot_ticks = boot},
    {.max_users = 99, .max_processes = 99999, .registry = reg, .boot_ticks = boot},
  };
  for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
    for (int round = 0; round < 2; round++) {   /* fresh from the pool, then reset after use */
      unlink(reg);
      mi_system *p = __wrap_mi_system_new(&opts[k]);
      unlink(reg);
      mi_system *r = __real_mi_system_new(&opts[k]);
      if (!p || !r || !find(p)) { fprintf(stderr, "fuzz_pool: no system\n"); abort(); }
      same(p, r, round ? "reset after use" : "new");
      use(p);
      if (!p->seg->arena_top) { fprintf(stderr, "fuzz_pool: the self-check's use() took no cells\n"); abort(); }
      __wrap_mi_system_free(p);
      __real_mi_system_free(r);
    }
  }
  rm_dir(dir);
}
