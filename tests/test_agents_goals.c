/* test_agents_goals.c: agents plan goal conditions as conditions: the shortest plan to any matching state, judged by breadth-first search. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"
#include "paper_facts.h"
#include "saspu_agents.h"
#include "sp_builtin.h"
#include "sp_goals.h"

/* Goal conditions checked per domain (a stride over all of them). */
#define GOALS_CHECKED 120

static const SpAllocator plain = {NULL, NULL};

/* Goal number g of the (values + 1)^m conditions: the last "value" of
 * each digit is SP_ANY. */
static void decode_goal(const SpDomain *d, long g, SpValue *out) {
  for (int v = 0; v < sp_domain_variable_count(d); v++) {
    int r = sp_variable_value_count(d, v) + 1;
    out[v] = g % r == r - 1 ? SP_ANY : (SpValue)(g % r);
    g /= r;
  }
}

static int matches(const SpValue *cond, const SpValue *s, int m) {
  for (int v = 0; v < m; v++)
    if (cond[v] != SP_ANY && cond[v] != s[v]) return 0;
  return 1;
}

/* One crowd per sampled goal condition, one agent per state: each agent's
 * first plan has the BFS distance to the NEAREST state matching the goal
 * (not to the state that keeps the free variables), a goal that no
 * matching state can be reached from gives no_plan, and every planned
 * agent ends in a matching state. Some agents must get a strictly shorter
 * plan than "free variables kept" would give, or the check proves
 * nothing about free variables. */
static void test_shortest_to_condition(void **state) {
  const PaperCount *p = *state;
  SpBuiltSpec *b = p->build(plain);
  SpDomain *d;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, NULL), SP_OK);
  OracleSpace *o = oracle_space_new(d);
  assert_non_null(o);
  int m = sp_domain_variable_count(d);
  long n = oracle_state_count(o), total = 1;
  for (int v = 0; v < m; v++) total *= sp_variable_value_count(d, v) + 1;
  long stride = total / GOALS_CHECKED + 1, goals = 0;
  /* BFS distances: free[g * n + s] to the condition, kept[...] with the
   * free variables kept at the start's values */
  int *freed = malloc((size_t)(total / stride + 1) * (size_t)n * sizeof(int));
  int *kept = malloc((size_t)(total / stride + 1) * (size_t)n * sizeof(int));
  SpValue s0[16], cond[16], keep[16];
  for (long s = 0; s < n; s++) {
    oracle_state_decode(o, s, s0);
    oracle_bfs(o, s0);
    long k = 0;
    for (long g = 0; g < total; g += stride, k++) {
      decode_goal(d, g, cond);
      for (int v = 0; v < m; v++) keep[v] = cond[v] == SP_ANY ? s0[v] : cond[v];
      freed[k * n + s] = oracle_distance(o, cond);
      kept[k * n + s] = oracle_distance(o, keep);
    }
    goals = k;
  }
  long shorter = 0, planned = 0, no_plan = 0;
  for (long k = 0; k < goals; k++) {
    decode_goal(d, k * stride, cond);
    SpWorld *w;
    SpCrowd *c;
    SpCrowdOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.capacity = (size_t)n;
    opt.threads = 1;
    assert_int_equal(sp_world_new(NULL, plain, &w, NULL), SP_OK);
    assert_int_equal(sp_crowd_new(w, d, &opt, plain, &c, NULL), SP_OK);
    assert_int_equal(sp_crowd_add_goal(c, cond, 1, NULL, NULL, NULL), SP_OK);
    for (long s = 0; s < n; s++) {
      oracle_state_decode(o, s, s0);
      assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, NULL, NULL),
                       SP_OK);
    }
    assert_int_equal(sp_crowd_update(c, 0.0f, NULL), SP_OK);
    const SpAgentEvent *e = sp_crowd_events(c);
    int *first = malloc((size_t)n * sizeof(int)); /* -2: no planning event */
    for (long s = 0; s < n; s++) first[s] = -2;
    for (size_t j = 0; j < sp_crowd_event_count(c); j++) {
      if (first[e[j].agent] != -2) continue;
      if (e[j].kind == SP_EV_PLANNED) first[e[j].agent] = e[j].detail;
      if (e[j].kind == SP_EV_NO_PLAN) first[e[j].agent] = -1;
    }
    for (int f = 0; f < 4; f++)
      assert_int_equal(sp_crowd_update(c, 0.0f, NULL), SP_OK);
    for (long s = 0; s < n; s++) {
      int want = freed[k * n + s];
      if (want == 0) continue; /* satisfied at the start: idle, no plan */
      assert_int_equal(first[s], want);
      if (want < 0) {
        no_plan++;
        continue;
      }
      planned++;
      assert_true(matches(cond, sp_crowd_state(c, (size_t)s), m));
      if (kept[k * n + s] < 0 || kept[k * n + s] > want) shorter++;
    }
    free(first);
    sp_crowd_free(c);
    sp_world_free(w);
  }
  printf("%s: %ld goals, %ld plans, %ld no_plan, %ld shorter than kept\n",
         p->test, goals, planned, no_plan, shorter);
  assert_true(planned > 0);
  assert_true(shorter > 0);
  free(freed);
  free(kept);
  oracle_space_free(o);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* A citizen crowd of `capacity` agents, one thread, in a world without
 * a grid. */
