-- spec/trace_spec.lua: world:record writes a trace that saspu.trace reads back as world:events() gave it: events, an agent's history and cells, why a goal had no plan; damage is reported, never raised.
local trace = require "saspu.trace"

local tt = require "support.trace_town"
local tmp, town, run = tt.tmp, tt.town, tt.run

-- The trace's events with the fields tt.run keeps of world:events().
local function recorded(t)
  local got = {}
  for ev in t:events() do
    got[#got + 1] = { frame = ev.frame, agent = ev.agent, class = ev.class, kind = ev.kind,
                      action = ev.action, goal = ev.goal, reason = ev.reason,
                      place = ev.place, detail = ev.detail }
  end
  return got
end

describe("world:record and saspu.trace", function()
  it("reads back every event as world:events() gave it, in its order", function()
    local path = tmp()
    local world = town()
    local events, _, stats = run(world, path, 40, 0.5)
    local t = trace.open(path)
    assert.same({}, t.problems)
    assert.equal(40, t.frame_count)
    assert.equal(#events, stats.events)
    local got = recorded(t)
    assert.same(events, got)
    local kinds = {}
    for _, ev in ipairs(events) do kinds[ev.kind] = true end
    assert.is_true(kinds.blocked and kinds.no_plan and kinds.goal_reached and kinds.arrived)
    os.remove(path)
  end)

  it("reads back the events of a world whose crowds update together on its threads", function()
    local path = tmp()
    local events = run(town(2), path, 30, 0.5)
    local got = recorded(trace.open(path))
    assert.is_true(#events > 0)
    assert.same(events, got)
    os.remove(path)
  end)

  it("records the events made in Lua (a hook that raised) where world:events() gives them", function()
    local saspu = require "saspu"
    local support = require "support.agents"
    local path = tmp()
    local world = saspu.world {}
    local failing = world:crowd(support.citizen(), {
      actions = { buy_food = { on_start = function() error("no coins", 0) end } },
      goals = { { "work", priority = 10 } },
    })
    local plain = world:crowd(support.citizen(), { goals = { { "work", priority = 10 } } })
    for _ = 1, 3 do
      failing:spawn { start = "start_of_day" }
      plain:spawn { start = "start_of_day" }
    end
    local events = run(world, path, 4, 0.5)
    local t = trace.open(path)
    assert.same({}, t.problems)
    local got = recorded(t)
    local hooks = 0
    for _, ev in ipairs(events) do
      if ev.kind == "hook_failed" then hooks = hooks + 1 end
    end
    assert.equal(3, hooks)
    assert.same(events, got)
    local n = 0
    for ev in t:events { kind = "hook_failed" } do
      n = n + 1
      assert.equal("buy_food", ev.action)
      assert.equal("buy_food on_start: no coins", ev.reason)
    end
    assert.equal(3, n)
    os.remove(path)
  end)

  it("records what sensors read: state_at gives each agent's sensed value at every frame", function()
    local saspu = require "saspu"
    local path = tmp()
    local world = saspu.world { grid = saspu.grid(20, 20) }
    local sheriffs = world:crowd(saspu.domain_file("domains/citizen.lua"), {})
    local s = sheriffs:spawn { start = "start_of_day", x = 10, y = 10 }
    local lookouts = world:crowd(saspu.domain {
      name = "lookout",
      variables = { { name = "sheriff", values = { "no", "yes" } } },
      actions = {}, goals = {},
    }, {}, { sensors = { sheriff = { near = sheriffs, r = 2 } } })
    for k = 1, 6 do lookouts:spawn { start = { sheriff = "no" }, x = 3 * k, y = 10 } end
    world:record { path = path }
    local seen = {}
    for f = 1, 12 do
      s:teleport(1 + f, 10)
      world:update(0.1)
      seen[f] = {}
      for i = 1, #lookouts do seen[f][i] = lookouts:agent(i):get("sheriff") end
    end
    local stats = world:stop_recording()
    local t = trace.open(path)
    assert.same({}, t.problems)
    local changes = 0
    for f = 1, 12 do
      for i = 1, #lookouts do
        assert.equal(seen[f][i], t:state_at(t:time(f), "lookout", i).sensed.sheriff)
        if f > 1 and seen[f][i] ~= seen[f - 1][i] then changes = changes + 1 end
      end
    end
    assert.is_true(changes > 0)
    local n = 0
    for v in t:sensed { class = "lookout" } do
      n = n + 1
      assert.equal("sheriff", v.variable)
      assert.equal(seen[v.frame][v.agent], v.value)
    end
    assert.equal(#lookouts + changes, n) -- every agent at the first frame, then the changes
    assert.equal(n, stats.sensed)
    assert.is_nil(t:state_at(-1, "lookout", 1).sensed)
    assert.error_matches(function() t:sensed { kind = "x" } end, "unknown filter field 'kind'", 1, true)
    os.remove(path)
  end)

  it("filters by class, kind, place and time", function()
    local path = tmp()
    local world = town()
    local events = run(world, path, 30, 0.5)
    local t = trace.open(path)
    local want = {}
    for _, ev in ipairs(events) do
      if ev.class == "citizen" and ev.kind == "arrived" and ev.place == "market" and ev.frame >= 5 then
        want[#want + 1] = ev.agent
      end
    end
    local got = {}
    for ev in t:events { class = "citizen", kind = { "arrived" }, place = "market", from = t:time(5) } do
      got[#got + 1] = ev.agent
    end
    assert.is_true(#want > 0)
    assert.same(want, got)
    assert.error_matches(function() t:events { kinds = "x" } end, "unknown filter field 'kinds'", 1, true)
    os.remove(path)
  end)

  it("keeps why a goal had no plan, as the event's reason", function()
    local path = tmp()
    local world = town()
    local events = run(world, path, 3, 0.5)
    local t = trace.open(path)
    local want
    for _, ev in ipairs(events) do if ev.kind == "no_plan" then want = want or ev.reason end end
    assert.truthy(want and want:find("outlaw", 1, true))
    local life = t:history("sheriff", 1)
    assert.equal("bring_in_outlaw", life.goals[1].goal)
    assert.equal("no_plan", life.goals[1].outcome)
    assert.equal(want, life.goals[1].failures[1].why)
    os.remove(path)
  end)

  it("gives an agent's history: goals, plans as the actions run, steps with their times", function()
    local path = tmp()
    local world = town()
    local events = run(world, path, 60, 0.5)
    local t = trace.open(path)
    local life = t:history("citizen", 3)
    local started, reached, open_step = {}, 0, nil
    for _, ev in ipairs(events) do
      if ev.class == "citizen" and ev.agent == 3 then
        -- a step started again after a wait (a full place) is the same step
        if ev.kind == "step_started" and open_step ~= ev.action then started[#started + 1] = ev.action end
        if ev.kind == "step_started" then open_step = ev.action end
        if ev.kind == "step_finished" or ev.kind == "step_failed" then open_step = nil end
        if ev.kind == "goal_reached" then reached = reached + 1 end
      end
    end
    local steps = {}
    for _, g in ipairs(life.goals) do
      for _, s in ipairs(g.steps) do
        if s.outcome ~= "skipped" then steps[#steps + 1] = s.action end
        assert.is_true(s.finish == nil or s.finish >= s.start)
      end
    end
    assert.same(started, steps)
    assert.equal(reached, life.reached)
    assert.is_true(#life.goals >= 1 and #life.goals[1].plans >= 1)
    local first = {}
    for k = 1, #life.goals[1].plans[1].actions do first[k] = steps[k] end
    assert.same(first, life.goals[1].plans[1].actions)
    os.remove(path)
  end)

  it("rebuilds each agent's cell at any frame (state_at), and counts per hour", function()
    local path = tmp()
    local world = town()
    local _, cells = run(world, path, 30, 0.5)
    local t = trace.open(path)
    for f = 1, 30, 3 do
      for i = 1, 3 do
        local s = t:state_at(t:time(f), "citizen", i)
        assert.same(cells[f][1][i], { s.x, s.y })
      end
    end
    local counts, keys = t:counts()
    assert.same({ 0 }, keys)
    assert.is_true(counts[0].goal_chosen >= 3 and counts[0].no_plan >= 1)
    os.remove(path)
  end)

  it("records only the classes asked for, and cells every n frames", function()
    local path = tmp()
    local world = town()
    run(world, path, 10, 0.5, { agents = { "sheriff" }, positions = 2 })
    local t = trace.open(path)
    for ev in t:events() do assert.equal("sheriff", ev.class) end
    assert.is_false(t.header.crowds[1].recorded)
    assert.equal(2, t.header.positions)
    os.remove(path)
  end)

  it("reports a damaged chunk and reads the rest", function()
    local path = tmp()
    local world = town()
    run(world, path, 20, 0.5)
    local f = io.open(path, "rb")
    local data = f:read("*a")
    f:close()
    local bad = data:sub(1, #data - 10) .. string.char((data:byte(#data - 9) + 1) % 256) .. data:sub(#data - 8)
    local t = trace.read(bad, "bad")
    assert.is_true(#t.problems >= 1)
    assert.truthy(t.problems[1]:find("damaged, skipped", 1, true))
    assert.equal(0, t.event_count)
    assert.error_matches(function() trace.read("nonsense", "x.trace") end,
                         "saspu.trace.open: x.trace: trace: not a saspu trace", 1, true)
    assert.error_matches(function() trace.open("/nonexistent/day.trace") end,
                         "saspu.trace.open: /nonexistent/day.trace", 1, true)
    os.remove(path)
  end)

  it("goes on without a crowd closed while recording, and closes its file with the world", function()
    local path = tmp()
    local world, citizens = town()
    world:record { path = path }
    for _ = 1, 4 do world:update(0.5) end
    citizens:close()
    for _ = 1, 4 do world:update(0.5) end
    world:close()
    local t = trace.open(path)
    assert.same({}, t.problems)
    assert.equal(8, t.frame_count)
    for ev in t:events { class = "citizen" } do assert.is_true(ev.frame <= 4) end
    os.remove(path)
  end)

  it("refuses a second recording, and a path it cannot open", function()
    local world = town()
    local path = tmp()
    world:record { path = path }
    assert.error_matches(function() world:record { path = path } end, "already recording", 1, true)
    world:stop_recording()
    assert.is_nil(world:stop_recording())
    assert.error_matches(function() world:record { path = "/nonexistent/x.trace" } end,
                         "cannot open '/nonexistent/x.trace'", 1, true)
    assert.error_matches(function() world:record { path = path, agents = { "sherif" } } end,
                         "agents[1]: 'sherif' is not a class or an open crowd of this world", 1, true)
    assert.error_matches(function() world:record { path = path, positions = -1 } end,
                         "positions must be an integer >= 0", 1, true)
    os.remove(path)
  end)
end)

describe("saspu trace", function()
  local cli = require "saspu.cli"
  local report = require "saspu.trace_report"
  local function call(args)
    local out, err = {}, {}
    local function sink(t) return { write = function(_, ...) for _, s in ipairs({ ... }) do t[#t + 1] = s end end } end
    local status = cli.main(args, sink(out), sink(err))
    return status, table.concat(out), table.concat(err)
  end

  it("summarises per class: goals, top failures with place and time, stuck agents", function()
    local path = tmp()
    run(town(), path, 40, 0.5)
    local status, out = call { "trace", path }
    assert.equal(0, status)
    assert.truthy(out:find("citizen: 3 agents", 1, true))
    assert.truthy(out:find("blocked full in buy_food at market", 1, true))
    assert.truthy(out:find("sheriff: 1 agents, 0 goals chosen: 0 reached, 1 without a plan", 1, true))
    assert.truthy(out:find("never reached a goal: 1 agents (sheriff:1)", 1, true))
    local _, json = call { "trace", "--json", path }
    assert.truthy(json:find('^{"cells":%d+,"classes":%[{"agents":3'))
    os.remove(path)
  end)

  it("prints one agent's life as the reader's timeline", function()
    local path = tmp()
    run(town(), path, 40, 0.5)
    local status, out = call { "trace", "--agent", "citizen:3", path }
    assert.equal(0, status)
    local life = trace.open(path):history("citizen", 3)
    assert.equal(table.concat(report.timeline_text(life), "\n") .. "\n", out)
    assert.truthy(out:find("goal work: reached at", 1, true))
    os.remove(path)
  end)

  it("names what is wrong with its arguments", function()
    local status, _, err = call { "trace", "--agent", "citizen", "x.trace" }
    assert.equal(2, status)
    assert.truthy(err:find("x.trace", 1, true))
    status, _, err = call { "trace", "--bogus", "x.trace" }
    assert.equal(2, status)
    assert.truthy(err:find("unknown option '--bogus'", 1, true))
  end)
end)
