/* test_partial_goals.c: goals with free variables (SP_ANY) against breadth-first search, failure texts, populations. */
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
#include "saspu_population.h"
#include "sp_builtin.h"

#if !defined(PARTIAL_DEFAULT_DOMAINS)
#define PARTIAL_DEFAULT_DOMAINS 3000
#endif
/* Random domains up to this many states: every start; larger: a few. */
#define PARTIAL_ALL_STARTS_STATES 64
#define PARTIAL_STARTS            3

static const SpAllocator plain = {NULL, NULL};

typedef struct Compiled {
  SpBuiltSpec *b;
  SpDomain *d;
  SpWorkspace *ws;
  OracleSpace *o;
} Compiled;

static void compiled_open(Compiled *c, SpBuiltSpec *b) {
  SpError err;
  assert_non_null(b);
  c->b = b;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &c->d, &err),
                   SP_OK);
  assert_int_equal(sp_workspace_new(c->d, plain, &c->ws, &err), SP_OK);
  c->o = oracle_space_new(c->d);
  assert_non_null(c->o);
}

static void compiled_close(Compiled *c) {
  oracle_space_free(c->o);
  sp_workspace_free(c->ws);
  sp_domain_free(c->d);
  sp_builtin_free(c->b);
}

/* Every start and every partial goal of one domain, free and kept. */
static long check_domain_partial(OracleSpace *o, SpWorkspace *ws, int keep,
                                 OracleTally *t, FILE *out) {
  long s, bad = 0;
  SpValue s0[64];
  for (s = 0; s < oracle_state_count(o); s++) {
    long r;
    oracle_state_decode(o, s, s0);
    r = oracle_check_start_partial(o, ws, s0, keep, t, out);
    assert_true(r >= 0);
    bad += r;
  }
  return bad;
}

/* The paper domains: plan iff a matching state is reachable, the plan
 * replays to one, no action repeats, its length is the BFS distance to
 * the nearest; and the same with left-out variables kept. */
static void test_paper_domain(void **state) {
  const PaperCount *p = *state;
  Compiled c;
  OracleTally free_t = {0, 0, 0, 0}, keep_t = {0, 0, 0, 0};
  compiled_open(&c, p->build(plain));
  oracle_set_label(c.o, c.b->spec.name);
  assert_int_equal(check_domain_partial(c.o, c.ws, 0, &free_t, stderr), 0);
  assert_int_equal(check_domain_partial(c.o, c.ws, 1, &keep_t, stderr), 0);
  printf("%s: free: %ld pairs, %ld solvable, %ld planned; keep: %ld pairs, %ld "
         "solvable\n",
         c.b->spec.name, free_t.pairs, free_t.solvable, free_t.planned,
         keep_t.pairs, keep_t.solvable);
  assert_int_equal(free_t.failures, 0);
  assert_int_equal(keep_t.failures, 0);
  assert_int_equal(free_t.planned, free_t.solvable);
  assert_int_equal(keep_t.planned, keep_t.solvable);
  /* a free variable can only help: more pairs solvable than kept */
  assert_true(free_t.solvable >= keep_t.solvable);
  compiled_close(&c);
}

/* No-plan texts: never "the goal" needing a free variable, never the
 * goal value of a free variable; free variables are marked. */
static void test_failure_texts(void **state) {
  int k;
  long checked = 0;
  (void)state;
  for (k = 0; k < PAPER_COUNT_N; k++) {
    Compiled c;
    long s, g, count;
    int m, i;
    SpValue s0[16], goal[16];
    uint16_t plan[64];
    compiled_open(&c, paper_counts[k].build(plain));
    m = sp_domain_variable_count(c.d);
    count = 1;
    for (i = 0; i < m; i++) count *= sp_variable_value_count(c.d, i) + 1;
    for (s = 0; s < oracle_state_count(c.o); s++) {
      oracle_state_decode(c.o, s, s0);
      for (g = 0; g < count; g++) {
        long x = g;
        SpFailure f;
        char text[512];
        int len;
        for (i = 0; i < m; i++) {
          int r = sp_variable_value_count(c.d, i) + 1;
          goal[i] = x % r == r - 1 ? SP_ANY : (SpValue)(x % r);
          x /= r;
        }
        if (sp_plan(c.d, c.ws, s0, goal, plan, &len, &f) != SP_NO_PLAN)
          continue;
        checked++;
        sp_failure_format(c.d, &f, text, sizeof text);
        if (f.variable >= 0 && f.code != SP_FAIL_ORDER) {
          int is_free = goal[f.variable] == SP_ANY;
          assert_int_equal(f.free_variable, is_free);
          if (f.action < 0) { /* the goal's own chain: never a free variable */
            assert_false(is_free);
            /* (no setter: the first value on the way that none sets) */
            if (f.code != SP_FAIL_NO_SETTER)
              assert_int_equal(f.value, goal[f.variable]);
          }
          if (is_free) assert_null(strstr(text, "goal value"));
        }
      }
    }
    compiled_close(&c);
  }
  printf("no-plan texts checked: %ld\n", checked);
  assert_true(checked > 0);
}