static void citizen_crowd(size_t capacity, SpBuiltSpec **b, SpDomain **d,
                          SpWorld **w, SpCrowd **c) {
  *b = sp_builtin_citizen(plain);
  assert_int_equal(sp_domain_compile(&(*b)->spec, NULL, plain, d, NULL), SP_OK);
  SpCrowdOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.capacity = capacity;
  opt.threads = 1;
  assert_int_equal(sp_world_new(NULL, plain, w, NULL), SP_OK);
  assert_int_equal(sp_crowd_new(*w, *d, &opt, plain, c, NULL), SP_OK);
}

/* sp_crowd_set_priority re-sorts the goals and every agent keeps the goal
 * it had (its sorted index follows); the new order decides the next
 * choice; an unknown goal is refused. Citizen: one agent, the goals each
 * of its values of variable 0 (all reachable or not, it does not matter:
 * only the bookkeeping is checked). */
static void test_set_priority_keeps_goals(void **state) {
  (void)state;
  SpBuiltSpec *b;
  SpDomain *d;
  SpWorld *w;
  SpCrowd *c;
  citizen_crowd(4, &b, &d, &w, &c);
  int m = sp_domain_variable_count(d);
  SpValue cond[64], s0[64];
  memcpy(s0, b->starts[0].values, (size_t)m);
  int prio[3] = {5, 3, 1};
  for (int g = 0; g < 3; g++) { /* goal g: variable g differs from the start */
    memset(cond, SP_ANY, sizeof cond);
    cond[g] = (SpValue)((s0[g] + 1) % sp_variable_value_count(d, g));
    assert_int_equal(sp_crowd_add_goal(c, cond, prio[g], NULL, NULL, NULL),
                     SP_OK);
  }
  size_t a;
  assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, &a, NULL), SP_OK);
  assert_int_equal(sp_crowd_update(c, 0.01f, NULL), SP_OK);
  SpAgentInfo before, after;
  assert_int_equal(sp_crowd_inspect(c, a, &before), SP_OK);
  SpError err;
  assert_int_equal(sp_crowd_set_priority(c, 2, 9, &err),
                   SP_OK); /* last -> first */
  assert_int_equal(sp_crowd_priority(c, 2), 9);
  assert_int_equal(sp_crowd_priority(c, 0), 5);
  assert_int_equal(sp_crowd_inspect(c, a, &after), SP_OK);
  assert_int_equal(after.goal,
                   before.goal); /* the same goal, at its new place */
  assert_int_equal(sp_crowd_set_priority(c, 0, 9, &err),
                   SP_OK); /* a tie: goal 0 first */
  assert_int_equal(sp_crowd_inspect(c, a, &after), SP_OK);
  assert_int_equal(after.goal, before.goal);
  assert_int_equal(sp_crowd_set_priority(c, 3, 1, &err), SP_ERR_STATE);
  /* a new agent takes the highest now: goal 0 (9, added first) */
  assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, &a, NULL), SP_OK);
  assert_int_equal(sp_crowd_update(c, 0.01f, NULL), SP_OK);
  const SpAgentEvent *ev = sp_crowd_events(c);
  int chosen = -1;
  for (size_t k = 0; k < sp_crowd_event_count(c); k++)
    if (ev[k].agent == a && ev[k].kind == SP_EV_NO_PLAN && chosen < 0)
      chosen = ev[k].goal;
    else if (ev[k].agent == a && ev[k].kind == SP_EV_GOAL_CHOSEN && chosen < 0)
      chosen = ev[k].goal;
  assert_int_equal(chosen, 0);
  sp_crowd_free(c);
  sp_world_free(w);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* Back-off: goal 0's step always fails (the caller fails it), goal 1's
 * succeeds. The second failure in a row waits a retry (1 s) before the
 * replan, the third (max_failures) gives goal 0 up with one
 * SP_EV_GAVE_UP (reason script) and the agent takes goal 1; goal 0 is
 * tried again once give_up_for (4 s) is over. Bad back-off options are
 * refused. */
