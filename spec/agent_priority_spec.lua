-- spec/agent_priority_spec.lua: a:set_priority gives one agent its own priority for a goal (the others keep the crowd's); a save keeps it, a despawn drops it.
local support = require "support.agents"

local town = support.two_goal_town

-- The goals each agent chose over `frames` frames, in order.
local function chosen(world, frames)
  local out = {}
  for _ = 1, frames do
    world:update(0.1)
    for ev in world:events() do
      if ev.kind == "goal_chosen" then
        local i = ev.agent:index()
        out[i] = out[i] or {}
        out[i][#out[i] + 1] = ev.goal
      end
    end
  end
  return out
end

describe("Agent:set_priority", function()
  it("makes that agent alone take the goal raised above the others", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day" }
    local b = crowd:spawn { start = "start_of_day" }
    b:set_priority("buy_supplies", 10)
    assert.same({ 10, true }, { b:priority("buy_supplies") })
    assert.same({ 1, false }, { a:priority("buy_supplies") })
    assert.equal(1, crowd:priority("buy_supplies"))
    local goals = chosen(world, 3)
    assert.equal("work", goals[a:index()][1])
    assert.equal("buy_supplies", goals[b:index()][1])
  end)

  it("lowers a goal for one agent, and nil gives it the crowd's again", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day" }
    a:set_priority("work", 0)
    assert.equal("buy_supplies", chosen(world, 3)[1][1])
    a:set_priority("work", nil)
    assert.same({ 5, false }, { a:priority("work") })
    local world2, crowd2 = town()
    local b = crowd2:spawn { start = "start_of_day" }
    b:set_priority("work", 0)
    b:set_priority("work")
    assert.equal("work", chosen(world2, 3)[1][1])
  end)

  it("interrupts a running plan for a goal now higher for the agent", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day" }
    local b = crowd:spawn { start = "start_of_day" }
    chosen(world, 3)
    assert.equal("work", a:inspect().goal)
    a:set_priority("buy_supplies", 9)
    local replans = {}
    for _ = 1, 80 do
      world:update(0.1)
      for ev in world:events() do
        if ev.kind == "replanned" then replans[ev.agent:index()] = ev.reason end
      end
      if replans[a:index()] then break end
    end
    assert.equal("higher_goal", replans[a:index()])
    assert.equal("buy_supplies", a:inspect().goal)
    assert.equal("work", b:inspect().goal)
  end)

  it("refuses an unknown goal and a priority that is no integer", function()
    local _, crowd = town()
    local a = crowd:spawn { start = "start_of_day" }
    assert.error_matches(function() a:set_priority("sleep", 1) end,
      "saspu.Agent:set_priority: unknown goal 'sleep' (work, buy_supplies)", 1, true)
    assert.error_matches(function() a:set_priority("work", 1.5) end,
      "saspu.Agent:set_priority: priority must be an integer or nil, got 1.5", 1, true)
    assert.error_matches(function() a:priority("sleep") end,
      "saspu.Agent:priority: unknown goal 'sleep' (work, buy_supplies)", 1, true)
    assert.error_matches(function() crowd:set_agent_priority(1, 3, 1) end, "goal 3 is outside 1..2", 1, true)
    assert.error_matches(function() crowd:set_agent_priority(2, 1, 1) end, "agent 2 is outside 1..1", 1, true)
  end)

  it("is kept by a save and dropped by a despawn", function()
    local world, crowd = town()
    crowd:spawn { start = "start_of_day" }
    local b = crowd:spawn { start = "start_of_day" }
    b:set_priority("buy_supplies", 9)
    local saved = world:save()
    local again, crowd2 = town()
    again:load(saved)
    assert.equal(saved, again:save())
    local b2 = crowd2:agent(2)
    assert.same({ 9, true }, { b2:priority("buy_supplies") })
    assert.same({ 1, false }, { crowd2:agent(1):priority("buy_supplies") })
    assert.equal("buy_supplies", chosen(again, 3)[2][1])
    b2:despawn()
    local c = crowd2:spawn { start = "start_of_day" } -- the same slot, a new agent
    assert.equal(2, c:index())
    assert.same({ 1, false }, { c:priority("buy_supplies") })
  end)
end)
