/* fuzz_lua_api.c: libFuzzer harness: Lua 5.4 with the binding compiled in runs tests/fuzz/lua_api_driver.lua on each input; a finding aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

int luaopen_saspu_core(lua_State *L);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stops and reports: libFuzzer saves the input as a crash. */
static void finding(const char *what) {
  fprintf(stderr, "fuzz_lua_api: %s\n", what);
  abort();
}

/* A fresh state per input (nothing carries over from one input to the
 * next, so a crash input replays alone): the standard libraries,
 * package.path at the sources, saspu.core preloaded, the driver loaded.
 * The driver's table is left on top. */
static lua_State *open_state(void) {
  lua_State *L = luaL_newstate();
  if (L == NULL) finding("cannot open a Lua state");
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushstring(L, SASPU_SOURCE_DIR "/lua/?.lua;" SASPU_SOURCE_DIR
                                     "/lua/?/init.lua;" SASPU_SOURCE_DIR
                                     "/tests/fuzz/?.lua");
  lua_setfield(L, -2, "path");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_saspu_core);
  lua_setfield(L, -2, "saspu.core");
  lua_pop(L, 2);
  lua_getglobal(L, "require");
  lua_pushstring(L, "lua_api_driver");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) finding(lua_tostring(L, -1));
  lua_pushstring(L, SASPU_SOURCE_DIR "/"); /* where the domain files are */
  lua_setfield(L, -2, "root");
  return L;
}

/* Each input is one sequence of calls; the driver returns its findings
 * as a list of texts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = open_state();
  lua_getfield(L, -1, "run_bytes");
  lua_pushlstring(L, (const char *)data, size);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK)
    finding(lua_tostring(L, -1)); /* the driver itself must never fail */
  lua_Integer n = luaL_len(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    fprintf(stderr, "fuzz_lua_api: finding: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  if (n > 0) finding("the driver's findings above");
  lua_close(L);
  return 0;
}
