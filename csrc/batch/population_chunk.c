/* population_chunk.c: one chunk of a population's planning pass (direct table, hash cache, or fresh plans). */
#include <string.h>

#include "sp_plan_cache.h"
#include "sp_plan_table.h"
#include "sp_population.h"

/* The chunk loops stay separate functions (called once per chunk, so it
 * costs nothing), which lets profilers count each path's instructions;
 * COLDISH keeps a rare path out of a hot loop's registers. */
#if defined(__GNUC__)
#define LOOP    static __attribute__((noinline))
#define COLDISH __attribute__((noinline))
#else
#define LOOP static
#define COLDISH
#endif

/* The end of the block of up to eight NPCs at b (chunks start on
 * multiples of 64), or b itself when all eight are clean: one word load
 * skips them (the status array has 8 spare bytes at its end). */
static inline size_t block_end(const uint8_t *status, size_t b, size_t hi) {
  size_t end = b + 8 < hi ? b + 8 : hi;
  uint64_t word;
  memcpy(&word, status + b, 8);
  return end - b == 8 && (word & DIRTY_WORD) == 0 ? b : end;
}

/* NPC i's state or goal (rows: NPC 0's) of at most 8 variables as one
 * word, the bytes past it masked off (the rows have 8 spare bytes). */
static inline uint64_t row_word(const SpValue *rows, size_t i, size_t stride,
                                uint64_t mask) {
  uint64_t x;
  memcpy(&x, rows + i * stride, 8);
  return x & mask;
}

/* Loads the packed key of (s0, goal). Reads whole words: the rows have 8
 * spare bytes at the end, and the bytes past m are masked off. */
static uint64_t load_key(const SpPopulation *p, const SpValue *s0,
                         const SpValue *goal, uint64_t *key) {
  int kw = p->key_words;
  for (int k = 0; k < kw; k++) {
    memcpy(&key[k], s0 + 8 * k, 8);
    memcpy(&key[kw + k], goal + 8 * k, 8);
  }
  key[kw - 1] &= p->last_mask;
  key[2 * kw - 1] &= p->last_mask;
  return sp_plan_cache_hash(key, 2 * kw);
}

/* Stores a cache entry's result as NPC i's. */
static inline void take_entry(SpPopulation *p, const SpPlanCache *c, int k,
                              uint32_t e, size_t i, Worker *w) {
  if (sp_plan_cache_entry_kind(c, e) == SP_CACHE_PLAN) {
    sp_handle_set(p, i, sp_cache_handle(k, e));
    p->status[i] = ST_CACHE;
  } else {
    p->status[i] =
        (uint8_t)(ST_NO_PLAN | (unsigned)sp_plan_cache_entry_failure(c, e)->code
                                   << ST_CODE_SHIFT);
    w->failures++;
  }
}

/* Plans NPC i afresh with worker k and stores the result; with the cache
 * on, `w->key` and `hash` are its packed key, and the result is offered
 * to the cache (an NPC points at the entry when it is stored). */
static void plan_fresh(SpPopulation *p, Worker *w, int k, int use_cache,
                       size_t i, uint64_t hash) {
  const SpValue *s0 = sp_population_state_at(p, i);
  const SpValue *goal = sp_population_goal_at(p, i);
  SpPlanCache *c = w->cache;
  SpFailure f = {SP_FAIL_NONE, -1, -1, -1, -1, 0};
  int len = 0;
  SpStatus st = sp_plan(p->domain, w->ws, s0, goal, w->plan, &len, &f);
  if (st == SP_OK) {
    if (use_cache) {
      uint32_t e = sp__plan_cache_insert(c, w->key, hash, SP_CACHE_PLAN,
                                         w->plan, len, NULL);
      if (e != SP_CACHE_NONE) {
        sp_handle_set(p, i, sp_cache_handle(k, e));
        p->status[i] = ST_CACHE;
        return;
      }
    }
    uint8_t *slot = p->slots + i * p->slot_bytes;
    if (p->id_bytes == 1) {
      for (int a = 0; a < len; a++) slot[a] = (uint8_t)w->plan[a];
    } else {
      memcpy(slot, w->plan, (size_t)len * sizeof(uint16_t));
    }
    sp_handle_set(p, i, (uint32_t)len);
    p->status[i] = ST_SLOT;
    sp_population_slot_used(p);
    return;
  }
  /* SP_NO_PLAN; states were validated when set, so never SP_ERR_STATE */
  if (use_cache)
    sp__plan_cache_insert(c, w->key, hash, SP_CACHE_NO_PLAN, NULL, 0, &f);
  p->status[i] = (uint8_t)(ST_NO_PLAN | (unsigned)f.code << ST_CODE_SHIFT);
  w->failures++;
}

