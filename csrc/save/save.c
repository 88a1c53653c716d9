/* save.c: writes a world and its crowds to a checksummed byte buffer (the format is in sp_save.h). */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_save.h"
#include "sp_chase.h"
#include "sp_detail.h"
#include "sp_goals.h"
#include "sp_due.h"
#include "sp_places.h"

/* ------------------------------------------------------------------ */
/* Checksum and fingerprints                                          */
/* ------------------------------------------------------------------ */

uint64_t sp__save_fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t k = 0; k < n; k++) {
    h ^= b[k];
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  uint8_t b[8];
  sp_save_put(b, v, 8);
  return sp__save_fnv(h, b, 8);
}

static uint64_t fnv_str(uint64_t h, const char *s) {
  return sp__save_fnv(h, s, strlen(s) + 1);
}

uint64_t sp__save_grid_print(const SpGrid *g) {
  if (g == NULL) return 0;
  int w = sp_grid_width(g), hgt = sp_grid_height(g);
  uint64_t h = fnv_u64(fnv_u64(SAVE_FNV_START, (uint64_t)w), (uint64_t)hgt);
  for (int y = 0; y < hgt; y++) {
    for (int x = 0; x < w; x++) {
      double cost = sp_grid_cost(g, x, y);
      uint64_t bits;
      memcpy(&bits, &cost, sizeof bits);
      h = fnv_u64(h, bits ^ (uint64_t)sp_grid_is_blocked(g, x, y));
    }
  }
  return h | 1u; /* never 0, which means "no grid" */
}

uint64_t sp__save_places_print(const SpWorld *w) {
  uint64_t h = fnv_u64(SAVE_FNV_START, (uint64_t)w->kind_count);
  for (int k = 0; k < w->kind_count; k++) h = fnv_str(h, w->kinds[k]);
  h = fnv_u64(h, w->place_count);
  for (size_t k = 0; k < w->place_count; k++) {
    const Place *p = &w->places[k];
    h = fnv_u64(h, (uint64_t)(uint32_t)p->kind << 32 | (uint32_t)p->capacity);
    h = fnv_u64(h, (uint64_t)(uint32_t)p->x << 32 | (uint32_t)p->y);
  }
  for (int k = 0; k < w->fact_count; k++) { /* none: the print of before */
    h = fnv_str(h, w->facts[k].name);
    for (int v = 0; v < w->facts[k].value_count; v++)
      h = fnv_str(h, w->facts[k].values[v]);
  }
  return h;
}

uint64_t sp__save_domain_print(const SpDomain *d) {
  int m = sp_domain_variable_count(d), na = sp_domain_action_count(d);
  uint64_t h = fnv_u64(SAVE_FNV_START, (uint64_t)m);
  for (int v = 0; v < m; v++) {
    h = fnv_str(h, sp_variable_name(d, v));
    int nv = sp_variable_value_count(d, v);
    h = fnv_u64(h, (uint64_t)nv);
    for (int x = 0; x < nv; x++) h = fnv_str(h, sp_value_name(d, v, x));
  }
  h = fnv_u64(h, (uint64_t)na);
  for (int a = 0; a < na; a++) {
    h = fnv_str(h, sp_action_name(d, a));
    h = fnv_u64(h, (uint64_t)sp_action_variable(d, a) << 32 |
                       (uint64_t)sp_action_pre(d, a) << 16 |
                       (uint64_t)sp_action_post(d, a));
    int np = sp_action_prevail_count(d, a);
    for (int j = 0; j < np; j++) {
      SpCondition p = sp_action_prevail(d, a, j);
      h = fnv_u64(h, (uint64_t)p.variable << 16 | (uint64_t)p.value);
    }
    h = fnv_u64(h, (uint64_t)np);
  }
  return h;
}

