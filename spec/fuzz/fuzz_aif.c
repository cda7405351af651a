/* fuzz_aif.c — every AIF entry point and the writer API over 2-3 sessions on one system.
 * The input is decoded as a system setup and then a sequence of calls: item lists with and
 * without terminator, random sizes and mappings, pids, ldevs, NULL optionals, misaligned
 * pointers (always into memory the harness owns), writer calls with good and bad handles.
 * After each call: statuses from Appendix A, nothing written past a buffer or a status
 * array, GET item statuses that agree with the caller's ONs, zero slots for failed items,
 * per-class arrays adding up to their totals, PUT all-or-nothing. */
#include "fuzz_common.h"

#define UID 666
#define MAX_OPS 300

typedef struct world {
  mi_system *sys;
  fz_ses ses[3];
  int nses;
  fz_epochs ep;
  uint64_t op;
  int64_t pids[64];
  int npids;
  int32_t uids[8];
  int nuids;
} world;

static world W;
static char regdir[128], regpath[160];

/* Prepares a private directory for registry files; no registry from the environment. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  setenv("TZ", "UTC", 1);
  snprintf(regdir, sizeof regdir, "%s", fz_scratch_dir("aif"));
  snprintf(regpath, sizeof regpath, "%s/aifkuf", regdir);
  return 0;
}

/* ---- argument pickers ---- */

/* A user ID to pass: 0 (not passed), the installed one, another installed one, or junk. */
static int32_t pick_uid(fz_in *in, world *w) {
  uint8_t k = fz_u8(in);
  if (k < 60) return 0;
  if (k < 220) return UID;
  if (k < 220 && w->nuids) return w->uids[fz_u8(in) % w->nuids];
  return fz_int32(in);
}

/* A mapping value: mostly 0-2. */
static int32_t pick_mapping(fz_in *in) {
  uint8_t k = fz_u8(in);
  if (k < 230) return k % 3;
  return fz_int32(in);
}

/* A session of the world. */
static fz_ses *pick_ses(fz_in *in, world *w) { return &w->ses[fz_u8(in) % w->nses]; }

/* An int32 pointer argument: NULL, misaligned, or an owned cell holding v. */
typedef struct fz_cell { uint8_t mem[16]; int32_t *p; } fz_cell;
static void pick_cell(fz_in *in, fz_cell *c, int32_t v, int allow_null) {
  uint8_t k = fz_u8(in);
  memset(c->mem, 0, sizeof c->mem);
  if (allow_null && k < 6) { c->p = NULL; return; }
  int sh = k < 10 ? 1 + k % 3 : 0;
  c->p = (int32_t *)(void *)((uint8_t *)(((uintptr_t)c->mem + 7) & ~(uintptr_t)7) + sh);
  memcpy(c->p, &v, 4);
}

/* A pid value: -1, a pid the harness created, a system pid, or anything. */
static int64_t pick_pid(fz_in *in, world *w) {
  uint8_t k = fz_u8(in);
  if (k < 60) return -1;
  if (k < 160 && w->npids) return w->pids[fz_u8(in) % w->npids];
  if (k < 200) return 1 + fz_u8(in) % 10;
  return fz_int64(in);
}
/* A longint_type pointer: NULL, misaligned or owned. */
typedef struct fz_lcell { uint8_t mem[24]; longint_type *p; } fz_lcell;
static void pick_lcell(fz_in *in, fz_lcell *c, int64_t v) {
  uint8_t k = fz_u8(in);
  if (k < 6) { c->p = NULL; return; }
  int sh = k < 10 ? 1 + k % 3 : 0;
  c->p = (longint_type *)(void *)((uint8_t *)(((uintptr_t)c->mem + 7) & ~(uintptr_t)7) + sh);
  longint_type l; mi_longint_set(&l, v);
  memcpy(c->p, &l, sizeof l);
}

/* An ldev selector: -1, a type, a configured LDEV, or anything. */
static int32_t pick_ldev(fz_in *in, world *w) {
  uint8_t k = fz_u8(in);
  if (k < 50) return -1;
  if (k < 120) return -2 - fz_u8(in) % 10;
  if (k < 200) {
    int l = 1 + fz_u16(in) % MI_MAX_LDEV;
    for (int t = 0; t < MI_MAX_LDEV && !mi_host_device(w->sys, l); t++) l = l % MI_MAX_LDEV + 1;
    return l;
  }
  return fz_int32(in);
}

/* A buffer size for records of rec bytes: exact, short by a little, zero, negative, random. */
static int32_t pick_size(fz_in *in, int64_t rec, int maxrec) {
  uint8_t k = fz_u8(in);
  int64_t s;
  if (k < 120) s = rec * (1 + fz_u8(in) % (maxrec > 0 ? maxrec : 1));
  else if (k < 170) s = rec * (1 + fz_u8(in) % 4) - 1 - fz_u8(in) % 8;
  else if (k < 185) s = 0;
  else if (k < 195) s = -1 - fz_u8(in) % 100;
  else s = fz_u32(in) % 65536;
  if (s > (1 << 22)) s = 1 << 22;
  return (int32_t)s;
}

/* A GET buffer: owned memory of size bytes plus canary, passed NULL, misaligned or aligned. */
typedef struct fz_buf { uint8_t *mem; uint8_t *p; int32_t size; } fz_buf;
static void pick_buf(fz_in *in, fz_buf *b, int32_t size) {
  size_t n = size > 0 ? (size_t)size : 0;
  b->size = size;
  b->mem = fz_alloc(n + 4);
  uint8_t k = fz_u8(in);
  int sh = k < 4 ? 1 + k % 3 : 0;
  b->p = b->mem + sh;
  memset(b->mem, 0x5A, n + (size_t)sh);
  memset(b->p + n, FZ_CANARY_BYTE, FZ_CANARY);
  if (k >= 4 && k < 8) b->p = NULL;
}
/* Checks the canary after a buffer and frees it. */
static void done_buf(fz_buf *b, const char *call) {
  if (b->p) fz_canary_check(b->p, b->size > 0 ? (size_t)b->size : 0, call);
  free(b->mem);
}

