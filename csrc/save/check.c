/* check.c: the invariants the update relies on (listed in sp_save.h), checked on a saved agent before a load and on live crowds by the tests. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_save.h"
#include "sp_detail.h"
#include "sp_due.h"
#include "sp_goals.h"
#include "sp_places.h"

/* Writes "field: what" to buf and returns it. */
static const char *wrong(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static const char *wrong(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return buf;
}

static int place_or_none(const SpWorld *w, uint32_t p) {
  return p == SP_NO_PLACE || p < w->place_count;
}

static int cell_ok(const SpWorld *w, int x, int y) {
  return w->grid != NULL ? sp_grid_contains(w->grid, x, y)
                         : x <= 65534 && y <= 65534;
}

static int action_or_none(const SpCrowd *c, int act) {
  return act >= -1 && act < c->action_count;
}

/* R2..R5: indices into the goals, the domain, the places and the grid. */
static const char *check_indices(const SpCrowdView *cv, const Agent *a,
                                 const FailDetail *d, char *buf, size_t size) {
  const SpCrowd *c = cv->c;
  const SpWorld *w = c->world;
  if (a->goal != GOAL_NONE && a->goal >= cv->goals)
    return wrong(buf, size, "field 'goal': goal %u does not exist (%d goals)",
                 a->goal, cv->goals);
  if (a->pursued != GOAL_NONE && a->pursued >= cv->goals)
    return wrong(buf, size,
                 "field 'pursued': goal %u does not exist (%d goals)",
                 a->pursued, cv->goals);
  if (a->shun != GOAL_NONE && a->shun >= cv->goals)
    return wrong(buf, size, "field 'shun': goal %u does not exist (%d goals)",
                 a->shun, cv->goals);
  if (a->shun != GOAL_NONE && a->cool_place != SP_NO_PLACE)
    return wrong(buf, size,
                 "field 'shun': a goal given up beside place %u on "
                 "cooldown",
                 a->cool_place);
  if (a->why >= SP_REASON_COUNT || a->reason >= SP_REASON_COUNT)
    return wrong(buf, size, "field '%s': reason %u does not exist",
                 a->why >= SP_REASON_COUNT ? "why" : "reason",
                 a->why >= SP_REASON_COUNT ? a->why : a->reason);
  if (d->fcode > SP_FAIL_ORDER)
    return wrong(buf, size, "field 'fcode': failure code %u does not exist",
                 d->fcode);
  /* after a no_plan, fail_action names its goal (-2 - the goal's index);
   * with a failure of code NO_SETTER or UNREACHABLE, fother holds the
   * blocker's values (current | link_to << 8) or -1 (sp_agents.h) */
  int blocker =
      (d->fcode == SP_FAIL_NO_SETTER || d->fcode == SP_FAIL_UNREACHABLE) &&
      d->fother != -1;
  int goal_named = a->reason == SP_REASON_NO_PLAN && a->fail_action <= -2;
  if (goal_named && -2 - a->fail_action >= cv->goals)
    return wrong(buf, size,
                 "field 'fail_action': goal %d does not exist (%d goals)",
                 -2 - a->fail_action, cv->goals);
  const int16_t acts[3] = {goal_named ? -1 : a->fail_action, d->faction,
                           blocker ? -1 : d->fother};
  const char *const act_names[3] = {"fail_action", "faction", "fother"};
  for (int k = 0; k < 3; k++)
    if (!action_or_none(c, acts[k]))
      return wrong(buf, size,
                   "field '%s': action %d does not exist (%d "
                   "actions)",
                   act_names[k], acts[k], c->action_count);
  if (blocker) {
    int count = d->fvar >= 0 && d->fvar < c->m
                    ? sp_variable_value_count(c->domain, d->fvar)
                    : 0;
    uint16_t packed = (uint16_t)d->fother;
    if ((packed & 0xFF) >= count || (packed >> 8) >= count)
      return wrong(buf, size,
                   "field 'fother': blocker values %u and %u are no "
                   "values of variable %d",
                   packed & 0xFF, packed >> 8, d->fvar);
  }
  if ((d->fcode == SP_FAIL_REPEAT || d->fcode == SP_FAIL_ORDER) &&
      d->faction < 0)
    return wrong(buf, size,
                 "field 'faction': a failure of code %u names no "
                 "action",
                 d->fcode);
  if (d->fvar < -1 || d->fvar >= c->m)
    return wrong(buf, size,
                 "field 'fvar': variable %d does not exist (%d "
                 "variables)",
                 d->fvar, c->m);
  if (d->fvalue != 0xFF &&
      (d->fvar < 0 || d->fvalue >= sp_variable_value_count(c->domain, d->fvar)))
    return wrong(buf, size,
                 "field 'fvalue': value %u is no value of "
                 "variable %d",
                 d->fvalue, d->fvar);
  const uint32_t places[3] = {a->target, a->home, a->cool_place};
  const char *const place_names[3] = {"target", "home", "cool_place"};
  for (int k = 0; k < 3; k++)
    if (!place_or_none(w, places[k]))
      return wrong(buf, size,
                   "field '%s': place %u does not exist (%zu "
                   "places)",
                   place_names[k], places[k], w->place_count);
  if (!isfinite(a->cool_until))
    return wrong(buf, size, "field 'cool_until': %g is not a finite time",
                 (double)a->cool_until);
  if (!cell_ok(w, a->x, a->y))
    return wrong(buf, size, "field 'x, y': cell (%u, %u) is outside the grid",
                 a->x, a->y);
  if ((a->tx == 0xFFFF) != (a->ty == 0xFFFF) ||
      (a->tx != 0xFFFF && !cell_ok(w, a->tx, a->ty)))
    return wrong(buf, size,
                 "field 'tx, ty': target cell (%u, %u) is outside "
                 "the grid",
                 a->tx, a->ty);
  if (a->target != SP_NO_PLACE && a->tx != 0xFFFF &&
      (a->tx != w->places[a->target].x || a->ty != w->places[a->target].y))
    return wrong(buf, size,
                 "field 'tx, ty': target cell (%u, %u) is not the "
                 "cell of its target place %u",
                 a->tx, a->ty, a->target);
  return NULL;
}

/* R6, R7: the plan, its cursor, its done bits and the running step. */
static const char *check_plan(const SpAgentView *v, int has_plan, char *buf,
                              size_t size) {
  const Agent *a = v->a;
  int len = v->planned ? v->len : -1;
  if (has_plan && len < 0)
    return wrong(buf, size, "field 'flags': it follows a plan but holds none");
  if (has_plan && a->goal == GOAL_NONE)
    return wrong(buf, size, "field 'goal': it follows a plan but has no goal");
  if (has_plan && a->cursor > len)
    return wrong(buf, size,
                 "field 'cursor': position %u is past its plan (%d "
                 "steps)",
                 a->cursor, len);
  if (has_plan && len - a->cursor < DONE_WINDOW &&
      (a->done >> (len - a->cursor)) != 0)
    return wrong(buf, size,
                 "field 'done': marks steps past its plan (%d "
                 "steps, cursor %u)",
                 len, a->cursor);
  if (a->step == STEP_NONE) return NULL;
  if (len < 0 || a->step >= len)
    return wrong(buf, size,
                 "field 'step': running step %u is not in its plan "
                 "(%d steps)",
                 a->step, len);
  if (a->step < a->cursor || a->step - a->cursor >= DONE_WINDOW)
    return wrong(buf, size,
                 "field 'step': running step %u is not within %d "
                 "steps of the cursor %u",
                 a->step, DONE_WINDOW, a->cursor);
  if ((a->done >> (a->step - a->cursor)) & 1u)
    return wrong(buf, size, "field 'step': running step %u is marked done",
                 a->step);
  return NULL;
}

/* P1..P7: what each phase needs to go on. */
static const char *check_phase(const SpCrowdView *cv, const SpAgentView *v,
                               char *buf, size_t size) {
  const Agent *a = v->a;
  int step = a->step != STEP_NONE, has = (v->flags & F_HAS_PLAN) != 0;
  const char *name = sp_phase_name((SpPhase)v->phase);
  switch (v->phase) {
  case SP_PHASE_WALKING:
  case SP_PHASE_ACTING:
    if (!step || !has)
      return wrong(buf, size,
                   "field 'step': %s without a running step of a "
                   "plan",
                   name);
    if (v->phase == SP_PHASE_WALKING && !(v->flags & F_BIND) && a->tx == 0xFFFF)
      return wrong(buf, size, "field 'tx, ty': walking without a target cell");
    break;
  case SP_PHASE_MOVING:
    if (!step || !has || a->tx == 0xFFFF)
      return wrong(buf, size,
                   "field 'step': moving without a running step of "
                   "a plan and its target cell");
    break;
  case SP_PHASE_SCRIPT:
    if (step != has || (!step && !cv->selector))
      return wrong(buf, size,
                   "field 'step': waiting for the script without a "
                   "running step of a plan");
    break;
  case SP_PHASE_BLOCKED:
  case SP_PHASE_THINKING:
  case SP_PHASE_IDLE:
    if (step)
      return wrong(buf, size, "field 'step': %s with a running step", name);
    if (v->phase == SP_PHASE_BLOCKED && !has)
      return wrong(buf, size,
                   "field 'flags': blocked without a plan to go on "
                   "with");
    if (v->phase == SP_PHASE_THINKING && !has && !(v->flags & F_PLANNING))
      return wrong(buf, size,
                   "field 'flags': thinking with neither a plan nor "
                   "one to wait for");
    if (v->phase == SP_PHASE_IDLE && has)
      return wrong(buf, size, "field 'flags': idle with a plan");
    break;
  default: break;
  }
  if ((v->flags & F_BIND) && v->phase != SP_PHASE_WALKING &&
      v->phase != SP_PHASE_MOVING)
    return wrong(buf, size, "field 'flags': a place to bind while %s", name);
  return NULL;
}

double sp__save_time_max(const SpCrowd *c, uint8_t phase, int act,
                         double clock) {
  double most;
  if (phase == SP_PHASE_ACTING && act >= 0 && act < c->action_count)
    /* not the behaviour's max_duration alone: the game may shorten an
     * action's durations (sp_crowd_set_action) while agents act it with a
     * time drawn before, and a save of that is legitimate */
    most = fmax((double)c->beh[act].max_duration, SP_CROWD_CLOCK_MAX);
  else if (phase == SP_PHASE_BLOCKED)
    most = fmax((double)c->opt.retry * SP_BACKOFF_CAP, (double)c->opt.cooldown);
  else
    return -1.0;
  /* a due time rounds to a tick; a cooldown's end is a float time */
  return most + 2.0 / SP_TICKS_PER_S + (fabs(clock) + most) * 2.5e-7;
}

const char *sp__save_check_agent(const SpCrowdView *cv, const SpAgentView *v,
                                 char *buf, size_t size) {
  const Agent *a = v->a;
  uint8_t fl = v->flags;
  if (v->phase >= SP_PHASE_COUNT)
    return wrong(buf, size, "field 'phase': phase %u does not exist", v->phase);
  if (v->told && !cv->c->opt.engine_moves)
    return wrong(buf, size,
                 "field 'phase': a move the game heard of, in a crowd the "
                 "game does not move");
  if (v->told && (v->phase == SP_PHASE_FREE || v->a->step == STEP_NONE))
    return wrong(buf, size,
                 "field 'phase': a move the game heard of, without a running "
                 "step");
  /* a despawned slot keeps its last agent's record, read by no pass */
  if (v->phase == SP_PHASE_FREE)
    return fl != 0 ? wrong(buf, size,
                           "field 'flags': a despawned slot with "
                           "flags 0x%02x",
                           fl)
                   : NULL;
  const char *why = check_indices(cv, a, v->d, buf, size);
  if (why == NULL) why = check_plan(v, (fl & F_HAS_PLAN) != 0, buf, size);
  if (why != NULL) return why;
  int step = a->step != STEP_NONE;
  if ((fl & F_PLANNING) && (a->goal == GOAL_NONE || step || (fl & F_HAS_PLAN) ||
                            v->phase != SP_PHASE_THINKING))
    return wrong(buf, size,
                 "field 'flags': waits for a plan without a goal, "
                 "or while it has a step or a plan");
  if ((fl & (F_FINISH | F_FAIL)) &&
      ((fl & F_FINISH && fl & F_FAIL) || !step ||
       (v->phase != SP_PHASE_SCRIPT && v->phase != SP_PHASE_MOVING)))
    return wrong(buf, size,
                 "field 'flags': a finished or failed script step "
                 "that is not waiting for the script");
  if ((fl & F_RESERVED) &&
      (!step || a->target == SP_NO_PLACE || a->tx == 0xFFFF))
    return wrong(buf, size,
                 "field 'flags': holds a reservation without a "
                 "running step, a target place and its cell");
  float t;
  memcpy(&t, &v->time_bits, sizeof t);
  if (!(fl & F_FAIL) && !isfinite(t))
    return wrong(buf, size, "field 'time': %g is not a finite time", (double)t);
  if (!(fl & F_FAIL) && v->phase == SP_PHASE_WALKING && t < 0.0f)
    return wrong(buf, size, "field 'time': walking progress %g is negative",
                 (double)t);
  double most = sp__save_time_max(cv->c, v->phase, v->act, cv->clock);
  if (!(fl & F_FAIL) && most >= 0.0 && (double)t > most)
    return wrong(buf, size,
                 "field 'time': %s with %g s left, longer than %s can wait "
                 "(%g s)",
                 sp_phase_name((SpPhase)v->phase), (double)t,
                 v->phase == SP_PHASE_ACTING ? "its step"
                                             : "a back-off or cooldown",
                 most);
  if (v->phase == SP_PHASE_MOVING && !cv->c->opt.engine_moves)
    return wrong(buf, size,
                 "field 'phase': moving (waiting for the engine) in a crowd "
                 "saspu moves on its grid");
  if (fl & F_NEED_GOAL) return NULL; /* the next update starts it over */
  return check_phase(cv, v, buf, size);
}

/* R12: the crowd's entries in the world's queue of waiters name one of
 * its slots, an action and a place or kind that exist, each slot once;
 * and an agent is marked queued exactly when it has an entry. */
static SpStatus check_queue(const SpCrowd *c, SpError *err) {
  const SpWorld *w = c->world;
  size_t marked = 0, listed = 0;
  for (size_t i = 0; i < c->n; i++) marked += c->agents[i].queued != 0;
  for (size_t k = 0; k < w->queue_len; k++) {
    const Waiter *e = &w->queue[k];
    if (e->crowd != c) continue;
    uint32_t id = e->key & ~SP_QUEUE_KIND;
    int bad_key = e->key & SP_QUEUE_KIND ? id >= (uint32_t)w->kind_count
                                         : id >= w->place_count;
    if (e->agent >= c->n || e->act < 0 || e->act >= c->action_count || bad_key)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd '%s': waiter %zu names agent %u, action %d "
                           "or key 0x%x out of range",
                           sp_domain_name(c->domain), k + 1, e->agent + 1,
                           e->act, e->key);
    for (size_t j = k + 1; j < w->queue_len; j++)
      if (w->queue[j].crowd == c && w->queue[j].agent == e->agent)
        return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                             "crowd '%s' agent %u waits twice",
                             sp_domain_name(c->domain), e->agent + 1);
    int live = sp_crowd_generation(c, e->agent) == e->gen;
    if (live && !c->agents[e->agent].queued)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd '%s' agent %u: in the queue, not marked",
                           sp_domain_name(c->domain), e->agent + 1);
    listed += live;
  }
  if (marked != listed)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd '%s': %zu agents marked as waiting, %zu in the "
                         "queue",
                         sp_domain_name(c->domain), marked, listed);
  return SP_OK;
}

