/* writer.c — the recorder: an MI user of its own that enables the recorded items, copies the raw
 * 64-bit cells of every entity in one write section per sample, and appends framed records
 * (one write() each) to a recording file it holds locked. Format: core/RECORDING.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "mi.h"
#include "mi_host.h"
#include "mi_query.h"
#include "mi_record.h"
#include "mi_source.h"
#include "mi_userdef.h"
#include "recfile/format.h"

#define NCFG 46
#define MAXENT_IO (MI_MAX_LDEV + 1)

/* One recorded item of a domain. */
typedef struct witem { int32_t item, words, at; } witem;

struct mi_recorder {
  mi_system *sys;
  mi_session *s;
  int udef_all;                              /* MI_REC_USERDEF_ALL was asked: later counters are recorded too */
  int udef_n;                                /* user-defined counters in the table the file last got */
  int fd;
  mi_rec_options o;
  int32_t mapping;
  int nit[MI_DOM_COUNT], rw[MI_DOM_COUNT];
  witem *it[MI_DOM_COUNT];
  mi_query *q[MI_DOM_COUNT];                 /* door 2's raw reads of the recorded items (NULL: none) */
  int64_t *prev[MI_DOM_COUNT];               /* key-major: the previous sample's cells */
  int64_t *cur[MI_DOM_COUNT];                /* present-major: this sample's cells */
  int32_t *keys[MI_DOM_COUNT];
  int nkeys[MI_DOM_COUNT];
  struct { int64_t pid, start; uint64_t ident; int known; } kp[MI_MAX_PROCESSES];   /* ident: proc_ident */
  mi_raw_view *v;                            /* this sample's time, CPUs, devices and processes (present:
                                                1 alive, 2 dead and reported now; proc: their identities) */
  uint8_t dev[MAXENT_IO];
  int ncpu;
  int32_t cfgnums[NCFG + 1];
  uint8_t cfg[NCFG][12], cfgnow[NCFG][12];
  int cfgsize[NCFG];
  uint64_t seq;
  int64_t off, header_off, last_key_off, last_index_off;
  int since_key, npend;
  struct { int64_t t, off; } *pend;
  mir_span span;                             /* the file's samples so far (what came before, an append's too): each index's span mark */
  uint8_t *buf;
  size_t cap, len;
  int64_t now, last_sync_ms;
  mi_rec_stats st;
  int failed;
  int64_t open_off;                          /* the file's length before this recorder wrote to it */
};

/* Monotonic milliseconds. */
static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Makes room for n more bytes in the record buffer; 0 or -1. */
static int need(mi_recorder *r, size_t n) {
  if (r->len + n <= r->cap) return 0;
  size_t c = r->cap ? r->cap : 4096;
  while (c < r->len + n) c *= 2;
  uint8_t *b = realloc(r->buf, c);
  if (!b) return -1;
  r->buf = b;
  r->cap = c;
  return 0;
}
/* Appends a varint, raw bytes, a fixed 64-bit value (need() was called for them). */
static void pv(mi_recorder *r, uint64_t v) { r->len += mir_putv(r->buf + r->len, v); }
static void pb(mi_recorder *r, const void *p, size_t n) { memcpy(r->buf + r->len, p, n); r->len += n; }
static void p64(mi_recorder *r, uint64_t v) { mir_put64(r->buf + r->len, v); r->len += 8; }

/* Starts a record in the buffer (the frame's head is filled in by emit). */
static int begin(mi_recorder *r) { r->len = 0; return need(r, MIR_HEAD + 256); }

/* Finishes the record in the buffer as type at time and writes it with one write(); 0 or -1. */
static int emit(mi_recorder *r, int type, int64_t t) {
  if (need(r, MIR_TAIL) < 0) return -1;
  uint32_t len = (uint32_t)(r->len + MIR_TAIL);
  uint8_t *b = r->buf;
  mir_put32(b, MIR_SYNC);
  mir_put32(b + 4, len);
  mir_put16(b + 8, (uint16_t)type);
  mir_put16(b + 10, 0);
  mir_put64(b + 12, r->seq);
  mir_put64(b + 20, (uint64_t)t);
  mir_put32(b + 28, 0);
  uint32_t crc = mir_crc32c(0, b, r->len);
  mir_put32(b + r->len, crc);
  mir_put32(b + r->len + 4, len);
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(r->fd, b + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      /* a short write leaves a torn tail: cut it so the file stays whole */
      if (done && ftruncate(r->fd, r->off) != 0) { /* the next reader reports the tear */ }
      r->failed = 1;
      return -1;
    }
    done += (size_t)w;
  }
  r->seq++;
  r->off += len;
  r->st.records++;
  r->st.bytes = r->off;
  int64_t ms = mono_ms();
  if (r->o.fsync == MI_REC_FSYNC_EVERY || (r->o.fsync == MI_REC_FSYNC_INTERVAL && ms - r->last_sync_ms >= r->o.fsync_ms)) {
    fdatasync(r->fd);
    r->last_sync_ms = ms;
  }
  return 0;
}

/* A hash of what a process may change while it lives: its program (an exec) and its type. */
static uint64_t proc_ident(const mi_raw_proc *p) { return mi_host_hash(MI_HOST_HASH0 ^ (uint32_t)p->ptype, p->program, sizeof p->program); }

