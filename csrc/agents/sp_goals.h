/* sp_goals.h: private to csrc/agents/: goals: an agent's own priorities (priority.c), goals of sets (goal_sets.c), rechecked goals (recheck.c). */
#ifndef sp_goals_h
#define sp_goals_h

#include "sp_agents.h"

typedef struct OwnPriority {
  uint32_t agent;
  uint16_t goal; /* the goal's add index */
  int32_t priority;
} OwnPriority;

/* Agent i's goals in the order it tries them (sorted indices into
 * c->goals, its own priorities first, the crowd's order among equals),
 * with their priorities for it in prio; NULL when it has no priority of
 * its own (the crowd's order then). order and prio: goal_count each. */
const uint8_t *sp__agent_goal_order(const SpCrowd *c, size_t i, uint8_t *order,
                                    int *prio);

/* Agent i's slot is freed: its own priorities go. */
void sp__priority_forget(SpCrowd *c, size_t i);

void sp__priority_free(SpCrowd *c);

/* 1 when state matches cond (m values; SP_ANY matches any). Inline, as
 * goal_met: a step end tests a few goals and `when`s. */
static inline int sp_goal_holds(const SpValue *cond, const SpValue *state,
                                int m) {
  for (int v = 0; v < m; v++)
    if (cond[v] != SP_ANY && cond[v] != state[v]) return 0;
  return 1;
}

/* Copies a row of m values (a goal, a state) with a few word moves,
 * overlapping where m is not a whole number of them: a call to memcpy
 * for a row of a few bytes costs more than the copy. */
static inline void sp_row_copy(SpValue *dst, const SpValue *src, int m) {
  size_t n = (size_t)m;
  if (n >= 8) {
    for (size_t k = 0; k + 8 <= n; k += 8) memcpy(dst + k, src + k, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    for (size_t k = 0; k < n; k++) dst[k] = src[k];
  }
}

/* 1 when a goal row (m values, its test t) matches state. */
static inline int sp_goal_passes(const GoalTest *t, const SpValue *row,
                                 const SpValue *state, int m) {
  if (t->how == GOAL_LIST) {
    for (int k = 0; k < t->n; k++)
      if (state[t->u.list.var[k]] != t->u.list.val[k]) return 0;
    return 1;
  }
  if (t->how == GOAL_BYTES) return sp_goal_holds(row, state, m);
  if (m < 8) {
    uint32_t lo, hi;
    memcpy(&lo, state, 4);
    memcpy(&hi, state + m - 4, 4);
    return (lo & (uint32_t)t->u.words.mask[0]) ==
               (uint32_t)t->u.words.want[0] &&
           (hi & (uint32_t)t->u.words.mask[1]) == (uint32_t)t->u.words.want[1];
  }
  for (int k = 0; k < sp_goal_windows(m); k++) {
    uint64_t x;
    memcpy(&x, state + sp_goal_window(m, k), 8);
    if ((x & t->u.words.mask[k]) != t->u.words.want[k]) return 0;
  }
  return 1;
}

/* 1 when sorted goal g's `when` holds in state (at once for a goal that
 * applies always, as most do: a step end tests every goal's). */
static inline int sp_goal_when(const SpCrowd *c, int g, const SpValue *state) {
  const Goal *goal = &c->goals[g];
  return (goal->when_test.how == GOAL_LIST && goal->when_test.n == 0) ||
         sp_goal_passes(&goal->when_test, goal->when, state, c->m);
}

/* sp_goal_met for a goal with several choices: one of them holds. */
int sp__goal_met_choices(const SpCrowd *c, int g, const SpValue *state);

/* 1 when sorted goal g's condition holds in state: one of its choices
 * when it has several. */
static inline int sp_goal_met(const SpCrowd *c, int g, const SpValue *state) {
  const Goal *goal = &c->goals[g];
  if (c->choices[goal->index] != NULL) return sp__goal_met_choices(c, g, state);
  return sp_goal_passes(&goal->cond_test, goal->cond, state, c->m);
}

/* 1 when sorted goal g's condition reads variable var. */
int sp__goal_reads_var(const SpCrowd *c, int g, int var);

/* Writes the population goal of agent i, about to plan sorted goal g:
 * its condition, or, with several choices, the one with the shortest
 * plan from the agent's state (sp_plan_any, worker wk's scratch; the
 * first when none has a plan), so the population plans exactly
 * sp_plan_any's plan. */
void sp__goal_for_planning(SpCrowd *c, int wk, size_t i, int g);

/* What blocks sorted goal g from state (sp_plan_any_blocker over its
 * choices, worker wk's scratch); *failure gets the planner's reason for
 * the first choice. Returns the kind (SP_BLOCK_NONE: it has a plan). */
SpBlockerKind sp__goal_blocker(SpCrowd *c, int wk, int g, const SpValue *state,
                               void *scratch, SpBlocker *out,
                               SpFailure *failure);

/* A recorded blocker b of goal add index `index`: 1 when the goal has
 * several choices and b is the first choice's only (it blocks not every
 * choice; sp_plan_any_blocker records it then), else 0. */
int sp__goal_only_choice(const SpCrowd *c, int index, const SpBlocker *b);

/* Goal add index `index` is added again: it has one choice. */
void sp__goal_choices_drop(SpCrowd *c, int index);

/* The goals were added, loaded or sorted again: goal_event follows. */
void sp__crowd_goals_changed(SpCrowd *c);

/* 1 when sorted goal g is rechecked and no `when` of its group holds in
 * state: the agent pursuing it drops it. */
int sp__goal_lapsed(const SpCrowd *c, int g, const SpValue *state);

/* 1 when sorted goal g is rechecked at all (sp__goal_lapsed can say 1). */
static inline int sp_goal_rechecked(const SpCrowd *c, int g) {
  return g >= 0 && g < c->goal_count && c->recheck[c->goals[g].index] != 0;
}

/* Bytes of a crowd's refusal words (refused_hi) at `words` per agent:
 * one row per slot of its capacity and one more. */
static inline size_t sp_refused_bytes(const SpCrowd *c, size_t words) {
  return (c->capacity + 1) * words * sizeof(uint32_t);
}

/* Forgets the goals refused since the agent last chose. */
void sp__agent_clear_refused(SpCrowd *c, size_t i);

#endif
