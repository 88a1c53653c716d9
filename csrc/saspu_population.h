/* saspu_population.h: public C API for batch planning: populations of NPCs planned on several cores with a plan cache and a frame budget. */
#ifndef saspu_population_h
#define saspu_population_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"
#include "saspu_threads.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries a cache holds when the caller asks for 0. */
#if !defined(SP_PLAN_CACHE_DEFAULT_CAPACITY)
#define SP_PLAN_CACHE_DEFAULT_CAPACITY 4096
#endif

/* Upper bound on the capacity (entry numbers must fit 32-bit handles). */
#if !defined(SP_PLAN_CACHE_MAX_CAPACITY)
#define SP_PLAN_CACHE_MAX_CAPACITY (1u << 24)
#endif

/* Bound on the plan storage of one full cache, in bytes: a domain whose
 * plans take more than SP_PLAN_CACHE_MAX_PLAN_BYTES / capacity bytes each
 * gets a cache of fewer entries (at least 1). A cache only takes storage
 * for the entries it holds (plus room for the NPCs of the next pass), so
 * a few NPCs on a huge domain hold little. */
#if !defined(SP_PLAN_CACHE_MAX_PLAN_BYTES)
#define SP_PLAN_CACHE_MAX_PLAN_BYTES ((size_t)32 << 20)
#endif

/* Domains of at most this many total states (and 8 variables) get a
 * direct plan table in front of the caches (see "caches" below). */
#if !defined(SP_PLAN_TABLE_MAX_STATES)
#define SP_PLAN_TABLE_MAX_STATES 4096u
#endif

/* Where every value of a small domain fits in few bits (at most
 * SP_PLAN_TABLE_MAX_STATES bit-packed starts, and at most this many bits
 * for a packed goal, one more per variable than a start), the table
 * finds a goal's row with one load from a map of 2^bits entries (2 bytes
 * each) instead of a search. */
#if !defined(SP_PLAN_TABLE_GOAL_BITS)
#define SP_PLAN_TABLE_GOAL_BITS 18
#endif

/* Goals the direct table has rows for; NPCs with further goals use the
 * caches only. */
#if !defined(SP_PLAN_TABLE_GOALS)
#define SP_PLAN_TABLE_GOALS 32
#endif

/* NPCs per unit of work: workers take chunks of this many NPCs from a
 * shared counter, and a frame budget is checked once per chunk. A
 * multiple of 64, so no two workers write into one cache line. */
#if !defined(SP_POPULATION_CHUNK)
#define SP_POPULATION_CHUNK 1024
#endif

/* Largest population (plan handles are 32-bit). */
#if !defined(SP_POPULATION_MAX_NPCS)
#define SP_POPULATION_MAX_NPCS ((size_t)1 << 31)
#endif

/* N NPCs of one compiled domain, in structure-of-arrays form:
 *   states, goals  n x m bytes (one byte per variable, like sp_plan's)
 *   status         1 byte: dirty flag, result kind, failure code
 *   handle         4 bytes: a plan cache entry, or the plan's length
 *   slot           action_count ids (1 byte each up to 255 actions, else
 *                  2): the NPC's own plan when it is not in a cache
 * A plan lives in a cache entry shared by every NPC with the same
 * (s0, s*) when the cache is on and has room, otherwise in the NPC's slot,
 * so storage is bounded (a plan never repeats an action, so it fits the
 * slot) and planning never allocates. For the paper domains that is 18
 * (Horse Breeder), 28 (Acquisition Machine) and 32 (Citizen) bytes per
 * NPC (sp_population_stats reports it).
 *
 * The population does not own its domain: the domain must outlive it.
 * Not thread safe: one thread at a time calls the functions below on a
 * given population (sp_population_plan uses its own workers inside). */
typedef struct SpPopulation SpPopulation;

/* n NPCs, every state and goal all zeros (the first value of each
 * variable), every NPC dirty and unplanned. Allocates the per-NPC arrays
 * at once; workspaces, caches and threads come with the first plan call.
 * n may be 0. On failure *out is NULL and nothing is leaked. */
SP_API SpStatus sp_population_new(const SpDomain *d, size_t n,
                                  SpAllocator alloc, SpPopulation **out,
                                  SpError *err);

