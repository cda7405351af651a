/* reader.c — reads a recording (core/RECORDING.md) record by record from a read-only mapping:
 * checks every frame (sync word, both lengths, CRC-32C), reports a torn tail and skips damaged
 * regions (resynchronising on the next whole frame, samples resuming at the next key), keeps the
 * recorded state (layout, processes, devices, configuration, cells) and seeks through the index. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "mi_record.h"
#include "format.h"

#define NCFG 46
#define MAX_RW 65536              /* words per entity a layout may have */
#define MAX_CELLS (16 << 20)      /* cells of a domain's entities together (128 MB) */

static const int MAXENT[MI_DOM_COUNT] = {1, MI_MAX_PROCESSES, MI_MAX_LDEV + 1, MI_MAX_PROCESSORS};

struct mi_rec_reader {
  const uint8_t *data;
  size_t size;
  int64_t pos, vend, jump;
  mi_rec_info info;
  int nit[MI_DOM_COUNT], rw[MI_DOM_COUNT];
  mi_rec_item *it[MI_DOM_COUNT];
  int64_t *val[MI_DOM_COUNT];
  int32_t *pres[MI_DOM_COUNT];
  int npres[MI_DOM_COUNT];
  mi_rec_proc procs[MI_MAX_PROCESSES];
  uint8_t dev[MI_MAX_LDEV + 1];
  int ncpu;
  uint8_t cfg[NCFG][12];
  int cfgsize[NCFG];
  mi_rec_udef udef[MI_UDEF_MAX];   /* the segment's user-defined counters (version 2) */
  int nudef;
  uint32_t proc_seen;                /* identities read so far (mi_rec_proc.seen) */
  const char *why;                 /* what the last header that did not parse lacked */
  int have_layout, synced, seq_known;
  uint64_t next_seq;
  int64_t last_index, gaps;
  int64_t prev_sample;             /* the time of the sample read last, if have_prev (not since the start or a seek) */
  int have_prev;
  int64_t peek_at, peek_time;      /* the last mi_rec_peek: at pos peek_at (-1: none) it said peek_type, peek_time */
  int peek_type;
  mir_span run;                    /* the whole sample frames read since the start, if run_ok (a pass from offset 0) */
  int run_ok, run_damaged;         /* run_damaged: damage or a gap met in that pass (marks may count lost samples) */
  int64_t span_n;                  /* samples the span (info) was found from: 0 if none */
  int64_t bad_marks;               /* span marks of the pass that cannot be true or disagree with the samples */
  char text[1024];
};

/* ---- CRC-32C, slicing by 8 ---- */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
/* Fills the tables of the reflected Castagnoli polynomial. */
static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    crc_tab[0][i] = c;
  }
  for (int t = 1; t < 8; t++)
    for (int i = 0; i < 256; i++) crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xFF];
}

/* The tables' CRC of n bytes at p, crc the running (inverted) value. */
static uint32_t crc_table(uint32_t crc, const uint8_t *p, size_t n) {
  while (n >= 8) {
    uint32_t lo = mir_get32(p) ^ crc, hi = mir_get32(p + 4);
    crc = crc_tab[7][lo & 0xFF] ^ crc_tab[6][(lo >> 8) & 0xFF] ^ crc_tab[5][(lo >> 16) & 0xFF] ^ crc_tab[4][lo >> 24] ^
          crc_tab[3][hi & 0xFF] ^ crc_tab[2][(hi >> 8) & 0xFF] ^ crc_tab[1][(hi >> 16) & 0xFF] ^ crc_tab[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xFF];
  return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with the CPU's CRC32 instruction (SSE4.2 computes exactly CRC-32C, reflected; x86 reads
 * little-endian as mir_get32 does). */
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = (uint32_t)c;
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
static int crc_hw;   /* the CPU has SSE4.2 (set once, with the tables) */
/* Fills the tables and looks for the instruction. */
static void crc_init_all(void) { crc_init(); crc_hw = __builtin_cpu_supports("sse4.2"); }
#else
static void crc_init_all(void) { crc_init(); }
#endif

uint32_t mir_crc32c(uint32_t crc, const void *data, size_t n) {
  pthread_once(&crc_once, crc_init_all);
#if defined(__x86_64__) && defined(__GNUC__)
  if (crc_hw) return ~crc_sse42(~crc, data, n);
#endif
  return ~crc_table(~crc, data, n);
}

int64_t mir_last_index(const struct mi_rec_reader *r) { return r ? r->last_index : -1; }
uint64_t mir_next_seq(const struct mi_rec_reader *r) { return r ? r->next_seq : 0; }

/* ---- frames ---- */
/* The length of a frame at off whose sync word and both lengths agree (CRC not checked), else 0. */
static int64_t frame_shape(const mi_rec_reader *r, int64_t off) {
  if (off < 0 || (uint64_t)off + MIR_MIN > r->size) return 0;
  const uint8_t *p = r->data + off;
  if (mir_get32(p) != MIR_SYNC) return 0;
  uint32_t len = mir_get32(p + 4);
  if (len < MIR_MIN || len > MIR_MAX_RECORD || (uint64_t)off + len > r->size) return 0;
  if (mir_get32(p + len - 4) != len) return 0;
  return len;
}
/* The length of a whole frame at off (shape and CRC), else 0. */
static int64_t frame_ok(const mi_rec_reader *r, int64_t off) {
  int64_t len = frame_shape(r, off);
  if (!len) return 0;
  const uint8_t *p = r->data + off;
  return mir_crc32c(0, p, (size_t)len - MIR_TAIL) == mir_get32(p + len - MIR_TAIL) ? len : 0;
}
/* The offset of the next whole frame at or after off, or -1. */
static int64_t find_next(const mi_rec_reader *r, int64_t off) {
  while (off >= 0 && (uint64_t)off + MIR_MIN <= r->size) {
    const uint8_t *m = memchr(r->data + off, 'M', r->size - (size_t)off);
    if (!m) return -1;
    off = m - r->data;
    if (frame_ok(r, off)) return off;
    off++;
  }
  return -1;
}
/* The start of the whole frame that ends at end, or -1. */
static int64_t prev_frame(const mi_rec_reader *r, int64_t end) {
  if (end < MIR_MIN || (uint64_t)end > r->size) return -1;
  uint32_t len = mir_get32(r->data + end - 4);
  if (len < MIR_MIN || len > (uint64_t)end) return -1;
  return frame_ok(r, end - len) == len ? end - len : -1;
}
static int ftype(const mi_rec_reader *r, int64_t off) { return mir_get16(r->data + off + 8); }
static int64_t ftime(const mi_rec_reader *r, int64_t off) { return (int64_t)mir_get64(r->data + off + 20); }

/* ---- state ---- */
/* Forgets the layout and the cells (a continued segment keeps the processes, devices and CPUs). */
static void reset_layout(mi_rec_reader *r) {
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    free(r->it[d]); free(r->val[d]); free(r->pres[d]);
    r->it[d] = NULL; r->val[d] = NULL; r->pres[d] = NULL;
    r->nit[d] = r->rw[d] = r->npres[d] = 0;
  }
  r->nudef = 0;
  r->info.udef_count = 0;
  r->have_layout = r->synced = 0;
}
/* Forgets the layout and everything recorded (a new segment or a seek). */
static void reset_state(mi_rec_reader *r) {
  reset_layout(r);
  memset(r->procs, 0, sizeof r->procs);
  memset(r->dev, 0, sizeof r->dev);
  r->ncpu = 0;
}

