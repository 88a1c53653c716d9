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

/* An adjacency entry is neighbour << 2 | kind << 1 | in, `in` being 1
 * when the edge points from the neighbour to the owner of the list.
 * A search link is from << 2 | kind << 1 | forward, `forward` being 1
 * when the edge points from `from` to the action holding the link.
 * Action ids are below 65536, so both fit an int. */
#define CL_NODE(e) ((e) >> 2)
#define CL_KIND(e) (((e) >> 1) & 1)
#define CL_DIR(e) ((e) & 1)

typedef struct ClGraph {
  const SpDomain *d;
  int n;          /* action count */
  int *req_start; /* n + 1: requesters of a: req_list[req_start[a]..req_start[a+1]) */
  int *req_list;
  int *adj_start; /* n + 1 */
  int *adj;       /* G, every edge stored at both ends */
  int *seen;      /* search stamp per action */
  int *target;    /* stamp marking the actions a search looks for */
  int *link;      /* how the search reached each action, -1 for a source */
  int *queue;     /* search queue, then the path found */
  int stamp;
  size_t edges, prevail_edges; /* counted by the first walk */
  void *block;
  size_t block_size;
} ClGraph;

typedef void (*ClEdgeFn)(ClGraph *g, int from, int to, int kind);

/* Calls add for every edge of G in a fixed order (by target action, its
 * pre edge first, then its prevails in declaration order). A prevail with
 * a setter makes that setter requestable, so it is one E_prv edge. */
static void cl_walk_edges(ClGraph *g, ClEdgeFn add) {
  const SpDomain *d = g->d;
  for (int b = 0; b < g->n; b++) {
    int s = sp_domain_setter(d, sp_action_variable(d, b), sp_action_pre(d, b));
    if (s >= 0) add(g, s, b, CL_PRE);
    int pc = sp_action_prevail_count(d, b);
    for (int i = 0; i < pc; i++) {
      SpCondition c = sp_action_prevail(d, b, i);
      int r = sp_domain_setter(d, c.variable, c.value);
      if (r >= 0) add(g, r, b, CL_PREVAIL);
    }
  }
}

static void cl_count_edge(ClGraph *g, int from, int to, int kind) {
  (void)from;
  (void)to;
  g->edges++;
  if (kind == CL_PREVAIL) g->prevail_edges++;
}

static void cl_degree_edge(ClGraph *g, int from, int to, int kind) {
  g->adj_start[from + 1]++;
  g->adj_start[to + 1]++;
  if (kind == CL_PREVAIL) g->req_start[from + 1]++;
}

/* The fill cursors live in queue (adjacency) and seen (requesters). */
static void cl_fill_edge(ClGraph *g, int from, int to, int kind) {
  g->adj[g->queue[from]++] = to << 2 | kind << 1 | 0;
  g->adj[g->queue[to]++] = from << 2 | kind << 1 | 1;
  if (kind == CL_PREVAIL) g->req_list[g->seen[from]++] = to;
}

/* Builds G and the requester lists in one scratch block of
 * 6n + 2 + 2|E| + |E_prv| ints. Lists are in action order, so searches
 * and explanations are deterministic. Returns SP_ERR_MEMORY when the
 * block cannot be allocated (nothing is then held). */
static SpStatus cl_graph_build(ClGraph *g, const SpDomain *d, SpAllocator alloc) {
  memset(g, 0, sizeof *g);
  g->d = d;
  g->n = sp_domain_action_count(d);
  cl_walk_edges(g, cl_count_edge);
  size_t n = (size_t)g->n;
  size_t ints = 6 * n + 2 + 2 * g->edges + g->prevail_edges;
  g->block_size = ints * sizeof(int);
  g->block = sp_mem_alloc(alloc, g->block_size);
  if (g->block == NULL) return SP_ERR_MEMORY;
  int *p = g->block;
  memset(p, 0, g->block_size);
  g->req_start = p, p += n + 1;
  g->adj_start = p, p += n + 1;
  g->seen = p, p += n;
  g->target = p, p += n;
  g->link = p, p += n;
  g->queue = p, p += n;
  g->adj = p, p += 2 * g->edges;
  g->req_list = p;

  cl_walk_edges(g, cl_degree_edge);
  for (size_t a = 0; a < n; a++) {
    g->adj_start[a + 1] += g->adj_start[a];
    g->req_start[a + 1] += g->req_start[a];
  }
  for (size_t a = 0; a < n; a++) {
    g->queue[a] = g->adj_start[a];
    g->seen[a] = g->req_start[a];
  }
  cl_walk_edges(g, cl_fill_edge);
  memset(g->seen, 0, n * sizeof(int));
  return SP_OK;
}

