/* planner.c: TopoPlan, the linear-time planner for SAS-PU domains.
 *
 * A plan is the union of one chain per variable, ordered by prevails.
 * For a variable w the chain (its "timeline") is
 *   [loop]  the whole Cycle(w) from s0[w] back to s0[w], when a value on the
 *           cycle is requested and not on the way to the goal (sigma2), then
 *   [path]  the unique path s0[w] -> s*[w] (sigma1; with a loop: sigma3).
 * Timeline positions: 0 is s0[w]; 1..K are the loop's actions (K restores
 * s0[w]); K+1..K+L the path's. Every action in these chains is needed by
 * any plan, so the plan is minimal as soon as the chains can be ordered.
 *
 * Ordering. A requester of w = q with q at one position p must run after
 * the action at p and before the one at p+1. A requester of w = s0[w]
 * when w loops may run before the loop leaves s0[w] or after it comes
 * back: a choice. The scheduler (Kahn's algorithm) runs every other ready
 * action first and fires the first action of such a loop only when nothing
 * else can run; requesters still waiting then must wait for the restoring
 * action. Before firing it checks, by a search over the waiting actions,
 * that none of those requesters is itself needed before the restore. The
 * papers' rules for this choice (always after; or a precomputed path test
 * in the static action graph) miss orders that come from threats on
 * values no action sets; the regression tests keep those cases.
 */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"

enum { FLAG_EMITTED = 1, FLAG_HELD = 2 };

struct SpWorkspace {
  SpAllocator alloc;
  size_t size;
  const SpDomain *domain;
  uint32_t gen;
  int edge_capacity;

  /* per action; valid when stamp == gen */
  uint32_t *action_stamp;
  int32_t *indegree;
  int32_t *first_edge;
  int32_t *last_edge;
  uint8_t *flags;
  uint32_t *visit_stamp; /* for the safety search */

  /* per value: its index on the variable's path (1..L) */
  uint32_t *value_stamp;
  uint16_t *value_path_pos;

  /* per variable; valid when stamp == gen */
  uint32_t *var_stamp;
  uint16_t *var_loop;      /* K: cycle length when the variable loops */
  uint16_t *var_path_len;  /* L */
  uint32_t *var_path_base; /* into path_store */
  uint8_t *var_held;
  uint16_t *touched; /* variables with a timeline */
  int touched_count;

  uint16_t *chosen; /* the actions of the plan, in discovery order */
  int chosen_count;
  uint16_t *path_store;
  int path_used;
  uint16_t *queue;
  uint16_t *held; /* first actions of loops with start-value requesters */
  int held_count;
  uint16_t *stack;
  uint32_t visit_gen;
  uint32_t *prevail_decided; /* == gen: this start-value prevail is ordered */

  uint16_t *edge_from, *edge_to;
  uint8_t *edge_kind;
  int32_t *edge_next;
  int edge_count;
};

/* ---- workspace ---------------------------------------------------------- */

typedef struct Carve {
  char *base;
  size_t off;
} Carve;

static void *carve(Carve *c, size_t bytes) {
  void *p = c->base ? c->base + c->off : NULL;
  c->off += (bytes + 7u) & ~(size_t)7u;
  return p;
}

