/* mi_export.h — the MI's counters as a Prometheus / OpenMetrics exposition (core/export/).
 * For: programs that serve or format a system's counters for Prometheus / OpenMetrics.
 * An exporter is a reader of a system like any MI user: it opens its own session, enables every
 * instrumented counter of the catalog (global, processors through 21164, every LDEV, every
 * process) and the user-defined counters installed by then (an ACCUM array with an `element`
 * label, a QBUSY pair as two families), and reads them through wide prepared queries
 * (mi_query.h), so it works on any system:
 * a sim, the host, an attached store, a replayed recording. A scrape reads the store once;
 * formatting writes the last scrape as OpenMetrics 1.0.0 or Prometheus text 0.0.4 into one
 * growing buffer. The naming rules are in core/DECISIONS.md ("The exporter"). Not thread-safe:
 * one thread scrapes and formats an exporter at a time. */
#ifndef MI_EXPORT_H
#define MI_EXPORT_H

#include <stddef.h>
#include "mi_catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mi_export mi_export;

/* What to export; all zero = the defaults. */
typedef struct mi_export_options {
  const char *mapping;   /* object-class map asked for at ON: "standard" (NULL), "small", "large";
                            the map in use (another user's choice) wins and names the classes */
  int pids;              /* per-PID series for at most this many processes (0 = none: aggregates only) */
  int no_processes;      /* 1: no process counters at all */
  int no_io;             /* 1: no I/O counters */
  int32_t user_id;       /* MI user ID to install and use (0 = 666) */
  const int32_t *items;  /* 0-terminated catalog items to export (NULL = every instrumented item); each must
                            be instrumented and not a pseudo-item. User-defined counters are always exported */
} mi_export_options;

enum { MI_EXPORT_TEXT = 0,         /* Prometheus text format 0.0.4 */
       MI_EXPORT_OPENMETRICS = 1 }; /* OpenMetrics 1.0.0 */

/* Content types of the two formats, as an HTTP server sends them. */
#define MI_EXPORT_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MI_EXPORT_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Creates an exporter reading sys (NULL = the default system): a session of its own with its
 * counters on. NULL on failure, with the reason in err (may be NULL). Free it before sys. */
MI_API mi_export *mi_export_new(mi_system *sys, const mi_export_options *o, char *err, size_t errlen);
/* Creates an exporter on a caller's own session s (nothing on yet; the exporter makes it
 * privileged, authorizes it and turns its counters on); mi_export_free turns them off and leaves
 * s to its owner. For bindings that manage sessions (Lua). NULL on failure, with err. */
MI_API mi_export *mi_export_new_on(mi_session *s, const mi_export_options *o, char *err, size_t errlen);
/* Tells an exporter made by mi_export_new_on that its session is gone (freed by its owner):
 * it no longer touches it, and a scrape fails with MI_E_INTERNAL_NO_CALLER. */
MI_API void mi_export_forget_session(mi_export *x);
/* Reads the system once (runs the source's refresh): the values the next format writes. 0, or
 * the failing GET's status (e.g. MI_E_STORE_OWNER_GONE); the last good scrape is kept. When
 * user-defined counters were installed since the last plan, plans again first (its counters
 * restart; see core/DECISIONS.md, "The exporter"). One reading of the source serves every
 * domain of the scrape (mi_query_hold): the host walks /proc once per scrape. */
MI_API int mi_export_scrape(mi_export *x);
/* Formats the last scrape (scraping first if there was none) as fmt (MI_EXPORT_TEXT or
 * _OPENMETRICS); returns the text, valid until the next call on x, with its length in *len
 * (may be NULL); NULL if out of memory. */
MI_API const char *mi_export_format(mi_export *x, int fmt, size_t *len);
/* Returns the number of series the last format wrote (samples, _created lines excluded). */
MI_API long mi_export_series(const mi_export *x);
/* Returns the system an exporter reads. */
MI_API mi_system *mi_export_system(const mi_export *x);
/* Frees an exporter and its own session (a caller's session: only its counters go off); accepts NULL. */
MI_API void mi_export_free(mi_export *x);

/* Returns 1 if an item is exported as a gauge (its catalog reading is a level or a watermark),
 * 0 as a counter (a total; always for a user-defined counter). */
MI_API int mi_export_is_gauge(const mi_item_info *it);
/* Returns the HELP text of an item: its catalog description once there is one, else its name. */
MI_API const char *mi_export_help(const mi_item_info *it);
/* Picks the format for an HTTP Accept header (NULL: none): OpenMetrics when it asks for
 * application/openmetrics-text (with a q above 0), else text 0.0.4 (never "not acceptable"). */
MI_API int mi_export_negotiate(const char *accept);

/* ---- the HTTP server (core/export/serve.c) ---- */
typedef struct mi_serve_options {
  const char *listen;    /* "[HOST:]PORT" ("[::1]:PORT" for IPv6); HOST defaults to 127.0.0.1 */
  int min_interval_ms;   /* a scrape re-reads the system at most this often (0 = 500 ms) */
  int max_clients;       /* connections at a time (0 = 512; fewer when the open-file limit is lower) */
  const volatile int *stop;   /* the loop returns once *stop is nonzero (a signal handler's flag) */
  void (*ready)(const char *addr, void *arg);   /* called once listening, with the bound address */
  void *ready_arg;
} mi_serve_options;

/* Serves GET /metrics (and / with a link) over HTTP/1.1 for exporter x until *o->stop: one
 * thread, poll(), keep-alive, concurrent clients, each request head with a deadline, one response
 * queued per connection (limits: core/DECISIONS.md, "The server"). 0 on a clean
 * stop, -1 with the reason in err if it cannot listen. */
MI_API int mi_serve(mi_export *x, const mi_serve_options *o, char *err, size_t errlen);
/* Checks the form of a listen address "[HOST:]PORT" (PORT 0-65535, HOST a name or address,
 * [v6] in brackets) without resolving or binding it: 0, or -1 with the reason in err (may be
 * NULL). */
MI_API int mi_serve_check_listen(const char *spec, char *err, size_t errlen);

/* The request parser behind mi_serve (for tests and fuzzing): parses the head of one request in
 * buf[0..n). Returns 0 when more bytes are needed, -1 for a bad request, else the head's length
 * with method (GET/HEAD/other as 1/2/0), target path and the Accept header copied into the
 * caller's buffers (NUL-terminated, cut to their size). */
typedef struct mi_http_req {
  int method;             /* 1 GET, 2 HEAD, 0 anything else */
  int close;              /* "Connection: close" or HTTP/1.0 without keep-alive */
  int has_body;           /* a Content-Length > 0 or Transfer-Encoding: refused */
  char path[256];         /* the path of an origin-form target, or of an absolute-form one (http://host/path) */
  char accept[512];
  int http10;             /* an HTTP/1.0 request (kept alive only when it asks, and then told so) */
} mi_http_req;
/* Parses the HTTP/1.x request head at the start of buf (n bytes) into *r (the server's parser,
 * exposed for its fuzz harness): the head's length when whole, 0 if more bytes are needed, -1 if malformed. */
MI_API int mi_http_parse(const char *buf, size_t n, mi_http_req *r);

#ifdef __cplusplus
}
#endif
#endif
