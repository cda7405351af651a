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
#include <limits.h>
#include <poll.h>
#include <linux/futex.h>
#include <sys/file.h>
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

#define MI_LIKELY_ZERO(x) __builtin_expect(!!(x), 0)

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

/* Reads /proc/<pid>/stat into buf (n bytes) and returns what follows the name's last ')' (the
 * name may hold spaces and parentheses: " S ..."), or NULL when it cannot be read. */
static char *proc_stat_fields(int64_t pid, char *buf, size_t n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  ssize_t got = read(fd, buf, n - 1);
  close(fd);
  if (got <= 0) return NULL;
  buf[got] = 0;
  char *p = strrchr(buf, ')');
  return p ? p + 1 : NULL;
}

uint64_t mi_proc_start_time(int64_t pid) {
  char buf[1024], *p = proc_stat_fields(pid, buf, sizeof buf);
  if (!p) return 0;
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

/* ---- the SIGBUS guard ----
 * A shared store is a file: if it shrinks under a mapping (truncated by someone, or a sparse
 * page the disk had no room for), touching the lost pages raises SIGBUS. The guard catches
 * that for the mappings of stores: it maps zero pages over the rest of the mapping, marks the
 * store truncated and lets the access go on; the next check of that system turns the mark
 * into -32004 (every AIF, and every GET after its gather). Any other SIGBUS goes to the
 * handler that was there before (or kills the process as it would have). */

#define MI_BUS_SLOTS 64
static struct { uintptr_t base, size; int hit; } bus_maps[MI_BUS_SLOTS];   /* atomic fields */
static struct sigaction bus_old;
static pthread_mutex_t bus_mu = PTHREAD_MUTEX_INITIALIZER;
static int bus_installed;

/* The SIGBUS handler: rescues a store's mapping, else passes the signal on. */
static void on_sigbus(int sig, siginfo_t *si, void *uc) {
  uintptr_t a = (uintptr_t)si->si_addr;
  for (int i = 0; i < MI_BUS_SLOTS; i++) {
    uintptr_t base = __atomic_load_n(&bus_maps[i].base, __ATOMIC_ACQUIRE);
    uintptr_t size = __atomic_load_n(&bus_maps[i].size, __ATOMIC_RELAXED);
    if (!base || a < base || a >= base + size) continue;
    uintptr_t pg = a & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
    void *p = mmap((void *)pg, base + size - pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) { __atomic_store_n(&bus_maps[i].hit, 1, __ATOMIC_RELEASE); return; }
  }
  if (bus_old.sa_flags & SA_SIGINFO) { bus_old.sa_sigaction(sig, si, uc); return; }
  if (bus_old.sa_handler != SIG_DFL && bus_old.sa_handler != SIG_IGN) { bus_old.sa_handler(sig); return; }
  signal(SIGBUS, SIG_DFL);   /* the access runs again and the default action ends the process */
}

/* Puts a store's mapping under the guard; its slot, or -1 (table full: unguarded). */
static int bus_guard(void *base, size_t size) {
  pthread_mutex_lock(&bus_mu);
  if (!bus_installed) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &bus_old) == 0) bus_installed = 1;
  }
  int slot = -1;
  for (int i = 0; i < MI_BUS_SLOTS && slot < 0; i++)
    if (!__atomic_load_n(&bus_maps[i].base, __ATOMIC_RELAXED)) {
      __atomic_store_n(&bus_maps[i].size, (uintptr_t)size, __ATOMIC_RELAXED);
      __atomic_store_n(&bus_maps[i].hit, 0, __ATOMIC_RELAXED);
      __atomic_store_n(&bus_maps[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
      slot = i;
    }
  pthread_mutex_unlock(&bus_mu);
  return slot;
}

/* Takes a mapping out of the guard (before it is unmapped). */
static void bus_unguard(int slot) {
  if (slot < 0 || slot >= MI_BUS_SLOTS) return;
  __atomic_store_n(&bus_maps[slot].base, 0, __ATOMIC_RELEASE);
}

/* 1 if the guard rescued sys's mapping from a shrunk file. */
static int bus_hit(const mi_system *sys) {
  return sys->bus_slot >= 0 && __atomic_load_n(&bus_maps[sys->bus_slot].hit, __ATOMIC_ACQUIRE);
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

/* Gives the store file disk blocks up to `bytes` (rounded up to 4 MB, at most the file), so a
 * full disk is an error here and never a SIGBUS at a later write. 0, or -1 with errno. A file
 * system that cannot allocate ahead (EOPNOTSUPP) is left sparse, as before. */
static int reserve(mi_system *sys, int64_t bytes) {
  if (sys->store_fd < 0 || bytes <= sys->reserved) return 0;
  int64_t want = (bytes + (4 << 20) - 1) / (4 << 20) * (4 << 20);
  if (want > (int64_t)sys->map_size) want = (int64_t)sys->map_size;
  if (fallocate(sys->store_fd, FALLOC_FL_KEEP_SIZE, sys->reserved, want - sys->reserved) != 0) {
    if (errno == EOPNOTSUPP || errno == ENOSYS) { sys->reserved = (int64_t)sys->map_size; return 0; }
    return -1;
  }
  sys->reserved = want;
  return 0;
}

int mi_seg_reserve(mi_system *sys, int64_t end_word) {
  if (!sys->shared) return 0;
  return reserve(sys, (int64_t)offsetof(mi_seg, blk) + end_word * 8);
}

/* What is at a path a store is to be created at, other than nothing: 1 a stale mish store of
 * ours (no owner holds its lock; *stale_fd is open on it and locked by us, *ino its inode),
 * or -1 with errno: EBUSY a live store, ELOOP a symbolic link, EISDIR a directory, EEXIST any
 * other file (mish never replaces a file it did not make), EPERM a store of another user. */
static int existing(const char *path, int *stale_fd, ino_t *ino) {
  struct stat st;
  if (lstat(path, &st) != 0) return -1;   /* ENOENT: gone meanwhile, the caller tries again */
  if (S_ISLNK(st.st_mode)) { errno = ELOOP; return -1; }
  if (S_ISDIR(st.st_mode)) { errno = EISDIR; return -1; }
  if (!S_ISREG(st.st_mode)) { errno = EEXIST; return -1; }
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  mi_seg_hdr h;
  struct stat fst;
  if (fstat(fd, &fst) != 0 || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h.magic, MI_SEG_MAGIC, 8) != 0) {
    close(fd);
    errno = EEXIST;
    return -1;
  }
  if (fst.st_uid != geteuid()) { close(fd); errno = EPERM; return -1; }
  /* a live owner holds the lock (stores of format 7 on); an older one is judged by its pid */
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      (!h.closed && alive(h.owner_pid, h.owner_start, h.boot_id))) {
    close(fd);
    errno = EBUSY;
    return -1;
  }
  *stale_fd = fd;
  *ino = fst.st_ino;
  return 1;
}

