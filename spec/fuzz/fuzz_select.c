/* fuzz_select.c — entity descriptors (mi_select.h, issue 14): the input becomes up to 6
 * descriptors (structured from a byte language, or raw struct bytes) and a few entities; the
 * checker and the matcher run on them. Checks: mi_sel_check accepts exactly what the harness's
 * own model of a valid descriptor accepts, and names a known field for what it refuses; for an
 * accepted list, mi_sel_match agrees for every entity with a model that matches names by a
 * recursive glob (a different algorithm from the core's), include/exclude as the union of
 * includes minus the excludes. */
#include "fuzz_common.h"
#include "mi_select.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  return 0;
}

/* The input as a byte stream; zeros past its end. */
typedef struct src { const uint8_t *p; size_t n, at; } src;
static uint8_t byte(src *s) { return s->at < s->n ? s->p[s->at++] : 0; }

/* A name or pattern of up to max characters from an alphabet rich in wildcards and dots
 * (any byte when the top bit of the length byte is set). */
static void text(src *s, char *out, size_t max, int pattern) {
  static const char abc[] = "AB?*.*CI.PUB..SYSab? x*";
  uint8_t lb = byte(s);
  size_t len = (size_t)(lb & 0x3F) % (max + 1);
  for (size_t i = 0; i < len; i++) {
    uint8_t c = byte(s);
    out[i] = lb & 0x80 ? (char)c : pattern ? abc[c % (sizeof abc - 1)] : "ABCIPUSYab?*"[c % 12];
    if (!out[i]) { len = i; break; }
  }
  out[len] = 0;
}

/* Model: the reason pattern f (NUL-terminated within MI_SEL_PATTERN) is malformed, or NULL. */
static int model_pattern_ok(const char *f, int parts) {
  size_t len = strnlen(f, MI_SEL_PATTERN);
  if (len == MI_SEL_PATTERN) return 0;
  if (!len) return 1;
  int np = 0;
  const char *p = f;
  for (;;) {
    const char *dot = strchr(p, '.');
    size_t pl = dot ? (size_t)(dot - p) : strlen(p);
    if (pl < 1 || pl > 16) return 0;
    for (size_t i = 0; i < pl; i++) if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] > '~') return 0;
    if (++np > parts) return 0;
    if (!dot) return 1;
    p = dot + 1;
  }
}

/* Model of a valid descriptor. */
static int model_valid(const mi_entity_desc *d) {
  int t = d->type == 2 || d->type == -2 ? 2 : d->type == 3 || d->type == -3 ? 3 : 0;
  if (!t || d->len != (int32_t)sizeof *d) return 0;
  if (t == 2)
    return (d->pid == -1 || d->pid > 0) && model_pattern_ok(d->program, 3) && model_pattern_ok(d->user, 2) &&
           d->js_type >= -1 && d->js_type <= 2 && (d->js_num == -1 || (d->js_num >= 1 && d->js_num <= 16383 && d->js_type != 0)) &&
           d->ptype >= -1 && d->ptype <= 4 && d->ldev_lo == -1 && d->ldev_hi == -1 && d->devtype == -1;
  return d->pid == -1 && !d->program[0] && !d->user[0] && d->js_type == -1 && d->js_num == -1 && d->ptype == -1 &&
         ((d->ldev_lo == -1 && d->ldev_hi == -1) || (d->ldev_lo >= 1 && d->ldev_hi <= 999 && d->ldev_lo <= d->ldev_hi)) &&
         (d->devtype == -1 || (d->devtype >= 1 && d->devtype <= 10));
}

/* Recursive glob, case-insensitive, memoised on (pattern left, name left): polynomial, so a
 * pattern of many stars cannot make the model itself the slow unit (the plain recursion took
 * 2.3 CPU s on a 45-byte input of the session 38 campaign). memo: 0 unknown, 1 no, 2 yes. */
static int rglob_m(const char *p, size_t pn, const char *s, size_t sn, uint8_t memo[][MI_SEL_PATTERN + 1]) {
  if (!pn) return !sn;
  uint8_t *m = &memo[pn][sn];
  if (*m) return *m == 2;
  int r;
  if (*p == '*') r = rglob_m(p + 1, pn - 1, s, sn, memo) || (sn && rglob_m(p, pn, s + 1, sn - 1, memo));
  else if (!sn) r = 0;
  else {
    char a = *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p, b = *s >= 'a' && *s <= 'z' ? (char)(*s - 32) : *s;
    r = (*p == '?' || a == b) && rglob_m(p + 1, pn - 1, s + 1, sn - 1, memo);
  }
  *m = (uint8_t)(r ? 2 : 1);
  return r;
}
static int rglob(const char *p, size_t pn, const char *s, size_t sn) {
  static uint8_t memo[MI_SEL_PATTERN + 1][MI_SEL_PATTERN + 1];
  if (pn > MI_SEL_PATTERN || sn > MI_SEL_PATTERN) abort();   /* the model's own bound */
  for (size_t i = 0; i <= pn; i++) memset(memo[i], 0, sn + 1);
  return rglob_m(p, pn, s, sn, memo);
}

