/* test_record.c — recordings (#13): included by test_core.c just before main. Record the
 * deterministic simulator, replay it, and read exactly what a live session read; tears, bit
 * flips and appends after a tear. */
#include "mi_record.h"

/* "replay:PATH" for a scratch path. */
static const char *rec_spec(const char *path) {
  static char b[200];
  snprintf(b, sizeof b, "replay:%s", path);
  return b;
}

/* A scratch path of this process: /tmp/mish_test_<pid>_<name> (tests of other worktrees may run at once). */
static const char *rec_tmp(const char *name) {
  static char buf[8][128];
  static int k;
  char *b = buf[k++ % 8];
  snprintf(b, 128, "/tmp/mish_test_%d_%s", (int)getpid(), name);
  return b;
}

/* Opens a privileged, authorized session on sys (user 666 in the test registry). */
static mi_session *rec_session(mi_system *sys) {
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, 666);
  mi_accesson(s, &st, 666);
  return s;
}

/* The recorded test items of each domain (0-terminated lists). */
static int32_t rec_glob[] = {21176, 21177, 21164, 21023, 21024, 21254, 21091, 0};
static int32_t rec_proc[] = {25047, 25048, 25167, 25202, 0};
static int32_t rec_io[] = {23000, 23001, 23002, 23034, 0};
static int32_t rec_cpu[] = {27006, 27012, 27022, 27023, 27024, 0};

/* Enables the test items for s (all processes, all LDEVs). */
static void rec_on(mi_session *s) {
  status_type st;
  int32_t stats[16], map = 1, ldev = -1;
  mi_globon(s, &st, rec_glob, stats, &map, 0);
  mi_procon(s, &st, rec_proc, stats, &map, NULL, 0);
  mi_ioon(s, &st, rec_io, stats, &map, &ldev, 0);
}

/* One reading of every domain by s, as bytes (with the record counts in front). */
typedef struct rec_read { uint8_t g[256], p[2700 * 64], io[1000 * 32], c[8 * 32]; int32_t np, nio, nc; int rcp; } rec_read;
static void rec_get(mi_session *s, rec_read *r) {
  status_type st;
  int32_t stats[16], all = -1;
  longint_type pid;
  mi_longint_set(&pid, -1);
  memset(r, 0, sizeof *r);
  mi_globget(s, &st, rec_glob, r->g, stats, sizeof r->g, 1, 0);
  int32_t key = 0;
  mi_procget(s, &st, rec_proc, r->p, stats, sizeof r->p, 1, &pid, &r->np, &key, 0);
  r->rcp = INFO(st);
  mi_ioget(s, &st, rec_io, r->io, stats, sizeof r->io, 1, &all, &r->nio, 0);
  mi_prcsrget(s, &st, rec_cpu, r->c, stats, sizeof r->c, 1, &all, &r->nc, 0);
}

/* Records n seconds of a virtual-time sim into path, reading live each second into live[]. */
static void rec_make_on(const char *spec, const char *path, int n, rec_read *live, int key_every) {
  mi_system *sys = mi_system_open(spec, &(mi_system_options){.registry = regpath},
                                  &(mi_source_args){.virtual_time = 1, .cpus = 2}, NULL, 0);
  mi_session *s = rec_session(sys);
  int32_t items[64];
  int k = 0;
  for (int32_t *l[] = {rec_glob, rec_proc, rec_io, rec_cpu}, **q = l; q < l + 4; q++)
    for (int32_t *i = *q; *i; i++) items[k++] = *i;
  char err[200];
  mi_rec_options o = {.fsync = MI_REC_FSYNC_NONE, .key_every = key_every, .index_every = 4, .machine = "test"};
  mi_recorder *rc = mi_recorder_open(sys, path, items, k, &o, err, sizeof err);
  CHECK(rc != NULL, err);
  rec_on(s);
  for (int i = 1; i <= n && rc; i++) {
    mi_sim_advance(sys, 1000);
    mi_recorder_sample(rc);
    if (live) rec_get(s, &live[i]);
  }
  EQ(mi_recorder_close(rc), 0, "#13: the recorder closes cleanly");
  mi_session_free(s);
  mi_system_free(sys);
}

/* The same on the oltp workload. */
static void rec_make(const char *path, int n, rec_read *live, int key_every) { rec_make_on("sim", path, n, live, key_every); }

/* Processes that died in a recording (deaths seen in its entity records). */
static int rec_deaths(const char *path) {
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  int alive[MI_MAX_PROCESSES] = {0}, deaths = 0;
  mi_rec_event ev;
  while (rd && mi_rec_next(rd, &ev) != MI_REV_END)
    for (int i = 0; i < MI_MAX_PROCESSES; i++) {
      int a = mi_rec_process(rd, i)->alive;
      deaths += alive[i] && !a;
      alive[i] = a;
    }
  mi_rec_close(rd);
  return deaths;
}

static void test_record_births_deaths(void) {
  const char *path = rec_tmp("rec4.mir");
  unlink(path);
  enum { N = 40 };
  rec_read *live = calloc(N + 1, sizeof *live), *rep = calloc(1, sizeof *rep);
  /* a system of our own whose processes are born and die as the test says */
  mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  mi_host_set_cpus(w, 2);
  mi_host_set_device(w, 1, 1);
  mi_session *ws = rec_session(w);
  int32_t items[] = {21176, 21177, 25047, 25167, 25202, 23000};
  char err[200];
  mi_recorder *rc = mi_recorder_open(w, path, items, 6, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = 9}, err, sizeof err);
  CHECK(rc != NULL, err);
  rec_on(ws);
  int slots[64], next_pid = 100, nslot = 0;
  mi_ctr pt = mi_host_counter(25047), rd = mi_host_counter(25167), pf = mi_host_counter(25202), gi = mi_host_counter(21177);
  for (int i = 1; i <= N && rc; i++) {
    mi_host_begin(w);
    if (i % 3 == 1 && nslot < 64)
      slots[nslot++] = mi_host_proc_create(w, &(mi_proc_desc){.pid = next_pid++, .program = "PROG", .user = "U", .account = "A",
                                                              .js_type = 1, .js_num = i, .proc_type = MI_PT_USER});
    for (int k = 0; k < nslot; k++)
      if (slots[k] >= 0) { mi_host_add(w, pt, slots[k], 1000 * k + i); mi_host_add(w, rd, slots[k], k); mi_host_add_objcl(w, pf, slots[k], 7 * k, 1); }
    if (i % 5 == 0 && nslot > 2) { mi_host_proc_exit(w, slots[i % nslot]); slots[i % nslot] = -1; }
    mi_host_add(w, gi, 0, 12345);
    mi_host_advance(w, 1000 * 8000);
    mi_host_publish(w);
    mi_recorder_sample(rc);
    rec_get(ws, &live[i]);
  }
  mi_recorder_close(rc);
  mi_session_free(ws);
  mi_system_free(w);
  CHECK(rec_deaths(path) > 0, "#13: the recording holds deaths");
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (sys) {
    mi_session *s = rec_session(sys);
    rec_on(s);
    int same = 0;
    for (int i = 1; i <= N; i++) {
      mi_replay_step(sys, 1000);
      rec_get(s, rep);
      same += rep->np == live[i].np && rep->rcp == live[i].rcp && memcmp(rep->p, live[i].p, sizeof rep->p) == 0 &&
              memcmp(rep->g, live[i].g, sizeof rep->g) == 0;
    }
    EQ(same, N, "#13: with processes born and dying, MIPROCGET on the replay equals the live one (dead-process reports too)");
    mi_session_free(s);
    mi_system_free(sys);
  }
  /* one recorder per file */
  mi_system *a = mi_system_open("sim", &(mi_system_options){.registry = regpath}, &(mi_source_args){.virtual_time = 1}, NULL, 0);
  int32_t one[] = {21176};
  mi_recorder *r1 = mi_recorder_open(a, path, one, 1, NULL, err, sizeof err);
  mi_recorder *r2 = mi_recorder_open(a, path, one, 1, NULL, err, sizeof err);
  CHECK(r1 && !r2 && strstr(err, "another recorder"), "#13: a second recorder on the same file is refused (one writer)");
  EQ(mi_recorder_mark(r1, "a note"), 0, "#13: a gap mark with a note is written");
  mi_recorder_close(r1);
  mi_system_free(a);
  free(live);
  free(rep);
  unlink(path);
}

