/* fuzz_crowd.c: libFuzzer harness: two crowds in a world driven by a random sequence of calls, every event of the first checked against a model of each agent's state and every place against its capacity, beside a twin world on the other thread count that saves and loads itself and must do the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random_domain.h"
#include "saspu_agents.h"
#include "sp_save.h"
#include "sp_due.h"
#include "test_alloc.h"

/* Agents: three chunks of 64 and part of a fourth, so two threads share
 * a pass (with parallel_min 1). */
enum { MAX_AGENTS = 200, MAX_PLACES = 12 };

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
  uint8_t sensed[RD_MAX_VARIABLES]; /* set by a sensor as an update starts */
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
  /* a sensor's reading comes first in the update, and no step sets its
   * variable (sp_crowd_add_sensor refuses one that an action changes) */
  for (i = 0; i < m->agents; i++)
    for (int v = 0; v < m->nv; v++)
      if (m->sensed[v] && !m->dead[i]) m->state[i][v] = sp_crowd_state(c, i)[v];
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

/* A world the input drives: the grid, the world with its two place
 * kinds, and two crowds of the domain: c, checked against the model, and
 * c2, a second crowd whose agents c's agents may chase or sense and that
 * waits for the same places. The input drives two worlds built the same
 * way: A and its twin B, which now and then saves itself and loads the
 * save back. Every call must answer the same on both, and their events
 * and saves must be the same: a save and load changes nothing a world
 * does next, whatever the calls before it left pending (engine moves,
 * chases, despawned slots, bound places, waiting lines). */
typedef struct Twin {
  SpGrid *g;
  SpWorld *w;
  SpCrowd *c, *c2;
  int kinds[2];
} Twin;

#define CROWDS 2
static SpCrowd *crowd_of(const Twin *t, int k) { return k == 0 ? t->c : t->c2; }

static void twin_open(Twin *t, const SpDomain *d, const SpCrowdOptions *o,
                      int side, int selector, TestAlloc *ta) {
  SpError err;
  SpGridError gerr;
  SpCrowdOptions o2 = *o;
  o2.capacity = 8;
  if (sp_grid_new(side, side, 1.0, test_alloc_hook(ta), &t->g, &gerr) !=
          SP_OK ||
      sp_world_new(t->g, test_alloc_hook(ta), &t->w, &err) != SP_OK ||
      sp_world_kind(t->w, "spot", &t->kinds[0], &err) != SP_OK ||
      sp_world_kind(t->w, "well", &t->kinds[1], &err) != SP_OK ||
      sp_crowd_new(t->w, d, o, test_alloc_hook(ta), &t->c, &err) != SP_OK ||
      sp_crowd_new(t->w, d, &o2, test_alloc_hook(ta), &t->c2, &err) != SP_OK)
    abort();
  if (selector) sp_crowd_set_selector(t->c, 1);
}

static void twin_close(Twin *t) {
  sp_crowd_free(t->c); /* its sensors and chases read c2 */
  sp_crowd_free(t->c2);
  sp_world_free(t->w);
  sp_grid_free(t->g);
}

static void *twin_save(const Twin *t, size_t *len) {
  void *buf;
  SpError err;
  const SpCrowd *crowds[CROWDS] = {t->c, t->c2};
  if (sp_world_save(t->w, crowds, CROWDS, NULL, 0, &buf, len, &err) != SP_OK) {
    fprintf(stderr, "fuzz_crowd: save: %s\n", err.message);
    abort();
  }
  return buf;
}

/* Per crowd, the moves pending when the twin last loaded its save: its
 * next update tells them again first (SP_EVENT_REPEATED), as a game that
 * loads needs them; the world that did not load says the rest.
 * told_again counts them all: the twin's count of events is the world's
 * and these. */
static size_t repeated[CROWDS][MAX_AGENTS], repeats[CROWDS];
static uint64_t told_again[CROWDS];

/* Crowd k of the twins holds the same agents and counts, as the public
 * calls read them (where the twin told moves again, its saves differ
 * from the world's in the count of events said). */
