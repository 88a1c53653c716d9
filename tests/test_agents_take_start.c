/* test_agents_take_start.c: a crowd whose steps bind nothing starts a new plan's first step in the pass that hands out the plan; frame by frame, each agent says the same events, in the same order, as when the advance pass starts every step, and ends each frame in the same state. A choose pass that plans and takes as it goes changes no frame at all, and neither do the common visits made in one call (a take that starts its plan's first step, a step's end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "sp_agents.h"
#include "sp_population.h"

enum { N = 2 * SP_CROWD_CHUNK + 301, FRAMES = 120 };

/* A frame's events ordered by agent, each agent's in the order said. */
static const SpAgentEvent *sorted_events;
static int by_agent(const void *x, const void *y) {
  const uint32_t *p = x, *q = y;
  uint32_t a = sorted_events[*p].agent, b = sorted_events[*q].agent;
  if (a != b) return a < b ? -1 : 1;
  return *p < *q ? -1 : *p > *q; /* stable: the order said */
}

static uint32_t *by_agent_order(const SpCrowd *c) {
  size_t n = sp_crowd_event_count(c);
  uint32_t *k = malloc((n + 1) * sizeof *k);
  assert_non_null(k);
  for (size_t j = 0; j < n; j++) k[j] = (uint32_t)j;
  sorted_events = sp_crowd_events(c);
  qsort(k, n, sizeof *k, by_agent);
  return k;
}

/* Fails unless the last frames of a and b gave each agent the same
 * events in the same order; returns 1 when the frames' orders differ. */
static int same_per_agent(const SpCrowd *a, const SpCrowd *b) {
  size_t n = sp_crowd_event_count(a);
  assert_int_equal(n, sp_crowd_event_count(b));
  uint32_t *ka = by_agent_order(a), *kb = by_agent_order(b);
  int reordered = 0;
  for (size_t j = 0; j < n; j++) {
    same_event(&sp_crowd_events(a)[ka[j]], &sp_crowd_events(b)[kb[j]]);
    reordered |= ka[j] != kb[j];
  }
  free(ka);
  free(kb);
  return reordered;
}

static void same_agents(const SpCrowd *a, const SpCrowd *b) {
  for (size_t i = 0; i < N; i++) {
    const Agent *x = &a->agents[i], *y = &b->agents[i];
    assert_int_equal(x->phase, y->phase);
    assert_int_equal(x->flags, y->flags);
    assert_memory_equal(&x->time, &y->time, sizeof x->time);
    assert_int_equal(x->step, y->step);
    assert_int_equal(x->cursor, y->cursor);
    assert_int_equal(x->goal, y->goal);
    assert_int_equal(x->draws, y->draws);
    assert_int_equal((a->awake[i / 64] >> (i % 64)) & 1u,
                     (b->awake[i / 64] >> (i % 64)) & 1u);
  }
}

/* The last frames of a and b said the same events in the same order
 * and left the same agents. */
static void same_frame(const SpCrowd *a, const SpCrowd *b) {
  size_t n = sp_crowd_event_count(a);
  assert_int_equal(n, sp_crowd_event_count(b));
  for (size_t j = 0; j < n; j++)
    same_event(&sp_crowd_events(a)[j], &sp_crowd_events(b)[j]);
  same_agents(a, b);
}

/* Frame f of both crowds: 0.1-0.5 s, and a long one now and then (the
 * sweep). */
static void update_both(const Citizens *a, const Citizens *b, int f) {
  float dt = f % 17 == 9 ? 6.0f : 0.1f + 0.1f * (float)(f % 5);
  assert_int_equal(sp_crowd_update(a->c, dt, NULL), SP_OK);
  assert_int_equal(sp_crowd_update(b->c, dt, NULL), SP_OK);
}

/* Both crowds counted the same plans, steps and events, and did work. */
static void same_totals(const SpCrowd *a, const SpCrowd *b) {
  SpCrowdStats sa, sb;
  sp_crowd_stats(a, &sa);
  sp_crowd_stats(b, &sb);
  assert_int_equal(sa.plans, sb.plans);
  assert_int_equal(sa.steps_finished, sb.steps_finished);
  assert_int_equal(sa.events, sb.events);
  assert_true(sa.steps_finished > 10 * N);
}

/* Steps of 0-2 s (a step of 0 s ends in the frame it starts: a plan of
 * such steps runs until a frame's visit has done its rounds), frames of
 * 0.1-0.5 s and a long one now and then (the sweep), on 1 and on 2
 * workers against the advance pass's starts on 1. */
