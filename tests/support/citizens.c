/* citizens.c: the timed crowd of citizens shared by the tests of timed crowds (citizens.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"

static const SpAllocator plain = {NULL, NULL};

static void open_crowd(Citizens *t, size_t n, float lo, float hi, int threads,
                       unsigned seed, SpAllocator alloc, uint32_t parallel_min,
                       uint32_t goal_budget) {
  t->b = sp_builtin_citizen(plain);
  assert_non_null(t->b);
  assert_int_equal(sp_domain_compile(&t->b->spec, NULL, plain, &t->d, NULL),
                   SP_OK);
  assert_int_equal(sp_world_new(NULL, alloc, &t->w, NULL), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = threads;
  o.seed = seed;
  o.parallel_min = parallel_min;
  o.goal_budget = goal_budget;
  assert_int_equal(sp_crowd_new(t->w, t->d, &o, alloc, &t->c, NULL), SP_OK);
  SpActionBehaviour beh;
  memset(&beh, 0, sizeof beh);
  beh.min_duration = lo;
  beh.max_duration = hi;
  beh.bind = SP_BIND_NONE;
  for (int a = 0; a < sp_domain_action_count(t->d); a++)
    assert_int_equal(sp_crowd_set_action(t->c, a, &beh, NULL), SP_OK);
  int m = sp_domain_variable_count(t->d), working = -1;
  for (int v = 0; v < m; v++)
    if (strcmp(sp_variable_name(t->d, v), "working") == 0) working = v;
  assert_true(working >= 0);
  SpValue goal[16], start[16] = {0};
  memset(goal, SP_ANY, sizeof goal);
  for (SpValue value = 0; value < 2; value++) {
    goal[working] = value;
    assert_int_equal(sp_crowd_add_goal(t->c, goal, 1, NULL, NULL, NULL), SP_OK);
  }
  for (size_t i = 0; i < n; i++)
    assert_int_equal(sp_crowd_spawn(t->c, start, 1, 1, SP_NO_PLACE, NULL, NULL),
                     SP_OK);
}

void citizens_open(Citizens *t, size_t n, float lo, float hi, int threads,
                   unsigned seed) {
  open_crowd(t, n, lo, hi, threads, seed, plain, 1, 0);
}

void citizens_open_on(Citizens *t, size_t n, float lo, float hi, int threads,
                      unsigned seed, SpAllocator alloc) {
  open_crowd(t, n, lo, hi, threads, seed, alloc, 1, 0);
}

void citizens_open_min(Citizens *t, size_t n, float lo, float hi, int threads,
                       unsigned seed, uint32_t parallel_min) {
  open_crowd(t, n, lo, hi, threads, seed, plain, parallel_min, 0);
}

void citizens_open_budget(Citizens *t, size_t n, float lo, float hi,
                          int threads, unsigned seed, uint32_t goal_budget) {
  open_crowd(t, n, lo, hi, threads, seed, plain, 1, goal_budget);
}

void citizens_close(Citizens *t) {
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  sp_domain_free(t->d);
  sp_builtin_free(t->b);
}

void same_event(const SpAgentEvent *x, const SpAgentEvent *y) {
  assert_int_equal(x->agent, y->agent);
  assert_int_equal(x->kind, y->kind);
  assert_int_equal(x->reason, y->reason);
  assert_int_equal(x->goal, y->goal);
  assert_int_equal(x->action, y->action);
  assert_int_equal(x->detail, y->detail);
}

void same_frame_events(const SpCrowd *a, const SpCrowd *b) {
  size_t n = sp_crowd_event_count(a);
  assert_int_equal(n, sp_crowd_event_count(b));
  for (size_t k = 0; k < n; k++)
    same_event(&sp_crowd_events(a)[k], &sp_crowd_events(b)[k]);
}
