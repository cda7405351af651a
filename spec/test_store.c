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


/* #31.2: readers against a writer that publishes back to back. The writer adds the same amounts
 * to 21000 and 21001 in each write section (in turn, 1,024 times), so any GET of one published state
 * reads them equal, and a torn one most likely not. */
typedef struct rh_writer { mi_system *sys; mi_ctr a, b; long sections; int stop; } rh_writer;

/* The writer thread: sections back to back, counted, until told to stop. */
static void *rh_writer_main(void *arg) {
  rh_writer *w = arg;
  for (int32_t d = 1; !__atomic_load_n(&w->stop, __ATOMIC_RELAXED); d = d % 7 + 1) {
    mi_host_begin(w->sys);
    for (int i = 0; i < 1024; i++) {   /* a long section (the pair unequal inside it): readers mostly find one open */
      mi_host_add(w->sys, w->a, 0, d);
      mi_host_add(w->sys, w->b, 0, d);
    }
    mi_host_publish(w->sys);
    __atomic_fetch_add(&w->sections, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

/* What a reader of 21000 and 21001 saw: GETs, unequal pairs, failed GETs, GETs served from the
 * published copy, and (stopped mid-read) whether the interrupted read was still valid on resume. */
typedef struct rh_report { long gets, bad, err, copies; int stale_seq, stale_copy, resumed_ok; } rh_report;

/* GETs of the pair until `copies` of them were served from the published copy (at most 400,000). */
static void rh_read(mi_session *a, rh_report *r, long copies) {
  int32_t items[] = {21000, 21001, 0}, v[2], stats[2];
  status_type st;
  uint64_t c0 = __atomic_load_n(&a->sys->snap_reads, __ATOMIC_RELAXED);
  for (long i = 0; i < 400000 && (long)(__atomic_load_n(&a->sys->snap_reads, __ATOMIC_RELAXED) - c0) < copies; i++) {
    mi_globget(a, &st, items, v, stats, sizeof v, 0, 0);
    r->gets++;
    if (st.all) r->err++;
    else if (v[0] != v[1]) r->bad++;
  }
  r->copies += (long)(__atomic_load_n(&a->sys->snap_reads, __ATOMIC_RELAXED) - c0);
}

/* A reader thread of the owner's process. */
typedef struct rh_thread { mi_session *s; rh_report r; } rh_thread;
static void *rh_thread_main(void *arg) {
  rh_thread *t = arg;
  rh_read(t->s, &t->r, 200);
  return NULL;
}

/* The reader process: attaches, turns the pair on, says so; then 'A' reads (rh_read), 'B' stops
 * itself in the middle of a seqlock read with its hold-off request up, then in the middle of a
 * read of the published copy, and reads again once continued; 'q' reports and exits. */
static void rh_reader(const char *sp, int cmd, int out) {
  rh_report r = {0};
  int err = -1;
  mi_system *att = attach_t(sp, &err);
  mi_session *a = att ? mi_session_new(att) : NULL;
  int32_t items[] = {21000, 21001, 0}, stats[2], map = 0;
  status_type st = {.all = -1};
  if (a) {
    mi_session_set_priv(a, 1);
    mi_accesson(a, &st, 666);
    mi_globon(a, &st, items, stats, &map, 0);
  }
  char c = a && st.all == 0;
  if (write(out, &c, 1) != 1 || !c) _exit(1);
  mi_ctr ca = mi_host_counter(21000), cb = mi_host_counter(21001);
  while (read(cmd, &c, 1) == 1 && c != 'q') {
    if (c == 'A') rh_read(a, &r, 200);
    if (c == 'B') {
      /* a seqlock read: the request posted, the section's publish awaited, half gathered, stopped */
      uint64_t q = 0, req = 0;
      int got = 0;
      for (int i = 0; i < 1000 && !got; i++) got = mi_read_wait(att, &q, &req);
      int64_t x = mi_host_value(att, ca, 0);
      raise(SIGSTOP);
      int64_t y = mi_host_value(att, cb, 0);
      r.stale_seq = got && !mi_read_valid(att, q) && x != y + 1000000;   /* the writer went on: invalid */
      mi_read_hold(att, req);
      /* a read of the published copy, stopped half-way */
      const mi_seg *g = att->seg;
      int32_t oa = MI_LD(g->blk.off[ca.id]), ob = MI_LD(g->blk.off[cb.id]);
      uint32_t k;
      const mi_snap *b = mi_snap_begin(att, &k);   /* (asks the writer for copies) */
      x = oa >= 0 && oa < MI_SNAP_WORDS ? MI_LD(b->cells[oa]) : 0;
      raise(SIGSTOP);
      y = ob >= 0 && ob < MI_SNAP_WORDS ? MI_LD(b->cells[ob]) : 0;
      r.stale_copy = !mi_snap_valid(att, k) && x != y + 1000000;   /* rewritten meanwhile: invalid */
      /* resumed: whole GETs read one published state */
      rh_report again = {0};
      rh_read(a, &again, 50);
      r.resumed_ok = again.gets > 0 && again.bad == 0 && again.err == 0;
    }
  }
  if (write(out, &r, sizeof r) != (ssize_t)sizeof r) _exit(2);
  mi_session_free(a);
  mi_system_free(att);
  _exit(0);
}

/* Waits until the child stops, lets the writer publish 1,000 more sections, continues the child;
 * 1 if the writer went on while the reader was stopped (bounded: a hang fails, not a timing). */
static int rh_hold_stopped(pid_t kid, rh_writer *w) {
  int ws = 0;
  if (waitpid(kid, &ws, WUNTRACED) != kid || !WIFSTOPPED(ws)) return 0;
  long s0 = __atomic_load_n(&w->sections, __ATOMIC_RELAXED);
  double t0 = st_ms();
  while (__atomic_load_n(&w->sections, __ATOMIC_RELAXED) - s0 < 1000 && st_ms() - t0 < 20000) {
    struct timespec nap = {0, 1000000};
    nanosleep(&nap, NULL);
  }
  int went = __atomic_load_n(&w->sections, __ATOMIC_RELAXED) - s0 >= 1000;
  kill(kid, SIGCONT);
  return went;
}

static void test_reader_handoff(void) {
  char sp[320];
  snprintf(sp, sizeof sp, "%s/handoff", st_dir);
  mi_session *s;
  mi_system *sys = new_sys(&s, &(mi_system_options){.share = sp, .max_cells = 1 << 16});
  CHECK(sys != NULL, "#31.2 an owner shares a store");
  if (!sys) return;
  status_type st;
  int32_t items[] = {21000, 21001, 0}, stats[2], map = 0;
  mi_globon(s, &st, items, stats, &map, 0);
  int cmd[2], out[2];
  if (pipe(cmd) != 0 || pipe(out) != 0) { CHECK(0, "#31.2 pipes"); mi_session_free(s); mi_system_free(sys); unlink(sp); return; }
  pid_t kid = fork();
  if (kid == 0) { close(cmd[1]); close(out[0]); rh_reader(sp, cmd[0], out[1]); }
  close(cmd[0]); close(out[1]);
  char c = 0;
  if (read(out[0], &c, 1) != 1) c = 0;
  EQ(c, 1, "#31.2 a reader process attaches and turns the pair on");
  static rh_writer w;
  memset(&w, 0, sizeof w);
  w.sys = sys; w.a = mi_host_counter(21000); w.b = mi_host_counter(21001);
  pthread_t wt, rt;
  rh_thread th = {.s = mi_session_new(sys)};
  mi_session_set_priv(th.s, 1);
  mi_accesson(th.s, &st, 666);
  mi_globon(th.s, &st, items, stats, &map, 0);
  pthread_create(&wt, NULL, rh_writer_main, &w);
  pthread_create(&rt, NULL, rh_thread_main, &th);
  int stopped_ok = 0;
  void (*was)(int) = signal(SIGPIPE, SIG_IGN);   /* a reader that died must fail checks, not kill the tests */
  if (c == 1) {
    if (write(cmd[1], "AB", 2) != 2) perror("write");
    stopped_ok = rh_hold_stopped(kid, &w) + rh_hold_stopped(kid, &w);
    if (write(cmd[1], "q", 1) != 1) perror("write");
  }
  pthread_join(rt, NULL);
  rh_report r = {0};
  if (c == 1 && read(out[0], &r, sizeof r) != (ssize_t)sizeof r) r.err = -1;
  __atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
  pthread_join(wt, NULL);
  waitpid(kid, NULL, 0);
  close(cmd[1]); close(out[0]);
  signal(SIGPIPE, was);
  if (getenv("MISH_TEST_VERBOSE"))
    printf("handoff: process %ld GETs (%ld from the copy), thread %ld GETs (%ld from the copy), %ld sections\n",
           r.gets, r.copies, th.r.gets, th.r.copies, w.sections);
  EQ(th.r.err, 0, "#31.2 a reader thread's GETs succeed against a back-to-back writer");
  EQ(th.r.bad, 0, "#31.2 ... and every one reads the pair equal (one published state)");
  CHECK(th.r.copies >= 200, "#31.2 ... 200 of them served from the published copy (no wait for the writer)");
  EQ(r.err, 0, "#31.2 an attached reader process's GETs succeed against a back-to-back writer");
  EQ(r.bad, 0, "#31.2 ... and every one reads the pair equal (one published state)");
  CHECK(r.copies >= 200, "#31.2 ... 200 of them served from the published copy");
  EQ(stopped_ok, 2, "#31.2 a reader stopped mid-read (its hold-off request up, or in the copy) does not stop the writer");
  EQ(r.stale_seq, 1, "#31.2 the seqlock read interrupted by the stop is seen torn when the reader resumes");
  EQ(r.stale_copy, 1, "#31.2 the read of the copy interrupted by the stop is seen rewritten when the reader resumes");
  EQ(r.resumed_ok, 1, "#31.2 once resumed, the reader's GETs read one published state");
  mi_session_free(th.s);
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
  test_reader_handoff();
  CHECK(rmdir(st_dir) == 0, "#27 the store tests leave their directory empty");
}
