-- spec/walk_due_spec.lua: walkers sleep until their next cell is due: position and inspect read the cell and the progress toward the next at any frame, a frame visits only the walkers reaching a cell, and a teleport or a grid change reaches a sleeping walker at the next update.
local saspu = require "saspu"
local support = require "support.agents"

-- One row of 40 open cells (three rows: a wall can cut the way), a place at the east end;
-- one citizen whose buy_food step walks there at 2 cells a second.
local ROW = ("."):rep(40) .. "\n"

local function walker()
  local world = saspu.world { grid = saspu.grid_from_ascii(ROW:rep(3)),
                              places = { { name = "east", x = 40, y = 2 } } }
  local crowd = world:crowd(support.citizen(), {
    actions = { buy_food = { duration = 600, at = "east" } }, goals = { { "work" } },
  }, { speed = 2 })
  local a = crowd:spawn { start = "start_of_day", x = 1, y = 2 }
  return world, crowd, a
end

-- Updates of 1/8 s (a quarter of a cell) until the walk starts; returns its frame's events.
local function start_walking(world, a)
  for _ = 1, 20 do
    world:update(0.125)
    for ev in world:events() do
      if ev.kind == "step_started" and ev.action == "buy_food" then return end
    end
  end
  error("the walk did not start: " .. a:inspect().phase)
end

describe("a walker between cells", function()
  it("is on the cell its due ticks reach, its progress a quarter a frame", function()
    local world, crowd, a = walker()
    start_walking(world, a)
    local info = {}
    for f = 1, 60 do
      world:update(0.125)
      local x, y = a:position()
      local cx, cy = crowd:position(a:index())
      assert.same({ 1 + math.floor(f / 4), 2 }, { x, y }, "frame " .. f)
      assert.same({ x, y }, { cx, cy })
      crowd:info(a:index(), info)
      assert.equal("walking", info.phase)
      assert.equal(x, info.x)
      assert.near((f % 4) / 4, info.time_left, 1e-6, "frame " .. f)
      local seen = a:inspect()
      assert.same({ x, y }, { seen.x, seen.y })
      assert.near(info.time_left, seen.time_left, 1e-6)
      -- visited: the walker when it reaches a cell, nobody between
      assert.equal(f % 4 == 0 and 1 or 0, crowd:stats({}, true).visited, "frame " .. f)
    end
    world:close()
  end)

  it("arrives in the frame its last cell falls due, in one long frame too", function()
    for _, dt in ipairs { 0.125, 7, 30 } do
      local world, _, a = walker()
      start_walking(world, a)
      local t, arrived = 0, nil
      while not arrived and t < 60 do
        world:update(dt)
        t = t + dt
        for ev in world:events() do
          if ev.kind == "arrived" then arrived = t end
        end
      end
      -- 39 cells at 2 a second: 19.5 s after the walk began
      assert.equal(dt * math.ceil(19.5 / dt), arrived, "frames of " .. dt .. " s")
      assert.same({ 40, 2 }, { a:position() })
      world:close()
    end
  end)

  it("teleported onto its target mid-cell, arrives at the next update", function()
    local world, _, a = walker()
    start_walking(world, a)
    world:update(0.125)
    world:update(0.125) -- half a cell on: asleep for two more frames
    a:teleport(40, 2)
    world:update(0.125)
    local kinds = {}
    for ev in world:events() do kinds[#kinds + 1] = ev.kind end
    assert.same({ "arrived" }, kinds)
    world:close()
  end)

  it("teleported elsewhere mid-cell, starts that cell over from there", function()
    local world, crowd, a = walker()
    start_walking(world, a)
    for _ = 1, 6 do world:update(0.125) end -- at x = 2, half a cell on
    a:teleport(10, 1)
    local info = crowd:info(a:index(), {})
    assert.equal(0, info.time_left)
    for f = 1, 8 do
      world:update(0.125)
      assert.equal(10 + math.floor(f / 4), (a:position()), "frame " .. f)
    end
    world:close()
  end)

  it("hears of a wall across its way at the next update, not at its next cell", function()
    local world, _, a = walker()
    start_walking(world, a)
    for _ = 1, 9 do world:update(0.125) end -- a quarter of a cell past x = 3
    world:grid():fill_blocked(20, 1, 1, 3, true)
    world:update(0.125)
    local seen = {}
    for ev in world:events() do seen[#seen + 1] = ev.kind .. "/" .. tostring(ev.reason) end
    assert.same({ "step_failed/unreachable", "blocked/unreachable" }, { seen[1], seen[2] })
    world:close()
  end)

  it("keeps its cell and progress across world:save and world:load", function()
    local world, _, a = walker()
    start_walking(world, a)
    for _ = 1, 7 do world:update(0.125) end
    local bytes = world:save()
    local w2 = saspu.world { grid = saspu.grid_from_ascii(ROW:rep(3)),
                             places = { { name = "east", x = 40, y = 2 } } }
    local c2 = w2:crowd(support.citizen(), {
      actions = { buy_food = { duration = 600, at = "east" } }, goals = { { "work" } },
    }, { speed = 2 })
    w2:load(bytes)
    local b = c2:agent(1)
    for f = 8, 40 do
      world:update(0.125)
      w2:update(0.125)
      assert.same({ a:position() }, { b:position() }, "frame " .. f)
      assert.equal(a:inspect().time_left, b:inspect().time_left)
    end
    world:close()
    w2:close()
  end)
end)
