/* fuzz_crowd.c: libFuzzer harness: a crowd in a world driven by a random sequence of calls, every event checked against a model of each agent's state and every place against its capacity. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_save.h"
#include "sp_due.h"
#include "test_alloc.h"

enum { MAX_AGENTS = 48, MAX_PLACES = 12 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the harness believes each agent's state is: spawns, world changes
 * and finished steps applied in event order. */
typedef struct Model {
  const SpDomain *d;
  int nv;
  size_t agents; /* slots used */
  SpValue state[MAX_AGENTS][RD_MAX_VARIABLES];
  uint8_t dead[MAX_AGENTS];                  /* despawned */
  uint32_t gen[MAX_AGENTS];                  /* despawns of the slot */
  size_t free_slots[MAX_AGENTS], free_count; /* reused last first */
} Model;

static void broken(const char *what, size_t agent, int action) {
  fprintf(stderr, "fuzz_crowd: %s (agent %zu, action %d)\n", what, agent,
          action);
  abort();
}

/* Checks one update's events against the model and moves it on: a step
 * starts only where its pre and prevails hold, and finishing applies
 * pre -> post. Then every agent's state must be the model's. */
static void check_events(Model *m, const SpCrowd *c) {
  const SpAgentEvent *ev = sp_crowd_events(c);
  size_t n = sp_crowd_event_count(c), k, i;
  for (k = 0; k < n; k++) {
    size_t a = ev[k].agent;
    int act = ev[k].action, var, pre, p;
    if (a >= m->agents) broken("an event of an agent never spawned", a, act);
    if (m->dead[a]) broken("an event of a despawned agent", a, act);
    if (ev[k].gen != (uint16_t)m->gen[a])
      broken("an event with another generation than its agent's", a, act);
    if (ev[k].kind != SP_EV_STEP_STARTED && ev[k].kind != SP_EV_STEP_FINISHED)
      continue;
    if (act < 0 || act >= sp_domain_action_count(m->d))
      broken("a step event without a valid action", a, act);
    var = sp_action_variable(m->d, act);
    pre = sp_action_pre(m->d, act);
    if (pre >= 0 && m->state[a][var] != pre)
      broken(ev[k].kind == SP_EV_STEP_STARTED
                 ? "a step started without its pre"
                 : "a step finished without its pre",
             a, act);
    if (ev[k].kind == SP_EV_STEP_STARTED) {
      for (p = 0; p < sp_action_prevail_count(m->d, act); p++) {
        SpCondition cond = sp_action_prevail(m->d, act, p);
        if (m->state[a][cond.variable] != cond.value)
          broken("a step started without a prevail", a, act);
      }
    } else {
      m->state[a][var] = (SpValue)sp_action_post(m->d, act);
    }
  }
  for (i = 0; i < m->agents; i++)
    if (!m->dead[i] &&
        memcmp(sp_crowd_state(c, i), m->state[i], (size_t)m->nv) != 0)
      broken("the agent's state is not the one its events make", i, -1);
}

static int cheb_of(const SpCrowd *c, size_t i, int x, int y) {
  int ax, ay;
  sp_crowd_position(c, i, &ax, &ay);
  int dx = abs(ax - x), dy = abs(ay - y);
  return dx > dy ? dx : dy;
}

/* A near answer is live agents within r, by distance then index, and as
 * many as a scan of every slot finds (at most max). */
static void near_checked(const SpCrowd *c, int x, int y, int r, size_t max,
                         const uint32_t *near, size_t found) {
  size_t within = 0;
  for (size_t i = 0; i < MAX_AGENTS; i++)
    within += sp_crowd_alive(c, i) && cheb_of(c, i, x, y) <= r;
  if (found != (max > 0 && within > max ? max : within))
    broken("near found another count than a scan", found, -1);
  for (size_t k = 0; k < found; k++) {
    if (!sp_crowd_alive(c, near[k]))
      broken("near gave a dead agent", near[k], -1);
    int d = cheb_of(c, near[k], x, y);
    if (d > r) broken("near gave an agent out of reach", near[k], -1);
    if (k > 0) {
      int before = cheb_of(c, near[k - 1], x, y);
      if (before > d || (before == d && near[k - 1] >= near[k]))
        broken("near out of order", near[k], -1);
    }
  }
}

/* No place holds more agents than its capacity. */
static void check_places(const SpWorld *w) {
  size_t n = sp_world_place_count(w), i;
  for (i = 0; i < n; i++) {
    SpPlaceInfo p;
    if (sp_world_place(w, (uint32_t)i, &p) != SP_OK) abort();
    if (p.reserved < 0 || (p.capacity > 0 && p.reserved > p.capacity))
      broken("a place holds more agents than its capacity", i, -1);
  }
}

/* Despawn of `agent` (maybe not a live one): refused exactly when the
 * model says it is not alive; the slot's generation and the crowd's
 * size follow the model. */
