/* test_claims.c: cmocka tests of how workers share a pass's chunks (batch/sp_claims.h): every chunk once, each worker's own range first, from several threads at once. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sp_claims.h"

/* Claims every run of worker k in turn, marking the chunks it got. */
static size_t drain(SpClaims *cl, int k, int *owner, size_t items) {
  size_t first, end, got = 0;
  while (sp__claims_next(cl, k, &first, &end)) {
    assert_true(first < end && end <= items);
    assert_true(end - first <= cl->run);
    for (size_t t = first; t < end; t++) {
      assert_int_equal(owner[t], -1); /* never twice */
      owner[t] = k;
      got++;
    }
  }
  return got;
}

static void test_one_worker_goes_in_order(void **state) {
  (void)state;
  SpClaims cl;
  sp__claims_init(&cl, 10, 1, 3);
  size_t first, end, next = 0;
  while (sp__claims_next(&cl, 0, &first, &end)) {
    assert_int_equal(first, next);
    next = end;
  }
  assert_int_equal(next, 10);
  sp__claims_init(&cl, 0, 1, 1); /* nothing to claim */
  assert_false(sp__claims_next(&cl, 0, &first, &end));
}

/* Worker k's first claim is the start of range k; every chunk is claimed
 * once, whoever drains first (the others' ranges are helped with). */
static void test_own_range_first_then_help(void **state) {
  (void)state;
  for (size_t items = 0; items < 70; items += 7)
    for (int workers = 1; workers <= 5; workers++) {
      SpClaims cl;
      sp__claims_init(&cl, items, workers, sp__claims_run(items, workers));
      for (int k = 0; k < workers; k++) {
        size_t lo = items * (size_t)k / (size_t)workers;
        size_t hi = items * (size_t)(k + 1) / (size_t)workers;
        if (lo == hi) continue;
        size_t first, end;
        SpClaims probe = cl;
        assert_true(sp__claims_next(&probe, k, &first, &end));
        assert_int_equal(first, lo);
      }
      int owner[70];
      for (size_t t = 0; t < items; t++) owner[t] = -1;
      size_t got = drain(&cl, workers - 1, owner, items); /* takes it all */
      for (int k = 0; k < workers - 1; k++) got += drain(&cl, k, owner, items);
      assert_int_equal(got, items);
    }
}

typedef struct Race {
  SpClaims *cl;
  int k;
  int *owner;
  size_t items, got;
} Race;

static void *race_main(void *p) {
  Race *r = p;
  size_t first, end;
  while (sp__claims_next(r->cl, r->k, &first, &end))
    for (size_t t = first; t < end; t++) {
      __atomic_fetch_add(&r->owner[t], 1, __ATOMIC_RELAXED);
      r->got++;
    }
  return NULL;
}

/* Four threads claiming at once: every chunk exactly once. */
static void test_threads_claim_each_chunk_once(void **state) {
  (void)state;
  enum { ITEMS = 5000, THREADS = 4 };
  int *count = calloc(ITEMS, sizeof *count);
  assert_non_null(count);
  for (int round = 0; round < 20; round++) {
    SpClaims cl;
    sp__claims_init(&cl, ITEMS, THREADS, 1 + (size_t)round % 5);
    memset(count, 0, ITEMS * sizeof *count);
    pthread_t th[THREADS];
    Race r[THREADS];
    for (int k = 0; k < THREADS; k++) {
      r[k] = (Race){&cl, k, count, ITEMS, 0};
      assert_int_equal(pthread_create(&th[k], NULL, race_main, &r[k]), 0);
    }
    size_t got = 0;
    for (int k = 0; k < THREADS; k++) {
      pthread_join(th[k], NULL);
      got += r[k].got;
    }
    assert_int_equal(got, ITEMS);
    for (size_t t = 0; t < ITEMS; t++) assert_int_equal(count[t], 1);
  }
  free(count);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_worker_goes_in_order),
      cmocka_unit_test(test_own_range_first_then_help),
      cmocka_unit_test(test_threads_claim_each_chunk_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
