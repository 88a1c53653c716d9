/* crowd.c: crowds: creation, action behaviours, goals, spawning, world changes, inspection (stats.c: counters, memory, event buffers). */
#include <math.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_release.h"
#include "sp_wheel.h"
#include "sp_chase.h"
#include "sp_detail.h"
#include "sp_due.h"
#include "sp_facts.h"
#include "sp_goals.h"
#include "sp_loop.h"
#include "sp_slots.h"
#include "sp_space.h"
#include "sp_walk.h"
#include "sp_error.h"
#include "sp_internal.h"

/* ------------------------------------------------------------------ */
/* Creation                                                           */
/* ------------------------------------------------------------------ */

static void worker_free(SpCrowd *c, CrowdWorker *w) {
  sp_workspace_free(w->ws);
  if (w->state != NULL) sp__mem_free(c->alloc, w->state, (size_t)c->m + 8u);
  if (w->plan != NULL)
    sp__mem_free(c->alloc, w->plan,
                 ((size_t)c->action_count + 1u) * sizeof(uint16_t));
  if (w->ev != NULL)
    sp__mem_free(c->alloc, w->ev, w->ev_cap * sizeof(SpAgentEvent));
  if (w->blocker != NULL)
    sp__mem_free(c->alloc, w->blocker, sp_blocker_scratch_size(c->domain));
  if (w->hint != NULL)
    sp__mem_free(c->alloc, w->hint, w->hint_cap * sizeof(BindHint));
  memset(w, 0, sizeof *w);
}

void sp_crowd_free(SpCrowd *c) {
  if (c == NULL) return;
  sp_crowd_retire(c); /* its reservations go back to the world */
  sp_thread_pool_free(c->own_pool);
  sp__index_free(c);
  sp__facts_free(c);
  sp__wheel_free(c); /* before the workers: it frees their timer lists */
  sp__release_free(c);
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) worker_free(c, &c->cw[k]);
  if (c->goal_block != NULL)
    sp__mem_free(c->alloc, c->goal_block, c->goal_block_bytes);
  for (int k = 0; k < SP_CROWD_MAX_GOALS; k++) sp__goal_choices_drop(c, k);
  if (c->ev != NULL)
    sp__mem_free(c->alloc, c->ev, c->ev_cap * sizeof(SpAgentEvent));
  if (c->chunks != NULL)
    sp__mem_free_lines(c->alloc, c->chunks,
                       (c->chunk_count + 1) * sizeof(ChunkRec));
  if (c->beh != NULL)
    sp__mem_free(c->alloc, c->beh, /* the size it was allocated with */
                 (size_t)c->action_count * sizeof(SpActionBehaviour) + 1);
  if (c->agents != NULL)
    sp__mem_free_lines(c->alloc, c->agents, (c->capacity + 1) * sizeof(Agent));
  if (c->refused_hi != NULL)
    sp__mem_free(c->alloc, c->refused_hi,
                 sp_refused_bytes(c, c->refused_words));
  sp__crowd_slots_free(c);
  sp__detail_free(c);
  sp__priority_free(c);
  sp__crowd_chase_free(c);
  if (c->announced != NULL)
    sp__mem_free(c->alloc, c->announced, c->capacity + 1);
  sp__world_unregister_crowd(c->world, c);
  sp_population_free(c->pop);
  sp__mem_free_lines(c->alloc, c, sizeof *c);
}