/* Creates the store file at share for sys: built whole under a private name beside it, locked,
 * then linked into place only if nothing is there (two owners started together: one wins, the
 * other gets EBUSY), or renamed over a stale store of ours. Returns the mapping or NULL + errno. */
static void *create_shared(mi_system *sys, const char *share, size_t size, int64_t arena_words) {
  char tmp[MI_PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", share, (int)getpid());
  int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return NULL;
  int e = 0;
  void *p = MAP_FAILED;
  struct stat st;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 || ftruncate(fd, (off_t)size) != 0 || fstat(fd, &st) != 0) goto fail;
  sys->store_fd = fd;
  sys->map_size = size;
  if (reserve(sys, (int64_t)sizeof(mi_seg)) != 0) goto fail;
  p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) goto fail;
  seg_init(p, size, arena_words);
  for (int tries = 0;; tries++) {
    if (link(tmp, share) == 0) break;
    if (errno != EEXIST || tries == 8) goto fail;
    int old = -1;
    ino_t old_ino = 0;
    if (existing(share, &old, &old_ino) < 0) {
      if (errno == ENOENT) continue;   /* removed meanwhile: link again */
      goto fail;
    }
    /* a stale store of ours, locked: replace it if the path still names it */
    struct stat now;
    int same = lstat(share, &now) == 0 && now.st_ino == old_ino;
    int ok = same && rename(tmp, share) == 0;
    close(old);
    if (ok) { tmp[0] = 0; break; }
  }
  if (tmp[0]) unlink(tmp);
  sys->store_dev = (uint64_t)st.st_dev;
  sys->store_ino = (uint64_t)st.st_ino;
  return p;
fail:
  e = errno;
  if (p != MAP_FAILED) munmap(p, size);
  if (tmp[0]) unlink(tmp);
  close(fd);
  sys->store_fd = -1;
  sys->reserved = 0;
  errno = e;
  return NULL;
}

mi_seg *mi_seg_new(mi_system *sys, const char *share, int64_t max_cells) {
  int64_t arena_words;
  size_t size = seg_size(max_cells, &arena_words);
  void *p;
  sys->store_fd = -1;
  sys->bus_slot = -1;
  if (!share) {
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    seg_init(p, size, arena_words);
  } else {
    p = create_shared(sys, share, size, arena_words);
    if (!p) return NULL;
    snprintf(sys->share_path, sizeof sys->share_path, "%s", share);
    sys->shared = 1;
    sys->bus_slot = bus_guard(p, size);
  }
  sys->seg = p;
  sys->map_size = size;
  mi_view_set(&sys->view, &sys->seg->blk);
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
  if (sys->shared && !sys->attached) {
    /* the file is ours to remove while its path still names it (never another file put there) */
    struct stat st;
    if (lstat(sys->share_path, &st) == 0 && (uint64_t)st.st_dev == sys->store_dev && (uint64_t)st.st_ino == sys->store_ino)
      unlink(sys->share_path);
  }
  bus_unguard(sys->bus_slot);
  munmap(sys->seg, sys->map_size);
  if (sys->store_fd >= 0) close(sys->store_fd);   /* the owner's lock goes with it */
  sys->store_fd = -1;
  if (sys->attached && sys->owner_pidfd >= 0) close(sys->owner_pidfd);
  sys->owner_pidfd = -1;
  free(sys->ro_blk);
  sys->ro_blk = NULL;
  sys->seg = NULL;
}

/* ---- attaching ---- */

/* 1 if the tables of an attached segment lie within it and hold sane counts: what readers and
 * an attached ON index by (checked at attach and at each write section of an attached process). */
