/* compat.h: the Lua 5.4 C API the binding uses, provided on Lua 5.1, 5.2, 5.3 and LuaJIT 2.1 with 5.4's behaviour and messages. */
#ifndef saspu_lua_compat_h
#define saspu_lua_compat_h

/*
 * The binding is written against Lua 5.4. On older versions this header
 * renames the 5.4 calls it uses to saspu_compat_* functions (compat.c) or
 * small inline wrappers, so binding files need no #if. Differences that
 * stay, by design:
 * - `__close` (to-be-closed variables) exists only on 5.4; elsewhere the
 *   `__close` field is inert and objects close with close() or __gc.
 * - 5.1/LuaJIT/5.2 have no integer subtype: lua_Integer is ptrdiff_t and
 *   numbers are doubles. A number with an integral value counts as an
 *   integer (lua_tointegerx, luaL_checkinteger), exact up to 2^53, and
 *   prints without ".0" (luaL_tolstring), as 5.4 prints its integers.
 * - Several user values (lua_newuserdatauv) live in one table held as the
 *   userdata's environment (5.1, LuaJIT) or single user value (5.2, 5.3):
 *   one more lookup per access.
 * - lua_pushfstring/lua_pushvfstring/luaL_error understand %I everywhere.
 * Names are macros defined after lua.h and lauxlib.h, so the real
 * declarations are untouched; include this header instead of those two.
 */
#include <stddef.h>
#include <stdarg.h>

#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

#if LUA_VERSION_NUM < 504

/* ---- every version before 5.4: user values and 5.4's type error ---- */
void *saspu_compat_newuserdatauv(lua_State *L, size_t size, int nuv);
int saspu_compat_setiuservalue(lua_State *L, int idx, int n);
int saspu_compat_getiuservalue(lua_State *L, int idx, int n);
int saspu_compat_typeerror(lua_State *L, int arg, const char *tname);
#if !defined(SASPU_COMPAT_IMPL) /* compat.c calls the real functions */
#define lua_newuserdatauv saspu_compat_newuserdatauv
#define lua_setiuservalue saspu_compat_setiuservalue
#define lua_getiuservalue saspu_compat_getiuservalue
#define luaL_typeerror    saspu_compat_typeerror
#define luaL_argexpected(L, cond, arg, tname)                                  \
  ((void)((cond) || luaL_typeerror((L), (arg), (tname))))
#endif

#endif /* < 5.4 */

#if LUA_VERSION_NUM < 503

/* ---- 5.1, LuaJIT, 5.2: integers, getters that return the type, %I ---- */
typedef size_t saspu_compat_Unsigned; /* the unsigned twin of ptrdiff_t */
#define lua_Unsigned saspu_compat_Unsigned
#if !defined(LUA_MAXINTEGER)
#define LUA_MAXINTEGER PTRDIFF_MAX /* lua_Integer is ptrdiff_t before 5.3 */
#endif

static inline int saspu_compat_getfield(lua_State *L, int idx, const char *k)
{
  lua_getfield(L, idx, k);
  return lua_type(L, -1);
}
static inline int saspu_compat_rawget(lua_State *L, int idx)
{
  lua_rawget(L, idx);
  return lua_type(L, -1);
}
static inline int saspu_compat_rawgeti(lua_State *L, int idx, lua_Integer n)
{
  lua_rawgeti(L, idx, (int)n);
  return lua_type(L, -1);
}
static inline int saspu_compat_gettable(lua_State *L, int idx)
{
  lua_gettable(L, idx);
  return lua_type(L, -1);
}
#if !defined(SASPU_COMPAT_IMPL)
#define lua_getfield saspu_compat_getfield
#define lua_rawget   saspu_compat_rawget
#define lua_rawgeti  saspu_compat_rawgeti
#define lua_gettable saspu_compat_gettable
#endif

