/* fuzz_lua_api.c: libFuzzer harness: Lua 5.4 with the binding compiled in runs tests/fuzz/lua_api_driver.lua on each input; a finding aborts. */
#include "fuzz_driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each input is one sequence of calls in a fresh state (nothing carries
 * over from one input to the next, so a crash input replays alone). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = fuzz_open_driver("fuzz_lua_api", "lua_api_driver");
  fuzz_run_driver(L, "fuzz_lua_api", data, size);
  lua_close(L);
  return 0;
}
