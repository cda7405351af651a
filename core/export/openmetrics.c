/* openmetrics.c — the exporter (mi_export.h): a reader session with every instrumented counter
 * on, four wide prepared queries, process aggregation by program and job/session kind with the
 * totals of dead processes kept, and the formatter for OpenMetrics 1.0.0 and text 0.0.4.
 * Item iteration is driven by the catalog (mi_item_at), so counters the catalog gains are
 * exported without a change here. A scrape allocates nothing once its buffers have grown to
 * the system's size; a format writes into one growing buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mi_export.h"
#include "mi_userdef.h"
#include "mi_host.h"
#include "mi_query.h"
#include "mi_source.h"
#include "mi_linux.h"
#include "labels.h"

#define NCPU MI_MAX_PROCESSORS
#define NLDEV (MI_MAX_LDEV + 1)
#define MAX_GROUPS 1000          /* program/kind groups; later ones count in "(other)" */
#define PROC_LEAD 6              /* pid, state, program, start ticks, js number, type */
static const int32_t proc_lead[PROC_LEAD] = {20001, 20002, 20004, 20005, 20011, 20012};

enum { LAB_NONE, LAB_CLASS, LAB_ELEMENT };   /* what labels the values of a multi-value item */

/* One exported family of a domain's query: an item, or one half of a QBUSY pair. */
typedef struct xitem {
  const mi_item_info *it;
  int32_t off;        /* byte offset in a record */
  int32_t n;          /* values: 1, or the classes, or an ACCUM array's elements */
  int32_t cell;       /* index of its first value among the domain's values */
  uint8_t gauge, time, objcl, lab;
  char *name;         /* family name without "mish_" and the domain prefix; "_seconds" included */
  char *help;         /* HELP text of its own (a QBUSY half), NULL = the item's */
} xitem;

typedef struct xdom {
  mi_query *q;
  xitem *x;
  int nx, ncell;      /* exported items, values per record */
  int32_t rec;        /* bytes per record */
  uint8_t *buf;       /* records of the last scrape */
  size_t cap;         /* bytes of buf */
  int nrec;
  int lead;           /* pseudo-items leading a record */
} xdom;

/* A program/kind group of processes. */
typedef struct group {
  char program[52];
  uint8_t kind;            /* 0 system, 1 session, 2 job */
  int64_t created;         /* ticks when first seen */
  int live_procs;
  int64_t *dead;           /* totals of its dead processes (and of processes that left it) */
  int64_t *live;           /* sum over its live processes, this scrape */
  uint64_t *seen;          /* values ever nonzero (a series, once shown, stays) */
} group;

/* What the exporter remembers of a process. */
typedef struct pstate {
  int64_t pid, start;
  int group;               /* -1: free */
  int rec;                 /* its record this scrape, -1 none */
  int selected;            /* has per-PID series */
  uint32_t mark;           /* scrape it was last seen in */
  int64_t *base;           /* values already counted in an earlier group (NULL: none) */
  uint64_t *seen;          /* per-PID series shown (selected only) */
  char program[52];
} pstate;

struct mi_export {
  mi_system *sys;
  mi_session *s;
  int owns_session;
  int32_t uid;
  int mapping, pids, no_proc, no_io;
  int32_t *items;          /* mi_export_options.items, copied (NULL: every instrumented item) */
  int map_asked;           /* the mapping the options asked for (a re-plan asks again) */
  int udef_n;              /* user-defined counters the system had at the plan */
  int64_t enabled;         /* ticks of the ON */
  xdom d[MI_DOM_COUNT];
  int ncpu;
  int scraped;
  uint32_t mark;
  long scrapes;
  int32_t rf, tpm;         /* items 3042, 3043 at the last scrape */
  int64_t now;
  /* the host's processors past the MI's 8 (mi_linux_cpus): latest, first seen, how many */
  mi_linux_cpu *xc, *xbase;
  uint8_t *xhave;
  int nxc;
  /* global, processor and I/O "ever nonzero" bits; ldev first-seen ticks and types */
  uint64_t *gseen, *cseen, *lseen;
  int64_t lcreated[NLDEV];
  uint8_t ltype[NLDEV];
  /* groups and their hash (program + kind -> index + 1) */
  group *g;
  int ng, gcap;
  int32_t *gh;
  int ghcap;
  /* processes: states and the pid hash (pid -> index + 1) */
  pstate *p;
  int np, pcap, pfree;
  int32_t *ph;
  int phcap;
  int live, dropped, untracked;
  /* output */
  char *out;
  size_t len, ocap;
  int oom;
  long series;
};

/* ---- catalog rules ---- */

int mi_export_is_gauge(const mi_item_info *it) {
  /* the catalog's reading column: a level or a watermark is a gauge (a class array of pages
   * now too); a total and a user-defined counter (it accumulates, whatever its name) are counters */
  return it && it->kind != MI_KIND_PSEUDO && it->reading != MI_READ_TOTAL &&
         (uint32_t)it->item - MI_UDEF_FIRST >= MI_UDEF_MAX;
}

const char *mi_export_help(const mi_item_info *it) {
  if (it && it->description && it->description[0]) return it->description;   /* the catalog's own words (#16.7) */
  return it && it->name ? it->name : "";
}

/* Returns 1 if s[0..k) ends with "_" w. */
static int ends_with(const char *s, size_t k, const char *w) {
  size_t wl = strlen(w);
  return k > wl + 1 && s[k - wl - 1] == '_' && memcmp(s + k - wl, w, wl) == 0;
}

/* The family name of an item (without "mish_" and a domain prefix): its name in [a-z0-9_]
 * with the words promtool reads as units or types spelled out, then "_" part (a QBUSY half;
 * NULL none), "_seconds" for MI_Time. A user-defined counter's own "_total" (the sample's
 * suffix) and, when timed, "_seconds" are not doubled. */
