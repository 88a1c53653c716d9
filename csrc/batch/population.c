/* population.c: populations of NPCs planned in batches (storage, setters, parallel planning, budget, caches). */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "saspu_population.h"
#include "sp_error.h"
#include "sp_internal.h"
#include "sp_plan_cache.h"
#include "sp_plan_table.h"
#include "sp_population.h"
#include "sp_claims.h"

static size_t align64(size_t n) { return (n + 63u) & ~(size_t)63u; }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Creation                                                           */
/* ------------------------------------------------------------------ */

/* Places the per-NPC arrays in one block, each on a 64-byte boundary
 * (chunks are multiples of 64 NPCs, so workers never write one line);
 * with base NULL only measures. The block itself is over-allocated by 63
 * bytes and aligned by the caller. */
static size_t population_layout(SpPopulation *p, char *base) {
  size_t n = p->n, m = (size_t)p->m;
  size_t off = 0;
  size_t o_limits = off;
  off = align64(off + m + 1u);
  size_t o_rows = off;
  off = align64(off + n * p->stride + 8u);
  size_t o_status = off;
  off = align64(off + n + 8u);
  size_t o_handle = off;
  if (!p->handles_in_rows) off = align64(off + n * sizeof(uint32_t));
  size_t o_slots = off;
  off = align64(off + n * p->slot_bytes);
  size_t o_block_dirty = off;
  off =
      align64(off + (p->chunk_count + 1u) * SP_DIRTY_WORDS * sizeof(uint64_t));
  if (base != NULL) {
    p->limits = (uint8_t *)(base + o_limits);
    p->states = (SpValue *)(base + o_rows);
    p->goals = p->states + m;
    p->status = (uint8_t *)(base + o_status);
    p->handles = p->handles_in_rows ? (uint8_t *)p->states + 2u * m
                                    : (uint8_t *)(base + o_handle);
    p->slots = (uint8_t *)(base + o_slots);
    p->block_dirty = (uint64_t *)(base + o_block_dirty);
  }
  return off;
}

static SpStatus population_new(const SpDomain *d, size_t n, SpAllocator alloc,
                               int handles_in_rows, SpPopulation **out,
                               SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  if (n > SP_POPULATION_MAX_NPCS)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "population: %zu NPCs is over the limit of %zu", n,
                         (size_t)SP_POPULATION_MAX_NPCS);
  SpPopulation *p = sp__mem_alloc(alloc, sizeof *p);
  if (p == NULL) return sp__error_memory(err);
  memset(p, 0, sizeof *p);
  p->alloc = alloc;
  p->domain = d;
  p->n = n;
  p->m = sp_domain_variable_count(d);
  p->key_words = p->m == 0 ? 1 : (p->m + 7) / 8;
  p->action_count = sp_domain_action_count(d);
  p->id_bytes = p->action_count <= 255 ? 1 : 2;
  p->slot_bytes = (size_t)p->action_count * (size_t)p->id_bytes;
  p->handles_in_rows = handles_in_rows;
  p->stride = 2u * (size_t)p->m + (handles_in_rows ? sizeof(uint32_t) : 0u);
  p->handle_stride = handles_in_rows ? p->stride : sizeof(uint32_t);
  int used = p->m - 8 * (p->key_words - 1);
  uint8_t pattern[8] = {0};
  memset(pattern, 0xFF, (size_t)used);
  memcpy(&p->last_mask, pattern, 8);
  p->chunk_count = (n + SP_POPULATION_CHUNK - 1) / SP_POPULATION_CHUNK;
  p->cache_capacity = SP_PLAN_CACHE_DEFAULT_CAPACITY;
  p->table_mode = SP_TABLE_AUTO;
  p->fast_pext = sp__population_fast_pext();

  size_t per_npc = 2u * (size_t)p->m + sizeof(uint32_t) + 1u + p->slot_bytes;
  if (n > 0 && per_npc > (SIZE_MAX - 4096u) / n) {
    sp__mem_free(alloc, p, sizeof *p);
    return sp__error_memory(err); /* the arrays would not fit in memory */
  }
  p->block_bytes = population_layout(p, NULL) + 63u;
  p->block = sp__mem_alloc(alloc, p->block_bytes);
  if (p->block == NULL) {
    sp__mem_free(alloc, p, sizeof *p);
    return sp__error_memory(err);
  }
  char *base = (char *)p->block;
  base += (64u - (uintptr_t)base % 64u) % 64u;
  population_layout(p, base);
  /* not the plan slots: those of plans from the cache stay untouched */
  sp__mem_hint_random(p->block, (size_t)((char *)p->slots - (char *)p->block));
  for (int v = 0; v < p->m; v++)
    p->limits[v] = (uint8_t)(sp_variable_value_count(d, v) - 1);
  /* states and goals start at value 0 and the spare bytes are zeroed for
   * the word loads; handles (but those in the rows) and slots are written
   * before they are read */
  memset(p->states, 0, n * p->stride + 8u);
  memset(p->status, ST_DIRTY, n);
  memset(p->status + n, 0, 8);
  memset(p->block_dirty, 0xFF,
         (p->chunk_count + 1u) * SP_DIRTY_WORDS * sizeof(uint64_t));
  atomic_init(&p->dirty_count, n);
  atomic_init(&p->slot_plans, 0);
  *out = p;
  return SP_OK;
}

