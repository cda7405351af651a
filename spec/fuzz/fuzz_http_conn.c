/* fuzz_http_conn.c — #27: the exporter's connection handling (core/export/conn.c) without sockets:
 * 1-4 simulated connections get chunks of request bytes, read their answers in pieces and see the
 * clock move, in an order the input chooses. A model of each connection (the bytes it was given,
 * parsed with mi_http_parse as a whole) says which answer each request gets, whether the connection
 * closes after it, and when its deadline falls. Checks: nothing is read while an answer is unsent;
 * one answer queued at most; every whole request is answered (no stall) and nothing is answered
 * early; each answer has the model's status, Content-Length, body (none for HEAD), Content-Type and
 * Connection field; a connection closes exactly after an answer that closes it; a head's deadline
 * runs from the connection's start or the end of the last answer whatever bytes trickle in, an
 * answer's from its last progress; shared bodies are released (ASan's leak check).
 * Byte language: byte 0 = connections (bits 0-1, +1) and what /metrics gives (bits 2-3: a small
 * body, a status, out of memory, a 20 KB body); then operations, each a byte o (connection o & 3,
 * what (o >> 2) % 6) and an argument byte a:
 *   0 queue a+1 bytes of the input as the client's to send, and deliver what the room takes
 *   1 deliver up to a+1 of the queued bytes     2 the client reads up to (a+1)*37 bytes
 *   3 the client reads all that is pending     4 the clock moves a*100 ms; expired connections close
 *   5 the client hangs up; a new connection opens in its place */
#include "fuzz_common.h"
#include "mi_export.h"
#include "export/conn.h"

#define NC 4
#define OUTBOX 16384
#define RBUF 65536
#define BIG 20000

/* The answer the model expects to the request at the start of what m was given. */
typedef struct expect {
  int whole;        /* the server must have answered by now */
  int status;
  size_t used;      /* bytes of the request (0 for an answer that closes on an error) */
  int close, head, v10, om;
  int metrics;      /* the request was for /metrics */
  mi_http_req rq;
} expect;

typedef struct model {
  int open;
  mi_hconn *h;
  char *fed;               /* every byte delivered, from the first request not yet answered */
  size_t fedlen;
  char *outbox;            /* bytes the client has yet to deliver */
  size_t outlen;
  char *rbuf;              /* bytes the client read and has not matched with an answer */
  size_t rlen;
  int64_t wait_from, progress;   /* the model's deadlines */
  expect memo;             /* model_next's answer while fed is unchanged */
  int memo_ok;
} model;

static int mode;             /* what /metrics gives */
static mi_hbody *cache[2];   /* the "last scrape" in both formats, shared like serve.c's */
static char big[BIG + 1];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  for (int i = 0; i < BIG; i++) big[i] = (char)('a' + i % 26);
  return 0;
}

/* What /metrics says in format f when it answers (the same after every scrape). */
static const char *body_of(int f, size_t *len) {
  if (mode == 3) { *len = BIG - (size_t)f; return big + f; }
  *len = f ? 11 : 7;
  return f ? "# om\n# EOF\n" : "text 1\n";
}

/* The /metrics body of format f (a reference for the caller), or NULL with *rc, as the input chose. */
static mi_hbody *metrics(void *arg, int f, int *rc) {
  (void)arg;
  if (mode == 1) { *rc = MI_E_BAD_ITEM; return NULL; }
  if (mode == 2) { *rc = 0; return NULL; }
  if (!cache[f]) {
    size_t n;
    const char *s = body_of(f, &n);
    FZ_CHECK((cache[f] = mi_hbody_new(s, n)), "out of memory");
  }
  cache[f]->refs++;
  return cache[f];
}

static expect model_next(model *m) {
  if (m->memo_ok) return m->memo;
  m->memo_ok = 1;
  expect e;
  memset(&e, 0, sizeof e);
  size_t n = m->fedlen < MI_HTTP_HEAD_MAX ? m->fedlen : MI_HTTP_HEAD_MAX;   /* all the server can hold */
  int r = mi_http_parse(m->fed, n, &e.rq);
  if (r == 0) {
    if (n < MI_HTTP_HEAD_MAX) return m->memo = e;
    e.whole = 1; e.status = 431; e.close = 1;
    return m->memo = e;
  }
  e.whole = 1;
  if (r < 0 || e.rq.has_body) { e.status = 400; e.close = 1; return m->memo = e; }
  e.used = (size_t)r;
  e.close = e.rq.close;
  e.v10 = e.rq.http10;
  e.head = e.rq.method == 2;
  if (e.rq.method == 0) { e.status = 405; e.head = 0; return m->memo = e; }
  if (strcmp(e.rq.path, "/metrics") == 0) {
    e.metrics = 1;
    e.om = mi_export_negotiate(e.rq.accept[0] ? e.rq.accept : NULL) == MI_EXPORT_OPENMETRICS;
    e.status = mode == 1 || mode == 2 ? 503 : 200;
  } else e.status = strcmp(e.rq.path, "/") == 0 ? 200 : 404;
  return m->memo = e;
}

