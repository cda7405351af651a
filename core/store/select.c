/* select.c — entity selection: descriptors with wildcards, include and exclude (mi_select.h,
 * core/STORE.md "Selection and read-active"). It lives in the store because the descriptors of
 * MIPROCONSEL live in the caller's MI-user record in the segment, so the writer that creates a
 * process (this process or the owner of a shared store) evaluates them at every birth
 * (mi_sel_birth). The AIFs built on it (MIPROCONSEL, MIIOONSEL, MIREADACTIVE) are in
 * aif/readactive.c. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mi_internal.h"
#include "mi_query.h"

/* ---- descriptors ---- */

/* The entity type a descriptor type names (2 or 3, its sign dropped), 0 for anything else
 * (INT32_MIN included: no negation overflows). */
static inline int ent_type(int32_t t) { return t == 2 || t == -2 ? 2 : t == 3 || t == -3 ? 3 : 0; }

void mi_sel_init(mi_entity_desc *d, int32_t type) {
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->type = type;
  d->len = (int32_t)sizeof *d;
  d->pid = MI_SEL_ANY;
  d->js_type = d->js_num = d->ptype = MI_SEL_ANY;
  d->ldev_lo = d->ldev_hi = d->devtype = MI_SEL_ANY;
}

/* Checks a name pattern field of at most `parts` parts; NULL or the reason it is malformed. */
static const char *check_pattern(const char *f, int parts) {
  size_t len = strnlen(f, MI_SEL_PATTERN);
  if (len == MI_SEL_PATTERN) return "not terminated within its field";
  if (len == 0) return NULL;
  int np = 1, plen = 0;
  for (size_t i = 0; i <= len; i++) {
    unsigned char c = (unsigned char)f[i];
    if (c == '.' || c == 0) {
      if (plen == 0) return "an empty name part";
      if (c == '.' && ++np > parts) return parts == 3 ? "more than 3 parts (FILE.GROUP.ACCOUNT)" : "more than 2 parts (USER.ACCOUNT)";
      plen = 0;
      continue;
    }
    if (c <= ' ' || c > '~') return "a blank or non-printable character";
    if (++plen > 16) return "a name part longer than 16 characters";
  }
  return NULL;
}

/* Records a bad field; returns MI_E_BAD_DESCRIPTOR. */
static int bad_field(int i, const char *f, const char *w, int *bad, const char **field, const char **why) {
  if (bad) *bad = i;
  if (field) *field = f;
  if (why) *why = w;
  return MI_E_BAD_DESCRIPTOR;
}

int mi_sel_check(const mi_entity_desc *d, int n, int *bad, const char **field, const char **why) {
  if (bad) *bad = -1;
  if (field) *field = NULL;
  if (why) *why = NULL;
  if (n < 0 || (n > 0 && !d)) return bad_field(0, "type", "no descriptor list", bad, field, why);
  for (int i = 0; i < n; i++) {
    const mi_entity_desc *e = &d[i];
    int t = ent_type(e->type);
    const char *w;
    if (!t) return bad_field(i, "type", "not PROCESS (2) or LDEV (3), or their negatives", bad, field, why);
    if (e->len != (int32_t)sizeof *e) return bad_field(i, "len", "not sizeof(mi_entity_desc)", bad, field, why);
    if (t == MI_SEL_PROCESS) {
      if (e->pid != MI_SEL_ANY && e->pid <= 0) return bad_field(i, "pid", "not a pid > 0 or MI_SEL_ANY", bad, field, why);
      if ((w = check_pattern(e->program, 3)) != NULL) return bad_field(i, "program", w, bad, field, why);
      if ((w = check_pattern(e->user, 2)) != NULL) return bad_field(i, "user", w, bad, field, why);
      if (e->js_type < MI_SEL_ANY || e->js_type > MI_SEL_JS_JOB) return bad_field(i, "js_type", "not none, session, job or any", bad, field, why);
      if (e->js_num != MI_SEL_ANY && (e->js_num < 1 || e->js_num > 16383 || e->js_type == MI_SEL_JS_NONE))
        return bad_field(i, "js_num", "not a job/session number 1-16383 (of a session or job)", bad, field, why);
      if (e->ptype < MI_SEL_ANY || e->ptype > MI_PT_SON) return bad_field(i, "ptype", "not system, JSMAIN, CI, user or son", bad, field, why);
      if (e->ldev_lo != MI_SEL_ANY || e->ldev_hi != MI_SEL_ANY) return bad_field(i, "ldev", "not a field of a process descriptor", bad, field, why);
      if (e->devtype != MI_SEL_ANY) return bad_field(i, "devtype", "not a field of a process descriptor", bad, field, why);
    } else {
      if (e->pid != MI_SEL_ANY) return bad_field(i, "pid", "not a field of an LDEV descriptor", bad, field, why);
      if (e->program[0]) return bad_field(i, "program", "not a field of an LDEV descriptor", bad, field, why);
      if (e->user[0]) return bad_field(i, "user", "not a field of an LDEV descriptor", bad, field, why);
      if (e->js_type != MI_SEL_ANY) return bad_field(i, "js_type", "not a field of an LDEV descriptor", bad, field, why);
      if (e->js_num != MI_SEL_ANY) return bad_field(i, "js_num", "not a field of an LDEV descriptor", bad, field, why);
      if (e->ptype != MI_SEL_ANY) return bad_field(i, "ptype", "not a field of an LDEV descriptor", bad, field, why);
      if ((e->ldev_lo == MI_SEL_ANY) != (e->ldev_hi == MI_SEL_ANY) ||
          (e->ldev_lo != MI_SEL_ANY && (e->ldev_lo < 1 || e->ldev_hi > MI_MAX_LDEV || e->ldev_lo > e->ldev_hi)))
        return bad_field(i, "ldev", "not a range within 1-999 (lo <= hi) or both MI_SEL_ANY", bad, field, why);
      if (e->devtype != MI_SEL_ANY && (e->devtype < 1 || e->devtype > 10))
        return bad_field(i, "devtype", "not a device type 1-10", bad, field, why);
    }
  }
  return 0;
}

