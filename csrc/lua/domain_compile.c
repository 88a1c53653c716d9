/* domain_compile.c: saspu.domain: a Lua domain table read into Lua-owned buffers, compiled by the core into a saspu.Domain. */
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* The compile step: a Lua table -> SpDomainSpec -> SpDomain          */
/* ================================================================== */

/* Stack slots used while compiling (absolute indices). */
enum {
  S_SPEC = 1, /* the argument table */
  S_DOMAIN,   /* the result userdata */
  S_VAR_IDS,
  S_VAR_NAMES,
  S_VALUE_IDS,
  S_VALUE_NAMES,
  S_ACTION_IDS,
  S_ACTION_NAMES,
  S_PARAMS,
  S_ANCHORS, /* Lua-owned buffers and strings the spec points into */
  S_VARS,    /* userdata: SpVariableSpec[nv] */
  S_ACTIONS, /* userdata: SpActionSpec[na] */
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
        if (strcmp(k, allowed[i]) == 0) ok = 1;
    }
    if (!ok) {
      raise_error(L, where, "unknown field %s (expected %s)", shown_name(L, -2),
                  expected);
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
    raise_error(L, where, "%s: expected a non-empty string, got %s", field,
                s ? "an empty string" : luaL_typename(L, -1));
  if (len > SP_MAX_NAME)
    raise_error(L, where, "%s: %s is longer than %d bytes", field,
                shown_name(L, -1), SP_MAX_NAME);
  if (strlen(s) != len)
    raise_error(L, where, "%s: %s contains a zero byte", field,
                shown_name(L, -1));
  return s;
}

/* Pushes the table at field `field` of `tbl`, raising when it is not a table. */
static void read_table(lua_State *L, int tbl, const char *field,
                       const char *where)
{
  if (lua_getfield(L, tbl, field) != LUA_TTABLE)
    raise_error(L, where, "%s: expected a table, got %s", field,
                luaL_typename(L, -1));
}

/* Raises unless the table on top of the stack is an array 1..n: a map
 * keyed by name (actions = { feed = { ... } }) would otherwise be read as
 * 0 entries, dropping what the scripter wrote. `shape` shows one entry. */
static void check_array(lua_State *L, const char *field, lua_Integer n,
                        const char *shape)
{
  int tbl = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    int isint;
    lua_Integer k = lua_tointegerx(L, -2, &isint);
    if (lua_type(L, -2) != LUA_TNUMBER || !isint || k < 1 || k > n) {
      const char *key = luaL_tolstring(L, -2, NULL);
      raise_error(
          L, "saspu.domain",
          "%s: expected an array in declaration order, { %s, ... }, got a "
          "table with the key %s%s%s (a map keyed by name? list the entries "
          "in order, each with its name field)",
          field, shape, lua_type(L, -3) == LUA_TSTRING ? "'" : "", key,
          lua_type(L, -3) == LUA_TSTRING ? "'" : "");
    }
    lua_pop(L, 1);
  }
}

/* Anchors the value on top of the stack in S_ANCHORS (pops nothing). */
static void anchor(lua_State *L)
{
  lua_pushvalue(L, -1);
  lua_rawseti(L, S_ANCHORS, (lua_Integer)lua_rawlen(L, S_ANCHORS) + 1);
}

/* Opens entry i of the list at `list` (`list_name` is "variables" or
 * "actions", `kind` "variable" or "action"): raises unless it is a table
 * with a non-empty name, only `allowed` fields and a name not seen
 * before; registers the name in the tables at `ids` (name -> i - 1) and
 * `names` (array). Leaves the entry, its name and two path strings on
 * the stack; returns the entry's index, with *name and *where (the path
 * "saspu.domain: actions[3] 'name'") pointing into them. */
