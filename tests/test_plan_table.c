/* test_plan_table.c: the direct plan table of small domains gives every NPC sp_plan's result, whatever the goals, threads, clears and capacities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "saspu_population.h"
#include "sp_builtin.h"
#include "sp_population.h"
#include "population_checks.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

/* Named goal g of f as a condition: kept variables free (SP_ANY). */
static void condition_goal(const TestFixture *f, int g, SpValue *out) {
  const SpNamedState *named = &f->b->goals[g];
  for (int v = 0; v < f->m; v++)
    out[v] = named->keep != NULL && named->keep[v] ? SP_ANY : named->values[v];
}

/* Paper domain `which` with its named goals as conditions (packed into
 * *goals, *count of them) and a population of n NPCs. */
static SpPopulation *open_case(TestFixture *f, int which, size_t n,
                               SpValue **goals, int *count) {
  size_t m;
  test_fixture_open(f, paper_spec(which));
  m = (size_t)f->m;
  *count = f->b->goal_count;
  *goals = malloc((size_t)*count * m);
  assert_non_null(*goals);
  for (int g = 0; g < *count; g++) condition_goal(f, g, *goals + (size_t)g * m);
  SpPopulation *pop = NULL;
  SpError err;
  assert_int_equal(sp_population_new(f->d, n, plain, &pop, &err), SP_OK);
  return pop;
}

static void close_case(TestFixture *f, SpPopulation *pop, SpValue *goals) {
  free(goals);
  sp_population_free(pop);
  test_fixture_close(f);
}

static SpPlanReport plan(SpPopulation *pop, int threads) {
  SpPlanOptions o = {threads, 0, 0, NULL};
  SpPlanReport r;
  SpError err;
  assert_int_equal(sp_population_plan(pop, &o, &r, &err), SP_OK);
  assert_int_equal(r.waiting, 0);
  return r;
}

/* Random starts, goals drawn from `goals` (packed), for every NPC. */
static void load(const TestFixture *f, SpPopulation *pop, RdRng *rng,
                 const SpValue *goals, int goal_count) {
  size_t n = sp_population_size(pop), m = (size_t)f->m;
  SpValue *st = malloc(n * m + 1), *go = malloc(n * m + 1);
  assert_non_null(st);
  assert_non_null(go);
  for (size_t i = 0; i < n; i++) {
    test_random_state(f->d, rng, st + i * m);
    memcpy(go + i * m, goals + (rd_next(rng) % (uint64_t)goal_count) * m, m);
  }
  SpError err;
  assert_int_equal(sp_population_set_states(pop, 0, n, st, &err), SP_OK);
  assert_int_equal(sp_population_set_goals(pop, 0, n, go, &err), SP_OK);
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  free(st);
  free(go);
}

/* Every start of each paper domain against every named goal as a
 * condition, twice (the second copy is served by the table): all
 * results are sp_plan's, on one thread each distinct pair misses once,
 * and the table holds a cell for each. */
static void test_every_state_and_goal(void **state) {
  (void)state;
  for (int which = 0; which < 3; which++) {
    TestFixture f;
    test_fixture_open(&f, paper_spec(which));
    size_t m = (size_t)f.m;
    long states = 1;
    for (int v = 0; v < f.m; v++) states *= sp_variable_value_count(f.d, v);
    size_t pairs = (size_t)states * (size_t)f.b->goal_count;
    SpPopulation *pop = NULL;
    SpError err;
    assert_int_equal(sp_population_new(f.d, 2 * pairs, plain, &pop, &err),
                     SP_OK);
    SpValue *goal = malloc(m), *s0 = malloc(m);
    for (size_t copy = 0; copy < 2; copy++) {
      for (long k = 0; k < states; k++) {
        test_decode_state(f.d, k, s0);
        for (int g = 0; g < f.b->goal_count; g++) {
          condition_goal(&f, g, goal);
          size_t i =
              copy * pairs + (size_t)k * (size_t)f.b->goal_count + (size_t)g;
          assert_int_equal(sp_population_set(pop, i, s0, goal, &err), SP_OK);
        }
      }
    }
    SpPlanReport r = plan(pop, 1);
    assert_non_null(pop->table);
    assert_int_equal(r.cache_misses, pairs);
    assert_int_equal(r.cache_hits, pairs);
    assert_true(expect_matches_sp_plan(&f, pop) < 2 * pairs);
    /* the second copy came from the table: one cell per stored entry */
    SpPopulationStats s;
    sp_population_stats(pop, &s);
    size_t cells = 0;
    for (size_t c = 0; c < pop->table->cell_count; c++)
      cells += atomic_load(&pop->table->cells[c]) != SP_TABLE_EMPTY;
    assert_int_equal(cells, s.cache_entries);
    assert_true(cells > 0);
    free(goal);
    free(s0);
    sp_population_free(pop);
    test_fixture_close(&f);
  }
}

