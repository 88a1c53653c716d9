/* test_planner.c: TopoPlan's contract: orders, failure reasons, no allocation, regressions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "sp_builtin.h"
#include "test_alloc.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};
static const char *bin[] = {"0", "1", "2", "3"};

static SpDomain *compile(const SpDomainSpec *spec, int allow_outside) {
  SpDomain *d;
  SpError err;
  SpCompileOptions opts = {allow_outside};
  if (sp_domain_compile(spec, &opts, plain, &d, &err) != SP_OK)
    fail_msg("compile: %s", err.message);
  return d;
}

/* Plans and returns the status; on SP_OK checks the plan replays to goal. */
static SpStatus plan_checked(const SpDomain *d, const SpValue *s0,
                             const SpValue *goal, uint16_t *plan, int *len,
                             SpFailure *why) {
  SpWorkspace *ws;
  assert_int_equal(sp_workspace_new(d, plain, &ws, NULL), SP_OK);
  SpStatus st = sp_plan(d, ws, s0, goal, plan, len, why);
  if (st == SP_OK) {
    SpValue s[16];
    int m = sp_domain_variable_count(d);
    memcpy(s, s0, (size_t)m);
    assert_int_equal(sp_plan_replay(d, s, plan, *len), -1);
    assert_memory_equal(s, goal, (size_t)m);
  }
  sp_workspace_free(ws);
  return st;
}

static void assert_message(const SpDomain *d, const SpFailure *why,
                           const char *text) {
  char buf[512];
  sp_failure_format(d, why, buf, sizeof buf);
  if (strstr(buf, text) == NULL) fail_msg("'%s' lacks '%s'", buf, text);
}

/* Expects (s0, goal) to have no plan, for the reason `code`, told in a
 * sentence containing `text`; returns the record for further checks. */
static SpFailure expect_no_plan(const SpDomain *d, const SpValue *s0,
                                const SpValue *goal, SpFailureCode code,
                                const char *text) {
  uint16_t plan[64];
  int len;
  SpFailure why;
  assert_int_equal(plan_checked(d, s0, goal, plan, &len, &why), SP_NO_PLAN);
  assert_int_equal(why.code, code);
  assert_message(d, &why, text);
  return why;
}

/* Expects a plan from s0 to goal (replayed by plan_checked) into `plan`,
 * which holds the domain's action count; returns its length. */
static int expect_plan(const SpDomain *d, const SpValue *s0,
                       const SpValue *goal, uint16_t *plan) {
  int len;
  assert_int_equal(plan_checked(d, s0, goal, plan, &len, NULL), SP_OK);
  return len;
}

/* Planning never allocates: the counting allocator sees only the compile
 * and the workspace, then nothing over every pair of the Citizen. */
static void test_planning_allocates_nothing(void **state) {
  (void)state;
  TestAlloc c;
  test_alloc_init(&c, 0);
  SpAllocator counting = test_alloc_hook(&c);
  SpBuiltSpec *b = sp_builtin_citizen(plain);
  SpDomain *d;
  SpWorkspace *ws;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, counting, &d, NULL),
                   SP_OK);
  assert_int_equal(sp_workspace_new(d, counting, &ws, NULL), SP_OK);
  long before = c.calls;
  int planned = 0;
  SpValue s0[8], goal[8];
  uint16_t plan[64];
  for (long x = 0; x < 288; x++) {
    assert_true(test_decode_state(d, x, s0));
    for (long y = 0; y < 288; y++) {
      int len;
      assert_true(test_decode_state(d, y, goal));
      if (sp_plan(d, ws, s0, goal, plan, &len, NULL) == SP_OK) planned++;
    }
  }
  assert_int_equal(c.calls, before);
  assert_int_equal(planned, 12512);
  sp_workspace_free(ws);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* The orders of the last plan are retrievable and the plan respects them;
 * FeedHorses from the morning has each kind. */
