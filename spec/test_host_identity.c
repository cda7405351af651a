/* test_host_identity.c — processes' MPE identity on the host (#14.4). Part of spec/test_core.c
 * (#included there: one program, its helpers and statics shared; included in order of definition).
 * */

/* ---- #14.4 the host's MPE identity of Linux processes (core/SOURCES.md, "The host source") ---- */

/* One process of the identity fixture and what the host must make of it. */
typedef struct ident_proc {
  int pid;
  const char *comm;
  int ppid, sid;
  const char *tty;                 /* stat field 7 as the kernel prints it */
  unsigned flags;
  int uid, gid;                    /* gid < 0: no Gid line */
  const char *exe;                 /* the exe link's target; NULL: none */
  const char *cmdline;             /* NUL-separated, "" none */
  size_t cmdlen;
  const char *program, *user;      /* FILE.GROUP.ACCOUNT, USER.GROUP.ACCOUNT as expected */
  int js_type, js_num, ptype;
} ident_proc;

#define KT 0x00208040u   /* flags of a kernel thread (PF_KTHREAD among others) */
static const ident_proc ident_set[] = {
  {1, "systemd", 0, 1, "0", 0x400100, 0, 0, "/usr/lib/systemd/systemd", "", 0, "SYSTEMD.SYSTEMD.LIB", "ROOT.ROOT.ROOT", 0, 0, MI_PT_SYSTEM},
  {2, "kthreadd", 0, 0, "0", KT, 0, 0, NULL, "", 0, "KTHREADD", "ROOT.ROOT.ROOT", 0, 0, MI_PT_SYSTEM},
  {3, "kworker/0:1-ev", 2, 0, "0", KT, 0, 0, NULL, "", 0, "KWORKER/", "ROOT.ROOT.ROOT", 0, 0, MI_PT_SYSTEM},
  {100, "sshd", 1, 100, "0", 0x400140, 0, 0, "/usr/sbin/sshd", "", 0, "SSHD.SBIN.USR", "ROOT.ROOT.ROOT", 2, 100, MI_PT_JSMAIN},
  {200, "bash", 100, 200, "34816", 0x400100, 1000, 100, "/usr/bin/bash", "", 0, "BASH.BIN.USR", "ALICE.USERS.USERS", 1, 200, MI_PT_JSMAIN},
  {201, "bash", 200, 200, "34816", 0x400100, 1000, 100, "/usr/bin/bash", "", 0, "BASH.BIN.USR", "ALICE.USERS.USERS", 1, 200, MI_PT_CI},
  {202, "make", 201, 200, "34816", 0x400100, 1000, 100, "/usr/bin/make", "", 0, "MAKE.BIN.USR", "ALICE.USERS.USERS", 1, 200, MI_PT_USER},
  {203, "cc1", 202, 200, "34816", 0x400100, 1000, 100, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "", 0, "CC1.12.X86_64-L",
   "ALICE.USERS.USERS", 1, 200, MI_PT_SON},
  {204, "as", 203, 200, "34816", 0x400100, 1000, 100, "/usr/bin/as", "", 0, "AS.BIN.USR", "ALICE.USERS.USERS", 1, 200, MI_PT_SON},
  {150, "python3.11", 1, 100, "0", 0x400100, 4242, 4343, "/usr/bin/python3.11", "", 0, "PYTHON3_.BIN.USR", "4242.4343.4343", 2, 100,
   MI_PT_USER},
  {400, "vim", 201, 200, "34816", 0x400100, 1002, 100, "/usr/local/bin/vim (deleted)", "", 0, "VIM.BIN.LOCAL", "VERYLONG.USERS.USERS", 1,
   200, MI_PT_USER},
  {50, "child", 500, 200, "34816", 0x400100, 1000, 100, "/opt/app/bin/child", "", 0, "CHILD.BIN.APP", "ALICE.USERS.USERS", 1, 200, MI_PT_SON},
  {500, "srv", 201, 200, "34816", 0x400100, 1000, 100, "/opt/app/bin/srv", "", 0, "SRV.BIN.APP", "ALICE.USERS.USERS", 1, 200, MI_PT_USER},
  {600, "orphan", 9999, 200, "34816", 0x400100, 1000, 100, "/usr/bin/orphan", "", 0, "ORPHAN.BIN.USR", "ALICE.USERS.USERS", 1, 200,
   MI_PT_USER},
  {3000, "top", 9999, 20000, "-30000", 0x400100, 1000, -1, "/usr/bin/top", "", 0, "TOP.BIN.USR", "ALICE", 1, 3617, MI_PT_USER},
  {700, "Web Content", 201, 200, "34816", 0x400100, 1000, 100, NULL, "", 0, "WEB_CONT", "ALICE.USERS.USERS", 1, 200, MI_PT_USER},
  {800, "cron", 1, 0, "0", 0x400100, 0, 0, "/usr/sbin/cron", "", 0, "CRON.SBIN.USR", "ROOT.ROOT.ROOT", 0, 0, MI_PT_USER},
};
/* born after the attach, with their exe unreadable (EACCES, EPERM) or failing (EIO), a user
 * database failing */