static void test_record_replay(void) {
  const char *path = rec_tmp("rec.mir");
  unlink(path);
  enum { N = 30 };
  rec_read *live = calloc(N + 1, sizeof *live), *rep = calloc(1, sizeof *rep);
  rec_make(path, N, live, 7);
  char err[200];
  mi_rec_reader *rd = mi_rec_open(path, err, sizeof err);
  CHECK(rd != NULL, err);
  mi_rec_health h;
  EQ(mi_rec_verify(rd, &h), 0, "#13: a recording closed cleanly verifies clean");
  EQ(h.samples, N + 1, "#13: the first sample at the start plus one per second");
  EQ(h.segments, 1, "#13: one segment");
  mi_rec_close(rd);
  /* the replay reads what the live session read, sample for sample */
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (!sys) { free(live); free(rep); return; }
  mi_session *s = rec_session(sys);
  rec_on(s);
  int same = 0, same_p = 0;
  for (int i = 1; i <= N; i++) {
    EQ(mi_replay_step(sys, 1000), 1, "#13: each step of a second shows the next recorded sample");
    rec_get(s, rep);
    same += memcmp(rep->g, live[i].g, sizeof rep->g) == 0 && memcmp(rep->c, live[i].c, sizeof rep->c) == 0 &&
            memcmp(rep->io, live[i].io, sizeof rep->io) == 0 && rep->nio == live[i].nio && rep->nc == live[i].nc;
    same_p += rep->np == live[i].np && rep->rcp == live[i].rcp && memcmp(rep->p, live[i].p, sizeof rep->p) == 0;
    if (i == N / 2 && memcmp(rep->p, live[i].p, sizeof rep->p) != 0) printf("# process records differ at sample %d (np %d vs %d)\n", i, rep->np, live[i].np);
  }
  EQ(same, N, "#13: global, I/O and processor GETs on the replay equal the live ones at every sample");
  EQ(same_p, N, "#13: MIPROCGET on the replay equals the live one at every sample (pseudo-items too)");
  EQ(mi_replay_step(sys, 1000), 0, "#13: the replay ends with the recording");
  mi_session_free(s);
  mi_system_free(sys);
  free(live);
  free(rep);
  unlink(path);
}

/* Copies the first n bytes of src to dst (a cut file). */
static void rec_cut(const char *src, const char *dst, long n, long flip_bit) {
  FILE *f = fopen(src, "rb");
  if (!f) { printf("FAIL cannot read %s\n", src); return; }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)size);
  if (fread(b, 1, (size_t)size, f) != (size_t)size) size = 0;
  fclose(f);
  if (flip_bit >= 0) b[flip_bit / 8] ^= (uint8_t)(1 << (flip_bit % 8));
  FILE *g = fopen(dst, "wb");
  fwrite(b, 1, (size_t)(n < size ? n : size), g);
  fclose(g);
  free(b);
}

/* The record count and sample count of a file read to the end, and whether a tear/damage was seen. */
static void rec_count(const char *path, long *samples, int *torn, int *damaged) {
  *samples = 0; *torn = 0; *damaged = 0;
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  if (!rd) { *samples = -1; return; }
  mi_rec_event ev;
  while (mi_rec_next(rd, &ev) != MI_REV_END) {
    if (ev.type == MI_REV_SAMPLE && !ev.skipped) (*samples)++;
    *torn |= ev.type == MI_REV_TORN;
    *damaged |= ev.type == MI_REV_DAMAGE;
  }
  mi_rec_close(rd);
}

/* Appends one second of a virtual-time sim to the recording at path (items 21176, 21177, one
 * sample): 1 when a recorder opened on it, else 0 with the reason in err. */
static int rec_append_second(const char *path, int fsync, char *err, size_t errlen) {
  mi_system *sys = mi_system_open("sim", &(mi_system_options){.registry = regpath}, &(mi_source_args){.virtual_time = 1}, NULL, 0);
  int32_t items[] = {21176, 21177};
  mi_recorder *rc = mi_recorder_open(sys, path, items, 2, &(mi_rec_options){.fsync = fsync}, err, errlen);
  mi_sim_advance(sys, 1000);
  mi_recorder_sample(rc);
  mi_recorder_close(rc);
  mi_system_free(sys);
  return rc != NULL;
}

#include "recfile/format.h"   /* mir_crc32c */
/* CRC-32C bit by bit (reflected Castagnoli polynomial): the reference mir_crc32c must equal. */
static uint32_t crc32c_bits(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  while (n--) { c ^= *p++; for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1; }
  return ~c;
}

static void test_record_tears(void) {
  {   /* the frames' CRC (the CPU's instruction where it has one, else tables) against the bit-by-bit reference */
    CHECK(mir_crc32c(0, "123456789", 9) == 0xE3069283u, "#13: CRC-32C of '123456789' is the standard check value");
    static uint8_t b[300];
    for (int i = 0; i < 300; i++) b[i] = (uint8_t)(i * 131 + 7);
    int bad = 0;
    for (size_t at = 0; at < 8; at++)
      for (size_t n = 0; n + at <= 290; n += 1 + n / 16) {
        bad += mir_crc32c(0, b + at, n) != crc32c_bits(b + at, n);
        bad += mir_crc32c(mir_crc32c(0, b + at, n / 3), b + at + n / 3, n - n / 3) != crc32c_bits(b + at, n);   /* continued */
      }
    EQ(bad, 0, "#13: mir_crc32c equals the reference at every length and alignment tried, whole or continued");
  }
  const char *path = rec_tmp("rec2.mir"), *cut = rec_tmp("rec2.cut");
  unlink(path);
  rec_make(path, 6, NULL, 3);
  struct stat sb;
  stat(path, &sb);
  long size = (long)sb.st_size;
  /* the end of every whole record, and how many samples end by then */
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  long ends[256], samples_by[256];
  int nrec = 0;
  long ns = 0;
  mi_rec_event ev;
  int peek_bad = 0, peeks = 0;
  for (;;) {   /* mi_rec_peek, twice (the second from its memo), says what each mi_rec_next reads */
    int64_t t1 = -1, t2 = -2;
    int p1 = mi_rec_peek(rd, &t1), p2 = mi_rec_peek(rd, &t2);
    if (!rd || mi_rec_next(rd, &ev) == MI_REV_END || nrec >= 256) { peek_bad += p1 != MI_REV_END || p2 != MI_REV_END; break; }
    peek_bad += p1 != ev.type || p2 != ev.type || t1 != ev.time || t2 != ev.time;
    peeks++;
    ns += ev.type == MI_REV_SAMPLE;
    ends[nrec] = (long)(ev.offset + ev.bytes);
    samples_by[nrec++] = ns;
  }
  CHECK(peeks > 6 && peek_bad == 0, "#13: mi_rec_peek says the type and time of every record mi_rec_next then reads, twice alike");
  mi_rec_close(rd);
  /* every frame's end (index records are frames too, not events) */
  long fends[512];
  int nf = 0;
  {
    FILE *f = fopen(path, "rb");
    uint8_t hd[8];
    long off = 0;
    while (nf < 512 && fseek(f, off, SEEK_SET) == 0 && fread(hd, 1, 8, f) == 8) {
      long len = hd[4] | hd[5] << 8 | hd[6] << 16 | (long)hd[7] << 24;
      off += len;
      fends[nf++] = off;
    }
    fclose(f);
  }
  int bad_cut = 0, bad_tear = 0, opened = 0;
  for (long n = 0; n <= size; n++) {
    rec_cut(path, cut, n, -1);
    long got;
    int torn, damaged;
    rec_count(cut, &got, &torn, &damaged);
    long want = 0;
    int at_end = n == 0;
    for (int i = 0; i < nrec; i++) if (ends[i] <= n) want = samples_by[i];
    for (int i = 0; i < nf; i++) at_end |= fends[i] == n;
    if (got < 0) { continue; }   /* cut inside the header: not a recording (said, not crashed) */
    opened++;
    if (got != want || damaged) bad_cut++;
    if (torn != !at_end) bad_tear++;
  }
  EQ(bad_cut, 0, "#13: a recording cut at every byte offset replays every complete sample, no more");
  EQ(bad_tear, 0, "#13: a cut recording reports a torn tail exactly when it ends inside a record");
  EQ(opened, size - ends[0] + 1, "#13: every cut past the header record opens (inside it: refused with a reason)");
  /* single bit flips anywhere: detected and skipped, never a wrong value */
  int undetected = 0, crashed = 0;
  long full;
  int t0, d0;
  rec_count(path, &full, &t0, &d0);
  for (long bit = 0; bit < size * 8; bit += 13) {
    rec_cut(path, cut, size, bit);
    long got;
    int torn, damaged;
    rec_count(cut, &got, &torn, &damaged);
    if (got < 0) continue;   /* the header itself: refused with a reason */
    if (!torn && !damaged) undetected++;
    if (got > full) crashed++;
  }
  EQ(undetected, 0, "#13: every single bit flip is detected (CRC) and reported");
  EQ(crashed, 0, "#13: a flipped file never yields more samples than the whole one");
  /* appending after a tear: the tail is cut, a mark says so, and the new segment reads */
  rec_cut(path, cut, size - 5, -1);
  char err[200];
  CHECK(rec_append_second(cut, MI_REC_FSYNC_EVERY, err, sizeof err), err);
  rd = mi_rec_open(cut, NULL, 0);
  mi_rec_health h;
  int v = mi_rec_verify(rd, &h);
  EQ(v, 0, "#13: after an append to a torn file the file is whole again");
  EQ(h.segments, 2, "#13: the append is a second segment");
  int torn_mark = 0;
  while (rd && mi_rec_next(rd, &ev) != MI_REV_END) torn_mark |= ev.type == MI_REV_MARK && ev.mark == MI_MARK_TORN;
  EQ(torn_mark, 1, "#13: the append wrote a mark saying it cut a torn tail");
  mi_rec_close(rd);
  /* appending to a whole file (it ends with the index its recorder wrote at close): the record
   * sequence goes on after that index, so the file verifies clean */
  unlink(cut);
  rec_make(cut, 3, NULL, 60);
  CHECK(rec_append_second(cut, MI_REC_FSYNC_NONE, err, sizeof err), err);
  rd = mi_rec_open(cut, NULL, 0);
  v = rd ? mi_rec_verify(rd, &h) : -1;
  CHECK(v == 0 && h.seq_gaps == 0 && h.segments == 2, "#13: an append to a whole recording leaves no gap in the record sequence (clean)");
  if (v != 0) printf("# append: verify %d, gaps %lld, segments %lld\n", v, (long long)h.seq_gaps, (long long)h.segments);
  mi_rec_close(rd);
  unlink(cut);
  unlink(path);
}

