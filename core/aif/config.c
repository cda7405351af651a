/* config.c — AIFSCGET, and AIFSCPUT with range checks, cross-item rules and verification (all
 * or nothing), over the store's configuration cells (store/config.c). */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_source.h"

#define CFG(sys, item) ((sys)->seg->cfg[(item) - 3001])

/* Checks a value pointer for a configuration item: 0, -5 or -6. */
static int check_ptr(const mi_config_info *c, const void *p) {
  if (!p) return MI_E_BAD_POINTER;
  if (c->type == MI_CT_I32 && ((uintptr_t)p & 3)) return MI_E_BAD_ALIGNMENT;
  return 0;
}

/* Copies bytes another process may be writing, one atomic load each. */
static void copy_bytes(uint8_t *dst, const uint8_t *src, int n) {
  for (int k = 0; k < n; k++) dst[k] = MI_LD(src[k]);
}

/* Copies the current value of a configuration item to dst. */
static void read_item(mi_system *sys, const mi_config_info *c, void *dst) {
  int n;
  int32_t v = MI_LD(CFG(sys, c->item));
  switch (c->type) {
  case MI_CT_I32: memcpy(dst, &v, 4); break;
  case MI_CT_BOOL: *(uint8_t *)dst = v != 0; break;
  case MI_CT_CA8: copy_bytes(dst, (const uint8_t *)mi_config_text(sys, c->item), 8); break;
  default: { uint8_t *m = mi_config_mask(sys, c->item, &n); copy_bytes(dst, m, n); }
  }
}

/* Returns 1 if the value at p equals the current value of c. */
static int same_value(mi_system *sys, const mi_config_info *c, const void *p) {
  uint8_t cur[12];
  read_item(sys, c, cur);
  if (c->type == MI_CT_BOOL) return (*(const uint8_t *)p != 0) == (cur[0] != 0);
  return memcmp(cur, p, (size_t)mi_config_size(c)) == 0;
}


/* The checks AIFSCGET and AIFSCPUT share: a caller, the three arrays and their alignment; 0 or a status. */
static int check_lists(mi_session *s, int32_t *nums, void **items, int32_t *stats, int32_t user_id) {
  int rc = mi_enter(s, user_id);
  if (rc) return rc;
  if (!nums || !items) return MI_E_BAD_POINTER;
  if ((uintptr_t)nums & 3) return MI_E_PARM2_ALIGNMENT;
  if ((uintptr_t)items & 7) return MI_E_PARM3_ALIGNMENT;
  if (!stats) return MI_E_BAD_ITEM_STATUS;
  if ((uintptr_t)stats & 3) return MI_E_PARM4_ALIGNMENT;
  return 0;
}

