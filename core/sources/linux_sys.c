/* linux_sys.c — the host source's system-wide figures: /proc/stat, interrupts, meminfo,
 * vmstat and diskstats, each read once per refresh (kept open) and written into the global,
 * processor and device counters through mi_host.h. The process side is in linux.c. */
#include <ctype.h>
#include "linux_int.h"

/* The items linux_sys.c adds, by role (linux_int.h), and the kernel figure behind each; the
 * reasons and the peers' names for the same figures are in core/SOURCES.md ("The host's
 * system-wide figures"). */
static const struct { int32_t item; const char *figure; } sysmap[NSROLE] = {
  [S_ARRIVE] = {21091, "/proc/schedstat cpuN ttwu_count summed + /proc/stat processes (forks)"},
  [S_RQMAX] = {21093, "/proc/stat procs_running, highest reading"},
  [S_RQAREA] = {21094, "/proc/schedstat cpuN run_delay summed (ns)"},
  [S_ALLOC] = {21295, "/proc/vmstat pgalloc_* (2 KB pages)"},
  [S_FREED] = {21308, "/proc/vmstat pgfree (2 KB pages)"},
  [S_PRESSURE] = {21307, "/proc/vmstat allocstall_* + pageoutrun"},
  [S_EXAMINED] = {21312, "/proc/vmstat pgscan_kswapd + _direct + _khugepaged + _proactive (2 KB pages)"},
  [S_STEAL] = {21283, "/proc/vmstat pgsteal_anon (class 0), pgsteal_file (class 7) (2 KB pages)"},
  [S_PAGEOUT] = {21279, "/proc/vmstat pswpout (class 0), nr_vmscan_write - pswpout (class 7) (2 KB pages)"},
  [S_SWAPIN] = {21259, "/proc/vmstat pswpin (class 0) (2 KB pages)"},
  [S_DEACT] = {21277, "/proc/vmstat pgdeactivate (class 0) (2 KB pages)"},
  [S_ROC] = {21310, "/proc/meminfo Inactive(anon) + Inactive(file) / 2 KB"},
  [S_LAUNCH] = {27013, "/proc/schedstat cpuN pcount (timeslices run)"},
  [S_DSERVICE] = {23045, "/proc/diskstats ms doing I/Os (io_ticks)"},
  [S_DREQSECS] = {23043, "/proc/diskstats weighted ms doing I/Os"},
  [S_DQMAX] = {23033, "/proc/diskstats I/Os in progress, highest reading"},
  [S_DCONTROL] = {23039, "/proc/diskstats discards + flush requests completed"},
  [S_RECOVER] = {21282, "/proc/vmstat pgactivate (class 0) (2 KB pages)"},
  [S_FROZEN] = {21285, "/proc/meminfo Mlocked / 2 KB, now (class 0)"},
  [S_LRU] = {21294, "/proc/meminfo Active(anon) + Inactive(anon) (class 0), Active(file) + Inactive(file) (class 7) / 2 KB, now"},
};

void mi_lx_sys_init(host *h) {
  hsys *s = &h->s;
  for (int r = 0; r < NSROLE; r++) s->c[r] = mi_host_counter(sysmap[r].item);
  for (int k = 0; k < NVM; k++) s->vm[k] = UINT64_MAX;
  for (int c = 0; c < NCPU_MI; c++) s->launch[c] = UINT64_MAX;
  memset(s->all, 0xff, sizeof s->all);
  s->arrive = s->rqarea = s->forks = UINT64_MAX;
  s->cg_mem_kb = s->cg_mem_b = -1;
  long pg = sysconf(_SC_PAGESIZE);
  s->page_2k = pg >= 2048 ? pg / 2048 : 2;
}

/* 1 if any of roles [from, to] of the table above is counted by someone. */
static int sys_any(mi_system *sys, const host *h, int from, int to) {
  for (int r = from; r <= to; r++) if (mi_host_active(sys, h->s.c[r])) return 1;
  return 0;
}

int mi_lx_sys_active(mi_system *sys, const host *h, int g) {
  switch (g) {
  case GR_MEM: return sys_any(sys, h, S_ROC, S_ROC) || sys_any(sys, h, S_FROZEN, S_LRU);
  case GR_VM: return sys_any(sys, h, S_ALLOC, S_DEACT) || sys_any(sys, h, S_RECOVER, S_RECOVER);
  case GR_DISK: return sys_any(sys, h, S_DSERVICE, S_DCONTROL);
  default: return 0;
  }
}

const char *mi_lx_sys_figure(int32_t item) {
  for (int r = 0; r < NSROLE; r++) if (sysmap[r].item == item) return sysmap[r].figure;
  return NULL;
}

int32_t mi_lx_sys_mapping(int i, const char **figure) {
  if (i < 0 || i >= NSROLE) return 0;
  if (figure) *figure = sysmap[i].figure;
  return sysmap[i].item;
}

/* Adds (now - *last) * scale to class cls of object-class counter c (global) when the figure
 * grew; a figure that went down, or the first one, is a baseline. Remembers now. */
