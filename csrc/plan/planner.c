/* planner.c: TopoPlan, the linear-time planner for SAS-PU domains.
 *
 * A plan is the union of one chain per variable, ordered by prevails.
 * For a variable w the chain (its "timeline") is
 *   [loop]  the whole Cycle(w) from s0[w] back to s0[w], when a value on the
 *           cycle is requested and not on the way to the goal (sigma2), then
 *   [path]  the unique path s0[w] -> s*[w] (sigma1; with a loop: sigma3).
 * Every action in these chains is needed by any plan, so the plan is
 * minimal as soon as the chains can be ordered.
 *
 * Ordering. A requester of w = q must run after the action setting q and
 * before the next action of w's timeline. A requester of w = s0[w] when
 * w loops may run before the loop leaves s0[w] or after it comes back: a
 * choice. The scheduler (Kahn's algorithm) runs every other ready action
 * first and fires the first action of such a loop only when nothing else
 * can run; requesters still waiting then must wait for the restoring
 * action. Before firing it checks, by a search over the waiting actions,
 * that none of those requesters is itself needed before the restore. The
 * papers' rules for this choice (always after; or a precomputed path test
 * in the static action graph) miss orders that come from threats on
 * values no action sets; the regression tests keep those cases.
 *
 * Representation. A timeline is a list linked through its actions
 * (`next`); its orders are not stored, and a loop goes in front of a path
 * by relinking. Only prevail orders are stored, as edges appended to the
 * list of their first action, so ties are released in the order the
 * orders were found. An order found before a loop is added stays right
 * (the action after the restore is the path's first, which requesters of
 * s0[w] already preceded), so the closure over prevails and the orders
 * are built in one pass. The plans and the orders listed for debugging
 * are those of the straightforward construction: timelines first, then
 * prevails in discovery order.
 *
 * Goals with free variables (SP_ANY) leave the hot path when the range
 * check meets the byte 0xFF and go to partial.c, which runs this file's
 * closure pass (sp__plan_closure: a free variable's timeline only grows to
 * cover the values its requesters ask for) and then plans a total goal.
 */
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_partial.h"
#include "sp_workspace.h"

/* The hot steps are small functions with one caller each: HOT inlines
 * them, COLD keeps failure paths and rare cases out of the way. */
#if defined(__GNUC__)
#define HOT  static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline, cold))
#else
#define HOT  static inline
#define COLD static
#endif

/* ---- one planning call ----------------------------------------------------- */

/* Everything one call needs, read once from the domain. */
typedef struct Plan {
  const SpDomain *d;
  SpWorkspace *ws;
  const SpVarInfo *vars;
  const SpValueInfo *values;
  const SpActionInfo *actions;
  const SpPrevail *prevails;
  const SpValue *s0, *goal;
  uint32_t gen;
  SpFailure *failure;
  /* closure pass only: the goal asked for (SP_ANY: free), and the goal
   * being built (free variables: where their timelines end so far) */
  const SpValue *wanted;
  SpValue *ends;
} Plan;

COLD SpStatus fail(Plan *p, SpFailureCode code, int action, int other, int var,
                   int value) {
  if (p->failure) {
    p->failure->code = code;
    p->failure->action = action;
    p->failure->other_action = other;
    p->failure->variable = var;
    p->failure->value = value;
    p->failure->free_variable = 0;
  }
  return SP_NO_PLAN;
}

static int is_chosen(const Plan *p, uint16_t a) {
  return p->ws->act[a].stamp == p->gen;
}

/* Makes `a` part of the plan, with `preds` timeline predecessors (0 or 1)
 * and no stored orders yet. Its flags are cleared by the schedulers that
 * use them. */
HOT void choose(ActScratch *act, uint32_t gen, uint16_t a, uint16_t next,
                int preds) {
  ActScratch *x = &act[a];
  x->stamp = gen;
  x->indegree = preds;
  x->first_edge = -1;
  x->last_edge = -1;
  x->next = next;
}

