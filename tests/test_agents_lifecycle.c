/* test_agents_lifecycle.c: sp_crowd_despawn (slots, generations, reservations, events, save/load), sp_crowd_teleport and engine moves (sp_crowd_arrived, sp_crowd_move_failed) driven in C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_agents.h"
#include "saspu_grid.h"
#include "sp_save.h" /* sp__crowd_check */
#include "test_alloc.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

/* A citizen town: an optional 12 x 6 grid with a wall, a market of
 * capacity 1 where buy_food happens (duration `dur`), the work goal. */
typedef struct Town {
  TestFixture f;
  SpGrid *g;
  SpWorld *w;
  SpCrowd *c;
  uint32_t market;
  int buy;
} Town;

static void town_open(Town *t, int with_grid, int engine, SpAllocator alloc) {
  memset(t, 0, sizeof *t);
  test_fixture_open(&t->f, sp_builtin_citizen(plain));
  static const char map[] = "............\n"
                            "....#.......\n"
                            "....#.......\n"
                            "....#.......\n"
                            "............\n"
                            "............\n";
  if (with_grid) {
    SpGridError gerr;
    assert_int_equal(
        sp_grid_new_ascii(map, sizeof map - 1, plain, &t->g, &gerr), SP_OK);
  }
  assert_int_equal(sp_world_new(t->g, plain, &t->w, NULL), SP_OK);
  int kind;
  assert_int_equal(sp_world_kind(t->w, "market", &kind, NULL), SP_OK);
  assert_int_equal(sp_world_add_place(t->w, kind, 10, 2, 1, &t->market, NULL),
                   SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = 8;
  o.threads = 1;
  o.engine_moves = engine;
  assert_int_equal(sp_crowd_new(t->w, t->f.d, &o, alloc, &t->c, NULL), SP_OK);
  t->buy = sp_builtin_action(t->f.b, "buy_food");
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 100.0f;
  b.bind = SP_BIND_PLACE;
  b.place = t->market;
  assert_int_equal(sp_crowd_set_action(t->c, t->buy, &b, NULL), SP_OK);
  const SpNamedState *goal = sp_builtin_goal(t->f.b, "work");
  SpValue cond[8];
  for (int v = 0; v < t->f.m; v++)
    cond[v] = goal->keep != NULL && goal->keep[v] ? SP_ANY : goal->values[v];
  assert_int_equal(sp_crowd_add_goal(t->c, cond, 1, NULL, NULL, NULL), SP_OK);
}

static void town_close(Town *t) {
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  sp_grid_free(t->g);
  test_fixture_close(&t->f);
}

static size_t spawn(Town *t, int x, int y) {
  return test_spawn(&t->f, t->c, "start_of_day", x, y);
}

static int reserved(const Town *t) {
  SpPlaceInfo p;
  assert_int_equal(sp_world_place(t->w, t->market, &p), SP_OK);
  return p.reserved;
}

/* Updates until agent i's event `kind` (of any action when act < 0);
 * returns the event's detail, fails after `frames` frames. */
/* One frame, then every invariant of the crowd and its places. */
static void frame(Town *t, float dt) {
  SpError err;
  assert_int_equal(sp_crowd_update(t->c, dt, NULL), SP_OK);
  if (sp__crowd_check(t->c, &err) != SP_OK) fail_msg("%s", err.message);
}

static int32_t until(Town *t, size_t i, SpEventKind kind, int act, int frames) {
  for (int f = 0; f < frames; f++) {
    frame(t, 0.25f);
    const SpAgentEvent *ev = sp_crowd_events(t->c);
    for (size_t k = 0; k < sp_crowd_event_count(t->c); k++)
      if (ev[k].agent == i && ev[k].kind == kind &&
          (act < 0 || ev[k].action == act))
        return ev[k].detail;
  }
  fail_msg("agent %zu: no %s event in %d frames", i, sp_event_kind_name(kind),
           frames);
  return -1;
}

static void test_despawn_frees_the_slot(void **state) {
  (void)state;
  Town t;
  town_open(&t, 1, 0, plain);
  size_t a = spawn(&t, 0, 0), b = spawn(&t, 1, 0);
  until(&t, a, SP_EV_ARRIVED, t.buy, 80);
  assert_int_equal(reserved(&t), 1);
  assert_int_equal(sp_crowd_size(t.c), 2);
  assert_int_equal(sp_crowd_generation(t.c, a), 0);
  SpError err;
  assert_int_equal(sp_crowd_despawn(t.c, a, &err), SP_OK);
  assert_int_equal(reserved(&t), 0);
  assert_false(sp_crowd_alive(t.c, a));
  assert_true(sp_crowd_alive(t.c, b));
  assert_int_equal(sp_crowd_size(t.c), 1);
  assert_int_equal(sp_crowd_slots(t.c), 2);
  assert_int_equal(sp_crowd_generation(t.c, a), 1);
  /* twice, or past the slots: refused, nothing changed */
  assert_int_equal(sp_crowd_despawn(t.c, a, &err), SP_ERR_STATE);
  assert_non_null(strstr(err.message, "despawned"));
  assert_int_equal(sp_crowd_despawn(t.c, 7, &err), SP_ERR_STATE);
  assert_int_equal(sp_crowd_generation(t.c, a), 1);
  SpAgentInfo info;
  assert_int_equal(sp_crowd_inspect(t.c, a, &info), SP_ERR_STATE);
  assert_int_equal(sp_crowd_set_var(t.c, a, 0, 1, &err), SP_ERR_STATE);
  /* no event of the slot while it is free */
  for (int f = 0; f < 20; f++) {
    frame(&t, 0.25f);
    const SpAgentEvent *ev = sp_crowd_events(t.c);
    for (size_t k = 0; k < sp_crowd_event_count(t.c); k++)
      assert_int_not_equal(ev[k].agent, a);
  }
  /* the next spawn takes the slot, with its new generation in events */
  size_t c = spawn(&t, 2, 5);
  assert_int_equal(c, a);
  assert_int_equal(sp_crowd_size(t.c), 2);
  frame(&t, 0.25f);
  const SpAgentEvent *ev = sp_crowd_events(t.c);
  int seen = 0;
  for (size_t k = 0; k < sp_crowd_event_count(t.c); k++)
    if (ev[k].agent == c) seen++, assert_int_equal(ev[k].gen, 1);
  assert_true(seen > 0);
  int x, y;
  assert_int_equal(sp_crowd_position(t.c, c, &x, &y), SP_OK);
  assert_true(x == 2 && y == 5);
  town_close(&t);
}

/* The first despawn allocates the slot bookkeeping: when that fails
 * nothing changed, and the despawn works once memory is there. */
static void test_despawn_out_of_memory(void **state) {
  (void)state;
  for (long fail = 1;; fail++) {
    TestAlloc ta;
    test_alloc_init(&ta, 0);
    Town t;
    town_open(&t, 0, 0, test_alloc_hook(&ta));
    size_t a = spawn(&t, 0, 0);
    frame(&t, 0.25f);
    ta.fail_at = ta.calls + fail;
    SpError err;
    SpStatus st = sp_crowd_despawn(t.c, a, &err);
    if (st == SP_OK) {
      assert_false(sp_crowd_alive(t.c, a));
      town_close(&t);
      assert_int_equal(ta.live, 0);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_true(sp_crowd_alive(t.c, a));
    assert_int_equal(sp_crowd_size(t.c), 1);
    ta.fail_at = 0;
    assert_int_equal(sp_crowd_despawn(t.c, a, NULL), SP_OK);
    town_close(&t);
    assert_int_equal(ta.live, 0);
    assert_true(fail < 4);
  }
}

static void test_despawn_is_saved(void **state) {
  (void)state;
  Town t, u;
  town_open(&t, 1, 0, plain);
  town_open(&u, 1, 0, plain);
  for (int k = 0; k < 5; k++) spawn(&t, k, 5);
  for (int f = 0; f < 6; f++)
    assert_int_equal(sp_crowd_update(t.c, 0.25f, NULL), SP_OK);
  assert_int_equal(sp_crowd_despawn(t.c, 3, NULL), SP_OK);
  assert_int_equal(sp_crowd_despawn(t.c, 1, NULL), SP_OK);
  void *buf;
  size_t len;
  SpCrowd *tc[1] = {t.c}, *uc[1] = {u.c};
  assert_int_equal(sp_world_save(t.w, (const SpCrowd *const *)tc, 1, NULL, 0,
                                 &buf, &len, NULL),
                   SP_OK);
  SpError err;
  assert_int_equal(sp_world_load(u.w, uc, 1, buf, len, NULL, NULL, &err),
                   SP_OK);
  assert_int_equal(sp_crowd_size(u.c), 3);
  assert_int_equal(sp_crowd_slots(u.c), 5);
  for (size_t i = 0; i < 5; i++) {
    assert_int_equal(sp_crowd_alive(u.c, i), sp_crowd_alive(t.c, i));
    assert_int_equal(sp_crowd_generation(u.c, i), sp_crowd_generation(t.c, i));
  }
  /* both reuse slot 1 (freed last), then 3 */
  assert_int_equal(spawn(&t, 0, 0), 1);
  assert_int_equal(spawn(&u, 0, 0), 1);
  assert_int_equal(spawn(&u, 0, 0), 3);
  /* a free list that names a live slot is refused, nothing changed */
  uint8_t *bad = malloc(len);
  memcpy(bad, buf, len);
  /* the last crowd bytes before the extra part: u32 count, then slots 1, 3
   * reversed (3 freed first), then u8 fact ties, u8 sensors, u32 chases
   * (none) and u32 own priorities (none), then the world's waiters (u32
   * count, 14 bytes each) */
  size_t waiters = t.w->queue_len - t.w->queue_holes;       /* holes unsaved */
  size_t at = len - 4 - (4 + 14 * waiters) - 4 - 4 - 2 - 4; /* extra length,
        waiters, own priorities, chases, ties and sensors, the last free slot */
  assert_int_equal(bad[at], 1);
  bad[at] = 0; /* slot 0 is alive */
  assert_int_equal(sp_world_load_check(u.w, (const SpCrowd *const *)uc, 1, bad,
                                       len, NULL, NULL, &err),
                   SP_ERR_INVALID);
  free(bad);
  sp_world_save_free(t.w, buf, len);
  town_close(&t);
  town_close(&u);
}

static void test_teleport(void **state) {
  (void)state;
  Town t;
  town_open(&t, 1, 0, plain);
  size_t a = spawn(&t, 0, 0);
  SpError err;
  assert_int_equal(sp_crowd_teleport(t.c, a, 4, 2, &err),
                   SP_ERR_STATE); /* the wall */
  assert_int_equal(sp_crowd_teleport(t.c, a, 12, 0, &err), SP_ERR_STATE);
  assert_int_equal(sp_crowd_teleport(t.c, a, -1, 0, &err), SP_ERR_STATE);
  int x, y;
  assert_int_equal(sp_crowd_position(t.c, a, &x, &y), SP_OK);
  assert_true(x == 0 && y == 0);
  /* mid-walk: the walk goes on from the new cell, the place stays bound */
  for (;;) {
    frame(&t, 0.25f);
    SpAgentInfo info;
    sp_crowd_inspect(t.c, a, &info);
    if (info.phase == SP_PHASE_WALKING && info.action == t.buy &&
        info.target == t.market)
      break;
  }
  assert_int_equal(sp_crowd_teleport(t.c, a, 10, 3, &err), SP_OK);
  assert_int_equal(reserved(&t), 1);
  /* one cell from the market at 4 cells a second: arrives in one frame */
  frame(&t, 0.25f);
  SpAgentInfo info;
  sp_crowd_inspect(t.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_ACTING);
  assert_true(info.x == 10 && info.y == 2);
  town_close(&t);
}

/* Engine moves, with and without a grid: move, then arrived or
 * move_failed. */
static void engine_moves(int with_grid) {
  Town t;
  town_open(&t, with_grid, 1, plain);
  size_t a = spawn(&t, 0, 0);
  SpError err;
  assert_int_equal(sp_crowd_arrived(t.c, a, &err), SP_ERR_STATE);
  assert_non_null(strstr(err.message, "no move pending"));
  int32_t place = until(&t, a, SP_EV_MOVE, t.buy, 40);
  assert_int_equal(place, (int32_t)t.market);
  int x, y;
  assert_int_equal(sp_crowd_target_cell(t.c, a, &x, &y), SP_OK);
  assert_true(x == 10 && y == 2);
  SpAgentInfo info;
  sp_crowd_inspect(t.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_MOVING);
  assert_int_equal(reserved(&t), 1);
  /* waiting: frames go by, it stays put, nothing happens */
  for (int f = 0; f < 5; f++) {
    frame(&t, 1.0f);
    assert_int_equal(sp_crowd_event_count(t.c), 0);
  }
  assert_int_equal(sp_crowd_position(t.c, a, &x, &y), SP_OK);
  assert_true(x == 0 && y == 0);
  assert_int_equal(sp_crowd_arrived(t.c, a, &err), SP_OK);
  assert_int_equal(sp_crowd_arrived(t.c, a, &err), SP_ERR_STATE); /* answered */
  assert_int_equal(sp_crowd_move_failed(t.c, a, 3, &err), SP_ERR_STATE);
  assert_int_equal(until(&t, a, SP_EV_ARRIVED, t.buy, 1), (int32_t)t.market);
  sp_crowd_inspect(t.c, a, &info);
  assert_int_equal(info.phase, SP_PHASE_ACTING);
  assert_true(info.x == 10 && info.y == 2);
  /* a second agent: its move fails; the step fails with the detail and
   * the place is avoided (cooldown) */
  assert_int_equal(sp_crowd_despawn(t.c, a, NULL), SP_OK);
  size_t b = spawn(&t, 5, 5);
  until(&t, b, SP_EV_MOVE, t.buy, 40);
  assert_int_equal(sp_crowd_move_failed(t.c, b, 42, &err), SP_OK);
  frame(&t, 0.25f);
  const SpAgentEvent *ev = sp_crowd_events(t.c);
  int failed = 0;
  for (size_t k = 0; k < sp_crowd_event_count(t.c); k++)
    if (ev[k].agent == b && ev[k].kind == SP_EV_STEP_FAILED) {
      assert_int_equal(ev[k].reason, SP_REASON_SCRIPT);
      assert_int_equal(ev[k].detail, 42);
      assert_int_equal(ev[k].action, t.buy);
      failed++;
    }
  assert_int_equal(failed, 1);
  assert_int_equal(reserved(&t), 0);
  sp_crowd_inspect(t.c, b, &info);
  assert_int_equal(info.last_reason, SP_REASON_SCRIPT);
  assert_true(info.x == 5 && info.y == 5);
  town_close(&t);
}

/* A move the game heard of, whose step the script fails before the next
 * update: that update says SP_EV_MOVE_CANCELLED (the game may be moving
 * the agent still), in the world and in a world loaded from a save of
 * that moment. */
static void test_move_told_survives_a_save(void **state) {
  (void)state;
  for (int saved = 0; saved < 2; saved++) {
    Town t;
    town_open(&t, 1, 1, plain);
    size_t a = spawn(&t, 0, 0);
    until(&t, a, SP_EV_MOVE, t.buy, 40);
    assert_int_equal(sp_crowd_fail_step(t.c, a, 7, NULL), SP_OK);
    if (saved) {
      void *buf;
      size_t len;
      SpError err;
      const SpCrowd *out[1] = {t.c};
      assert_int_equal(sp_world_save(t.w, out, 1, NULL, 0, &buf, &len, &err),
                       SP_OK);
      if (sp_world_load(t.w, &t.c, 1, buf, len, NULL, NULL, &err) != SP_OK)
        fail_msg("%s", err.message);
      sp_world_save_free(t.w, buf, len);
    }
    frame(&t, 0.25f);
    const SpAgentEvent *ev = sp_crowd_events(t.c);
    int cancelled = 0;
    for (size_t k = 0; k < sp_crowd_event_count(t.c); k++)
      cancelled += ev[k].agent == a && ev[k].kind == SP_EV_MOVE_CANCELLED &&
                   ev[k].reason == SP_REASON_SCRIPT && ev[k].action == t.buy;
    assert_int_equal(cancelled, 1);
    town_close(&t);
  }
}

static void test_engine_moves_on_a_grid(void **state) {
  (void)state;
  engine_moves(1);
}

static void test_engine_moves_without_a_grid(void **state) {
  (void)state;
  engine_moves(0);
}

/* A chaser whose buy_food step the caller targets at an agent of
 * another crowd of the same world, which the test moves about. */
static void chase_setup(Town *t, SpCrowd **prey_crowd, size_t *prey,
                        size_t *chaser) {
  town_open(t, 1, 0, plain);
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 100.0f;
  b.bind = SP_BIND_SCRIPT;
  assert_int_equal(sp_crowd_set_action(t->c, t->buy, &b, NULL), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = 4;
  o.threads = 1;
  assert_int_equal(sp_crowd_new(t->w, t->f.d, &o, plain, prey_crowd, NULL),
                   SP_OK);
  assert_int_equal(
      sp_crowd_spawn(*prey_crowd,
                     sp_builtin_start(t->f.b, "start_of_day")->values, 0, 5,
                     SP_NO_PLACE, prey, NULL),
      SP_OK);
  *chaser = spawn(t, 11, 0);
  until(t, *chaser, SP_EV_WAITING, t->buy, 20);
}

static void test_chase_follows_a_moving_agent(void **state) {
  (void)state;
  Town t;
  SpCrowd *pc;
  size_t prey, me;
  chase_setup(&t, &pc, &prey, &me);
  SpError err;
  /* refusals first: nothing changes */
  assert_int_equal(sp_crowd_set_target_agent(t.c, me, pc, 3, 0, 1, &err),
                   SP_ERR_STATE);
  assert_non_null(strstr(err.message, "does not exist"));
  assert_int_equal(sp_crowd_set_target_agent(t.c, me, pc, prey, 0, -1, &err),
                   SP_ERR_STATE);
  Town u; /* another world */
  town_open(&u, 0, 0, plain);
  size_t stranger = spawn(&u, 0, 0);
  assert_int_equal(
      sp_crowd_set_target_agent(t.c, me, u.c, stranger, 0, 1, &err),
      SP_ERR_STATE);
  assert_non_null(strstr(err.message, "another world"));
  SpAgentInfo info;
  sp_crowd_inspect(t.c, me, &info);
  assert_int_equal(info.phase, SP_PHASE_SCRIPT);
  assert_int_equal(sp_crowd_set_target_agent(t.c, me, pc, prey, 0, 1, &err),
                   SP_OK);
  assert_int_equal(sp_crowd_set_target_agent(t.c, me, pc, prey, 0, 1, &err),
                   SP_ERR_STATE);
  /* the prey hops along the bottom row; the chaser arrives next to it */
  int arrived = 0;
  const uint32_t *near;
  size_t found;
  /* the crowd's index made now: the chase's cells keep it current */
  assert_int_equal(sp_crowd_near(t.c, 0, 0, 1, 0, &near, &found, NULL), SP_OK);
  for (int f = 0; f < 60 && !arrived; f++) {
    assert_int_equal(sp_crowd_teleport(pc, prey, (f / 2) % 12, 5, NULL), SP_OK);
    frame(&t, 0.25f);
    const SpAgentEvent *ev = sp_crowd_events(t.c);
    for (size_t k = 0; k < sp_crowd_event_count(t.c); k++)
      arrived |= ev[k].agent == me && ev[k].kind == SP_EV_ARRIVED;
    int x, y, px, py;
    sp_crowd_position(t.c, me, &x, &y);
    assert_false(sp_grid_is_blocked(t.g, x, y));
    assert_int_equal(sp_crowd_near(t.c, x, y, 0, 0, &near, &found, NULL),
                     SP_OK);
    assert_true(found == 1 && near[0] == me); /* found on its cell */
    if (arrived) {
      sp_crowd_position(pc, prey, &px, &py);
      assert_true(abs(x - px) <= 1 && abs(y - py) <= 1);
    }
  }
  assert_true(arrived);
  sp_crowd_free(pc);
  town_close(&u);
  town_close(&t);
}

/* Whether the last frame failed agent me's step with target_gone. */
static int target_gone(const Town *t, size_t me) {
  const SpAgentEvent *ev = sp_crowd_events(t->c);
  int gone = 0;
  for (size_t k = 0; k < sp_crowd_event_count(t->c); k++)
    gone |= ev[k].agent == me && ev[k].kind == SP_EV_STEP_FAILED &&
            ev[k].reason == SP_REASON_TARGET_GONE;
  return gone;
}

/* A target of a stale generation: the chase fails at the next frame. */
static void test_chase_stale_target(void **state) {
  (void)state;
  Town t;
  SpCrowd *pc;
  size_t prey, me;
  chase_setup(&t, &pc, &prey, &me);
  assert_int_equal(sp_crowd_set_target_agent(t.c, me, pc, prey, 1, 1, NULL),
                   SP_OK);
  frame(&t, 0.25f);
  assert_true(target_gone(&t, me));
  sp_crowd_free(pc);
  town_close(&t);
}

/* The prey's crowd freed (or only retired: closed, still allocated)
 * mid-chase: target_gone, never a read of it. */
static void chase_target_crowd_gone(int retire) {
  Town t;
  SpCrowd *pc;
  size_t prey, me;
  chase_setup(&t, &pc, &prey, &me);
  assert_int_equal(sp_crowd_set_target_agent(t.c, me, pc, prey, 0, 0, NULL),
                   SP_OK);
  frame(&t, 0.25f);
  assert_false(target_gone(&t, me));
  if (retire)
    sp_crowd_retire(pc);
  else
    sp_crowd_free(pc);
  frame(&t, 0.25f);
  assert_true(target_gone(&t, me));
  assert_string_equal(sp_reason_name(SP_REASON_TARGET_GONE), "target_gone");
  if (retire) sp_crowd_free(pc);
  town_close(&t);
}

static void test_chase_target_crowd_freed(void **state) {
  (void)state;
  chase_target_crowd_gone(0);
}

static void test_chase_target_crowd_retired(void **state) {
  (void)state;
  chase_target_crowd_gone(1);
}

/* A crowd freed or retired gives its reservations back at once: the
 * market of capacity 1 has room again for the crowds that stay. */
static void test_retire_gives_places_back(void **state) {
  (void)state;
  Town t;
  town_open(&t, 1, 0, plain);
  size_t a = spawn(&t, 0, 0);
  until(&t, a, SP_EV_ARRIVED, t.buy, 80);
  assert_int_equal(reserved(&t), 1);
  assert_false(sp_crowd_retired(t.c));
  sp_crowd_retire(t.c);
  assert_true(sp_crowd_retired(t.c));
  assert_int_equal(reserved(&t), 0);
  sp_crowd_retire(t.c); /* again: nothing */
  assert_int_equal(reserved(&t), 0);
  sp_crowd_retire(NULL);
  town_close(&t);

  town_open(&t, 1, 0, plain); /* freed without a retire: the same */
  a = spawn(&t, 0, 0);
  until(&t, a, SP_EV_ARRIVED, t.buy, 80);
  assert_int_equal(reserved(&t), 1);
  sp_crowd_free(t.c);
  t.c = NULL;
  SpPlaceInfo p;
  assert_int_equal(sp_world_place(t.w, t.market, &p), SP_OK);
  assert_int_equal(p.reserved, 0);
  town_close(&t);
}

/* sp_world_load_probe tells each despawned slot of the save, per crowd. */
static size_t probed[8], probed_n;
static void note_slot(void *ud, size_t crowd, uint32_t slot) {
  assert_ptr_equal(ud, probed);
  assert_int_equal(crowd, 0);
  if (probed_n < 8) probed[probed_n] = slot;
  probed_n++;
}

static void test_load_probe_names_despawned_slots(void **state) {
  (void)state;
  Town t;
  town_open(&t, 1, 0, plain);
  for (int k = 0; k < 4; k++) spawn(&t, k, 5);
  frame(&t, 0.25f);
  assert_int_equal(sp_crowd_despawn(t.c, 2, NULL), SP_OK);
  assert_int_equal(sp_crowd_despawn(t.c, 0, NULL), SP_OK);
  void *buf;
  size_t len, agents[1];
  int goals[1];
  const SpCrowd *tc[1] = {t.c};
  assert_int_equal(sp_world_save(t.w, tc, 1, NULL, 0, &buf, &len, NULL), SP_OK);
  probed_n = 0;
  assert_int_equal(sp_world_load_probe(t.w, tc, 1, buf, len, NULL, NULL, agents,
                                       goals, note_slot, probed, NULL),
                   SP_OK);
  assert_int_equal(agents[0], 4);
  assert_int_equal(probed_n, 2);
  assert_true((probed[0] == 0 && probed[1] == 2) ||
              (probed[0] == 2 && probed[1] == 0));
  sp_world_save_free(t.w, buf, len);
  town_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_despawn_frees_the_slot),
      cmocka_unit_test(test_despawn_out_of_memory),
      cmocka_unit_test(test_despawn_is_saved),
      cmocka_unit_test(test_teleport),
      cmocka_unit_test(test_engine_moves_on_a_grid),
      cmocka_unit_test(test_engine_moves_without_a_grid),
      cmocka_unit_test(test_move_told_survives_a_save),
      cmocka_unit_test(test_chase_follows_a_moving_agent),
      cmocka_unit_test(test_chase_target_crowd_freed),
      cmocka_unit_test(test_chase_stale_target),
      cmocka_unit_test(test_retire_gives_places_back),
      cmocka_unit_test(test_chase_target_crowd_retired),
      cmocka_unit_test(test_load_probe_names_despawned_slots),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