static void test_record_seek(void) {
  const char *path = rec_tmp("rec3.mir");
  unlink(path);
  rec_make(path, 40, NULL, 5);
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  const mi_rec_info *in = mi_rec_info_get(rd);
  int64_t mid = in->first_time + (in->last_time - in->first_time) / 2;
  EQ(mi_rec_seek(rd, mid), 0, "#13: seek finds a key");
  mi_rec_event ev;
  int64_t t = -1;
  while (mi_rec_next(rd, &ev) != MI_REV_END) if (ev.type == MI_REV_SAMPLE) { t = ev.time; break; }
  CHECK(t <= mid && t > mid - 6 * 1000 * in->tpm, "#13: seek lands on the latest key at or before the time");
  CHECK(ev.key == 1, "#13: the first sample after a seek is a key");
  int64_t x;
  EQ(mi_rec_parse_time("+10m", 0, 1, &x), 0, "offset parses");
  EQ(x, 600000, "+10m is 600,000 ms");
  EQ(mi_rec_parse_time("1970-01-01T00:00:01Z", 0, 2, &x), 0, "ISO 8601 parses");
  EQ(x, 2000, "one second at 2 ticks per ms");
  EQ(mi_rec_parse_time("yesterday", 0, 1, &x), -1, "nonsense is refused");
  mi_rec_close(rd);
  unlink(path);
}

/* ---- user-defined counters recorded and replayed (#14.2) ---- */
/* The user-defined counters of the udef test: installed before the recording (0-6) and while it
 * records (7, 8: before sample UD_LATE). */
enum { UD_N = 24, UD_LATE = 10, UD_DIE = 14 };
#include "record_fixture.h"
/* One reading of the udef test: global and process records of the counters present, with counts. */
typedef struct ud_read { uint8_t g[256], p[64 * 32], lg[16], lp[64 * 16]; int32_t np, nlp, sg, sp, slg, slp; } ud_read;
static int32_t ud_glob[] = {21177, 29000, 29002, 29003, 29004, 29005, 29006, 0};
static int32_t ud_proc[] = {25047, 29001, 0};
static int32_t ud_lglob[] = {29007, 0}, ud_lproc[] = {29008, 0};

/* Enables the early (late = 0) or late counters for s. */
static void ud_on(mi_session *s, int late) {
  status_type st;
  int32_t stats[16], map = 1;
  mi_globon(s, &st, late ? ud_lglob : ud_glob, stats, &map, 0);
  mi_procon(s, &st, late ? ud_lproc : ud_proc, stats, &map, NULL, 0);
}
/* Reads the early counters with s, and the late ones with s2 (NULL: not yet). */
static void ud_get(mi_session *s, mi_session *s2, ud_read *r) {
  status_type st;
  int32_t stats[16], key = 0;
  longint_type pid;
  mi_longint_set(&pid, -1);
  memset(r, 0, sizeof *r);
  mi_globget(s, &st, ud_glob, r->g, stats, sizeof r->g, 1, 0);
  r->sg = INFO(st);
  mi_procget(s, &st, ud_proc, r->p, stats, sizeof r->p, 1, &pid, &r->np, &key, 0);
  r->sp = INFO(st);
  if (!s2) return;
  key = 0;
  mi_globget(s2, &st, ud_lglob, r->lg, stats, sizeof r->lg, 1, 0);
  r->slg = INFO(st);
  mi_procget(s2, &st, ud_lproc, r->lp, stats, sizeof r->lp, 1, &pid, &r->nlp, &key, 0);
  r->slp = INFO(st);
}

