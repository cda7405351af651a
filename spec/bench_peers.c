/* bench_peers.c — `make bench-peers` (#17.3, #31, #32): the host source beside Performance Co-Pilot
 * and node_exporter in one run, side by side:
 *  - pmFetch through a local context (PM_CONTEXT_LOCAL: the linux and proc PMDAs loaded as
 *    libraries) of the figures mish's GETs give: the 5 CPU times behind testmiaif1's 23 global
 *    items, and utime, stime and the 4 I/O figures of every process (pid + 5 items);
 *  - the same through pmcd (when it answers), at 500 and 2,700 processes, against a global GET
 *    made while another session has process counters on (#32: a GET reads what it returns);
 *  - scripts/summary.lua on a host recording against pmlogsummary on a pmlogger archive of the
 *    same figures, recorded side by side (#31.4);
 *  - the CPU per scrape of `mish --system host --serve` and of prometheus-node-exporter, scraped in
 *    turn, at 2,000 processes (#32).
 * Sleeping children fill a quiet machine up to the process counts. Each part says why when it is
 * skipped. Built only when PCP's headers are there (libpcp3-dev). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pcp/pmapi.h>
#include "mi.h"
#include "mi_linux.h"
#include "bench_common.h"

/* libpcp's own (libpcp.h, not installed): adds a PMDA library to local contexts; NULL or a message. */
extern char *pmSpecLocalPMDA(const char *);

static int32_t glob[] = {21176, 21177, 21178, 21179, 21180, 21181, 21182, 21183, 21184, 21185, 21186, 21317,
                         21187, 21188, 21189, 21191, 21192, 21193, 21233, 21306, 21307, 21313, 21314, 0};
static int32_t pl[] = {20001, 25047, 25167, 25168, 25169, 25170, 0};
static const char *gnames[] = {"kernel.all.cpu.idle", "kernel.all.cpu.wait.total", "kernel.all.cpu.user",
                               "kernel.all.cpu.nice", "kernel.all.cpu.sys"};
static const char *pnames[] = {"proc.psinfo.utime", "proc.psinfo.stime", "proc.io.syscr", "proc.io.syscw",
                               "proc.io.read_bytes", "proc.io.write_bytes"};
static char tmpdir[64];   /* this run's scratch directory (removed at the end) */


static pid_t kids[3000];
static int nkids;

/* Forks sleeping children until /proc lists at least n processes (or 3,000 children). */
static void fill_procs(int n) {
  while (host_count() < n && nkids < (int)(sizeof kids / sizeof kids[0])) {
    pid_t k = fork();
    if (k == 0) { pause(); _exit(0); }
    if (k < 0) break;
    kids[nkids++] = k;
  }
}

/* Ends every sleeping child. */
static void end_kids(void) {
  for (int i = 0; i < nkids; i++) kill(kids[i], SIGKILL);
  for (int i = 0; i < nkids; i++) waitpid(kids[i], NULL, 0);
  nkids = 0;
}

/* The median of n values (sorts them). */
static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

/* Looks up names into pmids; 0 or the PCP error. */
static int lookup(const char **names, int n, pmID *ids) {
  int rc = pmLookupName(n, names, ids);
  return rc < 0 ? rc : rc == n ? 0 : PM_ERR_NAME;
}