static const ident_proc ident_late[] = {
  {300, "secret", 1, 300, "0", 0x400100, 0, 0, NULL, "/opt/secret/bin/secret\0--flag\0", 30, "SECRET.BIN.SECRET", "ROOT.ROOT.ROOT", 2,
   300, MI_PT_JSMAIN},
  {301, "liar", 100, 100, "0", 0x400100, 0, 0, NULL, "/usr/bin/other\0", 15, "LIAR", "ROOT.ROOT.ROOT", 2, 100, MI_PT_USER},
  {302, "dash", 201, 200, "34816", 0x400100, 1000, 100, NULL, "-dash\0", 6, "DASH", "ALICE.USERS.USERS", 1, 200, MI_PT_CI},
  {303, "sleep", 204, 200, "34816", 0x400100, 1000, 100, "/usr/bin/sleep", "", 0, "SLEEP.BIN.USR", "ALICE.USERS.USERS", 1, 200, MI_PT_SON},
  {304, "ls", 302, 200, "34816", 0x400100, 1001, 100, "/usr/bin/ls", "", 0, "LS.BIN.USR", "BOB.USERS.USERS", 1, 200, MI_PT_USER},
};

/* Writes n bytes to root/rel (directories made on the way). */
static void put_bytes(const char *root, const char *rel, const char *b, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) { *p = 0; mkdir(path, 0755); *p = '/'; }
  FILE *f = fopen(path, "w");
  if (f) { fwrite(b, 1, n, f); fclose(f); }
}

/* Writes process p into the proc tree at root. */
static void ident_put(const char *root, const ident_proc *p) {
  char rel[64], text[512];
  snprintf(rel, sizeof rel, "%d/stat", p->pid);
  snprintf(text, sizeof text, "%d (%s) S %d %d %d %s -1 %u 100 0 3 0 10 5 0 0 20 0 1 0 500 1000 10 0\n", p->pid, p->comm, p->ppid,
           p->sid, p->sid, p->tty, p->flags);
  put_file(root, rel, text);
  snprintf(rel, sizeof rel, "%d/status", p->pid);
  if (p->gid >= 0) snprintf(text, sizeof text, "Name:\t%s\nUid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\n", p->comm, p->uid, p->uid, p->uid,
                            p->uid, p->gid, p->gid, p->gid, p->gid);
  else snprintf(text, sizeof text, "Name:\t%s\nUid:\t%d\t%d\t%d\t%d\n", p->comm, p->uid, p->uid, p->uid, p->uid);
  put_file(root, rel, text);
  if (p->exe) {
    char path[512];
    snprintf(path, sizeof path, "%s/%d/exe", root, p->pid);
    if (symlink(p->exe, path) != 0) printf("note: symlink %s failed\n", path);
  }
  snprintf(rel, sizeof rel, "%d/cmdline", p->pid);
  put_bytes(root, rel, p->cmdline, p->cmdlen);
}

/* A proc tree at base/proc holding ident_set (when procs), with base/etc's passwd, group and
 * shells; returns base. */
