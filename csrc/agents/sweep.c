/* sweep.c: a long frame's visit list: the agents of a chunk with something due, read from their records in one branch-free scan. */
#include "sp_agents.h"
#include "sp_wheel.h"
#include "sp_due.h"

/* An agent the sweep passes over: free or idle, moving with no answer
 * from the caller, on a timer (sp_wheel_timed) not yet due, or thinking
 * with only a goal to choose (one the goal budget left for a later
 * frame: the choose pass, before, takes every other). Phases
 * are mixed at random over the crowd, so testing them agent by agent
 * mispredicts a branch for about every other agent; these masks do not
 * branch. */
static inline unsigned passed_over(uint8_t ph, uint8_t fl, uint32_t due,
                                   uint32_t now, unsigned acting_timed) {
  unsigned idle = ph <= SP_PHASE_IDLE;
  unsigned unanswered =
      (ph == SP_PHASE_MOVING) & ((fl & (F_FINISH | F_FAIL | F_BIND)) == 0);
  unsigned timed =
      (ph == SP_PHASE_BLOCKED) | ((ph == SP_PHASE_ACTING) & acting_timed);
  unsigned later = (ph == SP_PHASE_THINKING) & (fl == F_NEED_GOAL);
  return idle | unanswered | later | (timed & (due > now));
}

size_t sp__wheel_sweep_list(const SpCrowd *c, size_t lo, size_t hi,
                            uint32_t *out) {
  const uint32_t now = c->now_rel;
  const unsigned acting_timed = !c->any_interruptible;
  size_t n = 0, i = lo;
  for (; i < hi; i++) {
    uint8_t ph = c->agents[i].phase;
    uint32_t due = sp_due_get(c, i);
    out[n] = (uint32_t)i;
    n += !passed_over(ph, c->agents[i].flags, due, now, acting_timed);
  }
  return n;
}
