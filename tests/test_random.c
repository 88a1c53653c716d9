/* test_random.c: thousands of random SAS-PU domains: class analysis and planner against brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle.h"
#include "random_domain.h"
#include "saspu.h"

#if !defined(RANDOM_DEFAULT_DOMAINS)
#define RANDOM_DEFAULT_DOMAINS 4000
#endif
/* Domains up to this many states are checked on every pair. */
#if !defined(RANDOM_ALL_PAIRS_STATES)
#define RANDOM_ALL_PAIRS_STATES 400
#endif
/* Larger ones: all goals from this many random starts. */
#if !defined(RANDOM_STARTS)
#define RANDOM_STARTS 8
#endif
/* How many failing domains print their full reports while running. */
#define RANDOM_PRINTED_FAILURES 8

#define BASE_SEED 0x5A5B0000ull

/* Which reading of the class definitions the compiler must match. The
 * literal IJCAI Def. 7 only links requesters through real actions, and
 * then SAS-PUC*2 does not guarantee plans without repeats: a requester of
 * a+ and one of a- can be tied through a start-only (ghost) value, as in
 * test_ghost_value_ties_requesters below, where every plan repeats an
 * action. Making ghost values nodes of G (the IJCAI tables do list the
 * ghost as a predecessor) closes that gap: over 200,000 random domains
 * (132,000 inside) this reading left no planner mismatch, the literal one
 * 112. */
#if !defined(RANDOM_CLASS_FLAGS)
#define RANDOM_CLASS_FLAGS ORACLE_CLASS_GHOST_NODES
#endif

static const SpAllocator plain = {NULL, NULL};

typedef struct Summary {
  long domains;
  long by_class[4];
  long by_flavor[RD_FLAVOR_COUNT][4];
  long multi_cycle;
  long checked_domains, all_pair_domains;
  OracleTally tally;
  long class_mismatches, compile_failures, option_mismatches;
  long failing_domains;
  /* the smallest domain with a planner mismatch */
  long smallest_states;
  int smallest_actions;
  uint64_t smallest_seed;
  RdFlavor smallest_flavor;
} Summary;

static long domain_count(void) {
  const char *s = getenv("SASPU_RANDOM_DOMAINS");
  long n;
  if (s == NULL || *s == '\0') return RANDOM_DEFAULT_DOMAINS;
  n = strtol(s, NULL, 10);
  return n > 0 ? n : RANDOM_DEFAULT_DOMAINS;
}

/* Runs the planner checks of one compiled domain inside the classes.
 * Returns the number of mismatching pairs. */
static long check_planner(const SpDomain *d, uint64_t seed, Summary *sum,
                          FILE *out, int report_limit) {
  OracleSpace *o = oracle_space_new(d);
  SpWorkspace *ws = NULL;
  SpError err;
  long bad = 0;
  char label[80];
  assert_non_null(o);
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  long pairs_before = sum->tally.pairs, failures_before = sum->tally.failures;
  snprintf(label, sizeof(label), "%s", sp_domain_name(d));
  oracle_set_label(o, label);
  oracle_set_report_limit(o, report_limit);
  if (oracle_state_count(o) <= RANDOM_ALL_PAIRS_STATES) {
    bad = oracle_check_all_pairs(o, ws, &sum->tally, out);
    sum->all_pair_domains++;
  } else {
    RdRng r;
    SpValue s0[RD_MAX_VARIABLES];
    int k;
    rd_seed(&r, seed ^ 0xD1B54A32D192ED03ull);
    for (k = 0; k < RANDOM_STARTS; k++) {
      oracle_state_decode(o, rd_below(&r, (int)oracle_state_count(o)), s0);
      bad += oracle_check_start(o, ws, s0, &sum->tally, out);
    }
  }
  /* the domain was checked (a state space has a pair at least), and every
   * mismatch counted is one the tally saw */
  assert_true(sum->tally.pairs > pairs_before);
  assert_int_equal(sum->tally.failures - failures_before, bad);
  oracle_space_free(o);
  sp_workspace_free(ws);
  return bad;
}

