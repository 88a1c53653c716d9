/* test_alloc.h: a counting allocator for tests, that can fail on a chosen call. */
#ifndef test_alloc_h
#define test_alloc_h

#include "saspu.h"

typedef struct TestAlloc {
  long calls;   /* allocation requests so far (a realloc counts) */
  long fail_at; /* the request number (1-based) that fails; 0: none */
  long live;    /* blocks not yet freed */
  long bytes;   /* bytes not yet freed */
} TestAlloc;

/* Resets the counters; the fail_at-th request will return NULL. */
void test_alloc_init(TestAlloc *t, long fail_at);

/* The SpAllocator hook that counts into t. */
SpAllocator test_alloc_hook(TestAlloc *t);

#endif