uint64_t sp__save_setup_print(const SpCrowd *c, uint32_t version) {
  uint64_t h = fnv_u64(SAVE_FNV_START, c->opt.seed);
  if (version >= 9) h = fnv_u64(h, c->opt.engine_moves != 0);
  h = fnv_u64(h, (uint64_t)sp_save_float_bits(c->opt.speed) << 32 |
                     sp_save_float_bits(c->opt.cooldown));
  h = fnv_u64(h, sp_save_float_bits(c->opt.retry));
  for (int a = 0; a < c->action_count; a++) {
    const SpActionBehaviour *b = &c->beh[a];
    h = fnv_u64(h, (uint64_t)sp_save_float_bits(b->min_duration) << 32 |
                       sp_save_float_bits(b->max_duration));
    h = fnv_u64(h, (uint64_t)b->place << 32 | (uint32_t)b->kind);
    h = fnv_u64(h, (uint64_t)b->bind | (uint64_t)(b->interruptible != 0) << 8 |
                       (uint64_t)(b->scripted != 0) << 9 |
                       (uint64_t)(b->has_hook != 0) << 10);
  }
  for (int k = 0; k < c->tie_count; k++)
    h = fnv_u64(h, (uint64_t)(uint32_t)c->ties[k].fact << 32 |
                       (uint32_t)c->ties[k].var);
  for (int k = 0; k < c->sensor_count; k++) {
    const SpSensor *s = &c->sensors[k];
    h = fnv_u64(h, (uint64_t)(uint32_t)s->var << 32 | (uint32_t)s->r);
    h = fnv_u64(h, (uint64_t)(uint32_t)s->kind << 32 |
                       sp_save_float_bits(s->period));
    h = fnv_u64(h, (uint64_t)(uint32_t)s->on << 32 | (uint32_t)s->off |
                       (uint64_t)(s->near != NULL) << 63);
  }
  return h;
}

/* ------------------------------------------------------------------ */
/* Writer                                                             */
/* ------------------------------------------------------------------ */

typedef SpSaveOut Out;

uint8_t *sp__save_room(Out *o, size_t n) {
  if (o->oom) return NULL;
  if (o->len + n > o->cap) {
    size_t nc = o->cap < 4096 ? 4096 : o->cap;
    while (nc < o->len + n) nc *= 2;
    uint8_t *p = sp__mem_realloc(o->alloc, o->p, o->cap, nc);
    if (p == NULL) {
      o->oom = 1;
      return NULL;
    }
    o->p = p;
    o->cap = nc;
  }
  uint8_t *at = o->p + o->len;
  o->len += n;
  return at;
}

void sp__save_out(Out *o, uint64_t v, int bytes) {
  uint8_t *p = sp__save_room(o, (size_t)bytes);
  if (p != NULL) sp_save_put(p, v, bytes);
}

void sp__save_out_bytes(Out *o, const void *src, size_t n) {
  uint8_t *p = sp__save_room(o, n);
  if (p != NULL && n > 0) memcpy(p, src, n);
}

/* The fixed part of agent i: every field of its record and its hot
 * slots. Nothing is derived; the record is written field by field so
 * the bytes do not depend on padding or byte order. */
static void put_agent(const SpCrowd *c, size_t i, uint8_t *p) {
  const Agent *a = &c->agents[i];
  FailDetail d = sp__detail_get(c, i);
  uint32_t word[6] = {a->target,     a->draws,
                      a->done,       a->home,
                      a->cool_place, sp_save_float_bits(a->cool_until)};
  for (int k = 0; k < 6; k++) sp_save_put(p + 4 * k, word[k], 4);
  uint16_t half[7] = {a->x, a->y, a->tx, a->ty, a->cursor, a->step, a->refused};
  for (int k = 0; k < 7; k++) sp_save_put(p + 24 + 2 * k, half[k], 2);
  uint8_t *b = p + 38;
  b[0] = a->goal, b[1] = a->why, b[2] = a->reason, b[3] = d.fcode;
  int16_t sh[4] = {a->fail_action, d.faction, d.fother, d.fvar};
  for (int k = 0; k < 4; k++) sp_save_put(p + 42 + 2 * k, (uint16_t)sh[k], 2);
  p[50] = d.fvalue, p[51] = a->pursued;
  /* a wait's due time is saved as the seconds left (wheel.c) */
  sp_save_put(p + 52, sp_save_float_bits(sp_agent_saved_time(c, i)), 4);
  p[56] = (uint8_t)(c->agents[i].phase |
                    (sp_agent_told(c, i) ? SAVE_PHASE_TOLD : 0u));
  p[57] = c->agents[i].flags;
  sp_save_put(p + 58, sp_crowd_generation(c, i), 4);
  p[62] = a->fails, p[63] = a->shun;
}

