/* test_threads.c — threads and processes: concurrent readers and writers, process churn, the query
 * API and its doors. Part of spec/test_core.c (#included there: one program, its helpers and
 * statics shared; included in order of definition). */

/* ---- #12: one writer, many readers ---- */

/* The writer's counters for the threaded and two-process tests: in every published state
 * the four global counters are equal, the object classes of 21254 add up to 21172, and
 * every process's four counters are equal. */
static const int32_t inv_glob[] = {21000, 21001, 21002, 21003, 21172, 21254, 0};
static const int32_t inv_proc[] = {20001, 25049, 25167, 25168, 25169, 0};
#define INV_PROCS 40

typedef struct inv_writer {
  mi_system *sys;
  int stop;
  long steps;
  int slots[INV_PROCS];
  int64_t next_pid;
} inv_writer;

/* Monotonic seconds. */
static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One published step of the invariant writer: adds, and now and then a process ends and
 * another begins (a layout change). */
static void inv_step(mi_system *sys, long i, int *slots, int64_t *next_pid) {
  static const int32_t gi[] = {21000, 21001, 21002, 21003};
  static const int32_t pi[] = {25049, 25167, 25168, 25169};
  mi_host_begin(sys);
  for (int k = 0; k < 4; k++) mi_host_add(sys, mi_host_counter(gi[k]), 0, 1);
  mi_host_add_objcl(sys, mi_host_counter(21254), 0, (int)(i % 720), 3);
  mi_host_add(sys, mi_host_counter(21172), 0, 3);
  for (int p = 0; p < INV_PROCS; p++)
    for (int k = 0; k < 4; k++) mi_host_add(sys, mi_host_counter(pi[k]), slots[p], (i + p) % 7 + 1);
  if (i % 500 == 0) {
    int p = (int)(i / 500 % INV_PROCS);
    mi_host_proc_exit(sys, slots[p]);
    mi_proc_desc d = {0};
    d.pid = (*next_pid)++; d.program = "INV"; d.user = "U";
    slots[p] = mi_host_proc_create(sys, &d);
  }
  mi_host_publish(sys);
}

/* Starts the invariant writer's processes; returns the next pid. */
static int64_t inv_setup(mi_system *sys, int *slots) {
  for (int p = 0; p < INV_PROCS; p++) {
    mi_proc_desc d = {0};
    d.pid = 5000 + p; d.program = "INV"; d.user = "U";
    slots[p] = mi_host_proc_create(sys, &d);
  }
  return 5000 + INV_PROCS;
}

static void *inv_writer_main(void *arg) {
  inv_writer *w = arg;
  for (long i = 0; !__atomic_load_n(&w->stop, __ATOMIC_RELAXED); i++) { inv_step(w->sys, i, w->slots, &w->next_pid); w->steps++; }
  return NULL;
}

/* Checks one MIGLOBGET and one MIPROCGET of a reader against the invariants; counts GETs and
 * inconsistent ones. Returns 0, or the first unexpected overall status. */
static int inv_read(mi_session *s, long *gets, long *bad, uint8_t *pbuf, int32_t psize) {
  status_type st;
  int32_t stats[8], npids = 0;
  struct { int32_t r[4], cs, pf[33]; } g;
  mi_globget(s, &st, (int32_t *)inv_glob, &g, stats, sizeof g, 1, 0);
  if (st.all) return mi_status_info(st);
  int64_t sum = 0;
  for (int k = 0; k < 33; k++) sum += g.pf[k];
  (*gets)++;
  if (g.r[0] != g.r[1] || g.r[1] != g.r[2] || g.r[2] != g.r[3] || sum != g.cs) (*bad)++;
  mi_procget(s, &st, (int32_t *)inv_proc, pbuf, stats, psize, 1, NULL, &npids, NULL, 0);
  if (st.all && mi_status_info(st) != 20001) {
    if (getenv("MISH_TEST_VERBOSE")) { mi_urec *u = s->u; int n = 0; for (int w = 0; w < MI_PROC_WORDS; w++) n += __builtin_popcountll(u->mon[w]);
      printf("procget %d: slot %d proc_on %d all %d mon bits %d alive %d\n", mi_status_info(st), s->slot, u->proc_on, u->proc_all, n, mi_host_proc_count(s->sys)); }
    return mi_status_info(st);
  }
  (*gets)++;
  for (int p = 0; p < npids; p++) {
    int32_t v[4];
    memcpy(v, pbuf + (size_t)p * 24 + 8, 16);
    if (v[0] != v[1] || v[1] != v[2] || v[2] != v[3]) { (*bad)++; break; }
  }
  return 0;
}

