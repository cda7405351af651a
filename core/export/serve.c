/* serve.c — a small HTTP/1.1 server for the exporter (mi_serve, mi_http_parse, mi_export_negotiate): one thread,
 * poll(), non-blocking sockets, keep-alive and pipelining; each client is a connection state
 * machine (conn.c) with its own input, one response at a time and deadlines, so one slow or
 * hostile client never holds up another. GET/HEAD /metrics answers with the exposition in the
 * negotiated format; the system is re-read at most every min_interval_ms and both formats are
 * kept for that scrape, shared by the connections sending them. Why not
 * libmicrohttpd: core/DECISIONS.md ("The exporter"). */
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
#include <dirent.h>
#include <sys/resource.h>
#include "conn.h"

#define HEAD_MAX MI_HTTP_HEAD_MAX   /* a request head longer than this is refused (431) */

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

/* Reads the header fields in [p, e) into r (Accept, Connection, Content-Length,
 * Transfer-Encoding); *keep is set by "Connection: keep-alive". 0, or -1 for a bad field. */
static int parse_fields(const char *p, const char *e, mi_http_req *r, int *keep) {
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
        if (k + 10 <= ve && strncasecmp(k, "keep-alive", 10) == 0) *keep = 1;
      }
    } else if (nl == 14 && strncasecmp(ls, "content-length", 14) == 0) {
      if (v == ve) return -1;
      for (const char *k = v; k < ve; k++) {
        if (*k < '0' || *k > '9') return -1;
        if (*k != '0') r->has_body = 1;
      }
    } else if (nl == 17 && strncasecmp(ls, "transfer-encoding", 17) == 0) r->has_body = 1;
  }
  return 0;
}

int mi_http_parse(const char *buf, size_t n, mi_http_req *r) {
  if (!buf || !r) return -1;
  memset(r, 0, sizeof *r);
  /* empty lines before a request line are ignored (RFC 9112 2.2); the head ends at the first empty
   * line after it (CRLF CRLF, or bare LF LF as RFC 9112 tolerates) */
  size_t start = 0, end = 0, body = 0;
  while (start < n && (buf[start] == '\r' || buf[start] == '\n')) start++;
  for (size_t i = start; i < n; i++) {
    if (buf[i] != '\n') continue;
    if (i + 1 < n && buf[i + 1] == '\n') { end = i + 1; body = i + 2; break; }
    if (i + 2 < n && buf[i + 1] == '\r' && buf[i + 2] == '\n') { end = i + 1; body = i + 3; break; }
  }
  if (!body) return n > HEAD_MAX ? -1 : 0;
  if (body > HEAD_MAX) return -1;
  const char *p = buf + start, *e = buf + end;
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
  if (p == t || p >= e || *p != ' ') return -1;
  if (p - t > 7 && (strncasecmp(t, "http://", 7) == 0 || (p - t > 8 && strncasecmp(t, "https://", 8) == 0))) {
    t += t[4] == ':' ? 7 : 8;   /* absolute form: the path after the authority, "/" if none */
    while (t < p && *t != '/' && *t != '?') t++;
    if (t == p || *t == '?') {
      r->path[0] = '/';
      t = p;
    }
  } else if (*t != '/' && *t != '*') return -1;
  const char *q = memchr(t, '?', (size_t)(p - t));
  if (t < p) copy_cut(r->path, sizeof r->path, t, q ? q : p);
  p++;
  if (e - p < 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1')) return -1;
  int v10 = p[7] == '0', keep = 0;
  p += 8;
  if (p < e && *p == '\r') p++;
  if (p >= e || *p != '\n') return -1;
  p++;
  /* header fields */
  if (parse_fields(p, e, r, &keep) < 0) return -1;
  if (v10 && !keep) r->close = 1;
  r->http10 = v10;
  return (int)body;
}

/* ---- the server ---- */

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The server's state: the exporter and the expositions of the last scrape, shared with the
 * connections still sending them. */
typedef struct server {
  mi_export *x;
  int64_t last;            /* ms of the last scrape, or -1 */
  int min_ms;
  int rc;                  /* the last scrape's status */
  mi_hbody *cache[2];      /* per format, made on first demand after a scrape */
} server;

/* The exposition in format f with a reference for the caller (mi_hconn_metrics), re-reading the
 * system when the last scrape is min_ms old; NULL with *rc if it cannot. */
static mi_hbody *exposition(void *arg, int f, int *rc) {
  server *sv = arg;
  int64_t t = now_ms();
  if (sv->last < 0 || t - sv->last >= sv->min_ms) {
    sv->rc = mi_export_scrape(sv->x);
    sv->last = t;
    mi_hbody_unref(sv->cache[0]);
    mi_hbody_unref(sv->cache[1]);
    sv->cache[0] = sv->cache[1] = NULL;
  }
  *rc = sv->rc;
  if (sv->rc < 0) return NULL;
  if (!sv->cache[f]) {
    size_t n;
    const char *s = mi_export_format(sv->x, f, &n);
    if (!s || !(sv->cache[f] = mi_hbody_new(s, n))) { *rc = 0; return NULL; }
  }
  sv->cache[f]->refs++;
  return sv->cache[f];
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
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) break;
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

/* One client: its socket and its connection state (allocated while the socket is open). */
typedef struct client {
  int fd;
  mi_hconn *h;
} client;

/* Closes a client's socket and frees its state. */
static void drop(client *c) {
  close(c->fd);
  mi_hconn_close(c->h);
  free(c->h);
  c->fd = -1;
  c->h = NULL;
}

/* The connections the server keeps at a time: max (0 = 512), fewer when the open-file limit would
 * not leave room for them, the listening socket, the reserve descriptor and a scrape's own files. */
static int client_limit(int max) {
  if (max <= 0) max = 512;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY) return max;
  long open_now = 0;
  DIR *d = opendir("/proc/self/fd");
  if (d) {
    while (readdir(d)) open_now++;
    closedir(d);
    open_now -= 3;   /* ".", ".." and the directory's own descriptor */
  } else open_now = 16;
  long room = (long)rl.rlim_cur - open_now - 1 - 8;
  return room < 1 ? 1 : room < max ? (int)room : max;
}

