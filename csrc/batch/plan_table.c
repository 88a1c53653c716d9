/* plan_table.c: the direct plan table of small domains (sizing, goal rows, clearing). */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_plan_table.h"

SpStatus sp_plan_table_new(const SpDomain *d, SpAllocator alloc,
                           SpPlanTable **out, SpError *err) {
  *out = NULL;
  int m = sp_domain_variable_count(d);
  if (m < 1 || m > 8) return SP_OK; /* a state must be one word */
  uint32_t states = 1;
  uint32_t radix[8] = {0};
  for (int v = 0; v < m; v++) {
    uint32_t c = (uint32_t)sp_variable_value_count(d, v);
    radix[v] = states;
    if (c > SP_PLAN_TABLE_MAX_STATES / states) return SP_OK; /* too big */
    states *= c;
  }
  SpPlanTable *t = sp_mem_alloc(alloc, sizeof *t);
  if (t == NULL) return sp_error_memory(err);
  memset(t, 0, sizeof *t);
  size_t cell_bytes =
      (size_t)SP_PLAN_TABLE_GOALS * states * sizeof(atomic_uint_least32_t);
  t->cells = sp_mem_alloc(alloc, cell_bytes);
  if (t->cells == NULL) {
    sp_mem_free(alloc, t, sizeof *t);
    return sp_error_memory(err);
  }
  t->alloc = alloc;
  t->bytes = sizeof *t + cell_bytes;
  t->states = states;
  t->m = m;
  memcpy(t->radix, radix, sizeof radix);
  uint8_t pattern[8] = {0};
  memset(pattern, 0xFF, (size_t)m);
  memcpy(&t->last_mask, pattern, 8);
  sp_plan_table_clear(t);
  *out = t;
  return SP_OK;
}

void sp_plan_table_free(SpPlanTable *t) {
  if (t == NULL) return;
  sp_mem_free(t->alloc, t->cells, t->bytes - sizeof *t);
  sp_mem_free(t->alloc, t, sizeof *t);
}

void sp_plan_table_clear(SpPlanTable *t) {
  size_t cells = (size_t)SP_PLAN_TABLE_GOALS * t->states;
  for (size_t k = 0; k < cells; k++)
    atomic_store_explicit(&t->cells[k], 0, memory_order_relaxed);
  for (int g = 0; g < SP_PLAN_TABLE_GOALS; g++)
    atomic_store_explicit(&t->goal_state[g], 0, memory_order_relaxed);
}

/* Slots are taken in order and never given back, so a scan stops at the
 * first free one: the goal is then new, and the worker claims that slot
 * (or, losing the race, waits for the winner's key and looks again). */
atomic_uint_least32_t *sp_plan_table_row(SpPlanTable *t, uint64_t g) {
  for (int k = 0; k < SP_PLAN_TABLE_GOALS; k++) {
    unsigned s = atomic_load_explicit(&t->goal_state[k], memory_order_acquire);
    if (s == 0) {
      unsigned expect = 0;
      if (atomic_compare_exchange_strong_explicit(
              &t->goal_state[k], &expect, 1, memory_order_acq_rel,
              memory_order_acquire)) {
        t->goal_key[k] = g;
        atomic_store_explicit(&t->goal_state[k], 2, memory_order_release);
        return t->cells + (size_t)k * t->states;
      }
      s = expect;
    }
    while (s == 1) /* another worker is writing this slot's key */
      s = atomic_load_explicit(&t->goal_state[k], memory_order_acquire);
    if (t->goal_key[k] == g) return t->cells + (size_t)k * t->states;
  }
  return NULL;
}
