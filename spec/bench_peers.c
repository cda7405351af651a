/* bench_peers.c — `make bench-peers` (#17.3): the host source beside Performance Co-Pilot in one
 * run. PCP's pmFetch through a local context (PM_CONTEXT_LOCAL: the linux and proc PMDAs loaded
 * as libraries, no pmcd) of the figures mish's GETs give: the 5 CPU times behind testmiaif1's 23
 * global items, and utime, stime and the 4 I/O figures of every process (pid + 5 items). With at
 * least 500 processes (sleeping children fill up a quiet machine); the fastest call of each side,
 * calls in turn. Built only when PCP's headers are there (libpcp3-dev); pmcd need not run. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <pcp/pmapi.h>
#include "mi.h"
#include "mi_linux.h"
#include "bench_common.h"

/* libpcp's own (libpcp.h, not installed): adds a PMDA library to local contexts; NULL or a message. */
extern char *pmSpecLocalPMDA(const char *);


/* The processes /proc lists now. */
static int count_procs(void) {
  DIR *d = opendir("/proc");
  int n = 0;
  struct dirent *de;
  while (d && (de = readdir(d))) n += de->d_name[0] >= '1' && de->d_name[0] <= '9';
  if (d) closedir(d);
  return n;
}


/* Looks up names into pmids; 0 or the PCP error. */
static int lookup(const char **names, int n, pmID *ids) {
  int rc = pmLookupName(n, names, ids);
  return rc < 0 ? rc : rc == n ? 0 : PM_ERR_NAME;
}

int main(void) {
  static int32_t glob[] = {21176, 21177, 21178, 21179, 21180, 21181, 21182, 21183, 21184, 21185, 21186, 21317,
                           21187, 21188, 21189, 21191, 21192, 21193, 21233, 21306, 21307, 21313, 21314, 0};
  static int32_t pl[] = {20001, 25047, 25167, 25168, 25169, 25170, 0};
  /* the namespace: the installed one, else one merged here from the PMDAs' parts (the
   * package's postinst builds it; in a container where that failed it is missing) */
  char pmns[64] = "";
  if (access("/var/lib/pcp/pmns/root", R_OK) != 0) {
    snprintf(pmns, sizeof pmns, "/tmp/mish-pmns-%d", (int)getpid());
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cd /var/lib/pcp/pmns && /usr/lib/pcp/bin/pmnsmerge root_root root_pmcd root_linux root_proc %s >/dev/null 2>&1", pmns);
    if (system(cmd) != 0 || pmLoadASCIINameSpace(pmns, 1) < 0) {
      printf("bench-peers: PCP's namespace cannot be built (%s): skipped\n", cmd);
      return 0;
    }
  }
  char *msg = pmSpecLocalPMDA("add,3,/var/lib/pcp/pmdas/proc/pmda_proc.so,proc_init");
  if (msg) printf("  (the proc PMDA was not added to local contexts: %s)\n", msg);
  int ctx = pmNewContext(PM_CONTEXT_LOCAL, NULL);
  if (ctx < 0) { printf("bench-peers: pmNewContext(PM_CONTEXT_LOCAL): %s: skipped\n", pmErrStr(ctx)); return 0; }
  const char *gnames[] = {"kernel.all.cpu.idle", "kernel.all.cpu.wait.total", "kernel.all.cpu.user",
                          "kernel.all.cpu.nice", "kernel.all.cpu.sys"};
  const char *pnames[] = {"proc.psinfo.utime", "proc.psinfo.stime", "proc.io.syscr", "proc.io.syscw",
                          "proc.io.read_bytes", "proc.io.write_bytes"};
  pmID gid[5], pid[6];
  int rc = lookup(gnames, 5, gid), prc = lookup(pnames, 6, pid);
  if (rc < 0) { printf("bench-peers: PCP has no %s: %s: skipped\n", gnames[0], pmErrStr(rc)); return 0; }
  /* at least 500 processes */
  static pid_t kids[600];
  int nk = 0;
  while (count_procs() + 0 < 500 && nk < 600) {
    pid_t k = fork();
    if (k == 0) { pause(); _exit(0); }
    if (k < 0) break;
    kids[nk++] = k;
  }
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
  pmDestroyContext(ctx);
  for (int i = 0; i < nk; i++) kill(kids[i], SIGKILL);
  for (int i = 0; i < nk; i++) waitpid(kids[i], NULL, 0);
  if (pmns[0]) unlink(pmns);
  return 0;
}
