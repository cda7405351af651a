/* fuzz_proc.c — the /proc reader (core/sources/linux.c) over a generated fake tree. The input is
 * decoded into a small tree (stat, meminfo, vmstat, diskstats, interrupts, a few pids with
 * stat/status/io; each file well-formed, garbage or missing) under a temp dir, read by
 * mi_linux_new(root, 0), then changed and re-read while sessions ON and GET through the AIFs.
 * Besides the common checks, a shadow of the tree says what some counters must hold:
 * CPU time per process and overall, processor user time, levels, live and dead processes. */
#include <ctype.h>
#include <errno.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "mi_linux.h"
#include "fuzz_memfs.h"

#define NP 24          /* pid slots in the tree */
#define NCPUL 12       /* cpuN lines at most */
#define MAX_OPS 60
#define UID_ARG 666

enum { WELL = 0, GARBAGE = 1, MISSING = 2, TRUNC = 3 /* stat ending right after ')' */ };

typedef struct fproc {
  int64_t pid;
  int present, kind, status_kind, io_kind;
  char comm[24];
  uint64_t utime, stime, majflt, starttime, syscr, syscw, rbytes, wbytes;
  uint32_t uid;
  /* shadow */
  int stable;             /* born well-formed and present and well-formed ever since */
  int tainted;            /* was present but not well-formed, or vanished after its birth */
  int trunc_only;         /* every stat it ever had ended right after ')': no figures to count */
  int born;               /* the reader has seen it (created) */
  uint64_t last_cpu, last_flt;
  int64_t acc_cpu, acc_flt;  /* growth since the counter was last zeroed */
  char prog48[48];        /* program FILE.GROUP.ACCOUNT image at creation (#14.4), again after an exec */
  char ident_comm[24];    /* the comm it was identified from: another one at a reading is an exec */
  char user48[48];        /* user USER.GROUP.ACCOUNT image at creation */
  uint32_t js;            /* jsnum image at creation */
  int ptype;              /* process type at creation; MI_PT_USER stands for "user or son" */
  int last_present;       /* last tree version where it was present and well-formed */
  int dead_seen[3];       /* version at which each session was last told of its death, -1 none */
} fproc;

typedef struct tree {
  int stat_kind, mem_kind, vm_kind, disk_kind, intr_kind;
  int ncpul, cpu_idx[NCPUL];
  uint64_t all[8], cpu[NCPUL][8];
  int64_t btime, running, blocked;
  uint64_t memtotal, memfree, pgmajfault;
  uint64_t disk[4][11];
  uint64_t intr[3][NCPUL];
  char garbage[5][160];
  int glen[5];
  fproc p[NP];
} tree;

typedef struct world {
  mi_system *sys;
  fz_ses ses[2];
  fz_epochs ep;
  uint64_t op;
  tree t;
  int version;
  /* shadow of the global and processor CPU user time */
  int stat_tainted;
  uint64_t last_user, last_pc[8];
  int64_t acc_user, acc_pc[8];
  uint16_t refs[5];       /* tracked items' refcounts: 21184, 25047, 25202, 27023, 21092 */
} world;

static const int32_t tracked[5] = {21184, 25047, 25202, 27023, 21092};
static world W;
static char root[160];
static long hz;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  setenv("TZ", "UTC", 1);
  /* the tree is served from memory (fuzz_memfs.c) at a path that is nowhere on disk */
  snprintf(root, sizeof root, "/mish-fuzz-memfs/proc");
  memfs_init(root);
  hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  return 0;
}

/* ---- identity (#14.4): facts derived from the pid, so the input's byte language is unchanged ---- */

#define KTHREAD_FLAGS 0x00208040u   /* PF_KTHREAD among others */
static const char *const exe_dirs[4] = {"/usr/bin", "/opt/x.y z/bin", "", "/usr/lib/very-long-directory"};
static const char *const exe_files[6] = {"abc", "sh", "Python3.11", "x", "a\tb", "verylongfilename"};
/* the tree's etc: root is a user, gids 0 and 1 have names, sh and abc are command interpreters */
static const char etc_passwd[] = "root:x:0:0::/root:/bin/sh\nbad line\n";
static const char etc_group[] = "root:x:0:\nwheel:x:1:root\n";
static const char etc_shells[] = "# shells\n/bin/sh\n/usr/bin/abc\n";

static int f_kthread(const fproc *p) { return p->pid % 7 == 3; }
static int64_t f_sid(const fproc *p) { return p->pid % 3 == 0 ? p->pid : p->pid % 3 == 1 ? 1 : 0; }
static const char *f_tty(const fproc *p) { return p->pid % 2 ? "34816" : p->pid % 4 == 0 ? "-5" : "0"; }
static uint32_t f_gid(const fproc *p) { return p->uid % 2; }
/* The parent: the previous slot's process now and then, else pid 1. */
static int64_t f_ppid(const tree *t, const fproc *p) {
  int i = (int)(p - t->p);
  return i > 0 && p->pid % 5 == 1 && t->p[i - 1].pid ? t->p[i - 1].pid : 1;
}
/* The exe link's target into out (1), or 0 for none (kernel threads, one pid in 5). */
static int f_exe(const fproc *p, char *out, size_t cap) {
  if (f_kthread(p) || p->pid % 5 == 0) return 0;
  snprintf(out, cap, "%s/%s%s", exe_dirs[p->pid % 4], exe_files[(p->pid / 4) % 6], p->pid % 11 == 0 ? " (deleted)" : "");
  return 1;
}

/* The MPE form of s[0..n) into a 16-byte field: 8 characters, upper case, '_' for '.' and blank,
 * '?' for the rest that is not printable ASCII; blank-padded. */
static void mpe16(char out[16], const char *s, size_t n) {
  memset(out, ' ', 16);
  if (n > 8) n = 8;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    out[i] = c == '.' || c == ' ' ? '_' : c < 33 || c > 126 ? '?' : (char)toupper(c);
  }
}

