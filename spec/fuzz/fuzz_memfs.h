/* fuzz_memfs.h — an in-memory directory tree for fuzz_proc. Everything under one absolute root
 * path is served from memory to the code that reads it (core/sources/linux*.c): open, openat,
 * pread, fstat, fstatfs, close, fdopendir, readdir, rewinddir, closedir, readlink, readlinkat and
 * access are linked with -Wl,--wrap=<name> (Makefile, FUZZ_WRAP_proc) and pass every other path,
 * descriptor and directory stream to the real call. The harness builds the tree with the
 * functions below; paths are relative to the root ("42/stat", "../etc/passwd"). Files keep
 * their identity: a file written again is changed in place (a descriptor open on it sees the
 * new text), a file removed while open stays readable with no links (fstat's st_nlink is 0). */
#ifndef FUZZ_MEMFS_H
#define FUZZ_MEMFS_H
#include <stddef.h>

/* Serves the tree under the absolute path root (which need not exist on disk); empties it. */
void memfs_init(const char *root);
/* Makes directory rel (its parent must exist); 0, or -1 if something is at rel already. */
int memfs_mkdir(const char *rel);
/* Removes the empty directory rel; 0, or -1 if there is none or it is not empty. */
int memfs_rmdir(const char *rel);
/* Writes text[0..n) as regular file rel, in place if it exists; 0, or -1 (no parent, a directory). */
int memfs_put(const char *rel, const char *text, size_t n);
/* Makes rel a symbolic link to target; 0, or -1 if something is at rel already. */
int memfs_symlink(const char *rel, const char *target);
/* Removes file or link rel (a descriptor open on it keeps it); 0, or -1 if there is none. */
int memfs_unlink(const char *rel);
/* Calls fn for each linked file, link and directory under the root (not the root itself):
 * type 'f', 'l' or 'd', and a file's text or a link's target. */
void memfs_walk(void (*fn)(const char *rel, char type, const char *text, size_t n, void *arg), void *arg);
/* Descriptors and directory streams of the tree that are open now. */
int memfs_open_count(void);

#endif