static void touch_var(Plan *p, int w, uint16_t first, uint16_t flags) {
  SpWorkspace *ws = p->ws;
  VarScratch *vs = &ws->var[w];
  vs->stamp = p->gen;
  vs->first = first;
  vs->flags = flags;
  ws->touched[ws->touched_count++] = (uint16_t)w;
}

static const SpValueInfo *start_value(const Plan *p, int w) {
  return &p->values[p->vars[w].value_base + p->s0[w]];
}

/* Phase 1: for each listed variable w (in `touched`, in declaration
 * order) the unique path s0[w] -> goal[w], found backwards through the
 * setters (post-uniqueness makes each step forced). Each path is linked
 * as it is found, then put in forward order in the chosen list. Variables
 * are listed first, and paths built after, because that is faster than
 * building each path as soon as its variable is found. */
HOT SpStatus build_paths(Plan *p, int count) {
  SpWorkspace *ws = p->ws;
  ActScratch *act = ws->act;
  VarScratch *var = ws->var;
  uint16_t *chosen = ws->chosen;
  const uint16_t *list = ws->touched;
  const uint32_t gen = p->gen;
  int n = 0;
  for (int k = 0; k < count; k++) {
    int w = list[k];
    uint32_t vb = p->vars[w].value_base;
    const SpValueInfo *values = p->values + vb;
    int s = p->s0[w], cur = p->goal[w], base = n;
    uint16_t next = SP_NONE16;
    do {
      uint16_t a = values[cur].setter;
      if (a == SP_NONE16) return fail(p, SP_FAIL_NO_SETTER, -1, -1, w, cur);
      if (act[a].stamp == gen) /* went round a cycle that misses s0[w] */
        return fail(p, SP_FAIL_UNREACHABLE, -1, -1, w, p->goal[w]);
      cur = p->actions[a].pre;
      choose(act, gen, a, next, cur != s);
      chosen[n++] = a;
      next = a;
    } while (cur != s);
    var[w].stamp = gen;
    var[w].first = next;
    var[w].flags = 0;
    for (int i = base, j = n - 1; i < j; i++, j--) {
      uint16_t t = chosen[i];
      chosen[i] = chosen[j];
      chosen[j] = t;
    }
  }
  ws->chosen_count = n;
  ws->touched_count = count;
  return SP_OK;
}

/* Adds the whole cycle through s0[w] to the plan, from s0[w] back to
 * s0[w], in front of w's timeline. The orders already stored stay right:
 * the action after the restore is the path's first, as it was the first
 * of the timeline. Chosen requesters of s0[w] make the loop held. */
COLD SpStatus add_loop(Plan *p, int w, int requester, int value) {
  SpWorkspace *ws = p->ws;
  ActScratch *act = ws->act;
  const SpValueInfo *v0 = start_value(p, w);
  const uint16_t *cycle =
      sp_cycles(p->d) + p->vars[w].cycle_base + v0->cycle_first;
  /* the loop starts after the action that sets s0[w]; it is written
   * past the chosen list and counted in only if it is new */
  int k = v0->cycle_length, start = v0->cycle_pos - v0->cycle_first + 1;
  uint16_t *loop = ws->chosen + ws->chosen_count;
  for (int j = 0, i = start == k ? 0 : start; j < k; j++) {
    if (is_chosen(p, cycle[i]))
      return fail(p, SP_FAIL_REPEAT, cycle[i], requester, w, value);
    loop[j] = cycle[i];
    if (++i == k) i = 0;
  }
  VarScratch *vs = &ws->var[w];
  int touched = vs->stamp == p->gen;
  uint16_t rest = touched ? vs->first : SP_NONE16;
  for (int j = 0; j < k; j++)
    choose(act, p->gen, loop[j], j + 1 < k ? loop[j + 1] : rest, j > 0);
  if (rest != SP_NONE16) act[rest].indegree++;
  ws->chosen_count += k;
  if (touched) {
    vs->first = loop[0];
    vs->flags |= VAR_LOOP;
  } else {
    touch_var(p, w, loop[0], VAR_LOOP);
  }
  const uint16_t *req = sp_requesters(p->d) + v0->requester_base;
  for (uint32_t i = 0; i < v0->requester_count; i++)
    if (is_chosen(p, req[i])) {
      vs->flags |= VAR_HELD;
      ws->held_count++;
      break;
    }
  return SP_OK;
}