/* The local-context comparison (PMDAs as libraries, no pmcd): 0, or -1 when PCP cannot run. */
static int peers_local(void) {
  /* the namespace: the installed one, else one merged here from the PMDAs' parts (the
   * package's postinst builds it; in a container where that failed it is missing) */
  char pmns[96] = "";
  if (access("/var/lib/pcp/pmns/root", R_OK) != 0) {
    snprintf(pmns, sizeof pmns, "%s/pmns", tmpdir);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cd /var/lib/pcp/pmns && /usr/lib/pcp/bin/pmnsmerge root_root root_pmcd root_linux root_proc %s >/dev/null 2>&1", pmns);
    if (system(cmd) != 0 || pmLoadASCIINameSpace(pmns, 1) < 0) {
      printf("bench-peers: PCP's namespace cannot be built (%s): skipped\n", cmd);
      return -1;
    }
  }
  char *msg = pmSpecLocalPMDA("add,3,/var/lib/pcp/pmdas/proc/pmda_proc.so,proc_init");
  if (msg) printf("  (the proc PMDA was not added to local contexts: %s)\n", msg);
  int ctx = pmNewContext(PM_CONTEXT_LOCAL, NULL);
  if (ctx < 0) { printf("bench-peers: pmNewContext(PM_CONTEXT_LOCAL): %s: skipped\n", pmErrStr(ctx)); return -1; }
  pmID gid[5], pid[6];
  int rc = lookup(gnames, 5, gid), prc = lookup(pnames, 6, pid);
  if (rc < 0) { printf("bench-peers: PCP has no %s: %s: skipped\n", gnames[0], pmErrStr(rc)); pmDestroyContext(ctx); return -1; }
  fill_procs(500);
  status_type st;
  int32_t stats[32], gbuf[64];
  static uint8_t pbuf[4000 * 64];
  mi_session *g = host_session(glob, 0), *h = host_session(pl, 1);
  pmResult *res;
  double mg = 1e18, pg = 1e18;
  for (int i = 0; i < 2000; i++) {
    double t0 = now_ns();
    mi_globget(g, &st, glob, gbuf, stats, sizeof gbuf, 1, 0);
    double t = now_ns() - t0;
    if (t < mg) mg = t;
    t0 = now_ns();
    if (pmFetch(5, gid, &res) >= 0) pmFreeResult(res);
    t = now_ns() - t0;
    if (t < pg) pg = t;
  }
  printf("23 global items: mish MIGLOBGET %.3f ms  PCP pmFetch of the 5 CPU times (local context) %.3f ms  ratio %.2f  (target <= 1.0)\n",
         mg / 1e6, pg / 1e6, mg / pg);
  if (prc < 0) printf("process table: PCP has no %s (%s): skipped\n", pnames[0], pmErrStr(prc));
  else {
    double mp = 1e18, pp = 1e18;
    int n = 0, inst = 0;
    for (int i = 0; i < 20; i++) {
      double t0 = now_ns();
      mi_procget(h, &st, pl, pbuf, stats, sizeof pbuf, 1, NULL, &n, NULL, 0);
      double t = now_ns() - t0;
      if (t < mp) mp = t;
      t0 = now_ns();
      if (pmFetch(6, pid, &res) >= 0) { inst = res->numpmid ? res->vset[0]->numval : 0; pmFreeResult(res); }
      t = now_ns() - t0;
      if (t < pp) pp = t;
    }
    printf("process table, pid + 5 items: mish MIPROCGET %.2f ms (%d processes)  PCP pmFetch of 6 proc metrics %.2f ms (%d instances)  ratio %.2f\n",
           mp / 1e6, n, pp / 1e6, inst, mp / pp);
  }
  mi_system_free(mi_session_system(g));
  mi_system_free(mi_session_system(h));
  pmDestroyContext(ctx);
  return 0;
}

/* #32: through pmcd, at np processes: mish's 23-item global GET on a system where another session
 * has every process's counters on, against pmFetch of the 5 CPU times from pmcd; the median of
 * calls in turn. */
static void peers_pmcd_at(int np) {
  int ctx = pmNewContext(PM_CONTEXT_HOST, "local:");
  if (ctx < 0) { printf("through pmcd: pmNewContext(local:): %s: skipped (pmcd does not answer: /etc/init.d/pmcd start)\n", pmErrStr(ctx)); return; }
  pmID gid[5];
  if (lookup(gnames, 5, gid) < 0) { printf("through pmcd: pmcd has no %s: skipped\n", gnames[0]); pmDestroyContext(ctx); return; }
  fill_procs(np);
  mi_system *hs = mi_linux_new(NULL, 0);
  if (!hs) { printf("through pmcd: the host cannot be read: skipped\n"); pmDestroyContext(ctx); return; }
  mi_session *g = mi_session_new(hs), *p = mi_session_new(hs);
  status_type st;
  int32_t stats[32], gbuf[64], map = 1;
  longint_type all;
  mi_longint_set(&all, -1);
  mi_session *both[2] = {g, p};
  for (int k = 0; k < 2; k++) { mi_session_set_priv(both[k], 1); mi_globinstall(both[k], &st, 666); mi_accesson(both[k], &st, 666); }
  mi_globon(g, &st, glob, stats, &map, 0);
  mi_procon(p, &st, pl, stats, &map, &all, 0);
  enum { N = 401 };
  static double tm[N], tp[N];
  pmResult *res;
  for (int i = 0; i < N; i++) {
    double t0 = now_ns();
    mi_globget(g, &st, glob, gbuf, stats, sizeof gbuf, 1, 0);
    tm[i] = now_ns() - t0;
    t0 = now_ns();
    if (pmFetch(5, gid, &res) >= 0) pmFreeResult(res);
    tp[i] = now_ns() - t0;
  }
  double m = median(tm, N), q = median(tp, N);
  printf("23 global items with process counters on, %d processes: mish MIGLOBGET %.1f us  pmFetch through pmcd %.1f us  ratio %.2f  (target <= 0.3)\n",
         host_count(), m / 1e3, q / 1e3, m / q);
  mi_system_free(hs);
  pmDestroyContext(ctx);
}

