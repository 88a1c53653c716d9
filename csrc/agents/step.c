/* step.c: what one agent does in a frame: choose a goal, take a plan, pick the next ready step, walk, act and finish (binding to places: bind.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_conds.h"
#include "sp_step.h"
#include "sp_release.h"
#include "sp_wheel.h"
#include "sp_chase.h"
#include "sp_detail.h"
#include "sp_due.h"
#include "sp_facts.h"
#include "sp_goals.h"
#include "sp_loop.h"
#include "sp_space.h"
#include "sp_walk.h"

/* The rare paths of checks every step end makes stay out of line, so the
 * quick answers need no stack frame. */
#if defined(__GNUC__)
#define RARE static __attribute__((noinline))
#else
#define RARE static
#endif

/* ------------------------------------------------------------------ */
/* Events                                                             */
/* ------------------------------------------------------------------ */

/* Appends to the sink. A worker grows its buffer under the crowd's lock
 * (the allocator need not be thread safe); when growing fails the event
 * is counted as lost and the update reports SP_ERR_MEMORY with the
 * count (never silently). */
void sp__agent_emit(Sink s, size_t agent, SpEventKind kind, SpReason reason,
                    int action, int goal, int32_t detail) {
  SpCrowd *c = s.c;
  EventOut *o = step_out(s);
  if (o->ev_count == o->ev_cap) {
    size_t nc = o->ev_cap < 256 ? 256 : o->ev_cap * 2;
    /* (sp_step.h's step_say takes this path only to grow) */
    if (s.worker >= 0) pthread_mutex_lock(&c->world->alloc_lock);
    void *p = sp__mem_realloc(c->alloc, o->ev, o->ev_cap * sizeof(SpAgentEvent),
                              nc * sizeof(SpAgentEvent));
    if (s.worker >= 0) pthread_mutex_unlock(&c->world->alloc_lock);
    if (p == NULL) {
      atomic_fetch_add(&c->lost, 1);
      return;
    }
    o->ev = p;
    o->ev_cap = nc;
  }
  step_event_fill(c, &o->ev[o->ev_count++], agent, kind, reason, action, goal,
                  detail);
  o->kinds[kind]++;
}

/* ------------------------------------------------------------------ */
/* The plan at hand                                                   */
/* ------------------------------------------------------------------ */

/* The goal the planner gets is the condition itself: SP_ANY entries are
 * free, so the plan is a shortest one to ANY state matching the goal
 * (the planner never keeps a free variable at its start value unless that
 * is cheapest); a goal of sets plans its choice with the shortest plan
 * (sp__goal_for_planning). Every end-of-plan check uses the condition the
 * same way (sp_goal_met: any of its choices). */
static int goal_applies(const SpCrowd *c, int g, const SpValue *state) {
  return sp_goal_when(c, g, state) && !sp_goal_met(c, g, state);
}

/* Refusals (no plan) since the agent last chose: goals 0..15 in its
 * record, later goals in the crowd's refused_hi words. */
static int is_refused(const SpCrowd *c, size_t i, int g) {
  const Agent *a = &c->agents[i];
  if (a->shun == c->goals[g].index && c->clock < (double)a->cool_until)
    return 1; /* given up (back-off) */
  if (g < REFUSED_LOW) return (c->agents[i].refused >> g) & 1u;
  size_t k = (size_t)(g - REFUSED_LOW);
  return (c->refused_hi[i * c->refused_words + k / 32u] >> (k % 32u)) & 1u;
}

static void set_refused(SpCrowd *c, size_t i, int g) {
  if (g < REFUSED_LOW) {
    c->agents[i].refused |= (uint16_t)(1u << g);
    return;
  }
  size_t k = (size_t)(g - REFUSED_LOW);
  c->refused_hi[i * c->refused_words + k / 32u] |= 1u << (k % 32u);
}