/* Upper-cases an ASCII letter. */
static inline unsigned char up(unsigned char c) { return c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c; }

/* Matches glob p[0..pn) ('*', '?') against s[0..sn), case-insensitively. */
static int glob(const char *p, size_t pn, const char *s, size_t sn) {
  size_t i = 0, j = 0, star = (size_t)-1, mark = 0;
  while (j < sn) {
    if (i < pn && (p[i] == '?' || (p[i] != '*' && up((unsigned char)p[i]) == up((unsigned char)s[j])))) { i++; j++; }
    else if (i < pn && p[i] == '*') { star = i++; mark = j; }
    else if (star != (size_t)-1) { i = star + 1; j = ++mark; }
    else return 0;
  }
  while (i < pn && p[i] == '*') i++;
  return i == pn;
}

int mi_sel_name_match(const char *pattern, const char name[48], int parts) {
  const char *p = pattern;
  for (int k = 0; k < parts && *p; k++) {
    const char *dot = strchr(p, '.');
    size_t pn = dot ? (size_t)(dot - p) : strlen(p);
    int field = parts == 2 && k == 1 ? 2 : k;   /* USER.ACCOUNT: the account is field 3 */
    const char *f = name + 16 * field;
    size_t fn = 16;
    while (fn && (f[fn - 1] == ' ' || f[fn - 1] == 0)) fn--;
    if (!glob(p, pn, f, fn)) return 0;
    p += pn + (dot != NULL);
  }
  return 1;
}

/* Returns 1 if descriptor d (of e's type) matches e. */
static int one(const mi_entity_desc *d, const mi_entity_info *e) {
  if (e->type == MI_SEL_LDEV) {
    if (d->ldev_lo != MI_SEL_ANY && (e->ldev < d->ldev_lo || e->ldev > d->ldev_hi)) return 0;
    return d->devtype == MI_SEL_ANY || d->devtype == e->devtype;
  }
  if (d->pid != MI_SEL_ANY && d->pid != e->pid) return 0;
  if (d->ptype != MI_SEL_ANY && d->ptype != e->ptype) return 0;
  if (d->js_type != MI_SEL_ANY && d->js_type != (int)(e->js >> 14 & 3)) return 0;
  if (d->js_num != MI_SEL_ANY && (d->js_num != (int)(e->js & 0x3FFF) || !(e->js >> 14 & 3))) return 0;
  if (d->program[0] && !mi_sel_name_match(d->program, e->program, 3)) return 0;
  if (d->user[0] && !mi_sel_name_match(d->user, e->user, 2)) return 0;
  return 1;
}

/* The selection of descriptors d[0..n) whose group is g (groups NULL: all) for e. */
static int match_group(const mi_entity_desc *d, const int32_t *groups, int n, int32_t g, const mi_entity_info *e) {
  int inc = 0, hit = 0;
  for (int i = 0; i < n; i++) {
    if (groups && groups[i] != g) continue;
    if (ent_type(d[i].type) != e->type) continue;
    if (d[i].type > 0) { inc = 1; if (!hit && one(&d[i], e)) hit = 1; }
    else if (one(&d[i], e)) return 0;
  }
  return inc ? hit : 1;
}

int mi_sel_match(const mi_entity_desc *d, int n, const mi_entity_info *e) {
  if (!e || n < 0 || (n && !d)) return 0;
  return match_group(d, NULL, n, 0, e);
}

/* Reads a process slot's identity (atomic loads: a reader may race a writer; the seqlock
 * then discards what was read). */
void mi_sel_info_of(const mi_proc *p, mi_entity_info *e) {
  e->type = MI_SEL_PROCESS;
  e->pid = MI_LD(p->pid);
  e->ptype = MI_LD(p->ptype);
  e->js = MI_LD(p->js);
  for (int k = 0; k < 6; k++) {
    uint64_t a = MI_LD(p->program[k]), b = MI_LD(p->user[k]);
    memcpy(e->program + 8 * k, &a, 8);
    memcpy(e->user + 8 * k, &b, 8);
  }
  e->ldev = e->devtype = 0;
}

int mi_sel_birth(const mi_urec *u, const mi_proc *p) {
  mi_entity_info e;
  mi_sel_info_of(p, &e);
  int32_t seen = -1;
  for (int i = 0; i < u->nsel && i < MI_SEL_MAX; i++) {   /* each group once, in order */
    if (u->sel_group[i] <= seen) continue;
    seen = u->sel_group[i];
    if (match_group(u->sel, u->sel_group, u->nsel, seen, &e)) return 1;
  }
  return 0;
}

