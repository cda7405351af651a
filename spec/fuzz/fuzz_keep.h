/* fuzz_keep.h — large heap blocks kept between inputs, for the harnesses linked with
 * -Wl,--wrap=malloc (FUZZ_WRAP_<harness> in the Makefile: attach, export). ASan serves a block
 * of 128 KB and more with a fresh mapping and unmaps it at free (page faults, munmap with its TLB
 * flush, madvise of the shadow), and the core's per-session and per-exporter buffers of that size
 * (MIREADACTIVE's query memory and 2,700-row cache, an exporter's record buffers and exposition)
 * came and went at every input. Up to KEEP_BLOCKS blocks of KEEP_MIN bytes and more are kept:
 * a malloc, or a realloc from NULL, takes a free one of at least its size (at most twice it)
 * with the bytes past its size poisoned, so a read or write past the end still reports
 * (use-after-poison); a realloc of a kept block within its room moves the poison, beyond it
 * copies into another block; a freed one is poisoned whole until it is taken again. The pool's
 * free and realloc (fuzz_pool.c) hand these blocks here through fz_own_free/fz_own_realloc.
 * Included once, by the harness. */
#ifndef FUZZ_KEEP_H
#define FUZZ_KEEP_H
#include <stdint.h>
#include <string.h>

#define KEEP_BLOCKS 8
#define KEEP_MIN (64 * 1024)
static struct { uint8_t *p; size_t cap, size; int in_use; } keep[KEEP_BLOCKS];
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void __real_free(void *p);
int fz_own_free(void *p);
int fz_own_realloc(void *p, size_t size, void **out);
void __asan_poison_memory_region(const volatile void *addr, size_t size);
void __asan_unpoison_memory_region(const volatile void *addr, size_t size);

/* A kept block for size bytes (size >= KEEP_MIN), or NULL if every place is in use or there is
 * no memory. */
__attribute__((no_sanitize("coverage"))) static void *keep_take(size_t size) {
  int k = -1;
  for (int i = 0; i < KEEP_BLOCKS; i++)
    if (keep[i].p && !keep[i].in_use && keep[i].cap >= size && keep[i].cap / 2 <= size && (k < 0 || keep[i].cap < keep[k].cap))
      k = i;
  if (k < 0) {   /* a new block, in an empty place or instead of the smallest free one */
    for (int i = 0; i < KEEP_BLOCKS; i++)
      if (!keep[i].in_use && (k < 0 || !keep[i].p || (keep[k].p && keep[i].cap < keep[k].cap))) k = i;
    if (k < 0) return NULL;
    size_t cap = (size + 65535) & ~(size_t)65535;
    uint8_t *p = __real_malloc(cap);
    if (!p) return NULL;
    if (keep[k].p) { __asan_unpoison_memory_region(keep[k].p, keep[k].cap); __real_free(keep[k].p); }
    keep[k].p = p;
    keep[k].cap = cap;
  }
  keep[k].in_use = 1;
  keep[k].size = size;
  __asan_unpoison_memory_region(keep[k].p, size);
  __asan_poison_memory_region(keep[k].p + size, keep[k].cap - size);
  return keep[k].p;
}

/* The place of kept block p in use, or -1. */
__attribute__((no_sanitize("coverage"))) static int keep_find(const void *p) {
  for (int i = 0; i < KEEP_BLOCKS; i++)
    if (p && keep[i].p == p) {
      if (!keep[i].in_use) { fprintf(stderr, "fuzz_keep: a kept block of %zu bytes used after its free\n", keep[i].size); abort(); }
      return i;
    }
  return -1;
}

/* malloc: a kept block for KEEP_MIN bytes and more, else the allocator's. */
__attribute__((no_sanitize("coverage"))) void *__wrap_malloc(size_t size) {
  void *p = size >= KEEP_MIN ? keep_take(size) : NULL;
  return p ? p : __real_malloc(size);
}

/* Called by the pool's free: 1 if p is a kept block (poisoned, kept for the next taker). */
__attribute__((no_sanitize("coverage"))) int fz_own_free(void *p) {
  int i = keep_find(p);
  if (i < 0) return 0;
  keep[i].in_use = 0;
  __asan_poison_memory_region(keep[i].p, keep[i].cap);
  return 1;
}

/* Called by the pool's realloc: 1 if it did the realloc (*out the block, NULL if out of memory,
 * p untouched then), 0 if the allocator should (p neither NULL nor kept, or a small size). */
__attribute__((no_sanitize("coverage"))) int fz_own_realloc(void *p, size_t size, void **out) {
  int i = keep_find(p);
  if (i < 0 && (p || size < KEEP_MIN)) return 0;
  if (i >= 0 && size <= keep[i].cap && size >= KEEP_MIN) {   /* within its room: the poison moves */
    __asan_unpoison_memory_region(keep[i].p, size);
    __asan_poison_memory_region(keep[i].p + size, keep[i].cap - size);
    keep[i].size = size;
    *out = p;
    return 1;
  }
  void *q = size >= KEEP_MIN ? keep_take(size) : NULL;
  if (!q) q = __real_malloc(size ? size : 1);
  if (q && i >= 0) {
    memcpy(q, p, keep[i].size < size ? keep[i].size : size);
    fz_own_free(p);
  }
  *out = q;
  return 1;
}
#endif
