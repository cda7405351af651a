/* linux.c — the host source: Linux's own accounting from /proc, written into the counter
 * store through mi_host.h only. Each refresh reads /proc/stat, meminfo, vmstat, diskstats
 * and every /proc/[pid]/stat (status once per process, io when readable) and adds the
 * differences since the last refresh. A process that vanishes between readdir and open,
 * an unreadable file or an odd program name is skipped or cleaned, never fatal.
 * The figure behind every mapped item is in the table `map` below. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mi_internal.h"
#include "mi_linux.h"

#define NCPU_MI 8
#define MAX_DISKS 64
#define BUF 8192

/* Roles of the items the host drives, and the kernel figure behind each. */
enum {
  G_IDLE, G_PAUSED, G_CS, G_DS, G_BS, G_READY, G_BLOCKED, G_FREE, G_PF,
  C_IDLE, C_ICS, C_BS, C_CS, C_DS, C_INTR,
  P_TIME, P_RD, P_WT, P_RDSZ, P_WTSZ, P_PF,
  D_RD, D_WT, D_RDSZ, D_WTSZ, D_RDRTT, D_WTRTT, D_QCUR, D_SWRD, D_SWWT, D_CRD, D_CWR, D_COMPL,
  NROLE
};
static const struct { int32_t item; const char *figure; } map[NROLE] = {
  {21177, "/proc/stat cpu idle"}, {21176, "/proc/stat cpu iowait"}, {21184, "/proc/stat cpu user"},
  {21185, "/proc/stat cpu nice"}, {21183, "/proc/stat cpu system"}, {21092, "/proc/stat procs_running"},
  {21112, "/proc/stat procs_blocked"}, {21309, "/proc/meminfo MemFree / 2 KB"},
  {21254, "/proc/vmstat pgmajfault (class 0)"},
  {27006, "/proc/stat cpuN idle + iowait"}, {27012, "/proc/stat cpuN irq + softirq + steal"},
  {27022, "/proc/stat cpuN system"}, {27023, "/proc/stat cpuN user"}, {27024, "/proc/stat cpuN nice"},
  {27014, "/proc/interrupts CPUn column, every per-CPU row"},
  {25047, "/proc/[pid]/stat utime + stime"}, {25167, "/proc/[pid]/io syscr"}, {25168, "/proc/[pid]/io syscw"},
  {25169, "/proc/[pid]/io read_bytes"}, {25170, "/proc/[pid]/io write_bytes"},
  {25202, "/proc/[pid]/stat majflt (class 0)"},
  {23000, "/proc/diskstats reads completed"}, {23001, "/proc/diskstats writes completed"},
  {23002, "/proc/diskstats sectors read x 512"}, {23003, "/proc/diskstats sectors written x 512"},
  {23024, "/proc/diskstats ms reading"}, {23023, "/proc/diskstats ms writing"},
  {23034, "/proc/diskstats I/Os in progress"}, {23009, "/proc/diskstats reads completed"},
  {23010, "/proc/diskstats writes completed"}, {23048, "/proc/diskstats reads completed"},
  {23049, "/proc/diskstats writes completed"}, {23046, "/proc/diskstats reads + writes completed"},
};

typedef struct hproc {
  int64_t pid;
  uint64_t gen;                 /* refresh that last saw it */
  uint64_t cpu, majflt, syscr, syscw, rbytes, wbytes;
} hproc;

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
  struct { char name[32]; uint64_t v[11]; } disk[MAX_DISKS];   /* disk d is LDEV d + 1 */
  int ndisks;
  uint64_t pgmajfault;
  uint64_t layout;              /* sys->gen at the last refresh: a new ON re-reads at once */
  struct { uint32_t uid; char name[16]; } users[64];
  int nusers;
} host;

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads a whole small file under the root into buf (NUL-terminated); bytes read or -1. */
static ssize_t slurp(const host *h, const char *rel, char *buf, size_t cap) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", h->root, rel);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t n = 0;
  for (;;) {
    ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
    if (n >= cap - 1) break;
  }
  close(fd);
  buf[n] = 0;
  return (ssize_t)n;
}

