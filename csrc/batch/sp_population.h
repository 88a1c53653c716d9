/* sp_population.h: the layout of a population (per-NPC arrays, worker records), shared by the files of csrc/batch/. */
#ifndef sp_population_h
#define sp_population_h

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "saspu_population.h"
#include "sp_internal.h"
#include "sp_plan_cache.h"
#include "sp_plan_table.h"

/* The status byte of an NPC. */
enum {
  ST_DIRTY = 0x80,
  ST_KIND_MASK = 0x03,
  ST_UNPLANNED = 0,
  ST_SLOT = 1,    /* plan in the NPC's slot; handle = length */
  ST_CACHE = 2,   /* plan in a cache entry; handle: sp_cache_handle */
  ST_NO_PLAN = 3, /* failure code in bits 2..4 */
  ST_CODE_SHIFT = 2
};

#define DIRTY_WORD 0x8080808080808080ull

/* A cached plan's handle: the worker's index above the entry's bits, so
 * reading a plan takes a shift and a mask, no division by the cache's
 * capacity. Below 2^31, as a table cell's handle must be. */
#define SP_HANDLE_SHIFT 24
_Static_assert(SP_PLAN_CACHE_MAX_CAPACITY <= 1u << SP_HANDLE_SHIFT &&
                   (uint64_t)SP_THREAD_POOL_MAX << SP_HANDLE_SHIFT <= 1u << 31,
               "a handle holds any worker and entry");
static inline uint32_t sp_cache_handle(int worker, uint32_t entry) {
  return (uint32_t)worker << SP_HANDLE_SHIFT | entry;
}

/* The dirty flags of the eight NPCs at b, one bit per byte (the status
 * array has 8 spare zero bytes, and chunks are multiples of 64, so the
 * word never reaches into another chunk's NPCs). */
static inline uint64_t sp_dirty_bits(const uint8_t *status, size_t b) {
  uint64_t word;
  memcpy(&word, status + b, 8);
  return word & DIRTY_WORD;
}

/* The dirty flags of the 64 NPCs from b (a multiple of 64, with 64 NPCs
 * from it), bit j for NPC b + j: a frame's planner reads a chunk's flags
 * this way, 64 at a time, and most runs have none or a few set. With
 * SSE2 the byte's top bits are gathered 16 at a time; else eight at a
 * time, by a multiply. */
static inline uint64_t sp_dirty_mask64(const uint8_t *status, size_t b) {
  uint64_t mask = 0;
#if defined(__SSE2__)
  for (int q = 0; q < 4; q++) {
    __m128i bytes = _mm_loadu_si128((const __m128i *)(status + b + 16 * q));
    mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(bytes) << (16 * q);
  }
#else
  for (int j = 0; j < 64; j += 8)
    mask |= (((sp_dirty_bits(status, b + (size_t)j) >> 7) *
              0x0102040810204080ull) >>
             56)
            << j;
#endif
  return mask;
}

/* The index of the lowest set bit of a non-zero word. */
static inline unsigned sp_low_bit(uint64_t x) {
#if defined(__GNUC__)
  return (unsigned)__builtin_ctzll(x);
#else
  unsigned n = 0;
  while (!(x & 1u)) x >>= 1, n++;
  return n;
#endif
}

/* How many of the eight flags of sp_dirty_bits are set: shifted to bit 0
 * of each byte and summed into the top byte by one multiply. */
static inline size_t sp_dirty_count(uint64_t dirty) {
  return (size_t)(((dirty >> 7) * 0x0101010101010101ull) >> 56);
}

/* The byte index of the lowest set bit of a non-zero word. */
static inline unsigned sp_low_byte(uint64_t x) {
#if defined(__GNUC__)
  return (unsigned)__builtin_ctzll(x) >> 3;
#else
  unsigned n = 0;
  while (!(x & 0xFFu)) x >>= 8, n++;
  return n;
#endif
}

/* Words of a chunk's block_dirty bits: one bit per block of eight NPCs. */
#define SP_DIRTY_WORDS (SP_POPULATION_CHUNK / 8 / 64)
_Static_assert(SP_POPULATION_CHUNK % 512 == 0,
               "a chunk is whole words of block bits");

