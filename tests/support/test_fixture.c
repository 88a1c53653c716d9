/* test_fixture.c: a built-in domain compiled with its workspace, and states for it, for cmocka tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_fixture.h"

void test_fixture_open(TestFixture *f, SpBuiltSpec *b) {
  static const SpAllocator plain = {NULL, NULL};
  assert_non_null(b);
  f->b = b;
  f->d = NULL;
  f->ws = NULL;
  SpCompileOptions opts = {b->needs_allow_outside};
  SpError err;
  if (sp_domain_compile(&b->spec, &opts, plain, &f->d, &err) != SP_OK)
    fail_msg("%s does not compile: %s", b->spec.name, err.message);
  if (sp_workspace_new(f->d, plain, &f->ws, &err) != SP_OK)
    fail_msg("%s: no workspace: %s", b->spec.name, err.message);
  f->m = sp_domain_variable_count(f->d);
  f->a = sp_domain_action_count(f->d);
}

void test_fixture_close(TestFixture *f) {
  sp_workspace_free(f->ws);
  sp_domain_free(f->d);
  sp_builtin_free(f->b);
}

void test_random_state(const SpDomain *d, RdRng *rng, SpValue *s) {
  int m = sp_domain_variable_count(d);
  for (int v = 0; v < m; v++)
    s[v] = (SpValue)(rd_next(rng) % (uint64_t)sp_variable_value_count(d, v));
}

int test_decode_state(const SpDomain *d, long k, SpValue *s) {
  int m = sp_domain_variable_count(d);
  for (int v = 0; v < m; v++) {
    long r = sp_variable_value_count(d, v);
    s[v] = (SpValue)(k % r);
    k /= r;
  }
  return k == 0;
}

/* Every NPC's result equals sp_plan on its (state, goal): same status,
 * same failure code, same plan. Returns how many have no plan. */
size_t test_population_matches_sp_plan(const TestFixture *f,
                                       const SpPopulation *pop) {
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
