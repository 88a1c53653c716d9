/* grid.c: saspu cost grids: storage, getters, setters, error records. */
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_grid.h"

/* ================================================================== */
/* Memory and errors                                                  */
/* ================================================================== */

const char *sp_grid_error_name(SpGridErrorCode code) {
  switch (code) {
  case SP_GRID_E_NONE: return "none";
  case SP_GRID_E_MEMORY: return "memory";
  case SP_GRID_E_ARGUMENT: return "argument";
  case SP_GRID_E_SIZE: return "size";
  case SP_GRID_E_COST: return "cost";
  case SP_GRID_E_RANGE: return "range";
  case SP_GRID_E_BLOCKED: return "blocked";
  case SP_GRID_E_UNREACHABLE: return "unreachable";
  case SP_GRID_E_MISMATCH: return "mismatch";
  case SP_GRID_E_HEAP_FULL: return "heap full";
  case SP_GRID_E_MAP_CHAR: return "map character";
  case SP_GRID_E_MAP_RAGGED: return "map ragged";
  case SP_GRID_E_MAP_EMPTY: return "map empty";
  }
  return "unknown";
}

/* One sentence per code, built only from the record's fields so that it
 * can be rendered again in another coordinate base. */
size_t sp_grid_error_format(const SpGridError *e, int base, char *buf,
                            size_t size) {
  if (buf == NULL) size = 0;
  if (e == NULL) return 0;
  const char *what = e->what != NULL ? e->what : "";
  int x = e->x + base, y = e->y + base;
  int n = 0;
  switch (e->code) {
  case SP_GRID_E_NONE: n = snprintf(buf, size, "no error"); break;
  case SP_GRID_E_MEMORY: n = snprintf(buf, size, "out of memory"); break;
  case SP_GRID_E_ARGUMENT:
    if (e->found != -1)
      n = snprintf(buf, size, "invalid argument: %s (%d)", what, e->found);
    else
      n = snprintf(buf, size, "invalid argument: %s", what);
    break;
  case SP_GRID_E_SIZE:
    n = snprintf(buf, size,
                 "grid size %dx%d is out of range: each side must be 1..%d "
                 "and the grid at most %d cells",
                 e->width, e->height, SP_GRID_MAX_SIDE, SP_GRID_MAX_CELLS);
    break;
  case SP_GRID_E_COST:
    if (e->x >= 0)
      n = snprintf(buf, size,
                   "%s %g at (%d, %d) is out of range: a cost is a number "
                   "in [%g, %g]",
                   what, e->value, x, y, SP_GRID_MIN_COST, SP_GRID_MAX_COST);
    else
      n = snprintf(buf, size,
                   "%s %g is out of range: a cost is a number in [%g, %g]",
                   what, e->value, SP_GRID_MIN_COST, SP_GRID_MAX_COST);
    break;
  case SP_GRID_E_RANGE:
    if (e->span_w != -1)
      n = snprintf(buf, size,
                   "%s at (%d, %d) of size %dx%d does not fit in the %dx%d "
                   "grid",
                   what, x, y, e->span_w, e->span_h, e->width, e->height);
    else
      n = snprintf(buf, size, "%s (%d, %d) is outside the %dx%d grid", what, x,
                   y, e->width, e->height);
    break;
  case SP_GRID_E_BLOCKED:
    n = snprintf(buf, size, "%s (%d, %d) is blocked", what, x, y);
    break;
  case SP_GRID_E_UNREACHABLE:
    n = snprintf(buf, size,
                 "no path from (%d, %d) to (%d, %d): the target is "
                 "unreachable",
                 x, y, e->to_x + base, e->to_y + base);
    break;
  case SP_GRID_E_MISMATCH:
    n = snprintf(buf, size,
                 "the workspace was made for a %dx%d grid, this grid is "
                 "%dx%d",
                 e->span_w, e->span_h, e->width, e->height);
    break;
  case SP_GRID_E_HEAP_FULL:
    n = snprintf(buf, size,
                 "the open list is full (%d entries after compaction): "
                 "make the workspace with a larger heap_capacity, or 0",
                 e->found);
    break;
  case SP_GRID_E_MAP_CHAR: {
    char shown[8];
    int ch = e->character;
    if (ch > 32 && ch < 127)
      snprintf(shown, sizeof shown, "'%c'", ch);
    else
      snprintf(shown, sizeof shown, "\\x%02X", (unsigned)(ch & 0xFF));
    n = snprintf(buf, size,
                 "line %d, column %d: unknown character %s (legend: '#' "
                 "blocked, '.' cost 2, '=' cost 1, '1'-'9' that cost)",
                 e->line, e->column, shown);
    break;
  }
  case SP_GRID_E_MAP_RAGGED:
    n = snprintf(buf, size,
                 "line %d has %d cells but line 1 has %d: every row must "
                 "have the same length",
                 e->line, e->found, e->expected);
    break;
  case SP_GRID_E_MAP_EMPTY:
    n = snprintf(buf, size, "the picture has no cells");
    break;
  default:
    n = snprintf(buf, size, "unknown error code %d", (int)e->code);
    break;
  }
  return n < 0 ? 0 : (size_t)n;
}

