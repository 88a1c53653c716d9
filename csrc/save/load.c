/* load.c: reads a saved world back: validates every byte first, then restores the world and its crowds. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "sp_wheel.h"
#include "sp_detail.h"
#include "sp_due.h"
#include "sp_facts.h"
#include "sp_goals.h"
#include "sp_places.h"
#include "sp_slots.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

/* The input is read twice by the same code: a first pass checks every
 * byte and allocates what the load needs (the refusal words), a second
 * pass, which can no longer fail, writes. So a load either succeeds or
 * changes nothing, without a temporary copy of a million agents. */

/* ------------------------------------------------------------------ */
/* Reader                                                             */
/* ------------------------------------------------------------------ */

static void where(const Rd *r, char *buf, size_t size) {
  if (r->crowd < 0)
    snprintf(buf, size, "the header");
  else if (r->crowd == 0)
    snprintf(buf, size, "the world");
  else if (r->agent == SP_NO_AGENT)
    snprintf(buf, size, "crowd %d '%s'", r->crowd, r->name);
  else
    snprintf(buf, size, "crowd %d '%s' agent %zu", r->crowd, r->name,
             r->agent + 1);
}

int sp__ld_bad(Rd *r, const char *fmt, ...) {
  if (r->failed) return 0;
  r->failed = 1;
  char what[160], at[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  where(r, at, sizeof at);
  if (r->crowd < 0) /* the header's problems concern the whole input */
    sp__error_set(r->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: %s", what);
  else
    sp__error_set(r->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: %s: %s", at, what);
  return 0;
}

const uint8_t *sp__ld_take(Rd *r, size_t n) {
  if (r->failed) return NULL;
  if (n > r->len - r->at) {
    char at[128];
    where(r, at, sizeof at);
    r->failed = 1;
    sp__error_set(r->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: truncated at byte %zu in %s", r->len, at);
    return NULL;
  }
  const uint8_t *p = r->p + r->at;
  r->at += n;
  return p;
}

uint64_t sp__ld_get(Rd *r, int bytes) {
  const uint8_t *p = sp__ld_take(r, (size_t)bytes);
  return p == NULL ? 0 : sp_save_get(p, bytes);
}

/* The cached fields, computed again in the saved order with their saved
 * last use, so the least-recently-used order goes on as it was. Bounded:
 * a key listed again is skipped, and at most as many fields as the world
 * can cache are computed (a save of this world never lists more; the
 * others are computed when an agent needs them), so no list makes a load
 * cost more than filling the cache once. */
static void restore_fields(SpWorld *w, const uint8_t *list, uint32_t count,
                           uint64_t clock) {
  sp__world_forget_fields(w);
  if (w->grid == NULL) return;
  w->grid_version = sp_grid_version(w->grid);
  int width = sp_grid_width(w->grid);
  size_t cap = w->field_size > 0 ? w->field_budget / w->field_size : 0,
         done = 0;
  if (cap == 0) cap = 1; /* the cache always holds one */
  for (uint32_t f = 0; f < count && done < cap; f++) {
    uint32_t key = (uint32_t)sp_save_get(list + 12u * f, 4);
    uint64_t used = sp_save_get(list + 12u * f + 4, 8);
    if (sp__world_field_peek(w, key) != NULL) continue;
    done++;
    int cx, cy;
    if (key & FIELD_CELL_KEY) {
      uint32_t cell = key & ~FIELD_CELL_KEY;
      cx = (int)(cell % (uint32_t)width), cy = (int)(cell / (uint32_t)width);
    } else {
      cx = w->places[key].x, cy = w->places[key].y;
    }
    sp__world_field_get(w, key, cx, cy); /* a failure only costs a recompute */
    for (size_t k = 0; k < w->field_count; k++)
      if (w->fields[k].key == key) w->fields[k].used = used;
  }
  w->clock = clock;
}

/* The world facts' values (their names are the places print's). */
static int read_facts(Load *x, Rd *r) {
  SpWorld *w = x->w;
  uint32_t n = (uint32_t)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if (n != (uint32_t)w->fact_count)
    return sp__ld_bad(r, "%u facts saved, this world has %d", n, w->fact_count);
  const uint8_t *v = sp__ld_take(r, n);
  if (v == NULL) return 0;
  for (uint32_t k = 0; k < n; k++)
    if (v[k] >= w->facts[k].value_count)
      return sp__ld_bad(r, "fact '%s': value %u is out of range (%d values)",
                        w->facts[k].name, v[k], w->facts[k].value_count);
  for (uint32_t k = 0; k < n && x->apply; k++) w->facts[k].value = v[k];
  return 1;
}

/* A crowd's ties: the value each applied last (a change not applied yet
 * is applied by the next update, as it would have been). */
static int read_ties(Load *x, Rd *r, SpCrowd *c) {
  unsigned n = (unsigned)sp__ld_get(r, 1);
  if (r->failed) return 0;
  if (n != (unsigned)c->tie_count)
    return sp__ld_bad(r, "%u fact ties saved, this crowd has %d", n,
                      c->tie_count);
  const uint8_t *v = sp__ld_take(r, n);
  if (v == NULL) return 0;
  for (unsigned k = 0; k < n; k++)
    if (v[k] >= x->w->facts[c->ties[k].fact].value_count)
      return sp__ld_bad(r, "fact tie %u: value %u is out of range", k + 1,
                        v[k]);
  for (unsigned k = 0; k < n && x->apply; k++) c->ties[k].value = v[k];
  /* the sensors: the crowd clock of each one's next reading */
  n = (unsigned)sp__ld_get(r, 1);
  if (r->failed) return 0;
  if (n != (unsigned)c->sensor_count)
    return sp__ld_bad(r, "%u sensors saved, this crowd has %d", n,
                      c->sensor_count);
  for (unsigned k = 0; k < n; k++) {
    uint64_t bits = sp__ld_get(r, 8);
    double due;
    memcpy(&due, &bits, sizeof due);
    if (r->failed) return 0;
    if (!isfinite(due))
      return sp__ld_bad(r, "sensor %u: its next reading is not a number",
                        k + 1);
    if (x->apply) c->sensor_due[k] = due;
  }
  return 1;
}

static int read_world(Load *x, Rd *r) {
  SpWorld *w = x->w;
  uint64_t grid = sp__ld_get(r, 8), places = sp__ld_get(r, 8);
  uint32_t np = (uint32_t)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if ((grid == 0) != (w->grid == NULL))
    return sp__ld_bad(r, w->grid == NULL
                             ? "the save has a grid, this world has none"
                             : "the save has no grid, this world has one");
  if (grid != sp__save_grid_print(w->grid))
    return sp__ld_bad(r, "the grid (size or cells) differs from the saved one");
  if (np != w->place_count || places != sp__save_places_print(w))
    return sp__ld_bad(r,
                      "the places (names of kinds, cells, capacities) differ "
                      "from the saved ones (%u saved, %zu here)",
                      np, w->place_count);
  const uint8_t *res = sp__ld_take(r, 4u * (size_t)np);
  uint64_t clock = sp__ld_get(r, 8);
  uint32_t nf = (uint32_t)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if (nf > 0 && w->grid == NULL)
    return sp__ld_bad(r, "fields saved without a grid");
  size_t grid_cells = w->grid == NULL ? 0
                                      : (size_t)sp_grid_width(w->grid) *
                                            (size_t)sp_grid_height(w->grid);
  const uint8_t *list = sp__ld_take(r, 12u * (size_t)nf);
  if (r->failed) return 0;
  for (uint32_t f = 0; f < nf; f++) {
    uint32_t key = (uint32_t)sp_save_get(list + 12u * f, 4);
    int ok = key & FIELD_CELL_KEY ? (key & ~FIELD_CELL_KEY) < grid_cells
                                  : key < w->place_count;
    if (!ok)
      return sp__ld_bad(r, "field %u: key %u is no place or cell", f + 1, key);
  }
  for (uint32_t p = 0; p < np; p++) {
    x->saved[p] = (uint32_t)sp_save_get(res + 4u * p, 4);
    if (x->apply) atomic_store(&w->places[p].reserved, (int)x->saved[p]);
  }
  if (x->apply) restore_fields(w, list, nf, clock);
  return read_facts(x, r);
}

static int value_ok(const SpDomain *d, const uint8_t *row, int m, int any) {
  for (int v = 0; v < m; v++)
    if (row[v] >= sp_variable_value_count(d, v) && !(any && row[v] == SP_ANY))
      return 0;
  return 1;
}

static size_t words_for(int goals) {
  return goals > REFUSED_LOW ? ((size_t)(goals - REFUSED_LOW) + 31u) / 32u : 0;
}

static int read_goals(Load *x, Rd *r, SpCrowd *c) {
  int n = (int)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if (n < 0 || n > SP_CROWD_MAX_GOALS)
    return sp__ld_bad(r, "%d goals (at most %d)", n, SP_CROWD_MAX_GOALS);
  size_t m = (size_t)c->m;
  uint8_t seen[SP_CROWD_MAX_GOALS] = {0};
  int last_pri = 0, last_index = -1;
  for (int g = 0; g < n; g++) {
    int pri = (int)(int32_t)sp__ld_get(r, 4), index = (int)sp__ld_get(r, 4);
    const uint8_t *cond = sp__ld_take(r, 2u * m);
    if (cond == NULL) return 0;
    if (index < 0 || index >= n || seen[index])
      return sp__ld_bad(r, "goal %d: index %d is out of range or repeated",
                        g + 1, index);
    seen[index] = 1;
    if (g > 0 && (pri > last_pri || (pri == last_pri && index < last_index)))
      return sp__ld_bad(r, "goal %d: goals are not in priority order", g + 1);
    if (!value_ok(c->domain, cond, c->m, 1) ||
        !value_ok(c->domain, cond + m, c->m, 1))
      return sp__ld_bad(r, "goal %d: a value is out of range", g + 1);
    last_pri = pri, last_index = index;
    if (x->apply) {
      Goal *dst = &c->goals[g];
      dst->cond = c->goal_block + 2u * m * (size_t)index;
      dst->when = dst->cond + m;
      memcpy(dst->cond, cond, 2u * m);
      sp_goal_note(dst, c->m);
      dst->priority = pri;
      dst->index = index;
    }
  }
  if (x->apply) {
    c->goal_count = n;
    sp__crowd_goals_changed(c);
  }
  return n;
}

/* The result byte and plan of agent i, restored into the population. */
static int read_result(Load *x, Rd *r, SpCrowd *c, size_t i, int *len) {
  unsigned b = (unsigned)sp__ld_get(r, 1);
  if (r->failed) return 0;
  unsigned kind = b & 3u, code = (b >> 2) & 7u;
  if (kind > SP_NPC_NO_PLAN || (b & 0x60u) || code > SP_FAIL_ORDER ||
      (code != 0 && kind != SP_NPC_NO_PLAN))
    return sp__ld_bad(r, "plan result byte 0x%02x is not valid", b);
  *len = -1;
  uint16_t *plan = c->cw[0].plan;
  if (kind == SP_NPC_PLANNED) {
    *len = (int)sp__ld_get(r, 2);
    int id_bytes = c->action_count <= 255 ? 1 : 2;
    if (r->failed) return 0;
    if (*len > c->action_count)
      return sp__ld_bad(r, "plan of %d steps (the domain has %d actions)", *len,
                        c->action_count);
    const uint8_t *ids = sp__ld_take(r, (size_t)*len * (size_t)id_bytes);
    if (ids == NULL) return 0;
    for (int k = 0; k < *len; k++) {
      plan[k] =
          (uint16_t)sp_save_get(ids + (size_t)k * (size_t)id_bytes, id_bytes);
      if (plan[k] >= c->action_count)
        return sp__ld_bad(r, "plan step %d: action %u does not exist", k + 1,
                          plan[k]);
    }
  }
  if (x->apply)
    sp_population_restore(c->pop, i, (SpNpcStatus)kind, (SpFailureCode)code,
                          (b & 0x80u) != 0, plan, *len < 0 ? 0 : *len);
  return 1;
}

/* Agent i: its fixed part (the layout of save.c's put_agent), refusal
 * words, state and goal rows, and result. */
static int read_agent(Load *x, Rd *r, SpCrowd *c, size_t i, int goals,
                      size_t words) {
  size_t m = (size_t)c->m;
  const uint8_t *p = sp__ld_take(r, SAVE_AGENT_BYTES + 4u * words + 2u * m);
  if (p == NULL) return 0;
  Agent a;
  FailDetail d;
  a.target = (uint32_t)sp_save_get(p, 4);
  a.draws = (uint32_t)sp_save_get(p + 4, 4);
  a.done = (uint32_t)sp_save_get(p + 8, 4);
  a.home = (uint32_t)sp_save_get(p + 12, 4);
  a.cool_place = (uint32_t)sp_save_get(p + 16, 4);
  uint32_t bits = (uint32_t)sp_save_get(p + 20, 4);
  memcpy(&a.cool_until, &bits, 4);
  uint16_t *half[7] = {&a.x,      &a.y,    &a.tx,     &a.ty,
                       &a.cursor, &a.step, &a.refused};
  for (int k = 0; k < 7; k++)
    *half[k] = (uint16_t)sp_save_get(p + 24 + 2 * k, 2);
  a.goal = p[38], a.why = p[39], a.reason = p[40], d.fcode = p[41];
  int16_t *sh[4] = {&a.fail_action, &d.faction, &d.fother, &d.fvar};
  for (int k = 0; k < 4; k++)
    *sh[k] = (int16_t)(uint16_t)sp_save_get(p + 42 + 2 * k, 2);
  d.fvalue = p[50], a.pursued = p[51];
  a.queued = 0, a.last = SP_REASON_NONE;
  uint32_t time = (uint32_t)sp_save_get(p + 52, 4);
  uint8_t phase = p[56], flags = p[57];
  /* the game heard of its move: saved from format 10, before it taken
   * from the phase (a load of then did so) */
  int told = x->version >= 10
                 ? (phase & SAVE_PHASE_TOLD) != 0
                 : phase == SP_PHASE_MOVING && c->announced != NULL;
  if (x->version >= 10) phase &= (uint8_t)~SAVE_PHASE_TOLD;
  uint32_t gen = (uint32_t)sp_save_get(p + 58, 4);
  a.fails = p[62], a.shun = p[63];
  const uint8_t *hi = p + SAVE_AGENT_BYTES, *state = hi + 4u * words;
  if (!value_ok(c->domain, state, c->m, 0) ||
      !value_ok(c->domain, state + m, c->m, 1))
    return sp__ld_bad(r, "a state or goal value is out of range");
  int len = -1;
  if (!read_result(x, r, c, i, &len)) return 0;
  /* every field against the others: what the update relies on */
  SpCrowdView cv = {c, goals, x->selector, x->clock};
  int act = len >= 0 && a.step < len ? c->cw[0].plan[a.step] : -1;
  SpAgentView v = {&a, &d, phase, flags, time, len >= 0, len, act, told};
  char why[200];
  if (sp__save_check_agent(&cv, &v, why, sizeof why) != NULL)
    return sp__ld_bad(r, "%s", why);
  /* 1: despawned; 4: walking to a target, so it may chase, unless 8: that
   * target is a place (a chase has none) */
  if (!x->apply) {
    int on_way = (phase == SP_PHASE_WALKING || phase == SP_PHASE_MOVING) &&
                 (flags & F_BIND);
    x->freed[i] = (uint8_t)(phase == SP_PHASE_FREE ? 1
                            : on_way ? 4 | (a.target != SP_NO_PLACE ? 8 : 0)
                                     : 0);
    x->progress[i] = time; /* a chase's progress (load_chase_queue.c) */
  }
  if (gen != 0 && c->gens == NULL && !sp__crowd_slots_ready(c)) {
    r->failed = 1; /* invisible: every generation is 0 until loaded */
    sp__error_memory(r->err);
    return 0;
  }
  /* a detail needs the crowd's array: made before anything is applied */
  int detailed = !sp_detail_none(d);
  if (detailed && !sp__detail_ready(c)) {
    r->failed = 1;
    sp__error_memory(r->err);
    return 0;
  }
  if (flags & F_RESERVED) x->held[a.target]++;
  if (!x->apply) return 1;
  c->agents[i] = a;
  if (detailed || atomic_load(&c->detail) != NULL)
    (void)sp__detail_put(c, -1, i, d); /* the array is there */
  memcpy(&c->agents[i].time, &time, 4);
  c->agents[i].phase = phase;
  c->agents[i].flags = flags;
  if (c->announced != NULL) c->announced[i] = (uint8_t)told;
  if (c->gens != NULL) c->gens[i] = gen;
  for (size_t k = 0; k < words; k++)
    x->ref[r->crowd - 1].hi[i * words + k] =
        (uint32_t)sp_save_get(hi + 4 * k, 4);
  memcpy(sp_population_state_write(c->pop, i), state, m);
  memcpy(sp_population_goal_write(c->pop, i), state + m, m);
  return 1;
}

/* The despawned slots in reuse order: each a slot of phase
 * SP_PHASE_FREE read above, listed once, and every such slot listed.
 * The first pass makes room for them (invisible: see read_agent). */
static int read_free_slots(Load *x, Rd *r, SpCrowd *c, size_t n,
                           size_t *count) {
  uint32_t k = (uint32_t)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if (k > n) return sp__ld_bad(r, "%u despawned slots of %zu", k, n);
  const uint8_t *ids = sp__ld_take(r, 4u * (size_t)k);
  if (ids == NULL) return 0;
  if (k > 0 && c->gens == NULL && !sp__crowd_slots_ready(c)) {
    r->failed = 1;
    sp__error_memory(r->err);
    return 0;
  }
  for (uint32_t j = 0; j < k; j++) {
    uint32_t slot = (uint32_t)sp_save_get(ids + 4u * j, 4);
    if (x->apply) {
      c->free_slots[j] = slot;
      continue;
    }
    if (slot >= n || x->freed[slot] != 1)
      return sp__ld_bad(r,
                        "free slot %u is not a despawned slot, or is listed "
                        "twice",
                        slot);
    x->freed[slot] = 2;
    if (x->despawned != NULL)
      x->despawned(x->despawned_ud, (size_t)r->crowd - 1, slot);
  }
  for (size_t i = 0; i < n && !x->apply; i++)
    if (x->freed[i] == 1)
      return sp__ld_bad(r, "despawned slot %zu is not in the free list", i);
  *count = k;
  return 1;
}

/* The agents' own priorities (priority.c): sorted by agent then goal,
 * each naming a live saved agent and a saved goal. */
static int read_own(Load *x, Rd *r, SpCrowd *c, int goals) {
  Refusals *ref = &x->ref[r->crowd - 1];
  uint32_t n =
      x->version >= 8 ? (uint32_t)sp__ld_get(r, 4) : 0; /* before 8: none */
  if (r->failed) return 0;
  if (n > (r->len - r->at) / 12u)
    return sp__ld_take(r, 12u * (size_t)n) != NULL;
  if (x->apply) {
    sp__ld_take(r, 12u * n); /* checked by the first pass */
    sp__priority_free(c);
    c->own = ref->own;
    c->own_count = c->own_cap = ref->own_n;
    ref->own = NULL; /* the crowd owns it now */
    return 1;
  }
  ref->own_n = n;
  if (n == 0) return 1;
  ref->own = sp__mem_alloc(c->alloc, n * sizeof(OwnPriority));
  if (ref->own == NULL) {
    r->failed = 1;
    sp__error_memory(r->err);
    return 0;
  }
  for (uint32_t k = 0; k < n; k++) {
    uint32_t agent = (uint32_t)sp__ld_get(r, 4),
             goal = (uint32_t)sp__ld_get(r, 4);
    int32_t prio = (int32_t)(uint32_t)sp__ld_get(r, 4);
    if (r->failed) return 0;
    if (agent >= ref->n || (x->freed[agent] & 3) != 0 ||
        goal >= (uint32_t)goals)
      return sp__ld_bad(r,
                        "own priority %u: agent %u (live) or goal %u does not "
                        "exist",
                        k + 1, agent + 1, goal + 1);
    if (k > 0 &&
        (agent < ref->own[k - 1].agent ||
         (agent == ref->own[k - 1].agent && goal <= ref->own[k - 1].goal)))
      return sp__ld_bad(r,
                        "own priority %u: not sorted by agent and goal, or "
                        "listed twice",
                        k + 1);
    OwnPriority o = {agent, (uint16_t)goal, prio};
    ref->own[k] = o;
  }
  return 1;
}

static int read_crowd(Load *x, Rd *r, SpCrowd *c) {
  uint64_t dom = sp__ld_get(r, 8), setup = sp__ld_get(r, 8),
           n = sp__ld_get(r, 8), clock = sp__ld_get(r, 8);
  unsigned selector = (unsigned)sp__ld_get(r, 1);
  if (r->failed) return 0;
  if (dom != sp__save_domain_print(c->domain))
    return sp__ld_bad(r, "domain differs from the saved one");
  if (setup != sp__save_setup_print(c, x->version))
    return sp__ld_bad(r,
                      "action behaviours or crowd options (seed, speed, "
                      "cooldown, retry, movement) differ from the saved ones");
  if (x->names.mem != NULL && n != x->names.crowd[r->crowd - 1].agents)
    return sp__ld_bad(r, "%llu agents saved, its names say %llu",
                      (unsigned long long)n,
                      (unsigned long long)x->names.crowd[r->crowd - 1].agents);
  if (n > c->capacity)
    return sp__ld_bad(r, "%llu agents saved, the capacity is %zu",
                      (unsigned long long)n, c->capacity);
  double clk;
  memcpy(&clk, &clock, sizeof clk);
  if (!isfinite(clk)) return sp__ld_bad(r, "its clock is not a number");
  if (!(clk >= 0.0 && clk <= SP_CROWD_CLOCK_MAX))
    return sp__ld_bad(r, "its clock %g s is outside 0..%.0f s", clk,
                      SP_CROWD_CLOCK_MAX);
  if (selector > 1)
    return sp__ld_bad(r, "selector byte %u is not 0 or 1", selector);
  x->selector = (int)selector;
  x->clock = clk;
  int goals = read_goals(x, r, c);
  uint64_t counters[SAVE_COUNTERS];
  for (int k = 0; k < SAVE_COUNTERS; k++) counters[k] = sp__ld_get(r, 8);
  size_t words = (size_t)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if (words != words_for(goals))
    return sp__ld_bad(r, "%zu refusal words for %d goals", words, goals);
  Refusals *ref = &x->ref[r->crowd - 1];
  if (!x->apply && words > 0) {
    ref->hi = sp__mem_alloc(c->alloc, sp_refused_bytes(c, words));
    if (ref->hi == NULL) {
      r->failed = 1;
      sp__error_memory(r->err);
      return 0;
    }
    memset(ref->hi, 0, sp_refused_bytes(c, words));
  }
  ref->words = words;
  ref->n = (size_t)n;
  size_t despawned = 0;
  if (!x->apply) {
    if (x->freed != NULL) sp__mem_free(x->w->alloc, x->freed, x->freed_bytes);
    if (x->progress != NULL)
      sp__mem_free(x->w->alloc, x->progress, 4 * x->freed_bytes);
    x->freed_bytes = (size_t)n + 1;
    x->freed = sp__mem_alloc(x->w->alloc, x->freed_bytes);
    x->progress = sp__mem_alloc(x->w->alloc, 4 * x->freed_bytes);
    if (x->freed == NULL || x->progress == NULL) {
      r->failed = 1;
      sp__error_memory(r->err);
      return 0;
    }
  }
  for (size_t i = 0; i < n; i++) {
    r->agent = i;
    if (!read_agent(x, r, c, i, goals, words)) return 0;
  }
  if (x->agents != NULL) {
    x->agents[r->crowd - 1] = (size_t)n;
    x->goals[r->crowd - 1] = goals;
  }
  r->agent = SP_NO_AGENT;
  if (!read_free_slots(x, r, c, (size_t)n, &despawned)) return 0;
  if (!read_ties(x, r, c)) return 0;
  if (!sp__ld_read_chases(x, r, c, (size_t)n)) return 0;
  if (!read_own(x, r, c, goals)) return 0;
  if (!x->apply) return 1;
  /* nothing below can fail: the first pass checked it all */
  for (size_t i = n; i < c->n; i++) {
    c->agents[i].phase = SP_PHASE_FREE, c->agents[i].flags = 0;
    if (c->gens != NULL) c->gens[i] = 0;
  }
  c->n = (size_t)n;
  c->free_count = despawned;
  c->clock = clk;
  c->selector = (int)selector;
  c->plans = counters[0], c->replans = counters[1], c->no_plans = counters[2];
  c->events = counters[3], c->steps_finished = counters[4];
  c->events_lost = counters[5];
  if (c->refused_hi != NULL)
    sp__mem_free(c->alloc, c->refused_hi,
                 sp_refused_bytes(c, c->refused_words));
  c->refused_hi = ref->hi;
  c->refused_words = words;
  ref->hi = NULL; /* the crowd owns it now */
  /* derived, not saved: any_binding and any_interruptible come from the
   * behaviours (fingerprinted); chunk flags are zero between updates;
   * this frame's events belong to the frame before the save */
  memset(c->chunks, 0, (c->chunk_count + 1) * sizeof(ChunkRec));
  for (size_t t = 0; t <= c->chunk_count; t++) /* the agents' flags are new */
    c->chunks[t].choosing = 1;
  sp__index_reset(c);  /* every agent may have moved */
  sp__facts_reload(c); /* who reads which fact, from the plans */
  sp__wheel_loaded(c); /* the seconds left are due times from now */
  c->ev_count = 0;
  /* the moves pending are told again (the agents' own flags: above) */
  if (c->announced != NULL) c->reannounce = 1;
  return 1;
}

/* Both passes over the payload. */
static int read_payload(Load *x, Rd *r) {
  if (!read_world(x, r)) return 0;
  uint32_t count = (uint32_t)sp__ld_get(r, 4);
  if (r->failed) return 0;
  if (count != x->count)
    return sp__ld_bad(r, "the save holds %u crowds, %zu were given", count,
                      x->count);
  if (x->names.mem != NULL && x->names.crowds != count)
    return sp__ld_bad(r, "the save holds %u crowds, its names %u", count,
                      x->names.crowds);
  for (size_t k = 0; k < x->count; k++) {
    SpCrowd *c = x->crowds[k];
    r->crowd = (int)k + 1;
    r->name = sp_domain_name(c->domain);
    if (c->world != x->w) return sp__ld_bad(r, "lives in another world");
    if (!read_crowd(x, r, c)) return 0;
  }
  r->crowd = 0;
  if (!sp__ld_read_queue(x, r)) return 0;
  uint32_t extra = (uint32_t)sp__ld_get(r, 4);
  x->extra = sp__ld_take(r, extra);
  x->extra_len = extra;
  if (r->failed) return 0;
  if (r->at != r->len)
    return sp__ld_bad(r, "%zu bytes after the end", r->len - r->at);
  for (size_t p = 0; p < x->w->place_count; p++) {
    if (x->saved[p] != x->held[p])
      return sp__ld_bad(r,
                        "place %zu: %u reservations saved, its agents hold %u",
                        p, x->saved[p], x->held[p]);
    int cap = x->w->places[p].capacity;
    if (cap > 0 && x->held[p] > (uint32_t)cap)
      return sp__ld_bad(r, "place %zu: %u reservations, its capacity is %d", p,
                        x->held[p], cap);
  }
  return 1;
}

/* Format 6's names block (checked and kept for the counts), after which
 * the world's part starts. */
static int read_names(Load *x, Rd *r, size_t have) {
  char why[160];
  const char *e =
      sp__save_names_read(r->p + SAVE_HEADER_BYTES, have, x->version,
                          x->w->alloc, &x->names, why, sizeof why);
  if (e == sp__save_no_memory) {
    r->failed = 1;
    sp__error_memory(r->err);
    return 0;
  }
  r->crowd = -1; /* "saved world: names: ..." */
  if (e != NULL) return sp__ld_bad(r, "%s", e);
  r->crowd = 0;
  r->at = x->body = SAVE_HEADER_BYTES + x->names.end;
  return 1;
}

/* The header: magic, version, length and checksum. A save shorter than
 * its header says is read as far as it goes, to say where it ends. */
static int read_header(Load *x, Rd *r) {
  if (r->len < SAVE_HEADER_BYTES) {
    r->failed = 1;
    sp__error_set(r->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: truncated at byte %zu in the header (%u "
                  "bytes)",
                  r->len, SAVE_HEADER_BYTES);
    return 0;
  }
  r->crowd = -1;
  if (memcmp(r->p, SAVE_MAGIC, 8) != 0)
    return sp__ld_bad(r, "not a saspu save (bad magic)");
  uint32_t version = (uint32_t)sp_save_get(r->p + 8, 4);
  x->version = version;
  if (version < SAVE_OLDEST || version > SP_SAVE_VERSION) {
    r->failed = 1;
    sp__error_set(r->err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                  "saved world: format version %u, this saspu reads %u to %d",
                  version, SAVE_OLDEST, SP_SAVE_VERSION);
    return 0;
  }
  if (sp_save_get(r->p + 12, 4) != 0)
    return sp__ld_bad(r, "header flags 0x%08x are not 0",
                      (unsigned)sp_save_get(r->p + 12, 4));
  uint64_t payload = sp_save_get(r->p + 16, 8);
  uint64_t sum = sp_save_get(r->p + 24, 8);
  r->at = SAVE_HEADER_BYTES;
  size_t have = r->len - SAVE_HEADER_BYTES;
  if (payload > have) {
    r->crowd = 0;
    if (version >= 6 && !read_names(x, r, have)) return 0;
    read_payload(x, r); /* fails where the bytes end */
    r->crowd = -1;
    if (!r->failed)
      sp__ld_bad(r, "truncated: %zu bytes, the header says %llu", r->len,
                 (unsigned long long)(payload + SAVE_HEADER_BYTES));
    return 0;
  }
  if (payload < have)
    return sp__ld_bad(r, "%llu bytes after the end",
                      (unsigned long long)(have - payload));
  if (sp__save_fnv(SAVE_FNV_START, r->p + SAVE_HEADER_BYTES, have) != sum)
    return sp__ld_bad(r, "checksum mismatch (the data is corrupted)");
  r->crowd = 0;
  return version < 6 || read_names(x, r, have);
}

static void load_free(Load *x) {
  SpAllocator a = x->w->alloc;
  if (x->freed != NULL) sp__mem_free(a, x->freed, x->freed_bytes);
  if (x->progress != NULL) sp__mem_free(a, x->progress, 4 * x->freed_bytes);
  if (x->saved != NULL) sp__mem_free(a, x->saved, x->place_bytes);
  sp__save_names_free(&x->names);
  if (x->held != NULL) sp__mem_free(a, x->held, x->place_bytes);
  if (x->queue != NULL)
    sp__mem_free(a, x->queue, (x->queue_cap + 1) * sizeof(Waiter));
  if (x->ref == NULL) return;
  for (size_t k = 0; k < x->count; k++) {
    if (x->ref[k].hi != NULL)
      sp__mem_free(a, x->ref[k].hi,
                   sp_refused_bytes(x->crowds[k], x->ref[k].words));
    if (x->ref[k].own != NULL)
      sp__mem_free(x->crowds[k]->alloc, x->ref[k].own,
                   x->ref[k].own_n * sizeof(OwnPriority));
  }
  sp__mem_free(a, x->ref, (x->count + 1) * sizeof(Refusals));
}

/* A probe's callback (sp_world_load_probe), NULL for none. */
typedef struct Probe {
  void (*despawned)(void *ud, size_t crowd, uint32_t slot);
  void *ud;
} Probe;

static SpStatus load(SpWorld *w, SpCrowd *const *crowds, size_t count,
                     const void *data, size_t len, int apply,
                     const void **extra, size_t *extra_len, size_t *agents,
                     int *goals, const Probe *probe, SpError *err) {
  SpError local;
  if (err == NULL) err = &local;
  sp__error_clear(err);
  if (extra != NULL) *extra = NULL;
  if (extra_len != NULL) *extra_len = 0;
  Load x;
  memset(&x, 0, sizeof x);
  x.w = w, x.crowds = crowds, x.count = count;
  x.agents = agents, x.goals = goals;
  if (probe != NULL) x.despawned = probe->despawned, x.despawned_ud = probe->ud;
  x.body = SAVE_HEADER_BYTES;
  x.place_bytes = (w->place_count + 1) * sizeof(uint32_t);
  x.saved = sp__mem_alloc(w->alloc, x.place_bytes);
  x.held = sp__mem_alloc(w->alloc, x.place_bytes);
  x.ref = sp__mem_alloc(w->alloc, (count + 1) * sizeof(Refusals));
  if (x.ref != NULL) memset(x.ref, 0, (count + 1) * sizeof(Refusals));
  if (x.saved == NULL || x.held == NULL || x.ref == NULL) {
    load_free(&x);
    return sp__error_memory(err);
  }
  memset(x.held, 0, x.place_bytes);
  Rd r = {data, len, 0, err, 0, "", SP_NO_AGENT, 0};
  int ok = read_header(&x, &r) && read_payload(&x, &r);
  if (ok && apply) {
    Rd again = {data, len, x.body, err, 0, "", SP_NO_AGENT, 0};
    x.apply = 1;
    memset(x.held, 0, x.place_bytes);
    read_payload(&x, &again);
  }
  if (ok && extra != NULL) *extra = x.extra;
  if (ok && extra_len != NULL) *extra_len = x.extra_len;
  load_free(&x);
  return ok ? SP_OK : err->status;
}

SpStatus sp_world_load(SpWorld *w, SpCrowd *const *crowds, size_t count,
                       const void *data, size_t len, const void **extra,
                       size_t *extra_len, SpError *err) {
  return load(w, crowds, count, data, len, 1, extra, extra_len, NULL, NULL,
              NULL, err);
}

SpStatus sp_world_load_check(const SpWorld *w, const SpCrowd *const *crowds,
                             size_t count, const void *data, size_t len,
                             const void **extra, size_t *extra_len,
                             SpError *err) {
  /* apply = 0 writes nothing: the casts only share the code */
  return load((SpWorld *)w, (SpCrowd *const *)crowds, count, data, len, 0,
              extra, extra_len, NULL, NULL, NULL, err);
}

SpStatus sp_world_load_counts(const SpWorld *w, const SpCrowd *const *crowds,
                              size_t count, const void *data, size_t len,
                              const void **extra, size_t *extra_len,
                              size_t *agents, int *goals, SpError *err) {
  return load((SpWorld *)w, (SpCrowd *const *)crowds, count, data, len, 0,
              extra, extra_len, agents, goals, NULL, err);
}

SpStatus sp_world_load_probe(const SpWorld *w, const SpCrowd *const *crowds,
                             size_t count, const void *data, size_t len,
                             const void **extra, size_t *extra_len,
                             size_t *agents, int *goals,
                             void (*despawned)(void *ud, size_t crowd,
                                               uint32_t slot),
                             void *ud, SpError *err) {
  Probe probe = {despawned, ud};
  return load((SpWorld *)w, (SpCrowd *const *)crowds, count, data, len, 0,
              extra, extra_len, agents, goals, &probe, err);
}