/* Adds now - *last to counter role for entity e when the figure grew; remembers now. */
static void bump(mi_system *sys, host *h, int role, int e, uint64_t now, uint64_t *last, int64_t scale) {
  if (now > *last && *last != UINT64_MAX) mi_host_add(sys, h->c[role], e, (int64_t)(now - *last) * scale);
  *last = now;
}

/* The value after `key` in a "key value" text (meminfo, vmstat, io); 0 if absent. */
static uint64_t keyed(const char *text, const char *key) {
  size_t k = strlen(key);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, key, k) == 0 && (p[k] == ' ' || p[k] == ':' || p[k] == '\t')) return strtoull(p + k + 1, NULL, 10);
  return 0;
}

/* The user name of uid (cached), or the number when unknown. */
static const char *user_of(host *h, uint32_t uid) {
  for (int i = 0; i < h->nusers; i++)
    if (h->users[i].uid == uid) return h->users[i].name;
  int i = h->nusers < 64 ? h->nusers++ : (int)(uid % 64);
  h->users[i].uid = uid;
  struct passwd *pw = strcmp(h->root, "/proc") == 0 ? getpwuid(uid) : NULL;
  if (pw) snprintf(h->users[i].name, sizeof h->users[i].name, "%s", pw->pw_name);
  else snprintf(h->users[i].name, sizeof h->users[i].name, "%u", uid);
  for (char *c = h->users[i].name; *c; c++) *c = (char)toupper((unsigned char)*c);
  return h->users[i].name;
}

/* /proc/stat: CPU times per processor and overall, running and blocked counts. */
static void read_stat(mi_system *sys, host *h, char *buf) {
  if (slurp(h, "stat", buf, BUF * 4) < 0) return;
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / h->hz;   /* ticks per jiffy */
  uint64_t sum[NCPU_MI][8] = {{0}};
  int ncpu = 0;
  for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    if (strncmp(line, "cpu", 3) == 0) {
      char *p = line + 3;
      int all = *p == ' ', idx = all ? -1 : (int)strtol(p, &p, 10);
      uint64_t v[8] = {0};
      for (int k = 0; k < 8; k++) v[k] = strtoull(p, &p, 10);   /* user nice system idle iowait irq softirq steal */
      if (all) {
        bump(sys, h, G_CS, 0, v[0], &h->cpu[NCPU_MI][0], tick);
        bump(sys, h, G_DS, 0, v[1], &h->cpu[NCPU_MI][1], tick);
        bump(sys, h, G_BS, 0, v[2], &h->cpu[NCPU_MI][2], tick);
        bump(sys, h, G_IDLE, 0, v[3], &h->cpu[NCPU_MI][3], tick);
        bump(sys, h, G_PAUSED, 0, v[4], &h->cpu[NCPU_MI][4], tick);
      } else if (idx >= 0) {
        /* more than 8 CPUs fold onto processors 0-7 (cpu i -> i mod 8) */
        for (int k = 0; k < 8; k++) sum[idx % NCPU_MI][k] += v[k];
        if (idx + 1 > ncpu) ncpu = idx + 1;
      }
    } else if (strncmp(line, "btime ", 6) == 0) h->btime = strtoll(line + 6, NULL, 10);
    else if (strncmp(line, "procs_running ", 14) == 0) mi_host_set(sys, h->c[G_READY], 0, strtoll(line + 14, NULL, 10));
    else if (strncmp(line, "procs_blocked ", 14) == 0) mi_host_set(sys, h->c[G_BLOCKED], 0, strtoll(line + 14, NULL, 10));
  }
  if (ncpu > 0 && mi_host_cpus(sys) != (ncpu < NCPU_MI ? ncpu : NCPU_MI)) mi_host_set_cpus(sys, ncpu < NCPU_MI ? ncpu : NCPU_MI);
  for (int c = 0; c < NCPU_MI && c < ncpu; c++) {
    uint64_t *v = sum[c], *l = h->cpu[c];
    /* processor view: idle+iowait, ICS = irq+softirq+steal, BS = system, CS = user, DS = nice */
    uint64_t idle = v[3] + v[4], ics = v[5] + v[6] + v[7];
    bump(sys, h, C_IDLE, c, idle, &l[0], tick);
    bump(sys, h, C_ICS, c, ics, &l[1], tick);
    bump(sys, h, C_BS, c, v[2], &l[2], tick);
    bump(sys, h, C_CS, c, v[0], &l[3], tick);
    bump(sys, h, C_DS, c, v[1], &l[4], tick);
  }
}

