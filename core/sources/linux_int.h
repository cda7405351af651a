/* linux_int.h — private to the host source (linux.c: processes, start-up; linux_sys.c: the
 * system-wide files): the host state and the helpers both use to read /proc files safely and
 * turn kernel figures into counter deltas. Nothing outside core/sources/linux*.c includes it. */
#ifndef MI_LINUX_INT_H
#define MI_LINUX_INT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include "mi_linux.h"
#include "mi_source.h"

#define NCPU_MI 8
#define NCPU_ALL 1024           /* CPUs whose figures the host keeps for mi_linux_cpus (the MI shows 8) */
#define MAX_DISKS 64
#define DISK_FIELDS 17          /* /proc/diskstats figures kept per disk (11 required, 17 since Linux 5.5) */
#define BUF 8192

/* Roles of the items the host drives, and the kernel figure behind each. */
enum {
  G_IDLE, G_PAUSED, G_CS, G_DS, G_BS, G_READY, G_BLOCKED, G_FREE, G_PF,
  C_IDLE, C_ICS, C_BS, C_CS, C_DS, C_INTR,
  P_TIME, P_RD, P_WT, P_RDSZ, P_WTSZ, P_PF,
  D_RDSZ, D_WTSZ, D_RDRTT, D_WTRTT, D_QCUR, D_SWRD, D_SWWT, D_CRD, D_CWR, D_COMPL,
  P_RUNQ, P_LAUNCH,
  W_TRMRD, W_TIMER, W_SEM, W_CHILD, W_PORT, W_MSG, P_RSS,
  Q_AS, Q_BS, Q_CS, Q_DS, Q_ES,
  W_TRMWT, W_SIGNAL, W_RIN, T_SYS, T_CI, T_CICHILD, T_USER,
  NROLE
};

/* The four figures of /proc/[pid]/io the host counts, in the order of roles P_RD..P_WTSZ. */
enum { IO_SYSCR, IO_SYSCW, IO_RBYTES, IO_WBYTES, NIO };

typedef struct hproc {
  int64_t pid, ppid;            /* ppid: its parent at the last reading (who reaps it) */
  uint64_t gen;                 /* refresh that last saw it */
  uint64_t cpu, majflt;
  uint64_t runq, launch;        /* schedstat baselines: run_delay (ns), pcount */
  int64_t rss;                  /* resident 2 KB pages last written to 25201 class 0 */
  uint64_t io[NIO];             /* io figures counted so far (the baseline; UINT64_MAX none) */
  uint64_t io_now[NIO];         /* io figures read by refresh io_gen, added after the deaths are known */
  uint64_t io_gen;
  uint64_t owe[NIO];            /* reaped children's figures Linux adds to this process's io: not its own */
  int owe_left;                 /* readings of its io that grew left to pay them from (then they lapse) */
  int ptype;                    /* its process type (MI_PT_*), for its children's */
  uint64_t comm;                /* hash of the comm its program was named from: another one means an exec */
  uint64_t threads;             /* its thread count (stat num_threads) at the last reading */
} hproc;

/* A user or group name cached by id: the MPE form (mpe_name) or the number. */
typedef struct idname { uint32_t id; char name[12]; } idname;
#define NIDS 64                 /* users and groups cached */
#define NSHELLS 32              /* command interpreters kept from the shells file */
#define PF_KTHREAD 0x00200000u  /* /proc/[pid]/stat flags: a kernel thread */
#define DEPTH_MAX 8             /* parents read ahead of a child at most (a parent not yet listed) */

/* What a refresh reads besides /proc/stat: groups of files, each for its items. */
enum { GR_INTR, GR_MEM, GR_VM, GR_DISK, GR_SCAN, GR_PIO, GR_SCHED, GR_WHERE, GR_RSS, NGROUP };
/* The system-wide files kept open between refreshes (read again with pread from 0). */
enum { K_STAT, K_INTR, K_MEM, K_VM, K_DISK, K_SCHED, NKEPT };
static const char *const kept_rel[NKEPT] = {"stat", "interrupts", "meminfo", "vmstat", "diskstats", "schedstat"};
#define HOUSEKEEP_MS 1000       /* meminfo (memory size) and diskstats (devices) at least this often */
#define OVER_RETRY_MS 5000      /* processes that found the table full are read again this often */

