/* sp_walk.h: private to csrc/agents/: walking a distance field (walk.c). */
#ifndef sp_walk_h
#define sp_walk_h

#include "sp_agents.h"

enum { WALK_NOT = 0, WALK_STAYED, WALK_ARRIVED };

/* The distance field a walker follows: its place, or its target cell. */
uint32_t sp__agent_field_key(const SpCrowd *c, const Agent *a);

/* Walks agent i toward its target cell the cells due by now (its due
 * tick, then one each walk_ticks); 1 on arrival, which on its target cell
 * is at once. Needs a field (with a grid): without one the agent asks the
 * serial pass (F_BIND). */
int sp__agent_walk(SpCrowd *c, size_t i);

/* Walks, as sp__agent_walk, those of the n agents listed that walk now
 * (walking, no F_BIND) on a grid; walked[k] gets WALK_NOT for the others,
 * else WALK_STAYED or WALK_ARRIVED. */
void sp__agent_walk_many(SpCrowd *c, const uint32_t *due, size_t n,
                         uint8_t *walked);

/* Ticks per cell at the crowd's speed (rounded down, at least 1). */
uint32_t sp__walk_ticks(float speed);

/* 1 when walker i sleeps until its due tick: nothing to do before (not on
 * its target, not binding). */
int sp__walk_sleeps(const SpCrowd *c, size_t i);

/* Serial, at a frame's start: wakes the walkers whose field the world
 * dropped since the last frame (evicted, or the grid changed): they ask
 * the serial pass for it, as a walker visited every frame would. */
void sp__walk_check_fields(SpCrowd *c);

/* After a load: walker i's saved progress back into a due tick. */
void sp__walk_loaded(SpCrowd *c, size_t i);

#endif
