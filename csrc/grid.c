/* grid.c: cost grids (setters, ASCII loader) and Dijkstra/A* searches on them. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_heap.h"
#include "saspu_grid.h"

#define GRID_SQRT2 1.41421356237309504880

#if defined(__GNUC__)
#define GRID_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define GRID_ALWAYS_INLINE inline
#endif

/* ================================================================== */
/* Layout                                                             */
/* ================================================================== */

/* Cells are stored with a one-cell border on every side, so the 8
 * neighbours of any inner cell are valid indices and the search needs no
 * bounds test: a border cell reads as blocked. Cell values:
 *   v > 0   open, cost v
 *   v < 0   blocked, remembered cost -v
 *   v == 0  border (never addressable) */
struct SpGrid {
  SpAllocator alloc;
  size_t size;      /* bytes of the whole block */
  int width, height;
  int stride;       /* width + 2 */
  size_t padded;    /* stride * (height + 2) */
  float min_cost;   /* cheapest open cell */
  size_t min_count; /* open cells at min_cost; 0 iff no cell is open */
  float *cell;
};

/* Per-cell search annotation. `gen` says which search wrote it: a node
 * whose gen differs from the workspace's is unseen, so a search never
 * clears the array. flags: parent direction (3 bits), closed, kept (a
 * scratch mark of heap compaction). */
typedef struct SpGridNode {
  double g;
  uint16_t gen;
  uint8_t flags;
} SpGridNode;

enum { NODE_DIR = 0x07, NODE_CLOSED = 0x08, NODE_KEPT = 0x10 };

struct SpGridWorkspace {
  SpAllocator alloc;
  size_t size;
  int width, height, stride;
  size_t padded;
  uint16_t gen;
  int32_t off[8]; /* index offset of each direction */
  SpGridNode *node;
  SpGridHeap heap;
  /* the last search, for sp_grid_workspace_path */
  int has_path;
  uint32_t start, target;
  size_t length;
};

/* Directions: E, W, S, N, then the diagonals SE, SW, NE, NW (so bit d
 * of a neighbour mask is direction d). A node's parent is node - off[dir].
 * STEP is the length of each move. */
static const int DX[8] = {1, -1, 0, 0, 1, -1, 1, -1};
static const int DY[8] = {0, 0, 1, -1, 1, 1, -1, -1};
static const double STEP[8] = {1.0,        1.0,        1.0,        1.0,
                               GRID_SQRT2, GRID_SQRT2, GRID_SQRT2, GRID_SQRT2};

/* Index of the lowest set bit of a nonzero 8-bit mask. */
static GRID_ALWAYS_INLINE int grid_low_bit(unsigned m) {
#if defined(__GNUC__)
  return __builtin_ctz(m);
#else
  int d = 0;
  while (!(m & 1u)) m >>= 1, d++;
  return d;
#endif
}

/* Keeps the diagonals of an open-neighbour mask whose two orthogonal
 * neighbours (the corners a diagonal passes between) are both open. */
static GRID_ALWAYS_INLINE unsigned grid_no_corner_cuts(unsigned m) {
  unsigned e = m & 1u, w = (m >> 1) & 1u, s = (m >> 2) & 1u, n = (m >> 3) & 1u;
  return m & (0x0Fu | (e & s) << 4 | (w & s) << 5 | (e & n) << 6 |
              (w & n) << 7);
}