static void test_failures_back_off(void **state) {
  (void)state;
  SpBuiltSpec *b; /* a citizen crowd of 2 */
  SpDomain *d;
  SpWorld *w;
  SpCrowd *c;
  citizen_crowd(2, &b, &d, &w, &c);
  SpActionBehaviour beh;
  memset(&beh, 0, sizeof beh);
  beh.scripted = 1;
  beh.give_up_for = NAN;
  assert_int_equal(sp_crowd_set_action(c, 0, &beh, NULL), SP_ERR_INVALID);
  beh.give_up_for = 4.0f;
  beh.max_failures = -1;
  assert_int_equal(sp_crowd_set_action(c, 0, &beh, NULL), SP_ERR_INVALID);
  beh.max_failures = 3;
  for (int k = 0; k < sp_domain_action_count(d); k++)
    assert_int_equal(sp_crowd_set_action(c, k, &beh, NULL), SP_OK);
  int m = sp_domain_variable_count(d);
  SpValue cond[64], s0[64];
  memcpy(s0, b->starts[0].values, (size_t)m);
  for (int g = 0; g < 2; g++) { /* goal g: variable g one value on */
    memset(cond, SP_ANY, sizeof cond);
    cond[g] = (SpValue)((s0[g] + 1) % sp_variable_value_count(d, g));
    assert_int_equal(sp_crowd_add_goal(c, cond, 5 - g, NULL, NULL, NULL),
                     SP_OK);
  }
  size_t a;
  assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, &a, NULL), SP_OK);
  float failed_at[8], started_at[8], gave_at = -1.0f, t = 0.0f;
  int fails = 0, starts = 0, gave = 0, gave_reason = -1, gave_goal = -1,
      busy = 0;
  for (int frame = 0; frame < 40; frame++, t += 0.25f) {
    assert_int_equal(sp_crowd_update(c, 0.25f, NULL), SP_OK);
    const SpAgentEvent *ev = sp_crowd_events(c);
    for (size_t k = 0; k < sp_crowd_event_count(c); k++) {
      if (ev[k].goal != 0) continue;
      if (ev[k].kind == SP_EV_STEP_FAILED && fails < 8) failed_at[fails++] = t;
      if (ev[k].kind == SP_EV_STEP_STARTED && starts < 8)
        started_at[starts++] = t;
      if (ev[k].kind == SP_EV_GAVE_UP) {
        if (gave++ == 0) gave_at = t; /* the first give-up */
        gave_reason = ev[k].reason, gave_goal = ev[k].goal;
      }
    }
    for (size_t k = 0; k < sp_crowd_event_count(c); k++)
      if (ev[k].kind == SP_EV_WAITING && ev[k].action >= 0) {
        if (ev[k].goal == 0)
          assert_int_equal(sp_crowd_fail_step(c, a, 0, NULL), SP_OK);
        else
          busy = 1; /* goal 1's step lasts until 7 s: past the give-up */
      }
    if (busy && t >= 7.0f) {
      assert_int_equal(sp_crowd_finish_step(c, a, NULL), SP_OK);
      busy = 0;
    }
  }
  assert_true(fails >= 4);
  assert_true(gave >= 1);
  assert_int_equal(gave_reason, SP_REASON_SCRIPT);
  assert_int_equal(gave_goal, 0);
  assert_true(gave_at == failed_at[2]); /* the third failure gives up */
  /* the first failure replans at once, the second after 1 s */
  assert_true(started_at[1] - failed_at[0] < 0.3f);
  assert_true(started_at[2] - failed_at[1] >= 1.0f);
  assert_true(started_at[2] - failed_at[1] < 1.3f);
  /* given up for 4 s, then tried again */
  assert_true(started_at[3] - gave_at >= 4.0f);
  sp_crowd_free(c);
  sp_world_free(w);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* sp_row_copy (a goal row for planning) copies exactly m values for every
 * m, in words that overlap where m is not a multiple of them, and writes
 * nothing past the row. */