int sp__higher_goal_search(const SpCrowd *c, size_t i, const SpValue *state) {
  const Agent *a = &c->agents[i];
  uint8_t order[SP_CROWD_MAX_GOALS];
  int prio[SP_CROWD_MAX_GOALS];
  const uint8_t *own = sp__agent_goal_order(c, i, order, prio);
  int mine = c->goals[a->goal].priority;
  for (int k = 0; own != NULL && k < c->goal_count; k++)
    if (own[k] == a->goal) mine = prio[k];
  for (int k = 0; k < c->goal_count; k++) {
    int g = own != NULL ? own[k] : k;
    if (g == a->goal || (own != NULL ? prio[k] : c->goals[g].priority) <= mine)
      break;
    if (is_refused(c, i, g)) continue;
    if (goal_applies(c, g, state)) return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Goals and plans                                                    */
/* ------------------------------------------------------------------ */

/* A rechecked goal whose `when` stopped holding: SP_EV_GOAL_DROPPED, and
 * the agent chooses again (a running step fails, when_lapsed). 1 when
 * dropped. */
RARE int drop_if_lapsed(SpCrowd *c, Sink s, size_t i, const SpValue *state) {
  Agent *a = &c->agents[i];
  if (!sp__goal_lapsed(c, a->goal, state)) return 0;
  sp__agent_emit(s, i, SP_EV_GOAL_DROPPED, SP_REASON_WHEN_LAPSED, -1, a->goal,
                 0);
  step_need_goal(c, i, SP_REASON_WHEN_LAPSED);
  return 1;
}

static inline int drop_lapsed(SpCrowd *c, Sink s, size_t i,
                              const SpValue *state) {
  if (c->selector || !sp_goal_rechecked(c, c->agents[i].goal)) return 0;
  return drop_if_lapsed(c, s, i, state);
}

/* The failures that back off: every failure of the step itself (a hook,
 * `run`, its conditions, an unreachable target or a failed move, a
 * target gone, the cooldown that follows a failed binding), not a wait
 * for room, a world change or a higher goal. Counted before fail_action
 * moves on. */
static int backs_off(SpReason why) {
  return why == SP_REASON_SCRIPT || why == SP_REASON_CONDITIONS ||
         why == SP_REASON_UNREACHABLE || why == SP_REASON_TARGET_GONE ||
         why == SP_REASON_COOLDOWN;
}

int sp__step_gives_up(const SpCrowd *c, const Agent *a) {
  if (a->fails == 0 || a->fail_action < 0 || a->goal == GOAL_NONE) return 0;
  const SpActionBehaviour *b = &c->beh[a->fail_action];
  return a->fails >= (b->max_failures > 0 ? b->max_failures : 3);
}

/* Counts a failure: one that backs off either starts a run (fails 1; its
 * reason becomes the agent's) or goes on the run of the same step, whose
 * reason stays the first failure's (the one gave_up names). `last` keeps
 * this failure's own reason until sp__step_after_failure. */
static void count_failure(Agent *a, SpReason why, int act) {
  a->last = (uint8_t)why;
  int same = backs_off(why) && a->fails > 0 && a->fail_action == act &&
             backs_off((SpReason)a->reason);
  if (backs_off(why))
    a->fails = (uint8_t)(same ? (a->fails < 255 ? a->fails + 1 : 255) : 1);
  if (!same) a->reason = (uint8_t)why;
}

/* Marks the step_failed event just emitted for agent i (when the buffer
 * had room) as the first failure of a run. */
static void mark_first(Sink s, size_t i) {
  SpCrowd *c = s.c;
  SpAgentEvent *ev = s.worker >= 0 ? c->cw[s.worker].ev : c->ev;
  size_t n = s.worker >= 0 ? c->cw[s.worker].ev_count : c->ev_count;
  if (n == 0 || ev[n - 1].agent != i || ev[n - 1].kind != SP_EV_STEP_FAILED)
    return;
  ev[n - 1].flags |= SP_EVENT_FIRST;
}

/* Counts the failure of step act (reason why) and says so with a
 * step_failed event unless `quiet`. */
static void step_failed(SpCrowd *c, Sink s, size_t i, SpReason why, int act,
                        int32_t detail, int quiet) {
  Agent *a = &c->agents[i];
  count_failure(a, why, act);
  if (quiet) return;
  sp__agent_emit(s, i, SP_EV_STEP_FAILED, why, act, a->goal, detail);
  if (backs_off(why) && a->fails == 1) mark_first(s, i);
}

/* Ends the running step without its effect; says so unless `quiet`. */
void sp__step_end(SpCrowd *c, Sink s, Plan *plan, SpReason why, int32_t detail,
                  int quiet) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  int act = plan_act(plan, a->step);
  sp_chase_end(c, i);
  step_failed(c, s, i, why, act, detail, quiet);
  if (c->announced != NULL && c->announced[i]) { /* the game moves it still */
    c->announced[i] = 0;
    sp__agent_emit(s, i, SP_EV_MOVE_CANCELLED, why, act, a->goal,
                   (int32_t)a->target);
  }
  sp__agent_release_by(c, s, i);
  a->fail_action = (int16_t)act;
  a->step = STEP_NONE;
  a->target = SP_NO_PLACE;
  a->tx = a->ty = 0xFFFF;
}

void sp__step_stop(SpCrowd *c, Sink s, Plan *plan, SpReason why,
                   int32_t detail) {
  sp__step_end(c, s, plan, why, detail, 0);
}

/* After a failed step: the agent replans at once; or, at the k-th
 * failure in a row of the same step, waits retry * 2^(k-2) seconds first
 * (capped at SP_BACKOFF_CAP retries; blocked, why STEP_FAILED); or, at
 * the step's max_failures-th, sets its goal aside for give_up_for
 * seconds (SP_EV_GAVE_UP) and takes the next one. */
void sp__step_after_failure(SpCrowd *c, Sink s, size_t i) {
  Agent *a = &c->agents[i];
  int act = a->fail_action;
  if (a->fails == 0 || act < 0 || !backs_off((SpReason)a->reason) ||
      a->goal == GOAL_NONE) {
    step_need_goal(c, i, SP_REASON_STEP_FAILED);
    return;
  }
  const SpActionBehaviour *b = &c->beh[act];
  int most = b->max_failures > 0 ? b->max_failures : 3;
  if (a->fails >= most) {
    a->shun = (uint8_t)c->goals[a->goal].index;
    a->cool_place = SP_NO_PLACE; /* one cooldown at a time (sp_agents.h) */
    a->cool_until =
        (float)(c->clock + (b->give_up_for > 0.0f ? b->give_up_for : 30.0f));
    a->fails = 0;
    /* the reason is the run's first failure's; a caller's failure keeps
     * its detail (its message) in the time slot, when this one is too */
    int32_t detail =
        a->reason == SP_REASON_SCRIPT && a->last == SP_REASON_SCRIPT
            ? sp__agent_fail_detail(c, i)
            : 0;
    sp__agent_emit(s, i, SP_EV_GAVE_UP, (SpReason)a->reason, act, a->goal,
                   detail);
    /* a selector crowd's caller chooses the next goal */
    step_need_goal(c, i, c->selector ? SP_REASON_NONE : SP_REASON_STEP_FAILED);
    return;
  }
  if (a->fails < 2) {
    step_need_goal(c, i, SP_REASON_STEP_FAILED);
    return;
  }
  float wait =
      c->opt.retry * (float)(1u << (a->fails - 2 < 16 ? a->fails - 2 : 16));
  if (wait > c->opt.retry * SP_BACKOFF_CAP)
    wait = c->opt.retry * SP_BACKOFF_CAP;
  c->agents[i].flags &= (uint8_t)~F_BIND;
  a->why = SP_REASON_STEP_FAILED; /* replan when the wait is over */
  c->agents[i].phase = SP_PHASE_BLOCKED;
  sp_due_start(c, s, i, wait); /* a due time (wheel.c) */
}

/* Tries goals from the agent's `from`-th down (its order: the crowd's,
 * or its own priorities'); writes the first candidate as the population
 * goal. Without one the agent idles, saying why. */
static int next_candidate(SpCrowd *c, Sink s, size_t i, int from,
                          int refused_any) {
  Agent *a = &c->agents[i];
  SpValue *state = sp_population_state_at(c->pop, i);
  int any_when = 0, any_sat = 0;
  uint8_t order[SP_CROWD_MAX_GOALS];
  int prio[SP_CROWD_MAX_GOALS];
  const uint8_t *own = c->own_count == 0 /* its own order, if any */
                           ? NULL
                           : sp__agent_goal_order(c, i, order, prio);
  for (int k = 0; k < c->goal_count; k++) {
    int g = own != NULL ? own[k] : k;
    if (!sp_goal_when(c, g, state)) continue;
    any_when = 1;
    if (sp_goal_met(c, g, state)) {
      any_sat = 1;
      continue;
    }
    if (k < from || is_refused(c, i, g)) continue;
    sp__goal_for_planning(c, s.worker, i, g);
    a->goal = (uint8_t)g;
    c->agents[i].flags |= F_PLANNING;
    sp_agent_mark_choosing(c, i);
    c->agents[i].phase = SP_PHASE_THINKING;
    return 1;
  }
  SpReason r = refused_any ? SP_REASON_NO_PLAN_ANY
               : any_sat   ? SP_REASON_ALL_SATISFIED
               : any_when  ? SP_REASON_NO_PLAN_ANY
                           : SP_REASON_NO_GOAL;
  a->goal = GOAL_NONE;
  a->pursued = GOAL_NONE;
  c->agents[i].phase = SP_PHASE_IDLE;
  a->why = SP_REASON_NONE;
  sp__agent_emit(s, i, SP_EV_IDLE, r, -1, -1, 0);
  return 0;
}

int32_t sp__agent_fail_detail(const SpCrowd *c, size_t i) {
  int32_t d;
  memcpy(&d, &c->agents[i].time, sizeof d);
  return d;
}

/* Selector crowds: the agent waits for the caller's goal. */
static int ask_caller(SpCrowd *c, Sink s, size_t i) {
  Agent *a = &c->agents[i];
  a->goal = GOAL_NONE;
  a->why = SP_REASON_NONE;
  c->agents[i].phase = SP_PHASE_SCRIPT;
  sp__agent_emit(s, i, SP_EV_WAITING, SP_REASON_SELECT, -1, -1, 0);
  return 0;
}

/* Selector crowds: plans the goal the caller chose (why SELECT), or the
 * same goal again after a world change or a failed step; otherwise asks
 * the caller. A chosen goal that holds, or none, leaves the agent idle. */
static int choose_selected(SpCrowd *c, Sink s, size_t i) {
  Agent *a = &c->agents[i];
  SpReason why = (SpReason)a->why;
  int again = why == SP_REASON_WORLD_CHANGED || why == SP_REASON_STEP_FAILED ||
              why == SP_REASON_MIGRATED;
  if (a->goal == GOAL_NONE || (why != SP_REASON_SELECT && !again)) {
    if (why != SP_REASON_SELECT) return ask_caller(c, s, i);
    a->pursued = GOAL_NONE;
    c->agents[i].phase = SP_PHASE_IDLE;
    a->why = SP_REASON_NONE;
    sp__agent_emit(s, i, SP_EV_IDLE, SP_REASON_NO_GOAL, -1, -1, 0);
    return 0;
  }
  const SpValue *state = sp_population_state_at(c->pop, i);
  if (sp_goal_met(c, a->goal, state)) {
    if (again) return ask_caller(c, s, i); /* the change reached it */
    a->goal = a->pursued = GOAL_NONE;
    c->agents[i].phase = SP_PHASE_IDLE;
    a->why = SP_REASON_NONE;
    sp__agent_emit(s, i, SP_EV_IDLE, SP_REASON_ALL_SATISFIED, -1, -1, 0);
    return 0;
  }
  if (why == SP_REASON_SELECT) a->why = SP_REASON_NONE;
  sp__goal_for_planning(c, s.worker, i, a->goal);
  c->agents[i].flags |= F_PLANNING;
  sp_agent_mark_choosing(c, i);
  c->agents[i].phase = SP_PHASE_THINKING;
  return 1;
}

int sp__agent_choose(SpCrowd *c, Sink s, size_t i) {
  Agent *a = &c->agents[i];
  sp_facts_sync(c, i);
  int failed = (c->agents[i].flags & F_FAIL) != 0;
  /* the running step ends here, so a binding it asked for is void too (a
   * target the caller gave, then a world change, in one frame) */
  c->agents[i].flags &=
      (uint8_t) ~(F_NEED_GOAL | F_FINISH | F_FAIL | F_STOP | F_BIND);
  /* a step the caller failed says so, even when a world change or a
   * higher goal drops the plan in the same frame */
  Plan plan = plan_view(c, s, i);
  if (a->step != STEP_NONE && failed) {
    sp__step_stop(c, s, &plan, SP_REASON_SCRIPT, sp__agent_fail_detail(c, i));
    if (c->agents[i].flags & F_HAS_PLAN) {
      sp__step_after_failure(c, s, i); /* it may back off or give the goal up */
      if (c->agents[i].phase == SP_PHASE_BLOCKED) return 0;
      c->agents[i].flags &= (uint8_t)~F_NEED_GOAL; /* chosen now */
    }
  } else if (a->step != STEP_NONE)
    sp__step_stop(c, s, &plan, (SpReason)a->why, 0);
  c->agents[i].flags &= (uint8_t)~F_HAS_PLAN;
  sp__agent_clear_refused(c, i);
  if (c->selector) return choose_selected(c, s, i);
  return next_candidate(c, s, i, 0, 0);
}

int sp__agent_take_plan(SpCrowd *c, Sink s, size_t i) {
  Agent *a = &c->agents[i];
  c->agents[i].flags &= (uint8_t)~F_PLANNING;
  int g = a->goal;
  if (sp_population_planned_at(c->pop, i)) {
    if (a->reason == SP_REASON_NO_PLAN &&
        a->fail_action == -2 - c->goals[g].index) {
      a->reason = SP_REASON_NONE; /* the goal that had no plan has one */
      a->fail_action = -1;
    }
    c->agents[i].flags |= F_HAS_PLAN;
    if (c->reads != NULL)
      sp__facts_plan_taken(c, i, c->cw[s.worker < 0 ? 0 : s.worker].plan);
    a->cursor = 0;
    a->done = 0;
    a->step = STEP_NONE;
    c->agents[i].phase = SP_PHASE_THINKING;
    if (a->pursued != g)
      step_say(s, i, SP_EV_GOAL_CHOSEN, SP_REASON_NONE, -1, g, 0);
    a->pursued = (uint8_t)g;
    Plan plan = plan_view(c, s, i);
    int len = plan_len(&plan);
    if (a->why != SP_REASON_NONE)
      step_say(s, i, SP_EV_REPLANNED, (SpReason)a->why, -1, g, len);
    else
      step_say(s, i, SP_EV_PLANNED, SP_REASON_NONE, -1, g, len);
    a->why = SP_REASON_NONE;
    return 0;
  }
  /* the population keeps only the code: plan once more for the record
   * (every choice of a goal of sets) */
  SpFailureCode code = SP_FAIL_NONE;
  (void)sp_population_status_of(c->pop, i, &code, NULL);
  CrowdWorker *w = &c->cw[s.worker < 0 ? 0 : s.worker];
  SpFailure f = {code, -1, -1, -1, -1, 0};
  SpBlocker b;
  FailDetail d;
  if (sp__goal_blocker(c, s.worker, g, sp_population_state_at(c->pop, i),
                       w->blocker, &b, &f) != SP_BLOCK_ORDER) {
    /* a missing link: record the blocker (sp_agents.h, FailDetail) */
    d.fcode = (uint8_t)(b.kind == SP_BLOCK_NOTHING_SETS ? SP_FAIL_NO_SETTER
                                                        : SP_FAIL_UNREACHABLE);
    d.faction = (int16_t)b.action;
    d.fother = (int16_t)(uint16_t)(b.current | (b.link_to << 8));
    d.fvar = (int16_t)b.variable;
    d.fvalue = (uint8_t)b.needed;
  } else {
    d.fcode = (uint8_t)f.code;
    d.faction = (int16_t)f.action;
    d.fother =
        (int16_t)(f.code == SP_FAIL_NO_SETTER || f.code == SP_FAIL_UNREACHABLE
                      ? -1
                      : f.other_action);
    d.fvar = (int16_t)f.variable;
    d.fvalue = (uint8_t)(f.value < 0 ? 0xFF : f.value);
  }
  (void)sp__detail_put(c, s.worker, i, d); /* kept when memory allows */
  a->reason = SP_REASON_NO_PLAN;
  /* no action failed: fail_action names the goal (see sp_agents.h) */
  a->fail_action = (int16_t)(-2 - c->goals[g].index);
  sp__agent_emit(s, i, SP_EV_NO_PLAN, SP_REASON_NO_PLAN, -1, g,
                 (int32_t)f.code);
  if (c->selector) return ask_caller(c, s, i);
  set_refused(c, i, g);
  uint8_t order[SP_CROWD_MAX_GOALS];
  int prio[SP_CROWD_MAX_GOALS];
  const uint8_t *own = sp__agent_goal_order(c, i, order, prio);
  int rank = g;
  for (int k = 0; own != NULL && k < c->goal_count; k++)
    if (own[k] == g) rank = k;
  return next_candidate(c, s, i, rank + 1, 1);
}

/* ------------------------------------------------------------------ */
/* Steps                                                              */
/* ------------------------------------------------------------------ */

static void normalize(Agent *a) {
  while (a->done & 1u) {
    a->done >>= 1;
    a->cursor++;
  }
}

/* 1 when doing plan position p now and then the other pending steps in
 * plan order (skipping those whose effect holds) reaches the goal. With
 * p < 0 only the pending steps are replayed. */
static int replay_ok(SpCrowd *c, Plan *plan, int p, SpValue *st) {
  const SpDomain *d = c->domain;
  Agent *a = &c->agents[plan->i];
  int len = plan_len(plan);
  if (p >= 0) apply_effect(d, plan_act(plan, p), st);
  for (int k = a->cursor; k < len; k++) {
    int rel = k - a->cursor;
    if (k == p || (rel < DONE_WINDOW && (a->done >> rel) & 1u)) continue;
    if (k == a->step) continue;
    int act = plan_id(plan, k);
    if (effect_holds(d, act, st)) continue;
    if (!conds_hold(d, act, st)) return 0;
    apply_effect(d, act, st);
  }
  return sp_goal_met(c, a->goal, st);
}

int sp__agent_plan_holds(SpCrowd *c, size_t i, SpValue *scratch) {
  Agent *a = &c->agents[i];
  if (!(c->agents[i].flags & F_HAS_PLAN) || a->goal == GOAL_NONE) return 1;
  memcpy(scratch, sp_population_state_at(c->pop, i), (size_t)c->m);
  Sink serial = {c, -1};
  Plan plan = plan_view(c, serial, i);
  if (a->step != STEP_NONE) {
    int act = plan_act(&plan, a->step);
    if (!conds_hold(c->domain, act, scratch)) return 0;
    apply_effect(c->domain, act, scratch);
  }
  return replay_ok(c, &plan, -1, scratch);
}

/* After a state change: an idle agent looks for a goal again; one whose
 * remaining plan no longer works replans (world_changed). With a
 * selector, an answer the caller gave for the old state and that waits
 * for the next update is dropped: the agent is asked again. */
void sp__agent_changed(SpCrowd *c, size_t i) {
  Agent *a = &c->agents[i];
  if (c->agents[i].flags & F_NEED_GOAL) {
    if (c->selector && a->why == SP_REASON_SELECT) {
      a->goal = GOAL_NONE;
      a->why = SP_REASON_NONE;
    }
    return;
  }
  if (c->agents[i].phase == SP_PHASE_IDLE) {
    c->agents[i].flags |= F_NEED_GOAL;
    sp_agent_mark_choosing(c, i);
    a->why = SP_REASON_NONE;
    c->agents[i].phase = SP_PHASE_THINKING;
    return;
  }
  if (!sp__agent_plan_holds(c, i, c->cw[0].state)) {
    c->agents[i].flags |= F_NEED_GOAL;
    sp_agent_mark_choosing(c, i);
    a->why = SP_REASON_WORLD_CHANGED;
  }
}

/* Straight-line estimate of where a step would send the agent. */
static int step_distance(SpCrowd *c, const Agent *a, int act) {
  const SpActionBehaviour *b = &c->beh[act];
  const SpWorld *w = c->world;
  uint32_t p = SP_NO_PLACE;
  if (b->bind == SP_BIND_PLACE) p = b->place;
  if (b->bind == SP_BIND_HOME) p = a->home;
  if (p != SP_NO_PLACE && p < w->place_count)
    return step_octile(a->x, a->y, w->places[p].x, w->places[p].y);
  if (b->bind == SP_BIND_KIND) {
    int best = INT32_MAX;
    for (uint32_t k = sp_world_first_of_kind(w, b->kind); k != SP_NO_PLACE;
         k = w->places[k].next_of_kind) {
      int dd = step_octile(a->x, a->y, w->places[k].x, w->places[k].y);
      if (dd < best) best = dd;
    }
    return best;
  }
  return 0;
}

static void complete_step(SpCrowd *c, Sink s, Plan *plan) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  int act = plan_act(plan, a->step);
  SpValue *state = sp_population_state_at(c->pop, i);
  if (!conds_hold(c->domain, act, state)) {
    sp__step_stop(c, s, plan, SP_REASON_CONDITIONS, 0);
    sp__step_after_failure(c, s, i);
    return;
  }
  apply_effect(c->domain, act, state);
  a->fails = 0; /* the back-off starts over */
  a->done |= 1u << (a->step - a->cursor);
  normalize(a);
  sp__agent_release_by(c, s, i);
  sp_chase_end(c, i);
  step_emit(s, i, SP_EV_STEP_FINISHED, act, a->goal);
  a->step = STEP_NONE;
  a->target = SP_NO_PLACE;
  a->tx = a->ty = 0xFFFF;
  c->agents[i].phase = SP_PHASE_THINKING;
}

