/* test_agents_random.c: crowds on random domains with random world changes: invariants replayed from the events, thread-count independence, allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent_trace.h"
#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_save.h"
#include "sp_due.h"
#include "test_alloc.h"

static const SpAllocator plain = {NULL, NULL};

typedef struct Run {
  RandomDomain rd;
  SpDomain *d;
  SpWorld *w;
  SpCrowd *c;
  int m;
  uint64_t seed; /* named by a failure */
} Run;

/* Whether run_open's actions are never interruptible (a take may start
 * steps then: update.c). */
static int open_uninterruptible;

static int run_open(Run *r, uint64_t seed, size_t n, int threads,
                    SpAllocator a) {
  memset(r, 0, sizeof *r);
  r->seed = seed;
  random_domain_generate(&r->rd, seed, RD_FLAVOR_ANY);
  SpCompileOptions co = {1};
  if (sp_domain_compile(&r->rd.spec, &co, plain, &r->d, NULL) != SP_OK)
    return 0;
  r->m = sp_domain_variable_count(r->d);
  assert_int_equal(sp_world_new(NULL, a, &r->w, NULL), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = threads;
  o.parallel_min = 1; /* threads share even small passes */
  o.seed = seed;
  assert_int_equal(sp_crowd_new(r->w, r->d, &o, a, &r->c, NULL), SP_OK);
  RdRng rng;
  rd_seed(&rng, seed * 7 + 1);
  /* three random partial goals and ranged durations, some scripted */
  for (int g = 0; g < 3; g++) {
    SpValue cond[RD_MAX_VARIABLES], when[RD_MAX_VARIABLES];
    for (int v = 0; v < r->m; v++) {
      int k = sp_variable_value_count(r->d, v);
      cond[v] = rd_chance(&rng, 50) ? SP_ANY : (SpValue)rd_below(&rng, k);
      when[v] = rd_chance(&rng, 80) ? SP_ANY : (SpValue)rd_below(&rng, k);
    }
    sp_crowd_add_goal(r->c, cond, rd_below(&rng, 3), g == 0 ? NULL : when, NULL,
                      NULL);
  }
  for (int act = 0; act < sp_domain_action_count(r->d); act++) {
    SpActionBehaviour b;
    memset(&b, 0, sizeof b);
    b.place = SP_NO_PLACE;
    b.min_duration = (float)rd_below(&rng, 3) * 0.1f;
    b.max_duration = b.min_duration + (float)rd_below(&rng, 3) * 0.1f;
    b.interruptible = rd_chance(&rng, 30) && !open_uninterruptible;
    b.scripted = rd_chance(&rng, 10);
    sp_crowd_set_action(r->c, act, &b, NULL);
  }
  for (size_t i = 0; i < n; i++) {
    SpValue s[RD_MAX_VARIABLES];
    for (int v = 0; v < r->m; v++)
      s[v] = (SpValue)rd_below(&rng, sp_variable_value_count(r->d, v));
    assert_int_equal(sp_crowd_spawn(r->c, s, 0, 0, SP_NO_PLACE, NULL, NULL),
                     SP_OK);
  }
  return 1;
}

static void run_close(Run *r) {
  sp_crowd_free(r->c);
  sp_world_free(r->w);
  sp_domain_free(r->d);
}

static int conds_hold(const SpDomain *d, int a, const SpValue *s) {
  if (s[sp_action_variable(d, a)] != sp_action_pre(d, a)) return 0;
  for (int j = 0; j < sp_action_prevail_count(d, a); j++) {
    SpCondition p = sp_action_prevail(d, a, j);
    if (s[p.variable] != p.value) return 0;
  }
  return 1;
}

/* One frame of world changes and script outcomes, drawn from rng, applied
 * to the crowd and to the shadow states. */
static void disturb(Run *r, RdRng *rng, SpValue *shadow) {
  size_t n = sp_crowd_size(r->c);
  for (size_t i = 0; i < n; i++) {
    SpAgentInfo info;
    sp_crowd_inspect(r->c, i, &info);
    if (info.phase == SP_PHASE_SCRIPT && info.target_x < 0) {
      if (rd_chance(rng, 70))
        sp_crowd_finish_step(r->c, i, NULL);
      else
        sp_crowd_fail_step(r->c, i, 7, NULL);
    } else if (info.step >= 0 && info.phase != SP_PHASE_SCRIPT &&
               rd_chance(rng, 3)) {
      /* a step that is not scripted fails too (a hook raised) */
      SpError err;
      if (sp_crowd_fail_step(r->c, i, 8, &err) != SP_OK)
        fail_msg("seed %llu: %s", (unsigned long long)r->seed, err.message);
    }
    if (rd_chance(rng, 2)) {
      int v = rd_below(rng, r->m);
      int val = rd_below(rng, sp_variable_value_count(r->d, v));
      assert_int_equal(sp_crowd_set_var(r->c, i, v, val, NULL), SP_OK);
      shadow[i * (size_t)r->m + (size_t)v] = (SpValue)val;
    }
  }
}

/* Replays a frame's events on the shadow states: a step starts only when
 * its conditions hold, a finished step changes exactly its variable from
 * pre to post, and afterwards the shadow is the crowd's state. An agent
 * that goes idle says why in the same frame or one before. */
static void check_frame(Run *r, SpValue *shadow, uint8_t *idle_said) {
  const SpAgentEvent *e = sp_crowd_events(r->c);
  size_t m = (size_t)r->m;
  for (size_t k = 0; k < sp_crowd_event_count(r->c); k++) {
    SpValue *s = shadow + e[k].agent * m;
    if (e[k].kind == SP_EV_STEP_STARTED)
      assert_true(conds_hold(r->d, e[k].action, s));
    if (e[k].kind == SP_EV_STEP_FINISHED) {
      assert_true(conds_hold(r->d, e[k].action, s));
      s[sp_action_variable(r->d, e[k].action)] =
          (SpValue)sp_action_post(r->d, e[k].action);
    }
    if (e[k].kind == SP_EV_IDLE) idle_said[e[k].agent] = 1;
    if (e[k].kind == SP_EV_GOAL_CHOSEN) idle_said[e[k].agent] = 0;
  }
  for (size_t i = 0; i < sp_crowd_size(r->c); i++) {
    assert_memory_equal(shadow + i * m, sp_crowd_state(r->c, i), m);
    SpAgentInfo info;
    sp_crowd_inspect(r->c, i, &info);
    if (info.phase == SP_PHASE_IDLE) assert_true(idle_said[i]);
  }
}

/* The invariants a load checks (sp_save.h) hold between any two calls:
 * the update never leaves a state a save of it could not load. */
static void expect_consistent(const SpCrowd *c) {
  SpError err;
  if (sp__crowd_check(c, &err) != SP_OK) fail_msg("%s", err.message);
}

static void test_invariants(void **state) {
  (void)state;
  uint64_t finished = 0, started = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    Run r;
    if (!run_open(&r, seed, 200, 1, plain)) continue;
    size_t n = sp_crowd_size(r.c), m = (size_t)r.m;
    SpValue *shadow = malloc(n * m);
    uint8_t *idle_said = calloc(n, 1);
    for (size_t i = 0; i < n; i++)
      memcpy(shadow + i * m, sp_crowd_state(r.c, i), m);
    RdRng rng;
    rd_seed(&rng, seed);
    for (int f = 0; f < 60; f++) {
      assert_int_equal(sp_crowd_update(r.c, 0.1f, NULL), SP_OK);
      check_frame(&r, shadow, idle_said);
      expect_consistent(r.c);
      const SpAgentEvent *e = sp_crowd_events(r.c);
      for (size_t k = 0; k < sp_crowd_event_count(r.c); k++) {
        finished += e[k].kind == SP_EV_STEP_FINISHED;
        started += e[k].kind == SP_EV_STEP_STARTED;
      }
      disturb(&r, &rng, shadow);
      expect_consistent(r.c);
    }
    free(shadow);
    free(idle_said);
    run_close(&r);
  }
  /* the runs did work: thousands of steps started and finished */
  assert_true(started > 2000);
  assert_true(finished > 2000);
}