static void crowds_alike(const Twin *ta, const Twin *tb, int k, int nv) {
  const SpCrowd *a = crowd_of(ta, k), *b = crowd_of(tb, k);
  SpCrowdStats sa, sb;
  sp_crowd_counters(a, &sa);
  sp_crowd_counters(b, &sb);
  if (sa.plans != sb.plans || sa.replans != sb.replans ||
      sa.no_plans != sb.no_plans || sa.steps_finished != sb.steps_finished ||
      sa.events + told_again[k] != sb.events)
    broken("the twin counts otherwise", (size_t)sb.events, k);
  if (sp_crowd_slots(a) != sp_crowd_slots(b))
    broken("the twin has other slots", sp_crowd_slots(b), k);
  for (size_t i = 0; i < sp_crowd_slots(a); i++) {
    SpAgentInfo ia, ib;
    uint16_t pa[RD_MAX_ACTIONS], pb[RD_MAX_ACTIONS]; /* action_count at most */
    int la = 0, lb = 0;
    memset(&ia, 0, sizeof ia);
    memset(&ib, 0, sizeof ib);
    if (sp_crowd_alive(a, i) != sp_crowd_alive(b, i) ||
        sp_crowd_generation(a, i) != sp_crowd_generation(b, i))
      broken("the twin's slot lives otherwise", i, k);
    if (!sp_crowd_alive(a, i)) continue;
    SpStatus sta = sp_crowd_inspect(a, i, &ia),
             stb = sp_crowd_inspect(b, i, &ib);
    if (sta != stb || memcmp(&ia, &ib, sizeof ia) != 0 ||
        memcmp(sp_crowd_state(a, i), sp_crowd_state(b, i), (size_t)nv) ||
        sp_crowd_move_pending(a, i) != sp_crowd_move_pending(b, i))
      broken("the twin's agent is otherwise", i, k);
    for (int g = 0; g < sp_crowd_goal_count(a); g++) {
      int own_a, own_b;
      if (sp_crowd_agent_priority(a, i, g, &own_a) !=
              sp_crowd_agent_priority(b, i, g, &own_b) ||
          own_a != own_b)
        broken("the twin's agent ranks a goal otherwise", i, g);
    }
    sta = sp_crowd_plan(a, i, pa, &la);
    stb = sp_crowd_plan(b, i, pb, &lb);
    if (sta != stb || la != lb ||
        (la > 0 && memcmp(pa, pb, (size_t)la * sizeof *pa) != 0))
      broken("the twin's agent has another plan", i, k);
  }
}

/* The twins hold the same agents, places and counts. */
static void twins_alike(const Twin *a, const Twin *b, int nv) {
  for (int k = 0; k < CROWDS; k++) crowds_alike(a, b, k, nv);
  for (size_t p = 0; p < sp_world_place_count(a->w); p++) {
    SpPlaceInfo qa, qb;
    if (sp_world_place(a->w, (uint32_t)p, &qa) != SP_OK ||
        sp_world_place(b->w, (uint32_t)p, &qb) != SP_OK ||
        qa.reserved != qb.reserved)
      broken("the twin's place holds otherwise", p, -1);
  }
}

/* B saves itself and loads the save back; the save must be A's, byte
 * for byte, until B tells moves again (then the worlds must look alike
 * through the public calls). */
static void twin_reload(const Twin *a, Twin *b, int nv) {
  size_t la, lb;
  void *sa = twin_save(a, &la), *sb = twin_save(b, &lb);
  int bytes_alike = told_again[0] == 0 && told_again[1] == 0;
  if (bytes_alike && (la != lb || memcmp(sa, sb, la) != 0))
    broken("the twin's save is not the world's", la, (int)lb);
  if (!bytes_alike) twins_alike(a, b, nv);
  SpError err;
  SpCrowd *crowds[CROWDS] = {b->c, b->c2};
  if (sp_world_load(b->w, crowds, CROWDS, sb, lb, NULL, NULL, &err) != SP_OK) {
    fprintf(stderr, "fuzz_crowd: a world's own save: %s\n", err.message);
    abort();
  }
  sp_world_save_free(a->w, sa, la);
  sp_world_save_free(b->w, sb, lb);
  for (int k = 0; k < CROWDS; k++) {
    const SpCrowd *c = crowd_of(b, k);
    repeats[k] = 0;
    for (size_t i = 0; i < sp_crowd_slots(c); i++)
      if (sp_crowd_move_pending(c, i)) repeated[k][repeats[k]++] = i;
  }
}

