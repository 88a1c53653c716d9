/* bind.c: a step bound to a place, a kind of place or a cell: pick a place, reserve a slot or wait for one in turn, fail as unreachable; serial, on answers the advance pass found where it can. */
#include <math.h>

#include "sp_step.h"
#include "sp_wheel.h"
#include "sp_chase.h"
#include "sp_due.h"
#include "sp_loop.h"
#include "sp_places.h"
#include "sp_walk.h"

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
  uint32_t key = full_wait ? sp__queue_key(c, a, act, p) : SP_NO_PLACE;
  sp__step_end(c, s, plan, why, (int32_t)p, full_wait);
  if (why == SP_REASON_COOLDOWN && sp__step_gives_up(c, a)) {
    sp__step_after_failure(c, s, i); /* a cooldown counts as a failure */
    return;
  }
  if (key != SP_NO_PLACE) sp__queue_join(c, i, key, act, !again); /* in turn */
  if (!again)
    sp__agent_emit(s, i, SP_EV_BLOCKED, why, a->fail_action, a->goal,
                   (int32_t)p);
  c->agents[i].flags &= (uint8_t)~F_BIND;
  c->agents[i].phase = SP_PHASE_BLOCKED;
  sp_due_start(c, s, i, wait > 0.0f ? wait : c->opt.retry);
}

/* Unreachable: fail, cool the binding down, replan. */
static void unreachable(SpCrowd *c, Sink s, Plan *plan, uint32_t p) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  sp__step_stop(c, s, plan, SP_REASON_UNREACHABLE, (int32_t)p);
  sp__agent_emit(s, i, SP_EV_BLOCKED, SP_REASON_UNREACHABLE, a->fail_action,
                 a->goal, (int32_t)p);
  step_cool_down(c, a, p);
  sp__step_after_failure(c, s, i);
}

/* 1 when the agent's cell has a path to the target cell (the caller
 * judges its own moves: engine moves never compute a field). */
static int reachable_from(SpCrowd *c, size_t cell, uint32_t key, int x, int y) {
  const float *f = sp__world_field_get(c->world, key, x, y);
  return f != NULL && isfinite(f[cell]);
}

static int reachable(SpCrowd *c, Agent *a, uint32_t key, int x, int y) {
  if (c->world->grid == NULL || c->opt.engine_moves) return 1;
  return reachable_from(c, sp_grid_field_index(c->world->grid, a->x, a->y), key,
                        x, y);
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

/* The agent's side of a reservation made. */
static void hold_room(SpCrowd *c, size_t i, uint32_t p) {
  Agent *a = &c->agents[i];
  const Place *pl = &c->world->places[p];
  c->agents[i].flags = (uint8_t)((c->agents[i].flags | F_RESERVED) & ~F_BIND);
  a->target = p;
  a->tx = (uint16_t)pl->x;
  a->ty = (uint16_t)pl->y;
}

/* The reservation itself, for an agent no longer in a queue. */
static void take_room(SpCrowd *c, size_t i, uint32_t p) {
  atomic_fetch_add(&c->world->places[p].reserved, 1);
  hold_room(c, i, p);
}

static void take_place(SpCrowd *c, Sink s, Plan *plan, uint32_t p) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  int act = plan_act(plan, a->step);
  if (step_waiting_for_room(a, act)) { /* the wait is over: the step starts */
    if (step_defers_start(c, a, act))
      sp__agent_emit(s, i, SP_EV_STEP_STARTED, 0, act, a->goal, 0);
    a->reason = SP_REASON_NONE;
    a->fail_action = -1;
  }
  sp__queue_leave(c, i);
  take_room(c, i, p);
}

/* In a worker: binds the running step when the serial pass would bind it
 * the same way whatever the other agents do: every place looked at is
 * unlimited, the target is not cooling down, and its field is cached and
 * reaches the agent. Emits only the deferred step_started of an agent that
 * waited for room (take_place). Returns 0 to leave
 * the step to the serial pass. Fields are only read here, so their LRU
 * order counts the serial lookups alone. */
