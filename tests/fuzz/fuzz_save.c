/* fuzz_save.c: libFuzzer harness: Lua 5.4 with the binding compiled in runs tests/fuzz/save_driver.lua, which mutates a real save field by field (its names too), seals it again, loads it (an odd-length input under migration into a patched game) and runs the world; a finding aborts. */
#include "fuzz_driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One state for the whole run (building the base save once): each input
 * builds its own world from the same game code, so an input replays
 * alone. The driver's table stays in the registry. */
static lua_State *state(void) {
  static lua_State *L;
  if (L != NULL) return L;
  L = fuzz_open_driver("fuzz_save", "save_driver");
  lua_setfield(L, LUA_REGISTRYINDEX, "saspu.fuzz_save");
  return L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = state();
  lua_getfield(L, LUA_REGISTRYINDEX, "saspu.fuzz_save");
  fuzz_run_driver(L, "fuzz_save", data, size);
  lua_pop(L, 1);
  return 0;
}
