/* detail.c: the detail of each agent's last no_plan, kept apart from its record. */
#include "sp_agents.h"
#include "sp_detail.h"
#include "sp_internal.h"

static size_t detail_bytes(const SpCrowd *c) {
  return (c->capacity + 1) * sizeof(FailDetail);
}

/* The array, made and filled with "none" when missing. The caller holds
 * the world's allocator lock when a worker could run beside it. */
static FailDetail *detail_make(SpCrowd *c) {
  FailDetail *d = atomic_load_explicit(&c->detail, memory_order_acquire);
  if (d != NULL) return d;
  d = sp__mem_alloc(c->alloc, detail_bytes(c));
  if (d == NULL) return NULL;
  for (size_t k = 0; k <= c->capacity; k++) d[k] = FAIL_DETAIL_NONE;
  atomic_store_explicit(&c->detail, d, memory_order_release);
  return d;
}

FailDetail sp__detail_get(const SpCrowd *c, size_t i) {
  const FailDetail *d =
      atomic_load_explicit(&((SpCrowd *)c)->detail, memory_order_acquire);
  return d != NULL && i <= c->capacity ? d[i] : FAIL_DETAIL_NONE;
}

/* Workers write only their own agents' records; only the array's making
 * is shared, so only it takes the lock. */
int sp__detail_put(SpCrowd *c, int wk, size_t i, FailDetail v) {
  FailDetail *d = atomic_load_explicit(&c->detail, memory_order_acquire);
  if (d == NULL) {
    if (wk >= 0) pthread_mutex_lock(&c->world->alloc_lock);
    d = detail_make(c);
    if (wk >= 0) pthread_mutex_unlock(&c->world->alloc_lock);
    if (d == NULL) return 0;
  }
  d[i] = v;
  return 1;
}

int sp__detail_ready(SpCrowd *c) { return detail_make(c) != NULL; }

void sp__detail_clear(SpCrowd *c, size_t i) {
  FailDetail *d = atomic_load_explicit(&c->detail, memory_order_relaxed);
  if (d != NULL) d[i] = FAIL_DETAIL_NONE;
}

void sp__detail_free(SpCrowd *c) {
  FailDetail *d = atomic_load_explicit(&c->detail, memory_order_relaxed);
  if (d != NULL) sp__mem_free(c->alloc, d, detail_bytes(c));
  atomic_store_explicit(&c->detail, NULL, memory_order_relaxed);
}

size_t sp__detail_bytes(const SpCrowd *c) {
  const FailDetail *d =
      atomic_load_explicit(&((SpCrowd *)c)->detail, memory_order_relaxed);
  return d != NULL ? sp__mem_resident(d, detail_bytes(c)) : 0;
}