/* /proc/interrupts: interrupts taken per processor — the sum of each CPU's column over
 * every row that has one (IRQ lines and LOC, RES, CAL...; ERR and MIS are system-wide),
 * folded like /proc/stat. Read line by line: the file grows with CPUs and devices. */
static void read_interrupts(mi_system *sys, host *h) {
  char path[512];
  snprintf(path, sizeof path, "%s/interrupts", h->root);
  FILE *f = fopen(path, "re");
  if (!f) return;
  char *line = NULL;
  size_t cap = 0;
  int ncol = 0;
  uint64_t sum[NCPU_MI] = {0};
  if (getline(&line, &cap, f) > 0)
    for (char *p = line; (p = strstr(p, "CPU")); p += 3) ncol++;
  while (ncol > 0 && getline(&line, &cap, f) > 0) {
    char *p = strchr(line, ':');
    if (!p) continue;
    uint64_t v[NCPU_MI] = {0};
    int k = 0;
    for (p++; k < ncol; k++) {
      char *end;
      while (*p == ' ' || *p == '\t') p++;
      if (!isdigit((unsigned char)*p)) break;
      uint64_t x = strtoull(p, &end, 10);
      v[k % NCPU_MI] += x;
      p = end;
    }
    if (k == ncol)   /* a row with a count for every CPU */
      for (int c = 0; c < NCPU_MI; c++) sum[c] += v[c];
  }
  free(line);
  fclose(f);
  int ncpu = mi_host_cpus(sys);
  for (int c = 0; c < ncpu && c < ncol; c++) bump(sys, h, C_INTR, c, sum[c], &h->intr[c], 1);
}

/* /proc/meminfo and /proc/vmstat: memory size, free pages, major faults. */
static void read_memory(mi_system *sys, host *h, char *buf) {
  if (slurp(h, "meminfo", buf, BUF * 4) > 0) {
    mi_host_config_set(sys, 3039, (int32_t)(keyed(buf, "MemTotal") / 2));
    mi_host_set(sys, h->c[G_FREE], 0, (int64_t)(keyed(buf, "MemFree") / 2));
  }
  if (slurp(h, "vmstat", buf, BUF * 4) > 0) {
    uint64_t f = keyed(buf, "pgmajfault");
    if (f > h->pgmajfault && h->pgmajfault != UINT64_MAX) mi_host_add_objcl(sys, h->c[G_PF], 0, 0, (int64_t)(f - h->pgmajfault));
    h->pgmajfault = f;
  }
}

/* Returns 1 for whole disks worth an LDEV: not loop/ram/zram, not a partition of a listed disk. */
static int whole_disk(const char *name, char names[][32], int n) {
  if (!strncmp(name, "loop", 4) || !strncmp(name, "ram", 3) || !strncmp(name, "zram", 4) || !strncmp(name, "dm-", 3)) return 0;
  for (int i = 0; i < n; i++) {
    size_t k = strlen(names[i]);
    if (k < strlen(name) && strncmp(names[i], name, k) == 0) return 0;   /* sda -> sda1, nvme0n1 -> nvme0n1p1 */
  }
  return 1;
}

