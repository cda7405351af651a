/* fuzz_record_seeds.c — writes the version-2 seeds of the record harness (#14.2): a small recording
 * with user-defined counters of every kind, two installed while it records (a continued header),
 * as corpus/record/udef_clean (mode byte 0) and udef_crcfix (1: the harness recomputes CRCs), and
 * regress/record/ inputs whose counter table is cut short, holds a bad kind, or whose continued
 * header does; and (p39) span marks: a recording whose clock is set back between two segments,
 * with many index records, as corpus/record/span_marks, and the same whose last mark hides the
 * step, as corpus/record/span_lie (mode 1). Not built by make; from the worktree root, after make:
 *   cc -std=c11 -D_GNU_SOURCE -Icore spec/fuzz/fuzz_record_seeds.c core/libmi.a -lm -pthread -o /tmp/seeds && /tmp/seeds */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi.h"
#include "mi_host.h"
#include "mi_userdef.h"
#include "mi_record.h"
#include "recfile/format.h"
#include "../record_fixture.h"
/* Writes the mode byte and n bytes to path. */
static void spill(const char *path, int mode, const uint8_t *b, long n) {
  FILE *f = fopen(path, "wb");
  fputc(mode, f);
  fwrite(b, 1, (size_t)n, f);
  fclose(f);
  printf("%s %ld\n", path, n + 1);
}
/* Writes b with its counter table spoiled as rec_doctor says, behind mode byte 1. */
static void doctor(const uint8_t *b, long n, const char *dst, int which, int cut, int kind) {
  long on = 0;
  uint8_t *o = rec_doctor(b, n, which, cut, kind, &on);
  if (!o) { puts("no entry"); return; }
  spill(dst, 1, o, on);
  free(o);
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
  uint8_t *b; long n = rec_slurp(path, &b);
  spill("spec/fuzz/corpus/record/udef_clean", 0, b, n);
  spill("spec/fuzz/corpus/record/udef_crcfix", 1, b, n);
  doctor(b, n, "spec/fuzz/regress/record/udef_table_cut", 0, 1, 0);
  doctor(b, n, "spec/fuzz/regress/record/udef_bad_kind", 0, 0, 9);
  doctor(b, n, "spec/fuzz/regress/record/udef_continued_bad", 1, 0, 7);
  free(b);
  /* span marks: two segments, the second's clock an hour earlier; keys every 2, an index every 2 keys */
  unlink(path);
  for (int seg = 0; seg < 2; seg++) {
    mi_system *s2 = mi_system_new(&(mi_system_options){.boot_ticks = (int64_t)(1700003600 - 3600 * seg) * 1000 * 8000});
    int32_t one[] = {21177};
    mi_recorder *r2 = mi_recorder_open(s2, path, one, 1, &(mi_rec_options){.fsync = MI_REC_FSYNC_NONE, .key_every = 2, .index_every = 2,
                                       .machine = "seed", .mish_version = "s"}, err, sizeof err);
    if (!r2) { puts(err); return 1; }
    for (int i = 0; i < 6; i++) { mi_host_advance(s2, 1000 * 8000); mi_recorder_sample(r2); }
    mi_recorder_close(r2);
    mi_system_free(s2);
  }
  n = rec_slurp(path, &b);
  spill("spec/fuzz/corpus/record/span_marks", 0, b, n);
  long idx[64];
  int ni = rec_indexes(b, n, idx, 64);
  if (ni < 1 || rec_mark_steps(b, idx[ni - 1], 0) < 0) { puts("no span mark"); return 1; }
  spill("spec/fuzz/corpus/record/span_lie", 1, b, n);
  free(b);
  unlink(path);
  return 0;
}
