/* test_grid.c: cmocka tests of the cost grid: creation, getters, setters and ASCII pictures. */
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
/* Grid creation and getters                                          */
/* ================================================================== */

static void test_new_defaults(void **state) {
  (void)state;
  SpGrid *g = NULL;
  SpGridError err;
  assert_int_equal(sp_grid_new(7, 3, 2.5, NO_ALLOC, &g, &err), SP_OK);
  assert_int_equal(err.status, SP_OK);
  assert_int_equal(sp_grid_width(g), 7);
  assert_int_equal(sp_grid_height(g), 3);
  assert_true(sp_grid_size_bytes(g) >= 7 * 3 * sizeof(float));
  assert_true(sp_grid_contains(g, 6, 2));
  assert_false(sp_grid_contains(g, 7, 2));
  assert_false(sp_grid_contains(g, 0, -1));
  assert_true(sp_grid_cost(g, 3, 1) == 2.5);
  assert_false(sp_grid_is_blocked(g, 3, 1));
  assert_true(sp_grid_is_blocked(g, -1, 0)); /* outside is a wall */
  assert_true(sp_grid_cost(g, 9, 9) == 0.0);
  assert_true(sp_grid_min_cost(g) == 2.5);
  /* costs are floats: 1.1 reads back rounded */
  assert_int_equal(sp_grid_set_cost(g, 0, 0, 1.1, NULL), SP_OK);
  assert_true(sp_grid_cost(g, 0, 0) == (double)1.1f);
  sp_grid_free(g);
  sp_grid_free(NULL);
}

static void test_new_errors(void **state) {
  (void)state;
  SpGrid *g = (SpGrid *)&g;
  SpGridError err;
  const int sizes[][2] = {{0, 4},
                          {4, 0},
                          {-3, 2},
                          {SP_GRID_MAX_SIDE + 1, 1},
                          {SP_GRID_MAX_SIDE, SP_GRID_MAX_SIDE}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    assert_int_equal(
        sp_grid_new(sizes[i][0], sizes[i][1], 1, NO_ALLOC, &g, &err),
        SP_ERR_INVALID);
    assert_null(g);
    assert_int_equal(err.code, SP_GRID_E_SIZE);
    assert_int_equal(err.width, sizes[i][0]);
    assert_non_null(strstr(err.message, "is out of range"));
  }
  const double costs[] = {
      0.0, -1.0, NAN, INFINITY, SP_GRID_MAX_COST * 2, SP_GRID_MIN_COST / 2};
  for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
    assert_int_equal(sp_grid_new(2, 2, costs[i], NO_ALLOC, &g, &err),
                     SP_ERR_INVALID);
    assert_null(g);
    assert_int_equal(err.code, SP_GRID_E_COST);
    assert_string_equal(err.what, "default cost");
  }
  assert_int_equal(sp_grid_new(2, 2, 1, NO_ALLOC, NULL, &err), SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_ARGUMENT);
  /* the extreme valid costs are accepted */
  assert_int_equal(sp_grid_new(1, 1, SP_GRID_MIN_COST, NO_ALLOC, &g, NULL),
                   SP_OK);
  assert_int_equal(sp_grid_set_cost(g, 0, 0, SP_GRID_MAX_COST, NULL), SP_OK);
  sp_grid_free(g);
}

/* ================================================================== */
/* Setters                                                            */
/* ================================================================== */

