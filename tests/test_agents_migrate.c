/* test_agents_migrate.c: format 6's names block and sp_world_migrate in C: an old-format save still loads, names are untrusted input (bounded, refused by name, nothing changed), a migration onto the same world changes nothing, and out-of-memory at any point leaks nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu_agents.h"
#include "sp_save.h"
#include "sp_due.h"
#include "test_alloc.h"
#include "test_fixture.h"

static const SpAllocator plain = {NULL, NULL};

/* A small world: a 16x8 grid, two kinds, three places, one citizen crowd
 * whose steps walk to the places, six agents after a few frames. */
typedef struct Town {
  TestFixture f;
  SpGrid *grid;
  SpWorld *w;
  SpCrowd *c;
  const SpCrowd *cs[1]; /* the crowd, as the save calls take it */
  uint8_t *good;        /* town_saved: its save, freed by town_close */
  size_t len;
} Town;

static void town_open(Town *t, SpAllocator a) {
  memset(t, 0, sizeof *t);
  test_fixture_open(&t->f, sp_builtin_citizen(plain));
  assert_int_equal(sp_grid_new(16, 8, 1.0, a, &t->grid, NULL), SP_OK);
  assert_int_equal(sp_world_new(t->grid, a, &t->w, NULL), SP_OK);
  const char *kinds[2] = {"market", "well"};
  for (int k = 0; k < 2; k++)
    assert_int_equal(sp_world_kind(t->w, kinds[k], NULL, NULL), SP_OK);
  for (int p = 0; p < 3; p++)
    assert_int_equal(
        sp_world_add_place(t->w, p % 2, 2 + 5 * p, 3, 0, NULL, NULL), SP_OK);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = 10, o.threads = 1, o.seed = 3;
  assert_int_equal(sp_crowd_new(t->w, t->f.d, &o, a, &t->c, NULL), SP_OK);
  for (int k = 0; k < t->f.a; k++) {
    SpActionBehaviour b;
    memset(&b, 0, sizeof b);
    b.place = SP_NO_PLACE;
    b.min_duration = 0.5f, b.max_duration = 1.0f;
    b.bind = k % 3 == 0 ? SP_BIND_KIND : SP_BIND_NONE;
    b.kind = k % 2;
    assert_int_equal(sp_crowd_set_action(t->c, k, &b, NULL), SP_OK);
  }
  const SpBuiltSpec *bs = t->f.b;
  SpValue cond[64];
  for (int g = 0; g < bs->goal_count; g++) {
    for (int v = 0; v < t->f.m; v++)
      cond[v] = bs->goals[g].keep != NULL && bs->goals[g].keep[v]
                    ? SP_ANY
                    : bs->goals[g].values[v];
    sp_crowd_add_goal(t->c, cond, g, NULL, NULL, NULL);
  }
  for (int i = 0; i < 6; i++)
    assert_int_equal(sp_crowd_spawn(t->c, bs->starts[0].values, i, 6,
                                    SP_NO_PLACE, NULL, NULL),
                     SP_OK);
  for (int f = 0; f < 12; f++)
    assert_int_equal(sp_crowd_update(t->c, 0.4f, NULL), SP_OK);
}

static void town_close(Town *t) {
  if (t->good != NULL) sp_world_save_free(t->w, t->good, t->len);
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  sp_grid_free(t->grid);
  test_fixture_close(&t->f);
}

static uint8_t *save(Town *t, size_t *len) {
  void *buf;
  const SpCrowd *cs[1] = {t->c};
  SpError err;
  if (sp_world_save(t->w, cs, 1, "x", 1, &buf, len, &err) != SP_OK)
    fail_msg("%s", err.message);
  return buf;
}

/* The set-up every test starts from: the town after its frames and the
 * save it writes then (t->good, t->len). */
static void town_saved(Town *t, SpAllocator a) {
  town_open(t, a);
  t->cs[0] = t->c;
  t->good = save(t, &t->len);
}

static void reseal(uint8_t *b, size_t len) {
  sp_save_put(b + 16, len - SAVE_HEADER_BYTES, 8);
  sp_save_put(b + 24,
              sp__save_fnv(SAVE_FNV_START, b + SAVE_HEADER_BYTES,
                           len - SAVE_HEADER_BYTES),
              8);
}

/* The same save of crowd c as format 5: no names block, none of the
 * words formats 7 and 8 add before the extra part "x" (one crowd without
 * chases or own priorities: u32 0 twice; the world's u32 0 waiters), and
 * the setup print of before format 9 (no movement). */
