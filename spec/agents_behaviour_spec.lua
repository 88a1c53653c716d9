-- spec/agents_behaviour_spec.lua: behaviour tables (path errors), hooks only where declared, agent handles, inspection, stats and the allocation-free frame.
local saspu = require "saspu"
local support = require "support.agents"
local compat = require "support.compat"

local run = support.run

local function town()
  local world = saspu.world { grid = saspu.grid(12, 12),
                              places = { { name = "market", x = 3, y = 3 }, { kind = "well", x = 9, y = 9 } } }
  return world
end

describe("world:crowd behaviour tables", function()
  local dom = support.citizen()
  local function refuses(behaviour, message)
    assert.error_matches(function() town():crowd(dom, behaviour) end, message, 1, true)
  end

  it("names the path of a bad place", function()
    refuses({ actions = { buy_food = { at = "markt" } } },
            "behaviour.actions.buy_food.at: unknown place 'markt'")
    refuses({ actions = { buy_food = { at = { kind = "pond" } } } },
            "behaviour.actions.buy_food.at.kind: no place of kind 'pond'")
    refuses({ actions = { buy_food = { at = 3 } } },
            "behaviour.actions.buy_food.at: expected a place name")
  end)

  it("names the path of a bad value in a goal's when", function()
    refuses({ goals = { { "work" }, { "have_a_meal", when = { rested = "maybe" } } } },
            "behaviour.goals[2].when.rested: 'maybe' is not a value of 'rested' (false, true)")
    refuses({ goals = { { { hungr = "fed" } } } },
            "behaviour.goals[1][1].hungr: unknown variable 'hungr'")
    refuses({ goals = { { "sleep" } } }, "behaviour.goals[1]: unknown goal 'sleep' of 'citizen'")
    refuses({ goals = { { "work", priority = 1.5 } } }, "behaviour.goals[1].priority: expected an integer")
  end)

  it("refuses unknown fields and actions that are not in the domain", function()
    refuses({ action = {} }, "behaviour: unknown field 'action'")
    refuses({ select = true }, "behaviour.select: expected a function, got boolean")
    refuses({ actions = { fly = { duration = 1 } } },
            "behaviour.actions.fly: 'fly' is not an action of 'citizen'")
    refuses({ actions = { eat = { duraton = 1 } } }, "behaviour.actions.eat: unknown field 'duraton'")
    refuses({ goals = { { "work", prio = 1 } } }, "behaviour.goals[1]: unknown field 'prio'")
  end)

  it("checks durations and hooks", function()
    refuses({ actions = { eat = { duration = -1 } } }, "behaviour.actions.eat.duration: must be 0 or more")
    refuses({ actions = { eat = { duration = { 3, 1 } } } },
            "behaviour.actions.eat.duration: expected { min, max } with 0 <= min <= max")
    refuses({ actions = { eat = { duration = "long" } } },
            "behaviour.actions.eat.duration: expected a number, { min, max } or a function, got string")
    refuses({ actions = { eat = { on_start = true } } },
            "behaviour.actions.eat.on_start: expected a function, got boolean")
  end)

  it("accepts booleans for true/false values", function()
    local world = town()
    local crowd = world:crowd(dom, { goals = { { "work", when = { rested = true } } } })
    local a = crowd:spawn { start = "start_of_day" }
    run(world, a, 2, 1)
    assert.equal("true", a:get("working"))
  end)
end)

