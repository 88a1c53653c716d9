/* lua_binding.c: the Lua module saspu.core: domain tables compiled into saspu domains, planning, populations planned in batches, and grid pathfinding from Lua. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime for saspu.clock_ns */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lua.h"
#include "lauxlib.h"

#include "saspu.h"
#include "saspu_grid.h"
#include "saspu_population.h"

#define DOMAIN_MT "saspu.Domain"
#define GRID_MT "saspu.Grid"
#define POPULATION_MT "saspu.Population"
#define POOL_MT "saspu.ThreadPool"

/* Error lists name at most this many choices ("(a, b, c, ...)"). */
#if !defined(SASPU_LUA_LIST_MAX)
#define SASPU_LUA_LIST_MAX 16
#endif

/* The user values of a saspu.Domain. The maps use C indices (0-based); the
 * arrays are Lua arrays, so entry c + 1 is about C index c. */
enum {
  UV_VAR_IDS = 1,  /* variable name -> variable index */
  UV_VAR_NAMES,    /* array of variable names */
  UV_VALUE_IDS,    /* array of { value name -> value index }, one per variable */
  UV_VALUE_NAMES,  /* array of arrays of value names */
  UV_ACTION_IDS,   /* action name -> action index */
  UV_ACTION_NAMES, /* array of action names */
  UV_PARAMS,       /* array of parameter-name arrays, one per action */
  UV_GOALS,        /* goal name -> packed goal (values, then a set/keep mask) */
  UV_STARTS,       /* start name -> packed start (one byte per variable) */
  UV_SCRATCH,      /* userdata: the plan, s0 and goal buffers */
  UV_COUNT = UV_SCRATCH
};

/* The saspu.Domain userdata. Every pointer is NULL until it is owned, and
 * NULL again after close, so __gc may run at any point. Populations plan
 * with the compiled domain: while `users` of them are open, closing the
 * domain only moves it to `orphan`, and the last population frees it. */
typedef struct LDomain {
  SpDomain *domain;
  SpDomain *orphan; /* closed, but still used by populations */
  int users;        /* open populations of this domain */
  SpWorkspace *ws;
  uint16_t *plan; /* action_count entries, inside the scratch user value */
  uint16_t *counts; /* variable_count entries, same: value counts */
  SpValue *s0;    /* variable_count entries, same */
  SpValue *goal;  /* variable_count entries, same */
  uint8_t *mask;  /* variable_count entries, same: which goal values were given */
  int nvars;
  int nactions;
} LDomain;

/* Stack slots a function of this file may use beyond its arguments: the
 * deepest path (a compile error inside a prevail) needs about 40. */
#define STACK_NEED 64

/* Where the name tables of a domain sit on the stack (absolute indices). */
typedef struct Names {
  int var_ids;
  int var_names;
  int value_ids;
  int value_names;
} Names;

/* ================================================================== */
/* Small helpers                                                      */
/* ================================================================== */

/* Raises "<caller position>: <where>: <message>", like luaL_error with a
 * path. Nothing of ours is on the C heap when this is called: every
 * buffer is a Lua object. */
static int raise(lua_State *L, const char *where, const char *fmt, ...)
{
  va_list ap;
  luaL_where(L, 1);
  lua_pushfstring(L, "%s: ", where);
  va_start(ap, fmt);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 3);
  return lua_error(L);
}

/* Pushes "a, b, c" built from the Lua array at `arr` (strings), cut after
 * SASPU_LUA_LIST_MAX names. */
static void push_name_list(lua_State *L, int arr)
{
  luaL_Buffer b;
  lua_Integer n = (lua_Integer)lua_rawlen(L, arr), i;
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1)
      luaL_addstring(&b, ", ");
    if (i > SASPU_LUA_LIST_MAX) {
      luaL_addstring(&b, "...");
      break;
    }
    lua_rawgeti(L, arr, i);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
}

/* Pushes the value names of variable `var` as "a, b, c". */
static void push_value_list(lua_State *L, const Names *n, int var)
{
  lua_rawgeti(L, n->value_names, var + 1);
  push_name_list(L, lua_gettop(L));
  lua_remove(L, -2);
}

static void push_value_name(lua_State *L, const Names *n, int var, int value)
{
  lua_rawgeti(L, n->value_names, var + 1);
  lua_rawgeti(L, -1, value + 1);
  lua_remove(L, -2);
}

static const char *var_name(lua_State *L, const Names *n, int var)
{
  const char *s;
  lua_rawgeti(L, n->var_names, var + 1);
  s = lua_tostring(L, -1);
  lua_pop(L, 1); /* still anchored in var_names */
  return s;
}

/* Index of the variable named by the string at `idx`: -1 when no such
 * variable, -2 when the value is not a string. */
static int lookup_var(lua_State *L, const Names *n, int idx)
{
  int r;
  if (lua_type(L, idx) != LUA_TSTRING)
    return -2;
  lua_pushvalue(L, idx);
  r = lua_rawget(L, n->var_ids) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 1);
  return r;
}

/* Index of the value at `idx` among the values of `var`: a name, or a
 * boolean standing for the name "true" or "false". -1 when absent, -2
 * when the value is neither a string nor a boolean. */
static int lookup_value(lua_State *L, const Names *n, int var, int idx)
{
  int t = lua_type(L, idx), r;
  if (t == LUA_TBOOLEAN)
    lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false");
  else if (t == LUA_TSTRING)
    lua_pushvalue(L, idx);
  else
    return -2;
  lua_rawgeti(L, n->value_ids, var + 1);
  lua_pushvalue(L, -2);
  r = lua_rawget(L, -2) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 3);
  return r;
}

/* The variable at `idx` or an error naming the problem under `where`. */
static int read_var(lua_State *L, const Names *n, int idx, const char *where,
                    const char *field)
{
  int v = lookup_var(L, n, idx);
  if (v == -2)
    return raise(L, where, "%sexpected a variable name, got %s", field,
                 luaL_typename(L, idx));
  if (v < 0) {
    push_name_list(L, n->var_names);
    return raise(L, where, "%sunknown variable '%s' (%s)", field,
                 lua_tostring(L, idx), lua_tostring(L, -1));
  }
  return v;
}

/* The value at `idx` for variable `var`, or an error such as
 * "post 'full' is not a value of 'haystack' (stored, in_hands, in_feeder)";
 * `label` names the field ("pre", "post", "prevail") or is "". */
static int read_value(lua_State *L, const Names *n, int var, int idx,
                      const char *where, const char *label)
{
  int x = lookup_value(L, n, var, idx);
  if (x == -2)
    return raise(L, where, "%s%sexpected a value of '%s', got %s", label,
                 *label ? ": " : "", var_name(L, n, var), luaL_typename(L, idx));
  if (x < 0) {
    const char *shown = luaL_tolstring(L, idx, NULL);
    push_value_list(L, n, var);
    return raise(L, where, "%s%s'%s' is not a value of '%s' (%s)", label,
                 *label ? " " : "", shown, var_name(L, n, var),
                 lua_tostring(L, -1));
  }
  return x;
}

/* Pushes the keys (strings) of the table at `tbl` as a sorted "a, b, c",
 * or "none declared" when it is empty. */
static void push_key_list(lua_State *L, int tbl)
{
  int arr, count = 0, j;
  lua_newtable(L);
  arr = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    lua_pop(L, 1);
    for (j = ++count; j > 1; j--) { /* insertion sort, the key on top */
      lua_rawgeti(L, arr, j - 1);
      if (lua_compare(L, -1, -2, LUA_OPLT)) {
        lua_pop(L, 1);
        break;
      }
      lua_rawseti(L, arr, j);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, arr, j);
  }
  if (count == 0)
    lua_pushliteral(L, "none declared");
  else
    push_name_list(L, arr);
  lua_remove(L, arr);
}

/* Reads a state table at `tbl` into vals[0..nv-1]. Keys are variable
 * names, values value names. With `mask` (a partial state) mask[v] says
 * whether v was given; without it every variable must be given. */
static void read_state(lua_State *L, const Names *n, int tbl, int nv,
                       SpValue *vals, uint8_t *mask, const char *where)
{
  uint8_t seen_buf[64];
  uint8_t *seen = mask;
  int v;
  if (!seen) {
    /* a total state: track the variables given in a Lua-owned buffer
     * when the stack buffer is too small */
    seen = nv <= (int)sizeof seen_buf ? seen_buf : lua_newuserdatauv(L, (size_t)nv, 0);
  }
  memset(seen, 0, (size_t)nv);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    int key = lua_gettop(L) - 1;
    v = lookup_var(L, n, key);
    if (v == -2) {
      const char *k = luaL_tolstring(L, key, NULL);
      raise(L, where, "expected variable names as keys, got %s key %s",
            luaL_typename(L, key), k);
    }
    if (v < 0) {
      push_name_list(L, n->var_names);
      raise(L, where, "unknown variable '%s' (%s)", lua_tostring(L, key),
            lua_tostring(L, -1));
    }
    vals[v] = (SpValue)read_value(L, n, v, key + 1, where, "");
    seen[v] = 1;
    lua_pop(L, 1);
  }
  if (!mask) {
    for (v = 0; v < nv; v++)
      if (!seen[v])
        raise(L, where, "missing variable '%s'", var_name(L, n, v));
    if (seen != seen_buf)
      lua_pop(L, 1);
  }
}

/* Pushes a string built by an snprintf-like core formatter. */
typedef size_t (*Formatter)(const SpDomain *d, const void *arg, char *buf, size_t size);

static size_t fmt_explain(const SpDomain *d, const void *arg, char *buf, size_t size)
{
  (void)arg;
  return sp_domain_explain(d, buf, size);
}

static size_t fmt_failure(const SpDomain *d, const void *arg, char *buf, size_t size)
{
  return sp_failure_format(d, arg, buf, size);
}

static void push_formatted(lua_State *L, const SpDomain *d, Formatter f, const void *arg)
{
  char small[256];
  size_t len = f(d, arg, small, sizeof small);
  if (len < sizeof small) {
    lua_pushlstring(L, small, len);
  } else {
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, len + 1);
    f(d, arg, p, len + 1);
    luaL_pushresultsize(&b, len);
  }
}

/* ================================================================== */
/* The compile step: a Lua table -> SpDomainSpec -> SpDomain          */
/* ================================================================== */

/* Stack slots used while compiling (absolute indices). */
enum {
  S_SPEC = 1,      /* the argument table */
  S_DOMAIN,        /* the result userdata */
  S_VAR_IDS,
  S_VAR_NAMES,
  S_VALUE_IDS,
  S_VALUE_NAMES,
  S_ACTION_IDS,
  S_ACTION_NAMES,
  S_PARAMS,
  S_ANCHORS,       /* Lua-owned buffers and strings the spec points into */
  S_VARS,          /* userdata: SpVariableSpec[nv] */
  S_ACTIONS,       /* userdata: SpActionSpec[na] */
  S_TOP = S_ACTIONS
};

/* Raises on a key of table `tbl` that is not one of `allowed` (NULL-ended). */
static void check_fields(lua_State *L, int tbl, const char *const *allowed,
                         const char *where, const char *expected)
{
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    int ok = 0, i;
    if (lua_type(L, -2) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -2);
      for (i = 0; allowed[i]; i++)
        if (strcmp(k, allowed[i]) == 0)
          ok = 1;
    }
    if (!ok) {
      const char *k = luaL_tolstring(L, -2, NULL);
      raise(L, where, "unknown field %s%s%s (expected %s)",
            lua_type(L, -3) == LUA_TSTRING ? "'" : "", k,
            lua_type(L, -3) == LUA_TSTRING ? "'" : "", expected);
    }
    lua_pop(L, 1);
  }
}

/* Reads the non-empty name at field `field` of the table at `tbl`; leaves
 * it on the stack. */
