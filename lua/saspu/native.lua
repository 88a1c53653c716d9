-- lua/saspu/native.lua: loads the C module saspu.core for lua/saspu/init.lua; where the core.so found was built for another Lua, one error that names that Lua and how to build the module for this one.
--
-- A core.so records the interpreter it was built for (core._LUA: "lua5.4", ...,
-- "luajit"; the same words sit in the binary, read here when it does not load).
-- Lua 5.1 and LuaJIT share one C API: a module built for either runs on both.

local require, pcall, error, type, rawget = require, pcall, error, type, rawget
local open, gmatch, gsub, find, match = io.open, string.gmatch, string.gsub, string.find, string.match
local format = string.format

local M = {}

-- The interpreter running: "lua5.1", "lua5.2", "lua5.3", "lua5.4" or "luajit".
function M.this_lua()
  if type(rawget(_G, "jit")) == "table" then return "luajit" end
  return "lua" .. (match(_VERSION or "", "%d+%.%d+") or "?")
end

-- Whether a module built for `built` runs on `running` (both as this_lua names them).
function M.compatible(built, running)
  if built == running then return true end
  local old = { ["lua5.1"] = true, luajit = true }
  return old[built] == true and old[running] == true
end

-- The first file the C searcher would load for saspu.core (package.searchpath is 5.2+).
function M.core_file(cpath)
  for template in gmatch(cpath or package.cpath, "[^;]+") do
    local path = gsub(template, "%?", "saspu/core")
    local f = open(path, "rb")
    if f then
      f:close()
      return path
    end
  end
  return nil
end

-- The interpreter a core.so was built for, read from its bytes; nil when it says none.
function M.built_for(path)
  local f = path and open(path, "rb")
  if not f then return nil end
  local bytes = f:read("*a")
  f:close()
  local _, _, lua = find(bytes, "saspu%.core built for (lua[%w%.]+)")
  return lua
end

-- How to build saspu.core for `running`, and where to put it.
local function how_to_build(running)
  local version = running == "luajit" and "jit" or match(running, "%d+%.%d+")
  return format("build saspu.core for %s "
    .. "(cmake -S . -B build-%s -DSASPU_LUA_VERSION=%s && cmake --build build-%s --target saspu_lua; "
    .. "or luarocks --lua-version %s) and put that build first on package.cpath; "
    .. "in a checkout, eval \"$(./dev env)\" gives each Lua its own build's path",
    running, running, version, running,
    running == "luajit" and "5.1 make LUA_INCDIR=/usr/include/luajit-2.1" or version .. " make")
end

-- The message for a module built for `built` found at `path`, running on `running`.
function M.mismatch(path, built, running)
  return format("saspu: %s was built for %s, but this is %s: %s", path, built, running, how_to_build(running))
end

-- The message when package.cpath holds no saspu/core.so at all.
function M.missing(running)
  return format("saspu: no saspu/core.so on package.cpath for %s: %s", running, how_to_build(running))
end

-- require "saspu.core", or an error naming both Luas when the module is another's.
function M.load()
  local running = M.this_lua()
  local ok, core = pcall(require, "saspu.core")
  if not ok then
    local path = M.core_file()
    local built = M.built_for(path)
    if not path then error(M.missing(running) .. "\n" .. core, 0) end
    if built and not M.compatible(built, running) then error(M.mismatch(path, built, running), 0) end
    error(core, 0)
  end
  local built = type(core) == "table" and core._LUA
  if type(built) == "string" and not M.compatible(built, running) then
    error(M.mismatch(M.core_file() or "saspu.core", built, running), 0)
  end
  return core
end

return M
