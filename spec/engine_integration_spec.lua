-- spec/engine_integration_spec.lua: saspu inside a game's own world: despawn, teleport, movement = "engine" (move, arrived, move_failed), with invariants checked every frame.
local saspu = require "saspu"
local support = require "support.agents"

-- Under valgrind (its preload library is in the environment) each call is ~30x slower:
-- the random run takes fewer frames.
local UNDER_VALGRIND = (os.getenv("LD_PRELOAD") or ""):find("vgpreload", 1, true) ~= nil

local MAP = table.concat({
  "................",
  "....#####.......",
  "........#.......",
  "........#...##..",
  "..###...#.......",
  "................",
  "......######....",
  "................",
}, "\n") .. "\n"

-- A town: a grid with walls, places with capacities, a citizen crowd whose errands
-- happen at those places.
local function town(opts)
  local grid = saspu.grid_from_ascii(MAP)
  local world = saspu.world { grid = grid, places = {
    { name = "market", x = 15, y = 1, capacity = 1 },
    { name = "well", x = 1, y = 8, capacity = 2 },
    { name = "house", x = 10, y = 3 },
    { name = "workshop", x = 3, y = 7, capacity = 1 },
  } }
  local crowd = world:crowd(support.citizen(), {
    actions = {
      buy_food = { duration = 0.5, at = "market" }, buy_drink = { duration = 0.5, at = "well" },
      take = { duration = 0.2, at = "house" }, work = { duration = 1, at = "workshop" },
      eat = { duration = 0.3 }, drink = { duration = 0.3 },
    },
    goals = { { "work" } },
  }, opts)
  return world, crowd, grid
end

