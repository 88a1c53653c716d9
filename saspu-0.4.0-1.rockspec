-- saspu-0.4.0-1.rockspec: LuaRocks build of saspu 0.4.0, the release commit 01458b67a3975b75c2f769649eb7cb1c1a7bba20 (tag v0.4.0) (the C module saspu.core and lua/saspu/*.lua) through its CMake project.
-- `luarocks build saspu-0.4.0-1.rockspec` fetches that release; in a checkout, `luarocks make` the scm-1 one.
rockspec_format = "3.0"
package = "saspu"
version = "0.4.0-1"
source = {
  url = "https://github.com/saspu/saspu/archive/01458b67a3975b75c2f769649eb7cb1c1a7bba20.tar.gz",
  dir = "saspu-01458b67a3975b75c2f769649eb7cb1c1a7bba20",
}
description = {
  summary = "Shortest plans for game NPCs in linear time (SAS-PU planning, TopoPlan)",
  detailed = [[
saspu plans for game NPCs: describe an NPC class as variables and actions, and get the
shortest plan from a start to a goal. A C11 core with Lua bindings for Lua 5.1, 5.2, 5.3,
5.4 and LuaJIT, plus populations planned in batches, grid pathfinding and agents.
]],
  homepage = "https://github.com/saspu/saspu",
  license = "MIT",
}
dependencies = {
  "lua >= 5.1, < 5.5",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    CMAKE_C_FLAGS = "$(CFLAGS)", -- LuaRocks' CFLAGS (its config, or the CFLAGS variable)
    -- the Lua LuaRocks builds for: its headers, its install folders. LUA_INCDIR
    -- replaces the cached one, so build.luarocks/ serves every Lua in turn.
    LUA_INCDIR = "$(LUA_INCDIR)",
    SASPU_LUA_VERSION = "auto", -- the version of the lua.h in LUA_INCDIR
    SASPU_INSTALL_CMOD = "$(LIBDIR)",
    SASPU_INSTALL_LMOD = "$(LUADIR)",
    SASPU_INSTALL_BIN = "OFF", -- LuaRocks installs bin/saspu below, wrapped for its Lua
    SASPU_C_LIBRARY = "OFF", -- the Lua module only: no libsaspu, headers or saspu.pc
    SASPU_TESTS = "OFF",
    SASPU_BENCH = "OFF",
  },
  install = {
    bin = { saspu = "bin/saspu" },
  },
}
-- `luarocks test`: busted as installed (Debian's lua-busted or a busted rock) on
-- LuaRocks' Lua, against the installed module; nothing is fetched (tools/rock_test.lua)
test = {
  type = "command",
  script = "tools/rock_test.lua",
  flags = { "--run=rock" },
}
