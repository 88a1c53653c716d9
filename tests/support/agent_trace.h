/* agent_trace.h: renders a crowd's events as text, so tests compare whole event sequences. */
#ifndef agent_trace_h
#define agent_trace_h
#include <stddef.h>
#include "saspu_agents.h"
/* Appends this frame's events of `agent` (all agents with SP_NO_AGENT) to
 * buf as "kind[:action][/reason][@goal]" separated by spaces. */
void agent_trace(const SpCrowd *c, size_t agent, char *buf, size_t size);
/* Updates `frames` times by dt, tracing every frame into buf; frames are
 * separated by " |". */
void agent_trace_run(SpCrowd *c, size_t agent, int frames, float dt,
                     char *buf, size_t size);
#endif
