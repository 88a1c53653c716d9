/* compat.c: the Lua 5.4 API of compat.h for Lua 5.1, 5.2, 5.3 and LuaJIT; empty on 5.4. */
#define SASPU_COMPAT_IMPL /* here the Lua names are the real functions */
#include <stdio.h>
#include <string.h>

#include "compat.h"

#if LUA_VERSION_NUM >= 502 && LUA_VERSION_NUM < 504
#define saspu_compat_absindex lua_absindex
#endif

#if LUA_VERSION_NUM < 504

/* ================================================================== */
/* User values: one table holding them all                            */
/* ================================================================== */

/* The table of user values is the userdata's environment on 5.1/LuaJIT
 * and its single user value on 5.2/5.3. Entry 0 holds the count, so a
 * userdata made without user values (whose 5.1 environment is some
 * unrelated table) is told apart. */
static void push_uv_table(lua_State *L, int idx)
{
#if LUA_VERSION_NUM < 502
  lua_getfenv(L, idx);
#else
  lua_getuservalue(L, idx);
#endif
}

/* Returns the number of user values of the userdata at `idx` and leaves
 * their table on the stack (nil when there are none). */
static int uv_count(lua_State *L, int idx)
{
  int n = 0;
  push_uv_table(L, idx);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_rawgeti(L, -1, 0);
    n = lua_type(L, -1) == LUA_TNUMBER ? (int)lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
  }
  return n;
}

void *saspu_compat_newuserdatauv(lua_State *L, size_t size, int nuv)
{
  void *p = lua_newuserdata(L, size);
  if (nuv > 0) {
    lua_createtable(L, nuv, 1);
    lua_pushinteger(L, nuv);
    lua_rawseti(L, -2, 0);
#if LUA_VERSION_NUM < 502
    lua_setfenv(L, -2);
#else
    lua_setuservalue(L, -2);
#endif
  }
  return p;
}

/* Pops a value into user value n; 0 (and the value popped) when the
 * userdata has no such user value, as 5.4. */
int saspu_compat_setiuservalue(lua_State *L, int idx, int n)
{
  int ok;
  idx = saspu_compat_absindex(L, idx);
  ok = n >= 1 && n <= uv_count(L, idx);
  if (ok) {
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, n);
  }
  lua_pop(L, 2);
  return ok;
}

/* Pushes user value n and returns its type; nil and LUA_TNONE when the
 * userdata has no such user value, as 5.4. */
int saspu_compat_getiuservalue(lua_State *L, int idx, int n)
{
  int count;
  idx = saspu_compat_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TUSERDATA) {
    lua_pushnil(L);
    return LUA_TNONE;
  }
  count = uv_count(L, idx);
  if (n < 1 || n > count) {
    lua_pop(L, 1);
    lua_pushnil(L);
    return LUA_TNONE;
  }
  lua_rawgeti(L, -1, n);
  lua_remove(L, -2);
  return lua_type(L, -1);
}

/* "<tname> expected, got <type>", naming the got side by its __name like
 * 5.4 (5.1 and LuaJIT would say "userdata"). */
int saspu_compat_typeerror(lua_State *L, int arg, const char *tname)
{
  const char *got;
  if (luaL_getmetafield(L, arg, "__name") == 0) lua_pushnil(L);
  if (lua_type(L, -1) == LUA_TSTRING)
    got = lua_tostring(L, -1);
  else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
    got = "light userdata";
  else
    got = luaL_typename(L, arg);
  return luaL_argerror(L, arg,
                       lua_pushfstring(L, "%s expected, got %s", tname, got));
}

#endif /* < 5.4 */

#if LUA_VERSION_NUM < 503

/* ================================================================== */
/* Integers on a Lua without them                                     */
/* ================================================================== */

/* 2^63 as a double: the first value outside a 64-bit lua_Integer. */
#define TWO_63 9223372036854775808.0

static int number_to_integer(lua_Number x, lua_Integer *out)
{
  if (!(x >= -TWO_63 && x < TWO_63) || (lua_Number)(lua_Integer)x != x)
    return 0;
  *out = (lua_Integer)x;
  return 1;
}

lua_Integer saspu_compat_tointegerx(lua_State *L, int idx, int *isnum)
{
  lua_Integer i = 0;
  int ok = lua_isnumber(L, idx) && number_to_integer(lua_tonumber(L, idx), &i);
  if (isnum) *isnum = ok;
  return ok ? i : 0;
}

