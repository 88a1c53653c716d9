-- spec/sense_facts_spec.lua: sensors and facts as a scripter writes them: a sensor on any two-valued variable (or two values named by `values`), `sensors` in the behaviour, crowds that sense each other (crowd:sense), and a variable named like a world fact tied to it or refused with the reason.
local saspu = require "saspu"

local guard = require "support.guard"
local GUARD, guard_domain = guard.GUARD, guard.domain

-- A lookout: `sheriff` (no, yes) a two-valued variable that is not false/true; `mood`
-- three values, two of which a sensor may name.
local LOOKOUT = {
  name = "lookout",
  variables = {
    { name = "sheriff", values = { "no", "yes" } },
    { name = "mood", values = { "calm", "wary", "scared" } },
    { name = "hidden", values = { false, true } },
  },
  actions = {
    { name = "hide", var = "hidden", pre = false, post = true, prevail = { sheriff = "yes" } },
  },
  goals = {},
}

local function plain_world()
  return saspu.world { grid = saspu.grid(20, 20) }
end

local CITIZEN = "domains/citizen.lua"

describe("a sensor", function()
  it("senses on any two-valued variable: its first value is 'not sensed'", function()
    local world = plain_world()
    local sheriffs = world:crowd(saspu.domain_file(CITIZEN), {})
    local s = sheriffs:spawn { start = "start_of_day", x = 10, y = 10 }
    local lookouts = world:crowd(saspu.domain(LOOKOUT), {},
                                 { sensors = { sheriff = { near = sheriffs, r = 2 } } })
    local near = lookouts:spawn { start = { sheriff = "no", mood = "calm", hidden = false }, x = 11, y = 11 }
    local far = lookouts:spawn { start = { sheriff = "yes", mood = "calm", hidden = false }, x = 1, y = 1 }
    world:update(0.1)
    assert.equal("yes", near:get("sheriff"))
    assert.equal("no", far:get("sheriff"))
    s:teleport(1, 2)
    world:update(0.1)
    assert.equal("no", near:get("sheriff"))
    assert.equal("yes", far:get("sheriff"))
  end)

  it("takes the two values `values = { off, on }` names, on a variable of more values", function()
    local world = plain_world()
    local sheriffs = world:crowd(saspu.domain_file(CITIZEN), {})
    sheriffs:spawn { start = "start_of_day", x = 10, y = 10 }
    local lookouts = world:crowd(saspu.domain(LOOKOUT), {},
      { sensors = { mood = { near = sheriffs, r = 2, values = { "calm", "scared" } } } })
    local near = lookouts:spawn { start = { sheriff = "no", mood = "wary", hidden = false }, x = 12, y = 10 }
    local far = lookouts:spawn { start = { sheriff = "no", mood = "wary", hidden = false }, x = 20, y = 20 }
    world:update(0.1)
    assert.equal("scared", near:get("mood"))
    assert.equal("calm", far:get("mood"))
  end)

  it("refuses a variable of more than two values without `values`, and bad `values`, naming them", function()
    local world = plain_world()
    local sheriffs = world:crowd(saspu.domain_file(CITIZEN), {})
    local dom = saspu.domain(LOOKOUT)
    local function crowd(sensors) return function() world:crowd(dom, {}, { sensors = sensors }) end end
    assert.error_matches(crowd { mood = { near = sheriffs, r = 1 } },
      "saspu.World:crowd: sensors.mood: variable 'mood' has 3 values; a sensor sets a two-valued "
      .. "variable, or one that `values = { off, on }` names two values of", 1, true)
    assert.error_matches(crowd { mood = { near = sheriffs, r = 1, values = { "calm", "angry" } } },
      "saspu.World:crowd: sensors.mood.values[2]: 'angry' is not a value of 'mood' (calm, wary, scared)", 1, true)
    assert.error_matches(crowd { mood = { near = sheriffs, r = 1, values = { "calm" } } },
      "saspu.World:crowd: sensors.mood.values: expected { off, on }, two values of 'mood'", 1, true)
    assert.error_matches(crowd { mood = { near = sheriffs, r = 1, values = { "calm", "calm" } } },
      "saspu.World:crowd: sensors.mood.values: off and on must be two different values", 1, true)
  end)

  it("is accepted in the behaviour, as `facts` is, but not in both places", function()
    local world = plain_world()
    local sheriffs = world:crowd(saspu.domain_file(CITIZEN), {})
    sheriffs:spawn { start = "start_of_day", x = 10, y = 10 }
    local dom = saspu.domain(LOOKOUT)
    local lookouts = world:crowd(dom, { sensors = { sheriff = { near = sheriffs, r = 3 } } })
    local a = lookouts:spawn { start = { sheriff = "no", mood = "calm", hidden = false }, x = 9, y = 9 }
    world:update(0.1)
    assert.equal("yes", a:get("sheriff"))
    assert.error_matches(function() a:set("sheriff", "no") end, "variable 'sheriff' is a sensor's", 1, true)
    assert.error_matches(function()
      world:crowd(dom, { sensors = { sheriff = { near = sheriffs, r = 3 } } },
                  { sensors = { sheriff = { near = sheriffs, r = 3 } } })
    end, "saspu.World:crowd: sensors given in both the behaviour and the options", 1, true)
  end)
end)

