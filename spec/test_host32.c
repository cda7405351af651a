/* test_host32.c — the host source's #32 figures from C (and so under ASan+UBSan): every CPU
 * past the MI's 8 (mi_linux_cpus), a container's limits (mi_linux_limits_get) and the
 * short-lived tasks (mi_linux_health.short_lived). Included by test_core.c (its CHECK/EQ,
 * put_file, rm_tree). */

/* A /proc/stat of n CPUs, CPU k with user time u0 + k * du jiffies (the rest fixed), and the
 * fork count forks, into buf. */
static void h32_stat(char *buf, size_t cap, int n, int u0, int du, int forks) {
  size_t at = (size_t)snprintf(buf, cap, "cpu  %d 0 0 %d 0 0 0 0 0 0\n", n * u0, n * 1000);
  for (int k = 0; k < n && at < cap; k++) at += (size_t)snprintf(buf + at, cap - at, "cpu%d %d 0 0 1000 0 0 0 0 0 0\n", k, u0 + k * du);
  if (at < cap) snprintf(buf + at, cap - at, "btime 1700000000\nprocesses %d\nprocs_running 1\nprocs_blocked 0\n", forks);
}

/* #32: a 64-CPU host keeps every processor's figures (the MI's rows stay 8), a cpuset and
 * cpu.max become its limits, forks no reading saw are counted. */
static void test_host32(void) {
  char dir[64] = "/tmp/mish-h32-XXXXXX", root[96], buf[8192];
  if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
  snprintf(root, sizeof root, "%s/proc", dir);
  mkdir(root, 0755);
  h32_stat(buf, sizeof buf, 64, 100, 0, 900);
  put_file(root, "stat", buf);
  put_file(root, "meminfo", "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n");
  put_file(root, "vmstat", "pgmajfault 40\n");
  put_file(root, "diskstats", "   8       0 sda 1000 10 64000 500 300 5 24000 900 2 1000 2000\n");
  put_file(root, "1/stat", "1 (init) S 0 1 1 0 -1 0 100 0 0 0 5 0 0 0 20 0 1 0 500 1000 10 0\n");
  put_file(root, "1/status", "Name:\tinit\nUid:\t0\t0\t0\t0\n");
  mi_system *sys = mi_linux_new(root, 0);
  CHECK(sys != NULL, "#32 host on a 64-CPU tree");
  if (!sys) { rm_tree(dir); return; }
  mi_linux_cpu c[80];
  EQ(mi_linux_cpus(sys, c, 80), 64, "#32 every CPU is a processor of mi_linux_cpus");
  EQ(mi_host_cpus(sys), 8, "#32 the MI keeps 8 processor rows");
  h32_stat(buf, sizeof buf, 64, 100, 1, 900);   /* CPU k: k more jiffies of user time */
  put_file(root, "stat", buf);
  mi_linux_refresh(sys);
  EQ(mi_linux_cpus(sys, c, 80), 64, "#32 64 processors after a refresh");
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / sysconf(_SC_CLK_TCK) / mi_host_config(sys, 3042);
  EQ(c[63].cs, 63 * tick, "#32 processor 63's user time, in MI_Time");
  EQ(c[63].cpu, 63, "#32 processor 63 is CPU 63");
  EQ(c[5].idle, 0, "#32 no idle time added");
  EQ(mi_linux_cpus(sys, c, 4), 64, "#32 a short array is filled to its size, the count whole");
  EQ(mi_linux_cpus(sys, NULL, 0), 64, "#32 a NULL array of none just counts");
  /* short-lived: the first full reading is the baseline; 5 forks, one process seen */
  mi_linux_health hh;
  h32_stat(buf, sizeof buf, 64, 100, 1, 905);
  put_file(root, "stat", buf);
  put_file(root, "2/stat", "2 (sh) S 1 2 2 0 -1 0 100 0 0 0 5 0 0 0 20 0 1 0 600 1000 10 0\n");
  put_file(root, "2/status", "Name:\tsh\nUid:\t0\t0\t0\t0\n");
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &hh);
  EQ(hh.short_lived, 4, "#32 5 forks, 1 process seen born: 4 short-lived");
  mi_linux_limits lim;
  EQ(mi_linux_limits_get(sys, &lim), 0, "#32 limits of the host");
  EQ(lim.cpus, 64, "#32 no cgroup: every CPU");
  EQ(lim.memory_max, -1, "#32 no cgroup: no memory limit");
  mi_system_free(sys);
  /* a container: cpuset 8-23 (16 CPUs), cpu.max 2.5 CPUs' worth */
  put_file(root, "self/cgroup", "0::/box\n");
  put_file(dir, "sys/fs/cgroup/box/cpuset.cpus.effective", "8-23\n");
  put_file(dir, "sys/fs/cgroup/box/cpu.max", "250000 100000\n");
  put_file(dir, "sys/fs/cgroup/box/memory.max", "1073741824\n");
  sys = mi_linux_new(root, 0);
  CHECK(sys != NULL, "#32 host in a container");
  if (sys) {
    EQ(mi_linux_limits_get(sys, &lim), 0, "#32 limits in a container");
    EQ(lim.cpuset, 16, "#32 the cpuset's CPUs");
    EQ(lim.cpus, 3, "#32 cpu.max 2.5 rounds up to 3 CPUs");
    EQ(lim.cpu_quota_us * 100000, 250000 * lim.cpu_period_us, "#32 cpu.max's share");
    EQ(lim.memory_max, 1073741824, "#32 memory.max");
    EQ(mi_linux_cpus(sys, c, 80), 16, "#32 the processors are the cpuset's");
    EQ(c[15].cpu, 23, "#32 processor 15 is CPU 23");
    mi_system_free(sys);
  }
  mi_linux_limits no;
  EQ(mi_linux_limits_get(NULL, &no), -1, "#32 limits of no system");
  rm_tree(dir);
}
