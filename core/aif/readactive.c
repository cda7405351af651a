/* readactive.c — the AIFs built on selection: MIPROCONSEL and MIIOONSEL (an ON for the entities
 * a descriptor list selects) and read-active (EXACT, LIST, CHANGED with a resumable context);
 * see mi_select.h and core/STORE.md "Selection and read-active". Read-active is a prepared
 * query (query.c) over the entities a picker chooses inside the seqlock read: processes in
 * birth order (mi_proc.born, a sequence that only grows), LDEVs by number. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mi_internal.h"
#include "mi_query.h"

/* ---- MIPROCONSEL, MIIOONSEL ---- */

/* Checks a descriptor list of one entity type for an ON; 0 or the status. */
static int check_for(const mi_entity_desc *d, int32_t n, int type) {
  if (n < 0 || n > MI_SEL_MAX || (n && !d)) return MI_E_BAD_DESCRIPTOR;
  if (mi_sel_check(d, n, NULL, NULL, NULL)) return MI_E_BAD_DESCRIPTOR;
  for (int i = 0; i < n; i++)
    if (d[i].type != type && d[i].type != -type) return MI_E_BAD_DESCRIPTOR;
  return 0;
}

void mi_proconsel(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
                  const mi_entity_desc *descs, int32_t n, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (!rc) rc = check_for(descs, n, MI_SEL_PROCESS);
  if (rc) { MI_STATUS(st, rc); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  if ((rc = mi_user_section(sys))) { MI_STATUS(st, rc); return; }   /* one write section: no birth between the ON and the selection */
  const mi_urec *old = s->u;
  int had = old->proc_on, all = old->proc_all, nsel = old->nsel;
  if ((had && all) || n == 0) {   /* everything is (or becomes) monitored: an empty selection is all */
    mi_procon(s, st, nums, stats, mapping, NULL, user_id);
    mi_user_section_end(sys);
    return;
  }
  if (had && nsel + n > MI_SEL_MAX) { mi_user_section_end(sys); MI_STATUS(st, MI_E_SELECTION_FULL); return; }
  uint64_t before[MI_PROC_WORDS];
  for (int w = 0; w < MI_PROC_WORDS; w++) before[w] = had ? old->mon[w] : 0;
  mi_procon(s, st, nums, stats, mapping, NULL, user_id);   /* monitors every live process */
  if (st->all != 0 && st->s.info < 0) { mi_user_section_end(sys); return; }
  mi_urec *u = s->u;
  int32_t group = 0;
  for (int i = 0; i < u->nsel; i++) if (u->sel_group[i] >= group) group = u->sel_group[i] + 1;
  for (int i = 0; i < n; i++) { u->sel[u->nsel] = descs[i]; u->sel_group[u->nsel++] = group; }
  mi_seg *g = sys->seg;
  for (int slot = 0, hi = MI_LD(g->proc_hi); slot < hi && slot < MI_MAX_PROCESSES; slot++) {
    if (!mi_bit(u->mon, slot) || mi_bit(before, slot) || MI_LD(g->procs[slot].state) != MI_PS_ALIVE) continue;
    mi_entity_info e;
    mi_sel_info_of(&g->procs[slot], &e);
    if (!mi_sel_match(descs, n, &e)) mi_abit_clr(u->mon, slot);
  }
  MI_ST(u->proc_all, 0);
  if (sys->readonly) s->lgen++;   /* its plans re-resolve (a private record: the store's gen is the writers') */
  else MI_ST(g->h.gen, g->h.gen + 1);
  mi_user_section_end(sys);
}

void MIPROCONSEL(status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, const mi_entity_desc *descs,
                 int32_t n, int32_t user_id) {
  mi_proconsel(mi_session_current(), st, nums, stats, mapping, descs, n, user_id);
}

void mi_ioonsel(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
                const mi_entity_desc *descs, int32_t n, int32_t user_id) {
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (!rc) rc = check_for(descs, n, MI_SEL_LDEV);
  if (rc) { MI_STATUS(st, rc); return; }
  mi_system *sys = s->sys;
  mi_sys_refresh(sys);
  if ((rc = mi_user_section(sys))) { MI_STATUS(st, rc); return; }
  mi_seg *g = sys->seg;
  if (s->u->io_on) { mi_user_section_end(sys); MI_STATUS(st, MI_E_ALREADY_ENABLED); return; }   /* one selection per caller */
  int first = 0, need = 0, fresh = 0;
  for (int l = 1; l <= MI_MAX_LDEV; l++) {
    mi_entity_info e = {.type = MI_SEL_LDEV, .ldev = l, .devtype = g->devtype[l]};
    if (!g->devtype[l] || !mi_sel_match(descs, n, &e)) continue;
    if (!first) first = l;
    need++;
    fresh += !g->ldev_refs[l];
  }
  rc = !first ? MI_E_BAD_LDEV : need > g->max_ldevs_per_user ? MI_E_LDEV_LIMIT
     : !sys->readonly && g->ldevs_enabled + fresh > g->max_ldevs ? MI_E_LDEV_TABLE_FULL : 0;
  if (rc) { mi_user_section_end(sys); MI_STATUS(st, rc); return; }
  mi_ioon(s, st, nums, stats, mapping, &first, user_id);   /* the ON itself, with the first LDEV */
  if (st->all != 0 && st->s.info < 0) { mi_user_section_end(sys); return; }
  mi_urec *u = s->u;
  for (int l = first + 1; l <= MI_MAX_LDEV; l++) {
    mi_entity_info e = {.type = MI_SEL_LDEV, .ldev = l, .devtype = g->devtype[l]};
    if (!g->devtype[l] || mi_bit(u->ldevs, l) || !mi_sel_match(descs, n, &e)) continue;
    if (!sys->readonly && !g->ldev_refs[l]++) g->ldevs_enabled++;   /* as MIIOON adds an LDEV (room checked above) */
    mi_bit_set(u->ldevs, l);
    u->nldevs++;
    u->io_types |= (uint16_t)(1u << g->devtype[l]);
  }
  mi_user_section_end(sys);
}

void MIIOONSEL(status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, const mi_entity_desc *descs,
               int32_t n, int32_t user_id) {
  mi_ioonsel(mi_session_current(), st, nums, stats, mapping, descs, n, user_id);
}

/* ---- read-active ---- */

/* A caller's read-active state: its query (rebound when the list changes), the picker's
 * scratch, and for CHANGED the birth and record hash each entity had at its last read, the
 * epoch of that read and a copy of the record then, so a record whose row nobody wrote since
 * is copied, not gathered (see "Selection and read-active" in core/STORE.md). */
struct mi_ra {
  mi_query q;
  void *mem;
  int cap, domain;
  int32_t ents[MI_MAX_PROCESSES];
  uint64_t key[MI_MAX_PROCESSES];
  int32_t cand[MI_MAX_PROCESSES];
  uint64_t told[MI_PROC_WORDS];
  uint64_t seen_born[MI_MAX_PROCESSES], seen_hash[MI_MAX_PROCESSES];
  uint64_t seen_epoch[MI_MAX_PROCESSES];  /* the epoch of the read that last gathered the slot, 0 never */
  /* the epoch of the last read that gave every one of a word's 64 slots (each gathered or
   * copied then): a slot's record is as that read saw it too, so its seen epoch is the larger
   * of the two (seen_of); wfull: the words this call gives whole, set after the read */
  uint64_t seen_word[MI_PROC_WORDS], wfull[(MI_PROC_WORDS + 63) / 64];
  /* CHANGED's plan of a call: the records to gather (positions, ascending) and the runs of
   * unchanged records to copy from the cache (position, first slot, records: consecutive slots) */
  int32_t gat[MI_MAX_PROCESSES], ngat;
  int32_t cp_pos[MI_MAX_PROCESSES], cp_slot[MI_MAX_PROCESSES], cp_len[MI_MAX_PROCESSES], ncp;
  uint8_t *cache;                         /* MI_MAX_PROCESSES records of cache_rec bytes, by slot */
  int32_t cache_rec;
  uint64_t epoch;                         /* this call's epoch (CHANGED) */
  uint64_t trust;                         /* records gathered at an epoch above this one may be copied */
  uint64_t vkey[3];                       /* what a record was made of then (plan, mapping, rounding) */
  /* the picker's arguments and results */
  const mi_urec *u;
  const uint64_t *mon, *dead;             /* the monitored and dead sets the picker reads (u's, or a read-only
                                             session's view of the read: mi_ro_view) */
  mi_session *s;
  const mi_entity_desc *d;
  int n, mode, complete;
  uint64_t after, next;
  uint64_t seed;                          /* this session's, for the contexts it gives (ctx_tag) */
};

void mi_ra_free(struct mi_ra *ra) {
  if (!ra) return;
  free(ra->mem);
  free(ra->cache);
  free(ra);
}

/* Puts the `fit` smallest keys of key/cand[0..n) first (quickselect; keys are unique). */
static void select_smallest(uint64_t *key, int32_t *cand, int n, int fit) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    uint64_t pv = key[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (key[i] < pv) i++;
      while (key[j] > pv) j--;
      if (i <= j) {
        uint64_t tk = key[i]; key[i] = key[j]; key[j] = tk;
        int32_t tc = cand[i]; cand[i] = cand[j]; cand[j] = tc;
        i++; j--;
      }
    }
    if (fit - 1 <= j) hi = j; else if (fit - 1 >= i) lo = i; else break;
  }
}

