/* crowd_agents.c: saspu.Crowd methods that change one agent or all: spawn, despawn, teleport, set a variable or the state, finish or fail a step, give a target or a goal. */
#include "binding.h"

/* Returns true, or false and the error's message: the answer of a method
 * whose refusals a script handles (nothing to finish, no such target). */
static int push_outcome(lua_State *L, SpStatus st, const SpError *err)
{
  lua_pushboolean(L, st == SP_OK);
  if (st == SP_OK) return 1;
  lua_pushstring(L, err->message);
  return 2;
}

/* c:spawn(state, x, y [, home]) -> agent index (1-based). */
static int l_crowd_spawn(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  const SpValue *s = check_packed(L, c, 2, 0);
  lua_Integer x = luaL_checkinteger(L, 3), y = luaL_checkinteger(L, 4);
  uint32_t home = SP_NO_PLACE;
  SpError err;
  size_t id;
  luaL_argcheck(L, x >= 1 && x <= INT32_MAX, 3, "x must be 1 or more");
  luaL_argcheck(L, y >= 1 && y <= INT32_MAX, 4, "y must be 1 or more");
  if (!lua_isnoneornil(L, 5))
    home = (uint32_t)check_id(L, 5, (int)sp_world_place_count(c->world->w),
                              "place");
  if (sp_crowd_spawn(c->c, s, (int)x - 1, (int)y - 1, home, &id, &err) != SP_OK)
    return crowd_error(L, "spawn", &err);
  lua_pushinteger(L, (lua_Integer)id + 1);
  return 1;
}

/* c:set_var(agent, var, value): ids 1-based. */
static int l_crowd_set_var(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int v = check_id(L, 3, c->nvars, "variable");
  int x = check_id(L, 4, sp_variable_value_count(c->domain, v), "value");
  SpError err;
  if (sp_crowd_set_var(c->c, a, v, x, &err) != SP_OK)
    return crowd_error(L, "set", &err);
  return 0;
}

/* c:set_var_all(var, value): the same value for every agent. */
static int l_crowd_set_var_all(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  int v = check_id(L, 2, c->nvars, "variable");
  int x = check_id(L, 3, sp_variable_value_count(c->domain, v), "value");
  size_t n = sp_crowd_slots(c->c);
  SpError err;
  for (size_t a = 0; a < n; a++)
    if (sp_crowd_alive(c->c, a) &&
        sp_crowd_set_var(c->c, a, v, x, &err) != SP_OK)
      return crowd_error(L, "set_all", &err);
  return 0;
}

/* c:set_var_many(agents, var, value [, n]): one value for the agents
 * agents[1..n] (n: #agents). Every index is checked before any is set,
 * so a bad one changes nothing; C then takes them a block at a time. */
#define SET_BLOCK 256
static int l_crowd_set_var_many(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int v = check_id(L, 3, c->nvars, "variable");
  int x = check_id(L, 4, sp_variable_value_count(c->domain, v), "value");
  lua_Integer n = luaL_optinteger(L, 5, (lua_Integer)lua_rawlen(L, 2));
  luaL_argcheck(L, n >= 0, 5, "n must be 0 or more");
  size_t slots = sp_crowd_slots(c->c);
  for (lua_Integer k = 1; k <= n; k++) {
    lua_rawgeti(L, 2, k);
    int ok;
    lua_Integer i = lua_tointegerx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok)
      return luaL_argerror(
          L, 2, lua_pushfstring(L, "agents[%I] is not an agent index", k));
    if (i < 1 || (lua_Unsigned)i > slots)
      return luaL_argerror(L, 2,
                           lua_pushfstring(L,
                                           "agents[%I] = %I is outside 1..%I",
                                           k, i, (lua_Integer)slots));
    if (!sp_crowd_alive(c->c, (size_t)(i - 1)))
      return luaL_argerror(
          L, 2, lua_pushfstring(L, "agents[%I] = %I was despawned", k, i));
  }
  size_t block[SET_BLOCK];
  SpError err;
  for (lua_Integer k = 1; k <= n;) {
    size_t got = 0;
    for (; k <= n && got < SET_BLOCK; k++, got++) {
      lua_rawgeti(L, 2, k);
      block[got] = (size_t)(lua_tointeger(L, -1) - 1);
      lua_pop(L, 1);
    }
    /* the variable's refusals (a sensor's, a fact's) come with the first
     * block, before anything changed */
    if (sp_crowd_set_var_many(c->c, block, got, v, x, &err) != SP_OK)
      return crowd_error(L, "set_many", &err);
  }
  return 0;
}

