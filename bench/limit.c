/* limit.c: the least work the hardware does for a crowd's timers (a minimal C timer wheel, records of 2 or 64 bytes, an 8-byte event per step end, a naive loop over every agent, wheels run by a team of threads, and a wheel that does the timed crowd's own work per step end in the plainest C), and a CPU clock finer than os.clock, as a Lua module `limit` the Lua benches load beside saspu. */
#if !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "lauxlib.h"
#include "lua.h"

/* Steps of 1-3 s at 60 frames a second unless told otherwise. */
#define STEP_MIN_FRAMES  60u
#define STEP_SPAN_FRAMES 121u

/* The 64-byte record: what a game keeps per timed agent (a state of a few
 * bytes, a plan, a step index, a due frame, a position, an id, its goal,
 * the steps it started, spare room). */
typedef struct Fat {
  uint8_t state[8];
  uint8_t plan[16];
  uint32_t due;
  uint16_t step;
  uint16_t plan_len;
  float pos[2];
  uint32_t id;
  uint32_t draws;
  uint8_t goal;
  uint8_t spare[15];
} Fat;

_Static_assert(sizeof(Fat) == 64, "the fat record is 64 bytes");

typedef struct Event {
  uint32_t agent;
  uint16_t kind;
  uint16_t step;
} Event;

/* The crowd's event record (saspu's SpAgentEvent: 16 bytes), written by
 * the wheel that does the crowd's work. */
typedef struct WorkEvent {
  uint32_t agent;
  uint8_t kind, reason, flags, goal;
  int16_t action;
  uint16_t gen;
  int32_t detail;
} WorkEvent;

_Static_assert(sizeof(WorkEvent) == 16, "the crowd's event is 16 bytes");

typedef struct Slot {
  uint32_t *ids;
  uint32_t count, cap;
} Slot;

/* A wheel of n agents, or (slots == NULL) the naive loop over timers. */
typedef struct Limit {
  uint32_t n;
  int fat;        /* 1: 64-byte records; 0: 2-byte records */
  uint16_t *thin; /* per agent: bits 0-7 the step, 8-15 the state */
  Fat *fats;
  float *timers; /* the naive loop: seconds left in each agent's step */
  Slot *slots;   /* mask + 1 slots: more than the longest step's frames */
  uint32_t mask;
  uint32_t min_frames, span_frames;
  Event *events;
  uint32_t event_count, event_cap;
  /* the wheel doing the crowd's work (work != 0): 16-byte events, and the
   * agents whose plan ended last frame, to choose a goal in this one */
  int work;
  WorkEvent *work_events;
  uint32_t *choosing;
  uint32_t choosing_count;
  uint32_t frame, frame_ends; /* the last frame, its step ends */
  uint64_t rng;
  uint64_t total_ends;
} Limit;

static const char *const LIMIT_MT = "limit.Wheel";

static uint32_t next_rand(Limit *l) {
  /* xorshift64*: cheap, and the same stream every run */
  l->rng ^= l->rng >> 12;
  l->rng ^= l->rng << 25;
  l->rng ^= l->rng >> 27;
  return (uint32_t)((l->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static void *grow(lua_State *L, void *p, size_t bytes) {
  void *q = realloc(p, bytes);
  if (!q) luaL_error(L, "limit: out of memory (%zu bytes)", bytes);
  return q;
}

/* The agents' records: read at random, so a large array gets 2 MiB pages
 * where the system gives them on request, as saspu's own per-agent arrays
 * do (csrc/domain/resident.c): without them each step end pays a page
 * walk besides its miss, and the wheel's cost swings with the host. */
#define HUGE_PAGE ((size_t)2 << 20)
static void *records(lua_State *L, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= 2 * HUGE_PAGE) {
    size_t whole = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, whole) != 0)
      luaL_error(L, "limit: out of memory (%zu bytes)", whole);
    (void)madvise(p, whole, MADV_HUGEPAGE);
    return p;
  }
#endif
  return grow(L, NULL, bytes);
}

/* Doubles a slot's list; 0 on memory. */
static int slot_grow(Slot *s) {
  uint32_t cap = s->cap ? s->cap * 2 : 64;
  uint32_t *ids = realloc(s->ids, (size_t)cap * sizeof *ids);
  if (ids == NULL) return 0;
  s->ids = ids, s->cap = cap;
  return 1;
}

