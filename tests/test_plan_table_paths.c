/* test_plan_table_paths.c: every way a cached frame reads the direct table (bit-packed with pext or a byte loop, mixed radix, hash caches alone) gives sp_plan's results, and bit-packed ranks and goal ids never collide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "saspu_population.h"
#include "sp_builtin.h"
#include "sp_plan_table.h"
#include "sp_population.h"
#include "population_checks.h"
#include "test_fixture.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("bmi2"))) static uint64_t hw_pext(uint64_t x,
                                                        uint64_t mask) {
  return _pext_u64(x, mask);
}
#define HAVE_HW_PEXT 1
#endif

static const SpAllocator plain = {NULL, NULL};

/* The packed word of state s (m values; bytes past m zero). */
static uint64_t word_of(const SpValue *s, int m) {
  uint64_t x = 0;
  memcpy(&x, s, (size_t)m);
  return x;
}

/* pack() as the loops compute it, and as pext does where the CPU has it:
 * both must agree. */
static uint64_t packed(uint64_t x, uint64_t mask, const uint8_t *at, int m) {
  uint64_t soft = sp_plan_table_pack(x, mask, at, m);
#if defined(HAVE_HW_PEXT)
  if (sp__population_fast_pext()) assert_int_equal(hw_pext(x, mask), soft);
#endif
  return soft;
}

/* For each paper domain, the bit-packed layout: every start's rank is
 * below the row length and no two starts share one; every goal word
 * (each variable a value or SP_ANY) has an id below goal_ids and no two
 * share one. The mixed-radix layout is what a table asked for without
 * bits gets. */
static void test_ranks_and_goal_ids_are_distinct(void **state) {
  (void)state;
  for (int which = 0; which < PAPER_COUNT; which++) {
    TestFixture f;
    test_fixture_open(&f, paper_spec(which));
    SpPlanTable *t = NULL, *radix = NULL;
    SpError err;
    assert_int_equal(sp__plan_table_new(f.d, 1, plain, &t, &err), SP_OK);
    assert_int_equal(sp__plan_table_new(f.d, 0, plain, &radix, &err), SP_OK);
    assert_non_null(t);
    assert_non_null(radix);
    assert_true(t->bits);
    assert_false(radix->bits);
    assert_int_equal(radix->cell_count,
                     (size_t)SP_PLAN_TABLE_GOALS * radix->states);
    assert_int_equal(t->cell_count,
                     (size_t)(SP_PLAN_TABLE_GOALS + SP_TABLE_ROW_FIRST) *
                         t->states);
    uint8_t *seen = calloc(t->goal_ids, 1);
    assert_non_null(seen);
    SpValue s[8], g[8];
    long k = 0;
    while (test_decode_state(f.d, k++, s)) {
      uint64_t r = packed(word_of(s, f.m), t->state_bits, t->state_at, f.m);
      assert_true(r < t->states);
      assert_int_equal(seen[r], 0);
      seen[r] = 1;
    }
    memset(seen, 0, t->goal_ids);
    /* goals: every combination of (value or SP_ANY) per variable, as a
     * mixed-radix count over (values + 1) */
    long combos = 1;
    for (int v = 0; v < f.m; v++) combos *= sp_variable_value_count(f.d, v) + 1;
    for (long c = 0; c < combos; c++) {
      long r = c;
      for (int v = 0; v < f.m; v++) {
        long n = sp_variable_value_count(f.d, v) + 1;
        g[v] = r % n == n - 1 ? SP_ANY : (SpValue)(r % n);
        r /= n;
      }
      uint64_t id = packed(word_of(g, f.m), t->goal_bits, t->goal_at, f.m);
      assert_true(id < t->goal_ids);
      assert_int_equal(seen[id], 0);
      seen[id] = 1;
    }
    free(seen);
    sp__plan_table_free(t);
    sp__plan_table_free(radix);
    test_fixture_close(&f);
  }
}

/* A pool of pairs with repeats: starts random, goals drawn from the
 * named goals as conditions and 40 random goals with some SP_ANY (more
 * goals than the table has rows, and unsolvable ones). */
typedef struct Pool {
  size_t n;
  SpValue *starts, *goals;
} Pool;

static Pool pool_make(const TestFixture *f, size_t n, RdRng *rng) {
  size_t m = (size_t)f->m;
  int named = f->b->goal_count, extra = 40;
  SpValue *goal_set = malloc((size_t)(named + extra) * m);
  assert_non_null(goal_set);
  for (int g = 0; g < named; g++) {
    const SpNamedState *ns = &f->b->goals[g];
    for (size_t v = 0; v < m; v++)
      goal_set[(size_t)g * m + v] =
          ns->keep != NULL && ns->keep[v] ? SP_ANY : ns->values[v];
  }
  for (int g = named; g < named + extra; g++) {
    SpValue *row = goal_set + (size_t)g * m;
    test_random_state(f->d, rng, row);
    for (size_t v = 0; v < m; v++)
      if (rd_next(rng) % 3 == 0) row[v] = SP_ANY;
  }
  Pool p = {n, malloc(n * m), malloc(n * m)};
  assert_non_null(p.starts);
  assert_non_null(p.goals);
  for (size_t i = 0; i < n; i++) {
    test_random_state(f->d, rng, p.starts + i * m);
    uint64_t g = rd_next(rng) % (uint64_t)(named + extra);
    memcpy(p.goals + i * m, goal_set + g * m, m);
  }
  free(goal_set);
  return p;
}

static void pool_free(Pool *p) {
  free(p->starts);
  free(p->goals);
}

/* NPC i takes a pool pair; with `some`, only about one NPC in three
 * (so blocks of eight are partly dirty). */