/* Every field to "not relevant", then the caller fills what applies. */
void sp__grid_err_reset(SpGridError *e) {
  memset(e, 0, sizeof *e);
  e->what = "";
  e->x = e->y = e->to_x = e->to_y = -1;
  e->span_w = e->span_h = e->width = e->height = -1;
  e->line = e->column = e->found = e->expected = e->character = -1;
}

SpStatus sp__grid_err_end(SpGridError *e, SpStatus st, SpGridErrorCode code) {
  if (e != NULL) {
    e->status = st;
    e->code = code;
    sp_grid_error_format(e, 0, e->message, sizeof e->message);
  }
  return st;
}

SpStatus sp__grid_err_ok(SpGridError *e) {
  if (e != NULL) {
    e->status = SP_OK;
    e->code = SP_GRID_E_NONE;
    e->message[0] = '\0';
  }
  return SP_OK;
}

SpStatus sp__grid_fail_memory(SpGridError *e) {
  if (e != NULL) sp__grid_err_reset(e);
  return sp__grid_err_end(e, SP_ERR_MEMORY, SP_GRID_E_MEMORY);
}

SpStatus sp__grid_fail_argument(SpGridError *e, const char *what, int value) {
  if (e != NULL) {
    sp__grid_err_reset(e);
    e->what = what;
    e->found = value;
  }
  return sp__grid_err_end(e, SP_ERR_INVALID, SP_GRID_E_ARGUMENT);
}

SpStatus sp__grid_fail_size(SpGridError *e, int w, int h) {
  if (e != NULL) {
    sp__grid_err_reset(e);
    e->width = w;
    e->height = h;
  }
  return sp__grid_err_end(e, SP_ERR_INVALID, SP_GRID_E_SIZE);
}

static SpStatus fail_cost(SpGridError *e, const char *what, int x, int y,
                          double value) {
  if (e != NULL) {
    sp__grid_err_reset(e);
    e->what = what;
    e->x = x;
    e->y = y;
    e->value = value;
  }
  return sp__grid_err_end(e, SP_ERR_INVALID, SP_GRID_E_COST);
}

SpStatus sp__grid_fail_range(SpGridError *e, const char *what, const SpGrid *g,
                             int x, int y, int w, int h) {
  if (e != NULL) {
    sp__grid_err_reset(e);
    e->what = what;
    e->x = x;
    e->y = y;
    e->span_w = w;
    e->span_h = h;
    e->width = g->width;
    e->height = g->height;
  }
  return sp__grid_err_end(e, SP_ERR_STATE, SP_GRID_E_RANGE);
}

SpStatus sp__grid_fail_blocked(SpGridError *e, const char *what, int x, int y) {
  if (e != NULL) {
    sp__grid_err_reset(e);
    e->what = what;
    e->x = x;
    e->y = y;
  }
  return sp__grid_err_end(e, SP_ERR_STATE, SP_GRID_E_BLOCKED);
}

/* ================================================================== */
/* Grid storage and the cheapest-cost bookkeeping                     */
/* ================================================================== */

static int cost_ok(double c) {
  return c >= SP_GRID_MIN_COST && c <= SP_GRID_MAX_COST; /* NaN fails */
}

int sp__grid_size_ok(int w, int h) {
  return w >= 1 && h >= 1 && w <= SP_GRID_MAX_SIDE && h <= SP_GRID_MAX_SIDE &&
         (long long)w * h <= SP_GRID_MAX_CELLS;
}

/* Recomputes min_cost/min_count from scratch. */
static void grid_rescan_min(SpGrid *g) {
  float best = 0.0f;
  size_t count = 0;
  for (size_t i = 0; i < g->padded; i++) {
    float v = g->cell[i];
    if (!(v > 0.0f)) continue;
    if (count == 0 || v < best) {
      best = v;
      count = 1;
    } else if (v == best) {
      count++;
    }
  }
  g->min_cost = best;
  g->min_count = count;
}

/* Directions: E, W, S, N, then the diagonals SE, SW, NE, NW. */
const int sp__grid_dx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
const int sp__grid_dy[8] = {0, 0, 1, -1, 1, 1, -1, -1};