#define SENTINEL 0x7EEEEEEE
/* An item status array for n items: owned, sentinel-filled, with canary; or NULL/misaligned. */
typedef struct fz_stats { uint8_t *mem; int32_t *p; int n; } fz_stats;
static void pick_stats(fz_in *in, fz_stats *s, int n) {
  int m = n > 0 ? n : 0;
  s->n = m;
  s->mem = fz_alloc(sizeof(int32_t) * (size_t)m + 4);
  int32_t *a = (int32_t *)(void *)s->mem;
  for (int i = 0; i < m; i++) a[i] = SENTINEL;
  memset((uint8_t *)(a + m), FZ_CANARY_BYTE, FZ_CANARY);
  uint8_t k = fz_u8(in);
  if (k < 4) s->p = NULL;
  else if (k < 8) { s->p = (int32_t *)(void *)(s->mem + 2); }   /* misaligned: must be refused unread */
  else s->p = a;
}
/* Checks the status array's canary and frees it. */
static void done_stats(fz_stats *s, const char *call) {
  if (s->p == (int32_t *)(void *)s->mem) fz_canary_check(s->mem, sizeof(int32_t) * (size_t)s->n, call);
  free(s->mem);
}
/* 1 if a call wrote the statuses (the array was usable). */
static int stats_usable(const fz_stats *s) { return s->p == (int32_t *)(void *)s->mem; }

/* 1 if an overall status says the call went through (0, an item index or a warning). */
static int went_through(status_type st) { return st.all == 0 || st.s.info > 0; }

/* Sets the upper-case API's caller to m (for the upper-case forms). */
static int use_upper(fz_in *in, fz_ses *m) {
  if (fz_u8(in) < 64) { mi_session_use(m->s); return 1; }
  return 0;
}

/* ---- the AIF calls ---- */

/* MIGLOBON / MIPROCON / MIIOON. */
static void op_on(world *w, fz_in *in, int domain) {
  fz_ses *m = pick_ses(in, w);
  fz_list L; fz_make_list(in, domain, &L);
  fz_remember(m, domain, &L);
  fz_stats S; pick_stats(in, &S, L.n);
  fz_cell map; pick_cell(in, &map, pick_mapping(in), 1);
  fz_cell ldev; pick_cell(in, &ldev, pick_ldev(in, w), 1);
  fz_lcell pid; pick_lcell(in, &pid, pick_pid(in, w));
  int32_t uid = pick_uid(in, w);
  status_type st = {.all = 0x11111111};
  int up = use_upper(in, m);
  const char *call = domain == MI_DOM_GLOBAL ? "MIGLOBON" : domain == MI_DOM_PROCESS ? "MIPROCON" : "MIIOON";
  int32_t map_before = 0, map_after = 0;
  if (map.p) memcpy(&map_before, map.p, 4);
  if (domain == MI_DOM_GLOBAL) { if (up) MIGLOBON(&st, L.nums, S.p, map.p, uid); else mi_globon(m->s, &st, L.nums, S.p, map.p, uid); }
  else if (domain == MI_DOM_PROCESS) { if (up) MIPROCON(&st, L.nums, S.p, map.p, pid.p, uid); else mi_procon(m->s, &st, L.nums, S.p, map.p, pid.p, uid); }
  else { if (up) MIIOON(&st, L.nums, S.p, map.p, ldev.p, uid); else mi_ioon(m->s, &st, L.nums, S.p, map.p, ldev.p, uid); }
  mi_session_use(NULL);
  FZ_TRACE("%s session %d: %d items, status %d\n", call, (int)(m - w->ses), L.n, st.s.info);
  fz_check_overall(st, L.n, call);
  if (stats_usable(&S)) {
    for (int i = 0; i < S.n; i++) if (S.p[i] != SENTINEL) fz_check_item_status(S.p[i], call, i);
    if (went_through(st)) {
      for (int i = 0; i < S.n; i++) FZ_CHECK(S.p[i] != SENTINEL, "%s: status %d: item status %d not written", call, st.s.info, i);
      fz_model_on(domain == MI_DOM_GLOBAL ? m->glob : domain == MI_DOM_PROCESS ? m->proc : m->io, st, L.copy, S.p, L.n);
    }
  }
  if (map.p) memcpy(&map_after, map.p, 4);
  if (st.all == MI_STATUS_ALL(MI_E_MAPPING_NOT_GIVEN) && map.p)
    FZ_CHECK(map_after == w->sys->seg->mapping, "%s: warning 20002 but mapping %d came back (system %d, asked %d)", call,
             map_after, w->sys->seg->mapping, map_before);
  done_stats(&S, call);
  fz_free_list(&L);
}

