/* domain_plan.c: saspu.Domain planning methods: plan, plan_ids, encode, decode, and the `why` of a missing plan. */
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* Planning                                                           */
/* ================================================================== */

const char *failure_code_name(SpFailureCode c)
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
 * name; nil when not relevant), and free_variable: the variable's name
 * when the goal leaves it free. `dom` is the stack index of the domain
 * userdata whose compiled form is `*domain` (fetched again after each Lua
 * point; `type` names its holder when it is gone: see binding.h). Every
 * value is on the stack before the first lua_setfield, which may run the
 * caller's __newindex. */
void fill_why_at(lua_State *L, int dom, const SpDomain *const *domain,
                 const char *type, int why, const SpFailure *f)
{
  static const char *const keys[7] = {"message",      "code",     "action",
                                      "other_action", "variable", "value",
                                      "free_variable"};
  Names n;
  int top = lua_gettop(L), names, nactions, nvars, has_value, first, k;
  const SpDomain *cd;
  push_names_at(L, dom, &n);
  push_uv(L, dom, UV_ACTION_NAMES);
  names = lua_gettop(L);
  first = names + 1;
  push_formatted(L, domain, type, fmt_failure, f);
  cd = *domain;
  if (!cd) closed_during_call(L, type);
  nactions = sp_domain_action_count(cd);
  nvars = sp_domain_variable_count(cd);
  has_value = f->variable >= 0 && f->variable < nvars && f->value >= 0 &&
              f->value < sp_variable_value_count(cd, f->variable);
  lua_pushstring(L, failure_code_name(f->code));
  if (f->action >= 0 && f->action < nactions)
    lua_rawgeti(L, names, f->action + 1);
  else
    lua_pushnil(L);
  if (f->other_action >= 0 && f->other_action < nactions)
    lua_rawgeti(L, names, f->other_action + 1);
  else
    lua_pushnil(L);
  if (f->variable >= 0 && f->variable < nvars)
    lua_rawgeti(L, n.var_names, f->variable + 1);
  else
    lua_pushnil(L);
  if (has_value)
    push_value_name(L, &n, f->variable, f->value);
  else
    lua_pushnil(L);
  if (f->free_variable && f->variable >= 0 && f->variable < nvars)
    lua_rawgeti(L, n.var_names, f->variable + 1);
  else
    lua_pushnil(L);
  for (k = 0; k < 7; k++) { /* in this order, from the slots above */
    lua_pushvalue(L, first + k);
    lua_setfield(L, why, keys[k]);
  }
  lua_settop(L, top);
}

/* fill_why_at for a domain method: the domain is at stack index 1. */
static void fill_why(lua_State *L, LDomain *d, int why, const SpFailure *f)
{
  fill_why_at(L, 1, (const SpDomain *const *)&d->domain, DOMAIN_MT, why, f);
}

/* Runs the planner on d->s0 / d->goal. Returns the plan length, or -1
 * with *f filled when there is no plan. */
static int run_plan(lua_State *L, LDomain *d, SpFailure *f)
{
  int len = 0;
  SpStatus st;
  f->code = SP_FAIL_NONE;
  f->action = f->other_action = f->variable = f->value = -1;
  f->free_variable = 0;
  st = sp_plan(live_domain(L, d), d->ws, d->s0, d->goal, d->plan, &len, f);
  if (st == SP_OK) return len;
  if (st == SP_NO_PLAN) return -1;
  return luaL_error(L, "saspu: the planner failed (%s)", sp_status_name(st));
}

static void read_packed(lua_State *L, LDomain *d, int arg, SpValue *vals,
                        const char *fname, const char *what, int goal);

/* Is the string at `arg` (not a declared name) a packed state? Then it is
 * read into vals; else raises "unknown <what> '...'" listing the names in
 * the table just below the top of the stack. */
static void plan_packed_or_raise(lua_State *L, LDomain *d, int arg,
                                 SpValue *vals, const char *what)
{
  if (lua_rawlen(L, arg) == (size_t)d->nvars) {
    read_packed(L, d, arg, vals, "plan", what, vals == d->goal);
    return;
  }
  push_key_list(L, lua_gettop(L) - 1);
  shown_name(L, arg);
  luaL_error(
      L,
      "saspu.Domain:plan: %s: unknown %s %s (%s; or a packed state of %d "
      "bytes from dom:encode)",
      what, what, lua_tostring(L, -1), lua_tostring(L, -2), d->nvars);
}

