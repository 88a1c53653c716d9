/* index.c: a crowd's spatial index: buckets of cells rebuilt from the agents' cell keys when some moved, and the queries on it (sp_crowd_near). */
#include <stdlib.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_error.h"
#include "sp_internal.h"

/* Buckets are 2^shift cells a side: 8 cells at least; more when the
 * area is so large that the bucket table would outgrow the agents. */
#define INDEX_SHIFT_MIN   3
#define INDEX_BUCKETS_MIN 1024u

static size_t cell_bytes(const SpCrowd *c) {
  return (c->capacity + 1) * sizeof(uint32_t);
}

void sp_index_free(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  if (x->cell != NULL) sp_mem_free(c->alloc, x->cell, cell_bytes(c));
  if (x->items != NULL) sp_mem_free(c->alloc, x->items, cell_bytes(c));
  if (x->out != NULL) sp_mem_free(c->alloc, x->out, cell_bytes(c));
  if (x->start != NULL)
    sp_mem_free(c->alloc, x->start, x->start_cap * sizeof(uint32_t));
  if (x->found != NULL)
    sp_mem_free(c->alloc, x->found, x->found_cap * sizeof(uint64_t));
  memset(x, 0, sizeof *x);
}

/* The per-agent arrays, made once: every key written from the records. */
static SpStatus index_create(SpCrowd *c, SpError *err) {
  CrowdIndex *x = &c->index;
  uint32_t *cell = sp_mem_alloc(c->alloc, cell_bytes(c));
  uint32_t *items = sp_mem_alloc(c->alloc, cell_bytes(c));
  uint32_t *out = sp_mem_alloc(c->alloc, cell_bytes(c));
  if (cell == NULL || items == NULL || out == NULL) {
    if (cell != NULL) sp_mem_free(c->alloc, cell, cell_bytes(c));
    if (items != NULL) sp_mem_free(c->alloc, items, cell_bytes(c));
    if (out != NULL) sp_mem_free(c->alloc, out, cell_bytes(c));
    return sp_error_memory(err);
  }
  x->cell = cell;
  x->items = items;
  x->out = out;
  sp_index_reset(c);
  return SP_OK;
}

void sp_index_reset(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  if (x->cell == NULL) return;
  for (size_t i = 0; i <= c->capacity; i++)
    x->cell[i] =
        i < c->n ? (uint32_t)c->agents[i].y << 16 | c->agents[i].x : UINT32_MAX;
  x->stale = 1;
}

static int live(const SpCrowd *c, size_t i) {
  return c->phase[i] != SP_PHASE_FREE;
}

/* The bucket layout for the area the agents can be in: the grid, or
 * without one the cells up to the farthest agent. */
static void layout(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  int w, h;
  if (c->world->grid != NULL) {
    w = sp_grid_width(c->world->grid);
    h = sp_grid_height(c->world->grid);
  } else {
    w = h = 1;
    for (size_t i = 0; i < c->n; i++) {
      if (!live(c, i)) continue;
      int ax = (int)(x->cell[i] & 0xFFFFu), ay = (int)(x->cell[i] >> 16);
      if (ax >= w) w = ax + 1;
      if (ay >= h) h = ay + 1;
    }
  }
  size_t most = c->n * 2 > INDEX_BUCKETS_MIN ? c->n * 2 : INDEX_BUCKETS_MIN;
  int s = INDEX_SHIFT_MIN;
  while ((size_t)((w >> s) + 1) * (size_t)((h >> s) + 1) > most) s++;
  x->shift = s;
  x->bw = (w >> s) + 1;
  x->bh = (h >> s) + 1;
  x->nb = (size_t)x->bw * (size_t)x->bh;
}

static inline size_t bucket_of(const CrowdIndex *x, uint32_t key) {
  size_t bx = (key & 0xFFFFu) >> x->shift, by = (key >> 16) >> x->shift;
  return by * (size_t)x->bw + bx;
}

