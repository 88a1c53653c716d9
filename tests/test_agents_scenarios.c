/* test_agents_scenarios.c: crowds on the paper domains, scripted scenarios checked event by event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent_trace.h"
#include "saspu_agents.h"
#include "saspu_save.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

typedef struct Scene {
  TestFixture f;
  SpGrid *grid;
  SpWorld *w;
  SpCrowd *c;
  char trace[8192];
} Scene;

static void scene_open(Scene *s, SpBuiltSpec *b, const char *map, int threads) {
  memset(s, 0, sizeof *s);
  test_fixture_open(&s->f, b);
  if (map != NULL)
    assert_int_equal(sp_grid_new_ascii(map, strlen(map), plain, &s->grid, NULL),
                     SP_OK);
  SpError err;
  assert_int_equal(sp_world_new(s->grid, plain, &s->w, &err), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = 8;
  o.threads = threads;
  o.parallel_min = 1; /* threads share even small passes */
  assert_int_equal(sp_crowd_new(s->w, s->f.d, &o, plain, &s->c, &err), SP_OK);
}

static void scene_close(Scene *s) {
  sp_crowd_free(s->c);
  sp_world_free(s->w);
  sp_grid_free(s->grid);
  test_fixture_close(&s->f);
}

/* A named goal of the fixture as a condition: kept values are SP_ANY. */
static void named_goal(const Scene *s, const char *name, SpValue *out) {
  const SpNamedState *g = sp_builtin_goal(s->f.b, name);
  assert_non_null(g);
  for (int v = 0; v < s->f.m; v++)
    out[v] = g->keep != NULL && g->keep[v] ? SP_ANY : g->values[v];
}

static void timed(Scene *s, const char *action, float seconds) {
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = seconds;
  b.place = SP_NO_PLACE;
  int a = sp_builtin_action(s->f.b, action);
  assert_true(a >= 0);
  assert_int_equal(sp_crowd_set_action(s->c, a, &b, NULL), SP_OK);
}

static size_t spawn(Scene *s, const char *start, int x, int y) {
  return test_spawn(&s->f, s->c, start, x, y);
}

static void run(Scene *s, size_t agent, int frames, float dt) {
  s->trace[0] = '\0';
  agent_trace_run(s->c, agent, frames, dt, s->trace, sizeof s->trace);
}

static int holds(const SpValue *cond, const SpValue *st, int m) {
  for (int v = 0; v < m; v++)
    if (cond[v] != SP_ANY && cond[v] != st[v]) return 0;
  return 1;
}

#define EXPECT_TRACE(s, text) assert_string_equal((s)->trace, text)

/* ------------------------------------------------------------------ */

/* The Citizen's work goal: each step starts only when the one before it
 * has finished, takes its duration, and the state ends on the goal. */
static void test_citizen_work(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_citizen(plain), NULL, 1);
  SpValue goal[8];
  named_goal(&s, "work", goal);
  assert_int_equal(sp_crowd_add_goal(s.c, goal, 10, NULL, NULL, NULL), SP_OK);
  timed(&s, "buy_food", 1.0f);
  timed(&s, "eat", 0.5f);
  timed(&s, "work", 2.0f);
  size_t a = spawn(&s, "start_of_day", 0, 0);
  run(&s, a, 9, 0.5f);
  EXPECT_TRACE(
      &s, "goal_chosen@0 planned@0 step_started:buy_food@0 | | "
          "step_finished:buy_food@0 step_started:buy_drink@0 "
          "step_finished:buy_drink@0 step_started:take@0 step_finished:take@0 "
          "step_started:eat@0 | step_finished:eat@0 step_started:drink@0 "
          "step_finished:drink@0 step_started:work@0 | | | | "
          "step_finished:work@0 goal_reached@0 | idle/all_satisfied");
  assert_true(holds(goal, sp_crowd_state(s.c, a), s.f.m));
  SpAgentInfo info;
  assert_int_equal(sp_crowd_inspect(s.c, a, &info), SP_OK);
  assert_int_equal(info.phase, SP_PHASE_IDLE);
  scene_close(&s);
}