/* Plans one dirty NPC with worker k: from the cache when it has the pair,
 * else afresh. Any state length. */
static void plan_one(SpPopulation *p, Worker *w, int k, int use_cache,
                     size_t i) {
  uint64_t hash = 0;
  w->planned++;
  if (use_cache) {
    hash = load_key(p, sp_population_state_at(p, i),
                    sp_population_goal_at(p, i), w->key);
    uint32_t e = sp_plan_cache_find(w->cache, w->key, hash);
    if (e != SP_CACHE_NONE) {
      w->hits++;
      take_entry(p, w->cache, k, e, i, w);
      return;
    }
    w->misses++;
  }
  plan_fresh(p, w, k, use_cache, i, hash);
}

/* One dirty NPC of a one-word state through worker k's hash cache:
 * the same lookup as sp_plan_cache_find on the packed words s and g,
 * with a plan hit decided from the slot word alone; a miss goes through
 * plan_fresh. Returns 1 on a hit. */
static inline int lookup_small(SpPopulation *p, Worker *w, int k, size_t i,
                               uint64_t s, uint64_t g) {
  SpPlanCache *c = w->cache;
  const uint64_t *const slots = c->slots;
  const uint32_t slot_mask = c->slot_mask;
  uint64_t key[2] = {s, g};
  uint64_t hash = sp_plan_cache_hash(key, 2);
  uint64_t tag = hash >> 32;
  uint32_t at = (uint32_t)hash & slot_mask;
  uint64_t found = 0; /* the slot's first word */
  for (;;) {
    const uint64_t *sl = slots + (size_t)at * 3u;
    if (sl[0] == 0) break;
    if ((sl[0] >> 32) == tag && sl[1] == s && sl[2] == g) {
      found = sl[0];
      break;
    }
    at = (at + 1) & slot_mask;
  }
  if (found != 0) {
    uint32_t e = (uint32_t)(found & SP_CACHE_ENTRY_BITS) - 1u;
    if (!(found & SP_CACHE_FAILED_BIT)) {
      sp_handle_set(p, i, sp_cache_handle(k, e));
      p->status[i] = ST_CACHE;
    } else {
      take_entry(p, c, k, e, i, w);
    }
    return 1;
  }
  w->misses++;
  c->misses++;
  w->key[0] = s;
  w->key[1] = g;
  plan_fresh(p, w, k, 1, i, hash);
  return 0;
}

/* The cache-on loop for states of at most 8 variables (every paper
 * domain), where a key is two words; everything the loop needs is held
 * in locals, so the byte stores into `status` (which may alias
 * anything) force no reloads. Returns NPCs planned. */
LOOP size_t plan_chunk_small(SpPopulation *p, Worker *w, int k, size_t lo,
                             size_t hi) {
  const size_t stride = p->stride;
  const SpValue *const states = p->states, *const goals = p->goals;
  const uint8_t *const status = p->status;
  const uint64_t mask = p->last_mask;
  size_t planned = 0, hits = 0;
  for (size_t b = lo; b < hi; b += 8) {
    size_t end = block_end(status, b, hi);
    for (size_t i = b; i < end; i++) {
      if (!(status[i] & ST_DIRTY)) continue;
      planned++;
      hits +=
          (size_t)lookup_small(p, w, k, i, row_word(states, i, stride, mask),
                               row_word(goals, i, stride, mask));
    }
  }
  w->cache->hits += hits;
  w->hits += hits;
  w->planned += planned;
  return planned;
}

/* Goal rows a chunk remembers (worker-local, so the shared goal slots
 * are read once per goal and chunk): direct-mapped by a hash of the goal
 * word, so NPCs whose goals alternate pay no search. */
enum { MEMO_BITS = 6, MEMO_SIZE = 1 << MEMO_BITS };
typedef struct RowMemo {
  uint64_t goal[MEMO_SIZE];
  atomic_uint_least32_t *row[MEMO_SIZE]; /* NULL: empty, or no row */
} RowMemo;

static inline uint32_t memo_index(uint64_t g) {
  return (uint32_t)((g * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS));
}

/* The row of goal g; a goal without a row (all rows taken) is looked up
 * in the shared slots each time it comes back (rare: then the hash
 * caches serve it anyway). */
static atomic_uint_least32_t *memo_fill(SpPlanTable *t, RowMemo *mm,
                                        uint64_t g) {
  atomic_uint_least32_t *row = sp__plan_table_row(t, g);
  uint32_t x = memo_index(g);
  mm->goal[x] = g;
  mm->row[x] = row;
  return row;
}