typedef struct inv_reader {
  mi_session *s;
  double until;
  int toggle;          /* also turns an extra global set on and off (layout changes from a reader) */
  long gets, bad;
  int err;
} inv_reader;

static void *inv_reader_main(void *arg) {
  inv_reader *r = arg;
  static __thread uint8_t pbuf[24 * 2700];
  mi_session *extra = r->toggle ? mi_session_new(mi_session_system(r->s)) : NULL;
  if (extra) mi_session_set_priv(extra, 1);
  int32_t more[] = {21010, 21011, 21012, 21013, 21254, 0}, es[6], m = 1;
  for (long i = 0; mono_s() < r->until && !r->err; i++) {
    r->err = inv_read(r->s, &r->gets, &r->bad, pbuf, sizeof pbuf);
    status_type st;
    if (extra && i % 20 == 0) mi_globon(extra, &st, more, es, &m, 666);
    if (extra && i % 20 == 10) mi_globoff(extra, &st, 666);
  }
  mi_session_free(extra);
  return NULL;
}

/* A reader session with the invariant items on. */
static mi_session *inv_session(mi_system *sys) {
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  mi_accesson(s, &st, 666);
  int32_t stats[8], map = 1;
  mi_globon(s, &st, (int32_t *)inv_glob, stats, &map, 0);
  mi_procon(s, &st, (int32_t *)inv_proc, stats, &map, NULL, 0);
  return s;
}

static void test_threads(void) {
  mi_session *s0;
  mi_system *sys = new_sys(&s0, NULL);
  static inv_writer w;
  w.sys = sys;
  w.next_pid = inv_setup(sys, w.slots);
  inv_reader rd[4];
  for (int i = 0; i < 4; i++) {
    memset(&rd[i], 0, sizeof rd[i]);
    rd[i].s = inv_session(sys);
    rd[i].toggle = i == 3;
  }
  pthread_t wt, rt[4];
  pthread_create(&wt, NULL, inv_writer_main, &w);
  double until = mono_s() + 1.5;
  for (int i = 0; i < 4; i++) { rd[i].until = until; pthread_create(&rt[i], NULL, inv_reader_main, &rd[i]); }
  for (int i = 0; i < 4; i++) pthread_join(rt[i], NULL);
  __atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
  pthread_join(wt, NULL);
  long gets = 0, bad = 0;
  for (int i = 0; i < 4; i++) {
    gets += rd[i].gets; bad += rd[i].bad;
    EQ(rd[i].err, 0, "#12.2 a reader thread's GETs succeed while the writer publishes");
    mi_session_free(rd[i].s);
  }
  CHECK(gets > 100 && w.steps > 100, "#12.2 the writer and four readers all ran");
  if (getenv("MISH_TEST_VERBOSE")) printf("threads: %ld GETs, %ld inconsistent, %ld writer steps\n", gets, bad, w.steps);
  EQ(bad, 0, "#12.2 one writer thread, four reader threads: every GET sees one published state");
  mi_system_free(sys);
}

/* What a reader process reports to the test through a pipe. */
typedef struct proc_report { long gets, bad; int err, attach_err; } proc_report;