/* Reads argument `arg` of dom:plan as a start into d->s0. */
static void plan_start(lua_State *L, LDomain *d, const Names *n, int arg)
{
  if (lua_type(L, arg) == LUA_TSTRING) {
    push_uv(L, 1, UV_STARTS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) != LUA_TSTRING)
      plan_packed_or_raise(L, d, arg, d->s0, "start");
    else
      memcpy(d->s0, lua_tostring(L, -1), (size_t)d->nvars);
    lua_pop(L, 2);
  } else if (lua_type(L, arg) == LUA_TTABLE) {
    read_state(L, n, arg, d->nvars, d->s0, NULL, "saspu.Domain:plan: start");
  } else {
    luaL_typeerror(L, arg, "table or start name");
  }
}

/* Reads argument `arg` of dom:plan as a goal into d->goal: a condition,
 * whose left-out variables are free (SP_ANY), or keep their start value
 * with `keep`; a saspu.KEEP value keeps it too. */
static void plan_goal(lua_State *L, LDomain *d, const Names *n, int arg,
                      int keep)
{
  if (lua_type(L, arg) == LUA_TSTRING) {
    push_uv(L, 1, UV_GOALS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) != LUA_TSTRING) {
      plan_packed_or_raise(L, d, arg, d->goal, "goal"); /* byte 255: free */
      marks_of_goal(d->goal, d->mask, d->nvars);
    } else {
      read_named_goal(lua_tostring(L, -1), d->nvars, d->goal, d->mask);
    }
    lua_pop(L, 2);
  } else if (lua_type(L, arg) == LUA_TTABLE) {
    read_state(L, n, arg, d->nvars, d->goal, d->mask,
               "saspu.Domain:plan: goal");
  } else {
    luaL_typeerror(L, arg, "table or goal name");
  }
  resolve_goal(d->goal, d->mask, d->s0, d->nvars, keep);
}

static const char *const BLOCKER_KINDS[] = {"none", "nothing_sets",
                                            "no_way_out", "order"};

/* Pushes the name of value x of variable v (nil when either is -1). */
static void push_opt_value(lua_State *L, const Names *n, int v, int x)
{
  if (v < 0 || x < 0)
    lua_pushnil(L);
  else
    push_value_name(L, n, v, x);
}

/* why.blocker = { kind, variable, current, needs, action (nil: the goal
 * itself), missing (the missing link as a phrase), link = { variable,
 * from, to }, message }: what blocks s0 -> goal, in the domain's words
 * (sp_plan_blocker). `dom` is the stack index of the domain userdata
 * whose compiled form is *domain (fetched again after each Lua point;
 * `type` names its holder); s0 and goal must stay valid across Lua points
 * (Lua-owned, or the caller's copies). */
static void push_blocker(lua_State *L, int dom, const SpDomain *const *domain,
                         const char *type, int why, int top,
                         const SpBlocker *bp);

void fill_blocker_at(lua_State *L, int dom, const SpDomain *const *domain,
                     const char *type, int why, const SpValue *s0,
                     const SpValue *goal, const SpFailure *f)
{
  SpBlocker b;
  int top = lua_gettop(L);
  dom = lua_absindex(L, dom);
  why = lua_absindex(L, why);
  if (!*domain) closed_during_call(L, type);
  void *scratch = lua_newuserdatauv(L, sp_blocker_scratch_size(*domain), 0);
  if (!*domain) closed_during_call(L, type);
  sp_plan_blocker(*domain, s0, goal, f, scratch, &b);
  push_blocker(L, dom, domain, type, why, top, &b);
}

/* fill_blocker_at for a goal of sets of dom:plan (sp_plan_any_blocker
 * over its `count` choices, planned with the domain's workspace). */
static void fill_blocker_any(lua_State *L, LDomain *d, int why,
                             const SpValue *goals, int count)
{
  SpBlocker b;
  int top = lua_gettop(L);
  why = lua_absindex(L, why);
  void *scratch =
      lua_newuserdatauv(L, sp_blocker_scratch_size(live_domain(L, d)), 0);
  sp_plan_any_blocker(live_domain(L, d), d->ws, d->s0, goals, count, d->plan,
                      scratch, &b);
  push_blocker(L, 1, (const SpDomain *const *)&d->domain, DOMAIN_MT, why, top,
               &b);
}