/* Closure pass, w free, its timeline a path from s0[w] along the cycle
 * through s0[w]: completes the loop, so the timeline ends back at s0[w]
 * (a value branching off there comes next). Returns 0 when the timeline
 * is not such a path. */
COLD int close_loop(Plan *p, int w) {
  SpWorkspace *ws = p->ws;
  const SpValueInfo *v0 = start_value(p, w);
  const SpValueInfo *end = &p->values[p->vars[w].value_base + p->ends[w]];
  if ((ws->var[w].flags & VAR_LOOP) || v0->cycle_pos == SP_NONE16 ||
      end->cycle_pos == SP_NONE16 || end->cycle_first != v0->cycle_first)
    return 0;
  const uint16_t *cycle =
      sp_cycles(p->d) + p->vars[w].cycle_base + v0->cycle_first;
  int k = v0->cycle_length, i = v0->cycle_pos - v0->cycle_first + 1;
  uint16_t prev = SP_NONE16;
  for (int j = 0; j < k; j++, i++) {
    uint16_t a = cycle[i % k];
    if (!is_chosen(p, a)) { /* the path is the loop's first actions */
      choose(ws->act, p->gen, a, SP_NONE16, 1);
      ws->chosen[ws->chosen_count++] = a;
    }
    if (prev != SP_NONE16) ws->act[prev].next = a;
    prev = a;
  }
  ws->var[w].flags |= VAR_LOOP;
  p->ends[w] = (SpValue)p->s0[w];
  return 1;
}

/* Closure pass, w free: when q lies past the end of w's timeline (the
 * backward path from q meets that end before anything already chosen),
 * appends the path end -> q, so the timeline stays the shortest walk
 * from s0[w] through every value asked of w so far. Returns -1 when q is
 * elsewhere (then only w's loop can add it). */
COLD int extend_free(Plan *p, const SpPrevail *c) {
  SpWorkspace *ws = p->ws;
  int w = c->variable, s = p->s0[w], e = p->ends[w], n = 0, cur = c->value;
  const SpValueInfo *values = p->values + p->vars[w].value_base;
  uint16_t *path = ws->stack; /* backwards, then flipped */
  while (cur != e) {
    uint16_t x = values[cur].setter;
    if (x == SP_NONE16 || is_chosen(p, x) || n == p->vars[w].value_count)
      return -1;
    path[n++] = x;
    cur = p->actions[x].pre;
    if (cur == s && e != s) { /* q branches off at s0, beside the timeline */
      if (!close_loop(p, w)) return -1;
      e = s;
    }
  }
  for (int i = 0, j = n - 1; i < j; i++, j--) {
    uint16_t t = path[i];
    path[i] = path[j];
    path[j] = t;
  }
  /* the timeline's last action sets e: its path's end, or the restore */
  uint16_t last = ws->var[w].stamp == p->gen ? values[e].setter : SP_NONE16;
  for (int j = 0; j < n; j++) {
    choose(ws->act, p->gen, path[j], j + 1 < n ? path[j + 1] : SP_NONE16,
           j > 0 || last != SP_NONE16);
    ws->chosen[ws->chosen_count + j] = path[j];
  }
  if (last != SP_NONE16)
    ws->act[last].next = path[0];
  else
    touch_var(p, w, path[0], 0);
  ws->chosen_count += n;
  p->ends[w] = c->value;
  return SP_OK;
}

/* A prevail w = q of `a` lies on no timeline: the loop of w is the only
 * way to add it (or, for a free w in the closure pass, going further). */
