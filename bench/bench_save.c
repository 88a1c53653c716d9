/* bench_save.c: save and load of a world of walking citizens (1M by default): ms, bytes per agent, and the ratio to one frame of the same crowd. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "citizen_town.h"

/* n walking citizens with 50 markets, every fifth holding 4 (so the save
 * has reservations); the same calls build the same world. */
static void town_new(CitizenTown *t, size_t n) {
  CitizenTownOptions o = {n, 2, 1, 5};
  citizen_town_new(t, &o);
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
  CitizenTown a, b;
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
  citizen_town_free(&a);
  citizen_town_free(&b);
  return 0;
}
