/* script.c: steps a script runs: finishing or failing them, and the target a scripted step walks to. */
#include <string.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_slots.h"
#include "sp_error.h"
#include "sp_internal.h"

static SpStatus waiting(const SpCrowd *c, size_t agent, SpError *err) {
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  size_t i = agent;
  const Agent *a = &c->agents[i];
  if (c->agents[i].phase != SP_PHASE_SCRIPT || a->step == STEP_NONE)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu is not waiting for a script "
                         "(phase %s)",
                         agent, sp_phase_name(c->agents[i].phase));
  if (c->agents[i].flags & F_FAIL)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu: its step has failed", agent);
  return SP_OK;
}

SpStatus sp_crowd_finish_step(SpCrowd *c, size_t agent, SpError *err) {
  sp__error_clear(err);
  SpStatus st = waiting(c, agent, err);
  if (st == SP_OK) {
    c->agents[agent].flags |= F_FINISH;
    sp_agent_wake(c, agent);
  }
  return st;
}

/* Any running step: it waits in SP_PHASE_SCRIPT for the next update
 * (the detail rides in the time slot, bit for bit: the step no longer
 * counts down). A scripted step ends in the advance pass, as it always
 * has; another one is ended by the goal pass, which replans at once. */
SpStatus sp_crowd_fail_step(SpCrowd *c, size_t agent, int detail,
                            SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  size_t i = agent;
  int ph = c->agents[i].phase;
  /* thinking with a step: a higher goal or a lapsed `when` dropped the
   * plan in the last update, and the next one ends that step (step.c,
   * sp__agent_choose): the caller's failure is what it then says */
  int dropped = ph == SP_PHASE_THINKING && (c->agents[i].flags & F_NEED_GOAL);
  if (c->agents[i].step == STEP_NONE ||
      (ph != SP_PHASE_WALKING && ph != SP_PHASE_ACTING &&
       ph != SP_PHASE_SCRIPT && ph != SP_PHASE_MOVING && !dropped))
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu has no running step (phase %s)",
                         agent, sp_phase_name((SpPhase)ph));
  if (ph != SP_PHASE_SCRIPT && !(c->agents[i].flags & F_NEED_GOAL)) {
    c->agents[i].flags |= F_NEED_GOAL;
    sp_agent_mark_choosing(c, i);
    c->agents[i].why = SP_REASON_STEP_FAILED;
  }
  c->agents[i].phase = SP_PHASE_SCRIPT;
  c->agents[i].flags =
      (uint8_t)((c->agents[i].flags | F_FAIL) & ~(F_FINISH | F_BIND));
  int32_t d = (int32_t)detail;
  memcpy(&c->agents[i].time, &d, sizeof d);
  sp_agent_wake(c, i);
  return SP_OK;
}

SpStatus sp__crowd_waiting_target(const SpCrowd *c, size_t agent,
                                  SpError *err) {
  SpStatus st = waiting(c, agent, err);
  if (st != SP_OK) return st;
  if (c->agents[agent].flags &
      F_FINISH) /* it would walk with its step finished */
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu: its step has finished", agent);
  const Agent *a = &c->agents[agent];
  int act = sp_population_plan_step(c->pop, agent, a->step);
  if (c->beh[act].bind != SP_BIND_SCRIPT || a->tx != 0xFFFF)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu: action '%s' takes no target", agent,
                         sp_action_name(c->domain, act));
  return SP_OK;
}

SpStatus sp_crowd_set_target(SpCrowd *c, size_t agent, uint32_t place, int x,
                             int y, SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__crowd_waiting_target(c, agent, err);
  if (st != SP_OK) return st;
  Agent *a = &c->agents[agent];
  const SpGrid *g = c->world->grid;
  if (place != SP_NO_PLACE) {
    if (place >= c->world->place_count)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd: place %u does not exist", place);
    a->target = place;
  } else {
    if (x < 0 || y < 0 || x > 65534 || y > 65534 ||
        (g != NULL && !sp_grid_contains(g, x, y)))
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd: target cell (%d, %d) is outside the grid", x,
                           y);
    a->target = SP_NO_PLACE;
    a->tx = (uint16_t)x;
    a->ty = (uint16_t)y;
  }
  c->agents[agent].phase = SP_PHASE_WALKING;
  c->agents[agent].flags |= F_BIND;
  sp_walk_start(c, agent);
  sp_agent_wake(c, agent);
  return SP_OK;
}