static int seg_sane(const mi_seg *g, size_t size) {
  int64_t base = (int64_t)(sizeof(mi_seg) - offsetof(mi_seg, blk)) / 8;
  int64_t words = MI_LD(g->arena_words), top = MI_LD(g->arena_top);
  if (MI_LD(g->arena_base) != base || words < 0 || (uint64_t)words > (size - sizeof(mi_seg)) / 8 ||
      top < 0 || top > words || MI_LD(g->nfree) < 0 || MI_LD(g->nfree) > MI_ARENA_FREE)
    return 0;
  for (int i = 0; i < MI_LD(g->nfree); i++) {
    int64_t o = MI_LD(g->freel[i].off), l = MI_LD(g->freel[i].len);
    if (o < 0 || l <= 0 || o > top || l > top - o) return 0;
  }
  static const int32_t nent[MI_DOM_COUNT] = {1, MI_MAX_PROCESSES, MI_MAX_LDEV + 1, MI_MAX_PROCESSORS};
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    const mi_host_lane *ln = &g->blk.lane[d];
    int64_t at = MI_LD(ln->cells);
    int32_t st = MI_LD(ln->stride);
    if (MI_LD(ln->nent) != nent[d] || st < 0) return 0;
    if (at && (at < base || at > base + words || (int64_t)st * nent[d] > base + words - at)) return 0;
    const mi_store *so = &g->dom[d];
    if (MI_LD(so->used) < 0 || MI_LD(so->used) > st || MI_LD(so->active) < 0 || MI_LD(so->active) > MI_HOST_INDEX_LIMIT) return 0;
    for (int i = 0; i < MI_HOST_INDEX_LIMIT; i++) {
      int32_t sl = MI_LD(so->slot[i]), o = MI_LD(g->blk.off[d << MI_HOST_INDEX_BITS | i]);
      if (sl < -1 || (sl >= 0 && sl >= MI_LD(so->used)) || o < -1 || (o >= 0 && o >= st)) return 0;
    }
  }
  int32_t hi = MI_LD(g->proc_hi), nu = MI_LD(g->max_users), np = MI_LD(g->max_processes), m = MI_LD(g->mapping);
  if (hi < 0 || hi > MI_MAX_PROCESSES || MI_LD(g->nproc_alive) < 0 || MI_LD(g->nproc_alive) > MI_MAX_PROCESSES ||
      nu < 1 || nu > MI_MAX_USERS_LIMIT || np < 1 || np > MI_MAX_PROCESSES || m < -1 || m > 2 ||
      MI_LD(g->ncpu) < 0 || MI_LD(g->ncpu) > MI_MAX_PROCESSORS || MI_LD(g->max_cells) < 0 ||
      MI_LD(g->ncpu_all) < 0 || MI_LD(g->ncpu_all) > MI_MAX_CPUS_ALL ||
      MI_LD(g->free_lo) < 0 || MI_LD(g->free_lo) > MI_MAX_PROCESSES)
    return 0;
  for (int l = 0; l <= MI_MAX_LDEV; l++)
    if (MI_LD(g->devtype[l]) > mi_ndevtypes_) return 0;
  for (int i = 0; i < MI_PID_HASH; i++)
    if (MI_LD(g->pid_hash[i]) < 0 || MI_LD(g->pid_hash[i]) > MI_MAX_PROCESSES) return 0;
  int32_t un = MI_LD(g->udef_n);
  if (un < 0 || un > MI_UDEF_MAX) return 0;
  for (int d = 0; d < MI_DOM_COUNT; d++)
    if (MI_LD(g->udef_dom_n[d]) < 0 || MI_LD(g->udef_dom_n[d]) > MI_UDEF_MAX) return 0;
  for (int k = 0; k < un; k++)
    if (!mi_udef_rec_ok(&g->udef[k], k)) return 0;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
    const mi_urec *u = &g->users[i];
    if (!MI_LD(u->used)) continue;
    if (u->proc_nitems < 0 || u->proc_nitems > MI_HOST_INDEX_LIMIT || u->io_nitems < 0 || u->io_nitems > MI_HOST_INDEX_LIMIT ||
        u->nldevs < 0 || u->nldevs > MI_MAX_LDEV || u->nsel < 0 || u->nsel > MI_SEL_MAX)
      return 0;
    for (int k = 0; k < u->proc_nitems; k++)
      if (u->proc_items[k] < 0 || u->proc_items[k] >= MI_HOST_INDEX_LIMIT) return 0;
    for (int k = 0; k < u->io_nitems; k++)
      if (u->io_items[k] < 0 || u->io_items[k] >= MI_HOST_INDEX_LIMIT) return 0;
  }
  return 1;
}

mi_system *mi_system_attach(const char *path, int *err) { return mi_system_attach_with(path, NULL, err); }