#define NINJECT 4
#define FILE_MAX (4u << 20)     /* the most read of one file: longer files are cut at a line end */
#define VAL_MAX ((uint64_t)INT64_MAX)   /* figures above this are malformed; no sum goes beyond it */

/* Roles of the system-wide items linux_sys.c adds (its table `sysmap`), beyond the roles above. */
enum {
  S_ARRIVE, S_RQMAX, S_RQAREA, S_ALLOC, S_FREED, S_PRESSURE, S_EXAMINED, S_STEAL, S_PAGEOUT,
  S_SWAPIN, S_DEACT, S_ROC, S_LAUNCH, S_DSERVICE, S_DREQSECS, S_DQMAX, S_DCONTROL,
  S_RECOVER, S_FROZEN, S_LRU,
  NSROLE
};
/* The figures kept per processor for mi_linux_cpus. */
enum { F_IDLE, F_ICS, F_BS, F_CS, F_DS, F_INTR, F_LAUNCH, NCPUF };
/* Cumulative figures of vmstat and schedstat the system-wide readers keep between readings
 * (UINT64_MAX: no baseline yet). */
enum { V_ALLOC, V_FREE, V_STALL, V_SCAN, V_STEAL_ANON, V_STEAL_FILE, V_VMSCAN_WRITE, V_PSWPOUT, V_PSWPIN,
       V_DEACT, V_ACT, NVM };
typedef struct hsys {
  mi_ctr c[NSROLE];
  uint64_t vm[NVM];
  uint64_t vm_gen;              /* refresh that last read vmstat */
  uint64_t arrive, rqarea;      /* sums over every CPU: ttwu_count + forks, run_delay (ticks) */
  uint64_t forks;               /* /proc/stat processes (forks, threads' too) at the last reading; UINT64_MAX: none */
  uint64_t launch[NCPU_MI];     /* schedstat pcount of processors 0-7 */
  uint64_t sched_gen;           /* refresh that last read schedstat */
  int ncpu_all;                 /* CPUs /proc/stat lists (all of them; the MI shows the first 8) */
  int ncg;                      /* CPUs of mish's cpuset (cgroup v2 cpuset.cpus.effective), 0: none read */
  uint16_t cg_cpu[NCPU_ALL];    /* the kernel numbers of its CPUs, in order: processors 0, 1, ... */
  int64_t cg_mem_kb;            /* the lowest memory.max on mish's cgroup path, in KB; -1: no limit */
  int64_t cg_quota, cg_period;  /* the tightest cpu.max on the path (quota/period, µs); 0 0: no limit */
  int64_t cg_mem_b;             /* that memory.max in bytes; -1: no limit */
  int64_t cg_ms;                /* when the cgroup was last read (at most once a second) */
  int64_t page_2k;              /* 2 KB pages per kernel page */
  int64_t frozen, lru[2];       /* object-class levels last written: 21285 class 0, 21294 classes 0 and 7 */
  /* every processor's figures, the MI's 8 and the rest (mi_linux_cpus): the first reading and
   * the latest of idle+iowait, irq+softirq+steal, system, user, nice (jiffies), interrupts,
   * timeslices; UINT64_MAX: none yet */
  struct { uint64_t first[NCPUF], now[NCPUF]; } all[NCPU_ALL];
  int nall;                     /* processors listed: the cpuset's CPUs, or every CPU of /proc/stat */
} hsys;