/* Horse Breeder: the bucket is taken out of the breeder's hands while he
 * fills it: the running step and the plan break, he replans from there. */
static void test_horse_bucket_taken(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI), NULL, 1);
  SpValue goal[3];
  named_goal(&s, "feed_horses", goal);
  assert_int_equal(sp_crowd_add_goal(s.c, goal, 1, NULL, NULL, NULL), SP_OK);
  for (int k = 0; k < s.f.a; k++) timed(&s, sp_action_name(s.f.d, k), 1.0f);
  size_t a = spawn(&s, "morning", 0, 0);
  run(&s, a, 3, 1.0f);
  EXPECT_TRACE(&s, "goal_chosen@0 planned@0 step_started:pick_up_bucket@0 | "
                   "step_finished:pick_up_bucket@0 step_started:fill_bucket@0 "
                   "| step_finished:fill_bucket@0 step_started:fill_trough@0");
  SpAgentInfo info;
  sp_crowd_inspect(s.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_ACTING);
  assert_string_equal(sp_action_name(s.f.d, info.action), "fill_trough");
  assert_int_equal(sp_crowd_set_var(s.c, a, 1, 0, NULL),
                   SP_OK); /* bucket on the floor */
  run(&s, a, 12, 1.0f);
  EXPECT_TRACE(
      &s, "step_failed:fill_trough/world_changed@0 replanned/world_changed@0 "
          "step_started:pick_up_bucket@0 | step_finished:pick_up_bucket@0 "
          "step_started:fill_trough@0 | step_finished:fill_trough@0 "
          "step_started:drop_bucket@0 | step_finished:drop_bucket@0 "
          "step_started:take_haystack@0 | step_finished:take_haystack@0 "
          "step_started:fill_feeder@0 | step_finished:fill_feeder@0 "
          "goal_reached@0 | idle/all_satisfied | | | | |");
  assert_true(holds(goal, sp_crowd_state(s.c, a), 3));
  scene_close(&s);
}

/* A scripted step that the caller fails: the step fails with the
 * caller's detail and the agent replans. */
static void test_scripted_failure(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_citizen(plain), NULL, 1);
  SpValue goal[8];
  named_goal(&s, "work", goal);
  sp_crowd_add_goal(s.c, goal, 10, NULL, NULL, NULL);
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.place = SP_NO_PLACE;
  b.scripted = 1;
  b.has_hook = 1;
  sp_crowd_set_action(s.c, sp_builtin_action(s.f.b, "buy_food"), &b, NULL);
  size_t a = spawn(&s, "start_of_day", 0, 0);
  run(&s, a, 2, 0.1f);
  EXPECT_TRACE(
      &s,
      "goal_chosen@0 planned@0 step_started:buy_food@0 waiting:buy_food@0 |");
  assert_int_equal(sp_crowd_fail_step(s.c, a, 42, NULL), SP_OK);
  run(&s, a, 2, 0.1f);
  EXPECT_TRACE(&s, "step_failed:buy_food/script@0 | replanned/step_failed@0 "
                   "step_started:buy_food@0 waiting:buy_food@0");
  assert_int_equal(sp_crowd_finish_step(s.c, a, NULL), SP_OK);
  run(&s, a, 2, 0.1f);
  EXPECT_TRACE(&s,
               "step_finished:buy_food@0 step_started:buy_drink@0 "
               "step_finished:buy_drink@0 step_started:take@0 "
               "step_finished:take@0 step_started:eat@0 step_finished:eat@0 "
               "step_started:drink@0 step_finished:drink@0 step_started:work@0 "
               "step_finished:work@0 goal_reached@0 | idle/all_satisfied");
  scene_close(&s);
}

/* A goal without a plan: the agent reports no_plan with the planner's
 * own failure, then takes the next goal. */
