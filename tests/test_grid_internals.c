/* test_grid_internals.c: cmocka tests of the grid workspace's internals: generations, the heap and its compaction, row division, neighbour masks. */
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
/* Workspace internals: generations, heap, compaction                 */
/* ================================================================== */

/* The 16-bit generation wraps after 65535 searches; the annotations must
 * then be cleared, or search 65536 would see the closed flags of search 1
 * as its own. */
static void test_generation_wrap(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("....3...\n"
                         ".##.#.=.\n"
                         "..5...#.\n"
                         "=#..2...\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridPoint path[64];
  double dist[32];
  grid_oracle_distances(g, pt(0, 0), 0, dist);
  SpGridResult first =
      must_find(g, ws, pt(0, 0), pt(7, 3), SP_GRID_DIJKSTRA, 0, path, 64);
  assert_close(first.cost, dist[3 * 8 + 7]);
  assert_true(first.expanded > 10);
  for (int i = 0; i < 65534; i++) {
    SpGridResult r;
    assert_int_equal(
        sp_grid_find_path(g, ws, pt(7, 0), pt(7, 0), NULL, &r, NULL), SP_OK);
  }
  /* this one runs with the generation back at 1 */
  SpGridResult again =
      must_find(g, ws, pt(0, 0), pt(7, 3), SP_GRID_DIJKSTRA, 0, path, 64);
  assert_close(again.cost, first.cost);
  assert_int_equal(again.expanded, first.expanded);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

static int keep_even(void *ctx, const SpGridHeapEntry *e) {
  (*(int *)ctx)++;
  return e->cell % 2 == 0;
}

static SpGridHeapEntry heap_entry(double f, uint32_t cell, double tie) {
  SpGridHeapEntry e;
  e.key = sp_grid_heap_key(f);
  e.cell = cell;
  e.tie = sp_grid_heap_tie(tie);
  return e;
}

/* The order of entries, spelled out: key, then tie, then cell. */
static int entry_before(const SpGridHeapEntry *a, const SpGridHeapEntry *b) {
  if (a->key != b->key) return a->key < b->key;
  if (a->tie != b->tie) return a->tie < b->tie;
  return a->cell < b->cell;
}

/* The fence sits right after the last entry, whatever happened before. */
static void assert_fenced(const SpGridHeap *hp) {
  SpGridHeapEntry f = sp_grid_heap_fence();
  assert_memory_equal(&hp->e[hp->count], &f, sizeof f);
}

static void test_heap(void **state) {
  (void)state;
  SpGridHeapEntry store[501];
  SpGridHeap hp;
  sp_grid_heap_init(&hp, store, 500);
  assert_fenced(&hp);
  RdRng r = {9};
  /* few distinct keys and ties, so that all three fields decide */
  for (int i = 0; i < 500; i++) {
    sp_grid_heap_push(&hp, heap_entry((double)rd_below(&r, 20), (uint32_t)i,
                                      (double)rd_below(&r, 4)));
    assert_fenced(&hp);
  }
  /* the order is total and sp_grid_heap_less agrees with it */
  for (int i = 0; i < 200; i++) {
    SpGridHeapEntry a = store[rd_below(&r, 500)], b = store[rd_below(&r, 500)];
    assert_int_equal(sp_grid_heap_less(&a, &b), entry_before(&a, &b));
  }
  /* pops come out in that order; replace_top pops and pushes at once */
  SpGridHeapEntry prev = sp_grid_heap_pop(&hp);
  int replaced = 0;
  while (hp.count > 0) {
    SpGridHeapEntry e;
    if (hp.count % 3 == 0 && replaced < 100) {
      /* an entry above every key so far keeps the pops in order */
      SpGridHeapEntry x =
          heap_entry(25.0 + replaced, (uint32_t)(1000 + replaced), 0.0);
      e = sp_grid_heap_replace_top(&hp, x);
      replaced++;
    } else {
      e = sp_grid_heap_pop(&hp);
    }
    assert_fenced(&hp);
    assert_false(entry_before(&e, &prev));
    prev = e;
  }
  assert_int_equal(replaced, 100);
  /* compaction keeps what the callback keeps, and a valid heap order */
  for (int i = 0; i < 300; i++)
    sp_grid_heap_push(&hp, heap_entry(rng_unit(&r), (uint32_t)i, 0.0));
  int calls = 0;
  assert_int_equal(sp__grid_heap_compact(&hp, keep_even, &calls), 150);
  assert_int_equal(calls, 300);
  assert_int_equal(hp.count, 150);
  assert_fenced(&hp);
  uint64_t last = 0;
  while (hp.count > 0) {
    SpGridHeapEntry e = sp_grid_heap_pop(&hp);
    assert_int_equal(e.cell % 2, 0);
    assert_true(e.key >= last);
    last = e.key;
  }
  /* keys and ties order like the numbers they encode, and every real
   * entry sorts before the fence */
  const double ordered[] = {0.0, 1e-300, 0.5, 1.0, 1.0000000000000002,
                            3e5, 1e300};
  SpGridHeapEntry fence = sp_grid_heap_fence();
  for (int i = 1; i < 7; i++) {
    assert_true(sp_grid_heap_key(ordered[i - 1]) <
                sp_grid_heap_key(ordered[i]));
    SpGridHeapEntry e = heap_entry(ordered[i], UINT32_MAX, 3e38);
    assert_true(sp_grid_heap_less(&e, &fence));
  }
  assert_true(sp_grid_heap_tie(0.25) < sp_grid_heap_tie(0.5));
  assert_true(sp_grid_heap_tie(0.0) < sp_grid_heap_tie(1e-30));
  sp__grid_heap_heapify(&hp); /* empty: nothing to do */
  assert_int_equal(hp.count, 0);
  sp_grid_heap_clear(&hp);
  assert_fenced(&hp);
}

/* A tiny open list forces compactions in real searches: the answers stay
 * exact, and when even compaction cannot make room the search fails
 * cleanly with SP_GRID_E_HEAP_FULL. */
static void test_small_heap_capacity(void **state) {
  (void)state;
  long compacted = 0, full = 0, ok = 0;
  SpGridPoint path[MAX_SIDE * MAX_SIDE];
  for (int i = 0; i < 1000; i++) {
    RdRng r = {1000u + (uint64_t)i};
    SpGrid *g = NULL;
    assert_int_equal(sp_grid_new(MAX_SIDE, MAX_SIDE, 1, NO_ALLOC, &g, NULL),
                     SP_OK);
    randomize(g, &r);
    SpGridWorkspace *big = workspace_for(g), *tiny = NULL;
    SpGridWorkspaceOptions opts = {(size_t)(12 + rd_below(&r, 60))};
    assert_int_equal(sp_grid_workspace_new(g, &opts, NO_ALLOC, &tiny, NULL),
                     SP_OK);
    assert_true(sp_grid_workspace_size_bytes(tiny) <
                sp_grid_workspace_size_bytes(big));
    for (int k = 0; k < 8; k++) {
      SpGridPoint s = random_open(g, &r), t = random_open(g, &r);
      if (s.x < 0) break;
      SpGridQuery q = query((SpGridAlgorithm)(k & 1), (k >> 1) & 1);
      SpGridResult want, got;
      SpGridError err;
      SpStatus st_big = sp_grid_find_path(g, big, s, t, &q, &want, NULL);
      SpStatus st = sp_grid_find_path(g, tiny, s, t, &q, &got, &err);
      if (st == SP_ERR_MEMORY) {
        assert_int_equal(err.code, SP_GRID_E_HEAP_FULL);
        assert_int_equal(err.found, (int)opts.heap_capacity);
        assert_non_null(strstr(err.message, "heap_capacity"));
        assert_int_equal(sp_grid_workspace_path(tiny, path, 1), 0);
        full++;
        continue;
      }
      assert_int_equal(st, st_big);
      if (st != SP_OK) continue;
      assert_close(got.cost, want.cost);
      assert_true(got.heap_peak <= opts.heap_capacity);
      size_t len = sp_grid_workspace_path(tiny, path, MAX_SIDE * MAX_SIDE);
      double sum;
      assert_null(grid_oracle_check_path(g, path, len, s, t,
                                         q.allow_corner_cutting, &sum));
      assert_close(sum, got.cost);
      ok++;
      if (got.compactions > 0) compacted++;
    }
    sp_grid_workspace_free(tiny);
    sp_grid_workspace_free(big);
    sp_grid_free(g);
  }
  print_message("small heaps: %ld exact with compaction, %ld ok, %ld full\n",
                compacted, ok, full);
  assert_true(compacted > 500);
  assert_true(full > 500);
}

/* A corridor, where each expansion finds one new cell, runs with a
 * heap_capacity of 1: the open list's one entry is the one held aside
 * and the heap array stays empty. A fork then needs the heap and fails
 * cleanly. */
static void test_held_entry(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("=========\n");
  SpGridWorkspaceOptions opts = {1};
  SpGridWorkspace *ws = NULL;
  assert_int_equal(sp_grid_workspace_new(g, &opts, NO_ALLOC, &ws, NULL), SP_OK);
  SpGridPoint path[9];
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridResult r = must_find(g, ws, pt(0, 0), pt(8, 0), a, 0, path, 9);
    assert_true(r.cost == 8.0);
    assert_int_equal(r.expanded, 9);
    assert_int_equal(r.heap_peak, 1);
    assert_int_equal(r.compactions, 0);
  }
  sp_grid_workspace_free(ws);
  sp_grid_free(g);

  g = ascii_grid("...\n...\n");
  assert_int_equal(sp_grid_workspace_new(g, &opts, NO_ALLOC, &ws, NULL), SP_OK);
  SpGridError err;
  SpGridResult r;
  assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(2, 1), NULL, &r, &err),
                   SP_ERR_MEMORY);
  assert_int_equal(err.code, SP_GRID_E_HEAP_FULL);
  assert_int_equal(err.found, 1);
  assert_int_equal(r.compactions, 1);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

