/* sp_claims.h: how workers share a pass's chunks: each starts on a range of its own, the same range every pass, then helps the others. */
#ifndef sp_claims_h
#define sp_claims_h

#include <stdatomic.h>
#include <stddef.h>

#include "saspu_threads.h"

/* A pass over `items` chunks on `workers` workers. Worker k claims runs
 * of neighbouring chunks from range k first ([k * items / workers, (k+1)
 * * items / workers)), then from the ranges after it. A chunk's memory
 * then stays in the cache of the core that ran it in the pass before:
 * the passes of a frame (and the frames) hand their agents from pass to
 * pass, and a line another core wrote costs more than one from memory.
 * Each range's counter is on a line of its own; every chunk is claimed
 * exactly once. With one worker the chunks go in order. */
typedef struct SpClaimRange {
  _Alignas(64) atomic_size_t next;
  size_t end;
} SpClaimRange;

typedef struct SpClaims {
  SpClaimRange range[SP_THREAD_POOL_MAX];
  int workers;
  size_t run; /* chunks claimed at once */
} SpClaims;

/* Splits [0, items) among `workers` (1..SP_THREAD_POOL_MAX), claimed
 * `run` at a time (at least 1). Not thread-safe: before the job starts. */
static inline void sp__claims_init(SpClaims *cl, size_t items, int workers,
                                   size_t run) {
  if (workers < 1) workers = 1;
  if (workers > SP_THREAD_POOL_MAX) workers = SP_THREAD_POOL_MAX;
  cl->workers = workers;
  cl->run = run < 1 ? 1 : run;
  for (int k = 0; k < workers; k++) {
    atomic_init(&cl->range[k].next, items * (size_t)k / (size_t)workers);
    cl->range[k].end = items * (size_t)(k + 1) / (size_t)workers;
  }
}

/* A run of chunks between 8 and 16 per worker's range, at most 16: the
 * workers meet at a counter a few times a pass. */
static inline size_t sp__claims_run(size_t items, int workers) {
  size_t run = items / ((size_t)(workers < 1 ? 1 : workers) * 8);
  return run < 1 ? 1 : run > 16 ? 16 : run;
}

/* Claims worker k's next run [*first, *end); 0 when every chunk is
 * claimed. Worker k's own range first, then the others' in turn. */
static inline int sp__claims_next(SpClaims *cl, int k, size_t *first,
                                  size_t *end) {
  if (k < 0) k = 0;
  for (int j = 0; j < cl->workers; j++) {
    SpClaimRange *r = &cl->range[(k + j) % cl->workers];
    if (atomic_load_explicit(&r->next, memory_order_relaxed) >= r->end)
      continue;
    size_t t = atomic_fetch_add_explicit(&r->next, cl->run,
                                         memory_order_relaxed);
    if (t >= r->end) continue;
    *first = t;
    *end = t + cl->run < r->end ? t + cl->run : r->end;
    return 1;
  }
  return 0;
}

#endif
