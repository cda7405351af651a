/* fuzz_attach.c — an attached store file (#7): the input patches a store written by a real
 * owner and the harness attaches to it (mi_system_attach: read-only, #27.8; read-write when the
 * input's flag byte has bit 2, so both modes' ONs, OFFs and reads meet damaged tables) and reads
 * it through every AIF.
 * At start the harness makes a shared system in its private directory (small limits: max_cells
 * 4096, 16 processes) and gives it state: CPUs, devices, processes with names and counters, a
 * user-defined counter, a registry, a session with global, process and I/O items on. It stays
 * open for the harness's life, so the store's owner (this process) is alive. Its file is the
 * template: each input is applied to a copy (in.store, same directory) as a list of patches,
 * each aimed at a region of the segment (header, limits and configuration, process bookkeeping
 * and pid hash, process table, counter offsets and counts, user records, user-defined counter
 * table, arena bookkeeping, writer block, arena cells, anywhere) with raw bytes or an
 * "interesting" integer at an aligned offset; a flag byte may also cut or grow the file.
 * If the copy attaches, one session reads it: AIFTIME, AIFSCGET, MIGLOBON/GET, MIPROCON/GET,
 * MIIOON/GET, MIPRCSRGET, MIREADACTIVE (LIST and CHANGED), the query API (every domain,
 * mi_query_room and mi_query_run), the OFFs; then the session and the system are freed.
 * Checks: no crash, hang or sanitizer report; an attach that fails says why with a store code
 * (MI_E_STORE_*) and one that works sets 0; every overall and item status is 0, an index or a
 * code of Appendix A; nothing is written past a GET buffer (canary); a record count fits the
 * buffer. Paths: the header's registry path is kept inside the private directory (a patch that
 * changes it gets one of three paths there: the real registry, a missing file, a name that
 * fills the field without a NUL), so an input never makes the harness read or write elsewhere.
 * MI_FUZZ_AVOID (names in avoid_names below, or all) steers around open defects of the attach
 * path: fakelock clears the lock word and the waiter after patching, devtype clears device types
 * beyond the catalog's, prochi holds proc_hi within the process table. */
#include <fcntl.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "fuzz_keep.h"
#include "mi_query.h"
#include "mi_select.h"
#include "mi_userdef.h"

#define UID 666
/* open defects of the attach path this harness can steer around (MI_FUZZ_AVOID, as fuzz_common.h) */
static const struct { const char *name; unsigned bit; } avoid_names[] = {
  {"fakelock", 1u << 20},   /* a reader waits forever on a live fake lock holder (#7) */
  {"devtype", 1u << 21},    /* LDEV device types from the store used unchecked as shift counts */
  {"prochi", 1u << 22},     /* proc_hi past the process table: MIPROCON reads past it (#7) */
};
#define FZ_AVOID_FAKELOCK (1u << 20)
#define FZ_AVOID_DEVTYPE (1u << 21)
#define FZ_AVOID_PROCHI (1u << 22)

static char dir[128], owner_path[200], in_path[200], cut_path[200], reg_path[200];
static mi_system *owner;        /* the live owner of the template, open for the harness's life */
static uint8_t *tmpl;           /* the template's bytes */
static size_t tmpl_size;
static int in_fd = -1;
static uint8_t *in_map;         /* the harness's own mapping of in.store (restored from tmpl) */

