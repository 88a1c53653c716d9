/* classify.c: class analysis (SAS-PUC0, SAS-PUCS2, SAS-PUC*2 or outside) and its explanation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp_classify.h"
#include "sp_internal.h" /* sp_mem_alloc, sp_mem_free */

/* ================================================================== */
/* The undirected action graph G                                      */
/* ================================================================== */

/* Edge kinds of the action graph (IJCAI 2023, Def. 6). */
enum { CL_PRE = 0, CL_PREVAIL = 1 };

/* G here has one node per action (ids 0..n-1) and one per value, used
 * only when no action sets that value (a ghost: id n + global value
 * index). A ghost links to the actions whose pre or prevail it is. The
 * literal Def. 7 leaves ghosts out, and then two requesters can be tied
 * through a start-only value (one needs y = 1 as a prevail, the other
 * leaves y = 1) without being connected: every plan of such an instance
 * may have to repeat a cycle action. With ghosts as nodes, as the IJCAI
 * tables list them among the predecessors, the C*2 guarantee holds.
 *
 * An adjacency entry is neighbour << 2 | kind << 1 | in, `in` being 1
 * when the edge points from the neighbour to the owner of the list.
 * A search link is from << 2 | kind << 1 | forward, `forward` being 1
 * when the edge points from `from` to the node holding the link.
 * A path step is kind << 1 | forward, `forward` being 1 when the edge
 * points along the path. Node ids are below 2^21: all fit an int. */
#define CL_NODE(e) ((e) >> 2)
#define CL_KIND(e) (((e) >> 1) & 1)
#define CL_DIR(e) ((e) & 1)

typedef struct ClGraph {
  const SpDomain *d;
  int n;           /* action count */
  int nodes;       /* n + the number of values */
  int cycles;      /* cycles of all variables, numbered by variable then index */
  int *value_base; /* variables + 1: global index of each variable's value 0 */
  int *var;        /* nodes: the variable of each node */
  int *req_start;  /* n + 1: requesters of a: req_list[req_start[a]..req_start[a+1]) */
  int *req_list;
  int *adj_start;  /* nodes + 1 */
  int *adj;        /* G, every edge stored at both ends */
  int *seen;       /* nodes: search stamp, one per side (see cl_search) */
  int *link[2];    /* nodes each: how each side of a search reached a node */
  int *queue[2];   /* nodes each: the two search queues */
  int *path;       /* the last path found: nodes (aliases queue[0]) */
  int *step;       /* and the step into each (aliases queue[1]) */
  int *cyc_var;    /* cycles: the variable of each cycle */
  int *cyc_index;  /* cycles: its number among that variable's cycles */
  int *cyc_req;    /* cycles: how many of its actions are requestable */
  int *cyc_start;  /* cycles + 1: its actions are cyc_act[cyc_start[k]..cyc_start[k+1]) */
  int *cyc_act;    /* n at most: every cycle's actions in cycle order */
  int stamp;
  int cuts;        /* prevail edges the search skips: cut[2i] sets, cut[2i+1] needs */
  int cut[2 * SP_EXPLAIN_MAX_CUTS];
  size_t edges, prevail_edges; /* counted by the first walk: all, real E_prv */
  void *block;
  size_t block_size;
} ClGraph;

typedef void (*ClEdgeFn)(ClGraph *g, int from, int to, int kind);

/* The node that sets var = value: its action, or its ghost. */
static int cl_setter_node(const ClGraph *g, int var, int value) {
  int a = sp_domain_setter(g->d, var, value);
  return a >= 0 ? a : g->n + g->value_base[var] + value;
}

/* Calls add for every edge of G in a fixed order (by target action, its
 * pre edge first, then its prevails in declaration order). Every action
 * has exactly one pre edge and one edge per prevail; a prevail with a
 * real setter makes that setter requestable (one E_prv edge of Def. 6). */
static void cl_walk_edges(ClGraph *g, ClEdgeFn add) {
  const SpDomain *d = g->d;
  for (int b = 0; b < g->n; b++) {
    add(g, cl_setter_node(g, sp_action_variable(d, b), sp_action_pre(d, b)), b, CL_PRE);
    int pc = sp_action_prevail_count(d, b);
    for (int i = 0; i < pc; i++) {
      SpCondition c = sp_action_prevail(d, b, i);
      add(g, cl_setter_node(g, c.variable, c.value), b, CL_PREVAIL);
    }
  }
}

static void cl_degree_edge(ClGraph *g, int from, int to, int kind) {
  g->adj_start[from + 1]++;
  g->adj_start[to + 1]++;
  if (kind == CL_PREVAIL && from < g->n) g->req_start[from + 1]++;
}

/* The fill cursors live in queue[0] (adjacency) and queue[1] (requesters). */
static void cl_fill_edge(ClGraph *g, int from, int to, int kind) {
  g->adj[g->queue[0][from]++] = to << 2 | kind << 1 | 0;
  g->adj[g->queue[0][to]++] = from << 2 | kind << 1 | 1;
  if (kind == CL_PREVAIL && from < g->n) g->req_list[g->queue[1][from]++] = to;
}