/* An NPC the table did not answer: through the worker's hash cache (and
 * the planner on a miss), then the result goes to `cell` (when there is
 * one) unless it is the NPC's own slot copy (cache full). A function of
 * its own, out of the table loops, whose registers it would otherwise
 * take. */
COLDISH int sp__population_table_miss(SpPopulation *p, Worker *w, int k,
                                      size_t i, uint64_t s, uint64_t g,
                                      atomic_uint_least32_t *cell) {
  int hit = lookup_small(p, w, k, i, s, g);
  if (cell == NULL) return hit;
  uint8_t kind = p->status[i] & ST_KIND_MASK;
  /* released: a crowd planning inline on several workers reads the entry
   * a handle names while the worker that cached it goes on planning */
  if (kind == ST_CACHE)
    atomic_store_explicit(cell, sp_handle_get(p, i), memory_order_release);
  else if (kind == ST_NO_PLAN)
    atomic_store_explicit(cell, SP_TABLE_FAILED | p->status[i],
                          memory_order_release);
  return hit;
}

/* A masked state word's mixed-radix rank: sum of byte v x radix v (the
 * bytes past m are zero). On x86-64 one multiply-add of eight 16-bit
 * lanes (radix < SP_PLAN_TABLE_MAX_STATES fits them) and two folds. */
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
_Static_assert(SP_PLAN_TABLE_MAX_STATES <= 32768u,
               "table radixes must fit signed 16-bit lanes");
typedef __m128i Radix;
static inline Radix radix_load(const SpPlanTable *t) {
  return _mm_set_epi16((short)t->radix[7], (short)t->radix[6],
                       (short)t->radix[5], (short)t->radix[4],
                       (short)t->radix[3], (short)t->radix[2],
                       (short)t->radix[1], (short)t->radix[0]);
}
static inline uint32_t rank_of(uint64_t s, Radix r) {
  __m128i v =
      _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)s), _mm_setzero_si128());
  __m128i x = _mm_madd_epi16(v, r);
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
  return (uint32_t)_mm_cvtsi128_si32(x);
}
#else
typedef struct Radix {
  uint32_t r[8];
} Radix;
static inline Radix radix_load(const SpPlanTable *t) {
  Radix r;
  memcpy(r.r, t->radix, sizeof r.r);
  return r;
}
static inline uint32_t rank_of(uint64_t s, Radix r) {
  uint32_t x = 0;
  for (int v = 0; v < 8; v++) x += (uint32_t)(s >> (8 * v) & 0xFFu) * r.r[v];
  return x;
}
#endif

/* The cache-on loop with the mixed-radix table: a start's rank in its
 * goal's row gives the result in one load; an empty cell (or a goal
 * without a row) goes through sp__population_table_miss. Visits the dirty
 * NPCs of each block of eight `blocks` names by their flag bits. Returns
 * NPCs planned. */
LOOP size_t plan_chunk_table(SpPopulation *p, Worker *w, int k, size_t lo,
                             size_t hi, const uint64_t *blocks) {
  SpPlanTable *const t = p->table;
  const size_t stride = p->stride;
  const SpValue *const states = p->states, *const goals = p->goals;
  uint8_t *const status = p->status;
  uint8_t *const handles = p->handles;
  const size_t handle_stride = p->handle_stride;
  const uint64_t mask = p->last_mask;
  const Radix radix = radix_load(t);
  size_t planned = 0, hits = 0, missed = 0;
  RowMemo mm;
  memset(mm.row, 0, sizeof mm.row);
  for (int q = 0; q < SP_DIRTY_WORDS; q++)
    for (uint64_t named = blocks[q]; named != 0; named &= named - 1u) {
      size_t b = lo + 8 * (64 * (size_t)q + sp_low_bit(named));
      if (b >= hi) break;
      uint64_t dirty = sp_dirty_bits(status, b);
      planned += sp_dirty_count(dirty);
      for (; dirty != 0; dirty &= dirty - 1u) {
        size_t i = b + sp_low_byte(dirty);
        uint64_t s = row_word(states, i, stride, mask);
        uint64_t g = row_word(goals, i, stride, mask);
        uint32_t x = memo_index(g);
        atomic_uint_least32_t *row = mm.row[x];
        if (row == NULL || mm.goal[x] != g) row = memo_fill(t, &mm, g);
        atomic_uint_least32_t *cell = NULL;
        uint32_t v = SP_TABLE_EMPTY;
        if (row != NULL) { /* NULL: every row is another goal's */
          cell = row + rank_of(s, radix);
          v = atomic_load_explicit(cell, memory_order_acquire);
        }
        if (v == SP_TABLE_EMPTY) {
          missed++;
          hits += (size_t)sp__population_table_miss(p, w, k, i, s, g, cell);
        } else if (!(v & SP_TABLE_FAILED)) {
          sp_handle_store(handles + i * handle_stride, v);
          status[i] = ST_CACHE;
        } else {
          status[i] = (uint8_t)v;
          w->failures++;
        }
      }
    }
  w->cache->hits += hits;
  w->hits += hits + (planned - missed);
  w->planned += planned;
  return planned;
}