static void test_no_plan_falls_back(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_citizen(plain), NULL, 1);
  SpValue impossible[8], goal[8];
  memset(impossible, SP_ANY, sizeof impossible);
  impossible[0] = 0; /* no_food */
  impossible[6] = 1; /* working: needs fed first, and nothing un-feeds */
  named_goal(&s, "buy_supplies", goal);
  sp_crowd_add_goal(s.c, goal, 1, NULL, NULL, NULL);
  sp_crowd_add_goal(s.c, impossible, 5, NULL, NULL, NULL);
  size_t a = spawn(&s, "start_of_day", 0, 0);
  run(&s, a, 1, 0.1f);
  EXPECT_TRACE(&s, "no_plan/no_plan@1 goal_chosen@0 planned@0 "
                   "step_started:buy_food@0 step_finished:buy_food@0 "
                   "step_started:buy_drink@0 step_finished:buy_drink@0 "
                   "goal_reached@0");
  SpFailure f = sp_crowd_last_failure(s.c, a);
  char why[256], direct[256];
  sp_failure_format(s.f.d, &f, why, sizeof why);
  /* the same instance planned directly */
  SpValue s0[8], g[8];
  memcpy(s0, sp_builtin_start(s.f.b, "start_of_day")->values, 7);
  for (int v = 0; v < 7; v++)
    g[v] = impossible[v] == SP_ANY ? s0[v] : impossible[v];
  uint16_t plan[16];
  int len;
  SpFailure f2;
  assert_int_equal(sp_plan(s.f.d, s.f.ws, s0, g, plan, &len, &f2), SP_NO_PLAN);
  sp_failure_format(s.f.d, &f2, direct, sizeof direct);
  assert_string_equal(why, direct);
  run(&s, a, 1, 0.1f);
  EXPECT_TRACE(&s, "no_plan/no_plan@1 idle/no_plan_any");
  run(&s, a, 3, 0.1f); /* idle says so once, not every frame */
  EXPECT_TRACE(&s, " | |");
  scene_close(&s);
}

/* Places on a grid. The market at (1,1) is walled in; the wells are two,
 * one stool each. */
static const char *town = ".#........\n"
                          "##........\n"
                          "..........\n"
                          "..........\n";

/* The action's behaviour: one second, bound as told, interruptible or
 * not. */
static void behave(Scene *s, const char *action, SpBind bind, uint32_t place,
                   int kind, int interruptible) {
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 1.0f;
  b.bind = bind;
  b.place = place;
  b.kind = kind;
  b.interruptible = interruptible;
  assert_int_equal(
      sp_crowd_set_action(s->c, sp_builtin_action(s->f.b, action), &b, NULL),
      SP_OK);
}

static void bound(Scene *s, const char *action, SpBind bind, uint32_t place,
                  int kind) {
  behave(s, action, bind, place, kind, 0);
}

/* A Citizen in the town with the work goal and one market at (x, y). */
static uint32_t town_market(Scene *s, int x, int y, int capacity) {
  scene_open(s, sp_builtin_citizen(plain), town, 1);
  int market;
  uint32_t p;
  sp_world_kind(s->w, "market", &market, NULL);
  assert_int_equal(sp_world_add_place(s->w, market, x, y, capacity, &p, NULL),
                   SP_OK);
  SpValue goal[8];
  named_goal(s, "work", goal);
  sp_crowd_add_goal(s->c, goal, 10, NULL, NULL, NULL);
  return p;
}

/* An unreachable place fails the step, cools the binding down, and the
 * agent waits out the cooldown instead of looping; the cooldown counts
 * as the step's second failure, so the third gives the goal up. */
