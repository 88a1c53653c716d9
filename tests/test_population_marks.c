/* test_population_marks.c: marking listed NPCs dirty, from one thread or from several on disjoint NPCs, counted exactly once each; marking all clean. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_population.h"
#include "saspu_threads.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

enum { N = 4096 };

typedef struct Env {
  SpBuiltSpec *b;
  SpDomain *d;
  SpPopulation *pop;
} Env;

/* N citizens, all planned once (nothing dirty). */
static void env_open(Env *e) {
  e->b = sp_builtin_citizen(plain);
  assert_int_equal(sp_domain_compile(&e->b->spec, NULL, plain, &e->d, NULL),
                   SP_OK);
  assert_int_equal(sp_population_new(e->d, N, plain, &e->pop, NULL), SP_OK);
  const SpValue *s0 = sp_builtin_start(e->b, "start_of_day")->values;
  const SpValue *g = sp_builtin_goal(e->b, "buy_supplies")->values;
  for (size_t i = 0; i < N; i++)
    assert_int_equal(sp_population_set(e->pop, i, s0, g, NULL), SP_OK);
  SpPlanOptions o = {1, 0, 0, NULL};
  assert_int_equal(sp_population_plan(e->pop, &o, NULL, NULL), SP_OK);
}

static void env_close(Env *e) {
  sp_population_free(e->pop);
  sp_domain_free(e->d);
  sp_builtin_free(e->b);
}

static size_t dirty(const SpPopulation *pop) {
  SpPopulationStats st;
  sp_population_stats(pop, &st);
  return st.dirty;
}

static void test_list_counts_each_once(void **state) {
  (void)state;
  Env e;
  env_open(&e);
  assert_int_equal(dirty(e.pop), 0);
  uint32_t list[] = {5, 9, 5, 4095, 0};
  assert_int_equal(sp_population_mark_dirty_list(e.pop, list, 5, NULL), SP_OK);
  assert_int_equal(dirty(e.pop), 4); /* 5 listed twice */
  assert_int_equal(sp_population_mark_dirty(e.pop, 8, 3, NULL), SP_OK);
  assert_int_equal(dirty(e.pop), 6); /* 9 was dirty already */
  SpPlanReport r;
  SpPlanOptions o = {1, 0, 0, NULL};
  assert_int_equal(sp_population_plan(e.pop, &o, &r, NULL), SP_OK);
  assert_int_equal(r.planned, 6);
  assert_int_equal(dirty(e.pop), 0);
  /* a bad index marks nothing and names the NPC */
  uint32_t bad[] = {1, N};
  SpError err;
  assert_int_equal(sp_population_mark_dirty_list(e.pop, bad, 2, &err),
                   SP_ERR_STATE);
  assert_non_null(strstr(err.message, "npc 4096 is out of range"));
  assert_int_equal(dirty(e.pop), 0);
  env_close(&e);
}

/* Each worker marks every other NPC of its own half, one call per NPC and
 * one list per half: the count is exact. */
static void mark_half(void *arg, int worker) {
  SpPopulation *pop = arg;
  uint32_t list[N / 4];
  size_t n = 0;
  for (size_t i = (size_t)worker * (N / 2); i < (size_t)(worker + 1) * (N / 2);
       i += 2) {
    sp_population_mark_dirty(pop, i, 1, NULL);
    list[n++] = (uint32_t)(i + 1);
  }
  sp_population_mark_dirty_list(pop, list, n, NULL);
}

static void test_marks_from_two_threads(void **state) {
  (void)state;
  Env e;
  env_open(&e);
  SpThreadPool *pool;
  assert_int_equal(sp_thread_pool_new(2, plain, &pool, NULL), SP_OK);
  for (int round = 0; round < 20; round++) {
    sp_thread_pool_run(pool, 2, mark_half, e.pop);
    assert_int_equal(dirty(e.pop), N);
    SpPlanOptions o = {2, 0, 0, pool};
    SpPlanReport r;
    assert_int_equal(sp_population_plan(e.pop, &o, &r, NULL), SP_OK);
    assert_int_equal(r.planned, N);
  }
  sp_thread_pool_free(pool);
  env_close(&e);
}

/* A new population has every NPC dirty; marked clean, a plan plans none
 * of them, then only those marked after. Warming it sets up the planner
 * and plans nothing. */
static void test_clean_then_marked(void **state) {
  (void)state;
  SpBuiltSpec *b = sp_builtin_citizen(plain);
  SpDomain *d;
  SpPopulation *pop;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, NULL), SP_OK);
  assert_int_equal(sp_population_new(d, N, plain, &pop, NULL), SP_OK);
  assert_int_equal(dirty(pop), N);
  sp_population_mark_clean(pop);
  assert_int_equal(dirty(pop), 0);
  SpPlanOptions o = {1, 0, 0, NULL};
  assert_int_equal(sp_population_warm(pop, &o, NULL), SP_OK);
  SpPopulationStats st;
  sp_population_stats(pop, &st);
  assert_int_equal(st.dirty, 0);
  uint32_t list[] = {3, 700};
  assert_int_equal(sp_population_mark_dirty_list(pop, list, 2, NULL), SP_OK);
  SpPlanReport r;
  assert_int_equal(sp_population_plan(pop, &o, &r, NULL), SP_OK);
  assert_int_equal(r.planned, 2);
  assert_int_equal(sp_population_status_of(pop, 3, NULL, NULL), SP_NPC_PLANNED);
  assert_int_equal(sp_population_status_of(pop, 4, NULL, NULL),
                   SP_NPC_UNPLANNED);
  sp_population_free(pop);
  sp_domain_free(d);
  sp_builtin_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list_counts_each_once),
      cmocka_unit_test(test_marks_from_two_threads),
      cmocka_unit_test(test_clean_then_marked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
