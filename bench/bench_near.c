/* bench_near.c: sp_crowd_near at a million agents that move between queries: a pass over the stale keys against the bucket rebuild every query used to pay, in one process. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "citizen_town.h"
#include "sp_agents.h"
#include "sp_space.h"

#define AGENTS  1000000
#define FRAMES  31
#define BANK_X  128
#define BANK_Y  128
#define RADIUS  40 /* the town demo's alarm: the nearest 32 within 40 */
#define NEAREST 32

static void check(SpStatus st, const char *what) {
  if (st == SP_OK) return;
  fprintf(stderr, "bench_near: %s failed (%d)\n", what, (int)st);
  exit(1);
}

/* A tenth of the crowd piled within 12 cells of the bank, the rest
 * spread, as the town's crowds stand in the afternoon. */
static void teleport(SpCrowd *c, size_t i, uint64_t *rng) {
  int x, y;
  if (bu_rng_below(rng, 10) == 0)
    x = BANK_X - 12 + bu_rng_below(rng, 25),
    y = BANK_Y - 12 + bu_rng_below(rng, 25);
  else
    x = bu_rng_below(rng, 256), y = bu_rng_below(rng, 256);
  check(sp_crowd_teleport(c, i, x, y, NULL), "sp_crowd_teleport");
}

/* `queries` queries at the bank after a quarter of the crowd moved;
 * `rebuild`: the buckets rebuilt first, as every query on moved agents
 * did before the pass. CPU ms of the queries; *found their last count. */
static double frame(SpCrowd *c, uint64_t *rng, int queries, int rebuild,
                    size_t *found) {
  for (size_t k = 0; k < AGENTS / 4; k++)
    teleport(c, (size_t)bu_rng_below(rng, AGENTS), rng);
  double t0 = bu_cpu_ns();
  for (int q = 0; q < queries; q++) {
    const uint32_t *got;
    if (rebuild) check(sp__index_ready(c, NULL), "sp__index_ready");
    check(sp_crowd_near(c, BANK_X, BANK_Y, RADIUS, NEAREST, &got, found, NULL),
          "sp_crowd_near");
    bu_sink += got != NULL ? got[0] : 0;
  }
  return (bu_cpu_ns() - t0) / 1e6;
}

int main(void) {
  char model[128];
  double load[3];
  bu_cpu_model(model, sizeof model);
  bu_load_average(load);
  printf("bench_near: %s, load average %.2f; %d agents, a quarter moved "
         "between frames, the %d nearest within %d of a pile\n",
         model, load[0], AGENTS, NEAREST, RADIUS);
  CitizenTown t;
  CitizenTownOptions o = {AGENTS, 1, 0, 0};
  citizen_town_new(&t, &o);
  uint64_t rng = 42;
  for (size_t i = 0; i < AGENTS; i++) teleport(t.c, i, &rng);
  static const int per_frame[] = {1, 8, 32};
  for (int row = 0; row < 3; row++) {
    double pass[FRAMES], old[FRAMES];
    size_t n_pass = 0, n_old = 0;
    for (int f = 0; f < FRAMES; f++) { /* alternating, the same moves */
      pass[f] = frame(t.c, &rng, per_frame[row], 0, &n_pass);
      old[f] = frame(t.c, &rng, per_frame[row], 1, &n_old);
    }
    BuStats a = bu_stats(pass, FRAMES), b = bu_stats(old, FRAMES);
    printf("%d quer%s a frame: pass then buckets %.3f ms, buckets rebuilt "
           "first (before) %.3f ms (medians of %d frames, CPU time): %.1fx; "
           "found %zu, %zu\n",
           per_frame[row], per_frame[row] == 1 ? "y" : "ies", a.median,
           b.median, FRAMES, b.median / a.median, n_pass, n_old);
  }
  citizen_town_free(&t);
  return 0;
}
