/* linux_sys.c — the host source's system-wide figures: /proc/stat, interrupts, meminfo,
 * vmstat and diskstats, each read once per refresh (kept open) and written into the global,
 * processor and device counters through mi_host.h. The process side is in linux.c. */
#include <ctype.h>
#include "linux_int.h"

/* /proc/stat: CPU times per processor and overall, running and blocked counts. A cpu line
 * with fewer than 8 valid figures (user nice system idle iowait irq softirq steal: kernels
 * since 2.6.11) spoils every cpu line of this reading: one half-read line must not rebase a
 * processor. A processor with no line this time keeps its baseline. */
void mi_lx_read_stat(mi_system *sys, host *h) {
  if (!slurp_noted(h, K_STAT)) return;
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / h->hz;   /* ticks per jiffy */
  uint64_t sum[NCPU_MI][8] = {{0}}, all[8] = {0};
  int ncpu = 0, have_all = 0, bad = 0, present[NCPU_MI] = {0};
  uint64_t x;
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
        /* more than 8 CPUs fold onto processors 0-7 (cpu i -> i mod 8) */
        int c = (int)(idx % NCPU_MI);
        for (k = 0; k < 8; k++) sum[c][k] = sum_sat(sum[c][k], v[k]);
        present[c] = 1;
        if ((int)idx + 1 > ncpu) ncpu = (int)idx + 1;
      }
    } else if (strncmp(line, "btime ", 6) == 0) {
      const char *p = line + 6;
      /* a boot time this side of the year 33658 keeps start times within int64 ticks */
      if (num(&p, &x) && x < 1000000000000ull) h->btime = (int64_t)x; else bad = 1;
    } else if (strncmp(line, "procs_running ", 14) == 0 || strncmp(line, "procs_blocked ", 14) == 0) {
      const char *p = line + 14;
      if (num(&p, &x)) mi_host_set(sys, h->c[line[6] == 'r' ? G_READY : G_BLOCKED], 0, (int64_t)x); else bad = 1;
    }
  }
  if (bad || !have_all || ncpu == 0) { note_bad(h); if (bad || !have_all) return; }
  bump(sys, h, G_CS, 0, all[0], &h->cpu[NCPU_MI][0], tick);
  bump(sys, h, G_DS, 0, all[1], &h->cpu[NCPU_MI][1], tick);
  bump(sys, h, G_BS, 0, all[2], &h->cpu[NCPU_MI][2], tick);
  bump(sys, h, G_IDLE, 0, all[3], &h->cpu[NCPU_MI][3], tick);
  bump(sys, h, G_PAUSED, 0, all[4], &h->cpu[NCPU_MI][4], tick);
  if (ncpu > 0 && mi_host_cpus(sys) != (ncpu < NCPU_MI ? ncpu : NCPU_MI)) mi_host_set_cpus(sys, ncpu < NCPU_MI ? ncpu : NCPU_MI);
  for (int c = 0; c < NCPU_MI && c < ncpu; c++) {
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
 * folded like /proc/stat. A row with a count too big for a figure spoils the reading; a
 * row with fewer counts than CPUs (ERR, MIS) is left out. */
void mi_lx_read_interrupts(mi_system *sys, host *h) {
  if (!slurp_noted(h, K_INTR)) return;
  const char *line = h->buf, *eol = strchr(line, '\n');
  int ncol = 0, bad = 0;
  uint64_t sum[NCPU_MI] = {0};
  for (const char *p = line; (p = strstr(p, "CPU")) && (!eol || p < eol); p += 3) ncol++;
  for (line = eol ? eol + 1 : NULL; ncol > 0 && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    const char *p = strchr(line, ':'), *end = strchr(line, '\n');
    if (!p || (end && p > end)) continue;
    uint64_t v[NCPU_MI] = {0}, x;
    int k = 0;
    for (p++; k < ncol; k++) {
      while (*p == ' ' || *p == '\t') p++;
      if (!isdigit((unsigned char)*p)) break;
      const char *q = p;
      while (isdigit((unsigned char)*q)) q++;
      if (!num(&p, &x)) { bad |= !*q || *q == ' ' || *q == '\t' || *q == '\n'; break; }   /* too big; "5-edge" ends the counts */
      v[k % NCPU_MI] = sum_sat(v[k % NCPU_MI], x);
    }
    if (k == ncol)   /* a row with a count for every CPU */
      for (int c = 0; c < NCPU_MI; c++) sum[c] = sum_sat(sum[c], v[c]);
  }
  if (bad || ncol == 0) { note_bad(h); return; }
  int ncpu = mi_host_cpus(sys);
  for (int c = 0; c < ncpu && c < ncol; c++) bump(sys, h, C_INTR, c, sum[c], &h->intr[c], 1);
}

/* /proc/meminfo: memory size and free pages. */
void mi_lx_read_memory(mi_system *sys, host *h) {
  uint64_t total, free_kb;
  if (slurp_noted(h, K_MEM)) {
    if (keyed(h->buf, "MemTotal", &total) && keyed(h->buf, "MemFree", &free_kb)) {
      mi_host_config_set(sys, 3039, total / 2 > INT32_MAX ? INT32_MAX : (int32_t)(total / 2));
      mi_host_set(sys, h->c[G_FREE], 0, (int64_t)(free_kb / 2));
    } else note_bad(h);
  }
}

/* /proc/vmstat: major faults. */
void mi_lx_read_vmstat(mi_system *sys, host *h) {
  uint64_t f;
  if (slurp_noted(h, K_VM)) {
    if (keyed(h->buf, "pgmajfault", &f)) bump(sys, h, G_PF, 0, f, &h->pgmajfault, 1);
    else note_bad(h);
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

/* One /proc/diskstats line: major, minor, a name (1-31 characters) and at least 11 figures;
 * 1 if it has them. */
static int disk_line(const char *line, char name[32], uint64_t v[11]) {
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
  return 1;
}

/* /proc/diskstats: whole disks become disk LDEVs 1, 2, ... in the order the kernel lists them. */
void mi_lx_read_disks(mi_system *sys, host *h) {
  if (!slurp_noted(h, K_DISK)) return;
  char names[256][32];   /* whole disks listed so far, to recognise their partitions */
  int n = 0, bad = 0;
  for (const char *line = h->buf; line && *line && n < 256; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    char name[32];
    uint64_t v[11];
    if (*line == '\n') continue;
    if (!disk_line(line, name, v)) { bad = 1; continue; }
    if (!whole_disk(name, names, n)) continue;
    snprintf(names[n++], 32, "%s", name);
    int d = 0;
    while (d < h->ndisks && strcmp(h->disk[d].name, name)) d++;
    if (h->rebase_disks && d < h->ndisks) {   /* counting again after a pause: a new baseline */
      for (int k = 0; k < 11; k++) h->disk[d].v[k] = v[k];
      continue;
    }
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
    mi_host_set(sys, h->c[D_QCUR], ldev, (int64_t)v[8]);
    for (int k = 0; k < 11; k++) l[k] = v[k];
  }
  if (bad) note_bad(h);
}
