/* test_store.c — a shared store under attack (#27): nothing overwritten, nothing trusted
 * blindly. Included by test_core.c (its CHECK/EQ counters, regpath, new_sys, attach_t). */
#include <sys/file.h>

/* A private directory for this file's stores, removed at the end. */
static char st_dir[256];

/* Reads a whole small file into buf (NUL-terminated); its length or -1. */
static ssize_t st_slurp(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, cap - 1);
  close(fd);
  if (n >= 0) buf[n] = 0;
  return n;
}

/* Milliseconds on the monotonic clock. */
static double st_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* #27.1: --share never replaces a file that is not a store, nor a link, nor a directory. */
static void test_share_refuses(void) {
  char path[320], target[320], buf[64];
  snprintf(path, sizeof path, "%s/notes.txt", st_dir);
  write_file(path, "my notes\n", 9);
  mi_system_options o = {.share = path, .max_cells = 4096};
  errno = 0;
  mi_system *sys = mi_system_new(&o);
  EQ(sys == NULL && errno == EEXIST, 1, "#27.1 a share path holding a text file is refused (EEXIST)");
  EQ(st_slurp(path, buf, sizeof buf) == 9 && strcmp(buf, "my notes\n") == 0, 1, "#27.1 ... and the file is untouched");
  mi_system_free(sys);
  /* a symbolic link (to a file, or dangling) is not followed nor replaced */
  snprintf(target, sizeof target, "%s/target", st_dir);
  write_file(target, "keep", 4);
  char link_[320];
  snprintf(link_, sizeof link_, "%s/link", st_dir);
  CHECK(symlink(target, link_) == 0, "#27.1 make a symlink");
  o.share = link_;
  errno = 0;
  sys = mi_system_new(&o);
  EQ(sys == NULL && errno == ELOOP, 1, "#27.1 a share path that is a symbolic link is refused (ELOOP)");
  struct stat st;
  EQ(lstat(link_, &st) == 0 && S_ISLNK(st.st_mode), 1, "#27.1 ... the link stays a link");
  EQ(st_slurp(target, buf, sizeof buf) == 4, 1, "#27.1 ... and its target is untouched");
  mi_system_free(sys);
  unlink(link_);
  unlink(target);
  /* a directory */
  char dir[320];
  snprintf(dir, sizeof dir, "%s/adir", st_dir);
  CHECK(mkdir(dir, 0700) == 0, "#27.1 make a directory");
  o.share = dir;
  errno = 0;
  sys = mi_system_new(&o);
  EQ(sys == NULL && errno == EISDIR, 1, "#27.1 a share path that is a directory is refused (EISDIR)");
  mi_system_free(sys);
  rmdir(dir);
  /* no temporary file is left beside any of them */
  char tmp[400];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
  EQ(access(tmp, F_OK) != 0, 1, "#27.1 a refused share leaves no temporary file");
  /* a store the owner freed is removed; a file put at its path meanwhile is not */
  char sp[320];
  snprintf(sp, sizeof sp, "%s/store", st_dir);
  o.share = sp;
  sys = mi_system_new(&o);
  CHECK(sys != NULL, "#27.1 a store is created at a free path");
  char moved[340];
  snprintf(moved, sizeof moved, "%s.moved", sp);
  CHECK(rename(sp, moved) == 0, "#27.1 move the store away");
  write_file(sp, "someone else's", 14);
  mi_system_free(sys);
  EQ(st_slurp(sp, buf, sizeof buf), 14, "#27.1 freeing the owner leaves a file put at its path since");
  unlink(sp);
  unlink(moved);
  unlink(path);
}

/* #27.2: owners started together on one fresh path: exactly one gets it. */
static void test_share_race(void) {
  char sp[320];
  snprintf(sp, sizeof sp, "%s/race", st_dir);
  int rounds_ok = 0;
  enum { KIDS = 6, ROUNDS = 5 };
  for (int round = 0; round < ROUNDS; round++) {
    unlink(sp);
    int go[2], res[2];
    if (pipe(go) != 0 || pipe(res) != 0) return;
    pid_t kids[KIDS];
    for (int i = 0; i < KIDS; i++) {
      kids[i] = fork();
      if (kids[i] == 0) {
        close(go[1]);
        char c;
        if (read(go[0], &c, 1) < 0) _exit(2);
        mi_system *s = mi_system_new(&(mi_system_options){.share = sp, .max_cells = 4096});
        char r = s ? 'Y' : 'N';
        if (write(res[1], &r, 1) != 1) _exit(2);
        if (s) usleep(200000);   /* hold it while the others try */
        mi_system_free(s);
        _exit(0);
      }
    }
    close(go[0]);
    close(go[1]);   /* everyone starts at once */
    int yes = 0;
    for (int i = 0; i < KIDS; i++) {
      char r = 0;
      if (read(res[0], &r, 1) == 1 && r == 'Y') yes++;
    }
    for (int i = 0; i < KIDS; i++) waitpid(kids[i], NULL, 0);
    close(res[0]);
    close(res[1]);
    rounds_ok += yes == 1;
  }
  EQ(rounds_ok, ROUNDS, "#27.2 six owners started together on one fresh path: exactly one starts, every round");
  EQ(access(sp, F_OK) != 0, 1, "#27.2 the winner removed its store at exit (no loser deleted it under it)");
}