COLD SpStatus add_missing(Plan *p, uint16_t a, const SpPrevail *c) {
  int w = c->variable, q = c->value;
  if (p->wanted != NULL && p->wanted[w] == SP_ANY) {
    int st = extend_free(p, c);
    if (st >= 0) return (SpStatus)st;
  }
  const SpValueInfo *v0 = start_value(p, w);
  const VarScratch *vs = &p->ws->var[w];
  int looping = vs->stamp == p->gen && (vs->flags & VAR_LOOP);
  int on_cycle = v0->cycle_pos != SP_NONE16 &&
                 p->values[c->value_index].cycle_first == v0->cycle_first;
  if (looping || !on_cycle) { /* a loop puts every cycle value on it */
    if (p->values[c->value_index].setter == SP_NONE16)
      return fail(p, SP_FAIL_NO_SETTER, a, -1, w, q);
    return fail(p, SP_FAIL_UNREACHABLE, a, -1, w, q);
  }
  return add_loop(p, w, a, q);
}

/* The stored orders, with their count kept in a register while the
 * ordering pass runs. */
typedef struct Edges {
  ActScratch *act;
  Edge *edge;
  int count;
} Edges;

HOT void add_edge(Edges *E, uint16_t from, uint16_t to, SpOrderKind kind) {
  int e = E->count++;
  Edge *x = &E->edge[e];
  x->next = -1;
  x->from = from;
  x->to = to;
  x->kind = (uint16_t)kind;
  /* appended, so successors are released in the order they were found:
   * ties in the plan follow declaration order */
  ActScratch *f = &E->act[from];
  if (f->last_edge < 0)
    f->first_edge = e;
  else
    E->edge[f->last_edge].next = e;
  f->last_edge = e;
  E->act[to].indegree++;
}

/* The same, outside the ordering pass. */
static void store_edge(Plan *p, uint16_t from, uint16_t to, SpOrderKind kind) {
  Edges E = {p->ws->act, p->ws->edge, p->ws->edge_count};
  add_edge(&E, from, to, kind);
  p->ws->edge_count = E.count;
}

/* Closure and orders in one pass over the chosen actions (which loops
 * extend as it goes). Every prevail w = q must lie on w's timeline, the
 * only way to add a value being w's loop; its requester goes after the
 * action setting q and before the next one on the timeline. A requester
 * of s0[w] when w loops is ordered before the path only: its side of the
 * loop is left to the scheduler. */
HOT SpStatus order_prevails(Plan *p) {
  SpWorkspace *ws = p->ws;
  ActScratch *act = ws->act;
  VarScratch *var = ws->var;
  const uint32_t gen = p->gen;
  Edges E = {act, ws->edge, 0};
  int n = ws->chosen_count;
  for (int i = 0; i < n; i++) {
    uint16_t a = ws->chosen[i];
    const SpActionInfo *ai = &p->actions[a];
    const SpPrevail *c = &p->prevails[ai->prevail_base];
    const SpPrevail *end = c + ai->prevail_count;
    for (; c < end; c++) {
      int w = c->variable;
      uint16_t after;
      if (c->value == p->s0[w]) {
        VarScratch *vs = &var[w];
        if (vs->stamp != gen) continue; /* w never changes */
        if (vs->flags & VAR_LOOP) {
          if (!(vs->flags & VAR_HELD)) ws->held_count++;
          vs->flags |= VAR_HELD; /* before the loop or after it */
          after = act[start_value(p, w)->setter].next;
        } else {
          after = vs->first;
        }
      } else {
        /* q != s0[w] lies on the timeline iff its setter is chosen */
        uint16_t x = p->values[c->value_index].setter;
        if (x == SP_NONE16 || act[x].stamp != gen) {
          SpStatus st = add_missing(p, a, c);
          if (st != SP_OK) return st;
          n = ws->chosen_count;
        }
        add_edge(&E, x, a, SP_ORDER_PREVAIL);
        after = act[x].next;
      }
      if (after != SP_NONE16) add_edge(&E, a, after, SP_ORDER_THREAT);
    }
  }
  ws->edge_count = E.count;
  return SP_OK;
}

/* ---- scheduling ------------------------------------------------------------ */

/* Names two actions of an ordering cycle among those not emitted: the
 * first such action in discovery order and its first predecessor, the
 * timeline one before the stored ones. */
