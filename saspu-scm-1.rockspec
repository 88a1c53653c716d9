-- saspu-scm-1.rockspec: LuaRocks build of saspu (the C module saspu.core and lua/saspu/*.lua) through its CMake project.
rockspec_format = "3.0"
package = "saspu"
version = "scm-1"
source = {
  url = "git+file:///dev/null", -- `luarocks make` in a checkout builds the working tree
}
description = {
  summary = "Shortest plans for game NPCs in linear time (SAS-PU planning, TopoPlan)",
  detailed = [[
saspu plans for game NPCs: describe an NPC class as variables and actions, and get the
shortest plan from a start to a goal. A C11 core with Lua bindings for Lua 5.1, 5.2, 5.3,
5.4 and LuaJIT, plus populations planned in batches and grid pathfinding.
]],
  license = "unspecified", -- the repository has no license file yet
}
dependencies = {
  "lua >= 5.1, < 5.5",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    -- the Lua LuaRocks builds for: its headers, its install folders
    LUA_INCDIR = "$(LUA_INCDIR)",
    SASPU_LUA_VERSION = "auto", -- the version of the lua.h in LUA_INCDIR
    SASPU_INSTALL_CMOD = "$(LIBDIR)",
    SASPU_INSTALL_LMOD = "$(LUADIR)",
    SASPU_TESTS = "OFF",
    SASPU_BENCH = "OFF",
  },
}