static void slot_push(lua_State *L, Slot *s, uint32_t id) {
  if (s->count == s->cap && !slot_grow(s))
    luaL_error(L, "limit: out of memory");
  s->ids[s->count++] = id;
}

static void limit_free(Limit *l) {
  for (uint32_t k = 0; l->slots && k <= l->mask; k++) free(l->slots[k].ids);
  free(l->slots);
  free(l->thin);
  free(l->fats);
  free(l->timers);
  free(l->events);
  free(l->work_events);
  free(l->choosing);
  memset(l, 0, sizeof *l);
}

static int limit_gc(lua_State *L) {
  limit_free(luaL_checkudata(L, 1, LIMIT_MT));
  return 0;
}

/* The wheel doing the crowd's work: each agent's first plan has this many
 * steps unless told (the timed crowd's first window: a step's end starts
 * the next), and every later plan one step (the steady state: each end
 * ends a plan). */
#define WORK_FIRST_PLAN 4

enum { KIND_LOOP = 0, KIND_WHEEL, KIND_WORK };

/* limit.wheel(n, bytes, min, span): n agents with records of `bytes` (2 or
 * 64) in a wheel of frames, steps of min to min + span - 1 frames (default
 * 60 and 121: 1-3 s at 60 frames a second), the first ends spread alike.
 * limit.work(n, min, span, first): the same with 64-byte records, doing
 * the timed crowd's work (work_frame), a first plan of `first` steps (1 to
 * 16, default WORK_FIRST_PLAN). limit.loop(n): n agents whose timers a
 * loop visits every frame. */
static int limit_new(lua_State *L, int kind) {
  int wheel = kind != KIND_LOOP, at = kind == KIND_WORK ? 2 : 3;
  lua_Integer n = luaL_checkinteger(L, 1);
  lua_Integer bytes = kind == KIND_WHEEL ? luaL_optinteger(L, 2, 64)
                      : wheel            ? 64
                                         : 4;
  luaL_argcheck(L, n >= 0 && n <= (lua_Integer)UINT32_MAX / 2, 1,
                "agents out of range");
  luaL_argcheck(L, !wheel || bytes == 2 || bytes == 64, 2,
                "record of 2 or 64 bytes expected");
  lua_Integer lo = wheel ? luaL_optinteger(L, at, STEP_MIN_FRAMES) : 1;
  lua_Integer span = wheel ? luaL_optinteger(L, at + 1, STEP_SPAN_FRAMES) : 1;
  luaL_argcheck(L, lo >= 1 && lo <= (1 << 24), at, "frames out of range");
  luaL_argcheck(L, span >= 1 && span <= (1 << 24), at + 1,
                "frames out of range");
  lua_Integer first =
      kind == KIND_WORK ? luaL_optinteger(L, 4, WORK_FIRST_PLAN) : 1;
  luaL_argcheck(L, first >= 1 && first <= 16, 4, "steps out of range");
  Limit *l = lua_newuserdata(L, sizeof *l);
  memset(l, 0, sizeof *l);
  luaL_setmetatable(L, LIMIT_MT);
  l->n = (uint32_t)n;
  l->rng = 0x9E3779B97F4A7C15ULL;
  if (!wheel) {
    l->timers = grow(L, NULL, (size_t)n * sizeof *l->timers + 1);
    for (uint32_t i = 0; i < l->n; i++)
      l->timers[i] = 1.0f + 2.0f * (float)(next_rand(l) >> 8) / 16777216.0f;
    return 1;
  }
  l->fat = bytes == 64;
  l->work = kind == KIND_WORK;
  l->min_frames = (uint32_t)lo;
  l->span_frames = (uint32_t)span;
  uint32_t slots = 1;
  while (slots <= l->min_frames + l->span_frames) slots *= 2;
  l->mask = slots - 1;
  l->slots = grow(L, NULL, (size_t)slots * sizeof *l->slots);
  memset(l->slots, 0, (size_t)slots * sizeof *l->slots);
  if (l->fat) {
    l->fats = records(L, (size_t)n * sizeof *l->fats + 1);
    memset(l->fats, 0, (size_t)n * sizeof *l->fats);
  } else {
    l->thin = records(L, (size_t)n * sizeof *l->thin + 1);
    memset(l->thin, 0, (size_t)n * sizeof *l->thin);
  }
  if (l->work) /* at most every agent waits for a goal */
    l->choosing = grow(L, NULL, (size_t)n * sizeof *l->choosing + 1);
  for (uint32_t i = 0; i < l->n; i++) {
    uint32_t due = 1 + next_rand(l) % (l->min_frames + l->span_frames);
    if (l->fat) { /* a plan of work, stop, work...: one step but `first` */
      Fat *a = &l->fats[i];
      a->id = i;
      a->due = due;
      a->plan_len = (uint16_t)first;
      for (int k = 0; k < first; k++) a->plan[k] = (uint8_t)(1 + k % 2);
      a->goal = (uint8_t)(first % 2 == 0); /* what its last step leaves */
    }
    slot_push(L, &l->slots[due & l->mask], i);
  }
  return 1;
}

