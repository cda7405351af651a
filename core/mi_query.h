/* mi_query.h — door 2: a prepared read. A query is a domain, an item list and a mapping
 * resolved once into a gather plan (per item: cell offset, buffer size, kind, time flag,
 * fold, status; the record size). Running it gathers records into a buffer in the manual's
 * format (core/DECISIONS.md decision 11) with the statuses the matching GET gives, under the
 * segment's seqlock; the plan is re-resolved only when the store layout, the mapping in use
 * or an enable set changed (one generation compare otherwise: no allocation, no search, no
 * lock). The four GETs of mi.h
 * run through it; so do the Lua binding and any other reader.
 * For: readers that run many reads of one shape (tools, the Lua binding, exporters). */
#ifndef MI_QUERY_H
#define MI_QUERY_H

#include "mi_catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mi_query mi_query;

/* Prepares a read of n items (a 0 ends the list early; n at most MI_MAX_ITEMS - 1) of domain
 * (MI_DOM_GLOBAL .. MI_DOM_PROCESSOR) at mapping for caller s; NULL if an argument is bad or
 * memory is short. The query keeps s: free it before s. */
MI_API mi_query *mi_query_new(mi_session *s, int domain, const int32_t *items, int n, int mapping);
/* Runs a query as the domain's GET would (MIGLOBGET, MIPROCGET, MIIOGET, MIPRCSRGET) for the
 * selection sel (pid, ldev or processor id; -1 = all; ignored for global) into buf (size
 * bytes, 4-aligned). Returns the overall status code; *count (may be NULL) gets the records
 * written, stats (may be NULL) the item statuses. user_id 0 = the AIFACCESSON of the caller. */
MI_API int mi_query_run(mi_query *q, void *buf, int32_t size, int64_t sel, int32_t *count, int32_t *stats,
                        int32_t user_id);
/* Makes q wide (on = 1) or back to the manual's format (0): a wide query writes each counter
 * value (each class of a class counter too) as an int64_t, time counters in MI_Time, never
 * wrapped to 32 bits (pseudo-items keep their format). For readers that keep long-running
 * totals (the exporter, mi_export.h). 0, or -1 for a NULL query. */
MI_API int mi_query_set_wide(mi_query *q, int on);
/* Returns the bytes of one record (the buffer size a single-record GET needs). */
MI_API int32_t mi_query_record_size(const mi_query *q);
/* Returns the number of items of the query. */
MI_API int mi_query_items(const mi_query *q);
/* Returns the domain of the query. */
MI_API int mi_query_domain(const mi_query *q);
/* Returns item i's number; *it (may be NULL) gets its catalog entry, or NULL when the item
 * has no value in this domain (unknown, another domain's: a 4-byte zero slot); *size (may be
 * NULL) its bytes in a record. Fixed for the query's life. */
MI_API int32_t mi_query_item(const mi_query *q, int i, const mi_item_info **it, int32_t *size);
/* Returns how many records a run for sel could write now (at least 1): the monitored
 * processes, the enabled LDEVs of the selection, the processors. Runs the source's refresh. */
MI_API int mi_query_room(mi_query *q, int64_t sel);
/* Makes a process query watch for change (on = 1) or not (0): a run over all processes (sel
 * -1) that finds no process row written, no process born or ended and nothing else its records
 * are made of changed since its last complete run writes nothing and leaves buf as that run
 * wrote it (pass the same buffer), with that run's count; mi_query_unchanged then says 1. A
 * read-only (attached) system is always read. For readers that re-read all processes often
 * while their writer refreshes them seldom (the exporter). 0, or -1 (NULL or not a process query). */
MI_API int mi_query_set_watch(mi_query *q, int on);
/* Returns 1 if q's last run found nothing changed and left the buffer as the run before it (see
 * mi_query_set_watch); 0 otherwise. */
MI_API int mi_query_unchanged(const mi_query *q);
/* Frees a query; accepts NULL. Does not touch its session (which may be gone). */
MI_API void mi_query_free(mi_query *q);