/* /proc/diskstats: whole disks become disk LDEVs 1, 2, ... in the order the kernel lists them. */
static void read_disks(mi_system *sys, host *h, char *buf) {
  if (slurp(h, "diskstats", buf, BUF * 8) < 0) return;
  char names[256][32];   /* whole disks listed so far, to recognise their partitions */
  int n = 0;
  for (char *line = buf; line && *line && n < 256; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    unsigned maj, min;
    char name[32];
    uint64_t v[11] = {0};
    int got = sscanf(line, "%u %u %31s %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu", &maj, &min, name,
                     &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]);
    if (got < 14 || !whole_disk(name, names, n)) continue;
    snprintf(names[n++], 32, "%s", name);
    int d = 0;
    while (d < h->ndisks && strcmp(h->disk[d].name, name)) d++;
    if (d == h->ndisks) {
      if (h->ndisks >= MAX_DISKS || h->ndisks >= 999) continue;
      snprintf(h->disk[d].name, sizeof h->disk[d].name, "%s", name);
      for (int k = 0; k < 11; k++) h->disk[d].v[k] = v[k];   /* the first sight is the baseline */
      h->ndisks++;
      mi_host_set_device(sys, d + 1, 1);
      continue;
    }
    uint64_t *l = h->disk[d].v;
    int ldev = d + 1;
    int64_t tpm = mi_host_ticks_per_ms(sys);
    /* fields: 0 reads 1 merged 2 sectors-read 3 ms-reading 4 writes 5 merged 6 sectors-written 7 ms-writing 8 in-flight */
    if (v[0] > l[0]) {
      int64_t r = (int64_t)(v[0] - l[0]);
      mi_host_add(sys, h->c[D_RD], ldev, r); mi_host_add(sys, h->c[D_SWRD], ldev, r);
      mi_host_add(sys, h->c[D_CRD], ldev, r); mi_host_add(sys, h->c[D_COMPL], ldev, r);
    }
    if (v[4] > l[4]) {
      int64_t w = (int64_t)(v[4] - l[4]);
      mi_host_add(sys, h->c[D_WT], ldev, w); mi_host_add(sys, h->c[D_SWWT], ldev, w);
      mi_host_add(sys, h->c[D_CWR], ldev, w); mi_host_add(sys, h->c[D_COMPL], ldev, w);
    }
    if (v[2] > l[2]) mi_host_add(sys, h->c[D_RDSZ], ldev, (int64_t)(v[2] - l[2]) * 512);
    if (v[6] > l[6]) mi_host_add(sys, h->c[D_WTSZ], ldev, (int64_t)(v[6] - l[6]) * 512);
    if (v[3] > l[3]) mi_host_add(sys, h->c[D_RDRTT], ldev, (int64_t)(v[3] - l[3]) * tpm);
    if (v[7] > l[7]) mi_host_add(sys, h->c[D_WTRTT], ldev, (int64_t)(v[7] - l[7]) * tpm);
    mi_host_set(sys, h->c[D_QCUR], ldev, (int64_t)v[8]);
    for (int k = 0; k < 11; k++) l[k] = v[k];
  }
}

/* Cleans a kernel command name for the MI: printable ASCII, blanks for the rest. */
static void clean_name(char *s) {
  for (; *s; s++) if ((unsigned char)*s < 32 || (unsigned char)*s > 126) *s = '?';
}

