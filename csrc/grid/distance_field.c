/* distance_field.c: one Dijkstra from a target over a whole grid (a distance field walkers follow downhill), and the grid's version counter. */
#include <math.h>
#include <string.h>

#include "sp_grid.h"

/* Open-list entry: the cost as a float and the padded cell. */
typedef struct FieldEntry {
  float key;
  uint32_t cell;
} FieldEntry;

uint64_t sp_grid_version(const SpGrid *g) { return g->version; }

size_t sp_grid_field_cells(const SpGrid *g) { return g->padded; }

size_t sp_grid_field_index(const SpGrid *g, int x, int y) {
  return sp_grid_index(g->stride, x, y);
}

int sp_grid_field_step(const SpGrid *g, int allow_corner_cutting, size_t cell,
                       int d) {
  uint8_t m = g->nbr[cell];
  if (!allow_corner_cutting && d >= 4) {
    static const uint8_t need[4] = {0x05, 0x06, 0x09, 0x0A};
    if ((m & need[d - 4]) != need[d - 4]) return 0;
  }
  return (m >> d) & 1;
}

ptrdiff_t sp_grid_field_offset(const SpGrid *g, int d) {
  return (ptrdiff_t)sp__grid_dy[d] * g->stride + sp__grid_dx[d];
}

size_t sp_grid_field_scratch_bytes(const SpGrid *g) {
  /* each cell is pushed at most once per neighbour that improves it */
  return (8u * g->padded + 1u) * sizeof(FieldEntry);
}

static void heap_push(FieldEntry *h, size_t *n, FieldEntry x) {
  size_t k = (*n)++;
  while (k > 0) {
    size_t p = (k - 1) / 2;
    if (h[p].key <= x.key) break;
    h[k] = h[p];
    k = p;
  }
  h[k] = x;
}

static FieldEntry heap_pop(FieldEntry *h, size_t *n) {
  FieldEntry top = h[0], last = h[--*n];
  size_t k = 0, count = *n;
  for (;;) {
    size_t c = 2 * k + 1;
    if (c >= count) break;
    if (c + 1 < count && h[c + 1].key < h[c].key) c++;
    if (last.key <= h[c].key) break;
    h[k] = h[c];
    k = c;
  }
  if (count > 0) h[k] = last;
  return top;
}

/* Dijkstra from the target: field[i] becomes the cost of a cheapest path
 * from padded cell i to the target (moves are symmetric, so this is the
 * cost both ways), INFINITY where no path exists and on the border.
 * Allocates nothing: `scratch` holds sp_grid_field_scratch_bytes(g). */
SpStatus sp_grid_distance_field(const SpGrid *g, SpGridPoint target,
                                const SpGridQuery *q, float *field,
                                void *scratch, SpGridError *err) {
  sp__grid_err_reset(err);
  if (g == NULL || field == NULL || scratch == NULL)
    return sp__grid_fail_argument(err, "grid, field or scratch is NULL", -1);
  if (!sp_grid_contains(g, target.x, target.y))
    return sp__grid_fail_range(err, "target", g, target.x, target.y, 1, 1);
  size_t t = sp_grid_index(g->stride, target.x, target.y);
  if (g->cell[t] <= 0.0f)
    return sp__grid_fail_blocked(err, "target", target.x, target.y);
  int cut = q != NULL && q->allow_corner_cutting;
  for (size_t i = 0; i < g->padded; i++) field[i] = INFINITY;
  FieldEntry *heap = scratch;
  size_t n = 0;
  field[t] = 0.0f;
  FieldEntry start = {0.0f, (uint32_t)t};
  heap_push(heap, &n, start);
  while (n > 0) {
    FieldEntry e = heap_pop(heap, &n);
    if (e.key > field[e.cell]) continue; /* stale */
    float c = g->cell[e.cell];
    for (int d = 0; d < 8; d++) {
      if (!sp_grid_field_step(g, cut, e.cell, d)) continue;
      size_t nb = (size_t)((ptrdiff_t)e.cell + sp_grid_field_offset(g, d));
      float step = (c + g->cell[nb]) * 0.5f;
      if (d >= 4) step *= (float)SP_GRID_SQRT2;
      float nd = e.key + step;
      if (nd < field[nb]) {
        field[nb] = nd;
        FieldEntry x = {nd, (uint32_t)nb};
        heap_push(heap, &n, x);
      }
    }
  }
  return sp__grid_err_ok(err);
}
