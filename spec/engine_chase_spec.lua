-- spec/engine_chase_spec.lua: a step that goes to another agent when the game moves its characters (movement = "engine"): the move follows the target, a target despawned fails the step, arrived() is judged where the target stands, a load repeats the moves pending, and the events are grid mode's where the modes agree.
local saspu = require "saspu"
local support = require "support.agents"

local FIELD = ("....................\n"):rep(3) .. "..........#.........\n" .. ("....................\n"):rep(3)

-- A bandit walking east (saspu moves it, 2 cells a second) to "east"; a sheriff whose
-- buy_food step goes to the bandit, moved by saspu (grid) or by the game (engine).
-- `patch` "value": the citizens' `debating` gains a value, so both crowds changed for a
-- world:load with migrate (the sheriff's step did not).
local function town(movement, patch)
  local domain = patch and support.citizen_heated() or support.citizen()
  local world = saspu.world { grid = saspu.grid_from_ascii(FIELD),
                              places = { { name = "east", x = 20, y = 7 } } }
  local bandits = world:crowd(domain, {
    actions = { buy_food = { duration = 60, at = "east" } }, goals = { { "work" } },
  }, { speed = 2 })
  local bandit = bandits:spawn { start = "start_of_day", x = 1, y = 7 }
  local sheriffs = world:crowd(domain, {
    actions = { buy_food = { duration = 1, at = function(a) return a.data.prey, 1 end } },
    goals = { { "work" } },
  }, { movement = movement })
  local sheriff = sheriffs:spawn { start = "start_of_day", x = 20, y = 1 }
  sheriff.data.prey = bandit
  return world, sheriff, bandit, sheriffs
end

local function cheb(ax, ay, bx, by)
  return math.max(math.abs(ax - bx), math.abs(ay - by))
end

-- The game's side of engine moves: each frame it walks every character with a move one
-- cell toward its target (the agent when there is one, else the cell), and answers
-- arrived() once within reach 1 of it.
local function game()
  local moving = {} -- agent -> { x, y, target }
  local g = {}
  function g.event(ev)
    if ev.kind == "move" then
      moving[ev.agent] = { ev.x, ev.y, ev.target }
    elseif ev.kind == "move_cancelled" then
      moving[ev.agent] = nil
    end
  end
  function g.step()
    for a, m in pairs(moving) do
      local tx, ty = m[1], m[2]
      if m[3] then tx, ty = m[3]:position() end
      local x, y = a:position()
      if cheb(x, y, tx, ty) <= 1 then
        moving[a] = nil
        assert.is_true(a:arrived())
      else
        local nx, ny = x + (tx > x and 1 or tx < x and -1 or 0), y + (ty > y and 1 or ty < y and -1 or 0)
        a:teleport(nx, ny)
      end
    end
  end
  return g
end

-- Frames until `done` or `frames`: the sheriff's events ("kind" or "kind/reason").
local function run(world, sheriff, frames, g, each)
  local log = {}
  for _ = 1, frames do
    world:update(0.25)
    for ev in world:events() do
      if g then g.event(ev) end
      if ev.agent == sheriff then
        log[#log + 1] = ev.kind .. (ev.reason and "/" .. ev.reason or "")
        if each then each(ev) end
      end
    end
    if g then g.step() end
  end
  return log
end

-- The events of both modes: without those only engine mode has.
local function shared(log)
  local out = {}
  for _, e in ipairs(log) do
    if not e:match("^move") then out[#out + 1] = e end
  end
  return out
end

describe("an engine-moved step that goes to another agent", function()
  it("sends the target with the move and a new move when the target walked away", function()
    local world, sheriff, bandit = town("engine")
    local moves, g, dist = {}, game(), nil
    local log = run(world, sheriff, 60, g, function(ev)
      if ev.kind == "move" then
        assert.equal(bandit, ev.target)
        moves[#moves + 1] = { ev.x, ev.y }
      elseif ev.kind == "arrived" then
        local sx, sy = sheriff:position()
        dist = cheb(sx, sy, bandit:position())
      end
    end)
    assert.is_true(#moves >= 2) -- the bandit moved on after the first move
    assert.are_not.same(moves[1], moves[#moves])
    assert.truthy(table.concat(log, " "):find("arrived step_finished", 1, true))
    assert.is_true(dist <= 1) -- where the bandit stands, not where it stood
  end)

  it("refuses arrived() beyond the reach, giving the distance, and leaves the agent where the game put it", function()
    local world, sheriff, bandit = town("engine")
    run(world, sheriff, 3)
    assert.is_true(sheriff:moving())
    local bx, by = bandit:position()
    assert.error_matches(function() sheriff:arrived() end,
                         "saspu.Agent:arrived: agent 1 of 'citizen': is ", 1, true)
    assert.error_matches(function() sheriff:arrived() end,
                         (" cells from its target at (%d, %d), reach 1"):format(bx, by), 1, true)
    assert.is_true(sheriff:moving())
    assert.is_true(sheriff:arrived(bx, by - 1)) -- the game put it next to the bandit
    local log = run(world, sheriff, 1)
    assert.same({ "arrived" }, { log[1] })
    assert.same({ bx, by - 1 }, { sheriff:position() })
  end)

  for _, movement in ipairs { "grid", "engine" } do
    it("fails the step with target_gone when the target is despawned on the way (" .. movement .. ")", function()
      local world, sheriff, bandit = town(movement)
      local log = run(world, sheriff, 2)
      bandit:despawn()
      local rest = run(world, sheriff, 1)
      assert.same("step_failed/target_gone", rest[1])
      if movement == "engine" then
        assert.same("move_cancelled/target_gone", rest[2])
        assert.is_false(sheriff:moving())
      end
      for _, e in ipairs(rest) do log[#log + 1] = e end
      assert.is_falsy(table.concat(log, " "):find("arrived", 1, true))
    end)
  end

  it("has grid mode's events where the modes agree (chase and target_gone)", function()
    local logs = {}
    for _, movement in ipairs { "grid", "engine" } do
      local world, sheriff = town(movement)
      logs[movement] = shared(run(world, sheriff, 60, movement == "engine" and game() or nil))
    end
    assert.same(logs.grid, logs.engine)
    local gone = {}
    for _, movement in ipairs { "grid", "engine" } do
      local world, sheriff, bandit = town(movement)
      local log = run(world, sheriff, 2)
      bandit:despawn()
      for _, e in ipairs(run(world, sheriff, 3)) do log[#log + 1] = e end
      gone[movement] = shared(log)
    end
    assert.same(gone.grid, gone.engine)
  end)

  it("a stale arrived() after the step ended says move_cancelled instead of raising", function()
    local world, sheriff, bandit = town("engine")
    run(world, sheriff, 2)
    assert.is_true(sheriff:moving())
    bandit:despawn()
    run(world, sheriff, 1)
    assert.has_error(function() sheriff:arrived() end) -- told already: nothing pending
    local w2, s2 = town("engine")
    run(w2, s2, 2)
    s2:crowd():control(s2:index(), "fail", 0)
    local ok, why = s2:arrived()
    assert.is_false(ok)
    assert.equal("move_cancelled", why)
  end)
end)

describe("engine moves across world:save and world:load", function()
  it("repeats every pending move at the first update after a load, and the chase completes at the bandit", function()
    local world, sheriff = town("engine")
    run(world, sheriff, 3)
    assert.is_true(sheriff:moving())
    local saved = world:save()
    local w2, s2, b2, c2 = town("engine")
    w2:load(saved)
    local out = {}
    assert.equal(1, c2:moves(out))
    assert.equal(s2:index(), out[1])
    assert.equal(b2, out[4])
    assert.is_true(c2:pending(s2:index()))
    local repeated, dist
    local g = game()
    local log = run(w2, s2, 60, g, function(ev)
      if ev.kind == "move" and repeated == nil then
        repeated = ev.repeated
        assert.equal(b2, ev.target)
      elseif ev.kind == "arrived" then
        local sx, sy = s2:position()
        dist = cheb(sx, sy, b2:position())
      end
    end)
    assert.is_true(repeated)
    assert.truthy(table.concat(log, " "):find("arrived step_finished", 1, true))
    assert.is_true(dist <= 1)
    assert.equal(0, c2:moves(out))
  end)

  for _, saved_movement in ipairs { "engine", "grid" } do
    it("keeps the target of the walk across a load with migrate where the crowds changed ("
       .. saved_movement .. " at the save, engine after)", function()
      local world, sheriff = town(saved_movement)
      run(world, sheriff, 3)
      local saved = world:save()
      local w2, s2, b2, c2 = town("engine", "value")
      local report = w2:load(saved, { migrate = true })
      assert.is_true(support.has_line(report, "crowd 2 'citizen': 1 walk to another agent kept"))
      assert.is_false(support.has_line(report, "dropped"))
      local out = {}
      if saved_movement == "engine" then
        assert.equal(1, c2:moves(out))
        assert.equal(b2, out[4])
      end
      local first, dist
      local log = run(w2, s2, 60, game(), function(ev)
        if ev.kind == "move" and first == nil then
          first = ev
          assert.equal(b2, ev.target)
        elseif ev.kind == "arrived" then
          local sx, sy = s2:position()
          dist = cheb(sx, sy, b2:position())
        end
      end)
      assert.truthy(first, "a move after the load")
      assert.equal(saved_movement == "engine", first.repeated)
      assert.truthy(table.concat(log, " "):find("arrived step_finished", 1, true))
      assert.is_true(dist <= 1) -- where the bandit stands, not where it stood at the save
    end)
  end
end)