static void bump_cls(mi_system *sys, mi_ctr c, int cls, uint64_t now, uint64_t *last, int64_t scale) {
  if (now > *last && *last != UINT64_MAX && mi_host_active(sys, c)) mi_host_add_objcl(sys, c, 0, cls, scaled(now - *last, scale));
  *last = now;
}

/* As bump (linux_int.h) for a role of the table above. */
static void sbump(mi_system *sys, host *h, int role, int e, uint64_t now, uint64_t *last, int64_t scale) {
  if (now > *last && *last != UINT64_MAX) add_sat(sys, h->s.c[role], e, 0, scaled(now - *last, scale));
  *last = now;
}

/* ns as ticks (tpm per ms), exact to the tick for any ns. */
static uint64_t ns_ticks(uint64_t ns, int64_t tpm) {
  return ns / 1000000 * (uint64_t)tpm + ns % 1000000 * (uint64_t)tpm / 1000000;
}

/* The processor (0-7) that kernel CPU cpu is, -1 if none: CPU c itself, or the c-th CPU of
 * mish's cpuset when a container confines it. */
static int proc_of(const host *h, uint64_t cpu) {
  if (h->s.ncg == 0) return cpu < NCPU_MI ? (int)cpu : -1;
  for (int k = 0; k < h->s.ncg && k < NCPU_MI; k++) if (h->s.cg_cpu[k] == cpu) return k;
  return -1;
}

/* The processor (0, 1, ... up to NCPU_ALL) that kernel CPU cpu is, -1 if none: as proc_of
 * without the MI's limit of 8. */
static int all_of(const host *h, uint64_t cpu) {
  if (h->s.ncg == 0) return cpu < NCPU_ALL ? (int)cpu : -1;
  for (int k = 0; k < h->s.ncg; k++) if (h->s.cg_cpu[k] == cpu) return k;
  return -1;
}

/* Keeps figure f of processor a (all_of) read now: the latest, and the first ever. */
static void cpu_fig(host *h, int a, int f, uint64_t v) {
  if (a < 0) return;
  h->s.all[a].now[f] = v;
  if (h->s.all[a].first[f] == UINT64_MAX) h->s.all[a].first[f] = v;
}

int mi_lx_cpus(const host *h, int64_t tick, int64_t round, mi_linux_cpu *out, int max) {
  int n = h->s.nall;
  for (int a = 0; a < n && a < max; a++) {
    mi_linux_cpu *o = &out[a];
    memset(o, 0, sizeof *o);
    o->cpu = h->s.ncg ? h->s.cg_cpu[a] : a;
    int64_t v[NCPUF];
    for (int f = 0; f < NCPUF; f++) {
      uint64_t x = h->s.all[a].now[f], y = h->s.all[a].first[f];
      v[f] = x == UINT64_MAX || y == UINT64_MAX || x < y ? 0 : f < F_INTR ? scaled(x - y, tick) / round : (int64_t)(x - y);
    }
    o->idle = v[F_IDLE]; o->ics = v[F_ICS]; o->bs = v[F_BS]; o->cs = v[F_CS]; o->ds = v[F_DS];
    o->interrupts = v[F_INTR]; o->launches = v[F_LAUNCH];
  }
  return n;
}

/* /proc/schedstat (kernels with CONFIG_SCHEDSTATS; absent: nothing, and no failure): per cpuN
 * line, field 5 ttwu_count (wake-ups onto this CPU's run queue), 8 run_delay (ns waited on
 * it) and 9 pcount (timeslices: times a task was given the CPU). Read when its items are
 * counted or an ON is under way; a reading after a pause is a new baseline. forks: the
 * /proc/stat processes figure of this reading (UINT64_MAX if none). */
static void read_schedstat(mi_system *sys, host *h, uint64_t forks) {
  hsys *s = &h->s;
  int wg = mi_host_wants(sys, MI_DOM_GLOBAL);
  if (wg != 2 && !sys_any(sys, h, S_ARRIVE, S_ARRIVE) && !sys_any(sys, h, S_RQAREA, S_RQAREA) &&
      !sys_any(sys, h, S_LAUNCH, S_LAUNCH) && h->gen != 1)
    return;
  if (s->sched_gen + 1 != h->gen) {   /* not read at the previous refresh: a new baseline */
    s->arrive = s->rqarea = UINT64_MAX;
    for (int c = 0; c < NCPU_MI; c++) s->launch[c] = UINT64_MAX;
  }
  s->sched_gen = h->gen;
  int err;
  ssize_t n = slurp_kept(h, K_SCHED, &err);
  if (n == RD_FAIL) { if (err != ENOENT) note_fail(h, err); return; }
  if (n == RD_BAD) { note_bad(h); return; }
  uint64_t ttwu = 0, delay = 0, pcount[NCPU_MI] = {0};
  int bad = 0, ncpu = 0, present[NCPU_MI] = {0};
  for (const char *line = h->buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    if (strncmp(line, "cpu", 3) != 0 || !isdigit((unsigned char)line[3])) continue;
    const char *p = line + 3;
    uint64_t idx, v[9];
    if (!num(&p, &idx) || idx >= 65536) { bad = 1; continue; }
    int k = 0;
    while (k < 9 && num(&p, &v[k])) k++;
    if (k < 9) { bad = 1; continue; }
    ttwu = sum_sat(ttwu, v[4]);
    delay = sum_sat(delay, v[7]);
    int c = proc_of(h, idx);
    if (c >= 0) { pcount[c] = v[8]; present[c] = 1; }
    cpu_fig(h, all_of(h, idx), F_LAUNCH, v[8]);
    ncpu++;
  }
  if (bad || ncpu == 0) { note_bad(h); return; }   /* one bad line spoils the reading, as in /proc/stat */
  int64_t tpm = mi_host_ticks_per_ms(sys);
  if (forks != UINT64_MAX) sbump(sys, h, S_ARRIVE, 0, sum_sat(ttwu, forks), &s->arrive, 1);
  sbump(sys, h, S_RQAREA, 0, ns_ticks(delay, tpm), &s->rqarea, 1);
  for (int c = 0; c < NCPU_MI; c++) if (present[c]) sbump(sys, h, S_LAUNCH, c, pcount[c], &s->launch[c], 1);
}

