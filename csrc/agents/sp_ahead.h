/* sp_ahead.h: private to csrc/agents/: the advance pass's look-ahead (ahead.c). */
#ifndef sp_ahead_h
#define sp_ahead_h

#include "sp_agents.h"

/* Agents whose step ends are scattered over the crowd's arrays, so each
 * visit would wait on several cache misses in turn (record, population
 * rows). Requested this many awake agents ahead, the misses
 * of several agents overlap instead. */
#if !defined(SP_AHEAD_AGENTS)
#define SP_AHEAD_AGENTS 8
#endif

/* At a frame's start: no worker's cursor runs on. */
void sp__ahead_reset(SpCrowd *c);

/* At the start of the advance over chunk `chunk`: the cursor runs on
 * when it reached the chunk from the one before, else starts at the
 * chunk's first awake agent and requests the first few. Alone, it reads
 * the whole crowd's bits; else those of the run of chunks the worker
 * claimed (a->run_end), which no other worker writes: the misses of a
 * chunk's first agents then overlap the visits of the chunk before. */
void sp__ahead_chunk(SpCrowd *c, Ahead *a, size_t chunk, int alone);

/* Once per awake agent the worker visits: requests one more, and returns
 * it (SIZE_MAX when none is left). Only a hint: what it requests never
 * changes what the pass does. */
size_t sp__ahead_next(const SpCrowd *c, Ahead *a);

#endif