static char *family_name(const mi_item_info *it, const char *part) {
  char tmp[160];
  size_t k = 0;
  const char *p = it->name;
  if (!p || !*p) { snprintf(tmp, sizeof tmp, "item_%d", (int)it->item); p = tmp; }
  char *out = malloc(strlen(p) * 2 + 32);
  if (!out) return NULL;
  if (*p >= '0' && *p <= '9') out[k++] = '_';
  while (*p) {
    const char *e = strchr(p, '_');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    const char *rep = NULL;
    if (l == 3 && memcmp(p, "sec", 3) == 0) rep = "secondary";
    else if (l == 7 && memcmp(p, "counter", 7) == 0) rep = "ctr";
    if (rep) { memcpy(out + k, rep, strlen(rep)); k += strlen(rep); }
    else
      for (size_t j = 0; j < l; j++) {
        char c = p[j];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        out[k++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
      }
    if (!e) break;
    out[k++] = '_';
    p = e + 1;
  }
  while (k > 1 && out[k - 1] == '_') k--;   /* "..._objcl_" */
  out[k] = 0;
  size_t j = 0;   /* no "__" (Prometheus keeps names with a leading "__" for itself) */
  for (size_t i = 0; i < k; i++) if (!(out[i] == '_' && j && out[j - 1] == '_')) out[j++] = out[i];
  k = j;
  out[k] = 0;
  if ((uint32_t)it->item - MI_UDEF_FIRST < MI_UDEF_MAX) {
    if (ends_with(out, k, "total")) k -= 6;
    if (it->unit == MI_UNIT_MI_TIME && ends_with(out, k, "seconds")) k -= 8;
    out[k] = 0;
  }
  if (part) { out[k++] = '_'; strcpy(out + k, part); k += strlen(part); }
  if (it->unit == MI_UNIT_MI_TIME) strcpy(out + k, "_seconds");
  return out;
}

/* ---- setup ---- */

static void set_err(char *err, size_t n, const char *msg, int code) {
  if (err && n) {
    if (code) snprintf(err, n, "%s: %d %s", msg, code, mi_status_message(code));
    else snprintf(err, n, "%s", msg);
  }
}

/* set_err for a failed ON of `what`: when no item was valid, with the first item's own status,
 * which says why (-32009 on a read-only attach whose owner collects none of them: how to fix it). */
static void set_on_err(char *err, size_t n, const char *what, status_type st, const int32_t *stats) {
  int code = mi_status_info(st);
  if (code == MI_E_NO_VALID_ITEMS && stats[0] < 0 && err && n)
    snprintf(err, n, "%s: %d %s (%d %s)", what, code, mi_status_message(code), (int)stats[0], mi_status_message(stats[0]));
  else set_err(err, n, what, code);
}

/* Copies a checked item list (mi_export_options.items) into x->items: 0, or -1 with err set (an
 * item not in the catalog, a pseudo-item, one not instrumented: nothing would measure it). */
static int take_items(mi_export *x, const int32_t *items, char *err, size_t errlen) {
  size_t n = 0;
  for (const mi_item_info *it; items && items[n]; n++) {
    it = mi_item_lookup(items[n]);
    const char *why = n >= MI_MAX_ITEMS ? "too many items" : !it ? "not in the catalog" : it->kind == MI_KIND_PSEUDO
                    ? "a pseudo-item" : it->instrumented != MI_INST_YES ? "not instrumented (nothing measures it)" : NULL;
    if (why && err && errlen) snprintf(err, errlen, "item %d cannot be exported: %s", (int)items[n], why);
    if (why) return -1;
  }
  if (items && !(x->items = malloc((n + 1) * sizeof *x->items))) { set_err(err, errlen, "out of memory", 0); return -1; }
  if (items) memcpy(x->items, items, (n + 1) * sizeof *x->items);
  return 0;
}

/* Lists the exported counters of domain d (instrumented ones; 21164 always for global): simple
 * counters first, class arrays last, since the store grows every row at each enable of an ON
 * (the big arrays last make turning 279 process items on 4 times faster). */
static int list_items(mi_system *sys, const int32_t *only, int d, int32_t *nums, int room) {
  int n = 0;
  /* with a list, its catalog positions sorted (and 21164's) instead of the whole catalog */
  int at[MI_MAX_ITEMS + 1], nat = 0, all = mi_item_count();
  if (only) {
    const mi_item_info *first = mi_item_at(0), *pauses = mi_item_lookup(21164);
    if (pauses && pauses->domain == d) at[nat++] = (int)(pauses - first);
    for (int k = 0; only[k] && nat <= MI_MAX_ITEMS; k++) {
      const mi_item_info *it = mi_item_lookup(only[k]);
      if (it && it->domain == d) at[nat++] = (int)(it - first);
    }
    for (int k = 1; k < nat; k++)
      for (int j = k; j > 0 && at[j - 1] > at[j]; j--) { int t = at[j]; at[j] = at[j - 1]; at[j - 1] = t; }
  }
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < (only ? nat : all) && n < room; k++) {
      if (only && k && at[k] == at[k - 1]) continue;   /* listed twice */
      const mi_item_info *it = mi_item_at(only ? at[k] : k);
      if (!it || it->domain != d || it->kind == MI_KIND_PSEUDO || (it->kind == MI_KIND_SIMPLE) != (pass == 0)) continue;
      if (it->instrumented != MI_INST_YES && it->item != 21164) continue;
      nums[n++] = it->item;
    }
  /* the program's own counters (#14.2) installed by now: an ACCUM array is one family with an
   * `element` label, a QBUSY pair two families (build_dom) */
  for (int i = 0, c = mi_udef_count(sys); i < c && n < room; i++) {
    const mi_udef_info *u = mi_udef_at(sys, i);
    if (!u || u->item.domain != d) continue;
    nums[n++] = u->item.item;
  }
  nums[n] = 0;
  return n;
}

/* Builds the query of domain d over its lead pseudo-items and nums; fills the item table. */
static int build_dom(mi_export *x, int d, const int32_t *lead, int nlead, const int32_t *nums, int n) {
  xdom *D = &x->d[d];
  int32_t all[MI_MAX_ITEMS];
  for (int i = 0; i < nlead; i++) all[i] = lead[i];
  for (int i = 0; i < n; i++) all[nlead + i] = nums[i];
  all[nlead + n] = 0;
  D->q = mi_query_new(x->s, d, all, nlead + n, x->mapping);
  if (!D->q) return -1;
  mi_query_set_wide(D->q, 1);
  if (d == MI_DOM_PROCESS) mi_query_set_watch(D->q, 1);   /* a scrape between the host's process readings copies nothing */
  D->rec = mi_query_record_size(D->q);
  D->lead = nlead;
  D->x = calloc(2 * (size_t)n + 1, sizeof *D->x);   /* a QBUSY item makes two */
  if (!D->x) return -1;
  int32_t off = 0;
  for (int i = 0; i < nlead + n; i++) {
    const mi_item_info *it;
    int32_t size;
    mi_query_item(D->q, i, &it, &size);
    const mi_udef_info *u = it && (uint32_t)it->item - MI_UDEF_FIRST < MI_UDEF_MAX ? (const mi_udef_info *)(const void *)it : NULL;
    int halves = u && u->kind == MI_UDEF_QBUSY && size == 16 ? 2 : 1;
    for (int h = 0; i >= nlead && it && h < halves; h++) {
      xitem *xi = &D->x[D->nx++];
      xi->it = it;
      xi->off = off + 8 * h;
      xi->n = size / 8 / halves;
      xi->cell = D->ncell;
      xi->gauge = (uint8_t)mi_export_is_gauge(it);
      xi->time = it->unit == MI_UNIT_MI_TIME;
      xi->objcl = it->kind == MI_KIND_OBJCL;
      xi->lab = xi->n == 1 ? LAB_NONE : u ? LAB_ELEMENT : LAB_CLASS;
      xi->name = family_name(it, halves == 2 ? (h ? "queue" : "busy") : NULL);
      if (!xi->name) return -1;
      if (halves == 2) {   /* each half says what it is */
        const char *what = h ? "queue: the time integral of its length, whose rate is the mean length" : "busy: the time it was above 0";
        size_t hl = strlen(mi_export_help(it)) + strlen(what) + 4;
        if (!(xi->help = malloc(hl))) return -1;
        snprintf(xi->help, hl, "%s (%s)", mi_export_help(it), what);
      }
      D->ncell += xi->n;
    }
    off += size;
  }
  return 0;
}

/* A family's name as the exposition writes it, and whether it is a counter (its samples add
 * _total and _created). */
typedef struct fname { const char *prefix; xitem *xi; const char *fixed; int counter; size_t len; } fname;

/* Returns 1 if the concatenations a[0] a[1] a[2] and b[0] b[1] b[2] are the same string
 * (compared in place: fix_clashes asks for every pair of families). */
static int same_joined(const char *const a[3], const char *const b[3]) {
  int i = 0, j = 0;
  for (const char *p = a[0], *q = b[0];; p++, q++) {
    while (!*p && i < 2) p = a[++i];
    while (!*q && j < 2) q = b[++j];
    if (!*p || !*q || *p != *q) return !*p && !*q;
  }
}