/* A reader process: attaches to path, checks the invariants for `secs`, reports, exits. */
static void reader_process(const char *path, double secs, int fd) {
  proc_report r = {0, 0, 0, 0};
  mi_system *att = attach_t(path, &r.attach_err);
  if (att) {
    mi_session *s = inv_session(att);
    static uint8_t pbuf[24 * 2700];
    double until = mono_s() + secs;
    /* -32006 (store busy) is the answer while the owner was kept off the CPU 60 ms inside a
     * section: right under a loaded machine's scheduler, not a failed GET; nothing is read then */
    while (mono_s() < until && !r.err)
      if ((r.err = inv_read(s, &r.gets, &r.bad, pbuf, sizeof pbuf)) == MI_E_STORE_BUSY) r.err = 0;
    mi_session_free(s);
    mi_system_free(att);
  }
  if (write(fd, &r, sizeof r) != (ssize_t)sizeof r) _exit(3);
  _exit(0);
}

/* Creates a file holding `data` (n bytes) at path. */
static void write_file(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) { if (write(fd, data, n) != (ssize_t)n) perror("write"); close(fd); }
}

static void test_processes(void) {
  char path[256], bad[300];
  snprintf(path, sizeof path, "/tmp/mish-test-share-%d", (int)getpid());
  unlink(path);
  mi_system_options o = {.max_cells = 1 << 16, .share = path};
  mi_session *s0;
  mi_system *sys = new_sys(&s0, &o);
  CHECK(sys != NULL, "#12.3 a system is created in a shared file");
  if (!sys) return;
  CHECK(access(path, R_OK) == 0, "#12.3 the share file exists");
  EQ(mi_system_share_path(sys) != NULL, 1, "#12.3 the system knows its file");
  mi_system_options o2 = o;
  int e2 = 0;
  CHECK(mi_system_new(&o2) == NULL, "#12.3 a live store's path is not taken over by a second owner");
  (void)e2;
  static inv_writer w;
  memset(&w, 0, sizeof w);
  w.sys = sys;
  w.next_pid = inv_setup(sys, w.slots);
  /* four reader processes attach and check every GET while this process writes */
  int fds[4]; pid_t kids[4];
  for (int i = 0; i < 4; i++) {
    int pp[2];
    if (pipe(pp) != 0) return;
    kids[i] = fork();
    if (kids[i] == 0) { close(pp[0]); reader_process(path, 1.0, pp[1]); }
    close(pp[1]);
    fds[i] = pp[0];
  }
  int running = 4;
  for (long i = 0; running > 0; i++) {
    inv_step(sys, i, w.slots, &w.next_pid);
    if (i % 256 == 0)
      for (int k = 0; k < 4; k++)
        if (kids[k] > 0 && waitpid(kids[k], NULL, WNOHANG) == kids[k]) { kids[k] = 0; running--; }
  }
  long gets = 0, badn = 0;
  for (int i = 0; i < 4; i++) {
    proc_report r = {0, 0, -1, -1};
    if (read(fds[i], &r, sizeof r) != (ssize_t)sizeof r) r.err = -1;
    close(fds[i]);
    EQ(r.attach_err, 0, "#12.3 a reader process attaches with mi_system_attach");
    EQ(r.err, 0, "#12.3 an attached reader's GETs succeed while the owner publishes");
    gets += r.gets; badn += r.bad;
  }
  CHECK(gets > 100, "#12.3 the reader processes read");
  EQ(badn, 0, "#12.3 writer process + four reader processes: every GET sees one published state");
  if (getenv("MISH_TEST_VERBOSE")) printf("processes: %ld GETs, %ld inconsistent\n", gets, badn);

  /* a reader process that dies holding an MI user: the next attach gives its record back */
  mi_ctr crashed = mi_host_counter(21020);
  pid_t k = fork();
  if (k == 0) {
    int e = 0;
    mi_system *a = attach_t(path, &e);
    mi_session *x = a ? mi_session_new(a) : NULL;
    status_type st = {.all = -1};
    int32_t on[] = {21020, 0}, stt[1], m = 1;
    if (x) { mi_session_set_priv(x, 1); mi_globon(x, &st, on, stt, &m, 666); }
    _exit(x && st.all == 0 ? 0 : 1);   /* no mi_session_free: a crash */
  }
  int wst = 0;
  waitpid(k, &wst, 0);
  EQ(WIFEXITED(wst) ? WEXITSTATUS(wst) : -1, 0, "#12.3 a reader process turned a counter on and died");
  EQ(mi_host_active(sys, crashed), 1, "#12.3 its counter is still on after its death");
  int err = -1;
  mi_system *reclaim = attach_t(path, &err);
  EQ(mi_host_active(sys, crashed), 0, "#12.3 the next attach reclaims a dead reader's MI user and its enables");
  mi_system_free(reclaim);
  /* the same process may attach too: it sees the owner's processes, devices and time */
  mi_system *att = attach_t(path, &err);
  EQ(err, 0, "#12.3 attach in the owner's process");
  if (att) {
    EQ(mi_system_attached(att), 1, "#12.3 an attached system says so");
    EQ(mi_host_proc_count(att), INV_PROCS, "#12.3 the attached view sees the owner's processes");
    mi_host_set_device(sys, 7, 2);
    EQ(mi_host_device(att, 7), 2, "#12.3 and its devices");
    EQ(mi_host_now(att), mi_host_now(sys), "#12.3 and its clock (AIFTIME reads the owner's now)");
    EQ(mi_host_proc_create(att, &(mi_proc_desc){.pid = 99999}), -1, "#12.3 an attached system cannot create processes");
    mi_session *a = inv_session(att);
    status_type st;
    int32_t one[] = {21000, 0}, stats[2], v;
    mi_globget(a, &st, one, &v, stats, 4, 1, 0);
    EQ(st.all, 0, "#12.3 MIGLOBGET on an attached system");
    EQ(v, mi_host_value(sys, mi_host_counter(21000), 0), "#12.3 it reads the owner's counter");
    int32_t cfg = 0; void *cp[] = {&cfg}; int32_t ci[] = {3002, 0}, cs[1];
    mi_scget(a, &st, ci, cp, cs, 0);
    EQ(cfg, mi_host_config(sys, 3002), "#12.3 AIFSCGET on an attached system reads the owner's configuration");
    mi_session_free(a);
    mi_system_free(att);
  }
  mi_session_free(s0);
  mi_system_free(sys);
  /* freed by its owner: an attach is refused, a reader still attached learns it at once */
  err = 0;
  CHECK(attach_t(path, &err) == NULL, "#12.3 a store whose owner freed it is refused");
  EQ(err, MI_E_STORE_OPEN, "#27.1 ... for its owner removed the file it made");
  EQ(access(path, F_OK) != 0 && errno == ENOENT, 1, "#27.1 mi_system_free removes the store file it created");

  /* an owner that dies: the attached reader's next AIFs say so */
  int pp[2];
  if (pipe(pp) != 0) return;
  pid_t owner = fork();
  if (owner == 0) {
    mi_session *os;
    mi_system *osys = new_sys(&os, &o);
    char c = osys ? 1 : 0;
    if (write(pp[1], &c, 1) != 1) _exit(3);
    for (;;) pause();
  }
  char c = 0;
  if (read(pp[0], &c, 1) != 1) c = 0;
  close(pp[0]); close(pp[1]);
  CHECK(c == 1, "#12.3 an owner process shares a store");
  att = attach_t(path, &err);
  CHECK(att != NULL, "#12.3 a live owner's store attaches");
  if (att) {
    mi_session *a = inv_session(att);
    status_type st;
    int32_t one[] = {21000, 0}, stats[2], v;
    mi_globget(a, &st, one, &v, stats, 4, 1, 0);
    EQ(st.all, 0, "#12.3 GET while the owner lives");
    kill(owner, SIGKILL);
    waitpid(owner, NULL, 0);
    usleep(300000);
    mi_globget(a, &st, one, &v, stats, 4, 1, 0);
    EQ(INFO(st), MI_E_STORE_OWNER_GONE, "#12.3 once the owner is gone a GET says so (not frozen values)");
    mi_time(a, &st, NULL, NULL, NULL, NULL, NULL, 0);
    EQ(INFO(st), MI_E_STORE_OWNER_GONE, "#12.3 ... and so does every AIF");
    CHECK(strstr(mi_status_message(MI_E_STORE_OWNER_GONE), "owner") != NULL, "#12.3 the status has a message");
    mi_session_free(a);
    mi_system_free(att);
  }
  err = 0;
  CHECK(attach_t(path, &err) == NULL, "#12.3 a stale store (owner dead) is refused");
  EQ(err, MI_E_STORE_OWNER_GONE, "#12.3 ... as owner gone");
  /* a stale file is replaced by a new owner */
  mi_session *s1;
  mi_system *again = new_sys(&s1, &o);
  CHECK(again != NULL, "#12.3 a new owner takes over a stale file");
  /* liveness is the pid and its start time: a live pid that started at another time is not the owner */
  int fd = open(path, O_RDWR);
  uint64_t other = mi_proc_start_time(getpid()) + 1;
  CHECK(fd >= 0 && pwrite(fd, &other, 8, offsetof(mi_seg_hdr, owner_start)) == 8, "#12.3 forge the owner's start time");
  if (fd >= 0) close(fd);
  EQ(attach_t(path, &err) == NULL, 1, "#12.3 a reused pid (same pid, another start time) is not the owner");
  EQ(err, MI_E_STORE_OWNER_GONE, "#12.3 ... so the store is stale");
  mi_system_free(again);
  unlink(path);

  /* foreign, truncated and newer files */
  snprintf(bad, sizeof bad, "%s.bad", path);
  write_file(bad, "hello, world, this is not a store", 33);
  EQ(mi_system_attach(bad, &err) == NULL, 1, "#12.3 a foreign file is refused");
  EQ(err, MI_E_STORE_NOT_MISH, "#12.3 ... as not a mish store");
  mi_seg_hdr h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, MI_SEG_MAGIC, 8);
  write_file(bad, &h, 16);
  EQ(mi_system_attach(bad, &err) == NULL, 1, "#12.3 a file cut inside the header is refused");
  EQ(err, MI_E_STORE_TRUNCATED, "#12.3 ... as truncated");
  h.version = MI_SEG_VERSION + 1; h.order = MI_SEG_ORDER;
  write_file(bad, &h, sizeof h);
  EQ(mi_system_attach(bad, &err) == NULL, 1, "#12.3 a newer format version is refused");
  EQ(err, MI_E_STORE_VERSION, "#12.3 ... as version not supported");
  h.version = MI_SEG_VERSION; h.order = 0x04030201u;
  write_file(bad, &h, sizeof h);
  EQ(mi_system_attach(bad, &err) == NULL, 1, "#12.3 another byte order is refused");
  EQ(err, MI_E_STORE_VERSION, "#12.3 ... as format not supported");
  h.order = MI_SEG_ORDER; h.seg_bytes = sizeof(mi_seg); h.rec_bytes = sizeof(mi_urec);
  h.proc_bytes = sizeof(mi_proc); h.blk_bytes = sizeof(mi_host_block); h.size = 1 << 30;
  h.owner_pid = (int32_t)getpid(); h.owner_start = mi_proc_start_time(getpid()); h.boot_id = mi_boot_id();
  write_file(bad, &h, sizeof h);
  EQ(mi_system_attach(bad, &err) == NULL, 1, "#12.3 a file shorter than its header says is refused");
  EQ(err, MI_E_STORE_TRUNCATED, "#12.3 ... as truncated");
  EQ(mi_system_attach("/nonexistent/mish/store", &err) == NULL, 1, "#12.3 a missing file is refused");
  EQ(err, MI_E_STORE_OPEN, "#12.3 ... as cannot open");
  unlink(bad);
}