/* Counting sort of the live agents by bucket. */
static SpStatus rebuild(SpCrowd *c, SpError *err) {
  CrowdIndex *x = &c->index;
  layout(c);
  if (x->nb + 1 > x->start_cap) {
    size_t cap = x->nb + 1;
    uint32_t *p = sp_mem_alloc(c->alloc, cap * sizeof(uint32_t));
    if (p == NULL) return sp_error_memory(err);
    if (x->start != NULL)
      sp_mem_free(c->alloc, x->start, x->start_cap * sizeof(uint32_t));
    x->start = p;
    x->start_cap = cap;
  }
  uint32_t *start = x->start;
  memset(start, 0, (x->nb + 1) * sizeof(uint32_t));
  for (size_t i = 0; i < c->n; i++)
    if (live(c, i)) start[bucket_of(x, x->cell[i]) + 1]++;
  for (size_t b = 0; b < x->nb; b++) start[b + 1] += start[b];
  /* start[b] walks to the end of bucket b, which is where b + 1 begins */
  for (size_t i = 0; i < c->n; i++)
    if (live(c, i)) x->items[start[bucket_of(x, x->cell[i])]++] = (uint32_t)i;
  memmove(start + 1, start, x->nb * sizeof(uint32_t));
  start[0] = 0;
  x->stale = 0;
  return SP_OK;
}

SpStatus sp_index_ready(SpCrowd *c, SpError *err) {
  CrowdIndex *x = &c->index;
  if (x->cell == NULL) {
    SpStatus st = index_create(c, err);
    if (st != SP_OK) return st;
  }
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  for (size_t t = 0; t < chunks; t++) {
    if (c->chunks[t].moved) x->stale = 1;
    c->chunks[t].moved = 0;
  }
  if (!x->stale) return SP_OK;
  SpStatus st = rebuild(c, err);
  if (st != SP_OK) x->stale = 1;
  return st;
}

/* ------------------------------------------------------------------ */
/* Queries                                                            */
/* ------------------------------------------------------------------ */

static inline int cheb(uint32_t key, int x, int y) {
  int dx = abs((int)(key & 0xFFFFu) - x), dy = abs((int)(key >> 16) - y);
  return dx > dy ? dx : dy;
}

/* The buckets a query square [x - r, x + r] x [y - r, y + r] covers
 * (empty when it misses the table). */
typedef struct Span {
  int bx0, bx1, by0, by1;
} Span;

static int clamp(int64_t v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : (int)v;
}

static Span span_of(const CrowdIndex *x, int px, int py, int r) {
  Span s = {0, -1, 0, -1};
  int64_t x0 = (int64_t)px - r, x1 = (int64_t)px + r;
  int64_t y0 = (int64_t)py - r, y1 = (int64_t)py + r;
  if (x1 < 0 || y1 < 0 || x0 > 65535 || y0 > 65535) return s;
  s.bx0 = clamp(x0, 0, 65535) >> x->shift;
  s.bx1 = clamp(x1, 0, 65535) >> x->shift;
  s.by0 = clamp(y0, 0, 65535) >> x->shift;
  s.by1 = clamp(y1, 0, 65535) >> x->shift;
  if (s.bx1 >= x->bw) s.bx1 = x->bw - 1;
  if (s.by1 >= x->bh) s.by1 = x->bh - 1;
  return s;
}

int sp_index_any(const SpCrowd *c, int px, int py, int r) {
  return sp_index_any_but(c, px, py, r, SP_NO_AGENT);
}

int sp_index_any_but(const SpCrowd *c, int px, int py, int r, size_t skip) {
  const CrowdIndex *x = &c->index;
  Span s = span_of(x, px, py, r);
  for (int by = s.by0; by <= s.by1; by++) {
    for (int bx = s.bx0; bx <= s.bx1; bx++) {
      size_t b = (size_t)by * (size_t)x->bw + (size_t)bx;
      for (uint32_t k = x->start[b]; k < x->start[b + 1]; k++)
        if (cheb(x->cell[x->items[k]], px, py) <= r && x->items[k] != skip)
          return 1;
    }
  }
  return 0;
}

static int found_room(SpCrowd *c, size_t need) {
  CrowdIndex *x = &c->index;
  if (need <= x->found_cap) return 1;
  size_t cap = x->found_cap < 256 ? 256 : x->found_cap;
  while (cap < need) cap *= 2;
  void *p = sp_mem_realloc(c->alloc, x->found, x->found_cap * sizeof(uint64_t),
                           cap * sizeof(uint64_t));
  if (p == NULL) return 0;
  x->found = p;
  x->found_cap = cap;
  return 1;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Moves the k smallest of v[0..n) (distinct values) to the front, in
 * any order: a quickselect with a three-way partition. */
static void select_smallest(uint64_t *v, size_t n, size_t k) {
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    uint64_t pivot = v[lo + (hi - lo) / 2], t;
    size_t lt = lo, i = lo, gt = hi;
    while (i < gt) {
      if (v[i] < pivot) {
        t = v[lt], v[lt] = v[i], v[i] = t;
        lt++, i++;
      } else if (v[i] > pivot) {
        gt--;
        t = v[gt], v[gt] = v[i], v[i] = t;
      } else {
        i++;
      }
    }
    if (k <= lt)
      hi = lt;
    else if (k >= gt)
      lo = gt;
    else
      return;
  }
}

