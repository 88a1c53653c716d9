/* bench_grid.c: timings of grid pathfinding, A* against Dijkstra, one core and all cores. */
/*
 * Usage: bench_grid [--quick] [pairs on 128x128] [pairs on 1024x1024]
 *
 * Maps: 128x128 (the Warcraft II size of the article) and 1024x1024, 20%
 * of the cells blocked at random, three cost mixes, fixed seeds (the same
 * maps on every run). Pairs: random open start and target cells that are
 * connected (checked once, before timing). Every figure is for one core
 * unless it says otherwise. For each map and algorithm:
 *
 *   repeated   each pair is searched `reps` times in a row and keeps its
 *              fastest time; median, p99 and mean are over pairs. Running
 *              the same search again trains the branch predictors and
 *              warms the caches on that search: the best case, and the
 *              figure the 20 us target is about.
 *   stream     every pair once, in shuffled order, as a game asking for
 *              paths of many units would, timed on thread CPU time (the
 *              best of 3 rounds on 128x128, one on 1024x1024); the mean
 *              per path. Consecutive searches
 *              differ, so this is slower than the repeated median.
 *   ns/cell    stream time divided by the cells expanded: the cost of one
 *              expansion (pop, 8 neighbours, pushes) apart from how many
 *              cells the algorithm has to expand.
 *   cost/h0    median of (path cost) / (A* heuristic at the start). The
 *              heuristic is the octile distance times the cheapest cell
 *              cost; the further a path's cost lies above it, the more
 *              cells A* has to close (every cell with g + h below the
 *              path's cost). On all-cost-1 maps it is close to 1; on mixed
 *              costs it is about the mean step cost over the cheapest,
 *              and that, not the speed of an expansion, is what keeps
 *              A* there far from the 20 us target.
 *
 * A line also checks, pair by pair, that A* never expanded more cells than
 * Dijkstra and that both found the same cost. A closing summary repeats
 * A*'s figures on the three 128x128 maps side by side.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "saspu_grid.h"

#define NO_ALLOC  ((SpAllocator){NULL, NULL})
#define TARGET_US 20.0

static double rng_unit(uint64_t *s) {
  return (double)(bu_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Cost mixes of the random maps; every map has ~20% of its cells blocked.
 * The cheapest cost is 1 in all three, so A*'s heuristic is the same. */
typedef enum Mix { MIX_ROAD_GROUND, MIX_MOSTLY_ONE, MIX_UNIFORM } Mix;

static const char *mix_name(Mix m) {
  switch (m) {
  case MIX_ROAD_GROUND: return "costs 1 (30%) 2 (50%) 3-5 (20%)";
  case MIX_MOSTLY_ONE: return "costs 1 (70%) 2 (20%) 3 (10%)";
  case MIX_UNIFORM: return "all costs 1";
  }
  return "?";
}

static double mix_cost(Mix m, uint64_t *seed) {
  double c = rng_unit(seed);
  switch (m) {
  case MIX_ROAD_GROUND:
    return c < 0.3 ? 1.0 : c < 0.8 ? 2.0 : (double)(3 + bu_rng_next(seed) % 3);
  case MIX_MOSTLY_ONE: return c < 0.7 ? 1.0 : c < 0.9 ? 2.0 : 3.0;
  case MIX_UNIFORM: break;
  }
  return 1.0;
}

static SpGrid *make_map(int side, uint64_t seed, Mix mix) {
  SpGrid *g = NULL;
  if (sp_grid_new(side, side, 1, NO_ALLOC, &g, NULL) != SP_OK) exit(1);
  size_t n = (size_t)side * (size_t)side;
  double *v = malloc(n * sizeof *v);
  if (v == NULL) exit(1);
  for (size_t i = 0; i < n; i++)
    v[i] = rng_unit(&seed) < 0.20 ? SP_GRID_BLOCKED : mix_cost(mix, &seed);
  if (sp_grid_set_costs(g, 0, 0, side, side, v, NULL) != SP_OK) exit(1);
  free(v);
  return g;
}