/* CHANGED, inside the read, before choosing: when what a record is made of moved (the plan,
 * the system mapping, the rounding) no record gathered before this call may be copied; with
 * values that move with time alone (or no cache) none may be. */
static void changed_begin(const mi_seg *g, struct mi_ra *ra) {
  uint64_t k0 = ra->q.gen, k1 = (uint64_t)(uint32_t)MI_LD(g->mapping) << 32 | (uint32_t)MI_LD(g->round),
           k2 = (uint64_t)(uint32_t)MI_LD(g->cfg[3043 - 3001]);
  if (k0 != ra->vkey[0] || k1 != ra->vkey[1] || k2 != ra->vkey[2]) {
    ra->vkey[0] = k0; ra->vkey[1] = k1; ra->vkey[2] = k2;
    ra->trust = ra->epoch - 1;
  }
  if (!ra->cache || mi_query_time_varying(&ra->q)) ra->trust = ra->epoch;
  ra->ngat = ra->ncp = 0;
}

/* CHANGED: files the record at position i (process slot, dead bit) as one to copy or to
 * gather. A row's mark is the epoch current when it was last written; this caller took epoch
 * E before its read of the slot, and any write that read did not see came in a later write
 * section, which loaded the epoch after E was taken: so a mark below E proves the row is as
 * that read saw it. A process born in the slot since marks it too. Returns 1 to gather. */