/* Lays out every array; with base NULL only measures. */
static size_t workspace_layout(SpWorkspace *ws, const SpDomain *d, char *base) {
  size_t na = (size_t)d->action_count + 1, nv = (size_t)d->value_count + 1;
  size_t nm = (size_t)d->variable_count + 1;
  size_t ne = (size_t)d->action_count + 3u * (size_t)d->prevail_count + 1;
  Carve c = {base, (sizeof(SpWorkspace) + 7u) & ~(size_t)7u};
  SpWorkspace tmp;
  if (ws == NULL) ws = &tmp;
  ws->action_stamp = carve(&c, na * sizeof(uint32_t));
  ws->indegree = carve(&c, na * sizeof(int32_t));
  ws->first_edge = carve(&c, na * sizeof(int32_t));
  ws->last_edge = carve(&c, na * sizeof(int32_t));
  ws->flags = carve(&c, na);
  ws->visit_stamp = carve(&c, na * sizeof(uint32_t));
  ws->value_stamp = carve(&c, nv * sizeof(uint32_t));
  ws->value_path_pos = carve(&c, nv * sizeof(uint16_t));
  ws->var_stamp = carve(&c, nm * sizeof(uint32_t));
  ws->var_loop = carve(&c, nm * sizeof(uint16_t));
  ws->var_path_len = carve(&c, nm * sizeof(uint16_t));
  ws->var_path_base = carve(&c, nm * sizeof(uint32_t));
  ws->var_held = carve(&c, nm);
  ws->touched = carve(&c, nm * sizeof(uint16_t));
  ws->chosen = carve(&c, na * sizeof(uint16_t));
  ws->path_store = carve(&c, na * sizeof(uint16_t));
  ws->queue = carve(&c, na * sizeof(uint16_t));
  ws->held = carve(&c, nm * sizeof(uint16_t));
  ws->stack = carve(&c, (na + ne) * sizeof(uint16_t));
  ws->prevail_decided =
      carve(&c, ((size_t)d->prevail_count + 1) * sizeof(uint32_t));
  ws->edge_from = carve(&c, ne * sizeof(uint16_t));
  ws->edge_to = carve(&c, ne * sizeof(uint16_t));
  ws->edge_kind = carve(&c, ne);
  ws->edge_next = carve(&c, ne * sizeof(int32_t));
  ws->edge_capacity = (int)ne;
  return c.off;
}

static void workspace_clear_stamps(SpWorkspace *ws) {
  const SpDomain *d = ws->domain;
  memset(ws->action_stamp, 0, (size_t)d->action_count * sizeof(uint32_t));
  memset(ws->visit_stamp, 0, (size_t)d->action_count * sizeof(uint32_t));
  memset(ws->value_stamp, 0, (size_t)d->value_count * sizeof(uint32_t));
  memset(ws->var_stamp, 0, (size_t)d->variable_count * sizeof(uint32_t));
  memset(ws->prevail_decided, 0, (size_t)d->prevail_count * sizeof(uint32_t));
  ws->gen = 0;
  ws->visit_gen = 0;
}

SpStatus sp_workspace_new(const SpDomain *d, SpAllocator alloc,
                          SpWorkspace **out, SpError *err) {
  sp_error_clear(err);
  *out = NULL;
  size_t size = workspace_layout(NULL, d, NULL);
  char *base = sp_mem_alloc(alloc, size);
  if (base == NULL) return sp_error_memory(err);
  SpWorkspace *ws = (SpWorkspace *)base;
  memset(ws, 0, sizeof *ws);
  workspace_layout(ws, d, base);
  ws->alloc = alloc;
  ws->size = size;
  ws->domain = d;
  workspace_clear_stamps(ws);
  *out = ws;
  return SP_OK;
}

void sp_workspace_free(SpWorkspace *ws) {
  if (ws == NULL) return;
  sp_mem_free(ws->alloc, ws, ws->size);
}

size_t sp_workspace_size_bytes(const SpWorkspace *ws) { return ws->size; }

int sp_workspace_order_count(const SpWorkspace *ws) { return ws->edge_count; }

SpOrder sp_workspace_order(const SpWorkspace *ws, int i) {
  SpOrder o = {ws->edge_from[i], ws->edge_to[i], ws->edge_kind[i]};
  return o;
}

/* ---- one planning call ----------------------------------------------------- */

/* Everything one call needs, read once from the domain. */
typedef struct Plan {
  const SpDomain *d;
  SpWorkspace *ws;
  const SpVarInfo *vars;
  const SpValueInfo *values;
  const SpActionInfo *actions;
  const SpPrevail *prevails;
  const uint16_t *requesters;
  const uint16_t *cycles;
  const SpValue *s0, *goal;
  uint32_t gen;
  SpFailure *failure;
} Plan;

static SpStatus fail(Plan *p, SpFailureCode code, int action, int other,
                     int var, int value) {
  if (p->failure) {
    p->failure->code = code;
    p->failure->action = action;
    p->failure->other_action = other;
    p->failure->variable = var;
    p->failure->value = value;
  }
  return SP_NO_PLAN;
}

static void touch_var(Plan *p, int w) {
  SpWorkspace *ws = p->ws;
  if (ws->var_stamp[w] == p->gen) return;
  ws->var_stamp[w] = p->gen;
  ws->var_loop[w] = 0;
  ws->var_path_len[w] = 0;
  ws->var_path_base[w] = 0;
  ws->var_held[w] = 0;
  ws->touched[ws->touched_count++] = (uint16_t)w;
}

