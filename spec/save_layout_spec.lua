-- spec/save_layout_spec.lua: the save fuzzer's idea of the layout (tests/fuzz/save_driver.lua) matches the C one: its constants are the library's, and its walk of a real save ends where the save ends, with every agent's cell where the crowd says.
local core = require "saspu.core"

-- The driver is Lua 5.3 code (string.pack, integer operators), as is its harness
-- (tests/fuzz/fuzz_save.c embeds Lua 5.4): on older Lua these are pending.
local has_pack = string.pack ~= nil

local function driver()
  local old = package.path
  package.path = "tests/fuzz/?.lua;" .. package.path
  local d = require "save_driver"
  package.path = old
  d.root = ""
  return d
end

describe("the save fuzzer's layout", function()
  it("has the library's constants", function()
    if not has_pack then
      pending("the driver needs Lua 5.3 or later")
      return
    end
    local d = driver()
    assert.same(core.save_layout, d.LAYOUT)
    assert.equal(core.save_layout.agent_bytes, d.AGENT[#d.AGENT][2] + d.AGENT[#d.AGENT][3])
  end)

  it("walks a real save to its end, agents where the crowds have them", function()
    if not has_pack then
      pending("the driver needs Lua 5.3 or later")
      return
    end
    local d = driver()
    local world = d.build()
    for _ = 1, 25 do world:update(0.7) end
    local s = world:save()
    local vars, acts, agents = {}, {}, {}
    for k, c in ipairs(world:crowds()) do
      vars[k], acts[k] = #c:domain():variables(), #c:domain():actions()
      for i = 1, c:size() do
        local x, y = c:position(i)
        agents[#agents + 1] = { x, y }
      end
    end
    local fields, extra_at = d.layout(s, vars, acts)
    -- the extra part's length is the rest of the save
    assert.equal(#s - extra_at + 1, string.unpack("<I4", s, extra_at - 4))
    local xs, ys, named = {}, {}, {}
    for _, f in ipairs(fields) do
      if f.group == "x" then xs[#xs + 1] = string.unpack("<I2", s, f.at) + 1 end
      if f.group == "y" then ys[#ys + 1] = string.unpack("<I2", s, f.at) + 1 end
      if f.group == "named agents" then named[#named + 1] = string.unpack("<I8", s, f.at) end
    end
    assert.equal(#agents, #xs)
    for i, cell in ipairs(agents) do assert.same(cell, { xs[i], ys[i] }) end
    for k, c in ipairs(world:crowds()) do assert.equal(c:size(), named[k]) end
    world:close()
  end)
end)
