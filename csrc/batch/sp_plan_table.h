/* sp_plan_table.h: a direct plan table for small domains: (goal, ranked start state) -> a population's cached result, shared by all workers. */
#ifndef sp_plan_table_h
#define sp_plan_table_h

#include <stdatomic.h>
#include <stdint.h>

#include "saspu_population.h" /* SP_PLAN_TABLE_MAX_STATES, SP_PLAN_TABLE_GOALS */

#ifdef __cplusplus
extern "C" {
#endif

/* A table cell: SP_TABLE_EMPTY, or SP_TABLE_FAILED | the NPC status byte
 * of a "no plan" result, or the population handle of a cached plan (below
 * 2^31: a hit is a non-negative cell, and the handle is stored as is). */
#define SP_TABLE_FAILED 0x80000000u
#define SP_TABLE_EMPTY  0xFFFFFFFFu

/* Design: for a domain whose states fit (at most 8 variables and
 * SP_PLAN_TABLE_MAX_STATES states), a start state's mixed-radix rank
 * (sum of value x radix) indexes one row per goal. A goal is registered
 * the first time a worker meets it (lock-free: a slot is claimed by
 * compare-and-swap, then published), so a game's few goal conditions
 * take a row each whatever the start. Cells are filled by whichever
 * worker planned the pair first; every worker's result for a pair is the
 * same plan, so racing stores (relaxed atomics) all leave a right value.
 * A cell points into a worker's cache, so the table is emptied whenever
 * the caches are. Cells are 32-bit: a row of the paper domains is at
 * most 1.2 KB. */
typedef struct SpPlanTable {
  SpAllocator alloc;
  size_t bytes;
  uint32_t states; /* cells per row */
  int m;
  uint32_t radix[8];  /* rank = sum of value[v] * radix[v]; 0 past m */
  uint64_t last_mask; /* used bytes of a state word */
  atomic_uint goal_state[SP_PLAN_TABLE_GOALS]; /* 0 free, 1 claimed, 2 ready */
  uint64_t goal_key[SP_PLAN_TABLE_GOALS];      /* the goal's masked word */
  atomic_uint_least32_t *cells;                /* row_count rows of `states` */
  size_t cell_count;                           /* row_count x states */
  /* The bit-packed layout (bits = 1): see "bit-packed layout" below. */
  int bits;
  int shift;           /* log2(states) */
  uint64_t state_bits; /* per byte v: its low ceil(log2 values) bits */
  uint64_t goal_bits;  /* per byte v: one bit more (SP_ANY sets it) */
  uint8_t state_at[8], goal_at[8]; /* bit offsets of byte v's packed bits */
  atomic_uint_least32_t *goal_row; /* 2^(shift + m) entries: a goal's
                                      row, as its first cell's index */
  size_t goal_ids;
} SpPlanTable;

/* Bit-packed layout: each value takes the fewest bits that hold its
 * variable's values, so a start's rank is the state word's bits under
 * `state_bits` packed together (one BMI2 pext, or a byte loop), and a
 * goal's id likewise under `goal_bits`, where SP_ANY (0xFF) is the one
 * value with the extra bit set. goal_row maps an id straight to its row:
 * rows 0 (goal not met yet) and 1 (no row left for it) stay empty, so a
 * lookup needs no test before reading a cell, and an empty cell sends the
 * NPC to the slow path, which tells the cases apart. Goal slot k is row
 * k + 2. goal_row holds row << shift, the index of the row's first cell,
 * so a lookup is one load and one add. */
enum { SP_TABLE_ROW_NEW = 0, SP_TABLE_ROW_NONE = 1, SP_TABLE_ROW_FIRST = 2 };

/* A table for domain d, or *out = NULL (SP_OK) when d does not fit;
 * with `bits`, the bit-packed layout where it fits (else mixed radix).
 * SP_ERR_MEMORY when allocation fails. */
SpStatus sp__plan_table_new(const SpDomain *d, int bits, SpAllocator alloc,
                            SpPlanTable **out, SpError *err);
void sp__plan_table_free(SpPlanTable *t);

/* Forgets every cell and goal row (so goals met later get rows). Not
 * while workers run. */
void sp__plan_table_clear(SpPlanTable *t);

/* The row of goal word g (masked), registering it when new; NULL when
 * every row is taken by other goals. Safe from several workers at once. */
atomic_uint_least32_t *sp__plan_table_row(SpPlanTable *t, uint64_t g);

/* Bit-packed layout: the row of goal word g (masked) whose id is `id`,
 * registering it (and noting the row in goal_row) when new; NULL when
 * every row is taken by other goals. Safe from several workers at once. */
atomic_uint_least32_t *sp__plan_table_goal_row(SpPlanTable *t, uint64_t id,
                                               uint64_t g);

/* The bits of x under `mask` packed together, low bits first, where each
 * byte of the mask is a run of low bits at byte v's bit offset at[v]
 * (what pext computes), over the first m bytes. */
static inline uint64_t sp_plan_table_pack(uint64_t x, uint64_t mask,
                                          const uint8_t *at, int m) {
  uint64_t r = 0;
  x &= mask;
  for (int v = 0; v < m; v++) r |= (x >> (8 * v) & 0xFFu) << at[v];
  return r;
}

#ifdef __cplusplus
}
#endif

#endif
