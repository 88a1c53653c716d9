/* test_agents_detail.c: the detail of agents' no_plans, kept apart from their records: made by a crowd's first no_plan, counted, saved, and lost without harm when memory runs out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "saspu_agents.h"
#include "sp_agents.h"
#include "sp_save.h"
#include "test_alloc.h"

/* The record every visit of an agent reads (with its phase, flags and
 * due time) stays small: the detail of a no_plan is not in it. */
static void test_record_size(void **state) {
  (void)state;
  assert_int_equal(sizeof(Agent), 56);
  assert_int_equal(sizeof(FailDetail), 8);
}

/* A citizen goal without a plan: no food and working (work needs food,
 * and nothing takes food away). */
static void impossible_goal(const SpDomain *d, SpValue *goal) {
  memset(goal, SP_ANY, 16);
  goal[0] = 0;
  for (int v = 0; v < sp_domain_variable_count(d); v++)
    if (strcmp(sp_variable_name(d, v), "working") == 0) goal[v] = 1;
}

/* Every no_plan event of the last frame: its agent's detail names the
 * failure the event carries. Returns how many. */
static size_t check_no_plans(const SpCrowd *c) {
  const SpAgentEvent *ev = sp_crowd_events(c);
  size_t n = 0;
  for (size_t k = 0; k < sp_crowd_event_count(c); k++) {
    if (ev[k].kind != SP_EV_NO_PLAN) continue;
    SpFailure f = sp_crowd_last_failure(c, ev[k].agent);
    assert_int_not_equal(f.code, SP_FAIL_NONE);
    assert_int_equal(f.code, ev[k].detail);
    n++;
  }
  return n;
}

static void frames(SpCrowd *c, int count) {
  for (int f = 0; f < count; f++)
    assert_int_equal(sp_crowd_update(c, 1.0f / 60.0f, NULL), SP_OK);
}

/* A crowd whose goals all have plans holds no detail; its first no_plan
 * (on the workers) makes the array, which its bytes then count. */
static void test_detail_made_by_first_no_plan(void **state) {
  (void)state;
  enum { N = 20000 };
  Citizens t;
  citizens_open(&t, N, 1.0f, 3.0f, 2, 1);
  frames(t.c, 30);
  assert_null(atomic_load(&t.c->detail));
  assert_int_equal(sp_crowd_last_failure(t.c, 0).code, SP_FAIL_NONE);
  SpCrowdStats before, after;
  sp_crowd_stats(t.c, &before);
  SpValue goal[16];
  impossible_goal(t.d, goal);
  int index = -1;
  assert_int_equal(sp_crowd_add_goal(t.c, goal, 1, NULL, &index, NULL), SP_OK);
  assert_int_equal(sp_crowd_set_priority(t.c, index, 5, NULL), SP_OK);
  /* running plans yield at their steps' ends (1-3 s) */
  size_t no_plans = 0;
  for (int f = 0; f < 200; f++) {
    frames(t.c, 1);
    no_plans += check_no_plans(t.c);
  }
  assert_true(no_plans > N / 2);
  assert_non_null(atomic_load(&t.c->detail));
  frames(t.c, 30);
  SpError err;
  assert_int_equal(sp__crowd_check(t.c, &err), SP_OK);
  sp_crowd_stats(t.c, &after);
  assert_true(after.bytes_total >=
              before.bytes_total + (size_t)N * sizeof(FailDetail));
  citizens_close(&t);
}

/* A save holds the details; loading them into a crowd that has none
 * makes its array, and an agent spawned into a reused slot starts
 * without its predecessor's. */