static const char *read_name(lua_State *L, int tbl, const char *field,
                             const char *where)
{
  size_t len = 0;
  const char *s = NULL;
  if (lua_getfield(L, tbl, field) == LUA_TSTRING)
    s = lua_tolstring(L, -1, &len);
  if (s == NULL || len == 0)
    raise(L, where, "%s: expected a non-empty string, got %s", field,
          s ? "an empty string" : luaL_typename(L, -1));
  if (len > SP_MAX_NAME)
    raise(L, where, "%s: '%s' is longer than %d bytes", field, s, SP_MAX_NAME);
  if (strlen(s) != len)
    raise(L, where, "%s: '%s' contains a zero byte", field, s);
  return s;
}

/* Pushes the table at field `field` of `tbl`, raising when it is not a table. */
static void read_table(lua_State *L, int tbl, const char *field, const char *where)
{
  if (lua_getfield(L, tbl, field) != LUA_TTABLE)
    raise(L, where, "%s: expected a table, got %s", field, luaL_typename(L, -1));
}

/* Anchors the value on top of the stack in S_ANCHORS (pops nothing). */
static void anchor(lua_State *L)
{
  lua_pushvalue(L, -1);
  lua_rawseti(L, S_ANCHORS, (lua_Integer)lua_rawlen(L, S_ANCHORS) + 1);
}

/* variables = { { name = ..., values = { ... } }, ... }: fills the name
 * tables and the SpVariableSpec array, in declaration order. */
static int compile_variables(lua_State *L)
{
  static const char *const fields[] = { "name", "values", NULL };
  SpVariableSpec *vars;
  lua_Integer nv, i, j;
  read_table(L, S_SPEC, "variables", "saspu.domain");
  nv = luaL_len(L, -1);
  if (nv < 1)
    raise(L, "saspu.domain", "variables: expected at least one variable");
  if (nv > SP_MAX_VARIABLES)
    raise(L, "saspu.domain", "variables: %I variables, at most %d allowed", nv,
          SP_MAX_VARIABLES);
  vars = lua_newuserdatauv(L, (size_t)nv * sizeof *vars, 0);
  lua_replace(L, S_VARS);
  for (i = 1; i <= nv; i++) {
    int entry, top = lua_gettop(L);
    lua_Integer nvals;
    const char *name, *where, **vnames;
    if (lua_geti(L, top, i) != LUA_TTABLE)
      raise(L, "saspu.domain", "variables[%I]: expected a table, got %s", i,
            luaL_typename(L, -1));
    entry = lua_gettop(L);
    where = lua_pushfstring(L, "saspu.domain: variables[%I]", i);
    name = read_name(L, entry, "name", where);
    where = lua_pushfstring(L, "saspu.domain: variables[%I] '%s'", i, name);
    check_fields(L, entry, fields, where, "name, values");
    lua_pushvalue(L, -2);
    if (lua_rawget(L, S_VAR_IDS) != LUA_TNIL)
      raise(L, where, "duplicate variable name (also variables[%I])",
            lua_tointeger(L, -1) + 1);
    lua_pop(L, 1);
    lua_pushvalue(L, -2);
    lua_pushinteger(L, i - 1);
    lua_rawset(L, S_VAR_IDS);
    lua_pushvalue(L, -2);
    lua_rawseti(L, S_VAR_NAMES, i);

    read_table(L, entry, "values", where);
    nvals = luaL_len(L, -1);
    if (nvals < 2)
      raise(L, where, "values: expected at least 2 values, got %I", nvals);
    if (nvals > SP_MAX_VALUES)
      raise(L, where, "values: %I values, at most %d allowed (one byte per value, 255 means any)", nvals, SP_MAX_VALUES);
    vnames = lua_newuserdatauv(L, (size_t)nvals * sizeof *vnames, 0);
    anchor(L);
    lua_pop(L, 1);
    lua_newtable(L); /* value name -> index */
    lua_newtable(L); /* value names */
    for (j = 1; j <= nvals; j++) {
      size_t len;
      int values = lua_gettop(L) - 2;
      lua_geti(L, values, j);
      if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
        raise(L, where, "values[%I]: expected a non-empty string, got %s", j,
              lua_type(L, -1) == LUA_TSTRING ? "an empty string" : luaL_typename(L, -1));
      vnames[j - 1] = lua_tolstring(L, -1, &len);
      if (len > SP_MAX_NAME)
        raise(L, where, "values[%I]: '%s' is longer than %d bytes", j,
              vnames[j - 1], SP_MAX_NAME);
      if (strlen(vnames[j - 1]) != len)
        raise(L, where, "values[%I]: '%s' contains a zero byte", j, vnames[j - 1]);
      lua_pushvalue(L, -1);
      if (lua_rawget(L, -4) != LUA_TNIL)
        raise(L, where, "values[%I] '%s': duplicate value (also values[%I])", j,
              vnames[j - 1], lua_tointeger(L, -1) + 1);
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_rawseti(L, -3, j);
      lua_pushinteger(L, j - 1);
      lua_rawset(L, -4); /* the name stays anchored as a key */
    }
    lua_rawseti(L, S_VALUE_NAMES, i);
    lua_rawseti(L, S_VALUE_IDS, i);
    vars[i - 1].name = name; /* anchored as a key of S_VAR_IDS */
    vars[i - 1].value_count = (int)nvals;
    vars[i - 1].value_names = vnames;
    lua_settop(L, top);
  }
  lua_pop(L, 1);
  return (int)nv;
}

/* Orders prevail conditions by variable (insertion sort: they are few). */
static void sort_prevails(SpCondition *c, int n)
{
  int i, j;
  for (i = 1; i < n; i++) {
    SpCondition x = c[i];
    for (j = i; j > 0 && c[j - 1].variable > x.variable; j--)
      c[j] = c[j - 1];
    c[j] = x;
  }
}

/* prevail = { var = value, ... } of one action: a Lua-owned, sorted array. */
static void compile_prevails(lua_State *L, const Names *n, int tbl,
                             SpActionSpec *a, const char *where)
{
  SpCondition *conds;
  int count = 0, k = 0;
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    count++;
    lua_pop(L, 1);
  }
  if (count > SP_MAX_PREVAILS)
    raise(L, where, "prevail: %d conditions, at most %d allowed", count, SP_MAX_PREVAILS);
  conds = lua_newuserdatauv(L, (size_t)(count ? count : 1) * sizeof *conds, 0);
  anchor(L);
  lua_pop(L, 1);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    int key = lua_gettop(L) - 1, v;
    if (lua_type(L, key) != LUA_TSTRING) {
      const char *s = luaL_tolstring(L, key, NULL);
      raise(L, where, "prevail: expected variable names as keys, got %s key %s",
            luaL_typename(L, key), s);
    }
    v = read_var(L, n, key, where, "prevail: ");
    conds[k].variable = v;
    conds[k].value = read_value(L, n, v, key + 1, where, "prevail");
    k++;
    lua_pop(L, 1);
  }
  sort_prevails(conds, k);
  a->prevail_count = k;
  a->prevails = conds;
}

/* params = { "item", "pos" }: copied into S_PARAMS[i] (always a table). */
static void compile_params(lua_State *L, int entry, lua_Integer i, const char *where)
{
  lua_Integer np, j;
  int t = lua_getfield(L, entry, "params");
  lua_newtable(L);
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE)
      raise(L, where, "params: expected a table, got %s", luaL_typename(L, -2));
    np = luaL_len(L, -2);
    for (j = 1; j <= np; j++) {
      if (lua_geti(L, -2, j) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
        raise(L, where, "params[%I]: expected a non-empty string, got %s", j,
              lua_type(L, -1) == LUA_TSTRING ? "an empty string" : luaL_typename(L, -1));
      lua_rawseti(L, -2, j);
    }
  }
  lua_rawseti(L, S_PARAMS, i);
  lua_pop(L, 1);
}

/* actions = { { name, var, pre, post, prevail, params }, ... }: fills the
 * name tables and the SpActionSpec array in declaration order. */
static int compile_actions(lua_State *L, const Names *n)
{
  static const char *const fields[] = { "name", "var", "pre", "post", "prevail",
                                        "params", NULL };
  SpActionSpec *acts;
  lua_Integer na, i;
  read_table(L, S_SPEC, "actions", "saspu.domain");
  na = luaL_len(L, -1);
  if (na > SP_MAX_ACTIONS)
    raise(L, "saspu.domain", "actions: %I actions, at most %d allowed", na,
          SP_MAX_ACTIONS);
  acts = lua_newuserdatauv(L, (size_t)(na ? na : 1) * sizeof *acts, 0);
  lua_replace(L, S_ACTIONS);
  for (i = 1; i <= na; i++) {
    int entry, top = lua_gettop(L), var, t;
    const char *name, *where;
    SpActionSpec *a = &acts[i - 1];
    if (lua_geti(L, top, i) != LUA_TTABLE)
      raise(L, "saspu.domain", "actions[%I]: expected a table, got %s", i,
            luaL_typename(L, -1));
    entry = lua_gettop(L);
    where = lua_pushfstring(L, "saspu.domain: actions[%I]", i);
    name = read_name(L, entry, "name", where);
    where = lua_pushfstring(L, "saspu.domain: actions[%I] '%s'", i, name);
    check_fields(L, entry, fields, where, "name, var, pre, post, prevail, params");
    lua_pushvalue(L, -2);
    if (lua_rawget(L, S_ACTION_IDS) != LUA_TNIL)
      raise(L, where, "duplicate action name (also actions[%I])",
            lua_tointeger(L, -1) + 1);
    lua_pop(L, 1);
    lua_pushvalue(L, -2);
    lua_pushinteger(L, i - 1);
    lua_rawset(L, S_ACTION_IDS);
    lua_pushvalue(L, -2);
    lua_rawseti(L, S_ACTION_NAMES, i);
    a->name = name; /* anchored as a key of S_ACTION_IDS */

    lua_getfield(L, entry, "var");
    var = read_var(L, n, lua_gettop(L), where, "var: ");
    a->variable = var;
    lua_getfield(L, entry, "pre");
    a->pre = read_value(L, n, var, lua_gettop(L), where, "pre");
    lua_getfield(L, entry, "post");
    a->post = read_value(L, n, var, lua_gettop(L), where, "post");
    /* pre == post, prevails on the own variable and post-uniqueness are
     * the core's rules: its messages name the actions and values */

    t = lua_getfield(L, entry, "prevail");
    if (t == LUA_TTABLE) {
      compile_prevails(L, n, lua_gettop(L), a, where);
    } else if (t == LUA_TNIL) {
      a->prevail_count = 0;
      a->prevails = NULL;
    } else {
      raise(L, where, "prevail: expected a table, got %s", luaL_typename(L, -1));
    }
    compile_params(L, entry, i, where);
    lua_settop(L, top);
  }
  lua_pop(L, 1);
  return (int)na;
}

/* Packs every named state of `field` (goals or starts) into a string kept
 * in a new table left on the stack: starts are total (one byte per
 * variable), goals partial (values, then a mask of the given variables). */
static void compile_states(lua_State *L, const Names *n, int nv, const char *field,
                           int partial, SpValue *buf)
{
  int t = lua_getfield(L, S_SPEC, field), tbl;
  lua_newtable(L);
  if (t == LUA_TNIL)
    return;
  if (t != LUA_TTABLE)
    raise(L, "saspu.domain", "%s: expected a table, got %s", field,
          luaL_typename(L, -2));
  tbl = lua_gettop(L) - 1;
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    const char *where;
    if (lua_type(L, -2) != LUA_TSTRING || lua_rawlen(L, -2) == 0) {
      const char *k = luaL_tolstring(L, -2, NULL);
      raise(L, "saspu.domain", "%s: expected names as keys, got %s key %s", field,
            luaL_typename(L, -3), k);
    }
    where = lua_pushfstring(L, "saspu.domain: %s.%s", field, lua_tostring(L, -2));
    if (!lua_istable(L, -2))
      raise(L, where, "expected a table, got %s", luaL_typename(L, -2));
    memset(buf, 0, (size_t)nv * 2);
    read_state(L, n, lua_gettop(L) - 1, nv, buf, partial ? buf + nv : NULL, where);
    lua_pop(L, 2);
    lua_pushvalue(L, -1);
    lua_pushlstring(L, (const char *)buf, (size_t)nv * (partial ? 2 : 1));
    lua_rawset(L, tbl + 1);
  }
}