/* The epoch of the last read that gave slot's record to this caller (0: never). */
static inline uint64_t seen_of(const struct mi_ra *ra, int slot) {
  uint64_t a = ra->seen_epoch[slot], b = ra->seen_word[slot >> 6];
  return a > b ? a : b;
}

static inline int changed_file(const mi_seg *g, struct mi_ra *ra, int i, int slot, int dead) {
  uint64_t at = seen_of(ra, slot);
  if (at > ra->trust && !dead && MI_LD(g->blk.mod[slot]) < at) {
    int k = ra->ncp - 1;
    if (k >= 0 && ra->cp_pos[k] + ra->cp_len[k] == i && ra->cp_slot[k] + ra->cp_len[k] == slot) ra->cp_len[k]++;
    else { ra->cp_pos[k + 1] = i; ra->cp_slot[k + 1] = slot; ra->cp_len[k + 1] = 1; ra->ncp++; }
    return 0;
  }
  ra->gat[ra->ngat++] = i;
  return 1;
}

/* Bit b set when record b of n (<= 64) consecutive slots was given at an epoch above trust
 * (seen, or the word's epoch sw) and its row not written since (mod). */
__attribute__((noinline)) static uint64_t keep_word(const uint64_t *seen, uint64_t sw, const uint64_t *mod, uint64_t trust, int n) {
  uint64_t keep = 0;
  for (int b = 0; b < n; b++) {   /* epochs are below 2^63: x - y has the top bit set when x < y */
    uint64_t at = seen[b] > sw ? seen[b] : sw;
    keep |= (((MI_LD(mod[b]) - at) & (trust - at)) >> 63) << b;
  }
  return keep;
}

/* 1 when none of the 64 rows from mod was written at epoch e or later. Marks are below 2^63,
 * so mod - e wraps to a number with the top bit set exactly when mod < e: the AND of the 64
 * differences keeps it only when all are below (four chains, no branch, one load a slot). */