/* Returns 1 if two families would write a name in common (family or sample name; lengths first). */
static int fam_clash(const fname *a, const fname *b) {
  static const char *const sfx[3] = {"", "_total", "_created"};
  for (int i = 0; i < (a->counter ? 3 : 1); i++)
    for (int j = 0; j < (b->counter ? 3 : 1); j++) {
      const char *na[3] = {a->prefix, a->fixed ? a->fixed : a->xi->name, sfx[i]};
      const char *nb[3] = {b->prefix, b->fixed ? b->fixed : b->xi->name, sfx[j]};
      if (a->len + (i ? 4 + 2 * i : 0) == b->len + (j ? 4 + 2 * j : 0) && same_joined(na, nb)) return 1;   /* +6, +8 */
    }
  return 0;
}

/* Gives a user-defined family whose name clashes with another family's (a built-in or exporter
 * family, or an earlier user-defined one: "cpu_x" beside the processors' "x", "x_busy" beside the
 * QBUSY "x"'s "x_busy_seconds") the prefix "udef<item>_" until it is unique; 0 or -1 (memory). */
static int fix_clashes(mi_export *x) {
  static const char *const fixed[] = {"exporter_info", "exporter_scrapes", "exporter_processes",
                                      "exporter_process_groups", "exporter_pids_dropped"};
  size_t cap = 8;
  for (int d = 0; d < MI_DOM_COUNT; d++) cap += 2 * (size_t)x->d[d].nx;
  fname *f = malloc(cap * sizeof *f);
  if (!f) return -1;
  int n = 0, rc = 0;
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) f[n++] = (fname){"", NULL, fixed[k], k == 1, strlen(fixed[k])};
  for (int pass = 0; pass < 2 && !rc; pass++)   /* built-in families first, then the program's in install order */
    for (int d = 0; d < MI_DOM_COUNT && !rc; d++)
      for (int i = 0; i < x->d[d].nx && !rc; i++) {
        xitem *xi = &x->d[d].x[i];
        int udef = (uint32_t)xi->it->item - MI_UDEF_FIRST < MI_UDEF_MAX;
        if (udef != pass) continue;
        fname mine[2] = {{d == MI_DOM_PROCESSOR ? "cpu_" : "", xi, NULL, !xi->gauge, 0}, {"pid_", xi, NULL, !xi->gauge, 0}};
        int nm = d == MI_DOM_PROCESS && x->pids ? 2 : 1;
        for (int tries = 0; udef && tries < 4; tries++) {
          int bad = 0;   /* (each name's length anew: a rename lengthens it) */
          for (int m = 0; m < nm; m++) mine[m].len = strlen(mine[m].prefix) + strlen(xi->name);
          for (int k = 0; k < n && !bad; k++)
            for (int m = 0; m < nm && !bad; m++) bad = fam_clash(&mine[m], &f[k]);
          if (!bad) break;
          size_t l = strlen(xi->name) + 24;
          char *nn = malloc(l);
          if (!nn) { rc = -1; break; }
          snprintf(nn, l, "udef%d_%s", (int)xi->it->item, xi->name);
          free(xi->name); xi->name = nn;
        }
        for (int m = 0; m < nm; m++) { mine[m].len = strlen(mine[m].prefix) + strlen(xi->name); f[n++] = mine[m]; }
      }
  free(f);
  return rc;
}

mi_export *mi_export_new(mi_system *sys, const mi_export_options *o, char *err, size_t errlen) {
  if (!sys) sys = mi_default_system();
  if (!sys) { set_err(err, errlen, "no system", 0); return NULL; }
  mi_session *s = mi_session_new(sys);
  if (!s) { set_err(err, errlen, "out of memory", 0); return NULL; }
  mi_export *x = mi_export_new_on(s, o, err, errlen);
  if (!x) { mi_session_free(s); return NULL; }
  x->owns_session = 1;
  return x;
}

mi_export *mi_export_new_on(mi_session *s, const mi_export_options *o, char *err, size_t errlen) {
  mi_export_options def = {0};
  if (!o) o = &def;
  if (!s) { set_err(err, errlen, "no session", 0); return NULL; }
  mi_system *sys = mi_session_system(s);
  int map = MI_MAP_STANDARD;
  if (o->mapping) {
    if (strcmp(o->mapping, "large") == 0) map = MI_MAP_LARGE;
    else if (strcmp(o->mapping, "small") == 0) map = MI_MAP_SMALL;
    else if (strcmp(o->mapping, "standard") != 0) { set_err(err, errlen, "bad mapping (large, small or standard)", 0); return NULL; }
  }
  if (o->pids < 0) { set_err(err, errlen, "pids must be 0 or more", 0); return NULL; }
  mi_export *x = calloc(1, sizeof *x);
  if (!x) { set_err(err, errlen, "out of memory", 0); return NULL; }
  x->sys = sys;
  x->uid = o->user_id ? o->user_id : 666;
  x->pids = o->pids; x->no_proc = o->no_processes; x->no_io = o->no_io;
  if (take_items(x, o->items, err, errlen) < 0) { free(x); return NULL; }
  x->map_asked = map;
  x->udef_n = mi_udef_count(sys);   /* first: one installed while this plans is seen next scrape */
  x->s = s;
  mi_linux_time_refreshes(sys, 1);   /* its health families show what measuring the host costs */
  mi_session_set_priv(x->s, 1);
  status_type st;
  mi_globinstall(x->s, &st, x->uid);
  mi_accesson(x->s, &st, x->uid);
  if (st.all) { set_err(err, errlen, "AIFACCESSON", mi_status_info(st)); mi_export_free(x); return NULL; }
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS], m = map;
  int n = list_items(sys, x->items, MI_DOM_GLOBAL, nums, MI_MAX_ITEMS - 1);
  mi_globon(x->s, &st, nums, stats, &m, 0);
  if (mi_status_info(st) < 0) { set_on_err(err, errlen, "MIGLOBON", st, stats); mi_export_free(x); return NULL; }
  x->mapping = m;
  if (build_dom(x, MI_DOM_GLOBAL, NULL, 0, nums, n) < 0) goto oom;
  static const int32_t cpu_lead[1] = {20040}, io_lead[1] = {20020};
  n = list_items(sys, x->items, MI_DOM_PROCESSOR, nums, MI_MAX_ITEMS - 2);
  if (build_dom(x, MI_DOM_PROCESSOR, cpu_lead, 1, nums, n) < 0) goto oom;
  /* a domain with nothing to export (an item list without any of its items) is left out */
  if (!x->no_io && (n = list_items(sys, x->items, MI_DOM_IO, nums, MI_MAX_ITEMS - 2)) > 0) {
    int32_t ldev = -1;
    mi_ioon(x->s, &st, nums, stats, &m, &ldev, 0);
    if (mi_status_info(st) < 0) { set_on_err(err, errlen, "MIIOON", st, stats); mi_export_free(x); return NULL; }
    if (build_dom(x, MI_DOM_IO, io_lead, 1, nums, n) < 0) goto oom;
  }
  if (!x->no_proc && (n = list_items(sys, x->items, MI_DOM_PROCESS, nums, MI_MAX_ITEMS - 1 - PROC_LEAD)) > 0) {
    mi_procon(x->s, &st, nums, stats, &m, NULL, 0);
    if (mi_status_info(st) < 0) { set_on_err(err, errlen, "MIPROCON", st, stats); mi_export_free(x); return NULL; }
    if (build_dom(x, MI_DOM_PROCESS, proc_lead, PROC_LEAD, nums, n) < 0) goto oom;
  }
  if (fix_clashes(x) < 0) goto oom;
  x->enabled = mi_host_now(sys);
  x->gseen = calloc((size_t)x->d[MI_DOM_GLOBAL].ncell / 64 + 1, 8);
  x->cseen = calloc((size_t)NCPU * ((size_t)x->d[MI_DOM_PROCESSOR].ncell / 64 + 1), 8);
  x->lseen = calloc((size_t)NLDEV * ((size_t)x->d[MI_DOM_IO].ncell / 64 + 1), 8);
  if (!x->gseen || !x->cseen || !x->lseen) goto oom;
  return x;
