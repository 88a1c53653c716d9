/* fuzz_driver.h: what the harnesses that run a Lua driver share (fuzz_lua_api.c, fuzz_save.c): a Lua 5.4 state with saspu and the driver loaded, and the driver's findings turned into a crash. */
#ifndef fuzz_driver_h
#define fuzz_driver_h

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lua_host.h"

/* Stops and reports as `who`: libFuzzer saves the input as a crash. */
static inline void fuzz_finding(const char *who, const char *what) {
  fprintf(stderr, "%s: %s\n", who, what);
  abort();
}

/* A new state: the standard libraries, package.path at the sources' lua/
 * and tests/fuzz/, saspu.core preloaded, then require(driver) with its
 * `root` set to the sources (where the domain files are). The driver's
 * table is left on top. */
static inline lua_State *fuzz_open_driver(const char *who, const char *driver) {
  lua_State *L = luaL_newstate();
  if (L == NULL) fuzz_finding(who, "cannot open a Lua state");
  lua_host_prepare(L);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushstring(L, ";" SASPU_SOURCE_DIR "/tests/fuzz/?.lua");
  lua_concat(L, 2);
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
  lua_getglobal(L, "require");
  lua_pushstring(L, driver);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) fuzz_finding(who, lua_tostring(L, -1));
  lua_pushstring(L, SASPU_SOURCE_DIR "/");
  lua_setfield(L, -2, "root");
  return L;
}

/* Runs driver.run_bytes(input), the driver's table on top, and aborts
 * after printing each finding it returns (a list of texts); the driver
 * itself must never fail. Leaves the stack as it was. */
static inline void fuzz_run_driver(lua_State *L, const char *who,
                                   const uint8_t *data, size_t size) {
  lua_getfield(L, -1, "run_bytes");
  lua_pushlstring(L, (const char *)data, size);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) fuzz_finding(who, lua_tostring(L, -1));
  lua_Integer n = luaL_len(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    fprintf(stderr, "%s: finding: %s\n", who, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  if (n > 0) fuzz_finding(who, "the driver's findings above");
  lua_pop(L, 1);
}

#endif
