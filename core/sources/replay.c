/* replay.c — the "replay" source: plays a recording (mi_record.h) back as the operating system.
 * mi_system_open("replay:PATH") with mi_source_args.window "from=T,to=T,speed=N|max": processes,
 * LDEVs, CPUs and configuration as recorded, the recorded raw cells written into the store at each
 * sample, and the system's clock at the recorded time. Sees mi_host.h, mi_source.h, mi_record.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi_source.h"
#include "mi_record.h"
#include "mi_userdef.h"

/* A replay's state. */
typedef struct rstate {
  mi_rec_reader *rd;
  int64_t from, to, first, last;   /* ticks */
  double speed;                    /* 0 = as fast as the program steps it */
  int64_t clock;                   /* the recorded time the store should show (ticks) */
  int64_t wall0_ms, clock0;        /* paced replay: where the wall clock started */
  int32_t tpm;
  mi_rec_event ev;
  int ended, have_sample;
  int64_t shown;                   /* the time of the sample the store shows */
  uint64_t gen;                    /* the store's layout generation when the cells were written */
  struct { int64_t pid, start; uint64_t ident; uint32_t seen; int slot; } map[MI_MAX_PROCESSES];   /* ident: rec_ident */
  uint8_t cfg[47][12];
  uint8_t cfg_set[47];             /* 1 once cfg[item - 3000] was written to the store */
  int fold_m;                      /* the store mapping the fold table is for (-2: none) */
  int16_t fold[720];               /* recorded class -> store class, -1 nowhere */
  int damage, torn;
  int64_t damage_at, torn_at;
  int64_t damage_bytes, torn_bytes, unreadable;   /* bytes skipped; whole samples past damage it could not read */
  mi_udef uh[MI_UDEF_MAX];         /* recorded user-defined counter k: the replayed system's counter */
  uint8_t uok[MI_UDEF_MAX];        /* 1 when uh[k] is installed (as recorded) */
  int udef_lost;                   /* recorded counters that could not be installed (a name taken) */
  int64_t steps_back;              /* samples of the file earlier than the sample before them */
  int64_t shift;                   /* added to the recorded times after the clock went back: the replay's goes on */
  int64_t last_raw;                /* the recorded time of the last timed event seen (have_raw) */
  int64_t gap;                     /* the last interval between two samples (ticks): a step back is shown that far on */
  int64_t last_sample;             /* the recorded time of the last sample applied (have_last) */
  int have_raw, have_last;
  int64_t applied;                 /* samples of the window applied */
} rstate;

const mi_source_ops mi_source_replay_ops;

/* Wall-clock milliseconds (monotonic). */
static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Copies n bytes of a name image into a NUL-terminated string. */
static void cstr(char *dst, const char *src, size_t n) { memcpy(dst, src, n); dst[n] = 0; }

/* A recorded death of the process in store slot: its user-defined level counters (BUSY, QUEUE,
 * QBUSY) are booked up to the recorded end and left at level 0. A GET times a dead process's
 * levels to its end, which the replay's exit (at the sample's time) cannot set. */
static void end_levels(mi_system *sys, rstate *st, int slot, int64_t end) {
  const mi_rec_item *its;
  const mi_rec_udef *tab;
  int ni = mi_rec_layout(st->rd, MI_DOM_PROCESS, &its, NULL), nu = mi_rec_udefs(st->rd, &tab);
  for (int i = 0; i < ni; i++) {
    uint32_t k = (uint32_t)its[i].item - MI_UDEF_FIRST;
    if (k >= (uint32_t)nu || !st->uok[k] || tab[k].kind < MI_UDEF_BUSY) continue;
    int64_t *p = mi_host_cell_(sys, st->uh[k].c, slot, MI_CELL_WRITE_ANY);
    if (!p) continue;
    int w = tab[k].kind == MI_UDEF_QBUSY ? 4 : 3;
    int64_t lvl = p[w - 2], since = p[w - 1], add;
    if (since > 0 && end > since && lvl > 0)
      for (int part = 0; part < (w == 4 ? 2 : 1); part++) {
        int busy = tab[k].kind == MI_UDEF_BUSY || (w == 4 && part == 0);
        if (__builtin_mul_overflow(busy ? 1 : lvl, end - since, &add) || __builtin_add_overflow(p[part], add, &add)) add = INT64_MAX;
        __atomic_store_n(&p[part], add, __ATOMIC_RELAXED);
      }
    __atomic_store_n(&p[w - 2], 0, __ATOMIC_RELAXED);
  }
}