static void test_unreachable_cooldown(void **state) {
  (void)state;
  Scene s;
  uint32_t p = town_market(&s, 0, 0, 0);
  bound(&s, "buy_food", SP_BIND_PLACE, p, 0);
  size_t a = spawn(&s, "start_of_day", 9, 3);
  run(&s, a, 2, 0.5f);
  /* the ready steps without a place go first (nearest target) */
  EXPECT_TRACE(&s,
               "goal_chosen@0 planned@0 step_started:buy_drink@0 "
               "step_finished:buy_drink@0 step_started:take@0 "
               "step_finished:take@0 step_started:drink@0 "
               "step_finished:drink@0 step_started:buy_food@0 "
               "step_failed:buy_food/unreachable@0 "
               "blocked:buy_food/unreachable@0 | "
               "replanned/step_failed@0 step_started:buy_food@0 "
               "step_failed:buy_food/cooldown@0 blocked:buy_food/cooldown@0");
  /* 5 s of cooldown from t = 0.5 at 0.5 s a frame: one retry at t = 5.5 */
  run(&s, a, 9, 0.5f);
  EXPECT_TRACE(&s, " | | | | | | | | step_started:buy_food@0 "
                   "step_failed:buy_food/unreachable@0 "
                   "blocked:buy_food/unreachable@0 "
                   "gave_up:buy_food/unreachable@0");
  SpAgentInfo info;
  sp_crowd_inspect(s.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_THINKING);
  assert_int_equal(info.last_reason, SP_REASON_UNREACHABLE);
  scene_close(&s);
}

/* The flags of agent a's last event of `kind` in the last update, -1 when
 * there is none; its reason in *reason. */
static int event_flags(const Scene *s, size_t a, SpEventKind kind,
                       SpReason *reason) {
  const SpAgentEvent *ev = sp_crowd_events(s->c);
  int flags = -1;
  for (size_t k = 0; k < sp_crowd_event_count(s->c); k++)
    if (ev[k].agent == a && ev[k].kind == kind) {
      flags = ev[k].flags;
      *reason = (SpReason)ev[k].reason;
    }
  return flags;
}

/* With max_failures 2 the cooldown after an unreachable place is the
 * failure that gives the goal up: gave_up (and inspect) name the first
 * failure of the run, unreachable, whose step_failed is marked
 * SP_EVENT_FIRST; the cooldown's is not. */
static void test_gave_up_names_first_failure(void **state) {
  (void)state;
  Scene s;
  uint32_t p = town_market(&s, 0, 0, 0);
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 1.0f;
  b.bind = SP_BIND_PLACE;
  b.place = p;
  b.max_failures = 2;
  assert_int_equal(
      sp_crowd_set_action(s.c, sp_builtin_action(s.f.b, "buy_food"), &b, NULL),
      SP_OK);
  size_t a = spawn(&s, "start_of_day", 9, 3);
  SpReason why = SP_REASON_NONE;
  run(&s, a, 1, 0.5f);
  int flags = event_flags(&s, a, SP_EV_STEP_FAILED, &why);
  assert_int_equal(why, SP_REASON_UNREACHABLE);
  assert_true(flags >= 0 && (flags & SP_EVENT_FIRST));
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "replanned/step_failed@0 step_started:buy_food@0 "
                   "step_failed:buy_food/cooldown@0 "
                   "gave_up:buy_food/unreachable@0");
  flags = event_flags(&s, a, SP_EV_STEP_FAILED, &why);
  assert_int_equal(why, SP_REASON_COOLDOWN);
  assert_false(flags & SP_EVENT_FIRST);
  assert_int_equal(event_flags(&s, a, SP_EV_GAVE_UP, &why) >= 0, 1);
  assert_int_equal(why, SP_REASON_UNREACHABLE);
  SpAgentInfo info;
  sp_crowd_inspect(s.c, a, &info);
  assert_int_equal(info.last_reason, SP_REASON_UNREACHABLE);
  scene_close(&s);
}

/* Two wells of one stool each: the second agent goes to the farther one,
 * the third waits (full); every agent walks to its well and acts there. */
