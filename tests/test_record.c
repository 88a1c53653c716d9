/* test_record.c: the recorder and the trace reader: a walking town read back gives the crowd's events and cells frame by frame; damaged and truncated traces are reported, never crash, and leak nothing. */
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

/* What the crowd gave, frame by frame: events and cells. */
typedef struct Seen {
  SpAgentEvent *ev;
  size_t nev, cap;
  size_t *frame_end; /* events up to frame f */
  uint32_t *cells;   /* per frame, per agent: y << 16 | x */
  size_t frames, n;
} Seen;

/* Runs a walking town for `frames` frames recording it to `path`. */
static void run_town(WalkTown *t, const char *path, size_t frames, Seen *s) {
  walk_town_open(t, 7, 48, 40, 300, 2, 3.0f);
  SpError err;
  SpRecorder *r;
  SpCrowd *cs[1] = {t->c};
  assert_int_equal(
      sp_world_record_start(t->w, cs, 1, path, NULL, NULL, &r, &err), SP_OK);
  memset(s, 0, sizeof *s);
  s->n = t->n;
  s->frames = frames;
  s->frame_end = calloc(frames, sizeof *s->frame_end);
  s->cells = calloc(frames * t->n, sizeof *s->cells);
  for (size_t f = 0; f < frames; f++) {
    assert_int_equal(sp_crowd_update(t->c, 0.25f, &err), SP_OK);
    size_t n = sp_crowd_event_count(t->c);
    if (s->nev + n > s->cap) {
      s->cap = (s->nev + n) * 2;
      s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
    }
    memcpy(s->ev + s->nev, sp_crowd_events(t->c), n * sizeof *s->ev);
    s->nev += n;
    s->frame_end[f] = s->nev;
    for (size_t i = 0; i < t->n; i++) {
      int x, y;
      assert_int_equal(sp_crowd_position(t->c, i, &x, &y), SP_OK);
      s->cells[f * t->n + i] = (uint32_t)y << 16 | (uint32_t)x;
    }
    assert_int_equal(sp_world_record_frame(r, cs, 1, &err), SP_OK);
  }
  SpRecordStats st;
  assert_int_equal(sp_world_record_flush(r, &err), SP_OK);
  sp_world_record_stats(r, &st);
  assert_int_equal(st.frames, frames);
  assert_int_equal(st.events, s->nev);
  assert_true(st.cells > 0);
  assert_int_equal(sp_world_record_stop(r, &err), SP_OK);
  /* after a flush the stats count every byte of the file */
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  assert_int_equal((uint64_t)ftell(f), st.bytes);
  fclose(f);
}

static void seen_free(Seen *s) {
  free(s->ev);
  free(s->frame_end);
  free(s->cells);
}

/* The trace's events equal the crowd's, in order and frame by frame; the
 * first snapshot plus the cell changes give every agent's cell at every
 * frame. */
static void test_events_and_cells_read_back(void **state) {
  (void)state;
  WalkTown t;
  Seen s;
  const char *path = trace_file_path("read_back");
  run_town(&t, path, 40, &s);
  size_t len;
  void *data = trace_file_read(path, &len);
  SpTrace *tr;
  SpError err;
  assert_int_equal(sp_trace_read(data, len, plain, &tr, &err), SP_OK);
  assert_string_equal(tr->problems, "");
  assert_int_equal(tr->ncrowds, 1);
  assert_int_equal(tr->nframes, s.frames);
  assert_int_equal(tr->nevents, s.nev);
  size_t f = 0;
  for (size_t e = 0; e < s.nev; e++) {
    while (e >= s.frame_end[f]) f++;
    const SpTraceEvent *a = &tr->events[e];
    const SpAgentEvent *b = &s.ev[e];
    assert_int_equal(a->frame, f);
    assert_int_equal(a->agent, b->agent);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->reason, b->reason);
    assert_int_equal(a->goal, b->goal);
    assert_int_equal(a->action, b->action);
    assert_int_equal(a->detail, b->detail);
  }
  assert_true(tr->nsnapshots >= 1);
  uint32_t *cell = malloc(s.n * sizeof *cell);
  memcpy(cell, tr->snapshots[0].cells, s.n * sizeof *cell);
  size_t k = 0;
  for (f = 0; f < s.frames; f++) {
    for (; k < tr->ncells && tr->cells[k].frame == f; k++)
      cell[tr->cells[k].agent] =
          (uint32_t)tr->cells[k].y << 16 | tr->cells[k].x;
    for (size_t i = 0; i < s.n; i++)
      assert_int_equal(cell[i], s.cells[f * s.n + i]);
  }
  free(cell);
  sp_trace_free(tr);
  free(data);
  seen_free(&s);
  walk_town_close(&t);
  remove(path);
}

