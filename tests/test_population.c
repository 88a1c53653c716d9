/* test_population.c: batch planning: results equal sp_plan's for any thread count and cache setting, budget, setters, errors, memory. */
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

/* ------------------------------------------------------------------ */
/* Domains, random pairs, snapshots                                   */
/* ------------------------------------------------------------------ */

static const SpAllocator plain = {NULL, NULL};

enum { PAPER_HORSE, PAPER_CITIZEN, PAPER_MACHINE, PAPER_COUNT };

static SpBuiltSpec *paper_spec(int which) {
  switch (which) {
  case PAPER_HORSE: return sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  case PAPER_CITIZEN: return sp_builtin_citizen(plain);
  default: return sp_builtin_acquisition_machine(plain);
  }
}

/* n random pairs, packed: starts random; goals a third each random, a
 * named goal resolved for the start, or the start with a few changes. */
static void random_pairs(const TestFixture *f, size_t n, uint64_t seed,
                         SpValue *starts, SpValue *goals) {
  RdRng rng = {seed};
  size_t m = (size_t)f->m;
  for (size_t i = 0; i < n; i++) {
    SpValue *s = starts + i * m, *g = goals + i * m;
    test_random_state(f->d, &rng, s);
    uint64_t kind = rd_next(&rng) % 3;
    if (kind == 0 || f->b->goal_count == 0) {
      test_random_state(f->d, &rng, g);
    } else if (kind == 1) {
      const SpNamedState *named =
          &f->b->goals[rd_next(&rng) % (uint64_t)f->b->goal_count];
      sp_builtin_resolve_goal(f->b, named, s, g);
    } else {
      memcpy(g, s, m);
      for (int t = 0; t < 2; t++) {
        int v = (int)(rd_next(&rng) % m);
        g[v] = (SpValue)(rd_next(&rng) %
                         (uint64_t)sp_variable_value_count(f->d, v));
      }
    }
  }
}

/* A population of n NPCs of f's domain, all at (all 0, all 0). */
static SpPopulation *population_for(const TestFixture *f, size_t n, SpAllocator a) {
  SpPopulation *pop = NULL;
  SpError err;
  if (sp_population_new(f->d, n, a, &pop, &err) != SP_OK)
    fail_msg("population of %zu: %s", n, err.message);
  return pop;
}

static SpPopulation *population_with_pairs(const TestFixture *f, size_t n,
                                           uint64_t seed, SpAllocator a) {
  SpValue *st = malloc(n * (size_t)f->m + 1), *go = malloc(n * (size_t)f->m + 1);
  assert_non_null(st);
  assert_non_null(go);
  random_pairs(f, n, seed, st, go);
  SpPopulation *pop = population_for(f, n, a);
  SpError err;
  assert_int_equal(sp_population_set_states(pop, 0, n, st, &err), SP_OK);
  assert_int_equal(sp_population_set_goals(pop, 0, n, go, &err), SP_OK);
  free(st);
  free(go);
  return pop;
}

/* Every NPC's result as a flat record: status, code, dirty, length, ids. */
static uint16_t *snapshot(const SpPopulation *pop) {
  size_t n = sp_population_size(pop);
  size_t w = (size_t)sp_domain_action_count(sp_population_domain(pop)) + 4;
  uint16_t *out = calloc(n * w + 1, sizeof *out);
  assert_non_null(out);
  for (size_t i = 0; i < n; i++) {
    uint16_t *r = out + i * w;
    SpFailureCode code;
    int dirty, len = 0;
    r[0] = (uint16_t)sp_population_status_of(pop, i, &code, &dirty);
    r[1] = (uint16_t)code;
    r[2] = (uint16_t)dirty;
    sp_population_plan_of(pop, i, r + 4, &len);
    r[3] = (uint16_t)len;
  }
  return out;
}

static size_t snapshot_bytes(const SpPopulation *pop) {
  size_t w = (size_t)sp_domain_action_count(sp_population_domain(pop)) + 4;
  return sp_population_size(pop) * w * sizeof(uint16_t);
}

