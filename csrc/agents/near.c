/* near.c: queries on a crowd's spatial index (index.c): sp_crowd_near by rings of buckets, or by one pass over the cell keys while the buckets are stale, and the sensors' any-agent test. */
#include <stdlib.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

/* Keys tested together by the pass (one vector loop), then read one by
 * one only when some of them hit. */
#define SCAN_BLOCK 32

static inline int cheb(uint32_t key, int x, int y) {
  int dx = abs((int)(key & 0xFFFFu) - x), dy = abs((int)(key >> 16) - y);
  return dx > dy ? dx : dy;
}

static int clamp(int64_t v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : (int)v;
}

/* The buckets a query square [x - r, x + r] x [y - r, y + r] covers
 * (empty when it misses the table). */
typedef struct Span {
  int bx0, bx1, by0, by1;
} Span;

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

int sp__index_any(const SpCrowd *c, int px, int py, int r) {
  return sp__index_any_but(c, px, py, r, SP_NO_AGENT);
}

int sp__index_any_but(const SpCrowd *c, int px, int py, int r, size_t skip) {
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

/* ------------------------------------------------------------------ */
/* Candidates: distance << 32 | agent, distinct, the answer's order    */
/* ------------------------------------------------------------------ */

/* Grows *buf (cap entries of `size` bytes) to hold `need`, doubling from
 * 256 entries. 0 on memory, the buffer kept. */
static int room(SpCrowd *c, void **buf, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 1;
  size_t to = *cap < 256 ? 256 : *cap;
  while (to < need) to *= 2;
  void *p = sp__mem_realloc(c->alloc, *buf, *cap * size, to * size);
  if (p == NULL) return 0;
  *buf = p;
  *cap = to;
  return 1;
}

static int found_room(SpCrowd *c, size_t need) {
  CrowdIndex *x = &c->index;
  void *p = x->found;
  int ok = room(c, &p, &x->found_cap, need, sizeof(uint64_t));
  x->found = p;
  return ok;
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

/* Keeps only the max smallest candidates (those the answer can hold,
 * whatever comes later) and returns the largest kept: a later candidate
 * above it cannot enter. max > 0 and *nf >= max. */
static uint64_t keep_best(uint64_t *found, size_t *nf, size_t max) {
  if (*nf > max) select_smallest(found, *nf, max);
  *nf = max;
  uint64_t worst = found[0];
  for (size_t k = 1; k < max; k++)
    if (found[k] > worst) worst = found[k];
  return worst;
}

/* Sorted candidates, cut at max, into the answer buffer. 0 on memory. */
static int answer(SpCrowd *c, size_t nf, size_t max, size_t *count) {
  CrowdIndex *x = &c->index;
  if (max > 0 && nf > max) {
    select_smallest(x->found, nf, max);
    nf = max;
  }
  void *p = x->out;
  int ok = room(c, &p, &x->out_cap, nf, sizeof(uint32_t));
  x->out = p;
  if (!ok) return 0;
  /* nothing found may mean no buffer yet: qsort takes no NULL */
  if (nf > 1) qsort(x->found, nf, sizeof(uint64_t), cmp_u64);
  for (size_t k = 0; k < nf; k++) x->out[k] = (uint32_t)x->found[k];
  *count = nf;
  return 1;
}

/* ------------------------------------------------------------------ */
/* A pass over the keys (stale buckets)                               */
/* ------------------------------------------------------------------ */

/* The agents within r of (px, py), by a pass over every key in agent
 * order: found[0..*nf). Agents come in rising index, so once max are
 * held a later one enters only when strictly nearer than the largest
 * kept: the square shrinks to that. 0 on memory. */
static int scan_keys(SpCrowd *c, int px, int py, int r, size_t max,
                     size_t *nf) {
  CrowdIndex *x = &c->index;
  const uint32_t *cell = x->cell;
  /* in the square when both (kx - x0) and (ky - y0), unsigned, are <= w */
  uint32_t x0 = (uint32_t)(px - r), y0 = (uint32_t)(py - r),
           w = 2u * (uint32_t)r;
  size_t n = c->n, cut = max > 0 ? 2 * max + SCAN_BLOCK : SIZE_MAX;
  for (size_t i0 = 0; i0 < n; i0 += SCAN_BLOCK) {
    size_t len = n - i0 < SCAN_BLOCK ? n - i0 : SCAN_BLOCK;
    unsigned hit = 0;
    if (len == SCAN_BLOCK) {
      const uint32_t *k = cell + i0;
      for (size_t j = 0; j < SCAN_BLOCK; j++)
        hit |= ((k[j] & 0xFFFFu) - x0 <= w) & ((k[j] >> 16) - y0 <= w);
    } else {
      hit = 1; /* the tail: read one by one */
    }
    if (!hit) continue;
    if (!found_room(c, *nf + len)) return 0;
    for (size_t i = i0; i < i0 + len; i++) {
      uint32_t k = cell[i];
      if ((k & 0xFFFFu) - x0 <= w && (k >> 16) - y0 <= w &&
          c->agents[i].phase != SP_PHASE_FREE)
        x->found[(*nf)++] = (uint64_t)cheb(k, px, py) << 32 | i;
    }
    if (*nf < cut) continue;
    int d = (int)(keep_best(x->found, nf, max) >> 32) - 1;
    if (d < 0) break; /* max agents on the cell itself, first by index */
    x0 = (uint32_t)(px - d), y0 = (uint32_t)(py - d), w = 2u * (uint32_t)d;
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Rings of buckets (current buckets)                                 */
/* ------------------------------------------------------------------ */

/* Ring q of buckets around (cbx, cby) inside the span, appended to the
 * candidates within distance *r; with max, the candidates are cut to
 * the max best when they pile up, and *r shrinks to the largest kept.
 * 0 on memory. */
static int scan_ring(SpCrowd *c, const Span *s, int cbx, int cby, int q, int px,
                     int py, int *r, size_t max, size_t *nf) {
  CrowdIndex *x = &c->index;
  size_t cut = max > 0 ? 2 * max + 256 : SIZE_MAX;
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
          if (d <= *r) x->found[(*nf)++] = (uint64_t)d << 32 | i;
        }
        /* rings are not in index order: a tie may still enter */
        if (*nf >= cut) *r = (int)(keep_best(x->found, nf, max) >> 32);
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

/* The candidates by rings outward from (x, y)'s bucket, stopping once
 * max of them are nearer than anything outside. 0 on memory. */
static int scan_rings(SpCrowd *c, int x, int y, int r, size_t max, size_t *nf) {
  CrowdIndex *ix = &c->index;
  Span s = span_of(ix, x, y, r);
  if (s.bx0 > s.bx1 || s.by0 > s.by1) return 1;
  int cbx = clamp(clamp(x, 0, 65535) >> ix->shift, s.bx0, s.bx1);
  int cby = clamp(clamp(y, 0, 65535) >> ix->shift, s.by0, s.by1);
  int qmax = 0;
  int far[4] = {cbx - s.bx0, s.bx1 - cbx, cby - s.by0, s.by1 - cby};
  for (int k = 0; k < 4; k++)
    if (far[k] > qmax) qmax = far[k];
  for (int q = 0; q <= qmax; q++) {
    if (!scan_ring(c, &s, cbx, cby, q, x, y, &r, max, nf)) return 0;
    if (max == 0 || *nf < max || q == qmax) continue;
    /* the max best all nearer than anything outside: the rest cannot enter */
    uint64_t worst = keep_best(ix->found, nf, max);
    if ((int64_t)(worst >> 32) < outside_bound(ix, cbx, cby, q, x, y)) break;
    r = (int)(worst >> 32);
  }
  return 1;
}

SpStatus sp_crowd_near(SpCrowd *c, int x, int y, int r, size_t max,
                       const uint32_t **agents, size_t *count, SpError *err) {
  sp__error_clear(err);
  *agents = NULL;
  *count = 0;
  if (r < 0)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: near: radius %d is negative", r);
  SpStatus st = sp__index_keys(c, err);
  if (st != SP_OK) return st;
  CrowdIndex *ix = &c->index;
  size_t nf = 0;
  int ok;
  if (!sp__index_fresh(c) && ix->scans < SP_INDEX_SCANS_PER_REBUILD) {
    ix->scans++;
    ok = scan_keys(c, x, y, r, max, &nf);
  } else {
    st = sp__index_ready(c, err);
    if (st != SP_OK) return st;
    ok = scan_rings(c, x, y, r, max, &nf);
  }
  if (!ok || !answer(c, nf, max, count)) return sp__error_memory(err);
  *agents = ix->out;
  return SP_OK;
}
