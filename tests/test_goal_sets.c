/* test_goal_sets.c: goals whose variables take sets of values (sp_plan_any) against breadth-first search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"
#include "paper_facts.h"
#include "random_domain.h"
#include "saspu.h"
#include "sp_builtin.h"

/* Random domains per flavor (SASPU_GOAL_SET_DOMAINS overrides). */
#if !defined(GOAL_SET_DEFAULT_DOMAINS)
#define GOAL_SET_DEFAULT_DOMAINS 3000
#endif
/* Per random domain: starts, and set goals from each start. */
#define GOAL_SET_STARTS 3
#define GOAL_SET_GOALS  12

#define MAXV 16

static const SpAllocator plain = {NULL, NULL};

/* A goal of sets: per variable a mask of the values it accepts (bit x:
 * value x); 0 = free (any value). */
typedef struct SetGoal {
  unsigned mask[MAXV];
} SetGoal;

typedef struct Judge {
  const SpDomain *d;
  SpWorkspace *ws;
  OracleSpace *o;
  int m;
  long pairs, solvable, planned, too_many, failures;
  long blockers, whole; /* unsolvable pairs; blockers of every member */
  void *scratch;        /* sp_blocker_scratch_size */
  /* the states reachable from the last start, nearest first */
  SpValue *reach;
  int *dist;
  long reach_count;
} Judge;

static int matches(const Judge *j, const SetGoal *g, const SpValue *s) {
  for (int v = 0; v < j->m; v++)
    if (g->mask[v] != 0 && !(g->mask[v] >> s[v] & 1u)) return 0;
  return 1;
}

/* The goals sp_plan_any takes for g: one per combination of members,
 * the first variable varying slowest, members in value order. Returns
 * the count, or -1 past SP_GOAL_CHOICES_MAX. */
static int combinations(const Judge *j, const SetGoal *g, SpValue *out) {
  int count = 1;
  for (int v = 0; v < j->m; v++) {
    int k = 0;
    for (unsigned x = g->mask[v]; x; x &= x - 1) k++;
    if (k > 0) count *= k;
    if (count > SP_GOAL_CHOICES_MAX) return -1;
  }
  for (int c = 0; c < count; c++) {
    int rest = c;
    SpValue *goal = out + (size_t)c * (size_t)j->m;
    for (int v = j->m - 1; v >= 0; v--) {
      int members[32], k = 0;
      for (int x = 0; x < 32; x++)
        if (g->mask[v] >> x & 1u) members[k++] = x;
      if (k == 0) {
        goal[v] = SP_ANY;
        continue;
      }
      goal[v] = (SpValue)members[rest % k];
      rest /= k;
    }
  }
  return count;
}

static void report(Judge *j, const SpValue *s0, const SetGoal *g,
                   const char *what, int want, int got) {
  if (j->failures++ >= 3) return;
  fprintf(stderr, "goal set mismatch (%s): want %d, got %d\n  start ", what,
          want, got);
  oracle_print_state(stderr, j->d, s0);
  fprintf(stderr, "\n  goal masks:");
  for (int v = 0; v < j->m; v++) fprintf(stderr, " %x", g->mask[v]);
  fprintf(stderr, "\n");
}

/* The blocker of an unsolvable goal of sets is truthful: one that claims
 * the whole goal (only_choice 0) names the goal's own value of a variable
 * that every member asks, so it blocks each member; otherwise it says it
 * is the first member's and is exactly that member's blocker. Either way
 * it names a value the goal (or its first member) needs, never a value of
 * a variable the goal leaves free. */
static void check_blocker(Judge *j, const SpValue *s0, const SetGoal *g,
                          const SpValue *goals, int count) {
  SpBlocker b, first;
  SpFailure f;
  uint16_t plan[256];
  int len;
  j->blockers++;
  if (sp_plan_any_blocker(j->d, j->ws, s0, goals, count, plan, j->scratch,
                          &b) == SP_BLOCK_NONE) {
    report(j, s0, g, "a blocker", 1, 0);
    return;
  }
  if (b.only_choice == 0) {
    if (count > 1) j->whole++;
    if (count > 1 && (b.action != -1 || b.variable < 0 ||
                      g->mask[b.variable] != 1u << b.needed))
      report(j, s0, g, "a whole-goal blocker is a value every member asks",
             b.needed, b.variable);
    return;
  }
  if (count < 2 || b.only_choice != 1)
    report(j, s0, g, "only_choice is 1 with several members", 1, b.only_choice);
  sp_plan(j->d, j->ws, s0, goals, plan, &len, &f);
  sp_plan_blocker(j->d, s0, goals, &f, j->scratch, &first);
  if (b.kind != first.kind || b.variable != first.variable ||
      b.needed != first.needed || b.action != first.action ||
      b.link_to != first.link_to)
    report(j, s0, g, "the first member's blocker", first.variable, b.variable);
  if (b.variable >= 0 && b.action == -1 && g->mask[b.variable] == 0)
    report(j, s0, g, "never a free variable", -1, b.variable);
}