void sp__step_start_acting(SpCrowd *c, Sink s, Plan *plan) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  int act = plan_act(plan, a->step);
  const SpActionBehaviour *b = &c->beh[act];
  if (b->scripted) {
    c->agents[i].phase = SP_PHASE_SCRIPT;
    sp__agent_emit(s, i, SP_EV_WAITING, 0, act, a->goal, 0);
    return;
  }
  sp_due_start(c, s, i, step_draw(c, b, i, a->draws)); /* wheel.c */
  c->agents[i].phase = SP_PHASE_ACTING;
}

/* Engine moves: the bound step's target goes to the caller (SP_EV_MOVE)
 * and the agent waits in SP_PHASE_MOVING; an agent on its target cell
 * already arrives at once. Returns 1 when it arrived (the step acts). */
int sp__step_start_move(SpCrowd *c, Sink s, Plan *plan) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  int act = plan_act(plan, a->step);
  c->agents[i].flags &= (uint8_t)~F_BIND;
  if (a->x == a->tx && a->y == a->ty) {
    sp__agent_emit(s, i, SP_EV_ARRIVED, 0, act, a->goal, (int32_t)a->target);
    sp__step_start_acting(c, s, plan);
    return 1;
  }
  c->agents[i].phase = SP_PHASE_MOVING;
  c->agents[i].time = 0.0f;
  sp__agent_announce_move(c, s, i, act, 0);
  return 0;
}

