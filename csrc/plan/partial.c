/* partial.c: planning to a goal with free variables (SP_ANY), exactly.
 *
 * A shortest plan to a state matching the goal is a shortest plan to one
 * total completion of it, so inside the tractable classes it has no
 * repeated action; the work is choosing the completion. In a shortest
 * plan a free variable w ends where its last action leaves it only if a
 * later action asks for that value (else dropping that action gives a
 * shorter plan that still matches), or back at s0[w].
 *
 * 1. The closure (planner.c, sp__plan_closure): TopoPlan's closure where a
 *    free variable has no goal chain; a value asked of it extends its
 *    timeline (or adds its loop, as for any variable). Every action it
 *    chooses is in every plan to a matching state, so its size is a lower
 *    bound. Its ends are a total goal, planned by TopoPlan; when that
 *    succeeds the plan has the bound's length and is a shortest one.
 * 2. When the orders of that closure form a cycle, a free variable whose
 *    start value is requested and lies on a cycle may have to come back
 *    to it, for a requester that must run after it left: then its goal is
 *    its start value ("keep") and its loop runs. Each subset L of these
 *    restorable free variables is tried (closure with L kept, then
 *    TopoPlan on its ends); the shortest plan wins, a subset whose closure
 *    is not shorter than the best plan so far is skipped, and a plan as
 *    short as step 1's bound ends the search.
 *
 * Complexity: step 1 is two TopoPlan passes, O(|A| + |E_A|). Step 2 runs
 * only when step 1 finds no plan, and is exponential in the number k of
 * restorable free variables: at most 2^k closures and TopoPlans (k is
 * the number of free variables whose start value is both requested and
 * on a cycle: 0 to 4 in the paper domains). Exactness is checked against
 * breadth-first search in tests/test_partial_goals.c, not assumed.
 * Nothing is allocated: the goals tried live in the workspace.
 */
#include <string.h>

#include "sp_internal.h"
#include "sp_partial.h"

/* Can a shortest plan need w back at its start value s: is s requested
 * and on a cycle? */
static int restorable(const SpDomain *d, int w, int s) {
  const SpValueInfo *v = &sp_values(d)[sp_vars(d)[w].value_base + (uint32_t)s];
  return v->requester_count > 0 && v->cycle_pos != SP_NONE16;
}

/* The goal of subset `mask` of the restorable free variables (bit j: the
 * j-th one keeps its start value). */
static void subset_goal(const SpDomain *d, const SpValue *s0,
                        const SpValue *goal, uint64_t mask, SpValue *trial) {
  int j = 0;
  for (int w = 0; w < d->variable_count; w++) {
    trial[w] = goal[w];
    if (goal[w] != SP_ANY || !restorable(d, w, s0[w])) continue;
    if (mask >> j & 1u) trial[w] = s0[w];
    j++;
  }
}

/* Marks a failure about a free variable, so its text never speaks of a
 * goal value the caller did not ask for. */
static void mark_free(const SpValue *goal, SpFailure *failure) {
  if (failure != NULL && failure->variable >= 0)
    failure->free_variable = goal[failure->variable] == SP_ANY;
}

SpStatus sp__plan_partial(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                          const SpValue *goal, uint16_t *plan, int *len,
                          SpFailure *failure) {
  SpValue *trial = sp__workspace_goal_scratch(ws, 0);
  SpValue *ends = sp__workspace_goal_scratch(ws, 1);
  SpValue *best = sp__workspace_goal_scratch(ws, 2);
  int m = d->variable_count;
  /* step 1: the closure with every free variable free */
  SpStatus st = sp__plan_closure(d, ws, s0, goal, ends, failure);
  int bound = st == SP_OK ? sp__plan_closure_size(ws) : 0;
  if (st == SP_OK) st = sp_plan(d, ws, s0, ends, plan, len, failure);
  if (st == SP_OK) return SP_OK;
  mark_free(goal, failure);
  /* step 2: subsets of the restorable free variables kept */
  int k = 0;
  for (int w = 0; w < m; w++) k += goal[w] == SP_ANY && restorable(d, w, s0[w]);
  if (k > 63) k = 63; /* 2^63 tries would never end anyway */
  int best_len = -1, n = 0;
  for (uint64_t mask = 1; mask < (uint64_t)1 << k; mask++) {
    subset_goal(d, s0, goal, mask, trial);
    if (sp__plan_closure(d, ws, s0, trial, ends, NULL) != SP_OK) continue;
    if (best_len >= 0 && sp__plan_closure_size(ws) >= best_len) continue;
    if (sp_plan(d, ws, s0, ends, plan, &n, NULL) != SP_OK) continue;
    best_len = n;
    memcpy(best, ends, (size_t)m);
    if (best_len <= bound) break;
  }
  if (best_len < 0) {
    *len = 0;
    return SP_NO_PLAN;
  }
  /* planned again, so the plan and the workspace's orders are the best's */
  SpFailure scratch;
  st = sp_plan(d, ws, s0, best, plan, len, failure ? failure : &scratch);
  return st;
}
