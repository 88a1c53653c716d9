/* test_population.c: batch planning: results equal sp_plan's for any thread count and cache setting, accessors, the planning budget. */
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
/* Results                                                            */
/* ------------------------------------------------------------------ */

/* 10k NPCs of each paper domain with random pairs: every plan is
 * sp_plan's; the report adds up. */
static void test_matches_sp_plan(void **state) {
  (void)state;
  for (int which = 0; which < PAPER_COUNT; which++) {
    TestFixture f;
    test_fixture_open(&f, paper_spec(which));
    size_t n = 10000;
    SpPopulation *pop =
        population_with_pairs(&f, n, 11 + (uint64_t)which, plain);
    SpPlanReport r;
    SpError err;
    assert_int_equal(sp_population_plan(pop, NULL, &r, &err), SP_OK);
    assert_int_equal(r.planned, n);
    assert_int_equal(r.waiting, 0);
    assert_int_equal(r.cache_hits + r.cache_misses, n);
    assert_true(r.cache_hits > 0);
    assert_true(r.threads >= 1);
    size_t none = expect_matches_sp_plan(&f, pop);
    assert_int_equal(r.failures, none);
    assert_true(none > 0 && none < n);
    SpPopulationStats s;
    sp_population_stats(pop, &s);
    assert_int_equal(s.planned + s.no_plan, n);
    assert_int_equal(s.unplanned, 0);
    assert_int_equal(s.dirty, 0);
    assert_true(s.in_cache > 0);
    assert_int_equal(s.cache_hits, r.cache_hits);
    /* nothing dirty: a second call plans nothing */
    assert_int_equal(sp_population_plan(pop, NULL, &r, &err), SP_OK);
    assert_int_equal(r.planned, 0);
    sp_population_free(pop);
    test_fixture_close(&f);
  }
}

/* Threads 1, 2, 4 and cache on/off give byte-identical results, on fresh
 * populations and when the same population is replanned. */
static void test_threads_and_cache_identical(void **state) {
  (void)state;
  for (int which = 0; which < PAPER_COUNT; which++) {
    TestFixture f;
    test_fixture_open(&f, paper_spec(which));
    size_t n = 10000;
    uint16_t *ref = NULL;
    size_t bytes = 0;
    SpPopulation *again = population_with_pairs(&f, n, 77, plain);
    const int threads[] = {1, 2, 4};
    for (int t = 0; t < 3; t++) {
      for (int no_cache = 0; no_cache < 2; no_cache++) {
        SpPopulation *pop = population_with_pairs(&f, n, 77, plain);
        SpPlanReport r = plan_with(pop, threads[t], no_cache, 0);
        assert_int_equal(r.planned, n);
        assert_int_equal(r.threads, threads[t]);
        if (no_cache) {
          assert_int_equal(r.cache_hits + r.cache_misses, 0);
        }
        uint16_t *snap = snapshot(pop);
        if (ref == NULL) {
          ref = snap;
          bytes = snapshot_bytes(pop);
          expect_matches_sp_plan(&f, pop);
        } else {
          assert_memory_equal(snap, ref, bytes);
          free(snap);
        }
        sp_population_free(pop);

        SpError err;
        assert_int_equal(sp_population_mark_dirty(again, 0, n, &err), SP_OK);
        r = plan_with(again, threads[t], no_cache, 0);
        assert_int_equal(r.planned, n);
        snap = snapshot(again);
        assert_memory_equal(snap, ref, bytes);
        free(snap);
      }
    }
    free(ref);
    sp_population_free(again);
    test_fixture_close(&f);
  }
}

/* Every NPC's plan read in place (sp_population_plan_ids) is the copy
 * sp_population_plan_of gives, id for id at `width` bytes; NPCs without
 * a plan give NULL and -1. */
static void expect_ids_in_place(const SpPopulation *pop, size_t n, int width) {
  uint16_t *copy = malloc(512 * sizeof *copy);
  assert_non_null(copy);
  for (size_t i = 0; i < n; i++) {
    int len = 0, in_place = 0, w = 0;
    SpStatus st = sp_population_plan_of(pop, i, copy, &len);
    const uint8_t *ids = sp_population_plan_ids(pop, i, &in_place, &w);
    assert_int_equal(w, width);
    if (st != SP_OK) {
      assert_null(ids);
      assert_int_equal(in_place, -1);
      continue;
    }
    assert_int_equal(in_place, len);
    for (int k = 0; k < len; k++) {
      uint16_t id = ids[k];
      if (width == 2) memcpy(&id, ids + 2 * k, sizeof id);
      assert_int_equal(id, copy[k]);
    }
  }
  free(copy);
}