/* One random domain through every check. */
static void run_one(uint64_t seed, RdFlavor flavor, Summary *sum) {
  RandomDomain rd;
  SpDomain *d = NULL, *strict = NULL;
  SpError err;
  SpCompileOptions loose = {1};
  SpClass oc, cc;
  SpStatus st;
  char why[256];
  int printing =
      sum->failing_domains + sum->class_mismatches + sum->compile_failures <
      RANDOM_PRINTED_FAILURES;

  random_domain_generate(&rd, seed, flavor);
  sum->domains++;
  sum->multi_cycle += rd.multi_cycle;
  oc = oracle_classify_spec_ex(&rd.spec, RANDOM_CLASS_FLAGS, why, sizeof(why));
  sum->by_class[oc]++;
  sum->by_flavor[flavor][oc]++;

  st = sp_domain_compile(&rd.spec, &loose, plain, &d, &err);
  if (st != SP_OK) {
    sum->compile_failures++;
    if (printing) {
      fprintf(stderr, "==== valid random domain refused (seed %llu): %s: %s\n",
              (unsigned long long)seed, sp_status_name(st), err.message);
      oracle_print_spec(stderr, &rd.spec);
    }
    return;
  }
  cc = sp_domain_class(d);
  if (cc != oc) {
    sum->class_mismatches++;
    if (printing) {
      fprintf(
          stderr,
          "==== class mismatch (seed %llu%s): compiler %s, oracle %s (%s)\n",
          (unsigned long long)seed,
          rd.multi_cycle ? ", two cycles on a variable" : "", sp_class_name(cc),
          sp_class_name(oc), why);
      oracle_print_domain(stderr, d);
    }
  }

  /* Without allow_outside the compiler accepts exactly the inside ones. */
  st = sp_domain_compile(&rd.spec, NULL, plain, &strict, &err);
  if ((cc == SP_CLASS_OUTSIDE) != (st == SP_ERR_CLASS) ||
      (cc != SP_CLASS_OUTSIDE && st != SP_OK)) {
    sum->option_mismatches++;
    if (printing)
      fprintf(stderr, "==== seed %llu: class %s but strict compile gave %s\n",
              (unsigned long long)seed, sp_class_name(cc), sp_status_name(st));
  }
  if (strict == NULL) assert_int_not_equal(st, SP_OK);
  sp_domain_free(strict);

  if (cc != SP_CLASS_OUTSIDE) {
    long bad;
    sum->checked_domains++;
    bad = check_planner(d, seed, sum, printing ? stderr : NULL, 2);
    if (bad > 0) {
      long states = oracle_count_states(d);
      int actions = sp_domain_action_count(d);
      if (printing)
        fprintf(stderr, "==== seed %llu flavor %s: %ld mismatching pairs\n",
                (unsigned long long)seed, rd_flavor_name(flavor), bad);
      if (sum->failing_domains == 0 || states < sum->smallest_states ||
          (states == sum->smallest_states && actions < sum->smallest_actions)) {
        sum->smallest_states = states;
        sum->smallest_actions = actions;
        sum->smallest_seed = seed;
        sum->smallest_flavor = flavor;
      }
      sum->failing_domains++;
    }
  }
  sp_domain_free(d);
}

static void print_summary(const Summary *sum) {
  int f, c;
  printf("random domains: %ld (multi-cycle variables in %ld)\n", sum->domains,
         sum->multi_cycle);
  printf("class histogram (oracle): C0 %ld, CS2 %ld, C*2 %ld, outside %ld\n",
         sum->by_class[SP_CLASS_C0], sum->by_class[SP_CLASS_CS2],
         sum->by_class[SP_CLASS_CSTAR2], sum->by_class[SP_CLASS_OUTSIDE]);
  for (f = 0; f < RD_FLAVOR_COUNT; f++) {
    printf("  steered %-8s:", rd_flavor_name((RdFlavor)f));
    for (c = 0; c < 4; c++)
      printf(" %s %ld", sp_class_name((SpClass)c), sum->by_flavor[f][c]);
    putchar('\n');
  }
  printf("planner checked on %ld domains (%ld on all pairs): %ld pairs, %ld "
         "solvable, "
         "%ld planned\n",
         sum->checked_domains, sum->all_pair_domains, sum->tally.pairs,
         sum->tally.solvable, sum->tally.planned);
  printf(
      "failures: %ld class mismatches, %ld refused domains, %ld strict-compile "
      "mismatches, %ld mismatching pairs in %ld domains\n",
      sum->class_mismatches, sum->compile_failures, sum->option_mismatches,
      sum->tally.failures, sum->failing_domains);
}