static void test_record_udef(void) {
  const char *path = rec_tmp("recud.mir");
  unlink(path);
  ud_read *live = calloc(UD_N + 1, sizeof *live), *rep = calloc(1, sizeof *rep);
  mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  mi_host_set_cpus(w, 2);
  mi_udef u[9];
  int slots[8], ns = 0;
  for (int k = 0; k < 7; k++) EQ(mi_udef_install(w, &ud_desc[k], &u[k]), 0, "#14.2: the udef test's counters install");
  for (int p = 0; p < 3; p++)
    slots[ns++] = mi_host_proc_create(w, &(mi_proc_desc){.pid = 500 + p, .program = "SHOP", .user = "MGR", .account = "SHOP",
                                                          .js_type = 1, .js_num = 20 + p, .proc_type = MI_PT_USER});
  mi_session *ws = rec_session(w), *ws2 = NULL;
  ud_on(ws, 0);
  char err[200];
  /* a user-defined number the system does not have is refused, naming it */
  int32_t bad[] = {21177, 29042};
  mi_recorder *no = mi_recorder_open(w, path, bad, 2, NULL, err, sizeof err);
  CHECK(!no && strstr(err, "29042") && strstr(err, "user-defined"), "#14.2: recording a user-defined number the system lacks is refused, naming it");
  unlink(path);
  int32_t items[] = {21177, 25047, MI_REC_USERDEF_ALL};
  mi_recorder *rc = mi_recorder_open(w, path, items, 3, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = 6, .index_every = 2}, err, sizeof err);
  CHECK(rc != NULL, err);
  for (int i = 1; i <= UD_N && rc; i++) {
    mi_host_begin(w);
    if (i == UD_LATE) {   /* two counters installed while it records, a process born */
      mi_host_publish(w);
      EQ(mi_udef_install(w, &ud_desc[7], &u[7]), 0, "#14.2: a counter installs while recording");
      EQ(mi_udef_install(w, &ud_desc[8], &u[8]), 0, "#14.2: a per-process counter installs while recording");
      ws2 = rec_session(w);
      ud_on(ws2, 1);
      mi_host_begin(w);
      slots[ns++] = mi_host_proc_create(w, &(mi_proc_desc){.pid = 600, .program = "LATE", .user = "MGR", .account = "SHOP",
                                                            .js_type = 1, .js_num = 30, .proc_type = MI_PT_USER});
    }
    mi_udef_add(w, u[0], 0, 3 * i + 1);
    for (int p = 0; p < ns; p++) if (slots[p] >= 0) {
      mi_udef_add(w, u[1], slots[p], p + i);
      mi_host_add(w, mi_host_counter(25047), slots[p], 100 * p + i);
      if (i >= UD_LATE) mi_udef_set(w, u[8], slots[p], (i + p) % 3);
    }
    mi_udef_add(w, u[2], 0, (int64_t)1 << 40 | i);
    mi_udef_set(w, u[3], 0, i % 4 != 0);            /* busy three seconds of four */
    mi_udef_set(w, u[4], 0, i % 7);                 /* a queue that grows and empties */
    mi_udef_set(w, u[5], 0, (i * 5) % 3);
    mi_udef_add_at(w, u[6], 0, i % 4, i);
    if (i >= UD_LATE) mi_udef_add(w, u[7], 0, 2 * i);
    mi_host_add(w, mi_host_counter(21177), 0, 1000 + i);
    mi_host_advance(w, 400 * 8000);
    if (i == UD_DIE) { mi_host_proc_exit(w, slots[2]); slots[2] = -1; }   /* dies 0.6 s before the sample, busy (level 1) */
    mi_host_advance(w, 600 * 8000);
    mi_host_publish(w);
    mi_recorder_sample(rc);
    ud_get(ws, ws2, &live[i]);
  }
  mi_recorder_close(rc);
  mi_session_free(ws);
  mi_session_free(ws2);
  mi_system_free(w);
  /* the file: version 2, the table in its headers, a continued segment where counters came */
  mi_rec_reader *rd = mi_rec_open(path, err, sizeof err);
  CHECK(rd != NULL, err);
  int cont = 0, late_seen = 0, names_ok = 0;
  mi_rec_event ev;
  while (rd && mi_rec_next(rd, &ev) != MI_REV_END)
    if (ev.type == MI_REV_SEGMENT) {
      const mi_rec_info *in = mi_rec_info_get(rd);
      const mi_rec_udef *tab;
      int n = mi_rec_udefs(rd, &tab);
      cont += in->continued;
      if (in->continued) late_seen = n == 9 && strcmp(tab[8].name, "late_busy") == 0 && tab[8].item.domain == MI_DOM_PROCESS;
      else names_ok = in->version == 2 && n == 7 && tab[3].kind == MI_UDEF_BUSY && strcmp(tab[0].help, "orders the shop took") == 0 &&
                      strcmp(tab[0].unit, "orders") == 0 && tab[6].elements == 4 && tab[6].item.item == 29006;
    }
  EQ(names_ok, 1, "#14.2: the header holds the user-defined counter table (number, name, kind, unit, help, elements)");
  EQ(cont, 1, "#14.2: counters installed while recording: one continued header");
  EQ(late_seen, 1, "#14.2: the continued header's table holds the counters installed while recording");
  mi_rec_health hh;
  mi_rec_verify(rd, &hh);
  CHECK(hh.segments == 1 && hh.continued == 1, "#14: verify counts the continued header as the segment grown, not as a second segment");
  mi_rec_close(rd);
  /* the replay: the counters are there as recorded, every GET equals the live one at every sample */
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (sys) {
    const mi_udef_info *ui = mi_udef_find(sys, "work_queue");
    CHECK(ui && ui->item.item == 29004 && ui->kind == MI_UDEF_QUEUE && strcmp(ui->help, "work list length, time-weighted") == 0,
          "#14.2: a replay installs the recorded counters (same number, kind, help)");
    CHECK(mi_sys_item(sys, 29001) && mi_sys_item(sys, 29001)->domain == MI_DOM_PROCESS, "#14.2: a per-process counter replays per process");
    mi_session *s = rec_session(sys), *s2 = NULL;
    ud_on(s, 0);
    int same = 0, same_late = 0, absent_before = 0;
    for (int i = 1; i <= UD_N; i++) {
      mi_replay_step(sys, 1000);
      if (i < UD_LATE) absent_before += mi_udef_find(sys, "late_events") == NULL;
      if (i >= UD_LATE && !s2) { s2 = rec_session(sys); ud_on(s2, 1); }
      ud_get(s, s2, rep);
      int g = memcmp(rep->g, live[i].g, sizeof rep->g) == 0 && rep->sg == live[i].sg;
      int p = memcmp(rep->p, live[i].p, sizeof rep->p) == 0 && rep->np == live[i].np && rep->sp == live[i].sp;
      same += g && p;
      if (!(g && p)) printf("# udef replay differs at sample %d (global %d, process %d: %d vs %d records)\n", i, g, p, rep->np, live[i].np);
      if (i >= UD_LATE) {
        int l = memcmp(rep->lg, live[i].lg, sizeof rep->lg) == 0 && memcmp(rep->lp, live[i].lp, sizeof rep->lp) == 0 &&
                rep->nlp == live[i].nlp && rep->slg == live[i].slg && rep->slp == live[i].slp;
        same_late += l;
        if (!l) printf("# late udef replay differs at sample %d (%d vs %d records)\n", i, rep->nlp, live[i].nlp);
      }
    }
    EQ(same, UD_N, "#14.2: global and per-process accum, faccum, busy, queue, qbusy, array: the replay's GETs equal the live ones at every sample");
    EQ(absent_before, UD_LATE - 1, "#14.2: a counter installed while recording is absent on the replay before its sample");
    EQ(same_late, UD_N - UD_LATE + 1, "#14.2: counters installed while recording replay from their sample on (a busy process that died too)");
    mi_session_free(s);
    mi_session_free(s2);
    mi_system_free(sys);
  }
  free(live);
  free(rep);
  unlink(path);
}

/* ---- a version-1 recording still replays (#14.2: the format's compatibility promise) ---- */
/* The deterministic system spec/record_v1.mir was recorded from (by the recorder of format version
 * 1, before user-defined counters): 2 CPUs, LDEV 1 a disk, three processes (the third dies at step
 * 4); step i adds known amounts and one second. The fixture: items v1_items, key_every 3,
 * index_every 2, six steps, each followed by a sample. */
