/* test_grid.c: cmocka tests of grid pathfinding (saspu_grid.h and the grid_*.c files). */
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

#define SQRT2 1.41421356237309504880
#define NO_ALLOC ((SpAllocator){NULL, NULL})

/* ================================================================== */
/* Helpers                                                            */
/* ================================================================== */

static SpGrid *ascii_grid(const char *pic) {
  SpGrid *g = NULL;
  SpGridError err;
  SpStatus st = sp_grid_new_ascii(pic, strlen(pic), NO_ALLOC, &g, &err);
  if (st != SP_OK) fail_msg("picture refused: %s", err.message);
  return g;
}

static SpGridWorkspace *workspace_for(const SpGrid *g) {
  SpGridWorkspace *ws = NULL;
  assert_int_equal(sp_grid_workspace_new(g, NULL, NO_ALLOC, &ws, NULL), SP_OK);
  return ws;
}

static SpGridPoint pt(int x, int y) {
  SpGridPoint p = {x, y};
  return p;
}

static SpGridQuery query(SpGridAlgorithm a, int cut) {
  SpGridQuery q = {a, cut};
  return q;
}

static int close_enough(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static void assert_close(double got, double want) {
  if (!close_enough(got, want))
    fail_msg("cost %.17g, expected %.17g", got, want);
}

/* Runs one search that must succeed, checks the path with the oracle
 * (valid moves, summed cost equal to the reported cost) and returns it. */
static SpGridResult must_find(const SpGrid *g, SpGridWorkspace *ws,
                              SpGridPoint s, SpGridPoint t, SpGridAlgorithm a,
                              int cut, SpGridPoint *path, size_t cap) {
  SpGridResult r;
  SpGridError err;
  SpGridQuery q = query(a, cut);
  SpStatus st = sp_grid_find_path(g, ws, s, t, &q, &r, &err);
  if (st != SP_OK) fail_msg("search failed: %s", err.message);
  assert_int_equal(err.code, SP_GRID_E_NONE);
  assert_true(r.length >= 1 && r.length <= cap);
  assert_int_equal(sp_grid_workspace_path(ws, path, cap), r.length);
  double sum;
  const char *why = grid_oracle_check_path(g, path, r.length, s, t, cut, &sum);
  if (why != NULL) fail_msg("invalid path: %s", why);
  assert_close(sum, r.cost);
  return r;
}

/* Uniform in [0, 1) from the top 53 bits of one draw; fixed seeds give
 * the same grids on every machine. */
static double rng_unit(RdRng *r) {
  return (double)(rd_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random open cell, or (-1, -1) when every cell is blocked. */
static SpGridPoint random_open(const SpGrid *g, RdRng *r) {
  int w = sp_grid_width(g), h = sp_grid_height(g);
  for (int tries = 0; tries < 64; tries++) {
    SpGridPoint p = {rd_below(r, w), rd_below(r, h)};
    if (!sp_grid_is_blocked(g, p.x, p.y)) return p;
  }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (!sp_grid_is_blocked(g, x, y)) return pt(x, y);
  return pt(-1, -1);
}

/* Fills a grid with one of several cost styles through the bulk setter:
 * integers 1..9, road/ground (1/2), real numbers, or uniform cost 1 (the
 * worst case for ties), with obstacles at a random density. */
static void randomize(SpGrid *g, RdRng *r) {
  int w = sp_grid_width(g), h = sp_grid_height(g);
  double *v = malloc((size_t)w * (size_t)h * sizeof *v);
  assert_non_null(v);
  int style = rd_below(r, 4);
  double wall = 0.45 * rng_unit(r);
  for (int i = 0; i < w * h; i++) {
    if (rng_unit(r) < wall) {
      v[i] = SP_GRID_BLOCKED;
      continue;
    }
    switch (style) {
    case 0: v[i] = 1 + rd_below(r, 9); break;
    case 1: v[i] = rd_below(r, 3) == 0 ? 1.0 : 2.0; break;
    case 2: v[i] = 0.5 + 19.5 * rng_unit(r); break;
    default: v[i] = 1.0; break;
    }
  }
  assert_int_equal(sp_grid_set_costs(g, 0, 0, w, h, v, NULL), SP_OK);
  free(v);
}

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
  const int sizes[][2] = {{0, 4}, {4, 0}, {-3, 2}, {SP_GRID_MAX_SIDE + 1, 1},
                          {SP_GRID_MAX_SIDE, SP_GRID_MAX_SIDE}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    assert_int_equal(sp_grid_new(sizes[i][0], sizes[i][1], 1, NO_ALLOC, &g,
                                 &err),
                     SP_ERR_INVALID);
    assert_null(g);
    assert_int_equal(err.code, SP_GRID_E_SIZE);
    assert_int_equal(err.width, sizes[i][0]);
    assert_non_null(strstr(err.message, "is out of range"));
  }
  const double costs[] = {0.0, -1.0, NAN, INFINITY, SP_GRID_MAX_COST * 2,
                          SP_GRID_MIN_COST / 2};
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
  assert_int_equal(sp_grid_fill_cost(g, 0, 0, 1, 1, 0.0, &err),
                   SP_ERR_INVALID);
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
  assert_int_equal(sp_grid_set_costs(g, 1, 1, 3, 2, bad, &err),
                   SP_ERR_INVALID);
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
      if (!sp_grid_is_blocked(g, x, y) && (m == 0.0 || sp_grid_cost(g, x, y) < m))
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
    default:
      sp_grid_set_ascii(g, x < 7 ? x : 6, y, "=.3", 3, NULL);
      break;
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
#define LEGEND " (legend: '#' blocked, '.' cost 2, '=' cost 1, '1'-'9' that cost)"
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
  assert_int_equal(sp_grid_set_ascii(g, 2, 1, "==\n==", 5, &err),
                   SP_ERR_STATE);
  assert_int_equal(err.code, SP_GRID_E_RANGE);
  assert_string_equal(err.message, "picture at (2, 1) of size 2x2 does not "
                                   "fit in the 3x3 grid");
  assert_true(sp_grid_cost(g, 2, 1) == 4.0);
  assert_int_equal(sp_grid_set_ascii(g, 0, 0, NULL, 0, &err), SP_ERR_INVALID);
  assert_int_equal(sp_grid_set_ascii(NULL, 0, 0, "=", 1, &err),
                   SP_ERR_INVALID);
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

  assert_string_equal(sp_grid_error_name(SP_GRID_E_UNREACHABLE),
                      "unreachable");
  assert_string_equal(sp_grid_error_name(SP_GRID_E_MAP_CHAR),
                      "map character");
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
  const SpGridPoint road[] = {{1, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 3}, {4, 3},
                              {5, 3}, {5, 4}, {5, 5}, {5, 6}, {6, 6}, {7, 6},
                              {8, 6}, {8, 5}, {8, 4}};
  const SpGridPoint cut_road[] = {{1, 1}, {1, 2}, {2, 3}, {3, 3}, {4, 3},
                                  {5, 4}, {5, 5}, {6, 6}, {7, 6}, {8, 5},
                                  {8, 4}};
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
  const SpGridPoint squeeze[] = {{0, 2}, {0, 1}, {1, 0}, {2, 0}, {3, 0},
                                 {4, 1}, {4, 2}};
  assert_non_null(grid_oracle_check_path(g, squeeze, 7, pt(0, 2), pt(4, 2), 0,
                                         &cost));
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
  SpGridResult r = must_find(g, ws, pt(0, 0), pt(1, 1), SP_GRID_DIJKSTRA, 1, path, 16);
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
      {{-1, 0}, {1, 1}, SP_ERR_STATE, SP_GRID_E_RANGE,
       "start (-1, 0) is outside the 3x2 grid"},
      {{0, 2}, {1, 1}, SP_ERR_STATE, SP_GRID_E_RANGE,
       "start (0, 2) is outside the 3x2 grid"},
      {{0, 0}, {3, 1}, SP_ERR_STATE, SP_GRID_E_RANGE,
       "target (3, 1) is outside the 3x2 grid"},
      {{0, 0}, {0, -5}, SP_ERR_STATE, SP_GRID_E_RANGE,
       "target (0, -5) is outside the 3x2 grid"},
      {{2, 0}, {0, 0}, SP_ERR_STATE, SP_GRID_E_BLOCKED,
       "start (2, 0) is blocked"},
      {{0, 0}, {2, 0}, SP_ERR_STATE, SP_GRID_E_BLOCKED,
       "target (2, 0) is blocked"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(sp_grid_find_path(g, ws, cases[i].s, cases[i].t, NULL,
                                       &r, &err),
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
  assert_int_equal(sp_grid_find_path(NULL, ws, pt(0, 0), pt(1, 1), NULL, &r,
                                     &err),
                   SP_ERR_INVALID);
  assert_string_equal(err.message, "invalid argument: grid is NULL");
  assert_int_equal(sp_grid_find_path(g, NULL, pt(0, 0), pt(1, 1), NULL, &r,
                                     &err),
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
  assert_int_equal(sp_grid_find_path(other, ws, pt(0, 0), pt(1, 1), NULL, &r,
                                     &err),
                   SP_ERR_INVALID);
  assert_int_equal(err.code, SP_GRID_E_MISMATCH);
  assert_string_equal(err.message, "the workspace was made for a 3x2 grid, "
                                   "this grid is 3x3");
  /* but any grid of the same size is fine */
  SpGrid *same = ascii_grid("===\n===\n");
  SpGridResult ok = must_find(same, ws, pt(0, 0), pt(2, 0), SP_GRID_DIJKSTRA,
                              0, path, 8);
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

/* ================================================================== */
/* Random grids against Bellman-Ford                                  */
/* ================================================================== */

#define RANDOM_GRIDS 3000
#define MAX_SIDE 24

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
                 sp_grid_algorithm_name(a), cut, s.x, s.y,
                 t.x, t.y, w, sp_grid_height(g), res[a].cost, want);
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
    for (int cut = 0; cut <= 1; cut++) check_against_oracle(g, ws, &r, cut, &tot);
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
  assert_int_equal(sp_grid_new(40, 30, 2, test_alloc_hook(&c), &g, NULL), SP_OK);
  assert_int_equal(sp_grid_workspace_new(g, NULL, test_alloc_hook(&c), &ws, NULL),
                   SP_OK);
  assert_int_equal(c.calls, 2); /* one block each */
  assert_int_equal(c.bytes, sp_grid_size_bytes(g) +
                                sp_grid_workspace_size_bytes(ws));
  RdRng r = {77};
  randomize(g, &r);
  SpGridPoint path[1200];
  for (int i = 0; i < 2000; i++) {
    SpGridQuery q = query((SpGridAlgorithm)(i & 1), (i >> 1) & 1);
    SpGridPoint s = random_open(g, &r), t = random_open(g, &r);
    sp_grid_find_path(g, ws, s, t, &q, NULL, NULL);
    sp_grid_workspace_path(ws, path, 1200);
    if (i % 50 == 0) {
      sp_grid_set_cost(g, rd_below(&r, 40), rd_below(&r, 30), 1 + rd_below(&r, 5),
                       NULL);
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
      assert_int_equal(sp_grid_new_ascii("..\n..", 5, test_alloc_hook(&c), &g,
                                         &err),
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
      assert_int_equal(sp_grid_workspace_new(g, NULL, test_alloc_hook(&c), &ws,
                                             NULL),
                       SP_OK);
    } else {
      assert_int_equal(st, SP_OK);
    }
    SpGridResult r;
    assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(7, 7), NULL, &r,
                                       NULL),
                     SP_OK);
    assert_close(r.cost, 7 * SQRT2);
    sp_grid_workspace_free(ws);
    sp_grid_free(g);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.bytes, 0);
  }
}

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
  SpGridResult first = must_find(g, ws, pt(0, 0), pt(7, 3), SP_GRID_DIJKSTRA,
                                 0, path, 64);
  assert_close(first.cost, dist[3 * 8 + 7]);
  assert_true(first.expanded > 10);
  for (int i = 0; i < 65534; i++) {
    SpGridResult r;
    assert_int_equal(sp_grid_find_path(g, ws, pt(7, 0), pt(7, 0), NULL, &r,
                                       NULL),
                     SP_OK);
  }
  /* this one runs with the generation back at 1 */
  SpGridResult again = must_find(g, ws, pt(0, 0), pt(7, 3), SP_GRID_DIJKSTRA,
                                 0, path, 64);
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
  assert_int_equal(sp_grid_heap_compact(&hp, keep_even, &calls), 150);
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
  const double ordered[] = {0.0, 1e-300, 0.5, 1.0, 1.0000000000000002, 3e5,
                            1e300};
  SpGridHeapEntry fence = sp_grid_heap_fence();
  for (int i = 1; i < 7; i++) {
    assert_true(sp_grid_heap_key(ordered[i - 1]) <
                sp_grid_heap_key(ordered[i]));
    SpGridHeapEntry e = heap_entry(ordered[i], UINT32_MAX, 3e38);
    assert_true(sp_grid_heap_less(&e, &fence));
  }
  assert_true(sp_grid_heap_tie(0.25) < sp_grid_heap_tie(0.5));
  assert_true(sp_grid_heap_tie(0.0) < sp_grid_heap_tie(1e-30));
  sp_grid_heap_heapify(&hp); /* empty: nothing to do */
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
      assert_null(grid_oracle_check_path(g, path, len, s, t, q.allow_corner_cutting,
                                         &sum));
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
  assert_int_equal(sp_grid_workspace_new(g, &opts, NO_ALLOC, &ws, NULL),
                   SP_OK);
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
  assert_int_equal(sp_grid_workspace_new(g, &opts, NO_ALLOC, &ws, NULL),
                   SP_OK);
  SpGridError err;
  SpGridResult r;
  assert_int_equal(sp_grid_find_path(g, ws, pt(0, 0), pt(2, 1), NULL, &r,
                                     &err),
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
    assert_int_equal(sp_grid_new(40, 30, costs[k], NO_ALLOC, &g, NULL),
                     SP_OK);
    SpGridWorkspace *ws = workspace_for(g);
    for (int i = 0; i < 200; i++) {
      SpGridPoint s = random_open(g, &r), t = random_open(g, &r);
      SpGridResult res = must_find(g, ws, s, t, SP_GRID_ASTAR, i & 1, path,
                                   40 * 30);
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
        if (!sp_grid_is_blocked(g, x + sp_grid_dx[d], y + sp_grid_dy[d]))
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
        if (x + 2 <= w && y + 2 <= h)
          sp_grid_set_costs(g, x, y, 2, 2, v, NULL);
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
    SpStatus st = sp_grid_find_path(g, ws, ends[2 * i], ends[2 * i + 1], &q,
                                    &res, NULL);
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
      cmocka_unit_test(test_new_defaults),
      cmocka_unit_test(test_new_errors),
      cmocka_unit_test(test_set_cost_and_blocked),
      cmocka_unit_test(test_fill_rectangles),
      cmocka_unit_test(test_bulk_costs),
      cmocka_unit_test(test_min_cost_tracking),
      cmocka_unit_test(test_ascii_legend),
      cmocka_unit_test(test_ascii_errors),
      cmocka_unit_test(test_error_format),
      cmocka_unit_test(test_straight_line),
      cmocka_unit_test(test_diagonal),
      cmocka_unit_test(test_article_figure),
      cmocka_unit_test(test_corner_cutting),
      cmocka_unit_test(test_unreachable),
      cmocka_unit_test(test_endpoint_errors),
      cmocka_unit_test(test_start_is_target),
      cmocka_unit_test(test_path_copy),
      cmocka_unit_test(test_random_against_bellman_ford),
      cmocka_unit_test(test_no_allocation_after_warmup),
      cmocka_unit_test(test_failing_allocator),
      cmocka_unit_test(test_generation_wrap),
      cmocka_unit_test(test_heap),
      cmocka_unit_test(test_small_heap_capacity),
      cmocka_unit_test(test_held_entry),
      cmocka_unit_test(test_exact_ties),
      cmocka_unit_test(test_row_division),
      cmocka_unit_test(test_neighbour_masks),
      cmocka_unit_test(test_threads_share_a_grid),
  };
  return cmocka_run_group_tests_name("grid", tests, NULL, NULL);
}