/* CPU seconds (user + system) of the children waited for so far. */
static double children_cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Runs a shell command with its output thrown away; its CPU seconds, or -1 when it failed. */
static double run_cpu(const char *cmd) {
  char line[2048];
  snprintf(line, sizeof line, "%s >/dev/null 2>&1", cmd);
  double c0 = children_cpu_s();
  int rc = system(line);
  double c = children_cpu_s() - c0;
  return rc == 0 ? c : -1;
}

/* #31.4: scripts/summary.lua on a host recording against pmlogsummary on a pmlogger archive of
 * the same figures, both taken side by side from this host (500 processes, 10 figures each, and
 * 23 global figures; 120 samples 0.1 s apart); the best of three runs of each. */
static void peers_summary(void) {
  if (access("/usr/bin/pmlogger", X_OK) != 0 || access("/usr/bin/pmlogsummary", X_OK) != 0) {
    printf("summary vs pmlogsummary: pmlogger/pmlogsummary not installed (Debian: pcp): skipped\n");
    return;
  }
  fill_procs(500);
  char cfg[128], arch[128], rec[128], cmd[1024];
  snprintf(cfg, sizeof cfg, "%s/pmlogger.cfg", tmpdir);
  snprintf(arch, sizeof arch, "%s/arch", tmpdir);
  snprintf(rec, sizeof rec, "%s/rec.mir", tmpdir);
  FILE *f = fopen(cfg, "w");
  if (!f) { printf("summary vs pmlogsummary: %s: %s\n", cfg, strerror(errno)); return; }
  /* the same figures: per process CPU (utime + stime), run delay and count, the 4 I/O figures, rss
   * and major faults; 23 global figures of the same kinds as mish's global items below */
  fprintf(f, "log mandatory on 100 msec {\n"
             "  proc.psinfo.utime proc.psinfo.stime proc.schedstat.run_delay proc.schedstat.pcount\n"
             "  proc.io.syscr proc.io.syscw proc.io.read_bytes proc.io.write_bytes proc.psinfo.rss proc.psinfo.maj_flt\n"
             "  kernel.all.cpu.idle kernel.all.cpu.wait.total kernel.all.cpu.user kernel.all.cpu.nice kernel.all.cpu.sys\n"
             "  kernel.all.cpu.irq.hard kernel.all.cpu.irq.soft kernel.all.cpu.steal kernel.all.pswitch kernel.all.intr\n"
             "  kernel.all.running kernel.all.blocked kernel.all.nprocs mem.util.free mem.util.cached mem.util.dirty\n"
             "  mem.util.writeback mem.vmstat.pgfault mem.vmstat.pgmajfault mem.vmstat.pgpgin mem.vmstat.pgpgout\n"
             "  disk.all.read disk.all.write\n}\n");
  fclose(f);
  static const char *pitems = "25047,25048,25049,25167,25168,25169,25170,25201,25202";
  char gl[512] = "";
  for (int i = 0; glob[i]; i++) snprintf(gl + strlen(gl), sizeof gl - strlen(gl), ",%d", (int)glob[i]);
  snprintf(cmd, sizeof cmd,
           "/usr/bin/pmlogger -h local: -c %s -s 120 -l %s/pmlogger.log %s & "
           "./lua/mish --system host scripts/record.lua -o %s --interval 0.1 --count 120 --fsync none --quiet --items %s%s; "
           "wait", cfg, tmpdir, arch, rec, pitems, gl);
  if (system(cmd) != 0 || access(rec, R_OK) != 0) { printf("summary vs pmlogsummary: the recordings failed (%s)\n", cmd); return; }
  char sm[256], sp[256];
  snprintf(sm, sizeof sm, "./lua/mish scripts/summary.lua %s", rec);
  snprintf(sp, sizeof sp, "/usr/bin/pmlogsummary -a %s", arch);
  double bm = 1e9, bp = 1e9;
  for (int k = 0; k < 3; k++) {
    double m = run_cpu(sm), p = run_cpu(sp);
    if (m < 0 || p < 0) { printf("summary vs pmlogsummary: %s failed\n", m < 0 ? sm : sp); return; }
    if (m < bm) bm = m;
    if (p < bp) bp = p;
  }
  struct stat a, b;
  char a0[160];
  snprintf(a0, sizeof a0, "%s.0", arch);
  long ab = stat(a0, &a) == 0 ? (long)a.st_size : -1, rb = stat(rec, &b) == 0 ? (long)b.st_size : -1;
  printf("summary of 120 samples, %d processes x 10 figures + 23 global: summary.lua %.3f s CPU  pmlogsummary -a %.3f s CPU  ratio %.2f  (target <= 1.0); "
         "recording %ld bytes, archive %ld bytes\n", host_count(), bm, bp, bm / bp, rb, ab);
}