/* Length and requestable count of one cycle of a variable. */
typedef struct ClCycle {
  int length;
  int requestable;
} ClCycle;

/* Reads cycle c of v; when acts is not NULL, also stores its actions
 * there in cycle order (room for its length). Only its first action comes
 * from the cycle accessors (which may cost O(c) each); the rest follow by
 * walking back through setters: on a cycle, the setter of an action's pre
 * is the action before it (post-uniqueness), so the walk comes back to
 * the first action after the cycle's length. */
static ClCycle cl_cycle_read(const SpDomain *d, int v, int c, int *acts) {
  ClCycle info = {0, 0};
  int first = sp_variable_cycle_action(d, v, c, 0), a = first;
  do {
    if (acts != NULL) acts[info.length] = a;
    info.length++;
    if (sp_action_is_requestable(d, a)) info.requestable++;
    a = sp_domain_setter(d, v, sp_action_pre(d, a));
  } while (a != first);
  /* the walk went backwards: after the first action, reverse the rest */
  for (int i = 1, j = info.length - 1; acts != NULL && i < j; i++, j--) {
    int tmp = acts[i];
    acts[i] = acts[j];
    acts[j] = tmp;
  }
  return info;
}

/* Builds G (ghosts included), the requester lists and a copy of every
 * cycle in one scratch block of 7N + 2n + m + 4C + 4 + 2|E| + |E_prv|
 * ints, N = n + the number of values, m = the number of variables, C the
 * number of cycles (an action lies on at most one cycle, so n bounds
 * their actions). Lists are in id order, so searches and explanations are
 * deterministic. Returns SP_ERR_MEMORY when the block cannot be allocated
 * (nothing is then held). */
static SpStatus cl_graph_build(ClGraph *g, const SpDomain *d, SpAllocator alloc) {
  memset(g, 0, sizeof *g);
  g->d = d;
  g->n = sp_domain_action_count(d);
  int vars = sp_domain_variable_count(d);
  int values = 0;
  for (int v = 0; v < vars; v++) {
    values += sp_variable_value_count(d, v);
    g->cycles += sp_variable_cycle_count(d, v);
  }
  g->nodes = g->n + values;
  size_t n = (size_t)g->n, nodes = (size_t)g->nodes, cycles = (size_t)g->cycles;
  for (int b = 0; b < g->n; b++) {
    int pc = sp_action_prevail_count(d, b);
    g->edges += 1 + (size_t)pc;
    for (int i = 0; i < pc; i++) {
      SpCondition c = sp_action_prevail(d, b, i);
      if (sp_domain_setter(d, c.variable, c.value) >= 0) g->prevail_edges++;
    }
  }
  size_t ints = 7 * nodes + 2 * n + (size_t)vars + 4 * cycles + 4 + 2 * g->edges +
                g->prevail_edges;
  g->block_size = ints * sizeof(int);
  g->block = sp_mem_alloc(alloc, g->block_size);
  if (g->block == NULL) return SP_ERR_MEMORY;
  int *p = g->block;
  memset(p, 0, g->block_size);
  g->value_base = p, p += vars + 1;
  g->var = p, p += nodes;
  g->req_start = p, p += n + 1;
  g->adj_start = p, p += nodes + 1;
  g->seen = p, p += nodes;
  g->link[0] = p, p += nodes;
  g->link[1] = p, p += nodes;
  g->queue[0] = p, p += nodes;
  g->queue[1] = p, p += nodes;
  g->cyc_var = p, p += cycles;
  g->cyc_index = p, p += cycles;
  g->cyc_req = p, p += cycles;
  g->cyc_start = p, p += cycles + 1;
  g->cyc_act = p, p += n;
  g->adj = p, p += 2 * g->edges;
  g->req_list = p;
  g->path = g->queue[0];
  g->step = g->queue[1];

  for (int v = 0, k = 0; v < vars; v++) {
    int count = sp_variable_value_count(d, v);
    g->value_base[v + 1] = g->value_base[v] + count;
    for (int x = 0; x < count; x++) g->var[g->n + g->value_base[v] + x] = v;
    int cc = sp_variable_cycle_count(d, v);
    for (int c = 0; c < cc; c++, k++) {
      ClCycle info = cl_cycle_read(d, v, c, g->cyc_act + g->cyc_start[k]);
      g->cyc_var[k] = v;
      g->cyc_index[k] = c;
      g->cyc_req[k] = info.requestable;
      g->cyc_start[k + 1] = g->cyc_start[k] + info.length;
    }
  }
  for (int a = 0; a < g->n; a++) g->var[a] = sp_action_variable(d, a);
  cl_walk_edges(g, cl_degree_edge);
  for (size_t a = 0; a < nodes; a++) g->adj_start[a + 1] += g->adj_start[a];
  for (size_t a = 0; a < n; a++) g->req_start[a + 1] += g->req_start[a];
  for (size_t a = 0; a < nodes; a++) g->queue[0][a] = g->adj_start[a];
  for (size_t a = 0; a < n; a++) g->queue[1][a] = g->req_start[a];
  cl_walk_edges(g, cl_fill_edge);
  return SP_OK;
}

