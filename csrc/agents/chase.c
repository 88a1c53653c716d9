/* chase.c: agents walking to another agent that may move: targets checked every frame, short A* paths searched again as the target moves. */
#include <limits.h>
#include <string.h>

#include "sp_step.h"
#include "sp_chase.h"
#include "sp_due.h"
#include "sp_loop.h"
#include "sp_places.h"
#include "sp_slots.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

/* ------------------------------------------------------------------ */
/* The world's live crowds                                            */
/* ------------------------------------------------------------------ */

void sp__world_register_crowd(SpWorld *w, SpCrowd *c) {
  c->serial = ++w->crowd_serial;
  c->next_in_world = w->crowds;
  w->crowds = c;
}

void sp__world_unregister_crowd(SpWorld *w, SpCrowd *c) {
  if (c->serial == 0) return;
  sp__queue_forget_crowd(w, c);
  for (SpCrowd **p = &w->crowds; *p != NULL; p = &(*p)->next_in_world)
    if (*p == c) {
      *p = c->next_in_world;
      break;
    }
  c->serial = 0;
}

/* 1 when `c` (with `serial`) is still a crowd of w: not freed, nor its
 * memory reused by a newer crowd. */
static int crowd_live(const SpWorld *w, const SpCrowd *c, uint64_t serial) {
  for (const SpCrowd *k = w->crowds; k != NULL; k = k->next_in_world)
    if (k == c) return k->serial == serial;
  return 0;
}

void sp__crowd_chase_free(SpCrowd *c) {
  if (c->chase != NULL)
    sp__mem_free(c->alloc, c->chase, (c->capacity + 1) * sizeof(Chase));
  sp_grid_workspace_free(c->chase_ws);
  c->chase = NULL;
  c->chase_ws = NULL;
}

int sp__crowd_chase_ready(SpCrowd *c) {
  if (c->chase == NULL) {
    size_t bytes = (c->capacity + 1) * sizeof(Chase);
    c->chase = sp__mem_alloc(c->alloc, bytes);
    if (c->chase == NULL) return 0;
    memset(c->chase, 0, bytes);
  }
  const SpGrid *g = c->world->grid;
  if (g != NULL && c->chase_ws == NULL) {
    SpGridError gerr;
    if (sp_grid_workspace_new(g, NULL, c->alloc, &c->chase_ws, &gerr) != SP_OK)
      return 0;
  }
  return 1;
}

int sp__chase_saved(const SpCrowd *c, size_t i) {
  return c->chase != NULL && c->chase[i].on &&
         (c->agents[i].phase == SP_PHASE_WALKING ||
          c->agents[i].phase == SP_PHASE_MOVING);
}

uint32_t sp__chase_target_index(const SpCrowd *c, size_t i,
                                const SpCrowd *const *crowds, size_t count) {
  const Chase *ch = &c->chase[i];
  if (!crowd_live(c->world, ch->crowd, ch->serial)) return UINT32_MAX;
  for (size_t k = 0; k < count; k++)
    if (crowds[k] == ch->crowd) return (uint32_t)k;
  return UINT32_MAX;
}

void sp__chase_restore(SpCrowd *c, size_t i, const SpCrowd *target,
                       const Chase *saved) {
  Chase *ch = &c->chase[i];
  *ch = *saved;
  ch->crowd = target;
  ch->serial = target != NULL ? target->serial : 0; /* none: target_gone */
  ch->on = 1;
}

/* ------------------------------------------------------------------ */
/* Setting a chase                                                    */
/* ------------------------------------------------------------------ */

SpStatus sp_crowd_set_target_agent(SpCrowd *c, size_t agent,
                                   const SpCrowd *other, size_t target,
                                   uint32_t gen, int reach, SpError *err) {
  sp__error_clear(err);
  SpStatus st = sp__crowd_waiting_target(c, agent, err);
  if (st != SP_OK) return st;
  if (other->world != c->world)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: the target agent lives in another world");
  if (target >= other->n)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: target agent %zu does not exist", target);
  /* a despawned target is found gone at the first frame (reason
   * target_gone), walking or moved by the engine */
  if (reach < 0 || reach > 65534)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: reach %d is outside 0..65534", reach);
  if (!sp__crowd_chase_ready(c)) return sp__error_memory(err);
  Chase *ch = &c->chase[agent];
  memset(ch, 0, sizeof *ch);
  ch->crowd = other;
  ch->serial = other->serial;
  ch->agent = (uint32_t)target;
  ch->gen = gen;
  ch->reach = (uint16_t)reach;
  ch->gx = ch->gy = 0xFFFF;
  ch->on = 1;
  Agent *a = &c->agents[agent];
  const Agent *t = &other->agents[target];
  a->target = SP_NO_PLACE;
  a->tx = t->x;
  a->ty = t->y;
  c->agents[agent].phase = SP_PHASE_WALKING;
  c->agents[agent].flags |= F_BIND;
  c->agents[agent].time = 0.0f; /* a chase's progress */
  sp_agent_wake(c, agent);
  return SP_OK;
}

/* ------------------------------------------------------------------ */
/* A frame of a chase                                                 */
/* ------------------------------------------------------------------ */