static void test_full_place_next_one(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_citizen(plain), town, 1);
  int market;
  uint32_t near_id, far_id;
  sp_world_kind(s.w, "market", &market, NULL);
  sp_world_add_place(s.w, market, 4, 3, 1, &near_id, NULL);
  sp_world_add_place(s.w, market, 9, 0, 1, &far_id, NULL);
  SpValue goal[8];
  named_goal(&s, "work", goal);
  sp_crowd_add_goal(s.c, goal, 10, NULL, NULL, NULL);
  bound(&s, "buy_food", SP_BIND_KIND, 0, market);
  size_t a0 = spawn(&s, "start_of_day", 3, 3);
  size_t a1 = spawn(&s, "start_of_day", 3, 3);
  size_t a2 = spawn(&s, "start_of_day", 3, 3);
  run(&s, SP_NO_AGENT, 1, 0.1f);
  SpAgentInfo i0, i1, i2;
  sp_crowd_inspect(s.c, a0, &i0);
  sp_crowd_inspect(s.c, a1, &i1);
  sp_crowd_inspect(s.c, a2, &i2);
  assert_int_equal(i0.target, near_id);
  assert_int_equal(i1.target, far_id);
  assert_int_equal(i2.phase, SP_PHASE_BLOCKED);
  assert_int_equal(i2.last_reason, SP_REASON_FULL);
  SpPlaceInfo pi;
  sp_world_place(s.w, near_id, &pi);
  assert_int_equal(pi.reserved, 1);
  run(&s, a2, 40, 0.25f);
  assert_non_null(strstr(s.trace, "arrived:buy_food@0"));
  assert_non_null(strstr(s.trace, "goal_reached@0"));
  assert_true(holds(goal, sp_crowd_state(s.c, a1), s.f.m));
  sp_crowd_inspect(s.c, a1, &i1);
  assert_int_equal(i1.x, 9); /* it acted at the far well */
  assert_int_equal(i1.y, 0);
  sp_world_place(s.w, far_id, &pi);
  assert_int_equal(pi.reserved, 0); /* released when the steps ended */
  sp_world_place(s.w, near_id, &pi);
  assert_int_equal(pi.reserved, 0);
  scene_close(&s);
}

/* A step waiting for its target that the caller finished takes no target
 * any more: it would walk with the step already finished (and a save of
 * it would be refused). */
static void test_no_target_after_finish(void **state) {
  (void)state;
  Scene s;
  town_market(&s, 9, 3, 0);
  bound(&s, "buy_food", SP_BIND_SCRIPT, SP_NO_PLACE, 0);
  size_t a = spawn(&s, "start_of_day", 2, 3);
  run(&s, a, 1, 0.5f);
  SpAgentInfo info;
  sp_crowd_inspect(s.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_SCRIPT);
  assert_int_equal(sp_crowd_finish_step(s.c, a, NULL), SP_OK);
  SpError err;
  assert_int_equal(sp_crowd_set_target(s.c, a, SP_NO_PLACE, 5, 5, &err),
                   SP_ERR_STATE);
  assert_non_null(strstr(err.message, "its step has finished"));
  sp_crowd_inspect(s.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_SCRIPT);
  scene_close(&s);
}

/* Failing a step that is not scripted: an acting step fails at the next
 * update with the caller's detail even though its time runs out in that
 * update, and its effect is not applied; a walking step fails and frees
 * its place; with no running step the call is refused. */
static void test_fail_running_step(void **state) {
  (void)state;
  Scene s;
  uint32_t p = town_market(&s, 9, 3, 1);
  timed(&s, "buy_drink", 1.0f);
  bound(&s, "buy_food", SP_BIND_PLACE, p, 0);
  size_t a = spawn(&s, "start_of_day", 2, 3);
  SpValue before[8];
  memcpy(before, sp_crowd_state(s.c, a), (size_t)s.f.m);
  assert_int_equal(sp_crowd_fail_step(s.c, a, 5, NULL),
                   SP_ERR_STATE); /* nothing runs */
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "goal_chosen@0 planned@0 step_started:buy_drink@0");
  assert_int_equal(sp_crowd_fail_step(s.c, a, 42, NULL), SP_OK);
  assert_int_equal(sp_crowd_finish_step(s.c, a, NULL), SP_ERR_STATE);
  run(&s, a, 1, 1.0f); /* 1 s would finish it */
  EXPECT_TRACE(&s, "step_failed:buy_drink/script@0 replanned/step_failed@0 "
                   "step_started:buy_drink@0");
  assert_int_equal(sp_crowd_events(s.c)[0].detail, 42);
  assert_memory_equal(before, sp_crowd_state(s.c, a), (size_t)s.f.m);
  run(&s, a, 1, 1.0f);
  EXPECT_TRACE(
      &s, "step_finished:buy_drink@0 step_started:take@0 step_finished:take@0 "
          "step_started:drink@0 step_finished:drink@0 step_started:buy_food@0");
  SpAgentInfo info;
  SpPlaceInfo pi;
  sp_crowd_inspect(s.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_WALKING);
  sp_world_place(s.w, p, &pi);
  assert_int_equal(pi.reserved, 1);
  assert_int_equal(sp_crowd_fail_step(s.c, a, -7, NULL), SP_OK);
  run(&s, a, 1, 0.25f);
  EXPECT_TRACE(&s, "step_failed:buy_food/script@0 replanned/step_failed@0 "
                   "step_started:buy_food@0");
  assert_int_equal(sp_crowd_events(s.c)[0].detail, -7);
  sp_world_place(s.w, p, &pi);
  assert_int_equal(pi.reserved, 1); /* released, then taken again: not 2 */
  scene_close(&s);
}