/* The checks of a store file's header before anything is mapped: 0 or the status. */
static int header_check(int fd, const struct stat *stt, mi_seg_hdr *h, const mi_attach_options *o) {
  if (!S_ISREG(stt->st_mode)) return MI_E_STORE_NOT_MISH;
  ssize_t n = pread(fd, h, sizeof *h, 0);
  if (n < 8 || memcmp(h->magic, MI_SEG_MAGIC, 8) != 0) return MI_E_STORE_NOT_MISH;
  if (n < (ssize_t)sizeof *h) return MI_E_STORE_TRUNCATED;
  if (h->version != MI_SEG_VERSION || h->order != MI_SEG_ORDER || h->seg_bytes != sizeof(mi_seg) ||
      h->rec_bytes != sizeof(mi_urec) || h->proc_bytes != sizeof(mi_proc) || h->blk_bytes != sizeof(mi_host_block))
    return MI_E_STORE_VERSION;
  /* another user's file could say anything: only when asked to trust it */
  if (stt->st_uid != geteuid() && !(o && o->trust)) return MI_E_STORE_FOREIGN;
  if (h->size < sizeof(mi_seg) || h->size > ((uint64_t)1 << 40) || (uint64_t)stt->st_size != h->size) return MI_E_STORE_TRUNCATED;
  return 0;
}

/* Opens the store file at path for an attach (read-only unless o->write) and checks its header
 * (into *h): the descriptor, or -1 with *err. */
static int attach_open(const char *path, const mi_attach_options *o, mi_seg_hdr *h, int *err) {
  *err = MI_E_STORE_OPEN;
  int fd = open(path, (o && o->write ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat stt;
  if (fstat(fd, &stt) != 0) { close(fd); return -1; }
  if ((*err = header_check(fd, &stt, h, o)) != 0) { close(fd); return -1; }
  return fd;
}

/* 0 if the store's owner lives — it holds the file's lock, and its pid answers with the start
 * time and boot recorded — with *pfd a pidfd of it (opened before its start time is checked: so
 * it names the owner, and later checks of its life are a poll a reused pid cannot fool; -1 if
 * none); else MI_E_STORE_OWNER_GONE. */
static int owner_lives(int fd, const mi_seg_hdr *h, int *pfd) {
  *pfd = h->owner_pid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)h->owner_pid, 0) : -1;
  if (h->closed || flock(fd, LOCK_SH | LOCK_NB) == 0 || !alive(h->owner_pid, h->owner_start, h->boot_id)) {
    flock(fd, LOCK_UN);
    if (*pfd >= 0) close(*pfd);
    *pfd = -1;
    return MI_E_STORE_OWNER_GONE;
  }
  return 0;
}

/* Checks the tables of a store just mapped as one published state (the owner may be writing):
 * a check that saw a publish is repeated. 1 sane, 0 damaged, -1 its writer never let one
 * through (busy). A read-write attach asks writers to hold off after a few tries; a read-only
 * one never writes the store: it only waits. */
static int attach_sane(mi_system *sys) {
  mi_seg *g = sys->seg;
  int sane = -1;
  uint64_t req = 0;
  int64_t until = mono_ms() + 2000;
  for (int tries = 0; sane < 0 && (tries < 64 || mono_ms() < until); tries++) {
    if (tries >= 4 && !sys->readonly) { if (req) mi_read_hold(sys, req); req = mi_read_hold(sys, 0); }
    uint64_t q = __atomic_load_n(&g->h.seq, __ATOMIC_ACQUIRE);
    if (q & 1) { if (tries > 64) sched_yield(); else cpu_relax(); continue; }
    int ok = seg_sane(g, sys->map_size);
    FENCE(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&g->h.seq, __ATOMIC_RELAXED) == q) sane = ok;
  }
  if (req) mi_read_hold(sys, req);
  return sane;
}

/* A read-only system's writer block: nothing counted, so every inline writer (mi_host_add, a
 * row handle, ...) finds its counter off and does nothing; NULL if out of memory. */
static mi_host_block *ro_block(void) {
  mi_host_block *b = calloc(1, sizeof *b);
  if (b) for (int i = 0; i < MI_DOM_COUNT << MI_HOST_INDEX_BITS; i++) b->off[i] = -1;
  return b;
}

/* Maps the published copies' pages into this process now (a read of a word per page): a reader's
 * first GET from each copy would otherwise take a page fault, tens of microseconds on a loaded
 * machine (bench_readers: 23 of its 48 slowest reads). Under the SIGBUS guard, as every read. */
static void prefault_snap(const mi_seg *g) {
  const char *p = (const char *)&g->snap[0], *end = (const char *)&g->snap[MI_SNAP_BUFS];
  long pg = sysconf(_SC_PAGESIZE);
  if (pg <= 0) pg = 4096;
  for (; p < end; p += pg) (void)__atomic_load_n(p, __ATOMIC_RELAXED);
  (void)__atomic_load_n(end - 1, __ATOMIC_RELAXED);
}

