/* test_agents_sense.c: the C side of perception (sp_crowd_near against a scan of every agent), world facts (sp_world_add_fact, set/get, the ties' checks) and the checks of sp_crowd_add_sensor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_agents.h"
#include "sp_agents.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

typedef struct Scene {
  TestFixture f;
  SpWorld *w;
  SpCrowd *c;
} Scene;

static void scene_open(Scene *s, size_t capacity) {
  memset(s, 0, sizeof *s);
  test_fixture_open(&s->f, sp_builtin_citizen(plain));
  assert_int_equal(sp_world_new(NULL, plain, &s->w, NULL), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = capacity;
  o.threads = 1;
  assert_int_equal(sp_crowd_new(s->w, s->f.d, &o, plain, &s->c, NULL), SP_OK);
}

static void scene_close(Scene *s) {
  sp_crowd_free(s->c);
  sp_world_free(s->w);
  test_fixture_close(&s->f);
}

static size_t spawn(Scene *s, int x, int y) {
  return test_spawn(&s->f, s->c, "start_of_day", x, y);
}

static int cheb(int ax, int ay, int x, int y) {
  int dx = abs(ax - x), dy = abs(ay - y);
  return dx > dy ? dx : dy;
}

/* sp_crowd_near: every answer is the scan's, nearest first, by index
 * among equals, cut at max; after teleports and despawns too. */
static void test_near_matches_a_scan(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, 400);
  srand(7);
  for (int i = 0; i < 300; i++) spawn(&s, rand() % 200, rand() % 120);
  for (int round = 0; round < 30; round++) {
    for (int k = 0; k < 10; k++) {
      size_t i = (size_t)(rand() % 300);
      if (!sp_crowd_alive(s.c, i)) continue;
      if (k == 0)
        assert_int_equal(sp_crowd_despawn(s.c, i, NULL), SP_OK);
      else
        assert_int_equal(
            sp_crowd_teleport(s.c, i, rand() % 200, rand() % 120, NULL), SP_OK);
    }
    int x = rand() % 220 - 10, y = rand() % 140 - 10, r = rand() % 40;
    size_t max = (size_t)(round % 3 == 0 ? 5 : 0);
    const uint32_t *got;
    size_t n;
    assert_int_equal(sp_crowd_near(s.c, x, y, r, max, &got, &n, NULL), SP_OK);
    /* the scan: distance << 32 | index, sorted */
    uint64_t want[400];
    size_t nw = 0;
    for (size_t i = 0; i < 300; i++) {
      int ax, ay;
      if (!sp_crowd_alive(s.c, i) ||
          sp_crowd_position(s.c, i, &ax, &ay) != SP_OK)
        continue;
      int d = cheb(ax, ay, x, y);
      if (d <= r) want[nw++] = (uint64_t)d << 32 | i;
    }
    for (size_t a = 1; a < nw; a++)
      for (size_t b = a; b > 0 && want[b - 1] > want[b]; b--) {
        uint64_t t = want[b];
        want[b] = want[b - 1], want[b - 1] = t;
      }
    if (max > 0 && nw > max) nw = max;
    assert_int_equal(n, nw);
    for (size_t k = 0; k < n; k++) assert_int_equal(got[k], (uint32_t)want[k]);
  }
  SpError err;
  const uint32_t *got;
  size_t n;
  assert_int_equal(sp_crowd_near(s.c, 1, 1, -1, 0, &got, &n, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "radius -1 is negative"));
  scene_close(&s);
}

