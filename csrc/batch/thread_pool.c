/* thread_pool.c: the pthread pool behind batch planning (start once, run jobs, join on free). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "sp_error.h"
#include "sp_internal.h"
#include "saspu_threads.h"
#include "sp_claims.h"
#include "sp_wake_ahead.h"

/* Blocks from this size up get pages of their own (arena_limit). */
#define SP_POOL_MMAP_THRESHOLD (256 * 1024)

typedef struct PoolThread {
  struct SpThreadPool *pool;
  pthread_t tid;
  int index;
} PoolThread;

/* How long a worker, done with a job, and the caller, waiting for the
 * workers, look for the next event before they sleep: a frame's passes
 * follow each other within microseconds, and waking a sleeping thread
 * costs tens of them (more in a virtual machine). A worker spins this
 * long once after each job, so an idle pool costs nothing. */
#if !defined(SP_POOL_SPIN_NS)
#define SP_POOL_SPIN_NS 50000
#endif
/* The default half window a sleeping worker spins in around a frame's
 * first job once frames come at a steady period (sp_wake_ahead.h): off,
 * as a game may need every core between its updates. */
#if !defined(SP_POOL_AHEAD_NS)
#define SP_POOL_AHEAD_NS 0
#endif

/* A job is published by bumping `generation` (job, arg and active are
 * written before it, under the mutex); a thread that sees a new
 * generation, spinning or woken, runs the job if its index is below
 * `active` and it takes one of the job's places, then counts itself out
 * of `pending`. The other fields below the mutex are read and written
 * under it; `sleeping` counts the threads waiting on `wake`, so a job all
 * of whose threads spin needs no wake. */
struct SpThreadPool {
  SpAllocator alloc;
  size_t bytes;
  int size;
  int started; /* threads actually running (size - 1 once built) */
  PoolThread *threads;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  pthread_cond_t done;
  _Atomic unsigned long generation;
  int active;
  _Atomic int pending;
  /* the job's places not yet taken by a thread: its generation's low 32
   * bits above the count, so a thread late for one job takes no place of
   * the next (sp__thread_pool_help closes them when its share is done) */
  _Atomic uint64_t places;
  int quit;
  int keep; /* threads with an index at or above it leave (shrinking) */
  int sleeping;
  int caller_waits; /* the caller sleeps on `done` */
  SpThreadJob job;
  void *arg;
  SpWakeAhead ahead;
  unsigned long wakes; /* jobs that found a worker asleep (under the mutex) */
  /* when the running job's last worker took its place (the latest of
   * its workers' clocks, ns); and the time, over the jobs so far, that
   * jobs ran short of a worker: from each job's publication until its
   * last worker began, or until the caller closed the places of a worker
   * that never came (the caller's own, read between jobs) */
  _Atomic uint64_t joined_ns;
  _Atomic uint64_t late_ns;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a thread spins for: a job after generation `seen` (a worker), or
 * every worker of the job done (the caller). */
static int job_after(const SpThreadPool *pool, unsigned long seen) {
  return atomic_load_explicit(&((SpThreadPool *)pool)->generation,
                              memory_order_acquire) != seen;
}

static int workers_done(const SpThreadPool *pool, unsigned long unused) {
  (void)unused;
  return atomic_load_explicit(&((SpThreadPool *)pool)->pending,
                              memory_order_acquire) == 0;
}

/* Takes the pool's mutex. Its holders keep it for a few instructions,
 * and a thread that finds it taken spins for it instead of sleeping: a
 * sleeping thread is woken only at the unlock, and its wake takes tens
 * of microseconds (hundreds seen in virtual machines), which a worker
 * that spun for a job, seeing it as the caller still held the mutex,
 * would otherwise pay at every pass of a frame. */
static void pool_lock(SpThreadPool *pool) {
  for (unsigned n = 0; n < 4096; n++) {
    if (pthread_mutex_trylock(&pool->mutex) == 0) return;
    sp_spin_turn(n);
  }
  pthread_mutex_lock(&pool->mutex);
}

/* Spins until ready(pool, arg) or the clock reaches `end` (ns; 0: for
 * SP_POOL_SPIN_NS from now); 1 when it was ready. */
static int spin_until(int (*ready)(const SpThreadPool *, unsigned long),
                      const SpThreadPool *pool, unsigned long arg,
                      uint64_t end) {
  for (unsigned n = 0;; n++) {
    if (ready(pool, arg)) return 1;
    if (n % 64 == 0) {
      uint64_t t = now_ns();
      if (end == 0)
        end = t + SP_POOL_SPIN_NS;
      else if (t >= end)
        return 0;
    }
    sp_spin_turn(n);
  }
}

static int spin_for(int (*ready)(const SpThreadPool *, unsigned long),
                    const SpThreadPool *pool, unsigned long arg) {
  return spin_until(ready, pool, arg, 0);
}

static struct timespec timespec_of(uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  return ts;
}

/* A worker with nothing to do (the mutex held) waits for a job after
 * generation `seen`, or until it must leave: asleep, but around the time
 * a frame's first job is due, spinning (sp_wake_ahead.h). */
static void wait_for_job(SpThreadPool *pool, const PoolThread *self,
                         unsigned long seen) {
  while (!pool->quit && self->index < pool->keep &&
         atomic_load(&pool->generation) == seen) {
    uint64_t from, to, now = now_ns();
    int ahead = sp_wake_ahead_window(&pool->ahead, now, &from, &to);
    uint64_t target = ahead ? sp_wake_ahead_timer(&pool->ahead, from) : 0;
    if (ahead && now >= target) { /* the window is open: spin through it */
      pthread_mutex_unlock(&pool->mutex);
      /* a millisecond at a time: a pool freed or shrunk meanwhile is
       * seen under the mutex */
      spin_until(job_after, pool, seen,
                 to < now + 1000000u ? to : now + 1000000u);
      pool_lock(pool);
      continue; /* over: the window is closed when it looks again */
    }
    pool->sleeping++;
    if (ahead) {
      struct timespec at = timespec_of(target);
      if (pthread_cond_timedwait(&pool->wake, &pool->mutex, &at) == ETIMEDOUT)
        sp_wake_ahead_fired(&pool->ahead, target, now_ns());
    } else {
      pthread_cond_wait(&pool->wake, &pool->mutex);
    }
    pool->sleeping--;
  }
}

int sp_online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > SP_THREAD_POOL_MAX ? SP_THREAD_POOL_MAX : (int)n;
}

