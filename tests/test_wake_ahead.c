/* test_wake_ahead.c: a thread pool's workers awake when a frame's first job is due: the period the pool predicts from the bursts of jobs, and a pool paced like a game's frames. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "saspu_threads.h"
#include "sp_claims.h"
#include "sp_wake_ahead.h"

static const SpAllocator plain = {NULL, NULL};
enum { MS = 1000000 };

/* A frame of the caller's: a burst of `passes` jobs 0.1 ms apart, each
 * 0.1 ms long, starting at t. */
static void burst(SpWakeAhead *w, uint64_t t, int passes) {
  for (int k = 0; k < passes; k++) {
    sp_wake_ahead_publish(w, t + (uint64_t)k * MS / 5);
    w->last_done = t + (uint64_t)k * MS / 5 + MS / 10;
  }
}

static void test_predicts_the_next_frame(void **state) {
  (void)state;
  SpWakeAhead w;
  memset(&w, 0, sizeof w);
  w.ahead_ns = MS / 4;
  uint64_t from = 0, to = 0, t = 1000 * (uint64_t)MS;
  burst(&w, t, 3);
  assert_false(sp_wake_ahead_window(&w, t + MS, &from, &to));
  for (int f = 1; f <= 4; f++) burst(&w, t + (uint64_t)f * 16 * MS, 3);
  t += 4 * 16 * (uint64_t)MS;
  assert_true(w.steady);
  assert_int_equal(w.period, 16 * MS); /* the passes of a frame are one burst */
  assert_true(sp_wake_ahead_window(&w, t + 2 * MS, &from, &to));
  assert_int_equal(from, t + 16 * MS - MS / 4);
  assert_int_equal(to, t + 16 * MS + MS / 4);
  /* inside the window: still the same window; past it: none (late) */
  assert_true(sp_wake_ahead_window(&w, t + 16 * MS, &from, &to));
  assert_false(sp_wake_ahead_window(&w, t + 16 * MS + MS / 4, &from, &to));
}

static void test_a_late_frame_breaks_the_beat_once(void **state) {
  (void)state;
  SpWakeAhead w;
  memset(&w, 0, sizeof w);
  w.ahead_ns = MS / 4;
  uint64_t t = 5 * (uint64_t)MS, from, to;
  for (int f = 0; f < 6; f++, t += 16 * MS) burst(&w, t, 2);
  assert_true(w.steady);
  burst(&w, t + 9 * MS, 2); /* 9 ms late */
  assert_false(w.steady);
  assert_false(sp_wake_ahead_window(&w, t + 10 * MS, &from, &to));
  burst(&w, t + 16 * MS, 2); /* back on the beat: 7 ms after the late one */
  assert_false(w.steady);
  burst(&w, t + 32 * MS, 2);
  assert_true(w.steady);
  assert_int_equal(w.period, 16 * MS);
}

static void test_no_window_when_off_or_too_wide(void **state) {
  (void)state;
  SpWakeAhead w;
  memset(&w, 0, sizeof w);
  uint64_t t = 5 * (uint64_t)MS, from, to;
  for (int f = 0; f < 6; f++, t += 4 * MS) burst(&w, t, 1);
  assert_true(w.steady);
  assert_false(sp_wake_ahead_window(&w, t - 3 * MS, &from, &to)); /* off */
  w.ahead_ns = MS; /* a window of 2 ms in 4: too much of the frame */
  assert_false(sp_wake_ahead_window(&w, t - 3 * MS, &from, &to));
  w.ahead_ns = MS / 2;
  assert_true(sp_wake_ahead_window(&w, t - 3 * MS, &from, &to));
  /* frames without a beat: none */
  for (int f = 0; f < 6; f++, t += (uint64_t)(f % 2 ? 2 : 7) * MS)
    burst(&w, t, 1);
  assert_false(sp_wake_ahead_window(&w, t - MS, &from, &to));
}

/* Every worker of each paced job runs it once, whether it was asleep or
 * spinning in the window (or the window passed, or wake-ahead was turned
 * off between frames). */
typedef struct Ran {
  _Alignas(64) long round[4][8];
  long now;
} Ran;

static void ran_job(void *arg, int worker) {
  Ran *r = arg;
  r->round[worker][0] = r->now;
}