static int limit_wheel(lua_State *L) { return limit_new(L, KIND_WHEEL); }
static int limit_work(lua_State *L) { return limit_new(L, KIND_WORK); }
static int limit_loop(lua_State *L) { return limit_new(L, KIND_LOOP); }

/* The naive loop: every agent's timer every frame. */
static uint32_t loop_frame(Limit *l, float dt) {
  uint32_t ends = 0;
  for (uint32_t i = 0; i < l->n; i++) {
    float t = l->timers[i] - dt;
    if (t <= 0) {
      t += 1.0f + 2.0f * (float)(next_rand(l) >> 8) / 16777216.0f;
      ends++;
    }
    l->timers[i] = t;
  }
  return ends;
}

/* One frame of a wheel: every agent whose step ends now takes its next
 * step (its state flips, a new duration of 1-3 s puts it in a later slot)
 * and writes an 8-byte event. Returns the step ends; *oom is set when a
 * list could not grow (the wheel is then short of an agent). */
static uint32_t wheel_frame(Limit *l, int *oom) {
  uint32_t frame = ++l->frame;
  Slot *s = &l->slots[frame & l->mask];
  uint32_t count = s->count;
  if (count > l->event_cap) {
    uint32_t cap = count + count / 2;
    Event *e = realloc(l->events, (size_t)cap * sizeof *e);
    if (e == NULL) {
      *oom = 1;
      return 0;
    }
    l->events = e, l->event_cap = cap;
  }
  Event *ev = l->events;
  for (uint32_t k = 0; k < count; k++) {
    uint32_t i = s->ids[k];
    uint32_t due = frame + l->min_frames + next_rand(l) % l->span_frames;
    uint16_t step;
    if (l->fat) {
      Fat *a = &l->fats[i];
      a->state[0] ^= 1; /* the step's effect */
      a->plan[0] = (uint8_t)(1 + a->state[0]);
      a->step = (uint16_t)(a->step + 1);
      a->due = due;
      step = a->step;
    } else {
      uint16_t r = l->thin[i] ^ 0x100u;
      r = (uint16_t)((r & 0xFF00u) | ((r + 1u) & 0xFFu));
      l->thin[i] = r;
      step = r & 0xFFu;
    }
    ev[k].agent = i;
    ev[k].kind = 1;
    ev[k].step = step;
    Slot *to = &l->slots[due & l->mask];
    if (to->count == to->cap && !slot_grow(to))
      *oom = 1;
    else
      to->ids[to->count++] = i;
  }
  s->count = 0;
  l->event_count = count;
  l->frame_ends = count;
  l->total_ends += count;
  return count;
}

/* The crowd's events, as the timed crowd says them at a step's end. */
enum {
  EV_STEP_STARTED = 1,
  EV_STEP_FINISHED,
  EV_GOAL_REACHED,
  EV_GOAL_CHOSEN,
  EV_PLANNED
};

/* The two goals of the timed crowd, in order: 0 "working", 1 "not
 * working" (state[0] is the agent's one variable), and the one-step plan
 * from each state to each goal (action 1 sets working, action 2 clears
 * it; 0: the goal holds, no plan). */