static void test_random_domains(void **state) {
  Summary sum;
  long i, n = domain_count();
  (void)state;
  memset(&sum, 0, sizeof(sum));
  for (i = 0; i < n; i++)
    run_one(BASE_SEED + (uint64_t)i, (RdFlavor)(i % RD_FLAVOR_COUNT), &sum);
  print_summary(&sum);
  if (sum.failing_domains > 0) {
    /* Replay the smallest failing domain with one full report. */
    RandomDomain rd;
    SpDomain *d = NULL;
    SpError err;
    SpCompileOptions loose = {1};
    Summary again;
    memset(&again, 0, sizeof(again));
    random_domain_generate(&rd, sum.smallest_seed, sum.smallest_flavor);
    fprintf(stderr,
            "==== smallest failing domain: seed %llu, flavor %s, %ld states\n",
            (unsigned long long)sum.smallest_seed,
            rd_flavor_name(sum.smallest_flavor), sum.smallest_states);
    if (sp_domain_compile(&rd.spec, &loose, plain, &d, &err) == SP_OK) {
      check_planner(d, sum.smallest_seed, &again, stderr, 1);
      sp_domain_free(d);
    }
  }
  /* Each class must be exercised, or the test proves little. */
  assert_true(sum.by_class[SP_CLASS_C0] * 10 >= sum.domains ||
              sum.domains < 100);
  assert_true(sum.by_class[SP_CLASS_CS2] * 10 >= sum.domains ||
              sum.domains < 100);
  assert_true(sum.by_class[SP_CLASS_CSTAR2] * 10 >= sum.domains ||
              sum.domains < 100);
  assert_true(sum.by_class[SP_CLASS_OUTSIDE] * 10 >= sum.domains ||
              sum.domains < 100);
  assert_int_equal(sum.class_mismatches, 0);
  assert_int_equal(sum.compile_failures, 0);
  assert_int_equal(sum.option_mismatches, 0);
  assert_int_equal(sum.tally.failures, 0);
}

/* The generator itself: same seed, same domain; always valid SAS-PU. */
static void test_generator(void **state) {
  RandomDomain a, b;
  int i, k;
  (void)state;
  for (i = 0; i < 200; i++) {
    random_domain_generate(&a, 1234u + (uint64_t)i,
                           (RdFlavor)(i % RD_FLAVOR_COUNT));
    random_domain_generate(&b, 1234u + (uint64_t)i,
                           (RdFlavor)(i % RD_FLAVOR_COUNT));
    assert_int_equal(a.spec.variable_count, b.spec.variable_count);
    assert_int_equal(a.spec.action_count, b.spec.action_count);
    assert_true(a.spec.variable_count >= 2 &&
                a.spec.variable_count <= RD_MAX_VARIABLES);
    for (k = 0; k < a.spec.action_count; k++) {
      const SpActionSpec *x = &a.spec.actions[k], *y = &b.spec.actions[k];
      int j;
      assert_int_equal(x->variable, y->variable);
      assert_int_equal(x->pre, y->pre);
      assert_int_equal(x->post, y->post);
      assert_int_equal(x->prevail_count, y->prevail_count);
      assert_true(x->prevail_count <= RD_MAX_PREVAILS);
      assert_int_not_equal(x->pre, x->post);
      for (j = 0; j < x->prevail_count; j++) {
        assert_int_equal(x->prevails[j].variable, y->prevails[j].variable);
        assert_int_equal(x->prevails[j].value, y->prevails[j].value);
        assert_int_not_equal(x->prevails[j].variable, x->variable);
      }
    }
  }
}

/* ------------------------------------------------------------------ */
/* The two smallest disagreements the random runs turned up            */
/* ------------------------------------------------------------------ */

static const char *const two_values[] = {"0", "1"};
static const char *const four_values[] = {"0", "1", "2", "3"};

/* x is a 2-cycle whose values are both requested: x = 1 by z0 and x = 0
 * by y0. Literally (Def. 7) the requesters y0 and z0 are unrelated in G
 * minus G(x), so the domain would be SAS-PUC*2. But z0 needs y = 1, a
 * start-only (ghost) value that y0 destroys, so z0 must precede y0:
 * from <0,1,1> to <1,0,0> the only plans are x1 z0 x0 y0 x1 and longer,
 * which repeat x1. With ghost values as nodes of G, y0 and z0 are related
 * and the domain is outside, as it must be. */