/* MIGLOBGET / MIPROCGET / MIIOGET / MIPRCSRGET with checks of every record. */
static void op_get(world *w, fz_in *in, int domain) {
  fz_ses *m = pick_ses(in, w);
  fz_list L; fz_make_list_again(in, m, domain, &L);
  fz_remember(m, domain, &L);
  int32_t mapping = pick_mapping(in);
  int mok = mapping >= 0 && mapping <= 2 ? mapping : 0;
  int64_t rec = L.n > 0 ? fz_record_bytes(L.copy, L.n, domain, mok) : 0;
  int32_t size = pick_size(in, rec ? rec : 4, domain == MI_DOM_GLOBAL ? 1 : domain == MI_DOM_PROCESSOR ? 9 : 40);
  if (domain == MI_DOM_GLOBAL && (fz_avoid & FZ_AVOID_CACHE) && size < rec) size = (int32_t)rec;
  fz_buf B; pick_buf(in, &B, size);
  fz_stats S; pick_stats(in, &S, L.n);
  fz_cell ldev; pick_cell(in, &ldev, domain == MI_DOM_PROCESSOR ? fz_range(in, -2, 9) : pick_ldev(in, w), 1);
  fz_cell count; pick_cell(in, &count, 0x33333333, 1);
  fz_lcell pid; pick_lcell(in, &pid, pick_pid(in, w));
  int32_t key = fz_u8(in) < 200 ? fz_range(in, 0, 2701) : fz_int32(in);
  fz_cell mkey; pick_cell(in, &mkey, key, 1);
  int32_t uid = pick_uid(in, w);
  status_type st = {.all = 0x11111111};
  int up = use_upper(in, m);
  const char *call = domain == MI_DOM_GLOBAL ? "MIGLOBGET" : domain == MI_DOM_PROCESS ? "MIPROCGET"
                     : domain == MI_DOM_IO ? "MIIOGET" : "MIPRCSRGET";
  if (fz_skip_nullrow(w->sys, domain)) { mi_session_use(NULL); done_buf(&B, call); done_stats(&S, call); fz_free_list(&L); return; }
  switch (domain) {
  case MI_DOM_GLOBAL:
    if (up) MIGLOBGET(&st, L.nums, B.p, S.p, size, mapping, uid);
    else mi_globget(m->s, &st, L.nums, B.p, S.p, size, mapping, uid);
    break;
  case MI_DOM_PROCESS:
    if (up) MIPROCGET(&st, L.nums, B.p, S.p, size, mapping, pid.p, count.p, mkey.p, uid);
    else mi_procget(m->s, &st, L.nums, B.p, S.p, size, mapping, pid.p, count.p, mkey.p, uid);
    break;
  case MI_DOM_IO:
    if (up) MIIOGET(&st, L.nums, B.p, S.p, size, mapping, ldev.p, count.p, uid);
    else mi_ioget(m->s, &st, L.nums, B.p, S.p, size, mapping, ldev.p, count.p, uid);
    break;
  default:
    if (up) MIPRCSRGET(&st, L.nums, B.p, S.p, size, mapping, ldev.p, count.p, uid);
    else mi_prcsrget(m->s, &st, L.nums, B.p, S.p, size, mapping, ldev.p, count.p, uid);
  }
  mi_session_use(NULL);
  FZ_TRACE("%s session %d: %d items, size %d, status %d\n", call, (int)(m - w->ses), L.n, size, st.s.info);
  fz_check_overall(st, L.n, call);
  fz_get g = {call, domain, mok, w->sys->seg->mapping, S.n, L.copy, S.p,
              domain == MI_DOM_PROCESS ? m->proc : domain == MI_DOM_IO ? m->io : m->glob,
              m->glob[21164 - 20000],
              &w->ep};
  int partial = st.all == MI_STATUS_ALL(MI_E_BUFFER_PARTIAL);
  if (stats_usable(&S)) {
    for (int i = 0; i < S.n; i++)
      if (S.p[i] != SENTINEL) {
        fz_get one = g; one.n = 1; one.nums = L.copy + i; one.stats = S.p + i;
        fz_check_get_statuses(&one);
      }
    if (went_through(st) || partial)
      for (int i = 0; i < S.n; i++) FZ_CHECK(S.p[i] != SENTINEL, "%s: status %d: item status %d not written", call, st.s.info, i);
  }
  if ((went_through(st) || partial) && B.p && stats_usable(&S) && L.n >= 0) {
    FZ_CHECK(mapping >= 0 && mapping <= 2, "%s: mapping %d accepted", call, (int)mapping);
    FZ_CHECK(rec <= size, "%s: status %d with a record of %lld bytes in a buffer of %d", call, st.s.info, (long long)rec, size);
    int32_t nrec = 1;
    if (domain != MI_DOM_GLOBAL) {
      if (!count.p || (uintptr_t)count.p & 3) nrec = 0;
      else memcpy(&nrec, count.p, 4);
      FZ_CHECK(nrec >= 0 && (int64_t)nrec * rec <= size, "%s: %d records of %lld bytes in %d", call, nrec, (long long)rec, size);
    }
    for (int r = 0; r < nrec; r++) {
      const uint8_t *p = B.p + (size_t)r * (size_t)rec;
      fz_check_record(&g, p, r);
      int32_t v;
      for (int i = 0, off = 0; i < L.n; off += fz_item_bytes(L.copy[i], domain, mok), i++) {
        if (S.p[i]) continue;
        memcpy(&v, p + off, 4);
        if (L.copy[i] == 20002) FZ_CHECK(v == 0 || v == 1, "%s: pid_state %d", call, v);
        if (L.copy[i] == 20020) FZ_CHECK(v >= 1 && v <= MI_MAX_LDEV && mi_bit(m->s->u->ldevs, v), "%s: record of ldev %d not enabled", call, v);
        if (L.copy[i] == 20040) FZ_CHECK(v >= 0 && v < MI_MAX_PROCESSORS, "%s: processor id %d", call, v);
      }
    }
  }
  done_buf(&B, call);
  done_stats(&S, call);
  fz_free_list(&L);
}

/* MIGLOBOFF / MIPROCOFF / MIIOOFF. */
static void op_off(world *w, fz_in *in, int domain) {
  fz_ses *m = pick_ses(in, w);
  fz_cell ldev; pick_cell(in, &ldev, pick_ldev(in, w), 1);
  fz_lcell pid; pick_lcell(in, &pid, pick_pid(in, w));
  int32_t uid = pick_uid(in, w);
  status_type st = {.all = 0x11111111};
  int up = use_upper(in, m);
  if (domain == MI_DOM_GLOBAL) { if (up) MIGLOBOFF(&st, uid); else mi_globoff(m->s, &st, uid); }
  else if (domain == MI_DOM_PROCESS) { if (up) MIPROCOFF(&st, pid.p, uid); else mi_procoff(m->s, &st, pid.p, uid); }
  else { if (up) MIIOOFF(&st, ldev.p, uid); else mi_iooff(m->s, &st, ldev.p, uid); }
  mi_session_use(NULL);
  FZ_TRACE("OFF domain %d session %d: status %d\n", domain, (int)(m - w->ses), st.s.info);
  fz_check_overall(st, 0, "OFF");
}

/* The current value of a configuration item, read from the system (for verification arrays). */
static void config_value(const mi_system *sys, const mi_config_info *c, uint8_t *dst) {
  switch (c->type) {
  case MI_CT_I32: memcpy(dst, &sys->seg->cfg[c->item - 3001], 4); break;
  case MI_CT_BOOL: dst[0] = sys->seg->cfg[c->item - 3001] != 0; break;
  case MI_CT_BA96: memcpy(dst, sys->seg->allow, 12); break;
  case MI_CT_BA64: memcpy(dst, sys->seg->logging, 8); break;
  default: memcpy(dst, c->item == 3037 ? sys->seg->text[0] : c->item == 3044 ? sys->seg->text[1] : sys->seg->text[2], 8);
  }
}

