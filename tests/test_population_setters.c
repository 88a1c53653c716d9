/* test_population_setters.c: batch planning: setters and dirty flags, bad input, empty populations, plan caches and bytes per NPC. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "saspu_population.h"
#include "sp_builtin.h"
#include "sp_plan_cache.h"
#include "paper_facts.h"
#include "test_alloc.h"
#include "test_fixture.h"
#include "population_checks.h"

static const SpAllocator plain = {NULL, NULL};

/* ------------------------------------------------------------------ */
/* Setters and dirty flags                                            */
/* ------------------------------------------------------------------ */

static void test_dirty_flags(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  SpPopulation *pop = population_for(&f, 100, plain);
  SpError err;
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  assert_int_equal(s.dirty, 100);
  assert_int_equal(s.unplanned, 100);
  for (size_t i = 0; i < 100; i++) {
    assert_int_equal(sp_population_state(pop, i)[0], 0);
    assert_int_equal(sp_population_goal(pop, i)[6], 0);
  }
  SpPlanReport r = plan_with(pop, 1, 0, 0);
  assert_int_equal(r.planned, 100);
  assert_int_equal(r.cache_misses, 1); /* one distinct pair */
  assert_int_equal(r.cache_hits, 99);
  /* setting the same values leaves NPCs clean */
  SpValue zero[7] = {0}, work_goal[7] = {2, 2, 1, 0, 0, 1, 1};
  assert_int_equal(sp_population_set(pop, 5, zero, zero, &err), SP_OK);
  int dirty = -1;
  sp_population_status_of(pop, 5, NULL, &dirty);
  assert_int_equal(dirty, 0);
  /* a new goal makes one dirty; the old result stays readable */
  assert_int_equal(sp_population_set(pop, 5, NULL, work_goal, &err), SP_OK);
  assert_int_equal(sp_population_status_of(pop, 5, NULL, &dirty),
                   SP_NPC_PLANNED);
  assert_int_equal(dirty, 1);
  assert_int_equal(sp_population_plan_length(pop, 5), 0);
  assert_memory_equal(sp_population_goal(pop, 5), work_goal, 7);
  assert_memory_equal(sp_population_state(pop, 5), zero, 7);
  sp_population_stats(pop, &s);
  assert_int_equal(s.dirty, 1);
  /* marking twice counts once */
  assert_int_equal(sp_population_mark_dirty(pop, 5, 1, &err), SP_OK);
  assert_int_equal(sp_population_mark_dirty(pop, 10, 5, &err), SP_OK);
  sp_population_stats(pop, &s);
  assert_int_equal(s.dirty, 6);
  r = plan_with(pop, 2, 0, 0);
  assert_int_equal(r.planned, 6);
  assert_int_equal(r.waiting, 0);
  sp_population_status_of(pop, 5, NULL, &dirty);
  assert_int_equal(dirty, 0);
  assert_true(sp_population_plan_length(pop, 5) > 0);
  /* a no-op range */
  assert_int_equal(sp_population_mark_dirty(pop, 100, 0, &err), SP_OK);
  sp_population_free(pop);
  test_fixture_close(&f);
}

static void test_bulk_setters(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_acquisition_machine(plain));
  size_t n = 5000;
  SpValue *st = malloc(n * 7), *go = malloc(n * 7);
  assert_non_null(st);
  assert_non_null(go);
  random_pairs(&f, n, 21, st, go);
  SpPopulation *pop = population_for(&f, n, plain);
  SpError err;
  plan_with(pop, 1, 0, 0);
  /* a range in the middle */
  assert_int_equal(
      sp_population_set_states(pop, 1000, 2000, st + 1000 * 7, &err), SP_OK);
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  assert_true(s.dirty > 1900 &&
              s.dirty <= 2000); /* unchanged rows stay clean */
  for (size_t i = 0; i < n; i++) {
    if (i >= 1000 && i < 3000)
      assert_memory_equal(sp_population_state(pop, i), st + i * 7, 7);
    else
      assert_memory_equal(sp_population_state(pop, i), (SpValue[7]){0}, 7);
  }
  assert_int_equal(sp_population_set_states(pop, 0, n, st, &err), SP_OK);
  assert_int_equal(sp_population_set_goals(pop, 0, n, go, &err), SP_OK);
  for (size_t i = 0; i < n; i++) {
    assert_memory_equal(sp_population_state(pop, i), st + i * 7, 7);
    assert_memory_equal(sp_population_goal(pop, i), go + i * 7, 7);
  }
  plan_with(pop, 2, 0, 0);
  expect_matches_sp_plan(&f, pop);
  /* the SSCI setting: one goal for all */
  const SpNamedState *harvest = sp_builtin_goal(f.b, "harvest");
  assert_non_null(harvest);
  assert_int_equal(sp_population_set_goal_all(pop, harvest->values, &err),
                   SP_OK);
  for (size_t i = 0; i < n; i++)
    assert_memory_equal(sp_population_goal(pop, i), harvest->values, 7);
  SpPlanReport r = plan_with(pop, 2, 0, 0);
  assert_true(r.planned > 0);
  expect_matches_sp_plan(&f, pop);
  /* empty ranges are fine, even at the end */
  assert_int_equal(sp_population_set_states(pop, n, 0, st, &err), SP_OK);
  assert_int_equal(sp_population_set_goals(pop, 0, 0, NULL, &err), SP_OK);
  free(st);
  free(go);
  sp_population_free(pop);
  test_fixture_close(&f);
}

