/* recheck.c: goals whose `when` is checked again while they run (a behaviour's recheck = true). */
#include "sp_agents.h"
#include "sp_goals.h"
#include "sp_error.h"
#include "sp_internal.h"

SpStatus sp_crowd_set_recheck(SpCrowd *c, int index, int group, SpError *err) {
  sp__error_clear(err);
  if (index < 0 || index >= c->goal_count || group < 0 || group > index)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: goal %d of group %d does not exist (%d goals)",
                         index, group, c->goal_count);
  c->recheck[index] = (uint16_t)(group + 1);
  return SP_OK;
}

/* A `when` with sets is several goals (one per combination, exactly one
 * holding in any state): the goal lapses only when none of them holds. */
int sp__goal_lapsed(const SpCrowd *c, int g, const SpValue *state) {
  if (g < 0 || g >= c->goal_count) return 0;
  uint16_t group = c->recheck[c->goals[g].index];
  if (group == 0) return 0;
  for (int k = 0; k < c->goal_count; k++)
    if (c->recheck[c->goals[k].index] == group && sp_goal_when(c, k, state))
      return 0;
  return 1;
}
