/* crowd_goals.c: saspu.Crowd's per-agent goal priorities (csrc/agents/priority.c). */
#include <stdint.h>
#include <string.h>

#include "binding.h"

/* Arguments 2 and 3: a live agent (1-based slot) and a goal (1-based, add
 * order); returned 0-based. */
static size_t agent_and_goal(lua_State *L, const LCrowd *c, int *goal)
{
  size_t i = check_agent(L, c, 2);
  lua_Integer g = luaL_checkinteger(L, 3);
  int count = sp_crowd_goal_count(c->c);
  if (g < 1 || g > count)
    luaL_argerror(L, 3,
                  lua_pushfstring(L, "goal %I is outside 1..%d", g, count));
  *goal = (int)g - 1;
  return i;
}

/* c:set_agent_priority(i, goal, priority | nil): agent i's own priority
 * for goal (nil: the crowd's again). */
static int l_crowd_set_agent_priority(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  int goal;
  size_t i = agent_and_goal(L, c, &goal);
  SpError err;
  SpStatus st;
  if (lua_isnoneornil(L, 4)) {
    st = sp_crowd_clear_agent_priority(c->c, i, goal, &err);
  } else {
    lua_Integer prio = luaL_checkinteger(L, 4);
    luaL_argcheck(L, prio >= INT32_MIN && prio <= INT32_MAX, 4,
                  "priority out of range");
    st = sp_crowd_set_agent_priority(c->c, i, goal, (int)prio, &err);
  }
  if (st == SP_ERR_MEMORY)
    return luaL_error(L, "saspu.Crowd:set_agent_priority: not enough memory");
  if (st != SP_OK)
    return luaL_error(L, "saspu.Crowd:set_agent_priority: %s", err.message);
  return 0;
}

/* c:agent_priority(i, goal) -> priority, own: the priority goal has for
 * agent i, and whether it is the agent's own. */
static int l_crowd_agent_priority(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  int goal, own = 0;
  size_t i = agent_and_goal(L, c, &goal);
  lua_pushinteger(L, sp_crowd_agent_priority(c->c, i, goal, &own));
  lua_pushboolean(L, own);
  return 2;
}

/* c:set_goal_recheck(goal, group): goal (1-based) is rechecked while it
 * runs; group: the first goal (1-based) of those one `when` became. */
static int l_crowd_set_goal_recheck(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer goal = luaL_checkinteger(L, 2), group = luaL_checkinteger(L, 3);
  int count = sp_crowd_goal_count(c->c);
  luaL_argcheck(L, goal >= 1 && goal <= count, 2, "no such goal");
  luaL_argcheck(L, group >= 1 && group <= goal, 3, "no such group");
  SpError err;
  if (sp_crowd_set_recheck(c->c, (int)goal - 1, (int)group - 1, &err) != SP_OK)
    return luaL_error(L, "saspu.Crowd:set_goal_recheck: %s", err.message);
  return 0;
}

/* c:set_goal_choices(goal, { packed... }): goal (1-based) is reached by
 * any of these packed conditions (one string of m bytes each), planned
 * to the nearest (sp_crowd_set_goal_choices). */
static int l_crowd_set_goal_choices(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer goal = luaL_checkinteger(L, 2);
  int count = sp_crowd_goal_count(c->c), m = c->nvars;
  luaL_argcheck(L, goal >= 1 && goal <= count, 2, "no such goal");
  luaL_checktype(L, 3, LUA_TTABLE);
  int n = (int)lua_rawlen(L, 3);
  if (n < 1 || n > SP_GOAL_CHOICES_MAX)
    return luaL_argerror(L, 3,
                         lua_pushfstring(L,
                                         "expected 1 to %d packed conditions",
                                         SP_GOAL_CHOICES_MAX));
  SpValue *conds = lua_newuserdatauv(L, (size_t)n * (size_t)m, 0);
  for (int k = 1; k <= n; k++) {
    size_t len;
    lua_rawgeti(L, 3, k);
    const char *p = lua_tolstring(L, -1, &len);
    if (p == NULL || len != (size_t)m)
      return luaL_argerror(L, 3,
                           lua_pushfstring(L, "[%d]: expected %d bytes", k, m));
    memcpy(conds + (size_t)(k - 1) * (size_t)m, p, (size_t)m);
    lua_pop(L, 1);
  }
  SpError err;
  SpStatus st = sp_crowd_set_goal_choices(live_crowd(L, 1), (int)goal - 1,
                                          conds, n, &err);
  if (st == SP_ERR_MEMORY)
    return luaL_error(L, "saspu.Crowd:set_goal_choices: not enough memory");
  if (st != SP_OK)
    return luaL_error(L, "saspu.Crowd:set_goal_choices: %s", err.message);
  return 0;
}

static const luaL_Reg goal_methods[] = {
    {"set_goal_choices", l_crowd_set_goal_choices},
    {"agent_priority", l_crowd_agent_priority},
    {"set_agent_priority", l_crowd_set_agent_priority},
    {"set_goal_recheck", l_crowd_set_goal_recheck},
    {NULL, NULL}};

/* Adds the per-agent priority methods to saspu.Crowd's methods (on top). */
void open_crowd_goals(lua_State *L) { luaL_setfuncs(L, goal_methods, 0); }