/* Releases everything, including the population's own thread pool; NULL
 * is ignored. */
SP_API void sp_population_free(SpPopulation *pop);

SP_API const SpDomain *sp_population_domain(const SpPopulation *pop);
SP_API size_t sp_population_size(const SpPopulation *pop);

/* ---- setting states and goals --------------------------------------- */
/* Every setter validates all of its input before changing anything. A
 * value out of range gives SP_ERR_STATE / SP_E_STATE_VALUE with index =
 * the NPC, variable, value and field (SP_FIELD_START or SP_FIELD_GOAL)
 * set, and a message such as
 *   npc 12: start value 5 is out of range for 'hunger' (3 values)
 * An NPC index or range outside the population gives SP_ERR_STATE /
 * SP_E_LIMIT. An NPC becomes dirty when its state or goal changes. */

/* NPC i; s0 or goal may be NULL to keep the current one. */
SP_API SpStatus sp_population_set(SpPopulation *pop, size_t i,
                                  const SpValue *s0, const SpValue *goal,
                                  SpError *err);

/* NPCs first .. first+count-1 from packed arrays of count x m bytes. */
SP_API SpStatus sp_population_set_states(SpPopulation *pop, size_t first,
                                         size_t count, const SpValue *packed,
                                         SpError *err);
SP_API SpStatus sp_population_set_goals(SpPopulation *pop, size_t first,
                                        size_t count, const SpValue *packed,
                                        SpError *err);

/* The same goal (m bytes) for every NPC. */
SP_API SpStatus sp_population_set_goal_all(SpPopulation *pop,
                                           const SpValue *goal, SpError *err);

/* Marks NPCs first .. first+count-1 dirty (to replan them although
 * nothing changed). Several threads may mark disjoint NPCs at once, while
 * no planning runs. */
SP_API SpStatus sp_population_mark_dirty(SpPopulation *pop, size_t first,
                                         size_t count, SpError *err);
/* The same for the `count` NPCs listed (one update of the shared count,
 * so workers marking their own NPCs do not contend). */
SP_API SpStatus sp_population_mark_dirty_list(SpPopulation *pop,
                                              const uint32_t *npcs,
                                              size_t count, SpError *err);

/* Clears every NPC's dirty flag (a new population has them all set), so
 * the next sp_population_plan plans only the NPCs marked after: for an
 * executor that marks the NPCs it needs planned. Not while planning runs. */
SP_API void sp_population_mark_clean(SpPopulation *pop);

/* NPC i's current state and goal (m bytes each); i must be < n. */
SP_API const SpValue *sp_population_state(const SpPopulation *pop, size_t i);
SP_API const SpValue *sp_population_goal(const SpPopulation *pop, size_t i);

/* Writable rows of NPC i, for an executor that applies planned effects
 * and sets goals itself (values must stay in range: nothing checks them).
 * Writes through them do not mark the NPC dirty; call
 * sp_population_mark_dirty for an NPC that must be planned again. */
SP_API SpValue *sp_population_state_write(SpPopulation *pop, size_t i);
SP_API SpValue *sp_population_goal_write(SpPopulation *pop, size_t i);

/* ---- planning ------------------------------------------------------- */

typedef struct SpPlanOptions {
  /* Workers: 0 means the online cores; 1 plans on the calling thread. */
  int threads;
  /* 1: plan every NPC afresh, without reading or filling the cache. */
  int no_cache;
  /* Stop taking new chunks once this many ns have passed since the call
   * began; 0: no budget, plan every dirty NPC. The call may run over by
   * up to one chunk per worker. */
  uint64_t budget_ns;
  /* A pool to run on (shared by several populations); NULL: the
   * population's own pool, started by the first call that needs more
   * than one worker. With a pool, workers are at most its size. */
  SpThreadPool *pool;
} SpPlanOptions;

typedef struct SpPlanReport {
  size_t planned;        /* NPCs planned by this call */
  size_t waiting;        /* dirty NPCs left for the next call */
  size_t failures;       /* of the planned, those with no plan */
  uint64_t cache_hits;   /* of the planned, served by a cache */
  uint64_t cache_misses; /* of the planned, planned afresh with the cache on */
  uint64_t elapsed_ns;
  int threads; /* workers used */
} SpPlanReport;

