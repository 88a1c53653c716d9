/* citizen_town.h: the agent benchmarks' town: a crowd of citizens with one goal (work), every action 0.5-3 s, walking crowds buying at 50 markets on a 256x256 grid. */
#ifndef citizen_town_h
#define citizen_town_h

#include <stddef.h>

#include "saspu_agents.h"
#include "sp_builtin.h"

typedef struct CitizenTown {
  SpBuiltSpec *b;
  SpDomain *d;
  SpGrid *g; /* NULL when the town does not walk */
  SpWorld *w;
  SpCrowd *c;
  const SpValue *start; /* start_of_day */
} CitizenTown;

typedef struct CitizenTownOptions {
  size_t agents;
  int threads;
  int walking; /* buy_food and buy_drink bind the nearest market */
  int market_capacity_every; /* every k-th market holds 4 agents (0: none) */
} CitizenTownOptions;

/* Builds the town; the same options build the same town (fixed seeds).
 * Exits the benchmark when a call fails. */
void citizen_town_new(CitizenTown *t, const CitizenTownOptions *o);
void citizen_town_free(CitizenTown *t);

#endif