__attribute__((noinline)) static int word_unwritten(const uint64_t *mod, uint64_t e) {
  uint64_t a0 = ~0ull, a1 = ~0ull, a2 = ~0ull, a3 = ~0ull;
  for (int b = 0; b < 64; b += 4) {
    a0 &= MI_LD(mod[b]) - e;
    a1 &= MI_LD(mod[b + 1]) - e;
    a2 &= MI_LD(mod[b + 2]) - e;
    a3 &= MI_LD(mod[b + 3]) - e;
  }
  return (a0 & a1 & a2 & a3) >> 63;
}

/* CHANGED over every monitored process, no descriptor, no context, all fitting: one pass
 * that chooses, files (as changed_file does, the run being copied kept in locals) and loads
 * births only for the records to gather. */
static int pick_changed_all(const mi_seg *g, struct mi_ra *ra, int32_t *ents, int hi) {
  const uint64_t *mon = ra->mon, *deadw = ra->dead;
  const uint64_t *mod = g->blk.mod, *seen = ra->seen_epoch, trust = ra->trust;
  int take = 0, ngat = 0, ncp = 0;
  int32_t rpos = -1, rslot = 0, rlen = 0;   /* the run being copied: position, first slot, records */
  for (int w = 0; w < (hi + 63) / 64; w++) {
    uint64_t bits = MI_LD(mon[w]);
    if (w == hi / 64) bits &= (1ull << (hi & 63)) - 1;
    uint64_t dead = MI_LD(deadw[w]) & bits;
    ra->told[w] = dead;
    /* the word's records to copy, computed without branches, then taken a word at a time
     * when all 64 are monitored and unchanged (the common case) */
    const int base = w * 64;
    const uint64_t sw = ra->seen_word[w];
    int whole = bits == ~0ull && !dead;
    if (whole) ra->wfull[w >> 6] |= 1ull << (w & 63);   /* given whole: its epoch becomes this read's */
    uint64_t keep = whole && sw > trust && word_unwritten(mod + base, sw) ? ~0ull
                  : keep_word(seen + base, sw, mod + base, trust, hi - base < 64 ? hi - base : 64) & bits & ~dead;
    if (whole) {   /* positions follow slots: copy the runs between the records to gather */
      int at = 0;
      for (uint64_t gb = ~keep;; gb &= gb - 1) {
        int b = gb ? __builtin_ctzll(gb) : 64;
        if (b > at) {   /* slots base+at .. base+b-1 are copied */
          if (rpos >= 0 && rslot + rlen == base + at && rpos + rlen == take) rlen += b - at;
          else {
            if (rpos >= 0) { ra->cp_pos[ncp] = rpos; ra->cp_slot[ncp] = rslot; ra->cp_len[ncp] = rlen; ncp++; }
            rpos = take; rslot = base + at; rlen = b - at;
          }
          take += b - at;
        }
        if (b == 64) break;
        ents[take] = base + b;
        ra->key[take] = MI_LD(g->procs[base + b].born);
        ra->gat[ngat++] = take++;
        at = b + 1;
      }
      continue;
    }
    for (; bits; bits &= bits - 1, take++) {
      int b = __builtin_ctzll(bits), slot = base + b;
      if (keep >> b & 1) {
        if (rpos >= 0 && rslot + rlen == slot && rpos + rlen == take) { rlen++; continue; }
        if (rpos >= 0) { ra->cp_pos[ncp] = rpos; ra->cp_slot[ncp] = rslot; ra->cp_len[ncp] = rlen; ncp++; }
        rpos = take; rslot = slot; rlen = 1;
        continue;
      }
      ents[take] = slot;
      ra->key[take] = MI_LD(g->procs[slot].born);
      ra->gat[ngat++] = take;
    }
  }
  if (rpos >= 0) { ra->cp_pos[ncp] = rpos; ra->cp_slot[ncp] = rslot; ra->cp_len[ncp] = rlen; ncp++; }
  ra->ngat = ngat;
  ra->ncp = ncp;
  return take;
}

/* Chooses the processes of a read (inside the seqlock read): the caller's monitored processes
 * (a mon bit: alive, or dead with the death unreported when the dead bit is set too) with
 * born > after that the descriptors select. Births are loaded only when needed: to resume
 * after a context, to choose the `fit` first of more, and for the records CHANGED gathers. */
