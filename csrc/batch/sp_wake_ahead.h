/* sp_wake_ahead.h: when a thread pool's next frame of jobs is due, so its sleeping workers can be awake for it (thread_pool.c). */
#ifndef sp_wake_ahead_h
#define sp_wake_ahead_h

#include <stdint.h>

#include "saspu_threads.h"

/* A game updates its world once a frame: the pool's jobs come in bursts
 * (a frame's passes, microseconds apart) one frame period apart, and
 * its workers sleep in between. Waking a sleeping thread costs the
 * caller a system call and the job the thread's wake-up (tens of
 * microseconds, hundreds seen in virtual machines), every frame. Once
 * the bursts come at a steady period, a worker that sleeps sets a timer
 * for `ahead_ns` before the next one is due and spins until its first
 * job or `ahead_ns` after the due time. The caller writes the record
 * when it publishes (under the pool's mutex), the workers read it there;
 * last_done is the caller's own. */
typedef struct SpWakeAhead {
  uint64_t ahead_ns;  /* half the window a worker spins in; 0: off */
  uint64_t burst_at;  /* when the last burst's first job was published */
  uint64_t seen[4];   /* the last periods between bursts, newest first */
  uint64_t period;    /* their median: the period expected */
  uint64_t last_done; /* when the caller's last job returned */
  uint64_t late_ns;   /* how late the workers' timers go off (a decaying
                         maximum: a virtual machine's, seen 0.1-0.3 ms) */
  int steady;         /* the newest period agrees with the median */
} SpWakeAhead;

/* A job published this long after the last one returned starts a burst:
 * far above the gaps between a frame's passes, below a frame. */
#define SP_WAKE_BURST_GAP_NS 1000000u

/* The median of four periods (the mean of the middle two); 0 while one
 * is unknown. A late frame barely moves it: that frame and the short
 * one after it (back on the beat) are not steady, the next one is. */
static inline uint64_t sp_wake_ahead_median(const uint64_t seen[4]) {
  uint64_t v[4] = {seen[0], seen[1], seen[2], seen[3]};
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      uint64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[0] == 0 ? 0 : (v[1] + v[2]) / 2;
}

/* The caller publishes a job at time t (ns). */
static inline void sp_wake_ahead_publish(SpWakeAhead *w, uint64_t t) {
  if (w->last_done != 0 && t - w->last_done < SP_WAKE_BURST_GAP_NS) return;
  uint64_t p = w->burst_at != 0 ? t - w->burst_at : 0;
  for (int k = 3; k > 0; k--) w->seen[k] = w->seen[k - 1];
  w->seen[0] = p;
  w->period = sp_wake_ahead_median(w->seen);
  uint64_t q = w->period;
  w->steady = q > 0 && p < q + q / 4 && q < p + p / 4;
  w->burst_at = t;
}

/* The window [*from, *to) in which the next burst's first job is due,
 * as seen at `now`: 0 when there is none to wait for (off, no steady
 * period, a window longer than a quarter of the period, or the window
 * over: that burst is late, and the workers sleep until it comes). */
static inline int sp_wake_ahead_window(const SpWakeAhead *w, uint64_t now,
                                       uint64_t *from, uint64_t *to) {
  if (w->ahead_ns == 0 || !w->steady || w->ahead_ns * 8 > w->period) return 0;
  uint64_t due = w->burst_at + w->period;
  if (due + w->ahead_ns <= now) return 0;
  *from = due - w->ahead_ns;
  *to = due + w->ahead_ns;
  return 1;
}

/* When a worker's timer should go off for a window opening at `from`:
 * as early as timers have gone off late. */
static inline uint64_t sp_wake_ahead_timer(const SpWakeAhead *w,
                                           uint64_t from) {
  return w->late_ns < from ? from - w->late_ns : 0;
}

/* A timer set for `target` went off at `now`: it is as late as that at
 * least, and an eighth less than the latest so far at most; never more
 * than ahead_ns, so a worker spins at most three times ahead_ns a frame
 * however late its timers go off. */
static inline void sp_wake_ahead_fired(SpWakeAhead *w, uint64_t target,
                                       uint64_t now) {
  uint64_t late = now > target ? now - target : 0;
  uint64_t kept = w->late_ns - w->late_ns / 8;
  w->late_ns = late > kept ? late : kept;
  if (w->late_ns > w->ahead_ns) w->late_ns = w->ahead_ns;
}

/* Jobs published on `pool` so far that found a worker asleep and woke it
 * (thread_pool.c; for tests and benches). */
unsigned long sp__thread_pool_wakes(SpThreadPool *pool);
/* The time, in ns over the jobs run on `pool` so far, that jobs ran
 * short of a worker: from each job's publication until its last worker
 * began (a sleeping worker's wake), or until the caller, done with its
 * share, let go a worker that had not come (thread_pool.c). */
uint64_t sp__thread_pool_late_ns(const SpThreadPool *pool);

#endif
