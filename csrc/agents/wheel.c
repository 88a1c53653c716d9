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

/* A due mark set while other workers drain other wheels (their agents
 * may share a word). */
static inline void mark_shared(uint64_t *word, uint64_t bit) {
  __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
}
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
  size_t bytes = c->awake_words * sizeof(uint64_t);
  c->awake = sp__mem_alloc_lines(c->alloc, bytes);
  c->due_marks = sp__mem_alloc_lines(c->alloc, bytes);
  if (c->awake == NULL || c->due_marks == NULL) return 0;
  memset(c->awake, 0, bytes);
  memset(c->due_marks, 0, bytes);
  return 1;
}

void sp__wheel_free(SpCrowd *c) {
  size_t bytes = c->awake_words * sizeof(uint64_t);
  if (c->awake != NULL) sp__mem_free_lines(c->alloc, c->awake, bytes);
  if (c->due_marks != NULL) sp__mem_free_lines(c->alloc, c->due_marks, bytes);
  c->awake = c->due_marks = NULL;
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
  size_t b = 2 * c->awake_words * sizeof(uint64_t); /* awake, due marks */
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

/* Agent i's due mark, left by this frame's drain. */
static inline void unmark_due(SpCrowd *c, size_t i) {
  c->due_marks[i / 64] &= ~(1ull << (i % 64));
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
  /* what the agent does now decides: an entry of its that came due this
   * frame was for what it did before (the advance pass reads no mark) */
  unmark_due(c, i);
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

/* The end of an early settle: an agent left awake sleeps until
 * sp__wheel_wake_later. */
static inline void keep_for_later(SpCrowd *c, int wk, size_t i) {
  if (!((c->awake[i / 64] >> (i % 64)) & 1u)) return;
  CrowdWorker *w = &c->cw[wk < 0 ? 0 : wk];
  if (w->later_count == w->later_cap &&
      !sp__list_grow(c, &w->later, &w->later_cap, wk >= 0))
    return; /* no memory: the advance pass visits it again */
  sleep_bit(c, i);
  w->later[w->later_count++] = (uint32_t)i;
}

void sp__wheel_settle_early(SpCrowd *c, int wk, size_t i) {
  sp__wheel_settle(c, wk, i);
  keep_for_later(c, wk, i);
}

void sp__wheel_settle_started(SpCrowd *c, int wk, size_t i) {
  unmark_due(c, i);
  sleep_until_due(c, wk, i);
  keep_for_later(c, wk, i); /* awake only without memory for its timer */
}

void sp__wheel_wake_later(SpCrowd *c) {
  for (int k = 0; k < c->workers; k++) {
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

/* Every wheel empty, and no due mark left. */
static void wheels_clear(SpCrowd *c) {
  for (int k = 0; k < c->wheels; k++)
    if (c->cw[k].wheel != NULL) slots_clear(c->cw[k].wheel);
  memset(c->due_marks, 0, c->awake_words * sizeof(uint64_t));
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

void sp__wheel_flush(SpCrowd *c) {
  for (int k = 0; k < c->wheels; k++)
    if (c->cw[k].wheel != NULL && c->cw[k].wheel->pending > 0)
      file_pending(c, c->cw[k].wheel, 0);
}

/* 1 when agent i's time slot holds a due tick the wheel keeps. */
static int has_due(const SpCrowd *c, size_t i) {
  return sp_wheel_timed(c, c->agents[i].phase) || sp_walk_timed(c, i);
}

/* Drains the slot of tick t: marks its agents (due_marks) and gives its
 * blocks back to the pool. It reads no agent's record: the advance pass,
 * which reads it for its visit anyway, wakes those due now, files again
 * those due later in the tick or in a later lap, and drops an entry the
 * agent's timer no longer stands for (sp_wheel_due_visit). A frame's
 * first read of each due record so falls in a pass the workers share,
 * with the look-ahead of its visit. */
static void drain(SpCrowd *c, struct Wheel *wh, int64_t t, int shared) {
  size_t s = (size_t)(t & (SP_WHEEL_SLOTS - 1));
  uint32_t b = wh->slot[s].head;
  wh->slot[s].head = NO_BLOCK;
  while (b != NO_BLOCK) {
    WheelBlock *bl = &wh->block[b];
    for (uint32_t k = 0; k < bl->n; k++) {
      uint32_t j = bl->e[k];
      if (j >= c->n) continue;
      if (shared) /* another worker may drain an agent of the same word */
        mark_shared(&c->due_marks[j / 64], 1ull << (j % 64));
      else
        c->due_marks[j / 64] |= 1ull << (j % 64);
    }
    uint32_t next = bl->next;
    bl->next = wh->free_head; /* read whole: free */
    wh->free_head = b;
    b = next;
  }
}

void sp__wheel_unmark_chunk(SpCrowd *c, size_t lo, size_t hi) {
  for (size_t wd = lo / 64; wd * 64 < hi; wd++) c->due_marks[wd] = 0;
}

int sp__wheel_due_later(SpCrowd *c, int wk, size_t i) {
  if (has_due(c, i)) /* not due yet: later in the tick drained, or a lap on */
    sleep_until_due(c, wk, i);
  return 0; /* else its timer went: a stale entry */
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

/* Drains the slots of ticks [from, to] of every worker's wheel. */
static void drain_due(SpCrowd *c, int64_t from, int64_t to) {
  for (int k = 0; k < c->wheels; k++)
    if (c->cw[k].wheel != NULL)
      for (int64_t t = from; t <= to; t++) drain(c, c->cw[k].wheel, t, 0);
}

void sp__wheel_drain_share(SpCrowd *c) {
  int n = c->drain_wheels;
  for (int k; (k = atomic_fetch_add_explicit(&c->drain_next, 1,
                                             memory_order_relaxed)) < n;) {
    if (c->cw[k].wheel != NULL)
      for (int64_t t = c->drain_from; t <= c->drain_to; t++)
        drain(c, c->cw[k].wheel, t, 1);
    atomic_fetch_add_explicit(&c->drain_done, 1, memory_order_release);
  }
  for (unsigned turn = 0;
       atomic_load_explicit(&c->drain_done, memory_order_acquire) < n; turn++)
    sp_spin_turn(turn);
}

void sp__wheel_frame(SpCrowd *c) {
  c->drain_wheels = 0; /* none to share unless set below */
  atomic_store_explicit(&c->drain_next, 0, memory_order_relaxed);
  atomic_store_explicit(&c->drain_done, 0, memory_order_relaxed);
  int64_t now = clock_ticks(c->clock);
  rebase(c, now);
  c->now_rel = rel(c, now);
  /* the choose and take passes count from the frame before */
  sp_due_base(c, rel(c, clock_ticks(c->clock - c->dt)));
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
  if (c->drain_in_pass) { /* the choose pass's workers drain (update.c) */
    c->drain_from = c->wheel_tick, c->drain_to = cur;
    c->drain_wheels = c->wheels;
  } else {
    drain_due(c, c->wheel_tick, cur);
  }
  /* the last ticks again next frame: a due time rounded near a tick's
   * edge is found there */
  c->wheel_tick = cur > 0 ? cur - 1 : 0;
}

void sp__wheel_loaded(SpCrowd *c) {
  wheels_clear(c);
  /* the epoch some way back: a walker behind its due cells (waiting for
   * its field) keeps a due tick before the clock */
  c->epoch = clock_ticks(c->clock) - LOAD_SLACK;
  c->now_rel = LOAD_SLACK;
  sp_due_base(c, LOAD_SLACK);
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
    uint64_t bits = c->awake[wd] | c->due_marks[wd];
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
