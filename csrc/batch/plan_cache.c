/* plan_cache.c: the bounded plan cache (chunked storage grown on demand, insertion, cached planning). */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_plan_cache.h"

static size_t align64(size_t n) { return (n + 63u) & ~(size_t)63u; }

/* A block of n bytes whose start, rounded up to 64, is returned; *raw is
 * what to free (n + 63 bytes). NULL when out of memory. */
static char *alloc_aligned(SpAllocator a, size_t n, void **raw) {
  char *r = sp__mem_alloc(a, n + 63u);
  *raw = r;
  if (r == NULL) return NULL;
  return r + (64u - (uintptr_t)r % 64u) % 64u;
}

SpStatus sp__plan_cache_capacity(uint32_t *capacity, SpError *err) {
  if (*capacity == 0) *capacity = SP_PLAN_CACHE_DEFAULT_CAPACITY;
  if (*capacity <= SP_PLAN_CACHE_MAX_CAPACITY) return SP_OK;
  return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                       "plan cache: capacity %lu is over the limit of %lu "
                       "entries",
                       (unsigned long)*capacity,
                       (unsigned long)SP_PLAN_CACHE_MAX_CAPACITY);
}

/* Chunk geometry: the largest power of two of entries, at most 256, whose
 * plans fit SP_CACHE_CHUNK_BYTES (one entry when a plan alone does not). */
static void chunk_layout(SpPlanCache *c) {
  int shift = 8;
  while (shift > 0 && ((size_t)c->plan_stride << shift) > SP_CACHE_CHUNK_BYTES)
    shift--;
  size_t n = (size_t)1 << shift;
  c->chunk_shift = shift;
  c->fail_offset = align64(n * sizeof(uint32_t));
  c->plan_offset = align64(c->fail_offset + n * sizeof(SpFailure));
  c->chunk_bytes = c->plan_offset + n * (size_t)c->plan_stride;
}

/* A table of `slots` empty slots in place of the current one, holding
 * every stored key (entry numbers unchanged). */
static SpStatus rehash(SpPlanCache *c, size_t slots, SpError *err) {
  size_t bytes = slots * (size_t)c->slot_words * sizeof(uint64_t);
  void *raw;
  uint64_t *fresh = (uint64_t *)alloc_aligned(c->alloc, bytes, &raw);
  if (fresh == NULL) return sp__error_memory(err);
  memset(fresh, 0, bytes);
  uint32_t mask = (uint32_t)(slots - 1u);
  size_t words = (size_t)c->slot_words;
  if (c->slots != NULL) {
    for (size_t k = 0; k <= c->slot_mask; k++) {
      const uint64_t *s = c->slots + k * words;
      if (s[0] == 0) continue;
      uint64_t h = sp_plan_cache_hash(s + 1, 2 * c->key_words);
      uint32_t i = (uint32_t)h & mask;
      while (fresh[(size_t)i * words] != 0) i = (i + 1) & mask;
      memcpy(fresh + (size_t)i * words, s, words * sizeof(uint64_t));
    }
    sp__mem_free(c->alloc, c->slots_raw, c->slots_bytes + 63u);
    c->bytes -= c->slots_bytes + 63u;
  }
  c->slots = fresh;
  c->slots_raw = raw;
  c->slots_bytes = bytes;
  c->slot_mask = mask;
  c->bytes += bytes + 63u;
  return SP_OK;
}

/* Room in the chunk list for `need` chunks. */
static SpStatus grow_chunk_list(SpPlanCache *c, uint32_t need, SpError *err) {
  if (need <= c->chunk_room) return SP_OK;
  uint32_t room = c->chunk_room == 0 ? 4 : c->chunk_room;
  while (room < need) room *= 2;
  char **list = sp__mem_alloc(c->alloc, (size_t)room * sizeof(char *));
  if (list == NULL) return sp__error_memory(err);
  if (c->chunk_count > 0)
    memcpy(list, c->chunks, (size_t)c->chunk_count * sizeof(char *));
  if (c->chunks != NULL) {
    sp__mem_free(c->alloc, c->chunks, (size_t)c->chunk_room * sizeof(char *));
    c->bytes -= (size_t)c->chunk_room * sizeof(char *);
  }
  c->chunks = list;
  c->chunk_room = room;
  c->bytes += (size_t)room * sizeof(char *);
  return SP_OK;
}

