/* domain.c: saspu.Domain: lifetime, introspection (actions, variables, goals, starts, explain) and registration. */
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* saspu.Domain: lifetime and introspection                           */
/* ================================================================== */

/* The saspu.Domain at `idx`, open or closed (see to_userdata_of_upvalue). */
static LDomain *to_domain(lua_State *L, int idx)
{
  return to_userdata_of_upvalue(L, idx, DOMAIN_MT);
}

/* The open domain at `idx`, with stack room for any method. */
LDomain *check_domain(lua_State *L, int idx)
{
  LDomain *d = to_domain(L, idx);
  if (!d->domain) luaL_argerror(L, idx, "saspu.Domain is closed");
  luaL_checkstack(L, STACK_NEED, "saspu.Domain");
  return d;
}

/* A population or crowd lets go of its domain: the last user frees a
 * domain that Lua closed meanwhile. */
void domain_release(LDomain *d)
{
  if (--d->users == 0 && d->orphan) {
    sp_domain_free(d->orphan);
    d->orphan = NULL;
  }
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
  release_c_memory(L,
                   &d->held); /* an orphan is small next to its populations */
  return 0;
}

static int l_tostring(lua_State *L)
{
  LDomain *d = to_domain(L, 1);
  if (!d->domain) {
    lua_pushliteral(L, "saspu.Domain (closed)");
    return 1;
  }
  lua_pushfstring(L, "saspu.Domain '%s' (%d action%s, %s)",
                  sp_domain_name(d->domain), d->nactions,
                  d->nactions == 1 ? "" : "s",
                  sp_class_name(sp_domain_class(d->domain)));
  return 1;
}

/* __index: methods first, then the read-only fields `class` and `name`. */
static int l_index(lua_State *L)
{
  LDomain *d = to_domain(L, 1);
  const char *k;
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL) return 1;
  k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
  if (k && (strcmp(k, "class") == 0 || strcmp(k, "name") == 0)) {
    if (!d->domain) return luaL_error(L, "saspu.Domain is closed");
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
  push_formatted(L, (const SpDomain *const *)&d->domain, DOMAIN_MT, fmt_explain,
                 NULL);
  return 1;
}

static int action_in_cycle(const SpDomain *dom, int a)
{
  int v = sp_action_variable(dom, a), nc = sp_variable_cycle_count(dom, v), c,
      i;
  for (c = 0; c < nc; c++)
    for (i = 0; i < sp_variable_cycle_length(dom, v, c); i++)
      if (sp_variable_cycle_action(dom, v, c, i) == a) return 1;
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
    /* read the core first: the tables below are Lua points (binding.h) */
    const SpDomain *dom = live_domain(L, d);
    int v = sp_action_variable(dom, a), np;
    int pre = sp_action_pre(dom, a), post = sp_action_post(dom, a);
    int requestable = sp_action_is_requestable(dom, a),
        in_cycle = action_in_cycle(dom, a);
    lua_createtable(L, 0, 9);
    lua_pushinteger(L, a + 1);
    lua_setfield(L, -2, "id");
    lua_rawgeti(L, names, a + 1);
    lua_setfield(L, -2, "name");
    lua_rawgeti(L, n.var_names, v + 1);
    lua_setfield(L, -2, "var");
    push_value_name(L, &n, v, pre);
    lua_setfield(L, -2, "pre");
    push_value_name(L, &n, v, post);
    lua_setfield(L, -2, "post");
    np = sp_action_prevail_count(live_domain(L, d), a);
    lua_createtable(L, 0, np);
    dom = live_domain(L, d);
    for (i = 0; i < np; i++) { /* raw accesses only: no Lua point */
      SpCondition c = sp_action_prevail(dom, a, i);
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
    lua_pushboolean(L, requestable);
    lua_setfield(L, -2, "requestable");
    lua_pushboolean(L, in_cycle);
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
    const SpDomain *dom = live_domain(L, d);
    int nvals = sp_variable_value_count(dom, v);
    int ncycles = sp_variable_cycle_count(dom, v), c;
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
      int clen = sp_variable_cycle_length(live_domain(L, d), v, c);
      lua_createtable(L, clen, 0);
      dom = live_domain(L, d); /* the table was a Lua point */
      for (i = 0; i < clen; i++) {
        lua_rawgeti(L, names, sp_variable_cycle_action(dom, v, c, i) + 1);
        lua_rawseti(L, -2, i + 1);
      }
      lua_rawseti(L, -2, c + 1);
    }
    lua_setfield(L, -2, "cycles");
    lua_rawseti(L, -2, v + 1);
  }
  return 1;
}

/* dom:problems() -> { { variable, cycle = { action names }, connected,
 * path = { { action | nil, variable, value, edge = "pre" | "prevail",
 * forward }, ... } }, ... }: the class problems of an outside domain
 * (empty in a class), as dom:explain lists them; `path` is the first
 * connecting path of a connected 2-cycle (nodes set variable = value;
 * `edge` and `forward` describe the edge from the node before). */
