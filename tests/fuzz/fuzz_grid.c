/* fuzz_grid.c: libFuzzer harness: an ASCII picture and searches, checked against Bellman-Ford and the path rules. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grid_oracle.h"
#include "saspu_grid.h"
#include "test_alloc.h"

enum { MAX_TEXT = 400, MAX_CELLS = 1024 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: 4 bytes of query (x0, y0, x1, y1), 1 of flags, then the picture
 * as given (refused pictures must leak nothing). Every path found must be
 * valid and cost what Bellman-Ford says; "unreachable" must agree too. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static double dist[MAX_CELLS];
  static SpGridPoint path[MAX_CELLS];
  SpGrid *g = NULL;
  SpGridWorkspace *ws = NULL;
  SpGridError err;
  SpGridQuery q;
  SpGridResult res;
  SpGridPoint from, to;
  TestAlloc ta;
  SpStatus st;
  int w, h, k;
  if (size < 5 || size - 5 > MAX_TEXT) return 0;
  test_alloc_init(&ta, 0);
  if (sp_grid_new_ascii((const char *)data + 5, size - 5, test_alloc_hook(&ta),
                        &g, &err) != SP_OK) {
    if (g != NULL || ta.live != 0) abort();
    return 0;
  }
  w = sp_grid_width(g);
  h = sp_grid_height(g);
  if ((long)w * h > MAX_CELLS ||
      sp_grid_workspace_new(g, NULL, test_alloc_hook(&ta), &ws, &err) !=
          SP_OK) {
    sp_grid_free(g);
    return 0;
  }
  for (k = 0; k < 4; k++) { /* four queries from the same bytes, rotated */
    from.x = data[k % 4] % w;
    from.y = data[(k + 1) % 4] % h;
    to.x = data[(k + 2) % 4] % w;
    to.y = data[(k + 3) % 4] % h;
    q.algorithm = (data[4] >> k) & 1 ? SP_GRID_DIJKSTRA : SP_GRID_ASTAR;
    q.allow_corner_cutting = (data[4] >> (k + 4)) & 1;
    st = sp_grid_find_path(g, ws, from, to, &q, &res, &err);
    grid_oracle_distances(g, from, q.allow_corner_cutting, dist);
    if (st == SP_OK) {
      double cost = 0, want = dist[to.y * w + to.x];
      size_t len = sp_grid_workspace_path(ws, path, MAX_CELLS);
      if (len > MAX_CELLS ||
          grid_oracle_check_path(g, path, len, from, to, q.allow_corner_cutting,
                                 &cost))
        abort();
      if (fabs(cost - want) > 1e-6 * (1 + want) ||
          fabs((double)res.cost - want) > 1e-3 * (1 + want))
        abort();
    } else if (err.code == SP_GRID_E_UNREACHABLE) {
      if (!isinf(dist[to.y * w + to.x])) abort();
    } else if (err.code != SP_GRID_E_BLOCKED) {
      abort();
    }
  }
  sp_grid_workspace_free(ws);
  sp_grid_free(g);
  if (ta.live != 0) abort();
  return 0;
}
