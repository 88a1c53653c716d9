/* test_agents_walk_due.c: walkers sleep until their next cell is due: a frame visits the walkers that reach a new cell, not every walker, and each walker reaches each cell of its descent in the first frame at or past that cell's due tick, whatever the frames' lengths and threads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "walk_town.h"

/* Due ticks as the crowd counts them: 65536 a second, the crowd clock (a
 * double sum of float frames) rounded to a tick; a walker takes a whole
 * number of ticks per cell, 65536 / speed rounded down. */
static int64_t ticks_of(double clock) {
  return (int64_t)floor(clock * 65536.0 + 0.5);
}

/* What one agent did: the tick its walk began at (its step_started),
 * the frame of that and of its arrival, its cell last frame. */
typedef struct Track {
  int64_t t0;
  int started, arrived;
  int x, y;
} Track;

typedef struct Run {
  WalkTown t;
  Track *tr;
  int64_t per_cell;
  size_t visits, moves, busy_frames;
} Run;

/* Checks agent i after frame f (clock `ticks`): on the cell of its
 * descent that the cells due by now reach, arrived in the first frame
 * after its start whose due cells reach the market, and its progress
 * toward the next cell (inspect's time_left) as the due tick says. */
static void check_agent(Run *r, size_t i, int f, int64_t ticks) {
  const Track *k = &r->tr[i];
  int len = r->t.len[i];
  int64_t due = (ticks - k->t0) / r->per_cell; /* cells due by now */
  int at = due < len ? (int)due : len;
  int x, y;
  assert_int_equal(sp_crowd_position(r->t.c, i, &x, &y), SP_OK);
  if (sp_grid_field_index(r->t.g, x, y) != walk_town_path(&r->t, i)[at])
    fail_msg("agent %zu frame %d: at (%d, %d), its descent is at cell %d of "
             "%d (%lld ticks after its start, %lld a cell)",
             i, f, x, y, at, len, (long long)(ticks - k->t0),
             (long long)r->per_cell);
  if (k->arrived < 0) { /* not yet: it has fewer cells due than to go */
    if (f > k->started && due >= len)
      fail_msg("agent %zu frame %d: %lld cells of %d due, not arrived", i, f,
               (long long)due, len);
    SpAgentInfo info;
    assert_int_equal(sp_crowd_inspect(r->t.c, i, &info), SP_OK);
    assert_int_equal(info.phase, SP_PHASE_WALKING);
    double progress =
        (double)(ticks - k->t0) / (double)r->per_cell - (double)due;
    if (fabs((double)info.time_left - progress) > 1e-5)
      fail_msg("agent %zu frame %d: progress %.7f, due ticks say %.7f", i, f,
               (double)info.time_left, progress);
  }
}

/* The frame's events: walks started (step_started of buy_food) and
 * arrivals, each checked against the due ticks; returns the agents with
 * an event. */
static size_t read_events(Run *r, int f, int64_t ticks) {
  const SpAgentEvent *ev = sp_crowd_events(r->t.c);
  size_t count = sp_crowd_event_count(r->t.c), touched = 0;
  for (size_t k = 0; k < count; k++) {
    size_t i = ev[k].agent;
    Track *tr = &r->tr[i];
    touched += k == 0 || ev[k - 1].agent != i;
    if (r->t.len[i] < 0) continue; /* it fails, cools down, tries again */
    if (ev[k].kind == SP_EV_STEP_STARTED && ev[k].action == r->t.buy) {
      assert_true(tr->started < 0);
      tr->started = f;
      tr->t0 = ticks;
    }
    if (ev[k].kind == SP_EV_ARRIVED) {
      assert_true(tr->started >= 0 && tr->started < f && tr->arrived < 0);
      int64_t due = (ticks - tr->t0) / r->per_cell;
      if (due < r->t.len[i])
        fail_msg("agent %zu arrived in frame %d, %lld cells of %d due", i, f,
                 (long long)due, r->t.len[i]);
      tr->arrived = f;
    }
  }
  return touched;
}

/* Runs frames of the lengths given (cycled) up to `until` seconds; after
 * each, every walk started is checked (check_agent), and an arrival is in
 * the first frame it can be (an agent not arrived has fewer cells due
 * than its descent has). With `count`: visits against the walkers that
 * moved, in frames where neither this nor the last frame was long (a
 * long frame visits everyone). */