/* Checks sp_plan_any on (s0, g) against the last oracle_bfs(s0): a plan
 * iff a matching state is reachable; it replays, reaches a state
 * matching the goal (and the combination it names), repeats no action,
 * has the BFS distance to the nearest matching state, and is the earliest
 * combination's among the shortest (each earlier one has none or a
 * longer one). */
static void check_pair(Judge *j, const SpValue *s0, const SetGoal *g) {
  static SpValue goals[SP_GOAL_CHOICES_MAX * MAXV];
  uint16_t plan[256], other[256];
  SpValue end[MAXV];
  int len = -1, which = -2, count = combinations(j, g, goals);
  if (count < 0) {
    j->too_many++;
    return;
  }
  int best = -1;
  for (long s = 0; s < j->reach_count && best < 0; s++)
    if (matches(j, g, j->reach + s * j->m)) best = j->dist[s];
  j->pairs++;
  SpFailure f;
  SpStatus st =
      sp_plan_any(j->d, j->ws, s0, goals, count, plan, &len, &which, &f);
  if (best < 0) {
    if (st != SP_NO_PLAN || which != -1)
      report(j, s0, g, "unsolvable: status, which", SP_NO_PLAN, st);
    else if (f.code == SP_FAIL_NONE)
      report(j, s0, g, "no plan without a reason", 1, 0);
    else
      check_blocker(j, s0, g, goals, count);
    return;
  }
  j->solvable++;
  if (st != SP_OK) {
    report(j, s0, g, "solvable: status", SP_OK, st);
    return;
  }
  j->planned++;
  if (len != best) report(j, s0, g, "length against BFS", best, len);
  memcpy(end, s0, (size_t)j->m);
  if (sp_plan_replay(j->d, end, plan, len) != -1)
    report(j, s0, g, "replays", -1, 0);
  if (!matches(j, g, end)) report(j, s0, g, "reaches a member", 1, 0);
  if (which < 0 || which >= count) {
    report(j, s0, g, "which in range", count, which);
    return;
  }
  const SpValue *chosen = goals + (size_t)which * (size_t)j->m;
  for (int v = 0; v < j->m; v++)
    if (chosen[v] != SP_ANY && chosen[v] != end[v])
      report(j, s0, g, "reaches the chosen combination", chosen[v], end[v]);
  for (int a = 0; a < len; a++)
    for (int b = a + 1; b < len; b++)
      if (plan[a] == plan[b]) report(j, s0, g, "no repeated action", a, b);
  /* the earliest among the shortest, and the same plan sp_plan gives */
  for (int k = 0; k <= which; k++) {
    int n = -1;
    SpStatus sk = sp_plan(j->d, j->ws, s0, goals + (size_t)k * (size_t)j->m,
                          other, &n, NULL);
    if (k < which && sk == SP_OK && n <= len)
      report(j, s0, g, "earliest of the shortest", k, which);
    if (k == which && (sk != SP_OK || n != len ||
                       memcmp(other, plan, (size_t)len * sizeof *plan) != 0))
      report(j, s0, g, "the combination's own plan", 1, 0);
  }
}

/* Every goal of sets over variables [v, m) given `used` constrained ones
 * so far (a set of two members or more on `sets` of them), at most
 * `most` constrained: each variable free, or any non-empty proper subset
 * of its values. Checked when some set has two members or more. */
static void each_goal(Judge *j, const SpValue *s0, SetGoal *g, int v, int used,
                      int most, int sets) {
  if (v == j->m) {
    if (sets > 0) check_pair(j, s0, g);
    return;
  }
  g->mask[v] = 0;
  each_goal(j, s0, g, v + 1, used, most, sets);
  if (used == most) return;
  unsigned all = (1u << sp_variable_value_count(j->d, v)) - 1u;
  for (unsigned mask = 1; mask < all; mask++) {
    g->mask[v] = mask;
    each_goal(j, s0, g, v + 1, used + 1, most,
              sets + ((mask & (mask - 1)) != 0));
  }
  g->mask[v] = 0;
}