COLD SpStatus fail_order(Plan *p) {
  SpWorkspace *ws = p->ws;
  for (int i = 0; i < ws->chosen_count; i++) {
    uint16_t a = ws->chosen[i];
    if (ws->act[a].flags & FLAG_EMITTED) continue;
    int w = p->actions[a].variable;
    uint16_t prev = p->values[p->vars[w].value_base + p->actions[a].pre].setter;
    if (prev != SP_NONE16 && is_chosen(p, prev) && ws->act[prev].next == a &&
        !(ws->act[prev].flags & FLAG_EMITTED))
      return fail(p, SP_FAIL_ORDER, a, prev, w, -1);
    for (int e = 0; e < ws->edge_count; e++) {
      uint16_t from = ws->edge[e].from;
      if (ws->edge[e].to == a && !(ws->act[from].flags & FLAG_EMITTED))
        return fail(p, SP_FAIL_ORDER, a, from, w, -1);
    }
    return fail(p, SP_FAIL_ORDER, a, -1, w, -1);
  }
  return fail(p, SP_FAIL_ORDER, -1, -1, -1, -1);
}

/* Kahn's algorithm when no loop is held, with `out` as the queue: each
 * action is emitted as it is queued. A successor's timeline order comes
 * before its stored ones. */
HOT SpStatus schedule_plain(Plan *p, uint16_t *out) {
  SpWorkspace *ws = p->ws;
  ActScratch *act = ws->act;
  const Edge *edge = ws->edge;
  const uint16_t *chosen = ws->chosen;
  int n = ws->chosen_count, tail = 0;
  for (int i = 0; i < n; i++)
    if (act[chosen[i]].indegree == 0) out[tail++] = chosen[i];
  for (int head = 0; head < tail; head++) {
    const ActScratch *x = &act[out[head]];
    if (x->next != SP_NONE16 && --act[x->next].indegree == 0)
      out[tail++] = x->next;
    for (int e = x->first_edge; e >= 0; e = edge[e].next)
      if (--act[edge[e].to].indegree == 0) out[tail++] = edge[e].to;
  }
  if (tail == n) return SP_OK;
  for (int i = 0; i < n; i++) act[chosen[i]].flags = 0;
  for (int i = 0; i < tail; i++) act[out[i]].flags = FLAG_EMITTED;
  return fail_order(p);
}

/* Next requester of the held loop's start value at or after index i of
 * the requester list that is in the plan, not yet emitted, and not yet
 * ordered against the loop; -1 if none. Requester lists hold each prevail
 * once, so their indices name the prevails. */
static int undecided_requester(const Plan *p, const Held *h, uint32_t i) {
  const ActScratch *act = p->ws->act;
  const uint32_t *decided = p->ws->decided;
  const uint16_t *requesters = sp_requesters(p->d);
  for (i = i < h->lo ? h->lo : i; i < h->hi; i++) {
    const ActScratch *b = &act[requesters[i]];
    if (b->stamp == p->gen && !(b->flags & FLAG_EMITTED) &&
        decided[i] != p->gen)
      return (int)i;
  }
  return -1;
}

#define EACH_UNDECIDED(i, p, h)                                                \
  for (int i = undecided_requester(p, h, 0); i >= 0;                           \
       i = undecided_requester(p, h, (uint32_t)i + 1))

static void decide(Plan *p, int i) { p->ws->decided[i] = p->gen; }

/* The held loop starting with `first` leaves its start value: requesters
 * still waiting for it now need the loop to restore it. */
static void release_held(Plan *p, uint16_t first) {
  const Held *h = p->ws->held;
  while (h->first != first) h++;
  const uint16_t *requesters = sp_requesters(p->d);
  EACH_UNDECIDED(i, p, h) {
    store_edge(p, h->restore, requesters[i], SP_ORDER_RESTORE);
    decide(p, i);
  }
}

/* Emits out[head], the oldest queued action (the queue is `out` itself:
 * actions are emitted in the order they are queued); returns the new end
 * of the queue. */