/* The value of header field name in head[0..n), or NULL. */
static const char *field(const char *head, size_t n, const char *name, char *val, size_t vn) {
  size_t nl = strlen(name);
  for (const char *p = head; p < head + n; ) {
    const char *le = memchr(p, '\n', (size_t)(head + n - p));
    if (!le) break;
    if ((size_t)(le - p) > nl + 2 && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
      size_t l = (size_t)(le - p) - nl - 2;
      if (l && p[nl + 2 + l - 1] == '\r') l--;
      if (l >= vn) l = vn - 1;
      memcpy(val, p + nl + 2, l);
      val[l] = 0;
      return val;
    }
    p = le + 1;
  }
  return NULL;
}

static int64_t now;

static void conn_open(model *m) {
  mi_hconn_open(m->h, now);
  m->open = 1;
  m->fedlen = m->outlen = m->rlen = 0;
  m->memo_ok = 0;
  m->wait_from = m->progress = now;
}

static void conn_close(model *m) {
  if (!m->open) return;
  mi_hconn_close(m->h);
  m->open = 0;
}

/* Bytes of output pending on m's connection. */
static size_t pending(model *m) {
  struct iovec iov[2];
  int k = mi_hconn_output(m->h, iov);
  size_t t = 0;
  for (int i = 0; i < k; i++) t += iov[i].iov_len;
  return t;
}

/* Checks the state of an open connection against its model: reading only while nothing is pending,
 * one answer at most pending, an answer pending exactly when a request is whole. */
static void check_state(model *m, int i) {
  if (!m->open) return;
  char *p;
  size_t room = mi_hconn_room(m->h, &p), out = pending(m);
  FZ_CHECK(!(room && out), "conn %d reads (room %zu) while %zu bytes of an answer are unsent", i, room, out);
  FZ_CHECK(out <= sizeof m->h->head + BIG, "conn %d: %zu bytes queued, more than one answer", i, out);
  expect e = model_next(m);
  if (!out) FZ_CHECK(!e.whole, "conn %d: a whole request (%zu bytes given) is not answered (status %d expected)", i, m->fedlen, e.status);
  else FZ_CHECK(e.whole, "conn %d: an answer before the request is whole (%zu bytes given)", i, m->fedlen);
  /* the connection holds what it was given less the request being answered */
  size_t used = out ? e.used : 0;
  FZ_CHECK(p == m->h->in + m->h->inlen && m->h->inlen == m->fedlen - used && memcmp(m->h->in, m->fed + used, m->h->inlen) == 0,
           "conn %d: holds %zu bytes of input, the model %zu", i, m->h->inlen, m->fedlen - used);
}

/* Matches the answers the client has read in full against the model; returns 1 if the last one closes. */
static int match_answers(model *m, int i) {
  int closes = 0;
  for (;;) {
    char *end = m->rlen >= 4 ? memmem(m->rbuf, m->rlen, "\r\n\r\n", 4) : NULL;
    if (!end) return closes;
    size_t hl = (size_t)(end - m->rbuf) + 4;
    expect e = model_next(m);
    FZ_CHECK(e.whole, "conn %d: an answer to a request not yet whole (%zu bytes given)", i, m->fedlen);
    int st = 0;
    FZ_CHECK(hl > 12 && memcmp(m->rbuf, "HTTP/1.1 ", 9) == 0 && sscanf(m->rbuf + 9, "%3d", &st) == 1, "conn %d: status line", i);
    FZ_CHECK(st == e.status, "conn %d: status %d, the model says %d", i, st, e.status);
    char v[64];
    FZ_CHECK(field(m->rbuf, hl, "Content-Length", v, sizeof v), "conn %d: no Content-Length", i);
    size_t cl = strtoul(v, NULL, 10), bl = e.head ? 0 : cl;
    if (m->rlen < hl + bl) return closes;   /* the body is still coming */
    const char *conn = field(m->rbuf, hl, "Connection", v, sizeof v);
    FZ_CHECK(e.close ? conn && strcmp(conn, "close") == 0 : e.v10 ? conn && strcmp(conn, "keep-alive") == 0 : !conn,
             "conn %d: Connection %s (close %d, HTTP/1.0 %d)", i, conn ? conn : "absent", e.close, e.v10);
    if (e.status == 200 && e.metrics) {
      const char *ct = field(m->rbuf, hl, "Content-Type", v, sizeof v);
      FZ_CHECK(ct && strncmp(ct, e.om ? "application/openmetrics-text" : "text/plain", e.om ? 28 : 10) == 0, "conn %d: type %s", i, ct);
      size_t want;
      const char *body = body_of(e.om, &want);
      FZ_CHECK(cl == want && (e.head || memcmp(m->rbuf + hl, body, cl) == 0), "conn %d: body differs", i);
    }
    memmove(m->rbuf, m->rbuf + hl + bl, m->rlen - hl - bl);
    m->rlen -= hl + bl;
    memmove(m->fed, m->fed + e.used, m->fedlen - e.used);
    m->fedlen -= e.used;
    m->memo_ok = 0;
    m->wait_from = now;
    closes = e.close;
    FZ_CHECK(!closes || m->rlen == 0, "conn %d: bytes after an answer that closes", i);
  }
}