/* c:set_state(agent, packed). */
static int l_crowd_set_state(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpError err;
  if (sp_crowd_set_state(c->c, a, check_packed(L, c, 3, 0), &err) != SP_OK)
    return crowd_error(L, "set_state", &err);
  return 0;
}

/* c:control(agent, "fail", detail [, action]): 1 when the running step
 * may be failed: any step, or only one of `action` when given (a step of
 * duration 0 whose hook raised has finished already, and the agent may be
 * on its next step). */
static int fail_matches(lua_State *L, const LCrowd *c, size_t a)
{
  if (lua_isnoneornil(L, 5)) return 1;
  int act = check_id(L, 5, c->nactions, "action");
  SpAgentInfo in;
  sp_crowd_inspect(c->c, a, &in);
  return in.action == act;
}

/* c:control(agent, op [, detail [, action] | place, x, y]) -> true | false,
 * message: op "finish" | "fail" (detail, and the action the step must be:
 * any running step, walking or acting too) | "target" (place id or nil,
 * x, y) | "rethink" | "arrived" | "move_failed" (detail): the answers to
 * an engine move. Refusals (nothing to finish or fail) come back as
 * false. */
static int l_crowd_control(lua_State *L)
{
  static const char *const ops[] = {
      "finish", "fail", "target", "rethink", "arrived", "move_failed", NULL};
  if (!to_crowd(L, 1)->c)
    luaL_error(L, "saspu.Crowd: closed"); /* before the other arguments */
  int op =
      luaL_checkoption(L, 3, NULL, ops); /* a Lua point: before the crowd */
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpError err;
  SpStatus st;
  if (op == 0)
    st = sp_crowd_finish_step(c->c, a, &err);
  else if (op == 1) {
    lua_Integer detail = luaL_checkinteger(L, 4);
    luaL_argcheck(L, detail >= INT32_MIN && detail <= INT32_MAX, 4,
                  "detail out of range");
    if (!fail_matches(L, c, a)) {
      lua_pushboolean(L, 0);
      lua_pushliteral(L, "the step of that action is not running");
      return 2;
    }
    st = sp_crowd_fail_step(c->c, a, (int)detail, &err);
  } else if (op == 2) {
    uint32_t place = SP_NO_PLACE;
    if (!lua_isnoneornil(L, 4))
      place = (uint32_t)check_id(L, 4, (int)sp_world_place_count(c->world->w),
                                 "place");
    st = sp_crowd_set_target(c->c, a, place, (int)luaL_optinteger(L, 5, 1) - 1,
                             (int)luaL_optinteger(L, 6, 1) - 1, &err);
  } else if (op == 3)
    st = sp_crowd_rethink(c->c, a, &err);
  else if (op == 4)
    st = sp_crowd_arrived(c->c, a, &err);
  else {
    lua_Integer detail = luaL_checkinteger(L, 4);
    luaL_argcheck(L, detail >= INT32_MIN && detail <= INT32_MAX, 4,
                  "detail out of range");
    st = sp_crowd_move_failed(c->c, a, (int)detail, &err);
  }
  return push_outcome(L, st, &err);
}

/* c:select_goal(agent, goal | nil) -> true | false, message: the goal
 * (1-based, add_goal's order; nil: nothing to do) of an agent that waits
 * for one (a "waiting" event with reason "select"). */
static int l_crowd_select_goal(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int goal = lua_isnoneornil(L, 3)
                 ? -1
                 : check_id(L, 3, sp_crowd_goal_count(c->c), "goal");
  SpError err;
  return push_outcome(L, sp_crowd_select_goal(c->c, a, goal, &err), &err);
}

/* c:despawn(agent): removes a live agent (1-based); its handle and
 * script data are dropped, so a later spawn in the slot gets new ones. */
static int l_crowd_despawn(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpError err;
  if (sp_crowd_despawn(c->c, a, &err) != SP_OK)
    return crowd_error(L, "despawn", &err);
  for (int uv = UV_CROWD_HANDLES; uv <= UV_CROWD_DATA; uv++) {
    lua_getiuservalue(L, 1, uv);
    lua_pushnil(L);
    lua_rawseti(L, -2, (lua_Integer)a + 1);
    lua_pop(L, 1);
  }
  /* the script side drops its records of the agent, whoever despawned it */
  if (lua_getfield(L, LUA_REGISTRYINDEX, ON_DESPAWN_KEY) == LUA_TFUNCTION) {
    lua_pushvalue(L, 1);
    lua_pushinteger(L, (lua_Integer)a + 1);
    lua_call(L, 2, 0);
  }
  return 0;
}

