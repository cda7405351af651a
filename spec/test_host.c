/* test_host.c — the host source on fixture /proc trees: descriptors running out, a full table, read
 * errors, odd trees. Part of spec/test_core.c (#included there: one program, its helpers and
 * statics shared; included in order of definition). */

/* ---- the host source (core/sources/linux.c) on fixture trees ---- */

/* Writes text to root/rel, creating the directories on the way. */
static void put_file(const char *root, const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) { *p = 0; mkdir(path, 0755); *p = '/'; }
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
}

/* Writes a /proc-like tree with two CPUs, one disk and processes pid0 .. pid0+n-1; returns root. */
static char *host_tree(char *root, int pid0, int n) {
  strcpy(root, "/tmp/mish-host-XXXXXX");
  if (!mkdtemp(root)) return root;
  put_file(root, "stat", "cpu  300 10 80 1500 60 15 15 20 0 0\ncpu0 100 10 50 800 20 5 5 10 0 0\n"
                         "cpu1 200 0 30 700 40 10 10 10 0 0\nbtime 1700000000\nprocs_running 3\nprocs_blocked 1\n");
  put_file(root, "meminfo", "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n");
  put_file(root, "vmstat", "pgfault 123\npgmajfault 40\n");
  put_file(root, "diskstats", "   8       0 sda 1000 10 64000 500 300 5 24000 900 2 1000 2000\n");
  put_file(root, "interrupts", "           CPU0       CPU1\n  0:         10          20   IO-APIC   2-edge      timer\n");
  for (int k = 0; k < n; k++) {
    char rel[64], text[256];
    snprintf(rel, sizeof rel, "%d/stat", pid0 + k);
    snprintf(text, sizeof text, "%d (p%d) S 1 1 1 0 -1 0 100 0 3 0 %d 5 0 0 20 0 1 0 500 1000 10 0\n", pid0 + k, k, 10 + k);
    put_file(root, rel, text);
    snprintf(rel, sizeof rel, "%d/status", pid0 + k);
    put_file(root, rel, "Name:\tp\nUid:\t1000\t1000\t1000\t1000\n");
    snprintf(rel, sizeof rel, "%d/io", pid0 + k);
    put_file(root, rel, "syscr: 1\nsyscw: 2\nread_bytes: 0\nwrite_bytes: 0\n");
  }
  return root;
}

/* A fixture tree of processes pid0 .. pid0+n-1 at root (host_tree) and a system attached to it at
 * age 0 (each read refreshes), its session in *s. */
static mi_system *host_fixture_sys(char *root, int pid0, int n, mi_session **s) {
  host_tree(root, pid0, n);
  mi_system *sys = new_sys(s, NULL);
  EQ(mi_linux_attach(sys, root, 0), 0, "attach to the fixture tree");
  return sys;
}

/* nftw callback: removes one entry, depth first. */
static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  remove(path);
  return 0;
}

/* Removes path, whatever it is (a tree, a file, a fifo, a symlink); a missing path is fine. */
static void rm_tree(const char *path) {
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* 1 if pid is a live MI process. */
static int alive_pid(mi_system *sys, int64_t pid) {
  int slot = mi_host_proc_slot(sys, pid);
  return slot >= 0 && sys->seg->procs[slot].state == MI_PS_ALIVE;
}

/* Sorted pids of the live processes into out (up to cap); returns how many. */
static int live_pids(mi_system *sys, int64_t *out, int cap) {
  int n = 0;
  for (int s = 0; s < sys->seg->proc_hi && n < cap; s++)
    if (sys->seg->procs[s].state == MI_PS_ALIVE) out[n++] = sys->seg->procs[s].pid;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && out[j - 1] > out[j]; j--) { int64_t t = out[j]; out[j] = out[j - 1]; out[j - 1] = t; }
  return n;
}

