/* test_agents_chunk_list.c: a chunk's list of agents that may need a goal or wait for a plan misses none of them, and a frame read through the lists gives the events of one read through the flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "sp_agents.h"

enum { N = 3 * SP_CROWD_CHUNK + 100, FRAMES = 400 };

/* Frames of 1/60 s (a few agents of a chunk end their step: lists kept),
 * and every 50th a frame of 2 s (most do: lists too long, flags read). */
static float frame_dt(int f) { return f % 50 == 49 ? 2.0f : 1.0f / 60.0f; }

/* Between frames, a few agents a chunk lists leave and their slots are
 * taken again (listed twice, then): the same in crowds a and b. */
static void churn(SpCrowd *a, SpCrowd *b) {
  const ChunkRec *r = &a->chunks[1];
  uint32_t gone[3];
  size_t n = 0;
  for (uint32_t k = 0; k < r->listed && n < 3; k++)
    if (sp_crowd_alive(a, r->list[k])) gone[n++] = r->list[k];
  SpValue start[16] = {0};
  for (size_t k = 0; k < n; k++) {
    assert_int_equal(sp_crowd_despawn(a, gone[k], NULL), SP_OK);
    if (b != NULL) assert_int_equal(sp_crowd_despawn(b, gone[k], NULL), SP_OK);
  }
  for (size_t k = 0; k < n; k++) {
    assert_int_equal(sp_crowd_spawn(a, start, 1, 1, SP_NO_PLACE, NULL, NULL),
                     SP_OK);
    if (b != NULL)
      assert_int_equal(sp_crowd_spawn(b, start, 1, 1, SP_NO_PLACE, NULL, NULL),
                       SP_OK);
  }
}

/* Whether agent i is in chunk r's list. */
static int listed(const ChunkRec *r, size_t i) {
  for (uint32_t k = 0; k < r->listed; k++)
    if (r->list[k] == i) return 1;
  return 0;
}

/* Every agent flagged F_NEED_GOAL or F_PLANNING is in its chunk's list
 * where the chunk keeps one; returns the chunks keeping one. */
static size_t check_lists(const SpCrowd *c) {
  size_t kept = 0;
  for (size_t t = 0; t * SP_CROWD_CHUNK < c->n; t++) {
    const ChunkRec *r = &c->chunks[t];
    if (!r->list_ok) continue;
    kept++;
    assert_true(r->listed <= SP_CHUNK_LIST);
    size_t hi = (t + 1) * SP_CROWD_CHUNK;
    for (size_t i = t * SP_CROWD_CHUNK; i < hi && i < c->n; i++)
      if (c->agents[i].flags & (F_NEED_GOAL | F_PLANNING))
        assert_true(listed(r, i));
  }
  return kept;
}

/* Before and after each frame, the lists hold every agent they must; the
 * run has frames that keep lists and frames that give them up, and agents
 * that leave and come back. */
static void test_lists_miss_no_waiting_agent(void **state) {
  (void)state;
  Citizens t;
  citizens_open(&t, N, 1.0f, 3.0f, 1, 5);
  size_t kept = 0, dropped = 0;
  for (int f = 0; f < FRAMES; f++) {
    if (f % 10 == 5) churn(t.c, NULL);
    check_lists(t.c);
    assert_int_equal(sp_crowd_update(t.c, frame_dt(f), NULL), SP_OK);
    size_t k = check_lists(t.c);
    kept += k;
    dropped += t.c->chunk_count - k;
  }
  assert_true(kept > 0);
  assert_true(dropped > 0);
  assert_true(sp_crowd_event_count(t.c) > 0);
  citizens_close(&t);
}

/* Frames read through the lists (on `threads` workers) against the same
 * crowd read through its flags alone (every list given up before each
 * frame, on 1 worker), agents leaving and coming back in both: the same
 * events, every frame. */
static void same_events_as_flags(int threads) {
  Citizens a, b;
  citizens_open(&a, N, 1.0f, 3.0f, threads, 9);
  citizens_open(&b, N, 1.0f, 3.0f, 1, 9);
  size_t total = 0;
  for (int f = 0; f < FRAMES; f++) {
    if (f % 10 == 5) churn(a.c, b.c);
    for (size_t k = 0; k < b.c->chunk_count; k++) b.c->chunks[k].list_ok = 0;
    assert_int_equal(sp_crowd_update(a.c, frame_dt(f), NULL), SP_OK);
    assert_int_equal(sp_crowd_update(b.c, frame_dt(f), NULL), SP_OK);
    same_frame_events(a.c, b.c);
    size_t n = sp_crowd_event_count(a.c);
    total += n;
  }
  assert_true(total > (size_t)N); /* every agent planned, stepped, replanned */
  citizens_close(&a);
  citizens_close(&b);
}

static void test_same_events_as_flags_1_thread(void **state) {
  (void)state;
  same_events_as_flags(1);
}

static void test_same_events_as_flags_2_threads(void **state) {
  (void)state;
  same_events_as_flags(2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lists_miss_no_waiting_agent),
      cmocka_unit_test(test_same_events_as_flags_1_thread),
      cmocka_unit_test(test_same_events_as_flags_2_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