/* Random open start/target pairs that are connected (checked once). */
static SpGridPoint *make_pairs(const SpGrid *g, SpGridWorkspace *ws, int count,
                               uint64_t seed) {
  int side = sp_grid_width(g);
  SpGridPoint *p = malloc(2 * (size_t)count * sizeof *p);
  if (p == NULL) exit(1);
  int k = 0;
  while (k < count) {
    SpGridPoint s = {(int)(bu_rng_next(&seed) % (uint64_t)side),
                     (int)(bu_rng_next(&seed) % (uint64_t)side)};
    SpGridPoint t = {(int)(bu_rng_next(&seed) % (uint64_t)side),
                     (int)(bu_rng_next(&seed) % (uint64_t)side)};
    if (sp_grid_is_blocked(g, s.x, s.y) || sp_grid_is_blocked(g, t.x, t.y))
      continue;
    if (sp_grid_find_path(g, ws, s, t, NULL, NULL, NULL) != SP_OK) continue;
    p[2 * k] = s;
    p[2 * k + 1] = t;
    k++;
  }
  return p;
}

/* A*'s heuristic at the start, in cost units: octile distance times the
 * cheapest cost (computed here from the public getters). */
static double start_heuristic(const SpGrid *g, SpGridPoint s, SpGridPoint t) {
  double dx = fabs((double)(s.x - t.x)), dy = fabs((double)(s.y - t.y));
  double lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
  return sp_grid_min_cost(g) * (hi - lo + sqrt(2.0) * lo);
}

typedef struct Run {
  BuStats us; /* repeated: fastest of reps, per pair */
  double median_expanded;
  double stream_us;   /* stream: mean per path */
  double ns_per_cell; /* stream time / cells expanded */
  double *cost;       /* per pair */
  double *expanded;   /* per pair */
} Run;

static void run_free(Run *r) {
  free(r->cost);
  free(r->expanded);
}