static void run_walk(Run *r, const float *dts, size_t ndt, double until,
                     int count) {
  size_t n = r->t.n;
  double clock = 0.0;
  float last_dt = 0.0f;
  for (int f = 1; clock < until; f++) {
    float dt = dts[(size_t)(f - 1) % ndt];
    clock += dt;
    int64_t ticks = ticks_of(clock);
    assert_int_equal(sp_crowd_update(r->t.c, dt, NULL), SP_OK);
    size_t touched = read_events(r, f, ticks);
    size_t moved = 0;
    for (size_t i = 0; i < n; i++) {
      Track *tr = &r->tr[i];
      int x, y;
      assert_int_equal(sp_crowd_position(r->t.c, i, &x, &y), SP_OK);
      moved += x != tr->x || y != tr->y;
      tr->x = x, tr->y = y;
      if (r->t.len[i] >= 0 && tr->started >= 0) check_agent(r, i, f, ticks);
    }
    SpCrowdStats s;
    sp_crowd_counters(r->t.c, &s);
    if (count && dt < 4.0f && last_dt < 4.0f && f > 2) {
      /* the walkers due (each moves a cell or more) and the agents with
       * an event (planned, started, arrived) */
      if (s.visited > moved + touched)
        fail_msg("frame %d: %zu visited, %zu moved, %zu with events", f,
                 (size_t)s.visited, moved, touched);
      r->visits += s.visited;
      r->moves += moved;
      r->busy_frames++;
    }
    last_dt = dt;
  }
}

static void run_open(Run *r, uint64_t seed, int w, int h, size_t n, int threads,
                     float speed) {
  walk_town_open(&r->t, seed, w, h, n, threads, speed);
  r->tr = calloc(n, sizeof *r->tr);
  assert_non_null(r->tr);
  for (size_t i = 0; i < n; i++) {
    r->tr[i].started = r->tr[i].arrived = -1;
    assert_int_equal(sp_crowd_position(r->t.c, i, &r->tr[i].x, &r->tr[i].y),
                     SP_OK);
  }
  r->per_cell = (int64_t)floor(65536.0 / (double)speed);
  r->visits = r->moves = r->busy_frames = 0;
}

static void run_close(Run *r) {
  size_t arrived = 0, walked = 0;
  for (size_t i = 0; i < r->t.n; i++) {
    arrived += r->tr[i].arrived >= 0;
    walked += r->tr[i].started >= 0 && r->t.len[i] > 0;
  }
  assert_true(walked > r->t.n / 3 && arrived > r->t.n / 4);
  free(r->tr);
  walk_town_close(&r->t);
}

/* 2,000 walkers at 1.5 cells a second on 1/60 s frames: a frame visits
 * the walkers that reach a cell (about one in forty), not all of them. */
static void test_walkers_sleep_between_cells(void **state) {
  (void)state;
  static const float dts[] = {1.0f / 60.0f};
  for (int threads = 1; threads <= 2; threads++) {
    Run r;
    run_open(&r, 11, 120, 80, 2000, threads, 1.5f);
    run_walk(&r, dts, 1, 25.0, 1);
    assert_true(r.busy_frames > 1000);
    /* each walker moved is one visit; the rest plan or arrive */
    assert_true(r.visits <= r.moves + r.moves / 4 + 4000);
    assert_true(r.visits < r.busy_frames * 2000 / 10);
    run_close(&r);
  }
}

/* Frames of every length (short ones, ones of several wheel ticks, ones
 * long enough that everyone is visited): every walker reaches each cell
 * in the first frame at or past its due tick, at speeds with a fraction
 * of a tick per cell, and fast enough to take the skips. */
static void test_cells_reached_when_due(void **state) {
  (void)state;
  static const float dts[] = {1.0f / 60.0f, 1.0f / 60.0f, 0.1f,          0.37f,
                              1.0f / 30.0f, 5.0f,         1.0f / 60.0f,  0.02f,
                              30.0f,        0.25f,        1.0f / 144.0f, 2.5f};
  static const float speeds[] = {1.5f, 2.5f, 21.5f};
  for (int threads = 1; threads <= 3; threads += 2)
    for (size_t s = 0; s < 3; s++) {
      Run r;
      run_open(&r, 3 + s, 96, 64, 600, threads, speeds[s]);
      run_walk(&r, dts, sizeof dts / sizeof *dts, 160.0, 0);
      run_close(&r);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_walkers_sleep_between_cells),
      cmocka_unit_test(test_cells_reached_when_due),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
