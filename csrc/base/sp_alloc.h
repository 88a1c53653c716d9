/* sp_alloc.h: the core's one way to allocate: through the caller's SpAllocator hook (lua_Alloc's shape), or malloc/free when it has none. */
#ifndef sp_alloc_h
#define sp_alloc_h

#include <stddef.h>

#include "saspu.h"

/* One zero-size rule for every stage: a block of 0 bytes is a block of 1
 * byte, in every call. So an allocation that succeeds never returns NULL
 * (NULL always means out of memory), and the hook is always told, when a
 * block is resized or freed, the size it gave the block (Lua's accounting
 * needs that). Callers pass the size they asked for; the rounding is here.
 * With a.fn NULL, malloc/realloc/free serve the calls. */

/* n bytes, or NULL when out of memory. */
void *sp__mem_alloc(SpAllocator a, size_t n);

/* Resizes p (a block of `old` bytes, or NULL: a new block) to n bytes.
 * NULL when out of memory: p is then untouched and still owned. */
void *sp__mem_realloc(SpAllocator a, void *p, size_t old, size_t n);

/* Frees p, a block of n bytes; NULL is ignored. */
void sp__mem_free(SpAllocator a, void *p, size_t n);

/* n bytes starting on a cache line (64 bytes), or NULL: arrays whose
 * chunks different threads write, and records they update side by side,
 * must not share a line at their edges (a large malloc starts 16 bytes
 * into a page). Freed only by sp__mem_free_lines, with the same n. */
#define SP_LINE 64
void *sp__mem_alloc_lines(SpAllocator a, size_t n);
void sp__mem_free_lines(SpAllocator a, void *p, size_t n);

#endif