oom:
  set_err(err, errlen, "out of memory", 0);
  mi_export_free(x);
  return NULL;
}

/* Frees what x holds beside its session and itself. */
static void free_state(mi_export *x) {
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    mi_query_free(x->d[d].q);
    for (int i = 0; i < x->d[d].nx; i++) { free(x->d[d].x[i].name); free(x->d[d].x[i].help); }
    free(x->d[d].x);
    free(x->d[d].buf);
  }
  for (int i = 0; i < x->ng; i++) { free(x->g[i].dead); free(x->g[i].live); free(x->g[i].seen); }
  for (int i = 0; i < x->np; i++) { free(x->p[i].base); free(x->p[i].seen); }
  free(x->g); free(x->gh); free(x->p); free(x->ph);
  free(x->gseen); free(x->cseen); free(x->lseen);
  free(x->xc); free(x->xbase); free(x->xhave);
  free(x->items);
  free(x->out);
}

/* Turns off everything the exporter turned on in its session. */
static void counters_off(mi_session *s) {
  status_type st;
  mi_globoff(s, &st, 0);
  mi_iooff(s, &st, &(int32_t){-1}, 0);
  mi_procoff(s, &st, NULL, 0);
}

void mi_export_free(mi_export *x) {
  if (!x) return;
  free_state(x);
  if (x->owns_session) mi_session_free(x->s);
  else if (x->s) counters_off(x->s);   /* the caller's session: its counters go off, the session stays */
  free(x);
}

/* Plans x again in its session when the system has user-defined counters it did not have
 * (a program installed some since): everything goes off and on again with the new list, so
 * the exporter's counters restart (a counter reset to Prometheus; _created moves). Returns 0,
 * or a status (x is unchanged then). */
static int replan(mi_export *x) {
  static const char *const maps[3] = {"large", "small", "standard"};   /* MI_MAP_LARGE, _SMALL, _STANDARD */
  mi_export_options o = {.mapping = x->map_asked >= 0 && x->map_asked <= 2 ? maps[x->map_asked] : NULL,
                         .pids = x->pids, .no_processes = x->no_proc, .no_io = x->no_io, .user_id = x->uid, .items = x->items};
  counters_off(x->s);
  char err[160];
  mi_export *y = mi_export_new_on(x->s, &o, err, sizeof err);
  if (!y) return MI_E_TOO_MANY_COUNTERS;
  mi_export old = *x;
  *x = *y;
  x->owns_session = old.owns_session;
  x->scrapes = old.scrapes;
  free(y);
  free_state(&old);
  return 0;
}

mi_system *mi_export_system(const mi_export *x) { return x ? x->sys : NULL; }
void mi_export_forget_session(mi_export *x) { if (x && !x->owns_session) x->s = NULL; }
long mi_export_series(const mi_export *x) { return x ? x->series : 0; }

/* ---- scraping ---- */

/* Makes room for recs records in domain D's buffer; 0 or -1. */
static int room_for(xdom *D, int recs) {
  size_t need = (size_t)(recs > 0 ? recs : 1) * (size_t)D->rec;
  if (need <= D->cap) return 0;
  /* by halves: a process table that grows a little per scrape does not copy at every scrape */
  size_t cap = D->cap + D->cap / 2 > need ? D->cap + D->cap / 2 : need;
  uint8_t *b = realloc(D->buf, cap);
  if (!b) return -1;
  D->buf = b; D->cap = cap;
  return 0;
}

static uint32_t hash_bytes(const char *s, size_t n, uint32_t h) {
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

/* The program of a process record: FILE.GROUP.ACCOUNT without the padding. */
static void program_of(const uint8_t *p, char out[52]) {
  size_t k = 0;
  for (int j = 0; j < 3; j++) {
    const char *f = (const char *)p + 16 * j;
    size_t l = 16;
    while (l && (f[l - 1] == ' ' || f[l - 1] == 0)) l--;
    if (j && l) out[k++] = '.';
    memcpy(out + k, f, l);
    k += l;
  }
  out[k] = 0;
}

/* Finds or makes the group of (program as a label writes it, kind); its index, or -1 when out of memory. */
static int group_of(mi_export *x, const char *program, int kind) {
  char key[sizeof x->g->program];
  program = x->ng >= MAX_GROUPS ? "(other)" : mi_om_label_key(program, key, sizeof key);
  size_t pl = strlen(program);
  uint32_t h = hash_bytes(program, pl, 2166136261u ^ (uint32_t)kind);
  if (x->ghcap) {
    for (uint32_t i = h & (uint32_t)(x->ghcap - 1);; i = (i + 1) & (uint32_t)(x->ghcap - 1)) {
      int32_t v = x->gh[i];
      if (!v) break;
      group *g = &x->g[v - 1];
      if (g->kind == kind && strcmp(g->program, program) == 0) return v - 1;
    }
  }
  if (x->ng + 1 > x->ghcap / 2) {   /* grow the hash (and rehash) */
    int nc = x->ghcap ? x->ghcap * 2 : 64;
    int32_t *nh = calloc((size_t)nc, sizeof *nh);
    if (!nh) return -1;
    for (int k = 0; k < x->ng; k++) {
      group *g = &x->g[k];
      uint32_t gh = hash_bytes(g->program, strlen(g->program), 2166136261u ^ g->kind);
      uint32_t i = gh & (uint32_t)(nc - 1);
      while (nh[i]) i = (i + 1) & (uint32_t)(nc - 1);
      nh[i] = k + 1;
    }
    free(x->gh); x->gh = nh; x->ghcap = nc;
  }
  if (x->ng == x->gcap) {
    int nc = x->gcap ? x->gcap * 2 : 32;
    group *ng = realloc(x->g, sizeof *ng * (size_t)nc);
    if (!ng) return -1;
    x->g = ng; x->gcap = nc;
  }
  int nc = x->d[MI_DOM_PROCESS].ncell;
  group *g = &x->g[x->ng];
  memset(g, 0, sizeof *g);
  snprintf(g->program, sizeof g->program, "%s", program);
  g->kind = (uint8_t)kind;
  g->created = x->now;
  g->dead = calloc((size_t)nc + 1, 8);
  g->live = calloc((size_t)nc + 1, 8);
  g->seen = calloc((size_t)nc / 64 + 1, 8);
  if (!g->dead || !g->live || !g->seen) { free(g->dead); free(g->live); free(g->seen); return -1; }
  uint32_t i = h & (uint32_t)(x->ghcap - 1);
  while (x->gh[i]) i = (i + 1) & (uint32_t)(x->ghcap - 1);
  x->gh[i] = x->ng + 1;
  return x->ng++;
}

/* Finds the state of pid (make = 1: makes one); its index, or -1. */
static int pstate_of(mi_export *x, int64_t pid, int make) {
  uint32_t h = (uint32_t)((uint64_t)pid * 0x9E3779B97F4A7C15ull >> 32);
  if (x->phcap) {
    for (uint32_t i = h & (uint32_t)(x->phcap - 1);; i = (i + 1) & (uint32_t)(x->phcap - 1)) {
      int32_t v = x->ph[i];
      if (!v) break;
      if (v > 0 && x->p[v - 1].pid == pid) return v - 1;
    }
  }
  if (!make) return -1;
  if (x->np + 1 > x->phcap / 2) {
    int nc = x->phcap ? x->phcap * 2 : 1024;
    while (x->np + 1 > nc / 2) nc *= 2;
    int32_t *nh = calloc((size_t)nc, sizeof *nh);
    if (!nh) return -1;
    for (int k = 0; k < x->np; k++) {
      if (x->p[k].group < 0) continue;
      uint32_t kh = (uint32_t)((uint64_t)x->p[k].pid * 0x9E3779B97F4A7C15ull >> 32);
      uint32_t i = kh & (uint32_t)(nc - 1);
      while (nh[i]) i = (i + 1) & (uint32_t)(nc - 1);
      nh[i] = k + 1;
    }
    free(x->ph); x->ph = nh; x->phcap = nc;
  }
  if (x->np == x->pcap) {
    int nc = x->pcap ? x->pcap * 2 : 256;
    pstate *np = realloc(x->p, sizeof *np * (size_t)nc);
    if (!np) return -1;
    x->p = np; x->pcap = nc;
  }
  int k = x->np++;
  memset(&x->p[k], 0, sizeof x->p[k]);
  x->p[k].pid = pid;
  x->p[k].group = -1;
  uint32_t i = h & (uint32_t)(x->phcap - 1);
  while (x->ph[i] > 0) i = (i + 1) & (uint32_t)(x->phcap - 1);
  x->ph[i] = k + 1;
  return k;
}

/* Rebuilds the pid hash and state array without the states of gone processes. */
static void pstate_compact(mi_export *x) {
  int k = 0;
  for (int i = 0; i < x->np; i++) {
    if (x->p[i].group < 0) { free(x->p[i].base); free(x->p[i].seen); continue; }
    x->p[k++] = x->p[i];
  }
  x->np = k;
  if (x->ph) memset(x->ph, 0, sizeof(int32_t) * (size_t)x->phcap);
  for (int i = 0; i < x->np; i++) {
    uint32_t kh = (uint32_t)((uint64_t)x->p[i].pid * 0x9E3779B97F4A7C15ull >> 32);
    uint32_t j = kh & (uint32_t)(x->phcap - 1);
    while (x->ph[j]) j = (j + 1) & (uint32_t)(x->phcap - 1);
    x->ph[j] = i + 1;
  }
}

static inline int64_t ld64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }
static inline int32_t ld32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

