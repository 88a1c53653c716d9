/* population_plan.c: saspu.Population's planning and its results: pop:plan on the shared thread pool, status, plans, steps, states, stats. */
#include <string.h>

#include "binding.h"

/* A pool grown past the cores (threads = n, oversubscribe = true) shrinks
 * back to the cores after this many plan calls in a row that wanted no
 * more, so the extra threads do not live on. */
#if !defined(SASPU_POOL_IDLE_CALLS)
#define SASPU_POOL_IDLE_CALLS 64
#endif

/* Reads the options of pop:plan at `arg` (nil or a table) into *o and
 * *threads, and pushes opts.report (or nil). budget_ms: nil or
 * math.huge for no budget; 0 for a budget already spent, which still
 * plans one chunk with a dirty NPC so that every call makes progress. */
static void check_plan_options(lua_State *L, int arg, SpPlanOptions *o,
                               int *threads, int *oversubscribe)
{
  static const char allowed[] =
      "threads, oversubscribe, cache, budget_ms, report";
  int report = 0;
  *threads = 0;
  *oversubscribe = 0;
  if (!lua_isnil(L, arg)) {
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
      if (strcmp(k, "threads") == 0) {
        *threads =
            (int)pop_option_integer(L, arg, "threads", 0, SP_THREAD_POOL_MAX);
      } else if (strcmp(k, "oversubscribe") == 0) {
        if (!lua_isboolean(L, -1))
          luaL_argerror(
              L, arg,
              lua_pushfstring(L, "oversubscribe: expected a boolean, got %s",
                              luaL_typename(L, -1)));
        *oversubscribe = lua_toboolean(L, -1);
      } else if (strcmp(k, "cache") == 0) {
        if (!lua_isboolean(L, -1))
          luaL_argerror(L, arg,
                        lua_pushfstring(L, "cache: expected a boolean, got %s",
                                        luaL_typename(L, -1)));
        o->no_cache = !lua_toboolean(L, -1);
      } else if (strcmp(k, "budget_ms") == 0) {
        int isnum = lua_type(L, -1) == LUA_TNUMBER;
        lua_Number ms = lua_tonumber(L, -1), ns;
        if (!isnum || !(ms >= 0))
          luaL_argerror(
              L, arg,
              lua_pushfstring(
                  L,
                  "budget_ms: expected a number of milliseconds >= 0, got %s",
                  luaL_tolstring(L, -1, NULL)));
        ns = ms * 1e6;
        o->budget_ns = ns >= 1.8e19 ? 0 : ns < 1 ? 1 : (uint64_t)ns;
      } else if (strcmp(k, "report") == 0) {
        if (!lua_istable(L, -1))
          luaL_argerror(L, arg,
                        lua_pushfstring(L, "report: expected a table, got %s",
                                        luaL_typename(L, -1)));
        report = 1;
      } else {
        pop_unknown_option(L, arg, allowed);
      }
      lua_pop(L, 1);
    }
  }
  if (report)
    lua_getfield(L, arg, "report");
  else
    lua_pushnil(L);
}

/* The shared pool, with room for `want` workers: started or grown now.
 * NULL once the state is closing (the population then uses its own). */
static SpThreadPool *shared_pool(lua_State *L, LPool *h, int want)
{
  SpThreadPool *fresh = NULL;
  SpError err;
  int size = want > h->cores ? want : h->cores;
  if (h->closed) return NULL;
  if (h->pool && sp_thread_pool_size(h->pool) >= want) return h->pool;
  if (sp_thread_pool_new(size, core_allocator(L), &fresh, &err) != SP_OK)
    luaL_error(L, "saspu.Population:plan: cannot start %d threads: %s", size,
               err.message);
  sp_thread_pool_free(h->pool);
  h->pool = fresh;
  return fresh;
}

/* Counts a plan call of `threads` workers against the shared pool's
 * extra threads: SASPU_POOL_IDLE_CALLS calls in a row within the cores
 * join the threads past the cores. Allocates nothing. */
static void pool_tidy(LPool *h, int threads)
{
  if (threads > h->cores) {
    h->idle = 0;
    return;
  }
  if (!h->pool || sp_thread_pool_size(h->pool) <= h->cores) return;
  if (++h->idle >= SASPU_POOL_IDLE_CALLS) {
    sp_thread_pool_shrink(h->pool, h->cores);
    h->idle = 0;
  }
}

/* pop:plan([opts]) -> report
 * Plans the dirty NPCs in C on `threads` workers (0: every core; more
 * than the cores only with oversubscribe = true; the workers of all
 * populations come from one shared pool), through the
 * plan cache unless cache = false, until budget_ms is spent. The report
 * { planned, waiting, failures, cache_hits, cache_misses, elapsed_ms,
 * threads } is opts.report when given, so a frame loop that reuses its
 * opts table allocates nothing here. */
