/* chunk_visit.c: one pass's visit of one chunk of a crowd: the agents the pass has work for, found from the chunk's list or its flags and visited in order (goal choice, take, advance, commit), and the goal choice's look-ahead over the chunks to come. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "sp_agents.h"
#include "sp_ahead.h"
#include "sp_due.h"
#include "sp_frame.h"
#include "sp_loop.h"
#include "sp_population.h"
#include "sp_visit.h"
#include "sp_walk.h"
#include "sp_wheel.h"

/* sp_agent_request for the choose pass, which also writes the goal row. */
static void fetch_choosing(const SpCrowd *c, size_t j) {
  sp_agent_request(c, j);
  sp_population_request_goal_at(c->pop, j);
}

/* Requests the first agents of a chunk's list at once: a chunk lists a
 * few agents each frame, most of them before the look-ahead would reach
 * them, and their records are then fetched together, not one by one. */
static void fetch_first(const SpCrowd *c, const uint32_t *due, size_t nd,
                        void (*fetch)(const SpCrowd *, size_t)) {
  for (size_t k = 0; k < nd && k < SP_PREFETCH_AHEAD; k++) fetch(c, due[k]);
}

/* The agents of chunk r ([lo, hi)) with any bit of `flag` set, in order:
 * from the chunk's list when it has one (each once), else from its flags.
 * Listed agents are far apart: their flags' lines, and with `fetch` their
 * records, are requested at once, and *all_fetched (may be NULL) says so
 * (the caller then requests none ahead). */
static size_t chunk_agents(const SpCrowd *c, const ChunkRec *r, size_t lo,
                           size_t hi, uint8_t flag, uint32_t *out,
                           void (*fetch)(const SpCrowd *, size_t),
                           int *all_fetched) {
  if (all_fetched != NULL) *all_fetched = r->list_ok && fetch != NULL;
  if (!r->list_ok) return sp_chunk_with_flag(c, lo, hi, flag, out);
  for (uint32_t k = 0; k < r->listed; k++) {
    if (fetch != NULL)
      fetch(c, r->list[k]);
    else
      sp_prefetch(&c->agents[r->list[k]].flags);
  }
  size_t n = 0;
  for (uint32_t k = 0; k < r->listed; k++) {
    uint32_t i = r->list[k];
    if (!(c->agents[i].flags & flag)) continue;
    size_t j = n; /* a few agents: placed in order by insertion */
    while (j > 0 && out[j - 1] > i) j--;
    if (j > 0 && out[j - 1] == i) continue;
    if (j < n) /* most lists are in order already */
      memmove(out + j + 1, out + j, (n - j) * sizeof *out);
    out[j] = i, n++;
  }
#if defined(SP_CHECK_CHOOSING) /* a test build: the list misses nobody */
  uint32_t all[SP_CROWD_CHUNK];
  if (sp_chunk_with_flag(c, lo, hi, flag, all) != n ||
      memcmp(all, out, n * sizeof *out) != 0)
    abort();
#endif
  return n;
}

/* Keeps the chunk's agents that may need a goal or wait for a plan: all
 * n of `due` (in order), or, with too many or some not known, none (the
 * next pass reads the flags). */
static void keep_list(ChunkRec *r, const uint32_t *due, size_t n, int all) {
  r->list_ok = all && n <= SP_CHUNK_LIST;
  r->listed = r->list_ok ? (uint32_t)n : 0;
  r->marked = (uint32_t)n;
  if (r->list_ok) memcpy(r->list, due, n * sizeof *due);
}

/* Marks agents for the planner; counted per worker, added to the
 * population's count after the pass (count_marked), so the workers share
 * no counter. */
static void mark_for_planner(SpCrowd *c, int wk, const uint32_t *due,
                             size_t n) {
  c->cw[wk < 0 ? 0 : wk].marked += sp__population_mark_list(c->pop, due, n);
}

void sp__chunk_count_marked(SpCrowd *c) {
  for (int k = 0; k < c->workers || k == 0; k++) {
    sp__population_count_marked(c->pop, c->cw[k].marked);
    c->cw[k].marked = 0;
  }
}

/* Agents of the chunk that now wait for a plan, out of the nd the take
 * pass read (no other agent's flags changed): marked for the planner by
 * the worker itself (chunks are disjoint) and counted for the rounds.
 * The chunk's list keeps them and those that need a goal again (a plan
 * that ended in the step started with it, start_in_take). */