/* Raises the error the core reported, now that everything is owned. */
static int core_error(lua_State *L, const char *where, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY || err->code == SP_E_MEMORY)
    return raise(L, where, "not enough memory");
  return raise(L, where, "%s", err->message);
}

/* saspu.domain(spec) -> saspu.Domain. Follows the house compile order:
 * the result userdata exists (empty, with its metatable) before anything
 * can fail; the table is read into Lua-owned buffers; the core compiles;
 * only then can an error escape, with every allocation owned. */
static int l_domain(lua_State *L)
{
  static const char *const fields[] = { "name", "variables", "actions", "goals",
                                        "starts", "allow_outside", NULL };
  SpDomainSpec spec;
  SpCompileOptions opts;
  SpAllocator alloc;
  SpError err;
  Names n;
  LDomain *d;
  SpValue *statebuf;
  size_t scratch;
  int nv, na, t, uv, allow_outside;

  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  luaL_checkstack(L, S_TOP + STACK_NEED, "saspu.domain");
  d = lua_newuserdatauv(L, sizeof *d, UV_COUNT);
  memset(d, 0, sizeof *d);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  for (t = S_VAR_IDS; t <= S_ANCHORS; t++)
    lua_newtable(L);
  lua_pushnil(L); /* S_VARS */
  lua_pushnil(L); /* S_ACTIONS */
  n.var_ids = S_VAR_IDS;
  n.var_names = S_VAR_NAMES;
  n.value_ids = S_VALUE_IDS;
  n.value_names = S_VALUE_NAMES;

  check_fields(L, S_SPEC, fields, "saspu.domain",
               "name, variables, actions, goals, starts, allow_outside");
  memset(&spec, 0, sizeof spec);
  spec.name = read_name(L, S_SPEC, "name", "saspu.domain");
  anchor(L);
  lua_pop(L, 1);
  t = lua_getfield(L, S_SPEC, "allow_outside");
  if (t != LUA_TNIL && t != LUA_TBOOLEAN)
    raise(L, "saspu.domain", "allow_outside: expected a boolean, got %s",
          luaL_typename(L, -1));
  memset(&opts, 0, sizeof opts);
  opts.allow_outside = lua_toboolean(L, -1);
  lua_pop(L, 1);

  nv = compile_variables(L);
  na = compile_actions(L, &n);
  spec.variable_count = nv;
  spec.variables = lua_touserdata(L, S_VARS);
  spec.action_count = na;
  spec.actions = lua_touserdata(L, S_ACTIONS);

  memset(&err, 0, sizeof err);
  alloc.fn = lua_getallocf(L, &alloc.ud);
  /* compile outside domains too: the refusal then quotes the whole
   * explanation, which may not fit in SpError's message */
  allow_outside = opts.allow_outside;
  opts.allow_outside = 1;
  if (sp_domain_compile(&spec, &opts, alloc, &d->domain, &err) != SP_OK) {
    d->domain = NULL; /* the core leaves nothing behind on failure */
    return core_error(L, "saspu.domain", &err);
  }
  if (!allow_outside && sp_domain_class(d->domain) == SP_CLASS_OUTSIDE) {
    push_formatted(L, d->domain, fmt_explain, NULL); /* d owns the domain */
    return raise(L, "saspu.domain", "%s(set allow_outside = true to accept it)",
                 lua_tostring(L, -1));
  }
  d->nvars = nv;
  d->nactions = na;
  if (sp_workspace_new(d->domain, alloc, &d->ws, &err) != SP_OK) {
    d->ws = NULL;
    return core_error(L, "saspu.domain", &err);
  }

  /* 16-bit arrays first for alignment, then the byte arrays */
  scratch = ((size_t)(na ? na : 1) + (size_t)nv) * sizeof(uint16_t) + 3 * (size_t)nv;
  d->plan = lua_newuserdatauv(L, scratch, 0);
  d->counts = d->plan + (na ? na : 1);
  d->s0 = (SpValue *)(d->counts + nv);
  d->goal = d->s0 + nv;
  d->mask = d->goal + nv;
  for (t = 0; t < nv; t++)
    d->counts[t] = (uint16_t)sp_variable_value_count(d->domain, t);
  lua_setiuservalue(L, S_DOMAIN, UV_SCRATCH);

  /* goals and starts need the compiled sizes checked: pack them last */
  statebuf = lua_newuserdatauv(L, 2 * (size_t)nv, 0);
  anchor(L);
  lua_pop(L, 1);
  compile_states(L, &n, nv, "goals", 1, statebuf);
  lua_setiuservalue(L, S_DOMAIN, UV_GOALS);
  lua_pop(L, 1);
  compile_states(L, &n, nv, "starts", 0, statebuf);
  lua_setiuservalue(L, S_DOMAIN, UV_STARTS);
  lua_pop(L, 1);

  for (uv = UV_VAR_IDS, t = S_VAR_IDS; uv <= UV_PARAMS; uv++, t++) {
    lua_pushvalue(L, t);
    lua_setiuservalue(L, S_DOMAIN, uv);
  }
  lua_pushvalue(L, S_DOMAIN);
  return 1;
}

/* ================================================================== */
/* saspu.Domain: lifetime and introspection                           */
/* ================================================================== */

/* The saspu.Domain at `idx`, checked against the metatable that every
 * method holds as upvalue 1 (cheaper than luaL_checkudata's registry
 * lookup by name, which matters on the fast path). */
static LDomain *to_domain(lua_State *L, int idx)
{
  LDomain *d = lua_touserdata(L, idx);
  int ok = d != NULL && lua_getmetatable(L, idx);
  if (ok) {
    ok = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
  }
  if (!ok)
    luaL_typeerror(L, idx, DOMAIN_MT);
  return d;
}

/* The open domain at `idx`, with stack room for any method. */
static LDomain *check_domain(lua_State *L, int idx)
{
  LDomain *d = to_domain(L, idx);
  if (!d->domain)
    luaL_argerror(L, idx, "saspu.Domain is closed");
  luaL_checkstack(L, STACK_NEED, "saspu.Domain");
  return d;
}

/* __gc and __close: frees the compiled domain and its workspace; safe to
 * call any number of times and on a domain whose compile failed. While
 * populations still use the compiled domain it is kept (as `orphan`) for
 * them: the domain is closed for Lua, its memory outlives them. */
static int l_close(lua_State *L)
{
  LDomain *d = to_domain(L, 1);
  if (d->ws) {
    sp_workspace_free(d->ws);
    d->ws = NULL;
  }
  if (d->domain) {
    if (d->users > 0)
      d->orphan = d->domain;
    else
      sp_domain_free(d->domain);
    d->domain = NULL;
  }
  return 0;
}

static int l_tostring(lua_State *L)
{
  LDomain *d = to_domain(L, 1);
  if (!d->domain) {
    lua_pushliteral(L, "saspu.Domain (closed)");
    return 1;
  }
  lua_pushfstring(L, "saspu.Domain '%s' (%d action%s, %s)", sp_domain_name(d->domain),
                  d->nactions, d->nactions == 1 ? "" : "s",
                  sp_class_name(sp_domain_class(d->domain)));
  return 1;
}

/* __index: methods first, then the read-only fields `class` and `name`. */
static int l_index(lua_State *L)
{
  LDomain *d = to_domain(L, 1);
  const char *k;
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL)
    return 1;
  k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
  if (k && (strcmp(k, "class") == 0 || strcmp(k, "name") == 0)) {
    if (!d->domain)
      return luaL_error(L, "saspu.Domain is closed");
    lua_pushstring(L, k[0] == 'c' ? sp_class_name(sp_domain_class(d->domain))
                                  : sp_domain_name(d->domain));
    return 1;
  }
  lua_pushnil(L);
  return 1;
}

/* dom:explain() -> the class and why, as text. */
static int l_explain(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  push_formatted(L, d->domain, fmt_explain, NULL);
  return 1;
}

static void push_uv(lua_State *L, int idx, int uv)
{
  lua_getiuservalue(L, idx, uv);
}

/* Pushes the Names tables of the domain userdata at stack index `dom`
 * (closed or not: the tables stay) and fills `n`. */
static void push_names_at(lua_State *L, int dom, Names *n)
{
  push_uv(L, dom, UV_VAR_IDS);
  n->var_ids = lua_gettop(L);
  push_uv(L, dom, UV_VAR_NAMES);
  n->var_names = lua_gettop(L);
  push_uv(L, dom, UV_VALUE_IDS);
  n->value_ids = lua_gettop(L);
  push_uv(L, dom, UV_VALUE_NAMES);
  n->value_names = lua_gettop(L);
}

/* The same for the domain at stack index 1, as every domain method has. */
static void push_names(lua_State *L, Names *n)
{
  push_names_at(L, 1, n);
}

static int action_in_cycle(const SpDomain *dom, int a)
{
  int v = sp_action_variable(dom, a), nc = sp_variable_cycle_count(dom, v), c, i;
  for (c = 0; c < nc; c++)
    for (i = 0; i < sp_variable_cycle_length(dom, v, c); i++)
      if (sp_variable_cycle_action(dom, v, c, i) == a)
        return 1;
  return 0;
}

/* dom:actions() -> { { id, name, var, pre, post, prevail, params,
 * requestable, in_cycle }, ... } in declaration order. */
static int l_actions(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  Names n;
  int a, i, params, names;
  lua_settop(L, 1);
  push_names(L, &n);
  push_uv(L, 1, UV_PARAMS);
  params = lua_gettop(L);
  push_uv(L, 1, UV_ACTION_NAMES);
  names = lua_gettop(L);
  lua_createtable(L, d->nactions, 0);
  for (a = 0; a < d->nactions; a++) {
    int v = sp_action_variable(d->domain, a), np;
    lua_createtable(L, 0, 9);
    lua_pushinteger(L, a + 1);
    lua_setfield(L, -2, "id");
    lua_rawgeti(L, names, a + 1);
    lua_setfield(L, -2, "name");
    lua_rawgeti(L, n.var_names, v + 1);
    lua_setfield(L, -2, "var");
    push_value_name(L, &n, v, sp_action_pre(d->domain, a));
    lua_setfield(L, -2, "pre");
    push_value_name(L, &n, v, sp_action_post(d->domain, a));
    lua_setfield(L, -2, "post");
    np = sp_action_prevail_count(d->domain, a);
    lua_createtable(L, 0, np);
    for (i = 0; i < np; i++) {
      SpCondition c = sp_action_prevail(d->domain, a, i);
      lua_rawgeti(L, n.var_names, c.variable + 1);
      push_value_name(L, &n, c.variable, c.value);
      lua_rawset(L, -3);
    }
    lua_setfield(L, -2, "prevail");
    lua_rawgeti(L, params, a + 1); /* a copy: callers cannot alter ours */
    np = (int)lua_rawlen(L, -1);
    lua_createtable(L, np, 0);
    for (i = 1; i <= np; i++) {
      lua_rawgeti(L, -2, i);
      lua_rawseti(L, -2, i);
    }
    lua_remove(L, -2);
    lua_setfield(L, -2, "params");
    lua_pushboolean(L, sp_action_is_requestable(d->domain, a));
    lua_setfield(L, -2, "requestable");
    lua_pushboolean(L, action_in_cycle(d->domain, a));
    lua_setfield(L, -2, "in_cycle");
    lua_rawseti(L, -2, a + 1);
  }
  return 1;
}

/* dom:variables() -> { { id, name, values, cycles }, ... } in declaration
 * order; `cycles` lists each cycle of the variable's domain-action graph
 * as its action names in cycle order (the papers' Cycle(v) is cycles[1]). */
