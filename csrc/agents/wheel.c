/* wheel.c: due times: agents waiting on a timer sleep in a wheel of ticks, so an update visits only the agents whose wait ends or whom something woke; an agent with an interruptible step stays awake. */
#include <math.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_wheel.h"
#include "sp_due.h"
#include "sp_walk.h"
#include "sp_internal.h"

/* The agents armed in one slot, in no order, in a chain of blocks from
 * one pool (a slot holds at most one block not full, so the wheel costs
 * about 4 bytes per waiting agent); stale entries (a timer restarted, a
 * wait interrupted) are dropped when the slot drains. */
#define BLOCK_ENTRIES 62
#define NO_BLOCK      UINT32_MAX
typedef struct WheelBlock {
  uint32_t next, n;
  uint32_t e[BLOCK_ENTRIES];
} WheelBlock;

struct WheelSlot {
  uint32_t head; /* NO_BLOCK: empty */
};

/* One worker's wheel: the timers the agents it visited started, filed
 * by the worker itself as it settles them (no list for the caller to
 * file after the pass); a frame's start drains the due slots of every
 * worker's wheel. Waking only sets an agent's awake bit, so the order the
 * wheels drain in changes nothing. */
#define FILE_BATCH 32
struct Wheel {
  struct WheelSlot slot[SP_WHEEL_SLOTS];
  WheelBlock *block; /* the pool, `cap` blocks, `used` of them handed out */
  uint32_t used, cap, free_head;
  /* timers started, not yet filed: their slots' first blocks requested
   * (filed FILE_BATCH at a time, the rest after the pass) */
  uint32_t pending, pend_agent[FILE_BATCH];
  uint16_t pend_slot[FILE_BATCH];
};
_Static_assert(SP_WHEEL_SLOTS <= 65536, "a slot's index: 16 bits");

/* A clock this many ticks past the epoch moves the epoch by half of it
 * (a due time holds 2^32 ticks, 18 hours). */
#define EPOCH_SPAN 2147483648u
/* A load puts the epoch this many ticks before the clock. */
#define LOAD_SLACK (1u << 30)
/* A frame this many ticks long wakes every agent: nearly all are due. */
#define SWEEP_TICKS (SP_WHEEL_SLOTS / 4)

_Static_assert(SP_CROWD_CHUNK % 64 == 0, "a chunk is whole bitmap words");
_Static_assert((SP_WHEEL_SLOTS & (SP_WHEEL_SLOTS - 1)) == 0,
               "SP_WHEEL_SLOTS: a power of two");

int sp__wheel_new(SpCrowd *c) {
  c->awake_words = c->chunk_count * (SP_CROWD_CHUNK / 64) + 1;
  c->awake = sp__mem_alloc_lines(c->alloc, c->awake_words * sizeof(uint64_t));
  if (c->awake == NULL) return 0;
  memset(c->awake, 0, c->awake_words * sizeof(uint64_t));
  return 1;
}

void sp__wheel_free(SpCrowd *c) {
  size_t unused = 0;
  sp__list_free(c, &c->drain_list, &unused, &c->drain_cap);
  if (c->awake != NULL)
    sp__mem_free_lines(c->alloc, c->awake, c->awake_words * sizeof(uint64_t));
  c->awake = NULL;
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) {
    CrowdWorker *w = &c->cw[k];
    sp__list_free(c, &w->later, &w->later_count, &w->later_cap);
  }
  for (int k = 0; k < c->wheels; k++) {
    struct Wheel *wh = c->cw[k].wheel;
    if (wh == NULL) continue;
    if (wh->block != NULL)
      sp__mem_free(c->alloc, wh->block, wh->cap * sizeof(WheelBlock));
    sp__mem_free(c->alloc, wh, sizeof *wh);
    c->cw[k].wheel = NULL;
  }
  c->wheels = 0;
}

size_t sp__wheel_bytes(const SpCrowd *c) {
  size_t b = (c->awake_words + c->drain_cap / 2) * sizeof(uint64_t);
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++)
    b += c->cw[k].later_cap * sizeof(uint32_t);
  for (int k = 0; k < c->wheels; k++) {
    const struct Wheel *wh = c->cw[k].wheel;
    if (wh != NULL) /* the pool's pages in use */
      b += sizeof *wh +
           sp__mem_resident(wh->block, wh->cap * sizeof(WheelBlock));
  }
  return b;
}

