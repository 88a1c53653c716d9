/* sp_plan_cache.h: a bounded cache of plans of one domain, keyed by the packed pair (s0, s*). */
#ifndef sp_plan_cache_h
#define sp_plan_cache_h

#include <stdint.h>
#include <string.h>

#include "saspu_population.h" /* SP_PLAN_CACHE_DEFAULT_CAPACITY, SP_PLAN_CACHE_MAX_CAPACITY */

#ifdef __cplusplus
extern "C" {
#endif

/* What a cache entry holds. */
enum { SP_CACHE_PLAN = 1, SP_CACHE_NO_PLAN = 2 };

#define SP_CACHE_NONE UINT32_MAX

/* About how many bytes one chunk of entries takes (at most 256 entries,
 * at least one). */
#if !defined(SP_CACHE_CHUNK_BYTES)
#define SP_CACHE_CHUNK_BYTES 16384u
#endif

/* A cache whose full plan storage is at most this reserves all of it on
 * the first reserve (the paper domains: tens of KB). */
#if !defined(SP_CACHE_EAGER_BYTES)
#define SP_CACHE_EAGER_BYTES 262144u
#endif

/* The low word of a slot: entry number + 1, and the "no plan" flag. */
#define SP_CACHE_ENTRY_BITS 0x7FFFFFFFu
#define SP_CACHE_FAILED_BIT 0x80000000u

/* The cache. Design:
 * - Keys: s0 and s* are each packed into `key_words` 64-bit words (one
 *   byte per variable, zero padded), so a key compares in a few word
 *   compares.
 * - Table: open addressing with linear probing over a power-of-two
 *   number of slots, at least twice the entries reserved, so a probe run
 *   stays short. A slot is [tag/entry word][s0 words][s* words]; the
 *   first word holds the entry number + 1 in its low 31 bits (0: empty),
 *   the flag SP_CACHE_FAILED_BIT when the entry is a "no plan" result (so
 *   a hit needs no second load to know which), and 32 bits of the hash.
 * - Entries are numbered 0..count-1 in insertion order; their results
 *   (kind and length, failure record, plan ids) live in chunks of
 *   2^chunk_shift entries, allocated as the cache fills and never moved,
 *   so an entry number stays valid until sp__plan_cache_clear. That is
 *   what lets a population point NPCs at shared entries instead of
 *   copying plans. A chunk holds about SP_CACHE_CHUNK_BYTES.
 * - Sized to what is used: storage is reserved on demand
 *   (sp__plan_cache_reserve), up to `capacity` entries, itself bounded so
 *   that the plans of a full cache take at most
 *   SP_PLAN_CACHE_MAX_PLAN_BYTES. Inserting never allocates: past the
 *   reserved entries a pair is not stored (`rejected` counts it), and
 *   nothing is ever evicted.
 * - Plans are stored as compact ids: 1 byte each when the domain has at
 *   most 255 actions, else 2 (id_bytes).
 * - Not thread safe: one writer, or readers only. Populations give each
 *   worker its own cache (see population.c) and reserve before a pass.
 * The struct is visible so the population's hot loop can inline the
 * lookup; treat the fields as read-only outside plan_cache.c. */
typedef struct SpPlanCache {
  SpAllocator alloc;
  void *raw;       /* the struct's block (the struct starts 64-aligned in it) */
  void *slots_raw; /* the table's block, likewise */
  size_t slots_bytes;
  size_t bytes;  /* everything held: struct, table, chunk list, chunks */
  int state_len; /* variables per state (m) */
  int key_words; /* words per packed state */
  int action_count;
  int id_bytes;      /* 1 or 2 */
  int plan_stride;   /* bytes per entry's plan */
  uint32_t capacity; /* most entries ever stored (bounded, see above) */
  uint32_t reserved; /* entries with storage and table room */
  uint32_t count;
  uint32_t slot_mask; /* slots - 1 */
  int slot_words;     /* 1 + 2 * key_words */
  uint64_t last_mask; /* keeps the used bytes of a state's last word */
  uint64_t *slots;
  int chunk_shift;      /* entries per chunk = 1 << chunk_shift */
  uint32_t chunk_count; /* chunks allocated */
  uint32_t chunk_room;  /* length of `chunks` */
  size_t chunk_bytes;   /* per chunk: [meta][failures][plans] */
  size_t fail_offset, plan_offset;
  char **chunks;
  uint64_t hits, misses, rejected;
} SpPlanCache;

/* Resolves a requested capacity: 0 becomes SP_PLAN_CACHE_DEFAULT_CAPACITY;
 * over SP_PLAN_CACHE_MAX_CAPACITY is SP_ERR_INVALID with the reason in err. */
SpStatus sp__plan_cache_capacity(uint32_t *capacity, SpError *err);

/* Creates an empty cache for domain d holding up to `capacity` entries
 * (0: SP_PLAN_CACHE_DEFAULT_CAPACITY; over SP_PLAN_CACHE_MAX_CAPACITY is an
 * error; fewer when plans of d are long, see SP_PLAN_CACHE_MAX_PLAN_BYTES).
 * The cache copies what it needs from d and does not refer to it
 * afterwards. It reserves no entry yet: two small allocations. */
SpStatus sp__plan_cache_new(const SpDomain *d, uint32_t capacity,
                            SpAllocator alloc, SpPlanCache **out, SpError *err);

void sp__plan_cache_free(SpPlanCache *c);

/* Makes room for at least `entries` entries (at most the capacity), so
 * that the inserts up to there allocate nothing. Grows by at least
 * doubling; entry numbers and stored results stay where they are. On
 * SP_ERR_MEMORY the cache is unchanged apart from extra room. */
SpStatus sp__plan_cache_reserve(SpPlanCache *c, uint32_t entries, SpError *err);

/* Forgets every entry (entry numbers become invalid) and the counters;
 * keeps the reserved storage. */
void sp__plan_cache_clear(SpPlanCache *c);

/* Bytes the cache holds. */
size_t sp__plan_cache_size_bytes(const SpPlanCache *c);

/* Packs (s0, goal) into key[0 .. 2*key_words-1] and returns its hash.
 * Reads exactly state_len bytes of each state. */
uint64_t sp__plan_cache_key(const SpPlanCache *c, const SpValue *s0,
                            const SpValue *goal, uint64_t *key);

/* Hash of a packed key of n words: per word a multiply and a fold of the
 * high half onto the low one, then one more round, so the low bits (the
 * table index) and the high bits (the tag) both depend on every byte.
 * Short on purpose: it runs once per NPC on the cache-hit path. */
static inline uint64_t sp_plan_cache_hash(const uint64_t *key, int n) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int k = 0; k < n; k++) {
    h = (h ^ key[k]) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
  }
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  return h;
}