static char *ident_tree(char *base, char *root, int procs) {
  strcpy(base, "/tmp/mish-ident-XXXXXX");
  if (!mkdtemp(base)) return base;
  sprintf(root, "%s/proc", base);
  mkdir(root, 0755);
  put_file(root, "stat", "cpu  300 10 80 1500 60 15 15 20 0 0\ncpu0 300 10 80 1500 60 15 15 20 0 0\nbtime 1700000000\n"
                         "procs_running 3\nprocs_blocked 1\n");
  put_file(root, "meminfo", "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n");
  put_file(root, "vmstat", "pgfault 123\npgmajfault 40\n");
  put_file(root, "diskstats", "   8       0 sda 1000 10 64000 500 300 5 24000 900 2 1000 2000\n");
  put_file(root, "interrupts", "           CPU0\n  0:         10   IO-APIC   2-edge      timer\n");
  put_file(base, "etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:100::/home/alice:/bin/bash\n"
                               "bob:x:1001:100::/home/bob:/bin/sh\nverylongname:x:1002:100::/:/bin/sh\nbroken line\n:x:7:7::/:\n");
  put_file(base, "etc/group", "root:x:0:\nusers:x:100:alice,bob\n");
  put_file(base, "etc/shells", "# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/bash\n  /usr/bin/dash  \nnot/absolute\n");
  for (size_t i = 0; procs && i < sizeof ident_set / sizeof ident_set[0]; i++) ident_put(root, &ident_set[i]);
  return base;
}

/* The name image nm (three blank-padded 16-byte fields) as "A.B.C" without blanks and empty parts. */
static void ident_name(const uint64_t nm[6], char out[52]) {
  char img[48];
  memcpy(img, nm, 48);
  size_t k = 0;
  for (int j = 0; j < 3; j++) {
    size_t l = 16;
    while (l && img[16 * j + l - 1] == ' ') l--;
    if (j && l) out[k++] = '.';
    memcpy(out + k, img + 16 * j, l);
    k += l;
  }
  out[k] = 0;
}

/* Checks the identity the host gave process p. */
static void ident_check(mi_system *sys, const ident_proc *p) {
  int slot = mi_host_proc_slot(sys, p->pid);
  char what[160], prog[52], user[52];
  snprintf(what, sizeof what, "#14.4 pid %d (%s) is born", p->pid, p->comm);
  CHECK(slot >= 0, what);
  if (slot < 0) return;
  const mi_proc *q = &sys->seg->procs[slot];
  ident_name(q->program, prog);
  ident_name(q->user, user);
  snprintf(what, sizeof what, "#14.4 pid %d (%s): program %s, want %s", p->pid, p->comm, prog, p->program);
  CHECK(strcmp(prog, p->program) == 0, what);
  snprintf(what, sizeof what, "#14.4 pid %d (%s): user %s, want %s", p->pid, p->comm, user, p->user);
  CHECK(strcmp(user, p->user) == 0, what);
  snprintf(what, sizeof what, "#14.4 pid %d (%s): job/session kind", p->pid, p->comm);
  EQ(q->js >> 14 & 3, p->js_type, what);
  snprintf(what, sizeof what, "#14.4 pid %d (%s): job/session number", p->pid, p->comm);
  EQ(q->js & 0x3FFF, p->js_num, what);
  snprintf(what, sizeof what, "#14.4 pid %d (%s): process type", p->pid, p->comm);
  EQ(q->ptype, p->ptype, what);
}

/* The pids in list (0-terminated) are exactly those seen[] marks. */
static int ident_exactly(const uint8_t *seen, const int *list) {
  int n = 0;
  for (const int *p = list; *p; p++) { if (!seen[*p]) return 0; n++; }
  int marked = 0;
  for (int i = 0; i < 4096; i++) marked += seen[i];
  return marked == n;
}

