/* population.c: saspu.Population: many NPCs of one domain, their states and goals set in bulk, planned in C in batches. */
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* saspu.Population: many NPCs of one domain, planned in batches      */
/* ================================================================== */

/* NPC indices are 1-based in Lua (1..n) and 0-based in the core: every
 * conversion happens in check_npc and check_range. Planning itself runs
 * in C: pop:plan never calls back into Lua. */

/* Checks that NPCs first .. first+count-1 (argument `arg` is first) lie
 * in 1..n; returns first 0-based. An empty range may start at n + 1. */
static size_t check_range(lua_State *L, const LPopulation *p, int arg,
                          lua_Integer first, size_t count)
{
  if (first < 1 || (lua_Unsigned)(first - 1) > p->n ||
      count > p->n - (size_t)(first - 1)) {
    /* the last NPC as a number only when it is one (no overflow shown) */
    if (count == 0 ||
        (count <= (size_t)LUA_MAXINTEGER &&
         (first < 1 || count - 1 <= (size_t)(LUA_MAXINTEGER - first))))
      luaL_argerror(
          L, arg,
          lua_pushfstring(L, "npcs %I..%I are outside 1..%I", first,
                          (lua_Integer)((lua_Unsigned)first + count - 1),
                          (lua_Integer)p->n));
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "%I NPCs from npc %I are outside 1..%I",
                                  (lua_Integer)count, first,
                                  (lua_Integer)p->n));
  }
  return (size_t)(first - 1);
}

/* Raises the core's refusal of packed argument `arg` with 1-based
 * positions: which byte of the string, which NPC, which variable. `first`
 * is the 0-based NPC of the string's first state; `all` when the string
 * is one state meant for every NPC. */
static int packed_error(lua_State *L, const LPopulation *p, int arg,
                        size_t first, int all, const char *fname,
                        const SpError *err)
{
  if (err->code == SP_E_STATE_VALUE && err->variable >= 0 &&
      err->variable < p->nvars) {
    const char *var = sp_variable_name(p->domain, err->variable);
    int count = sp_variable_value_count(p->domain, err->variable);
    if (all)
      return luaL_argerror(
          L, arg,
          lua_pushfstring(
              L, "byte %d ('%s') is %d, out of range (%d values: 0..%d)",
              err->variable + 1, var, err->value, count, count - 1));
    return luaL_argerror(
        L, arg,
        lua_pushfstring(
            L, "byte %I (npc %I, '%s') is %d, out of range (%d values: 0..%d)",
            (lua_Integer)(((size_t)err->index - first) * (size_t)p->nvars) +
                err->variable + 1,
            (lua_Integer)err->index + 1, var, err->value, count, count - 1));
  }
  return pop_error(L, fname, err);
}

/* Reads argument `arg` of a population method as a state into `out`:
 *   - a name: of a start (total) or, with `is_goal`, of a goal (partial);
 *   - a packed state of nvars bytes, as dom:encode makes (total; a
 *     goal's byte 255 leaves its variable free);
 *   - a table { var = value }: total for a start, partial for a goal.
 * Names are looked up first, so a name is never taken for bytes. Sets
 * p->mask to the goal's GOAL_* marks (every one GOAL_SET for a start).
 * `dom` is the stack index of the domain userdata and `n` its names;
 * `where` prefixes errors inside a table. */
static void pop_read_state(lua_State *L, LPopulation *p, int dom,
                           const Names *n, int arg, int is_goal, SpValue *out,
                           const char *where)
{
  int nv = p->nvars, v, t = lua_type(L, arg);
  memset(p->mask, GOAL_SET, (size_t)nv);
  live_pop(L, p); /* p->domain lives as long as the population */
  if (t == LUA_TSTRING) {
    size_t len;
    const char *s = lua_tolstring(L, arg, &len);
    push_uv(L, dom, is_goal ? UV_GOALS : UV_STARTS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) == LUA_TSTRING) {
      if (is_goal)
        read_named_goal(lua_tostring(L, -1), nv, out, p->mask);
      else
        memcpy(out, lua_tostring(L, -1), (size_t)nv);
    } else if (len == (size_t)nv) {
      for (v = 0; v < nv; v++) {
        int x = (unsigned char)s[v],
            count = sp_variable_value_count(p->domain, v);
        if (is_goal && x == SP_ANY)
          p->mask[v] = GOAL_FREE;
        else if (x >= count)
          luaL_argerror(L, arg,
                        lua_pushfstring(L,
                                        "packed %s: byte %d ('%s') is %d, out "
                                        "of range (%d values: 0..%d)",
                                        is_goal ? "goal" : "start", v + 1,
                                        sp_variable_name(p->domain, v), x,
                                        count, count - 1));
        out[v] = (SpValue)x;
      }
    } else {
      push_key_list(L, lua_gettop(L) - 1);
      shown_name(L, arg);
      luaL_argerror(
          L, arg,
          lua_pushfstring(
              L, "unknown %s %s (%s), and not a packed state of %d bytes",
              is_goal ? "goal" : "start", lua_tostring(L, -1),
              lua_tostring(L, -2), nv));
    }
    lua_pop(L, 2);
  } else if (t == LUA_TTABLE) {
    read_state(L, n, arg, nv, out, is_goal ? p->mask : NULL, where);
  } else {
    luaL_typeerror(L, arg,
                   is_goal ? "goal name, packed state or table"
                           : "start name, packed state or table");
  }
}