static uint32_t mark_waiting(SpCrowd *c, int wk, ChunkRec *r, uint32_t *due,
                             size_t nd) {
  uint32_t keep[SP_CHUNK_LIST];
  size_t n = 0, kept = 0;
  for (size_t k = 0; k < nd; k++) {
    uint8_t f = c->agents[due[k]].flags;
    if ((f & (F_PLANNING | F_NEED_GOAL)) && kept++ < SP_CHUNK_LIST)
      keep[kept - 1] = due[k];
    if (f & F_PLANNING) due[n++] = due[k];
  }
  mark_for_planner(c, wk, due, n);
  keep_list(r, keep, kept, !r->deferred); /* those left later are not listed */
  return (uint32_t)n;
}

/* An agent the goal budget may leave waiting: it needs a goal and thinks
 * with nothing else pending (no plan, no place held, no answer). */
static inline int budgeted(const SpCrowd *c, size_t i) {
  return c->agents[i].flags == F_NEED_GOAL &&
         c->agents[i].phase == SP_PHASE_THINKING;
}

/* Shares the crowd's goal budget among the chunks marked to choose or
 * with agents left from earlier frames, in order (serial, before the
 * choose pass): each may let that many of its budgeted agents choose,
 * the first by index, whichever worker runs it. Chunks past the budget's
 * end are not read. */
void sp__chunk_share_budget(SpCrowd *c) {
  if (c->opt.goal_budget == 0) return;
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  size_t left = c->opt.goal_budget;
  uint32_t due[SP_CROWD_CHUNK];
  for (size_t t = 0; t < chunks; t++) {
    ChunkRec *r = &c->chunks[t];
    r->allow = 0;
    if ((!r->choosing && !r->deferred) || left == 0) continue;
    size_t lo = t * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
    if (hi > c->n) hi = c->n;
    size_t nd = chunk_agents(c, r, lo, hi, F_NEED_GOAL, due, NULL, NULL);
    size_t n = 0;
    for (size_t k = 0; k < nd; k++) n += (size_t)budgeted(c, due[k]);
    if (n == 0) r->deferred = 0; /* those left went (a despawn) */
    r->allow = (uint32_t)(n < left ? n : left);
    left -= r->allow;
  }
}

/* The choose pass over a chunk: the agents that need a goal choose one,
 * and those waiting for a plan then (chosen now, or left waiting by an
 * update whose planning failed) are marked for the planner, or, planning
 * inline, take what the plan table holds for them at once (the others
 * are marked); no other agent's flags
 * change meanwhile. A chunk nobody marked since (sp_agent_mark_choosing)
 * has none of those: its flags stay unread, which in a large crowd is
 * most chunks, most frames; a marked one is read through its list when
 * it kept one. */
static uint32_t choose_chunk(SpCrowd *c, Sink s, size_t chunk, uint32_t *due,
                             int requested) {
  ChunkRec *r = &c->chunks[chunk];
  size_t lo = chunk * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
  if (hi > c->n) hi = c->n;
#if defined(SP_CHECK_CHOOSING) /* a test build: the mark is never missing */
  if (!r->choosing && !r->deferred &&
      sp_chunk_with_flag(c, lo, hi, F_NEED_GOAL | F_PLANNING, due))
    abort();
#endif
  if (!r->choosing && r->allow == 0) return 0;
  uint32_t allow = c->opt.goal_budget > 0 ? r->allow : UINT32_MAX;
  /* a chunk past the budget's end: its agents' records are not read;
   * those of a listed chunk the look-ahead requested are on their way */
  int fetch = allow > 0 && !requested, fetched;
  size_t nd = chunk_agents(c, r, lo, hi, F_NEED_GOAL | F_PLANNING, due,
                           fetch ? fetch_choosing : NULL, &fetched);
  fetch = fetch && !fetched;
  size_t nw = 0;
  int left = 0;       /* an agent that still needs a goal (none, today) */
  uint32_t later = 0; /* agents past the budget's share: they choose later */
  if (fetch) fetch_first(c, due, nd, fetch_choosing);
  for (size_t k = 0; k < nd; k++) {
    if (fetch && k + SP_PREFETCH_AHEAD < nd)
      fetch_choosing(c, due[k + SP_PREFETCH_AHEAD]);
    size_t i = due[k];
    if (c->agents[i].flags & F_NEED_GOAL) {
      int b = allow != UINT32_MAX && budgeted(c, i);
      if (b && allow == 0) {
        sp__wheel_settle(c, s.worker, i); /* asleep till its turn */
        later++;
        continue;
      }
      allow -= (uint32_t)b;
      /* one waiting for a plan is settled by the take pass, which visits
       * every such agent: awake meanwhile, the advance pass would find
       * nothing to do */
      if (!sp__agent_choose(c, s, i)) sp__wheel_settle(c, s.worker, i);
    }
    left |= c->agents[i].flags & F_NEED_GOAL;
    if (c->agents[i].flags & F_PLANNING) due[nw++] = (uint32_t)i; /* nw <= k */
  }
  if (c->plan_in_choose) /* most take their plans from the table now */
    c->cw[s.worker].marked +=
        sp__population_inline_list(c->pop, s.worker, due, nw);
  else
    mark_for_planner(c, s.worker, due, nw);
  keep_list(r, due, nw, !left && later == 0);
  r->choosing = nw > 0 || left; /* the waiting keep it for the next frame */
  r->deferred = later > 0;
  return (uint32_t)nw;
}

