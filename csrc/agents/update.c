/* update.c: one frame of a crowd: goal choice (planning and taking plans as it goes), planning rounds, the parallel advance pass, then the serial binding pass (bind_pass.c): the passes, their workers and their parts of the frame's time; a pass's visit of each chunk is chunk_visit.c's, and their events are merged by merge.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sp_agents.h"
#include "sp_release.h"
#include "sp_wheel.h"
#include "sp_ahead.h"
#include "sp_due.h"
#include "sp_facts.h"
#include "sp_loop.h"
#include "sp_places.h"
#include "sp_space.h"
#include "sp_stats.h"
#include "sp_visit.h"
#include "sp_walk.h"
#include "sp_error.h"
#include "sp_population.h"
#include "sp_merge.h"
#include "sp_wake_ahead.h"
#include "sp_frame.h"

/* Workers write the agent records, population bytes and awake words of
 * their own chunks: chunks must not share a cache line (a chunk of 64
 * agents is whole lines of records, of bytes and of awake words). */
_Static_assert(SP_CROWD_CHUNK % 64 == 0, "SP_CROWD_CHUNK: a multiple of 64");

/* Places reserved by the binding pass from which their agents' rows are
 * written by the workers (PASS_COMMIT), not the calling thread alone. */
#define COMMIT_PARALLEL_MIN 1024

/* Whether the take pass starts a plan's first step as it takes the plan
 * (set after the choose pass). The advance pass would start it later in
 * the frame from the same state, as nothing it runs first can change
 * what the step does when no step binds a place or target (no binding
 * pass, no places held, no walks) and none is interrupted; the timers
 * then count from now, as the advance pass's do. A long frame (a sweep)
 * keeps the advance pass's order. The same events, the agent's own in
 * the same order; a frame's events of different agents may come in
 * another order. */
static int takes_start(const SpCrowd *c) {
  return !c->any_binding && !c->any_interruptible && !c->sweeping &&
         !c->take_starts_off;
}

static void start_in_take(SpCrowd *c) {
  c->start_in_take = takes_start(c);
  if (c->start_in_take) sp_due_base(c, c->now_rel);
}

/* A choose pass that plans inline plans and takes this many chunks with
 * work at a time: their agents' lines are still at hand, while the
 * choosing, the planning and the take each keep their own working set
 * (code, tables, the wheel) for a few chunks in a row. */
#define INLINE_GROUP 8

/* The first planning round of a group of chunks, inside a choose pass
 * (plan_in_choose), in chunk order: the agents the chunks marked are
 * planned (with the population's worker of the same index), then take
 * their plans, while their lines are still at hand (in a large crowd a
 * separate take pass found most of them gone from the caches). The
 * frame's events keep their order, every chunk's own before any take's:
 * on the calling thread alone its own events went to worker 0's buffer
 * and are put before the take's after the pass; on several workers each
 * chunk's take is a second run of its worker's buffer (merge.c). The
 * timers the take starts count from where they would in the take pass,
 * for this worker only. */
static void plan_and_take(SpCrowd *c, int worker, const uint32_t *group,
                          size_t count) {
  CrowdWorker *w = &c->cw[worker];
  double t0 = sp_frame_ms();
  for (size_t g = 0; g < count; g++) {
    size_t lo = group[g] * (size_t)SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
    if (hi > c->n) hi = c->n;
    for (size_t pc = lo / SP_POPULATION_CHUNK; pc * SP_POPULATION_CHUNK < hi;
         pc++)
      (void)sp__population_inline_chunk(c->pop, worker, pc);
  }
  double t1 = sp_frame_ms();
  uint32_t base = w->base_rel;
  if (c->start_in_take) w->base_rel = c->now_rel;
  Sink s = {c, c->serial_pass ? -1 : worker};
  for (size_t g = 0; g < count; g++) {
    ChunkRec *r = &c->chunks[group[g]];
    r->take_start = (uint32_t)w->ev_count;
    r->flagged = sp__chunk_take(c, s, group[g], 1);
    r->take_count = (uint32_t)(w->ev_count - r->take_start);
  }
  w->base_rel = base;
  w->inline_plan_ms += t1 - t0;
  w->inline_take_ms += sp_frame_ms() - t1;
}