/* saspu.population(dom, n [, opts]) -> saspu.Population of n NPCs of the
 * domain, every state and goal the first value of each variable, all
 * dirty and unplanned. opts: { cache_capacity = entries per worker cache
 * (0: the default) }. Upvalues: the population metatable and the pool. */
static int l_population(lua_State *L)
{
  LDomain *d = luaL_checkudata(L, 1, DOMAIN_MT);
  lua_Integer n = luaL_checkinteger(L, 2), capacity = 0;
  LPopulation *p;
  SpPopulation *pop = NULL;
  SpError err;
  size_t scratch;
  int nv, na;
  luaL_argcheck(L, d->domain != NULL, 1, "saspu.Domain is closed");
  luaL_argcheck(L, n >= 0 && (lua_Unsigned)n <= SP_POPULATION_MAX_NPCS, 2,
                lua_pushfstring(L, "n = %I is outside 0..%I", n,
                                (lua_Integer)SP_POPULATION_MAX_NPCS));
  lua_settop(L, 3);
  if (!lua_isnil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 3)) {
      if (lua_type(L, -2) == LUA_TSTRING &&
          strcmp(lua_tostring(L, -2), "cache_capacity") == 0)
        capacity = pop_option_integer(L, 3, "cache_capacity", 0,
                                      SP_PLAN_CACHE_MAX_CAPACITY);
      else
        pop_unknown_option(L, 3, "cache_capacity");
      lua_pop(L, 1);
    }
  }
  nv = d->nvars;
  na = d->nactions;
  /* the 16-bit plan buffer first, for its alignment */
  scratch = (size_t)(na ? na : 1) * sizeof(uint16_t) + 4 * (size_t)nv;
  p = lua_newuserdatauv(L, sizeof *p + scratch, UV_POP_COUNT);
  memset(p, 0, sizeof *p);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  p->plan = (uint16_t *)(p + 1);
  p->s0 = (SpValue *)(p->plan + (na ? na : 1));
  p->goal = p->s0 + nv;
  p->row = p->goal + nv;
  p->mask = p->row + nv;
  p->nvars = nv;
  p->nactions = na;
  p->n = (size_t)n;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, UV_POP_DOMAIN);
  push_uv(L, 1, UV_ACTION_NAMES);
  lua_setiuservalue(L, -2, UV_POP_ACTIONS);
  /* the allocations above were Lua points: fetch the domain again */
  if (sp_population_new(live_domain(L, d), (size_t)n, core_allocator(L), &pop,
                        &err) != SP_OK)
    return core_error(L, "saspu.population", &err); /* nothing was allocated */
  p->pop = pop;
  p->domain = d->domain;
  p->owner = d;
  d->users++;
  if (capacity > 0 &&
      sp_population_set_cache_capacity(pop, (uint32_t)capacity, &err) != SP_OK)
    return core_error(L, "saspu.population", &err);
  /* states, goals, status, handle and plan slot of every NPC */
  account_c_memory(L, &p->held,
                   (size_t)n *
                       (2 * (size_t)nv + 5 + (size_t)na * (na > 255 ? 2 : 1)));
  return 1;
}

/* __gc and __close: frees the population's arrays, caches and workers,
 * and lets go of its domain (freeing the compiled domain when it was
 * closed and this was its last population). Idempotent. */