/* Every cut of the file and a flipped byte in every position of a
 * sample: the reader reports (never crashes, leaks nothing); a damaged
 * frame chunk is skipped and named; no header is SP_ERR_INVALID. */
static void test_damage_is_reported_and_skipped(void **state) {
  (void)state;
  WalkTown t;
  Seen s;
  const char *path = trace_file_path("damage");
  run_town(&t, path, 12, &s);
  size_t len;
  uint8_t *data = trace_file_read(path, &len);
  uint8_t *copy = malloc(len);
  TestAlloc ta;
  SpError err;
  SpTrace *tr;
  for (size_t cut = 0; cut < len; cut += 1 + cut / 64) {
    test_alloc_init(&ta, 0);
    SpStatus st = sp_trace_read(data, cut, test_alloc_hook(&ta), &tr, &err);
    if (st == SP_OK) {
      assert_true(tr->nevents <= s.nev);
      sp_trace_free(tr);
    } else {
      assert_int_equal(st, SP_ERR_INVALID);
    }
    assert_int_equal(ta.live, 0);
  }
  for (size_t at = 0; at < len; at += 1 + at / 32) {
    memcpy(copy, data, len);
    copy[at] ^= 0x5A;
    test_alloc_init(&ta, 0);
    SpStatus st = sp_trace_read(copy, len, test_alloc_hook(&ta), &tr, &err);
    if (st == SP_OK) {
      if (at >= 16) assert_true(tr->problems[0] != '\0');
      sp_trace_free(tr);
    }
    assert_int_equal(ta.live, 0);
  }
  /* the last chunk (frames) damaged: the header and snapshot still read */
  memcpy(copy, data, len);
  copy[len - 3] ^= 0xFF;
  assert_int_equal(sp_trace_read(copy, len, plain, &tr, &err), SP_OK);
  assert_non_null(strstr(tr->problems, "damaged, skipped"));
  assert_int_equal(tr->nevents, 0);
  assert_int_equal(tr->nsnapshots, 1);
  sp_trace_free(tr);
  /* not a trace */
  assert_int_equal(sp_trace_read("hello", 5, plain, &tr, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "not a saspu trace"));
  free(copy);
  free(data);
  seen_free(&s);
  walk_town_close(&t);
  remove(path);
}

/* Allocation failure at every point of a read: SP_ERR_MEMORY or a
 * trace, nothing leaked. */
static void test_read_memory_failures(void **state) {
  (void)state;
  WalkTown t;
  Seen s;
  const char *path = trace_file_path("memory");
  run_town(&t, path, 6, &s);
  size_t len;
  uint8_t *data = trace_file_read(path, &len);
  SpError err;
  SpTrace *tr;
  for (long fail = 1; fail < 400; fail++) {
    TestAlloc ta;
    test_alloc_init(&ta, fail);
    SpStatus st = sp_trace_read(data, len, test_alloc_hook(&ta), &tr, &err);
    if (st == SP_OK)
      sp_trace_free(tr);
    else
      assert_int_equal(st, SP_ERR_MEMORY);
    assert_int_equal(ta.live, 0);
  }
  free(data);
  seen_free(&s);
  walk_town_close(&t);
  remove(path);
}

/* A path that cannot be opened: SP_ERR_INVALID naming it. */
/* Events made by the binding come first in their crowd's block of their
 * frame, with their texts; an unknown kind is refused; a trace of another
 * format is refused by name. */
