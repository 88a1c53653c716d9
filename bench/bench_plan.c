/* bench_plan.c: one-core planning benchmark: saspu against a GOAP A* baseline on the paper domains, the synthetic families, a Western-size random domain, and memory. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "goap_astar.h"
#include "saspu.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

/* Per-pair timing repeats one pair until a batch lasts about this long,
 * so the two clock reads around it cost ~1% of the figure. */
#define PAIR_BATCH_NS 2000.0
/* Mixed-stream timing replays the shuffled pairs for at least this long. */
#define STREAM_NS 40e6
/* One timed point of a complexity curve: batches of about this long. */
#define CURVE_BATCH_NS 1e6
/* A* on a curve point is repeated only while one run is shorter. */
#define ASTAR_REPEAT_BELOW_NS 50e6
/* Room for A* plans (they may repeat actions outside the classes). */
#define PLAN_ROOM 65536

static double clock_ns; /* cost of one clock read, subtracted per batch */

/* ------------------------------------------------------------------ */
/* A domain under test                                                */
/* ------------------------------------------------------------------ */

typedef struct Target {
  const char *label;
  SpBuiltSpec *spec; /* NULL when the caller owns the description */
  SpDomain *d;
  SpWorkspace *ws;
  GoapPlanner *astar;
  long astar_cap;
  int m;
  uint16_t *plan;  /* sp_plan output: action_count entries */
  uint16_t *aplan; /* A* output: PLAN_ROOM entries */
} Target;

/* Compiles `spec` and builds the saspu workspace and the A* planner with
 * `cap` nodes (cap 0: no A* planner). Exits on failure: a benchmark that
 * cannot build its domains has nothing to measure. */
static void target_open(Target *t, const char *label, const SpDomainSpec *spec,
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
  t->plan = malloc(((size_t)sp_domain_action_count(t->d) + 1) * sizeof *t->plan);
  t->aplan = malloc(PLAN_ROOM * sizeof *t->aplan);
  if (t->plan == NULL || t->aplan == NULL) exit(1);
}

