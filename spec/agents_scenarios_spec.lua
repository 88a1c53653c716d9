-- spec/agents_scenarios_spec.lua: exact event sequences of scripted scenarios driven from Lua (work, bucket taken, failing hook, no plan, unreachable, full).
local saspu = require "saspu"
local support = require "support.agents"

local run = support.run

describe("world:update and world:events", function()
  it("carries out the Citizen's work goal step by step, with durations", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local crowd = world:crowd(dom, {
      actions = { buy_food = { duration = 1 }, eat = { duration = 0.5 }, work = { duration = 2 } },
      goals = { { "work", priority = 10 } },
    })
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    assert.equal("goal_chosen planned step_started:buy_food | | step_finished:buy_food "
      .. "step_started:buy_drink step_finished:buy_drink step_started:take step_finished:take "
      .. "step_started:eat | step_finished:eat step_started:drink step_finished:drink "
      .. "step_started:work | | | | step_finished:work goal_reached | idle/all_satisfied",
      run(world, a, 9, 0.5))
    local info = a:inspect()
    assert.equal("idle", info.phase)
    for var, value in pairs(dom:goals().work) do
      if value ~= saspu.KEEP then assert.equal(value, info.state[var]) end -- KEEP: free for agents
    end
  end)

  it("replans with world_changed when the bucket is taken mid-plan", function()
    local dom = support.horse()
    local world = saspu.world {}
    local actions = {}
    for _, act in ipairs(dom:actions()) do actions[act.name] = { duration = 1 } end
    local crowd = world:crowd(dom, { actions = actions, goals = { { "feed_horses" } } })
    local a = crowd:spawn { start = "morning" }
    assert.equal("goal_chosen planned step_started:pick_up_bucket | step_finished:pick_up_bucket "
      .. "step_started:fill_bucket | step_finished:fill_bucket step_started:fill_trough",
      run(world, a, 3, 1))
    local info = a:inspect()
    assert.equal("acting", info.phase)
    assert.equal("fill_trough", info.action)
    a:set("bucket", "on_floor")
    assert.equal("step_failed:fill_trough/world_changed replanned/world_changed "
      .. "step_started:pick_up_bucket | step_finished:pick_up_bucket step_started:fill_trough | "
      .. "step_finished:fill_trough step_started:drop_bucket | step_finished:drop_bucket "
      .. "step_started:take_haystack | step_finished:take_haystack step_started:fill_feeder | "
      .. "step_finished:fill_feeder goal_reached | idle/all_satisfied",
      run(world, a, 7, 1))
    assert.same({ haystack = "in_feeder", bucket = "on_floor", water = "in_trough" }, a:state())
  end)

  it("fails a step whose hook raises, with the Lua error in the reason, and replans", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local calls = 0
    local crowd = world:crowd(dom, {
      actions = { buy_food = { duration = 1, on_start = function(agent)
        calls = calls + 1
        if calls == 1 then error("the stall is shut") end
      end } },
      goals = { { "work", priority = 10 } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    local trace = run(world, a, 3, 0.5)
    assert.equal("goal_chosen planned step_started:buy_food | step_failed:buy_food/buy_food "
      .. "on_start: spec/agents_scenarios_spec.lua:58: the stall is shut replanned/step_failed "
      .. "step_started:buy_food | ", trace)
    assert.equal(2, calls)
    run(world, a, 4, 0.5)
    assert.equal("idle", a:inspect().phase)
    assert.equal("true", a:get("working"))
  end)

  it("fails a walking step whose on_start raises: its place is released, on_fail gets the error", function()
    local dom = support.citizen()
    local world = saspu.world { grid = saspu.grid(12, 12),
                                places = { { name = "market", x = 9, y = 3, capacity = 1 } } }
    local calls, reasons = 0, {}
    local crowd = world:crowd(dom, {
      actions = { buy_food = { at = "market", duration = 1,
        on_start = function() calls = calls + 1; if calls == 1 then error("stall shut", 0) end end,
        on_fail = function(_, why) reasons[#reasons + 1] = why end } },
      goals = { { "work", priority = 10 } },
    })
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    assert.equal("goal_chosen planned step_started:buy_drink step_finished:buy_drink "
      .. "step_started:take step_finished:take step_started:drink step_finished:drink "
      .. "step_started:buy_food | step_failed:buy_food/buy_food on_start: stall shut "
      .. "replanned/step_failed step_started:buy_food", run(world, a, 2, 0.5))
    assert.same({ "buy_food on_start: stall shut" }, reasons)
    assert.equal(1, select(5, world:place_info(1))) -- released, then taken again: not 2
    assert.equal("no_food", a:get("hunger"))
    run(world, a, 20, 0.5)
    assert.equal("true", a:get("working"))
  end)

  it("keeps the effect of a step of duration 0 whose on_start raises, with hook_failed", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local crowd = world:crowd(dom, {
      actions = { buy_food = { on_start = function() error("no coins", 0) end } },
      goals = { { "work", priority = 10 } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    -- C starts and finishes the step in one update; its hook runs after it
    assert.equal("goal_chosen planned step_started:buy_food step_finished:buy_food "
      .. "step_started:buy_drink step_finished:buy_drink step_started:take step_finished:take "
      .. "step_started:eat step_finished:eat step_started:drink step_finished:drink "
      .. "step_started:work step_finished:work goal_reached | "
      .. "hook_failed:buy_food/buy_food on_start: no coins idle/all_satisfied", run(world, a, 2, 0.5))
    assert.equal("true", a:get("working"))
  end)

  it("fails a coroutine step that returns false with its reason, then replans", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local tries = 0
    local crowd = world:crowd(dom, {
      actions = { buy_food = { run = function(agent, wait)
        tries = tries + 1
        wait(1)
        if tries == 1 then return false, "sold out" end
      end } },
      goals = { { "buy_supplies" } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    assert.equal("goal_chosen planned step_started:buy_food waiting:buy_food | | | "
      .. "step_failed:buy_food/buy_food: sold out | replanned/step_failed step_started:buy_food "
      .. "waiting:buy_food | | | step_finished:buy_food step_started:buy_drink "
      .. "step_finished:buy_drink goal_reached",
      run(world, a, 8, 0.5))
    assert.equal(2, tries)
  end)

  it("reports no_plan with the planner's reason and takes the next goal", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local crowd = world:crowd(dom, {
      goals = { { "buy_supplies", priority = 1 },
                { { hunger = "no_food", working = true }, priority = 5 } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    local reasons = {}
    local trace = run(world, a, 1, 0.1, function(ev)
      if ev.kind == "no_plan" then reasons[#reasons + 1] = ev.reason end
    end)
    local _, why = dom:plan("start_of_day", { hunger = "no_food", working = "true" })
    assert.equal(why.message, reasons[1])
    assert.equal("no_plan/" .. why.message .. " goal_chosen planned step_started:buy_food "
      .. "step_finished:buy_food step_started:buy_drink step_finished:buy_drink goal_reached", trace)
    -- from the state the agent is in now, a value nothing sets blocks it: the event
    -- names that blocker (dom:plan's why.blocker), not only the planner's reason
    local _, why_now = dom:plan(a:state(), { hunger = "no_food", working = "true" })
    assert.equal("nothing_sets", why_now.blocker.kind)
    assert.equal("no_plan/" .. why_now.blocker.message .. " idle/no_plan_any", run(world, a, 1, 0.1))
    assert.equal(" | ", run(world, a, 2, 0.1)) -- idle says so once, not every frame
  end)
end)

describe("places", function()
  local town = ".#........\n##........\n..........\n..........\n"

  it("cools an unreachable place down instead of looping, and gives up at the third failure", function()
    local dom = support.citizen()
    local world = saspu.world { grid = saspu.grid_from_ascii(town),
                                places = { { name = "market", x = 1, y = 1 } } }
    local crowd = world:crowd(dom, { actions = { buy_food = { duration = 1, at = "market" } },
                                     goals = { { "work", priority = 10 } } })
    local a = crowd:spawn { start = "start_of_day", x = 10, y = 4 }
    assert.equal("goal_chosen planned step_started:buy_drink step_finished:buy_drink "
      .. "step_started:take step_finished:take step_started:drink step_finished:drink "
      .. "step_started:buy_food step_failed:buy_food/unreachable blocked:buy_food/unreachable | "
      .. "replanned/step_failed step_started:buy_food step_failed:buy_food/cooldown "
      .. "blocked:buy_food/cooldown", run(world, a, 2, 0.5))
    -- the cooldown counted as the second failure: the third gives the goal up
    assert.equal(" | | | | | | | | step_started:buy_food step_failed:buy_food/unreachable "
      .. "blocked:buy_food/unreachable gave_up:buy_food/unreachable", run(world, a, 9, 0.5))
    local info = a:inspect()
    assert.equal("thinking", info.phase)
    assert.equal("unreachable", info.last_reason)
  end)

  it("sends an agent to the next place of the kind when the nearest is full", function()
    local dom = support.citizen()
    local world = saspu.world { grid = saspu.grid_from_ascii(town) }
    world:place("near", 5, 4, { kind = "market", capacity = 1 })
    world:place("far", 10, 1, { kind = "market", capacity = 1 })
    local crowd = world:crowd(dom, { actions = { buy_food = { duration = 1, at = { kind = "market" } } },
                                     goals = { { "work", priority = 10 } } })
    local a0 = crowd:spawn { start = "start_of_day", x = 4, y = 4 }
    local a1 = crowd:spawn { start = "start_of_day", x = 4, y = 4 }
    local a2 = crowd:spawn { start = "start_of_day", x = 4, y = 4 }
    run(world, nil, 1, 0.1)
    assert.equal("near", a0:inspect().target)
    assert.equal("far", a1:inspect().target)
    local i2 = a2:inspect()
    assert.equal("blocked", i2.phase)
    assert.equal("full", i2.last_reason)
    local arrived = {}
    run(world, nil, 40, 0.25, function(ev)
      if ev.kind == "arrived" then arrived[ev.agent:index()] = ev.place end
    end)
    assert.same({ "near", "far", "near" }, arrived)
    for _, a in ipairs { a0, a1, a2 } do assert.equal("true", a:get("working")) end
    local i1 = a1:inspect()
    assert.equal(10, i1.x)
    assert.equal(1, i1.y)
    assert.equal(0, select(5, world:place_info(1)))
    assert.equal(0, select(5, world:place_info(2)))
  end)

  it("binds `at` functions and home places when the step starts", function()
    local dom = support.citizen()
    local world = saspu.world { grid = saspu.grid(8, 8) }
    world:place("house", 2, 7)
    world:place("stall", 7, 7)
    local asked = 0
    local crowd = world:crowd(dom, {
      actions = { buy_food = { duration = 1, at = function(agent) asked = asked + 1 return "stall" end },
                  rest = { duration = 1, at = "home" } },
      goals = { { "buy_supplies" } },
    })
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1, home = "house" }
    local places = {}
    run(world, a, 30, 0.5, function(ev) if ev.kind == "arrived" then places[#places + 1] = ev.place end end)
    assert.equal(1, asked)
    assert.same({ "stall" }, places)
    assert.equal("has_food", a:get("hunger"))
  end)
end)