SpStatus sp_crowd_new(SpWorld *w, const SpDomain *d, const SpCrowdOptions *opts,
                      SpAllocator alloc, SpCrowd **out, SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  SpCrowd *c = sp__mem_alloc_lines(alloc, sizeof *c); /* workers' lines */
  if (c == NULL) return sp__error_memory(err);
  memset(c, 0, sizeof *c);
  atomic_init(&c->lost, 0);
  c->alloc = alloc;
  c->world = w;
  c->domain = d;
  c->m = sp_domain_variable_count(d);
  c->action_count = sp_domain_action_count(d);
  if (opts != NULL) c->opt = *opts;
  if (c->opt.speed <= 0.0f) c->opt.speed = 4.0f;
  if (c->opt.cooldown <= 0.0f) c->opt.cooldown = 5.0f;
  if (c->opt.retry <= 0.0f) c->opt.retry = 1.0f;
  c->walk_ticks = sp__walk_ticks(c->opt.speed);
  c->fields_seen = w->fields_dropped;
  c->capacity = c->opt.capacity;
  c->chunk_count = (c->capacity + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  SpStatus st = sp__population_new_in_rows(d, c->capacity, alloc, &c->pop, err);
  if (st == SP_OK && c->opt.cache_capacity != 0)
    st = sp_population_set_cache_capacity(c->pop, c->opt.cache_capacity, err);
  if (st != SP_OK) {
    sp_crowd_free(c);
    return st;
  }
  sp_population_mark_clean(c->pop); /* planned once chosen: marked then */
  /* the per-agent arrays start on a line, so chunks (whole lines) that
   * different workers run share none */
  c->agents = sp__mem_alloc_lines(alloc, (c->capacity + 1) * sizeof(Agent));
  sp__mem_hint_random(c->agents, (c->capacity + 1) * sizeof(Agent));
  c->beh = sp__mem_alloc(
      alloc, (size_t)c->action_count * sizeof(SpActionBehaviour) + 1);
  c->chunks =
      sp__mem_alloc_lines(alloc, (c->chunk_count + 1) * sizeof(ChunkRec));
  if (c->opt.engine_moves) {
    c->announced = sp__mem_alloc(alloc, c->capacity + 1);
    if (c->announced != NULL) memset(c->announced, 0, c->capacity + 1);
  }
  if (c->agents == NULL || c->beh == NULL || c->chunks == NULL ||
      !sp__wheel_new(c) || (c->opt.engine_moves && c->announced == NULL)) {
    sp_crowd_free(c);
    return sp__error_memory(err);
  }
  memset(c->beh, 0, (size_t)c->action_count * sizeof(SpActionBehaviour));
  for (int k = 0; k < c->action_count; k++) c->beh[k].place = SP_NO_PLACE;
  memset(c->chunks, 0, (c->chunk_count + 1) * sizeof(ChunkRec));
  int want = c->opt.threads > 0 ? c->opt.threads : sp_online_cores();
  if (want > SP_THREAD_POOL_MAX) want = SP_THREAD_POOL_MAX;
  c->pool = c->opt.pool;
  if (c->pool != NULL) {
    int size = sp_thread_pool_size(c->pool);
    if (want > size) want = size;
  } else if (want > 1) {
    st = sp_thread_pool_new(want, alloc, &c->own_pool, err);
    if (st != SP_OK) {
      sp_crowd_free(c);
      return st;
    }
    c->pool = c->own_pool;
    if (c->opt.wake_ahead_ms != 0.0)
      sp_thread_pool_wake_ahead(
          c->pool, c->opt.wake_ahead_ms < 0.0 ? 0.0 : c->opt.wake_ahead_ms);
  }
  c->workers = want;
  for (int k = 0; k < want; k++) {
    CrowdWorker *cw = &c->cw[k];
    st = sp_workspace_new(d, alloc, &cw->ws, err);
    if (st != SP_OK) {
      sp_crowd_free(c);
      return st;
    }
    cw->state = sp__mem_alloc(alloc, (size_t)c->m + 8u);
    cw->plan =
        sp__mem_alloc(alloc, ((size_t)c->action_count + 1u) * sizeof(uint16_t));
    cw->blocker = sp__mem_alloc(alloc, sp_blocker_scratch_size(d));
    if (cw->state == NULL || cw->plan == NULL || cw->blocker == NULL) {
      sp_crowd_free(c);
      return sp__error_memory(err);
    }
  }
  /* goals: one block for the most goals, so adding one never allocates */
  c->goal_block_bytes = (size_t)SP_CROWD_MAX_GOALS * 2u * (size_t)c->m + 1u;
  c->goal_block = sp__mem_alloc(alloc, c->goal_block_bytes);
  if (c->goal_block == NULL) {
    sp_crowd_free(c);
    return sp__error_memory(err);
  }
  sp__crowd_goals_changed(c);
  sp__world_register_crowd(w, c);
  *out = c;
  return SP_OK;
}

void sp__crowd_goals_changed(SpCrowd *c) {
  memset(c->goal_event, GOAL_NONE, sizeof c->goal_event);
  for (int g = 0; g < c->goal_count; g++)
    c->goal_event[g] = (uint8_t)c->goals[g].index;
}

const SpDomain *sp_crowd_domain(const SpCrowd *c) { return c->domain; }
SpPopulation *sp_crowd_population(SpCrowd *c) { return c->pop; }
size_t sp_crowd_size(const SpCrowd *c) { return c->n - c->free_count; }
size_t sp_crowd_slots(const SpCrowd *c) { return c->n; }
int sp_crowd_goal_count(const SpCrowd *c) { return c->goal_count; }

/* ------------------------------------------------------------------ */
/* Behaviours and goals                                               */
/* ------------------------------------------------------------------ */

SpStatus sp_crowd_set_action(SpCrowd *c, int action, const SpActionBehaviour *b,
                             SpError *err) {
  sp__error_clear(err);
  if (action < 0 || action >= c->action_count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: action %d does not exist (%d actions)", action,
                         c->action_count);
  const char *name = sp_action_name(c->domain, action);
  if (!(b->min_duration >= 0.0f) || !(b->max_duration >= 0.0f) ||
      (b->max_duration > 0.0f && b->max_duration < b->min_duration))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: action '%s': duration must be >= 0 and "
                         "min <= max",
                         name);
  if ((unsigned)b->bind > SP_BIND_SCRIPT ||
      (b->bind == SP_BIND_PLACE && b->place >= c->world->place_count) ||
      (b->bind == SP_BIND_KIND &&
       (b->kind < 0 || b->kind >= c->world->kind_count)))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: action '%s': unknown place or kind", name);
  if (b->max_failures < 0 || b->max_failures > 255 ||
      !(b->give_up_for >= 0.0f) || !isfinite(b->give_up_for))
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: action '%s': max_failures must be 0..255 and "
                         "give_up_for a finite number >= 0",
                         name);
  int was_interruptible = c->beh[action].interruptible != 0;
  c->beh[action] = *b;
  if (c->beh[action].max_duration < c->beh[action].min_duration)
    c->beh[action].max_duration = c->beh[action].min_duration;
  int was = c->any_interruptible;
  c->any_binding = c->any_interruptible = 0;
  for (int k = 0; k < c->action_count; k++) {
    if (c->beh[k].bind != SP_BIND_NONE) c->any_binding = 1;
    if (c->beh[k].interruptible) c->any_interruptible = 1;
  }
  /* acting agents are visited every frame or sleep on their timers; the
   * agents already running this action (walking to it, waiting for a
   * place) are looked at every frame from now on, or no longer, as a
   * loaded world would have them */
  if (was != c->any_interruptible ||
      was_interruptible != (b->interruptible != 0))
    sp__wheel_wake_all(c);
  return SP_OK;
}