static void put_result(const SpCrowd *c, size_t i, uint16_t *plan, Out *o) {
  SpFailureCode code = SP_FAIL_NONE;
  int dirty = 0;
  SpNpcStatus st = sp_population_status_of(c->pop, i, &code, &dirty);
  sp__save_out(
      o, (uint64_t)st | (uint64_t)code << 2 | (uint64_t)(dirty != 0) << 7, 1);
  if (st != SP_NPC_PLANNED) return;
  int len = 0;
  sp_population_plan_of(c->pop, i, plan, &len);
  sp__save_out(o, (uint64_t)len, 2);
  int id_bytes = c->action_count <= 255 ? 1 : 2;
  for (int k = 0; k < len; k++) sp__save_out(o, plan[k], id_bytes);
}

/* The chases (walks to other agents): agent, its target's crowd (an
 * index among the saved crowds, or UINT32_MAX: gone), slot, generation,
 * reach, and the path being followed, so the walk goes on as it was. */
static void put_chases(const SpCrowd *c, const SpCrowd *const *crowds,
                       size_t count, Out *o) {
  uint32_t k = 0;
  for (size_t i = 0; c->chase != NULL && i < c->n; i++)
    k += (uint32_t)sp__chase_saved(c, i);
  sp__save_out(o, k, 4);
  for (size_t i = 0; k > 0 && i < c->n; i++) {
    if (!sp__chase_saved(c, i)) continue;
    const Chase *ch = &c->chase[i];
    sp__save_out(o, i, 4);
    sp__save_out(o, sp__chase_target_index(c, i, crowds, count), 4);
    sp__save_out(o, ch->agent, 4);
    sp__save_out(o, ch->gen, 4);
    sp__save_out(o, ch->reach, 2);
    sp__save_out(o, ch->steps, 1);
    sp__save_out(o, ch->at, 1);
    sp__save_out(o, ch->gx, 2);
    sp__save_out(o, ch->gy, 2);
    for (int q = 0; q < ch->steps; q++) {
      sp__save_out(o, (uint16_t)ch->path[q].x, 2);
      sp__save_out(o, (uint16_t)ch->path[q].y, 2);
    }
  }
}

static void put_crowd(const SpCrowd *c, const SpCrowd *const *crowds,
                      size_t count, Out *o) {
  size_t m = (size_t)c->m;
  sp__save_out(o, sp__save_domain_print(c->domain), 8);
  sp__save_out(o, sp__save_setup_print(c, SP_SAVE_VERSION), 8);
  sp__save_out(o, c->n, 8);
  uint64_t clock;
  memcpy(&clock, &c->clock, sizeof clock);
  sp__save_out(o, clock, 8);
  sp__save_out(o, (uint64_t)c->selector, 1);
  sp__save_out(o, (uint64_t)c->goal_count, 4);
  for (int g = 0; g < c->goal_count; g++) {
    sp__save_out(o, (uint32_t)c->goals[g].priority, 4);
    sp__save_out(o, (uint32_t)c->goals[g].index, 4);
    sp__save_out_bytes(o, c->goals[g].cond, m);
    sp__save_out_bytes(o, c->goals[g].when, m);
  }
  uint64_t counters[SAVE_COUNTERS] = {c->plans,          c->replans,
                                      c->no_plans,       c->events,
                                      c->steps_finished, c->events_lost};
  for (int k = 0; k < SAVE_COUNTERS; k++) sp__save_out(o, counters[k], 8);
  sp__save_out(o, c->refused_words, 4);
  /* the plan buffer of worker 0 is free between updates */
  uint16_t *plan = c->cw[0].plan;
  for (size_t i = 0; i < c->n && !o->oom; i++) {
    size_t words = c->refused_words;
    uint8_t *p = sp__save_room(o, SAVE_AGENT_BYTES + 4u * words + 2u * m);
    if (p == NULL) break;
    put_agent(c, i, p);
    p += SAVE_AGENT_BYTES;
    for (size_t k = 0; k < words; k++, p += 4)
      sp_save_put(p, c->refused_hi[i * words + k], 4);
    memcpy(p, sp_population_state(c->pop, i), m);
    for (int k = 0; k < c->tie_count; k++) /* its tied values, up to date */
      p[c->ties[k].var] = c->ties[k].value;
    memcpy(p + m, sp_population_goal(c->pop, i), m);
    put_result(c, i, plan, o);
  }
  sp__save_out(o, c->free_count, 4);
  for (size_t k = 0; k < c->free_count; k++)
    sp__save_out(o, c->free_slots[k], 4);
  sp__save_out(o, (uint64_t)c->tie_count, 1);
  for (int k = 0; k < c->tie_count; k++) sp__save_out(o, c->ties[k].value, 1);
  sp__save_out(o, (uint64_t)c->sensor_count, 1);
  for (int k = 0; k < c->sensor_count; k++) {
    uint64_t due;
    memcpy(&due, &c->sensor_due[k], sizeof due);
    sp__save_out(o, due, 8);
  }
  put_chases(c, crowds, count, o);
  sp__save_out(o, c->own_count, 4); /* the agents' own priorities */
  for (size_t k = 0; k < c->own_count; k++) {
    sp__save_out(o, c->own[k].agent, 4);
    sp__save_out(o, c->own[k].goal, 4);
    sp__save_out(o, (uint32_t)c->own[k].priority, 4);
  }
}