static const uint8_t WORK_PLAN[2][2] = {{1, 0}, {0, 2}};

static void work_say(WorkEvent *e, uint32_t i, int kind, int goal, int act,
                     int32_t detail) {
  e->agent = i;
  e->kind = (uint8_t)kind;
  e->reason = 0;
  e->flags = 0;
  e->goal = (uint8_t)goal;
  e->action = (int16_t)act;
  e->gen = 0;
  e->detail = detail;
}

/* Agent i starts step a->step of its plan: a drawn duration files it in a
 * later slot. */
static void work_start(Limit *l, uint32_t i, Fat *a, uint32_t frame,
                       WorkEvent *e, int *oom) {
  a->draws++;
  a->due = frame + l->min_frames + next_rand(l) % l->span_frames;
  work_say(e, i, EV_STEP_STARTED, a->goal, a->plan[a->step], 0);
  Slot *to = &l->slots[a->due & l->mask];
  if (to->count == to->cap && !slot_grow(to))
    *oom = 1;
  else
    to->ids[to->count++] = i;
}

/* One frame of the wheel doing the timed crowd's work, in the crowd's
 * order: the agents whose plan ended last frame choose a goal (the first
 * that does not hold), look up its plan, take it and start its first
 * step (goal chosen, planned, step started); then every agent whose step
 * ends now applies the step's effect (step finished) and starts the next
 * step, or at its plan's end reaches the goal (goal reached) and waits to
 * choose in the next frame. Five 16-byte events a step end in the steady
 * state, two before. Returns the step ends. */
static uint32_t work_frame(Limit *l, int *oom) {
  uint32_t frame = ++l->frame;
  Slot *s = &l->slots[frame & l->mask];
  uint32_t chosen = l->choosing_count, count = s->count;
  uint64_t need = 3 * (uint64_t)chosen + 2 * (uint64_t)count;
  if (need > l->event_cap) {
    uint64_t cap = need + need / 2;
    WorkEvent *e = cap <= UINT32_MAX
                       ? realloc(l->work_events, (size_t)cap * sizeof *e)
                       : NULL;
    if (e == NULL) {
      *oom = 1;
      return 0;
    }
    l->work_events = e, l->event_cap = (uint32_t)cap;
  }
  WorkEvent *ev = l->work_events;
  uint32_t ne = 0;
  for (uint32_t k = 0; k < chosen; k++) {
    uint32_t i = l->choosing[k];
    Fat *a = &l->fats[i];
    int on = a->state[0] != 0, goal = on ? 1 : 0; /* the first not holding */
    a->goal = (uint8_t)goal;
    work_say(&ev[ne++], i, EV_GOAL_CHOSEN, goal, -1, 0);
    a->plan[0] = WORK_PLAN[goal][on];
    a->plan_len = 1;
    a->step = 0;
    work_say(&ev[ne++], i, EV_PLANNED, goal, -1, a->plan_len);
    work_start(l, i, a, frame, &ev[ne++], oom);
  }
  l->choosing_count = 0;
  for (uint32_t k = 0; k < count; k++) {
    uint32_t i = s->ids[k];
    Fat *a = &l->fats[i];
    int act = a->plan[a->step];
    a->state[0] = act == 1; /* the step's effect */
    work_say(&ev[ne++], i, EV_STEP_FINISHED, a->goal, act, 0);
    if (++a->step < a->plan_len) {
      work_start(l, i, a, frame, &ev[ne++], oom);
      continue;
    }
    work_say(&ev[ne++], i, EV_GOAL_REACHED, a->goal, -1, 0);
    l->choosing[l->choosing_count++] = i;
  }
  s->count = 0;
  l->event_count = ne;
  l->frame_ends = count;
  l->total_ends += count;
  return count;
}

/* One frame of a wheel of either kind. */
static uint32_t any_frame(Limit *l, int *oom) {
  return l->work ? work_frame(l, oom) : wheel_frame(l, oom);
}

/* w:frame([dt]): one frame (wheel_frame; the naive loop: every timer).
 * Returns the step ends of the frame. */