static void test_i14_host_identity(void) {
  char base[64], root[96];
  ident_tree(base, root, 1);
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  EQ(mi_linux_attach(sys, root, 0), 0, "#14.4 attach to the identity fixture");
  mi_linux_refresh(sys);
  for (size_t i = 0; i < sizeof ident_set / sizeof ident_set[0]; i++) ident_check(sys, &ident_set[i]);
  mi_linux_health hh, h0;
  mi_linux_health_get(sys, &hh);
  EQ(hh.complete, 1, "#14.4 the fixture reads completely (no exe, an odd passwd line: no failure)");
  /* selections by the host's identity: exactly the expected processes, those born later too */
  status_type st;
  int32_t items[] = {20001, 25047, 0}, stats[2], map = 1;
  uint8_t seen[4096];
  mi_entity_desc root_users = i14_desc(MI_SEL_PROCESS, NULL, "ROOT.*");
  mi_proconsel(s, &st, items, stats, &map, &root_users, 1, 0);
  EQ(st.all, 0, "#14.4 MIPROCONSEL user ROOT.* on the host");
  /* the late ones: exe refused (argv[0] or comm instead), failing (the birth waits), passwd failing */
  mi_linux_inject_fail(sys, "300/exe", EACCES);
  mi_linux_inject_fail(sys, "301/exe", EACCES);
  mi_linux_inject_fail(sys, "302/exe", EPERM);
  mi_linux_inject_fail(sys, "303/exe", EIO);
  for (size_t i = 0; i < 4; i++) ident_put(root, &ident_late[i]);
  mi_linux_health_get(sys, &h0);
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &hh);
  CHECK(mi_host_proc_slot(sys, 303) < 0, "#14.4 an exe read failing with EIO: no birth (it waits)");
  EQ(hh.failed_reads, h0.failed_reads + 1, "#14.4 ... the failed read is counted");
  EQ(hh.last_errno, EIO, "#14.4 ... with its errno");
  mi_linux_inject_fail(sys, "303/exe", 0);
  mi_linux_inject_fail(sys, "../etc/passwd", EMFILE);
  ident_put(root, &ident_late[4]);
  mi_linux_refresh(sys);
  CHECK(mi_host_proc_slot(sys, 304) < 0, "#14.4 the user database failing (EMFILE): no birth (it waits)");
  mi_linux_inject_fail(sys, "../etc/passwd", 0);
  mi_linux_refresh(sys);
  for (size_t i = 0; i < sizeof ident_late / sizeof ident_late[0]; i++) ident_check(sys, &ident_late[i]);
  i14_pids(s, seen);
  CHECK(ident_exactly(seen, (const int[]){1, 2, 3, 100, 800, 300, 301, 0}), "#14.4 user ROOT.*: exactly root's processes, later births too");
  struct { const char *prog, *user; int js_type, js_num, ptype, exclude_ci; int want[24]; const char *what; } sels[] = {
    {"*.BIN.USR", NULL, -1, -1, -1, 0, {200, 201, 202, 204, 150, 600, 3000, 303, 304, 0}, "#14.4 program *.BIN.USR"},
    {NULL, NULL, -1, -1, MI_PT_JSMAIN, 0, {100, 200, 300, 0}, "#14.4 type JSMAIN: the session leaders"},
    {NULL, NULL, -1, -1, MI_PT_SYSTEM, 0, {1, 2, 3, 0}, "#14.4 type system: pid 1 and the kernel threads"},
    {NULL, NULL, -1, -1, MI_PT_CI, 0, {201, 302, 0}, "#14.4 type CI: the shells that lead no session"},
    {NULL, NULL, -1, -1, MI_PT_SON, 0, {203, 204, 50, 303, 0}, "#14.4 type son: children of user and son processes"},
    {NULL, NULL, MI_SEL_JS_JOB, 100, -1, 0, {100, 150, 301, 0}, "#14.4 job #J100: the session without a terminal"},
    {NULL, NULL, MI_SEL_JS_SESSION, 3617, -1, 0, {3000, 0}, "#14.4 session 3617: sid 20000 folded into 1-16383"},
    {NULL, NULL, MI_SEL_JS_NONE, -1, -1, 0, {1, 2, 3, 800, 0}, "#14.4 no job/session: system processes and sid 0"},
    {NULL, "ALICE.USERS", -1, -1, -1, 1, {200, 202, 203, 204, 50, 500, 600, 700, 303, 0},
     "#14.4 user ALICE.USERS minus type CI (3000 has no account: ALICE.* would take it)"},
    {"*.*.APP", "alice", -1, -1, -1, 0, {50, 500, 0}, "#14.4 program *.*.APP and user alice (case-insensitive)"},
    {"SECRET.BIN.SECRET", NULL, -1, -1, -1, 0, {300, 0}, "#14.4 a refused exe named from argv[0]"},
  };
  for (size_t i = 0; i < sizeof sels / sizeof sels[0]; i++) {
    mi_procoff(s, &st, NULL, 0);
    mi_entity_desc d[2] = {i14_desc(MI_SEL_PROCESS, sels[i].prog, sels[i].user), i14_desc(-MI_SEL_PROCESS, NULL, NULL)};
    d[0].js_type = sels[i].js_type;
    d[0].js_num = sels[i].js_num;
    d[0].ptype = sels[i].ptype;
    d[1].ptype = MI_PT_CI;
    mi_proconsel(s, &st, items, stats, &map, d, sels[i].exclude_ci ? 2 : 1, 0);
    EQ(st.all, 0, sels[i].what);
    i14_pids(s, seen);
    CHECK(ident_exactly(seen, sels[i].want), sels[i].what);
  }
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(base);
}