/* Reads a length-prefixed string into dst (cut to n-1); 0 or -1. */
static int get_str(mir_cur *c, char *dst, size_t n) {
  uint64_t l = mir_getv(c);
  const uint8_t *p = c->ok && l < 65536 ? mir_getb(c, (size_t)l) : NULL;
  if (!p) { c->ok = 0; return -1; }
  size_t k = l < n - 1 ? (size_t)l : n - 1;
  memcpy(dst, p, k);
  dst[k] = 0;
  for (size_t i = 0; i < k; i++) if ((unsigned char)dst[i] < 32) dst[i] = '?';
  return 0;
}

/* Reads a configuration list into the state; 0 or -1. */
static int get_config(mi_rec_reader *r, mir_cur *c) {
  uint64_t n = mir_getv(c);
  if (!c->ok || n > 1000) return -1;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t item = mir_getv(c), size = mir_getv(c);
    const uint8_t *p = c->ok && size <= 12 ? mir_getb(c, (size_t)size) : NULL;
    if (!p) return -1;
    if (item >= 3001 && item <= 3000 + NCFG) {
      memset(r->cfg[item - 3001], 0, 12);
      memcpy(r->cfg[item - 3001], p, (size_t)size);
      r->cfgsize[item - 3001] = (int)size;
    }
  }
  return 0;
}

/* Reads a process identity (a birth or a key's entry) into the state; 0 or -1. */
static int get_proc(mi_rec_reader *r, mir_cur *c) {
  uint64_t slot = mir_getv(c);
  int64_t pid = mir_unzz(mir_getv(c)), start = mir_unzz(mir_getv(c));
  uint64_t js = mir_getv(c);
  int64_t pt = mir_unzz(mir_getv(c));
  const uint8_t *names = mir_getb(c, 96);
  if (!c->ok || !names || slot >= MI_MAX_PROCESSES || js > UINT32_MAX || pt < INT32_MIN || pt > INT32_MAX) return -1;
  mi_rec_proc *p = &r->procs[slot];
  memset(p, 0, sizeof *p);
  p->pid = pid; p->start_ticks = start; p->js = (uint32_t)js; p->ptype = (int32_t)pt;
  memcpy(p->user, names, 48);
  memcpy(p->program, names + 48, 48);
  p->alive = 1;
  p->seen = ++r->proc_seen;
  if (r->rw[MI_DOM_PROCESS]) memset(r->val[MI_DOM_PROCESS] + slot * (uint64_t)r->rw[MI_DOM_PROCESS], 0, (size_t)r->rw[MI_DOM_PROCESS] * 8);
  return 0;
}

/* Reads a length-prefixed text of at most n-1 bytes into dst; 0 or -1 (longer: not ours). */
static int get_text(mir_cur *c, char *dst, size_t n) {
  uint64_t l = mir_getv(c);
  const uint8_t *p = c->ok && l < n ? mir_getb(c, (size_t)l) : NULL;
  if (!p) { c->ok = 0; return -1; }
  memcpy(dst, p, (size_t)l);
  dst[l] = 0;
  for (size_t i = 0; i < l; i++) if ((unsigned char)dst[i] < 32) dst[i] = '?';
  return 0;
}

/* Cells per row of a user-defined counter of this kind and element count (as store/udef.c keeps them). */
static int udef_words(int kind, int elements) {
  return kind == MI_UDEF_ACCUM ? elements : kind == MI_UDEF_FACCUM ? 1 : kind == MI_UDEF_QBUSY ? 4 : 3;
}

/* Reads a header's table of user-defined counters (version 2) into r->udef; 0 or -1 with r->why. */
static int get_udefs(mi_rec_reader *r, mir_cur *c) {
  uint64_t n = mir_getv(c);
  if (!c->ok) { r->why = "its user-defined counter table is cut short"; return -1; }
  if (n > MI_UDEF_MAX) { r->why = "its user-defined counter table is longer than 256"; return -1; }
  for (uint64_t k = 0; k < n; k++) {
    mi_rec_udef *u = &r->udef[k];
    memset(u, 0, sizeof *u);
    uint64_t item = mir_getv(c), dom = mir_getv(c), kind = mir_getv(c), el = mir_getv(c), words = mir_getv(c);
    int64_t owner = mir_unzz(mir_getv(c));
    if (get_text(c, u->name, sizeof u->name) < 0 || get_text(c, u->unit, sizeof u->unit) < 0 ||
        get_text(c, u->help, sizeof u->help) < 0 || !c->ok) {
      r->why = "its user-defined counter table is cut short";
      return -1;
    }
    if (item != (uint64_t)MI_UDEF_FIRST + k || dom > MI_DOM_PROCESS || kind < MI_UDEF_ACCUM || kind > MI_UDEF_QBUSY ||
        el < 1 || el > MI_UDEF_MAX_ELEMENTS || (el > 1 && kind != MI_UDEF_ACCUM) || words != (uint64_t)udef_words((int)kind, (int)el) ||
        owner < INT32_MIN || owner > INT32_MAX || !u->name[0]) {
      r->why = "its user-defined counter table holds a bad entry";
      return -1;
    }
    u->kind = (int)kind; u->elements = (int)el; u->words = (int)words; u->owner_pid = (int32_t)owner;
    int time = kind == MI_UDEF_BUSY || kind == MI_UDEF_QUEUE || kind == MI_UDEF_QBUSY;
    mi_item_info *it = &u->item;
    it->item = (int32_t)item;
    it->name = u->name;
    it->domain = (uint8_t)dom;
    it->kind = MI_KIND_SIMPLE;
    it->instrumented = MI_INST_YES;
    it->source = MI_SRC_INFERRED;
    it->reading = MI_READ_TOTAL;   /* every kind accumulates (a level's time integral for busy/queue) */
    it->index = -1;
    it->unit = time ? MI_UNIT_MI_TIME : MI_UNIT_COUNT;
    it->type = kind == MI_UDEF_FACCUM ? MI_TYPE_I64 : kind == MI_UDEF_QBUSY || el > 1 ? MI_TYPE_I32A : MI_TYPE_I32;
    it->description = u->help[0] ? u->help : u->name;
  }
  r->nudef = (int)n;
  r->info.udef_count = (int)n;
  return 0;
}