static int cheb(int x0, int y0, int x1, int y1) {
  int dx = x0 > x1 ? x0 - x1 : x1 - x0, dy = y0 > y1 ? y0 - y1 : y1 - y0;
  return dx > dy ? dx : dy;
}

/* A* from the walker's cell to the target's; keeps the path's first
 * SP_CHASE_PATH cells. 0 when there is no way. */
static int repath(SpCrowd *c, Chase *ch, const Agent *a, const Agent *t) {
  SpGridPoint from = {a->x, a->y}, to = {t->x, t->y};
  SpGridError gerr;
  if (sp_grid_find_path(c->world->grid, c->chase_ws, from, to, NULL, NULL,
                        &gerr) != SP_OK)
    return 0;
  size_t n = sp_grid_workspace_path(c->chase_ws, ch->path, SP_CHASE_PATH + 1);
  ch->steps = (uint8_t)(n < SP_CHASE_PATH + 1 ? n : SP_CHASE_PATH + 1);
  ch->at = 1; /* path[0] is the walker's cell */
  ch->gx = t->x, ch->gy = t->y;
  return ch->steps > 1;
}

/* One cell toward the target: down the path (searched again when it is
 * walked or the target left its end), or straight without a grid. */
static int step_toward(SpCrowd *c, Chase *ch, Agent *a, const Agent *t) {
  if (c->world->grid == NULL) {
    a->x = (uint16_t)(a->x + (t->x > a->x) - (t->x < a->x));
    a->y = (uint16_t)(a->y + (t->y > a->y) - (t->y < a->y));
    return 1;
  }
  if (ch->at >= ch->steps || cheb(ch->gx, ch->gy, t->x, t->y) > SP_CHASE_SLACK)
    if (!repath(c, ch, a, t)) return 0;
  a->x = (uint16_t)ch->path[ch->at].x;
  a->y = (uint16_t)ch->path[ch->at].y;
  ch->at++;
  return 1;
}

int sp__chase_target_live(const SpCrowd *c, size_t i) {
  const Chase *ch = &c->chase[i];
  const SpCrowd *tc = ch->crowd;
  return crowd_live(c->world, tc, ch->serial) &&
         sp_crowd_alive(tc, ch->agent) &&
         sp_crowd_generation(tc, ch->agent) == ch->gen;
}

/* Engine moves: the first frame announces the target's cell (or arrives
 * at once within the reach); later frames announce it again when the
 * target went farther than the reach from the cell announced. The agent
 * stays in SP_PHASE_MOVING with F_BIND, so this pass sees it each frame
 * until the game answers. */
static void engine_chase(SpCrowd *c, Sink s, size_t i, const Agent *t) {
  Chase *ch = &c->chase[i];
  Agent *a = &c->agents[i];
  if (c->agents[i].phase != SP_PHASE_MOVING) {
    a->tx = t->x, a->ty = t->y;
    if (cheb(a->x, a->y, t->x, t->y) <= ch->reach) {
      ch->on = 0;
      sp__agent_arrive(c, s, i);
      return;
    }
    Plan plan = plan_view(c, s, i);
    c->agents[i].phase = SP_PHASE_MOVING;
    c->agents[i].time = 0.0f;
    sp__agent_announce_move(c, s, i, plan_act(&plan, a->step), 0);
    return;
  }
  if (cheb(a->tx, a->ty, t->x, t->y) > ch->reach) {
    a->tx = t->x, a->ty = t->y;
    Plan plan = plan_view(c, s, i);
    sp__agent_announce_move(c, s, i, plan_act(&plan, a->step), 0);
  }
}

void sp__agent_chase(SpCrowd *c, Sink s, size_t i) {
  Chase *ch = &c->chase[i];
  Agent *a = &c->agents[i];
  const SpCrowd *tc = ch->crowd;
  if (!sp__chase_target_live(c, i)) {
    ch->on = 0;
    sp__agent_fail_now(c, s, i, SP_REASON_TARGET_GONE);
    return;
  }
  const Agent *t = &tc->agents[ch->agent];
  if (c->opt.engine_moves) {
    engine_chase(c, s, i, t);
    return;
  }
  a->tx = t->x, a->ty = t->y; /* where it goes now, for inspection */
  float progress = c->agents[i].time + c->opt.speed * c->dt;
  /* a frame of more cells than an int counts walks as far as one can
   * (the walker arrives or finds no way long before) */
  int cells = progress < 2147483520.0f ? (int)progress : INT_MAX;
  c->agents[i].time = cells < INT_MAX ? progress - (float)cells : 0.0f;
  for (int k = 0;; k++) {
    if (cheb(a->x, a->y, t->x, t->y) <= ch->reach) {
      ch->on = 0;
      c->agents[i].time = 0.0f;
      sp__agent_arrive(c, s, i);
      return;
    }
    if (k == cells) return; /* on its way: the next frame goes on */
    if (!step_toward(c, ch, a, t)) {
      ch->on = 0;
      sp__agent_fail_now(c, s, i, SP_REASON_UNREACHABLE);
      return;
    }
    sp_index_note(c, i); /* its cell in the crowd's index, for `near` */
  }
}
