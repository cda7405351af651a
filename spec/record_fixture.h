/* record_fixture.h — what the recording tests and the record harness's seed writer share
 * (spec/test_record.c, spec/fuzz/fuzz_record_seeds.c): the user-defined counters they record
 * (every kind, 0-6 installed before a recording, 7 and 8 while it records), reading a file
 * whole, finding a header frame, spoiling a header's counter table with its frame made whole
 * again, and finding the index records and making a span mark lie about the steps back (p39). */
#ifndef RECORD_FIXTURE_H
#define RECORD_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mi_userdef.h"
#include "recfile/format.h"
static const mi_udef_desc ud_desc[9] = {
  {"orders_placed", MI_UDEF_ACCUM, "orders", "orders the shop took", 0, 1},
  {"proc_orders", MI_UDEF_ACCUM, NULL, "orders a process took", 1, 1},
  {"bytes_total", MI_UDEF_FACCUM, "bytes", "bytes shipped", 0, 1},
  {"server_busy", MI_UDEF_BUSY, NULL, "time the server was busy", 0, 1},
  {"work_queue", MI_UDEF_QUEUE, NULL, "work list length, time-weighted", 0, 1},
  {"disk_qbusy", MI_UDEF_QBUSY, NULL, NULL, 0, 1},
  {"size_buckets", MI_UDEF_ACCUM, NULL, "orders by size", 0, 4},
  {"late_events", MI_UDEF_ACCUM, NULL, "installed while recording", 0, 1},
  {"late_busy", MI_UDEF_BUSY, NULL, "per-process busy, installed while recording", 1, 1},
};

/* Reads a whole file into *b (malloc'd); its size, or -1. */
static inline long rec_slurp(const char *path, uint8_t **b) {
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

/* The offset of the which-th (0-based) header frame of b, or -1. */
static inline long rec_header(const uint8_t *b, long n, int which) {
  for (long off = 0; off + MIR_MIN <= n;) {
    uint32_t len = mir_get32(b + off + 4);
    if (len < MIR_MIN || off + len > n) return -1;
    if (mir_get16(b + off + 8) == MIR_T_HEADER && which-- == 0) return off;
    off += len;
  }
  return -1;
}

/* A copy of recording b (n bytes) with the table entry of counter 29000 (a global ACCUM) in the
 * which-th header changed: cut = 1 cuts the frame right after the entry's number, else its kind
 * becomes kind. The frame's lengths and CRC are made whole again, so only the payload is wrong.
 * Returns the copy (malloc'd, *on its size) or NULL (no such header or entry). */
static inline uint8_t *rec_doctor(const uint8_t *b, long n, int which, int cut, int kind, long *on) {
  long h = rec_header(b, n, which);
  if (h < 0) return NULL;
  uint32_t len = mir_get32(b + h + 4);
  static const uint8_t entry[] = {0xC8, 0xE2, 0x01, 0x00, 0x01};   /* item 29000, domain 0, kind 1 */
  long at = -1;
  for (long i = h + MIR_HEAD; i + 5 <= h + len - MIR_TAIL && at < 0; i++) if (memcmp(b + i, entry, 5) == 0) at = i;
  if (at < 0) return NULL;
  uint8_t *o = malloc((size_t)n + 16);
  if (!o) return NULL;
  memcpy(o, b, (size_t)h);
  long k = h, plen = cut ? at + 3 - h : (long)len - MIR_TAIL;
  memcpy(o + k, b + h, (size_t)plen);
  if (!cut) o[k + (at - h) + 4] = (uint8_t)kind;
  uint32_t nl = (uint32_t)plen + MIR_TAIL;
  mir_put32(o + k + 4, nl);
  mir_put32(o + k + plen, mir_crc32c(0, o + k, (size_t)plen));
  mir_put32(o + k + plen + 4, nl);
  k += nl;
  memcpy(o + k, b + h + len, (size_t)(n - h - len));
  *on = k + n - h - len;
  return o;
}
/* The offsets of the index records of b (n bytes, whole frames from 0): up to max of them; how many. */
static inline int rec_indexes(const uint8_t *b, long n, long *at, int max) {
  int k = 0;
  for (long off = 0; off + MIR_MIN <= n;) {
    uint32_t len = mir_get32(b + off + 4);
    if (len < MIR_MIN || off + len > n) break;
    if (mir_get16(b + off + 8) == MIR_T_INDEX && k < max) at[k++] = off;
    off += len;
  }
  return k;
}
/* Sets the steps back of the span mark of the index frame at off in b to steps (below 128, as the
 * one there: the frame keeps its length), its CRC made whole again; 0, or -1 if it has no such mark. */
static inline int rec_mark_steps(uint8_t *b, long off, uint64_t steps) {
  uint32_t len = mir_get32(b + off + 4);
  mir_cur c = {b + off + MIR_HEAD, b + off + len - MIR_TAIL, 1};
  mir_getb(&c, 8);
  uint64_t n = mir_getv(&c);
  for (uint64_t j = 0; j < n && c.ok; j++) { mir_getv(&c); mir_getv(&c); }
  for (int f = 0; f < 5; f++) mir_getv(&c);   /* its offset, count, earliest, latest, last */
  const uint8_t *at = c.p;
  uint64_t was = mir_getv(&c);
  if (!c.ok || was >= 0x80 || steps >= 0x80) return -1;
  mir_putv(b + (at - b), steps);
  mir_put32(b + off + len - MIR_TAIL, mir_crc32c(0, b + off, len - MIR_TAIL));
  return 0;
}
#endif