/* Parses a header record's payload into the layout; 0 or -1 (not readable: another version, or
 * r->why says what is wrong). A continued header (version 2) keeps the processes, devices, CPUs. */
static int get_header(mi_rec_reader *r, mir_cur *c) {
  r->why = "its layout does not parse";
  const uint8_t *m = mir_getb(c, 16);
  int cont = m && mir_get16(m + 8) >= 2 && (mir_get32(m + 12) & MIR_HF_CONTINUED) && r->have_layout;
  if (cont) reset_layout(r); else reset_state(r);
  if (!m || memcmp(m, MIR_MAGIC, 8) != 0) return -1;
  int version = mir_get16(m + 8);
  if (version < 1 || version > MIR_VERSION || mir_get16(m + 10) != MIR_ORDER) return -1;
  mi_rec_info *in = &r->info;
  in->version = version;
  in->continued = version >= 2 && (mir_get32(m + 12) & MIR_HF_CONTINUED);
  if (get_str(c, in->mish_version, sizeof in->mish_version) || get_str(c, in->source, sizeof in->source) ||
      get_str(c, in->machine, sizeof in->machine))
    return -1;
  uint64_t tpm = mir_getv(c), mapping = mir_getv(c), n = mir_getv(c);
  if (!c->ok || tpm < 1 || tpm > 1000000 || mapping > 2 || n > 4 * 1024) return -1;
  in->tpm = (int32_t)tpm;
  in->mapping = (int32_t)mapping;
  static _Thread_local mi_rec_item tmp[MI_DOM_COUNT][1024];
  for (uint64_t i = 0; i < n; i++) {
    uint64_t d = mir_getv(c), item = mir_getv(c), words = mir_getv(c);
    if (!c->ok || d >= MI_DOM_COUNT || item > INT32_MAX || words < 1 || words > 720 || r->nit[d] >= 1024) return -1;
    if (r->rw[d] + (int)words > MAX_RW || (int64_t)(r->rw[d] + (int)words) * MAXENT[d] > MAX_CELLS) return -1;
    mi_rec_item *x = &tmp[d][r->nit[d]++];
    x->item = (int32_t)item; x->words = (int32_t)words; x->at = r->rw[d]; x->it = mi_item_lookup((int32_t)item);
    r->rw[d] += (int)words;
  }
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    r->it[d] = malloc(((size_t)r->nit[d] + 1) * sizeof(mi_rec_item));
    r->val[d] = calloc((size_t)MAXENT[d] * (size_t)(r->rw[d] ? r->rw[d] : 1), 8);
    r->pres[d] = calloc((size_t)MAXENT[d], sizeof(int32_t));
    if (!r->it[d] || !r->val[d] || !r->pres[d]) return -1;
    memcpy(r->it[d], tmp[d], (size_t)r->nit[d] * sizeof(mi_rec_item));
  }
  if (get_config(r, c) < 0) return -1;
  if (version >= 2) {
    if (get_udefs(r, c) < 0) return -1;
    /* the recorded user-defined counters: each described by the table, in its domain, of its size */
    for (int d = 0; d < MI_DOM_COUNT; d++)
      for (int i = 0; i < r->nit[d]; i++) {
        mi_rec_item *x = &r->it[d][i];
        uint32_t k = (uint32_t)x->item - MI_UDEF_FIRST;
        if (k >= MI_UDEF_MAX) continue;
        if ((int)k >= r->nudef || r->udef[k].item.domain != d || r->udef[k].words != x->words) {
          r->why = "it records a user-defined counter its table does not describe";
          return -1;
        }
        x->it = &r->udef[k].item;
      }
  }
  r->have_layout = 1;
  return 0;
}

/* Decodes a sample body into the cells (absolute for a key, else deltas); 0 or -1. A run of
 * zeros (0, then its length: it may go on into the next rows) leaves a delta's words as they
 * were, untouched (most of a sample's process figures do not move), and clears a key's. */
static int get_body(mi_rec_reader *r, mir_cur *c, int key) {
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    uint64_t n = mir_getv(c);
    if (!c->ok || n > (uint64_t)MAXENT[d]) return -1;
    int64_t k = -1;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t g = mir_getv(c);
      if (!c->ok || g >= (uint64_t)MAXENT[d]) return -1;
      k += (int64_t)g + 1;
      if (k >= MAXENT[d]) return -1;
      r->pres[d][i] = (int32_t)k;
    }
    r->npres[d] = (int)n;
    int rw = r->rw[d];
    uint64_t run = 0;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t *row = (uint64_t *)(void *)(r->val[d] + (size_t)r->pres[d][i] * rw);
      for (int w = 0; w < rw;) {
        if (run) {   /* zeros: this row's share of the run */
          int z = run < (uint64_t)(rw - w) ? (int)run : rw - w;
          if (key) memset(row + w, 0, (size_t)z * 8);
          w += z;
          run -= (uint64_t)z;
          continue;
        }
        uint64_t t = mir_getv(c);
        if (!c->ok) return -1;
        if (t == 0) {
          run = mir_getv(c);
          if (!c->ok || run == 0) return -1;
          continue;
        }
        uint64_t dl = (uint64_t)mir_unzz(t);
        row[w] = key ? dl : row[w] + dl;
        w++;
      }
    }
    if (run) return -1;
  }
  return c->p == c->end ? 0 : -1;
}

/* Applies an entity record; 0 or -1. */
static int get_entity(mi_rec_reader *r, mir_cur *c) {
  uint64_t n = mir_getv(c);
  if (!c->ok || n > 100000) return -1;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t op = mir_getv(c);
    if (op == 1) { if (get_proc(r, c) < 0) return -1; }
    else if (op == 2) {
      uint64_t slot = mir_getv(c);
      int64_t end = mir_unzz(mir_getv(c));
      if (!c->ok || slot >= MI_MAX_PROCESSES) return -1;
      r->procs[slot].alive = 0;
      r->procs[slot].end_ticks = end;
    } else if (op == 3) {
      uint64_t l = mir_getv(c), t = mir_getv(c);
      if (!c->ok || l < 1 || l > MI_MAX_LDEV || t > 255) return -1;
      r->dev[l] = (uint8_t)t;
      if (r->rw[MI_DOM_IO]) memset(r->val[MI_DOM_IO] + l * (uint64_t)r->rw[MI_DOM_IO], 0, (size_t)r->rw[MI_DOM_IO] * 8);
    } else if (op == 4) {
      uint64_t k = mir_getv(c);
      if (!c->ok || k > MI_MAX_PROCESSORS) return -1;
      r->ncpu = (int)k;
    } else return -1;
  }
  return c->ok ? 0 : -1;
}

