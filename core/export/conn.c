/* conn.c — one HTTP connection of the exporter's server (conn.h): input up to a whole request head,
 * then one response at a time (nothing more is read until it is sent), a deadline for the head that
 * trickling bytes do not extend, and one for a response that stops moving. No sockets and no clock
 * of its own, so the fuzz harness drives it as serve.c does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conn.h"

mi_hbody *mi_hbody_new(const char *s, size_t n) {
  mi_hbody *b = malloc(sizeof *b + n + 1);
  if (!b) return NULL;
  b->refs = 1;
  b->len = n;
  memcpy(b->data, s, n);
  b->data[n] = 0;
  return b;
}

void mi_hbody_unref(mi_hbody *b) {
  if (b && --b->refs == 0) free(b);
}

void mi_hconn_open(mi_hconn *c, int64_t now) {
  c->inlen = c->headlen = c->bodylen = c->off = 0;
  c->body = NULL;
  c->closing = 0;
  c->wait_from = c->progress = now;
}

void mi_hconn_close(mi_hconn *c) {
  mi_hbody_unref(c->body);
  c->body = NULL;
  c->headlen = c->bodylen = c->off = c->inlen = 0;
}

/* 1 while a response is queued and not wholly sent. */
static int sending(const mi_hconn *c) { return c->off < c->headlen + c->bodylen; }

size_t mi_hconn_room(mi_hconn *c, char **p) {
  *p = c->in + c->inlen;
  if (sending(c) || c->closing) return 0;
  return MI_HTTP_HEAD_MAX - c->inlen;
}

/* Queues a response: status line, header fields, then the body (text, or the shared body b,
 * whose reference the connection takes) unless head; -1 if out of memory. */
static int respond(mi_hconn *c, const char *status, const char *type, const char *text, mi_hbody *b, int head,
                   const char *extra, int v10, int64_t now) {
  size_t blen = b ? b->len : strlen(text);
  int n = snprintf(c->head, sizeof c->head, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n", status, type,
                   blen, extra ? extra : "", c->closing ? "Connection: close\r\n" : v10 ? "Connection: keep-alive\r\n" : "");
  c->headlen = (size_t)n;
  c->off = 0;
  c->progress = now;
  if (head) { mi_hbody_unref(b); return 0; }
  if (b) { c->body = b; c->bodylen = blen; return 0; }
  if (c->headlen + blen >= sizeof c->head) return -1;   /* the small bodies always fit */
  memcpy(c->head + c->headlen, text, blen);
  c->headlen += blen;
  return 0;
}

static const char index_html[] =
  "<html><head><title>mish exporter</title></head><body><h1>mish exporter</h1>"
  "<p><a href=\"/metrics\">Metrics</a></p></body></html>\n";

/* Answers the request at the start of the input if it is whole (one response at most); -1 if out of memory. */
static int answer(mi_hconn *c, mi_hconn_metrics m, void *arg, int64_t now) {
  if (sending(c) || c->closing || !c->inlen) return 0;
  mi_http_req rq;
  int n = mi_http_parse(c->in, c->inlen, &rq);
  if (n == 0) {
    if (c->inlen < MI_HTTP_HEAD_MAX) return 0;
    c->closing = 1;
    return respond(c, "431 Request Header Fields Too Large", "text/plain", "request head too large\n", NULL, 0, NULL, 0, now);
  }
  if (n < 0 || rq.has_body) {
    c->closing = 1;
    return respond(c, "400 Bad Request", "text/plain", "bad request\n", NULL, 0, NULL, 0, now);
  }
  memmove(c->in, c->in + n, c->inlen - (size_t)n);
  c->inlen -= (size_t)n;
  if (rq.close) c->closing = 1;
  int head = rq.method == 2;
  if (!rq.method) return respond(c, "405 Method Not Allowed", "text/plain", "GET or HEAD only\n", NULL, 0, "Allow: GET, HEAD\r\n", rq.http10, now);
  if (strcmp(rq.path, "/metrics") == 0) {
    int f = mi_export_negotiate(rq.accept[0] ? rq.accept : NULL), rc = 0;
    mi_hbody *b = m(arg, f, &rc);
    if (!b) {
      char msg[160];
      snprintf(msg, sizeof msg, "cannot read the system: %d %s\n", rc, rc < 0 ? mi_status_message(rc) : "out of memory");
      return respond(c, "503 Service Unavailable", "text/plain", msg, NULL, head, NULL, rq.http10, now);
    }
    return respond(c, "200 OK", f == MI_EXPORT_OPENMETRICS ? MI_EXPORT_OPENMETRICS_TYPE : MI_EXPORT_TEXT_TYPE, NULL, b, head, NULL, rq.http10, now);
  }
  if (strcmp(rq.path, "/") == 0) return respond(c, "200 OK", "text/html; charset=utf-8", index_html, NULL, head, NULL, rq.http10, now);
  return respond(c, "404 Not Found", "text/plain", "not found: try /metrics\n", NULL, head, NULL, rq.http10, now);
}

int mi_hconn_received(mi_hconn *c, size_t n, mi_hconn_metrics m, void *arg, int64_t now) {
  char *p;
  size_t room = mi_hconn_room(c, &p);
  c->inlen += n < room ? n : room;
  return answer(c, m, arg, now);
}

int mi_hconn_output(const mi_hconn *c, struct iovec iov[2]) {
  int k = 0;
  if (c->off < c->headlen) iov[k++] = (struct iovec){(void *)(c->head + c->off), c->headlen - c->off};
  if (c->body && c->off < c->headlen + c->bodylen) {
    size_t b = c->off > c->headlen ? c->off - c->headlen : 0;
    iov[k++] = (struct iovec){c->body->data + b, c->bodylen - b};
  }
  return k;
}

int mi_hconn_sent(mi_hconn *c, size_t n, mi_hconn_metrics m, void *arg, int64_t now) {
  size_t total = c->headlen + c->bodylen;
  if (!sending(c)) return 0;
  c->off += n < total - c->off ? n : total - c->off;
  c->progress = now;
  if (sending(c)) return 0;
  mi_hbody_unref(c->body);
  c->body = NULL;
  c->headlen = c->bodylen = c->off = 0;
  if (c->closing) return 1;
  c->wait_from = now;   /* the next request's head has its own deadline from here */
  return answer(c, m, arg, now);
}

int mi_hconn_expired(const mi_hconn *c, int64_t now) {
  if (sending(c)) return now - c->progress >= MI_HTTP_SEND_MS;
  return now - c->wait_from >= MI_HTTP_HEAD_MS;
}

int mi_hconn_waiting(const mi_hconn *c) { return !sending(c); }