int saspu_compat_geti(lua_State *L, int idx, lua_Integer i);
int saspu_compat_getmetafield(lua_State *L, int obj, const char *e);
lua_Integer saspu_compat_tointegerx(lua_State *L, int idx, int *isnum);
lua_Integer saspu_compat_checkinteger(lua_State *L, int arg);
lua_Integer saspu_compat_optinteger(lua_State *L, int arg, lua_Integer def);
const char *saspu_compat_tolstring(lua_State *L, int idx, size_t *len);
int saspu_compat_newmetatable(lua_State *L, const char *tname);
void *saspu_compat_testudata(lua_State *L, int idx, const char *tname);
void *saspu_compat_checkudata(lua_State *L, int idx, const char *tname);
const char *saspu_compat_pushvfstring(lua_State *L, const char *fmt,
                                      va_list ap);
const char *saspu_compat_pushfstring(lua_State *L, const char *fmt, ...);
int saspu_compat_error(lua_State *L, const char *fmt, ...);
#if !defined(SASPU_COMPAT_IMPL)
#define lua_geti          saspu_compat_geti
#define luaL_getmetafield saspu_compat_getmetafield
#define lua_tointegerx    saspu_compat_tointegerx
#undef lua_tointeger
#define lua_tointeger(L, i) saspu_compat_tointegerx((L), (i), NULL)
#define luaL_checkinteger   saspu_compat_checkinteger
#define luaL_optinteger     saspu_compat_optinteger
#define luaL_tolstring      saspu_compat_tolstring
#define luaL_newmetatable   saspu_compat_newmetatable
#define luaL_testudata      saspu_compat_testudata
#define luaL_checkudata     saspu_compat_checkudata
#define lua_pushvfstring    saspu_compat_pushvfstring
#define lua_pushfstring     saspu_compat_pushfstring
#define luaL_error          saspu_compat_error
#endif

#endif /* < 5.3 */

#if LUA_VERSION_NUM < 502

/* ---- 5.1 and LuaJIT: the 5.2 additions ---- */
#if !defined(LUA_OK)
#define LUA_OK 0
#endif
#define LUA_OPEQ 0
#define LUA_OPLT 1
#define LUA_OPLE 2

int saspu_compat_absindex(lua_State *L, int idx);
int saspu_compat_compare(lua_State *L, int a, int b, int op);
lua_Integer saspu_compat_len(lua_State *L, int idx);
void saspu_compat_setfuncs(lua_State *L, const luaL_Reg *l, int nup);
void saspu_compat_setmetatable(lua_State *L, const char *tname);
char *saspu_compat_buffinitsize(lua_State *L, luaL_Buffer *b, size_t size);
void saspu_compat_pushresultsize(luaL_Buffer *b, size_t size);
int saspu_compat_rawgetp(lua_State *L, int idx, const void *p);
void saspu_compat_rawsetp(lua_State *L, int idx, const void *p);
#if !defined(SASPU_COMPAT_IMPL)
#define lua_absindex      saspu_compat_absindex
#define lua_rawgetp       saspu_compat_rawgetp
#define lua_rawsetp       saspu_compat_rawsetp
#define lua_compare       saspu_compat_compare
#define lua_rawlen(L, i)  lua_objlen((L), (i))
#define luaL_len          saspu_compat_len
#define luaL_setfuncs     saspu_compat_setfuncs
#define luaL_setmetatable saspu_compat_setmetatable
/* A sized buffer is a userdata on top of the stack until
 * luaL_pushresultsize: push nothing in between (the binding does not). */
#define luaL_buffinitsize   saspu_compat_buffinitsize
#define luaL_pushresultsize saspu_compat_pushresultsize
#endif
#define luaL_checkversion(L) ((void)(L))
/* lua_tonumberx: 5.2's (LuaJIT 2.1 has its own; this one behaves the same) */
static inline lua_Number saspu_compat_tonumberx(lua_State *L, int i, int *isnum)
{
  int ok = lua_isnumber(L, i);
  if (isnum) *isnum = ok;
  return ok ? lua_tonumber(L, i) : 0;
}
#define lua_tonumberx saspu_compat_tonumberx
#if !defined(luaL_newlibtable)
#define luaL_newlibtable(L, l)                                                 \
  lua_createtable((L), 0, (int)(sizeof(l) / sizeof((l)[0]) - 1))
#endif
#if !defined(luaL_newlib)
#define luaL_newlib(L, l)                                                      \
  (luaL_newlibtable((L), (l)), luaL_setfuncs((L), (l), 0))
#endif

#endif /* < 5.2 */

#endif
