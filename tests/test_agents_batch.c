/* test_agents_batch.c: several crowds updated together on one pool (sp_crowds_update): events independent of the thread count, equal to one-by-one updates where crowds do not meet, bad lists refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent_trace.h"
#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_agents.h"
#include "sp_due.h"
#include "sp_save.h"

static const SpAllocator plain = {NULL, NULL};

/* An allocator that counts calls entered while another thread is inside
 * it: the world's crowds must never do that (Lua's allocator, which the
 * binding passes, is not thread-safe). It lingers inside to widen the
 * window a race needs. */
static atomic_int alloc_inside, alloc_overlaps, alloc_calls;

static void *one_at_a_time(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud, (void)osize;
  if (atomic_exchange(&alloc_inside, 1)) atomic_fetch_add(&alloc_overlaps, 1);
  atomic_fetch_add(&alloc_calls, 1);
  for (volatile int spin = 0; spin < 20000; spin++) {}
  void *p = NULL;
  if (nsize == 0)
    free(ptr);
  else
    p = realloc(ptr, nsize);
  atomic_store(&alloc_inside, 0);
  return p;
}

/* The allocator of the world and crowds town_open builds. */
static SpAllocator town_alloc = {NULL, NULL};
/* 1: the world reads its queue of waiters in order, not through its
 * index (queue_index.c), which must give the same turns. */
static int town_queue_by_list;

#define CROWDS 3
#define FRAMES 25

/* Three crowds of random domains in one world. With `grid`, a 24x24 map
 * with walls and two small places of one kind that every crowd's
 * actions may bind (crowds then meet: capacities, fields). */
typedef struct Town {
  RandomDomain rd[CROWDS];
  SpDomain *d[CROWDS];
  SpCrowd *c[CROWDS];
  SpGrid *grid;
  SpWorld *w;
  SpThreadPool *pool;
  int ok;
} Town;

static void town_open(Town *t, uint64_t seed, int threads, int grid) {
  memset(t, 0, sizeof *t);
  if (grid) {
    assert_int_equal(sp_grid_new(24, 24, 1.0, plain, &t->grid, NULL), SP_OK);
    for (int y = 2; y < 20; y++) sp_grid_set_blocked(t->grid, 12, y, 1, NULL);
  }
  assert_int_equal(sp_world_new(t->grid, town_alloc, &t->w, NULL), SP_OK);
  t->w->queue_by_list = town_queue_by_list;
  int kind = 0;
  if (grid) {
    sp_world_kind(t->w, "well", &kind, NULL);
    sp_world_add_place(t->w, kind, 3, 3, 2, NULL, NULL);
    sp_world_add_place(t->w, kind, 20, 20, 3, NULL, NULL);
  }
  if (threads > 0)
    assert_int_equal(sp_thread_pool_new(threads, plain, &t->pool, NULL), SP_OK);
  RdRng rng;
  rd_seed(&rng, seed * 13 + 5);
  t->ok = 1;
  for (int k = 0; k < CROWDS; k++) {
    random_domain_generate(&t->rd[k], seed * 3 + (uint64_t)k, RD_FLAVOR_ANY);
    SpCompileOptions co = {1};
    if (sp_domain_compile(&t->rd[k].spec, &co, plain, &t->d[k], NULL) !=
        SP_OK) {
      t->ok = 0;
      return;
    }
    SpCrowdOptions o;
    memset(&o, 0, sizeof o);
    o.capacity = 1500;
    o.threads = threads > 0 ? threads : 1;
    o.parallel_min = 1; /* threads share even small passes */
    o.pool = t->pool;
    o.seed = seed + (uint64_t)k;
    assert_int_equal(
        sp_crowd_new(t->w, t->d[k], &o, town_alloc, &t->c[k], NULL), SP_OK);
    int m = sp_domain_variable_count(t->d[k]);
    for (int g = 0; g < 2; g++) {
      SpValue cond[RD_MAX_VARIABLES];
      for (int v = 0; v < m; v++)
        cond[v] =
            rd_chance(&rng, 50)
                ? SP_ANY
                : (SpValue)rd_below(&rng, sp_variable_value_count(t->d[k], v));
      sp_crowd_add_goal(t->c[k], cond, g, NULL, NULL, NULL);
    }
    for (int a = 0; a < sp_domain_action_count(t->d[k]); a++) {
      SpActionBehaviour b;
      memset(&b, 0, sizeof b);
      b.place = SP_NO_PLACE;
      b.min_duration = (float)rd_below(&rng, 3) * 0.1f;
      b.max_duration = b.min_duration + 0.2f;
      b.interruptible = rd_chance(&rng, 30);
      if (grid && rd_chance(&rng, 40)) b.bind = SP_BIND_KIND, b.kind = kind;
      sp_crowd_set_action(t->c[k], a, &b, NULL);
    }
    for (size_t i = 0; i < 1500 - 500 * (size_t)k; i++) {
      SpValue s[RD_MAX_VARIABLES];
      for (int v = 0; v < m; v++)
        s[v] = (SpValue)rd_below(&rng, sp_variable_value_count(t->d[k], v));
      int x = grid ? rd_below(&rng, 10) : 0, y = grid ? rd_below(&rng, 24) : 0;
      assert_int_equal(
          sp_crowd_spawn(t->c[k], s, x, y, SP_NO_PLACE, NULL, NULL), SP_OK);
    }
  }
}