lua_Integer saspu_compat_checkinteger(lua_State *L, int arg)
{
  int ok;
  lua_Integer i = saspu_compat_tointegerx(L, arg, &ok);
  if (!ok) {
    if (lua_isnumber(L, arg))
      luaL_argerror(L, arg, "number has no integer representation");
    else
      saspu_compat_typeerror(L, arg, "number");
  }
  return i;
}

lua_Integer saspu_compat_optinteger(lua_State *L, int arg, lua_Integer def)
{
  return lua_isnoneornil(L, arg) ? def : saspu_compat_checkinteger(L, arg);
}

int saspu_compat_geti(lua_State *L, int idx, lua_Integer i)
{
  idx = saspu_compat_absindex(L, idx);
  lua_pushinteger(L, i);
  lua_gettable(L, idx);
  return lua_type(L, -1);
}

int saspu_compat_getmetafield(lua_State *L, int obj, const char *e)
{
  return luaL_getmetafield(L, obj, e) ? lua_type(L, -1) : LUA_TNIL;
}

/* ================================================================== */
/* Text: 5.4's number format, tostring and pushfstring with %I         */
/* ================================================================== */

/* Writes x as 5.4 would print it: an integral value as an integer, any
 * other as "%.14g" with ".0" added when that looks like an integer. */
static void format_number(lua_Number x, char *buf, size_t size)
{
  lua_Integer i;
  if (number_to_integer(x, &i)) {
    snprintf(buf, size, "%lld", (long long)i);
    return;
  }
  snprintf(buf, size, "%.14g", (double)x);
  if (buf[strspn(buf, "-0123456789")] == '\0' && strlen(buf) + 2 < size)
    strcat(buf, ".0");
}

const char *saspu_compat_tolstring(lua_State *L, int idx, size_t *len)
{
  char num[64];
  idx = saspu_compat_absindex(L, idx);
  if (luaL_callmeta(L, idx, "__tostring")) {
    if (!lua_isstring(L, -1))
      luaL_error(L, "'__tostring' must return a string");
  } else {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      format_number(lua_tonumber(L, idx), num, sizeof num);
      lua_pushstring(L, num);
      break;
    case LUA_TSTRING: lua_pushvalue(L, idx); break;
    case LUA_TBOOLEAN:
      lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false");
      break;
    case LUA_TNIL: lua_pushliteral(L, "nil"); break;
    default: {
      int named = saspu_compat_getmetafield(L, idx, "__name") == LUA_TSTRING;
      const char *kind = named ? lua_tostring(L, -1) : luaL_typename(L, idx);
      saspu_compat_pushfstring(L, "%s: %p", kind, lua_topointer(L, idx));
      if (named) lua_remove(L, -2);
    }
    }
  }
  return lua_tolstring(L, -1, len);
}

/* The 5.4 format subset: %% %s %d %c %f %p %I (%U is not needed). */
const char *saspu_compat_pushvfstring(lua_State *L, const char *fmt, va_list ap)
{
  luaL_Buffer b;
  char num[64];
  const char *e;
  luaL_buffinit(L, &b);
  while ((e = strchr(fmt, '%')) != NULL) {
    luaL_addlstring(&b, fmt, (size_t)(e - fmt));
    switch (e[1]) {
    case 's': {
      const char *s = va_arg(ap, const char *);
      luaL_addstring(&b, s ? s : "(null)");
      break;
    }
    case 'd':
      snprintf(num, sizeof num, "%d", va_arg(ap, int));
      luaL_addstring(&b, num);
      break;
    case 'I':
      snprintf(num, sizeof num, "%lld", (long long)va_arg(ap, lua_Integer));
      luaL_addstring(&b, num);
      break;
    case 'c': luaL_addchar(&b, (char)va_arg(ap, int)); break;
    case 'f':
      format_number((lua_Number)va_arg(ap, double), num, sizeof num);
      luaL_addstring(&b, num);
      break;
    case 'p':
      snprintf(num, sizeof num, "%p", va_arg(ap, void *));
      luaL_addstring(&b, num);
      break;
    case '%': luaL_addchar(&b, '%'); break;
    default:
      luaL_pushresult(&b);
      return luaL_error(L, "invalid option '%%%c' to 'lua_pushfstring'", e[1]),
             NULL;
    }
    fmt = e + 2;
  }
  luaL_addstring(&b, fmt);
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

const char *saspu_compat_pushfstring(lua_State *L, const char *fmt, ...)
{
  const char *s;
  va_list ap;
  va_start(ap, fmt);
  s = saspu_compat_pushvfstring(L, fmt, ap);
  va_end(ap);
  return s;
}

int saspu_compat_error(lua_State *L, const char *fmt, ...)
{
  va_list ap;
  luaL_where(L, 1);
  va_start(ap, fmt);
  saspu_compat_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 2);
  return lua_error(L);
}