/* Appends a process's identity (a birth, or a key's table entry). */
static void put_proc(mi_recorder *r, int slot, const mi_raw_proc *p) {
  pv(r, (uint64_t)slot);
  pv(r, mir_zz(p->pid));
  pv(r, mir_zz(p->start_ticks));
  pv(r, p->js);
  pv(r, mir_zz(p->ptype));
  pb(r, p->user, sizeof p->user);
  pb(r, p->program, sizeof p->program);
}

/* Appends the configuration items (all, or those that changed since the last record). */
static int put_config(mi_recorder *r, int all) {
  int n = 0;
  for (int i = 0; i < NCFG; i++) if (all || memcmp(r->cfg[i], r->cfgnow[i], 12) != 0) n++;
  if (need(r, 16 + (size_t)n * 32) < 0) return -1;
  pv(r, (uint64_t)n);
  for (int i = 0; i < NCFG; i++)
    if (all || memcmp(r->cfg[i], r->cfgnow[i], 12) != 0) {
      pv(r, (uint64_t)r->cfgnums[i]);
      pv(r, (uint64_t)r->cfgsize[i]);
      pb(r, r->cfgnow[i], (size_t)r->cfgsize[i]);
    }
  return n;
}

/* Appends the sample body: per domain the entity keys and the cells, as deltas from the previous
 * sample (or absolute for a key), zero runs folded. */
static int put_body(mi_recorder *r, int key) {
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    int n = r->nkeys[d], rw = r->rw[d];
    if (need(r, 16 + (size_t)n * 5 + (size_t)n * rw * 11) < 0) return -1;
    pv(r, (uint64_t)n);
    int32_t last = -1;
    for (int i = 0; i < n; i++) { pv(r, (uint64_t)(r->keys[d][i] - last - 1)); last = r->keys[d][i]; }
    uint64_t run = 0;
    for (int i = 0; i < n; i++) {
      int64_t *pr = r->prev[d] + (size_t)r->keys[d][i] * rw, *cu = r->cur[d] + (size_t)i * rw;
      for (int w = 0; w < rw; w++) {
        uint64_t dl = key ? (uint64_t)cu[w] : (uint64_t)cu[w] - (uint64_t)pr[w];
        pr[w] = cu[w];
        if (dl == 0) { run++; continue; }
        if (run) { pv(r, 0); pv(r, run); run = 0; }
        pv(r, mir_zz((int64_t)dl));
      }
    }
    if (run) { pv(r, 0); pv(r, run); }
    r->st.last_raw_bytes += (int64_t)n * rw * 8;
    r->st.cells += (int64_t)n * rw;
  }
  return 0;
}

/* Cells per row of a user-defined counter (as store/udef.c keeps them). */
static int udef_words(const mi_udef_info *u) {
  return u->kind == MI_UDEF_ACCUM ? u->elements : u->kind == MI_UDEF_FACCUM ? 1 : u->kind == MI_UDEF_QBUSY ? 4 : 3;
}

/* Appends a length-prefixed string (need() was called for it). */
static void pstr(mi_recorder *r, const char *t) { size_t l = strlen(t); pv(r, l); pb(r, t, l); }

/* Writes the header record of a new segment (continued: the same recording, only the layout or
 * the table of user-defined counters grew); 0 or -1. */
static int write_header(mi_recorder *r, int continued) {
  if (begin(r) < 0) return -1;
  r->len = MIR_HEAD;
  char mach[300];
  if (r->o.machine) snprintf(mach, sizeof mach, "%s", r->o.machine);
  else {
    struct utsname u;
    if (uname(&u) == 0) snprintf(mach, sizeof mach, "%.64s %.64s %.64s %.64s", u.nodename, u.sysname, u.release, u.machine);
    else snprintf(mach, sizeof mach, "unknown");
  }
  const char *ver = r->o.mish_version ? r->o.mish_version : "?";
  char srcb[48];   /* attached: the owner's source too ("attached:sim"), what the store measures */
  if (mi_system_attached(r->sys)) snprintf(srcb, sizeof srcb, "attached:%s", mi_system_owner_source(r->sys));
  const char *src = mi_system_attached(r->sys) ? srcb : mi_system_source_name(r->sys);
  size_t nit = 0;
  for (int d = 0; d < MI_DOM_COUNT; d++) nit += (size_t)r->nit[d];
  if (need(r, 64 + strlen(mach) + strlen(ver) + strlen(src) + nit * 16) < 0) return -1;
  pb(r, MIR_MAGIC, 8);
  uint8_t v[8];
  mir_put16(v, MIR_VERSION); mir_put16(v + 2, MIR_ORDER); mir_put32(v + 4, continued ? MIR_HF_CONTINUED : 0);
  pb(r, v, 8);
  const char *strs[3] = {ver, src, mach};
  for (int i = 0; i < 3; i++) { size_t l = strlen(strs[i]); pv(r, l); pb(r, strs[i], l); }
  pv(r, (uint64_t)mi_host_ticks_per_ms(r->sys));
  pv(r, (uint64_t)r->mapping);
  pv(r, nit);
  for (int d = 0; d < MI_DOM_COUNT; d++)
    for (int i = 0; i < r->nit[d]; i++) {
      pv(r, (uint64_t)d);
      pv(r, (uint64_t)r->it[d][i].item);
      pv(r, (uint64_t)r->it[d][i].words);
    }
  if (put_config(r, 1) < 0) return -1;
  /* version 2: the table of user-defined counters, whole */
  if (need(r, 16 + (size_t)r->udef_n * (40 + MI_UDEF_NAME + MI_UDEF_UNIT + MI_UDEF_HELP)) < 0) return -1;
  pv(r, (uint64_t)r->udef_n);
  for (int k = 0; k < r->udef_n; k++) {
    const mi_udef_info *u = mi_udef_at(r->sys, k);
    pv(r, (uint64_t)u->item.item);
    pv(r, u->item.domain);
    pv(r, (uint64_t)u->kind);
    pv(r, (uint64_t)u->elements);
    pv(r, (uint64_t)udef_words(u));
    pv(r, mir_zz(u->owner_pid));
    pstr(r, u->item.name);
    pstr(r, u->unit ? u->unit : "");
    pstr(r, u->help ? u->help : "");
  }
  r->header_off = r->off;
  return emit(r, MIR_T_HEADER, r->now);
}