static int open_named_entry(lua_State *L, int list, lua_Integer i,
                            const char *list_name, const char *kind,
                            const char *const *allowed, const char *expected,
                            int ids, int names, const char **name,
                            const char **where)
{
  int entry;
  if (lua_geti(L, list, i) != LUA_TTABLE)
    raise_error(L, "saspu.domain", "%s[%I]: expected a table, got %s",
                list_name, i, luaL_typename(L, -1));
  entry = lua_gettop(L);
  *where = lua_pushfstring(L, "saspu.domain: %s[%I]", list_name, i);
  *name = read_name(L, entry, "name", *where);
  *where = lua_pushfstring(L, "saspu.domain: %s[%I] '%s'", list_name, i, *name);
  check_fields(L, entry, allowed, *where, expected);
  lua_pushvalue(L, -2);
  if (lua_rawget(L, ids) != LUA_TNIL)
    raise_error(L, *where, "duplicate %s name (also %s[%I])", kind, list_name,
                lua_tointeger(L, -1) + 1);
  lua_pop(L, 1);
  lua_pushvalue(L, -2);
  lua_pushinteger(L, i - 1);
  lua_rawset(L, ids);
  lua_pushvalue(L, -2);
  lua_rawseti(L, names, i);
  return entry;
}

/* variables = { { name = ..., values = { ... } }, ... }: fills the name
 * tables and the SpVariableSpec array, in declaration order. */
