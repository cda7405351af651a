/* fuzz_http.c — #15: the exporter's HTTP request parser (mi_http_parse) and content negotiation
 * (mi_export_negotiate); the input is the bytes a client sends. Checks: the parser answers
 * -1, 0 (more bytes needed) or the head's length within the input, and never more than the 8 KB
 * head limit; a parsed head gives a path starting with '/' or '*' with no blank or control
 * byte, NUL-terminated fields, method 0-2; appending bytes never changes a complete head's
 * answer; a head that needs more bytes is not refused once complete only because of what
 * followed; an empty line before a head changes only its length (#27.11); negotiation of any
 * Accept text is 0 or 1, never "not acceptable". */
#include "fuzz_common.h"
#include "mi_export.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 16);
  if (!buf) return 0;
  memcpy(buf, data, size);
  mi_http_req r;
  int n = mi_http_parse(buf, size, &r);
  FZ_CHECK(n >= -1 && (size_t)(n > 0 ? n : 0) <= size && n <= 8192, "answer %d for %zu bytes", n, size);
  if (n > 0) {
    FZ_CHECK(r.method >= 0 && r.method <= 2, "method %d", r.method);
    FZ_CHECK(memchr(r.path, 0, sizeof r.path) && memchr(r.accept, 0, sizeof r.accept), "unterminated field");
    FZ_CHECK(r.path[0] == '/' || r.path[0] == '*', "path '%s'", r.path);
    for (const char *p = r.path; *p; p++) FZ_CHECK((unsigned char)*p > 0x20 && (unsigned char)*p < 0x7F, "byte %d in path", *p);
    int f = mi_export_negotiate(r.accept);
    FZ_CHECK(f == MI_EXPORT_TEXT || f == MI_EXPORT_OPENMETRICS, "format %d", f);
    /* more bytes after a complete head change nothing about it */
    memcpy(buf + size, "GET / HTTP/1.1\r\n", 16);
    mi_http_req r2;
    int n2 = mi_http_parse(buf, size + 16, &r2);
    FZ_CHECK(n2 == n && strcmp(r.path, r2.path) == 0 && strcmp(r.accept, r2.accept) == 0 && r.close == r2.close,
             "appending changed the answer %d -> %d", n, n2);
    /* #27.11: an empty line before the request line changes nothing but the length (within 8 KB) */
    char *pre = malloc(size + 2);
    if (pre) {
      memcpy(pre, "\r\n", 2);
      memcpy(pre + 2, data, size);
      n2 = mi_http_parse(pre, size + 2, &r2);
      FZ_CHECK(n + 2 > 8192 || (n2 == n + 2 && strcmp(r.path, r2.path) == 0 && strcmp(r.accept, r2.accept) == 0 &&
                                r.close == r2.close && r.method == r2.method && r.http10 == r2.http10),
               "a leading empty line changed the answer %d -> %d", n, n2);
      free(pre);
    }
  }
  /* the input as an Accept header */
  char acc[600];
  size_t k = size < sizeof acc - 1 ? size : sizeof acc - 1;
  memcpy(acc, data, k);
  acc[k] = 0;
  int f = mi_export_negotiate(acc);
  FZ_CHECK(f == MI_EXPORT_TEXT || f == MI_EXPORT_OPENMETRICS, "format %d", f);
  /* the input as --serve's listen address: a verdict and, on a refusal, a terminated reason */
  char err[64];
  memset(err, 'x', sizeof err);
  int c = mi_serve_check_listen(acc, err, sizeof err);
  FZ_CHECK(c == 0 || (c == -1 && memchr(err, 0, sizeof err) && err[0]), "listen check %d", c);
  if (c == 0) {
    const char *ps = strrchr(acc, ':');
    ps = ps ? ps + 1 : acc;
    FZ_CHECK(*ps && strspn(ps, "0123456789") == strlen(ps) && atoi(ps) <= 65535, "port '%s' accepted in '%s'", ps, acc);
  }
  free(buf);
  return 0;
}
