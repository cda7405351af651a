/* fuzz_record_seeds.c — writes the version-2 seeds of the record harness (#14.2): a small recording
 * with user-defined counters of every kind, two installed while it records (a continued header),
 * as corpus/record/udef_clean (mode byte 0) and udef_crcfix (1: the harness recomputes CRCs), and
 * regress/record/ inputs whose counter table is cut short, holds a bad kind, or whose continued
 * header does. Not built by make; from the worktree root, after make:
 *   cc -std=c11 -D_GNU_SOURCE -Icore spec/fuzz/fuzz_record_seeds.c core/libmi.a -lm -pthread -o /tmp/seeds && /tmp/seeds */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi.h"
#include "mi_host.h"
#include "mi_userdef.h"
#include "mi_record.h"
#include "record/format.h"
#include "../record_udef_desc.h"
/* Reads a whole file into *b; its size, or -1. */
static long slurp(const char *path, uint8_t **b) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *b = malloc((size_t)n + 1);
  if (fread(*b, 1, (size_t)n, f) != (size_t)n) n = -1;
  fclose(f);
  return n;
}
/* Writes the mode byte and n bytes to path. */
static void spill(const char *path, int mode, const uint8_t *b, long n) {
  FILE *f = fopen(path, "wb");
  fputc(mode, f);
  fwrite(b, 1, (size_t)n, f);
  fclose(f);
  printf("%s %ld\n", path, n + 1);
}
/* The offset of the which-th (0-based) header frame, or -1. */
static long header(const uint8_t *b, long n, int which) {
  for (long off = 0; off + MIR_MIN <= n;) {
    uint32_t len = mir_get32(b + off + 4);
    if (len < MIR_MIN || off + len > n) return -1;
    if (mir_get16(b + off + 8) == MIR_T_HEADER && which-- == 0) return off;
    off += len;
  }
  return -1;
}
/* Writes b with the table entry of counter 29000 in the which-th header cut after its number
 * (cut) or given kind, the frame's lengths and CRC whole again. */
static void doctor(const uint8_t *b, long n, const char *dst, int which, int cut, int kind) {
  long h = header(b, n, which);
  uint32_t len = mir_get32(b + h + 4);
  static const uint8_t entry[] = {0xC8, 0xE2, 0x01, 0x00, 0x01};
  long at = -1;
  for (long i = h + MIR_HEAD; i + 5 <= h + len - MIR_TAIL && at < 0; i++) if (memcmp(b + i, entry, 5) == 0) at = i;
  if (at < 0) { puts("no entry"); return; }
  uint8_t *o = malloc(n + 16); long k = h; memcpy(o, b, h);
  long plen = cut ? at + 3 - h : (long)len - MIR_TAIL;
  memcpy(o + k, b + h, plen);
  if (!cut) o[k + (at - h) + 4] = (uint8_t)kind;
  uint32_t nl = plen + MIR_TAIL;
  mir_put32(o + k + 4, nl); mir_put32(o + k + plen, mir_crc32c(0, o + k, plen)); mir_put32(o + k + plen + 4, nl);
  k += nl; memcpy(o + k, b + h + len, n - h - len); k += n - h - len;
  spill(dst, 1, o, k); free(o);
}
int main(void) {
  const char *path = "/tmp/mish_record_seed.mir";
  unlink(path);
  mi_system *w = mi_system_new(&(mi_system_options){.boot_ticks = (int64_t)1700000000 * 1000 * 8000});
  mi_udef u[9];
  for (int k = 0; k < 5; k++) mi_udef_install(w, &ud_desc[k], &u[k]);
  int slot = mi_host_proc_create(w, &(mi_proc_desc){.pid = 500, .program = "SHOP", .user = "MGR", .account = "SHOP", .js_type = 1, .js_num = 20, .proc_type = MI_PT_USER});
  int32_t items[] = {21177, MI_REC_USERDEF_ALL};
  char err[200];
  mi_recorder *rc = mi_recorder_open(w, path, items, 2, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = 100, .machine = "seed", .mish_version = "s"}, err, sizeof err);
  if (!rc) { puts(err); return 1; }
  for (int i = 1; i <= 4; i++) {
    if (i == 3) { mi_udef_install(w, &ud_desc[7], &u[7]); mi_udef_install(w, &ud_desc[8], &u[8]); }
    mi_udef_add(w, u[0], 0, i); mi_udef_add(w, u[1], slot, 2 * i); mi_udef_add(w, u[2], 0, 1ll << 35);
    mi_udef_set(w, u[3], 0, i % 2); mi_udef_set(w, u[4], 0, i);
    if (i >= 3) { mi_udef_add(w, u[7], 0, i); mi_udef_set(w, u[8], slot, 1); }
    mi_host_advance(w, 1000 * 8000);
    mi_recorder_sample(rc);
  }
  mi_recorder_close(rc);
  mi_system_free(w);
  uint8_t *b; long n = slurp(path, &b);
  spill("spec/fuzz/corpus/record/udef_clean", 0, b, n);
  spill("spec/fuzz/corpus/record/udef_crcfix", 1, b, n);
  doctor(b, n, "spec/fuzz/regress/record/udef_table_cut", 0, 1, 0);
  doctor(b, n, "spec/fuzz/regress/record/udef_bad_kind", 0, 0, 9);
  doctor(b, n, "spec/fuzz/regress/record/udef_continued_bad", 1, 0, 7);
  return 0;
}