/* The cache-off loop (a cold frame): every dirty NPC of the chunk goes
 * straight to the planner, visited by the flag bits of its block of
 * eight, its plan copied into its slot. Only the failure code is kept,
 * which sp_plan sets on every call. Returns NPCs planned. */
LOOP size_t plan_chunk_cold(SpPopulation *p, Worker *w, size_t lo, size_t hi) {
  const SpDomain *const d = p->domain;
  SpWorkspace *const ws = w->ws;
  const size_t stride = p->stride, slot_bytes = p->slot_bytes;
  const SpValue *const states = p->states, *const goals = p->goals;
  uint8_t *const status = p->status;
  uint8_t *const slots = p->slots;
  uint16_t *const plan = w->plan;
  const int narrow = p->id_bytes == 1;
  size_t planned = 0, failures = 0;
  SpFailure f;
  for (size_t b = lo; b < hi; b += 8) {
    uint64_t dirty = sp_dirty_bits(status, b);
    planned += sp_dirty_count(dirty);
    for (; dirty != 0; dirty &= dirty - 1u) {
      size_t i = b + sp_low_byte(dirty);
      int len = 0;
      if (sp_plan(d, ws, states + i * stride, goals + i * stride, plan, &len,
                  &f) != SP_OK) {
        status[i] = (uint8_t)(ST_NO_PLAN | (unsigned)f.code << ST_CODE_SHIFT);
        failures++;
        continue;
      }
      uint8_t *slot = slots + i * slot_bytes;
      if (narrow) {
        for (int a = 0; a < len; a++) slot[a] = (uint8_t)plan[a];
      } else {
        memcpy(slot, plan, (size_t)len * sizeof(uint16_t));
      }
      sp_handle_set(p, i, (uint32_t)len);
      status[i] = ST_SLOT;
    }
  }
  if (planned > failures) sp_population_slot_used(p);
  w->failures += failures;
  w->planned += planned;
  return planned;
}

static size_t plan_chunk_now(SpPopulation *p, Worker *w, int k, int use_cache,
                             size_t chunk, const uint64_t *blocks) {
  size_t lo = chunk * SP_POPULATION_CHUNK;
  size_t hi = lo + SP_POPULATION_CHUNK;
  if (hi > p->n) hi = p->n;
  if (use_cache && p->table != NULL && p->table_mode != SP_TABLE_OFF) {
    if (!p->table->bits) return plan_chunk_table(p, w, k, lo, hi, blocks);
    if (p->table_mode == SP_TABLE_AUTO) /* bits only with a fast pext */
      return sp__population_plan_bits_pext(p, w, k, lo, hi, blocks);
    return sp__population_plan_bits(p, w, k, lo, hi, blocks);
  }
  if (!use_cache) return plan_chunk_cold(p, w, lo, hi);
  if (p->key_words == 1) return plan_chunk_small(p, w, k, lo, hi);
  size_t before = w->planned;
  for (size_t b = lo; b < hi; b += 8) {
    size_t e = block_end(p->status, b, hi);
    for (size_t i = b; i < e; i++)
      if (p->status[i] & ST_DIRTY) plan_one(p, w, k, use_cache, i);
  }
  return w->planned - before;
}

/* Every dirty NPC of the chunk is planned (each path above reads every
 * block its bits name, or the chunk whole): its bits go down with them. */
size_t sp__population_plan_chunk(SpPopulation *p, Worker *w, int k,
                                 int use_cache, size_t chunk) {
  uint64_t *bd = p->block_dirty + chunk * SP_DIRTY_WORDS;
  uint64_t blocks[SP_DIRTY_WORDS], any = 0;
  for (int q = 0; q < SP_DIRTY_WORDS; q++) any |= blocks[q] = bd[q];
  if (any == 0) return 0;
  for (int q = 0; q < SP_DIRTY_WORDS; q++) bd[q] = 0;
  return plan_chunk_now(p, w, k, use_cache, chunk, blocks);
}
