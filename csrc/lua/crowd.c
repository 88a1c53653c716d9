/* crowd.c: saspu.Crowd: the agents of one domain in a world, updated in C; the low-level methods that lua/saspu/world.lua builds behaviours on. */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "saspu_threads.h"

/* Ids cross this boundary 1-based (agents, actions, variables, values,
 * goals, places); every conversion happens here. Packed states are
 * strings of one byte per variable (0-based value index), 0xFF meaning
 * "any" in goal conditions. */

/* The user values of a saspu.Crowd. */
enum {
  UV_CROWD_WORLD = 1, /* the saspu.World: keeps it alive */
  UV_CROWD_DOMAIN,    /* the saspu.Domain: same */
  UV_CROWD_HANDLES,   /* agent index -> its saspu.Agent (made on demand) */
  UV_CROWD_DATA,      /* agent index -> its script data table (same) */
  UV_CROWD_SENSED,    /* the crowds its sensors read: keeps them alive */
  UV_CROWD_COUNT = UV_CROWD_SENSED
};

static LCrowd *to_crowd(lua_State *L, int idx)
{
  return luaL_checkudata(L, idx, CROWD_MT);
}

/* The open crowd at `idx` whose world (and its grid) is still open. */
LCrowd *check_crowd(lua_State *L, int idx)
{
  LCrowd *c = to_crowd(L, idx);
  if (!c->c)
    luaL_error(L, "saspu.Crowd: closed"); /* the caller's line, no method name */
  if (sp_world_grid(c->world->w)) {
    lua_getiuservalue(L, idx, UV_CROWD_WORLD);
    lua_getiuservalue(L, -1, 1); /* the world's grid */
    int open = grid_of(L, -1) != NULL;
    lua_pop(L, 2);
    if (!open)
      luaL_error(L, "saspu.Crowd: its world's grid is closed");
  }
  return c;
}

/* The crowd at `idx` again after a Lua point (binding.h): raises
 * "saspu.Crowd was closed during the call" when it, or its world's grid,
 * was closed meanwhile. */
SpCrowd *live_crowd(lua_State *L, int idx)
{
  LCrowd *c = lua_touserdata(L, idx);
  if (!c->c)
    closed_during_call(L, CROWD_MT);
  if (sp_world_grid(c->world->w)) {
    lua_getiuservalue(L, idx, UV_CROWD_WORLD);
    lua_getiuservalue(L, -1, 1);
    int open = grid_of(L, -1) != NULL;
    lua_pop(L, 2);
    if (!open)
      closed_during_call(L, GRID_MT);
  }
  return c->c;
}

static int crowd_error(lua_State *L, const char *fname, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY)
    return luaL_error(L, "saspu.Crowd:%s: not enough memory", fname);
  return luaL_error(L, "saspu.Crowd:%s: %s", fname, err->message);
}

/* Argument `arg`: a live agent of slot 1..slots; returns it 0-based. */
static size_t check_agent(lua_State *L, const LCrowd *c, int arg)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  size_t n = sp_crowd_slots(c->c);
  if (i < 1 || (lua_Unsigned)i > n)
    luaL_argerror(L, arg, lua_pushfstring(L, "agent %I is outside 1..%I", i, (lua_Integer)n));
  if (!sp_crowd_alive(c->c, (size_t)(i - 1)))
    luaL_argerror(L, arg, lua_pushfstring(L, "agent %I was despawned", i));
  return (size_t)(i - 1);
}

/* Argument `arg`: a 1-based id in 1..n; returns it 0-based. */
static int check_id(lua_State *L, int arg, int n, const char *what)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  if (i < 1 || i > n)
    luaL_argerror(L, arg, lua_pushfstring(L, "%s %I is outside 1..%d", what, i, n));
  return (int)(i - 1);
}

/* Argument `arg`: a packed state of nvars bytes (0xFF allowed when `any`)
 * of the crowd at index 1 (a number converted to a string is a Lua point:
 * the crowd is checked again after it). */
