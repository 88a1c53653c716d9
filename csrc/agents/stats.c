/* stats.c: what a crowd reports of itself: its counters, the memory it holds, and the event buffers trimmed to what its frames use. */
#include <string.h>

#include "sp_agents.h"
#include "sp_release.h"
#include "sp_wheel.h"
#include "sp_detail.h"
#include "sp_goals.h"
#include "sp_loop.h"
#include "sp_space.h"
#include "sp_stats.h"
#include "sp_internal.h"

/* ------------------------------------------------------------------ */
/* Event buffers                                                      */
/* ------------------------------------------------------------------ */

/* Entries a buffer keeps however quiet the frames (16 KiB of events). */
#define EV_KEEP_MIN 1024u
/* Frames in a row under half a buffer before it shrinks: a crowd whose
 * frames alternate busy and quiet keeps its buffers (no realloc every
 * frame), one past its peak lets them go. */
#define EV_QUIET_FRAMES 8

/* Notes that the last frame used `used` entries (of `size` bytes: events,
 * binding hints) of *buf; after EV_QUIET_FRAMES frames in a row under half
 * of it, shrinks it to the most of those frames used and a quarter more
 * (whole multiples of EV_KEEP_MIN), so a buffer holds at most about twice
 * what the frames use: in a town's frames of 30 game seconds a fifth of
 * the agents have events or bind a place, and the 16 bytes of an event or
 * 24 of a hint add up per agent. A frame past that grows it again
 * (doubling), and quiet frames bring it back. A shrink that fails keeps
 * the buffer as it was. */
static void trim_buffer(SpCrowd *c, void **buf, size_t *cap, size_t size,
                        EvTrim *t, size_t used) {
  if (*cap <= EV_KEEP_MIN || used >= *cap / 2u) {
    t->quiet = 0;
    t->most = 0;
    return;
  }
  if (used > t->most) t->most = used;
  if (++t->quiet < EV_QUIET_FRAMES) return;
  size_t keep = t->most + t->most / 4u;
  keep = (keep / EV_KEEP_MIN + 1u) * EV_KEEP_MIN;
  t->quiet = 0;
  t->most = 0;
  if (keep >= *cap) return;
  void *p = sp__mem_realloc(c->alloc, *buf, *cap * size, keep * size);
  if (p == NULL) return;
  *buf = p;
  *cap = keep;
}

/* A crowd's first frame (every agent choosing a goal and planning, the
 * walkers binding their places) or a crowd that emptied leaves buffers
 * far larger than the frames need: once the frames have stayed quiet a
 * while, they shrink to what those frames used and a quarter more, so
 * what a crowd holds follows its frames, not its peak. The binding hints
 * of a frame (bind.c) are counted up to the next frame's start. */
void sp__crowd_trim_events(SpCrowd *c) {
  void *p = c->ev;
  trim_buffer(c, &p, &c->ev_cap, sizeof(SpAgentEvent), &c->ev_trim,
              c->ev_count);
  c->ev = p;
  for (int k = 0; k < c->workers; k++) {
    CrowdWorker *w = &c->cw[k];
    p = w->ev;
    trim_buffer(c, &p, &w->ev_cap, sizeof(SpAgentEvent), &w->ev_trim,
                w->ev_peak);
    w->ev = p;
    w->ev_peak = 0;
    if (w->hint == NULL) continue;
    p = w->hint;
    trim_buffer(c, &p, &w->hint_cap, sizeof(BindHint), &w->hint_trim,
                w->hint_count);
    w->hint = p;
  }
}

void sp_crowd_counters(const SpCrowd *c, SpCrowdStats *out) {
  memset(out, 0, sizeof *out);
  out->agents = sp_crowd_size(c);
  out->plans = c->plans;
  out->replans = c->replans;
  out->no_plans = c->no_plans;
  out->events = c->events;
  out->steps_finished = c->steps_finished;
  out->events_lost = c->events_lost;
  out->visited = c->visited;
  out->workers_woken = c->workers_woken;
  out->ms_update = c->ms_update;
  out->ms_planning = c->ms_planning;
  out->ms_binding = c->ms_binding;
  out->ms_waking = c->ms_waking;
  out->ms_choosing = c->ms_choosing;
  out->ms_taking = c->ms_taking;
  out->ms_advancing = c->ms_advancing;
  out->ms_workers_late = c->ms_workers_late;
  out->clock = c->clock;
}