static void choose(Plan *p, uint16_t a) {
  SpWorkspace *ws = p->ws;
  ws->action_stamp[a] = p->gen;
  ws->indegree[a] = 0;
  ws->first_edge[a] = -1;
  ws->last_edge[a] = -1;
  ws->flags[a] = 0;
  ws->chosen[ws->chosen_count++] = a;
}

static int is_chosen(const Plan *p, uint16_t a) {
  return p->ws->action_stamp[a] == p->gen;
}

/* The unique path s0[w] -> goal[w], found backwards through the setters
 * (post-uniqueness makes each step forced). */
static SpStatus build_path(Plan *p, int w) {
  SpWorkspace *ws = p->ws;
  const SpVarInfo *var = &p->vars[w];
  int s = p->s0[w], g = p->goal[w];
  int base = ws->path_used, len = 0;
  int cur = g;
  while (cur != s) {
    uint16_t a = p->values[var->value_base + (uint32_t)cur].setter;
    if (a == SP_NONE16) return fail(p, SP_FAIL_NO_SETTER, -1, -1, w, cur);
    if (is_chosen(p, a)) /* went round a cycle that misses s0[w] */
      return fail(p, SP_FAIL_UNREACHABLE, -1, -1, w, g);
    ws->action_stamp[a] = p->gen;
    ws->path_store[base + len++] = a;
    cur = p->actions[a].pre;
  }
  for (int i = 0, j = len - 1; i < j; i++, j--) {
    uint16_t t = ws->path_store[base + i];
    ws->path_store[base + i] = ws->path_store[base + j];
    ws->path_store[base + j] = t;
  }
  touch_var(p, w);
  ws->var_path_base[w] = (uint32_t)base;
  ws->var_path_len[w] = (uint16_t)len;
  ws->path_used += len;
  for (int i = 0; i < len; i++) {
    uint16_t a = ws->path_store[base + i];
    choose(p, a);
    uint32_t vi = var->value_base + p->actions[a].post;
    ws->value_stamp[vi] = p->gen;
    ws->value_path_pos[vi] = (uint16_t)(i + 1);
  }
  return SP_OK;
}

static const SpValueInfo *start_value(const Plan *p, int w) {
  return &p->values[p->vars[w].value_base + p->s0[w]];
}

/* The j-th action (1..K) of w's loop round the cycle through s0[w]: the
 * K-th restores s0[w]. */
static uint16_t loop_action(const Plan *p, int w, int j) {
  const SpValueInfo *v0 = start_value(p, w);
  int k = v0->cycle_length, first = v0->cycle_first;
  int step = (v0->cycle_pos - first + j) % k;
  return p->cycles[p->vars[w].cycle_base + (uint32_t)(first + step)];
}

/* Is value vi on the cycle through s0[w]? */
static int on_start_cycle(const Plan *p, int w, uint32_t vi) {
  const SpValueInfo *v0 = start_value(p, w);
  return v0->cycle_pos != SP_NONE16 && p->values[vi].cycle_first == v0->cycle_first;
}

/* The action at timeline position t (1..K+L) of w. */
static uint16_t timeline_action(const Plan *p, int w, int t) {
  const SpWorkspace *ws = p->ws;
  int k = ws->var_loop[w];
  if (t <= k) return loop_action(p, w, t);
  return ws->path_store[ws->var_path_base[w] + (uint32_t)(t - k - 1)];
}

/* Adds the whole cycle of w to the plan, from s0[w] back to s0[w]. */
static SpStatus add_loop(Plan *p, int w, int requester, int value) {
  int k = start_value(p, w)->cycle_length;
  for (int j = 1; j <= k; j++) {
    uint16_t a = loop_action(p, w, j);
    if (is_chosen(p, a))
      return fail(p, SP_FAIL_REPEAT, a, requester, w, value);
  }
  for (int j = 1; j <= k; j++) choose(p, loop_action(p, w, j));
  touch_var(p, w);
  p->ws->var_loop[w] = (uint16_t)k;
  return SP_OK;
}

/* Closure: every prevail of every chosen action must lie on the timeline
 * of its variable; the only way to add a value is w's loop. */
