/* paper.c: bench_plan tables 1, 1b and 2: every pair of states of the paper domains, saspu and the A* baseline, total and partial goals. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"

/* ------------------------------------------------------------------ */
/* Tables 1 and 2: paper domains, every pair                          */
/* ------------------------------------------------------------------ */

/* Every ordered pair of distinct states of the domain, checked with both
 * planners, split into solvable and unsolvable, then timed. Fills
 * rows[0] (solvable) and rows[1] (unsolvable). */
void bench_paper_domain(const char *label, SpBuiltSpec *b, Out *out,
                        KindRow rows[2]) {
  Target t;
  long states = 1, i, j, k;
  SpValue *all;
  Pair *sets[2];
  long *expanded[2];
  size_t counts[2] = {0, 0}, kind;
  double len_sum = 0, *scratch;
  long mismatches = 0;
  int budget = 5, v;
  uint64_t rng = 0x5EED0001ull;

  for (v = 0; v < b->spec.variable_count; v++)
    states *= b->spec.variables[v].value_count;
  target_open(&t, label, &b->spec, 0, states);
  t.spec = b;
  all = malloc((size_t)states * (size_t)t.m);
  sets[0] = malloc((size_t)(states * states) * sizeof(Pair));
  sets[1] = malloc((size_t)(states * states) * sizeof(Pair));
  expanded[0] = malloc((size_t)(states * states) * sizeof(long));
  expanded[1] = malloc((size_t)(states * states) * sizeof(long));
  scratch = malloc((size_t)(states * states) * sizeof(double));
  if (all == NULL || sets[0] == NULL || sets[1] == NULL ||
      expanded[0] == NULL || expanded[1] == NULL || scratch == NULL)
    exit(1);
  /* mixed radix, v0 fastest */
  for (i = 0; i < states; i++) {
    long r = i;
    for (v = 0; v < t.m; v++) {
      int nv = b->spec.variables[v].value_count;
      all[i * t.m + v] = (SpValue)(r % nv);
      r /= nv;
    }
  }
  for (i = 0; i < states; i++)
    for (j = 0; j < states; j++) {
      Check c;
      const SpValue *s0 = all + i * t.m, *goal = all + j * t.m;
      if (i == j) continue; /* the empty plan is not a planning problem */
      mismatches += check_pair(&t, s0, goal, &c, &budget);
      kind = c.status == SP_OK ? 0 : 1;
      sets[kind][counts[kind]].s0 = s0;
      sets[kind][counts[kind]].goal = goal;
      expanded[kind][counts[kind]] = c.expanded;
      counts[kind]++;
      if (kind == 0) len_sum += c.len;
    }
  for (k = 0; k < 2; k++) {
    KindRow *row = &rows[k];
    row_init(row, label, k == 0 ? "solvable" : "unsolvable", mismatches,
             k == 0 && counts[0] > 0 ? len_sum / (double)counts[0] : 0);
    row->expanded_median = median_long(expanded[k], counts[k], scratch);
    shuffle_pairs(sets[k], counts[k], &rng);
    row->sp = measure(&t, SASPU, sets[k], counts[k], scratch);
    row->as = measure(&t, ASTAR, sets[k], counts[k], scratch);
    write_figures(out->cold, out->quantiles, label, row->kind, "saspu",
                  &row->sp, row->mean_len, 0, 0, mismatches);
    write_figures(out->cold, out->quantiles, label, row->kind, "astar",
                  &row->as, row->mean_len, row->expanded_median, 0, mismatches);
  }
  if (mismatches > 0)
    printf("  %s: %ld mismatches between saspu and A*\n", label, mismatches);
  free(all);
  free(sets[0]);
  free(sets[1]);
  free(expanded[0]);
  free(expanded[1]);
  free(scratch);
  target_close(&t);
}

