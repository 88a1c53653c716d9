/* fast.c: the frame loop's two most common visits, each in one call that finds what it asks once: a take that starts the plan's first step, and the end of a plan's last step, a timed one; the same events and agents as the general visit (step.c), to which every other case goes. */
#include "sp_agents.h"
#include "sp_chase.h"
#include "sp_conds.h"
#include "sp_due.h"
#include "sp_goals.h"
#include "sp_loop.h"
#include "sp_step.h"
#include "sp_wheel.h"

/* No fact ties (nothing to sync or to note of a plan) and no selector
 * (the caller's goals), in a frame whose take starts steps: no step
 * binds, none is interrupted, no sweep. */
int sp__take_fast_crowd(const SpCrowd *c) {
  return c->start_in_take && c->tie_count == 0 && c->reads == NULL &&
         !c->selector && !c->fast_off;
}

/* Whether agent i's new plan starts as the common case: it waits for its
 * plan alone and has one; no higher goal applies and its goal is not
 * rechecked (both would end the plan at once); the first step's effect
 * does not hold yet and its conditions do; the step acts on a timer (no
 * script) that runs past this frame. Sets *len, *act and *due. */
static int starts_plainly(const SpCrowd *c, Sink s, size_t i, int *len,
                          int *act, uint32_t *due) {
  const Agent *a = &c->agents[i];
  int g = a->goal;
  if (a->flags != F_PLANNING || g >= c->goal_count || sp_goal_rechecked(c, g))
    return 0;
  const SpValue *state = sp_population_state_at(c->pop, i);
  if (step_higher_goal(c, i, state)) return 0;
  Plan plan = plan_view(c, s, i);
  *len = plan_len(&plan);
  if (*len < 1) return 0; /* no plan (-1), or an empty one */
  *act = plan_id(&plan, 0);
  const SpActionBehaviour *b = &c->beh[*act];
  if (b->scripted || effect_holds(c->domain, *act, state) ||
      !conds_hold(c->domain, *act, state))
    return 0;
  *due = sp_due_after(c, s, step_draw(c, b, i, a->draws + 1));
  return *due > c->now_rel;
}

int sp__agent_take_start(SpCrowd *c, Sink s, size_t i) {
  int len, act;
  uint32_t due;
  if (!starts_plainly(c, s, i, &len, &act, &due)) return 0;
  Agent *a = &c->agents[i];
  int g = a->goal;
  /* the plan (sp__agent_take_plan) */
  a->flags = F_HAS_PLAN;
  if (a->reason == SP_REASON_NO_PLAN &&
      a->fail_action == -2 - c->goals[g].index) {
    a->reason = SP_REASON_NONE; /* the goal that had no plan has one */
    a->fail_action = -1;
  }
  a->cursor = 0;
  a->done = 0;
  if (a->pursued != g)
    step_say(s, i, SP_EV_GOAL_CHOSEN, SP_REASON_NONE, -1, g, 0);
  a->pursued = (uint8_t)g;
  if (a->why != SP_REASON_NONE)
    step_say(s, i, SP_EV_REPLANNED, (SpReason)a->why, -1, g, len);
  else
    step_say(s, i, SP_EV_PLANNED, SP_REASON_NONE, -1, g, len);
  a->why = SP_REASON_NONE;
  /* its first step (select_next, sp__step_start_acting) */
  a->step = 0;
  a->draws++;
  step_emit(s, i, SP_EV_STEP_STARTED, act, g);
  sp_due_put(c, i, due);
  a->phase = SP_PHASE_ACTING;
  /* the visit and its settle (take_chunk) */
  CrowdWorker *w = &c->cw[s.worker < 0 ? 0 : s.worker];
  w->visited++;
  w->fast_takes++;
  sp__wheel_settle_started(c, s.worker, i);
  return 1;
}

int sp__end_fast_crowd(const SpCrowd *c) {
  return !c->any_interruptible && c->tie_count == 0 && !c->fast_off;
}

int sp__agent_end_step(SpCrowd *c, Sink s, size_t i) {
  Agent *a = &c->agents[i];
  int g = a->goal;
  /* acting on no place, answered by nobody, its time up */
  if (a->phase != SP_PHASE_ACTING || a->flags != F_HAS_PLAN ||
      g >= c->goal_count || !sp_due_passed(c, i))
    return -1;
  Plan plan = plan_view(c, s, i);
  int len = plan_len(&plan);
  if (a->step >= len) return -1;
  /* its plan's last step: none left pending once it is done */
  uint32_t done = a->done | 1u << (a->step - a->cursor);
  int cursor = a->cursor;
  for (; done & 1u; done >>= 1) cursor++;
  if (cursor < len) return -1;
  int act = plan_id(&plan, a->step);
  SpValue *state = sp_population_state_at(c->pop, i);
  if (!conds_hold(c->domain, act, state)) return -1; /* the step fails */
  /* the step's end (complete_step) */
  apply_effect(c->domain, act, state);
  a->fails = 0;
  a->done = done;
  a->cursor = (uint16_t)cursor;
  sp_chase_end(c, i);
  step_emit(s, i, SP_EV_STEP_FINISHED, act, g);
  a->step = STEP_NONE;
  a->target = SP_NO_PLACE;
  a->tx = a->ty = 0xFFFF;
  a->phase = SP_PHASE_THINKING;
  /* the plan's end (select_next) */
  if (sp_goal_met(c, g, state)) {
    step_say(s, i, SP_EV_GOAL_REACHED, SP_REASON_NONE, -1, g, 0);
    step_need_goal(c, i, SP_REASON_NONE);
  } else {
    step_need_goal(c, i, SP_REASON_WORLD_CHANGED);
  }
  c->cw[s.worker < 0 ? 0 : s.worker].fast_ends++;
  return 0;
}
