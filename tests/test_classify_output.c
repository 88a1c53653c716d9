/* test_classify_output.c: cmocka tests of the explanation's output contract (snprintf semantics, cost of the class alone), memory failures, many cycles and the problem accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "sp_builtin.h"
#include "sp_classify.h"
#include "classify_checks.h"
#include "test_alloc.h"

static const SpAllocator plain = {NULL, NULL};

/* ------------------------------------------------------------------ */
/* Output contract and memory                                         */
/* ------------------------------------------------------------------ */

static void test_snprintf_semantics(void **state) {
  (void)state;
  SpDomain *d = compile_builtin(sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  SpClass cls = SP_CLASS_OUTSIDE;
  size_t full = 0;
  assert_int_equal(sp__classify(d, plain, &cls, NULL, 0, &full), SP_OK);
  assert_int_equal(cls, SP_CLASS_CSTAR2);
  assert_true(full > 100);
  assert_int_equal(sp_domain_explain(d, NULL, 0), full);

  char *whole = explain(d);
  char small[40];
  memset(small, 'x', sizeof small);
  size_t needed = 0;
  assert_int_equal(sp__classify(d, plain, &cls, small, sizeof small, &needed),
                   SP_OK);
  assert_int_equal(needed, full);
  assert_int_equal(strlen(small), sizeof small - 1);
  assert_memory_equal(small, whole, sizeof small - 1);

  /* Class only: no buffer, no length. */
  cls = SP_CLASS_OUTSIDE;
  assert_int_equal(sp__classify(d, plain, &cls, NULL, 0, NULL), SP_OK);
  assert_int_equal(cls, SP_CLASS_CSTAR2);
  free(whole);
  sp_domain_free(d);
}

/* The class alone (what sp_domain_compile asks first) formats nothing
 * and needs memory only for the C*2 search: with an allocator that fails
 * its first request it still answers, asking for nothing, except for a
 * doubly requested 2-cycle. */
static void test_class_only_is_cheap(void **state) {
  (void)state;
  TestAlloc c;
  SpAllocator failing = test_alloc_hook(&c);
  SpDomainSpec farm;
  farm_spec(1, &farm);
  SpDomain *ds[] = {
      compile_builtin(sp_builtin_acquisition_machine(plain)),
      compile_builtin(sp_builtin_citizen(plain)), compile_or_fail(&farm, 1),
      compile_builtin(sp_builtin_horse_breeder(plain, SP_HORSE_SSCI))};
  const SpClass want[] = {SP_CLASS_C0, SP_CLASS_CS2, SP_CLASS_OUTSIDE,
                          SP_CLASS_CSTAR2};
  for (int i = 0; i < 4; i++) {
    SpClass cls = want[i] == SP_CLASS_C0 ? SP_CLASS_OUTSIDE : SP_CLASS_C0;
    test_alloc_init(&c, 1);
    SpStatus st = sp__classify(ds[i], failing, &cls, NULL, 0, NULL);
    if (want[i] == SP_CLASS_CSTAR2) {
      assert_int_equal(st, SP_ERR_MEMORY);
      assert_int_equal(cls, SP_CLASS_C0); /* untouched */
      assert_int_equal(c.calls, 1);
    } else {
      assert_int_equal(st, SP_OK);
      assert_int_equal(cls, want[i]);
      assert_int_equal(c.calls, 0);
    }
    assert_int_equal(c.live, 0);
    /* Asking for the length is asking for the text: G is built. */
    size_t needed = 7;
    test_alloc_init(&c, 1);
    assert_int_equal(sp__classify(ds[i], failing, &cls, NULL, 0, &needed),
                     SP_ERR_MEMORY);
    assert_int_equal(needed, 0);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.live, 0);
  }

  /* With memory, the C*2 search takes one block and gives it back. */
  test_alloc_init(&c, 0);
  SpClass cls = SP_CLASS_C0;
  assert_int_equal(sp__classify(ds[3], failing, &cls, NULL, 0, NULL), SP_OK);
  assert_int_equal(cls, SP_CLASS_CSTAR2);
  assert_int_equal(c.calls, 1);
  assert_int_equal(c.live, 0);
  for (int i = 0; i < 4; i++) sp_domain_free(ds[i]);
}

static void test_memory_failure(void **state) {
  (void)state;
  Gray g;
  gray_build(&g, 4);
  SpDomain *d = compile_or_fail(&g.spec, 1);

  TestAlloc c;
  test_alloc_init(&c, 1); /* the first request fails */
  SpAllocator failing = test_alloc_hook(&c);
  SpClass cls = SP_CLASS_C0;
  char buf[64];
  memset(buf, 'x', sizeof buf);
  size_t needed = 123;
  assert_int_equal(sp__classify(d, failing, &cls, buf, sizeof buf, &needed),
                   SP_ERR_MEMORY);
  assert_int_equal(cls, SP_CLASS_C0);
  assert_string_equal(buf, "");
  assert_int_equal(needed, 0);
  assert_int_equal(c.live, 0);

  /* With memory, everything taken is given back. */
  test_alloc_init(&c, 0);
  SpAllocator counting = test_alloc_hook(&c);
  assert_int_equal(sp__classify(d, counting, &cls, buf, sizeof buf, &needed),
                   SP_OK);
  assert_int_equal(cls, SP_CLASS_OUTSIDE);
  assert_true(c.calls >= 1);
  assert_int_equal(c.live, 0);
  assert_int_equal(c.bytes, 0);
  sp_domain_free(d);

  /* Compiling through a failing allocator, failing at each allocation in
   * turn (the last ones are the class analysis), leaks nothing. */
  SpCompileOptions opts = {1};
  for (long k = 0;; k++) {
    test_alloc_init(&c, k + 1); /* k requests succeed, then one fails */
    SpError err;
    d = NULL;
    SpStatus st = sp_domain_compile(&g.spec, &opts, counting, &d, &err);
    if (st == SP_OK) {
      assert_true(k >= 2);
      assert_int_equal(sp_domain_class(d), SP_CLASS_OUTSIDE);
      sp_domain_free(d);
      assert_int_equal(c.live, 0);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_null(d);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.bytes, 0);
    assert_true(k < 100);
  }
}

