/* sp_step.h: what step.c and bind.c share: the plan at hand, the small
 * tests of a waiting agent, and the step functions both call (private to
 * csrc/agents). */
#ifndef SP_STEP_H
#define SP_STEP_H

#include <stdlib.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_loop.h"
#include "sp_internal.h"
#include "sp_population.h"

/* The plan of one agent, looked up in the population at most once per
 * call and read where it is stored (its slot or a cache entry: nothing
 * plans while a frame's agents run): a lookup tests the status and may
 * find a cache, and a frame reads several steps of each agent due. */
#define PLAN_UNREAD (-2)
typedef struct Plan {
  const SpCrowd *c;
  size_t i;
  const uint8_t *ids; /* `width` bytes an id */
  int width;
  int len; /* -1: no plan; PLAN_UNREAD until read */
} Plan;

static inline Plan plan_view(const SpCrowd *c, Sink s, size_t i) {
  (void)s;
  Plan p = {c, i, NULL, 1, PLAN_UNREAD};
  return p;
}

static inline int plan_len(Plan *p) {
  if (p->len == PLAN_UNREAD) {
    const SpPopulation *pop = p->c->pop;
    p->width = pop->id_bytes;
    if (p->i < pop->n)
      p->ids = sp_population_plan_at(pop, p->i, &p->len);
    else
      p->ids = NULL, p->len = -1;
  }
  return p->len;
}

/* The action at plan position k, which is below plan_len. */
static inline int plan_id(const Plan *p, int k) {
  if (p->width == 1) return p->ids[k];
  uint16_t id;
  memcpy(&id, p->ids + 2 * (size_t)k, sizeof id);
  return id;
}

/* The action at plan position k, or -1. */
static inline int plan_act(Plan *p, int k) {
  return k >= 0 && k < plan_len(p) ? plan_id(p, k) : -1;
}

/* Writes one event record (sp__agent_emit's, and step_emit's). */
static inline void step_event_fill(const SpCrowd *c, SpAgentEvent *e,
                                   size_t agent, SpEventKind kind,
                                   SpReason reason, int action, int goal,
                                   int32_t detail) {
  e->agent = (uint32_t)agent;
  e->kind = (uint8_t)kind;
  e->reason = (uint8_t)reason;
  e->flags = action >= 0 ? (c->beh[action].has_hook ? SP_EVENT_HOOK : 0)
                         : (reason == SP_REASON_SELECT ? SP_EVENT_HOOK : 0);
  e->goal = c->goal_event[(uint8_t)goal]; /* -1 and GOAL_NONE: none */
  e->action = (int16_t)action;
  e->gen = c->gens != NULL ? (uint16_t)c->gens[agent] : 0;
  e->detail = detail;
}

/* Where the sink's events go: its worker's, or the frame's. */
static inline EventOut *step_out(Sink s) {
  return s.worker >= 0 ? &s.c->cw[s.worker].out : &s.c->out;
}

/* sp__agent_emit for the events every plan's end and start says (goal
 * reached and chosen, planned, a step finished, the next started):
 * written in place while the sink's buffer has room, the call only to
 * grow it; counted by kind where it went (merge.c adds the counts up). */
static inline void step_say(Sink s, size_t agent, SpEventKind kind,
                            SpReason reason, int action, int goal,
                            int32_t detail) {
  EventOut *o = step_out(s);
  if (o->ev_count == o->ev_cap) {
    sp__agent_emit(s, agent, kind, reason, action, goal, detail);
    return;
  }
  step_event_fill(s.c, &o->ev[o->ev_count++], agent, kind, reason, action, goal,
                  detail);
  o->kinds[kind]++;
}

/* step_say for a step's own events (finished, started): no reason or
 * detail. */
static inline void step_emit(Sink s, size_t agent, SpEventKind kind, int action,
                             int goal) {
  step_say(s, agent, kind, SP_REASON_NONE, action, goal, 0);
}

/* The agent drops its plan and chooses a goal at the next update, for
 * `why`. */