/* The values of a process record as one vector: the cells are packed in item order, each item's
 * values contiguous, starting right after the lead pseudo-items. */
static inline const uint8_t *cells_of(const xdom *D, const uint8_t *rec) {
  return D->nx ? rec + D->x[0].off : rec;
}

/* Accounts one process record r (index ri) in its group. */
static int account(mi_export *x, const uint8_t *r, int ri) {
  xdom *D = &x->d[MI_DOM_PROCESS];
  int nc = D->ncell;
  int64_t pid;
  longint_type l;
  memcpy(&l, r, 8);
  pid = mi_longint_get(&l);
  int dead = ld32(r + 8) != 0;
  char prog[52];
  program_of(r + 12, prog);
  memcpy(&l, r + 60, 8);
  int64_t start = mi_longint_get(&l);
  jsnum_type js;
  memcpy(&js, r + 68, 4);
  int kind = MI_JS_TYPE(js) == MI_JS_SESSION ? 1 : MI_JS_TYPE(js) == MI_JS_JOB ? 2 : 0;
  int k = pstate_of(x, pid, 1);
  if (k < 0) return -1;
  pstate *p = &x->p[k];
  if (p->group >= 0 && p->start != start) {   /* another process with the pid: start afresh */
    free(p->base); p->base = NULL;
    p->group = -1;
    p->selected = 0;
  }
  if (p->group < 0 && p->selected) {   /* a pid seen before, dead since: a new process */
    p->selected = 0;
    free(p->seen); p->seen = NULL;
  }
  const uint8_t *cells = cells_of(D, r);
  if (p->group < 0 || strcmp(p->program, prog) != 0 || x->g[p->group].kind != kind) {
    int gi = group_of(x, prog, kind);
    if (gi < 0) return -1;
    if (p->group >= 0) {   /* it moved (a new program): the old group keeps what it counted there */
      group *og = &x->g[p->group];
      if (!p->base && !(p->base = calloc((size_t)nc + 1, 8))) return -1;
      for (int c = 0; c < nc; c++) {
        int64_t v = ld64(cells + 8 * c);
        og->dead[c] += v - p->base[c];
        p->base[c] = v;
      }
    }
    p->group = gi;
    p->start = start;
    snprintf(p->program, sizeof p->program, "%s", prog);
  }
  group *g = &x->g[p->group];
  int64_t *acc = dead ? g->dead : g->live;
  if (p->base) for (int c = 0; c < nc; c++) acc[c] += ld64(cells + 8 * c) - p->base[c];
  else for (int c = 0; c < nc; c++) acc[c] += ld64(cells + 8 * c);
  p->mark = x->mark;
  if (dead) { p->group = -1; p->rec = -1; return 0; }
  g->live_procs++;
  x->live++;
  p->rec = ri;
  return 0;
}

/* Runs the query of a multi-record domain for all entities into its buffer, growing it on
 * -20015; with `each`, processes every batch (the process domain: no report may be lost). */
static int run_all(mi_export *x, int d, int64_t sel) {
  xdom *D = &x->d[d];
  D->nrec = 0;
  int room = mi_query_room(D->q, sel) + (d == MI_DOM_PROCESS ? 64 : 0);
  for (int tries = 0; tries < 8; tries++) {
    if (room_for(D, room) < 0) return MI_E_BUFFER_TOO_SMALL;
    int32_t cnt = 0;
    int rc = mi_query_run(D->q, D->buf, (int32_t)(D->cap > INT32_MAX ? INT32_MAX : D->cap), sel, &cnt, NULL, 0);
    if (rc == MI_E_NO_PROCESS_DATA) return 0;
    if (rc == MI_E_BUFFER_PARTIAL) {
      if (d == MI_DOM_PROCESS)   /* the dead-process reports that fitted are gone from the store: keep them */
        for (int i = 0; i < cnt; i++) {
          const uint8_t *r = D->buf + (size_t)i * (size_t)D->rec;
          if (ld32(r + 8) && account(x, r, -1) < 0) return MI_E_BUFFER_TOO_SMALL;
        }
      room *= 2;
      continue;
    }
    if (rc < 0) return rc;
    if (rc == MI_E_PROCESSES_UNTRACKED) x->untracked = 1;
    D->nrec = cnt;
    return 0;
  }
  return MI_E_BUFFER_PARTIAL;
}

#define NXCPU 1024   /* the host's processors the exporter shows at most (mi_linux_cpus) */

/* Reads the figures of every host processor (none on another system); a processor seen for
 * the first time counts from here. */
static void host_cpus(mi_export *x) {
  x->nxc = 0;
  if (!mi_linux_attached(x->sys)) return;
  if (!x->xc) {
    x->xc = calloc(NXCPU, sizeof *x->xc);
    x->xbase = calloc(NXCPU, sizeof *x->xbase);
    x->xhave = calloc(NXCPU, 1);
    if (!x->xc || !x->xbase || !x->xhave) return;   /* the MI's 8 only (no memory for the rest) */
  }
  int n = mi_linux_cpus(x->sys, x->xc, NXCPU);
  if (n > NXCPU) n = NXCPU;
  for (int k = 0; k < n; k++)
    if (!x->xhave[k] || x->xc[k].cs < x->xbase[k].cs || x->xc[k].idle < x->xbase[k].idle) {   /* new, or restarted */
      x->xbase[k] = x->xc[k];
      x->xhave[k] = 1;
    }
  x->nxc = n < 0 ? 0 : n;
}

