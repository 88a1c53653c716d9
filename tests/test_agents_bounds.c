/* test_agents_bounds.c: crowds at their limits: goals reached in bounded time, goals past the 16th interrupting, no event lost silently, same events on a grid for any thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent_trace.h"
#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_builtin.h"
#include "test_alloc.h"

static const SpAllocator plain = {NULL, NULL};

#define SIDE  24 /* the open grid of the walking runs */
#define SPEED 6.0f
#define DT    0.1f

typedef struct Run {
  RandomDomain rd;
  SpDomain *d;
  SpGrid *g;
  SpWorld *w;
  SpCrowd *c;
  int m;
  float max_duration; /* over the actions */
} Run;

/* A random domain on an open SIDE x SIDE grid with 6 places of 2 kinds,
 * one goal, actions at no place, at a place or at the nearest of a kind,
 * none scripted; `limited` gives some places a capacity of 2. */
static int run_open(Run *r, uint64_t seed, size_t n, int threads, int limited) {
  memset(r, 0, sizeof *r);
  random_domain_generate(&r->rd, seed, RD_FLAVOR_ANY);
  SpCompileOptions co = {1};
  if (sp_domain_compile(&r->rd.spec, &co, plain, &r->d, NULL) != SP_OK)
    return 0;
  r->m = sp_domain_variable_count(r->d);
  assert_int_equal(sp_grid_new(SIDE, SIDE, 1.0, plain, &r->g, NULL), SP_OK);
  assert_int_equal(sp_world_new(r->g, plain, &r->w, NULL), SP_OK);
  RdRng rng;
  rd_seed(&rng, seed * 13 + 5);
  int kinds[2];
  sp_world_kind(r->w, "well", &kinds[0], NULL);
  sp_world_kind(r->w, "shop", &kinds[1], NULL);
  for (int p = 0; p < 6; p++)
    assert_int_equal(sp_world_add_place(r->w, kinds[p % 2],
                                        rd_below(&rng, SIDE),
                                        rd_below(&rng, SIDE),
                                        limited && p < 3 ? 2 : 0, NULL, NULL),
                     SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = threads;
  o.parallel_min = 1; /* threads share even small passes */
  o.seed = seed;
  o.speed = SPEED;
  assert_int_equal(sp_crowd_new(r->w, r->d, &o, plain, &r->c, NULL), SP_OK);
  SpValue cond[RD_MAX_VARIABLES];
  for (int v = 0; v < r->m; v++)
    cond[v] = rd_chance(&rng, 50)
                  ? SP_ANY
                  : (SpValue)rd_below(&rng, sp_variable_value_count(r->d, v));
  assert_int_equal(sp_crowd_add_goal(r->c, cond, 1, NULL, NULL, NULL), SP_OK);
  for (int act = 0; act < sp_domain_action_count(r->d); act++) {
    SpActionBehaviour b;
    memset(&b, 0, sizeof b);
    b.place = SP_NO_PLACE;
    b.min_duration = (float)rd_below(&rng, 3) * 0.1f;
    b.max_duration = b.min_duration + (float)rd_below(&rng, 4) * 0.1f;
    if (b.max_duration > r->max_duration) r->max_duration = b.max_duration;
    int where = rd_below(&rng, 3);
    if (where == 1)
      b.bind = SP_BIND_PLACE, b.place = (uint32_t)rd_below(&rng, 6);
    if (where == 2) b.bind = SP_BIND_KIND, b.kind = kinds[rd_below(&rng, 2)];
    assert_int_equal(sp_crowd_set_action(r->c, act, &b, NULL), SP_OK);
  }
  for (size_t i = 0; i < n; i++) {
    SpValue s[RD_MAX_VARIABLES];
    for (int v = 0; v < r->m; v++)
      s[v] = (SpValue)rd_below(&rng, sp_variable_value_count(r->d, v));
    assert_int_equal(sp_crowd_spawn(r->c, s, rd_below(&rng, SIDE),
                                    rd_below(&rng, SIDE), SP_NO_PLACE, NULL,
                                    NULL),
                     SP_OK);
  }
  return 1;
}

static void run_close(Run *r) {
  sp_crowd_free(r->c);
  sp_world_free(r->w);
  sp_grid_free(r->g);
  sp_domain_free(r->d);
}

/* An undisturbed agent with a plan reaches its goal within the plan's
 * steps, each at most: the longest duration, a walk across the grid
 * (SIDE - 1 moves at SPEED cells/s on an open grid) and two frames (the
 * serial binding, the arrival); the goal is reached the frame the last
 * step ends. Unlimited places only: nothing blocks a step. */
static void test_goal_reached_within_bound(void **state) {
  (void)state;
  int reached = 0, planned = 0, pending = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    Run r;
    if (!run_open(&r, seed, 400, 1, 0)) continue;
    size_t n = sp_crowd_size(r.c);
    int *deadline = malloc(n * sizeof *deadline);
    for (size_t i = 0; i < n; i++) deadline[i] = -1;
    float per_step = r.max_duration + (float)(SIDE - 1) / SPEED;
    for (int f = 0; f < 300; f++) {
      assert_int_equal(sp_crowd_update(r.c, DT, NULL), SP_OK);
      const SpAgentEvent *e = sp_crowd_events(r.c);
      for (size_t k = 0; k < sp_crowd_event_count(r.c); k++) {
        size_t i = e[k].agent;
        switch (e[k].kind) {
        case SP_EV_PLANNED:
          /* detail: the plan's length */
          deadline[i] = f + e[k].detail * ((int)(per_step / DT) + 3) + 1;
          planned++;
          break;
        case SP_EV_GOAL_REACHED:
          assert_true(deadline[i] >= 0);
          assert_true(f <= deadline[i]);
          deadline[i] = -1;
          reached++;
          break;
        case SP_EV_REPLANNED:
        case SP_EV_STEP_FAILED:
        case SP_EV_BLOCKED:
          fail_msg("seed %llu agent %zu: %s in an undisturbed run",
                   (unsigned long long)seed, i,
                   sp_event_kind_name((SpEventKind)e[k].kind));
          break;
        default: break;
        }
      }
      for (size_t i = 0; i < n; i++)
        if (deadline[i] >= 0 && f > deadline[i])
          fail_msg("seed %llu agent %zu: goal not reached by frame %d",
                   (unsigned long long)seed, i, deadline[i]);
    }
    for (size_t i = 0; i < n; i++) pending += deadline[i] >= 0;
    free(deadline);
    run_close(&r);
  }
  /* the runs planned and arrived many times */
  assert_true(planned > 1000);
  assert_int_equal(reached + pending, planned);
}

