/* sp_claims.h: how workers share a pass's chunks: each starts on a range of its own, the same range every pass, then helps the others; and the pause of a worker spinning while it waits for the others. */
#ifndef sp_claims_h
#define sp_claims_h

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "saspu_threads.h"

/* Turn `turn` (0, 1, ...) of a spin wait for other threads (a thread
 * pool's job, a shared drain): tells the core so, where it has a way,
 * and every 64th turn gives the core up to a thread waiting for it. The
 * scheduler may queue the very thread the spinner waits for on the
 * spinner's core (a worker woken by its caller, seen on a 2-vCPU guest),
 * and a spin without yields then lasts until it gives up. */
static inline void sp_spin_turn(unsigned turn) {
  if (turn % 64 == 63) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* A pass over `items` chunks on `workers` workers. Worker k claims runs
 * of neighbouring chunks from the front of range k ([k * items / workers,
 * (k+1) * items / workers)), then helps the others from the back of
 * theirs. A chunk's memory then stays in the cache of the core that ran
 * it in the pass before: the passes of a frame (and the frames) hand
 * their agents on from pass to pass, and a line another core wrote costs
 * more than one from memory; a helper that starts late (a thread's wake
 * takes tens of microseconds) takes the chunks its owner would reach
 * last. Each range is one word (front and back, 32 bits each) on a line
 * of its own; every chunk is claimed exactly once. With one worker the
 * chunks go in order. */
typedef struct SpClaimRange {
  _Alignas(64) _Atomic uint64_t span; /* front << 32 | back */
} SpClaimRange;

typedef struct SpClaims {
  SpClaimRange range[SP_THREAD_POOL_MAX];
  int workers;
  size_t run; /* chunks claimed at once */
} SpClaims;

/* Splits [0, items) among `workers` (1..SP_THREAD_POOL_MAX), claimed
 * `run` at a time (at least 1); items < 2^32. Not thread-safe: before
 * the job starts. */
static inline void sp__claims_init(SpClaims *cl, size_t items, int workers,
                                   size_t run) {
  if (workers < 1) workers = 1;
  if (workers > SP_THREAD_POOL_MAX) workers = SP_THREAD_POOL_MAX;
  cl->workers = workers;
  cl->run = run < 1 ? 1 : run;
  for (int k = 0; k < workers; k++) {
    uint64_t lo = items * (size_t)k / (size_t)workers;
    uint64_t hi = items * (size_t)(k + 1) / (size_t)workers;
    atomic_init(&cl->range[k].span, lo << 32 | hi);
  }
}

/* A run of chunks between 8 and 16 per worker's range, at most 16: the
 * workers meet at a counter a few times a pass. */
static inline size_t sp__claims_run(size_t items, int workers) {
  size_t run = items / ((size_t)(workers < 1 ? 1 : workers) * 8);
  return run < 1 ? 1 : run > 16 ? 16 : run;
}

/* A run from the front (the owner) or the back (a helper) of range r;
 * 0 when it is empty. */
static inline int sp__claims_take(SpClaimRange *r, size_t run, int back,
                                  size_t *first, size_t *end) {
  uint64_t span = atomic_load_explicit(&r->span, memory_order_relaxed);
  for (;;) {
    uint64_t f = span >> 32, b = span & 0xFFFFFFFFu;
    if (f >= b) return 0;
    /* a quarter of what is left, at most `run`: the last runs of a pass
     * are short, so no worker waits long for another's */
    uint64_t n = (b - f + 3) / 4;
    if (n > run) n = run;
    uint64_t next = back ? f << 32 | (b - n) : (f + n) << 32 | b;
    if (atomic_compare_exchange_weak_explicit(&r->span, &span, next,
                                              memory_order_relaxed,
                                              memory_order_relaxed)) {
      *first = back ? b - n : f;
      *end = back ? b : f + n;
      return 1;
    }
  }
}

/* Claims worker k's next run [*first, *end); 0 when every chunk is
 * claimed. Worker k's own range first, then the others' in turn. */
static inline int sp__claims_next(SpClaims *cl, int k, size_t *first,
                                  size_t *end) {
  if (k < 0) k = 0;
  for (int j = 0; j < cl->workers; j++)
    if (sp__claims_take(&cl->range[(k + j) % cl->workers], cl->run, j > 0,
                        first, end))
      return 1;
  return 0;
}

/* sp_thread_pool_run for a job whose workers share its work by claims:
 * worker 0 runs on the calling thread, each of workers 1..workers-1 at
 * most once, and the call does not wait for a thread that had not
 * started when worker 0's share was done (all the work was claimed by
 * then). A sleeping thread may take longer to wake than a pass lasts
 * (hundreds of microseconds, seen in virtual machines): the caller then
 * goes on without it (thread_pool.c). */
void sp__thread_pool_help(SpThreadPool *pool, int workers, SpThreadJob job,
                          void *arg);

/* Chunks claimed from the front of range 0: with one worker, how far the
 * pass got. */
static inline size_t sp__claims_front(const SpClaims *cl) {
  return (size_t)(atomic_load_explicit(&((SpClaims *)cl)->range[0].span,
                                       memory_order_relaxed) >>
                  32);
}

#endif
