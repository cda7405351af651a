/* fuzz_memfs.c — the in-memory tree of fuzz_memfs.h. fuzz_proc spent a third of its time in the
 * kernel writing its fixture tree and in the reader's open/pread/fstat/close of it (each input
 * reads a few hundred files); served from memory, the same reader code runs on the same texts.
 * Built without coverage: its branches are not the product's. */
#include "fuzz_memfs.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#define NNODE 1024
#define TEXT_MAX 4096
#define NBUCKET 512
#define NOPEN 64
#define NDIR 8
#define FD_BASE 0x20000000   /* far above any real descriptor */
#define TMPFS_MAGIC 0x01021994

typedef struct node {
  char rel[64];
  char type;        /* 0 free, 'f' file, 'l' link, 'd' directory */
  int linked;       /* reachable by its name (else only through open descriptors) */
  int opens;
  int next;         /* next linked node of its hash bucket, -1 none */
  size_t n;
  char text[TEXT_MAX + 1];   /* a file's text or a link's target: no malloc, which libFuzzer
                              * would take for a leak to look for at each new input */
} node;

static node nodes[NNODE];
static int bucket[NBUCKET];
static int ofile[NOPEN];   /* node of each open descriptor, -1 free */
static struct mdir { int fd, pos, used; struct dirent de; } dirs[NDIR];
static char root[256];
static size_t rootlen;

/* the real call and its wrapper, for each call the linker wraps */
#define WRAPPED(ret, name, args) ret __real_##name args; ret __wrap_##name args;
WRAPPED(int, open, (const char *path, int flags, ...))
WRAPPED(int, openat, (int dirfd, const char *path, int flags, ...))
WRAPPED(ssize_t, pread, (int fd, void *buf, size_t count, off_t off))
WRAPPED(int, fstat, (int fd, struct stat *st))
WRAPPED(int, fstatfs, (int fd, struct statfs *st))
WRAPPED(int, close, (int fd))
WRAPPED(DIR *, fdopendir, (int fd))
WRAPPED(struct dirent *, readdir, (DIR *d))
WRAPPED(void, rewinddir, (DIR *d))
WRAPPED(int, closedir, (DIR *d))
WRAPPED(ssize_t, readlink, (const char *path, char *buf, size_t cap))
WRAPPED(ssize_t, readlinkat, (int dirfd, const char *path, char *buf, size_t cap))
WRAPPED(int, access, (const char *path, int mode))

static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h % NBUCKET;
}

/* The linked node named rel, or -1. */
static int find(const char *rel) {
  for (int i = bucket[hash(rel)]; i >= 0; i = nodes[i].next)
    if (!strcmp(nodes[i].rel, rel)) return i;
  return -1;
}

/* Frees node i once it has neither a name nor an open descriptor. */
static void release(int i) {
  if (nodes[i].linked || nodes[i].opens) return;
  nodes[i].type = 0;
  nodes[i].rel[0] = 0;
  nodes[i].n = 0;
}

/* Takes node i off its name (its descriptors keep it). */
static void unlink_node(int i) {
  int *p = &bucket[hash(nodes[i].rel)];
  while (*p != i) p = &nodes[*p].next;
  *p = nodes[i].next;
  nodes[i].linked = 0;
  release(i);
}

/* A new linked node rel of type t, or -1 (a name too long, the table full, rel taken). */
static int add(const char *rel, char t) {
  if (strlen(rel) >= sizeof nodes[0].rel || find(rel) >= 0) return -1;
  for (int i = 0; i < NNODE; i++)
    if (!nodes[i].type) {
      snprintf(nodes[i].rel, sizeof nodes[i].rel, "%s", rel);
      nodes[i].type = t;
      nodes[i].n = 0;
      nodes[i].linked = 1;
      unsigned b = hash(rel);
      nodes[i].next = bucket[b];
      bucket[b] = i;
      return i;
    }
  fprintf(stderr, "fuzz_memfs: more than %d nodes\n", NNODE);
  abort();
}

/* Sets node i's text (in place: the node keeps its identity). */
static void set_text(int i, const char *text, size_t n) {
  if (n > TEXT_MAX) {
    fprintf(stderr, "fuzz_memfs: a text of %zu bytes (at most %d)\n", n, TEXT_MAX);
    abort();
  }
  memcpy(nodes[i].text, text, n);
  nodes[i].text[n] = 0;
  nodes[i].n = n;
}

void memfs_init(const char *r) {
  memset(nodes, 0, sizeof nodes);
  memset(dirs, 0, sizeof dirs);
  for (int b = 0; b < NBUCKET; b++) bucket[b] = -1;
  for (int f = 0; f < NOPEN; f++) ofile[f] = -1;
  snprintf(root, sizeof root, "%s", r);
  rootlen = strlen(root);
  add("", 'd');
}

int memfs_mkdir(const char *rel) { return add(rel, 'd') < 0 ? -1 : 0; }