/* Applies a key record (the state whole); 0 or -1. */
static int get_key(mi_rec_reader *r, mir_cur *c) {
  if (!mir_getb(c, 24)) return -1;
  uint64_t ncpu = mir_getv(c), nd = mir_getv(c);
  if (!c->ok || ncpu > MI_MAX_PROCESSORS || nd > MI_MAX_LDEV) return -1;
  r->ncpu = (int)ncpu;
  memset(r->dev, 0, sizeof r->dev);
  for (uint64_t i = 0; i < nd; i++) {
    uint64_t l = mir_getv(c), t = mir_getv(c);
    if (!c->ok || l < 1 || l > MI_MAX_LDEV || t > 255) return -1;
    r->dev[l] = (uint8_t)t;
  }
  if (get_config(r, c) < 0) return -1;
  uint64_t np = mir_getv(c);
  if (!c->ok || np > MI_MAX_PROCESSES) return -1;
  for (int s = 0; s < MI_MAX_PROCESSES; s++) r->procs[s].alive = 0;
  for (uint64_t i = 0; i < np; i++) if (get_proc(r, c) < 0) return -1;
  return get_body(r, c, 1);
}

/* Reads the span mark of the whole index record at off (len bytes) into *s: 1 if it has one that
 * can be true, -1 if it has one that cannot, 0 if it has none (an older writer) or one written
 * for another offset (these bytes were copied from elsewhere: not believed, no lie either). */
static int index_mark(const mi_rec_reader *r, int64_t off, int64_t len, mir_span *s) {
  mir_cur c = {r->data + off + MIR_HEAD, r->data + off + len - MIR_TAIL, 1};
  if (!mir_getb(&c, 8)) return 0;
  uint64_t n = mir_getv(&c);
  for (uint64_t j = 0; j < n && c.ok; j++) { mir_getv(&c); mir_getv(&c); }
  if (!c.ok || c.p == c.end) return 0;
  uint64_t at = mir_getv(&c), count = mir_getv(&c);
  s->first = mir_unzz(mir_getv(&c));
  s->last = mir_unzz(mir_getv(&c));
  s->prev = mir_unzz(mir_getv(&c));
  uint64_t steps = mir_getv(&c);
  if (!c.ok) return -1;
  if (at != (uint64_t)off) return 0;
  /* every sample before it is a frame of at least MIR_MIN bytes; steps are between two of them */
  if (count > (uint64_t)off / MIR_MIN || steps > (count ? count - 1 : 0)) return -1;
  if (count ? s->first > s->prev || s->prev > s->last : s->first != -1 || s->last != -1 || s->prev != -1) return -1;
  s->count = (int64_t)count;
  s->steps = (int64_t)steps;
  return 1;
}

/* Checks the span mark of the index record at off against the samples read before it in a pass
 * from the start: one that cannot be true, or that disagrees (where damage or a gap before it
 * cannot explain the difference: lost samples only narrow a span and take steps away), is counted. */
static void check_mark(mi_rec_reader *r, int64_t off, int64_t len) {
  mir_span m;
  int k = index_mark(r, off, len, &m);
  if (k == 0) return;
  if (k < 0) { r->bad_marks++; return; }
  const mir_span *s = &r->run;
  int same = m.count == s->count && m.steps == s->steps && m.first == s->first && m.last == s->last && m.prev == s->prev;
  int unsafe = s->count > m.count || s->steps > m.steps || (s->count && (s->first < m.first || s->last > m.last));
  if (!same && (!r->run_damaged || unsafe)) r->bad_marks++;
}

/* Reports bytes [off, off+n) as damaged (or torn at the end) in ev. */
static int damage(mi_rec_reader *r, mi_rec_event *ev, int64_t off, int64_t next) {
  r->synced = 0;
  r->run_damaged = 1;
  r->seq_known = 0;
  if (next < 0) {
    ev->type = MI_REV_TORN;
    ev->offset = off;
    ev->bytes = (int64_t)r->size - off;
    r->pos = (int64_t)r->size;
  } else {
    ev->type = MI_REV_DAMAGE;
    ev->offset = off;
    ev->bytes = next - off;
    r->pos = next;
  }
  return ev->type;
}

/* Notes the time of a sample or key frame: a step back (the clock went back: kept, and said in ev),
 * the pass's span, and the frames believed over a span mark that said otherwise (a step it left
 * out is counted, so a later seek starts from the start; a time outside the span widens it). */
static void note_sample(mi_rec_reader *r, mi_rec_event *ev) {
  ev->back = r->have_prev && ev->time < r->prev_sample;
  r->prev_sample = ev->time;
  r->have_prev = 1;
  mir_span_add(&r->run, ev->time);
  if (ev->back && r->info.steps_back == 0) r->info.steps_back = 1;
  if (!r->span_n++) r->info.first_time = r->info.last_time = ev->time;
  else if (ev->time < r->info.first_time) r->info.first_time = ev->time;
  else if (ev->time > r->info.last_time) r->info.last_time = ev->time;
}

