/* measure.c: bench_plan's measuring kit: a domain under test, timed batches and streams, the saspu/A* cross-check, CSV rows. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"

const SpAllocator plain = {NULL, NULL};
double clock_ns;

/* ------------------------------------------------------------------ */
/* A domain under test                                                */
/* ------------------------------------------------------------------ */

/* Compiles `spec` and builds the saspu workspace and the A* planner with
 * `cap` nodes (cap 0: no A* planner). Exits on failure: a benchmark that
 * cannot build its domains has nothing to measure. */
void target_open(Target *t, const char *label, const SpDomainSpec *spec,
                 int allow_outside, long cap) {
  SpCompileOptions opts = {allow_outside};
  SpError err;
  memset(t, 0, sizeof *t);
  t->label = label;
  if (sp_domain_compile(spec, &opts, plain, &t->d, &err) != SP_OK) {
    fprintf(stderr, "%s: compile failed: %s\n", label, err.message);
    exit(1);
  }
  if (sp_workspace_new(t->d, plain, &t->ws, &err) != SP_OK) {
    fprintf(stderr, "%s: workspace failed: %s\n", label, err.message);
    exit(1);
  }
  t->m = sp_domain_variable_count(t->d);
  t->astar_cap = cap;
  if (cap > 0) {
    t->astar = goap_planner_new(t->d, cap);
    if (t->astar == NULL) {
      fprintf(stderr, "%s: out of memory for the A* planner\n", label);
      exit(1);
    }
  }
  t->plan =
      malloc(((size_t)sp_domain_action_count(t->d) + 1) * sizeof *t->plan);
  t->aplan = malloc(PLAN_ROOM * sizeof *t->aplan);
  if (t->plan == NULL || t->aplan == NULL) exit(1);
}

