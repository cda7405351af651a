/* registry.c — installed MI user IDs (the AIFKUF.PUB.SYS analogue): a sorted array in
 * memory and, when a path is configured, a text file with one decimal ID per line that
 * is parsed strictly and replaced atomically (temporary file, fsync, rename) under a lock. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mi_internal.h"

#define MAX_LINE 80                    /* longer lines are errors, whatever they hold */
#define MAX_FILE ((size_t)64 << 20)    /* 64 MB: about six million IDs */

/* The text of a registry file and what it holds. */
typedef struct reg_text {
  char *buf; size_t len;               /* the file's bytes (NULL when it does not exist) */
  mode_t mode;                         /* its permissions, 0644 for a new file */
  int32_t *ids; int nids, cap;         /* the IDs of its good lines, sorted, no duplicates */
  int bad;                             /* bad lines */
} reg_text;

/* Orders user IDs for qsort. */
static int cmp_id(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Index of uid in the sorted ids[0..n), or -(insertion point) - 1. */
static int find(const int32_t *ids, int n, int32_t uid) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (ids[mid] < uid) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && ids[lo] == uid ? lo : -lo - 1;
}

/* Appends uid to t->ids; 0 or -1 (no memory). */
static int push(reg_text *t, int32_t uid) {
  if (t->nids == t->cap) {
    if (t->cap > INT_MAX / 2) return -1;
    int c = t->cap ? t->cap * 2 : 64;
    int32_t *u = realloc(t->ids, sizeof *u * (size_t)c);
    if (!u) return -1;
    t->ids = u; t->cap = c;
  }
  t->ids[t->nids++] = uid;
  return 0;
}

/* Why line p[0..n) is not a user ID, or NULL if it is one (*uid set) or blank (*uid = 0).
 * A line is blanks (space, tab, CR), then 1-10 decimal digits of a value 1-2147483647,
 * then blanks; nothing else. */
static const char *parse_line(const char *p, size_t n, int32_t *uid) {
  size_t i = 0, digits = 0;
  int64_t v = 0;
  *uid = 0;
  if (n > MAX_LINE) return "longer than 80 characters";
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
  if (i == n) return NULL;
  for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++)
    if (digits < 11) v = v * 10 + (p[i] - '0');
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
  if (digits == 0 || i < n) return "not a decimal user ID";
  if (digits > 10 || v < 1 || v > INT32_MAX) return "user ID out of range 1-2147483647";
  *uid = (int32_t)v;
  return NULL;
}

/* Parses t->buf strictly into t->ids; the first bad line goes to err (one message for the
 * file). Linear in the file, then one sort. 0, or -1 when out of memory. */
static int parse(reg_text *t, char *err, size_t errsize) {
  size_t pos = 0;
  int line = 0;
  if (err && errsize) err[0] = 0;
  while (pos < t->len) {
    const char *p = t->buf + pos, *nl = memchr(p, '\n', t->len - pos);
    size_t n = nl ? (size_t)(nl - p) : t->len - pos;
    int32_t uid;
    line++;
    const char *why = parse_line(p, n, &uid);
    if (why) {
      if (!t->bad++ && err) snprintf(err, errsize, "line %d: %s", line, why);
    } else if (uid && push(t, uid)) return -1;
    pos += n + 1;
  }
  if (t->bad > 1 && err) {
    size_t used = strlen(err);
    snprintf(err + used, errsize - used, " (and %d more bad lines)", t->bad - 1);
  }
  if (t->nids > 1) qsort(t->ids, (size_t)t->nids, sizeof *t->ids, cmp_id);
  int k = 0;
  for (int i = 0; i < t->nids; i++)
    if (k == 0 || t->ids[i] != t->ids[k - 1]) t->ids[k++] = t->ids[i];
  t->nids = k;
  return 0;
}

/* Reads the file at path into t (a missing file is empty); 0, or -1 with errno set. */
static int read_text(const char *path, reg_text *t) {
  memset(t, 0, sizeof *t);
  t->mode = 0644;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  struct stat sb;
  if (fstat(fd, &sb) != 0) { close(fd); return -1; }
  if (!S_ISREG(sb.st_mode)) { close(fd); errno = EINVAL; return -1; }
  if ((size_t)sb.st_size > MAX_FILE) { close(fd); errno = EFBIG; return -1; }
  t->mode = sb.st_mode & 07777;
  size_t cap = (size_t)sb.st_size + 1;
  t->buf = malloc(cap);
  if (!t->buf) { close(fd); return -1; }
  for (;;) {   /* the file may grow while we read it: read to the end, whatever fstat said */
    if (t->len == cap) {
      if (cap > MAX_FILE) { close(fd); errno = EFBIG; return -1; }
      char *b = realloc(t->buf, cap * 2);
      if (!b) { close(fd); return -1; }
      t->buf = b; cap *= 2;
    }
    ssize_t r = read(fd, t->buf + t->len, cap - t->len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) { int e = errno; close(fd); errno = e; return -1; }
    if (r == 0) break;
    t->len += (size_t)r;
  }
  close(fd);
  return 0;
}

/* Frees what t holds. */
static void free_text(reg_text *t) { free(t->buf); free(t->ids); memset(t, 0, sizeof *t); }