/* The identity the reader must give p at its birth (core/SOURCES.md, "The host source"). */
static void shadow_ident(const tree *t, fproc *p) {
  char exe[128];
  memset(p->prog48, ' ', 48);
  int have = f_exe(p, exe, sizeof exe);
  const char *prog = p->comm;
  if (have) {
    size_t n = strlen(exe);
    if (p->pid % 11 == 0) exe[n -= 10] = 0;   /* " (deleted)" */
    const char *end = exe + n;
    for (int k = 0; k < 3 && end > exe; k++) {
      const char *s = end;
      while (s > exe && s[-1] != '/') s--;
      mpe16(p->prog48 + 16 * k, s, (size_t)(end - s));
      if (k == 0) prog = s;
      end = s > exe ? s - 1 : exe;
    }
  } else mpe16(p->prog48, p->comm, strlen(p->comm));
  char num[16];
  memset(p->user48, ' ', 48);
  if (p->uid == 0) mpe16(p->user48, "root", 4);
  else { int n = snprintf(num, sizeof num, "%u", p->uid); memcpy(p->user48, num, (size_t)n); }
  const char *g = f_gid(p) ? "wheel" : "root";
  mpe16(p->user48 + 16, g, strlen(g));
  mpe16(p->user48 + 32, g, strlen(g));
  int64_t sid = f_sid(p);
  int sys = f_kthread(p) || p->pid == 1;
  int jt = sys || sid <= 0 ? 0 : strcmp(f_tty(p), "0") ? 1 : 2;
  p->js = jt ? (uint32_t)(jt << 14 | (int)((sid - 1) % 16383 + 1)) : 0;
  /* the comm the reader compares is the cleaned one; a shell's name has no odd character */
  p->ptype = sys ? MI_PT_SYSTEM : p->pid == sid ? MI_PT_JSMAIN : !strcmp(prog, "sh") || !strcmp(prog, "abc") ? MI_PT_CI : MI_PT_USER;
  (void)t;
}

/* ---- the tree on disk ---- */

/* What is on disk under root, kept between inputs (rewriting and removing the whole tree for each
 * input was a third of the harness's time, in the kernel): each file written and a hash of its
 * text (on: it exists), the pid directories there (with their exe links, which depend on the pid
 * only) and whether the fixed directories exist. write_tree makes the disk hold exactly the
 * tree: what changed is written, what the tree does not have is removed, so a file the input
 * does not mention is missing as in a fresh tree. */
#define NFC 160
static struct { char rel[48]; uint64_t hash; int on, touched; } fc[NFC];
static int64_t pdir[NP * 4];   /* pid directories on disk, 0 a free place */
static int fixed_dirs;         /* root, sys/kernel and self exist */

/* Writes a file of the tree unless it already holds text. */
static void put_file(const char *rel, const char *text, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)text[i]) * 1099511628211ull;
  h ^= n;
  int e = 0, free_e = -1;
  for (; e < NFC && strcmp(fc[e].rel, rel); e++) if (free_e < 0 && !fc[e].on) free_e = e;
  if (e == NFC) {   /* a file not written before takes the place of one that is gone */
    if (free_e < 0) { fprintf(stderr, "fuzz_proc: more than %d files in the tree\n", NFC); abort(); }
    e = free_e;
    snprintf(fc[e].rel, sizeof fc[e].rel, "%s", rel);
  } else if (fc[e].on && fc[e].hash == h) { fc[e].touched = 1; return; }
  fc[e].touched = 1;
  fc[e].hash = h;
  fc[e].on = 1;
  if (memfs_put(rel, text, n) != 0) abort();   /* in place: the reader's kept descriptors see it */
}

/* 1 if the tree has a present process with this pid. */
static int pid_present(const tree *t, int64_t pid) {
  for (int i = 0; i < NP; i++) if (t->p[i].present && t->p[i].pid == pid) return 1;
  return 0;
}

/* The tree check: what a walk of the tree found that the bookkeeping does not explain. */
static int disk_files, disk_dirs;
/* Checks one entry of the tree against the bookkeeping: a file is one written (with the text its
 * hash says), a directory a fixed one or a pid directory, a link a pid directory's exe. */
static void disk_one(const char *rel, char type, const char *text, size_t n, void *arg) {
  (void)arg;
  if (!strncmp(rel, "../etc/", 7)) return;
  if (type == 'l') { FZ_CHECK(strstr(rel, "/exe") != NULL, "fuzz_proc: a link %s in the tree", rel); return; }
  if (type == 'd') {
    if (!strcmp(rel, "sys") || !strcmp(rel, "sys/kernel") || !strcmp(rel, "self")) return;
    int64_t pid = strtoll(rel, NULL, 10);
    int known = 0;
    for (int d = 0; d < NP * 4; d++) known |= pdir[d] == pid && pid;
    FZ_CHECK(known, "fuzz_proc: a directory %s in the tree that is no pid directory of it", rel);
    disk_dirs++;
    return;
  }
  int e = 0;
  while (e < NFC && !(fc[e].on && !strcmp(fc[e].rel, rel))) e++;
  FZ_CHECK(e < NFC, "fuzz_proc: a file %s in the tree that the input does not have", rel);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)text[i]) * 1099511628211ull;
  h ^= (uint64_t)n;
  FZ_CHECK(h == fc[e].hash, "fuzz_proc: %s in the tree is not the text written", rel);
  disk_files++;
}
/* Checks that the tree holds exactly what the bookkeeping says (so a file the input does not
 * mention is missing, as in a fresh tree): every file, its text and every directory. */
static void check_disk(void) {
  disk_files = disk_dirs = 0;
  memfs_walk(disk_one, NULL);
  int files = 0, dirs = 0;
  for (int e = 0; e < NFC; e++) files += fc[e].on;
  for (int d = 0; d < NP * 4; d++) dirs += pdir[d] != 0;
  FZ_CHECK(disk_files == files && disk_dirs == dirs, "fuzz_proc: %d files and %d pid directories in the tree, %d and %d written",
           disk_files, disk_dirs, files, dirs);
}

