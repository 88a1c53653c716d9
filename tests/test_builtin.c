/* test_builtin.c: the built-in domains: validity, sizes, names, classes and the papers' worked examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"
#include "saspu.h"
#include "sp_builtin.h"
#include "paper_facts.h"
#include "test_alloc.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

/* Prints both plans when they differ, then asserts they are equal. */
static void compare_plan(const SpDomain *d, const uint16_t *plan, int len,
                         const char *const *expected) {
  int i, n = 0, same;
  while (expected[n] != NULL) n++;
  same = len == n;
  for (i = 0; same && i < n; i++)
    same = strcmp(sp_action_name(d, plan[i]), expected[i]) == 0;
  if (!same) {
    fprintf(stderr, "%s: expected", sp_domain_name(d));
    for (i = 0; i < n; i++) fprintf(stderr, "%s %s", i ? "," : "", expected[i]);
    fputs("\n  got ", stderr);
    oracle_print_plan(stderr, d, plan, len);
    fputc('\n', stderr);
  }
  assert_int_equal(len, n);
  for (i = 0; i < n; i++)
    assert_string_equal(sp_action_name(d, plan[i]), expected[i]);
}

/* Plans from the named start to the named goal (resolved against that
 * start) and compares with the expected action names (NULL-terminated). */
static void expect_plan(TestFixture *f, const char *start, const char *goal,
                        const char *const *expected) {
  SpValue s0[64], g[64];
  uint16_t plan[64];
  const SpNamedState *ns = sp_builtin_start(f->b, start);
  const SpNamedState *ng = sp_builtin_goal(f->b, goal);
  SpFailure why;
  int len = -1;
  assert_non_null(ns);
  assert_non_null(ng);
  memcpy(s0, ns->values, (size_t)f->b->spec.variable_count);
  sp_builtin_resolve_goal(f->b, ng, s0, g);
  assert_int_equal(sp_plan(f->d, f->ws, s0, g, plan, &len, &why), SP_OK);
  compare_plan(f->d, plan, len, expected);
}

/* Same with raw states. */
static void expect_plan_raw(TestFixture *f, const SpValue *s0, const SpValue *g,
                            const char *const *expected) {
  uint16_t plan[64];
  SpFailure why;
  int len = -1;
  assert_int_equal(sp_plan(f->d, f->ws, s0, g, plan, &len, &why), SP_OK);
  compare_plan(f->d, plan, len, expected);
}

/* Checks one pair with the oracle (BFS from s0 first). */
static void expect_oracle_ok(TestFixture *f, const SpValue *s0,
                             const SpValue *g, int expected_distance) {
  OracleSpace *o = oracle_space_new(f->d);
  OracleTally t = {0, 0, 0, 0};
  assert_non_null(o);
  oracle_set_label(o, f->b->spec.name);
  oracle_bfs(o, s0);
  assert_int_equal(oracle_distance(o, g), expected_distance);
  assert_true(oracle_check_pair(o, f->ws, s0, g, &t, stderr));
  oracle_space_free(o);
}

static int total_prevails(const SpDomain *d) {
  int a, n = 0;
  for (a = 0; a < sp_domain_action_count(d); a++)
    n += sp_action_prevail_count(d, a);
  return n;
}

/* The compiled domain has these many variables, actions and prevails. */
static void expect_sizes(const SpDomain *d, int variables, int actions,
                         int prevails) {
  assert_int_equal(sp_domain_variable_count(d), variables);
  assert_int_equal(sp_domain_action_count(d), actions);
  assert_int_equal(total_prevails(d), prevails);
}

/* The compiler and both readings of the brute-force analysis agree. */
static void expect_class(const SpBuiltSpec *b, const SpDomain *d, SpClass c) {
  char why[256];
  assert_int_equal(sp_domain_class(d), c);
  assert_int_equal(oracle_classify_spec(&b->spec, why, sizeof(why)), c);
  assert_int_equal(oracle_classify_spec_ex(&b->spec, ORACLE_CLASS_GHOST_NODES,
                                           why, sizeof(why)),
                   c);
  assert_int_equal(oracle_classify_domain(d, why, sizeof(why)), c);
}

/* ------------------------------------------------------------------ */
/* Paper domains: shape                                               */
/* ------------------------------------------------------------------ */