/* Makes t's IDs the system's (t no longer owns them). */
static void adopt(mi_system *sys, reg_text *t) {
  free(sys->uids);
  sys->uids = t->ids; sys->nuids = t->nids; sys->cuids = t->cap;
  t->ids = NULL; t->nids = t->cap = 0;
}

/* Writes all of p[0..n) to fd; 0 or -1. */
static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w; n -= (size_t)w;
  }
  return 0;
}

/* Replaces the file at path with t's text plus the line of uid: a temporary file in the same
 * directory, written, synced and renamed over it, then the directory synced; 0 or -1. */
static int replace_file(const char *path, const reg_text *t, int32_t uid) {
  char tmp[sizeof ((mi_system *)0)->registry_path + 16], line[16];
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) return -1;
  int n = snprintf(line, sizeof line, "%s%d\n", t->len && t->buf[t->len - 1] != '\n' ? "\n" : "", (int)uid);
  int bad = write_all(fd, t->buf ? t->buf : "", t->len) || write_all(fd, line, (size_t)n);
  bad = bad || fchmod(fd, t->mode) != 0 || fsync(fd) != 0;
  bad = close(fd) != 0 || bad;
  if (bad || rename(tmp, path) != 0) { int e = errno; unlink(tmp); errno = e; return -1; }
  /* the rename itself must survive a crash: sync the directory that holds the file */
  char dir[sizeof tmp];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = 0;
  else if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) { fsync(dfd); close(dfd); }
  return 0;
}

/* Takes the registry's writer lock (an flock on "<path>.lock", never removed); fd or -1. */
static int lock_registry(const char *path) {
  char lock[sizeof ((mi_system *)0)->registry_path + 8];
  snprintf(lock, sizeof lock, "%s.lock", path);
  int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) { close(fd); return -1; }
  return fd;
}

int mi_registry_load(mi_system *sys) {
  sys->registry_err[0] = 0;
  if (!sys->registry_path[0]) return 0;
  reg_text t;
  if (read_text(sys->registry_path, &t) != 0) {
    snprintf(sys->registry_err, sizeof sys->registry_err, "cannot read the registry: %s", strerror(errno));
    free_text(&t);
    return -1;
  }
  int rc = parse(&t, sys->registry_err, sizeof sys->registry_err), bad = t.bad;
  if (rc == 0) adopt(sys, &t);
  else snprintf(sys->registry_err, sizeof sys->registry_err, "out of memory reading the registry");
  free_text(&t);
  return rc || bad ? -1 : 0;
}

const char *mi_registry_error(const mi_system *sys) {
  return sys && sys->registry_err[0] ? sys->registry_err : NULL;
}

int mi_registry_has(mi_system *sys, int32_t uid) {
  return find(sys->uids, sys->nuids, uid) >= 0;
}

/* Inserts uid into the system's sorted IDs; 0 or -1. */
static int remember(mi_system *sys, int32_t uid) {
  int at = find(sys->uids, sys->nuids, uid);
  if (at >= 0) return 0;
  at = -at - 1;
  if (sys->nuids == sys->cuids) {
    if (sys->cuids > INT_MAX / 2) return -1;
    int c = sys->cuids ? sys->cuids * 2 : 8;
    int32_t *u = realloc(sys->uids, sizeof *u * (size_t)c);
    if (!u) return -1;
    sys->uids = u; sys->cuids = c;
  }
  memmove(sys->uids + at + 1, sys->uids + at, sizeof *sys->uids * (size_t)(sys->nuids - at));
  sys->uids[at] = uid;
  sys->nuids++;
  return 0;
}

int mi_registry_add(mi_system *sys, int32_t uid) {
  if (uid <= 0) return MI_E_NO_SUCH_USER_ID;
  if (!sys->registry_path[0]) return remember(sys, uid) ? MI_E_SHARED_CREATE : 0;
  /* read, check, add and replace under the lock: a second writer waits, then sees our ID */
  int lock = lock_registry(sys->registry_path);
  if (lock < 0) return MI_E_SHARED_CREATE;
  reg_text t;
  int rc = 0;
  sys->registry_err[0] = 0;
  if (read_text(sys->registry_path, &t) != 0) {
    snprintf(sys->registry_err, sizeof sys->registry_err, "cannot read the registry: %s", strerror(errno));
    rc = MI_E_SHARED_CREATE;
  } else if (parse(&t, sys->registry_err, sizeof sys->registry_err) != 0) {
    rc = MI_E_SHARED_CREATE;
  } else {
    adopt(sys, &t);   /* the file is the truth: IDs other programs installed count from now on */
    /* a corrupt file is left as it is for a person to mend: rewriting it would keep or drop
     * its bad lines silently */
    if (t.bad) rc = MI_E_SHARED_CREATE;
    else if (!mi_registry_has(sys, uid) && replace_file(sys->registry_path, &t, uid) != 0) {
      snprintf(sys->registry_err, sizeof sys->registry_err, "cannot write the registry: %s", strerror(errno));
      rc = MI_E_SHARED_CREATE;
    }
  }
  free_text(&t);
  close(lock);
  if (rc == 0 && remember(sys, uid)) rc = MI_E_SHARED_CREATE;
  return rc;
}
