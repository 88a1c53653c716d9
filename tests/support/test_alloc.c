/* test_alloc.c: a counting allocator for tests, that can fail on a chosen call. */
#include <stdlib.h>

#include "test_alloc.h"

void test_alloc_init(TestAlloc *t, long fail_at) {
  t->calls = 0;
  t->fail_at = fail_at;
  t->live = 0;
  t->bytes = 0;
}

static void *test_alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  TestAlloc *t = ud;
  if (nsize == 0) {
    if (ptr != NULL) {
      t->live--;
      t->bytes -= (long)osize;
    }
    free(ptr);
    return NULL;
  }
  if (++t->calls == t->fail_at) return NULL;
  void *p = realloc(ptr, nsize);
  if (p == NULL) return NULL;
  if (ptr == NULL) {
    t->live++;
    t->bytes += (long)nsize;
  } else {
    t->bytes += (long)nsize - (long)osize;
  }
  return p;
}

SpAllocator test_alloc_hook(TestAlloc *t) {
  SpAllocator a = {test_alloc_fn, t};
  return a;
}