static const int32_t v1_items[] = {21176, 21177, 25047, 25202, 23000, 27006};
static mi_system *v1_system(int *slots) {
  mi_system *w = mi_system_new(&(mi_system_options){.boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  mi_host_set_cpus(w, 2);
  mi_host_set_device(w, 1, 1);
  for (int p = 0; p < 3; p++)
    slots[p] = mi_host_proc_create(w, &(mi_proc_desc){.pid = 300 + p, .program = "V1PROG", .user = "MGR", .account = "SYS",
                                                       .js_type = 1, .js_num = 10 + p, .proc_type = MI_PT_USER});
  return w;
}
static void v1_step(mi_system *w, int *slots, int i) {
  mi_host_begin(w);
  mi_host_add(w, mi_host_counter(21177), 0, 1000 * i + 7);
  for (int p = 0; p < 3; p++)
    if (slots[p] >= 0) {
      mi_host_add(w, mi_host_counter(25047), slots[p], 111 * (p + 1) * i);
      mi_host_add_objcl(w, mi_host_counter(25202), slots[p], 5 * p + i, 1 + p);
    }
  mi_host_add(w, mi_host_counter(23000), 1, 3 * i);
  mi_host_add(w, mi_host_counter(27006), i % 2, 40 * i);
  if (i == 4 && slots[2] >= 0) { mi_host_proc_exit(w, slots[2]); slots[2] = -1; }
  mi_host_advance(w, 1000 * 8000);
  mi_host_publish(w);
}
/* One reading of the fixture's items by s. */
typedef struct v1_read { uint8_t g[64], p[8 * 64], io[4 * 16], c[4 * 16]; int32_t np, nio, nc, rc[4]; } v1_read;
static void v1_get(mi_session *s, v1_read *r) {
  status_type st;
  int32_t stats[8], all = -1, key = 0, g[] = {21176, 21177, 0}, p[] = {25047, 25202, 0}, io[] = {23000, 0}, c[] = {27006, 0};
  longint_type pid;
  mi_longint_set(&pid, -1);
  memset(r, 0, sizeof *r);
  mi_globget(s, &st, g, r->g, stats, sizeof r->g, 1, 0);
  r->rc[0] = INFO(st);
  mi_procget(s, &st, p, r->p, stats, sizeof r->p, 1, &pid, &r->np, &key, 0);
  r->rc[1] = INFO(st);
  mi_ioget(s, &st, io, r->io, stats, sizeof r->io, 1, &all, &r->nio, 0);
  r->rc[2] = INFO(st);
  mi_prcsrget(s, &st, c, r->c, stats, sizeof r->c, 1, &all, &r->nc, 0);
  r->rc[3] = INFO(st);
}
/* Enables the fixture's items for s. */
static void v1_on(mi_session *s) {
  status_type st;
  int32_t stats[8], map = 1, ldev = -1, g[] = {21176, 21177, 0}, p[] = {25047, 25202, 0}, io[] = {23000, 0};
  mi_globon(s, &st, g, stats, &map, 0);
  mi_procon(s, &st, p, stats, &map, NULL, 0);
  mi_ioon(s, &st, io, stats, &map, &ldev, 0);
}

static void test_record_v1_fixture(void) {
  const char *path = "spec/record_v1.mir";
  char err[200];
  mi_rec_reader *rd = mi_rec_open(path, err, sizeof err);
  CHECK(rd != NULL, err);
  if (!rd) return;
  mi_rec_health h;
  EQ(mi_rec_verify(rd, &h), 0, "#14.2: the version-1 fixture verifies clean");
  EQ(h.samples, 7, "#14.2: the version-1 fixture holds its 7 samples");
  mi_rec_event ev;
  mi_rec_next(rd, &ev);
  EQ(mi_rec_info_get(rd)->version, 1, "#14.2: the fixture is of format version 1");
  EQ(mi_rec_udefs(rd, NULL), 0, "#14.2: a version-1 file has no user-defined counter table");
  mi_rec_close(rd);
  /* live: the same system, read after every step by the code of today */
  enum { N = 6 };
  v1_read live[N + 1], rep;
  int slots[3];
  mi_system *w = v1_system(slots);
  mi_session *ws = rec_session(w);
  v1_on(ws);
  for (int i = 1; i <= N; i++) { v1_step(w, slots, i); v1_get(ws, &live[i]); }
  mi_session_free(ws);
  mi_system_free(w);
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (!sys) return;
  EQ(mi_udef_count(sys), 0, "#14.2: a version-1 replay has no user-defined counters");
  mi_session *s = rec_session(sys);
  v1_on(s);
  int same = 0;
  for (int i = 1; i <= N; i++) {
    mi_replay_step(sys, 1000);
    v1_get(s, &rep);
    int ok = memcmp(&rep, &live[i], sizeof rep) == 0;
    same += ok;
    if (!ok) printf("# the version-1 replay differs at step %d (%d/%d processes)\n", i, rep.np, live[i].np);
  }
  EQ(same, N, "#14.2: a version-1 recording replays exactly: every GET equals the live one at every sample");
  EQ(mi_replay_step(sys, 1000), 0, "#14.2: the version-1 replay ends with the recording");
  mi_session_free(s);
  mi_system_free(sys);
}

/* ---- a damaged table of user-defined counters: a clear error, never a crash (#14.2) ---- */
/* Writes n bytes to path. */
static void ud_spill(const char *path, const uint8_t *b, long n) {
  FILE *f = fopen(path, "wb");
  fwrite(b, 1, (size_t)n, f);
  fclose(f);
}
/* Writes recording src to dst with its counter table spoiled as rec_doctor says; 0 or -1. */
static int ud_doctor(const char *src, const char *dst, int which, int cut, int kind) {
  uint8_t *b;
  long n = rec_slurp(src, &b), on = 0;
  if (n <= 0) return -1;
  uint8_t *o = rec_doctor(b, n, which, cut, kind, &on);
  free(b);
  if (!o) return -1;
  ud_spill(dst, o, on);
  free(o);
  return 0;
}

/* The program a process of sys runs (pid), as "FILE.GROUP.ACCOUNT" without blanks, into b. */
static const char *prog_of(mi_system *sys, int64_t pid, char b[64]) {
  int slot = mi_host_proc_slot(sys, pid);
  b[0] = 0;
  if (slot < 0) return b;
  const char *img = (const char *)sys->seg->procs[slot].program;
  int n = 0;
  for (int k = 0; k < 3; k++) {
    if (k) b[n++] = '.';
    for (int c = 0; c < 16 && img[16 * k + c] != ' '; c++) b[n++] = img[16 * k + c];
  }
  b[n] = 0;
  return b;
}

/* A process that runs another program while it is recorded (a host exec: mi_host_proc_identity)
 * replays under its new program from that sample on: the same pid and start, its counters
 * continuous (the file gives it a birth again, without a death), before and after a key. */
static void test_record_exec_identity(void) {
  const char *path = rec_tmp("recexec.mir");
  unlink(path);
  mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  int slot = mi_host_proc_create(w, &(mi_proc_desc){.pid = 800, .program = "SH", .program_group = "BIN", .program_account = "USR",
                                                    .user = "MGR", .account = "SYS", .js_type = 1, .js_num = 9, .proc_type = MI_PT_CI});
  int32_t items[] = {25047};
  char err[300], pb[64];
  mi_recorder *rc = mi_recorder_open(w, path, items, 1, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = 5}, err, sizeof err);
  CHECK(rc != NULL, err);
  mi_ctr c = mi_host_counter(25047);
  int64_t live[9] = {0};
  EQ(mi_host_proc_identity(w, slot + 1, "X", NULL, NULL, -1), -1, "#14: a slot that holds no live process takes no identity");
  EQ(mi_host_proc_identity(NULL, slot, "X", NULL, NULL, -1), -1, "#14: nor a NULL system");
  for (int i = 1; i <= 8 && rc; i++) {
    if (i == 3) EQ(mi_host_proc_identity(w, slot, "SLEEP", "BIN", "USR", MI_PT_SON), 0, "#14: a live process takes another program");
    mi_host_add(w, c, slot, 10 * i);
    mi_host_advance(w, 1000 * 8000);
    mi_recorder_sample(rc);
    live[i] = mi_host_value(w, c, slot);
  }
  CHECK(strcmp(prog_of(w, 800, pb), "SLEEP.BIN.USR") == 0, "#14: the live process shows its new program");
  mi_recorder_close(rc);
  mi_system_free(w);
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (!sys) return;
  mi_session *s = rec_session(sys);
  status_type st;
  int32_t stats[2], map = 1, pi[] = {25047, 0};
  mi_procon(s, &st, pi, stats, &map, NULL, 0);
  int names = 0, values = 0;
  for (int i = 1; i <= 8; i++) {
    mi_replay_step(sys, 1000);
    int rs = mi_host_proc_slot(sys, 800);
    names += strcmp(prog_of(sys, 800, pb), i < 3 ? "SH.BIN.USR" : "SLEEP.BIN.USR") == 0 && rs >= 0 &&
             sys->seg->procs[rs].ptype == (i < 3 ? MI_PT_CI : MI_PT_SON);
    values += rs >= 0 && mi_host_value(sys, c, rs) == live[i];
  }
  EQ(names, 8, "#14: the replay shows the old program before the exec's sample and the new one (and type) from it on, across a key");
  EQ(values, 8, "#14: the exec'd process's counter replays continuous at every sample");
  EQ((long long)sys->seg->births, 1, "#14: ... as the same process (no death and birth in the replay)");
  mi_session_free(s);
  mi_system_free(sys);
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  mi_rec_health h;
  EQ(rd ? mi_rec_verify(rd, &h) : -1, 0, "#14: the recording with a process's second birth verifies clean");
  mi_rec_close(rd);
  unlink(path);
}

/* A counter installed while a recorder of every user-defined counter records, that nobody else
 * enables, counts from its install: the adds before the recorder's next sample are in the file
 * (the recorder's MI user follows installs; it had no process item, so the per-process counter
 * turns its process domain on). A recorder not asked for every counter records neither. */
static void test_record_udef_follow(void) {
  static const mi_udef_desc dg = {.name = "fol_orders", .kind = MI_UDEF_ACCUM}, dp = {.name = "fol_calls", .kind = MI_UDEF_ACCUM, .per_process = 1};
  for (int all = 1; all >= 0; all--) {
    const char *path = rec_tmp(all ? "recfol.mir" : "recfol0.mir");
    unlink(path);
    mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
    int slot = mi_host_proc_create(w, &(mi_proc_desc){.pid = 700, .program = "FOL", .user = "MGR", .account = "SHOP",
                                                      .js_type = 1, .js_num = 7, .proc_type = MI_PT_USER});
    int32_t items[] = {21177, MI_REC_USERDEF_ALL};
    char err[300];
    mi_recorder *rc = mi_recorder_open(w, path, items, all ? 2 : 1, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE}, err, sizeof err);
    CHECK(rc != NULL, err);
    mi_udef ug = {0}, up = {0};
    int64_t tg = 0, tp = 0;
    for (int i = 1; i <= 4 && rc; i++) {
      if (i == 2) {
        EQ(mi_udef_install(w, &dg, &ug), 0, "#14: a global counter installs while recording");
        EQ(mi_udef_install(w, &dp, &up), 0, "#14: a per-process counter installs while recording");
      }
      if (i >= 2) {
        mi_udef_add(w, ug, 0, 5 * i); tg += 5 * i;
        mi_udef_add(w, up, slot, 7 * i); tp += 7 * i;
      }
      mi_host_advance(w, 1000 * 8000);
      mi_recorder_sample(rc);
    }
    if (all) {
      EQ(mi_udef_value(w, ug, 0), tg, "#14: the followed global counter counted from its install, nobody else having it on");
      EQ(mi_udef_value(w, up, slot), tp, "#14: ... and the per-process one");
    }
    mi_recorder_close(rc);
    EQ(mi_udef_value(w, ug, 0), 0, "#14: once the recorder closed nobody counts the followed counter");
    mi_system_free(w);
    mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
    CHECK(sys != NULL, err);
    if (!sys) continue;
    const mi_udef_info *g = NULL, *pp = NULL;
    mi_session *rs_s = NULL;
    for (int steps = 0; mi_replay_step(sys, 1000) == 1 && steps < 20; steps++)
      if (!rs_s && (g = mi_udef_find(sys, "fol_orders")) && (pp = mi_udef_find(sys, "fol_calls"))) {   /* ON once they are there */
        rs_s = rec_session(sys);
        status_type st;
        int32_t gi[] = {g->item.item, 0}, pi[] = {pp->item.item, 0}, stats[2], map = 1;
        mi_globon(rs_s, &st, gi, stats, &map, 0);
        mi_procon(rs_s, &st, pi, stats, &map, NULL, 0);
      }
    int rs = mi_host_proc_slot(sys, 700);
    CHECK(g && pp && rs_s && (rs >= 0 || !all), "#14: the replay has both counters (and the process, recorded for them)");
    if (g && pp && rs_s) {
      EQ(mi_udef_value(sys, g->handle, 0), all ? tg : 0, all ? "#14: the replay shows every add to the global counter since its install (none lost before the next sample)"
                                                             : "#14: a recorder not asked for every counter does not record one installed later");
      if (all) EQ(mi_udef_value(sys, pp->handle, rs), tp, "#14: ... and every add to the per-process one");
    }
    mi_session_free(rs_s);
    mi_system_free(sys);
    unlink(path);
  }
}