static int l_variables(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  Names n;
  int v, i, names;
  lua_settop(L, 1);
  push_names(L, &n);
  push_uv(L, 1, UV_ACTION_NAMES);
  names = lua_gettop(L);
  lua_createtable(L, d->nvars, 0);
  for (v = 0; v < d->nvars; v++) {
    int nvals = sp_variable_value_count(d->domain, v);
    int ncycles = sp_variable_cycle_count(d->domain, v), c;
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, v + 1);
    lua_setfield(L, -2, "id");
    lua_rawgeti(L, n.var_names, v + 1);
    lua_setfield(L, -2, "name");
    lua_createtable(L, nvals, 0);
    for (i = 0; i < nvals; i++) {
      push_value_name(L, &n, v, i);
      lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "values");
    lua_createtable(L, ncycles, 0);
    for (c = 0; c < ncycles; c++) {
      int clen = sp_variable_cycle_length(d->domain, v, c);
      lua_createtable(L, clen, 0);
      for (i = 0; i < clen; i++) {
        lua_rawgeti(L, names, sp_variable_cycle_action(d->domain, v, c, i) + 1);
        lua_rawseti(L, -2, i + 1);
      }
      lua_rawseti(L, -2, c + 1);
    }
    lua_setfield(L, -2, "cycles");
    lua_rawseti(L, -2, v + 1);
  }
  return 1;
}

/* Pushes a table name -> { var = value name } from a packed-state table. */
static int push_state_copies(lua_State *L, int uv, int partial)
{
  LDomain *d = check_domain(L, 1);
  Names n;
  int tbl, v;
  lua_settop(L, 1);
  push_names(L, &n);
  push_uv(L, 1, uv);
  tbl = lua_gettop(L);
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    const uint8_t *p = (const uint8_t *)lua_tostring(L, -1);
    lua_newtable(L);
    for (v = 0; v < d->nvars; v++) {
      if (partial && !p[d->nvars + v])
        continue;
      lua_rawgeti(L, n.var_names, v + 1);
      push_value_name(L, &n, v, p[v]);
      lua_rawset(L, -3);
    }
    lua_remove(L, -2);
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
  return 1;
}

/* dom:goals() -> { name = partial state }, copies of the declared goals. */
static int l_goals(lua_State *L)
{
  return push_state_copies(L, UV_GOALS, 1);
}

/* dom:starts() -> { name = total state }, copies of the declared starts. */
static int l_starts(lua_State *L)
{
  return push_state_copies(L, UV_STARTS, 0);
}

/* dom:action_name(id) -> name (ids are 1-based, in declaration order). */
static int l_action_name(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  lua_Integer id = luaL_checkinteger(L, 2);
  luaL_argcheck(L, id >= 1 && id <= d->nactions, 2, "no action with this id");
  push_uv(L, 1, UV_ACTION_NAMES);
  lua_rawgeti(L, -1, id);
  return 1;
}

/* dom:action_id(name) -> id, or nil when no action has this name. */
static int l_action_id(lua_State *L)
{
  check_domain(L, 1);
  luaL_checkstring(L, 2);
  push_uv(L, 1, UV_ACTION_IDS);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) == LUA_TNUMBER)
    lua_pushinteger(L, lua_tointeger(L, -1) + 1);
  else
    lua_pushnil(L);
  return 1;
}

/* ================================================================== */
/* Planning                                                           */
/* ================================================================== */

static const char *failure_code_name(SpFailureCode c)
{
  switch (c) {
  case SP_FAIL_NO_SETTER: return "no_setter";
  case SP_FAIL_UNREACHABLE: return "unreachable";
  case SP_FAIL_REPEAT: return "repeat";
  case SP_FAIL_ORDER: return "order";
  default: return "none";
  }
}

/* Fills the table at `why` with the reason for a missing plan: message,
 * code, and the action, other_action, variable and value involved (by
 * name; nil when not relevant). `dom` is the stack index of the domain
 * userdata whose compiled form is `domain`. */
static void fill_why_at(lua_State *L, int dom, const SpDomain *domain, int why,
                        const SpFailure *f)
{
  Names n;
  int top = lua_gettop(L), names;
  int nactions = sp_domain_action_count(domain), nvars = sp_domain_variable_count(domain);
  push_names_at(L, dom, &n);
  push_uv(L, dom, UV_ACTION_NAMES);
  names = lua_gettop(L);
  push_formatted(L, domain, fmt_failure, f);
  lua_setfield(L, why, "message");
  lua_pushstring(L, failure_code_name(f->code));
  lua_setfield(L, why, "code");
  if (f->action >= 0 && f->action < nactions)
    lua_rawgeti(L, names, f->action + 1);
  else
    lua_pushnil(L);
  lua_setfield(L, why, "action");
  if (f->other_action >= 0 && f->other_action < nactions)
    lua_rawgeti(L, names, f->other_action + 1);
  else
    lua_pushnil(L);
  lua_setfield(L, why, "other_action");
  if (f->variable >= 0 && f->variable < nvars) {
    lua_rawgeti(L, n.var_names, f->variable + 1);
    lua_setfield(L, why, "variable");
    if (f->value >= 0 && f->value < sp_variable_value_count(domain, f->variable))
      push_value_name(L, &n, f->variable, f->value);
    else
      lua_pushnil(L);
  } else {
    lua_pushnil(L);
    lua_setfield(L, why, "variable");
    lua_pushnil(L);
  }
  lua_setfield(L, why, "value");
  lua_settop(L, top);
}

/* fill_why_at for a domain method: the open domain is at stack index 1. */
static void fill_why(lua_State *L, LDomain *d, int why, const SpFailure *f)
{
  fill_why_at(L, 1, d->domain, why, f);
}

/* Runs the planner on d->s0 / d->goal. Returns the plan length, or -1
 * with *f filled when there is no plan. */
static int run_plan(lua_State *L, LDomain *d, SpFailure *f)
{
  int len = 0;
  SpStatus st;
  f->code = SP_FAIL_NONE;
  f->action = f->other_action = f->variable = f->value = -1;
  st = sp_plan(d->domain, d->ws, d->s0, d->goal, d->plan, &len, f);
  if (st == SP_OK)
    return len;
  if (st == SP_NO_PLAN)
    return -1;
  return luaL_error(L, "saspu: the planner failed (%s)", sp_status_name(st));
}

/* Reads argument `arg` of dom:plan as a start into d->s0. */
static void plan_start(lua_State *L, LDomain *d, const Names *n, int arg)
{
  if (lua_type(L, arg) == LUA_TSTRING) {
    push_uv(L, 1, UV_STARTS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) != LUA_TSTRING) {
      push_key_list(L, lua_gettop(L) - 1);
      luaL_error(L, "saspu.Domain:plan: start: unknown start '%s' (%s)",
                 lua_tostring(L, arg), lua_tostring(L, -1));
    }
    memcpy(d->s0, lua_tostring(L, -1), (size_t)d->nvars);
    lua_pop(L, 2);
  } else if (lua_type(L, arg) == LUA_TTABLE) {
    read_state(L, n, arg, d->nvars, d->s0, NULL, "saspu.Domain:plan: start");
  } else {
    luaL_typeerror(L, arg, "table or start name");
  }
}

/* Reads argument `arg` of dom:plan as a goal into d->goal; variables it
 * leaves out keep their start value. */
static void plan_goal(lua_State *L, LDomain *d, const Names *n, int arg)
{
  int v;
  if (lua_type(L, arg) == LUA_TSTRING) {
    const uint8_t *p;
    push_uv(L, 1, UV_GOALS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) != LUA_TSTRING) {
      push_key_list(L, lua_gettop(L) - 1);
      luaL_error(L, "saspu.Domain:plan: goal: unknown goal '%s' (%s)",
                 lua_tostring(L, arg), lua_tostring(L, -1));
    }
    p = (const uint8_t *)lua_tostring(L, -1);
    for (v = 0; v < d->nvars; v++)
      d->goal[v] = p[d->nvars + v] ? p[v] : d->s0[v];
    lua_pop(L, 2);
  } else if (lua_type(L, arg) == LUA_TTABLE) {
    read_state(L, n, arg, d->nvars, d->goal, d->mask, "saspu.Domain:plan: goal");
    for (v = 0; v < d->nvars; v++)
      if (!d->mask[v])
        d->goal[v] = d->s0[v];
  } else {
    luaL_typeerror(L, arg, "table or goal name");
  }
}

