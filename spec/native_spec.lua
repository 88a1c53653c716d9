-- spec/native_spec.lua: saspu.native: each Lua loads a saspu.core built for it, or gets one error naming the Lua the module was built for and how to build it for this one; ./dev env gives each Lua its own build.
local native = require "saspu.native"
local core = require "saspu.core"

local build = os.getenv("SASPU_BUILD_DIR") or "build"
local core_so = build .. "/saspu/core.so"

-- runs a shell command, returns its output (stdout and stderr) and whether it exited 0
local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1; echo \"rc=$?\""))
  local out = p:read("*a")
  p:close()
  local rc = tonumber(out:match("rc=(%d+)%s*$"))
  return out:gsub("rc=%d+%s*$", ""), rc == 0
end

local function have(interp)
  local _, ok = run("command -v " .. interp .. " >/dev/null")
  return ok
end

describe("saspu.core._LUA", function()
  it("names the interpreter the module was built for, one this Lua can run", function()
    assert.is_string(core._LUA)
    assert.is_true(native.compatible(core._LUA, native.this_lua()))
  end)

  it("is written in the binary, where a Lua that cannot load it reads it", function()
    assert.equal(core._LUA, native.built_for(core_so))
  end)
end)

describe("saspu.native.compatible", function()
  it("accepts the same Lua, and Lua 5.1 with LuaJIT either way", function()
    assert.is_true(native.compatible("lua5.4", "lua5.4"))
    assert.is_true(native.compatible("lua5.1", "luajit"))
    assert.is_true(native.compatible("luajit", "lua5.1"))
  end)

  it("refuses any other pair", function()
    assert.is_false(native.compatible("lua5.4", "lua5.3"))
    assert.is_false(native.compatible("lua5.3", "lua5.4"))
    assert.is_false(native.compatible("lua5.1", "lua5.2"))
    assert.is_false(native.compatible("lua5.4", "luajit"))
  end)
end)

describe("saspu.native.mismatch", function()
  it("names the file, both Luas and the build command for the running one", function()
    local msg = native.mismatch("b/saspu/core.so", "lua5.4", "lua5.1")
    assert.matches("b/saspu/core.so was built for lua5.4, but this is lua5.1", msg, 1, true)
    assert.matches("-DSASPU_LUA_VERSION=5.1", msg, 1, true)
    assert.matches("luarocks --lua-version 5.1 make", msg, 1, true)
    msg = native.mismatch("x.so", "lua5.4", "luajit")
    assert.matches("-DSASPU_LUA_VERSION=jit", msg, 1, true)
    assert.matches("LUA_INCDIR=/usr/include/luajit-2.1", msg, 1, true)
  end)
end)

describe("require 'saspu' on a Lua the module was not built for", function()
  -- another interpreter than the one this build is for: it must refuse the module
  local other = native.compatible(core._LUA, "lua5.4") and "lua5.3" or "lua5.4"
  -- LUA_CPATH alone: a versioned variable from the caller would win over it
  local unset = "-u LUA_CPATH_5_2 -u LUA_CPATH_5_3 -u LUA_CPATH_5_4 -u LUA_PATH_5_3 -u LUA_PATH_5_4"

  it("raises one error naming the module's Lua and how to build one for this Lua", function()
    if not have(other) then pending(other .. " is not installed") return end
    local out, ok = run(("env %s LUA_PATH='lua/?.lua;lua/?/init.lua' LUA_CPATH='%s/?.so' " ..
      "%s -e 'require \"saspu\"'"):format(unset, build, other))
    assert.is_false(ok)
    assert.matches(core_so .. " was built for " .. core._LUA .. ", but this is " .. other, out, 1, true)
    assert.matches("-DSASPU_LUA_VERSION=" .. other:match("%d%.%d"), out, 1, true)
  end)

  it("says which Lua has no module when none is on the path", function()
    if not have(other) then pending(other .. " is not installed") return end
    local out, ok = run(("cd /tmp && env %s LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua' LUA_CPATH='/nonexistent/?.so' " ..
      "%s -e 'require \"saspu\"'"):format(unset, os.getenv("PWD"), os.getenv("PWD"), other))
    assert.is_false(ok)
    assert.matches("no saspu/core.so on package.cpath for " .. other, out, 1, true)
  end)
end)

describe("./dev env", function()
  local out = run("./dev env")
  local vars = {}
  for name, value in out:gmatch("export ([%w_]+)='([^']*)'") do vars[name] = value end

  it("gives every Lua version a module path of its own build", function()
    assert.matches("/build/%?%.so;;$", vars.LUA_CPATH_5_4)
    assert.matches("/build%-lua53/%?%.so;;$", vars.LUA_CPATH_5_3)
    assert.matches("/build%-lua52/%?%.so;;$", vars.LUA_CPATH_5_2)
    assert.matches("/build%-lua51/%?%.so;.*/build%-luajit/%?%.so;;$", vars.LUA_CPATH)
    assert.matches("/lua/%?%.lua;", vars.LUA_PATH)
  end)

  it("makes each installed Lua load a module built for it, or say which one to build", function()
    local env = {}
    for name, value in pairs(vars) do env[#env + 1] = name .. "='" .. value .. "'" end
    for _, interp in ipairs { "lua5.4", "lua5.3", "lua5.2", "lua5.1", "luajit" } do
      if have(interp) then
        local got, ok = run(("cd /tmp && env %s %s -e 'local s = require \"saspu\" " ..
          "io.write(require(\"saspu.core\")._LUA)'"):format(table.concat(env, " "), interp))
        if ok then
          assert.is_true(native.compatible(got, interp == "luajit" and "luajit" or interp), interp .. " loaded " .. got)
        else
          assert.matches("saspu: .* for " .. interp .. ": build saspu.core for " .. interp, got)
        end
      end
    end
  end)
end)
