-- spec/package_spec.lua: what a packager reads: the license, the rockspecs (scm-1 and the release of saspu._VERSION) and their build settings.
local saspu = require "saspu"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- a rockspec's fields, read as LuaRocks does: a chunk assigning globals
local function rockspec(path)
  local env = {}
  local chunk
  if setfenv then
    chunk = assert(loadstring(read(path), "@" .. path))
    setfenv(chunk, env)
  else
    chunk = assert(load(read(path), "@" .. path, "t", env))
  end
  chunk()
  return env
end

local version = saspu._VERSION:match("^saspu (%d+%.%d+%.%d+)$")

describe("LICENSE", function()
  it("is the MIT license of the saspu authors", function()
    local text = read("LICENSE")
    assert.matches("^MIT License\n", text)
    assert.matches("Copyright (c) 2026 the saspu authors", text, 1, true)
    assert.matches("WITHOUT WARRANTY OF ANY KIND", text, 1, true)
  end)
end)

describe("the rockspecs", function()
  local specs = { "saspu-scm-1.rockspec", "saspu-" .. tostring(version) .. "-1.rockspec" }

  it("include the release of saspu._VERSION, pointing at its tag or its commit", function()
    assert.is_string(version)
    local r = rockspec(specs[2])
    assert.equal(version .. "-1", r.version)
    if r.source.tag then
      assert.equal("v" .. version, r.source.tag)
    else -- the release commit's archive (./dev release --pin)
      local commit = r.source.url:match("/archive/(%x+)%.tar%.gz$")
      assert.is_string(commit, r.source.url)
      assert.equal(40, #commit)
      assert.equal("saspu-" .. commit, r.source.dir)
    end
  end)

  for _, path in ipairs(specs) do
    it(path .. " says MIT, a homepage and a test section that needs no network", function()
      local r = rockspec(path)
      assert.equal("saspu", r.package)
      assert.equal("MIT", r.description.license)
      assert.matches("^https://", r.description.homepage)
      -- busted as installed (Debian's lua-busted too): no test_dependencies to fetch
      assert.equal("command", r.test.type)
      assert.equal("tools/rock_test.lua", r.test.script)
      assert.same({ "--run=rock" }, r.test.flags)
      assert.is_nil(r.test_dependencies)
      local script = io.open(r.test.script)
      assert.truthy(script, r.test.script)
      script:close()
    end)

    it(path .. " passes LuaRocks' CFLAGS and Lua, and installs bin/saspu for that Lua", function()
      local v = rockspec(path).build.variables
      assert.equal("$(CFLAGS)", v.CMAKE_C_FLAGS)
      assert.equal("$(LUA_INCDIR)", v.LUA_INCDIR)
      assert.equal("auto", v.SASPU_LUA_VERSION)
      assert.equal("OFF", v.SASPU_INSTALL_BIN)
      assert.equal("bin/saspu", rockspec(path).build.install.bin.saspu)
    end)
  end

  it("are the same but for the version and its source", function()
    local a, b = read(specs[1]), read(specs[2])
    local function body(s)
      return (s:gsub("^.-\nrockspec_format", ""):gsub('\nversion = "[^"]*"', ""):gsub("\nsource = %b{}", ""))
    end
    assert.equal(body(a), body(b))
  end)
end)