static void test_orders_are_retrievable(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  const SpValue s0[] = {0, 0, 0}, goal[] = {2, 0, 2};
  uint16_t plan[16];
  int len, where[16], kinds[4] = {0};
  assert_int_equal(sp_plan(f.d, f.ws, s0, goal, plan, &len, NULL), SP_OK);
  assert_int_equal(len, 6);
  for (int i = 0; i < len; i++) where[plan[i]] = i;
  for (int i = 0; i < sp_workspace_order_count(f.ws); i++) {
    SpOrder o = sp_workspace_order(f.ws, i);
    assert_true(where[o.from] < where[o.to]);
    kinds[o.kind]++;
  }
  for (int k = 0; k < 4; k++) assert_true(kinds[k] > 0);
  test_fixture_close(&f);
}

static void test_goal_value_without_setter(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  const SpValue s0[] = {0, 0, 1},
                goal[] = {0, 0, 0}; /* water back to the source */
  SpFailure why =
      expect_no_plan(f.d, s0, goal, SP_FAIL_NO_SETTER,
                     "the goal needs water = in_source, but no action "
                     "sets water to in_source");
  assert_int_equal(why.action, -1);
  assert_int_equal(why.variable, 2);
  assert_int_equal(why.value, 0);
  test_fixture_close(&f);
}

/* A prevail on a value off the way from start to goal. */
static void test_prevail_unreachable(void **state) {
  (void)state;
  SpVariableSpec vars[] = {{"door", 3, bin}, {"light", 2, bin}};
  SpCondition needs_door_2[] = {{0, 2}};
  SpActionSpec acts[] = {
      {"open", 0, 0, 1, 0, NULL},
      {"break", 0, 0, 2, 0, NULL},
      {"switch_on", 1, 0, 1, 1, needs_door_2},
  };
  SpDomainSpec spec = {"doors", 2, vars, 3, acts};
  SpDomain *d = compile(&spec, 0);
  const SpValue s0[] = {0, 0}, goal[] = {1, 1};
  SpFailure why =
      expect_no_plan(d, s0, goal, SP_FAIL_UNREACHABLE,
                     "action 'switch_on' needs door = 2, which cannot be "
                     "reached");
  assert_int_equal(why.action, 2);
  sp_domain_free(d);
}

/* A 3-cycle with a requested value (outside the classes): reaching the
 * requested value and then the goal would need an action twice. */
static void test_repeat_needed(void **state) {
  (void)state;
  SpVariableSpec vars[] = {{"dial", 3, bin}, {"lamp", 2, bin}};
  SpCondition needs_dial_2[] = {{0, 2}};
  SpActionSpec acts[] = {
      {"turn_1", 0, 0, 1, 0, NULL},
      {"turn_2", 0, 1, 2, 0, NULL},
      {"turn_0", 0, 2, 0, 0, NULL},
      {"light", 1, 0, 1, 1, needs_dial_2},
  };
  SpDomainSpec spec = {"dial", 2, vars, 4, acts};
  SpDomain *d = compile(&spec, 1);
  assert_int_equal(sp_domain_class(d), SP_CLASS_OUTSIDE);
  const SpValue s0[] = {0, 0}, goal[] = {1, 1};
  SpFailure why = expect_no_plan(d, s0, goal, SP_FAIL_REPEAT,
                                 "action 'turn_1' would be needed twice");
  assert_int_equal(why.action, 0);
  /* the same request with the dial left where it started plans the loop */
  const SpValue goal2[] = {0, 1};
  uint16_t plan[8];
  assert_int_equal(expect_plan(d, s0, goal2, plan), 4);
  sp_domain_free(d);
}

/* Two actions each destroying what the other needs. */
static void test_order_cycle(void **state) {
  (void)state;
  SpVariableSpec vars[] = {{"u", 2, bin}, {"w", 2, bin}};
  SpCondition needs_w0[] = {{1, 0}}, needs_u0[] = {{0, 0}};
  SpActionSpec acts[] = {
      {"set_u", 0, 0, 1, 1, needs_w0},
      {"set_w", 1, 0, 1, 1, needs_u0},
  };
  SpDomainSpec spec = {"deadlock", 2, vars, 2, acts};
  SpDomain *d = compile(&spec, 0);
  const SpValue s0[] = {0, 0}, goal[] = {1, 1};
  SpFailure why = expect_no_plan(d, s0, goal, SP_FAIL_ORDER,
                                 "each need the other to come first");
  assert_true(why.action >= 0 && why.other_action >= 0);
  sp_domain_free(d);
}

