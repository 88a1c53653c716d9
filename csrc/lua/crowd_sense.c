/* crowd_sense.c: saspu.Crowd's perception: crowd:near (the spatial index of csrc/agents/index.c). */
#include <math.h>
#include <stdint.h>

#include "binding.h"

/* Argument `arg`: a radius in cells, a number >= 0 (a fraction is cut:
 * cells are whole); returned as an int (huge radii clipped). */
static int check_radius(lua_State *L, int arg)
{
  int isnum = 0;
  lua_Number r = lua_tonumberx(L, arg, &isnum);
  if (!isnum || !(r >= 0))
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "radius must be a number >= 0, got %s",
                        isnum ? lua_tostring(L, arg) : luaL_typename(L, arg)));
  return r > 65536 ? 65536 : (int)floor(r);
}

/* crowd:near's argument `arg` (named `name` in the reference): a cell
 * coordinate, an integer, returned 0-based. Its errors name the argument
 * by the documented position, however the method was called (a method
 * call and crowd.near(crowd, ...) count differently in luaL_argerror). */
static int near_coord(lua_State *L, int arg, const char *name)
{
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, arg, &isint);
  if (!isint)
    return luaL_error(L,
                      "saspu.Crowd:near: %s (argument #%d) must be an "
                      "integer, got %s",
                      name, arg - 1,
                      lua_type(L, arg) == LUA_TNUMBER ? lua_tostring(L, arg)
                                                      : luaL_typename(L, arg));
  if (v < -65536 || v > 131072)
    return luaL_error(L,
                      "saspu.Crowd:near: %s (argument #%d) = %I is out of "
                      "range",
                      name, arg - 1, (lua_Integer)v);
  return (int)v - 1;
}

/* c:near(x, y, r, out [, max]) -> count: out[1..count] = the indices
 * of the agents within Chebyshev distance r of cell (x, y), nearest
 * first, by index among equals; at most max (nil or 0: all). Entries
 * past count that the last call left are cleared. */
static int l_crowd_near(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  int x = near_coord(L, 2, "x"), y = near_coord(L, 3, "y");
  int isnum = 0;
  lua_Number rr = lua_tonumberx(L, 4, &isnum);
  if (!isnum || !(rr >= 0))
    return luaL_error(L,
                      "saspu.Crowd:near: r (argument #3) must be a number "
                      ">= 0, got %s",
                      isnum ? lua_tostring(L, 4) : luaL_typename(L, 4));
  int r = rr > 65536 ? 65536 : (int)floor(rr);
  if (!lua_istable(L, 5))
    return luaL_error(L,
                      "saspu.Crowd:near: out (argument #4) must be a table, "
                      "got %s",
                      luaL_typename(L, 5));
  lua_Integer max = 0;
  if (!lua_isnoneornil(L, 6)) {
    int isint = 0;
    max = lua_tointegerx(L, 6, &isint);
    if (!isint || max < 0)
      return luaL_error(L,
                        "saspu.Crowd:near: max (argument #5) must be an "
                        "integer >= 0 (0: all), got %s",
                        lua_type(L, 6) == LUA_TNUMBER ? lua_tostring(L, 6)
                                                      : luaL_typename(L, 6));
  }
  const uint32_t *found;
  size_t n;
  SpError err;
  c = check_crowd(L, 1); /* the strings above were Lua points */
  if (sp_crowd_near(c->c, x, y, r, (size_t)max, &found, &n, &err) != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.Crowd:near: not enough memory");
    return luaL_error(L, "saspu.Crowd:near: %s", err.message);
  }
  /* raw sets of integer keys into the array part allocate at most while
   * the table grows: the answer is Lua's to keep before that */
  lua_Integer old = (lua_Integer)lua_rawlen(L, 5);
  for (size_t k = 0; k < n; k++) {
    live_crowd(L, 1); /* closed by a finalizer: its buffer is gone */
    lua_pushinteger(L, (lua_Integer)found[k] + 1);
    lua_rawseti(L, 5, (lua_Integer)k + 1);
  }
  clear_array(L, 5, (lua_Integer)n + 1, old);
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

/* c:tie_fact(fact, var): ties the crowd's variable (1-based id) to the
 * world's fact (1-based id); before the first spawn. */
static int l_crowd_tie_fact(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer f = luaL_checkinteger(L, 2), v = luaL_checkinteger(L, 3);
  SpError err;
  luaL_argcheck(L, f >= 1 && f <= INT32_MAX, 2, "no such fact");
  luaL_argcheck(L, v >= 1 && v <= c->nvars, 3, "no such variable");
  if (sp_crowd_tie_fact(c->c, (int)f - 1, (int)v - 1, &err) != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.Crowd:tie_fact: not enough memory");
    return luaL_error(L, "saspu.Crowd:tie_fact: %s", err.message);
  }
  return 0;
}

/* c:add_sensor(var, on, off, near, kind, r [, period]): var, on, off
 * 1-based ids; near a saspu.Crowd of the same world (or nil), kind a
 * place kind name (or nil); r cells; period seconds (default 0). */
static int l_crowd_add_sensor(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  SpSensor sn;
  lua_Integer var = luaL_checkinteger(L, 2), on = luaL_checkinteger(L, 3),
              off = luaL_checkinteger(L, 4);
  LCrowd *near = lua_isnoneornil(L, 5) ? NULL : check_crowd(L, 5);
  const char *kind = luaL_optstring(L, 6, NULL);
  int r = check_radius(L, 7);
  lua_Number period = luaL_optnumber(L, 8, 0);
  luaL_argcheck(L, var >= 1 && var <= c->nvars, 2, "no such variable");
  luaL_argcheck(L, on >= 1 && on <= 255, 3, "no such value");
  luaL_argcheck(L, off >= 1 && off <= 255, 4, "no such value");
  luaL_argcheck(L, period >= 0 && period <= 1e9, 8,
                "period must be seconds in 0..1e9");
  c = check_crowd(L, 1); /* strings read from numbers were Lua points */
  if (near) near = check_crowd(L, 5);
  sn.var = (int)var - 1;
  sn.on = (int)on - 1;
  sn.off = (int)off - 1;
  sn.near = near ? near->c : NULL;
  sn.kind = -1;
  if (kind) {
    sn.kind = sp_world_find_kind(c->world->w, kind);
    luaL_argcheck(L, sn.kind >= 0, 6, "no place of that kind");
  }
  sn.r = r;
  sn.period = (float)period;
  if (near &&
      near != c) { /* keep it alive (a Lua point) before the core holds it */
    lua_getiuservalue(L, 1, UV_CROWD_SENSED);
    lua_pushvalue(L, 5);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
    c = check_crowd(L, 1);
    near = check_crowd(L, 5);
    sn.near = near->c;
  }
  SpError err;
  if (sp_crowd_add_sensor(c->c, &sn, &err) != SP_OK) {
    if (err.status == SP_ERR_MEMORY)
      return luaL_error(L, "saspu.Crowd:add_sensor: not enough memory");
    return luaL_error(L, "saspu.Crowd:add_sensor: %s", err.message);
  }
  if (near && near != c) {
    c->senses[c->sense_count++] = near;
    near->sensed_by++;
  }
  return 0;
}

static const luaL_Reg sense_methods[] = {{"add_sensor", l_crowd_add_sensor},
                                         {"near", l_crowd_near},
                                         {"tie_fact", l_crowd_tie_fact},
                                         {NULL, NULL}};

/* Adds the perception methods to saspu.Crowd's methods table (on top). */
void open_crowd_sense(lua_State *L) { luaL_setfuncs(L, sense_methods, 0); }