/* ---- raw reads: door 2 for recorders (#28.3) ----
 * A raw read copies the store's own 64-bit cells (never wrapped, folded or converted to the
 * manual's formats) of prepared queries for every present entity, with the entities'
 * identities, in one write section: what a recorder writes to a file. */

/* A process-table entry as the store keeps it. */
typedef struct mi_raw_proc {
  int64_t pid, start_ticks, end_ticks;   /* end_ticks: the death's time (a dead entry) */
  char user[48], program[48];            /* filename_type images: name, group, account, 16 bytes each */
  uint32_t js;                           /* jsnum_type image */
  int32_t ptype;
} mi_raw_proc;

/* What one raw read saw besides the cells. */
typedef struct mi_raw_view {
  int64_t now;                           /* the store's clock (ticks) */
  int32_t ncpu;                          /* processors */
  uint8_t devtype[MI_MAX_LDEV + 1];      /* each LDEV's device type; 0: no device */
  uint8_t present[MI_MAX_PROCESSES];     /* by slot (with a process query): 0 absent, 1 alive,
                                            2 dead and reported to the session by this read */
  mi_raw_proc proc[MI_MAX_PROCESSES];    /* by slot, where present */
} mi_raw_view;

/* Returns the 64-bit cells item i of q takes in a raw row (its words in the store at q's
 * mapping: 1, a class counter's classes, a user-defined counter's cells), 0 for a pseudo-item,
 * an unknown number or a bad index. */
MI_API int32_t mi_query_raw_words(const mi_query *q, int i);
/* Reads, in one write section of the store, view v (may be NULL) and the raw rows of the nq
 * queries q[] (all of session s; a NULL one is skipped): for every present entity of q[k]'s
 * domain (global: one; process: every slot alive, and dead but not yet reported to s; I/O:
 * every configured LDEV; processor: 0 .. ncpu-1), ascending, its key (0, the slot, the LDEV,
 * the processor) into keys[k] and its cells, item after item (mi_query_raw_words each), into
 * cells[k] + entity * (the row's words); nkeys[k] gets the count. Arrays are the caller's,
 * sized for the domain's most entities. Dead processes read are released for s (reported).
 * Cells of an item the store has no cells for read 0. 0, or a status: -32006 store busy
 * (nothing read), -32008 a read-only attach, MI_E_BAD_POINTER. */
MI_API int mi_query_raw_read(mi_session *s, mi_raw_view *v, mi_query *const *q, int nq, int64_t *const *cells,
                             int32_t *const *keys, int32_t *nkeys);
/* Returns 1 if item is on (enabled) for s's MI user now, else 0. */
MI_API int mi_query_item_on(mi_session *s, int32_t item);
/* Runs the source's refresh of s's system, as every AIF call does first (a recorder calls it
 * before it reads). */
MI_API void mi_query_refresh(mi_session *s);
/* Refreshes s's system once for a reading of several domains (bit d: domain d), then the
 * mi_query_run and mi_query_room calls this thread makes on that system refresh nothing until
 * mi_query_release: one reading of every domain (an exporter's scrape), not one per domain. */
MI_API void mi_query_hold(mi_session *s, int domains);
/* Ends mi_query_hold: each read refreshes again. */
MI_API void mi_query_release(mi_session *s);

#ifdef MI_INTERNAL_H
/* ---- core side (aif.c): a query in caller-provided memory and the GETs' bodies ---- */
/* One item of a plan. */
typedef struct mi_qitem {
  const mi_item_info *it;  /* NULL: no value in this domain (zero slot) */
  int32_t off;             /* word offset in a row (counters) */
  int32_t words;           /* cells the counter occupies in a row (0: no counter read) */
  int32_t size;            /* bytes in a record */
  int16_t status;          /* 0 or the item's error (slot zero-filled) */
  uint8_t op;              /* what the gather writes: see query.c */
  uint8_t fold;            /* object classes folded to a coarser map */
} mi_qitem;