static const SpValue *check_packed(lua_State *L, const LCrowd *c, int arg, int any)
{
  size_t len;
  const char *s = luaL_checklstring(L, arg, &len);
  live_crowd(L, 1);
  if (len != (size_t)c->nvars)
    luaL_argerror(L, arg, lua_pushfstring(L, "a packed state has %d bytes, got %d",
                                          c->nvars, (int)len));
  for (int v = 0; v < c->nvars; v++) {
    int x = (uint8_t)s[v];
    if ((x != SP_ANY || !any) && x >= sp_variable_value_count(c->domain, v))
      luaL_argerror(L, arg, lua_pushfstring(L, "byte %d ('%s') is %d, out of range",
                                            v + 1, sp_variable_name(c->domain, v), x));
  }
  return (const SpValue *)s;
}

/* Bounds of the options that have none of their own: a seed exact in a
 * double; speeds and times far beyond any game's, finite as floats. */
#define OPT_MAX_SEED 9007199254740992.0 /* 2^53 */
#define OPT_MAX_FLOAT 1e9

/* An option in lo..hi (NaN and infinities fail both tests), checked
 * before any cast to a C integer or float can overflow. */
static double opt_number_field(lua_State *L, int t, const char *k, double dflt, double lo,
                               double hi)
{
  double x = dflt;
  if (lua_getfield(L, t, k) != LUA_TNIL) {
    if (!lua_isnumber(L, -1) || !((x = lua_tonumber(L, -1)) >= lo && x <= hi)) {
      char range[64];
      snprintf(range, sizeof range, "%.15g..%.15g", lo, hi);
      luaL_error(L, "world:crowd: options.%s must be a number in %s", k, range);
    }
  }
  lua_pop(L, 1);
  return x;
}

/* options.movement: "grid" (saspu walks, the default) or "engine" (the
 * game moves agents and answers each move); 1 for engine. */
static int opt_movement(lua_State *L, int t)
{
  int engine = 0;
  int type = lua_getfield(L, t, "movement");
  if (type != LUA_TNIL) {
    const char *m = type == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!m || (strcmp(m, "grid") != 0 && strcmp(m, "engine") != 0))
      luaL_error(L, "world:crowd: options.movement must be \"grid\" or \"engine\", got %s",
                 m ? shown_name(L, -1) : luaL_typename(L, -1));
    engine = m[0] == 'e';
  }
  lua_pop(L, 1);
  return engine;
}

/* saspu.core.crowd(world, dom [, opts]) -> saspu.Crowd. opts: capacity
 * (default 1024), threads (0: every core; default: the world's pool when
 * it has one, else 1), seed, speed, cooldown, retry, cache_capacity,
 * movement ("grid" | "engine"). */
static int l_crowd(lua_State *L)
{
  LWorld *w = check_world(L, 1);
  LDomain *d = luaL_checkudata(L, 2, DOMAIN_MT);
  SpCrowdOptions o;
  SpError err;
  SpCrowd *sc = NULL;
  memset(&o, 0, sizeof o);
  o.capacity = 1024;
  o.threads = 1;
  int own_threads = 0;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    o.capacity = (size_t)opt_number_field(L, 3, "capacity", 1024, 1,
                                          (double)SP_POPULATION_MAX_NPCS);
    own_threads = lua_getfield(L, 3, "threads") != LUA_TNIL;
    lua_pop(L, 1);
    o.threads = (int)opt_number_field(L, 3, "threads", 1, 0, SP_THREAD_POOL_MAX);
    o.seed = (uint64_t)opt_number_field(L, 3, "seed", 0, 0, OPT_MAX_SEED);
    o.speed = (float)opt_number_field(L, 3, "speed", 0, 0, OPT_MAX_FLOAT);
    o.cooldown = (float)opt_number_field(L, 3, "cooldown", 0, 0, OPT_MAX_FLOAT);
    o.retry = (float)opt_number_field(L, 3, "retry", 0, 0, OPT_MAX_FLOAT);
    o.cache_capacity = (uint32_t)opt_number_field(L, 3, "cache_capacity", 0, 0,
                                                  SP_PLAN_CACHE_MAX_CAPACITY);
    o.engine_moves = opt_movement(L, 3);
  }
  if (!d->domain)
    luaL_argerror(L, 2, "saspu.Domain is closed");
  int na = sp_domain_action_count(d->domain); /* a closed domain keeps its count */
  LCrowd *c = lua_newuserdatauv(L, sizeof *c + (size_t)(na ? na : 1) * sizeof(uint16_t),
                                UV_CROWD_COUNT);
  memset(c, 0, sizeof *c);
  c->plan = (uint16_t *)(c + 1);
  luaL_setmetatable(L, CROWD_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, UV_CROWD_WORLD);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, UV_CROWD_DOMAIN);
  lua_newtable(L);
  lua_setiuservalue(L, -2, UV_CROWD_HANDLES);
  lua_newtable(L);
  lua_setiuservalue(L, -2, UV_CROWD_DATA);
  lua_newtable(L);
  lua_setiuservalue(L, -2, UV_CROWD_SENSED);
  /* the options' metamethods and the allocations above were Lua points */
  if (!d->domain)
    closed_during_call(L, DOMAIN_MT);
  if (!w->w || w->closed)
    closed_during_call(L, WORLD_MT);
  check_world(L, 1); /* and its grid */
  if (!own_threads && w->pool) {
    o.pool = w->pool;
    o.threads = sp_thread_pool_size(w->pool);
  }
  if (sp_crowd_new(w->w, d->domain, &o, core_allocator(L), &sc, &err) != SP_OK)
    return crowd_error(L, "new", &err); /* nothing was allocated */
  c->c = sc;
  c->world = w;
  c->on_world_pool = o.pool != NULL;
  w->users++;
  c->owner = d;
  d->users++;
  c->domain = d->domain;
  c->nvars = sp_domain_variable_count(d->domain);
  c->nactions = na;
  return 1;
}

