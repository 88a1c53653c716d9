/* test_trace_summary.c: a trace file read a chunk at a time (sp_trace_read_file) keeps the agents asked for as a whole read has them, sums up as sp_trace_summarize does over the whole read, reports the same damage, and leaks nothing when an allocation fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_record.h"
#include "test_alloc.h"
#include "trace_files.h"
#include "walk_town.h"

static const SpAllocator plain = {NULL, NULL};

/* Records `frames` frames of a walking town of n agents to `path`. */
static void record_town(const char *path, size_t n, size_t frames) {
  WalkTown t;
  walk_town_open(&t, 11, 64, 48, n, 1, 3.0f);
  SpError err;
  SpRecorder *r;
  SpCrowd *cs[1] = {t.c};
  SpRecordOptions opt = {1, NULL};
  assert_int_equal(
      sp_world_record_start(t.w, cs, 1, path, NULL, &opt, &r, &err), SP_OK);
  for (size_t f = 0; f < frames; f++) {
    assert_int_equal(sp_crowd_update(t.c, 0.25f, &err), SP_OK);
    assert_int_equal(sp_world_record_frame(r, cs, 1, &err), SP_OK);
  }
  assert_int_equal(sp_world_record_stop(r, &err), SP_OK);
  walk_town_close(&t);
}

static void same_summary(const SpTraceSummary *a, const SpTraceSummary *b) {
  assert_int_equal(a->ncrowds, b->ncrowds);
  assert_true(a->start == b->start && a->finish == b->finish);
  for (uint32_t k = 0; k < a->ncrowds; k++) {
    const SpTraceClassSummary *x = &a->classes[k], *y = &b->classes[k];
    assert_int_equal(x->agents, y->agents);
    assert_int_equal(x->goals, y->goals);
    assert_int_equal(x->reached, y->reached);
    assert_int_equal(x->failed, y->failed);
    assert_int_equal(x->step_failures, y->step_failures);
    assert_int_equal(x->never, y->never);
    assert_int_equal(x->nreasons, y->nreasons);
    assert_int_equal(x->nstuck, y->nstuck);
    assert_int_equal(x->nreachers, y->nreachers);
    for (uint32_t j = 0; j < x->nreasons; j++) {
      assert_int_equal(x->reasons[j].count, y->reasons[j].count);
      assert_int_equal(x->reasons[j].kind, y->reasons[j].kind);
      assert_int_equal(x->reasons[j].place, y->reasons[j].place);
      assert_true(x->reasons[j].first == y->reasons[j].first);
    }
    for (uint32_t j = 0; j < x->nstuck; j++) {
      assert_int_equal(x->stuck[j].agent, y->stuck[j].agent);
      assert_true(x->stuck[j].to - x->stuck[j].from ==
                  y->stuck[j].to - y->stuck[j].from);
    }
    assert_memory_equal(x->reachers, y->reachers,
                        x->nreachers * sizeof *x->reachers);
  }
  assert_int_equal(a->nperiods, b->nperiods);
  assert_memory_equal(a->counts, b->counts,
                      a->nperiods * a->nkinds * sizeof *a->counts);
}

/* The bytes of a trace with 3 MiB of junk (with chunk marks in it, one
 * every 4093 bytes) put before its third chunk: the reader goes through it
 * a window at a time, marks and chunks across the windows' edges. */
static uint8_t *padded(const uint8_t *data, size_t len, size_t *out) {
  size_t cut = 0;
  int marks = 0;
  for (size_t i = 0; i + 4 <= len && marks < 3; i++)
    if (memcmp(data + i, "SPck", 4) == 0 && ++marks == 3) cut = i;
  assert_int_equal(marks, 3);
  size_t junk = (size_t)3 << 20;
  uint8_t *p = malloc(len + junk);
  memcpy(p, data, cut);
  memset(p + cut, 0, junk);
  for (size_t i = 0; i + 4 <= junk; i += 4093) memcpy(p + cut + i, "SPck", 4);
  memcpy(p + cut + junk, data + cut, len - cut);
  *out = len + junk;
  return p;
}

/* A town of 3000 agents with junk in its file: the streamed read keeps
 * agents 7 and 2999 as a whole read of the bytes has them, counts every
 * event, reports the same damage and sums up the same. */