/* Plans dirty NPCs (all of them without a budget) and clears their dirty
 * flags. Visits NPCs in chunks from a round-robin cursor: a call that
 * runs out of budget resumes at the next call where it stopped, and
 * every call plans at least one chunk that holds a dirty NPC (clean
 * chunks are skipped), so no NPC starves and every call with dirty NPCs
 * makes progress, however small its budget. Plans are those
 * of sp_plan on each NPC's (state, goal), whatever the thread count and
 * whether the cache is on. The first call with a given thread count or
 * cache setting allocates workspaces, caches and threads; after that,
 * planning allocates nothing. opts may be NULL (all cores, cache on, no
 * budget); out may be NULL. Fails only while setting up (SP_ERR_MEMORY):
 * then nothing has been planned and the population is unchanged. */
SP_API SpStatus sp_population_plan(SpPopulation *pop, const SpPlanOptions *opts,
                                   SpPlanReport *out, SpError *err);
/* Sets up what the first sp_population_plan with these options allocates
 * (workspaces, caches, the plan table, threads) and plans nothing, so
 * that call starts planning at once: behind a game's loading screen.
 * opts as for sp_population_plan; SP_ERR_MEMORY leaves the population
 * usable (the first plan tries again). */
SP_API SpStatus sp_population_warm(SpPopulation *pop, const SpPlanOptions *opts,
                                   SpError *err);

/* What an NPC's last planning gave. */
typedef enum SpNpcStatus {
  SP_NPC_UNPLANNED = 0, /* never planned since creation */
  SP_NPC_PLANNED,       /* has a plan (possibly empty) */
  SP_NPC_NO_PLAN        /* no plan exists; see the failure code */
} SpNpcStatus;

/* The status of NPC i's last result, *code its failure code (SP_FAIL_NONE
 * unless SP_NPC_NO_PLAN; code may be NULL), *dirty (may be NULL) whether
 * its state or goal changed since. The result stays readable while the
 * NPC is dirty; it is then about the previous (state, goal). */
SP_API SpNpcStatus sp_population_status_of(const SpPopulation *pop, size_t i,
                                           SpFailureCode *code, int *dirty);

/* Asks the CPU for NPC i's state, status and stored plan ahead of use
 * (a hint: callers visiting scattered NPCs issue it a few NPCs early). */
SP_API void sp_population_prefetch(const SpPopulation *pop, size_t i);

/* Asks the CPU for NPC i's goal row ahead of a write (setting goals for
 * scattered NPCs); sp_population_prefetch leaves it out, as running a
 * plan never reads it. */
SP_API void sp_population_prefetch_goal(const SpPopulation *pop, size_t i);

/* NPC i's plan: its length, or -1 when it has none (unplanned, no plan). */
SP_API int sp_population_plan_length(const SpPopulation *pop, size_t i);

/* Action id of step k (0-based) of NPC i's plan, or -1 out of range. */
SP_API int sp_population_plan_step(const SpPopulation *pop, size_t i, int k);

/* Copies NPC i's plan into plan[0..*len-1] (plan holds action_count
 * entries). SP_OK with a plan, SP_NO_PLAN when none exists (*len = 0),
 * SP_ERR_STATE when the NPC is unplanned or i is out of range. */
SP_API SpStatus sp_population_plan_of(const SpPopulation *pop, size_t i,
                                      uint16_t *plan, int *len);

/* NPC i's plan read where it is stored: *len ids of *width bytes each (1,
 * or 2 in the machine's order), or NULL with *len = -1 when it has none
 * (unplanned, no plan, i out of range). Valid until the population
 * plans, loads or changes its caches. */
SP_API const uint8_t *sp_population_plan_ids(const SpPopulation *pop, size_t i,
                                             int *len, int *width);

/* Plans NPC i's current (state, goal) again on the calling thread to
 * fill the whole failure record (the population keeps only its code).
 * Returns sp_plan's status; does not change the NPC. May allocate the
 * first worker's workspace when no plan call has run yet. */
SP_API SpStatus sp_population_explain(SpPopulation *pop, size_t i,
                                      SpFailure *failure, SpError *err);