/* A CPU number of a cpuset list at *p (digits, at most 5), advancing *p; 0 if none. */
static int cpu_num(const char **p, uint64_t *out) {
  const char *s = *p;
  uint64_t v = 0;
  int k = 0;
  for (; *s >= '0' && *s <= '9' && k < 6; s++, k++) v = v * 10 + (uint64_t)(*s - '0');
  if (k == 0 || k > 5) return 0;
  *p = s;
  *out = v;
  return 1;
}

/* Reads file `name` of cgroup directory dir (absolute) into h->buf; its length, or -1 when
 * it is absent, refused or not a file (a limit that cannot be read is no limit). */
static ssize_t cg_file(host *h, const char *dir, const char *name) {
  char path[1200];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return -1;
  int err;
  ssize_t n = slurp_at(h, path, name, &err);
  if (n == RD_FAIL && err != ENOENT && err != ENOTDIR && err != EACCES && err != EPERM) note_fail(h, err);
  return n;
}

/* mish's own cgroup v2 (the "0::" line of <root>/self/cgroup) under the cgroup root
 * (/sys/fs/cgroup for the root /proc, <root>/../sys/fs/cgroup for a fixture): the lowest
 * memory.max on its path and its cpuset.cpus.effective become the memory size and the
 * processors (core/SOURCES.md, "The host's system-wide figures"). No cgroup v2, no file or
 * "max": no limit. A changed cpuset starts the processors from new baselines. */
static void read_cgroup(host *h) {
  hsys *s = &h->s;
  char dir[1024], rel[512];
  int err;
  s->cg_mem_kb = s->cg_mem_b = -1;
  s->cg_quota = s->cg_period = 0;
  uint16_t cpu[NCPU_ALL];
  int ncg = 0, total = 0;
  ssize_t n = slurp(h, "self/cgroup", &err);
  const char *line = n > 0 ? h->buf : NULL;
  while (line && strncmp(line, "0::/", 4) != 0) { line = strchr(line, '\n'); if (line) line++; }
  if (!line) return;   /* no cgroup v2 (or no /proc/self): the machine's own figures */
  size_t len = strcspn(line + 3, "\n");
  if (len >= sizeof rel) return;
  memcpy(rel, line + 3, len);
  rel[len] = 0;
  while (len > 1 && rel[len - 1] == '/') rel[--len] = 0;
  if (strstr(rel, "/..") || strstr(rel, " (deleted)")) return;   /* nothing outside the cgroup root */
  /* a fixture's cgroup root is beside its proc root: named relative to the root's descriptor,
   * so a root given as a relative path works too */
  if (!h->sysdb && h->rootfd < 0) return;
  int base = snprintf(dir, sizeof dir, "%s", h->sysdb ? "/sys/fs/cgroup" : "../sys/fs/cgroup");
  if ((size_t)base + len >= sizeof dir) return;
  memcpy(dir + base, rel, len + 1);
  /* cpuset.cpus.effective of the leaf ("0-3,8"): its first 8 CPUs, in order */
  if (cg_file(h, dir, "cpuset.cpus.effective") > 0) {
    const char *p = h->buf;
    uint64_t a, b;
    while (cpu_num(&p, &a)) {
      b = a;
      if (*p == '-') { p++; if (!cpu_num(&p, &b) || b < a) { total = 0; break; } }
      if (b >= 65536) { total = 0; break; }
      for (uint64_t c = a; c <= b; c++) { if (ncg < NCPU_ALL) cpu[ncg++] = (uint16_t)c; total++; }
      if (*p == ',') p++;
      else break;
    }
    if (total == 0) ncg = 0;
  }
  if (ncg != s->ncg || memcmp(cpu, s->cg_cpu, sizeof cpu[0] * (size_t)ncg) != 0) {
    for (int c = 0; c < NCPU_MI; c++) {
      for (int k = 0; k < 8; k++) h->cpu[c][k] = UINT64_MAX;
      h->intr[c] = UINT64_MAX;
      s->launch[c] = UINT64_MAX;
    }
    memset(s->all, 0xff, sizeof s->all);
    memcpy(s->cg_cpu, cpu, sizeof cpu[0] * (size_t)ncg);
    s->ncg = ncg;
  }
  /* memory.max and cpu.max from the leaf up to the root's child (the root has none): the
   * lowest memory and the smallest share of time (quota / period) apply */
  for (size_t end = strlen(dir); end > (size_t)base; ) {
    if (cg_file(h, dir, "memory.max") > 0) {
      const char *p = h->buf;
      uint64_t x;
      if (num(&p, &x) && (s->cg_mem_kb < 0 || (int64_t)(x / 1024) < s->cg_mem_kb)) {
        s->cg_mem_kb = (int64_t)(x / 1024);
        s->cg_mem_b = (int64_t)x;
      }
    }
    if (cg_file(h, dir, "cpu.max") > 0) {   /* "QUOTA PERIOD" or "max PERIOD" (no limit) */
      const char *p = h->buf;
      uint64_t q, per;
      if (num(&p, &q) && num(&p, &per) && q > 0 && per > 0 && q <= 1000000000000ull && per <= 1000000000000ull &&
          (s->cg_period == 0 || (__int128)q * s->cg_period < (__int128)s->cg_quota * per)) {
        s->cg_quota = (int64_t)q;
        s->cg_period = (int64_t)per;
      }
    }
    while (end > (size_t)base && dir[end - 1] != '/') end--;
    if (end > (size_t)base) end--;
    dir[end] = 0;
  }
}