static SpStatus check_state(const SpCrowd *c, const SpValue *s, int any_ok,
                            const char *what, SpError *err) {
  for (int v = 0; v < c->m; v++) {
    if (any_ok && s[v] == SP_ANY) continue;
    if (s[v] < sp_variable_value_count(c->domain, v)) continue;
    if (err != NULL) {
      err->variable = v;
      err->value = s[v];
    }
    return sp__error_set(err, SP_ERR_STATE, SP_E_STATE_VALUE, SP_FIELD_GOAL,
                         "crowd: %s value %d is out of range for '%s' "
                         "(%d values)",
                         what, (int)s[v], sp_variable_name(c->domain, v),
                         sp_variable_value_count(c->domain, v));
  }
  return SP_OK;
}

SpStatus sp_crowd_add_goal(SpCrowd *c, const SpValue *condition, int priority,
                           const SpValue *when, int *index, SpError *err) {
  sp__error_clear(err);
  if (c->goal_count >= SP_CROWD_MAX_GOALS)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_GOAL,
                         "crowd: more than %d goals", SP_CROWD_MAX_GOALS);
  SpStatus st = check_state(c, condition, 1, "goal", err);
  if (st == SP_OK && when != NULL) st = check_state(c, when, 1, "when", err);
  if (st != SP_OK) return st;
  /* refusals of goals past REFUSED_LOW: one more word per agent every 32
   * goals, zeroed (adding a goal forgets every refusal anyway) */
  size_t words = c->goal_count + 1 > REFUSED_LOW
                     ? ((size_t)(c->goal_count + 1 - REFUSED_LOW) + 31u) / 32u
                     : 0;
  if (words > c->refused_words) {
    uint32_t *hi = sp__mem_alloc(c->alloc, sp_refused_bytes(c, words));
    if (hi == NULL) return sp__error_memory(err);
    if (c->refused_hi != NULL)
      sp__mem_free(c->alloc, c->refused_hi,
                   sp_refused_bytes(c, c->refused_words));
    c->refused_hi = hi;
    c->refused_words = words;
  }
  if (c->refused_hi != NULL)
    memset(c->refused_hi, 0, sp_refused_bytes(c, c->refused_words));
  /* sorted by priority, highest first; equal priorities keep their order */
  int at = c->goal_count;
  while (at > 0 && c->goals[at - 1].priority < priority) at--;
  for (int g = c->goal_count; g > at; g--) c->goals[g] = c->goals[g - 1];
  Goal *g = &c->goals[at];
  size_t m = (size_t)c->m;
  g->cond = c->goal_block + 2u * m * (size_t)c->goal_count;
  g->when = g->cond + m;
  memcpy(g->cond, condition, m);
  sp__goal_choices_drop(c, c->goal_count); /* left by a load of fewer goals */
  if (when != NULL)
    memcpy(g->when, when, m);
  else
    memset(g->when, SP_ANY, m);
  sp_goal_note(g, c->m);
  g->priority = priority;
  g->index = c->goal_count;
  if (index != NULL) *index = c->goal_count;
  c->goal_count++;
  sp__crowd_goals_changed(c);
  /* agents keep sorted indices: shift those below the new goal, and let
   * every agent without a plan look again */
  for (size_t i = 0; i < c->n; i++) {
    Agent *a = &c->agents[i];
    if (a->goal != GOAL_NONE && a->goal >= at) a->goal++;
    if (a->pursued != GOAL_NONE && a->pursued >= at) a->pursued++;
    a->refused = 0; /* and refused_hi, zeroed above */
    if (c->agents[i].phase == SP_PHASE_IDLE) {
      c->agents[i].flags |= F_NEED_GOAL;
      sp_agent_mark_choosing(c, i);
      c->agents[i].phase = SP_PHASE_THINKING;
    }
  }
  return SP_OK;
}

