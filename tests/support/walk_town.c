/* walk_town.c: the walkers' test town (walk_town.h): random grid, market, citizens, and the one-cell-at-a-time descent each one must follow. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "walk_town.h"

static const SpAllocator plain = {NULL, NULL};

/* A random map: a quarter blocked, the rest of costs 1 to 3. */
static SpGrid *random_grid(RdRng *rng, int width, int height) {
  size_t size = (size_t)(width + 1) * (size_t)height + 1;
  char *text = malloc(size);
  assert_non_null(text);
  static const char open[] = "=.3";
  char *p = text;
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++)
      *p++ = rd_chance(rng, 25) ? '#' : open[rd_below(rng, 3)];
    *p++ = '\n';
  }
  SpGrid *g;
  SpGridError err;
  assert_int_equal(sp_grid_new_ascii(text, (size_t)(p - text), plain, &g, &err),
                   SP_OK);
  free(text);
  return g;
}

static void random_open_cell(const SpGrid *g, RdRng *rng, int *x, int *y) {
  do {
    *x = rd_below(rng, sp_grid_width(g));
    *y = rd_below(rng, sp_grid_height(g));
  } while (sp_grid_is_blocked(g, *x, *y));
}

/* The oracle: from (x, y), one cell at a time to the first neighbour
 * (E, W, S, N, SE, SW, NE, NW; no corner cutting) strictly nearer than
 * the best so far, until the target (distance 0). Writes the cells' field
 * indices; returns the steps, or -1 when the target cannot be reached. */
static int descent(const WalkTown *t, int x, int y, size_t *path) {
  const SpGrid *g = t->g;
  size_t cur = sp_grid_field_index(g, x, y);
  if (!isfinite(t->dist[cur])) return -1;
  int n = 0;
  path[0] = cur;
  while (t->dist[cur] > 0.0f) {
    float best = t->dist[cur];
    int bd = -1;
    for (int d = 0; d < 8; d++) {
      if (!sp_grid_field_step(g, 0, cur, d)) continue;
      float nd = t->dist[(size_t)((ptrdiff_t)cur + sp_grid_field_offset(g, d))];
      if (nd < best) best = nd, bd = d;
    }
    assert_true(bd >= 0 && (size_t)n + 1 < t->cells);
    cur = (size_t)((ptrdiff_t)cur + sp_grid_field_offset(g, bd));
    path[++n] = cur;
  }
  return n;
}

/* A market cell that at least half the open cells reach; the oracle's
 * field to it is left in t->dist. */
static void place_market(WalkTown *t, RdRng *rng, int *mx, int *my) {
  int width = sp_grid_width(t->g), height = sp_grid_height(t->g);
  int reached = 0, open = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) open += !sp_grid_is_blocked(t->g, x, y);
  while (2 * reached < open) {
    random_open_cell(t->g, rng, mx, my);
    SpGridPoint p = {*mx, *my};
    SpGridError gerr;
    assert_int_equal(
        sp_grid_distance_field(t->g, p, NULL, t->dist, t->scratch, &gerr),
        SP_OK);
    reached = 0;
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        reached += isfinite(t->dist[sp_grid_field_index(t->g, x, y)]);
  }
}

void walk_town_open(WalkTown *t, uint64_t seed, int width, int height, size_t n,
                    int threads, float speed) {
  RdRng rng;
  rd_seed(&rng, seed);
  memset(t, 0, sizeof *t);
  t->g = random_grid(&rng, width, height);
  test_fixture_open(&t->f, sp_builtin_citizen(plain));
  assert_int_equal(sp_world_new(t->g, plain, &t->w, NULL), SP_OK);
  t->cells = sp_grid_field_cells(t->g);
  t->dist = malloc(t->cells * sizeof(float));
  t->scratch = malloc(sp_grid_field_scratch_bytes(t->g));
  assert_true(t->dist != NULL && t->scratch != NULL);
  int market, mx = 0, my = 0;
  place_market(t, &rng, &mx, &my);
  uint32_t place;
  sp_world_kind(t->w, "market", &market, NULL);
  assert_int_equal(sp_world_add_place(t->w, market, mx, my, 0, &place, NULL),
                   SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = threads;
  o.parallel_min = 1; /* threads share even small passes */
  o.speed = speed;
  assert_int_equal(sp_crowd_new(t->w, t->f.d, &o, plain, &t->c, NULL), SP_OK);
  t->buy = sp_builtin_action(t->f.b, "buy_food");
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 1000.0f;
  b.bind = SP_BIND_PLACE;
  b.place = place;
  assert_int_equal(sp_crowd_set_action(t->c, t->buy, &b, NULL), SP_OK);
  const SpNamedState *goal = sp_builtin_goal(t->f.b, "work");
  SpValue cond[8];
  for (int v = 0; v < t->f.m; v++)
    cond[v] = goal->keep != NULL && goal->keep[v] ? SP_ANY : goal->values[v];
  assert_int_equal(sp_crowd_add_goal(t->c, cond, 1, NULL, NULL, NULL), SP_OK);
  t->n = n;
  t->path = malloc(n * t->cells * sizeof(size_t));
  t->len = malloc(n * sizeof(int));
  assert_true(t->path != NULL && t->len != NULL);
  for (size_t i = 0; i < n; i++) {
    int x, y;
    random_open_cell(t->g, &rng, &x, &y);
    size_t id;
    assert_int_equal(
        sp_crowd_spawn(t->c, sp_builtin_start(t->f.b, "start_of_day")->values,
                       x, y, SP_NO_PLACE, &id, NULL),
        SP_OK);
    assert_int_equal(id, i);
    t->len[i] = descent(t, x, y, t->path + i * t->cells);
  }
}

void walk_town_close(WalkTown *t) {
  free(t->path);
  free(t->len);
  free(t->scratch);
  free(t->dist);
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  test_fixture_close(&t->f);
  sp_grid_free(t->g);
}