static void test_row_copy(void **state) {
  (void)state;
  SpValue src[48], dst[48 + 16];
  for (int m = 0; m <= 48; m++) {
    for (int k = 0; k < 48; k++) src[k] = (SpValue)(k * 37 + m + 1);
    memset(dst, 0xAB, sizeof dst);
    sp_row_copy(dst, src, m);
    assert_memory_equal(dst, src, (size_t)m);
    for (int k = m; k < (int)sizeof dst; k++) assert_int_equal(dst[k], 0xAB);
  }
}

/* A goal row's test (a list of its tested values, masked words or every
 * value, by how many it tests and m) says what the value-by-value
 * comparison says, for every m from 1 to 40, rows testing 0 to all their
 * values, and states equal to the row or off by one value; a row at the
 * end of a buffer is read without reading past it (valgrind, ASan). */
static void test_goal_tests(void **state) {
  (void)state;
  uint32_t seed = 12345;
  for (int m = 1; m <= 40; m++) {
    for (int trial = 0; trial < 200; trial++) {
      SpValue *row = malloc((size_t)m), *st = malloc((size_t)m);
      assert_non_null(row);
      assert_non_null(st);
      int tested = trial % (m + 1); /* 0 to m values tested */
      for (int v = 0; v < m; v++) {
        seed = seed * 1103515245u + 12345u;
        row[v] = v < tested ? (SpValue)(seed >> 24) % 5 : SP_ANY;
      }
      for (int v = m - 1; v > 0; v--) { /* the tested values anywhere */
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 16) % (uint32_t)(v + 1));
        SpValue t = row[v];
        row[v] = row[j], row[j] = t;
      }
      GoalTest t = sp_goal_test_of(row, m);
      int many = tested > GOAL_TESTS;
      assert_int_equal(t.how, !many                            ? GOAL_LIST
                              : m >= 4 && m <= GOAL_WORD_BYTES ? GOAL_WORDS
                                                               : GOAL_BYTES);
      for (int probe = 0; probe < 8; probe++) {
        for (int v = 0; v < m; v++) {
          seed = seed * 1103515245u + 12345u;
          st[v] = row[v] != SP_ANY ? row[v] : (SpValue)(seed >> 24) % 5;
        }
        if (probe > 0) { /* one value changed, tested or not */
          seed = seed * 1103515245u + 12345u;
          int v = (int)((seed >> 16) % (uint32_t)m);
          st[v] = (SpValue)((st[v] + 1 + probe % 3) % 5);
        }
        assert_int_equal(sp_goal_passes(&t, row, st, m),
                         sp_goal_holds(row, st, m));
      }
      free(row);
      free(st);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_row_copy),
      cmocka_unit_test(test_goal_tests),
      PAPER_COUNT_TEST(0, test_shortest_to_condition),
      PAPER_COUNT_TEST(1, test_shortest_to_condition),
      PAPER_COUNT_TEST(2, test_shortest_to_condition),
      PAPER_COUNT_TEST(3, test_shortest_to_condition),
      cmocka_unit_test(test_set_priority_keeps_goals),
      cmocka_unit_test(test_failures_back_off),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