/* A hash of a recorded process's program and type (what an exec changes). */
static uint64_t rec_ident(const mi_rec_proc *p) { return mi_host_hash(MI_HOST_HASH0 ^ (uint32_t)p->ptype, p->program, sizeof p->program); }

/* Makes the system's processes those the reader holds alive (deaths, then births; a process
 * that ran another program takes its new program and type). */
static void sync_procs(mi_system *sys, rstate *st) {
  for (int s = 0; s < MI_MAX_PROCESSES; s++) {
    const mi_rec_proc *p = mi_rec_process(st->rd, s);
    int want = p && p->alive;
    int have = st->map[s].slot >= 0 && st->map[s].pid != 0;
    if (have && (!want || p->pid != st->map[s].pid || p->start_ticks != st->map[s].start)) {
      if (p && !p->alive && p->pid == st->map[s].pid && p->start_ticks == st->map[s].start && p->end_ticks > 0)
        end_levels(sys, st, st->map[s].slot, p->end_ticks);
      mi_host_proc_exit(sys, st->map[s].slot);
      st->map[s].pid = 0; st->map[s].slot = -1;
      have = 0;
    }
    if (want && have && p->seen != st->map[s].seen) {   /* read again: perhaps another program */
      st->map[s].seen = p->seen;
      uint64_t ident = rec_ident(p);
      if (ident != st->map[s].ident) {
        char prog[3][17];
        for (int k = 0; k < 3; k++) cstr(prog[k], p->program + 16 * k, 16);
        mi_host_proc_identity(sys, st->map[s].slot, prog[0], prog[1], prog[2], p->ptype);
        st->map[s].ident = ident;
      }
    }
    if (want && !have) {
      char prog[3][17], user[3][17];
      for (int k = 0; k < 3; k++) { cstr(prog[k], p->program + 16 * k, 16); cstr(user[k], p->user + 16 * k, 16); }
      mi_proc_desc d = {0};
      d.pid = p->pid;
      d.program = prog[0]; d.program_group = prog[1]; d.program_account = prog[2];
      d.user = user[0]; d.user_group = user[1]; d.account = user[2];
      d.js_type = (int)(p->js >> 14) & 3;
      d.js_num = (int)(p->js & 0x3FFF);
      d.proc_type = p->ptype;
      d.start_ticks = p->start_ticks > 0 ? p->start_ticks : 1;
      int slot = mi_host_proc_create(sys, &d);
      st->map[s].slot = slot;
      st->map[s].pid = slot >= 0 ? p->pid : 0;
      st->map[s].start = p->start_ticks;
      st->map[s].ident = rec_ident(p);
      st->map[s].seen = p->seen;
    }
  }
}

/* Makes the system's CPUs, LDEVs and configuration the recorded ones. */
static void sync_machine(mi_system *sys, rstate *st) {
  int n = mi_rec_cpus(st->rd);
  if (n >= 1 && n != mi_host_cpus(sys)) mi_host_set_cpus(sys, n);
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    int t = mi_rec_device(st->rd, l);
    if (t != mi_host_device(sys, l)) mi_host_set_device(sys, l, t);
  }
  for (int item = 3001; item <= 3046; item++) {
    int size;
    const uint8_t *v = mi_rec_config(st->rd, item, &size);
    const mi_config_info *c = mi_config_lookup(item);
    if (!v || !c || (st->cfg_set[item - 3000] && memcmp(st->cfg[item - 3000], v, (size_t)size) == 0)) continue;
    memcpy(st->cfg[item - 3000], v, (size_t)size);
    st->cfg_set[item - 3000] = 1;   /* a recorded 0 differs from a default too */
    if ((c->type == MI_CT_I32 || c->type == MI_CT_BOOL) && size == 4) {
      int32_t x;
      memcpy(&x, v, 4);
      mi_host_config_set(sys, item, x);
    } else if (c->type == MI_CT_CA8 && size == 8) {
      char t[9];
      cstr(t, (const char *)v, 8);
      mi_host_config_text(sys, item, t);
    } else if (c->type == MI_CT_BA96 || c->type == MI_CT_BA64) mi_host_config_mask(sys, item, v, size);   /* 3015, 3016 */
  }
}

