/* test_population_threads.c: batch planning: the thread pool (growing, shrinking, shared), allocation-free planning, cache growth, allocation failures. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "saspu.h"
#include "saspu_population.h"
#include "sp_builtin.h"
#include "sp_claims.h"
#include "sp_plan_cache.h"
#include "paper_facts.h"
#include "test_alloc.h"
#include "test_fixture.h"
#include "population_checks.h"

static const SpAllocator plain = {NULL, NULL};

/* ------------------------------------------------------------------ */
/* Threads                                                            */
/* ------------------------------------------------------------------ */

typedef struct Tally {
  _Alignas(64) long count[8][8]; /* one line per worker */
} Tally;

static void count_job(void *arg, int worker) {
  Tally *t = arg;
  t->count[worker][0]++;
}

static void test_thread_pool(void **state) {
  (void)state;
  TestAlloc cnt;
  test_alloc_init(&cnt, 0);
  SpAllocator a = test_alloc_hook(&cnt);
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(3, a, &pool, &err), SP_OK);
  assert_int_equal(sp_thread_pool_size(pool), 3);
  Tally t;
  memset(&t, 0, sizeof t);
  for (int round = 0; round < 200; round++)
    sp_thread_pool_run(pool, 1 + round % 4, count_job, &t);
  /* workers 1+round%4 clamped to 3: rounds with 1, 2, 3, 3 workers */
  assert_int_equal(t.count[0][0], 200);
  assert_int_equal(t.count[1][0], 150);
  assert_int_equal(t.count[2][0], 100);
  assert_int_equal(t.count[3][0], 0);
  sp_thread_pool_free(pool);
  assert_int_equal(cnt.live, 0);
  /* a pool of one runs on the caller; 0 means the online cores */
  assert_int_equal(sp_thread_pool_new(1, a, &pool, &err), SP_OK);
  memset(&t, 0, sizeof t);
  sp_thread_pool_run(pool, 4, count_job, &t);
  assert_int_equal(t.count[0][0], 1);
  sp_thread_pool_free(pool);
  assert_int_equal(sp_thread_pool_new(0, a, &pool, &err), SP_OK);
  assert_int_equal(sp_thread_pool_size(pool), sp_online_cores());
  sp_thread_pool_free(pool);
  sp_thread_pool_free(NULL);
  /* allocation failure: the very next request */
  cnt.fail_at = cnt.calls + 1;
  pool = (SpThreadPool *)1;
  assert_int_equal(sp_thread_pool_new(2, a, &pool, &err), SP_ERR_MEMORY);
  assert_null(pool);
  assert_int_equal(cnt.live, 0);
}

/* Threads of this process, from /proc/self/task. */
static int live_threads(void) {
  DIR *dir = opendir("/proc/self/task");
  assert_non_null(dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(dir);
  return n;
}

/* Threads of this process once `want` are left, or after 2 s: the kernel
 * lists a joined thread until it has reaped it, a moment after
 * pthread_join returned. */
static int threads_after_join(int want) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int n = live_threads();
  while (n != want) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec >= 2) break;
    n = live_threads();
  }
  return n;
}

/* Shrinking joins the threads past the new size at once, allocates
 * nothing, and the pool keeps running jobs on the workers left. */
static void test_thread_pool_shrink(void **state) {
  (void)state;
  TestAlloc cnt;
  test_alloc_init(&cnt, 0);
  SpAllocator a = test_alloc_hook(&cnt);
  int base = live_threads();
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(8, a, &pool, &err), SP_OK);
  assert_int_equal(live_threads(), base + 7);
  Tally t;
  memset(&t, 0, sizeof t);
  sp_thread_pool_run(pool, 8, count_job, &t);
  long calls = cnt.calls;
  sp_thread_pool_shrink(pool, 3);
  assert_int_equal(cnt.calls, calls);
  assert_int_equal(sp_thread_pool_size(pool), 3);
  assert_int_equal(threads_after_join(base + 2), base + 2);
  sp_thread_pool_shrink(pool, 5); /* no growth */
  assert_int_equal(sp_thread_pool_size(pool), 3);
  for (int round = 0; round < 50; round++)
    sp_thread_pool_run(pool, 8, count_job, &t);
  assert_int_equal(t.count[2][0], 51);
  assert_int_equal(t.count[3][0], 1);
  sp_thread_pool_shrink(pool, 0); /* to one: the caller alone */
  assert_int_equal(threads_after_join(base), base);
  sp_thread_pool_run(pool, 8, count_job, &t);
  assert_int_equal(t.count[0][0], 52);
  assert_int_equal(t.count[1][0], 51);
  sp_thread_pool_free(pool);
  assert_int_equal(threads_after_join(base), base);
  assert_int_equal(cnt.live, 0);
}