-- Bandits hide while a sheriff is near; sheriffs arm while a bandit is near: each crowd
-- senses the other, so the second sensor is declared after both crowds exist.
local BANDIT = {
  name = "bandit",
  variables = {
    { name = "sheriff_near", values = { "no", "yes" } },
    { name = "hidden", values = { false, true } },
  },
  actions = { { name = "hide", var = "hidden", pre = false, post = true, prevail = { sheriff_near = "yes" } } },
  goals = {},
}
local SHERIFF = {
  name = "sheriff",
  variables = {
    { name = "bandit_near", values = { false, true } },
    { name = "armed", values = { false, true } },
  },
  actions = { { name = "arm", var = "armed", pre = false, post = true, prevail = { bandit_near = true } } },
  goals = {},
}

describe("crowd:sense", function()
  local function standoff()
    local world = plain_world()
    local bandits = world:crowd(saspu.domain(BANDIT), {
      actions = { hide = { duration = 0.2 } }, goals = { { { hidden = true } } } })
    local sheriffs = world:crowd(saspu.domain(SHERIFF), {
      actions = { arm = { duration = 0.2 } }, goals = { { { armed = true } } } },
      { sensors = { bandit_near = { near = bandits, r = 3 } } })
    bandits:sense { sheriff_near = { near = sheriffs, r = 3 } }
    return world, bandits, sheriffs
  end

  it("lets two crowds sense each other, the second sensor declared once both exist", function()
    local world, bandits, sheriffs = standoff()
    local b = bandits:spawn { start = { sheriff_near = "no", hidden = false }, x = 5, y = 5 }
    local s = sheriffs:spawn { start = { bandit_near = false, armed = false }, x = 15, y = 15 }
    world:update(0.1)
    assert.equal("no", b:get("sheriff_near"))
    assert.is_false(s:get("bandit_near"))
    s:teleport(7, 6)
    for _ = 1, 5 do world:update(0.1) end
    assert.equal("yes", b:get("sheriff_near"))
    assert.is_true(s:get("bandit_near"))
    assert.is_true(b:get("hidden"))
    assert.is_true(s:get("armed"))
    assert.error_matches(function() b:set("sheriff_near", "no") end, "is a sensor's", 1, true)
  end)

  it("is saved and loaded with the world, and frees both crowds once both close", function()
    local world, bandits, sheriffs = standoff()
    bandits:spawn { start = { sheriff_near = "no", hidden = false }, x = 5, y = 5 }
    sheriffs:spawn { start = { bandit_near = false, armed = false }, x = 6, y = 6 }
    world:update(0.1)
    local saved = world:save()
    local world2, bandits2, sheriffs2 = standoff()
    world2:load(saved)
    world2:update(0.1)
    assert.equal("yes", bandits2:agent(1):get("sheriff_near"))
    assert.is_true(sheriffs2:agent(1):get("bandit_near"))
    bandits:close()
    world:update(0.1) -- the sheriffs read the closed crowd's last cells, without a crash
    sheriffs:close()
    bandits2, sheriffs2 = nil, nil -- luacheck: ignore (dropped: the collector frees the pair)
    world2 = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
  end)

  it("refuses a crowd of another world and a variable sensed already, naming them", function()
    local world, bandits = standoff()
    local other = plain_world()
    local stranger = other:crowd(saspu.domain(SHERIFF), {})
    assert.error_matches(function() bandits:sense { sheriff_near = { near = stranger, r = 3 } } end,
      "saspu.Crowd:sense: sensors.sheriff_near.near: expected a crowd of this world", 1, true)
    assert.error_matches(function() bandits:sense { sheriff_near = { near = bandits, r = 3 } } end,
      "saspu.Crowd:sense: sensors.sheriff_near: sensor of variable 'sheriff_near': it is a sensor's "
      .. "or a world fact's already", 1, true)
    assert.error_matches(function() bandits:sense() end,
      "saspu.Crowd:sense: expected a table { variable = { ... } }, got nil", 1, true)
    world:update(0.1)
  end)
end)