static void test_record_udef_damage(void) {
  const char *path = rec_tmp("recudd.mir"), *bad = rec_tmp("recudd.bad");
  unlink(path);
  /* a small recording: two counters at the open, one installed while it records */
  mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  mi_udef u[3];
  mi_udef_install(w, &ud_desc[0], &u[0]);
  mi_udef_install(w, &ud_desc[3], &u[1]);
  int32_t items[] = {21177, MI_REC_USERDEF_ALL};
  char err[300];
  mi_recorder *rc = mi_recorder_open(w, path, items, 2, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE}, err, sizeof err);
  CHECK(rc != NULL, err);
  for (int i = 1; i <= 6 && rc; i++) {
    if (i == 3) mi_udef_install(w, &ud_desc[7], &u[2]);
    mi_udef_add(w, u[0], 0, i);
    mi_udef_set(w, u[1], 0, i % 2);
    mi_host_advance(w, 1000 * 8000);
    mi_recorder_sample(rc);
  }
  mi_recorder_close(rc);
  mi_system_free(w);
  /* the first header's table cut short, or holding a bad kind: the file is refused, saying why */
  EQ(ud_doctor(path, bad, 0, 1, 0), 0, "#14.2: the test cuts the header's counter table");
  mi_rec_reader *rd = mi_rec_open(bad, err, sizeof err);
  CHECK(!rd && strstr(err, "header record is damaged") && strstr(err, "user-defined counter table is cut short"),
        "#14.2: a header whose user-defined counter table is cut short is refused, saying so");
  mi_rec_close(rd);
  EQ(ud_doctor(path, bad, 0, 0, 9), 0, "#14.2: the test spoils a counter's kind");
  rd = mi_rec_open(bad, err, sizeof err);
  CHECK(!rd && strstr(err, "user-defined counter table holds a bad entry"), "#14.2: a table entry of a bad kind is refused, saying so");
  mi_rec_close(rd);
  mi_system *sys = mi_system_open(rec_spec(bad), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(!sys && strstr(err, "bad entry"), "#14.2: the replay of it is refused with the reader's reason");
  mi_system_free(sys);
  /* the continued header damaged: reported as damage, the samples after it skipped, the rest replays */
  EQ(ud_doctor(path, bad, 1, 0, 7), 0, "#14.2: the test spoils the continued header's table");
  long samples;
  int torn, damaged;
  rec_count(bad, &samples, &torn, &damaged);
  CHECK(damaged && !torn && samples >= 3, "#14.2: a continued header with a bad table is damage: the samples before it read");
  sys = mi_system_open(rec_spec(bad), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (sys) {
    int steps = 0;
    while (mi_replay_step(sys, 1000) == 1 && steps < 20) steps++;
    char what[200];
    EQ(mi_replay_state(sys, what, sizeof what), 1, "#14.2: the replay says the file is not whole");
    CHECK(mi_udef_find(sys, "late_events") == NULL && mi_udef_find(sys, "server_busy") != NULL,
          "#14.2: counters of a damaged header are not installed, those of the whole one are");
    mi_system_free(sys);
  }
  unlink(bad);
  unlink(path);
}

/* ---- a torn header: refused saying so; a recorder takes the file over (#14.2, 5a) ---- */
static void test_record_torn_header(void) {
  const char *path = rec_tmp("recth.mir"), *cut = rec_tmp("recth.cut");
  unlink(path);
  rec_make(path, 3, NULL, 60);
  uint8_t *b;
  long size = rec_slurp(path, &b);
  long hl = size > 8 ? (long)mir_get32(b + 4) : 0;
  CHECK(hl > 40 && hl < size, "#14.2: the test recording has a header record");
  long cuts[] = {1, 3, 4, 7, 9, hl / 2, hl - 1};
  int refused = 0, taken = 0, clean = 0, marked = 0;
  char err[300];
  for (int k = 0; k < 7; k++) {
    ud_spill(cut, b, cuts[k]);
    mi_rec_reader *rd = mi_rec_open(cut, err, sizeof err);
    refused += !rd && strstr(err, "header record is torn") && strstr(err, "nothing was recorded");
    if (rd && k == 0) printf("# torn header opened?\n");
    mi_rec_close(rd);
    /* a recorder on the torn file: it starts the file again, a mark saying what it cut */
    int ok = rec_append_second(cut, MI_REC_FSYNC_NONE, err, sizeof err);
    taken += ok;
    if (!ok) printf("# recorder on a header torn at %ld: %s\n", cuts[k], err);
    rd = mi_rec_open(cut, NULL, 0);
    mi_rec_health h;
    clean += rd && mi_rec_verify(rd, &h) == 0 && h.samples == 2;
    mi_rec_event ev;
    while (rd && mi_rec_next(rd, &ev) != MI_REV_END) marked += ev.type == MI_REV_MARK && ev.mark == MI_MARK_TORN && ev.b == cuts[k];
    mi_rec_close(rd);
  }
  EQ(refused, 7, "#14.2: a recording whose header is torn is refused, saying the header is torn and nothing was recorded");
  EQ(taken, 7, "#14.2: a recorder opens a file whose header is torn (it held nothing)");
  EQ(clean, 7, "#14.2: ... and the file it writes is whole");
  EQ(marked, 7, "#14.2: ... with a mark saying how many bytes of torn header it cut");
  /* a file that is not a recording is never cut */
  ud_spill(cut, (const uint8_t *)"MIRX not a recording", 20);
  mi_system *sys = mi_system_open("sim", &(mi_system_options){.registry = regpath}, &(mi_source_args){.virtual_time = 1}, NULL, 0);
  int32_t one[] = {21176};
  mi_recorder *rc = mi_recorder_open(sys, cut, one, 1, NULL, err, sizeof err);
  struct stat sb;
  stat(cut, &sb);
  CHECK(!rc && sb.st_size == 20, "#14.2: a recorder refuses a file that is not a recording, and leaves it as it was");
  mi_recorder_close(rc);
  /* the first header damaged, a whole segment appended after: it opens there, the damage said */
  rc = mi_recorder_open(sys, path, one, 1, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE}, err, sizeof err);
  CHECK(rc != NULL, err);
  mi_sim_advance(sys, 1000);
  mi_recorder_sample(rc);
  mi_recorder_close(rc);
  mi_system_free(sys);
  free(b);
  size = rec_slurp(path, &b);
  b[60] ^= 0x08;   /* inside the first header's payload */
  ud_spill(cut, b, size);
  mi_rec_reader *rd = mi_rec_open(cut, err, sizeof err);
  CHECK(rd != NULL, err);
  mi_rec_event ev;
  int first = rd ? mi_rec_next(rd, &ev) : -1, applied = 0;
  while (rd && mi_rec_next(rd, &ev) != MI_REV_END) applied += ev.type == MI_REV_SAMPLE && !ev.skipped;
  EQ(first, MI_REV_DAMAGE, "#14.2: a damaged first header with a whole segment after it opens; the damage is reported first");
  CHECK(applied >= 1, "#14.2: ... and the whole segment's samples read");
  mi_rec_close(rd);
  free(b);
  unlink(cut);
  unlink(path);
}