describe("hooks", function()
  it("run only for the actions that have them", function()
    local dom = support.citizen()
    local world = town()
    local calls = { start = 0, finish = 0 }
    local crowd = world:crowd(dom, {
      actions = { eat = { duration = 1, on_start = function() calls.start = calls.start + 1 end,
                          on_finish = function(agent) calls.finish = calls.finish + 1
                            agent.data.ate = (agent.data.ate or 0) + 1 end },
                  work = { duration = 2 } },
      goals = { { "work" } },
    })
    local agents = {}
    for i = 1, 20 do agents[i] = crowd:spawn { start = "start_of_day", x = i % 12 + 1, y = 1 } end
    local events = 0
    run(world, nil, 10, 0.5, function(ev) if ev.action == "eat" and ev.kind == "step_started" then events = events + 1 end end)
    assert.equal(20, events)
    assert.equal(20, calls.start)
    assert.equal(20, calls.finish)
    for _, a in ipairs(agents) do assert.equal(1, a.data.ate) end
  end)

  it("keeps the crowd running when a hook raises", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, {
      actions = { eat = { duration = 0.5, on_finish = function() error("indigestion") end } },
      goals = { { "work" } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    local failed = {}
    run(world, a, 6, 0.5, function(ev) if ev.kind == "hook_failed" then failed[#failed + 1] = ev.reason end end)
    assert.equal(1, #failed)
    assert.matches("eat on_finish: .*indigestion", failed[1])
    assert.equal("true", a:get("working"))
  end)

  it("run as coroutines with wait(seconds)", function()
    local dom = support.citizen()
    local world = town()
    local log = {}
    local crowd = world:crowd(dom, {
      actions = { work = { at = "market", run = function(agent, wait)
        log[#log + 1] = "begin"
        wait(1)
        log[#log + 1] = "middle"
        saspu.wait(0.5)
        log[#log + 1] = "end"
      end } },
      goals = { { "work" } },
    })
    local a = crowd:spawn { start = "start_of_day", x = 3, y = 3 }
    -- arrives in frame 2 and starts; wait(1) is 4 frames, wait(0.5) 2; the finish
    -- is applied by the next update
    local trace = run(world, a, 8, 0.25)
    assert.truthy(trace:find("| arrived:work waiting:work | | | | | | ", 1, true))
    assert.same({ "begin", "middle", "end" }, log)
    assert.equal("step_finished:work goal_reached", run(world, a, 1, 0.25))
    assert.equal("true", a:get("working"))
  end)
end)

describe("behaviour.select", function()
  it("is asked only when an agent needs a goal, and its goal is planned", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local asked = {}
    local crowd = world:crowd(dom, {
      actions = { eat = { duration = 1 } },
      goals = { { "have_a_meal" }, { "work", priority = 5 } },
      select = function(a)
        asked[#asked + 1] = a:get("hunger")
        -- the list's priority would pick work first: select decides
        return ({ "have_a_meal", "work", "buy_supplies" })[#asked]
      end,
    })
    local a = crowd:spawn { start = "start_of_day" }
    assert.equal("waiting/select | goal_chosen planned step_started:buy_food "
      .. "step_finished:buy_food step_started:eat | | step_finished:eat goal_reached | "
      .. "waiting/select | goal_chosen planned step_started:buy_drink step_finished:buy_drink "
      .. "step_started:take step_finished:take step_started:drink step_finished:drink "
      .. "step_started:work step_finished:work goal_reached | waiting/select | "
      -- a goal of the domain the behaviour does not list, without a plan: asked again
      -- (what blocks it is hunger = fed, which no action leaves)
      .. "no_plan/the goal needs hunger = has_food, but hunger is fed and no action leaves fed "
      .. "(the way to has_food begins at no_food, which no action sets); missing: an action "
      .. "setting hunger from fed to no_food waiting/select | idle/no_goal", run(world, a, 9, 0.5))
    assert.same({ "no_food", "fed", "fed", "fed" }, asked)
    assert.equal("true", a:get("working"))
    a:set("thirst", "no_drink") -- an idle agent whose state changes needs a goal
    assert.equal("waiting/select", run(world, a, 1, 0.5))
    assert.equal(5, #asked)
  end)

  it("is asked again when the state changes after it answered, before the update", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local asked = {}
    local crowd = world:crowd(dom, {
      goals = { { "quench_thirst" } },
      select = function(a)
        asked[#asked + 1] = a:get("working")
        if a:get("working") == "true" then return "quench_thirst" end
      end,
    })
    local a = crowd:spawn { start = "start_of_day" }
    -- asked, answers nothing; the script then sets working before the update that
    -- would leave the agent idle: that update asks again, for the new state
    assert.equal("waiting/select", run(world, a, 1, 0.5))
    a:set("working", true)
    assert.equal("waiting/select | goal_chosen planned step_started:end_work "
      .. "step_finished:end_work step_started:buy_drink step_finished:buy_drink "
      .. "step_started:drink step_finished:drink goal_reached", run(world, a, 2, 0.5))
    assert.same({ "false", "true" }, asked)
    -- setting a value the agent already has is no change: not asked
    assert.equal("waiting/select", run(world, a, 1, 0.5))
    a:set("working", false)
    assert.equal("idle/no_goal", run(world, a, 1, 0.5))
    assert.same({ "false", "true", "false" }, asked)
  end)

  it("keeps the chosen goal when a world change breaks the plan", function()
    local dom = support.horse()
    local world = saspu.world {}
    local asked = 0
    local crowd = world:crowd(dom, {
      actions = { fill_trough = { duration = 1 } },
      goals = { { "feed_horses" } },
      select = function() asked = asked + 1; return "feed_horses" end,
    })
    local a = crowd:spawn { start = "morning" }
    run(world, a, 2, 0.5)
    assert.equal("fill_trough", a:inspect().action)
    a:set("bucket", "on_floor")
    assert.matches("^step_failed:fill_trough/world_changed replanned/world_changed ",
                   run(world, a, 1, 0.5))
    assert.equal(1, asked)
  end)

  it("reports a raising or wrong select with hook_failed and leaves the agent idle", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local crowd = world:crowd(dom, { select = function(a) return a.data.bad and "sleep" or error("no idea", 0) end })
    local a = crowd:spawn { start = "start_of_day" }
    assert.equal("waiting/select | hook_failed/select: no idea idle/no_goal", run(world, a, 2, 0.5))
    a.data.bad = true
    crowd:control(1, "rethink")
    assert.equal("waiting/select | hook_failed/select: unknown goal 'sleep' of 'citizen' idle/no_goal",
                 run(world, a, 2, 0.5))
  end)
end)

describe("saspu.Agent", function()
  it("is one handle per agent and refuses once its crowd is closed", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, { goals = { { "work" } } })
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 2 }
    assert.equal(a, crowd:agent(1))
    assert.equal("saspu.Agent 1 of 'citizen'", tostring(a))
    assert.equal("saspu.Crowd 'citizen' (1 agents, 1 goals)", tostring(crowd))
    assert.matches("^saspu.World 12x12 %(2 places, 2 kinds, 1 crowds%)$", tostring(world))
    assert.same({ 2, 2 }, { a:position() })
    assert.same({ 2, 2 }, { crowd:position(1) })
    assert.error_matches(function() crowd:position(2) end, "agent 2 is outside 1..1", 1, true)
    crowd:close()
    assert.error_matches(function() a:position() end, "saspu.Agent: closed", 1, true)
    assert.error_matches(function() crowd:position(1) end, "saspu.Crowd: closed", 1, true)
    assert.equal("saspu.Agent 1 (crowd closed)", tostring(a))
    assert.error_matches(function() a:inspect() end, "saspu.Agent: closed", 1, true)
    assert.error_matches(function() a:set("hunger", "fed") end, "saspu.Agent: closed", 1, true)
    assert.error_matches(function() return a.data end, "saspu.Agent: closed", 1, true)
    world:update(0.1) -- a closed crowd is skipped
  end)

  it("refuses a dt that is negative, infinite or not a number, and the world still saves and loads", function()
    local dom = support.citizen()
    for _, threads in ipairs { false, 1 } do
      local world = saspu.world { grid = saspu.grid(12, 12), places = { { name = "market", x = 3, y = 3 } },
                                  threads = threads or nil }
      local crowd = world:crowd(dom, { goals = { { "work" } } })
      crowd:spawn { start = "start_of_day", x = 2, y = 2 }
      world:update(0.5)
      for _, dt in ipairs { -1, math.huge, -math.huge, 0 / 0, 1e300 } do
        assert.error_matches(function() world:update(dt) end,
                             "dt must be a finite number of seconds, 0 or more", 1, true)
      end
      assert.error_matches(function() crowd:update(math.huge) end,
                           "dt must be a finite number of seconds, 0 or more", 1, true)
      world:update(0) -- 0 is a frame where no time passes
      world:load(world:save()) -- the clock is still a number
    end
    local empty = saspu.world { grid = saspu.grid(4, 4) }
    assert.error_matches(function() empty:update(0 / 0) end,
                         "saspu.World:update: dt must be a finite number of seconds, 0 or more, got", 1, true)
    assert.error_matches(function() empty:update() end, "got nil", 1, true)
  end)

  it("refuses a dt that takes the clock past its latest reading, and changes nothing", function()
    local world = saspu.world { grid = saspu.grid(12, 12), places = { { name = "market", x = 3, y = 3 } } }
    local crowd = world:crowd(support.citizen(), { goals = { { "work" } } })
    crowd:spawn { start = "start_of_day", x = 2, y = 2 }
    world:update(3e10)
    world:update(3e10) -- a long time-lapse is a frame like any other
    local before = world:save()
    assert.equal(60000002048, crowd:stats({}, true).clock) -- dt is a float in C
    assert.error_matches(function() world:update(3e10) end,
                         "saspu.World:update: dt 30000000000 takes the clock of crowd 1 'citizen' "
                         .. "(60000002048 s) past 68719476736 s, the latest it may read", 1, true)
    assert.error_matches(function() crowd:update(1e12) end,
                         "saspu.Crowd:update: dt 1e+12 takes the crowd's clock (60000002048 s) past "
                         .. "68719476736 s, the latest it may read", 1, true)
    assert.equal(saspu.CLOCK_MAX, 2 ^ 36)
    assert.equal(before, world:save())
    world:update(1)
  end)

  it("keeps its domain alive, and a closed world closes its crowds", function()
    local world = town()
    local dom = support.citizen()
    local crowd = world:crowd(dom, { goals = { { "work" } } })
    local a = crowd:spawn { start = "start_of_day" }
    dom:close()
    crowd:update(1) -- the crowd keeps its closed domain
    assert.equal("true", a:get("working"))
    world:close()
    assert.equal("saspu.World (closed)", tostring(world))
    collectgarbage()
    assert.equal("saspu.Crowd (closed)", tostring(crowd))
    assert.error_matches(function() crowd:update(1) end, "saspu.Crowd: closed", 1, true)
    assert.error_matches(function() a:get("working") end, "saspu.Agent: closed", 1, true)
    crowd:close()
    crowd:close()
  end)

  it("refuses bad names in a:set and crowd:set_all", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, {})
    local a = crowd:spawn { start = "start_of_day" }
    assert.error_matches(function() a:set("hungr", "fed") end, "saspu.Agent:set: unknown variable 'hungr'", 1, true)
    assert.error_matches(function() crowd:set_all("hunger", "full") end,
      "saspu.Crowd:set_all: 'full' is not a value of 'hunger' (no_food, has_food, fed)", 1, true)
    crowd:set_all("hunger", "fed")
    assert.equal("fed", a:get("hunger"))
  end)
end)

describe("a:inspect and crowd:stats", function()
  it("gives the state by names, the plan with targets, the step and the last events", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, { actions = { buy_food = { duration = 1, at = "market" } },
                                     goals = { { "buy_supplies", priority = 3 } } })
    local a = crowd:spawn { start = "start_of_day", x = 12, y = 12 }
    a:inspect { history = 8 } -- start keeping its events
    world:update(0.1)
    local info = a:inspect()
    assert.equal("citizen", info.class)
    assert.equal("buy_supplies", info.goal)
    assert.equal("walking", info.phase)
    assert.equal("buy_food", info.action)
    assert.equal("market", info.target)
    assert.same({ { action = "buy_food", done = false, at = "market" },
                  { action = "buy_drink", done = true } }, info.plan) -- no place: nearest, done first
    assert.equal(dom:decode(dom:encode("start_of_day")).hunger, info.state.hunger)
    assert.same({ "goal_chosen", "planned", "step_started" },
                { info.events[1].kind, info.events[2].kind, info.events[3].kind })
    local s = crowd:stats()
    assert.equal(1, s.agents)
    assert.equal(1, s.walking)
    assert.equal(1, s.plans)
    assert.is_true(s.bytes_per_agent > 0)
  end)

  it("keeps the same history for a few inspected agents (found in C) as for many (in Lua)", function()
    local dom = support.citizen()
    local function run_watching(watched)
      local world = town()
      local crowd = world:crowd(dom, { actions = { buy_food = { duration = { 0.2, 1 }, at = "market" } },
                                       goals = { { "buy_supplies", priority = 3 } } }, { seed = 3 })
      for i = 1, 12 do crowd:spawn { start = "start_of_day", x = i, y = 12 } end
      for i = 1, watched do crowd:agent(i):inspect { history = 64 } end
      local seen, found = { {}, {} }, {} -- agents 1 and 2, read from the frames' events
      for _ = 1, 30 do
        world:update(0.1)
        local frame = {}
        for k = 1, crowd:event_count() do
          local agent, kind = crowd:event(k)
          if seen[agent] then table.insert(seen[agent], kind) end
          if agent == 1 then frame[#frame + 1] = kind end
        end
        local n = crowd:agent_events(1, found)
        local mine = {}
        for k = 1, n do mine[k] = found[5 * k - 3] end
        assert.same(frame, mine)
      end
      return { crowd:agent(1):inspect().events, crowd:agent(2):inspect().events }, seen
    end
    local few, seen = run_watching(2) -- WATCH_IN_C (lua/saspu/hooks.lua) or fewer
    local many = run_watching(12)
    assert.same(many, few)
    for i = 1, 2 do
      assert.is_true(#seen[i] >= 6)
      local kinds = {}
      for k, e in ipairs(few[i]) do kinds[k] = e.kind end
      assert.same(seen[i], kinds)
    end
  end)

  it("counts the event buffers, which shrink back after the first frame's peak", function()
    local dom = support.citizen()
    local world = saspu.world {}
    local crowd = world:crowd(dom, {
      actions = { work = { duration = { 1, 3 } }, end_work = { duration = { 1, 3 } } },
      goals = { { "work", priority = 1 }, { { working = false }, priority = 1 } },
    }, { capacity = 5000, threads = 2 })
    local packed = dom:encode("start_of_day")
    for _ = 1, 5000 do crowd:spawn_packed(packed, 1, 1) end
    world:update(1 / 60) -- every agent chooses, plans and starts: three events each
    local peak = crowd:stats()
    assert.is_true(peak.events >= 15000)
    for _ = 1, 10 do world:update(1 / 60) end -- nothing happens: the buffers shrink
    local quiet = crowd:stats()
    assert.equal(peak.events, quiet.events)
    assert.is_true(quiet.bytes_total + 15000 * 16 <= peak.bytes_total)
    assert.is_true(quiet.bytes_per_agent < peak.bytes_per_agent)
    -- with no agent, bytes_per_agent is what one will add: its records
    local empty = world:crowd(dom, { goals = { { "work" } } }, { capacity = 10 }):stats()
    assert.is_true(empty.bytes_per_agent > 0 and empty.bytes_per_agent <= 96)
  end)
end)

describe("worker threads", function()
  -- 4,096 citizens on 2 workers: frames where few steps end run on the calling thread
  local function citizens(opts)
    local world = saspu.world { threads = 2 }
    local crowd = world:crowd(support.citizen(), {
      actions = { work = { duration = { 1, 3 } }, end_work = { duration = { 1, 3 } } },
      goals = { { "work", priority = 1 }, { { working = false }, priority = 1 } },
    }, opts)
    local packed = support.citizen():encode("start_of_day")
    for _ = 1, 4096 do crowd:spawn_packed(packed, 1, 1) end
    return world, crowd
  end

  it("are woken for frames with work for them, and the events are the same", function()
    local world, crowd = citizens({ capacity = 4096 })
    local every_world, every = citizens({ capacity = 4096, parallel_min = 1 })
    local woken, every_woken, quiet = {}, 0, 0
    for f = 1, 120 do
      world:update(1 / 60)
      every_world:update(1 / 60)
      local s, e = crowd:stats({}, true), every:stats({}, true)
      woken[f] = s.workers_woken
      every_woken = every_woken + e.workers_woken
      if f > 1 and s.workers_woken == 0 then quiet = quiet + 1 end
      assert.equal(e.events, s.events)
      assert.equal(e.steps_finished, s.steps_finished)
    end
    assert.is_true(woken[1] > 0) -- 4,096 agents choose and are planned at once
    assert.is_true(quiet > 100) -- about 35 steps end a frame: nobody woken
    assert.is_true(every_woken > 100) -- parallel_min = 1 shares them all the same
    world:close()
    every_world:close()
  end)
end)

describe("world:update", function()
  it("allocates nothing in Lua per frame for a crowd without hooks, after warm-up", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, {
      actions = { buy_food = { duration = { 1, 3 }, at = "market" }, work = { duration = 2 } },
      goals = { { "work", priority = 2 }, { "go_for_a_walk", priority = 1 } },
    }, { capacity = 2000 })
    for i = 1, 2000 do crowd:spawn { start = "start_of_day", x = i % 12 + 1, y = i % 11 + 1 } end
    for _ = 1, 50 do world:update(0.1) end
    -- with the collector stopped (and LuaJIT's compiler off: its traces are heap)
    local grew = compat.heap_growth_kib(function()
      for k = 1, 100 do
        if k % 25 == 0 then crowd:set_all("working", false) end
        world:update(0.1)
      end
    end)
    assert.is_true(grew < 1, "grew by " .. grew .. " KiB")
  end)
end)

describe("on_fail", function()
  it("receives the failure's reason, a hook's own text included", function()
    local dom = support.citizen()
    local world = town()
    local reasons, tries = {}, 0
    local crowd = world:crowd(dom, {
      actions = { buy_food = { run = function() tries = tries + 1 if tries == 1 then return false, "no coins" end end,
                               on_fail = function(agent, reason) reasons[#reasons + 1] = reason end },
                  buy_drink = { duration = 5, on_fail = function(agent, reason) reasons[#reasons + 1] = reason end } },
      goals = { { "buy_supplies" } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    local trace = run(world, a, 2, 0.5)
    assert.same({ "buy_food: no coins" }, reasons, trace)
    -- the second try of buy_food succeeds; buy_drink runs 5 s: take its drink away
    trace = run(world, a, 2, 0.5)
    local info = a:inspect()
    assert.equal("buy_drink", info.action, trace)
    a:set("thirst", "hydrated")
    run(world, a, 1, 0.5)
    assert.equal("world_changed", reasons[#reasons])
  end)
end)

describe("per-agent durations and targets", function()
  it("draws a duration function per agent and walks to a cell an `at` function returns", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, {
      actions = { buy_food = { duration = function(agent) return agent:index() end,
                               at = function(agent) return 4, 4 + agent:index() end } },
      goals = { { "buy_supplies" } },
    })
    local a1 = crowd:spawn { start = "start_of_day", x = 4, y = 4 }
    local a2 = crowd:spawn { start = "start_of_day", x = 4, y = 4 }
    local done = {}
    run(world, nil, 24, 0.25, function(ev)
      if ev.kind == "step_finished" and ev.action == "buy_food" then done[ev.agent:index()] = true end
    end)
    assert.same({ true, true }, done)
    assert.equal(4, a1:inspect().x)
    assert.equal(5, a1:inspect().y)
    assert.equal(6, a2:inspect().y)
  end)

  it("finishes the agent with the shorter duration first", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, {
      actions = { buy_food = { duration = function(agent) return 3 - agent:index() end } },
      goals = { { "buy_supplies" } },
    })
    crowd:spawn { start = "start_of_day" }
    crowd:spawn { start = "start_of_day" }
    local order = {}
    run(world, nil, 16, 0.25, function(ev)
      if ev.kind == "step_finished" and ev.action == "buy_food" then order[#order + 1] = ev.agent:index() end
    end)
    assert.same({ 2, 1 }, order)
  end)
end)

describe("crowd:spawn and saspu.world", function()
  it("refuse bad input naming it", function()
    local dom = support.citizen()
    local world = town()
    local crowd = world:crowd(dom, {})
    assert.error_matches(function() crowd:spawn { start = "dawn" } end,
                         "saspu.Crowd:spawn: start: unknown start 'dawn' of 'citizen'", 1, true)
    assert.error_matches(function() crowd:spawn { start = "start_of_day", x = 13 } end,
                         "saspu.Crowd:spawn: x = 13 is outside 1..12", 1, true)
    assert.error_matches(function() world:crowd(dom, {}, { capacity = 0 }) end,
                         "world:crowd: options.capacity must be a number in 1..2147483648", 1, true)
    assert.error_matches(function() crowd:spawn { start = "start_of_day", home = "castle" } end,
                         "saspu.Crowd:spawn: home: unknown place 'castle'", 1, true)
    assert.error_matches(function() crowd:spawn { start = "start_of_day", state = 7 } end,
                         "saspu.Crowd:spawn: state: expected a table of variable = value, got number", 1, true)
    assert.error_matches(function() crowd:spawn { start = "start_of_day", z = 1 } end,
                         "saspu.Crowd:spawn: unknown field 'z'", 1, true)
    assert.error_matches(function() saspu.world { places = { { x = 1, y = 1 } } } end,
                         "saspu.world: places[1]: needs a kind or a name", 1, true)
    -- a keyed place would be no place at all: refused, naming the key
    assert.error_matches(function() saspu.world { places = { trough = { x = 1, y = 1 } } } end,
                         "saspu.world: places: expected an array, found key 'trough'", 1, true)
    assert.error_matches(function()
      saspu.world { places = { { name = "well", x = 1, y = 1 }, [3] = { name = "mill", x = 2, y = 2 } } }
    end, "saspu.world: places: expected an array, found key 3", 1, true)
    assert.error_matches(function() world:place("market", 1, 1) end,
                         "saspu.World:place: a place is already named 'market'", 1, true)
    assert.error_matches(function() world:place("out", 1, 40) end,
                         "saspu.World:place: y = 40 is outside 1..12", 1, true)
  end)
end)