static void test_horse_breeder_tables(void **state) {
  static const char *const ssci_order[] = {
      "drop_haystack",  "take_haystack", "fill_feeder", "drop_bucket",
      "pick_up_bucket", "fill_bucket",   "fill_trough"};
  int variant, i;
  (void)state;
  for (variant = SP_HORSE_SSCI; variant <= SP_HORSE_IJCAI; variant++) {
    TestFixture f;
    int feeder;
    test_fixture_open(&f, sp_builtin_horse_breeder(plain, variant));
    expect_sizes(f.d, 3, 7, variant == SP_HORSE_SSCI ? 5 : 4);
    assert_string_equal(sp_variable_name(f.d, 0), "haystack");
    assert_string_equal(sp_variable_name(f.d, 1), "bucket");
    assert_string_equal(sp_variable_name(f.d, 2), "water");
    assert_string_equal(sp_value_name(f.d, 0, 2), "in_feeder");
    assert_string_equal(sp_value_name(f.d, 1, 0), "on_floor");
    assert_string_equal(sp_value_name(f.d, 2, 2), "in_trough");
    for (i = 0; i < 7; i++)
      assert_string_equal(sp_action_name(f.d, i), ssci_order[i]);
    feeder = sp_builtin_action(f.b, "fill_feeder");
    assert_int_equal(feeder, 2);
    assert_int_equal(sp_action_prevail_count(f.d, feeder),
                     variant == SP_HORSE_SSCI ? 1 : 0);
    assert_int_equal(sp_domain_setter(f.d, 2, 0),
                     -1); /* water in_source: ghost */
    expect_class(f.b, f.d, SP_CLASS_CSTAR2);
    test_fixture_close(&f);
  }
  assert_null(sp_builtin_horse_breeder(plain, 2));
  assert_null(sp_builtin_horse_breeder(plain, -1));
}

static void test_citizen_table(void **state) {
  TestFixture f;
  (void)state;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  expect_sizes(f.d, 7, 13, 15);
  assert_string_equal(sp_variable_name(f.d, 6), "working");
  assert_string_equal(sp_value_name(f.d, 1, 2), "hydrated");
  assert_string_equal(sp_action_name(f.d, 0), "buy_food");
  assert_string_equal(sp_action_name(f.d, 12), "work");
  assert_int_equal(sp_action_prevail_count(f.d, 12), 4);
  expect_class(f.b, f.d, SP_CLASS_CS2);
  test_fixture_close(&f);
}

static void test_acquisition_machine_table(void **state) {
  TestFixture f;
  (void)state;
  test_fixture_open(&f, sp_builtin_acquisition_machine(plain));
  expect_sizes(f.d, 7, 9, 26);
  assert_int_equal(sp_variable_value_count(f.d, 2), 4);
  assert_string_equal(sp_value_name(f.d, 2, 3), "stored");
  assert_string_equal(sp_action_name(f.d, 8), "attack");
  expect_class(f.b, f.d, SP_CLASS_C0);
  test_fixture_close(&f);
}

/* ------------------------------------------------------------------ */
/* Paper domains: worked examples                                     */
/* ------------------------------------------------------------------ */

static void test_horse_breeder_examples(void **state) {
  static const SpValue s000[] = {0, 0, 0}, s100[] = {1, 0, 0};
  static const SpValue g002[] = {0, 0, 2}, g202[] = {2, 0, 2},
                       g200[] = {2, 0, 0};
  static const char *const trough[] = {"pick_up_bucket", "fill_bucket",
                                       "fill_trough", "drop_bucket", NULL};
  static const char *const feed[] = {
      "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket",
      "take_haystack",  "fill_feeder", NULL};
  static const char *const feeder[] = {"fill_feeder", NULL};
  TestFixture f;
  (void)state;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  expect_plan_raw(&f, s000, g002, trough);
  expect_plan_raw(&f, s000, g202, feed);
  expect_plan_raw(&f, s100, g200, feeder);
  expect_plan_raw(&f, s100, g202, paper_sigma3_plan);
  /* The same pairs through the named states. */
  expect_plan(&f, "morning", "fill_trough", trough);
  expect_plan(&f, "morning", "feed_horses", feed);
  expect_plan(&f, "holding_haystack", "fill_feeder", feeder);
  expect_plan(&f, "holding_haystack", "feed_horses", paper_sigma3_plan);
  expect_oracle_ok(&f, s100, g202, 7);
  test_fixture_close(&f);

  /* The IJCAI table: the four pairs are solved minimally as well. */
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_IJCAI));
  expect_oracle_ok(&f, s000, g002, 4);
  expect_oracle_ok(&f, s000, g202, 6);
  expect_oracle_ok(&f, s100, g200, 1);
  expect_oracle_ok(&f, s100, g202, 7);
  test_fixture_close(&f);
}

