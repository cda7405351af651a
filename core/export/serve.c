/* serve.c — a small HTTP/1.1 server for the exporter (mi_serve, mi_http_parse): one thread,
 * poll(), non-blocking sockets, keep-alive and pipelining, each client with its own input and
 * output buffers and an idle deadline, so one slow or hostile client never holds up another.
 * GET/HEAD /metrics answers with the exposition in the negotiated format; the system is
 * re-read at most every min_interval_ms and both formats are cached for that scrape. Why not
 * libmicrohttpd: core/README.md ("The exporter"). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "mi_export.h"

#define HEAD_MAX 8192          /* a request head longer than this is refused (431) */
#define IDLE_MS 10000          /* a connection idle (or stuck mid-request) this long is closed */

/* ---- the request parser ---- */

static int tchar(int c) {   /* an RFC 9110 token character */
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Copies [p, e) into dst (size n), NUL-terminated, cut to fit. */
static void copy_cut(char *dst, size_t n, const char *p, const char *e) {
  size_t l = (size_t)(e - p);
  if (l >= n) l = n - 1;
  memcpy(dst, p, l);
  dst[l] = 0;
}

int mi_http_parse(const char *buf, size_t n, mi_http_req *r) {
  if (!buf || !r) return -1;
  memset(r, 0, sizeof *r);
  /* the head ends at the first empty line (CRLF CRLF, or bare LF LF as RFC 9112 tolerates) */
  size_t end = 0, body = 0;
  for (size_t i = 0; i < n; i++) {
    if (buf[i] != '\n') continue;
    if (i + 1 < n && buf[i + 1] == '\n') { end = i + 1; body = i + 2; break; }
    if (i + 2 < n && buf[i + 1] == '\r' && buf[i + 2] == '\n') { end = i + 1; body = i + 3; break; }
  }
  if (!body) return n > HEAD_MAX ? -1 : 0;
  if (body > HEAD_MAX) return -1;
  const char *p = buf, *e = buf + end;
  while (p < e && (*p == '\r' || *p == '\n')) p++;   /* empty lines before a request are ignored */
  /* request line: METHOD SP TARGET SP HTTP/1.x */
  const char *m = p;
  while (p < e && tchar((unsigned char)*p)) p++;
  if (p == m || p >= e || *p != ' ') return -1;
  r->method = (p - m == 3 && memcmp(m, "GET", 3) == 0) ? 1 : (p - m == 4 && memcmp(m, "HEAD", 4) == 0) ? 2 : 0;
  const char *t = ++p;
  while (p < e && *p != ' ' && *p != '\r' && *p != '\n') {
    if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7F) return -1;
    p++;
  }
  if (p == t || p >= e || *p != ' ' || (*t != '/' && *t != '*')) return -1;
  const char *q = memchr(t, '?', (size_t)(p - t));
  copy_cut(r->path, sizeof r->path, t, q ? q : p);
  p++;
  if (e - p < 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1')) return -1;
  int v10 = p[7] == '0', keep = 0;
  p += 8;
  if (p < e && *p == '\r') p++;
  if (p >= e || *p != '\n') return -1;
  p++;
  /* header fields */
  size_t an = 0;
  while (p < e) {
    const char *ls = p, *le = memchr(p, '\n', (size_t)(e - p));
    if (!le) le = e;
    const char *lend = le > ls && le[-1] == '\r' ? le - 1 : le;
    p = le + 1;
    if (lend == ls) continue;
    const char *c = ls;
    while (c < lend && tchar((unsigned char)*c)) c++;
    if (c == ls || c >= lend || *c != ':') return -1;   /* no name, obs-fold or a bad character */
    const char *v = c + 1, *ve = lend;
    while (v < ve && (*v == ' ' || *v == '\t')) v++;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
    for (const char *k = v; k < ve; k++)
      if (((unsigned char)*k < 0x20 && *k != '\t') || *k == 0x7F) return -1;
    size_t nl = (size_t)(c - ls);
    if (nl == 6 && strncasecmp(ls, "accept", 6) == 0) {
      if (an && an < sizeof r->accept - 1) r->accept[an++] = ',';
      size_t l = (size_t)(ve - v);
      if (l > sizeof r->accept - 1 - an) l = sizeof r->accept - 1 - an;
      memcpy(r->accept + an, v, l);
      an += l;
      r->accept[an] = 0;
    } else if (nl == 10 && strncasecmp(ls, "connection", 10) == 0) {
      for (const char *k = v; k + 5 <= ve; k++) {
        if (strncasecmp(k, "close", 5) == 0) r->close = 1;
        if (k + 10 <= ve && strncasecmp(k, "keep-alive", 10) == 0) keep = 1;
      }
    } else if (nl == 14 && strncasecmp(ls, "content-length", 14) == 0) {
      if (v == ve) return -1;
      for (const char *k = v; k < ve; k++) {
        if (*k < '0' || *k > '9') return -1;
        if (*k != '0') r->has_body = 1;
      }
    } else if (nl == 17 && strncasecmp(ls, "transfer-encoding", 17) == 0) r->has_body = 1;
  }
  if (v10 && !keep) r->close = 1;
  return (int)body;
}

/* ---- the server ---- */

typedef struct client {
  int fd;
  char in[HEAD_MAX + 1];
  size_t inlen;
  char *out;
  size_t outlen, outoff, outcap;
  int closing;           /* close once the output is sent */
  int64_t deadline;      /* ms on the monotonic clock */
} client;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Appends to a client's output; -1 if out of memory. */
static int out_put(client *c, const char *s, size_t n) {
  if (c->outlen + n > c->outcap) {
    size_t nc = c->outcap ? c->outcap : 4096;
    while (nc < c->outlen + n) nc *= 2;
    char *o = realloc(c->out, nc);
    if (!o) return -1;
    c->out = o; c->outcap = nc;
  }
  memcpy(c->out + c->outlen, s, n);
  c->outlen += n;
  return 0;
}

/* Queues a response: status line, headers, then body (left out for HEAD). */
static int respond(client *c, const char *status, const char *type, const char *body, size_t blen, int head,
                   const char *extra) {
  char h[512];
  int n = snprintf(h, sizeof h, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n", status, type,
                   blen, extra ? extra : "", c->closing ? "Connection: close\r\n" : "");
  if (out_put(c, h, (size_t)n) < 0) return -1;
  return head ? 0 : out_put(c, body, blen);
}

/* The server's state: the exporter and the cached expositions of the last scrape. */
typedef struct server {
  mi_export *x;
  int64_t last;            /* ms of the last scrape, or -1 */
  int min_ms;
  int rc;                  /* the last scrape's status */
  char *cache[2];
  size_t clen[2], ccap[2];
  int valid[2];
} server;

/* The exposition in format f, re-reading the system when the last scrape is min_ms old. */
static const char *exposition(server *sv, int f, size_t *len) {
  int64_t t = now_ms();
  if (sv->last < 0 || t - sv->last >= sv->min_ms) {
    sv->rc = mi_export_scrape(sv->x);
    sv->last = t;
    sv->valid[0] = sv->valid[1] = 0;
  }
  if (sv->rc < 0) return NULL;
  if (!sv->valid[f]) {
    size_t n;
    const char *s = mi_export_format(sv->x, f, &n);
    if (!s) return NULL;
    if (n + 1 > sv->ccap[f]) {
      char *c = realloc(sv->cache[f], n + 1);
      if (!c) return NULL;
      sv->cache[f] = c; sv->ccap[f] = n + 1;
    }
    memcpy(sv->cache[f], s, n + 1);
    sv->clen[f] = n;
    sv->valid[f] = 1;
  }
  *len = sv->clen[f];
  return sv->cache[f];
}

static const char index_html[] =
  "<html><head><title>mish exporter</title></head><body><h1>mish exporter</h1>"
  "<p><a href=\"/metrics\">Metrics</a></p></body></html>\n";

/* Handles the complete requests in a client's input; -1 to drop the connection. */
static int handle(server *sv, client *c) {
  while (c->inlen && !c->closing) {
    mi_http_req rq;
    int n = mi_http_parse(c->in, c->inlen, &rq);
    if (n == 0) {
      if (c->inlen >= HEAD_MAX) { c->closing = 1; return respond(c, "431 Request Header Fields Too Large", "text/plain", "request head too large\n", 23, 0, NULL); }
      return 0;
    }
    if (n < 0 || rq.has_body) { c->closing = 1; return respond(c, "400 Bad Request", "text/plain", "bad request\n", 12, 0, NULL); }
    memmove(c->in, c->in + n, c->inlen - (size_t)n);
    c->inlen -= (size_t)n;
    if (rq.close) c->closing = 1;
    int head = rq.method == 2;
    if (!rq.method) {
      if (respond(c, "405 Method Not Allowed", "text/plain", "GET or HEAD only\n", 17, 0, "Allow: GET, HEAD\r\n") < 0) return -1;
      continue;
    }
    if (strcmp(rq.path, "/metrics") == 0) {
      int f = mi_export_negotiate(rq.accept[0] ? rq.accept : NULL);
      size_t len = 0;
      const char *body = exposition(sv, f, &len);
      if (!body) {
        char msg[160];
        int m = snprintf(msg, sizeof msg, "cannot read the system: %d %s\n", sv->rc, sv->rc < 0 ? mi_status_message(sv->rc) : "out of memory");
        if (respond(c, "503 Service Unavailable", "text/plain", msg, (size_t)m, head, NULL) < 0) return -1;
        continue;
      }
      if (respond(c, "200 OK", f == MI_EXPORT_OPENMETRICS ? MI_EXPORT_OPENMETRICS_TYPE : MI_EXPORT_TEXT_TYPE, body, len, head, NULL) < 0)
        return -1;
    } else if (strcmp(rq.path, "/") == 0) {
      if (respond(c, "200 OK", "text/html; charset=utf-8", index_html, sizeof index_html - 1, head, NULL) < 0) return -1;
    } else if (respond(c, "404 Not Found", "text/plain", "not found: try /metrics\n", 24, head, NULL) < 0) return -1;
  }
  return 0;
}

/* Splits "[HOST:]PORT" into host[256] (127.0.0.1 when not given) and port[16]; 0, or -1 with err. */
static int parse_listen(const char *spec, char host[256], char port[16], char *err, size_t errlen) {
  snprintf(host, 256, "127.0.0.1");
  if (!spec) { snprintf(err, errlen, "no address ([HOST:]PORT)"); return -1; }
  const char *colon = strrchr(spec, ':');
  if (spec[0] == '[') {
    const char *rb = strchr(spec, ']');
    if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= (size_t)256) { snprintf(err, errlen, "bad address '%s' ([HOST:]PORT)", spec); return -1; }
    memcpy(host, spec + 1, (size_t)(rb - spec - 1));
    host[rb - spec - 1] = 0;
    colon = rb + 1;
  } else if (colon) {
    if ((size_t)(colon - spec) >= (size_t)256) { snprintf(err, errlen, "bad address '%s'", spec); return -1; }
    if (colon > spec) { memcpy(host, spec, (size_t)(colon - spec)); host[colon - spec] = 0; }
  }
  const char *ps = colon ? colon + 1 : spec;
  size_t pl = strlen(ps);
  if (!pl || pl >= (size_t)16 || strspn(ps, "0123456789") != pl || atoi(ps) > 65535) {
    snprintf(err, errlen, "bad port in '%s' ([HOST:]PORT, PORT 0-65535)", spec);
    return -1;
  }
  memcpy(port, ps, pl + 1);
  return 0;
}

