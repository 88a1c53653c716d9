/* curves.c: bench_plan table 3: time against size on the synthetic families, saspu and the A* baseline, with least-squares fits. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"

typedef struct CurvePoint {
  double x, saspu_ns, astar_ns;
  int actions, len, alen;
  GoapResult ar;
  long expanded, stored;
  int astar_run;
} CurvePoint;

/* Median of 5 batches of ~CURVE_BATCH_NS of thread CPU time each. */
static double time_one(Target *t, Planner which, const Pair *p,
                       double first_ns) {
  double v[5];
  long reps = (long)ceil(CURVE_BATCH_NS / (first_ns > 1 ? first_ns : 1));
  int k;
  if (reps < 1) reps = 1;
  for (k = 0; k < 5; k++)
    v[k] = run_pairs(t, which, p, 1, reps, bu_cpu_ns) / (double)reps;
  return bu_stats(v, 5).median;
}

static SpBuiltSpec *build_family(Family f, int x, int fixed_m) {
  switch (f) {
  case MULTIPRV_N: return sp_builtin_multiprv_n_cycle(plain, fixed_m, x);
  case MULTIPRV_2: return sp_builtin_multiprv_2_cycle(plain, x);
  case ONEPRV_5: return sp_builtin_oneprv_5(plain, x);
  }
  return NULL;
}

/* Runs one family over `sizes`. A* runs until its first capped size and
 * is skipped above it (larger instances only get harder), except at
 * size `probe` (0: none), where it runs anyway so that the table has a
 * lower bound on the ratio at the size the targets name. */
void bench_curve(Family fam, const char *name, const char *xname, int fixed_m,
                 const int *sizes, int n_sizes, int probe, long cap, Out *out) {
  CurvePoint *pts = calloc((size_t)n_sizes, sizeof *pts);
  double *xs = malloc((size_t)n_sizes * sizeof *xs),
         *ys = malloc((size_t)n_sizes * sizeof *ys);
  double c[3];
  int i, astar_on = 1, budget = 3;
  if (pts == NULL || xs == NULL || ys == NULL) exit(1);
  printf("\n%s\n", name);
  if (fam == MULTIPRV_N) printf("    time vs n at m = %d\n", fixed_m);
  printf("%6s %7s %6s %11s %13s %11s %10s %9s\n", xname, "actions", "length",
         "saspu", "A*", "A* expanded", "A* length", "ratio");
  for (i = 0; i < n_sizes; i++) {
    CurvePoint *pt = &pts[i];
    SpBuiltSpec *b = build_family(fam, sizes[i], fixed_m);
    SpValue goal[SP_MAX_VARIABLES];
    Target t;
    Pair p;
    Check chk;
    double t0, first;
    if (b == NULL) exit(1);
    sp_builtin_resolve_goal(b, &b->goals[0], b->starts[0].values, goal);
    target_open(&t, b->spec.name, &b->spec, b->needs_allow_outside, 0);
    t.spec = b;
    p.s0 = b->starts[0].values;
    p.goal = goal;
    pt->x = sizes[i];
    pt->actions = sp_domain_action_count(t.d);
    first = run_pairs(&t, SASPU, &p, 1, 1, bu_now_ns);
    pt->saspu_ns = time_one(&t, SASPU, &p, first);
    pt->len = -1;
    sp_plan(t.d, t.ws, p.s0, p.goal, t.plan, &pt->len, NULL);
    pt->ar = GOAP_CAPPED;
    pt->alen = -1;
    if (astar_on || sizes[i] == probe) {
      t.astar = goap_planner_new(t.d, cap);
      if (t.astar == NULL) {
        printf("  (A* planner does not fit in memory at %s = %d)\n", xname,
               sizes[i]);
        astar_on = 0;
      }
    }
    if (t.astar != NULL) {
      pt->astar_run = 1;
      t0 = bu_cpu_ns();
      check_pair(&t, p.s0, p.goal, &chk, &budget);
      first =
          bu_cpu_ns() - t0 - pt->saspu_ns; /* check_pair ran saspu once too */
      pt->ar = chk.ar;
      pt->alen = chk.alen;
      pt->expanded = chk.expanded;
      pt->stored = goap_last_stored(t.astar);
      pt->astar_ns = first;
      if (chk.ar != GOAP_CAPPED && first < ASTAR_REPEAT_BELOW_NS)
        pt->astar_ns = time_one(&t, ASTAR, &p, first);
      if (chk.ar == GOAP_CAPPED) astar_on = 0;
    }
    if (!pt->astar_run) {
      printf("%6d %7d %6d %9.0fns %13s %11s %10s %9s\n", sizes[i], pt->actions,
             pt->len, pt->saspu_ns, "skipped", "-", "-", "-");
    } else if (pt->ar == GOAP_CAPPED) {
      printf("%6d %7d %6d %9.0fns %10.0fns+ %11ld %10s >%7.0fx (A* stopped at "
             "%ld states)\n",
             sizes[i], pt->actions, pt->len, pt->saspu_ns, pt->astar_ns,
             pt->expanded, "capped", pt->astar_ns / pt->saspu_ns, pt->stored);
    } else {
      printf("%6d %7d %6d %9.0fns %11.0fns %11ld %10d %8.1fx\n", sizes[i],
             pt->actions, pt->len, pt->saspu_ns, pt->astar_ns, pt->expanded,
             pt->alen, pt->astar_ns / pt->saspu_ns);
    }
    if (out->curves != NULL)
      fprintf(out->curves, "%s,%d,%d,%d,%d,%.1f,%s,%.1f,%ld,%d,%.2f\n", name,
              sizes[i], fam == MULTIPRV_N ? fixed_m : sizes[i], pt->actions,
              pt->len, pt->saspu_ns,
              pt->astar_run ? goap_result_name(pt->ar) : "skipped",
              pt->astar_run ? pt->astar_ns : 0.0, pt->expanded, pt->alen,
              pt->astar_run ? pt->astar_ns / pt->saspu_ns : 0.0);
    xs[i] = pt->x;
    ys[i] = pt->saspu_ns;
    target_close(&t);
  }
  {
    double r1 = bu_fit_poly(xs, ys, (size_t)n_sizes, 1, c);
    printf("    saspu fit: ns = %.1f + %.2f %s (R^2 = %.4f)", c[0], c[1], xname,
           r1);
    if (fam == MULTIPRV_2) {
      double r2 = bu_fit_poly(xs, ys, (size_t)n_sizes, 2, c);
      printf("; quadratic: ns = %.1f + %.2f m + %.3f m^2 (R^2 = %.4f)", c[0],
             c[1], c[2], r2);
    }
    printf("\n");
  }
  free(pts);
  free(xs);
  free(ys);
}