/* One /proc/[pid]: creates the MI process at first sight, then adds what it did since. */
static void read_proc(mi_system *sys, host *h, int64_t pid, char *buf) {
  char rel[64];
  snprintf(rel, sizeof rel, "%lld/stat", (long long)pid);
  ssize_t n = slurp(h, rel, buf, BUF);
  if (n <= 0) return;                       /* gone since readdir: it is simply not seen */
  char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
  if (!open_p || !close_p || close_p < open_p) return;
  char comm[64];
  size_t len = (size_t)(close_p - open_p - 1);
  if (len >= sizeof comm) len = sizeof comm - 1;
  memcpy(comm, open_p + 1, len);
  comm[len] = 0;
  clean_name(comm);
  /* after ") ": state(3) ppid(4) ... minflt(10) cminflt(11) majflt(12) cmajflt(13) utime(14) stime(15) ... starttime(22) */
  char *p = close_p + 2;
  uint64_t f[23] = {0};
  for (int k = 3; k <= 22 && *p; k++) {
    while (*p == ' ') p++;
    if (k == 3) { while (*p && *p != ' ') p++; continue; }
    f[k] = strtoull(p, &p, 10);
  }
  int slot = mi_host_proc_slot(sys, pid);
  if (slot >= 0 && sys->procs[slot].state != MI_PS_ALIVE) return;   /* an unreported death holds the pid */
  if (slot < 0) {
    char st[64];
    snprintf(st, sizeof st, "%lld/status", (long long)pid);
    uint32_t uid = 0;
    if (slurp(h, st, buf, BUF) > 0) {
      const char *u = strstr(buf, "\nUid:");
      if (u) uid = (uint32_t)strtoul(u + 5, NULL, 10);
    }
    mi_proc_desc d = {0};
    d.pid = pid;
    d.program = comm;
    d.user = user_of(h, uid);
    d.proc_type = pid <= 2 || uid == 0 ? MI_PT_SYSTEM : MI_PT_USER;
    int64_t tpm = mi_host_ticks_per_ms(sys);
    d.start_ticks = h->btime > 0 ? (h->btime * 1000 + (int64_t)f[22] * 1000 / h->hz) * tpm : 0;
    slot = mi_host_proc_create(sys, &d);
    if (slot < 0) return;                    /* table full: users of "all" get warning 20001 */
    hproc *hp = &h->p[slot];
    memset(hp, 0, sizeof *hp);
    hp->pid = pid;
    /* a process born since we started counts its whole life; one found at the first
     * reading starts from what it had then, like the CPU and disk totals */
    if (h->gen == 1) hp->cpu = hp->majflt = hp->syscr = hp->syscw = hp->rbytes = hp->wbytes = UINT64_MAX;
  }
  hproc *hp = &h->p[slot];
  hp->gen = h->gen;
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / h->hz;
  bump(sys, h, P_TIME, slot, f[14] + f[15], &hp->cpu, tick);
  if (f[12] > hp->majflt && hp->majflt != UINT64_MAX) mi_host_add_objcl(sys, h->c[P_PF], slot, 0, (int64_t)(f[12] - hp->majflt));
  hp->majflt = f[12];
  snprintf(rel, sizeof rel, "%lld/io", (long long)pid);
  if (slurp(h, rel, buf, BUF) > 0) {        /* another user's io is unreadable: skipped */
    bump(sys, h, P_RD, slot, keyed(buf, "syscr"), &hp->syscr, 1);
    bump(sys, h, P_WT, slot, keyed(buf, "syscw"), &hp->syscw, 1);
    bump(sys, h, P_RDSZ, slot, keyed(buf, "read_bytes"), &hp->rbytes, 1);
    bump(sys, h, P_WTSZ, slot, keyed(buf, "write_bytes"), &hp->wbytes, 1);
  }
}

