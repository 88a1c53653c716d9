/* test_grid_random.c: cmocka tests of grid searches on random grids against Bellman-Ford, memory use and failure, and threads sharing a grid. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "grid_heap.h"
#include "grid_oracle.h"
#include "random_domain.h" /* RdRng, the tests' seeded splitmix64 */
#include "saspu_grid.h"
#include "sp_grid.h"
#include "test_alloc.h"
#include "grid_checks.h"

/* ================================================================== */
/* Random grids against Bellman-Ford                                  */
/* ================================================================== */

#define RANDOM_GRIDS 3000

typedef struct Totals {
  long searches, found, unreachable;
  size_t astar_expanded, dijkstra_expanded;
} Totals;

/* One start, several targets, both algorithms, against the oracle. */
static void check_against_oracle(const SpGrid *g, SpGridWorkspace *ws, RdRng *r,
                                 int cut, Totals *tot) {
  int w = sp_grid_width(g);
  static double dist[MAX_SIDE * MAX_SIDE];
  static SpGridPoint path[MAX_SIDE * MAX_SIDE];
  SpGridPoint s = random_open(g, r);
  if (s.x < 0) return;
  grid_oracle_distances(g, s, cut, dist);
  for (int k = 0; k < 4; k++) {
    SpGridPoint t = random_open(g, r);
    double want = dist[t.y * w + t.x];
    SpGridResult res[2];
    for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
      SpGridQuery q = query(a, cut);
      SpGridError err;
      SpStatus st = sp_grid_find_path(g, ws, s, t, &q, &res[a], &err);
      tot->searches++;
      if (isinf(want)) {
        if (st != SP_NO_PLAN) fail_msg("reachable? %s", err.message);
        assert_int_equal(err.code, SP_GRID_E_UNREACHABLE);
        continue;
      }
      if (st != SP_OK) fail_msg("search failed: %s", err.message);
      if (!close_enough(res[a].cost, want))
        fail_msg("%s cut=%d (%d,%d)->(%d,%d) on %dx%d: cost %.17g, "
                 "Bellman-Ford %.17g",
                 sp_grid_algorithm_name(a), cut, s.x, s.y, t.x, t.y, w,
                 sp_grid_height(g), res[a].cost, want);
      size_t len = sp_grid_workspace_path(ws, path, MAX_SIDE * MAX_SIDE);
      assert_int_equal(len, res[a].length);
      double sum;
      const char *why = grid_oracle_check_path(g, path, len, s, t, cut, &sum);
      if (why != NULL) fail_msg("invalid path: %s", why);
      assert_close(sum, res[a].cost);
    }
    if (res[SP_GRID_ASTAR].expanded > res[SP_GRID_DIJKSTRA].expanded)
      fail_msg("A* expanded %zu cells, Dijkstra %zu",
               res[SP_GRID_ASTAR].expanded, res[SP_GRID_DIJKSTRA].expanded);
    if (isinf(want)) {
      tot->unreachable++;
    } else {
      tot->found++;
      tot->astar_expanded += res[SP_GRID_ASTAR].expanded;
      tot->dijkstra_expanded += res[SP_GRID_DIJKSTRA].expanded;
    }
  }
}