static void cl_graph_free(ClGraph *g, SpAllocator alloc) {
  sp_mem_free(alloc, g->block, g->block_size);
  g->block = NULL;
}

/* Is the prevail edge from setter to needer one of the cuts? (Two actions
 * may need each other's values: one direction may be cut, the other not.) */
static int cl_is_cut(const ClGraph *g, int setter, int needer) {
  for (int i = 0; i < g->cuts; i++)
    if (g->cut[2 * i] == setter && g->cut[2 * i + 1] == needer) return 1;
  return 0;
}

static int cl_requester_count(const ClGraph *g, int a) {
  return g->req_start[a + 1] - g->req_start[a];
}

/* Lays out the path found by cl_search: side 0 from its source to x0,
 * then the edge x0 - x1 (`mid`, a step; -1 when x0 == x1), then side 1
 * from x1 back to its source. Returns the number of nodes. */
static int cl_path(ClGraph *g, int x0, int x1, int mid) {
  int len = 0;
  for (int x = x0; x >= 0; x = g->link[0][x] < 0 ? -1 : CL_NODE(g->link[0][x])) {
    g->path[len] = x;
    g->step[len++] = g->link[0][x] < 0 ? -1 : (g->link[0][x] & 3);
  }
  for (int i = 0, j = len - 1; i < j; i++, j--) { /* source first */
    int tmp = g->path[i];
    g->path[i] = g->path[j];
    g->path[j] = tmp;
    tmp = g->step[i];
    g->step[i] = g->step[j];
    g->step[j] = tmp;
  }
  int x = x1, into = mid;
  if (mid < 0) { /* x1 == x0, already laid out */
    int l = g->link[1][x1];
    if (l < 0) return len;
    x = CL_NODE(l);
    into = CL_KIND(l) << 1 | (CL_DIR(l) ^ 1);
  }
  for (;;) {
    g->path[len] = x;
    g->step[len++] = into;
    int l = g->link[1][x];
    if (l < 0) break;
    into = CL_KIND(l) << 1 | (CL_DIR(l) ^ 1); /* walked against the link */
    x = CL_NODE(l);
  }
  return len;
}

/* Is a requester of `from` connected to a requester of `to` in G minus
 * G(v), edges taken both ways? (Requesters are never on v: an action has
 * no prevail on its own variable.) Two breadth-first searches grow in
 * turn, one node each, from the two groups of requesters; the search
 * stops when one side reaches a node the other has seen (connected) or
 * runs out of nodes (not connected). It thus costs the size of the
 * smaller of the two parts, at most O(|A| + |E_A| + ghosts). Returns the
 * number of nodes of the path found (g->path, g->step, from a requester
 * of `from` to one of `to`), or 0. */
static int cl_search(ClGraph *g, int v, int from, int to) {
  int base = g->stamp + 1; /* side k marks seen[x] = base + k */
  g->stamp += 2;
  int head[2] = {0, 0}, tail[2] = {0, 0}, group[2] = {from, to};
  for (int k = 0; k < 2; k++) {
    int a = group[k];
    for (int i = g->req_start[a]; i < g->req_start[a + 1]; i++) {
      int s = g->req_list[i];
      if (g->seen[s] == base + k) continue;
      g->link[k][s] = -1;
      if (g->seen[s] == base + 1 - k) return cl_path(g, s, s, -1);
      g->seen[s] = base + k;
      g->queue[k][tail[k]++] = s;
    }
  }
  while (head[0] < tail[0] && head[1] < tail[1]) {
    for (int k = 0; k < 2; k++) {
      int x = g->queue[k][head[k]++];
      for (int i = g->adj_start[x]; i < g->adj_start[x + 1]; i++) {
        int e = g->adj[i];
        int y = CL_NODE(e), forward = CL_DIR(e) ^ 1; /* does it point x -> y? */
        if (g->var[y] == v || g->seen[y] == base + k) continue;
        if (g->cuts > 0 && CL_KIND(e) == CL_PREVAIL &&
            cl_is_cut(g, forward ? x : y, forward ? y : x))
          continue;
        if (g->seen[y] == base + 1 - k) {
          if (k == 0) return cl_path(g, x, y, CL_KIND(e) << 1 | forward);
          return cl_path(g, y, x, CL_KIND(e) << 1 | (forward ^ 1));
        }
        g->seen[y] = base + k;
        g->link[k][y] = x << 2 | CL_KIND(e) << 1 | forward;
        g->queue[k][tail[k]++] = y;
      }
    }
  }
  return 0;
}

/* ================================================================== */
/* Cycles                                                             */
/* ================================================================== */

/* Cycle k of G's table (all variables' cycles, by variable then index). */
static int cl_cycle_length(const ClGraph *g, int k) {
  return g->cyc_start[k + 1] - g->cyc_start[k];
}