static void test_detail_saved_and_loaded(void **state) {
  (void)state;
  enum { N = 300 };
  Citizens t, u;
  citizens_open(&t, N, 1.0f, 3.0f, 1, 1);
  citizens_open(&u, N, 1.0f, 3.0f, 1, 1);
  SpValue goal[16];
  impossible_goal(t.d, goal);
  assert_int_equal(sp_crowd_add_goal(t.c, goal, 5, NULL, NULL, NULL), SP_OK);
  assert_int_equal(sp_crowd_add_goal(u.c, goal, 5, NULL, NULL, NULL), SP_OK);
  frames(t.c, 3);
  void *buf = NULL;
  size_t len = 0;
  const SpCrowd *saved[1] = {t.c};
  assert_int_equal(sp_world_save(t.w, saved, 1, NULL, 0, &buf, &len, NULL),
                   SP_OK);
  assert_null(atomic_load(&u.c->detail));
  SpCrowd *into[1] = {u.c};
  SpError err;
  assert_int_equal(sp_world_load(u.w, into, 1, buf, len, NULL, NULL, &err),
                   SP_OK);
  assert_non_null(atomic_load(&u.c->detail));
  size_t named = 0;
  for (size_t i = 0; i < N; i++) {
    SpFailure a = sp_crowd_last_failure(t.c, i),
              b = sp_crowd_last_failure(u.c, i);
    assert_memory_equal(&a, &b, sizeof a);
    named += a.code != SP_FAIL_NONE;
  }
  assert_int_equal(named, N);
  sp_world_save_free(t.w, buf, len);
  assert_int_equal(sp_crowd_despawn(u.c, 7, NULL), SP_OK);
  SpValue start[16] = {0};
  size_t again = 0;
  assert_int_equal(sp_crowd_spawn(u.c, start, 1, 1, SP_NO_PLACE, &again, NULL),
                   SP_OK);
  assert_int_equal(again, 7);
  assert_int_equal(sp_crowd_last_failure(u.c, 7).code, SP_FAIL_NONE);
  citizens_close(&t);
  citizens_close(&u);
}

/* One citizen, everything allocated through ta, its first goal without
 * a plan. */
static void one_open(Citizens *o, TestAlloc *ta) {
  citizens_open_on(o, 1, 1.0f, 3.0f, 1, 1, test_alloc_hook(ta));
  SpValue goal[16];
  impossible_goal(o->d, goal);
  assert_int_equal(sp_crowd_add_goal(o->c, goal, 5, NULL, NULL, NULL), SP_OK);
}

/* Whichever allocation of the no_plan's frame fails, the frame either
 * fails whole (SP_ERR_MEMORY) or runs; an agent whose detail found no
 * memory still reports its no_plan event and plans its next goal, and
 * only its explanation names no failure. Nothing leaks. */
static void test_detail_without_memory(void **state) {
  (void)state;
  TestAlloc ta;
  Citizens o;
  test_alloc_init(&ta, 0);
  one_open(&o, &ta);
  long set_up = ta.calls;
  assert_int_equal(sp_crowd_update(o.c, 0.1f, NULL), SP_OK);
  long frame_calls = ta.calls - set_up;
  citizens_close(&o);
  assert_int_equal(ta.live, 0);
  int lost = 0;
  for (long k = 1; k <= frame_calls; k++) {
    test_alloc_init(&ta, set_up + k);
    one_open(&o, &ta);
    assert_int_equal(ta.calls, set_up);
    SpStatus st = sp_crowd_update(o.c, 0.1f, NULL);
    assert_true(st == SP_OK || st == SP_ERR_MEMORY);
    SpError err;
    assert_int_equal(sp__crowd_check(o.c, &err), SP_OK);
    if (st == SP_OK && sp_crowd_last_failure(o.c, 0).code == SP_FAIL_NONE) {
      lost++; /* the event and the fallback are there all the same */
      const SpAgentEvent *ev = sp_crowd_events(o.c);
      int no_plan = 0;
      for (size_t j = 0; j < sp_crowd_event_count(o.c); j++)
        no_plan += ev[j].kind == SP_EV_NO_PLAN;
      assert_int_equal(no_plan, 1);
      assert_null(atomic_load(&o.c->detail));
    }
    citizens_close(&o);
    assert_int_equal(ta.live, 0);
  }
  assert_true(lost >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_record_size),
      cmocka_unit_test(test_detail_made_by_first_no_plan),
      cmocka_unit_test(test_detail_saved_and_loaded),
      cmocka_unit_test(test_detail_without_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