mi_system *mi_system_attach_with(const char *path, const mi_attach_options *o, int *err) {
  int e = 0;
  if (!err) err = &e;
  *err = MI_E_STORE_OPEN;
  if (!path) return NULL;
  if (strlen(path) >= MI_PATH_MAX || (o && o->registry && strlen(o->registry) >= MI_PATH_MAX)) { errno = ENAMETOOLONG; return NULL; }
  mi_catalog_init();
  mi_seg_hdr h;
  int pfd, fd = attach_open(path, o, &h, err);
  if (fd < 0) return NULL;
  if ((*err = owner_lives(fd, &h, &pfd)) != 0) { close(fd); return NULL; }
  *err = MI_E_STORE_OPEN;
  int ro = !(o && o->write);
  mi_system *sys = calloc(1, sizeof *sys);
  mi_host_block *rb = sys && ro ? ro_block() : NULL;
  void *p = sys && (!ro || rb) ? mmap(NULL, h.size, ro ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (p == MAP_FAILED) { int e2 = errno; close(fd); if (pfd >= 0) close(pfd); free(sys); free(rb); errno = e2; return NULL; }
  sys->owner_pidfd = pfd;
  sys->store_fd = fd;
  sys->seg = p;
  sys->map_size = h.size;
  sys->bus_slot = bus_guard(p, h.size);
  sys->readonly = ro;
  sys->ro_blk = rb;
  mi_view_set(&sys->view, ro ? rb : &sys->seg->blk);
  sys->attached = sys->shared = 1;
  snprintf(sys->share_path, sizeof sys->share_path, "%s", path);
  int sane = attach_sane(sys);
  if (sane != 1 || bus_hit(sys)) {
    *err = sane < 0 ? MI_E_STORE_BUSY : MI_E_STORE_TRUNCATED;
    mi_seg_free(sys);
    free(sys);
    return NULL;
  }
  mi_seg *g = sys->seg;
  prefault_snap(g);
  sys->opt.max_users = g->max_users;
  sys->opt.max_cells = g->max_cells;
  sys->opt.max_ldevs = g->max_ldevs;
  sys->opt.max_ldevs_per_user = g->max_ldevs_per_user;
  sys->opt.max_processes = g->max_processes;
  /* the registry is this process's own: a path written in the store is never followed */
  if (o && o->registry) snprintf(sys->registry_path, sizeof sys->registry_path, "%s", o->registry);
  sys->opt.registry = sys->registry_path[0] ? sys->registry_path : NULL;
  mi_registry_load(sys);
  sys->next_check_ms = mono_ms() + 200;
  if (!ro) mi_reclaim_users(sys);   /* records of readers that died without freeing their sessions */
  *err = 0;
  return sys;
}

int mi_system_attached(const mi_system *sys) { return sys && sys->attached; }

int mi_system_readonly(const mi_system *sys) { return sys && sys->readonly; }

const char *mi_system_share_path(const mi_system *sys) { return sys && sys->shared ? sys->share_path : NULL; }

/* 1 if the owner of the store sys is attached to ended: its pidfd polls readable (else, with no
 * pidfd, its pid does not answer or started at another time). */
static int owner_gone(const mi_system *sys) {
  if (sys->owner_pidfd >= 0) {
    struct pollfd pf = {.fd = sys->owner_pidfd, .events = POLLIN};
    int r = poll(&pf, 1, 0);
    if (r >= 0) return r > 0;
  }
  const mi_seg_hdr *h = &sys->seg->h;
  return !alive(h->owner_pid, h->owner_start, h->boot_id);
}

int mi_owner_check(mi_system *sys) {
  if (!sys->shared) return 0;
  if (sys->broken) return sys->broken;
  if (MI_UNLIKELY(bus_hit(sys))) return sys->broken = MI_E_STORE_TRUNCATED;
  if (!sys->attached) return 0;
  /* the file's size and the owner at most every 200 ms (an fstat costs more than a GET); a file
   * that shrank in between faults, and the guard's mark is seen above */
  int64_t now = mono_ms();
  if (now < sys->next_check_ms && !MI_LD(sys->seg->h.closed)) return 0;
  sys->next_check_ms = now + 200;
  struct stat st;
  if (fstat(sys->store_fd, &st) == 0 && (uint64_t)st.st_size < sys->map_size) return sys->broken = MI_E_STORE_TRUNCATED;
  const mi_seg_hdr *h = &sys->seg->h;
  int unlocked = flock(sys->store_fd, LOCK_SH | LOCK_NB) == 0;   /* nobody holds the owner's lock */
  if (unlocked) flock(sys->store_fd, LOCK_UN);
  if (MI_LD(h->closed) || unlocked || owner_gone(sys)) sys->broken = MI_E_STORE_OWNER_GONE;
  return sys->broken;
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

/* ---- readers that keep missing: the hold-off (a futex handoff) ----
 * A reader whose first gather saw a publish (or found a section open) posts read_req, the time
 * of its request, and waits for the open section's publish: it spins a few microseconds, then
 * sleeps on the sequence word (futex), and the writer's publish wakes it while a request stands.
 * A writer about to open its next section sees the request and holds off: it spins a few
 * microseconds, then sleeps on read_req (futex) until the reader withdraws it (and wakes it) or
 * MI_READ_HOLD_NS went by since the writer began waiting; then it voids the request. So the
 * reader gets one quiet gather however the two are scheduled: a writer that waits gives its CPU
 * to the reader instead of spinning past it. A reader that stops (Ctrl-Z) with its request up
 * costs the writer one wait of MI_READ_HOLD_NS. Futexes are process-shared (the segment may be a
 * file other processes map); every sleep has a timeout, so a wake lost to the unfenced check in
 * mi_wunlock costs a reader at most MI_READ_SLEEP_NS, never a hang. */
#define MI_READ_HOLD_NS 2000000
#define MI_READ_SLEEP_NS 1000000
#define MI_SPIN_LOOKS 128   /* looks (cpu_relax between) before a waiter sleeps: a few microseconds */

/* The low 32 bits of a 64-bit word (a futex is 32 bits): they change with every move of seq
 * and from any request to 0 (a request is odd). */
static uint32_t *low_word(uint64_t *w) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return (uint32_t *)(void *)w + 1;
#else
  return (uint32_t *)(void *)w;
#endif
}

/* Sleeps while *w == val, at most ns nanoseconds (or until woken); 0 if *w had moved already. */
static int futex_sleep(uint32_t *w, uint32_t val, int64_t ns) {
  struct timespec to = {ns / 1000000000, ns % 1000000000};
  return !(syscall(SYS_futex, w, FUTEX_WAIT, val, &to, NULL, 0) != 0 && errno == EAGAIN);
}

/* Wakes every sleeper on w. */
static void futex_wake_all(uint32_t *w) { syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

/* Monotonic nanoseconds. */
static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t mi_read_hold(mi_system *sys, uint64_t mine) {
  if (sys->readonly) return 0;   /* a read-only reader never writes the store: writers never wait on it */
  mi_seg_hdr *h = &sys->seg->h;
  if (!mine) {
    uint64_t t = (uint64_t)mono_ns() | 1;   /* never 0 */
    __atomic_store_n(&h->read_req, t, __ATOMIC_RELEASE);
    return t;
  }
  if (__atomic_compare_exchange_n(&h->read_req, &mine, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED) &&   /* else another's stands */
      __atomic_load_n(&h->hold_wait, __ATOMIC_SEQ_CST)) {   /* a writer sleeps on it: wake it */
    __atomic_store_n(&h->hold_wait, 0, __ATOMIC_RELAXED);
    futex_wake_all(low_word(&h->read_req));
  }
  return 0;
}

/* A writer before its section: waits while a reader request stands, at most MI_READ_HOLD_NS from
 * its first look (spinning, then asleep on read_req), then voids the request it waited on. */
static void honour_readers(mi_seg *g) {
  if (MI_LIKELY_ZERO(__atomic_load_n(&g->h.read_req, __ATOMIC_RELAXED))) return;
  int64_t t0 = mono_ns();
  for (unsigned spins = 0;; spins++) {
    uint64_t req = __atomic_load_n(&g->h.read_req, __ATOMIC_SEQ_CST);
    if (!req) return;
    int64_t waited = mono_ns() - t0;
    if (waited > MI_READ_HOLD_NS) {
      __atomic_compare_exchange_n(&g->h.read_req, &req, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      return;
    }
    if (spins < MI_SPIN_LOOKS) { cpu_relax(); continue; }
    /* the reader is not done: sleep (its CPU may be this one) until it withdraws or time is up */
    __atomic_store_n(&g->h.hold_wait, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g->h.read_req, __ATOMIC_SEQ_CST) == req)
      futex_sleep(low_word(&g->h.read_req), (uint32_t)req, MI_READ_HOLD_NS - waited);
  }
}

int mi_wtrylock(mi_system *sys) {
  mi_seg *g = sys->seg;
  uint32_t me = my_tid(), free_ = 0;
  if (__atomic_load_n(&g->h.lock, __ATOMIC_RELAXED) == me) { g->h.depth++; return 1; }
  if (MI_UNLIKELY(__atomic_load_n(&g->h.read_req, __ATOMIC_RELAXED))) {   /* a reader waits: publish nothing now */
    uint64_t req = __atomic_load_n(&g->h.read_req, __ATOMIC_RELAXED);
    int64_t age = mono_ns() - (int64_t)req;
    if (age <= MI_READ_HOLD_NS && age >= -MI_READ_HOLD_NS) return 0;
    __atomic_compare_exchange_n(&g->h.read_req, &req, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  if (!__atomic_compare_exchange_n(&g->h.lock, &free_, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
  opened(g);
  return 1;
}

void mi_wlock(mi_system *sys) {
  mi_seg *g = sys->seg;
  uint32_t me = my_tid();
  if (__atomic_load_n(&g->h.lock, __ATOMIC_RELAXED) == me) { g->h.depth++; return; }
  honour_readers(g);
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

/* ---- the published copy of the global rows ----
 * A writer that publishes back to back keeps a section open nearly all the time, and a reader
 * that waits for its publish waits for the writer to be on a CPU. So while readers ask for it
 * (snap_want: a count of publishes, renewed by any GET that found a section open), the outermost
 * close of a section first copies the global rows, with the sequence it is about to publish,
 * the layout generation, the mapping and the rounding, into the next buffer of a ring of
 * MI_SNAP_BUFS, then names it the last copy. A GET reads the last copy (query.c, glob_snap; an
 * attached reader first of all) when it holds the latest publish: its sequence is at least the
 * last even one. The copy costs the writer the global stride in words per publish, only while
 * readers are interested (the owner of a shared store: always, its read-only readers cannot ask). */
#define MI_SNAP_KEEP 65536

/* Copies the global rows into the ring's next buffer and names it the last copy (in the section,
 * before the publish). */
static void snap_copy(mi_seg *g) {
  uint32_t want = MI_LD(g->h.snap_want);
  if (want) MI_ST(g->h.snap_want, want - 1);
  uint32_t k = MI_LD(g->snap_idx) + 1;
  mi_snap *b = &g->snap[k % MI_SNAP_BUFS];
  const mi_host_lane *ln = &g->blk.lane[MI_DOM_GLOBAL];
  int64_t at = MI_LD(ln->cells);
  int32_t st = MI_LD(ln->stride);
  if (!at || st <= 0 || st > MI_SNAP_WORDS || MI_LD(ln->nent) < 1 || at < g->arena_base ||
      at + st > g->arena_base + g->arena_words)
    st = 0;   /* no rows (nothing on), or too long a row: readers wait for the publish */
  MI_ST(g->snap_writing, k);
  FENCE(__ATOMIC_RELEASE);   /* a reader of buffer k % MI_SNAP_BUFS sees it taken before any of its words moves */
  const int64_t *row = (const int64_t *)(const void *)&g->blk + at;
  for (int32_t i = 0; i < st; i++) MI_ST(b->cells[i], MI_LD(row[i]));
  MI_ST(b->seq, MI_LD(g->h.seq) + 1);
  MI_ST(b->gen, MI_LD(g->h.gen));
  MI_ST(b->stride, st);
  MI_ST(b->mapping, MI_LD(g->mapping));
  MI_ST(b->round, MI_LD(g->round));
  MI_ST(b->round_shift, MI_LD(g->round_shift));
  MI_ST(b->round_magic, MI_LD(g->round_magic));
  __atomic_store_n(&g->snap_idx, k, __ATOMIC_RELEASE);
}

const mi_snap *mi_snap_begin(mi_system *sys, uint32_t *k) {
  mi_seg *g = sys->seg;
  /* keep the copies coming (a read-only reader reads them while others ask for them) */
  if (!sys->readonly && MI_LD(g->h.snap_want) < MI_SNAP_KEEP / 2) MI_ST(g->h.snap_want, MI_SNAP_KEEP);
  *k = __atomic_load_n(&g->snap_idx, __ATOMIC_ACQUIRE);
  return &g->snap[*k % MI_SNAP_BUFS];
}

int mi_snap_valid(mi_system *sys, uint32_t k) {
  FENCE(__ATOMIC_ACQUIRE);   /* every load of the copy happens before the check */
  if (MI_UNLIKELY(sys->bus_slot >= 0) && bus_hit(sys)) { sys->broken = MI_E_STORE_TRUNCATED; return 0; }
  return MI_LD(sys->seg->snap_writing) - k < MI_SNAP_BUFS;   /* k + MI_SNAP_BUFS taken: the writer is rewriting k's buffer */
}

void mi_wunlock(mi_system *sys) {
  mi_seg *g = sys->seg;
  if (--g->h.depth > 0) return;
  /* readers read the publish while the next section is open; the owner of a shared store copies at
   * every publish, since its read-only readers cannot ask (#27.8) */
  if (MI_UNLIKELY(MI_LD(g->h.snap_want) || (sys->shared && !sys->attached))) snap_copy(g);
  __atomic_store_n(&g->h.seq, MI_LD(g->h.seq) + 1, __ATOMIC_RELEASE);   /* even: published */
  __atomic_store_n(&g->h.lock, 0, __ATOMIC_RELEASE);
  if (MI_UNLIKELY(__atomic_load_n(&g->h.read_req, __ATOMIC_RELAXED)))   /* a reader may sleep on seq: wake it */
    futex_wake_all(low_word(&g->h.seq));
}

/* How long a write section on a shared store may be waited for (an ON, an OFF) before -32006. */
#define MI_WRITE_WAIT_MS 1000

/* 1 if kernel thread id tid is a thread of this process. */
static int own_thread(uint32_t tid) {
  char p[48];
  snprintf(p, sizeof p, "/proc/self/task/%u", (unsigned)tid);
  return access(p, F_OK) == 0;
}

int mi_wlock_bounded(mi_system *sys) {
  if (!sys->shared) { mi_wlock(sys); return 0; }
  int rc = mi_owner_check(sys);
  if (rc) return rc;
  if (sys->readonly) return MI_E_STORE_READONLY;   /* its mapping cannot be written: never a write section */
  mi_seg *g = sys->seg;
  uint32_t me = my_tid();
  if (__atomic_load_n(&g->h.lock, __ATOMIC_RELAXED) == me) { g->h.depth++; return 0; }
  int64_t until = 0;
  for (unsigned spins = 0;; spins++) {
    uint32_t cur = 0;
    if (__atomic_compare_exchange_n(&g->h.lock, &cur, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
    if (spins < 64) { cpu_relax(); continue; }
    if (spins == 64 && !sys->attached && own_thread(cur)) { mi_wlock(sys); return 0; }   /* one of ours: it ends */
    /* say we wait, as mi_wlock does: a writer that publishes back to back lets us in at its next
     * lock instead of retaking it while we nap (without it an attached ON or recorder sample
     * against a busy owner gave up after the bound on a loaded machine) */
    uint32_t w = 0;
    __atomic_compare_exchange_n(&g->h.waiting, &w, me, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    if ((spins & 255) == 255 && holder_gone(cur) &&
        __atomic_compare_exchange_n(&g->h.lock, &cur, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      break;
    int64_t now = mono_ms();
    if (!until) until = now + MI_WRITE_WAIT_MS;
    if (now >= until) {   /* another process holds it: stopped, or a crafted lock word */
      w = me;
      __atomic_compare_exchange_n(&g->h.waiting, &w, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      return MI_E_STORE_BUSY;
    }
    struct timespec nap = {0, 200000};
    nanosleep(&nap, NULL);
  }
  uint32_t w = me;
  __atomic_compare_exchange_n(&g->h.waiting, &w, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  opened(g);
  if (sys->attached && !seg_sane(g, sys->map_size)) {   /* never write through offsets a damaged store holds */
    mi_wunlock(sys);
    return sys->broken = MI_E_STORE_TRUNCATED;
  }
  return 0;
}

int mi_user_section(mi_system *sys) {
  return sys->readonly ? mi_owner_check(sys) : mi_wlock_bounded(sys);
}

void mi_user_section_end(mi_system *sys) {
  if (!sys->readonly) mi_wunlock(sys);
}

int mi_wheld(const mi_system *sys) {
  return sys->seg && __atomic_load_n(&sys->seg->h.lock, __ATOMIC_RELAXED) == my_tid();
}

/* Read only once a section stood open MI_READ_WAIT_MS (glob_snap), so a /proc read costs nothing
 * that matters: a stopped writer (SIGSTOP, a debugger: state T or t) gets its readers -32006, one
 * merely off its CPU on a loaded machine does not. No holder, or no readable state: stopped. */
int mi_writer_stopped(const mi_system *sys) {
  uint32_t tid = __atomic_load_n(&sys->seg->h.lock, __ATOMIC_RELAXED);
  if (!tid) return 1;
  char buf[256];
  const char *r = proc_stat_fields(tid, buf, sizeof buf);   /* the state follows the name */
  if (!r || r[0] != ' ' || !r[1]) return 1;
  return r[1] == 'T' || r[1] == 't';
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

int mi_read_try(mi_system *sys, uint64_t *q) {
  *q = __atomic_load_n(&sys->seg->h.seq, __ATOMIC_ACQUIRE);
  if (!(*q & 1)) return 1;
  /* odd: our own section (a GET inside it reads as it is), or an attached reader's owner died */
  return mi_wheld(sys) || (sys->attached && mi_owner_check(sys));
}

/* How long a read-only reader sleeps on seq at a time: it posts no request, so no publish wakes it. */
#define MI_RO_SLEEP_NS 100000

/* mi_read_wait for a read-only reader: no request (it never writes the store, and a writer never
 * waits on it); a spin, then a short sleep on seq (FUTEX_WAIT works on a read-only mapping). */
static int read_wait_ro(mi_system *sys, uint64_t *q) {
  mi_seg_hdr *h = &sys->seg->h;
  MI_FIG(sys->rf.waits);
  for (unsigned spins = 0;; spins++) {
    *q = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
    if (!(*q & 1)) return 1;
    if (mi_owner_check(sys)) return 1;
    if (spins < MI_SPIN_LOOKS) { cpu_relax(); continue; }
    if (futex_sleep(low_word(&h->seq), (uint32_t)*q, MI_RO_SLEEP_NS)) MI_FIG(sys->rf.sleeps);
    *q = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
    return !(*q & 1);
  }
}

int mi_read_stalled(mi_system *sys, int64_t k[3]) {
  int64_t now = mono_ms();
  int64_t seq = (int64_t)__atomic_load_n(&sys->seg->h.seq, __ATOMIC_RELAXED);
  if (!k[0] || seq != k[1]) { k[1] = seq; k[2] = now; }
  if (!k[0]) k[0] = now;
  return (seq & 1 && now - k[2] >= 60) || now - k[0] >= 2000;
}

int mi_read_wait(mi_system *sys, uint64_t *q, uint64_t *req) {
  if (sys->readonly) { *req = 0; return read_wait_ro(sys, q); }
  mi_seg_hdr *h = &sys->seg->h;
  uint64_t t = (uint64_t)mono_ns() | 1;   /* a new request (never 0), or a renewed one: the writer holds off */
  __atomic_store_n(&h->read_req, t, __ATOMIC_SEQ_CST);
  *req = t;
  MI_FIG(sys->rf.waits);
  for (unsigned spins = 0;; spins++) {
    *q = __atomic_load_n(&h->seq, __ATOMIC_SEQ_CST);
    if (!(*q & 1)) return 1;
    if (mi_wheld(sys) || (sys->attached && mi_owner_check(sys))) return 1;
    if (spins < MI_SPIN_LOOKS) { cpu_relax(); continue; }
    /* a section stays open (its writer is off the CPU, or writes long): sleep until its publish */
    if (futex_sleep(low_word(&h->seq), (uint32_t)*q, MI_READ_SLEEP_NS)) MI_FIG(sys->rf.sleeps);
    *q = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
    return !(*q & 1);
  }
}

int mi_read_valid(mi_system *sys, uint64_t q) {
  FENCE(__ATOMIC_ACQUIRE);   /* every load of the gather happens before the check */
  if (MI_UNLIKELY(sys->bus_slot >= 0) && bus_hit(sys)) { sys->broken = MI_E_STORE_TRUNCATED; return 1; }
  uint64_t q2 = __atomic_load_n(&sys->seg->h.seq, __ATOMIC_RELAXED);
  return q2 == q || (q & 1);   /* an odd q: a read inside our own section, or the owner is gone */
}