static int pick_procs(const mi_seg *g, void *arg, int32_t *ents, int32_t fit) {
  struct mi_ra *ra = arg;
  int hi = MI_LD(g->proc_hi), nc = 0, keyed = ra->after > 0;
  if (hi < 0 || hi > MI_MAX_PROCESSES) return -1;
  ra->mon = ra->u->mon; ra->dead = ra->u->dead;
  if (ra->s->sys->readonly && ra->s->ro) { mi_ro_view(ra->s, g); ra->mon = ra->s->ro->vmon; ra->dead = ra->s->ro->vdead; }
  memset(ra->told, 0, sizeof ra->told);
  memset(ra->wfull, 0, sizeof ra->wfull);
  ra->complete = 1;
  ra->next = 0;
  if (ra->mode == MI_RA_CHANGED) {
    changed_begin(g, ra);
    if (!keyed && !ra->n) {
      int all = 0;
      for (int w = 0; w < (hi + 63) / 64; w++) {
        uint64_t bits = MI_LD(ra->mon[w]);
        if (w == hi / 64) bits &= (1ull << (hi & 63)) - 1;
        all += __builtin_popcountll(bits);
      }
      if (all <= fit) return pick_changed_all(g, ra, ents, hi);
    }
  }
  for (int w = 0; w < (hi + 63) / 64; w++)
    for (uint64_t bits = MI_LD(ra->mon[w]); bits; bits &= bits - 1) {
      int slot = w * 64 + __builtin_ctzll(bits);
      if (slot >= hi) break;
      const mi_proc *p = &g->procs[slot];
      if (keyed) {
        uint64_t born = MI_LD(p->born);
        if (born <= ra->after) continue;
        ra->key[nc] = born;
      }
      if (ra->n) {
        mi_entity_info e;
        mi_sel_info_of(p, &e);
        if (!mi_sel_match(ra->d, ra->n, &e)) continue;
      }
      ra->cand[nc++] = slot;
    }
  if (ra->mode == MI_RA_EXACT && nc > 1) fit = 1;
  int take = nc;
  if (nc > fit) {
    if (!keyed) for (int i = 0; i < nc; i++) ra->key[i] = MI_LD(g->procs[ra->cand[i]].born);
    keyed = 1;
    select_smallest(ra->key, ra->cand, nc, fit);
    take = fit;
    ra->complete = 0;   /* more match: the context continues after the last given (EXACT too: one at a time) */
    for (int i = 0; i < take; i++) if (ra->key[i] > ra->next) ra->next = ra->key[i];
  }
  for (int i = 0; i < take; i++) {
    int slot = ents[i] = ra->cand[i], dead = mi_abit(ra->dead, slot);
    if (dead) mi_bit_set(ra->told, slot);
    if (ra->mode == MI_RA_CHANGED && changed_file(g, ra, i, slot, dead) && !keyed)
      ra->key[i] = MI_LD(g->procs[slot].born);
  }
  return take;
}

/* Chooses the LDEVs of a read: the caller's enabled LDEVs above `after` that the descriptors
 * select, by number. */
static int pick_ldevs(const mi_seg *g, void *arg, int32_t *ents, int32_t fit) {
  struct mi_ra *ra = arg;
  int take = 0;
  ra->complete = 1;
  ra->next = 0;
  for (int l = (int)ra->after + 1; l <= MI_MAX_LDEV; l++) {
    int t = MI_LD(g->devtype[l]);
    if (!t || !(MI_LD(ra->u->ldevs[l >> 6]) >> (l & 63) & 1)) continue;
    mi_entity_info e = {.type = MI_SEL_LDEV, .ldev = l, .devtype = t};
    if (ra->n && !mi_sel_match(ra->d, ra->n, &e)) continue;
    if (take == fit || (ra->mode == MI_RA_EXACT && take == 1)) { ra->complete = 0; break; }
    ents[take++] = l;
    ra->next = (uint64_t)l;
  }
  if (ra->complete) ra->next = 0;
  return take;
}

/* A 64-bit hash of a record's bytes (CHANGED mode, records are 4-byte multiples): the sum over
 * its 4-byte words of (word + position key) times an odd constant. Each term is a bijection of
 * its word, so a record whose values differ in one word always hashes differently; the terms do
 * not chain, so the multiplies run in parallel. */