static int l_pop_plan(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  LPool *h = lua_touserdata(L, lua_upvalueindex(2));
  SpPlanOptions o;
  SpPlanReport r;
  SpError err;
  int threads, oversubscribe;
  lua_settop(L, 2);
  memset(&o, 0, sizeof o);
  check_plan_options(L, 2, &o, &threads, &oversubscribe);
  if (threads == 0 || (threads > h->cores && !oversubscribe))
    threads = h->cores;
  if (threads > SP_THREAD_POOL_MAX) threads = SP_THREAD_POOL_MAX;
  o.threads = threads;
  pool_tidy(h, threads);
  if (threads > 1) o.pool = shared_pool(L, h, threads);
  if (sp_population_plan(live_pop(L, p), &o, &r, &err) != SP_OK)
    return pop_error(L, "plan", &err);
  if (lua_isnil(L, 3)) {
    lua_createtable(L, 0, 7);
    lua_replace(L, 3);
  }
  set_int_field(L, 3, "planned", r.planned);
  set_int_field(L, 3, "waiting", r.waiting);
  set_int_field(L, 3, "failures", r.failures);
  set_int_field(L, 3, "cache_hits", (size_t)r.cache_hits);
  set_int_field(L, 3, "cache_misses", (size_t)r.cache_misses);
  lua_pushnumber(L, (lua_Number)r.elapsed_ns / 1e6);
  lua_setfield(L, 3, "elapsed_ms");
  set_int_field(L, 3, "threads", (size_t)r.threads);
  lua_settop(L, 3);
  return 1;
}

static const char *npc_status_name(SpNpcStatus s)
{
  switch (s) {
  case SP_NPC_PLANNED: return "planned";
  case SP_NPC_NO_PLAN: return "no_plan";
  default: return "unplanned";
  }
}

/* pop:status(i) -> "unplanned" | "planned" | "no_plan", dirty
 * dirty is true when the NPC's state or goal changed (or it was marked)
 * since its last planning: its result is then about the previous pair. */
static int l_pop_status(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  int dirty = 0;
  SpNpcStatus s = sp_population_status_of(p->pop, i, NULL, &dirty);
  lua_pushstring(L, npc_status_name(s));
  lua_pushboolean(L, dirty);
  return 2;
}

/* Pushes nil and the reason NPC i (0-based) has no plan, as dom:plan's
 * `why`. Not planned yet: code "unplanned". A failure whose NPC has not
 * changed since is planned again on the calling thread for the full
 * record; otherwise only its code is known. */
static int push_no_plan(lua_State *L, LPopulation *p, size_t i)
{
  SpFailureCode code;
  int dirty, why;
  SpNpcStatus s = sp_population_status_of(p->pop, i, &code, &dirty);
  lua_pushnil(L);
  lua_createtable(L, 0, 6);
  why = lua_gettop(L);
  if (s == SP_NPC_UNPLANNED) {
    lua_pushfstring(L, "npc %I has not been planned yet", (lua_Integer)i + 1);
    lua_setfield(L, why, "message");
    lua_pushliteral(L, "unplanned");
    lua_setfield(L, why, "code");
    return 2;
  }
  if (!dirty) {
    SpFailure f;
    SpError err;
    SpStatus st = sp_population_explain(live_pop(L, p), i, &f, &err);
    if (st == SP_NO_PLAN) {
      /* Lua-owned copies: the population may be closed at a Lua point */
      size_t m = (size_t)p->nvars;
      SpValue *copy = lua_newuserdatauv(L, 2 * m, 0);
      SpPopulation *pp = live_pop(L, p);
      memcpy(copy, sp_population_state(pp, i), m);
      memcpy(copy + m, sp_population_goal(pp, i), m);
      lua_getiuservalue(L, 1, UV_POP_DOMAIN);
      fill_why_at(L, lua_gettop(L), &p->domain, POPULATION_MT, why, &f);
      fill_blocker_at(L, lua_gettop(L), &p->domain, POPULATION_MT, why, copy,
                      copy + m, &f);
      lua_pop(L, 2);
      return 2;
    }
    if (st != SP_OK) return pop_error(L, "plan_of", &err);
  }
  lua_pushfstring(
      L,
      "npc %I had no plan (%s) for the state and goal it was planned "
      "with; they have changed since",
      (lua_Integer)i + 1, failure_code_name(code));
  lua_setfield(L, why, "message");
  lua_pushstring(L, failure_code_name(code));
  lua_setfield(L, why, "code");
  return 2;
}

/* Stores NPC i's plan in the table at `out` (created when nil) as action
 * names or 1-based ids, clears the entries after it, and returns its
 * length; -1 (with nil, why pushed) when the NPC has no plan. */
static int push_npc_plan(lua_State *L, LPopulation *p, size_t i, int out,
                         int ids)
{
  lua_Integer old, k;
  int len = 0, names = 0;
  if (sp_population_plan_of(p->pop, i, p->plan, &len) != SP_OK) {
    if (!lua_isnil(L, out)) /* no stale plan a script could run */
      clear_array(L, out, 1, (lua_Integer)lua_rawlen(L, out));
    push_no_plan(L, p, i);
    return -1;
  }
  if (lua_isnil(L, out)) {
    lua_createtable(L, len, 0);
    lua_replace(L, out);
  }
  if (!ids) {
    lua_getiuservalue(L, 1, UV_POP_ACTIONS);
    names = lua_gettop(L);
  }
  old = (lua_Integer)lua_rawlen(L, out);
  for (k = 0; k < len; k++) {
    if (ids)
      lua_pushinteger(L, p->plan[k] + 1);
    else
      lua_rawgeti(L, names, p->plan[k] + 1);
    lua_rawseti(L, out, k + 1);
  }
  clear_array(L, out, len + 1, old);
  if (names) lua_pop(L, 1);
  return len;
}

