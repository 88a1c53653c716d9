/* goal_sets.c: a condition tested on a state, and goals reached by any of several conditions (a goal whose variables take sets of values): holding, choosing the combination to plan, and what blocks them all. */
#include <string.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_goals.h"
#include "sp_alloc.h"
#include "sp_error.h"

/* The choices live per add index (sorting moves Goal records, a load
 * rewrites them; the choices stay with the goal they were given to). */
static int choices_of(const SpCrowd *c, int g, const SpValue **out) {
  int index = c->goals[g].index;
  *out = c->choices[index];
  return c->choices[index] != NULL ? c->choice_count[index] : 0;
}

void sp__goal_choices_drop(SpCrowd *c, int index) {
  if (c->choices[index] != NULL)
    sp__mem_free(c->alloc, c->choices[index],
                 (size_t)c->choice_count[index] * (size_t)c->m);
  c->choices[index] = NULL;
  c->choice_count[index] = 0;
}

SpStatus sp_crowd_set_goal_choices(SpCrowd *c, int index, const SpValue *conds,
                                   int count, SpError *err) {
  sp__error_clear(err);
  int g = 0;
  while (g < c->goal_count && c->goals[g].index != index) g++;
  if (g == c->goal_count)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_GOAL,
                         "crowd: goal %d does not exist (%d goals)", index,
                         c->goal_count);
  if (count < 1 || count > SP_GOAL_CHOICES_MAX)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_GOAL,
                         "crowd: goal %d: %d choices (1 to %d)", index, count,
                         SP_GOAL_CHOICES_MAX);
  size_t m = (size_t)c->m;
  for (size_t k = 0; k < (size_t)count * m; k++) {
    int v = (int)(k % m), n = sp_variable_value_count(c->domain, v);
    if (conds[k] != SP_ANY && conds[k] >= n)
      return sp__error_set(
          err, SP_ERR_STATE, SP_E_STATE_VALUE, SP_FIELD_GOAL,
          "crowd: goal %d: choice %d: value %d is out of range "
          "for '%s' (%d values)",
          index, (int)(k / m) + 1, (int)conds[k],
          sp_variable_name(c->domain, v), n);
  }
  SpValue *copy = NULL;
  if (count > 1) {
    copy = sp__mem_alloc(c->alloc, (size_t)count * m);
    if (copy == NULL) return sp__error_memory(err);
    memcpy(copy, conds, (size_t)count * m);
  }
  sp__goal_choices_drop(c, index);
  c->choices[index] = copy;
  c->choice_count[index] = (uint8_t)(count > 1 ? count : 0);
  memcpy(c->goals[g].cond, conds, m);
  sp_goal_note(&c->goals[g], c->m);
  return SP_OK;
}

int sp__goal_met_choices(const SpCrowd *c, int g, const SpValue *state) {
  const SpValue *ch;
  int n = choices_of(c, g, &ch);
  if (n == 0)
    return sp_goal_passes(&c->goals[g].cond_test, c->goals[g].cond, state,
                          c->m);
  for (int k = 0; k < n; k++)
    if (sp_goal_holds(ch + (size_t)k * (size_t)c->m, state, c->m)) return 1;
  return 0;
}

int sp__goal_reads_var(const SpCrowd *c, int g, int var) {
  const SpValue *ch;
  int n = choices_of(c, g, &ch);
  if (n == 0) return c->goals[g].cond[var] != SP_ANY;
  for (int k = 0; k < n; k++)
    if (ch[(size_t)k * (size_t)c->m + (size_t)var] != SP_ANY) return 1;
  return 0;
}

/* Planning the winner once more in the population costs one plan (its
 * cache may hold it); the choice itself costs one plan per choice. */
void sp__goal_for_planning(SpCrowd *c, int wk, size_t i, int g) {
  SpValue *out = sp_population_goal_at(c->pop, i);
  const SpValue *ch;
  int n = choices_of(c, g, &ch), which = -1, len = 0;
  if (n == 0) {
    sp_row_copy(out, c->goals[g].cond, c->m);
    return;
  }
  CrowdWorker *w = &c->cw[wk < 0 ? 0 : wk];
  sp_plan_any(c->domain, w->ws, sp_population_state_at(c->pop, i), ch, n,
              w->plan, &len, &which, NULL);
  memcpy(out, ch + (size_t)(which < 0 ? 0 : which) * (size_t)c->m,
         (size_t)c->m);
}

SpBlockerKind sp__goal_blocker(SpCrowd *c, int wk, int g, const SpValue *state,
                               void *scratch, SpBlocker *out,
                               SpFailure *failure) {
  CrowdWorker *w = &c->cw[wk < 0 ? 0 : wk];
  const SpValue *ch;
  int n = choices_of(c, g, &ch), len = 0;
  const SpValue *first = n == 0 ? c->goals[g].cond : ch;
  SpFailure f = {SP_FAIL_NONE, -1, -1, -1, -1, 0};
  if (sp_plan(c->domain, w->ws, state, first, w->plan, &len, &f) == SP_OK &&
      n == 0) {
    memset(out, 0, sizeof *out);
    out->variable = out->current = out->needed = -1;
    out->action = out->link_from = out->link_to = -1;
    if (failure != NULL) *failure = f;
    return SP_BLOCK_NONE;
  }
  if (failure != NULL) *failure = f;
  if (n == 0) return sp_plan_blocker(c->domain, state, first, &f, scratch, out);
  return sp_plan_any_blocker(c->domain, w->ws, state, ch, n, w->plan, scratch,
                             out);
}

int sp__goal_only_choice(const SpCrowd *c, int index, const SpBlocker *b) {
  if (index < 0 || index >= SP_CROWD_MAX_GOALS || c->choices[index] == NULL)
    return 0;
  return !sp_blocker_blocks_all(b, c->choices[index], c->choice_count[index],
                                c->m);
}