static SpPlanReport plan_with(SpPopulation *pop, int threads, int no_cache,
                              uint64_t budget_ns) {
  SpPlanOptions o = {threads, no_cache, budget_ns, NULL};
  SpPlanReport r;
  SpError err;
  assert_int_equal(sp_population_plan(pop, &o, &r, &err), SP_OK);
  return r;
}

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
    SpPopulation *pop = population_with_pairs(&f, n, 11 + (uint64_t)which, plain);
    SpPlanReport r;
    SpError err;
    assert_int_equal(sp_population_plan(pop, NULL, &r, &err), SP_OK);
    assert_int_equal(r.planned, n);
    assert_int_equal(r.waiting, 0);
    assert_int_equal(r.cache_hits + r.cache_misses, n);
    assert_true(r.cache_hits > 0);
    assert_true(r.threads >= 1);
    size_t none = test_population_matches_sp_plan(&f, pop);
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
          test_population_matches_sp_plan(&f, pop);
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

/* A domain with 280 actions (2-byte ids) and 70 variables (9-word keys). */
static void test_wide_domain(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_oneprv_5(plain, 70));
  size_t n = 3000;
  SpPopulation *pop = population_with_pairs(&f, n, 5, plain);
  plan_with(pop, 2, 0, 0);
  test_population_matches_sp_plan(&f, pop);
  uint16_t *ref = snapshot(pop);
  SpError err;
  assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
  plan_with(pop, 1, 1, 0);
  uint16_t *snap = snapshot(pop);
  assert_memory_equal(snap, ref, snapshot_bytes(pop));
  /* the SSCI-style pair: all 0 -> all 4, 280 actions */
  SpValue s0[70] = {0}, goal[70];
  memset(goal, 4, sizeof goal);
  assert_int_equal(sp_population_set(pop, 17, s0, goal, &err), SP_OK);
  plan_with(pop, 2, 0, 0);
  assert_int_equal(sp_population_plan_length(pop, 17), 280);
  test_population_matches_sp_plan(&f, pop);
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
  assert_int_equal(sp_population_status_of(pop, 0, NULL, NULL), SP_NPC_UNPLANNED);
  assert_int_equal(sp_population_plan_of(pop, 0, plan, &len), SP_ERR_STATE);
  assert_int_equal(len, 0);
  assert_int_equal(sp_population_plan_length(pop, 0), -1);
  assert_int_equal(sp_population_set(pop, 0, s0, feed, &err), SP_OK);
  assert_int_equal(sp_population_set(pop, 1, s0, feed, &err), SP_OK);
  assert_int_equal(sp_population_set(pop, 2, stuck, back, &err), SP_OK);
  /* NPC 3 keeps (all 0, all 0): the empty plan */
  for (int no_cache = 0; no_cache < 2; no_cache++) {
    assert_int_equal(sp_population_mark_dirty(pop, 0, 4, &err), SP_OK);
    plan_with(pop, 1, no_cache, 0);
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
    assert_int_equal(sp_population_status_of(pop, 2, &code, NULL), SP_NPC_NO_PLAN);
    assert_int_not_equal(code, SP_FAIL_NONE);
    assert_int_equal(sp_population_plan_of(pop, 2, plan, &len), SP_NO_PLAN);
    assert_int_equal(sp_population_plan_step(pop, 2, 0), -1);
    assert_int_equal(sp_population_plan_of(pop, 3, plan, &len), SP_OK);
    assert_int_equal(len, 0);
    assert_int_equal(sp_population_status_of(pop, 3, NULL, NULL), SP_NPC_PLANNED);
    /* the whole failure record on demand */
    SpFailure full, direct;
    assert_int_equal(sp_population_explain(pop, 2, &full, &err), SP_NO_PLAN);
    int l2;
    assert_int_equal(sp_plan(f.d, f.ws, stuck, back, plan, &l2, &direct), SP_NO_PLAN);
    assert_memory_equal(&full, &direct, sizeof full);
    assert_int_equal(full.code, code);
    assert_int_equal(sp_population_explain(pop, 0, &full, &err), SP_OK);
  }
  /* out of range */
  assert_int_equal(sp_population_plan_of(pop, 4, plan, &len), SP_ERR_STATE);
  assert_int_equal(sp_population_plan_length(pop, 4), -1);
  assert_int_equal(sp_population_plan_step(pop, 4, 0), -1);
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
  test_population_matches_sp_plan(&f, pop);
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
  test_population_matches_sp_plan(&f, pop);
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
    assert_int_equal(sp_population_mark_dirty(pop, 0, SP_POPULATION_CHUNK, &err),
                     SP_OK);
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
  test_population_matches_sp_plan(&f, pop);
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
  test_population_matches_sp_plan(&f, pop);
  sp_population_free(pop);
  test_fixture_close(&f);
}

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
  assert_int_equal(sp_population_status_of(pop, 5, NULL, &dirty), SP_NPC_PLANNED);
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
  assert_int_equal(sp_population_set_states(pop, 1000, 2000, st + 1000 * 7, &err),
                   SP_OK);
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  assert_true(s.dirty > 1900 && s.dirty <= 2000); /* unchanged rows stay clean */
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
  test_population_matches_sp_plan(&f, pop);
  /* the SSCI setting: one goal for all */
  const SpNamedState *harvest = sp_builtin_goal(f.b, "harvest");
  assert_non_null(harvest);
  assert_int_equal(sp_population_set_goal_all(pop, harvest->values, &err), SP_OK);
  for (size_t i = 0; i < n; i++)
    assert_memory_equal(sp_population_goal(pop, i), harvest->values, 7);
  SpPlanReport r = plan_with(pop, 2, 0, 0);
  assert_true(r.planned > 0);
  test_population_matches_sp_plan(&f, pop);
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
  assert_string_equal(err.message,
                      "npc 12: start value 5 is out of range for 'hunger' (3 values)");
  /* a bad goal on the last variable; the good start is not applied */
  SpValue good[7] = {1, 1, 1, 1, 1, 1, 1}, badg[7] = {0, 0, 0, 0, 0, 0, 2};
  assert_int_equal(sp_population_set(pop, 3, good, badg, &err), SP_ERR_STATE);
  assert_int_equal(err.field, SP_FIELD_GOAL);
  assert_int_equal(err.variable, 6);
  assert_string_equal(err.message,
                      "npc 3: goal value 2 is out of range for 'working' (2 values)");
  assert_memory_equal(sp_population_state(pop, 3), (SpValue[7]){0}, 7);
  /* bulk: NPC 7 of the batch (index 9) is bad, nothing is applied */
  SpValue packed[10 * 7];
  for (int k = 0; k < 10; k++) memcpy(packed + k * 7, good, 7);
  packed[7 * 7 + 3] = 9;
  assert_int_equal(sp_population_set_states(pop, 2, 10, packed, &err), SP_ERR_STATE);
  assert_int_equal(err.index, 9);
  assert_int_equal(err.variable, 3);
  assert_int_equal(err.value, 9);
  assert_non_null(strstr(err.message, "npc 9: start value 9"));
  assert_non_null(strstr(err.message, "'wandering'"));
  for (size_t i = 0; i < 20; i++)
    assert_memory_equal(sp_population_state(pop, i), (SpValue[7]){0}, 7);
  assert_int_equal(sp_population_set_goals(pop, 2, 10, packed, &err), SP_ERR_STATE);
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
  assert_int_equal(sp_population_set_states(pop, 15, 10, packed, &err), SP_ERR_STATE);
  assert_int_equal(err.code, SP_E_LIMIT);
  assert_string_equal(err.message,
                      "npcs 15..24 are out of range (population of 20)");
  assert_int_equal(sp_population_mark_dirty(pop, 19, 2, &err), SP_ERR_STATE);
  assert_int_equal(sp_population_set_goals(pop, (size_t)-1, 2, packed, &err),
                   SP_ERR_STATE);
  /* a population over the limit */
  SpPopulation *big = (SpPopulation *)1;
  assert_int_equal(sp_population_new(f.d, SP_POPULATION_MAX_NPCS + 1, plain, &big,
                                     &err),
                   SP_ERR_STATE);
  assert_null(big);
  assert_int_equal(err.code, SP_E_LIMIT);
  /* a cache over the limit */
  assert_int_equal(sp_population_set_cache_capacity(
                       pop, (uint32_t)(1u << 30), &err),
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
  test_population_matches_sp_plan(&f, pop);
  /* back to the default */
  assert_int_equal(sp_population_set_cache_capacity(pop, 0, &err), SP_OK);
  sp_population_stats(pop, &s);
  assert_int_equal(s.cache_capacity, SP_PLAN_CACHE_DEFAULT_CAPACITY);
  free(ref);
  sp_population_free(pop);
  test_fixture_close(&f);
}