/* Installs the segment's user-defined counters in the replayed system (same number, name, kind,
 * unit, help, domain, elements and owner, installed in the recorded order; a counter already
 * there under its name and shape is taken as it is). A name the program took for a counter of
 * another shape leaves that recorded counter out (it reads 0; udef_lost counts it). */
static void sync_udefs(mi_system *sys, rstate *st) {
  const mi_rec_udef *tab;
  int n = mi_rec_udefs(st->rd, &tab);
  for (int k = 0; k < n; k++) {
    const mi_rec_udef *u = &tab[k];
    const mi_udef_info *have = mi_udef_find(sys, u->name);
    st->uok[k] = 0;
    if (have) {
      if (have->kind == u->kind && have->elements == u->elements && have->item.domain == u->item.domain) {
        st->uh[k] = have->handle;
        st->uok[k] = 1;
      } else st->udef_lost++;
      continue;
    }
    mi_udef_desc d = {u->name, u->kind, u->unit, u->help, u->item.domain == MI_DOM_PROCESS, u->elements};
    if (mi_udef_install_as(sys, &d, u->owner_pid, &st->uh[k]) == 0) st->uok[k] = 1;
    else st->udef_lost++;
  }
}

/* Builds the table folding recorded object classes onto the store's mapping m. */
static void make_fold(rstate *st, int m) {
  int rm = mi_rec_info_get(st->rd)->mapping;
  st->fold_m = m;
  int rn = mi_objcl_len(rm);
  for (int c = 0; c < 720; c++) st->fold[c] = -1;
  if (m < 0 || rn < 0) return;
  if (rm <= m) for (int c = 0; c < rn; c++) st->fold[c] = (int16_t)mi_objcl_fold(rm, m, c);
  else {   /* the recording is coarser: each recorded class lands in the first store class of it */
    int sn = mi_objcl_len(m);
    for (int j = sn - 1; j >= 0; j--) {
      int c = mi_objcl_fold(m, rm, j);
      if (c >= 0 && c < rn) st->fold[c] = (int16_t)j;
    }
  }
}

/* Writes the recorded cells of the latest sample into the store (counters somebody enabled). */
static void put_cells(mi_system *sys, rstate *st) {
  int m = mi_host_mapping(sys);
  if (m != st->fold_m) make_fold(st, m);
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    const mi_rec_item *its;
    int rw, ni = mi_rec_layout(st->rd, d, &its, &rw);
    const int32_t *keys;
    int n = mi_rec_present(st->rd, d, &keys);
    for (int i = 0; i < ni; i++) {
      const mi_item_info *it = its[i].it;
      if (!it || it->kind == MI_KIND_PSEUDO) continue;
      uint32_t uk = (uint32_t)its[i].item - MI_UDEF_FIRST;
      if (uk < MI_UDEF_MAX) {   /* a user-defined counter: its raw cells (levels and since-times too) */
        if (!st->uok[uk]) continue;
        for (int k = 0; k < n; k++) {
          int e = keys[k];
          if (d == MI_DOM_PROCESS) { e = st->map[keys[k]].slot; if (e < 0) continue; }
          int64_t *p = mi_host_cell_(sys, st->uh[uk].c, e, 0);
          if (!p) break;
          const int64_t *row = mi_rec_row(st->rd, d, keys[k]) + its[i].at;
          int moved = 0;
          for (int w = 0; w < its[i].words; w++)
            if (p[w] != row[w]) { __atomic_store_n(&p[w], row[w], __ATOMIC_RELAXED); moved = 1; }
          if (moved && d == MI_DOM_PROCESS) mi_host_mark(sys, e);   /* read-active's CHANGED looks again */
        }
        continue;
      }
      mi_ctr c = mi_host_counter(it->item);
      for (int k = 0; k < n; k++) {
        int e = keys[k];
        if (d == MI_DOM_PROCESS) { e = st->map[keys[k]].slot; if (e < 0) continue; }
        int64_t *p = mi_host_cell_(sys, c, e, 0);
        if (!p) break;   /* nobody counts it (the same for every entity) */
        const int64_t *row = mi_rec_row(st->rd, d, keys[k]) + its[i].at;
        if (it->kind == MI_KIND_SIMPLE) {   /* a process row is marked only when a value moved (CHANGED) */
          if (*p != row[0]) { __atomic_store_n(p, row[0], __ATOMIC_RELAXED); if (d == MI_DOM_PROCESS) mi_host_mark(sys, e); }
          continue;
        }
        if (d == MI_DOM_PROCESS) mi_host_mark(sys, e);
        if (it->kind == MI_KIND_SEMCL) for (int w = 0; w < its[i].words && w < 256; w++) __atomic_store_n(&p[w], row[w], __ATOMIC_RELAXED);
        else {
          int sn = mi_objcl_len(m);
          for (int j = 0; j < sn; j++) __atomic_store_n(&p[j], 0, __ATOMIC_RELAXED);
          for (int w = 0; w < its[i].words && w < 720; w++)
            if (st->fold[w] >= 0 && st->fold[w] < sn) __atomic_store_n(&p[st->fold[w]], p[st->fold[w]] + row[w], __ATOMIC_RELAXED);
        }
      }
    }
  }
}