/* Writes every file of the tree that changed and removes those that are gone. */
static void write_tree(const tree *t) {
  for (int e = 0; e < NFC; e++) fc[e].touched = 0;
  char path[256], buf[8192];
  if (!fixed_dirs) {
    memfs_mkdir("sys");
    memfs_mkdir("sys/kernel");
    memfs_mkdir("self");   /* a directory that is not a pid */
    fixed_dirs = 1;
  }
  put_file("sys/kernel/threads-max", "63418\n", 6);
  int n;
  /* stat */
  if (t->stat_kind == WELL) {
    n = snprintf(buf, sizeof buf, "cpu  %llu %llu %llu %llu %llu %llu %llu %llu 0 0\n",
                 (unsigned long long)t->all[0], (unsigned long long)t->all[1], (unsigned long long)t->all[2],
                 (unsigned long long)t->all[3], (unsigned long long)t->all[4], (unsigned long long)t->all[5],
                 (unsigned long long)t->all[6], (unsigned long long)t->all[7]);
    for (int c = 0; c < t->ncpul; c++)
      n += snprintf(buf + n, sizeof buf - (size_t)n, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu 0 0\n", t->cpu_idx[c],
                    (unsigned long long)t->cpu[c][0], (unsigned long long)t->cpu[c][1], (unsigned long long)t->cpu[c][2],
                    (unsigned long long)t->cpu[c][3], (unsigned long long)t->cpu[c][4], (unsigned long long)t->cpu[c][5],
                    (unsigned long long)t->cpu[c][6], (unsigned long long)t->cpu[c][7]);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "intr 12345 0 0\nctxt 999\nbtime %lld\nprocesses 4242\n"
                  "procs_running %lld\nprocs_blocked %lld\nsoftirq 1 2 3\n",
                  (long long)t->btime, (long long)t->running, (long long)t->blocked);
    put_file("stat", buf, (size_t)n);
  } else if (t->stat_kind == GARBAGE) put_file("stat", t->garbage[0], (size_t)t->glen[0]);
  /* meminfo, vmstat */
  if (t->mem_kind == WELL) {
    n = snprintf(buf, sizeof buf, "MemTotal:       %llu kB\nMemFree:        %llu kB\nMemAvailable:   1 kB\n",
                 (unsigned long long)t->memtotal, (unsigned long long)t->memfree);
    put_file("meminfo", buf, (size_t)n);
  } else if (t->mem_kind == GARBAGE) put_file("meminfo", t->garbage[1], (size_t)t->glen[1]);
  if (t->vm_kind == WELL) {
    n = snprintf(buf, sizeof buf, "nr_free_pages 1\npgfault 77\npgmajfault %llu\n", (unsigned long long)t->pgmajfault);
    put_file("vmstat", buf, (size_t)n);
  } else if (t->vm_kind == GARBAGE) put_file("vmstat", t->garbage[2], (size_t)t->glen[2]);
  /* diskstats: two disks, a partition, a loop device */
  static const char *const dn[4] = {"sda", "sda1", "nvme0n1", "loop0"};
  if (t->disk_kind == WELL) {
    n = 0;
    for (int d = 0; d < 4; d++) {
      n += snprintf(buf + n, sizeof buf - (size_t)n, "   8       %d %s", d, dn[d]);
      for (int k = 0; k < 11; k++) n += snprintf(buf + n, sizeof buf - (size_t)n, " %llu", (unsigned long long)t->disk[d][k]);
      n += snprintf(buf + n, sizeof buf - (size_t)n, " 0 0 0 0\n");
    }
    put_file("diskstats", buf, (size_t)n);
  } else if (t->disk_kind == GARBAGE) put_file("diskstats", t->garbage[3], (size_t)t->glen[3]);
  /* interrupts */
  if (t->intr_kind == WELL) {
    int cols = t->ncpul ? t->ncpul : 1;
    n = snprintf(buf, sizeof buf, "      ");
    for (int c = 0; c < cols; c++) n += snprintf(buf + n, sizeof buf - (size_t)n, "     CPU%d", c);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "\n");
    static const char *const rows[3] = {"  0:", "LOC:", "RES:"};
    for (int r = 0; r < 3; r++) {
      n += snprintf(buf + n, sizeof buf - (size_t)n, "%s", rows[r]);
      for (int c = 0; c < cols; c++) n += snprintf(buf + n, sizeof buf - (size_t)n, " %10llu", (unsigned long long)t->intr[r][c]);
      n += snprintf(buf + n, sizeof buf - (size_t)n, "   IO-APIC   2-edge      timer\n");
    }
    n += snprintf(buf + n, sizeof buf - (size_t)n, "ERR:          0\nMIS:          0\n");
    put_file("interrupts", buf, (size_t)n);
  } else if (t->intr_kind == GARBAGE) put_file("interrupts", t->garbage[4], (size_t)t->glen[4]);
  /* processes */
  for (int i = 0; i < NP; i++) {
    const fproc *p = &t->p[i];
    if (!p->present) continue;
    char rel[64];
    int d = 0, free_d = -1;
    for (; d < NP * 4 && pdir[d] != p->pid; d++) if (free_d < 0 && !pdir[d]) free_d = d;
    if (d == NP * 4) {   /* a new directory, with its exe link */
      if (free_d < 0) { fprintf(stderr, "fuzz_proc: more than %d pid directories\n", NP * 4); abort(); }
      pdir[free_d] = p->pid;
      char exe[128], link[64];
      snprintf(link, sizeof link, "%lld", (long long)p->pid);
      if (memfs_mkdir(link) != 0) abort();
      snprintf(link, sizeof link, "%lld/exe", (long long)p->pid);
      if (f_exe(p, exe, sizeof exe) && memfs_symlink(link, exe) != 0) abort();
    }
    snprintf(rel, sizeof rel, "%lld/stat", (long long)p->pid);
    if (p->kind == WELL) {
      n = snprintf(buf, sizeof buf, "%lld (%s) S %lld %lld %lld %s -1 %u 100 0 %llu 0 %llu %llu 0 0 20 0 1 0 %llu 1000 10",
                   (long long)p->pid, p->comm, (long long)f_ppid(t, p), (long long)f_sid(p), (long long)f_sid(p), f_tty(p),
                   f_kthread(p) ? KTHREAD_FLAGS : 4194560u, (unsigned long long)p->majflt, (unsigned long long)p->utime,
                   (unsigned long long)p->stime, (unsigned long long)p->starttime);
      n += snprintf(buf + n, sizeof buf - (size_t)n, " 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
      put_file(rel, buf, (size_t)n);
    } else if (p->kind == GARBAGE) put_file(rel, p->comm, strlen(p->comm));
    else if (p->kind == TRUNC) { n = snprintf(buf, sizeof buf, "%lld (%s)", (long long)p->pid, p->comm); put_file(rel, buf, (size_t)n); }
    snprintf(rel, sizeof rel, "%lld/status", (long long)p->pid);
    if (p->status_kind == WELL) {
      n = snprintf(buf, sizeof buf, "Name:\t%s\nState:\tS (sleeping)\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", p->comm, p->uid,
                   p->uid, p->uid, p->uid, f_gid(p), f_gid(p), f_gid(p), f_gid(p));
      put_file(rel, buf, (size_t)n);
    } else if (p->status_kind == GARBAGE) put_file(rel, "Uid:\tx\n\nUid:", 12);
    snprintf(rel, sizeof rel, "%lld/io", (long long)p->pid);
    if (p->io_kind == WELL) {
      n = snprintf(buf, sizeof buf, "rchar: 1\nwchar: 2\nsyscr: %llu\nsyscw: %llu\nread_bytes: %llu\nwrite_bytes: %llu\n",
                   (unsigned long long)p->syscr, (unsigned long long)p->syscw, (unsigned long long)p->rbytes,
                   (unsigned long long)p->wbytes);
      put_file(rel, buf, (size_t)n);
    } else if (p->io_kind == GARBAGE) put_file(rel, "syscr\n: 9", 9);
  }
  /* what the new tree does not have any more (this input's or an earlier one's) */
  for (int e = 0; e < NFC; e++)
    if (!fc[e].touched && fc[e].on) {
      if (memfs_unlink(fc[e].rel) != 0) abort();
      fc[e].on = 0;
    }
  for (int d = 0; d < NP * 4; d++)
    if (pdir[d] && !pid_present(t, pdir[d])) {
      snprintf(path, sizeof path, "%lld/exe", (long long)pdir[d]);
      memfs_unlink(path);
      snprintf(path, sizeof path, "%lld", (long long)pdir[d]);
      if (memfs_rmdir(path) != 0) abort();
      pdir[d] = 0;
    }
}