/* An owner process for the tests below: creates the store at sp with the tests' registry,
 * says so on `ready`, then obeys one-byte commands on `cmd`: 'S' stops itself (SIGSTOP) inside a
 * write section, 'q' exits. */
static pid_t st_owner(const char *sp, int *cmd_fd) {
  int ready[2], cmd[2];
  if (pipe(ready) != 0 || pipe(cmd) != 0) return -1;
  pid_t k = fork();
  if (k == 0) {
    close(ready[0]);
    close(cmd[1]);
    mi_session *s;
    mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 16});
    char c = sys ? 1 : 0;
    if (write(ready[1], &c, 1) != 1 || !sys) _exit(1);
    mi_host_set_cpus(sys, 2);
    mi_ctr busy = mi_host_counter(21000);
    for (;;) {
      if (read(cmd[0], &c, 1) != 1 || c == 'q') break;
      if (c == 'S') {
        mi_host_begin(sys);
        mi_host_add(sys, busy, 0, 1);
        raise(SIGSTOP);   /* a Ctrl-Z inside the write section */
        mi_host_publish(sys);
      }
    }
    mi_session_free(s);
    mi_system_free(sys);
    _exit(0);
  }
  close(ready[1]);
  close(cmd[0]);
  char c = 0;
  if (read(ready[0], &c, 1) != 1) c = 0;
  close(ready[0]);
  *cmd_fd = cmd[1];
  if (!c) { waitpid(k, NULL, 0); close(cmd[1]); return -1; }
  return k;
}

/* A reader of the store at sp: attached (*att), privileged, with 21000 on; NULL if any step failed. */
static mi_session *st_reader(const char *sp, mi_system **att) {
  int err = -1;
  *att = attach_t(sp, &err);
  mi_session *a = *att ? mi_session_new(*att) : NULL;
  if (!a) return NULL;
  mi_session_set_priv(a, 1);
  status_type st;
  mi_accesson(a, &st, 666);
  int32_t items[] = {21000, 0}, stats[1], map = 0;
  mi_globon(a, &st, items, stats, &map, 0);
  if (st.all != 0) { mi_session_free(a); mi_system_free(*att); return NULL; }
  return a;
}

/* #27.5: an owner stopped inside a write section hangs nobody. */
static void test_stopped_owner(void) {
  char sp[320];
  snprintf(sp, sizeof sp, "%s/stopped", st_dir);
  int cmd;
  pid_t owner = st_owner(sp, &cmd);
  CHECK(owner > 0, "#27.5 an owner process shares a store");
  if (owner <= 0) return;
  mi_system *att;
  mi_session *a = st_reader(sp, &att);
  EQ(a != NULL, 1, "#27.5 a reader attaches and turns 21000 on");
  if (!a) { close(cmd); waitpid(owner, NULL, 0); return; }
  status_type st;
  int32_t items[] = {21000, 0}, stats[1], map = 0, v = -1;
  mi_globget(a, &st, items, &v, stats, 4, 0, 0);
  EQ(st.all, 0, "#27.5 a GET before the stop");
  /* the owner stops inside a write section */
  if (write(cmd, "S", 1) != 1) perror("write");
  int ws = 0;
  waitpid(owner, &ws, WUNTRACED);
  EQ(WIFSTOPPED(ws), 1, "#27.5 the owner is stopped inside its write section");
  double t0 = st_ms();
  mi_globget(a, &st, items, &v, stats, 4, 0, 0);
  double dt = st_ms() - t0;
  EQ(INFO(st), MI_E_STORE_BUSY, "#27.5 a GET while the owner is stopped says 'store busy'");
  CHECK(dt < 5000, "#27.5 ... and returns (bounded wait, not a hang)");
  if (getenv("MISH_TEST_VERBOSE")) printf("stopped owner: GET returned busy in %.1f ms\n", dt);
  int32_t more[] = {21001, 0};
  mi_globon(a, &st, more, stats, &map, 0);
  EQ(INFO(st), MI_E_STORE_BUSY, "#27.5 an ON while the owner is stopped says 'store busy' (bounded)");
  kill(owner, SIGCONT);
  mi_globget(a, &st, items, &v, stats, 4, 0, 0);
  EQ(st.all, 0, "#27.5 once the owner runs again, GETs read");
  EQ(v, 1, "#27.5 ... the value its section published");
  mi_session_free(a);
  mi_system_free(att);
  if (write(cmd, "q", 1) != 1) perror("write");
  close(cmd);
  waitpid(owner, NULL, 0);
}

