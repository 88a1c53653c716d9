/* bench_agents.c: ms per frame of crowds of paper-domain agents (timed actions; walking on a 256x256 town in steady state), and bytes per agent. */
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

/* CPU time of the calling thread: with one thread, the frame's work
 * whatever else the machine runs (it shares its 2 cores). */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The CPU model and the load, so figures are read with their machine. */
static void print_machine(void) {
  char line[256], model[128] = "?";
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *p = strchr(line, ':');
    if (p != NULL) snprintf(model, sizeof model, "%s", p + 2);
    model[strcspn(model, "\n")] = 0;
    break;
  }
  if (f != NULL) fclose(f);
  double load = -1.0;
  f = fopen("/proc/loadavg", "r");
  if (f != NULL && fscanf(f, "%lf", &load) != 1) load = -1.0;
  if (f != NULL) fclose(f);
  printf("bench_agents: %s, %d online cores, load average %.2f\n", model,
         sp_online_cores(), load);
}

typedef struct Town {
  SpBuiltSpec *b;
  SpDomain *d;
  SpGrid *g;
  SpWorld *w;
  SpCrowd *c;
  const SpValue *start;
} Town;

/* Citizen agents with one goal (work), every action 0.5 to 3 s; walking
 * crowds buy food and drink at the nearest of 50 markets. */
static void town_new(Town *t, size_t n, int threads, int walking) {
  memset(t, 0, sizeof *t);
  t->b = sp_builtin_citizen(plain);
  sp_domain_compile(&t->b->spec, NULL, plain, &t->d, NULL);
  if (walking) sp_grid_new(256, 256, 1.0, plain, &t->g, NULL);
  sp_world_new(t->g, plain, &t->w, NULL);
  int market = 0;
  sp_world_kind(t->w, "market", &market, NULL);
  srand(7);
  for (int k = 0; walking && k < 50; k++)
    sp_world_add_place(t->w, market, rand() % 256, rand() % 256, 0, NULL, NULL);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = threads;
  o.speed = 8.0f;
  sp_crowd_new(t->w, t->d, &o, plain, &t->c, NULL);
  const SpNamedState *gw = sp_builtin_goal(t->b, "work");
  SpValue goal[7];
  for (int v = 0; v < 7; v++)
    goal[v] = gw->keep && gw->keep[v] ? SP_ANY : gw->values[v];
  sp_crowd_add_goal(t->c, goal, 10, NULL, NULL, NULL);
  for (int a = 0; a < sp_domain_action_count(t->d); a++) {
    SpActionBehaviour bh;
    memset(&bh, 0, sizeof bh);
    bh.min_duration = 0.5f;
    bh.max_duration = 3.0f;
    bh.place = SP_NO_PLACE;
    if (walking && (a == 0 || a == 2)) bh.bind = SP_BIND_KIND, bh.kind = market;
    sp_crowd_set_action(t->c, a, &bh, NULL);
  }
  t->start = sp_builtin_start(t->b, "start_of_day")->values;
  for (size_t i = 0; i < n; i++)
    sp_crowd_spawn(t->c, t->start, (int)(i * 7 % 256), (int)(i * 13 % 256),
                   SP_NO_PLACE, NULL, NULL);
}

static void town_free(Town *t) {
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  sp_grid_free(t->g);
  sp_domain_free(t->d);
  sp_builtin_free(t->b);
}

/* Agents that reached their goal start a new day (a world change), so
 * the crowd keeps walking, acting and choosing goals. */
static void restart_done(Town *t) {
  const SpAgentEvent *e = sp_crowd_events(t->c);
  size_t k, count = sp_crowd_event_count(t->c);
  for (k = 0; k < count; k++)
    if (e[k].kind == SP_EV_GOAL_REACHED || e[k].kind == SP_EV_IDLE)
      sp_crowd_set_state(t->c, e[k].agent, t->start, NULL);
}