/* 1 for the events that happen at their time: samples, entity and configuration changes, headers
 * (a continued one comes with the sample that first holds the counters it adds). */
static int is_timed(int ty) { return ty == MI_REV_SAMPLE || ty == MI_REV_ENTITY || ty == MI_REV_CONFIG || ty == MI_REV_SEGMENT; }

/* a + b, held at the ends of 64 bits (a file may claim any times). */
static int64_t sat_add(int64_t a, int64_t b) {
  int64_t c;
  return __builtin_add_overflow(a, b, &c) ? (b > 0 ? INT64_MAX : INT64_MIN) : c;
}

/* The next event's type and its time on the replay's clock, without reading it (the reader's state
 * stays that of the sample shown). A timed event earlier than the one before it (the recorded clock
 * went back: a segment from another clock appended, a clock stepped back) moves the replay's clock
 * on instead: from then on recorded times are shown shifted, the step one sample interval after the
 * sample before it, so every sample is played, in file order. */
static int peek(rstate *st, int64_t *t) {
  int64_t raw = 0;
  int ty = mi_rec_peek(st->rd, &raw);
  if (is_timed(ty)) {
    if (st->have_raw && raw < st->last_raw)
      st->shift = sat_add(st->shift, sat_add(sat_add(st->last_raw, raw == INT64_MIN ? INT64_MAX : -raw), st->gap));
    st->last_raw = raw;
    st->have_raw = 1;
  }
  if (t) *t = sat_add(raw, st->shift);
  return ty;
}

/* Applies the events up to time t (and within the window); the store then shows the latest sample. */
static void pump(mi_system *sys, rstate *st, int64_t t) {
  int64_t nt;
  int ty;
  while ((ty = peek(st, &nt)) != MI_REV_END) {
    int timed = is_timed(ty);
    if (timed && nt > st->to) { st->ended = 1; break; }
    if (timed && st->have_sample && nt > t) break;
    mi_rec_event *ev = &st->ev;
    mi_rec_next(st->rd, ev);
    switch (ev->type) {
    case MI_REV_DAMAGE:
      if (!st->damage++) st->damage_at = ev->offset;
      st->damage_bytes += ev->bytes;
      break;
    case MI_REV_TORN:
      st->torn = 1; st->torn_at = ev->offset; st->torn_bytes = ev->bytes;
      break;
    case MI_REV_SEGMENT:
      sync_udefs(sys, st);
      if (mi_rec_info_get(st->rd)->continued) break;   /* the same recording: its key follows */
      sync_machine(sys, st);
      sync_procs(sys, st);
      break;
    case MI_REV_ENTITY: case MI_REV_CONFIG:
      sync_machine(sys, st);
      sync_procs(sys, st);
      break;
    case MI_REV_SAMPLE: {
      if (ev->skipped) { st->unreadable++; break; }
      sync_machine(sys, st);
      sync_procs(sys, st);
      put_cells(sys, st);
      st->gen = mi_host_layout_gen(sys);
      int64_t at = sat_add(ev->time, st->shift);   /* on the replay's clock */
      int64_t gap;
      if (st->have_last && ev->time > st->last_sample && !__builtin_sub_overflow(ev->time, st->last_sample, &gap)) st->gap = gap;
      st->last_sample = ev->time;
      st->have_last = 1;
      if (at > mi_host_now(sys)) mi_host_set_now(sys, at);
      st->shown = at;
      if (at >= st->from) { st->have_sample = 1; st->applied++; }
      break;
    }
    default: break;
    }
  }
  if (peek(st, &nt) == MI_REV_END) st->ended = 1;
}

