/* crowd_engine.c: saspu.Crowd methods for crowds the game moves: moves pending, their agent targets, and many positions set in one call. */
#include "binding.h"

/* c:pending(agent) -> true while the agent's move waits for the game's
 * answer (a:arrived or a:move_failed). */
static int l_crowd_pending(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  lua_pushboolean(L, sp_crowd_move_pending(c->c, a));
  return 1;
}

/* c:_moves(out) -> n, chasers: four entries per pending move in `out`
 * (agent, x, y, false), agents in index order; chasers counts those that
 * go to an agent (lua/saspu/crowd.lua writes their targets). */
static int l_crowd_moves(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  size_t slots = sp_crowd_slots(c->c);
  lua_Integer k = 0, chasers = 0;
  for (size_t i = 0; i < slots; i++) {
    if (!sp_crowd_move_pending(c->c, i)) continue;
    int x, y;
    sp_crowd_target_cell(c->c, i, &x, &y);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_rawseti(L, 2, ++k);
    lua_pushinteger(L, x + 1);
    lua_rawseti(L, 2, ++k);
    lua_pushinteger(L, y + 1);
    lua_rawseti(L, 2, ++k);
    lua_pushboolean(L, 0);
    lua_rawseti(L, 2, ++k);
    const SpCrowd *tc;
    size_t t;
    uint32_t gen;
    int reach;
    chasers += sp_crowd_move_target(c->c, i, &tc, &t, &gen, &reach);
  }
  lua_pushinteger(L, k / 4);
  lua_pushinteger(L, chasers);
  return 2;
}

/* c:_move_target(agent) -> core id, index, live, reach | nil: the agent
 * its step goes to (the crowd as a light userdata, matched by
 * c:_core_id()). */
static int l_crowd_move_target(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  const SpCrowd *tc;
  size_t t;
  uint32_t gen;
  int reach;
  if (!sp_crowd_move_target(c->c, a, &tc, &t, &gen, &reach)) return 0;
  lua_pushlightuserdata(L, (void *)tc);
  lua_pushinteger(L, (lua_Integer)t + 1);
  lua_pushboolean(L,
                  sp_crowd_alive(tc, t) && sp_crowd_generation(tc, t) == gen);
  lua_pushinteger(L, reach);
  return 4;
}

/* c:_core_id() -> the core crowd as a light userdata. */
static int l_crowd_core_id(lua_State *L)
{
  lua_pushlightuserdata(L, check_crowd(L, 1)->c);
  return 1;
}

/* Entry k (1-based) of the array at `arg` as an integer, or raises
 * naming the argument and the entry. */
static lua_Integer entry(lua_State *L, int arg, lua_Integer k, const char *what)
{
  lua_rawgeti(L, arg, k);
  int ok;
  lua_Integer v = lua_tointegerx(L, -1, &ok);
  if (!ok) {
    const char *got = luaL_typename(L, -1);
    return luaL_argerror(
        L, arg,
        lua_pushfstring(L, "%s[%I] must be an integer, got %s", what, k, got));
  }
  lua_pop(L, 1);
  return v;
}

#define MOVE_BATCH 256

/* c:move_to(agents, xs, ys [, n]): agent agents[k] is on cell (xs[k],
 * ys[k]) now, for k = 1..n (default #agents), as c:teleport would put it
 * (a walk goes on from there). Stops at the first entry refused, with an
 * error naming it; those before it moved. */
static int l_crowd_move_to(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  lua_Integer n =
      luaL_opt(L, luaL_checkinteger, 5, (lua_Integer)lua_rawlen(L, 2));
  luaL_argcheck(L, n >= 0, 5, "n must be 0 or more");
  uint32_t ids[MOVE_BATCH];
  int32_t xs[MOVE_BATCH], ys[MOVE_BATCH];
  size_t slots = sp_crowd_slots(c->c);
  for (lua_Integer base = 0; base < n; base += MOVE_BATCH) {
    size_t m = (size_t)(n - base < MOVE_BATCH ? n - base : MOVE_BATCH);
    for (size_t j = 0; j < m; j++) {
      lua_Integer k = base + (lua_Integer)j + 1;
      lua_Integer i = entry(L, 2, k, "agents");
      lua_Integer x = entry(L, 3, k, "xs"), y = entry(L, 4, k, "ys");
      if (i < 1 || (lua_Unsigned)i > slots ||
          !sp_crowd_alive(c->c, (size_t)(i - 1)))
        return luaL_argerror(
            L, 2, lua_pushfstring(L, "agents[%I] = %I is no live agent", k, i));
      if (x < 1 || x > 65535 || y < 1 || y > 65535)
        return luaL_argerror(
            L, x < 1 || x > 65535 ? 3 : 4,
            lua_pushfstring(L, "cell (%I, %I) of entry %I is off the grid", x,
                            y, k));
      ids[j] = (uint32_t)(i - 1);
      xs[j] = (int32_t)(x - 1);
      ys[j] = (int32_t)(y - 1);
    }
    SpError err;
    size_t done;
    if (sp_crowd_move_many(c->c, ids, xs, ys, m, &done, &err) != SP_OK)
      return luaL_error(L,
                        "saspu.Crowd:move_to: entry %I: cell (%d, %d) is "
                        "outside the grid or blocked",
                        base + (lua_Integer)done + 1, xs[done] + 1,
                        ys[done] + 1);
  }
  return 0;
}

static const luaL_Reg engine_methods[] = {
    {"pending", l_crowd_pending},  {"move_to", l_crowd_move_to},
    {"_moves", l_crowd_moves},     {"_move_target", l_crowd_move_target},
    {"_core_id", l_crowd_core_id}, {NULL, NULL}};

/* Adds these methods to saspu.Crowd's methods table (on top). */
void open_crowd_engine(lua_State *L) { luaL_setfuncs(L, engine_methods, 0); }
