-- spec/priority_spec.lua: crowd:set_priority changes a goal's priority at run time (and a save keeps it).
local support = require "support.agents"

local town = support.two_goal_town

local function first_goal(world, a)
  for _ = 1, 3 do
    world:update(0.1)
    for ev in world:events() do
      if ev.agent == a and ev.kind == "goal_chosen" then return ev.goal end
    end
  end
end

describe("crowd:set_priority", function()
  it("makes an agent take the goal raised above the others", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day" }
    assert.equal("work", first_goal(world, a))
    local world2, crowd2 = town()
    local b = crowd2:spawn { start = "start_of_day" }
    crowd2:set_priority("buy_supplies", 10)
    assert.equal(10, crowd2:priority("buy_supplies"))
    assert.equal(5, crowd2:priority("work"))
    assert.equal("buy_supplies", first_goal(world2, b))
  end)

  it("lets an idle agent look again", function()
    local world, crowd = town()
    crowd:set_priority("work", -1)
    local a = crowd:spawn { start = "start_of_day" }
    a:set("working", true) -- work holds
    for _ = 1, 40 do world:update(0.5) end
    assert.equal("idle", a:inspect().phase) -- buy_supplies reached, work holds
    a:set("working", false)
    crowd:set_priority("work", 7)
    world:update(0.1)
    assert.equal("work", a:inspect().goal)
  end)

  it("refuses an unknown goal and a priority that is no integer", function()
    local _, crowd = town()
    assert.error_matches(function() crowd:set_priority("sleep", 1) end,
      "saspu.Crowd:set_priority: unknown goal 'sleep' (work, buy_supplies)", 1, true)
    assert.error_matches(function() crowd:set_priority("work", 1.5) end,
      "saspu.Crowd:set_priority: priority must be an integer, got 1.5", 1, true)
  end)

  it("is kept by a save", function()
    local world, crowd = town()
    crowd:spawn { start = "start_of_day" }
    crowd:set_priority("buy_supplies", 9)
    local s = world:save()
    local world2, crowd2 = town()
    crowd2:spawn { start = "start_of_day" }
    world2:load(s)
    assert.equal(9, crowd2:priority("buy_supplies"))
  end)
end)
