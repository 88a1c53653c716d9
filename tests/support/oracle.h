/* oracle.h: brute-force judges for tests: breadth-first search over all states, and the IJCAI class definitions. */
#ifndef oracle_h
#define oracle_h

#include <stdio.h>

#include "saspu.h"

/* Largest state space the search accepts (one int32 distance per state). */
#if !defined(ORACLE_MAX_STATES)
#define ORACLE_MAX_STATES 4000000L
#endif

/* ------------------------------------------------------------------ */
/* State space and breadth-first search                               */
/* ------------------------------------------------------------------ */

/* The full state space of one compiled domain: a state is the mixed-radix
 * number sum s[i] * stride[i] (v0 varies fastest). Holds the distances of
 * the last oracle_bfs call. */
typedef struct OracleSpace OracleSpace;

/* NULL when the domain has more than ORACLE_MAX_STATES states or memory
 * runs out. `d` must outlive the space. */
OracleSpace *oracle_space_new(const SpDomain *d);
void oracle_space_free(OracleSpace *o);
/* The number of states the domain would have, or -1 if over the limit. */
long oracle_count_states(const SpDomain *d);

long oracle_state_count(const OracleSpace *o);
long oracle_state_index(const OracleSpace *o, const SpValue *s);
void oracle_state_decode(const OracleSpace *o, long index, SpValue *out);

/* Distances (fewest actions) from s0 to every state; -1 = unreachable. */
void oracle_bfs(OracleSpace *o, const SpValue *s0);
/* Distance to goal; a goal with SP_ANY entries (a partial goal) gets the
 * distance to the nearest state matching it. */
int oracle_distance(const OracleSpace *o, const SpValue *goal);
int oracle_goal_is_partial(const OracleSpace *o, const SpValue *goal);
/* Index of a nearest reachable state matching goal, -1 when none. */
long oracle_nearest_match(const OracleSpace *o, const SpValue *goal);
int oracle_distance_at(const OracleSpace *o, long index);
/* States reachable from the last BFS start (the start included). */
long oracle_reachable_count(const OracleSpace *o);
/* One shortest plan from the last BFS start to `goal` into plan (room
 * for the distance); returns its length, or -1 when unreachable. */
int oracle_shortest_plan(const OracleSpace *o, const SpValue *goal,
                         uint16_t *plan);

/* ------------------------------------------------------------------ */
/* Checking the planner against the search                            */
/* ------------------------------------------------------------------ */

/* How many mismatches print a full report; later ones are only counted.
 * Default 3 per space. */
void oracle_set_report_limit(OracleSpace *o, int limit);
/* Text printed before the first report of this space (e.g. a seed). */
void oracle_set_label(OracleSpace *o, const char *label);
long oracle_failure_count(const OracleSpace *o);

/* Running totals of the checks (all fields only ever grow). */
typedef struct OracleTally {
  long pairs;    /* pairs checked */
  long solvable; /* pairs whose goal BFS reaches */
  long planned;  /* pairs on which sp_plan returned SP_OK */
  long failures; /* mismatches */
} OracleTally;

/* Checks sp_plan on (s0, goal) against the distances of the last
 * oracle_bfs(o, s0) call (the caller must have run it from this s0):
 * SP_OK iff the goal is reachable, the plan replays from s0 to the goal
 * (sp_plan_replay; to a state matching it when the goal is partial), no action repeats, and its length is the BFS
 * distance. Returns 1 when all hold. On a mismatch prints the domain, the
 * pair, the status, failure, plan and distance to `out` (within the report
 * limit; `out` may be NULL) and returns 0. `t` may be NULL. */
int oracle_check_pair(OracleSpace *o, SpWorkspace *ws, const SpValue *s0,
                      const SpValue *goal, OracleTally *t, FILE *out);

/* One BFS from s0, then oracle_check_pair for every goal state. Returns
 * the number of mismatches, or -1 when memory runs out. */
long oracle_check_start(OracleSpace *o, SpWorkspace *ws, const SpValue *s0,
                        OracleTally *t, FILE *out);

/* One BFS from s0, then oracle_check_pair for every partial goal: each
 * variable given one of its values or left free (SP_ANY), all
 * combinations. With `keep`, a left-out variable gets s0's value instead
 * (the goal is total). Same return. */
long oracle_check_start_partial(OracleSpace *o, SpWorkspace *ws,
                                const SpValue *s0, int keep, OracleTally *t,
                                FILE *out);

/* Every (s0, s*) pair of the space. Same return. */
long oracle_check_all_pairs(OracleSpace *o, SpWorkspace *ws, OracleTally *t,
                            FILE *out);

/* ------------------------------------------------------------------ */
/* Printing                                                           */
/* ------------------------------------------------------------------ */

/* Every variable with its values, every action with pre, post and
 * prevails, the oracle's class under both readings, then the class the
 * compiler found and its explanation. */
void oracle_print_domain(FILE *out, const SpDomain *d);
/* The same listing from an uncompiled description (with the oracle's
 * class), for domains the compiler refused. */
void oracle_print_spec(FILE *out, const SpDomainSpec *spec);
/* <v0=name, v1=name, ...> followed by the raw digits. */
void oracle_print_state(FILE *out, const SpDomain *d, const SpValue *s);
void oracle_print_plan(FILE *out, const SpDomain *d, const uint16_t *plan,
                       int len);

/* ------------------------------------------------------------------ */
/* Brute-force class analysis                                         */
/* ------------------------------------------------------------------ */

/* The smallest of SAS-PUC0 <= SAS-PUCS2 <= SAS-PUC*2 the domain is in,
 * or outside, computed directly from the IJCAI 2023 definitions (domain
 * action graphs, Cycle(v), requestable actions, Ck, CS2, C*2 with
 * requesters' connectivity in G minus G(v), edges taken undirected). It
 * shares no code with the compiler's own analysis. `why` (may be NULL)
 * receives one sentence on the deciding cycle. A spec that breaks the
 * model's basic rules (indices out of range, pre == post, two setters of
 * one value) gives SP_CLASS_OUTSIDE with the reason in `why`. */
SpClass oracle_classify_spec(const SpDomainSpec *spec, char *why,
                             size_t why_size);
SpClass oracle_classify_domain(const SpDomain *d, char *why, size_t why_size);

/* Variants of the analysis, for comparing readings of the definitions. */
enum {
  /* Ghost values (no setter) become nodes of G, linked to the actions
   * whose pre or prevail they are, so two requesters that both touch one
   * start-only value count as related in the C*2 test. */
  ORACLE_CLASS_GHOST_NODES = 1
};
SpClass oracle_classify_spec_ex(const SpDomainSpec *spec, int flags, char *why,
                                size_t why_size);
SpClass oracle_classify_domain_ex(const SpDomain *d, int flags, char *why,
                                  size_t why_size);

#endif
