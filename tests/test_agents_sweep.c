/* test_agents_sweep.c: a long frame's visit list (sweep.c) holds exactly the agents the advance pass must visit, in order, for every mix of phases, flags and due times, and any range of a chunk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "citizens.h"
#include "sp_agents.h"
#include "sp_wheel.h"
#include "sp_due.h"

enum { N = 3 * SP_CROWD_CHUNK + 77 }; /* a last chunk not whole */

/* The rule, agent by agent, as the advance pass states it: nothing due
 * for a free or idle agent, a move without the caller's answer, a timer
 * still running, or an agent that only waits to choose a goal. */
static size_t reference(const SpCrowd *c, size_t lo, size_t hi, uint32_t *out) {
  size_t n = 0;
  for (size_t i = lo; i < hi; i++) {
    uint8_t ph = c->agents[i].phase;
    if (ph == SP_PHASE_IDLE || ph == SP_PHASE_FREE) continue;
    /* a move to an agent (F_BIND) is checked every frame */
    if (ph == SP_PHASE_MOVING &&
        !(c->agents[i].flags & (F_FINISH | F_FAIL | F_BIND)))
      continue;
    if (sp_wheel_timed(c, ph) && !sp_due_passed(c, i)) continue;
    /* a goal to choose only: left by the goal budget for a later frame */
    if (ph == SP_PHASE_THINKING && c->agents[i].flags == F_NEED_GOAL) continue;
    out[n++] = (uint32_t)i;
  }
  return n;
}

/* Every phase and flag byte, and due times around the clock (equal,
 * one each side, and the far ends of the unsigned range). */
static void scramble(SpCrowd *c, unsigned seed) {
  srand(seed);
  const uint32_t now = c->now_rel;
  const uint32_t dues[] = {0u,          now - 1u, now,        now + 1u,
                           now + 5000u, now / 2,  UINT32_MAX, 1u};
  for (size_t i = 0; i < c->n; i++) {
    c->agents[i].phase = (uint8_t)(rand() % SP_PHASE_COUNT);
    c->agents[i].flags = (uint8_t)rand();
    sp_due_put(c, i, dues[rand() % (int)(sizeof dues / sizeof dues[0])]);
  }
}

/* Ranges: whole chunks, a chunk's last few agents, lengths that are no
 * multiple of the vector width, empty. */
static void check_ranges(const SpCrowd *c) {
  static uint32_t got[SP_CROWD_CHUNK], want[SP_CROWD_CHUNK];
  const size_t ranges[][2] = {
      {0, SP_CROWD_CHUNK},
      {SP_CROWD_CHUNK, 2 * SP_CROWD_CHUNK},
      {3 * SP_CROWD_CHUNK, N},
      {5, 5 + 15},
      {64, 64 + 17},
      {SP_CROWD_CHUNK - 3, SP_CROWD_CHUNK},
      {100, 100},
  };
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
    size_t lo = ranges[r][0], hi = ranges[r][1];
    size_t nw = reference(c, lo, hi, want);
    size_t ng = sp__wheel_sweep_list(c, lo, hi, got);
    assert_int_equal(ng, nw);
    if (nw > 0) assert_memory_equal(got, want, nw * sizeof *got);
  }
}

static void test_lists_the_agents_with_something_due(void **state) {
  (void)state;
  Citizens t;
  citizens_open(&t, N, 1.0f, 3.0f, 1, 3);
  SpCrowd *c = t.c;
  /* the records as they were: closing the crowd reads them */
  Agent *saved = malloc(N * sizeof *saved);
  assert_non_null(saved);
  memcpy(saved, c->agents, N * sizeof *saved);
  int interruptible = c->any_interruptible;
  const uint32_t clocks[] = {1000u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFF0u};
  for (unsigned k = 0; k < sizeof clocks / sizeof clocks[0]; k++) {
    c->now_rel = clocks[k];
    scramble(c, 11u + k);
    /* acting is on a timer only while no action is interruptible */
    c->any_interruptible = 0;
    check_ranges(c);
    c->any_interruptible = 1;
    check_ranges(c);
  }
  c->any_interruptible = interruptible;
  memcpy(c->agents, saved, N * sizeof *saved);
  free(saved);
  citizens_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lists_the_agents_with_something_due),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