/* Frees a closed crowd's core crowd, then lets go of its domain and
 * world (freeing them if they were closed meanwhile). Idempotent. */
void crowd_release(LCrowd *c)
{
  if (c->held) {
    sp_crowd_free(c->held);
    c->held = NULL;
  }
  if (c->owner) {
    LDomain *d = c->owner;
    c->owner = NULL;
    c->domain = NULL;
    domain_release(d);
  }
  if (c->world) {
    world_release(c->world);
    c->world = NULL;
  }
}

/* __gc, __close and c:close(): frees the agents, then lets go of the
 * domain and the world (freeing them if they were closed meanwhile).
 * Idempotent; agent handles then raise "saspu.Agent: closed". */
static int l_crowd_close(lua_State *L)
{
  LCrowd *c = to_crowd(L, 1);
  if (c->c) {
    c->held = c->c;
    c->c = NULL;
    for (int k = 0; k < c->sense_count; k++) { /* a crowd waiting for this one */
      LCrowd *s = c->senses[k];
      if (--s->sensed_by == 0 && !s->c)
        crowd_release(s);
    }
    c->sense_count = 0;
  }
  if (c->sensed_by == 0) /* else the last crowd sensing it frees it */
    crowd_release(c);
  return 0;
}

static int l_crowd_tostring(lua_State *L)
{
  LCrowd *c = to_crowd(L, 1);
  if (!c->c)
    lua_pushliteral(L, "saspu.Crowd (closed)");
  else
    lua_pushfstring(L, "saspu.Crowd '%s' (%I agents, %d goals)", sp_domain_name(c->domain),
                    (lua_Integer)sp_crowd_size(c->c), sp_crowd_goal_count(c->c));
  return 1;
}

/* c:set_action(action, min, max, bind, arg, interruptible, scripted,
 * has_hook [, max_failures, give_up_for]) (the back-off; nil: 3 and 30
 * s). bind: "none" | "place" (arg: place id) | "kind" (arg: kind
 * name) | "home" | "script". */
