/* sp_visit.h: private to csrc/agents/: one pass's visit of one chunk (chunk_visit.c), for the frame's passes in update.c. */
#ifndef sp_visit_h
#define sp_visit_h

#include "sp_agents.h"

/* The frame's passes over the chunks, in the order a frame runs them
 * (c->pass): goal choice, take, advance, and the commit of the binding
 * pass's reservations. */
enum { PASS_CHOOSE = 0, PASS_TAKE, PASS_ADVANCE, PASS_COMMIT };

/* Runs the current pass over one chunk; returns the agents it flagged
 * for the next stage (planning, or binding). `requested`: the choose
 * pass's look-ahead requested the chunk's listed agents. */
uint32_t sp__chunk_visit(SpCrowd *c, Sink s, size_t chunk, int requested);

/* The take pass over a chunk (also run by a choose pass that plans
 * inline, `hot`: the chunk's agents just chose); returns the agents that
 * wait for a plan again, marked for the planner. */
uint32_t sp__chunk_take(SpCrowd *c, Sink s, size_t chunk, int hot);

/* After a pass: the agents its workers marked for the planner, added to
 * the population's count. */
void sp__chunk_count_marked(SpCrowd *c);

/* Before the choose pass, serial: shares the crowd's goal budget among
 * its chunks, in order (nothing without a budget). */
void sp__chunk_share_budget(SpCrowd *c);

/* The choose pass's look-ahead over a worker's run of chunks: most
 * chunks list one agent to choose or none, so agents requested as their
 * chunk starts would each keep the pass waiting on memory. The listed
 * agents of the chunks ahead are requested about SP_PREFETCH_AHEAD
 * agents before their turn. */
typedef struct ChooseAhead {
  size_t next, end; /* the first chunk not looked at yet; the run's end */
  size_t queued;    /* agents requested whose chunks have not run yet */
} ChooseAhead;

/* Chunk t of the run [t, end) starts: requests agents ahead; returns 1
 * when chunk t's own were requested before. */
int sp__choose_ahead(const SpCrowd *c, ChooseAhead *a, size_t t, size_t end);

#endif