/* The refresh hook: a paced replay follows the wall clock; otherwise the program steps it. */
static void replay_refresh(mi_system *sys, void *arg) {
  rstate *st = arg;
  if (st->speed > 0) {
    double adv = (double)(mono_ms() - st->wall0_ms) * st->speed * st->tpm;
    st->clock = st->clock0 + (int64_t)adv;
  }
  pump(sys, st, st->clock);
  /* counters enabled since the sample was applied show its values too, not zeros */
  if (st->have_sample && mi_host_layout_gen(sys) != st->gen) {
    put_cells(sys, st);
    st->gen = mi_host_layout_gen(sys);
  }
}

/* Frees a replay's state. */
static void replay_close(void *arg) {
  rstate *st = arg;
  if (!st) return;
  mi_rec_close(st->rd);
  free(st);
}

/* What a time may be, for the messages that refuse one. */
#define TIME_FORMS "ISO 8601, a date, a time of day such as 10:51, @TICKS, or an offset in range: a decimal number and s, m, h or d, " \
                   "such as +10m from the start or -1.5h from the end"

/* Writes ticks as ISO 8601 UTC text (milliseconds shown) into buf. */
static const char *stamp(char *buf, size_t n, int64_t ticks, int32_t tpm) {
  int64_t ms = ticks / tpm;
  time_t t = (time_t)(ms / 1000);
  struct tm tmv;
  if (ms < 0 || !gmtime_r(&t, &tmv)) { snprintf(buf, n, "@%lld", (long long)ticks); return buf; }
  snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tmv.tm_year + 1900, tmv.tm_mon + 1, tmv.tm_mday, tmv.tm_hour,
           tmv.tm_min, tmv.tm_sec, (int)(ms % 1000));
  return buf;
}

/* Refuses a window that holds no sample (#30.4): says the window and the recording's span; -1. */
static int empty_window(const rstate *st, char *err, size_t errlen) {
  char a[80], b[80], c[80], d[80];
  if (st->to < st->from && st->from <= st->last && st->to >= st->first) snprintf(err, errlen, "the window is empty: it ends (%s) before it starts (%s)", stamp(b, sizeof b, st->to, st->tpm),
                                  stamp(a, sizeof a, st->from, st->tpm));
  else snprintf(err, errlen, "the window %s .. %s holds no sample of the recording (%s .. %s)", stamp(a, sizeof a, st->from, st->tpm),
                stamp(b, sizeof b, st->to, st->tpm), stamp(c, sizeof c, st->first, st->tpm), stamp(d, sizeof d, st->last, st->tpm));
  return -1;
}