/* Cell i has just opened (open 1) or closed: flips the matching bit in
 * the masks of its 8 neighbours. Seen from the neighbour in direction d,
 * cell i lies in the opposite direction, which is d ^ 1 for E/W and S/N
 * and d ^ 3 for the diagonals (SE/NW, SW/NE). */
static void grid_mask_flip(SpGrid *g, size_t i, int open) {
  for (int d = 0; d < 8; d++) {
    size_t j =
        i + (size_t)(ptrdiff_t)(sp__grid_dy[d] * g->stride + sp__grid_dx[d]);
    uint8_t bit = (uint8_t)(1u << (d < 4 ? d ^ 1 : d ^ 3));
    if (open)
      g->nbr[j] |= bit;
    else
      g->nbr[j] &= (uint8_t)~bit;
  }
}

/* Stores v in cell i, flips the neighbours' masks when the cell opens or
 * closes, and keeps the minimum exact. When the last open cell at the
 * minimum goes, the minimum is unknown: *dirty is set and later writes
 * skip that bookkeeping; the caller rescans once at the end. */
void sp__grid_write(SpGrid *g, size_t i, float v, int *dirty) {
  float old = g->cell[i];
  g->cell[i] = v;
  if ((old > 0.0f) != (v > 0.0f)) grid_mask_flip(g, i, v > 0.0f);
  if (*dirty) return;
  if (old > 0.0f && old == g->min_cost && --g->min_count == 0) {
    *dirty = 1;
    return;
  }
  if (v > 0.0f) {
    if (g->min_count == 0 || v < g->min_cost) {
      g->min_cost = v;
      g->min_count = 1;
    } else if (v == g->min_cost) {
      g->min_count++;
    }
  }
}

void sp__grid_write_done(SpGrid *g, int dirty) {
  g->version++;
  if (dirty) grid_rescan_min(g);
}

/* Allocates a grid with every inner cell at `v` (already validated): the
 * padded cost array, then the padded neighbour masks. */
SpStatus sp__grid_make(int w, int h, float v, SpAllocator alloc, SpGrid **out,
                       SpGridError *err) {
  size_t stride = (size_t)w + 2;
  size_t padded = stride * ((size_t)h + 2);
  size_t head = sp_grid_align16(sizeof(SpGrid));
  size_t cells = sp_grid_align16(padded * sizeof(float));
  size_t total = head + cells + padded;
  SpGrid *g = sp__mem_alloc(alloc, total);
  if (g == NULL) return sp__grid_fail_memory(err);
  g->alloc = alloc;
  g->size = total;
  g->width = w;
  g->height = h;
  g->stride = (int)stride;
  g->padded = padded;
  g->version = 0;
  g->cell = (float *)(void *)((char *)g + head);
  g->nbr = (uint8_t *)g + head + cells;
  memset(g->cell, 0, padded * sizeof(float));
  memset(g->nbr, 0, padded);
  /* opening the cells one by one through the mask upkeep is linear and
   * leaves no second way of computing masks to keep in step */
  for (int y = 0; y < h; y++) {
    size_t i = sp_grid_index(g->stride, 0, y);
    for (int x = 0; x < w; x++, i++) {
      g->cell[i] = v;
      grid_mask_flip(g, i, 1);
    }
  }
  g->min_cost = v;
  g->min_count = (size_t)w * (size_t)h;
  *out = g;
  return SP_OK;
}

SpStatus sp_grid_new(int width, int height, double cost, SpAllocator alloc,
                     SpGrid **out, SpGridError *err) {
  if (out == NULL) return sp__grid_fail_argument(err, "out is NULL", -1);
  *out = NULL;
  if (!sp__grid_size_ok(width, height))
    return sp__grid_fail_size(err, width, height);
  if (!cost_ok(cost)) return fail_cost(err, "default cost", -1, -1, cost);
  SpStatus st = sp__grid_make(width, height, (float)cost, alloc, out, err);
  return st == SP_OK ? sp__grid_err_ok(err) : st;
}

void sp_grid_free(SpGrid *g) {
  if (g != NULL) sp__mem_free(g->alloc, g, g->size);
}

int sp_grid_width(const SpGrid *g) { return g != NULL ? g->width : 0; }
int sp_grid_height(const SpGrid *g) { return g != NULL ? g->height : 0; }
size_t sp_grid_size_bytes(const SpGrid *g) { return g != NULL ? g->size : 0; }

int sp_grid_contains(const SpGrid *g, int x, int y) {
  return g != NULL && x >= 0 && y >= 0 && x < g->width && y < g->height;
}

double sp_grid_cost(const SpGrid *g, int x, int y) {
  if (!sp_grid_contains(g, x, y)) return 0.0;
  return fabs((double)g->cell[sp_grid_index(g->stride, x, y)]);
}

