/* citizen_town.c: builds the agent benchmarks' town of citizens (see citizen_town.h). */
#include "citizen_town.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static const SpAllocator plain = {NULL, NULL};

static void check(SpStatus st, const char *what) {
  if (st == SP_OK) return;
  fprintf(stderr, "citizen town: %s failed (status %d)\n", what, (int)st);
  exit(1);
}

void citizen_town_new(CitizenTown *t, const CitizenTownOptions *o) {
  memset(t, 0, sizeof *t);
  t->b = sp_builtin_citizen(plain);
  if (t->b == NULL) check(SP_ERR_MEMORY, "sp_builtin_citizen");
  check(sp_domain_compile(&t->b->spec, NULL, plain, &t->d, NULL),
        "sp_domain_compile");
  if (o->walking)
    check(sp_grid_new(256, 256, 1.0, plain, &t->g, NULL), "sp_grid_new");
  check(sp_world_new(t->g, plain, &t->w, NULL), "sp_world_new");
  int market = 0;
  check(sp_world_kind(t->w, "market", &market, NULL), "sp_world_kind");
  uint64_t rng = 7; /* splitmix: the same markets on every C library */
  for (int k = 0; o->walking && k < 50; k++) {
    int room = o->market_capacity_every > 0 && k % o->market_capacity_every == 0
                   ? 4
                   : 0;
    check(sp_world_add_place(t->w, market, bu_rng_below(&rng, 256),
                             bu_rng_below(&rng, 256), room, NULL, NULL),
          "sp_world_add_place");
  }
  SpCrowdOptions co;
  memset(&co, 0, sizeof co);
  co.capacity = o->agents;
  co.threads = o->threads;
  co.speed = 8.0f;
  check(sp_crowd_new(t->w, t->d, &co, plain, &t->c, NULL), "sp_crowd_new");
  const SpNamedState *work = sp_builtin_goal(t->b, "work");
  SpValue goal[SP_MAX_VARIABLES];
  for (int v = 0; v < sp_domain_variable_count(t->d); v++)
    goal[v] = work->keep && work->keep[v] ? SP_ANY : work->values[v];
  check(sp_crowd_add_goal(t->c, goal, 10, NULL, NULL, NULL),
        "sp_crowd_add_goal");
  for (int a = 0; a < sp_domain_action_count(t->d); a++) {
    SpActionBehaviour bh;
    memset(&bh, 0, sizeof bh);
    bh.min_duration = 0.5f;
    bh.max_duration = 3.0f;
    bh.place = SP_NO_PLACE;
    if (o->walking && (a == 0 || a == 2))
      bh.bind = SP_BIND_KIND, bh.kind = market;
    check(sp_crowd_set_action(t->c, a, &bh, NULL), "sp_crowd_set_action");
  }
  t->start = sp_builtin_start(t->b, "start_of_day")->values;
  for (size_t i = 0; i < o->agents; i++)
    check(sp_crowd_spawn(t->c, t->start, (int)(i * 7 % 256),
                         (int)(i * 13 % 256), SP_NO_PLACE, NULL, NULL),
          "sp_crowd_spawn");
}

void citizen_town_free(CitizenTown *t) {
  sp_crowd_free(t->c);
  sp_world_free(t->w);
  sp_grid_free(t->g);
  sp_domain_free(t->d);
  sp_builtin_free(t->b);
}
