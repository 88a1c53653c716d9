/* lua_host.h: the setup shared by the test programs that host Lua with the binding compiled in (lua_oom_host.c, lua_western_cast.c). */
#ifndef lua_host_h
#define lua_host_h

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

int luaopen_saspu_core(lua_State *L);

/* Opens the standard libraries, points package.path at the sources'
 * lua/ and preloads saspu.core, so `require "saspu"` loads this tree. */
static inline void lua_host_prepare(lua_State *L) {
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushstring(L, SASPU_SOURCE_DIR "/lua/?.lua;" SASPU_SOURCE_DIR
                                     "/lua/?/init.lua");
  lua_setfield(L, -2, "path");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_saspu_core);
  lua_setfield(L, -2, "saspu.core");
  lua_pop(L, 2);
}

#endif