/* saspu.core.on_despawn(f): f(crowd, i) runs after every despawn of agent
 * i (1-based), from any caller (the script side forgets the agent). */
static int l_on_despawn(lua_State *L)
{
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, ON_DESPAWN_KEY);
  return 0;
}

void open_on_despawn(lua_State *L)
{
  lua_pushcfunction(L, l_on_despawn);
  lua_setfield(L, -2, "on_despawn");
}

/* c:alive(agent) -> whether slot `agent` (1-based) holds a live agent. */
static int l_crowd_alive(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  lua_pushboolean(L, i >= 1 && sp_crowd_alive(c->c, (size_t)(i - 1)));
  return 1;
}

/* c:slots() -> agent slots (live or despawned): agent indices are in
 * 1..slots. */
static int l_crowd_slots(lua_State *L)
{
  lua_pushinteger(L, (lua_Integer)sp_crowd_slots(check_crowd(L, 1)->c));
  return 1;
}

/* c:teleport(agent, x, y): the agent's cell now (1-based). */
static int l_crowd_teleport(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  lua_Integer x = luaL_checkinteger(L, 3), y = luaL_checkinteger(L, 4);
  SpError err;
  luaL_argcheck(L, x >= 1 && x <= INT32_MAX, 3, "x must be 1 or more");
  luaL_argcheck(L, y >= 1 && y <= INT32_MAX, 4, "y must be 1 or more");
  if (sp_crowd_teleport(c->c, a, (int)x - 1, (int)y - 1, &err) != SP_OK)
    return crowd_error(L, "teleport", &err);
  return 0;
}

/* c:chase(agent, target [, reach]) -> true | false, message: the step
 * agent waits to be given a target for goes to `target` (a saspu.Agent of
 * a crowd of the same world; it may move) and arrives within `reach`
 * cells (default 1). A despawned target fails the step with target_gone
 * at the next update (false, "target_gone" at once when its crowd is
 * closed or the crowd moves by engine); a handle of another world
 * raises. */
static int l_crowd_chase(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  LAgent *h = luaL_checkudata(L, 3, AGENT_MT);
  lua_Integer reach = luaL_optinteger(L, 4, 1);
  luaL_argcheck(L, reach >= 0 && reach <= 65534, 4,
                "reach must be in 0..65534");
  lua_getiuservalue(L, 3, 1);
  LCrowd *tc = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (tc->c && tc->world != c->world)
    luaL_argerror(L, 3, "a handle of another world");
  /* a despawned target of an open crowd is C's to find gone (target_gone
   * at the next update); a closed crowd's, or an engine move's, here */
  int gone = !tc->c || !sp_crowd_alive(tc->c, h->index) ||
             sp_crowd_generation(tc->c, h->index) != h->gen;
  SpError err;
  SpStatus st = tc->c ? sp_crowd_set_target_agent(c->c, a, tc->c, h->index,
                                                  h->gen, (int)reach, &err)
                      : SP_ERR_STATE;
  if (st == SP_ERR_MEMORY) return crowd_error(L, "chase", &err);
  if (st != SP_OK && gone) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "target_gone");
    return 2;
  }
  return push_outcome(L, st, &err);
}

static const luaL_Reg agent_methods[] = {{"spawn_packed", l_crowd_spawn},
                                         {"set_var", l_crowd_set_var},
                                         {"set_var_all", l_crowd_set_var_all},
                                         {"set_var_many", l_crowd_set_var_many},
                                         {"set_state", l_crowd_set_state},
                                         {"control", l_crowd_control},
                                         {"select_goal", l_crowd_select_goal},
                                         {"slots", l_crowd_slots},
                                         {"alive", l_crowd_alive},
                                         {"despawn", l_crowd_despawn},
                                         {"teleport", l_crowd_teleport},
                                         {"chase", l_crowd_chase},
                                         {NULL, NULL}};

/* Adds these methods to saspu.Crowd's methods table (on top). */
void open_crowd_agents(lua_State *L) { luaL_setfuncs(L, agent_methods, 0); }