/* On an open map of one cost, every cell on a cheapest path has the same
 * f = g + h, and A* prefers the larger g among equal f. Costs are kept as
 * exact sums, so those f are exactly equal and A* walks straight down a
 * cheapest path: it expands the path's cells and nothing else. 0.1 is no
 * round number in binary, but its sums are still exact. */
static void test_exact_ties(void **state) {
  (void)state;
  const double costs[] = {1.0, 2.0, 3.5, 0.1};
  RdRng r = {2718};
  SpGridPoint path[40 * 30];
  for (int k = 0; k < 4; k++) {
    SpGrid *g = NULL;
    assert_int_equal(sp_grid_new(40, 30, costs[k], NO_ALLOC, &g, NULL), SP_OK);
    SpGridWorkspace *ws = workspace_for(g);
    for (int i = 0; i < 200; i++) {
      SpGridPoint s = random_open(g, &r), t = random_open(g, &r);
      SpGridResult res =
          must_find(g, ws, s, t, SP_GRID_ASTAR, i & 1, path, 40 * 30);
      assert_int_equal(res.expanded, res.length);
      int dx = abs(s.x - t.x), dy = abs(s.y - t.y);
      int lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
      assert_close(res.cost, (double)(float)costs[k] *
                                 ((double)(hi - lo) + SQRT2 * (double)lo));
    }
    sp_grid_workspace_free(ws);
    sp_grid_free(g);
  }
}

