/* test_plan_cache.c: the plan cache alone: identical results, bounds, keys, clearing and memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "sp_builtin.h"
#include "sp_plan_cache.h"
#include "paper_facts.h"
#include "test_alloc.h"
#include "test_fixture.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

static const SpAllocator plain = {NULL, NULL};

/* A cache of `capacity` entries (0: the default) for f's domain. */
static SpPlanCache *cache_for(const TestFixture *f, uint32_t capacity) {
  SpPlanCache *c = NULL;
  SpError err;
  if (sp__plan_cache_new(f->d, capacity, plain, &c, &err) != SP_OK)
    fail_msg("plan cache: %s", err.message);
  return c;
}

/* Plans (s0, goal) afresh and through the cache and asserts the status,
 * plan and failure record are identical, byte for byte. */
static void expect_same(TestFixture *f, SpPlanCache *c, const SpValue *s0,
                        const SpValue *goal) {
  uint16_t fresh[1024], cached[1024];
  int flen = -7, clen = -7;
  SpFailure ff, cf;
  memset(&ff, 0x5A, sizeof ff);
  memset(&cf, 0x5A, sizeof cf);
  memset(fresh, 0xEE, sizeof fresh);
  memset(cached, 0xEE, sizeof cached);
  SpStatus fs = sp_plan(f->d, f->ws, s0, goal, fresh, &flen, &ff);
  SpStatus cs =
      sp__plan_cache_plan(c, f->d, f->ws, s0, goal, cached, &clen, &cf);
  assert_int_equal(cs, fs);
  assert_int_equal(clen, flen);
  assert_memory_equal(cached, fresh, (size_t)flen * sizeof(uint16_t));
  if (fs == SP_NO_PLAN) {
    assert_memory_equal(&cf, &ff, sizeof ff);
  } else {
    assert_int_equal(cf.code, SP_FAIL_NONE);
  }
}

/* ------------------------------------------------------------------ */
/* Tests                                                              */
/* ------------------------------------------------------------------ */

/* Every pair of Horse Breeder states: the first lookup misses, the
 * second hits, and both equal sp_plan exactly (plans and failures). */