describe("a variable named like a world fact", function()
  it("is tied to the fact without `facts` naming it: world:set reaches the agents", function()
    local world = saspu.world { facts = { alarm = { "quiet", "ringing" } } }
    local crowd = world:crowd(guard_domain(), { actions = { stroll = { duration = 50 } },
                                               goals = { { { post = "bank" } } } })
    local a = crowd:spawn { start = { alarm = "quiet", post = "home", coffee = "yes" } }
    world:update(0.1)
    world:set("alarm", "ringing")
    world:update(0.1)
    assert.equal("ringing", a:get("alarm"))
    assert.error_matches(function() a:set("alarm", "quiet") end,
      "saspu.Agent:set: variable 'alarm' is the world's fact 'alarm' (set it with world:set)", 1, true)
  end)

  it("takes its values from the first crowd when the world gave only a value", function()
    local world = saspu.world { facts = { alarm = "ringing" } }
    local crowd = world:crowd(guard_domain(), {})
    local a = crowd:spawn { start = { alarm = "quiet", post = "home", coffee = "yes" } }
    world:update(0.1)
    assert.equal("ringing", a:get("alarm"))
    assert.equal("ringing", world:get("alarm"))
  end)

  it("refuses a crowd whose variable cannot be tied, saying why", function()
    local world = saspu.world { facts = { alarm = { "quiet", "ringing" } } }
    local ringer = guard_domain { name = "ringer", actions = {
      { name = "ring", var = "alarm", pre = "quiet", post = "ringing" } } }
    assert.error_matches(function() world:crowd(ringer, {}) end,
      "saspu.World:crowd: facts: variable 'alarm' of 'ringer' is named like the world's fact 'alarm', "
      .. "so it is tied to it, and it cannot be: fact 'alarm' tied to variable 'alarm': action 'ring' "
      .. "changes it (only the world sets a fact) (rename the variable to keep it the crowd's own)", 1, true)
    local swapped = guard_domain { name = "swapped", variables = {
      { name = "alarm", values = { "ringing", "quiet" } }, GUARD.variables[2], GUARD.variables[3] } }
    assert.error_matches(function() world:crowd(swapped, {}) end,
      "its values differ from the fact's (name and order)", 1, true)
  end)

  it("stays the crowd's own when a sensor of the crowd sets it", function()
    local world = saspu.world { grid = saspu.grid(20, 20), facts = { sheriff = { "no", "yes" } } }
    local sheriffs = world:crowd(saspu.domain_file(CITIZEN), {})
    sheriffs:spawn { start = "start_of_day", x = 3, y = 3 }
    local lookouts = world:crowd(saspu.domain(LOOKOUT), {},
                                 { sensors = { sheriff = { near = sheriffs, r = 1 } } })
    local a = lookouts:spawn { start = { sheriff = "no", mood = "calm", hidden = false }, x = 4, y = 4 }
    world:update(0.1)
    assert.equal("yes", a:get("sheriff"))
    assert.equal("no", world:get("sheriff"))
  end)
end)

describe("crowd:near's errors", function()
  it("name each argument by its place in crowd:near(x, y, r, out [, max]), however it is called", function()
    local world = plain_world()
    local c = world:crowd(saspu.domain_file(CITIZEN), {})
    local cases = {
      { { 1.5, 1, 1, {} }, "saspu.Crowd:near: x (argument #1) must be an integer, got 1.5" },
      { { 1, "y", 1, {} }, "saspu.Crowd:near: y (argument #2) must be an integer, got string" },
      { { 1, 999999, 1, {} }, "saspu.Crowd:near: y (argument #2) = 999999 is out of range" },
      { { 1, 1, -1, {} }, "saspu.Crowd:near: r (argument #3) must be a number >= 0, got -1" },
      { { 1, 1, 1 }, "saspu.Crowd:near: out (argument #4) must be a table, got no value" },
      { { 1, 1, 1, {}, -1 }, "saspu.Crowd:near: max (argument #5) must be an integer >= 0 (0: all), got -1" },
    }
    local unpack = table.unpack or unpack -- luacheck: ignore (5.1 and LuaJIT)
    for _, case in ipairs(cases) do
      local args = case[1]
      assert.error_matches(function() c:near(unpack(args, 1, #args)) end, case[2], 1, true)
      assert.error_matches(function() c.near(c, unpack(args, 1, #args)) end, case[2], 1, true)
    end
    assert.error_matches(function() world:near(999999, 1, 1) end,
      "saspu.World:near: x and y must be in -65536..131072, got 999999, 1", 1, true)
  end)
end)
