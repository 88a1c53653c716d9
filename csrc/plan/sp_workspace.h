/* sp_workspace.h: the planner's per-thread workspace: scratch records per action and variable, stored orders (private to csrc/plan/). */
#ifndef sp_workspace_h
#define sp_workspace_h

#include <stdint.h>

#include "sp_internal.h"
#include "sp_partial.h"

/* Action flags (16 bits, not 8: a char store may alias anything and makes
 * the compiler reload every pointer after it). */
enum { FLAG_EMITTED = 1, FLAG_HELD = 2 };
/* Variable flags. */
enum { VAR_LOOP = 1, VAR_HELD = 2 };

/* Per action; valid when stamp == gen. */
typedef struct ActScratch {
  uint32_t stamp;
  int32_t indegree;
  int32_t first_edge, last_edge; /* stored successors, in the order found */
  uint16_t next;                 /* next on the timeline, SP_NONE16 last */
  uint16_t flags;
} ActScratch;

/* A loop whose start value is requested: its first action is held back
 * until nothing else can run. */
typedef struct Held {
  uint16_t first, restore; /* its first and last actions */
  uint16_t variable;
  uint16_t pad;
  uint32_t lo, hi; /* the requesters of s0[w]: requester list lo..hi-1 */
} Held;

/* Per variable; valid when stamp == gen (the variable has a timeline). */
typedef struct VarScratch {
  uint32_t stamp;
  uint16_t first; /* the timeline's first action */
  uint16_t flags; /* VAR_LOOP: it starts with the loop; VAR_HELD: the
                     loop's start value is requested, a choice */
} VarScratch;

/* A stored order (timeline orders are not stored: see `next`). */
typedef struct Edge {
  int32_t next; /* next edge out of `from` */
  uint16_t from, to;
  uint16_t kind;
} Edge;

struct SpWorkspace {
  SpAllocator alloc;
  size_t size;
  const SpDomain *domain;
  uint32_t gen, visit_gen;

  ActScratch *act;
  VarScratch *var;
  uint32_t *visit_stamp; /* per action, for the safety search */
  uint32_t *decided;     /* per requester list entry: == gen when this
                        start-value prevail is ordered against the loop */
  uint8_t *value_max;    /* per variable: its largest value (constant) */
  SpValue *goal_scratch[SP_GOAL_SCRATCH]; /* per variable, for partial.c */
  int small_values; /* every variable has at most 128 values */

  uint16_t *touched; /* variables with a timeline */
  int touched_count;
  uint16_t *chosen; /* the actions of the plan, in discovery order */
  int chosen_count;
  Held *held; /* loops with start-value requesters */
  int held_count;
  uint16_t *stack;

  Edge *edge;
  int edge_count;
  int link_count; /* timeline orders of the last plan */
};

/* Zeroes every stamp (after the generation counter wraps). */
void sp__workspace_clear_stamps(SpWorkspace *ws);

#endif