static void test_acquisition_machine_examples(void **state) {
  static const char *const attacked[] = {"attack", "repair", "refine_ore",
                                         "store_refined_ore", NULL};
  static const char *const ready[] = {"scan_ore_deposit",  "share_ore_pos",
                                      "harvest_ore",       "refine_ore",
                                      "store_refined_ore", NULL};
  TestFixture f;
  (void)state;
  test_fixture_open(&f, sp_builtin_acquisition_machine(plain));
  expect_plan(&f, "under_attack", "harvest", attacked);
  expect_plan(&f, "ready_to_work", "harvest", ready);
  test_fixture_close(&f);
}

/* The three Citizen goals from the start of the day: solvable, minimal. */
static void test_citizen_goals(void **state) {
  static const char *const goals[] = {"work", "buy_supplies",
                                      "eat_and_debate_while_wandering"};
  static const int distance[] = {6, 2, 6};
  static const SpValue work[] = {2, 2, 1, 0, 0, 1, 1};
  TestFixture f;
  SpValue s0[7], g[7];
  int i;
  (void)state;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  memcpy(s0, sp_builtin_start(f.b, "start_of_day")->values, 7);
  for (i = 0; i < 3; i++) {
    sp_builtin_resolve_goal(f.b, sp_builtin_goal(f.b, goals[i]), s0, g);
    expect_oracle_ok(&f, s0, g, distance[i]);
  }
  sp_builtin_resolve_goal(f.b, sp_builtin_goal(f.b, "work"), s0, g);
  assert_memory_equal(g, work, 7);
  /* A kept entry follows the start. */
  s0[4] = 1;
  sp_builtin_resolve_goal(f.b, sp_builtin_goal(f.b, "work"), s0, g);
  assert_int_equal(g[4], 1);
  test_fixture_close(&f);
}

/* ------------------------------------------------------------------ */
/* Synthetic families                                                 */
/* ------------------------------------------------------------------ */

/* The CNIA instance of a built spec, checked against BFS. */
static void expect_cnia(TestFixture *f, int expected_distance) {
  const SpNamedState *s = sp_builtin_start(f->b, "cnia");
  const SpNamedState *g = sp_builtin_goal(f->b, "cnia");
  assert_non_null(s);
  assert_non_null(g);
  expect_oracle_ok(f, s->values, g->values, expected_distance);
}

static void test_multiprv_2_cycle(void **state) {
  int m;
  (void)state;
  for (m = 1; m <= 8; m++) {
    TestFixture f;
    SpBuiltSpec *b = sp_builtin_multiprv_2_cycle(plain, m);
    assert_non_null(b);
    assert_int_equal(b->needs_allow_outside, 0);
    test_fixture_open(&f, b);
    expect_sizes(f.d, m, 2 * m, m * (m - 1));
    assert_string_equal(sp_action_name(f.d, 0), "a1_v0");
    assert_string_equal(sp_action_name(f.d, 1), "a0_v0");
    /* Inside the classes: one requested value (1) per 2-cycle. */
    expect_class(f.b, f.d, m == 1 ? SP_CLASS_C0 : SP_CLASS_CS2);
    /* Tunnel lights: v(m-1) .. v0 on, then v1 .. v(m-1) off. */
    expect_cnia(&f, 2 * m - 1);
    test_fixture_close(&f);
  }
  assert_null(sp_builtin_multiprv_2_cycle(plain, 0));
}

static void test_multiprv_n_cycle(void **state) {
  int m, n;
  (void)state;
  for (n = 2; n <= 5; n++) {
    for (m = 1; m <= 4; m++) {
      TestFixture f;
      SpBuiltSpec *b = sp_builtin_multiprv_n_cycle(plain, m, n);
      SpDomain *d = NULL;
      SpError err;
      int outside = n >= 3 && m >= 2;
      assert_non_null(b);
      assert_int_equal(b->needs_allow_outside, outside);
      /* Without allow_outside an n-cycle with a request is refused. */
      if (outside) {
        assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, &err),
                         SP_ERR_CLASS);
        assert_null(d);
        assert_int_equal(err.code, SP_E_OUTSIDE_CLASS);
      }
      test_fixture_open(&f, b);
      expect_sizes(f.d, m, n * m, n * m * (m - 1) / 2);
      if (m > 1) assert_int_equal(sp_action_prevail(f.d, 0, 0).value, n / 2);
      expect_class(f.b, f.d,
                   outside ? SP_CLASS_OUTSIDE
                           : (m == 1 ? SP_CLASS_C0 : SP_CLASS_CS2));
      /* v0 goes round once to n-1, every other variable goes round to
       * floor(n/2) and back: (n-1) + (m-1)n actions, none repeated. */
      expect_cnia(&f, (n - 1) + (m - 1) * n);
      test_fixture_close(&f);
    }
  }
  assert_null(sp_builtin_multiprv_n_cycle(plain, 0, 3));
  assert_null(sp_builtin_multiprv_n_cycle(plain, 3, 1));
  assert_null(sp_builtin_multiprv_n_cycle(plain, 3, SP_MAX_VALUES + 1));
}