/* pop:plan_of(i [, out]) -> { action names } | nil, why
 * NPC i's plan from its last planning (see pop:status for whether it is
 * still current). With `out`, the names go there and later entries are
 * cleared: nothing is allocated. */
static int l_pop_plan_of(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  lua_settop(L, 3);
  if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  if (push_npc_plan(L, p, i, 3, 0) < 0) return 2;
  lua_settop(L, 3);
  return 1;
}

/* pop:plan_ids_of(i [, out]) -> count, out | nil, why
 * The same with 1-based action ids, as dom:plan_ids gives. */
static int l_pop_plan_ids_of(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  int len;
  lua_settop(L, 3);
  if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  len = push_npc_plan(L, p, i, 3, 1);
  if (len < 0) return 2;
  lua_settop(L, 3);
  lua_pushinteger(L, len);
  lua_insert(L, 3);
  return 2;
}

/* The iterator of pop:steps. Upvalues: the population metatable, the
 * NPC (0-based) and the action names; control: the last step given. */
static int pop_step(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = (size_t)lua_tointeger(L, lua_upvalueindex(2));
  lua_Integer k = luaL_checkinteger(L, 2);
  int id = k >= 0 && k < SP_MAX_ACTIONS
               ? sp_population_plan_step(p->pop, i, (int)k)
               : -1;
  if (id < 0) return 0;
  lua_pushinteger(L, k + 1);
  lua_rawgeti(L, lua_upvalueindex(3), id + 1);
  return 2;
}

/* pop:steps(i) -> iterator: for k, name in pop:steps(i) do ... end over
 * NPC i's plan; no step when it has none. */
static int l_pop_steps(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushinteger(L, (lua_Integer)i);
  lua_getiuservalue(L, 1, UV_POP_ACTIONS);
  lua_pushcclosure(L, pop_step, 3);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

/* pop:state(i), pop:goal(i) -> NPC i's packed state or goal (dom:decode
 * reads it). */
static int l_pop_state(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  lua_pushlstring(L, (const char *)sp_population_state(p->pop, i),
                  (size_t)p->nvars);
  return 1;
}

static int l_pop_goal(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  lua_pushlstring(L, (const char *)sp_population_goal(p->pop, i),
                  (size_t)p->nvars);
  return 1;
}

/* pop:stats([out]) -> counts and memory of the population (O(n): NPCs
 * are counted by status). */
static int l_pop_stats(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  SpPopulationStats s;
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) {
    lua_createtable(L, 0, 16);
    lua_replace(L, 2);
  }
  luaL_checktype(L, 2, LUA_TTABLE);
  sp_population_stats(live_pop(L, p), &s);
  set_int_field(L, 2, "npcs", s.npcs);
  set_int_field(L, 2, "dirty", s.dirty);
  set_int_field(L, 2, "planned", s.planned);
  set_int_field(L, 2, "no_plan", s.no_plan);
  set_int_field(L, 2, "unplanned", s.unplanned);
  set_int_field(L, 2, "in_cache", s.in_cache);
  set_int_field(L, 2, "cache_hits", (size_t)s.cache_hits);
  set_int_field(L, 2, "cache_misses", (size_t)s.cache_misses);
  set_int_field(L, 2, "cache_rejected", (size_t)s.cache_rejected);
  set_int_field(L, 2, "cache_entries", s.cache_entries);
  set_int_field(L, 2, "cache_capacity", s.cache_capacity);
  set_int_field(L, 2, "workers", (size_t)s.workers);
  set_int_field(L, 2, "bytes_per_npc", s.bytes_per_npc);
  set_int_field(L, 2, "bytes_npcs", s.bytes_npcs);
  set_int_field(L, 2, "bytes_workers", s.bytes_workers);
  set_int_field(L, 2, "bytes_total", s.bytes_total);
  set_int_field(L, 2, "bytes_resident", s.bytes_resident);
  return 1;
}

/* pop:clear_cache(): empties the plan caches; NPCs keep their plans. */
static int l_pop_clear_cache(lua_State *L)
{
  sp_population_cache_clear(check_population(L, 1)->pop);
  return 0;
}

static const luaL_Reg plan_methods[] = {{"plan", l_pop_plan},
                                        {"status", l_pop_status},
                                        {"plan_of", l_pop_plan_of},
                                        {"plan_ids_of", l_pop_plan_ids_of},
                                        {"steps", l_pop_steps},
                                        {"state", l_pop_state},
                                        {"goal", l_pop_goal},
                                        {"stats", l_pop_stats},
                                        {"clear_cache", l_pop_clear_cache},
                                        {NULL, NULL}};

void open_population_plan(lua_State *L) { luaL_setfuncs(L, plan_methods, 2); }
