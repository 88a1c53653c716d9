/* population_bits.c: the cached chunk loops of the bit-packed direct table (hardware pext, or a portable byte loop). */
#include <string.h>

#include "sp_plan_table.h"
#include "sp_population.h"

/* SP_NO_PEXT builds only the byte loop (as on other CPUs and compilers). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(SP_NO_PEXT)
#include <immintrin.h>
#define HAVE_PEXT 1
#endif

#if defined(__GNUC__)
#define SP_LIKELY(x)         __builtin_expect(!!(x), 1)
#define BITS_PREFETCH(p, rw) __builtin_prefetch(p, rw)
#else
#define SP_LIKELY(x)         (x)
#define BITS_PREFETCH(p, rw) ((void)(p))
#endif

/* One chunk's counts, kept in locals and added to the worker at the end. */
typedef struct BitsRun {
  size_t planned, missed, hits, failures;
} BitsRun;

/* What the loop reads, copied into locals: the byte stores into `status`
 * may alias anything, and would otherwise force these to be reloaded. */
typedef struct BitsView {
  const SpValue *states, *goals; /* NPC 0's, rows `stride` apart */
  uint8_t *status;
  uint8_t *handles; /* NPC 0's, handle_stride apart */
  const atomic_uint_least32_t *cells;
  const atomic_uint_least32_t *goal_row;
  size_t stride, handle_stride;
  int vars;
  uint64_t state_bits, goal_bits;
  uint8_t state_at[8], goal_at[8];
} BitsView;

static inline BitsView bits_view(const SpPopulation *p) {
  const SpPlanTable *t = p->table;
  BitsView v = {p->states, p->goals,      p->status,    p->handles,
                t->cells,  t->goal_row,   p->stride,    p->handle_stride,
                t->m,      t->state_bits, t->goal_bits, {0},
                {0}};
  memcpy(v.state_at, t->state_at, 8);
  memcpy(v.goal_at, t->goal_at, 8);
  return v;
}

/* An NPC whose cell was empty: its goal's row (registering the goal when
 * new), then the hash cache and the planner (sp__population_table_miss).
 * s and g are the raw words; id and rank as the loop packed them. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
bits_miss(SpPopulation *p, Worker *w, int k, size_t i, uint64_t s, uint64_t g,
          uint64_t id, uint64_t rank) {
  s &= p->last_mask;
  g &= p->last_mask;
  atomic_uint_least32_t *row = sp__plan_table_goal_row(p->table, id, g);
  return sp__population_table_miss(p, w, k, i, s, g,
                                   row != NULL ? row + rank : NULL);
}

static void bits_done(Worker *w, const BitsRun *run) {
  w->cache->hits += run->hits;
  w->hits += run->hits + (run->planned - run->missed);
  w->failures += run->failures;
  w->planned += run->planned;
}

/* Portable: each byte's bits shifted into place. */
#define BITS_ATTR
#define BITS_UNROLL
#define BITS_ONE     bits_one
#define BITS_SLOW    bits_slow
#define BITS_LOOP    sp__population_plan_bits
#define BITS_LIST    sp__population_list_bits
#define BITS_RANK(s) sp_plan_table_pack(s, v->state_bits, v->state_at, v->vars)
#define BITS_GOAL(g) sp_plan_table_pack(g, v->goal_bits, v->goal_at, v->vars)
#include "population_bits_loop.h"

#if defined(HAVE_PEXT)
/* BMI2: one pext each; only called where sp__population_fast_pext says so. */
#define BITS_ATTR __attribute__((target("bmi2")))
/* the run of 64 unrolled whole: each NPC's code is then 13 instructions
 * with constant offsets (about 9 KB of code in all) */
#if !defined(__clang__)
#define BITS_UNROLL _Pragma("GCC unroll 64")
#else
#define BITS_UNROLL
#endif
#define BITS_ONE     bits_one_pext
#define BITS_SLOW    bits_slow_pext
#define BITS_LOOP    sp__population_plan_bits_pext
#define BITS_LIST    sp__population_list_bits_pext
#define BITS_RANK(s) _pext_u64(s, v->state_bits)
#define BITS_GOAL(g) _pext_u64(g, v->goal_bits)
#include "population_bits_loop.h"

/* Zen 1 and 2 run pext in microcode (tens of cycles): mixed-radix ranks win there. */
int sp__population_fast_pext(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("bmi2")) return 0;
  return !__builtin_cpu_is("znver1") && !__builtin_cpu_is("znver2");
}
#else
size_t sp__population_plan_bits_pext(SpPopulation *p, Worker *w, int k,
                                     size_t lo, size_t hi,
                                     const uint64_t *blocks) {
  return sp__population_plan_bits(p, w, k, lo, hi, blocks);
}

size_t sp__population_list_bits_pext(SpPopulation *p, Worker *w,
                                     const uint32_t *npcs, size_t n) {
  return sp__population_list_bits(p, w, npcs, n);
}

int sp__population_fast_pext(void) { return 0; }
#endif