/* The last event the sink holds (NULL when none could be kept). */
static SpAgentEvent *last_event(Sink s, size_t before) {
  SpCrowd *c = s.c;
  if (s.worker >= 0) {
    CrowdWorker *w = &c->cw[s.worker];
    return w->ev_count > before ? &w->ev[w->ev_count - 1] : NULL;
  }
  return c->ev_count > before ? &c->ev[c->ev_count - 1] : NULL;
}

void sp__agent_announce_move(SpCrowd *c, Sink s, size_t i, int act,
                             int repeated) {
  const Agent *a = &c->agents[i];
  size_t before = s.worker >= 0 ? c->cw[s.worker].ev_count : c->ev_count;
  if (c->announced != NULL) c->announced[i] = 1;
  sp__agent_emit(s, i, SP_EV_MOVE, 0, act, a->goal,
                 a->target == SP_NO_PLACE ? -1 : (int32_t)a->target);
  SpAgentEvent *e = last_event(s, before);
  if (repeated && e != NULL) e->flags |= SP_EVENT_REPEATED;
}

void sp__agent_announce_all(SpCrowd *c) {
  Sink serial = {c, -1};
  for (size_t i = 0; i < c->n; i++) {
    if (c->agents[i].phase != SP_PHASE_MOVING ||
        (c->agents[i].flags & (F_FINISH | F_FAIL)))
      continue;
    Plan plan = plan_view(c, serial, i);
    sp__agent_announce_move(c, serial, i, plan_act(&plan, c->agents[i].step),
                            1);
  }
}