static void sleep_until(uint64_t ns) {
  struct timespec at = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {}
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Paced frames of two jobs each, `frames` of them `period_ms` apart;
 * returns the frames whose first job found a worker asleep. */
static unsigned long paced_frames(SpThreadPool *pool, Ran *r, int frames,
                                  int period_ms, int late_every) {
  unsigned long before = sp__thread_pool_wakes(pool);
  unsigned long frame_wakes = 0;
  uint64_t at = now_ns();
  for (int f = 0; f < frames; f++) {
    at += (uint64_t)period_ms * MS;
    if (late_every > 0 && f % late_every == late_every - 1)
      at += (uint64_t)period_ms * MS / 2; /* a frame the game took long on */
    sleep_until(at);
    unsigned long w0 = sp__thread_pool_wakes(pool);
    for (int pass = 0; pass < 2; pass++) {
      r->now = f * 2 + pass + 1;
      sp_thread_pool_run(pool, 2, ran_job, r);
      for (int k = 0; k < 2; k++) assert_int_equal(r->round[k][0], r->now);
    }
    frame_wakes += sp__thread_pool_wakes(pool) > w0;
  }
  assert_true(sp__thread_pool_wakes(pool) - before >= frame_wakes);
  return frame_wakes;
}

static void test_paced_frames_find_the_workers_awake(void **state) {
  (void)state;
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(2, plain, &pool, &err), SP_OK);
  Ran r;
  memset(&r, 0, sizeof r);
  /* a wide window, so a loaded machine's late timers still land in it */
  sp_thread_pool_wake_ahead(pool, 3.0);
  unsigned long woken = paced_frames(pool, &r, 30, 30, 0);
  print_message("wake ahead: %lu of 30 paced frames woke a worker\n", woken);
  assert_true(woken <= 20); /* the first frames, before a beat, do */
  sp_thread_pool_wake_ahead(pool, 0.0);
  woken = paced_frames(pool, &r, 10, 30, 0);
  assert_int_equal(woken, 10); /* off: the workers sleep between frames */
  sp_thread_pool_wake_ahead(pool, 3.0);
  (void)paced_frames(pool, &r, 20, 30, 3); /* late frames: woken, as ever */
  sp_thread_pool_wake_ahead(pool, 1e9);    /* clamped to 1000 ms: too wide */
  (void)paced_frames(pool, &r, 4, 30, 0);
  sp_thread_pool_wake_ahead(pool, 3.0);
  (void)paced_frames(pool, &r, 8, 30, 0);
  sleep_until(now_ns() + 28 * (uint64_t)MS); /* freed while they spin */
  sp_thread_pool_free(pool);
}

/* A job whose share on the calling thread waits for the other worker's
 * (up to 200 ms). */
typedef struct Meet {
  _Atomic int came;
} Meet;

static void meet_job(void *arg, int worker) {
  Meet *m = arg;
  if (worker > 0) {
    atomic_store(&m->came, 1);
    return;
  }
  uint64_t end = now_ns() + 200 * (uint64_t)MS;
  for (unsigned n = 0; !atomic_load(&m->came) && now_ns() < end; n++)
    sp_spin_turn(n); /* gives the core up now and then, as a pass's spins */
}

static void quick_job(void *arg, int worker) { (void)arg, (void)worker; }

/* The time jobs ran short of a worker: a sleeping worker's wake counts,
 * within the job's own time; a job on one worker adds nothing. */
static void test_late_workers_are_timed(void **state) {
  (void)state;
  SpThreadPool *pool = NULL;
  SpError err;
  assert_int_equal(sp_thread_pool_new(2, plain, &pool, &err), SP_OK);
  for (int helped = 0; helped < 2; helped++) {
    sleep_until(now_ns() + 5 * (uint64_t)MS); /* past the worker's spin */
    Meet m;
    atomic_init(&m.came, 0);
    uint64_t late = sp__thread_pool_late_ns(pool), t = now_ns();
    if (helped) /* done alone: a worker that has not come is let go */
      sp__thread_pool_help(pool, 2, quick_job, NULL);
    else
      sp_thread_pool_run(pool, 2, meet_job, &m);
    uint64_t wall = now_ns() - t;
    late = sp__thread_pool_late_ns(pool) - late;
    print_message("%s: late %.3f ms of %.3f\n", helped ? "help" : "run",
                  (double)late / MS, (double)wall / MS);
    if (!helped) assert_true(atomic_load(&m.came));
    assert_true(late > 0);
    assert_true(late <= wall);
  }
  uint64_t late = sp__thread_pool_late_ns(pool);
  sp_thread_pool_run(pool, 1, quick_job, NULL);
  assert_true(sp__thread_pool_late_ns(pool) == late);
  sp_thread_pool_free(pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_predicts_the_next_frame),
      cmocka_unit_test(test_a_late_frame_breaks_the_beat_once),
      cmocka_unit_test(test_no_window_when_off_or_too_wide),
      cmocka_unit_test(test_late_workers_are_timed),
      cmocka_unit_test(test_paced_frames_find_the_workers_awake),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