/* Places, capacities and distance fields bound in workers or in the
 * serial pass: the events are the same for 1, 2 and 4 threads. */
static SpAgentEvent *record(uint64_t seed, int threads, size_t *count) {
  Run r;
  if (!run_open(&r, seed, 3000, threads, 1)) return NULL;
  SpAgentEvent *all = NULL;
  *count = 0;
  RdRng rng;
  rd_seed(&rng, seed);
  for (int f = 0; f < 40; f++) {
    assert_int_equal(sp_crowd_update(r.c, DT, NULL), SP_OK);
    size_t k = sp_crowd_event_count(r.c);
    all = realloc(all, (*count + k + 1) * sizeof *all);
    memcpy(all + *count, sp_crowd_events(r.c), k * sizeof *all);
    *count += k;
    /* a few world changes keep agents replanning and walking */
    for (int j = 0; j < 30; j++) {
      size_t i = (size_t)rd_below(&rng, 3000);
      int v = rd_below(&rng, r.m);
      sp_crowd_set_var(r.c, i, v,
                       rd_below(&rng, sp_variable_value_count(r.d, v)), NULL);
    }
  }
  run_close(&r);
  return all;
}

static void test_same_events_on_a_grid(void **state) {
  (void)state;
  assert_true(agent_same_events_any_threads(record, 2, 5, 1000));
}