/* The entry for a packed key and its hash, or SP_CACHE_NONE. Counts a hit
 * or a miss. */
static inline uint32_t sp_plan_cache_find(SpPlanCache *c, const uint64_t *key,
                                          uint64_t hash) {
  const int kw2 = 2 * c->key_words;
  const uint64_t tag = hash >> 32;
  uint32_t i = (uint32_t)hash & c->slot_mask;
  for (;;) {
    const uint64_t *s = c->slots + (size_t)i * (size_t)c->slot_words;
    if (s[0] == 0) break;
    if ((s[0] >> 32) == tag) {
      int k = 0;
      while (k < kw2 && s[1 + k] == key[k]) k++;
      if (k == kw2) {
        c->hits++;
        return (uint32_t)(s[0] & SP_CACHE_ENTRY_BITS) - 1u;
      }
    }
    i = (i + 1) & c->slot_mask;
  }
  c->misses++;
  return SP_CACHE_NONE;
}

/* Inserts a result for a key that sp_plan_cache_find did not find.
 * `kind` is SP_CACHE_PLAN (plan[0..len-1] as 16-bit ids) or
 * SP_CACHE_NO_PLAN (failure must not be NULL). Returns the new entry, or
 * SP_CACHE_NONE when no reserved entry is left (nothing is stored).
 * Never allocates. */
uint32_t sp__plan_cache_insert(SpPlanCache *c, const uint64_t *key,
                               uint64_t hash, int kind, const uint16_t *plan,
                               int len, const SpFailure *failure);

/* The chunk holding entry e, and e's place in it. */
static inline const char *sp_plan_cache_chunk(const SpPlanCache *c,
                                              uint32_t e) {
  return c->chunks[e >> c->chunk_shift];
}

static inline uint32_t sp_plan_cache_slot_in_chunk(const SpPlanCache *c,
                                                   uint32_t e) {
  return e & ((1u << c->chunk_shift) - 1u);
}

static inline uint32_t sp_plan_cache_meta(const SpPlanCache *c, uint32_t e) {
  const uint32_t *meta = (const uint32_t *)sp_plan_cache_chunk(c, e);
  return meta[sp_plan_cache_slot_in_chunk(c, e)];
}

static inline int sp_plan_cache_entry_kind(const SpPlanCache *c, uint32_t e) {
  return (int)(sp_plan_cache_meta(c, e) >> 16);
}

static inline int sp_plan_cache_entry_length(const SpPlanCache *c, uint32_t e) {
  return (int)(sp_plan_cache_meta(c, e) & 0xFFFFu);
}

/* The failure record of a SP_CACHE_NO_PLAN entry. */
static inline const SpFailure *sp_plan_cache_entry_failure(const SpPlanCache *c,
                                                           uint32_t e) {
  const SpFailure *f =
      (const SpFailure *)(sp_plan_cache_chunk(c, e) + c->fail_offset);
  return f + sp_plan_cache_slot_in_chunk(c, e);
}

/* The entry's plan in compact form (id_bytes per id). */
static inline const uint8_t *sp_plan_cache_entry_ids(const SpPlanCache *c,
                                                     uint32_t e) {
  return (const uint8_t *)sp_plan_cache_chunk(c, e) + c->plan_offset +
         (size_t)sp_plan_cache_slot_in_chunk(c, e) * (size_t)c->plan_stride;
}

/* Writes the entry's plan as 16-bit ids; returns its length. */
int sp__plan_cache_entry_plan(const SpPlanCache *c, uint32_t e, uint16_t *plan);

/* Plans through the cache: a hit returns the stored result, a miss calls
 * sp_plan(d, ws, ...) and stores its result (when there is room). Same
 * contract as sp_plan: `plan` holds action_count entries; on SP_NO_PLAN
 * *failure (if not NULL) is the record sp_plan wrote, field by field.
 * SP_ERR_STATE results are never cached. d must be the cache's domain. */
SpStatus sp__plan_cache_plan(SpPlanCache *c, const SpDomain *d, SpWorkspace *ws,
                             const SpValue *s0, const SpValue *goal,
                             uint16_t *plan, int *len, SpFailure *failure);

#ifdef __cplusplus
}
#endif

#endif