/* A step a higher goal drops at its end (interruptible): the agent thinks
 * until the next update ends the step. Failed meanwhile, the step's end
 * says the caller's failure, with its detail, not the higher goal; left
 * alone, the higher goal. */
static void test_fail_step_a_higher_goal_dropped(void **state) {
  (void)state;
  for (int fail = 0; fail < 2; fail++) {
    Scene s;
    scene_open(&s, sp_builtin_citizen(plain), NULL, 1);
    int debating = test_var(&s.f, "debating");
    SpValue work[8], stop[8], when[8];
    named_goal(&s, "work", work);
    memset(stop, SP_ANY, sizeof stop);
    memset(when, SP_ANY, sizeof when);
    stop[debating] = 0;
    when[debating] = 1;
    assert_int_equal(sp_crowd_add_goal(s.c, work, 10, NULL, NULL, NULL), SP_OK);
    assert_int_equal(sp_crowd_add_goal(s.c, stop, 50, when, NULL, NULL), SP_OK);
    int buy_food = sp_builtin_action(s.f.b, "buy_food");
    SpActionBehaviour b;
    memset(&b, 0, sizeof b);
    b.min_duration = b.max_duration = 1.0f;
    b.place = SP_NO_PLACE;
    b.interruptible = 1;
    assert_int_equal(sp_crowd_set_action(s.c, buy_food, &b, NULL), SP_OK);
    size_t a = spawn(&s, "start_of_day", 0, 0);
    run(&s, a, 1, 0.5f);
    EXPECT_TRACE(&s, "goal_chosen@0 planned@0 step_started:buy_food@0");
    /* the work plan does not read it: the step goes on until its end */
    assert_int_equal(sp_crowd_set_var(s.c, a, debating, 1, NULL), SP_OK);
    run(&s, a, 1, 0.75f);
    EXPECT_TRACE(&s, "");
    SpAgentInfo info;
    sp_crowd_inspect(s.c, a, &info);
    assert_int_equal(info.phase, SP_PHASE_THINKING);
    assert_int_equal(info.action, buy_food); /* its step, ended next */
    if (fail) {
      assert_int_equal(sp_crowd_fail_step(s.c, a, 9, NULL), SP_OK);
      sp_crowd_inspect(s.c, a, &info);
      assert_int_equal(info.phase, SP_PHASE_SCRIPT);
      /* a state the update goes on from: a save of it loads */
      void *buf;
      size_t len;
      SpError err;
      const SpCrowd *saved[1] = {s.c};
      SpCrowd *loaded[1] = {s.c};
      assert_int_equal(sp_world_save(s.w, saved, 1, NULL, 0, &buf, &len, &err),
                       SP_OK);
      assert_int_equal(
          sp_world_load(s.w, loaded, 1, buf, len, NULL, NULL, &err), SP_OK);
      sp_world_save_free(s.w, buf, len);
    }
    run(&s, a, 1, 0.25f);
    const char *said = fail
                           ? "step_failed:buy_food/script@0 goal_chosen@1 "
                             "replanned/higher_goal@1"
                           : "step_failed:buy_food/higher_goal@0 goal_chosen@1 "
                             "replanned/higher_goal@1";
    assert_int_equal(strncmp(s.trace, said, strlen(said)), 0);
    if (fail) assert_int_equal(sp_crowd_events(s.c)[0].detail, 9);
    scene_close(&s);
  }
}