static void target_close(Target *t) {
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

typedef enum Planner { SASPU = 0, ASTAR = 1 } Planner;

typedef struct Pair {
  const SpValue *s0, *goal;
} Pair;

typedef double (*Clock)(void);

/* Plans pairs[0..n-1], each `reps` times in a row; returns the ns that
 * `clock` saw elapse. The loops are written out per planner so neither
 * pays for a call through a pointer. */
static double run_pairs(Target *t, Planner which, const Pair *pairs, size_t n, long reps,
                        Clock clock) {
  uint64_t acc = 0;
  double t0 = clock(), t1;
  size_t i;
  long r;
  if (which == SASPU) {
    for (i = 0; i < n; i++)
      for (r = 0; r < reps; r++) {
        int len = 0;
        SpStatus s = sp_plan(t->d, t->ws, pairs[i].s0, pairs[i].goal, t->plan, &len, NULL);
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

/* One planner's figures over one set of pairs. */
typedef struct Figures {
  size_t n;
  BuStats pair;      /* ns per plan, one value per pair */
  double stream_ns;  /* mean ns per plan over the shuffled stream */
  double plans_per_s;
  long reps;
  double q[101];     /* per-pair quantiles 0..100 % */
} Figures;

/* Per pair: repeat it until a batch lasts ~PAIR_BATCH_NS, keep the
 * faster of two such batches (wall clock), subtract one clock read,
 * divide. Stream: replay all pairs in their (shuffled) order for
 * ~STREAM_NS of thread CPU time (at least once), which is what a game
 * loop sees: every plan differs from the previous one. `scratch` holds
 * n doubles. */
static Figures measure(Target *t, Planner which, const Pair *pairs, size_t n,
                       double *scratch) {
  Figures f;
  double est, total = 0;
  long plans = 0;
  size_t i;
  int k;
  memset(&f, 0, sizeof f);
  f.n = n;
  if (n == 0) return f;
  est = run_pairs(t, which, pairs, n, 1, bu_now_ns) / (double)n; /* also warms caches */
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

static void shuffle_pairs(Pair *p, size_t n, uint64_t *rng) {
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

typedef struct Out {
  const char *dir;
  FILE *cold, *quantiles, *curves, *western, *memory;
} Out;

static void write_figures(FILE *csv, FILE *quantiles, const char *domain,
                          const char *kind, const char *planner, const Figures *f,
                          double mean_len, double expanded_median, long capped,
                          long mismatches) {
  int k;
  if (csv != NULL)
    fprintf(csv, "%s,%s,%s,%zu,%.1f,%.1f,%.1f,%.0f,%.2f,%.0f,%ld,%ld\n", domain, kind,
            planner, f->n, f->pair.median, f->pair.p99, f->stream_ns, f->plans_per_s,
            mean_len, expanded_median, capped, mismatches);
  if (quantiles != NULL && f->n > 0)
    for (k = 0; k <= 100; k++)
      fprintf(quantiles, "%s,%s,%s,%d,%.1f\n", domain, kind, planner, k, f->q[k]);
}

/* ------------------------------------------------------------------ */
/* Checking both planners on one pair                                 */
/* ------------------------------------------------------------------ */

typedef struct Check {
  SpStatus status;
  int len;
  GoapResult ar;
  int alen;
  long expanded;
} Check;

/* Plans the pair with both planners once. A mismatch (saspu's plan does
 * not replay, or the two disagree on solvability or length while A* was
 * not capped) is printed, at most `*budget` times; returns 1 if any. */
static int check_pair(Target *t, const SpValue *s0, const SpValue *goal, Check *c,
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
    if (c->ar == GOAP_FOUND && (c->status != SP_OK || c->alen != c->len)) bad = 1;
    if (c->ar == GOAP_NO_PLAN && c->status == SP_OK) bad = 1;
  }
  if (bad && *budget > 0) {
    int i;
    (*budget)--;
    printf("  MISMATCH on %s: saspu %s length %d, A* %s length %d; s0 =", t->label,
           sp_status_name(c->status), c->len, goap_result_name(c->ar), c->alen);
    for (i = 0; i < t->m; i++) printf(" %d", s0[i]);
    printf(", s* =");
    for (i = 0; i < t->m; i++) printf(" %d", goal[i]);
    printf("\n");
  }
  return bad;
}

/* ------------------------------------------------------------------ */
/* Tables 1 and 2: paper domains, every pair                          */
/* ------------------------------------------------------------------ */

/* What both tables print for one kind (solvable or unsolvable) of one
 * domain; gathered first, printed as two tables afterwards. */
typedef struct KindRow {
  const char *domain, *kind;
  Figures sp, as;
  double mean_len, expanded_median;
  long capped, mismatches;
} KindRow;

static void row_init(KindRow *row, const char *domain, const char *kind, long mismatches,
                     double mean_len) {
  memset(row, 0, sizeof *row);
  row->domain = domain;
  row->kind = kind;
  row->mismatches = mismatches;
  row->mean_len = mean_len;
}

static double median_long(long *v, size_t n, double *scratch) {
  size_t i;
  for (i = 0; i < n; i++) scratch[i] = (double)v[i];
  return bu_stats(scratch, n).median;
}

/* Every ordered pair of distinct states of the domain, checked with both
 * planners, split into solvable and unsolvable, then timed. Fills
 * rows[0] (solvable) and rows[1] (unsolvable). */
static void bench_paper_domain(const char *label, SpBuiltSpec *b, Out *out,
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

  for (v = 0; v < b->spec.variable_count; v++) states *= b->spec.variables[v].value_count;
  target_open(&t, label, &b->spec, 0, states);
  t.spec = b;
  all = malloc((size_t)states * (size_t)t.m);
  sets[0] = malloc((size_t)(states * states) * sizeof(Pair));
  sets[1] = malloc((size_t)(states * states) * sizeof(Pair));
  expanded[0] = malloc((size_t)(states * states) * sizeof(long));
  expanded[1] = malloc((size_t)(states * states) * sizeof(long));
  scratch = malloc((size_t)(states * states) * sizeof(double));
  if (all == NULL || sets[0] == NULL || sets[1] == NULL || expanded[0] == NULL ||
      expanded[1] == NULL || scratch == NULL)
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
    write_figures(out->cold, out->quantiles, label, row->kind, "saspu", &row->sp,
                  row->mean_len, 0, 0, mismatches);
    write_figures(out->cold, out->quantiles, label, row->kind, "astar", &row->as,
                  row->mean_len, row->expanded_median, 0, mismatches);
  }
  if (mismatches > 0) printf("  %s: %ld mismatches between saspu and A*\n", label, mismatches);
  free(all);
  free(sets[0]);
  free(sets[1]);
  free(expanded[0]);
  free(expanded[1]);
  free(scratch);
  target_close(&t);
}

/* The saspu columns of rows[0..n-1], with their header. */
static void print_saspu_rows(const KindRow *rows, int n) {
  int i;
  printf("%-22s %-10s %7s %8s %8s %8s %9s %12s\n", "domain", "pairs", "count", "median",
         "p99", "stream", "mean len", "plans/s");
  for (i = 0; i < n; i++) {
    const KindRow *r = &rows[i];
    printf("%-22s %-10s %7zu %6.1fns %6.1fns %6.1fns %9.2f %12.0f\n", r->domain, r->kind,
           r->sp.n, r->sp.pair.median, r->sp.pair.p99, r->sp.stream_ns, r->mean_len,
           r->sp.plans_per_s);
  }
}

static void print_cold_tables(const KindRow *rows, int n) {
  int i;
  printf("\n(1) Cold planning, saspu, one core (no plan cache): every ordered pair of distinct states\n");
  printf("    median/p99: per pair, each pair repeated until ~2 us and averaged; stream: all pairs\n");
  printf("    of the row in shuffled order, mean ns per plan (what a game loop sees)\n\n");
  print_saspu_rows(rows, n);
  printf("\n(2) GOAP A* baseline on the same pairs (forward A*, unit costs, h = #variables off goal,\n");
  printf("    binary heap, hashed closed set, preallocated); ratio = A* time / saspu time\n\n");
  printf("%-22s %-10s %9s %9s %9s %8s %8s %8s %9s\n", "domain", "pairs", "median", "p99",
         "stream", "expanded", "ratio", "ratio", "length");
  printf("%-22s %-10s %9s %9s %9s %8s %8s %8s %9s\n", "", "", "", "", "", "(median)",
         "median", "stream", "mismatch");
  for (i = 0; i < n; i++) {
    const KindRow *r = &rows[i];
    printf("%-22s %-10s %7.1fns %7.1fns %7.1fns %8.0f %7.1fx %7.1fx %9ld\n", r->domain,
           r->kind, r->as.pair.median, r->as.pair.p99, r->as.stream_ns, r->expanded_median,
           r->as.pair.median / r->sp.pair.median, r->as.stream_ns / r->sp.stream_ns,
           r->mismatches);
  }
}

/* Table 1b: every ordered pair of the domain's states as (s0, goal),
 * each goal variable then left free (SP_ANY) with probability 1/2, at
 * least one free; checked (replays to a matching state) and timed like
 * table 1, saspu only (the A* baseline takes total goals). */
static void bench_partial_domain(const char *label, SpBuiltSpec *b, KindRow rows[2]) {
  Target t;
  long states = 1, i, j, bad = 0;
  SpValue *all, *goals, state[SP_MAX_VARIABLES];
  Pair *sets[2];
  size_t counts[2] = {0, 0};
  double len_sum = 0, *scratch;
  uint64_t rng = 0x5EED0002ull;
  int v, k;
  for (v = 0; v < b->spec.variable_count; v++) states *= b->spec.variables[v].value_count;
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
      kind = sp_plan(t.d, t.ws, all + i * t.m, g, t.plan, &len, NULL) == SP_OK ? 0 : 1;
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
  if (bad > 0) printf("  %s: %ld partial-goal plans do not reach their goal\n", label, bad);
  free(all);
  free(goals);
  free(sets[0]);
  free(sets[1]);
  free(scratch);
  target_close(&t);
}

static void print_partial_table(const KindRow *rows, int n) {
  printf("\n(1b) Cold planning, saspu, partial goals: every ordered pair of states, each goal\n");
  printf("    variable free (SP_ANY) with probability 1/2, at least one; timed as in (1)\n\n");
  print_saspu_rows(rows, n);
}

/* ------------------------------------------------------------------ */
/* Table 3: complexity curves                                         */
/* ------------------------------------------------------------------ */

typedef enum Family { MULTIPRV_N, MULTIPRV_2, ONEPRV_5 } Family;

typedef struct CurvePoint {
  double x, saspu_ns, astar_ns;
  int actions, len, alen;
  GoapResult ar;
  long expanded, stored;
  int astar_run;
} CurvePoint;

/* Median of 5 batches of ~CURVE_BATCH_NS of thread CPU time each. */
static double time_one(Target *t, Planner which, const Pair *p, double first_ns) {
  double v[5];
  long reps = (long)ceil(CURVE_BATCH_NS / (first_ns > 1 ? first_ns : 1));
  int k;
  if (reps < 1) reps = 1;
  for (k = 0; k < 5; k++) v[k] = run_pairs(t, which, p, 1, reps, bu_cpu_ns) / (double)reps;
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
static void bench_curve(Family fam, const char *name, const char *xname, int fixed_m,
                        const int *sizes, int n_sizes, int probe, long cap, Out *out) {
  CurvePoint *pts = calloc((size_t)n_sizes, sizeof *pts);
  double *xs = malloc((size_t)n_sizes * sizeof *xs), *ys = malloc((size_t)n_sizes * sizeof *ys);
  double c[3];
  int i, astar_on = 1, budget = 3;
  if (pts == NULL || xs == NULL || ys == NULL) exit(1);
  printf("\n%s\n", name);
  if (fam == MULTIPRV_N) printf("    time vs n at m = %d\n", fixed_m);
  printf("%6s %7s %6s %11s %13s %11s %10s %9s\n", xname, "actions", "length", "saspu",
         "A*", "A* expanded", "A* length", "ratio");
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
        printf("  (A* planner does not fit in memory at %s = %d)\n", xname, sizes[i]);
        astar_on = 0;
      }
    }
    if (t.astar != NULL) {
      pt->astar_run = 1;
      t0 = bu_cpu_ns();
      check_pair(&t, p.s0, p.goal, &chk, &budget);
      first = bu_cpu_ns() - t0 - pt->saspu_ns; /* check_pair ran saspu once too */
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
      printf("%6d %7d %6d %9.0fns %13s %11s %10s %9s\n", sizes[i], pt->actions, pt->len,
             pt->saspu_ns, "skipped", "-", "-", "-");
    } else if (pt->ar == GOAP_CAPPED) {
      printf("%6d %7d %6d %9.0fns %10.0fns+ %11ld %10s >%7.0fx (A* stopped at %ld states)\n",
             sizes[i], pt->actions, pt->len, pt->saspu_ns, pt->astar_ns, pt->expanded,
             "capped", pt->astar_ns / pt->saspu_ns, pt->stored);
    } else {
      printf("%6d %7d %6d %9.0fns %11.0fns %11ld %10d %8.1fx\n", sizes[i], pt->actions,
             pt->len, pt->saspu_ns, pt->astar_ns, pt->expanded, pt->alen,
             pt->astar_ns / pt->saspu_ns);
    }
    if (out->curves != NULL)
      fprintf(out->curves, "%s,%d,%d,%d,%d,%.1f,%s,%.1f,%ld,%d,%.2f\n", name, sizes[i],
              fam == MULTIPRV_N ? fixed_m : sizes[i], pt->actions, pt->len, pt->saspu_ns,
              pt->astar_run ? goap_result_name(pt->ar) : "skipped",
              pt->astar_run ? pt->astar_ns : 0.0, pt->expanded, pt->alen,
              pt->astar_run ? pt->astar_ns / pt->saspu_ns : 0.0);
    xs[i] = pt->x;
    ys[i] = pt->saspu_ns;
    target_close(&t);
  }
  {
    double r1 = bu_fit_poly(xs, ys, (size_t)n_sizes, 1, c);
    printf("    saspu fit: ns = %.1f + %.2f %s (R^2 = %.4f)", c[0], c[1], xname, r1);
    if (fam == MULTIPRV_2) {
      double r2 = bu_fit_poly(xs, ys, (size_t)n_sizes, 2, c);
      printf("; quadratic: ns = %.1f + %.2f m + %.3f m^2 (R^2 = %.4f)", c[0], c[1], c[2], r2);
    }
    printf("\n");
  }
  free(pts);
  free(xs);
  free(ys);
}

/* ------------------------------------------------------------------ */
/* Table 4: a Western-size random domain inside the classes           */
/* ------------------------------------------------------------------ */

#define WEST_VARS 30
#define WEST_ACTIONS 56
#define WEST_MAX_PRV 3

/* One generated domain; spec points into the struct (do not copy). */
typedef struct Western {
  SpDomainSpec spec;
  SpVariableSpec vars[WEST_VARS];
  SpActionSpec acts[WEST_ACTIONS];
  SpCondition prv[WEST_ACTIONS][WEST_MAX_PRV];
  char var_names[WEST_VARS][8];
  char act_names[WEST_ACTIONS][16];
  int toggle[WEST_VARS]; /* 1: a two-valued variable with both actions */
  uint64_t seed;
} Western;

static const char *const west_values[5] = {"0", "1", "2", "3", "4"};

/* Shape close to the papers' Western cast: 30 variables (20 of 2 values,
 * 6 of 3, 2 of 4, 2 of 5: the largest domain has 5 values), each a tree
 * of one-way steps rooted at value 0, plus 10 of the two-valued ones made
 * toggles (both directions), which gives exactly 56 actions. Each action
 * gets 0-3 prevails on other variables (30/40/20/10 %); a prevail on a
 * toggle asks for its value 1 four times in five, so most toggles have a
 * single requestable action, and the class filter (compile without
 * allow_outside) decides the rest. */
static void western_generate(Western *w, uint64_t seed) {
  int counts[WEST_VARS], i, k = 0, a;
  uint64_t rng = seed;
  memset(w, 0, sizeof *w);
  w->seed = seed;
  for (i = 0; i < WEST_VARS; i++) counts[i] = i < 20 ? 2 : i < 26 ? 3 : i < 28 ? 4 : 5;
  for (i = WEST_VARS; i > 1; i--) {
    int j = bu_rng_below(&rng, i), tmp = counts[i - 1];
    counts[i - 1] = counts[j];
    counts[j] = tmp;
  }
  {
    int toggles = 0;
    while (toggles < 10) {
      int v = bu_rng_below(&rng, WEST_VARS);
      if (counts[v] == 2 && !w->toggle[v]) {
        w->toggle[v] = 1;
        toggles++;
      }
    }
  }
  for (i = 0; i < WEST_VARS; i++) {
    int p;
    snprintf(w->var_names[i], sizeof w->var_names[i], "v%d", i);
    w->vars[i].name = w->var_names[i];
    w->vars[i].value_count = counts[i];
    w->vars[i].value_names = west_values;
    for (p = 1; p < counts[i]; p++) {
      w->acts[k].variable = i;
      w->acts[k].pre = bu_rng_below(&rng, p);
      w->acts[k].post = p;
      k++;
    }
    if (w->toggle[i]) {
      w->acts[k].variable = i;
      w->acts[k].pre = 1;
      w->acts[k].post = 0;
      k++;
    }
  }
  for (a = 0; a < k; a++) {
    SpActionSpec *act = &w->acts[a];
    int r = bu_rng_below(&rng, 100), n = r < 30 ? 0 : r < 70 ? 1 : r < 90 ? 2 : 3, c = 0;
    snprintf(w->act_names[a], sizeof w->act_names[a], "a%d_v%d", act->post, act->variable);
    act->name = w->act_names[a];
    while (c < n) {
      int v = bu_rng_below(&rng, WEST_VARS), dup = 0, q;
      for (q = 0; q < c; q++) dup |= w->prv[a][q].variable == v;
      if (v == act->variable || dup) continue;
      w->prv[a][c].variable = v;
      w->prv[a][c].value = w->toggle[v] ? (bu_rng_below(&rng, 5) < 4 ? 1 : 0)
                                        : bu_rng_below(&rng, counts[v]);
      c++;
    }
    act->prevail_count = n;
    act->prevails = n > 0 ? w->prv[a] : NULL;
  }
  w->spec.name = "western_random";
  w->spec.variable_count = WEST_VARS;
  w->spec.variables = w->vars;
  w->spec.action_count = k;
  w->spec.actions = w->acts;
}

static int applicable(const SpDomain *d, int a, const SpValue *s) {
  int k, n = sp_action_prevail_count(d, a);
  if (s[sp_action_variable(d, a)] != sp_action_pre(d, a)) return 0;
  for (k = 0; k < n; k++) {
    SpCondition c = sp_action_prevail(d, a, k);
    if (s[c.variable] != c.value) return 0;
  }
  return 1;
}

/* Solvable pairs: a random start, then a walk of 1-12 random applicable
 * actions gives the goal; kept when saspu's plan has 1-10 actions (the
 * papers' range). Unsolvable pairs: a random start and a goal that
 * changes 1-4 variables at random, kept when saspu finds no plan. */
static void bench_western(Out *out, long cap, KindRow rows[2], size_t want_solvable,
                          size_t want_unsolvable) {
  Western *w = malloc(sizeof *w);
  Target t;
  SpValue *states;
  Pair *sets[2];
  long *expanded[2];
  size_t counts[2] = {0, 0}, wants[2], k, total = want_solvable + want_unsolvable;
  double len_sum = 0, *scratch;
  long mismatches = 0, capped[2] = {0, 0}, attempts = 0, tries = 0;
  int budget = 5, minlen = 99, maxlen = 0;
  uint64_t seed = 0x3E57E12Aull, rng;
  char explain[256];
  if (w == NULL) exit(1);
  for (;;) {
    SpDomain *d = NULL;
    SpError err;
    tries++;
    western_generate(w, seed);
    if (sp_domain_compile(&w->spec, NULL, plain, &d, &err) == SP_OK) {
      sp_domain_free(d);
      break;
    }
    seed++;
  }
  target_open(&t, "western_random", &w->spec, 0, cap);
  sp_domain_explain(t.d, explain, sizeof explain);
  explain[strcspn(explain, "\n")] = '\0';
  printf("\n(4) Western-size random domain: seed %#llx (%ld generated to pass the class filter),\n",
         (unsigned long long)w->seed, tries);
  printf("    %d variables, %d actions, at most 5 values, class %s; A* node cap %ld\n", t.m,
         sp_domain_action_count(t.d), sp_class_name(sp_domain_class(t.d)), cap);
  wants[0] = want_solvable;
  wants[1] = want_unsolvable;
  states = malloc(2 * total * (size_t)t.m);
  sets[0] = malloc(total * sizeof(Pair));
  sets[1] = malloc(total * sizeof(Pair));
  expanded[0] = malloc(total * sizeof(long));
  expanded[1] = malloc(total * sizeof(long));
  scratch = malloc(total * sizeof(double));
  if (states == NULL || sets[0] == NULL || sets[1] == NULL || expanded[0] == NULL ||
      expanded[1] == NULL || scratch == NULL)
    exit(1);
  rng = seed ^ 0xA5A5A5A5ull;
  while ((counts[0] < wants[0] || counts[1] < wants[1]) && attempts < 1000000) {
    size_t used = counts[0] + counts[1], kind;
    SpValue *s0 = states + 2 * used * (size_t)t.m, *goal = s0 + t.m;
    int v, steps, want_kind = counts[0] < wants[0] ? (counts[1] < wants[1] ? (int)(attempts & 1) : 0) : 1;
    Check c;
    attempts++;
    for (v = 0; v < t.m; v++) s0[v] = (SpValue)bu_rng_below(&rng, sp_variable_value_count(t.d, v));
    memcpy(goal, s0, (size_t)t.m);
    if (want_kind == 0) {
      for (steps = 1 + bu_rng_below(&rng, 12); steps > 0; steps--) {
        int list[WEST_ACTIONS], n = 0, a;
        for (a = 0; a < sp_domain_action_count(t.d); a++)
          if (applicable(t.d, a, goal)) list[n++] = a;
        if (n == 0) break;
        a = list[bu_rng_below(&rng, n)];
        goal[sp_action_variable(t.d, a)] = (SpValue)sp_action_post(t.d, a);
      }
    } else {
      for (steps = 1 + bu_rng_below(&rng, 4); steps > 0; steps--) {
        v = bu_rng_below(&rng, t.m);
        goal[v] = (SpValue)bu_rng_below(&rng, sp_variable_value_count(t.d, v));
      }
    }
    {
      int len = -1;
      SpStatus s = sp_plan(t.d, t.ws, s0, goal, t.plan, &len, NULL);
      if (want_kind == 0 && s != SP_OK) {
        /* the walk proves the goal reachable: saspu must find a plan */
        mismatches++;
        if (budget-- > 0) printf("  MISMATCH: saspu finds no plan for a goal reached by a walk\n");
        continue;
      }
      if (want_kind == 0 && (len < 1 || len > 10)) continue;
      if (want_kind == 1 && s == SP_OK) continue;
    }
    mismatches += check_pair(&t, s0, goal, &c, &budget);
    kind = c.status == SP_OK ? 0 : 1;
    if (c.ar == GOAP_CAPPED) capped[kind]++;
    sets[kind][counts[kind]].s0 = s0;
    sets[kind][counts[kind]].goal = goal;
    expanded[kind][counts[kind]] = c.expanded;
    counts[kind]++;
    if (kind == 0) {
      len_sum += c.len;
      if (c.len < minlen) minlen = c.len;
      if (c.len > maxlen) maxlen = c.len;
    }
  }
  printf("    %zu solvable pairs (plans of %d to %d actions, mean %.2f), %zu unsolvable pairs\n",
         counts[0], minlen, maxlen, counts[0] ? len_sum / (double)counts[0] : 0.0, counts[1]);
  for (k = 0; k < 2; k++) {
    KindRow *row = &rows[k];
    memset(row, 0, sizeof *row);
    row->domain = "western_random";
    row->kind = k == 0 ? "solvable" : "unsolvable";
    row->mismatches = mismatches;
    row->capped = capped[k];
    row->mean_len = k == 0 && counts[0] ? len_sum / (double)counts[0] : 0;
    row->expanded_median = median_long(expanded[k], counts[k], scratch);
    row->sp = measure(&t, SASPU, sets[k], counts[k], scratch);
    row->as = measure(&t, ASTAR, sets[k], counts[k], scratch);
    write_figures(out->western, out->quantiles, "western_random", row->kind, "saspu",
                  &row->sp, row->mean_len, 0, 0, mismatches);
    write_figures(out->western, out->quantiles, "western_random", row->kind, "astar",
                  &row->as, row->mean_len, row->expanded_median, capped[k], mismatches);
  }
  printf("\n%-10s %6s %9s %9s %9s %10s %9s %9s %9s %8s %7s\n", "pairs", "count", "saspu",
         "saspu", "saspu", "A*", "A*", "A*", "ratio", "ratio", "A*");
  printf("%-10s %6s %9s %9s %9s %10s %9s %9s %9s %8s %7s\n", "", "", "median", "p99",
         "stream", "median", "p99", "stream", "median", "stream", "capped");
  for (k = 0; k < 2; k++) {
    const KindRow *r = &rows[k];
    printf("%-10s %6zu %7.1fns %7.1fns %7.1fns %8.0fns %7.0fns %7.0fns %8.0fx %7.0fx %7ld\n",
           r->kind, r->sp.n, r->sp.pair.median, r->sp.pair.p99, r->sp.stream_ns,
           r->as.pair.median, r->as.pair.p99, r->as.stream_ns,
           r->as.pair.median / r->sp.pair.median, r->as.stream_ns / r->sp.stream_ns,
           r->capped);
  }
  if (capped[1] > 0)
    printf("    (a capped A* run stops at %ld stored states: its time is a lower bound)\n", cap);
  if (mismatches > 0) printf("    %ld mismatches between saspu and A*\n", mismatches);
  free(states);
  free(sets[0]);
  free(sets[1]);
  free(expanded[0]);
  free(expanded[1]);
  free(scratch);
  target_close(&t);
  free(w);
}

/* ------------------------------------------------------------------ */
/* Table 5: memory                                                    */
/* ------------------------------------------------------------------ */

static void memory_row(Out *out, const char *label, const SpDomainSpec *spec,
                       int allow_outside, long cap) {
  Target t;
  target_open(&t, label, spec, allow_outside, cap);
  printf("%-24s %5d %7d %-10s %10zu %10zu %12zu\n", label, t.m, sp_domain_action_count(t.d),
         sp_class_name(sp_domain_class(t.d)), sp_domain_size_bytes(t.d),
         sp_workspace_size_bytes(t.ws), goap_planner_size_bytes(t.astar));
  if (out->memory != NULL)
    fprintf(out->memory, "%s,%d,%d,%s,%zu,%zu,%zu,%ld\n", label, t.m,
            sp_domain_action_count(t.d), sp_class_name(sp_domain_class(t.d)),
            sp_domain_size_bytes(t.d), sp_workspace_size_bytes(t.ws),
            goap_planner_size_bytes(t.astar), cap);
  target_close(&t);
}

static void memory_builtin(Out *out, SpBuiltSpec *b, long cap) {
  if (b == NULL) exit(1);
  memory_row(out, b->spec.name, &b->spec, b->needs_allow_outside, cap);
  sp_builtin_free(b);
}

static void bench_memory(Out *out) {
  Western *w = malloc(sizeof *w);
  uint64_t seed = 0x3E57E12Aull;
  if (w == NULL) exit(1);
  printf("\n(5) Memory: compiled domain and planning workspace (saspu), A* planner storage\n");
  printf("    (A* at the node cap the tables above use)\n\n");
  printf("%-24s %5s %7s %-10s %10s %10s %12s\n", "domain", "vars", "actions", "class",
         "domain B", "workspace B", "A* B");
  memory_builtin(out, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI), 18);
  memory_builtin(out, sp_builtin_horse_breeder(plain, SP_HORSE_IJCAI), 18);
  memory_builtin(out, sp_builtin_citizen(plain), 288);
  memory_builtin(out, sp_builtin_acquisition_machine(plain), 256);
  for (;;) {
    SpDomain *d = NULL;
    SpError err;
    western_generate(w, seed);
    if (sp_domain_compile(&w->spec, NULL, plain, &d, &err) == SP_OK) {
      sp_domain_free(d);
      break;
    }
    seed++;
  }
  memory_row(out, "western_random", &w->spec, 0, 1L << 16);
  memory_builtin(out, sp_builtin_multiprv_2_cycle(plain, 12), GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_multiprv_2_cycle(plain, 128), GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_oneprv_5(plain, 20), GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_oneprv_5(plain, 512), GOAP_DEFAULT_NODE_CAP);
  memory_builtin(out, sp_builtin_multiprv_n_cycle(plain, 4, 64), GOAP_DEFAULT_NODE_CAP);
  free(w);
}

/* ------------------------------------------------------------------ */
/* Driver                                                             */
/* ------------------------------------------------------------------ */

static void usage(void) {
  printf("usage: bench_plan [--out DIR] [--no-plot] [--quick]\n"
         "  --out DIR   where the CSV files and PNG plots go (default: bench/out next to\n"
         "              this source file)\n"
         "  --no-plot   do not run gnuplot\n"
         "  --quick     smaller curves and Western sample (a smoke run, a few seconds)\n");
}

/* The directory of this source file, from __FILE__ (absolute in CMake
 * builds), so the defaults work from any working directory. */
static void source_dir(char *buf, size_t size) {
  const char *slash = strrchr(__FILE__, '/');
  if (slash == NULL) snprintf(buf, size, ".");
  else snprintf(buf, size, "%.*s", (int)(slash - __FILE__), __FILE__);
}

static void run_plots(const char *dir, const char *src) {
  char cmd[8192];
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    printf("\ngnuplot not found: no PNG plots (apt-get install gnuplot-nox, then rerun)\n");
    return;
  }
  snprintf(cmd, sizeof cmd, "gnuplot -e \"dir='%s'\" '%s/plot_plan.gp'", dir, src);
  if (system(cmd) != 0) printf("\ngnuplot failed: %s\n", cmd);
  else printf("\nplots: %s/cold.png %s/curves.png %s/curves_vs_astar.png\n", dir, dir, dir);
}