/* The job of each worker: claim runs of chunks (sp_claims.h: its own
 * range first, so a chunk stays with the core that ran it in the pass
 * before); a chunk's events are a contiguous run of the worker's buffer,
 * recorded in the chunk table. For PASS_TAKE only chunks with agents
 * waiting for a plan are visited. */
static void pass_job(void *arg, int worker) {
  SpCrowd *c = arg;
  CrowdWorker *w = &c->cw[worker];
  /* a pass on the calling thread alone writes the frame's buffer itself:
   * its chunks run in order, so there is nothing to merge */
  Sink s = {c, c->serial_pass ? -1 : worker};
  /* planning inline: the chunks with agents to plan wait in a group; on
   * the calling thread alone the choose pass's own events go to worker
   * 0's buffer, first in the frame (merge.c) */
  int inline_plans = c->pass == PASS_CHOOSE && c->plan_in_choose;
  if (inline_plans) s.worker = worker;
  if (c->pass == PASS_CHOOSE) sp__wheel_drain_share(c); /* before any agent */
  uint32_t group[INLINE_GROUP];
  size_t grouped = 0;
  ChooseAhead ahead = {0, 0, 0};
  size_t t = 0, end = 0;
  for (;; t++) {
    if (t == end && !sp__claims_next(&c->claims, worker, &t, &end)) break;
    ChunkRec *r = &c->chunks[t];
    r->worker = (uint32_t)worker;
    r->start = (uint32_t)w->ev_count;
    r->take_count = 0;
    if (c->pass == PASS_ADVANCE) {
      r->hint_worker = (uint32_t)worker;
      r->hint_start = (uint32_t)w->hint_count;
      w->ahead.run_end = end; /* its look-ahead may read on to there */
    }
    if ((c->pass == PASS_TAKE && r->flagged == 0) ||
        (c->pass == PASS_COMMIT && r->taken == 0)) {
      r->count = 0;
      continue;
    }
    int requested =
        c->pass == PASS_CHOOSE && sp__choose_ahead(c, &ahead, t, end);
    uint32_t flagged = sp__chunk_visit(c, s, t, requested);
    if (c->pass != PASS_COMMIT) r->flagged = flagged;
    r->count = (uint32_t)(w->ev_count - r->start);
    if (c->pass == PASS_ADVANCE)
      r->hint_count = (uint32_t)(w->hint_count - r->hint_start);
    if (inline_plans && flagged > 0) {
      group[grouped++] = (uint32_t)t;
      if (grouped == INLINE_GROUP)
        plan_and_take(c, worker, group, grouped), grouped = 0;
    }
  }
  if (grouped > 0) plan_and_take(c, worker, group, grouped);
}

/* Chunks the pass will visit: every chunk, or for PASS_TAKE those with
 * agents waiting for a plan. */
static size_t pass_chunks(const SpCrowd *c, int pass) {
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  if (pass != PASS_TAKE && pass != PASS_COMMIT) return chunks;
  size_t busy = 0;
  for (size_t t = 0; t < chunks; t++)
    busy += (pass == PASS_TAKE ? c->chunks[t].flagged : c->chunks[t].taken) > 0;
  return busy;
}

/* The agents a pass will visit in a crowd, counted until `enough`: those
 * awake for the advance pass (every agent in a long frame), those marked
 * to choose (a whole chunk where no mark was counted: a new or loaded
 * crowd), those waiting for a plan or a place's answer. Cheap next to
 * the pass: a bit per agent read at most, once. */
