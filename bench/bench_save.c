/* bench_save.c: save and load of a world of walking citizens (1M by default): ms, bytes per agent, and the ratio to one frame of the same crowd. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "saspu_agents.h"
#include "sp_builtin.h"

static const SpAllocator plain = {NULL, NULL};

typedef struct Town {
  SpBuiltSpec *b;
  SpDomain *d;
  SpGrid *g;
  SpWorld *w;
  SpCrowd *c;
} Town;

/* n citizens on a 256x256 grid with 50 markets (as bench_agents'
 * walking town); the same calls build the same world. */
static void town_new(Town *t, size_t n) {
  memset(t, 0, sizeof *t);
  t->b = sp_builtin_citizen(plain);
  sp_domain_compile(&t->b->spec, NULL, plain, &t->d, NULL);
  sp_grid_new(256, 256, 1.0, plain, &t->g, NULL);
  sp_world_new(t->g, plain, &t->w, NULL);
  int market = 0;
  sp_world_kind(t->w, "market", &market, NULL);
  uint64_t rng = 7;
  for (int k = 0; k < 50; k++)
    sp_world_add_place(t->w, market, bu_rng_below(&rng, 256), bu_rng_below(&rng, 256),
                       k % 5 == 0 ? 4 : 0, NULL, NULL);
  SpCrowdOptions o;
  memset(&o, 0, sizeof o);
  o.capacity = n;
  o.threads = 2;
  o.speed = 8.0f;
  sp_crowd_new(t->w, t->d, &o, plain, &t->c, NULL);
  const SpNamedState *gw = sp_builtin_goal(t->b, "work");
  SpValue goal[7];
  for (int v = 0; v < 7; v++) goal[v] = gw->keep && gw->keep[v] ? SP_ANY : gw->values[v];
  sp_crowd_add_goal(t->c, goal, 10, NULL, NULL, NULL);
  for (int a = 0; a < sp_domain_action_count(t->d); a++) {
    SpActionBehaviour bh;
    memset(&bh, 0, sizeof bh);
    bh.min_duration = 0.5f;
    bh.max_duration = 3.0f;
    bh.place = SP_NO_PLACE;
    if (a == 0 || a == 2) bh.bind = SP_BIND_KIND, bh.kind = market;
    sp_crowd_set_action(t->c, a, &bh, NULL);
  }
  const SpValue *start = sp_builtin_start(t->b, "start_of_day")->values;
  for (size_t i = 0; i < n; i++)
    sp_crowd_spawn(t->c, start, (int)(i * 7 % 256), (int)(i * 13 % 256), SP_NO_PLACE,
                   NULL, NULL);
}

static void town_free(Town *t) {
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  sp_grid_free(t->g);
  sp_domain_free(t->d);
  sp_builtin_free(t->b);
}

static double median(double *v, int n) {
  BuStats s = bu_stats(v, (size_t)n);
  return s.median;
}

/* bench_save [agents] [repeats] */
int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (reps < 1) reps = 1;
  char model[128];
  bu_cpu_model(model, sizeof model);
  double load[3];
  bu_load_average(load);
  printf("bench_save: %s, %d online cores, load average %.2f\n", model, bu_core_count(),
         load[0]);
  Town a, b;
  town_new(&a, n);
  for (int f = 0; f < 12; f++) sp_crowd_update(a.c, 0.25f, NULL); /* plans, walks, acts */
  double frame[32], save_ms[32], load_ms[32], check_ms[32];
  if (reps > 32) reps = 32;
  for (int r = 0; r < reps; r++) {
    double t0 = bu_now_ns();
    sp_crowd_update(a.c, 1.0f / 30.0f, NULL);
    frame[r] = (bu_now_ns() - t0) / 1e6;
  }
  const SpCrowd *list[1] = {a.c};
  void *buf = NULL;
  size_t len = 0;
  for (int r = 0; r < reps; r++) {
    if (buf != NULL) sp_world_save_free(a.w, buf, len);
    double t0 = bu_now_ns();
    if (sp_world_save(a.w, list, 1, NULL, 0, &buf, &len, NULL) != SP_OK) return 1;
    save_ms[r] = (bu_now_ns() - t0) / 1e6;
  }
  town_new(&b, n);
  SpCrowd *blist[1] = {b.c};
  double fields_ms = 0;
  for (int r = 0; r < reps; r++) {
    SpWorldStats w0, w1;
    sp_world_stats(b.w, &w0);
    double t0 = bu_now_ns();
    if (sp_world_load_check(b.w, (const SpCrowd *const *)blist, 1, buf, len, NULL, NULL,
                            NULL) != SP_OK)
      return 1;
    check_ms[r] = (bu_now_ns() - t0) / 1e6;
    t0 = bu_now_ns();
    if (sp_world_load(b.w, blist, 1, buf, len, NULL, NULL, NULL) != SP_OK) return 1;
    load_ms[r] = (bu_now_ns() - t0) / 1e6;
    sp_world_stats(b.w, &w1);
    fields_ms = w1.ms_fields - w0.ms_fields; /* the last load's */
  }
  SpCrowdStats st;
  sp_crowd_stats(a.c, &st);
  double fm = median(frame, reps);
  printf("citizens n=%zu (walking %zu, acting %zu)  save %.1f MB = %.1f bytes/agent\n", n,
         st.phase[SP_PHASE_WALKING], st.phase[SP_PHASE_ACTING], (double)len / 1e6,
         (double)len / (double)n);
  double sm = median(save_ms, reps), lm = median(load_ms, reps), cm = median(check_ms, reps);
  printf("median of %d: frame (dt 1/30 s, 2 threads) %.1f ms; save %.1f ms (%.1f frames, "
         "%.0f ns/agent); load %.1f ms (%.1f frames, %.0f ns/agent), of which recomputing the "
         "cached distance fields %.1f ms; a check-only pass %.1f ms\n",
         reps, fm, sm, sm / fm, sm * 1e6 / (double)n, lm, lm / fm, lm * 1e6 / (double)n,
         fields_ms, cm);
  sp_world_save_free(a.w, buf, len);
  town_free(&a);
  town_free(&b);
  return 0;
}