static void cl_graph_free(ClGraph *g, SpAllocator alloc) {
  sp_mem_free(alloc, g->block, g->block_size);
  g->block = NULL;
}

static int cl_requester_count(const ClGraph *g, int a) {
  return g->req_start[a + 1] - g->req_start[a];
}

/* Breadth-first search in G minus G(v), edges taken both ways, from every
 * requester of `from` to any requester of `to` (requesters are never on
 * v: an action has no prevail on its own variable). Returns the requester
 * of `to` reached first, or -1 when none is connected. On success the
 * links lead back from it along a shortest path to a requester of
 * `from`. O(|A| + |E_A|). */
static int cl_search(ClGraph *g, int v, int from, int to) {
  const SpDomain *d = g->d;
  int stamp = ++g->stamp;
  int head = 0, tail = 0;
  for (int i = g->req_start[to]; i < g->req_start[to + 1]; i++)
    g->target[g->req_list[i]] = stamp;
  for (int i = g->req_start[from]; i < g->req_start[from + 1]; i++) {
    int s = g->req_list[i];
    if (g->seen[s] == stamp) continue;
    g->seen[s] = stamp;
    g->link[s] = -1;
    if (g->target[s] == stamp) return s;
    g->queue[tail++] = s;
  }
  while (head < tail) {
    int x = g->queue[head++];
    for (int i = g->adj_start[x]; i < g->adj_start[x + 1]; i++) {
      int e = g->adj[i];
      int y = CL_NODE(e);
      if (g->seen[y] == stamp || sp_action_variable(d, y) == v) continue;
      g->seen[y] = stamp;
      g->link[y] = x << 2 | CL_KIND(e) << 1 | (CL_DIR(e) ^ 1);
      if (g->target[y] == stamp) return y;
      g->queue[tail++] = y;
    }
  }
  return -1;
}

/* Puts the path that ends at t into queue[0..len-1], source first, and
 * returns len. Call right after a successful cl_search. */
static int cl_path(ClGraph *g, int t) {
  int len = 0;
  for (int x = t; x >= 0; x = g->link[x] < 0 ? -1 : CL_NODE(g->link[x]))
    g->queue[len++] = x;
  for (int i = 0, j = len - 1; i < j; i++, j--) {
    int tmp = g->queue[i];
    g->queue[i] = g->queue[j];
    g->queue[j] = tmp;
  }
  return len;
}

/* ================================================================== */
/* Cycles                                                             */
/* ================================================================== */

typedef struct ClCycle {
  int length;      /* |Cycle(v)| */
  int requestable; /* |Req(v) ∩ Cycle(v)| */
} ClCycle;

static ClCycle cl_cycle(const SpDomain *d, int v) {
  ClCycle c;
  c.length = sp_variable_cycle_length(d, v);
  c.requestable = 0;
  for (int i = 0; i < c.length; i++)
    if (sp_action_is_requestable(d, sp_variable_cycle_action(d, v, i)))
      c.requestable++;
  return c;
}

/* Is this cycle a C2 violation (more than 2 actions, one requestable)? */
static int cl_too_long(ClCycle c) { return c.length > 2 && c.requestable > 0; }

/* Does this 2-cycle need the SAS-PUC*2 test (both actions requestable)? */
static int cl_double(ClCycle c) { return c.length == 2 && c.requestable == 2; }