static size_t pass_load(const SpCrowd *c, int pass, size_t enough) {
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK, load = 0;
  if (pass == PASS_ADVANCE) {
    if (c->sweeping) return c->n;
    size_t words = (c->n + 63) / 64;
    for (size_t w = 0; w < words && load < enough; w++)
      load += (size_t)__builtin_popcountll(c->awake[w] | c->due_marks[w]);
    return load;
  }
  for (size_t t = 0; t < chunks && load < enough; t++) {
    const ChunkRec *r = &c->chunks[t];
    switch (pass) {
    case PASS_CHOOSE:
      if (r->choosing || r->allow > 0)
        load += r->list_ok ? r->listed : r->marked ? r->marked : SP_CROWD_CHUNK;
      break;
    case PASS_TAKE: load += r->flagged; break;
    default: load += r->taken; break;
    }
  }
  return load;
}

/* Agents a worker should have at least before a pass or a planning round
 * is shared with it: waking a thread costs about as much as visiting
 * that many agents. */
static size_t parallel_min(const SpCrowd *c) {
  return c->opt.parallel_min > 0 ? c->opt.parallel_min
                                 : SP_CROWD_PLAN_PARALLEL_MIN;
}

/* The workers to share `load` agents among: one per parallel_min agents,
 * at most `most`; 1 runs the work on the calling thread. */
static int workers_for(size_t load, size_t per_worker, int most) {
  size_t w = load / per_worker;
  return w < 2 ? 1 : w >= (size_t)most ? most : (int)w;
}

/* Several crowds' share of one pass: each worker runs the pass over the
 * crowds in order, claiming chunks of one until none is left. */
typedef struct Batch {
  SpCrowd *const *crowds;
  size_t count;
} Batch;

static void batch_job(void *arg, int worker) {
  const Batch *b = arg;
  for (size_t k = 0; k < b->count; k++) {
    SpCrowd *c = b->crowds[k];
    if (c->in_pass && worker < c->workers) pass_job(c, worker);
  }
}

/* Before a choose pass on `workers` workers: whether it plans and takes
 * as it goes (the population ready to plan on as many, their caches with
 * room for every agent the pass may mark; on several, the population's
 * chunks within the crowd's, so each worker plans its own). Without
 * memory for that, the rounds plan as usual. */
static void prepare_plan_in_choose(SpCrowd *c, int workers) {
  c->plan_in_choose = 0;
  if (c->plans_inline_off ||
      (workers > 1 && SP_CROWD_CHUNK % SP_POPULATION_CHUNK != 0))
    return;
  size_t more = pass_load(c, PASS_CHOOSE, SIZE_MAX);
  SpError err;
  if (more == 0 ||
      sp__population_inline_begin(c->pop, workers, more, &err) != SP_OK)
    return;
  c->plan_in_choose = 1;
  c->inline_workers = workers;
  c->start_in_take = takes_start(c);
  for (int k = 0; k < workers; k++)
    c->cw[k].inline_plan_ms = c->cw[k].inline_take_ms = 0.0;
}

/* Runs a pass over the crowds (all on `pool`, or NULL) with in_pass set,
 * in one parallel job: one wake and join for all of them, with as many
 * workers as the agents to visit keep busy (parallel_min each), none when
 * they are few or a single chunk has work (the order of events never
 * depends on who runs a chunk). Returns the threads it woke. */