/* The value of processor item `item` of host processor k since the exporter first saw it; 0 for
 * an item the host does not drive. */
static int64_t host_cpu_value(const mi_export *x, int k, int32_t item) {
  const mi_linux_cpu *c = &x->xc[k], *b = &x->xbase[k];
  switch (item) {
  case 27006: return c->idle - b->idle;
  case 27012: return c->ics - b->ics;
  case 27022: return c->bs - b->bs;
  case 27023: return c->cs - b->cs;
  case 27024: return c->ds - b->ds;
  case 27014: return c->interrupts - b->interrupts;
  case 27013: return c->launches - b->launches;
  default: return 0;
  }
}

int mi_export_scrape(mi_export *x) {
  if (!x || !x->s) return MI_E_INTERNAL_NO_CALLER;
  int rc = MI_UNLIKELY(mi_udef_count(x->sys) != x->udef_n) ? replan(x) : 0;
  xdom *G = &x->d[MI_DOM_GLOBAL];
  if (rc < 0 || room_for(G, 1) < 0) return rc < 0 ? rc : MI_E_BUFFER_TOO_SMALL;
  mi_query_hold(x->s, 1 << MI_DOM_GLOBAL | 1 << MI_DOM_PROCESSOR | (x->d[MI_DOM_IO].q ? 1 << MI_DOM_IO : 0) | (x->d[MI_DOM_PROCESS].q ? 1 << MI_DOM_PROCESS : 0));
  rc = mi_query_run(G->q, G->buf, (int32_t)G->cap, -1, NULL, NULL, 0);
  if (rc < 0) goto out;
  G->nrec = 1;
  x->now = mi_host_now(x->sys);
  x->rf = mi_host_config(x->sys, 3042);
  x->tpm = mi_host_config(x->sys, 3043);
  if (x->rf < 1) x->rf = 1;
  if (x->tpm < 1) x->tpm = 1;
  x->ncpu = mi_host_cpus(x->sys);
  if (x->ncpu > NCPU) x->ncpu = NCPU;
  if ((rc = run_all(x, MI_DOM_PROCESSOR, -1)) < 0) goto out;
  host_cpus(x);
  if (x->d[MI_DOM_IO].q) {
    if ((rc = run_all(x, MI_DOM_IO, -1)) < 0) goto out;
    xdom *D = &x->d[MI_DOM_IO];
    for (int i = 0; i < D->nrec; i++) {
      int ldev = ld32(D->buf + (size_t)i * (size_t)D->rec);
      if (ldev < 1 || ldev >= NLDEV) continue;
      int t = mi_host_device(x->sys, ldev);
      if (!x->lcreated[ldev] || x->ltype[ldev] != t) {   /* new, or a device that restarted from zero */
        x->lcreated[ldev] = x->now;
        x->ltype[ldev] = (uint8_t)t;
        size_t w = (size_t)x->d[MI_DOM_IO].ncell / 64 + 1;
        memset(x->lseen + (size_t)ldev * w, 0, w * 8);
      }
    }
  }
  x->untracked = 0;
  if (x->d[MI_DOM_PROCESS].q) {
    xdom *D = &x->d[MI_DOM_PROCESS];
    if ((rc = run_all(x, MI_DOM_PROCESS, -1)) < 0) goto out;   /* a failed read keeps the last sums */
    if (mi_query_unchanged(D->q)) goto done;   /* the records of the last read, summed already */
    x->mark++;
    x->live = 0;
    for (int i = 0; i < x->ng; i++) {
      memset(x->g[i].live, 0, sizeof(int64_t) * (size_t)D->ncell);
      x->g[i].live_procs = 0;
    }
    for (int i = 0; i < x->np; i++) x->p[i].rec = -1;
    for (int i = 0; i < D->nrec; i++)
      if (account(x, D->buf + (size_t)i * (size_t)D->rec, i) < 0) { rc = MI_E_BUFFER_TOO_SMALL; goto out; }
    /* processes not seen (none should be: every death is reported) are forgotten; then the
     * per-PID selection: kept while alive, new ones while there is room */
    int gone = 0, sel = 0;
    for (int i = 0; i < x->np; i++) {
      pstate *p = &x->p[i];
      if (p->group >= 0 && p->mark != x->mark) p->group = -1;
      if (p->group < 0) { gone++; continue; }
      if (p->selected) sel++;
    }
    if (gone > x->np / 4 || gone > 256) pstate_compact(x);
    x->dropped = 0;
    if (x->pids) {
      size_t w = (size_t)D->ncell / 64 + 1;
      for (int i = 0; i < x->np; i++) {
        pstate *p = &x->p[i];
        if (p->group < 0 || p->rec < 0 || p->selected) continue;
        if (sel < x->pids && (p->seen || (p->seen = calloc(w, 8)))) { p->selected = 1; sel++; }
        else x->dropped++;
      }
    }
  }
done:
  x->scrapes++;
  x->scraped = 1;
out:
  mi_query_release(x->s);
  return rc < 0 ? rc : 0;
}

/* ---- formatting ---- */

static int grow(mi_export *x, size_t more) {
  if (x->len + more <= x->ocap) return 0;
  size_t nc = x->ocap ? x->ocap : 65536;
  while (nc < x->len + more) nc *= 2;
  char *n = realloc(x->out, nc);
  if (!n) { x->oom = 1; return -1; }
  x->out = n; x->ocap = nc;
  return 0;
}

static void put(mi_export *x, const char *s, size_t n) {
  if (grow(x, n) < 0) return;
  memcpy(x->out + x->len, s, n);
  x->len += n;
}
#define PUTS(x, lit) put((x), (lit), sizeof(lit) - 1)
static void puts_(mi_export *x, const char *s) { put(x, s, strlen(s)); }

/* Writes an integer. */
static void put_i64(mi_export *x, int64_t v) {
  char b[24];
  int k = 24;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do { b[--k] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) b[--k] = '-';
  put(x, b + k, (size_t)(24 - k));
}

/* Writes num/den (den > 0) exactly when it has at most 9 decimals, else to 17 digits. */
static void put_ratio(mi_export *x, __int128 num, __int128 den) {
  int neg = num < 0;
  if (neg) num = -num;
  __int128 ip = num / den, rem = num % den;
  if (rem == 0) { if (neg && ip) PUTS(x, "-"); put_i64(x, (int64_t)ip); return; }
  __int128 f = rem * 1000000000;
  if (f % den == 0 && ip <= INT64_MAX) {
    char b[16];
    int64_t fr = (int64_t)(f / den);
    int k = 9;
    while (fr % 10 == 0) { fr /= 10; k--; }
    snprintf(b, sizeof b, ".%0*lld", k, (long long)fr);
    if (neg) PUTS(x, "-");
    put_i64(x, (int64_t)ip);
    puts_(x, b);
    return;
  }
  char b[40];
  snprintf(b, sizeof b, "%.17g", (double)num / (double)den * (neg ? -1 : 1));
  puts_(x, b);
}

/* Writes an MI value: seconds for MI_Time (v × 3042 / 3043 / 1000), else the count. */
static void put_value(mi_export *x, int64_t v, int time) {
  if (time) put_ratio(x, (__int128)v * x->rf, (__int128)x->tpm * 1000);
  else put_i64(x, v);
}

