/* plan_table.c: the direct plan table of small domains (layouts, goal rows, clearing). */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_plan_table.h"

/* Fills the bit-packed layout of t for value counts `count` when it fits
 * (SP_PLAN_TABLE_MAX_STATES cells a row, SP_PLAN_TABLE_GOAL_BITS bits a
 * goal id); returns 0 when it does not. */
static int bits_layout(SpPlanTable *t, const int *count, int m) {
  int at = 0, goal_at = 0;
  for (int v = 0; v < m; v++) {
    int b = 0;
    while ((1 << b) < count[v]) b++;
    t->state_at[v] = (uint8_t)at;
    t->goal_at[v] = (uint8_t)goal_at;
    goal_at += b + 1;
    t->state_bits |= (uint64_t)((1u << b) - 1u) << (8 * v);
    t->goal_bits |= (uint64_t)((2u << b) - 1u) << (8 * v);
    at += b;
  }
  if (at + m > SP_PLAN_TABLE_GOAL_BITS ||
      ((uint32_t)1 << at) > SP_PLAN_TABLE_MAX_STATES)
    return 0;
  t->bits = 1;
  t->shift = at;
  t->states = (uint32_t)1 << at;
  t->goal_ids = (size_t)1 << (at + m);
  return 1;
}

SpStatus sp__plan_table_new(const SpDomain *d, int bits, SpAllocator alloc,
                            SpPlanTable **out, SpError *err) {
  *out = NULL;
  int m = sp_domain_variable_count(d);
  if (m < 1 || m > 8) return SP_OK; /* a state must be one word */
  SpPlanTable probe;
  memset(&probe, 0, sizeof probe);
  int count[8];
  uint32_t states = 1;
  for (int v = 0; v < m; v++) {
    count[v] = sp_variable_value_count(d, v);
    probe.radix[v] = states;
    if ((uint32_t)count[v] > SP_PLAN_TABLE_MAX_STATES / states) return SP_OK;
    states *= (uint32_t)count[v];
  }
  probe.states = states;
  if (bits) {
    SpPlanTable packed = probe;
    if (bits_layout(&packed, count, m)) probe = packed;
  }
  int rows = SP_PLAN_TABLE_GOALS + (probe.bits ? SP_TABLE_ROW_FIRST : 0);
  size_t cell_bytes =
      (size_t)rows * probe.states * sizeof(atomic_uint_least32_t);
  size_t map_bytes = probe.goal_ids * sizeof(atomic_uint_least32_t);
  SpPlanTable *t = sp__mem_alloc(alloc, sizeof *t);
  if (t == NULL) return sp__error_memory(err);
  *t = probe;
  t->cells = sp__mem_alloc(alloc, cell_bytes + map_bytes);
  if (t->cells == NULL) {
    sp__mem_free(alloc, t, sizeof *t);
    return sp__error_memory(err);
  }
  t->alloc = alloc;
  t->bytes = sizeof *t + cell_bytes + map_bytes;
  t->cell_count = (size_t)rows * t->states;
  if (t->bits) t->goal_row = t->cells + t->cell_count;
  t->m = m;
  uint8_t pattern[8] = {0};
  memset(pattern, 0xFF, (size_t)m);
  memcpy(&t->last_mask, pattern, 8);
  sp__plan_table_clear(t);
  *out = t;
  return SP_OK;
}

void sp__plan_table_free(SpPlanTable *t) {
  if (t == NULL) return;
  sp__mem_free(t->alloc, t->cells, t->bytes - sizeof *t);
  sp__mem_free(t->alloc, t, sizeof *t);
}

void sp__plan_table_clear(SpPlanTable *t) {
  for (size_t k = 0; k < t->cell_count; k++)
    atomic_store_explicit(&t->cells[k], SP_TABLE_EMPTY, memory_order_relaxed);
  for (size_t k = 0; k < t->goal_ids; k++)
    atomic_store_explicit(&t->goal_row[k], SP_TABLE_ROW_NEW,
                          memory_order_relaxed); /* row 0: cell 0 */
  for (int g = 0; g < SP_PLAN_TABLE_GOALS; g++)
    atomic_store_explicit(&t->goal_state[g], 0, memory_order_relaxed);
}

/* Goal g's slot, claimed when new; -1 when every slot is another goal's.
 * Slots are taken in order and never given back, so a scan stops at the
 * first free one: the goal is then new, and the worker claims that slot
 * (or, losing the race, waits for the winner's key and looks again). */
static int goal_slot(SpPlanTable *t, uint64_t g) {
  for (int k = 0; k < SP_PLAN_TABLE_GOALS; k++) {
    unsigned s = atomic_load_explicit(&t->goal_state[k], memory_order_acquire);
    if (s == 0) {
      unsigned expect = 0;
      if (atomic_compare_exchange_strong_explicit(&t->goal_state[k], &expect, 1,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire)) {
        t->goal_key[k] = g;
        atomic_store_explicit(&t->goal_state[k], 2, memory_order_release);
        return k;
      }
      s = expect;
    }
    while (s == 1) /* another worker is writing this slot's key */
      s = atomic_load_explicit(&t->goal_state[k], memory_order_acquire);
    if (t->goal_key[k] == g) return k;
  }
  return -1;
}

atomic_uint_least32_t *sp__plan_table_row(SpPlanTable *t, uint64_t g) {
  int k = goal_slot(t, g);
  if (k < 0) return NULL;
  if (t->bits) k += SP_TABLE_ROW_FIRST;
  return t->cells + (size_t)k * t->states;
}

/* Racing workers that register one goal all store the same row. */
atomic_uint_least32_t *sp__plan_table_goal_row(SpPlanTable *t, uint64_t id,
                                               uint64_t g) {
  uint32_t r = atomic_load_explicit(&t->goal_row[id], memory_order_relaxed);
  r >>= t->shift;
  if (r == SP_TABLE_ROW_NEW) {
    int k = goal_slot(t, g);
    r = k < 0 ? SP_TABLE_ROW_NONE : (uint32_t)k + SP_TABLE_ROW_FIRST;
    atomic_store_explicit(&t->goal_row[id], r << t->shift,
                          memory_order_relaxed);
  }
  if (r == SP_TABLE_ROW_NONE) return NULL;
  return t->cells + (size_t)r * t->states;
}