int mi_serve_check_listen(const char *spec, char *err, size_t errlen) {
  char host[256], port[16], own[8];
  if (!err || !errlen) { err = own; errlen = sizeof own; }   /* the reason is optional */
  return parse_listen(spec, host, port, err, errlen);
}

/* Opens the listening socket for "[HOST:]PORT"; the fd, or -1 with err. */
static int listen_on(const char *spec, char *addr, size_t alen, char *err, size_t errlen) {
  char host[256], port[16];
  if (parse_listen(spec, host, port, err, errlen) < 0) return -1;
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int gr = getaddrinfo(host, port, &hints, &res);
  if (gr) { snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(gr)); return -1; }
  int fd = -1, e = 0;
  for (struct addrinfo *a = res; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) { e = errno; continue; }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 64) == 0) break;
    e = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) { snprintf(err, errlen, "cannot listen on %s:%s: %s", host, port, strerror(e)); return -1; }
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char hb[INET6_ADDRSTRLEN] = "?";
  int bport = 0;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
    if (ss.ss_family == AF_INET6) {
      struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
      inet_ntop(AF_INET6, &s6->sin6_addr, hb, sizeof hb);
      bport = ntohs(s6->sin6_port);
      snprintf(addr, alen, "[%s]:%d", hb, bport);
    } else {
      struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
      inet_ntop(AF_INET, &s4->sin_addr, hb, sizeof hb);
      bport = ntohs(s4->sin_port);
      snprintf(addr, alen, "%s:%d", hb, bport);
    }
  }
  return fd;
}