int mi_rec_next(mi_rec_reader *r, mi_rec_event *ev) {
  static mi_rec_event none;
  if (!ev) return MI_REV_END;
  *ev = none;
  if (!r) return MI_REV_END;
  for (;;) {
    if ((uint64_t)r->pos >= r->size) { ev->type = MI_REV_END; return MI_REV_END; }
    int64_t off = r->pos, len = frame_ok(r, off);
    if (!len) return damage(r, ev, off, find_next(r, off + 1));
    const uint8_t *p = r->data + off;
    int type = mir_get16(p + 8);
    uint64_t seq = mir_get64(p + 12);
    ev->offset = off;
    ev->bytes = len;
    ev->seq = seq;
    ev->time = (int64_t)mir_get64(p + 20);
    if (type == MIR_T_SAMPLE || type == MIR_T_KEY) note_sample(r, ev);
    if (r->seq_known && seq != r->next_seq) { r->synced = 0; r->gaps++; r->run_damaged = 1; }   /* whole records are missing */
    r->seq_known = 1;
    r->next_seq = seq + 1;
    r->pos = off + len;
    mir_cur c = {p + MIR_HEAD, p + len - MIR_TAIL, 1};
    int bad = 0;
    switch (type) {
    case MIR_T_HEADER:
      if (get_header(r, &c) < 0) { reset_state(r); bad = 1; break; }
      ev->type = MI_REV_SEGMENT;
      if (r->jump >= 0) { r->pos = r->jump; r->jump = -1; r->seq_known = 0; }
      return ev->type;
    case MIR_T_ENTITY:
      if (!r->have_layout || get_entity(r, &c) < 0) { bad = 1; break; }
      ev->type = MI_REV_ENTITY;
      return ev->type;
    case MIR_T_CONFIG:
      if (!r->have_layout || get_config(r, &c) < 0) { bad = 1; break; }
      ev->type = MI_REV_CONFIG;
      return ev->type;
    case MIR_T_MARK: {
      ev->mark = (int)mir_getv(&c);
      ev->a = mir_unzz(mir_getv(&c));
      ev->b = mir_unzz(mir_getv(&c));
      if (get_str(&c, r->text, sizeof r->text) < 0) { bad = 1; break; }
      ev->text = r->text;
      ev->type = MI_REV_MARK;
      return ev->type;
    }
    case MIR_T_SAMPLE:
      ev->type = MI_REV_SAMPLE;
      if (!r->have_layout || !r->synced) { ev->skipped = 1; return ev->type; }
      if (get_body(r, &c, 0) < 0) { bad = 1; break; }
      r->info.sample_time = ev->time;
      return ev->type;
    case MIR_T_KEY:
      ev->type = MI_REV_SAMPLE;
      ev->key = 1;
      if (!r->have_layout) { ev->skipped = 1; return ev->type; }
      if (get_key(r, &c) < 0) { bad = 1; break; }
      r->synced = 1;
      r->info.sample_time = ev->time;
      return ev->type;
    case MIR_T_INDEX:
      r->last_index = off;
      if (r->run_ok) check_mark(r, off, len);
      continue;
    default:
      continue;   /* a record type of a later minor version: skipped */
    }
    if (bad) {   /* a whole frame whose payload does not parse: damaged as well */
      r->synced = 0;
      r->run_damaged = 1;
      ev->type = MI_REV_DAMAGE;
      return ev->type;
    }
  }
}

int mi_rec_peek(mi_rec_reader *r, int64_t *t) {
  if (t) *t = 0;
  if (!r) return MI_REV_END;
  /* the mapping never changes: a second look from the same position (the replay source peeks
   * before each step and again in it) gives the answer the first CRC check gave */
  if (r->peek_at == r->pos) { if (t) *t = r->peek_time; return r->peek_type; }
  int64_t off = r->pos, tm = 0;
  int ty = MI_REV_END;
  for (;;) {
    if ((uint64_t)off >= r->size) break;
    int64_t len = frame_ok(r, off);
    if (!len) { ty = (uint64_t)off < r->size ? MI_REV_DAMAGE : MI_REV_END; break; }
    int ft = ftype(r, off);
    tm = ftime(r, off);
    ty = ft == MIR_T_HEADER ? MI_REV_SEGMENT : ft == MIR_T_ENTITY ? MI_REV_ENTITY : ft == MIR_T_CONFIG ? MI_REV_CONFIG
       : ft == MIR_T_MARK ? MI_REV_MARK : ft == MIR_T_SAMPLE || ft == MIR_T_KEY ? MI_REV_SAMPLE : -1;
    if (ty >= 0) break;
    ty = MI_REV_END;   /* index and later types are no events (their time stays in tm, as before) */
    off += len;
  }
  r->peek_at = r->pos; r->peek_type = ty; r->peek_time = tm;
  if (t) *t = tm;
  return ty;
}

/* ---- opening, the span, seeking ---- */
/* The end of the last whole frame: the file's end when its last frame is whole, else found
 * walking back from the end (at most 16 MB), else by a scan from the start. */
static int64_t valid_end(const mi_rec_reader *r) {
  int64_t n = (int64_t)r->size;
  if (prev_frame(r, n) >= 0) return n;
  for (int64_t e = n - 1; e >= MIR_MIN && e > n - (16 << 20); e--)
    if (prev_frame(r, e) >= 0) {
      /* whole up to e only if nothing whole follows it */
      if (find_next(r, e) < 0) return e;
      break;
    }
  int64_t off = 0, end = 0;
  while ((uint64_t)off < r->size) {
    int64_t len = frame_ok(r, off);
    if (len) { off += len; end = off; continue; }
    off = find_next(r, off + 1);
    if (off < 0) break;
  }
  return end;
}

/* Maps every page of the file at once, before a scan that touches them all (a hint: a kernel
 * without it maps each page as it is read). */
static void populate(const mi_rec_reader *r) {
#ifdef MADV_POPULATE_READ
  if (r->data) madvise((void *)r->data, r->size, MADV_POPULATE_READ);
#else
  (void)r;
#endif
}

/* Adds the samples of every whole frame from off to the end to s (the span, the steps back). */
static void span_scan(const mi_rec_reader *r, int64_t off, mir_span *s) {
  while ((uint64_t)off < r->size) {
    int64_t len = frame_ok(r, off);
    if (!len) { off = find_next(r, off + 1); if (off < 0) break; continue; }
    int t = ftype(r, off);
    if (t == MIR_T_SAMPLE || t == MIR_T_KEY) mir_span_add(s, ftime(r, off));
    off += len;
  }
}

void mir_span_full(const struct mi_rec_reader *r, mir_span *s) {
  *s = MIR_SPAN_NONE;
  if (r) span_scan(r, 0, s);
}

void mi_rec_span_frames(mi_rec_reader *r) {
  if (!r) return;
  mir_span s;
  populate(r);
  mir_span_full(r, &s);
  r->info.first_time = s.count ? s.first : -1;
  r->info.last_time = s.count ? s.last : -1;
  r->info.steps_back = s.steps;
  r->span_n = s.count;
}

/* The file's last span mark: back from the whole end to the last index record, or to the last key
 * and its pointer to the last index. With a mark that can be true, *s is the span before that
 * index and the offset after it is returned; else 0 (every frame must be read). */
