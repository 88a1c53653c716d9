/* sp_chase.h: private to csrc/agents/: walks toward another agent (chase.c). */
#ifndef sp_chase_h
#define sp_chase_h

#include "sp_agents.h"

/* Ends agent i's chase, if any. */
static inline void sp_chase_end(SpCrowd *c, size_t i) {
  if (c->chase != NULL) c->chase[i].on = 0;
}

void sp__crowd_chase_free(SpCrowd *c);

/* Allocates the crowd's chase records (and, with a grid, its search
 * workspace) if it has none; 0 when out of memory. */
int sp__crowd_chase_ready(SpCrowd *c);

/* For save.c and load.c: agent i's chase is written (it chases and
 * walks); the index of its target's crowd among crowds[], or UINT32_MAX
 * when that crowd is freed or not given (gone: target_gone at the next
 * frame); a loaded chase set again, `target` NULL when gone. */
int sp__chase_saved(const SpCrowd *c, size_t i);

uint32_t sp__chase_target_index(const SpCrowd *c, size_t i,
                                const SpCrowd *const *crowds, size_t count);

void sp__chase_restore(SpCrowd *c, size_t i, const SpCrowd *target,
                       const Chase *saved);

void sp__world_register_crowd(SpWorld *w, SpCrowd *c);

void sp__world_unregister_crowd(SpWorld *w, SpCrowd *c);

/* 1 while agent i's chase target is alive in a live crowd. */
int sp__chase_target_live(const SpCrowd *c, size_t i);

/* Serial pass: one frame of agent i's chase (walk, re-path, arrive, or
 * fail when the target is gone or out of reach). */
void sp__agent_chase(SpCrowd *c, Sink s, size_t i);

#endif