/* BFS from s0, and the states it reaches listed nearest first. */
static void judge_start(Judge *j, const SpValue *s0) {
  long n = oracle_state_count(j->o), k = 0;
  oracle_bfs(j->o, s0);
  for (int dist = 0; k < oracle_reachable_count(j->o); dist++)
    for (long s = 0; s < n; s++)
      if (oracle_distance_at(j->o, s) == dist) {
        oracle_state_decode(j->o, s, j->reach + k * j->m);
        j->dist[k++] = dist;
      }
  j->reach_count = k;
}

static void judge_open(Judge *j, const SpDomain *d) {
  SpError err;
  memset(j, 0, sizeof *j);
  j->d = d;
  j->m = sp_domain_variable_count(d);
  assert_true(j->m <= MAXV);
  assert_int_equal(sp_workspace_new(d, plain, &j->ws, &err), SP_OK);
  j->o = oracle_space_new(d);
  assert_non_null(j->o);
  j->scratch = malloc(sp_blocker_scratch_size(d));
  assert_non_null(j->scratch);
  j->reach = malloc((size_t)oracle_state_count(j->o) * (size_t)j->m);
  j->dist = malloc((size_t)oracle_state_count(j->o) * sizeof *j->dist);
  assert_non_null(j->reach);
  assert_non_null(j->dist);
}

static void judge_close(Judge *j) {
  free(j->reach);
  free(j->dist);
  free(j->scratch);
  oracle_space_free(j->o);
  sp_workspace_free(j->ws);
}

/* The paper domains, exhaustively: every start, every goal of sets (each
 * variable free or a non-empty proper subset of its values, some set of
 * two members or more). */
static void test_paper_domain(void **state) {
  const PaperCount *p = *state;
  SpBuiltSpec *b = p->build(plain);
  SpDomain *d = NULL;
  SpError err;
  Judge j;
  SetGoal g;
  SpValue s0[MAXV];
  assert_non_null(b);
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, &err), SP_OK);
  judge_open(&j, d);
  int most = j.m;
  for (long s = 0; s < oracle_state_count(j.o); s++) {
    oracle_state_decode(j.o, s, s0);
    judge_start(&j, s0);
    each_goal(&j, s0, &g, 0, 0, most, 0);
  }
  printf("%s: %ld (start, goal of sets) pairs, %ld solvable, "
         "%ld planned, %ld mismatches; %ld blockers, %ld of every member\n",
         b->spec.name, j.pairs, j.solvable, j.planned, j.failures, j.blockers,
         j.whole);
  assert_int_equal(j.failures, 0);
  assert_int_equal(j.too_many, 0);
  assert_int_equal(j.planned, j.solvable);
  assert_true(j.solvable > 0 && j.solvable < j.pairs);
  judge_close(&j);
  sp_domain_free(d);
  sp_builtin_free(b);
}

static long domain_count(void) {
  const char *s = getenv("SASPU_GOAL_SET_DOMAINS");
  long n = s && *s ? strtol(s, NULL, 10) : 0;
  return n > 0 ? n : GOAL_SET_DEFAULT_DOMAINS;
}

/* A random goal of sets: each variable free (1 in 3), else a random
 * non-empty subset of its values; at least one set of two or more.
 * Returns 0 when no variable has three values or more (no such goal). */
static int random_goal(RdRng *r, const SpDomain *d, SetGoal *g) {
  int m = sp_domain_variable_count(d), sets = 0, wide = 0;
  for (int v = 0; v < m; v++) wide += sp_variable_value_count(d, v) >= 3;
  while (wide > 0 && sets == 0) {
    for (int v = 0; v < m; v++) {
      unsigned all = (1u << sp_variable_value_count(d, v)) - 1u;
      g->mask[v] =
          rd_below(r, 3) == 0 ? 0 : 1u + (unsigned)rd_below(r, (int)all);
      if (g->mask[v] == all) g->mask[v] = 0;
      sets += (g->mask[v] & (g->mask[v] - 1)) != 0;
    }
  }
  return sets > 0;
}