static inline void step_need_goal(SpCrowd *c, size_t i, SpReason why) {
  Agent *a = &c->agents[i];
  a->flags = (uint8_t)((a->flags | F_NEED_GOAL) & ~(F_HAS_PLAN | F_BIND));
  sp_agent_mark_choosing(c, i);
  a->why = (uint8_t)why;
  a->phase = SP_PHASE_THINKING;
}

/* step_higher_goal past its quick answers (step.c). */
int sp__higher_goal_search(const SpCrowd *c, size_t i, const SpValue *state);

/* 1 when a goal of strictly higher priority than the agent's applies and
 * was not refused (no plan) since the agent last chose. */
static inline int step_higher_goal(const SpCrowd *c, size_t i,
                                   const SpValue *state) {
  const Agent *a = &c->agents[i];
  if (a->goal == GOAL_NONE || c->selector) return 0; /* the caller decides */
  /* no agent's own priorities and none above its goal: the search would
   * stop at once (every step end asks) */
  if (c->own_count == 0 && c->goals[0].priority <= c->goals[a->goal].priority)
    return 0;
  return sp__higher_goal_search(c, i, state);
}

/* A step's duration in [min, max] drawn from (seed, agent, steps started
 * counter n). */
static inline float step_draw(const SpCrowd *c, const SpActionBehaviour *b,
                              size_t i, uint32_t n) {
  if (b->max_duration <= b->min_duration) return b->min_duration;
  uint64_t z =
      c->opt.seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)n << 32);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  float u = (float)(z >> 40) / (float)(1u << 24);
  return b->min_duration + u * (b->max_duration - b->min_duration);
}

/* Cells between two cells of the 8-connected grid (diagonals cost 1). */
static inline int step_octile(int x0, int y0, int x1, int y1) {
  int dx = abs(x0 - x1), dy = abs(y0 - y1);
  return dx > dy ? dx : dy;
}

/* Avoids place p for the crowd's cooldown (which ends a goal given up:
 * the agent keeps one cooldown). */
static inline void step_cool_down(const SpCrowd *c, Agent *a, uint32_t p) {
  a->cool_place = p;
  a->cool_until = (float)(c->clock + c->opt.cooldown);
  a->shun = GOAL_NONE;
}

/* 1 while the agent waits for room for step `act`: its last failure is a
 * full place on that action (cleared once it gets in). Its retries are
 * quiet: no step_started until it is bound, no step_failed or blocked. */
static inline int step_waiting_for_room(const Agent *a, int act) {
  return a->reason == SP_REASON_FULL && a->fail_action == act;
}

/* 1 when step `act` of a waiting agent starts only once bound (a place it
 * walks to; a script's target asks Lua at step_started, so not those). */
static inline int step_defers_start(const SpCrowd *c, const Agent *a, int act) {
  SpBind b = c->beh[act].bind;
  return step_waiting_for_room(a, act) && b != SP_BIND_NONE &&
         b != SP_BIND_SCRIPT;
}

/* Ends the running step without its effect; says so unless `quiet`. */
void sp__step_end(SpCrowd *c, Sink s, Plan *plan, SpReason why, int32_t detail,
                  int quiet);
void sp__step_stop(SpCrowd *c, Sink s, Plan *plan, SpReason why,
                   int32_t detail);
/* After a failed step: replan now, wait (doubling), or give the goal up
 * (step.c says which). */
void sp__step_after_failure(SpCrowd *c, Sink s, size_t i);
/* The bound step acts now (its timer starts), or the engine is asked to
 * move there (1: it is there already). */
void sp__step_start_acting(SpCrowd *c, Sink s, Plan *plan);
int sp__step_start_move(SpCrowd *c, Sink s, Plan *plan);
/* 1 when the agent's failures in a row reached its step's max_failures
 * (sp__step_after_failure then gives the goal up). */
int sp__step_gives_up(const SpCrowd *c, const Agent *a);
/* bind.c: a step bound to a place or kind takes a slot now when it can. */
int sp__step_bind_fast(SpCrowd *c, Sink s, Plan *plan);

#endif