static void test_lua_events_read_back(void **state) {
  (void)state;
  WalkTown t;
  walk_town_open(&t, 5, 16, 16, 10, 1, 3.0f);
  const char *path = trace_file_path("lua_events");
  SpError err;
  SpRecorder *r;
  SpCrowd *cs[1] = {t.c};
  assert_int_equal(
      sp_world_record_start(t.w, cs, 1, path, NULL, NULL, &r, &err), SP_OK);
  assert_int_equal(sp_world_record_lua_event(r, 0, 0, "hatched", -1, "x", &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "'hatched'"));
  assert_int_equal(sp_world_record_lua_event(r, 1, 0, "blocked", -1, "x", &err),
                   SP_ERR_INVALID);
  size_t before = 0;
  for (int f = 0; f < 4; f++) {
    assert_int_equal(sp_crowd_update(t.c, 0.25f, &err), SP_OK);
    if (f == 2) {
      before = sp_crowd_event_count(t.c);
      assert_int_equal(sp_world_record_lua_event(r, 0, 3, "hook_failed", 0,
                                                 "no coins", &err),
                       SP_OK);
      assert_int_equal(
          sp_world_record_lua_event(r, 0, 1, "blocked", -1, "no_target", &err),
          SP_OK);
    }
    assert_int_equal(sp_world_record_frame(r, cs, 1, &err), SP_OK);
  }
  assert_int_equal(sp_world_record_stop(r, &err), SP_OK);
  size_t len;
  uint8_t *data = trace_file_read(path, &len);
  SpTrace *tr;
  assert_int_equal(sp_trace_read(data, len, plain, &tr, &err), SP_OK);
  assert_string_equal(tr->problems, "");
  size_t first = 0;
  while (first < tr->nevents && tr->events[first].frame < 2) first++;
  assert_true(first + 2 + before <= tr->nevents);
  const SpTraceEvent *a = &tr->events[first], *b = a + 1;
  assert_int_equal(a->flags, SP_TRACE_LUA);
  assert_int_equal(a->agent, 3);
  assert_int_equal(a->action, 0);
  assert_string_equal(tr->kinds[a->kind], "hook_failed");
  assert_int_equal(b->flags, SP_TRACE_LUA);
  assert_int_equal(b->agent, 1);
  assert_int_equal(b->action, -1);
  assert_string_equal(tr->kinds[b->kind], "blocked");
  size_t lua = 0, texts = 0;
  for (size_t e = 0; e < tr->nevents; e++)
    lua += tr->events[e].flags == SP_TRACE_LUA;
  assert_int_equal(lua, 2);
  for (size_t j = 0; j < tr->nnotes; j++) {
    if (tr->notes[j].event == first)
      assert_string_equal(tr->notes[j].text, "no coins"), texts++;
    if (tr->notes[j].event == first + 1)
      assert_string_equal(tr->notes[j].text, "no_target"), texts++;
  }
  assert_int_equal(texts, 2);
  sp_trace_free(tr);
  data[12] = 1; /* the format, u32 LE at byte 12 */
  assert_int_equal(sp_trace_read(data, len, plain, &tr, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "format 1"));
  free(data);
  walk_town_close(&t);
  remove(path);
}

static void test_unwritable_path(void **state) {
  (void)state;
  WalkTown t;
  walk_town_open(&t, 3, 16, 16, 10, 1, 3.0f);
  SpError err;
  SpRecorder *r;
  SpCrowd *cs[1] = {t.c};
  assert_int_equal(sp_world_record_start(t.w, cs, 1, "/nonexistent-dir/x.trace",
                                         NULL, NULL, &r, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "/nonexistent-dir/x.trace"));
  assert_null(r);
  walk_town_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_events_and_cells_read_back),
      cmocka_unit_test(test_damage_is_reported_and_skipped),
      cmocka_unit_test(test_read_memory_failures),
      cmocka_unit_test(test_unwritable_path),
      cmocka_unit_test(test_lua_events_read_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
