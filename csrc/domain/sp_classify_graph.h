/* sp_classify_graph.h: the action graph G of the class analysis, shared by classify.c (which builds and searches it) and explain.c (which says it in words). */
#ifndef sp_classify_graph_h
#define sp_classify_graph_h

#include "sp_classify.h"

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
#define CL_DIR(e)  ((e)&1)

typedef struct ClGraph {
  const SpDomain *d;
  int n;      /* action count */
  int nodes;  /* n + the number of values */
  int cycles; /* cycles of all variables, numbered by variable then index */
  int *value_base; /* variables + 1: global index of each variable's value 0 */
  int *var;        /* nodes: the variable of each node */
  int *
      req_start; /* n + 1: requesters of a: req_list[req_start[a]..req_start[a+1]) */
  int *req_list;
  int *adj_start; /* nodes + 1 */
  int *adj;       /* G, every edge stored at both ends */
  int *seen;      /* nodes: search stamp, one per side (see sp__cl_search) */
  int *link[2];   /* nodes each: how each side of a search reached a node */
  int *queue[2];  /* nodes each: the two search queues */
  int *path;      /* the last path found: nodes (aliases queue[0]) */
  int *step;      /* and the step into each (aliases queue[1]) */
  int *cyc_var;   /* cycles: the variable of each cycle */
  int *cyc_index; /* cycles: its number among that variable's cycles */
  int *cyc_req;   /* cycles: how many of its actions are requestable */
  int *
      cyc_start; /* cycles + 1: its actions are cyc_act[cyc_start[k]..cyc_start[k+1]) */
  int *cyc_act; /* n at most: every cycle's actions in cycle order */
  int stamp;
  int cuts; /* prevail edges the search skips: cut[2i] sets, cut[2i+1] needs */
  int cut[2 * SP_EXPLAIN_MAX_CUTS];
  size_t edges, prevail_edges; /* counted by the first walk: all, real E_prv */
  void *block;
  size_t block_size;
} ClGraph;

/* Length and requestable count of one cycle of a variable. */
typedef struct ClCycle {
  int length;
  int requestable;
} ClCycle;

/* The requestable actions that request action a (prevail on its post). */
int sp__cl_requester_count(const ClGraph *g, int a);
/* A path between a requester of `from` and one of `to` in G minus G(v),
 * skipping the cut prevail edges: its node count (g->path, g->step), or 0. */
int sp__cl_search(ClGraph *g, int v, int from, int to);
/* Cycle k of G's table (all variables' cycles, by variable then index):
 * its length, its i-th action, its length and requestable count. */
int sp__cl_cycle_length(const ClGraph *g, int k);
int sp__cl_cycle_action(const ClGraph *g, int k, int i);
ClCycle sp__cl_cycle(const ClGraph *g, int k);
/* Is this cycle a C2 violation (more than 2 actions, one requestable)? */
int sp__cl_too_long(ClCycle c);
/* Does this 2-cycle need the SAS-PUC*2 test (both actions requestable)? */
int sp__cl_double(ClCycle c);
/* Are the requesters of 2-cycle k's two actions connected in G minus G(v)? */
int sp__cl_connected(ClGraph *g, int k);
/* Is cycle k one of the problems an outside domain lists? */
int sp__cl_problem(ClGraph *g, int k);
/* The value node x sets: an action's post, or a ghost's value. */
SpCondition sp__cl_node_value(const ClGraph *g, int x);

/* explain.c: writes the explanation of class `cls` (G built) to buf with
 * snprintf semantics; returns its full length. */
size_t sp__cl_explain(ClGraph *g, SpClass cls, char *buf, size_t size);

#endif
