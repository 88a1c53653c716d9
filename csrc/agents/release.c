/* release.c: a step's reserved place given up: at once, or, in a pass on workers, listed by the worker and counted down when the pass ends. */
#include "sp_agents.h"
#include "sp_release.h"
#include "sp_wheel.h"

/* Many agents of a town leave the same few places in a frame: were the
 * workers to lower a place's count each time, its cache line would pass
 * from core to core at every step end. Nothing in a parallel pass decides
 * by the counts (the binding pass that reads them is serial; an answer
 * the advance pass finds is checked there), so they may lag until the
 * pass ends. */

static void lower(SpCrowd *c, uint32_t place) {
  atomic_fetch_sub_explicit(&c->world->places[place].reserved, 1,
                            memory_order_relaxed);
}

/* Clears agent i's reservation; the place it held, or SP_NO_PLACE. */
static uint32_t unreserve(SpCrowd *c, size_t i) {
  if (!(c->agents[i].flags & F_RESERVED)) return SP_NO_PLACE;
  c->agents[i].flags &= (uint8_t)~F_RESERVED;
  return c->agents[i].target;
}

void sp__agent_release(SpCrowd *c, size_t i) {
  uint32_t p = unreserve(c, i);
  if (p != SP_NO_PLACE) lower(c, p);
}

void sp__agent_release_by(SpCrowd *c, Sink s, size_t i) {
  uint32_t p = unreserve(c, i);
  if (p == SP_NO_PLACE) return;
  if (s.worker < 0) { /* a pass on the calling thread alone */
    lower(c, p);
    return;
  }
  CrowdWorker *w = &c->cw[s.worker];
  if (w->freed_count == w->freed_cap &&
      !sp__list_grow(c, &w->freed, &w->freed_cap, 1)) {
    lower(c, p); /* no memory for the list: the count drops now */
    return;
  }
  w->freed[w->freed_count++] = p;
}

void sp__release_flush(SpCrowd *c) {
  for (int k = 0; k < c->workers; k++) {
    CrowdWorker *w = &c->cw[k];
    for (size_t j = 0; j < w->freed_count; j++) lower(c, w->freed[j]);
    w->freed_count = 0;
  }
}

void sp__release_free(SpCrowd *c) {
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++) {
    CrowdWorker *w = &c->cw[k];
    sp__list_free(c, &w->freed, &w->freed_count, &w->freed_cap);
  }
}

size_t sp__release_bytes(const SpCrowd *c) {
  size_t b = 0;
  for (int k = 0; k < SP_THREAD_POOL_MAX; k++)
    b += c->cw[k].freed_cap * sizeof(uint32_t);
  return b;
}