/* Writes a mark; 0 or -1. */
static int write_mark(mi_recorder *r, int kind, int64_t a, int64_t b, const char *text) {
  if (begin(r) < 0) return -1;
  r->len = MIR_HEAD;
  size_t l = text ? strlen(text) : 0;
  if (l > 1000) l = 1000;
  if (need(r, 40 + l) < 0) return -1;
  pv(r, (uint64_t)kind); pv(r, mir_zz(a)); pv(r, mir_zz(b)); pv(r, l);
  if (l) pb(r, text, l);
  return emit(r, MIR_T_MARK, r->now);
}

/* Writes an index of the keys since the previous one, then its span mark (the file's samples
 * before it, so a reader's open need not read them); 0 or -1. */
static int write_index(mi_recorder *r) {
  if (!r->npend) return 0;
  if (begin(r) < 0 || need(r, 32 + (size_t)r->npend * 20 + 64) < 0) return -1;
  r->len = MIR_HEAD;
  p64(r, (uint64_t)r->last_index_off);
  pv(r, (uint64_t)r->npend);
  for (int i = 0; i < r->npend; i++) { pv(r, mir_zz(r->pend[i].t)); pv(r, (uint64_t)r->pend[i].off); }
  int64_t at = r->off;
  const mir_span *sp = &r->span;
  pv(r, (uint64_t)at); pv(r, (uint64_t)sp->count);
  pv(r, mir_zz(sp->first)); pv(r, mir_zz(sp->last)); pv(r, mir_zz(sp->prev)); pv(r, (uint64_t)sp->steps);
  if (emit(r, MIR_T_INDEX, r->now) < 0) return -1;
  r->last_index_off = at;
  r->npend = 0;
  return 0;
}

/* Copies this sample's state out of the store through door 2's raw read, in one write section:
 * time, CPUs, devices, processes (the live ones and those dead and not yet reported to the
 * recorder, which the read then releases) and the cells of every present entity. 0, or -1 with
 * errno EBUSY (the store stayed busy: nothing was read) or EIO. */
static int snapshot(mi_recorder *r) {
  int64_t *cells[MI_DOM_COUNT];
  int32_t *keys[MI_DOM_COUNT];
  for (int d = 0; d < MI_DOM_COUNT; d++) { cells[d] = r->cur[d]; keys[d] = r->keys[d]; r->nkeys[d] = 0; }
  int rc = mi_query_raw_read(r->s, r->v, r->q, MI_DOM_COUNT, cells, keys, r->nkeys);
  if (rc) { errno = rc == MI_E_STORE_BUSY ? EBUSY : EIO; return -1; }
  r->now = r->v->now;
  return 0;
}

/* Reads the configuration into cfgnow (AIFSCGET of every item). */
static void read_config(mi_recorder *r) {
  void *ptr[NCFG];
  int32_t stats[NCFG];
  for (int i = 0; i < NCFG; i++) ptr[i] = r->cfgnow[i];
  status_type st;
  mi_scget(r->s, &st, r->cfgnums, ptr, stats, 0);
}