/* ---- generating and changing the tree ---- */

/* A counter value: small mostly; huge ones only when huge numbers are not avoided. */
static uint64_t gen_num(fz_in *in) {
  uint8_t k = fz_u8(in);
  if (k < 200) return fz_u16(in);
  uint64_t v = fz_u64(in);   /* the same bytes either way, so an input means the same in both modes */
  return k < 240 || (fz_avoid & FZ_AVOID_HUGE) ? v >> 33 : v;
}
/* 1 if the reader takes the cpu lines of this stat: well-formed, every figure of the cpu
 * line and of the cpuN lines it reads (N >= 0) at most 2^63-1, N below 65536, btime below
 * 10^12 and procs_running/blocked not negative (core/SOURCES.md, host source: otherwise every
 * cpu line of the reading is rejected). */
static int stat_read(const tree *t) {
  if (t->stat_kind != WELL || t->btime < 0 || t->btime >= 1000000000000ll || t->running < 0 || t->blocked < 0) return 0;
  for (int k = 0; k < 8; k++)
    if (t->all[k] > (uint64_t)INT64_MAX) return 0;
  for (int c = 0; c < t->ncpul; c++) {
    if (t->cpu_idx[c] < 0) continue;   /* "cpu-5" is no cpu line to the reader */
    if (t->cpu_idx[c] >= 65536) return 0;
    for (int k = 0; k < 8; k++)
      if (t->cpu[c][k] > (uint64_t)INT64_MAX) return 0;
    for (int d = 0; d < c; d++)   /* a CPU whose figures the reader keeps (below 1024) listed twice */
      if (t->cpu_idx[d] == t->cpu_idx[c] && t->cpu_idx[c] < 1024) return 0;
  }
  return 1;
}
/* 1 if the reader takes this meminfo: well-formed and both figures at most 2^63-1 (core/SOURCES.md,
 * host source: a bigger number makes the file malformed, and the last reading's values stay). */