/* Refreshes with the descriptor limit set so that only `spare` more descriptors can be opened. */
static void refresh_starved(mi_system *sys, int spare) {
  struct rlimit old, lim;
  getrlimit(RLIMIT_NOFILE, &old);
  int lowest = dup(0);          /* the lowest free descriptor: RLIMIT_NOFILE caps descriptor numbers */
  close(lowest);
  lim = old;
  lim.rlim_cur = (rlim_t)(lowest + spare);
  setrlimit(RLIMIT_NOFILE, &lim);
  mi_linux_refresh(sys);
  setrlimit(RLIMIT_NOFILE, &old);
}

static void test_host_emfile(void) {
  char root[64];
  mi_session *s;
  mi_system *sys = host_fixture_sys(root, 100, 20, &s);
  EQ(mi_host_proc_count(sys), 0, "#32 the attach reads no process file");
  mi_linux_refresh(sys);
  EQ(mi_host_proc_count(sys), 20, "twenty processes at the start");
  put_file(root, "500/stat", "500 (late) S 1 1 1 0 -1 0 100 0 3 0 1 1 0 0 20 0 1 0 900 1000 10 0\n");
  put_file(root, "500/status", "Uid:\t0\t0\t0\t0\n");
  /* the source keeps the root and the system-wide files open (#17.1), so with one descriptor
   * to spare it reads everything: only none to spare starves it */
  for (int spare = 0; spare <= 0; spare++) {
    refresh_starved(sys, spare);
    EQ(mi_host_proc_count(sys), 20, "#11.9 out of descriptors: no process dies");
    int all = 1;
    for (int k = 0; k < 20; k++) all &= alive_pid(sys, 100 + k);
    CHECK(all, "#11.9 out of descriptors: every process is kept alive");
    CHECK(mi_host_proc_slot(sys, 500) < 0, "#11.9 out of descriptors: no birth is invented");
    mi_linux_health hh;
    mi_linux_health_get(sys, &hh);
    EQ(hh.last_errno, EMFILE, "#11.9 out of descriptors: the failure is reported as EMFILE");
    EQ(hh.complete, 0, "#11.9 out of descriptors: the refresh is reported incomplete");
  }
  mi_linux_refresh(sys);
  EQ(mi_host_proc_count(sys), 21, "descriptors back: the real birth appears");
  mi_linux_health hh;
  mi_linux_health_get(sys, &hh);
  EQ(hh.refreshes, 4, "four refreshes (the attach's, and three reading processes)");
  EQ(hh.incomplete, 1, "one of them incomplete");
  EQ(hh.complete, 1, "the latest read everything");
  CHECK(alive_pid(sys, 500) && alive_pid(sys, 100), "the newborn and the old processes live");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
  /* the real /proc: with no descriptor to spare nothing can be read, so nothing may change */
  sys = new_sys(&s, NULL);
  mi_linux_attach(sys, NULL, 0);
  mi_linux_refresh(sys);
  static int64_t before[MI_MAX_PROCESSES], after[MI_MAX_PROCESSES];
  int nb = live_pids(sys, before, MI_MAX_PROCESSES);
  CHECK(nb > 1, "this machine has processes");
  /* the kept listing still reads (#17.1): a process may really end meanwhile, but none dies
   * whose directory is there and none is born (its stat cannot be opened) */
  refresh_starved(sys, 0);
  int na = live_pids(sys, after, MI_MAX_PROCESSES), kept = 1, born = 0;
  for (int i = 0, j = 0; i < nb; i++) {
    while (j < na && after[j] < before[i]) { born = 1; j++; }
    if (j < na && after[j] == before[i]) { j++; continue; }
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%lld", (long long)before[i]);
    if (access(dir, F_OK) == 0) kept = 0;
  }
  for (int i = 0, j = 0; j < na; j++) {
    while (i < nb && before[i] < after[j]) i++;
    if (i == nb || before[i] != after[j]) born = 1;
  }
  CHECK(kept, "#11.9 /proc out of descriptors: no process dies whose directory is there");
  CHECK(!born, "#11.9 /proc out of descriptors: no process is born");
  mi_session_free(s);
  mi_system_free(sys);
}

