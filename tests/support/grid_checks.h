/* grid_checks.h: helpers of the grid tests (test_grid*.c): maps from pictures, queries, checked searches, random grids. */
#ifndef grid_checks_h
#define grid_checks_h

#include "random_domain.h" /* RdRng, the tests' seeded splitmix64 */
#include "saspu_grid.h"

#define SQRT2    1.41421356237309504880
#define NO_ALLOC ((SpAllocator){NULL, NULL})
/* Largest side of the random grids. */
#define MAX_SIDE 24

SpGrid *ascii_grid(const char *pic);
SpGridWorkspace *workspace_for(const SpGrid *g);
SpGridPoint pt(int x, int y);
SpGridQuery query(SpGridAlgorithm a, int cut);
int close_enough(double a, double b);
void assert_close(double got, double want);
/* Runs one search that must succeed, checks the path with the oracle
 * (valid moves, summed cost equal to the reported cost) and returns it. */
SpGridResult must_find(const SpGrid *g, SpGridWorkspace *ws, SpGridPoint s,
                       SpGridPoint t, SpGridAlgorithm a, int cut,
                       SpGridPoint *path, size_t cap);
/* Uniform in [0, 1) from the top 53 bits of one draw; fixed seeds give
 * the same grids on every machine. */
double rng_unit(RdRng *r);
/* A random open cell, or (-1, -1) when every cell is blocked. */
SpGridPoint random_open(const SpGrid *g, RdRng *r);
/* Fills a grid with one of several cost styles through the bulk setter:
 * integers 1..9, road/ground (1/2), real numbers, or uniform cost 1 (the
 * worst case for ties), with obstacles at a random density. */
void randomize(SpGrid *g, RdRng *r);

#endif
