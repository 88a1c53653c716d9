/* module.c: the Lua module saspu.core: registers every type (domain, grid, population, world, crowd, agent) and the module functions. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime for saspu.clock_ns */
#include <time.h>

#include "binding.h"

/* saspu.clock_ns() -> a monotonic clock in nanoseconds (for timing). */
static int l_clock_ns(lua_State *L)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 +
                         (lua_Integer)ts.tv_nsec);
  return 1;
}

/* saspu.cores() -> the online cores: the workers of threads = 0. */
static int l_cores(lua_State *L)
{
  lua_pushinteger(L, sp_online_cores());
  return 1;
}

/* core.duration_draw(state, min, max) -> state', seconds: one step of the
 * draw world.lua makes for a scripted step's { min, max } duration. In C
 * with 64-bit integers, so every Lua gives the same draws (a double Lua
 * loses the low bits of state * 1103515245 past 2^53); the same numbers
 * as Lua 5.4's integer arithmetic gave. */
static int l_duration_draw(lua_State *L)
{
  uint64_t state = (uint64_t)luaL_checkinteger(L, 1);
  lua_Number lo = luaL_checknumber(L, 2), hi = luaL_checknumber(L, 3);
  state = (state * 1103515245u + 12345u) % 2147483648u;
  lua_pushinteger(L, (lua_Integer)state);
  lua_pushnumber(L, lo + (hi - lo) * ((lua_Number)state / 2147483648.0));
  return 2;
}

static const luaL_Reg module_fns[] = {{"clock_ns", l_clock_ns},
                                      {"duration_draw", l_duration_draw},
                                      {"cores", l_cores},
                                      {NULL, NULL}};

/* The interpreter the module was built for. lua/saspu/native.lua finds
 * these bytes in a core.so that another Lua cannot load, to say so. */
#define BUILT_FOR "saspu.core built for "
static const char built_for[] = BUILT_FOR SASPU_LUA_TARGET;

/* The module is built with hidden visibility: only this symbol is exported. */
SASPU_LUA_EXPORT int luaopen_saspu_core(lua_State *L);

/* require "saspu.core": the module table with every type registered. */
int luaopen_saspu_core(lua_State *L)
{
  luaL_checkversion(L);
  open_accounting(L);
  luaL_newlib(L, module_fns);
  lua_pushliteral(L, SASPU_VERSION); /* CMake's project version */
  lua_setfield(L, -2, "_VERSION");
  lua_pushstring(L, built_for + sizeof BUILT_FOR - 1); /* lua5.4, ..., luajit */
  lua_setfield(L, -2, "_LUA");
  push_keep_marker(L); /* a goal value: the variable keeps its start value */
  lua_setfield(L, -2, "KEEP");
  lua_pushinteger(L, SP_ANY); /* a packed goal's byte for a free variable */
  lua_setfield(L, -2, "ANY");
  lua_pushinteger(L,
                  SP_GOAL_CHOICES_MAX); /* most combinations of a goal's sets */
  lua_setfield(L, -2, "GOAL_CHOICES_MAX");
  lua_pushnumber(L, SP_CROWD_CLOCK_MAX); /* a crowd clock's latest reading */
  lua_setfield(L, -2, "CLOCK_MAX");
  open_domain(L);
  open_domain_plan(L);
  open_grid(L);
  open_population(L);
  open_world(L);
  open_world_save(L);
  open_world_record(L);
  open_trace_summary(L); /* adds to saspu.Trace */
  open_memory_return(L);
  open_crowd(L);
  /* the files that add to a type register from here, so no type file
   * calls the files built on it (no include or call circles) */
  lua_getfield(L, -1, "Crowd"); /* module methods */
  open_crowd_agents(L);         /* spawn, control, chase, ... */
  open_crowd_engine(L);         /* pending, move_to, ... */
  open_crowd_inspect(L);        /* info, plan, blocker, stats, ... */
  open_crowd_events(L);         /* the event readers */
  open_crowd_sense(L);          /* crowd:near */
  open_crowd_goals(L);          /* agents' own priorities */
  lua_pop(L, 1);
  lua_pushcfunction(L, l_event_kinds);
  lua_setfield(L, -2, "event_kinds");
  open_on_despawn(L);
  open_agent(L);
  return 1;
}
