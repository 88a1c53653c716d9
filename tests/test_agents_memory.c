/* test_agents_memory.c: what a crowd says it holds: event buffers that follow the frames, large arrays counted by their pages in memory, and bytes_total against the process's resident set. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "citizens.h"
#include "saspu_agents.h"
#include "saspu_population.h"
#include "sp_agents.h"
#include "sp_due.h"
#include "sp_loop.h"
#include "sp_builtin.h"
#include "sp_internal.h"
#include "walk_town.h"

static const SpAllocator plain = {NULL, NULL};

/* Citizens cycling work / end_work (actions of 1-3 s, no places), as the
 * timed crowd of bench/bench_memory.lua (tests/support/citizens.c). */
typedef Citizens Timed;

static void timed_open(Timed *t, size_t n) {
  citizens_open(t, n, 1.0f, 3.0f, 2, 1);
}
static void timed_close(Timed *t) { citizens_close(t); }

/* The process's resident set in bytes. */
static size_t rss_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;
  if (f == NULL) return 0;
  if (fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
  fclose(f);
  return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED                                                              \
  1 /* shadow memory and redzones make the resident set larger */
#else
#define SANITIZED 0
#endif

/* First in the program, before the allocator holds freed memory: the
 * process grows by what the crowd says it holds, within 10%, after a
 * first frame (every agent plans) and a second of quiet frames. */
static void test_total_agrees_with_rss(void **state) {
  (void)state;
  if (SANITIZED || rss_bytes() == 0) skip();
  enum { N = 300000 };
  size_t before = rss_bytes();
  Timed t;
  timed_open(&t, N);
  for (int f = 0; f < 90; f++)
    assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  size_t grown = rss_bytes() - before;
  SpCrowdStats s;
  sp_crowd_stats(t.c, &s);
  double ratio = (double)s.bytes_total / (double)grown;
  print_message(
      "crowd of %d: bytes_total %zu, RSS grew %zu (%.3fx), %zu per agent\n", N,
      s.bytes_total, grown, ratio, s.bytes_per_agent);
  assert_true(ratio > 0.9 && ratio < 1.1);
  assert_true(s.bytes_per_agent <= 88); /* 48 of record, 6 hot, population */
  timed_close(&t);
}

/* The first frame's events (a goal, a plan and a step per agent) leave
 * the buffers at their peak; quiet frames shrink them to what the frames
 * use, and what the crowd says it holds shrinks with them. */
static void test_event_buffers_follow_the_frames(void **state) {
  (void)state;
  enum { N = 20000 };
  Timed t;
  timed_open(&t, N);
  assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  size_t first = sp_crowd_event_count(t.c);
  assert_true(first >= 3 * (size_t)N);
  SpCrowdStats peak, quiet;
  sp_crowd_stats(t.c, &peak);
  /* a few quiet frames keep the buffers (a crowd whose frames alternate
   * busy and quiet would otherwise reallocate at every frame) */
  for (int f = 0; f < 4; f++)
    assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  assert_int_equal(sp_crowd_event_count(t.c), 0);
  sp_crowd_stats(t.c, &quiet);
  assert_true(quiet.bytes_total + 1024 >= peak.bytes_total);
  for (int f = 0; f < 8; f++)
    assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  assert_int_equal(sp_crowd_event_count(t.c), 0);
  sp_crowd_stats(t.c, &quiet);
  /* the frame buffer and the workers' held at least the first frame's
   * events; now each keeps a few KiB */
  assert_true(quiet.bytes_total + first * sizeof(SpAgentEvent) <=
              peak.bytes_total);
  assert_true(quiet.bytes_per_agent + 16 <= peak.bytes_per_agent);
  /* the spatial index, made by the first query, is counted: its cell
   * keys are written for every agent; the buckets' entries too once
   * queries with no move between them have rebuilt them */
  SpCrowdStats before_index, with_keys, with_buckets;
  sp_crowd_stats(t.c, &before_index);
  const uint32_t *near;
  size_t count;
  assert_int_equal(sp_crowd_near(t.c, 1, 1, 2, 10, &near, &count, NULL), SP_OK);
  assert_true(count > 0);
  sp_crowd_stats(t.c, &with_keys);
  assert_true(with_keys.bytes_total >=
              before_index.bytes_total + N * sizeof(uint32_t));
  assert_true(with_keys.bytes_total <
              before_index.bytes_total + 2u * N * sizeof(uint32_t));
  for (int q = 0; q < SP_INDEX_SCANS_PER_REBUILD; q++)
    assert_int_equal(sp_crowd_near(t.c, 1, 1, 2, 10, &near, &count, NULL),
                     SP_OK);
  sp_crowd_stats(t.c, &with_buckets);
  assert_true(with_buckets.bytes_total >=
              before_index.bytes_total + 2u * N * sizeof(uint32_t));
  /* a busy frame grows them again, every event kept */
  for (int f = 0; f < 4; f++)
    assert_int_equal(sp_crowd_update(t.c, 1.0f, NULL), SP_OK);
  sp_crowd_stats(t.c, &quiet);
  assert_int_equal(quiet.events_lost, 0);
  assert_true(quiet.steps_finished >= (uint64_t)N);
  timed_close(&t);
}

/* A large mapping counts only its touched pages; a small array counts
 * whole; NULL counts nothing. */
static void test_resident_pages(void **state) {
  (void)state;
  size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = 256 * page;
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(p != MAP_FAILED);
  size_t fresh = sp__mem_resident(p, bytes);
  memset(p + 16 * page, 1, 64 * page);
  size_t touched = sp__mem_resident(p, bytes);
  /* the system may count a page or two it filled ahead; never the rest */
  assert_true(fresh <= 4 * page);
  assert_true(touched >= 64 * page && touched <= 68 * page);
  /* a part of the mapping: only its own bytes */
  assert_int_equal(sp__mem_resident(p + 16 * page + 100, 32 * page), 32 * page);
  assert_int_equal(sp__mem_resident(p, 100), 100);
  assert_int_equal(sp__mem_resident(NULL, bytes), 0);
  munmap(p, bytes);
}

/* An allocator whose large blocks are fresh mappings (untouched pages),
 * whatever the process freed before. */
enum { FRESH_MIN = 65536 };
static void *fresh_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (ptr != NULL && osize < FRESH_MIN && nsize < FRESH_MIN && nsize > 0)
    return realloc(ptr, nsize);
  void *p = NULL;
  if (nsize >= FRESH_MIN) {
    p = mmap(NULL, nsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED) return NULL;
  } else if (nsize > 0) {
    p = malloc(nsize);
    if (p == NULL) return NULL;
  }
  if (ptr != NULL && p != NULL) memcpy(p, ptr, osize < nsize ? osize : nsize);
  if (ptr != NULL && osize >= FRESH_MIN)
    munmap(ptr, osize);
  else
    free(ptr);
  return p;
}