/* Goal `index` (order of sp_crowd_add_goal) takes `priority`: it moves to
 * its place in the sorted list (priority, highest first; among equals the
 * earlier added first), every agent's sorted goal indices follow it, the
 * refusals are forgotten (as after sp_crowd_add_goal) and idle agents look
 * again. A running plan yields to a goal now strictly higher as it would
 * to any (between steps, or mid-step when interruptible). */
SpStatus sp_crowd_set_priority(SpCrowd *c, int index, int priority,
                               SpError *err) {
  sp__error_clear(err);
  int from = 0;
  while (from < c->goal_count && c->goals[from].index != index) from++;
  if (from == c->goal_count)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: goal %d does not exist (%d goals)", index,
                         c->goal_count);
  Goal moved = c->goals[from];
  moved.priority = priority;
  for (int g = from; g + 1 < c->goal_count; g++) c->goals[g] = c->goals[g + 1];
  int to = 0, n = c->goal_count - 1;
  while (to < n &&
         (c->goals[to].priority > priority ||
          (c->goals[to].priority == priority && c->goals[to].index < index)))
    to++;
  for (int g = n; g > to; g--) c->goals[g] = c->goals[g - 1];
  c->goals[to] = moved;
  sp__crowd_goals_changed(c);
  /* old sorted position -> new one */
  uint8_t perm[SP_CROWD_MAX_GOALS];
  for (int g = 0; g < c->goal_count; g++) {
    int rest =
        g == from ? -1 : (g > from ? g - 1 : g); /* without the moved one */
    perm[g] = (uint8_t)(rest < 0 ? to : (rest >= to ? rest + 1 : rest));
  }
  if (c->refused_hi != NULL)
    memset(c->refused_hi, 0, sp_refused_bytes(c, c->refused_words));
  for (size_t i = 0; i < c->n; i++) {
    Agent *a = &c->agents[i];
    if (a->goal != GOAL_NONE) a->goal = perm[a->goal];
    if (a->pursued != GOAL_NONE) a->pursued = perm[a->pursued];
    a->refused = 0;
    if (c->agents[i].phase == SP_PHASE_IDLE) {
      c->agents[i].flags |= F_NEED_GOAL;
      sp_agent_mark_choosing(c, i);
      c->agents[i].phase = SP_PHASE_THINKING;
    }
  }
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* Agents                                                             */
/* ------------------------------------------------------------------ */