static void test_oneprv_5(void **state) {
  int m;
  (void)state;
  for (m = 1; m <= 6; m++) {
    TestFixture f;
    test_fixture_open(&f, sp_builtin_oneprv_5(plain, m));
    expect_sizes(f.d, m, 4 * m, 4 * (m - 1));
    assert_int_equal(sp_variable_value_count(f.d, 0), 5);
    expect_class(f.b, f.d, SP_CLASS_C0);
    expect_cnia(&f, 4 * m);
    test_fixture_close(&f);
  }
  assert_null(sp_builtin_oneprv_5(plain, 0));
}

/* Larger instances of the families still compile and plan (the sizes the
 * benchmarks use); plan lengths follow the closed forms. */
static void test_synthetic_large(void **state) {
  SpBuiltSpec *list[3];
  int expected[3], i;
  (void)state;
  list[0] = sp_builtin_multiprv_2_cycle(plain, 200);
  expected[0] = 2 * 200 - 1;
  list[1] = sp_builtin_multiprv_n_cycle(plain, 20, 50);
  expected[1] = 49 + 19 * 50;
  list[2] = sp_builtin_oneprv_5(plain, 1000);
  expected[2] = 4000;
  for (i = 0; i < 3; i++) {
    TestFixture f;
    uint16_t *plan;
    int len = -1;
    SpValue *state0;
    test_fixture_open(&f, list[i]);
    plan = calloc((size_t)sp_domain_action_count(f.d), sizeof(uint16_t));
    assert_non_null(plan);
    assert_int_equal(sp_plan(f.d, f.ws, f.b->starts[0].values,
                             f.b->goals[0].values, plan, &len, NULL),
                     SP_OK);
    assert_int_equal(len, expected[i]);
    state0 = malloc((size_t)f.b->spec.variable_count);
    memcpy(state0, f.b->starts[0].values, (size_t)f.b->spec.variable_count);
    assert_int_equal(sp_plan_replay(f.d, state0, plan, len), -1);
    assert_memory_equal(state0, f.b->goals[0].values,
                        (size_t)f.b->spec.variable_count);
    free(state0);
    free(plan);
    test_fixture_close(&f);
  }
}

/* ------------------------------------------------------------------ */
/* Ownership, allocation failure, lookups                             */
/* ------------------------------------------------------------------ */

typedef SpBuiltSpec *(*Builder)(SpAllocator a);

static SpBuiltSpec *build_horse(SpAllocator a) {
  return sp_builtin_horse_breeder(a, SP_HORSE_SSCI);
}
static SpBuiltSpec *build_citizen(SpAllocator a) {
  return sp_builtin_citizen(a);
}
static SpBuiltSpec *build_machine(SpAllocator a) {
  return sp_builtin_acquisition_machine(a);
}
static SpBuiltSpec *build_ncycle(SpAllocator a) {
  return sp_builtin_multiprv_n_cycle(a, 4, 3);
}
static SpBuiltSpec *build_oneprv(SpAllocator a) {
  return sp_builtin_oneprv_5(a, 5);
}

/* Every builder allocates only through its allocator, returns NULL at
 * each possible allocation failure, and leaks nothing either way. */
static void test_allocation(void **state) {
  static const Builder builders[] = {build_horse, build_citizen, build_machine,
                                     build_ncycle, build_oneprv};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(builders) / sizeof(builders[0]); i++) {
    TestAlloc c;
    test_alloc_init(&c, 0);
    SpAllocator a = test_alloc_hook(&c);
    SpBuiltSpec *b = builders[i](a);
    long k, calls = c.calls;
    assert_non_null(b);
    assert_int_equal(c.live, 1); /* one block, scratch already released */
    sp_builtin_free(b);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.bytes, 0);
    /* fail each of this builder's allocations in turn */
    for (k = 1; k <= calls; k++) {
      test_alloc_init(&c, k);
      assert_null(builders[i](a));
      assert_int_equal(c.live, 0);
      assert_int_equal(c.bytes, 0);
    }
  }
}