static void report(const char *what, const Town *t, int threads,
                   double *ms, double *cpu, int frames, size_t events) {
  double mean = 0;
  for (int f = 0; f < frames; f++) mean += ms[f];
  mean /= frames;
  qsort(ms, (size_t)frames, sizeof *ms, cmp);
  qsort(cpu, (size_t)frames, sizeof *cpu, cmp);
  SpCrowdStats st;
  sp_crowd_stats(t->c, &st);
  printf("citizen %-7s n=%-7zu threads=%d  median %6.2f ms  mean %6.2f ms  "
         "min %6.2f ms  caller cpu median %6.2f ms  events/frame %zu  "
         "bytes/agent %zu  walking=%zu acting=%zu\n",
         what, st.agents, threads, ms[frames / 2], mean, ms[0],
         cpu[frames / 2],
         events / (size_t)frames, st.bytes_per_agent,
         st.phase[SP_PHASE_WALKING], st.phase[SP_PHASE_ACTING]);
}

/* No walking: every frame 1% of the agents restart their day (a world
 * change, then a replan), the rest count their actions down. The first
 * `warm` frames are not timed: after 120 (4 s) steps end and start every
 * frame (steady state); before, nothing is due for 0.5 s. */
static void timed(size_t n, int threads, int warm, int frames) {
  Town t;
  town_new(&t, n, threads, 0);
  double *ms = malloc((size_t)frames * sizeof *ms);
  double *cpu = malloc((size_t)frames * sizeof *cpu);
  size_t events = 0;
  for (int f = -warm; f < frames; f++) {
    for (size_t i = (size_t)(f + warm) % 100; i < n; i += 100)
      sp_crowd_set_state(t.c, i, t.start, NULL);
    double t0 = now_ms(), c0 = cpu_ms();
    sp_crowd_update(t.c, 1.0f / 30.0f, NULL);
    if (f >= 0) {
      ms[f] = now_ms() - t0;
      cpu[f] = cpu_ms() - c0;
      events += sp_crowd_event_count(t.c);
    }
  }
  report("timed", &t, threads, ms, cpu, frames, events);
  free(ms);
  free(cpu);
  town_free(&t);
}

/* Walking in steady state: `warm` frames of 0.25 s (about 5 days of each
 * agent: walks, acts, reaches its goal, starts again) are not timed;
 * then `frames` frames of 1/30 s are. */
static void walking(size_t n, int threads, int warm, int frames) {
  Town t;
  town_new(&t, n, threads, 1);
  for (int f = 0; f < warm; f++) {
    sp_crowd_update(t.c, 0.25f, NULL);
    restart_done(&t);
  }
  double *ms = malloc((size_t)frames * sizeof *ms);
  double *cpu = malloc((size_t)frames * sizeof *cpu);
  size_t events = 0;
  double plan_ms = 0, bind_ms = 0;
  for (int f = 0; f < frames; f++) {
    double t0 = now_ms(), c0 = cpu_ms();
    sp_crowd_update(t.c, 1.0f / 30.0f, NULL);
    ms[f] = now_ms() - t0;
    cpu[f] = cpu_ms() - c0;
    events += sp_crowd_event_count(t.c);
    SpCrowdStats st;
    sp_crowd_stats(t.c, &st);
    plan_ms += st.ms_planning, bind_ms += st.ms_binding;
    restart_done(&t);
  }
  report("walking", &t, threads, ms, cpu, frames, events);
  printf("  of which planning %.2f ms, serial binding %.2f ms (means)\n",
         plan_ms / frames, bind_ms / frames);
  free(ms);
  free(cpu);
  town_free(&t);
}

/* bench_agents [frames] [only]: only = timed | walking | walking1m. */
int main(int argc, char **argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 30;
  const char *only = argc > 2 ? argv[2] : "";
  if (frames < 3) frames = 3;
  print_machine();
  if (!*only || strcmp(only, "timed") == 0) {
    timed(1000000, 1, 120, frames);
    timed(1000000, 2, 120, frames);
  }
  if (!*only || strcmp(only, "walking") == 0) {
    walking(100000, 1, 200, 2 * frames);
    walking(100000, 2, 200, 2 * frames);
  }
  if (!*only || strcmp(only, "walking1m") == 0)
    walking(1000000, 2, 200, frames);
  return 0;
}