static int limit_frame(lua_State *L) {
  Limit *l = luaL_checkudata(L, 1, LIMIT_MT);
  if (l->timers) {
    uint32_t ends = loop_frame(l, (float)luaL_optnumber(L, 2, 1.0 / 60.0));
    l->total_ends += ends;
    lua_pushinteger(L, ends);
    return 1;
  }
  int oom = 0;
  uint32_t ends = any_frame(l, &oom);
  if (oom) return luaL_error(L, "limit: out of memory");
  lua_pushinteger(L, ends);
  return 1;
}

/* w:stats(): { ends = step ends so far, events = the last frame's events,
 * bytes = what the records, slots and events hold, record = bytes per
 * agent record }. */
static int limit_stats(lua_State *L) {
  Limit *l = luaL_checkudata(L, 1, LIMIT_MT);
  size_t bytes = 0;
  for (uint32_t k = 0; l->slots && k <= l->mask; k++)
    bytes += (size_t)l->slots[k].cap * sizeof(uint32_t);
  size_t record = l->timers ? sizeof *l->timers
                  : l->fat  ? sizeof(Fat)
                            : sizeof(uint16_t);
  bytes += (size_t)l->n * record +
           (size_t)l->event_cap * (l->work ? sizeof(WorkEvent) : sizeof(Event));
  if (l->work) bytes += (size_t)l->n * sizeof *l->choosing;
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)l->total_ends);
  lua_setfield(L, -2, "ends");
  lua_pushinteger(L, (lua_Integer)l->event_count);
  lua_setfield(L, -2, "events");
  lua_pushinteger(L, (lua_Integer)bytes);
  lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, (lua_Integer)record);
  lua_setfield(L, -2, "record");
  return 1;
}

/* A team of threads, each running one wheel's frame: what a game's job
 * system gives the same timers split among cores. Thread 0 is the
 * caller; the others sleep on a condition variable between frames (one
 * wake and one join a frame, as saspu's pool has for each pass). */
#define TEAM_MAX 64
struct Team;
typedef struct TeamThread {
  struct Team *t;
  int index;
} TeamThread;

typedef struct Team {
  int k, started;
  Limit *part[TEAM_MAX];
  int ref[TEAM_MAX]; /* the wheels, kept alive in the registry */
  pthread_t tid[TEAM_MAX];
  TeamThread arg[TEAM_MAX];
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned long gen;
  int pending, quit, oom;
} Team;

static const char *const TEAM_MT = "limit.Team";

