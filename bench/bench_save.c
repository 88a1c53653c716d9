/* bench_save.c: save and load of a world of walking citizens (1M by default): ms, bytes per agent, and the ratio to one frame of the same crowd. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "citizen_town.h"
#include "sp_save.h"
#include "sp_due.h"

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

/* The worst crafted save of len bytes for the town's world: every byte the
 * agents took spent on the cached-field list instead (every cell of the
 * grid, then again), the crowd left with no agent. Before loads were
 * bounded each distinct cell cost a distance field. */
static uint8_t *crafted_fields(const uint8_t *good, size_t len,
                               const SpCrowd *c, int cells, size_t *out_len,
                               size_t *entries) {
  /* written as format 5 (no names block, which would name the agents) */
  const uint8_t *head = good;
  good += sp__save_body_at(head, len) - SAVE_HEADER_BYTES;
  size_t np = (size_t)sp_save_get(good + 48, 4);
  size_t nf_at = 52 + 4 * np + 8; /* the field count */
  size_t nf = (size_t)sp_save_get(good + nf_at, 4);
  size_t facts = (size_t)sp_save_get(good + nf_at + 4 + 12 * nf, 4);
  size_t crowd = nf_at + 4 + 12 * nf + 4 + facts + 4, at = crowd + 33;
  size_t m = (size_t)sp_domain_variable_count(sp_crowd_domain(c));
  at += 4 + (size_t)sp_save_get(good + at, 4) * (8 + 2 * m) + 48;
  at += 4; /* the refusal words' count, then the first agent */
  size_t fixed = nf_at + 4 + (4 + facts) + 4 + (at - crowd) + 4 + 1 + 1 + 4;
  size_t k = len > fixed ? (len - fixed) / 12 : 0;
  *out_len = fixed + 12 * k;
  *entries = k;
  uint8_t *b = malloc(*out_len);
  if (b == NULL) return NULL;
  memcpy(b, head, SAVE_HEADER_BYTES);
  memcpy(b + SAVE_HEADER_BYTES, good + SAVE_HEADER_BYTES,
         nf_at - SAVE_HEADER_BYTES);
  sp_save_put(b + 8, 5, 4);
  memset(b + 52, 0, 4 * np); /* no agent holds a place */
  sp_save_put(b + nf_at, k, 4);
  uint8_t *p = b + nf_at + 4;
  for (size_t e = 0; e < k; e++, p += 12) {
    sp_save_put(p, 0x80000000u | (uint32_t)(e % (size_t)cells), 4);
    sp_save_put(p + 4, e, 8);
  }
  memcpy(p, good + nf_at + 4 + 12 * nf, 4 + facts); /* the facts as saved */
  p += 4 + facts;
  sp_save_put(p, 1, 4); /* one crowd */
  memcpy(p + 4, good + crowd, at - crowd);
  sp_save_put(p + 4 + 8, sp__save_setup_print(c, 5), 8); /* as format 5 */
  sp_save_put(p + 4 + 16, 0, 8);                         /* no agents */
  p += 4 + (at - crowd);
  sp_save_put(p, 0, 4);     /* no despawned slot */
  p[4] = 0;                 /* no fact ties (the town has none) */
  p[5] = 0;                 /* no sensors */
  sp_save_put(p + 6, 0, 4); /* no extra bytes (format 5: no chase list) */
  sp_save_put(b + 16, *out_len - SAVE_HEADER_BYTES, 8);
  sp_save_put(b + 24,
              sp__save_fnv(SAVE_FNV_START, b + SAVE_HEADER_BYTES,
                           *out_len - SAVE_HEADER_BYTES),
              8);
  return b;
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
  printf("bench_save: %s, %d online cores, load average %.2f\n", model,
         bu_core_count(), load[0]);
  CitizenTown a, b;
  town_new(&a, n);
  for (int f = 0; f < 12; f++)
    sp_crowd_update(a.c, 0.25f, NULL); /* plans, walks, acts */
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
    if (sp_world_save(a.w, list, 1, NULL, 0, &buf, &len, NULL) != SP_OK)
      return 1;
    save_ms[r] = (bu_now_ns() - t0) / 1e6;
  }
  town_new(&b, n);
  SpCrowd *blist[1] = {b.c};
  double fields_ms = 0;
  for (int r = 0; r < reps; r++) {
    SpWorldStats w0, w1;
    sp_world_stats(b.w, &w0);
    double t0 = bu_now_ns();
    if (sp_world_load_check(b.w, (const SpCrowd *const *)blist, 1, buf, len,
                            NULL, NULL, NULL) != SP_OK)
      return 1;
    check_ms[r] = (bu_now_ns() - t0) / 1e6;
    t0 = bu_now_ns();
    if (sp_world_load(b.w, blist, 1, buf, len, NULL, NULL, NULL) != SP_OK)
      return 1;
    load_ms[r] = (bu_now_ns() - t0) / 1e6;
    sp_world_stats(b.w, &w1);
    fields_ms = w1.ms_fields - w0.ms_fields; /* the last load's */
  }
  /* the worst crafted save of the same size, loaded onto b */
  size_t clen, entries = 0;
  int cells = sp_grid_width(b.g) * sp_grid_height(b.g);
  uint8_t *crafted = crafted_fields(buf, len, b.c, cells, &clen, &entries);
  double crafted_ms[32], crafted_fields_ms = 0;
  uint64_t computed = 0;
  for (int r = 0; r < reps && crafted != NULL; r++) {
    SpWorldStats w0, w1;
    sp_world_stats(b.w, &w0);
    double t0 = bu_now_ns();
    SpError err;
    if (sp_world_load(b.w, blist, 1, crafted, clen, NULL, NULL, &err) !=
        SP_OK) {
      fprintf(stderr, "bench_save: the crafted save: %s\n", err.message);
      return 1;
    }
    crafted_ms[r] = (bu_now_ns() - t0) / 1e6;
    sp_world_stats(b.w, &w1);
    crafted_fields_ms = w1.ms_fields - w0.ms_fields;
    computed = w1.fields_computed - w0.fields_computed;
  }
  SpCrowdStats st;
  sp_crowd_stats(a.c, &st);
  double fm = median(frame, reps);
  printf("citizens n=%zu (walking %zu, acting %zu)  save %.1f MB = %.1f "
         "bytes/agent\n",
         n, st.phase[SP_PHASE_WALKING], st.phase[SP_PHASE_ACTING],
         (double)len / 1e6, (double)len / (double)n);
  double sm = median(save_ms, reps), lm = median(load_ms, reps),
         cm = median(check_ms, reps);
  printf("median of %d: frame (dt 1/30 s, 2 threads) %.1f ms; save %.1f ms "
         "(%.1f frames, "
         "%.0f ns/agent); load %.1f ms (%.1f frames, %.0f ns/agent), of which "
         "recomputing the "
         "cached distance fields %.1f ms; a check-only pass %.1f ms\n",
         reps, fm, sm, sm / fm, sm * 1e6 / (double)n, lm, lm / fm,
         lm * 1e6 / (double)n, fields_ms, cm);
  double xm = median(crafted_ms, reps);
  printf("crafted save of %.1f MB (%zu cached-field entries, no agent): load "
         "%.1f ms "
         "(%.2f x the legitimate load), %llu fields computed in %.1f ms (%.2f "
         "ms each; "
         "unbounded, its %d distinct cells would cost %.1f s)\n",
         (double)clen / 1e6, entries, xm, xm / lm, (unsigned long long)computed,
         crafted_fields_ms,
         computed ? crafted_fields_ms / (double)computed : 0.0, cells,
         computed ? crafted_fields_ms / (double)computed * cells / 1e3 : 0.0);
  free(crafted);
  sp_world_save_free(a.w, buf, len);
  citizen_town_free(&a);
  citizen_town_free(&b);
  return 0;
}
