/* test_agents_walk.c: walkers on random cost grids against a one-cell-at-a-time descent of the target's distance field: cells walked per frame, arrival frame, with one and two threads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_agents.h"
#include "saspu_grid.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

enum { W = 48, H = 32, AGENTS = 400, FRAMES = 40, MAX_PATH = W * H };

/* A random map: a quarter blocked, the rest of costs 1 to 3. */
static SpGrid *random_grid(RdRng *rng) {
  static char text[(W + 1) * H + 1];
  static const char open[] = "=.3";
  char *p = text;
  for (int y = 0; y < H; y++) {
    for (int x = 0; x < W; x++)
      *p++ = rd_chance(rng, 25) ? '#' : open[rd_below(rng, 3)];
    *p++ = '\n';
  }
  SpGrid *g;
  SpGridError err;
  assert_int_equal(sp_grid_new_ascii(text, (size_t)(p - text), plain, &g, &err),
                   SP_OK);
  return g;
}

static void random_open_cell(const SpGrid *g, RdRng *rng, int *x, int *y) {
  do {
    *x = rd_below(rng, W);
    *y = rd_below(rng, H);
  } while (sp_grid_is_blocked(g, *x, *y));
}

/* The oracle: from (x, y), one cell at a time to the first neighbour
 * (E, W, S, N, SE, SW, NE, NW; no corner cutting) strictly nearer than
 * the best so far, until the target (distance 0). Writes the cells' field
 * indices; returns the steps, or -1 when the target cannot be reached. */
static int descent(const SpGrid *g, const float *dist, int x, int y,
                   size_t *path) {
  size_t cur = sp_grid_field_index(g, x, y);
  if (!isfinite(dist[cur])) return -1;
  int n = 0;
  path[0] = cur;
  while (dist[cur] > 0.0f) {
    float best = dist[cur];
    int bd = -1;
    for (int d = 0; d < 8; d++) {
      if (!sp_grid_field_step(g, 0, cur, d)) continue;
      float nd = dist[(size_t)((ptrdiff_t)cur + sp_grid_field_offset(g, d))];
      if (nd < best) best = nd, bd = d;
    }
    assert_true(bd >= 0 && n + 1 < MAX_PATH);
    cur = (size_t)((ptrdiff_t)cur + sp_grid_field_offset(g, bd));
    path[++n] = cur;
  }
  return n;
}

/* One town: a Citizen crowd whose buy_food step walks to one market (and
 * stays there a long time); every other step takes no time. Frames of 1 s
 * at `speed` cells a second (a half: 2 and 3 cells in turn at 2.5; 21.5
 * takes the skips of FIELD_SKIP cells). */
