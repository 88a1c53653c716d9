/* grid_heap.h: the open list of grid searches, a binary min-heap in an array. */
#ifndef grid_heap_h
#define grid_heap_h

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One open-list entry. Entries order by (key, tie, cell), smallest first:
 *   key   the priority f = g + h, stored as the bits of the double. For
 *         doubles >= 0 (never NaN or -0: g and h are sums and products of
 *         non-negative numbers) the bits order like the values.
 *   tie   among equal keys, the smaller first: the bits of a float >= 0
 *         (sp_grid_heap_tie), so again bits order like values. A* puts h
 *         there, so among equal f the deeper cell (larger g) comes first.
 *   cell  the cell (the search also keeps a small version in its top
 *         bits); as a last resort it makes the order total, so pops do
 *         not depend on how the heap happened to be laid out.
 * 16 bytes, so four entries share a cache line. The fields are laid out
 * so that on a little-endian machine the entry, read as one 128-bit
 * unsigned integer, is key:tie:cell from high to low bits. */
typedef struct SpGridHeapEntry {
  uint32_t cell;
  uint32_t tie;
  uint64_t key;
} SpGridHeapEntry;

_Static_assert(sizeof(double) == sizeof(uint64_t), "64-bit IEEE doubles");
_Static_assert(sizeof(float) == sizeof(uint32_t), "32-bit IEEE floats");

/* The key of a priority f >= 0. */
static inline uint64_t sp_grid_heap_key(double f) {
  uint64_t k;
  memcpy(&k, &f, sizeof k);
  return k;
}

/* The tie-breaker of a value t >= 0 (rounded to a float). */
static inline uint32_t sp_grid_heap_tie(double t) {
  float f = (float)t;
  uint32_t k;
  memcpy(&k, &f, sizeof k);
  return k;
}

/* The heap is stored as in the textbook: the root at 0, the children of
 * k at 2k+1 and 2k+2, its parent at (k-1)/2. There is no decrease-key:
 * a cell whose cost improves is pushed again and its stale entries are
 * skipped when popped (or dropped by sp__grid_heap_compact).
 *
 * The array has one slot more than `capacity`: e[count] always holds a
 * fence, an entry larger than any real one (all bits set; a real key is
 * a non-negative double, whose sign bit is clear). A hole sinking to the
 * last inner node can then compare both children without first checking
 * that the right one exists. */
typedef struct SpGridHeap {
  SpGridHeapEntry *e; /* capacity + 1 entries */
  size_t count;
  size_t capacity;
} SpGridHeap;

static inline SpGridHeapEntry sp_grid_heap_fence(void) {
  SpGridHeapEntry f = {UINT32_MAX, UINT32_MAX, UINT64_MAX};
  return f;
}

/* An empty heap on `store`, which has room for capacity + 1 entries. */
static inline void sp_grid_heap_init(SpGridHeap *hp, SpGridHeapEntry *store,
                                     size_t capacity) {
  hp->e = store;
  hp->count = 0;
  hp->capacity = capacity;
  store[0] = sp_grid_heap_fence();
}

/* Empties the heap. */
static inline void sp_grid_heap_clear(SpGridHeap *hp) {
  hp->count = 0;
  hp->e[0] = sp_grid_heap_fence();
}

/* a < b in the entry order. On little-endian machines with 128-bit
 * integers the entry is loaded as one number and compared in a couple of
 * instructions (this sits on the heap's critical path); elsewhere the
 * same order is spelled out. Branch-free either way, because a heap
 * cannot predict its comparisons. */
#if defined(__SIZEOF_INT128__) && defined(__BYTE_ORDER__) &&                   \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
__extension__ typedef unsigned __int128 SpGridHeapWide;
_Static_assert(sizeof(SpGridHeapEntry) == sizeof(SpGridHeapWide),
               "entries are 16 bytes without padding");

