/* names.c: shared helpers of the binding: raising errors with a path, name lists and lookups, reading states, formatted core text. */
#include <float.h>
#include <stdarg.h>
#include <string.h>

#include "binding.h"

/* ================================================================== */
/* Small helpers                                                      */
/* ================================================================== */

/* Raises "<caller position>: <where>: <message>", like luaL_error with a
 * path. Nothing of ours is on the C heap when this is called: every
 * buffer is a Lua object. */
int raise_error(lua_State *L, const char *where, const char *fmt, ...)
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

/* Pushes and returns the string at `idx` quoted for a message: 'name',
 * zero bytes shown as \0, and past SASPU_LUA_NAME_SHOWN bytes cut to its
 * ends with its size: 'aaaaaaaa...aaa' (1048576 bytes). Other values as
 * luaL_tolstring shows them, unquoted. */
const char *shown_name(lua_State *L, int idx)
{
  luaL_Buffer b;
  size_t len, i, head, tail;
  const char *s;
  if (lua_type(L, idx) != LUA_TSTRING) return luaL_tolstring(L, idx, NULL);
  s = lua_tolstring(L, idx, &len);
  head = len > SASPU_LUA_NAME_SHOWN ? SASPU_LUA_NAME_SHOWN - 16 : len;
  tail = len > SASPU_LUA_NAME_SHOWN ? 8 : 0;
  luaL_buffinit(L, &b);
  luaL_addchar(&b, '\'');
  for (i = 0; i < head + tail; i++) {
    char c = s[i < head ? i : len - tail + (i - head)];
    if (i == head) luaL_addstring(&b, "...");
    if (c == '\0')
      luaL_addstring(&b, "\\0");
    else
      luaL_addchar(&b, c);
  }
  luaL_addchar(&b, '\'');
  if (tail) {
    lua_pushfstring(L, " (%I bytes)", (lua_Integer)len);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

/* Pushes "a, b, c" built from the Lua array at `arr` (strings), cut after
 * SASPU_LUA_LIST_MAX names. */
static void push_name_list(lua_State *L, int arr)
{
  luaL_Buffer b;
  lua_Integer n = (lua_Integer)lua_rawlen(L, arr), i;
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1) luaL_addstring(&b, ", ");
    if (i > SASPU_LUA_LIST_MAX) {
      luaL_addstring(&b, "...");
      break;
    }
    lua_rawgeti(L, arr, i);
    if (lua_type(L, -1) != LUA_TSTRING) { /* a value declared as a boolean */
      luaL_tolstring(L, -1, NULL);
      lua_remove(L, -2);
    }
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

void push_value_name(lua_State *L, const Names *n, int var, int value)
{
  lua_rawgeti(L, n->value_names, var + 1);
  lua_rawgeti(L, -1, value + 1);
  lua_remove(L, -2);
}

const char *var_name(lua_State *L, const Names *n, int var)
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
  if (lua_type(L, idx) != LUA_TSTRING) return -2;
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
int read_var(lua_State *L, const Names *n, int idx, const char *where,
             const char *field)
{
  int v = lookup_var(L, n, idx);
  if (v == -2)
    return raise_error(L, where, "%sexpected a variable name, got %s", field,
                       luaL_typename(L, idx));
  if (v < 0) {
    push_name_list(L, n->var_names);
    shown_name(L, idx);
    return raise_error(L, where, "%sunknown variable %s (%s)", field,
                       lua_tostring(L, -1), lua_tostring(L, -2));
  }
  return v;
}

/* The value at `idx` for variable `var`, or an error such as
 * "post 'full' is not a value of 'haystack' (stored, in_hands, in_feeder)";
 * `label` names the field ("pre", "post", "prevail") or is "". */
int read_value(lua_State *L, const Names *n, int var, int idx,
               const char *where, const char *label)
{
  int x = lookup_value(L, n, var, idx);
  if (x == -2)
    return raise_error(L, where, "%s%sexpected a value of '%s', got %s", label,
                       *label ? ": " : "", var_name(L, n, var),
                       luaL_typename(L, idx));
  if (x < 0) {
    const char *shown = shown_name(L, idx);
    push_value_list(L, n, var);
    return raise_error(L, where, "%s%s%s is not a value of '%s' (%s)", label,
                       *label ? " " : "", shown, var_name(L, n, var),
                       lua_tostring(L, -1));
  }
  return x;
}

/* Pushes the keys (strings) of the table at `tbl` as a sorted "a, b, c",
 * or "none declared" when it is empty. */
void push_key_list(lua_State *L, int tbl)
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
 * names, values value names. With `mask` (a goal) mask[v] is GOAL_SET,
 * GOAL_KEEP (the value saspu.KEEP) or GOAL_FREE (left out); without it
 * every variable must be given. */
void read_state(lua_State *L, const Names *n, int tbl, int nv, SpValue *vals,
                uint8_t *mask, const char *where)
{
  uint8_t seen_buf[64];
  uint8_t *seen = mask;
  int v;
  if (!seen) {
    /* a total state: track the variables given in a Lua-owned buffer
     * when the stack buffer is too small */
    seen = nv <= (int)sizeof seen_buf ? seen_buf
                                      : lua_newuserdatauv(L, (size_t)nv, 0);
  }
  memset(seen, 0, (size_t)nv);
  lua_pushnil(L);
  while (lua_next(L, tbl)) {
    int key = lua_gettop(L) - 1;
    v = lookup_var(L, n, key);
    if (v == -2) {
      const char *k = luaL_tolstring(L, key, NULL);
      raise_error(L, where, "expected variable names as keys, got %s key %s",
                  luaL_typename(L, key), k);
    }
    if (v < 0) {
      push_name_list(L, n->var_names);
      shown_name(L, key);
      raise_error(L, where, "unknown variable %s (%s)", lua_tostring(L, -1),
                  lua_tostring(L, -2));
    }
    if (is_keep_marker(L, key + 1)) { /* a goal's "the start value" */
      if (!mask)
        raise_error(L, where,
                    "'%s': saspu.KEEP is for goals, a state gives every value",
                    var_name(L, n, v));
      seen[v] = GOAL_KEEP;
      lua_pop(L, 1);
      continue;
    }
    vals[v] = (SpValue)read_value(L, n, v, key + 1, where, "");
    seen[v] = GOAL_SET;
    lua_pop(L, 1);
  }
  if (!mask) {
    for (v = 0; v < nv; v++)
      if (!seen[v])
        raise_error(L, where, "missing variable '%s'", var_name(L, n, v));
    if (seen != seen_buf) lua_pop(L, 1);
  }
}

size_t fmt_explain(const SpDomain *d, const void *arg, char *buf, size_t size)
{
  (void)arg;
  return sp_domain_explain(d, buf, size);
}

size_t fmt_failure(const SpDomain *d, const void *arg, char *buf, size_t size)
{
  return sp_failure_format(d, arg, buf, size);
}

size_t fmt_blocker(const SpDomain *d, const void *arg, char *buf, size_t size)
{
  return sp_blocker_format(d, arg, buf, size);
}

size_t fmt_link(const SpDomain *d, const void *arg, char *buf, size_t size)
{
  return sp_blocker_link_format(d, arg, buf, size);
}

/* Pushes the text of formatter `f`. `*d` is fetched again after the
 * buffer is allocated (a Lua point: see binding.h); `type` names the
 * object in the error when it was closed meanwhile. */
void push_formatted(lua_State *L, const SpDomain *const *d, const char *type,
                    Formatter f, const void *arg)
{
  char small[256];
  size_t len = f(*d, arg, small, sizeof small);
  if (len < sizeof small) {
    lua_pushlstring(L, small, len);
  } else {
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, len + 1);
    if (!*d) closed_during_call(L, type);
    f(*d, arg, p, len + 1);
    luaL_pushresultsize(&b, len);
  }
}

int closed_during_call(lua_State *L, const char *type)
{
  return luaL_error(L, "%s was closed during the call", type);
}

const SpDomain *live_domain(lua_State *L, const LDomain *d)
{
  if (!d->domain) closed_during_call(L, DOMAIN_MT);
  return d->domain;
}

/* The userdata at `idx` whose metatable is upvalue 1 of the running C
 * function, or a type error naming `type`. Every method of a type holds
 * its metatable as upvalue 1: comparing with it is cheaper than
 * luaL_checkudata's registry lookup by name, which matters on the fast
 * path. */
void *to_userdata_of_upvalue(lua_State *L, int idx, const char *type)
{
  void *u = lua_touserdata(L, idx);
  int ok = u != NULL && lua_getmetatable(L, idx);
  if (ok) {
    ok = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
  }
  if (!ok) luaL_typeerror(L, idx, type);
  return u;
}

/* ---- helpers the type files share ------------------------------- */

/* Raises the error the core reported, now that everything is owned. */
int core_error(lua_State *L, const char *where, const SpError *err)
{
  if (err->status == SP_ERR_MEMORY || err->code == SP_E_MEMORY)
    return raise_error(L, where, "not enough memory");
  return raise_error(L, where, "%s", err->message);
}

/* Pushes user value `uv` of the userdata at `idx`. */
void push_uv(lua_State *L, int idx, int uv) { lua_getiuservalue(L, idx, uv); }

/* Pushes the Names tables of the domain userdata at stack index `dom`
 * (closed or not: the tables stay) and fills `n`. */
void push_names_at(lua_State *L, int dom, Names *n)
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
void push_names(lua_State *L, Names *n) { push_names_at(L, 1, n); }

/* Sets t[from..to] to nil (raw: the caller's metamethods do not run). */
void clear_array(lua_State *L, int t, lua_Integer from, lua_Integer to)
{
  for (; from <= to; from++) {
    lua_pushnil(L);
    lua_rawseti(L, t, from);
  }
}

/* The allocator the core uses for this state: Lua's own, so its memory
 * accounting sees the C blocks. */
SpAllocator core_allocator(lua_State *L)
{
  SpAllocator a;
  a.fn = lua_getallocf(L, &a.ud);
  return a;
}

/* t[k] = v, for the stats tables. */
void set_int_field(lua_State *L, int t, const char *k, size_t v)
{
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, t, k);
}

/* The address behind saspu.KEEP, a light userdata: unique, and cheap to
 * recognise without a registry lookup. */
static const char keep_marker = 'k';

void push_keep_marker(lua_State *L)
{
  lua_pushlightuserdata(L, (void *)&keep_marker);
}

int is_keep_marker(lua_State *L, int idx)
{
  return lua_type(L, idx) == LUA_TLIGHTUSERDATA &&
         lua_touserdata(L, idx) == &keep_marker;
}

/* Argument `arg`: a frame's dt in seconds (see binding.h). */
float check_dt(lua_State *L, int arg)
{
  double dt = luaL_checknumber(L, arg);
  luaL_argcheck(L, dt >= 0 && dt <= FLT_MAX, arg,
                "dt must be a finite number of seconds, 0 or more");
  return (float)dt;
}
