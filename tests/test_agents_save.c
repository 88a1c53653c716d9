/* test_agents_save.c: save and load of worlds: a loaded world resumes the same events and saves the same bytes; bad input changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent_trace.h"
#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_save.h"
#include "sp_due.h"
#include "test_alloc.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

static const char MAP[] = "........................\n"
                          "....####........###.....\n"
                          "....#..........=====....\n"
                          "....#..####....#........\n"
                          "...........#...#...##...\n"
                          ".....22....#.......#....\n"
                          ".....22....#####...#....\n"
                          "...................#....\n"
                          "..###......====.........\n"
                          "....#...........#####...\n"
                          "....#...................\n"
                          "........................\n";

#define CROWDS 4
#define KINDS  3

/* A world built by "game code" from a seed: a grid, places of three kinds
 * (some with room for one or two), and four crowds (three paper domains
 * and a random one) with walking, ranged durations, scripted and
 * caller-targeted steps, named and random goals. */
typedef struct Scene {
  TestFixture f[CROWDS - 1];
  RandomDomain rd;
  SpDomain *rdom;
  const SpDomain *dom[CROWDS];
  SpGrid *grid;
  SpWorld *w;
  SpCrowd *c[CROWDS];
  SpAllocator alloc;
  int walls; /* the caller edits walls (every field is dropped then) */
} Scene;

static void random_cond(RdRng *rng, const SpDomain *d, SpValue *out, int any) {
  for (int v = 0; v < sp_domain_variable_count(d); v++)
    out[v] = rd_chance(rng, any)
                 ? SP_ANY
                 : (SpValue)rd_below(rng, sp_variable_value_count(d, v));
}

static void crowd_setup(Scene *s, int k, RdRng *rng, size_t agents) {
  const SpDomain *d = s->dom[k];
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = agents + 8;
  o.threads = 1 + k % 2;
  o.parallel_min = 1; /* threads share even small passes */
  o.seed = rd_next(rng);
  o.cooldown = 2.0f;
  o.retry = 0.5f;
  SpError err;
  assert_int_equal(sp_crowd_new(s->w, d, &o, s->alloc, &s->c[k], &err), SP_OK);
  SpCrowd *c = s->c[k];
  int places = (int)sp_world_place_count(s->w);
  for (int a = 0; a < sp_domain_action_count(d); a++) {
    SpActionBehaviour b;
    memset(&b, 0, sizeof b);
    b.place = SP_NO_PLACE;
    b.min_duration = (float)rd_below(rng, 4) * 0.15f;
    b.max_duration = b.min_duration + (float)rd_below(rng, 3) * 0.2f;
    int bind = rd_below(rng, 10);
    b.bind = bind < 3   ? SP_BIND_NONE
             : bind < 6 ? SP_BIND_KIND
             : bind < 8 ? SP_BIND_PLACE
             : bind < 9 ? SP_BIND_HOME
                        : SP_BIND_SCRIPT;
    b.kind = rd_below(rng, KINDS);
    if (b.bind == SP_BIND_PLACE) b.place = (uint32_t)rd_below(rng, places);
    b.interruptible = rd_chance(rng, 30);
    b.scripted = rd_chance(rng, 10);
    assert_int_equal(sp_crowd_set_action(c, a, &b, NULL), SP_OK);
  }
  SpValue cond[64], when[64];
  if (k < CROWDS - 1) {
    const SpBuiltSpec *bs = s->f[k].b;
    for (int g = 0; g < bs->goal_count; g++) {
      const SpNamedState *ng = &bs->goals[g];
      for (int v = 0; v < s->f[k].m; v++)
        cond[v] = ng->keep != NULL && ng->keep[v] ? SP_ANY : ng->values[v];
      random_cond(rng, d, when, 85);
      sp_crowd_add_goal(c, cond, rd_below(rng, 3), g == 0 ? NULL : when, NULL,
                        NULL);
    }
  }
  /* the random domain's crowd has over 16 goals: refusals past the
   * agent record */
  for (int g = 0; g < (k == CROWDS - 1 ? 20 : 3); g++) {
    random_cond(rng, d, cond, 50);
    random_cond(rng, d, when, 80);
    sp_crowd_add_goal(c, cond, rd_below(rng, 3), when, NULL, NULL);
  }
  int width = sp_grid_width(s->grid), height = sp_grid_height(s->grid);
  for (size_t i = 0; i < agents; i++) {
    SpValue st[64];
    for (int v = 0; v < sp_domain_variable_count(d); v++)
      st[v] = (SpValue)rd_below(rng, sp_variable_value_count(d, v));
    int x, y;
    do {
      x = rd_below(rng, width), y = rd_below(rng, height);
    } while (sp_grid_is_blocked(s->grid, x, y));
    uint32_t home =
        rd_chance(rng, 80) ? (uint32_t)rd_below(rng, places) : SP_NO_PLACE;
    assert_int_equal(sp_crowd_spawn(c, st, x, y, home, NULL, NULL), SP_OK);
  }
}