/* dom:plan(start, goal) -> { action names } | nil, why */
static int l_plan(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  SpFailure f;
  Names n;
  int len, i, names;
  lua_settop(L, 3);
  push_names(L, &n);
  plan_start(L, d, &n, 2);
  plan_goal(L, d, &n, 3);
  len = run_plan(L, d, &f);
  if (len < 0) {
    lua_pushnil(L);
    lua_createtable(L, 0, 6);
    fill_why(L, d, lua_gettop(L), &f);
    return 2;
  }
  push_uv(L, 1, UV_ACTION_NAMES);
  names = lua_gettop(L);
  lua_createtable(L, len, 0);
  for (i = 0; i < len; i++) {
    lua_rawgeti(L, names, d->plan[i] + 1);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* Reads a numeric state (packed string, or array of 1-based value ids)
 * at `arg` into vals. Raises on a wrong length or a value out of range. */
static void read_packed(lua_State *L, LDomain *d, int arg, SpValue *vals,
                        const char *fname, const char *what)
{
  int v, t = lua_type(L, arg);
  if (t == LUA_TSTRING) {
    size_t len;
    const uint8_t *p = (const uint8_t *)lua_tolstring(L, arg, &len);
    if (len != (size_t)d->nvars)
      luaL_error(L, "saspu.Domain:%s: %s: packed state of %d bytes, expected %d",
                 fname, what, (int)len, d->nvars);
    for (v = 0; v < d->nvars; v++) {
      if (p[v] >= d->counts[v])
        luaL_error(L, "saspu.Domain:%s: %s: byte %d is %d, out of range for '%s' (%d values)",
                   fname, what, v + 1, (int)p[v], sp_variable_name(d->domain, v),
                   (int)d->counts[v]);
      vals[v] = p[v];
    }
  } else if (t == LUA_TTABLE) {
    for (v = 0; v < d->nvars; v++) {
      int isnum;
      lua_Integer x;
      lua_rawgeti(L, arg, v + 1);
      x = lua_tointegerx(L, -1, &isnum);
      if (!isnum || x < 1 || x > d->counts[v])
        luaL_error(L, "saspu.Domain:%s: %s: [%d] must be a value id of '%s' (1 to %d)",
                   fname, what, v + 1, sp_variable_name(d->domain, v), (int)d->counts[v]);
      vals[v] = (SpValue)(x - 1);
      lua_pop(L, 1);
    }
  } else {
    luaL_typeerror(L, arg, "packed state string or array of value ids");
  }
}

/* dom:plan_ids(s0, goal [, out [, why]]) -> count, out | nil, why
 * The fast path: states are packed strings (dom:encode) or arrays of
 * 1-based value ids, both total; out[1..count] receives 1-based action
 * ids and entries after count are cleared. With the caller's `out` and
 * `why` tables nothing is allocated per call. */
static int l_plan_ids(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  SpFailure f;
  lua_Integer old, i;
  int len;
  read_packed(L, d, 2, d->s0, "plan_ids", "s0");
  read_packed(L, d, 3, d->goal, "plan_ids", "goal");
  lua_settop(L, 5);
  if (lua_isnil(L, 4)) {
    lua_newtable(L);
    lua_replace(L, 4);
  }
  luaL_checktype(L, 4, LUA_TTABLE);
  if (!lua_isnil(L, 5))
    luaL_checktype(L, 5, LUA_TTABLE);
  len = run_plan(L, d, &f);
  if (len < 0) {
    if (lua_isnil(L, 5)) {
      lua_createtable(L, 0, 6);
      lua_replace(L, 5);
    }
    fill_why(L, d, 5, &f);
    lua_pushnil(L);
    lua_pushvalue(L, 5);
    return 2;
  }
  old = (lua_Integer)lua_rawlen(L, 4);
  for (i = 0; i < len; i++) {
    lua_pushinteger(L, d->plan[i] + 1);
    lua_rawseti(L, 4, i + 1);
  }
  for (i = len + 1; i <= old; i++) {
    lua_pushnil(L);
    lua_rawseti(L, 4, i);
  }
  lua_pushinteger(L, len);
  lua_pushvalue(L, 4);
  return 2;
}

/* Reads `arg` (a state table, a start name or a goal name) into d->s0,
 * taking the variables it leaves out from `base` (same forms, or a packed
 * state) when given. */
static void encode_state(lua_State *L, LDomain *d, const Names *n, int arg, int base)
{
  int v, t = lua_type(L, arg);
  uint8_t *mask = d->mask; /* the base, read first, is done with it */
  if (base) {
    int is_start = 0;
    if (lua_type(L, base) == LUA_TSTRING) {
      push_uv(L, 1, UV_STARTS);
      lua_pushvalue(L, base);
      is_start = lua_rawget(L, -2) != LUA_TNIL;
      lua_pop(L, 2);
    }
    if (lua_type(L, base) == LUA_TSTRING && !is_start) {
      read_packed(L, d, base, d->goal, "encode", "base");
    } else {
      encode_state(L, d, n, base, 0);
      memcpy(d->goal, d->s0, (size_t)d->nvars);
    }
  }
  memset(mask, 1, (size_t)d->nvars);
  if (t == LUA_TSTRING) {
    const uint8_t *p;
    push_uv(L, 1, UV_STARTS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) == LUA_TSTRING) {
      memcpy(d->s0, lua_tostring(L, -1), (size_t)d->nvars);
    } else {
      push_uv(L, 1, UV_GOALS);
      lua_pushvalue(L, arg);
      if (lua_rawget(L, -2) != LUA_TSTRING)
        luaL_error(L, "saspu.Domain:encode: no start or goal named '%s'",
                   lua_tostring(L, arg));
      p = (const uint8_t *)lua_tostring(L, -1);
      memcpy(d->s0, p, (size_t)d->nvars);
      memcpy(mask, p + d->nvars, (size_t)d->nvars);
      lua_pop(L, 2);
    }
    lua_pop(L, 2);
  } else if (t == LUA_TTABLE) {
    read_state(L, n, arg, d->nvars, d->s0, mask, "saspu.Domain:encode");
  } else {
    luaL_typeerror(L, arg, "table, start name or goal name");
  }
  for (v = 0; v < d->nvars; v++) {
    if (mask[v])
      continue;
    if (!base)
      luaL_error(L, "saspu.Domain:encode: missing variable '%s' (give a base state)",
                 sp_variable_name(d->domain, v));
    d->s0[v] = d->goal[v];
  }
}

/* dom:encode(state [, base]) -> packed string, one byte per variable. */
static int l_encode(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  Names n;
  int has_base = !lua_isnoneornil(L, 3);
  lua_settop(L, 3);
  push_names(L, &n);
  encode_state(L, d, &n, 2, has_base ? 3 : 0);
  lua_pushlstring(L, (const char *)d->s0, (size_t)d->nvars);
  return 1;
}

/* dom:decode(packed or value-id array) -> { var = value name }. */
static int l_decode(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  Names n;
  int v;
  lua_settop(L, 2);
  read_packed(L, d, 2, d->s0, "decode", "state");
  push_names(L, &n);
  lua_createtable(L, 0, d->nvars);
  for (v = 0; v < d->nvars; v++) {
    lua_rawgeti(L, n.var_names, v + 1);
    push_value_name(L, &n, v, d->s0[v]);
    lua_rawset(L, -3);
  }
  return 1;
}

/* ================================================================== */
/* saspu.Grid: grid pathfinding                                       */
/* ================================================================== */

/* Lua coordinates are 1-based (x in 1..width, y in 1..height); the core's
 * are 0-based. Every conversion happens in check_cell and push_path. */

/* The saspu.Grid userdata. Every pointer is NULL until it is owned, and
 * NULL again after close, so __gc may run at any point. */
typedef struct LGrid {
  SpGrid *grid;
  SpGridWorkspace *ws; /* made by the first search, reused by every other */
  SpGridPoint *path;   /* the last path, through the Lua allocator */
  size_t path_cap;     /* entries allocated in `path` */
  SpGridResult last;   /* figures of the last search */
  SpGridAlgorithm last_algorithm;
  int searched;        /* a search ran: `last` means something */
  int found;           /* and it found a path */
  int width, height;
} LGrid;

/* Smallest path buffer; it then doubles as longer paths come. */
#define GRID_PATH_MIN 64

static SpAllocator lua_allocator(lua_State *L)
{
  SpAllocator a;
  a.fn = lua_getallocf(L, &a.ud);
  return a;
}

/* The saspu.Grid at `idx` (closed or not). */
static LGrid *to_grid(lua_State *L, int idx)
{
  return luaL_checkudata(L, idx, GRID_MT);
}

/* The open grid at `idx`. */
static LGrid *check_grid(lua_State *L, int idx)
{
  LGrid *g = to_grid(L, idx);
  if (!g->grid)
    luaL_argerror(L, idx, "saspu.Grid is closed");
  return g;
}

/* Argument `arg`, an integer in 1..limit, named `name` in the message;
 * returns it 0-based. */
static int check_cell(lua_State *L, int arg, const char *name, int limit)
{
  lua_Integer v = luaL_checkinteger(L, arg);
  if (v < 1 || v > limit)
    luaL_argerror(L, arg, lua_pushfstring(L, "%s = %I is outside 1..%d", name, v,
                                          limit));
  return (int)(v - 1);
}

/* Pushes the sentence for an invalid cost, "cost -1 is out of range: ...".
 * Costs go through %g, like the core's messages (lua_pushfstring's %f
 * would show 2 as 2.0). */
static const char *push_cost_error(lua_State *L, const char *prefix, double c)
{
  char buf[160];
  snprintf(buf, sizeof buf, "%scost %g is out of range: a cost is a number in [%g, %g]",
           prefix, c, SP_GRID_MIN_COST, SP_GRID_MAX_COST);
  lua_pushstring(L, buf);
  return lua_tostring(L, -1);
}

static int valid_cost(double c)
{
  return c >= SP_GRID_MIN_COST && c <= SP_GRID_MAX_COST; /* false for NaN */
}

/* Argument `arg`: a valid cost, or a default when `optional` and absent. */
static double check_cost(lua_State *L, int arg, int optional, double dflt)
{
  double c = optional ? (double)luaL_optnumber(L, arg, dflt)
                      : (double)luaL_checknumber(L, arg);
  if (!valid_cost(c))
    luaL_argerror(L, arg, push_cost_error(L, "", c));
  return c;
}

/* Argument `arg`: a boolean (nil is refused: a missing flag is a bug). */
static int check_flag(lua_State *L, int arg)
{
  luaL_checktype(L, arg, LUA_TBOOLEAN);
  return lua_toboolean(L, arg);
}

typedef struct Rect {
  int x, y, w, h; /* 0-based corner, size */
} Rect;

/* Arguments arg..arg+3: x, y, w, h of a rectangle inside the grid. The
 * corner must be a cell even for an empty rectangle. */
static Rect check_rect(lua_State *L, const LGrid *g, int arg)
{
  Rect r;
  lua_Integer w, h;
  r.x = check_cell(L, arg, "x", g->width);
  r.y = check_cell(L, arg + 1, "y", g->height);
  w = luaL_checkinteger(L, arg + 2);
  h = luaL_checkinteger(L, arg + 3);
  if (w < 0 || w > g->width - r.x)
    luaL_argerror(L, arg + 2, lua_pushfstring(L,
                  "w = %I does not fit: from x = %d the grid has room for 0..%d",
                  w, r.x + 1, g->width - r.x));
  if (h < 0 || h > g->height - r.y)
    luaL_argerror(L, arg + 3, lua_pushfstring(L,
                  "h = %I does not fit: from y = %d the grid has room for 0..%d",
                  h, r.y + 1, g->height - r.y));
  r.w = (int)w;
  r.h = (int)h;
  return r;
}

/* Pushes the core's error sentence with 1-based cells. */
static const char *push_grid_error(lua_State *L, const SpGridError *err)
{
  char buf[SP_ERROR_MESSAGE_SIZE];
  if (err->code == SP_GRID_E_MEMORY)
    lua_pushliteral(L, "not enough memory");
  else {
    sp_grid_error_format(err, 1, buf, sizeof buf);
    lua_pushstring(L, buf);
  }
  return lua_tostring(L, -1);
}

/* Raises an error the binding's own checks should have caught first (or
 * a memory failure): "saspu.Grid:<fname>: <core sentence>". */
static int grid_error(lua_State *L, const char *fname, const SpGridError *err)
{
  push_grid_error(L, err);
  return luaL_error(L, "%s: %s", fname, lua_tostring(L, -1));
}

/* Creates an empty saspu.Grid on the stack: nothing it could leak yet. */
static LGrid *new_grid_userdata(lua_State *L)
{
  LGrid *g = lua_newuserdatauv(L, sizeof *g, 0);
  memset(g, 0, sizeof *g);
  luaL_setmetatable(L, GRID_MT);
  return g;
}

static void grid_owns(LGrid *g, SpGrid *grid)
{
  g->grid = grid;
  g->width = sp_grid_width(grid);
  g->height = sp_grid_height(grid);
}

/* saspu.grid(w, h [, cost]) -> saspu.Grid, every cell open with `cost`
 * (default 1). */
static int l_grid(lua_State *L)
{
  lua_Integer w = luaL_checkinteger(L, 1), h = luaL_checkinteger(L, 2);
  double cost = check_cost(L, 3, 1, 1.0);
  SpGridError err;
  SpGrid *grid = NULL;
  LGrid *g;
  luaL_argcheck(L, w >= 1 && w <= SP_GRID_MAX_SIDE, 1,
                lua_pushfstring(L, "w = %I is outside 1..%d", w, SP_GRID_MAX_SIDE));
  luaL_argcheck(L, h >= 1 && h <= SP_GRID_MAX_SIDE, 2,
                lua_pushfstring(L, "h = %I is outside 1..%d", h, SP_GRID_MAX_SIDE));
  luaL_argcheck(L, w * h <= SP_GRID_MAX_CELLS, 2,
                lua_pushfstring(L, "a %Ix%I grid has more than %d cells", w, h,
                                SP_GRID_MAX_CELLS));
  lua_settop(L, 3);
  g = new_grid_userdata(L);
  if (sp_grid_new((int)w, (int)h, cost, lua_allocator(L), &grid, &err) != SP_OK)
    return grid_error(L, "saspu.grid", &err);
  grid_owns(g, grid);
  return 1;
}

/* saspu.grid_from_ascii(text) -> saspu.Grid drawn by the picture. */
static int l_grid_from_ascii(lua_State *L)
{
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  SpGridError err;
  SpGrid *grid = NULL;
  LGrid *g;
  lua_settop(L, 1);
  g = new_grid_userdata(L);
  if (sp_grid_new_ascii(text, len, lua_allocator(L), &grid, &err) != SP_OK) {
    if (err.code == SP_GRID_E_MEMORY)
      return grid_error(L, "saspu.grid_from_ascii", &err);
    return luaL_argerror(L, 1, push_grid_error(L, &err));
  }
  grid_owns(g, grid);
  return 1;
}

/* __gc and __close: frees the grid, its workspace and its path buffer;
 * safe to call any number of times and on a grid whose creation failed. */
static int l_grid_close(lua_State *L)
{
  LGrid *g = to_grid(L, 1);
  if (g->path) {
    void *ud;
    lua_Alloc f = lua_getallocf(L, &ud);
    f(ud, g->path, g->path_cap * sizeof *g->path, 0);
    g->path = NULL;
    g->path_cap = 0;
  }
  if (g->ws) {
    sp_grid_workspace_free(g->ws);
    g->ws = NULL;
  }
  if (g->grid) {
    sp_grid_free(g->grid);
    g->grid = NULL;
  }
  return 0;
}

static int l_grid_tostring(lua_State *L)
{
  LGrid *g = to_grid(L, 1);
  if (!g->grid)
    lua_pushliteral(L, "saspu.Grid (closed)");
  else
    lua_pushfstring(L, "saspu.Grid %dx%d", g->width, g->height);
  return 1;
}

static int l_grid_width(lua_State *L)
{
  lua_pushinteger(L, check_grid(L, 1)->width);
  return 1;
}

static int l_grid_height(lua_State *L)
{
  lua_pushinteger(L, check_grid(L, 1)->height);
  return 1;
}

/* g:cost(x, y) -> the cell's cost (kept while it is blocked). */
static int l_grid_cost(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  lua_pushnumber(L, (lua_Number)sp_grid_cost(g->grid, x, y));
  return 1;
}

/* g:is_blocked(x, y) -> boolean */
static int l_grid_is_blocked(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  lua_pushboolean(L, sp_grid_is_blocked(g->grid, x, y));
  return 1;
}

/* g:set_cost(x, y, cost): the cell keeps its blocked flag. */
static int l_grid_set_cost(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  double cost = check_cost(L, 4, 0, 0);
  SpGridError err;
  if (sp_grid_set_cost(g->grid, x, y, cost, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:set_cost", &err);
  return 0;
}

/* g:set_blocked(x, y, blocked): unblocking restores the cell's cost. */
static int l_grid_set_blocked(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  int blocked = check_flag(L, 4);
  SpGridError err;
  if (sp_grid_set_blocked(g->grid, x, y, blocked, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:set_blocked", &err);
  return 0;
}

/* g:fill_cost(x, y, w, h, cost): the cells keep their blocked flags. */
static int l_grid_fill_cost(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  Rect r = check_rect(L, g, 2);
  double cost = check_cost(L, 6, 0, 0);
  SpGridError err;
  if (sp_grid_fill_cost(g->grid, r.x, r.y, r.w, r.h, cost, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:fill_cost", &err);
  return 0;
}

/* g:fill_blocked(x, y, w, h, blocked) */
static int l_grid_fill_blocked(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  Rect r = check_rect(L, g, 2);
  int blocked = check_flag(L, 6);
  SpGridError err;
  if (sp_grid_fill_blocked(g->grid, r.x, r.y, r.w, r.h, blocked, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:fill_blocked", &err);
  return 0;
}

/* g:set_costs(x, y, w, h, values): values is an array of exactly w*h
 * entries, row by row; a cost opens the cell with that cost, 0 or false
 * blocks it. Everything is checked before the grid changes. The numbers
 * are gathered in a Lua-owned buffer, so an error leaks nothing. */
static int l_grid_set_costs(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  Rect r = check_rect(L, g, 2);
  lua_Integer n = (lua_Integer)r.w * r.h, len, i;
  double *vals;
  SpGridError err;
  luaL_checktype(L, 6, LUA_TTABLE);
  lua_settop(L, 6);
  len = (lua_Integer)lua_rawlen(L, 6);
  if (len != n)
    luaL_argerror(L, 6, lua_pushfstring(L, "values has %I entries, expected w*h = %I",
                                        len, n));
  vals = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *vals, 0);
  for (i = 0; i < n; i++) {
    int t = lua_rawgeti(L, 6, i + 1), cx = r.x + (int)(i % r.w) + 1,
        cy = r.y + (int)(i / r.w) + 1;
    if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
      vals[i] = SP_GRID_BLOCKED;
    } else if (t == LUA_TNUMBER) {
      double c = (double)lua_tonumber(L, -1);
      if (c != SP_GRID_BLOCKED && !valid_cost(c)) {
        lua_pushfstring(L, "values[%I] (cell (%d, %d)): ", i + 1, cx, cy);
        luaL_argerror(L, 6, push_cost_error(L, lua_tostring(L, -1), c));
      }
      vals[i] = c;
    } else {
      luaL_argerror(L, 6, lua_pushfstring(L,
                    "values[%I] (cell (%d, %d)): expected a cost, or 0 or false "
                    "for blocked, got %s", i + 1, cx, cy,
                    t == LUA_TBOOLEAN ? "true" : luaL_typename(L, -1)));
    }
    lua_pop(L, 1);
  }
  if (sp_grid_set_costs(g->grid, r.x, r.y, r.w, r.h, vals, &err) != SP_OK)
    return grid_error(L, "saspu.Grid:set_costs", &err);
  return 0;
}

/* g:set_map(x, y, text): paints an ASCII picture (the legend of
 * saspu.grid_from_ascii) with its top-left cell at (x, y). */
static int l_grid_set_map(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  int x = check_cell(L, 2, "x", g->width), y = check_cell(L, 3, "y", g->height);
  size_t len;
  const char *text = luaL_checklstring(L, 4, &len);
  SpGridError err;
  if (sp_grid_set_ascii(g->grid, x, y, text, len, &err) != SP_OK) {
    if (err.code == SP_GRID_E_MEMORY)
      return grid_error(L, "saspu.Grid:set_map", &err);
    return luaL_argerror(L, 4, push_grid_error(L, &err));
  }
  return 0;
}

/* Reads the search options at `arg` (nil or a table) into *q. Unknown
 * keys are refused, so a misspelt option does not pass silently. */
static void check_query(lua_State *L, int arg, SpGridQuery *q)
{
  q->algorithm = SP_GRID_ASTAR;
  q->allow_corner_cutting = 0;
  if (lua_isnoneornil(L, arg))
    return;
  luaL_checktype(L, arg, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, arg)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (k && strcmp(k, "algorithm") == 0) {
      const char *a = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      if (a && strcmp(a, "astar") == 0)
        q->algorithm = SP_GRID_ASTAR;
      else if (a && strcmp(a, "dijkstra") == 0)
        q->algorithm = SP_GRID_DIJKSTRA;
      else if (a)
        luaL_argerror(L, arg, lua_pushfstring(L,
                      "algorithm: expected 'astar' or 'dijkstra', got '%s'", a));
      else
        luaL_argerror(L, arg, lua_pushfstring(L,
                      "algorithm: expected 'astar' or 'dijkstra', got %s",
                      luaL_typename(L, -1)));
    } else if (k && strcmp(k, "corner_cutting") == 0) {
      if (!lua_isboolean(L, -1))
        luaL_argerror(L, arg, lua_pushfstring(L,
                      "corner_cutting: expected a boolean, got %s",
                      luaL_typename(L, -1)));
      q->allow_corner_cutting = lua_toboolean(L, -1);
    } else {
      const char *quote = k ? "'" : "", *shown = luaL_tolstring(L, -2, NULL);
      luaL_argerror(L, arg, lua_pushfstring(L,
                    "unknown option %s%s%s (expected algorithm, corner_cutting)",
                    quote, shown, quote));
    }
    lua_pop(L, 1);
  }
}

/* Grows the path buffer to hold `len` cells (doubling, so a script that
 * searches every frame stops allocating once warmed up). */
static void reserve_path(lua_State *L, LGrid *g, size_t len)
{
  size_t cap = g->path_cap ? g->path_cap : GRID_PATH_MIN;
  void *ud, *p;
  lua_Alloc f;
  if (len <= g->path_cap)
    return;
  while (cap < len)
    cap *= 2;
  f = lua_getallocf(L, &ud);
  p = f(ud, g->path, g->path_cap * sizeof *g->path, cap * sizeof *g->path);
  if (!p) /* the old buffer is still ours, and still in g */
    luaL_error(L, "saspu.Grid: not enough memory for a path of %d cells", (int)len);
  g->path = p;
  g->path_cap = cap;
}

/* Runs the search of g:path and g:path_into: the cells at arg..arg+3
 * (x0, y0, x1, y1) and the options at arg+4. Returns the path length
 * with the cells in g->path. When the search finds nothing in a way that
 * happens in play (a blocked endpoint, an unreachable target) it pushes
 * nil, the reason and its code ("blocked", "unreachable") and returns 0.
 * Out-of-range cells and bad options raise. */
static size_t grid_search(lua_State *L, LGrid *g, int arg, const char *fname)
{
  SpGridPoint from, to;
  SpGridQuery q;
  SpGridError err;
  SpStatus st;
  from.x = check_cell(L, arg, "x0", g->width);
  from.y = check_cell(L, arg + 1, "y0", g->height);
  to.x = check_cell(L, arg + 2, "x1", g->width);
  to.y = check_cell(L, arg + 3, "y1", g->height);
  check_query(L, arg + 4, &q);
  if (!g->ws && sp_grid_workspace_new(g->grid, NULL, lua_allocator(L), &g->ws, &err) != SP_OK) {
    g->ws = NULL;
    grid_error(L, fname, &err);
  }
  memset(&g->last, 0, sizeof g->last);
  st = sp_grid_find_path(g->grid, g->ws, from, to, &q, &g->last, &err);
  g->searched = 1;
  g->found = st == SP_OK;
  g->last_algorithm = q.algorithm;
  if (st == SP_OK) {
    reserve_path(L, g, g->last.length);
    sp_grid_workspace_path(g->ws, g->path, g->path_cap);
    return g->last.length;
  }
  if (err.code != SP_GRID_E_UNREACHABLE && err.code != SP_GRID_E_BLOCKED)
    grid_error(L, fname, &err);
  lua_pushnil(L);
  push_grid_error(L, &err);
  lua_pushstring(L, sp_grid_error_name(err.code));
  return 0;
}

/* g:path(x0, y0, x1, y1 [, opts]) -> { {x, y}, ... }, cost
 *                                   | nil, reason, "blocked"|"unreachable" */
static int l_grid_path(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  size_t len, i;
  lua_settop(L, 6);
  len = grid_search(L, g, 2, "saspu.Grid:path");
  if (len == 0)
    return 3;
  lua_createtable(L, (int)len, 0);
  for (i = 0; i < len; i++) {
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, g->path[i].x + 1);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, g->path[i].y + 1);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_pushnumber(L, (lua_Number)g->last.cost);
  return 2;
}

/* Sets out[from..to] to nil. */
static void clear_entries(lua_State *L, int out, lua_Integer from, lua_Integer to)
{
  for (; from <= to; from++) {
    lua_pushnil(L);
    lua_rawseti(L, out, from);
  }
}

/* g:path_into(out, x0, y0, x1, y1 [, opts]) -> count, cost
 *                                            | nil, reason, code
 * The per-frame form: out receives the count cells flat, x1, y1, x2, y2,
 * ..., and entries after 2*count are cleared (all of them on failure).
 * With the same out and opts tables every call, nothing is allocated
 * once out has grown to the longest path. */
static int l_grid_path_into(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  lua_Integer old, i;
  size_t len;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 7);
  old = (lua_Integer)lua_rawlen(L, 2);
  len = grid_search(L, g, 3, "saspu.Grid:path_into");
  if (len == 0) {
    clear_entries(L, 2, 1, old);
    return 3;
  }
  for (i = 0; i < (lua_Integer)len; i++) {
    lua_pushinteger(L, g->path[i].x + 1);
    lua_rawseti(L, 2, 2 * i + 1);
    lua_pushinteger(L, g->path[i].y + 1);
    lua_rawseti(L, 2, 2 * i + 2);
  }
  clear_entries(L, 2, 2 * (lua_Integer)len + 1, old);
  lua_pushinteger(L, (lua_Integer)len);
  lua_pushnumber(L, (lua_Number)g->last.cost);
  return 2;
}

static void set_int_field(lua_State *L, int t, const char *k, size_t v)
{
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, t, k);
}

/* g:last_stats([out]) -> { found, algorithm, expanded, pushed, heap_peak,
 * length, cost } of the last g:path or g:path_into on this grid. Filling
 * the caller's `out` allocates nothing. Before any search: found false,
 * algorithm nil, counts 0. */
static int l_grid_last_stats(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) {
    lua_createtable(L, 0, 7);
    lua_replace(L, 2);
  }
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushboolean(L, g->found);
  lua_setfield(L, 2, "found");
  if (g->searched)
    lua_pushstring(L, sp_grid_algorithm_name(g->last_algorithm));
  else
    lua_pushnil(L);
  lua_setfield(L, 2, "algorithm");
  set_int_field(L, 2, "expanded", g->last.expanded);
  set_int_field(L, 2, "pushed", g->last.pushed);
  set_int_field(L, 2, "heap_peak", g->last.heap_peak);
  set_int_field(L, 2, "length", g->last.length);
  if (g->found)
    lua_pushnumber(L, (lua_Number)g->last.cost);
  else
    lua_pushnil(L);
  lua_setfield(L, 2, "cost");
  return 1;
}

/* g:memory() -> bytes held by the grid and its search workspace. */
static int l_grid_memory(lua_State *L)
{
  LGrid *g = check_grid(L, 1);
  size_t bytes = sp_grid_size_bytes(g->grid) + g->path_cap * sizeof *g->path;
  if (g->ws)
    bytes += sp_grid_workspace_size_bytes(g->ws);
  lua_pushinteger(L, (lua_Integer)bytes);
  return 1;
}

static const luaL_Reg grid_meta[] = {
  { "__gc", l_grid_close },
  { "__close", l_grid_close },
  { "__tostring", l_grid_tostring },
  { NULL, NULL }
};

static const luaL_Reg grid_methods[] = {
  { "width", l_grid_width },
  { "height", l_grid_height },
  { "cost", l_grid_cost },
  { "is_blocked", l_grid_is_blocked },
  { "set_cost", l_grid_set_cost },
  { "set_blocked", l_grid_set_blocked },
  { "fill_cost", l_grid_fill_cost },
  { "fill_blocked", l_grid_fill_blocked },
  { "set_costs", l_grid_set_costs },
  { "set_map", l_grid_set_map },
  { "path", l_grid_path },
  { "path_into", l_grid_path_into },
  { "last_stats", l_grid_last_stats },
  { "memory", l_grid_memory },
  { "close", l_grid_close },
  { NULL, NULL }
};

static const luaL_Reg grid_module_fns[] = {
  { "grid", l_grid },
  { "grid_from_ascii", l_grid_from_ascii },
  { NULL, NULL }
};

/* Registers the saspu.Grid metatable and adds the grid constructors to
 * the module table on top of the stack. */
static void open_grid(lua_State *L)
{
  luaL_newmetatable(L, GRID_MT);          /* module mt */
  luaL_setfuncs(L, grid_meta, 0);
  luaL_newlib(L, grid_methods);           /* module mt methods */
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);                          /* module */
  luaL_setfuncs(L, grid_module_fns, 0);
}

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
 * its domain, which keeps `domain` allocated (see l_close). */
typedef struct LPopulation {
  SpPopulation *pop;
  const SpDomain *domain;
  LDomain *owner;
  size_t n;
  int nvars, nactions;
  uint16_t *plan;  /* nactions entries (at least 1) */
  SpValue *s0;     /* nvars entries each */
  SpValue *goal;
  SpValue *row;
  uint8_t *mask;   /* which variables a state argument gave */
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
} LPool;

/* The saspu.Population at `idx`, open or closed, checked against the
 * metatable every population function holds as upvalue 1. */
static LPopulation *to_population(lua_State *L, int idx)
{
  LPopulation *p = lua_touserdata(L, idx);
  int ok = p != NULL && lua_getmetatable(L, idx);
  if (ok) {
    ok = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
  }
  if (!ok)
    luaL_typeerror(L, idx, POPULATION_MT);
  return p;
}

/* The open population at `idx`, with stack room for any method. */
static LPopulation *check_population(lua_State *L, int idx)
{
  LPopulation *p = to_population(L, idx);
  if (!p->pop)
    luaL_argerror(L, idx, "saspu.Population is closed");
  luaL_checkstack(L, STACK_NEED, POPULATION_MT);
  return p;
}

/* Argument `arg`: an NPC index in 1..n; returns it 0-based. */
static size_t check_npc(lua_State *L, const LPopulation *p, int arg)
{
  lua_Integer i = luaL_checkinteger(L, arg);
  if (i < 1 || (lua_Unsigned)i > p->n) {
    if (p->n == 0)
      luaL_argerror(L, arg, lua_pushfstring(L, "npc %I: the population is empty", i));
    luaL_argerror(L, arg, lua_pushfstring(L, "npc %I is outside 1..%I", i,
                                          (lua_Integer)p->n));
  }
  return (size_t)(i - 1);
}

/* Checks that NPCs first .. first+count-1 (argument `arg` is first) lie
 * in 1..n; returns first 0-based. An empty range may start at n + 1. */
static size_t check_range(lua_State *L, const LPopulation *p, int arg,
                          lua_Integer first, size_t count)
{
  if (first < 1 || (lua_Unsigned)(first - 1) > p->n || count > p->n - (size_t)(first - 1))
    luaL_argerror(L, arg, lua_pushfstring(L, "npcs %I..%I are outside 1..%I", first,
                                          (lua_Integer)((lua_Unsigned)first + count - 1),
                                          (lua_Integer)p->n));
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
static int packed_error(lua_State *L, const LPopulation *p, int arg, size_t first,
                        int all, const char *fname, const SpError *err)
{
  if (err->code == SP_E_STATE_VALUE && err->variable >= 0 && err->variable < p->nvars) {
    const char *var = sp_variable_name(p->domain, err->variable);
    int count = sp_variable_value_count(p->domain, err->variable);
    if (all)
      return luaL_argerror(L, arg, lua_pushfstring(L,
                           "byte %d ('%s') is %d, out of range (%d values: 0..%d)",
                           err->variable + 1, var, err->value, count, count - 1));
    return luaL_argerror(L, arg, lua_pushfstring(L,
                         "byte %I (npc %I, '%s') is %d, out of range (%d values: 0..%d)",
                         (lua_Integer)(((size_t)err->index - first) * (size_t)p->nvars) +
                             err->variable + 1,
                         (lua_Integer)err->index + 1, var, err->value, count, count - 1));
  }
  return pop_error(L, fname, err);
}

/* Reads argument `arg` of a population method as a state into `out`:
 *   - a name: of a start (total) or, with `is_goal`, of a goal (partial);
 *   - a packed state of nvars bytes, as dom:encode makes (total);
 *   - a table { var = value }: total for a start, partial for a goal.
 * Names are looked up first, so a name is never taken for bytes. Sets
 * p->mask[v] for the variables given; returns whether all were. `dom` is
 * the stack index of the domain userdata and `n` its names; `where`
 * prefixes errors inside a table. */
static int pop_read_state(lua_State *L, LPopulation *p, int dom, const Names *n,
                          int arg, int is_goal, SpValue *out, const char *where)
{
  int nv = p->nvars, v, t = lua_type(L, arg);
  if (t == LUA_TSTRING) {
    size_t len;
    const char *s = lua_tolstring(L, arg, &len);
    push_uv(L, dom, is_goal ? UV_GOALS : UV_STARTS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) == LUA_TSTRING) {
      const uint8_t *q = (const uint8_t *)lua_tostring(L, -1);
      memcpy(out, q, (size_t)nv);
      if (is_goal)
        memcpy(p->mask, q + nv, (size_t)nv);
      else
        memset(p->mask, 1, (size_t)nv);
    } else if (len == (size_t)nv) {
      for (v = 0; v < nv; v++) {
        int x = (unsigned char)s[v], count = sp_variable_value_count(p->domain, v);
        if (x >= count)
          luaL_argerror(L, arg, lua_pushfstring(L,
                        "packed %s: byte %d ('%s') is %d, out of range (%d values: 0..%d)",
                        is_goal ? "goal" : "start", v + 1, sp_variable_name(p->domain, v),
                        x, count, count - 1));
        out[v] = (SpValue)x;
      }
      memset(p->mask, 1, (size_t)nv);
    } else {
      push_key_list(L, lua_gettop(L) - 1);
      luaL_argerror(L, arg, lua_pushfstring(L,
                    "unknown %s '%s' (%s), and not a packed state of %d bytes",
                    is_goal ? "goal" : "start", s, lua_tostring(L, -1), nv));
    }
    lua_pop(L, 2);
  } else if (t == LUA_TTABLE) {
    if (is_goal) {
      memset(p->mask, 0, (size_t)nv);
      read_state(L, n, arg, nv, out, p->mask, where);
    } else {
      read_state(L, n, arg, nv, out, NULL, where);
      memset(p->mask, 1, (size_t)nv);
    }
  } else {
    luaL_typeerror(L, arg, is_goal ? "goal name, packed state or table"
                                   : "start name, packed state or table");
  }
  for (v = 0; v < nv; v++)
    if (!p->mask[v])
      return 0;
  return 1;
}

/* Completes a partial goal: the variables p->mask leaves out take their
 * value from `base`. */
static void complete_goal(const LPopulation *p, SpValue *goal, const SpValue *base)
{
  int v;
  for (v = 0; v < p->nvars; v++)
    if (!p->mask[v])
      goal[v] = base[v];
}

/* Raises on a key of the options table at `arg` that is not in `allowed`. */
static int unknown_option(lua_State *L, int arg, const char *allowed)
{
  int named = lua_type(L, -2) == LUA_TSTRING;
  const char *shown = luaL_tolstring(L, -2, NULL);
  return luaL_argerror(L, arg, lua_pushfstring(L, "unknown option %s%s%s (expected %s)",
                       named ? "'" : "", shown, named ? "'" : "", allowed));
}

/* The value on top of the stack for option `name`: an integer in lo..hi. */
static lua_Integer option_integer(lua_State *L, int arg, const char *name,
                                  lua_Integer lo, lua_Integer hi)
{
  int isnum = 0;
  lua_Integer x = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
  if (!isnum || x < lo || x > hi)
    luaL_argerror(L, arg, lua_pushfstring(L, "%s: expected an integer in %I..%I, got %s",
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
      if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "cache_capacity") == 0)
        capacity = option_integer(L, 3, "cache_capacity", 0, SP_PLAN_CACHE_MAX_CAPACITY);
      else
        unknown_option(L, 3, "cache_capacity");
      lua_pop(L, 1);
    }
  }
  nv = sp_domain_variable_count(d->domain);
  na = sp_domain_action_count(d->domain);
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
  if (sp_population_new(d->domain, (size_t)n, lua_allocator(L), &pop, &err) != SP_OK)
    return core_error(L, "saspu.population", &err); /* nothing was allocated */
  p->pop = pop;
  p->domain = d->domain;
  p->owner = d;
  d->users++;
  if (capacity > 0 && sp_population_set_cache_capacity(pop, (uint32_t)capacity, &err) != SP_OK)
    return core_error(L, "saspu.population", &err);
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
  if (p->owner) {
    LDomain *d = p->owner;
    p->owner = NULL;
    p->domain = NULL;
    if (--d->users == 0 && d->orphan) {
      sp_domain_free(d->orphan);
      d->orphan = NULL;
    }
  }
  return 0;
}