/* Configuration item lists, item pointer arrays and values for AIFSCGET/AIFSCPUT. */
typedef struct fz_cfg {
  fz_list L;
  uint8_t *ptrs_mem;
  void **items;         /* passed */
  uint8_t *vals;        /* n values of 32 bytes: value at +8 (or +9 misaligned), canary after */
  void **owned;         /* the aligned pointer array */
} fz_cfg;
static void make_cfg(fz_in *in, world *w, fz_cfg *c) {
  uint8_t shape = fz_u8(in);
  fz_list *L = &c->L;
  int n = shape < 240 ? fz_u8(in) % 10 : -1;
  int cap = MI_MAX_ITEMS + 1;
  L->mem = fz_alloc(sizeof(int32_t) * (size_t)cap + 8);
  int32_t *a = (int32_t *)(void *)L->mem;
  for (int i = 0; i < (n < 0 ? cap : n); i++) {
    uint8_t k = fz_u8(in);
    a[i] = k < 220 ? 3001 + k % 46 : fz_int32(in);
    if (!a[i]) a[i] = 3001;
  }
  if (n >= 0) a[n] = 0;
  L->n = n;
  memcpy(L->copy, a, sizeof(int32_t) * (size_t)(n < 0 ? 0 : n + 1));
  uint8_t pk = fz_u8(in);
  L->nums = a;
  if (pk < 6) L->nums = NULL;
  else if (pk < 10) { memmove(L->mem + 2, L->mem, sizeof(int32_t) * (size_t)cap); L->nums = (int32_t *)(void *)(L->mem + 2); }
  int m = n > 0 ? n : 0;
  c->ptrs_mem = fz_alloc(sizeof(void *) * (size_t)m + 8);
  c->owned = (void **)(void *)c->ptrs_mem;
  c->vals = fz_alloc(32 * (size_t)(m ? m : 1));
  memset(c->vals, 0x5A, 32 * (size_t)(m ? m : 1));
  for (int i = 0; i < m; i++) {
    uint8_t k = fz_u8(in);    /* the value pointer: misaligned, NULL or aligned */
    uint8_t *v = c->vals + 32 * i + 8 + (k < 12 ? 1 : 0);
    c->owned[i] = k >= 12 && k < 16 ? NULL : v;
    const mi_config_info *ci = mi_config_lookup(a[i]);
    uint8_t vm = fz_u8(in);   /* the value: the current one, a number, or raw bytes */
    if (vm < 64 && ci) config_value(w->sys, ci, v);
    else if (vm < 128) { int32_t x = fz_int32(in); memcpy(v, &x, 4); }
    else if (vm < 160 && ci && ci->has_range) { int32_t x = fz_range(in, ci->min - 1, ci->max + 1); memcpy(v, &x, 4); }
    else for (int b = 0; b < 12; b++) v[b] = fz_u8(in);
  }
  uint8_t ik = fz_u8(in);
  c->items = ik < 6 ? NULL : ik < 10 ? (void **)(void *)(c->ptrs_mem + 4) : c->owned;
  if (ik >= 6 && ik < 10) memmove(c->ptrs_mem + 4, c->ptrs_mem, sizeof(void *) * (size_t)m);
}
/* Frees what make_cfg allocated. */
static void free_cfg(fz_cfg *c) { fz_free_list(&c->L); free(c->ptrs_mem); free(c->vals); }

/* AIFSCGET: values written only for good items and only their size. */
static void op_scget(world *w, fz_in *in) {
  fz_ses *m = pick_ses(in, w);
  fz_cfg C; make_cfg(in, w, &C);
  for (int i = 0; i < (C.L.n > 0 ? C.L.n : 0); i++) memset(C.vals + 32 * i, 0x5A, 32);
  fz_stats S; pick_stats(in, &S, C.L.n);
  int32_t uid = pick_uid(in, w);
  status_type st = {.all = 0x11111111};
  if (use_upper(in, m)) AIFSCGET(&st, C.L.nums, C.items, S.p, uid);
  else mi_scget(m->s, &st, C.L.nums, C.items, S.p, uid);
  mi_session_use(NULL);
  FZ_TRACE("AIFSCGET: %d items, status %d\n", C.L.n, st.s.info);
  fz_check_overall(st, C.L.n, "AIFSCGET");
  if (stats_usable(&S) && C.items == C.owned)
    for (int i = 0; i < S.n; i++) {
      if (S.p[i] == SENTINEL) continue;
      fz_check_item_status(S.p[i], "AIFSCGET", i);
      const mi_config_info *ci = mi_config_lookup(C.L.copy[i]);
      const uint8_t *v = C.owned[i];
      int size = S.p[i] == 0 && ci ? mi_config_size(ci) : 0;
      if (!v) continue;
      const uint8_t *slot = C.vals + 32 * i;
      for (int b = 0; b < 32; b++) {
        int in_value = slot + b >= v && slot + b < v + size;
        if (!in_value) FZ_CHECK(slot[b] == 0x5A, "AIFSCGET: item %d (status %d, size %d) wrote byte %d of its slot",
                                (int)C.L.copy[i], (int)S.p[i], size, b);
      }
    }
  done_stats(&S, "AIFSCGET");
  free_cfg(&C);
}

/* A snapshot of a system's configuration, to check PUT is all or nothing. */
typedef struct cfg_snap { int32_t cfg[MI_NCONFIG]; uint8_t allow[12], logging[8]; char text[3][8]; } cfg_snap;
/* Copies the configuration of sys into s. */
static void snap(const mi_system *sys, cfg_snap *s) {
  memcpy(s->cfg, sys->seg->cfg, sizeof s->cfg); memcpy(s->allow, sys->seg->allow, 12);
  memcpy(s->logging, sys->seg->logging, 8); memcpy(s->text, sys->seg->text, sizeof s->text);
}