static void test_bad_input_errors(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  SpPopulation *pop = population_for(&f, 20, plain);
  SpError err;
  SpValue bad[7] = {5, 0, 0, 0, 0, 0, 0};
  assert_int_equal(sp_population_set(pop, 12, bad, NULL, &err), SP_ERR_STATE);
  assert_int_equal(err.status, SP_ERR_STATE);
  assert_int_equal(err.code, SP_E_STATE_VALUE);
  assert_int_equal(err.field, SP_FIELD_START);
  assert_int_equal(err.index, 12);
  assert_int_equal(err.variable, 0);
  assert_int_equal(err.value, 5);
  assert_string_equal(
      err.message,
      "npc 12: start value 5 is out of range for 'hunger' (3 values)");
  /* a bad goal on the last variable; the good start is not applied */
  SpValue good[7] = {1, 1, 1, 1, 1, 1, 1}, badg[7] = {0, 0, 0, 0, 0, 0, 2};
  assert_int_equal(sp_population_set(pop, 3, good, badg, &err), SP_ERR_STATE);
  assert_int_equal(err.field, SP_FIELD_GOAL);
  assert_int_equal(err.variable, 6);
  assert_string_equal(
      err.message,
      "npc 3: goal value 2 is out of range for 'working' (2 values)");
  assert_memory_equal(sp_population_state(pop, 3), (SpValue[7]){0}, 7);
  /* bulk: NPC 7 of the batch (index 9) is bad, nothing is applied */
  SpValue packed[10 * 7];
  for (int k = 0; k < 10; k++) memcpy(packed + k * 7, good, 7);
  packed[7 * 7 + 3] = 9;
  assert_int_equal(sp_population_set_states(pop, 2, 10, packed, &err),
                   SP_ERR_STATE);
  assert_int_equal(err.index, 9);
  assert_int_equal(err.variable, 3);
  assert_int_equal(err.value, 9);
  assert_non_null(strstr(err.message, "npc 9: start value 9"));
  assert_non_null(strstr(err.message, "'wandering'"));
  for (size_t i = 0; i < 20; i++)
    assert_memory_equal(sp_population_state(pop, i), (SpValue[7]){0}, 7);
  assert_int_equal(sp_population_set_goals(pop, 2, 10, packed, &err),
                   SP_ERR_STATE);
  assert_int_equal(err.field, SP_FIELD_GOAL);
  /* one goal for all: the message names no NPC */
  assert_int_equal(sp_population_set_goal_all(pop, bad, &err), SP_ERR_STATE);
  assert_int_equal(err.index, -1);
  assert_string_equal(err.message,
                      "goal value 5 is out of range for 'hunger' (3 values)");
  /* indices and ranges */
  assert_int_equal(sp_population_set(pop, 20, good, good, &err), SP_ERR_STATE);
  assert_int_equal(err.code, SP_E_LIMIT);
  assert_string_equal(err.message, "npc 20 is out of range (population of 20)");
  assert_int_equal(sp_population_set_states(pop, 15, 10, packed, &err),
                   SP_ERR_STATE);
  assert_int_equal(err.code, SP_E_LIMIT);
  assert_string_equal(err.message,
                      "npcs 15..24 are out of range (population of 20)");
  assert_int_equal(sp_population_mark_dirty(pop, 19, 2, &err), SP_ERR_STATE);
  assert_int_equal(sp_population_set_goals(pop, (size_t)-1, 2, packed, &err),
                   SP_ERR_STATE);
  /* a population over the limit */
  SpPopulation *big = (SpPopulation *)1;
  assert_int_equal(
      sp_population_new(f.d, SP_POPULATION_MAX_NPCS + 1, plain, &big, &err),
      SP_ERR_STATE);
  assert_null(big);
  assert_int_equal(err.code, SP_E_LIMIT);
  /* a cache over the limit */
  assert_int_equal(
      sp_population_set_cache_capacity(pop, (uint32_t)(1u << 30), &err),
      SP_ERR_INVALID);
  assert_int_equal(err.code, SP_E_LIMIT);
  sp_population_free(pop);
  sp_population_free(NULL);
  test_fixture_close(&f);
}