/* #12 door 2: a prepared GET follows the caller's own enable set, not only the store layout. */
static void test_query_enable_set(void) {
  mi_session *a, *b;
  mi_system *sys = new_sys(&a, NULL);
  b = mi_session_new(sys);
  mi_session_set_priv(b, 1);
  status_type st;
  mi_accesson(b, &st, 666);
  int32_t both[] = {21000, 21001, 0}, one[] = {21001, 0}, stats[2], buf[2], map = 1;
  mi_globon(b, &st, both, stats, &map, 0);          /* another user holds both counters */
  mi_globon(a, &st, one, stats, &map, 0);
  mi_host_add(sys, mi_host_counter(21000), 0, 9);
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  EQ(stats[0], MI_E_NOT_ENABLED, "#12: an item the caller did not enable reads -20013");
  mi_globoff(a, &st, 0);
  mi_globon(a, &st, both, stats, &map, 0);          /* no counter starts or stops: the layout holds */
  mi_globget(a, &st, both, buf, stats, sizeof buf, 1, 0);
  EQ(stats[0], 0, "#12: after the caller's OFF/ON of counters others hold, its cached plan sees the new enable set");
  EQ(buf[0], 9, "#12: and reads the value");
  EQ(st.all, 0, "#12: overall status ok");
  mi_system_free(sys);
}

