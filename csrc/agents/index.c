/* index.c: a crowd's spatial index: every agent's cell key kept current, and buckets of cells rebuilt from the keys when queries on stale keys have paid for it (queries: near.c). */
#include <stdlib.h>
#include <string.h>

#include "sp_agents.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

/* Buckets are 2^shift cells a side: 8 cells at least; more when the
 * area is so large that the bucket table would outgrow the agents. */
#define INDEX_SHIFT_MIN   3
#define INDEX_BUCKETS_MIN 1024u

static size_t key_bytes(const SpCrowd *c) {
  return (c->capacity + 1) * sizeof(uint32_t);
}

void sp__index_free(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  if (x->cell != NULL) sp__mem_free(c->alloc, x->cell, key_bytes(c));
  if (x->items != NULL) sp__mem_free(c->alloc, x->items, key_bytes(c));
  if (x->out != NULL)
    sp__mem_free(c->alloc, x->out, x->out_cap * sizeof(uint32_t));
  if (x->start != NULL)
    sp__mem_free(c->alloc, x->start, x->start_cap * sizeof(uint32_t));
  if (x->found != NULL)
    sp__mem_free(c->alloc, x->found, x->found_cap * sizeof(uint64_t));
  memset(x, 0, sizeof *x);
}

size_t sp__index_bytes(const SpCrowd *c) {
  const CrowdIndex *x = &c->index;
  return sp__mem_resident(x->cell, x->cell != NULL ? key_bytes(c) : 0) +
         sp__mem_resident(x->items, x->items != NULL ? key_bytes(c) : 0) +
         sp__mem_resident(x->out, x->out_cap * sizeof(uint32_t)) +
         sp__mem_resident(x->found, x->found_cap * sizeof(uint64_t));
}

SpStatus sp__index_keys(SpCrowd *c, SpError *err) {
  CrowdIndex *x = &c->index;
  if (x->cell != NULL) return SP_OK;
  x->cell = sp__mem_alloc(c->alloc, key_bytes(c));
  if (x->cell == NULL) return sp__error_memory(err);
  sp__index_reset(c);
  return SP_OK;
}

void sp__index_reset(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  if (x->cell == NULL) return;
  /* a despawned slot has no key, as sp_index_drop leaves it: a spawn
   * there on the cell of its last agent must still count as a move */
  for (size_t i = 0; i <= c->capacity; i++)
    x->cell[i] = i < c->n && c->agents[i].phase != SP_PHASE_FREE
                     ? (uint32_t)c->agents[i].y << 16 | c->agents[i].x
                     : UINT32_MAX;
  /* a recorder compares every key again */
  for (size_t t = 0; t < (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK; t++)
    c->chunks[t].traced = 1;
  x->stale = 1;
  x->scans = 0;
}

int sp__index_fresh(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  int moved = 0;
  for (size_t t = 0; t < chunks; t++) {
    moved |= c->chunks[t].moved != 0;
    c->chunks[t].moved = 0;
  }
  if (moved) { /* the keys changed again: scans so far do not count */
    x->stale = 1;
    x->scans = 0;
  }
  return !x->stale;
}

static int live(const SpCrowd *c, size_t i) {
  return c->agents[i].phase != SP_PHASE_FREE;
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

/* Room for the bucket table and the items (made at the first rebuild:
 * a crowd only ever scanned never holds them). 0 on memory. */
static int bucket_room(SpCrowd *c) {
  CrowdIndex *x = &c->index;
  if (x->items == NULL) {
    x->items = sp__mem_alloc(c->alloc, key_bytes(c));
    if (x->items == NULL) return 0;
  }
  if (x->nb + 1 > x->start_cap) {
    size_t cap = x->nb + 1;
    uint32_t *p = sp__mem_alloc(c->alloc, cap * sizeof(uint32_t));
    if (p == NULL) return 0;
    if (x->start != NULL)
      sp__mem_free(c->alloc, x->start, x->start_cap * sizeof(uint32_t));
    x->start = p;
    x->start_cap = cap;
  }
  return 1;
}

/* Counting sort of the live agents by bucket. */
static SpStatus rebuild(SpCrowd *c, SpError *err) {
  CrowdIndex *x = &c->index;
  layout(c);
  if (!bucket_room(c)) return sp__error_memory(err);
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

SpStatus sp__index_ready(SpCrowd *c, SpError *err) {
  SpStatus st = sp__index_keys(c, err);
  if (st != SP_OK || sp__index_fresh(c)) return st;
  return rebuild(c, err); /* a failure leaves it stale */
}