void target_close(Target *t) {
  goap_planner_free(t->astar);
  sp_workspace_free(t->ws);
  sp_domain_free(t->d);
  sp_builtin_free(t->spec);
  free(t->plan);
  free(t->aplan);
  memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ */
/* Timing                                                             */
/* ------------------------------------------------------------------ */

/* Plans pairs[0..n-1], each `reps` times in a row; returns the ns that
 * `clock` saw elapse. The loops are written out per planner so neither
 * pays for a call through a pointer. */
double run_pairs(Target *t, Planner which, const Pair *pairs, size_t n,
                 long reps, Clock clock) {
  uint64_t acc = 0;
  double t0 = clock(), t1;
  size_t i;
  long r;
  if (which == SASPU) {
    for (i = 0; i < n; i++)
      for (r = 0; r < reps; r++) {
        int len = 0;
        SpStatus s = sp_plan(t->d, t->ws, pairs[i].s0, pairs[i].goal, t->plan,
                             &len, NULL);
        acc += (uint64_t)len + (uint64_t)s;
      }
  } else {
    for (i = 0; i < n; i++)
      for (r = 0; r < reps; r++) {
        int len = 0;
        GoapResult g = goap_plan(t->astar, pairs[i].s0, pairs[i].goal, t->aplan,
                                 PLAN_ROOM, &len);
        acc += (uint64_t)len + (uint64_t)g;
      }
  }
  t1 = clock();
  bu_sink += acc;
  return t1 - t0;
}

/* Per pair: repeat it until a batch lasts ~PAIR_BATCH_NS, keep the
 * faster of two such batches (wall clock), subtract one clock read,
 * divide. Stream: replay all pairs in their (shuffled) order for
 * ~STREAM_NS of thread CPU time (at least once), which is what a game
 * loop sees: every plan differs from the previous one. `scratch` holds
 * n doubles. */
Figures measure(Target *t, Planner which, const Pair *pairs, size_t n,
                double *scratch) {
  Figures f;
  double est, total = 0;
  long plans = 0;
  size_t i;
  int k;
  memset(&f, 0, sizeof f);
  f.n = n;
  if (n == 0) return f;
  est = run_pairs(t, which, pairs, n, 1, bu_now_ns) /
        (double)n; /* also warms caches */
  f.reps = (long)ceil(PAIR_BATCH_NS / (est > 1 ? est : 1));
  if (f.reps < 1) f.reps = 1;
  if (f.reps > 4096) f.reps = 4096;
  for (i = 0; i < n; i++) {
    /* the lower of two batches: an interrupt or a migration during one
     * batch says nothing about the planner */
    double e1 = run_pairs(t, which, pairs + i, 1, f.reps, bu_now_ns);
    double e2 = run_pairs(t, which, pairs + i, 1, f.reps, bu_now_ns);
    double e = (e1 < e2 ? e1 : e2) - clock_ns;
    scratch[i] = (e > 0 ? e : 0) / (double)f.reps;
  }
  f.pair = bu_stats(scratch, n);
  for (k = 0; k <= 100; k++) f.q[k] = bu_quantile_sorted(scratch, n, k / 100.0);
  do {
    total += run_pairs(t, which, pairs, n, 1, bu_cpu_ns);
    plans += (long)n;
  } while (total < STREAM_NS);
  f.stream_ns = total / (double)plans;
  f.plans_per_s = 1e9 / f.stream_ns;
  return f;
}

void shuffle_pairs(Pair *p, size_t n, uint64_t *rng) {
  size_t i;
  for (i = n; i > 1; i--) {
    size_t j = (size_t)bu_rng_below(rng, (int)i);
    Pair tmp = p[i - 1];
    p[i - 1] = p[j];
    p[j] = tmp;
  }
}

/* ------------------------------------------------------------------ */
/* Output files                                                       */
/* ------------------------------------------------------------------ */

void write_figures(FILE *csv, FILE *quantiles, const char *domain,
                   const char *kind, const char *planner, const Figures *f,
                   double mean_len, double expanded_median, long capped,
                   long mismatches) {
  int k;
  if (csv != NULL)
    fprintf(csv, "%s,%s,%s,%zu,%.1f,%.1f,%.1f,%.0f,%.2f,%.0f,%ld,%ld\n", domain,
            kind, planner, f->n, f->pair.median, f->pair.p99, f->stream_ns,
            f->plans_per_s, mean_len, expanded_median, capped, mismatches);
  if (quantiles != NULL && f->n > 0)
    for (k = 0; k <= 100; k++)
      fprintf(quantiles, "%s,%s,%s,%d,%.1f\n", domain, kind, planner, k,
              f->q[k]);
}

/* ------------------------------------------------------------------ */
/* Checking both planners on one pair                                 */
/* ------------------------------------------------------------------ */

/* Plans the pair with both planners once. A mismatch (saspu's plan does
 * not replay, or the two disagree on solvability or length while A* was
 * not capped) is printed, at most `*budget` times; returns 1 if any. */
int check_pair(Target *t, const SpValue *s0, const SpValue *goal, Check *c,
               int *budget) {
  SpValue state[SP_MAX_VARIABLES];
  int bad = 0;
  c->len = -1;
  c->status = sp_plan(t->d, t->ws, s0, goal, t->plan, &c->len, NULL);
  if (c->status == SP_OK) {
    memcpy(state, s0, (size_t)t->m);
    if (sp_plan_replay(t->d, state, t->plan, c->len) != -1 ||
        memcmp(state, goal, (size_t)t->m) != 0)
      bad = 1;
  }
  c->ar = GOAP_CAPPED;
  c->alen = -1;
  c->expanded = 0;
  if (t->astar != NULL) {
    c->ar = goap_plan(t->astar, s0, goal, t->aplan, PLAN_ROOM, &c->alen);
    c->expanded = goap_last_expanded(t->astar);
    if (c->ar == GOAP_FOUND && (c->status != SP_OK || c->alen != c->len))
      bad = 1;
    if (c->ar == GOAP_NO_PLAN && c->status == SP_OK) bad = 1;
  }
  if (bad && *budget > 0) {
    int i;
    (*budget)--;
    printf(
        "  MISMATCH on %s: saspu %s length %d, A* %s length %d; s0 =", t->label,
        sp_status_name(c->status), c->len, goap_result_name(c->ar), c->alen);
    for (i = 0; i < t->m; i++) printf(" %d", s0[i]);
    printf(", s* =");
    for (i = 0; i < t->m; i++) printf(" %d", goal[i]);
    printf("\n");
  }
  return bad;
}

double median_long(long *v, size_t n, double *scratch) {
  size_t i;
  for (i = 0; i < n; i++) scratch[i] = (double)v[i];
  return bu_stats(scratch, n).median;
}

/* The saspu columns of rows[0..n-1], with their header. */
void print_saspu_rows(const KindRow *rows, int n) {
  int i;
  printf("%-22s %-10s %7s %8s %8s %8s %9s %12s\n", "domain", "pairs", "count",
         "median", "p99", "stream", "mean len", "plans/s");
  for (i = 0; i < n; i++) {
    const KindRow *r = &rows[i];
    printf("%-22s %-10s %7zu %6.1fns %6.1fns %6.1fns %9.2f %12.0f\n", r->domain,
           r->kind, r->sp.n, r->sp.pair.median, r->sp.pair.p99, r->sp.stream_ns,
           r->mean_len, r->sp.plans_per_s);
  }
}

void row_init(KindRow *row, const char *domain, const char *kind,
              long mismatches, double mean_len) {
  memset(row, 0, sizeof *row);
  row->domain = domain;
  row->kind = kind;
  row->mismatches = mismatches;
  row->mean_len = mean_len;
}