static void run(int threads) {
  Citizens a, b;
  citizens_open(&a, N, 0.0f, 2.0f, threads, 21);
  citizens_open(&b, N, 0.0f, 2.0f, 1, 21);
  b.c->take_starts_off = 1;
  int reordered = 0;
  for (int f = 0; f < FRAMES; f++) {
    update_both(&a, &b, f);
    reordered |= same_per_agent(a.c, b.c);
    same_agents(a.c, b.c);
  }
  same_totals(a.c, b.c);
  assert_true(reordered); /* the take pass did start steps */
  citizens_close(&a);
  citizens_close(&b);
}

/* A choose pass plans and takes a few chunks at a time as it goes, on
 * the calling thread alone or on several workers (parallel_min 1: every
 * pass is shared): the same events in the same order, frame by frame, and
 * the same agents, as one thread whose planning rounds plan every
 * agent. */
static void run_inline_with(int threads, int table_mode) {
  Citizens a, b;
  citizens_open_min(&a, N, 0.0f, 2.0f, threads, 23, threads > 1 ? 1 : 0);
  citizens_open(&b, N, 0.0f, 2.0f, 1, 23);
  sp__population_use_table(a.c->pop, table_mode);
  b.c->plans_inline_off = 1;
  int inline_frames = 0;
  for (int f = 0; f < FRAMES; f++) {
    update_both(&a, &b, f);
    inline_frames += a.c->first_round_done; /* it did plan inline */
    assert_int_equal(b.c->first_round_done, 0);
    same_frame(a.c, b.c);
  }
  same_totals(a.c, b.c);
  assert_true(inline_frames > FRAMES / 2);
  citizens_close(&a);
  citizens_close(&b);
}

static void run_inline(int threads) { run_inline_with(threads, SP_TABLE_AUTO); }

static size_t fast_takes(const SpCrowd *c) {
  size_t n = 0;
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) n += c->cw[k].fast_takes;
  return n;
}

static size_t fast_ends(const SpCrowd *c) {
  size_t n = 0;
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) n += c->cw[k].fast_ends;
  return n;
}

/* A take that starts its plan's common first step in one visit
 * (sp__agent_take_start), and a timed step's end in one
 * (sp__agent_end_step; fast.c): the same events in the same order, frame
 * by frame, and the same agents, as the general visits; on one thread and
 * on three. Steps of 0-2 s: a
 * step that ends in the frame it starts takes the long way. */
static void run_fast(int threads) {
  Citizens a, b;
  citizens_open_min(&a, N, 0.0f, 2.0f, threads, 25, threads > 1 ? 1 : 0);
  citizens_open_min(&b, N, 0.0f, 2.0f, threads, 25, threads > 1 ? 1 : 0);
  b.c->fast_off = 1;
  for (int f = 0; f < FRAMES; f++) {
    update_both(&a, &b, f);
    same_frame(a.c, b.c);
  }
  same_totals(a.c, b.c);
  SpCrowdStats st;
  sp_crowd_stats(a.c, &st);
  /* most plans started that way, not all (a step of 0 s, the first plans) */
  assert_true(fast_takes(a.c) > st.plans / 2);
  assert_true(fast_takes(a.c) < st.plans);
  assert_int_equal(fast_takes(b.c), 0);
  /* and most steps ended that way */
  assert_true(fast_ends(a.c) > st.steps_finished / 2);
  assert_int_equal(fast_ends(b.c), 0);
  citizens_close(&a);
  citizens_close(&b);
}

static void test_fast_take_one_thread(void **state) {
  (void)state;
  run_fast(1);
}

static void test_fast_take_three_threads(void **state) {
  (void)state;
  run_fast(3);
}

/* The choose pass takes the plans the direct table has at once, in each
 * of its layouts (bit-packed with pext or by a byte loop, mixed-radix
 * ranks, or none): the same frames. */
static void test_planning_inline_table_layouts(void **state) {
  (void)state;
  static const int modes[] = {SP_TABLE_PORTABLE, SP_TABLE_RADIX, SP_TABLE_OFF};
  for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
    run_inline_with(1, modes[k]);
    run_inline_with(3, modes[k]);
  }
}

static void test_planning_inline_one_thread(void **state) {
  (void)state;
  run_inline(1);
}

static void test_planning_inline_three_threads(void **state) {
  (void)state;
  run_inline(3);
}

static void test_same_per_agent_one_thread(void **state) {
  (void)state;
  run(1);
}

static void test_same_per_agent_two_threads(void **state) {
  (void)state;
  run(2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_per_agent_one_thread),
      cmocka_unit_test(test_same_per_agent_two_threads),
      cmocka_unit_test(test_planning_inline_one_thread),
      cmocka_unit_test(test_planning_inline_three_threads),
      cmocka_unit_test(test_planning_inline_table_layouts),
      cmocka_unit_test(test_fast_take_one_thread),
      cmocka_unit_test(test_fast_take_three_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
