/* test_exhaustive.c: every (s0, s*) pair of the paper domains checked against breadth-first search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "oracle.h"
#include "paper_facts.h"
#include "saspu.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

/* Compiles the domain, checks all pairs, and asserts the totals: no
 * mismatch, and `expected_solvable` pairs solvable both by BFS and by the
 * planner (the two agree once there is no mismatch; both are asserted so
 * a failure says which count moved). */
static void check_everything(SpBuiltSpec *b, long expected_states,
                             long expected_solvable) {
  SpDomain *d = NULL;
  SpWorkspace *ws = NULL;
  SpError err;
  OracleSpace *o;
  OracleTally t = {0, 0, 0, 0};
  long bad;

  assert_non_null(b);
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, &err), SP_OK);
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  o = oracle_space_new(d);
  assert_non_null(o);
  oracle_set_label(o, b->spec.name);
  assert_int_equal(oracle_state_count(o), expected_states);

  bad = oracle_check_all_pairs(o, ws, &t, stderr);
  printf("%s: %ld states, %ld pairs, %ld solvable by BFS, %ld planned, %ld "
         "mismatches\n",
         b->spec.name, oracle_state_count(o), t.pairs, t.solvable, t.planned,
         t.failures);
  assert_int_equal(bad, 0);
  assert_int_equal(t.failures, 0);
  assert_int_equal(t.pairs, expected_states * expected_states);
  assert_int_equal(t.solvable, expected_solvable);
  assert_int_equal(t.planned, expected_solvable);

  oracle_space_free(o);
  sp_workspace_free(ws);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* One paper domain (the counts are in paper_facts.c). */
static void test_paper_domain(void **state) {
  const PaperCount *p = *state;
  check_everything(p->build(plain), p->states, p->solvable);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PAPER_COUNT_TEST(0, test_paper_domain),
      PAPER_COUNT_TEST(1, test_paper_domain),
      PAPER_COUNT_TEST(2, test_paper_domain),
      PAPER_COUNT_TEST(3, test_paper_domain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
