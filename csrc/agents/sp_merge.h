/* sp_merge.h: private to csrc/agents/: a parallel pass's events merged into the frame's buffer, and the crowd's event counters (merge.c). */
#ifndef sp_merge_h
#define sp_merge_h

#include "sp_agents.h"

/* Merges the events of the parallel pass just run (each chunk's a run of
 * its worker's buffer, ChunkRec.start and count) into the frame's buffer
 * in chunk order, on `workers` workers of `pool` when they are many; the
 * workers counted them by kind as they wrote them, and the calling thread
 * adds their counts. When the buffer cannot grow to hold them all, the
 * chunks go in one by one and the events of those that do not fit are
 * lost (counted in c->lost, and out of the counters). Serial: between
 * passes. */
void sp__merge_pass(SpCrowd *c, SpThreadPool *pool, int workers);

/* Adds the events the calling thread wrote (counted as written) to the
 * crowd's counters. */
void sp__count_serial(SpCrowd *c);

#endif