static int emit(Plan *p, uint16_t *out, int head, int tail) {
  ActScratch *act = p->ws->act;
  ActScratch *x = &act[out[head]];
  x->flags |= FLAG_EMITTED;
  /* done before releasing its successors, so none of them is queued on
   * the strength of the value just left */
  if (x->flags & FLAG_HELD) release_held(p, out[head]);
  const Edge *edge = p->ws->edge;
  uint16_t to = x->next;
  for (int e = x->first_edge;; to = edge[e].to, e = edge[e].next) {
    if (to != SP_NONE16 && --act[to].indegree == 0 &&
        !(act[to].flags & FLAG_HELD))
      out[tail++] = to;
    if (e < 0) return tail;
  }
}

/* Can `b` reach `target`? Every action on such a path comes after b, so
 * none of them is emitted while b is not. */
static int reaches(Plan *p, uint16_t b, uint16_t target) {
  SpWorkspace *ws = p->ws;
  const ActScratch *act = ws->act;
  const Edge *edge = ws->edge;
  uint32_t *visit = ws->visit_stamp;
  uint16_t *stack = ws->stack;
  if (++ws->visit_gen == 0) { /* marks wrapped: start afresh */
    memset(visit, 0, (size_t)p->d->action_count * sizeof(uint32_t));
    ws->visit_gen = 1;
  }
  uint32_t mark = ws->visit_gen;
  int top = 0;
  stack[top++] = b;
  visit[b] = mark;
  while (top > 0) {
    uint16_t x = stack[--top];
    if (x == target) return 1;
    uint16_t y = act[x].next;
    for (int e = act[x].first_edge;; y = edge[e].to, e = edge[e].next) {
      if (y != SP_NONE16 && visit[y] != mark) {
        visit[y] = mark;
        stack[top++] = y;
      }
      if (e < 0) break;
    }
  }
  return 0;
}

/* Orders every requester whose side of w's loop the orders so far already
 * force: after the restore when the loop's first action must precede it,
 * before that first action when it must precede the restore. Repeats
 * until nothing changes, since each new order can force others. Returns
 * SP_NO_PLAN when a requester is forced to both sides. The answers depend
 * on the orders only, so with no order added since the last call there
 * is nothing to do. */
static SpStatus propagate(Plan *p, int *settled) {
  SpWorkspace *ws = p->ws;
  const uint16_t *requesters = sp_requesters(p->d);
  int changed = ws->edge_count != *settled;
  while (changed) {
    changed = 0;
    for (const Held *h = ws->held; h < ws->held + ws->held_count; h++) {
      uint16_t first = h->first, restore = h->restore;
      if (ws->act[first].flags & FLAG_EMITTED) continue;
      EACH_UNDECIDED(i, p, h) {
        uint16_t b = requesters[i];
        int late = reaches(p, first, b), early = reaches(p, b, restore);
        if (late && early)
          return fail(p, SP_FAIL_ORDER, b, first, h->variable,
                      p->s0[h->variable]);
        if (!late && !early) continue;
        if (late)
          store_edge(p, restore, b, SP_ORDER_RESTORE);
        else
          store_edge(p, b, first, SP_ORDER_THREAT);
        decide(p, i);
        changed = 1;
      }
    }
  }
  *settled = ws->edge_count;
  return SP_OK;
}

/* Picks the held first action to fire when nothing else can run: one
 * whose requesters are all ordered already if any (no choice is made),
 * else the first ready one (its waiting requesters go after the loop). */
static int pick_held(Plan *p) {
  SpWorkspace *ws = p->ws;
  int fallback = -1;
  for (const Held *h = ws->held; h < ws->held + ws->held_count; h++) {
    const ActScratch *f = &ws->act[h->first];
    if ((f->flags & FLAG_EMITTED) || f->indegree != 0) continue;
    if (undecided_requester(p, h, 0) < 0) return h->first;
    if (fallback < 0) fallback = h->first;
  }
  return fallback;
}

/* Kahn's algorithm with held loops: a held first action fires only when
 * nothing else can run, after propagate has ordered what it can. The held
 * loops are listed in the order their timelines were made. */