/* Writes ticks as seconds since 1970 (a _created value), to the millisecond. */
static void put_ticks(mi_export *x, int64_t t) {
  put_ratio(x, (__int128)(t / x->tpm), 1000);
}

/* Writes a label value: \, " and newline escaped; bytes that are not UTF-8 become '?'. */
static void put_label(mi_export *x, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p, n = (unsigned)mi_om_label_char(p);
    if (n == 0) { PUTS(x, "?"); p++; continue; }
    if (c == '\\') PUTS(x, "\\\\");
    else if (c == '"') PUTS(x, "\\\"");
    else if (c == '\n') PUTS(x, "\\n");
    else put(x, (const char *)p, (size_t)n);
    p += n;
  }
}

/* Writes HELP text: \ and newline escaped (the runs between them copied whole). */
static void put_help(mi_export *x, const char *s) {
  for (;;) {
    size_t n = strcspn(s, "\\\n");
    put(x, s, n);
    s += n;
    if (!*s) return;
    if (*s == '\\') PUTS(x, "\\\\");
    else PUTS(x, "\\n");
    s++;
  }
}

/* The family being written: its full name and whether its header is out. */
typedef struct fam {
  char name[200];
  const char *help;
  int counter, time, open, om;
} fam;

static void fam_begin(fam *f, const char *prefix, const char *base, const char *help, int counter, int time, int om) {
  /* "mish_" prefix base, cut to the buffer (no snprintf: one per family and format) */
  size_t lp = strlen(prefix), lb = strlen(base), room = sizeof f->name - 6;
  if (lp > room) lp = room;
  if (lb > room - lp) lb = room - lp;
  memcpy(f->name, "mish_", 5);
  memcpy(f->name + 5, prefix, lp);
  memcpy(f->name + 5 + lp, base, lb);
  f->name[5 + lp + lb] = 0;
  f->help = help; f->counter = counter; f->time = time; f->open = 0; f->om = om;
}

/* Writes the family's HELP/TYPE/UNIT lines before its first sample. */
static void fam_open(mi_export *x, fam *f) {
  if (f->open) return;
  f->open = 1;
  const char *sfx = f->counter && !f->om ? "_total" : "";
  PUTS(x, "# HELP "); puts_(x, f->name); puts_(x, sfx); PUTS(x, " "); put_help(x, f->help); PUTS(x, "\n");
  PUTS(x, "# TYPE "); puts_(x, f->name); puts_(x, sfx); puts_(x, f->counter ? " counter\n" : " gauge\n");
  if (f->om && f->time) { PUTS(x, "# UNIT "); puts_(x, f->name); PUTS(x, " seconds\n"); }
}

/* Labels of one series: up to 3 fixed ones and a class. */
typedef struct labels {
  const char *k[4];
  const char *v[4];
  char num[2][24];
  int n;
} labels;

static void put_labels(mi_export *x, const labels *l) {
  if (!l->n) return;
  PUTS(x, "{");
  for (int i = 0; i < l->n; i++) {
    if (i) PUTS(x, ",");
    puts_(x, l->k[i]); PUTS(x, "=\""); put_label(x, l->v[i]); PUTS(x, "\"");
  }
  PUTS(x, "}");
}

/* Writes one sample (and its _created in OpenMetrics for a counter). */
static void sample(mi_export *x, fam *f, const labels *l, int64_t v, int64_t created) {
  fam_open(x, f);
  puts_(x, f->name);
  if (f->counter) PUTS(x, "_total");
  put_labels(x, l);
  PUTS(x, " ");
  put_value(x, v, f->time);
  PUTS(x, "\n");
  x->series++;
  if (f->om && f->counter && created > 0) {
    puts_(x, f->name); PUTS(x, "_created");
    put_labels(x, l);
    PUTS(x, " ");
    put_ticks(x, created);
    PUTS(x, "\n");
  }
}

static inline int bit_get(const uint64_t *b, int i) { return (int)(b[i >> 6] >> (i & 63) & 1); }
static inline void bit_set(uint64_t *b, int i) { b[i >> 6] |= 1ull << (i & 63); }

/* Writes the values of item xi for one entity: one series, or one per class with a class label
 * (classes and entity-level series shown once nonzero, unless always). */
static void entity(mi_export *x, fam *f, const xitem *xi, labels *l, const int64_t *vals, uint64_t *seen,
                   int always, int64_t created) {
  for (int c = 0; c < xi->n; c++) {
    int64_t v = vals[c];
    int cell = xi->cell + c;
    if (v && seen) bit_set(seen, cell);
    if (!(always && xi->n == 1) && !(seen && bit_get(seen, cell)) && !v) continue;
    if (xi->n > 1) {
      const char *cn = xi->lab == LAB_ELEMENT ? NULL : xi->objcl ? mi_objcl_name(x->mapping, c) : mi_semcl_name(c);
      char fb[24];
      if (!cn) { snprintf(fb, sizeof fb, "%d", c); cn = fb; }
      l->k[l->n] = xi->lab == LAB_ELEMENT ? "element" : "class"; l->v[l->n] = cn; l->n++;
      sample(x, f, l, v, created);
      l->n--;
    } else sample(x, f, l, v, created);
  }
}

static const char *const kind_name[3] = {"system", "session", "job"};
#define XHELP(xi) ((xi)->help ? (xi)->help : mi_export_help((xi)->it))

/* Copies the values of item xi of a record into tmp (int64s). */
static const int64_t *rec_vals(const uint8_t *rec, const xitem *xi, int64_t *tmp) {
  memcpy(tmp, rec + xi->off, (size_t)xi->n * 8);
  return tmp;
}

static void self_metric(mi_export *x, int om, const char *name, const char *help, int counter, int64_t v) {
  fam f;
  fam_begin(&f, "exporter_", name, help, counter, 0, om);
  labels l = {0};
  sample(x, &f, &l, v, counter ? x->enabled : 0);
}

/* A counter of nanoseconds written as seconds (the exporter's own figures). */
static void self_seconds(mi_export *x, int om, const char *name, const char *help, int64_t ns) {
  fam f;
  fam_begin(&f, "exporter_", name, help, 1, 1, om);
  fam_open(x, &f);
  puts_(x, f.name);
  PUTS(x, "_total ");
  put_ratio(x, ns, 1000000000);
  PUTS(x, "\n");
  x->series++;
}

/* The samples of processor item xi for the host's processors past the MI's 8. */
static void host_cpu_rows(mi_export *x, fam *f, const xitem *xi) {
  char cpu[12];
  labels l;
  for (int k = NCPU; k < x->nxc && xi->n == 1; k++) {
    int64_t v = host_cpu_value(x, k, xi->it->item);
    memset(&l, 0, sizeof l);
    snprintf(cpu, sizeof cpu, "%d", k);
    l.k[0] = "cpu"; l.v[0] = cpu; l.n = 1;
    entity(x, f, xi, &l, &v, NULL, 1, x->enabled);
  }
}

#define XTMP (MI_MAX_ITEMS > 720 ? MI_MAX_ITEMS : 720)   /* the values of one item of one entity */