void mi_lx_limits(const host *h, mi_linux_limits *out) {
  const hsys *s = &h->s;
  memset(out, 0, sizeof *out);
  out->cpuset = s->ncg > 0 ? s->ncg : s->ncpu_all;
  out->cpus = out->cpuset;
  out->cpu_quota_us = s->cg_quota;
  out->cpu_period_us = s->cg_period;
  if (s->cg_period > 0) {   /* the CPUs' worth of time it may use at once, rounded up */
    int64_t worth = (s->cg_quota + s->cg_period - 1) / s->cg_period;
    if (worth < out->cpus) out->cpus = (int)worth;
  }
  out->memory_max = s->cg_mem_b;
}

/* 1 if processor a (all_of; -1: none) is in the set listed already, else puts it there. */
static int listed_twice(uint64_t *listed, int a) {
  if (a < 0) return 0;
  if (listed[a / 64] >> (a % 64) & 1) return 1;
  listed[a / 64] |= 1ull << (a % 64);
  return 0;
}

/* /proc/stat: CPU times per processor and overall, running and blocked counts. A cpu line
 * with fewer than 8 valid figures (user nice system idle iowait irq softirq steal: kernels
 * since 2.6.11), or a second line for one CPU, spoils every cpu line of this reading: one
 * half-read line must not rebase a processor. A processor with no line this time keeps its
 * baseline. */