static int compile_variables(lua_State *L)
{
  static const char *const fields[] = {"name", "values", NULL};
  SpVariableSpec *vars;
  lua_Integer nv, i, j;
  read_table(L, S_SPEC, "variables", "saspu.domain");
  nv = luaL_len(L, -1);
  check_array(L, "variables", nv,
              "{ name = \"bucket\", values = { \"on_floor\", \"in_hands\" } }");
  if (nv < 1)
    raise_error(L, "saspu.domain", "variables: expected at least one variable");
  if (nv > SP_MAX_VARIABLES)
    raise_error(L, "saspu.domain",
                "variables: %I variables, at most %d allowed", nv,
                SP_MAX_VARIABLES);
  vars = lua_newuserdatauv(L, (size_t)nv * sizeof *vars, 0);
  lua_replace(L, S_VARS);
  for (i = 1; i <= nv; i++) {
    int entry, top = lua_gettop(L);
    lua_Integer nvals;
    const char *name, *where, **vnames;
    entry =
        open_named_entry(L, top, i, "variables", "variable", fields,
                         "name, values", S_VAR_IDS, S_VAR_NAMES, &name, &where);

    read_table(L, entry, "values", where);
    nvals = luaL_len(L, -1);
    if (nvals < 2)
      raise_error(L, where, "values: expected at least 2 values, got %I",
                  nvals);
    if (nvals > SP_MAX_VALUES)
      raise_error(L, where,
                  "values: %I values, at most %d allowed (one byte per value, "
                  "255 means any)",
                  nvals, SP_MAX_VALUES);
    vnames = lua_newuserdatauv(L, (size_t)nvals * sizeof *vnames, 0);
    anchor(L);
    lua_pop(L, 1);
    lua_newtable(L); /* value name -> index */
    lua_newtable(L); /* value names */
    for (j = 1; j <= nvals; j++) {
      size_t len;
      int values = lua_gettop(L) - 2;
      /* a boolean declares the value named "true" or "false"; the
       * declared form (boolean) is what decode, starts, ... give back */
      if (lua_geti(L, values, j) == LUA_TBOOLEAN) {
        lua_pushstring(L, lua_toboolean(L, -1) ? "true" : "false");
      } else if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0) {
        raise_error(
            L, where,
            "values[%I]: expected a non-empty string or a boolean, got %s", j,
            lua_type(L, -1) == LUA_TSTRING ? "an empty string"
                                           : luaL_typename(L, -1));
      } else {
        lua_pushvalue(L, -1);
      }
      values = lua_gettop(L) - 4; /* then ids, names, declared, name */
      vnames[j - 1] = lua_tolstring(L, -1, &len);
      if (len > SP_MAX_NAME)
        raise_error(L, where, "values[%I]: %s is longer than %d bytes", j,
                    shown_name(L, -1), SP_MAX_NAME);
      if (strlen(vnames[j - 1]) != len)
        raise_error(L, where, "values[%I]: %s contains a zero byte", j,
                    shown_name(L, -1));
      lua_pushvalue(L, -1);
      if (lua_rawget(L, values + 1) != LUA_TNIL)
        raise_error(L, where,
                    "values[%I] '%s': duplicate value (also values[%I])", j,
                    vnames[j - 1], lua_tointeger(L, -1) + 1);
      lua_pop(L, 1);
      lua_pushvalue(L, -2);
      lua_rawseti(L, values + 2, j); /* the declared form */
      lua_pushinteger(L, j - 1);
      lua_rawset(L, values + 1); /* the name stays anchored as a key */
      lua_pop(L, 1);
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
    for (j = i; j > 0 && c[j - 1].variable > x.variable; j--) c[j] = c[j - 1];
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
    raise_error(L, where, "prevail: %d conditions, at most %d allowed", count,
                SP_MAX_PREVAILS);
  conds = lua_newuserdatauv(L, (size_t)(count ? count : 1) * sizeof *conds, 0);
  anchor(L);
  lua_pop(L, 1);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    int key = lua_gettop(L) - 1, v;
    if (lua_type(L, key) != LUA_TSTRING) {
      const char *s = luaL_tolstring(L, key, NULL);
      raise_error(L, where,
                  "prevail: expected variable names as keys, got %s key %s",
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
static void compile_params(lua_State *L, int entry, lua_Integer i,
                           const char *where)
{
  lua_Integer np, j;
  int t = lua_getfield(L, entry, "params");
  lua_newtable(L);
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE)
      raise_error(L, where, "params: expected a table, got %s",
                  luaL_typename(L, -2));
    np = luaL_len(L, -2);
    for (j = 1; j <= np; j++) {
      if (lua_geti(L, -2, j) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
        raise_error(L, where, "params[%I]: expected a non-empty string, got %s",
                    j,
                    lua_type(L, -1) == LUA_TSTRING ? "an empty string"
                                                   : luaL_typename(L, -1));
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
  static const char *const fields[] = {"name",    "var",    "pre", "post",
                                       "prevail", "params", NULL};
  SpActionSpec *acts;
  lua_Integer na, i;
  read_table(L, S_SPEC, "actions", "saspu.domain");
  na = luaL_len(L, -1);
  check_array(L, "actions", na,
              "{ name = \"fill\", var = \"bucket\", pre = \"empty\", post = "
              "\"full\" }");
  if (na > SP_MAX_ACTIONS)
    raise_error(L, "saspu.domain", "actions: %I actions, at most %d allowed",
                na, SP_MAX_ACTIONS);
  acts = lua_newuserdatauv(L, (size_t)(na ? na : 1) * sizeof *acts, 0);
  lua_replace(L, S_ACTIONS);
  for (i = 1; i <= na; i++) {
    int entry, top = lua_gettop(L), var, t;
    const char *name, *where;
    SpActionSpec *a = &acts[i - 1];
    entry = open_named_entry(L, top, i, "actions", "action", fields,
                             "name, var, pre, post, prevail, params",
                             S_ACTION_IDS, S_ACTION_NAMES, &name, &where);
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
      raise_error(L, where, "prevail: expected a table, got %s",
                  luaL_typename(L, -1));
    }
    compile_params(L, entry, i, where);
    lua_settop(L, top);
  }
  lua_pop(L, 1);
  return (int)na;
}

/* Packs every named state of `field` (goals or starts) into a string kept
 * in a new table left on the stack: starts are total (one byte per
 * variable), goals partial (values, then their GOAL_* marks: a left-out
 * variable is free, one given as saspu.KEEP keeps its start value). */
static void compile_states(lua_State *L, const Names *n, int nv,
                           const char *field, int partial, SpValue *buf)
{
  int t = lua_getfield(L, S_SPEC, field), tbl;
  lua_newtable(L);
  if (t == LUA_TNIL) return;
  if (t != LUA_TTABLE)
    raise_error(L, "saspu.domain", "%s: expected a table, got %s", field,
                luaL_typename(L, -2));
  tbl = lua_gettop(L) - 1;
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    const char *where;
    if (lua_type(L, -2) != LUA_TSTRING || lua_rawlen(L, -2) == 0) {
      if (lua_type(L, -2) == LUA_TSTRING)
        raise_error(L, "saspu.domain",
                    "%s: expected non-empty names as keys, got ''", field);
      raise_error(L, "saspu.domain",
                  "%s: expected names as keys, got %s key %s", field,
                  luaL_typename(L, -2), luaL_tolstring(L, -2, NULL));
    }
    if (lua_rawlen(L, -2) > SP_MAX_NAME ||
        strlen(lua_tostring(L, -2)) != lua_rawlen(L, -2))
      raise_error(L, "saspu.domain",
                  "%s: %s: a name is 1 to %d bytes without zero bytes", field,
                  shown_name(L, -2), SP_MAX_NAME);
    where =
        lua_pushfstring(L, "saspu.domain: %s.%s", field, lua_tostring(L, -2));
    if (!lua_istable(L, -2))
      raise_error(L, where, "expected a table, got %s", luaL_typename(L, -2));
    memset(buf, 0, (size_t)nv * 2);
    read_state(L, n, lua_gettop(L) - 1, nv, buf, partial ? buf + nv : NULL,
               where);
    lua_pop(L, 2);
    lua_pushvalue(L, -1);
    lua_pushlstring(L, (const char *)buf, (size_t)nv * (partial ? 2 : 1));
    lua_rawset(L, tbl + 1);
  }
}

/* saspu.domain(spec) -> saspu.Domain. Follows the house compile order:
 * the result userdata exists (empty, with its metatable) before anything
 * can fail; the table is read into Lua-owned buffers; the core compiles;
 * only then can an error escape, with every allocation owned. */
int l_domain(lua_State *L)
{
  static const char *const fields[] = {
      "name", "variables", "actions", "goals", "starts", "allow_outside", NULL};
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
  for (t = S_VAR_IDS; t <= S_ANCHORS; t++) lua_newtable(L);
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
    raise_error(L, "saspu.domain", "allow_outside: expected a boolean, got %s",
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
  alloc = core_allocator(L);
  /* compile outside domains too: the refusal then quotes the whole
   * explanation, which may not fit in SpError's message */
  allow_outside = opts.allow_outside;
  opts.allow_outside = 1;
  if (sp_domain_compile(&spec, &opts, alloc, &d->domain, &err) != SP_OK) {
    d->domain = NULL; /* the core leaves nothing behind on failure */
    return core_error(L, "saspu.domain", &err);
  }
  if (!allow_outside && sp_domain_class(d->domain) == SP_CLASS_OUTSIDE) {
    push_formatted(L, (const SpDomain *const *)&d->domain, DOMAIN_MT,
                   fmt_explain, NULL);
    return raise_error(L, "saspu.domain",
                       "%s(set allow_outside = true to accept it)",
                       lua_tostring(L, -1));
  }
  d->nvars = nv;
  d->nactions = na;
  if (sp_workspace_new(d->domain, alloc, &d->ws, &err) != SP_OK) {
    d->ws = NULL;
    return core_error(L, "saspu.domain", &err);
  }

  /* 16-bit arrays first for alignment, then the byte arrays */
  scratch =
      ((size_t)(na ? na : 1) + (size_t)nv) * sizeof(uint16_t) + 3 * (size_t)nv;
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
  account_c_memory(L, &d->held,
                   sp_domain_size_bytes(d->domain) +
                       sp_workspace_size_bytes(d->ws));
  lua_pushvalue(L, S_DOMAIN);
  return 1;
}
