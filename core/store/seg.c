/* seg.c — the store segment: one region holding every system-wide table (anonymous memory,
 * or a file other processes map), the writer lock and the publish sequence (a seqlock),
 * attaching to a shared store and checking that its owner still lives. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "mi_internal.h"

/* ThreadSanitizer does not model fences; every access it sees is atomic, so it needs none. */
#if defined(__SANITIZE_THREAD__)
#define FENCE(order) ((void)0)
#else
#define FENCE(order) __atomic_thread_fence(order)
#endif

/* A hint to the processor inside a spin loop. */
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* ---- who we are ---- */

static _Thread_local uint32_t tl_tid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child is a new thread: forget the parent's thread id. */
static void forget_tid(void) { tl_tid = 0; }
static void install_atfork(void) { pthread_atfork(NULL, NULL, forget_tid); }

/* This thread's kernel id (the lock word's value while it writes). */
static uint32_t my_tid(void) {
  if (!tl_tid) {
    pthread_once(&atfork_once, install_atfork);
    tl_tid = (uint32_t)syscall(SYS_gettid);
  }
  return tl_tid;
}

/* Monotonic milliseconds (the coarse clock: a few ms of resolution, a fraction of the cost;
 * every AIF on an attached system reads it). */
static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t mi_proc_start_time(int64_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
  if (!p) return 0;
  p++;
  for (int field = 3; field <= 22; field++) {   /* p is before field 3 (state) */
    while (*p == ' ') p++;
    if (field == 22) return strtoull(p, NULL, 10);
    while (*p && *p != ' ') p++;
  }
  return 0;
}

uint64_t mi_boot_id(void) {
  char buf[64] = {0};
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  uint64_t h = 1469598103934665603ull;   /* FNV-1a of the text */
  for (ssize_t i = 0; i < n && buf[i] != '\n'; i++) h = (h ^ (uint8_t)buf[i]) * 1099511628211ull;
  return h;
}

/* 1 if the process pid started at `start` in boot `boot` still runs. */
int mi_pid_alive(int64_t pid, uint64_t start) {
  if (pid <= 0) return 0;
  if (kill((pid_t)pid, 0) != 0 && errno != EPERM) return 0;
  return mi_proc_start_time(pid) == start;
}

/* The same, also checking the boot. */
static int alive(int64_t pid, uint64_t start, uint64_t boot) {
  if (pid <= 0) return 0;
  if (kill((pid_t)pid, 0) != 0 && errno != EPERM) return 0;
  uint64_t b = mi_boot_id();
  if (boot && b && b != boot) return 0;
  return mi_proc_start_time(pid) == start;
}

/* ---- creating and freeing ---- */

/* Sizes a segment for max_cells counter cells: the arena holds twice that (a row being
 * regrown exists twice for a moment) plus room for fragmentation. */
static size_t seg_size(int64_t max_cells, int64_t *arena_words) {
  int64_t words = 2 * max_cells + (1 << 16);
  *arena_words = words;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t n = sizeof(mi_seg) + (size_t)words * 8;
  return (n + page - 1) / page * page;
}

/* Fills a fresh (zeroed) segment's header. */
static void seg_init(mi_seg *g, size_t size, int64_t arena_words) {
  memcpy(g->h.magic, MI_SEG_MAGIC, 8);
  g->h.version = MI_SEG_VERSION;
  g->h.order = MI_SEG_ORDER;
  g->h.size = size;
  g->h.seg_bytes = (uint32_t)sizeof(mi_seg);
  g->h.rec_bytes = (uint32_t)sizeof(mi_urec);
  g->h.proc_bytes = (uint32_t)sizeof(mi_proc);
  g->h.blk_bytes = (uint32_t)sizeof(mi_host_block);
  g->h.owner_pid = (int32_t)getpid();
  g->h.owner_start = mi_proc_start_time(getpid());
  g->h.boot_id = mi_boot_id();
  g->arena_base = (int64_t)(sizeof(mi_seg) - offsetof(mi_seg, blk)) / 8;
  g->arena_words = arena_words;
}

mi_seg *mi_seg_new(mi_system *sys, const char *share, int64_t max_cells) {
  int64_t arena_words;
  size_t size = seg_size(max_cells, &arena_words);
  void *p;
  if (!share) {
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    seg_init(p, size, arena_words);
  } else {
    /* a live store at the path is not replaced */
    int err = 0;
    mi_system *other = mi_system_attach(share, &err);
    if (other) { mi_system_free(other); errno = EBUSY; return NULL; }
    char tmp[MI_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", share, (int)getpid());
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return NULL;
    if (ftruncate(fd, (off_t)size) != 0) { int e = errno; close(fd); unlink(tmp); errno = e; return NULL; }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) { unlink(tmp); errno = e; return NULL; }
    seg_init(p, size, arena_words);
    if (rename(tmp, share) != 0) { e = errno; munmap(p, size); unlink(tmp); errno = e; return NULL; }
    snprintf(sys->share_path, sizeof sys->share_path, "%s", share);
    sys->shared = 1;
  }
  sys->seg = p;
  sys->map_size = size;
  sys->view.blk = &sys->seg->blk;
  return sys->seg;
}

