/* sp_plan_table.h: a direct plan table for small domains: (goal, ranked start state) -> a population's cached result, shared by all workers. */
#ifndef sp_plan_table_h
#define sp_plan_table_h

#include <stdatomic.h>
#include <stdint.h>

#include "saspu_population.h" /* SP_PLAN_TABLE_MAX_STATES, SP_PLAN_TABLE_GOALS */

#ifdef __cplusplus
extern "C" {
#endif

/* A table cell: 0 when empty, else SP_TABLE_FAILED | the NPC status byte
 * of a "no plan" result, or the population handle of a cached plan + 1. */
#define SP_TABLE_FAILED 0x80000000u

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
  uint32_t states;          /* cells per row */
  int m;
  uint32_t radix[8];  /* rank = sum of value[v] * radix[v]; 0 past m */
  uint64_t last_mask;       /* used bytes of a state word */
  atomic_uint goal_state[SP_PLAN_TABLE_GOALS]; /* 0 free, 1 claimed, 2 ready */
  uint64_t goal_key[SP_PLAN_TABLE_GOALS];      /* the goal's masked word */
  atomic_uint_least32_t *cells; /* SP_PLAN_TABLE_GOALS rows of `states` */
} SpPlanTable;

/* A table for domain d, or *out = NULL (SP_OK) when d does not fit.
 * SP_ERR_MEMORY when allocation fails. */
SpStatus sp_plan_table_new(const SpDomain *d, SpAllocator alloc,
                           SpPlanTable **out, SpError *err);
void sp_plan_table_free(SpPlanTable *t);

/* Forgets every cell and goal row (so goals met later get rows). Not
 * while workers run. */
void sp_plan_table_clear(SpPlanTable *t);

/* The row of goal word g (masked), registering it when new; NULL when
 * every row is taken by other goals. Safe from several workers at once. */
atomic_uint_least32_t *sp_plan_table_row(SpPlanTable *t, uint64_t g);

#ifdef __cplusplus
}
#endif

#endif