/* How cached calls use the direct table (sp__population_use_table). */
enum {
  SP_TABLE_OFF = 0,     /* the per-worker hash caches alone */
  SP_TABLE_AUTO = 1,    /* default: bit-packed where it fits and the CPU
                            has a fast pext, else as SP_TABLE_RADIX */
  SP_TABLE_RADIX = 2,   /* mixed-radix ranks, one NPC at a time (as before
                            the bit-packed layout; the baseline) */
  SP_TABLE_PORTABLE = 3 /* bit-packed, ranks packed by a byte loop (the
                            pext path's reference; any CPU) */
};

/* One worker's state. Records lie 64 bytes apart in a 64-aligned array
 * (WORKER_STRIDE), so the counters a worker bumps while planning never
 * share a cache line with another worker's. */
typedef struct Worker {
  SpWorkspace *ws;
  SpPlanCache *cache;
  uint16_t *plan; /* sp_plan's output, action_count + 1 entries */
  uint64_t *key;  /* a packed key, 2 * key_words */
  size_t scratch_bytes;
  /* this call's counters */
  size_t planned, failures;
  uint64_t hits, misses;
} Worker;

#define WORKER_STRIDE ((sizeof(Worker) + 63u) & ~(size_t)63u)

struct SpPopulation {
  SpAllocator alloc;
  const SpDomain *domain;
  size_t n;
  int m;         /* variables */
  int key_words; /* 64-bit words per packed state */
  int action_count;
  int id_bytes; /* 1 or 2 */
  size_t slot_bytes;
  uint64_t last_mask; /* same as a cache's: used bytes of a last word */

  void *block; /* the per-NPC arrays and value limits, one allocation */
  size_t block_bytes;
  uint8_t *limits; /* per variable: its largest value */
  /* NPC i's row, `stride` bytes from the last: its state (m values), its
   * goal (m values) and, in a crowd's population, its plan's handle (4
   * bytes, unaligned); 8 spare bytes after the last row for word loads.
   * One row, not arrays apart: a crowd's step end reads the state, writes
   * the goal and reads and writes the handle, a few NPCs of each chunk a
   * frame, and finds them on one line. A population of its own keeps its
   * handles in an array apart: it is planned whole, and handles in the
   * rows would have every row's line written back, not the handles'. */
  SpValue *states;      /* NPC 0's state: the row's start */
  SpValue *goals;       /* NPC 0's goal: states + m */
  size_t stride;        /* 2m, or 2m + 4 with the handles in the rows */
  uint8_t *handles;     /* NPC 0's handle */
  size_t handle_stride; /* 4, or stride with the handles in the rows */
  int handles_in_rows;
  uint8_t *status;
  uint8_t *slots;
  /* per chunk, SP_DIRTY_WORDS words: bit j set when an NPC of the chunk's
   * block of eight j may be dirty (set with every dirty mark, the chunk's
   * bits cleared when it is planned), so a call skips the clean chunks
   * and the clean blocks of the others without reading their status
   * bytes (a crowd's frame marks a few NPCs per chunk); written only when
   * it changes, as workers mark the NPCs of their own chunks */
  uint64_t *block_dirty;

  atomic_size_t dirty_count; /* atomic: marks may come from several threads */
  /* 1 once a plan went to an NPC's own slot (the cache off or full, a
   * load): until then the prefetch leaves the slots alone */
  atomic_int slot_plans;
  size_t chunk_count;
  size_t cursor; /* chunk where the next call starts */

  void *worker_raw; /* Worker records, WORKER_STRIDE apart, 64-aligned */
  size_t worker_raw_bytes;
  Worker *workers[SP_THREAD_POOL_MAX];
  int worker_count;
  uint32_t cache_capacity;

  SpThreadPool *own_pool;

  /* the direct table of a small domain (cache on), shared by workers;
   * NULL until the first cached call, or when the domain does not fit */
  SpPlanTable *table;
  int table_tried; /* creation attempted (a big domain gets none) */
  int table_mode;  /* SP_TABLE_*, set by sp__population_use_table */
  int fast_pext;   /* the CPU has a fast BMI2 pext */

  /* totals over calls, for the stats */
  uint64_t hits, misses;
};

/* NPC i's rows (i < n), inline: the crowd's frame loop reads them at
 * every visit, where a call to the public accessors cost more than the
 * read. The public sp_population_state and the others are these. */
static inline SpValue *sp_population_state_at(const SpPopulation *p, size_t i) {
  return p->states + i * p->stride;
}
static inline SpValue *sp_population_goal_at(const SpPopulation *p, size_t i) {
  return p->goals + i * p->stride;
}
/* A handle at `at`, which in a row lies unaligned. With GCC and clang a
 * typed store of an unaligned uint32_t: a memcpy's byte store may alias
 * anything, and would have the planning loops reload what they hold in
 * registers after each NPC. */
