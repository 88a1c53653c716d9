/* population_check.c: the argument checks and errors every saspu.Population method shares (which population, which NPC, which option). */
#include "binding.h"

/* The saspu.Population at `idx`, open or closed. */
LPopulation *to_population(lua_State *L, int idx)
{
  return to_userdata_of_upvalue(L, idx, POPULATION_MT);
}

/* The open population at `idx`, with stack room for any method. */
LPopulation *check_population(lua_State *L, int idx)
{
  LPopulation *p = to_population(L, idx);
  if (!p->pop) luaL_argerror(L, idx, "saspu.Population is closed");
  luaL_checkstack(L, STACK_NEED, POPULATION_MT);
  return p;
}

/* The population's core object after a Lua point (see binding.h), or
 * the error "saspu.Population was closed during the call". */
SpPopulation *live_pop(lua_State *L, const LPopulation *p)
{
  if (!p->pop) closed_during_call(L, POPULATION_MT);
  return p->pop;
}

/* Argument `arg`: an NPC index in 1..n; returns it 0-based. */
size_t check_npc(lua_State *L, const LPopulation *p, int arg)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  if (i < 1 || (lua_Unsigned)i > p->n) {
    if (p->n == 0)
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "npc %I: the population is empty", i));
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "npc %I is outside 1..%I", i, (lua_Integer)p->n));
  }
  return (size_t)(i - 1);
}

/* Raises "saspu.Population:<fname>: <the core's sentence>". */
int pop_error(lua_State *L, const char *fname, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY || err->code == SP_E_MEMORY)
    return luaL_error(L, "saspu.Population:%s: not enough memory", fname);
  return luaL_error(L, "saspu.Population:%s: %s", fname, err->message);
}

/* Raises on a key of the options table at `arg` that is not in `allowed`. */
int pop_unknown_option(lua_State *L, int arg, const char *allowed)
{
  const char *shown = shown_name(L, -2);
  return luaL_argerror(
      L, arg,
      lua_pushfstring(L, "unknown option %s (expected %s)", shown, allowed));
}

/* The value on top of the stack for option `name`: an integer in lo..hi. */
lua_Integer pop_option_integer(lua_State *L, int arg, const char *name,
                               lua_Integer lo, lua_Integer hi)
{
  int isnum = 0;
  lua_Integer x =
      lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
  if (!isnum || x < lo || x > hi)
    luaL_argerror(L, arg,
                  lua_pushfstring(L,
                                  "%s: expected an integer in %I..%I, got %s",
                                  name, lo, hi, luaL_tolstring(L, -1, NULL)));
  return x;
}