static int l_problems(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  SpProblem pr[SASPU_LUA_LIST_MAX];
  SpPathNode *path;
  Names n;
  int count, i, j, names;
  size_t room = (size_t)d->nactions + 1;
  lua_settop(L, 1);
  count = sp_domain_problems(d->domain, pr, SASPU_LUA_LIST_MAX);
  if (count < 0) return luaL_error(L, "saspu.Domain:problems: out of memory");
  push_names(L, &n);
  push_uv(L, 1, UV_ACTION_NAMES);
  names = lua_gettop(L);
  /* a path visits an action or ghost once: actions + values bound it */
  for (i = 0; i < d->nvars; i++)
    room += (size_t)sp_variable_value_count(d->domain, i);
  path = lua_newuserdatauv(L, room * sizeof *path, 0);
  if (count > SASPU_LUA_LIST_MAX) count = SASPU_LUA_LIST_MAX;
  lua_createtable(L, count, 0);
  for (i = 0; i < count; i++) {
    int v = pr[i].variable, len, c;
    lua_createtable(L, 0, 4);
    lua_rawgeti(L, n.var_names, v + 1);
    lua_setfield(L, -2, "variable");
    len = sp_variable_cycle_length(d->domain, v, pr[i].cycle);
    lua_createtable(L, len, 0);
    for (c = 0; c < len; c++) {
      lua_rawgeti(L, names,
                  sp_variable_cycle_action(d->domain, v, pr[i].cycle, c) + 1);
      lua_rawseti(L, -2, c + 1);
    }
    lua_setfield(L, -2, "cycle");
    lua_pushboolean(L, pr[i].connected);
    lua_setfield(L, -2, "connected");
    len = sp_domain_problem_path(d->domain, i, path, (int)room);
    if (len < 0) return luaL_error(L, "saspu.Domain:problems: out of memory");
    lua_createtable(L, len, 0);
    for (j = 0; j < len; j++) {
      lua_createtable(L, 0, 5);
      if (path[j].action >= 0) {
        lua_rawgeti(L, names, path[j].action + 1);
        lua_setfield(L, -2, "action");
      }
      lua_rawgeti(L, n.var_names, path[j].variable + 1);
      lua_setfield(L, -2, "variable");
      push_value_name(L, &n, path[j].variable, path[j].value);
      lua_setfield(L, -2, "value");
      if (j > 0) {
        lua_pushstring(L, path[j].prevail ? "prevail" : "pre");
        lua_setfield(L, -2, "edge");
        lua_pushboolean(L, path[j].forward);
        lua_setfield(L, -2, "forward");
      }
      lua_rawseti(L, -2, j + 1);
    }
    lua_setfield(L, -2, "path");
    lua_rawseti(L, -2, i + 1);
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
      if (partial && !p[d->nvars + v]) continue;
      lua_rawgeti(L, n.var_names, v + 1);
      if (partial && p[d->nvars + v] == GOAL_KEEP)
        push_keep_marker(L);
      else
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

/* dom:goals() -> { name = partial state }, copies of the declared goals
 * (saspu.KEEP where a goal keeps the start value). */
static int l_goals(lua_State *L) { return push_state_copies(L, UV_GOALS, 1); }

/* dom:starts() -> { name = total state }, copies of the declared starts. */
static int l_starts(lua_State *L) { return push_state_copies(L, UV_STARTS, 0); }

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

/* dom:action_id(name) -> id; raises when no action has this name (a
 * misspelt name must not pass silently as nil). */
static int l_action_id(lua_State *L)
{
  check_domain(L, 1);
  luaL_checkstring(L, 2);
  push_uv(L, 1, UV_ACTION_IDS);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNUMBER) {
    push_key_list(L, lua_gettop(L) - 1);
    return luaL_error(L, "saspu.Domain:action_id: no action named '%s' (%s)",
                      lua_tostring(L, 2), lua_tostring(L, -1));
  }
  lua_pushinteger(L, lua_tointeger(L, -1) + 1);
  return 1;
}

static const luaL_Reg domain_meta[] = {{"__gc", l_close},
                                       {"__close", l_close},
                                       {"__tostring", l_tostring},
                                       {NULL, NULL}};

static const luaL_Reg domain_methods[] = {{"action_name", l_action_name},
                                          {"action_id", l_action_id},
                                          {"actions", l_actions},
                                          {"variables", l_variables},
                                          {"goals", l_goals},
                                          {"starts", l_starts},
                                          {"explain", l_explain},
                                          {"problems", l_problems},
                                          {"close", l_close},
                                          {NULL, NULL}};

/* Registers the saspu.Domain metatable and adds saspu.domain to the
 * module table on top of the stack. Every domain function holds the
 * metatable as upvalue 1, which to_domain checks against. */
void open_domain(lua_State *L)
{
  luaL_newmetatable(L, DOMAIN_MT); /* module mt */
  lua_pushvalue(L, -1);
  luaL_setfuncs(L, domain_meta, 1);
  luaL_newlibtable(L, domain_methods); /* module mt methods */
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, domain_methods, 1);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, l_index, 2); /* module mt methods __index(mt, methods) */
  lua_setfield(L, -3, "__index");
  lua_setfield(L, -3,
               "domain_methods");   /* module mt: init.lua adds Lua methods */
  lua_pushcclosure(L, l_domain, 1); /* module domain(mt) */
  lua_setfield(L, -2, "domain");
}