static void test_random_against_bellman_ford(void **state) {
  (void)state;
  Totals tot = {0, 0, 0, 0, 0};
  for (int i = 0; i < RANDOM_GRIDS; i++) {
    RdRng r = {0x5A5Bu + (uint64_t)i * 7919u};
    int w = 1 + rd_below(&r, MAX_SIDE), h = 1 + rd_below(&r, MAX_SIDE);
    SpGrid *g = NULL;
    assert_int_equal(sp_grid_new(w, h, 1, NO_ALLOC, &g, NULL), SP_OK);
    randomize(g, &r);
    SpGridWorkspace *ws = workspace_for(g);
    for (int cut = 0; cut <= 1; cut++)
      check_against_oracle(g, ws, &r, cut, &tot);
    /* change a few cells, including the cheapest, and search again with
     * the same workspace: the heuristic must follow the new minimum */
    for (int k = 0; k < 6; k++) {
      int x = rd_below(&r, w), y = rd_below(&r, h);
      switch (rd_below(&r, 3)) {
      case 0: sp_grid_set_cost(g, x, y, 0.25 + 4 * rng_unit(&r), NULL); break;
      case 1: sp_grid_set_blocked(g, x, y, rd_below(&r, 2), NULL); break;
      default:
        sp_grid_fill_cost(g, x, y, 1, 1, sp_grid_min_cost(g) + 3, NULL);
        break;
      }
    }
    check_against_oracle(g, ws, &r, rd_below(&r, 2), &tot);
    sp_grid_workspace_free(ws);
    sp_grid_free(g);
  }
  print_message("%ld searches on %d grids: %ld found, %ld unreachable; "
                "cells expanded A* %zu, Dijkstra %zu\n",
                tot.searches, RANDOM_GRIDS, tot.found, tot.unreachable,
                tot.astar_expanded, tot.dijkstra_expanded);
  assert_true(tot.found > 10000);
  assert_true(tot.unreachable > 100);
  assert_true(tot.astar_expanded < tot.dijkstra_expanded);
}

/* ================================================================== */
/* Memory                                                             */
/* ================================================================== */

static void test_no_allocation_after_warmup(void **state) {
  (void)state;
  TestAlloc c;
  test_alloc_init(&c, 0);
  SpGrid *g = NULL;
  SpGridWorkspace *ws = NULL;
  assert_int_equal(sp_grid_new(40, 30, 2, test_alloc_hook(&c), &g, NULL),
                   SP_OK);
  assert_int_equal(
      sp_grid_workspace_new(g, NULL, test_alloc_hook(&c), &ws, NULL), SP_OK);
  assert_int_equal(c.calls, 2); /* one block each */
  assert_int_equal(c.bytes,
                   sp_grid_size_bytes(g) + sp_grid_workspace_size_bytes(ws));
  RdRng r = {77};
  randomize(g, &r);
  SpGridPoint path[1200];
  for (int i = 0; i < 2000; i++) {
    SpGridQuery q = query((SpGridAlgorithm)(i & 1), (i >> 1) & 1);
    SpGridPoint s = random_open(g, &r), t = random_open(g, &r);
    sp_grid_find_path(g, ws, s, t, &q, NULL, NULL);
    sp_grid_workspace_path(ws, path, 1200);
    if (i % 50 == 0) {
      sp_grid_set_cost(g, rd_below(&r, 40), rd_below(&r, 30),
                       1 + rd_below(&r, 5), NULL);
      sp_grid_fill_blocked(g, rd_below(&r, 30), rd_below(&r, 20), 3, 3,
                           rd_below(&r, 2), NULL);
      sp_grid_set_ascii(g, 0, 0, "=.#\n..=", 7, NULL);
    }
  }
  assert_int_equal(c.calls, 2);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
  assert_int_equal(c.live, 0);
  assert_int_equal(c.bytes, 0);
}