/* Prints an update's events (before a failure, to see where they part). */
static void print_events(const char *who, const SpCrowd *c) {
  const SpAgentEvent *e = sp_crowd_events(c);
  for (size_t k = 0; k < sp_crowd_event_count(c); k++)
    fprintf(stderr, "%s: agent %u %s/%s flags %d goal %d action %d detail %d\n",
            who, e[k].agent, sp_event_kind_name((SpEventKind)e[k].kind),
            sp_reason_name((SpReason)e[k].reason), e[k].flags, e[k].goal,
            e[k].action, (int)e[k].detail);
}

/* Crowd k of the twins said the same events in its last update, but for
 * the moves B tells again after a load. */
static void twins_said_the_same(const Twin *ta, const Twin *tb, int k) {
  const SpCrowd *a = crowd_of(ta, k), *b = crowd_of(tb, k);
  if (getenv("FUZZ_CROWD_EVENTS") != NULL) {
    print_events(k ? "world, crowd 2" : "world", a);
    print_events(k ? "twin, crowd 2" : "twin", b);
  }
  size_t n = sp_crowd_event_count(a), nb = sp_crowd_event_count(b);
  const SpAgentEvent *eb = sp_crowd_events(b);
  if (nb < repeats[k]) broken("the twin did not tell its moves again", nb, k);
  for (size_t e = 0; e < repeats[k]; e++)
    if (eb[e].kind != SP_EV_MOVE || !(eb[e].flags & SP_EVENT_REPEATED) ||
        eb[e].agent != repeated[k][e])
      broken("the twin told its pending moves otherwise", repeated[k][e], k);
  size_t told = repeats[k];
  told_again[k] += told, repeats[k] = 0;
  if (nb - told != n)
    broken("the twin said another number of events", n, (int)(nb - told));
  if (n > 0 && memcmp(sp_crowd_events(a), eb + told, n * sizeof(SpAgentEvent)))
    broken("the twin said other events", n, k);
}

static void twins_agree(SpStatus a, SpStatus b, int op) {
  if (a != b) broken("the twin answered a call otherwise", (size_t)op, (int)b);
}

/* Runs `call` (an expression of the Twin *t) on A, then on B: both must
 * answer the same; st holds A's answer. */
#define BOTH(st, call)                                                         \
  do {                                                                         \
    t = &A;                                                                    \
    st = (call);                                                               \
    t = &B;                                                                    \
    twins_agree(st, (call), op);                                               \
  } while (0)

/* Despawn of `agent` (maybe not a live one): refused exactly when the
 * model says it is not alive; the slot's generation and the crowd's
 * size follow the model. */
static SpStatus despawn(Model *m, SpCrowd *c, size_t agent) {
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
  return st;
}

/* Teleport: done exactly for a live agent and an open cell inside the
 * grid, and then the agent stands there; otherwise it did not move. */
static SpStatus teleport(const Model *m, SpCrowd *c, const SpGrid *g,
                         size_t agent, int x, int y) {
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
  return st;
}

/* A spawn in the first crowd of both twins: refused by both, or done by
 * both in the slot the model expects (the last freed first). */
static void spawn_both(Model *m, Twin *a, Twin *b, const SpValue *s, int x,
                       int y, uint32_t home) {
  SpError err;
  size_t agent, twin_agent;
  SpStatus st = sp_crowd_spawn(a->c, s, x, y, home, &agent, &err);
  twins_agree(st, sp_crowd_spawn(b->c, s, x, y, home, &twin_agent, &err), 0);
  if (st != SP_OK) return;
  size_t want =
      m->free_count > 0 ? m->free_slots[m->free_count - 1] : m->agents;
  if (agent != want) broken("a spawn out of order", agent, -1);
  if (twin_agent != agent) broken("the twin spawned elsewhere", agent, -1);
  if (m->free_count > 0)
    m->free_count--, m->dead[agent] = 0;
  else
    m->agents++;
  memcpy(m->state[agent], s, (size_t)m->nv);
}