static int cmp_key(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* sp_crowd_near's answer checked against every live agent's position:
 * distance << 32 | index, sorted, cut at max. */
static void check_near(Scene *s, size_t slots, int x, int y, int r,
                       size_t max) {
  const uint32_t *got;
  size_t n, nw = 0;
  uint64_t *want = malloc((slots + 1) * sizeof *want);
  assert_non_null(want);
  assert_int_equal(sp_crowd_near(s->c, x, y, r, max, &got, &n, NULL), SP_OK);
  for (size_t i = 0; i < slots; i++) {
    int ax, ay;
    if (!sp_crowd_alive(s->c, i) ||
        sp_crowd_position(s->c, i, &ax, &ay) != SP_OK)
      continue;
    int d = cheb(ax, ay, x, y);
    if (d <= r) want[nw++] = (uint64_t)d << 32 | i;
  }
  qsort(want, nw, sizeof *want, cmp_key);
  if (max > 0 && nw > max) nw = max;
  assert_int_equal(n, nw);
  for (size_t k = 0; k < n; k++) assert_int_equal(got[k], (uint32_t)want[k]);
  free(want);
}

/* A pile of agents (many on one cell, ties everywhere) and a spread:
 * queries after moves with no update between (the stale keys' pass),
 * then runs of queries with nothing moved (the rebuilt buckets), max
 * small enough that the candidates are cut many times, across frames. */
static void test_near_stale_and_rebuilt_on_piles(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, 4000);
  srand(11);
  for (int i = 0; i < 2000; i++) spawn(&s, 40 + rand() % 9, 30 + rand() % 9);
  for (int i = 0; i < 1000; i++) spawn(&s, rand() % 200, rand() % 120);
  static const size_t maxes[] = {0, 1, 3, 17, 64, 150, 300, 700};
  for (int round = 0; round < 60; round++) {
    int moves = round % 4 == 3 ? 0 : 1 + rand() % 40; /* some runs go on */
    for (int k = 0; k < moves; k++) {
      size_t i = (size_t)(rand() % 3000);
      if (!sp_crowd_alive(s.c, i))
        spawn(&s, 40 + rand() % 9, 30 + rand() % 9); /* a freed slot */
      else if (k % 7 == 0)
        assert_int_equal(sp_crowd_despawn(s.c, i, NULL), SP_OK);
      else
        assert_int_equal(
            sp_crowd_teleport(s.c, i, rand() % 200, rand() % 120, NULL), SP_OK);
    }
    if (round % 5 == 4)
      assert_int_equal(sp_crowd_update(s.c, 0.5f, NULL), SP_OK);
    int run = round % 3 == 2 ? SP_INDEX_SCANS_PER_REBUILD + 1 + round % 5
                             : 1 + round % 9;
    for (int q = 0; q < run; q++) {
      int pile = rand() % 2;
      /* in the pile, across its buckets' edges (8 cells) */
      int x = pile ? 38 + rand() % 13 : rand() % 220 - 10;
      int y = pile ? 28 + rand() % 13 : rand() % 140 - 10;
      check_near(&s, 3000, x, y, rand() % 60, maxes[rand() % 8]);
    }
  }
  scene_close(&s);
}

/* Right after a move, whatever the queries before it built: the agent
 * is found where it went and not where it was. */
static void test_near_follows_moves_between_queries(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, 64);
  for (int i = 0; i < 50; i++) spawn(&s, 10 + i % 5, 10 + i / 5);
  size_t lone = spawn(&s, 100, 100);
  const uint32_t *got;
  size_t n;
  for (int round = 0; round < 3; round++) {
    /* from one query to many with nothing moved between */
    for (int q = 0; q <= round * SP_INDEX_SCANS_PER_REBUILD; q++) {
      assert_int_equal(sp_crowd_near(s.c, 100, 100, 2, 0, &got, &n, NULL),
                       SP_OK);
      assert_int_equal(n, 1);
      assert_int_equal(got[0], (uint32_t)lone);
    }
    assert_int_equal(sp_crowd_teleport(s.c, lone, 200, 150, NULL), SP_OK);
    assert_int_equal(sp_crowd_near(s.c, 100, 100, 2, 0, &got, &n, NULL), SP_OK);
    assert_int_equal(n, 0);
    check_near(&s, 51, 200, 151, 1, 0);
    assert_int_equal(sp_crowd_teleport(s.c, lone, 100, 100, NULL), SP_OK);
  }
  /* despawned: gone at once; a spawn into its slot is there at once */
  for (int q = 0; q <= SP_INDEX_SCANS_PER_REBUILD; q++)
    check_near(&s, 51, 12, 12, 3, 5);
  assert_int_equal(sp_crowd_despawn(s.c, 7, NULL), SP_OK);
  check_near(&s, 51, 12, 12, 3, 0);
  assert_int_equal(sp_crowd_near(s.c, 12, 11, 0, 0, &got, &n, NULL), SP_OK);
  assert_int_equal(n, 0); /* agent 7 stood alone on (12, 11) */
  size_t back = spawn(&s, 12, 11);
  assert_int_equal(back, 7);
  assert_int_equal(sp_crowd_near(s.c, 12, 11, 0, 0, &got, &n, NULL), SP_OK);
  assert_int_equal(n, 1);
  scene_close(&s);
}

/* A slot freed before the first query (the index made then, and its
 * buckets after enough queries) and spawned into again on the cell of
 * its last agent: the new agent is found. */
static void test_near_spawn_into_a_slot_freed_before_any_query(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, 64);
  size_t a = spawn(&s, 3, 4);
  assert_int_equal(sp_crowd_despawn(s.c, a, NULL), SP_OK);
  const uint32_t *got;
  size_t n;
  for (int q = 0; q <= SP_INDEX_SCANS_PER_REBUILD; q++) {
    assert_int_equal(sp_crowd_near(s.c, 3, 4, 2, 0, &got, &n, NULL), SP_OK);
    assert_int_equal(n, 0);
  }
  assert_int_equal(spawn(&s, 3, 4), a);
  assert_int_equal(sp_crowd_near(s.c, 3, 4, 2, 0, &got, &n, NULL), SP_OK);
  assert_int_equal(n, 1);
  assert_int_equal(got[0], (uint32_t)a);
  scene_close(&s);
}