static SpStatus close_over_prevails(Plan *p) {
  SpWorkspace *ws = p->ws;
  for (int i = 0; i < ws->chosen_count; i++) {
    uint16_t a = ws->chosen[i];
    const SpActionInfo *act = &p->actions[a];
    for (uint32_t k = 0; k < act->prevail_count; k++) {
      const SpPrevail *c = &p->prevails[act->prevail_base + k];
      int w = c->variable, q = c->value;
      if (q == p->s0[w] || ws->value_stamp[c->value_index] == p->gen) continue;
      int on_cycle = on_start_cycle(p, w, c->value_index);
      int looping = ws->var_stamp[w] == p->gen && ws->var_loop[w] > 0;
      if (looping && on_cycle) continue;
      if (looping || !on_cycle) {
        if (p->values[c->value_index].setter == SP_NONE16)
          return fail(p, SP_FAIL_NO_SETTER, a, -1, w, q);
        return fail(p, SP_FAIL_UNREACHABLE, a, -1, w, q);
      }
      SpStatus st = add_loop(p, w, a, q);
      if (st != SP_OK) return st;
    }
  }
  return SP_OK;
}

static void add_edge(Plan *p, uint16_t from, uint16_t to, SpOrderKind kind) {
  SpWorkspace *ws = p->ws;
  int e = ws->edge_count++;
  ws->edge_from[e] = from;
  ws->edge_to[e] = to;
  ws->edge_kind[e] = (uint8_t)kind;
  /* appended, so successors are released in the order they were found:
   * ties in the plan follow declaration order */
  ws->edge_next[e] = -1;
  if (ws->last_edge[from] < 0)
    ws->first_edge[from] = e;
  else
    ws->edge_next[ws->last_edge[from]] = e;
  ws->last_edge[from] = e;
  ws->indegree[to]++;
}

static void build_orders(Plan *p) {
  SpWorkspace *ws = p->ws;
  for (int i = 0; i < ws->touched_count; i++) {
    int w = ws->touched[i];
    int t_end = ws->var_loop[w] + ws->var_path_len[w];
    for (int t = 1; t < t_end; t++)
      add_edge(p, timeline_action(p, w, t), timeline_action(p, w, t + 1),
               SP_ORDER_PRE);
  }
  for (int i = 0; i < ws->chosen_count; i++) {
    uint16_t a = ws->chosen[i];
    const SpActionInfo *act = &p->actions[a];
    for (uint32_t k = 0; k < act->prevail_count; k++) {
      const SpPrevail *c = &p->prevails[act->prevail_base + k];
      int w = c->variable;
      if (ws->var_stamp[w] != p->gen) continue; /* w never changes */
      int loop = ws->var_loop[w];
      int t_end = loop + ws->var_path_len[w];
      int pos;
      if (c->value == p->s0[w]) {
        if (loop > 0) {
          ws->var_held[w] = 1; /* before the loop or after it: a choice */
          pos = loop;
        } else {
          pos = 0;
        }
      } else if (ws->value_stamp[c->value_index] == p->gen) {
        pos = loop + ws->value_path_pos[c->value_index];
      } else {
        int c0 = start_value(p, w)->cycle_pos;
        pos = (p->values[c->value_index].cycle_pos - c0 + loop) % loop;
      }
      if (pos > 0 && !(c->value == p->s0[w]))
        add_edge(p, timeline_action(p, w, pos), a, SP_ORDER_PREVAIL);
      if (pos < t_end)
        add_edge(p, a, timeline_action(p, w, pos + 1), SP_ORDER_THREAT);
    }
  }
  ws->held_count = 0;
  for (int i = 0; i < ws->touched_count; i++) {
    int w = ws->touched[i];
    if (!ws->var_held[w]) continue;
    uint16_t first = loop_action(p, w, 1);
    ws->flags[first] |= FLAG_HELD;
    ws->held[ws->held_count++] = first;
  }
}

/* ---- scheduling ------------------------------------------------------------ */

typedef struct Schedule {
  uint16_t *out;
  int emitted;
  int head, tail;
} Schedule;

/* The global index of b's prevail on w (b has exactly one). */
static uint32_t prevail_on(const Plan *p, uint16_t b, int w) {
  const SpActionInfo *act = &p->actions[b];
  uint32_t k = act->prevail_base;
  while (p->prevails[k].variable != w) k++;
  return k;
}