/* An action made interruptible while an agent walks to it: the walker
 * gives way to a higher goal in the next frame, as it does in a world
 * loaded from a save of that moment, not only when its next cell is due.
 * Another action is interruptible from the start, so the crowd already
 * looks at interruptible steps; the change is only this action's. */
static void test_interruptible_while_walking(void **state) {
  (void)state;
  for (int reload = 0; reload < 2; reload++) {
    Scene s;
    uint32_t p = town_market(&s, 9, 3, 0);
    bound(&s, "buy_food", SP_BIND_PLACE, p, 0);
    behave(&s, "debate", SP_BIND_NONE, SP_NO_PLACE, 0, 1);
    size_t a = spawn(&s, "start_of_day", 0, 3);
    SpAgentInfo info;
    for (int f = 0; f < 40; f++) {
      run(&s, a, 1, 0.05f);
      sp_crowd_inspect(s.c, a, &info);
      if (info.phase == SP_PHASE_WALKING) break;
    }
    assert_int_equal(info.phase, SP_PHASE_WALKING);
    assert_int_equal(info.action, sp_builtin_action(s.f.b, "buy_food"));
    behave(&s, "buy_food", SP_BIND_PLACE, p, 0, 1);
    SpValue debate[8];
    memset(debate, SP_ANY, sizeof debate);
    debate[test_var(&s.f, "debating")] = 1;
    assert_int_equal(sp_crowd_add_goal(s.c, debate, 50, NULL, NULL, NULL),
                     SP_OK);
    if (reload) {
      void *buf;
      size_t len;
      const SpCrowd *saved[1] = {s.c};
      SpCrowd *loaded[1] = {s.c};
      assert_int_equal(sp_world_save(s.w, saved, 1, NULL, 0, &buf, &len, NULL),
                       SP_OK);
      assert_int_equal(
          sp_world_load(s.w, loaded, 1, buf, len, NULL, NULL, NULL), SP_OK);
      sp_world_save_free(s.w, buf, len);
    }
    /* the step is dropped at once; its end is said by the goal choice */
    run(&s, a, 1, 0.01f);
    sp_crowd_inspect(s.c, a, &info);
    if (info.phase != SP_PHASE_THINKING)
      fail_msg("%s: still walking", reload ? "loaded" : "live");
    run(&s, a, 1, 0.01f);
    const char *said = "step_failed:buy_food/higher_goal@0 goal_chosen@1 "
                       "replanned/higher_goal@1";
    if (strncmp(s.trace, said, strlen(said)) != 0)
      fail_msg("%s: %s", reload ? "loaded" : "live", s.trace);
    scene_close(&s);
  }
}

/* Goals chosen by the caller: the agent waits (select) until told, plans
 * the goal it is given even when the list ranks another higher, and asks
 * again once it is reached; -1 leaves it idle with a reason. */
static void test_caller_selects_goals(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_citizen(plain), NULL, 1);
  SpValue work[8], supplies[8];
  named_goal(&s, "work", work);
  named_goal(&s, "buy_supplies", supplies);
  int gw, gm;
  sp_crowd_add_goal(s.c, work, 10, NULL, &gw, NULL);
  sp_crowd_add_goal(s.c, supplies, 1, NULL, &gm, NULL);
  sp_crowd_set_selector(s.c, 1);
  size_t a = spawn(&s, "start_of_day", 0, 0);
  assert_int_equal(sp_crowd_select_goal(s.c, a, gm, NULL),
                   SP_ERR_STATE); /* not asked yet */
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "waiting/select");
  assert_int_equal(sp_crowd_events(s.c)[0].flags, SP_EVENT_HOOK);
  assert_int_equal(sp_crowd_select_goal(s.c, a, 7, NULL), SP_ERR_STATE);
  assert_int_equal(sp_crowd_select_goal(s.c, a, gm, NULL), SP_OK);
  run(&s, a, 2, 0.5f);
  EXPECT_TRACE(
      &s, "goal_chosen@1 planned@1 step_started:buy_food@1 "
          "step_finished:buy_food@1 "
          "step_started:buy_drink@1 step_finished:buy_drink@1 goal_reached@1 | "
          "waiting/select");
  assert_true(holds(supplies, sp_crowd_state(s.c, a), s.f.m));
  assert_int_equal(sp_crowd_select_goal(s.c, a, -1, NULL), SP_OK);
  run(&s, a, 2, 0.5f);
  EXPECT_TRACE(&s, "idle/no_goal |");
  scene_close(&s);
}