static void town_close(Town *t) {
  for (int k = 0; k < CROWDS; k++) {
    sp_crowd_free(t->c[k]);
    sp_domain_free(t->d[k]);
  }
  sp_world_free(t->w);
  sp_thread_pool_free(t->pool);
  sp_grid_free(t->grid);
}

/* A few world changes per frame, the same for every run of a seed. */
static void disturb(Town *t, RdRng *rng) {
  for (int k = 0; k < CROWDS; k++) {
    size_t n = sp_crowd_size(t->c[k]);
    int m = sp_domain_variable_count(t->d[k]);
    for (int j = 0; j < 20; j++) {
      size_t i = (size_t)rd_below(rng, (int)n);
      int v = rd_below(rng, m);
      sp_crowd_set_var(t->c[k], i, v,
                       rd_below(rng, sp_variable_value_count(t->d[k], v)),
                       NULL);
    }
  }
}

/* The events of every frame, crowd after crowd, copied, each crowd
 * checked after each frame; `together` updates the crowds with
 * sp_crowds_update, else one by one. */
static SpAgentEvent *run(uint64_t seed, int threads, int grid, int together,
                         size_t *count) {
  Town t;
  town_open(&t, seed, threads, grid);
  SpAgentEvent *all = NULL;
  *count = 0;
  RdRng rng;
  rd_seed(&rng, seed);
  for (int f = 0; t.ok && f < FRAMES; f++) {
    if (together) {
      assert_int_equal(sp_crowds_update(t.c, CROWDS, 0.25f, NULL), SP_OK);
    } else {
      for (int k = 0; k < CROWDS; k++)
        assert_int_equal(sp_crowd_update(t.c[k], 0.25f, NULL), SP_OK);
    }
    for (int k = 0; k < CROWDS; k++) {
      SpError err; /* places given up on workers are counted down */
      if (sp__crowd_check(t.c[k], &err) != SP_OK) fail_msg("%s", err.message);
      size_t n = sp_crowd_event_count(t.c[k]);
      all = realloc(all, (*count + n + 1) * sizeof *all);
      memcpy(all + *count, sp_crowd_events(t.c[k]), n * sizeof *all);
      *count += n;
    }
    disturb(&t, &rng);
  }
  int ok = t.ok;
  town_close(&t);
  if (!ok) {
    free(all);
    return NULL;
  }
  return all;
}

static SpAgentEvent *record_grid(uint64_t seed, int threads, size_t *count) {
  return run(seed, threads, 1, 1, count);
}

static SpAgentEvent *record_plain(uint64_t seed, int threads, size_t *count) {
  return run(seed, threads, 0, 1, count);
}

/* Crowds that meet at small places on a map with walls, and crowds with
 * no places: the same events for 1, 2 and 4 workers. */
static void test_same_events_any_threads(void **state) {
  (void)state;
  assert_true(agent_same_events_any_threads(record_grid, 1, 4, 2000));
  assert_true(agent_same_events_any_threads(record_plain, 1, 4, 2000));
  uint64_t more = agent_soak_seeds(), from = agent_soak_from();
  if (more > 0) { /* any number of events for those */
    uint64_t first = 5 + from, last = 4 + from + more;
    assert_true(agent_same_events_any_threads(record_grid, first, last, 0));
    assert_true(agent_same_events_any_threads(record_plain, first, last, 0));
  }
}

/* Thousands of agents wait in turn for two small wells: the turns the
 * index gives (each well's line, each waiter's entry) are those of the
 * list read in order, frame after frame, while waiters come and go. */