/* glibc gives each new thread that allocates a malloc arena of its own
 * (up to 8 per core), and an arena keeps the top of its heap after the
 * thread ends: a crowd's workers grow their buffers there, so every pool
 * of a level left tens of MB behind it. saspu's worker threads share
 * the main arena instead: the first pool sets M_ARENA_MAX to 1, unless
 * the environment chose (MALLOC_ARENA_MAX or GLIBC_TUNABLES). glibc
 * reads the limit when a thread first needs an arena, so it holds when
 * saspu's threads are the process's first to allocate (a game's own
 * threads that allocated earlier keep the arenas they had). */
static void arena_limit(void) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  if (getenv("MALLOC_ARENA_MAX") == NULL && getenv("GLIBC_TUNABLES") == NULL)
    mallopt(M_ARENA_MAX, 1);
#endif
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
  /* Workers grow their buffers in that arena at times the threads decide;
   * glibc raises its mmap threshold to the largest block freed, and its
   * trim threshold to twice that, so a closed world's memory could stay
   * in the heap's top, unreturned, by the luck of that order. A fixed
   * threshold keeps large blocks mapped: they go back when freed. */
  if (getenv("MALLOC_MMAP_THRESHOLD_") == NULL &&
      getenv("MALLOC_TRIM_THRESHOLD_") == NULL &&
      getenv("GLIBC_TUNABLES") == NULL)
    mallopt(M_MMAP_THRESHOLD, SP_POOL_MMAP_THRESHOLD);
#endif
}
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

/* A place in the job of generation `gen`, taken by a thread: 0 when the
 * caller closed them (or a newer job was published). */
static int take_place(SpThreadPool *pool, unsigned long gen) {
  uint64_t p = atomic_load_explicit(&pool->places, memory_order_relaxed);
  for (;;) {
    if (p >> 32 != (uint32_t)gen || (p & 0xFFFFFFFFu) == 0) return 0;
    if (atomic_compare_exchange_weak_explicit(&pool->places, &p, p - 1,
                                              memory_order_acq_rel,
                                              memory_order_relaxed))
      return 1;
  }
}

/* A worker took its place in the running job: the job's joined_ns
 * becomes the latest of its workers' start times. */
