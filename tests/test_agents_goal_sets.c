/* test_agents_goal_sets.c: agents pursuing goals of sets (sp_crowd_set_goal_choices): the population's plan is sp_plan_any's, of the BFS length to the nearest member; bad calls and a failing allocator change nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"
#include "paper_facts.h"
#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_builtin.h"
#include "test_alloc.h"

/* Goals of sets checked per paper domain. */
#define SET_GOALS 24
#define MAXV      16

static const SpAllocator plain = {NULL, NULL};

/* A random goal of sets as its combinations (first variable slowest):
 * each variable free (1 in 3) or a random non-empty subset of its
 * values. Returns the count (at most SP_GOAL_CHOICES_MAX, else 0). */
static int random_choices(RdRng *r, const SpDomain *d, SpValue *out,
                          unsigned *mask) {
  int m = sp_domain_variable_count(d), count = 1;
  for (int v = 0; v < m; v++) {
    unsigned all = (1u << sp_variable_value_count(d, v)) - 1u;
    mask[v] = rd_below(r, 3) == 0 ? 0 : 1u + (unsigned)rd_below(r, (int)all);
    if (mask[v] == all) mask[v] = 0;
    int k = 0;
    for (unsigned x = mask[v]; x; x &= x - 1) k++;
    if (k > 0) count *= k;
  }
  if (count > SP_GOAL_CHOICES_MAX) return 0;
  for (int c = 0; c < count; c++) {
    int rest = c;
    for (int v = m - 1; v >= 0; v--) {
      int members[32], k = 0;
      for (int x = 0; x < 32; x++)
        if (mask[v] >> x & 1u) members[k++] = x;
      out[(size_t)c * (size_t)m + (size_t)v] =
          k == 0 ? SP_ANY : (SpValue)members[rest % k];
      if (k > 0) rest /= k;
    }
  }
  return count;
}

static int accepted(const unsigned *mask, const SpValue *s, int m) {
  for (int v = 0; v < m; v++)
    if (mask[v] != 0 && !(mask[v] >> s[v] & 1u)) return 0;
  return 1;
}

/* One crowd per goal of sets (two threads), one agent per state: the
 * first plan of each agent is byte for byte sp_plan_any's (so the
 * population and its cache plan what the single planner plans), its
 * length is the BFS distance to the nearest accepted state, no_plan iff
 * none is reachable, an agent already in an accepted state idles, and
 * every planned agent ends in an accepted state. */
static void test_agents_plan_nearest_member(void **state) {
  const PaperCount *p = *state;
  SpBuiltSpec *b = p->build(plain);
  SpDomain *d;
  SpWorkspace *ws;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, NULL), SP_OK);
  assert_int_equal(sp_workspace_new(d, plain, &ws, NULL), SP_OK);
  OracleSpace *o = oracle_space_new(d);
  assert_non_null(o);
  int m = sp_domain_variable_count(d);
  long n = oracle_state_count(o), planned = 0, idle = 0, none = 0;
  static SpValue choices[SP_GOAL_CHOICES_MAX * MAXV];
  unsigned mask[MAXV];
  uint16_t want[256], got[256];
  SpValue s0[MAXV], end[MAXV];
  RdRng r;
  rd_seed(&r, 0x60A15E7ull);
  for (int q = 0; q < SET_GOALS; q++) {
    int count = random_choices(&r, d, choices, mask);
    if (count == 0) continue;
    SpWorld *w;
    SpCrowd *c;
    SpCrowdOptions opt;
    int index;
    memset(&opt, 0, sizeof opt);
    opt.capacity = (size_t)n;
    opt.threads = 2;
    opt.parallel_min = 1; /* threads share even small passes */
    assert_int_equal(sp_world_new(NULL, plain, &w, NULL), SP_OK);
    assert_int_equal(sp_crowd_new(w, d, &opt, plain, &c, NULL), SP_OK);
    assert_int_equal(sp_crowd_add_goal(c, choices, 1, NULL, &index, NULL),
                     SP_OK);
    assert_int_equal(sp_crowd_set_goal_choices(c, index, choices, count, NULL),
                     SP_OK);
    for (int a = 0; a < sp_domain_action_count(d); a++) { /* plans stay */
      SpActionBehaviour beh;
      memset(&beh, 0, sizeof beh);
      beh.min_duration = beh.max_duration = 1.0f;
      beh.place = SP_NO_PLACE;
      assert_int_equal(sp_crowd_set_action(c, a, &beh, NULL), SP_OK);
    }
    for (long s = 0; s < n; s++) {
      oracle_state_decode(o, s, s0);
      assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, NULL, NULL),
                       SP_OK);
    }
    assert_int_equal(sp_crowd_update(c, 0.0f, NULL), SP_OK);
    int *first = malloc((size_t)n * sizeof(int)); /* -2: none, -3: idle */
    for (long s = 0; s < n; s++) first[s] = -2;
    const SpAgentEvent *e = sp_crowd_events(c);
    for (size_t j = 0; j < sp_crowd_event_count(c); j++) {
      if (first[e[j].agent] != -2) continue;
      if (e[j].kind == SP_EV_PLANNED) first[e[j].agent] = e[j].detail;
      if (e[j].kind == SP_EV_NO_PLAN) first[e[j].agent] = -1;
      if (e[j].kind == SP_EV_IDLE) first[e[j].agent] = -3;
    }
    for (long s = 0; s < n; s++) {
      int len = 0, glen = -1, best = -1;
      oracle_state_decode(o, s, s0);
      oracle_bfs(o, s0);
      for (long t = 0; t < n; t++) {
        int dist = oracle_distance_at(o, t);
        if (dist < 0 || (best >= 0 && dist >= best)) continue;
        oracle_state_decode(o, t, end);
        if (accepted(mask, end, m)) best = dist;
      }
      SpStatus st =
          sp_plan_any(d, ws, s0, choices, count, want, &len, NULL, NULL);
      if (best == 0) {
        assert_int_equal(first[s], -3);
        idle++;
        continue;
      }
      if (best < 0) {
        assert_int_equal(st, SP_NO_PLAN);
        assert_int_equal(first[s], -1);
        none++;
        continue;
      }
      assert_int_equal(st, SP_OK);
      assert_int_equal(len, best);
      assert_int_equal(first[s], best);
      assert_int_equal(sp_crowd_plan(c, (size_t)s, got, &glen), SP_OK);
      assert_int_equal(glen, len);
      assert_memory_equal(got, want, (size_t)len * sizeof *got);
      planned++;
    }
    for (int f = 0; f < 40; f++)
      assert_int_equal(sp_crowd_update(c, 0.5f, NULL), SP_OK);
    for (long s = 0; s < n; s++)
      if (first[s] > 0)
        assert_true(accepted(mask, sp_crowd_state(c, (size_t)s), m));
    free(first);
    sp_crowd_free(c);
    sp_world_free(w);
  }
  printf("%s: %ld plans, %ld idle, %ld no_plan\n", p->test, planned, idle,
         none);
  assert_true(planned > 0 && idle > 0);
  oracle_space_free(o);
  sp_workspace_free(ws);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* Bad calls and a failing allocator leave the goal as it was. */
