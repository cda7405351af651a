/* fuzz_record.c — the recording reader (#13, core/RECORDING.md) and the replay source: the
 * fuzz input is a recording file. Input byte 0 chooses the mode: even = the bytes as they are,
 * odd = the frames' CRCs recomputed first (walking the frames by their length fields), so
 * inputs reach the payload parsers past the checksum. Checks: no crash or sanitizer report;
 * events lie inside the file and in order; present entities are ascending and in range; a
 * verify counts no more samples than frames; seeking and a replay run to the end; a table of
 * user-defined counters (format version 2) is numbered in order and every recorded counter is in it. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "mi_record.h"
#include "mi_source.h"
#include "recfile/format.h"

static char path[300];

/* ---- the reader's file mappings, read into the heap ----
 * The reader maps a recording (mmap PROT_READ, MAP_PRIVATE) and unmaps it when closed, twice per
 * input (the harness's reader and the replay's). An munmap flushes the TLB of every thread
 * (libFuzzer runs two): with the page faults of the mapping, 10% of an input (session 36, perf).
 * Linked with -Wl,--wrap=mmap,--wrap=munmap (Makefile, this harness only), such a read-only
 * private file mapping is the file's bytes read into a block of exactly its size: the reader sees
 * the same bytes, and ASan now reports a read past the file's end, which a mapping's zero-filled
 * last page let pass. Every other mapping (the store's segments) goes to the real calls. */
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);
#define HEAPMAPS 4
static void *heapmap[HEAPMAPS];

/* mmap: a read-only private mapping of a file at offset 0 is read into the heap; others are real. */
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  int k = 0;
  while (k < HEAPMAPS && heapmap[k]) k++;
  if (addr || prot != PROT_READ || flags != MAP_PRIVATE || fd < 0 || off != 0 || len == 0 || k == HEAPMAPS)
    return __real_mmap(addr, len, prot, flags, fd, off);
  uint8_t *b = malloc(len);
  if (!b) return MAP_FAILED;
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, b + got, len - got, (off_t)got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  if (got < len) { free(b); errno = EIO; return MAP_FAILED; }
  heapmap[k] = b;
  return b;
}

/* munmap: frees a block __wrap_mmap read; other addresses go to the real call. */
int __wrap_munmap(void *addr, size_t len) {
  for (int k = 0; k < HEAPMAPS; k++)
    if (addr && heapmap[k] == addr) { free(addr); heapmap[k] = NULL; return 0; }
  return __real_munmap(addr, len);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  snprintf(path, sizeof path, "%s/in.mir", fz_scratch_dir("rec"));
  return 0;
}

/* Recomputes the CRC of every frame whose length field fits. */
static void fix_crcs(uint8_t *b, size_t n) {
  size_t off = 0;
  while (off + MIR_MIN <= n) {
    uint32_t len = mir_get32(b + off + 4);
    if (len < MIR_MIN || len > n - off) break;
    mir_put32(b + off + len - 4, len);
    mir_put32(b + off + len - 8, mir_crc32c(0, b + off, len - 8));
    off += len;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t *b = malloc(size);
  memcpy(b, data + 1, size - 1);
  if (data[0] & 1) fix_crcs(b, size - 1);
  FILE *f = fopen(path, "wb");
  if (!f) { free(b); return 0; }
  fwrite(b, 1, size - 1, f);
  fclose(f);
  free(b);
  int64_t fsize = (int64_t)size - 1;
  mi_rec_reader *r = mi_rec_open(path, NULL, 0);
  if (r) {
    mi_rec_event ev;
    int64_t last = -1, frames = 0;
    for (int i = 0; i < 100000 && mi_rec_next(r, &ev) != MI_REV_END; i++) {
      frames++;
      FZ_CHECK(ev.offset >= 0 && ev.bytes > 0 && ev.offset + ev.bytes <= fsize, "event outside the file");
      FZ_CHECK(ev.offset > last, "events go forward");
      last = ev.offset;
      const mi_rec_udef *tab;
      int nu = mi_rec_udefs(r, &tab);
      FZ_CHECK(nu >= 0 && nu <= MI_UDEF_MAX, "a counter table of at most 256");
      for (int k = 0; k < nu; k++)
        FZ_CHECK(tab[k].item.item == MI_UDEF_FIRST + k && tab[k].name[0] && tab[k].words >= 1, "table entries numbered in order, named");
      for (int d = 0; d < MI_DOM_COUNT; d++) {
        const int32_t *keys;
        const mi_rec_item *its;
        int n = mi_rec_present(r, d, &keys), ni = mi_rec_layout(r, d, &its, NULL);
        for (int k = 0; k < n; k++) {
          FZ_CHECK(keys[k] >= 0 && (k == 0 || keys[k] > keys[k - 1]), "present keys ascending");
          const int64_t *row = mi_rec_row(r, d, keys[k]);
          FZ_CHECK(row != NULL, "a present entity has a row");
          for (int c = 0; row && c < ni; c++)   /* a recorded user-defined counter: in the table, read as a GET would */
            if ((uint32_t)its[c].item - MI_UDEF_FIRST < MI_UDEF_MAX && r && mi_rec_info_get(r)->version >= 2) {
              FZ_CHECK(its[c].it != NULL && its[c].item - MI_UDEF_FIRST < nu, "a recorded counter is in the table");
              (void)mi_rec_udef_value(r, its[c].item, row + its[c].at, 0);
            }
        }
      }
    }
    mi_rec_health h;
    mi_rec_verify(r, &h);
    FZ_CHECK(h.samples <= frames, "no more samples than records");
    const mi_rec_info *in = mi_rec_info_get(r);
    mi_rec_seek(r, in->first_time / 2 + in->last_time / 2);   /* the middle, without overflow for any two times a file may claim */
    for (int i = 0; i < 1000 && mi_rec_next(r, &ev) != MI_REV_END; i++) {}
    mi_rec_close(r);
    mi_system *sys = mi_system_open("replay:" , NULL, NULL, NULL, 0);
    FZ_CHECK(sys == NULL, "a replay needs a path");
    char spec[400];
    snprintf(spec, sizeof spec, "replay:%s", path);
    sys = mi_system_open(spec, NULL, NULL, NULL, 0);
    if (sys) {
      mi_session *s = mi_session_new(sys);
      mi_session_set_priv(s, 1);
      status_type st;
      int32_t items[] = {21176, 21177, 21164, 29000, 29001, 0}, stats[6], map = 1;
      mi_globinstall(s, &st, 666);
      mi_accesson(s, &st, 666);
      mi_globon(s, &st, items, stats, &map, 0);
      for (int i = 0; i < 50 && mi_replay_step(sys, 1000) == 1; i++) {
        int32_t buf[8 + 2 * MI_UDEF_MAX_ELEMENTS];   /* a recorded counter 29000/29001 may be an array */
        mi_globget(s, &st, items, buf, stats, sizeof buf, 1, 0);
      }
      mi_session_free(s);
      mi_system_free(sys);
    }
  }
  return 0;
}