/* A near query on both twins: A's answer checked against a scan, B's
 * the same as A's. */
static void near_both(const Twin *a, const Twin *b, int qx, int qy, int r,
                      size_t max) {
  const uint32_t *na, *nb;
  size_t fa, fb;
  SpError err;
  SpStatus st = sp_crowd_near(a->c, qx, qy, r, max, &na, &fa, &err);
  if (st == SP_OK)
    near_checked(a->c, qx, qy, r, max, na, fa);
  else if (r >= 0)
    broken("near refused a radius >= 0", 0, -1);
  twins_agree(st, sp_crowd_near(b->c, qx, qy, r, max, &nb, &fb, &err), 16);
  if (st == SP_OK && (fa != fb || (fa > 0 && memcmp(na, nb, fa * 4) != 0)))
    broken("the twin's near found other agents", fb, -1);
}

/* An action's behaviour from the bytes (the kinds are the same in both
 * twins): durations, a binding (some out of range), interruptible,
 * scripted, hooked. */
static SpActionBehaviour behaviour_of(const Twin *t, int x, int y, int z) {
  SpActionBehaviour b;
  memset(&b, 0, sizeof b);
  b.min_duration = (float)(y % 4) / 4.0f;
  b.max_duration = b.min_duration + (float)(z % 3) / 2.0f;
  b.bind = (SpBind)(z % 6);
  b.place = (uint32_t)(x % 5);
  b.kind = t->kinds[x & 1];
  b.interruptible = (y >> 4) & 1;
  b.scripted = (y >> 5) & 1;
  b.has_hook = (y >> 6) & 1;
  return b;
}

/* A sensor from the bytes: an agent of the crowd itself near, or a place
 * of one of the two kinds (kind 2: none such); values maybe out of
 * range, a variable an action may change (refusals change nothing). */
static SpSensor sensor_of(const Twin *t, int nv, int x, int y, int z) {
  SpSensor s;
  memset(&s, 0, sizeof s);
  s.var = x % (nv + 1);
  s.on = y % 3, s.off = (y >> 2) % 3;
  s.near = (z & 1) ? t->c : NULL;
  s.kind = (z & 1) ? -1 : (z >> 1) % 3 == 2 ? 5 : t->kinds[(z >> 1) % 3];
  s.r = (z >> 3) % 5 - (z == 255);
  s.period = (float)((z >> 5) % 4) / 4.0f;
  return s;
}

