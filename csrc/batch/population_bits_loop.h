/* population_bits_loop.h: the body of the bit-packed table's chunk loop, included once per way of packing ranks (population_bits.c). */
/* The includer defines BITS_ATTR (function attributes), BITS_ONE,
 * BITS_SLOW and BITS_LOOP (the names), BITS_UNROLL (a pragma for the run
 * of 64, or nothing) and BITS_RANK(s) / BITS_GOAL(g) (a
 * state word's rank and a goal word's id, from the BitsView v); this
 * file undefines them at its end. No include guard: meant to be
 * included twice. */

/* NPC i: its start's cell in its goal's row (rows 0 and 1 are empty, so
 * a goal not met yet, or without a row, reads an empty cell), then the
 * result: the handle of a plan, at hp (and its status byte unless the caller
 * wrote the block's at once: `status_done`), or a failure's status byte.
 * Returns 1 when the cell is empty: the caller sends the NPC to
 * BITS_SLOW after its block, so no call sits in the hot loop, whose
 * values then all stay in registers. */
BITS_ATTR static inline unsigned BITS_ONE(size_t i, const SpValue *sp,
                                          const SpValue *gp, uint8_t *hp,
                                          const BitsView *v, int status_done,
                                          size_t *failures) {
  uint64_t s, g;
  memcpy(&s, sp, 8); /* bytes past m fall outside the masks */
  memcpy(&g, gp, 8);
  uint64_t rank = BITS_RANK(s), id = BITS_GOAL(g);
  size_t row = atomic_load_explicit(&v->goal_row[id], memory_order_relaxed);
  uint32_t x =
      atomic_load_explicit(&v->cells[row + rank], memory_order_acquire);
  if (SP_LIKELY(!(x & SP_TABLE_FAILED))) {
    sp_handle_store(hp, x);
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
    memcpy(&s, v->states + i * v->stride, 8);
    memcpy(&g, v->goals + i * v->stride, 8);
    run->missed++;
    run->hits +=
        (size_t)bits_miss(p, w, k, i, s, g, BITS_GOAL(g), BITS_RANK(s));
  }
}

/* Runs of 64 NPCs all dirty (the common case in a batch: chunks start on
 * multiples of 64) go straight through, their status bytes first set to
 * "cached plan" at once (a failure rewrites its byte; BITS_SLOW writes
 * each NPC's it plans). The other dirty NPCs are few and far apart (a
 * crowd marks the agents whose plan ended): they are listed first, by
 * the flag bits of the blocks of eight `blocks` names (the status bytes
 * of the others stay unread), then planned with their rows requested
 * BITS_AHEAD NPCs before use, as each would otherwise wait on memory. */
#define BITS_AHEAD 8
BITS_ATTR size_t BITS_LOOP(SpPopulation *p, Worker *w, int k, size_t lo,
                           size_t hi, const uint64_t *blocks) {
  const BitsView v = bits_view(p);
  BitsRun run = {0, 0, 0, 0};
  uint32_t sparse[SP_POPULATION_CHUNK];
  size_t ns = 0;
  for (size_t b = lo; (b = sp_next_block(blocks, lo, b, hi)) < hi;) {
    /* a run of 64 whose eight blocks are all named may be all dirty */
    size_t blk = (b - lo) / 8;
    if (b % 64 == 0 && hi - b >= 64 &&
        ((blocks[blk / 64] >> (blk % 64)) & 0xFFu) == 0xFFu) {
      uint64_t dirty = sp_dirty_mask64(v.status, b);
      if (dirty == UINT64_MAX) {
        const SpValue *sp = v.states + b * v.stride;
        const SpValue *gp = v.goals + b * v.stride;
        uint8_t *hp = v.handles + b * v.handle_stride;
        uint64_t miss = 0;
        run.planned += 64;
        memset(v.status + b, ST_CACHE, 64);
        BITS_UNROLL
        for (unsigned j = 0; j < 64;
             j++, sp += v.stride, gp += v.stride, hp += v.handle_stride)
          miss |= (uint64_t)BITS_ONE(b + j, sp, gp, hp, &v, 1, &run.failures)
                  << j;
        if (miss != 0) BITS_SLOW(p, w, k, &v, b, miss, &run);
        b += 64;
        continue;
      }
      for (; dirty != 0; dirty &= dirty - 1u)
        sparse[ns++] = (uint32_t)(b + sp_low_bit(dirty));
      b += 64;
      continue;
    }
    for (uint64_t dirty = sp_dirty_bits(v.status, b); dirty != 0;
         dirty &= dirty - 1u)
      sparse[ns++] = (uint32_t)(b + sp_low_byte(dirty));
    b += 8;
  }
  run.planned += ns;
  for (size_t q = 0; q < ns; q++) {
    if (q + BITS_AHEAD < ns) {
      size_t a = sparse[q + BITS_AHEAD];
      BITS_PREFETCH(v.states + a * v.stride, 0); /* its goal too */
      BITS_PREFETCH(v.handles + a * v.handle_stride + 3u, 1);
    }
    size_t i = sparse[q];
    if (BITS_ONE(i, v.states + i * v.stride, v.goals + i * v.stride,
                 v.handles + i * v.handle_stride, &v, 0, &run.failures))
      BITS_SLOW(p, w, k, &v, i, 1, &run);
  }
  bits_done(w, &run);
  return run.planned;
}
#undef BITS_AHEAD

/* The NPCs of a list (a crowd's agents that now wait for a plan, as they
 * choose their goals) answered by the table at once, one by one: those
 * its cells hold are planned (hits); the others, and any dirty already,
 * are marked dirty for the chunk loop. Returns how many were clean
 * before (sp__population_mark_list). */
BITS_ATTR size_t BITS_LIST(SpPopulation *p, Worker *w, const uint32_t *npcs,
                           size_t n) {
  const BitsView v = bits_view(p);
  size_t marked = 0, hits = 0, failures = 0;
  for (size_t q = 0; q < n; q++) {
    size_t i = npcs[q];
    if (!(v.status[i] & ST_DIRTY) &&
        !BITS_ONE(i, v.states + i * v.stride, v.goals + i * v.stride,
                  v.handles + i * v.handle_stride, &v, 0, &failures))
      hits++;
    else /* rare: a goal or state the table has not met */
      marked += sp__population_mark_list(p, npcs + q, 1);
  }
  w->hits += hits;
  w->failures += failures;
  return marked;
}

#undef BITS_ATTR
#undef BITS_UNROLL
#undef BITS_ONE
#undef BITS_SLOW
#undef BITS_LOOP
#undef BITS_LIST
#undef BITS_RANK
#undef BITS_GOAL