static void *team_main(void *p) {
  TeamThread *self = p;
  Team *t = self->t;
  unsigned long seen = 0;
  pthread_mutex_lock(&t->mu);
  for (;;) {
    while (!t->quit && t->gen == seen) pthread_cond_wait(&t->go, &t->mu);
    if (t->quit) break;
    seen = t->gen;
    pthread_mutex_unlock(&t->mu);
    int oom = 0;
    (void)any_frame(t->part[self->index], &oom);
    pthread_mutex_lock(&t->mu);
    t->oom |= oom;
    if (--t->pending == 0) pthread_cond_signal(&t->done);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

static void team_stop(lua_State *L, Team *t) {
  if (t->started > 0) {
    pthread_mutex_lock(&t->mu);
    t->quit = 1;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->mu);
    for (int j = 1; j <= t->started; j++) pthread_join(t->tid[j], NULL);
    t->started = 0;
  }
  for (int j = 0; j < t->k; j++) {
    luaL_unref(L, LUA_REGISTRYINDEX, t->ref[j]);
    t->ref[j] = LUA_NOREF;
  }
  t->k = 0;
}

/* Its lock and conditions are made before the team gets its metatable,
 * so every team collected has them, stopped or not (a failed start). */
static int team_gc(lua_State *L) {
  Team *t = luaL_checkudata(L, 1, TEAM_MT);
  team_stop(L, t);
  pthread_cond_destroy(&t->done);
  pthread_cond_destroy(&t->go);
  pthread_mutex_destroy(&t->mu);
  return 0;
}

/* limit.team(w1, w2, ...): the wheels w1.. (each its own agents) run by
 * as many threads, one frame of each at a time. */
static int limit_team(lua_State *L) {
  int k = lua_gettop(L);
  luaL_argcheck(L, k >= 1 && k <= TEAM_MAX, 1, "1 to 64 wheels expected");
  for (int j = 1; j <= k; j++) {
    Limit *l = luaL_checkudata(L, j, LIMIT_MT);
    luaL_argcheck(L, l->slots != NULL, j, "a wheel expected (not a loop)");
    for (int i = 1; i < j; i++) /* two threads on one wheel would race */
      luaL_argcheck(L, lua_touserdata(L, i) != l, j, "a wheel listed twice");
  }
  Team *t = lua_newuserdata(L, sizeof *t);
  memset(t, 0, sizeof *t);
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->go, NULL);
  pthread_cond_init(&t->done, NULL);
  luaL_setmetatable(L, TEAM_MT);
  for (int j = 0; j < k; j++) {
    t->part[j] = lua_touserdata(L, j + 1);
    lua_pushvalue(L, j + 1);
    t->ref[j] = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  t->k = k;
  for (int j = 1; j < k; j++) {
    t->arg[j].t = t;
    t->arg[j].index = j;
    if (pthread_create(&t->tid[j], NULL, team_main, &t->arg[j]) != 0) {
      team_stop(L, t);
      return luaL_error(L, "limit: could not start thread %d", j);
    }
    t->started = j;
  }
  return 1;
}

/* team:frame(): one frame of every wheel, each on its thread. Returns the
 * step ends of the frame. */
static int team_frame(lua_State *L) {
  Team *t = luaL_checkudata(L, 1, TEAM_MT);
  luaL_argcheck(L, t->k > 0, 1, "a stopped team");
  pthread_mutex_lock(&t->mu);
  t->pending = t->k - 1;
  t->gen++;
  pthread_cond_broadcast(&t->go);
  pthread_mutex_unlock(&t->mu);
  int oom = 0;
  (void)any_frame(t->part[0], &oom);
  pthread_mutex_lock(&t->mu);
  while (t->pending > 0) pthread_cond_wait(&t->done, &t->mu);
  oom |= t->oom;
  pthread_mutex_unlock(&t->mu);
  if (oom) return luaL_error(L, "limit: out of memory");
  uint64_t ends = 0;
  for (int j = 0; j < t->k; j++) ends += t->part[j]->frame_ends;
  lua_pushinteger(L, (lua_Integer)ends);
  return 1;
}

/* team:stats(): { ends = step ends so far, all wheels }. */
static int team_stats(lua_State *L) {
  Team *t = luaL_checkudata(L, 1, TEAM_MT);
  uint64_t ends = 0;
  for (int j = 0; j < t->k; j++) ends += t->part[j]->total_ends;
  lua_createtable(L, 0, 1);
  lua_pushinteger(L, (lua_Integer)ends);
  lua_setfield(L, -2, "ends");
  return 1;
}

/* limit.cpu_clock() -> the process's CPU time in seconds, as os.clock
 * gives it but to the nanosecond: os.clock counts microseconds, and a
 * frame of the C wheels over 10,000 agents lasts one to three of them. */
static int limit_cpu_clock(lua_State *L) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return luaL_error(L, "limit.cpu_clock: no process CPU clock");
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

int luaopen_limit(lua_State *L);

int luaopen_limit(lua_State *L) {
  static const luaL_Reg methods[] = {{"frame", limit_frame},
                                     {"stats", limit_stats},
                                     {"__gc", limit_gc},
                                     {NULL, NULL}};
  static const luaL_Reg team_methods[] = {{"frame", team_frame},
                                          {"stats", team_stats},
                                          {"__gc", team_gc},
                                          {NULL, NULL}};
  static const luaL_Reg funcs[] = {
      {"wheel", limit_wheel},         {"work", limit_work},
      {"loop", limit_loop},           {"team", limit_team},
      {"cpu_clock", limit_cpu_clock}, {NULL, NULL}};
  if (luaL_newmetatable(L, LIMIT_MT)) {
    luaL_setfuncs(L, methods, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, TEAM_MT)) {
    luaL_setfuncs(L, team_methods, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  lua_newtable(L);
  luaL_setfuncs(L, funcs, 0);
  return 1;
}
