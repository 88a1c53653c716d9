/* agent.c: saspu.Agent: a small handle (crowd, index) that stays safe after its crowd is closed; world.lua adds the named methods. */
#include "binding.h"

/* A handle is an LAgent (the 0-based slot and its generation) with the
 * crowd as user value 1. Every method goes through agent_crowd, which
 * raises once the crowd is closed or the agent despawned. */

static LAgent *to_agent(lua_State *L, int idx)
{
  return luaL_checkudata(L, idx, AGENT_MT);
}

/* 1 when the handle's agent is alive in its open crowd (pushed). */
static int agent_live(lua_State *L, int idx, const LAgent *h)
{
  lua_getiuservalue(L, idx, 1);
  LCrowd *c = lua_touserdata(L, -1);
  return c->c && sp_crowd_alive(c->c, h->index) &&
         sp_crowd_generation(c->c, h->index) == h->gen;
}

/* Pushes the agent's open crowd; raises when it is closed or the agent
 * was despawned. */
static size_t agent_crowd(lua_State *L, int idx)
{
  LAgent *h = to_agent(L, idx);
  if (!agent_live(L, idx, h)) {
    LCrowd *c = lua_touserdata(L, -1);
    if (!c->c) luaL_error(L, "saspu.Agent: closed (its crowd is closed)");
    /* no position: the caller is saspu's own Lua more often than not */
    lua_pushfstring(L, "saspu.Agent: despawned (agent %I of '%s')",
                    (lua_Integer)h->index + 1, sp_domain_name(c->domain));
    lua_error(L);
  }
  return h->index;
}

/* a:is_open() -> true while its crowd is open. */
static int l_agent_is_open(lua_State *L)
{
  to_agent(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_pushboolean(L, ((LCrowd *)lua_touserdata(L, -1))->c != NULL);
  return 1;
}

/* a:position() -> x, y: the agent's cell (a cheap read, no table). */
static int l_agent_position(lua_State *L)
{
  size_t i = agent_crowd(L, 1);
  LCrowd *c = lua_touserdata(L, -1);
  int x, y;
  if (sp_crowd_position(c->c, i, &x, &y) != SP_OK)
    return luaL_error(L, "saspu.Agent: agent %I is gone", (lua_Integer)i + 1);
  lua_pushinteger(L, x + 1);
  lua_pushinteger(L, y + 1);
  return 2;
}

/* a:crowd() -> the saspu.Crowd. */
static int l_agent_crowd(lua_State *L)
{
  agent_crowd(L, 1);
  return 1;
}

/* a:index() -> the agent's 1-based index in its crowd. */
static int l_agent_index(lua_State *L)
{
  lua_pushinteger(L, (lua_Integer)agent_crowd(L, 1) + 1);
  return 1;
}

/* a:alive() -> false once the agent was despawned (or its crowd closed). */
static int l_agent_alive(lua_State *L)
{
  lua_pushboolean(L, agent_live(L, 1, to_agent(L, 1)));
  return 1;
}

/* __index: a method, or `data`: the agent's script table, made on first
 * use (so agents whose scripts never ask have none). */
static int l_agent_index_meta(lua_State *L)
{
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  const char *k = lua_tostring(L, 2);
  if (k && k[0] == 'd' && lua_rawequal(L, 2, lua_upvalueindex(2))) {
    size_t i = agent_crowd(L, 1);
    push_agent_data(L, -1, i);
    return 1;
  }
  return 0;
}

static int l_agent_tostring(lua_State *L)
{
  LAgent *h = to_agent(L, 1);
  size_t i = h->index;
  int live = agent_live(L, 1, h);
  LCrowd *c = lua_touserdata(L, -1);
  if (!c->c)
    lua_pushfstring(L, "saspu.Agent %I (crowd closed)", (lua_Integer)i + 1);
  else if (!live)
    lua_pushfstring(L, "saspu.Agent %I of '%s' (despawned)", (lua_Integer)i + 1,
                    sp_domain_name(c->domain));
  else
    lua_pushfstring(L, "saspu.Agent %I of '%s'", (lua_Integer)i + 1,
                    sp_domain_name(c->domain));
  return 1;
}

/* a:_teleport(x, y) -> true when the agent is on cell (x, y) now; false,
 * changing nothing, for a cell a:teleport would refuse (it then says
 * why): the quick path of lua/saspu/engine.lua. Raises as every method
 * for a closed crowd or a despawned agent. */
static int l_agent_try_teleport(lua_State *L)
{
  size_t i = agent_crowd(L, 1);
  LCrowd *c = lua_touserdata(L, -1);
  int done = 0;
  if (lua_type(L, 2) == LUA_TNUMBER && lua_type(L, 3) == LUA_TNUMBER) {
    int okx, oky;
    lua_Integer x = lua_tointegerx(L, 2, &okx), y = lua_tointegerx(L, 3, &oky);
    SpError err;
    done = okx && oky && x >= 1 && y >= 1 && x <= 65535 && y <= 65535 &&
           sp_crowd_teleport(c->c, i, (int)x - 1, (int)y - 1, &err) == SP_OK;
  }
  lua_pushboolean(L, done);
  return 1;
}

static const luaL_Reg agent_methods[] = {{"crowd", l_agent_crowd},
                                         {"index", l_agent_index},
                                         {"is_open", l_agent_is_open},
                                         {"position", l_agent_position},
                                         {"alive", l_agent_alive},
                                         {"_teleport", l_agent_try_teleport},
                                         {NULL, NULL}};

/* Registers saspu.Agent and core.Agent (its methods table, which
 * lua/saspu/world.lua extends). */
void open_agent(lua_State *L)
{
  luaL_newmetatable(L, AGENT_MT); /* module mt */
  lua_pushcfunction(L, l_agent_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, agent_methods); /* module mt methods */
  lua_pushvalue(L, -1);
  lua_setfield(L, -4, "Agent");
  lua_pushliteral(L, "data");
  lua_pushcclosure(L, l_agent_index_meta, 2);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
