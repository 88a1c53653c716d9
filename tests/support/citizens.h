/* citizens.h: a crowd of citizens cycling work / end_work with timed steps and no places, for the tests of timed crowds. */
#ifndef citizens_h
#define citizens_h

#include <stddef.h>

#include "saspu_agents.h"
#include "sp_builtin.h"

typedef struct Citizens {
  SpBuiltSpec *b;
  SpDomain *d;
  SpWorld *w;
  SpCrowd *c;
} Citizens;

/* n citizens (plain allocator) whose steps last [lo, hi] seconds, on
 * `threads` workers, durations drawn from `seed`. Fails the test (cmocka)
 * on any error. */
void citizens_open(Citizens *t, size_t n, float lo, float hi, int threads,
                   unsigned seed);
/* The same with the world and the crowd on `alloc`. */
void citizens_open_on(Citizens *t, size_t n, float lo, float hi, int threads,
                      unsigned seed, SpAllocator alloc);
void citizens_close(Citizens *t);

#endif
