/* cold_gap.c: the cold population frame (one thread, cache off) against sp_plan called alone on the same pairs, in one process. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_population.h"
#include "bench_util.h"

/* bench_cold's figure: each pair planned this many times in a row. */
enum { REPS = 64, ROUNDS = 3, FRAMES_MAX = 64 };

/* bench_cold's way on the pool's pairs: each pair planned REPS times in a
 * row (the branch predictor learns it), the best of ROUNDS rounds per
 * pair; returns the median over pairs of ns per plan. */
static double repeated_median(const Workload *w, SpWorkspace *ws,
                              uint16_t *plan) {
  double *ns = malloc(w->pairs * sizeof *ns);
  if (ns == NULL) die("memory", NULL);
  for (size_t q = 0; q < w->pairs; q++) {
    const SpValue *s0 = w->starts + q * (size_t)w->m;
    const SpValue *goal = w->goals + q * (size_t)w->m;
    int len;
    double best = 0;
    for (int round = 0; round < ROUNDS; round++) {
      double t0 = bu_now_ns();
      for (int r = 0; r < REPS; r++)
        sp_plan(w->d, ws, s0, goal, plan, &len, NULL);
      double t = (bu_now_ns() - t0) / REPS;
      if (round == 0 || t < best) best = t;
    }
    ns[q] = best;
  }
  double median = bu_stats(ns, w->pairs).median;
  free(ns);
  return median;
}

/* The frame's NPCs planned one after another by sp_plan from the
 * population's own rows, in index order, into one buffer: the single
 * plan on the frame's sequence of pairs. Thread CPU ns. */
static double stream_ns(const Workload *w, const SpPopulation *pop,
                        SpWorkspace *ws, uint16_t *plan, size_t n) {
  double t0 = bu_cpu_ns();
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    int len = 0;
    sp_plan(w->d, ws, sp_population_state(pop, i), sp_population_goal(pop, i),
            plan, &len, NULL);
    sum += (uint64_t)len;
  }
  bu_sink += sum;
  return bu_cpu_ns() - t0;
}

/* The frames alternate which of the two runs first, so neither always
 * finds the other's lines in the caches; the ratios are medians of
 * per-frame ratios, which a load change between frames does not skew. */
void cold_gap(const Workload *w, const char *key, size_t n, int frames) {
  SpPopulation *pop = NULL;
  SpWorkspace *ws = NULL;
  SpError err;
  if (sp_population_new(w->d, n, plain, &pop, &err) != SP_OK)
    die("population", &err);
  if (sp_workspace_new(w->d, plain, &ws, &err) != SP_OK) die("workspace", &err);
  size_t m = (size_t)w->m;
  SpValue *st = malloc(n * m + 8), *go = malloc(n * m + 8);
  uint16_t *plan =
      malloc(((size_t)sp_domain_action_count(w->d) + 1u) * sizeof *plan);
  if (st == NULL || go == NULL || plan == NULL) die("memory", NULL);
  if (frames > FRAMES_MAX) frames = FRAMES_MAX;
  double fr[FRAMES_MAX], sm[FRAMES_MAX], ratio[FRAMES_MAX];
  SpPlanOptions o = {1, 1, 0, NULL};
  for (int f = 0; f <= frames; f++) { /* frame 0 warms up */
    load_frame(w, pop, st, go, n, f);
    double s = 0, t = 0;
    SpPlanReport r;
    if (f % 2) s = stream_ns(w, pop, ws, plan, n);
    double t0 = bu_cpu_ns();
    if (sp_population_plan(pop, &o, &r, &err) != SP_OK) die("plan", &err);
    t = bu_cpu_ns() - t0;
    if (r.planned != n) die("cold frame: not every NPC planned", NULL);
    if (f % 2 == 0) s = stream_ns(w, pop, ws, plan, n);
    if (f == 0) continue;
    fr[f - 1] = t / (double)n;
    sm[f - 1] = s / (double)n;
    ratio[f - 1] = t / s;
  }
  double rep = repeated_median(w, ws, plan);
  double frame = bu_stats(fr, (size_t)frames).median;
  double stream = bu_stats(sm, (size_t)frames).median;
  double batch = bu_stats(ratio, (size_t)frames).median;
  printf("   %-20s %8.1f %10.1f %10.1f %10.2fx %9.2fx %9.2fx\n", key, frame,
         stream, rep, frame / rep, batch, stream / rep);
  free(st);
  free(go);
  free(plan);
  sp_workspace_free(ws);
  sp_population_free(pop);
}