static void test_failing_allocator(void **state) {
  (void)state;
  /* request 1 is the grid's block, 2 the workspace's; 3 is never made */
  for (long fail_at = 1; fail_at <= 3; fail_at++) {
    TestAlloc c;
    test_alloc_init(&c, fail_at);
    SpGridError err;
    SpGrid *g = (SpGrid *)&c;
    SpStatus st = sp_grid_new(8, 8, 1, test_alloc_hook(&c), &g, &err);
    if (fail_at == 1) {
      assert_int_equal(st, SP_ERR_MEMORY);
      assert_int_equal(err.code, SP_GRID_E_MEMORY);
      assert_string_equal(err.message, "out of memory");
      assert_null(g);
      assert_int_equal(c.live, 0);
      /* the ASCII loader fails the same way */
      test_alloc_init(&c, 1);
      g = (SpGrid *)&c;
      assert_int_equal(
          sp_grid_new_ascii("..\n..", 5, test_alloc_hook(&c), &g, &err),
          SP_ERR_MEMORY);
      assert_null(g);
      assert_int_equal(c.live, 0);
      continue;
    }
    assert_int_equal(st, SP_OK);
    SpGridWorkspace *ws = (SpGridWorkspace *)&c;
    st = sp_grid_workspace_new(g, NULL, test_alloc_hook(&c), &ws, &err);
    if (fail_at == 2) {
      assert_int_equal(st, SP_ERR_MEMORY);
      assert_int_equal(err.code, SP_GRID_E_MEMORY);
      assert_null(ws);
      /* the grid is intact and usable */
      c.fail_at = 0;
      assert_int_equal(
          sp_grid_workspace_new(g, NULL, test_alloc_hook(&c), &ws, NULL),
          SP_OK);
    } else {
      assert_int_equal(st, SP_OK);
    }
    SpGridResult r;
    assert_int_equal(
        sp_grid_find_path(g, ws, pt(0, 0), pt(7, 7), NULL, &r, NULL), SP_OK);
    assert_close(r.cost, 7 * SQRT2);
    sp_grid_workspace_free(ws);
    sp_grid_free(g);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.bytes, 0);
  }
}

/* ================================================================== */
/* Threads                                                            */
/* ================================================================== */

#define THREAD_QUERIES 1500

typedef struct Job {
  const SpGrid *g;
  const SpGridPoint *ends; /* start, target pairs */
  const double *want;
  int mismatches;
} Job;

static void *thread_main(void *arg) {
  Job *job = arg;
  SpGridWorkspace *ws = NULL;
  if (sp_grid_workspace_new(job->g, NULL, NO_ALLOC, &ws, NULL) != SP_OK) {
    job->mismatches = -1;
    return NULL;
  }
  for (int i = 0; i < THREAD_QUERIES; i++) {
    SpGridQuery q = query((SpGridAlgorithm)(i & 1), 0);
    SpGridResult r;
    SpStatus st = sp_grid_find_path(job->g, ws, job->ends[2 * i],
                                    job->ends[2 * i + 1], &q, &r, NULL);
    double got = st == SP_OK ? r.cost : -1.0;
    if (!close_enough(got, job->want[i])) job->mismatches++;
  }
  sp_grid_workspace_free(ws);
  return NULL;
}

static void test_threads_share_a_grid(void **state) {
  (void)state;
  SpGrid *g = NULL;
  assert_int_equal(sp_grid_new(48, 48, 1, NO_ALLOC, &g, NULL), SP_OK);
  RdRng r = {31337};
  randomize(g, &r);
  static SpGridPoint ends[2 * THREAD_QUERIES];
  static double want[THREAD_QUERIES];
  SpGridWorkspace *ws = workspace_for(g);
  for (int i = 0; i < THREAD_QUERIES; i++) {
    ends[2 * i] = random_open(g, &r);
    ends[2 * i + 1] = random_open(g, &r);
    SpGridResult res;
    SpGridQuery q = query(SP_GRID_DIJKSTRA, 0);
    SpStatus st =
        sp_grid_find_path(g, ws, ends[2 * i], ends[2 * i + 1], &q, &res, NULL);
    want[i] = st == SP_OK ? res.cost : -1.0;
  }
  sp_grid_workspace_free(ws);
  Job jobs[4];
  pthread_t th[4];
  for (int k = 0; k < 4; k++) {
    jobs[k] = (Job){g, ends, want, 0};
    assert_int_equal(pthread_create(&th[k], NULL, thread_main, &jobs[k]), 0);
  }
  for (int k = 0; k < 4; k++) {
    assert_int_equal(pthread_join(th[k], NULL), 0);
    assert_int_equal(jobs[k].mismatches, 0);
  }
  sp_grid_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_against_bellman_ford),
      cmocka_unit_test(test_no_allocation_after_warmup),
      cmocka_unit_test(test_failing_allocator),
      cmocka_unit_test(test_threads_share_a_grid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
