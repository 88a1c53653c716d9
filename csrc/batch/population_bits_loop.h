/* population_bits_loop.h: the body of the bit-packed table's chunk loop, included once per way of packing ranks (population_bits.c). */
/* The includer defines BITS_ATTR (function attributes), BITS_ONE,
 * BITS_SLOW and BITS_LOOP (the names), BITS_UNROLL (a pragma for the run
 * of 64, or nothing) and BITS_RANK(s) / BITS_GOAL(g) (a
 * state word's rank and a goal word's id, from the BitsView v); this
 * file undefines them at its end. No include guard: meant to be
 * included twice. */

/* NPC i: its start's cell in its goal's row (rows 0 and 1 are empty, so
 * a goal not met yet, or without a row, reads an empty cell), then the
 * result: the handle of a plan (and its status byte unless the caller
 * wrote the block's at once: `status_done`), or a failure's status byte.
 * Returns 1 when the cell is empty: the caller sends the NPC to
 * BITS_SLOW after its block, so no call sits in the hot loop, whose
 * values then all stay in registers. */
BITS_ATTR static inline unsigned BITS_ONE(size_t i, const SpValue *sp,
                                          const SpValue *gp, const BitsView *v,
                                          int status_done, size_t *failures) {
  uint64_t s, g;
  memcpy(&s, sp, 8); /* bytes past m fall outside the masks */
  memcpy(&g, gp, 8);
  uint64_t rank = BITS_RANK(s), id = BITS_GOAL(g);
  size_t row = atomic_load_explicit(&v->goal_row[id], memory_order_relaxed);
  uint32_t x =
      atomic_load_explicit(&v->cells[row + rank], memory_order_relaxed);
  if (SP_LIKELY(!(x & SP_TABLE_FAILED))) {
    v->handle[i] = x;
    if (!status_done) v->status[i] = ST_CACHE;
    return 0;
  }
  if (x == SP_TABLE_EMPTY) return 1;
  v->status[i] = (uint8_t)x;
  ++*failures;
  return 0;
}

/* The NPCs from b whose cells were empty (bit j of `miss` for NPC b + j):
 * their words packed again, then bits_miss; counted in run. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
BITS_ATTR static void
BITS_SLOW(SpPopulation *p, Worker *w, int k, const BitsView *v, size_t b,
          uint64_t miss, BitsRun *run) {
  for (size_t i = b; miss != 0; i++, miss >>= 1) {
    if (!(miss & 1u)) continue;
    uint64_t s, g;
    memcpy(&s, v->states + i * v->m, 8);
    memcpy(&g, v->goals + i * v->m, 8);
    run->missed++;
    run->hits +=
        (size_t)bits_miss(p, w, k, i, s, g, BITS_GOAL(g), BITS_RANK(s));
  }
}

/* Runs of 64 NPCs all dirty (the common case: chunks start on multiples
 * of 64) go straight through, their status bytes first set to "cached
 * plan" at once (a failure rewrites its byte; BITS_SLOW writes each NPC's
 * it plans); other NPCs in blocks of eight, by their flag bits. */
BITS_ATTR size_t BITS_LOOP(SpPopulation *p, Worker *w, int k, size_t lo,
                           size_t hi) {
  const BitsView v = bits_view(p);
  BitsRun run = {0, 0, 0, 0};
  size_t b = lo;
  while (b < hi) {
    const SpValue *sp = v.states + b * v.m, *gp = v.goals + b * v.m;
    if (b % 64 == 0 && hi - b >= 64 && all_dirty_64(v.status, b)) {
      uint64_t miss = 0;
      run.planned += 64;
      memset(v.status + b, ST_CACHE, 64);
      BITS_UNROLL
      for (unsigned j = 0; j < 64; j++, sp += v.m, gp += v.m)
        miss |= (uint64_t)BITS_ONE(b + j, sp, gp, &v, 1, &run.failures) << j;
      if (miss != 0) BITS_SLOW(p, w, k, &v, b, miss, &run);
      b += 64;
      continue;
    }
    uint64_t dirty = sp_dirty_bits(v.status, b);
    uint64_t miss = 0;
    run.planned += sp_dirty_count(dirty);
    for (; dirty != 0; dirty &= dirty - 1u) {
      unsigned j = sp_low_byte(dirty);
      miss |= (uint64_t)BITS_ONE(b + j, sp + j * v.m, gp + j * v.m, &v, 0,
                                 &run.failures)
              << j;
    }
    if (miss != 0) BITS_SLOW(p, w, k, &v, b, miss, &run);
    b += 8;
  }
  bits_done(w, &run);
  return run.planned;
}

#undef BITS_ATTR
#undef BITS_UNROLL
#undef BITS_ONE
#undef BITS_SLOW
#undef BITS_LOOP
#undef BITS_RANK
#undef BITS_GOAL