/* The places the binding pass reserved by the answers of a chunk, written
 * to their agents. */
static void commit_chunk(SpCrowd *c, int wk, ChunkRec *r) {
  BindHint *h = c->cw[r->hint_worker].hint + r->hint_start;
  for (uint32_t k = 0; k < r->hint_count; k++)
    if (h[k].taken) sp__bind_hint_commit(c, wk, &h[k]);
  r->taken = 0;
}

/* The take pass over a chunk: the agents waiting for a plan take it (and
 * start its first step, start_in_take); returns those that wait for a
 * plan again, now marked for the planner. `hot`: the chunk's agents just
 * chose (plan_and_take), their lines at hand: none is requested. */
uint32_t sp__chunk_take(SpCrowd *c, Sink s, size_t chunk, int hot) {
  size_t lo = chunk * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
  if (hi > c->n) hi = c->n;
  int wk = s.worker, fetched;
  uint32_t due[SP_CROWD_CHUNK];
  /* with those that need a goal (a plan that ended in this frame's take
   * pass, or left by the goal budget): the list keeps them */
  size_t nd =
      chunk_agents(c, &c->chunks[chunk], lo, hi, F_PLANNING | F_NEED_GOAL, due,
                   hot ? NULL : sp_agent_request, &fetched);
  fetched |= hot;
  if (!fetched) fetch_first(c, due, nd, sp_agent_request);
  int fast = sp__take_fast_crowd(c);
  for (size_t k = 0; k < nd; k++) {
    if (!fetched && k + SP_PREFETCH_AHEAD < nd)
      sp_agent_request(c, due[k + SP_PREFETCH_AHEAD]);
    if (!(c->agents[due[k]].flags & F_PLANNING)) continue;
    if (fast && sp__agent_take_start(c, s, due[k])) continue; /* fast.c */
    /* the plan's first step starts at once, while the agent's lines are
     * at hand, where nothing the advance pass does first could change it
     * (start_in_take) */
    if (!sp__agent_take_plan(c, s, due[k]) && c->start_in_take &&
        (c->agents[due[k]].flags & F_HAS_PLAN)) {
      (void)sp__agent_advance(c, s, due[k], WALK_NOT);
      c->cw[wk < 0 ? 0 : wk].visited++;
      sp__wheel_settle_early(c, wk, due[k]); /* its visit of the frame */
      continue;
    }
    sp__wheel_settle(c, wk, due[k]);
  }
  return mark_waiting(c, wk, &c->chunks[chunk], due, nd); /* next goal */
}

/* The advance pass over a chunk: the agents awake (wheel.c) advance; a
 * timer ran out, a call or a change woke them, or they walk or think;
 * those awake whose timed wait goes on are settled without a visit. A
 * long frame wakes every agent: those with something due, in order
 * (sweep.c), and nobody settled (the next frame wakes them all again).
 * Returns the agents that wait for the binding pass. */