typedef struct host {
  char root[256];
  int age_ms;
  int64_t last_ms;
  uint64_t gen;
  long hz;
  int64_t btime;                /* boot, seconds since 1970 */
  mi_ctr c[NROLE];
  hproc p[MI_MAX_PROCESSES];
  uint64_t cpu[NCPU_MI + 1][8]; /* last /proc/stat values per processor (index 8: all) */
  uint64_t intr[NCPU_MI];       /* last /proc/interrupts sums per processor */
  struct { char name[32]; uint64_t v[DISK_FIELDS]; } disk[MAX_DISKS];   /* disk d is LDEV d + 1 */
  int ndisks;
  uint64_t pgmajfault;
  uint64_t layout;              /* mi_host_layout_gen at the last refresh: a new ON re-reads at once */
  idname users[NIDS], groups[NIDS];
  int nusers, ngroups;
  int sysdb;                    /* 1: users, groups and shells are this machine's (root /proc: the
                                 * user database, /etc/shells); 0: files of <root>/../etc */
  int shells_read;              /* the shells file was read (or is absent) */
  int nshells;
  char shells[NSHELLS][16];     /* file names of its paths ("bash", "sh"...) */
  char *buf;                    /* the file being parsed (slurp), grown up to FILE_MAX + 1 */
  size_t cap;
  mi_linux_health health;
  int trouble;                  /* this refresh failed a read or rejected a file */
  int timed;                    /* refreshes time their own CPU (mi_linux_time_refreshes) */
  struct { char rel[64]; int err; } inject[NINJECT];   /* test hook: reads that fail */
  int rootfd;                   /* the root, kept open: files are opened relative to it; -1 none */
  int procfs;                   /* the root is a procfs: its files are regular and a short read ends them */
  DIR *dir;                     /* the root's listing, kept and rewound */
  int kfd[NKEPT];               /* kept system-wide files, -1 until opened */
  uint64_t rd[NGROUP];          /* refresh (gen) that last read each group */
  int64_t house_ms;             /* last reading of meminfo and diskstats for the configuration */
  uint64_t kept[NGROUP];        /* refresh (gen) that last found each group counted by someone */
  uint64_t on_gen;              /* layout generation on_cache was worked out at (UINT64_MAX: never) */
  int on_cache[NGROUP];         /* which groups are counted, as plan_groups found at on_gen */
  int64_t scan_ms;              /* last reading of the process table (mono_ms) */
  int64_t where_ms;             /* last reading of the blocked-by-reason levels (mono_ms) */
  int proc_age_ms;              /* the process table is read at most this often (0: at every refresh) */
  int64_t *over, *over_next;    /* pids without a slot (the table was full), sorted; being listed now */
  int nover, nover_next, cover;
  int64_t over_ms;              /* when the pids without a slot were last tried again */
  int64_t files;                /* files read by the refresh under way */
  int sched;                    /* this refresh reads each process's schedstat */
  int rss;                      /* this refresh sets each process's resident pages */
  long page_kb;                 /* the kernel's page size, KB */
  int rebase_disks;             /* this reading of diskstats is a baseline */
  /* short-lived tasks (mi_linux_health.short_lived): /proc/stat's fork count at the last scan of
   * the table, the forks and the tasks seen born (processes, threads added) counted since */
  uint64_t scan_forks, forks_sum, born_sum, born_scan;
  int forks_measured;           /* an interval between two table readings had fork counts at both ends */
  hsys s;                       /* the system-wide readers' own state (linux_sys.c) */
} host;

/* The host state driving sys, or NULL if sys is not the host (linux.c). */
host *mi_lx_of(mi_system *sys);

static inline int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A read that failed for a reason other than a process ending (EMFILE, EACCES, ENOMEM...). */
static inline void note_fail(host *h, int err) {
  h->health.failed_reads++;
  h->health.last_errno = err;
  h->trouble = 1;
}

/* A file whose content was rejected (truncated, a field missing, a figure out of range). */
static inline void note_bad(host *h) {
  h->health.malformed++;
  h->trouble = 1;
}

/* Results of slurp besides a length: the read failed (errno in *err) or the file is no text file. */
enum { RD_FAIL = -1, RD_BAD = -2 };

/* 1 (and *err set) if the test hook makes reads of rel fail. */
static inline int injected(host *h, const char *rel, int *err) {
  for (int i = 0; i < NINJECT; i++)
    if (h->inject[i].err && strcmp(h->inject[i].rel, rel) == 0) { *err = h->inject[i].err; return 1; }
  return 0;
}

/* Reads the open file fd (whole, from offset 0, up to FILE_MAX) into h->buf, NUL-terminated at
 * the bytes actually read; a file longer than FILE_MAX is cut after its last complete line.
 * checked: the caller knows fd is a regular file. Never blocks (a fifo or device is RD_BAD).
 * Returns the length, RD_FAIL with *err set, or RD_BAD (not a regular file, an embedded NUL,
 * one unfinished line). Does not close fd. */