int main(int argc, char **argv) {
  static const int n_sizes_full[] = {2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 224, 255};
  static const int m2_sizes_full[] = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,
                                      32, 48, 64, 96, 128, 192, 256};
  static const int m5_sizes_full[] = {2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48,
                                      64, 96, 128, 192, 256, 384, 512};
  static const int n_sizes_quick[] = {2, 4, 8, 16, 32};
  static const int m2_sizes_quick[] = {2, 4, 8, 12, 16};
  static const int m5_sizes_quick[] = {2, 4, 8, 20, 64};
  char src[2048], dir[4096], model[256], stamp[64];
  const char *out_dir = NULL;
  int plot = 1, quick = 0, i;
  Out out;
  KindRow rows[6], west[2];
  time_t now = time(NULL);
  double t_start = bu_now_ns(), load0[3], load1[3];

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_dir = argv[++i];
    else if (strcmp(argv[i], "--no-plot") == 0) plot = 0;
    else if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else {
      usage();
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  source_dir(src, sizeof src);
  if (out_dir == NULL) snprintf(dir, sizeof dir, "%s/out", src);
  else snprintf(dir, sizeof dir, "%s", out_dir);

  memset(&out, 0, sizeof out);
  out.dir = dir;
  out.cold = bu_csv_open(dir, "cold.csv",
                         "domain,pairs,planner,count,median_ns,p99_ns,stream_ns,plans_per_s,"
                         "mean_len,expanded_median,capped,mismatches");
  out.quantiles = bu_csv_open(dir, "cold_quantiles.csv", "domain,pairs,planner,percent,ns");
  out.curves = bu_csv_open(dir, "curves.csv",
                           "family,x,m,actions,plan_len,saspu_ns,astar_status,astar_ns,"
                           "astar_expanded,astar_len,ratio");
  out.western = bu_csv_open(dir, "western.csv",
                            "domain,pairs,planner,count,median_ns,p99_ns,stream_ns,plans_per_s,"
                            "mean_len,expanded_median,capped,mismatches");
  out.memory = bu_csv_open(dir, "memory.csv",
                           "domain,variables,actions,class,domain_bytes,workspace_bytes,"
                           "astar_bytes,astar_cap");

  bu_cpu_model(model, sizeof model);
  strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", localtime(&now));
  clock_ns = bu_clock_overhead_ns();
  printf("saspu planning benchmark (%s)\n", stamp);
  bu_load_average(load0);
  printf("cpu: %s, %d cores online; one core used\n", model, bu_core_count());
  printf("load average at start: %.2f %.2f %.2f%s\n", load0[0], load0[1], load0[2],
         load0[0] > 0.5 * bu_core_count() ? " (other jobs are running: expect noise)" : "");
  printf("compiler: %s%s; clock read %.1f ns\n", __VERSION__,
#if defined(__OPTIMIZE__)
         ", optimised",
#else
         ", NOT optimised (numbers are meaningless)",
#endif
         clock_ns);
  {
    FILE *m = bu_csv_open(dir, "machine.csv", "cpu,cores,date,clock_ns,load1");
    if (m != NULL) {
      fprintf(m, "\"%s\",%d,%s,%.1f,%.2f\n", model, bu_core_count(), stamp, clock_ns,
              load0[0]);
      fclose(m);
    }
  }

  bench_paper_domain("horse_breeder_ssci", sp_builtin_horse_breeder(plain, SP_HORSE_SSCI),
                     &out, rows + 0);
  bench_paper_domain("citizen", sp_builtin_citizen(plain), &out, rows + 2);
  bench_paper_domain("acquisition_machine", sp_builtin_acquisition_machine(plain), &out,
                     rows + 4);
  print_cold_tables(rows, 6);
  bench_partial_domain("horse_breeder_ssci", sp_builtin_horse_breeder(plain, SP_HORSE_SSCI),
                       rows + 0);
  bench_partial_domain("citizen", sp_builtin_citizen(plain), rows + 2);
  bench_partial_domain("acquisition_machine", sp_builtin_acquisition_machine(plain), rows + 4);
  print_partial_table(rows, 6);

  printf("\n(3) Complexity curves: one instance per size (the CNIA start and goal), saspu vs A*;\n");
  printf("    ratio = A* / saspu; A* stops at %ld stored states and is skipped above that size\n",
         (long)GOAP_DEFAULT_NODE_CAP);
  if (quick) {
    bench_curve(MULTIPRV_N, "multiprv_n_cycle", "n", 4, n_sizes_quick, 5, 0,
                GOAP_DEFAULT_NODE_CAP, &out);
    bench_curve(MULTIPRV_2, "multiprv_2_cycle", "m", 0, m2_sizes_quick, 5, 0,
                GOAP_DEFAULT_NODE_CAP, &out);
    bench_curve(ONEPRV_5, "oneprv_5", "m", 0, m5_sizes_quick, 5, 20, GOAP_DEFAULT_NODE_CAP,
                &out);
  } else {
    bench_curve(MULTIPRV_N, "multiprv_n_cycle", "n", 4, n_sizes_full,
                (int)(sizeof n_sizes_full / sizeof *n_sizes_full), 0, GOAP_DEFAULT_NODE_CAP,
                &out);
    bench_curve(MULTIPRV_2, "multiprv_2_cycle", "m", 0, m2_sizes_full,
                (int)(sizeof m2_sizes_full / sizeof *m2_sizes_full), 0, GOAP_DEFAULT_NODE_CAP,
                &out);
    bench_curve(ONEPRV_5, "oneprv_5", "m", 0, m5_sizes_full,
                (int)(sizeof m5_sizes_full / sizeof *m5_sizes_full), 20, GOAP_DEFAULT_NODE_CAP,
                &out);
  }

  bench_western(&out, 1L << 16, west, quick ? 200 : 2000, quick ? 5 : 50);
  bench_memory(&out);

  if (out.cold) fclose(out.cold);
  if (out.quantiles) fclose(out.quantiles);
  if (out.curves) fclose(out.curves);
  if (out.western) fclose(out.western);
  if (out.memory) fclose(out.memory);
  printf("\nCSV: %s/{machine,cold,cold_quantiles,curves,western,memory}.csv\n", dir);
  if (plot) run_plots(dir, src);
  bu_load_average(load1);
  printf("load average at the end: %.2f %.2f %.2f\n", load1[0], load1[1], load1[2]);
  printf("total benchmark time: %.1f s\n", (bu_now_ns() - t_start) / 1e9);
  return 0;
}