static uint8_t *as_format5(const SpCrowd *c, const uint8_t *good, size_t len,
                           size_t *out_len) {
  size_t body = sp__save_body_at(good, len);
  assert_true(body > SAVE_HEADER_BYTES);
  size_t tail = 4 + 1, added = 12; /* the extra part; the words cut */
  assert_true(len > tail + added);
  for (size_t k = 0; k < added; k++)
    assert_int_equal(good[len - tail - added + k], 0);
  *out_len = len - (body - SAVE_HEADER_BYTES) - added;
  uint8_t *b = malloc(*out_len);
  memcpy(b, good, SAVE_HEADER_BYTES);
  memcpy(b + SAVE_HEADER_BYTES, good + body, len - body - tail - added);
  memcpy(b + *out_len - tail, good + len - tail, tail);
  sp_save_put(b + 8, 5, 4);
  uint64_t now = sp__save_setup_print(c, SP_SAVE_VERSION);
  int found = 0;
  for (size_t k = SAVE_HEADER_BYTES; k + 8 <= *out_len && !found; k++)
    if (sp_save_get(b + k, 8) == now) {
      sp_save_put(b + k, sp__save_setup_print(c, 5), 8);
      found = 1;
    }
  assert_true(found);
  reseal(b, *out_len);
  return b;
}

/* A format-5 save loads without migration (and resumes as the format-6
 * one does); a migration refuses it, saying why. */
static void test_format5_still_loads(void **state) {
  (void)state;
  Town t;
  town_saved(&t, plain);
  size_t len5;
  uint8_t *old = as_format5(t.c, t.good, t.len, &len5);
  SpError err;
  SpSaveInfo info;
  assert_int_equal(sp_save_info(old, len5, 0, &info, NULL, &err), SP_OK);
  assert_int_equal(info.version, 5);
  assert_int_equal(info.crowds, 1);
  assert_int_equal(sp_world_load(t.w, &t.c, 1, old, len5, NULL, NULL, &err),
                   SP_OK);
  size_t again_len;
  uint8_t *again = save(&t, &again_len);
  assert_int_equal(again_len, t.len);
  assert_memory_equal(again, t.good, t.len);
  SpMigration m;
  assert_int_equal(
      sp_world_migrate(t.w, t.cs, 1, NULL, NULL, 0, old, len5, &m, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "format 5 carries no names to map by"));
  assert_null(m.save);
  free(old);
  sp_world_save_free(t.w, again, again_len);
  town_close(&t);
}

/* A format-8 save (its setup print without the crowd's movement) loads
 * and migrates; the same bytes called format 9 are refused, naming the
 * options. */
static void test_format8_still_loads(void **state) {
  (void)state;
  Town t;
  town_saved(&t, plain);
  uint8_t *old = malloc(t.len);
  memcpy(old, t.good, t.len);
  uint64_t now = sp__save_setup_print(t.c, SP_SAVE_VERSION);
  size_t at = SAVE_HEADER_BYTES;
  while (at + 8 <= t.len && sp_save_get(old + at, 8) != now) at++;
  assert_true(at + 8 <= t.len);
  sp_save_put(old + at, sp__save_setup_print(t.c, 8), 8);
  reseal(old, t.len);
  SpError err;
  assert_int_equal(sp_world_load(t.w, &t.c, 1, old, t.len, NULL, NULL, &err),
                   SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "cooldown, retry, movement) differ"));
  sp_save_put(old + 8, 8, 4);
  reseal(old, t.len);
  if (sp_world_load(t.w, &t.c, 1, old, t.len, NULL, NULL, &err) != SP_OK)
    fail_msg("%s", err.message);
  size_t again_len;
  uint8_t *again = save(&t, &again_len);
  assert_int_equal(again_len, t.len);
  assert_memory_equal(again, t.good, t.len);
  SpMigration m;
  if (sp_world_migrate(t.w, t.cs, 1, NULL, NULL, 0, old, t.len, &m, &err) !=
      SP_OK)
    fail_msg("%s", err.message);
  assert_int_equal(m.save_len, t.len);
  assert_memory_equal(m.save, t.good, t.len);
  sp_migration_free(t.w, &m);
  free(old);
  sp_world_save_free(t.w, again, again_len);
  town_close(&t);
}

/* Every kind of crafted names block is refused by the load, the
 * migration and sp_save_info, naming what is wrong; the world saves the
 * same bytes after. */