/* #27.6: a store file truncated under its readers and its owner: an error, no SIGBUS. */
static void test_truncated_store(void) {
  char sp[320];
  snprintf(sp, sizeof sp, "%s/trunc", st_dir);
  int cmd;
  pid_t owner = st_owner(sp, &cmd);
  CHECK(owner > 0, "#27.6 an owner process shares a store");
  if (owner <= 0) return;
  mi_system *att;
  mi_session *a = st_reader(sp, &att);
  if (!a) { close(cmd); waitpid(owner, NULL, 0); return; }
  status_type st;
  int32_t items[] = {21000, 0}, stats[1], map = 0, v;
  mi_globget(a, &st, items, &v, stats, 4, 0, 0);
  EQ(st.all, 0, "#27.6 a GET before the truncation");
  CHECK(truncate(sp, 4096) == 0, "#27.6 truncate the store file under the reader");
  mi_globget(a, &st, items, &v, stats, 4, 0, 0);
  EQ(INFO(st), MI_E_STORE_TRUNCATED, "#27.6 the reader's next GET says truncated (no SIGBUS)");
  mi_globget(a, &st, items, &v, stats, 4, 0, 0);
  EQ(INFO(st), MI_E_STORE_TRUNCATED, "#27.6 ... and keeps saying so");
  mi_session_free(a);
  mi_system_free(att);
  if (write(cmd, "q", 1) != 1) perror("write");
  close(cmd);
  int ws = 0;
  waitpid(owner, &ws, 0);
  EQ(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, 1, "#27.6 the owner of a truncated store ends normally (no SIGBUS)");
  unlink(sp);
  /* the owner's own reads */
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 16});
  CHECK(sys != NULL, "#27.6 an owner in this process");
  if (!sys) return;
  mi_globon(s, &st, items, stats, &map, 0);
  mi_globget(s, &st, items, &v, stats, 4, 0, 0);
  EQ(st.all, 0, "#27.6 the owner's GET before the truncation");
  struct stat fs;
  CHECK(stat(sp, &fs) == 0, "#27.6 the store file");
  /* space was reserved before use: a full disk is an ON's error, never a SIGBUS at a write */
  EQ((int64_t)fs.st_blocks * 512 >= (int64_t)sizeof(mi_seg), 1, "#27.6 the store file's used part has its disk blocks reserved");
  CHECK(truncate(sp, 4096) == 0, "#27.6 truncate the owner's own store file");
  mi_host_add(sys, mi_host_counter(21000), 0, 5);   /* a write into a lost page: rescued, not fatal */
  mi_globget(s, &st, items, &v, stats, 4, 0, 0);
  EQ(INFO(st), MI_E_STORE_TRUNCATED, "#27.6 the owner's GET says truncated (no SIGBUS)");
  mi_session_free(s);
  mi_system_free(sys);
  unlink(sp);
}