static void drop(client *c) {
  close(c->fd);
  free(c->out);
  c->fd = -1;
  c->out = NULL;
  c->outcap = c->outlen = c->outoff = c->inlen = 0;
  c->closing = 0;
}

int mi_serve(mi_export *x, const mi_serve_options *o, char *err, size_t errlen) {
  char ebuf[8];
  if (!err || !errlen) { err = ebuf; errlen = sizeof ebuf; }
  err[0] = 0;
  if (!x || !o || !o->listen) { snprintf(err, errlen, "no exporter or address"); return -1; }
  char addr[80] = "";
  int lfd = listen_on(o->listen, addr, sizeof addr, err, errlen);
  if (lfd < 0) return -1;
  int maxc = o->max_clients > 0 ? o->max_clients : 64;
  client *cl = calloc((size_t)maxc, sizeof *cl);
  struct pollfd *pf = calloc((size_t)maxc + 1, sizeof *pf);
  server sv = {x, -1, o->min_interval_ms > 0 ? o->min_interval_ms : 500, 0, {NULL, NULL}, {0, 0}, {0, 0}, {0, 0}};
  if (!cl || !pf) { free(cl); free(pf); close(lfd); snprintf(err, errlen, "out of memory"); return -1; }
  for (int i = 0; i < maxc; i++) cl[i].fd = -1;
  if (o->ready) o->ready(addr, o->ready_arg);
  int nc = 0;
  while (!(o->stop && *o->stop)) {
    int n = 0;
    pf[n].fd = nc < maxc ? lfd : -1;
    pf[n].events = POLLIN;
    n++;
    for (int i = 0; i < maxc; i++) {
      pf[n].fd = cl[i].fd;
      pf[n].events = cl[i].outoff < cl[i].outlen ? POLLOUT : POLLIN;
      pf[n].revents = 0;
      n++;
    }
    int r = poll(pf, (nfds_t)n, 200);
    if (r < 0 && errno != EINTR) { snprintf(err, errlen, "poll: %s", strerror(errno)); break; }
    int64_t t = now_ms();
    if (r > 0 && (pf[0].revents & POLLIN)) {
      for (;;) {
        int slot = -1;
        for (int i = 0; i < maxc; i++) if (cl[i].fd < 0) { slot = i; break; }
        if (slot < 0) break;
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        cl[slot].fd = fd;
        cl[slot].deadline = t + IDLE_MS;
        nc++;
      }
    }
    for (int i = 0; i < maxc; i++) {
      client *c = &cl[i];
      if (c->fd < 0) continue;
      short ev = r > 0 ? pf[i + 1].revents : 0;
      int bad = 0;
      if (ev & POLLIN) {
        ssize_t k = recv(c->fd, c->in + c->inlen, HEAD_MAX - c->inlen, 0);
        if (k == 0) bad = 1;
        else if (k < 0) bad = errno != EAGAIN && errno != EINTR;
        else {
          c->inlen += (size_t)k;
          c->deadline = t + IDLE_MS;
          if (handle(&sv, c) < 0) bad = 1;
        }
      } else if (ev & (POLLERR | POLLHUP | POLLNVAL)) bad = !(ev & POLLOUT);
      if (!bad && c->outoff < c->outlen) {   /* try at once: poll says when it would block */
        ssize_t k = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);
        if (k < 0) bad = errno != EAGAIN && errno != EINTR;
        else {
          c->outoff += (size_t)k;
          c->deadline = t + IDLE_MS;
          if (c->outoff == c->outlen) {
            c->outoff = c->outlen = 0;
            if (c->closing) bad = 1;
            else if (c->inlen && handle(&sv, c) < 0) bad = 1;   /* a pipelined request */
          }
        }
      }
      if (!bad && t > c->deadline) bad = 1;
      if (bad) { drop(c); nc--; }
    }
  }
  for (int i = 0; i < maxc; i++) if (cl[i].fd >= 0) drop(&cl[i]);
  close(lfd);
  free(cl); free(pf);
  free(sv.cache[0]); free(sv.cache[1]);
  return err[0] ? -1 : 0;
}
