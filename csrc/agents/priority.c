/* priority.c: an agent's own priorities for some goals (a sparse list per crowd), the order in which that agent tries its goals, a goal's priority in the crowd, and the refusals an agent forgets when it chooses again. */
#include <string.h>

#include "sp_agents.h"
#include "sp_goals.h"
#include "sp_slots.h"
#include "sp_error.h"
#include "sp_internal.h"

/* The crowd keeps one list of (agent, goal, priority), sorted by agent
 * then goal: most agents have no override, so they cost nothing, and
 * the goal passes look an agent up only while the list is not empty. */

/* The first entry of agent i, or where it would go. */
static size_t lower(const SpCrowd *c, size_t i) {
  size_t lo = 0, hi = c->own_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->own[mid].agent < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The entry of (agent i, goal index), or SIZE_MAX. */
static size_t find(const SpCrowd *c, size_t i, int index) {
  for (size_t k = lower(c, i); k < c->own_count && c->own[k].agent == i; k++)
    if (c->own[k].goal == index) return k;
  return SIZE_MAX;
}

static SpStatus check_goal(const SpCrowd *c, size_t agent, int index,
                           SpError *err) {
  SpStatus st = sp__agent_check(c, agent, err);
  if (st != SP_OK) return st;
  if (index < 0 || index >= c->goal_count)
    return sp__error_set(err, SP_ERR_STATE, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: goal %d does not exist (%d goals)", index,
                         c->goal_count);
  return SP_OK;
}

/* The agent chooses again with its new order: refusals forgotten, an
 * idle agent looks again (as sp_crowd_set_priority does for all). */
static void rethink(SpCrowd *c, size_t i) {
  sp__agent_clear_refused(c, i);
  if (c->agents[i].phase == SP_PHASE_IDLE) {
    c->agents[i].flags |= F_NEED_GOAL;
    sp_agent_mark_choosing(c, i);
    c->agents[i].phase = SP_PHASE_THINKING;
  }
}

SpStatus sp_crowd_set_agent_priority(SpCrowd *c, size_t agent, int index,
                                     int priority, SpError *err) {
  sp__error_clear(err);
  SpStatus st = check_goal(c, agent, index, err);
  if (st != SP_OK) return st;
  size_t k = find(c, agent, index);
  if (k == SIZE_MAX) {
    if (c->own_count == c->own_cap) {
      size_t nc = c->own_cap < 8 ? 8 : c->own_cap * 2;
      OwnPriority *p = sp__mem_realloc(c->alloc, c->own, c->own_cap * sizeof *p,
                                       nc * sizeof *p);
      if (p == NULL) return sp__error_memory(err);
      c->own = p;
      c->own_cap = nc;
    }
    k = lower(c, agent);
    while (k < c->own_count && c->own[k].agent == agent &&
           c->own[k].goal < index)
      k++;
    memmove(&c->own[k + 1], &c->own[k], (c->own_count - k) * sizeof *c->own);
    c->own_count++;
    c->own[k].agent = (uint32_t)agent;
    c->own[k].goal = (uint16_t)index;
  }
  c->own[k].priority = priority;
  rethink(c, agent);
  return SP_OK;
}

SpStatus sp_crowd_clear_agent_priority(SpCrowd *c, size_t agent, int index,
                                       SpError *err) {
  sp__error_clear(err);
  SpStatus st = check_goal(c, agent, index, err);
  if (st != SP_OK) return st;
  size_t k = find(c, agent, index);
  if (k != SIZE_MAX) {
    memmove(&c->own[k], &c->own[k + 1],
            (c->own_count - k - 1) * sizeof *c->own);
    c->own_count--;
    rethink(c, agent);
  }
  return SP_OK;
}

int sp_crowd_agent_priority(const SpCrowd *c, size_t agent, int index,
                            int *own) {
  if (own != NULL) *own = 0;
  if (!sp_crowd_alive(c, agent)) return 0;
  size_t k = c->own_count > 0 ? find(c, agent, index) : SIZE_MAX;
  if (k != SIZE_MAX) {
    if (own != NULL) *own = 1;
    return c->own[k].priority;
  }
  return sp_crowd_priority(c, index);
}

void sp__priority_forget(SpCrowd *c, size_t i) {
  if (c->own_count == 0) return;
  size_t lo = lower(c, i), hi = lo;
  while (hi < c->own_count && c->own[hi].agent == i) hi++;
  memmove(&c->own[lo], &c->own[hi], (c->own_count - hi) * sizeof *c->own);
  c->own_count -= hi - lo;
}

void sp__priority_free(SpCrowd *c) {
  if (c->own != NULL)
    sp__mem_free(c->alloc, c->own, c->own_cap * sizeof *c->own);
  c->own = NULL;
  c->own_count = c->own_cap = 0;
}

const uint8_t *sp__agent_goal_order(const SpCrowd *c, size_t i, uint8_t *order,
                                    int *prio) {
  if (c->own_count == 0) return NULL;
  size_t k = lower(c, i);
  if (k == c->own_count || c->own[k].agent != i) return NULL;
  /* insertion sort of the sorted goals by the agent's priorities: stable,
   * so equal priorities keep the crowd's order */
  int n = 0;
  for (int g = 0; g < c->goal_count; g++) {
    int p = c->goals[g].priority;
    for (size_t j = k; j < c->own_count && c->own[j].agent == i; j++)
      if (c->own[j].goal == c->goals[g].index) p = c->own[j].priority;
    int at = n;
    while (at > 0 && prio[at - 1] < p) {
      order[at] = order[at - 1];
      prio[at] = prio[at - 1];
      at--;
    }
    order[at] = (uint8_t)g;
    prio[at] = p;
    n++;
  }
  return order;
}

int sp_crowd_priority(const SpCrowd *c, int index) {
  for (int g = 0; g < c->goal_count; g++)
    if (c->goals[g].index == index) return c->goals[g].priority;
  return 0;
}

void sp__agent_clear_refused(SpCrowd *c, size_t i) {
  c->agents[i].refused = 0;
  if (c->refused_words > 0)
    memset(c->refused_hi + i * c->refused_words, 0,
           c->refused_words * sizeof(uint32_t));
}