int memfs_rmdir(const char *rel) {
  int i = find(rel);
  if (i <= 0 || nodes[i].type != 'd') return -1;
  size_t l = strlen(rel);
  for (int k = 0; k < NNODE; k++)
    if (nodes[k].linked && !strncmp(nodes[k].rel, rel, l) && nodes[k].rel[l] == '/') return -1;
  unlink_node(i);
  return 0;
}

int memfs_put(const char *rel, const char *text, size_t n) {
  int i = find(rel);
  if (i >= 0 && nodes[i].type != 'f') return -1;
  if (i < 0 && (i = add(rel, 'f')) < 0) return -1;
  set_text(i, text, n);
  return 0;
}

int memfs_symlink(const char *rel, const char *target) {
  int i = add(rel, 'l');
  if (i < 0) return -1;
  set_text(i, target, strlen(target));
  return 0;
}

int memfs_unlink(const char *rel) {
  int i = find(rel);
  if (i < 0 || nodes[i].type == 'd') return -1;
  unlink_node(i);
  return 0;
}

void memfs_walk(void (*fn)(const char *rel, char type, const char *text, size_t n, void *arg), void *arg) {
  for (int i = 1; i < NNODE; i++)
    if (nodes[i].linked) fn(nodes[i].rel, nodes[i].type, nodes[i].text, nodes[i].n, arg);
}

int memfs_open_count(void) {
  int c = 0;
  for (int f = 0; f < NOPEN; f++) c += ofile[f] >= 0;
  for (int d = 0; d < NDIR; d++) c += dirs[d].used;
  return c;
}

/* ---- the wrapped calls ---- */

/* The node an open descriptor of the tree stands for, or -1 (not one of ours). */
static int fd_node(int fd) {
  unsigned f = (unsigned)fd - FD_BASE;
  return f < NOPEN ? ofile[f] : -1;
}

/* Puts the tree-relative name of path (relative to dirfd) into rel: 1 if it is in the tree,
 * 0 if it is not ours, -1 (errno) if it is ours but cannot be named. */
static int resolve(int dirfd, const char *path, char rel[64]) {
  if (!rootlen || !path) return 0;
  const char *r;
  if (path[0] == '/') {
    if (strncmp(path, root, rootlen) || (path[rootlen] && path[rootlen] != '/')) return 0;
    r = path + rootlen + (path[rootlen] == '/');
    if (snprintf(rel, 64, "%s", r) >= 64) { errno = ENAMETOOLONG; return -1; }
    return 1;
  }
  int d = fd_node(dirfd);
  if (d < 0) return 0;
  if (nodes[d].type != 'd') { errno = ENOTDIR; return -1; }
  int n = nodes[d].rel[0] ? snprintf(rel, 64, "%s/%s", nodes[d].rel, path) : snprintf(rel, 64, "%s", path);
  if (n >= 64) { errno = ENAMETOOLONG; return -1; }
  return 1;
}

/* Opens the node named rel: a descriptor, or -1 (errno). */
static int open_rel(const char *rel, int flags) {
  if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC))) { errno = EROFS; return -1; }
  int i = find(rel);
  if (i < 0 || nodes[i].type == 'l') { errno = ENOENT; return -1; }   /* links point out of the tree */
  if ((flags & O_DIRECTORY) && nodes[i].type != 'd') { errno = ENOTDIR; return -1; }
  for (int f = 0; f < NOPEN; f++)
    if (ofile[f] < 0) {
      ofile[f] = i;
      nodes[i].opens++;
      return FD_BASE + f;
    }
  errno = EMFILE;
  return -1;
}

int __wrap_openat(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  char rel[64];
  int k = resolve(dirfd, path, rel);
  if (k < 0) return -1;
  return k ? open_rel(rel, flags) : __real_openat(dirfd, path, flags, mode);
}

int __wrap_open(const char *path, int flags, ...) {   /* (a real path: openat from the working directory) */
  va_list ap;
  va_start(ap, flags);
  mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  return __wrap_openat(AT_FDCWD, path, flags, mode);
}

ssize_t __wrap_pread(int fd, void *buf, size_t count, off_t off) {
  int i = fd_node(fd);
  if (i < 0) return fd >= FD_BASE ? (errno = EBADF, -1) : __real_pread(fd, buf, count, off);
  if (nodes[i].type == 'd') { errno = EISDIR; return -1; }
  if (off < 0) { errno = EINVAL; return -1; }
  if ((size_t)off >= nodes[i].n) return 0;
  size_t n = nodes[i].n - (size_t)off;
  if (n > count) n = count;
  memcpy(buf, nodes[i].text + off, n);
  return (ssize_t)n;
}

int __wrap_fstat(int fd, struct stat *st) {
  int i = fd_node(fd);
  if (i < 0) return fd >= FD_BASE ? (errno = EBADF, -1) : __real_fstat(fd, st);
  memset(st, 0, sizeof *st);
  st->st_dev = 0x4d49;
  st->st_ino = (ino_t)i + 1;
  st->st_mode = nodes[i].type == 'd' ? S_IFDIR | 0555 : S_IFREG | 0444;
  st->st_nlink = nodes[i].linked ? (nodes[i].type == 'd' ? 2 : 1) : 0;
  st->st_size = (off_t)nodes[i].n;
  st->st_blksize = 4096;
  return 0;
}

