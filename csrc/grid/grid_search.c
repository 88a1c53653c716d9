/* grid_search.c: Dijkstra and A* on saspu grids, their workspaces, paths. */
#include <stdint.h>
#include <string.h>

#include "grid_heap.h"
#include "sp_grid.h"

#if defined(__GNUC__)
#define GRID_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define GRID_ALWAYS_INLINE inline
#endif

/* ================================================================== */
/* Exact path costs                                                   */
/* ================================================================== */

/* A move from a to b costs (cost(a) + cost(b)) / 2 straight, that times
 * sqrt 2 diagonally. A search keeps each cost as a pair (s, d): twice the
 * cost is s + d sqrt 2, where s sums cost(a) + cost(b) over the straight
 * moves and d over the diagonal ones. The sums are exact whenever they
 * fit in a double's 53-bit mantissa: always with integer costs. Since
 * sqrt 2 is irrational, two paths then cost the same exactly when their
 * pairs are equal, and grid_len, the one place where a pair becomes a
 * double, gives them bit-identical keys: the open list sees true ties,
 * which A* breaks toward the deeper cell. Summing one rounded double per
 * move instead breaks ties at random in the last bits; on an open map of
 * uniform cost A* then expands up to twice the cells of the path, where
 * exact ties make it expand the path alone. The pair also rounds once at
 * the end instead of once per move, so the reported cost is within an
 * ulp or two of the exact sum. */
typedef struct GridCost {
  double s, d;
} GridCost;

static GRID_ALWAYS_INLINE double grid_len(double s, double d) {
  return s + d * SP_GRID_SQRT2;
}

/* ================================================================== */
/* Workspace                                                          */
/* ================================================================== */

/* Per-cell tag, from the low bits up: the 3-bit direction of the move
 * that reached the cell, a closed flag, a 3-bit version, then the
 * generation of the search that last touched the cell. A tag from another
 * generation means "unseen", so a search never clears the arrays.
 *
 * The version counts the pushes of the cell in this search (mod 8) and
 * rides along in its open-list entries (GRID_CELL_BITS below), so heap
 * compaction tells the live entry from stale ones by comparing two small
 * integers. A cell is pushed at most 8 times per search, once from each
 * neighbour, since each neighbour is expanded at most once: the 8
 * versions never wrap onto a stale entry still in the heap. */
enum {
  TAG_DIR = 0x07,
  TAG_CLOSED = 0x08,
  TAG_VERSION = 0x70,
  TAG_VERSION_SHIFT = 4,
  TAG_GEN_SHIFT = 7
};

/* Clears the per-cell bits, keeping generation and closed flag. */
#define TAG_STATE(t) ((t) & ~(uint32_t)(TAG_DIR | TAG_VERSION))

/* Generations run 1..GRID_GEN_LAST, then the tags are cleared once. */
#define GRID_GEN_LAST 0xFFFFu

/* An entry's cell field holds the padded index in its low GRID_CELL_BITS
 * (every padded index is below 2^SP_GRID_INDEX_BITS) and the version of
 * the push above them. */
enum { GRID_CELL_BITS = SP_GRID_INDEX_BITS };
#define GRID_CELL_MASK (((uint32_t)1 << GRID_CELL_BITS) - 1)

struct SpGridWorkspace {
  SpAllocator alloc;
  size_t size;
  int width, height, stride;
  size_t padded;
  uint32_t gen;
  SpGridDiv row;  /* division by the stride */
  int32_t off[8]; /* index offset of each direction */
  uint32_t *tag;
  GridCost *best; /* best cost found so far, valid when the tag is current */
  SpGridHeap heap;
  size_t open_capacity; /* heap capacity + the entry held aside */
  /* the last search, for sp_grid_workspace_path */
  int has_path;
  uint32_t start, target;
  size_t length;
};