/* Next requester of s0[w] at or after list index i that is in the plan,
 * not yet emitted, and not yet ordered against w's loop; -1 if none. */
static int undecided_requester(const Plan *p, int w, uint32_t i) {
  const SpWorkspace *ws = p->ws;
  const SpValueInfo *v0 = start_value(p, w);
  uint32_t end = v0->requester_base + v0->requester_count;
  if (i < v0->requester_base) i = v0->requester_base;
  for (; i < end; i++) {
    uint16_t b = p->requesters[i];
    if (is_chosen(p, b) && !(ws->flags[b] & FLAG_EMITTED) &&
        ws->prevail_decided[prevail_on(p, b, w)] != p->gen)
      return (int)i;
  }
  return -1;
}

#define EACH_UNDECIDED(i, p, w)                                              \
  for (int i = undecided_requester(p, w, 0); i >= 0;                        \
       i = undecided_requester(p, w, (uint32_t)i + 1))

static void decide(Plan *p, uint16_t b, int w) {
  p->ws->prevail_decided[prevail_on(p, b, w)] = p->gen;
}

static void emit(Plan *p, Schedule *s, uint16_t a) {
  SpWorkspace *ws = p->ws;
  s->out[s->emitted++] = a;
  ws->flags[a] |= FLAG_EMITTED;
  if (ws->flags[a] & FLAG_HELD) {
    /* w leaves its start value: requesters still waiting for it now need
     * the loop to restore it. Done before releasing a's successors, so
     * none of them is queued on the strength of the value just left. */
    int w = p->actions[a].variable;
    uint16_t restore = loop_action(p, w, ws->var_loop[w]);
    EACH_UNDECIDED(i, p, w) {
      add_edge(p, restore, p->requesters[i], SP_ORDER_RESTORE);
      decide(p, p->requesters[i], w);
    }
  }
  for (int e = ws->first_edge[a]; e >= 0; e = ws->edge_next[e]) {
    uint16_t to = ws->edge_to[e];
    if (--ws->indegree[to] == 0 && !(ws->flags[to] & FLAG_HELD))
      ws->queue[s->tail++] = to;
  }
}

/* Can `b` reach `target` through actions not yet emitted? */
static int reaches(Plan *p, uint16_t b, uint16_t target) {
  SpWorkspace *ws = p->ws;
  uint32_t mark = ++ws->visit_gen;
  int top = 0;
  ws->stack[top++] = b;
  ws->visit_stamp[b] = mark;
  while (top > 0) {
    uint16_t x = ws->stack[--top];
    if (x == target) return 1;
    for (int e = ws->first_edge[x]; e >= 0; e = ws->edge_next[e]) {
      uint16_t y = ws->edge_to[e];
      if (ws->visit_stamp[y] == mark || (ws->flags[y] & FLAG_EMITTED)) continue;
      ws->visit_stamp[y] = mark;
      ws->stack[top++] = y;
    }
  }
  return 0;
}

/* Orders every requester whose side of w's loop the orders so far already
 * force: after the restore when the loop's first action must precede it,
 * before that first action when it must precede the restore. Repeats
 * until nothing changes, since each new order can force others. Returns
 * SP_NO_PLAN when a requester is forced to both sides. */
static SpStatus propagate(Plan *p) {
  SpWorkspace *ws = p->ws;
  int changed = 1;
  while (changed) {
    changed = 0;
    for (int h = 0; h < ws->held_count; h++) {
      uint16_t first = ws->held[h];
      if (ws->flags[first] & FLAG_EMITTED) continue;
      int w = p->actions[first].variable;
      uint16_t restore = loop_action(p, w, ws->var_loop[w]);
      EACH_UNDECIDED(i, p, w) {
        uint16_t b = p->requesters[i];
        int late = reaches(p, first, b), early = reaches(p, b, restore);
        if (late && early)
          return fail(p, SP_FAIL_ORDER, b, first, w, p->s0[w]);
        if (!late && !early) continue;
        if (late)
          add_edge(p, restore, b, SP_ORDER_RESTORE);
        else
          add_edge(p, b, first, SP_ORDER_THREAT);
        decide(p, b, w);
        changed = 1;
      }
    }
  }
  return SP_OK;
}