static void test_set_cost_and_blocked(void **state) {
  (void)state;
  SpGrid *g = NULL;
  SpGridError err;
  assert_int_equal(sp_grid_new(4, 4, 2, NO_ALLOC, &g, NULL), SP_OK);
  assert_int_equal(sp_grid_set_cost(g, 1, 2, 5, &err), SP_OK);
  assert_true(sp_grid_cost(g, 1, 2) == 5.0);
  /* blocking remembers the cost; setting a cost keeps the block */
  assert_int_equal(sp_grid_set_blocked(g, 1, 2, 1, NULL), SP_OK);
  assert_true(sp_grid_is_blocked(g, 1, 2));
  assert_true(sp_grid_cost(g, 1, 2) == 5.0);
  assert_int_equal(sp_grid_set_cost(g, 1, 2, 7, NULL), SP_OK);
  assert_true(sp_grid_is_blocked(g, 1, 2));
  assert_int_equal(sp_grid_set_blocked(g, 1, 2, 0, NULL), SP_OK);
  assert_false(sp_grid_is_blocked(g, 1, 2));
  assert_true(sp_grid_cost(g, 1, 2) == 7.0);
  /* blocking twice, unblocking an open cell: no change */
  assert_int_equal(sp_grid_set_blocked(g, 0, 0, 1, NULL), SP_OK);
  assert_int_equal(sp_grid_set_blocked(g, 0, 0, 1, NULL), SP_OK);
  assert_true(sp_grid_is_blocked(g, 0, 0) && sp_grid_cost(g, 0, 0) == 2.0);
  assert_int_equal(sp_grid_set_blocked(g, 3, 3, 0, NULL), SP_OK);
  assert_false(sp_grid_is_blocked(g, 3, 3));

  /* errors change nothing */
  assert_int_equal(sp_grid_set_cost(g, 4, 0, 1, &err), SP_ERR_STATE);
  assert_int_equal(err.code, SP_GRID_E_RANGE);
  assert_string_equal(err.message, "cell (4, 0) is outside the 4x4 grid");
  assert_int_equal(sp_grid_set_cost(g, 2, 2, -3, &err), SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_COST);
  assert_int_equal(err.x, 2);
  assert_string_equal(err.message,
                      "cost -3 at (2, 2) is out of range: a cost is a number "
                      "in [0.001, 1e+06]");
  assert_true(sp_grid_cost(g, 2, 2) == 2.0);
  assert_int_equal(sp_grid_set_blocked(g, 0, -1, 1, &err), SP_ERR_STATE);
  assert_int_equal(err.code, SP_GRID_E_RANGE);
  assert_int_equal(sp_grid_set_cost(NULL, 0, 0, 1, &err), SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_ARGUMENT);
  assert_int_equal(sp_grid_set_blocked(NULL, 0, 0, 1, NULL), SP_ERR_INVALID);
  sp_grid_free(g);
}

static void test_fill_rectangles(void **state) {
  (void)state;
  SpGrid *g = NULL;
  SpGridError err;
  assert_int_equal(sp_grid_new(5, 4, 2, NO_ALLOC, &g, NULL), SP_OK);
  assert_int_equal(sp_grid_fill_blocked(g, 1, 1, 2, 2, 1, NULL), SP_OK);
  assert_int_equal(sp_grid_fill_cost(g, 0, 0, 5, 2, 3, NULL), SP_OK);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 5; x++) {
      int in_block = x >= 1 && x <= 2 && y >= 1 && y <= 2;
      assert_int_equal(sp_grid_is_blocked(g, x, y), in_block);
      assert_true(sp_grid_cost(g, x, y) == (y < 2 ? 3.0 : 2.0));
    }
  /* empty rectangles are no-ops, even at the far edge */
  assert_int_equal(sp_grid_fill_cost(g, 5, 4, 0, 0, 9, NULL), SP_OK);
  assert_int_equal(sp_grid_fill_blocked(g, 0, 0, 0, 4, 1, NULL), SP_OK);
  assert_int_equal(sp_grid_fill_blocked(g, 1, 1, 2, 2, 0, NULL), SP_OK);
  assert_false(sp_grid_is_blocked(g, 2, 2));
  assert_true(sp_grid_cost(g, 2, 1) == 3.0);

  const int bad[][4] = {{-1, 0, 2, 2}, {0, 0, 6, 1}, {4, 3, 2, 1},
                        {0, 0, -1, 1}, {0, 4, 1, 1}, {0, 0, 1, 0x7FFFFFFF}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(sp_grid_fill_cost(g, bad[i][0], bad[i][1], bad[i][2],
                                       bad[i][3], 1, &err),
                     SP_ERR_STATE);
    assert_int_equal(err.code, SP_GRID_E_RANGE);
    assert_int_equal(sp_grid_fill_blocked(g, bad[i][0], bad[i][1], bad[i][2],
                                          bad[i][3], 1, &err),
                     SP_ERR_STATE);
  }
  assert_string_equal(err.message,
                      "rectangle at (0, 0) of size 1x2147483647 does not fit "
                      "in the 5x4 grid");
  assert_int_equal(sp_grid_fill_cost(g, 0, 0, 1, 1, 0.0, &err), SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_COST);
  assert_int_equal(sp_grid_fill_cost(NULL, 0, 0, 1, 1, 1, &err),
                   SP_ERR_INVALID);
  assert_int_equal(sp_grid_fill_blocked(NULL, 0, 0, 1, 1, 1, &err),
                   SP_ERR_INVALID);
  sp_grid_free(g);
}

