/* bench_agents.c: ms per frame of crowds of paper-domain agents (timed actions; walking on a 256x256 town), and bytes per agent. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "saspu_agents.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Citizen agents cycling between two goals: every frame 1% of them get
 * hungry again (a world change), so replans happen all the time. */
static void citizens(size_t n, int threads, int walking, int frames) {
  SpBuiltSpec *b = sp_builtin_citizen(plain);
  SpDomain *d;
  sp_domain_compile(&b->spec, NULL, plain, &d, NULL);
  SpGrid *g = NULL;
  if (walking) sp_grid_new(256, 256, 1.0, plain, &g, NULL);
  SpWorld *w;
  sp_world_new(g, plain, &w, NULL);
  int market = 0;
  sp_world_kind(w, "market", &market, NULL);
  srand(7);
  for (int k = 0; walking && k < 50; k++)
    sp_world_add_place(w, market, rand() % 256, rand() % 256, 0, NULL, NULL);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = threads;
  o.speed = 8.0f;
  SpCrowd *c;
  sp_crowd_new(w, d, &o, plain, &c, NULL);
  const SpNamedState *gw = sp_builtin_goal(b, "work");
  SpValue goal[7];
  for (int v = 0; v < 7; v++) goal[v] = gw->keep && gw->keep[v] ? SP_ANY : gw->values[v];
  sp_crowd_add_goal(c, goal, 10, NULL, NULL, NULL);
  for (int a = 0; a < sp_domain_action_count(d); a++) {
    SpActionBehaviour bh;
    memset(&bh, 0, sizeof bh);
    bh.min_duration = 0.5f;
    bh.max_duration = 3.0f;
    bh.place = SP_NO_PLACE;
    if (walking && (a == 0 || a == 2)) bh.bind = SP_BIND_KIND, bh.kind = market;
    sp_crowd_set_action(c, a, &bh, NULL);
  }
  for (size_t i = 0; i < n; i++)
    sp_crowd_spawn(c, sp_builtin_start(b, "start_of_day")->values,
                   (int)(i * 7 % 256), (int)(i * 13 % 256), SP_NO_PLACE, NULL, NULL);
  double *ms = malloc((size_t)frames * sizeof *ms);
  size_t events = 0;
  for (int f = -5; f < frames; f++) {
    /* 1% restart their day: a world change, then a replan */
    for (size_t i = (size_t)(f + 5) % 100; i < n; i += 100)
      sp_crowd_set_state(c, i, sp_builtin_start(b, "start_of_day")->values, NULL);
    double t0 = now_ms();
    sp_crowd_update(c, 1.0f / 30.0f, NULL);
    if (f >= 0) ms[f] = now_ms() - t0, events += sp_crowd_event_count(c);
  }
  double mean = 0;
  for (int f = 0; f < frames; f++) mean += ms[f];
  mean /= frames;
  qsort(ms, (size_t)frames, sizeof *ms, cmp);
  SpCrowdStats st;
  sp_crowd_stats(c, &st);
  printf("citizen %-8s n=%-8zu threads=%d  median %7.2f ms  mean %7.2f ms  "
         "events/frame %zu  bytes/agent %zu  walking=%zu acting=%zu\n",
         walking ? "walking" : "timed", n, threads, ms[frames / 2], mean,
         events / (size_t)frames, st.bytes_per_agent,
         st.phase[SP_PHASE_WALKING], st.phase[SP_PHASE_ACTING]);
  free(ms);
  sp_crowd_free(c);
  sp_world_free(w);
  sp_grid_free(g);
  sp_domain_free(d);
  sp_builtin_free(b);
}

int main(int argc, char **argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 30;
  printf("bench_agents: %d online cores\n", sp_online_cores());
  citizens(1000000, 1, 0, frames);
  citizens(1000000, 2, 0, frames);
  citizens(100000, 1, 1, frames);
  citizens(100000, 2, 1, frames);
  citizens(1000000, 2, 1, frames / 3 > 3 ? frames / 3 : 3);
  return 0;
}
