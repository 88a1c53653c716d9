/* test_agents_budget.c: a crowd's goal_budget lets that many agents choose a goal a frame, lowest index first, keeps the others asleep, and gives the same events for any thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "sp_agents.h"

enum { N = 3 * SP_CROWD_CHUNK + 77, BUDGET = 700, FRAMES = 80 };

/* The agents that chose a goal in the last frame, in event order. */
static size_t choosers(const SpCrowd *c, uint32_t *out) {
  size_t n = 0;
  for (size_t k = 0; k < sp_crowd_event_count(c); k++)
    if (sp_crowd_events(c)[k].kind == SP_EV_GOAL_CHOSEN)
      out[n++] = sp_crowd_events(c)[k].agent;
  return n;
}

static int awake(const SpCrowd *c, size_t i) {
  return (c->awake[i / 64] >> (i % 64)) & 1u;
}

/* Steps of 1-3 s and frames of 0.1 s: no plan ends in the first five
 * frames, so their goal choices are the budget's. */
static void test_spreads_first_choices(void **state) {
  (void)state;
  static uint32_t who[N];
  Citizens t;
  citizens_open_budget(&t, N, 1.0f, 3.0f, 1, 5, BUDGET);
  size_t seen = 0;
  for (int f = 0; seen < N; f++) {
    assert_int_equal(sp_crowd_update(t.c, 0.1f, NULL), SP_OK);
    size_t n = choosers(t.c, who);
    assert_int_equal(n, N - seen < BUDGET ? N - seen : BUDGET);
    for (size_t k = 0; k < n; k++) assert_int_equal(who[k], seen + k);
    seen += n;
    /* those still waiting sleep: no visit until their turn */
    for (size_t i = seen; i < N; i++) {
      assert_false(awake(t.c, i));
      assert_int_equal(t.c->agents[i].flags, F_NEED_GOAL);
    }
    assert_true(f < 6);
  }
  assert_int_equal(sp_crowd_update(t.c, 0.1f, NULL), SP_OK);
  assert_int_equal(choosers(t.c, who), 0);
  citizens_close(&t);
}

/* 1, 2 and 3 workers, every pass shared (parallel_min 1): the same events
 * frame by frame, through the budget's frames and the plans' ends, and the
 * same counters. */
static void test_same_events_any_threads(void **state) {
  (void)state;
  Citizens a, b, d;
  citizens_open_budget(&a, N, 0.5f, 2.0f, 1, 9, BUDGET);
  citizens_open_budget(&b, N, 0.5f, 2.0f, 2, 9, BUDGET);
  citizens_open_budget(&d, N, 0.5f, 2.0f, 3, 9, BUDGET);
  size_t events = 0;
  for (int f = 0; f < FRAMES; f++) {
    float dt = f % 7 == 3 ? 5.0f : 0.25f; /* a long frame: the sweep */
    assert_int_equal(sp_crowd_update(a.c, dt, NULL), SP_OK);
    assert_int_equal(sp_crowd_update(b.c, dt, NULL), SP_OK);
    assert_int_equal(sp_crowd_update(d.c, dt, NULL), SP_OK);
    same_frame_events(a.c, b.c);
    same_frame_events(a.c, d.c);
    events += sp_crowd_event_count(a.c);
  }
  assert_true(events > 10 * N);
  /* the counters too, whoever counted the events (a worker or the
   * calling thread) */
  const Citizens *more[] = {&b, &d};
  SpCrowdStats sa, sb;
  sp_crowd_stats(a.c, &sa);
  assert_true(sa.plans > N && sa.steps_finished > N);
  for (int k = 0; k < 2; k++) {
    sp_crowd_stats(more[k]->c, &sb);
    assert_int_equal(sa.plans, sb.plans);
    assert_int_equal(sa.replans, sb.replans);
    assert_int_equal(sa.no_plans, sb.no_plans);
    assert_int_equal(sa.events, sb.events);
    assert_int_equal(sa.steps_finished, sb.steps_finished);
  }
  citizens_close(&a);
  citizens_close(&b);
  citizens_close(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spreads_first_choices),
      cmocka_unit_test(test_same_events_any_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