static void test_bulk_costs(void **state) {
  (void)state;
  SpGrid *g = NULL;
  SpGridError err;
  assert_int_equal(sp_grid_new(4, 3, 5, NO_ALLOC, &g, NULL), SP_OK);
  assert_int_equal(sp_grid_set_blocked(g, 1, 1, 1, NULL), SP_OK);
  const double v[] = {1, SP_GRID_BLOCKED, 3, 0.5, 7, 8};
  /* a 3x2 block at (1, 1): the blocked cell (1,1) opens with cost 1 */
  assert_int_equal(sp_grid_set_costs(g, 1, 1, 3, 2, v, &err), SP_OK);
  assert_false(sp_grid_is_blocked(g, 1, 1));
  assert_true(sp_grid_cost(g, 1, 1) == 1.0);
  assert_true(sp_grid_is_blocked(g, 2, 1));
  assert_true(sp_grid_cost(g, 2, 1) == 5.0); /* remembered */
  assert_true(sp_grid_cost(g, 3, 1) == 3.0);
  assert_true(sp_grid_cost(g, 1, 2) == 0.5);
  assert_true(sp_grid_cost(g, 3, 2) == 8.0);
  assert_true(sp_grid_min_cost(g) == 0.5);

  /* one bad value anywhere: nothing changes, the cell is named */
  const double bad[] = {2, 2, 2, 2, 2, -4};
  assert_int_equal(sp_grid_set_costs(g, 1, 1, 3, 2, bad, &err), SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_COST);
  assert_int_equal(err.x, 3);
  assert_int_equal(err.y, 2);
  assert_true(sp_grid_cost(g, 1, 1) == 1.0);
  assert_int_equal(sp_grid_set_costs(g, 2, 2, 3, 1, v, &err), SP_ERR_STATE);
  assert_int_equal(err.code, SP_GRID_E_RANGE);
  assert_int_equal(sp_grid_set_costs(g, 0, 0, 1, 1, NULL, &err),
                   SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_ARGUMENT);
  assert_int_equal(sp_grid_set_costs(g, 0, 0, 0, 0, NULL, &err), SP_OK);
  assert_int_equal(sp_grid_set_costs(NULL, 0, 0, 1, 1, v, &err),
                   SP_ERR_INVALID);
  sp_grid_free(g);
}

/* The cheapest open cost, recomputed by brute force. */
static double brute_min(const SpGrid *g) {
  double m = 0.0;
  for (int y = 0; y < sp_grid_height(g); y++)
    for (int x = 0; x < sp_grid_width(g); x++)
      if (!sp_grid_is_blocked(g, x, y) &&
          (m == 0.0 || sp_grid_cost(g, x, y) < m))
        m = sp_grid_cost(g, x, y);
  return m;
}