static int l_pop_close(lua_State *L)
{
  LPopulation *p = to_population(L, 1);
  if (p->pop) {
    sp_population_free(p->pop);
    p->pop = NULL;
  }
  release_c_memory(L, &p->held);
  if (p->owner) {
    LDomain *d = p->owner;
    p->owner = NULL;
    p->domain = NULL;
    domain_release(d);
  }
  return 0;
}

static int l_pop_tostring(lua_State *L)
{
  LPopulation *p = to_population(L, 1);
  if (!p->pop)
    lua_pushliteral(L, "saspu.Population (closed)");
  else
    lua_pushfstring(L, "saspu.Population '%s' (%I NPC%s)",
                    sp_domain_name(p->domain), (lua_Integer)p->n,
                    p->n == 1 ? "" : "s");
  return 1;
}

/* pop:size() and #pop -> n */
static int l_pop_size(lua_State *L)
{
  lua_pushinteger(L, (lua_Integer)check_population(L, 1)->n);
  return 1;
}

/* pop:domain() -> the saspu.Domain (it may have been closed since). */
static int l_pop_domain(lua_State *L)
{
  check_population(L, 1);
  lua_getiuservalue(L, 1, UV_POP_DOMAIN);
  return 1;
}

/* pop:set(i, start, goal [, opts]): NPC i's state and goal; nil keeps
 * the current one. A goal is a condition: the variables it leaves out are
 * free; with opts { keep = true } they, and those given as saspu.KEEP,
 * keep the start given or else the NPC's current state. Everything is
 * read and checked before the NPC changes; it becomes dirty when
 * something changed. */
static int l_pop_set(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  int has_start, has_goal, dom, keep;
  Names n;
  SpError err;
  lua_settop(L, 5);
  keep = goal_options(L, 5);
  has_start = !lua_isnil(L, 3);
  has_goal = !lua_isnil(L, 4);
  lua_getiuservalue(L, 1, UV_POP_DOMAIN);
  dom = lua_gettop(L);
  push_names_at(L, dom, &n);
  if (has_start)
    pop_read_state(L, p, dom, &n, 3, 0, p->s0, "saspu.Population:set: start");
  else
    memcpy(p->s0, sp_population_state(p->pop, i), (size_t)p->nvars);
  if (has_goal) {
    pop_read_state(L, p, dom, &n, 4, 1, p->goal, "saspu.Population:set: goal");
    resolve_goal(p->goal, p->mask, p->s0, p->nvars, keep);
  }
  if (sp_population_set(live_pop(L, p), i, has_start ? p->s0 : NULL,
                        has_goal ? p->goal : NULL, &err) != SP_OK)
    return pop_error(L, "set", &err);
  return 0;
}

/* pop:set_states(first, packed) and pop:set_goals(first, packed): NPCs
 * first .. first + #packed / m - 1 from m bytes each (dom:encode's
 * states, concatenated). The whole string is checked before anything
 * changes. */
static int set_rows(lua_State *L, int goals)
{
  LPopulation *p = check_population(L, 1);
  lua_Integer first = luaL_checkinteger(L, 2);
  size_t len, count, first0;
  const char *s = luaL_checklstring(L, 3, &len);
  const char *fname = goals ? "set_goals" : "set_states";
  SpError err;
  SpStatus st;
  if (len % (size_t)p->nvars != 0)
    luaL_argerror(L, 3,
                  lua_pushfstring(
                      L, "%I bytes is not a whole number of states of %d bytes",
                      (lua_Integer)len, p->nvars));
  count = len / (size_t)p->nvars;
  first0 = check_range(L, p, 2, first, count);
  if (goals)
    st = sp_population_set_goals(live_pop(L, p), first0, count,
                                 (const SpValue *)s, &err);
  else
    st = sp_population_set_states(live_pop(L, p), first0, count,
                                  (const SpValue *)s, &err);
  if (st != SP_OK) return packed_error(L, p, 3, first0, 0, fname, &err);
  return 0;
}

static int l_pop_set_states(lua_State *L) { return set_rows(L, 0); }

static int l_pop_set_goals(lua_State *L) { return set_rows(L, 1); }

/* pop:set_goal_all(goal [, opts]): one goal for every NPC (a goal name,
 * a packed state or a table), free where it leaves variables out. The
 * variables it keeps (saspu.KEEP, or left out with opts { keep = true })
 * take each NPC's current state value. */
