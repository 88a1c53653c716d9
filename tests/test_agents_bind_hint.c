/* test_agents_bind_hint.c: a binding answered in the advance pass is used only while it is the one the serial pass would choose: a place preferred to it that found room, or its own place filled, sends the agent back to sp__agent_bind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_agents.h"
#include "sp_agents.h"
#include "sp_wheel.h"
#include "sp_loop.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

/* Two wells of one stool each, both reachable from (3,3), the near one
 * first in the kind's list. */
static const char *town = ".#........\n"
                          "##........\n"
                          "..........\n"
                          "..........\n";

typedef struct Scene {
  TestFixture f;
  SpGrid *grid;
  SpWorld *w;
  SpCrowd *c;
  uint32_t near_id, far_id;
  size_t agent;
} Scene;

static void reserved_set(Scene *s, uint32_t p, int n) {
  atomic_store(&s->w->places[p].reserved, n);
}

/* The agent about to bind buy_food to the kind, nothing reserved: one
 * frame binds it (to the near well), then the binding is undone. */
static void scene_open(Scene *s) {
  memset(s, 0, sizeof *s);
  test_fixture_open(&s->f, sp_builtin_citizen(plain));
  assert_int_equal(sp_grid_new_ascii(town, strlen(town), plain, &s->grid, NULL),
                   SP_OK);
  assert_int_equal(sp_world_new(s->grid, plain, &s->w, NULL), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = 4;
  o.threads = 1;
  assert_int_equal(sp_crowd_new(s->w, s->f.d, &o, plain, &s->c, NULL), SP_OK);
  int well;
  sp_world_kind(s->w, "well", &well, NULL);
  sp_world_add_place(s->w, well, 4, 3, 1, &s->near_id, NULL);
  sp_world_add_place(s->w, well, 9, 0, 1, &s->far_id, NULL);
  const SpNamedState *g = sp_builtin_goal(s->f.b, "work");
  SpValue goal[8];
  for (int v = 0; v < s->f.m; v++)
    goal[v] = g->keep != NULL && g->keep[v] ? SP_ANY : g->values[v];
  sp_crowd_add_goal(s->c, goal, 10, NULL, NULL, NULL);
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 1.0f;
  b.bind = SP_BIND_KIND;
  b.kind = well;
  assert_int_equal(sp_crowd_set_action(
                       s->c, sp_builtin_action(s->f.b, "buy_food"), &b, NULL),
                   SP_OK);
  s->agent = test_spawn(&s->f, s->c, "start_of_day", 3, 3);
  assert_int_equal(sp_crowd_update(s->c, 0.1f, NULL), SP_OK);
  Agent *a = &s->c->agents[s->agent];
  assert_int_equal(a->target, s->near_id);
  reserved_set(s, s->near_id, 0);
  s->c->agents[s->agent].flags =
      (uint8_t)((s->c->agents[s->agent].flags & ~F_RESERVED) | F_BIND);
  a->target = SP_NO_PLACE;
  s->c->ev_count = 0;
}

static void scene_close(Scene *s) {
  sp_crowd_free(s->c);
  sp_world_free(s->w);
  sp_grid_free(s->grid);
  test_fixture_close(&s->f);
}

/* The answer found with the near well full, as the advance pass finds it. */
static BindHint *hint_with_near_full(Scene *s) {
  CrowdWorker *w = &s->c->cw[0];
  w->hint_count = 0;
  reserved_set(s, s->near_id, 1);
  sp__bind_hint_add(s->c, -1, s->agent);
  assert_int_equal(w->hint_count, 1);
  BindHint *h = &w->hint[0];
  assert_int_equal(h->agent, s->agent);
  assert_int_equal(h->place, s->far_id);
  return h;
}

/* What the agent ended with: its target, phase, and the wells' slots. */
typedef struct Outcome {
  uint32_t target;
  int phase, near_slots, far_slots;
  size_t events;
} Outcome;

static Outcome outcome(const Scene *s) {
  Outcome o = {s->c->agents[s->agent].target, s->c->agents[s->agent].phase,
               atomic_load(&s->w->places[s->near_id].reserved),
               atomic_load(&s->w->places[s->far_id].reserved), s->c->ev_count};
  return o;
}

static void same(Outcome a, Outcome b) {
  assert_int_equal(a.target, b.target);
  assert_int_equal(a.phase, b.phase);
  assert_int_equal(a.near_slots, b.near_slots);
  assert_int_equal(a.far_slots, b.far_slots);
  assert_int_equal(a.events, b.events);
}

/* The serial pass's own answer for the same state. */
static Outcome serial_answer(int near_full, int far_full) {
  Scene s;
  scene_open(&s);
  reserved_set(&s, s.near_id, near_full);
  reserved_set(&s, s.far_id, far_full);
  sp__agent_bind(s.c, (Sink){s.c, -1}, s.agent);
  sp__wheel_settle(s.c, -1, s.agent);
  sp__wheel_flush(s.c);
  Outcome o = outcome(&s);
  scene_close(&s);
  return o;
}

/* The hinted path as the bind pass runs it: the answer, else the pass. */
static Outcome hinted_answer(int near_full, int far_full, int want_used) {
  Scene s;
  scene_open(&s);
  BindHint *h = hint_with_near_full(&s);
  reserved_set(&s, s.near_id, near_full); /* what moved since */
  reserved_set(&s, s.far_id, far_full);
  Sink sink = {s.c, -1};
  int used = sp__agent_bind_hinted(s.c, sink, h);
  assert_int_equal(used, want_used);
  if (!used) sp__agent_bind(s.c, sink, s.agent);
  if (used && h->taken) { /* reserved: the commit pass writes the agent */
    assert_int_equal(s.c->agents[s.agent].target, SP_NO_PLACE);
    sp__bind_hint_commit(s.c, -1, h);
  }
  sp__wheel_flush(s.c);
  Outcome o = outcome(&s);
  scene_close(&s);
  return o;
}

/* Nothing moved: the answer is taken, the far well reserved. */
static void test_answer_taken_when_nothing_moved(void **state) {
  (void)state;
  Outcome o = hinted_answer(1, 0, 1);
  assert_int_equal(o.far_slots, 1);
  same(o, serial_answer(1, 0));
}

/* The near well found room before the serial pass: the answer is not
 * used, and the agent takes the near well as the serial pass chooses. */
static void test_preferred_place_with_room_sends_back(void **state) {
  (void)state;
  Outcome o = hinted_answer(0, 0, 0);
  assert_int_equal(o.near_slots, 1);
  assert_int_equal(o.far_slots, 0);
  same(o, serial_answer(0, 0));
}

/* The far well filled too: not used; the agent waits (full). */
static void test_own_place_filled_sends_back(void **state) {
  (void)state;
  Outcome o = hinted_answer(1, 1, 0);
  assert_int_equal(o.phase, SP_PHASE_BLOCKED);
  same(o, serial_answer(1, 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_answer_taken_when_nothing_moved),
      cmocka_unit_test(test_preferred_place_with_room_sends_back),
      cmocka_unit_test(test_own_place_filled_sends_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
