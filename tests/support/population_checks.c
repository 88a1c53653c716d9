/* population_checks.c: what the population tests share: the paper domains, random pairs, populations, the check against sp_plan, snapshots. */
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

SpBuiltSpec *paper_spec(int which) {
  switch (which) {
  case PAPER_HORSE: return sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  case PAPER_CITIZEN: return sp_builtin_citizen(plain);
  default: return sp_builtin_acquisition_machine(plain);
  }
}

/* n random pairs, packed: starts random; goals a third each random, a
 * named goal resolved for the start, or the start with a few changes. */
void random_pairs(const TestFixture *f, size_t n, uint64_t seed,
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
SpPopulation *population_for(const TestFixture *f, size_t n, SpAllocator a) {
  SpPopulation *pop = NULL;
  SpError err;
  if (sp_population_new(f->d, n, a, &pop, &err) != SP_OK)
    fail_msg("population of %zu: %s", n, err.message);
  return pop;
}

SpPopulation *population_with_pairs(const TestFixture *f, size_t n,
                                    uint64_t seed, SpAllocator a) {
  SpValue *st = malloc(n * (size_t)f->m + 1),
          *go = malloc(n * (size_t)f->m + 1);
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

/* Every NPC's result equals sp_plan on its (state, goal): same status,
 * same failure code, same plan. Returns how many have no plan. */
size_t expect_matches_sp_plan(const TestFixture *f, const SpPopulation *pop) {
  size_t n = sp_population_size(pop), none = 0;
  uint16_t want[1024], got[1024];
  for (size_t i = 0; i < n; i++) {
    int wlen = 0, glen = -1, dirty = 1;
    SpFailure fail;
    SpStatus st = sp_plan(f->d, f->ws, sp_population_state(pop, i),
                          sp_population_goal(pop, i), want, &wlen, &fail);
    SpFailureCode code = SP_FAIL_NONE;
    SpNpcStatus ns = sp_population_status_of(pop, i, &code, &dirty);
    assert_false(dirty);
    SpStatus gs = sp_population_plan_of(pop, i, got, &glen);
    assert_int_equal(gs, st);
    if (st == SP_OK) {
      assert_int_equal(ns, SP_NPC_PLANNED);
      assert_int_equal(code, SP_FAIL_NONE);
      assert_int_equal(glen, wlen);
      assert_memory_equal(got, want, (size_t)wlen * sizeof(uint16_t));
      assert_int_equal(sp_population_plan_length(pop, i), wlen);
    } else {
      assert_int_equal(st, SP_NO_PLAN);
      assert_int_equal(ns, SP_NPC_NO_PLAN);
      assert_int_equal(code, fail.code);
      assert_int_equal(glen, 0);
      assert_int_equal(sp_population_plan_length(pop, i), -1);
      none++;
    }
  }
  return none;
}

/* Every NPC's result as a flat record: status, code, dirty, length, ids. */
uint16_t *snapshot(const SpPopulation *pop) {
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

size_t snapshot_bytes(const SpPopulation *pop) {
  size_t w = (size_t)sp_domain_action_count(sp_population_domain(pop)) + 4;
  return sp_population_size(pop) * w * sizeof(uint16_t);
}

SpPlanReport plan_with(SpPopulation *pop, int threads, int no_cache,
                       uint64_t budget_ns) {
  SpPlanOptions o = {threads, no_cache, budget_ns, NULL};
  SpPlanReport r;
  SpError err;
  assert_int_equal(sp_population_plan(pop, &o, &r, &err), SP_OK);
  return r;
}