static int l_crowd_set_action(lua_State *L)
{
  static const char *const binds[] = { "none", "place", "kind", "home", "script", NULL };
  LCrowd *c = check_crowd(L, 1);
  SpActionBehaviour b;
  SpError err;
  int act = check_id(L, 2, c->nactions, "action");
  memset(&b, 0, sizeof b);
  b.min_duration = (float)luaL_checknumber(L, 3);
  b.max_duration = (float)luaL_checknumber(L, 4);
  b.bind = (SpBind)luaL_checkoption(L, 5, NULL, binds);
  const char *kind = b.bind == SP_BIND_KIND ? luaL_checkstring(L, 6) : NULL;
  live_crowd(L, 1); /* strings read from numbers were Lua points */
  if (b.bind == SP_BIND_PLACE) {
    LWorld *w = c->world;
    b.place = (uint32_t)check_id(L, 6, (int)sp_world_place_count(w->w), "place");
  } else if (b.bind == SP_BIND_KIND) {
    b.kind = sp_world_find_kind(c->world->w, kind);
    luaL_argcheck(L, b.kind >= 0, 6, "no place of that kind");
  }
  b.interruptible = lua_toboolean(L, 7);
  b.scripted = lua_toboolean(L, 8);
  b.has_hook = lua_toboolean(L, 9);
  lua_Integer most = luaL_optinteger(L, 10, 0);
  luaL_argcheck(L, most >= 0 && most <= 255, 10, "max_failures must be 0..255 (0: 3)");
  b.max_failures = (int)most;
  b.give_up_for = (float)luaL_optnumber(L, 11, 0.0);
  if (sp_crowd_set_action(c->c, act, &b, &err) != SP_OK)
    return crowd_error(L, "set_action", &err);
  return 0;
}

/* c:add_goal(condition, priority [, when]) -> goal index (1-based);
 * condition and when are packed with 0xFF for "any". */
static int l_crowd_add_goal(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  const SpValue *cond = check_packed(L, c, 2, 1);
  lua_Integer prio = luaL_checkinteger(L, 3);
  const SpValue *when = lua_isnoneornil(L, 4) ? NULL : check_packed(L, c, 4, 1);
  SpError err;
  int index;
  luaL_argcheck(L, prio >= INT32_MIN && prio <= INT32_MAX, 3, "priority out of range");
  if (sp_crowd_add_goal(c->c, cond, (int)prio, when, &index, &err) != SP_OK)
    return crowd_error(L, "add_goal", &err);
  lua_pushinteger(L, index + 1);
  return 1;
}

/* c:set_goal_priority(goal, priority): goal (1-based, add_goal's order)
 * takes the priority now (sp_crowd_set_priority). */
static int l_crowd_set_goal_priority(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer goal = luaL_checkinteger(L, 2);
  lua_Integer prio = luaL_checkinteger(L, 3);
  SpError err;
  luaL_argcheck(L, goal >= 1 && goal <= sp_crowd_goal_count(c->c), 2, "no such goal");
  luaL_argcheck(L, prio >= INT32_MIN && prio <= INT32_MAX, 3, "priority out of range");
  if (sp_crowd_set_priority(c->c, (int)goal - 1, (int)prio, &err) != SP_OK)
    return crowd_error(L, "set_priority", &err);
  return 0;
}

/* c:goal_priority(goal) -> the priority of goal (1-based) now. */
static int l_crowd_goal_priority(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer goal = luaL_checkinteger(L, 2);
  luaL_argcheck(L, goal >= 1 && goal <= sp_crowd_goal_count(c->c), 2, "no such goal");
  lua_pushinteger(L, sp_crowd_priority(c->c, (int)goal - 1));
  return 1;
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
    home = (uint32_t)check_id(L, 5, (int)sp_world_place_count(c->world->w), "place");
  if (sp_crowd_spawn(c->c, s, (int)x - 1, (int)y - 1, home, &id, &err) != SP_OK)
    return crowd_error(L, "spawn", &err);
  lua_pushinteger(L, (lua_Integer)id + 1);
  return 1;
}

float check_dt(lua_State *L, int arg)
{
  double dt = luaL_checknumber(L, arg);
  luaL_argcheck(L, dt >= 0 && dt <= FLT_MAX, arg, "dt must be a finite number of seconds, 0 or more");
  return (float)dt;
}