/* Reads, answers and writes for one client as far as it can without blocking (ev: poll's events
 * for it, 0 to only try to write); 1 if it is to be dropped. */
static int pump(server *sv, client *c, short ev, int64_t t) {
  char *p;
  size_t room = mi_hconn_room(c->h, &p);
  int out = (ev & POLLOUT) != 0;
  if ((ev & POLLIN) && room) {
    ssize_t k = recv(c->fd, p, room, 0);
    if (k == 0) return 1;
    if (k < 0) { if (errno != EAGAIN && errno != EINTR) return 1; }
    else if (mi_hconn_received(c->h, (size_t)k, exposition, sv, t) < 0) return 1;
    else out = 1;
  } else if (ev & (POLLERR | POLLHUP | POLLNVAL) && !(ev & POLLOUT)) return 1;
  /* send at once (poll says when it would block); a few pipelined answers, then the others' turn */
  for (int i = 0; out && i < 32; i++) {
    struct iovec iov[2];
    int nv = mi_hconn_output(c->h, iov);
    if (!nv) break;
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)nv};
    ssize_t k = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno != EAGAIN && errno != EINTR) return 1;
      break;
    }
    if (mi_hconn_sent(c->h, (size_t)k, exposition, sv, t)) return 1;
  }
  return mi_hconn_expired(c->h, t);
}

/* The slot of the client waiting longest for a request head (none sending), or -1. */
static int longest_waiting(const client *cl, int maxc) {
  int slot = -1;
  for (int i = 0; i < maxc; i++)
    if (cl[i].fd >= 0 && mi_hconn_waiting(cl[i].h) && (slot < 0 || cl[i].h->wait_from < cl[slot].h->wait_from)) slot = i;
  return slot;
}

/* Accepts the waiting connections into free slots. When all are taken, the one waiting longest for
 * a request head is closed to make room (or, if every one is sending, the newcomer). On EMFILE the
 * same one is closed to free a descriptor; with none, the reserve descriptor is freed to accept and
 * close one newcomer; without it accepting pauses. */
static void accept_all(int lfd, client *cl, int maxc, int *nc, int *reserve, int64_t t, int64_t *pause_until) {
  for (int tries = 0; tries < 64; tries++) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) {
        int old = longest_waiting(cl, maxc);
        if (old >= 0) { drop(&cl[old]); (*nc)--; continue; }
        if (*reserve >= 0) {
          close(*reserve);
          fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
          if (fd >= 0) close(fd);
          *reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
          if (fd >= 0) continue;
        }
        *pause_until = t + 100;
      } else if (errno == ENOBUFS || errno == ENOMEM) *pause_until = t + 100;
      return;   /* EAGAIN: no one is waiting; ECONNABORTED and the like: next time */
    }
    int slot = -1;
    if (*nc < maxc) {
      for (int i = 0; i < maxc; i++) if (cl[i].fd < 0) { slot = i; break; }
    } else if ((slot = longest_waiting(cl, maxc)) >= 0) {
      drop(&cl[slot]);
      (*nc)--;
    }
    mi_hconn *h = slot >= 0 ? malloc(sizeof *h) : NULL;
    if (!h) { close(fd); continue; }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    mi_hconn_open(h, t);
    cl[slot].fd = fd;
    cl[slot].h = h;
    (*nc)++;
  }
}