void print_cold_tables(const KindRow *rows, int n) {
  int i;
  printf("\n(1) Cold planning, saspu, one core (no plan cache): every ordered "
         "pair of distinct states\n");
  printf("    median/p99: per pair, each pair repeated until ~2 us and "
         "averaged; stream: all pairs\n");
  printf("    of the row in shuffled order, mean ns per plan (what a game loop "
         "sees)\n\n");
  print_saspu_rows(rows, n);
  printf("\n(2) GOAP A* baseline on the same pairs (forward A*, unit costs, h "
         "= #variables off goal,\n");
  printf("    binary heap, hashed closed set, preallocated); ratio = A* time / "
         "saspu time\n\n");
  printf("%-22s %-10s %9s %9s %9s %8s %8s %8s %9s\n", "domain", "pairs",
         "median", "p99", "stream", "expanded", "ratio", "ratio", "length");
  printf("%-22s %-10s %9s %9s %9s %8s %8s %8s %9s\n", "", "", "", "", "",
         "(median)", "median", "stream", "mismatch");
  for (i = 0; i < n; i++) {
    const KindRow *r = &rows[i];
    printf("%-22s %-10s %7.1fns %7.1fns %7.1fns %8.0f %7.1fx %7.1fx %9ld\n",
           r->domain, r->kind, r->as.pair.median, r->as.pair.p99,
           r->as.stream_ns, r->expanded_median,
           r->as.pair.median / r->sp.pair.median,
           r->as.stream_ns / r->sp.stream_ns, r->mismatches);
  }
}

/* Table 1b: every ordered pair of the domain's states as (s0, goal),
 * each goal variable then left free (SP_ANY) with probability 1/2, at
 * least one free; checked (replays to a matching state) and timed like
 * table 1, saspu only (the A* baseline takes total goals). */
void bench_partial_domain(const char *label, SpBuiltSpec *b, KindRow rows[2]) {
  Target t;
  long states = 1, i, j, bad = 0;
  SpValue *all, *goals, state[SP_MAX_VARIABLES];
  Pair *sets[2];
  size_t counts[2] = {0, 0};
  double len_sum = 0, *scratch;
  uint64_t rng = 0x5EED0002ull;
  int v, k;
  for (v = 0; v < b->spec.variable_count; v++)
    states *= b->spec.variables[v].value_count;
  target_open(&t, label, &b->spec, 0, 0);
  t.spec = b;
  all = malloc((size_t)states * (size_t)t.m);
  goals = malloc((size_t)(states * states) * (size_t)t.m);
  sets[0] = malloc((size_t)(states * states) * sizeof(Pair));
  sets[1] = malloc((size_t)(states * states) * sizeof(Pair));
  scratch = malloc((size_t)(states * states) * sizeof(double));
  if (!all || !goals || !sets[0] || !sets[1] || !scratch) exit(1);
  for (i = 0; i < states; i++)
    for (v = 0, j = i; v < t.m; j /= b->spec.variables[v].value_count, v++)
      all[i * t.m + v] = (SpValue)(j % b->spec.variables[v].value_count);
  for (i = 0; i < states; i++)
    for (j = 0; j < states; j++) {
      SpValue *g = goals + (i * states + j) * t.m;
      int len = -1, kind, any = 0;
      memcpy(g, all + j * t.m, (size_t)t.m);
      for (v = 0; v < t.m; v++)
        if (bu_rng_below(&rng, 2)) g[v] = SP_ANY, any = 1;
      if (!any) g[bu_rng_below(&rng, t.m)] = SP_ANY;
      kind = sp_plan(t.d, t.ws, all + i * t.m, g, t.plan, &len, NULL) == SP_OK
                 ? 0
                 : 1;
      if (kind == 0) {
        memcpy(state, all + i * t.m, (size_t)t.m);
        bad += sp_plan_replay(t.d, state, t.plan, len) != -1;
        for (v = 0; v < t.m; v++) bad += g[v] != SP_ANY && g[v] != state[v];
        len_sum += len;
      }
      sets[kind][counts[kind]].s0 = all + i * t.m;
      sets[kind][counts[kind]++].goal = g;
    }
  for (k = 0; k < 2; k++) {
    KindRow *row = &rows[k];
    row_init(row, label, k == 0 ? "partial ok" : "partial no", bad,
             k == 0 && counts[0] > 0 ? len_sum / (double)counts[0] : 0);
    shuffle_pairs(sets[k], counts[k], &rng);
    row->sp = measure(&t, SASPU, sets[k], counts[k], scratch);
  }
  if (bad > 0)
    printf("  %s: %ld partial-goal plans do not reach their goal\n", label,
           bad);
  free(all);
  free(goals);
  free(sets[0]);
  free(sets[1]);
  free(scratch);
  target_close(&t);
}

void print_partial_table(const KindRow *rows, int n) {
  printf("\n(1b) Cold planning, saspu, partial goals: every ordered pair of "
         "states, each goal\n");
  printf("    variable free (SP_ANY) with probability 1/2, at least one; timed "
         "as in (1)\n\n");
  print_saspu_rows(rows, n);
}