static void streamed_equals_whole(size_t twice_above) {
  const char *path = trace_file_path("sum_whole");
  record_town(path, 3000, 60);
  size_t len0, len;
  uint8_t *data0 = trace_file_read(path, &len0);
  uint8_t *data = padded(data0, len0, &len);
  free(data0);
  trace_file_write(path, data, len);
  SpError err;
  SpTrace *whole, *part;
  assert_int_equal(sp_trace_read(data, len, plain, &whole, &err), SP_OK);
  SpTraceSummary *sum;
  assert_int_equal(sp_trace_summarize(whole, NULL, &sum, &err), SP_OK);
  assert_true(sum->classes[0].agents > 2000);
  SpTraceKeep keep[2] = {{0, 7}, {0, 2999}};
  SpTraceReadOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.stream = 1;
  opt.keep = keep;
  opt.nkeep = 2;
  opt.summary = 1;
  opt.twice_above = twice_above;
  assert_int_equal(sp_trace_read_file(path, &opt, plain, &part, &err), SP_OK);
  assert_non_null(strstr(whole->problems, "damaged, skipped"));
  assert_string_equal(part->problems, whole->problems);
  assert_int_equal(part->all_events, whole->nevents);
  assert_int_equal(part->all_cells, whole->ncells);
  assert_int_equal(part->nframes, whole->nframes);
  size_t j = 0;
  for (size_t i = 0; i < whole->nevents; i++) {
    const SpTraceEvent *e = &whole->events[i];
    if (e->agent != 7 && e->agent != 2999) continue;
    assert_true(j < part->nevents);
    const SpTraceEvent *f = &part->events[j++];
    assert_true(e->frame == f->frame && e->agent == f->agent &&
                e->kind == f->kind && e->reason == f->reason &&
                e->goal == f->goal && e->action == f->action &&
                e->detail == f->detail && e->flags == f->flags);
  }
  assert_true(j > 10);
  assert_int_equal(j, part->nevents);
  j = 0;
  for (size_t i = 0; i < whole->ncells; i++) {
    const SpTraceCell *a = &whole->cells[i];
    if (a->agent != 7 && a->agent != 2999) continue;
    assert_true(j < part->ncells);
    const SpTraceCell *b = &part->cells[j++];
    assert_true(a->frame == b->frame && a->agent == b->agent && a->x == b->x &&
                a->y == b->y);
  }
  assert_int_equal(j, part->ncells);
  same_summary(sum, part->summary);
  sp_trace_summary_free(sum);
  sp_trace_free(whole);
  sp_trace_free(part);
  free(data);
  remove(path);
}

/* A damaged and cut file: the same problems as a whole read of its bytes,
 * the same sums. */
static void damage_is_reported_the_same(size_t twice_above) {
  const char *path = trace_file_path("sum_damage");
  record_town(path, 400, 80);
  size_t len;
  uint8_t *data = trace_file_read(path, &len);
  data[len / 3] ^= 0x5A;
  data[len / 2] ^= 0x01;
  len -= 11;
  trace_file_write(path, data, len);
  SpError err;
  SpTrace *whole, *part;
  assert_int_equal(sp_trace_read(data, len, plain, &whole, &err), SP_OK);
  assert_true(whole->problems[0] != '\0');
  SpTraceSummary *sum;
  assert_int_equal(sp_trace_summarize(whole, NULL, &sum, &err), SP_OK);
  SpTraceReadOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.stream = 1;
  opt.summary = 1;
  opt.twice_above = twice_above;
  assert_int_equal(sp_trace_read_file(path, &opt, plain, &part, &err), SP_OK);
  assert_string_equal(whole->problems, part->problems);
  assert_int_equal(part->nevents, 0);
  assert_int_equal(part->all_events, whole->nevents);
  same_summary(sum, part->summary);
  sp_trace_summary_free(sum);
  sp_trace_free(whole);
  sp_trace_free(part);
  free(data);
  remove(path);
}

static void test_streamed_equals_whole(void **state) {
  (void)state;
  streamed_equals_whole(0);
}

/* The same, every chunk read twice (checked, then a block at a time). */
static void test_streamed_twice_equals_whole(void **state) {
  (void)state;
  streamed_equals_whole(1);
}

static void test_damage_is_reported_the_same(void **state) {
  (void)state;
  damage_is_reported_the_same(0);
  damage_is_reported_the_same(1);
}