-- Checks what must hold after every frame: live agents stand on open cells, no place
-- holds more reservations than its capacity nor all places more than the live agents
-- (one each at most: a despawned agent's is released), the crowd's size counts the
-- live agents, and every handle of a despawned agent is refused.
local function check_invariants(world, crowd, grid, dead)
  local live = 0
  for i = 1, crowd:slots() do
    if crowd:alive(i) then
      live = live + 1
      local x, y = crowd:agent(i):position()
      assert.is_true(x >= 1 and x <= grid:width() and y >= 1 and y <= grid:height())
      assert.is_false(grid:is_blocked(x, y))
    end
  end
  assert.equal(live, crowd:size())
  local total = 0
  for p = 1, world:place_count() do
    local _, _, _, capacity, reserved = world:place_info(p)
    if capacity > 0 then assert.is_true(reserved <= capacity) end
    total = total + reserved
  end
  assert.is_true(total <= live, "reservations " .. total .. ", live agents " .. live)
  for _, h in ipairs(dead) do
    assert.is_false(h:alive())
    assert.error_matches(function() h:get("hunger") end, "saspu.Agent: despawned", 1, true)
  end
end

local function reserved_total(world)
  local n = 0
  for p = 1, world:place_count() do n = n + select(5, world:place_info(p)) end
  return n
end

describe("a:despawn", function()
  it("removes the agent: alive() is false and every other method raises", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    local b = crowd:spawn { start = "start_of_day", x = 2, y = 1 }
    world:update(0.1)
    assert.equal(2, crowd:size())
    assert.is_true(a:alive())
    a:despawn()
    assert.is_false(a:alive())
    assert.is_true(b:alive())
    assert.equal(1, crowd:size())
    assert.equal(1, #crowd)
    for _, call in ipairs {
      function() a:get("hunger") end, function() a:set("hunger", "fed") end,
      function() a:state() end, function() a:inspect() end, function() a:position() end,
      function() a:index() end, function() a:crowd() end, function() return a.data end,
      function() a:teleport(1, 1) end, function() a:arrived() end,
      function() a:move_failed("x") end,
    } do
      assert.error_matches(call, "saspu.Agent: despawned", 1, true)
    end
    assert.matches("despawned", tostring(a))
  end)

  it("raises a clear error when the agent is despawned twice, nothing changed", function()
    local _, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    crowd:spawn { start = "start_of_day", x = 2, y = 1 }
    a:despawn()
    assert.error_matches(function() a:despawn() end,
                         "saspu.Agent:despawn: the agent was despawned already", 1, true)
    assert.equal(1, crowd:size())
    assert.error_matches(function() crowd:despawn(1) end, "agent 1 was despawned", 1, true)
    assert.error_matches(function() crowd:despawn(9) end, "agent 9 is outside 1..2", 1, true)
  end)

  it("releases the agent's place reservation", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 14, y = 1 }
    local held
    for _ = 1, 40 do
      world:update(0.1)
      held = select(5, world:place_info(1)) -- the market, capacity 1
      if held == 1 then break end
    end
    assert.equal(1, held)
    a:despawn()
    assert.equal(0, select(5, world:place_info(1)))
    assert.equal(0, reserved_total(world))
    -- another agent gets the market now
    local b = crowd:spawn { start = "start_of_day", x = 14, y = 1 }
    local got = false
    for _ = 1, 60 do
      world:update(0.1)
      for ev in world:events() do
        if ev.agent == b and ev.kind == "step_finished" and ev.action == "buy_food" then got = true end
      end
    end
    assert.is_true(got)
  end)

  it("stops the agent's events, also those of the frame not read yet", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    local b = crowd:spawn { start = "start_of_day", x = 2, y = 1 }
    world:update(0.1) -- both chose a goal and planned: events of both are waiting
    a:despawn()
    local seen = {}
    for ev in world:events() do seen[#seen + 1] = ev.agent end
    assert.is_true(#seen > 0)
    for _, h in ipairs(seen) do assert.equal(b, h) end
    for _ = 1, 30 do
      world:update(0.2)
      for ev in world:events() do assert.equal(b, ev.agent) end
    end
  end)

  it("reuses the slot for a later spawn, and the old handle never reaches the new agent", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    crowd:spawn { start = "start_of_day", x = 2, y = 1 }
    world:update(0.1)
    a.data.name = "old"
    a:despawn()
    local c = crowd:spawn { start = "start_of_day", x = 3, y = 1 }
    assert.equal(1, c:index()) -- the freed slot
    assert.equal(2, crowd:slots())
    assert.are_not.equal(a, c)
    assert.equal(c, crowd:agent(1))
    assert.is_nil(c.data.name) -- script data is the new agent's own
    assert.is_false(a:alive())
    assert.error_matches(function() a:position() end, "saspu.Agent: despawned", 1, true)
    assert.same({ 3, 1 }, { c:position() })
    for _ = 1, 5 do
      world:update(0.2)
      for ev in world:events() do assert.is_true(ev.agent:alive()) end
    end
  end)

  it("costs nothing for agents despawned: a full crowd spawns again after despawns", function()
    local world, crowd = town { capacity = 4 }
    local hs = {}
    for i = 1, 4 do hs[i] = crowd:spawn { start = "start_of_day", x = i, y = 1 } end
    assert.error_matches(function() crowd:spawn { start = "start_of_day", x = 1, y = 1 } end, "full")
    hs[2]:despawn()
    hs[4]:despawn()
    local n = crowd:spawn { start = "start_of_day", x = 5, y = 1 }
    assert.equal(4, n:index()) -- last freed first
    assert.equal(3, crowd:size())
    world:update(0.1)
  end)

  it("is kept by save and load: the same agents alive, the same slot reused next", function()
    local function build()
      local world, crowd = town()
      local hs = {}
      for i = 1, 5 do hs[i] = crowd:spawn { start = "start_of_day", x = i, y = 1 } end
      return world, crowd, hs
    end
    local w1, c1, h1 = build()
    for _ = 1, 10 do w1:update(0.1) end
    h1[2]:despawn()
    h1[4]:despawn()
    for _ = 1, 5 do w1:update(0.1) end
    local saved = w1:save()
    local w2, c2 = build()
    w2:load(saved)
    assert.equal(3, c2:size())
    assert.equal(5, c2:slots())
    for i = 1, 5 do assert.equal(c1:alive(i), c2:alive(i)) end
    assert.equal(saved, w2:save())
    local n1 = c1:spawn { start = "start_of_day", x = 6, y = 1 }
    local n2 = c2:spawn { start = "start_of_day", x = 6, y = 1 }
    assert.equal(4, n1:index())
    assert.equal(n1:index(), n2:index())
    for _ = 1, 20 do
      w1:update(0.1)
      w2:update(0.1)
      assert.equal(support.run(w1, nil, 1, 0), support.run(w2, nil, 1, 0))
    end
    assert.equal(w1:save(), w2:save())
  end)

  it("keeps every invariant through random spawns, despawns and teleports", function()
    local world, crowd, grid = town { capacity = 24, seed = 7 }
    local rng = 12345
    local function rand(n) -- exact in doubles too: the same draws on every Lua
      rng = rng * 16807 % 2147483647
      return rng % n + 1
    end
    local function open_cell()
      while true do
        local x, y = rand(grid:width()), rand(grid:height())
        if not grid:is_blocked(x, y) then return x, y end
      end
    end
    local live, dead = {}, {}
    for frame = 1, UNDER_VALGRIND and 150 or 400 do
      local r = rand(10)
      if r <= 3 and crowd:size() < 24 then
        local x, y = open_cell()
        live[#live + 1] = crowd:spawn { start = "start_of_day", x = x, y = y }
      elseif r == 4 and #live > 0 then
        local k = rand(#live)
        live[k]:despawn()
        dead[#dead + 1] = table.remove(live, k)
      elseif r == 5 and #live > 0 then
        live[rand(#live)]:teleport(open_cell())
      end
      world:update(0.1)
      for ev in world:events() do
        assert.is_true(ev.agent:alive(), "an event of a despawned agent at frame " .. frame)
      end
      check_invariants(world, crowd, grid, dead)
    end
    assert.is_true(#dead > (UNDER_VALGRIND and 3 or 10))
    for _, h in ipairs(live) do h:despawn() end
    assert.equal(0, crowd:size())
    assert.equal(0, reserved_total(world))
  end)
end)

describe("a:teleport", function()
  it("moves the agent now; a walk goes on from the new cell to the same bound place", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 8 }
    a:set("thirst", "hydrated")
    a:set("has_item", "true") -- the market is its first errand
    local walking
    for _ = 1, 30 do
      world:update(0.05)
      local info = a:inspect()
      if info.phase == "walking" and info.action == "buy_food" then walking = info break end
    end
    assert.is_truthy(walking)
    assert.equal("market", walking.target)
    a:teleport(14, 2)
    assert.same({ 14, 2 }, { a:position() })
    local info = a:inspect()
    assert.equal("walking", info.phase)
    assert.equal("market", info.target)
    assert.equal(1, select(5, world:place_info(1))) -- still reserved
    local arrived_after
    for f = 1, 20 do
      world:update(0.1)
      for ev in world:events() do
        if ev.kind == "arrived" and ev.place == "market" then arrived_after = arrived_after or f end
      end
    end
    -- two cells from the market at 4 cells a second: within the first frames
    assert.is_truthy(arrived_after)
    assert.is_true(arrived_after <= 6)
  end)

  it("refuses a wall or a cell outside the grid, changing nothing", function()
    local world, crowd = town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    world:update(0.1)
    local before = world:save()
    assert.error_matches(function() a:teleport(5, 2) end,
                         "saspu.Agent:teleport: cell (5, 2) is blocked", 1, true)
    assert.error_matches(function() a:teleport(17, 1) end,
                         "saspu.Agent:teleport: x = 17 is outside 1..16", 1, true)
    assert.error_matches(function() a:teleport(1, 0) end,
                         "saspu.Agent:teleport: y = 0 is outside 1..8", 1, true)
    assert.error_matches(function() a:teleport(1.5, 1) end,
                         "saspu.Agent:teleport: x must be an integer", 1, true)
    assert.error_matches(function() a:teleport("1", 1) end,
                         "saspu.Agent:teleport: x must be an integer", 1, true)
    assert.error_matches(function() crowd:teleport(1, 5, 2) end, "blocked", 1, true)
    assert.equal(before, world:save())
  end)

  it("fails the walk as unreachable when the new cell has no way to the target", function()
    local grid = saspu.grid_from_ascii("...#...\n...#...\n...#...\n")
    local world = saspu.world { grid = grid, places = { { name = "market", x = 7, y = 1 } } }
    local crowd = world:crowd(support.citizen(), {
      actions = { buy_food = { duration = 0.5, at = "market" } }, goals = { { "work" } },
    })
    local a = crowd:spawn { start = "start_of_day", x = 5, y = 3 }
    a:set("thirst", "hydrated")
    local reasons = {}
    for _ = 1, 3 do world:update(0.05) end
    assert.equal("walking", a:inspect().phase)
    a:teleport(1, 1)
    for _ = 1, 5 do
      world:update(0.05)
      for ev in world:events() do
        if ev.kind == "step_failed" then reasons[#reasons + 1] = ev.reason end
      end
    end
    assert.same({ "unreachable" }, reasons)
  end)
end)

-- An engine-moved town without a grid: two markets (a kind), a well, a workshop;
-- `on_start`, when given, is buy_drink's hook.
local function engine_town(grid, on_start)
  local world = saspu.world { grid = grid, places = {
    { name = "market_n", kind = "market", x = 10, y = 1 },
    { name = "market_s", kind = "market", x = 10, y = 8 },
    { name = "well", x = 1, y = 8 },
    { name = "workshop", x = 3, y = 7 },
  } }
  local log = {}
  local crowd = world:crowd(support.citizen(), {
    actions = {
      buy_food = { duration = 0.5, at = { kind = "market" },
                   on_fail = function(_, reason) log[#log + 1] = reason end },
      buy_drink = { duration = 0.5, at = "well", on_start = on_start },
      take = { duration = 0.2, at = function() return 6, 6 end },
      work = { duration = 1, at = "workshop" },
    },
    goals = { { "work" } },
  }, { movement = "engine" })
  return world, crowd, log
end

-- Runs frames, answering nothing; returns the events of `agent` as a trace and the last
-- move event seen (a copy).
local function frames(world, agent, n)
  local trace, move = {}, nil
  for _ = 1, n do
    world:update(0.25)
    for ev in world:events() do
      if ev.agent == agent then
        trace[#trace + 1] = support.event_text(ev)
        if ev.kind == "move" then
          move = { x = ev.x, y = ev.y, place = ev.place, action = ev.action, detail = ev.detail }
        end
      end
    end
  end
  return table.concat(trace, " "), move
end

describe('movement = "engine"', function()
  it("emits move with the target cell and place, waits, then arrived() lets the step act", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 4, y = 8 }
    a:set("thirst", "hydrated")
    a:set("has_item", "true")
    local trace, move = frames(world, a, 4)
    assert.equal("goal_chosen planned step_started:buy_food move:buy_food", trace)
    assert.same({ x = 10, y = 8, place = "market_s", action = "buy_food", detail = 2 }, move)
    assert.equal("moving", a:inspect().phase)
    assert.same({ 4, 8 }, { a:position() }) -- saspu does not walk it
    assert.equal("", (frames(world, a, 3)))  -- it waits: nothing happens
    a:arrived()
    assert.error_matches(function() a:arrived() end,
                         "saspu.Agent:arrived: agent 1 of 'citizen': its move was answered already",
                         1, true)
    trace = frames(world, a, 3)
    assert.equal("arrived:buy_food step_finished:buy_food step_started:eat", trace:sub(1, 56))
    assert.same({ 10, 8 }, { a:position() })
  end)

  it("raises when arrived() or move_failed() come with no move pending, nothing changed", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 8 }
    world:update(0.25)
    local before = world:save()
    assert.error_matches(function() a:arrived() end,
                         "saspu.Agent:arrived: agent 1 of 'citizen': has no move pending", 1, true)
    assert.error_matches(function() a:move_failed("x") end,
                         "saspu.Agent:move_failed: agent 1 of 'citizen': has no move pending", 1, true)
    assert.error_matches(function() a:move_failed(42) end,
                         "saspu.Agent:move_failed: reason must be a string, got number", 1, true)
    assert.equal(before, world:save())
  end)

  it("fails the step with the game's reason on move_failed, avoids the place and replans", function()
    local world, crowd, log = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 9, y = 8 }
    a:set("thirst", "hydrated")
    a:set("has_item", "true")
    local _, move = frames(world, a, 2)
    assert.equal("market_s", move.place)
    a:move_failed("the bridge is out")
    local trace
    trace, move = frames(world, a, 3)
    assert.equal("step_failed:buy_food/the bridge is out replanned/step_failed "
                 .. "step_started:buy_food move:buy_food", trace)
    assert.same({ "the bridge is out" }, log)
    assert.equal("market_n", move.place) -- the failed place cools down
    a:move_failed()
    trace = frames(world, a, 1)
    assert.equal("step_failed:buy_food/move_failed", trace)
  end)

  it("moves to the cell an at function gives, with no place", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 6, y = 5 }
    a:set("thirst", "hydrated")
    local trace, move = frames(world, a, 3)
    assert.equal("goal_chosen planned step_started:take waiting:take move:take", trace)
    assert.same({ x = 6, y = 6, action = "take" }, move)
    a:arrived()
    frames(world, a, 1)
    assert.same({ 6, 6 }, { a:position() })
  end)

  it("arrives at once when the agent already stands on the target cell", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 8 }
    assert.equal("goal_chosen planned step_started:buy_drink arrived:buy_drink",
                 (frames(world, a, 1)))
  end)

  it("works on a grid the same, computing no distance field", function()
    local world, crowd = engine_town(saspu.grid(16, 8))
    local a = crowd:spawn { start = "start_of_day", x = 2, y = 8 }
    a:set("has_item", "true")
    local _, move = frames(world, a, 2)
    assert.same({ x = 1, y = 8, place = "well", action = "buy_drink", detail = 3 }, move)
    a:arrived()
    frames(world, a, 2)
    assert.equal(0, world:stats().fields)
  end)

  it("keeps saspu's idea of the position in step with teleport", function()
    local world, crowd = engine_town()
    local a = crowd:spawn { start = "start_of_day", x = 4, y = 8 }
    a:set("thirst", "hydrated")
    a:set("has_item", "true")
    frames(world, a, 2)
    a:teleport(7, 4) -- the game's character walked part of the way
    assert.same({ 7, 4 }, { a:position() })
    assert.equal("moving", a:inspect().phase)
    a:arrived()
    frames(world, a, 1)
    assert.same({ 10, 8 }, { a:position() })
  end)

  it("is saved mid-move and answered after the load", function()
    local w1, c1 = engine_town()
    local a = c1:spawn { start = "start_of_day", x = 2, y = 7 }
    frames(w1, a, 2)
    assert.equal("moving", a:inspect().phase)
    local w2, c2 = engine_town()
    w2:load(w1:save())
    local b = c2:agent(1)
    assert.equal("moving", b:inspect().phase)
    b:arrived()
    a:arrived()
    assert.equal(frames(w1, a, 6), frames(w2, b, 6))
    assert.equal(w1:save(), w2:save())
  end)

  -- The game drives its characters from crowd:moves() alone (a cell a frame toward the
  -- target, arrived() there, now and then move_failed), changes the agents' states at
  -- random, and its hook fails a third of the buy_drink steps as they start (while the
  -- game is told to move the agent to the well): a world saved at any frame and loaded into a
  -- world built the same way says the same events from there (but the moves the first
  -- update tells again), and its agents stand and act as the world's.
  it("resumes the same events after a save at any frame, moves pending or cancelled", function()
    local rng = require("support.draws").rng
    local function play(world, crowd, r, n, log)
      local out = {}
      for _ = 1, n do
        for k = 1, crowd:moves(out) do
          local a = crowd:agent(out[4 * k - 3])
          local x, y = a:position()
          local tx, ty = out[4 * k - 2], out[4 * k - 1]
          if r(12) == 1 then
            a:move_failed("blocked")
          elseif x == tx and y == ty then
            a:arrived()
          else
            a:arrived(x + (tx > x and 1 or tx < x and -1 or 0), y + (ty > y and 1 or ty < y and -1 or 0))
          end
        end
        world:update(0.25)
        for ev in world:events() do
          if not ev.repeated then
            log[#log + 1] = ev.agent:index() .. " " .. support.event_text(ev) .. " " ..
                            tostring(ev.place) .. " " .. tostring(ev.x) .. "," .. tostring(ev.y)
          end
        end
        for i = 1, crowd:slots() do
          if r(10) == 1 then crowd:agent(i):set("hunger", ({ "no_food", "has_food", "fed" })[r(3)]) end
        end
      end
    end
    local function closed(agent) -- from what a save keeps (not agent.data)
      local x, y = agent:position()
      if (x + y + agent:index()) % 3 == 0 then error("the well is closed") end
    end
    local cancelled = 0
    for seed = 1, 8 do
      local r = rng(seed)
      local wa, ca = engine_town(saspu.grid(16, 8), closed)
      for i = 1, 6 do ca:spawn { start = "start_of_day", x = 1 + i, y = 6 + i % 3 } end
      play(wa, ca, r, 4 + r(20), {})
      local saved, after = wa:save(), r(1000)
      local la, lb = {}, {}
      play(wa, ca, rng(after), 60, la)
      local wb, cb = engine_town(saspu.grid(16, 8), closed)
      for i = 1, 6 do cb:spawn { start = "start_of_day", x = 1 + i, y = 6 + i % 3 } end
      wb:load(saved)
      play(wb, cb, rng(after), 60, lb)
      assert.same(la, lb)
      for i = 1, ca:slots() do assert.same(ca:agent(i):inspect(), cb:agent(i):inspect()) end
      for _, e in ipairs(la) do cancelled = cancelled + (e:find("move_cancelled", 1, true) and 1 or 0) end
    end
    assert.is_true(cancelled > 0, "some moves were cancelled")
  end)

  it("refuses another movement option, naming it", function()
    local world = saspu.world {}
    assert.error_matches(function()
      world:crowd(support.citizen(), {}, { movement = "teleport" })
    end, [[options.movement must be "grid" or "engine", got 'teleport']], 1, true)
    assert.error_matches(function()
      world:crowd(support.citizen(), {}, { movement = 3 })
    end, [[options.movement must be "grid" or "engine", got number]], 1, true)
  end)
end)

describe("the LÖVE example's town (examples/love/, without LÖVE)", function()
  it("lives a whole simulated day with no failed plan or step, every NPC moved by the game", function()
    local saved_path = package.path
    package.path = "examples/love/?.lua;" .. package.path
    local setting = require "setting"
    package.path = saved_path
    local lt = setting.build(".")
    local moves = 0
    while lt.clock < setting.DAY_SECONDS do
      lt:update(0.5)
      for _, npc in ipairs(lt.npcs) do
        assert.is_false(lt.grid:is_blocked(npc.agent:position()))
      end
    end
    local s = lt.stats
    assert.equal(0, s.failed_plans)
    assert.equal(0, s.failed_steps)
    assert.is_true(s.plans > 50)
    assert.is_true(s.routines >= #lt.npcs)
    for _, npc in ipairs(lt.npcs) do
      assert.is_true(npc.moved, npc.name .. " never moved")
      moves = moves + 1
    end
    assert.equal(8, moves)
    assert.equal(0, lt.world:stats().fields) -- the game moves them: no distance field
  end)
end)

-- A field with a wall; a bandit crowd walking east slowly, a sheriff crowd whose
-- buy_food step goes to an agent.
local FIELD = ("....................\n"):rep(3) .. "..........#.........\n" .. ("....................\n"):rep(3)

local function chase_town(at_of, opts, grid)
  local world = saspu.world { grid = grid == nil and saspu.grid_from_ascii(FIELD) or grid or nil,
                              places = { { name = "east", x = 20, y = 7 } } }
  local bandits = world:crowd(support.citizen(), {
    actions = { buy_food = { duration = 60, at = "east" } }, goals = { { "work" } },
  }, { speed = 2 })
  local bandit = bandits:spawn { start = "start_of_day", x = 1, y = 7 }
  local sheriffs = world:crowd(support.citizen(), {
    actions = { buy_food = { duration = 1, at = at_of(bandit) } }, goals = { { "work" } },
  }, opts)
  local sheriff = sheriffs:spawn { start = "start_of_day", x = 20, y = 1 }
  return world, bandit, sheriff, sheriffs
end

local function cheb(a, b)
  local ax, ay = a:position()
  local bx, by = b:position()
  return math.max(math.abs(ax - bx), math.abs(ay - by))
end

-- Runs frames of 0.25 s (80 at most) until the sheriff's `arrived`: its distance to
-- the bandit then, or nil when it never arrives.
local function distance_at_arrival(world, sheriff, bandit)
  for _ = 1, 80 do
    world:update(0.25)
    for ev in world:events() do
      if ev.agent == sheriff and ev.kind == "arrived" then return cheb(sheriff, bandit) end
    end
  end
end

describe("at = { agent = handle }", function()
  it("walks to an agent that moves, re-targeting, and arrives within reach", function()
    for _, reach in ipairs { 0, 1, 3 } do
      local world, bandit, sheriff = chase_town(function(b) return { agent = b, reach = reach } end)
      local arrived, bandit_at_start
      for f = 1, 80 do
        world:update(0.25)
        assert.is_false(world:grid():is_blocked(sheriff:position()))
        for ev in world:events() do
          if ev.agent == sheriff and ev.kind == "waiting" then bandit_at_start = { bandit:position() } end
          if ev.agent == sheriff and ev.kind == "arrived" then
            arrived = f
            assert.is_true(cheb(sheriff, bandit) <= reach, "reach " .. reach)
          end
        end
        if arrived then break end
      end
      assert.is_truthy(arrived)
      -- the bandit walked on meanwhile: the sheriff went where it was, not where it had been
      local bx = bandit:position()
      assert.is_true(bx - bandit_at_start[1] > 2)
    end
  end)

  it("fails the step with target_gone when the target is despawned mid-walk, and replans", function()
    local world, bandit, sheriff = chase_town(function(b) return { agent = b } end)
    support.run(world, sheriff, 3, 0.25)
    assert.equal("walking", sheriff:inspect().phase)
    bandit:despawn()
    assert.equal("step_failed:buy_food/target_gone | replanned/step_failed step_started:buy_food "
                 .. "waiting:buy_food | step_failed:buy_food/target_gone",
                 support.run(world, sheriff, 3, 0.25))
    assert.equal("target_gone", sheriff:inspect().last_reason)
  end)

  it("fails with target_gone when an at function names a despawned agent", function()
    local dead
    local world, bandit, sheriff = chase_town(function(b)
      dead = b
      return function() return dead end
    end)
    bandit:despawn()
    assert.equal("goal_chosen planned step_started:buy_food waiting:buy_food | "
                 .. "step_failed:buy_food/target_gone", support.run(world, sheriff, 2, 0.25))
    assert.equal("target_gone", sheriff:inspect().last_reason)
  end)

  it("goes to the agent an at function returns, with the reach it returns", function()
    local world, bandit, sheriff = chase_town(function() return function(a) return a.data.prey, 2 end end)
    sheriff.data.prey = bandit
    local d = distance_at_arrival(world, sheriff, bandit)
    assert.is_true(d ~= nil and d <= 2)
  end)

  it("works without a grid (straight toward the agent)", function()
    local world, bandit, sheriff = chase_town(function(b) return { agent = b } end, nil, false)
    local d = distance_at_arrival(world, sheriff, bandit)
    assert.is_true(d ~= nil and d <= 1)
  end)

  it("fails as unreachable when no way leads to the agent", function()
    local grid = saspu.grid_from_ascii("...#....\n...#....\n...#....\n")
    local world = saspu.world { grid = grid }
    local other = world:crowd(support.citizen(), {}, {})
    local prey = other:spawn { start = "start_of_day", x = 8, y = 2 }
    local crowd = world:crowd(support.citizen(), {
      actions = { buy_food = { at = { agent = prey } } }, goals = { { "work" } },
    })
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    local trace = support.run(world, a, 3, 0.25)
    assert.matches("step_failed:buy_food/unreachable", trace, 1, true)
  end)

  it("in engine mode, moves to the agent's cell", function()
    local world, bandit, sheriff = chase_town(function(b) return { agent = b } end,
                                              { movement = "engine" })
    local move
    for _ = 1, 3 do
      world:update(0.25)
      for ev in world:events() do
        if ev.agent == sheriff and ev.kind == "move" then
          move = { ev.x, ev.y }
          assert.same({ bandit:position() }, move)
        end
      end
    end
    assert.is_truthy(move)
  end)

  it("refuses a handle of another world, a despawned one, a bad reach or not a handle", function()
    local other_world = saspu.world {}
    local stranger = other_world:crowd(support.citizen(), {}):spawn { start = "start_of_day" }
    local world = saspu.world {}
    local local_crowd = world:crowd(support.citizen(), {})
    local mine = local_crowd:spawn { start = "start_of_day" }
    local function crowd_with(at)
      return function()
        world:crowd(support.citizen(), { actions = { buy_food = { at = at } } })
      end
    end
    assert.error_matches(crowd_with { agent = stranger },
                         "behaviour.actions.buy_food.at.agent: a handle of another world", 1, true)
    assert.error_matches(crowd_with { agent = mine, reach = -1 },
                         "behaviour.actions.buy_food.at.reach: expected an integer in 0..65534", 1, true)
    assert.error_matches(crowd_with { agent = "bandit" },
                         "behaviour.actions.buy_food.at.agent: expected a saspu.Agent, got string", 1, true)
    assert.error_matches(crowd_with { agent = mine, kind = "x" },
                         "behaviour.actions.buy_food.at: unknown field 'kind'", 1, true)
    mine:despawn()
    assert.error_matches(crowd_with { agent = mine },
                         "behaviour.actions.buy_food.at.agent: the agent was despawned", 1, true)
  end)

  it("fails the step naming the call when an at function returns a handle of another world", function()
    local other_world = saspu.world {}
    local stranger = other_world:crowd(support.citizen(), {}):spawn { start = "start_of_day" }
    local world = saspu.world {}
    local crowd = world:crowd(support.citizen(), {
      actions = { buy_food = { at = function() return stranger end } }, goals = { { "work" } },
    })
    local a = crowd:spawn { start = "start_of_day" }
    local reason
    for _ = 1, 3 do
      world:update(0.25)
      for ev in world:events() do
        if ev.agent == a and ev.kind == "step_failed" then reason = reason or ev.reason end
      end
    end
    assert.matches("buy_food at: .*a handle of another world", reason)
  end)
end)