static int64_t span_mark(const mi_rec_reader *r, mir_span *s) {
  int64_t end = r->vend, at = -1;
  while (end > 0 && at < 0) {
    int64_t st = prev_frame(r, end);
    if (st < 0) return 0;
    int ty = ftype(r, st);
    if (ty == MIR_T_INDEX) at = st;
    else if (ty == MIR_T_KEY) {
      if (end - st < MIR_MIN + 24) return 0;
      uint64_t p = mir_get64(r->data + st + MIR_HEAD + 16);
      if (p >= (uint64_t)st) return 0;   /* none (all ones), or not before the key */
      at = (int64_t)p;
    }
    end = st;
  }
  int64_t len = at >= 0 ? frame_ok(r, at) : 0;
  mir_span m;
  if (!len || ftype(r, at) != MIR_T_INDEX || index_mark(r, at, len, &m) != 1) return 0;
  *s = m;
  return at + len;
}

/* Finds the file's span — its earliest and latest sample time — and counts the samples whose
 * time is earlier than the sample's before them (the clock went back): from the last span mark
 * and the frames after it, or over every whole frame of a file that has none. */
static void span(mi_rec_reader *r) {
  mir_span s = MIR_SPAN_NONE;
  int64_t from = span_mark(r, &s);
  if (!from) populate(r);
  span_scan(r, from, &s);
  r->info.first_time = s.count ? s.first : -1;
  r->info.last_time = s.count ? s.last : -1;
  r->info.steps_back = s.steps;
  r->span_n = s.count;
}

mi_rec_reader *mi_rec_open(const char *path, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!path) { snprintf(err, errlen, "no file"); return NULL; }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) { snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno)); return NULL; }
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) { close(fd); snprintf(err, errlen, "'%s' is not a regular file", path); return NULL; }
  mi_rec_reader *r = calloc(1, sizeof *r);
  if (!r) { close(fd); snprintf(err, errlen, "out of memory"); return NULL; }
  r->size = (size_t)sb.st_size;
  r->jump = -1;
  r->last_index = -1;
  r->peek_at = -1;
  r->run = MIR_SPAN_NONE;
  r->run_ok = 1;
  if (r->size) {
    void *m = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) { close(fd); free(r); snprintf(err, errlen, "cannot map '%s': %s", path, strerror(errno)); return NULL; }
    r->data = m;
  }
  close(fd);
  /* the first frame must be a whole header of a version we read; a first header damaged with a
   * whole one after it (an append) opens there, the bytes before reported as damage */
  int64_t len = frame_ok(r, 0), hdr = 0;
  if (!len && r->size >= 4 && mir_get32(r->data) == MIR_SYNC)
    for (int64_t o = find_next(r, 1); o > 0; o = find_next(r, o + 1))
      if (ftype(r, o) == MIR_T_HEADER) { hdr = o; len = frame_ok(r, o); break; }
  if (!len || ftype(r, hdr) != MIR_T_HEADER) {
    int mine = r->size >= 8 && mir_get32(r->data) == MIR_SYNC;
    int64_t flen = mine ? mir_get32(r->data + 4) : 0;
    if (mine && flen > (int64_t)r->size && flen <= MIR_MAX_RECORD)
      snprintf(err, errlen, "'%s': the header record is torn (the file ends at byte %lld of its %lld): nothing was recorded",
               path, (long long)r->size, (long long)flen);
    else if (r->size == 0)   /* a recorder stopped before its header reached the file */
      snprintf(err, errlen, "'%s': the header record is torn (the file is empty: the recorder stopped before writing it): nothing was recorded", path);
    else if (r->size > 0 && r->size < 8 && memcmp(r->data, "MIR1", r->size < 4 ? r->size : 4) == 0)
      snprintf(err, errlen, "'%s': the header record is torn (the file ends at byte %lld): nothing was recorded", path, (long long)r->size);
    else snprintf(err, errlen, mine ? "'%s': the header record is damaged" : "'%s' is not a mish recording", path);
    mi_rec_close(r);
    return NULL;
  }
  mir_cur c = {r->data + hdr + MIR_HEAD, r->data + hdr + len - MIR_TAIL, 1};
  if (get_header(r, &c) < 0) {
    const uint8_t *m = r->data + hdr + MIR_HEAD;
    if (len >= MIR_MIN + 16 && memcmp(m, MIR_MAGIC, 8) == 0 && mir_get16(m + 10) != MIR_ORDER)
      snprintf(err, errlen, "'%s': another byte order", path);
    else if (len >= MIR_MIN + 16 && memcmp(m, MIR_MAGIC, 8) == 0 && mir_get16(m + 8) > MIR_VERSION)
      snprintf(err, errlen, "'%s': format version %d is newer than this mish reads (%d)", path, mir_get16(m + 8), MIR_VERSION);
    else snprintf(err, errlen, "'%s': the header record is damaged (%s)", path, r->why ? r->why : "it does not parse");
    mi_rec_close(r);
    return NULL;
  }
  reset_state(r);
  r->info.sample_time = -1;
  r->info.file_bytes = (int64_t)r->size;
  r->vend = valid_end(r);
  span(r);
  return r;
}

void mi_rec_close(mi_rec_reader *r) {
  if (!r) return;
  reset_state(r);
  if (r->data) munmap((void *)r->data, r->size);
  free(r);
}

/* Rewinds to the start with no state. */
static void rewind_(mi_rec_reader *r) {
  reset_state(r);
  r->info.sample_time = -1;
  r->have_prev = 0;
  r->pos = 0;
  r->jump = -1;
  r->seq_known = 0;
  r->run = MIR_SPAN_NONE;
  r->run_ok = 1;
  r->run_damaged = 0;
}