struct mi_query {
  mi_session *s;
  int32_t domain, mapping, n, cap;
  int32_t rec, good, last;
  int wide;                /* int64 values (mi_query_set_wide) */
  int valid;               /* plan resolved (in a consistent read) at generation gen */
  uint64_t gen;            /* the segment's gen then */
  uint64_t lgen;           /* the session's own generation then (a read-only session's enable-set changes) */
  int32_t sysmap;          /* the system mapping then */
  int32_t reach;           /* words of a row the plan reads (the largest off + words) */
  int32_t plain;           /* every item of the plan one simple or time cell, or the pid (a gather without jumps) */
  int32_t udef_seen;       /* bound with the number of a user-defined counter not installed then:
                            * the counters the system had, so mi_query_same rebinds once it has more; else -1 */
  /* watching for change (mi_query_set_watch): the epoch taken before the last complete run of all
   * processes (0: none to keep), its count, what its records were made of (rounding, ticks per
   * ms, monitored slots) and whether the last run kept them */
  int watch, unchanged;
  int32_t wdone;
  uint64_t wepoch, wround, wmon[(MI_MAX_PROCESSES + 63) / 64];
  int32_t *nums;           /* cap + 1, zero-terminated */
  int32_t *stats;          /* cap: the item statuses, as a GET returns them */
  mi_qitem *pl;            /* cap */
};

/* Bytes of memory a query of cap items needs beside its struct. */
#define MI_QUERY_MEM(cap) ((size_t)(cap) * sizeof(mi_qitem) + (size_t)(2 * (cap) + 1) * sizeof(int32_t))
/* Sets up q over caller memory mem (MI_QUERY_MEM(cap) bytes, 8-aligned), bound to no list. */
void mi_query_init(mi_query *q, mi_session *s, int domain, int mapping, void *mem, int cap);
/* Points q at a new list (n <= q->cap) and mapping; the plan resolves at the next run. */
void mi_query_bind(mi_query *q, const int32_t *nums, int n, int mapping);
/* Returns 1 if q is bound to exactly this list and mapping. */
int mi_query_same(const mi_query *q, const int32_t *nums, int n, int mapping);
/* 0 or the GET's status for a bad mapping or buffer. */
int mi_query_check_buffer(const void *buf, int32_t size, int mapping);
/* The bodies of the GETs after their parameter checks; return the overall status code. */
int mi_query_exec_glob(mi_query *q, uint8_t *buf, int32_t size, int32_t *stats);
int mi_query_exec_proc(mi_query *q, uint8_t *buf, int32_t size, int64_t pid, int32_t *count, int32_t *key,
                       int32_t *stats);
int mi_query_exec_io(mi_query *q, uint8_t *buf, int32_t size, int32_t sel, int32_t *count, int32_t *stats);
int mi_query_exec_prcsr(mi_query *q, uint8_t *buf, int32_t size, int32_t id, int32_t *count, int32_t *stats);
/* Read-active (select.c): pick, called inside the seqlock read, writes at most fit entities
 * (slots or ldevs) of the read segment to ents and returns how many (-1: a torn read); the
 * gather runs over them; with gat, only over the positions gat[0..*ngat) (ascending) that
 * pick chose: the caller fills the others. Returns the overall status; *count the records written. */
typedef int (*mi_query_pick)(const mi_seg *g, void *arg, int32_t *ents, int32_t fit);
int mi_query_exec_pick(mi_query *q, uint8_t *buf, int32_t size, mi_query_pick pick, void *arg, int32_t *ents,
                       const int32_t *gat, const int32_t *ngat, int32_t *count, int32_t *stats);
/* Returns 1 if a value of q's (resolved) plan moves with time alone, with no write to its row
 * (busy and queue user-defined counters): CHANGED must then look at every record. */
int mi_query_time_varying(const mi_query *q);
#endif

#ifdef __cplusplus
}
#endif
#endif
