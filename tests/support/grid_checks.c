/* grid_checks.c: what the grid tests share: ASCII maps, queries, searches checked by the oracle, random open cells and costs. */
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

SpGrid *ascii_grid(const char *pic) {
  SpGrid *g = NULL;
  SpGridError err;
  SpStatus st = sp_grid_new_ascii(pic, strlen(pic), NO_ALLOC, &g, &err);
  if (st != SP_OK) fail_msg("picture refused: %s", err.message);
  return g;
}

SpGridWorkspace *workspace_for(const SpGrid *g) {
  SpGridWorkspace *ws = NULL;
  assert_int_equal(sp_grid_workspace_new(g, NULL, NO_ALLOC, &ws, NULL), SP_OK);
  return ws;
}

SpGridPoint pt(int x, int y) {
  SpGridPoint p = {x, y};
  return p;
}

SpGridQuery query(SpGridAlgorithm a, int cut) {
  SpGridQuery q = {a, cut};
  return q;
}

int close_enough(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

void assert_close(double got, double want) {
  if (!close_enough(got, want))
    fail_msg("cost %.17g, expected %.17g", got, want);
}

/* Runs one search that must succeed, checks the path with the oracle
 * (valid moves, summed cost equal to the reported cost) and returns it. */
SpGridResult must_find(const SpGrid *g, SpGridWorkspace *ws, SpGridPoint s,
                       SpGridPoint t, SpGridAlgorithm a, int cut,
                       SpGridPoint *path, size_t cap) {
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
double rng_unit(RdRng *r) {
  return (double)(rd_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random open cell, or (-1, -1) when every cell is blocked. */
SpGridPoint random_open(const SpGrid *g, RdRng *r) {
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
void randomize(SpGrid *g, RdRng *r) {
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
