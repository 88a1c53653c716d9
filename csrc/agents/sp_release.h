/* sp_release.h: private to csrc/agents/: a step's reserved place given up (release.c). */
#ifndef sp_release_h
#define sp_release_h

#include "sp_agents.h"

/* Drops the running step's reservation (release.c), at once. */
void sp__agent_release(SpCrowd *c, size_t i);

/* The same for a pass on workers: the place's count is lowered when the
 * pass ends (sp__release_flush). */
void sp__agent_release_by(SpCrowd *c, Sink s, size_t i);

/* Lowers the counts of the places the workers' last pass gave up (serial). */
void sp__release_flush(SpCrowd *c);

/* Frees the workers' lists of places, and their resident bytes. */
void sp__release_free(SpCrowd *c);

size_t sp__release_bytes(const SpCrowd *c);

#endif
