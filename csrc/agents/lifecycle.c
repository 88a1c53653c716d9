/* lifecycle.c: agents the game removes, places or moves itself: despawn with slot generations, teleport, and the answers to engine moves. */
#include <stdlib.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_release.h"
#include "sp_chase.h"
#include "sp_due.h"
#include "sp_goals.h"
#include "sp_places.h"
#include "sp_slots.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

/* The slot keeps nothing the next agent could see: its flags, phase and
 * time are cleared here and spawn rewrites its record and state. */
SpStatus sp_crowd_despawn(SpCrowd *c, size_t agent, SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  if (!sp__crowd_slots_ready(c)) return sp__error_memory(err);
  sp__agent_release(c, agent);
  sp_chase_end(c, agent);
  sp__queue_leave(c, agent);
  sp__priority_forget(c, agent);
  c->agents[agent].phase = SP_PHASE_FREE;
  sp_index_drop(c, agent);
  c->agents[agent].flags = 0;
  c->agents[agent].time = 0.0f;
  c->gens[agent]++;
  c->free_slots[c->free_count++] = (uint32_t)agent;
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* Retiring a crowd                                                   */
/* ------------------------------------------------------------------ */

void sp_crowd_retire(SpCrowd *c) {
  if (c == NULL || c->retired) return;
  sp__release_flush(c); /* nothing is pending between updates; to be sure */
  for (size_t i = 0; i < c->n; i++)
    if (c->agents[i].phase != SP_PHASE_FREE) sp__agent_release(c, i);
  /* out of the world's list: chases toward it find it gone, and its
   * waiters leave the queue */
  sp__world_unregister_crowd(c->world, c);
  c->retired = 1;
}

int sp_crowd_retired(const SpCrowd *c) { return c->retired; }

/* ------------------------------------------------------------------ */
/* Teleport                                                           */
/* ------------------------------------------------------------------ */

SpStatus sp_crowd_teleport(SpCrowd *c, size_t agent, int x, int y,
                           SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  const SpGrid *g = c->world->grid;
  if (x < 0 || y < 0 || x > 65534 || y > 65534 ||
      (g != NULL &&
       (!sp_grid_contains(g, x, y) || sp_grid_is_blocked(g, x, y))))
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: cell (%d, %d) is outside the grid or blocked",
                         x, y);
  Agent *a = &c->agents[agent];
  a->x = (uint16_t)x;
  a->y = (uint16_t)y;
  sp_index_note(c, agent);
  /* a walk's progress toward the next cell belonged to the old cell; the
   * serial pass checks the way from here when the field has none; awake,
   * it arrives at once on its target */
  if (c->agents[agent].phase == SP_PHASE_WALKING &&
      !(c->agents[agent].flags & F_FAIL)) {
    if (sp_walk_timed(c, agent))
      sp_walk_start(c, agent);
    else
      c->agents[agent].time = 0.0f;
    sp_agent_wake(c, agent);
  }
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* Engine moves                                                       */
/* ------------------------------------------------------------------ */

static SpStatus move_pending(const SpCrowd *c, size_t agent, SpError *err) {
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  /* ended since it was announced: SP_EV_MOVE_CANCELLED comes with the
   * update that ends the step */
  if (c->agents[agent].phase != SP_PHASE_MOVING && c->announced != NULL &&
      c->announced[agent])
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu: its move was cancelled", agent);
  if (c->agents[agent].phase != SP_PHASE_MOVING)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu has no move pending (phase %s)",
                         agent, sp_phase_name((SpPhase)c->agents[agent].phase));
  if (c->agents[agent].flags & (F_FINISH | F_FAIL))
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: agent %zu: its move was answered already",
                         agent);
  return SP_OK;
}

static int cheb_cells(int x0, int y0, int x1, int y1) {
  int dx = abs(x0 - x1), dy = abs(y0 - y1);
  return dx > dy ? dx : dy;
}

/* An agent target is judged where it stands now: beyond the reach the
 * answer is refused (the game may still be on its way); a target gone
 * is the update's to find (target_gone). */
SpStatus sp_crowd_arrived(SpCrowd *c, size_t agent, SpError *err) {
  sp__error_clear(err);
  SpStatus st = move_pending(c, agent, err);
  if (st != SP_OK) return st;
  if (c->chase != NULL && c->chase[agent].on &&
      sp__chase_target_live(c, agent)) {
    const Chase *ch = &c->chase[agent];
    const Agent *a = &c->agents[agent], *t = &ch->crowd->agents[ch->agent];
    int d = cheb_cells(a->x, a->y, t->x, t->y);
    if (d > ch->reach)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd: agent %zu: is %d cells from its target "
                           "at (%d, %d), reach %d",
                           agent, d, t->x + 1, t->y + 1, (int)ch->reach);
  }
  c->agents[agent].flags |= F_FINISH;
  sp_agent_wake(c, agent);
  return SP_OK;
}

/* The detail rides in the time slot, as for sp_crowd_fail_step: a
 * moving agent counts nothing down. */
SpStatus sp_crowd_move_failed(SpCrowd *c, size_t agent, int detail,
                              SpError *err) {
  sp__error_clear(err);
  SpStatus st = move_pending(c, agent, err);
  if (st != SP_OK) return st;
  c->agents[agent].flags |= F_FAIL;
  int32_t d = (int32_t)detail;
  memcpy(&c->agents[agent].time, &d, sizeof d);
  sp_agent_wake(c, agent);
  return SP_OK;
}

SpStatus sp_crowd_target_cell(const SpCrowd *c, size_t agent, int *x, int *y) {
  *x = *y = -1;
  if (!sp_crowd_alive(c, agent)) return SP_ERR_STATE;
  const Agent *a = &c->agents[agent];
  if (a->tx != 0xFFFF) *x = a->tx, *y = a->ty;
  return SP_OK;
}