static int cl_cycle_action(const ClGraph *g, int k, int i) {
  return g->cyc_act[g->cyc_start[k] + i];
}

static ClCycle cl_cycle(const ClGraph *g, int k) {
  ClCycle c = {cl_cycle_length(g, k), g->cyc_req[k]};
  return c;
}

/* Is this cycle a C2 violation (more than 2 actions, one requestable)? */
static int cl_too_long(ClCycle c) { return c.length > 2 && c.requestable > 0; }

/* Does this 2-cycle need the SAS-PUC*2 test (both actions requestable)? */
static int cl_double(ClCycle c) { return c.length == 2 && c.requestable == 2; }

/* Are the requesters of the two actions of 2-cycle k connected in G minus
 * G(v), v its variable (all of v's actions and ghosts, other cycles of v
 * included)? */
static int cl_connected(ClGraph *g, int k) {
  return cl_search(g, g->cyc_var[k], cl_cycle_action(g, k, 0), cl_cycle_action(g, k, 1)) > 0;
}

/* The class as far as the cycles' shapes tell, with no memory: outside
 * when a cycle breaks C2, else C0, CS2, or SAS-PUC*2 when some 2-cycle
 * has both actions requestable (still to be confirmed by cl_connected).
 * Each cycle of each variable is judged on its own. */
static SpClass cl_class_shape(const SpDomain *d) {
  int vars = sp_domain_variable_count(d);
  int any = 0, twice = 0;
  for (int v = 0; v < vars; v++) {
    int cc = sp_variable_cycle_count(d, v);
    for (int c = 0; c < cc; c++) {
      ClCycle info = cl_cycle_read(d, v, c, NULL);
      if (cl_too_long(info)) return SP_CLASS_OUTSIDE;
      if (info.requestable > 0) any = 1;
      if (cl_double(info)) twice = 1;
    }
  }
  if (!any) return SP_CLASS_C0;
  return twice ? SP_CLASS_CSTAR2 : SP_CLASS_CS2;
}

/* The final class from the shape: a tentative SAS-PUC*2 becomes outside
 * when the requesters of some doubly requested 2-cycle are connected. */
static SpClass cl_class_of(ClGraph *g, SpClass shape) {
  if (shape != SP_CLASS_CSTAR2) return shape;
  for (int k = 0; k < g->cycles; k++)
    if (cl_double(cl_cycle(g, k)) && cl_connected(g, k)) return SP_CLASS_OUTSIDE;
  return SP_CLASS_CSTAR2;
}

/* ================================================================== */
/* Text                                                               */
/* ================================================================== */

typedef struct ClOut {
  char *buf;
  size_t size;
  size_t len; /* full length, even past size */
} ClOut;