static uint32_t advance_chunk(SpCrowd *c, Sink s, size_t chunk) {
  size_t lo = chunk * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
  if (hi > c->n) hi = c->n;
  uint32_t flagged = 0;
  int wk = s.worker;
  uint32_t due[SP_CROWD_CHUNK];
  uint8_t walked[SP_CROWD_CHUNK];
  size_t nd = 0;
  int sweep = c->sweeping;
  if (sweep) nd = sp__wheel_sweep_list(c, lo, hi, due);
  size_t na = sweep ? 0 : sp__wheel_awake_list(c, lo, hi, due);
  Ahead *look = &c->cw[wk < 0 ? 0 : wk].ahead;
  if (!sweep) sp__ahead_chunk(c, look, chunk, c->serial_pass);
  for (size_t k = 0; k < na; k++) {
    sp__ahead_next(c, look);
    size_t i = due[k];
    /* marked by the drain alone: its wait may go on, or be stale */
    if (!((c->awake[i / 64] >> (i % 64)) & 1u) && !sp_wheel_due_visit(c, wk, i))
      continue;
    uint8_t ph = c->agents[i].phase;
    /* an interruptible step gives way while it waits too */
    if (c->any_interruptible &&
        (ph == SP_PHASE_MOVING || ph == SP_PHASE_BLOCKED) &&
        sp__agent_interrupt(c, s, i)) {
      sp__wheel_settle(c, wk, i);
      continue;
    }
    /* a move waits for the caller's answer: nothing due before it */
    if (ph == SP_PHASE_IDLE || ph == SP_PHASE_FREE ||
        (ph == SP_PHASE_MOVING &&
         !(c->agents[i].flags & (F_FINISH | F_FAIL | F_BIND))) ||
        (sp_wheel_timed(c, ph) && !sp_due_passed(c, i))) {
      sp__wheel_settle(c, wk, i);
      continue;
    }
    due[nd++] = (uint32_t)i;
  }
  if (nd > 0) sp__agent_walk_many(c, due, nd, walked);
  c->cw[wk < 0 ? 0 : wk].visited += nd;
  int fast = sp__end_fast_crowd(c);
  for (size_t k = 0; k < nd; k++) {
    /* the look-ahead requested the awake agents' memory already */
    size_t ahead = k + SP_PREFETCH_AHEAD;
    if (sweep && ahead < nd && walked[ahead] != WALK_STAYED)
      sp_agent_request(c, due[ahead]);
    /* the common visit first: a plan's last timed step ends (fast.c) */
    int bind =
        fast && walked[k] == WALK_NOT ? sp__agent_end_step(c, s, due[k]) : -1;
    /* a walker still on its way has nothing more to do this frame */
    if (bind < 0)
      bind = walked[k] != WALK_STAYED
                 ? sp__agent_advance(c, s, due[k], walked[k])
             : c->any_interruptible && sp__agent_interrupt(c, s, due[k])
                 ? 0
                 : (c->agents[due[k]].flags & F_BIND) != 0;
    flagged += (uint32_t)bind;
    if (bind && (c->agents[due[k]].flags & F_BIND)) /* found while at hand */
      sp__bind_hint_add(c, wk, due[k]);
    if (!sweep) sp__wheel_settle(c, wk, due[k]);
  }
  if (!sweep) sp__wheel_unmark_chunk(c, lo, hi);
  return flagged;
}

uint32_t sp__chunk_visit(SpCrowd *c, Sink s, size_t chunk, int requested) {
  switch (c->pass) {
  case PASS_CHOOSE: {
    uint32_t due[SP_CROWD_CHUNK];
    return choose_chunk(c, s, chunk, due, requested);
  }
  case PASS_TAKE: return sp__chunk_take(c, s, chunk, 0);
  case PASS_COMMIT: commit_chunk(c, s.worker, &c->chunks[chunk]); return 0;
  default: return advance_chunk(c, s, chunk);
  }
}

/* Whether the look-ahead requests chunk r's agents: listed, and not past
 * the goal budget's end (whose records stay unread). */
static int ahead_wanted(const SpCrowd *c, const ChunkRec *r) {
  return r->choosing && r->list_ok && (c->opt.goal_budget == 0 || r->allow > 0);
}

int sp__choose_ahead(const SpCrowd *c, ChooseAhead *a, size_t t, size_t end) {
  int requested = 0;
  if (a->end == end && a->next > t) {
    const ChunkRec *r = &c->chunks[t];
    requested = ahead_wanted(c, r);
    if (requested) a->queued -= r->listed < a->queued ? r->listed : a->queued;
  } else { /* a new run, or all its agents requested have had their turn */
    a->next = t + 1, a->end = end, a->queued = 0;
  }
  for (; a->next < end && a->queued < SP_PREFETCH_AHEAD; a->next++) {
    const ChunkRec *r = &c->chunks[a->next];
    if (!ahead_wanted(c, r)) continue;
    for (uint32_t k = 0; k < r->listed; k++) fetch_choosing(c, r->list[k]);
    a->queued += r->listed;
  }
  return requested;
}