int sp_grid_is_blocked(const SpGrid *g, int x, int y) {
  if (!sp_grid_contains(g, x, y)) return 1;
  return !(g->cell[sp_grid_index(g->stride, x, y)] > 0.0f);
}

double sp_grid_min_cost(const SpGrid *g) {
  return g != NULL && g->min_count > 0 ? (double)g->min_cost : 0.0;
}

/* ================================================================== */
/* Setters                                                            */
/* ================================================================== */

int sp__grid_rect_ok(const SpGrid *g, int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && w >= 0 && h >= 0 && x <= g->width &&
         y <= g->height && w <= g->width - x && h <= g->height - y;
}

SpStatus sp_grid_set_cost(SpGrid *g, int x, int y, double cost,
                          SpGridError *err) {
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (!sp_grid_contains(g, x, y))
    return sp__grid_fail_range(err, "cell", g, x, y, -1, -1);
  if (!cost_ok(cost)) return fail_cost(err, "cost", x, y, cost);
  size_t i = sp_grid_index(g->stride, x, y);
  float v = (float)cost;
  int dirty = 0;
  sp__grid_write(g, i, g->cell[i] > 0.0f ? v : -v, &dirty);
  sp__grid_write_done(g, dirty);
  return sp__grid_err_ok(err);
}

SpStatus sp_grid_set_blocked(SpGrid *g, int x, int y, int blocked,
                             SpGridError *err) {
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (!sp_grid_contains(g, x, y))
    return sp__grid_fail_range(err, "cell", g, x, y, -1, -1);
  size_t i = sp_grid_index(g->stride, x, y);
  float c = fabsf(g->cell[i]);
  int dirty = 0;
  sp__grid_write(g, i, blocked ? -c : c, &dirty);
  sp__grid_write_done(g, dirty);
  return sp__grid_err_ok(err);
}

SpStatus sp_grid_fill_cost(SpGrid *g, int x, int y, int w, int h, double cost,
                           SpGridError *err) {
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (!sp__grid_rect_ok(g, x, y, w, h))
    return sp__grid_fail_range(err, "rectangle", g, x, y, w, h);
  if (!cost_ok(cost)) return fail_cost(err, "cost", -1, -1, cost);
  float v = (float)cost;
  int dirty = 0;
  for (int j = 0; j < h; j++) {
    size_t i = sp_grid_index(g->stride, x, y + j);
    for (int k = 0; k < w; k++, i++)
      sp__grid_write(g, i, g->cell[i] > 0.0f ? v : -v, &dirty);
  }
  sp__grid_write_done(g, dirty);
  return sp__grid_err_ok(err);
}

SpStatus sp_grid_fill_blocked(SpGrid *g, int x, int y, int w, int h,
                              int blocked, SpGridError *err) {
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (!sp__grid_rect_ok(g, x, y, w, h))
    return sp__grid_fail_range(err, "rectangle", g, x, y, w, h);
  int dirty = 0;
  for (int j = 0; j < h; j++) {
    size_t i = sp_grid_index(g->stride, x, y + j);
    for (int k = 0; k < w; k++, i++) {
      float c = fabsf(g->cell[i]);
      sp__grid_write(g, i, blocked ? -c : c, &dirty);
    }
  }
  sp__grid_write_done(g, dirty);
  return sp__grid_err_ok(err);
}

SpStatus sp_grid_set_costs(SpGrid *g, int x, int y, int w, int h,
                           const double *values, SpGridError *err) {
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (!sp__grid_rect_ok(g, x, y, w, h))
    return sp__grid_fail_range(err, "rectangle", g, x, y, w, h);
  if (values == NULL && w > 0 && h > 0)
    return sp__grid_fail_argument(err, "values is NULL", -1);
  /* validate everything before the first write: all or nothing */
  for (int j = 0; j < h; j++)
    for (int k = 0; k < w; k++) {
      double c = values[(size_t)j * (size_t)w + (size_t)k];
      if (c != SP_GRID_BLOCKED && !cost_ok(c))
        return fail_cost(err, "cost", x + k, y + j, c);
    }
  int dirty = 0;
  for (int j = 0; j < h; j++) {
    size_t i = sp_grid_index(g->stride, x, y + j);
    const double *row = values + (size_t)j * (size_t)w;
    for (int k = 0; k < w; k++, i++) {
      float v = row[k] == SP_GRID_BLOCKED ? -fabsf(g->cell[i]) : (float)row[k];
      sp__grid_write(g, i, v, &dirty);
    }
  }
  sp__grid_write_done(g, dirty);
  return sp__grid_err_ok(err);
}
