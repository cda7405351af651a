/* conn.h — one HTTP connection of the exporter's server as a state machine fed bytes and a clock
 * (core/export/conn.c): serve.c drives it from poll() over sockets, spec/fuzz/fuzz_http.c without
 * any. Internal to core/ (not installed); the limits are described in core/README.md. */
#ifndef MI_EXPORT_CONN_H
#define MI_EXPORT_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "mi_export.h"

#define MI_HTTP_HEAD_MAX 8192   /* a request head longer than this is refused (431) */
#define MI_HTTP_HEAD_MS 10000   /* a request head must be whole this long after the wait for it began */
#define MI_HTTP_SEND_MS 10000   /* a response that makes no progress this long is dropped */

/* A response body shared by the connections that send it (an exposition); freed with its last reference. */
typedef struct mi_hbody {
  long refs;
  size_t len;
  char data[];
} mi_hbody;

/* What answers GET /metrics: the body in format f with a reference for the caller, or NULL with
 * *rc set (an MI status, or 0 when out of memory). */
typedef mi_hbody *(*mi_hconn_metrics)(void *arg, int f, int *rc);

/* One connection: the unparsed input, then at most one response being sent (its head and small
 * body in head[], a shared body by reference). While a response is unsent nothing more is read. */
typedef struct mi_hconn {
  char in[MI_HTTP_HEAD_MAX + 1];
  size_t inlen;
  char head[768];          /* status line, header fields and a small body */
  size_t headlen;
  mi_hbody *body;          /* the shared body after head[], or NULL */
  size_t bodylen;          /* bytes of body sent after head[] (0 for HEAD) */
  size_t off;              /* bytes of head[] then body sent */
  int closing;             /* close once the response is sent */
  int64_t wait_from;       /* ms: the wait for the next request head began (open, or the last response sent) */
  int64_t progress;        /* ms: the response's last progress (queued or partly sent) */
} mi_hconn;

/* Returns a new shared body holding a copy of s[0..n) with one reference, or NULL. */
mi_hbody *mi_hbody_new(const char *s, size_t n);
/* Drops a reference to a shared body, freeing it with the last; accepts NULL. */
void mi_hbody_unref(mi_hbody *b);

/* Starts a connection accepted at time now (ms). */
void mi_hconn_open(mi_hconn *c, int64_t now);
/* Releases what a connection holds (its body reference); the connection may be opened again. */
void mi_hconn_close(mi_hconn *c);
/* Where the connection takes input now and how much (*p); 0 while a response is unsent or it is closing. */
size_t mi_hconn_room(mi_hconn *c, char **p);
/* Takes n bytes (at most the room) written at the room's address, and answers a whole request if
 * one is there; 0, or -1 when out of memory (drop the connection). */
int mi_hconn_received(mi_hconn *c, size_t n, mi_hconn_metrics m, void *arg, int64_t now);
/* The output waiting to be sent as up to 2 segments in iov; their count (0: nothing to send). */
int mi_hconn_output(const mi_hconn *c, struct iovec iov[2]);
/* Records n bytes of output sent; when the response is complete, answers the next request already
 * received. 1 when the connection is to be closed now, 0 to go on, -1 when out of memory. */
int mi_hconn_sent(mi_hconn *c, size_t n, mi_hconn_metrics m, void *arg, int64_t now);
/* 1 if the connection has outlived its deadline at time now: a request head not whole MI_HTTP_HEAD_MS
 * after the wait for it began (bytes that trickle in do not extend it), or a response that made no
 * progress for MI_HTTP_SEND_MS. */
int mi_hconn_expired(const mi_hconn *c, int64_t now);
/* 1 if the connection is waiting for a request (no response unsent): one the server may close to
 * make room for a new connection. */
int mi_hconn_waiting(const mi_hconn *c);

#endif