void mi_lx_read_stat(mi_system *sys, host *h) {
  int64_t now = mono_ms();
  if (h->gen == 1 || now - h->s.cg_ms >= HOUSEKEEP_MS) {   /* container limits change rarely: once a second */
    h->s.cg_ms = now;
    read_cgroup(h);
  }
  if (!slurp_noted(h, K_STAT)) return;
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / h->hz;   /* ticks per jiffy */
  uint64_t sum[NCPU_MI][8] = {{0}}, all[8] = {0};
  int ncpu = 0, have_all = 0, bad = 0, present[NCPU_MI] = {0};
  uint64_t x, forks = UINT64_MAX, listed[NCPU_ALL / 64] = {0};
  for (const char *line = h->buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    if (strncmp(line, "cpu", 3) == 0 && (line[3] == ' ' || isdigit((unsigned char)line[3]))) {
      const char *p = line + 3;
      uint64_t idx = 0, v[8];
      int is_all = *p == ' ';
      if (!is_all && (!num(&p, &idx) || idx >= 65536 || (p[0] != ' ' && p[0] != '\t'))) { bad = 1; continue; }
      int k = 0;
      while (k < 8 && num(&p, &v[k])) k++;
      if (k < 8 || (*p && *p != '\n' && *p != ' ' && *p != '\t')) { bad = 1; continue; }
      if (is_all) {
        if (have_all++) bad = 1;
        memcpy(all, v, sizeof all);
      } else {
        /* processors 0-7 are CPUs 0-7; CPUs 8 and up are in the global figures only (the
         * "cpu" line), never folded onto another processor (core/SOURCES.md) */
        int c = proc_of(h, idx), a = all_of(h, idx);
        if (listed_twice(listed, a)) { bad = 1; continue; }
        if (c >= 0) { memcpy(sum[c], v, sizeof sum[c]); present[c] = 1; }
        if (a >= 0) {   /* every processor's figures, for mi_linux_cpus */
          cpu_fig(h, a, F_IDLE, sum_sat(v[3], v[4]));
          cpu_fig(h, a, F_ICS, sum_sat(sum_sat(v[5], v[6]), v[7]));
          cpu_fig(h, a, F_BS, v[2]); cpu_fig(h, a, F_CS, v[0]); cpu_fig(h, a, F_DS, v[1]);
        }
        if ((int)idx + 1 > ncpu) ncpu = (int)idx + 1;
      }
    } else if (strncmp(line, "btime ", 6) == 0) {
      const char *p = line + 6;
      /* a boot time this side of the year 33658 keeps start times within int64 ticks */
      if (num(&p, &x) && x < 1000000000000ull) h->btime = (int64_t)x; else bad = 1;
    } else if (strncmp(line, "procs_running ", 14) == 0 || strncmp(line, "procs_blocked ", 14) == 0) {
      const char *p = line + 14;
      if (!num(&p, &x)) bad = 1;
      else if (line[6] == 'r') {
        mi_host_set(sys, h->c[G_READY], 0, (int64_t)x);
        mi_host_max(sys, h->s.c[S_RQMAX], 0, (int64_t)x);   /* the watermark of the same reading */
      } else mi_host_set(sys, h->c[G_BLOCKED], 0, (int64_t)x);
    } else if (strncmp(line, "processes ", 10) == 0) {
      const char *p = line + 10;
      if (num(&p, &x)) forks = x; else bad = 1;
    }
  }
  if (!bad && forks != UINT64_MAX) h->s.forks = forks;
  read_schedstat(sys, h, bad ? UINT64_MAX : forks);
  if (bad || !have_all || ncpu == 0) { note_bad(h); if (bad || !have_all) return; }
  bump(sys, h, G_CS, 0, all[0], &h->cpu[NCPU_MI][0], tick);
  bump(sys, h, G_DS, 0, all[1], &h->cpu[NCPU_MI][1], tick);
  bump(sys, h, G_BS, 0, all[2], &h->cpu[NCPU_MI][2], tick);
  bump(sys, h, G_IDLE, 0, all[3], &h->cpu[NCPU_MI][3], tick);
  bump(sys, h, G_PAUSED, 0, all[4], &h->cpu[NCPU_MI][4], tick);
  h->s.ncpu_all = ncpu;
  h->s.nall = h->s.ncg > 0 ? h->s.ncg : ncpu < NCPU_ALL ? ncpu : NCPU_ALL;
  int nproc = h->s.ncg > 0 ? h->s.ncg : ncpu;
  if (nproc > 0 && mi_host_cpus_all(sys) != nproc) mi_host_set_cpus_all(sys, nproc);   /* beyond 8: MIPRCSRGET warns */
  if (nproc > NCPU_MI) nproc = NCPU_MI;
  if (nproc > 0 && mi_host_cpus(sys) != nproc) mi_host_set_cpus(sys, nproc);
  for (int c = 0; c < nproc; c++) {
    if (!present[c]) continue;
    uint64_t *v = sum[c], *l = h->cpu[c];
    /* processor view: idle+iowait, ICS = irq+softirq+steal, BS = system, CS = user, DS = nice */
    uint64_t idle = sum_sat(v[3], v[4]), ics = sum_sat(sum_sat(v[5], v[6]), v[7]);
    bump(sys, h, C_IDLE, c, idle, &l[0], tick);
    bump(sys, h, C_ICS, c, ics, &l[1], tick);
    bump(sys, h, C_BS, c, v[2], &l[2], tick);
    bump(sys, h, C_CS, c, v[0], &l[3], tick);
    bump(sys, h, C_DS, c, v[1], &l[4], tick);
  }
}

/* /proc/interrupts: interrupts taken per processor — the sum of each CPU's column over
 * every row that has one (IRQ lines and LOC, RES, CAL...; ERR and MIS are system-wide),
 * a processor's column is its CPU's ("CPUn" in the header; the others are not folded onto
 * it, as in /proc/stat). A row with a count too big for a figure spoils the reading; a
 * row with fewer counts than CPUs (ERR, MIS) is left out. */
void mi_lx_read_interrupts(mi_system *sys, host *h) {
  if (!slurp_noted(h, K_INTR)) return;
  const char *line = h->buf, *eol = strchr(line, '\n');
  int ncol = 0, bad = 0;
  int colall[NCPU_ALL];         /* the processor (all_of) of each column, -1: none */
  uint64_t sum[NCPU_ALL], row[NCPU_ALL];
  uint64_t cpu, x;
  for (const char *p = line; (p = strstr(p, "CPU")) && (!eol || p < eol) && ncol < NCPU_ALL; ncol++) {
    p += 3;
    colall[ncol] = num(&p, &cpu) ? all_of(h, cpu) : -1;
    sum[ncol] = 0;
  }
  for (line = eol ? eol + 1 : NULL; ncol > 0 && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    const char *p = strchr(line, ':'), *end = strchr(line, '\n');
    if (!p || (end && p > end)) continue;
    int k = 0;
    for (p++; k < ncol; k++) {
      while (*p == ' ' || *p == '\t') p++;
      if (!isdigit((unsigned char)*p)) break;
      const char *q = p;
      while (isdigit((unsigned char)*q)) q++;
      if (!num(&p, &x)) { bad |= !*q || *q == ' ' || *q == '\t' || *q == '\n'; break; }   /* too big; "5-edge" ends the counts */
      row[k] = x;
    }
    if (k == ncol)   /* a row with a count for every CPU */
      for (int c = 0; c < ncol; c++) sum[c] = sum_sat(sum[c], row[c]);
  }
  if (bad || ncol == 0) { note_bad(h); return; }
  int ncpu = mi_host_cpus(sys);
  for (int c = 0; c < ncol; c++) {
    int a = colall[c];
    if (a < 0) continue;
    cpu_fig(h, a, F_INTR, sum[c]);
    if (a < NCPU_MI && a < ncpu) bump(sys, h, C_INTR, a, sum[c], &h->intr[a], 1);
  }
}