/* Ring q of buckets around (cbx, cby) inside the span, appended to the
 * candidates within distance r. 0 on memory. */
static int scan_ring(SpCrowd *c, const Span *s, int cbx, int cby, int q, int px,
                     int py, int r, size_t *nf) {
  CrowdIndex *x = &c->index;
  for (int by = cby - q; by <= cby + q; by++) {
    if (by < s->by0 || by > s->by1) continue;
    int edge = by == cby - q || by == cby + q;
    for (int bx = cbx - q; bx <= cbx + q; bx += edge ? 1 : 2 * q) {
      if (bx >= s->bx0 && bx <= s->bx1) {
        size_t b = (size_t)by * (size_t)x->bw + (size_t)bx;
        uint32_t lo = x->start[b], hi = x->start[b + 1];
        if (!found_room(c, *nf + (hi - lo))) return 0;
        for (uint32_t k = lo; k < hi; k++) {
          uint32_t i = x->items[k];
          int d = cheb(x->cell[i], px, py);
          if (d <= r) x->found[(*nf)++] = (uint64_t)d << 32 | i;
        }
      }
      if (q == 0) break;
    }
  }
  return 1;
}

/* Chebyshev distance from (px, py) to the nearest cell outside the
 * block of rings 0..q: a bound for every agent not scanned yet. */
static int64_t outside_bound(const CrowdIndex *x, int cbx, int cby, int q,
                             int px, int py) {
  int64_t s = (int64_t)1 << x->shift;
  int64_t b[4] = {(int64_t)px - (int64_t)(cbx - q) * s + 1,
                  (int64_t)(cbx + q + 1) * s - px,
                  (int64_t)py - (int64_t)(cby - q) * s + 1,
                  (int64_t)(cby + q + 1) * s - py};
  int64_t m = b[0];
  for (int k = 1; k < 4; k++)
    if (b[k] < m) m = b[k];
  return m;
}

SpStatus sp_crowd_near(SpCrowd *c, int x, int y, int r, size_t max,
                       const uint32_t **agents, size_t *count, SpError *err) {
  sp_error_clear(err);
  *agents = NULL;
  *count = 0;
  if (r < 0)
    return sp_error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                        "crowd: near: radius %d is negative", r);
  SpStatus st = sp_index_ready(c, err);
  if (st != SP_OK) return st;
  CrowdIndex *ix = &c->index;
  *agents = ix->out;
  Span s = span_of(ix, x, y, r);
  if (s.bx0 > s.bx1 || s.by0 > s.by1) return SP_OK;
  int cbx = clamp(clamp(x, 0, 65535) >> ix->shift, s.bx0, s.bx1);
  int cby = clamp(clamp(y, 0, 65535) >> ix->shift, s.by0, s.by1);
  int qmax = 0;
  int far[4] = {cbx - s.bx0, s.bx1 - cbx, cby - s.by0, s.by1 - cby};
  for (int k = 0; k < 4; k++)
    if (far[k] > qmax) qmax = far[k];
  size_t nf = 0;
  for (int q = 0; q <= qmax; q++) {
    if (!scan_ring(c, &s, cbx, cby, q, x, y, r, &nf))
      return sp_error_memory(err);
    if (max == 0 || nf < max || q == qmax) continue;
    /* enough found nearer than anything outside: the rest cannot enter */
    int64_t bound = outside_bound(ix, cbx, cby, q, x, y);
    size_t sure = 0;
    for (size_t k = 0; k < nf; k++)
      sure += (int64_t)(ix->found[k] >> 32) < bound;
    if (sure >= max) break;
  }
  if (max > 0 && nf > max) {
    select_smallest(ix->found, nf, max);
    nf = max;
  }
  /* nothing found may mean no buffer yet: qsort takes no NULL */
  if (nf > 1) qsort(ix->found, nf, sizeof(uint64_t), cmp_u64);
  for (size_t k = 0; k < nf; k++) ix->out[k] = (uint32_t)ix->found[k];
  *count = nf;
  return SP_OK;
}