COLD SpStatus schedule_held(Plan *p, uint16_t *out) {
  SpWorkspace *ws = p->ws;
  ActScratch *act = ws->act;
  const uint16_t *chosen = ws->chosen;
  int n = ws->chosen_count;
  for (int i = 0; i < n; i++) act[chosen[i]].flags = 0;
  int held = 0;
  for (int i = 0; i < ws->touched_count; i++) {
    int w = ws->touched[i];
    const VarScratch *vs = &ws->var[w];
    if (!(vs->flags & VAR_HELD)) continue;
    const SpValueInfo *v0 = start_value(p, w);
    Held *h = &ws->held[held++];
    h->first = vs->first;
    h->restore = v0->setter;
    h->variable = (uint16_t)w;
    h->lo = v0->requester_base;
    h->hi = v0->requester_base + v0->requester_count;
    act[vs->first].flags = FLAG_HELD;
  }
  ws->held_count = held;
  int head = 0, tail = 0, settled = -1;
  for (int i = 0; i < n; i++)
    if (act[chosen[i]].indegree == 0 && !(act[chosen[i]].flags & FLAG_HELD))
      out[tail++] = chosen[i];
  for (;;) {
    while (head < tail) tail = emit(p, out, head++, tail);
    if (tail == n) return SP_OK;
    SpStatus st = propagate(p, &settled);
    if (st != SP_OK) return st;
    int f = pick_held(p);
    if (f < 0) return fail_order(p);
    out[tail++] = (uint16_t)f; /* emitted next: the queue is empty */
  }
}

/* ---- entry point ------------------------------------------------------------ */

/* The caller saw a byte over a variable's range from variable v on:
 * reports the first start or goal value out of range and returns -1, or
 * returns PARTIAL when there is none, only goal entries SP_ANY. */
enum { PARTIAL = -2 };
COLD int check_states(Plan *p, int v) {
  const uint8_t *max = p->ws->value_max;
  for (; v < p->d->variable_count; v++)
    if (p->s0[v] > max[v] || (p->goal[v] > max[v] && p->goal[v] != SP_ANY))
      break;
  if (v == p->d->variable_count) return PARTIAL;
  if (p->failure) {
    p->failure->code = SP_FAIL_NONE;
    p->failure->action = p->failure->other_action = -1;
    p->failure->variable = v;
    p->failure->value = p->s0[v] > max[v] ? p->s0[v] : p->goal[v];
  }
  return -1;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) &&                            \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR      1
#define HIGH_BITS 0x8080808080808080ull
#define LOW_BITS  0x7F7F7F7F7F7F7F7Full

/* The n (1..7) bytes at p as the low bytes of a word, read as two
 * overlapping halves that stay inside the n bytes. */
HOT uint64_t load_short(const uint8_t *p, int n) {
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t)hi << (8 * (n - 4));
  }
  if (n >= 2) {
    uint16_t lo, hi;
    memcpy(&lo, p, 2);
    memcpy(&hi, p + n - 2, 2);
    return lo | (uint64_t)hi << (8 * (n - 2));
  }
  return p[0];
}

/* Eight variables at a time: bytes below 128 compare without borrows
 * between them, so one subtraction checks eight ranges, and the variables
 * to change are the nonzero bytes of s0 ^ goal. */
HOT int list_changes_swar(Plan *p, uint16_t *list) {
  const uint8_t *max = p->ws->value_max;
  int m = p->d->variable_count, count = 0;
  for (int i = 0; i < m; i += 8) {
    uint64_t s, g, top;
    int left = m - i;
    if (left >= 8) {
      memcpy(&s, p->s0 + i, 8);
      memcpy(&g, p->goal + i, 8);
    } else if (m >= 8) { /* the last 8 bytes, minus those already seen */
      memcpy(&s, p->s0 + m - 8, 8);
      memcpy(&g, p->goal + m - 8, 8);
      s >>= 8 * (8 - left);
      g >>= 8 * (8 - left);
    } else {
      s = load_short(p->s0, m);
      g = load_short(p->goal, m);
    }
    memcpy(&top, max + i, 8); /* padded with zeros */
    top |= HIGH_BITS;
    if (((s | g) & HIGH_BITS) ||
        ((top - s) & (top - g) & HIGH_BITS) != HIGH_BITS)
      return check_states(p, i);
    uint64_t diff = s ^ g; /* every byte below 128 */
    for (diff = (diff + LOW_BITS) & HIGH_BITS; diff != 0; diff &= diff - 1)
      list[count++] = (uint16_t)(i + (__builtin_ctzll(diff) >> 3));
  }
  return count;
}
#endif