/* The client of m reads up to want bytes (as a socket would give them). */
static void client_read(model *m, int i, size_t want) {
  while (want && m->open) {
    struct iovec iov[2];
    int k = mi_hconn_output(m->h, iov);
    if (!k) return;
    size_t got = 0;
    for (int j = 0; j < k && got < want; j++) {
      size_t l = iov[j].iov_len < want - got ? iov[j].iov_len : want - got;
      FZ_CHECK(m->rlen + l <= RBUF, "conn %d: answers pile up", i);
      memcpy(m->rbuf + m->rlen, iov[j].iov_base, l);
      m->rlen += l;
      got += l;
    }
    want -= got;
    int r = mi_hconn_sent(m->h, got, metrics, NULL, now);
    FZ_CHECK(r == 0 || r == 1, "sent: %d", r);
    m->progress = now;
    int closes = match_answers(m, i);
    FZ_CHECK(r == closes && (!r || m->rlen == 0), "conn %d: closed %d, the model says %d", i, r, closes);
    if (r) { conn_close(m); return; }
    if (pending(m)) m->progress = now;   /* a pipelined answer was queued */
  }
}

/* Delivers up to n queued bytes of m's client to its connection, as far as the room goes. */
static void deliver(model *m, int i, size_t n) {
  while (n && m->outlen && m->open) {
    char *p;
    size_t room = mi_hconn_room(m->h, &p);
    if (!room) return;
    size_t l = n < m->outlen ? n : m->outlen;
    if (l > room) l = room;
    memcpy(p, m->outbox, l);
    memcpy(m->fed + m->fedlen, m->outbox, l);
    m->fedlen += l;
    m->memo_ok = 0;
    memmove(m->outbox, m->outbox + l, m->outlen - l);
    m->outlen -= l;
    n -= l;
    FZ_CHECK(mi_hconn_received(m->h, l, metrics, NULL, now) == 0, "conn %d: received failed", i);
    if (pending(m)) m->progress = now;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static model ms[NC];
  static char bufs[NC][3][RBUF];
  static mi_hconn hs[NC];   /* static, not malloc'd: fresh heap pages per input would cost more than the rest */
  if (size < 1) return 0;
  int nc = 1 + (data[0] & 3);
  mode = (data[0] >> 2) & 3;
  now = 1000000;
  for (int i = 0; i < nc; i++) {
    ms[i].fed = bufs[i][0]; ms[i].outbox = bufs[i][1]; ms[i].rbuf = bufs[i][2]; ms[i].h = &hs[i];
    conn_open(&ms[i]);
  }
  size_t pos = 1;
  while (pos + 1 < size) {
    int o = data[pos], a = data[pos + 1];
    pos += 2;
    model *m = &ms[(o & 3) % nc];
    int i = (int)(m - ms);
    switch ((o >> 2) % 6) {
    case 0: {
      size_t l = (size_t)a + 1;
      if (l > size - pos) l = size - pos;
      if (l > OUTBOX - m->outlen) l = OUTBOX - m->outlen;
      if (m->open) {
        memcpy(m->outbox + m->outlen, data + pos, l);
        m->outlen += l;
        deliver(m, i, l);
      }
      pos += l;
      break;
    }
    case 1: if (m->open) deliver(m, i, (size_t)a + 1); break;
    case 2: if (m->open) client_read(m, i, ((size_t)a + 1) * 37); break;
    case 3: if (m->open) client_read(m, i, (size_t)-1); break;
    case 4:
      now += a * 100;
      if (a >= 50) {   /* a new scrape: the old bodies stay with the connections still sending them */
        mi_hbody_unref(cache[0]); mi_hbody_unref(cache[1]);
        cache[0] = cache[1] = NULL;
      }
      for (int j = 0; j < nc; j++) {
        if (!ms[j].open) continue;
        int sending = pending(&ms[j]) > 0;
        int want = sending ? now - ms[j].progress >= MI_HTTP_SEND_MS : now - ms[j].wait_from >= MI_HTTP_HEAD_MS;
        int got = mi_hconn_expired(ms[j].h, now);
        FZ_CHECK(got == want, "conn %d: expired %d at +%lld ms, the model says %d (sending %d)", j, got,
                 (long long)(now - (sending ? ms[j].progress : ms[j].wait_from)), want, sending);
        if (got) conn_close(&ms[j]);
      }
      break;
    default:
      conn_close(m);
      conn_open(m);
      break;
    }
    if ((o >> 2) % 6 == 4) for (int j = 0; j < nc; j++) check_state(&ms[j], j);
    else check_state(m, i);   /* the others did not move */
  }
  for (int i = 0; i < nc; i++) conn_close(&ms[i]);
  for (int f = 0; f < 2; f++) {
    FZ_CHECK(!cache[f] || cache[f]->refs == 1, "format %d: %ld references left after every connection closed", f, cache[f]->refs);
    mi_hbody_unref(cache[f]);
    cache[f] = NULL;
  }
  return 0;
}