/* Writes the global items and the processors' (one series per CPU). */
static void format_global(mi_export *x, int om, int64_t *tmp) {
  fam f;
  labels l;
  char cpu[12];
  const xdom *G = &x->d[MI_DOM_GLOBAL];
  for (int i = 0; i < G->nx; i++) {
    const xitem *xi = &G->x[i];
    fam_begin(&f, "", xi->name, XHELP(xi), !xi->gauge, xi->time, om);
    memset(&l, 0, sizeof l);
    entity(x, &f, xi, &l, rec_vals(G->buf, xi, tmp), x->gseen, 1, x->enabled);
  }
  /* processors */
  const xdom *C = &x->d[MI_DOM_PROCESSOR];
  size_t cw = (size_t)C->ncell / 64 + 1;
  if (x->scraped)
    for (int i = 0; i < C->nx; i++) {
      const xitem *xi = &C->x[i];
      fam_begin(&f, "cpu_", xi->name, XHELP(xi), !xi->gauge, xi->time, om);
      for (int r = 0; r < C->nrec && r < x->ncpu; r++) {
        const uint8_t *rec = C->buf + (size_t)r * (size_t)C->rec;
        int id = ld32(rec);
        if (id < 0 || id >= NCPU) continue;
        memset(&l, 0, sizeof l);
        snprintf(cpu, sizeof cpu, "%d", id);
        l.k[0] = "cpu"; l.v[0] = cpu; l.n = 1;
        entity(x, &f, xi, &l, rec_vals(rec, xi, tmp), x->cseen + (size_t)id * cw, 1, x->enabled);
      }
      host_cpu_rows(x, &f, xi);
    }
}

/* Writes the I/O items: one series per LDEV, with its device type. */
static void format_io(mi_export *x, int om, int64_t *tmp) {
  fam f;
  labels l;
  char ldev[8];
  const xdom *D = &x->d[MI_DOM_IO];
  size_t lw = (size_t)D->ncell / 64 + 1;
  for (int i = 0; i < D->nx; i++) {
    const xitem *xi = &D->x[i];
    fam_begin(&f, "", xi->name, XHELP(xi), !xi->gauge, xi->time, om);
    for (int r = 0; r < D->nrec; r++) {
      const uint8_t *rec = D->buf + (size_t)r * (size_t)D->rec;
      int ld = ld32(rec);
      if (ld < 1 || ld >= NLDEV) continue;
      const mi_devtype_info *dt = mi_devtype(x->ltype[ld]);
      memset(&l, 0, sizeof l);
      snprintf(ldev, sizeof ldev, "%d", ld);
      l.k[0] = "ldev"; l.v[0] = ldev; l.k[1] = "type"; l.v[1] = dt ? dt->name : "none"; l.n = 2;
      entity(x, &f, xi, &l, rec_vals(rec, xi, tmp), x->lseen + (size_t)ld * lw, 0, x->lcreated[ld]);
    }
  }
}

/* Writes the process items: per program and kind, then per PID (when asked for). */
static void format_processes(mi_export *x, int om, int64_t *tmp) {
  fam f;
  labels l;
  char pid[24];
  const xdom *P = &x->d[MI_DOM_PROCESS];
  for (int i = 0; i < P->nx; i++) {
    const xitem *xi = &P->x[i];
    fam_begin(&f, "", xi->name, XHELP(xi), !xi->gauge, xi->time, om);
    for (int gi = 0; gi < x->ng; gi++) {
      const group *g = &x->g[gi];
      memset(&l, 0, sizeof l);
      l.k[0] = "program"; l.v[0] = g->program; l.k[1] = "kind"; l.v[1] = kind_name[g->kind]; l.n = 2;
      for (int c = 0; c < xi->n; c++)   /* counters: the dead's totals too; levels: the live only */
        tmp[c] = g->live[xi->cell + c] + (xi->gauge ? 0 : g->dead[xi->cell + c]);
      entity(x, &f, xi, &l, tmp, g->seen, 0, g->created);
    }
  }
  if (x->pids)
    for (int i = 0; i < P->nx; i++) {
      const xitem *xi = &P->x[i];
      fam_begin(&f, "pid_", xi->name, XHELP(xi), !xi->gauge, xi->time, om);
      for (int k = 0; k < x->np; k++) {
        const pstate *p = &x->p[k];
        if (!p->selected || p->group < 0 || p->rec < 0) continue;
        const uint8_t *rec = P->buf + (size_t)p->rec * (size_t)P->rec;
        memset(&l, 0, sizeof l);
        snprintf(pid, sizeof pid, "%lld", (long long)p->pid);
        l.k[0] = "pid"; l.v[0] = pid; l.k[1] = "program"; l.v[1] = p->program;
        l.k[2] = "kind"; l.v[2] = kind_name[x->g[p->group].kind]; l.n = 3;
        entity(x, &f, xi, &l, rec_vals(rec, xi, tmp), p->seen, 1, p->start > x->enabled ? p->start : x->enabled);
      }
    }
}

/* Writes the exporter's own figures: what is measured, its reads, and what measuring the host costs. */
static void format_self(mi_export *x, int om) {
  {   /* what is measured and the mapping that names the classes */
    static const char *const maps[3] = {"large", "small", "standard"};
    fam f; labels l;
    fam_begin(&f, "", "exporter_info", "the measured system's source (an attached store: its owner's too) and the object-class mapping in use", 0, 0, om);
    memset(&l, 0, sizeof l);
    l.k[l.n] = "source"; l.v[l.n++] = mi_system_source_name(x->sys);   /* sim, host, replay, attached, custom, a registered name */
    if (mi_system_attached(x->sys)) { l.k[l.n] = "owner_source"; l.v[l.n++] = mi_system_owner_source(x->sys); }
    l.k[l.n] = "mapping"; l.v[l.n++] = x->mapping >= 0 && x->mapping <= 2 ? maps[x->mapping] : "none";
    sample(x, &f, &l, 1, 0);
  }
  self_metric(x, om, "scrapes", "reads of the measured system by this exporter", 1, x->scrapes);
  self_metric(x, om, "processes", "live processes the exporter reads", 0, x->live);
  self_metric(x, om, "process_groups", "program and job/session kind groups of processes", 0, x->ng);
  self_metric(x, om, "pids_dropped", "live processes without per-PID series (over the cap)", 0, x->dropped);
  mi_linux_health hh;   /* what measuring the host costs (#32) */
  if (mi_linux_health_get(x->sys, &hh) == 0) {
    self_metric(x, om, "host_files_read", "files of the proc root the host source read, all refreshes", 1, hh.files_read);
    self_metric(x, om, "host_refresh_files", "files of the proc root the host source's latest refresh read", 0, hh.last_files);
    if (hh.short_lived >= 0)   /* not measured yet: no sample */
      self_metric(x, om, "host_short_lived", "tasks born and gone between two readings of the process table, never seen (forks less births seen)", 1, hh.short_lived);
    if (hh.cpu_ns >= 0) self_seconds(x, om, "host_refresh_cpu_seconds", "CPU time the host source's refreshes took", hh.cpu_ns);
    self_seconds(x, om, "cpu_seconds", "CPU time of the program measuring the host (every thread)", hh.self_cpu_ns);
  }
}

const char *mi_export_format(mi_export *x, int fmt, size_t *len) {
  if (len) *len = 0;
  if (!x) return NULL;
  if (!x->scraped && mi_export_scrape(x) < 0 && !x->scraped) {
    /* nothing read yet: an exposition with the exporter's own figures only */
  }
  int om = fmt == MI_EXPORT_OPENMETRICS;
  x->len = 0; x->oom = 0; x->series = 0;
  int64_t tmp[XTMP];
  if (x->scraped) format_global(x, om, tmp);
  if (x->scraped && x->d[MI_DOM_IO].q) format_io(x, om, tmp);
  if (x->scraped && x->d[MI_DOM_PROCESS].q) format_processes(x, om, tmp);
  format_self(x, om);
  if (om) PUTS(x, "# EOF\n");
  if (x->oom) return NULL;
  if (grow(x, 1) < 0) return NULL;
  x->out[x->len] = 0;
  if (len) *len = x->len;
  return x->out;
}