void mi_lx_sys_levels(mi_system *sys, host *h) {
  if (!mi_host_active(sys, h->s.c[S_FROZEN])) h->s.frozen = 0;
  if (!mi_host_active(sys, h->s.c[S_LRU])) h->s.lru[0] = h->s.lru[1] = 0;
}

/* Sets class cls of object-class level c (global) to kb KB as 2 KB pages: adds the difference
 * from *written, what was last written, when someone counts it. */
static void level_cls(mi_system *sys, mi_ctr c, int cls, uint64_t kb, int64_t *written) {
  if (!mi_host_active(sys, c)) return;
  int64_t pages = (int64_t)(kb / 2 > (uint64_t)INT32_MAX ? INT32_MAX : kb / 2);
  if (pages != *written) mi_host_add_objcl(sys, c, 0, cls, pages - *written);
  *written = pages;
}

/* /proc/meminfo: memory size (within mish's cgroup limit), free pages and the inactive (reclaimable, not yet reused) lists. */
void mi_lx_read_memory(mi_system *sys, host *h) {
  uint64_t total, free_kb, ia, ifl;
  if (slurp_noted(h, K_MEM)) {
    if (keyed(h->buf, "MemTotal", &total) && keyed(h->buf, "MemFree", &free_kb)) {
      if (h->s.cg_mem_kb >= 0 && (uint64_t)h->s.cg_mem_kb < total) total = (uint64_t)h->s.cg_mem_kb;   /* a container's limit */
      mi_host_config_set(sys, 3039, total / 2 > INT32_MAX ? INT32_MAX : (int32_t)(total / 2));
      mi_host_set(sys, h->c[G_FREE], 0, (int64_t)(free_kb / 2));
    } else note_bad(h);
    /* kernels since 2.6.28; an older one leaves 21310 undriven */
    if (keyed(h->buf, "Inactive(anon)", &ia) && keyed(h->buf, "Inactive(file)", &ifl))
      mi_host_set(sys, h->s.c[S_ROC], 0, (int64_t)(sum_sat(ia, ifl) / 2));
    /* pinned pages (mlock: frozen), and the pages on the reclaim lists (replaceable now) */
    uint64_t ml, aa, af;
    if (keyed(h->buf, "Mlocked", &ml)) level_cls(sys, h->s.c[S_FROZEN], 0, ml, &h->s.frozen);
    if (keyed(h->buf, "Active(anon)", &aa) && keyed(h->buf, "Active(file)", &af) &&
        keyed(h->buf, "Inactive(anon)", &ia) && keyed(h->buf, "Inactive(file)", &ifl)) {
      level_cls(sys, h->s.c[S_LRU], 0, sum_sat(aa, ia), &h->s.lru[0]);
      level_cls(sys, h->s.c[S_LRU], 7, sum_sat(af, ifl), &h->s.lru[1]);
    }
  }
}

/* The /proc/vmstat figures read, each summed into a slot of hsys.vm (or -1: pgmajfault). A
 * prefix key (pre 1) takes every line whose first word is longer and begins with it
 * (pgalloc_dma, pgalloc_normal...); another key a first word equal to it. The keys are grouped
 * by first letter (VM_A, VM_N, VM_P: where each letter's keys begin): a line is compared with
 * its own letter's keys only, letter by letter (a GET reads vmstat: ~190 lines, ~120 of them
 * beginning with one of the 3 letters). */
#define VK(k, pre, slot) {k, sizeof k - 1, pre, slot}
static const struct { const char *key; uint8_t len, pre; int8_t slot; } vmkeys[] = {
  VK("allocstall", 0, V_STALL), VK("allocstall_", 1, V_STALL),
  VK("nr_vmscan_write", 0, V_VMSCAN_WRITE),
  VK("pgalloc_", 1, V_ALLOC), VK("pgfree", 0, V_FREE), VK("pageoutrun", 0, V_STALL), VK("pgscan_kswapd", 0, V_SCAN),
  VK("pgscan_direct", 0, V_SCAN), VK("pgscan_khugepaged", 0, V_SCAN), VK("pgscan_proactive", 0, V_SCAN),
  VK("pgsteal_anon", 0, V_STEAL_ANON), VK("pgsteal_file", 0, V_STEAL_FILE), VK("pswpout", 0, V_PSWPOUT),
  VK("pswpin", 0, V_PSWPIN), VK("pgdeactivate", 0, V_DEACT), VK("pgactivate", 0, V_ACT), VK("pgmajfault", 0, -1),
};
enum { VM_A = 0, VM_N = 2, VM_P = 3 };
#define NVMKEYS ((int)(sizeof vmkeys / sizeof vmkeys[0]))

