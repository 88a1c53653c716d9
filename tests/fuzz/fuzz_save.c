/* fuzz_save.c: libFuzzer harness: Lua 5.4 with the binding compiled in runs tests/fuzz/save_driver.lua, which mutates a real save field by field (its names too), seals it again, loads it (an odd-length input under migration into a patched game) and runs the world; a finding aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

int luaopen_saspu_core(lua_State *L);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void finding(const char *what) {
  fprintf(stderr, "fuzz_save: %s\n", what);
  abort();
}

/* One state for the whole run (building the base save once): each input
 * builds its own world from the same game code, so an input replays
 * alone. The driver's table stays in the registry. */
static lua_State *state(void) {
  static lua_State *L;
  if (L != NULL) return L;
  L = luaL_newstate();
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
  lua_pushstring(L, "save_driver");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) finding(lua_tostring(L, -1));
  lua_pushstring(L, SASPU_SOURCE_DIR "/"); /* where the domain files are */
  lua_setfield(L, -2, "root");
  lua_setfield(L, LUA_REGISTRYINDEX, "saspu.fuzz_save");
  return L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = state();
  lua_getfield(L, LUA_REGISTRYINDEX, "saspu.fuzz_save");
  lua_getfield(L, -1, "run_bytes");
  lua_pushlstring(L, (const char *)data, size);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK)
    finding(lua_tostring(L, -1)); /* the driver itself must never fail */
  lua_Integer n = luaL_len(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    fprintf(stderr, "fuzz_save: finding: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  if (n > 0) finding("the driver's findings above");
  lua_pop(L, 2);
  return 0;
}