static inline ssize_t slurp_fd(host *h, int fd, int checked, int *err) {
  struct stat st;
  if (!checked && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) return RD_BAD;
  size_t n = 0;
  int full = 0;
  for (;;) {
    if (h->cap - n < 2) {
      if (h->cap >= FILE_MAX + 1) { full = 1; break; }
      size_t cap = h->cap ? h->cap * 2 : BUF * 8;
      if (cap > FILE_MAX + 1) cap = FILE_MAX + 1;
      char *b = realloc(h->buf, cap);
      if (!b) { *err = ENOMEM; return RD_FAIL; }
      h->buf = b;
      h->cap = cap;
    }
    size_t want = h->cap - 1 - n;
    ssize_t r = pread(fd, h->buf + n, want, (off_t)n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) { *err = errno; h->buf[0] = 0; return RD_FAIL; }
    if (r == 0) break;
    n += (size_t)r;
    if (h->procfs && (size_t)r < want) break;   /* a procfs file gives all it has at once */
  }
  h->buf[n] = 0;
  if (memchr(h->buf, 0, n)) { h->buf[0] = 0; return RD_BAD; }
  if (full) {                   /* keep whole lines only */
    char *nl = memrchr(h->buf, '\n', n);
    if (!nl) { h->buf[0] = 0; return RD_BAD; }
    n = (size_t)(nl - h->buf) + 1;
    h->buf[n] = 0;
  }
  return (ssize_t)n;
}

/* Opens path relative to dirfd for reading without blocking; the descriptor or -1 (errno). */
static inline int open_rd(int dirfd, const char *path) {
  int fd;
  do fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); while (fd < 0 && errno == EINTR);
  return fd;
}

/* slurp_fd of the file at path (absolute, or relative to the root) named rel for the test hook. */
static inline ssize_t slurp_at(host *h, const char *path, const char *rel, int *err) {
  *err = 0;
  if (h->cap) h->buf[0] = 0;
  if (injected(h, rel, err)) return RD_FAIL;
  h->files++;
  int fd = open_rd(path[0] == '/' || h->rootfd < 0 ? AT_FDCWD : h->rootfd, path);
  if (fd < 0) { *err = errno; return RD_FAIL; }
  ssize_t n = slurp_fd(h, fd, h->procfs, err);
  close(fd);
  return n;
}

/* slurp_at for rel under the root. */
static inline ssize_t slurp(host *h, const char *rel, int *err) {
  if (h->rootfd >= 0) return slurp_at(h, rel, rel, err);
  char path[512];
  snprintf(path, sizeof path, "%s/%s", h->root, rel);
  return slurp_at(h, path, rel, err);
}

/* slurp of system-wide file k, kept open between refreshes (opened again when a fixture's
 * file was replaced: its kept descriptor no longer has a name). */
static inline ssize_t slurp_kept(host *h, int k, int *err) {
  *err = 0;
  if (h->cap) h->buf[0] = 0;
  if (injected(h, kept_rel[k], err)) return RD_FAIL;
  struct stat st;
  if (h->kfd[k] >= 0 || h->rootfd >= 0) h->files++;   /* (else slurp counts it) */
  if (h->kfd[k] >= 0 && !h->procfs && (fstat(h->kfd[k], &st) != 0 || st.st_nlink == 0 || !S_ISREG(st.st_mode))) {
    close(h->kfd[k]);
    h->kfd[k] = -1;
  }
  if (h->kfd[k] < 0) {
    if (h->rootfd < 0) return slurp(h, kept_rel[k], err);
    int fd = open_rd(h->rootfd, kept_rel[k]);
    if (fd < 0) { *err = errno; return RD_FAIL; }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return RD_BAD; }
    h->kfd[k] = fd;
  }
  return slurp_fd(h, h->kfd[k], 1, err);
}

/* slurp_kept for a file every kernel has: a failure or a non-file is noted; returns 1 when read. */
static inline int slurp_noted(host *h, int k) {
  int err;
  ssize_t n = slurp_kept(h, k, &err);
  if (n == RD_FAIL) note_fail(h, err);
  else if (n == RD_BAD) note_bad(h);
  return n >= 0;
}

/* Parses a decimal figure 0..VAL_MAX at *p (after blanks) ending at a blank, line end or the
 * text's end; advances *p past it. Returns 0 (and leaves *p) for anything else: no digits,
 * a sign, a letter glued on, a figure too big. */