SpStatus sp_population_new(const SpDomain *d, size_t n, SpAllocator alloc,
                           SpPopulation **out, SpError *err) {
  return population_new(d, n, alloc, 0, out, err);
}

SpStatus sp__population_new_in_rows(const SpDomain *d, size_t n,
                                    SpAllocator alloc, SpPopulation **out,
                                    SpError *err) {
  return population_new(d, n, alloc, 1, out, err);
}

static void worker_release(SpPopulation *p, Worker *w) {
  sp_workspace_free(w->ws);
  sp__plan_cache_free(w->cache);
  if (w->plan != NULL) sp__mem_free(p->alloc, w->plan, w->scratch_bytes);
  memset(w, 0, sizeof *w);
}

void sp_population_free(SpPopulation *pop) {
  if (pop == NULL) return;
  sp_thread_pool_free(pop->own_pool);
  sp__plan_table_free(pop->table);
  for (int k = 0; k < pop->worker_count; k++)
    worker_release(pop, pop->workers[k]);
  if (pop->worker_raw != NULL)
    sp__mem_free(pop->alloc, pop->worker_raw, pop->worker_raw_bytes);
  sp__mem_free(pop->alloc, pop->block, pop->block_bytes);
  sp__mem_free(pop->alloc, pop, sizeof *pop);
}

const SpDomain *sp_population_domain(const SpPopulation *pop) {
  return pop->domain;
}

size_t sp_population_size(const SpPopulation *pop) { return pop->n; }

const SpValue *sp_population_state(const SpPopulation *pop, size_t i) {
  return sp_population_state_at(pop, i);
}

const SpValue *sp_population_goal(const SpPopulation *pop, size_t i) {
  return sp_population_goal_at(pop, i);
}

SpValue *sp_population_state_write(SpPopulation *pop, size_t i) {
  return sp_population_state_at(pop, i);
}

SpValue *sp_population_goal_write(SpPopulation *pop, size_t i) {
  return sp_population_goal_at(pop, i);
}

/* ------------------------------------------------------------------ */
/* Setters                                                            */
/* ------------------------------------------------------------------ */

static SpStatus range_error(const SpPopulation *p, size_t first, size_t count,
                            SpError *err) {
  sp__error_clear(err);
  if (err != NULL) err->index = first > (size_t)INT32_MAX ? -1 : (int)first;
  if (count == 1)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "npc %zu is out of range (population of %zu)", first,
                         p->n);
  return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                       "npcs %zu..%zu are out of range (population of %zu)",
                       first, first + count - 1, p->n);
}

static int range_ok(const SpPopulation *p, size_t first, size_t count) {
  return first <= p->n && count <= p->n - first;
}

/* Checks `count` packed states for NPCs first.. and names the first bad
 * value: NPC (unless `all`: one state meant for every NPC), variable (by
 * name) and value. */
