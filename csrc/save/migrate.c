/* migrate.c: sp_world_migrate: a save made before a patch rewritten, by the names it carries, into one the world as it is now loads (the world's part and the report here, each crowd in migrate_crowd.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate.h"
#include "sp_error.h"
#include "sp_internal.h"

/* The rewrite only reads the old save and writes a new one: the world is
 * not touched. The new save then goes through sp_world_load like any
 * other, so every invariant of the update is checked on what it holds. */

/* ------------------------------------------------------------------ */
/* Reader, errors, report                                             */
/* ------------------------------------------------------------------ */

int sp__mig_fail(Mig *g, const char *fmt, ...) {
  if (g->failed) return 0;
  g->failed = 1;
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (g->crowd > 0)
    sp__error_set(g->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: migrate: crowd %d '%s': %s", g->crowd,
                  sp_domain_name(g->crowds[g->crowd - 1]->domain), what);
  else
    sp__error_set(g->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: migrate: %s", what);
  return 0;
}

const uint8_t *sp__mig_take(Mig *g, size_t n) {
  if (g->failed) return NULL;
  if (n > g->len - g->at) {
    sp__mig_fail(g, "truncated at byte %zu", g->len);
    return NULL;
  }
  const uint8_t *p = g->p + g->at;
  g->at += n;
  return p;
}

uint64_t sp__mig_get(Mig *g, int bytes) {
  const uint8_t *p = sp__mig_take(g, (size_t)bytes);
  return p == NULL ? 0 : sp_save_get(p, bytes);
}

void sp__mig_say(Mig *g, const char *fmt, ...) {
  SpMigration *m = g->out;
  char line[400];
  int at = 0;
  if (g->crowd > 0)
    at = snprintf(line, sizeof line, "crowd %d '%s': ", g->crowd,
                  sp_domain_name(g->crowds[g->crowd - 1]->domain));
  if (at < 0 || (size_t)at >= sizeof line) at = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + at, sizeof line - (size_t)at, fmt, ap);
  va_end(ap);
  size_t n = strlen(line);
  if (m->report_len + n + 2 > m->report_cap) {
    size_t cap = m->report_cap < 256 ? 256 : m->report_cap;
    while (cap < m->report_len + n + 2) cap *= 2;
    char *p = sp__mem_realloc(g->w->alloc, m->report, m->report_cap, cap);
    if (p == NULL) {
      g->o.oom = 1; /* the rewrite then fails as out of memory */
      return;
    }
    m->report = p, m->report_cap = cap;
  }
  g->said++;
  memcpy(m->report + m->report_len, line, n);
  m->report_len += n;
  m->report[m->report_len++] = '\n';
  m->report[m->report_len] = '\0';
}

void sp__mig_section(Mig *g, size_t from, uint32_t n, int drop, const char *one,
                     const char *many, const char *what) {
  if (n > 0 && drop) sp__mig_say(g, "%u %s %s", n, n == 1 ? one : many, what);
  if (n > 0 && !drop)
    sp__save_out_bytes(&g->o, g->p + from, g->at - from);
  else
    sp__save_out(&g->o, 0, 4);
}

/* ------------------------------------------------------------------ */
/* The world's part                                                   */
/* ------------------------------------------------------------------ */

/* An old place's name and index, sorted by name then index. */
typedef struct OldPlace {
  const uint8_t *p;
  size_t len;
  uint32_t index;
} OldPlace;

static int name_cmp(const uint8_t *a, size_t alen, const uint8_t *b,
                    size_t blen) {
  int c = memcmp(a, b, alen < blen ? alen : blen);
  return c != 0 ? c : (alen > blen) - (alen < blen);
}