/* Writes births (before the sample) or deaths (after it) as one entity record; 0 or -1. */
static int write_entities(mi_recorder *r, int after) {
  if (begin(r) < 0) return -1;
  r->len = MIR_HEAD;
  int n = 0;
  size_t count_at = r->len;
  if (need(r, 16) < 0) return -1;
  r->len += 5;   /* the count, as a fixed 5-byte varint filled in below */
  if (!after) {
    if (r->v->ncpu != r->ncpu) {
      if (need(r, 16) < 0) return -1;
      pv(r, 4); pv(r, (uint64_t)r->v->ncpu); n++;
      r->ncpu = r->v->ncpu;
    }
    for (int l = 1; l < MAXENT_IO; l++)
      if (r->v->devtype[l] != r->dev[l]) {
        if (need(r, 16) < 0) return -1;
        pv(r, 3); pv(r, (uint64_t)l); pv(r, r->v->devtype[l]); n++;
        r->dev[l] = r->v->devtype[l];
        if (r->rw[MI_DOM_IO]) memset(r->prev[MI_DOM_IO] + (size_t)l * r->rw[MI_DOM_IO], 0, (size_t)r->rw[MI_DOM_IO] * 8);
      }
    /* processes in this sample that the file does not know (or knows as another process), and
     * known ones that ran another program: a birth again, without a death (the reader takes the
     * new identity, the cells start from the absolute values again) */
    for (int sl = 0; sl < MI_MAX_PROCESSES; sl++) {
      const mi_raw_proc *p = &r->v->proc[sl];
      if (!r->v->present[sl]) continue;
      int same = r->kp[sl].known && r->kp[sl].pid == p->pid && r->kp[sl].start == p->start_ticks;
      uint64_t ident = proc_ident(p);
      if (same && r->kp[sl].ident == ident) continue;
      if (need(r, 160 * 2) < 0) return -1;
      if (r->kp[sl].known && !same) { pv(r, 2); pv(r, (uint64_t)sl); pv(r, mir_zz(r->now)); n++; }
      pv(r, 1); put_proc(r, sl, p); n++;
      r->kp[sl].known = 1; r->kp[sl].pid = p->pid; r->kp[sl].start = p->start_ticks; r->kp[sl].ident = ident;
      if (r->rw[MI_DOM_PROCESS]) memset(r->prev[MI_DOM_PROCESS] + (size_t)sl * r->rw[MI_DOM_PROCESS], 0, (size_t)r->rw[MI_DOM_PROCESS] * 8);
    }
  } else {
    for (int sl = 0; sl < MI_MAX_PROCESSES; sl++) {
      int gone = r->kp[sl].known && r->v->present[sl] != 1;
      if (!gone) continue;
      if (need(r, 32) < 0) return -1;
      pv(r, 2); pv(r, (uint64_t)sl); pv(r, mir_zz(r->v->present[sl] == 2 ? r->v->proc[sl].end_ticks : r->now)); n++;
      r->kp[sl].known = 0;
    }
  }
  if (!n) return 0;
  uint8_t *c = r->buf + count_at;   /* a padded varint: 5 bytes whatever n is */
  for (int i = 0; i < 4; i++) c[i] = (uint8_t)(((uint32_t)n >> (7 * i)) & 0x7F) | 0x80;
  c[4] = (uint8_t)(((uint32_t)n >> 28) & 0x7F);
  return emit(r, MIR_T_ENTITY, r->now);
}

/* Writes a key: seek pointers, CPUs, devices, configuration, every present process, absolute cells. */
static int write_key(mi_recorder *r) {
  if (begin(r) < 0 || need(r, 64) < 0) return -1;
  r->len = MIR_HEAD;
  p64(r, (uint64_t)r->header_off);
  p64(r, (uint64_t)r->last_key_off);
  p64(r, (uint64_t)r->last_index_off);
  pv(r, (uint64_t)r->ncpu);
  int nd = 0;
  for (int l = 1; l < MAXENT_IO; l++) nd += r->dev[l] != 0;
  if (need(r, 16 + (size_t)nd * 8) < 0) return -1;
  pv(r, (uint64_t)nd);
  for (int l = 1; l < MAXENT_IO; l++) if (r->dev[l]) { pv(r, (uint64_t)l); pv(r, r->dev[l]); }
  if (put_config(r, 1) < 0) return -1;
  int np = 0;
  for (int sl = 0; sl < MI_MAX_PROCESSES; sl++) np += r->kp[sl].known;
  if (need(r, 16 + (size_t)np * 160) < 0) return -1;
  pv(r, (uint64_t)np);
  for (int sl = 0; sl < MI_MAX_PROCESSES; sl++) if (r->kp[sl].known) put_proc(r, sl, &r->v->proc[sl]);
  if (put_body(r, 1) < 0) return -1;
  int64_t at = r->off;
  if (emit(r, MIR_T_KEY, r->now) < 0) return -1;
  mir_span_add(&r->span, r->now);
  r->last_key_off = at;
  r->since_key = 0;
  r->pend[r->npend].t = r->now;
  r->pend[r->npend].off = at;
  r->npend++;
  if (r->npend >= r->o.index_every) return write_index(r);
  return 0;
}

/* Entities a domain's rows are kept for. */
static int max_entities(int d) {
  return d == MI_DOM_GLOBAL ? 1 : d == MI_DOM_PROCESS ? MI_MAX_PROCESSES : d == MI_DOM_IO ? MAXENT_IO : MI_MAX_PROCESSORS;
}

/* Gives domain d's row buffers rw words per entity (zeroed: a key is due); 0 or -1. */
static int alloc_rows(mi_recorder *r, int d, int rw) {
  size_t cells = (size_t)max_entities(d) * (size_t)(rw ? rw : 1);
  int64_t *p = calloc(cells, 8), *c = calloc(cells, 8);
  if (!p || !c) { free(p); free(c); return -1; }
  free(r->prev[d]); free(r->cur[d]);
  r->prev[d] = p; r->cur[d] = c; r->rw[d] = rw;
  return 0;
}

/* (Re)prepares domain d's raw query over its recorded items, lays their words out in a row
 * (words, at) and gives the rows room (zeroed: a key is due). 0, or -1 out of memory. */