/* sp_builtin_copy owns everything: the source may vanish. */
static void test_copy(void **state) {
  char vname[8] = "switch", aname[8] = "flip", gname[8] = "on";
  const char *values[] = {"off", "on"};
  SpVariableSpec vars[2] = {{vname, 2, values}, {"lamp", 2, values}};
  SpCondition prv[1] = {{0, 1}};
  SpActionSpec acts[2] = {{aname, 0, 0, 1, 0, NULL},
                          {"light", 1, 0, 1, 1, prv}};
  SpDomainSpec spec = {"copy", 2, vars, 2, acts};
  SpValue gv[2] = {1, 1};
  uint8_t keep[2] = {0, 1};
  SpNamedState goal = {gname, gv, keep};
  SpBuiltSpec *b = sp_builtin_copy(plain, &spec, 0, NULL, 1, &goal);
  SpValue s0[2] = {0, 0}, out[2];
  (void)state;
  assert_non_null(b);
  strcpy(vname, "xxx");
  strcpy(aname, "yyy");
  strcpy(gname, "zz");
  prv[0].value = 0;
  gv[0] = 0;
  keep[1] = 0;
  assert_string_equal(b->spec.variables[0].name, "switch");
  assert_string_equal(b->spec.actions[0].name, "flip");
  assert_int_equal(b->spec.actions[1].prevails[0].value, 1);
  assert_null(b->spec.actions[0].prevails);
  assert_int_equal(sp_builtin_action(b, "light"), 1);
  assert_int_equal(sp_builtin_action(b, "flip"), 0);
  assert_int_equal(sp_builtin_action(b, "nope"), -1);
  assert_null(sp_builtin_start(b, "on"));
  assert_non_null(sp_builtin_goal(b, "on"));
  assert_null(sp_builtin_goal(b, "off"));
  sp_builtin_resolve_goal(b, sp_builtin_goal(b, "on"), s0, out);
  assert_int_equal(out[0], 1);
  assert_int_equal(out[1], 0); /* kept from s0 */
  sp_builtin_free(b);
  sp_builtin_free(NULL);

  /* Malformed descriptions are refused, not walked. */
  assert_null(sp_builtin_copy(plain, NULL, 0, NULL, 0, NULL));
  spec.action_count = -1;
  assert_null(sp_builtin_copy(plain, &spec, 0, NULL, 0, NULL));
  spec.action_count = 2;
  assert_null(sp_builtin_copy(plain, &spec, 1, NULL, 0, NULL));
  acts[1].prevails = NULL;
  assert_null(sp_builtin_copy(plain, &spec, 0, NULL, 0, NULL));
}

/* Every named state has the right length and values in range. */
static void test_named_states_in_range(void **state) {
  SpBuiltSpec *list[6];
  int i, j, v;
  (void)state;
  list[0] = sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  list[1] = sp_builtin_horse_breeder(plain, SP_HORSE_IJCAI);
  list[2] = sp_builtin_citizen(plain);
  list[3] = sp_builtin_acquisition_machine(plain);
  list[4] = sp_builtin_multiprv_n_cycle(plain, 3, 4);
  list[5] = sp_builtin_oneprv_5(plain, 3);
  for (i = 0; i < 6; i++) {
    const SpBuiltSpec *b = list[i];
    assert_non_null(b);
    assert_true(b->start_count >= 1);
    assert_true(b->goal_count >= 1);
    for (j = 0; j < b->start_count + b->goal_count; j++) {
      const SpNamedState *s =
          j < b->start_count ? &b->starts[j] : &b->goals[j - b->start_count];
      assert_non_null(s->name);
      if (j < b->start_count) assert_null(s->keep);
      for (v = 0; v < b->spec.variable_count; v++)
        assert_true(s->values[v] < b->spec.variables[v].value_count);
    }
    sp_builtin_free(list[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_horse_breeder_tables),
      cmocka_unit_test(test_citizen_table),
      cmocka_unit_test(test_acquisition_machine_table),
      cmocka_unit_test(test_horse_breeder_examples),
      cmocka_unit_test(test_acquisition_machine_examples),
      cmocka_unit_test(test_citizen_goals),
      cmocka_unit_test(test_multiprv_2_cycle),
      cmocka_unit_test(test_multiprv_n_cycle),
      cmocka_unit_test(test_oneprv_5),
      cmocka_unit_test(test_synthetic_large),
      cmocka_unit_test(test_allocation),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_named_states_in_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