/* AIFSCPUT with none, some or all verification arrays; nothing changes unless status 0. */
static void op_scput(world *w, fz_in *in) {
  fz_ses *m = pick_ses(in, w);
  fz_cfg C; make_cfg(in, w, &C);
  fz_stats S; pick_stats(in, &S, C.L.n);
  uint8_t vk = fz_u8(in);
  int nver = vk < 100 ? 0 : vk < 200 ? 3 : vk % 3;
  fz_cfg V; make_cfg(in, w, &V);
  fz_stats VS; pick_stats(in, &VS, V.L.n);
  int32_t *vnums = NULL; void **vitems = NULL; int32_t *vstats = NULL;
  if (nver == 3) { vnums = V.L.nums; vitems = V.items; vstats = VS.p; }
  else if (nver) {   /* one or two of the three */
    uint8_t which = fz_u8(in);
    if (which & 1) vnums = V.L.nums;
    if (which & 2) vitems = V.items;
    if ((which & 4) || (!vnums && !vitems)) vstats = VS.p;
    if (vnums && vitems && vstats) vstats = NULL;
  }
  int32_t uid = pick_uid(in, w);
  cfg_snap before, after;
  snap(w->sys, &before);
  status_type st = {.all = 0x11111111};
  if (use_upper(in, m)) AIFSCPUT(&st, C.L.nums, C.items, S.p, uid, vnums, vitems, vstats);
  else mi_scput(m->s, &st, C.L.nums, C.items, S.p, uid, vnums, vitems, vstats);
  mi_session_use(NULL);
  FZ_TRACE("AIFSCPUT: %d items, %d verification arrays, status %d\n", C.L.n, nver, st.s.info);
  fz_check_overall(st, C.L.n, "AIFSCPUT");
  snap(w->sys, &after);
  if (st.all != 0) FZ_CHECK(memcmp(&before, &after, sizeof before) == 0, "AIFSCPUT: status %d but the configuration changed", st.s.info);
  else if (C.items == C.owned && C.L.n > 0) {
    for (int i = 0; i < C.L.n; i++) {
      const mi_config_info *ci = mi_config_lookup(C.L.copy[i]);
      int once = 1;
      for (int j = 0; j < C.L.n; j++) if (j != i && C.L.copy[j] == C.L.copy[i]) once = 0;
      if (!ci || !once || ci->type != MI_CT_I32 || !C.owned[i]) continue;
      int32_t v; memcpy(&v, C.owned[i], 4);
      FZ_CHECK(after.cfg[ci->item - 3001] == v, "AIFSCPUT: status 0 but item %d is %d, not %d", (int)ci->item,
               (int)after.cfg[ci->item - 3001], (int)v);
    }
  }
  if (stats_usable(&S)) for (int i = 0; i < S.n; i++) if (S.p[i] != SENTINEL) fz_check_item_status(S.p[i], "AIFSCPUT", i);
  if (stats_usable(&VS)) for (int i = 0; i < VS.n; i++) if (VS.p[i] != SENTINEL) fz_check_item_status(VS.p[i], "AIFSCPUT ver", i);
  done_stats(&S, "AIFSCPUT");
  done_stats(&VS, "AIFSCPUT ver");
  free_cfg(&C);
  free_cfg(&V);
}

/* AIFTIME: fields in range when it succeeds. */
static void op_time(world *w, fz_in *in) {
  fz_ses *m = pick_ses(in, w);
  int64_t t;
  if (fz_u8(in) < 128) { t = (int64_t)fz_u32(in) * 8000; t *= 1 + fz_u8(in) % 64; }
  else t = fz_int64(in);
  fz_lcell ticks; pick_lcell(in, &ticks, t);
  fz_lcell micro; pick_lcell(in, &micro, fz_u8(in) < 128 ? (int64_t)fz_u32(in) * 1000000 : fz_int64(in));
  uint8_t *mem = fz_alloc(64);
  memset(mem, 0x5A, 64);
  uint8_t k = fz_u8(in);
  clock_type *clk = k & 1 ? (clock_type *)(void *)mem : NULL;
  date_type *date = k & 2 ? (date_type *)(void *)(mem + 8 + (k & 8 ? 2 : 0)) : NULL;
  datestr_type *ds = k & 4 ? (datestr_type *)(void *)(mem + 32) : NULL;
  int32_t uid = pick_uid(in, w);
  status_type st = {.all = 0x11111111};
  if (use_upper(in, m)) AIFTIME(&st, ticks.p, micro.p, clk, date, ds, uid);
  else mi_time(m->s, &st, ticks.p, micro.p, clk, date, ds, uid);
  mi_session_use(NULL);
  FZ_TRACE("AIFTIME: status %d\n", st.s.info);
  fz_check_overall(st, 0, "AIFTIME");
  fz_canary_check(mem, 64, "AIFTIME");
  if (st.all == 0) {
    if (clk) FZ_CHECK(clk->hour < 24 && clk->min < 60 && clk->sec < 61 && clk->ten_sec < 10, "AIFTIME clock %d:%d:%d.%d",
                      clk->hour, clk->min, clk->sec, clk->ten_sec);
    if (date) { date_type d; memcpy(&d, date, sizeof d);
                FZ_CHECK(d.month >= 1 && d.month <= 12 && d.day_of_month >= 1 && d.day_of_month <= 31, "AIFTIME date %d-%d-%d",
                         d.year, d.month, d.day_of_month); }
  }
  free(mem);
}

/* AIFACCESSON / AIFACCESSOFF / AIFGLOBINSTALL. */
static void op_access(world *w, fz_in *in) {
  fz_ses *m = pick_ses(in, w);
  uint8_t which = fz_u8(in) % 3;
  int32_t uid = fz_u8(in) < 100 ? UID : fz_int32(in);
  status_type st = {.all = 0x11111111};
  int up = use_upper(in, m);
  if (which == 0) { if (up) AIFACCESSON(&st, uid); else mi_accesson(m->s, &st, uid); }
  else if (which == 1) { if (up) AIFACCESSOFF(&st, uid); else mi_accessoff(m->s, &st, uid); }
  else {
    if (up) AIFGLOBINSTALL(&st, uid); else mi_globinstall(m->s, &st, uid);
    if (st.all == 0) {
      FZ_CHECK(uid > 0 && mi_registry_has(w->sys, uid), "AIFGLOBINSTALL(%d) succeeded but the ID is not installed", (int)uid);
      if (w->nuids < 8) w->uids[w->nuids++] = uid;
    }
  }
  mi_session_use(NULL);
  FZ_TRACE("%s(%d): status %d\n", which == 0 ? "AIFACCESSON" : which == 1 ? "AIFACCESSOFF" : "AIFGLOBINSTALL", (int)uid, st.s.info);
  fz_check_overall(st, 0, which == 0 ? "AIFACCESSON" : which == 1 ? "AIFACCESSOFF" : "AIFGLOBINSTALL");
}