static int prepare_domain(mi_recorder *r, int d) {
  int32_t nums[MI_MAX_ITEMS];
  int at = 0;
  mi_query_free(r->q[d]);
  r->q[d] = NULL;
  if (r->nit[d]) {
    for (int i = 0; i < r->nit[d]; i++) nums[i] = r->it[d][i].item;
    if (!(r->q[d] = mi_query_new(r->s, d, nums, r->nit[d], r->mapping))) return -1;
    for (int i = 0; i < r->nit[d]; i++) {
      witem *w = &r->it[d][i];
      w->words = mi_query_raw_words(r->q[d], i);
      w->at = at;
      at += w->words;
    }
  }
  return alloc_rows(r, d, at);
}

/* Opens a session of the recorder's MI user (privileged, authorized), or NULL. */
static mi_session *rec_session(mi_recorder *r, char *err, size_t errlen) {
  mi_session *s = mi_session_new(r->sys);
  if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, r->o.user_id);
  mi_accesson(s, &st, r->o.user_id);
  if (mi_status_info(st) != 0) {
    snprintf(err, errlen, "AIFACCESSON failed: %s", mi_status_message(mi_status_info(st)));
    mi_session_free(s);
    return NULL;
  }
  return s;
}

/* Takes in the user-defined counters installed since the table was last written. With
 * MI_REC_USERDEF_ALL they are recorded: the recorder's MI user follows installs, so the store
 * enabled each for it in the install's own write section (counting from the install, whoever
 * else has it on) and their cells join the rows now. 1 if the table grew (a continued header
 * and a key are due), 0 if not, -1 out of memory. */
static int udef_grow(mi_recorder *r) {
  int n = mi_udef_count(r->sys);
  if (n <= r->udef_n) return 0;
  if (r->udef_all) {
    int grow[2] = {0, 0};
    for (int k = r->udef_n; k < n; k++) {
      const mi_udef_info *u = mi_udef_at(r->sys, k);
      if (!u || u->item.domain > MI_DOM_PROCESS) continue;
      int d = u->item.domain;
      int on = mi_query_item_on(r->s, u->item.item);
      int known = 0;
      for (int i = 0; i < r->nit[d]; i++) known |= r->it[d][i].item == u->item.item;
      if (!on || known || r->nit[d] >= MI_MAX_ITEMS - 2) continue;   /* not on: the store had no room for it when it was installed */
      witem *w = realloc(r->it[d], ((size_t)r->nit[d] + 2) * sizeof(witem));
      if (!w) return -1;
      r->it[d] = w;
      witem *x = &w[r->nit[d]++];
      x->item = u->item.item;
      grow[d] = 1;
    }
    for (int d = 0; d < 2; d++)
      if (grow[d] && prepare_domain(r, d) < 0) return -1;
  }
  r->udef_n = n;
  return 1;
}

int mi_recorder_sample(mi_recorder *r) {
  if (!r || r->failed) { errno = EIO; return -1; }
  int64_t before = r->off;
  r->st.last_raw_bytes = 0;
  mi_query_refresh(r->s);
  int grew = udef_grow(r);
  if (grew < 0) { r->failed = 1; errno = ENOMEM; return -1; }
  read_config(r);
  if (snapshot(r) < 0) return -1;
  if (write_entities(r, 0) < 0) return -1;
  if (memcmp(r->cfg, r->cfgnow, sizeof r->cfg) != 0) {
    if (begin(r) < 0) return -1;
    r->len = MIR_HEAD;
    if (put_config(r, 0) < 0 || emit(r, MIR_T_CONFIG, r->now) < 0) return -1;
    memcpy(r->cfg, r->cfgnow, sizeof r->cfg);
  }
  /* counters were installed: a continued header gives the table (and the grown rows), a key follows */
  if (grew && write_header(r, 1) < 0) return -1;
  if (r->since_key >= r->o.key_every - 1 || r->last_key_off < 0 || r->last_key_off < r->header_off) {
    if (write_key(r) < 0) return -1;
  } else {
    if (begin(r) < 0) return -1;
    r->len = MIR_HEAD;
    if (put_body(r, 0) < 0 || emit(r, MIR_T_SAMPLE, r->now) < 0) return -1;
    mir_span_add(&r->span, r->now);
    r->since_key++;
  }
  if (write_entities(r, 1) < 0) return -1;
  r->st.samples++;
  r->st.raw_bytes += r->st.last_raw_bytes;
  r->st.last_bytes = r->off - before;
  return 0;
}

int mi_recorder_mark(mi_recorder *r, const char *text) {
  if (!r || r->failed) return -1;
  return write_mark(r, MI_MARK_GAP, 0, 0, text);
}

void mi_recorder_stats(const mi_recorder *r, mi_rec_stats *st) {
  if (!st) return;
  memset(st, 0, sizeof *st);
  if (r) *st = r->st;
}

/* Frees the recorder's memory, session and file (no records written). */
static void destroy(mi_recorder *r) {
  if (!r) return;
  if (r->s) mi_session_free(r->s);
  if (r->fd >= 0) close(r->fd);
  for (int d = 0; d < MI_DOM_COUNT; d++) { mi_query_free(r->q[d]); free(r->it[d]); free(r->prev[d]); free(r->cur[d]); free(r->keys[d]); }
  free(r->v);
  free(r->pend);
  free(r->buf);
  free(r);
}