/* Horse Breeder, morning, goal water = in_trough: the bucket may stay in
 * hand (3 actions) or, kept, goes back on the floor (4). */
static void test_horse_breeder_trough(void **state) {
  int variant;
  (void)state;
  for (variant = SP_HORSE_SSCI; variant <= SP_HORSE_IJCAI; variant++) {
    Compiled c;
    const SpNamedState *morning;
    SpValue goal[3], end[3];
    uint16_t plan[16];
    int len, water, bucket;
    compiled_open(&c, sp_builtin_horse_breeder(plain, variant));
    morning = sp_builtin_start(c.b, "morning");
    assert_non_null(morning);
    water = 2;
    bucket = 1;
    assert_string_equal(sp_variable_name(c.d, water), "water");
    assert_string_equal(sp_variable_name(c.d, bucket), "bucket");
    memset(goal, SP_ANY, sizeof goal);
    goal[water] = 2; /* in_trough */
    assert_int_equal(
        sp_plan(c.d, c.ws, morning->values, goal, plan, &len, NULL), SP_OK);
    assert_int_equal(len, 3);
    memcpy(end, morning->values, sizeof end);
    assert_int_equal(sp_plan_replay(c.d, end, plan, len), -1);
    assert_int_equal(end[water], 2);
    assert_string_equal(sp_value_name(c.d, bucket, end[bucket]), "in_hands");
    memcpy(goal, morning->values, sizeof goal); /* keep */
    goal[water] = 2;
    assert_int_equal(
        sp_plan(c.d, c.ws, morning->values, goal, plan, &len, NULL), SP_OK);
    assert_int_equal(len, 4);
    compiled_close(&c);
  }
}