static inline void sleep_bit(SpCrowd *c, size_t i) {
  c->awake[i / 64] &= ~(1ull << (i % 64));
}

/* The wheel tick agent i's wait ends in. */
static inline int64_t tick_of(const SpCrowd *c, size_t i) {
  return (c->epoch + (int64_t)sp_due_get(c, i)) >> SP_WHEEL_SHIFT;
}

/* The crowd clock in ticks. */
static int64_t clock_ticks(double clock) {
  return (int64_t)floor(clock * SP_TICKS_PER_S + 0.5);
}

/* Paths every step end passes by but rarely takes stay out of line, so
 * the common case needs no stack frame. */
#if defined(__GNUC__)
#define RARE static __attribute__((noinline))
#else
#define RARE static
#endif

/* Doubles a full list of agents (or places); 0 on memory. The lock is
 * the world's allocator lock when a worker grows it. */
int sp__list_grow(SpCrowd *c, uint32_t **e, size_t *cap, int locked) {
  size_t nc = *cap < 64 ? 64 : *cap * 2;
  if (locked) pthread_mutex_lock(&c->world->alloc_lock);
  void *p = sp__mem_realloc(c->alloc, *e, *cap * sizeof(uint32_t),
                            nc * sizeof(uint32_t));
  if (locked) pthread_mutex_unlock(&c->world->alloc_lock);
  if (p == NULL) return 0;
  *e = p;
  *cap = nc;
  return 1;
}

void sp__list_free(SpCrowd *c, uint32_t **e, size_t *count, size_t *cap) {
  if (*e != NULL) sp__mem_free(c->alloc, *e, *cap * sizeof(uint32_t));
  *e = NULL;
  *count = *cap = 0;
}

static void sleep_until_due(SpCrowd *c, int wk, size_t i);

/* A walker sleeps until its next cell unless it has something to do
 * before (walk.c). */
RARE void settle_walker(SpCrowd *c, int wk, size_t i) {
  if (sp__walk_sleeps(c, i))
    sleep_until_due(c, wk, i);
  else
    sp_agent_wake(c, i);
}

void sp__wheel_settle(SpCrowd *c, int wk, size_t i) {
  /* a long frame: the next frame wakes every agent anyway */
  if (c->sweeping) {
    sp_agent_wake(c, i);
    return;
  }
  uint8_t ph = c->agents[i].phase, fl = c->agents[i].flags;
  /* an agent left to choose at a later frame by the goal budget has
   * nothing due: the choose pass finds it by its chunk's mark */
  if (ph == SP_PHASE_THINKING && fl == F_NEED_GOAL) {
    sleep_bit(c, i);
    return;
  }
  /* an interruptible step is looked at every frame, walking or waiting */
  if (c->any_interruptible && ph != SP_PHASE_ACTING &&
      sp__agent_interruptible_now(c, i)) {
    sp_agent_wake(c, i);
    return;
  }
  if (sp_wheel_timed(c, ph)) {
    /* due already (a wait begun before this frame's advance): awake */
    if (sp_due_passed(c, i))
      sp_agent_wake(c, i);
    else
      sleep_until_due(c, wk, i);
    return;
  }
  if (ph == SP_PHASE_WALKING) {
    settle_walker(c, wk, i);
    return;
  }
  /* an engine move to an agent is checked every frame (F_BIND) */
  int answered = (fl & (F_FINISH | F_FAIL | F_BIND)) != 0;
  if (ph == SP_PHASE_IDLE || ph == SP_PHASE_FREE ||
      ((ph == SP_PHASE_SCRIPT || ph == SP_PHASE_MOVING) && !answered))
    sleep_bit(c, i); /* woken by the call that answers it, or a goal */
  else
    sp_agent_wake(c, i);
}

void sp__wheel_settle_early(SpCrowd *c, int wk, size_t i) {
  sp__wheel_settle(c, wk, i);
  if (!((c->awake[i / 64] >> (i % 64)) & 1u)) return;
  CrowdWorker *w = &c->cw[wk < 0 ? 0 : wk];
  if (w->later_count == w->later_cap &&
      !sp__list_grow(c, &w->later, &w->later_cap, wk >= 0))
    return; /* no memory: the advance pass visits it again */
  sleep_bit(c, i);
  w->later[w->later_count++] = (uint32_t)i;
}

