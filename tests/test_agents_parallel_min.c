/* test_agents_parallel_min.c: an update shares a pass with worker threads only when it has parallel_min agents per worker to visit and gives the same events whoever runs it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "saspu_threads.h"
#include "sp_agents.h"

enum { N = 6 * SP_CROWD_CHUNK, FRAMES = 240 };

/* Frames of 1/60 s (some 50 of the N citizens end a step: a small frame),
 * and every 40th a frame of 2 s (most do: a large one). */
static float frame_dt(int f) { return f % 40 == 39 ? 2.0f : 1.0f / 60.0f; }

static uint64_t woken(const SpCrowd *c) {
  SpCrowdStats s;
  sp_crowd_counters(c, &s);
  return s.workers_woken;
}

/* With the default, a small frame runs on the calling thread and a large
 * one wakes workers; with parallel_min 1 small frames wake them too; the
 * events equal one thread's every frame. */
static void test_small_frames_wake_nobody(void **state) {
  (void)state;
  Citizens one, dflt, every;
  citizens_open_min(&one, N, 1.0f, 3.0f, 1, 7, 0);
  citizens_open_min(&dflt, N, 1.0f, 3.0f, 4, 7, 0);
  citizens_open_min(&every, N, 1.0f, 3.0f, 4, 7, 1);
  size_t small_quiet = 0, small = 0, large_woke = 0, large = 0, shared = 0;
  for (int f = 0; f < FRAMES; f++) {
    float dt = frame_dt(f);
    assert_int_equal(sp_crowd_update(one.c, dt, NULL), SP_OK);
    assert_int_equal(sp_crowd_update(dflt.c, dt, NULL), SP_OK);
    assert_int_equal(sp_crowd_update(every.c, dt, NULL), SP_OK);
    same_frame_events(one.c, dflt.c);
    same_frame_events(one.c, every.c);
    assert_int_equal(woken(one.c), 0); /* one thread has nobody to wake */
    SpCrowdStats s;
    sp_crowd_counters(dflt.c, &s);
    /* every pass of this frame had fewer than 2 x 256 agents to visit */
    if (f > 0 && s.visited < 2 * SP_CROWD_PLAN_PARALLEL_MIN &&
        sp_crowd_event_count(dflt.c) < 2 * SP_CROWD_PLAN_PARALLEL_MIN) {
      small++;
      small_quiet += woken(dflt.c) == 0;
    }
    if (f == 0 || s.visited >= 2 * SP_CROWD_PLAN_PARALLEL_MIN) {
      large++;
      large_woke += woken(dflt.c) > 0;
    }
    shared += woken(every.c) > 0;
  }
  assert_true(small > FRAMES / 2);
  assert_int_equal(small_quiet, small);
  assert_true(large >= FRAMES / 40);
  assert_int_equal(large_woke, large);
  assert_true(shared > FRAMES / 2); /* parallel_min 1: small frames too */
  citizens_close(&one);
  citizens_close(&dflt);
  citizens_close(&every);
}

/* A large frame wakes at most one worker per parallel_min agents, and no
 * more than the crowd has. */
static void test_workers_follow_the_load(void **state) {
  (void)state;
  Citizens t;
  citizens_open_min(&t, N, 1.0f, 3.0f, 4, 3, N / 2);
  /* the first frame: N agents choose, are planned, start; at most one
   * worker besides the caller in each of its four passes and planning */
  assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  assert_true(woken(t.c) >= 1);
  assert_true(woken(t.c) <= 4);
  citizens_close(&t);
  citizens_open_min(&t, N, 1.0f, 3.0f, 4, 3, 1);
  assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  /* the choose pass, which plans and takes inline, on 3 workers besides
   * the caller (the take starts every step: the advance pass finds
   * nothing due) */
  assert_true(woken(t.c) >= 3);
  citizens_close(&t);
}

/* The pool runs a job on exactly the workers asked for, however their
 * number changes from one job to the next. */
typedef struct Ran {
  int hits[8];
} Ran;

static void mark(void *arg, int worker) { ((Ran *)arg)->hits[worker]++; }

static void test_pool_runs_the_workers_asked_for(void **state) {
  (void)state;
  SpThreadPool *pool = NULL;
  SpAllocator plain = {NULL, NULL};
  assert_int_equal(sp_thread_pool_new(8, plain, &pool, NULL), SP_OK);
  Ran want = {{0}}, ran = {{0}};
  for (int k = 0; k < 2000; k++) {
    int workers = 1 + (k * 5) % 8;
    for (int w = 0; w < workers; w++) want.hits[w]++;
    sp_thread_pool_run(pool, workers, mark, &ran);
  }
  for (int w = 0; w < 8; w++) assert_int_equal(ran.hits[w], want.hits[w]);
  sp_thread_pool_shrink(pool, 3);
  sp_thread_pool_run(pool, 8, mark, &ran); /* clamped to the 3 left */
  for (int w = 0; w < 3; w++) assert_int_equal(ran.hits[w], want.hits[w] + 1);
  for (int w = 3; w < 8; w++) assert_int_equal(ran.hits[w], want.hits[w]);
  sp_thread_pool_free(pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_frames_wake_nobody),
      cmocka_unit_test(test_workers_follow_the_load),
      cmocka_unit_test(test_pool_runs_the_workers_asked_for),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