SpStatus sp_grid_workspace_new(const SpGrid *g,
                               const SpGridWorkspaceOptions *opts,
                               SpAllocator alloc, SpGridWorkspace **out,
                               SpGridError *err) {
  if (out == NULL) return sp__grid_fail_argument(err, "out is NULL", -1);
  *out = NULL;
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  /* width*height + 8 entries always suffice: after compaction the heap
   * holds at most one entry per open cell, and the start is closed. */
  size_t full = (size_t)g->width * (size_t)g->height + 8;
  size_t cap = full;
  if (opts != NULL && opts->heap_capacity > 0 && opts->heap_capacity < full)
    cap = opts->heap_capacity;
  size_t head = sp_grid_align16(sizeof(SpGridWorkspace));
  size_t best = sp_grid_align16(g->padded * sizeof(GridCost));
  size_t tags = sp_grid_align16(g->padded * sizeof(uint32_t));
  /* the search holds one entry of the open list outside the heap, whose
   * array has cap - 1 entries and the fence */
  size_t total = head + best + tags + cap * sizeof(SpGridHeapEntry);
  SpGridWorkspace *ws = sp__mem_alloc(alloc, total);
  if (ws == NULL) return sp__grid_fail_memory(err);
  memset(ws, 0, head);
  ws->alloc = alloc;
  ws->size = total;
  ws->width = g->width;
  ws->height = g->height;
  ws->stride = g->stride;
  ws->padded = g->padded;
  ws->gen = 0;
  ws->row = sp_grid_div_make((uint32_t)g->stride);
  for (int d = 0; d < 8; d++)
    ws->off[d] = sp__grid_dy[d] * g->stride + sp__grid_dx[d];
  char *p = (char *)ws + head;
  ws->best = (GridCost *)(void *)p;
  ws->tag = (uint32_t *)(void *)(p + best);
  memset(ws->tag, 0, g->padded * sizeof(uint32_t)); /* generation 0: unseen */
  sp_grid_heap_init(&ws->heap, (SpGridHeapEntry *)(void *)(p + best + tags),
                    cap - 1);
  ws->open_capacity = cap;
  *out = ws;
  return sp__grid_err_ok(err);
}

void sp_grid_workspace_free(SpGridWorkspace *ws) {
  if (ws != NULL) sp__mem_free(ws->alloc, ws, ws->size);
}

size_t sp_grid_workspace_size_bytes(const SpGridWorkspace *ws) {
  return ws != NULL ? ws->size : 0;
}

/* ================================================================== */
/* Search                                                             */
/* ================================================================== */

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

/* An open-neighbour mask without the diagonals that would cut a corner:
 * diagonal SE (bit 4) needs E (bit 0) and S (bit 2) open, SW (5) needs W
 * (1) and S, NE (6) needs E and N (3), NW (7) needs W and N. As a table
 * of all 256 masks, one load per expansion. */
#define GRID_NC(m)                                                             \
  (uint8_t)((m) & (0x0F | (((m)&3) * (((m) >> 2) & 1)) << 4 |                  \
                   (((m)&3) * (((m) >> 3) & 1)) << 6))
#define GRID_NC4(m) GRID_NC(m), GRID_NC(m + 1), GRID_NC(m + 2), GRID_NC(m + 3)
#define GRID_NC16(m)                                                           \
  GRID_NC4(m), GRID_NC4(m + 4), GRID_NC4(m + 8), GRID_NC4(m + 12)
#define GRID_NC64(m)                                                           \
  GRID_NC16(m), GRID_NC16(m + 16), GRID_NC16(m + 32), GRID_NC16(m + 48)
static const uint8_t NO_CORNER_CUTS[256] = {GRID_NC64(0), GRID_NC64(64),
                                            GRID_NC64(128), GRID_NC64(192)};

/* The heuristic as a pair, in the doubled units of GridCost: the octile
 * distance (hi - lo straight moves and lo diagonal ones) times twice the
 * cheapest cell cost, m2. Every move costs at least the cheapest cost per
 * unit of length and the octile distance is the shortest 8-neighbour
 * length, so h never overestimates (admissible), and it changes by at
 * most one move's cost between neighbours (consistent): A* closes each
 * cell at its best cost and never reopens it. */
static GRID_ALWAYS_INLINE GridCost grid_h(double m2, int dx, int dy) {
  if (dx < 0) dx = -dx;
  if (dy < 0) dy = -dy;
  int lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
  GridCost h = {m2 * (double)(hi - lo), m2 * (double)lo};
  return h;
}

