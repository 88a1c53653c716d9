/* goap_astar.h: the GOAP baseline, forward A* over packed full states with unit costs, for comparison with saspu. */
#ifndef goap_astar_h
#define goap_astar_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"

/* Default node cap: how many distinct states one query may store. */
#if !defined(GOAP_DEFAULT_NODE_CAP)
#define GOAP_DEFAULT_NODE_CAP (1L << 20)
#endif

/* The planner as a GOAP library would build it: every state packed into
 * 64-bit words (a fixed-width bit field per variable), each action a
 * precondition mask/value pair over those words plus one field write,
 * unit action costs, heuristic = number of variables whose value differs
 * from the goal (admissible and consistent when every action changes one
 * variable), an open list kept as a binary heap, and a closed set that is
 * a hash table of packed states. All storage is allocated once by
 * goap_planner_new and reused: a query allocates nothing. */
typedef struct GoapPlanner GoapPlanner;

typedef enum GoapResult {
  GOAP_FOUND = 0, /* a plan of minimal length was found */
  GOAP_NO_PLAN,   /* the goal is unreachable (every reachable state seen) */
  GOAP_CAPPED     /* the node cap was hit before an answer */
} GoapResult;

/* Builds the planner for `d` (which must outlive it). node_cap bounds the
 * states one query may store (<= 0: GOAP_DEFAULT_NODE_CAP). Returns NULL
 * when memory runs out or node_cap is over 2^30. */
GoapPlanner *goap_planner_new(const SpDomain *d, long node_cap);
void goap_planner_free(GoapPlanner *p);

/* Searches from s0 to the total state goal. On GOAP_FOUND *len is the
 * plan length and plan[0..min(*len, plan_cap)-1] receives the action ids
 * in order (A* plans may repeat actions, so they can be longer than the
 * action count outside the tractable classes). *len is -1 otherwise. */
GoapResult goap_plan(GoapPlanner *p, const SpValue *s0, const SpValue *goal,
                     uint16_t *plan, int plan_cap, int *len);

/* Node expansions and distinct states stored by the last query. */
long goap_last_expanded(const GoapPlanner *p);
long goap_last_stored(const GoapPlanner *p);

/* Bytes held by the planner (all of its preallocated storage). */
size_t goap_planner_size_bytes(const GoapPlanner *p);

/* Bits per variable field and 64-bit words per packed state. */
int goap_planner_field_bits(const GoapPlanner *p);
int goap_planner_state_words(const GoapPlanner *p);

const char *goap_result_name(GoapResult r);

#endif