SpStatus sp_crowd_spawn(SpCrowd *c, const SpValue *state, int x, int y,
                        uint32_t home, size_t *agent, SpError *err) {
  sp__error_clear(err);
  if (c->n >= c->capacity && c->free_count == 0)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: full (capacity %zu)", c->capacity);
  SpStatus st = check_state(c, state, 0, "start", err);
  if (st != SP_OK) return st;
  const SpGrid *g = c->world->grid;
  if (x < 0 || y < 0 || x > 65534 || y > 65534 ||
      (g != NULL &&
       (!sp_grid_contains(g, x, y) || sp_grid_is_blocked(g, x, y))))
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: spawn cell (%d, %d) is outside the grid or "
                         "blocked",
                         x, y);
  if (home != SP_NO_PLACE && home >= c->world->place_count)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: home place %u does not exist", home);
  /* a freed slot first (last freed first), else a new one */
  size_t i = c->free_count > 0 ? c->free_slots[--c->free_count] : c->n++;
  Agent *a = &c->agents[i];
  memset(a, 0, sizeof *a);
  sp__agent_clear_refused(c, i);
  a->target = SP_NO_PLACE;
  a->home = home;
  a->cool_place = SP_NO_PLACE;
  a->x = (uint16_t)x;
  a->y = (uint16_t)y;
  a->tx = a->ty = 0xFFFF;
  a->step = STEP_NONE;
  a->goal = a->pursued = a->shun = GOAL_NONE;
  a->fail_action = -1;
  sp__detail_clear(c, i);
  if (c->announced != NULL) c->announced[i] = 0;
  c->agents[i].time = 0.0f;
  c->agents[i].phase = SP_PHASE_THINKING;
  c->agents[i].flags = F_NEED_GOAL;
  sp_agent_mark_choosing(c, i);
  memcpy(sp_population_state_at(c->pop, i), state, (size_t)c->m);
  sp_facts_sync(c, i); /* a tied variable holds the world's fact */
  sp_index_note(c, i);
  if (agent != NULL) *agent = i;
  return SP_OK;
}

/* How far ahead sp_crowd_set_var_many requests agents' rows. */
#define SET_AHEAD 8

SpStatus sp_crowd_set_var(SpCrowd *c, size_t agent, int var, int value,
                          SpError *err) {
  return sp_crowd_set_var_many(c, &agent, 1, var, value, err);
}

SpStatus sp_crowd_set_var_many(SpCrowd *c, const size_t *agents, size_t count,
                               int var, int value, SpError *err) {
  sp__error_clear(err);
  if (var < 0 || var >= c->m || value < 0 ||
      value >= sp_variable_value_count(c->domain, var))
    return sp__error_set(err, SP_ERR_STATE, SP_E_STATE_VALUE, SP_FIELD_START,
                         "crowd: variable %d value %d is out of range", var,
                         value);
  if (sp__sensor_of(c, var))
    return sp__error_set(err, SP_ERR_STATE, SP_E_STATE_VALUE, SP_FIELD_START,
                         "crowd: variable '%s' is a sensor's (the update sets "
                         "it)",
                         sp_variable_name(c->domain, var));
  int tie = sp__facts_tie_of(c, var);
  if (tie >= 0)
    return sp__error_set(err, SP_ERR_STATE, SP_E_STATE_VALUE, SP_FIELD_START,
                         "crowd: variable '%s' is the world's fact '%s' (set "
                         "it on the world)",
                         sp_variable_name(c->domain, var),
                         c->world->facts[c->ties[tie].fact].name);
  for (size_t k = 0; k < count; k++) {
    SpStatus st = sp__agent_check(c, agents[k], err);
    if (st != SP_OK) return st;
  }
  for (size_t k = 0; k < count; k++) {
    /* a script's list is in no order: request the agent a few ahead, so
     * its rows come in while this one is judged */
    if (k + SET_AHEAD < count) sp_agent_request(c, agents[k + SET_AHEAD]);
    SpValue *s = sp_population_state_at(c->pop, agents[k]);
    if (s[var] == value) continue;
    s[var] = (SpValue)value;
    sp__agent_changed(c, agents[k]);
  }
  return SP_OK;
}