/* The open-list entry of a cell (its cell field, version included) with
 * best cost c and heuristic h: f as the key; among equal f the smaller h
 * (the larger g, the deeper cell) comes first. */
static GRID_ALWAYS_INLINE SpGridHeapEntry grid_entry(uint32_t cell_field,
                                                     GridCost c, GridCost h) {
  SpGridHeapEntry e;
  e.key = sp_grid_heap_key(grid_len(c.s + h.s, c.d + h.d));
  e.cell = cell_field;
  e.tie = sp_grid_heap_tie(grid_len(h.s, h.d));
  return e;
}

/* Where the target is and how the heuristic is scaled; all zero for
 * Dijkstra, whose heuristic is 0. */
typedef struct GridGoal {
  double m2;
  int tx, ty;
} GridGoal;

/* What heap compaction needs: the tags, and the state of an open cell. */
typedef struct GridKeep {
  const uint32_t *tag;
  uint32_t open_tag;
} GridKeep;

/* An entry is live when its cell is open in this search and the entry
 * carries the cell's latest version. That makes one live entry per open
 * cell, and none for the cells of the two entries outside the heap (the
 * held one and the one being pushed), which are their cells' latest. */
static int grid_keep(void *ctx, const SpGridHeapEntry *e) {
  const GridKeep *k = ctx;
  uint32_t t = k->tag[e->cell & GRID_CELL_MASK];
  return TAG_STATE(t) == k->open_tag &&
         (t & TAG_VERSION) >> TAG_VERSION_SHIFT == e->cell >> GRID_CELL_BITS;
}

/* Drops stale entries; returns 0 when the heap is still full. */
static int grid_compact(SpGridWorkspace *ws, uint32_t open_tag) {
  GridKeep k = {ws->tag, open_tag};
  sp__grid_heap_compact(&ws->heap, grid_keep, &k);
  return ws->heap.count < ws->heap.capacity;
}

enum { SEARCH_FOUND = 1, SEARCH_EXHAUSTED = 0, SEARCH_HEAP_FULL = -1 };

/* Dijkstra (astar 0) or A* (astar 1) from s to t, padded indices, both
 * open cells. Written once and inlined with constant flags, so each of
 * the four variants is compiled without the tests it does not need.
 * Assumes ws->gen was just advanced. Lazy re-insertion: a cell whose
 * best cost improves is pushed again; a popped entry of a closed cell is
 * stale and skipped. With a consistent heuristic the first pop of a cell
 * carries its optimal cost, so closed cells are never reopened.
 *
 * Per neighbour, the cheap tests come first: blocked neighbours and
 * forbidden corner cuts are gone from the mask before the loop, a closed
 * neighbour is skipped on its tag alone, before any cost is computed, and
 * only a strictly improved neighbour is pushed. */
