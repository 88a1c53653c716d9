/* sp_partial.h: what partial.c (goals with free variables) uses of the planner. */
#ifndef sp_partial_h
#define sp_partial_h

#include "saspu.h"

/* Goal-sized arrays in every workspace, for partial.c. */
#define SP_GOAL_SCRATCH 3
SpValue *sp__workspace_goal_scratch(SpWorkspace *ws, int k);

/* The closure of TopoPlan for a goal with free variables (SP_ANY in
 * `wanted`), without ordering: every timeline and loop a plan must hold,
 * a free variable's timeline only covering the values asked of it. On
 * SP_OK `ends` is wanted with each free variable set to where its
 * timeline ends (its start value when untouched). */
SpStatus sp__plan_closure(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                          const SpValue *wanted, SpValue *ends,
                          SpFailure *failure);
/* The number of actions the last closure chose. */
int sp__plan_closure_size(const SpWorkspace *ws);

/* sp_plan for a goal with SP_ANY entries (values already checked). */
SpStatus sp__plan_partial(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                          const SpValue *goal, uint16_t *plan, int *len,
                          SpFailure *failure);

#endif