/* #12 door 2: the public prepared query gives what the GETs give. */
static void test_query_api(void) {
  mi_session *s;
  mi_system *sys = new_sys(&s, NULL);
  status_type st;
  int32_t on[] = {21000, 21176, 0}, stats[8], map = 1;
  mi_globon(s, &st, on, stats, &map, 0);
  mi_host_add(sys, mi_host_counter(21000), 0, 5);
  int32_t list[] = {21000, 99999, 21176, 25047};
  mi_query *q = mi_query_new(s, MI_DOM_GLOBAL, list, 4, 1);
  CHECK(q != NULL, "#12: mi_query_new");
  EQ(mi_query_record_size(q), 16, "#12: record size");
  const mi_item_info *it;
  EQ(mi_query_item(q, 1, &it, NULL), 99999, "#12: item number kept");
  CHECK(it == NULL, "#12: an unknown item has no catalog entry in the plan");
  int32_t buf[4], ref[4], rs[4], count = -1;
  int rc = mi_query_run(q, buf, sizeof buf, -1, &count, stats, 0);
  int32_t zl[] = {21000, 99999, 21176, 25047, 0};
  mi_globget(s, &st, zl, ref, rs, sizeof ref, 1, 0);
  EQ(rc, INFO(st), "#12: same overall status as MIGLOBGET");
  CHECK(memcmp(buf, ref, sizeof buf) == 0 && memcmp(stats, rs, sizeof rs) == 0, "#12: same buffer and statuses");
  EQ(count, 1, "#12: one global record");
  EQ(mi_query_run(q, buf, 8, -1, NULL, NULL, 0), MI_E_BUFFER_TOO_SMALL, "#12: short buffer");
  EQ(mi_query_run(q, buf, sizeof buf, -1, NULL, NULL, 987654), MI_E_NO_SUCH_USER_ID, "#12: unknown user id");
  mi_globoff(s, &st, 0);
  EQ(mi_query_run(q, buf, sizeof buf, -1, NULL, NULL, 0), MI_E_NOT_ENABLED, "#12: after OFF the query says -20013");
  mi_query_free(q);
  mi_query_free(NULL);
  CHECK(mi_query_new(s, 7, list, 1, 1) == NULL, "#12: bad domain");
  CHECK(mi_query_new(NULL, 0, list, 1, 1) == NULL, "#12: no session");
  CHECK(mi_query_new(s, 0, list, MI_MAX_ITEMS, 1) == NULL, "#12: too many items");
  q = mi_query_new(s, MI_DOM_GLOBAL, list, 1, 9);
  EQ(mi_query_run(q, buf, sizeof buf, -1, NULL, NULL, 0), MI_E_BAD_MAPPING, "#12: mapping outside 0-2");
  mi_query_free(q);
  mi_system_free(sys);
}