SpStatus sp_crowd_set_state(SpCrowd *c, size_t agent, const SpValue *state,
                            SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__agent_check(c, agent, err);
  if (st == SP_OK) st = check_state(c, state, 0, "state", err);
  if (st != SP_OK) return st;
  /* a tied variable keeps the world's fact whatever the state says */
  SpValue *want = c->cw[0].state;
  memcpy(want, state, (size_t)c->m);
  for (int k = 0; k < c->tie_count; k++)
    want[c->ties[k].var] = c->ties[k].value;
  sp_facts_sync(c, agent);
  SpValue *s = sp_population_state_at(c->pop, agent);
  if (memcmp(s, want, (size_t)c->m) == 0) return SP_OK;
  memcpy(s, want, (size_t)c->m);
  sp__agent_changed(c, agent);
  return SP_OK;
}

SpStatus sp_crowd_rethink(SpCrowd *c, size_t agent, SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  size_t i = agent;
  Agent *a = &c->agents[i];
  if (!(c->agents[i].flags & F_NEED_GOAL)) {
    c->agents[i].flags |= F_NEED_GOAL;
    sp_agent_mark_choosing(c, i);
    a->why = c->agents[i].flags & F_HAS_PLAN ? SP_REASON_HIGHER_GOAL
                                             : SP_REASON_NONE;
    if (c->agents[i].phase == SP_PHASE_IDLE)
      c->agents[i].phase = SP_PHASE_THINKING;
  }
  return SP_OK;
}

void sp_crowd_set_selector(SpCrowd *c, int on) { c->selector = on != 0; }

SpStatus sp_crowd_select_goal(SpCrowd *c, size_t agent, int goal,
                              SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  size_t i = agent;
  Agent *a = &c->agents[i];
  if (!c->selector || c->agents[i].phase != SP_PHASE_SCRIPT ||
      a->step != STEP_NONE || (c->agents[i].flags & F_NEED_GOAL))
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu is not waiting for a goal (phase "
                         "%s)",
                         agent, sp_phase_name((SpPhase)c->agents[i].phase));
  if (goal < -1 || goal >= c->goal_count)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: goal %d does not exist (%d goals)", goal,
                         c->goal_count);
  int sorted = GOAL_NONE;
  for (int g = 0; g < c->goal_count && goal >= 0; g++)
    if (c->goals[g].index == goal) sorted = g;
  a->goal = (uint8_t)sorted;
  a->why = SP_REASON_SELECT;
  c->agents[i].flags |= F_NEED_GOAL;
  sp_agent_mark_choosing(c, i);
  c->agents[i].phase = SP_PHASE_THINKING;
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* Inspection                                                         */
/* ------------------------------------------------------------------ */

SpStatus sp_crowd_inspect(const SpCrowd *c, size_t agent, SpAgentInfo *out) {
  if (!sp_crowd_alive(c, agent)) return SP_ERR_STATE;
  const Agent *a = &c->agents[agent];
  int has = (c->agents[agent].flags & F_HAS_PLAN) != 0;
  out->phase = (SpPhase)c->agents[agent].phase;
  out->goal = a->goal == GOAL_NONE ? -1 : c->goals[a->goal].index;
  out->plan_length = has ? sp_population_plan_length(c->pop, agent) : -1;
  out->step = a->step == STEP_NONE ? -1 : a->step;
  out->action = a->step == STEP_NONE
                    ? -1
                    : sp_population_plan_step(c->pop, agent, a->step);
  out->steps_done = 0;
  for (int k = 0; has && k < out->plan_length; k++)
    out->steps_done += sp_crowd_step_done(c, agent, k);
  out->time_left =
      c->agents[agent].flags & F_FAIL ? 0.0f : sp_agent_saved_time(c, agent);
  out->x = a->x;
  out->y = a->y;
  out->target = a->target;
  out->target_x = a->tx == 0xFFFF ? -1 : a->tx;
  out->target_y = a->ty == 0xFFFF ? -1 : a->ty;
  out->home = a->home;
  out->last_reason = (SpReason)a->reason;
  out->last_action = a->fail_action >= 0 ? a->fail_action : -1;
  return SP_OK;
}

SpStatus sp_crowd_position(const SpCrowd *c, size_t agent, int *x, int *y) {
  if (!sp_crowd_alive(c, agent)) return SP_ERR_STATE;
  *x = c->agents[agent].x;
  *y = c->agents[agent].y;
  return SP_OK;
}

const SpValue *sp_crowd_state(const SpCrowd *c, size_t agent) {
  /* the tied bytes of an agent the update did not look at yet are
   * brought up to date: the state's value is the same, only its copy */
  if (agent < c->n) sp_facts_sync((SpCrowd *)c, agent);
  return sp_population_state_at(c->pop, agent);
}