/* reserved = what both the chunks and the table (at most half full) hold. */
static void update_reserved(SpPlanCache *c) {
  size_t r = (size_t)c->chunk_count << c->chunk_shift;
  size_t half = ((size_t)c->slot_mask + 1u) / 2u;
  if (r > half) r = half;
  if (r > c->capacity) r = c->capacity;
  c->reserved = (uint32_t)r;
}

SpStatus sp__plan_cache_reserve(SpPlanCache *c, uint32_t entries,
                                SpError *err) {
  if (entries > c->capacity) entries = c->capacity;
  if (entries <= c->reserved) return SP_OK;
  /* at least double, so filling a cache one pass at a time costs a
   * logarithmic number of allocations */
  uint32_t want =
      c->reserved > c->capacity / 2u ? c->capacity : 2u * c->reserved;
  if (want < entries) want = entries;
  /* small plans: the whole capacity at once, as cheap as growing */
  if ((size_t)c->capacity * (size_t)c->plan_stride <= SP_CACHE_EAGER_BYTES)
    want = c->capacity;
  size_t slots = (size_t)c->slot_mask + 1u;
  if (slots < 2u * (size_t)want) {
    while (slots < 2u * (size_t)want) slots *= 2;
    SpStatus st = rehash(c, slots, err);
    if (st != SP_OK) return st;
  }
  uint32_t chunks =
      (uint32_t)(((size_t)want + ((size_t)1 << c->chunk_shift) - 1u) >>
                 c->chunk_shift);
  SpStatus st = grow_chunk_list(c, chunks, err);
  while (st == SP_OK && c->chunk_count < chunks) {
    char *chunk = sp__mem_alloc(c->alloc, c->chunk_bytes);
    if (chunk == NULL) {
      st = sp__error_memory(err);
      break;
    }
    c->chunks[c->chunk_count++] = chunk;
    c->bytes += c->chunk_bytes;
  }
  update_reserved(c);
  return st;
}

SpStatus sp__plan_cache_new(const SpDomain *d, uint32_t capacity,
                            SpAllocator alloc, SpPlanCache **out,
                            SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  SpStatus st = sp__plan_cache_capacity(&capacity, err);
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
  /* the bound on plan storage; handles need capacity >= 1 */
  size_t most = SP_PLAN_CACHE_MAX_PLAN_BYTES / (size_t)tmp.plan_stride;
  if (most < 1) most = 1;
  tmp.capacity = capacity < most ? capacity : (uint32_t)most;
  tmp.slot_words = 1 + 2 * tmp.key_words;
  /* bytes of the last word that belong to the state, as a word */
  int used = m - 8 * (tmp.key_words - 1);
  uint8_t pattern[8] = {0};
  memset(pattern, 0xFF, (size_t)used);
  memcpy(&tmp.last_mask, pattern, 8);
  chunk_layout(&tmp);
  /* the struct starts on a cache line: each worker owns a cache, and its
   * counters must not share a line with another worker's data */
  void *raw;
  SpPlanCache *c =
      (SpPlanCache *)alloc_aligned(alloc, sizeof(SpPlanCache), &raw);
  if (c == NULL) return sp__error_memory(err);
  *c = tmp;
  c->raw = raw;
  c->bytes = sizeof(SpPlanCache) + 63u;
  /* an empty table of 16 slots, so lookups work before any reserve */
  st = rehash(c, 16, err);
  if (st != SP_OK) {
    sp__mem_free(alloc, raw, sizeof(SpPlanCache) + 63u);
    return st;
  }
  *out = c;
  return SP_OK;
}

void sp__plan_cache_free(SpPlanCache *c) {
  if (c == NULL) return;
  for (uint32_t k = 0; k < c->chunk_count; k++)
    sp__mem_free(c->alloc, c->chunks[k], c->chunk_bytes);
  if (c->chunks != NULL)
    sp__mem_free(c->alloc, c->chunks, (size_t)c->chunk_room * sizeof(char *));
  sp__mem_free(c->alloc, c->slots_raw, c->slots_bytes + 63u);
  sp__mem_free(c->alloc, c->raw, sizeof(SpPlanCache) + 63u);
}

