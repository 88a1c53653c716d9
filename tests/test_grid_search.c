/* test_grid_search.c: cmocka tests of grid searches on hand-checked maps, and the search's errors and edge cases. */
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
/* Hand-checked maps                                                  */
/* ================================================================== */

static void test_straight_line(void **state) {
  (void)state;
  /* each move crosses half of each cell:
   * (1+2)/2 + (2+3)/2 + (3+9)/2 + (9+1)/2 = 1.5 + 2.5 + 6 + 5 = 15 */
  SpGrid *g = ascii_grid("=.39=\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridPoint path[8];
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridResult r = must_find(g, ws, pt(0, 0), pt(4, 0), a, 0, path, 8);
    assert_true(r.cost == 15.0);
    assert_int_equal(r.length, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(path[i].x, i);
    /* the reverse direction costs the same */
    r = must_find(g, ws, pt(4, 0), pt(0, 0), a, 0, path, 8);
    assert_true(r.cost == 15.0);
    assert_int_equal(path[0].x, 4);
  }
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

static void test_diagonal(void **state) {
  (void)state;
  /* open ground: two diagonal moves of (2+2)/2 * sqrt2 each = 4 sqrt2 */
  SpGrid *g = ascii_grid("...\n...\n...\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridPoint path[9];
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridResult r = must_find(g, ws, pt(0, 0), pt(2, 2), a, 0, path, 9);
    assert_close(r.cost, 4 * SQRT2);
    assert_int_equal(r.length, 3);
    assert_int_equal(path[1].x, 1);
    assert_int_equal(path[1].y, 1);
    /* a knight's move: one diagonal and one straight move, 2 sqrt2 + 2 */
    r = must_find(g, ws, pt(0, 0), pt(2, 1), a, 0, path, 9);
    assert_close(r.cost, 2 * SQRT2 + 2);
    assert_int_equal(r.length, 3);
  }
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

/* Laid out like figure 2 of the article: a road ('=', cost 1) bends south
 * around a wall; open ground ('.', cost 2) lies inside the bend. From S
 * (1,1) to T (8,4):
 *
 *     ...###...      A, following the road:  S down to the road, east,
 *     .S.###...      south, east, then north to T:
 *     ...###...        2 + 1.5 + 4 + 3 + 3 + 1.5 + 2          = 17
 *     ======...      C, the same road with its turns cut by diagonals:
 *     .....=..T        2 + 1.5r + 2 + r + 1 + r + 1 + 1.5r + 2 = 8 + 5r
 *     .....=...                                               ~ 15.07
 *     .....====      D, the optimum, leaves the road at its bend and cuts
 *                    east across the ground:
 *   (1,1)-(1,2) ground 2, (1,2)-(2,3) ground/road diagonal 1.5r,
 *   (2,3)-(3,3)-(4,3) road 1 + 1, (4,3)-(5,4) road diagonal r,
 *   (5,4)-(6,4) road/ground 1.5, (6,4)-(7,4)-(8,4) ground 2 + 2:
 *                        9.5 + 2.5r                       ~ 13.04
 * (r = sqrt 2). If corners may be cut, (1,1)-(2,2)-(3,3) slips past the
 * wall's corner (3,2): 2r + 1.5r replace 2 + 1.5r + 1, and the optimum
 * becomes 6.5 + 4.5r ~ 12.86. */
static void test_article_figure(void **state) {
  (void)state;
  static const char *pic = "...###...\n"
                           "...###...\n"
                           "...###...\n"
                           "======...\n"
                           ".....=...\n"
                           ".....=...\n"
                           ".....====\n";
  SpGrid *g = ascii_grid(pic);
  SpGridWorkspace *ws = workspace_for(g);
  const SpGridPoint s = {1, 1}, t = {8, 4};
  const double optimum = 9.5 + 2.5 * SQRT2;
  const SpGridPoint expect[] = {{1, 1}, {1, 2}, {2, 3}, {3, 3}, {4, 3},
                                {5, 4}, {6, 4}, {7, 4}, {8, 4}};
  const SpGridPoint expect_cut[] = {{1, 1}, {2, 2}, {3, 3}, {4, 3},
                                    {5, 4}, {6, 4}, {7, 4}, {8, 4}};
  SpGridPoint path[64];
  size_t expanded[2];
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridResult r = must_find(g, ws, s, t, a, 0, path, 64);
    assert_close(r.cost, optimum);
    assert_int_equal(r.length, 9);
    for (size_t i = 0; i < 9; i++) {
      assert_int_equal(path[i].x, expect[i].x);
      assert_int_equal(path[i].y, expect[i].y);
    }
    expanded[a] = r.expanded;
    r = must_find(g, ws, s, t, a, 1, path, 64);
    assert_close(r.cost, 6.5 + 4.5 * SQRT2);
    assert_int_equal(r.length, 8);
    for (size_t i = 0; i < 8; i++) {
      assert_int_equal(path[i].x, expect_cut[i].x);
      assert_int_equal(path[i].y, expect_cut[i].y);
    }
  }
  assert_true(expanded[SP_GRID_ASTAR] < expanded[SP_GRID_DIJKSTRA]);

  /* the two road routes, checked move by move by the oracle */
  const SpGridPoint road[] = {{1, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 3},
                              {4, 3}, {5, 3}, {5, 4}, {5, 5}, {5, 6},
                              {6, 6}, {7, 6}, {8, 6}, {8, 5}, {8, 4}};
  const SpGridPoint cut_road[] = {{1, 1}, {1, 2}, {2, 3}, {3, 3},
                                  {4, 3}, {5, 4}, {5, 5}, {6, 6},
                                  {7, 6}, {8, 5}, {8, 4}};
  double cost;
  assert_null(grid_oracle_check_path(g, road, 15, s, t, 0, &cost));
  assert_close(cost, 17.0);
  assert_null(grid_oracle_check_path(g, cut_road, 11, s, t, 0, &cost));
  assert_close(cost, 8 + 5 * SQRT2);
  assert_true(optimum < 8 + 5 * SQRT2 && 8 + 5 * SQRT2 < 17.0);

  /* the oracle agrees that nothing is cheaper */
  double dist[63];
  grid_oracle_distances(g, s, 0, dist);
  assert_close(dist[4 * 9 + 8], optimum);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

/* A road over a wall, ground under it. From (0,2) to (4,2):
 *     =====     the ground row costs 4 x 2 = 8; the road costs
 *     =###=     1.5 + 1 + 4 + 1 + 1.5 = 9 without corner cutting. With
 *     .....     it, (0,1)-(1,0) and (3,0)-(4,1) may pass the wall's
 * corners: 1.5 + r + 2 + r + 1.5 = 5 + 2r ~ 7.83 beats the ground. */
static void test_corner_cutting(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("=====\n"
                         "=###=\n"
                         ".....\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridPoint path[16];
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridResult r = must_find(g, ws, pt(0, 2), pt(4, 2), a, 0, path, 16);
    assert_true(r.cost == 8.0);
    assert_int_equal(r.length, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(path[i].y, 2);
    r = must_find(g, ws, pt(0, 2), pt(4, 2), a, 1, path, 16);
    assert_close(r.cost, 5 + 2 * SQRT2);
    assert_int_equal(r.length, 7);
    assert_int_equal(path[2].x, 1);
    assert_int_equal(path[2].y, 0);
  }
  /* the diagonal (0,1)-(1,0) is refused by default, allowed when cutting */
  double cost;
  const SpGridPoint squeeze[] = {{0, 2}, {0, 1}, {1, 0}, {2, 0},
                                 {3, 0}, {4, 1}, {4, 2}};
  assert_non_null(
      grid_oracle_check_path(g, squeeze, 7, pt(0, 2), pt(4, 2), 0, &cost));
  sp_grid_workspace_free(ws);
  sp_grid_free(g);

  /* between two diagonal walls: no path, unless corners may be cut */
  g = ascii_grid(".#\n#.\n");
  ws = workspace_for(g);
  SpGridQuery q = query(SP_GRID_ASTAR, 0);
  SpGridError err;
  assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(1, 1), &q, NULL, &err),
                   SP_NO_PLAN);
  assert_int_equal(err.code, SP_GRID_E_UNREACHABLE);
  SpGridResult r =
      must_find(g, ws, pt(0, 0), pt(1, 1), SP_GRID_DIJKSTRA, 1, path, 16);
  assert_close(r.cost, 2 * SQRT2);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

/* ================================================================== */
/* Errors and edge cases of the search                                */
/* ================================================================== */

static void test_unreachable(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("....#..\n"
                         "....#..\n"
                         "#####..\n"
                         ".......\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridPoint path[4] = {{-7, -7}};
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridQuery q = query(a, 0);
    SpGridResult r;
    SpGridError err;
    assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(6, 3), &q, &r, &err),
                     SP_NO_PLAN);
    assert_int_equal(err.status, SP_NO_PLAN);
    assert_int_equal(err.code, SP_GRID_E_UNREACHABLE);
    assert_int_equal(err.x, 0);
    assert_int_equal(err.to_x, 6);
    assert_int_equal(err.to_y, 3);
    assert_int_equal(r.length, 0);
    assert_int_equal(r.expanded, 8); /* the whole 4x2 pocket */
    assert_int_equal(sp_grid_workspace_path(ws, path, 4), 0);
    assert_int_equal(path[0].x, -7);
  }
  /* and from the other side, with err and res NULL */
  SpGridQuery q = query(SP_GRID_DIJKSTRA, 1);
  assert_int_equal(sp_grid_find_path(g, ws, pt(6, 3), pt(1, 1), &q, NULL, NULL),
                   SP_NO_PLAN);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

static void test_endpoint_errors(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("..#\n...\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridError err;
  SpGridResult r;
  SpGridPoint path[8];
  /* a good search first: errors afterwards must forget its path */
  must_find(g, ws, pt(0, 0), pt(2, 1), SP_GRID_ASTAR, 0, path, 8);

  const struct {
    SpGridPoint s, t;
    SpStatus st;
    SpGridErrorCode code;
    const char *msg;
  } cases[] = {
      {{-1, 0},
       {1, 1},
       SP_ERR_STATE,
       SP_GRID_E_RANGE,
       "start (-1, 0) is outside the 3x2 grid"},
      {{0, 2},
       {1, 1},
       SP_ERR_STATE,
       SP_GRID_E_RANGE,
       "start (0, 2) is outside the 3x2 grid"},
      {{0, 0},
       {3, 1},
       SP_ERR_STATE,
       SP_GRID_E_RANGE,
       "target (3, 1) is outside the 3x2 grid"},
      {{0, 0},
       {0, -5},
       SP_ERR_STATE,
       SP_GRID_E_RANGE,
       "target (0, -5) is outside the 3x2 grid"},
      {{2, 0},
       {0, 0},
       SP_ERR_STATE,
       SP_GRID_E_BLOCKED,
       "start (2, 0) is blocked"},
      {{0, 0},
       {2, 0},
       SP_ERR_STATE,
       SP_GRID_E_BLOCKED,
       "target (2, 0) is blocked"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(
        sp_grid_find_path(g, ws, cases[i].s, cases[i].t, NULL, &r, &err),
        cases[i].st);
    assert_int_equal(err.code, cases[i].code);
    assert_string_equal(err.message, cases[i].msg);
    assert_int_equal(r.length, 0);
    assert_int_equal(sp_grid_workspace_path(ws, path, 8), 0);
  }
  char buf[64];
  sp_grid_error_format(&err, 1, buf, sizeof buf);
  assert_string_equal(buf, "target (3, 1) is blocked");

  /* bad arguments */
  SpGridQuery q = query((SpGridAlgorithm)5, 0);
  assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(1, 1), &q, &r, &err),
                   SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_ARGUMENT);
  assert_string_equal(err.message, "invalid argument: unknown algorithm (5)");
  assert_int_equal(
      sp_grid_find_path(NULL, ws, pt(0, 0), pt(1, 1), NULL, &r, &err),
      SP_ERR_INVALID);
  assert_string_equal(err.message, "invalid argument: grid is NULL");
  assert_int_equal(
      sp_grid_find_path(g, NULL, pt(0, 0), pt(1, 1), NULL, &r, &err),
      SP_ERR_INVALID);
  SpGridWorkspace *none = ws;
  assert_int_equal(sp_grid_workspace_new(NULL, NULL, NO_ALLOC, &none, &err),
                   SP_ERR_INVALID);
  assert_null(none);
  assert_int_equal(sp_grid_workspace_new(g, NULL, NO_ALLOC, NULL, &err),
                   SP_ERR_INVALID);
  assert_int_equal(sp_grid_workspace_path(NULL, path, 8), 0);
  assert_int_equal(sp_grid_workspace_size_bytes(NULL), 0);
  assert_int_equal(sp_grid_size_bytes(NULL), 0);
  assert_int_equal(sp_grid_width(NULL), 0);
  assert_int_equal(sp_grid_height(NULL), 0);
  assert_true(sp_grid_min_cost(NULL) == 0.0);

  /* a workspace made for another size */
  SpGrid *other = ascii_grid("...\n...\n...\n");
  assert_int_equal(
      sp_grid_find_path(other, ws, pt(0, 0), pt(1, 1), NULL, &r, &err),
      SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_MISMATCH);
  assert_string_equal(err.message, "the workspace was made for a 3x2 grid, "
                                   "this grid is 3x3");
  /* but any grid of the same size is fine */
  SpGrid *same = ascii_grid("===\n===\n");
  SpGridResult ok =
      must_find(same, ws, pt(0, 0), pt(2, 0), SP_GRID_DIJKSTRA, 0, path, 8);
  assert_true(ok.cost == 2.0);
  sp_grid_free(same);
  sp_grid_free(other);
  sp_grid_workspace_free(ws);
  sp_grid_workspace_free(NULL);
  sp_grid_free(g);
}

static void test_start_is_target(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("5.\n..\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridPoint path[4];
  for (SpGridAlgorithm a = SP_GRID_ASTAR; a <= SP_GRID_DIJKSTRA; a++) {
    SpGridResult r = must_find(g, ws, pt(0, 0), pt(0, 0), a, 0, path, 4);
    assert_true(r.cost == 0.0);
    assert_int_equal(r.length, 1);
    assert_int_equal(r.expanded, 1);
    assert_int_equal(path[0].x, 0);
    assert_int_equal(path[0].y, 0);
  }
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

static void test_path_copy(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("=======\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridResult r;
  assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(6, 0), NULL, &r, NULL),
                   SP_OK);
  assert_int_equal(r.length, 7);
  assert_int_equal(sp_grid_workspace_path(ws, NULL, 0), 7);
  SpGridPoint buf[5];
  for (int i = 0; i < 5; i++) buf[i] = pt(-9, -9);
  /* a short buffer gets the beginning of the path, nothing past cap */
  assert_int_equal(sp_grid_workspace_path(ws, buf, 3), 7);
  for (int i = 0; i < 3; i++) assert_int_equal(buf[i].x, i);
  assert_int_equal(buf[3].x, -9);
  /* the path outlives grid changes, until the next search */
  assert_int_equal(sp_grid_fill_blocked(g, 2, 0, 3, 1, 1, NULL), SP_OK);
  assert_int_equal(sp_grid_workspace_path(ws, buf, 5), 7);
  assert_int_equal(buf[4].x, 4);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_straight_line),
      cmocka_unit_test(test_diagonal),
      cmocka_unit_test(test_article_figure),
      cmocka_unit_test(test_corner_cutting),
      cmocka_unit_test(test_unreachable),
      cmocka_unit_test(test_endpoint_errors),
      cmocka_unit_test(test_start_is_target),
      cmocka_unit_test(test_path_copy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