/* Builds the world of `seed` with `agents` agents per crowd. */
static void scene_open(Scene *s, uint64_t seed, size_t agents, SpAllocator a) {
  memset(s, 0, sizeof *s);
  s->alloc = a;
  s->walls = seed % 2 == 0;
  test_fixture_open(&s->f[0], sp_builtin_horse_breeder(plain, SP_HORSE_SSCI));
  test_fixture_open(&s->f[1], sp_builtin_citizen(plain));
  test_fixture_open(&s->f[2], sp_builtin_acquisition_machine(plain));
  for (int k = 0; k < CROWDS - 1; k++) s->dom[k] = s->f[k].d;
  SpCompileOptions co = {1};
  for (uint64_t t = seed;; t += 1000) {
    random_domain_generate(&s->rd, t, RD_FLAVOR_ANY);
    if (sp_domain_compile(&s->rd.spec, &co, plain, &s->rdom, NULL) == SP_OK)
      break;
  }
  s->dom[CROWDS - 1] = s->rdom;
  assert_int_equal(sp_grid_new_ascii(MAP, strlen(MAP), plain, &s->grid, NULL),
                   SP_OK);
  assert_int_equal(sp_world_new(s->grid, a, &s->w, NULL), SP_OK);
  static const char *const kinds[KINDS] = {"well", "inn", "forge"};
  for (int k = 0; k < KINDS; k++)
    assert_int_equal(sp_world_kind(s->w, kinds[k], NULL, NULL), SP_OK);
  RdRng rng;
  rd_seed(&rng, seed * 31 + 5);
  for (int p = 0; p < 7; p++) {
    int x, y;
    do {
      x = rd_below(&rng, 24), y = rd_below(&rng, 12);
    } while (sp_grid_is_blocked(s->grid, x, y));
    int cap = rd_chance(&rng, 50) ? 1 + rd_below(&rng, 2) : 0;
    assert_int_equal(sp_world_add_place(s->w, p % KINDS, x, y, cap, NULL, NULL),
                     SP_OK);
  }
  for (int k = 0; k < CROWDS; k++) crowd_setup(s, k, &rng, agents);
}

static void scene_close(Scene *s) {
  for (int k = 0; k < CROWDS; k++) sp_crowd_free(s->c[k]);
  sp_world_free(s->w);
  sp_grid_free(s->grid);
  sp_domain_free(s->rdom);
  for (int k = 0; k < CROWDS - 1; k++) test_fixture_close(&s->f[k]);
}

/* The caller's part of a frame, drawn from rng: scripted steps finished
 * or failed, targets given, running steps failed (a hook raised), agents'
 * variables changed, and now and then a wall built or torn down. */
static void disturb(Scene *s, RdRng *rng, int walls) {
  for (int k = 0; k < CROWDS; k++) {
    SpCrowd *c = s->c[k];
    const SpDomain *d = s->dom[k];
    for (size_t i = 0; i < sp_crowd_size(c); i++) {
      SpAgentInfo info;
      sp_crowd_inspect(c, i, &info);
      if (info.phase == SP_PHASE_SCRIPT && info.step >= 0) {
        int r = rd_below(rng, 10);
        if (sp_crowd_set_target(
                c, i, r < 5 ? (uint32_t)rd_below(rng, 7) : SP_NO_PLACE,
                rd_below(rng, 24), rd_below(rng, 12), NULL) == SP_OK)
          continue;
        if (r < 7)
          sp_crowd_finish_step(c, i, NULL);
        else
          sp_crowd_fail_step(c, i, 9, NULL);
      } else if (info.step >= 0 && info.phase != SP_PHASE_THINKING &&
                 rd_chance(rng, 3)) {
        /* (thinking: an interrupted step, ended by the next update) */
        assert_int_equal(sp_crowd_fail_step(c, i, 8, NULL), SP_OK);
      }
      if (rd_chance(rng, 2)) {
        int v = rd_below(rng, sp_domain_variable_count(d));
        sp_crowd_set_var(c, i, v, rd_below(rng, sp_variable_value_count(d, v)),
                         NULL);
      }
    }
  }
  if (walls && rd_chance(rng, 5)) {
    int x = rd_below(rng, 24), y = rd_below(rng, 12);
    sp_grid_set_blocked(s->grid, x, y, !sp_grid_is_blocked(s->grid, x, y),
                        NULL);
  }
}

typedef struct Log {
  SpAgentEvent *ev;
  size_t n, cap;
} Log;

/* Runs `frames` frames of every crowd, appending their events to log
 * (crowd number in the generation field: these crowds never despawn). */
static void run(Scene *s, RdRng *rng, int frames, Log *log) {
  int walls = s->walls;
  for (int f = 0; f < frames; f++) {
    for (int k = 0; k < CROWDS; k++) {
      assert_int_equal(sp_crowd_update(s->c[k], 0.1f, NULL), SP_OK);
      SpError err; /* what a load checks holds after every update */
      if (sp__crowd_check(s->c[k], &err) != SP_OK) fail_msg("%s", err.message);
      size_t n = sp_crowd_event_count(s->c[k]);
      if (log == NULL || n == 0)
        continue; /* no buffer yet: events may be NULL */
      if (log->n + n > log->cap) {
        log->cap = (log->n + n) * 2;
        log->ev = realloc(log->ev, log->cap * sizeof *log->ev);
      }
      if (n > 0)
        memcpy(log->ev + log->n, sp_crowd_events(s->c[k]), n * sizeof *log->ev);
      for (size_t e = 0; e < n; e++) log->ev[log->n + e].gen = (uint16_t)k;
      log->n += n;
    }
    disturb(s, rng, walls);
  }
}

static void *save(Scene *s, size_t *len) {
  void *buf;
  SpError err;
  SpStatus st = sp_world_save(s->w, (const SpCrowd *const *)s->c, CROWDS, "xy",
                              2, &buf, len, &err);
  if (st != SP_OK) fail_msg("%s", err.message);
  return buf;
}

/* Scene s opened with `seed`, run `frames` frames from rng seeded the
 * same (rng is left for more frames), then saved: the save, *len bytes. */