static void test_crafted_names_refused(void **state) {
  (void)state;
  Town t;
  town_saved(&t, plain);
  const size_t p = SAVE_HEADER_BYTES; /* the place count */
  const size_t name = p + 4;          /* place 1's name length */
  struct {
    size_t at;
    int bytes;
    uint64_t value;
    const char *text;
  } cases[] = {
      {name, 1, 0, "names: place 1: the name is empty"},
      {name + 1, 1, 0, "names: place 1: the name holds a NUL byte"},
      {name, 1, 255, "names"},
      {p, 4, 0xFFFFFFFFu, "names: place 4"}, /* read on into what follows */
      {p, 4, 0, "names"}, /* the rest then reads as the wrong fields */
  };
  size_t before_len;
  uint8_t *before = save(&t, &before_len);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    uint8_t *bad = malloc(t.len);
    memcpy(bad, t.good, t.len);
    sp_save_put(bad + cases[k].at, cases[k].value, cases[k].bytes);
    reseal(bad, t.len);
    SpError err;
    SpSaveInfo info;
    assert_int_equal(sp_world_load(t.w, &t.c, 1, bad, t.len, NULL, NULL, &err),
                     SP_ERR_INVALID);
    if (strstr(err.message, cases[k].text) == NULL)
      fail_msg("case %zu: load said '%s'", k, err.message);
    SpMigration m;
    assert_int_equal(
        sp_world_migrate(t.w, t.cs, 1, NULL, NULL, 0, bad, t.len, &m, &err),
        SP_ERR_INVALID);
    assert_non_null(strstr(err.message, "saved world: migrate: "));
    if (k < 4) { /* sp_save_info reads the names only */
      assert_int_equal(sp_save_info(bad, t.len, 0, &info, NULL, &err),
                       SP_ERR_INVALID);
      assert_non_null(strstr(err.message, cases[k].text));
    }
    size_t now_len;
    uint8_t *now = save(&t, &now_len);
    assert_int_equal(now_len, before_len);
    assert_memory_equal(now, before, before_len);
    sp_world_save_free(t.w, now, now_len);
    free(bad);
  }
  /* cut inside the names: where it ends, by the load and the migration */
  SpError err;
  SpMigration m;
  assert_int_equal(sp_world_load(t.w, &t.c, 1, t.good, 60, NULL, NULL, &err),
                   SP_ERR_INVALID);
  assert_non_null(
      strstr(err.message, "saved world: truncated at byte 60 in the names"));
  assert_int_equal(
      sp_world_migrate(t.w, t.cs, 1, NULL, NULL, 0, t.good, 60, &m, &err),
      SP_ERR_INVALID);
  assert_non_null(strstr(err.message, "saved world: migrate: "));
  sp_world_save_free(t.w, before, before_len);
  town_close(&t);
}

/* Migrating a save onto the world that wrote it gives the same bytes, a
 * report saying the crowd is unchanged, and every action mapped to
 * itself; the counts of sp_save_info are the world's. */
static void test_migrate_same_world(void **state) {
  (void)state;
  Town t;
  town_saved(&t, plain);
  SpMigration m;
  SpError err;
  assert_int_equal(
      sp_world_migrate(t.w, t.cs, 1, NULL, NULL, 0, t.good, t.len, &m, &err),
      SP_OK);
  assert_int_equal(m.save_len, t.len);
  assert_memory_equal(m.save, t.good, t.len);
  assert_non_null(strstr(m.report, "crowd 1 'citizen': unchanged\n"));
  assert_int_equal(m.map_at[1] - m.map_at[0], (size_t)t.f.a);
  for (int a = 0; a < t.f.a; a++) assert_int_equal(m.action_map[a], a);
  sp_migration_free(t.w, &m);
  SpSaveInfo info;
  SpSaveCrowdInfo ci;
  assert_int_equal(sp_save_info(t.good, t.len, 0, &info, &ci, &err), SP_OK);
  assert_int_equal(info.version, SP_SAVE_VERSION);
  assert_int_equal(info.places, 3);
  assert_int_equal(ci.agents, 6);
  assert_int_equal(ci.variables, (uint32_t)t.f.m);
  assert_int_equal(ci.actions, (uint32_t)t.f.a);
  assert_int_equal(ci.name_len, strlen("citizen"));
  assert_memory_equal(ci.name, "citizen", ci.name_len);
  /* a default for a variable no crowd has */
  SpMigrateDefault d = {"nope", "x"};
  assert_int_equal(
      sp_world_migrate(t.w, t.cs, 1, NULL, &d, 1, t.good, t.len, &m, &err),
      SP_ERR_INVALID);
  assert_non_null(
      strstr(err.message, "defaults.nope: no crowd has a variable 'nope'"));
  town_close(&t);
}

/* Out of memory at every allocation of a migration: SP_ERR_MEMORY and
 * nothing leaked, until it succeeds. */
static void test_migrate_out_of_memory(void **state) {
  (void)state;
  TestAlloc ta;
  test_alloc_init(&ta, 0);
  Town t;
  town_saved(&t, test_alloc_hook(&ta));
  long live = ta.live;
  int failures = 0;
  for (long k = 1;; k++) {
    SpMigration m;
    SpError err;
    ta.fail_at = ta.calls + k;
    SpStatus st =
        sp_world_migrate(t.w, t.cs, 1, NULL, NULL, 0, t.good, t.len, &m, &err);
    ta.fail_at = 0;
    if (st == SP_OK) {
      sp_migration_free(t.w, &m);
      break;
    }
    assert_int_equal(st, SP_ERR_MEMORY);
    assert_int_equal(ta.live, live);
    failures++;
  }
  assert_int_equal(ta.live, live);
  assert_true(failures >= 4);
  town_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format5_still_loads),
      cmocka_unit_test(test_format8_still_loads),
      cmocka_unit_test(test_crafted_names_refused),
      cmocka_unit_test(test_migrate_same_world),
      cmocka_unit_test(test_migrate_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
