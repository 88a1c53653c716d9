/* test_agents_wheel.c: due times: a frame visits only the agents whose wait ends (or who think), and every timed step ends in the first frame at or past its due time, whatever the frames' lengths. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"

static size_t finished(const SpCrowd *c) {
  size_t n = 0, count = sp_crowd_event_count(c);
  const SpAgentEvent *e = sp_crowd_events(c);
  for (size_t k = 0; k < count; k++) n += e[k].kind == SP_EV_STEP_FINISHED;
  return n;
}

/* Steps of 10-20 s: once every agent acts, frames visit nobody until the
 * first steps end; then each frame visits the agents whose step ended
 * (and those whose goal a step reached the frame before: they planned). */
static void test_waiting_agents_cost_nothing(void **state) {
  (void)state;
  enum { N = 20000 };
  Citizens t;
  citizens_open(&t, N, 10.0f, 20.0f, 2, 7);
  SpCrowdStats s;
  assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  sp_crowd_counters(t.c, &s);
  assert_int_equal(s.visited, N);  /* every agent plans and starts */
  for (int f = 2; f <= 590; f++) { /* under 10 s */
    assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
    sp_crowd_counters(t.c, &s);
    assert_int_equal(s.visited, 0);
  }
  size_t last = 0, all_visits = 0, all_done = 0;
  for (int f = 591; f <= 1500; f++) { /* 10 to 25 s */
    assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
    sp_crowd_counters(t.c, &s);
    size_t now = finished(t.c);
    /* each agent whose step ended, and those whose goal was reached the
     * frame before (they planned again) */
    assert_true(s.visited >= now && s.visited <= now + last);
    all_visits += s.visited;
    all_done += now;
    last = now;
  }
  assert_true(all_done >= N); /* every agent finished a step */
  assert_true(all_visits <= 2 * all_done);
  citizens_close(&t);
}

/* The crowd clock as the crowd keeps it: a double sum of float frames. */
typedef struct Due {
  double *at; /* per agent: the due time of its running step, or -1 */
} Due;

/* Runs frames of the lengths given (cycled) up to `until` seconds; each
 * step must end in the first frame whose clock reaches its due time (the
 * crowd clock of its start plus its duration, read through
 * sp_crowd_inspect's time_left), within a tick of rounding. */
static void run_checked(Citizens *t, size_t n, const float *dts, size_t ndt,
                        double until) {
  const double eps = 1.5 / 65536.0;
  Due d = {calloc(n, sizeof(double))};
  assert_non_null(d.at);
  for (size_t i = 0; i < n; i++) d.at[i] = -1.0;
  double clock = 0.0, before = 0.0;
  size_t ends = 0;
  for (size_t f = 0; clock < until; f++) {
    float dt = dts[f % ndt];
    before = clock;
    clock += dt;
    assert_int_equal(sp_crowd_update(t->c, dt, NULL), SP_OK);
    const SpAgentEvent *e = sp_crowd_events(t->c);
    for (size_t k = 0; k < sp_crowd_event_count(t->c); k++) {
      size_t i = e[k].agent;
      if (e[k].kind == SP_EV_STEP_FINISHED) {
        assert_true(d.at[i] >= 0.0);
        if (!(clock >= d.at[i] - eps && before < d.at[i] + eps))
          fail_msg("agent %zu: due at %.6f s, ended in the frame (%.6f, %.6f]",
                   i, d.at[i], before, clock);
        d.at[i] = -1.0;
        ends++;
      }
    }
    for (size_t k = 0; k < sp_crowd_event_count(t->c); k++) {
      if (e[k].kind != SP_EV_STEP_STARTED) continue;
      SpAgentInfo info;
      assert_int_equal(sp_crowd_inspect(t->c, e[k].agent, &info), SP_OK);
      assert_int_equal(info.phase, SP_PHASE_ACTING);
      d.at[e[k].agent] = clock + (double)info.time_left;
    }
  }
  assert_true(ends >= n);
  free(d.at);
}