#if defined(__GNUC__)
typedef uint32_t sp_unaligned_u32 __attribute__((aligned(1)));
static inline uint32_t sp_handle_load(const uint8_t *at) {
  return *(const sp_unaligned_u32 *)(const void *)at;
}
static inline void sp_handle_store(uint8_t *at, uint32_t h) {
  *(sp_unaligned_u32 *)(void *)at = h;
}
#else
static inline uint32_t sp_handle_load(const uint8_t *at) {
  uint32_t h;
  memcpy(&h, at, sizeof h);
  return h;
}
static inline void sp_handle_store(uint8_t *at, uint32_t h) {
  memcpy(at, &h, sizeof h);
}
#endif

/* NPC i's plan handle: the plan's length for a slot; the cache entry's
 * sp_cache_handle. */
static inline uint32_t sp_handle_get(const SpPopulation *p, size_t i) {
  return sp_handle_load(p->handles + i * p->handle_stride);
}
static inline void sp_handle_set(SpPopulation *p, size_t i, uint32_t h) {
  sp_handle_store(p->handles + i * p->handle_stride, h);
}
/* 1 when NPC i (i < n) has a plan (sp_population_status_of's
 * SP_NPC_PLANNED). */
static inline int sp_population_planned_at(const SpPopulation *p, size_t i) {
  uint8_t kind = p->status[i] & ST_KIND_MASK;
  return kind == ST_SLOT || kind == ST_CACHE;
}
/* sp_population_prefetch, inline. Always inlined: GCC takes a function
 * that only prefetches for a pure one and drops the calls it does not
 * inline. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
sp_population_request_at(const SpPopulation *p, size_t i) {
#if defined(__GNUC__)
  if (i >= p->n) return;
  __builtin_prefetch(p->states + i * p->stride);
  __builtin_prefetch(p->status + i);
  __builtin_prefetch(p->handles + i * p->handle_stride + 3u); /* its end */
  if (atomic_load_explicit(&p->slot_plans, memory_order_relaxed))
    __builtin_prefetch(p->slots + i * p->slot_bytes);
#else
  (void)p, (void)i;
#endif
}

/* sp_population_prefetch_goal, inline (always, as above). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
sp_population_request_goal_at(const SpPopulation *p, size_t i) {
#if defined(__GNUC__)
  if (i < p->n) __builtin_prefetch(p->goals + i * p->stride, 1);
#else
  (void)p, (void)i;
#endif
}

/* The compact ids (id_bytes each) of NPC i's plan (i < n) and their
 * count; NULL and -1 without a plan. sp_population_plan_ids without its
 * checks, inline: the frame loop reads a plan a few times a step end. */
static inline const uint8_t *sp_population_plan_at(const SpPopulation *p,
                                                   size_t i, int *len) {
  uint8_t kind = p->status[i] & ST_KIND_MASK;
  if (kind == ST_SLOT) {
    *len = (int)sp_handle_get(p, i);
    return p->slots + i * p->slot_bytes;
  }
  if (kind == ST_CACHE) {
    uint32_t h = sp_handle_get(p, i);
    const SpPlanCache *c = p->workers[h >> SP_HANDLE_SHIFT]->cache;
    uint32_t e = h & ((1u << SP_HANDLE_SHIFT) - 1u);
    *len = sp_plan_cache_entry_length(c, e);
    return sp_plan_cache_entry_ids(c, e);
  }
  *len = -1;
  return NULL;
}

/* The first block of eight at or after NPC b (a multiple of 8) of the
 * chunk starting at lo whose bit `blocks` sets, as its first NPC; hi when
 * none is left before hi. */
static inline size_t sp_next_block(const uint64_t *blocks, size_t lo, size_t b,
                                   size_t hi) {
  for (size_t j = (b - lo) / 8; lo + 8 * j < hi;) {
    uint64_t word = blocks[j / 64] >> (j % 64);
    if (word != 0) {
      j += sp_low_bit(word);
      return lo + 8 * j < hi ? lo + 8 * j : hi;
    }
    j = (j / 64 + 1) * 64; /* the next word */
  }
  return hi;
}

/* Notes that NPC i's block of eight holds a dirty NPC (struct
 * SpPopulation). */