static uint8_t *scene_saved(Scene *s, RdRng *rng, uint64_t seed, size_t agents,
                            int frames, SpAllocator a, size_t *len) {
  scene_open(s, seed, agents, a);
  rd_seed(rng, seed);
  run(s, rng, frames, NULL);
  return save(s, len);
}

static size_t count_kind(const Log *l, SpEventKind kind, SpReason reason) {
  size_t n = 0;
  for (size_t k = 0; k < l->n; k++)
    n += l->ev[k].kind == kind &&
         (reason == SP_REASON_COUNT || l->ev[k].reason == reason);
  return n;
}

/* Run N frames, save, run M more (A); a fresh world built the same way
 * loads the save and runs the same M frames (B): the same events, and at
 * the end the same save, byte for byte. Seeds 1-12, then 4322 (its
 * world's queue of waiters held holes when it was saved: the update then
 * dropped a stale entry at another time than the loaded world did), then
 * agent_soak_seeds() more. */
static void test_round_trip_resumes_the_same_events(void **state) {
  (void)state;
  Log all = {NULL, 0, 0};
  uint64_t last = 13 + agent_soak_seeds();
  for (uint64_t n = 1; n <= last; n++) {
    uint64_t seed = n < 13 ? n : n == 13 ? 4322 : n - 1 + agent_soak_from();
    Scene a, b;
    scene_open(&a, seed, 40, plain);
    RdRng rng;
    rd_seed(&rng, seed);
    run(&a, &rng, 20 + (int)seed % 7, NULL);
    size_t len;
    void *saved = save(&a, &len);
    RdRng at_save = rng;
    /* the walls at the save: B's game code rebuilds its map to match */
    unsigned char walls[24 * 12];
    for (int c = 0; c < 24 * 12; c++)
      walls[c] = (unsigned char)sp_grid_is_blocked(a.grid, c % 24, c / 24);
    Log la = {NULL, 0, 0}, lb = {NULL, 0, 0};
    run(&a, &rng, 40, &la);

    scene_open(&b, seed, 40, plain);
    for (int c = 0; c < 24 * 12; c++)
      sp_grid_set_blocked(b.grid, c % 24, c / 24, walls[c], NULL);
    /* B runs a few frames of its own first: the load replaces it all */
    RdRng other;
    rd_seed(&other, seed + 99);
    run(&b, &other, 3, NULL);
    /* and its goals in another order: the load brings the saved order */
    for (int k = 0; k < CROWDS; k++)
      assert_int_equal(sp_crowd_set_priority(b.c[k], 1, 50, NULL), SP_OK);
    for (int c = 0; c < 24 * 12; c++)
      sp_grid_set_blocked(b.grid, c % 24, c / 24, walls[c], NULL);
    SpError err;
    SpStatus st = sp_world_load(b.w, b.c, CROWDS, saved, len, NULL, NULL, &err);
    if (st != SP_OK) fail_msg("seed %d: %s", (int)seed, err.message);
    run(&b, &at_save, 40, &lb);
    if (la.n != lb.n || memcmp(la.ev, lb.ev, la.n * sizeof *la.ev) != 0)
      fail_msg("seed %d: the loaded world's events differ", (int)seed);
    size_t la_len, lb_len;
    void *sa = save(&a, &la_len), *sb = save(&b, &lb_len);
    if (la_len != lb_len || memcmp(sa, sb, la_len) != 0)
      fail_msg("seed %d: the loaded world saves otherwise (%zu bytes, %zu)",
               (int)seed, la_len, lb_len);
    sp_world_save_free(a.w, sa, la_len);
    sp_world_save_free(b.w, sb, lb_len);
    sp_world_save_free(a.w, saved, len);
    for (size_t k = 0; k < la.n; k++) {
      if (all.n == all.cap)
        all.cap = all.cap * 2 + 64,
        all.ev = realloc(all.ev, all.cap * sizeof *all.ev);
      all.ev[all.n++] = la.ev[k];
    }
    free(la.ev);
    free(lb.ev);
    scene_close(&a);
    scene_close(&b);
  }
  /* the runs exercised what a save must carry */
  assert_true(count_kind(&all, SP_EV_ARRIVED, SP_REASON_COUNT) > 100);
  assert_true(count_kind(&all, SP_EV_STEP_FINISHED, SP_REASON_COUNT) > 300);
  assert_true(count_kind(&all, SP_EV_BLOCKED, SP_REASON_FULL) > 10);
  assert_true(count_kind(&all, SP_EV_STEP_FAILED, SP_REASON_SCRIPT) > 20);
  assert_true(count_kind(&all, SP_EV_REPLANNED, SP_REASON_WORLD_CHANGED) > 20);
  assert_true(count_kind(&all, SP_EV_NO_PLAN, SP_REASON_COUNT) > 0);
  free(all.ev);
}

/* FNV-1a 64 of the payload, written into the header (to make input
 * that passes the checksum but says something wrong). */
static void reseal(uint8_t *b, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t k = 32; k < len; k++) h = (h ^ b[k]) * 0x100000001b3ull;
  for (int k = 0; k < 8; k++) b[24 + k] = (uint8_t)(h >> (8 * k));
}

/* Loads `data` onto s expecting SP_ERR_INVALID (or SP_ERR_MEMORY with
 * `memory`) with `text` in the message; s then saves exactly `before`. */