/* Workers that spin after a job catch the next one at once; workers
 * left idle longer sleep and are woken. Either way every worker of a job
 * runs it once, and its writes are seen when sp_thread_pool_run returns. */
typedef struct Echo {
  _Alignas(64) long wrote[4][8];
  long round;
} Echo;

static void echo_job(void *arg, int worker) {
  Echo *e = arg;
  e->wrote[worker][0] = e->round;
}

static void test_thread_pool_spins_then_sleeps(void **state) {
  (void)state;
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(4, plain, &pool, &err), SP_OK);
  Echo e;
  memset(&e, 0, sizeof e);
  for (long round = 1; round <= 300; round++) {
    e.round = round;
    int workers = 1 + (int)(round % 4);
    sp_thread_pool_run(pool, workers, echo_job, &e);
    for (int k = 0; k < 4; k++)
      if (k < workers) assert_int_equal(e.wrote[k][0], round);
    if (round % 50 == 0) { /* longer than the spin: the workers sleep */
      struct timespec pause = {0, 2000000};
      nanosleep(&pause, NULL);
    }
  }
  sp_thread_pool_free(pool);
}

/* sp__thread_pool_help: the items of a round are claimed from a counter,
 * each claimed once; a worker runs a round at most once, and never after
 * the call returned (a thread that wakes late for a round finds it closed
 * and takes no place in the next). Rounds after a pause find the workers
 * asleep, and the caller then often does all the work alone. */
enum { HELP_ROUNDS = 400, HELP_ITEMS = 300 };

typedef struct HelpRound {
  atomic_int next;     /* the next item to claim */
  atomic_int claimed;  /* items claimed in all */
  atomic_int ran[4];   /* times each worker ran the round */
  atomic_int returned; /* the call returned */
  atomic_int late;     /* a worker ran after that */
} HelpRound;

static void help_job(void *arg, int worker) {
  HelpRound *r = arg;
  if (atomic_load(&r->returned)) atomic_fetch_add(&r->late, 1);
  atomic_fetch_add(&r->ran[worker], 1);
  while (atomic_fetch_add(&r->next, 1) < HELP_ITEMS)
    atomic_fetch_add(&r->claimed, 1);
}

static void test_thread_pool_help(void **state) {
  (void)state;
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(4, plain, &pool, &err), SP_OK);
  HelpRound *rounds = calloc(HELP_ROUNDS, sizeof *rounds);
  assert_non_null(rounds);
  int alone = 0;
  for (int k = 0; k < HELP_ROUNDS; k++) {
    HelpRound *r = &rounds[k];
    int workers = 2 + k % 3;
    sp__thread_pool_help(pool, workers, help_job, r);
    atomic_store(&r->returned, 1);
    assert_int_equal(atomic_load(&r->claimed), HELP_ITEMS);
    assert_int_equal(atomic_load(&r->ran[0]), 1);
    int helpers = 0;
    for (int w = 1; w < 4; w++) {
      int ran = atomic_load(&r->ran[w]);
      assert_true(ran == 0 || (ran == 1 && w < workers));
      helpers += ran;
    }
    alone += helpers == 0;
    if (k % 20 == 19) { /* longer than the spin: the workers sleep */
      struct timespec pause = {0, 2000000};
      nanosleep(&pause, NULL);
    }
  }
  /* the last rounds' late threads, if any, are done with them once the
   * pool is freed: none ran a round after its call returned */
  sp_thread_pool_free(pool);
  for (int k = 0; k < HELP_ROUNDS; k++)
    assert_int_equal(atomic_load(&rounds[k].late), 0);
  print_message("help: %d of %d rounds ran on the caller alone\n", alone,
                HELP_ROUNDS);
  free(rounds);
}

