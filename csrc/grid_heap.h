/* grid_heap.h: the open list of grid searches, a binary min-heap in an array. */
#ifndef grid_heap_h
#define grid_heap_h

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One open-list entry: a cell and its priority f = g + h, stored as the
 * bits of the double. For doubles >= 0 (never NaN or -0: g and h are sums
 * and products of non-negative numbers) the bits order like the values,
 * and an integer comparison is shorter than a floating one on the heap's
 * critical path. `h` only breaks ties (among equal f, the entry closer to
 * the target comes first); it is a float so the entry stays 16 bytes. */
typedef struct SpGridHeapEntry {
  uint64_t key;
  uint32_t cell;
  float h;
} SpGridHeapEntry;

_Static_assert(sizeof(double) == sizeof(uint64_t), "64-bit IEEE doubles");

/* The key of a priority f >= 0. */
static inline uint64_t sp_grid_heap_key(double f) {
  uint64_t k;
  memcpy(&k, &f, sizeof k);
  return k;
}

/* The heap is stored as in the textbook: the root at 0, the children of
 * k at 2k+1 and 2k+2, its parent at (k-1)/2. There is no decrease-key:
 * a cell whose cost improves is pushed again and its stale entries are
 * skipped when popped (or dropped by sp_grid_heap_compact). */
typedef struct SpGridHeap {
  SpGridHeapEntry *e;
  size_t count;
  size_t capacity;
} SpGridHeap;

/* Bitwise operators on purpose: the result feeds index arithmetic and
 * compiles without branches, which a heap cannot predict anyway. */
static inline int sp_grid_heap_less(const SpGridHeapEntry *a,
                                    const SpGridHeapEntry *b) {
  return (a->key < b->key) | ((a->key == b->key) & (a->h < b->h));
}

/* Adds x. Assumes count < capacity. The new entry rises through a hole
 * instead of being swapped at each level. */
static inline void sp_grid_heap_push(SpGridHeap *hp, SpGridHeapEntry x) {
  SpGridHeapEntry *e = hp->e;
  size_t k = hp->count++;
  while (k > 0) {
    size_t parent = (k - 1) / 2;
    if (!sp_grid_heap_less(&x, &e[parent])) break;
    e[k] = e[parent];
    k = parent;
  }
  e[k] = x;
}

/* Moves `x` down from index k, through a hole, to its place. */
static inline void sp_grid_heap_sift_down(SpGridHeap *hp, size_t k,
                                          SpGridHeapEntry x) {
  SpGridHeapEntry *e = hp->e;
  size_t n = hp->count;
  for (;;) {
    size_t child = 2 * k + 1;
    if (child >= n) break;
    if (child + 1 < n && sp_grid_heap_less(&e[child + 1], &e[child]))
      child++;
    if (!sp_grid_heap_less(&e[child], &x)) break;
    e[k] = e[child];
    k = child;
  }
  e[k] = x;
}

/* Removes and returns the smallest entry. Assumes count > 0. The hole
 * left at the root first sinks all the way to a leaf along the smaller
 * children (one comparison per level, no exit test), then the last entry
 * rises into it; it rarely rises far, so this beats the textbook sift-down
 * that compares the last entry at every level. */
static inline SpGridHeapEntry sp_grid_heap_pop(SpGridHeap *hp) {
  SpGridHeapEntry *e = hp->e;
  SpGridHeapEntry top = e[0];
  size_t n = --hp->count;
  if (n == 0) return top;
  SpGridHeapEntry last = e[n];
  size_t k = 0;
  for (size_t child; (child = 2 * k + 1) < n; k = child) {
    if (child + 1 < n)
      child += (size_t)sp_grid_heap_less(&e[child + 1], &e[child]);
    e[k] = e[child];
  }
  while (k > 0) {
    size_t parent = (k - 1) / 2;
    if (!sp_grid_heap_less(&last, &e[parent])) break;
    e[k] = e[parent];
    k = parent;
  }
  e[k] = last;
  return top;
}

/* Restores the heap order of all `count` entries in O(count). */
void sp_grid_heap_heapify(SpGridHeap *hp);

/* Decides whether an entry is still worth keeping. */
typedef int (*SpGridHeapKeep)(void *ctx, const SpGridHeapEntry *e);

/* Keeps only the entries `keep` accepts (calling it once per entry, in
 * array order), then heapifies. Returns how many entries were dropped. */
size_t sp_grid_heap_compact(SpGridHeap *hp, SpGridHeapKeep keep, void *ctx);

#endif