/* For loading a saved game: sets NPC i's last result (a plan of `len`
 * action ids, at most the action count, each in range; or no plan with
 * `code`; or unplanned) and its dirty flag, as sp_population_status_of
 * and sp_population_plan_of reported them when it was saved. Checks
 * nothing: the caller has validated the input. */
SP_API void sp_population_restore(SpPopulation *pop, size_t i,
                                  SpNpcStatus status, SpFailureCode code,
                                  int dirty, const uint16_t *plan, int len);

/* ---- caches --------------------------------------------------------- */
/* Each worker owns one cache of up to `capacity` entries (default
 * SP_PLAN_CACHE_DEFAULT_CAPACITY, fewer on domains whose plans are long:
 * SP_PLAN_CACHE_MAX_PLAN_BYTES) that only it reads and fills during a
 * plan call, so no locks are taken. A cache takes storage as it fills:
 * before a pass each worker's cache makes room for one entry per dirty
 * NPC (at least doubling, up to the capacity), so a call with no new
 * pairs allocates nothing. A cache stops inserting when full: entries
 * are never evicted nor moved, which is what lets NPCs point at them.
 * Which worker met a pair first decides where it is cached, so hit and
 * miss counts (not plans) can vary with the thread count.
 *
 * In front of the caches, a domain of at most SP_PLAN_TABLE_MAX_STATES
 * total states and 8 variables (the paper domains) gets one direct table
 * shared by all workers: a row per goal (the first SP_PLAN_TABLE_GOALS
 * goals met since the caches were last cleared; a game's goal conditions
 * are few), indexed by the start state's rank, whose cells point at cache
 * entries. Where every variable's values fit in few bits (at most
 * SP_PLAN_TABLE_GOAL_BITS for a goal), the rank and the goal's row come
 * from the state and goal packed bit by bit (one BMI2 pext each where
 * the CPU has a fast one, checked at run time), else from a mixed-radix
 * rank and a goal search. A cached frame then costs a few loads per NPC
 * instead of a hash lookup; NPCs whose goal has no row, or whose cell is
 * empty, go through the caches as before. The table is emptied with the
 * caches (sp_population_cache_clear, sp_population_set_cache_capacity).
 * Plans are the same either way. */

/* Empties every cache; the NPCs that pointed into one get a copy of their
 * plan in their own slot first (O(n)), so no result is lost. */
SP_API void sp_population_cache_clear(SpPopulation *pop);

/* Sets the capacity of every worker's cache (0: the default): the caches
 * are emptied as by sp_population_cache_clear and released; new ones come
 * with the next plan call. SP_ERR_INVALID over SP_PLAN_CACHE_MAX_CAPACITY. */
SP_API SpStatus sp_population_set_cache_capacity(SpPopulation *pop,
                                                 uint32_t capacity,
                                                 SpError *err);

/* ---- statistics ----------------------------------------------------- */

typedef struct SpPopulationStats {
  size_t npcs;
  size_t dirty;
  size_t planned;   /* NPCs whose last result is a plan */
  size_t no_plan;   /* ... no plan */
  size_t unplanned; /* never planned */
  size_t in_cache;  /* NPCs whose plan is a shared cache entry */
  uint64_t cache_hits, cache_misses; /* over every call so far */
  uint64_t cache_rejected;           /* misses not stored: cache full */
  size_t cache_entries;              /* over every worker's cache */
  size_t cache_capacity;             /* entries per worker cache */
  int workers;                       /* worker records set up so far */
  size_t bytes_per_npc;              /* state + goal + status + handle + slot */
  size_t bytes_npcs;                 /* the per-NPC arrays, padding included */
  size_t bytes_workers;              /* workspaces, caches, scratch */
  size_t bytes_total;                /* everything the population allocated */
  size_t bytes_resident; /* of bytes_total, what is in memory: a large
                            array's untouched pages (slots of NPCs never
                            planned into them) hold none */
} SpPopulationStats;

/* Fills *out; counts NPCs by status, so O(n). */
SP_API void sp_population_stats(const SpPopulation *pop,
                                SpPopulationStats *out);

#ifdef __cplusplus
}
#endif

#endif