/* ---- the harness's mappings and clock (FUZZ_WRAP_attach in the Makefile, this harness only) ----
 * An attach maps the whole store (1.8 MB) and unmaps it when the system is freed: page faults,
 * the unmap's TLB flush and ASan's shadow release were a third of an input. in.store is the only
 * file the harness attaches at its full size, and the harness keeps two mappings of it for its
 * life: in_map (read-write, the harness patches through it) and ro_map (read-only). A shared
 * mapping of in.store at offset 0 and its full size is handed the one of the same protection, and
 * its munmap leaves it mapped: the attach sees the same file pages through a mapping of the same
 * kind (a read-only attach that wrote would still fault). cut.store, the owner's store and
 * anything else go to the real calls.
 * A store whose sequence is odd (a writer inside its section) makes an attach wait 2 s by the
 * coarse monotonic clock, yielding, before it says MI_E_STORE_BUSY: 5 such inputs were 90% of
 * the time of a 295-input corpus. No writer exists in the harness to yield to, so a sched_yield
 * of the core returns at once and counts as YIELD_MS of that clock (CLOCK_MONOTONIC_COARSE, which
 * libFuzzer's timers do not read); the core's deadlines and their outcome are the same. The
 * same for the naps of a bounded write lock (an attached read-write ON against a lock word no
 * live writer holds: 200 us each until MI_WRITE_WAIT_MS passed): a nanosleep under 1 ms counts on
 * that clock and returns at once (73 inputs a second over 7.7 CPU s of 60 without it; libFuzzer's
 * own sleeps are a second long and real). */
#define YIELD_MS 10
#define NOCOV __attribute__((no_sanitize("coverage")))   /* the harness's plumbing feeds the fuzzer nothing */
static uint8_t *ro_map;           /* read-only mapping of in.store, kept */
static dev_t in_dev;
static ino_t in_ino;
static int64_t skew_ns;           /* what the yields added to CLOCK_MONOTONIC_COARSE */
static unsigned long kept_maps;   /* attaches served a kept mapping (MI_FUZZ_TRACE) */
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
int __real_clock_gettime(clockid_t id, struct timespec *ts);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_sched_yield(void);
int __real_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);

/* mmap: a full shared mapping of in.store gets the kept mapping of its protection; else real. */
NOCOV void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  struct stat sb;
  if (ro_map && !addr && fd >= 0 && off == 0 && len == tmpl_size && flags == MAP_SHARED &&
      (prot == PROT_READ || prot == (PROT_READ | PROT_WRITE)) && fstat(fd, &sb) == 0 && sb.st_dev == in_dev &&
      sb.st_ino == in_ino && (size_t)sb.st_size == tmpl_size) {
    kept_maps++;
    return prot == PROT_READ ? (void *)ro_map : (void *)in_map;
  }
  return __real_mmap(addr, len, prot, flags, fd, off);
}

/* munmap: the kept mappings stay; others are real. */
NOCOV int __wrap_munmap(void *addr, size_t len) {
  if (addr && (addr == ro_map || addr == in_map)) { FZ_CHECK(len == tmpl_size, "munmap of a kept mapping: %zu bytes", len); return 0; }
  return __real_munmap(addr, len);
}

/* clock_gettime: the coarse monotonic clock runs ahead by what the yields added. */
NOCOV int __wrap_clock_gettime(clockid_t id, struct timespec *ts) {
  int r = __real_clock_gettime(id, ts);
  if (r == 0 && id == CLOCK_MONOTONIC_COARSE && skew_ns) {
    int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + skew_ns;
    ts->tv_sec = ns / 1000000000;
    ts->tv_nsec = ns % 1000000000;
  }
  return r;
}

/* sched_yield: nobody to yield to; YIELD_MS of the coarse clock pass. */
NOCOV int __wrap_sched_yield(void) {
  skew_ns += (int64_t)YIELD_MS * 1000000;
  return 0;
}

/* nanosleep: under 1 ms (the core's naps), that much of the coarse clock passes at once. */
NOCOV int __wrap_nanosleep(const struct timespec *req, struct timespec *rem) {
  if (req && req->tv_sec == 0 && req->tv_nsec >= 0 && req->tv_nsec < 1000000) {
    skew_ns += req->tv_nsec;
    return 0;
  }
  return __real_nanosleep(req, rem);
}

typedef struct region { const char *name; size_t off, len; } region;
static region regions[11];
static int nregions;