/* Model of a name pattern against a 48-byte name image. */
static int model_name(const char *pat, const char *name, int parts) {
  const char *p = pat;
  for (int k = 0; *p; k++) {
    const char *dot = strchr(p, '.');
    size_t pl = dot ? (size_t)(dot - p) : strlen(p);
    const char *f = name + 16 * (parts == 2 && k == 1 ? 2 : k);
    size_t fl = 16;
    while (fl && (f[fl - 1] == ' ' || !f[fl - 1])) fl--;
    if (!rglob(p, pl, f, fl)) return 0;
    if (!dot) break;
    p = dot + 1;
  }
  return 1;
}

/* Model of one descriptor against an entity of its type. */
static int model_one(const mi_entity_desc *d, const mi_entity_info *e) {
  if (e->type == 3)
    return (d->ldev_lo == -1 || (e->ldev >= d->ldev_lo && e->ldev <= d->ldev_hi)) && (d->devtype == -1 || d->devtype == e->devtype);
  int jt = (int)(e->js >> 14 & 3), jn = (int)(e->js & 0x3FFF);
  return (d->pid == -1 || d->pid == e->pid) && (d->ptype == -1 || d->ptype == e->ptype) &&
         (d->js_type == -1 || d->js_type == jt) && (d->js_num == -1 || (jt && d->js_num == jn)) &&
         (!d->program[0] || model_name(d->program, e->program, 3)) && (!d->user[0] || model_name(d->user, e->user, 2));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  src s = {data, size, 0};
  mi_entity_desc d[6];
  int n = byte(&s) % 7, want_ok = 1;
  for (int i = 0; i < n; i++) {
    uint8_t how = byte(&s);
    if (how == 0xFF) {   /* raw struct bytes */
      for (size_t k = 0; k < sizeof d[i]; k++) ((uint8_t *)&d[i])[k] = byte(&s);
    } else {
      static const int32_t types[] = {2, -2, 3, -3, 2, -2, 0, 4};
      mi_sel_init(&d[i], types[how & 7]);
      uint8_t f = byte(&s);
      if (f & 1) d[i].pid = (int8_t)byte(&s);
      if (f & 2) text(&s, d[i].program, 24, 1);
      if (f & 4) text(&s, d[i].user, 24, 1);
      if (f & 8) d[i].js_type = (int8_t)byte(&s) % 4;
      if (f & 16) d[i].js_num = (int16_t)(byte(&s) << 8 | byte(&s)) % 17000;
      if (f & 32) d[i].ptype = (int8_t)byte(&s) % 6;
      if (f & 64) { d[i].ldev_lo = byte(&s) * 5 - 20; d[i].ldev_hi = d[i].ldev_lo + (int8_t)byte(&s); }
      if (f & 128) d[i].devtype = (int8_t)byte(&s) % 12;
      if (how & 0x80) d[i].len = (int32_t)byte(&s);
    }
    want_ok &= model_valid(&d[i]);
  }
  int bad = -9;
  const char *field = NULL, *why = NULL;
  int rc = mi_sel_check(d, n, &bad, &field, &why);
  FZ_CHECK(rc == 0 || rc == MI_E_BAD_DESCRIPTOR, "status %d", rc);
  FZ_CHECK((rc == 0) == want_ok, "check says %d, model says valid=%d", rc, want_ok);
  if (rc) {
    static const char *const fields[] = {"type", "len", "pid", "program", "user", "js_type", "js_num", "ptype", "ldev", "devtype"};
    int known = 0;
    for (size_t k = 0; field && k < sizeof fields / sizeof fields[0]; k++) known |= !strcmp(field, fields[k]);
    FZ_CHECK(bad >= 0 && bad < n && known && why && *why, "bad %d field %s", bad, field ? field : "(null)");
    FZ_CHECK(!model_valid(&d[bad]), "descriptor %d named bad is valid to the model", bad);
    for (int k = 0; k < bad; k++) FZ_CHECK(model_valid(&d[k]), "descriptor %d before the one named is bad", k);
    return 0;
  }
  for (int k = 0; k < 4; k++) {   /* entities */
    mi_entity_info e;
    memset(&e, 0, sizeof e);
    e.type = byte(&s) & 1 ? 3 : 2;
    e.pid = byte(&s) % 8;
    e.ptype = byte(&s) % 5;
    e.js = (uint32_t)(byte(&s) % 3) << 14 | (byte(&s) % 4);
    e.ldev = byte(&s) * 4;
    e.devtype = byte(&s) % 11;
    char part[3][17];
    for (int nm = 0; nm < 2; nm++) {
      char *img = nm ? e.user : e.program;
      memset(img, ' ', 48);
      for (int j = 0; j < 3; j++) { text(&s, part[j], 16, 0); memcpy(img + 16 * j, part[j], strlen(part[j])); }
    }
    int inc = 0, hit = 0, out = 0;
    for (int i = 0; i < n; i++) {
      if ((d[i].type == 2 || d[i].type == -2 ? 2 : 3) != e.type) continue;   /* valid: 2, -2, 3, -3 */
      if (d[i].type > 0) { inc = 1; hit |= model_one(&d[i], &e); } else out |= model_one(&d[i], &e);
    }
    int want = (!inc || hit) && !out;
    FZ_CHECK(mi_sel_match(d, n, &e) == want, "match %d, model %d", !want, want);
  }
  return 0;
}
