/* classify.c: class analysis (SAS-PUC0, SAS-PUCS2, SAS-PUC*2 or outside): the action graph G, its searches and the class; explain.c words it. */
#include <string.h>

#include "sp_classify_graph.h"
#include "sp_internal.h" /* sp__mem_alloc, sp__mem_free */

/* ================================================================== */
/* The undirected action graph G                                      */
/* ================================================================== */

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
    add(g, cl_setter_node(g, sp_action_variable(d, b), sp_action_pre(d, b)), b,
        CL_PRE);
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
static SpStatus cl_graph_build(ClGraph *g, const SpDomain *d,
                               SpAllocator alloc) {
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
  size_t ints = 7 * nodes + 2 * n + (size_t)vars + 4 * cycles + 4 +
                2 * g->edges + g->prevail_edges;
  g->block_size = ints * sizeof(int);
  g->block = sp__mem_alloc(alloc, g->block_size);
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
  sp__mem_free(alloc, g->block, g->block_size);
  g->block = NULL;
}

/* Is the prevail edge from setter to needer one of the cuts? (Two actions
 * may need each other's values: one direction may be cut, the other not.) */
static int cl_is_cut(const ClGraph *g, int setter, int needer) {
  for (int i = 0; i < g->cuts; i++)
    if (g->cut[2 * i] == setter && g->cut[2 * i + 1] == needer) return 1;
  return 0;
}

int sp__cl_requester_count(const ClGraph *g, int a) {
  return g->req_start[a + 1] - g->req_start[a];
}

/* Lays out the path found by sp__cl_search: side 0 from its source to x0,
 * then the edge x0 - x1 (`mid`, a step; -1 when x0 == x1), then side 1
 * from x1 back to its source. Returns the number of nodes. */