/* #32 processes past the table: a process that found the table full is not read again at
 * every refresh (its stat, status and exe were read once); the processes with a slot are. */
static void test_host_table_full(void) {
  char root[64];
  host_tree(root, 100, 5);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.max_processes = 3});
  mi_linux_attach(sys, root, 0);
  status_type st;
  int32_t items[] = {20001, 25047, 0}, stats[4], map = 1, buf[64], n = 0;
  longint_type all;
  mi_longint_set(&all, -1);
  mi_procon(s, &st, items, stats, &map, &all, 0);
  EQ(mi_host_proc_count(sys), 3, "#32 three slots, three processes");
  mi_linux_health hh;
  for (int i = 0; i < 3; i++) {
    mi_procget(s, &st, items, buf, stats, sizeof buf, 1, NULL, &n, NULL, 0);
    mi_linux_health_get(sys, &hh);
    EQ(hh.last_files, 1 + 3, "#32 a refresh reads /proc/stat and the three processes' stat, not the two without a slot");
  }
  /* one with a slot ends: its death is reported; the table is full again only of the living */
  rm_tree(strcat(strcpy((char[128]){0}, root), "/101"));
  mi_procget(s, &st, items, buf, stats, sizeof buf, 1, NULL, &n, NULL, 0);
  CHECK(!alive_pid(sys, 101), "#32 a death past a full table is still seen");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}