int __wrap_fstatfs(int fd, struct statfs *st) {
  int i = fd_node(fd);
  if (i < 0) return fd >= FD_BASE ? (errno = EBADF, -1) : __real_fstatfs(fd, st);
  memset(st, 0, sizeof *st);
  st->f_type = TMPFS_MAGIC;
  st->f_bsize = 4096;
  return 0;
}

int __wrap_close(int fd) {
  int i = fd_node(fd);
  if (i < 0) return fd >= FD_BASE ? (errno = EBADF, -1) : __real_close(fd);
  ofile[fd - FD_BASE] = -1;
  nodes[i].opens--;
  release(i);
  return 0;
}

/* The stream of ours d is, or NULL. */
static struct mdir *dir_of(DIR *d) {
  struct mdir *m = (struct mdir *)(void *)d;
  return m >= dirs && m < dirs + NDIR ? m : NULL;
}

DIR *__wrap_fdopendir(int fd) {
  int i = fd_node(fd);
  if (i < 0) return fd >= FD_BASE ? (errno = EBADF, NULL) : __real_fdopendir(fd);
  if (nodes[i].type != 'd') { errno = ENOTDIR; return NULL; }
  for (int d = 0; d < NDIR; d++)
    if (!dirs[d].used) {
      dirs[d].used = 1;
      dirs[d].fd = fd;
      dirs[d].pos = 0;
      return (DIR *)(void *)&dirs[d];
    }
  errno = EMFILE;
  return NULL;
}

struct dirent *__wrap_readdir(DIR *d) {
  struct mdir *m = dir_of(d);
  if (!m) return __real_readdir(d);
  const char *dn = nodes[fd_node(m->fd)].rel;
  size_t dl = strlen(dn);
  for (;;) {
    int p = m->pos++;
    const char *name = NULL;
    int t = DT_DIR;
    if (p == 0) name = ".";
    else if (p == 1) name = "..";
    else if (p - 2 >= NNODE) { m->pos--; return NULL; }   /* the end; errno untouched */
    else {
      const node *c = &nodes[p - 2];
      const char *r = c->rel;
      if (!c->linked || p - 2 == 0 || (dl && (strncmp(r, dn, dl) || r[dl] != '/'))) continue;
      r += dl ? dl + 1 : 0;
      if (strchr(r, '/') || !strncmp(r, "..", 2)) continue;   /* deeper, or the tree's ../etc */
      name = r;
      t = c->type == 'd' ? DT_DIR : c->type == 'l' ? DT_LNK : DT_REG;
    }
    memset(&m->de, 0, sizeof m->de);
    m->de.d_ino = (ino_t)p + 1;
    m->de.d_type = (unsigned char)t;
    snprintf(m->de.d_name, sizeof m->de.d_name, "%s", name);
    return &m->de;
  }
}

void __wrap_rewinddir(DIR *d) {
  struct mdir *m = dir_of(d);
  if (!m) { __real_rewinddir(d); return; }
  m->pos = 0;
}

int __wrap_closedir(DIR *d) {
  struct mdir *m = dir_of(d);
  if (!m) return __real_closedir(d);
  m->used = 0;
  return __wrap_close(m->fd);
}

/* readlink of the tree's rel into buf[cap]: the length copied, or -1 (errno). */
static ssize_t link_rel(const char *rel, char *buf, size_t cap) {
  int i = find(rel);
  if (i < 0) { errno = ENOENT; return -1; }
  if (nodes[i].type != 'l') { errno = EINVAL; return -1; }
  size_t n = nodes[i].n < cap ? nodes[i].n : cap;
  memcpy(buf, nodes[i].text, n);
  return (ssize_t)n;
}

ssize_t __wrap_readlink(const char *path, char *buf, size_t cap) {
  char rel[64];
  int k = resolve(AT_FDCWD, path, rel);
  if (k < 0) return -1;
  return k ? link_rel(rel, buf, cap) : __real_readlink(path, buf, cap);
}

ssize_t __wrap_readlinkat(int dirfd, const char *path, char *buf, size_t cap) {
  char rel[64];
  int k = resolve(dirfd, path, rel);
  if (k < 0) return -1;
  return k ? link_rel(rel, buf, cap) : __real_readlinkat(dirfd, path, buf, cap);
}

int __wrap_access(const char *path, int mode) {
  char rel[64];
  int k = resolve(AT_FDCWD, path, rel);
  if (k < 0) return -1;
  if (!k) return __real_access(path, mode);
  if (find(rel) < 0) { errno = ENOENT; return -1; }
  if (mode & W_OK) { errno = EROFS; return -1; }
  return 0;
}