static void test_empty_population(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_IJCAI));
  SpPopulation *pop = population_for(&f, 0, plain);
  SpError err;
  SpPlanReport r = plan_with(pop, 2, 0, 0);
  assert_int_equal(r.planned, 0);
  assert_int_equal(r.waiting, 0);
  SpValue g[3] = {2, 0, 2};
  assert_int_equal(sp_population_set_goal_all(pop, g, &err), SP_OK);
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  assert_int_equal(s.npcs, 0);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* ------------------------------------------------------------------ */
/* Caches                                                             */
/* ------------------------------------------------------------------ */

static void test_cache_clear_and_capacity(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  size_t n = 8000;
  SpPopulation *pop = population_with_pairs(&f, n, 31, plain);
  plan_with(pop, 2, 0, 0);
  uint16_t *ref = snapshot(pop);
  size_t bytes = snapshot_bytes(pop);
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  assert_true(s.in_cache > 0);
  assert_true(s.cache_entries > 0);
  assert_int_equal(s.cache_capacity, 4096);
  /* clearing moves the plans into the NPCs' own slots */
  sp_population_cache_clear(pop);
  sp_population_stats(pop, &s);
  assert_int_equal(s.in_cache, 0);
  assert_int_equal(s.cache_entries, 0);
  uint16_t *snap = snapshot(pop);
  assert_memory_equal(snap, ref, bytes);
  free(snap);
  /* replan into the emptied caches, then shrink them */
  SpError err;
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  plan_with(pop, 2, 0, 0);
  assert_int_equal(sp_population_set_cache_capacity(pop, 16, &err), SP_OK);
  snap = snapshot(pop);
  assert_memory_equal(snap, ref, bytes);
  free(snap);
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  plan_with(pop, 2, 0, 0);
  sp_population_stats(pop, &s);
  assert_int_equal(s.cache_capacity, 16);
  assert_true(s.cache_entries <= 32);
  assert_true(s.cache_rejected > 0);
  snap = snapshot(pop);
  assert_memory_equal(snap, ref, bytes);
  free(snap);
  expect_matches_sp_plan(&f, pop);
  /* back to the default */
  assert_int_equal(sp_population_set_cache_capacity(pop, 0, &err), SP_OK);
  sp_population_stats(pop, &s);
  assert_int_equal(s.cache_capacity, SP_PLAN_CACHE_DEFAULT_CAPACITY);
  free(ref);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* Per NPC: state + goal + status + handle + slot, at most 64 bytes for
 * the paper domains; besides them a bit per block of eight NPCs (a 64th
 * of a byte each) and the arrays' alignment. */
static void test_bytes_per_npc(void **state) {
  (void)state;
  const size_t want[PAPER_COUNT] = {18, 32, 28};
  for (int which = 0; which < PAPER_COUNT; which++) {
    TestFixture f;
    test_fixture_open(&f, paper_spec(which));
    SpPopulation *pop = population_for(&f, 100000, plain);
    SpPopulationStats s;
    sp_population_stats(pop, &s);
    assert_int_equal(s.bytes_per_npc, want[which]);
    assert_true(s.bytes_per_npc <= 64);
    assert_true(s.bytes_npcs >= 100000 * s.bytes_per_npc);
    assert_true(s.bytes_npcs < 100000 * s.bytes_per_npc + 100000 / 64 + 1024);
    assert_int_equal(s.bytes_workers, 0);
    plan_with(pop, 2, 0, 0);
    sp_population_stats(pop, &s);
    assert_int_equal(s.workers, 2);
    assert_true(s.bytes_workers > 0);
    assert_true(s.bytes_total > s.bytes_npcs + s.bytes_workers);
    sp_population_free(pop);
    test_fixture_close(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dirty_flags),
      cmocka_unit_test(test_bulk_setters),
      cmocka_unit_test(test_bad_input_errors),
      cmocka_unit_test(test_empty_population),
      cmocka_unit_test(test_cache_clear_and_capacity),
      cmocka_unit_test(test_bytes_per_npc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
