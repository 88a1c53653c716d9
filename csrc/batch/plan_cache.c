/* plan_cache.c: the bounded plan cache (layout, insertion, cached planning). */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_plan_cache.h"

static size_t align64(size_t n) { return (n + 63u) & ~(size_t)63u; }

/* Sizes every array of a cache for d and capacity; with base NULL only
 * measures. Arrays start on 64-byte boundaries of the block. */
static size_t cache_layout(SpPlanCache *c, char *base) {
  size_t slots = (size_t)c->slot_mask + 1u;
  size_t off = align64(sizeof(SpPlanCache));
  size_t o_slots = off;
  off = align64(off + slots * (size_t)c->slot_words * sizeof(uint64_t));
  size_t o_meta = off;
  off = align64(off + (size_t)c->capacity * sizeof(uint32_t));
  size_t o_fail = off;
  off = align64(off + (size_t)c->capacity * sizeof(SpFailure));
  size_t o_plans = off;
  off = align64(off + (size_t)c->capacity * (size_t)c->plan_stride);
  if (base != NULL) {
    c->slots = (uint64_t *)(base + o_slots);
    c->meta = (uint32_t *)(base + o_meta);
    c->failures = (SpFailure *)(base + o_fail);
    c->plans = (uint8_t *)(base + o_plans);
  }
  return off;
}

SpStatus sp_plan_cache_capacity(uint32_t *capacity, SpError *err) {
  if (*capacity == 0) *capacity = SP_PLAN_CACHE_DEFAULT_CAPACITY;
  if (*capacity <= SP_PLAN_CACHE_MAX_CAPACITY) return SP_OK;
  return sp_error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                      "plan cache: capacity %lu is over the limit of %lu "
                      "entries", (unsigned long)*capacity,
                      (unsigned long)SP_PLAN_CACHE_MAX_CAPACITY);
}

SpStatus sp_plan_cache_new(const SpDomain *d, uint32_t capacity,
                           SpAllocator alloc, SpPlanCache **out,
                           SpError *err) {
  sp_error_clear(err);
  *out = NULL;
  SpStatus st = sp_plan_cache_capacity(&capacity, err);
  if (st != SP_OK) return st;
  SpPlanCache tmp;
  memset(&tmp, 0, sizeof tmp);
  int m = sp_domain_variable_count(d);
  tmp.alloc = alloc;
  tmp.state_len = m;
  tmp.key_words = m == 0 ? 1 : (m + 7) / 8;
  tmp.action_count = sp_domain_action_count(d);
  tmp.id_bytes = tmp.action_count <= 255 ? 1 : 2;
  tmp.plan_stride = tmp.action_count * tmp.id_bytes;
  if (tmp.plan_stride == 0) tmp.plan_stride = 1;
  tmp.capacity = capacity;
  size_t slots = 16;
  while (slots < 2u * (size_t)capacity) slots *= 2;
  tmp.slot_mask = (uint32_t)(slots - 1u);
  tmp.slot_words = 1 + 2 * tmp.key_words;
  /* bytes of the last word that belong to the state, as a word */
  int used = m - 8 * (tmp.key_words - 1);
  uint8_t pattern[8] = {0};
  memset(pattern, 0xFF, (size_t)used);
  memcpy(&tmp.last_mask, pattern, 8);
  /* 63 spare bytes so the block can start on a cache line: each worker
   * owns a cache, and its counters must not share a line with another
   * worker's data */
  size_t bytes = cache_layout(&tmp, NULL) + 63u;
  char *raw = sp_mem_alloc(alloc, bytes);
  if (raw == NULL) return sp_error_memory(err);
  char *base = raw + ((64u - (uintptr_t)raw % 64u) % 64u);
  SpPlanCache *c = (SpPlanCache *)base;
  *c = tmp;
  c->raw = raw;
  c->bytes = bytes;
  cache_layout(c, base);
  sp_plan_cache_clear(c);
  *out = c;
  return SP_OK;
}

void sp_plan_cache_free(SpPlanCache *c) {
  if (c == NULL) return;
  sp_mem_free(c->alloc, c->raw, c->bytes);
}

void sp_plan_cache_clear(SpPlanCache *c) {
  size_t slots = (size_t)c->slot_mask + 1u;
  memset(c->slots, 0, slots * (size_t)c->slot_words * sizeof(uint64_t));
  c->count = 0;
  c->hits = c->misses = c->rejected = 0;
}

size_t sp_plan_cache_size_bytes(const SpPlanCache *c) { return c->bytes; }