static void refused(Scene *s, const void *data, size_t len, const char *text,
                    const uint8_t *before, size_t before_len) {
  SpError err;
  SpStatus st = sp_world_load(s->w, s->c, CROWDS, data, len, NULL, NULL, &err);
  if (st == SP_OK) fail_msg("loaded %zu bytes that should be refused", len);
  assert_int_equal(st, SP_ERR_INVALID);
  assert_true(strncmp(err.message, "saved world: ", 13) == 0);
  if (text != NULL && strstr(err.message, text) == NULL)
    fail_msg("message '%s' lacks '%s'", err.message, text);
  size_t now_len;
  void *now = save(s, &now_len);
  assert_int_equal(now_len, before_len);
  assert_memory_equal(now, before, before_len);
  sp_world_save_free(s->w, now, now_len);
}

/* Every truncation and every flipped byte of a small world's save is
 * refused, naming the problem, and leaves the world as it was. */
static void test_bad_input_changes_nothing(void **state) {
  (void)state;
  Scene a, b;
  RdRng rng;
  size_t len;
  uint8_t *good = scene_saved(&a, &rng, 3, 3, 15, plain, &len);
  /* b: the same world at another moment, whose save must not change */
  scene_open(&b, 3, 3, plain);
  rd_seed(&rng, 4);
  run(&b, &rng, 7, NULL);
  size_t blen;
  uint8_t *before = save(&b, &blen);
  uint8_t *bad = malloc(len);
  for (size_t cut = 0; cut < len; cut++) {
    memcpy(bad, good, len);
    refused(&b, bad, cut, "truncated at byte", before, blen);
  }
  for (size_t at = 0; at < len; at++) {
    memcpy(bad, good, len);
    bad[at] ^= 0xFF;
    refused(&b, bad, len, NULL, before, blen);
  }
  memcpy(bad, good, len);
  refused(&b, bad, 20, "truncated at byte 20 in the header", before, blen);
  refused(&b, bad, len - 3, "truncated at byte", before, blen);
  bad[40] ^= 1;
  refused(&b, bad, len, "checksum mismatch", before, blen);
  memcpy(bad, good, len);
  bad[8] = SP_SAVE_VERSION + 1;
  char version[64];
  snprintf(version, sizeof version,
           "format version %d, this saspu reads %u to %d", SP_SAVE_VERSION + 1,
           SAVE_OLDEST, SP_SAVE_VERSION);
  refused(&b, bad, len, version, before, blen);
  memcpy(bad, good, len);
  memcpy(bad, "SASPUSAW", 8);
  refused(&b, bad, len, "not a saspu save", before, blen);
  /* input that passes the checksum but breaks a rule: any payload byte
   * changed and resealed either loads (a counter, a clock) or is refused
   * by name, and a refused one changes nothing */
  size_t loaded = 0, refusals = 0;
  for (size_t at = 32; at < len; at++) {
    for (int bit = 0; bit < 8; bit += 3) {
      memcpy(bad, good, len);
      bad[at] ^= (uint8_t)(1u << bit);
      reseal(bad, len);
      SpError err;
      if (sp_world_load_check(b.w, (const SpCrowd *const *)b.c, CROWDS, bad,
                              len, NULL, NULL, &err) == SP_OK) {
        loaded++;
        continue;
      }
      refusals++;
      refused(&b, bad, len, NULL, before, blen);
    }
  }
  assert_true(refusals > 100);
  assert_true(loaded > 100);
  /* the load that succeeds makes b save what a saved */
  SpError err;
  assert_int_equal(sp_world_load(b.w, b.c, CROWDS, good, len, NULL, NULL, &err),
                   SP_OK);
  size_t now_len;
  uint8_t *now = save(&b, &now_len);
  assert_int_equal(now_len, len);
  assert_memory_equal(now, good, len);
  sp_world_save_free(b.w, now, now_len);
  free(bad);
  sp_world_save_free(b.w, before, blen);
  sp_world_save_free(a.w, good, len);
  scene_close(&a);
  scene_close(&b);
}

/* ------------------------------------------------------------------ */
/* Crafted saves: each field against the others                       */
/* ------------------------------------------------------------------ */

