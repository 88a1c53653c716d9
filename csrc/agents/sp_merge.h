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

/* A pass on the calling thread alone that wrote the events of its first
 * part (a choose pass) to worker 0's buffer and those of its second part
 * (the take, planning inline) to the frame's, from `mark` on: puts the
 * first part's before the second's, and adds worker 0's counts. The
 * first part rarely says anything: then nothing moves. Without memory
 * for them, the first part's events are lost (counted in c->lost, and
 * out of the counters). */
void sp__merge_ahead(SpCrowd *c, size_t mark);

/* Adds the events the calling thread wrote (counted as written) to the
 * crowd's counters. */
void sp__count_serial(SpCrowd *c);

#endif