static inline void sp_population_chunk_dirty(SpPopulation *p, size_t i) {
  size_t block = i / 8;
  uint64_t *w = &p->block_dirty[block / 64];
  uint64_t bit = 1ull << (block % 64);
  if (!(*w & bit)) *w |= bit;
}

/* sp_population_new for a crowd: the handles in the NPCs' rows (struct
 * SpPopulation). */
SpStatus sp__population_new_in_rows(const SpDomain *d, size_t n,
                                    SpAllocator alloc, SpPopulation **out,
                                    SpError *err);

/* Marks the NPCs of a list dirty (indices checked by the caller) without
 * counting them: returns how many were clean, for the caller to add with
 * sp__population_count_marked once its workers are done. Workers marking
 * their own chunks thus share no counter (population.c). */
size_t sp__population_mark_list(SpPopulation *p, const uint32_t *npcs,
                                size_t count);
void sp__population_count_marked(SpPopulation *p, size_t fresh);

/* Notes that a plan went to an NPC's slot (any thread). */
static inline void sp_population_slot_used(SpPopulation *p) {
  if (!atomic_load_explicit(&p->slot_plans, memory_order_relaxed))
    atomic_store_explicit(&p->slot_plans, 1, memory_order_relaxed);
}

/* Planning inside a crowd's pass, chunk by chunk, as sp_population_plan
 * would plan them: begin makes sure workers 0..workers-1 are set up,
 * their caches with room for `more` NPCs not dirty yet (those the pass
 * will mark); chunk plans the dirty NPCs of chunk `chunk` with worker k
 * (returns how many; workers plan chunks of their own at a time); end
 * counts them as planned. Nothing else may plan between begin and end. */
SpStatus sp__population_inline_begin(SpPopulation *pop, int workers,
                                     size_t more, SpError *err);
size_t sp__population_inline_chunk(SpPopulation *pop, int k, size_t chunk);
void sp__population_inline_end(SpPopulation *pop, int workers);

/* Between begin and end: the NPCs of a list (clean, or dirty already)
 * take their plans from the direct table at once where it has them, with
 * worker k; the others are marked as sp__population_mark_list marks them
 * (returns how many were clean), for inline_chunk to plan. The same plans
 * either way; worker k must own the NPCs' rows for the call. */
size_t sp__population_inline_list(SpPopulation *pop, int k,
                                  const uint32_t *npcs, size_t n);

/* Plans the dirty NPCs of chunk `chunk` with worker k; returns how many
 * (population_chunk.c). */
size_t sp__population_plan_chunk(SpPopulation *p, Worker *w, int k,
                                 int use_cache, size_t chunk);

/* NPC i, which the table did not answer: through worker k's hash cache
 * (the planner on a miss); the result goes to `cell` when there is one.
 * s and g are the masked state and goal words. Returns 1 when the hash
 * cache had the pair (population_chunk.c). */
int sp__population_table_miss(SpPopulation *p, Worker *w, int k, size_t i,
                              uint64_t s, uint64_t g,
                              atomic_uint_least32_t *cell);

/* The cache-on loops of the bit-packed table over NPCs lo..hi of one
 * chunk, reading only the blocks of eight whose bit `blocks` (the chunk's
 * SP_DIRTY_WORDS words) sets: with BMI2 pext (only where
 * sp__population_fast_pext) or portable (population_bits.c). Return NPCs
 * planned. */
size_t sp__population_plan_bits(SpPopulation *p, Worker *w, int k, size_t lo,
                                size_t hi, const uint64_t *blocks);
size_t sp__population_plan_bits_pext(SpPopulation *p, Worker *w, int k,
                                     size_t lo, size_t hi,
                                     const uint64_t *blocks);
/* The bit-packed table's answers for a list of NPCs, marking those it
 * has none for (sp__population_inline_list; population_bits.c). */
size_t sp__population_list_bits(SpPopulation *p, Worker *w,
                                const uint32_t *npcs, size_t n);
size_t sp__population_list_bits_pext(SpPopulation *p, Worker *w,
                                     const uint32_t *npcs, size_t n);
/* 1 when this CPU runs pext in hardware fast (BMI2, not AMD Zen 1/2). */
int sp__population_fast_pext(void);

/* How cached calls use the direct table: SP_TABLE_* (benchmarks and
 * tests compare the paths; plans are the same on every one). Changing
 * between the layouts drops the table; the next cached call makes the
 * other. SP_TABLE_AUTO by default. */
void sp__population_use_table(SpPopulation *pop, int mode);

#endif