/* R10 over the world: each place's count of reservations is the live
 * agents of all its crowds that hold one there. */
static SpStatus check_holders(const SpCrowd *c, SpError *err) {
  const SpWorld *w = c->world;
  if (w->place_count == 0) return SP_OK;
  size_t bytes = w->place_count * sizeof(uint32_t);
  uint32_t *holders = sp__mem_alloc(c->alloc, bytes);
  if (holders == NULL) return sp__error_memory(err);
  memset(holders, 0, bytes);
  for (const SpCrowd *k = w->crowds; k != NULL; k = k->next_in_world)
    for (size_t i = 0; i < k->n; i++)
      if (sp_crowd_alive(k, i) && (k->agents[i].flags & F_RESERVED) &&
          k->agents[i].target < w->place_count)
        holders[k->agents[i].target]++;
  SpStatus st = SP_OK;
  for (size_t p = 0; p < w->place_count && st == SP_OK; p++) {
    int held = atomic_load(&((Place *)&w->places[p])->reserved);
    if ((uint32_t)held != holders[p])
      st = sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "place %zu: %d reservations, but %u agents hold one",
                         p, held, holders[p]);
  }
  sp__mem_free(c->alloc, holders, bytes);
  return st;
}

SpStatus sp__crowd_check(const SpCrowd *c, SpError *err) {
  sp__error_clear(err);
  const SpWorld *w = c->world;
  SpCrowdView cv = {c, c->goal_count, c->selector, c->clock};
  char buf[200];
  for (size_t i = 0; i < c->n; i++) {
    FailDetail d = sp__detail_get(c, i);
    SpAgentView v = {&c->agents[i],
                     &d,
                     c->agents[i].phase,
                     c->agents[i].flags,
                     0,
                     0,
                     -1,
                     -1,
                     sp_agent_told(c, i)};
    float t = sp_agent_saved_time(c, i); /* a due time is ticks (wheel.c) */
    memcpy(&v.time_bits, &t, sizeof v.time_bits);
    v.planned =
        sp_population_status_of(c->pop, i, NULL, NULL) == SP_NPC_PLANNED;
    if (v.planned) v.len = sp_population_plan_length(c->pop, i);
    uint16_t step = c->agents[i].step;
    if (v.planned && step != STEP_NONE && step < v.len)
      v.act = sp_population_plan_step(c->pop, i, step);
    const char *why = sp__save_check_agent(&cv, &v, buf, sizeof buf);
    if (why != NULL)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd '%s' agent %zu: %s",
                           sp_domain_name(c->domain), i + 1, why);
  }
  SpStatus st = check_queue(c, err);
  if (st != SP_OK) return st;
  for (size_t k = 0; k < c->own_count; k++) { /* R13 */
    const OwnPriority *o = &c->own[k];
    if (!sp_crowd_alive(c, o->agent) || o->goal >= c->goal_count ||
        (k > 0 && (o->agent < o[-1].agent ||
                   (o->agent == o[-1].agent && o->goal <= o[-1].goal))))
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd '%s': own priority %zu (agent %u, goal %u) "
                           "is out of order or names no live agent or goal",
                           sp_domain_name(c->domain), k + 1, o->agent + 1,
                           o->goal + 1);
  }
  for (size_t p = 0; p < w->place_count; p++) {
    const Place *pl = &w->places[p];
    int held = atomic_load(&((Place *)pl)->reserved);
    if (held < 0 || (pl->capacity > 0 && held > pl->capacity))
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "place %zu: %d reservations (capacity %d)", p, held,
                           pl->capacity);
  }
  return check_holders(c, err);
}
