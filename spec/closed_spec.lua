-- spec/closed_spec.lua: closed worlds, crowds and agent handles refuse every method, and the module's errors name the caller's line, never saspu's own files.
local saspu = require "saspu"
local core = require "saspu.core"
local support = require "support.agents"

local THIS = "closed_spec.lua:"

-- Calls f under pcall; returns the message (nil when it did not raise).
local function message_of(f, ...)
  local ok, err = pcall(f, ...)
  if ok then return nil end
  return tostring(err)
end

-- Every method of `methods` but those listed, called on obj (with a few plain
-- arguments): the names of those that did not raise `text` at the caller's line.
local function not_refusing(methods, obj, text, except)
  local bad = {}
  for name, f in pairs(methods) do
    if type(f) == "function" and not except[name] then
      local msg = message_of(function() local r = f(obj, 1, 1, 1); return r end)
      if not msg or not msg:find(text, 1, true) or not msg:find(THIS, 1, true) then
        bad[#bad + 1] = name .. ": " .. tostring(msg)
      end
    end
  end
  table.sort(bad)
  return bad
end

local OPEN_OK = { close = true, is_open = true }

describe("a closed world", function()
  it("refuses every method with saspu.World: closed at the caller's line", function()
    local world = saspu.world { places = { { name = "well", x = 2, y = 2 } } }
    world:close()
    assert.is_false(world:is_open())
    assert.same({}, not_refusing(core.World, world, "saspu.World: closed", OPEN_OK))
    -- the ones a game calls most, by name
    assert.error_matches(function() world:update(0.1) end, "saspu.World: closed", 1, true)
    assert.error_matches(function() world:events() end, "saspu.World: closed", 1, true)
    assert.error_matches(function() world:place("x", 1, 1) end, "saspu.World: closed", 1, true)
    world:close() -- again: nothing
  end)
end)

describe("a closed crowd", function()
  it("refuses every method with saspu.Crowd: closed at the caller's line", function()
    local world = saspu.world {}
    local crowd = world:crowd(support.citizen(), { goals = { { "work" } } })
    crowd:spawn { start = "start_of_day" }
    crowd:close()
    assert.is_false(crowd:is_open())
    assert.same({}, not_refusing(core.Crowd, crowd, "saspu.Crowd: closed", OPEN_OK))
    world:update(0.1) -- the world goes on without it
  end)
end)

describe("an agent of a closed crowd", function()
  it("refuses every method with saspu.Agent: closed at the caller's line", function()
    local world = saspu.world {}
    local crowd = world:crowd(support.citizen(), { goals = { { "work" } } })
    local a = crowd:spawn { start = "start_of_day" }
    crowd:close()
    assert.is_false(a:is_open())
    assert.same({}, not_refusing(core.Agent, a, "saspu.Agent: closed",
                                { is_open = true, alive = true }))
    for _, m in ipairs { "get", "set", "state", "inspect", "position", "index", "crowd" } do
      local msg = message_of(function() local r = a[m](a, "hunger", "fed"); return r end)
      assert.matches("saspu.Agent: closed", msg, 1, true)
    end
    assert.error_matches(function() return a.data end, "saspu.Agent: closed", 1, true)
  end)
end)

describe("errors of the module", function()
  local dom = support.citizen()
  local cases = {
    { "saspu.world place", function() saspu.world { places = { { name = "w", x = 0, y = 1 } } } end },
    { "world:place", function() saspu.world { grid = saspu.grid(4, 4) }:place("a", 9, 9) end },
    { "world:crowd action", function() saspu.world {}:crowd(dom, { actions = { fly = {} } }) end },
    { "world:crowd goal", function() saspu.world {}:crowd(dom, { goals = { { "sleep" } } }) end },
    { "world:crowd when", function()
      saspu.world {}:crowd(dom, { goals = { { "work", when = { hunger = "x" } } } })
    end },
    { "crowd:spawn start", function()
      saspu.world {}:crowd(dom, {}):spawn { start = "noon" }
    end },
    { "crowd:spawn cell", function()
      saspu.world { grid = saspu.grid(4, 4) }:crowd(dom, {}):spawn { start = "start_of_day", x = 9 }
    end },
    { "crowd:set_all", function() saspu.world {}:crowd(dom, {}):set_all("hungr", "fed") end },
    { "a:set", function()
      saspu.world {}:crowd(dom, {}):spawn({ start = "start_of_day" }):set("hunger", "starving")
    end },
    { "a:get", function() saspu.world {}:crowd(dom, {}):spawn({ start = "start_of_day" }):get("x") end },
    { "world:update", function() saspu.world {}:update(-1) end },
    { "world:load", function()
      local w = saspu.world {}
      w:crowd(dom, {})
      w:load("not a save")
    end },
    { "world:place opts", function() saspu.world {}:place("a", 1, 1, { size = 2 }) end },
    { "dom:plan", function() dom:plan("noon", "work") end },
    { "saspu.domain", function() saspu.domain { name = "x" } end },
  }
  for _, case in ipairs(cases) do
    it("name the caller's line and no saspu file: " .. case[1], function()
      local msg = message_of(case[2])
      assert.is_string(msg)
      assert.is_nil(msg:find("saspu/[%w_]+%.lua"), msg)
      assert.is_nil(msg:find("%.c:%d"), msg)
      assert.matches(THIS, msg, 1, true)
    end)
  end

  it("of the CLI come without a file prefix", function()
    local lua = os.getenv("SASPU_LUA") or "lua5.4"
    local p = io.popen(lua .. " bin/saspu plan domains/citizen.lua noon work 2>&1")
    local out = p:read("*a")
    p:close()
    assert.matches("^saspu plan: ", out)
    assert.is_nil(out:find("%.lua:%d+:"), out)
  end)
end)

describe("methods of an open world", function()
  it("return as many results as they have, no padding", function()
    local world = saspu.world {}
    local crowd = world:crowd(support.citizen(), { goals = { { "work" } } })
    assert.equal(1, select("#", crowd:spawn { start = "start_of_day" }))
    local a = crowd:agent(1)
    assert.equal(1, select("#", a:get("hunger")))
    assert.equal(1, select("#", world:save()))
    assert.equal(0, select("#", a:set("hunger", a:get("hunger"))))
    world:close()
  end)
end)
