-- spec/test_world_spec.lua: saspu.test's helpers for worlds: run for N seconds, assert_reaches, assert_events, assert_no_failures (an example to copy).
local saspu = require "saspu"
local check = require "saspu.test"

local function town()
  local world = saspu.world { grid = saspu.grid(12, 12),
                              places = { { name = "market", x = 9, y = 3 } } }
  local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {
    actions = { buy_food = { at = "market", duration = 2 }, work = { duration = 3 } },
    goals = { { "work" } },
  })
  return world, crowd
end

describe("saspu.test for worlds", function()
  it("runs a world and checks what an agent did (the example)", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    local took = check.assert_reaches(a, "work", 30)
    assert.is_true(took > 5 and took < 30) -- the walk, 2 s at the market, 3 s of work
    check.assert_events(a, { "goal_chosen", "planned", "step_started:buy_food", "arrived",
                             "step_finished:work", "goal_reached" })
    check.assert_no_failures(world)
  end)

  it("run returns copies of the events with their time", function()
    local world, crowd = town()
    crowd:spawn { start = "start_of_day" }
    local evs = check.run(world, 1, 0.25)
    assert.equal("goal_chosen", evs[1].kind)
    assert.equal(0.25, evs[1].time)
    assert.equal("citizen", evs[1].class)
    assert.are_not.equal(evs[1], evs[2]) -- not the reused table
    assert.error_matches(function() check.run(world, -1) end, "seconds must be a number >= 0", 1, true)
  end)

  it("assert_reaches fails naming the last events and the blocker", function()
    local world = saspu.world {}
    local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"),
                              { goals = { { "have_a_meal" } } })
    local a = crowd:spawn { start = "start_of_day" }
    a:set("hunger", "fed")
    local ok, err = pcall(check.assert_reaches, a, "have_a_meal", 1)
    assert.is_false(ok)
    assert.matches("expected agent 1 (citizen) to reach 'have_a_meal' within 1 s", err, 1, true)
  end)

  it("assert_events fails naming the kind that is missing", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day" }
    check.run(world, 0.5)
    assert.error_matches(function() check.assert_events(a, { "planned", "goal_reached" }) end,
      "expected agent 1's events to go on with 'goal_reached' after 'planned'", 1, true)
  end)

  it("assert_no_failures lists the failures", function()
    local world = saspu.world { places = { { name = "market", x = 9, y = 3 } } }
    local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {
      actions = { buy_food = { at = "market", on_start = function() error("closed today", 0) end } },
      goals = { { "work" } },
    })
    crowd:spawn { start = "start_of_day" }
    check.run(world, 1)
    assert.error_matches(function() check.assert_no_failures(world) end,
      "expected no failures, got", 1, true)
  end)
end)