static void test_host_read_errors(void) {
  char root[64];
  mi_session *s;
  mi_system *sys = host_fixture_sys(root, 100, 3, &s);
  mi_linux_refresh(sys);
  mi_linux_health hh, h0;
  EQ(mi_linux_health_get(sys, &hh), 0, "a host system has a health");
  EQ(hh.refreshes, 2, "the baseline refresh and the full one are counted");
  EQ(hh.complete, 1, "a good tree reads completely");
  mi_system *plain = mi_system_new(NULL);
  EQ(mi_linux_health_get(plain, &hh), -1, "a system that is not the host has none");
  EQ(mi_linux_time_refreshes(plain, 1), -1, "nor refresh timing");
  mi_linux_health_get(sys, &hh);
  CHECK(hh.cpu_ns == -1 && hh.last_cpu_ns == -1, "refreshes not timed until asked: their CPU reads missing (-1), not 0");
  EQ(mi_linux_time_refreshes(sys, 1), 0, "timing on");
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &hh);
  CHECK(hh.last_cpu_ns >= 0 && hh.cpu_ns >= hh.last_cpu_ns, "a timed refresh's CPU is counted");
  mi_linux_time_refreshes(sys, 0);
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &h0);
  EQ(h0.cpu_ns, hh.cpu_ns, "refreshes while timing is off add nothing");
  mi_linux_time_refreshes(sys, 1);
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &h0);
  CHECK(h0.cpu_ns >= hh.cpu_ns, "timing on again goes on from the total (a counter never goes back)");
  EQ(mi_linux_inject_fail(plain, "x", EIO), -1, "nor a test hook");
  mi_system_free(plain);
  EQ(mi_linux_inject_fail(sys, "x", EIO) + mi_linux_inject_fail(sys, "x", 0), 0, "inject and clear");
  int errs[] = {EACCES, EPERM, ENOMEM, EINTR, EIO, EMFILE, ENFILE, ELOOP, ENOTDIR};
  for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
    mi_linux_health_get(sys, &h0);
    mi_linux_inject_fail(sys, "101/stat", errs[k]);
    mi_linux_refresh(sys);
    CHECK(alive_pid(sys, 101), "#11.9 a stat read failing with EACCES, ENOMEM, EINTR, EMFILE... is not a death");
    mi_linux_health_get(sys, &hh);
    EQ(hh.last_errno, errs[k], "#11.9 the errno of the failed read is reported");
    EQ(hh.failed_reads, h0.failed_reads + 1, "#11.9 one failed read counted");
    EQ(hh.complete, 0, "#11.9 the refresh is incomplete");
    mi_linux_inject_fail(sys, "101/stat", 0);
  }
  /* the listing of the root fails: nobody dies, even one whose directory went */
  mi_linux_inject_fail(sys, "", EMFILE);
  rm_tree(strcat(strcpy((char[128]){0}, root), "/102"));
  mi_linux_refresh(sys);
  CHECK(alive_pid(sys, 102), "#11.9 when the root cannot be listed nothing dies");
  mi_linux_inject_fail(sys, "", 0);
  mi_linux_refresh(sys);
  CHECK(!alive_pid(sys, 102), "listed again: the process that went is dead");
  /* ENOENT or ESRCH on the stat: the process is gone */
  mi_linux_inject_fail(sys, "100/stat", ESRCH);
  mi_linux_refresh(sys);
  CHECK(!alive_pid(sys, 100), "#11.9 ESRCH on the stat is a death");
  mi_linux_inject_fail(sys, "100/stat", 0);
  /* a birth waits for a readable status; io failing keeps the process */
  put_file(root, "200/stat", "200 (n) S 1 1 1 0 -1 0 100 0 3 0 4 6 0 0 20 0 1 0 900 1000 10 0\n");
  put_file(root, "200/status", "Name:\tn\nUid:\t0\t0\t0\t0\n");
  put_file(root, "200/io", "syscr: 1\nsyscw: 2\nread_bytes: 0\nwrite_bytes: 0\n");
  mi_linux_inject_fail(sys, "200/status", EMFILE);
  mi_linux_refresh(sys);
  CHECK(mi_host_proc_slot(sys, 200) < 0, "#11.9 no birth while the status cannot be read");
  mi_linux_inject_fail(sys, "200/status", 0);
  mi_linux_inject_fail(sys, "200/io", EMFILE);
  mi_linux_refresh(sys);
  CHECK(alive_pid(sys, 200), "born once the status reads");
  mi_linux_health_get(sys, &hh);
  EQ(hh.last_errno, EMFILE, "an io read failing with EMFILE is reported");
  mi_linux_inject_fail(sys, "200/io", EACCES);
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &hh);
  EQ(hh.complete, 1, "another user's io (EACCES) is normal, not a failure");
  CHECK(alive_pid(sys, 200), "a process whose io is unreadable lives on");
  mi_linux_inject_fail(sys, "200/io", 0);
  /* the system-wide files failing: counted, nothing else changes */
  mi_linux_inject_fail(sys, "stat", ENFILE);
  int n = mi_host_proc_count(sys);
  mi_linux_refresh(sys);
  EQ(mi_host_proc_count(sys), n, "a failed /proc/stat read changes no process");
  mi_linux_health_get(sys, &hh);
  EQ(hh.last_errno, ENFILE, "and is reported");
  EQ(mi_linux_inject_fail(sys, "a", 1) + mi_linux_inject_fail(sys, "b", 1) + mi_linux_inject_fail(sys, "c", 1), 0, "four at once");
  EQ(mi_linux_inject_fail(sys, "d", 1), -1, "a fifth is refused");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}

/* ---- odd /proc trees: random files, directories, fifos and symlinks where files are expected ---- */

static uint64_t odd_seed;
/* A deterministic pseudo-random number (xorshift64*). */
static uint32_t odd_rnd(void) {
  odd_seed ^= odd_seed >> 12; odd_seed ^= odd_seed << 25; odd_seed ^= odd_seed >> 27;
  return (uint32_t)((odd_seed * 2685821657736338717ull) >> 32);
}