/* Both 2-cycle actions requestable and their requesters connected. */
static int cl_connected(ClGraph *g, int v) {
  const SpDomain *d = g->d;
  return cl_search(g, v, sp_variable_cycle_action(d, v, 0),
                   sp_variable_cycle_action(d, v, 1)) >= 0;
}

/* The class alone: the smallest of C0, CS2, C*2, else outside. */
static SpClass cl_class_of(ClGraph *g) {
  const SpDomain *d = g->d;
  int vars = sp_domain_variable_count(d);
  int any = 0, twice = 0;
  for (int v = 0; v < vars; v++) {
    ClCycle c = cl_cycle(d, v);
    if (cl_too_long(c)) return SP_CLASS_OUTSIDE;
    if (c.requestable > 0) any = 1;
    if (cl_double(c)) twice = 1;
  }
  if (!any) return SP_CLASS_C0;
  if (!twice) return SP_CLASS_CS2;
  for (int v = 0; v < vars; v++)
    if (cl_double(cl_cycle(d, v)) && cl_connected(g, v)) return SP_CLASS_OUTSIDE;
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

/* 'a' -> 'b' -> 'a' */
static void cl_cycle_actions(ClOut *o, const SpDomain *d, int v) {
  int len = sp_variable_cycle_length(d, v);
  for (int i = 0; i <= len; i++) {
    if (i > 0) cl_printf(o, " -> ");
    cl_action(o, d, sp_variable_cycle_action(d, v, i % len));
  }
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

/* One step of a path: 'x' -pre-> 'y' or 'x' <-prevail- 'y'. */
static void cl_step(ClOut *o, const SpDomain *d, int x, int y, int link) {
  cl_action(o, d, x);
  cl_arrow(o, link);
  cl_action(o, d, y);
}

/* Why a step is an edge of G: which value its tail sets for its head. */
static void cl_step_reason(ClOut *o, const SpDomain *d, int x, int y, int link) {
  int from = CL_DIR(link) ? x : y, to = CL_DIR(link) ? y : x;
  cl_action(o, d, from);
  cl_printf(o, " sets ");
  cl_condition(o, d, sp_action_variable(d, from), sp_action_post(d, from));
  cl_printf(o, "%s", CL_KIND(link) == CL_PRE ? ", the pre of " : ", a prevail of ");
  cl_action(o, d, to);
}

static const char cl_guarantee[] =
    "Guarantee: every solvable instance has a minimal plan in which no "
    "action occurs twice; the planner finds one, or reports that none "
    "exists, in time linear in the size of the action graph.\n";

static const char cl_no_guarantee[] =
    "Plans are not guaranteed: some instance may need an action twice (or "
    "an exponentially long plan), and the planner may then report it "
    "unsolvable although a plan exists.\n";

/* Problem (a): a cycle longer than 2 holding a requested action. */
static void cl_explain_long(ClOut *o, const ClGraph *g, int v, int number) {
  const SpDomain *d = g->d;
  int len = sp_variable_cycle_length(d, v);
  cl_printf(o, "%d. the cycle of ", number);
  cl_variable(o, d, v);
  cl_printf(o, " has %d actions (", len);
  cl_cycle_actions(o, d, v);
  cl_printf(o, ") and holds a requested action; a cycle with a requested "
               "action must have at most 2 actions, else a plan could need "
               "an action twice (going round the cycle again).\n");
  cl_printf(o, "   fix: shorten the cycle of ");
  cl_variable(o, d, v);
  cl_printf(o, " to 2 actions (remove an action, or split the variable so "
               "its values form a path), or drop the prevails on ");
  cl_variable(o, d, v);
  cl_printf(o, " that request its cycle actions:\n");
  for (int i = 0; i < len; i++) {
    int a = sp_variable_cycle_action(d, v, i);
    if (cl_requester_count(g, a) == 0) continue;
    cl_printf(o, "   ");
    cl_requested(o, g, a);
    cl_printf(o, "\n");
  }
}

/* Problem (b): a 2-cycle {a+, a-}, both requested, whose requesters are
 * connected in G minus G(v). Runs the search again to get the path. */
static void cl_explain_connected(ClOut *o, ClGraph *g, int v, int number) {
  const SpDomain *d = g->d;
  int plus = sp_variable_cycle_action(d, v, 0);
  int minus = sp_variable_cycle_action(d, v, 1);
  int t = cl_search(g, v, plus, minus);
  int len = cl_path(g, t);
  int s = g->queue[0];
  cl_printf(o, "%d. the cycle of ", number);
  cl_variable(o, d, v);
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
  cl_action(o, d, s);
  int cut = -1; /* the first prevail edge of the path, if any */
  for (int i = 1; i < len; i++) {
    int link = g->link[g->queue[i]];
    cl_arrow(o, link);
    cl_action(o, d, g->queue[i]);
    if (cut < 0 && CL_KIND(link) == CL_PREVAIL) cut = i;
  }

  /* The fix comes before the details: a compile error keeps only the
   * start of this text. */
  cl_printf(o, "\n   fix: make the two groups of requesters independent: ");
  if (cut > 0) {
    int x = g->queue[cut - 1], y = g->queue[cut], link = g->link[y];
    int setter = CL_DIR(link) ? x : y, needer = CL_DIR(link) ? y : x;
    cl_printf(o, "cut the path (e.g. drop the prevail ");
    cl_condition(o, d, sp_action_variable(d, setter), sp_action_post(d, setter));
    cl_printf(o, " of ");
    cl_action(o, d, needer);
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
  cl_printf(o, " no longer form a cycle.\n   edges of the path:\n");
  for (int i = 1; i < len; i++) {
    int x = g->queue[i - 1], y = g->queue[i], link = g->link[y];
    cl_printf(o, "     ");
    cl_step(o, d, x, y, link);
    cl_printf(o, ": ");
    cl_step_reason(o, d, x, y, link);
    cl_printf(o, "\n");
  }
  cl_printf(o, "   ");
  cl_requested(o, g, plus);
  cl_printf(o, "\n   ");
  cl_requested(o, g, minus);
  cl_printf(o, "\n");
}

/* The first lines: the class and why (for outside: the problems). */
static void cl_explain_class(ClOut *o, ClGraph *g, SpClass cls) {
  const SpDomain *d = g->d;
  int vars = sp_domain_variable_count(d);
  const char *name = sp_domain_name(d);
  cl_printf(o, "'%s' is ", cl_str(name));
  if (cls == SP_CLASS_OUTSIDE) {
    int problems = 0;
    for (int v = 0; v < vars; v++) {
      ClCycle c = cl_cycle(d, v);
      if (cl_too_long(c) || (cl_double(c) && cl_connected(g, v))) problems++;
    }
    cl_printf(o, "outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (%d problem%s):\n",
              problems, problems == 1 ? "" : "s");
    int number = 0;
    for (int v = 0; v < vars && number < SP_EXPLAIN_MAX_ITEMS; v++) {
      ClCycle c = cl_cycle(d, v);
      if (cl_too_long(c))
        cl_explain_long(o, g, v, ++number);
      else if (cl_double(c) && cl_connected(g, v))
        cl_explain_connected(o, g, v, ++number);
    }
    if (problems > number) cl_printf(o, "   ... and %d more problems\n", problems - number);
    cl_printf(o, "%s", cl_no_guarantee);
    return;
  }
  cl_printf(o, "%s: ", sp_class_name(cls));
  if (cls == SP_CLASS_C0) {
    int cycles = 0;
    for (int v = 0; v < vars; v++)
      if (sp_variable_cycle_length(d, v) > 0) cycles++;
    cl_printf(o, "%s", cycles == 0 ? "the domain has no cycle, so no cycle contains a "
                                     "requestable action.\n"
                                   : "no cycle contains a requestable action.\n");
  } else if (cls == SP_CLASS_CS2) {
    cl_printf(o, "every cycle with a requestable action has 2 actions and only "
                 "one of them is requestable (not SAS-PUC0: ");
    int shown = 0;
    for (int v = 0; v < vars && shown < SP_EXPLAIN_MAX_NAMES; v++) {
      if (cl_cycle(d, v).requestable == 0) continue;
      for (int i = 0; i < 2; i++) {
        int a = sp_variable_cycle_action(d, v, i);
        if (!sp_action_is_requestable(d, a)) continue;
        cl_printf(o, "%s", shown++ > 0 ? ", " : "");
        cl_action(o, d, a);
        cl_printf(o, " on the cycle of ");
        cl_variable(o, d, v);
      }
    }
    cl_printf(o, " %s requested).\n", shown == 1 ? "is" : "are");
  } else {
    cl_printf(o, "every cycle with a requestable action has 2 actions; where "
                 "both are requestable (so not SAS-PUCS2), the requesters of "
                 "one and those of the other are not connected once the "
                 "cycle's variable is taken out of the action graph G, so "
                 "each group can be ordered on its own:\n");
    int shown = 0;
    for (int v = 0; v < vars; v++) {
      if (!cl_double(cl_cycle(d, v))) continue;
      if (shown++ == SP_EXPLAIN_MAX_ITEMS) {
        cl_printf(o, "  ... and more\n");
        break;
      }
      int plus = sp_variable_cycle_action(d, v, 0);
      int minus = sp_variable_cycle_action(d, v, 1);
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

/* The cycles and the requestable actions, for every class. */
static void cl_explain_lists(ClOut *o, const ClGraph *g) {
  const SpDomain *d = g->d;
  int vars = sp_domain_variable_count(d);
  int cycles = 0, requestable = 0;
  for (int v = 0; v < vars; v++)
    if (sp_variable_cycle_length(d, v) > 0) cycles++;
  for (int a = 0; a < g->n; a++)
    if (sp_action_is_requestable(d, a)) requestable++;

  if (cycles == 0) cl_printf(o, "cycles: none.\n");
  else cl_printf(o, "cycles (%d):\n", cycles);
  int shown = 0;
  for (int v = 0; v < vars && cycles > 0; v++) {
    int len = sp_variable_cycle_length(d, v);
    if (len == 0) continue;
    if (shown++ == SP_EXPLAIN_MAX_ITEMS) {
      cl_printf(o, "  ... and %d more\n", cycles - SP_EXPLAIN_MAX_ITEMS);
      break;
    }
    cl_printf(o, "  ");
    cl_variable(o, d, v);
    cl_printf(o, ": ");
    cl_cycle_actions(o, d, v);
    int listed = 0;
    for (int i = 0; i < len; i++) {
      int a = sp_variable_cycle_action(d, v, i);
      if (!sp_action_is_requestable(d, a)) continue;
      cl_printf(o, "%s", listed++ == 0 ? "; requestable: " : ", ");
      cl_action(o, d, a);
    }
    cl_printf(o, "%s", listed == 0 ? "; no requestable action\n" : "\n");
  }

  if (requestable == 0) cl_printf(o, "requestable actions: none.\n");
  else cl_printf(o, "requestable actions (%d):\n", requestable);
  shown = 0;
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

SpStatus sp_classify(const SpDomain *d, SpAllocator alloc, SpClass *cls,
                     char *buf, size_t size, size_t *needed) {
  ClOut out = {buf, buf != NULL ? size : 0, 0};
  if (out.size > 0) buf[0] = '\0';
  if (needed != NULL) *needed = 0;
  ClGraph g;
  if (cl_graph_build(&g, d, alloc) != SP_OK) return SP_ERR_MEMORY;
  SpClass c = cl_class_of(&g);
  if (out.size > 0 || needed != NULL) {
    cl_explain_class(&out, &g, c);
    cl_explain_lists(&out, &g);
  }
  cl_graph_free(&g, alloc);
  if (cls != NULL) *cls = c;
  if (needed != NULL) *needed = out.len;
  return SP_OK;
}
