/* population.c: saspu.Population: many NPCs of one domain, their states and goals set in bulk, planned in C in batches. */
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* saspu.Population: many NPCs of one domain, planned in batches      */
/* ================================================================== */

/* NPC indices are 1-based in Lua (1..n) and 0-based in the core: every
 * conversion happens in check_npc and check_range. Planning itself runs
 * in C: pop:plan never calls back into Lua. */

/* The user values of a saspu.Population. */
enum {
  UV_POP_DOMAIN = 1, /* the saspu.Domain: keeps it and its name tables alive */
  UV_POP_ACTIONS,    /* the domain's array of action names */
  UV_POP_COUNT = UV_POP_ACTIONS
};

/* The saspu.Population userdata; its scratch buffers follow it in the
 * same block. `pop` is NULL until it is owned and again after close;
 * `owner` is set exactly while the population counts among the users of
 * its domain, which keeps `domain` allocated (see l_close in domain.c). */
typedef struct LPopulation {
  SpPopulation *pop;
  const SpDomain *domain;
  LDomain *owner;
  size_t n;
  int nvars, nactions;
  uint16_t *plan; /* nactions entries (at least 1) */
  SpValue *s0;    /* nvars entries each */
  SpValue *goal;
  SpValue *row;
  uint8_t *mask; /* which variables a state argument gave */
  size_t held;   /* C bytes reported to accounting.c */
} LPopulation;

/* The thread pool every population of a Lua state plans on (upvalue 2 of
 * the population functions). Started by the first plan call that wants
 * more than one worker, replaced by a larger one when a call asks for
 * more, freed by __gc when the state closes. It is created before any
 * population, so at lua_close it is finalized after all of them; once
 * closed, populations fall back to their own pools. */
typedef struct LPool {
  SpThreadPool *pool;
  int closed;
  int cores; /* online cores, read once */
  int idle;  /* plan calls in a row that wanted no more than the cores */
} LPool;

/* A pool grown past the cores (threads = n, oversubscribe = true) shrinks
 * back to the cores after this many plan calls in a row that wanted no
 * more, so the extra threads do not live on. */
#if !defined(SASPU_POOL_IDLE_CALLS)
#define SASPU_POOL_IDLE_CALLS 64
#endif

/* The saspu.Population at `idx`, open or closed. */
static LPopulation *to_population(lua_State *L, int idx)
{
  return to_userdata_of_upvalue(L, idx, POPULATION_MT);
}

/* The open population at `idx`, with stack room for any method. */
static LPopulation *check_population(lua_State *L, int idx)
{
  LPopulation *p = to_population(L, idx);
  if (!p->pop) luaL_argerror(L, idx, "saspu.Population is closed");
  luaL_checkstack(L, STACK_NEED, POPULATION_MT);
  return p;
}

/* The population's core object after a Lua point (see binding.h), or
 * the error "saspu.Population was closed during the call". */
static SpPopulation *live_pop(lua_State *L, const LPopulation *p)
{
  if (!p->pop) closed_during_call(L, POPULATION_MT);
  return p->pop;
}

/* Argument `arg`: an NPC index in 1..n; returns it 0-based. */
static size_t check_npc(lua_State *L, const LPopulation *p, int arg)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  if (i < 1 || (lua_Unsigned)i > p->n) {
    if (p->n == 0)
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "npc %I: the population is empty", i));
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "npc %I is outside 1..%I", i, (lua_Integer)p->n));
  }
  return (size_t)(i - 1);
}

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

/* Raises "saspu.Population:<fname>: <the core's sentence>". */
static int pop_error(lua_State *L, const char *fname, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY || err->code == SP_E_MEMORY)
    return luaL_error(L, "saspu.Population:%s: not enough memory", fname);
  return luaL_error(L, "saspu.Population:%s: %s", fname, err->message);
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

/* Raises on a key of the options table at `arg` that is not in `allowed`. */
static int unknown_option(lua_State *L, int arg, const char *allowed)
{
  const char *shown = shown_name(L, -2);
  return luaL_argerror(
      L, arg,
      lua_pushfstring(L, "unknown option %s (expected %s)", shown, allowed));
}

/* The value on top of the stack for option `name`: an integer in lo..hi. */
static lua_Integer option_integer(lua_State *L, int arg, const char *name,
                                  lua_Integer lo, lua_Integer hi)
{
  int isnum = 0;
  lua_Integer x =
      lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
  if (!isnum || x < lo || x > hi)
    luaL_argerror(L, arg,
                  lua_pushfstring(L,
                                  "%s: expected an integer in %I..%I, got %s",
                                  name, lo, hi, luaL_tolstring(L, -1, NULL)));
  return x;
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
        capacity = option_integer(L, 3, "cache_capacity", 0,
                                  SP_PLAN_CACHE_MAX_CAPACITY);
      else
        unknown_option(L, 3, "cache_capacity");
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
            (int)option_integer(L, arg, "threads", 0, SP_THREAD_POOL_MAX);
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
        unknown_option(L, arg, allowed);
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
    {"plan", l_pop_plan},
    {"status", l_pop_status},
    {"plan_of", l_pop_plan_of},
    {"plan_ids_of", l_pop_plan_ids_of},
    {"steps", l_pop_steps},
    {"state", l_pop_state},
    {"goal", l_pop_goal},
    {"stats", l_pop_stats},
    {"clear_cache", l_pop_clear_cache},
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
  lua_setfield(L, -2, "__index"); /* module pool mt */
  lua_pushvalue(L, -1);
  lua_pushvalue(L, -3);
  lua_pushcclosure(L, l_population, 2); /* module pool mt population */
  lua_setfield(L, -4, "population");
  lua_pop(L, 2); /* module */
}