/* Copies file from to `to` (mode 0600); 0 or -1. */
static int st_copy(const char *from, const char *to) {
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  char buf[1 << 16];
  ssize_t n;
  int rc = in >= 0 && out >= 0 ? 0 : -1;
  while (!rc && (n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) rc = -1;
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  return rc;
}

/* #27.7: a store file is input: crafted tables, a planted registry path, another user's file. */
static void test_crafted_store(void) {
  char sp[320], fake[320], evil[320];
  snprintf(sp, sizeof sp, "%s/real", st_dir);
  snprintf(fake, sizeof fake, "%s/fake", st_dir);
  snprintf(evil, sizeof evil, "%s/planted-registry", st_dir);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 16});
  CHECK(sys != NULL, "#27.7 a real store to craft from");
  if (!sys) return;
  status_type st;
  int32_t items[] = {21000, 0}, stats[1], map = 0;
  mi_globon(s, &st, items, stats, &map, 0);
  /* the crafted copy claims this (live) process as its owner; the test holds its lock as a
   * hostile owner would */
  struct { const char *what; size_t off; int64_t val; int width; } cases[] = {
    {"a lane's cells far outside the file", offsetof(mi_seg, blk) + offsetof(mi_host_block, lane[0].cells), (int64_t)1 << 40, 8},
    {"a negative stride", offsetof(mi_seg, blk) + offsetof(mi_host_block, lane[1].stride), -5, 4},
    {"a process table high-water past the table", offsetof(mi_seg, proc_hi), MI_MAX_PROCESSES + 7, 4},
    {"an arena top past the arena", offsetof(mi_seg, arena_top), (int64_t)1 << 50, 8},
    {"a free-list count past its array", offsetof(mi_seg, nfree), 100000, 4},
    {"a user-defined counter count past its table", offsetof(mi_seg, udef_n), 9999, 4},
    {"a counter offset past its row", offsetof(mi_seg, blk) + offsetof(mi_host_block, off[5]), 1 << 30, 4},
    {"a pid hash entry past the process table", offsetof(mi_seg, pid_hash[17]), MI_MAX_PROCESSES + 1, 4},
    {"a mapping outside 0-2", offsetof(mi_seg, mapping), 9, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK(st_copy(sp, fake) == 0, "#27.7 copy the store");
    int fd = open(fake, O_RDWR);
    int ok = fd >= 0 && pwrite(fd, &cases[i].val, (size_t)cases[i].width, (off_t)cases[i].off) == cases[i].width;
    if (fd >= 0) flock(fd, LOCK_EX);   /* "the owner" holds it */
    int err = 0;
    mi_system *a = ok ? attach_t(fake, &err) : NULL;
    char what[160];
    snprintf(what, sizeof what, "#27.7 a crafted store is refused at attach: %s", cases[i].what);
    EQ(a == NULL && err == MI_E_STORE_TRUNCATED, 1, what);
    mi_system_free(a);
    if (fd >= 0) close(fd);
  }
  /* a registry path written in the store is never followed */
  CHECK(st_copy(sp, fake) == 0, "#27.7 copy the store");
  int fd = open(fake, O_RDWR);
  char reg[MI_PATH_MAX];
  memset(reg, 0, sizeof reg);
  snprintf(reg, sizeof reg, "%s", evil);
  CHECK(fd >= 0 && pwrite(fd, reg, sizeof reg, offsetof(mi_seg_hdr, registry)) == (ssize_t)sizeof reg, "#27.7 plant a registry path");
  if (fd >= 0) flock(fd, LOCK_EX);
  int err = 0;
  mi_system *a = mi_system_attach(fake, &err);
  EQ(err, 0, "#27.7 the copy with a planted path attaches (its tables are sound)");
  if (a) {
    mi_session *x = mi_session_new(a);
    mi_session_set_priv(x, 1);
    mi_globinstall(x, &st, 4242);
    EQ(st.all, 0, "#27.7 AIFGLOBINSTALL on it works (a memory-only registry)");
    EQ(access(evil, F_OK) != 0, 1, "#27.7 ... and creates no file at the path the store names");
    mi_session_free(x);
    mi_system_free(a);
  }
  /* another user's store: refused unless trusted */
  if (geteuid() == 0 && fd >= 0 && fchown(fd, 65534, 65534) == 0) {
    a = attach_t(fake, &err);
    EQ(a == NULL && err == MI_E_STORE_FOREIGN, 1, "#27.7 a store file owned by another user is refused");
    a = mi_system_attach_with(fake, &(mi_attach_options){.registry = regpath, .trust = 1}, &err);
    EQ(a != NULL && err == 0, 1, "#27.7 ... unless the caller trusts it");
    mi_system_free(a);
  } else {
    SKIP("#27.7 foreign-owner check: needs root to give a file to another user");
  }
  if (fd >= 0) close(fd);
  unlink(fake);
  unlink(evil);
  mi_session_free(s);
  mi_system_free(sys);
}

static void test_store_safety(void) {
  snprintf(st_dir, sizeof st_dir, "%s/mish-test-store-XXXXXX", getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(st_dir)) { CHECK(0, "#27 a private directory for the store tests"); return; }
  test_share_refuses();
  test_share_race();
  test_stopped_owner();
  test_truncated_store();
  test_crafted_store();
  CHECK(rmdir(st_dir) == 0, "#27 the store tests leave their directory empty");
}