/* c:update(dt): one frame of every agent, in C. */
static int l_crowd_update(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  float dt = check_dt(L, 2);
  SpError err;
  if (sp_crowd_update(c->c, dt, &err) != SP_OK)
    return crowd_error(L, "update", &err);
  return 0;
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
    if (sp_crowd_alive(c->c, a) && sp_crowd_set_var(c->c, a, v, x, &err) != SP_OK)
      return crowd_error(L, "set_all", &err);
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
  if (lua_isnoneornil(L, 5))
    return 1;
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
  static const char *const ops[] = { "finish", "fail", "target", "rethink", "arrived",
                                      "move_failed", NULL };
  if (!to_crowd(L, 1)->c)
    luaL_error(L, "saspu.Crowd: closed"); /* before the other arguments */
  int op = luaL_checkoption(L, 3, NULL, ops); /* a Lua point: before the crowd */
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpError err;
  SpStatus st;
  if (op == 0)
    st = sp_crowd_finish_step(c->c, a, &err);
  else if (op == 1) {
    lua_Integer detail = luaL_checkinteger(L, 4);
    luaL_argcheck(L, detail >= INT32_MIN && detail <= INT32_MAX, 4, "detail out of range");
    if (!fail_matches(L, c, a)) {
      lua_pushboolean(L, 0);
      lua_pushliteral(L, "the step of that action is not running");
      return 2;
    }
    st = sp_crowd_fail_step(c->c, a, (int)detail, &err);
  }
  else if (op == 2) {
    uint32_t place = SP_NO_PLACE;
    if (!lua_isnoneornil(L, 4))
      place = (uint32_t)check_id(L, 4, (int)sp_world_place_count(c->world->w), "place");
    st = sp_crowd_set_target(c->c, a, place, (int)luaL_optinteger(L, 5, 1) - 1,
                             (int)luaL_optinteger(L, 6, 1) - 1, &err);
  } else if (op == 3)
    st = sp_crowd_rethink(c->c, a, &err);
  else if (op == 4)
    st = sp_crowd_arrived(c->c, a, &err);
  else {
    lua_Integer detail = luaL_checkinteger(L, 4);
    luaL_argcheck(L, detail >= INT32_MIN && detail <= INT32_MAX, 4, "detail out of range");
    st = sp_crowd_move_failed(c->c, a, (int)detail, &err);
  }
  lua_pushboolean(L, st == SP_OK);
  if (st == SP_OK)
    return 1;
  lua_pushstring(L, err.message);
  return 2;
}

/* c:set_selector(on): goals chosen by the caller (c:select_goal). */
static int l_crowd_set_selector(lua_State *L)
{
  sp_crowd_set_selector(check_crowd(L, 1)->c, lua_toboolean(L, 2));
  return 0;
}

/* c:select_goal(agent, goal | nil) -> true | false, message: the goal
 * (1-based, add_goal's order; nil: nothing to do) of an agent that waits
 * for one (a "waiting" event with reason "select"). */
