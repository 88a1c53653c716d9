/* sp_due.h: private to csrc/agents/: due times of agents, kept in ticks, the helpers every stage of the frame loop uses to read and set them (wheel.c keeps the wheel they feed: sp_wheel.h). */
#ifndef sp_due_h
#define sp_due_h

#include "sp_agents.h"

/* ---- due times (wheel.c) ------------------------------------------- */

/* Due times count ticks of 1/SP_TICKS_PER_S s: the crowd clock rounded
 * to a tick, so a save's seconds left (a float) give back the same ticks
 * below 256 s. The wheel's slots are 2^SP_WHEEL_SHIFT ticks (1/256 s: a
 * frame of 1/60 s drains about four, and the agents due later in the
 * last one, read again next frame, are few), SP_WHEEL_SLOTS of them in a
 * lap (16 s). */
#define SP_TICKS_PER_S 65536.0
#define SP_WHEEL_SHIFT 8
#define SP_WHEEL_SLOTS 4096

static inline uint32_t sp_due_get(const SpCrowd *c, size_t i) {
  uint32_t u;
  memcpy(&u, &c->agents[i].time, sizeof u);
  return u;
}
static inline void sp_due_put(SpCrowd *c, size_t i, uint32_t u) {
  memcpy(&c->agents[i].time, &u, sizeof u);
}
/* Seconds as ticks, rounded half up, within what a due time holds (none
 * for NaN). Every timer started comes here: past the checks the integer
 * conversion's truncation is the rounding's floor, so no floor() call. */
static inline uint32_t sp_ticks(double seconds) {
  double t = seconds * SP_TICKS_PER_S + 0.5;
  if (!(t >= 1.0)) return 0u;
  return t >= 2147483647.0 ? 2147483647u : (uint32_t)t;
}
/* What a timer started now counts from, for every worker: the frame
 * before in the choose and take passes, this frame from the take that
 * starts steps on (update.c). */
static inline void sp_due_base(SpCrowd *c, uint32_t rel) {
  for (int k = 0; k < c->workers; k++) c->cw[k].base_rel = rel;
}
/* The due time of a wait of `seconds` from now, and agent i waits that
 * long (sp_due_start): the base of the pass its sink's
 * worker runs (a worker that plans inline takes plans while another still
 * chooses). */
static inline uint32_t sp_due_after(const SpCrowd *c, Sink s, float seconds) {
  uint64_t d =
      (uint64_t)c->cw[s.worker < 0 ? 0 : s.worker].base_rel + sp_ticks(seconds);
  return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}
static inline void sp_due_start(SpCrowd *c, Sink s, size_t i, float seconds) {
  sp_due_put(c, i, sp_due_after(c, s, seconds));
}
/* 1 when agent i's wait is over. */
static inline int sp_due_passed(const SpCrowd *c, size_t i) {
  return sp_due_get(c, i) <= c->now_rel;
}

/* Agent i is visited at the next advance (a worker touches only its own
 * chunk's words: chunks are whole words). */
static inline void sp_agent_wake(SpCrowd *c, size_t i) {
  c->awake[i / 64] |= 1ull << (i % 64);
}
/* 1 when phase ph waits on a timer the wheel keeps. */
static inline int sp_wheel_timed(const SpCrowd *c, uint8_t ph) {
  return ph == SP_PHASE_BLOCKED ||
         (ph == SP_PHASE_ACTING && !c->any_interruptible);
}
/* Seconds left of agent i's timed wait (acting, blocked). */
static inline float sp_agent_time_left(const SpCrowd *c, size_t i) {
  return (float)(((double)sp_due_get(c, i) - (double)c->now_rel) /
                 SP_TICKS_PER_S);
}
/* 1 when agent i walks on a due time: walking, not after another agent
 * (a chase keeps its progress, a float, and is visited every frame). Its
 * due tick is when it reaches its next cell, walk_ticks after the last:
 * its cell is always exact, its progress toward the next is derived. */
static inline int sp_walk_timed(const SpCrowd *c, size_t i) {
  return c->agents[i].phase == SP_PHASE_WALKING &&
         !(c->chase != NULL && c->chase[i].on);
}
/* Agent i starts toward its next cell now (progress 0). */
static inline void sp_walk_start(SpCrowd *c, size_t i) {
  uint64_t d = (uint64_t)c->now_rel + c->walk_ticks;
  sp_due_put(c, i, d > UINT32_MAX ? UINT32_MAX : (uint32_t)d);
}
/* Cells' worth of progress of walker i from its cell: under 1 while its
 * next cell is not due, more when it waits for its field. */
static inline float sp_walk_progress(const SpCrowd *c, size_t i) {
  double left = (double)sp_due_get(c, i) - (double)c->now_rel;
  return (float)(1.0 - left / (double)c->walk_ticks);
}
/* What agent i's time slot means as seconds, as a save holds it: the
 * seconds left of a wait, a walk's progress or a failure's detail (bit
 * for bit), else 0 (a slot no phase reads keeps a stale due time). */
static inline float sp_agent_saved_time(const SpCrowd *c, size_t i) {
  uint8_t ph = c->agents[i].phase;
  if (c->agents[i].flags & F_FAIL) return c->agents[i].time;
  if (ph == SP_PHASE_ACTING || ph == SP_PHASE_BLOCKED)
    return sp_agent_time_left(c, i);
  if (ph != SP_PHASE_WALKING) return 0.0f;
  return sp_walk_timed(c, i) ? sp_walk_progress(c, i) : c->agents[i].time;
}

#endif
