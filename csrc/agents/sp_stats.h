/* sp_stats.h: private to csrc/agents/: a crowd's counters and memory (stats.c): what the frame loop asks of them. */
#ifndef sp_stats_h
#define sp_stats_h

#include "sp_agents.h"

/* Shrinks the event buffers that the last frames used less than a quarter
 * of (serial, before a frame's first event). */
void sp__crowd_trim_events(SpCrowd *c);

#endif
