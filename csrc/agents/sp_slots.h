/* sp_slots.h: private to csrc/agents/: agent slots (slots.c) and the checks of what a script asks of an agent (script.c). */
#ifndef sp_slots_h
#define sp_slots_h

#include "sp_agents.h"

/* SP_OK when slot i holds a live agent, else SP_ERR_STATE naming it. */
SpStatus sp__agent_check(const SpCrowd *c, size_t i, SpError *err);

/* Allocates the slot bookkeeping (gens, free_slots) if not yet there;
 * 0 on memory. Invisible otherwise: every generation starts at 0. */
int sp__crowd_slots_ready(SpCrowd *c);

void sp__crowd_slots_free(SpCrowd *c);

/* SP_OK when agent i waits in SP_PHASE_SCRIPT for the target of its
 * SP_BIND_SCRIPT step, else SP_ERR_STATE saying why. */
SpStatus sp__crowd_waiting_target(const SpCrowd *c, size_t agent, SpError *err);

#endif