int sp__step_bind_fast(SpCrowd *c, Sink s, Plan *plan) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  const SpWorld *w = c->world;
  int act = plan_act(plan, a->step);
  const SpActionBehaviour *b = &c->beh[act];
  if ((c->agents[i].flags & F_RESERVED) || b->bind == SP_BIND_SCRIPT) return 0;
  /* a kind with a capacity somewhere is limited whichever place wins */
  if (b->bind == SP_BIND_KIND && sp_world_kind_limited(w, b->kind)) return 0;
  int saw_full, saw_cool, limited;
  uint32_t p = pick_place(c, a, b, &saw_full, &saw_cool, &limited);
  if (limited || p >= w->place_count || cooling(c, a, p)) return 0;
  if (w->grid != NULL && !c->opt.engine_moves) {
    const float *f = sp__world_field_peek(w, p);
    if (f == NULL || !isfinite(f[sp_grid_field_index(w->grid, a->x, a->y)]))
      return 0;
  }
  take_place(c, s, plan, p);
  return 1;
}

void sp__agent_fail_now(SpCrowd *c, Sink s, size_t i, SpReason why) {
  Plan plan = plan_view(c, s, i);
  sp__step_stop(c, s, &plan, why, -1);
  c->agents[i].flags &= (uint8_t)~F_BIND;
  sp__step_after_failure(c, s, i);
}

void sp__agent_arrive(SpCrowd *c, Sink s, size_t i) {
  Plan plan = plan_view(c, s, i);
  const Agent *a = &c->agents[i];
  c->agents[i].flags &= (uint8_t)~F_BIND;
  sp__agent_emit(s, i, SP_EV_ARRIVED, 0, plan_act(&plan, a->step), a->goal,
                 (int32_t)a->target);
  sp__step_start_acting(c, s, &plan);
}

