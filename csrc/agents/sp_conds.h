/* sp_conds.h: an action's conditions and effect on one agent's state, read from the domain's tables (step.c). */
#ifndef sp_conds_h
#define sp_conds_h

#include "sp_internal.h"

/* Conditions and effects read the domain's tables directly: these run
 * for every step of every agent due, and the accessors are calls into
 * another stage. */
static inline int conds_hold(const SpDomain *d, int act, const SpValue *state) {
  const SpActionInfo *a = &sp_actions(d)[act];
  if (state[a->variable] != a->pre) return 0;
  const SpPrevail *p = sp_prevails(d) + a->prevail_base;
  for (unsigned j = 0; j < a->prevail_count; j++)
    if (state[p[j].variable] != p[j].value) return 0;
  return 1;
}

static inline int effect_holds(const SpDomain *d, int act,
                               const SpValue *state) {
  const SpActionInfo *a = &sp_actions(d)[act];
  return state[a->variable] == a->post;
}

/* Does action act: its variable takes its post value. */
static inline void apply_effect(const SpDomain *d, int act, SpValue *state) {
  const SpActionInfo *a = &sp_actions(d)[act];
  state[a->variable] = a->post;
}

#endif