/* One pool shared by two populations of different domains. */
static void test_shared_pool(void **state) {
  (void)state;
  TestFixture f1, f2;
  test_fixture_open(&f1, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  test_fixture_open(&f2, sp_builtin_citizen(plain));
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(3, plain, &pool, &err), SP_OK);
  SpPopulation *p1 = population_with_pairs(&f1, 6000, 41, plain);
  SpPopulation *p2 = population_with_pairs(&f2, 6000, 42, plain);
  for (int round = 0; round < 3; round++) {
    SpPlanOptions o = {round == 0 ? 3 : 8, round == 2, 0, pool};
    SpPlanReport r;
    assert_int_equal(sp_population_plan(p1, &o, &r, &err), SP_OK);
    assert_int_equal(r.threads, 3);
    assert_int_equal(r.planned, 6000);
    assert_int_equal(sp_population_plan(p2, &o, &r, &err), SP_OK);
    assert_int_equal(r.planned, 6000);
    expect_matches_sp_plan(&f1, p1);
    expect_matches_sp_plan(&f2, p2);
    assert_int_equal(sp_population_mark_dirty(p1, 0, 6000, &err), SP_OK);
    assert_int_equal(sp_population_mark_dirty(p2, 0, 6000, &err), SP_OK);
  }
  SpPlanOptions o = {2, 0, 0, pool};
  SpPlanReport r;
  assert_int_equal(sp_population_plan(p1, &o, &r, &err), SP_OK);
  assert_int_equal(r.threads, 2);
  sp_population_free(p1);
  sp_population_free(p2);
  sp_thread_pool_free(pool);
  test_fixture_close(&f1);
  test_fixture_close(&f2);
}

/* ------------------------------------------------------------------ */
/* Memory                                                             */
/* ------------------------------------------------------------------ */

/* After a warm-up call with the same settings, planning allocates
 * nothing: not with threads, not with the cache, not with a budget. */
static void test_no_allocation_when_planning(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  TestAlloc cnt;
  test_alloc_init(&cnt, 0);
  SpAllocator a = test_alloc_hook(&cnt);
  size_t n = 20000;
  SpPopulation *pop = population_with_pairs(&f, n, 51, a);
  SpValue *st = malloc(n * 7), *go = malloc(n * 7);
  assert_non_null(st);
  assert_non_null(go);
  struct {
    int threads, no_cache;
    uint64_t budget;
  } cases[] = {{2, 0, 0}, {2, 1, 0}, {1, 0, 0}, {1, 1, 0}, {2, 0, 200000}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    plan_with(pop, cases[c].threads, cases[c].no_cache, 0); /* warm-up */
    for (int round = 0; round < 3; round++) {
      random_pairs(&f, n, 100 + c * 10 + (uint64_t)round, st, go);
      long before = cnt.calls;
      SpError err;
      assert_int_equal(sp_population_set_states(pop, 0, n, st, &err), SP_OK);
      assert_int_equal(sp_population_set_goals(pop, 0, n, go, &err), SP_OK);
      SpPlanReport r;
      do {
        r = plan_with(pop, cases[c].threads, cases[c].no_cache,
                      cases[c].budget);
      } while (r.waiting > 0);
      SpFailure fail;
      sp_population_explain(pop, 7, &fail, &err);
      assert_int_equal(cnt.calls, before);
    }
    expect_matches_sp_plan(&f, pop);
  }
  free(st);
  free(go);
  sp_population_free(pop);
  assert_int_equal(cnt.live, 0);
  assert_int_equal(cnt.bytes, 0);
  test_fixture_close(&f);
}

/* Caches grow with what they hold: 10 NPCs on a 1000-action domain take
 * a few entries, not capacity x plan size per worker; as new pairs come
 * in over many calls, the caches grow while NPCs planned earlier keep
 * pointing at their entries (never moved), and every plan stays
 * sp_plan's. */
