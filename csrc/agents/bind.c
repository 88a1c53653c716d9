/* bind.c: a step bound to a place, a kind of place or a cell: pick a place, reserve a slot or wait for one in turn, fail as unreachable; serial. */
#include <math.h>

#include "sp_step.h"

/* ------------------------------------------------------------------ */
/* Binding (serial)                                                   */
/* ------------------------------------------------------------------ */

static int cooling(const SpCrowd *c, const Agent *a, uint32_t p) {
  return p == a->cool_place && c->clock < (double)a->cool_until;
}

static int full(const Place *p) {
  return p->capacity > 0 && atomic_load(&((Place *)p)->reserved) >= p->capacity;
}

/* Waits without replanning: the step did not start after all. */
static void block(SpCrowd *c, Sink s, Plan *plan, SpReason why, uint32_t p,
                  float wait) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  /* a full place: one blocked when the wait begins, nothing per retry */
  int full_wait = why == SP_REASON_FULL;
  int act = plan_act(plan, a->step);
  int again = full_wait && step_waiting_for_room(a, act);
  uint32_t key = full_wait ? sp_queue_key(c, a, act, p) : SP_NO_PLACE;
  step_end(c, s, plan, why, (int32_t)p, full_wait);
  if (key != SP_NO_PLACE) sp_queue_join(c, i, key, act, !again); /* in turn */
  if (!again)
    sp_agent_emit(s, i, SP_EV_BLOCKED, why, a->fail_action, a->goal,
                  (int32_t)p);
  c->flags[i] &= (uint8_t)~F_BIND;
  c->phase[i] = SP_PHASE_BLOCKED;
  sp_due_start(c, i, wait > 0.0f ? wait : c->opt.retry);
}

/* Unreachable: fail, cool the binding down, replan. */
static void unreachable(SpCrowd *c, Sink s, Plan *plan, uint32_t p) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  step_stop(c, s, plan, SP_REASON_UNREACHABLE, (int32_t)p);
  sp_agent_emit(s, i, SP_EV_BLOCKED, SP_REASON_UNREACHABLE, a->fail_action,
                a->goal, (int32_t)p);
  step_cool_down(c, a, p);
  step_after_failure(c, s, i);
}

/* 1 when the agent's cell has a path to the target cell (the caller
 * judges its own moves: engine moves never compute a field). */
static int reachable(SpCrowd *c, Agent *a, uint32_t key, int x, int y) {
  if (c->world->grid == NULL || c->opt.engine_moves) return 1;
  const float *f = sp_world_field_get(c->world, key, x, y);
  if (f == NULL) return 0;
  return isfinite(f[sp_grid_field_index(c->world->grid, a->x, a->y)]);
}

/* The place a step binds: its own, the home, the caller's, or the
 * nearest place of its kind that is not cooling down and has room
 * (*saw_full / *saw_cool say why others were passed over). *limited is
 * set when a place looked at has a capacity: the choice then depends on
 * the reservations of the agents bound before this one. */
static uint32_t pick_place(const SpCrowd *c, const Agent *a,
                           const SpActionBehaviour *b, int *saw_full,
                           int *saw_cool, int *limited) {
  const SpWorld *w = c->world;
  uint32_t p = SP_NO_PLACE;
  *saw_full = *saw_cool = *limited = 0;
  if (b->bind == SP_BIND_PLACE) p = b->place;
  if (b->bind == SP_BIND_HOME) p = a->home;
  if (b->bind == SP_BIND_SCRIPT) p = a->target;
  if (b->bind == SP_BIND_KIND) {
    int best = INT32_MAX;
    for (uint32_t k = sp_world_first_of_kind(w, b->kind); k != SP_NO_PLACE;
         k = w->places[k].next_of_kind) {
      const Place *pl = &w->places[k];
      if (pl->capacity > 0) *limited = 1;
      if (cooling(c, a, (uint32_t)k)) {
        *saw_cool = 1;
        continue;
      }
      if (full(pl)) {
        *saw_full = 1;
        continue;
      }
      int dd = step_octile(a->x, a->y, pl->x, pl->y);
      if (dd < best) best = dd, p = (uint32_t)k;
    }
  }
  if (p < w->place_count && w->places[p].capacity > 0) *limited = 1;
  return p;
}

static void take_place(SpCrowd *c, Sink s, Plan *plan, uint32_t p) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  Place *pl = &c->world->places[p];
  int act = plan_act(plan, a->step);
  if (step_waiting_for_room(a, act)) { /* the wait is over: the step starts */
    if (step_defers_start(c, a, act))
      sp_agent_emit(s, i, SP_EV_STEP_STARTED, 0, act, a->goal, 0);
    a->reason = SP_REASON_NONE;
    a->fail_action = -1;
  }
  sp_queue_leave(c, i);
  atomic_fetch_add(&pl->reserved, 1);
  c->flags[i] = (uint8_t)((c->flags[i] | F_RESERVED) & ~F_BIND);
  a->target = p;
  a->tx = (uint16_t)pl->x;
  a->ty = (uint16_t)pl->y;
}