static int run_batch(SpCrowd *const *crowds, size_t count, SpThreadPool *pool,
                     int pass) {
  size_t work = 0, load = 0, per_worker = 0;
  int most = 1;
  for (size_t k = 0; k < count; k++) {
    SpCrowd *c = crowds[k];
    if (!c->in_pass) continue;
    c->pass = pass;
    work += pass_chunks(c, pass);
    if (c->workers > most) most = c->workers;
    if (per_worker == 0 || parallel_min(c) < per_worker)
      per_worker = parallel_min(c);
  }
  int workers = 1;
  if (pool != NULL && most > 1 && work > 1) {
    size_t enough = per_worker * (size_t)most;
    for (size_t k = 0; k < count && load < enough; k++)
      if (crowds[k]->in_pass) load += pass_load(crowds[k], pass, enough - load);
    workers = workers_for(load, per_worker, most);
    if ((size_t)workers > work) workers = (int)work;
  }
  Batch b = {crowds, count};
  int parallel = workers > 1;
  for (size_t k = 0; k < count; k++) {
    SpCrowd *c = crowds[k];
    size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
    int w = workers < c->workers ? workers : c->workers;
    c->serial_pass = !parallel;
    if (pass == PASS_CHOOSE && c->in_pass)
      prepare_plan_in_choose(c, parallel ? w : 1);
    c->ev_mark = c->ev_count;
    if (parallel)
      sp__claims_init(&c->claims, chunks, w, sp__claims_run(chunks, w));
    else /* in order */
      sp__claims_init(&c->claims, chunks, 1, chunks);
  }
  if (parallel)
    sp__thread_pool_help(pool, workers, batch_job, &b);
  else
    batch_job(&b, 0);
  for (size_t k = 0; k < count; k++) {
    SpCrowd *c = crowds[k];
    if (!c->in_pass) continue;
    if (parallel) /* with the takes planned inline after every chunk's own */
      sp__merge_pass(c, pool, workers < c->workers ? workers : c->workers);
    if (c->plan_in_choose) {
      if (!parallel) sp__merge_ahead(c, c->ev_mark); /* its own, first */
      sp__population_inline_end(c->pop, c->inline_workers);
      /* as the update's parts: the time of the worker that planned and
       * took longest (the pass waited for it) */
      const CrowdWorker *longest = &c->cw[0];
      for (int j = 1; j < c->inline_workers; j++)
        if (c->cw[j].inline_plan_ms + c->cw[j].inline_take_ms >
            longest->inline_plan_ms + longest->inline_take_ms)
          longest = &c->cw[j];
      c->ms_planning += longest->inline_plan_ms;
      c->ms_taking_inline = longest->inline_take_ms;
      c->plan_in_choose = 0;
      c->first_round_done = 1;
    }
    sp__count_serial(c);
    c->serial_pass = 0;
    sp__chunk_count_marked(c);
    sp__wheel_flush(c);   /* the timers its workers started */
    sp__release_flush(c); /* the places its workers gave up */
  }
  return workers - 1;
}

static size_t flagged_total(const SpCrowd *c) {
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK, sum = 0;
  for (size_t t = 0; t < chunks; t++) sum += c->chunks[t].flagged;
  return sum;
}

/* Plans the agents waiting for a plan; few are planned on the calling
 * thread (waking the workers would cost more than the plans). Adds the
 * threads it wakes to *woken. */
static SpStatus plan_waiting(SpCrowd *c, size_t waiting, uint64_t *woken,
                             SpError *err) {
  double tp = sp_frame_ms();
  SpPlanOptions po = {c->workers, 0, 0, c->pool};
  if (c->pool == NULL) po.threads = 1;
  po.threads = workers_for(waiting, parallel_min(c), po.threads);
  *woken += (uint64_t)(po.threads - 1);
  SpStatus st = sp_population_plan(c->pop, &po, NULL, err);
  c->ms_planning += sp_frame_ms() - tp;
  return st;
}

SpStatus sp_world_warm_planners(SpWorld *w, SpError *err) {
  sp__error_clear(err);
  for (SpCrowd *c = w->crowds; c != NULL; c = c->next_in_world) {
    SpPlanOptions po = {c->pool != NULL ? c->workers : 1, 0, 0, c->pool};
    SpStatus st = sp_population_warm(c->pop, &po, err);
    if (st != SP_OK) return st;
  }
  return SP_OK;
}

/* The parts of an update's time (SpCrowdStats), in ms. */
typedef struct FrameParts {
  double waking, choosing, taking, advancing;
} FrameParts;

/* The ms since *t, which becomes now. */
static double lap(double *t) {
  double now = sp_frame_ms(), ms = now - *t;
  *t = now;
  return ms;
}