int mi_rec_seek(mi_rec_reader *r, int64_t t) {
  if (!r) return -1;
  if (r->info.steps_back > 0) {   /* times are not in file order: a sample at t may be anywhere */
    rewind_(r);
    return r->info.first_time >= 0 ? 0 : -1;
  }
  /* the latest key before t: samples at t itself may come before a key of the same time */
  int64_t best = -1, at = -1, end = r->vend;
  /* back from the end to the last key or index */
  for (int i = 0; i < 1000000 && end > 0; i++) {
    int64_t st = prev_frame(r, end);
    if (st < 0) break;
    int ty = ftype(r, st);
    if (ty == MIR_T_KEY || ty == MIR_T_INDEX) { at = st; break; }
    end = st;
  }
  int64_t idx = -1;
  if (at >= 0 && ftype(r, at) == MIR_T_KEY) {
    /* keys after the last index: their own chain */
    int64_t k = at, lim = (int64_t)mir_get64(r->data + at + MIR_HEAD + 16);
    idx = lim;
    for (int i = 0; i < 100000 && k >= 0 && k > lim; i++) {
      if (!frame_ok(r, k) || ftype(r, k) != MIR_T_KEY) { idx = -2; break; }
      if (ftime(r, k) < t) { best = k; break; }
      k = (int64_t)mir_get64(r->data + k + MIR_HEAD + 8);
    }
  } else if (at >= 0) idx = at;
  for (int i = 0; i < 100000 && best < 0 && idx >= 0; i++) {
    int64_t len = frame_ok(r, idx);
    if (!len || ftype(r, idx) != MIR_T_INDEX) { idx = -2; break; }
    mir_cur c = {r->data + idx + MIR_HEAD, r->data + idx + len - MIR_TAIL, 1};
    const uint8_t *pp = mir_getb(&c, 8);
    uint64_t n = mir_getv(&c);
    if (!pp || !c.ok) { idx = -2; break; }
    for (uint64_t j = 0; j < n && c.ok; j++) {
      int64_t kt = mir_unzz(mir_getv(&c));
      uint64_t ko = mir_getv(&c);
      if (c.ok && kt < t && ko < r->size) best = (int64_t)ko;
    }
    if (best >= 0) break;
    idx = (int64_t)mir_get64(pp);
  }
  if (best < 0 && (idx == -2 || at < 0)) {
    /* no usable index (damage): every key, from the start */
    int64_t off = 0;
    while ((uint64_t)off < r->size) {
      int64_t len = frame_ok(r, off);
      if (!len) { off = find_next(r, off + 1); if (off < 0) break; continue; }
      if (ftype(r, off) == MIR_T_KEY) { if (ftime(r, off) < t || best < 0) best = off; if (ftime(r, off) >= t) break; }
      off += len;
    }
  }
  rewind_(r);
  if (best < 0 || !frame_ok(r, best) || ftype(r, best) != MIR_T_KEY) return best < 0 && at < 0 ? -1 : 0;
  int64_t hdr = (int64_t)mir_get64(r->data + best + MIR_HEAD);
  if (!frame_ok(r, hdr) || ftype(r, hdr) != MIR_T_HEADER) return 0;   /* read from the start */
  r->pos = hdr;
  r->jump = best;
  r->run_ok = 0;   /* the samples before the key are not read: no span mark is checked */
  return 0;
}

int mi_rec_verify(mi_rec_reader *r, mi_rec_health *h) {
  mi_rec_health z;
  if (!h) h = &z;
  memset(h, 0, sizeof *h);
  h->first_damage = h->torn_at = h->first_time = h->last_time = h->first_step_back = -1;
  if (!r) return 2;
  h->bytes = (int64_t)r->size;
  populate(r);   /* every frame is read */
  rewind_(r);
  mi_rec_event ev;
  r->gaps = 0;
  r->bad_marks = 0;
  while (mi_rec_next(r, &ev) != MI_REV_END) {
    if (ev.type == MI_REV_TORN) { h->torn_at = ev.offset; h->torn_bytes = ev.bytes; continue; }
    if (ev.type == MI_REV_DAMAGE) {
      h->damaged_regions++;
      h->damaged_bytes += ev.bytes;
      if (h->first_damage < 0) h->first_damage = ev.offset;
      continue;
    }
    h->records++;
    if (ev.type == MI_REV_SEGMENT) {   /* a continued header grows the segment it is in */
      if (r->info.continued && h->segments > 0) h->continued++;
      else h->segments++;
    }
    if (ev.type == MI_REV_SAMPLE) {   /* the span and steps back over every whole sample, as mi_rec_open's */
      if (h->first_time < 0 || ev.time < h->first_time) h->first_time = ev.time;
      if (h->last_time < 0 || ev.time > h->last_time) h->last_time = ev.time;
      if (ev.back && !h->steps_back++) h->first_step_back = ev.offset;
      if (ev.skipped) h->unreadable++;   /* what every reader skips: not a sample it has (#30.6) */
      else { h->samples++; h->keys += ev.key; }
    }
  }
  h->seq_gaps = r->gaps;
  h->bad_marks = r->bad_marks;
  /* every frame was read: the span is theirs from here on, as an open without marks finds it
   * (a mark that lied, or counted samples that damage took since, no longer counts) */
  r->info.first_time = r->run.count ? r->run.first : -1;
  r->info.last_time = r->run.count ? r->run.last : -1;
  r->info.steps_back = r->run.steps;
  r->span_n = r->run.count;
  rewind_(r);
  return h->damaged_regions || h->seq_gaps || h->bad_marks ? 2 : h->torn_at >= 0 ? 1 : 0;
}

/* ---- the state ---- */
const mi_rec_info *mi_rec_info_get(const mi_rec_reader *r) { return r ? &r->info : NULL; }

int mi_rec_layout(const mi_rec_reader *r, int domain, const mi_rec_item **items, int *row_words) {
  if (!r || domain < 0 || domain >= MI_DOM_COUNT) return 0;
  if (items) *items = r->it[domain];
  if (row_words) *row_words = r->rw[domain];
  return r->nit[domain];
}

int mi_rec_udefs(const mi_rec_reader *r, const mi_rec_udef **tab) {
  if (!r) return 0;
  if (tab) *tab = r->udef;
  return r->nudef;
}

int64_t mi_rec_udef_value(const mi_rec_reader *r, int32_t item, const int64_t *c, int part) {
  uint32_t k = (uint32_t)item - MI_UDEF_FIRST;
  if (!r || !c || k >= (uint32_t)r->nudef) return 0;
  const mi_rec_udef *u = &r->udef[k];
  if (u->kind == MI_UDEF_ACCUM) {
    uint64_t v = 0;
    for (int w = 0; w < u->elements; w++) v += (uint64_t)c[w];
    return (int64_t)v;
  }
  if (u->kind == MI_UDEF_FACCUM) return c[0];
  int w = u->kind == MI_UDEF_QBUSY ? 4 : 3;
  if (part < 0 || part > (w == 4)) return 0;
  int64_t acc = c[part], lvl = c[w - 2], since = c[w - 1], now = r->info.sample_time, add, sum;
  if (since <= 0 || now <= since || lvl <= 0) return acc;
  int busy = u->kind == MI_UDEF_BUSY || (w == 4 && part == 0);
  if (__builtin_mul_overflow(busy ? 1 : lvl, now - since, &add)) add = INT64_MAX;
  return __builtin_add_overflow(acc, add, &sum) ? INT64_MAX : sum;
}

int mi_rec_present(const mi_rec_reader *r, int domain, const int32_t **keys) {
  if (!r || domain < 0 || domain >= MI_DOM_COUNT || !r->synced) return 0;
  if (keys) *keys = r->pres[domain];
  return r->npres[domain];
}

const int64_t *mi_rec_row(const mi_rec_reader *r, int domain, int32_t key) {
  if (!r || domain < 0 || domain >= MI_DOM_COUNT || key < 0 || key >= MAXENT[domain] || !r->val[domain]) return NULL;
  return r->val[domain] + (size_t)key * r->rw[domain];
}

