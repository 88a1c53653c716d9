/* test_agents_ahead.c: the advance pass's look-ahead requests exactly the awake agents, in order, each once, running on across the whole crowd when its worker is alone and across the run of chunks it claimed beside others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "sp_agents.h"
#include "sp_wheel.h"
#include "sp_ahead.h"
#include "sp_due.h"

enum { N = 5 * SP_CROWD_CHUNK + 300 }; /* a last chunk not whole */

/* Wakes a scattered set (dense runs, lone agents, empty chunks, the last
 * agent) and lists it in order; returns its size. */
static size_t wake_some(SpCrowd *c, uint32_t *list) {
  memset(c->awake, 0, c->awake_words * sizeof(uint64_t));
  size_t n = 0;
  for (size_t i = 0; i < c->n; i++) {
    size_t t = i / SP_CROWD_CHUNK;
    int on = t == 2   ? 0 /* a chunk with nobody awake */
             : t == 1 ? (i % 64) < 40
                      : (i * 2654435761u) % 97 < 3;
    if (i == c->n - 1) on = 1;
    if (!on) continue;
    sp_agent_wake(c, i);
    list[n++] = (uint32_t)i;
  }
  return n;
}

/* The requests of a worker that visits chunks `from`..`to` as the pass
 * does, having claimed them as one run: the cursor set at each chunk's
 * start, one request per awake agent visited. Returns their count. */
static size_t requests(SpCrowd *c, size_t from, size_t to, int alone,
                       uint32_t *out) {
  Ahead a;
  sp__ahead_reset(c);
  a = c->cw[0].ahead;
  a.run_end = to + 1;
  size_t n = 0;
  for (size_t t = from; t <= to; t++) {
    sp__ahead_chunk(c, &a, t, alone);
    uint32_t here[SP_CROWD_CHUNK];
    size_t lo = t * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
    size_t na = sp__wheel_awake_list(c, lo, hi < c->n ? hi : c->n, here);
    for (size_t k = 0; k < na; k++) {
      size_t j = sp__ahead_next(c, &a);
      if (j != SIZE_MAX) out[n++] = (uint32_t)j;
    }
  }
  return n;
}

/* A crowd with a scattered set awake, its list, and room for requests. */
typedef struct Fixture {
  Citizens t;
  uint32_t *awake, *got;
  size_t na;
} Fixture;

static void fixture_open(Fixture *f) {
  citizens_open(&f->t, N, 1.0f, 3.0f, 1, 3);
  f->awake = malloc(N * sizeof *f->awake);
  f->got = malloc(N * sizeof *f->got);
  assert_non_null(f->awake);
  assert_non_null(f->got);
  f->na = wake_some(f->t.c, f->awake);
  assert_true(f->na > 3 * SP_AHEAD_AGENTS);
}

static void fixture_close(Fixture *f) {
  free(f->awake);
  free(f->got);
  citizens_close(&f->t);
}

/* Alone, the cursor runs through the whole crowd: after the first
 * SP_AHEAD_AGENTS (requested as the first chunk starts), every awake
 * agent once, in order, across chunk ends and the empty chunk. */
static void test_alone_requests_every_awake_agent_in_order(void **state) {
  (void)state;
  Fixture f;
  fixture_open(&f);
  size_t chunks = (N + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  size_t ng = requests(f.t.c, 0, chunks - 1, 1, f.got);
  assert_int_equal(ng, f.na - SP_AHEAD_AGENTS);
  assert_memory_equal(f.got, f.awake + SP_AHEAD_AGENTS, ng * sizeof *f.got);
  fixture_close(&f);
}

/* Beside other workers, the cursor keeps to the run of chunks its
 * worker claimed (the other chunks' bits may be another worker's to
 * write): the run's awake agents past its first few, in order, across
 * the run's chunk ends, and nothing past the run. Runs of one chunk, of
 * several, with the empty chunk, and ending with the last, not whole. */
static void test_beside_others_keeps_to_its_run(void **state) {
  (void)state;
  Fixture f;
  fixture_open(&f);
  size_t chunks = (N + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  const size_t runs[][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1},
                            {1, 3}, {2, 4}, {3, 5}, {0, 5}};
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    size_t from = runs[r][0], to = runs[r][1];
    assert_true(to < chunks);
    size_t first = 0, count = 0;
    while (first < f.na && f.awake[first] / SP_CROWD_CHUNK < from) first++;
    while (first + count < f.na &&
           f.awake[first + count] / SP_CROWD_CHUNK <= to)
      count++;
    size_t ng = requests(f.t.c, from, to, 0, f.got);
    size_t want = count > SP_AHEAD_AGENTS ? count - SP_AHEAD_AGENTS : 0;
    assert_int_equal(ng, want);
    if (want > 0)
      assert_memory_equal(f.got, f.awake + first + SP_AHEAD_AGENTS,
                          want * sizeof *f.got);
  }
  fixture_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alone_requests_every_awake_agent_in_order),
      cmocka_unit_test(test_beside_others_keeps_to_its_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