/* A free TCP port on the loopback (bound and closed: the server takes it a moment later). */
static int free_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t l = sizeof a;
  int port = -1;
  if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(s, (struct sockaddr *)&a, &l) == 0) port = ntohs(a.sin_port);
  if (s >= 0) close(s);
  return port;
}

/* GET /metrics from the loopback port: the bytes of the answer, or -1. */
static long scrape(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (s < 0) return -1;
  if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) { close(s); return -1; }
  static const char req[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  if (write(s, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) { close(s); return -1; }
  static char buf[65536];
  long n = 0;
  ssize_t r;
  while ((r = read(s, buf, sizeof buf)) > 0) n += r;
  close(s);
  return n;
}

/* Starts argv with its output thrown away; the child's pid or -1. */
static pid_t start(char *const argv[]) {
  pid_t k = fork();
  if (k == 0) {
    int nul = open("/dev/null", O_RDWR);
    dup2(nul, 0); dup2(nul, 1); dup2(nul, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  return k;
}

/* User + system CPU seconds of a running process, -1 when gone. */
static double proc_cpu_s(pid_t p) {
  char path[64], b[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  ssize_t n = read(fd, b, sizeof b - 1);
  close(fd);
  if (n <= 0) return -1;
  b[n] = 0;
  char *q = strrchr(b, ')');
  unsigned long ut = 0, stt = 0;
  if (!q || sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &stt) != 2) return -1;
  return (double)(ut + stt) / (double)sysconf(_SC_CLK_TCK);
}

/* Waits until port answers a scrape (at most 10 s); 0 or -1. */
static int wait_port(int port) {
  for (int i = 0; i < 200; i++) {
    if (scrape(port) > 0) return 0;
    usleep(50000);
  }
  return -1;
}

/* #32: CPU per scrape of mish --serve on the host and of node_exporter at 2,000 processes: 40
 * scrapes of each, in turn, 0.25 s apart (10 s: mish reads per-process files at its default
 * --proc-interval, 5 s); each server's CPU from /proc before and after. */
static void peers_scrape(void) {
  static const char *ne = "/usr/bin/prometheus-node-exporter";
  if (access(ne, X_OK) != 0) { printf("scrape vs node_exporter: %s not installed (Debian: prometheus-node-exporter): skipped\n", ne); return; }
  if (access("lua/mish", X_OK) != 0) { printf("scrape vs node_exporter: lua/mish not built: skipped\n"); return; }
  fill_procs(2000);
  int pm = free_port(), pn = free_port();
  char am[32], an[64];
  snprintf(am, sizeof am, "127.0.0.1:%d", pm);
  snprintf(an, sizeof an, "--web.listen-address=127.0.0.1:%d", pn);
  char *mv[] = {"./lua/mish", "--system", "host", "--serve", am, "--min-interval", "0.001", NULL};
  char *nv[] = {(char *)ne, an, NULL};
  pid_t km = start(mv), kn = start(nv);
  if (km < 0 || kn < 0 || wait_port(pm) < 0 || wait_port(pn) < 0) {
    printf("scrape vs node_exporter: a server did not start (ports %d, %d): skipped\n", pm, pn);
  } else {
    enum { N = 40 };
    double m0 = proc_cpu_s(km), n0 = proc_cpu_s(kn);
    long bm = 0, bn = 0;
    for (int i = 0; i < N; i++) {
      bm = scrape(pm);
      bn = scrape(pn);
      usleep(250000);
    }
    double m = (proc_cpu_s(km) - m0) / N, n = (proc_cpu_s(kn) - n0) / N;
    printf("scrape at %d processes: mish --serve %.2f ms CPU (%ld bytes)  node_exporter %.2f ms CPU (%ld bytes)  ratio %.2f  (target <= 1.0)\n",
           host_count(), m * 1e3, bm, n * 1e3, bn, n > 0 ? m / n : 0.0);
  }
  if (km > 0) { kill(km, SIGTERM); waitpid(km, NULL, 0); }
  if (kn > 0) { kill(kn, SIGTERM); waitpid(kn, NULL, 0); }
}

/* Removes one entry of the scratch directory (nftw). */
static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(path);
}

/* Whether the part named `part` runs: all of them, or those $MISH_PEERS lists ("fetch,summary,scrape"). */
static int part_on(const char *part) {
  const char *only = getenv("MISH_PEERS");
  return !only || !*only || strstr(only, part) != NULL;
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/mish-peers-XXXXXX");
  if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (part_on("fetch") && peers_local() == 0) {
    peers_pmcd_at(500);
    peers_pmcd_at(2700);
  }
  end_kids();
  if (part_on("summary")) peers_summary();
  end_kids();
  if (part_on("scrape")) peers_scrape();
  end_kids();
  nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