/* Whether record's crowds plan only in the planning rounds; whether
 * they make no visit of fast.c's, and how many they made. */
static int record_inline_off, record_fast_off;
static size_t recorded_fast_takes, recorded_fast_ends;

/* The events of a run, copied. */
static SpAgentEvent *record(uint64_t seed, int threads, size_t *count) {
  Run r;
  if (!run_open(&r, seed, 3000, threads, plain)) return NULL;
  r.c->plans_inline_off = record_inline_off;
  r.c->fast_off = record_fast_off;
  size_t n = sp_crowd_size(r.c), m = (size_t)r.m;
  SpValue *shadow = malloc(n * m);
  RdRng rng;
  rd_seed(&rng, seed);
  SpAgentEvent *all = NULL;
  *count = 0;
  for (int f = 0; f < 30; f++) {
    sp_crowd_update(r.c, 0.1f, NULL);
    size_t k = sp_crowd_event_count(r.c);
    all = realloc(all, (*count + k + 1) * sizeof *all);
    memcpy(all + *count, sp_crowd_events(r.c), k * sizeof *all);
    *count += k;
    disturb(&r, &rng, shadow);
  }
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++)
    recorded_fast_takes += r.c->cw[k].fast_takes,
        recorded_fast_ends += r.c->cw[k].fast_ends;
  free(shadow);
  run_close(&r);
  return all;
}

