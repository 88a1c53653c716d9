/* crowd.c: saspu.Crowd: the agents of one domain in a world, updated in C: the userdata, its options, the behaviour set-up (actions, goals) and the update; crowd_agents.c, crowd_inspect.c, crowd_events.c and crowd_sense.c add the other methods. */
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "saspu_threads.h"

/* Ids cross this boundary 1-based (agents, actions, variables, values,
 * goals, places); every conversion happens in the crowd*.c files. Packed
 * states are strings of one byte per variable (0-based value index), 0xFF
 * meaning "any" in goal conditions. */

LCrowd *to_crowd(lua_State *L, int idx)
{
  return luaL_checkudata(L, idx, CROWD_MT);
}

/* The open crowd at `idx` whose world (and its grid) is still open. */
LCrowd *check_crowd(lua_State *L, int idx)
{
  LCrowd *c = to_crowd(L, idx);
  if (!c->c)
    luaL_error(L,
               "saspu.Crowd: closed"); /* the caller's line, no method name */
  if (sp_world_grid(c->world->w)) {
    lua_getiuservalue(L, idx, UV_CROWD_WORLD);
    lua_getiuservalue(L, -1, 1); /* the world's grid */
    int open = grid_of(L, -1) != NULL;
    lua_pop(L, 2);
    if (!open) luaL_error(L, "saspu.Crowd: its world's grid is closed");
  }
  return c;
}

/* The crowd at `idx` again after a Lua point (binding.h): raises
 * "saspu.Crowd was closed during the call" when it, or its world's grid,
 * was closed meanwhile. */
SpCrowd *live_crowd(lua_State *L, int idx)
{
  LCrowd *c = lua_touserdata(L, idx);
  if (!c->c) closed_during_call(L, CROWD_MT);
  if (sp_world_grid(c->world->w)) {
    lua_getiuservalue(L, idx, UV_CROWD_WORLD);
    lua_getiuservalue(L, -1, 1);
    int open = grid_of(L, -1) != NULL;
    lua_pop(L, 2);
    if (!open) closed_during_call(L, GRID_MT);
  }
  return c->c;
}

int crowd_error(lua_State *L, const char *fname, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY)
    return luaL_error(L, "saspu.Crowd:%s: not enough memory", fname);
  return luaL_error(L, "saspu.Crowd:%s: %s", fname, err->message);
}

/* Argument `arg`: a live agent of slot 1..slots; returns it 0-based. */
size_t check_agent(lua_State *L, const LCrowd *c, int arg)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  size_t n = sp_crowd_slots(c->c);
  if (i < 1 || (lua_Unsigned)i > n)
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "agent %I is outside 1..%I", i, (lua_Integer)n));
  if (!sp_crowd_alive(c->c, (size_t)(i - 1)))
    luaL_argerror(L, arg, lua_pushfstring(L, "agent %I was despawned", i));
  return (size_t)(i - 1);
}

/* Argument `arg`: a 1-based id in 1..n; returns it 0-based. */
int check_id(lua_State *L, int arg, int n, const char *what)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  if (i < 1 || i > n)
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "%s %I is outside 1..%d", what, i, n));
  return (int)(i - 1);
}

/* Argument `arg`: a packed state of nvars bytes (0xFF allowed when `any`)
 * of the crowd at index 1 (a number converted to a string is a Lua point:
 * the crowd is checked again after it). */
const SpValue *check_packed(lua_State *L, const LCrowd *c, int arg, int any)
{
  size_t len;
  const char *s = luaL_checklstring(L, arg, &len);
  live_crowd(L, 1);
  if (len != (size_t)c->nvars)
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "a packed state has %d bytes, got %d",
                                  c->nvars, (int)len));
  for (int v = 0; v < c->nvars; v++) {
    int x = (uint8_t)s[v];
    if ((x != SP_ANY || !any) && x >= sp_variable_value_count(c->domain, v))
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "byte %d ('%s') is %d, out of range",
                                    v + 1, sp_variable_name(c->domain, v), x));
  }
  return (const SpValue *)s;
}

/* Bounds of the options that have none of their own: a seed exact in a
 * double; speeds and times far beyond any game's, finite as floats. */
#define OPT_MAX_SEED  9007199254740992.0 /* 2^53 */
#define OPT_MAX_FLOAT 1e9

/* An option in lo..hi (NaN and infinities fail both tests), checked
 * before any cast to a C integer or float can overflow. */