/* Engine moves: the caller's answer (sp_crowd_arrived or
 * sp_crowd_move_failed). A failed move fails the step as an unreachable
 * target does, with the caller's detail. Returns 1 when the step now
 * acts. */
static int end_move(SpCrowd *c, Sink s, Plan *plan) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  if (c->agents[i].flags & F_FINISH) {
    c->agents[i].flags &= (uint8_t) ~(F_FINISH | F_BIND);
    if (c->chase != NULL && c->chase[i].on) {
      /* an agent target: the agent stays where the game put it */
      if (!sp__chase_target_live(c, i)) {
        sp__agent_fail_now(c, s, i, SP_REASON_TARGET_GONE);
        return 0;
      }
      c->chase[i].on = 0;
    } else {
      a->x = a->tx, a->y = a->ty;
      sp_index_note(c, i);
    }
    if (c->announced != NULL) c->announced[i] = 0;
    sp__agent_emit(s, i, SP_EV_ARRIVED, 0, plan_act(plan, a->step), a->goal,
                   (int32_t)a->target);
    sp__step_start_acting(c, s, plan);
    return 1;
  }
  if (!(c->agents[i].flags & F_FAIL)) return 0;
  c->agents[i].flags &= (uint8_t) ~(F_FAIL | F_BIND);
  if (c->announced != NULL) c->announced[i] = 0; /* the game said so */
  uint32_t p = a->target;
  sp__step_stop(c, s, plan, SP_REASON_SCRIPT, sp__agent_fail_detail(c, i));
  if (p != SP_NO_PLACE) {
    step_cool_down(c, a, p);
  }
  sp__step_after_failure(c, s, i);
  return 0;
}