/* Many switches, each a 2-cycle requested both ways, with all "on"
 * requesters chained together and all "off" requesters chained apart:
 * C*2, with one search per switch over a large component. */
static void test_many_cycles(void **state) {
  (void)state;
  enum { M = 1300 }; /* 3900 variables, under SP_MAX_VARIABLES */
  /* variables: sw_i {off,on}, a_i {0,1}, b_i {0,1} */
  SpVariableSpec *vars = calloc(3 * M, sizeof *vars);
  SpActionSpec *acts = calloc(4 * M, sizeof *acts);
  SpCondition *prv = calloc(8 * M, sizeof *prv);
  char *names = calloc((size_t)7 * M, 24);
  assert_true(vars && acts && prv && names);
  char *np = names;
#define NAME(...) (snprintf(np, 24, __VA_ARGS__), np += 24, np - 24)
  for (int i = 0; i < M; i++) {
    vars[3 * i] = (SpVariableSpec){NAME("sw%d", i), 2, bool_names};
    vars[3 * i + 1] = (SpVariableSpec){NAME("a%d", i), 2, bit_names};
    vars[3 * i + 2] = (SpVariableSpec){NAME("b%d", i), 2, bit_names};
    SpCondition *p = prv + 8 * i;
    p[0] = (SpCondition){3 * i, 1}; /* set_a_i needs sw_i on */
    int n_a = 1;
    if (i > 0)
      p[n_a++] = (SpCondition){3 * (i - 1) + 1, 1}; /* and a_(i-1) = 1 */
    p[4] = (SpCondition){3 * i, 0};                 /* set_b_i needs sw_i off */
    acts[4 * i] = (SpActionSpec){NAME("on%d", i), 3 * i, 0, 1, 0, NULL};
    acts[4 * i + 1] = (SpActionSpec){NAME("off%d", i), 3 * i, 1, 0, 0, NULL};
    acts[4 * i + 2] =
        (SpActionSpec){NAME("set_a%d", i), 3 * i + 1, 0, 1, n_a, p};
    acts[4 * i + 3] =
        (SpActionSpec){NAME("set_b%d", i), 3 * i + 2, 0, 1, 1, p + 4};
  }
#undef NAME
  SpDomainSpec spec = {"switches", 3 * M, vars, 4 * M, acts};
  Explained e = explained(compile_or_fail(&spec, 0), SP_CLASS_CSTAR2);
  expect_text(e.text, "  ... and more\n");
  expect_text(e.text, "requestable actions (3899):\n");
  explained_free(&e);

  /* Chain one off-requester to the on-chain: that switch goes outside. */
  prv[8 * 700 + 5] = (SpCondition){3 * 699 + 1, 1};
  acts[4 * 700 + 3].prevail_count = 2;
  e = explained(compile_or_fail(&spec, 1), SP_CLASS_OUTSIDE);
  expect_text(
      e.text,
      "(1 problem):\n1. the cycle of 'sw700' has both actions requested");
  expect_text(
      e.text,
      "   path: 'set_a700' <-prevail- 'set_a699' -prevail-> 'set_b700'\n");
  check_paths(e.d, e.text);
  explained_free(&e);
  free(vars);
  free(acts);
  free(prv);
  free(names);
}

static void test_problem_accessors(void **state) {
  (void)state;
  Gray g;
  gray_build(&g, 4);
  SpDomain *d = compile_or_fail(&g.spec, 1);
  SpProblem pr[4];
  assert_int_equal(sp_domain_problems(d, pr, 4), 2);
  assert_int_equal(pr[0].variable, 0);
  assert_int_equal(pr[1].variable, 1);
  assert_true(pr[0].connected && pr[1].connected);
  SpPathNode path[8];
  assert_int_equal(sp_domain_problem_path(d, 0, path, 8),
                   2); /* 'set1' -prevail-> 'set2' */
  assert_string_equal(sp_action_name(d, path[0].action), "set1");
  assert_string_equal(sp_action_name(d, path[1].action), "set2");
  assert_true(path[1].prevail && path[1].forward);
  assert_int_equal(sp_domain_problem_path(d, 5, path, 8), 0);
  sp_domain_free(d);
  d = compile_builtin(sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  assert_int_equal(sp_domain_problems(d, pr, 4), 0);
  sp_domain_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_snprintf_semantics),
      cmocka_unit_test(test_class_only_is_cheap),
      cmocka_unit_test(test_memory_failure),
      cmocka_unit_test(test_many_cycles),
      cmocka_unit_test(test_problem_accessors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