static void assign(const TestFixture *f, SpPopulation *pop, const Pool *pool,
                   RdRng *rng, int some) {
  size_t m = (size_t)f->m;
  SpError err;
  for (size_t i = 0; i < sp_population_size(pop); i++) {
    if (some && rd_next(rng) % 3 != 0) continue;
    size_t k = (size_t)(rd_next(rng) % pool->n);
    assert_int_equal(sp_population_set(pop, i, pool->starts + k * m,
                                       pool->goals + k * m, &err),
                     SP_OK);
  }
  if (!some)
    assert_int_equal(
        sp_population_mark_dirty(pop, 0, sp_population_size(pop), &err), SP_OK);
}

/* A population of its own (handles apart) or, with in_rows, a crowd's
 * (handles in the NPCs' rows). */
static SpPopulation *new_population(const TestFixture *f, size_t n,
                                    int in_rows) {
  SpPopulation *pop = NULL;
  SpError err;
  SpStatus st = in_rows ? sp__population_new_in_rows(f->d, n, plain, &pop, &err)
                        : sp_population_new(f->d, n, plain, &pop, &err);
  assert_int_equal(st, SP_OK);
  return pop;
}

/* Every table mode in turn on one population (so the table is remade
 * when the layout changes; the default mode last as on a CPU without a
 * fast pext, where it reads the mixed-radix table), whole and partial frames, 1 to 3 workers,
 * a population that is no multiple of eight, its handles apart or in its
 * rows: every NPC's result is sp_plan's after every frame, and the table
 * modes serve repeated pairs without planning them again. */
static void test_every_path_matches_sp_plan(void **state) {
  (void)state;
  static const int modes[] = {SP_TABLE_AUTO, SP_TABLE_PORTABLE, SP_TABLE_RADIX,
                              SP_TABLE_OFF,  SP_TABLE_AUTO,     SP_TABLE_AUTO};
  for (int at = 0; at < 2 * PAPER_COUNT; at++) {
    int which = at % PAPER_COUNT, in_rows = at >= PAPER_COUNT;
    TestFixture f;
    test_fixture_open(&f, paper_spec(which));
    RdRng rng = {(uint64_t)which * 131u + 7u};
    Pool pool = pool_make(&f, 600, &rng);
    SpPopulation *pop = new_population(&f, 20003, in_rows);
    size_t mode_count = sizeof modes / sizeof modes[0];
    for (size_t mi = 0; mi < mode_count; mi++) {
      /* last: as on a CPU without a fast pext */
      if (mi == mode_count - 1) pop->fast_pext = 0;
      sp__population_use_table(pop, modes[mi]);
      for (int frame = 0; frame < 3; frame++) {
        assign(&f, pop, &pool, &rng, frame == 2);
        SpPlanReport r = plan_with(pop, 1 + (frame + (int)mi) % 3, 0, 0);
        assert_int_equal(r.waiting, 0);
        expect_matches_sp_plan(&f, pop);
        /* the pool's pairs are all met by now: nothing planned afresh
         * beyond one miss per pair and worker */
        if (mi > 0 || frame > 0) assert_true(r.cache_misses <= 3 * pool.n);
      }
      if (modes[mi] != SP_TABLE_OFF) {
        int bits = modes[mi] == SP_TABLE_PORTABLE ||
                   (modes[mi] == SP_TABLE_AUTO && pop->fast_pext);
        assert_non_null(pop->table);
        assert_int_equal(pop->table->bits, bits);
      }
    }
    sp_population_free(pop);
    pool_free(&pool);
    test_fixture_close(&f);
  }
}

/* Starts that sit in their goal already (empty plans) and goals no start
 * reaches share the table with ordinary ones: after a clear (plans copied
 * to the slots, their lengths to the handles), as before it, each NPC has
 * sp_plan's result, on the bit-packed paths both, handles apart or in the
 * rows. */
static void test_empty_plans_and_failures(void **state) {
  (void)state;
  static const int modes[] = {SP_TABLE_AUTO, SP_TABLE_PORTABLE};
  for (int at = 0; at < 4; at++) {
    int mode_at = at % 2, in_rows = at >= 2;
    TestFixture f;
    test_fixture_open(&f, paper_spec(PAPER_CITIZEN));
    size_t m = (size_t)f.m, n = 4099;
    SpPopulation *pop = new_population(&f, n, in_rows);
    SpError err;
    sp__population_use_table(pop, modes[mode_at]);
    RdRng rng = {17};
    SpValue s[8];
    for (int round = 0; round < 2; round++) {
      for (size_t i = 0; i < n; i++) {
        test_random_state(f.d, &rng, s);
        /* a third: the goal is the start itself */
        SpValue g[8];
        memcpy(g, s, m);
        if (i % 3 != 0) test_random_state(f.d, &rng, g);
        assert_int_equal(sp_population_set(pop, i, s, g, &err), SP_OK);
      }
      plan_with(pop, 1, 0, 0);
      size_t failed = expect_matches_sp_plan(&f, pop);
      assert_true(failed > 0); /* random goals: some are unreachable */
      /* the same pairs again, from the table or (goals past its rows)
       * the one worker's cache */
      assert_int_equal(sp_population_mark_dirty(pop, 0, n, &err), SP_OK);
      SpPlanReport r = plan_with(pop, 1, 0, 0);
      assert_int_equal(r.cache_misses, 0);
      assert_int_equal(expect_matches_sp_plan(&f, pop), failed);
      sp_population_cache_clear(pop);
      expect_matches_sp_plan(&f, pop);
    }
    sp_population_free(pop);
    test_fixture_close(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ranks_and_goal_ids_are_distinct),
      cmocka_unit_test(test_every_path_matches_sp_plan),
      cmocka_unit_test(test_empty_plans_and_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