/* Sets why.blocker from *bp and restores the stack to `top`. */
static void push_blocker(lua_State *L, int dom, const SpDomain *const *domain,
                         const char *type, int why, int top,
                         const SpBlocker *bp)
{
  SpBlocker b = *bp;
  Names n;
  int t, actions;
  push_names_at(L, dom, &n);
  push_uv(L, dom, UV_ACTION_NAMES);
  actions = lua_gettop(L);
  if (!*domain) closed_during_call(L, type);
  lua_createtable(L, 0, 9);
  t = lua_gettop(L);
  lua_pushstring(L, BLOCKER_KINDS[b.kind]);
  lua_setfield(L, t, "kind");
  if (b.variable >= 0) {
    lua_rawgeti(L, n.var_names, b.variable + 1);
    lua_setfield(L, t, "variable");
  }
  push_opt_value(L, &n, b.variable, b.current);
  lua_setfield(L, t, "current");
  push_opt_value(L, &n, b.variable, b.needed);
  lua_setfield(L, t, "needs");
  if (b.action >= 0) {
    lua_rawgeti(L, actions, b.action + 1);
    lua_setfield(L, t, "action");
  }
  if (b.only_choice > 0) {
    lua_pushinteger(L, b.only_choice);
    lua_setfield(L, t, "choice");
  }
  push_formatted(L, domain, type, fmt_blocker, &b);
  lua_setfield(L, t, "message");
  if (b.link_to >= 0) {
    push_formatted(L, domain, type, fmt_link, &b);
    lua_setfield(L, t, "missing");
    lua_createtable(L, 0, 3);
    lua_rawgeti(L, n.var_names, b.variable + 1);
    lua_setfield(L, -2, "variable");
    push_value_name(L, &n, b.variable, b.link_from);
    lua_setfield(L, -2, "from");
    push_value_name(L, &n, b.variable, b.link_to);
    lua_setfield(L, -2, "to");
    lua_setfield(L, t, "link");
  }
  lua_setfield(L, why, "blocker");
  lua_settop(L, top);
}

/* dom:plan(start, goal [, opts]) -> { action names } | nil, why
 * opts: { keep = true }: the variables the goal leaves out keep their
 * start value (else they are free). A goal table may give a variable a
 * set of values or saspu.NOT(...) (goal_sets.c): the plan is a shortest
 * one to any member (sp_plan_any). */