static inline int num(const char **p, uint64_t *out) {
  const char *s = *p;
  while (*s == ' ' || *s == '\t') s++;
  if (*s < '0' || *s > '9') return 0;
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (VAL_MAX - (uint64_t)(*s - '0')) / 10) return 0;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  if (*s && *s != ' ' && *s != '\t' && *s != '\n') return 0;
  *p = s;
  *out = v;
  return 1;
}

/* a + b, at most VAL_MAX (both at most VAL_MAX). */
static inline uint64_t sum_sat(uint64_t a, uint64_t b) { return a + b > VAL_MAX ? VAL_MAX : a + b; }

/* d * scale as a counter delta, at most INT64_MAX. */
static inline int64_t scaled(uint64_t d, int64_t scale) {
  if (scale <= 0) return 0;
  return d > VAL_MAX / (uint64_t)scale ? INT64_MAX : (int64_t)d * scale;
}

/* Adds delta to counter c of entity e (class 0 of an object-class counter when objcl),
 * stopping at INT64_MAX rather than wrapping. */
static inline void add_sat(mi_system *sys, mi_ctr c, int e, int objcl, int64_t delta) {
  int64_t cur = mi_host_value(sys, c, e);
  if (cur > 0 && delta > INT64_MAX - cur) delta = INT64_MAX - cur;
  if (delta <= 0) return;
  if (objcl) mi_host_add_objcl(sys, c, e, 0, delta);
  else mi_host_add(sys, c, e, delta);
}

/* Adds (now - *last) * scale to counter role for entity e when the figure grew (a figure that
 * went down is a new baseline); remembers now. *last UINT64_MAX = no baseline yet. */
static inline void bump(mi_system *sys, host *h, int role, int e, uint64_t now, uint64_t *last, int64_t scale) {
  if (now > *last && *last != UINT64_MAX) add_sat(sys, h->c[role], e, role == P_PF || role == G_PF, scaled(now - *last, scale));
  *last = now;
}

/* The figure after `key` at a line start of a "key value" text (meminfo, vmstat, io, status);
 * 1 and *out set if the key is there with a valid figure, else 0. */
static inline int keyed(const char *text, const char *key, uint64_t *out) {
  size_t k = strlen(key);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, key, k) == 0 && (p[k] == ' ' || p[k] == ':' || p[k] == '\t')) {
      const char *v = p + k + 1;
      return num(&v, out);
    }
  return 0;
}

/* The system-wide readers (linux_sys.c); each reads its kept file once and adds what changed. */
/* Resolves the system-wide counters and clears their baselines (at attach). */
void mi_lx_sys_init(host *h);
/* 1 if someone counts an item of file group g (GR_INTR, GR_MEM, GR_VM, GR_DISK) that linux_sys.c drives. */
int mi_lx_sys_active(mi_system *sys, const host *h, int g);
/* The kernel figure behind system-wide item `item` of linux_sys.c's table, NULL if none. */
const char *mi_lx_sys_figure(int32_t item);
/* Describes linux_sys.c's mapped item i (0, 1, ...): its number and *figure; 0 past the end. */
int32_t mi_lx_sys_mapping(int i, const char **figure);
/* /proc/stat: CPU times per processor and overall, running and blocked counts, boot time. */
void mi_lx_read_stat(mi_system *sys, host *h);
/* Every processor's figures since the host first read them (mi_linux_cpus); returns how many
 * processors there are, filling out[0..max). tick: MI ticks per jiffy; round: ticks per MI_Time. */
int mi_lx_cpus(const host *h, int64_t tick, int64_t round, mi_linux_cpu *out, int max);
/* mish's container limits as the host reads them (mi_linux_limits_get). */
void mi_lx_limits(const host *h, mi_linux_limits *out);
/* /proc/interrupts: interrupts taken per processor. */
void mi_lx_read_interrupts(mi_system *sys, host *h);
/* Forgets the object-class levels written while nobody counts them (each refresh): a level
 * enabled afresh starts from 0 in the store. */
void mi_lx_sys_levels(mi_system *sys, host *h);
/* /proc/meminfo: memory size and free memory. */
void mi_lx_read_memory(mi_system *sys, host *h);
/* /proc/vmstat: page faults. */
void mi_lx_read_vmstat(mi_system *sys, host *h);
/* /proc/diskstats: whole disks as disk LDEVs and their figures. */
void mi_lx_read_disks(mi_system *sys, host *h);

#endif
