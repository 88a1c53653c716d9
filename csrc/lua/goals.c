/* goals.c: goals as conditions in the binding: the saspu.KEEP marker, the keep option, and turning a goal's marks into the planner's goal (SP_ANY where free). */
#include <string.h>

#include "binding.h"

/* Turns marks into the goal sp_plan takes: a GOAL_KEEP variable takes its
 * start value, a GOAL_FREE one SP_ANY (or, with keep_all, its start
 * value too); GOAL_SET ones are left as they are. */
void resolve_goal(SpValue *goal, const uint8_t *mark, const SpValue *s0, int nv,
                  int keep_all)
{
  int v;
  for (v = 0; v < nv; v++) {
    if (mark[v] == GOAL_KEEP || (mark[v] == GOAL_FREE && keep_all))
      goal[v] = s0[v];
    else if (mark[v] == GOAL_FREE)
      goal[v] = SP_ANY;
  }
}

/* Whether resolving the marks needs a start state (some variable kept). */
int goal_needs_start(const uint8_t *mark, int nv, int keep_all)
{
  int v;
  for (v = 0; v < nv; v++)
    if (mark[v] == GOAL_KEEP || (mark[v] == GOAL_FREE && keep_all)) return 1;
  return 0;
}

/* Marks of a goal in planner form (SP_ANY = free, anything else set). */
void marks_of_goal(const SpValue *goal, uint8_t *mark, int nv)
{
  int v;
  for (v = 0; v < nv; v++) mark[v] = goal[v] == SP_ANY ? GOAL_FREE : GOAL_SET;
}

/* Reads a named goal (values, then marks: see compile_states). */
void read_named_goal(const char *packed, int nv, SpValue *goal, uint8_t *mark)
{
  memcpy(goal, packed, (size_t)nv);
  memcpy(mark, packed + nv, (size_t)nv);
}

/* The options argument at `arg` of a method taking a goal: nil or
 * { keep = boolean }. Returns keep: whether the variables a goal leaves
 * out keep their start value instead of being free. */
int goal_options(lua_State *L, int arg)
{
  int keep = 0;
  if (lua_isnoneornil(L, arg)) return 0;
  luaL_checktype(L, arg, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, arg)) {
    if (lua_type(L, -2) != LUA_TSTRING ||
        strcmp(lua_tostring(L, -2), "keep") != 0)
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "unknown option %s (expected keep)",
                                    shown_name(L, -2)));
    if (!lua_isboolean(L, -1))
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "keep: expected a boolean, got %s",
                                    luaL_typename(L, -1)));
    keep = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  return keep;
}