static double opt_number_field(lua_State *L, int t, const char *k, double dflt,
                               double lo, double hi)
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
      luaL_error(L,
                 "world:crowd: options.movement must be \"grid\" or "
                 "\"engine\", got %s",
                 m ? shown_name(L, -1) : luaL_typename(L, -1));
    engine = m[0] == 'e';
  }
  lua_pop(L, 1);
  return engine;
}

/* saspu.core.crowd(world, dom [, opts]) -> saspu.Crowd. opts: capacity
 * (default 1024), threads (0: every core; default: the world's pool when
 * it has one, else 1), seed, speed, cooldown, retry, cache_capacity,
 * parallel_min, goal_budget, movement ("grid" | "engine"), wake_ahead (ms
 * the crowd's own threads wake before a frame is due; 0: off). */
static void crowd_close(LCrowd *c);

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
    o.threads =
        (int)opt_number_field(L, 3, "threads", 1, 0, SP_THREAD_POOL_MAX);
    o.seed = (uint64_t)opt_number_field(L, 3, "seed", 0, 0, OPT_MAX_SEED);
    o.speed = (float)opt_number_field(L, 3, "speed", 0, 0, OPT_MAX_FLOAT);
    o.cooldown = (float)opt_number_field(L, 3, "cooldown", 0, 0, OPT_MAX_FLOAT);
    o.retry = (float)opt_number_field(L, 3, "retry", 0, 0, OPT_MAX_FLOAT);
    o.cache_capacity = (uint32_t)opt_number_field(L, 3, "cache_capacity", 0, 0,
                                                  SP_PLAN_CACHE_MAX_CAPACITY);
    o.parallel_min = (uint32_t)opt_number_field(L, 3, "parallel_min", 0, 0,
                                                (double)SP_POPULATION_MAX_NPCS);
    o.goal_budget = (uint32_t)opt_number_field(L, 3, "goal_budget", 0, 0,
                                               (double)SP_POPULATION_MAX_NPCS);
    o.engine_moves = opt_movement(L, 3);
    if (lua_getfield(L, 3, "wake_ahead") != LUA_TNIL && !own_threads)
      luaL_error(L, "world:crowd: options.wake_ahead sets the crowd's own "
                    "threads: name threads too, or set wake_ahead in "
                    "saspu.world");
    lua_pop(L, 1);
    double ahead = opt_number_field(L, 3, "wake_ahead", -2.0, 0.0, 1000.0);
    o.wake_ahead_ms = ahead == -2.0 ? 0.0 : ahead == 0.0 ? -1.0 : ahead;
  }
  if (!d->domain) luaL_argerror(L, 2, "saspu.Domain is closed");
  int na =
      sp_domain_action_count(d->domain); /* a closed domain keeps its count */
  LCrowd *c = lua_newuserdatauv(
      L, sizeof *c + (size_t)(na ? na : 1) * sizeof(uint16_t), UV_CROWD_COUNT);
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
  if (!d->domain) closed_during_call(L, DOMAIN_MT);
  if (!w->w || w->closed) closed_during_call(L, WORLD_MT);
  check_world(L, 1); /* and its grid */
  if (!own_threads && w->pool) {
    o.pool = w->pool;
    o.threads = sp_thread_pool_size(w->pool);
  }
  if (sp_crowd_new(w->w, d->domain, &o, core_allocator(L), &sc, &err) != SP_OK)
    return crowd_error(L, "new", &err); /* nothing was allocated */
  c->c = sc;
  c->world = w;
  /* without its own threads it updates with the world's other such crowds
   * (on the world's pool, or with none on the calling thread) */
  c->on_world_pool = !own_threads;
  w->users++;
  w->close_crowd = crowd_close; /* world:close closes it */
  c->next_open = w->crowds;
  if (w->crowds) w->crowds->prev_open = c;
  w->crowds = c;
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

/* Closes the crowd (c:close(), and world:close() for each of its
 * crowds): out of its world at once (its places free, chases toward it
 * fail, sensors of it read "not sensed"), then freed unless an open crowd
 * still senses it. Idempotent. */
static void crowd_close(LCrowd *c)
{
  if (c->c) {
    sp_crowd_retire(c->c); /* places, chases and sensors let go of it */
    c->held = c->c;
    c->c = NULL;
    LWorld *w = c->world; /* set while open */
    if (c->prev_open)
      c->prev_open->next_open = c->next_open;
    else
      w->crowds = c->next_open;
    if (c->next_open) c->next_open->prev_open = c->prev_open;
    c->next_open = c->prev_open = NULL;
    for (int k = 0; k < c->sense_count;
         k++) { /* a crowd waiting for this one */
      LCrowd *s = c->senses[k];
      if (--s->sensed_by == 0 && !s->c) crowd_release(s);
    }
    c->sense_count = 0;
  }
  if (c->sensed_by == 0) /* else the last crowd sensing it frees it */
    crowd_release(c);
}

