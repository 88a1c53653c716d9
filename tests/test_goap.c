/* test_goap.c: the benchmark's GOAP A* baseline against breadth-first search (minimal plans, unsolvable pairs, the node cap). */
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

/* The baseline lives with the benchmarks (bench/support); CMake links
 * it into the test support library. */
#include "goap_astar.h"

static const SpAllocator plain = {NULL, NULL};

/* Room for A* plans, which may repeat actions outside the classes. */
#define PLAN_ROOM 4096

typedef struct Tally {
  long pairs, solvable, found;
} Tally;

/* Runs A* from s0 to every state and checks it against the distances of
 * the BFS from s0: GOAP_FOUND iff reachable, length = distance, the plan
 * replays from s0 to the goal; otherwise GOAP_NO_PLAN (never capped: the
 * cap is the state count). Returns the number of mismatches (printed). */
static long check_start(const SpDomain *d, OracleSpace *o, GoapPlanner *p,
                        const SpValue *s0, Tally *t) {
  int m = sp_domain_variable_count(d);
  long n = oracle_state_count(o), k, bad = 0;
  SpValue goal[64], replay[64];
  static uint16_t plan[PLAN_ROOM];
  oracle_bfs(o, s0);
  for (k = 0; k < n; k++) {
    int len, dist;
    GoapResult r;
    oracle_state_decode(o, k, goal);
    dist = oracle_distance_at(o, k);
    r = goap_plan(p, s0, goal, plan, PLAN_ROOM, &len);
    t->pairs++;
    if (dist >= 0) t->solvable++;
    if (r == GOAP_FOUND) t->found++;
    if (dist >= 0 && r == GOAP_FOUND && len == dist && len <= PLAN_ROOM) {
      memcpy(replay, s0, (size_t)m);
      if (sp_plan_replay(d, replay, plan, len) == -1 &&
          memcmp(replay, goal, (size_t)m) == 0)
        continue;
    } else if (dist < 0 && r == GOAP_NO_PLAN) {
      continue;
    }
    if (bad++ < 3) {
      printf("%s: A* %s, length %d, BFS distance %d\n  s0 ", sp_domain_name(d),
             goap_result_name(r), len, dist);
      oracle_print_state(stdout, d, s0);
      printf("\n  s* ");
      oracle_print_state(stdout, d, goal);
      printf("\n");
    }
  }
  return bad;
}

/* Every pair of a compiled domain. Returns the mismatch count. */
static long check_all_pairs(const SpDomain *d, Tally *t) {
  OracleSpace *o = oracle_space_new(d);
  GoapPlanner *p;
  SpValue s0[64];
  long k, bad = 0;
  assert_non_null(o);
  p = goap_planner_new(d, oracle_state_count(o));
  assert_non_null(p);
  for (k = 0; k < oracle_state_count(o); k++) {
    oracle_state_decode(o, k, s0);
    bad += check_start(d, o, p, s0, t);
  }
  goap_planner_free(p);
  oracle_space_free(o);
  return bad;
}

static SpDomain *compile(SpBuiltSpec *b) {
  SpCompileOptions opts = {1};
  SpDomain *d = NULL;
  SpError err;
  assert_non_null(b);
  assert_int_equal(sp_domain_compile(&b->spec, &opts, plain, &d, &err), SP_OK);
  return d;
}

/* Compiles, checks every pair, and asserts the solvable count (for the
 * paper domains, the figures test_exhaustive gets from BFS). */
