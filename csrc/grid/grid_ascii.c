/* grid_ascii.c: saspu grids drawn as ASCII pictures (legend, loader). */
#include <limits.h>
#include <math.h>
#include <stddef.h>

#include "sp_grid.h"

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
          sp__grid_err_reset(err);
          err->line = line;
          err->column = i < INT_MAX ? (int)i + 1 : INT_MAX;
          err->character = ch;
        }
        return sp__grid_err_end(err, SP_ERR_INVALID, SP_GRID_E_MAP_CHAR);
      }
    }
    if (n > SP_GRID_MAX_SIDE || line > SP_GRID_MAX_SIDE)
      return sp__grid_fail_size(err, n > INT_MAX ? INT_MAX : (int)n, line);
    if (line == 1) {
      width = n;
    } else if (n != width) {
      if (err != NULL) {
        sp__grid_err_reset(err);
        err->line = line;
        err->found = (int)n;
        err->expected = (int)width;
      }
      return sp__grid_err_end(err, SP_ERR_INVALID, SP_GRID_E_MAP_RAGGED);
    }
  }
  if (line == 0 || width == 0) {
    if (err != NULL) sp__grid_err_reset(err);
    return sp__grid_err_end(err, SP_ERR_INVALID, SP_GRID_E_MAP_EMPTY);
  }
  if (!sp__grid_size_ok((int)width, line))
    return sp__grid_fail_size(err, (int)width, line);
  *cols = (int)width;
  *rows = line;
  return SP_OK;
}

/* Paints a validated picture with its top-left cell at (x0, y0). */
static void ascii_paint(SpGrid *g, int x0, int y0, const char *t, size_t len) {
  size_t pos = 0;
  int y = y0, dirty = 0;
  while (pos < len) {
    size_t start = pos;
    size_t n = ascii_line(t, len, &pos);
    size_t i = sp_grid_index(g->stride, x0, y);
    for (size_t k = 0; k < n; k++, i++) {
      float v = ascii_symbol((unsigned char)t[start + k]);
      sp__grid_write(g, i, v < 0.0f ? -fabsf(g->cell[i]) : v, &dirty);
    }
    y++;
  }
  sp__grid_write_done(g, dirty);
}

SpStatus sp_grid_new_ascii(const char *text, size_t len, SpAllocator alloc,
                           SpGrid **out, SpGridError *err) {
  if (out == NULL) return sp__grid_fail_argument(err, "out is NULL", -1);
  *out = NULL;
  if (text == NULL) return sp__grid_fail_argument(err, "text is NULL", -1);
  int cols = 0, rows = 0;
  SpStatus st = ascii_scan(text, len, &cols, &rows, err);
  if (st != SP_OK) return st;
  /* '#' cells remember cost 1: painting keeps the cost under a block */
  st = sp__grid_make(cols, rows, 1.0f, alloc, out, err);
  if (st != SP_OK) return st;
  ascii_paint(*out, 0, 0, text, len);
  return sp__grid_err_ok(err);
}

SpStatus sp_grid_set_ascii(SpGrid *g, int x, int y, const char *text,
                           size_t len, SpGridError *err) {
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (text == NULL) return sp__grid_fail_argument(err, "text is NULL", -1);
  int cols = 0, rows = 0;
  SpStatus st = ascii_scan(text, len, &cols, &rows, err);
  if (st != SP_OK) return st;
  if (!sp__grid_rect_ok(g, x, y, cols, rows))
    return sp__grid_fail_range(err, "picture", g, x, y, cols, rows);
  ascii_paint(g, x, y, text, len);
  return sp__grid_err_ok(err);
}
