/* sp_frame.h: private to csrc/agents/: what the passes of a frame share (update.c runs the frame, chunk_visit.c a pass's visit of a chunk, bind_pass.c its serial binding pass). */
#ifndef sp_frame_h
#define sp_frame_h

#include <time.h>

#include "sp_agents.h"

/* Agents with work due are far apart in memory: their records are
 * requested this many agents before they are used. */
#define SP_PREFETCH_AHEAD 6

/* The monotonic clock in ms, for the update's parts. */
static inline double sp_frame_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The agents of [lo, hi) with any bit of `flag` set, in order, read from
 * their records: a chunk whose list overflowed, the binding pass's
 * chunks (a few a frame). */
static inline size_t sp_chunk_with_flag(const SpCrowd *c, size_t lo, size_t hi,
                                        uint8_t flag, uint32_t *out) {
  size_t n = 0;
  for (size_t i = lo; i < hi; i++) {
    out[n] = (uint32_t)i;
    n += (c->agents[i].flags & flag) != 0;
  }
  return n;
}

/* The serial binding pass, after the advance pass: reservations and
 * fields in agent order (bind_pass.c); sets each chunk's `taken`, the
 * places reserved whose agents' rows PASS_COMMIT writes. Returns how many
 * places were so reserved. */
size_t sp__bind_pass(SpCrowd *c);

#endif