static void test_queue_index_gives_the_lists_turns(void **state) {
  (void)state;
  /* 80 and 208: agents that stopped waiting dropped out when a reader
   * of their line passed them, the index's and the list's at other times */
  static const uint64_t also[] = {80, 208};
  uint64_t last = 4 + 2 + agent_soak_seeds();
  for (uint64_t n = 1; n <= last; n++) {
    uint64_t seed = n <= 4   ? n
                    : n <= 6 ? also[n - 5]
                             : n - 2 + agent_soak_from();
    size_t n_index, n_list, full = 0;
    town_queue_by_list = 0;
    SpAgentEvent *index = run(seed, 1, 1, 1, &n_index);
    town_queue_by_list = 1;
    SpAgentEvent *list = run(seed, 1, 1, 1, &n_list);
    town_queue_by_list = 0;
    if (index == NULL || list == NULL) {
      free(index), free(list);
      continue;
    }
    if (n_index != n_list || memcmp(index, list, n_index * sizeof *index) != 0)
      fail_msg("seed %llu: the index's turns differ from the list's",
               (unsigned long long)seed);
    for (size_t k = 0; k < n_index; k++)
      full +=
          index[k].kind == SP_EV_BLOCKED && index[k].reason == SP_REASON_FULL;
    free(index), free(list);
  }
}

/* Without places to share, updating together changes nothing: the events
 * are those of one-by-one updates (each crowd on its own). */
static void test_together_equals_one_by_one(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    size_t n1 = 0, n2 = 0;
    SpAgentEvent *a = run(seed, 2, 0, 1, &n1);
    SpAgentEvent *b = run(seed, 2, 0, 0, &n2);
    if (a != NULL) {
      assert_non_null(b);
      assert_true(n1 > 2000);
      assert_int_equal(n1, n2);
      assert_memory_equal(a, b, n1 * sizeof *a);
    }
    free(a);
    free(b);
  }
}

/* A crowd on another pool, listed twice, or a dt that is negative,
 * infinite or NaN: SP_ERR_INVALID, and no crowd moved (the next frame is
 * the first). */
static void test_bad_lists(void **state) {
  (void)state;
  Town t, u;
  town_open(&t, 2, 2, 0);
  town_open(&u, 2, 2, 0);
  assert_true(t.ok && u.ok);
  SpError err;
  SpCrowd *mixed[2] = {t.c[0], u.c[1]};
  assert_int_equal(sp_crowds_update(mixed, 2, 0.25f, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "crowd 2 does not run on the first"));
  SpCrowd *twice[3] = {t.c[0], t.c[1], t.c[0]};
  assert_int_equal(sp_crowds_update(twice, 3, 0.25f, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "crowd 3 is listed twice"));
  assert_int_equal(sp_crowds_update(NULL, 0, 0.25f, &err), SP_OK);
  const float bad_dt[3] = {-0.25f, INFINITY, NAN};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(sp_crowds_update(t.c, CROWDS, bad_dt[k], &err),
                     SP_ERR_INVALID);
    assert_non_null(
        strstr(err.message, "dt must be a finite number of seconds"));
    assert_int_equal(sp_crowd_update(t.c[0], bad_dt[k], &err), SP_ERR_INVALID);
  }
  /* nothing moved: t's first frame equals u's */
  assert_int_equal(sp_crowds_update(t.c, CROWDS, 0.25f, NULL), SP_OK);
  assert_int_equal(sp_crowds_update(u.c, CROWDS, 0.25f, NULL), SP_OK);
  for (int k = 0; k < CROWDS; k++) {
    size_t n = sp_crowd_event_count(t.c[k]);
    assert_true(n > 0);
    assert_int_equal(n, sp_crowd_event_count(u.c[k]));
    assert_memory_equal(sp_crowd_events(t.c[k]), sp_crowd_events(u.c[k]),
                        n * sizeof(SpAgentEvent));
  }
  town_close(&t);
  town_close(&u);
}

/* Crowds updated together on 4 workers grow their event buffers from the
 * workers, one at a time through the world's lock. */
static void test_allocator_one_thread_at_a_time(void **state) {
  (void)state;
  town_alloc = (SpAllocator){one_at_a_time, NULL};
  for (uint64_t seed = 1; seed <= 6; seed++) {
    atomic_store(&alloc_calls, 0);
    size_t n = 0;
    free(run(seed, 4, 1, 1, &n));
    free(run(seed, 4, 0, 1, &n));
    assert_true(atomic_load(&alloc_calls) > 0);
  }
  town_alloc = plain;
  assert_int_equal(atomic_load(&alloc_overlaps), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_events_any_threads),
      cmocka_unit_test(test_queue_index_gives_the_lists_turns),
      cmocka_unit_test(test_together_equals_one_by_one),
      cmocka_unit_test(test_bad_lists),
      cmocka_unit_test(test_allocator_one_thread_at_a_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
