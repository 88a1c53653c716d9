/* saspu_threads.h: a small pthread pool that runs one function on several workers at once (shared by populations and crowds). */
#ifndef saspu_threads_h
#define saspu_threads_h

#include "saspu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest pool; also the most workers a population plans with. */
#if !defined(SP_THREAD_POOL_MAX)
#define SP_THREAD_POOL_MAX 64
#endif

/* A pool of `size` workers: worker 0 is the thread that calls
 * sp_thread_pool_run, workers 1..size-1 are threads started once by
 * sp_thread_pool_new and parked on a condition variable between jobs.
 * A pool of size 1 starts no thread at all. One thread at a time may
 * call sp_thread_pool_run on a given pool. */
typedef struct SpThreadPool SpThreadPool;

/* The job: called once per participating worker, with its index. */
typedef void (*SpThreadJob)(void *arg, int worker);

/* Starts a pool of `size` workers; 0 means the online cores. Sizes over
 * SP_THREAD_POOL_MAX are clamped. On failure (memory, or a thread that
 * could not start: SP_ERR_MEMORY with the reason in err) *out is NULL and
 * every thread already started has been joined. */
SP_API SpStatus sp_thread_pool_new(int size, SpAllocator alloc,
                                   SpThreadPool **out, SpError *err);

/* Wakes the threads, joins them and releases the pool; NULL is ignored.
 * Must not be called while a job runs. */
SP_API void sp_thread_pool_free(SpThreadPool *pool);

SP_API int sp_thread_pool_size(const SpThreadPool *pool);

/* Stops and joins the threads of workers size..current-1, so the pool
 * runs at most `size` workers (at least 1) from then on; allocates
 * nothing. A size at or above the current one changes nothing. Must not
 * be called while a job runs. */
SP_API void sp_thread_pool_shrink(SpThreadPool *pool, int size);

/* Runs job(arg, w) for w = 0..workers-1 (clamped to 1..size): w = 0 on
 * the calling thread, the others on pool threads; returns when all have
 * returned. Every write made by a worker happens before the return. */
SP_API void sp_thread_pool_run(SpThreadPool *pool, int workers, SpThreadJob job,
                               void *arg);

/* Once jobs come in bursts at a steady period (a game's frames), the
 * pool's sleeping threads wake `ms` before the next burst is due and
 * spin until its first job or `ms` after the due time, so the job finds
 * them awake; a window over a quarter of the period is not kept. 0 turns
 * this off (threads then sleep until a job wakes them); at most 1000.
 * The default is 0 (off; a build may set SP_POOL_AHEAD_NS). Thread-safe;
 * takes effect at the next wait. */
SP_API void sp_thread_pool_wake_ahead(SpThreadPool *pool, double ms);

/* The online cores (sysconf), at least 1. */
SP_API int sp_online_cores(void);

#ifdef __cplusplus
}
#endif

#endif