static int mem_read(const tree *t) {
  return t->mem_kind == WELL && t->memtotal <= (uint64_t)INT64_MAX && t->memfree <= (uint64_t)INT64_MAX;
}
/* A counter's next value: grown a little mostly, sometimes the same, smaller or anything. */
static uint64_t grow(fz_in *in, uint64_t v) {
  uint8_t k = fz_u8(in);
  if (k < 180) return v + fz_u8(in);
  if (k < 220) return v;
  if (k < 240) return v > 100 ? v - fz_u8(in) % 100 : 0;   /* a counter going backwards */
  return gen_num(in);
}
/* How a file is: well-formed mostly, sometimes garbage or missing. */
static int gen_kind(fz_in *in) {
  uint8_t k = fz_u8(in);
  return k < 210 ? WELL : k < 235 ? GARBAGE : MISSING;
}
/* Garbage for global file f: input bytes, often digits and the words the reader looks for. */
static void gen_garbage(fz_in *in, tree *t, int f) {
  int n = fz_u8(in) % 150;
  for (int i = 0; i < n; i++) {
    uint8_t c = fz_u8(in);
    t->garbage[f][i] = (char)(c < 64 ? " 0123456789\n:cpuCPUMemFreeTotalpgmajfaultprocs_runningbtimeLOCsda"[c] : c);
  }
  t->glen[f] = n;
}
/* A command name with parentheses, blanks, control and non-ASCII characters now and then. */
static void gen_comm(fz_in *in, fproc *p) {
  int n = fz_u8(in) % 20;
  for (int i = 0; i < n; i++) {
    uint8_t c = fz_u8(in);
    p->comm[i] = (char)(c < 128 ? "abc () ) (x\n\t\xe9" [c % 14] : (c % 95) + 32);
    if (!p->comm[i]) p->comm[i] = 'a';
  }
  p->comm[n] = 0;
  if ((fz_avoid & FZ_AVOID_STATEND) && p->kind == GARBAGE && n && p->comm[n - 1] == ')') p->comm[n - 1] = 'x';
}
/* Process slot i of the tree: a pid not used by another slot, its files and figures. */
static void gen_proc(fz_in *in, tree *t, int i) {
  fproc *p = &t->p[i];
  memset(p, 0, sizeof *p);
  uint8_t k = fz_u8(in);
  if (k < 240) p->pid = 2 + i * 37 + fz_u8(in) % 30;
  else { uint64_t x = fz_u64(in); p->pid = (fz_avoid & FZ_AVOID_HUGE) ? (int64_t)(1 + x % 4000000) : (int64_t)(x >> 1); }
  if (p->pid <= 0) p->pid = 1;
  for (int j = 0; j < NP; j++) if (j != i && t->p[j].pid == p->pid) p->pid = 100000 + i;
  p->present = fz_u8(in) < 200;
  p->kind = gen_kind(in);
  uint8_t tk = fz_u8(in);
  if (!(fz_avoid & FZ_AVOID_STATEND) && tk < 8) p->kind = TRUNC;
  p->status_kind = gen_kind(in);
  p->io_kind = gen_kind(in);
  gen_comm(in, p);
  p->utime = gen_num(in); p->stime = gen_num(in); p->majflt = gen_num(in); p->starttime = gen_num(in);
  p->syscr = gen_num(in); p->syscw = gen_num(in); p->rbytes = gen_num(in); p->wbytes = gen_num(in);
  p->uid = fz_u8(in) < 128 ? 0 : fz_u16(in);
  for (int s = 0; s < 3; s++) p->dead_seen[s] = -1;
  p->last_present = -1;
  p->trunc_only = 1;
}
/* The first tree: every global file, CPU lines, a few processes. */
static void gen_tree(fz_in *in, tree *t) {
  memset(t, 0, sizeof *t);
  t->stat_kind = gen_kind(in); t->mem_kind = gen_kind(in); t->vm_kind = gen_kind(in);
  t->disk_kind = gen_kind(in); t->intr_kind = gen_kind(in);
  for (int f = 0; f < 5; f++) gen_garbage(in, t, f);
  t->ncpul = fz_u8(in) % (NCPUL + 1);
  for (int c = 0; c < t->ncpul; c++) {
    uint8_t k = fz_u8(in);
    if (k < 220) t->cpu_idx[c] = c;
    else { uint32_t x = fz_u32(in); t->cpu_idx[c] = k < 250 || (fz_avoid & FZ_AVOID_HUGE) ? (int)(x % 20) : (int)x; }
    for (int f = 0; f < 8; f++) t->cpu[c][f] = gen_num(in);
  }
  for (int f = 0; f < 8; f++) t->all[f] = gen_num(in);
  t->btime = fz_u8(in) < 200 ? 1700000000 : (int64_t)gen_num(in);
  t->running = (int64_t)gen_num(in); t->blocked = (int64_t)gen_num(in);
  t->memtotal = gen_num(in); t->memfree = gen_num(in); t->pgmajfault = gen_num(in);
  for (int d = 0; d < 4; d++) for (int k = 0; k < 11; k++) t->disk[d][k] = gen_num(in);
  for (int r = 0; r < 3; r++) for (int c = 0; c < NCPUL; c++) t->intr[r][c] = gen_num(in);
  int np = fz_u8(in) % NP;
  for (int i = 0; i < np; i++) gen_proc(in, t, i);
}
/* Changes the tree a little: counters grow (or not), processes come and go, files break. */
static void mutate(fz_in *in, tree *t) {
  int changes = 1 + fz_u8(in) % 6;
  for (int c = 0; c < changes; c++) {
    uint8_t k = fz_u8(in) % 12;
    switch (k) {
    case 0: for (int f = 0; f < 8; f++) t->all[f] = grow(in, t->all[f]); break;
    case 1: { int l = t->ncpul ? fz_u8(in) % t->ncpul : 0; for (int f = 0; f < 8; f++) t->cpu[l][f] = grow(in, t->cpu[l][f]); break; }
    case 2: t->running = (int64_t)gen_num(in); t->memfree = gen_num(in); t->memtotal = grow(in, t->memtotal); break;
    case 3: {   /* a process appears or vanishes */
      int i = fz_u8(in) % NP;
      if (!t->p[i].pid) gen_proc(in, t, i);
      else t->p[i].present = !t->p[i].present;
      break;
    }
    case 4: case 5: {   /* a process works */
      int i = fz_u8(in) % NP;
      fproc *p = &t->p[i];
      p->utime = grow(in, p->utime); p->stime = grow(in, p->stime); p->majflt = grow(in, p->majflt);
      p->syscr = grow(in, p->syscr); p->rbytes = grow(in, p->rbytes);
      break;
    }
    case 6: {   /* a file breaks or mends */
      int f = fz_u8(in) % 5;
      int *kinds[5] = {&t->stat_kind, &t->mem_kind, &t->vm_kind, &t->disk_kind, &t->intr_kind};
      *kinds[f] = gen_kind(in);
      if (*kinds[f] == GARBAGE) gen_garbage(in, t, f);
      break;
    }
    case 7: { int i = fz_u8(in) % NP; t->p[i].kind = gen_kind(in); t->p[i].io_kind = gen_kind(in); gen_comm(in, &t->p[i]); break; }
    case 8: for (int d = 0; d < 4; d++) for (int f = 0; f < 11; f++) t->disk[d][f] = grow(in, t->disk[d][f]); break;
    case 9: for (int r = 0; r < 3; r++) for (int cc = 0; cc < NCPUL; cc++) t->intr[r][cc] = grow(in, t->intr[r][cc]); break;
    case 10: t->ncpul = fz_u8(in) % (NCPUL + 1); break;
    default: t->pgmajfault = grow(in, t->pgmajfault); break;
    }
  }
}

/* ---- the shadow ---- */

/* The growth a reader adds for a figure that went from *last to now (a drop adds nothing). */
static int64_t growth(uint64_t now, uint64_t *last) {
  int64_t g = now > *last && *last != UINT64_MAX ? (int64_t)(now - *last) : 0;
  *last = now;
  return g;
}

/* The reader's arithmetic, which stops at INT64_MAX instead of wrapping: a + b of two figures
 * (each at most INT64_MAX), and a counter's growth added to what it holds. */
static uint64_t sat_sum(uint64_t a, uint64_t b) { return a + b > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : a + b; }
static void acc_add(int64_t *acc, int64_t g) { *acc = *acc > INT64_MAX - g ? INT64_MAX : *acc + g; }

/* Folds what one reading of the tree adds into the shadow (version > 0: after a change). */
static void shadow_read(world *w, int first) {
  tree *t = &w->t;
  if (!stat_read(t)) w->stat_tainted = 1;
  else {
    int64_t g = growth(t->all[0], &w->last_user);
    if (w->refs[0]) acc_add(&w->acc_user, g);
    uint64_t sum[8] = {0};
    int64_t ncpu = 0;
    for (int c = 0; c < t->ncpul; c++) {
      if (t->cpu_idx[c] < 0) continue;   /* "cpu-5": the reader skips it */
      if (t->cpu_idx[c] < 8) sum[t->cpu_idx[c]] = t->cpu[c][0];   /* CPUs 8 and up: the global figures only */
      if ((int64_t)t->cpu_idx[c] + 1 > ncpu) ncpu = (int64_t)t->cpu_idx[c] + 1;
    }
    for (int c = 0; c < 8 && c < ncpu; c++) {
      g = growth(sum[c], &w->last_pc[c]);
      if (w->refs[3]) acc_add(&w->acc_pc[c], g);
    }
  }
  for (int i = 0; i < NP; i++) {
    fproc *p = &t->p[i];
    if (!p->pid) continue;
    /* a directory name over INT32_MAX is not a pid to the reader (core/SOURCES.md, host source) */
    /* a figure of the stat over INT64_MAX makes it malformed to the reader, as a global one */
    int well = p->kind == WELL && p->utime <= (uint64_t)INT64_MAX && p->stime <= (uint64_t)INT64_MAX &&
               p->majflt <= (uint64_t)INT64_MAX && p->starttime <= (uint64_t)INT64_MAX;
    int seen = p->present && well && p->pid <= INT32_MAX;
    if (p->present) p->last_present = w->version;
    if (p->present && !well) p->tainted = 1;
    if (p->present && p->kind != TRUNC) p->trunc_only = 0;
    if (!p->born) {
      if (!seen || p->status_kind != WELL) continue;   /* a birth reads the status (uid, gid): it waits for a good one */
      p->born = 1;
      FZ_TRACE("shadow: pid %lld born (comm '%s', first %d)\n", (long long)p->pid, p->comm, first);
      shadow_ident(t, p);
      memcpy(p->ident_comm, p->comm, sizeof p->comm);
      p->last_cpu = p->last_flt = first ? UINT64_MAX : 0;
      p->acc_cpu = p->acc_flt = 0;
    }
    if (!p->present) p->tainted = 1;
    p->stable = !p->tainted;
    if (!seen) continue;
    if (strcmp(p->comm, p->ident_comm)) {   /* a new comm: an exec, its program read again (core/SOURCES.md) */
      shadow_ident(t, p);
      memcpy(p->ident_comm, p->comm, sizeof p->comm);
    }
    int64_t g = growth(sat_sum(p->utime, p->stime), &p->last_cpu);
    if (w->refs[1]) acc_add(&p->acc_cpu, g);
    g = growth(p->majflt, &p->last_flt);
    if (w->refs[2]) acc_add(&p->acc_flt, g);
  }
}