static uint64_t rec_hash(const uint8_t *p, int32_t n) {
  uint64_t h = (uint64_t)n;
  for (int32_t i = 0; i + 4 <= n; i += 4) {
    uint32_t w;
    memcpy(&w, p + i, 4);
    h += ((uint64_t)w + ((uint64_t)(uint32_t)i << 32 | 0x9E3779B9u)) * 0xFF51AFD7ED558CCDull;
  }
  return h;
}

/* ---- contexts ----
 * A context is bound to what it continues (#30): its low CTX_POS_BITS bits hold the position
 * (the last birth or LDEV given), the bits above a tag of the session, the entity type and the
 * selection. A context whose tag is not this call's came from another session, entity type or
 * selection (or no call at all): MI_E_BAD_CONTEXT, never a silent continuation of something
 * else. Two different iterations share a tag with odds of 1 in 2^23. */
#define CTX_POS_BITS 40
#define CTX_POS_MASK ((1ull << CTX_POS_BITS) - 1)

/* splitmix64's finalizer: a 64-bit mix of x. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27; x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Adds a pattern field to hash h, up to its NUL, case folded (patterns match any case). */
static uint64_t hash_pattern(uint64_t h, const char *f) {
  for (size_t i = 0; i < MI_SEL_PATTERN && f[i]; i++) h = mix64(h ^ (uint64_t)tolower((unsigned char)f[i]));
  return mix64(h ^ 0xFF);
}

/* The tag (1 .. 2^23 - 1) of the contexts a session with seed gives for entity type and the n
 * (checked) descriptors d. */
static uint64_t ctx_tag(uint64_t seed, int32_t type, const mi_entity_desc *d, int n) {
  uint64_t h = mix64(seed ^ (uint64_t)(uint32_t)type);
  for (int i = 0; i < n; i++) {
    const mi_entity_desc *e = &d[i];
    int64_t f[] = {e->type, e->pid, e->js_type, e->js_num, e->ptype, e->ldev_lo, e->ldev_hi, e->devtype};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) h = mix64(h ^ (uint64_t)f[k]);
    h = hash_pattern(hash_pattern(h, e->program), e->user);
  }
  uint64_t t = h >> (64 - (63 - CTX_POS_BITS));
  return t ? t : 1;
}

/* The caller's read-active state (made at its first read-active, with the seed its contexts
 * carry: a count, the address, the process and the clock, so no other session's is alike);
 * NULL when memory is short. */
