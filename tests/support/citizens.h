/* citizens.h: a crowd of citizens cycling work / end_work with timed steps and no places, for the tests of timed crowds. */
#ifndef citizens_h
#define citizens_h

#include <stddef.h>
#include <stdint.h>

#include "saspu_agents.h"
#include "sp_builtin.h"

typedef struct Citizens {
  SpBuiltSpec *b;
  SpDomain *d;
  SpWorld *w;
  SpCrowd *c;
} Citizens;

/* n citizens (plain allocator) whose steps last [lo, hi] seconds, on
 * `threads` workers, durations drawn from `seed`; every pass with work
 * in two chunks is shared by the workers (parallel_min 1), so the tests
 * run the threads' paths in small frames too. Fails the test (cmocka)
 * on any error. */
void citizens_open(Citizens *t, size_t n, float lo, float hi, int threads,
                   unsigned seed);
/* The same with the world and the crowd on `alloc`. */
void citizens_open_on(Citizens *t, size_t n, float lo, float hi, int threads,
                      unsigned seed, SpAllocator alloc);
/* The same with the crowd's parallel_min (0: the library's default). */
void citizens_open_min(Citizens *t, size_t n, float lo, float hi, int threads,
                       unsigned seed, uint32_t parallel_min);
/* The same with the crowd's goal_budget. */
void citizens_open_budget(Citizens *t, size_t n, float lo, float hi,
                          int threads, unsigned seed, uint32_t goal_budget);
void citizens_close(Citizens *t);
/* Fails the test unless x and y are the same event (agent, kind, reason,
 * goal, action, detail). */
void same_event(const SpAgentEvent *x, const SpAgentEvent *y);
/* Fails the test unless the last frames of a and b gave the same events
 * (agent, kind, reason, goal, action, detail), in the same order. */
void same_frame_events(const SpCrowd *a, const SpCrowd *b);

#endif