static int by_name(const void *x, const void *y) {
  const OldPlace *a = x, *b = y;
  int c = name_cmp(a->p, a->len, b->p, b->len);
  return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* The first old place (lowest index) named `name`, or -1. */
static long find_old(const OldPlace *s, size_t n, const char *name) {
  size_t lo = 0, hi = n, len = strlen(name);
  while (lo < hi) { /* the first entry not below name */
    size_t mid = lo + (hi - lo) / 2;
    if (name_cmp(s[mid].p, s[mid].len, (const uint8_t *)name, len) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && name_cmp(s[lo].p, s[lo].len, (const uint8_t *)name, len) == 0
             ? (long)s[lo].index
             : -1;
}

/* Old places to new ones by name, through the old names sorted (a
 * crafted save may list many, and names chosen to collide cost a sort as
 * any others: n log n in both counts); reports the places that came. The
 * first of two equal old names wins. */
static int map_places(Mig *g) {
  const SpWorld *w = g->w;
  char buf[64];
  size_t sorted_bytes = ((size_t)g->old.places + 1) * sizeof(OldPlace);
  g->place_bytes = ((size_t)g->old.places + 1) * sizeof(uint32_t);
  g->held_bytes = (w->place_count + 1) * sizeof(uint32_t);
  g->place_map = sp__mem_alloc(w->alloc, g->place_bytes);
  g->gone_uses = sp__mem_alloc(w->alloc, g->place_bytes);
  g->held = sp__mem_alloc(w->alloc, g->held_bytes);
  OldPlace *sorted = sp__mem_alloc(w->alloc, sorted_bytes);
  if (g->place_map == NULL || g->gone_uses == NULL || g->held == NULL ||
      sorted == NULL) {
    if (sorted != NULL) sp__mem_free(w->alloc, sorted, sorted_bytes);
    g->failed = 1;
    sp__error_memory(g->err);
    return 0;
  }
  memset(g->gone_uses, 0, g->place_bytes);
  memset(g->held, 0, g->held_bytes);
  for (uint32_t p = 0; p < g->old.places; p++) {
    g->place_map[p] = SP_NO_PLACE;
    OldPlace o = {g->old.place[p].p, g->old.place[p].len, p};
    sorted[p] = o;
  }
  qsort(sorted, g->old.places, sizeof *sorted, by_name);
  for (size_t q = 0; q < w->place_count; q++) {
    const char *name = sp__save_place_name(w, q, g->names, buf, sizeof buf);
    long old = find_old(sorted, g->old.places, name);
    if (old >= 0 && g->place_map[old] == SP_NO_PLACE)
      g->place_map[old] = (uint32_t)q;
    else
      sp__mig_say(g, "place '%s' is new", name);
  }
  sp__mem_free(w->alloc, sorted, sorted_bytes);
  return 1;
}

/* The old facts' values mapped by fact and value names; a fact new, gone
 * or whose value is gone keeps the value it has now. */
static int mig_facts(Mig *g) {
  const SpWorld *w = g->w;
  uint32_t n = (uint32_t)sp__mig_get(g, 4);
  if (!g->failed && n != g->old.facts.count)
    return sp__mig_fail(g, "%u facts saved, its names say %u", n,
                        g->old.facts.count);
  const uint8_t *v = sp__mig_take(g, n);
  if (v == NULL) return 0;
  sp__save_out(&g->o, (uint64_t)w->fact_count, 4);
  for (int f = 0; f < w->fact_count; f++) {
    const Fact *fact = &w->facts[f];
    int old = sp__save_vars_find(&g->old.facts, fact->name), to = fact->value;
    if (old < 0) {
      sp__mig_say(g, "fact '%s' is new", fact->name);
    } else if (v[old] >= sp_save_value_count(&g->old.facts, old)) {
      return sp__mig_fail(g, "fact '%s': value %u is out of range", fact->name,
                          v[old]);
    } else {
      SaveStr name = g->old.facts.str[g->old.facts.at[old] + 1 + v[old]];
      int found = -1;
      for (int x = 0; x < fact->value_count && found < 0; x++)
        if (sp__save_str_is(name, fact->values[x])) found = x;
      if (found < 0)
        sp__mig_say(g, "fact '%s': value '%.*s' is gone: it keeps '%s'",
                    fact->name, SAVE_STR_ARG(name), fact->values[to]);
      else
        to = found;
    }
    sp__save_out(&g->o, (uint64_t)to, 1);
  }
  return 1;
}

/* The world's part up to the crowds: the grid must be the same; places
 * and facts by name; reservations recounted at the end (their offset in
 * *reserved_at). */
static int mig_world(Mig *g, size_t *reserved_at) {
  const SpWorld *w = g->w;
  uint64_t grid = sp__mig_get(g, 8);
  sp__mig_get(g, 8); /* the places print: names map places now */
  uint32_t np = (uint32_t)sp__mig_get(g, 4);
  if (g->failed) return 0;
  if (grid != sp__save_grid_print(w->grid))
    return sp__mig_fail(
        g, "the grid (size or cells) differs from the saved one "
           "(a migration maps domains, behaviours and places, not the grid)");
  if (np != g->old.places)
    return sp__mig_fail(g, "%u places saved, its names say %u", np,
                        g->old.places);
  sp__mig_take(g, 4u * (size_t)np);
  uint64_t clock = sp__mig_get(g, 8);
  uint32_t nf = (uint32_t)sp__mig_get(g, 4);
  const uint8_t *list = sp__mig_take(g, 12u * (size_t)nf);
  if (g->failed) return 0;
  sp__save_out(&g->o, sp__save_grid_print(w->grid), 8);
  sp__save_out(&g->o, sp__save_places_print(w), 8);
  sp__save_out(&g->o, w->place_count, 4);
  *reserved_at = g->o.len;
  for (size_t p = 0; p < w->place_count; p++) sp__save_out(&g->o, 0, 4);
  sp__save_out(&g->o, clock, 8);
  /* the cached fields: a place's under its new index (a gone one is
   * dropped), a cell's as it was (the load checks and bounds the list) */
  uint32_t kept = 0;
  for (uint32_t f = 0; f < nf; f++) {
    uint32_t key = (uint32_t)sp_save_get(list + 12u * f, 4);
    kept += (key & FIELD_CELL_KEY) ||
            (key < np && g->place_map[key] != SP_NO_PLACE);
  }
  sp__save_out(&g->o, kept, 4);
  for (uint32_t f = 0; f < nf; f++) {
    uint32_t key = (uint32_t)sp_save_get(list + 12u * f, 4);
    if (!(key & FIELD_CELL_KEY) &&
        (key >= np || g->place_map[key] == SP_NO_PLACE))
      continue;
    sp__save_out(&g->o, key & FIELD_CELL_KEY ? key : g->place_map[key], 4);
    sp__save_out_bytes(&g->o, list + 12u * f + 4, 8);
  }
  return mig_facts(g);
}

static void mig_free(Mig *g) {
  SpAllocator a = g->w->alloc;
  if (g->place_map != NULL) sp__mem_free(a, g->place_map, g->place_bytes);
  if (g->gone_uses != NULL) sp__mem_free(a, g->gone_uses, g->place_bytes);
  if (g->held != NULL) sp__mem_free(a, g->held, g->held_bytes);
  sp__save_names_free(&g->old);
}

/* Each saved crowd's actions mapped, for the caller's own part. */
static int action_maps(Mig *g) {
  SpMigration *m = g->out;
  size_t total = 0;
  for (size_t k = 0; k < g->count; k++) total += g->old.crowd[k].actions;
  m->map_count = g->count;
  m->map_bytes =
      (g->count + 1) * sizeof(size_t) + (total + 1) * sizeof(int32_t);
  m->map_at = sp__mem_alloc(g->w->alloc, m->map_bytes);
  if (m->map_at == NULL) return 0;
  m->action_map = (int32_t *)(m->map_at + g->count + 1);
  size_t at = 0;
  for (size_t k = 0; k < g->count; k++) {
    const SaveCrowdNames *old = &g->old.crowd[k];
    const SpCrowd *c = g->crowds[k];
    m->map_at[k] = at;
    for (uint32_t a = 0; a < old->actions; a++, at++) {
      m->action_map[at] = -1;
      for (int b = 0; b < c->action_count; b++)
        if (sp__save_str_is(old->act[a], sp_action_name(c->domain, b)) &&
            sp__save_action_sig(c, b, g->names) == old->sig[a])
          m->action_map[at] = b;
    }
  }
  m->map_at[g->count] = at;
  return 1;
}

/* Every default names a variable of some crowd. */
static int check_defaults(Mig *g) {
  for (size_t k = 0; k < g->ndefs; k++) {
    const SpMigrateDefault *d = &g->defs[k];
    if (d->variable == NULL || d->value == NULL)
      return sp__mig_fail(g, "defaults: entry %zu has no variable or value",
                          k + 1);
    int found = 0;
    for (size_t c = 0; c < g->count && !found; c++)
      for (int v = 0; v < g->crowds[c]->m && !found; v++)
        found =
            strcmp(sp_variable_name(g->crowds[c]->domain, v), d->variable) == 0;
    if (!found)
      return sp__mig_fail(g, "defaults.%s: no crowd has a variable '%s'",
                          d->variable, d->variable);
  }
  return 1;
}

static int rewrite(Mig *g, uint64_t *agents) {
  char why[200];
  if (g->len < SAVE_HEADER_BYTES || memcmp(g->p, SAVE_MAGIC, 8) != 0)
    return sp__mig_fail(g, "not a saspu save (bad magic)");
  uint32_t version = (uint32_t)sp_save_get(g->p + 8, 4);
  g->version = version;
  if (version < 6)
    return sp__mig_fail(g,
                        "format %u carries no names to map by: load it without "
                        "migrate, in the game version that wrote it",
                        version);
  if (version > SP_SAVE_VERSION)
    return sp__mig_fail(g, "format version %u, this saspu reads %u to %d",
                        version, SAVE_OLDEST, SP_SAVE_VERSION);
  uint64_t payload = sp_save_get(g->p + 16, 8);
  if (sp_save_get(g->p + 12, 4) != 0 || payload != g->len - SAVE_HEADER_BYTES)
    return sp__mig_fail(
        g, "its header's flags or length do not fit its %zu bytes", g->len);
  if (sp__save_fnv(SAVE_FNV_START, g->p + SAVE_HEADER_BYTES, (size_t)payload) !=
      sp_save_get(g->p + 24, 8))
    return sp__mig_fail(g, "checksum mismatch (the data is corrupted)");
  const char *e =
      sp__save_names_read(g->p + SAVE_HEADER_BYTES, (size_t)payload, version,
                          g->w->alloc, &g->old, why, sizeof why);
  if (e == sp__save_no_memory) {
    g->failed = 1;
    sp__error_memory(g->err);
    return 0;
  }
  if (e != NULL) return sp__mig_fail(g, "%s", e);
  if (g->old.crowds != g->count)
    return sp__mig_fail(g, "the save holds %u crowds, %zu were given",
                        g->old.crowds, g->count);
  if (!check_defaults(g)) return 0;
  g->at = SAVE_HEADER_BYTES + g->old.end;
  for (size_t k = 0; k < g->count; k++) agents[k] = g->old.crowd[k].agents;
  size_t reserved_at = 0;
  sp__save_room(&g->o, SAVE_HEADER_BYTES);
  sp__save_put_names(&g->o, g->w, g->crowds, g->count, g->names, agents);
  if (!map_places(g) || !mig_world(g, &reserved_at)) return 0;
  uint32_t count = (uint32_t)sp__mig_get(g, 4);
  if (!g->failed && count != g->count)
    return sp__mig_fail(g, "the save holds %u crowds, its names %zu", count,
                        g->count);
  sp__save_out(&g->o, count, 4);
  for (size_t k = 0; k < g->count; k++)
    if (!sp__mig_crowd(g, k)) return 0;
  /* the queue of waiters for full places (format 8): kept when no crowd
   * and no place changed, else dropped (its places, agents and actions
   * may have moved); they queue again */
  size_t queue_at = g->at;
  uint32_t waiters = g->version >= 8 ? (uint32_t)sp__mig_get(g, 4) : 0;
  if (g->failed || sp__mig_take(g, 14u * (size_t)waiters) == NULL) return 0;
  int same = !g->changed && g->old.places == g->w->place_count;
  for (uint32_t p = 0; same && p < g->old.places; p++)
    same = g->place_map[p] == p;
  sp__mig_section(g, queue_at, waiters, !same, "agent waiting for full places",
                  "agents waiting for full places", "queue again");
  for (uint32_t p = 0; p < g->old.places; p++)
    if (g->place_map[p] == SP_NO_PLACE)
      sp__mig_say(g,
                  "place '%.*s' is gone (%u agents had it as target or home)",
                  SAVE_STR_ARG(g->old.place[p]), g->gone_uses[p]);
  uint32_t extra = (uint32_t)sp__mig_get(g, 4);
  const uint8_t *bytes = sp__mig_take(g, extra);
  if (bytes == NULL) return 0;
  if (g->at != g->len)
    return sp__mig_fail(g, "%zu bytes after the end", g->len - g->at);
  sp__save_out(&g->o, extra, 4);
  sp__save_out_bytes(&g->o, bytes, extra);
  if (!g->o.oom)
    for (size_t p = 0; p < g->w->place_count; p++)
      sp_save_put(g->o.p + reserved_at + 4 * p, g->held[p], 4);
  return 1;
}

SpStatus sp_world_migrate(const SpWorld *w, const SpCrowd *const *crowds,
                          size_t count, const SpSaveNames *names,
                          const SpMigrateDefault *defaults, size_t ndefaults,
                          const void *data, size_t len, SpMigration *out,
                          SpError *err) {
  SpError local;
  if (err == NULL) err = &local;
  sp__error_clear(err);
  memset(out, 0, sizeof *out);
  Mig g;
  memset(&g, 0, sizeof g);
  g.w = w, g.crowds = crowds, g.count = count, g.names = names;
  g.defs = defaults, g.ndefs = ndefaults;
  g.p = data, g.len = len, g.err = err, g.out = out;
  g.o.alloc = w->alloc;
  for (size_t k = 0; k < count; k++)
    if (crowds[k]->world != w)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "migrate: crowd %zu lives in another world", k + 1);
  size_t agents_bytes = (count + 1) * sizeof(uint64_t);
  uint64_t *agents = sp__mem_alloc(w->alloc, agents_bytes);
  int ok = agents != NULL && rewrite(&g, agents);
  if (agents == NULL) sp__error_memory(err);
  ok = ok && action_maps(&g);
  if (agents != NULL) sp__mem_free(w->alloc, agents, agents_bytes);
  mig_free(&g);
  SpStatus st = SP_OK;
  if (!ok && !g.failed) sp__error_memory(err);
  if (ok)
    st = sp__save_seal(&g.o, SP_SAVE_VERSION, &out->save, &out->save_len, err);
  else if (g.o.p != NULL)
    sp__mem_free(w->alloc, g.o.p, g.o.cap);
  if (!ok || st != SP_OK) {
    SpStatus fail = ok ? st : err->status;
    out->save = NULL; /* sealed or freed above */
    sp_migration_free(w, out);
    return fail;
  }
  return SP_OK;
}

void sp_migration_free(const SpWorld *w, SpMigration *m) {
  if (m->save != NULL) sp__mem_free(w->alloc, m->save, m->save_len);
  if (m->report != NULL) sp__mem_free(w->alloc, m->report, m->report_cap);
  if (m->map_at != NULL) sp__mem_free(w->alloc, m->map_at, m->map_bytes);
  memset(m, 0, sizeof *m);
}