/* Byte 0-1: the domain's seed; byte 2: grid side, threads, selector; then
 * one call per four bytes (op, a, b, c), arguments partly out of range on
 * purpose (refusals must change nothing). An op byte under 238 names one
 * of the first 17 calls (its value modulo 17); one from 238 up, one of the
 * second group's 18. An update whose second byte has bit 0x40 first has
 * the twin save and load itself. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static RandomDomain rd;
  static Model m;
  static Twin A, B;
  Twin *t;
  SpDomain *d = NULL;
  SpError err;
  SpGridError gerr;
  SpCrowdOptions o;
  TestAlloc ta;
  SpValue s[RD_MAX_VARIABLES];
  int nv, na, side, v;
  SpStatus st;
  size_t at, agent, twin_agent;
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
  o.parallel_min = 1; /* with two threads, every pass shares its chunks */
  twin_open(&A, d, &o, side, (data[2] & 0x20) != 0, &ta);
  o.threads = 3 - o.threads; /* the twin on the other count: the same events */
  twin_open(&B, d, &o, side, (data[2] & 0x20) != 0, &ta);
  memset(&m, 0, sizeof m);
  memset(repeats, 0, sizeof repeats);
  memset(told_again, 0, sizeof told_again);
  m.d = d;
  m.nv = nv;
  for (at = 3; at + 4 <= size; at += 4) {
    int op = data[at] < 238 ? data[at] % 17 : 17 + (data[at] - 238) % 18,
        x = data[at + 1], y = data[at + 2], z = data[at + 3];
    int goals = sp_crowd_goal_count(A.c);
    size_t slots2 = sp_crowd_slots(A.c2), other = (size_t)y % (slots2 + 1);
    agent =
        m.agents ? (size_t)x % (m.agents + 1) : 0; /* sometimes one too far */
    switch (op) {
    case 0: /* spawn: values from the bytes, some out of range */
      for (v = 0; v < nv; v++)
        s[v] = (SpValue)((y + v * z) %
                         (sp_variable_value_count(d, v) + (z == 255)));
      spawn_both(&m, &A, &B, s, x % (side + 1), z % side,
                 (y & 1) ? (uint32_t)z % 4 : SP_NO_PLACE);
      break;
    case 13:
      st = despawn(&m, A.c, agent);
      twins_agree(st, sp_crowd_despawn(B.c, agent, &err), op);
      break;
    case 14:
      st = teleport(&m, A.c, A.g, agent, y % (side + 1), z % (side + 1));
      twins_agree(
          st,
          sp_crowd_teleport(B.c, agent, y % (side + 1), z % (side + 1), &err),
          op);
      break;
    case 15: /* answers to engine moves, pending or not; a chase of an
                agent of the crowd (maybe itself, maybe gone) */
      if ((z & 3) == 3)
        BOTH(st, sp_crowd_set_target_agent(
                     t->c, agent, t->c, (size_t)y % (m.agents + 1),
                     (size_t)y % (m.agents + 1) < MAX_AGENTS
                         ? m.gen[(size_t)y % (m.agents + 1)] + (uint32_t)(x & 1)
                         : 0,
                     z % 3 - (z == 255), &err));
      else if (z & 1)
        BOTH(st, sp_crowd_arrived(t->c, agent, &err));
      else
        BOTH(st, sp_crowd_move_failed(t->c, agent, y, &err));
      break;
    case 1:
    case 2: /* update */
      if (y & 0x40) twin_reload(&A, &B, nv);
      BOTH(st, sp_crowd_update(t->c, (float)(y % 8 + 1) / 8.0f, &err));
      if (st != SP_OK) abort(); /* only memory fails, and it never does here */
      check_events(&m, A.c);
      check_places(A.w);
      twins_said_the_same(&A, &B, 0);
      break;
    case 3: /* a world change */
      v = y % (nv + 1);
      BOTH(st, sp_crowd_set_var(t->c, agent, v, z % 6, &err));
      if (st == SP_OK) m.state[agent][v] = (SpValue)(z % 6);
      break;
    case 4: BOTH(st, sp_crowd_fail_step(t->c, agent, z, &err)); break;
    case 5: BOTH(st, sp_crowd_finish_step(t->c, agent, &err)); break;
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
      BOTH(st, sp_crowd_add_goal(t->c, s, z % 5 - 1, (x & 0x80) ? when : NULL,
                                 &index, &err));
      break;
    }
    case 7: { /* a place (capacities 0: unlimited .. 3) */
      uint32_t id;
      if (sp_world_place_count(A.w) < MAX_PLACES)
        BOTH(st, sp_world_add_place(t->w, t->kinds[x & 1] + (z == 255),
                                    y % (side + 1), z % side,
                                    x % 4 - (z == 254), &id, &err));
      break;
    }
    case 8: /* grid edits under the agents' feet */
      if (z & 1)
        BOTH(st, sp_grid_set_blocked(t->g, x % side, y % side, (z >> 1) & 1,
                                     &gerr));
      else
        BOTH(st,
             sp_grid_set_cost(t->g, x % side, y % side, 1.0 + z % 9, &gerr));
      break;
    case 9: { /* an action's behaviour */
      SpActionBehaviour b = behaviour_of(&A, x, y, z);
      BOTH(st, sp_crowd_set_action(t->c, x % (na + 1), &b, &err));
      break;
    }
    case 10:
      BOTH(st, sp_crowd_set_target(t->c, agent,
                                   (z & 1) ? (uint32_t)y % 5 : SP_NO_PLACE,
                                   y % (side + 1), z % side, &err));
      break;
    case 11:
      if (z & 1) {
        BOTH(st, sp_crowd_select_goal(t->c, agent,
                                      y % (sp_crowd_goal_count(t->c) + 2) - 1,
                                      &err));
      } else {
        for (v = 0; v < nv; v++)
          s[v] = (SpValue)((y + v) % sp_variable_value_count(d, v));
        BOTH(st, sp_crowd_set_state(t->c, agent, s, &err));
        if (st == SP_OK) memcpy(m.state[agent], s, (size_t)nv);
      }
      break;
    case 16: { /* perception and world facts: queries, no agent changed */
      static const char *const vals[] = {"quiet", "ringing", "loud"};
      near_both(&A, &B, x % (side + 2) - 1, y % (side + 2) - 1, z % 12 - 1,
                (size_t)(y % 4));
      if (sp_world_fact_count(A.w) == 0)
        BOTH(st, sp_world_add_fact(t->w, "alarm", vals, 2 + (y & 1), z % 4,
                                   NULL, &err));
      BOTH(st, sp_world_set_fact(t->w, x % 3 - 1, y % 4, &err));
      break;
    }
    /* the second group: goals' and agents' priorities, rechecks, goals
     * of several conditions, sensors, calls on several agents */
    case 17:
      BOTH(st, sp_crowd_set_priority(t->c, y % (goals + 1), z % 7 - 2, &err));
      break;
    case 18:
      BOTH(st, sp_crowd_set_agent_priority(t->c, agent, y % (goals + 1),
                                           z % 7 - 2, &err));
      break;
    case 19:
      BOTH(st,
           sp_crowd_clear_agent_priority(t->c, agent, y % (goals + 1), &err));
      break;
    case 20:
      BOTH(st, sp_crowd_set_recheck(t->c, y % (goals + 1), z % (goals + 2) - 1,
                                    &err));
      break;
    case 21: { /* a goal reached by any of 1..3 conditions */
      SpValue conds[3 * RD_MAX_VARIABLES];
      int count = 1 + z % 3;
      for (int k = 0; k < count; k++)
        for (v = 0; v < nv; v++)
          conds[k * nv + v] =
              ((y >> ((v + k) % 8)) & 1)
                  ? (SpValue)((x + k + v) %
                              (sp_variable_value_count(d, v) + (z == 255)))
                  : (SpValue)SP_ANY;
      BOTH(st, sp_crowd_set_goal_choices(t->c, y % (goals + 1), conds, count,
                                         &err));
      break;
    }
    case 22: {
      SpSensor sa = sensor_of(&A, nv, x, y, z), sb = sensor_of(&B, nv, x, y, z);
      st = sp_crowd_add_sensor(A.c, &sa, &err);
      twins_agree(st, sp_crowd_add_sensor(B.c, &sb, &err), op);
      if (st == SP_OK) m.sensed[sa.var] = 1;
      break;
    }
    case 23: { /* a world change to several agents (some twice, one too far) */
      size_t list[4];
      int count = 1 + y % 4;
      for (int k = 0; k < count; k++)
        list[k] = m.agents ? (size_t)(x + k * z) % (m.agents + 1) : 0;
      v = z % (nv + 1);
      BOTH(st,
           sp_crowd_set_var_many(t->c, list, (size_t)count, v, y % 6, &err));
      for (int k = 0; st == SP_OK && k < count; k++)
        m.state[list[k]][v] = (SpValue)(y % 6);
      break;
    }
    case 24: { /* several agents set on cells, in order, up to a refusal */
      uint32_t list[3];
      int32_t xs[3], ys[3];
      size_t done_a = 0, done_b = 0;
      int count = 1 + z % 3;
      for (int k = 0; k < count; k++) {
        list[k] = m.agents ? (uint32_t)((size_t)(x + k) % (m.agents + 1)) : 0;
        xs[k] = (y + k * z) % (side + 1), ys[k] = (z + k) % (side + 1);
      }
      st = sp_crowd_move_many(A.c, list, xs, ys, (size_t)count, &done_a, &err);
      twins_agree(
          st,
          sp_crowd_move_many(B.c, list, xs, ys, (size_t)count, &done_b, &err),
          op);
      if (st != SP_OK && done_a != done_b)
        broken("the twin moved another number of agents", done_b, (int)done_a);
      break;
    }
    case 25: /* a crowd arriving at once: up to 64 spawns in a row */
      for (int k = 0; k < 1 + z % 64; k++) {
        for (v = 0; v < nv; v++)
          s[v] = (SpValue)((y + v * z + k) % sp_variable_value_count(d, v));
        spawn_both(&m, &A, &B, s, (x + k) % side, (z + 3 * k) % side,
                   SP_NO_PLACE);
      }
      break;
    /* the second crowd: its agents, its updates, chased and sensed */
    case 26:
      for (v = 0; v < nv; v++)
        s[v] = (SpValue)((y + v * z) % sp_variable_value_count(d, v));
      st =
          sp_crowd_spawn(A.c2, s, x % side, z % side,
                         (y & 1) ? (uint32_t)z % 4 : SP_NO_PLACE, &agent, &err);
      twins_agree(st,
                  sp_crowd_spawn(B.c2, s, x % side, z % side,
                                 (y & 1) ? (uint32_t)z % 4 : SP_NO_PLACE,
                                 &twin_agent, &err),
                  op);
      if (st == SP_OK && twin_agent != agent)
        broken("the twin spawned elsewhere", agent, 1);
      break;
    case 27:
      BOTH(st, sp_crowd_update(t->c2, (float)(y % 8 + 1) / 8.0f, &err));
      if (st != SP_OK) abort(); /* only memory fails, and it never does here */
      twins_said_the_same(&A, &B, 1);
      break;
    case 28: /* a chase of an agent of the second crowd (maybe gone) */
      BOTH(st, sp_crowd_set_target_agent(
                   t->c, agent, t->c2, other,
                   other < slots2
                       ? sp_crowd_generation(A.c2, other) + (uint32_t)(x & 1)
                       : 0,
                   z % 3 - (z == 255), &err));
      break;
    case 29: {
      SpSensor sa = sensor_of(&A, nv, x, y, z), sb = sensor_of(&B, nv, x, y, z);
      sa.near = A.c2, sb.near = B.c2, sa.kind = sb.kind = -1;
      st = sp_crowd_add_sensor(A.c, &sa, &err);
      twins_agree(st, sp_crowd_add_sensor(B.c, &sb, &err), op);
      if (st == SP_OK) m.sensed[sa.var] = 1;
      break;
    }
    case 30: BOTH(st, sp_crowd_despawn(t->c2, other, &err)); break;
    case 31: { /* an action's behaviour in the second crowd */
      SpActionBehaviour b = behaviour_of(&A, x, y, z);
      BOTH(st, sp_crowd_set_action(t->c2, x % (na + 1), &b, &err));
      break;
    }
    case 32: /* a goal of the second crowd */
      for (v = 0; v < nv; v++)
        s[v] = ((y >> v) & 1)
                   ? (SpValue)((z + v) % sp_variable_value_count(d, v))
                   : (SpValue)SP_ANY;
      BOTH(st, sp_crowd_add_goal(t->c2, s, z % 5 - 1, NULL, NULL, &err));
      break;
    case 33: /* the game's answers and teleports in the second crowd */
      if (z & 2)
        BOTH(st, sp_crowd_teleport(t->c2, other, x % (side + 1), z % (side + 1),
                                   &err));
      else if (z & 1)
        BOTH(st, sp_crowd_arrived(t->c2, other, &err));
      else
        BOTH(st, sp_crowd_move_failed(t->c2, other, x, &err));
      break;
    case 34:
      BOTH(st, sp_crowd_set_var(t->c2, other, x % (nv + 1), z % 6, &err));
      break;
    default: BOTH(st, sp_crowd_rethink(t->c, agent, &err)); break;
    }
    /* whatever the calls did, a save of the crowd now would load: the
     * invariants a load checks (sp_save.h) hold */
    for (t = &A; t != NULL; t = t == &A ? &B : NULL)
      for (int k = 0; k < CROWDS; k++)
        if (sp__crowd_check(crowd_of(t, k), &err) != SP_OK) {
          fprintf(stderr, "fuzz_crowd: after op %d (%s, crowd %d): %s\n", op,
                  t == &A ? "the world" : "its twin", k + 1, err.message);
          abort();
        }
  }
  /* and at the end they look alike, and save the same bytes */
  twins_alike(&A, &B, nv);
  twin_reload(&A, &B, nv);
  twin_close(&A);
  twin_close(&B);
  sp_domain_free(d);
  if (ta.live != 0) abort();
  return 0;
}