static void walk_town(uint64_t seed, int threads, float speed) {
  RdRng rng;
  rd_seed(&rng, seed);
  SpGrid *g = random_grid(&rng);
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  SpWorld *w;
  assert_int_equal(sp_world_new(g, plain, &w, NULL), SP_OK);
  /* the oracle's field: to a market most open cells reach */
  float *dist = malloc(sp_grid_field_cells(g) * sizeof(float));
  void *scratch = malloc(sp_grid_field_scratch_bytes(g));
  int market, mx = 0, my = 0, reached = 0, open = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) open += !sp_grid_is_blocked(g, x, y);
  while (2 * reached < open) {
    random_open_cell(g, &rng, &mx, &my);
    SpGridPoint t = {mx, my};
    SpGridError gerr;
    assert_int_equal(sp_grid_distance_field(g, t, NULL, dist, scratch, &gerr),
                     SP_OK);
    reached = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        reached += isfinite(dist[sp_grid_field_index(g, x, y)]);
  }
  uint32_t place;
  sp_world_kind(w, "market", &market, NULL);
  assert_int_equal(sp_world_add_place(w, market, mx, my, 0, &place, NULL),
                   SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = AGENTS;
  o.threads = threads;
  o.speed = speed;
  SpCrowd *c;
  assert_int_equal(sp_crowd_new(w, f.d, &o, plain, &c, NULL), SP_OK);
  int buy = sp_builtin_action(f.b, "buy_food");
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = b.max_duration = 1000.0f;
  b.bind = SP_BIND_PLACE;
  b.place = place;
  assert_int_equal(sp_crowd_set_action(c, buy, &b, NULL), SP_OK);
  const SpNamedState *goal = sp_builtin_goal(f.b, "work");
  SpValue cond[8];
  for (int v = 0; v < f.m; v++)
    cond[v] = goal->keep != NULL && goal->keep[v] ? SP_ANY : goal->values[v];
  assert_int_equal(sp_crowd_add_goal(c, cond, 1, NULL, NULL, NULL), SP_OK);

  /* every agent's descent */
  size_t(*path)[MAX_PATH] = malloc(sizeof *path * AGENTS);
  int len[AGENTS], started[AGENTS], arrived[AGENTS];
  for (size_t i = 0; i < AGENTS; i++) {
    int x, y;
    random_open_cell(g, &rng, &x, &y);
    size_t id;
    assert_int_equal(
        sp_crowd_spawn(c, sp_builtin_start(f.b, "start_of_day")->values, x, y,
                       SP_NO_PLACE, &id, NULL),
        SP_OK);
    len[i] = descent(g, dist, x, y, path[i]);
    started[i] = arrived[i] = -1;
  }
  int walked = 0, arrivals = 0;
  for (int frame = 1; frame <= FRAMES; frame++) {
    assert_int_equal(sp_crowd_update(c, 1.0f, NULL), SP_OK);
    const SpAgentEvent *ev = sp_crowd_events(c);
    for (size_t k = 0; k < sp_crowd_event_count(c); k++) {
      size_t i = ev[k].agent;
      if (len[i] < 0) continue; /* it fails, cools down, tries again */
      if (ev[k].kind == SP_EV_STEP_STARTED && ev[k].action == buy) {
        assert_true(started[i] < 0);
        started[i] = frame;
      }
      if (ev[k].kind == SP_EV_ARRIVED) {
        assert_true(arrived[i] < 0);
        arrived[i] = frame;
        arrivals++;
      }
    }
    for (size_t i = 0; i < AGENTS; i++) {
      if (len[i] < 0 || started[i] < 0) continue;
      /* the walk begins the frame after the step starts */
      int cells = (int)floorf(speed * (float)(frame - started[i]));
      int at = cells < len[i] ? cells : len[i];
      SpAgentInfo info;
      assert_int_equal(sp_crowd_inspect(c, i, &info), SP_OK);
      int px = -1, py = -1; /* the cheap read agrees with inspect */
      assert_int_equal(sp_crowd_position(c, i, &px, &py), SP_OK);
      assert_true(px == info.x && py == info.y);
      size_t want = path[i][at];
      if (sp_grid_field_index(g, info.x, info.y) != want)
        fail_msg("seed %llu agent %zu frame %d: at (%d, %d), the descent is at "
                 "cell %d of %d",
                 (unsigned long long)seed, i, frame, info.x, info.y, at,
                 len[i]);
      /* it arrives in the first frame of walking whose cells reach the
       * target: floor(speed k) >= len once speed k >= len */
      int k_in = (int)ceilf((float)len[i] / speed);
      int arrive_at = started[i] + (k_in > 1 ? k_in : 1);
      assert_int_equal(arrived[i], frame >= arrive_at ? arrive_at : -1);
      if (cells > 0 && cells < len[i]) walked++;
    }
  }
  assert_true(walked > (speed < 10.0f ? 100 : 20));
  assert_true(arrivals > 50);
  free(path);
  free(scratch);
  free(dist);
  sp_crowd_free(c);
  sp_world_free(w);
  test_fixture_close(&f);
  sp_grid_free(g);
}

static void test_walkers_follow_the_descent(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    walk_town(seed, 1, 2.5f);
    walk_town(seed, 2, 2.5f);
    walk_town(seed, 1, 21.5f);
    walk_town(seed, 2, 21.5f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_walkers_follow_the_descent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