/* ---- goals past the 16th ------------------------------------------------ */

enum { HUNGER = 0, DEBATING = 4, FILLERS = 18 };

/* Citizens working (priority 10) under FILLERS goals that always hold,
 * then (with `unplannable`) "hunger back to 0", which has no plan, and
 * "stop debating" (priority 50), whose `when` is debating = 1: both sit
 * past the 16th goal in priority order. */
static SpCrowd *citizens(SpBuiltSpec *b, SpDomain *d, SpWorld *w,
                         int unplannable, int *stop_goal) {
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = 4;
  o.threads = 1;
  SpCrowd *c;
  assert_int_equal(sp_crowd_new(w, d, &o, plain, &c, NULL), SP_OK);
  SpValue any[7], cond[7], when[7];
  memset(any, SP_ANY, sizeof any);
  for (int g = 0; g < FILLERS; g++)
    assert_int_equal(sp_crowd_add_goal(c, any, 100 - g, NULL, NULL, NULL),
                     SP_OK);
  memset(cond, SP_ANY, sizeof cond);
  memset(when, SP_ANY, sizeof when);
  when[DEBATING] = 1;
  if (unplannable) {
    cond[HUNGER] = 0;
    assert_int_equal(sp_crowd_add_goal(c, cond, 60, when, NULL, NULL), SP_OK);
    cond[HUNGER] = SP_ANY;
  }
  cond[DEBATING] = 0;
  assert_int_equal(sp_crowd_add_goal(c, cond, 50, when, stop_goal, NULL),
                   SP_OK);
  const SpNamedState *gw = sp_builtin_goal(b, "work");
  for (int v = 0; v < 7; v++)
    cond[v] = gw->keep && gw->keep[v] ? SP_ANY : gw->values[v];
  assert_int_equal(sp_crowd_add_goal(c, cond, 10, NULL, NULL, NULL), SP_OK);
  for (int a = 0; a < sp_domain_action_count(d); a++) {
    SpActionBehaviour bh;
    memset(&bh, 0, sizeof bh);
    bh.place = SP_NO_PLACE;
    bh.min_duration = bh.max_duration = 1.0f;
    assert_int_equal(sp_crowd_set_action(c, a, &bh, NULL), SP_OK);
  }
  assert_int_equal(sp_crowd_spawn(c,
                                  sp_builtin_start(b, "start_of_day")->values,
                                  0, 0, SP_NO_PLACE, NULL, NULL),
                   SP_OK);
  return c;
}

/* Works for a while, starts debating (which the work plan does not
 * read), and runs on; returns how many times `kind` came with `goal`. */
static int count_after_debate(SpCrowd *c, int goal, SpEventKind kind,
                              SpReason reason) {
  int seen = 0;
  for (int f = 0; f < 200; f++) {
    if (f == 25)
      assert_int_equal(sp_crowd_set_var(c, 0, DEBATING, 1, NULL), SP_OK);
    assert_int_equal(sp_crowd_update(c, DT, NULL), SP_OK);
    const SpAgentEvent *e = sp_crowd_events(c);
    for (size_t k = 0; k < sp_crowd_event_count(c); k++) {
      if (e[k].kind == SP_EV_REPLANNED && f > 25)
        assert_int_equal(e[k].reason, SP_REASON_HIGHER_GOAL);
      if (e[k].kind == (uint8_t)kind && e[k].goal == goal &&
          (reason == SP_REASON_NONE || e[k].reason == (uint8_t)reason))
        seen++;
    }
  }
  return seen;
}