void sp__plan_cache_clear(SpPlanCache *c) {
  memset(c->slots, 0, c->slots_bytes);
  c->count = 0;
  c->hits = c->misses = c->rejected = 0;
}

size_t sp__plan_cache_size_bytes(const SpPlanCache *c) { return c->bytes; }

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

uint64_t sp__plan_cache_key(const SpPlanCache *c, const SpValue *s0,
                            const SpValue *goal, uint64_t *key) {
  pack_state(c, s0, key);
  pack_state(c, goal, key + c->key_words);
  return sp_plan_cache_hash(key, 2 * c->key_words);
}

/* Stores the ids narrowed to id_bytes; the entry's tail past len is left
 * as it was (never read). */
uint32_t sp__plan_cache_insert(SpPlanCache *c, const uint64_t *key,
                               uint64_t hash, int kind, const uint16_t *plan,
                               int len, const SpFailure *failure) {
  if (c->count >= c->reserved) {
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
  char *chunk = c->chunks[e >> c->chunk_shift];
  uint32_t at = sp_plan_cache_slot_in_chunk(c, e);
  ((uint32_t *)chunk)[at] =
      (uint32_t)kind << 16 | (uint32_t)(kind == SP_CACHE_PLAN ? len : 0);
  if (kind == SP_CACHE_NO_PLAN) {
    ((SpFailure *)(chunk + c->fail_offset))[at] = *failure;
  } else {
    uint8_t *dst =
        (uint8_t *)chunk + c->plan_offset + (size_t)at * (size_t)c->plan_stride;
    if (c->id_bytes == 1) {
      for (int k = 0; k < len; k++) dst[k] = (uint8_t)plan[k];
    } else {
      memcpy(dst, plan, (size_t)len * sizeof(uint16_t));
    }
  }
  return e;
}

int sp__plan_cache_entry_plan(const SpPlanCache *c, uint32_t e,
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

SpStatus sp__plan_cache_plan(SpPlanCache *c, const SpDomain *d, SpWorkspace *ws,
                             const SpValue *s0, const SpValue *goal,
                             uint16_t *plan, int *len, SpFailure *failure) {
  uint64_t key[2 * ((SP_MAX_VARIABLES + 7) / 8)];
  uint64_t hash = sp__plan_cache_key(c, s0, goal, key);
  uint32_t e = sp_plan_cache_find(c, key, hash);
  if (e != SP_CACHE_NONE) {
    if (sp_plan_cache_entry_kind(c, e) == SP_CACHE_NO_PLAN) {
      *len = 0;
      if (failure != NULL) *failure = *sp_plan_cache_entry_failure(c, e);
      return SP_NO_PLAN;
    }
    *len = sp__plan_cache_entry_plan(c, e, plan);
    if (failure != NULL) failure->code = SP_FAIL_NONE;
    return SP_OK;
  }
  /* a local record, so a failure is stored even when the caller passes
   * NULL; sp_plan writes every field of it unless it succeeds */
  SpFailure f = {SP_FAIL_NONE, -1, -1, -1, -1, 0};
  SpStatus st = sp_plan(d, ws, s0, goal, plan, len, &f);
  if (failure != NULL) {
    if (st == SP_OK)
      failure->code = SP_FAIL_NONE;
    else
      *failure = f; /* SP_NO_PLAN or SP_ERR_STATE: all fields set */
  }
  /* room for one more (a failed reserve only means it is not stored) */
  if (st == SP_OK || st == SP_NO_PLAN) {
    SpError ignored;
    sp__plan_cache_reserve(c, c->count + 1u, &ignored);
  }
  if (st == SP_OK)
    sp__plan_cache_insert(c, key, hash, SP_CACHE_PLAN, plan, *len, NULL);
  else if (st == SP_NO_PLAN)
    sp__plan_cache_insert(c, key, hash, SP_CACHE_NO_PLAN, NULL, 0, &f);
  return st;
}