static void test_min_cost_tracking(void **state) {
  (void)state;
  SpGrid *g = NULL;
  assert_int_equal(sp_grid_new(4, 4, 3, NO_ALLOC, &g, NULL), SP_OK);
  assert_int_equal(sp_grid_set_cost(g, 0, 0, 1, NULL), SP_OK);
  assert_true(sp_grid_min_cost(g) == 1.0);
  assert_int_equal(sp_grid_set_cost(g, 1, 0, 1, NULL), SP_OK);
  assert_int_equal(sp_grid_set_cost(g, 0, 0, 5, NULL), SP_OK);
  assert_true(sp_grid_min_cost(g) == 1.0); /* (1,0) still at 1 */
  assert_int_equal(sp_grid_set_blocked(g, 1, 0, 1, NULL), SP_OK);
  assert_true(sp_grid_min_cost(g) == 3.0); /* rescanned */
  assert_int_equal(sp_grid_set_blocked(g, 1, 0, 0, NULL), SP_OK);
  assert_true(sp_grid_min_cost(g) == 1.0);
  assert_int_equal(sp_grid_fill_blocked(g, 0, 0, 4, 4, 1, NULL), SP_OK);
  assert_true(sp_grid_min_cost(g) == 0.0); /* nothing open */
  assert_int_equal(sp_grid_set_blocked(g, 3, 3, 0, NULL), SP_OK);
  assert_true(sp_grid_min_cost(g) == 3.0);
  sp_grid_free(g);

  /* random sequences of every setter against the brute-force minimum */
  RdRng r = {42};
  assert_int_equal(sp_grid_new(9, 7, 4, NO_ALLOC, &g, NULL), SP_OK);
  for (int step = 0; step < 5000; step++) {
    int x = rd_below(&r, 9), y = rd_below(&r, 7);
    int w = rd_below(&r, 10 - x), h = rd_below(&r, 8 - y);
    double c = 1 + rd_below(&r, 6);
    switch (rd_below(&r, 6)) {
    case 0: sp_grid_set_cost(g, x, y, c, NULL); break;
    case 1: sp_grid_set_blocked(g, x, y, rd_below(&r, 3) != 0, NULL); break;
    case 2: sp_grid_fill_cost(g, x, y, w, h, c, NULL); break;
    case 3: sp_grid_fill_blocked(g, x, y, w, h, rd_below(&r, 2), NULL); break;
    case 4: {
      double v[4] = {c, SP_GRID_BLOCKED, c + 1, 1 + rd_below(&r, 6)};
      sp_grid_set_costs(g, x < 8 ? x : 7, y < 6 ? y : 5, 2, 2, v, NULL);
      break;
    }
    default: sp_grid_set_ascii(g, x < 7 ? x : 6, y, "=.3", 3, NULL); break;
    }
    if (sp_grid_min_cost(g) != brute_min(g))
      fail_msg("step %d: min %g, brute force %g", step, sp_grid_min_cost(g),
               brute_min(g));
  }
  sp_grid_free(g);
}

/* ================================================================== */
/* ASCII pictures                                                     */
/* ================================================================== */

static void test_ascii_legend(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("#.=123456789\n"
                         "............\n");
  assert_int_equal(sp_grid_width(g), 12);
  assert_int_equal(sp_grid_height(g), 2);
  assert_true(sp_grid_is_blocked(g, 0, 0));
  assert_true(sp_grid_cost(g, 0, 0) == 1.0); /* remembered cost of '#' */
  assert_true(sp_grid_cost(g, 1, 0) == 2.0);
  assert_true(sp_grid_cost(g, 2, 0) == 1.0);
  for (int d = 1; d <= 9; d++) assert_true(sp_grid_cost(g, 2 + d, 0) == d);
  assert_true(sp_grid_cost(g, 5, 1) == 2.0);
  assert_true(sp_grid_min_cost(g) == 1.0);
  sp_grid_free(g);

  /* CRLF line endings and no final line ending */
  g = ascii_grid("=#\r\n.9");
  assert_int_equal(sp_grid_width(g), 2);
  assert_int_equal(sp_grid_height(g), 2);
  assert_true(sp_grid_cost(g, 1, 1) == 9.0);
  sp_grid_free(g);

  /* painting onto an existing grid at an offset: '#' keeps the cost */
  assert_int_equal(sp_grid_new(5, 4, 7, NO_ALLOC, &g, NULL), SP_OK);
  assert_int_equal(sp_grid_set_ascii(g, 2, 1, "#=\n3.\n", 6, NULL), SP_OK);
  assert_true(sp_grid_is_blocked(g, 2, 1) && sp_grid_cost(g, 2, 1) == 7.0);
  assert_true(sp_grid_cost(g, 3, 1) == 1.0 && sp_grid_cost(g, 2, 2) == 3.0);
  assert_true(sp_grid_cost(g, 3, 2) == 2.0 && sp_grid_cost(g, 4, 1) == 7.0);
  assert_int_equal(sp_grid_set_ascii(g, 2, 1, "=", 1, NULL), SP_OK);
  assert_false(sp_grid_is_blocked(g, 2, 1));
  sp_grid_free(g);
}