/* ---- the mask items 3015/3016 replay as recorded (#14.2, 5b) ---- */
/* Reads ALLOW (3015, 12 bytes) and LOGGING (3016, 8 bytes) with s into m (20 bytes). */
static void mask_get(mi_session *s, uint8_t *m) {
  status_type st;
  int32_t nums[] = {3015, 3016, 0}, stats[2];
  uint64_t a[2] = {0, 0}, l = 0;
  void *p[] = {a, &l};
  mi_scget(s, &st, nums, p, stats, 0);
  memcpy(m, a, 12);
  memcpy(m + 12, &l, 8);
}

static void test_record_masks(void) {
  const char *path = rec_tmp("recmask.mir");
  unlink(path);
  enum { N = 5 };
  uint8_t live[N + 1][20], rep[20];
  mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  mi_session *ws = rec_session(w);
  {   /* cleared before the recording starts: the header holds zeros, unlike the defaults */
    uint64_t zero[2] = {0, 0};
    int32_t nums[] = {3015, 3016, 0}, stats[2];
    void *p[] = {zero, zero};
    status_type st;
    mi_scput(ws, &st, nums, p, stats, 0, NULL, NULL, NULL);
  }
  int32_t items[] = {21177};
  char err[200];
  mi_recorder *rc = mi_recorder_open(w, path, items, 1, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = 3}, err, sizeof err);
  CHECK(rc != NULL, err);
  for (int i = 1; i <= N && rc; i++) {
    if (i == 2 || i == 4) {   /* an operator changes the masks (AIFSCPUT) */
      uint64_t allow[2] = {0x0123456789ABCDEFull * (uint64_t)i, 0x5A5A5A5Au}, logging = 0xF0F0F0F0F0F0F0F0ull >> i;
      if (i == 4) allow[0] = allow[1] = logging = 0;   /* all clear: unlike the defaults */
      int32_t nums[] = {3015, 3016, 0}, stats[2];
      void *p[] = {allow, &logging};
      status_type st;
      mi_scput(ws, &st, nums, p, stats, 0, NULL, NULL, NULL);
      EQ(st.all, 0, "#14.2: the masks are put");
    }
    mi_host_advance(w, 1000 * 8000);
    mi_recorder_sample(rc);
    mask_get(ws, live[i]);
  }
  mi_recorder_close(rc);
  mi_session_free(ws);
  mi_system_free(w);
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  CHECK(sys != NULL, err);
  if (!sys) return;
  mi_session *s = rec_session(sys);
  int same = 0;
  for (int i = 1; i <= N; i++) {
    mi_replay_step(sys, 1000);
    mask_get(s, rep);
    same += memcmp(rep, live[i], 20) == 0;
  }
  EQ(same, N, "#14.2: AIFSCGET of the masks 3015/3016 on a replay equals the live one at every sample (cleared before it, changed, cleared again)");
  mi_session_free(s);
  mi_system_free(sys);
  unlink(path);
}

/* ---- input checks of recordings and their times (#27.12) ---- */
/* In a child with files limited to limit bytes (SIGXFSZ ignored: a write past it fails with EFBIG),
 * opens a recorder on path; returns 1 if the open failed as it should, 0 if it opened, -1 on error. */
static int rec_open_limited(const char *path, long limit) {
  pid_t kid = fork();
  if (kid < 0) return -1;
  if (kid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
    mi_system *sys = mi_system_open("sim", &(mi_system_options){.registry = regpath}, &(mi_source_args){.virtual_time = 1}, NULL, 0);
    int32_t items[] = {21176, 21177, 25047, 25048};
    char err[200];
    mi_recorder *rc = mi_recorder_open(sys, path, items, 4, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE}, err, sizeof err);
    _exit(rc ? 0 : 1);
  }
  int st = 0;
  waitpid(kid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 1 ? 1 : WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void test_record_input_checks(void) {
  int64_t x;
  /* offsets: a decimal number and a unit; nothing else, nothing out of range */
  const char *bad[] = {"-nan", "+nan", "+inf", "-inf", "+1e9d", "+0x10s", "+1e3", "+.5s", "+5.s", "+ 5s", "+-5s", "+5 s", "+5ms",
                       "+9999999999d", "@-5", "@0x10", "@ 5", "@", "@99999999999999999999", "2026-11-22T06:00:1e1Z",
                       "2026-11-22T06:00:nanZ", "+026-11-22", " 2026-1-22", "2026-11-22T6:00:00Z", "2026-11-22T06:00:00+1:00",
                       "2026-11-22T06:00:0x10Z", "2026-11-22T06:00:61Z", NULL};
  int refused = 0, nbad = 0;
  for (const char **b = bad; *b; b++, nbad++) {
    int rc = mi_rec_parse_time(*b, 0, 1, &x);
    refused += rc == -1;
    if (rc != -1) printf("# accepted '%s' as %lld\n", *b, (long long)x);
  }
  EQ(refused, nbad, "#27.12: a time that is not a decimal number with a unit (nan, inf, hex, exponents, signs, spaces) nor ISO 8601 is refused");
  EQ(mi_rec_parse_time("+1000000000d", 0, 1000000, &x), -1, "#27.12: an offset whose ticks leave 64 bits is refused, not wrapped");
  EQ(mi_rec_parse_time("+1000m", INT64_MAX - 5, 1, &x), -1, "#27.12: an offset that takes the time past 64 bits is refused");
  EQ(mi_rec_parse_time("-1000m", INT64_MIN + 5, 1, &x), -1, "#27.12: ... in either direction");
  struct { const char *t; int64_t base, want; int32_t tpm; } good[] = {
    {"+10m", 0, 600000, 1}, {"-30s", 100000, 70000, 1}, {"+1.5h", 0, 5400000, 1}, {"+10", 0, 10000, 1}, {"+0.001s", 0, 8, 8},
    {"+2d", 5, 2 * 86400000LL + 5, 1}, {"@12345", 0, 12345, 1}, {"1970-01-01T00:00:01Z", 0, 2000, 2},
    {"1970-01-01T01:00:00.5+01:00", 0, 500, 1}, {"1970-01-02", 0, 86400000, 1}, {"1970-01-01 00:01", 0, 60000, 1},
    {"2026-11-22T06:00:00Z", 0, 1795327200000LL * 8, 8}};
  int same = 0;
  for (int i = 0; i < (int)(sizeof good / sizeof good[0]); i++) {
    int ok = mi_rec_parse_time(good[i].t, good[i].base, good[i].tpm, &x) == 0 && x == good[i].want;
    same += ok;
    if (!ok) printf("# '%s' did not parse to %lld\n", good[i].t, (long long)good[i].want);
  }
  EQ(same, (int)(sizeof good / sizeof good[0]), "#27.12: offsets with a unit (or none: seconds), @ticks and ISO 8601 still parse to their ticks");

  /* an empty file: a recorder stopped before its header, said so */
  const char *path = rec_tmp("rec27.mir"), *link = rec_tmp("rec27.lnk");
  unlink(path);
  unlink(link);
  close(open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644));
  char err[300] = "";
  mi_rec_reader *rd = mi_rec_open(path, err, sizeof err);
  CHECK(!rd && strstr(err, "torn") && strstr(err, "stopped before"), "#27.12: an empty recording is a torn header (the recorder stopped before writing it), not 'not a recording'");
  if (rd || !strstr(err, "torn")) printf("# %s\n", err);
  mi_rec_close(rd);
  unlink(path);

  /* a symbolic link is never recorded through: the file it names stays as it was */
  rec_make(path, 2, NULL, 60);
  uint8_t *before, *after;
  long n0 = rec_slurp(path, &before);
  CHECK(symlink(path, link) == 0, "#27.12: a symbolic link is made for the test");
  mi_system *sys = mi_system_open("sim", &(mi_system_options){.registry = regpath}, &(mi_source_args){.virtual_time = 1}, NULL, 0);
  int32_t one[] = {21176};
  mi_recorder *rc = mi_recorder_open(sys, link, one, 1, NULL, err, sizeof err);
  long n1 = rec_slurp(path, &after);
  CHECK(!rc && strstr(err, "symbolic link") && n1 == n0, "#27.12: a recorder refuses a symbolic link (O_NOFOLLOW) and leaves the file it names as it was");
  mi_recorder_close(rc);
  free(after);
  unlink(link);
  /* a directory, a device: not a regular file */
  rc = mi_recorder_open(sys, "/dev/null", one, 1, NULL, err, sizeof err);
  CHECK(!rc && strstr(err, "not a regular file"), "#27.12: a recorder refuses a file that is not a regular file (/dev/null)");
  mi_recorder_close(rc);
  mi_system_free(sys);

  /* an append that fails on a full file system leaves the file as it was: no restart mark, no
   * header without its sample (an empty segment) */
  free(before);
  n0 = rec_slurp(path, &before);
  long hl = n0 > 8 ? (long)mir_get32(before + 4) : 0;
  long limits[] = {n0 + 30, n0 + 100 + hl, n0 + 100 + hl + 200};
  int kept = 0, efbig = 0;
  for (int k = 0; k < 3; k++) {
    int f = rec_open_limited(path, limits[k]);
    efbig += f == 1;
    long n2 = rec_slurp(path, &after);
    kept += n2 == n0 && memcmp(before, after, (size_t)n0) == 0;
    if (n2 != n0) printf("# limit %ld: the file went from %ld to %ld bytes\n", limits[k], n0, n2);
    free(after);
  }
  EQ(efbig, 3, "#27.12: an append past the file-size limit fails (EFBIG) at the mark, the header or the first sample");
  EQ(kept, 3, "#27.12: ... and leaves the recording byte for byte as it was (no empty segment)");
  rd = mi_rec_open(path, NULL, 0);
  mi_rec_health h;
  EQ(rd ? mi_rec_verify(rd, &h) : -1, 0, "#27.12: ... clean");
  mi_rec_close(rd);
  free(before);
  unlink(path);
  /* a new file whose first records cannot be written is not left behind */
  int f = rec_open_limited(path, 100);
  CHECK(f == 1 && access(path, F_OK) != 0, "#27.12: a recorder that cannot write a new file's header removes the file it created");
  unlink(path);
}

