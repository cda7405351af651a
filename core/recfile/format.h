/* format.h — the recording file's framing shared by the writer (writer.c) and the reader
 * (reader.c): record types, the frame layout, little-endian helpers, varints, CRC-32C.
 * core/RECORDING.md is the specification; this header is its code. Not installed. */
#ifndef MI_RECORD_FORMAT_H
#define MI_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MIR_SYNC 0x3152494Du        /* "MIR1" little-endian: every frame begins with it */
#define MIR_MAGIC "MISHREC"         /* the header record's payload begins with it (8 bytes, NUL) */
#define MIR_VERSION 2               /* format version this code writes (reads 1..MIR_VERSION); 2: user-defined counters */
#define MIR_ORDER 0x0102            /* written little-endian: reads 02 01 */
#define MIR_HEAD 32                 /* sync, length, type, flags, seq, time */
#define MIR_TAIL 8                  /* crc32c, length again */
#define MIR_MIN (MIR_HEAD + MIR_TAIL)
#define MIR_MAX_RECORD (256u << 20) /* a frame longer than this is not believed */
#define MIR_HF_CONTINUED 1u         /* header flag (version 2): the recording goes on, only its layout grew */

enum {
  MIR_T_HEADER = 1,   /* a segment begins: layout, machine, configuration */
  MIR_T_ENTITY = 2,   /* births and deaths of processes, LDEVs appearing or changing, CPUs */
  MIR_T_CONFIG = 3,   /* configuration items that changed (a PUT) */
  MIR_T_MARK = 4,     /* restart, gap, torn tail truncated, clean end */
  MIR_T_SAMPLE = 5,   /* cells as deltas from the previous sample */
  MIR_T_KEY = 6,      /* a sample that stands alone: every entity and absolute cells */
  MIR_T_INDEX = 7,    /* (time, offset) of the keys since the previous index */
};

/* Stores v little-endian. */
static inline void mir_put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline void mir_put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline void mir_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
/* Loads a little-endian value. */
static inline uint32_t mir_get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t mir_get64(const uint8_t *p) { return (uint64_t)mir_get32(p) | (uint64_t)mir_get32(p + 4) << 32; }
static inline uint16_t mir_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* zigzag: small magnitudes of either sign become small unsigned numbers. */
static inline uint64_t mir_zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t mir_unzz(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

/* Writes v as a LEB128 varint at p (at most 10 bytes); returns the bytes written. */
static inline size_t mir_putv(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) { p[n++] = (uint8_t)(v | 0x80); v >>= 7; }
  p[n++] = (uint8_t)v;
  return n;
}

/* A bounded cursor over a payload: reads fail (ok = 0) instead of running past the end. */
typedef struct mir_cur { const uint8_t *p, *end; int ok; } mir_cur;
/* Reads a varint; 0 and ok = 0 past the end or beyond 64 bits. */
static inline uint64_t mir_getv(mir_cur *c) {
  uint64_t v = 0;
  for (int s = 0; s < 64; s += 7) {
    if (c->p >= c->end) { c->ok = 0; return 0; }
    uint8_t b = *c->p++;
    if (s == 63 && b > 1) { c->ok = 0; return 0; }
    v |= (uint64_t)(b & 0x7F) << s;
    if (!(b & 0x80)) return v;
  }
  c->ok = 0;
  return 0;
}
/* Reads n raw bytes (NULL and ok = 0 if there are fewer). */
static inline const uint8_t *mir_getb(mir_cur *c, size_t n) {
  if ((size_t)(c->end - c->p) < n) { c->ok = 0; return NULL; }
  const uint8_t *r = c->p;
  c->p += n;
  return r;
}

struct mi_rec_reader;
/* The offset of the last index record a reader went past (-1 if none): for the writer's append. */
int64_t mir_last_index(const struct mi_rec_reader *r);
/* The sequence number after the last whole record read (indexes too, which are not events). */
uint64_t mir_next_seq(const struct mi_rec_reader *r);

/* The span of the samples before a point of the file: every whole sample and key frame's time
 * (count of them, earliest, latest, the last one's, and how many were earlier than the one before).
 * An index record carries this for the file before it (the span mark, core/RECORDING.md). */
typedef struct mir_span { int64_t count, first, last, prev, steps; } mir_span;
#define MIR_SPAN_NONE ((mir_span){0, -1, -1, -1, 0})
/* Counts a sample at time t in s (a step back when earlier than the one before). */
static inline void mir_span_add(mir_span *s, int64_t t) {
  if (!s->count || t < s->first) s->first = t;
  if (!s->count || t > s->last) s->last = t;
  if (s->count && t < s->prev) s->steps++;
  s->prev = t;
  s->count++;
}
/* The span of the whole file, every frame checked (what a reader without a span mark computes). */
void mir_span_full(const struct mi_rec_reader *r, mir_span *s);

/* CRC-32C (Castagnoli) of n bytes, continuing crc (start with 0). */
uint32_t mir_crc32c(uint32_t crc, const void *data, size_t n);

#endif