int mi_recorder_close(mi_recorder *r) {
  if (!r) return 0;
  int rc = 0;
  if (!r->failed) {
    rc |= write_mark(r, MI_MARK_END, 0, 0, "end");
    rc |= write_index(r);
    rc |= fdatasync(r->fd);
  }
  destroy(r);
  return rc ? -1 : 0;
}

/* Prepares an existing file for appending: finds its whole end (cutting a torn tail), the last
 * sequence number, key and index; writes a torn mark if it cut. 0, or -1 with err set. */
static int prepare_append(mi_recorder *r, const char *path, char *err, size_t errlen) {
  char e2[200];
  mi_rec_reader *rd = mi_rec_open(path, e2, sizeof e2);
  if (!rd) { snprintf(err, errlen, "cannot append to '%s': %s", path, e2); return -1; }
  mi_rec_health h;
  mi_rec_verify(rd, &h);
  mir_span_full(rd, &r->span);   /* the span marks go on from what the file holds (every frame read: never a mark's word) */
  /* the last sequence number, key and index of the whole records */
  mi_rec_event ev;
  uint64_t seq = 0;
  int64_t last_index = -1, last_key = -1;
  int any = 0;
  while (mi_rec_next(rd, &ev) != MI_REV_END) {
    if (ev.type == MI_REV_DAMAGE || ev.type == MI_REV_TORN) continue;
    any = 1;
    seq = ev.seq;
    if (ev.type == MI_REV_SAMPLE && ev.key) last_key = ev.offset;
  }
  /* indexes are not events: find the last one by its chain from the keys; the sequence goes on
   * after the last whole record, an index too (a file a recorder closed ends with one) */
  last_index = mir_last_index(rd);
  uint64_t after = mir_next_seq(rd);
  mi_rec_close(rd);
  int64_t end = h.torn_at >= 0 ? h.torn_at : h.bytes;
  if (h.torn_at >= 0 && ftruncate(r->fd, end) != 0) { snprintf(err, errlen, "cannot cut the torn tail of '%s': %s", path, strerror(errno)); return -1; }
  if (lseek(r->fd, end, SEEK_SET) < 0) { snprintf(err, errlen, "cannot seek '%s'", path); return -1; }
  r->off = r->open_off = end;
  r->seq = any ? (after > seq + 1 ? after : seq + 1) : 0;
  r->last_key_off = last_key;
  r->last_index_off = last_index;
  r->npend = 0;   /* keys after the last index are reached through the key chain */
  if (h.torn_at >= 0) {
    char note[96];
    snprintf(note, sizeof note, "torn tail of %lld bytes at offset %lld cut", (long long)h.torn_bytes, (long long)h.torn_at);
    if (write_mark(r, MI_MARK_TORN, h.torn_at, h.torn_bytes, note) < 0) { snprintf(err, errlen, "cannot write '%s'", path); return -1; }
  }
  return 0;
}

/* The bytes of a file of size bytes that holds nothing but the start of a first header record (a
 * recorder stopped while writing it: its sync word, and a length reaching past the end), or 0. */
static int64_t torn_header(int fd, int64_t size) {
  uint8_t b[10] = {0};
  ssize_t got = pread(fd, b, sizeof b, 0);
  if (got < 0 || got != (size < 10 ? size : 10)) return 0;
  if (memcmp(b, "MIR1", (size_t)(got < 4 ? got : 4)) != 0) return 0;
  if (got < 8) return size;
  uint32_t len = mir_get32(b + 4);
  if (len < MIR_MIN || len > MIR_MAX_RECORD || (int64_t)len <= size) return 0;
  return got < 10 || mir_get16(b + 8) == MIR_T_HEADER ? size : 0;
}

/* A recorder that could not open: cuts what it wrote off the file (back to the length it found,
 * so an append that fails on a full disk leaves no empty segment), removes the file if it created
 * it (and the path still names it), and frees r. Returns NULL. */