/* SP_ANY is a goal value only: a start with it is a range error. */
static void test_any_in_start_refused(void **state) {
  Compiled c;
  SpValue s0[3] = {0, SP_ANY, 0}, goal[3] = {SP_ANY, SP_ANY, 2};
  uint16_t plan[16];
  int len;
  SpFailure f;
  (void)state;
  compiled_open(&c, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  assert_int_equal(sp_plan(c.d, c.ws, s0, goal, plan, &len, &f), SP_ERR_STATE);
  assert_int_equal(f.variable, 1);
  assert_int_equal(f.value, SP_ANY);
  s0[1] = 0;
  goal[0] = 7; /* out of range beside a free variable */
  assert_int_equal(sp_plan(c.d, c.ws, s0, goal, plan, &len, &f), SP_ERR_STATE);
  assert_int_equal(f.variable, 0);
  compiled_close(&c);
}

static long domain_count(void) {
  const char *s = getenv("SASPU_PARTIAL_DOMAINS");
  long n = s && *s ? strtol(s, NULL, 10) : 0;
  return n > 0 ? n : PARTIAL_DEFAULT_DOMAINS;
}

/* Random domains inside the classes, every flavor. */
static void test_random_domains(void **state) {
  long n = domain_count(), i, checked = 0, bad_domains = 0;
  OracleTally t = {0, 0, 0, 0};
  SpCompileOptions strict = {0};
  (void)state;
  for (i = 0; i < n; i++) {
    RandomDomain rd;
    SpDomain *d = NULL;
    SpWorkspace *ws = NULL;
    OracleSpace *o;
    SpError err;
    RdFlavor flavor = (RdFlavor)(i % RD_FLAVOR_COUNT);
    uint64_t seed = 0x9A47000ull + (uint64_t)i;
    long bad = 0;
    random_domain_generate(&rd, seed, flavor);
    if (sp_domain_compile(&rd.spec, &strict, plain, &d, &err) != SP_OK)
      continue;
    assert_int_equal(sp_workspace_new(d, plain, &ws, &err), SP_OK);
    o = oracle_space_new(d);
    assert_non_null(o);
    oracle_set_label(o, rd.name);
    oracle_set_report_limit(o, bad_domains < 4 ? 2 : 0);
    checked++;
    if (oracle_state_count(o) <= PARTIAL_ALL_STARTS_STATES) {
      bad = check_domain_partial(o, ws, 0, &t, stderr);
    } else {
      RdRng r;
      SpValue s0[RD_MAX_VARIABLES];
      int k;
      rd_seed(&r, seed ^ 0x51ED270B2A7C3F19ull);
      for (k = 0; k < PARTIAL_STARTS; k++) {
        oracle_state_decode(o, rd_below(&r, (int)oracle_state_count(o)), s0);
        bad += oracle_check_start_partial(o, ws, s0, 0, &t, stderr);
      }
    }
    if (bad > 0) {
      bad_domains++;
      fprintf(stderr,
              "==== seed %llu flavor %s: %ld mismatching partial goals\n",
              (unsigned long long)seed, rd_flavor_name(flavor), bad);
    }
    oracle_space_free(o);
    sp_workspace_free(ws);
    sp_domain_free(d);
  }
  printf("random domains: %ld generated, %ld inside the classes checked: %ld "
         "partial goals, "
         "%ld solvable, %ld planned, %ld mismatches in %ld domains\n",
         n, checked, t.pairs, t.solvable, t.planned, t.failures, bad_domains);
  assert_true(checked > n / 4);
  assert_int_equal(t.failures, 0);
}

/* Populations with SP_ANY goals give sp_plan's plans, byte for byte,
 * with and without the cache, on one thread and several. */
static void test_population_matches_sp_plan(void **state) {
  Compiled c;
  SpPopulation *pop = NULL;
  SpError err;
  RdRng r;
  size_t n = 3000, i;
  int m, round;
  SpValue *s0s, *goals;
  uint16_t plan[64], got[64];
  (void)state;
  compiled_open(&c, sp_builtin_citizen(plain));
  m = sp_domain_variable_count(c.d);
  s0s = calloc(n * (size_t)m, 1);
  goals = calloc(n * (size_t)m, 1);
  assert_non_null(s0s);
  assert_non_null(goals);
  rd_seed(&r, 77);
  for (i = 0; i < n * (size_t)m; i++) {
    int v = (int)(i % (size_t)m), nv = sp_variable_value_count(c.d, v);
    s0s[i] = (SpValue)rd_below(&r, nv);
    goals[i] = rd_chance(&r, 50) ? SP_ANY : (SpValue)rd_below(&r, nv);
  }
  assert_int_equal(sp_population_new(c.d, n, plain, &pop, &err), SP_OK);
  assert_int_equal(sp_population_set_states(pop, 0, n, s0s, &err), SP_OK);
  assert_int_equal(sp_population_set_goals(pop, 0, n, goals, &err), SP_OK);
  for (round = 0; round < 3; round++) {
    SpPlanOptions o = {round == 2 ? 2 : 1, round == 1, 0, NULL};
    SpPlanReport rep;
    assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
    assert_int_equal(sp_population_plan(pop, &o, &rep, &err), SP_OK);
    for (i = 0; i < n; i++) {
      int len, glen;
      SpFailure f, pf;
      SpStatus st = sp_plan(c.d, c.ws, s0s + i * (size_t)m,
                            goals + i * (size_t)m, plan, &len, &f);
      SpStatus pst = sp_population_plan_of(pop, i, got, &glen);
      assert_int_equal(pst, st);
      if (st == SP_OK) {
        assert_int_equal(glen, len);
        assert_memory_equal(got, plan, (size_t)len * sizeof(uint16_t));
      } else {
        assert_int_equal(sp_population_explain(pop, i, &pf, &err), st);
        assert_int_equal(pf.code, f.code);
        assert_int_equal(pf.free_variable, f.free_variable);
      }
    }
  }
  /* states still refuse SP_ANY */
  assert_int_equal(sp_population_set_states(pop, 0, 1, goals, &err) == SP_OK,
                   memchr(goals, SP_ANY, (size_t)m) == NULL);
  sp_population_free(pop);
  free(s0s);
  free(goals);
  compiled_close(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PAPER_COUNT_TEST(0, test_paper_domain),
      PAPER_COUNT_TEST(1, test_paper_domain),
      PAPER_COUNT_TEST(2, test_paper_domain),
      PAPER_COUNT_TEST(3, test_paper_domain),
      cmocka_unit_test(test_failure_texts),
      cmocka_unit_test(test_horse_breeder_trough),
      cmocka_unit_test(test_any_in_start_refused),
      cmocka_unit_test(test_random_domains),
      cmocka_unit_test(test_population_matches_sp_plan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