/* Per NPC: state + goal + status + handle + slot, at most 64 bytes for
 * the paper domains. */
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
    assert_true(s.bytes_npcs < 100000 * s.bytes_per_npc + 1024);
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
  assert_int_equal(live_threads(), base + 2);
  sp_thread_pool_shrink(pool, 5); /* no growth */
  assert_int_equal(sp_thread_pool_size(pool), 3);
  for (int round = 0; round < 50; round++)
    sp_thread_pool_run(pool, 8, count_job, &t);
  assert_int_equal(t.count[2][0], 51);
  assert_int_equal(t.count[3][0], 1);
  sp_thread_pool_shrink(pool, 0); /* to one: the caller alone */
  assert_int_equal(live_threads(), base);
  sp_thread_pool_run(pool, 8, count_job, &t);
  assert_int_equal(t.count[0][0], 52);
  assert_int_equal(t.count[1][0], 51);
  sp_thread_pool_free(pool);
  assert_int_equal(live_threads(), base);
  assert_int_equal(cnt.live, 0);
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
    test_population_matches_sp_plan(&f1, p1);
    test_population_matches_sp_plan(&f2, p2);
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
        r = plan_with(pop, cases[c].threads, cases[c].no_cache, cases[c].budget);
      } while (r.waiting > 0);
      SpFailure fail;
      sp_population_explain(pop, 7, &fail, &err);
      assert_int_equal(cnt.calls, before);
    }
    test_population_matches_sp_plan(&f, pop);
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
  test_population_matches_sp_plan(&f, pop);
  /* new pairs for a slice at a time; the rest keep their entries */
  SpValue *st = malloc(n * (size_t)f.m), *go = malloc(n * (size_t)f.m);
  assert_non_null(st);
  assert_non_null(go);
  size_t before = s.cache_entries;
  for (int round = 0; round < 12; round++) {
    size_t first = (size_t)round * 250u;
    random_pairs(&f, 250, 500 + (uint64_t)round, st, go);
    assert_int_equal(sp_population_set_states(pop, first, 250, st, &err), SP_OK);
    assert_int_equal(sp_population_set_goals(pop, first, 250, go, &err), SP_OK);
    plan_with(pop, 1 + round % 2, 0, 0);
    test_population_matches_sp_plan(&f, pop);
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
    test_population_matches_sp_plan(&f, pop);
    sp_population_free(pop);
    assert_int_equal(cnt.live, 0);
  }
  /* pool, 3 records' workspaces and scratch, 3 caches, worker records */
  assert_true(failures_seen >= 8);
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
      cmocka_unit_test(test_dirty_flags),
      cmocka_unit_test(test_bulk_setters),
      cmocka_unit_test(test_bad_input_errors),
      cmocka_unit_test(test_empty_population),
      cmocka_unit_test(test_cache_clear_and_capacity),
      cmocka_unit_test(test_bytes_per_npc),
      cmocka_unit_test(test_thread_pool),
      cmocka_unit_test(test_thread_pool_shrink),
      cmocka_unit_test(test_shared_pool),
      cmocka_unit_test(test_no_allocation_when_planning),
      cmocka_unit_test(test_cache_grows_with_use),
      cmocka_unit_test(test_failing_allocator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
