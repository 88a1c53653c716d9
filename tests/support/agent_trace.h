/* agent_trace.h: renders a crowd's events as text, so tests compare whole event sequences. */
#ifndef agent_trace_h
#define agent_trace_h
#include <stddef.h>
#include <stdint.h>
#include "saspu_agents.h"
/* Appends this frame's events of `agent` (all agents with SP_NO_AGENT) to
 * buf as "kind[:action][/reason][@goal]" separated by spaces. */
void agent_trace(const SpCrowd *c, size_t agent, char *buf, size_t size);
/* Updates `frames` times by dt, tracing every frame into buf; frames are
 * separated by " |". */
void agent_trace_run(SpCrowd *c, size_t agent, int frames, float dt, char *buf,
                     size_t size);
/* Records one run's events (malloc'd; NULL when the seed gives no run). */
typedef SpAgentEvent *(*AgentRecorder)(uint64_t seed, int threads,
                                       size_t *count);
/* Records the runs of seeds from..to with 1, 2 and 4 threads: 1 when each
 * gives byte-identical events for every thread count, at least
 * min_events of them; else 0, naming the seed on stderr. */
int agent_same_events_any_threads(AgentRecorder rec, uint64_t from, uint64_t to,
                                  size_t min_events);
/* Seeds a random agent test runs past its own (a soak by hand): the
 * environment's SASPU_AGENT_SEEDS, 0 when unset or not a count. */
uint64_t agent_soak_seeds(void);
/* Where those seeds start past the test's own: the environment's
 * SASPU_AGENT_SEED_FROM (0 when unset or not a count), so soaks on
 * several machines or days run new seeds. */
uint64_t agent_soak_from(void);
#endif