static int l_pop_tostring(lua_State *L)
{
  LPopulation *p = to_population(L, 1);
  if (!p->pop)
    lua_pushliteral(L, "saspu.Population (closed)");
  else
    lua_pushfstring(L, "saspu.Population '%s' (%I NPC%s)", sp_domain_name(p->domain),
                    (lua_Integer)p->n, p->n == 1 ? "" : "s");
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

/* pop:set(i, start, goal): NPC i's state and goal; nil keeps the current
 * one. A goal that leaves variables out takes them from the start given,
 * or else from the NPC's current state. Everything is read and checked
 * before the NPC changes; it becomes dirty when something changed. */
static int l_pop_set(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  int has_start, has_goal, dom;
  Names n;
  SpError err;
  lua_settop(L, 4);
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
    complete_goal(p, p->goal, p->s0);
  }
  if (sp_population_set(p->pop, i, has_start ? p->s0 : NULL, has_goal ? p->goal : NULL,
                        &err) != SP_OK)
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
    luaL_argerror(L, 3, lua_pushfstring(L,
                  "%I bytes is not a whole number of states of %d bytes",
                  (lua_Integer)len, p->nvars));
  count = len / (size_t)p->nvars;
  first0 = check_range(L, p, 2, first, count);
  if (goals)
    st = sp_population_set_goals(p->pop, first0, count, (const SpValue *)s, &err);
  else
    st = sp_population_set_states(p->pop, first0, count, (const SpValue *)s, &err);
  if (st != SP_OK)
    return packed_error(L, p, 3, first0, 0, fname, &err);
  return 0;
}