/* #14.4 the shells file failing at the first birth that needs it: the birth waits, then the
 * shell is a CI (the file is read once, when it reads). */
static void test_i14_host_shells_fail(void) {
  char base[64], root[96];
  ident_tree(base, root, 0);
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_linux_attach(sys, root, 0);
  EQ(mi_host_proc_count(sys), 0, "#14.4 no process at the attach: the shells file is not read yet");
  mi_linux_inject_fail(sys, "../etc/shells", EIO);
  ident_put(root, &ident_set[5]);   /* 201, a bash that leads no session */
  mi_linux_health h0, hh;
  mi_linux_health_get(sys, &h0);
  mi_linux_refresh(sys);
  mi_linux_health_get(sys, &hh);
  CHECK(mi_host_proc_slot(sys, 201) < 0, "#14.4 the shells file failing (EIO): no birth (it waits)");
  EQ(hh.failed_reads, h0.failed_reads + 1, "#14.4 ... the failed read is counted");
  mi_linux_inject_fail(sys, "../etc/shells", 0);
  mi_linux_refresh(sys);
  int slot = mi_host_proc_slot(sys, 201);
  CHECK(slot >= 0 && sys->seg->procs[slot].ptype == MI_PT_CI, "#14.4 ... read later: the bash is born a CI");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(base);
}

/* #14.4 without an etc beside the proc root: numbers for users and groups, no CI, names still MPE's. */
static void test_i14_host_identity_bare(void) {
  char root[64];
  host_tree(root, 100, 2);
  put_file(root, "100/status", "Name:\tp\nUid:\t1000\t1000\t1000\t1000\nGid:\t50\t50\t50\t50\n");
  put_file(root, "100/stat", "100 (bash) S 1 100 100 1025 -1 0 100 0 3 0 10 5 0 0 20 0 1 0 500 1000 10 0\n");
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  mi_linux_attach(sys, root, 0);
  mi_linux_refresh(sys);
  int slot = mi_host_proc_slot(sys, 100);
  CHECK(slot >= 0, "#14.4 a bare tree's process is born");
  if (slot >= 0) {
    char prog[52], user[52];
    ident_name(sys->seg->procs[slot].program, prog);
    ident_name(sys->seg->procs[slot].user, user);
    CHECK(strcmp(prog, "BASH") == 0, "#14.4 no exe: the comm, upper case");
    CHECK(strcmp(user, "1000.50.50") == 0, "#14.4 no passwd or group: the numbers");
    EQ(sys->seg->procs[slot].ptype, MI_PT_JSMAIN, "#14.4 the session leader is JSMAIN");
  }
  slot = mi_host_proc_slot(sys, 101);
  if (slot >= 0) EQ(sys->seg->procs[slot].ptype, MI_PT_USER, "#14.4 no shells file: no CI (p1's parent is pid 1, not here)");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}