/* ================================================================== */
/* Metatables named by __name                                         */
/* ================================================================== */

int saspu_compat_newmetatable(lua_State *L, const char *tname)
{
  if (!luaL_newmetatable(L, tname)) return 0;
  lua_pushstring(L, tname); /* 5.3+ names the type for messages */
  lua_setfield(L, -2, "__name");
  return 1;
}

void *saspu_compat_testudata(lua_State *L, int idx, const char *tname)
{
  void *p = lua_touserdata(L, idx);
  int same;
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  lua_getfield(L, LUA_REGISTRYINDEX, tname);
  same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? p : NULL;
}

void *saspu_compat_checkudata(lua_State *L, int idx, const char *tname)
{
  void *p = saspu_compat_testudata(L, idx, tname);
  if (p == NULL) saspu_compat_typeerror(L, idx, tname);
  return p;
}

#endif /* < 5.3 */

#if LUA_VERSION_NUM < 502

/* ================================================================== */
/* The 5.2 additions, for 5.1 and LuaJIT                               */
/* ================================================================== */

int saspu_compat_absindex(lua_State *L, int idx)
{
  return idx > 0 || idx <= LUA_REGISTRYINDEX ? idx : lua_gettop(L) + idx + 1;
}

/* Tables keyed by a C address (a light userdata), as 5.2's rawgetp. */
int saspu_compat_rawgetp(lua_State *L, int idx, const void *p)
{
  idx = saspu_compat_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)p);
  lua_rawget(L, idx);
  return lua_type(L, -1);
}

/* t[p] = the value on top, popped, as 5.2's rawsetp. */
void saspu_compat_rawsetp(lua_State *L, int idx, const void *p)
{
  idx = saspu_compat_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)p);
  lua_insert(L, -2);
  lua_rawset(L, idx);
}

/* LUA_OPLE is "less than or equal" (5.1 has no __le call from C). */
int saspu_compat_compare(lua_State *L, int a, int b, int op)
{
  switch (op) {
  case LUA_OPEQ: return lua_equal(L, a, b);
  case LUA_OPLT: return lua_lessthan(L, a, b);
  default: return lua_lessthan(L, a, b) || lua_equal(L, a, b);
  }
}

lua_Integer saspu_compat_len(lua_State *L, int idx)
{
  return (lua_Integer)lua_objlen(L, idx);
}

/* Like 5.4's: each function gets the nup values below the table as
 * upvalues; a NULL function is a false placeholder. Pops the upvalues. */
void saspu_compat_setfuncs(lua_State *L, const luaL_Reg *l, int nup)
{
  int i;
  luaL_checkstack(L, nup, "too many upvalues");
  for (; l->name != NULL; l++) {
    if (l->func == NULL) {
      lua_pushboolean(L, 0);
    } else {
      for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
      lua_pushcclosure(L, l->func, nup);
    }
    lua_setfield(L, -(nup + 2), l->name);
  }
  lua_pop(L, nup);
}

void saspu_compat_setmetatable(lua_State *L, const char *tname)
{
  lua_getfield(L, LUA_REGISTRYINDEX, tname);
  lua_setmetatable(L, -2);
}

char *saspu_compat_buffinitsize(lua_State *L, luaL_Buffer *b, size_t size)
{
  luaL_buffinit(L, b);
  return lua_newuserdata(L, size);
}

void saspu_compat_pushresultsize(luaL_Buffer *b, size_t size)
{
  lua_State *L = b->L;
  lua_pushlstring(L, lua_touserdata(L, -1), size);
  lua_remove(L, -2);
}

#endif /* < 5.2 */

#if LUA_VERSION_NUM >= 504
/* ISO C wants a translation unit to declare something. */
typedef int saspu_compat_unused;
#endif