static void test_cache_grows_with_use(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_oneprv_5(plain, 250)); /* 1000 actions */
  size_t n = 3000;
  SpPopulation *pop = population_with_pairs(&f, n, 71, plain);
  SpPopulationStats s;
  plan_with(pop, 2, 1, 0); /* workers without caches */
  sp_population_stats(pop, &s);
  size_t no_caches = s.bytes_workers;
  /* 10 dirty NPCs: each worker reserves room for 10 entries */
  SpError err;
  assert_int_equal(sp_population_mark_dirty(pop, 0, 10, &err), SP_OK);
  plan_with(pop, 2, 0, 0);
  sp_population_stats(pop, &s);
  size_t caches = s.bytes_workers - no_caches;
  size_t stride = 2000; /* 1000 two-byte ids */
  assert_true(caches < 2u * (16u * stride + 65536u));
  /* what the old layout reserved: capacity x stride per worker */
  assert_true(caches * 100u < 2u * SP_PLAN_CACHE_DEFAULT_CAPACITY * stride);
  expect_matches_sp_plan(&f, pop);
  /* new pairs for a slice at a time; the rest keep their entries */
  SpValue *st = malloc(n * (size_t)f.m), *go = malloc(n * (size_t)f.m);
  assert_non_null(st);
  assert_non_null(go);
  size_t before = s.cache_entries;
  for (int round = 0; round < 12; round++) {
    size_t first = (size_t)round * 250u;
    random_pairs(&f, 250, 500 + (uint64_t)round, st, go);
    assert_int_equal(sp_population_set_states(pop, first, 250, st, &err),
                     SP_OK);
    assert_int_equal(sp_population_set_goals(pop, first, 250, go, &err), SP_OK);
    plan_with(pop, 1 + round % 2, 0, 0);
    expect_matches_sp_plan(&f, pop);
  }
  sp_population_stats(pop, &s);
  assert_true(s.cache_entries > before);
  assert_true(s.in_cache > 0);
  free(st);
  free(go);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* Every allocation that can fail, fails once: creation leaks nothing;
 * a plan call that cannot set up reports it, leaves the NPCs as they
 * were, and a later call succeeds. */
static void test_failing_allocator(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_acquisition_machine(plain));
  for (long k = 1;; k++) {
    TestAlloc cnt;
    test_alloc_init(&cnt, k);
    SpAllocator a = test_alloc_hook(&cnt);
    SpPopulation *pop = (SpPopulation *)1;
    SpError err;
    SpStatus st = sp_population_new(f.d, 3000, a, &pop, &err);
    if (st == SP_OK) {
      sp_population_free(pop);
      assert_int_equal(cnt.live, 0);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_int_equal(err.code, SP_E_MEMORY);
    assert_null(pop);
    assert_int_equal(cnt.live, 0);
  }
  int failures_seen = 0;
  for (long k = 1;; k++) {
    TestAlloc cnt;
    test_alloc_init(&cnt, 0);
    SpAllocator a = test_alloc_hook(&cnt);
    SpPopulation *pop = population_with_pairs(&f, 3000, 61, a);
    cnt.fail_at = cnt.calls + k; /* the k-th request of the plan call */
    SpPlanOptions o = {3, 0, 0, NULL};
    SpPlanReport r;
    SpError err;
    SpStatus st = sp_population_plan(pop, &o, &r, &err);
    if (st == SP_OK) {
      assert_int_equal(r.planned, 3000);
      sp_population_free(pop);
      assert_int_equal(cnt.live, 0);
      break;
    }
    failures_seen++;
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_int_equal(r.planned, 0);
    assert_int_equal(r.waiting, 3000);
    SpPopulationStats s;
    sp_population_stats(pop, &s);
    assert_int_equal(s.unplanned, 3000);
    assert_int_equal(s.dirty, 3000);
    cnt.fail_at = 0;
    assert_int_equal(sp_population_plan(pop, &o, &r, &err), SP_OK);
    assert_int_equal(r.planned, 3000);
    expect_matches_sp_plan(&f, pop);
    sp_population_free(pop);
    assert_int_equal(cnt.live, 0);
  }
  /* pool, 3 records' workspaces and scratch, 3 caches, worker records */
  assert_true(failures_seen >= 8);
  test_fixture_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_pool),
      cmocka_unit_test(test_thread_pool_shrink),
      cmocka_unit_test(test_thread_pool_spins_then_sleeps),
      cmocka_unit_test(test_thread_pool_help),
      cmocka_unit_test(test_shared_pool),
      cmocka_unit_test(test_no_allocation_when_planning),
      cmocka_unit_test(test_cache_grows_with_use),
      cmocka_unit_test(test_failing_allocator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