static struct mi_ra *ra_of(mi_session *s) {
  static uint64_t made;
  if (!s->ra) {
    struct mi_ra *ra = calloc(1, sizeof *ra);
    if (!ra) return NULL;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ra->seed = mix64(__atomic_add_fetch(&made, 1, __ATOMIC_RELAXED) ^ mix64((uint64_t)(uintptr_t)ra)
                     ^ mix64((uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30));
    s->ra = ra;
  }
  return s->ra;
}

/* The caller's read-active state with its query bound to nums (n items) at mapping for domain
 * d; NULL when memory is short. A rebind forgets what CHANGED saw. */
static struct mi_ra *ra_for(mi_session *s, int d, const int32_t *nums, int n, int mapping) {
  struct mi_ra *ra = ra_of(s);
  if (!ra) return NULL;
  if (ra->mem && ra->domain == d && mi_query_same(&ra->q, nums, n, mapping)) return ra;
  if (!ra->mem || ra->cap < n || ra->domain != d) {
    int cap = n < 32 ? 32 : n;
    void *mem = malloc(MI_QUERY_MEM(cap));
    if (!mem) return NULL;
    free(ra->mem);
    ra->mem = mem;
    ra->cap = cap;
    ra->domain = d;
    mi_query_init(&ra->q, s, d, mapping, mem, cap);
  }
  mi_query_bind(&ra->q, nums, n, mapping);
  memset(ra->seen_born, 0, sizeof ra->seen_born);
  memset(ra->seen_epoch, 0, sizeof ra->seen_epoch);
  memset(ra->seen_word, 0, sizeof ra->seen_word);
  return ra;
}

/* CHANGED over processes, before the read: the cache of the records this caller was last given
 * (by slot, made anew when the record size changes) and this read's epoch. Returns the list the
 * read gathers the changed rows into. */
static const int32_t *changed_cache(mi_session *s, struct mi_ra *ra, int32_t rec) {
  if (ra->cache_rec != rec) {   /* the records this caller was last given, by slot */
    free(ra->cache);
    ra->cache = rec > 0 ? malloc((size_t)MI_MAX_PROCESSES * (size_t)rec) : NULL;
    ra->cache_rec = ra->cache ? rec : 0;
    memset(ra->seen_epoch, 0, sizeof ra->seen_epoch);
    memset(ra->seen_word, 0, sizeof ra->seen_word);
  }
  /* this read's epoch: writes it may miss come later and mark their rows with it or later */
  /* (a read-only reader takes the current one: a write it may miss marks its row with it or a
   * later one, so no change is missed; rows written since the epoch last moved are gathered again) */
  ra->epoch = s->sys->readonly ? __atomic_load_n(&s->sys->seg->blk.epoch, __ATOMIC_SEQ_CST)
                               : __atomic_add_fetch(&s->sys->seg->blk.epoch, 1, __ATOMIC_SEQ_CST);
  return ra->gat;
}

/* Deaths reported by this read are forgotten for this caller, as MIPROCGET's are (the write lock
 * busy: they are told again next time). */
static void release_told(mi_session *s, struct mi_ra *ra) {
  if (s->sys->readonly && s->ro) { mi_ro_take(s, ra->told); return; }   /* a read-only reader forgets them privately */
  int any = 0;
  for (int w = 0; w < MI_PROC_WORDS; w++) any |= ra->told[w] != 0;
  if (any && mi_wlock_bounded(s->sys) == 0) {   /* busy: they are told again next time */
    for (int w = 0; w < MI_PROC_WORDS; w++)
      for (uint64_t b = ra->told[w]; b; b &= b - 1) {
        int slot = w * 64 + __builtin_ctzll(b);
        if (mi_bit(s->u->dead, slot)) mi_proc_release_user(s->sys, s, slot);
      }
    mi_wunlock(s->sys);
  }
}

/* CHANGED over processes, after the read: copies the unchanged runs from the cache, flags the
 * gathered records that differ from what this caller saw, and remembers them. */
static void changed_procs(struct mi_ra *ra, void *buf, int32_t rec, int32_t count, int32_t *rec_flags) {
  if (rec_flags) memset(rec_flags, 0, sizeof(int32_t) * (size_t)count);
  for (int32_t k = 0; k < ra->ncp; k++)
    memcpy((uint8_t *)buf + (size_t)ra->cp_pos[k] * (size_t)rec, ra->cache + (size_t)ra->cp_slot[k] * (size_t)rec,
           (size_t)ra->cp_len[k] * (size_t)rec);
  for (int32_t k = 0; k < ra->ngat; k++) {
    int32_t r = ra->gat[k];
    int e = ra->ents[r];
    const uint8_t *out = (const uint8_t *)buf + (size_t)r * (size_t)rec;
    uint64_t born = ra->key[r], h = rec_hash(out, rec);
    int flag = !(ra->seen_born[e] == born && ra->seen_hash[e] == h);
    ra->seen_born[e] = born;
    ra->seen_hash[e] = h;
    if (ra->cache) memcpy(ra->cache + (size_t)e * (size_t)rec, out, (size_t)rec);
    ra->seen_epoch[e] = ra->epoch;
    if (rec_flags) rec_flags[r] = flag;
  }
  for (int w = 0; w < MI_PROC_WORDS; w++)
    if (ra->wfull[w >> 6] >> (w & 63) & 1) ra->seen_word[w] = ra->epoch;
}

/* The record flags of any other read: 1 each, or under CHANGED (LDEVs: every record gathered)
 * whether a record differs from what this caller saw. */
static void flag_records(struct mi_ra *ra, const void *buf, int32_t rec, int32_t count, int32_t mode, int32_t *rec_flags) {
  for (int32_t r = 0; r < count; r++) {
    int flag = 1;
    if (mode == MI_RA_CHANGED) {   /* LDEVs: every record gathered and compared */
      int e = ra->ents[r];
      uint64_t h = rec_hash((const uint8_t *)buf + (size_t)r * (size_t)rec, rec);
      flag = !(ra->seen_born[e] == 1 && ra->seen_hash[e] == h);
      ra->seen_born[e] = 1;
      ra->seen_hash[e] = h;
    }
    if (rec_flags) rec_flags[r] = flag;
  }
}

void mi_readactive(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                   int32_t mapping, int32_t type, int32_t mode, const mi_entity_desc *descs, int32_t n,
                   int32_t *num_of_recs, int32_t *rec_flags, longint_type *context, int32_t user_id) {
  if (!st) return;
  if (num_of_recs && !((uintptr_t)num_of_recs & 3)) *num_of_recs = 0;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if (!nums || !context) { MI_STATUS(st, MI_E_BAD_POINTER); return; }
  if ((uintptr_t)nums & 3) { MI_STATUS(st, MI_E_PARM2_ALIGNMENT); return; }
  if (!stats) { MI_STATUS(st, MI_E_BAD_ITEM_STATUS); return; }
  if (((uintptr_t)stats | (uintptr_t)context | (uintptr_t)num_of_recs | (uintptr_t)rec_flags) & 3) { MI_STATUS(st, MI_E_BAD_ALIGNMENT); return; }
  int ni = mi_list_len(nums);
  if (ni < 0) { MI_STATUS(st, MI_E_NO_TERMINATOR); return; }
  if ((rc = mi_query_check_buffer(buf, size, mapping)) != 0) { MI_STATUS(st, rc); return; }
  if ((type != MI_SEL_PROCESS && type != MI_SEL_LDEV) || mode < MI_RA_EXACT || mode > MI_RA_CHANGED) { MI_STATUS(st, MI_E_BAD_MODE); return; }
  if (n < 0 || (n && !descs) || mi_sel_check(descs, n, NULL, NULL, NULL)) { MI_STATUS(st, MI_E_BAD_DESCRIPTOR); return; }
  int64_t ctx = mi_longint_get(context);
  int procs = type == MI_SEL_PROCESS;
  struct mi_ra *ra = ra_of(s);
  if (!ra) { MI_STATUS(st, MI_E_TOO_MANY_COUNTERS); return; }
  uint64_t tag = ctx_tag(ra->seed, type, descs, n), pos = ctx > 0 ? (uint64_t)ctx & CTX_POS_MASK : 0;
  if (ctx < -1 || (ctx > 0 && ((uint64_t)ctx >> CTX_POS_BITS != tag || pos == 0))   /* not this iteration's */
      || (!procs && pos > MI_MAX_LDEV) || (procs && pos > MI_LD(s->sys->seg->births))) {
    MI_STATUS(st, MI_E_BAD_CONTEXT);
    return;
  }
  if (procs ? !s->u->proc_on : !s->u->io_on) { MI_STATUS(st, MI_E_NOT_ENABLED); return; }
  ra = ra_for(s, procs ? MI_DOM_PROCESS : MI_DOM_IO, nums, ni, mapping);
  if (!ra) { MI_STATUS(st, MI_E_TOO_MANY_COUNTERS); return; }
  ra->u = s->u; ra->s = s; ra->d = descs; ra->n = n; ra->mode = mode;
  ra->after = pos;
  int32_t rec = mi_query_record_size(&ra->q);
  const int32_t *gat = NULL;
  if (mode == MI_RA_CHANGED && procs) gat = changed_cache(s, ra, rec);
  mi_sys_refresh_read(s->sys, procs ? MI_DOM_PROCESS : MI_DOM_IO);
  int32_t count = 0;
  rc = mi_query_exec_pick(&ra->q, buf, size, procs ? pick_procs : pick_ldevs, ra, ra->ents, gat, &ra->ngat, &count, stats);
  if (rc < 0) { MI_STATUS(st, rc); return; }
  if (procs) release_told(s, ra);
  if (gat) changed_procs(ra, buf, rec, count, rec_flags);
  else flag_records(ra, buf, rec, count, mode, rec_flags);
  /* (a position beyond 2^40 births cannot be carried: the iteration ends there) */
  mi_longint_set(context, ra->complete || ra->next > CTX_POS_MASK ? 0 : (int64_t)(tag << CTX_POS_BITS | ra->next));
  if (num_of_recs) *num_of_recs = count;
  MI_STATUS(st, rc);
}

void MIREADACTIVE(status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size, int32_t mapping,
                  int32_t type, int32_t mode, const mi_entity_desc *descs, int32_t n, int32_t *num_of_recs,
                  int32_t *rec_flags, longint_type *context, int32_t user_id) {
  mi_readactive(mi_session_current(), st, nums, buf, stats, size, mapping, type, mode, descs, n, num_of_recs,
                rec_flags, context, user_id);
}