static int l_plan(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  SpFailure f;
  Names n;
  int len, i, names, keep;
  lua_settop(L, 4);
  keep = goal_options(L, 4);
  push_names(L, &n);
  plan_start(L, d, &n, 2);
  if (lua_istable(L, 3) && goal_has_sets(L, 3)) {
    int count = read_goal_choices(L, d, &n, 3, keep);
    const SpValue *goals = lua_touserdata(L, -1); /* Lua-owned: stays valid */
    if (sp_plan_any(live_domain(L, d), d->ws, d->s0, goals, count, d->plan,
                    &len, NULL, &f) != SP_OK) {
      lua_pushnil(L);
      lua_createtable(L, 0, 8);
      fill_why(L, d, lua_gettop(L), &f);
      fill_blocker_any(L, d, lua_gettop(L), goals, count);
      return 2;
    }
  } else {
    plan_goal(L, d, &n, 3, keep);
    len = run_plan(L, d, &f);
  }
  if (len < 0) {
    lua_pushnil(L);
    lua_createtable(L, 0, 8);
    fill_why(L, d, lua_gettop(L), &f);
    fill_blocker_at(L, 1, (const SpDomain *const *)&d->domain, DOMAIN_MT,
                    lua_gettop(L), d->s0, d->goal, &f);
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

static const char *const order_kinds[] = {"pre", "prevail", "threat",
                                          "restore"};

/* dom:plan_order(start, goal) -> plan, orders | nil, why
 * The plan (action names, as dom:plan) and the partial order the planner
 * built for it: { { from = name, to = name, kind = "pre" | "prevail" |
 * "threat" | "restore" }, ... } in the planner's order. For tools and
 * debugging: it allocates a table per order. */
static int l_plan_order(lua_State *L)
{
  int n, i;
  LDomain *d;
  if (l_plan(L) == 2) return 2;
  d = check_domain(L, 1);
  push_uv(L, 1, UV_ACTION_NAMES);
  n = sp_workspace_order_count(d->ws);
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    SpOrder o = sp_workspace_order(d->ws, i);
    lua_createtable(L, 0, 3);
    lua_rawgeti(L, -3, o.from + 1);
    lua_setfield(L, -2, "from");
    lua_rawgeti(L, -3, o.to + 1);
    lua_setfield(L, -2, "to");
    lua_pushstring(L, o.kind < 4 ? order_kinds[o.kind] : "?");
    lua_setfield(L, -2, "kind");
    lua_rawseti(L, -2, i + 1);
  }
  lua_remove(L, -2);
  return 2;
}

/* Reads a numeric state (packed string, or array of 1-based value ids)
 * at `arg` into vals. Raises on a wrong length or a value out of range.
 * A `goal` may leave variables free: byte 255 (saspu.ANY), or id 0 in an
 * array; they are read as SP_ANY. */
static void read_packed(lua_State *L, LDomain *d, int arg, SpValue *vals,
                        const char *fname, const char *what, int goal)
{
  int v, t = lua_type(L, arg);
  if (t == LUA_TSTRING) {
    size_t len;
    const uint8_t *p = (const uint8_t *)lua_tolstring(L, arg, &len);
    if (len != (size_t)d->nvars)
      luaL_error(L,
                 "saspu.Domain:%s: %s: packed state of %d bytes, expected %d",
                 fname, what, (int)len, d->nvars);
    for (v = 0; v < d->nvars; v++) {
      if (p[v] >= d->counts[v] && !(goal && p[v] == SP_ANY))
        luaL_error(L,
                   "saspu.Domain:%s: %s: byte %d is %d, out of range for '%s' "
                   "(%d values%s)",
                   fname, what, v + 1, (int)p[v],
                   sp_variable_name(live_domain(L, d), v), (int)d->counts[v],
                   goal ? "; 255: free" : "");
      vals[v] = p[v];
    }
  } else if (t == LUA_TTABLE) {
    for (v = 0; v < d->nvars; v++) {
      int isnum;
      lua_Integer x;
      int top = lua_gettop(L);
      int names = lua_rawgeti(L, arg, v + 1) == LUA_TSTRING;
      if (!names && v == 0 && lua_isnil(L, -1)) { /* a table { var = value }? */
        lua_pushnil(L);
        names = lua_next(L, arg) != 0 && lua_type(L, -2) == LUA_TSTRING;
        lua_settop(L, top + 1); /* the nil of entry 1 */
      }
      if (names)
        luaL_error(L,
                   "saspu.Domain:%s: %s: got value names; this fast path takes "
                   "a packed "
                   "state (dom:encode(state)) or an array of 1-based value ids "
                   "({ 1, 1, 3 })",
                   fname, what);
      x = lua_tointegerx(L, -1, &isnum);
      if (!isnum || x < (goal ? 0 : 1) || x > d->counts[v])
        luaL_error(
            L,
            "saspu.Domain:%s: %s: [%d] must be a value id of '%s' (1 to %d%s)",
            fname, what, v + 1, sp_variable_name(live_domain(L, d), v),
            (int)d->counts[v], goal ? "; 0: free" : "");
      vals[v] = x == 0 ? SP_ANY : (SpValue)(x - 1);
      lua_pop(L, 1);
    }
  } else {
    luaL_typeerror(L, arg, "packed state string or array of value ids");
  }
}

/* dom:plan_ids(s0, goal [, out [, why]]) -> count, out | nil, why
 * The fast path: states are packed strings (dom:encode) or arrays of
 * 1-based value ids, the goal's free variables byte 255 or id 0 (see
 * read_packed); out[1..count] receives 1-based action
 * ids and entries after count are cleared. With the caller's `out` and
 * `why` tables nothing is allocated per call. */
static int l_plan_ids(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  SpFailure f;
  lua_Integer old, i;
  int len;
  read_packed(L, d, 2, d->s0, "plan_ids", "s0", 0);
  read_packed(L, d, 3, d->goal, "plan_ids", "goal", 1);
  lua_settop(L, 5);
  if (lua_isnil(L, 4)) {
    lua_newtable(L);
    lua_replace(L, 4);
  }
  luaL_checktype(L, 4, LUA_TTABLE);
  if (!lua_isnil(L, 5)) luaL_checktype(L, 5, LUA_TTABLE);
  old = (lua_Integer)lua_rawlen(L, 4);
  len = run_plan(L, d, &f);
  if (len < 0) {
    clear_array(L, 4, 1, old); /* no stale plan a script could run */
    if (lua_isnil(L, 5)) {
      lua_createtable(L, 0, 6);
      lua_replace(L, 5);
    }
    fill_why(L, d, 5, &f);
    lua_pushnil(L);
    lua_pushvalue(L, 5);
    return 2;
  }
  for (i = 0; i < len; i++) {
    lua_pushinteger(L, d->plan[i] + 1);
    lua_rawseti(L, 4, i + 1);
  }
  clear_array(L, 4, len + 1, old);
  lua_pushinteger(L, len);
  lua_pushvalue(L, 4);
  return 2;
}

/* Reads `arg` (a state table, a start name or a goal name) into d->s0.
 * The variables it leaves out, and those it gives as saspu.KEEP, come
 * from `base` (a start name, a total table, a packed state) when given;
 * without a base, left-out variables are free: SP_ANY (a packed goal). */
static void encode_state(lua_State *L, LDomain *d, const Names *n, int arg,
                         int base)
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
      read_packed(L, d, base, d->goal, "encode", "base", 0);
    } else {
      encode_state(L, d, n, base, 0);
      memcpy(d->goal, d->s0, (size_t)d->nvars);
      for (v = 0; v < d->nvars; v++)
        if (d->goal[v] == SP_ANY)
          luaL_error(
              L,
              "saspu.Domain:encode: base: missing variable '%s' (a base gives "
              "every variable)",
              var_name(L, n, v));
    }
  }
  memset(mask, GOAL_SET, (size_t)d->nvars);
  if (t == LUA_TSTRING) {
    push_uv(L, 1, UV_STARTS);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) == LUA_TSTRING) {
      memcpy(d->s0, lua_tostring(L, -1), (size_t)d->nvars);
    } else {
      push_uv(L, 1, UV_GOALS);
      lua_pushvalue(L, arg);
      if (lua_rawget(L, -2) != LUA_TSTRING)
        luaL_error(L, "saspu.Domain:encode: no start or goal named %s",
                   shown_name(L, arg));
      read_named_goal(lua_tostring(L, -1), d->nvars, d->s0, mask);
      lua_pop(L, 2);
    }
    lua_pop(L, 2);
  } else if (t == LUA_TTABLE) {
    read_state(L, n, arg, d->nvars, d->s0, mask, "saspu.Domain:encode");
  } else {
    luaL_typeerror(L, arg, "table, start name or goal name");
  }
  for (v = 0; v < d->nvars; v++) {
    if (mask[v] == GOAL_SET) continue;
    if (!base && mask[v] == GOAL_KEEP)
      luaL_error(
          L,
          "saspu.Domain:encode: '%s' keeps its start value (saspu.KEEP): "
          "give the start as a base",
          var_name(L, n, v));
    d->s0[v] = base ? d->goal[v] : SP_ANY;
  }
}