enum { SEL_NOTHING = 0, SEL_BIND, SEL_GO };

/* Picks the next step among the ready ones (conditions hold, and the rest
 * of the plan still works after it), nearest target first, plan order
 * among equals; skips steps whose effect holds. */
static int select_next(SpCrowd *c, Sink s, Plan *plan, SpValue *scratch) {
  size_t i = plan->i;
  Agent *a = &c->agents[i];
  const SpDomain *d = c->domain;
  const SpValue *state = sp_population_state_at(c->pop, i);
  int len = plan_len(plan);
  /* skip only the next step in plan order: a later step whose effect
   * holds now may still be needed once an earlier one undoes it */
  normalize(a);
  while (a->cursor < len) {
    int act = plan_id(plan, a->cursor);
    if (!effect_holds(d, act, state)) break;
    a->done |= 1u;
    sp__agent_emit(s, i, SP_EV_STEP_SKIPPED, 0, act, a->goal, 0);
    normalize(a);
  }
  if (a->cursor >= len) {
    if (sp_goal_met(c, a->goal, state)) {
      step_say(s, i, SP_EV_GOAL_REACHED, SP_REASON_NONE, -1, a->goal, 0);
      step_need_goal(c, i, SP_REASON_NONE);
    } else {
      step_need_goal(c, i, SP_REASON_WORLD_CHANGED);
    }
    return SEL_NOTHING;
  }
  if (step_higher_goal(c, i, state)) {
    step_need_goal(c, i, SP_REASON_HIGHER_GOAL);
    return SEL_NOTHING;
  }
  if (drop_lapsed(c, s, i, state)) return SEL_NOTHING;
  int pick = -1;
  int first = plan_id(plan, a->cursor);
  if (!c->any_binding && conds_hold(d, first, state)) {
    pick = a->cursor;
  } else {
    int best = INT32_MAX;
    for (int k = 0; k < DONE_WINDOW && a->cursor + k < len; k++) {
      if ((a->done >> k) & 1u) continue;
      int act = plan_id(plan, a->cursor + k);
      if (!conds_hold(d, act, state)) continue;
      int dist = step_distance(c, a, act);
      if (dist >= best) continue;
      memcpy(scratch, state, (size_t)c->m);
      if (k > 0 && !replay_ok(c, plan, a->cursor + k, scratch)) continue;
      best = dist;
      pick = a->cursor + k;
    }
  }
  if (pick < 0) {
    step_failed(c, s, i, SP_REASON_CONDITIONS, first, 0, 0);
    a->fail_action = (int16_t)first;
    sp__step_after_failure(c, s, i);
    return SEL_NOTHING;
  }
  int act = plan_id(plan, pick);
  a->step = (uint16_t)pick;
  a->draws++;
  /* a waiting agent's step starts when it gets in (bound): said there */
  if (!step_defers_start(c, a, act))
    step_emit(s, i, SP_EV_STEP_STARTED, act, a->goal);
  switch (c->beh[act].bind) {
  case SP_BIND_NONE: sp__step_start_acting(c, s, plan); return SEL_GO;
  case SP_BIND_SCRIPT:
    c->agents[i].phase = SP_PHASE_SCRIPT;
    a->target = SP_NO_PLACE;
    a->tx = a->ty = 0xFFFF;
    sp__agent_emit(s, i, SP_EV_WAITING, 0, act, a->goal, 0);
    return SEL_NOTHING;
  default:
    c->agents[i].phase = SP_PHASE_WALKING;
    c->agents[i].flags |= F_BIND;
    sp_walk_start(c, i); /* its first cell is due one cell's time on */
    return SEL_BIND;
  }
}

