/* sp_grid.h: private grid layout and helpers shared by the grid_*.c files. */
#ifndef sp_grid_h
#define sp_grid_h

#include <stddef.h>
#include <stdint.h>

#include "saspu_grid.h"
#include "sp_alloc.h"

#define SP_GRID_SQRT2 1.41421356237309504880

/* Every padded cell index is below 2^SP_GRID_INDEX_BITS: with the limits
 * below, (w + 2) * (h + 2) <= 2^26 + 4 * 32768 + 4. Searches keep a
 * version in the bits above. */
#define SP_GRID_INDEX_BITS 27
#if SP_GRID_MAX_SIDE > 32768 || SP_GRID_MAX_CELLS > 67108864
#error "SP_GRID_MAX_SIDE must be at most 32768, SP_GRID_MAX_CELLS 2^26"
#endif

/* Cells are stored with a one-cell border on every side, so the 8
 * neighbours of any inner cell are valid indices and the search needs no
 * bounds test: a border cell reads as blocked. Cell values:
 *   v > 0   open, cost v
 *   v < 0   blocked, remembered cost -v
 *   v == 0  border (never addressable)
 * Each cell also has a mask of its open neighbours (bit d set when the
 * neighbour in direction d is open), kept by every write, so a search
 * reads one byte instead of eight costs to know where it can go. */
struct SpGrid {
  SpAllocator alloc;
  size_t size; /* bytes of the whole block */
  int width, height;
  int stride;       /* width + 2 */
  size_t padded;    /* stride * (height + 2) */
  float min_cost;   /* cheapest open cell */
  size_t min_count; /* open cells at min_cost; 0 iff no cell is open */
  float *cell;
  uint8_t *nbr;     /* open-neighbour masks, same indices as cell */
  uint64_t version; /* bumped by every run of writes (distance fields) */
};

/* Directions: E, W, S, N, then the diagonals SE, SW, NE, NW, so bit d of
 * a neighbour mask is direction d. */
extern const int sp__grid_dx[8];
extern const int sp__grid_dy[8];

/* Padded index of the inner cell (x, y). */
static inline size_t sp_grid_index(int stride, int x, int y) {
  return (size_t)(y + 1) * (size_t)stride + (size_t)(x + 1);
}

static inline size_t sp_grid_align16(size_t n) {
  return (n + 15) & ~(size_t)15;
}

/* floor(n / d) for every n < 2^SP_GRID_INDEX_BITS, as a multiply and a
 * shift (Granlund and Montgomery's round-up method), so that a search
 * turns a padded index into coordinates without a division. With
 * N = SP_GRID_INDEX_BITS, l = ceil(log2 d) and m = floor(2^(N+l) / d) + 1,
 * m * n / 2^(N+l) exceeds n / d by less than 1 / d, which never reaches
 * the next integer; m <= 2^(N+1), so m * n < 2^55 fits in 64 bits.
 * d is a stride: 3..32770. */
typedef struct SpGridDiv {
  uint64_t mul;
  unsigned shift;
} SpGridDiv;

static inline SpGridDiv sp_grid_div_make(uint32_t d) {
  unsigned l = 0;
  while (((uint64_t)1 << l) < d) l++;
  SpGridDiv v;
  v.shift = SP_GRID_INDEX_BITS + l;
  v.mul = ((uint64_t)1 << v.shift) / d + 1;
  return v;
}

static inline uint32_t sp_grid_div(SpGridDiv v, uint32_t n) {
  return (uint32_t)(((uint64_t)n * v.mul) >> v.shift);
}

/* Allocation through the grid's lua_Alloc-shaped hook (malloc when the
 * hook is NULL); release takes the size the hook expects. */

/* ------------------------------------------------------------------ */
/* Error records                                                      */
/* ------------------------------------------------------------------ */

/* Every field of *e to "not relevant" (ints -1, what ""). */
void sp__grid_err_reset(SpGridError *e);
/* Sets status and code, renders the message; returns st. e may be NULL. */
SpStatus sp__grid_err_end(SpGridError *e, SpStatus st, SpGridErrorCode code);
/* Marks success; returns SP_OK. e may be NULL. */
SpStatus sp__grid_err_ok(SpGridError *e);

SpStatus sp__grid_fail_memory(SpGridError *e);
SpStatus sp__grid_fail_argument(SpGridError *e, const char *what, int value);
SpStatus sp__grid_fail_size(SpGridError *e, int w, int h);
SpStatus sp__grid_fail_range(SpGridError *e, const char *what, const SpGrid *g,
                             int x, int y, int w, int h);
SpStatus sp__grid_fail_blocked(SpGridError *e, const char *what, int x, int y);

/* ------------------------------------------------------------------ */
/* Storage                                                            */
/* ------------------------------------------------------------------ */

/* 1 when w x h is an allowed grid size. */
int sp__grid_size_ok(int w, int h);
/* 1 when the w x h rectangle at (x, y) lies inside the grid. */
int sp__grid_rect_ok(const SpGrid *g, int x, int y, int w, int h);

/* Allocates a w x h grid (size already validated) with every inner cell
 * at v > 0. On failure *out is untouched and err says why. */
SpStatus sp__grid_make(int w, int h, float v, SpAllocator alloc, SpGrid **out,
                       SpGridError *err);

/* Stores v (a cell value as above) at padded index i and keeps the
 * cheapest open cost exact. *dirty starts at 0; when the last open cell
 * at the minimum goes it becomes 1 and later writes skip the bookkeeping.
 * Every run of writes ends with one sp__grid_write_done, which rescans the
 * grid once if needed. */
void sp__grid_write(SpGrid *g, size_t i, float v, int *dirty);
void sp__grid_write_done(SpGrid *g, int dirty);

#endif