/* The agents waiting for full places, oldest first: each one's crowd
 * (its position in the save), slot, key and step. Entries of waits
 * already over are kept, as the world keeps them until it next looks
 * (queue.c): the loaded world then goes on exactly as this one. */
static void put_queue(const SpWorld *w, const SpCrowd *const *crowds,
                      size_t count, Out *o) {
  uint32_t n = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) sp__save_out(o, n, 4);
    for (size_t k = 0; k < w->queue_len; k++) {
      const Waiter *e = &w->queue[k];
      size_t at = 0;
      while (at < count && crowds[at] != e->crowd) at++;
      if (at == count) continue; /* not saved (save checks the rest) */
      if (pass == 0) {
        n++;
        continue;
      }
      sp__save_out(o, at + 1, 4);
      sp__save_out(o, e->agent, 4);
      sp__save_out(o, e->key, 4);
      sp__save_out(o, (uint16_t)e->act, 2);
    }
  }
}

/* ------------------------------------------------------------------ */
/* sp_world_save                                                      */
/* ------------------------------------------------------------------ */

/* The reservations each place should have: the bound agents of the
 * crowds given, counted into held[] (place_count entries). */
void sp__save_count_held(const SpCrowd *const *crowds, size_t count,
                         uint32_t *held) {
  for (size_t k = 0; k < count; k++) {
    const SpCrowd *c = crowds[k];
    for (size_t i = 0; i < c->n; i++)
      if (c->agents[i].flags & F_RESERVED) held[c->agents[i].target]++;
  }
}

/* Every reservation is some agent's: the crowds given must be all of the
 * world's, or the save could not be loaded back consistently. */
static SpStatus check_reservations(const SpWorld *w,
                                   const SpCrowd *const *crowds, size_t count,
                                   SpError *err) {
  size_t bytes = (w->place_count + 1) * sizeof(uint32_t);
  uint32_t *held = sp__mem_alloc(w->alloc, bytes);
  if (held == NULL) return sp__error_memory(err);
  memset(held, 0, bytes);
  sp__save_count_held(crowds, count, held);
  SpStatus st = SP_OK;
  for (size_t p = 0; p < w->place_count && st == SP_OK; p++) {
    int reserved = atomic_load(&((Place *)&w->places[p])->reserved);
    if ((uint32_t)reserved != held[p])
      st = sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "save: place %zu has %d reservations but the crowds "
                         "given hold %u (pass every crowd of the world)",
                         p, reserved, held[p]);
  }
  sp__mem_free(w->alloc, held, bytes);
  return st;
}

SpStatus sp_world_save(const SpWorld *w, const SpCrowd *const *crowds,
                       size_t count, const void *extra, size_t extra_len,
                       void **out, size_t *len, SpError *err) {
  return sp_world_save_named(w, crowds, count, NULL, extra, extra_len, out, len,
                             err);
}