/* ------------------------------------------------------------------ */
/* Interruptible steps                                                */
/* ------------------------------------------------------------------ */

int sp__agent_interrupt(SpCrowd *c, Sink s, size_t i) {
  if (!sp__agent_interruptible_now(c, i)) return 0;
  const SpValue *state = sp_population_state_at(c->pop, i);
  if (step_higher_goal(c, i, state)) {
    step_need_goal(c, i, SP_REASON_HIGHER_GOAL);
    return 1;
  }
  return drop_lapsed(c, s, i, state);
}

/* ------------------------------------------------------------------ */
/* One frame of one agent                                             */
/* ------------------------------------------------------------------ */

/* Workers: binds the running step where the order of agents cannot
 * matter; returns 0 to leave it to sp__agent_bind. */

int sp__agent_advance(SpCrowd *c, Sink s, size_t i, int walked) {
  Agent *a = &c->agents[i];
  CrowdWorker *w = &c->cw[s.worker < 0 ? 0 : s.worker];
  sp_facts_sync(c, i); /* its steps and goals read the facts of now */
  Plan plan = plan_view(c, s, i);
  int guard = c->action_count + 4;
  for (int round = 0; round < guard; round++) {
    switch (c->agents[i].phase) {
    case SP_PHASE_ACTING:
      if (round == 0) {
        int act = plan_act(&plan, a->step);
        if (c->beh[act].interruptible &&
            step_higher_goal(c, i, sp_population_state_at(c->pop, i))) {
          step_need_goal(c, i, SP_REASON_HIGHER_GOAL);
          return 0;
        }
        if (c->beh[act].interruptible &&
            drop_lapsed(c, s, i, sp_population_state_at(c->pop, i)))
          return 0;
      }
      if (!sp_due_passed(c, i)) return 0; /* its due time: not yet */
      complete_step(c, s, &plan);
      break;
    case SP_PHASE_SCRIPT:
      if (c->agents[i].flags & F_FINISH) {
        c->agents[i].flags &= (uint8_t)~F_FINISH;
        complete_step(c, s, &plan);
        break;
      }
      if (c->agents[i].flags & F_FAIL) {
        c->agents[i].flags &= (uint8_t)~F_FAIL;
        sp__step_stop(c, s, &plan, SP_REASON_SCRIPT,
                      sp__agent_fail_detail(c, i));
        sp__step_after_failure(c, s, i);
      }
      return 0;
    case SP_PHASE_WALKING:
      if (round == 0 && c->any_interruptible && sp__agent_interrupt(c, s, i))
        return 0;
      if (c->agents[i].flags & F_BIND) return 1;
      if (round == 0 && walked != WALK_NOT ? walked != WALK_ARRIVED
                                           : !sp__agent_walk(c, i))
        return (c->agents[i].flags & F_BIND) != 0;
      sp__agent_emit(s, i, SP_EV_ARRIVED, 0, plan_act(&plan, a->step), a->goal,
                     (int32_t)a->target);
      sp__step_start_acting(c, s, &plan);
      break;
    case SP_PHASE_MOVING:
      if (c->any_interruptible && sp__agent_interrupt(c, s, i)) return 0;
      /* an agent target is checked in the serial pass every frame */
      if (!end_move(c, s, &plan))
        return c->agents[i].phase == SP_PHASE_MOVING &&
               (c->agents[i].flags & F_BIND) != 0;
      break;
    case SP_PHASE_BLOCKED:
      if (c->any_interruptible && sp__agent_interrupt(c, s, i)) return 0;
      if (!sp_due_passed(c, i)) return 0;
      if (a->why == SP_REASON_STEP_FAILED) { /* a back-off is over */
        step_need_goal(c, i, SP_REASON_STEP_FAILED);
        return 0;
      }
      c->agents[i].phase = SP_PHASE_THINKING;
      break;
    case SP_PHASE_THINKING: {
      if (!(c->agents[i].flags & F_HAS_PLAN) ||
          (c->agents[i].flags & F_NEED_GOAL))
        return 0;
      int r = select_next(c, s, &plan, w->state);
      if (r == SEL_BIND) {
        if (!sp__step_bind_fast(c, s, &plan)) return 1;
        if (!c->opt.engine_moves || !sp__step_start_move(c, s, &plan)) return 0;
        break;
      }
      if (r == SEL_NOTHING) return 0;
      /* a step that acts until a due time to come: the next round would
       * only find that out (most step ends) */
      if (c->agents[i].phase == SP_PHASE_ACTING && !sp_due_passed(c, i))
        return 0;
      break;
    }
    default: return 0;
    }
  }
  return 0;
}