static void note_joined(SpThreadPool *pool) {
  uint64_t t = now_ns();
  uint64_t seen = atomic_load_explicit(&pool->joined_ns, memory_order_relaxed);
  while (seen < t && !atomic_compare_exchange_weak_explicit(
                         &pool->joined_ns, &seen, t, memory_order_relaxed,
                         memory_order_relaxed))
    ;
}

static void *pool_thread_main(void *p) {
  PoolThread *self = p;
  SpThreadPool *pool = self->pool;
  unsigned long seen = 0;
  int spun = 0; /* looked for the next job since the last one */
  pool_lock(pool);
  for (;;) {
    if (!spun && !pool->quit && self->index < pool->keep) {
      pthread_mutex_unlock(&pool->mutex);
      spin_for(job_after, pool, seen);
      pool_lock(pool);
      spun = 1;
    }
    wait_for_job(pool, self, seen);
    if (pool->quit || self->index >= pool->keep) break;
    seen = atomic_load(&pool->generation);
    if (self->index >= pool->active) continue;
    SpThreadJob job = pool->job;
    void *arg = pool->arg;
    pthread_mutex_unlock(&pool->mutex);
    spun = 0; /* awake now: it looks for the next job before sleeping */
    if (!take_place(pool, seen)) { /* too late: the caller did its share */
      pool_lock(pool);
      continue;
    }
    note_joined(pool);
    job(arg, self->index);
    if (atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel) ==
        1) {
      pool_lock(pool);
      if (pool->caller_waits) pthread_cond_signal(&pool->done);
      continue; /* the mutex held, as the loop expects */
    }
    pool_lock(pool);
  }
  pthread_mutex_unlock(&pool->mutex);
  return NULL;
}

/* Asks the running threads to stop and joins them. */
static void pool_stop(SpThreadPool *pool) {
  pool_lock(pool);
  pool->quit = 1;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (int i = 1; i <= pool->started; i++)
    pthread_join(pool->threads[i].tid, NULL);
  pool->started = 0;
}

static void pool_release(SpThreadPool *pool) {
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->mutex);
  sp__mem_free(pool->alloc, pool, pool->bytes);
}

/* Allocates the pool and its thread records in one block, then starts
 * the threads one by one; a failure stops and joins those started. */
SpStatus sp_thread_pool_new(int size, SpAllocator alloc, SpThreadPool **out,
                            SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  if (size <= 0) size = sp_online_cores();
  if (size > SP_THREAD_POOL_MAX) size = SP_THREAD_POOL_MAX;
  size_t bytes = sizeof(SpThreadPool) + (size_t)size * sizeof(PoolThread);
  SpThreadPool *pool = sp__mem_alloc(alloc, bytes);
  if (pool == NULL) return sp__error_memory(err);
  memset(pool, 0, bytes);
  pool->alloc = alloc;
  pool->bytes = bytes;
  pool->size = size;
  pool->keep = size;
  pool->threads = (PoolThread *)(pool + 1);
  if (pthread_mutex_init(&pool->mutex, NULL) != 0) {
    sp__mem_free(alloc, pool, bytes);
    return sp__error_memory(err);
  }
  pool->ahead.ahead_ns = SP_POOL_AHEAD_NS;
  pthread_condattr_t monotonic; /* the clock of the wake-ahead timers */
  int cond_failed = pthread_condattr_init(&monotonic) != 0;
  if (!cond_failed) {
    cond_failed = pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC) != 0 ||
                  pthread_cond_init(&pool->wake, &monotonic) != 0;
    pthread_condattr_destroy(&monotonic);
  }
  if (cond_failed) {
    pthread_mutex_destroy(&pool->mutex);
    sp__mem_free(alloc, pool, bytes);
    return sp__error_memory(err);
  }
  if (pthread_cond_init(&pool->done, NULL) != 0) {
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
    sp__mem_free(alloc, pool, bytes);
    return sp__error_memory(err);
  }
  if (size > 1) pthread_once(&arena_once, arena_limit);
  for (int i = 1; i < size; i++) {
    PoolThread *t = &pool->threads[i];
    t->pool = pool;
    t->index = i;
    int rc = pthread_create(&t->tid, NULL, pool_thread_main, t);
    if (rc != 0) {
      pool_stop(pool);
      pool_release(pool);
      sp__error_clear(err);
      return sp__error_set(err, SP_ERR_MEMORY, SP_E_MEMORY, SP_FIELD_NONE,
                           "thread pool: could not start thread %d of %d "
                           "(%s)",
                           i, size - 1, strerror(rc));
    }
    pool->started = i;
  }
  *out = pool;
  return SP_OK;
}

