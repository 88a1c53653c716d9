/* sweep.c: a long frame's visit list: the agents of a chunk with something due, read from the phase, flag and time arrays in one branch-free scan. */
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

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#define SWEEP_LANES 16
/* Bit k set when agent i + k is passed over (SWEEP_LANES agents). */
static inline unsigned lanes_passed_over(const SpCrowd *c, size_t i,
                                         uint32_t now, unsigned acting_timed) {
  const __m128i ph = _mm_loadu_si128((const __m128i *)(c->phase + i));
  const __m128i fl = _mm_loadu_si128((const __m128i *)(c->flags + i));
  const __m128i zero = _mm_setzero_si128();
  __m128i idle =
      _mm_cmpeq_epi8(_mm_min_epu8(ph, _mm_set1_epi8(SP_PHASE_IDLE)), ph);
  __m128i unanswered = _mm_and_si128(
      _mm_cmpeq_epi8(ph, _mm_set1_epi8(SP_PHASE_MOVING)),
      _mm_cmpeq_epi8(
          _mm_and_si128(fl, _mm_set1_epi8(F_FINISH | F_FAIL | F_BIND)), zero));
  __m128i asks =
      _mm_and_si128(_mm_cmpeq_epi8(ph, _mm_set1_epi8(SP_PHASE_THINKING)),
                    _mm_cmpeq_epi8(fl, _mm_set1_epi8(F_NEED_GOAL)));
  __m128i timed = _mm_cmpeq_epi8(ph, _mm_set1_epi8(SP_PHASE_BLOCKED));
  if (acting_timed)
    timed =
        _mm_or_si128(timed, _mm_cmpeq_epi8(ph, _mm_set1_epi8(SP_PHASE_ACTING)));
  /* due > now as unsigned: both moved by 2^31, compared signed */
  const __m128i bias = _mm_set1_epi32((int)0x80000000u);
  const __m128i nowb = _mm_xor_si128(_mm_set1_epi32((int)now), bias);
  __m128i later[4];
  for (int q = 0; q < 4; q++) {
    __m128i d = _mm_loadu_si128((const __m128i *)(c->time + i + 4 * (size_t)q));
    later[q] = _mm_cmpgt_epi32(_mm_xor_si128(d, bias), nowb);
  }
  __m128i late = _mm_packs_epi16(_mm_packs_epi32(later[0], later[1]),
                                 _mm_packs_epi32(later[2], later[3]));
  __m128i over = _mm_or_si128(_mm_or_si128(idle, unanswered),
                              _mm_or_si128(asks, _mm_and_si128(timed, late)));
  return (unsigned)_mm_movemask_epi8(over);
}
#endif

size_t sp__wheel_sweep_list(const SpCrowd *c, size_t lo, size_t hi,
                            uint32_t *out) {
  const uint32_t now = c->now_rel;
  const unsigned acting_timed = !c->any_interruptible;
  size_t n = 0, i = lo;
#if defined(SWEEP_LANES)
  for (; i + SWEEP_LANES <= hi; i += SWEEP_LANES) {
    unsigned keep = ~lanes_passed_over(c, i, now, acting_timed) & 0xFFFFu;
    while (keep != 0) {
      out[n++] = (uint32_t)(i + (size_t)__builtin_ctz(keep));
      keep &= keep - 1;
    }
  }
#endif
  for (; i < hi; i++) {
    uint8_t ph = c->phase[i];
    uint32_t due = sp_due_get(c, i);
    out[n] = (uint32_t)i;
    n += !passed_over(ph, c->flags[i], due, now, acting_timed);
  }
  return n;
}