int mi_serve(mi_export *x, const mi_serve_options *o, char *err, size_t errlen) {
  char ebuf[8];
  if (!err || !errlen) { err = ebuf; errlen = sizeof ebuf; }
  err[0] = 0;
  if (!x || !o || !o->listen) { snprintf(err, errlen, "no exporter or address"); return -1; }
  char addr[80] = "";
  int lfd = listen_on(o->listen, addr, sizeof addr, err, errlen);
  if (lfd < 0) return -1;
  int reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);   /* given up on EMFILE to refuse a newcomer */
  int maxc = client_limit(o->max_clients);
  client *cl = calloc((size_t)maxc, sizeof *cl);
  struct pollfd *pf = calloc((size_t)maxc + 1, sizeof *pf);
  int *slot_of = calloc((size_t)maxc + 1, sizeof *slot_of);
  server sv = {x, -1, o->min_interval_ms > 0 ? o->min_interval_ms : 500, 0, {NULL, NULL}};
  if (!cl || !pf || !slot_of) {
    free(cl); free(pf); free(slot_of); close(lfd);
    if (reserve >= 0) close(reserve);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (int i = 0; i < maxc; i++) cl[i].fd = -1;
  if (o->ready) o->ready(addr, o->ready_arg);
  int nc = 0;
  int64_t pause_until = 0;
  while (!(o->stop && *o->stop)) {
    /* the poll set: the listening socket (unless accepting pauses) and the open clients only */
    int n = 0;
    if (now_ms() >= pause_until) {
      pf[n] = (struct pollfd){.fd = lfd, .events = POLLIN};
      slot_of[n++] = -1;
    }
    for (int i = 0; i < maxc; i++) {
      if (cl[i].fd < 0) continue;
      char *p;
      pf[n] = (struct pollfd){.fd = cl[i].fd, .events = mi_hconn_room(cl[i].h, &p) ? POLLIN : POLLOUT};
      slot_of[n++] = i;
    }
    int r = poll(pf, (nfds_t)n, n && slot_of[0] < 0 ? 200 : 100);
    if (r < 0 && errno != EINTR) { snprintf(err, errlen, "poll: %s", strerror(errno)); break; }
    int64_t t = now_ms();
    for (int k = 0; k < n; k++) {
      if (slot_of[k] >= 0) {
        client *c = &cl[slot_of[k]];
        if (c->fd >= 0 && pump(&sv, c, r > 0 ? pf[k].revents : 0, t)) { drop(c); nc--; }
      }
    }
    if (r > 0 && n && slot_of[0] < 0 && (pf[0].revents & POLLIN)) accept_all(lfd, cl, maxc, &nc, &reserve, t, &pause_until);
  }
  for (int i = 0; i < maxc; i++) if (cl[i].fd >= 0) drop(&cl[i]);
  close(lfd);
  if (reserve >= 0) close(reserve);
  free(cl); free(pf); free(slot_of);
  mi_hbody_unref(sv.cache[0]);
  mi_hbody_unref(sv.cache[1]);
  return err[0] ? -1 : 0;
}

/* ---- content negotiation (moved here with the rest of HTTP from openmetrics.c) ---- */

int mi_export_negotiate(const char *accept) {
  if (!accept) return MI_EXPORT_TEXT;
  const char *p = accept;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    const char *e = p;
    while (*e && *e != ',') e++;
    /* one media range [p, e): its type, then parameters */
    const char *semi = memchr(p, ';', (size_t)(e - p));
    const char *te = semi ? semi : e;
    while (te > p && (te[-1] == ' ' || te[-1] == '\t')) te--;
    static const char om[] = "application/openmetrics-text";
    if ((size_t)(te - p) == sizeof om - 1 && strncasecmp(p, om, sizeof om - 1) == 0) {
      double qv = 1;
      for (const char *s = semi; s && s < e; s = memchr(s + 1, ';', (size_t)(e - s - 1))) {
        const char *v = s + 1;
        while (v < e && (*v == ' ' || *v == '\t')) v++;
        if (e - v >= 2 && (v[0] == 'q' || v[0] == 'Q') && v[1] == '=') {
          char nb[16];
          size_t n = 0;
          for (v += 2; v < e && n < sizeof nb - 1 && ((*v >= '0' && *v <= '9') || *v == '.'); v++) nb[n++] = *v;
          nb[n] = 0;
          qv = n ? strtod(nb, NULL) : 0;
        }
      }
      if (qv > 0) return MI_EXPORT_OPENMETRICS;
    }
    p = e;
  }
  return MI_EXPORT_TEXT;
}
