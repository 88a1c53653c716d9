-- spec/set_many_spec.lua: crowd:set_many / crowd:set_var_many: one value for a list of agents in one call, the same world change as a:set per agent, and a bad list that changes nothing.
local saspu = require "saspu"

local guard = require "support.guard"
local GUARD, guard_domain = guard.GUARD, guard.domain

-- n guards strolling to the bank (some with coffee to brew first); `opts` are the
-- crowd's options (facts, sensors).
local function town(n, opts)
  local world = saspu.world { facts = { bell = { "quiet", "ringing" } } }
  local crowd = world:crowd(guard_domain(), {
    actions = { stroll = { duration = 7 }, flee = { duration = 2 }, brew = { duration = 3 } },
    goals = { { { coffee = "yes" }, priority = 2 }, { { post = "bank" }, priority = 1 } },
  }, opts)
  local agents = {}
  for i = 1, n do
    agents[i] = crowd:spawn { start = { alarm = "quiet", post = "home", coffee = i % 3 == 0 and "no" or "yes" } }
  end
  return world, crowd, agents
end

-- Every event of `frames` updates of 1 s, as text, and every agent's state after.
local function trace(world, agents, frames)
  local out = {}
  for _ = 1, frames do
    world:update(1)
    for ev in world:events() do
      out[#out + 1] = table.concat({ ev.agent:index(), ev.kind, tostring(ev.action), tostring(ev.reason) }, ":")
    end
  end
  for i, a in ipairs(agents) do
    out[#out + 1] = i .. "=" .. a:get("alarm") .. "," .. a:get("post") .. "," .. a:get("coffee")
  end
  return table.concat(out, " ")
end

local function states(agents)
  local out = {}
  for i, a in ipairs(agents) do
    out[i] = a:alive() and a:get("alarm") .. a:get("post") .. a:get("coffee") or "gone"
  end
  return table.concat(out, " ")
end

describe("crowd:set_many", function()
  it("is a:set for each listed agent: the same events and states after", function()
    -- twice the same world; the list has repeats and is in no order
    local list = { 17, 3, 40, 3, 22, 9, 31, 17, 1 }
    local w1, _, a1 = town(40)
    local w2, c2, a2 = town(40)
    w1:update(3)
    w2:update(3)
    for _, i in ipairs(list) do a1[i]:set("alarm", "ringing") end
    c2:set_many(list, "alarm", "ringing")
    local t1, t2 = trace(w1, a1, 12), trace(w2, a2, 12)
    assert.equal(t1, t2)
    -- the change reached the listed guards (they flee or never stroll), not the others
    assert.equal("ringing", a2[22]:get("alarm"))
    assert.equal("quiet", a2[2]:get("alarm"))
    assert.truthy(t2:find("22:replanned:", 1, true) or t2:find("22:step_failed", 1, true)
                  or t2:find("22:step_started:flee", 1, true), "guard 22 reacts")
  end)

  it("takes only the first n of the list", function()
    local _, crowd, agents = town(6)
    crowd:set_many({ 1, 2, 4 }, "coffee", "no", 2)
    assert.equal("no", agents[1]:get("coffee"))
    assert.equal("no", agents[2]:get("coffee"))
    assert.equal("yes", agents[4]:get("coffee"))
    crowd:set_many({ 5 }, "coffee", "no", 0) -- nothing
    assert.equal("yes", agents[5]:get("coffee"))
    crowd:set_many({}, "coffee", "no") -- nothing either
  end)

  it("takes ids at the low level: set_var_many(agents, var, value [, n])", function()
    local _, crowd, agents = town(4)
    crowd:set_var_many({ 4, 1 }, 1, 2)
    assert.equal("ringing", agents[1]:get("alarm"))
    assert.equal("quiet", agents[2]:get("alarm"))
    assert.equal("ringing", agents[4]:get("alarm"))
  end)

  it("refuses a bad list, naming the entry, and changes no agent", function()
    local world, crowd, agents = town(5)
    world:update(1)
    agents[4]:despawn()
    local before = states(agents)
    local function refuses(list, message, n)
      assert.error_matches(function() crowd:set_many(list, "alarm", "ringing", n) end, message, 1, true)
      assert.equal(before, states(agents))
    end
    refuses({ 1, 2, 9 }, "agents[3] = 9 is outside 1..5")
    refuses({ 1, 0 }, "agents[2] = 0 is outside 1..5")
    refuses({ 2, 4 }, "agents[2] = 4 was despawned")
    refuses({ 1, "two" }, "agents[2] is not an agent index")
    refuses({ 1, 2.5 }, "agents[2] is not an agent index")
    refuses({ 1, nil, 3 }, "agents[2] is not an agent index", 3)
    refuses({ 1 }, "n must be 0 or more", -1)
    assert.error_matches(function() crowd:set_many(7, "alarm", "ringing") end,
      "saspu.Crowd:set_many: agents must be a table of agent indices, got number", 1, true)
    assert.error_matches(function() crowd:set_many({ 1 }, "alarm", "loud") end,
      "saspu.Crowd:set_many: 'loud' is not a value of 'alarm' (quiet, ringing)", 1, true)
    assert.error_matches(function() crowd:set_many({ 1 }, "alrm", "quiet") end,
      "saspu.Crowd:set_many: unknown variable 'alrm'", 1, true)
    assert.equal(before, states(agents))
  end)

  it("refuses a variable the world or a sensor sets, naming it", function()
    local world = saspu.world { facts = { alarm = { "quiet", "ringing" } } }
    local tied = world:crowd(guard_domain(), {}, { facts = { "alarm" } })
    tied:spawn { start = { alarm = "quiet", post = "home", coffee = "yes" } }
    assert.error_matches(function() tied:set_many({ 1 }, "alarm", "ringing") end,
      "saspu.Crowd:set_many: variable 'alarm' is the world's fact 'alarm'", 1, true)
    -- the low level is refused by C, before any agent changed
    assert.error_matches(function() tied:set_var_many({ 1 }, 1, 2) end, "the world's fact 'alarm'", 1, true)
    local watchful = guard_domain { name = "watchful", variables = {
      GUARD.variables[1], GUARD.variables[2], GUARD.variables[3], { name = "danger", values = { "false", "true" } } } }
    local sensing = saspu.world { grid = saspu.grid(8, 8) }
    local others = sensing:crowd(guard_domain(), {})
    local guards = sensing:crowd(watchful, {}, { sensors = { danger = { near = others, r = 2 } } })
    guards:spawn { start = { alarm = "quiet", post = "home", coffee = "yes", danger = "false" }, x = 1, y = 1 }
    assert.error_matches(function() guards:set_many({ 1 }, "danger", "true") end,
      "saspu.Crowd:set_many: variable 'danger'", 1, true)
    assert.error_matches(function() guards:set_var_many({ 1 }, 4, 2) end, "is a sensor's", 1, true)
    assert.equal("false", guards:agent(1):get("danger"))
  end)
end)