/* Adds a region of the segment (clipped to the template). */
static void add_region(const char *name, size_t off, size_t end) {
  if (end > tmpl_size) end = tmpl_size;
  if (off < end) regions[nregions++] = (region){name, off, end - off};
}

/* Gives the owner the state the template carries. */
static void populate(mi_system *sys) {
  mi_host_begin(sys);
  mi_host_set_cpus(sys, 3);
  mi_host_set_device(sys, 1, 1);
  mi_host_set_device(sys, 2, 1);
  mi_host_set_device(sys, 7, 2);
  mi_host_set_device(sys, 20, 3);
  static const char *const progs[] = {"SYSPROC", "JSMAIN", "CI", "EDITOR", "QUERY", "BATCH"};
  for (int i = 0; i < 6; i++) {
    mi_proc_desc d = {.pid = 101 + i, .program = progs[i], .user = i < 2 ? "OPERATOR" : "MGR", .js_type = i < 2 ? 0 : 1 + i % 2,
                      .js_num = i < 2 ? 0 : i, .proc_type = i < 2 ? MI_PT_SYSTEM : MI_PT_USER};
    mi_host_proc_create(sys, &d);
  }
  mi_host_publish(sys);
  mi_udef ua, uq;
  int ra = mi_udef_install(sys, &(mi_udef_desc){.name = "fz_att", .kind = MI_UDEF_ACCUM, .elements = 3, .per_process = 1}, &ua);
  int rq = mi_udef_install(sys, &(mi_udef_desc){.name = "fz_q", .kind = MI_UDEF_QBUSY}, &uq);
  FZ_CHECK(ra == 0 && rq == 0 && ua.item == 29000 && uq.item == 29001, "mi_udef_install: %d %d, items %d %d", ra, rq, (int)ua.item, (int)uq.item);
  mi_session *s = mi_session_new(sys);   /* freed with the system: its user record is in the template */
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, UID);
  int32_t g[] = {21001, 21002, 21164, 21201, 21261, 29001, 0}, p[] = {25167, 25168, 29000, 0}, io[] = {23048, 23049, 23050, 0};
  int32_t stats[8], mapping = 1, ldev = -2;
  mi_globon(s, &st, g, stats, &mapping, UID);
  FZ_CHECK(st.all == 0, "owner MIGLOBON: %d", st.s.info);
  mi_procon(s, &st, p, stats, &mapping, NULL, UID);
  FZ_CHECK(st.all == 0, "owner MIPROCON: %d (%d %d %d %d)", st.s.info, (int)stats[0], (int)stats[1], (int)stats[2], (int)stats[3]);
  mi_ioon(s, &st, io, stats, &mapping, &ldev, UID);
  FZ_CHECK(st.all == 0, "owner MIIOON: %d", st.s.info);
  mi_host_begin(sys);
  for (int i = 0; i < 6; i++) {
    int slot = mi_host_proc_slot(sys, 101 + i);
    mi_host_add(sys, mi_host_counter(25167), slot, 10 * (i + 1));
    mi_host_add(sys, mi_host_counter(25243), slot, i);
  }
  mi_host_add(sys, mi_host_counter(21001), 0, 77);
  mi_host_add(sys, mi_host_counter(23048), 1, 5);
  mi_host_advance(sys, 123456);
  mi_host_proc_exit(sys, mi_host_proc_slot(sys, 106));   /* a death not yet reported */
  mi_host_publish(sys);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  const char *e = getenv("MI_FUZZ_AVOID");
  for (size_t i = 0; e && i < sizeof avoid_names / sizeof avoid_names[0]; i++)
    if (strstr(e, "all") || strstr(e, avoid_names[i].name)) fz_avoid |= avoid_names[i].bit;
  unsetenv("MI_AIFKUF");
  setenv("TZ", "UTC", 1);
  snprintf(dir, sizeof dir, "%s", fz_scratch_dir("attach"));
  snprintf(owner_path, sizeof owner_path, "%s/owner.store", dir);
  snprintf(in_path, sizeof in_path, "%s/in.store", dir);
  snprintf(cut_path, sizeof cut_path, "%s/cut.store", dir);
  snprintf(reg_path, sizeof reg_path, "%s/registry", dir);
  owner = mi_system_new(&(mi_system_options){.share = owner_path, .max_cells = 65536, .max_processes = 16, .max_users = 4,
                                             .registry = reg_path, .boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  FZ_CHECK(owner != NULL, "cannot make the owner's store %s", owner_path);
  populate(owner);
  int fd = open(owner_path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  FZ_CHECK(fd >= 0 && fstat(fd, &sb) == 0, "cannot read %s", owner_path);
  tmpl_size = (size_t)sb.st_size;
  tmpl = malloc(tmpl_size);
  FZ_CHECK(tmpl && pread(fd, tmpl, tmpl_size, 0) == (ssize_t)tmpl_size, "cannot read %s", owner_path);
  close(fd);
  in_fd = open(in_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  FZ_CHECK(in_fd >= 0 && ftruncate(in_fd, (off_t)tmpl_size) == 0, "cannot make %s", in_path);
  /* the harness plays the copy's owner: a live owner holds its store's lock (#27.2) */
  FZ_CHECK(flock(in_fd, LOCK_EX | LOCK_NB) == 0, "cannot lock %s", in_path);
  in_map = __real_mmap(NULL, tmpl_size, PROT_READ | PROT_WRITE, MAP_SHARED, in_fd, 0);
  FZ_CHECK(in_map != MAP_FAILED, "cannot map %s", in_path);
  uint8_t *ro = __real_mmap(NULL, tmpl_size, PROT_READ, MAP_SHARED, in_fd, 0);
  FZ_CHECK(ro != MAP_FAILED && fstat(in_fd, &sb) == 0, "cannot map %s", in_path);
  in_dev = sb.st_dev;
  in_ino = sb.st_ino;
  ro_map = ro;   /* from now on attaches of in.store get the kept mappings */
  add_region("header", 0, sizeof(mi_seg_hdr));
  add_region("limits", offsetof(mi_seg, max_users), offsetof(mi_seg, nproc_alive));
  add_region("process bookkeeping", offsetof(mi_seg, nproc_alive), offsetof(mi_seg, procs));
  add_region("process table", offsetof(mi_seg, procs), offsetof(mi_seg, procs) + 8 * sizeof(mi_proc));
  add_region("counter bookkeeping", offsetof(mi_seg, dom), offsetof(mi_seg, users));
  add_region("user records", offsetof(mi_seg, users), offsetof(mi_seg, users) + 2 * sizeof(mi_urec));
  add_region("udef table", offsetof(mi_seg, udef_n), offsetof(mi_seg, udef) + 4 * sizeof(mi_udef_rec));
  add_region("arena bookkeeping", offsetof(mi_seg, arena_base), offsetof(mi_seg, blk));
  add_region("writer block", offsetof(mi_seg, blk), sizeof(mi_seg));
  add_region("arena", sizeof(mi_seg), sizeof(mi_seg) + 4096 * 8);
  add_region("anywhere", 0, tmpl_size);
  return 0;
}

static uint8_t in_flags;   /* the input's flag byte: bit 0 cut/grow the file, bit 2 attach read-write */

/* What of in.store differs from the template after an input: the ranges the harness wrote, or
 * all of it (a read-write attach writes where its ONs and OFFs take it). A read-only attach
 * cannot write (its mapping is read-only), so the next input restores only the ranges. */
#define NDIRTY 32
static struct { size_t off, len; } dirty[NDIRTY];
static int ndirty, all_dirty = 1;

/* Notes that the harness wrote len bytes at off of in_map. */
NOCOV static void mark(size_t off, size_t len) {
  if (ndirty == NDIRTY) all_dirty = 1;
  else dirty[ndirty++].off = off, dirty[ndirty - 1].len = len;
}

/* Applies the input's patches to in_map; returns the file size the input asks for. */
static size_t patch(fz_in *in) {
  uint8_t flags = in_flags = fz_u8(in);
  int npatch = fz_u8(in) % 24;
  for (int k = 0; k < npatch && in->n; k++) {
    const region *r = &regions[fz_u8(in) % nregions];
    size_t off = r->off + fz_u32(in) % r->len;
    uint8_t how = fz_u8(in);
    if (how < 110) {   /* an interesting 32-bit value at an aligned offset */
      off &= ~(size_t)3;
      int32_t v = fz_int32(in);
      if (off + 4 <= tmpl_size) { memcpy(in_map + off, &v, 4); mark(off, 4); }
      FZ_TRACE("patch %s +%zu: int32 %d\n", r->name, off - r->off, (int)v);
    } else if (how < 170) {   /* a 64-bit one */
      off &= ~(size_t)7;
      int64_t v = fz_int64(in);
      if (off + 8 <= tmpl_size) { memcpy(in_map + off, &v, 8); mark(off, 8); }
      FZ_TRACE("patch %s +%zu: int64 %lld\n", r->name, off - r->off, (long long)v);
    } else {           /* raw bytes */
      size_t n = 1 + fz_u8(in) % 32;
      for (size_t i = 0; i < n && off + i < tmpl_size; i++) in_map[off + i] = fz_u8(in);
      mark(off, off + n <= tmpl_size ? n : tmpl_size - off);
      FZ_TRACE("patch %s +%zu: %zu bytes\n", r->name, off - r->off, n);
    }
  }
  /* the registry path stays inside the private directory */
  mi_seg_hdr *h = (mi_seg_hdr *)(void *)in_map;
  const mi_seg_hdr *t = (const mi_seg_hdr *)(const void *)tmpl;
  if (memcmp(h->registry, t->registry, sizeof h->registry) != 0) {
    mark(offsetof(mi_seg_hdr, registry), sizeof h->registry);
    int which = (uint8_t)h->registry[0] % 3;
    memset(h->registry, 0, sizeof h->registry);
    if (which == 0) snprintf(h->registry, sizeof h->registry, "%s", reg_path);
    else if (which == 1) snprintf(h->registry, sizeof h->registry, "%s/missing", dir);
    else {
      size_t l = (size_t)snprintf(h->registry, sizeof h->registry, "%s/", dir);
      memset(h->registry + l, 'a', sizeof h->registry - l);   /* no NUL in the field */
    }
    FZ_TRACE("registry path: %s\n", which == 0 ? "the registry" : which == 1 ? "missing" : "unterminated");
  }
  if (fz_avoid & (FZ_AVOID_FAKELOCK | FZ_AVOID_DEVTYPE | FZ_AVOID_PROCHI)) all_dirty = 1;
  if (fz_avoid & FZ_AVOID_FAKELOCK) { h->lock = 0; h->waiting = 0; h->depth = 0; }
  if (fz_avoid & FZ_AVOID_DEVTYPE) {
    mi_seg *g = (mi_seg *)(void *)in_map;
    for (int l = 0; l <= MI_MAX_LDEV; l++) if (g->devtype[l] > mi_ndevtypes_) g->devtype[l] = 0;
  }
  if (fz_avoid & FZ_AVOID_PROCHI) {
    mi_seg *g = (mi_seg *)(void *)in_map;
    if (g->proc_hi < 0 || g->proc_hi > MI_MAX_PROCESSES) g->proc_hi = MI_MAX_PROCESSES;
  }
  if (!(flags & 1)) return tmpl_size;
  static const int64_t delta[] = {-1, -8, -4096, -65536, 1, 4096, -(int64_t)sizeof(mi_seg)};
  int64_t want = (int64_t)tmpl_size + delta[fz_u8(in) % 7];
  if (flags & 2) want = (int64_t)(fz_u32(in) % (tmpl_size + 8192));
  FZ_TRACE("file size %lld (template %zu)\n", (long long)want, tmpl_size);
  return want < 0 ? 0 : (size_t)want;
}

/* Checks a GET's statuses, canary and record count. */
static void check_get(const char *call, status_type st, const int32_t *stats, int n, const uint8_t *buf, int32_t size,
                      int64_t rec, int32_t count) {
  fz_check_overall(st, n, call);
  for (int i = 0; i < n; i++) fz_check_item_status(stats[i], call, i);
  fz_canary_check(buf, (size_t)size, call);
  if (st.all == 0 || st.s.info > 0)
    FZ_CHECK(count >= 0 && count * rec <= size, "%s: %d records of %lld bytes in %d", call, (int)count, (long long)rec, (int)size);
}

/* Item lists per domain: the template's items, others of the domain, user-defined counters. */
static const int32_t items_g[] = {21001, 21002, 21164, 21201, 21261, 21003, 29001, 0};
static const int32_t items_p[] = {20001, 20002, 20003, 20004, 20005, 20006, 20007, 20008, 20009, 20010, 20011, 20012,
                                  25167, 25168, 25243, 25244, 29000, 0};
static const int32_t items_io[] = {23048, 23049, 23050, 23051, 0};
static const int32_t items_c[] = {20040, 27006, 27023, 0};

/* Runs one domain: ON (not for processors), GET into a canaried buffer, and the query API. */
static void read_domain(mi_session *s, int d, fz_in *in) {
  const int32_t *src = d == MI_DOM_GLOBAL ? items_g : d == MI_DOM_PROCESS ? items_p : d == MI_DOM_IO ? items_io : items_c;
  int32_t nums[24], stats[24], n = 0;
  while (src[n]) { nums[n] = src[n]; n++; }
  int extra = fz_u8(in) % 3;
  for (int i = 0; i < extra; i++) { int32_t v = fz_pick_item(in, d); nums[n++] = v ? v : 1; }
  nums[n] = 0;
  status_type st;
  static const int32_t ldevs[] = {-2, -1, 1, 2, 7, 20, 999, 0};
  int32_t mapping = fz_u8(in) % 3, ldev = ldevs[fz_u8(in) % 8], count = -1;
  static const char *const names[] = {"GLOB", "PROC", "IO", "PRCSR"};
  char call[32];
  if (d != MI_DOM_PROCESSOR) {
    for (int i = 0; i < n; i++) stats[i] = 0;
    int32_t m = mapping;
    if (d == MI_DOM_GLOBAL) mi_globon(s, &st, nums, stats, &m, UID);
    else if (d == MI_DOM_PROCESS) mi_procon(s, &st, nums, stats, &m, NULL, UID);
    else mi_ioon(s, &st, nums, stats, &m, &ldev, UID);
    snprintf(call, sizeof call, "MI%sON", names[d]);
    fz_check_overall(st, n, call);
    for (int i = 0; i < n; i++) fz_check_item_status(stats[i], call, i);
    FZ_TRACE("%s: %d\n", call, st.s.info);
  }
  int64_t rec = fz_record_bytes(nums, n, d, mapping);
  int32_t size = (int32_t)(rec * (d == MI_DOM_GLOBAL ? 1 : d == MI_DOM_PROCESSOR ? 8 : 64));
  uint8_t *buf = fz_alloc((size_t)size);
  snprintf(call, sizeof call, "MI%sGET", names[d]);
  for (int i = 0; i < n; i++) stats[i] = 0;
  ldev = d == MI_DOM_IO ? ldevs[fz_u8(in) % 8] : -1;
  switch (d) {
  case MI_DOM_GLOBAL: mi_globget(s, &st, nums, buf, stats, size, mapping, UID); count = 1; break;
  case MI_DOM_PROCESS: mi_procget(s, &st, nums, buf, stats, size, mapping, NULL, &count, NULL, UID); break;
  case MI_DOM_IO: mi_ioget(s, &st, nums, buf, stats, size, mapping, &ldev, &count, UID); break;
  default: mi_prcsrget(s, &st, nums, buf, stats, size, mapping, &ldev, &count, UID);
  }
  FZ_TRACE("%s: %d, %d records\n", call, st.s.info, (int)count);
  check_get(call, st, stats, n, buf, size, rec, count);
  free(buf);
  /* the query API */
  mi_query *q = mi_query_new(s, d, nums, n, mapping);
  if (!q) return;
  int wide = fz_u8(in) & 1;
  mi_query_set_wide(q, wide);
  int32_t qrec = mi_query_record_size(q);
  FZ_CHECK(qrec >= 0 && qrec < (1 << 24), "mi_query_record_size %d", (int)qrec);
  int room = mi_query_room(q, -1);
  FZ_CHECK(room >= 1, "mi_query_room %d", room);
  if (room > 64) room = 64;
  int32_t qsize = qrec * room;
  uint8_t *qb = fz_alloc((size_t)qsize);
  int32_t qcount = -1;
  for (int i = 0; i < n; i++) stats[i] = 0;
  int rc = mi_query_run(q, qb, qsize, -1, &qcount, stats, UID);
  FZ_TRACE("query %s: %d, %d records of %d\n", names[d], rc, (int)qcount, (int)qrec);
  FZ_CHECK(rc == 0 || (rc >= 1 && rc <= n) || mi_status_name(rc) != NULL, "mi_query_run: status %d", rc);
  for (int i = 0; i < n; i++) fz_check_item_status(stats[i], "mi_query_run", i);
  fz_canary_check(qb, (size_t)qsize, "mi_query_run buffer");
  if (rc == 0) FZ_CHECK(qcount >= 0 && (int64_t)qcount * qrec <= qsize, "mi_query_run: %d records of %d in %d", (int)qcount, (int)qrec, (int)qsize);
  free(qb);
  mi_query_free(q);
}

/* MIREADACTIVE over processes and LDEVs, LIST then CHANGED, following the context a few times. */
static void read_active(mi_session *s, fz_in *in) {
  for (int k = 0; k < 2; k++) {
    int type = k ? MI_SEL_LDEV : MI_SEL_PROCESS;
    const int32_t *src = k ? items_io : items_p;
    int32_t nums[24], stats[24], n = 0;
    while (src[n] && n < 8) { nums[n] = src[n]; n++; }
    nums[n] = 0;
    mi_entity_desc desc;
    mi_sel_init(&desc, type);
    int mode = fz_u8(in) % 3 ? MI_RA_LIST : MI_RA_CHANGED;
    int64_t rec = fz_record_bytes(nums, n, k ? MI_DOM_IO : MI_DOM_PROCESS, 1);
    int32_t size = (int32_t)(rec * 4);
    uint8_t *buf = fz_alloc((size_t)size);
    longint_type ctx;
    mi_longint_set(&ctx, 0);
    for (int round = 0; round < 4; round++) {
      status_type st;
      int32_t recs = -1, flags[8];
      for (int i = 0; i < n; i++) stats[i] = 0;
      int use_desc = fz_u8(in) & 1, ndesc = fz_u8(in) & 1;
      mi_readactive(s, &st, nums, buf, stats, size, 1, type, mode, use_desc ? &desc : NULL, ndesc, &recs, flags, &ctx, UID);
      FZ_TRACE("MIREADACTIVE %s mode %d: %d, %d records\n", k ? "ldev" : "process", mode, st.s.info, (int)recs);
      check_get("MIREADACTIVE", st, stats, n, buf, size, rec, recs);
      if (st.all != 0 || (ctx.left == 0 && ctx.right == 0)) break;
    }
    free(buf);
  }
}

/* Copies the words of src that differ into dst (n a multiple of 8): in.store keeps its pages
 * between inputs, and an input and its reader change a few of them; reading is cheaper than
 * writing, and this loop needs no coverage or sanitizer checks (both are the harness's memory). */
__attribute__((no_sanitize("address", "undefined", "coverage")))
static void copy_changed(void *dst, const void *src, size_t n) {
  uint64_t *d = dst;
  const uint64_t *s = src;
  for (size_t i = 0; i < n / 8; i++) if (d[i] != s[i]) d[i] = s[i];
}

/* Makes in.store the template again: what the last input changed. */
NOCOV static void restore(void) {
  if (all_dirty) copy_changed(in_map, tmpl, tmpl_size);
  else for (int i = 0; i < ndirty; i++) memcpy(in_map + dirty[i].off, tmpl + dirty[i].off, dirty[i].len);
  ndirty = all_dirty = 0;
}

/* Writes the first n bytes of the patched store to cut.store (an input that cuts or grows the
 * file; in.store keeps the template's size so its pages stay). */
static const char *write_cut(size_t n) {
  int fd = open(cut_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  FZ_CHECK(fd >= 0, "cannot make %s", cut_path);
  size_t have = n < tmpl_size ? n : tmpl_size;
  FZ_CHECK(pwrite(fd, in_map, have, 0) == (ssize_t)have && ftruncate(fd, (off_t)n) == 0, "cannot write %s", cut_path);
  close(fd);
  return cut_path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  FZ_CHECK(tmpl_size % 8 == 0, "template of %zu bytes", tmpl_size);
  restore();   /* the copy starts as the template */
  size_t want = patch(&in);
  const char *path = want == tmpl_size ? in_path : write_cut(want);
  int err = 12345;
  int rw = in_flags >> 2 & 1;
  if (rw) all_dirty = 1;   /* before the attach: it may write, and a failed check aborts */
  mi_system *sys = mi_system_attach_with(path, &(mi_attach_options){.registry = reg_path, .write = rw}, &err);
  FZ_TRACE("attach: %s, err %d\n", sys ? "attached" : "refused", err);
  if (!sys) {
    FZ_CHECK(err != 0 && mi_status_name(err) != NULL && err <= -32001 && err >= -32099,
             "a refused attach says %d, not a store code", err);
    return 0;
  }
  FZ_CHECK(err == 0, "an attach that worked set err %d", err);
  FZ_CHECK(mi_system_attached(sys), "mi_system_attached is 0 for an attached system");
  FZ_CHECK(mi_system_readonly(sys) == !rw, "mi_system_readonly is %d for a %s attach", mi_system_readonly(sys), rw ? "read-write" : "read-only");
  mi_session *s = mi_session_new(sys);
  FZ_CHECK(s != NULL, "no session");
  mi_session_set_priv(s, 1);
  status_type st;
  mi_accesson(s, &st, UID);
  fz_check_overall(st, 0, "AIFACCESSON");
  longint_type ticks, micro;
  clock_type clk;
  mi_time(s, &st, &ticks, &micro, &clk, NULL, NULL, UID);
  fz_check_overall(st, 0, "AIFTIME");
  int32_t cnums[] = {3001, 3002, 3004, 3036, 3042, 3043, 0}, cstats[8];
  union { int32_t i[4]; int64_t align; } cvals[6];
  void *citems[6];
  for (int i = 0; i < 6; i++) citems[i] = &cvals[i];
  mi_scget(s, &st, cnums, citems, cstats, UID);
  fz_check_overall(st, 6, "AIFSCGET");
  for (int d = 0; d < MI_DOM_COUNT; d++) read_domain(s, d, &in);
  read_active(s, &in);
  mi_globoff(s, &st, UID);
  fz_check_overall(st, 0, "MIGLOBOFF");
  mi_procoff(s, &st, NULL, UID);
  fz_check_overall(st, 0, "MIPROCOFF");
  mi_iooff(s, &st, NULL, UID);
  fz_check_overall(st, 0, "MIIOOFF");
  mi_session_free(s);
  mi_system_free(sys);
  return 0;
}