static void test_state_out_of_range(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  const SpValue s0[] = {0, 5, 0}, goal[] = {0, 0, 0};
  uint16_t plan[16];
  int len = 7;
  SpFailure why;
  assert_int_equal(sp_plan(f.d, f.ws, s0, goal, plan, &len, &why),
                   SP_ERR_STATE);
  assert_int_equal(len, 0);
  assert_int_equal(why.variable, 1);
  assert_int_equal(why.value, 5);
  test_fixture_close(&f);
}

/* Regression: a requester that must come before a loop's first action
 * because of an order running through another loop (found by the random
 * test). Firing the wrong loop first made a feasible instance fail; the
 * planner now orders forced requesters before choosing. 9 actions, as BFS. */
static void test_forced_sides_propagate(void **state) {
  (void)state;
  SpVariableSpec vars[] = {{"v0", 4, bin},
                           {"v1", 4, bin},
                           {"v2", 3, bin},
                           {"v3", 2, bin},
                           {"v4", 3, bin}};
  SpCondition p0[] = {{1, 1}}, p1[] = {{2, 1}}, p2[] = {{2, 2}},
              p8[] = {{0, 3}, {1, 2}}, p9[] = {{2, 0}}, p10[] = {{0, 0}};
  SpActionSpec acts[] = {
      {"a0", 0, 3, 0, 1, p0},    {"a1", 0, 1, 2, 1, p1},
      {"a2", 0, 0, 3, 1, p2},    {"a3", 1, 1, 0, 0, NULL},
      {"a4", 1, 0, 2, 0, NULL},  {"a5", 1, 2, 3, 0, NULL},
      {"a6", 2, 2, 0, 0, NULL},  {"a7", 2, 2, 1, 0, NULL},
      {"a8", 2, 0, 2, 2, p8},    {"a9", 3, 0, 1, 1, p9},
      {"a10", 4, 1, 0, 1, p10},  {"a11", 4, 0, 1, 0, NULL},
      {"a12", 4, 1, 2, 0, NULL},
  };
  SpDomainSpec spec = {"interlocked_loops", 5, vars, 13, acts};
  SpDomain *d = compile(&spec, 0);
  assert_int_not_equal(sp_domain_class(d), SP_CLASS_OUTSIDE);
  const SpValue s0[] = {3, 1, 2, 0, 1}, goal[] = {3, 2, 1, 1, 0};
  uint16_t plan[16];
  assert_int_equal(expect_plan(d, s0, goal, plan), 9);
  sp_domain_free(d);
}

/* Regression: a requester of a loop's start value that must run before the
 * loop leaves it, because the loop's own first action needs its effect
 * (IJCAI's rule, "always after the restoring action", fails here). */
static void test_requester_before_loop(void **state) {
  (void)state;
  SpVariableSpec vars[] = {{"w", 2, bin}, {"u", 2, bin}, {"z", 2, bin}};
  SpCondition needs_u1[] = {{1, 1}}, needs_w0[] = {{0, 0}},
              needs_w1[] = {{0, 1}};
  SpActionSpec acts[] = {
      {"w_on", 0, 0, 1, 1, needs_u1},
      {"w_off", 0, 1, 0, 0, NULL},
      {"b", 1, 0, 1, 1, needs_w0},
      {"c", 2, 0, 1, 1, needs_w1},
  };
  SpDomainSpec spec = {"before_loop", 3, vars, 4, acts};
  SpDomain *d = compile(&spec, 0);
  assert_int_equal(sp_domain_class(d), SP_CLASS_CSTAR2);
  const SpValue s0[] = {0, 0, 0}, goal[] = {0, 1, 1};
  uint16_t plan[8];
  assert_int_equal(expect_plan(d, s0, goal, plan), 4);
  assert_string_equal(sp_action_name(d, plan[0]), "b");
  sp_domain_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_planning_allocates_nothing),
      cmocka_unit_test(test_orders_are_retrievable),
      cmocka_unit_test(test_goal_value_without_setter),
      cmocka_unit_test(test_prevail_unreachable),
      cmocka_unit_test(test_repeat_needed),
      cmocka_unit_test(test_order_cycle),
      cmocka_unit_test(test_state_out_of_range),
      cmocka_unit_test(test_forced_sides_propagate),
      cmocka_unit_test(test_requester_before_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