static void test_goal_past_16th_interrupts(void **state) {
  (void)state;
  SpBuiltSpec *b = sp_builtin_citizen(plain);
  SpDomain *d;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, NULL), SP_OK);
  SpWorld *w;
  assert_int_equal(sp_world_new(NULL, plain, &w, NULL), SP_OK);
  int stop = -1;
  SpCrowd *c = citizens(b, d, w, 0, &stop);
  assert_true(stop >= 16);
  /* the higher goal interrupts the work plan once, and is reached */
  assert_int_equal(
      count_after_debate(c, stop, SP_EV_REPLANNED, SP_REASON_HIGHER_GOAL), 1);
  assert_int_equal(sp_crowd_state(c, 0)[DEBATING], 0);
  sp_crowd_free(c);

  /* an unplannable goal past the 16th is refused once per choice, and
   * does not interrupt again and again */
  c = citizens(b, d, w, 1, &stop);
  int no_plan = count_after_debate(c, stop - 1, SP_EV_NO_PLAN, SP_REASON_NONE);
  assert_true(no_plan >= 1 && no_plan <= 2);
  assert_int_equal(sp_crowd_state(c, 0)[DEBATING], 0);
  SpCrowdStats st;
  sp_crowd_stats(c, &st);
  assert_true(st.bytes_per_agent >= 4); /* one word of refusals counted */
  sp_crowd_free(c);
  sp_world_free(w);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* ---- events never lost silently ------------------------------------------- */

/* Fails each allocation an update makes, one run per allocation: the
 * update either succeeds with every event (it got by without, or tried
 * again), or fails with SP_ERR_MEMORY and the events it kept plus those
 * it reports lost are all of them. */
static void test_no_event_lost_silently(void **state) {
  (void)state;
  enum { N = 2000, FRAMES = 3 };
  size_t want[FRAMES];
  int want_planned = 0, runs_lost = 0, runs_setup = 0, runs_recovered = 0;
  long created = 0, total = 0;
  for (long k = 0;; k++) {
    TestAlloc t;
    test_alloc_init(&t, k == 0 ? 0 : created + k);
    RandomDomain rd;
    random_domain_generate(&rd, 11, RD_FLAVOR_ANY);
    SpCompileOptions co = {1};
    SpDomain *d;
    assert_int_equal(sp_domain_compile(&rd.spec, &co, plain, &d, NULL), SP_OK);
    SpWorld *w;
    assert_int_equal(sp_world_new(NULL, plain, &w, NULL), SP_OK);
    SpCrowdOptions o;
    memset(&o, 0, sizeof o);
    o.capacity = N;
    o.threads = 2;
    SpCrowd *c;
    assert_int_equal(sp_crowd_new(w, d, &o, test_alloc_hook(&t), &c, NULL),
                     SP_OK);
    SpValue any[RD_MAX_VARIABLES], s[RD_MAX_VARIABLES];
    int m = sp_domain_variable_count(d);
    memset(any, SP_ANY, sizeof any);
    any[0] = 0;
    sp_crowd_add_goal(c, any, 1, NULL, NULL, NULL);
    for (size_t i = 0; i < N; i++) {
      for (int v = 0; v < m; v++)
        s[v] =
            (SpValue)((i + (size_t)v) % (size_t)sp_variable_value_count(d, v));
      assert_int_equal(sp_crowd_spawn(c, s, 0, 0, SP_NO_PLACE, NULL, NULL),
                       SP_OK);
    }
    if (k == 0) created = t.calls;
    uint64_t lost_before = 0;
    for (int f = 0; f < FRAMES; f++) {
      SpError err;
      long calls_before = t.calls;
      SpStatus st = sp_crowd_update(c, 0.5f, &err);
      size_t got = sp_crowd_event_count(c);
      SpCrowdStats cs;
      sp_crowd_stats(c, &cs);
      size_t lost = (size_t)(cs.events_lost - lost_before);
      lost_before = cs.events_lost;
      if (k == 0) {
        assert_int_equal(st, SP_OK);
        want[f] = got;
        const SpAgentEvent *e = sp_crowd_events(c);
        for (size_t j = 0; f == 0 && j < got; j++)
          want_planned += e[j].kind == SP_EV_PLANNED;
        continue;
      }
      if (st == SP_OK) {
        assert_int_equal(got, want[f]);
        /* the allocation that failed was this update's */
        runs_recovered += calls_before < t.fail_at && t.fail_at <= t.calls;
        continue;
      }
      assert_int_equal(st, SP_ERR_MEMORY);
      if (lost > 0) {
        assert_non_null(strstr(err.message, "were lost"));
        assert_int_equal(got + lost, want[f]);
        runs_lost++;
      } else {
        runs_setup++;
        /* failed setting up: before anything moved, or after the goal
         * choices; the agents waiting for a plan get it next update */
        assert_true(got < want[f]);
        assert_int_equal(sp_crowd_update(c, 0.5f, NULL), SP_OK);
        const SpAgentEvent *e = sp_crowd_events(c);
        int planned = 0;
        for (size_t j = 0; j < sp_crowd_event_count(c); j++)
          planned += e[j].kind == SP_EV_PLANNED;
        if (f == 0) assert_int_equal(planned, want_planned);
      }
      break; /* the run diverged from the reference: next k */
    }
    if (k == 0) total = t.calls;
    sp_crowd_free(c);
    sp_world_free(w);
    sp_domain_free(d);
    assert_int_equal(t.live, 0);
    if (k > 0 && created + k >= total) break;
  }
  /* the updates did allocate, events were lost, and failures while
   * setting up the planning either failed an update or were got over */
  assert_true(total > created);
  assert_true(runs_lost > 0);
  assert_true(runs_setup + runs_recovered > 0);
}

