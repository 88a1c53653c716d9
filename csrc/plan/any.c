/* any.c: planning to the nearest state matching any of several goals (a goal whose variables take sets of values). */
#include <string.h>

#include "sp_internal.h"

/* Each goal is planned with sp_plan, which is exact for one goal inside
 * the tractable classes, and the shortest plan wins (the earliest goal
 * among equals, so the choice never depends on anything but the order
 * the caller gave). The plans are not kept: the winner is planned again
 * into `plan` unless it was the last one planned, so nothing beyond the
 * caller's plan buffer and the workspace is needed. */
SpStatus sp_plan_any(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                     const SpValue *goals, int count, uint16_t *plan, int *len,
                     int *which, SpFailure *failure) {
  size_t m = (size_t)d->variable_count;
  int best = -1, best_len = 0, last = -1;
  SpFailure scratch;
  if (failure == NULL) failure = &scratch;
  if (which != NULL) *which = -1;
  *len = 0;
  if (count < 1 || count > SP_GOAL_CHOICES_MAX) {
    memset(failure, 0, sizeof *failure);
    failure->action = failure->other_action = -1;
    failure->variable = failure->value = -1;
    return SP_ERR_STATE;
  }
  for (int k = 0; k < count; k++) {
    int n = 0;
    SpStatus st = sp_plan(d, ws, s0, goals + (size_t)k * m, plan, &n, NULL);
    last = k;
    if (st == SP_ERR_STATE) /* again, for the failure's record */
      return sp_plan(d, ws, s0, goals + (size_t)k * m, plan, len, failure);
    if (st == SP_OK && (best < 0 || n < best_len)) {
      best = k;
      best_len = n;
      if (n == 0) break; /* the state matches it already */
    }
  }
  if (best < 0) { /* none has a plan: the first goal's reason */
    sp_plan(d, ws, s0, goals, plan, len, failure);
    *len = 0;
    return SP_NO_PLAN;
  }
  if (which != NULL) *which = best;
  if (last != best)
    return sp_plan(d, ws, s0, goals + (size_t)best * m, plan, len, failure);
  *len = best_len;
  failure->code = SP_FAIL_NONE;
  failure->free_variable = 0;
  return SP_OK;
}

int sp_blocker_blocks_all(const SpBlocker *b, const SpValue *goals, int count,
                          int m) {
  if (b->action != -1 || b->variable < 0 || b->needed < 0 ||
      (b->kind != SP_BLOCK_NOTHING_SETS && b->kind != SP_BLOCK_NO_WAY_OUT))
    return 0;
  for (int k = 0; k < count; k++)
    if (goals[(size_t)k * (size_t)m + (size_t)b->variable] != b->needed)
      return 0;
  return 1;
}

/* A blocker names a value the goal itself needs (action -1) or a prevail
 * on the only way to it; both stand whatever else the goal asks, but only
 * the goal's own value is sure to be needed by every choice: a prevail
 * of the way to one choice's value is not on the way to another's. */
SpBlockerKind sp_plan_any_blocker(const SpDomain *d, SpWorkspace *ws,
                                  const SpValue *s0, const SpValue *goals,
                                  int count, uint16_t *plan, void *scratch,
                                  SpBlocker *out) {
  int m = d->variable_count;
  memset(out, 0, sizeof *out);
  out->variable = out->current = out->needed = -1;
  out->action = out->link_from = out->link_to = -1;
  if (count < 1 || count > SP_GOAL_CHOICES_MAX) return SP_BLOCK_NONE;
  for (int k = 0; k < count; k++) {
    SpFailure f;
    int len = 0;
    const SpValue *g = goals + (size_t)k * (size_t)m;
    if (sp_plan(d, ws, s0, g, plan, &len, &f) != SP_NO_PLAN) {
      memset(out, 0, sizeof *out);
      out->variable = out->current = out->needed = -1;
      out->action = out->link_from = out->link_to = -1;
      return SP_BLOCK_NONE;
    }
    SpBlocker b;
    sp_plan_blocker(d, s0, g, &f, scratch, &b);
    if (sp_blocker_blocks_all(&b, goals, count, m)) {
      *out = b;
      return out->kind;
    }
    if (k == 0) {
      *out = b;
      out->only_choice = count > 1;
    }
  }
  return out->kind;
}