static int l_pop_set_goal_all(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i;
  int dom, keep;
  Names n;
  SpError err;
  lua_settop(L, 3);
  keep = goal_options(L, 3);
  lua_getiuservalue(L, 1, UV_POP_DOMAIN);
  dom = lua_gettop(L);
  push_names_at(L, dom, &n);
  pop_read_state(L, p, dom, &n, 2, 1, p->goal,
                 "saspu.Population:set_goal_all: goal");
  live_pop(L, p);
  if (!goal_needs_start(p->mask, p->nvars, keep)) {
    resolve_goal(p->goal, p->mask, NULL, p->nvars, 0); /* reads no start */
    if (sp_population_set_goal_all(p->pop, p->goal, &err) != SP_OK)
      return packed_error(L, p, 2, 0, 1, "set_goal_all", &err);
    return 0;
  }
  for (i = 0; i < p->n; i++) {
    memcpy(p->row, p->goal, (size_t)p->nvars);
    resolve_goal(p->row, p->mask, sp_population_state(p->pop, i), p->nvars,
                 keep);
    if (sp_population_set(p->pop, i, NULL, p->row, &err) != SP_OK)
      return pop_error(L, "set_goal_all",
                       &err); /* checked above: not reached */
  }
  return 0;
}

/* pop:mark_dirty([first [, count]]): NPCs first .. first+count-1 (count
 * 1 by default; every NPC without arguments) replan at the next plan
 * call although nothing changed. */
static int l_pop_mark_dirty(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t first0 = 0, count = p->n;
  SpError err;
  if (!lua_isnoneornil(L, 2)) {
    lua_Integer first = luaL_checkinteger(L, 2), c = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, c >= 0, 3,
                  lua_pushfstring(L, "count = %I is negative", c));
    count = (size_t)c;
    first0 = check_range(L, p, 2, first, count);
  }
  if (sp_population_mark_dirty(live_pop(L, p), first0, count, &err) != SP_OK)
    return pop_error(L, "mark_dirty", &err);
  return 0;
}

/* __gc of the shared pool: joins its threads. */
static int l_pool_gc(lua_State *L)
{
  LPool *h = luaL_checkudata(L, 1, POOL_MT);
  sp_thread_pool_free(h->pool);
  h->pool = NULL;
  h->closed = 1;
  return 0;
}

static const luaL_Reg population_meta[] = {{"__gc", l_pop_close},
                                           {"__close", l_pop_close},
                                           {"__tostring", l_pop_tostring},
                                           {"__len", l_pop_size},
                                           {NULL, NULL}};

static const luaL_Reg population_methods[] = {
    {"size", l_pop_size},
    {"domain", l_pop_domain},
    {"set", l_pop_set},
    {"set_states", l_pop_set_states},
    {"set_goals", l_pop_set_goals},
    {"set_goal_all", l_pop_set_goal_all},
    {"mark_dirty", l_pop_mark_dirty},
    {"close", l_pop_close},
    {NULL, NULL}};

/* Registers the saspu.Population metatable and the shared pool, and adds
 * saspu.population to the module table on
 * top of the stack. Every population function holds the metatable and
 * the pool as upvalues 1 and 2. */
void open_population(lua_State *L)
{
  LPool *h;
  luaL_newmetatable(L, POOL_MT); /* module poolmt */
  lua_pushcfunction(L, l_pool_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);                          /* module */
  h = lua_newuserdatauv(L, sizeof *h, 0); /* module pool */
  h->pool = NULL;
  h->closed = 0;
  h->idle = 0;
  h->cores = sp_online_cores();
  luaL_setmetatable(L, POOL_MT);
  luaL_newmetatable(L, POPULATION_MT); /* module pool mt */
  lua_pushvalue(L, -1);
  lua_pushvalue(L, -3);
  luaL_setfuncs(L, population_meta, 2);
  luaL_newlibtable(L, population_methods); /* module pool mt methods */
  lua_pushvalue(L, -2);
  lua_pushvalue(L, -4);
  luaL_setfuncs(L, population_methods, 2);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, -4);
  open_population_plan(L);        /* plan, status, plan_of, ... */
  lua_setfield(L, -2, "__index"); /* module pool mt */
  lua_pushvalue(L, -1);
  lua_pushvalue(L, -3);
  lua_pushcclosure(L, l_population, 2); /* module pool mt population */
  lua_setfield(L, -4, "population");
  lua_pop(L, 2); /* module */
}