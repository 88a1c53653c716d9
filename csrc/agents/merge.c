/* merge.c: a parallel pass's events merged into the frame's buffer in chunk order, and the crowd's event counters. */
#include <string.h>

#include "sp_agents.h"
#include "sp_merge.h"
#include "sp_step.h"

/* Counts events by kind (those a lack of memory lost). */
static void tally(uint64_t *kinds, const SpAgentEvent *e, size_t n) {
  for (size_t k = 0; k < n; k++) kinds[e[k].kind]++;
}

/* Adds a tally to the crowd's counters (subtracts with `sign` -1). */
static void add_kinds(SpCrowd *c, const uint64_t *kinds, int sign) {
  uint64_t s = sign < 0 ? UINT64_MAX : 1; /* unsigned wrap: x * -1 */
  uint64_t all = 0;
  for (int k = 0; k < SP_KINDS; k++) all += kinds[k];
  c->plans += s * (kinds[SP_EV_PLANNED] + kinds[SP_EV_REPLANNED]);
  c->replans += s * kinds[SP_EV_REPLANNED];
  c->no_plans += s * kinds[SP_EV_NO_PLAN];
  c->steps_finished += s * kinds[SP_EV_STEP_FINISHED];
  c->events += s * all;
}

void sp__count_serial(SpCrowd *c) {
  add_kinds(c, c->kinds, 1);
  memset(c->kinds, 0, sizeof c->kinds);
}

/* Makes room for `want` events in the frame buffer (serial). */
static int reserve_events(SpCrowd *c, size_t want) {
  if (want <= c->ev_cap) return 1;
  size_t nc = c->ev_cap < 256 ? 256 : c->ev_cap;
  while (nc < want) nc *= 2;
  void *p = sp__mem_realloc(c->alloc, c->ev, c->ev_cap * sizeof *c->ev,
                            nc * sizeof *c->ev);
  if (p == NULL) return 0;
  c->ev = p;
  c->ev_cap = nc;
  return 1;
}

/* Events from which a merge copies on the workers, not the calling
 * thread alone: a copy costs about a nanosecond an event, a job's wake
 * and join a few microseconds. */
#define MERGE_PARALLEL_MIN 8192

/* Copies the events of the chunks a worker claims to their places in the
 * frame's buffer (ChunkRec.dest); the claims start each worker on the
 * range it ran in the pass, whose events its cache holds. */
static void merge_job(void *arg, int worker) {
  SpCrowd *c = arg;
  size_t t = 0, end = 0;
  for (;; t++) {
    if (t == end && !sp__claims_next(&c->claims, worker, &t, &end)) break;
    const ChunkRec *r = &c->chunks[t];
    const SpAgentEvent *from = c->cw[r->worker].ev;
    if (r->count > 0)
      memcpy(c->ev + r->dest, from + r->start, r->count * sizeof *c->ev);
    if (c->plan_in_choose && r->take_count > 0)
      memcpy(c->ev + r->take_dest, from + r->take_start,
             r->take_count * sizeof *c->ev);
  }
}

/* Chunk t's events of one part of a pass (its own, or its take planned
 * inline) to the end of the frame's buffer; counted lost without room. */
static void merge_run(SpCrowd *c, const ChunkRec *r, uint32_t start,
                      uint32_t count) {
  if (count == 0) return;
  const SpAgentEvent *e = c->cw[r->worker].ev + start;
  if (reserve_events(c, c->ev_count + count)) {
    memcpy(c->ev + c->ev_count, e, count * sizeof *e);
    c->ev_count += count;
    return;
  }
  atomic_fetch_add(&c->lost, count);
  uint64_t lost[SP_KINDS] = {0};
  tally(lost, e, count);
  add_kinds(c, lost, -1);
}

void sp__merge_ahead(SpCrowd *c, size_t mark) {
  CrowdWorker *w = &c->cw[0];
  size_t k = w->ev_count;
  if (k > w->ev_peak) w->ev_peak = k;
  w->ev_count = 0;
  add_kinds(c, w->kinds, 1);
  memset(w->kinds, 0, sizeof w->kinds);
  if (k == 0) return;
  if (!reserve_events(c, c->ev_count + k)) {
    atomic_fetch_add(&c->lost, k);
    uint64_t lost[SP_KINDS] = {0};
    tally(lost, w->ev, k);
    add_kinds(c, lost, -1);
    return;
  }
  memmove(c->ev + mark + k, c->ev + mark, (c->ev_count - mark) * sizeof *c->ev);
  memcpy(c->ev + mark, w->ev, k * sizeof *c->ev);
  c->ev_count += k;
}

void sp__merge_pass(SpCrowd *c, SpThreadPool *pool, int workers) {
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  size_t total = c->ev_count;
  for (size_t t = 0; t < chunks; t++) {
    c->chunks[t].dest = (uint32_t)total;
    total += c->chunks[t].count;
  }
  for (size_t t = 0; c->plan_in_choose && t < chunks; t++) {
    c->chunks[t].take_dest = (uint32_t)total;
    total += c->chunks[t].take_count;
  }
  size_t n = total - c->ev_count;
  if (n > 0 && total <= UINT32_MAX && reserve_events(c, total)) {
    if (pool != NULL && workers > 1 && n >= MERGE_PARALLEL_MIN) {
      sp__claims_init(&c->claims, chunks, workers,
                      sp__claims_run(chunks, workers));
      sp__thread_pool_help(pool, workers, merge_job, c);
    } else { /* in order, on the calling thread */
      sp__claims_init(&c->claims, chunks, 1, chunks);
      merge_job(c, 0);
    }
    c->ev_count = total;
  } else if (n > 0) { /* one chunk at a time, as far as memory goes */
    for (size_t t = 0; t < chunks; t++)
      merge_run(c, &c->chunks[t], c->chunks[t].start, c->chunks[t].count);
    for (size_t t = 0; c->plan_in_choose && t < chunks; t++)
      merge_run(c, &c->chunks[t], c->chunks[t].take_start,
                c->chunks[t].take_count);
  }
  for (int k = 0; k < c->workers; k++) {
    CrowdWorker *w = &c->cw[k];
    if (w->ev_count > w->ev_peak) w->ev_peak = w->ev_count;
    w->ev_count = 0;
    add_kinds(c, w->kinds, 1);
    memset(w->kinds, 0, sizeof w->kinds);
  }
}