/* ---- door 1: sources as ops tables, the program chooses the default (#12) ---- */
typedef struct { int refreshes; int closed; } mine_state;
static int mine_closes;
/* A program's own source: "mine[:N]" configures N processors (default 3) and counts refreshes. */
static int mine_open(mi_system *sys, const char *arg, const mi_source_args *a, char *err, size_t errlen) {
  (void)a;
  int n = arg ? atoi(arg) : 3;
  if (n < 1 || n > 8) { snprintf(err, errlen, "mine: bad cpus '%s'", arg); return -1; }
  mine_state *st = calloc(1, sizeof *st);
  if (!st) return -1;
  mi_host_set_cpus(sys, n);
  return mi_source_attach(sys, mi_source_find("mine"), st);
}
static void mine_refresh(mi_system *sys, void *state) { (void)sys; ((mine_state *)state)->refreshes++; }
static void mine_close(void *state) { mine_closes++; free(state); }
static const mi_source_ops mine_ops = {"mine", "a test source", mine_open, mine_refresh, mine_close};

static void test_doors(void) {
  char err[256];
  CHECK(mi_source_find("sim") && mi_source_find("host") && !mi_source_find("vax"), "#12.1: the built-in sources are found by name");
  CHECK(mi_source_find("sim:batch") == mi_source_find("sim"), "#12.1: a spec's ARG is not part of the name");
  mi_system *sys = mi_system_open("vax:7", NULL, NULL, err, sizeof err);
  CHECK(!sys && strstr(err, "unknown system 'vax' (sim, host") != NULL, "#12.1: an unknown system is refused, naming it and the known ones");
  sys = mi_system_open("sim:nope", NULL, NULL, err, sizeof err);
  CHECK(!sys && strstr(err, "unknown workload 'nope'") != NULL, "#12.1: sim:WORKLOAD names a built-in workload");
  sys = mi_system_open("sim", NULL, &(mi_source_args){.cpus = 9}, err, sizeof err);
  CHECK(!sys && strstr(err, "cpus must be 1-8") != NULL, "#12.1: cpus outside 1-8 are refused");
  sys = mi_system_open("host:/nonexistent/proc", NULL, NULL, err, sizeof err);
  CHECK(!sys && strstr(err, "/nonexistent/proc") != NULL, "#12.1: an unreadable proc root is refused, naming it");
  sys = mi_system_open("sim:batch", NULL, &(mi_source_args){.cpus = 4, .virtual_time = 1}, err, sizeof err);
  CHECK(sys && mi_sim_attached(sys) && strcmp(mi_sim_workload(sys)->name, "batch") == 0 && mi_host_cpus(sys) == 4,
        "#12.1: sim:batch with 4 CPUs opens the batch workload on 4 CPUs");
  CHECK(strcmp(mi_system_source_name(sys), "sim") == 0 && mi_system_source_ops(sys) == mi_source_find("sim"),
        "#12.1: the system knows its source by its ops table");
  CHECK(!mi_linux_attached(sys) && mi_linux_refresh(sys) == -1, "#12.1: a sim is not the host");
  int64_t t0 = mi_host_now(sys);
  mi_sim_advance(sys, 1000);
  CHECK(mi_host_now(sys) - t0 == 1000LL * mi_host_ticks_per_ms(sys), "#12.1: a virtual-time sim moves only when advanced");
  mi_system_free(sys);
  /* a program's own source, registered by name */
  EQ(mi_source_register(&mine_ops), 0, "#12.1: a program registers its source");
  EQ(mi_source_register(&mine_ops), -2, "#12.1: a name is registered once");
  EQ(mi_source_register(&(mi_source_ops){"bad name", "", mine_open, NULL, NULL}), -1, "#12.1: a name with a blank is refused");
  EQ(mi_source_register(&(mi_source_ops){"sim", "", mine_open, NULL, NULL}), -2, "#12.1: a built-in's name is taken");
  int listed = 0;
  for (int i = 0; mi_source_at(i); i++) listed += strcmp(mi_source_at(i)->name, "mine") == 0;
  CHECK(listed == 1 && strcmp(mi_source_at(0)->name, "sim") == 0, "#12.1: the sources list the built-ins first, then the program's");
  sys = mi_system_open("mine:5", NULL, NULL, err, sizeof err);
  CHECK(sys && mi_host_cpus(sys) == 5 && strcmp(mi_system_source_name(sys), "mine") == 0, "#12.1: mi_system_open opens a registered NAME:ARG");
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, 666);
  mi_accesson(s, &st, 666);
  clock_type now_c;
  mi_time(s, &st, NULL, NULL, &now_c, NULL, NULL, 0);
  CHECK(((mine_state *)mi_system_source(sys))->refreshes >= 1, "#12.1: an AIF call runs the registered source's refresh");
  CHECK(!mi_sim_attached(sys) && !mi_linux_attached(sys), "#12.1: a registered source is neither sim nor host");
  mi_sim_advance(sys, 100);            /* used to take the source's state for a model: now ignored */
  mi_sim_set_realtime(sys, 1);
  mi_sim_set_max_catchup(sys, 5);
  EQ(((mine_state *)mi_system_source(sys))->refreshes, 1, "#12.1: the simulator's controls leave another source's state alone");
  mi_system_free(sys);
  EQ(mine_closes, 1, "#12.1: freeing the system closes its source once");
  CHECK(!mi_system_open("mine:0", NULL, NULL, err, sizeof err) && strstr(err, "mine: bad cpus") != NULL,
        "#12.1: a source's open failure gives its reason");
  /* the source-facing reads */
  sys = mi_system_open("sim:idle", NULL, &(mi_source_args){.virtual_time = 1}, NULL, 0);
  int hi = mi_host_proc_hi(sys), alive = 0;
  for (int i = 0; i < hi; i++) alive += mi_host_proc_alive(sys, i);
  EQ(alive, mi_host_proc_count(sys), "#12.2: mi_host_proc_hi/alive count the live processes");
  EQ(mi_host_proc_pid(sys, mi_host_proc_slot(sys, 6)), 6, "#12.2: mi_host_proc_pid reads a slot's pid");
  CHECK(!mi_host_proc_alive(sys, -1) && !mi_host_proc_alive(sys, MI_MAX_PROCESSES) && mi_host_proc_pid(sys, 99999) == 0,
        "#12.2: out-of-range slots are neither alive nor have a pid");
  uint64_t g0 = mi_host_layout_gen(sys);
  s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  mi_globinstall(s, &st, 666);
  mi_accesson(s, &st, 666);
  int32_t items[] = {21176, 0}, ist[1], map = 1;
  mi_globon(s, &st, items, ist, &map, 0);
  CHECK(mi_host_layout_gen(sys) != g0, "#12.2: an ON changes the layout generation a source watches");
  EQ(mi_host_rebase(sys, 0), -1, "#12.2: a system with processes cannot be rebased");
  mi_system_free(sys);
  /* the default: installed by the program, forgotten when freed, configured but not from the env */
  if (!mi_default_exists()) {
    EQ(mi_default_configure("vax", NULL), -2, "#12.3: configuring an unknown default system is refused");
    mi_system *mine = mi_system_open("sim:idle", NULL, &(mi_source_args){.virtual_time = 1}, NULL, 0);
    mi_system *other = mi_system_open("sim:idle", NULL, &(mi_source_args){.virtual_time = 1}, NULL, 0);
    EQ(mi_set_default_system(mine), 0, "#12.3: a program installs its system as the default");
    CHECK(mi_default_system() == mine && mi_session_system(mi_session_current()) == mine,
          "#12.3: the upper-case API measures the installed system");
    EQ(mi_set_default_system(mine), 0, "#12.3: installing the default again is fine");
    EQ(mi_set_default_system(other), -1, "#12.3: another system cannot replace an existing default");
    EQ(mi_default_configure("sim", NULL), -1, "#12.3: configuring comes too late once the default exists");
    mi_system_free(mine);
    CHECK(!mi_default_exists(), "#12.3: freeing the default system forgets it (no dangling default)");
    mi_system_free(other);
  }
}