const mi_rec_proc *mi_rec_process(const mi_rec_reader *r, int32_t slot) {
  return r && slot >= 0 && slot < MI_MAX_PROCESSES ? &r->procs[slot] : NULL;
}

int mi_rec_device(const mi_rec_reader *r, int32_t ldev) { return r && ldev >= 1 && ldev <= MI_MAX_LDEV ? r->dev[ldev] : 0; }
int mi_rec_cpus(const mi_rec_reader *r) { return r ? r->ncpu : 0; }

const uint8_t *mi_rec_config(const mi_rec_reader *r, int32_t item, int *size) {
  if (!r || item < 3001 || item > 3000 + NCFG || !r->cfgsize[item - 3001]) return NULL;
  if (size) *size = r->cfgsize[item - 3001];
  return r->cfg[item - 3001];
}

/* ---- times ---- */
/* Reads exactly n decimal digits at s into *v; 0 or -1. */
static int digits(const char *s, int n, int *v) {
  *v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    *v = *v * 10 + (s[i] - '0');
  }
  return 0;
}

/* Reads a decimal number "D[.D]" (digits only: no sign, exponent, hex, inf or nan) at *s as a
 * whole part and a fraction in millionths; moves *s past it. 0, or -1 if there is none or the
 * whole part passes max. */
static int decimal(const char **s, int64_t max, int64_t *whole, int64_t *micro) {
  const char *p = *s;
  *whole = *micro = 0;
  if (*p < '0' || *p > '9') return -1;
  for (; *p >= '0' && *p <= '9'; p++) {
    *whole = *whole * 10 + (*p - '0');
    if (*whole > max) return -1;
  }
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9') return -1;
    int64_t scale = 100000;
    for (; *p >= '0' && *p <= '9'; p++, scale /= 10) *micro += (*p - '0') * scale;   /* digits past 6 add 0 */
  }
  *s = p;
  return 0;
}

int mi_rec_parse_time(const char *s, int64_t base, int32_t tpm, int64_t *out) {
  if (!s || !out || tpm < 1) return -1;
  while (*s == ' ') s++;
  if (*s == '@') {   /* ticks: digits only */
    const char *p = s + 1;
    int64_t v = 0;
    if (!*p) return -1;
    for (; *p; p++) {
      if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10) return -1;
      v = v * 10 + (*p - '0');
    }
    *out = v;
    return 0;
  }
  if (*s == '+' || *s == '-') {   /* an offset: a decimal number and a unit (none: seconds) */
    const char *p = s + 1;
    int64_t whole, micro, ticks, frac;
    if (decimal(&p, 1000000000, &whole, &micro) < 0) return -1;
    int64_t mul = 1;
    if (*p == 's') p++;
    else if (*p == 'm') { mul = 60; p++; }
    else if (*p == 'h') { mul = 3600; p++; }
    else if (*p == 'd') { mul = 86400; p++; }
    if (*p) return -1;
    /* ticks = (whole + micro / 1e6) * mul * 1000 * tpm, refused where it leaves 64 bits */
    int64_t per = mul * 1000 * (int64_t)tpm;   /* ticks per unit: at most 86400000 * INT32_MAX */
    if (__builtin_mul_overflow(whole, per, &ticks)) return -1;
    frac = (int64_t)((__int128)micro * per / 1000000);
    if (__builtin_add_overflow(ticks, frac, &ticks)) return -1;
    if (*s == '+' ? __builtin_add_overflow(base, ticks, out) : __builtin_sub_overflow(base, ticks, out)) return -1;
    return 0;
  }
  /* ISO 8601: YYYY-MM-DD[(T| )hh:mm[:ss[.fff]]][Z|(+|-)hh:mm], digits where digits go; or a time
   * of day hh:mm[:ss[.fff]][zone] alone: the one within 12 hours of base (#30.4) */
  int Y = 0, M = 1, D = 1, h = 0, m = 0, tod = s[0] && s[1] && s[2] == ':';
  int64_t sec = 0, usec = 0;
  const char *p = s;
  if (!tod) {
    if (digits(s, 4, &Y) || s[4] != '-' || digits(s + 5, 2, &M) || s[7] != '-' || digits(s + 8, 2, &D)) return -1;
    p = s + 10;
  }
  if (tod || *p == 'T' || *p == ' ') {
    const char *q = tod ? p : p + 1;
    if (digits(q, 2, &h) || q[2] != ':' || digits(q + 3, 2, &m)) return -1;
    p = q + 5;
    if (*p == ':') {
      p++;
      if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9' || decimal(&p, 60, &sec, &usec) < 0) return -1;
    }
  }
  int zone = 0;
  if (*p == 'Z') p++;
  else if (*p == '+' || *p == '-') {
    int zh, zm;
    if (digits(p + 1, 2, &zh) || p[3] != ':' || digits(p + 4, 2, &zm) || zh > 23 || zm > 59) return -1;
    zone = (zh * 60 + zm) * (*p == '+' ? 1 : -1);
    p += 6;
  }
  if (*p || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59) return -1;
  if (tod) {   /* the day (in the time's zone) of base, then the occurrence nearest base: [base - 12 h, base + 12 h) */
    const int64_t day = 86400000;
    int64_t bms = base / tpm, zms = (int64_t)zone * 60000, ms, ticks;
    if (bms < -day * 365 * 10000 || bms > day * 365 * 10000) return -1;   /* base from the file: years 10000 BC-AD */
    int64_t local = bms + zms, start = local / day * day - (local % day < 0 ? day : 0);
    ms = start - zms + ((int64_t)h * 3600 + m * 60 + sec) * 1000 + usec / 1000;
    if (ms < bms - day / 2) ms += day;
    else if (ms >= bms + day / 2) ms -= day;
    if (__builtin_mul_overflow(ms, (int64_t)tpm, &ticks)) return -1;
    *out = ticks + (usec % 1000) * tpm / 1000;
    return 0;
  }
  struct tm tmv = {0};
  tmv.tm_year = Y - 1900; tmv.tm_mon = M - 1; tmv.tm_mday = D; tmv.tm_hour = h; tmv.tm_min = m;
  int64_t tt = (int64_t)timegm(&tmv) - zone * 60;   /* years 0000-9999: no overflow below */
  int64_t ms = (tt + sec) * 1000 + usec / 1000, ticks;
  if (__builtin_mul_overflow(ms, (int64_t)tpm, &ticks)) return -1;
  *out = ticks + (usec % 1000) * tpm / 1000;
  return 0;
}