/* Privilege, a new caller in place of an old one. */
static void op_session(world *w, fz_in *in) {
  fz_ses *m = pick_ses(in, w);
  uint8_t k = fz_u8(in);
  FZ_TRACE("session %d: %s\n", (int)(m - w->ses), k < 150 ? "privilege" : "replaced");
  if (k < 90) mi_session_set_priv(m->s, k & 1);
  else if (k < 150) { mi_session_use(m->s); if (k & 1) GETPRIVMODE(); else GETUSERMODE(); mi_session_use(NULL); }
  else {
    mi_session_free(m->s);
    memset(m, 0, sizeof *m);
    m->s = mi_session_new(w->sys);
    if (!m->s) abort();
    mi_session_set_priv(m->s, 1);
  }
}

/* ---- the writer API ---- */

/* A counter handle: one somebody counts now, a catalog counter, an unknown item or a forged id. */
static mi_ctr pick_ctr(world *w, fz_in *in, int want_kind) {
  uint8_t k = fz_u8(in);
  mi_ctr c;
  if (k < 120) {   /* a counter in use: writes that land */
    int start = fz_u16(in) % (MI_DOM_COUNT << MI_HOST_INDEX_BITS);
    for (int i = 0; i < MI_DOM_COUNT << MI_HOST_INDEX_BITS; i++) {
      c.id = (start + i) % (MI_DOM_COUNT << MI_HOST_INDEX_BITS);
      if (w->sys->view.off[c.id] < 0) continue;
      const mi_item_info *it = mi_domain_item(c.id >> MI_HOST_INDEX_BITS, c.id & (MI_HOST_INDEX_LIMIT - 1));
      if (want_kind >= 0 && (fz_avoid & FZ_AVOID_OBJCL) && it->kind != want_kind) continue;
      return c;
    }
  }
  if (k < 200) {
    int d = fz_u8(in) % MI_DOM_COUNT;
    const mi_item_info *it = mi_domain_item(d, fz_u16(in) % mi_domain_counters(d));
    if (want_kind >= 0 && (fz_avoid & FZ_AVOID_OBJCL)) {   /* the next counter of that kind (no input read) */
      int nd = mi_domain_counters(d), i0 = it ? it->index : 0;
      for (int t = 0; t < nd && it && it->kind != want_kind; t++) it = mi_domain_item(d, (i0 + t + 1) % nd);
      if (!it || it->kind != want_kind) { c.id = -1; return c; }
    }
    return mi_host_counter(it ? it->item : 0);
  }
  if (k < 230) return mi_host_counter(fz_int32(in));
  c.id = fz_int32(in);
  return c;
}
/* 1 if c is half of a pair (random writes to those would break the per-class sums). */
static int is_pair_ctr(mi_ctr c) {
  for (int k = 0; k < FZ_NPAIRS; k++)
    if (c.id == mi_host_counter(fz_pairs[k].total).id || c.id == mi_host_counter(fz_pairs[k].classes).id) return 1;
  return 0;
}
/* An entity for a counter's domain: a good one mostly, sometimes out of range. */
static int pick_entity(fz_in *in, world *w, mi_ctr c) {
  uint8_t k = fz_u8(in);
  if (k >= 220) return fz_int32(in);
  int d = c.id >= 0 ? c.id >> MI_HOST_INDEX_BITS : 0;
  switch (d) {
  case MI_DOM_PROCESS: {
    if (w->npids && k < 180) { int s = mi_host_proc_slot(w->sys, w->pids[fz_u8(in) % w->npids]); if (s >= 0) return s; }
    return fz_range(in, 0, 20);
  }
  case MI_DOM_IO: return fz_range(in, 0, 200);
  case MI_DOM_PROCESSOR: return fz_range(in, 0, 8);
  default: return 0;
  }
}
/* A writer delta: a small count mostly, sometimes any 32-bit value or up to +-2^39. */
static int64_t pick_delta(fz_in *in) {
  uint8_t k = fz_u8(in);
  if (k < 200) return fz_u8(in);
  if (k < 240) return fz_int32(in);
  return (int64_t)(fz_u64(in) >> 24) - ((int64_t)1 << 39);
}
/* Writes a name of 0-24 bytes from the input into buf, or returns NULL. */
static const char *pick_name(fz_in *in, char *buf) {
  uint8_t n = fz_u8(in);
  if (n >= 250) return NULL;
  n %= 25;
  for (int i = 0; i < n; i++) { buf[i] = (char)fz_u8(in); if (!buf[i]) buf[i] = 'A'; }
  buf[n] = 0;
  return buf;
}