static int l_pop_set_states(lua_State *L)
{
  return set_rows(L, 0);
}

static int l_pop_set_goals(lua_State *L)
{
  return set_rows(L, 1);
}

/* pop:set_goal_all(goal): one goal for every NPC (a goal name, a packed
 * state or a table). Variables a partial goal leaves out take each NPC's
 * current state value. */
static int l_pop_set_goal_all(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i;
  int dom, total;
  Names n;
  SpError err;
  lua_settop(L, 2);
  lua_getiuservalue(L, 1, UV_POP_DOMAIN);
  dom = lua_gettop(L);
  push_names_at(L, dom, &n);
  total = pop_read_state(L, p, dom, &n, 2, 1, p->goal, "saspu.Population:set_goal_all: goal");
  if (total) {
    if (sp_population_set_goal_all(p->pop, p->goal, &err) != SP_OK)
      return packed_error(L, p, 2, 0, 1, "set_goal_all", &err);
    return 0;
  }
  for (i = 0; i < p->n; i++) {
    memcpy(p->row, p->goal, (size_t)p->nvars);
    complete_goal(p, p->row, sp_population_state(p->pop, i));
    if (sp_population_set(p->pop, i, NULL, p->row, &err) != SP_OK)
      return pop_error(L, "set_goal_all", &err); /* checked above: not reached */
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
    luaL_argcheck(L, c >= 0, 3, lua_pushfstring(L, "count = %I is negative", c));
    count = (size_t)c;
    first0 = check_range(L, p, 2, first, count);
  }
  if (sp_population_mark_dirty(p->pop, first0, count, &err) != SP_OK)
    return pop_error(L, "mark_dirty", &err);
  return 0;
}

