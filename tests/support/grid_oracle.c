/* grid_oracle.c: Bellman-Ford and path checks used as the grid tests' reference. */
#include <math.h>
#include <stdlib.h>

#include "grid_oracle.h"

double grid_oracle_move_cost(const SpGrid *g, SpGridPoint a, SpGridPoint b,
                             int allow_corner_cutting) {
  int dx = b.x - a.x, dy = b.y - a.y;
  if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (dx == 0 && dy == 0))
    return -1.0;
  if (sp_grid_is_blocked(g, a.x, a.y) || sp_grid_is_blocked(g, b.x, b.y))
    return -1.0;
  double half = (sp_grid_cost(g, a.x, a.y) + sp_grid_cost(g, b.x, b.y)) / 2;
  if (dx == 0 || dy == 0) return half;
  /* the two cells the diagonal passes between */
  if (!allow_corner_cutting &&
      (sp_grid_is_blocked(g, b.x, a.y) || sp_grid_is_blocked(g, a.x, b.y)))
    return -1.0;
  return half * sqrt(2.0);
}

int grid_oracle_distances(const SpGrid *g, SpGridPoint start,
                          int allow_corner_cutting, double *dist) {
  int w = sp_grid_width(g), h = sp_grid_height(g);
  for (int i = 0; i < w * h; i++) dist[i] = INFINITY;
  if (sp_grid_is_blocked(g, start.x, start.y)) return 0;
  dist[start.y * w + start.x] = 0.0;
  int rounds = 0, changed = 1;
  while (changed) {
    changed = 0;
    rounds++;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        double from = dist[y * w + x];
        if (isinf(from)) continue;
        SpGridPoint a = {x, y};
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            SpGridPoint b = {x + dx, y + dy};
            double c = grid_oracle_move_cost(g, a, b, allow_corner_cutting);
            if (c < 0) continue;
            double *to = &dist[b.y * w + b.x];
            if (from + c < *to) {
              *to = from + c;
              changed = 1;
            }
          }
      }
  }
  return rounds;
}

const char *grid_oracle_check_path(const SpGrid *g, const SpGridPoint *path,
                                   size_t len, SpGridPoint start,
                                   SpGridPoint target, int allow_corner_cutting,
                                   double *cost) {
  *cost = 0.0;
  if (len == 0) return "the path is empty";
  if (path[0].x != start.x || path[0].y != start.y)
    return "the path does not begin at the start";
  if (path[len - 1].x != target.x || path[len - 1].y != target.y)
    return "the path does not end at the target";
  for (size_t i = 0; i < len; i++)
    if (sp_grid_is_blocked(g, path[i].x, path[i].y))
      return "the path visits a blocked or outside cell";
  for (size_t i = 1; i < len; i++) {
    double c =
        grid_oracle_move_cost(g, path[i - 1], path[i], allow_corner_cutting);
    if (c < 0) return "the path makes a move that is not allowed";
    *cost += c;
  }
  return NULL;
}