/* dom:encode(state [, base]) -> packed string, one byte per variable:
 * the 0-based value index, or 255 (saspu.ANY) for a goal's free one. */
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

/* dom:decode(packed or value-id array) -> { var = value name }; a
 * packed goal's free variables (byte 255) are absent. */
static int l_decode(lua_State *L)
{
  LDomain *d = check_domain(L, 1);
  Names n;
  int v;
  lua_settop(L, 2);
  read_packed(L, d, 2, d->s0, "decode", "state", 1);
  push_names(L, &n);
  lua_createtable(L, 0, d->nvars);
  for (v = 0; v < d->nvars; v++) {
    if (d->s0[v] == SP_ANY) continue;
    lua_rawgeti(L, n.var_names, v + 1);
    push_value_name(L, &n, v, d->s0[v]);
    lua_rawset(L, -3);
  }
  return 1;
}

static const luaL_Reg plan_methods[] = {{"plan", l_plan},
                                        {"plan_ids", l_plan_ids},
                                        {"plan_order", l_plan_order},
                                        {"encode", l_encode},
                                        {"decode", l_decode},
                                        {NULL, NULL}};

/* Adds the planning methods to saspu.Domain's method table (the module
 * table on top of the stack holds it as domain_methods, open_domain made
 * it); each holds the metatable as upvalue 1, as the other methods do. */
void open_domain_plan(lua_State *L)
{
  lua_getfield(L, -1, "domain_methods"); /* module methods */
  luaL_getmetatable(L, DOMAIN_MT);       /* module methods mt */
  luaL_setfuncs(L, plan_methods, 1);
  lua_pop(L, 1);
}