/* ---- sample times that do not increase: kept, said, counted alike (#27.3) ---- */
/* Appends n samples of item 21177 a second apart (after equal samples at the start) of a system
 * booted at boot seconds to path; key_every as given. */
static void rec_clock_seg(const char *path, int64_t boot, int n, int equal, int key_every) {
  mi_system *w = mi_system_new(&(mi_system_options){.registry = regpath, .boot_ticks = boot * 1000 * 8000});
  int32_t items[] = {21177};
  char err[200];
  mi_recorder *rc = mi_recorder_open(w, path, items, 1, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = key_every}, err, sizeof err);
  CHECK(rc != NULL, err);
  for (int i = 2; i <= n && rc; i++) {
    if (i > equal) mi_host_advance(w, 1000 * 8000);
    mi_recorder_sample(rc);
  }
  mi_recorder_close(rc);
  mi_system_free(w);
}

/* Samples at or after time t a reader reads from where it stands to the end (applied ones; *back:
 * those marked as going back). */
static int rec_ahead(mi_rec_reader *rd, int64_t t, int *back) {
  mi_rec_event ev;
  int n = 0;
  if (back) *back = 0;
  while (mi_rec_next(rd, &ev) != MI_REV_END)
    if (ev.type == MI_REV_SAMPLE && ev.time >= t) { n += !ev.skipped; if (back) *back += ev.back; }
  return n;
}

/* Samples a replay of path applies stepping to its end, or -1. */
static int64_t rec_replayed(const char *path) {
  char err[300];
  mi_system *sys = mi_system_open(rec_spec(path), &(mi_system_options){.registry = regpath}, NULL, err, sizeof err);
  if (!sys) { printf("# %s\n", err); return -1; }
  for (int i = 0; i < 1000 && mi_replay_step(sys, 1) == 1; i++) {}
  int64_t n = mi_replay_samples(sys);
  mi_system_free(sys);
  return n;
}

static void test_record_clock_back(void) {
  const char *path = rec_tmp("rec27-3.mir");
  int64_t boot = 1790000000;
  unlink(path);
  rec_clock_seg(path, boot + 3600, 10, 1, 60);   /* an hour on, then a recording an hour earlier appended */
  rec_clock_seg(path, boot, 10, 1, 60);
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  CHECK(rd != NULL, "#27.3: the file opens");
  if (!rd) return;
  const mi_rec_info *in = mi_rec_info_get(rd);
  mi_rec_health h;
  EQ(mi_rec_verify(rd, &h), 0, "#27.3: a file whose clock goes back is whole (clean)");
  EQ(h.samples, 20, "#27.3: verify counts every sample");
  EQ(h.steps_back, 1, "#27.3: verify counts the step back");
  CHECK(h.first_step_back > 0 && h.first_step_back < h.bytes, "#27.3: ... and says where it is");
  EQ(in->steps_back, 1, "#27.3: the reader knows the file's clock goes back from its open");
  EQ(in->first_time, boot * 1000 * 8000, "#27.3: the span starts at the earliest sample (the appended segment's first)");
  EQ(in->last_time, ((boot + 3600) * 1000 + 9000) * 8000, "#27.3: ... and ends at the latest (the first segment's last)");
  int back;
  EQ(rec_ahead(rd, in->first_time, &back), 20, "#27.3: every sample reads in file order");
  EQ(back, 1, "#27.3: ... the first of the earlier clock marked as going back");
  EQ(mi_rec_seek(rd, in->first_time), 0, "#27.3: a seek in a file whose clock goes back succeeds");
  EQ(rec_ahead(rd, in->first_time, NULL), 20, "#27.3: ... at the start: every sample at or after the time is still ahead");
  EQ(rec_replayed(path), 20, "#27.3: a replay applies every sample (its clock goes on at the step back)");
  mi_rec_close(rd);
  unlink(path);

  /* five samples at one time, keys every three: a seek to that time loses none of them */
  rec_clock_seg(path, boot, 10, 5, 3);
  rd = mi_rec_open(path, NULL, 0);
  in = mi_rec_info_get(rd);
  EQ(mi_rec_verify(rd, &h), 0, "#27.3: samples at one time are whole");
  EQ(h.samples, 10, "#27.3: ... every one counted");
  EQ(h.steps_back, 0, "#27.3: ... and an equal time is no step back");
  EQ(mi_rec_seek(rd, in->first_time), 0, "#27.3: seek to the first time");
  EQ(rec_ahead(rd, in->first_time, NULL), 10, "#27.3: a seek to a time several samples share lands before all of them (the latest key before it)");
  EQ(mi_rec_seek(rd, in->first_time + 8000 * 1000), 0, "#27.3: seek a second on");
  EQ(rec_ahead(rd, in->first_time + 8000 * 1000, NULL), 5, "#27.3: ... lands before every sample from that second on");
  mi_rec_close(rd);
  EQ(rec_replayed(path), 10, "#27.3: a replay applies every sample, several at one time in one step");
  unlink(path);
}