/* Picks the held first action to fire when nothing else can run: one
 * whose requesters are all ordered already if any (no choice is made),
 * else the first ready one (its waiting requesters go after the loop). */
static int pick_held(Plan *p) {
  SpWorkspace *ws = p->ws;
  int fallback = -1;
  for (int i = 0; i < ws->held_count; i++) {
    uint16_t f = ws->held[i];
    if ((ws->flags[f] & FLAG_EMITTED) || ws->indegree[f] != 0) continue;
    if (undecided_requester(p, p->actions[f].variable, 0) < 0) return f;
    if (fallback < 0) fallback = f;
  }
  return fallback;
}

/* Names two actions of an ordering cycle among those left. */
static SpStatus fail_order(Plan *p) {
  SpWorkspace *ws = p->ws;
  for (int i = 0; i < ws->chosen_count; i++) {
    uint16_t a = ws->chosen[i];
    if (ws->flags[a] & FLAG_EMITTED) continue;
    for (int e = 0; e < ws->edge_count; e++)
      if (ws->edge_to[e] == a && !(ws->flags[ws->edge_from[e]] & FLAG_EMITTED))
        return fail(p, SP_FAIL_ORDER, a, ws->edge_from[e],
                    p->actions[a].variable, -1);
    return fail(p, SP_FAIL_ORDER, a, -1, p->actions[a].variable, -1);
  }
  return fail(p, SP_FAIL_ORDER, -1, -1, -1, -1);
}

static SpStatus schedule(Plan *p, uint16_t *out) {
  SpWorkspace *ws = p->ws;
  Schedule s = {out, 0, 0, 0};
  for (int i = 0; i < ws->chosen_count; i++) {
    uint16_t a = ws->chosen[i];
    if (ws->indegree[a] == 0 && !(ws->flags[a] & FLAG_HELD))
      ws->queue[s.tail++] = a;
  }
  while (s.emitted < ws->chosen_count) {
    while (s.head < s.tail) emit(p, &s, ws->queue[s.head++]);
    if (s.emitted == ws->chosen_count) break;
    SpStatus st = propagate(p);
    if (st != SP_OK) return st;
    int f = pick_held(p);
    if (f < 0) return fail_order(p);
    emit(p, &s, (uint16_t)f);
  }
  return SP_OK;
}

/* ---- entry point ------------------------------------------------------------ */

static SpStatus check_states(Plan *p) {
  const SpDomain *d = p->d;
  for (int v = 0; v < d->variable_count; v++) {
    int bad = p->s0[v] >= p->vars[v].value_count ? p->s0[v]
              : p->goal[v] >= p->vars[v].value_count ? p->goal[v] : -1;
    if (bad >= 0) {
      if (p->failure) {
        p->failure->code = SP_FAIL_NONE;
        p->failure->action = p->failure->other_action = -1;
        p->failure->variable = v;
        p->failure->value = bad;
      }
      return SP_ERR_STATE;
    }
  }
  return SP_OK;
}

SpStatus sp_plan(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                 const SpValue *goal, uint16_t *plan, int *len,
                 SpFailure *failure) {
  Plan p = {d, ws, sp_vars(d), sp_values(d), sp_actions(d), sp_prevails(d),
            sp_requesters(d), sp_cycles(d), s0, goal, 0, failure};
  *len = 0;
  if (failure) failure->code = SP_FAIL_NONE;
  SpStatus st = check_states(&p);
  if (st != SP_OK) return st;
  if (++ws->gen == 0) { /* stamps wrapped: start afresh */
    workspace_clear_stamps(ws);
    ws->gen = 1;
  }
  p.gen = ws->gen;
  ws->touched_count = ws->chosen_count = ws->path_used = 0;
  ws->edge_count = ws->held_count = 0;

  for (int w = 0; w < d->variable_count; w++) {
    if (s0[w] == goal[w]) continue;
    st = build_path(&p, w);
    if (st != SP_OK) return st;
  }
  if (ws->chosen_count == 0) return SP_OK;
  st = close_over_prevails(&p);
  if (st != SP_OK) return st;
  build_orders(&p);
  st = schedule(&p, plan);
  if (st != SP_OK) return st;
  *len = ws->chosen_count;
  return SP_OK;
}
