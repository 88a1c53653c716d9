/* workload.c: bench_population's workload: the solvable (start, goal) pairs of a paper domain and the frames that rotate NPCs among them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_population.h"

const SpAllocator plain = {NULL, NULL};

static SpBuiltSpec *build(int which) {
  switch (which) {
  case 0: return sp_builtin_horse_breeder(plain, SP_HORSE_SSCI);
  case 1: return sp_builtin_citizen(plain);
  default: return sp_builtin_acquisition_machine(plain);
  }
}

void die(const char *what, const SpError *err) {
  fprintf(stderr, "bench_population: %s: %s\n", what,
          err != NULL ? err->message : "failed");
  exit(1);
}

/* Every total start state of the domain against every goal the paper
 * names for it (a goal's kept variables take the start's values): the
 * solvable ones are the pool. SSCI varies the goals (Citizen: one start,
 * several goals) or the starts (Acquisition Machine: several starts, one
 * goal) among those defined; taking every start makes the pool larger
 * than the paper's, so the cache sees more distinct pairs, not fewer. */
/* With `fixed`, the goals are the paper's as conditions instead (kept
 * variables free: SP_ANY), as a game gives an NPC class a few fixed goals:
 * the pool is every (start, goal) with a non-empty plan, and NPCs share a
 * handful of goals whatever their starts. */
void workload_open(Workload *w, int which, int fixed) {
  SpError err;
  memset(w, 0, sizeof *w);
  w->b = build(which);
  if (w->b == NULL) die("builder", NULL);
  if (sp_domain_compile(&w->b->spec, NULL, plain, &w->d, &err) != SP_OK)
    die("compile", &err);
  w->m = sp_domain_variable_count(w->d);
  long states = 1;
  for (int v = 0; v < w->m; v++) states *= sp_variable_value_count(w->d, v);
  size_t cap = (size_t)states * (size_t)w->b->goal_count;
  w->starts = malloc(cap * (size_t)w->m);
  w->goals = malloc(cap * (size_t)w->m);
  if (w->starts == NULL || w->goals == NULL) die("memory", NULL);
  SpWorkspace *ws = NULL;
  if (sp_workspace_new(w->d, plain, &ws, &err) != SP_OK) die("workspace", &err);
  uint16_t plan[64];
  long total_len = 0;
  SpValue s0[16], goal[16];
  for (long k = 0; k < states; k++) {
    long r = k;
    for (int v = 0; v < w->m; v++) {
      long c = sp_variable_value_count(w->d, v);
      s0[v] = (SpValue)(r % c);
      r /= c;
    }
    for (int g = 0; g < w->b->goal_count; g++) {
      sp_builtin_resolve_goal(w->b, &w->b->goals[g], s0, goal);
      for (int v = 0; fixed && v < w->m; v++)
        if (w->b->goals[g].keep != NULL && w->b->goals[g].keep[v])
          goal[v] = SP_ANY;
      int len;
      if (sp_plan(w->d, ws, s0, goal, plan, &len, NULL) != SP_OK) continue;
      if (len == 0) continue; /* already there: not a planning request */
      memcpy(w->starts + w->pairs * (size_t)w->m, s0, (size_t)w->m);
      memcpy(w->goals + w->pairs * (size_t)w->m, goal, (size_t)w->m);
      w->pairs++;
      total_len += len;
    }
  }
  w->avg_len = w->pairs ? (double)total_len / (double)w->pairs : 0;
  sp_workspace_free(ws);
}

void workload_close(Workload *w) {
  free(w->starts);
  free(w->goals);
  sp_domain_free(w->d);
  sp_builtin_free(w->b);
}

size_t workload_pair(const Workload *w, size_t i, int frame) {
  return (i * 7u + (size_t)frame * 13u + i / w->pairs) % w->pairs;
}

/* Frame f's pairs: NPC i takes pair (i * 7 + f * 13 + i / pairs) mod
 * pairs, so every NPC's pair changes at every frame and all pairs are
 * used about equally. Written into packed arrays, then set in bulk (the
 * NPCs whose pair is unchanged are marked dirty too: every NPC replans
 * at every frame, as in SSCI). Not timed. */
void load_frame(const Workload *w, SpPopulation *pop, SpValue *st, SpValue *go,
                size_t n, int frame) {
  size_t m = (size_t)w->m;
  for (size_t i = 0; i < n; i++) {
    size_t p = workload_pair(w, i, frame);
    memcpy(st + i * m, w->starts + p * m, m);
    memcpy(go + i * m, w->goals + p * m, m);
  }
  SpError err;
  if (sp_population_set_states(pop, 0, n, st, &err) != SP_OK) die("set", &err);
  if (sp_population_set_goals(pop, 0, n, go, &err) != SP_OK) die("set", &err);
  if (sp_population_mark_dirty(pop, 0, n, &err) != SP_OK) die("dirty", &err);
}