static void expect_map_error(const char *pic, size_t len, SpGridErrorCode code,
                             const char *message) {
  SpGrid *g = (SpGrid *)&g;
  SpGridError err;
  assert_int_equal(sp_grid_new_ascii(pic, len, NO_ALLOC, &g, &err),
                   SP_ERR_INVALID);
  assert_null(g);
  assert_int_equal(err.status, SP_ERR_INVALID);
  assert_int_equal(err.code, code);
  assert_string_equal(err.message, message);
}

/* The tails of the map errors' messages. */
#define LEGEND                                                                 \
  " (legend: '#' blocked, '.' cost 2, '=' cost 1, '1'-'9' that cost)"
#define SAME_LENGTH ": every row must have the same length"

static void test_ascii_errors(void **state) {
  (void)state;
  expect_map_error("...\n.x.\n", 8, SP_GRID_E_MAP_CHAR,
                   "line 2, column 2: unknown character 'x'" LEGEND);
  expect_map_error("..0", 3, SP_GRID_E_MAP_CHAR,
                   "line 1, column 3: unknown character '0'" LEGEND);
  expect_map_error("..\n .", 5, SP_GRID_E_MAP_CHAR,
                   "line 2, column 1: unknown character \\x20" LEGEND);
  expect_map_error("..\0", 3, SP_GRID_E_MAP_CHAR,
                   "line 1, column 3: unknown character \\x00" LEGEND);
  expect_map_error("..\r.", 4, SP_GRID_E_MAP_CHAR,
                   "line 1, column 3: unknown character \\x0D" LEGEND);
  expect_map_error("....\n....\n...\n", 14, SP_GRID_E_MAP_RAGGED,
                   "line 3 has 3 cells but line 1 has 4" SAME_LENGTH);
  expect_map_error("..\n\n..\n", 7, SP_GRID_E_MAP_RAGGED,
                   "line 2 has 0 cells but line 1 has 2" SAME_LENGTH);
  expect_map_error("..\n..\n\n", 7, SP_GRID_E_MAP_RAGGED,
                   "line 3 has 0 cells but line 1 has 2" SAME_LENGTH);
  expect_map_error("", 0, SP_GRID_E_MAP_EMPTY, "the picture has no cells");
  expect_map_error("\n", 1, SP_GRID_E_MAP_EMPTY, "the picture has no cells");

  SpGridError err;
  SpGrid *g = NULL;
  assert_int_equal(sp_grid_new_ascii(NULL, 0, NO_ALLOC, &g, &err),
                   SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_ARGUMENT);
  assert_int_equal(sp_grid_new_ascii("..", 2, NO_ALLOC, NULL, &err),
                   SP_ERR_INVALID);
  /* a row longer than the side limit is refused before allocating */
  size_t n = SP_GRID_MAX_SIDE + 1;
  char *wide = malloc(n);
  assert_non_null(wide);
  memset(wide, '.', n);
  assert_int_equal(sp_grid_new_ascii(wide, n, NO_ALLOC, &g, &err),
                   SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_SIZE);
  free(wide);

  /* set_ascii: errors leave the grid as it was */
  assert_int_equal(sp_grid_new(3, 3, 4, NO_ALLOC, &g, NULL), SP_OK);
  assert_int_equal(sp_grid_set_ascii(g, 0, 0, "==\n=?", 5, &err),
                   SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_MAP_CHAR);
  assert_int_equal(err.line, 2);
  assert_int_equal(err.column, 2);
  assert_int_equal(err.character, '?');
  assert_true(sp_grid_cost(g, 0, 0) == 4.0);
  assert_int_equal(sp_grid_set_ascii(g, 2, 1, "==\n==", 5, &err), SP_ERR_STATE);
  assert_int_equal(err.code, SP_GRID_E_RANGE);
  assert_string_equal(err.message, "picture at (2, 1) of size 2x2 does not "
                                   "fit in the 3x3 grid");
  assert_true(sp_grid_cost(g, 2, 1) == 4.0);
  assert_int_equal(sp_grid_set_ascii(g, 0, 0, NULL, 0, &err), SP_ERR_INVALID);
  assert_int_equal(sp_grid_set_ascii(NULL, 0, 0, "=", 1, &err), SP_ERR_INVALID);
  sp_grid_free(g);
}