void sp__wheel_wake_later(SpCrowd *c) {
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) {
    CrowdWorker *w = &c->cw[k];
    for (size_t j = 0; j < w->later_count; j++) sp_agent_wake(c, w->later[j]);
    w->later_count = 0;
  }
}

/* A block from the pool (its free list, else its unused tail, else a
 * larger pool); NO_BLOCK on memory. */
static uint32_t block_take(SpCrowd *c, struct Wheel *wh, int locked) {
  uint32_t b = wh->free_head;
  if (b != NO_BLOCK) {
    wh->free_head = wh->block[b].next;
    return b;
  }
  if (wh->used == wh->cap) {
    uint32_t nc = wh->cap < 64 ? 64 : wh->cap * 2;
    if (locked) pthread_mutex_lock(&c->world->alloc_lock);
    void *p = sp__mem_realloc(c->alloc, wh->block, wh->cap * sizeof(WheelBlock),
                              (size_t)nc * sizeof(WheelBlock));
    if (locked) pthread_mutex_unlock(&c->world->alloc_lock);
    if (p == NULL) return NO_BLOCK;
    wh->block = p;
    wh->cap = nc;
  }
  return wh->used++;
}

/* slot_add when the slot's first block is full or missing: a new first
 * block (one in BLOCK_ENTRIES adds). `locked`: a worker adds, under the
 * world's allocator lock should the pool grow. */
RARE int slot_add_block(SpCrowd *c, struct Wheel *wh, size_t s, uint32_t i,
                        int locked) {
  uint32_t b = block_take(c, wh, locked);
  if (b == NO_BLOCK) return 0;
  wh->block[b].next = wh->slot[s].head;
  wh->block[b].n = 1;
  wh->block[b].e[0] = i;
  wh->slot[s].head = b;
  return 1;
}

/* Agent i into slot s; 0 on memory. Every timer started comes here: the
 * common case needs no stack frame. */
static inline int slot_add(SpCrowd *c, struct Wheel *wh, size_t s, uint32_t i,
                           int locked) {
  uint32_t h = wh->slot[s].head;
  if (h == NO_BLOCK || wh->block[h].n == BLOCK_ENTRIES)
    return slot_add_block(c, wh, s, i, locked);
  WheelBlock *bl = &wh->block[h];
  bl->e[bl->n++] = i;
  return 1;
}

static void slots_clear(struct Wheel *wh) {
  for (size_t s = 0; s < SP_WHEEL_SLOTS; s++) wh->slot[s].head = NO_BLOCK;
  wh->used = 0;
  wh->free_head = NO_BLOCK;
  wh->pending = 0;
}

static void wheels_clear(SpCrowd *c) {
  for (int k = 0; k < c->wheels; k++)
    if (c->cw[k].wheel != NULL) slots_clear(c->cw[k].wheel);
}

/* Worker wk's wheel (the first one for the caller's serial passes),
 * made at its first timer; NULL on memory. */
RARE struct Wheel *wheel_make(SpCrowd *c, int wk) {
  int k = wk < 0 ? 0 : wk;
  if (wk >= 0) pthread_mutex_lock(&c->world->alloc_lock);
  struct Wheel *wh = sp__mem_alloc(c->alloc, sizeof *wh);
  if (wh != NULL && c->wheels <= k) c->wheels = k + 1;
  if (wk >= 0) pthread_mutex_unlock(&c->world->alloc_lock);
  if (wh == NULL) return NULL;
  memset(wh, 0, sizeof *wh);
  slots_clear(wh);
  c->cw[k].wheel = wh;
  return wh;
}

/* Files the timers a wheel holds pending into their slots (awake instead,
 * without memory); `locked`: a worker files. */
static void file_pending(SpCrowd *c, struct Wheel *wh, int locked) {
  for (uint32_t k = 0; k < wh->pending; k++)
    if (!slot_add(c, wh, wh->pend_slot[k], wh->pend_agent[k], locked))
      sp_agent_wake(c, wh->pend_agent[k]);
  wh->pending = 0;
}

/* Agent i sleeps in the slot of its due tick, in the wheel of the worker
 * that visited it, which reads its due time while it is at hand and
 * requests the slot's first block, filing FILE_BATCH timers at a time (a
 * slot's block is rarely in cache: filing one at a time waits for each);
 * without memory it stays awake and tries again next frame. Every step
 * end comes here. */