/* ================================================================== */
/* Internals: row division, neighbour masks                           */
/* ================================================================== */

static void check_division(SpGridDiv v, uint32_t d, uint32_t n) {
  if (sp_grid_div(v, n) != n / d)
    fail_msg("%u / %u gave %u", (unsigned)n, (unsigned)d,
             (unsigned)sp_grid_div(v, n));
}

/* The multiply-shift division is exact for every stride a grid can have
 * and every index below 2^SP_GRID_INDEX_BITS. The error of the method
 * grows with n and peaks just before a multiple of d, so each stride is
 * checked at the top of the range, around its multiples, and at random. */
static void test_row_division(void **state) {
  (void)state;
  const uint32_t limit = (uint32_t)1 << SP_GRID_INDEX_BITS;
  RdRng r = {4242};
  for (uint32_t d = 3; d <= SP_GRID_MAX_SIDE + 2; d++) {
    SpGridDiv v = sp_grid_div_make(d);
    uint32_t top = (limit - 1) / d;
    for (uint32_t q = top - 3; q <= top; q++) {
      check_division(v, d, q * d - 1);
      check_division(v, d, q * d);
      if (q * d + d - 1 < limit) check_division(v, d, q * d + d - 1);
    }
    check_division(v, d, limit - 1);
    check_division(v, d, 0);
    check_division(v, d, d - 1);
    check_division(v, d, d);
    for (int k = 0; k < 4; k++)
      check_division(v, d, (uint32_t)(rd_next(&r) % limit));
  }
}