/* A population's handles and slots are written only when NPCs are
 * planned into them: bytes_resident leaves out the pages never touched,
 * bytes_total (what was allocated) does not. */
static void test_population_resident(void **state) {
  (void)state;
  enum { N = 100000 };
  const SpAllocator fresh = {fresh_alloc, NULL};
  SpBuiltSpec *b = sp_builtin_citizen(plain);
  SpDomain *d;
  assert_int_equal(sp_domain_compile(&b->spec, NULL, plain, &d, NULL), SP_OK);
  int m = sp_domain_variable_count(d);
  SpPopulation *pop;
  assert_int_equal(sp_population_new(d, N, fresh, &pop, NULL), SP_OK);
  SpPopulationStats s;
  sp_population_stats(pop, &s);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t written =
      (size_t)N * (2u * (size_t)m + 1u); /* states, goals, status */
  size_t slots = (size_t)N * (size_t)sp_domain_action_count(d);
  assert_true(s.bytes_resident >= s.bytes_total - s.bytes_npcs + written);
  assert_true(s.bytes_resident <=
              s.bytes_total - s.bytes_npcs + written + 8 * page);
  /* every NPC at (all 0) -> (all 0) through the caches: handles written,
   * the slots still untouched */
  SpPlanOptions o = {1, 0, 0, NULL};
  assert_int_equal(sp_population_plan(pop, &o, NULL, NULL), SP_OK);
  sp_population_stats(pop, &s);
  assert_true(s.bytes_resident + slots <= s.bytes_total + 8 * page);
  /* cold plans of real pairs go to the slots: then nearly all is held */
  SpValue *go = malloc((size_t)N * (size_t)m);
  assert_non_null(go);
  memset(go, SP_ANY, (size_t)N * (size_t)m);
  for (size_t i = 0; i < N; i++) go[i * (size_t)m + i % (size_t)m] = 1;
  assert_int_equal(sp_population_set_goals(pop, 0, N, go, NULL), SP_OK);
  assert_int_equal(sp_population_mark_dirty(pop, 0, N, NULL), SP_OK);
  SpPlanOptions cold = {1, 1, 0, NULL};
  assert_int_equal(sp_population_plan(pop, &cold, NULL, NULL), SP_OK);
  sp_population_stats(pop, &s);
  assert_true(s.planned > N / 2);
  assert_true(s.bytes_resident + 8 * page >= s.bytes_total);
  free(go);
  sp_population_free(pop);
  sp_domain_free(d);
  sp_builtin_free(b);
}

/* The binding hints of a frame where every walker takes its place at
 * once (the first) leave each worker's list at its peak; frames with no
 * binding shrink it, as the event buffers: what a town holds follows its
 * frames, not its dawn. */
static size_t hint_caps(const SpCrowd *c) {
  size_t sum = 0;
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) sum += c->cw[k].hint_cap;
  return sum;
}

static void test_binding_hints_follow_the_frames(void **state) {
  (void)state;
  enum { N = 6000 };
  WalkTown t;
  /* one thread: with two, how the first frame's hints split between the
   * workers' lists depends on which takes which chunk */
  walk_town_open(&t, 7, 32, 32, N, 1, 1.0f);
  assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  size_t peak = hint_caps(t.c);
  assert_true(peak >= N / 2); /* most bound their place in the first frame */
  SpCrowdStats before, after;
  sp_crowd_stats(t.c, &before);
  /* the walkers walk and stay 1000 s: no binding in these frames */
  for (int f = 0; f < 20; f++)
    assert_int_equal(sp_crowd_update(t.c, 1.0f / 60.0f, NULL), SP_OK);
  sp_crowd_stats(t.c, &after);
  size_t quiet = hint_caps(t.c);
  assert_true(quiet * 4 <= peak);
  assert_true(after.bytes_total + (peak - quiet) * sizeof(BindHint) / 2 <=
              before.bytes_total);
  walk_town_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_total_agrees_with_rss),
      cmocka_unit_test(test_event_buffers_follow_the_frames),
      cmocka_unit_test(test_resident_pages),
      cmocka_unit_test(test_population_resident),
      cmocka_unit_test(test_binding_hints_follow_the_frames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