/* Sets up a crowd's frame. */
static void frame_begin(SpCrowd *c, float dt) {
  atomic_store(&c->lost, 0);
  c->visited = 0;
  c->workers_woken = 0;
  c->ev_count = 0;
  c->dt = dt;
  c->clock += dt;
  c->ms_planning = 0.0;
  c->first_round_done = 0;
  c->ms_taking_inline = 0.0;
  memset(c->kinds, 0, sizeof c->kinds); /* only this update's events */
  for (int k = 0; k < c->workers; k++)
    c->cw[k].hint_count = c->cw[k].visited = 0;
  if (c->reannounce) { /* a load: the game hears of its moves again */
    c->reannounce = 0;
    sp__agent_announce_all(c);
    sp__count_serial(c);
  }
  sp__wheel_wake_later(c); /* left by an update that stopped early */
  /* with workers, the choose pass drains the wheels as it starts: the
   * workers wake meanwhile, and share it */
  c->drain_in_pass = c->workers > 1 && c->pool != NULL;
  sp__wheel_frame(c); /* wakes the agents whose wait ends */
  sp__ahead_reset(c);
  sp__world_check_grid(c->world);
  sp__walk_check_fields(c); /* and the walkers whose field went */
}

/* Events lost this frame (memory), added to the crowd's total. */
static size_t frame_lost(SpCrowd *c) {
  size_t lost = atomic_load(&c->lost);
  c->events_lost += lost;
  return lost;
}

static SpStatus lost_error(size_t lost, SpError *err) {
  return sp__error_set(err, SP_ERR_MEMORY, SP_E_MEMORY, SP_FIELD_NONE,
                       "crowd: out of memory for events: %zu of this "
                       "frame's events were lost (the agents moved on)",
                       lost);
}

SpStatus sp_crowd_update(SpCrowd *c, float dt, SpError *err) {
  return sp_crowds_update(&c, 1, dt, err);
}

/* Checks a list of crowds for sp_crowds_update. */
static SpStatus check_crowds(SpCrowd *const *crowds, size_t count,
                             SpError *err) {
  for (size_t k = 0; k < count; k++) {
    if (crowds[k]->pool != crowds[0]->pool)
      return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                           "crowds: crowd %zu does not run on the first "
                           "crowd's thread pool",
                           k + 1);
    for (size_t j = 0; j < k; j++)
      if (crowds[j] == crowds[k])
        return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                             "crowds: crowd %zu is listed twice (also %zu)",
                             k + 1, j + 1);
  }
  return SP_OK;
}