static mi_recorder *fail_open(mi_recorder *r, const char *path, int created) {
  int e = errno;
  if (r->fd >= 0) {
    struct stat a, b;
    if (created && fstat(r->fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) unlink(path);
    else if (fstat(r->fd, &a) == 0 && a.st_size != r->open_off && ftruncate(r->fd, r->open_off) != 0) {
      /* the reader reports what is left as a torn tail */
    }
  }
  destroy(r);
  errno = e;
  return NULL;
}

/* Sorts the items asked for into lists by domain (each once; pseudo-items left out; every
 * user-defined counter for MI_REC_USERDEF_ALL; the processor domain brings 21164 into the global
 * one). 0, or -1 with err set for a number the catalog or the system does not know. */
static int gather_items(mi_recorder *r, const int32_t *items, int n, int32_t lists[][MI_MAX_ITEMS], int ln[],
                        char *err, size_t errlen) {
  mi_system *sys = r->sys;
  int want_cpu = 0;
  for (int i = 0; i < n; i++) if (items[i] == MI_REC_USERDEF_ALL) r->udef_all = 1;
  for (int k = 0; r->udef_all && k < r->udef_n; k++) {   /* every user-defined counter: as if listed */
    const mi_udef_info *u = mi_udef_at(sys, k);
    int d = u->item.domain;
    if (ln[d] < MI_MAX_ITEMS - 2) lists[d][ln[d]++] = u->item.item;
  }
  for (int i = 0; i < n; i++) {
    if (items[i] == MI_REC_USERDEF_ALL) continue;
    const mi_item_info *it = mi_sys_item(sys, items[i]);
    if (!it && (uint32_t)items[i] - MI_UDEF_FIRST < MI_UDEF_MAX) {
      snprintf(err, errlen, "item %d is not a user-defined counter of this system (it has %d: %d..)", (int)items[i], r->udef_n, MI_UDEF_FIRST);
      return -1;
    }
    if (!it) { snprintf(err, errlen, "item %d is not in the catalog", (int)items[i]); return -1; }
    if (it->kind == MI_KIND_PSEUDO) continue;
    if ((uint32_t)it->item - MI_UDEF_FIRST < MI_UDEF_MAX && it->item - MI_UDEF_FIRST >= r->udef_n)
      r->udef_n = it->item - MI_UDEF_FIRST + 1;   /* installed a moment ago: the header's table describes it */
    int d = it->domain, dup = 0;
    for (int k = 0; k < ln[d]; k++) dup |= lists[d][k] == it->item;
    if (dup || ln[d] >= MI_MAX_ITEMS - 2) continue;
    lists[d][ln[d]++] = it->item;
    if (d == MI_DOM_PROCESSOR) want_cpu = 1;
  }
  if (want_cpu) {
    int dup = 0;
    for (int k = 0; k < ln[0]; k++) dup |= lists[0][k] == 21164;
    if (!dup) lists[0][ln[0]++] = 21164;
  }
  return 0;
}

/* Turns the listed items on for the recorder's own MI user, domain by domain, and keeps in the
 * lists those that went on; sets r->mapping to the one the store keeps. 0, or -1 with err set. */
static int enable_items(mi_recorder *r, int32_t lists[][MI_MAX_ITEMS], int ln[], char *err, size_t errlen) {
  status_type st;
  int32_t stats[MI_MAX_ITEMS], mapping = r->mapping;
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    if (!ln[d] || d == MI_DOM_PROCESSOR) continue;
    lists[d][ln[d]] = 0;
    memset(stats, 0, sizeof stats);
    if (d == MI_DOM_GLOBAL) mi_globon(r->s, &st, lists[d], stats, &mapping, 0);
    else if (d == MI_DOM_PROCESS) mi_procon(r->s, &st, lists[d], stats, &mapping, NULL, 0);
    else { int32_t all = -1; mi_ioon(r->s, &st, lists[d], stats, &mapping, &all, 0); }
    int code = mi_status_info(st);
    if (code < 0 && code != MI_E_BAD_ITEM) {
      snprintf(err, errlen, "cannot enable the %s items: %s", mi_domain_name(d), mi_status_message(code));
      return -1;
    }
    /* keep the items that went on (an item status of 0) */
    int k = 0;
    for (int i = 0; i < ln[d]; i++) if (stats[i] == 0) lists[d][k++] = lists[d][i];
    ln[d] = k;
  }
  r->mapping = mapping < 0 || mapping > 2 ? r->mapping : mapping;
  return 0;
}

/* Lays out the recorded items of each domain (their words in a row), the entity keys and rows,
 * and the configuration items the header and marks carry. 0, or -1 out of memory. */
static int layout_items(mi_recorder *r, int32_t lists[][MI_MAX_ITEMS], const int ln[]) {
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    r->nit[d] = ln[d];
    r->it[d] = calloc((size_t)ln[d] + 1, sizeof(witem));
    for (int i = 0; r->it[d] && i < ln[d]; i++) r->it[d][i].item = lists[d][i];
    r->keys[d] = calloc((size_t)max_entities(d), sizeof(int32_t));
    if (!r->it[d] || !r->keys[d] || prepare_domain(r, d) < 0) return -1;
  }
  int nc = 0;
  for (int item = 3001; item <= 3046 && nc < NCFG; item++) {
    const mi_config_info *c = mi_config_lookup(item);
    if (!c) continue;
    r->cfgnums[nc] = item;
    r->cfgsize[nc] = mi_config_size(c);
    if (r->cfgsize[nc] > 12) r->cfgsize[nc] = 12;
    nc++;
  }
  for (; nc <= NCFG; nc++) r->cfgnums[nc] = 0;
  return 0;
}

/* Opens the file: created, or an existing recording; never through a symbolic link, never
 * anything but a regular file; one writer (a lock). Sets r->fd, r->open_off and *created;
 * returns the file's size, or -1 with err set. */
static int64_t open_file(mi_recorder *r, const char *path, int *created, char *err, size_t errlen) {
  *created = 1;
  r->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (r->fd < 0 && errno == EEXIST) { *created = 0; r->fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); }
  if (r->fd < 0) {
    if (errno == ELOOP) snprintf(err, errlen, "'%s' is a symbolic link: a recorder writes only to the file it is given", path);
    else snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return -1;
  }
  struct stat sb;
  if (fstat(r->fd, &sb) != 0) { snprintf(err, errlen, "cannot stat '%s'", path); return -1; }
  if (!S_ISREG(sb.st_mode)) { snprintf(err, errlen, "'%s' is not a regular file", path); return -1; }
  if (flock(r->fd, LOCK_EX | LOCK_NB) != 0) {
    snprintf(err, errlen, "'%s' is being recorded by another recorder", path);
    return -1;
  }
  if (fstat(r->fd, &sb) != 0) { snprintf(err, errlen, "cannot stat '%s'", path); return -1; }
  r->open_off = sb.st_size;
  return sb.st_size;
}