/* Frames of every length: short ones, ones of several wheel ticks, ones
 * long enough that every agent is visited (and the wheel is rebuilt
 * after them); steps longer than a lap of the wheel. */
static void test_steps_end_when_due(void **state) {
  (void)state;
  static const float dts[] = {1.0f / 60.0f, 1.0f / 60.0f, 0.1f,          0.37f,
                              1.0f / 30.0f, 5.0f,         1.0f / 60.0f,  0.02f,
                              30.0f,        0.25f,        1.0f / 144.0f, 2.5f};
  for (int threads = 1; threads <= 3; threads += 2) {
    Citizens t;
    citizens_open(&t, 600, 0.5f, 40.0f, threads, 7);
    run_checked(&t, 600, dts, sizeof dts / sizeof *dts, 400.0);
    citizens_close(&t);
  }
}

/* Ten hours of frames of 3.5 s: the clock passes the point where due
 * times move to a later epoch, and every step still ends on time. */
static void test_steps_end_when_due_after_hours(void **state) {
  (void)state;
  static const float dts[] = {3.5f};
  Citizens t;
  citizens_open(&t, 40, 5.0f, 40.0f, 1, 7);
  run_checked(&t, 40, dts, 1, 36000.0);
  citizens_close(&t);
}

/* Agents that start together with steps of one length sleep in one slot
 * of the wheel: steps longer than a lap come round to their slot before
 * they are due (kept, never visited), and every step still ends in its
 * frame. */
static void test_a_slot_holding_the_crowd(void **state) {
  (void)state;
  enum { N = 8000 };
  static const float dts[] = {1.0f / 60.0f};
  const float lengths[] = {3.0f, 20.0f}; /* within a lap (16 s), past one */
  for (int k = 0; k < 2; k++) {
    Citizens t;
    citizens_open(&t, N, lengths[k], lengths[k], 1, 5);
    SpCrowdStats s;
    int waits = (int)((lengths[k] - 0.5f) * 60.0f);
    for (int f = 1; f <= waits; f++) { /* all plan, start, then wait */
      assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
      sp_crowd_counters(t.c, &s);
      if (f > 1) assert_int_equal(s.visited, 0);
    }
    citizens_close(&t);
    citizens_open(&t, N, lengths[k], lengths[k], 1, 5);
    run_checked(&t, N, dts, 1, 3.0 * lengths[k] + 1.0);
    citizens_close(&t);
  }
}

/* Each worker files the timers of the agents it visits in a wheel of its
 * own, and the wheels drain on several threads (parallel_min 1: every
 * frame with a few agents due): the events are those of one thread, in
 * the same order, frame by frame, with steps past a lap of the wheel. */
static void test_worker_wheels_same_events(void **state) {
  (void)state;
  enum { N = 3000 };
  static const float dts[] = {1.0f / 60.0f, 0.05f, 1.0f / 60.0f, 0.3f};
  Citizens one, three;
  citizens_open(&one, N, 2.0f, 24.0f, 1, 11);
  citizens_open(&three, N, 2.0f, 24.0f, 3, 11);
  size_t ends = 0;
  for (size_t f = 0; f < 1200; f++) {
    float dt = dts[f % 4];
    assert_int_equal(sp_crowd_update(one.c, dt, NULL), SP_OK);
    assert_int_equal(sp_crowd_update(three.c, dt, NULL), SP_OK);
    size_t n = sp_crowd_event_count(one.c);
    assert_int_equal(sp_crowd_event_count(three.c), n);
    const SpAgentEvent *a = sp_crowd_events(one.c),
                       *b = sp_crowd_events(three.c);
    for (size_t k = 0; k < n; k++) {
      if (a[k].agent != b[k].agent || a[k].kind != b[k].kind)
        fail_msg("frame %zu, event %zu: agent %u kind %d on one thread, "
                 "agent %u kind %d on three",
                 f, k, (unsigned)a[k].agent, (int)a[k].kind,
                 (unsigned)b[k].agent, (int)b[k].kind);
    }
    ends += finished(one.c);
  }
  assert_true(ends >= N); /* every agent finished a step, most several */
  citizens_close(&one);
  citizens_close(&three);
}