/* Wrong options and files: SP_ERR_INVALID naming them, nothing leaked. */
static void test_bad_options(void **state) {
  (void)state;
  const char *path = trace_file_path("sum_bad");
  record_town(path, 20, 5);
  SpError err;
  SpTrace *t = NULL;
  TestAlloc ta;
  test_alloc_init(&ta, 0);
  SpTraceKeep keep = {0, 21}; /* slots: capacity + 1 */
  SpTraceReadOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.stream = 1;
  opt.keep = &keep;
  opt.nkeep = 1;
  assert_int_equal(
      sp_trace_read_file(path, &opt, test_alloc_hook(&ta), &t, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "no agent 22 in crowd 1"));
  assert_null(t);
  uint32_t frames[2] = {3, 1};
  memset(&opt, 0, sizeof opt);
  opt.keyframes = frames;
  opt.nkeyframes = 2;
  opt.bin = 1;
  opt.bw = opt.bh = 8;
  assert_int_equal(
      sp_trace_read_file(path, &opt, test_alloc_hook(&ta), &t, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "keyframes must ascend"));
  opt.bw = opt.bh = 60000;
  assert_int_equal(
      sp_trace_read_file(path, &opt, test_alloc_hook(&ta), &t, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "out of range"));
  assert_int_equal(ta.live, 0);
  assert_int_equal(
      sp_trace_read_file("/nonexistent/x.trace", NULL, plain, &t, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "/nonexistent/x.trace"));
  trace_file_write(path, "hello, not a trace", 18);
  assert_int_equal(sp_trace_read_file(path, NULL, plain, &t, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "not a saspu trace"));
  remove(path);
}

/* Allocation failure at every point of a streamed, summed, density read:
 * SP_ERR_MEMORY or a trace, nothing leaked. */
static void test_memory_failures(void **state) {
  (void)state;
  const char *path = trace_file_path("sum_memory");
  record_town(path, 30, 8);
  SpTraceKeep keep = {0, 3};
  uint32_t frames[3] = {0, 3, 7};
  SpTraceReadOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.stream = 1;
  opt.keep = &keep;
  opt.nkeep = 1;
  opt.summary = 1;
  opt.keyframes = frames;
  opt.nkeyframes = 3;
  opt.bin = 4;
  opt.bw = 16;
  opt.bh = 12;
  for (size_t twice = 0; twice < 2; twice++) {
    opt.twice_above = twice;
    int ok = 0;
    for (long fail = 1; fail < 600 && !ok; fail++) {
      TestAlloc ta;
      test_alloc_init(&ta, fail);
      SpError err;
      SpTrace *t;
      SpStatus st =
          sp_trace_read_file(path, &opt, test_alloc_hook(&ta), &t, &err);
      if (st == SP_OK) {
        ok = ta.calls < fail; /* every allocation ran: done */
        sp_trace_free(t);
      } else {
        assert_int_equal(st, SP_ERR_MEMORY);
      }
      assert_int_equal(ta.live, 0);
    }
    assert_true(ok);
  }
  remove(path);
}

/* Past SP_TRACE_TEXTS_MAX distinct texts (here Lua-made `blocked` events,
 * each with its own text) the rest count as one reason, named
 * SP_TRACE_OTHER_TEXT: the most frequent. */
static void test_texts_past_the_limit(void **state) {
  (void)state;
  const char *path = trace_file_path("sum_texts");
  WalkTown t;
  walk_town_open(&t, 5, 16, 16, 10, 1, 3.0f);
  SpError err;
  SpRecorder *r;
  SpCrowd *cs[1] = {t.c};
  assert_int_equal(
      sp_world_record_start(t.w, cs, 1, path, NULL, NULL, &r, &err), SP_OK);
  size_t frames = SP_TRACE_TEXTS_MAX / 10 + 100;
  for (size_t f = 0; f < frames; f++) {
    assert_int_equal(sp_crowd_update(t.c, 0.25f, &err), SP_OK);
    for (size_t i = 0; i < 10; i++) {
      char text[32];
      snprintf(text, sizeof text, "text %zu", f * 10 + i);
      assert_int_equal(
          sp_world_record_lua_event(r, 0, i, "blocked", -1, text, &err), SP_OK);
    }
    assert_int_equal(sp_world_record_frame(r, cs, 1, &err), SP_OK);
  }
  assert_int_equal(sp_world_record_stop(r, &err), SP_OK);
  walk_town_close(&t);
  SpTraceReadOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.stream = 1;
  opt.summary = 1;
  SpTrace *tr;
  assert_int_equal(sp_trace_read_file(path, &opt, plain, &tr, &err), SP_OK);
  const SpTraceSummary *s = tr->summary;
  assert_int_equal(s->ntexts, SP_TRACE_TEXTS_MAX + 1);
  const SpTraceReason *top = &s->classes[0].reasons[0];
  assert_string_equal(s->texts[top->text], SP_TRACE_OTHER_TEXT);
  assert_true(top->count > 900);
  assert_true(s->classes[0].reasons[1].count < 10);
  sp_trace_free(tr);
  remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_streamed_equals_whole),
      cmocka_unit_test(test_streamed_twice_equals_whole),
      cmocka_unit_test(test_damage_is_reported_the_same),
      cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_memory_failures),
      cmocka_unit_test(test_texts_past_the_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