/* A state change while the caller's answer waits for the update (the
 * answer was for the old state) asks again, whether the answer was
 * nothing or a goal; a change that leaves the state as it was, or comes
 * before the agent is asked, changes nothing; an idle agent whose state
 * changes is asked again. */
static void test_caller_asked_again_after_change(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, sp_builtin_citizen(plain), NULL, 1);
  SpValue supplies[8];
  named_goal(&s, "buy_supplies", supplies);
  int gm;
  sp_crowd_add_goal(s.c, supplies, 1, NULL, &gm, NULL);
  sp_crowd_set_selector(s.c, 1);
  size_t a = spawn(&s, "start_of_day", 0, 0);
  int wander = sp_crowd_state(s.c, a)[3];
  assert_int_equal(sp_crowd_set_var(s.c, a, 3, 1 - wander, NULL),
                   SP_OK); /* not asked yet */
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "waiting/select");
  /* nothing chosen, then the state changes: asked again, not idle */
  assert_int_equal(sp_crowd_select_goal(s.c, a, -1, NULL), SP_OK);
  assert_int_equal(sp_crowd_set_var(s.c, a, 3, wander, NULL), SP_OK);
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "waiting/select");
  /* a goal chosen, then the state changes: asked again */
  assert_int_equal(sp_crowd_select_goal(s.c, a, gm, NULL), SP_OK);
  assert_int_equal(sp_crowd_set_var(s.c, a, 3, 1 - wander, NULL), SP_OK);
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "waiting/select");
  /* setting a value it already has is no change: the answer stands */
  assert_int_equal(sp_crowd_select_goal(s.c, a, -1, NULL), SP_OK);
  assert_int_equal(sp_crowd_set_var(s.c, a, 3, 1 - wander, NULL), SP_OK);
  run(&s, a, 2, 0.5f);
  EXPECT_TRACE(&s, "idle/no_goal |");
  /* idle, then a change: asked again; this time the goal is planned */
  assert_int_equal(sp_crowd_set_var(s.c, a, 3, wander, NULL), SP_OK);
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(&s, "waiting/select");
  assert_int_equal(sp_crowd_select_goal(s.c, a, gm, NULL), SP_OK);
  run(&s, a, 1, 0.5f);
  EXPECT_TRACE(
      &s, "goal_chosen@0 planned@0 step_started:buy_food@0 "
          "step_finished:buy_food@0 "
          "step_started:buy_drink@0 step_finished:buy_drink@0 goal_reached@0");
  scene_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_citizen_work),
      cmocka_unit_test(test_horse_bucket_taken),
      cmocka_unit_test(test_scripted_failure),
      cmocka_unit_test(test_no_plan_falls_back),
      cmocka_unit_test(test_unreachable_cooldown),
      cmocka_unit_test(test_gave_up_names_first_failure),
      cmocka_unit_test(test_full_place_next_one),
      cmocka_unit_test(test_fail_running_step),
      cmocka_unit_test(test_fail_step_a_higher_goal_dropped),
      cmocka_unit_test(test_interruptible_while_walking),
      cmocka_unit_test(test_no_target_after_finish),
      cmocka_unit_test(test_caller_selects_goals),
      cmocka_unit_test(test_caller_asked_again_after_change),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