SpStatus sp_crowd_plan(const SpCrowd *c, size_t agent, uint16_t *plan,
                       int *len) {
  *len = 0;
  if (!sp_crowd_alive(c, agent) || !(c->agents[agent].flags & F_HAS_PLAN))
    return SP_ERR_STATE;
  return sp_population_plan_of(c->pop, agent, plan, len);
}

int sp_crowd_step_done(const SpCrowd *c, size_t agent, int k) {
  const Agent *a = &c->agents[agent];
  if (k < a->cursor) return 1;
  int rel = k - a->cursor;
  return rel < DONE_WINDOW && ((a->done >> rel) & 1u);
}

SpFailure sp_crowd_last_failure(const SpCrowd *c, size_t agent) {
  SpFailure f = {SP_FAIL_NONE, -1, -1, -1, -1, 0};
  if (!sp_crowd_alive(c, agent)) return f;
  FailDetail d = sp__detail_get(c, agent);
  f.code = (SpFailureCode)d.fcode;
  f.action = d.faction;
  f.other_action =
      (f.code == SP_FAIL_NO_SETTER || f.code == SP_FAIL_UNREACHABLE)
          ? -1
          : d.fother; /* else: the blocker's values */
  f.variable = d.fvar;
  f.value = d.fvalue == 0xFF ? -1 : d.fvalue;
  return f;
}

SpStatus sp_crowd_no_plan_blocker(const SpCrowd *c, size_t agent,
                                  SpBlocker *out) {
  memset(out, 0, sizeof *out);
  out->variable = out->current = out->needed = -1;
  out->action = out->link_from = out->link_to = -1;
  if (agent >= c->n || c->agents[agent].phase == SP_PHASE_FREE)
    return SP_ERR_STATE;
  const Agent *a = &c->agents[agent];
  SpFailure f = sp_crowd_last_failure(c, agent);
  if (f.code == SP_FAIL_NONE) return SP_ERR_STATE;
  out->failure = f;
  out->variable = f.variable;
  out->needed = f.value;
  out->action = f.action;
  int count = f.variable >= 0 && f.variable < c->m
                  ? sp_variable_value_count(c->domain, f.variable)
                  : 0;
  uint16_t packed = (uint16_t)sp__detail_get(c, agent).fother;
  int now = packed & 0xFF, to = packed >> 8;
  if (count == 0 || f.value < 0 || f.value >= count) {
    out->variable = out->needed = -1; /* nothing to name (a loaded record) */
  } else if ((f.code == SP_FAIL_NO_SETTER || f.code == SP_FAIL_UNREACHABLE) &&
             packed != 0xFFFFu && now < count && to < count) {
    /* the blocker, recorded at the no_plan */
    out->kind = f.code == SP_FAIL_NO_SETTER ? SP_BLOCK_NOTHING_SETS
                                            : SP_BLOCK_NO_WAY_OUT;
    out->current = out->link_from = now;
    out->link_to = to;
    out->failure.other_action = -1;
    out->only_choice = sp__goal_only_choice(c, -2 - a->fail_action, out);
    return SP_OK;
  }
  out->kind = SP_BLOCK_ORDER; /* its value then is not kept: current -1 */
  out->only_choice = sp__goal_only_choice(c, -2 - a->fail_action, out);
  return SP_OK;
}

size_t sp_crowd_blocker_scratch_size(const SpCrowd *c) {
  return sp_blocker_scratch_size(c->domain) + (size_t)c->m;
}

SpStatus sp_crowd_last_blocker(SpCrowd *c, size_t agent, void *scratch,
                               SpBlocker *out, int *goal) {
  memset(out, 0, sizeof *out);
  *goal = -1;
  if (agent >= c->n || c->agents[agent].phase == SP_PHASE_FREE)
    return SP_ERR_STATE;
  const Agent *a = &c->agents[agent];
  if (a->reason != SP_REASON_NO_PLAN || a->fail_action > -2)
    return SP_ERR_STATE;
  int index = -2 - a->fail_action, g = 0;
  while (g < c->goal_count && c->goals[g].index != index) g++;
  if (g == c->goal_count) return SP_ERR_STATE;
  /* judged from the state now: plan again for the planner's reason
   * (out->kind SP_BLOCK_NONE when it has a plan now) */
  *goal = index;
  sp__goal_blocker(c, 0, g, sp_population_state_at(c->pop, agent), scratch, out,
                   NULL);
  return SP_OK;
}