static SpStatus check_values(const SpPopulation *p, size_t first, size_t count,
                             const SpValue *packed, SpField field, int all,
                             SpError *err) {
  size_t m = (size_t)p->m;
  for (size_t k = 0; k < count; k++) {
    const SpValue *s = packed + k * m;
    for (size_t v = 0; v < m; v++) {
      if (s[v] <= p->limits[v]) continue;
      if (s[v] == SP_ANY && field == SP_FIELD_GOAL) continue; /* free */
      size_t npc = first + k;
      const char *what = field == SP_FIELD_START ? "start" : "goal";
      const char *name = sp_variable_name(p->domain, (int)v);
      sp__error_clear(err);
      if (err != NULL) {
        err->index = all || npc > (size_t)INT32_MAX ? -1 : (int)npc;
        err->variable = (int)v;
        err->value = s[v];
      }
      if (all)
        return sp__error_set(err, SP_ERR_STATE, SP_E_STATE_VALUE, field,
                             "%s value %d is out of range for '%s' "
                             "(%d values)",
                             what, (int)s[v], name, (int)p->limits[v] + 1);
      return sp__error_set(
          err, SP_ERR_STATE, SP_E_STATE_VALUE, field,
          "npc %zu: %s value %d is out of range for '%s' (%d values)", npc,
          what, (int)s[v], name, (int)p->limits[v] + 1);
    }
  }
  return SP_OK;
}

/* Sets NPC i's dirty bit; 1 when it was clean (the caller counts). */
static size_t set_dirty(SpPopulation *p, size_t i) {
  if (p->status[i] & ST_DIRTY) return 0;
  p->status[i] |= ST_DIRTY;
  sp_population_chunk_dirty(p, i);
  return 1;
}

static void mark(SpPopulation *p, size_t i) {
  if (set_dirty(p, i))
    atomic_fetch_add_explicit(&p->dirty_count, 1, memory_order_relaxed);
}

/* Copies count states into `dst` rows (NPC 0's states or goals),
 * marking the NPCs that change. */
static void store_rows(SpPopulation *p, SpValue *dst, size_t first,
                       size_t count, const SpValue *packed) {
  size_t m = (size_t)p->m;
  for (size_t k = 0; k < count; k++) {
    SpValue *row = dst + (first + k) * p->stride;
    const SpValue *src = packed + k * m;
    if (memcmp(row, src, m) == 0) continue;
    memcpy(row, src, m);
    mark(p, first + k);
  }
}

SpStatus sp_population_set(SpPopulation *pop, size_t i, const SpValue *s0,
                           const SpValue *goal, SpError *err) {
  sp__error_clear(err);
  if (!range_ok(pop, i, 1)) return range_error(pop, i, 1, err);
  SpStatus st = SP_OK;
  if (s0 != NULL) st = check_values(pop, i, 1, s0, SP_FIELD_START, 0, err);
  if (st == SP_OK && goal != NULL)
    st = check_values(pop, i, 1, goal, SP_FIELD_GOAL, 0, err);
  if (st != SP_OK) return st;
  if (s0 != NULL) store_rows(pop, pop->states, i, 1, s0);
  if (goal != NULL) store_rows(pop, pop->goals, i, 1, goal);
  return SP_OK;
}

SpStatus sp_population_set_states(SpPopulation *pop, size_t first, size_t count,
                                  const SpValue *packed, SpError *err) {
  sp__error_clear(err);
  if (!range_ok(pop, first, count)) return range_error(pop, first, count, err);
  SpStatus st = check_values(pop, first, count, packed, SP_FIELD_START, 0, err);
  if (st != SP_OK) return st;
  store_rows(pop, pop->states, first, count, packed);
  return SP_OK;
}

SpStatus sp_population_set_goals(SpPopulation *pop, size_t first, size_t count,
                                 const SpValue *packed, SpError *err) {
  sp__error_clear(err);
  if (!range_ok(pop, first, count)) return range_error(pop, first, count, err);
  SpStatus st = check_values(pop, first, count, packed, SP_FIELD_GOAL, 0, err);
  if (st != SP_OK) return st;
  store_rows(pop, pop->goals, first, count, packed);
  return SP_OK;
}

SpStatus sp_population_set_goal_all(SpPopulation *pop, const SpValue *goal,
                                    SpError *err) {
  sp__error_clear(err);
  SpStatus st = check_values(pop, 0, 1, goal, SP_FIELD_GOAL, 1, err);
  if (st != SP_OK) return st;
  size_t m = (size_t)pop->m;
  for (size_t i = 0; i < pop->n; i++) {
    SpValue *row = sp_population_goal_at(pop, i);
    if (memcmp(row, goal, m) == 0) continue;
    memcpy(row, goal, m);
    mark(pop, i);
  }
  return SP_OK;
}