static void test_same_events_any_threads(void **state) {
  (void)state;
  assert_true(agent_same_events_any_threads(record, 3, 6, 1000));
  /* a hook failed a step a higher goal had just dropped */
  assert_true(agent_same_events_any_threads(record, 66, 66, 1000));
  uint64_t more = agent_soak_seeds(), from = agent_soak_from();
  if (more > 0) /* any number of events for those */
    assert_true(
        agent_same_events_any_threads(record, 13 + from, 12 + from + more, 0));
}

/* A choose pass on one thread plans each chunk and takes its plans as it
 * goes: every frame says the same events, in the same order, as when the
 * planning rounds plan every agent. */
/* Records seeds 1-12 (and agent_soak_seeds() more) with *off 0, then 1
 * (threads: 1, and 2 for `two_every` > 0 seeds in a row, else 1): the
 * same events, in the same order. Returns the events compared. */
static size_t same_records_off(int *off, uint64_t two_every) {
  size_t compared = 0;
  for (uint64_t n = 1; n <= 12 + agent_soak_seeds(); n++) {
    uint64_t seed = n <= 12 ? n : n + agent_soak_from();
    int threads = two_every > 0 && seed % two_every == 0 ? 2 : 1;
    size_t na = 0, nb = 0;
    *off = 0;
    SpAgentEvent *a = record(seed, threads, &na);
    *off = 1;
    SpAgentEvent *b = record(seed, threads, &nb);
    *off = 0;
    assert_true((a == NULL) == (b == NULL));
    if (a != NULL && (na != nb || memcmp(a, b, na * sizeof *a) != 0))
      fail_msg("seed %llu: the events differ", (unsigned long long)seed);
    if (a != NULL) compared += na;
    free(a);
    free(b);
  }
  return compared;
}

static void test_same_events_planning_inline(void **state) {
  (void)state;
  assert_true(same_records_off(&record_inline_off, 0) > 100000);
}

/* A take that starts its plan's first step in one visit, and a plan's
 * last step's end in one (fast.c), on random domains without
 * interruptible steps, whose goals, scripts and changes between frames
 * reach their every way back to the general visits: the same events, in
 * the same order, as those visits. */
static void test_same_events_fast_visits(void **state) {
  (void)state;
  recorded_fast_takes = recorded_fast_ends = 0;
  open_uninterruptible = 1;
  size_t compared = same_records_off(&record_fast_off, 3);
  open_uninterruptible = 0;
  assert_true(compared > 100000);
  /* the runs did take plans and end steps that way */
  assert_true(recorded_fast_takes > 1000);
  assert_true(recorded_fast_ends > 1000);
}

/* After warm-up, frames allocate nothing (the same agents, dt and
 * durations bring the same buffer sizes). */
static void test_no_allocation_when_warm(void **state) {
  (void)state;
  TestAlloc t;
  test_alloc_init(&t, 0);
  Run r;
  assert_true(run_open(&r, 11, 2000, 2, test_alloc_hook(&t)));
  for (int f = 0; f < 50; f++) sp_crowd_update(r.c, 0.1f, NULL);
  long calls = t.calls;
  for (int f = 0; f < 50; f++) sp_crowd_update(r.c, 0.1f, NULL);
  assert_int_equal(t.calls, calls);
  run_close(&r);
  assert_int_equal(t.live, 0);
}

/* Every allocation failure while creating a world and a crowd leaks
 * nothing and leaves *out NULL. */
static void test_creation_failures(void **state) {
  (void)state;
  RandomDomain rd;
  random_domain_generate(&rd, 5, RD_FLAVOR_CS2);
  SpCompileOptions co = {1};
  SpDomain *d;
  assert_int_equal(sp_domain_compile(&rd.spec, &co, plain, &d, NULL), SP_OK);
  for (long k = 1;; k++) {
    TestAlloc t;
    test_alloc_init(&t, k);
    SpAllocator a = test_alloc_hook(&t);
    SpWorld *w = NULL;
    SpCrowd *c = NULL;
    SpStatus st = sp_world_new(NULL, a, &w, NULL);
    if (st == SP_OK) {
      SpCrowdOptions o;
      memset(&o, 0, sizeof o);
      o.capacity = 100;
      o.threads = 2;
      st = sp_crowd_new(w, d, &o, a, &c, NULL);
      if (st != SP_OK) assert_null(c);
    }
    sp_crowd_free(c);
    sp_world_free(w);
    assert_int_equal(t.live, 0);
    if (st == SP_OK) break;
    assert_int_equal(st, SP_ERR_MEMORY);
  }
  sp_domain_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invariants),
      cmocka_unit_test(test_same_events_any_threads),
      cmocka_unit_test(test_same_events_planning_inline),
      cmocka_unit_test(test_same_events_fast_visits),
      cmocka_unit_test(test_no_allocation_when_warm),
      cmocka_unit_test(test_creation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