/* Zeroes the shadow of items whose cells restarted (refcount 0 -> more) during the last op. */
static void shadow_refs(world *w) {
  for (int k = 0; k < 5; k++) {
    const mi_item_info *it = fz_item(tracked[k]);
    uint16_t r = w->sys->seg->dom[it->domain].refs[it->index];
    if (r && !w->refs[k]) {
      if (k == 0) w->acc_user = 0;
      if (k == 1) for (int i = 0; i < NP; i++) w->t.p[i].acc_cpu = 0;
      if (k == 2) for (int i = 0; i < NP; i++) w->t.p[i].acc_flt = 0;
      if (k == 3) memset(w->acc_pc, 0, sizeof w->acc_pc);
    }
    w->refs[k] = r;
  }
}

/* MI_Time of n jiffies: ticks per jiffy (3043 x 1000 / hz), divided by the rounding 3042. */
static uint32_t mi_time_of(const world *w, int64_t jiffies) {
  int64_t tick = (int64_t)mi_host_ticks_per_ms(w->sys) * 1000 / hz, ticks;
  if (tick <= 0) return 0;
  if (__builtin_mul_overflow(jiffies, tick, &ticks)) ticks = INT64_MAX;   /* the cell stops there */
  return (uint32_t)(uint64_t)(ticks / w->sys->seg->round);
}

/* ---- AIF calls ---- */

/* The tree's process with this pid (whatever its state), or NULL. */
static fproc *find_pid(world *w, int64_t pid) {
  for (int i = 0; i < NP; i++) if (w->t.p[i].pid == pid) return &w->t.p[i];
  return NULL;
}

/* An item list of the harness's favourite items (and some others); lead puts 20001, 20002 first. */
static void make_list(fz_in *in, int32_t *a, int *n, const int32_t *fav, int nfav, int domain, int lead) {
  int m = 0;
  if (lead) { a[m++] = 20001; a[m++] = 20002; }
  int k = fz_u8(in) % 8;
  for (int i = 0; i < k; i++) a[m++] = fz_u8(in) < 200 ? fav[fz_u8(in) % nfav] : fz_pick_item(in, domain);
  for (int i = 0; i < m; i++) if (!a[i]) a[i] = 1;
  a[m] = 0;
  *n = m;
}

static const int32_t gfav[] = {21184, 21177, 21092, 21309, 21164, 21254, 21176, 21183, 21185, 21112};
static const int32_t pfav[] = {20001, 20002, 20004, 20003, 20011, 25047, 25202, 25167, 25168, 25169, 25170, 20012};
static const int32_t ifav[] = {20020, 23000, 23001, 23002, 23003, 23024, 23023, 23034, 23046, 23048};
static const int32_t cfav[] = {20040, 27006, 27012, 27022, 27023, 27024, 27014};

/* An ON for one domain of one of the sessions (all processes, all or disk LDEVs). */
static void op_on(world *w, fz_in *in, int domain) {
  fz_ses *m = &w->ses[fz_u8(in) & 1];
  int32_t nums[MI_MAX_ITEMS + 1], stats[MI_MAX_ITEMS + 1];
  int n;
  if (domain == MI_DOM_GLOBAL) make_list(in, nums, &n, gfav, 10, domain, 0);
  else if (domain == MI_DOM_PROCESS) make_list(in, nums, &n, pfav, 12, domain, 0);
  else make_list(in, nums, &n, ifav, 10, domain, 0);
  /* the large mapping makes per-class process counters 2700 x 720 cells: rarely */
  uint8_t mk = fz_u8(in);
  int32_t mapping = mk < 16 ? 0 : 1 + mk % 2, ldev = fz_u8(in) < 128 ? -1 : -2;
  status_type st;
  for (int i = 0; i < n; i++) stats[i] = 0x7EEEEEEE;
  if (domain == MI_DOM_GLOBAL) mi_globon(m->s, &st, nums, stats, &mapping, UID_ARG);
  else if (domain == MI_DOM_PROCESS) mi_procon(m->s, &st, nums, stats, &mapping, NULL, UID_ARG);
  else mi_ioon(m->s, &st, nums, stats, &mapping, &ldev, UID_ARG);
  fz_check_overall(st, n, "ON");
  FZ_TRACE("ON domain %d: %d items, status %d\n", domain, n, st.s.info);
  for (int i = 0; i < n; i++) if (stats[i] != 0x7EEEEEEE) fz_check_item_status(stats[i], "ON", i);
  fz_model_on(domain == MI_DOM_GLOBAL ? m->glob : domain == MI_DOM_PROCESS ? m->proc : m->io, st, nums, stats, n);
}