SpStatus sp_population_mark_dirty(SpPopulation *pop, size_t first, size_t count,
                                  SpError *err) {
  sp__error_clear(err);
  if (!range_ok(pop, first, count)) return range_error(pop, first, count, err);
  size_t fresh = 0;
  for (size_t i = first; i < first + count; i++) fresh += set_dirty(pop, i);
  atomic_fetch_add_explicit(&pop->dirty_count, fresh, memory_order_relaxed);
  return SP_OK;
}

SpStatus sp_population_mark_dirty_list(SpPopulation *pop, const uint32_t *npcs,
                                       size_t count, SpError *err) {
  sp__error_clear(err);
  for (size_t k = 0; k < count; k++)
    if (!range_ok(pop, npcs[k], 1)) return range_error(pop, npcs[k], 1, err);
  sp__population_count_marked(pop, sp__population_mark_list(pop, npcs, count));
  return SP_OK;
}

size_t sp__population_mark_list(SpPopulation *p, const uint32_t *npcs,
                                size_t count) {
  size_t fresh = 0;
  for (size_t k = 0; k < count; k++) fresh += set_dirty(p, npcs[k]);
  return fresh;
}

void sp__population_count_marked(SpPopulation *p, size_t fresh) {
  if (fresh > 0)
    atomic_fetch_add_explicit(&p->dirty_count, fresh, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Workers                                                            */
/* ------------------------------------------------------------------ */

/* Whether table mode `mode` uses the bit-packed layout: by default only
 * where pext is fast (the byte loop that packs ranks elsewhere costs more
 * than mixed-radix ranks; it is kept as the pext path's reference). */
static int wants_bits(const SpPopulation *p, int mode) {
  return mode == SP_TABLE_PORTABLE || (mode == SP_TABLE_AUTO && p->fast_pext);
}

/* Makes sure records exist for `count` workers, each with a workspace and
 * scratch, and (with `cache`) a cache with room for an entry per dirty
 * NPC (a worker stores at most one per NPC it plans, and caches must not
 * allocate while workers run). Runs before any planning starts;
 * on failure what was added is released again only where it would be
 * half-built, and the population stays usable. */
static SpStatus workers_ensure_more(SpPopulation *p, int count, int cache,
                                    size_t more, SpError *err);

static SpStatus workers_ensure(SpPopulation *p, int count, int cache,
                               SpError *err) {
  return workers_ensure_more(p, count, cache, 0, err);
}

/* workers_ensure with room in the caches for `more` NPCs not dirty yet. */
static SpStatus workers_ensure_more(SpPopulation *p, int count, int cache,
                                    size_t more, SpError *err) {
  if (p->worker_raw == NULL) {
    /* records for the largest pool at once: they are small, and never
     * moving them keeps every pointer to them valid */
    size_t bytes = (size_t)SP_THREAD_POOL_MAX * WORKER_STRIDE + 63u;
    char *raw = sp__mem_alloc(p->alloc, bytes);
    if (raw == NULL) return sp__error_memory(err);
    memset(raw, 0, bytes);
    char *base = raw + (64u - (uintptr_t)raw % 64u) % 64u;
    p->worker_raw = raw;
    p->worker_raw_bytes = bytes;
    for (int k = 0; k < SP_THREAD_POOL_MAX; k++)
      p->workers[k] = (Worker *)(base + (size_t)k * WORKER_STRIDE);
  }
  while (p->worker_count < count) {
    Worker *w = p->workers[p->worker_count];
    SpStatus st = sp_workspace_new(p->domain, p->alloc, &w->ws, err);
    if (st != SP_OK) return st;
    size_t plan_bytes = ((size_t)p->action_count + 1u) * sizeof(uint16_t);
    plan_bytes = (plan_bytes + 7u) & ~(size_t)7u;
    w->scratch_bytes =
        plan_bytes + 2u * (size_t)p->key_words * sizeof(uint64_t);
    char *scratch = sp__mem_alloc(p->alloc, w->scratch_bytes);
    if (scratch == NULL) {
      sp_workspace_free(w->ws);
      w->ws = NULL;
      return sp__error_memory(err);
    }
    w->plan = (uint16_t *)scratch;
    w->key = (uint64_t *)(scratch + plan_bytes);
    p->worker_count++;
  }
  if (cache && !p->table_tried) {
    SpStatus st = sp__plan_table_new(p->domain, wants_bits(p, p->table_mode),
                                     p->alloc, &p->table, err);
    if (st != SP_OK) return st;
    p->table_tried = 1;
  }
  if (cache) {
    for (int k = 0; k < count; k++) {
      Worker *w = p->workers[k];
      if (w->cache == NULL) {
        SpStatus st = sp__plan_cache_new(p->domain, p->cache_capacity, p->alloc,
                                         &w->cache, err);
        if (st != SP_OK) return st;
      }
      size_t want = w->cache->count + atomic_load(&p->dirty_count) + more;
      if (want > UINT32_MAX) want = UINT32_MAX;
      SpStatus st = sp__plan_cache_reserve(w->cache, (uint32_t)want, err);
      if (st != SP_OK) return st;
    }
  }
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* The planning pass                                                  */
/* ------------------------------------------------------------------ */

typedef struct Pass {
  SpPopulation *pop;
  int use_cache;
  uint64_t budget_ns, deadline;
  size_t start_chunk;  /* the cursor at the start of the call */
  size_t dirty_before; /* dirty NPCs at the start */
  /* shared, each on its own line: with a budget the chunks are claimed
   * one at a time from the cursor on (one range); without one, worker k
   * starts on range k, as a crowd's passes do (sp_claims.h) */
  SpClaims claims;
  _Alignas(64) atomic_size_t done; /* NPCs planned so far */
  _Alignas(64) atomic_int stop;
} Pass;

/* The job each worker runs: claim runs of chunks until they run out,
 * every dirty NPC is planned, or the budget is spent. A run is claimed
 * only after the checks, and every chunk of a claimed run is planned, so
 * with a budget the chunks done form one run from the cursor. Worker 0
 * claims unconditionally until a chunk of its had a dirty NPC: every call
 * makes progress, however small its budget, and clean chunks cost a scan
 * of their status bytes, eight at a time. Without a budget the workers
 * meet at the shared counters once a run of several chunks. */
static void plan_job(void *arg, int k) {
  Pass *ps = arg;
  SpPopulation *p = ps->pop;
  Worker *w = p->workers[k];
  int first = k == 0;
  size_t t = 0, end = 0, got_run = 0;
  for (;;) {
    if (t == end) {
      if (got_run > 0) {
        size_t done = atomic_fetch_add_explicit(&ps->done, got_run,
                                                memory_order_relaxed) +
                      got_run;
        got_run = 0;
        if (done >= ps->dirty_before)
          atomic_exchange_explicit(&ps->stop, 1, memory_order_relaxed);
      }
      if (!first) {
        /* the flag is read and set with read-modify-writes: one locked
         * operation per run costs nothing, and race detectors that do not
         * model plain atomic loads and stores (helgrind) stay quiet */
        if (atomic_fetch_or_explicit(&ps->stop, 0, memory_order_relaxed)) break;
        if (ps->budget_ns != 0 && now_ns() >= ps->deadline) {
          atomic_exchange_explicit(&ps->stop, 1, memory_order_relaxed);
          break;
        }
      }
      first = 0;
      if (!sp__claims_next(&ps->claims, k, &t, &end)) break;
    }
    size_t chunk = (ps->start_chunk + t++) % p->chunk_count;
    size_t got = sp__population_plan_chunk(p, w, k, ps->use_cache, chunk);
    got_run += got;
    if (got == 0 && got_run == 0) first = k == 0 && !w->planned;
  }
}

/* Chooses the pool and worker count for a call, starting the
 * population's own pool when it needs one. */
static SpStatus choose_pool(SpPopulation *p, const SpPlanOptions *o,
                            SpThreadPool **pool, int *workers, SpError *err) {
  int want = o->threads > 0 ? o->threads : sp_online_cores();
  if (want > SP_THREAD_POOL_MAX) want = SP_THREAD_POOL_MAX;
  *pool = NULL;
  if (o->pool != NULL) {
    int size = sp_thread_pool_size(o->pool);
    *pool = o->pool;
    *workers = want < size ? want : size;
    return SP_OK;
  }
  *workers = want;
  if (want == 1) return SP_OK;
  if (p->own_pool == NULL || sp_thread_pool_size(p->own_pool) < want) {
    SpThreadPool *fresh = NULL;
    SpStatus st = sp_thread_pool_new(want, p->alloc, &fresh, err);
    if (st != SP_OK) return st;
    sp_thread_pool_free(p->own_pool);
    p->own_pool = fresh;
  }
  *pool = p->own_pool;
  return SP_OK;
}

void sp_population_mark_clean(SpPopulation *pop) {
  for (size_t i = 0; i < pop->n; i++) pop->status[i] &= (uint8_t)~ST_DIRTY;
  memset(pop->block_dirty, 0,
         (pop->chunk_count + 1u) * SP_DIRTY_WORDS * sizeof(uint64_t));
  atomic_store(&pop->dirty_count, 0);
}

SpStatus sp_population_warm(SpPopulation *pop, const SpPlanOptions *opts,
                            SpError *err) {
  sp__error_clear(err);
  SpPlanOptions o = {0, 0, 0, NULL};
  if (opts != NULL) o = *opts;
  int workers = 1;
  SpThreadPool *pool = NULL;
  SpStatus st = choose_pool(pop, &o, &pool, &workers, err);
  return st == SP_OK ? workers_ensure(pop, workers, !o.no_cache, err) : st;
}

SpStatus sp_population_plan(SpPopulation *pop, const SpPlanOptions *opts,
                            SpPlanReport *out, SpError *err) {
  uint64_t t0 = now_ns();
  sp__error_clear(err);
  SpPlanOptions o = {0, 0, 0, NULL};
  if (opts != NULL) o = *opts;
  SpPlanReport r;
  memset(&r, 0, sizeof r);
  int workers = 1;
  SpThreadPool *pool = NULL;
  SpStatus st = choose_pool(pop, &o, &pool, &workers, err);
  if (st == SP_OK) st = workers_ensure(pop, workers, !o.no_cache, err);
  if (st != SP_OK) {
    r.waiting = atomic_load(&pop->dirty_count);
    if (out != NULL) *out = r;
    return st;
  }
  r.threads = workers;
  if (atomic_load(&pop->dirty_count) > 0 && pop->chunk_count > 0) {
    Pass ps;
    memset(&ps, 0, sizeof ps);
    ps.pop = pop;
    ps.use_cache = !o.no_cache;
    ps.budget_ns = o.budget_ns;
    ps.deadline = t0 + o.budget_ns;
    /* with a budget the chunks go one at a time from the cursor on, and
     * the cursor moves past them; without one, every dirty NPC is
     * planned, and the chunks split among the workers the same way at
     * every call */
    int budgeted = ps.budget_ns != 0 || pool == NULL;
    ps.start_chunk = budgeted ? pop->cursor : 0;
    ps.dirty_before = atomic_load(&pop->dirty_count);
    if (budgeted)
      sp__claims_init(&ps.claims, pop->chunk_count, 1, 1);
    else
      sp__claims_init(&ps.claims, pop->chunk_count, workers,
                      sp__claims_run(pop->chunk_count, workers));
    atomic_init(&ps.done, 0);
    atomic_init(&ps.stop, 0);
    for (int k = 0; k < workers; k++) {
      Worker *w = pop->workers[k];
      w->planned = w->failures = 0;
      w->hits = w->misses = 0;
    }
    if (pool != NULL)
      sp__thread_pool_help(pool, workers, plan_job, &ps);
    else
      plan_job(&ps, 0);
    if (budgeted) {
      size_t claimed = sp__claims_front(&ps.claims);
      if (claimed > pop->chunk_count) claimed = pop->chunk_count;
      pop->cursor = (pop->cursor + claimed) % pop->chunk_count;
    }
    for (int k = 0; k < workers; k++) {
      Worker *w = pop->workers[k];
      r.planned += w->planned;
      r.failures += w->failures;
      r.cache_hits += w->hits;
      r.cache_misses += w->misses;
    }
    atomic_fetch_sub(&pop->dirty_count, r.planned);
    pop->hits += r.cache_hits;
    pop->misses += r.cache_misses;
  }
  r.waiting = atomic_load(&pop->dirty_count);
  r.elapsed_ns = now_ns() - t0;
  if (out != NULL) *out = r;
  return SP_OK;
}

SpStatus sp__population_inline_begin(SpPopulation *pop, int workers,
                                     size_t more, SpError *err) {
  SpStatus st = workers_ensure_more(pop, workers, 1, more, err);
  if (st != SP_OK) return st;
  for (int k = 0; k < workers; k++) {
    Worker *w = pop->workers[k];
    w->planned = w->failures = 0;
    w->hits = w->misses = 0;
  }
  return SP_OK;
}

size_t sp__population_inline_chunk(SpPopulation *pop, int k, size_t chunk) {
  return sp__population_plan_chunk(pop, pop->workers[k], k, 1, chunk);
}

size_t sp__population_inline_list(SpPopulation *pop, int k,
                                  const uint32_t *npcs, size_t n) {
  const SpPlanTable *t = pop->table;
  if (t == NULL || pop->table_mode == SP_TABLE_OFF || !t->bits)
    return sp__population_mark_list(pop, npcs, n);
  Worker *w = pop->workers[k];
  if (pop->table_mode == SP_TABLE_AUTO) /* bits only with a fast pext */
    return sp__population_list_bits_pext(pop, w, npcs, n);
  return sp__population_list_bits(pop, w, npcs, n);
}

void sp__population_inline_end(SpPopulation *pop, int workers) {
  for (int k = 0; k < workers; k++) {
    Worker *w = pop->workers[k];
    atomic_fetch_sub(&pop->dirty_count, w->planned);
    pop->hits += w->hits;
    pop->misses += w->misses;
    w->planned = w->failures = 0;
    w->hits = w->misses = 0;
  }
}

/* ------------------------------------------------------------------ */
/* Results                                                            */
/* ------------------------------------------------------------------ */

SpNpcStatus sp_population_status_of(const SpPopulation *pop, size_t i,
                                    SpFailureCode *code, int *dirty) {
  uint8_t s = pop->status[i];
  if (dirty != NULL) *dirty = (s & ST_DIRTY) != 0;
  if (code != NULL) *code = SP_FAIL_NONE;
  switch (s & ST_KIND_MASK) {
  case ST_SLOT:
  case ST_CACHE: return SP_NPC_PLANNED;
  case ST_NO_PLAN:
    if (code != NULL) *code = (SpFailureCode)((s & 0x7F) >> ST_CODE_SHIFT);
    return SP_NPC_NO_PLAN;
  default: return SP_NPC_UNPLANNED;
  }
}

void sp_population_prefetch(const SpPopulation *pop, size_t i) {
  sp_population_request_at(pop, i);
}

void sp_population_prefetch_goal(const SpPopulation *pop, size_t i) {
  sp_population_request_goal_at(pop, i);
}

const uint8_t *sp_population_plan_ids(const SpPopulation *pop, size_t i,
                                      int *len, int *width) {
  *width = pop->id_bytes;
  if (i >= pop->n) {
    *len = -1;
    return NULL;
  }
  return sp_population_plan_at(pop, i, len);
}

int sp_population_plan_length(const SpPopulation *pop, size_t i) {
  if (i >= pop->n) return -1;
  int len;
  sp_population_plan_at(pop, i, &len);
  return len;
}

int sp_population_plan_step(const SpPopulation *pop, size_t i, int k) {
  if (i >= pop->n) return -1;
  int len;
  const uint8_t *ids = sp_population_plan_at(pop, i, &len);
  if (ids == NULL || k < 0 || k >= len) return -1;
  if (pop->id_bytes == 1) return ids[k];
  uint16_t id;
  memcpy(&id, ids + 2 * (size_t)k, 2);
  return id;
}

SpStatus sp_population_plan_of(const SpPopulation *pop, size_t i,
                               uint16_t *plan, int *len) {
  *len = 0;
  if (i >= pop->n) return SP_ERR_STATE;
  int n;
  const uint8_t *ids = sp_population_plan_at(pop, i, &n);
  if (ids == NULL)
    return (pop->status[i] & ST_KIND_MASK) == ST_NO_PLAN ? SP_NO_PLAN
                                                         : SP_ERR_STATE;
  if (pop->id_bytes == 1) {
    for (int k = 0; k < n; k++) plan[k] = ids[k];
  } else {
    memcpy(plan, ids, (size_t)n * sizeof(uint16_t));
  }
  *len = n;
  return SP_OK;
}

SpStatus sp_population_explain(SpPopulation *pop, size_t i, SpFailure *failure,
                               SpError *err) {
  sp__error_clear(err);
  if (!range_ok(pop, i, 1)) return range_error(pop, i, 1, err);
  SpStatus st = workers_ensure(pop, 1, 0, err);
  if (st != SP_OK) return st;
  Worker *w = pop->workers[0];
  SpFailure f = {SP_FAIL_NONE, -1, -1, -1, -1, 0};
  int len = 0;
  st = sp_plan(pop->domain, w->ws, sp_population_state(pop, i),
               sp_population_goal(pop, i), w->plan, &len, &f);
  if (failure != NULL) *failure = f;
  return st;
}

/* ------------------------------------------------------------------ */
/* Caches                                                             */
/* ------------------------------------------------------------------ */

/* Gives every NPC that points into a cache its own copy of the plan. */
static void detach_from_caches(SpPopulation *p) {
  for (size_t i = 0; i < p->n; i++) {
    if ((p->status[i] & ST_KIND_MASK) != ST_CACHE) continue;
    int len;
    const uint8_t *ids = sp_population_plan_at(p, i, &len);
    memcpy(p->slots + i * p->slot_bytes, ids,
           (size_t)len * (size_t)p->id_bytes);
    sp_handle_set(p, i, (uint32_t)len);
    p->status[i] = (uint8_t)((p->status[i] & ~ST_KIND_MASK) | ST_SLOT);
    sp_population_slot_used(p);
  }
}

/* Writes NPC i's result as a saved game had it: the plan goes to the
 * NPC's own slot (caches are not saved); the dirty count follows. */
void sp_population_restore(SpPopulation *pop, size_t i, SpNpcStatus status,
                           SpFailureCode code, int dirty, const uint16_t *plan,
                           int len) {
  uint8_t was = pop->status[i] & ST_DIRTY;
  uint8_t s = ST_UNPLANNED;
  if (status == SP_NPC_PLANNED) {
    uint8_t *slot = pop->slots + i * pop->slot_bytes;
    for (int k = 0; k < len; k++) {
      if (pop->id_bytes == 1)
        slot[k] = (uint8_t)plan[k];
      else
        memcpy(slot + 2 * (size_t)k, &plan[k], 2);
    }
    sp_handle_set(pop, i, (uint32_t)len);
    s = ST_SLOT;
    sp_population_slot_used(pop);
  } else if (status == SP_NPC_NO_PLAN) {
    s = (uint8_t)(ST_NO_PLAN | ((unsigned)code & 7u) << ST_CODE_SHIFT);
  }
  if (dirty) s |= ST_DIRTY;
  if (dirty) sp_population_chunk_dirty(pop, i);
  pop->status[i] = s;
  if (was && !dirty) atomic_fetch_sub(&pop->dirty_count, 1);
  if (!was && dirty) atomic_fetch_add(&pop->dirty_count, 1);
}

void sp__population_use_table(SpPopulation *pop, int mode) {
  pop->table_mode = mode;
  if (mode == SP_TABLE_OFF || pop->table == NULL) return;
  if (pop->table->bits == wants_bits(pop, mode)) return;
  /* the other layout, where it may fit: made by the next cached call
   * (cells only point into the caches, which keep every entry) */
  sp__plan_table_free(pop->table);
  pop->table = NULL;
  pop->table_tried = 0;
}

void sp_population_cache_clear(SpPopulation *pop) {
  detach_from_caches(pop);
  if (pop->table != NULL) sp__plan_table_clear(pop->table);
  for (int k = 0; k < pop->worker_count; k++)
    if (pop->workers[k]->cache != NULL)
      sp__plan_cache_clear(pop->workers[k]->cache);
}

SpStatus sp_population_set_cache_capacity(SpPopulation *pop, uint32_t capacity,
                                          SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__plan_cache_capacity(&capacity, err);
  if (st != SP_OK) return st;
  detach_from_caches(pop);
  if (pop->table != NULL) sp__plan_table_clear(pop->table);
  for (int k = 0; k < pop->worker_count; k++) {
    sp__plan_cache_free(pop->workers[k]->cache);
    pop->workers[k]->cache = NULL;
  }
  pop->cache_capacity = capacity;
  return SP_OK;
}