static void despawn(Model *m, SpCrowd *c, size_t agent) {
  SpError err;
  int live = agent < m->agents && !m->dead[agent];
  SpStatus st = sp_crowd_despawn(c, agent, &err);
  if ((st == SP_OK) != live)
    broken(live ? "a live agent could not be despawned"
                : "a despawn of no live agent",
           agent, -1);
  if (st == SP_OK) {
    m->dead[agent] = 1;
    m->gen[agent]++;
    m->free_slots[m->free_count++] = agent;
  }
  if (agent < m->agents && sp_crowd_generation(c, agent) != m->gen[agent])
    broken("a slot's generation is not its despawn count", agent, -1);
  if (sp_crowd_size(c) != m->agents - m->free_count ||
      sp_crowd_slots(c) != m->agents)
    broken("the crowd's size does not count its live agents", agent, -1);
}

/* Teleport: done exactly for a live agent and an open cell inside the
 * grid, and then the agent stands there; otherwise it did not move. */
static void teleport(const Model *m, SpCrowd *c, const SpGrid *g, size_t agent,
                     int x, int y) {
  SpError err;
  int x0 = -1, y0 = -1, x1 = -1, y1 = -1;
  int live = agent < m->agents && !m->dead[agent];
  int open = sp_grid_contains(g, x, y) && !sp_grid_is_blocked(g, x, y);
  if (live) sp_crowd_position(c, agent, &x0, &y0);
  SpStatus st = sp_crowd_teleport(c, agent, x, y, &err);
  if ((st == SP_OK) != (live && open))
    broken("a teleport done or refused wrongly", agent, -1);
  if (live) sp_crowd_position(c, agent, &x1, &y1);
  if (live && (st == SP_OK ? (x1 != x || y1 != y) : (x1 != x0 || y1 != y0)))
    broken("a teleport left the agent elsewhere", agent, -1);
}

