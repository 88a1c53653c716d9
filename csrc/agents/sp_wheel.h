/* sp_wheel.h: private to csrc/agents/: the due-time wheel (wheel.c, sweep.c): agents asleep until their due tick, woken in order. */
#ifndef sp_wheel_h
#define sp_wheel_h

#include "sp_agents.h"
#include "sp_due.h"

int sp__wheel_new(SpCrowd *c);
void sp__wheel_free(SpCrowd *c);
size_t sp__wheel_bytes(const SpCrowd *c);
/* After a visit of agent i by worker wk: asleep (on a timer, filed in
 * the worker's own wheel, a batch at a time) or awake at the next
 * advance. */
void sp__wheel_settle(SpCrowd *c, int wk, size_t i);
/* sp__wheel_settle for a visit before the advance pass that stands in
 * for its visit (the take pass's, update.c): an agent left awake is
 * asleep for the rest of this frame's passes, listed by the worker, and
 * woken by sp__wheel_wake_later. */
void sp__wheel_settle_early(SpCrowd *c, int wk, size_t i);
/* sp__wheel_settle_early for an agent whose timed step (acting, not
 * interruptible) has just started and ends after this frame, in a frame
 * that is no sweep: what the settle would find out, known already. */
void sp__wheel_settle_started(SpCrowd *c, int wk, size_t i);
/* Serial, after the advance pass (and at a frame's start, should an
 * update have stopped before it): the agents settle_early listed awake. */
void sp__wheel_wake_later(SpCrowd *c);
/* Serial, after a pass: the timers of the workers' last batches filed. */
void sp__wheel_flush(SpCrowd *c);
/* At a frame's start (clock advanced), called serially: marks the agents
 * of the wheels' entries that came due (due_marks; their records are read
 * by the advance pass, sp_wheel_due_visit), or wakes every agent for a
 * long frame. */
void sp__wheel_frame(SpCrowd *c);
/* With drain_in_pass set before sp__wheel_frame, the frame's drain waits
 * for the choose pass: each of its workers calls this first, claims
 * wheels to drain until none is left, then waits until all are drained
 * (a claimed wheel is drained without waiting, so none waits forever). */
void sp__wheel_drain_share(SpCrowd *c);
/* sp_wheel_due_visit's rest, for a mark not due: 0, its timer filed
 * again by worker wk (due later in the tick drained, or in a later lap),
 * or the mark stale (the timer it was filed for went). */
int sp__wheel_due_later(SpCrowd *c, int wk, size_t i);
/* The advance pass's check of an agent marked due and not awake: 1 when
 * its wait is over (visit it), else sp__wheel_due_later's 0. Most marks
 * are due: that case is inline. */
static inline int sp_wheel_due_visit(SpCrowd *c, int wk, size_t i) {
  if ((sp_wheel_timed(c, c->agents[i].phase) || sp_walk_timed(c, i)) &&
      sp_due_passed(c, i))
    return 1;
  return sp__wheel_due_later(c, wk, i);
}
/* After the advance pass's visit of [lo, hi) (whole words of a chunk):
 * no due mark left there. */
void sp__wheel_unmark_chunk(SpCrowd *c, size_t lo, size_t hi);
/* After a load: the seconds left in the time slots become due times
 * from the clock loaded, every agent awake, the wheel empty. */
void sp__wheel_loaded(SpCrowd *c);
void sp__wheel_wake_all(SpCrowd *c);
/* The agents of [lo, hi) awake or marked due, in order (whole words of a
 * chunk). */
size_t sp__wheel_awake_list(const SpCrowd *c, size_t lo, size_t hi,
                            uint32_t *out);
/* A long frame (sweep.c): the agents of [lo, hi) with something due, in
 * order: not free or idle, not moving without the caller's answer, not
 * on a timer (sp_wheel_timed) still running. */
size_t sp__wheel_sweep_list(const SpCrowd *c, size_t lo, size_t hi,
                            uint32_t *out);

/* 1 when agent i runs an interruptible step, walking to it, waiting for
 * the engine's move or for a place, or acting. */
int sp__agent_interruptible_now(const SpCrowd *c, size_t i);

/* Doubles a full list of agents or places (wheel.c); 0 on memory.
 * `locked`: a worker grows it, under the world's allocator lock. */
int sp__list_grow(SpCrowd *c, uint32_t **e, size_t *cap, int locked);
/* Frees such a list; empty, with no capacity, after. */
void sp__list_free(SpCrowd *c, uint32_t **e, size_t *count, size_t *cap);

#endif
