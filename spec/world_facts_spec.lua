-- spec/world_facts_spec.lua: world facts (saspu.world { facts = }, a crowd's facts = { ... }), world:set / world:get: seen by every tied agent at the next update, reacted to only by those whose plan or goal choice reads them, saved with the world.
local saspu = require "saspu"

local guard = require "support.guard"
local GUARD, guard_domain = guard.GUARD, guard.domain

-- n guards (strolling to the bank) and m brewers (coffee for a long time).
local function town(n, m, opts)
  local world = saspu.world { facts = { alarm = { "quiet", "ringing" } } }
  local dom = guard_domain()
  local crowd = world:crowd(dom, {
    actions = { stroll = { duration = 50 }, flee = { duration = 1 }, brew = { duration = 50 } },
    goals = opts and opts.goals or { { { coffee = "yes" }, priority = 2 }, { { post = "bank" }, priority = 1 } },
  }, { facts = { "alarm" }, capacity = n + m })
  local guards, brewers = {}, {}
  for i = 1, n do guards[i] = crowd:spawn { start = { alarm = "quiet", post = "home", coffee = "yes" } } end
  for i = 1, m do brewers[i] = crowd:spawn { start = { alarm = "quiet", post = "home", coffee = "no" } } end
  return world, crowd, guards, brewers
end

local function events_by_agent(world)
  local out = {}
  for ev in world:events() do
    local i = ev.agent:index()
    out[i] = out[i] or {}
    table.insert(out[i], ev.kind .. (ev.reason and ("/" .. ev.reason) or ""))
  end
  return out
end

describe("facts", function()
  it("declares a fact by its values (the first holds) or by its value, the values from the domain", function()
    local world = saspu.world { facts = { alarm = { "quiet", "ringing" }, night = { false, true }, weather = "dry" } }
    assert.equal("quiet", world:get("alarm"))
    assert.equal(false, world:get("night"))
    assert.equal("dry", world:get("weather"))
    local dom = saspu.domain {
      name = "walker", variables = { { name = "weather", values = { "wet", "dry" } }, { name = "x", values = { "a", "b" } } },
      actions = { { name = "go", var = "x", pre = "a", post = "b", prevail = { weather = "dry" } } }, goals = {} }
    local c = world:crowd(dom, {}, { facts = { "weather" } })
    local a = c:spawn { start = { weather = "wet", x = "a" } }
    assert.equal("dry", a:get("weather")) -- the fact's value, whatever the start said
    world:set("weather", "wet")
    assert.equal("wet", world:get("weather"))
    assert.error_matches(function() world:set("weather", "snowy") end,
      "saspu.World:set: 'snowy' is not a value of fact 'weather' (wet, dry)", 1, true)
  end)

  it("is seen by every agent of every tied crowd at the next update", function()
    local world, crowd, guards, brewers = town(3, 3)
    local other = world:crowd(guard_domain(), { facts = { "alarm" } })
    local x = other:spawn { start = { alarm = "quiet", post = "home", coffee = "no" } }
    world:update(1)
    world:set("alarm", "ringing")
    assert.equal("ringing", world:get("alarm"))
    assert.equal("quiet", guards[1]:get("alarm")) -- not before the update
    world:update(1)
    for _, a in ipairs(guards) do assert.equal("ringing", a:get("alarm")) end
    for _, a in ipairs(brewers) do assert.equal("ringing", a:get("alarm")) end
    assert.equal("ringing", x:get("alarm"))
    assert.equal("ringing", x:state().alarm)
    assert.equal(crowd, guards[1]:crowd())
  end)

  it("makes only the agents whose running plan reads it react", function()
    local world, _, guards, brewers = town(4, 40)
    for _ = 1, 3 do world:update(1) end
    for _, a in ipairs(guards) do assert.equal("stroll", a:inspect().action) end
    world:set("alarm", "ringing")
    world:update(1)
    local ev = events_by_agent(world)
    for _, a in ipairs(guards) do
      assert.same({ "step_failed/world_changed", "no_plan" }, { ev[a:index()][1], ev[a:index()][2]:match("^[%a_]+") })
    end
    for _, a in ipairs(brewers) do
      assert.is_nil(ev[a:index()])
      assert.equal("brew", a:inspect().action)
    end
  end)

  it("wakes idle agents only when a goal or `when` reads it", function()
    local goals = { { { post = "bank" }, priority = 1, when = { alarm = "quiet" } } }
    local world, _, guards = town(2, 0, { goals = goals })
    world:set("alarm", "ringing")
    world:update(1)
    world:update(1)
    for _, a in ipairs(guards) do assert.equal("idle", a:inspect().phase) end
    world:set("alarm", "quiet")
    world:update(1)
    local ev = events_by_agent(world)
    for _, a in ipairs(guards) do assert.equal("goal_chosen", ev[a:index()][1]) end
    -- without a goal reading it, an idle agent stays as it is
    local w2, _, idle = town(1, 0, { goals = { { { coffee = "yes" } } } })
    w2:update(1)
    w2:set("alarm", "ringing")
    w2:update(1)
    assert.is_nil(events_by_agent(w2)[idle[1]:index()])
  end)

  it("refuses a:set and crowd:set_all of a tied variable, naming the fact", function()
    local _, crowd, guards = town(1, 0)
    assert.error_matches(function() guards[1]:set("alarm", "ringing") end,
      "saspu.Agent:set: variable 'alarm' is the world's fact 'alarm' (set it with world:set)", 1, true)
    assert.error_matches(function() crowd:set_all("alarm", "ringing") end,
      "saspu.Crowd:set_all: variable 'alarm' is the world's fact 'alarm'", 1, true)
    guards[1]:set("coffee", "no") -- the others still may
  end)

  it("refuses unknown facts, bad values and ties that do not fit, naming the call", function()
    local world = saspu.world { facts = { alarm = { "quiet", "ringing" } } }
    assert.error_matches(function() world:set("alrm", "quiet") end, "saspu.World:set: unknown fact 'alrm' (alarm)", 1, true)
    assert.error_matches(function() world:get("alrm") end, "saspu.World:get: unknown fact 'alrm' (alarm)", 1, true)
    assert.error_matches(function() world:set("alarm", "loud") end,
      "saspu.World:set: 'loud' is not a value of fact 'alarm' (quiet, ringing)", 1, true)
    assert.error_matches(function() world:crowd(guard_domain(), {}, { facts = { "alrm" } }) end,
      "saspu.World:crowd: facts[1]: unknown fact 'alrm' (alarm)", 1, true)
    local swapped = guard_domain { name = "swapped", variables = {
      { name = "alarm", values = { "ringing", "quiet" } }, GUARD.variables[2], GUARD.variables[3] } }
    world:crowd(guard_domain(), {}, { facts = { "alarm" } })
    assert.error_matches(function() world:crowd(swapped, {}, { facts = { "alarm" } }) end,
      "saspu.World:crowd: facts[1]: fact 'alarm' tied to variable 'alarm': its values differ from the fact's", 1, true)
    local ringer = guard_domain { name = "ringer", actions = {
      { name = "ring", var = "alarm", pre = "quiet", post = "ringing" } } }
    assert.error_matches(function() world:crowd(ringer, {}, { facts = { "alarm" } }) end,
      "action 'ring' changes it (only the world sets a fact)", 1, true)
    local nameless = saspu.domain { name = "nameless", variables = { { name = "x", values = { "a", "b" } } },
                                    actions = {}, goals = {} }
    assert.error_matches(function() world:crowd(nameless, {}, { facts = { "alarm" } }) end,
      "saspu.World:crowd: facts[1]: 'alarm' is not a variable of 'nameless'", 1, true)
    assert.error_matches(function() saspu.world { facts = { alarm = { "only" } } } end,
      "saspu.world: facts.alarm: expected at least 2 values", 1, true)
    assert.error_matches(function() saspu.world { facts = { alarm = 3 } } end,
      "saspu.world: facts.alarm: expected the values { ... } or the value it holds, got number", 1, true)
    local w3 = saspu.world { facts = { alarm = "loud" } }
    assert.error_matches(function() w3:crowd(guard_domain(), {}, { facts = { "alarm" } }) end,
      "saspu.World:crowd: facts[1]: 'loud' is not a value of fact 'alarm' (quiet, ringing)", 1, true)
  end)

  it("is saved and loaded with the world, a change not yet applied included", function()
    local function run(save_at)
      local world, _, guards = town(2, 2)
      local trace = {}
      for f = 1, 8 do
        if f == 3 then world:set("alarm", "ringing") end
        if f == 6 then world:set("alarm", "quiet") end
        if f == save_at then
          local s = world:save()
          world = town(2, 2)
          world:load(s)
          guards = { world:crowds()[1]:agent(1), world:crowds()[1]:agent(2) }
        end
        world:update(1)
        for ev in world:events() do trace[#trace + 1] = f .. ev.kind .. ev.agent:index() end
        trace[#trace + 1] = world:get("alarm") .. guards[1]:get("alarm")
      end
      return trace
    end
    local straight = run(nil)
    assert.same(straight, run(3)) -- saved with the change still to apply
    assert.same(straight, run(5))
  end)
end)

describe("world:set/get", function()
  it("costs a change that concerns 1 agent about what that agent costs: no sweep of the crowd", function()
    -- counted, not timed: the agents the change made react are the guard alone
    local world, crowd, guards = town(1, 5000)
    for _ = 1, 2 do world:update(1) end
    local before = crowd:stats({}, true).events
    world:set("alarm", "ringing")
    world:update(1)
    assert.equal(3, crowd:stats({}, true).events - before) -- the guard: step_failed, no_plan, idle
    assert.equal("ringing", guards[1]:get("alarm"))
  end)
end)