/* /proc/vmstat, one pass: major faults and the memory manager's figures (table above). A
 * figure the kernel does not have leaves its item undriven; a malformed figure spoils the
 * reading. A reading after a refresh that did not read vmstat is a new baseline. */
void mi_lx_read_vmstat(mi_system *sys, host *h) {
  hsys *s = &h->s;
  if (s->vm_gen + 1 != h->gen) for (int k = 0; k < NVM; k++) s->vm[k] = UINT64_MAX;
  s->vm_gen = h->gen;
  if (!slurp_noted(h, K_VM)) return;
  uint64_t v[NVM] = {0}, maj = 0, x;
  int have[NVM] = {0}, have_maj = 0, bad = 0;
  for (const char *line = h->buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    int i = *line == 'a' ? VM_A : *line == 'n' ? VM_N : *line == 'p' ? VM_P : -1;
    if (i < 0) continue;
    int to = i == VM_A ? VM_N : i == VM_N ? VM_P : NVMKEYS;
    for (; i < to; i++) {
      const char *key = vmkeys[i].key;
      size_t k = vmkeys[i].len, j = 1;
      while (j < k && line[j] == key[j]) j++;   /* stops at the line's end too: no key has a NUL */
      if (j < k) continue;
      char c = line[k];   /* what follows the key: a blank ends a whole word, anything else a longer one */
      int ends = c == ' ' || c == '\n' || c == 0;   /* (a tab belongs to the word, as ever) */
      if (vmkeys[i].pre ? ends : !ends) continue;
      const char *p = line + k + (vmkeys[i].pre ? strcspn(line + k, " \n") : 0);
      if (!num(&p, &x)) { bad = 1; break; }
      if (vmkeys[i].slot < 0) { maj = x; have_maj = 1; }
      else { v[vmkeys[i].slot] = sum_sat(v[vmkeys[i].slot], x); have[vmkeys[i].slot] = 1; }
      break;
    }
  }
  if (bad || !have_maj) { note_bad(h); return; }
  bump(sys, h, G_PF, 0, maj, &h->pgmajfault, 1);
  int64_t pg = s->page_2k;
  if (have[V_ALLOC]) sbump(sys, h, S_ALLOC, 0, v[V_ALLOC], &s->vm[V_ALLOC], pg);
  if (have[V_FREE]) sbump(sys, h, S_FREED, 0, v[V_FREE], &s->vm[V_FREE], pg);
  if (have[V_STALL]) sbump(sys, h, S_PRESSURE, 0, v[V_STALL], &s->vm[V_STALL], 1);
  if (have[V_SCAN]) sbump(sys, h, S_EXAMINED, 0, v[V_SCAN], &s->vm[V_SCAN], pg);
  if (have[V_STEAL_ANON] && have[V_STEAL_FILE]) {   /* kernels since 5.8 split reclaim by kind */
    bump_cls(sys, s->c[S_STEAL], 0, v[V_STEAL_ANON], &s->vm[V_STEAL_ANON], pg);
    bump_cls(sys, s->c[S_STEAL], 7, v[V_STEAL_FILE], &s->vm[V_STEAL_FILE], pg);
  }
  if (have[V_PSWPOUT] && have[V_VMSCAN_WRITE]) {
    uint64_t w = v[V_VMSCAN_WRITE], o = v[V_PSWPOUT];
    bump_cls(sys, s->c[S_PAGEOUT], 0, o, &s->vm[V_PSWPOUT], pg);
    bump_cls(sys, s->c[S_PAGEOUT], 7, w > o ? w - o : 0, &s->vm[V_VMSCAN_WRITE], pg);
  }
  if (have[V_PSWPIN]) bump_cls(sys, s->c[S_SWAPIN], 0, v[V_PSWPIN], &s->vm[V_PSWPIN], pg);
  if (have[V_DEACT]) bump_cls(sys, s->c[S_DEACT], 0, v[V_DEACT], &s->vm[V_DEACT], pg);
  if (have[V_ACT]) bump_cls(sys, s->c[S_RECOVER], 0, v[V_ACT], &s->vm[V_ACT], pg);
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

/* One /proc/diskstats line: major, minor, a name (1-31 characters) and at least 11 figures,
 * then up to 6 more (discards since Linux 4.18, flushes since 5.5; 0 when absent); 1 if it
 * has them. */
static int disk_line(const char *line, char name[32], uint64_t v[DISK_FIELDS]) {
  const char *p = line;
  uint64_t maj, min;
  if (!num(&p, &maj) || !num(&p, &min)) return 0;
  while (*p == ' ' || *p == '\t') p++;
  size_t len = strcspn(p, " \t\n");
  if (len == 0 || len >= 32) return 0;
  memcpy(name, p, len);
  name[len] = 0;
  p += len;
  for (int k = 0; k < 11; k++) if (!num(&p, &v[k])) return 0;
  for (int k = 11; k < DISK_FIELDS; k++) if (!num(&p, &v[k])) v[k] = 0;
  return 1;
}

/* /proc/diskstats: whole disks become disk LDEVs 1, 2, ... in the order the kernel lists them. */
void mi_lx_read_disks(mi_system *sys, host *h) {
  if (!slurp_noted(h, K_DISK)) return;
  char names[256][32];   /* whole disks listed so far, to recognise their partitions */
  int n = 0, bad = 0;
  for (const char *line = h->buf; line && *line && n < 256; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    char name[32];
    uint64_t v[DISK_FIELDS];
    if (*line == '\n') continue;
    if (!disk_line(line, name, v)) { bad = 1; continue; }
    if (!whole_disk(name, names, n)) continue;
    snprintf(names[n++], 32, "%s", name);
    int d = 0;
    while (d < h->ndisks && strcmp(h->disk[d].name, name)) d++;
    if (h->rebase_disks && d < h->ndisks) {   /* counting again after a pause: a new baseline */
      for (int k = 0; k < DISK_FIELDS; k++) h->disk[d].v[k] = v[k];
      continue;
    }
    if (d == h->ndisks) {
      if (h->ndisks >= MAX_DISKS || h->ndisks >= 999) continue;
      snprintf(h->disk[d].name, sizeof h->disk[d].name, "%s", name);
      for (int k = 0; k < DISK_FIELDS; k++) h->disk[d].v[k] = v[k];   /* the first sight is the baseline */
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
      add_sat(sys, h->c[D_SWRD], ldev, 0, r);
      add_sat(sys, h->c[D_CRD], ldev, 0, r); add_sat(sys, h->c[D_COMPL], ldev, 0, r);
    }
    if (v[4] > l[4]) {
      int64_t w = (int64_t)(v[4] - l[4]);
      add_sat(sys, h->c[D_SWWT], ldev, 0, w);
      add_sat(sys, h->c[D_CWR], ldev, 0, w); add_sat(sys, h->c[D_COMPL], ldev, 0, w);
    }
    if (v[2] > l[2]) add_sat(sys, h->c[D_RDSZ], ldev, 0, scaled(v[2] - l[2], 512));   /* 23040/23041: bytes of all I/O */
    if (v[6] > l[6]) add_sat(sys, h->c[D_WTSZ], ldev, 0, scaled(v[6] - l[6], 512));
    if (v[3] > l[3]) add_sat(sys, h->c[D_RDRTT], ldev, 0, scaled(v[3] - l[3], tpm));
    if (v[7] > l[7]) add_sat(sys, h->c[D_WTRTT], ldev, 0, scaled(v[7] - l[7], tpm));
    /* 9 ms doing I/O (the disk busy: its service), 10 weighted ms (in-flight requests x ms:
     * the time requests spent in the queue and in service), 11 discards, 15 flushes */
    if (v[9] > l[9]) add_sat(sys, h->s.c[S_DSERVICE], ldev, 0, scaled(v[9] - l[9], tpm));
    if (v[10] > l[10]) add_sat(sys, h->s.c[S_DREQSECS], ldev, 0, scaled(v[10] - l[10], tpm));
    uint64_t ctl = sum_sat(v[11], v[15]), lctl = sum_sat(l[11], l[15]);
    if (ctl > lctl) add_sat(sys, h->s.c[S_DCONTROL], ldev, 0, (int64_t)(ctl - lctl));
    mi_host_set(sys, h->c[D_QCUR], ldev, (int64_t)v[8]);
    mi_host_max(sys, h->s.c[S_DQMAX], ldev, (int64_t)v[8]);   /* the watermark of the same reading */
    for (int k = 0; k < DISK_FIELDS; k++) l[k] = v[k];
  }
  if (bad) note_bad(h);
}

/* ---- the reading health and the process table age (mi_linux.h) ---- */
int mi_linux_health_get(mi_system *sys, mi_linux_health *out) {
  if (!mi_linux_attached(sys) || !out) return -1;
  mi_host_begin(sys);   /* a write section: a publisher thread's refresh is not half-way through */
  *out = mi_lx_of(sys)->health;
  mi_host_publish(sys);
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) out->self_cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  return 0;
}

int mi_linux_time_refreshes(mi_system *sys, int on) {
  if (!mi_linux_attached(sys)) return -1;
  mi_host_begin(sys);
  host *h = mi_lx_of(sys);
  if (on && h->health.cpu_ns < 0) h->health.cpu_ns = h->health.last_cpu_ns = 0;   /* measured from now */
  h->timed = on != 0;
  mi_host_publish(sys);
  return 0;
}

int mi_linux_set_process_age(mi_system *sys, int ms) {
  if (!mi_linux_attached(sys)) return -1;
  mi_host_begin(sys);
  mi_lx_of(sys)->proc_age_ms = ms > 0 ? ms : 0;
  mi_host_publish(sys);
  return 0;
}