/* Every inner cell's open-neighbour mask against one recomputed from the
 * public getters (outside the grid counts as blocked). */
static void check_masks(const SpGrid *g) {
  for (int y = 0; y < g->height; y++)
    for (int x = 0; x < g->width; x++) {
      unsigned want = 0;
      for (int d = 0; d < 8; d++)
        if (!sp_grid_is_blocked(g, x + sp__grid_dx[d], y + sp__grid_dy[d]))
          want |= 1u << d;
      unsigned got = g->nbr[sp_grid_index(g->stride, x, y)];
      if (got != want)
        fail_msg("mask of (%d, %d) is 0x%02X, expected 0x%02X", x, y, got,
                 want);
    }
}

/* The masks follow every setter, including the ASCII ones, and stay
 * right when a setter changes nothing or fails. */
static void test_neighbour_masks(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("..#=\n#.5.\n==##\n");
  check_masks(g);
  sp_grid_free(g);
  for (int i = 0; i < 300; i++) {
    RdRng r = {77000u + (uint64_t)i};
    int w = 1 + rd_below(&r, 16), h = 1 + rd_below(&r, 16);
    assert_int_equal(sp_grid_new(w, h, 2, NO_ALLOC, &g, NULL), SP_OK);
    check_masks(g);
    randomize(g, &r);
    check_masks(g);
    for (int k = 0; k < 20; k++) {
      int x = rd_below(&r, w), y = rd_below(&r, h);
      int rw = 1 + rd_below(&r, w - x), rh = 1 + rd_below(&r, h - y);
      switch (rd_below(&r, 6)) {
      case 0: sp_grid_set_blocked(g, x, y, rd_below(&r, 2), NULL); break;
      case 1: sp_grid_set_cost(g, x, y, 1 + rd_below(&r, 4), NULL); break;
      case 2:
        sp_grid_fill_blocked(g, x, y, rw, rh, rd_below(&r, 2), NULL);
        break;
      case 3: sp_grid_fill_cost(g, x, y, rw, rh, 3, NULL); break;
      case 4: {
        double v[4] = {SP_GRID_BLOCKED, 1, SP_GRID_BLOCKED, 2};
        if (x + 2 <= w && y + 2 <= h) sp_grid_set_costs(g, x, y, 2, 2, v, NULL);
        /* out of range: refused, nothing changes */
        sp_grid_set_costs(g, w - 1, h - 1, 2, 2, v, NULL);
        break;
      }
      default: sp_grid_set_ascii(g, x, y, "#=\n.#", 5, NULL); break;
      }
      check_masks(g);
    }
    sp_grid_free(g);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generation_wrap),
      cmocka_unit_test(test_heap),
      cmocka_unit_test(test_small_heap_capacity),
      cmocka_unit_test(test_held_entry),
      cmocka_unit_test(test_exact_ties),
      cmocka_unit_test(test_row_division),
      cmocka_unit_test(test_neighbour_masks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