static uint64_t get_le(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

static void put_le(uint8_t *p, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* A crowd header's fields: its agent count and clock. */
enum { H_AGENTS = 16, H_CLOCK = 24 };

/* From crowd k's header at `at`: where its first agent starts; *words
 * gets the state words of an agent record. */
static size_t first_agent_at(const Scene *s, const uint8_t *b, int k, size_t at,
                             size_t *words) {
  size_t m = (size_t)sp_domain_variable_count(s->dom[k]);
  at += 33;
  at += 4 + (size_t)get_le(b + at, 4) * (8 + 2 * m);
  at += 48;
  *words = (size_t)get_le(b + at, 4);
  return at + 4;
}

/* From crowd k's agent record at `at`: `count` records further on. */
static size_t skip_agents(const Scene *s, const uint8_t *b, int k, size_t at,
                          size_t words, size_t count) {
  size_t m = (size_t)sp_domain_variable_count(s->dom[k]);
  int idb = sp_domain_action_count(s->dom[k]) <= 255 ? 1 : 2;
  for (size_t j = 0; j < count; j++) {
    at += SAVE_AGENT_BYTES + 4 * words + 2 * m;
    unsigned res = b[at++];
    if ((res & 3u) == SP_NPC_PLANNED)
      at += 2 + (size_t)get_le(b + at, 2) * (size_t)idb;
  }
  return at;
}

/* Where crowd k's header starts in save b, walking the layout of
 * sp_save.h; *places gets where the world's reservation counts start. */
static size_t crowd_at(const Scene *s, const uint8_t *b, int crowd,
                       size_t *places) {
  size_t at = sp__save_body_at(b, SIZE_MAX / 2); /* a sound save */
  uint32_t np = (uint32_t)get_le(b + at + 16, 4);
  *places = at + 20;
  at += 20 + 4u * np + 8;
  at += 4 + 12u * (size_t)get_le(b + at, 4);
  at += 4 + (size_t)get_le(b + at, 4); /* the world facts' values */
  at += 4;                             /* crowd count */
  for (int k = 0; k < crowd; k++) {
    size_t words, n = (size_t)get_le(b + at + H_AGENTS, 8);
    at = first_agent_at(s, b, k, at, &words);
    at = skip_agents(s, b, k, at, words, n);
    at += 4 + 4u * (size_t)get_le(b + at, 4); /* the free slots */
    at += 1 + (size_t)b[at];                  /* the fact ties' values */
    at += 1 + 8u * (size_t)b[at];             /* the sensors' next readings */
    uint32_t chases = (uint32_t)get_le(b + at, 4);
    at += 4;
    for (uint32_t q = 0; q < chases; q++)
      at += 24 + 4u * b[at + 18];              /* and paths */
    at += 4 + 12u * (size_t)get_le(b + at, 4); /* the agents' own priorities */
  }
  return at;
}

/* Where agent i of crowd k starts in save b (0 when it has no agent i);
 * *places as crowd_at. */
static size_t agent_at(const Scene *s, const uint8_t *b, int crowd, size_t i,
                       size_t *places) {
  size_t at = crowd_at(s, b, crowd, places), words;
  if (i >= get_le(b + at + H_AGENTS, 8)) return 0;
  at = first_agent_at(s, b, crowd, at, &words);
  return skip_agents(s, b, crowd, at, words, i);
}

/* An agent of the save in a state pick() accepts: its crowd, index and
 * offset, or 0 (crowd -1) when none is. */
typedef int (*Pick)(const uint8_t *rec);
static size_t find_agent(const Scene *s, const uint8_t *b, Pick pick,
                         int *crowd, size_t *agent) {
  size_t places;
  for (int k = 0; k < CROWDS; k++)
    for (size_t i = 0; i < sp_crowd_size(s->c[k]); i++) {
      size_t at = agent_at(s, b, k, i, &places);
      if (pick(b + at)) {
        *crowd = k, *agent = i;
        return at;
      }
    }
  *crowd = -1;
  return 0;
}

enum {
  R_TARGET = 0,
  R_TIME = 20,
  R_TX = 28,
  R_CURSOR = 32,
  R_STEP = 34,
  R_GOAL = 38,
  R_FACTION = 44,
  R_FOTHER = 46,
  R_FVAR = 48,
  R_FVALUE = 50,
  R_HOT_TIME = 52,
  R_PHASE = 56,
  R_FLAGS = 57,
  R_SHUN = 63
};

static int any_agent(const uint8_t *r) {
  (void)r;
  return 1;
}
static int planned(const uint8_t *r) {
  return (r[R_FLAGS] & (F_HAS_PLAN | F_NEED_GOAL)) == F_HAS_PLAN;
}
static int acting(const uint8_t *r) {
  return planned(r) && r[R_PHASE] == SP_PHASE_ACTING &&
         !(r[R_FLAGS] & F_RESERVED);
}
static int walking(const uint8_t *r) {
  return planned(r) && r[R_PHASE] == SP_PHASE_WALKING &&
         !(r[R_FLAGS] & (F_BIND | F_RESERVED));
}
static int reserved(const uint8_t *r) {
  return planned(r) && (r[R_FLAGS] & F_RESERVED);
}
static int blocked(const uint8_t *r) {
  return planned(r) && r[R_PHASE] == SP_PHASE_BLOCKED && !(r[R_FLAGS] & F_FAIL);
}

/* One crafted class: the agent pick() finds gets `bytes` of `value` at
 * `field` of its record (a hot field when hot), the save is resealed and
 * its load refused, naming the agent and `text`. */
typedef struct Craft {
  const char *what;
  Pick pick;
  int field, bytes;
  uint64_t value;
  uint8_t set_flags, phase; /* also or'ed into the flags; a phase (0: same) */
  const char *text;
  uint8_t clear_flags; /* taken out of the flags */
} Craft;

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void craft_refused(Scene *a, const uint8_t *good, size_t len,
                          const Craft *c, const uint8_t *before, size_t blen) {
  int crowd;
  size_t agent = 0;
  size_t at = find_agent(a, good, c->pick, &crowd, &agent);
  if (crowd < 0) fail_msg("%s: no agent in the state to craft", c->what);
  uint8_t *bad = malloc(len);
  memcpy(bad, good, len);
  if (c->bytes > 0) put_le(bad + at + c->field, c->value, c->bytes);
  bad[at + R_FLAGS] =
      (uint8_t)((bad[at + R_FLAGS] | c->set_flags) & ~c->clear_flags);
  if (c->phase) bad[at + R_PHASE] = c->phase;
  reseal(bad, len);
  char text[160];
  snprintf(text, sizeof text, "crowd %d '%s' agent %zu: %s", crowd + 1,
           sp_domain_name(a->dom[crowd]), agent + 1, c->text);
  refused(a, bad, len, text, before, blen);
  free(bad);
}

/* Each class of crafted save that crashed the update or a reader, or left
 * agents stuck, is refused by name (crowd, agent, field) and changes
 * nothing. */
static void test_crafted_agents_refused(void **state) {
  (void)state;
  Scene a;
  RdRng rng;
  size_t len;
  uint8_t *good = scene_saved(&a, &rng, 11, 40, 12, plain, &len);
  size_t blen;
  uint8_t *before = save(&a, &blen);
  const Craft crafts[] = {
      /* why() read the domain's name tables past their ends */
      {"fvar", any_agent, R_FVAR, 2, 900, 0, 0, "field 'fvar'", 0},
      {"fvalue", any_agent, R_FVALUE, 1, 200, 0, 0, "field 'fvalue'", 0},
      {"faction", any_agent, R_FACTION, 2, 4000, 0, 0, "field 'faction'", 0},
      {"fother", any_agent, R_FOTHER, 2, (uint16_t)-7, 0, 0, "field 'fother'",
       0},
      /* the update indexed goals[255] */
      {"a plan without a goal", planned, R_GOAL, 1, GOAL_NONE, 0, 0,
       "field 'goal': it follows a plan but has no goal", 0},
      {"a goal past the goals", any_agent, R_GOAL, 1, 200, 0, 0,
       "field 'goal': goal 200 does not exist", 0},
      /* acting and walking with no running step read plan[-1]'s tables */
      {"acting without a step", acting, R_STEP, 2, STEP_NONE, 0, 0,
       "field 'step': acting without a running step", 0},
      {"walking without a step", walking, R_STEP, 2, STEP_NONE, 0, 0,
       "field 'step': walking without a running step", 0},
      /* a step before the cursor: a negative shift */
      {"a step before the cursor", acting, R_CURSOR, 2, 40, 0, 0, "field '", 0},
      /* a blocked agent holding a reservation without a target cell */
      {"blocked with a reservation", reserved, R_TX, 4, 0xFFFFFFFFu, 0,
       SP_PHASE_BLOCKED, "field 'flags': holds a reservation", 0},
      /* times the walk casts to int */
      {"walking time -1e30", walking, R_HOT_TIME, 4, bits_of(-1e30f), 0, 0,
       "field 'time': walking progress", 0},
      {"acting time inf", acting, R_HOT_TIME, 4, bits_of(INFINITY), 0, 0,
       "field 'time': inf is not a finite time", 0},
      {"cooldown inf", any_agent, R_TIME, 4, bits_of(INFINITY), 0, 0,
       "field 'cool_until'", 0},
      /* the goal given up indexes the goals (back-off) */
      {"a goal given up past the goals", any_agent, R_SHUN, 1, 200, 0, 0,
       "field 'shun': goal 200 does not exist", 0},
      /* stuck for good, no events: thinking with nothing to think about */
      {"thinking without a plan", acting, R_STEP, 2, STEP_NONE, 0,
       SP_PHASE_THINKING, "field 'flags': thinking with neither", F_HAS_PLAN},
      {"a script step without a step", acting, R_STEP, 2, STEP_NONE, 0,
       SP_PHASE_SCRIPT, "field 'step': waiting for the script", 0},
      {"a place to bind while acting", acting, 0, 0, 0, F_BIND, 0,
       "field 'flags': a place to bind while acting", 0},
      /* finite, yet more than an update could leave: stalls for hours */
      {"acting 3e38 s", acting, R_HOT_TIME, 4, bits_of(3e38f), 0, 0,
       "field 'time': acting with 3e+38 s left, longer than its step", 0},
      {"blocked 1e9 s", blocked, R_HOT_TIME, 4, bits_of(1e9f), 0, 0,
       "field 'time': blocked with 1e+09 s left", 0},
      /* waits for an arrived() no one calls, holding its place */
      {"moving in a grid crowd", acting, 0, 0, 0, 0, SP_PHASE_MOVING,
       "field 'phase': moving (waiting for the engine) in a crowd saspu "
       "moves",
       0},
  };
  for (size_t k = 0; k < sizeof crafts / sizeof crafts[0]; k++)
    craft_refused(&a, good, len, &crafts[k], before, blen);
  sp_world_save_free(a.w, good, len);
  sp_world_save_free(a.w, before, blen);
  scene_close(&a);
}

/* An agent holding a place of capacity 1 in cap1_world. */
static const SpWorld *cap1_world;
static int reserved_at_cap1(const uint8_t *r) {
  SpPlaceInfo info;
  return reserved(r) &&
         sp_world_place(cap1_world, (uint32_t)get_le(r + R_TARGET, 4), &info) ==
             SP_OK &&
         info.capacity == 1;
}

/* Reservations above a place's capacity (counts that agree with the
 * agents) are refused. */
static void test_crafted_reservations_over_capacity(void **state) {
  (void)state;
  Scene a;
  scene_open(&a, 11, 40, plain);
  RdRng rng;
  rd_seed(&rng, 11);
  int done = 0;
  for (int f = 0; f < 200 && !done; f++) {
    run(&a, &rng, 1, NULL);
    size_t len, places;
    uint8_t *good = save(&a, &len);
    int crowd;
    cap1_world = a.w;
    size_t agent = 0,
           at = find_agent(&a, good, reserved_at_cap1, &crowd, &agent);
    uint32_t p = crowd < 0 ? 0 : (uint32_t)get_le(good + at + R_TARGET, 4);
    SpPlaceInfo info;
    if (crowd >= 0) sp_world_place(a.w, p, &info);
    if (crowd < 0 || info.capacity != 1) {
      sp_world_save_free(a.w, good, len);
      continue;
    }
    /* a second agent with a running step takes the same place */
    for (int k = 0; k < CROWDS && !done; k++)
      for (size_t i = 0; i < sp_crowd_size(a.c[k]) && !done; i++) {
        size_t at2 = agent_at(&a, good, k, i, &places);
        if (!walking(good + at2)) continue;
        uint8_t *bad = malloc(len);
        memcpy(bad, good, len);
        put_le(bad + at2 + R_TARGET, p, 4);
        put_le(bad + at2 + R_TX, (uint64_t)info.y << 16 | (uint32_t)info.x, 4);
        bad[at2 + R_FLAGS] |= F_RESERVED;
        put_le(bad + places + 4 * p, 2, 4);
        reseal(bad, len);
        char text[64];
        snprintf(text, sizeof text,
                 "place %u: 2 reservations, its capacity is 1", p);
        refused(&a, bad, len, text, good, len);
        free(bad);
        done = 1;
      }
    sp_world_save_free(a.w, good, len);
  }
  assert_true(done);
  scene_close(&a);
}

/* Fields out of the ordinary that the update handles load, and the world
 * runs on: an acting time far below zero ends the step at the next update. */
static void test_crafted_but_sound_runs(void **state) {
  (void)state;
  Scene a;
  RdRng rng;
  size_t len;
  uint8_t *good = scene_saved(&a, &rng, 13, 40, 12, plain, &len);
  int crowd;
  size_t agent = 0, at = find_agent(&a, good, acting, &crowd, &agent);
  assert_true(crowd >= 0);
  put_le(good + at + R_HOT_TIME, bits_of(-1e30f), 4);
  reseal(good, len);
  SpError err;
  if (sp_world_load(a.w, a.c, CROWDS, good, len, NULL, NULL, &err) != SP_OK)
    fail_msg("%s", err.message);
  assert_int_equal(sp_crowd_update(a.c[crowd], 0.1f, NULL), SP_OK);
  int ended = 0;
  const SpAgentEvent *ev = sp_crowd_events(a.c[crowd]);
  for (size_t k = 0; k < sp_crowd_event_count(a.c[crowd]); k++)
    ended |= ev[k].agent == agent && (ev[k].kind == SP_EV_STEP_FINISHED ||
                                      ev[k].kind == SP_EV_STEP_FAILED);
  assert_true(ended);
  run(&a, &rng, 300, NULL); /* checks every crowd after every update */
  sp_world_save_free(a.w, good, len);
  scene_close(&a);
}

/* A crowd clock outside 0..SP_CROWD_CLOCK_MAX does not load; one just
 * inside loads, and no update takes it past the bound. */
static void test_crafted_clock(void **state) {
  (void)state;
  Scene a;
  RdRng rng;
  size_t len, places;
  uint8_t *good = scene_saved(&a, &rng, 17, 20, 8, plain, &len);
  size_t at = crowd_at(&a, good, 1, &places) + H_CLOCK;
  uint8_t *bad = malloc(len);
  const double clocks[] = {-1.0, SP_CROWD_CLOCK_MAX * 2, 9e15, 1e300};
  for (size_t k = 0; k < sizeof clocks / sizeof clocks[0]; k++) {
    memcpy(bad, good, len);
    memcpy(bad + at, &clocks[k], 8);
    reseal(bad, len);
    refused(&a, bad, len, "crowd 2 'citizen': its clock", good, len);
  }
  double late = SP_CROWD_CLOCK_MAX - 1.0;
  memcpy(bad, good, len);
  memcpy(bad + at, &late, 8);
  reseal(bad, len);
  SpError err;
  if (sp_world_load(a.w, a.c, CROWDS, bad, len, NULL, NULL, &err) != SP_OK)
    fail_msg("%s", err.message);
  size_t before_len;
  uint8_t *before = save(&a, &before_len);
  assert_int_equal(sp_crowd_update(a.c[1], 2.0f, &err), SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "dt 2 takes the crowd's clock"));
  size_t now_len;
  uint8_t *now = save(&a, &now_len); /* nothing changed */
  assert_int_equal(now_len, before_len);
  assert_memory_equal(now, before, now_len);
  assert_int_equal(sp_crowd_update(a.c[0], 1e9f, &err), SP_OK);
  assert_int_equal(sp_crowd_update(a.c[1], 0.5f, &err), SP_OK);
  sp_world_save_free(a.w, now, now_len);
  sp_world_save_free(a.w, before, before_len);
  free(bad);
  sp_world_save_free(a.w, good, len);
  scene_close(&a);
}

/* A crafted list of cached fields (thousands of distinct cells, repeats)
 * costs no more than filling the world's cache once: a load computes at
 * most as many fields as the world can hold. */
static void test_crafted_field_list_is_bounded(void **state) {
  (void)state;
  Scene a;
  scene_open(&a, 3, 6, plain);
  sp_world_set_field_budget(a.w,
                            4 * 24 * 12 * 16); /* a few fields of this grid */
  RdRng rng;
  rd_seed(&rng, 3);
  run(&a, &rng, 10, NULL);
  size_t len;
  uint8_t *good = save(&a, &len);
  size_t body = sp__save_body_at(good, len);
  size_t np = (size_t)get_le(good + body + 16, 4);
  size_t list = body + 20 + 4 * np + 8; /* the field count, then the list */
  size_t nf = (size_t)get_le(good + list, 4), extra = 3000;
  size_t blen = len + 12 * extra;
  uint8_t *big = malloc(blen);
  memcpy(big, good, list + 4 + 12 * nf);
  for (size_t k = 0; k < extra; k++) { /* every cell, some twice */
    uint32_t cell = (uint32_t)(k % (24 * 12 - 1));
    put_le(big + list + 4 + 12 * (nf + k), 0x80000000u | cell, 4);
    put_le(big + list + 4 + 12 * (nf + k) + 4, k, 8);
  }
  memcpy(big + list + 4 + 12 * (nf + extra), good + list + 4 + 12 * nf,
         len - (list + 4 + 12 * nf));
  put_le(big + list, nf + extra, 4);
  put_le(big + 16, blen - 32, 8);
  reseal(big, blen);
  SpWorldStats before, after;
  sp_world_stats(a.w, &before);
  SpError err;
  if (sp_world_load(a.w, a.c, CROWDS, big, blen, NULL, NULL, &err) != SP_OK)
    fail_msg("%s", err.message);
  sp_world_stats(a.w, &after);
  /* a field takes over 4 bytes a cell: the budget holds fewer than 16 */
  assert_true(after.fields_computed - before.fields_computed < 16);
  run(&a, &rng, 30, NULL); /* the others come when an agent needs them */
  free(big);
  sp_world_save_free(a.w, good, len);
  scene_close(&a);
}

/* A world that was not built the same way is refused by name. */
static void test_mismatched_world(void **state) {
  (void)state;
  Scene a, b;
  scene_open(&a, 5, 4, plain);
  size_t len;
  uint8_t *good = save(&a, &len);
  scene_open(&b, 6, 4, plain); /* other places, options, random domain */
  size_t blen;
  uint8_t *before = save(&b, &blen);
  refused(&b, good, len,
          "the places (names of kinds, cells, capacities) differ", before,
          blen);
  SpError err;
  /* crowds in another order */
  SpCrowd *swapped[CROWDS] = {a.c[1], a.c[0], a.c[2], a.c[3]};
  assert_int_equal(
      sp_world_load(a.w, swapped, CROWDS, good, len, NULL, NULL, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(
      err.message, "crowd 1 'citizen': domain differs from the saved one"));
  assert_int_equal(
      sp_world_load(a.w, a.c, CROWDS - 1, good, len, NULL, NULL, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "the save holds 4 crowds, 3 were given"));
  /* a behaviour changed by the game code */
  SpActionBehaviour beh;
  memset(&beh, 0, sizeof beh);
  beh.place = SP_NO_PLACE;
  beh.min_duration = beh.max_duration = 42.0f;
  assert_int_equal(sp_crowd_set_action(a.c[2], 0, &beh, NULL), SP_OK);
  assert_int_equal(sp_world_load(a.w, a.c, CROWDS, good, len, NULL, NULL, &err),
                   SP_ERR_INVALID);
  assert_non_null(
      strstr(err.message, "crowd 3 'acquisition_machine': action behaviours"));
  /* a wall where the save had none */
  sp_grid_set_blocked(a.grid, 0, 0, 1, NULL);
  assert_int_equal(sp_world_load(a.w, a.c, CROWDS, good, len, NULL, NULL, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "the grid (size or cells) differs"));
  /* saving only some crowds of a world with reservations is refused */
  RdRng rng;
  rd_seed(&rng, 1);
  int partial = 0;
  for (int f = 0; f < 40 && !partial; f++) {
    run(&b, &rng, 1, NULL);
    void *out;
    size_t out_len;
    SpStatus st = sp_world_save(b.w, (const SpCrowd *const *)b.c, 1, NULL, 0,
                                &out, &out_len, &err);
    if (st == SP_OK)
      sp_world_save_free(b.w, out, out_len);
    else
      partial = strstr(err.message, "pass every crowd of the world") != NULL;
  }
  assert_true(partial);
  sp_world_save_free(b.w, before, blen);
  sp_world_save_free(a.w, good, len);
  scene_close(&a);
  scene_close(&b);
}

/* Every allocation failure during a load gives SP_ERR_MEMORY, changes
 * nothing and leaks nothing. */
static void test_load_allocation_failures(void **state) {
  (void)state;
  TestAlloc t;
  test_alloc_init(&t, 0);
  Scene a;
  RdRng rng;
  size_t len;
  uint8_t *good = scene_saved(&a, &rng, 7, 5, 10, test_alloc_hook(&t), &len);
  run(&a, &rng, 5, NULL);
  size_t blen;
  uint8_t *before = save(&a, &blen);
  int failures = 0;
  for (long k = 1;; k++) {
    t.fail_at = t.calls + k;
    SpError err;
    SpStatus st = sp_world_load(a.w, a.c, CROWDS, good, len, NULL, NULL, &err);
    t.fail_at = 0;
    if (st == SP_OK) break;
    assert_int_equal(st, SP_ERR_MEMORY);
    failures++;
    size_t now_len;
    uint8_t *now = save(&a, &now_len);
    assert_int_equal(now_len, blen);
    assert_memory_equal(now, before, blen);
    sp_world_save_free(a.w, now, now_len);
  }
  assert_true(failures >= 4); /* scratch counts and refusal words */
  sp_world_save_free(a.w, good, len);
  sp_world_save_free(a.w, before, blen);
  scene_close(&a);
  assert_int_equal(t.live, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_resumes_the_same_events),
      cmocka_unit_test(test_bad_input_changes_nothing),
      cmocka_unit_test(test_mismatched_world),
      cmocka_unit_test(test_load_allocation_failures),
      cmocka_unit_test(test_crafted_agents_refused),
      cmocka_unit_test(test_crafted_reservations_over_capacity),
      cmocka_unit_test(test_crafted_but_sound_runs),
      cmocka_unit_test(test_crafted_clock),
      cmocka_unit_test(test_crafted_field_list_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
