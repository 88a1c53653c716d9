/* release.c: memory a closed world leaves behind goes back to the system, now and after the collection that frees its Lua side. */
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "binding.h"

/* Why this file: the core and Lua's default allocator both use the C
 * library's malloc. A million-agent world frees a few hundred MB of
 * blocks of every size when it closes, and glibc keeps most of that in
 * its heap: blocks below its (self-raising, up to 32 MB) mmap threshold
 * come from the brk heap, and free pages there return to the system only
 * at its top. Measured (bench/bench_levels.lua, docs/benchmarks.md): 77 to
 * 188 MB stayed per level, all of it free in malloc's own accounting, and
 * mapping the core's large arrays alone still left the Lua side's freed
 * objects (agent handles, `data` tables, the save string) in the heap.
 * malloc_trim gives back every free page of every arena, so the binding
 * calls it when a closed world's C memory is freed, and once more from a
 * finalizer that runs at the first collection after the close (by then
 * the sweep has freed what the script dropped with the world), and at
 * the next one: objects with finalizers (the crowds, the world) and what
 * their weak-keyed Lua records hold are freed a cycle after they are
 * finalized.
 * SASPU_LUA_TRIM 0 leaves it out; other C libraries get nothing. */
#if !defined(SASPU_LUA_TRIM)
#define SASPU_LUA_TRIM 1
#endif

#define RETURN_MT "saspu.MemoryReturn"

void return_free_memory(void)
{
#if defined(__GLIBC__) && SASPU_LUA_TRIM
  malloc_trim(0);
#endif
}

/* LuaJIT: its own allocator serves Lua's memory (nothing for a second
 * trim to find), and while its state closes it finalizes what finalizers
 * made after the module is unloaded: no successor there. */
#if defined(__has_include)
#if __has_include("luajit.h")
#define RETURN_ROUNDS 1
#endif
#endif
/* The collections a dropped token trims after: its own, and the next
 * (a successor made by its finalizer; Lua 5.1 to 5.4 finalize nothing
 * made while the state closes). */
#if !defined(RETURN_ROUNDS)
#define RETURN_ROUNDS 2
#endif

static void push_token(lua_State *L, unsigned char rounds)
{
  unsigned char *left = lua_newuserdatauv(L, 1, 0);
  *left = rounds;
  luaL_setmetatable(L, RETURN_MT);
}

/* __gc: trims, then leaves a successor for the next collection. */
static int l_return_gc(lua_State *L)
{
  unsigned char *left = lua_touserdata(L, 1);
  return_free_memory();
  if (left && *left > 1) {
    push_token(L, (unsigned char)(*left - 1));
    lua_pop(L, 1); /* garbage at once: the next cycle finalizes it */
  }
  return 0;
}

/* Pushes a fresh token whose finalizer returns free memory: a world holds
 * one and drops it when it closes (see world.c). */
void push_memory_return(lua_State *L) { push_token(L, RETURN_ROUNDS); }

void open_memory_return(lua_State *L)
{
  if (luaL_newmetatable(L, RETURN_MT)) {
    lua_pushcfunction(L, l_return_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
}
