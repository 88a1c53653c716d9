/* agent_trace.c: renders a crowd's events as text, so tests compare whole event sequences. */
#include <stdio.h>
#include <string.h>

#include "agent_trace.h"

void agent_trace(const SpCrowd *c, size_t agent, char *buf, size_t size) {
  const SpDomain *d = sp_crowd_domain(c);
  const SpAgentEvent *e = sp_crowd_events(c);
  for (size_t k = 0; k < sp_crowd_event_count(c); k++) {
    if (agent != SP_NO_AGENT && e[k].agent != agent) continue;
    size_t len = strlen(buf);
    if (len + 1 >= size) return;
    int n = snprintf(buf + len, size - len, "%s%s",
                     len && buf[len - 1] != ' ' ? " " : "",
                     sp_event_kind_name((SpEventKind)e[k].kind));
    len += (size_t)n;
    if (len < size && e[k].action >= 0)
      len += (size_t)snprintf(buf + len, size - len, ":%s",
                              sp_action_name(d, e[k].action));
    if (len < size && e[k].reason != SP_REASON_NONE)
      len += (size_t)snprintf(buf + len, size - len, "/%s",
                              sp_reason_name((SpReason)e[k].reason));
    if (len < size && e[k].goal != 0xFF)
      snprintf(buf + len, size - len, "@%d", e[k].goal);
  }
}

void agent_trace_run(SpCrowd *c, size_t agent, int frames, float dt,
                     char *buf, size_t size) {
  for (int f = 0; f < frames; f++) {
    size_t len = strlen(buf);
    if (f > 0 && len + 2 < size) memcpy(buf + len, " |", 3);
    sp_crowd_update(c, dt, NULL);
    agent_trace(c, agent, buf, size);
  }
}