static int cl_path(ClGraph *g, int x0, int x1, int mid) {
  int len = 0;
  for (int x = x0; x >= 0;
       x = g->link[0][x] < 0 ? -1 : CL_NODE(g->link[0][x])) {
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
int sp__cl_search(ClGraph *g, int v, int from, int to) {
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
int sp__cl_cycle_length(const ClGraph *g, int k) {
  return g->cyc_start[k + 1] - g->cyc_start[k];
}

int sp__cl_cycle_action(const ClGraph *g, int k, int i) {
  return g->cyc_act[g->cyc_start[k] + i];
}

ClCycle sp__cl_cycle(const ClGraph *g, int k) {
  ClCycle c = {sp__cl_cycle_length(g, k), g->cyc_req[k]};
  return c;
}

/* Is this cycle a C2 violation (more than 2 actions, one requestable)? */
int sp__cl_too_long(ClCycle c) { return c.length > 2 && c.requestable > 0; }

/* Does this 2-cycle need the SAS-PUC*2 test (both actions requestable)? */
int sp__cl_double(ClCycle c) { return c.length == 2 && c.requestable == 2; }

/* Are the requesters of the two actions of 2-cycle k connected in G minus
 * G(v), v its variable (all of v's actions and ghosts, other cycles of v
 * included)? */
int sp__cl_connected(ClGraph *g, int k) {
  return sp__cl_search(g, g->cyc_var[k], sp__cl_cycle_action(g, k, 0),
                       sp__cl_cycle_action(g, k, 1)) > 0;
}

/* The class as far as the cycles' shapes tell, with no memory: outside
 * when a cycle breaks C2, else C0, CS2, or SAS-PUC*2 when some 2-cycle
 * has both actions requestable (still to be confirmed by sp__cl_connected).
 * Each cycle of each variable is judged on its own. */
static SpClass cl_class_shape(const SpDomain *d) {
  int vars = sp_domain_variable_count(d);
  int any = 0, twice = 0;
  for (int v = 0; v < vars; v++) {
    int cc = sp_variable_cycle_count(d, v);
    for (int c = 0; c < cc; c++) {
      ClCycle info = cl_cycle_read(d, v, c, NULL);
      if (sp__cl_too_long(info)) return SP_CLASS_OUTSIDE;
      if (info.requestable > 0) any = 1;
      if (sp__cl_double(info)) twice = 1;
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
    if (sp__cl_double(sp__cl_cycle(g, k)) && sp__cl_connected(g, k))
      return SP_CLASS_OUTSIDE;
  return SP_CLASS_CSTAR2;
}

/* The value a node of G sets: an action's post, or a ghost's value. */
SpCondition sp__cl_node_value(const ClGraph *g, int x) {
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

/* Is cycle k one of the problems an outside domain lists? */
int sp__cl_problem(ClGraph *g, int k) {
  ClCycle c = sp__cl_cycle(g, k);
  return sp__cl_too_long(c) || (sp__cl_double(c) && sp__cl_connected(g, k));
}

/* ================================================================== */
/* Entry point                                                        */
/* ================================================================== */

/* The class alone (buf NULL or size 0, needed NULL) touches no text and
 * allocates only when a 2-cycle has both actions requestable: only the
 * C*2 search needs G. */
SpStatus sp__classify(const SpDomain *d, SpAllocator alloc, SpClass *cls,
                      char *buf, size_t size, size_t *needed) {
  size_t out_size = buf != NULL ? size : 0, out_len = 0;
  if (out_size > 0) buf[0] = '\0';
  if (needed != NULL) *needed = 0;
  int text = out_size > 0 || needed != NULL;
  SpClass c = cl_class_shape(d);
  if (!text && c != SP_CLASS_CSTAR2) {
    if (cls != NULL) *cls = c;
    return SP_OK;
  }
  ClGraph g;
  if (cl_graph_build(&g, d, alloc) != SP_OK) return SP_ERR_MEMORY;
  c = cl_class_of(&g, c);
  if (text) out_len = sp__cl_explain(&g, c, buf, out_size);
  cl_graph_free(&g, alloc);
  if (cls != NULL) *cls = c;
  if (needed != NULL) *needed = out_len;
  return SP_OK;
}

/* ---- problems, for tools that draw them ------------------------------- */

int sp_domain_problems(const SpDomain *d, SpProblem *out, int max) {
  if (sp_domain_class(d) != SP_CLASS_OUTSIDE) return 0;
  ClGraph g;
  if (cl_graph_build(&g, d, d->alloc) != SP_OK) return -1;
  int count = 0;
  for (int k = 0; k < g.cycles; k++) {
    if (!sp__cl_problem(&g, k)) continue;
    if (count < max) {
      out[count].variable = g.cyc_var[k];
      out[count].cycle = g.cyc_index[k];
      out[count].connected = sp__cl_cycle_length(&g, k) == 2;
    }
    count++;
  }
  cl_graph_free(&g, d->alloc);
  return count;
}

int sp_domain_problem_path(const SpDomain *d, int problem, SpPathNode *out,
                           int max) {
  if (sp_domain_class(d) != SP_CLASS_OUTSIDE) return 0;
  ClGraph g;
  if (cl_graph_build(&g, d, d->alloc) != SP_OK) return -1;
  int len = 0;
  for (int k = 0, i = 0; k < g.cycles; k++) {
    if (!sp__cl_problem(&g, k) || i++ != problem) continue;
    if (sp__cl_cycle_length(&g, k) == 2)
      len = sp__cl_search(&g, g.cyc_var[k], sp__cl_cycle_action(&g, k, 0),
                          sp__cl_cycle_action(&g, k, 1));
    break;
  }
  for (int i = 0; i < len && i < max; i++) {
    int x = g.path[i];
    SpCondition c = sp__cl_node_value(&g, x);
    out[i].action = x < g.n ? x : -1;
    out[i].variable = c.variable;
    out[i].value = c.value;
    out[i].prevail = i > 0 && CL_KIND(g.step[i]) == CL_PREVAIL;
    out[i].forward = i > 0 && CL_DIR(g.step[i]);
  }
  cl_graph_free(&g, d->alloc);
  return len;
}