static inline int sp_grid_heap_less(const SpGridHeapEntry *a,
                                    const SpGridHeapEntry *b) {
  SpGridHeapWide wa, wb;
  memcpy(&wa, a, sizeof wa);
  memcpy(&wb, b, sizeof wb);
  return wa < wb;
}
#else
static inline int sp_grid_heap_less(const SpGridHeapEntry *a,
                                    const SpGridHeapEntry *b) {
  uint64_t la = (uint64_t)a->tie << 32 | a->cell;
  uint64_t lb = (uint64_t)b->tie << 32 | b->cell;
  return (a->key < b->key) | ((a->key == b->key) & (la < lb));
}
#endif

/* Moves x up from the hole at index k to its place: parents larger than
 * x move down into the hole instead of being swapped at each level. */
static inline void sp_grid_heap_rise(SpGridHeapEntry *e, size_t k,
                                     SpGridHeapEntry x) {
  while (k > 0) {
    size_t parent = (k - 1) / 2;
    if (!sp_grid_heap_less(&x, &e[parent])) break;
    e[k] = e[parent];
    k = parent;
  }
  e[k] = x;
}

/* Adds x. Assumes count < capacity. */
static inline void sp_grid_heap_push(SpGridHeap *hp, SpGridHeapEntry x) {
  size_t k = hp->count++;
  hp->e[hp->count] = sp_grid_heap_fence();
  sp_grid_heap_rise(hp->e, k, x);
}

/* Moves `x` down from index k, through a hole, to its place. */
static inline void sp_grid_heap_sift_down(SpGridHeap *hp, size_t k,
                                          SpGridHeapEntry x) {
  SpGridHeapEntry *e = hp->e;
  size_t n = hp->count;
  for (;;) {
    size_t child = 2 * k + 1;
    if (child >= n) break;
    if (child + 1 < n && sp_grid_heap_less(&e[child + 1], &e[child])) child++;
    if (!sp_grid_heap_less(&e[child], &x)) break;
    e[k] = e[child];
    k = child;
  }
  e[k] = x;
}

/* Puts x in the hole at the root of the first n entries, with the fence
 * at e[n]: the hole first sinks all the way to a leaf along the smaller
 * children (one comparison per level, no exit test, and thanks to the
 * fence no test for a missing right child), then x rises into it. x is
 * usually large (the last entry of the array, or an entry that lost
 * against the root), so it rarely rises far, and this beats the textbook
 * sift-down that compares x at every level. */
static inline void sp_grid_heap_fill_root(SpGridHeapEntry *e, size_t n,
                                          SpGridHeapEntry x) {
  size_t k = 0;
  for (size_t child; (child = 2 * k + 1) < n; k = child) {
    child += (size_t)sp_grid_heap_less(&e[child + 1], &e[child]);
    e[k] = e[child];
  }
  sp_grid_heap_rise(e, k, x);
}

/* Removes and returns the smallest entry. Assumes count > 0. */
static inline SpGridHeapEntry sp_grid_heap_pop(SpGridHeap *hp) {
  SpGridHeapEntry *e = hp->e;
  SpGridHeapEntry top = e[0];
  size_t n = --hp->count;
  SpGridHeapEntry last = e[n];
  e[n] = sp_grid_heap_fence();
  if (n > 0) sp_grid_heap_fill_root(e, n, last);
  return top;
}

/* Removes and returns the smallest entry and adds x, in one pass: a pop
 * and a push for the price of a pop. Assumes count > 0. */
static inline SpGridHeapEntry sp_grid_heap_replace_top(SpGridHeap *hp,
                                                       SpGridHeapEntry x) {
  SpGridHeapEntry top = hp->e[0];
  sp_grid_heap_fill_root(hp->e, hp->count, x);
  return top;
}

/* Restores the heap order of all `count` entries in O(count). */
void sp__grid_heap_heapify(SpGridHeap *hp);

/* Decides whether an entry is still worth keeping. */
typedef int (*SpGridHeapKeep)(void *ctx, const SpGridHeapEntry *e);

/* Keeps only the entries `keep` accepts (calling it once per entry, in
 * array order), then heapifies. Returns how many entries were dropped. */
size_t sp__grid_heap_compact(SpGridHeap *hp, SpGridHeapKeep keep, void *ctx);

#endif