static int l_crowd_select_goal(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int goal = lua_isnoneornil(L, 3) ? -1 : check_id(L, 3, sp_crowd_goal_count(c->c), "goal");
  SpError err;
  if (sp_crowd_select_goal(c->c, a, goal, &err) == SP_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_pushstring(L, err.message);
  return 2;
}

static void set_opt_id(lua_State *L, int t, const char *k, long v, long none)
{
  if (v == none)
    lua_pushnil(L);
  else
    lua_pushinteger(L, v + 1);
  lua_setfield(L, t, k);
}

/* c:info(agent, out) -> out with the agent's numbers (ids 1-based, nil
 * when none): phase, goal, plan_length, step, action, steps_done,
 * time_left, x, y, target, target_x, target_y, home, last_reason,
 * last_action. */
static int l_crowd_info(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpAgentInfo in;
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  sp_crowd_inspect(c->c, a, &in);
  lua_pushstring(L, sp_phase_name(in.phase));
  lua_setfield(L, 3, "phase");
  set_opt_id(L, 3, "goal", in.goal, -1);
  lua_pushinteger(L, in.plan_length);
  lua_setfield(L, 3, "plan_length");
  set_opt_id(L, 3, "step", in.step, -1);
  set_opt_id(L, 3, "action", in.action, -1);
  lua_pushinteger(L, in.steps_done);
  lua_setfield(L, 3, "steps_done");
  lua_pushnumber(L, in.time_left);
  lua_setfield(L, 3, "time_left");
  lua_pushinteger(L, in.x + 1);
  lua_setfield(L, 3, "x");
  lua_pushinteger(L, in.y + 1);
  lua_setfield(L, 3, "y");
  set_opt_id(L, 3, "target", in.target == SP_NO_PLACE ? -1 : (long)in.target, -1);
  set_opt_id(L, 3, "target_x", in.target_x, -1);
  set_opt_id(L, 3, "target_y", in.target_y, -1);
  set_opt_id(L, 3, "home", in.home == SP_NO_PLACE ? -1 : (long)in.home, -1);
  if (in.last_reason != SP_REASON_NONE)
    lua_pushstring(L, sp_reason_name(in.last_reason));
  else
    lua_pushnil(L);
  lua_setfield(L, 3, "last_reason");
  set_opt_id(L, 3, "last_action", in.last_action, -1);
  return 1;
}

/* c:position(agent) -> x, y: the agent's cell (1-based) without the table
 * that info fills, for scripts that read many agents per frame. */
static int l_crowd_position(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int x = 0, y = 0;
  sp_crowd_position(c->c, a, &x, &y);
  lua_pushinteger(L, x + 1);
  lua_pushinteger(L, y + 1);
  return 2;
}

/* c:state(agent) -> packed state. */
static int l_crowd_state(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  lua_pushlstring(L, (const char *)sp_crowd_state(c->c, a), (size_t)c->nvars);
  return 1;
}

/* c:plan(agent, out) -> count: out[1..count] = 1-based action ids,
 * out.done[k] = whether step k is done or skipped. */
static int l_crowd_plan(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int len = 0;
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  if (sp_crowd_plan(c->c, a, c->plan, &len) != SP_OK)
    len = 0;
  lua_createtable(L, len, 0);
  for (int k = 0; k < len; k++) {
    SpCrowd *sc = live_crowd(L, 1); /* the table growing is a Lua point */
    lua_pushboolean(L, sp_crowd_step_done(sc, a, k));
    lua_rawseti(L, 4, k + 1);
    lua_pushinteger(L, c->plan[k] + 1); /* Lua-owned: valid after close */
    lua_rawseti(L, 3, k + 1);
  }
  lua_setfield(L, 3, "done");
  lua_pushinteger(L, len);
  return 1;
}

static const char *blocker_kind_name(SpBlockerKind k)
{
  switch (k) {
  case SP_BLOCK_NOTHING_SETS: return "nothing_sets";
  case SP_BLOCK_NO_WAY_OUT: return "no_way_out";
  case SP_BLOCK_ORDER: return "order";
  default: return "none";
  }
}

/* Sets t[k] = v + 1 for an id v >= 0 (1-based ids), nothing otherwise. */
static void set_id(lua_State *L, int t, const char *k, int v)
{
  if (v < 0)
    return;
  lua_pushinteger(L, (lua_Integer)v + 1);
  lua_setfield(L, t, k);
}

/* c:blocker(agent [, at_no_plan]) -> nil when the agent's last failure
 * is no no_plan, else { kind, goal, variable, current, needed, action,
 * link_from, link_to (1-based ids; action nil: the goal itself), message,
 * link (the missing link as a phrase), planner (the planner's own
 * reason) }, judged from the agent's state now (kind "none": that goal
 * has a plan now), or with at_no_plan as recorded at the no_plan (what
 * its event says; no goal). world.lua names the ids (crowd:why). */
static int l_crowd_blocker(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  SpBlocker b;
  int goal = -1;
  SpStatus st;
  if (lua_toboolean(L, 3)) {
    st = sp_crowd_no_plan_blocker(c->c, a, &b);
  } else {
    void *scratch = lua_newuserdatauv(L, sp_crowd_blocker_scratch_size(c->c), 0);
    st = sp_crowd_last_blocker(live_crowd(L, 1), a, scratch, &b, &goal);
  }
  if (st != SP_OK) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 12);
  int t = lua_gettop(L);
  lua_pushstring(L, blocker_kind_name(b.kind));
  lua_setfield(L, t, "kind");
  set_id(L, t, "goal", goal);
  set_id(L, t, "variable", b.variable);
  set_id(L, t, "current", b.current);
  set_id(L, t, "needed", b.needed);
  set_id(L, t, "action", b.action);
  set_id(L, t, "link_from", b.link_from);
  set_id(L, t, "link_to", b.link_to);
  push_formatted(L, &c->domain, CROWD_MT, fmt_blocker, &b);
  lua_setfield(L, t, "message");
  if (b.link_to >= 0) {
    push_formatted(L, &c->domain, CROWD_MT, fmt_link, &b);
    lua_setfield(L, t, "link");
  }
  if (b.failure.code != SP_FAIL_NONE) {
    push_formatted(L, &c->domain, CROWD_MT, fmt_failure, &b.failure);
    lua_setfield(L, t, "planner");
  }
  return 1;
}