SpStatus sp_world_save_named(const SpWorld *w, const SpCrowd *const *crowds,
                             size_t count, const SpSaveNames *names,
                             const void *extra, size_t extra_len, void **out,
                             size_t *len, SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  *len = 0;
  for (size_t k = 0; k < count; k++)
    if (crowds[k]->world != w)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "save: crowd %zu lives in another world", k + 1);
  if (extra_len > UINT32_MAX)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "save: %zu extra bytes is over the limit", extra_len);
  SpStatus st = check_reservations(w, crowds, count, err);
  if (st != SP_OK) return st;
  Out o = {w->alloc, NULL, 0, 0, 0};
  sp__save_room(&o, SAVE_HEADER_BYTES);
  sp__save_put_names(&o, w, crowds, count, names, NULL);
  sp__save_out(&o, sp__save_grid_print(w->grid), 8);
  sp__save_out(&o, sp__save_places_print(w), 8);
  sp__save_out(&o, w->place_count, 4);
  for (size_t p = 0; p < w->place_count; p++)
    sp__save_out(&o, (uint32_t)atomic_load(&((Place *)&w->places[p])->reserved),
                 4);
  sp__save_out(&o, w->clock, 8);
  /* a grid changed since the last update drops every field then: none
   * is worth recomputing on load */
  int stale = w->grid != NULL && sp_grid_version(w->grid) != w->grid_version;
  uint32_t fields = 0;
  for (size_t k = 0; k < w->field_count && !stale; k++)
    fields += w->fields[k].key != UINT32_MAX;
  sp__save_out(&o, fields, 4);
  for (size_t k = 0; k < w->field_count && !stale; k++) {
    if (w->fields[k].key == UINT32_MAX) continue;
    sp__save_out(&o, w->fields[k].key, 4);
    sp__save_out(&o, w->fields[k].used, 8);
  }
  sp__save_out(&o, (uint64_t)w->fact_count, 4);
  for (int k = 0; k < w->fact_count; k++)
    sp__save_out(&o, (uint64_t)w->facts[k].value, 1);
  sp__save_out(&o, count, 4);
  for (size_t k = 0; k < count; k++) put_crowd(crowds[k], crowds, count, &o);
  put_queue(w, crowds, count, &o);
  sp__save_out(&o, extra_len, 4);
  sp__save_out_bytes(&o, extra, extra_len);
  return sp__save_seal(&o, SP_SAVE_VERSION, out, len, err);
}

SpStatus sp__save_seal(Out *o, uint32_t version, void **out, size_t *len,
                       SpError *err) {
  if (o->oom || o->len < SAVE_HEADER_BYTES) {
    if (o->p != NULL) sp__mem_free(o->alloc, o->p, o->cap);
    return sp__error_memory(err);
  }
  size_t payload = o->len - SAVE_HEADER_BYTES;
  memcpy(o->p, SAVE_MAGIC, 8);
  sp_save_put(o->p + 8, version, 4);
  sp_save_put(o->p + 12, 0, 4);
  sp_save_put(o->p + 16, payload, 8);
  sp_save_put(o->p + 24,
              sp__save_fnv(SAVE_FNV_START, o->p + SAVE_HEADER_BYTES, payload),
              8);
  /* hand back exactly len bytes, so the caller frees what it got */
  if (o->cap != o->len) {
    uint8_t *p = sp__mem_realloc(o->alloc, o->p, o->cap, o->len);
    if (p != NULL) o->p = p, o->cap = o->len;
  }
  if (o->cap != o->len) { /* the allocator could not shrink: copy */
    uint8_t *p = sp__mem_alloc(o->alloc, o->len);
    if (p == NULL) {
      sp__mem_free(o->alloc, o->p, o->cap);
      return sp__error_memory(err);
    }
    memcpy(p, o->p, o->len);
    sp__mem_free(o->alloc, o->p, o->cap);
    o->p = p;
  }
  *out = o->p;
  *len = o->len;
  return SP_OK;
}

void sp_world_save_free(const SpWorld *w, void *buf, size_t len) {
  if (buf != NULL) sp__mem_free(w->alloc, buf, len);
}
