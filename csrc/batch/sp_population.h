/* sp_population.h: the layout of a population (per-NPC arrays, worker records), shared by the files of csrc/batch/. */
#ifndef sp_population_h
#define sp_population_h

#include <stdatomic.h>
#include <stdint.h>

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
  ST_CACHE = 2,   /* plan in a cache entry; handle = worker * cap + entry */
  ST_NO_PLAN = 3, /* failure code in bits 2..4 */
  ST_CODE_SHIFT = 2
};

#define DIRTY_WORD 0x8080808080808080ull

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
  int m;            /* variables */
  int key_words;    /* 64-bit words per packed state */
  int action_count;
  int id_bytes;     /* 1 or 2 */
  size_t slot_bytes;
  uint64_t last_mask; /* same as a cache's: used bytes of a last word */

  void *block; /* the per-NPC arrays and value limits, one allocation */
  size_t block_bytes;
  uint8_t *limits; /* per variable: its largest value */
  SpValue *states; /* n * m, then 8 spare bytes for word loads */
  SpValue *goals;
  uint8_t *status;
  uint32_t *handle;
  uint8_t *slots;

  atomic_size_t dirty_count; /* atomic: marks may come from several threads */
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
  int table_on;    /* 0: hash caches only (sp_population_use_table) */

  /* totals over calls, for the stats */
  uint64_t hits, misses;
};

/* Plans the dirty NPCs of chunk `chunk` with worker k; returns how many
 * (population_chunk.c). */
size_t sp_population_plan_chunk(SpPopulation *p, Worker *w, int k,
                                int use_cache, size_t chunk);

/* 0: cached calls look plans up in the workers' hash caches only, as
 * before the direct table existed (benchmarks compare the two; plans are
 * the same either way). 1 (the default): the table where there is one. */
void sp_population_use_table(SpPopulation *pop, int on);

#endif
