/* bench_agents.c: ms per frame of crowds of paper-domain agents (timed actions; walking on a 256x256 town in steady state), and bytes per agent. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "citizen_town.h"

static double now_ms(void) { return bu_now_ns() / 1e6; }

/* CPU time of the calling thread: with one thread, the frame's work
 * whatever else the machine runs (it shares its 2 cores). */
static double cpu_ms(void) { return bu_cpu_ns() / 1e6; }

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The CPU model and the load, so figures are read with their machine. */
static void print_machine(void) {
  char model[128];
  double load[3];
  bu_cpu_model(model, sizeof model);
  bu_load_average(load);
  printf("bench_agents: %s, %d online cores, load average %.2f\n", model,
         sp_online_cores(), load[0]);
}

static void town_new(CitizenTown *t, size_t n, int threads, int walking) {
  CitizenTownOptions o = {n, threads, walking, 0};
  citizen_town_new(t, &o);
}

/* Agents that reached their goal start a new day (a world change), so
 * the crowd keeps walking, acting and choosing goals. */
static void restart_done(CitizenTown *t) {
  const SpAgentEvent *e = sp_crowd_events(t->c);
  size_t k, count = sp_crowd_event_count(t->c);
  for (k = 0; k < count; k++)
    if (e[k].kind == SP_EV_GOAL_REACHED || e[k].kind == SP_EV_IDLE)
      sp_crowd_set_state(t->c, e[k].agent, t->start, NULL);
}

static void report(const char *what, const CitizenTown *t, int threads,
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
         what, st.agents, threads, ms[frames / 2], mean, ms[0], cpu[frames / 2],
         events / (size_t)frames, st.bytes_per_agent,
         st.phase[SP_PHASE_WALKING], st.phase[SP_PHASE_ACTING]);
}

/* No walking: every frame 1% of the agents restart their day (a world
 * change, then a replan), the rest count their actions down. The first
 * `warm` frames are not timed: after 120 (4 s) steps end and start every
 * frame (steady state); before, nothing is due for 0.5 s. */
static void timed(size_t n, int threads, int warm, int frames) {
  CitizenTown t;
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
  citizen_town_free(&t);
}

/* Walking in steady state: `warm` frames of 0.25 s (about 5 days of each
 * agent: walks, acts, reaches its goal, starts again) are not timed;
 * then `frames` frames of 1/30 s are. */
static void walking(size_t n, int threads, int warm, int frames) {
  CitizenTown t;
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
  citizen_town_free(&t);
}

/* Despawned agents cost (almost) nothing: two equal walking towns of n
 * agents warmed up alike, then every other agent of one despawned; their
 * frames (1/30 s, one thread) are timed in turn, the order swapped every
 * frame, and the medians compared. */
static void despawned_half(size_t n, int warm, int frames) {
  CitizenTown all, half;
  town_new(&all, n, 1, 1);
  town_new(&half, n, 1, 1);
  for (int f = 0; f < warm; f++) {
    sp_crowd_update(all.c, 0.25f, NULL);
    sp_crowd_update(half.c, 0.25f, NULL);
    restart_done(&all);
    restart_done(&half);
  }
  for (size_t i = 1; i < n; i += 2) sp_crowd_despawn(half.c, i, NULL);
  double *ms_all = malloc((size_t)frames * sizeof *ms_all);
  double *ms_half = malloc((size_t)frames * sizeof *ms_half);
  for (int f = 0; f < frames; f++) {
    for (int k = 0; k < 2; k++) {
      int which = (f + k) % 2;
      CitizenTown *t = which ? &half : &all;
      double c0 = cpu_ms();
      sp_crowd_update(t->c, 1.0f / 30.0f, NULL);
      (which ? ms_half : ms_all)[f] = cpu_ms() - c0;
      restart_done(t);
    }
  }
  qsort(ms_all, (size_t)frames, sizeof *ms_all, cmp);
  qsort(ms_half, (size_t)frames, sizeof *ms_half, cmp);
  double a = ms_all[frames / 2], h = ms_half[frames / 2];
  printf("citizen despawn n=%-7zu threads=1  all alive: median %6.2f ms  half "
         "despawned (%zu live): median %6.2f ms  ratio %.2f\n",
         n, a, sp_crowd_size(half.c), h, h / a);
  free(ms_all);
  free(ms_half);
  citizen_town_free(&all);
  citizen_town_free(&half);
}

/* bench_agents [frames] [only]: only = timed | walking | walking1m |
 * despawn. */
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
  if (!*only || strcmp(only, "despawn") == 0)
    despawned_half(100000, 200, 2 * frames);
  return 0;
}