/* Times every pair with one algorithm, on the calling thread. */
static Run time_pairs(const SpGrid *g, SpGridWorkspace *ws,
                      const SpGridPoint *p, int count, SpGridAlgorithm a,
                      int reps, int rounds) {
  Run run;
  memset(&run, 0, sizeof run);
  double *us = malloc((size_t)count * sizeof *us);
  double *ex = malloc((size_t)count * sizeof *ex);
  run.cost = malloc((size_t)count * sizeof *run.cost);
  run.expanded = malloc((size_t)count * sizeof *run.expanded);
  int *order = malloc((size_t)count * sizeof *order);
  if (us == NULL || ex == NULL || run.cost == NULL || run.expanded == NULL ||
      order == NULL)
    exit(1);
  SpGridQuery q = {a, 0};
  double total_expanded = 0.0;
  for (int i = 0; i < count; i++) {
    SpGridResult r;
    us[i] = 1e300;
    for (int k = 0; k < reps; k++) {
      double t0 = bu_now_ns();
      SpStatus st =
          sp_grid_find_path(g, ws, p[2 * i], p[2 * i + 1], &q, &r, NULL);
      double t1 = bu_now_ns();
      if (st != SP_OK) exit(1);
      if ((t1 - t0) / 1e3 < us[i]) us[i] = (t1 - t0) / 1e3;
    }
    ex[i] = run.expanded[i] = (double)r.expanded;
    run.cost[i] = r.cost;
    total_expanded += (double)r.expanded;
  }
  /* the stream: a fixed shuffle, best of `rounds` of thread CPU time */
  uint64_t seed = 0x5EEDu;
  for (int i = 0; i < count; i++) order[i] = i;
  for (int i = count - 1; i > 0; i--) {
    int j = bu_rng_below(&seed, i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  double best = 1e300;
  for (int round = 0; round < rounds; round++) {
    double t0 = bu_cpu_ns();
    for (int i = 0; i < count; i++) {
      int k = order[i];
      if (sp_grid_find_path(g, ws, p[2 * k], p[2 * k + 1], &q, NULL, NULL) !=
          SP_OK)
        exit(1);
    }
    double t1 = bu_cpu_ns();
    if (t1 - t0 < best) best = t1 - t0;
  }
  run.stream_us = best / 1e3 / count;
  run.ns_per_cell = best / total_expanded;
  run.us = bu_stats(us, (size_t)count);
  run.median_expanded = bu_stats(ex, (size_t)count).median;
  free(us);
  free(ex);
  free(order);
  return run;
}

typedef struct Worker {
  const SpGrid *g;
  const SpGridPoint *pairs;
  int count, rounds, failed;
} Worker;

static void *worker_main(void *arg) {
  Worker *w = arg;
  SpGridWorkspace *ws = NULL;
  if (sp_grid_workspace_new(w->g, NULL, NO_ALLOC, &ws, NULL) != SP_OK) {
    w->failed = 1;
    return NULL;
  }
  for (int r = 0; r < w->rounds; r++)
    for (int i = 0; i < w->count; i++)
      if (sp_grid_find_path(w->g, ws, w->pairs[2 * i], w->pairs[2 * i + 1],
                            NULL, NULL, NULL) != SP_OK)
        w->failed = 1;
  sp_grid_workspace_free(ws);
  return NULL;
}

/* A* paths per second with `threads` threads, each with its workspace,
 * all on the same read-only grid (wall time: the cores work at once). */
static double paths_per_second(const SpGrid *g, const SpGridPoint *pairs,
                               int count, int rounds, int threads) {
  pthread_t th[64];
  Worker w[64];
  if (threads > 64) threads = 64;
  double t0 = bu_now_ns();
  for (int k = 0; k < threads; k++) {
    w[k] = (Worker){g, pairs, count, rounds, 0};
    if (pthread_create(&th[k], NULL, worker_main, &w[k]) != 0) exit(1);
  }
  for (int k = 0; k < threads; k++) {
    pthread_join(th[k], NULL);
    if (w[k].failed) exit(1);
  }
  double t1 = bu_now_ns();
  return (double)threads * rounds * count / ((t1 - t0) / 1e9);
}

/* What the closing summary shows of one map. */
typedef struct Summary {
  double median_us, stream_us, ns_per_cell, expanded, ratio;
} Summary;

/* `reps`: runs per pair (repeated); `rounds`: stream rounds and rounds of
 * the paths-per-second runs. Prints the map's table, returns A*'s line. */
static Summary bench_map(int side, Mix mix, int pairs, int reps, int rounds,
                         int cores) {
  SpGrid *g = make_map(side, 0xC0FFEEu + (uint64_t)side, mix);
  SpGridWorkspace *ws = NULL;
  if (sp_grid_workspace_new(g, NULL, NO_ALLOC, &ws, NULL) != SP_OK) exit(1);
  SpGridPoint *p = make_pairs(g, ws, pairs, 0xBEEFu + (uint64_t)side);
  /* warm caches and the workspace once before timing */
  Run warm = time_pairs(g, ws, p, pairs < 50 ? pairs : 50, SP_GRID_ASTAR, 1, 1);
  run_free(&warm);
  Run a = time_pairs(g, ws, p, pairs, SP_GRID_ASTAR, reps, rounds);
  Run d = time_pairs(g, ws, p, pairs, SP_GRID_DIJKSTRA, reps, rounds);

  int worse = 0, differ = 0;
  double *ratio = malloc((size_t)pairs * sizeof *ratio);
  if (ratio == NULL) exit(1);
  for (int i = 0; i < pairs; i++) {
    if (a.expanded[i] > d.expanded[i]) worse++;
    if (fabs(a.cost[i] - d.cost[i]) > 1e-9 * fmax(1.0, d.cost[i])) differ++;
    double h0 = start_heuristic(g, p[2 * i], p[2 * i + 1]);
    ratio[i] = h0 > 0 ? a.cost[i] / h0 : 1.0;
  }
  BuStats rs = bu_stats(ratio, (size_t)pairs);
  free(ratio);

  printf("\n%dx%d, 20%% blocked, %s\n  %d reachable pairs, workspace %.1f "
         "MiB, grid %.1f MiB\n",
         side, side, mix_name(mix), pairs,
         (double)sp_grid_workspace_size_bytes(ws) / 1048576.0,
         (double)sp_grid_size_bytes(g) / 1048576.0);
  printf("  %-9s %23s %9s %9s %9s %10s\n", "", "repeated (best of N) us", "",
         "stream", "", "median");
  printf("  %-9s %9s %9s %9s %9s %9s %10s\n", "", "median", "p99", "mean",
         "us/path", "ns/cell", "expanded");
  const Run *rows[2] = {&a, &d};
  const char *names[2] = {"A*", "Dijkstra"};
  for (int k = 0; k < 2; k++)
    printf("  %-9s %9.2f %9.2f %9.2f %9.2f %9.1f %10.0f\n", names[k],
           rows[k]->us.median, rows[k]->us.p99, rows[k]->us.mean,
           rows[k]->stream_us, rows[k]->ns_per_cell, rows[k]->median_expanded);
  printf("  N = %d; Dijkstra / A*: %.2fx median time, %.2fx median cells "
         "expanded\n",
         reps, d.us.median / a.us.median,
         d.median_expanded / a.median_expanded);
  printf("  path cost / A* heuristic at the start: median %.2f (p99 %.2f)\n",
         rs.median, rs.p99);
  printf("  checks: A* expanded more than Dijkstra on %d pairs, costs "
         "differ on %d\n",
         worse, differ);
  if (side == 128)
    printf("  target (A* median under %.0f us): %s\n", TARGET_US,
           a.us.median < TARGET_US ? "met" : "not met");
  double one = paths_per_second(g, p, pairs, rounds, 1);
  double all = paths_per_second(g, p, pairs, rounds, cores);
  printf("  A* paths/s: %.0f on 1 thread, %.0f on %d threads (%.2fx)\n", one,
         all, cores, all / one);
  Summary sum = {a.us.median, a.stream_us, a.ns_per_cell, a.median_expanded,
                 rs.median};
  run_free(&a);
  run_free(&d);
  free(p);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
  return sum;
}

int main(int argc, char **argv) {
  int quick = 0, small_pairs = 2000, large_pairs = 100, pos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (pos < 2 && atoi(argv[i]) > 0) {
      *(pos++ == 0 ? &small_pairs : &large_pairs) = atoi(argv[i]);
    } else {
      fprintf(stderr,
              "usage: %s [--quick] [pairs on 128x128] [pairs on 1024x1024]\n",
              argv[0]);
      return 2;
    }
  }
  if (quick) {
    small_pairs = pos > 0 ? small_pairs : 300;
    large_pairs = pos > 1 ? large_pairs : 5;
  }
  int cores = bu_core_count();
  char model[256];
  double load[3];
  bu_cpu_model(model, sizeof model);
  bu_load_average(load);
  printf("cpu: %s\ncores online: %d\nload average: %.2f %.2f %.2f\n", model,
         cores, load[0], load[1], load[2]);
  printf("target: 128x128 A* median under %.0f us on one core\n", TARGET_US);
  Summary small[3];
  for (int m = MIX_ROAD_GROUND; m <= MIX_UNIFORM; m++)
    small[m] = bench_map(128, (Mix)m, small_pairs, 3, 3, cores);
  for (int m = MIX_ROAD_GROUND; m <= MIX_UNIFORM; m++)
    bench_map(1024, (Mix)m, large_pairs, 1, 1, cores);

  printf("\nSummary: A* on 128x128, one core\n  %-32s %9s %9s %8s %9s %8s\n",
         "map", "median us", "stream us", "ns/cell", "expanded", "cost/h0");
  for (int m = MIX_ROAD_GROUND; m <= MIX_UNIFORM; m++)
    printf("  %-32s %9.2f %9.2f %8.1f %9.0f %8.2f\n", mix_name((Mix)m),
           small[m].median_us, small[m].stream_us, small[m].ns_per_cell,
           small[m].expanded, small[m].ratio);
  printf(
      "What limits the mixed-cost maps: A*'s heuristic may only count the\n"
      "cheapest cost (1) per unit of distance, or it could overestimate and\n"
      "miss a cheaper path. A path there costs cost/h0 times that estimate,\n"
      "and A* must close every cell whose g + h is below the path's cost: a\n"
      "region that widens with the gap, hence the cells expanded above. The\n"
      "time per cell (ns/cell) is about the same on the three maps; only the\n"
      "number of cells differs.\n");
  bu_load_average(load);
  printf("load average at the end: %.2f %.2f %.2f\n", load[0], load[1],
         load[2]);
  return 0;
}
