/* agent_trace.c: renders a crowd's events as text, so tests compare whole event sequences. */
#include <stdio.h>
#include <stdlib.h>
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

void agent_trace_run(SpCrowd *c, size_t agent, int frames, float dt, char *buf,
                     size_t size) {
  for (int f = 0; f < frames; f++) {
    size_t len = strlen(buf);
    if (f > 0 && len + 2 < size) memcpy(buf + len, " |", 3);
    sp_crowd_update(c, dt, NULL);
    agent_trace(c, agent, buf, size);
  }
}

int agent_same_events_any_threads(AgentRecorder rec, uint64_t from, uint64_t to,
                                  size_t min_events) {
  static const int threads[] = {1, 2, 4};
  for (uint64_t seed = from; seed <= to; seed++) {
    size_t n[3] = {0, 0, 0};
    SpAgentEvent *e[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int t = 0; t < 3; t++) e[t] = rec(seed, threads[t], &n[t]);
    if (e[0] != NULL) {
      ok = n[0] >= min_events;
      for (int t = 1; t < 3 && ok; t++)
        ok = e[t] != NULL && n[t] == n[0] &&
             memcmp(e[0], e[t], n[0] * sizeof *e[0]) == 0;
    }
    for (int t = 0; t < 3; t++) free(e[t]);
    if (!ok) {
      fprintf(stderr,
              "seed %llu: events differ across thread counts or "
              "fewer than %zu\n",
              (unsigned long long)seed, min_events);
      return 0;
    }
  }
  return 1;
}

static uint64_t count_of(const char *name) {
  const char *s = getenv(name);
  if (s == NULL || *s == '\0') return 0;
  char *end;
  unsigned long long n = strtoull(s, &end, 10);
  return *end == '\0' && s[0] != '-' ? (uint64_t)n : 0;
}

uint64_t agent_soak_seeds(void) { return count_of("SASPU_AGENT_SEEDS"); }

uint64_t agent_soak_from(void) { return count_of("SASPU_AGENT_SEED_FROM"); }