static inline void sleep_until_due(SpCrowd *c, int wk, size_t i) {
  struct Wheel *wh = c->cw[wk < 0 ? 0 : wk].wheel;
  if (wh == NULL && (wh = wheel_make(c, wk)) == NULL) {
    sp_agent_wake(c, i);
    return;
  }
  int64_t t = tick_of(c, i);
  if (t < c->wheel_tick) t = c->wheel_tick;
  size_t s = (size_t)(t & (SP_WHEEL_SLOTS - 1));
  uint32_t h = wh->slot[s].head;
  if (h != NO_BLOCK) sp_prefetch(&wh->block[h]);
  wh->pend_agent[wh->pending] = (uint32_t)i;
  wh->pend_slot[wh->pending] = (uint16_t)s;
  sleep_bit(c, i);
  if (++wh->pending == FILE_BATCH) file_pending(c, wh, wk >= 0);
}

/* The agents a slot holds are anywhere in the crowd: their phase and due
 * time are requested this many entries before they are read. */
#define DRAIN_AHEAD 32

/* The agent whose due time entry k of block b's chain holds (k may run
 * into the next block: DRAIN_AHEAD < BLOCK_ENTRIES), UINT32_MAX past the
 * chain's end. */
static uint32_t entry_at(const struct Wheel *wh, uint32_t b, uint32_t k) {
  const WheelBlock *bl = &wh->block[b];
  if (k < bl->n) return bl->e[k];
  if (bl->next != NO_BLOCK && k - bl->n < wh->block[bl->next].n)
    return wh->block[bl->next].e[k - bl->n];
  return UINT32_MAX;
}

/* Requests agent j's phase and due time (they share a line). In the
 * drain's own body: GCC takes a function that only prefetches for a pure
 * one and drops its calls. */
#define REQUEST_DUE(c, j)                                                      \
  do {                                                                         \
    uint32_t j_ = (j);                                                         \
    if (j_ < (c)->n) sp_prefetch(&(c)->agents[j_].time);                       \
  } while (0)

void sp__wheel_flush(SpCrowd *c) {
  for (int k = 0; k < c->wheels; k++)
    if (c->cw[k].wheel != NULL && c->cw[k].wheel->pending > 0)
      file_pending(c, c->cw[k].wheel, 0);
}

/* 1 when agent i's time slot holds a due tick the wheel keeps. */
static int has_due(const SpCrowd *c, size_t i) {
  return sp_wheel_timed(c, c->agents[i].phase) || sp_walk_timed(c, i);
}

/* Drains the slot of tick t: wakes its agents due now, keeps those due in
 * a later lap or later in this tick, drops the stale; its blocks go back
 * to the pool as they are read. Entries are requested DRAIN_AHEAD ahead
 * across the blocks' edges (a block's first entries too). Serial: a
 * parallel drain lists the entries first (drain_due). */
static void drain(SpCrowd *c, struct Wheel *wh, int64_t t) {
  size_t s = (size_t)(t & (SP_WHEEL_SLOTS - 1));
  uint32_t b = wh->slot[s].head;
  wh->slot[s].head = NO_BLOCK;
  for (uint32_t k = 0; b != NO_BLOCK && k < DRAIN_AHEAD; k++)
    REQUEST_DUE(c, entry_at(wh, b, k));
  while (b != NO_BLOCK) {
    /* by index: keeping an entry may grow (move) the pool */
    for (uint32_t k = 0; k < wh->block[b].n; k++) {
      REQUEST_DUE(c, entry_at(wh, b, k + DRAIN_AHEAD));
      uint32_t j = wh->block[b].e[k];
      if (j >= c->n || !has_due(c, j)) continue;
      if (sp_due_passed(c, j)) {
        sp_agent_wake(c, j);
        continue;
      }
      int64_t tj = tick_of(c, j);
      if ((tj < t || ((tj ^ t) & (SP_WHEEL_SLOTS - 1)) == 0) &&
          !slot_add(c, wh, s, j, 0))
        sp_agent_wake(c, j);
    }
    WheelBlock *bl = &wh->block[b];
    uint32_t next = bl->next;
    bl->next = wh->free_head; /* read whole: free for the entries kept */
    wh->free_head = b;
    b = next;
  }
}