static void check_builtin(SpBuiltSpec *b, long expected_pairs,
                          long expected_solvable) {
  SpDomain *d = compile(b);
  Tally t = {0, 0, 0};
  long bad = check_all_pairs(d, &t);
  printf("%s: %ld pairs, %ld solvable, %ld found by A*, %ld mismatches\n",
         sp_domain_name(d), t.pairs, t.solvable, t.found, bad);
  assert_int_equal(bad, 0);
  assert_int_equal(t.pairs, expected_pairs);
  if (expected_solvable >= 0) assert_int_equal(t.solvable, expected_solvable);
  assert_int_equal(t.found, t.solvable);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* One paper domain: every pair (the counts are in paper_facts.c). */
static void test_paper_domain(void **state) {
  const PaperCount *p = *state;
  check_builtin(p->build(plain), p->states * p->states, p->solvable);
}

/* The synthetic families at sizes BFS covers, including MultiPrv_n_Cycle
 * outside the classes, where A* must still be exact (it does not rely on
 * the classes at all). */
static void test_synthetic(void **state) {
  (void)state;
  check_builtin(sp_builtin_multiprv_2_cycle(plain, 6), 64L * 64L, -1);
  check_builtin(sp_builtin_multiprv_n_cycle(plain, 3, 3), 27L * 27L, -1);
  check_builtin(sp_builtin_multiprv_n_cycle(plain, 2, 6), 36L * 36L, -1);
  check_builtin(sp_builtin_oneprv_5(plain, 3), 125L * 125L, -1);
}

/* The paper's worked example: FeedHorses from the morning takes six
 * actions, and A* finds a plan of that length. */
static void test_feed_horses_length(void **state) {
  SpBuiltSpec *b = sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  SpDomain *d = compile(b);
  GoapPlanner *p = goap_planner_new(d, 0);
  const SpValue s0[3] = {0, 0, 0}, goal[3] = {2, 0, 2};
  uint16_t plan[16];
  int len;
  (void)state;
  assert_non_null(p);
  assert_int_equal(goap_plan(p, s0, goal, plan, 16, &len), GOAP_FOUND);
  assert_int_equal(len, 6);
  assert_int_equal(goap_planner_state_words(p), 1);
  /* the same query again on the reused storage gives the same plan */
  {
    uint16_t again[16];
    int len2;
    assert_int_equal(goap_plan(p, s0, goal, again, 16, &len2), GOAP_FOUND);
    assert_int_equal(len2, len);
    assert_memory_equal(again, plan, sizeof(uint16_t) * (size_t)len);
  }
  goap_planner_free(p);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* Random domains of every flavour (inside and outside the classes): all
 * goals from a few starts each. */
static void test_random_domains(void **state) {
  RandomDomain *rd = malloc(sizeof *rd);
  long bad = 0, domains = 0;
  Tally t = {0, 0, 0};
  int i;
  (void)state;
  assert_non_null(rd);
  for (i = 0; i < 300; i++) {
    SpCompileOptions opts = {1};
    SpDomain *d = NULL;
    SpError err;
    OracleSpace *o;
    GoapPlanner *p;
    RdRng rng;
    int k;
    random_domain_generate(rd, 0xA57A0000ull + (uint64_t)i,
                           (RdFlavor)(i % RD_FLAVOR_COUNT));
    if (sp_domain_compile(&rd->spec, &opts, plain, &d, &err) != SP_OK) continue;
    o = oracle_space_new(d);
    assert_non_null(o);
    p = goap_planner_new(d, oracle_state_count(o));
    assert_non_null(p);
    rd_seed(&rng, rd->seed);
    for (k = 0; k < 4; k++) {
      SpValue s0[RD_MAX_VARIABLES];
      oracle_state_decode(o, (long)rd_below(&rng, (int)oracle_state_count(o)),
                          s0);
      bad += check_start(d, o, p, s0, &t);
    }
    domains++;
    goap_planner_free(p);
    oracle_space_free(o);
    sp_domain_free(d);
  }
  printf("random: %ld domains, %ld pairs, %ld solvable, %ld mismatches\n",
         domains, t.pairs, t.solvable, bad);
  free(rd);
  assert_true(domains > 250);
  assert_int_equal(bad, 0);
  assert_int_equal(t.found, t.solvable);
}

/* A node cap below the states A* must visit gives GOAP_CAPPED and no
 * plan; the same planner answers the next (small) query correctly. */
static void test_cap(void **state) {
  SpBuiltSpec *b = sp_builtin_oneprv_5(plain, 8);
  SpDomain *d = compile(b);
  GoapPlanner *p = goap_planner_new(d, 50);
  SpValue s0[8], goal[8];
  uint16_t plan[64];
  int len = 0;
  (void)state;
  assert_non_null(p);
  memset(s0, 0, sizeof s0);
  memset(goal, 4, sizeof goal);
  assert_int_equal(goap_plan(p, s0, goal, plan, 64, &len), GOAP_CAPPED);
  assert_int_equal(len, -1);
  assert_true(goap_last_stored(p) <= 50);
  /* v7 alone from 0 to 4: four actions, no prevail on the last variable */
  goal[7] = 4;
  memset(goal, 0, 7);
  assert_int_equal(goap_plan(p, s0, goal, plan, 64, &len), GOAP_FOUND);
  assert_int_equal(len, 4);
  goap_planner_free(p);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* A domain whose fields need several words (40 variables of 5 values at
 * 3 bits each: 21 per word, 2 words) plans correctly across words. */
static void test_multi_word(void **state) {
  SpBuiltSpec *b = sp_builtin_oneprv_5(plain, 40);
  SpDomain *d = compile(b);
  GoapPlanner *p = goap_planner_new(d, 1000);
  SpValue s0[40], goal[40], replay[40];
  uint16_t plan[256];
  int len = 0;
  (void)state;
  assert_non_null(p);
  assert_int_equal(goap_planner_field_bits(p), 3);
  assert_int_equal(goap_planner_state_words(p), 2);
  memset(s0, 0, sizeof s0);
  memset(goal, 0, sizeof goal);
  /* the last two variables to 3 and 2: v38 needs v39 = 2 on each step */
  goal[38] = 3;
  goal[39] = 2;
  assert_int_equal(goap_plan(p, s0, goal, plan, 256, &len), GOAP_FOUND);
  assert_int_equal(len, 5);
  memcpy(replay, s0, sizeof replay);
  assert_int_equal(sp_plan_replay(d, replay, plan, len), -1);
  assert_memory_equal(replay, goal, sizeof goal);
  goap_planner_free(p);
  sp_domain_free(d);
  sp_builtin_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_feed_horses_length),
      PAPER_COUNT_TEST(0, test_paper_domain),
      PAPER_COUNT_TEST(1, test_paper_domain),
      PAPER_COUNT_TEST(2, test_paper_domain),
      PAPER_COUNT_TEST(3, test_paper_domain),
      cmocka_unit_test(test_synthetic),
      cmocka_unit_test(test_random_domains),
      cmocka_unit_test(test_cap),
      cmocka_unit_test(test_multi_word),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
