/* engine.c: crowds the game moves (movement "engine"): what is pending, where an agent target is, and many positions set in one call. */
#include "sp_agents.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

int sp_crowd_move_pending(const SpCrowd *c, size_t agent) {
  return agent < c->n && c->agents[agent].phase == SP_PHASE_MOVING &&
         !(c->agents[agent].flags & (F_FINISH | F_FAIL));
}

int sp_crowd_move_target(const SpCrowd *c, size_t agent, const SpCrowd **crowd,
                         size_t *target, uint32_t *gen, int *reach) {
  if (agent >= c->n || c->chase == NULL || !c->chase[agent].on) return 0;
  const Chase *ch = &c->chase[agent];
  *crowd = ch->crowd;
  *target = ch->agent;
  *gen = ch->gen;
  *reach = ch->reach;
  return 1;
}

SpStatus sp_crowd_move_many(SpCrowd *c, const uint32_t *agents,
                            const int32_t *xs, const int32_t *ys, size_t count,
                            size_t *done, SpError *err) {
  sp__error_clear(err);
  const SpGrid *g = c->world->grid;
  for (size_t k = 0; k < count; k++) {
    size_t i = agents[k];
    int x = xs[k], y = ys[k];
    *done = k;
    if (i >= c->n || c->agents[i].phase == SP_PHASE_FREE)
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd: entry %zu: agent %zu does not exist", k + 1,
                           i + 1);
    if (x < 0 || y < 0 || x > 65534 || y > 65534 ||
        (g != NULL &&
         (!sp_grid_contains(g, x, y) || sp_grid_is_blocked(g, x, y))))
      return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                           "crowd: entry %zu: cell (%d, %d) is outside the "
                           "grid or blocked",
                           k + 1, x + 1, y + 1);
    Agent *a = &c->agents[i];
    if (a->x == x && a->y == y) continue;
    if (c->agents[i].phase ==
        SP_PHASE_WALKING) { /* as a teleport: on from here */
      if (sp_crowd_teleport(c, i, x, y, err) != SP_OK) return SP_ERR_STATE;
      continue;
    }
    a->x = (uint16_t)x;
    a->y = (uint16_t)y;
    sp_index_note(c, i);
  }
  *done = count;
  return SP_OK;
}