void sp__agent_bind(SpCrowd *c, Sink s, size_t i) {
  if (c->chase != NULL && c->chase[i].on) {
    sp__agent_chase(c, s, i);
    return;
  }
  Agent *a = &c->agents[i];
  SpWorld *w = c->world;
  Plan plan = plan_view(c, s, i);
  int act = plan_act(&plan, a->step);
  const SpActionBehaviour *b = &c->beh[act];
  if ((c->agents[i].flags & F_RESERVED) ||
      (b->bind == SP_BIND_SCRIPT && a->target == SP_NO_PLACE)) {
    /* bound already: (re)compute the field and check the way */
    if (!reachable(c, a, sp__agent_field_key(c, a), a->tx, a->ty)) {
      unreachable(c, s, &plan, a->target);
      return;
    }
    c->agents[i].flags &= (uint8_t)~F_BIND;
    if (c->opt.engine_moves) sp__step_start_move(c, s, &plan);
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
  uint32_t key = limited ? sp__queue_key(c, a, act, p) : SP_NO_PLACE;
  if (key != SP_NO_PLACE && !sp__queue_may_enter(c, i, key)) {
    block(c, s, &plan, SP_REASON_FULL,
          b->bind == SP_BIND_KIND ? SP_NO_PLACE : p, 0.0f);
    return;
  }
  if (!reachable(c, a, p, pl->x, pl->y)) {
    unreachable(c, s, &plan, p);
    return;
  }
  take_place(c, s, &plan, p);
  if (c->opt.engine_moves) sp__step_start_move(c, s, &plan);
}

/* ------------------------------------------------------------------ */
/* Answers found in the advance pass                                  */
/* ------------------------------------------------------------------ */

/* Agent i's answer from its own rows, or 0 when the serial pass must read
 * them: nothing but its own visit changes what is read here (its plan,
 * cell, cool-down, reservation, queue turn: only its own join sets
 * `queued`), so of its choice only the reservations may move before the
 * serial pass. Its place p is the first of the nearest of those neither
 * cooling down nor full; `nearer` lists those it prefers to p. */
static int hint_of(const SpCrowd *c, size_t i, BindHint *h) {
  const Agent *a = &c->agents[i];
  const SpWorld *w = c->world;
  if ((c->agents[i].flags & F_RESERVED) || a->queued || c->opt.engine_moves ||
      (c->chase != NULL && c->chase[i].on))
    return 0;
  Plan plan = {c, i, NULL, 1, PLAN_UNREAD};
  int act = plan_act(&plan, a->step);
  if (act < 0 || step_waiting_for_room(a, act)) return 0;
  const SpActionBehaviour *b = &c->beh[act];
  if (b->bind != SP_BIND_KIND && b->bind != SP_BIND_PLACE &&
      b->bind != SP_BIND_HOME)
    return 0;
  int saw_full, saw_cool, limited;
  uint32_t p = pick_place(c, a, b, &saw_full, &saw_cool, &limited);
  if (p >= w->place_count || cooling(c, a, p)) return 0;
  h->agent = (uint32_t)i, h->place = p, h->limited = (uint8_t)limited;
  h->taken = 0, h->nearer = 0, h->kind = BIND_HINT_NO_KIND;
  h->cell =
      w->grid != NULL ? (uint32_t)sp_grid_field_index(w->grid, a->x, a->y) : 0;
  if (b->bind != SP_BIND_KIND) return 1;
  if (b->kind < 0 || b->kind >= (int)BIND_HINT_NO_KIND) return 0;
  h->kind = (uint16_t)b->kind;
  int dp = step_octile(a->x, a->y, w->places[p].x, w->places[p].y);
  int before = 1; /* a tie goes to the first in the list */
  unsigned j = 0;
  for (uint32_t k = sp_world_first_of_kind(w, b->kind); k != SP_NO_PLACE;
       k = w->places[k].next_of_kind, j++) {
    if (j == 64) return 0;
    if (k == p) {
      before = 0;
      continue;
    }
    if (cooling(c, a, k)) continue;
    int dd = step_octile(a->x, a->y, w->places[k].x, w->places[k].y);
    if (dd < dp || (dd == dp && before)) h->nearer |= (uint64_t)1 << j;
  }
  return 1;
}

/* Doubles worker w's list; 0 on memory. A worker grows it under the
 * world's allocator lock (wk >= 0). */
static int hint_grow(SpCrowd *c, CrowdWorker *w, int wk) {
  size_t nc = w->hint_cap < 256 ? 256 : w->hint_cap * 2;
  if (wk >= 0) pthread_mutex_lock(&c->world->alloc_lock);
  BindHint *p = sp__mem_realloc(c->alloc, w->hint, w->hint_cap * sizeof *p,
                                nc * sizeof *p);
  if (wk >= 0) pthread_mutex_unlock(&c->world->alloc_lock);
  if (p == NULL) return 0;
  w->hint = p;
  w->hint_cap = nc;
  return 1;
}

void sp__bind_hint_add(SpCrowd *c, int wk, size_t i) {
  CrowdWorker *w = &c->cw[wk < 0 ? 0 : wk];
  BindHint h;
  if (!hint_of(c, i, &h)) return;
  /* without room, the serial pass reads the agent itself */
  if (w->hint_count == w->hint_cap && !hint_grow(c, w, wk)) return;
  w->hint[w->hint_count++] = h;
}

void sp__bind_hint_prefetch(const SpCrowd *c, const BindHint *h) {
  const SpWorld *w = c->world;
  const float *f = w->grid != NULL ? sp__world_field_peek(w, h->place) : NULL;
  if (f != NULL) sp_prefetch(f + h->cell);
}

/* The answer holds when its place has room and every place preferred to
 * it is full: pick_place would choose it now. From there on, the steps of
 * sp__agent_bind for an agent with no reservation, no queue turn and no
 * wait for room, in the same order (the queue, then the field). */
int sp__agent_bind_hinted(SpCrowd *c, Sink s, BindHint *h) {
  SpWorld *w = c->world;
  const Place *pl = &w->places[h->place];
  if (full(pl)) return 0;
  unsigned j = 0;
  for (uint32_t k = h->nearer != 0 ? sp_world_first_of_kind(w, h->kind)
                                   : SP_NO_PLACE;
       k != SP_NO_PLACE && (h->nearer >> j) != 0;
       k = w->places[k].next_of_kind, j++)
    if (((h->nearer >> j) & 1u) && !full(&w->places[k])) return 0;
  size_t i = h->agent;
  int of_kind = h->kind != BIND_HINT_NO_KIND;
  uint32_t key = !h->limited ? SP_NO_PLACE
                 : of_kind   ? SP_QUEUE_KIND | h->kind
                             : h->place;
  if (key != SP_NO_PLACE && !sp__queue_may_enter(c, i, key)) {
    Plan plan = plan_view(c, s, i);
    block(c, s, &plan, SP_REASON_FULL, of_kind ? SP_NO_PLACE : h->place, 0.0f);
    return 1;
  }
  if (w->grid != NULL && !reachable_from(c, h->cell, h->place, pl->x, pl->y)) {
    Plan plan = plan_view(c, s, i);
    unreachable(c, s, &plan, h->place);
    return 1;
  }
  atomic_fetch_add(&w->places[h->place].reserved, 1);
  h->taken = 1;
  return 1;
}

void sp__bind_hint_commit(SpCrowd *c, int wk, const BindHint *h) {
  hold_room(c, h->agent, h->place);
  sp__wheel_settle(c, wk, h->agent);
}
