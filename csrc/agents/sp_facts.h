/* sp_facts.h: private to csrc/agents/: the world's facts and the agent variables tied to them (facts.c). */
#ifndef sp_facts_h
#define sp_facts_h

#include "sp_agents.h"

/* Writes the tied variables' values into agent i's state (an agent's
 * tied bytes are brought up to date when it is next looked at). */
static inline void sp_facts_sync(SpCrowd *c, size_t i) {
  if (c->tie_count == 0) return;
  SpValue *s = sp_population_state_at(c->pop, i);
  for (int k = 0; k < c->tie_count; k++) s[c->ties[k].var] = c->ties[k].value;
}

/* Agent i took a plan (or lost it): the ties it reads now. buf: a plan
 * buffer of the caller (action_count + 1 ids). */
void sp__facts_plan_taken(SpCrowd *c, size_t i, uint16_t *buf);

/* After a load: who reads which tie, from every agent's plan. */
void sp__facts_reload(SpCrowd *c);

/* Serial, before a frame: the agents concerned by a fact that changed
 * since the last frame are handed to `changed`, as after a world change. */
void sp__facts_apply(SpCrowd *c, SpChanged changed);

void sp__facts_free(SpCrowd *c);

void sp__world_facts_free(SpWorld *w);

/* The tie of variable var, or -1. */
int sp__facts_tie_of(const SpCrowd *c, int var);

#endif