void mi_seg_free(mi_system *sys) {
  if (!sys->seg) return;
  if (!sys->attached) {
    /* readers of a shared store learn that it is closed */
    mi_wlock(sys);
    MI_ST(sys->seg->h.closed, 1);
    mi_wunlock(sys);
  }
  munmap(sys->seg, sys->map_size);
  sys->seg = NULL;
}

/* ---- attaching ---- */

mi_system *mi_system_attach(const char *path, int *err) {
  int e = 0;
  if (!err) err = &e;
  *err = MI_E_STORE_OPEN;
  if (!path) return NULL;
  mi_catalog_init();
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat stt;
  mi_seg_hdr h;
  if (fstat(fd, &stt) != 0) { close(fd); return NULL; }
  ssize_t n = pread(fd, &h, sizeof h, 0);
  *err = MI_E_STORE_NOT_MISH;
  if (n < 8 || memcmp(h.magic, MI_SEG_MAGIC, 8) != 0) { close(fd); return NULL; }
  *err = MI_E_STORE_TRUNCATED;
  if (n < (ssize_t)sizeof h) { close(fd); return NULL; }
  *err = MI_E_STORE_VERSION;
  if (h.version != MI_SEG_VERSION || h.order != MI_SEG_ORDER || h.seg_bytes != sizeof(mi_seg) ||
      h.rec_bytes != sizeof(mi_urec) || h.proc_bytes != sizeof(mi_proc) || h.blk_bytes != sizeof(mi_host_block)) {
    close(fd);
    return NULL;
  }
  *err = MI_E_STORE_TRUNCATED;
  if (h.size < sizeof(mi_seg) || (uint64_t)stt.st_size != h.size) { close(fd); return NULL; }
  *err = MI_E_STORE_OWNER_GONE;
  if (h.closed || !alive(h.owner_pid, h.owner_start, h.boot_id)) { close(fd); return NULL; }
  *err = MI_E_STORE_OPEN;
  mi_system *sys = calloc(1, sizeof *sys);
  if (!sys) { close(fd); return NULL; }
  void *p = mmap(NULL, h.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) { free(sys); return NULL; }
  sys->seg = p;
  sys->map_size = h.size;
  sys->view.blk = &sys->seg->blk;
  sys->attached = sys->shared = 1;
  snprintf(sys->share_path, sizeof sys->share_path, "%s", path);
  mi_seg *g = sys->seg;
  sys->opt.max_users = g->max_users;
  sys->opt.max_cells = g->max_cells;
  sys->opt.max_ldevs = g->max_ldevs;
  sys->opt.max_ldevs_per_user = g->max_ldevs_per_user;
  sys->opt.max_processes = g->max_processes;
  memcpy(sys->registry_path, g->h.registry, sizeof sys->registry_path);
  sys->registry_path[sizeof sys->registry_path - 1] = 0;
  sys->opt.registry = sys->registry_path[0] ? sys->registry_path : NULL;
  mi_registry_load(sys);
  sys->next_check_ms = mono_ms() + 200;
  mi_reclaim_users(sys);   /* records of readers that died without freeing their sessions */
  *err = 0;
  return sys;
}

int mi_system_attached(const mi_system *sys) { return sys && sys->attached; }

const char *mi_system_share_path(const mi_system *sys) { return sys && sys->shared ? sys->share_path : NULL; }

int mi_owner_check(mi_system *sys) {
  if (!sys->attached) return 0;
  if (sys->owner_gone) return MI_E_STORE_OWNER_GONE;
  int64_t now = mono_ms();
  if (now < sys->next_check_ms && !MI_LD(sys->seg->h.closed)) return 0;
  sys->next_check_ms = now + 200;
  const mi_seg_hdr *h = &sys->seg->h;
  if (MI_LD(h->closed) || !alive(h->owner_pid, h->owner_start, h->boot_id)) sys->owner_gone = 1;
  return sys->owner_gone ? MI_E_STORE_OWNER_GONE : 0;
}

/* ---- write sections ---- */

/* 1 if the thread holding the lock word `who` is gone (a crashed writer or reader). */
static int holder_gone(uint32_t who) {
  return who && kill((pid_t)who, 0) != 0 && errno == ESRCH;
}