/* One call (or a burst) of the writer API: births, deaths, adds, levels, devices, CPUs, configuration, time. */
static void op_writer(world *w, fz_in *in) {
  mi_system *sys = w->sys;
  uint8_t k = fz_u8(in) % 18;
  FZ_TRACE("writer %d\n", k);
  switch (k) {
  case 0: case 1: {   /* process birth(s) */
    int many = k == 1 ? 1 + fz_u8(in) % 40 : 1;
    for (int i = 0; i < many; i++) {
      char n1[32], n2[32], n3[32];
      mi_proc_desc d = {0};
      uint8_t pk = fz_u8(in);
      d.pid = pk < 150 ? 8 + fz_u16(in) % 500 : pk < 200 && w->npids ? w->pids[fz_u8(in) % w->npids] : fz_int64(in);
      d.program = pick_name(in, n1); d.user = pick_name(in, n2); d.account = pick_name(in, n3);
      d.program_group = "PUB"; d.program_account = NULL; d.user_group = "";
      d.js_type = fz_range(in, -1, 3); d.js_num = fz_int32(in);
      d.proc_type = fz_range(in, -1, 6);
      d.start_ticks = fz_u8(in) < 200 ? 0 : fz_int64(in);
      int slot = mi_host_proc_create(sys, &d);
      FZ_CHECK(slot >= -1 && slot < MI_MAX_PROCESSES, "mi_host_proc_create returned %d", slot);
      if (slot >= 0) {
        FZ_CHECK(mi_host_proc_slot(sys, d.pid) == slot, "pid %lld created in slot %d but found in %d", (long long)d.pid,
                 slot, mi_host_proc_slot(sys, d.pid));
        if (w->npids < 64) w->pids[w->npids++] = d.pid; else w->pids[fz_u8(in) % 64] = d.pid;
      }
    }
    break;
  }
  case 2: case 3: {   /* process death(s) */
    int many = k == 3 ? 1 + fz_u8(in) % 40 : 1;
    for (int i = 0; i < many; i++) {
      int slot = fz_u8(in) < 200 && w->npids ? mi_host_proc_slot(sys, w->pids[fz_u8(in) % w->npids]) : fz_int32(in);
      int rc = mi_host_proc_exit(sys, slot);
      FZ_CHECK(rc == 0 || rc == -1, "mi_host_proc_exit returned %d", rc);
    }
    break;
  }
  case 4: case 5: {   /* simple writers on anything except the pairs */
    mi_ctr c = pick_ctr(w, in, -1);
    if (is_pair_ctr(c)) break;
    int e = pick_entity(in, w, c);
    int64_t v = pick_delta(in);
    uint8_t how = fz_u8(in) % 4;
    if (how == 0) mi_host_add(sys, c, e, v);
    else if (how == 1) mi_host_add_call(sys, c, e, v);
    else if (how == 2) mi_host_set(sys, c, e, v);
    else mi_host_max(sys, c, e, v);
    (void)mi_host_value(sys, c, e);
    (void)mi_host_active(sys, c);
    break;
  }
  case 6: {   /* per-class writers on anything except the pairs */
    int sem = fz_u8(in) & 1;
    mi_ctr c = pick_ctr(w, in, sem ? MI_KIND_SEMCL : MI_KIND_OBJCL);
    if (is_pair_ctr(c)) break;
    int e = pick_entity(in, w, c);
    int cls = fz_u8(in) < 230 ? fz_range(in, 0, sem ? 255 : 719) : fz_int32(in);
    if (sem) mi_host_add_semcl(sys, c, e, cls, pick_delta(in));
    else mi_host_add_objcl(sys, c, e, cls, pick_delta(in));
    break;
  }
  case 7:
  {
    int dom = fz_range(in, -1, 4);
    int e = fz_u8(in) < 200 ? fz_range(in, 0, 10) : fz_int32(in);
    int cls = fz_u8(in) < 230 ? fz_u8(in) : fz_int32(in);
    mi_host_sem_block(sys, dom, e, cls, fz_range(in, -2, 12));
  }
    break;
  case 8: case 9: {   /* a pair: the total and one class move together */
    const fz_pair *p = &fz_pairs[fz_u8(in) % FZ_NPAIRS];
    mi_ctr t = mi_host_counter(p->total), c = mi_host_counter(p->classes);
    int e = pick_entity(in, w, t);
    int cls = fz_range(in, 0, 719);
    int64_t v = fz_u8(in) < 240 ? fz_u8(in) : fz_u32(in);
    mi_host_add(sys, t, e, v);
    mi_host_add_objcl(sys, c, e, cls, v);
    break;
  }
  case 10: {
    int l = fz_u8(in) < 220 ? fz_range(in, 1, 200) : fz_int32(in);
    int type = fz_range(in, -1, 12);
    int rc = mi_host_set_device(sys, l, type);
    FZ_CHECK(rc == 0 || rc == -1, "mi_host_set_device %d", rc);
    if (rc == 0) FZ_CHECK(mi_host_device(sys, l) == type, "ldev %d type %d after setting %d", l, mi_host_device(sys, l), type);
    break;
  }
  case 11: {
    int n = fz_range(in, -1, 10);
    int rc = mi_host_set_cpus(sys, n);
    FZ_CHECK(rc == (n >= 1 && n <= 8 ? 0 : -1), "mi_host_set_cpus(%d) = %d", n, rc);
    break;
  }
  case 12: {
    int32_t item = fz_u8(in) < 230 ? 3000 + fz_u8(in) % 48 : fz_int32(in);
    int32_t v = fz_int32(in);
    if ((fz_avoid & FZ_AVOID_TPM0) && item == 3043 && v <= 0) v = 8000;
    mi_host_config_set(sys, item, v);
    if (fz_u8(in) < 40) { char t[32]; mi_host_config_text(sys, item, pick_name(in, t)); }
    break;
  }
  case 13: {
    int64_t t = fz_u8(in) < 200 ? (int64_t)fz_u32(in) : (int64_t)(fz_u64(in) >> 24);
    if (fz_u8(in) < 30) t = -t;
    if (fz_u8(in) < 128) mi_host_advance(sys, t);
    else mi_host_set_now(sys, mi_host_now(sys) + t);
    break;
  }
  case 14: {   /* read-only queries */
    int64_t pid = pick_pid(in, w);
    int slot = mi_host_proc_slot(sys, pid);
    FZ_CHECK(slot >= -1 && slot < MI_MAX_PROCESSES, "mi_host_proc_slot %d", slot);
    (void)mi_host_js_live(sys, fz_range(in, 0, 3), fz_int32(in));
    (void)mi_host_config(sys, 3000 + fz_u8(in) % 48);
    (void)mi_host_config_bit(sys, 3015 + fz_u8(in) % 3, fz_int32(in));
    char nm[32]; const char *name = pick_name(in, nm);
    mi_ctr c = mi_host_counter_named(name ? name : "x", fz_range(in, -2, 4));
    (void)c;
    FZ_CHECK(mi_host_proc_count(sys) >= 0 && mi_host_proc_count(sys) <= MI_MAX_PROCESSES, "proc count %d", mi_host_proc_count(sys));
    break;
  }
  case 15: {   /* churn: many short-lived processes with distinct pids (the pid hash's tombstones) */
    int n = 1 + fz_u16(in) % 4096;
    int64_t base = 1000 + (int64_t)fz_u32(in), step = 1 + fz_u8(in);
    if (fz_avoid & FZ_AVOID_PIDHASH) n = n % 256;
    for (int i = 0; i < n; i++) {
      mi_proc_desc d = {0};
      d.pid = base + i * step;
      int slot = mi_host_proc_create(sys, &d);
      if (slot >= 0) mi_host_proc_exit(sys, slot);
    }
    break;
  }
  case 16: {   /* a process runs another program (a host exec): any slot, names, types */
    int slot = fz_u8(in) < 200 && w->npids ? mi_host_proc_slot(sys, w->pids[fz_u8(in) % w->npids]) : fz_int32(in);
    char n1[32], n2[32];
    const char *prog = pick_name(in, n1), *grp = fz_u8(in) < 128 ? pick_name(in, n2) : NULL;
    int alive = slot >= 0 && slot < MI_MAX_PROCESSES && sys->seg->procs[slot].state == MI_PS_ALIVE;
    int rc = mi_host_proc_identity(fz_u8(in) < 5 ? NULL : sys, slot, prog, grp, NULL, fz_range(in, -1, 6));
    FZ_CHECK(rc == 0 || rc == -1, "mi_host_proc_identity returned %d", rc);
    FZ_CHECK(rc == -1 || (alive && prog), "mi_host_proc_identity took slot %d (alive %d)", slot, alive);
    break;
  }
  default: {   /* processor counters and interrupts on every configured CPU */
    mi_ctr c = mi_host_counter(27000 + fz_u8(in) % 50);
    if (is_pair_ctr(c)) break;
    for (int cpu = 0; cpu < mi_host_cpus(sys); cpu++) mi_host_add(sys, c, cpu, fz_u8(in));
  }
  }
}