/* Agents despawned mid-step leave their timers' entries in the wheel, and
 * the agents spawned into their slots start timers of their own, so the
 * old entries come due while the new agents act. Nobody is visited for
 * them (a frame visits the agents whose step ended, and those who planned
 * again), and every step, old or new, ends in the frame of its due time. */
static void test_stale_entries_visit_nobody(void **state) {
  (void)state;
  enum { N = 2000, RESPAWN = 180 };
  const double eps = 1.5 / 65536.0;
  const float dt = 1.0f / 60.0f;
  for (int threads = 1; threads <= 3; threads += 2) {
    Citizens t;
    citizens_open(&t, N, 4.0f, 12.0f, threads, 9);
    double *at = malloc(N * sizeof *at), clock = 0.0;
    assert_non_null(at);
    for (size_t i = 0; i < N; i++) at[i] = -1.0;
    size_t last = 0, ends = 0;
    for (int f = 1; f <= 60 * 30; f++) {
      if (f == RESPAWN) { /* 3 s in: every other agent, mid-step */
        SpValue start[16] = {0};
        for (size_t i = 0; i < N; i += 2) {
          assert_int_equal(sp_crowd_despawn(t.c, i, NULL), SP_OK);
          at[i] = -1.0;
        }
        for (size_t i = 0; i < N; i += 2)
          assert_int_equal(
              sp_crowd_spawn(t.c, start, 1, 1, SP_NO_PLACE, NULL, NULL), SP_OK);
      }
      double before = clock;
      clock += dt;
      assert_int_equal(sp_crowd_update(t.c, dt, NULL), SP_OK);
      const SpAgentEvent *e = sp_crowd_events(t.c);
      size_t now = 0;
      for (size_t k = 0; k < sp_crowd_event_count(t.c); k++) {
        size_t i = e[k].agent;
        if (e[k].kind != SP_EV_STEP_FINISHED) continue;
        if (!(at[i] >= 0.0 && clock >= at[i] - eps && before < at[i] + eps))
          fail_msg("agent %zu: due at %.6f s, ended in the frame (%.6f, %.6f]",
                   i, at[i], before, clock);
        at[i] = -1.0;
        now++;
      }
      for (size_t k = 0; k < sp_crowd_event_count(t.c); k++) {
        if (e[k].kind != SP_EV_STEP_STARTED) continue;
        SpAgentInfo info;
        assert_int_equal(sp_crowd_inspect(t.c, e[k].agent, &info), SP_OK);
        at[e[k].agent] = clock + (double)info.time_left;
      }
      for (size_t i = 0; i < N; i++) /* none left behind: each ends */
        if (at[i] >= 0.0 && at[i] < before - eps)
          fail_msg("agent %zu: due at %.6f s, still acting at %.6f", i, at[i],
                   clock);
      SpCrowdStats s;
      sp_crowd_counters(t.c, &s);
      if (f > RESPAWN + 1 && !(s.visited >= now && s.visited <= now + last))
        fail_msg(
            "frame %d: %zu visited, %zu steps ended (%zu the frame before)", f,
            (size_t)s.visited, now, last);
      last = now;
      ends += now;
    }
    assert_true(ends >= 2 * N); /* the old steps, the new ones, and more */
    free(at);
    citizens_close(&t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_waiting_agents_cost_nothing),
      cmocka_unit_test(test_steps_end_when_due),
      cmocka_unit_test(test_steps_end_when_due_after_hours),
      cmocka_unit_test(test_a_slot_holding_the_crowd),
      cmocka_unit_test(test_worker_wheels_same_events),
      cmocka_unit_test(test_stale_entries_visit_nobody),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