static void test_set_goal_choices_refusals(void **state) {
  SpBuiltSpec *b = sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  SpDomain *d;
  SpWorld *w;
  SpCrowd *c;
  SpError err;
  SpCrowdOptions opt;
  TestAlloc ta;
  SpValue one[3] = {SP_ANY, SP_ANY, 2},
          two[6] = {SP_ANY, SP_ANY, 1, SP_ANY, SP_ANY, 2};
  SpValue bad[6] = {SP_ANY, SP_ANY, 1, SP_ANY, SP_ANY, 7};
  SpValue s0[3] = {0, 0, 1}; /* water in_bucket: a member of two */
  int index;
  (void)state;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, NULL), SP_OK);
  memset(&opt, 0, sizeof opt);
  opt.capacity = 4;
  opt.threads = 1;
  test_alloc_init(&ta, 0);
  assert_int_equal(sp_world_new(NULL, plain, &w, NULL), SP_OK);
  assert_int_equal(sp_crowd_new(w, d, &opt, test_alloc_hook(&ta), &c, NULL),
                   SP_OK);
  assert_int_equal(sp_crowd_add_goal(c, one, 1, NULL, &index, NULL), SP_OK);
  assert_int_equal(sp_crowd_set_goal_choices(c, 5, two, 2, &err), SP_ERR_STATE);
  assert_non_null(strstr(err.message, "goal 5 does not exist"));
  assert_int_equal(sp_crowd_set_goal_choices(c, index, two, 0, &err),
                   SP_ERR_STATE);
  assert_int_equal(
      sp_crowd_set_goal_choices(c, index, two, SP_GOAL_CHOICES_MAX + 1, &err),
      SP_ERR_STATE);
  assert_int_equal(sp_crowd_set_goal_choices(c, index, bad, 2, &err),
                   SP_ERR_STATE);
  assert_non_null(strstr(err.message, "choice 2: value 7 is out of range"));
  /* the next allocation fails: nothing changes */
  ta.fail_at = ta.calls + 1;
  assert_int_equal(sp_crowd_set_goal_choices(c, index, two, 2, &err),
                   SP_ERR_MEMORY);
  ta.fail_at = 0;
  /* still water = in_trough only: an agent with water in_bucket plans */
  assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, NULL, NULL), SP_OK);
  assert_int_equal(sp_crowd_update(c, 0.0f, NULL), SP_OK);
  assert_int_equal(sp_crowd_events(c)[0].kind, SP_EV_GOAL_CHOSEN);
  /* with both members it holds at once: the agent idles */
  assert_int_equal(sp_crowd_set_goal_choices(c, index, two, 2, &err), SP_OK);
  assert_int_equal(sp_crowd_spawn(c, s0, 0, 0, SP_NO_PLACE, NULL, NULL), SP_OK);
  assert_int_equal(sp_crowd_update(c, 0.0f, NULL), SP_OK);
  const SpAgentEvent *e = sp_crowd_events(c);
  for (size_t j = 0; j < sp_crowd_event_count(c); j++)
    if (e[j].agent == 1) assert_int_equal(e[j].kind, SP_EV_IDLE);
  /* one choice again: as a plain goal */
  assert_int_equal(sp_crowd_set_goal_choices(c, index, one, 1, &err), SP_OK);
  sp_crowd_free(c);
  assert_int_equal(ta.live, 0);
  sp_world_free(w);
  sp_domain_free(d);
  sp_builtin_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PAPER_COUNT_TEST(0, test_agents_plan_nearest_member),
      PAPER_COUNT_TEST(1, test_agents_plan_nearest_member),
      PAPER_COUNT_TEST(2, test_agents_plan_nearest_member),
      PAPER_COUNT_TEST(3, test_agents_plan_nearest_member),
      cmocka_unit_test(test_set_goal_choices_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