/* c:stats([out [, counters]]) -> { agents, idle, walking, acting, ...
 * (one per phase), plans, replans, no_plans, events, steps_finished, events_lost, ms_update,
 * ms_planning, ms_binding, bytes_per_agent, bytes_total }. With counters
 * true, O(1): no phases and no bytes (left as they were in out). */
static int l_crowd_stats(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  SpCrowdStats s;
  int counters = lua_toboolean(L, 3);
  if (counters)
    sp_crowd_counters(c->c, &s);
  else
    sp_crowd_stats(c->c, &s);
  if (lua_istable(L, 2))
    lua_settop(L, 2);
  else {
    lua_settop(L, 1);
    lua_createtable(L, 0, 20);
  }
  set_int_field(L, 2, "agents", s.agents);
  for (int p = SP_PHASE_IDLE; p < SP_PHASE_COUNT && !counters; p++)
    set_int_field(L, 2, sp_phase_name((SpPhase)p), s.phase[p]);
  set_int_field(L, 2, "plans", (size_t)s.plans);
  set_int_field(L, 2, "replans", (size_t)s.replans);
  set_int_field(L, 2, "no_plans", (size_t)s.no_plans);
  set_int_field(L, 2, "events", (size_t)s.events);
  set_int_field(L, 2, "steps_finished", (size_t)s.steps_finished);
  set_int_field(L, 2, "events_lost", (size_t)s.events_lost);
  lua_pushnumber(L, s.ms_update);
  lua_setfield(L, 2, "ms_update");
  lua_pushnumber(L, s.ms_planning);
  lua_setfield(L, 2, "ms_planning");
  lua_pushnumber(L, s.ms_binding);
  lua_setfield(L, 2, "ms_binding");
  if (!counters) {
    set_int_field(L, 2, "bytes_per_agent", s.bytes_per_agent);
    set_int_field(L, 2, "bytes_total", s.bytes_total);
  }
  return 1;
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
  return 0;
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

/* c:target_cell(agent) -> x, y (1-based) of the agent's move or walk
 * target, or nothing. */
static int l_crowd_target_cell(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  size_t a = check_agent(L, c, 2);
  int x, y;
  sp_crowd_target_cell(c->c, a, &x, &y);
  if (x < 0)
    return 0;
  lua_pushinteger(L, x + 1);
  lua_pushinteger(L, y + 1);
  return 2;
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
  luaL_argcheck(L, reach >= 0 && reach <= 65534, 4, "reach must be in 0..65534");
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
  SpStatus st = tc->c ? sp_crowd_set_target_agent(c->c, a, tc->c, h->index, h->gen,
                                                  (int)reach, &err)
                      : SP_ERR_STATE;
  if (st == SP_ERR_MEMORY)
    return crowd_error(L, "chase", &err);
  if (st != SP_OK && gone) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "target_gone");
    return 2;
  }
  lua_pushboolean(L, st == SP_OK);
  if (st == SP_OK)
    return 1;
  lua_pushstring(L, err.message);
  return 2;
}

/* c:size() -> live agents. */
static int l_crowd_size(lua_State *L)
{
  lua_pushinteger(L, (lua_Integer)sp_crowd_size(check_crowd(L, 1)->c));
  return 1;
}

/* c:agent(i) -> the saspu.Agent of agent i (always the same handle). */
static int l_crowd_agent(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  push_agent(L, 1, check_agent(L, c, 2));
  return 1;
}

/* c:handles() -> the table of the handles made so far (agent index ->
 * saspu.Agent): world.lua reads it before asking c:agent. */
static int l_crowd_handles(lua_State *L)
{
  check_crowd(L, 1);
  lua_getiuservalue(L, 1, UV_CROWD_HANDLES);
  return 1;
}

/* c:world(), c:domain() -> the userdata the crowd keeps alive. */
static int l_crowd_world(lua_State *L)
{
  check_crowd(L, 1);
  lua_getiuservalue(L, 1, UV_CROWD_WORLD);
  return 1;
}

