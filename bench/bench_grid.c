/* bench_grid.c: timings of grid pathfinding, A* against Dijkstra, one core and all cores. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "saspu_grid.h"

#define NO_ALLOC ((SpAllocator){NULL, NULL})

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) {
  return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void print_machine(void) {
  char model[256] = "unknown";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f != NULL) {
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
      if (strncmp(line, "model name", 10) != 0) continue;
      const char *colon = strchr(line, ':');
      if (colon == NULL) continue;
      colon++;
      while (*colon == ' ' || *colon == '\t') colon++;
      snprintf(model, sizeof model, "%s", colon);
      model[strcspn(model, "\n")] = '\0';
      break;
    }
    fclose(f);
  }
  printf("cpu: %s\ncores online: %ld\n", model, sysconf(_SC_NPROCESSORS_ONLN));
}

/* Cost mixes of the random maps; every map has ~20% of its cells blocked.
 * A* scales its heuristic by the cheapest cost (1 in all three), so the
 * further the typical cost is above it, the more cells A* must expand. */
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
    return c < 0.3 ? 1.0 : c < 0.8 ? 2.0 : (double)(3 + rng_next(seed) % 3);
  case MIX_MOSTLY_ONE:
    return c < 0.7 ? 1.0 : c < 0.9 ? 2.0 : 3.0;
  case MIX_UNIFORM:
    break;
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
    SpGridPoint s = {(int)(rng_next(&seed) % (uint64_t)side),
                     (int)(rng_next(&seed) % (uint64_t)side)};
    SpGridPoint t = {(int)(rng_next(&seed) % (uint64_t)side),
                     (int)(rng_next(&seed) % (uint64_t)side)};
    if (sp_grid_is_blocked(g, s.x, s.y) || sp_grid_is_blocked(g, t.x, t.y))
      continue;
    if (sp_grid_find_path(g, ws, s, t, NULL, NULL, NULL) != SP_OK) continue;
    p[2 * k] = s;
    p[2 * k + 1] = t;
    k++;
  }
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  int i = (int)(q * (n - 1) + 0.5);
  return v[i];
}

typedef struct Stats {
  double median_us, p99_us, median_expanded, mean_us;
} Stats;

/* Times every pair with one algorithm, on the calling thread. Each pair
 * runs `reps` times and keeps its fastest time: on a shared machine that
 * filters out preemptions, which would otherwise land in the p99. */
static Stats time_pairs(const SpGrid *g, SpGridWorkspace *ws,
                        const SpGridPoint *p, int count, SpGridAlgorithm a,
                        int reps) {
  double *us = malloc((size_t)count * sizeof *us);
  double *ex = malloc((size_t)count * sizeof *ex);
  if (us == NULL || ex == NULL) exit(1);
  SpGridQuery q = {a, 0};
  double total = 0.0;
  for (int i = 0; i < count; i++) {
    SpGridResult r;
    us[i] = 1e300;
    for (int k = 0; k < reps; k++) {
      double t0 = now_us();
      SpStatus st = sp_grid_find_path(g, ws, p[2 * i], p[2 * i + 1], &q, &r,
                                      NULL);
      double t1 = now_us();
      if (st != SP_OK) exit(1);
      if (t1 - t0 < us[i]) us[i] = t1 - t0;
    }
    ex[i] = (double)r.expanded;
    total += us[i];
  }
  Stats s;
  s.mean_us = total / count;
  s.median_us = percentile(us, count, 0.5);
  s.p99_us = percentile(us, count, 0.99);
  s.median_expanded = percentile(ex, count, 0.5);
  free(us);
  free(ex);
  return s;
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
 * all on the same read-only grid. */
static double paths_per_second(const SpGrid *g, const SpGridPoint *pairs,
                               int count, int rounds, int threads) {
  pthread_t th[64];
  Worker w[64];
  if (threads > 64) threads = 64;
  double t0 = now_us();
  for (int k = 0; k < threads; k++) {
    w[k] = (Worker){g, pairs, count, rounds, 0};
    if (pthread_create(&th[k], NULL, worker_main, &w[k]) != 0) exit(1);
  }
  for (int k = 0; k < threads; k++) {
    pthread_join(th[k], NULL);
    if (w[k].failed) exit(1);
  }
  double t1 = now_us();
  return (double)threads * rounds * count / ((t1 - t0) / 1e6);
}

static void bench_map(int side, Mix mix, int pairs, int reps, int rounds,
                      int cores) {
  SpGrid *g = make_map(side, 0xC0FFEEu + (uint64_t)side, mix);
  SpGridWorkspace *ws = NULL;
  if (sp_grid_workspace_new(g, NULL, NO_ALLOC, &ws, NULL) != SP_OK) exit(1);
  SpGridPoint *p = make_pairs(g, ws, pairs, 0xBEEFu + (uint64_t)side);
  /* warm caches and the workspace once before timing */
  time_pairs(g, ws, p, pairs < 50 ? pairs : 50, SP_GRID_ASTAR, 1);
  Stats a = time_pairs(g, ws, p, pairs, SP_GRID_ASTAR, reps);
  Stats d = time_pairs(g, ws, p, pairs, SP_GRID_DIJKSTRA, reps);
  printf("\n%dx%d, 20%% blocked, %s\n  %d reachable pairs (fastest of %d "
         "runs each), workspace %.1f MiB, grid %.1f MiB\n",
         side, side, mix_name(mix), pairs, reps, sp_grid_workspace_size_bytes(ws) / 1048576.0,
         sp_grid_size_bytes(g) / 1048576.0);
  printf("  %-9s %12s %12s %12s %16s\n", "", "median us", "p99 us", "mean us",
         "median expanded");
  printf("  %-9s %12.2f %12.2f %12.2f %16.0f\n", "A*", a.median_us, a.p99_us,
         a.mean_us, a.median_expanded);
  printf("  %-9s %12.2f %12.2f %12.2f %16.0f\n", "Dijkstra", d.median_us,
         d.p99_us, d.mean_us, d.median_expanded);
  printf("  Dijkstra / A*: %.2fx median time, %.2fx median cells expanded\n",
         d.median_us / a.median_us, d.median_expanded / a.median_expanded);
  double one = paths_per_second(g, p, pairs, rounds, 1);
  double all = paths_per_second(g, p, pairs, rounds, cores);
  printf("  A* paths/s: %.0f on 1 thread, %.0f on %d threads (%.2fx)\n", one,
         all, cores, all / one);
  free(p);
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
}

int main(int argc, char **argv) {
  int small_pairs = argc > 1 ? atoi(argv[1]) : 2000;
  int large_pairs = argc > 2 ? atoi(argv[2]) : 100;
  if (small_pairs < 1 || large_pairs < 1) {
    fprintf(stderr, "usage: %s [pairs on 128x128] [pairs on 1024x1024]\n",
            argv[0]);
    return 2;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  print_machine();
  printf("target: 128x128 A* median under 20 us on one core\n");
  for (int m = MIX_ROAD_GROUND; m <= MIX_UNIFORM; m++)
    bench_map(128, (Mix)m, small_pairs, 3, 5, (int)cores);
  for (int m = MIX_ROAD_GROUND; m <= MIX_UNIFORM; m++)
    bench_map(1024, (Mix)m, large_pairs, 1, 1, (int)cores);
  return 0;
}