/* Byte 0-1: the domain's seed; byte 2: grid side, threads, selector; then
 * one call per four bytes (op, a, b, c), arguments partly out of range on
 * purpose (refusals must change nothing). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static RandomDomain rd;
  static Model m;
  SpDomain *d = NULL;
  SpGrid *g = NULL;
  SpWorld *w = NULL;
  SpCrowd *c = NULL;
  SpError err;
  SpGridError gerr;
  SpCrowdOptions o;
  TestAlloc ta;
  SpValue s[RD_MAX_VARIABLES];
  int nv, na, side, kinds[2], v;
  size_t at, agent;
  if (size < 3) return 0;
  random_domain_generate(&rd, (uint64_t)data[0] << 8 | data[1], RD_FLAVOR_ANY);
  test_alloc_init(&ta, 0);
  if (sp_domain_compile(&rd.spec, NULL, test_alloc_hook(&ta), &d, &err) !=
      SP_OK)
    return 0; /* outside the tractable classes */
  nv = sp_domain_variable_count(d);
  na = sp_domain_action_count(d);
  side = 4 + data[2] % 13;
  memset(&o, 0, sizeof o);
  o.capacity = MAX_AGENTS;
  o.threads = 1 + (data[2] >> 6) % 2;
  o.seed = data[0];
  o.engine_moves = (data[2] & 0x10) != 0;
  if (sp_grid_new(side, side, 1.0, test_alloc_hook(&ta), &g, &gerr) != SP_OK ||
      sp_world_new(g, test_alloc_hook(&ta), &w, &err) != SP_OK ||
      sp_world_kind(w, "spot", &kinds[0], &err) != SP_OK ||
      sp_world_kind(w, "well", &kinds[1], &err) != SP_OK ||
      sp_crowd_new(w, d, &o, test_alloc_hook(&ta), &c, &err) != SP_OK)
    abort();
  if (data[2] & 0x20) sp_crowd_set_selector(c, 1);
  memset(&m, 0, sizeof m);
  m.d = d;
  m.nv = nv;
  for (at = 3; at + 4 <= size; at += 4) {
    int op = data[at] % 17, x = data[at + 1], y = data[at + 2],
        z = data[at + 3];
    agent =
        m.agents ? (size_t)x % (m.agents + 1) : 0; /* sometimes one too far */
    switch (op) {
    case 0: /* spawn: values from the bytes, some out of range */
      for (v = 0; v < nv; v++)
        s[v] = (SpValue)((y + v * z) %
                         (sp_variable_value_count(d, v) + (z == 255)));
      if (sp_crowd_spawn(c, s, x % (side + 1), z % side,
                         (y & 1) ? (uint32_t)z % 4 : SP_NO_PLACE, &agent,
                         &err) == SP_OK) {
        size_t want =
            m.free_count > 0 ? m.free_slots[m.free_count - 1] : m.agents;
        if (agent != want) broken("a spawn out of order", agent, -1);
        if (m.free_count > 0)
          m.free_count--, m.dead[agent] = 0;
        else
          m.agents++;
        memcpy(m.state[agent], s, (size_t)nv);
      }
      break;
    case 13: despawn(&m, c, agent); break;
    case 14: teleport(&m, c, g, agent, y % (side + 1), z % (side + 1)); break;
    case 15: /* answers to engine moves, pending or not; a chase of an
                agent of the crowd (maybe itself, maybe gone) */
      if ((z & 3) == 3)
        sp_crowd_set_target_agent(c, agent, c, (size_t)y % (m.agents + 1),
                                  (size_t)y % (m.agents + 1) < MAX_AGENTS
                                      ? m.gen[(size_t)y % (m.agents + 1)] +
                                            (uint32_t)(x & 1)
                                      : 0,
                                  z % 3 - (z == 255), &err);
      else if (z & 1)
        sp_crowd_arrived(c, agent, &err);
      else
        sp_crowd_move_failed(c, agent, y, &err);
      break;
    case 1:
    case 2: /* update */
      if (sp_crowd_update(c, (float)(y % 8 + 1) / 8.0f, &err) != SP_OK)
        abort(); /* only memory fails, and memory never fails here */
      check_events(&m, c);
      check_places(w);
      break;
    case 3: /* a world change */
      v = y % (nv + 1);
      if (sp_crowd_set_var(c, agent, v, z % 6, &err) == SP_OK)
        m.state[agent][v] = (SpValue)(z % 6);
      break;
    case 4: sp_crowd_fail_step(c, agent, z, &err); break;
    case 5: sp_crowd_finish_step(c, agent, &err); break;
    case 6: { /* a goal: some variables free, some values out of range */
      SpValue when[RD_MAX_VARIABLES];
      int index;
      for (v = 0; v < nv; v++) {
        s[v] = ((y >> v) & 1)
                   ? (SpValue)((z + v) %
                               (sp_variable_value_count(d, v) + (x == 7)))
                   : (SpValue)SP_ANY;
        when[v] = ((x >> v) & 1) ? (SpValue)(z % sp_variable_value_count(d, v))
                                 : (SpValue)SP_ANY;
      }
      sp_crowd_add_goal(c, s, z % 5 - 1, (x & 0x80) ? when : NULL, &index,
                        &err);
      break;
    }
    case 7: { /* a place (capacities 0: unlimited .. 3) */
      uint32_t id;
      if (sp_world_place_count(w) < MAX_PLACES)
        sp_world_add_place(w, kinds[x & 1] + (z == 255), y % (side + 1),
                           z % side, x % 4 - (z == 254), &id, &err);
      break;
    }
    case 8: /* grid edits under the agents' feet */
      if (z & 1)
        sp_grid_set_blocked(g, x % side, y % side, (z >> 1) & 1, &gerr);
      else
        sp_grid_set_cost(g, x % side, y % side, 1.0 + z % 9, &gerr);
      break;
    case 9: { /* an action's behaviour */
      SpActionBehaviour b;
      memset(&b, 0, sizeof b);
      b.min_duration = (float)(y % 4) / 4.0f;
      b.max_duration = b.min_duration + (float)(z % 3) / 2.0f;
      b.bind = (SpBind)(z % 6);
      b.place = (uint32_t)(x % 5);
      b.kind = kinds[x & 1];
      b.interruptible = (y >> 4) & 1;
      b.scripted = (y >> 5) & 1;
      b.has_hook = (y >> 6) & 1;
      sp_crowd_set_action(c, x % (na + 1), &b, &err);
      break;
    }
    case 10:
      sp_crowd_set_target(c, agent, (z & 1) ? (uint32_t)y % 5 : SP_NO_PLACE,
                          y % (side + 1), z % side, &err);
      break;
    case 11:
      if (z & 1) {
        sp_crowd_select_goal(c, agent, y % (sp_crowd_goal_count(c) + 2) - 1,
                             &err);
      } else {
        for (v = 0; v < nv; v++)
          s[v] = (SpValue)((y + v) % sp_variable_value_count(d, v));
        if (sp_crowd_set_state(c, agent, s, &err) == SP_OK)
          memcpy(m.state[agent], s, (size_t)nv);
      }
      break;
    case 16: { /* perception and world facts: queries, no agent changed */
      const uint32_t *near;
      size_t found;
      int qx = x % (side + 2) - 1, qy = y % (side + 2) - 1, r = z % 12 - 1;
      size_t max = (size_t)(y % 4);
      if (sp_crowd_near(c, qx, qy, r, max, &near, &found, &err) == SP_OK) {
        near_checked(c, qx, qy, r, max, near, found);
      } else if (z % 12 != 0) {
        broken("near refused a radius >= 0", agent, -1);
      }
      static const char *const vals[] = {"quiet", "ringing", "loud"};
      if (sp_world_fact_count(w) == 0)
        sp_world_add_fact(w, "alarm", vals, 2 + (y & 1), z % 4, NULL, &err);
      sp_world_set_fact(w, x % 3 - 1, y % 4, &err);
      break;
    }
    default: sp_crowd_rethink(c, agent, &err); break;
    }
    /* whatever the calls did, a save of the crowd now would load: the
     * invariants a load checks (sp_save.h) hold */
    if (sp__crowd_check(c, &err) != SP_OK) {
      fprintf(stderr, "fuzz_crowd: after op %d: %s\n", op, err.message);
      abort();
    }
  }
  sp_crowd_free(c);
  sp_world_free(w);
  sp_grid_free(g);
  sp_domain_free(d);
  if (ta.live != 0) abort();
  return 0;
}
