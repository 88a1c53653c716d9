/* grid_oracle.h: brute-force references that grid pathfinding tests check against. */
#ifndef grid_oracle_h
#define grid_oracle_h

#include <stddef.h>

#include "saspu_grid.h"

/* The cost of the single move a -> b under the documented rules, read
 * through the public getters only; a negative value when the move is not
 * allowed (not adjacent, blocked or outside, or a forbidden corner cut). */
double grid_oracle_move_cost(const SpGrid *g, SpGridPoint a, SpGridPoint b,
                             int allow_corner_cutting);

/* Bellman-Ford from `start`: relaxes every move of the grid until nothing
 * changes. dist[y * width + x] receives the cheapest cost to each cell,
 * INFINITY when unreachable (blocked start: all INFINITY). No heap, no
 * heuristic, no annotation reuse: deliberately the naive algorithm.
 * Returns the number of relaxation rounds. */
int grid_oracle_distances(const SpGrid *g, SpGridPoint start,
                          int allow_corner_cutting, double *dist);

/* Checks that path[0..len-1] goes from start to target by allowed moves
 * (adjacent cells, none blocked, no forbidden corner cut) and sums its
 * cost into *cost. Returns NULL when valid, else a static sentence saying
 * what is wrong. */
const char *grid_oracle_check_path(const SpGrid *g, const SpGridPoint *path,
                                   size_t len, SpGridPoint start,
                                   SpGridPoint target, int allow_corner_cutting,
                                   double *cost);

#endif