/* Reads "from=..,to=..,speed=.." into st (times relative to the recording's span); 0 or -1. */
static int parse_window(rstate *st, const char *w, char *err, size_t errlen) {
  char from[128] = "", to[128] = "", speed[32] = "";
  while (w && *w) {
    const char *comma = strchr(w, ',');
    size_t len = comma ? (size_t)(comma - w) : strlen(w);
    char *dst = NULL;
    size_t cap = 0, k = 0;
    if (len > 5 && strncmp(w, "from=", 5) == 0) { dst = from; cap = sizeof from; k = 5; }
    else if (len > 3 && strncmp(w, "to=", 3) == 0) { dst = to; cap = sizeof to; k = 3; }
    else if (len > 6 && strncmp(w, "speed=", 6) == 0) { dst = speed; cap = sizeof speed; k = 6; }
    if (!dst || len - k >= cap) { snprintf(err, errlen, "bad replay window '%.*s' (from=T,to=T,speed=N|max)", (int)len, w); return -1; }
    memcpy(dst, w + k, len - k);
    dst[len - k] = 0;
    w = comma ? comma + 1 : NULL;
  }
  st->from = st->first;
  st->to = st->last;
  /* "+x" counts from the start ("to": from "from"), "-x" back from the end; a time of day is the
   * one nearest the start ("to": "from") (#30.4) */
  if (from[0] && mi_rec_parse_time(from, from[0] == '-' ? st->last : st->first, st->tpm, &st->from) < 0)
    { snprintf(err, errlen, "bad time '%s' (" TIME_FORMS ")", from); return -1; }
  if (to[0] && mi_rec_parse_time(to, to[0] == '-' ? st->last : st->from, st->tpm, &st->to) < 0)
    { snprintf(err, errlen, "bad time '%s' (" TIME_FORMS ")", to); return -1; }
  if (st->from > st->last || st->to < st->first || st->to < st->from) return empty_window(st, err, errlen);
  if (st->from < st->first) st->from = st->first;   /* the window is clamped to the file's span */
  if (st->to > st->last) st->to = st->last;
  if (st->steps_back > 0) {   /* played whole, in file order, on a clock that goes on at each step back */
    if (from[0] || to[0]) {
      snprintf(err, errlen, "the recorded clock goes back %lld time(s) in this file: a replay plays it whole (no from/to window; "
               "scripts/summary.lua and export.lua take one)", (long long)st->steps_back);
      return -1;
    }
    st->from = st->first;
    st->to = INT64_MAX;
  }
  st->speed = 0;
  if (speed[0] && strcmp(speed, "max") != 0) {
    char *e;
    st->speed = strtod(speed, &e);
    if (*e || !(st->speed > 0) || st->speed > 1e6) { snprintf(err, errlen, "bad speed '%s' (a number > 0 or max)", speed); return -1; }
  }
  return 0;
}

/* Opens the replay of the recording at arg on sys. */
static int replay_open(mi_system *sys, const char *arg, const mi_source_args *a, char *err, size_t errlen) {
  char e2[256];
  if (!err || !errlen) { err = e2; errlen = sizeof e2; }
  if (!arg || !arg[0]) { snprintf(err, errlen, "replay needs a recording: replay:PATH"); return -1; }
  rstate *st = calloc(1, sizeof *st);
  if (!st) { snprintf(err, errlen, "out of memory"); return -1; }
  st->rd = mi_rec_open(arg, err, errlen);
  if (!st->rd) { free(st); return -1; }
  /* the window and the clock's steps back from the frames themselves: a span mark that hides a
   * step would let a window drop samples after it (the replay reads every frame anyway) */
  mi_rec_span_frames(st->rd);
  const mi_rec_info *in = mi_rec_info_get(st->rd);
  st->tpm = in->tpm > 0 ? in->tpm : 1;
  st->first = in->first_time;
  st->last = in->last_time;
  st->steps_back = in->steps_back;
  st->gap = (int64_t)1000 * st->tpm;   /* one second until the file shows its interval */
  st->fold_m = -2;
  for (int s = 0; s < MI_MAX_PROCESSES; s++) st->map[s].slot = -1;
  if (st->first < 0) { snprintf(err, errlen, "'%s' holds no sample", arg); replay_close(st); return -1; }
  if (parse_window(st, a ? a->window : NULL, err, errlen) < 0) { replay_close(st); return -1; }
  mi_host_config_set(sys, 3043, st->tpm);
  mi_host_rebase(sys, st->from > 0 ? st->from - 1 : 0);
  mi_rec_seek(st->rd, st->from);
  st->clock = st->from;
  pump(sys, st, st->from);
  if (!st->have_sample) { empty_window(st, err, errlen); replay_close(st); return -1; }   /* between two samples */
  st->clock0 = st->shown > st->from ? st->shown : st->from;
  st->clock = st->clock0;
  st->wall0_ms = mono_ms();
  if (mi_source_attach(sys, &mi_source_replay_ops, st) != 0) { replay_close(st); snprintf(err, errlen, "cannot attach the replay"); return -1; }
  return 0;
}

