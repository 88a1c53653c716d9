/* walk_town.h: a small town for the tests of walkers: a random cost grid, one market, citizens whose buy_food step walks there, and each one's path down the market's distance field (the oracle). */
#ifndef walk_town_h
#define walk_town_h

#include <stddef.h>
#include <stdint.h>

#include "saspu_agents.h"
#include "saspu_grid.h"
#include "test_fixture.h"

typedef struct WalkTown {
  SpGrid *g;
  TestFixture f;
  SpWorld *w;
  SpCrowd *c;
  int buy;        /* the buy_food action: walks to the market */
  size_t n;       /* agents */
  size_t cells;   /* a path's room: the grid's cells */
  size_t *path;   /* agent i's field indices from its spawn cell: path_of */
  int *len;       /* its steps to the market, -1: unreachable */
  float *dist;    /* the oracle's field to the market */
  float *scratch; /* and the scratch that computed it */
} WalkTown;

/* A town of width x height cells (a quarter blocked, the rest costing 1
 * to 3), a market most open cells reach, and n citizens on random open
 * cells (crowd of `threads` workers at `speed` cells a second) whose
 * goal `work` walks to the market, stays 1000 s, and takes no other time.
 * Fails the running cmocka test on any error. */
void walk_town_open(WalkTown *t, uint64_t seed, int width, int height, size_t n,
                    int threads, float speed);
void walk_town_close(WalkTown *t);

/* Agent i's path: its cells' field indices, len[i] + 1 of them. */
static inline const size_t *walk_town_path(const WalkTown *t, size_t i) {
  return t->path + i * t->cells;
}

#endif