/* Starts the segment this recorder writes in the open file of size bytes: a torn header cut
 * (nothing had been recorded), or an existing recording prepared for appending and a restart
 * mark; then the header and the first sample. A failure cuts the file back to what it was (no
 * segment without a sample). Returns r, or NULL with err set and r freed. */
static mi_recorder *start_segment(mi_recorder *r, const char *path, int created, int64_t size, char *err, size_t errlen) {
  int restart = 0;
  int64_t torn = size > 0 ? torn_header(r->fd, size) : 0;
  if (torn > 0) {   /* nothing was recorded: the file starts again, a mark says what was cut */
    if (ftruncate(r->fd, 0) != 0 || lseek(r->fd, 0, SEEK_SET) != 0) {
      snprintf(err, errlen, "cannot cut the torn header of '%s': %s", path, strerror(errno));
      destroy(r);
      return NULL;
    }
    r->open_off = 0;
  } else if (size > 0) {
    if (prepare_append(r, path, err, errlen) < 0) return fail_open(r, path, 0);
    restart = 1;
  }
  r->last_sync_ms = mono_ms();
  mi_query_refresh(r->s);
  read_config(r);
  memcpy(r->cfg, r->cfgnow, sizeof r->cfg);
  r->now = mi_host_now(r->sys);
  /* a failure from here on cuts the file back to what it was: no segment without a sample */
  if (restart && write_mark(r, MI_MARK_RESTART, 0, 0, "recording resumed") < 0) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return fail_open(r, path, created);
  }
  if (write_header(r, 0) < 0) { snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno)); return fail_open(r, path, created); }
  if (torn > 0) {
    char note[96];
    snprintf(note, sizeof note, "torn header of %lld bytes at offset 0 cut (nothing had been recorded)", (long long)torn);
    if (write_mark(r, MI_MARK_TORN, 0, torn, note) < 0) {
      snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
      return fail_open(r, path, created);
    }
  }
  r->ncpu = -1;
  memset(r->dev, 0, sizeof r->dev);
  if (mi_recorder_sample(r) < 0) { snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno)); return fail_open(r, path, created); }
  return r;
}

mi_recorder *mi_recorder_open(mi_system *sys, const char *path, const int32_t *items, int n,
                              const mi_rec_options *o, char *err, size_t errlen) {
  char dummy[8];
  if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
  err[0] = 0;
  if (!sys || !path || !path[0] || (n > 0 && !items) || n < 0) { snprintf(err, errlen, "bad arguments"); return NULL; }
  mi_recorder *r = calloc(1, sizeof *r);
  if (!r) { snprintf(err, errlen, "out of memory"); return NULL; }
  r->fd = -1;
  r->sys = sys;
  if (o) r->o = *o;
  if (r->o.fsync < 0 || r->o.fsync > 2) r->o.fsync = 0;
  if (r->o.fsync_ms <= 0) r->o.fsync_ms = 10000;
  if (r->o.key_every <= 0) r->o.key_every = 60;
  if (r->o.index_every <= 0) r->o.index_every = 16;
  if (!r->o.user_id) r->o.user_id = 666;
  r->mapping = r->o.map1 >= 1 && r->o.map1 <= 3 ? r->o.map1 - 1 : MI_MAP_SMALL;
  r->header_off = r->last_key_off = r->last_index_off = -1;
  r->span = MIR_SPAN_NONE;
  r->pend = calloc((size_t)r->o.index_every + 1, sizeof *r->pend);
  r->v = calloc(1, sizeof *r->v);
  /* the items, by domain (each once; pseudo-items and unknown numbers left out) */
  int32_t lists[MI_DOM_COUNT][MI_MAX_ITEMS];
  int ln[MI_DOM_COUNT] = {0};
  r->udef_n = mi_udef_count(sys);   /* the table the header gives */
  int known_n = r->udef_n;          /* counters installed from here on are followed */
  if (gather_items(r, items, n, lists, ln, err, errlen) < 0) { destroy(r); return NULL; }
  if (!r->pend || !r->v) { snprintf(err, errlen, "out of memory"); destroy(r); return NULL; }
  /* the recorder's own MI user */
  r->s = rec_session(r, err, errlen);
  if (!r->s || enable_items(r, lists, ln, err, errlen) < 0) { destroy(r); return NULL; }
  /* counters installed from now on (and since the lists were made) count from their install */
  if (r->udef_all && mi_session_follow_udefs(r->s, known_n) != 0) {
    snprintf(err, errlen, "cannot follow new user-defined counters: no MI user record free");
    destroy(r);
    return NULL;
  }
  if (layout_items(r, lists, ln) < 0) { snprintf(err, errlen, "out of memory"); destroy(r); return NULL; }
  int created;
  int64_t size = open_file(r, path, &created, err, errlen);
  if (size < 0) { destroy(r); return NULL; }
  return start_segment(r, path, created, size, err, errlen);
}