static GRID_ALWAYS_INLINE int grid_search(const SpGrid *g, SpGridWorkspace *ws,
                                          uint32_t s, uint32_t t, int astar,
                                          int cut, SpGridResult *r) {
  const float *cell = g->cell;
  const uint8_t *nbr = g->nbr;
  uint32_t *tag = ws->tag;
  GridCost *best = ws->best;
  SpGridHeap *hp = &ws->heap;
  int32_t off[8];
  memcpy(off, ws->off, sizeof off);
  const uint32_t stride = (uint32_t)ws->stride;
  const uint32_t open_tag = ws->gen << TAG_GEN_SHIFT;
  const uint32_t closed_tag = open_tag | TAG_CLOSED;
  const GridCost zero = {0.0, 0.0};
  GridGoal goal = {0.0, 0, 0};
  GridCost hs = zero; /* h of the start */
  if (astar) {
    goal.m2 = 2.0 * sp_grid_min_cost(g);
    goal.ty = (int)sp_grid_div(ws->row, t);
    goal.tx = (int)(t - (uint32_t)goal.ty * stride);
    int sy = (int)sp_grid_div(ws->row, s);
    hs = grid_h(goal.m2, (int)(s - (uint32_t)sy * stride) - goal.tx,
                sy - goal.ty);
  }
  size_t expanded = 0, pushed = 1, peak = 1, compactions = 0;
  int outcome = SEARCH_EXHAUSTED;

  sp_grid_heap_clear(hp);
  best[s] = zero;
  tag[s] = open_tag;
  /* The open list is the heap plus one entry held aside: the best child
   * of the last expansion. It is often the next cell to expand (the
   * search keeps going the same way), and then it never enters the heap;
   * otherwise it replaces the root in one pass instead of a push and a
   * pop. Either way the smallest entry is expanded next, as with the heap
   * alone. */
  SpGridHeapEntry held = grid_entry(s, zero, hs);
  int holding = 1;

  for (;;) {
    SpGridHeapEntry top;
    if (holding) {
      holding = 0;
      /* on an empty heap e[0] is the fence, which never wins */
      if (sp_grid_heap_less(&hp->e[0], &held))
        top = sp_grid_heap_replace_top(hp, held);
      else
        top = held;
    } else if (hp->count > 0) {
      top = sp_grid_heap_pop(hp);
    } else {
      break;
    }
    const uint32_t c = top.cell & GRID_CELL_MASK;
    const uint32_t tc = tag[c];
    if (TAG_STATE(tc) == closed_tag) continue; /* stale entry */
    tag[c] = tc | TAG_CLOSED;
    expanded++;
    if (c == t) {
      outcome = SEARCH_FOUND;
      break;
    }
    const GridCost gc = best[c];
    const double vc = (double)cell[c];
    int dx0 = 0, dy0 = 0; /* c relative to the target */
    if (astar) {
      uint32_t cy = sp_grid_div(ws->row, c);
      dx0 = (int)(c - cy * stride) - goal.tx;
      dy0 = (int)cy - goal.ty;
    }
    unsigned open = nbr[c];
    if (!cut) open = NO_CORNER_CUTS[open];
    while (open != 0) {
      const int d = grid_low_bit(open);
      open &= open - 1;
      const uint32_t n = c + (uint32_t)off[d];
      const uint32_t tn = tag[n];
      if (TAG_STATE(tn) == closed_tag) continue;
      /* twice the move's cost goes to s (straight) or d (diagonal) */
      const double step = vc + (double)cell[n];
      GridCost nc = gc;
      if (d < 4)
        nc.s += step;
      else
        nc.d += step;
      uint32_t version = 0;
      if (TAG_STATE(tn) == open_tag) {
        if (!(grid_len(nc.s, nc.d) < grid_len(best[n].s, best[n].d))) continue;
        version = (tn + (1u << TAG_VERSION_SHIFT)) & TAG_VERSION;
      }
      best[n] = nc;
      tag[n] = open_tag | version | (uint32_t)d;
      GridCost h = zero;
      if (astar)
        h = grid_h(goal.m2, dx0 + sp__grid_dx[d], dy0 + sp__grid_dy[d]);
      SpGridHeapEntry e = grid_entry(
          n | version << (GRID_CELL_BITS - TAG_VERSION_SHIFT), nc, h);
      pushed++;
      if (!holding) {
        held = e;
        holding = 1;
        continue;
      }
      /* the better of the two stays aside, the other enters the heap */
      if (sp_grid_heap_less(&e, &held)) {
        SpGridHeapEntry swap = held;
        held = e;
        e = swap;
      }
      if (hp->count == hp->capacity) {
        compactions++;
        if (!grid_compact(ws, open_tag)) {
          outcome = SEARCH_HEAP_FULL;
          goto done;
        }
      }
      sp_grid_heap_push(hp, e);
      if (hp->count + 1 > peak) peak = hp->count + 1;
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

/* Validates, advances the generation (clearing the tags only when the
 * counter wraps, once every GRID_GEN_LAST searches), runs the search and
 * records the path for sp_grid_workspace_path. */
SpStatus sp_grid_find_path(const SpGrid *g, SpGridWorkspace *ws,
                           SpGridPoint start, SpGridPoint target,
                           const SpGridQuery *q, SpGridResult *res,
                           SpGridError *err) {
  SpGridResult local;
  SpGridResult *r = res != NULL ? res : &local;
  memset(r, 0, sizeof *r);
  if (g == NULL) return sp__grid_fail_argument(err, "grid is NULL", -1);
  if (ws == NULL) return sp__grid_fail_argument(err, "workspace is NULL", -1);
  ws->has_path = 0;
  if (ws->width != g->width || ws->height != g->height) {
    if (err != NULL) {
      sp__grid_err_reset(err);
      err->span_w = ws->width;
      err->span_h = ws->height;
      err->width = g->width;
      err->height = g->height;
    }
    return sp__grid_err_end(err, SP_ERR_INVALID, SP_GRID_E_MISMATCH);
  }
  SpGridAlgorithm alg = q != NULL ? q->algorithm : SP_GRID_ASTAR;
  int cut = q != NULL && q->allow_corner_cutting;
  if (alg != SP_GRID_ASTAR && alg != SP_GRID_DIJKSTRA)
    return sp__grid_fail_argument(err, "unknown algorithm", (int)alg);
  if (!sp_grid_contains(g, start.x, start.y))
    return sp__grid_fail_range(err, "start", g, start.x, start.y, -1, -1);
  if (!sp_grid_contains(g, target.x, target.y))
    return sp__grid_fail_range(err, "target", g, target.x, target.y, -1, -1);
  if (sp_grid_is_blocked(g, start.x, start.y))
    return sp__grid_fail_blocked(err, "start", start.x, start.y);
  if (sp_grid_is_blocked(g, target.x, target.y))
    return sp__grid_fail_blocked(err, "target", target.x, target.y);

  if (++ws->gen > GRID_GEN_LAST) {
    memset(ws->tag, 0, ws->padded * sizeof(uint32_t));
    ws->gen = 1;
  }
  uint32_t s = (uint32_t)sp_grid_index(g->stride, start.x, start.y);
  uint32_t t = (uint32_t)sp_grid_index(g->stride, target.x, target.y);
  int outcome;
  if (alg == SP_GRID_ASTAR)
    outcome = cut ? grid_search_astar_cut(g, ws, s, t, r)
                  : grid_search_astar(g, ws, s, t, r);
  else
    outcome = cut ? grid_search_dijkstra_cut(g, ws, s, t, r)
                  : grid_search_dijkstra(g, ws, s, t, r);

  if (outcome == SEARCH_HEAP_FULL) {
    if (err != NULL) {
      sp__grid_err_reset(err);
      err->found = (int)ws->open_capacity;
    }
    return sp__grid_err_end(err, SP_ERR_MEMORY, SP_GRID_E_HEAP_FULL);
  }
  if (outcome == SEARCH_EXHAUSTED) {
    if (err != NULL) {
      sp__grid_err_reset(err);
      err->x = start.x;
      err->y = start.y;
      err->to_x = target.x;
      err->to_y = target.y;
    }
    return sp__grid_err_end(err, SP_NO_PLAN, SP_GRID_E_UNREACHABLE);
  }
  size_t len = 1;
  for (uint32_t c = t; c != s; len++)
    c -= (uint32_t)ws->off[ws->tag[c] & TAG_DIR];
  r->cost = 0.5 * grid_len(ws->best[t].s, ws->best[t].d);
  r->length = len;
  ws->has_path = 1;
  ws->start = s;
  ws->target = t;
  ws->length = len;
  return sp__grid_err_ok(err);
}

/* Walks the parent directions back from the target, writing from the
 * end of the path so the copy comes out start first. */
size_t sp_grid_workspace_path(const SpGridWorkspace *ws, SpGridPoint *buf,
                              size_t cap) {
  if (ws == NULL || !ws->has_path) return 0;
  if (buf == NULL) cap = 0;
  uint32_t c = ws->target;
  for (size_t k = ws->length; k-- > 0;) {
    if (k < cap) {
      uint32_t y = sp_grid_div(ws->row, c);
      buf[k].x = (int)(c - y * (uint32_t)ws->stride) - 1;
      buf[k].y = (int)y - 1;
    }
    if (c != ws->start) c -= (uint32_t)ws->off[ws->tag[c] & TAG_DIR];
  }
  return ws->length;
}