/* A domain with 280 actions (2-byte ids) and 70 variables (9-word keys). */
static void test_wide_domain(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_oneprv_5(plain, 70));
  size_t n = 3000;
  SpPopulation *pop = population_with_pairs(&f, n, 5, plain);
  plan_with(pop, 2, 0, 0);
  expect_matches_sp_plan(&f, pop);
  expect_ids_in_place(pop, n, 2);
  uint16_t *ref = snapshot(pop);
  SpError err;
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  plan_with(pop, 1, 1, 0);
  expect_ids_in_place(pop, n, 2);
  uint16_t *snap = snapshot(pop);
  assert_memory_equal(snap, ref, snapshot_bytes(pop));
  /* the SSCI-style pair: all 0 -> all 4, 280 actions */
  SpValue s0[70] = {0}, goal[70];
  memset(goal, 4, sizeof goal);
  assert_int_equal(sp_population_set(pop, 17, s0, goal, &err), SP_OK);
  plan_with(pop, 2, 0, 0);
  assert_int_equal(sp_population_plan_length(pop, 17), 280);
  expect_matches_sp_plan(&f, pop);
  expect_ids_in_place(pop, n, 2);
  free(ref);
  free(snap);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* The paper's worked examples read back through every accessor. */
static void test_plan_accessors(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  SpPopulation *pop = population_for(&f, 4, plain);
  SpError err;
  const SpValue *s0 = paper_sigma3_start, *feed = paper_sigma3_goal;
  SpValue stuck[3] = {2, 0, 0}, back[3] = {0, 0, 0};
  const int steps = PAPER_SIGMA3_LENGTH; /* 7 */
  uint16_t plan[16];
  int len = -1;
  /* before planning */
  assert_int_equal(sp_population_status_of(pop, 0, NULL, NULL),
                   SP_NPC_UNPLANNED);
  assert_int_equal(sp_population_plan_of(pop, 0, plan, &len), SP_ERR_STATE);
  assert_int_equal(len, 0);
  assert_int_equal(sp_population_plan_length(pop, 0), -1);
  expect_ids_in_place(pop, 4, 1); /* all unplanned */
  assert_int_equal(sp_population_set(pop, 0, s0, feed, &err), SP_OK);
  assert_int_equal(sp_population_set(pop, 1, s0, feed, &err), SP_OK);
  assert_int_equal(sp_population_set(pop, 2, stuck, back, &err), SP_OK);
  /* NPC 3 keeps (all 0, all 0): the empty plan */
  for (int no_cache = 0; no_cache < 2; no_cache++) {
    assert_int_equal(sp_population_mark_dirty(pop, 0, 4, &err), SP_OK);
    plan_with(pop, 1, no_cache, 0);
    expect_ids_in_place(pop, 4, 1); /* plans, no plan, the empty plan */
    for (size_t i = 0; i < 2; i++) {
      assert_int_equal(sp_population_plan_of(pop, i, plan, &len), SP_OK);
      assert_int_equal(len, steps);
      assert_int_equal(sp_population_plan_length(pop, i), steps);
      for (int k = 0; k < steps; k++) {
        assert_string_equal(sp_action_name(f.d, plan[k]), paper_sigma3_plan[k]);
        assert_int_equal(sp_population_plan_step(pop, i, k), plan[k]);
      }
      assert_int_equal(sp_population_plan_step(pop, i, steps), -1);
      assert_int_equal(sp_population_plan_step(pop, i, -1), -1);
    }
    SpFailureCode code;
    assert_int_equal(sp_population_status_of(pop, 2, &code, NULL),
                     SP_NPC_NO_PLAN);
    assert_int_not_equal(code, SP_FAIL_NONE);
    assert_int_equal(sp_population_plan_of(pop, 2, plan, &len), SP_NO_PLAN);
    assert_int_equal(sp_population_plan_step(pop, 2, 0), -1);
    assert_int_equal(sp_population_plan_of(pop, 3, plan, &len), SP_OK);
    assert_int_equal(len, 0);
    assert_int_equal(sp_population_status_of(pop, 3, NULL, NULL),
                     SP_NPC_PLANNED);
    /* the whole failure record on demand */
    SpFailure full, direct;
    assert_int_equal(sp_population_explain(pop, 2, &full, &err), SP_NO_PLAN);
    int l2;
    assert_int_equal(sp_plan(f.d, f.ws, stuck, back, plan, &l2, &direct),
                     SP_NO_PLAN);
    assert_memory_equal(&full, &direct, sizeof full);
    assert_int_equal(full.code, code);
    assert_int_equal(sp_population_explain(pop, 0, &full, &err), SP_OK);
  }
  /* out of range */
  assert_int_equal(sp_population_plan_of(pop, 4, plan, &len), SP_ERR_STATE);
  assert_int_equal(sp_population_plan_length(pop, 4), -1);
  assert_int_equal(sp_population_plan_step(pop, 4, 0), -1);
  int len4 = 0, width4 = 0;
  assert_null(sp_population_plan_ids(pop, 4, &len4, &width4));
  assert_int_equal(len4, -1);
  assert_int_equal(sp_population_explain(pop, 4, NULL, &err), SP_ERR_STATE);
  assert_non_null(strstr(err.message, "npc 4 is out of range"));
  assert_ptr_equal(sp_population_domain(pop), f.d);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* ------------------------------------------------------------------ */
/* Budget                                                             */
/* ------------------------------------------------------------------ */

/* A budget too small for anything plans one chunk per call and resumes
 * where it stopped; a big one plans everything at once. */
static void test_budget_resumes(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  size_t n = 20 * SP_POPULATION_CHUNK + 100; /* 21 chunks */
  SpPopulation *pop = population_with_pairs(&f, n, 3, plain);
  size_t calls = 0, planned = 0;
  for (;;) {
    SpPlanReport r = plan_with(pop, 1, 1, 1);
    calls++;
    assert_true(r.planned >= 1);
    planned += r.planned;
    assert_int_equal(r.waiting, n - planned);
    if (r.waiting == 0) break;
    assert_true(calls < 100);
  }
  assert_int_equal(calls, 21);
  expect_matches_sp_plan(&f, pop);
  /* two workers: still at least one chunk per call, all eventually */
  SpError err;
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  calls = 0;
  for (;;) {
    SpPlanReport r = plan_with(pop, 2, 0, 1);
    calls++;
    assert_true(r.planned >= 1);
    if (r.waiting == 0) break;
    assert_true(calls < 100);
  }
  expect_matches_sp_plan(&f, pop);
  /* a generous budget: one call */
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  SpPlanReport r = plan_with(pop, 2, 0, 10ull * 1000 * 1000 * 1000);
  assert_int_equal(r.planned, n);
  assert_int_equal(r.waiting, 0);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* No starvation: NPCs at the front are made dirty again before every
 * call, yet the cursor walks on and reaches every chunk. */
static void test_budget_no_starvation(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_acquisition_machine(plain));
  size_t chunks = 10, n = chunks * SP_POPULATION_CHUNK;
  SpPopulation *pop = population_with_pairs(&f, n, 9, plain);
  SpError err;
  for (size_t call = 0; call < chunks; call++) {
    assert_int_equal(
        sp_population_mark_dirty(pop, 0, SP_POPULATION_CHUNK, &err), SP_OK);
    SpPlanReport r = plan_with(pop, 1, 0, 1);
    assert_int_equal(r.planned, SP_POPULATION_CHUNK);
  }
  /* each chunk planned once, the front again dirty; the next call
   * wraps round to it */
  for (size_t i = 0; i < n; i++) {
    int dirty;
    SpNpcStatus s = sp_population_status_of(pop, i, NULL, &dirty);
    assert_int_not_equal(s, SP_NPC_UNPLANNED);
    assert_int_equal(dirty, i < SP_POPULATION_CHUNK);
  }
  SpPlanReport r = plan_with(pop, 1, 0, 1);
  assert_int_equal(r.planned, SP_POPULATION_CHUNK);
  assert_int_equal(r.waiting, 0);
  expect_matches_sp_plan(&f, pop);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* A spent budget still reaches a lone dirty NPC far from the cursor in
 * one call: clean chunks are skipped, not counted as progress. */
static void test_budget_skips_clean_chunks(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  size_t n = 200 * SP_POPULATION_CHUNK;
  SpPopulation *pop = population_with_pairs(&f, n, 5, plain);
  SpError err;
  assert_int_equal(plan_with(pop, 1, 0, 0).waiting, 0);
  for (int threads = 1; threads <= 2; threads++) {
    size_t lone = n - 1 - (size_t)threads * 3 * SP_POPULATION_CHUNK;
    assert_int_equal(sp_population_mark_dirty(pop, lone, 1, &err), SP_OK);
    SpPlanReport r = plan_with(pop, threads, 0, 1);
    assert_int_equal(r.planned, 1);
    assert_int_equal(r.waiting, 0);
  }
  expect_matches_sp_plan(&f, pop);
  sp_population_free(pop);
  test_fixture_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matches_sp_plan),
      cmocka_unit_test(test_threads_and_cache_identical),
      cmocka_unit_test(test_wide_domain),
      cmocka_unit_test(test_plan_accessors),
      cmocka_unit_test(test_budget_resumes),
      cmocka_unit_test(test_budget_no_starvation),
      cmocka_unit_test(test_budget_skips_clean_chunks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