/* ---- memory ----------------------------------------------------------------- */

/* A crowd of each paper domain keeps at most 96 bytes per agent, goals
 * up to 16 included; past them refusals add 4 bytes per 32 goals. */
static void test_bytes_per_agent(void **state) {
  (void)state;
  SpBuiltSpec *specs[] = {
      sp_builtin_horse_breeder(plain, 0), sp_builtin_horse_breeder(plain, 1),
      sp_builtin_citizen(plain), sp_builtin_acquisition_machine(plain)};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    assert_non_null(specs[k]);
    SpDomain *d;
    assert_int_equal(sp_domain_compile(&specs[k]->spec, NULL, plain, &d, NULL),
                     SP_OK);
    SpWorld *w;
    assert_int_equal(sp_world_new(NULL, plain, &w, NULL), SP_OK);
    SpCrowdOptions o;
    memset(&o, 0, sizeof o);
    o.capacity = 10;
    o.threads = 1;
    SpCrowd *c;
    assert_int_equal(sp_crowd_new(w, d, &o, plain, &c, NULL), SP_OK);
    SpValue any[16];
    memset(any, SP_ANY, sizeof any);
    SpCrowdStats st;
    for (int g = 0; g < 17; g++) {
      sp_crowd_stats(c, &st);
      assert_true(st.bytes_per_agent <= 96);
      assert_int_equal(sp_crowd_add_goal(c, any, g, NULL, NULL, NULL), SP_OK);
    }
    size_t at16 = st.bytes_per_agent;
    sp_crowd_stats(c, &st);
    assert_int_equal(st.bytes_per_agent, at16 + 4);
    sp_crowd_free(c);
    sp_world_free(w);
    sp_domain_free(d);
    sp_builtin_free(specs[k]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_goal_reached_within_bound),
      cmocka_unit_test(test_same_events_on_a_grid),
      cmocka_unit_test(test_goal_past_16th_interrupts),
      cmocka_unit_test(test_no_event_lost_silently),
      cmocka_unit_test(test_bytes_per_agent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