/* Copies one state into words without reading past its last byte. */
static void pack_state(const SpPlanCache *c, const SpValue *s, uint64_t *w) {
  int m = c->state_len;
  for (int k = 0; k < c->key_words; k++) {
    uint8_t buf[8] = {0};
    int n = m - 8 * k < 8 ? m - 8 * k : 8;
    if (n > 0) memcpy(buf, s + 8 * k, (size_t)n);
    memcpy(&w[k], buf, 8);
  }
}

uint64_t sp_plan_cache_key(const SpPlanCache *c, const SpValue *s0,
                           const SpValue *goal, uint64_t *key) {
  pack_state(c, s0, key);
  pack_state(c, goal, key + c->key_words);
  return sp_plan_cache_hash(key, 2 * c->key_words);
}

/* Stores the ids narrowed to id_bytes; the entry's tail past len is left
 * as it was (never read). */
uint32_t sp_plan_cache_insert(SpPlanCache *c, const uint64_t *key,
                              uint64_t hash, int kind, const uint16_t *plan,
                              int len, const SpFailure *failure) {
  if (c->count >= c->capacity) {
    c->rejected++;
    return SP_CACHE_NONE;
  }
  uint32_t e = c->count++;
  uint32_t i = (uint32_t)hash & c->slot_mask;
  uint64_t *s = c->slots + (size_t)i * (size_t)c->slot_words;
  while (s[0] != 0) {
    i = (i + 1) & c->slot_mask;
    s = c->slots + (size_t)i * (size_t)c->slot_words;
  }
  memcpy(s + 1, key, (size_t)(2 * c->key_words) * sizeof(uint64_t));
  s[0] = (hash >> 32) << 32 | (uint64_t)(e + 1u) |
         (kind == SP_CACHE_NO_PLAN ? (uint64_t)SP_CACHE_FAILED_BIT : 0u);
  c->meta[e] = (uint32_t)kind << 16 | (uint32_t)(kind == SP_CACHE_PLAN ? len : 0);
  if (kind == SP_CACHE_NO_PLAN) {
    c->failures[e] = *failure;
  } else {
    uint8_t *dst = c->plans + (size_t)e * (size_t)c->plan_stride;
    if (c->id_bytes == 1) {
      for (int k = 0; k < len; k++) dst[k] = (uint8_t)plan[k];
    } else {
      memcpy(dst, plan, (size_t)len * sizeof(uint16_t));
    }
  }
  return e;
}

int sp_plan_cache_entry_plan(const SpPlanCache *c, uint32_t e,
                             uint16_t *plan) {
  int len = sp_plan_cache_entry_length(c, e);
  const uint8_t *src = sp_plan_cache_entry_ids(c, e);
  if (c->id_bytes == 1) {
    for (int k = 0; k < len; k++) plan[k] = src[k];
  } else {
    memcpy(plan, src, (size_t)len * sizeof(uint16_t));
  }
  return len;
}

SpStatus sp_plan_cache_plan(SpPlanCache *c, const SpDomain *d,
                            SpWorkspace *ws, const SpValue *s0,
                            const SpValue *goal, uint16_t *plan, int *len,
                            SpFailure *failure) {
  uint64_t key[2 * ((SP_MAX_VARIABLES + 7) / 8)];
  uint64_t hash = sp_plan_cache_key(c, s0, goal, key);
  uint32_t e = sp_plan_cache_find(c, key, hash);
  if (e != SP_CACHE_NONE) {
    if (sp_plan_cache_entry_kind(c, e) == SP_CACHE_NO_PLAN) {
      *len = 0;
      if (failure != NULL) *failure = c->failures[e];
      return SP_NO_PLAN;
    }
    *len = sp_plan_cache_entry_plan(c, e, plan);
    if (failure != NULL) failure->code = SP_FAIL_NONE;
    return SP_OK;
  }
  /* a local record, so a failure is stored even when the caller passes
   * NULL; sp_plan writes every field of it unless it succeeds */
  SpFailure f = {SP_FAIL_NONE, -1, -1, -1, -1, 0};
  SpStatus st = sp_plan(d, ws, s0, goal, plan, len, &f);
  if (failure != NULL) {
    if (st == SP_OK) failure->code = SP_FAIL_NONE;
    else *failure = f; /* SP_NO_PLAN or SP_ERR_STATE: all fields set */
  }
  if (st == SP_OK)
    sp_plan_cache_insert(c, key, hash, SP_CACHE_PLAN, plan, *len, NULL);
  else if (st == SP_NO_PLAN)
    sp_plan_cache_insert(c, key, hash, SP_CACHE_NO_PLAN, NULL, 0, &f);
  return st;
}