/* Random domains of every flavor; the counts per class the compiler
 * found are printed and each class inside the tractable ones must be
 * met many times. */
static void test_random_domains(void **state) {
  long n = domain_count() * RD_FLAVOR_COUNT, per_class[4] = {0, 0, 0, 0};
  long pairs = 0, solvable = 0, failures = 0;
  SpCompileOptions strict = {0};
  (void)state;
  for (long i = 0; i < n; i++) {
    RandomDomain rd;
    SpDomain *d = NULL;
    SpError err;
    RdRng r;
    Judge j;
    SetGoal g;
    SpValue s0[MAXV];
    RdFlavor flavor = (RdFlavor)(i % RD_FLAVOR_COUNT);
    uint64_t seed = 0x5E75000ull + (uint64_t)i;
    random_domain_generate(&rd, seed, flavor);
    if (sp_domain_compile(&rd.spec, &strict, plain, &d, &err) != SP_OK)
      continue;
    per_class[sp_domain_class(d) & 3]++;
    judge_open(&j, d);
    oracle_set_label(j.o, rd.name);
    rd_seed(&r, seed ^ 0x2B7E151628AED2A6ull);
    for (int k = 0; k < GOAL_SET_STARTS; k++) {
      oracle_state_decode(j.o, rd_below(&r, (int)oracle_state_count(j.o)), s0);
      judge_start(&j, s0);
      for (int q = 0; q < GOAL_SET_GOALS; q++) {
        if (random_goal(&r, d, &g)) check_pair(&j, s0, &g);
      }
    }
    if (j.failures > 0)
      fprintf(stderr, "==== seed %llu flavor %s: %ld mismatches\n",
              (unsigned long long)seed, rd_flavor_name(flavor), j.failures);
    pairs += j.pairs;
    solvable += j.solvable;
    failures += j.failures;
    judge_close(&j);
    sp_domain_free(d);
  }
  printf("random domains: %ld generated; by class %ld/%ld/%ld/%ld; %ld goals "
         "of sets, %ld solvable, %ld mismatches\n",
         n, per_class[0], per_class[1], per_class[2], per_class[3], pairs,
         solvable, failures);
  assert_int_equal(failures, 0);
  assert_true(solvable > 0 && solvable < pairs);
  /* thousands of domains in each tractable class */
  for (int k = SP_CLASS_C0; k <= SP_CLASS_CSTAR2; k++)
    assert_true(per_class[k] >= 1000 || n < 3000 * RD_FLAVOR_COUNT);
}

/* Counts outside 1..SP_GOAL_CHOICES_MAX and values out of range. */
static void test_bad_calls(void **state) {
  SpBuiltSpec *b = sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  SpDomain *d = NULL;
  SpWorkspace *ws = NULL;
  SpError err;
  SpFailure f;
  SpValue s0[3] = {0, 0, 0}, goals[6] = {2, SP_ANY, SP_ANY, 9, SP_ANY, SP_ANY};
  uint16_t plan[16];
  int len = 5, which = 5;
  (void)state;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, &err), SP_OK);
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  assert_int_equal(sp_plan_any(d, ws, s0, goals, 0, plan, &len, &which, &f),
                   SP_ERR_STATE);
  assert_int_equal(f.variable, -1);
  assert_int_equal(which, -1);
  assert_int_equal(sp_plan_any(d, ws, s0, goals, SP_GOAL_CHOICES_MAX + 1, plan,
                               &len, &which, &f),
                   SP_ERR_STATE);
  assert_int_equal(sp_plan_any(d, ws, s0, goals, 2, plan, &len, &which, &f),
                   SP_ERR_STATE);
  assert_int_equal(f.variable, 0);
  assert_int_equal(f.value, 9);
  /* one goal: sp_plan's plan */
  assert_int_equal(sp_plan_any(d, ws, s0, goals, 1, plan, &len, &which, NULL),
                   SP_OK);
  assert_int_equal(which, 0);
  assert_true(len > 0);
  sp_workspace_free(ws);
  sp_domain_free(d);
  sp_builtin_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PAPER_COUNT_TEST(0, test_paper_domain),
      PAPER_COUNT_TEST(1, test_paper_domain),
      PAPER_COUNT_TEST(2, test_paper_domain),
      PAPER_COUNT_TEST(3, test_paper_domain),
      cmocka_unit_test(test_random_domains),
      cmocka_unit_test(test_bad_calls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
