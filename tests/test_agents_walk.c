/* test_agents_walk.c: walkers on random cost grids against a one-cell-at-a-time descent of the target's distance field: cells walked per frame, arrival frame, with one and two threads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "walk_town.h"

enum { W = 48, H = 32, AGENTS = 400, FRAMES = 40 };

/* One town (walk_town.h) of frames of 1 s at `speed` cells a second (a
 * half: 2 and 3 cells in turn at 2.5; 21.5 takes the skips of FIELD_SKIP
 * cells). */
static void walk_town(uint64_t seed, int threads, float speed) {
  WalkTown t;
  walk_town_open(&t, seed, W, H, AGENTS, threads, speed);
  SpCrowd *c = t.c;
  const SpGrid *g = t.g;
  int buy = t.buy;
  const int *len = t.len;
  int started[AGENTS], arrived[AGENTS];
  for (size_t i = 0; i < AGENTS; i++) started[i] = arrived[i] = -1;
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
      size_t want = walk_town_path(&t, i)[at];
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
  walk_town_close(&t);
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
