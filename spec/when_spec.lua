-- spec/when_spec.lua: a goal's `when` takes a set of values (any of) and saspu.NOT (any but).
local saspu = require "saspu"
local support = require "support.agents"

-- The goal the agent chooses first from start_of_day with hunger set to `hunger`.
local function chosen(when, hunger)
  local world = saspu.world {}
  local crowd = world:crowd(support.citizen(), { goals = { { "work", when = when } } })
  local a = crowd:spawn { start = "start_of_day" }
  a:set("hunger", hunger)
  world:update(0.1)
  for ev in world:events() do
    if ev.kind == "goal_chosen" then return ev.goal end
    if ev.kind == "idle" then return "idle/" .. ev.reason end
  end
end

describe("a goal's when", function()
  it("takes a set: any of its values", function()
    local when = { hunger = { "has_food", "fed" } }
    assert.equal("work", chosen(when, "fed"))
    assert.equal("work", chosen(when, "has_food"))
    assert.equal("idle/no_goal", chosen(when, "no_food"))
  end)

  it("takes saspu.NOT: any value but these", function()
    local when = { hunger = saspu.NOT("no_food") }
    assert.equal("work", chosen(when, "fed"))
    assert.equal("idle/no_goal", chosen(when, "no_food"))
    assert.equal("idle/no_goal", chosen({ hunger = saspu.NOT("no_food", "has_food") }, "has_food"))
  end)

  it("keeps one goal name for every combination of its sets", function()
    local world = saspu.world {}
    local crowd = world:crowd(support.citizen(), {
      goals = { { "work", when = { hunger = { "has_food", "fed" }, rested = saspu.NOT(false) } } } })
    for _, name in ipairs(crowd:goal_names()) do assert.equal("work", name) end
    crowd:set_priority("work", 3)
    assert.equal(3, crowd:priority("work"))
  end)

  it("refuses empty sets and a NOT that leaves nothing (goals take sets too: goal_sets_spec)", function()
    local dom = support.citizen()
    local function refuses(goals, message)
      assert.error_matches(function() saspu.world {}:crowd(dom, { goals = goals }) end, message, 1, true)
    end
    refuses({ { { hunger = {} } } }, "behaviour.goals[1][1].hunger: an empty set of values")
    refuses({ { "work", when = { hunger = {} } } }, "behaviour.goals[1].when.hunger: an empty set of values")
    refuses({ { "work", when = { rested = saspu.NOT(true, false) } } },
      "behaviour.goals[1].when.rested: saspu.NOT leaves no value")
    refuses({ { "work", when = { hunger = { "fed", "full" } } } },
      "behaviour.goals[1].when.hunger[2]: 'full' is not a value of 'hunger'")
    assert.error_matches(function() saspu.NOT() end, "saspu.NOT: expected at least one value", 1, true)
  end)
end)