/* Opens the section once the lock is ours: the sequence goes odd. */
static void opened(mi_seg *g) {
  g->h.depth = 1;
  uint64_t q = MI_LD(g->h.seq);
  if (!(q & 1)) MI_ST(g->h.seq, q + 1);   /* odd already: a writer died inside its section */
  FENCE(__ATOMIC_RELEASE);   /* the odd sequence is visible before any write of the section */
}

int mi_wtrylock(mi_system *sys) {
  mi_seg *g = sys->seg;
  uint32_t me = my_tid(), free_ = 0;
  if (__atomic_load_n(&g->h.lock, __ATOMIC_RELAXED) == me) { g->h.depth++; return 1; }
  if (!__atomic_compare_exchange_n(&g->h.lock, &free_, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
  opened(g);
  return 1;
}

void mi_wlock(mi_system *sys) {
  mi_seg *g = sys->seg;
  uint32_t me = my_tid();
  if (__atomic_load_n(&g->h.lock, __ATOMIC_RELAXED) == me) { g->h.depth++; return; }
  /* someone is waiting (a reader that gave up on the seqlock, an ON): let it in first, so a
   * writer that publishes back to back cannot starve it. `waiting` holds a waiter's thread id,
   * not a count: a waiter that died (a killed process) is seen gone and cleared, so it costs
   * the writers a few yields once instead of 100 on every lock forever. */
  for (int i = 0; i < 100; i++) {
    uint32_t w = __atomic_load_n(&g->h.waiting, __ATOMIC_RELAXED);
    if (!w || w == me) break;
    if ((i & 7) == 7 && holder_gone(w)) {
      __atomic_compare_exchange_n(&g->h.waiting, &w, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      break;
    }
    sched_yield();
  }
  uint32_t cur = 0;
  if (!__atomic_compare_exchange_n(&g->h.lock, &cur, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
    __atomic_store_n(&g->h.waiting, me, __ATOMIC_RELAXED);
    for (unsigned spins = 0;; spins++) {
      cur = 0;
      if (__atomic_compare_exchange_n(&g->h.lock, &cur, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
      if (spins < 64) { cpu_relax(); continue; }
      sched_yield();
      uint32_t w = 0;   /* another waiter got in and cleared the flag: raise it again */
      __atomic_compare_exchange_n(&g->h.waiting, &w, me, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      if ((spins & 1023) == 1023 && holder_gone(cur) &&
          __atomic_compare_exchange_n(&g->h.lock, &cur, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        break;
    }
    uint32_t w = me;
    __atomic_compare_exchange_n(&g->h.waiting, &w, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  opened(g);
}

void mi_wunlock(mi_system *sys) {
  mi_seg *g = sys->seg;
  if (--g->h.depth > 0) return;
  __atomic_store_n(&g->h.seq, MI_LD(g->h.seq) + 1, __ATOMIC_RELEASE);   /* even: published */
  __atomic_store_n(&g->h.lock, 0, __ATOMIC_RELEASE);
}

int mi_wheld(const mi_system *sys) {
  return sys->seg && __atomic_load_n(&sys->seg->h.lock, __ATOMIC_RELAXED) == my_tid();
}

void mi_host_begin(mi_system *sys) { if (sys && sys->seg && !sys->attached) mi_wlock(sys); }

void mi_host_publish(mi_system *sys) {
  if (sys && sys->seg && !sys->attached && mi_wheld(sys)) mi_wunlock(sys);
}

/* ---- reads ---- */

int mi_read_begin(mi_system *sys, uint64_t *q) {
  mi_seg *g = sys->seg;
  for (unsigned spins = 0; spins < 96; spins++) {
    *q = __atomic_load_n(&g->h.seq, __ATOMIC_ACQUIRE);
    if (!(*q & 1)) return 1;
    /* a section is open: our own (a GET from inside a write section reads as it is), or
     * another writer's (wait a little for its publish; an attached reader stops if the owner died) */
    if (mi_wheld(sys)) return 1;
    if (sys->attached && mi_owner_check(sys)) return 1;
    if (spins < 64) cpu_relax();
    else sched_yield();
  }
  return 0;   /* the writer is busy: the caller counts a try (and at last takes the lock) */
}

int mi_read_valid(mi_system *sys, uint64_t q) {
  FENCE(__ATOMIC_ACQUIRE);   /* every load of the gather happens before the check */
  uint64_t q2 = __atomic_load_n(&sys->seg->h.seq, __ATOMIC_RELAXED);
  return q2 == q || (q & 1);   /* an odd q: a read inside our own section, or the owner is gone */
}
