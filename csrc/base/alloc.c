/* alloc.c: the allocator helper every stage uses (see sp_alloc.h for the zero-size rule). */
#include <stdint.h>
#include <stdlib.h>

#include "sp_alloc.h"

static size_t at_least_one(size_t n) { return n == 0 ? 1 : n; }

void *sp__mem_alloc(SpAllocator a, size_t n) {
  n = at_least_one(n);
  if (a.fn == NULL) return malloc(n);
  return a.fn(a.ud, NULL, 0, n);
}

void *sp__mem_realloc(SpAllocator a, void *p, size_t old, size_t n) {
  if (p == NULL) return sp__mem_alloc(a, n);
  n = at_least_one(n);
  if (a.fn == NULL) return realloc(p, n);
  return a.fn(a.ud, p, at_least_one(old), n);
}

void sp__mem_free(SpAllocator a, void *p, size_t n) {
  if (p == NULL) return;
  if (a.fn == NULL) {
    free(p);
    return;
  }
  a.fn(a.ud, p, at_least_one(n), 0);
}

/* The block is n + SP_LINE bytes; the byte before the aligned start holds
 * how far into the block it lies (1 to SP_LINE). */
void *sp__mem_alloc_lines(SpAllocator a, size_t n) {
  unsigned char *raw = sp__mem_alloc(a, n + SP_LINE);
  if (raw == NULL) return NULL;
  size_t skip = SP_LINE - (uintptr_t)raw % SP_LINE; /* 1 .. SP_LINE */
  raw[skip - 1] = (unsigned char)skip;
  return raw + skip;
}

void sp__mem_free_lines(SpAllocator a, void *p, size_t n) {
  if (p == NULL) return;
  unsigned char *start = p;
  sp__mem_free(a, start - start[-1], n + SP_LINE);
}