void mi_scget(mi_session *s, status_type *st, int32_t *nums, void **items, int32_t *stats, int32_t user_id) {
  if (!st) return;
  int rc = check_lists(s, nums, items, stats, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  int n = mi_list_len(nums);
  if (n < 0) { MI_STATUS(st, MI_E_NO_TERMINATOR); return; }
  mi_system *sys = s->sys;
  int last, good;
  int64_t k[3] = {0, 0, 0};
  for (int tries = 0, locked = 0;; tries++) {   /* every value from one published state */
    uint64_t q;
    if (tries >= 4 && sys->readonly && mi_read_stalled(sys, k)) { MI_STATUS(st, MI_E_STORE_BUSY); return; }
    if (tries == 4 && !locked && !sys->readonly) {   /* a read-only reader never takes the lock: it waits */
      int b = mi_wlock_bounded(sys);
      if (b) { MI_STATUS(st, b); return; }
      locked = 1;
    }
    if (!mi_read_begin(sys, &q)) continue;
    last = 0; good = 0;
    for (int i = 0; i < n; i++) {
      const mi_config_info *c = mi_config_lookup(nums[i]);
      int r = c ? check_ptr(c, items[i]) : MI_E_BAD_ITEM;
      if (!r) { read_item(sys, c, items[i]); good++; }
      else last = i + 1;
      stats[i] = r;
    }
    if (mi_read_valid(sys, q)) { if (locked) mi_wunlock(sys); break; }
  }
  if (sys->broken) { MI_STATUS(st, sys->broken); return; }
  MI_STATUS(st, n > 0 && !good ? MI_E_NO_VALID_ITEMS : last);
}

/* Applies the PUT rule checks to a staged copy of the configuration. */
static int range_error(const mi_config_info *c, int32_t v) {
  if (c->has_range && (v < c->min || v > c->max)) return c->error;
  if (c->item == 3008 && v != 0 && v != 3) return c->error;
  return 0;
}

static void put_locked(mi_system *sys, status_type *st, int32_t *nums, void **items, int32_t *stats, int n,
                       int32_t *ver_nums, void **ver_items, int32_t *ver_stats, int nv);

void mi_scput(mi_session *s, status_type *st, int32_t *nums, void **items, int32_t *stats, int32_t user_id,
              int32_t *ver_nums, void **ver_items, int32_t *ver_stats) {
  if (!st) return;
  int rc = check_lists(s, nums, items, stats, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  int nver = (ver_nums != NULL) + (ver_items != NULL) + (ver_stats != NULL);
  if (nver == 1 || nver == 2) { MI_STATUS(st, MI_E_VERIFY_ARRAYS); return; }
  if (nver == 3) {
    if ((uintptr_t)ver_nums & 3) { MI_STATUS(st, MI_E_VER_NUMS_ALIGNMENT); return; }
    if ((uintptr_t)ver_items & 7) { MI_STATUS(st, MI_E_VER_ITEMS_ALIGNMENT); return; }
    if ((uintptr_t)ver_stats & 3) { MI_STATUS(st, MI_E_VER_STATUS_ALIGNMENT); return; }
  }
  int n = mi_list_len(nums), nv = nver ? mi_list_len(ver_nums) : 0;
  if (n < 0 || nv < 0) { MI_STATUS(st, MI_E_NO_TERMINATOR); return; }
  mi_system *sys = s->sys;
  if ((rc = mi_wlock_bounded(sys))) { MI_STATUS(st, rc); return; }   /* staged, checked and written in one write section */
  put_locked(sys, st, nums, items, stats, n, ver_nums, ver_items, ver_stats, nv);
  mi_wunlock(sys);
}

/* The body of AIFSCPUT once the parameters are checked, in a write section. */
static void put_locked(mi_system *sys, status_type *st, int32_t *nums, void **items, int32_t *stats, int n,
                       int32_t *ver_nums, void **ver_items, int32_t *ver_stats, int nv) {
  mi_seg *g = sys->seg;
  /* stage every item on a copy; nothing is written unless all pass */
  int32_t cfg[MI_NCONFIG];
  uint8_t allow[12], logging[8];
  memcpy(cfg, g->cfg, sizeof cfg);
  memcpy(allow, g->allow, sizeof allow);
  memcpy(logging, g->logging, sizeof logging);
  int last = 0, good = 0;
  int32_t put_pos[MI_NCONFIG] = {0};   /* item -> 1-based position in nums */
  for (int i = 0; i < n; i++) {
    const mi_config_info *c = mi_config_lookup(nums[i]);
    int r = !c || !c->put ? MI_E_BAD_ITEM : check_ptr(c, items[i]);
    if (!r) {
      if (c->type == MI_CT_I32) {
        int32_t v; memcpy(&v, items[i], 4);
        r = range_error(c, v);
        if (!r) cfg[c->item - 3001] = v;
      } else if (c->type == MI_CT_BA96) memcpy(allow, items[i], 12);
      else memcpy(logging, items[i], 8);
    }
    if (!r) { put_pos[c->item - 3001] = i + 1; good++; }
    stats[i] = r;
    if (r) last = i + 1;
  }
  /* cross-item rules on the staged values; the error lands on the item that was put */
  struct { int32_t item, other; int ok; int32_t err; } rules[] = {
    {3002, 3036, cfg[3002 - 3001] <= cfg[3036 - 3001], -3006},
    {3004, 3036, cfg[3004 - 3001] <= cfg[3036 - 3001], -3007},
    {3006, 0, !put_pos[3006 - 3001] || !mi_host_js_live(sys, MI_JS_JOB, cfg[3006 - 3001]), -3008},
    {3007, 0, !put_pos[3007 - 3001] || !mi_host_js_live(sys, MI_JS_SESSION, cfg[3007 - 3001]), -3009},
    {3023, 3024, cfg[3023 - 3001] >= cfg[3024 - 3001], -3012},
    {3025, 3026, cfg[3025 - 3001] >= cfg[3026 - 3001], -3012},
    {3027, 3028, cfg[3027 - 3001] >= cfg[3028 - 3001], -3012},
    {3029, 3030, cfg[3029 - 3001] >= cfg[3030 - 3001], -3012},
  };
  for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
    if (rules[k].ok) continue;
    int32_t pos = put_pos[rules[k].item - 3001];
    if (!pos && rules[k].other) pos = put_pos[rules[k].other - 3001];
    if (pos && stats[pos - 1] == 0) { stats[pos - 1] = rules[k].err; good--; if (pos > last) last = pos; }
  }
  /* verification against the current (pre-PUT) values */
  int mismatch = 0;
  for (int i = 0; i < nv; i++) {
    const mi_config_info *c = mi_config_lookup(ver_nums[i]);
    int r = c ? check_ptr(c, ver_items[i]) : MI_E_BAD_ITEM;
    if (!r && !same_value(sys, c, ver_items[i])) r = MI_E_VALUE_MISMATCH;
    ver_stats[i] = r;
    if (r) mismatch = 1;
  }
  if (mismatch) { MI_STATUS(st, MI_E_VERIFY_FAILED); return; }
  if (last) { MI_STATUS(st, last); return; }
  for (int i = 0; i < MI_NCONFIG; i++) MI_ST(g->cfg[i], cfg[i]);
  for (int i = 0; i < 12; i++) MI_ST(g->allow[i], allow[i]);
  for (int i = 0; i < 8; i++) MI_ST(g->logging[i], logging[i]);
  if (cfg[3042 - 3001] > 0) mi_set_round(g, cfg[3042 - 3001]);
  mi_config_changed(g);
  MI_STATUS(st, 0);
}