SpStatus sp_crowds_update(SpCrowd *const *crowds, size_t count, float dt,
                          SpError *err) {
  sp__error_clear(err);
  if (!(dt >= 0.0f) || isinf(dt)) /* the clock must stay a saved number */
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "dt must be a finite number of seconds, 0 or more "
                         "(got %g)",
                         (double)dt);
  if (count == 0) return SP_OK;
  double t0 = sp_frame_ms();
  SpThreadPool *pool = crowds[0]->pool;
  uint64_t late0 = pool != NULL ? sp__thread_pool_late_ns(pool) : 0;
  SpStatus st = check_crowds(crowds, count, err);
  if (st != SP_OK) return st;
  for (size_t k = 0; k < count; k++)
    if (crowds[k]->clock + (double)dt > SP_CROWD_CLOCK_MAX) {
      char which[48] = "the crowd's";
      if (count > 1) snprintf(which, sizeof which, "crowd %zu's", k + 1);
      return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                           "dt %g takes %s clock (%.17g s) past %.0f s, the "
                           "latest it may read",
                           (double)dt, which, crowds[k]->clock,
                           SP_CROWD_CLOCK_MAX);
    }
  /* the buffers keep the size of the last frames, not one event per
   * agent: a frame needing more than twice the last one grows them */
  for (size_t k = 0; k < count; k++) sp__crowd_trim_events(crowds[k]);
  for (size_t k = 0; k < count; k++) /* the crowds sensed, indexed */
    if (crowds[k]->sensor_count > 0 &&
        (st = sp__sensors_ready(crowds[k], err)) != SP_OK)
      return st;
  for (size_t k = 0; k < count; k++) {
    if (crowds[k]->tie_count > 0)
      sp__facts_apply(crowds[k], sp__agent_changed); /* world facts */
    if (crowds[k]->sensor_count > 0)
      sp__sensors_read(crowds[k], sp__agent_changed);
  }
  for (size_t k = 0; k < count; k++) {
    frame_begin(crowds[k], dt);
    crowds[k]->in_pass = 1;
    sp__queue_next_update(crowds[k]->world);
  }
  FrameParts parts = {0};
  double t = sp_frame_ms();
  parts.waking = t - t0;

  /* goals, then planning rounds: each round plans every agent waiting
   * for a plan; agents whose goal has none move to the next goal. A
   * choose pass on the calling thread alone runs the first round itself,
   * a few chunks at a time (plan_and_take) */
  for (size_t k = 0; k < count; k++) sp__chunk_share_budget(crowds[k]);
  uint64_t woken = (uint64_t)run_batch(crowds, count, pool, PASS_CHOOSE);
  for (size_t k = 0; k < count; k++) start_in_take(crowds[k]);
  parts.choosing = lap(&t);
  /* a first round planned inline: its times are parts of the lap */
  for (size_t k = 0; k < count; k++) {
    parts.choosing -= crowds[k]->ms_planning + crowds[k]->ms_taking_inline;
    parts.taking += crowds[k]->ms_taking_inline;
  }
  if (parts.choosing < 0.0) parts.choosing = 0.0;
  for (int round = 0;; round++) {
    int any = 0;
    for (size_t k = 0; k < count; k++) {
      SpCrowd *c = crowds[k];
      int rounds = round + c->first_round_done;
      size_t waiting = rounds <= c->goal_count ? flagged_total(c) : 0;
      c->in_pass = waiting > 0;
      if (waiting == 0) continue;
      any = 1;
      st = plan_waiting(c, waiting, &woken, err);
      if (st != SP_OK) return st; /* setting up workers: nothing changed */
    }
    (void)lap(&t); /* planning: each crowd's ms_planning */
    if (!any) break;
    woken += (uint64_t)run_batch(crowds, count, pool, PASS_TAKE);
    parts.taking += lap(&t);
  }

  for (size_t k = 0; k < count; k++) {
    crowds[k]->in_pass = 1;
    sp_due_base(crowds[k], crowds[k]->now_rel); /* timers of now on */
  }
  woken += (uint64_t)run_batch(crowds, count, pool, PASS_ADVANCE);
  for (size_t k = 0; k < count; k++) sp__wheel_wake_later(crowds[k]);
  parts.advancing = lap(&t);
  for (size_t k = 0; k < count; k++)
    for (int j = 0; j < crowds[k]->workers || j == 0; j++)
      crowds[k]->visited += crowds[k]->cw[j].visited;
  size_t lost = 0, taken = 0;
  for (size_t k = 0; k < count; k++) {
    size_t n = sp__bind_pass(crowds[k]);
    crowds[k]->in_pass = n > 0;
    taken += n;
  }
  /* a few agents' rows are written sooner than the workers wake */
  if (taken > 0)
    woken += (uint64_t)run_batch(
        crowds, count, taken >= COMMIT_PARALLEL_MIN ? pool : NULL, PASS_COMMIT);
  for (size_t k = 0; k < count; k++) {
    crowds[k]->in_pass = 1;
    lost += frame_lost(crowds[k]);
  }
  double ms = sp_frame_ms() - t0;
  double late = pool != NULL
                    ? (double)(sp__thread_pool_late_ns(pool) - late0) / 1e6
                    : 0.0;
  for (size_t k = 0; k < count; k++) { /* the call's, as its time */
    crowds[k]->ms_workers_late = late;
    crowds[k]->ms_update = ms;
    crowds[k]->workers_woken = woken;
    crowds[k]->ms_waking = parts.waking;
    crowds[k]->ms_choosing = parts.choosing;
    crowds[k]->ms_taking = parts.taking;
    crowds[k]->ms_advancing = parts.advancing;
  }
  return lost > 0 ? lost_error(lost, err) : SP_OK;
}

size_t sp_crowd_event_count(const SpCrowd *c) { return c->ev_count; }
const SpAgentEvent *sp_crowd_events(const SpCrowd *c) { return c->ev; }