/* ---- one input ---- */

/* One input: a system and its sessions, then up to MAX_OPS calls, each followed by the checks. */
/* The machine a fuzz input measures: ncpu CPUs, ndisk disks, nterm terminals, a tape and a
 * printer, and three system processes (PIDs 1-3), all through the writer API. */
static void fz_machine(mi_system *sys, int ncpu, int ndisk, int nterm) {
  mi_host_set_cpus(sys, ncpu);
  for (int d = 0; d < ndisk; d++) mi_host_set_device(sys, d < 5 ? 1 + d : 95 + d, 1);
  for (int t = 0; t < nterm && t < 20; t++) mi_host_set_device(sys, 20 + t, 3);
  mi_host_set_device(sys, 7, 2);
  mi_host_set_device(sys, 6, 4);
  for (int64_t pid = 1; pid <= 3; pid++) {
    mi_proc_desc d = {.pid = pid, .program = pid == 2 ? "JSMAIN" : "SYSPROC", .user = "OPERATOR",
                      .proc_type = pid == 2 ? MI_PT_JSMAIN : MI_PT_SYSTEM};
    mi_host_proc_create(sys, &d);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  world *w = &W;
  memset(w, 0, sizeof *w);
  uint8_t f = fz_u8(&in);
  mi_system_options o = {0};
  if (f & 1) o.max_users = 1 + fz_u8(&in) % 3;
  if (f & 2) { static const int64_t cells[] = {900, 2800, 20000, 800000, 3000000}; o.max_cells = cells[fz_u8(&in) % 5]; }
  if (f & 4) o.max_ldevs = 1 + fz_u8(&in) % 30;
  if (f & 8) o.max_ldevs_per_user = 1 + fz_u8(&in) % 30;
  if (f & 16) o.max_processes = 1 + fz_u8(&in) % 64;
  if (f & 32) { unlink(regpath); o.registry = regpath; }
  o.boot_ticks = (int64_t)1700000000 * 1000 * 8000;
  w->sys = mi_system_new(&o);
  if (!w->sys) abort();
  int ncpu = 1 + fz_u8(&in) % 8, ndisk = fz_u8(&in) % 12, nterm = fz_u8(&in) % 22;
  fz_machine(w->sys, ncpu, ndisk, nterm);
  status_type st;
  w->nses = 2 + (f >> 6 & 1);
  for (int i = 0; i < w->nses; i++) {
    w->ses[i].s = mi_session_new(w->sys);
    if (!w->ses[i].s) abort();
    mi_session_set_priv(w->ses[i].s, 1);
  }
  mi_globinstall(w->ses[0].s, &st, UID);
  FZ_CHECK(st.all == 0, "AIFGLOBINSTALL(%d) on a fresh system: %d", UID, st.s.info);
  w->uids[w->nuids++] = UID;
  for (int i = 0; i < w->nses; i++) if (f & 128) mi_accesson(w->ses[i].s, &st, UID);
  fz_epochs_update(&w->ep, w->sys, ++w->op);
  for (int ops = 0; ops < MAX_OPS && in.n; ops++) {
    switch (fz_u8(&in) % 20) {
    case 0: op_on(w, &in, MI_DOM_GLOBAL); break;
    case 1: op_on(w, &in, MI_DOM_PROCESS); break;
    case 2: op_on(w, &in, MI_DOM_IO); break;
    case 3: case 4: op_get(w, &in, MI_DOM_GLOBAL); break;
    case 5: op_get(w, &in, MI_DOM_PROCESS); break;
    case 6: op_get(w, &in, MI_DOM_IO); break;
    case 7: op_get(w, &in, MI_DOM_PROCESSOR); break;
    case 8: op_off(w, &in, MI_DOM_GLOBAL); break;
    case 9: op_off(w, &in, MI_DOM_PROCESS); break;
    case 10: op_off(w, &in, MI_DOM_IO); break;
    case 11: op_scget(w, &in); break;
    case 12: op_scput(w, &in); break;
    case 13: op_time(w, &in); break;
    case 14: op_access(w, &in); break;
    case 15: op_session(w, &in); break;
    default: op_writer(w, &in);
    }
    fz_epochs_update(&w->ep, w->sys, ++w->op);
    for (int i = 0; i < w->nses; i++) fz_model_sync_off(&w->ses[i]);
  }
  mi_session_use(NULL);
  mi_system_free(w->sys);   /* frees the sessions too */
  return 0;
}