/* Reads the options of pop:plan at `arg` (nil or a table) into *o and
 * *threads, and pushes opts.report (or nil). budget_ms: nil or
 * math.huge for no budget; 0 for a budget already spent, which still
 * plans one chunk so that every call makes progress. */
static void check_plan_options(lua_State *L, int arg, SpPlanOptions *o, int *threads)
{
  static const char allowed[] = "threads, cache, budget_ms, report";
  int report = 0;
  *threads = 0;
  if (!lua_isnil(L, arg)) {
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
      if (strcmp(k, "threads") == 0) {
        *threads = (int)option_integer(L, arg, "threads", 0, SP_THREAD_POOL_MAX);
      } else if (strcmp(k, "cache") == 0) {
        if (!lua_isboolean(L, -1))
          luaL_argerror(L, arg, lua_pushfstring(L, "cache: expected a boolean, got %s",
                                                luaL_typename(L, -1)));
        o->no_cache = !lua_toboolean(L, -1);
      } else if (strcmp(k, "budget_ms") == 0) {
        int isnum = lua_type(L, -1) == LUA_TNUMBER;
        lua_Number ms = lua_tonumber(L, -1), ns;
        if (!isnum || !(ms >= 0))
          luaL_argerror(L, arg, lua_pushfstring(L,
                        "budget_ms: expected a number of milliseconds >= 0, got %s",
                        luaL_tolstring(L, -1, NULL)));
        ns = ms * 1e6;
        o->budget_ns = ns >= 1.8e19 ? 0 : ns < 1 ? 1 : (uint64_t)ns;
      } else if (strcmp(k, "report") == 0) {
        if (!lua_istable(L, -1))
          luaL_argerror(L, arg, lua_pushfstring(L, "report: expected a table, got %s",
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
  if (h->closed)
    return NULL;
  if (h->pool && sp_thread_pool_size(h->pool) >= want)
    return h->pool;
  if (sp_thread_pool_new(size, lua_allocator(L), &fresh, &err) != SP_OK)
    luaL_error(L, "saspu.Population:plan: cannot start %d threads: %s", size, err.message);
  sp_thread_pool_free(h->pool);
  h->pool = fresh;
  return fresh;
}

/* pop:plan([opts]) -> report
 * Plans the dirty NPCs in C on `threads` workers (0: every core; the
 * workers of all populations come from one shared pool), through the
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
  int threads;
  lua_settop(L, 2);
  memset(&o, 0, sizeof o);
  check_plan_options(L, 2, &o, &threads);
  if (threads == 0)
    threads = h->cores;
  if (threads > SP_THREAD_POOL_MAX)
    threads = SP_THREAD_POOL_MAX;
  o.threads = threads;
  if (threads > 1)
    o.pool = shared_pool(L, h, threads);
  if (sp_population_plan(p->pop, &o, &r, &err) != SP_OK)
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
    SpStatus st = sp_population_explain(p->pop, i, &f, &err);
    if (st == SP_NO_PLAN) {
      lua_getiuservalue(L, 1, UV_POP_DOMAIN);
      fill_why_at(L, lua_gettop(L), p->domain, why, &f);
      lua_pop(L, 1);
      return 2;
    }
    if (st != SP_OK)
      return pop_error(L, "plan_of", &err);
  }
  lua_pushfstring(L, "npc %I had no plan (%s) for the state and goal it was planned "
                  "with; they have changed since", (lua_Integer)i + 1,
                  failure_code_name(code));
  lua_setfield(L, why, "message");
  lua_pushstring(L, failure_code_name(code));
  lua_setfield(L, why, "code");
  return 2;
}

/* Stores NPC i's plan in the table at `out` (created when nil) as action
 * names or 1-based ids, clears the entries after it, and returns its
 * length; -1 (with nil, why pushed) when the NPC has no plan. */
static int push_npc_plan(lua_State *L, LPopulation *p, size_t i, int out, int ids)
{
  lua_Integer old, k;
  int len = 0, names = 0;
  if (sp_population_plan_of(p->pop, i, p->plan, &len) != SP_OK) {
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
  for (k = len + 1; k <= old; k++) {
    lua_pushnil(L);
    lua_rawseti(L, out, k);
  }
  if (names)
    lua_pop(L, 1);
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
  if (!lua_isnil(L, 3))
    luaL_checktype(L, 3, LUA_TTABLE);
  if (push_npc_plan(L, p, i, 3, 0) < 0)
    return 2;
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
  if (!lua_isnil(L, 3))
    luaL_checktype(L, 3, LUA_TTABLE);
  len = push_npc_plan(L, p, i, 3, 1);
  if (len < 0)
    return 2;
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
  int id = k >= 0 && k < SP_MAX_ACTIONS ? sp_population_plan_step(p->pop, i, (int)k) : -1;
  if (id < 0)
    return 0;
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
  lua_pushlstring(L, (const char *)sp_population_state(p->pop, i), (size_t)p->nvars);
  return 1;
}

static int l_pop_goal(lua_State *L)
{
  LPopulation *p = check_population(L, 1);
  size_t i = check_npc(L, p, 2);
  lua_pushlstring(L, (const char *)sp_population_goal(p->pop, i), (size_t)p->nvars);
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
  sp_population_stats(p->pop, &s);
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

/* saspu.clock_ns() -> a monotonic clock in nanoseconds (for timing). */
static int l_clock_ns(lua_State *L)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + (lua_Integer)ts.tv_nsec);
  return 1;
}

/* saspu.cores() -> the online cores: the workers of threads = 0. */
static int l_cores(lua_State *L)
{
  lua_pushinteger(L, sp_online_cores());
  return 1;
}

static const luaL_Reg population_meta[] = {
  { "__gc", l_pop_close },
  { "__close", l_pop_close },
  { "__tostring", l_pop_tostring },
  { "__len", l_pop_size },
  { NULL, NULL }
};

static const luaL_Reg population_methods[] = {
  { "size", l_pop_size },
  { "domain", l_pop_domain },
  { "set", l_pop_set },
  { "set_states", l_pop_set_states },
  { "set_goals", l_pop_set_goals },
  { "set_goal_all", l_pop_set_goal_all },
  { "mark_dirty", l_pop_mark_dirty },
  { "plan", l_pop_plan },
  { "status", l_pop_status },
  { "plan_of", l_pop_plan_of },
  { "plan_ids_of", l_pop_plan_ids_of },
  { "steps", l_pop_steps },
  { "state", l_pop_state },
  { "goal", l_pop_goal },
  { "stats", l_pop_stats },
  { "clear_cache", l_pop_clear_cache },
  { "close", l_pop_close },
  { NULL, NULL }
};

/* Registers the saspu.Population metatable and the shared pool, and adds
 * saspu.population, saspu.clock_ns and saspu.cores to the module table on
 * top of the stack. Every population function holds the metatable and
 * the pool as upvalues 1 and 2. */
static void open_population(lua_State *L)
{
  LPool *h;
  luaL_newmetatable(L, POOL_MT);          /* module poolmt */
  lua_pushcfunction(L, l_pool_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);                          /* module */
  h = lua_newuserdatauv(L, sizeof *h, 0); /* module pool */
  h->pool = NULL;
  h->closed = 0;
  h->cores = sp_online_cores();
  luaL_setmetatable(L, POOL_MT);
  luaL_newmetatable(L, POPULATION_MT);    /* module pool mt */
  lua_pushvalue(L, -1);
  lua_pushvalue(L, -3);
  luaL_setfuncs(L, population_meta, 2);
  luaL_newlibtable(L, population_methods); /* module pool mt methods */
  lua_pushvalue(L, -2);
  lua_pushvalue(L, -4);
  luaL_setfuncs(L, population_methods, 2);
  lua_setfield(L, -2, "__index");         /* module pool mt */
  lua_pushvalue(L, -1);
  lua_pushvalue(L, -3);
  lua_pushcclosure(L, l_population, 2);   /* module pool mt population */
  lua_setfield(L, -4, "population");
  lua_pop(L, 2);                          /* module */
  lua_pushcfunction(L, l_clock_ns);
  lua_setfield(L, -2, "clock_ns");
  lua_pushcfunction(L, l_cores);
  lua_setfield(L, -2, "cores");
}

/* ================================================================== */
/* Module                                                             */
/* ================================================================== */

static const luaL_Reg domain_meta[] = {
  { "__gc", l_close },
  { "__close", l_close },
  { "__tostring", l_tostring },
  { NULL, NULL }
};

static const luaL_Reg domain_methods[] = {
  { "plan", l_plan },
  { "plan_ids", l_plan_ids },
  { "encode", l_encode },
  { "decode", l_decode },
  { "action_name", l_action_name },
  { "action_id", l_action_id },
  { "actions", l_actions },
  { "variables", l_variables },
  { "goals", l_goals },
  { "starts", l_starts },
  { "explain", l_explain },
  { "close", l_close },
  { NULL, NULL }
};

static const luaL_Reg module_fns[] = {
  { "domain", l_domain },
  { NULL, NULL }
};

/* The module is built with hidden visibility: only this symbol is exported. */
__attribute__((visibility("default"))) int luaopen_saspu_core(lua_State *L);

int luaopen_saspu_core(lua_State *L)
{
  luaL_checkversion(L);
  /* every function here holds the metatable as upvalue 1 */
  luaL_newmetatable(L, DOMAIN_MT);        /* mt */
  lua_pushvalue(L, -1);
  luaL_setfuncs(L, domain_meta, 1);
  luaL_newlibtable(L, domain_methods);    /* mt methods */
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, domain_methods, 1);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, l_index, 2);        /* mt methods __index(mt, methods) */
  lua_setfield(L, -3, "__index");
  lua_pop(L, 1);                          /* mt */
  luaL_newlibtable(L, module_fns);        /* mt module */
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, module_fns, 1);
  open_grid(L);
  open_population(L);
  return 1;
}
