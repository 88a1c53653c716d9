/* test_alloc.c: cmocka tests of the core's one allocator helper (base/sp_alloc.h): what the hook is asked, the zero-size rule, failure. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sp_alloc.h"

/* A hook that records its last call and can refuse every request. */
typedef struct Calls {
  int count;
  void *ptr;
  size_t osize, nsize;
  int refuse;
} Calls;

static void *recording(void *ud, void *ptr, size_t osize, size_t nsize) {
  Calls *c = ud;
  c->count++;
  c->ptr = ptr, c->osize = osize, c->nsize = nsize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (c->refuse) return NULL;
  return realloc(ptr, nsize);
}

static void test_sizes_reach_the_hook(void **state) {
  (void)state;
  Calls c = {0};
  SpAllocator a = {recording, &c};
  char *p = sp__mem_alloc(a, 10);
  assert_non_null(p);
  assert_null(c.ptr);
  assert_int_equal(c.osize, 0);
  assert_int_equal(c.nsize, 10);
  memset(p, 7, 10);
  p = sp__mem_realloc(a, p, 10, 40);
  assert_non_null(p);
  assert_int_equal(c.osize, 10);
  assert_int_equal(c.nsize, 40);
  assert_int_equal(p[9], 7);
  sp__mem_free(a, p, 40);
  assert_int_equal(c.osize, 40);
  assert_int_equal(c.nsize, 0);
  assert_int_equal(c.count, 3);
}

/* A zero-byte block is a one-byte block in every call: success is never
 * NULL, and the hook hears the size it gave when the block goes. */
static void test_zero_is_one_byte(void **state) {
  (void)state;
  Calls c = {0};
  SpAllocator a = {recording, &c};
  void *p = sp__mem_alloc(a, 0);
  assert_non_null(p);
  assert_int_equal(c.nsize, 1);
  p = sp__mem_realloc(a, p, 0, 0);
  assert_non_null(p);
  assert_int_equal(c.osize, 1);
  assert_int_equal(c.nsize, 1);
  sp__mem_free(a, p, 0);
  assert_int_equal(c.osize, 1);
  assert_int_equal(c.nsize, 0);
  void *q = sp__mem_realloc(a, NULL, 0, 0); /* a new block */
  assert_non_null(q);
  assert_null(c.ptr);
  assert_int_equal(c.osize, 0);
  assert_int_equal(c.nsize, 1);
  sp__mem_free(a, q, 0);
}

static void test_refusal_keeps_the_block(void **state) {
  (void)state;
  Calls c = {0};
  SpAllocator a = {recording, &c};
  char *p = sp__mem_alloc(a, 8);
  assert_non_null(p);
  strcpy(p, "horse");
  c.refuse = 1;
  assert_null(sp__mem_alloc(a, 8));
  assert_null(sp__mem_realloc(a, p, 8, 64));
  assert_string_equal(p, "horse"); /* untouched and still owned */
  c.refuse = 0;
  sp__mem_free(a, p, 8);
  assert_ptr_equal(c.ptr, p);
}

static void test_null_hook_is_malloc(void **state) {
  (void)state;
  SpAllocator a = {NULL, NULL};
  char *p = sp__mem_alloc(a, 0);
  assert_non_null(p);
  p = sp__mem_realloc(a, p, 0, 100);
  assert_non_null(p);
  memset(p, 1, 100);
  sp__mem_free(a, p, 100);
  sp__mem_free(a, NULL, 5); /* ignored */
}

/* Line-aligned blocks start on a 64-byte line, whatever the hook gives,
 * and go back to the hook whole, with the size it was asked for. */
static void test_lines_start_on_a_line(void **state) {
  (void)state;
  Calls c = {0};
  SpAllocator a = {recording, &c};
  for (size_t n = 0; n < 300; n += 37) {
    unsigned char *p = sp__mem_alloc_lines(a, n);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % SP_LINE, 0);
    assert_int_equal(c.nsize, n + SP_LINE);
    memset(p, 0xab, n); /* the whole block is the caller's */
    sp__mem_free_lines(a, p, n);
    assert_int_equal(c.osize, n + SP_LINE);
    assert_int_equal(c.nsize, 0);
    assert_true((unsigned char *)c.ptr <= p &&
                p - (unsigned char *)c.ptr <= SP_LINE);
  }
  c.refuse = 1;
  assert_null(sp__mem_alloc_lines(a, 100));
  sp__mem_free_lines(a, NULL, 5); /* ignored */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes_reach_the_hook),
      cmocka_unit_test(test_zero_is_one_byte),
      cmocka_unit_test(test_refusal_keeps_the_block),
      cmocka_unit_test(test_null_hook_is_malloc),
      cmocka_unit_test(test_lines_start_on_a_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