/* A GET with room for every record; common checks, then the shadow's values. */
static void op_get(world *w, fz_in *in, int domain) {
  int si = fz_u8(in) & 1;
  fz_ses *m = &w->ses[si];
  int32_t nums[MI_MAX_ITEMS + 1], stats[MI_MAX_ITEMS + 1];
  int n;
  if (domain == MI_DOM_GLOBAL) make_list(in, nums, &n, gfav, 10, domain, 0);
  else if (domain == MI_DOM_PROCESS) make_list(in, nums, &n, pfav, 12, domain, 1);
  else if (domain == MI_DOM_IO) make_list(in, nums, &n, ifav, 10, domain, 0);
  else make_list(in, nums, &n, cfav, 7, domain, 0);
  int32_t mapping = fz_u8(in) % 3;
  int64_t rec = fz_record_bytes(nums, n, domain, mapping);
  int32_t size = (int32_t)(rec * (domain == MI_DOM_GLOBAL ? 1 : 64));
  if (fz_u8(in) < 20) size = fz_u16(in);
  uint8_t *buf = fz_alloc((size_t)size);
  for (int i = 0; i < n; i++) stats[i] = 0x7EEEEEEE;
  int32_t count = -7, sel = -1;
  status_type st;
  if (fz_skip_nullrow(w->sys, domain)) { free(buf); return; }
  switch (domain) {
  case MI_DOM_GLOBAL: mi_globget(m->s, &st, nums, buf, stats, size, mapping, UID_ARG); break;
  case MI_DOM_PROCESS: mi_procget(m->s, &st, nums, buf, stats, size, mapping, NULL, &count, NULL, UID_ARG); break;
  case MI_DOM_IO: mi_ioget(m->s, &st, nums, buf, stats, size, mapping, &sel, &count, UID_ARG); break;
  default: mi_prcsrget(m->s, &st, nums, buf, stats, size, mapping, &sel, &count, UID_ARG);
  }
  fz_check_overall(st, n, "GET");
  FZ_TRACE("GET domain %d: %d items, status %d, %d records\n", domain, n, st.s.info, count);
  fz_canary_check(buf, (size_t)size, "GET buffer");
  fz_get g = {"GET", domain, mapping, w->sys->seg->mapping, n, nums, stats,
              domain == MI_DOM_PROCESS ? m->proc : domain == MI_DOM_IO ? m->io : m->glob, m->glob[21164 - 20000], NULL};
  int through = st.all == 0 || st.s.info > 0;
  if (!through) { free(buf); return; }
  fz_check_get_statuses(&g);
  int nrec = domain == MI_DOM_GLOBAL ? 1 : count;
  FZ_CHECK(nrec >= 0 && nrec * rec <= size, "GET: %d records of %lld in %d", nrec, (long long)rec, size);
  fz_layout lay;
  fz_layout_of(&g, &lay);
  const int32_t *off = lay.off;
  for (int r = 0; r < nrec; r++) {
    const uint8_t *p = buf + (size_t)r * (size_t)rec;
    fz_check_record_in(&g, &lay, p, r);
    uint32_t v;
    for (int i = 0; i < n; i++) {
      if (stats[i]) continue;
      memcpy(&v, p + off[i], 4);
      if (domain == MI_DOM_GLOBAL) {
        if (nums[i] == 21184 && !w->stat_tainted)
          FZ_CHECK(v == mi_time_of(w, w->acc_user), "21184 (cpu user) is %u, the tree says %u (%lld jiffies)", v,
                   mi_time_of(w, w->acc_user), (long long)w->acc_user);
        if (nums[i] == 21184 && !w->stat_tainted) FZ_TRACE("checked 21184 = %u\n", v);
        if (nums[i] == 21092 && w->t.stat_kind == WELL && w->t.running >= 0)
          FZ_CHECK(v == (uint32_t)(uint64_t)w->t.running, "21092 (procs_running) is %u, the tree says %lld", v, (long long)w->t.running);
        if (nums[i] == 21309 && mem_read(&w->t))
          FZ_CHECK(v == (uint32_t)(w->t.memfree / 2), "21309 (MemFree) is %u, the tree says %llu kB", v, (unsigned long long)w->t.memfree);
      } else if (domain == MI_DOM_PROCESSOR) {
        if (nums[i] == 27023 && !w->stat_tainted && r < 8)
          FZ_CHECK(v == mi_time_of(w, w->acc_pc[r]), "27023 (cpu%d user) is %u, the tree says %u", r, v, mi_time_of(w, w->acc_pc[r]));
        if (nums[i] == 27023 && !w->stat_tainted && r < 8) FZ_TRACE("checked 27023 cpu%d = %u\n", r, v);
      }
    }
    if (domain != MI_DOM_PROCESS) continue;
    longint_type lp; int32_t state;
    memcpy(&lp, p + off[0], 8); memcpy(&state, p + off[1], 4);
    int64_t pid = mi_longint_get(&lp);
    fproc *fp = find_pid(w, pid);
    FZ_CHECK(fp != NULL, "MIPROCGET: a record of pid %lld, never in the tree", (long long)pid);
    FZ_TRACE("record pid %lld state %d\n", (long long)pid, (int)state);
    if (state == 1) {
      FZ_CHECK(!fp->stable || !fp->present, "MIPROCGET: pid %lld reported dead but it is alive in the tree", (long long)pid);
      FZ_CHECK(fp->dead_seen[si] < fp->last_present || fp->dead_seen[si] < 0,
               "MIPROCGET: pid %lld reported dead twice to one session", (long long)pid);
      /* a pid present now was reported dead for an earlier absence (it died, then a process of
       * the same pid and start time was born: campaign finding 9, regress/proc/pid-back-after-
       * its-death-dies-again): a later death of the newcomer is a second, legitimate report */
      fp->dead_seen[si] = fp->present ? w->version - 1 : w->version;
      continue;
    }
    FZ_CHECK(fp->present, "MIPROCGET: pid %lld alive but gone from the tree", (long long)pid);
    if (fp->trunc_only)   /* a stat with nothing after ')' gives no CPU time and no faults */
      for (int i = 2; i < n; i++) {
        if (stats[i] || (nums[i] != 25047 && nums[i] != 25202)) continue;
        uint32_t sum = 0, x;
        int len = nums[i] == 25047 ? 1 : mi_objcl_len(mapping);
        for (int c = 0; c < len; c++) { memcpy(&x, p + off[i] + 4 * c, 4); sum += x; }
        FZ_CHECK(sum == 0, "pid %lld: %d is %u but its stat ends right after ')'", (long long)pid, (int)nums[i], sum);
      }
    if (!fp->stable) continue;
    for (int i = 2; i < n; i++) {
      if (stats[i]) continue;
      memcpy(&v, p + off[i], 4);
      if (nums[i] == 25047)
        FZ_CHECK(v == mi_time_of(w, fp->acc_cpu), "pid %lld: 25047 (cpu) is %u, the tree says %u (%lld jiffies)", (long long)pid, v,
                 mi_time_of(w, fp->acc_cpu), (long long)fp->acc_cpu);
      if (nums[i] == 25047) FZ_TRACE("checked 25047 pid %lld = %u\n", (long long)pid, v);
      if (nums[i] == 20004)
        FZ_CHECK(memcmp(p + off[i], fp->prog48, 48) == 0, "pid %lld: program name '%.48s', want '%.48s' (comm '%s')", (long long)pid,
                 (const char *)p + off[i], fp->prog48, fp->comm);
      if (nums[i] == 20003)
        FZ_CHECK(memcmp(p + off[i], fp->user48, 48) == 0, "pid %lld: user name '%.48s', want '%.48s'", (long long)pid,
                 (const char *)p + off[i], fp->user48);
      if (nums[i] >= 20003 && nums[i] <= 20012) FZ_TRACE("checked %d of pid %lld\n", (int)nums[i], (long long)pid);
      if (nums[i] == 20011) FZ_CHECK(v == fp->js, "pid %lld: job/session %#x, want %#x", (long long)pid, v, fp->js);
      if (nums[i] == 20012)
        FZ_CHECK(fp->ptype == MI_PT_USER ? v == MI_PT_USER || v == MI_PT_SON : v == (uint32_t)fp->ptype,
                 "pid %lld: process type %u, want %d", (long long)pid, v, fp->ptype);
      if (nums[i] == 25202) {
        uint32_t sum = 0, x;
        for (int c = 0; c < mi_objcl_len(mapping); c++) { memcpy(&x, p + off[i] + 4 * c, 4); sum += x; }
        FZ_CHECK(sum == (uint32_t)fp->acc_flt, "pid %lld: 25202 (majflt) adds up to %u, the tree says %lld", (long long)pid, sum,
                 (long long)fp->acc_flt);
      }
    }
  }
  /* every stable live process is reported alive to a session that monitors all */
  if (domain == MI_DOM_PROCESS && st.all == 0 && m->s->u->proc_all)
    for (int k = 0; k < NP; k++) {
      const fproc *fp = &w->t.p[k];
      if (!fp->born || !fp->stable || !fp->present) continue;
      int found = 0;
      for (int r = 0; r < nrec && !found; r++) {
        longint_type lp; memcpy(&lp, buf + (size_t)r * (size_t)rec + off[0], 8);
        found = mi_longint_get(&lp) == fp->pid;
      }
      FZ_CHECK(found, "MIPROCGET: pid %lld is alive in the tree but has no record", (long long)fp->pid);
      FZ_TRACE("checked pid %lld has a record\n", (long long)fp->pid);
    }
  free(buf);
}