/* What a program may choose of a replay: its window and pace (mi_source_args.window). */
static const mi_source_option replay_options[] = {
  {"from", MI_SOPT_TEXT, MI_SOPT_TO_WINDOW, 0, 0, "T", "the window's start: ISO 8601, a date, a time of day (10:51), +10m from the start"},
  {"to", MI_SOPT_TEXT, MI_SOPT_TO_WINDOW, 0, 0, "T", "the window's end: as --from, or -1m from the end"},
  {"speed", MI_SOPT_TEXT, MI_SOPT_TO_WINDOW, 0, 0, "N|max", "the pace: N times the recorded one, or max (each sleep steps the recording)"},
  {NULL, 0, 0, 0, 0, NULL, NULL},
};

const mi_source_ops mi_source_replay_ops = {"replay", "a recording played back (replay:PATH, mish --replay)", replay_open,
                                             replay_refresh, replay_close, replay_options};

/* The replay state of sys, or NULL. */
static rstate *state_of(mi_system *sys) {
  return sys && mi_system_source_ops(sys) == &mi_source_replay_ops ? mi_system_source(sys) : NULL;
}

int mi_replay_step(mi_system *sys, int64_t ms) {
  rstate *st = state_of(sys);
  if (!st) return -1;
  if (ms < 0) ms = 0;
  mi_host_begin(sys);
  int64_t before = st->shown, nt, span, gap;
  int ty;
  /* the sleep counts from the sample shown, not from a clock that adds up each sample's lateness;
   * a sample is applied when the sleep covers more than half of the recorded interval before it,
   * so a sleep of n intervals lands on the n-th sample though each was taken a few ms late (#30.7) */
  if (__builtin_mul_overflow(ms, (int64_t)st->tpm, &span)) span = INT64_MAX;
  int64_t target = sat_add(st->shown, span);
  while (!st->ended && (ty = peek(st, &nt)) != MI_REV_END) {
    if (!is_timed(ty)) { pump(sys, st, st->shown); continue; }   /* damage, marks: pump reads them at once */
    int64_t half = nt > st->shown && !__builtin_sub_overflow(nt, st->shown, &gap) ? gap / 2 : 0;   /* a file may claim any times */
    if (nt - half > target) break;
    pump(sys, st, nt);
  }
  st->clock = st->shown;
  /* at least to the next sample: a script's interval is never shorter than the recording's */
  while (st->shown == before && !st->ended && (ty = peek(st, &nt)) != MI_REV_END) {
    if (is_timed(ty) && nt > st->clock) st->clock = nt;
    pump(sys, st, st->clock);
  }
  mi_host_publish(sys);
  return st->shown != before ? 1 : 0;
}

int64_t mi_replay_clock_ms(mi_system *sys) {
  rstate *st = state_of(sys);
  return st ? st->shown / st->tpm : -1;
}

int mi_replay_ended(mi_system *sys) {
  rstate *st = state_of(sys);
  if (!st) return -1;
  mi_host_begin(sys);   /* the refresh may be moving it: read under the writer lock */
  int e = st->ended;
  mi_host_publish(sys);
  return e;
}

int64_t mi_replay_samples(mi_system *sys) {
  rstate *st = state_of(sys);
  if (!st) return -1;
  mi_host_begin(sys);   /* the refresh may be moving it: read under the writer lock */
  int64_t n = st->applied;
  mi_host_publish(sys);
  return n;
}

int mi_replay_state(mi_system *sys, char *text, size_t n) {
  rstate *st = state_of(sys);
  if (!st) return -1;
  if (text && n) {   /* the words of mi.recording_state and verify.lua (#30.6) */
    size_t k = 0;
    text[0] = 0;
    if (st->damage) k += (size_t)snprintf(text, n, "%d damaged region(s), %lld bytes skipped (first at offset %lld)", st->damage,
                                          (long long)st->damage_bytes, (long long)st->damage_at);
    if (st->unreadable && k < n) k += (size_t)snprintf(text + k, n - k, "%s%lld whole sample(s) unreadable after damage (no key since)",
                                                       k ? "; " : "", (long long)st->unreadable);
    if (st->torn && k < n) snprintf(text + k, n - k, "%storn tail at offset %lld (%lld bytes)", k ? "; " : "", (long long)st->torn_at,
                                    (long long)st->torn_bytes);
  }
  return st->damage || st->torn;
}
