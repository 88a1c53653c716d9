/* plan_crowd.c: the saspu C library from an installed package: one plan, a population planned in a batch, a crowd carrying plans out. */
#include <stdio.h>
#include <stdlib.h>

#include "saspu.h"
#include "saspu_agents.h"
#include "saspu_builtin.h"

#define NPCS 1000

static int fail(const char *what, const char *message) {
  fprintf(stderr, "plan_crowd: %s: %s\n", what, message);
  return 1;
}

/* The shortest plan of the Horse Breeder from "morning" to "feed_horses". */
static int one_plan(const SpDomain *dom, const SpBuiltSpec *b,
                    SpAllocator heap) {
  SpWorkspace *ws;
  SpError err;
  if (sp_workspace_new(dom, heap, &ws, &err) != SP_OK)
    return fail("workspace", err.message);
  SpValue goal[8];
  const SpNamedState *s0 = sp_builtin_start(b, "morning");
  sp_builtin_resolve_goal(b, sp_builtin_goal(b, "feed_horses"), s0->values,
                          goal);
  uint16_t plan[64];
  int len = 0;
  SpFailure why;
  SpStatus st = sp_plan(dom, ws, s0->values, goal, plan, &len, &why);
  sp_workspace_free(ws);
  if (st != SP_OK) return fail("plan", "no plan from morning to feed_horses");
  printf("plan:");
  for (int i = 0; i < len; i++) printf(" %s", sp_action_name(dom, plan[i]));
  printf("\n");
  return 0;
}

/* NPCS breeders, half holding a haystack, all planned to feed the horses. */
static int population(const SpDomain *dom, const SpBuiltSpec *b,
                      SpAllocator heap) {
  SpPopulation *pop;
  SpError err;
  if (sp_population_new(dom, NPCS, heap, &pop, &err) != SP_OK)
    return fail("population", err.message);
  const SpNamedState *morning = sp_builtin_start(b, "morning");
  const SpNamedState *holding = sp_builtin_start(b, "holding_haystack");
  SpValue goal[8];
  sp_builtin_resolve_goal(b, sp_builtin_goal(b, "feed_horses"), morning->values,
                          goal);
  int ok = 1;
  for (size_t i = 0; i < NPCS && ok; i++)
    ok = sp_population_set(pop, i, (i % 2 ? holding : morning)->values, goal,
                           &err) == SP_OK;
  SpPlanReport report;
  if (ok) ok = sp_population_plan(pop, NULL, &report, &err) == SP_OK;
  if (ok)
    printf(
        "population: %zu planned, %zu without a plan, plan lengths %d and %d\n",
        report.planned, report.failures, sp_population_plan_length(pop, 0),
        sp_population_plan_length(pop, 1));
  sp_population_free(pop);
  return ok && report.failures == 0 ? 0 : fail("population", err.message);
}

/* Three breeders in a small world, walking and acting until they are done. */
static int crowd(const SpDomain *dom, const SpBuiltSpec *b, SpAllocator heap) {
  SpWorld *w;
  SpCrowd *c;
  SpError err;
  if (sp_world_new(NULL, heap, &w, &err) != SP_OK)
    return fail("world", err.message);
  SpCrowdOptions opts = {.capacity = 3, .seed = 1, .threads = 1};
  if (sp_crowd_new(w, dom, &opts, heap, &c, &err) != SP_OK) {
    sp_world_free(w);
    return fail("crowd", err.message);
  }
  const SpNamedState *morning = sp_builtin_start(b, "morning");
  SpValue goal[8];
  sp_builtin_resolve_goal(b, sp_builtin_goal(b, "feed_horses"), morning->values,
                          goal);
  SpActionBehaviour act = {
      .min_duration = 1.0f, .max_duration = 2.0f, .bind = SP_BIND_NONE};
  int ok = 1;
  for (int a = 0; a < sp_domain_action_count(dom) && ok; a++)
    ok = sp_crowd_set_action(c, a, &act, &err) == SP_OK;
  if (ok) ok = sp_crowd_add_goal(c, goal, 1, NULL, NULL, &err) == SP_OK;
  for (int i = 0; i < 3 && ok; i++)
    ok = sp_crowd_spawn(c, morning->values, i * 4, 0, SP_NO_PLACE, NULL,
                        &err) == SP_OK;
  size_t reached = 0, events = 0;
  for (int frame = 0; frame < 600 && ok && reached < 3;
       frame++) { /* 60 s at 10 frames/s */
    ok = sp_crowd_update(c, 0.1f, &err) == SP_OK;
    const SpAgentEvent *ev = sp_crowd_events(c);
    for (size_t e = 0; ok && e < sp_crowd_event_count(c); e++) {
      events++;
      if (ev[e].kind == SP_EV_GOAL_REACHED) reached++;
    }
  }
  if (ok)
    printf("crowd: %zu of 3 breeders fed the horses (%zu events)\n", reached,
           events);
  sp_crowd_free(c);
  sp_world_free(w);
  if (!ok) return fail("crowd", err.message);
  return reached == 3
             ? 0
             : fail("crowd", "not every breeder reached the goal in 60 s");
}

int main(void) {
  SpAllocator heap = {NULL, NULL}; /* NULL: malloc and free */
  SpBuiltSpec *b = sp_builtin_horse_breeder(heap, SP_HORSE_SSCI);
  if (!b) return fail("horse breeder", "out of memory");
  SpDomain *dom;
  SpError err;
  if (sp_domain_compile(&b->spec, NULL, heap, &dom, &err) != SP_OK) {
    sp_builtin_free(b);
    return fail("compile", err.message);
  }
  int rc = one_plan(dom, b, heap);
  if (!rc) rc = population(dom, b, heap);
  if (!rc) rc = crowd(dom, b, heap);
  sp_domain_free(dom);
  sp_builtin_free(b);
  return rc;
}