/* Frames of random starts over the named condition goals, on 1 and 3
 * workers, with the table on and off: the same results as sp_plan each
 * frame, and the table-on frames after the first plan almost nothing
 * afresh. */
static void test_frames_threads_and_baseline(void **state) {
  (void)state;
  for (int which = 0; which < 3; which++) {
    TestFixture f;
    SpValue *goals;
    int gc;
    SpPopulation *pop = open_case(&f, which, 20000, &goals, &gc);
    RdRng rng = {(uint64_t)which * 77u + 5u};
    for (int frame = 0; frame < 6; frame++) {
      sp__population_use_table(pop, frame != 3);
      load(&f, pop, &rng, goals, gc);
      plan(pop, frame % 2 ? 3 : 1);
      expect_matches_sp_plan(&f, pop);
    }
    close_case(&f, pop, goals);
  }
}

/* More distinct goals than the table has rows (random total goals): the
 * NPCs whose goals have no row go through the hash caches, with the
 * same results. */
static void test_more_goals_than_rows(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, paper_spec(1));
  size_t m = (size_t)f.m;
  int gc = 4 * SP_PLAN_TABLE_GOALS;
  SpValue *goals = malloc((size_t)gc * m);
  RdRng rng = {99};
  for (int g = 0; g < gc; g++)
    test_random_state(f.d, &rng, goals + (size_t)g * m);
  SpPopulation *pop = NULL;
  SpError err;
  assert_int_equal(sp_population_new(f.d, 30000, plain, &pop, &err), SP_OK);
  for (int frame = 0; frame < 3; frame++) {
    load(&f, pop, &rng, goals, gc);
    plan(pop, frame == 1 ? 2 : 1);
    expect_matches_sp_plan(&f, pop);
  }
  free(goals);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* Clearing the caches empties the table (its cells point into them), and
 * a cache of one entry leaves most plans in the NPCs' own slots, which
 * the table must not hand to other NPCs: results stay sp_plan's. */
static void test_clear_and_small_capacity(void **state) {
  (void)state;
  TestFixture f;
  SpValue *goals;
  int gc;
  SpPopulation *pop = open_case(&f, 2, 5000, &goals, &gc);
  SpError err;
  RdRng rng = {3};
  load(&f, pop, &rng, goals, gc);
  plan(pop, 2);
  sp_population_cache_clear(pop);
  expect_matches_sp_plan(&f, pop);
  load(&f, pop, &rng, goals, gc);
  plan(pop, 1);
  expect_matches_sp_plan(&f, pop);
  assert_int_equal(sp_population_set_cache_capacity(pop, 1, &err), SP_OK);
  for (int frame = 0; frame < 2; frame++) {
    load(&f, pop, &rng, goals, gc);
    plan(pop, 1 + frame);
    expect_matches_sp_plan(&f, pop);
  }
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  assert_true(s.in_cache < s.planned); /* most plans are slot copies */
  close_case(&f, pop, goals);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_state_and_goal),
      cmocka_unit_test(test_frames_threads_and_baseline),
      cmocka_unit_test(test_more_goals_than_rows),
      cmocka_unit_test(test_clear_and_small_capacity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