static int l_crowd_domain(lua_State *L)
{
  check_crowd(L, 1);
  lua_getiuservalue(L, 1, UV_CROWD_DOMAIN);
  return 1;
}

/* c:is_open() -> whether the crowd is open (for handles and scripts). */
static int l_crowd_is_open(lua_State *L)
{
  lua_pushboolean(L, to_crowd(L, 1)->c != NULL);
  return 1;
}

/* The handles table (uv 3) and script data table (uv 4) of the crowd at
 * `idx`, for agent.c. */
void push_agent(lua_State *L, int crowd, size_t index)
{
  crowd = lua_absindex(L, crowd);
  lua_getiuservalue(L, crowd, UV_CROWD_HANDLES);
  LCrowd *c = lua_touserdata(L, crowd);
  uint32_t gen = sp_crowd_generation(c->c, index);
  int t = lua_rawgeti(L, -1, (lua_Integer)index + 1);
  /* a handle made before a load that changed the slot's generation is
   * not this agent's */
  if (t == LUA_TNIL || ((LAgent *)lua_touserdata(L, -1))->gen != gen) {
    lua_pop(L, 1);
    LAgent *h = lua_newuserdatauv(L, sizeof *h, 1);
    h->index = index;
    h->gen = gen;
    luaL_setmetatable(L, AGENT_MT);
    lua_pushvalue(L, crowd);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)index + 1);
  }
  lua_remove(L, -2);
}

static const luaL_Reg crowd_meta[] = {
  { "__gc", l_crowd_close },
  { "__close", l_crowd_close },
  { "__tostring", l_crowd_tostring },
  { "__len", l_crowd_size },
  { NULL, NULL }
};

static const luaL_Reg crowd_methods[] = {
  { "set_action", l_crowd_set_action },
  { "add_goal", l_crowd_add_goal },
  { "spawn_packed", l_crowd_spawn },
  { "update", l_crowd_update },
  { "set_var", l_crowd_set_var },
  { "set_var_all", l_crowd_set_var_all },
  { "set_state", l_crowd_set_state },
  { "control", l_crowd_control },
  { "set_selector", l_crowd_set_selector },
  { "select_goal", l_crowd_select_goal },
  { "info", l_crowd_info },
  { "position", l_crowd_position },
  { "state", l_crowd_state },
  { "plan", l_crowd_plan },
  { "blocker", l_crowd_blocker },
  { "set_goal_priority", l_crowd_set_goal_priority },
  { "goal_priority", l_crowd_goal_priority },
  { "stats", l_crowd_stats },
  { "size", l_crowd_size },
  { "slots", l_crowd_slots },
  { "alive", l_crowd_alive },
  { "despawn", l_crowd_despawn },
  { "teleport", l_crowd_teleport },
  { "target_cell", l_crowd_target_cell },
  { "chase", l_crowd_chase },
  { "agent", l_crowd_agent },
  { "handles", l_crowd_handles },
  { "world", l_crowd_world },
  { "domain", l_crowd_domain },
  { "is_open", l_crowd_is_open },
  { "close", l_crowd_close },
  { NULL, NULL }
};

/* Registers saspu.Crowd: core.crowd and core.Crowd (the methods table,
 * which lua/saspu/world.lua extends). */
void open_crowd(lua_State *L)
{
  luaL_newmetatable(L, CROWD_MT);   /* module mt */
  luaL_setfuncs(L, crowd_meta, 0);
  luaL_newlib(L, crowd_methods);    /* module mt methods */
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  lua_setfield(L, -3, "Crowd");     /* module mt */
  lua_pop(L, 1);
  lua_pushcfunction(L, l_crowd);
  lua_setfield(L, -2, "crowd");
}

/* The script data table of agent `index` of the crowd at `crowd`,
 * created on first use. */
void push_agent_data(lua_State *L, int crowd, size_t index)
{
  crowd = lua_absindex(L, crowd);
  lua_getiuservalue(L, crowd, UV_CROWD_DATA);
  if (lua_rawgeti(L, -1, (lua_Integer)index + 1) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, (lua_Integer)index + 1);
  }
  lua_remove(L, -2);
}