enum { ODD_NONE, ODD_FILE, ODD_DIR, ODD_FIFO, ODD_LINK };
/* Replaces root/rel by a file with text, a directory, a fifo, a symlink to text, or nothing. */
static void odd_place(const char *root, const char *rel, int kind, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  rm_tree(path);
  for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) { *p = 0; mkdir(path, 0755); *p = '/'; }
  if (kind == ODD_FILE) put_file(root, rel, text);
  else if (kind == ODD_DIR) mkdir(path, 0755);
  else if (kind == ODD_FIFO) mkfifo(path, 0644);
  else if (kind == ODD_LINK) { if (symlink(text, path) != 0) printf("symlink %s failed\n", path); }
}

/* Random bytes (NULs, newlines, parentheses, digits and high bytes among them), n long. */
static char *odd_bytes(char *out, size_t n) {
  static const char pick[] = "0123456789 ()\n:-\t9x\xff\xc3";
  for (size_t i = 0; i < n; i++) out[i] = odd_rnd() % 4 ? pick[odd_rnd() % (sizeof pick - 1)] : (char)(odd_rnd() % 256);
  out[n] = 0;   /* an embedded NUL also ends the text as written */
  return out;
}

/* Something odd in place of a file: 1 empty, 2 random bytes, 3 a directory, 4 a fifo, 5 a
 * symlink to /dev/zero, 6 a dangling symlink, 7 huge/negative numbers, 8 nothing. */
static void odd_thing(const char *root, const char *rel, int what) {
  char b[600];
  switch (what) {
  case 1: odd_place(root, rel, ODD_FILE, ""); break;
  case 2: odd_place(root, rel, ODD_FILE, odd_bytes(b, 1 + odd_rnd() % 500)); break;
  case 3: odd_place(root, rel, ODD_DIR, NULL); break;
  case 4: odd_place(root, rel, ODD_FIFO, NULL); break;
  case 5: odd_place(root, rel, ODD_LINK, "/dev/zero"); break;
  case 6: odd_place(root, rel, ODD_LINK, "/nonexistent/x"); break;
  case 7: odd_place(root, rel, ODD_FILE, "cpu  -1 99999999999999999999999 1 1 1 1 1 1\ncpu0 9223372036854775807 1 1 1 1 1 1 1\n"
                                         "btime 99999999999999999999999\n1 (x) S -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 "
                                         "99999999999999999999999 -5 0\nMemTotal: 18446744073709551616 kB\n"); break;
  default: odd_place(root, rel, ODD_NONE, NULL); break;
  }
}