static void test_facts_set_get_and_errors(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, 4);
  const char *alarm[] = {"quiet", "ringing"};
  const char *twice[] = {"a", "a"};
  int id = -1;
  SpError err;
  assert_int_equal(sp_world_add_fact(s.w, "alarm", alarm, 2, 1, &id, &err),
                   SP_OK);
  assert_int_equal(id, 0);
  assert_int_equal(sp_world_get_fact(s.w, 0), 1);
  assert_string_equal(sp_world_fact_value_name(s.w, 0, 0), "quiet");
  assert_int_equal(sp_world_find_fact(s.w, "alarm"), 0);
  assert_int_equal(sp_world_add_fact(s.w, "alarm", alarm, 2, 0, NULL, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "fact 'alarm' exists already"));
  assert_int_equal(sp_world_add_fact(s.w, "dup", twice, 2, 0, NULL, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "value 'a' is named twice"));
  assert_int_equal(sp_world_add_fact(s.w, "one", alarm, 1, 0, NULL, &err),
                   SP_ERR_INVALID);
  assert_int_equal(sp_world_add_fact(s.w, "bad", alarm, 2, 2, NULL, &err),
                   SP_ERR_INVALID);
  assert_int_equal(sp_world_fact_count(s.w), 1);
  assert_int_equal(sp_world_set_fact(s.w, 0, 0, &err), SP_OK);
  assert_int_equal(sp_world_get_fact(s.w, 0), 0);
  assert_int_equal(sp_world_set_fact(s.w, 0, 2, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "fact 'alarm': value 2 is out of range"));
  assert_int_equal(sp_world_set_fact(s.w, 3, 0, &err), SP_ERR_INVALID);
  assert_int_equal(sp_world_get_fact(s.w, 0), 0); /* nothing changed */
  scene_close(&s);
}

static void test_ties_checked(void **state) {
  (void)state;
  Scene s;
  scene_open(&s, 4);
  const char *yes_no[] = {"yes", "no"};
  const char *bools[] = {"false", "true"};
  SpError err;
  assert_int_equal(sp_world_add_fact(s.w, "mood", yes_no, 2, 0, NULL, NULL),
                   SP_OK);
  assert_int_equal(sp_world_add_fact(s.w, "rested", bools, 2, 0, NULL, NULL),
                   SP_OK);
  int rested = test_var(&s.f, "rested");
  assert_int_equal(sp_crowd_tie_fact(s.c, 0, rested, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "its values differ from the fact's"));
  assert_int_equal(sp_crowd_tie_fact(s.c, 1, rested, &err), SP_ERR_INVALID);
  assert_non_null(
      strstr(err.message, "changes it (only the world sets a fact)"));
  assert_int_equal(sp_crowd_tie_fact(s.c, 7, rested, &err), SP_ERR_INVALID);
  assert_int_equal(sp_crowd_tie_fact(s.c, 1, 99, &err), SP_ERR_INVALID);
  scene_close(&s);
}

static void test_sensors_checked(void **state) {
  (void)state;
  Scene s, other;
  scene_open(&s, 4);
  scene_open(&other, 4);
  SpError err;
  SpSensor sn = {test_var(&s.f, "rested"), 1, 0, s.c, -1, 3, 0.0f};
  assert_int_equal(sp_crowd_add_sensor(s.c, &sn, &err), SP_ERR_INVALID);
  assert_non_null(
      strstr(err.message, "an action changes it (the sensor sets it)"));
  sn.on = sn.off = 0;
  assert_int_equal(sp_crowd_add_sensor(s.c, &sn, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "two different values"));
  sn.on = 1, sn.var = 99;
  assert_int_equal(sp_crowd_add_sensor(s.c, &sn, &err), SP_ERR_INVALID);
  sn.var = test_var(&s.f, "rested");
  sn.near = NULL;
  assert_int_equal(sp_crowd_add_sensor(s.c, &sn, &err), SP_ERR_INVALID);
  sn.near = other.c;
  assert_int_equal(sp_crowd_add_sensor(s.c, &sn, &err), SP_ERR_INVALID);
  scene_close(&other);
  scene_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_near_matches_a_scan),
      cmocka_unit_test(test_near_stale_and_rebuilt_on_piles),
      cmocka_unit_test(test_near_follows_moves_between_queries),
      cmocka_unit_test(test_near_spawn_into_a_slot_freed_before_any_query),
      cmocka_unit_test(test_facts_set_get_and_errors),
      cmocka_unit_test(test_ties_checked),
      cmocka_unit_test(test_sensors_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
