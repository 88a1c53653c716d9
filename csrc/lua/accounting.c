/* accounting.c: C memory of domains, populations and grids made visible to the collector: a full collection once enough was taken. */
#include "binding.h"

/* The core allocates through lua_getallocf, which the collector does not
 * count: a script that drops 1M-NPC populations without closing them
 * would pile them up while the Lua heap looks small, in generational mode
 * (lua5.4's default) even with collector debt added, since old objects
 * wait for a major collection that Lua-side growth alone triggers.
 * So the binding applies the collector's own pause rule to C memory:
 * once the C bytes taken since the last full collection reach what was
 * live after it (at least SASPU_LUA_GC_C_BYTES), it runs a full
 * collection, whose finalizers close the dropped objects. C memory thus
 * stays within about twice what is reachable, at the cost of one full
 * collection per doubling. */
typedef struct Accounting {
  size_t live;  /* C bytes held by open objects */
  size_t since; /* taken since the last full collection */
  size_t base;  /* live after the last full collection */
} Accounting;

static const char ACCOUNTING_KEY = 'a';

static Accounting *get_accounting(lua_State *L)
{
  Accounting *a;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &ACCOUNTING_KEY);
  a = lua_touserdata(L, -1);
  lua_pop(L, 1); /* anchored in the registry */
  return a;
}

/* Registers the counters (once per Lua state; module.c calls this). */
void open_accounting(lua_State *L)
{
  Accounting *a;
  if (get_accounting(L)) return;
  a = lua_newuserdatauv(L, sizeof *a, 0);
  a->live = a->since = a->base = 0;
  lua_rawsetp(L, LUA_REGISTRYINDEX, &ACCOUNTING_KEY);
}

/* An object took `bytes` more C memory; *held is its running total. May
 * run a full collection, so it is a Lua point (binding.h): call it once
 * the object owns the memory and is on the stack. */
void account_c_memory(lua_State *L, size_t *held, size_t bytes)
{
  Accounting *a = get_accounting(L);
  size_t limit;
  if (!a || bytes == 0) return;
  *held += bytes;
  a->live += bytes;
  a->since += bytes;
  limit = a->base > SASPU_LUA_GC_C_BYTES ? a->base : SASPU_LUA_GC_C_BYTES;
  if (a->since >= limit) {
    a->since = 0;
    lua_gc(L, LUA_GCCOLLECT, 0); /* does nothing inside a finalizer */
    a->base = a->live;
  }
}

/* The object freed its C memory (close or __gc). */
void release_c_memory(lua_State *L, size_t *held)
{
  Accounting *a = get_accounting(L);
  if (a) a->live -= *held < a->live ? *held : a->live;
  *held = 0;
}