static void cl_printf(ClOut *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void cl_printf(ClOut *o, const char *fmt, ...) {
  char *dst = NULL;
  size_t room = 0;
  if (o->len < o->size) {
    dst = o->buf + o->len;
    room = o->size - o->len;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(dst, room, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n;
}

static const char *cl_str(const char *s) { return s != NULL ? s : "?"; }

static void cl_action(ClOut *o, const SpDomain *d, int a) {
  cl_printf(o, "'%s'", cl_str(sp_action_name(d, a)));
}

static void cl_variable(ClOut *o, const SpDomain *d, int v) {
  cl_printf(o, "'%s'", cl_str(sp_variable_name(d, v)));
}

/* 'variable' = value */
static void cl_condition(ClOut *o, const SpDomain *d, int v, int value) {
  cl_variable(o, d, v);
  cl_printf(o, " = %s", cl_str(sp_value_name(d, v, value)));
}

/* 'a' -> 'b' -> 'a' for cycle k */
static void cl_cycle_actions(ClOut *o, const ClGraph *g, int k) {
  int len = cl_cycle_length(g, k);
  for (int i = 0; i <= len; i++) {
    if (i > 0) cl_printf(o, " -> ");
    cl_action(o, g->d, cl_cycle_action(g, k, i % len));
  }
}

/* How many cycles cycle k's variable has (more than one: the text must
 * say which of them it means). */
static int cl_siblings(const ClGraph *g, int k) {
  return sp_variable_cycle_count(g->d, g->cyc_var[k]);
}

/* "the cycle of 'v'", or when v has several cycles
 * "the cycle 'a' -> 'b' -> 'a' (one of the 2 cycles of 'v')". */
static void cl_cycle_name(ClOut *o, const ClGraph *g, int k) {
  int count = cl_siblings(g, k);
  if (count == 1) {
    cl_printf(o, "the cycle of ");
    cl_variable(o, g->d, g->cyc_var[k]);
    return;
  }
  cl_printf(o, "the cycle ");
  cl_cycle_actions(o, g, k);
  cl_printf(o, " (one of the %d cycles of ", count);
  cl_variable(o, g->d, g->cyc_var[k]);
  cl_printf(o, ")");
}

/* 'r1', 'r2' and 3 more */
static void cl_requesters(ClOut *o, const ClGraph *g, int a) {
  int count = cl_requester_count(g, a);
  int shown = count < SP_EXPLAIN_MAX_NAMES ? count : SP_EXPLAIN_MAX_NAMES;
  for (int i = 0; i < shown; i++) {
    if (i > 0) cl_printf(o, ", ");
    cl_action(o, g->d, g->req_list[g->req_start[a] + i]);
  }
  if (count > shown) cl_printf(o, " and %d more", count - shown);
}

/* 'a' ('v' = p) requested by 'r1', 'r2' */
static void cl_requested(ClOut *o, const ClGraph *g, int a) {
  const SpDomain *d = g->d;
  cl_action(o, d, a);
  cl_printf(o, " (");
  cl_condition(o, d, sp_action_variable(d, a), sp_action_post(d, a));
  cl_printf(o, ") requested by ");
  cl_requesters(o, g, a);
}

/* The arrow of one path step: " -pre-> " or " <-prevail- ". */
static void cl_arrow(ClOut *o, int link) {
  const char *kind = CL_KIND(link) == CL_PRE ? "pre" : "prevail";
  cl_printf(o, CL_DIR(link) ? " -%s-> " : " <-%s- ", kind);
}

/* The value a node of G sets: an action's post, or a ghost's value. */
static SpCondition cl_node_value(const ClGraph *g, int x) {
  SpCondition c;
  if (x < g->n) {
    c.variable = sp_action_variable(g->d, x);
    c.value = sp_action_post(g->d, x);
  } else {
    c.variable = g->var[x];
    c.value = x - g->n - g->value_base[c.variable];
  }
  return c;
}

/* A node of a path: 'action', or (no action sets 'v' = p) for a ghost. */
static void cl_node(ClOut *o, const ClGraph *g, int x) {
  if (x < g->n) {
    cl_action(o, g->d, x);
    return;
  }
  SpCondition c = cl_node_value(g, x);
  cl_printf(o, "(no action sets ");
  cl_condition(o, g->d, c.variable, c.value);
  cl_printf(o, ")");
}

/* One step of a path: 'x' -pre-> 'y' or 'x' <-prevail- 'y'. */
static void cl_step(ClOut *o, const ClGraph *g, int x, int y, int link) {
  cl_node(o, g, x);
  cl_arrow(o, link);
  cl_node(o, g, y);
}

/* Why a step is an edge of G: which value its tail sets for its head
 * (the head of an edge is always an action). */
static void cl_step_reason(ClOut *o, const ClGraph *g, int x, int y, int link) {
  int from = CL_DIR(link) ? x : y, to = CL_DIR(link) ? y : x;
  SpCondition c = cl_node_value(g, from);
  if (from < g->n) {
    cl_action(o, g->d, from);
    cl_printf(o, " sets ");
    cl_condition(o, g->d, c.variable, c.value);
    cl_printf(o, ", ");
  } else {
    cl_printf(o, "no action sets ");
    cl_condition(o, g->d, c.variable, c.value);
    cl_printf(o, " (only a start state can hold it), ");
  }
  cl_printf(o, "%s", CL_KIND(link) == CL_PRE ? "the pre of " : "a prevail of ");
  cl_action(o, g->d, to);
}

static const char cl_guarantee[] =
    "Guarantee: every solvable instance has a minimal plan in which no "
    "action occurs twice; the planner finds one, or reports that none "
    "exists, in time linear in the size of the action graph.\n";

static const char cl_no_guarantee[] =
    "Plans are not guaranteed: some instance may need an action twice (or "
    "an exponentially long plan), and the planner may then report it "
    "unsolvable although a plan exists.\n";

/* Problem (a): cycle k is longer than 2 and holds a requested action. */
static void cl_explain_long(ClOut *o, const ClGraph *g, int k, int number) {
  const SpDomain *d = g->d;
  int v = g->cyc_var[k], len = cl_cycle_length(g, k), several = cl_siblings(g, k) > 1;
  cl_printf(o, "%d. ", number);
  cl_cycle_name(o, g, k);
  cl_printf(o, " has %d actions", len);
  if (!several) { /* a name with the actions already lists them */
    cl_printf(o, " (");
    cl_cycle_actions(o, g, k);
    cl_printf(o, ")");
  }
  cl_printf(o, " and holds a requested action; a cycle with a requested "
               "action must have at most 2 actions, else a plan could need "
               "an action twice (going round the cycle again).\n");
  cl_printf(o, "   fix: shorten %s cycle of ", several ? "that" : "the");
  cl_variable(o, d, v);
  cl_printf(o, " to 2 actions (remove an action, or split the variable so "
               "its values form a path), or drop the prevails on ");
  cl_variable(o, d, v);
  cl_printf(o, " that request its cycle actions:\n");
  for (int i = 0; i < len; i++) {
    int a = cl_cycle_action(g, k, i);
    if (cl_requester_count(g, a) == 0) continue;
    cl_printf(o, "   ");
    cl_requested(o, g, a);
    cl_printf(o, "\n");
  }
}

/* Records the prevail edge that step `at` of the current path crosses as
 * cut number g->cuts. */
static void cl_add_cut(ClGraph *g, int at) {
  int x = g->path[at - 1], y = g->path[at], link = g->step[at];
  g->cut[2 * g->cuts] = CL_DIR(link) ? x : y;
  g->cut[2 * g->cuts + 1] = CL_DIR(link) ? y : x;
  g->cuts++;
}

/* 'v' = p of 'needer' for cut i */
static void cl_cut(ClOut *o, const ClGraph *g, int i) {
  SpCondition c = cl_node_value(g, g->cut[2 * i]);
  cl_condition(o, g->d, c.variable, c.value);
  cl_printf(o, " of ");
  cl_action(o, g->d, g->cut[2 * i + 1]);
}

/* Every prevail that must go to cut the requesters of plus from those of
 * minus, one per path: the first prevail edge of the current path (step
 * `first`), then of each path still found once the edges before are cut.
 * Returns 1 when the cuts disconnect them, 0 when a path has no prevail
 * edge or there are more than SP_EXPLAIN_MAX_CUTS (g->cuts then counts
 * those found, at least 1 when first > 0). Leaves g->path clobbered. */
static int cl_cuts(ClGraph *g, int v, int plus, int minus, int first) {
  g->cuts = 0;
  if (first <= 0) return 0;
  cl_add_cut(g, first);
  while (g->cuts < SP_EXPLAIN_MAX_CUTS) {
    int len = cl_search(g, v, plus, minus), at = -1;
    if (len == 0) return 1;
    for (int i = 1; i < len && at < 0; i++)
      if (CL_KIND(g->step[i]) == CL_PREVAIL) at = i;
    if (at < 0) return 0;
    cl_add_cut(g, at);
  }
  return cl_search(g, v, plus, minus) == 0;
}

/* Problem (b): the 2-cycle k = {a+, a-}, both requested, whose requesters
 * are connected in G minus G(v). Runs the search again to get the path. */
static void cl_explain_connected(ClOut *o, ClGraph *g, int k, int number) {
  const SpDomain *d = g->d;
  int v = g->cyc_var[k];
  int plus = cl_cycle_action(g, k, 0);
  int minus = cl_cycle_action(g, k, 1);
  int len = cl_search(g, v, plus, minus);
  int s = g->path[0], t = g->path[len - 1];
  cl_printf(o, "%d. ", number);
  cl_cycle_name(o, g, k);
  cl_printf(o, " has both actions requested, and ");
  cl_action(o, d, s);
  cl_printf(o, " (requests ");
  cl_action(o, d, plus);
  cl_printf(o, ") is connected to ");
  cl_action(o, d, t);
  cl_printf(o, " (requests ");
  cl_action(o, d, minus);
  cl_printf(o, ") in G minus G(");
  cl_variable(o, d, v);
  cl_printf(o, "), so their orders can interleave and a plan could need ");
  cl_action(o, d, plus);
  cl_printf(o, " or ");
  cl_action(o, d, minus);
  cl_printf(o, " twice.\n   path: ");
  cl_node(o, g, s);
  int cut = -1; /* the first prevail edge of the path, if any */
  for (int i = 1; i < len; i++) {
    cl_arrow(o, g->step[i]);
    cl_node(o, g, g->path[i]);
    if (cut < 0 && CL_KIND(g->step[i]) == CL_PREVAIL) cut = i;
  }

  /* The fix comes before the details: a compile error keeps only the
   * start of this text. */
  int all = cl_cuts(g, v, plus, minus, cut);
  cl_printf(o, "\n   fix: make the two groups of requesters independent: ");
  if (cut > 0 && (!all || g->cuts == 1)) {
    cl_printf(o, "cut the path (e.g. drop the prevail ");
    cl_cut(o, g, 0);
    cl_printf(o, "), ");
  } else if (cut > 0) { /* every path must go: name one prevail per path */
    cl_printf(o, "cut all %d paths (drop the prevail ", g->cuts);
    for (int i = 0; i < g->cuts; i++) {
      if (i > 0) cl_printf(o, i + 1 == g->cuts ? " and the prevail " : ", the prevail ");
      cl_cut(o, g, i);
    }
    cl_printf(o, "), ");
  }
  cl_printf(o, "drop the prevails on ");
  cl_variable(o, d, v);
  cl_printf(o, " of one side, or split ");
  cl_variable(o, d, v);
  cl_printf(o, " into two variables so that ");
  cl_action(o, d, plus);
  cl_printf(o, " and ");
  cl_action(o, d, minus);
  cl_printf(o, " no longer form a cycle.\n");
  for (int j = 1; all && j < g->cuts; j++) { /* the paths left by the cuts before */
    g->cuts = j;
    int plen = cl_search(g, v, plus, minus);
    cl_printf(o, "   path %d (left once the prevails before are dropped): ", j + 1);
    cl_node(o, g, g->path[0]);
    for (int i = 1; i < plen; i++) {
      cl_arrow(o, g->step[i]);
      cl_node(o, g, g->path[i]);
    }
    cl_printf(o, "\n");
  }
  g->cuts = 0;
  len = cl_search(g, v, plus, minus); /* the first path again, for its edges */
  cl_printf(o, "   edges of the path:\n");
  for (int i = 1; i < len; i++) {
    int x = g->path[i - 1], y = g->path[i], link = g->step[i];
    cl_printf(o, "     ");
    cl_step(o, g, x, y, link);
    cl_printf(o, ": ");
    cl_step_reason(o, g, x, y, link);
    cl_printf(o, "\n");
  }
  cl_printf(o, "   ");
  cl_requested(o, g, plus);
  cl_printf(o, "\n   ");
  cl_requested(o, g, minus);
  cl_printf(o, "\n");
}

/* Is cycle k one of the problems an outside domain lists? */
static int cl_problem(ClGraph *g, int k) {
  ClCycle c = cl_cycle(g, k);
  return cl_too_long(c) || (cl_double(c) && cl_connected(g, k));
}

/* The first lines: the class and why (for outside: the problems). */
static void cl_explain_class(ClOut *o, ClGraph *g, SpClass cls) {
  const SpDomain *d = g->d;
  const char *name = sp_domain_name(d);
  cl_printf(o, "'%s' is ", cl_str(name));
  if (cls == SP_CLASS_OUTSIDE) {
    int problems = 0;
    for (int k = 0; k < g->cycles; k++) problems += cl_problem(g, k);
    cl_printf(o, "outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (%d problem%s):\n",
              problems, problems == 1 ? "" : "s");
    int number = 0;
    for (int k = 0; k < g->cycles && number < SP_EXPLAIN_MAX_ITEMS; k++) {
      ClCycle c = cl_cycle(g, k);
      if (cl_too_long(c))
        cl_explain_long(o, g, k, ++number);
      else if (cl_double(c) && cl_connected(g, k))
        cl_explain_connected(o, g, k, ++number);
    }
    if (problems > number) cl_printf(o, "   ... and %d more problems\n", problems - number);
    cl_printf(o, "%s", cl_no_guarantee);
    return;
  }
  cl_printf(o, "%s: ", sp_class_name(cls));
  if (cls == SP_CLASS_C0) {
    cl_printf(o, "%s", g->cycles == 0 ? "the domain has no cycle, so no cycle contains a "
                                        "requestable action.\n"
                                      : "no cycle contains a requestable action.\n");
  } else if (cls == SP_CLASS_CS2) {
    cl_printf(o, "every cycle with a requestable action has 2 actions and only "
                 "one of them is requestable (not SAS-PUC0: ");
    int shown = 0;
    for (int k = 0; k < g->cycles && shown < SP_EXPLAIN_MAX_NAMES; k++) {
      if (g->cyc_req[k] == 0) continue;
      for (int i = 0; i < cl_cycle_length(g, k); i++) {
        int a = cl_cycle_action(g, k, i);
        if (!sp_action_is_requestable(d, a)) continue;
        cl_printf(o, "%s", shown++ > 0 ? ", " : "");
        cl_action(o, d, a);
        cl_printf(o, " on ");
        cl_cycle_name(o, g, k);
      }
    }
    cl_printf(o, " %s requested).\n", shown == 1 ? "is" : "are");
  } else {
    cl_printf(o, "every cycle with a requestable action has 2 actions; where "
                 "both are requestable (so not SAS-PUCS2), the requesters of "
                 "one and those of the other are not connected once the "
                 "cycle's variable is taken out of the action graph G "
                 "(values that no action sets count as nodes), so each "
                 "group can be ordered on its own:\n");
    int shown = 0;
    for (int k = 0; k < g->cycles; k++) {
      if (!cl_double(cl_cycle(g, k))) continue;
      if (shown++ == SP_EXPLAIN_MAX_ITEMS) {
        cl_printf(o, "  ... and more\n");
        break;
      }
      int v = g->cyc_var[k];
      int plus = cl_cycle_action(g, k, 0);
      int minus = cl_cycle_action(g, k, 1);
      cl_printf(o, "  ");
      cl_variable(o, d, v);
      cl_printf(o, ": the requesters of ");
      cl_action(o, d, plus);
      cl_printf(o, " (");
      cl_requesters(o, g, plus);
      cl_printf(o, ") and of ");
      cl_action(o, d, minus);
      cl_printf(o, " (");
      cl_requesters(o, g, minus);
      cl_printf(o, ") lie in separate parts of G minus G(");
      cl_variable(o, d, v);
      cl_printf(o, ").\n");
    }
  }
  cl_printf(o, "%s", cl_guarantee);
}

/* The cycles and the requestable actions, for every class. A variable
 * with several cycles shows each as 'v' (i of N). */
static void cl_explain_lists(ClOut *o, const ClGraph *g) {
  const SpDomain *d = g->d;
  int requestable = 0;
  for (int a = 0; a < g->n; a++)
    if (sp_action_is_requestable(d, a)) requestable++;

  if (g->cycles == 0) cl_printf(o, "cycles: none.\n");
  else cl_printf(o, "cycles (%d):\n", g->cycles);
  for (int k = 0; k < g->cycles; k++) {
    if (k == SP_EXPLAIN_MAX_ITEMS) {
      cl_printf(o, "  ... and %d more\n", g->cycles - SP_EXPLAIN_MAX_ITEMS);
      break;
    }
    cl_printf(o, "  ");
    cl_variable(o, d, g->cyc_var[k]);
    if (cl_siblings(g, k) > 1) cl_printf(o, " (%d of %d)", g->cyc_index[k] + 1, cl_siblings(g, k));
    cl_printf(o, ": ");
    cl_cycle_actions(o, g, k);
    int listed = 0;
    for (int i = 0; i < cl_cycle_length(g, k); i++) {
      int a = cl_cycle_action(g, k, i);
      if (!sp_action_is_requestable(d, a)) continue;
      cl_printf(o, "%s", listed++ == 0 ? "; requestable: " : ", ");
      cl_action(o, d, a);
    }
    cl_printf(o, "%s", listed == 0 ? "; no requestable action\n" : "\n");
  }

  if (requestable == 0) cl_printf(o, "requestable actions: none.\n");
  else cl_printf(o, "requestable actions (%d):\n", requestable);
  int shown = 0;
  for (int a = 0; a < g->n && requestable > 0; a++) {
    if (!sp_action_is_requestable(d, a)) continue;
    if (shown++ == SP_EXPLAIN_MAX_ITEMS) {
      cl_printf(o, "  ... and %d more\n", requestable - SP_EXPLAIN_MAX_ITEMS);
      break;
    }
    cl_printf(o, "  ");
    cl_requested(o, g, a);
    cl_printf(o, "\n");
  }
}

/* ================================================================== */
/* Entry point                                                        */
/* ================================================================== */

/* The class alone (buf NULL or size 0, needed NULL) touches no text and
 * allocates only when a 2-cycle has both actions requestable: only the
 * C*2 search needs G. */
SpStatus sp_classify(const SpDomain *d, SpAllocator alloc, SpClass *cls,
                     char *buf, size_t size, size_t *needed) {
  ClOut out = {buf, buf != NULL ? size : 0, 0};
  if (out.size > 0) buf[0] = '\0';
  if (needed != NULL) *needed = 0;
  int text = out.size > 0 || needed != NULL;
  SpClass c = cl_class_shape(d);
  if (!text && c != SP_CLASS_CSTAR2) {
    if (cls != NULL) *cls = c;
    return SP_OK;
  }
  ClGraph g;
  if (cl_graph_build(&g, d, alloc) != SP_OK) return SP_ERR_MEMORY;
  c = cl_class_of(&g, c);
  if (text) {
    cl_explain_class(&out, &g, c);
    cl_explain_lists(&out, &g);
  }
  cl_graph_free(&g, alloc);
  if (cls != NULL) *cls = c;
  if (needed != NULL) *needed = out.len;
  return SP_OK;
}

/* ---- problems, for tools that draw them ------------------------------- */

int sp_domain_problems(const SpDomain *d, SpProblem *out, int max) {
  if (sp_domain_class(d) != SP_CLASS_OUTSIDE) return 0;
  ClGraph g;
  if (cl_graph_build(&g, d, d->alloc) != SP_OK) return -1;
  int count = 0;
  for (int k = 0; k < g.cycles; k++) {
    if (!cl_problem(&g, k)) continue;
    if (count < max) {
      out[count].variable = g.cyc_var[k];
      out[count].cycle = g.cyc_index[k];
      out[count].connected = cl_cycle_length(&g, k) == 2;
    }
    count++;
  }
  cl_graph_free(&g, d->alloc);
  return count;
}

int sp_domain_problem_path(const SpDomain *d, int problem, SpPathNode *out, int max) {
  if (sp_domain_class(d) != SP_CLASS_OUTSIDE) return 0;
  ClGraph g;
  if (cl_graph_build(&g, d, d->alloc) != SP_OK) return -1;
  int len = 0;
  for (int k = 0, i = 0; k < g.cycles; k++) {
    if (!cl_problem(&g, k) || i++ != problem) continue;
    if (cl_cycle_length(&g, k) == 2)
      len = cl_search(&g, g.cyc_var[k], cl_cycle_action(&g, k, 0), cl_cycle_action(&g, k, 1));
    break;
  }
  for (int i = 0; i < len && i < max; i++) {
    int x = g.path[i];
    SpCondition c = cl_node_value(&g, x);
    out[i].action = x < g.n ? x : -1;
    out[i].variable = c.variable;
    out[i].value = c.value;
    out[i].prevail = i > 0 && CL_KIND(g.step[i]) == CL_PREVAIL;
    out[i].forward = i > 0 && CL_DIR(g.step[i]);
  }
  cl_graph_free(&g, d->alloc);
  return len;
}