/* Lists the variables to change, in declaration order, after checking
 * every start and goal value (a range error wins over any failure).
 * Returns their number, -1 on a range error, or PARTIAL when the goal
 * has SP_ANY entries. */
HOT int list_changes(Plan *p, uint16_t *list) {
#if defined(SWAR)
  if (p->ws->small_values) return list_changes_swar(p, list);
#endif
  const uint8_t *max = p->ws->value_max;
  int count = 0;
  for (int w = 0; w < p->d->variable_count; w++) {
    if (p->s0[w] > max[w] || p->goal[w] > max[w]) return check_states(p, w);
    if (p->s0[w] != p->goal[w]) list[count++] = (uint16_t)w;
  }
  return count;
}

/* Starts a call: a fresh generation of stamps, nothing chosen. */
HOT void plan_begin(Plan *p) {
  SpWorkspace *ws = p->ws;
  if (p->failure) {
    p->failure->code = SP_FAIL_NONE;
    p->failure->free_variable = 0;
  }
  if (++ws->gen == 0) { /* stamps wrapped: start afresh */
    sp__workspace_clear_stamps(ws);
    ws->gen = 1;
  }
  p->gen = ws->gen;
  ws->touched_count = ws->chosen_count = 0;
  ws->edge_count = ws->held_count = ws->link_count = 0;
}

SpStatus sp__plan_closure(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                          const SpValue *wanted, SpValue *ends,
                          SpFailure *failure) {
  Plan p = {d,  ws,   sp_vars(d), sp_values(d), sp_actions(d), sp_prevails(d),
            s0, ends, 0,          failure,      wanted,        ends};
  plan_begin(&p);
  int count = 0;
  for (int w = 0; w < d->variable_count; w++) {
    ends[w] = wanted[w] == SP_ANY ? s0[w] : wanted[w];
    if (ends[w] != s0[w]) ws->touched[count++] = (uint16_t)w;
  }
  SpStatus st = count > 0 ? build_paths(&p, count) : SP_OK;
  if (st == SP_OK) st = order_prevails(&p);
  ws->edge_count = 0; /* its orders are not those of a plan */
  return st;
}

int sp__plan_closure_size(const SpWorkspace *ws) { return ws->chosen_count; }

SpStatus sp_plan(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                 const SpValue *goal, uint16_t *plan, int *len,
                 SpFailure *failure) {
  Plan p = {d,  ws,   sp_vars(d), sp_values(d), sp_actions(d), sp_prevails(d),
            s0, goal, 0,          failure,      NULL,          NULL};
  *len = 0;
  plan_begin(&p);

  int changes = list_changes(&p, ws->touched);
  if (changes <= 0) {
    if (changes == PARTIAL)
      return sp__plan_partial(d, ws, s0, goal, plan, len, failure);
    return changes < 0 ? SP_ERR_STATE : SP_OK;
  }
  SpStatus st = build_paths(&p, changes);
  if (st != SP_OK) return st;
  st = order_prevails(&p);
  if (st != SP_OK) {
    ws->edge_count = 0; /* no orders: the closure failed */
    return st;
  }
  ws->link_count = ws->chosen_count - ws->touched_count;
  st = ws->held_count == 0 ? schedule_plain(&p, plan) : schedule_held(&p, plan);
  if (st != SP_OK) return st;
  *len = ws->chosen_count;
  return SP_OK;
}