/* What the crowd holds in memory, as two parts: bytes that grow with its
 * agents (records, the population's per-NPC arrays, refusals, and the
 * event buffers, which follow the frames' events) and the rest (worker
 * scratch, plan caches, goals). Large arrays count their pages in memory
 * only (sp__mem_resident): a capacity never filled, or plan slots never
 * used because the caches hold the plans, cost the process nothing. */
static void crowd_bytes(const SpCrowd *c, size_t *per_agents, size_t *fixed) {
  SpPopulationStats ps;
  sp_population_stats(c->pop, &ps);
  size_t pop_fixed = ps.bytes_total - ps.bytes_npcs;
  size_t grow =
      sp__mem_resident(c->agents, (c->capacity + 1) * sizeof(Agent)) +
      sp__mem_resident(
          c->refused_hi,
          c->refused_hi != NULL ? sp_refused_bytes(c, c->refused_words) : 0) +
      (ps.bytes_resident - pop_fixed) +
      sp__mem_resident(c->ev, c->ev_cap * sizeof(SpAgentEvent)) +
      sp__mem_resident(c->gens, c->gens != NULL
                                    ? 2u * (c->capacity + 1) * sizeof(uint32_t)
                                    : 0);
  const CrowdIndex *x = &c->index; /* made by the first query that needs it */
  grow += sp__index_bytes(c);
  grow += sp__detail_bytes(c); /* made by the crowd's first no_plan */
  if (c->chase != NULL)        /* walks to other agents, one record per slot */
    grow +=
        sp__mem_resident(c->chase, (c->capacity + 1) * sizeof(struct Chase));
  if (c->reads != NULL) { /* world facts tied to variables */
    grow += sp__mem_resident(c->reads, c->capacity + 1);
    grow +=
        (c->chunk_count + 1) * sizeof(uint32_t) + (size_t)c->action_count + 1u;
  }
  size_t rest = sizeof *c + pop_fixed + c->goal_block_bytes +
                sp__mem_resident(x->start, x->start_cap * sizeof(uint32_t)) +
                (c->chunk_count + 1) * sizeof(ChunkRec) +
                (size_t)c->action_count * sizeof(SpActionBehaviour) + 1u;
  if (c->chase_ws != NULL) rest += sp_grid_workspace_size_bytes(c->chase_ws);
  for (int k = 0; k < c->goal_count; k++) /* goals of sets (goal_sets.c) */
    rest += (size_t)c->choice_count[k] * (size_t)c->m;
  grow += sp__wheel_bytes(c);   /* the awake bits and the timers' slots */
  grow += sp__release_bytes(c); /* places given up in a pass */
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) {
    const CrowdWorker *w = &c->cw[k];
    grow += sp__mem_resident(w->ev, w->ev_cap * sizeof(SpAgentEvent)) +
            sp__mem_resident(w->hint, w->hint_cap * sizeof(BindHint));
    if (w->ws == NULL) continue;
    rest += sp_workspace_size_bytes(w->ws) + (size_t)c->m + 8u +
            ((size_t)c->action_count + 1u) * sizeof(uint16_t);
  }
  *per_agents = grow;
  *fixed = rest;
}

void sp_crowd_stats(const SpCrowd *c, SpCrowdStats *out) {
  sp_crowd_counters(c, out);
  for (size_t i = 0; i < c->n; i++) out->phase[c->agents[i].phase]++;
  size_t grow, fixed;
  crowd_bytes(c, &grow, &fixed);
  out->bytes_total = grow + fixed;
  size_t live = c->n - c->free_count; /* despawned slots hold memory too */
  if (live > 0) {
    out->bytes_per_agent = (grow + live - 1) / live;
  } else { /* what each agent will add: its records */
    SpPopulationStats ps;
    sp_population_stats(c->pop, &ps);
    out->bytes_per_agent =
        sizeof(Agent) + c->refused_words * sizeof(uint32_t) + ps.bytes_per_npc;
  }
}
