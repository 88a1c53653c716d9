/* grid_heap.c: the rarely used, whole-heap operations of the grid open list. */
#include "grid_heap.h"

/* Floyd's bottom-up construction: sift every inner node down, deepest
 * first. Linear in count. */
void sp__grid_heap_heapify(SpGridHeap *hp) {
  if (hp->count < 2) return;
  size_t k = hp->count / 2;
  while (k-- > 0) sp_grid_heap_sift_down(hp, k, hp->e[k]);
}

/* Filters in place (stable in array order), then rebuilds the order. The
 * callback sees every entry exactly once, so it may mark what it keeps. */
size_t sp__grid_heap_compact(SpGridHeap *hp, SpGridHeapKeep keep, void *ctx) {
  size_t kept = 0;
  for (size_t i = 0; i < hp->count; i++)
    if (keep(ctx, &hp->e[i])) hp->e[kept++] = hp->e[i];
  size_t dropped = hp->count - kept;
  hp->count = kept;
  hp->e[kept] = sp_grid_heap_fence();
  sp__grid_heap_heapify(hp);
  return dropped;
}