/* In a worker: binds the running step when the serial pass would bind it
 * the same way whatever the other agents do: every place looked at is
 * unlimited, the target is not cooling down, and its field is cached and
 * reaches the agent. Emits only the deferred step_started of an agent that
 * waited for room (take_place). Returns 0 to leave
 * the step to the serial pass. Fields are only read here, so their LRU
 * order counts the serial lookups alone. */
int step_bind_fast(SpCrowd *c, Sink s, Plan *plan) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  const SpWorld *w = c->world;
  int act = plan_act(plan, a->step);
  const SpActionBehaviour *b = &c->beh[act];
  if ((c->flags[i] & F_RESERVED) || b->bind == SP_BIND_SCRIPT) return 0;
  /* a kind with a capacity somewhere is limited whichever place wins */
  if (b->bind == SP_BIND_KIND && sp_world_kind_limited(w, b->kind)) return 0;
  int saw_full, saw_cool, limited;
  uint32_t p = pick_place(c, a, b, &saw_full, &saw_cool, &limited);
  if (limited || p >= w->place_count || cooling(c, a, p)) return 0;
  if (w->grid != NULL && !c->opt.engine_moves) {
    const float *f = sp_world_field_peek(w, p);
    if (f == NULL || !isfinite(f[sp_grid_field_index(w->grid, a->x, a->y)]))
      return 0;
  }
  take_place(c, s, plan, p);
  return 1;
}

void sp_agent_fail_now(SpCrowd *c, Sink s, size_t i, SpReason why) {
  Plan plan = plan_view(c, s, i);
  step_stop(c, s, &plan, why, -1);
  c->flags[i] &= (uint8_t)~F_BIND;
  step_after_failure(c, s, i);
}

void sp_agent_arrive(SpCrowd *c, Sink s, size_t i) {
  Plan plan = plan_view(c, s, i);
  const Agent *a = &c->agents[i];
  c->flags[i] &= (uint8_t)~F_BIND;
  sp_agent_emit(s, i, SP_EV_ARRIVED, 0, plan_act(&plan, a->step), a->goal,
                (int32_t)a->target);
  step_start_acting(c, s, &plan);
}

void sp_agent_bind(SpCrowd *c, Sink s, size_t i) {
  if (c->chase != NULL && c->chase[i].on) {
    sp_agent_chase(c, s, i);
    return;
  }
  Agent *a = &c->agents[i];
  SpWorld *w = c->world;
  Plan plan = plan_view(c, s, i);
  int act = plan_act(&plan, a->step);
  const SpActionBehaviour *b = &c->beh[act];
  if ((c->flags[i] & F_RESERVED) ||
      (b->bind == SP_BIND_SCRIPT && a->target == SP_NO_PLACE)) {
    /* bound already: (re)compute the field and check the way */
    if (!reachable(c, a, sp_agent_field_key(c, a), a->tx, a->ty)) {
      unreachable(c, s, &plan, a->target);
      return;
    }
    c->flags[i] &= (uint8_t)~F_BIND;
    if (c->opt.engine_moves) step_start_move(c, s, &plan);
    return;
  }
  int saw_full, saw_cool, limited;
  uint32_t p = pick_place(c, a, b, &saw_full, &saw_cool, &limited);
  if (b->bind == SP_BIND_KIND && p == SP_NO_PLACE && (saw_full || saw_cool)) {
    float wait = saw_cool && !saw_full
                     ? (float)((double)a->cool_until - c->clock)
                     : 0.0f;
    block(c, s, &plan, saw_full ? SP_REASON_FULL : SP_REASON_COOLDOWN,
          SP_NO_PLACE, wait);
    return;
  }
  if (p == SP_NO_PLACE || p >= w->place_count) {
    unreachable(c, s, &plan, SP_NO_PLACE);
    return;
  }
  if (cooling(c, a, p)) {
    block(c, s, &plan, SP_REASON_COOLDOWN, p,
          (float)((double)a->cool_until - c->clock));
    return;
  }
  Place *pl = &w->places[p];
  if (full(pl)) {
    block(c, s, &plan, SP_REASON_FULL, p, 0.0f);
    return;
  }
  /* first come, first served: those waiting longer for it go first */
  uint32_t key = limited ? sp_queue_key(c, a, act, p) : SP_NO_PLACE;
  if (key != SP_NO_PLACE && !sp_queue_may_enter(c, i, key)) {
    block(c, s, &plan, SP_REASON_FULL,
          b->bind == SP_BIND_KIND ? SP_NO_PLACE : p, 0.0f);
    return;
  }
  if (!reachable(c, a, p, pl->x, pl->y)) {
    unreachable(c, s, &plan, p);
    return;
  }
  take_place(c, s, &plan, p);
  if (c->opt.engine_moves) step_start_move(c, s, &plan);
}