void sp__wheel_wake_all(SpCrowd *c) {
  size_t words = (c->n + 63) / 64;
  if (words > 0) memset(c->awake, 0xFF, words * sizeof(uint64_t));
}

/* Moves the epoch when the clock is far past it (a sweep every nine
 * hours of the crowd's time); the waits' ticks do not change. */
static void rebase(SpCrowd *c, int64_t now) {
  if (now - c->epoch < (int64_t)EPOCH_SPAN) return;
  const uint32_t by = EPOCH_SPAN / 2;
  for (size_t i = 0; i < c->n; i++) {
    uint8_t ph = c->agents[i].phase;
    if (ph != SP_PHASE_ACTING && ph != SP_PHASE_BLOCKED && !sp_walk_timed(c, i))
      continue;
    if (c->agents[i].flags & F_FAIL) continue; /* the slot holds a detail */
    uint32_t d = sp_due_get(c, i);
    sp_due_put(c, i, d > by ? d - by : 0);
  }
  c->epoch += by;
}

static uint32_t rel(const SpCrowd *c, int64_t ticks) {
  int64_t r = ticks - c->epoch;
  return r <= 0 ? 0u : r >= (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* The entries of wheel wh's slots of ticks [from, to]. */
static size_t due_entries(const struct Wheel *wh, int64_t from, int64_t to) {
  size_t n = 0;
  for (int64_t t = from; t <= to; t++)
    for (uint32_t b = wh->slot[t & (SP_WHEEL_SLOTS - 1)].head; b != NO_BLOCK;
         b = wh->block[b].next)
      n += wh->block[b].n;
  return n;
}

/* Draining with the crowd's pool: the calling thread lists the due
 * slots' entries (DrainEntry: the agent, its wheel and tick), wheel by
 * wheel, and frees their blocks; the drainers then check them, claimed
 * in runs of at most DRAIN_RUN (sp_claims.h): drainer k starts on the
 * k-th share of the list, about the entries of wheel k, which worker k
 * filed from the chunks it runs, so an agent's lines stay with the core
 * that visits it next. A worker that wakes late (a sleeping thread may
 * take a few hundred microseconds in a virtual machine) takes the runs
 * left, so the caller never waits for a whole wheel, only for a run. An
 * entry to keep (due later) is marked in the list and filed again after
 * the job by the calling thread, into the wheel it came from. */
#define DRAIN_RUN  256
#define DRAIN_KEEP 0x80000000u /* in DrainEntry.where: file it again */
typedef struct DrainEntry {
  uint32_t agent;
  uint32_t where; /* wheel << 16 | tick - from */
} DrainEntry;
_Static_assert(SWEEP_TICKS <= 0xFFFF && SP_THREAD_POOL_MAX < 0x8000,
               "a DrainEntry's where: 16 bits of tick, 15 of wheel");

typedef struct DrainJob {
  SpCrowd *c;
  int64_t from, to;
  DrainEntry *e;
  size_t n;
  atomic_int listed; /* e[0..n) written */
  SpClaims claims;
} DrainJob;

/* The entries of the slots of ticks [from, to] of every wheel, their
 * blocks back to their pools and the slots empty. */
static void list_due(DrainJob *d) {
  SpCrowd *c = d->c;
  size_t n = 0;
  for (int k = 0; k < c->wheels; k++) {
    struct Wheel *wh = c->cw[k].wheel;
    if (wh == NULL) continue;
    for (int64_t t = d->from; t <= d->to; t++) {
      size_t s = (size_t)(t & (SP_WHEEL_SLOTS - 1));
      uint32_t where = (uint32_t)k << 16 | (uint32_t)(t - d->from);
      for (uint32_t b = wh->slot[s].head; b != NO_BLOCK;) {
        WheelBlock *bl = &wh->block[b];
        for (uint32_t q = 0; q < bl->n; q++)
          d->e[n++] = (DrainEntry){bl->e[q], where};
        uint32_t next = bl->next;
        bl->next = wh->free_head;
        wh->free_head = b;
        b = next;
      }
      wh->slot[s].head = NO_BLOCK;
    }
  }
  d->n = n;
}

/* Checks entries [lo, hi): wakes the agents due, marks those to keep
 * (due later in the tick drained, or in a later lap), drops the stale. */
static void check_entries(DrainJob *d, size_t lo, size_t hi) {
  SpCrowd *c = d->c;
  DrainEntry *e = d->e;
  for (size_t q = lo; q < hi && q < lo + DRAIN_AHEAD; q++)
    REQUEST_DUE(c, e[q].agent);
  for (size_t q = lo; q < hi; q++) {
    if (q + DRAIN_AHEAD < hi) REQUEST_DUE(c, e[q + DRAIN_AHEAD].agent);
    uint32_t j = e[q].agent;
    if (j >= c->n || !has_due(c, j)) continue;
    if (sp_due_passed(c, j)) { /* other drainers wake agents of its word */
      __atomic_fetch_or(&c->awake[j / 64], 1ull << (j % 64), __ATOMIC_RELAXED);
      continue;
    }
    int64_t t = d->from + (int64_t)(e[q].where & 0xFFFFu);
    int64_t tj = tick_of(c, j);
    if (tj < t || ((tj ^ t) & (SP_WHEEL_SLOTS - 1)) == 0)
      e[q].where |= DRAIN_KEEP;
  }
}

static void drain_job(void *arg, int worker) {
  DrainJob *d = arg;
  if (worker == 0) {
    list_due(d);
    atomic_store_explicit(&d->listed, 1, memory_order_release);
  } else {
    while (!atomic_load_explicit(&d->listed, memory_order_acquire)) {
    } /* the caller lists them in microseconds */
  }
  size_t lo, hi;
  while (sp__claims_next(&d->claims, worker, &lo, &hi))
    check_entries(d, lo, hi);
}

/* The entries marked to keep, into the slots they came from (awake
 * instead, without memory); serial, after the job. */
static void file_kept(DrainJob *d) {
  SpCrowd *c = d->c;
  for (size_t q = 0; q < d->n; q++) {
    uint32_t w = d->e[q].where;
    if (!(w & DRAIN_KEEP)) continue;
    struct Wheel *wh = c->cw[(w & ~DRAIN_KEEP) >> 16].wheel;
    int64_t t = d->from + (int64_t)(w & 0xFFFFu);
    if (!slot_add(c, wh, (size_t)(t & (SP_WHEEL_SLOTS - 1)), d->e[q].agent, 0))
      sp_agent_wake(c, d->e[q].agent);
  }
}

/* Entries a drainer takes at least: one costs a few random reads, a
 * fraction of a visit (the crowd's parallel_min is in visits). */
#define DRAIN_PER_WORKER 4

/* List words kept whatever a frame needs (64 KiB). */
#define DRAIN_LIST_KEEP 16384

/* Room for n entries in the crowd's drain list; 0 on memory. */
static int drain_room(SpCrowd *c, size_t n) {
  size_t words = 2 * n; /* a DrainEntry is two list words */
  while (c->drain_cap < words)
    if (!sp__list_grow(c, &c->drain_list, &c->drain_cap, 0)) return 0;
  return 1;
}

/* Drains the slots of ticks [from, to] of every worker's wheel: with the
 * crowd's pool, the entries shared among the drainers when many are
 * due; else each slot in turn on the calling thread. */
static void drain_due(SpCrowd *c, int64_t from, int64_t to) {
  int most = c->pool != NULL ? sp_thread_pool_size(c->pool) : 1;
  size_t n = 0; /* counted from the slots' blocks: only to share them out */
  for (int k = 0; k < c->wheels && most > 1; k++)
    if (c->cw[k].wheel != NULL) n += due_entries(c->cw[k].wheel, from, to);
  size_t per =
      DRAIN_PER_WORKER * (c->opt.parallel_min > 0 ? c->opt.parallel_min
                                                  : SP_CROWD_PLAN_PARALLEL_MIN);
  if (most > 1 && n / per >= 2 && drain_room(c, n)) {
    DrainJob d = {.c = c, .from = from, .to = to};
    d.e = (DrainEntry *)(void *)c->drain_list;
    atomic_init(&d.listed, 0);
    int workers = n / per >= (size_t)most ? most : (int)(n / per);
    sp__claims_init(&d.claims, n, workers, DRAIN_RUN); /* list_due lists n */
    sp__thread_pool_help(c->pool, workers, drain_job, &d);
    file_kept(&d);
    /* a burst of timers (a crowd spawned at once) leaves a large list:
     * kept at most 8 times this frame's size */
    if (c->drain_cap > 16 * n && c->drain_cap > DRAIN_LIST_KEEP) {
      size_t unused = 0;
      sp__list_free(c, &c->drain_list, &unused, &c->drain_cap);
    }
    return;
  }
  for (int k = 0; k < c->wheels; k++)
    if (c->cw[k].wheel != NULL)
      for (int64_t t = from; t <= to; t++) drain(c, c->cw[k].wheel, t);
}

void sp__wheel_frame(SpCrowd *c) {
  int64_t now = clock_ticks(c->clock);
  rebase(c, now);
  c->now_rel = rel(c, now);
  /* the choose and take passes count from the frame before */
  c->base_rel = rel(c, clock_ticks(c->clock - c->dt));
  int64_t cur = now >> SP_WHEEL_SHIFT;
  int was = c->sweeping;
  c->sweeping = cur - c->wheel_tick >= SWEEP_TICKS;
  if (c->sweeping || was) {
    /* most agents are due: visit them all, in order, not through slots
     * (and after a long frame, arm every timer again) */
    wheels_clear(c);
    sp__wheel_wake_all(c);
    c->wheel_tick = cur > 0 ? cur - 1 : 0;
    return;
  }
  drain_due(c, c->wheel_tick, cur);
  /* the last ticks again next frame: a due time rounded near a tick's
   * edge is found there */
  c->wheel_tick = cur > 0 ? cur - 1 : 0;
}

void sp__wheel_loaded(SpCrowd *c) {
  wheels_clear(c);
  /* the epoch some way back: a walker behind its due cells (waiting for
   * its field) keeps a due tick before the clock */
  c->epoch = clock_ticks(c->clock) - LOAD_SLACK;
  c->now_rel = c->base_rel = LOAD_SLACK;
  c->fields_seen = c->world->fields_dropped; /* all awake: all look */
  for (size_t i = 0; i < c->n; i++) {
    uint8_t ph = c->agents[i].phase;
    if (c->agents[i].flags & F_FAIL) continue; /* the slot holds a detail */
    if (ph == SP_PHASE_ACTING || ph == SP_PHASE_BLOCKED)
      sp_due_put(c, i, LOAD_SLACK + sp_ticks(c->agents[i].time));
    else if (sp_walk_timed(c, i))
      sp__walk_loaded(c, i); /* its progress (walk.c) */
  }
  int64_t cur = clock_ticks(c->clock) >> SP_WHEEL_SHIFT;
  c->wheel_tick = cur > 0 ? cur - 1 : 0;
  sp__wheel_wake_all(c);
}

size_t sp__wheel_awake_list(const SpCrowd *c, size_t lo, size_t hi,
                            uint32_t *out) {
  size_t n = 0;
  for (size_t wd = lo / 64; wd * 64 < hi; wd++) {
    uint64_t bits = c->awake[wd];
    while (bits != 0) {
      size_t i = wd * 64 + (size_t)__builtin_ctzll(bits);
      bits &= bits - 1;
      if (i >= hi) break;
      out[n++] = (uint32_t)i;
    }
  }
  return n;
}

/* An agent whose running step is interruptible is looked at every frame:
 * it never sleeps (sp__wheel_settle) and the goal pass asks whether a
 * higher goal takes over (step.c). */
int sp__agent_interruptible_now(const SpCrowd *c, size_t i) {
  const Agent *a = &c->agents[i];
  uint8_t ph = c->agents[i].phase;
  if (a->goal == GOAL_NONE ||
      !(ph == SP_PHASE_WALKING || ph == SP_PHASE_MOVING ||
        ph == SP_PHASE_BLOCKED || ph == SP_PHASE_ACTING))
    return 0;
  if (c->agents[i].flags & (F_FINISH | F_FAIL | F_NEED_GOAL)) return 0;
  int act;
  if (a->step != STEP_NONE)
    act = sp_population_plan_step(c->pop, i, a->step);
  else if (ph == SP_PHASE_BLOCKED && a->reason == SP_REASON_FULL)
    act = a->fail_action; /* waiting for room: its step starts when in */
  else
    return 0;
  return act >= 0 && act < c->action_count && c->beh[act].interruptible;
}
