-- spec/test_engine_spec.lua: saspu.test for crowds the game moves (movement = "engine"): event copies with every field, an engine answering moves at once, later or by a callback; world checks as busted failures; a:inspect's history only when asked.
local saspu = require "saspu"
local check = require "saspu.test"

local function town(opts)
  local world = saspu.world { grid = saspu.grid(12, 12),
                              places = { { name = "market", x = 9, y = 3 } } }
  local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {
    actions = { buy_food = { at = "market", duration = 1 }, work = { duration = 1 } },
    goals = { { "work" } },
  }, opts)
  return world, crowd
end

local function engine_town() return town { movement = "engine" } end

describe("saspu.test with an engine crowd", function()
  it("run's event copies keep every field: x, y of a move", function()
    local world, crowd = engine_town()
    crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    local moves = {}
    for _, e in ipairs(check.run(world, 0.5)) do
      if e.kind == "move" then moves[#moves + 1] = e end
    end
    assert.equal(1, #moves)
    assert.equal(9, moves[1].x)
    assert.equal(3, moves[1].y)
    assert.equal("market", moves[1].place)
  end)

  it("assert_reaches plays the game: moves answered at once", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    local took = check.assert_reaches(a, "work", 10, { engine = 0 })
    assert.is_true(took < 3) -- no walk: the market at once, 1 s there, 1 s of work
    assert.same({ 9, 3 }, { a:position() })
    check.assert_events(a, { "move", "arrived", "step_finished:buy_food", "goal_reached" })
    check.assert_no_failures(world)
  end)

  it("answers a move after a delay, and takes a callback that answers it itself", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    local quick = check.assert_reaches(a, "work", 20, { engine = 0 })
    local _, crowd2 = engine_town()
    local b = crowd2:spawn { start = "start_of_day", x = 2, y = 3 }
    local slow = check.assert_reaches(b, "work", 20, { engine = 2 })
    assert.is_true(slow >= quick + 1.9, string.format("%.2f vs %.2f", slow, quick))
    local _, crowd3 = engine_town()
    local c = crowd3:spawn { start = "start_of_day", x = 2, y = 3 }
    local seen = {}
    check.assert_reaches(c, "work", 20, { dt = 0.25, engine = function(ev)
      seen[#seen + 1] = ev
      ev.agent:teleport(ev.x, ev.y)
      ev.agent:arrived()
    end })
    assert.equal(1, #seen)
    assert.equal("move", seen[1].kind)
    assert.equal(c, seen[1].agent)
    assert.error_matches(function() check.run(world, 1, { engine = -1 }) end,
      "saspu.test.run: engine must be a function(ev) or a delay in seconds >= 0, got -1", 1, true)
    assert.error_matches(function() check.run(world, 1, { delay = 1 }) end,
      "saspu.test.run: unknown option 'delay' (dt, stop, engine)", 1, true)
  end)

  it("reports a failed world check as a busted failure, not an error", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    local ok, err = pcall(check.assert_reaches, a, "work", 1) -- nobody answers the move
    assert.is_false(ok)
    assert.equal("failure", getmetatable(err).__type)
    assert.matches("expected agent 1 (citizen) to reach 'work' within 1 s", tostring(err), 1, true)
    ok, err = pcall(check.assert_events, a, { "goal_reached" })
    assert.is_false(ok)
    assert.equal("failure", getmetatable(err).__type)
    local b = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    check.run(world, 0.2)
    b:move_failed()
    check.run(world, 0.2)
    ok, err = pcall(check.assert_no_failures, world)
    assert.is_false(ok)
    assert.equal("failure", getmetatable(err).__type)
  end)
end)

describe("a:inspect", function()
  it("keeps no history unless asked: a plain inspect leaves later frames alone", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    assert.is_nil(a:inspect().events)
    world:update(0.1)
    assert.is_nil(a:inspect().events)
  end)

  it("keeps the last n events with { history = n }, and stops with { history = 0 }", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 3 }
    assert.same({}, a:inspect { history = 2 }.events)
    for _ = 1, 10 do world:update(0.5) end
    local events = a:inspect().events
    assert.equal(2, #events)
    a:inspect { history = 0 }
    assert.is_nil(a:inspect().events)
    world:update(0.5)
    assert.is_nil(a:inspect().events)
    assert.error_matches(function() a:inspect { history = 65 } end,
      "saspu.Agent:inspect: history must be an integer from 0 to 64, got 65", 1, true)
    assert.error_matches(function() a:inspect { histroy = 1 } end,
      "saspu.Agent:inspect: unknown field 'histroy'", 1, true)
  end)
end)