/* __gc, __close and c:close(): crowd_close. Agent handles then raise
 * "saspu.Agent: closed". */
static int l_crowd_close(lua_State *L)
{
  crowd_close(to_crowd(L, 1));
  return 0;
}

static int l_crowd_tostring(lua_State *L)
{
  LCrowd *c = to_crowd(L, 1);
  if (!c->c)
    lua_pushliteral(L, "saspu.Crowd (closed)");
  else
    lua_pushfstring(L, "saspu.Crowd '%s' (%I agents, %d goals)",
                    sp_domain_name(c->domain), (lua_Integer)sp_crowd_size(c->c),
                    sp_crowd_goal_count(c->c));
  return 1;
}

/* c:set_action(action, min, max, bind, arg, interruptible, scripted,
 * has_hook [, max_failures, give_up_for]) (the back-off; nil: 3 and 30
 * s). bind: "none" | "place" (arg: place id) | "kind" (arg: kind
 * name) | "home" | "script". */
static int l_crowd_set_action(lua_State *L)
{
  static const char *const binds[] = {"none", "place",  "kind",
                                      "home", "script", NULL};
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
    b.place =
        (uint32_t)check_id(L, 6, (int)sp_world_place_count(w->w), "place");
  } else if (b.bind == SP_BIND_KIND) {
    b.kind = sp_world_find_kind(c->world->w, kind);
    luaL_argcheck(L, b.kind >= 0, 6, "no place of that kind");
  }
  b.interruptible = lua_toboolean(L, 7);
  b.scripted = lua_toboolean(L, 8);
  b.has_hook = lua_toboolean(L, 9);
  lua_Integer most = luaL_optinteger(L, 10, 0);
  luaL_argcheck(L, most >= 0 && most <= 255, 10,
                "max_failures must be 0..255 (0: 3)");
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
  luaL_argcheck(L, prio >= INT32_MIN && prio <= INT32_MAX, 3,
                "priority out of range");
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
  luaL_argcheck(L, goal >= 1 && goal <= sp_crowd_goal_count(c->c), 2,
                "no such goal");
  luaL_argcheck(L, prio >= INT32_MIN && prio <= INT32_MAX, 3,
                "priority out of range");
  if (sp_crowd_set_priority(c->c, (int)goal - 1, (int)prio, &err) != SP_OK)
    return crowd_error(L, "set_priority", &err);
  return 0;
}

/* c:goal_priority(goal) -> the priority of goal (1-based) now. */
static int l_crowd_goal_priority(lua_State *L)
{
  LCrowd *c = check_crowd(L, 1);
  lua_Integer goal = luaL_checkinteger(L, 2);
  luaL_argcheck(L, goal >= 1 && goal <= sp_crowd_goal_count(c->c), 2,
                "no such goal");
  lua_pushinteger(L, sp_crowd_priority(c->c, (int)goal - 1));
  return 1;
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

/* c:set_selector(on): goals chosen by the caller (c:select_goal). */
static int l_crowd_set_selector(lua_State *L)
{
  sp_crowd_set_selector(check_crowd(L, 1)->c, lua_toboolean(L, 2));
  return 0;
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

static const luaL_Reg crowd_meta[] = {{"__gc", l_crowd_close},
                                      {"__close", l_crowd_close},
                                      {"__tostring", l_crowd_tostring},
                                      {"__len", l_crowd_size},
                                      {NULL, NULL}};

static const luaL_Reg crowd_methods[] = {
    {"set_action", l_crowd_set_action},
    {"add_goal", l_crowd_add_goal},
    {"update", l_crowd_update},
    {"set_selector", l_crowd_set_selector},
    {"set_goal_priority", l_crowd_set_goal_priority},
    {"goal_priority", l_crowd_goal_priority},
    {"size", l_crowd_size},
    {"agent", l_crowd_agent},
    {"handles", l_crowd_handles},
    {"world", l_crowd_world},
    {"domain", l_crowd_domain},
    {"is_open", l_crowd_is_open},
    {"close", l_crowd_close},
    {NULL, NULL}};

/* Registers saspu.Crowd: core.crowd and core.Crowd (the methods table,
 * which lua/saspu/world.lua extends). */
void open_crowd(lua_State *L)
{
  luaL_newmetatable(L, CROWD_MT); /* module mt */
  luaL_setfuncs(L, crowd_meta, 0);
  luaL_newlib(L, crowd_methods); /* module mt methods */
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  lua_setfield(L, -3, "Crowd"); /* module mt */
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