static void test_every_horse_pair_identical(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  SpPlanCache *c = cache_for(&f, 0);
  assert_int_equal(c->capacity, SP_PLAN_CACHE_DEFAULT_CAPACITY);
  assert_int_equal(c->id_bytes, 1);
  SpValue s0[8], goal[8];
  long pairs = 0, solvable = 0;
  for (long i = 0; test_decode_state(f.d, i, s0); i++) {
    for (long j = 0; test_decode_state(f.d, j, goal); j++) {
      expect_same(&f, c, s0, goal); /* miss */
      expect_same(&f, c, s0, goal); /* hit */
      uint16_t plan[16];
      int len;
      if (sp_plan(f.d, f.ws, s0, goal, plan, &len, NULL) == SP_OK) solvable++;
      pairs++;
    }
  }
  assert_int_equal(pairs, 18 * 18);
  assert_true(solvable > 0 && solvable < pairs);
  assert_int_equal(c->count, pairs);
  assert_int_equal(c->misses, pairs);
  assert_int_equal(c->hits, pairs);
  assert_int_equal(c->rejected, 0);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

/* A failure pointer left NULL still caches the failure, and a later
 * caller with a record gets the full record. */
static void test_failure_cached_without_record(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  SpPlanCache *c = cache_for(&f, 64);
  /* feeder filled can never be undone: (in_feeder, ...) -> stored */
  SpValue s0[3] = {2, 0, 0}, goal[3] = {0, 0, 0};
  uint16_t plan[16];
  int len;
  assert_int_equal(
      sp__plan_cache_plan(c, f.d, f.ws, s0, goal, plan, &len, NULL),
      SP_NO_PLAN);
  assert_int_equal(c->count, 1);
  expect_same(&f, c, s0, goal);
  assert_int_equal(c->hits, 1);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

/* A full cache stops inserting: entries already in keep answering, new
 * pairs are planned afresh (still identical) and counted as rejected. */
static void test_bounded_stops_inserting(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  SpPlanCache *c = cache_for(&f, 10);
  RdRng rng = {7};
  SpValue s0[16][8], goal[16][8];
  for (int k = 0; k < 16; k++) {
    test_random_state(f.d, &rng, s0[k]);
    test_random_state(f.d, &rng, goal[k]);
    goal[k][0] = (SpValue)k % 3; /* distinct pairs for sure */
    s0[k][6] = (SpValue)(k / 3 % 2);
    s0[k][5] = (SpValue)(k / 6 % 2);
    s0[k][4] = (SpValue)(k / 12 % 2);
  }
  for (int k = 0; k < 16; k++) expect_same(&f, c, s0[k], goal[k]);
  assert_int_equal(c->count, 10);
  assert_int_equal(c->rejected, 6);
  for (int k = 0; k < 16; k++) expect_same(&f, c, s0[k], goal[k]);
  assert_int_equal(c->hits, 10);
  assert_int_equal(c->count, 10);
  assert_int_equal(c->rejected, 12);
  size_t before = sp__plan_cache_size_bytes(c);
  assert_true(before > 0);
  sp__plan_cache_clear(c);
  assert_int_equal(c->count, 0);
  assert_int_equal(c->hits, 0);
  assert_int_equal(sp__plan_cache_size_bytes(c), before);
  uint64_t key[4];
  uint64_t h = sp__plan_cache_key(c, s0[0], goal[0], key);
  assert_int_equal(sp_plan_cache_find(c, key, h), SP_CACHE_NONE);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

/* Keys that differ in one byte, in either state, are different entries;
 * the same pair gives the same key and hash however it is stored. */
static void test_keys_distinguish_every_byte(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(
      &f, sp_builtin_multiprv_2_cycle(plain, 11)); /* 11 vars: 2 words */
  SpPlanCache *c = cache_for(&f, 256);
  SpError err;
  assert_int_equal(sp__plan_cache_reserve(c, 256, &err), SP_OK);
  assert_int_equal(c->key_words, 2);
  SpValue base0[11] = {0}, base1[11] = {0};
  uint64_t key[4], again[4];
  uint64_t h0 = sp__plan_cache_key(c, base0, base1, key);
  uint16_t plan[64];
  uint32_t e0 = sp__plan_cache_insert(c, key, h0, SP_CACHE_PLAN, plan, 0, NULL);
  assert_int_equal(e0, 0);
  for (int side = 0; side < 2; side++) {
    for (int v = 0; v < 11; v++) {
      SpValue a[11] = {0}, b[11] = {0};
      (side == 0 ? a : b)[v] = 1;
      uint64_t h = sp__plan_cache_key(c, a, b, key);
      assert_int_equal(sp_plan_cache_find(c, key, h), SP_CACHE_NONE);
      plan[0] = (uint16_t)(side * 11 + v);
      uint32_t e =
          sp__plan_cache_insert(c, key, h, SP_CACHE_PLAN, plan, 1, NULL);
      assert_int_equal(e, (uint32_t)(1 + side * 11 + v));
    }
  }
  /* a state copied inside a larger buffer (bytes after it not zero) packs
   * to the same key */
  SpValue wide[16];
  memset(wide, 3, sizeof wide);
  memset(wide, 0, 11);
  wide[4] = 1;
  uint64_t h1 = sp__plan_cache_key(c, wide, base1, again);
  uint32_t e = sp_plan_cache_find(c, again, h1);
  assert_int_equal(e, 5);
  assert_int_equal(sp_plan_cache_entry_length(c, e), 1);
  assert_int_equal(sp_plan_cache_entry_ids(c, e)[0], 4);
  assert_int_equal(sp_plan_cache_entry_kind(c, e), SP_CACHE_PLAN);
  uint16_t out[4];
  assert_int_equal(sp__plan_cache_entry_plan(c, e, out), 1);
  assert_int_equal(out[0], 4);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

/* Collisions: a tiny table full of keys still finds each one. */
static void test_probe_runs(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_acquisition_machine(plain));
  SpPlanCache *c = cache_for(&f, 8);
  SpError err;
  assert_int_equal(sp__plan_cache_reserve(c, 8, &err), SP_OK);
  SpValue s0[7] = {0}, goal[7] = {0};
  uint64_t key[2];
  uint16_t plan[16] = {0};
  for (int k = 0; k < 8; k++) {
    s0[2] = (SpValue)(k % 4);
    s0[3] = (SpValue)(k / 4);
    /* all into one probe run: same low hash bits */
    uint64_t h = sp__plan_cache_key(c, s0, goal, key) & ~(uint64_t)0xFFFF;
    plan[0] = (uint16_t)k;
    assert_int_equal(
        sp__plan_cache_insert(c, key, h, SP_CACHE_PLAN, plan, 1, NULL),
        (uint32_t)k);
  }
  for (int k = 7; k >= 0; k--) {
    s0[2] = (SpValue)(k % 4);
    s0[3] = (SpValue)(k / 4);
    uint64_t h = sp__plan_cache_key(c, s0, goal, key) & ~(uint64_t)0xFFFF;
    uint32_t e = sp_plan_cache_find(c, key, h);
    assert_int_equal(e, (uint32_t)k);
    assert_int_equal(sp_plan_cache_entry_ids(c, e)[0], k);
  }
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

/* Paper domains and larger synthetic ones (multi-word keys, 16-bit ids):
 * random pairs twice through the cache equal sp_plan. */
static void test_random_pairs_all_domains(void **state) {
  (void)state;
  SpBuiltSpec *specs[] = {
      sp_builtin_horse_breeder(plain, SP_HORSE_IJCAI),
      sp_builtin_citizen(plain), sp_builtin_acquisition_machine(plain),
      sp_builtin_multiprv_2_cycle(plain, 12),
      sp_builtin_oneprv_5(plain, 70) /* 280 actions: 2-byte ids */};
  for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
    TestFixture f;
    test_fixture_open(&f, specs[s]);
    SpPlanCache *c = cache_for(&f, 512);
    assert_int_equal(c->id_bytes, f.a > 255 ? 2 : 1);
    RdRng rng = {1000 + s};
    SpValue s0[128], goal[128];
    for (int k = 0; k < 400; k++) {
      test_random_state(f.d, &rng, s0);
      if (k % 2) {
        memcpy(goal, s0, (size_t)f.m); /* near goals: often solvable */
        for (int t = 0; t < 3; t++) {
          int v = (int)(rd_next(&rng) % (uint64_t)f.m);
          goal[v] = (SpValue)(rd_next(&rng) %
                              (uint64_t)sp_variable_value_count(f.d, v));
        }
      } else {
        test_random_state(f.d, &rng, goal);
      }
      expect_same(&f, c, s0, goal);
      expect_same(&f, c, s0, goal);
    }
    assert_true(c->hits >= 400);
    /* the named pairs of the paper domains */
    for (int i = 0; i < f.b->start_count; i++)
      for (int g = 0; g < f.b->goal_count; g++) {
        sp_builtin_resolve_goal(f.b, &f.b->goals[g], f.b->starts[i].values,
                                goal);
        expect_same(&f, c, f.b->starts[i].values, goal);
        expect_same(&f, c, f.b->starts[i].values, goal);
      }
    sp__plan_cache_free(c);
    test_fixture_close(&f);
  }
}

/* The SSCI worked example comes back from the cache as the paper gives it. */
static void test_worked_example_from_cache(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  SpPlanCache *c = cache_for(&f, 4);
  for (int round = 0; round < 2; round++) {
    uint16_t plan[16];
    int len;
    assert_int_equal(sp__plan_cache_plan(c, f.d, f.ws, paper_sigma3_start,
                                         paper_sigma3_goal, plan, &len, NULL),
                     SP_OK);
    assert_int_equal(len, PAPER_SIGMA3_LENGTH);
    for (int k = 0; k < PAPER_SIGMA3_LENGTH; k++)
      assert_string_equal(sp_action_name(f.d, plan[k]), paper_sigma3_plan[k]);
  }
  assert_int_equal(c->hits, 1);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

static void test_capacity_limit_and_memory(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_citizen(plain));
  SpPlanCache *c = (SpPlanCache *)1;
  SpError err;
  assert_int_equal(
      sp__plan_cache_new(f.d, SP_PLAN_CACHE_MAX_CAPACITY + 1u, plain, &c, &err),
      SP_ERR_INVALID);
  assert_null(c);
  assert_int_equal(err.code, SP_E_LIMIT);
  assert_non_null(strstr(err.message, "capacity"));
  /* every allocation failure leaves nothing behind */
  for (long k = 1;; k++) {
    TestAlloc cnt;
    test_alloc_init(&cnt, k);
    SpAllocator a = test_alloc_hook(&cnt);
    SpStatus st = sp__plan_cache_new(f.d, 100, a, &c, &err);
    if (st == SP_OK) {
      assert_true(cnt.live == 2); /* the struct and an empty table */
      assert_int_equal(cnt.bytes, sp__plan_cache_size_bytes(c));
      sp__plan_cache_free(c);
      assert_int_equal(cnt.live, 0);
      assert_int_equal(cnt.bytes, 0);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_null(c);
    assert_int_equal(cnt.live, 0);
  }
  /* reserving: a failure at any allocation leaves a working cache whose
   * bytes are all counted, and the reserve succeeds once memory is back */
  for (long k = 1;; k++) {
    TestAlloc cnt;
    test_alloc_init(&cnt, 0);
    SpAllocator a = test_alloc_hook(&cnt);
    assert_int_equal(sp__plan_cache_new(f.d, 3000, a, &c, &err), SP_OK);
    cnt.fail_at = cnt.calls + k;
    SpStatus st = sp__plan_cache_reserve(c, 3000, &err);
    assert_int_equal(cnt.bytes, sp__plan_cache_size_bytes(c));
    assert_true(c->reserved <= (c->slot_mask + 1u) / 2u);
    if (st == SP_OK) {
      assert_int_equal(c->reserved, 3000);
      sp__plan_cache_free(c);
      assert_int_equal(cnt.live, 0);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_true(c->reserved < 3000);
    cnt.fail_at = 0;
    assert_int_equal(sp__plan_cache_reserve(c, 3000, &err), SP_OK);
    assert_int_equal(c->reserved, 3000);
    assert_int_equal(cnt.bytes, sp__plan_cache_size_bytes(c));
    sp__plan_cache_free(c);
    assert_int_equal(cnt.live, 0);
  }
  /* the struct and the table start on cache lines */
  c = cache_for(&f, 100);
  assert_int_equal(sp__plan_cache_reserve(c, 100, &err), SP_OK);
  assert_int_equal((uintptr_t)c % 64, 0);
  assert_int_equal((uintptr_t)c->slots % 64, 0);
  assert_true(c->slot_mask + 1u >= 200u);
  sp__plan_cache_free(c);
  sp__plan_cache_free(NULL);
  test_fixture_close(&f);
}

/* The key of pair number k (distinct for k < 3125) of a 70-variable
 * domain. */
static uint64_t numbered_key(const SpPlanCache *c, uint32_t k, uint64_t *key) {
  SpValue s0[70] = {0}, goal[70] = {0};
  s0[0] = (SpValue)(k % 5);
  s0[1] = (SpValue)(k / 5 % 5);
  s0[2] = (SpValue)(k / 25 % 5);
  goal[3] = (SpValue)(k / 125 % 5);
  goal[4] = (SpValue)(k / 625);
  return sp__plan_cache_key(c, s0, goal, key);
}

/* Growing keeps every entry where it was: entries stored one reserve at
 * a time still give back their plans after many chunks and rehashes, and
 * a cache takes storage only for what it holds. */
static void test_growth_keeps_entries(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_oneprv_5(plain, 70)); /* 280 actions */
  SpPlanCache *c = cache_for(&f, 4000);
  size_t empty = sp__plan_cache_size_bytes(c);
  assert_int_equal(c->reserved, 0);
  assert_true(empty < 4096);
  SpError err;
  uint64_t key[2 * 9];
  uint16_t plan[280], out[280];
  const SpPlanCache *stable = c;
  const uint8_t *first_ids = NULL;
  for (uint32_t k = 0; k < 3000; k++) {
    assert_int_equal(sp__plan_cache_reserve(c, k + 1u, &err), SP_OK);
    assert_true(c->reserved >= k + 1u);
    uint64_t h = numbered_key(c, k, key);
    int len = (int)(k % 200) + 1;
    for (int t = 0; t < len; t++) plan[t] = (uint16_t)((k + (uint32_t)t) % 280);
    assert_int_equal(
        sp__plan_cache_insert(c, key, h, SP_CACHE_PLAN, plan, len, NULL), k);
    if (k == 0) first_ids = sp_plan_cache_entry_ids(c, 0);
  }
  assert_ptr_equal(c, stable);
  assert_ptr_equal(sp_plan_cache_entry_ids(c, 0), first_ids); /* never moved */
  for (uint32_t k = 0; k < 3000; k++) {
    uint64_t h = numbered_key(c, k, key);
    assert_int_equal(sp_plan_cache_find(c, key, h), k);
    int len = sp__plan_cache_entry_plan(c, k, out);
    assert_int_equal(len, (int)(k % 200) + 1);
    for (int t = 0; t < len; t++)
      assert_int_equal(out[t], (k + (uint32_t)t) % 280);
  }
  /* full: doubling stopped at the capacity, and the storage is about
   * what 4000 entries need (plan, meta, failure, at most 4 table slots
   * each), not more */
  assert_int_equal(c->reserved, 4000);
  size_t per_entry = 560 + 4 + sizeof(SpFailure) +
                     4u * (size_t)c->slot_words * sizeof(uint64_t);
  assert_true(sp__plan_cache_size_bytes(c) < 4000 * per_entry + 65536);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

/* Plans of a huge domain: the capacity shrinks so that a full cache
 * holds at most SP_PLAN_CACHE_MAX_PLAN_BYTES of plans. */
static void test_capacity_bounded_by_plan_bytes(void **state) {
  (void)state;
  TestFixture f;
  test_fixture_open(&f, sp_builtin_oneprv_5(plain, 70)); /* 280 actions */
  SpPlanCache *c = NULL;
  SpError err;
  assert_int_equal(
      sp__plan_cache_new(f.d, SP_PLAN_CACHE_MAX_CAPACITY, plain, &c, &err),
      SP_OK);
  assert_int_equal(c->plan_stride, 560);
  assert_int_equal(c->capacity, SP_PLAN_CACHE_MAX_PLAN_BYTES / 560);
  assert_int_equal(sp__plan_cache_reserve(c, UINT32_MAX, &err), SP_OK);
  assert_int_equal(c->reserved, c->capacity);
  size_t plans = (size_t)c->chunk_count * c->chunk_bytes;
  assert_true(plans <
              SP_PLAN_CACHE_MAX_PLAN_BYTES + SP_PLAN_CACHE_MAX_PLAN_BYTES / 4);
  sp__plan_cache_free(c);
  test_fixture_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_horse_pair_identical),
      cmocka_unit_test(test_failure_cached_without_record),
      cmocka_unit_test(test_bounded_stops_inserting),
      cmocka_unit_test(test_keys_distinguish_every_byte),
      cmocka_unit_test(test_probe_runs),
      cmocka_unit_test(test_random_pairs_all_domains),
      cmocka_unit_test(test_worked_example_from_cache),
      cmocka_unit_test(test_capacity_limit_and_memory),
      cmocka_unit_test(test_growth_keeps_entries),
      cmocka_unit_test(test_capacity_bounded_by_plan_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