static size_t grid_index(int stride, int x, int y) {
  return (size_t)(y + 1) * (size_t)stride + (size_t)(x + 1);
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* ================================================================== */
/* Memory and errors                                                  */
/* ================================================================== */

static void *grid_alloc(SpAllocator a, size_t n) {
  if (a.fn == NULL) return malloc(n);
  return a.fn(a.ud, NULL, 0, n);
}

static void grid_release(SpAllocator a, void *p, size_t n) {
  if (p == NULL) return;
  if (a.fn == NULL)
    free(p);
  else
    a.fn(a.ud, p, n, 0);
}

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
  case SP_GRID_E_NONE:
    n = snprintf(buf, size, "no error");
    break;
  case SP_GRID_E_MEMORY:
    n = snprintf(buf, size, "out of memory");
    break;
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
      n = snprintf(buf, size, "%s (%d, %d) is outside the %dx%d grid", what,
                   x, y, e->width, e->height);
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
static void err_reset(SpGridError *e) {
  memset(e, 0, sizeof *e);
  e->what = "";
  e->x = e->y = e->to_x = e->to_y = -1;
  e->span_w = e->span_h = e->width = e->height = -1;
  e->line = e->column = e->found = e->expected = e->character = -1;
}

static SpStatus err_end(SpGridError *e, SpStatus st, SpGridErrorCode code) {
  if (e != NULL) {
    e->status = st;
    e->code = code;
    sp_grid_error_format(e, 0, e->message, sizeof e->message);
  }
  return st;
}

static SpStatus err_ok(SpGridError *e) {
  if (e != NULL) {
    e->status = SP_OK;
    e->code = SP_GRID_E_NONE;
    e->message[0] = '\0';
  }
  return SP_OK;
}

static SpStatus fail_memory(SpGridError *e) {
  if (e != NULL) err_reset(e);
  return err_end(e, SP_ERR_MEMORY, SP_GRID_E_MEMORY);
}

static SpStatus fail_argument(SpGridError *e, const char *what, int value) {
  if (e != NULL) {
    err_reset(e);
    e->what = what;
    e->found = value;
  }
  return err_end(e, SP_ERR_INVALID, SP_GRID_E_ARGUMENT);
}

static SpStatus fail_size(SpGridError *e, int w, int h) {
  if (e != NULL) {
    err_reset(e);
    e->width = w;
    e->height = h;
  }
  return err_end(e, SP_ERR_INVALID, SP_GRID_E_SIZE);
}

static SpStatus fail_cost(SpGridError *e, const char *what, int x, int y,
                          double value) {
  if (e != NULL) {
    err_reset(e);
    e->what = what;
    e->x = x;
    e->y = y;
    e->value = value;
  }
  return err_end(e, SP_ERR_INVALID, SP_GRID_E_COST);
}

static SpStatus fail_range(SpGridError *e, const char *what, const SpGrid *g,
                           int x, int y, int w, int h) {
  if (e != NULL) {
    err_reset(e);
    e->what = what;
    e->x = x;
    e->y = y;
    e->span_w = w;
    e->span_h = h;
    e->width = g->width;
    e->height = g->height;
  }
  return err_end(e, SP_ERR_STATE, SP_GRID_E_RANGE);
}

static SpStatus fail_blocked(SpGridError *e, const char *what, int x, int y) {
  if (e != NULL) {
    err_reset(e);
    e->what = what;
    e->x = x;
    e->y = y;
  }
  return err_end(e, SP_ERR_STATE, SP_GRID_E_BLOCKED);
}

/* ================================================================== */
/* Grid storage and the cheapest-cost bookkeeping                     */
/* ================================================================== */

static int cost_ok(double c) {
  return c >= SP_GRID_MIN_COST && c <= SP_GRID_MAX_COST; /* NaN fails */
}

static int size_ok(int w, int h) {
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

/* Stores v in cell i and keeps the minimum exact. When the last open cell
 * at the minimum goes, the minimum is unknown: *dirty is set and later
 * writes skip the bookkeeping; the caller rescans once at the end. */
static void grid_write(SpGrid *g, size_t i, float v, int *dirty) {
  float old = g->cell[i];
  g->cell[i] = v;
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

static void grid_write_done(SpGrid *g, int dirty) {
  if (dirty) grid_rescan_min(g);
}

/* Allocates a grid with every inner cell at `v` (already validated). */
static SpStatus grid_make(int w, int h, float v, SpAllocator alloc,
                          SpGrid **out, SpGridError *err) {
  size_t stride = (size_t)w + 2;
  size_t padded = stride * ((size_t)h + 2);
  size_t head = align16(sizeof(SpGrid));
  size_t total = head + padded * sizeof(float);
  SpGrid *g = grid_alloc(alloc, total);
  if (g == NULL) return fail_memory(err);
  g->alloc = alloc;
  g->size = total;
  g->width = w;
  g->height = h;
  g->stride = (int)stride;
  g->padded = padded;
  g->cell = (float *)(void *)((char *)g + head);
  memset(g->cell, 0, padded * sizeof(float));
  for (int y = 0; y < h; y++) {
    float *row = g->cell + grid_index(g->stride, 0, y);
    for (int x = 0; x < w; x++) row[x] = v;
  }
  g->min_cost = v;
  g->min_count = (size_t)w * (size_t)h;
  *out = g;
  return SP_OK;
}

SpStatus sp_grid_new(int width, int height, double cost, SpAllocator alloc,
                     SpGrid **out, SpGridError *err) {
  if (out == NULL) return fail_argument(err, "out is NULL", -1);
  *out = NULL;
  if (!size_ok(width, height)) return fail_size(err, width, height);
  if (!cost_ok(cost)) return fail_cost(err, "default cost", -1, -1, cost);
  SpStatus st = grid_make(width, height, (float)cost, alloc, out, err);
  return st == SP_OK ? err_ok(err) : st;
}

void sp_grid_free(SpGrid *g) {
  if (g != NULL) grid_release(g->alloc, g, g->size);
}

int sp_grid_width(const SpGrid *g) { return g != NULL ? g->width : 0; }
int sp_grid_height(const SpGrid *g) { return g != NULL ? g->height : 0; }
size_t sp_grid_size_bytes(const SpGrid *g) { return g != NULL ? g->size : 0; }

int sp_grid_contains(const SpGrid *g, int x, int y) {
  return g != NULL && x >= 0 && y >= 0 && x < g->width && y < g->height;
}

double sp_grid_cost(const SpGrid *g, int x, int y) {
  if (!sp_grid_contains(g, x, y)) return 0.0;
  return fabs((double)g->cell[grid_index(g->stride, x, y)]);
}

int sp_grid_is_blocked(const SpGrid *g, int x, int y) {
  if (!sp_grid_contains(g, x, y)) return 1;
  return !(g->cell[grid_index(g->stride, x, y)] > 0.0f);
}

double sp_grid_min_cost(const SpGrid *g) {
  return g != NULL && g->min_count > 0 ? (double)g->min_cost : 0.0;
}

/* ================================================================== */
/* Setters                                                            */
/* ================================================================== */

static int rect_ok(const SpGrid *g, int x, int y, int w, int h) {
  return x >= 0 && y >= 0 && w >= 0 && h >= 0 && x <= g->width &&
         y <= g->height && w <= g->width - x && h <= g->height - y;
}

SpStatus sp_grid_set_cost(SpGrid *g, int x, int y, double cost,
                          SpGridError *err) {
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (!sp_grid_contains(g, x, y))
    return fail_range(err, "cell", g, x, y, -1, -1);
  if (!cost_ok(cost)) return fail_cost(err, "cost", x, y, cost);
  size_t i = grid_index(g->stride, x, y);
  float v = (float)cost;
  int dirty = 0;
  grid_write(g, i, g->cell[i] > 0.0f ? v : -v, &dirty);
  grid_write_done(g, dirty);
  return err_ok(err);
}

SpStatus sp_grid_set_blocked(SpGrid *g, int x, int y, int blocked,
                             SpGridError *err) {
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (!sp_grid_contains(g, x, y))
    return fail_range(err, "cell", g, x, y, -1, -1);
  size_t i = grid_index(g->stride, x, y);
  float c = fabsf(g->cell[i]);
  int dirty = 0;
  grid_write(g, i, blocked ? -c : c, &dirty);
  grid_write_done(g, dirty);
  return err_ok(err);
}

SpStatus sp_grid_fill_cost(SpGrid *g, int x, int y, int w, int h,
                           double cost, SpGridError *err) {
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (!rect_ok(g, x, y, w, h))
    return fail_range(err, "rectangle", g, x, y, w, h);
  if (!cost_ok(cost)) return fail_cost(err, "cost", -1, -1, cost);
  float v = (float)cost;
  int dirty = 0;
  for (int j = 0; j < h; j++) {
    size_t i = grid_index(g->stride, x, y + j);
    for (int k = 0; k < w; k++, i++)
      grid_write(g, i, g->cell[i] > 0.0f ? v : -v, &dirty);
  }
  grid_write_done(g, dirty);
  return err_ok(err);
}

SpStatus sp_grid_fill_blocked(SpGrid *g, int x, int y, int w, int h,
                              int blocked, SpGridError *err) {
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (!rect_ok(g, x, y, w, h))
    return fail_range(err, "rectangle", g, x, y, w, h);
  int dirty = 0;
  for (int j = 0; j < h; j++) {
    size_t i = grid_index(g->stride, x, y + j);
    for (int k = 0; k < w; k++, i++) {
      float c = fabsf(g->cell[i]);
      grid_write(g, i, blocked ? -c : c, &dirty);
    }
  }
  grid_write_done(g, dirty);
  return err_ok(err);
}

SpStatus sp_grid_set_costs(SpGrid *g, int x, int y, int w, int h,
                           const double *values, SpGridError *err) {
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (!rect_ok(g, x, y, w, h))
    return fail_range(err, "rectangle", g, x, y, w, h);
  if (values == NULL && w > 0 && h > 0)
    return fail_argument(err, "values is NULL", -1);
  /* validate everything before the first write: all or nothing */
  for (int j = 0; j < h; j++)
    for (int k = 0; k < w; k++) {
      double c = values[(size_t)j * (size_t)w + (size_t)k];
      if (c != SP_GRID_BLOCKED && !cost_ok(c))
        return fail_cost(err, "cost", x + k, y + j, c);
    }
  int dirty = 0;
  for (int j = 0; j < h; j++) {
    size_t i = grid_index(g->stride, x, y + j);
    const double *row = values + (size_t)j * (size_t)w;
    for (int k = 0; k < w; k++, i++) {
      float v = row[k] == SP_GRID_BLOCKED ? -fabsf(g->cell[i]) : (float)row[k];
      grid_write(g, i, v, &dirty);
    }
  }
  grid_write_done(g, dirty);
  return err_ok(err);
}

/* ================================================================== */
/* ASCII pictures                                                     */
/* ================================================================== */

/* The legend: a cost for open symbols, -1 for '#', 0 for anything else. */
static float ascii_symbol(unsigned char ch) {
  switch (ch) {
  case '#': return -1.0f;
  case '.': return 2.0f;
  case '=': return 1.0f;
  default: break;
  }
  if (ch >= '1' && ch <= '9') return (float)(ch - '0');
  return 0.0f;
}

/* Returns the length of the line starting at *pos and moves *pos past
 * its end ("\n" or "\r\n", or the end of the text). */
static size_t ascii_line(const char *t, size_t len, size_t *pos) {
  size_t start = *pos, end = start;
  while (end < len && t[end] != '\n') end++;
  *pos = end < len ? end + 1 : end;
  if (end < len && end > start && t[end - 1] == '\r') end--;
  return end - start;
}

/* Validates a picture and measures it. Checks, in reading order: each
 * character against the legend, then the line's length against line 1. */
static SpStatus ascii_scan(const char *t, size_t len, int *cols, int *rows,
                           SpGridError *err) {
  size_t pos = 0, width = 0;
  int line = 0;
  while (pos < len) {
    size_t start = pos;
    size_t n = ascii_line(t, len, &pos);
    line++;
    for (size_t i = 0; i < n; i++) {
      unsigned char ch = (unsigned char)t[start + i];
      if (ascii_symbol(ch) == 0.0f) {
        if (err != NULL) {
          err_reset(err);
          err->line = line;
          err->column = i < INT_MAX ? (int)i + 1 : INT_MAX;
          err->character = ch;
        }
        return err_end(err, SP_ERR_INVALID, SP_GRID_E_MAP_CHAR);
      }
    }
    if (n > SP_GRID_MAX_SIDE || line > SP_GRID_MAX_SIDE)
      return fail_size(err, n > INT_MAX ? INT_MAX : (int)n, line);
    if (line == 1) {
      width = n;
    } else if (n != width) {
      if (err != NULL) {
        err_reset(err);
        err->line = line;
        err->found = (int)n;
        err->expected = (int)width;
      }
      return err_end(err, SP_ERR_INVALID, SP_GRID_E_MAP_RAGGED);
    }
  }
  if (line == 0 || width == 0) {
    if (err != NULL) err_reset(err);
    return err_end(err, SP_ERR_INVALID, SP_GRID_E_MAP_EMPTY);
  }
  if (!size_ok((int)width, line)) return fail_size(err, (int)width, line);
  *cols = (int)width;
  *rows = line;
  return SP_OK;
}

/* Paints a validated picture with its top-left cell at (x0, y0). */
static void ascii_paint(SpGrid *g, int x0, int y0, const char *t,
                        size_t len) {
  size_t pos = 0;
  int y = y0, dirty = 0;
  while (pos < len) {
    size_t start = pos;
    size_t n = ascii_line(t, len, &pos);
    size_t i = grid_index(g->stride, x0, y);
    for (size_t k = 0; k < n; k++, i++) {
      float v = ascii_symbol((unsigned char)t[start + k]);
      grid_write(g, i, v < 0.0f ? -fabsf(g->cell[i]) : v, &dirty);
    }
    y++;
  }
  grid_write_done(g, dirty);
}

SpStatus sp_grid_new_ascii(const char *text, size_t len, SpAllocator alloc,
                           SpGrid **out, SpGridError *err) {
  if (out == NULL) return fail_argument(err, "out is NULL", -1);
  *out = NULL;
  if (text == NULL) return fail_argument(err, "text is NULL", -1);
  int cols = 0, rows = 0;
  SpStatus st = ascii_scan(text, len, &cols, &rows, err);
  if (st != SP_OK) return st;
  /* '#' cells remember cost 1: painting keeps the cost under a block */
  st = grid_make(cols, rows, 1.0f, alloc, out, err);
  if (st != SP_OK) return st;
  ascii_paint(*out, 0, 0, text, len);
  return err_ok(err);
}

SpStatus sp_grid_set_ascii(SpGrid *g, int x, int y, const char *text,
                           size_t len, SpGridError *err) {
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (text == NULL) return fail_argument(err, "text is NULL", -1);
  int cols = 0, rows = 0;
  SpStatus st = ascii_scan(text, len, &cols, &rows, err);
  if (st != SP_OK) return st;
  if (!rect_ok(g, x, y, cols, rows))
    return fail_range(err, "picture", g, x, y, cols, rows);
  ascii_paint(g, x, y, text, len);
  return err_ok(err);
}

/* ================================================================== */
/* Workspace                                                          */
/* ================================================================== */

SpStatus sp_grid_workspace_new(const SpGrid *g,
                               const SpGridWorkspaceOptions *opts,
                               SpAllocator alloc, SpGridWorkspace **out,
                               SpGridError *err) {
  if (out == NULL) return fail_argument(err, "out is NULL", -1);
  *out = NULL;
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  /* width*height + 8 entries always suffice: after compaction the heap
   * holds at most one entry per open cell, and the start is closed. */
  size_t full = (size_t)g->width * (size_t)g->height + 8;
  size_t cap = full;
  if (opts != NULL && opts->heap_capacity > 0 && opts->heap_capacity < full)
    cap = opts->heap_capacity;
  size_t head = align16(sizeof(SpGridWorkspace));
  size_t nodes = align16(g->padded * sizeof(SpGridNode));
  size_t total = head + nodes + cap * sizeof(SpGridHeapEntry);
  SpGridWorkspace *ws = grid_alloc(alloc, total);
  if (ws == NULL) return fail_memory(err);
  memset(ws, 0, head);
  ws->alloc = alloc;
  ws->size = total;
  ws->width = g->width;
  ws->height = g->height;
  ws->stride = g->stride;
  ws->padded = g->padded;
  ws->gen = 0;
  for (int d = 0; d < 8; d++) ws->off[d] = DY[d] * g->stride + DX[d];
  ws->node = (SpGridNode *)(void *)((char *)ws + head);
  memset(ws->node, 0, g->padded * sizeof(SpGridNode)); /* gen 0: unseen */
  ws->heap.e = (SpGridHeapEntry *)(void *)((char *)ws + head + nodes);
  ws->heap.count = 0;
  ws->heap.capacity = cap;
  *out = ws;
  return err_ok(err);
}

void sp_grid_workspace_free(SpGridWorkspace *ws) {
  if (ws != NULL) grid_release(ws->alloc, ws, ws->size);
}

size_t sp_grid_workspace_size_bytes(const SpGridWorkspace *ws) {
  return ws != NULL ? ws->size : 0;
}

/* ================================================================== */
/* Search                                                             */
/* ================================================================== */

/* Octile distance scaled by the cheapest cell cost. Each move costs at
 * least min_cost per unit of length (1 straight, sqrt 2 diagonal) and the
 * octile distance is the shortest 8-neighbour length, so this never
 * overestimates (admissible) and changes by at most one move's cost
 * between neighbours (consistent): A* closes each cell at its best cost.
 * Compaction recomputes it and needs the very same bits, hence one
 * function. */
static GRID_ALWAYS_INLINE double grid_h(double scale, int dx, int dy) {
  if (dx < 0) dx = -dx;
  if (dy < 0) dy = -dy;
  int lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
  return scale * ((double)hi + (GRID_SQRT2 - 1.0) * (double)lo);
}

/* What heap compaction needs to tell live entries from stale ones. */
typedef struct GridKeep {
  SpGridNode *node;
  double scale;
  int stride, tx, ty;
} GridKeep;

/* An entry is live when its cell is still open and its f was computed
 * from the cell's current best cost; only one entry per cell is kept. */
static int grid_keep(void *ctx, const SpGridHeapEntry *e) {
  const GridKeep *k = ctx;
  SpGridNode *n = &k->node[e->cell];
  if (n->flags & (NODE_CLOSED | NODE_KEPT)) return 0;
  int cx = (int)(e->cell % (uint32_t)k->stride);
  int cy = (int)(e->cell / (uint32_t)k->stride);
  double f = n->g + grid_h(k->scale, cx - k->tx, cy - k->ty);
  if (e->key != sp_grid_heap_key(f)) return 0;
  n->flags |= NODE_KEPT;
  return 1;
}

/* Drops stale entries; returns 0 when the heap is still full. */
static int grid_compact(SpGridWorkspace *ws, double scale, int tx, int ty) {
  GridKeep k = {ws->node, scale, ws->stride, tx, ty};
  sp_grid_heap_compact(&ws->heap, grid_keep, &k);
  for (size_t i = 0; i < ws->heap.count; i++)
    ws->node[ws->heap.e[i].cell].flags &= (uint8_t)~NODE_KEPT;
  return ws->heap.count < ws->heap.capacity;
}

enum { SEARCH_FOUND = 1, SEARCH_EXHAUSTED = 0, SEARCH_HEAP_FULL = -1 };

/* Dijkstra (astar 0) or A* (astar 1) from s to t, padded indices, both
 * open cells. Written once and inlined with constant flags, so each of
 * the four variants is compiled without the tests it does not need.
 * Assumes ws->gen was just advanced. Lazy re-insertion: a cell whose
 * best cost improves is pushed again; a popped entry of a closed cell is
 * stale and skipped. With a consistent heuristic the first pop of a cell
 * carries its optimal cost, so closed cells are never reopened. */
static GRID_ALWAYS_INLINE int grid_search(const SpGrid *g, SpGridWorkspace *ws,
                                          uint32_t s, uint32_t t, int astar,
                                          int cut, SpGridResult *r) {
  const float *cell = g->cell;
  SpGridNode *node = ws->node;
  SpGridHeap *hp = &ws->heap;
  const int32_t *off = ws->off;
  const uint32_t stride = (uint32_t)ws->stride;
  const uint16_t gen = ws->gen;
  const double scale = astar ? (double)sp_grid_min_cost(g) : 0.0;
  const int tx = (int)(t % stride), ty = (int)(t / stride);
  size_t expanded = 0, pushed = 1, peak = 1, compactions = 0;
  int outcome = SEARCH_EXHAUSTED;

  hp->count = 0;
  node[s].g = 0.0;
  node[s].gen = gen;
  node[s].flags = 0;
  {
    double h = astar ? grid_h(scale, (int)(s % stride) - tx,
                              (int)(s / stride) - ty)
                     : 0.0;
    SpGridHeapEntry e = {sp_grid_heap_key(h), s, (float)h};
    sp_grid_heap_push(hp, e);
  }

  while (hp->count > 0) {
    SpGridHeapEntry top = sp_grid_heap_pop(hp);
    uint32_t c = top.cell;
    SpGridNode *nc = &node[c];
    if (nc->flags & NODE_CLOSED) continue; /* stale entry */
    nc->flags |= NODE_CLOSED;
    expanded++;
    if (c == t) {
      outcome = SEARCH_FOUND;
      break;
    }
    const double gc = nc->g;
    const double half = 0.5 * (double)cell[c];
    int cx = 0, cy = 0;
    if (astar) {
      cx = (int)(c % stride);
      cy = (int)(c / stride);
    }
    /* the open neighbours as a bit mask, without a branch per cell */
    float v[8];
    unsigned open = 0;
    for (int d = 0; d < 8; d++) {
      v[d] = cell[c + (uint32_t)off[d]];
      open |= (unsigned)(v[d] > 0.0f) << d;
    }
    if (!cut) open = grid_no_corner_cuts(open);
    while (open != 0) {
      int d = grid_low_bit(open);
      open &= open - 1;
      double step = (half + 0.5 * (double)v[d]) * STEP[d];
      uint32_t n = c + (uint32_t)off[d];
      SpGridNode *nn = &node[n];
      double ng = gc + step;
      if (nn->gen == gen && ((nn->flags & NODE_CLOSED) || ng >= nn->g))
        continue;
      nn->g = ng;
      nn->gen = gen;
      nn->flags = (uint8_t)d;
      double h = astar ? grid_h(scale, cx + DX[d] - tx, cy + DY[d] - ty) : 0.0;
      if (hp->count == hp->capacity) {
        compactions++;
        if (!grid_compact(ws, scale, tx, ty)) {
          outcome = SEARCH_HEAP_FULL;
          goto done;
        }
      }
      SpGridHeapEntry e = {sp_grid_heap_key(ng + h), n, (float)h};
      sp_grid_heap_push(hp, e);
      pushed++;
      if (hp->count > peak) peak = hp->count;
    }
  }
done:
  r->expanded = expanded;
  r->pushed = pushed;
  r->heap_peak = peak;
  r->compactions = compactions;
  return outcome;
}

static int grid_search_astar(const SpGrid *g, SpGridWorkspace *ws, uint32_t s,
                             uint32_t t, SpGridResult *r) {
  return grid_search(g, ws, s, t, 1, 0, r);
}
static int grid_search_astar_cut(const SpGrid *g, SpGridWorkspace *ws,
                                 uint32_t s, uint32_t t, SpGridResult *r) {
  return grid_search(g, ws, s, t, 1, 1, r);
}
static int grid_search_dijkstra(const SpGrid *g, SpGridWorkspace *ws,
                                uint32_t s, uint32_t t, SpGridResult *r) {
  return grid_search(g, ws, s, t, 0, 0, r);
}
static int grid_search_dijkstra_cut(const SpGrid *g, SpGridWorkspace *ws,
                                    uint32_t s, uint32_t t, SpGridResult *r) {
  return grid_search(g, ws, s, t, 0, 1, r);
}

const char *sp_grid_algorithm_name(SpGridAlgorithm a) {
  switch (a) {
  case SP_GRID_ASTAR: return "astar";
  case SP_GRID_DIJKSTRA: return "dijkstra";
  }
  return NULL;
}

/* Validates, advances the generation (clearing the annotations only when
 * the 16-bit counter wraps, once every 65535 searches), runs the search
 * and records the path for sp_grid_workspace_path. */
SpStatus sp_grid_find_path(const SpGrid *g, SpGridWorkspace *ws,
                           SpGridPoint start, SpGridPoint target,
                           const SpGridQuery *q, SpGridResult *res,
                           SpGridError *err) {
  SpGridResult local;
  SpGridResult *r = res != NULL ? res : &local;
  memset(r, 0, sizeof *r);
  if (g == NULL) return fail_argument(err, "grid is NULL", -1);
  if (ws == NULL) return fail_argument(err, "workspace is NULL", -1);
  ws->has_path = 0;
  if (ws->width != g->width || ws->height != g->height) {
    if (err != NULL) {
      err_reset(err);
      err->span_w = ws->width;
      err->span_h = ws->height;
      err->width = g->width;
      err->height = g->height;
    }
    return err_end(err, SP_ERR_INVALID, SP_GRID_E_MISMATCH);
  }
  SpGridAlgorithm alg = q != NULL ? q->algorithm : SP_GRID_ASTAR;
  int cut = q != NULL && q->allow_corner_cutting;
  if (alg != SP_GRID_ASTAR && alg != SP_GRID_DIJKSTRA)
    return fail_argument(err, "unknown algorithm", (int)alg);
  if (!sp_grid_contains(g, start.x, start.y))
    return fail_range(err, "start", g, start.x, start.y, -1, -1);
  if (!sp_grid_contains(g, target.x, target.y))
    return fail_range(err, "target", g, target.x, target.y, -1, -1);
  if (sp_grid_is_blocked(g, start.x, start.y))
    return fail_blocked(err, "start", start.x, start.y);
  if (sp_grid_is_blocked(g, target.x, target.y))
    return fail_blocked(err, "target", target.x, target.y);

  if (++ws->gen == 0) {
    memset(ws->node, 0, ws->padded * sizeof(SpGridNode));
    ws->gen = 1;
  }
  uint32_t s = (uint32_t)grid_index(g->stride, start.x, start.y);
  uint32_t t = (uint32_t)grid_index(g->stride, target.x, target.y);
  int outcome;
  if (alg == SP_GRID_ASTAR)
    outcome = cut ? grid_search_astar_cut(g, ws, s, t, r)
                  : grid_search_astar(g, ws, s, t, r);
  else
    outcome = cut ? grid_search_dijkstra_cut(g, ws, s, t, r)
                  : grid_search_dijkstra(g, ws, s, t, r);

  if (outcome == SEARCH_HEAP_FULL) {
    if (err != NULL) {
      err_reset(err);
      err->found = (int)ws->heap.capacity;
    }
    return err_end(err, SP_ERR_MEMORY, SP_GRID_E_HEAP_FULL);
  }
  if (outcome == SEARCH_EXHAUSTED) {
    if (err != NULL) {
      err_reset(err);
      err->x = start.x;
      err->y = start.y;
      err->to_x = target.x;
      err->to_y = target.y;
    }
    return err_end(err, SP_NO_PLAN, SP_GRID_E_UNREACHABLE);
  }
  size_t len = 1;
  for (uint32_t c = t; c != s; len++)
    c -= (uint32_t)ws->off[ws->node[c].flags & NODE_DIR];
  r->cost = ws->node[t].g;
  r->length = len;
  ws->has_path = 1;
  ws->start = s;
  ws->target = t;
  ws->length = len;
  return err_ok(err);
}

/* Walks the parent directions back from the target, writing from the
 * end of the path so the copy comes out start first. */
size_t sp_grid_workspace_path(const SpGridWorkspace *ws, SpGridPoint *buf,
                              size_t cap) {
  if (ws == NULL || !ws->has_path) return 0;
  if (buf == NULL) cap = 0;
  uint32_t c = ws->target;
  uint32_t stride = (uint32_t)ws->stride;
  for (size_t k = ws->length; k-- > 0;) {
    if (k < cap) {
      buf[k].x = (int)(c % stride) - 1;
      buf[k].y = (int)(c / stride) - 1;
    }
    if (c != ws->start) c -= (uint32_t)ws->off[ws->node[c].flags & NODE_DIR];
  }
  return ws->length;
}