static void test_error_format(void **state) {
  (void)state;
  SpGrid *g = ascii_grid("=#.\n"
                         "##.\n"
                         "...\n");
  SpGridWorkspace *ws = workspace_for(g);
  SpGridError err;
  SpGridResult r;
  assert_int_equal(sp_grid_find_path(g, ws, pt(2, 2), pt(0, 0), NULL, &r, &err),
                   SP_NO_PLAN);
  assert_int_equal(err.code, SP_GRID_E_UNREACHABLE);
  assert_string_equal(err.message, "no path from (2, 2) to (0, 0): the target "
                                   "is unreachable");
  char buf[128];
  size_t n = sp_grid_error_format(&err, 1, buf, sizeof buf);
  assert_string_equal(buf, "no path from (3, 3) to (1, 1): the target is "
                           "unreachable");
  assert_int_equal(n, strlen(buf));
  /* snprintf-like: truncates, still returns the full length */
  char small[8];
  assert_int_equal(sp_grid_error_format(&err, 1, small, sizeof small), n);
  assert_string_equal(small, "no path");
  assert_int_equal(sp_grid_error_format(&err, 1, NULL, 0), n);
  assert_int_equal(sp_grid_error_format(NULL, 1, buf, sizeof buf), 0);

  assert_string_equal(sp_grid_error_name(SP_GRID_E_UNREACHABLE), "unreachable");
  assert_string_equal(sp_grid_error_name(SP_GRID_E_MAP_CHAR), "map character");
  assert_string_equal(sp_grid_error_name((SpGridErrorCode)99), "unknown");
  assert_string_equal(sp_grid_algorithm_name(SP_GRID_ASTAR), "astar");
  assert_string_equal(sp_grid_algorithm_name(SP_GRID_DIJKSTRA), "dijkstra");
  assert_null(sp_grid_algorithm_name((SpGridAlgorithm)7));
  /* every code has a sentence */
  for (int c = SP_GRID_E_NONE; c <= SP_GRID_E_MAP_EMPTY + 1; c++) {
    err.code = (SpGridErrorCode)c;
    assert_true(sp_grid_error_format(&err, 0, buf, sizeof buf) > 0);
  }
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_defaults),
      cmocka_unit_test(test_new_errors),
      cmocka_unit_test(test_set_cost_and_blocked),
      cmocka_unit_test(test_fill_rectangles),
      cmocka_unit_test(test_bulk_costs),
      cmocka_unit_test(test_min_cost_tracking),
      cmocka_unit_test(test_ascii_legend),
      cmocka_unit_test(test_ascii_errors),
      cmocka_unit_test(test_error_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