/* AIFSCGET of the memory size: MemTotal / 2 after a reading of a well-formed meminfo, held at
 * 2^31-1 pages when that does not fit the 32-bit item (core/SOURCES.md, host source). */
static void op_config(world *w) {
  int32_t nums[2] = {3039, 0}, stats[1], v = 0;
  void *items[1] = {&v};
  status_type st;
  mi_scget(w->ses[0].s, &st, nums, items, stats, UID_ARG);
  fz_check_overall(st, 1, "AIFSCGET");
  if (st.all == 0 && mem_read(&w->t))
    FZ_CHECK((uint64_t)v == (w->t.memtotal / 2 > INT32_MAX ? (uint64_t)INT32_MAX : w->t.memtotal / 2),
             "3039 is %d, MemTotal %llu kB", v, (unsigned long long)w->t.memtotal);
}

/* One input: a tree, the reader on it, then changes and calls with the shadow's checks. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  world *w = &W;
  memset(w, 0, sizeof *w);
  w->last_user = UINT64_MAX;
  for (int c = 0; c < 8; c++) w->last_pc[c] = UINT64_MAX;
  gen_tree(&in, &w->t);
  write_tree(&w->t);   /* over the previous input's tree: the disk holds this tree only */
  static unsigned inputs;
  if (inputs++ % 64 == 0 || fz_trace) check_disk();   /* now and then: a walk costs about as much as an input */
  static int etc_done;
  if (!etc_done) {   /* the same for every input */
    static const char *const etc_name[3] = {"../etc/passwd", "../etc/group", "../etc/shells"},
                      *const etc_text[3] = {etc_passwd, etc_group, etc_shells};
    for (int k = 0; k < 3; k++) if (memfs_put(etc_name[k], etc_text[k], strlen(etc_text[k])) != 0) abort();
    etc_done = 1;
  }
  w->sys = mi_linux_new(root, 0);
  FZ_CHECK(w->sys != NULL, "mi_linux_new(%s) failed", root);
  shadow_read(w, 1);
  for (int i = 0; i < 2; i++) {
    w->ses[i].s = mi_session_new(w->sys);
    if (!w->ses[i].s) abort();
    mi_session_set_priv(w->ses[i].s, 1);
  }
  status_type st;
  mi_globinstall(w->ses[0].s, &st, 666);
  for (int ops = 0; ops < MAX_OPS && in.n; ops++) {
    switch (fz_u8(&in) % 14) {
    case 0: case 1:
      mutate(&in, &w->t);
      FZ_TRACE("tree version %d\n", w->version + 1);
      write_tree(&w->t);
      w->version++;
      FZ_CHECK(mi_linux_refresh(w->sys) >= 0, "mi_linux_refresh failed");
      shadow_read(w, 0);
      break;
    case 2: op_on(w, &in, MI_DOM_GLOBAL); break;
    case 3: op_on(w, &in, MI_DOM_PROCESS); break;
    case 4: op_on(w, &in, MI_DOM_IO); break;
    case 5: case 6: op_get(w, &in, MI_DOM_GLOBAL); break;
    case 7: case 8: op_get(w, &in, MI_DOM_PROCESS); break;
    case 9: op_get(w, &in, MI_DOM_IO); break;
    case 10: op_get(w, &in, MI_DOM_PROCESSOR); break;
    case 11: {
      fz_ses *m = &w->ses[fz_u8(&in) & 1];
      uint8_t d = fz_u8(&in) % 3;
      if (d == 0) mi_globoff(m->s, &st, UID_ARG);
      else if (d == 1) mi_procoff(m->s, &st, NULL, UID_ARG);
      else mi_iooff(m->s, &st, NULL, UID_ARG);
      fz_check_overall(st, 0, "OFF");
      break;
    }
    case 12: op_config(w); break;
    default: FZ_CHECK(mi_linux_refresh(w->sys) >= 0, "mi_linux_refresh failed"); break;
    }
    shadow_refs(w);
    for (int i = 0; i < 2; i++) fz_model_sync_off(&w->ses[i]);
  }
  mi_system_free(w->sys);
  FZ_CHECK(memfs_open_count() == 0, "fuzz_proc: the freed reader left %d descriptors of the tree open", memfs_open_count());
  return 0;
}