#define ODD_PIDS 8
static void test_host_odd_trees(void) {
  odd_seed = 0x6d697368ull;   /* fixed: the same 50 trees every run */
  static char big[(5u << 20) + 200];
  int bad_pid = 0, bad_birth = 0, bad_death = 0, bad_cpu = 0, bad_neg = 0, bad_time = 0, bad_ncpu = 0;
  for (int t = 0; t < 50; t++) {
    char root[64];
    strcpy(root, "/tmp/mish-odd-XXXXXX");
    if (!mkdtemp(root)) { CHECK(0, "mkdtemp"); return; }
    int ncpu = 1 + (int)(odd_rnd() % 10);
    uint64_t cur[10][8] = {{0}}, first[8][8], last[8][8];
    int have = 0;
    struct { int pid, alive_gen, link_to; uint64_t cpu, base, lastcpu; int gone, born; } pr[ODD_PIDS];
    for (int k = 0; k < ODD_PIDS; k++) {
      pr[k].pid = 300 + k * 7 + (int)(odd_rnd() % 5);
      pr[k].cpu = odd_rnd() % 1000; pr[k].gone = 0; pr[k].born = 0;
      pr[k].link_to = k > 0 && odd_rnd() % 6 == 0 ? (int)(odd_rnd() % (unsigned)k) : -1;
    }
    /* names that are not pids: must never become processes */
    put_file(root, "0310/stat", "310 (lead0) S 1 1 1 0 -1 0 100 0 3 0 1 1 0 0 20 0 1 0 5 1 1 0\n");
    put_file(root, "0310/status", "Uid:\t0\t0\t0\t0\n");
    put_file(root, "311abc/stat", "311 (glued) S 1 1 1 0 -1 0 100 0 3 0 1 1 0 0 20 0 1 0 5 1 1 0\n");
    put_file(root, "99999999999/stat", "1 (huge) S 1 1 1 0 -1 0 100 0 3 0 1 1 0 0 20 0 1 0 5 1 1 0\n");
    odd_place(root, "self", ODD_LINK, "300");
    mi_session *s;
    mi_system *sys = new_sys(&s, NULL);
    status_type st;
    int32_t g[] = {21164, 21177, 21176, 21183, 21184, 21185, 0}, gs[8], map = 1;
    mi_globon(s, &st, g, gs, &map, 0);
    int32_t pi[] = {25047, 0}, ps[2];
    longint_type all; mi_longint_set(&all, -1);
    mi_procon(s, &st, pi, ps, &map, &all, 0);
    for (int round = 0; round < 4; round++) {
      /* /proc/stat: valid (monotonic) most of the time, else something odd */
      int mode = (int)(odd_rnd() % 13);
      if (t == 0 && round == 1) mode = 0;
      int valid = mode < 5;
      char text[4096], line[256];
      uint64_t allv[8] = {0};
      if (valid) {
        for (int c = 0; c < ncpu; c++)
          for (int k = 0; k < 8; k++) { cur[c][k] += odd_rnd() % 50; allv[k] += cur[c][k]; }
        snprintf(text, sizeof text, "cpu  %llu %llu %llu %llu %llu %llu %llu %llu 0 0\n", (unsigned long long)allv[0],
                 (unsigned long long)allv[1], (unsigned long long)allv[2], (unsigned long long)allv[3], (unsigned long long)allv[4],
                 (unsigned long long)allv[5], (unsigned long long)allv[6], (unsigned long long)allv[7]);
        for (int c = 0; c < ncpu; c++) {
          snprintf(line, sizeof line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu 0 0\n", c, (unsigned long long)cur[c][0],
                   (unsigned long long)cur[c][1], (unsigned long long)cur[c][2], (unsigned long long)cur[c][3],
                   (unsigned long long)cur[c][4], (unsigned long long)cur[c][5], (unsigned long long)cur[c][6],
                   (unsigned long long)cur[c][7]);
          strcat(text, line);
        }
        strcat(text, mode == 1 ? "xgarbage (line)\nintr 5 6 7\nbtime 1700000000\nprocs_running 2\n" : "btime 1700000000\nprocs_running 2\n");
        if (t == 0 && round == 1) {   /* longer than the reader takes: cut at a line end, the cpu lines are whole */
          size_t n = strlen(text);
          memcpy(big, text, n);
          memcpy(big + n, "intr ", 5);
          memset(big + n + 5, '7', sizeof big - n - 7);
          big[sizeof big - 2] = '\n';
          big[sizeof big - 1] = 0;
          odd_place(root, "stat", ODD_FILE, big);
        } else odd_place(root, "stat", ODD_FILE, text);
      } else if (mode == 5) {   /* a cut cpu line: the whole reading is refused */
        snprintf(text, sizeof text, "cpu  1 2 3 4 5 6 7 8\ncpu0 %llu 2 3\n", (unsigned long long)cur[0][0] + 5);
        odd_place(root, "stat", ODD_FILE, text);
      } else odd_thing(root, "stat", mode - 5);
      const char *rels[] = {"meminfo", "vmstat", "diskstats", "interrupts"};
      for (int k = 0; k < 4; k++) {
        int w = (int)(odd_rnd() % 12);
        if (w < 9) odd_thing(root, rels[k], w);
        else if (k == 2) odd_place(root, rels[k], ODD_FILE, "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2 3 4 5 6 7 8 9 10 11\n");
        else if (k == 3) odd_place(root, rels[k], ODD_FILE, "  CPU0 CPU1\n 0: 5 6 x\nLOC: 99999999999999999999 1\n");
        else odd_place(root, rels[k], ODD_FILE, "MemTotal: 100 kB\nMemFree: 50 kB\npgmajfault 4\n");
      }
      /* processes: a good stat and status, or something odd; some go for good */
      int birthable[ODD_PIDS], stat_ok[ODD_PIDS];
      for (int k = 0; k < ODD_PIDS; k++) {
        char rel[64];
        birthable[k] = stat_ok[k] = 0;
        if (pr[k].gone) continue;
        if (round > 0 && odd_rnd() % 10 == 0) {
          pr[k].gone = 1;
          snprintf(rel, sizeof rel, "%d", pr[k].pid);
          odd_place(root, rel, ODD_NONE, NULL);
          continue;
        }
        if (pr[k].link_to >= 0) {   /* a pid directory that is a symlink to another's */
          snprintf(rel, sizeof rel, "%d", pr[k].pid);
          char target[16];
          snprintf(target, sizeof target, "%d", pr[pr[k].link_to].pid);
          odd_place(root, rel, ODD_LINK, target);
          int j = pr[k].link_to;
          if (pr[j].gone) continue;
          birthable[k] = birthable[j]; stat_ok[k] = stat_ok[j];
          pr[k].cpu = pr[j].cpu;
          continue;
        }
        int sm = (int)(odd_rnd() % 14), um = (int)(odd_rnd() % 6);
        snprintf(rel, sizeof rel, "%d/stat", pr[k].pid);
        if (sm < 6) {
          pr[k].cpu += odd_rnd() % 100;
          snprintf(text, sizeof text, "%d (%s) S 1 1 1 0 -1 0 100 0 3 0 %llu %llu 0 0 20 0 1 0 %u 1000 10 0\n", pr[k].pid,
                   sm == 1 ? "a) (b) c" : sm == 2 ? "\xff\x01\n" : "p", (unsigned long long)(pr[k].cpu / 2),
                   (unsigned long long)(pr[k].cpu - pr[k].cpu / 2), odd_rnd());
          odd_place(root, rel, ODD_FILE, text);
          stat_ok[k] = 1;
        } else if (sm == 6) {
          snprintf(text, sizeof text, "%d (p)", pr[k].pid);
          odd_place(root, rel, ODD_FILE, text);
        } else odd_thing(root, rel, sm - 6);
        snprintf(rel, sizeof rel, "%d/status", pr[k].pid);
        if (um < 3) odd_place(root, rel, ODD_FILE, "Name:\tp\nUid:\t1000\t1000\t1000\t1000\n");
        else odd_thing(root, rel, um == 3 ? 2 : um == 4 ? 3 : 8);
        birthable[k] = stat_ok[k] && um < 3;
        snprintf(rel, sizeof rel, "%d/io", pr[k].pid);
        int im = (int)(odd_rnd() % 10);
        if (im < 4) odd_place(root, rel, ODD_FILE, "syscr: 5\nsyscw: 6\nread_bytes: 7\nwrite_bytes: 8\n");
        else odd_thing(root, rel, im - 3);
      }
      /* symlinked pids follow their target's files as they are now */
      for (int k = 0; k < ODD_PIDS; k++)
        if (pr[k].link_to >= 0 && !pr[k].gone) {
          int j = pr[k].link_to;
          birthable[k] = !pr[j].gone && birthable[j]; stat_ok[k] = !pr[j].gone && stat_ok[j]; pr[k].cpu = pr[j].cpu;
        }
      int alive_before[ODD_PIDS];
      for (int k = 0; k < ODD_PIDS; k++) alive_before[k] = alive_pid(sys, pr[k].pid);
      if (round == 0) mi_linux_attach(sys, root, 0);
      mi_linux_refresh(sys);
      /* invariants */
      for (int sl = 0; sl < sys->seg->proc_hi; sl++) {
        if (sys->seg->procs[sl].state == MI_PS_FREE) continue;
        int64_t pid = sys->seg->procs[sl].pid;
        int known = 0;
        for (int k = 0; k < ODD_PIDS; k++) known |= pr[k].pid == pid;
        if (!known) { bad_pid++; printf("tree %d round %d: invented pid %lld\n", t, round, (long long)pid); }
        if (mi_host_value(sys, mi_host_counter(25047), sl) < 0) bad_neg++;
      }
      int64_t tick = 8000 * 1000 / sysconf(_SC_CLK_TCK);
      for (int k = 0; k < ODD_PIDS; k++) {
        int now = alive_pid(sys, pr[k].pid);
        char rel[600];
        snprintf(rel, sizeof rel, "%s/%d/stat", root, pr[k].pid);
        struct stat sb;
        if (now && !alive_before[k]) {
          if (!birthable[k]) { bad_birth++; printf("tree %d round %d: pid %d born from odd files\n", t, round, pr[k].pid); }
          pr[k].born = 1;
          pr[k].base = round == 0 ? pr[k].cpu : 0;
          pr[k].lastcpu = pr[k].cpu;
        } else if (now && stat_ok[k]) pr[k].lastcpu = pr[k].cpu;
        if (alive_before[k] && !now && !(stat(rel, &sb) != 0 && errno == ENOENT)) {
          bad_death++; printf("tree %d round %d: pid %d died with its stat there\n", t, round, pr[k].pid);
        }
        if (now && mi_host_value(sys, mi_host_counter(25047), mi_host_proc_slot(sys, pr[k].pid)) != (int64_t)(pr[k].lastcpu - pr[k].base) * tick) {
          bad_time++; printf("tree %d round %d: pid %d has CPU time it never had\n", t, round, pr[k].pid);
        }
      }
      if (valid) {
        for (int c = 0; c < 8; c++)
          for (int k = 0; k < 8; k++) {
            uint64_t v = c < ncpu ? cur[c][k] : 0;   /* processor c is CPU c: never a fold of c + 8, c + 16... */
            last[c][k] = v;
            if (!have) first[c][k] = v;
          }
        have = 1;
      }
      if (have && mi_host_cpus(sys) != (ncpu < 8 ? ncpu : 8)) bad_ncpu++;
      int32_t citems[] = {27006, 27012, 27022, 27023, 27024};
      for (int c = 0; c < 8; c++) {
        int64_t total = 0, want = 0;
        for (int k = 0; k < 5; k++) {
          int64_t v = mi_host_value(sys, mi_host_counter(citems[k]), c);
          if (v < 0) bad_neg++;
          total += v;
        }
        if (have) for (int k = 0; k < 8; k++) want += (int64_t)(last[c][k] - first[c][k]) * tick;
        if (total != want) { bad_cpu++; printf("tree %d round %d: cpu %d has %lld ticks, want %lld\n", t, round, c, (long long)total, (long long)want); }
      }
      for (int k = 0; k < 6; k++) if (mi_host_value(sys, mi_host_counter(g[k + 1]), 0) < 0) bad_neg++;
    }
    mi_session_free(s);
    mi_system_free(sys);
    rm_tree(root);
  }
  EQ(bad_pid, 0, "#11.10 odd trees: no process with an invented pid");
  EQ(bad_birth, 0, "#11.10 odd trees: no birth from an unreadable or malformed stat/status");
  EQ(bad_death, 0, "#11.9 odd trees: a process dies only when its stat is gone");
  EQ(bad_time, 0, "#11.10 odd trees: each process has exactly the CPU time its good readings show");
  EQ(bad_cpu, 0, "#11.10 odd trees: each CPU's time adds up to its good readings");
  EQ(bad_neg, 0, "#11.10 odd trees: no counter is negative");
  EQ(bad_ncpu, 0, "#11.10 odd trees: the processor count follows the good readings");
}