void sp_thread_pool_free(SpThreadPool *pool) {
  if (pool == NULL) return;
  pool_stop(pool);
  pool_release(pool);
}

int sp_thread_pool_size(const SpThreadPool *pool) { return pool->size; }

void sp_thread_pool_shrink(SpThreadPool *pool, int size) {
  if (size < 1) size = 1;
  if (size >= pool->size) return;
  pool_lock(pool);
  pool->keep = size;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (int i = size; i <= pool->started; i++)
    pthread_join(pool->threads[i].tid, NULL);
  pool->started = size - 1;
  pool->size = size;
}

/* Publishes a job for workers 1..workers-1 and runs worker 0's share on
 * the calling thread; with `helpers`, the places no thread has taken by
 * then are closed, so the call waits only for the threads that started.
 * Returns when they are done. */
static void run_job(SpThreadPool *pool, int workers, SpThreadJob job, void *arg,
                    int helpers) {
  if (workers > pool->size) workers = pool->size;
  if (workers <= 1) {
    job(arg, 0);
    pool->ahead.last_done = now_ns(); /* a part of the same burst */
    return;
  }
  pool_lock(pool);
  pool->job = job;
  pool->arg = arg;
  pool->active = workers;
  atomic_store(&pool->pending, workers - 1);
  uint64_t published = now_ns();
  atomic_store_explicit(&pool->joined_ns, published, memory_order_relaxed);
  sp_wake_ahead_publish(&pool->ahead, published);
  unsigned long gen =
      atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release) + 1;
  atomic_store_explicit(&pool->places,
                        (uint64_t)(uint32_t)gen << 32 | (uint32_t)(workers - 1),
                        memory_order_release);
  if (pool->sleeping > 0) {
    pool->wakes++;
    pthread_cond_broadcast(&pool->wake);
  }
  pthread_mutex_unlock(&pool->mutex);
  job(arg, 0);
  uint64_t closed = 0; /* when a worker that never came was let go */
  if (helpers) {
    uint64_t open = atomic_exchange_explicit(
        &pool->places, (uint64_t)(uint32_t)gen << 32, memory_order_acq_rel);
    int unstarted = (int)(open & 0xFFFFFFFFu);
    if (unstarted > 0) {
      closed = now_ns();
      atomic_fetch_sub(&pool->pending, unstarted);
    }
  }
  if (!spin_for(workers_done, pool, 0)) {
    pool_lock(pool);
    pool->caller_waits = 1;
    while (atomic_load(&pool->pending) > 0)
      pthread_cond_wait(&pool->done, &pool->mutex);
    pool->caller_waits = 0;
    pthread_mutex_unlock(&pool->mutex);
  }
  /* every worker that came is done: its start time is in */
  uint64_t joined = closed != 0 ? closed
                                : atomic_load_explicit(&pool->joined_ns,
                                                       memory_order_relaxed);
  atomic_fetch_add_explicit(&pool->late_ns, joined - published,
                            memory_order_relaxed);
  pool->ahead.last_done = now_ns();
}

void sp_thread_pool_run(SpThreadPool *pool, int workers, SpThreadJob job,
                        void *arg) {
  run_job(pool, workers, job, arg, 0);
}

unsigned long sp__thread_pool_wakes(SpThreadPool *pool) {
  pool_lock(pool);
  unsigned long n = pool->wakes;
  pthread_mutex_unlock(&pool->mutex);
  return n;
}

uint64_t sp__thread_pool_late_ns(const SpThreadPool *pool) {
  return atomic_load_explicit(&((SpThreadPool *)pool)->late_ns,
                              memory_order_relaxed);
}

void sp_thread_pool_wake_ahead(SpThreadPool *pool, double ms) {
  pool_lock(pool);
  if (!(ms > 0.0)) ms = 0.0; /* NaN too */
  if (ms > 1000.0) ms = 1000.0;
  pool->ahead.ahead_ns = (uint64_t)(ms * 1e6);
  pthread_mutex_unlock(&pool->mutex);
}

void sp__thread_pool_help(SpThreadPool *pool, int workers, SpThreadJob job,
                          void *arg) {
  run_job(pool, workers, job, arg, 1);
}