static void test_ghost_value_ties_requesters(void **state) {
  static const SpVariableSpec vars[] = {
      {"x", 2, two_values}, {"y", 2, two_values}, {"z", 2, two_values}};
  static const SpCondition y0_needs[] = {{0, 0}};
  static const SpCondition z0_needs[] = {{0, 1}, {1, 1}};
  static const SpActionSpec acts[] = {{"x1", 0, 0, 1, 0, NULL},
                                      {"x0", 0, 1, 0, 0, NULL},
                                      {"y0", 1, 1, 0, 1, y0_needs},
                                      {"z0", 2, 1, 0, 2, z0_needs}};
  static const SpDomainSpec spec = {"ghost_tie", 3, vars, 4, acts};
  static const SpValue s0[] = {0, 1, 1}, goal[] = {1, 0, 0};
  SpCompileOptions loose = {1};
  SpDomain *d = NULL;
  SpError err;
  OracleSpace *o;
  uint16_t witness[8];
  char why[256];
  (void)state;
  assert_int_equal(oracle_classify_spec(&spec, why, sizeof(why)),
                   SP_CLASS_CSTAR2);
  assert_int_equal(oracle_classify_spec_ex(&spec, ORACLE_CLASS_GHOST_NODES, why,
                                           sizeof(why)),
                   SP_CLASS_OUTSIDE);
  assert_int_equal(sp_domain_compile(&spec, &loose, plain, &d, &err), SP_OK);
  o = oracle_space_new(d);
  assert_non_null(o);
  oracle_bfs(o, s0);
  /* 5 steps with 4 actions: every shortest plan repeats one. */
  assert_int_equal(oracle_distance(o, goal), 5);
  assert_int_equal(oracle_shortest_plan(o, goal, witness), 5);
  oracle_space_free(o);
  if (sp_domain_class(d) != SP_CLASS_OUTSIDE) {
    fprintf(stderr,
            "the compiler accepts a domain whose instance needs a repeat:\n");
    oracle_print_domain(stderr, d);
  }
  assert_int_equal(sp_domain_class(d), SP_CLASS_OUTSIDE);
  sp_domain_free(d);
}

/* One variable with two separate 2-cycles ({0,1} and {2,3}: G(v) is not
 * connected), each with one requested value: every cycle satisfies CS2,
 * so the domain is SAS-PUCS2, and the planner must be right on it. */
static void test_two_cycles_on_one_variable(void **state) {
  static const SpVariableSpec vars[] = {
      {"v", 4, four_values}, {"p", 2, two_values}, {"q", 2, two_values}};
  static const SpCondition p_needs[] = {{0, 1}};
  static const SpCondition q_needs[] = {{0, 3}};
  static const SpActionSpec acts[] = {
      {"v1", 0, 0, 1, 0, NULL},    {"v0", 0, 1, 0, 0, NULL},
      {"v3", 0, 2, 3, 0, NULL},    {"v2", 0, 3, 2, 0, NULL},
      {"p1", 1, 0, 1, 1, p_needs}, {"q1", 2, 0, 1, 1, q_needs}};
  static const SpDomainSpec spec = {"two_cycles", 3, vars, 6, acts};
  SpCompileOptions loose = {1};
  SpDomain *d = NULL;
  SpWorkspace *ws = NULL;
  SpError err;
  OracleSpace *o;
  OracleTally t = {0, 0, 0, 0};
  char why[256];
  (void)state;
  assert_int_equal(oracle_classify_spec(&spec, why, sizeof(why)), SP_CLASS_CS2);
  assert_int_equal(sp_domain_compile(&spec, &loose, plain, &d, &err), SP_OK);
  assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
  o = oracle_space_new(d);
  assert_non_null(o);
  oracle_set_label(o, "two_cycles");
  assert_int_equal(oracle_check_all_pairs(o, ws, &t, stderr), 0);
  oracle_space_free(o);
  sp_workspace_free(ws);
  if (sp_domain_class(d) != SP_CLASS_CS2) oracle_print_domain(stderr, d);
  assert_int_equal(sp_domain_class(d), SP_CLASS_CS2);
  sp_domain_free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_generator),
      cmocka_unit_test(test_ghost_value_ties_requesters),
      cmocka_unit_test(test_two_cycles_on_one_variable),
      cmocka_unit_test(test_random_domains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