/* Reads everything once; returns the number of processes seen. */
static int refresh_all(mi_system *sys, host *h) {
  static _Thread_local char buf[BUF * 8];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t tpm = mi_host_ticks_per_ms(sys);
  mi_host_set_now(sys, (int64_t)ts.tv_sec * 1000 * tpm + ts.tv_nsec / 1000000 * tpm);
  h->gen++;
  read_stat(sys, h, buf);
  read_interrupts(sys, h);
  read_memory(sys, h, buf);
  read_disks(sys, h, buf);
  DIR *dir = opendir(h->root);
  int seen = 0;
  if (dir) {
    struct dirent *de;
    while ((de = readdir(dir))) {
      if (!isdigit((unsigned char)de->d_name[0])) continue;
      int64_t pid = strtoll(de->d_name, NULL, 10);
      if (pid > 0) { read_proc(sys, h, pid, buf); seen++; }
    }
    closedir(dir);
  }
  /* deaths: live MI processes this refresh did not see */
  for (int s = 0; s < sys->proc_hi; s++)
    if (sys->procs[s].state == MI_PS_ALIVE && h->p[s].gen != h->gen && h->p[s].pid == sys->procs[s].pid)
      mi_host_proc_exit(sys, s);
  h->last_ms = mono_ms();
  h->layout = sys->gen;
  return seen;
}

static void refresh(mi_system *sys, void *arg) {
  host *h = arg;
  /* fresh enough, unless someone enabled counters since (levels must not read 0 until the next age) */
  if (h->age_ms > 0 && mono_ms() - h->last_ms < h->age_ms && sys->gen == h->layout) return;
  refresh_all(sys, h);
}

int mi_linux_attached(mi_system *sys) { return sys && sys->refresh == refresh; }

int mi_linux_refresh(mi_system *sys) {
  if (!mi_linux_attached(sys)) return -1;
  return refresh_all(sys, sys->refresh_arg);
}

int mi_linux_attach(mi_system *sys, const char *proc_root, int age_ms) {
  if (!sys) return -1;
  host *h = calloc(1, sizeof *h);
  if (!h) return -1;
  snprintf(h->root, sizeof h->root, "%s", proc_root ? proc_root : "/proc");
  h->age_ms = age_ms < 0 ? 100 : age_ms;
  h->hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  for (int r = 0; r < NROLE; r++) h->c[r] = mi_host_counter(map[r].item);
  for (int c = 0; c <= NCPU_MI; c++) for (int k = 0; k < 8; k++) h->cpu[c][k] = UINT64_MAX;  /* first read: baseline */
  for (int c = 0; c < NCPU_MI; c++) h->intr[c] = UINT64_MAX;
  h->pgmajfault = UINT64_MAX;
  /* configuration with a Linux meaning; the rest keep their defaults */
  char buf[256];
  if (slurp(h, "sys/kernel/threads-max", buf, sizeof buf) > 0) mi_host_config_set(sys, 3035, (int32_t)strtol(buf, NULL, 10));
  if (slurp(h, "sys/kernel/random/boot_id", buf, sizeof buf) > 0) mi_host_config_set(sys, 3046, (int32_t)(strtoul(buf, NULL, 16) & 0x7fffffff));
  char mid[512];
  snprintf(mid, sizeof mid, "%s/../etc/machine-id", h->root);
  FILE *f = fopen(strcmp(h->root, "/proc") == 0 ? "/etc/machine-id" : mid, "r");
  if (f) {
    if (fgets(buf, sizeof buf, f)) { buf[8] = 0; mi_host_config_set(sys, 3038, (int32_t)(strtoul(buf, NULL, 16) & 0x7fffffff)); }
    fclose(f);
  }
  mi_host_config_text(sys, 3037, "LINUX   ");
  mi_system_set_source(sys, refresh, h, free);
  refresh_all(sys, h);   /* baseline: counters start from what the kernel says now */
  return 0;
}

mi_system *mi_linux_new(const char *proc_root, int age_ms) {
  mi_system *sys = mi_system_new(NULL);
  if (sys && mi_linux_attach(sys, proc_root, age_ms) != 0) { mi_system_free(sys); return NULL; }
  return sys;
}

const char *mi_linux_figure(int32_t item) {
  for (int r = 0; r < NROLE; r++) if (map[r].item == item) return map[r].figure;
  return NULL;
}

int32_t mi_linux_mapping(int i, const char **figure) {
  if (i < 0 || i >= NROLE) return 0;
  if (figure) *figure = map[i].figure;
  return map[i].item;
}
