-- spec/perception_spec.lua: crowd:near and world:near (the crowds' spatial index) against a brute-force scan of every agent's cell, on random crowds that walk.
local saspu = require "saspu"

local scatter = require "support.scatter"
local rng, cheb = scatter.rng, scatter.cheb

-- The brute-force answer: indices of agents within r, nearest first, by index.
local function brute(crowd, x, y, r, max, handles)
  local hits = {}
  if handles then -- some despawned: only the live ones count
    for _, h in ipairs(handles) do
      if h:alive() then
        local ax, ay = h:position()
        local d = cheb(ax, ay, x, y)
        if d <= r then hits[#hits + 1] = { d, h:index() } end
      end
    end
  else
    for i = 1, crowd:size() do
      local ax, ay = crowd:position(i)
      local d = cheb(ax, ay, x, y)
      if d <= r then hits[#hits + 1] = { d, i } end
    end
  end
  table.sort(hits, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  local out = {}
  for k = 1, (max and max > 0) and math.min(max, #hits) or #hits do out[k] = hits[k][2] end
  return out
end

-- A walled world of w x h with three places and a crowd of n citizens spread at random.
local function walking_world(seed, n, w, h, opts)
  local rand = rng(seed)
  local g = saspu.grid(w, h)
  for _ = 1, math.floor(w * h / 12) do g:set_blocked(rand(1, w), rand(1, h), true) end
  local spots = {}
  for k = 1, 3 do
    local x, y = scatter.open_cell(rand, w, h, g)
    spots[k] = { name = "p" .. k, kind = "market", x = x, y = y }
  end
  local world = saspu.world { grid = g, places = spots, threads = opts and opts.threads }
  local dom = saspu.domain_file("domains/citizen.lua")
  local crowd = world:crowd(dom, {
    actions = { buy_food = { duration = { 0.5, 2 }, at = { kind = "market" } },
                work = { duration = 1, at = "p2" }, buy_drink = { duration = 1, at = "p3" } },
    goals = { { "have_a_meal", priority = 2 }, { { thirst = "hydrated" }, priority = 1 } },
  }, { capacity = n + 100, seed = seed, speed = 6 })
  scatter.spawn(crowd, n, "start_of_day", rand, w, h, g)
  return world, crowd, rand
end

describe("crowd:near", function()
  it("returns the agents within r (Chebyshev) nearest first, as a scan of every agent does, after walks", function()
    for seed = 1, 4 do
      local world, crowd, rand = walking_world(seed, 150 + 40 * seed, 40, 30)
      local out, moved = {}, 0
      local before = {}
      for i = 1, crowd:size() do before[i] = { crowd:position(i) } end
      for frame = 1, 12 do
        world:update(0.4)
        for q = 1, 40 do
          local x, y, r = rand(-3, 44), rand(-3, 34), rand(0, 14)
          local max = (q % 3 == 0) and rand(1, 6) or nil
          local n = crowd:near(x, y, r, out, max)
          local want = brute(crowd, x, y, r, max)
          assert.equal(#want, n, string.format("seed %d frame %d (%d, %d) r %d", seed, frame, x, y, r))
          for k = 1, n do assert.equal(want[k], out[k]) end
          assert.is_nil(out[n + 1])
        end
      end
      for i = 1, crowd:size() do
        local x, y = crowd:position(i)
        if x ~= before[i][1] or y ~= before[i][2] then moved = moved + 1 end
      end
      assert.is_true(moved > crowd:size() / 4, "the agents walked")
    end
  end)

  it("follows teleports, despawns and spawns into freed slots", function()
    local world, crowd, rand = walking_world(21, 200, 30, 24)
    local g = world:grid()
    local handles, out = {}, {}
    for i = 1, crowd:size() do handles[i] = crowd:agent(i) end
    local function open_cell() return scatter.open_cell(rand, 30, 24, g) end
    for frame = 1, 10 do
      world:update(0.3)
      for _ = 1, 15 do
        local h = handles[rand(1, #handles)]
        if h:alive() then
          if rand(1, 3) == 1 then h:despawn() else h:teleport(open_cell()) end
        end
      end
      for _ = 1, 6 do
        local x, y = open_cell()
        handles[#handles + 1] = crowd:spawn { start = "start_of_day", x = x, y = y }
      end
      for _ = 1, 25 do
        local x, y, r = rand(1, 30), rand(1, 24), rand(0, 10)
        local max = frame % 2 == 0 and rand(1, 8) or 0
        local n = crowd:near(x, y, r, out, max)
        local want = brute(crowd, x, y, r, max, handles)
        assert.equal(#want, n, string.format("frame %d (%d, %d) r %d", frame, x, y, r))
        for k = 1, n do assert.equal(want[k], out[k]) end
      end
    end
    local gone = 0
    for _, h in ipairs(handles) do gone = gone + (h:alive() and 0 or 1) end
    assert.is_true(gone > 10, "some agents were despawned")
  end)

  it("answers at once after each single move, with no update between, and in long runs of queries", function()
    -- a crowd piled on a few cells (ties everywhere) and walking: one move, then from one
    -- to nine queries before the next, or twenty (more than a stale index answers by a pass
    -- over the keys): the answers come from the stale keys and from buckets built after it
    local world, crowd, rand = walking_world(17, 300, 24, 20)
    local g = world:grid()
    for _ = 1, 100 do
      local x, y
      repeat x, y = rand(9, 14), rand(9, 13) until not g:is_blocked(x, y)
      crowd:spawn { start = "start_of_day", x = x, y = y }
    end
    local out, handles = {}, {}
    for i = 1, crowd:size() do handles[i] = crowd:agent(i) end
    for frame = 1, 4 do
      world:update(0.5)
      for move = 1, 30 do
        local h = handles[rand(1, #handles)]
        if h:alive() then
          if move % 6 == 0 then h:despawn() else h:teleport(scatter.open_cell(rand, 24, 20, g)) end
        end
        for _ = 1, move % 5 == 0 and 20 or rand(1, 9) do
          local x, y, r = rand(6, 16), rand(6, 16), rand(0, 12)
          local max = rand(0, 3) * rand(1, 40)
          local n = crowd:near(x, y, r, out, max)
          local want = brute(crowd, x, y, r, max, handles)
          assert.equal(#want, n, string.format("frame %d move %d (%d, %d) r %d max %d", frame, move, x, y, r, max))
          for k = 1, n do assert.equal(want[k], out[k]) end
        end
      end
    end
  end)

  it("answers the same on a world with two threads", function()
    local world, crowd, rand = walking_world(9, 3000, 64, 64, { threads = 2 })
    local out = {}
    for _ = 1, 6 do
      world:update(0.5)
      for _ = 1, 20 do
        local x, y, r = rand(1, 64), rand(1, 64), rand(0, 20)
        local n = crowd:near(x, y, r, out, 0)
        local want = brute(crowd, x, y, r)
        assert.equal(#want, n)
        for k = 1, n do assert.equal(want[k], out[k]) end
      end
    end
  end)

  it("works without a grid, on far cells", function()
    local world = saspu.world {}
    local dom = saspu.domain_file("domains/citizen.lua")
    local crowd = world:crowd(dom, {})
    local rand = rng(5)
    scatter.spawn(crowd, 300, "start_of_day", rand, 60000, 50)
    crowd:spawn { start = "start_of_day", x = 65000, y = 65000 }
    local out = {}
    for _ = 1, 50 do
      local x, y, r = rand(1, 65535), rand(1, 60), rand(0, 3000)
      local n = crowd:near(x, y, r, out)
      local want = brute(crowd, x, y, r)
      assert.equal(#want, n)
      for k = 1, n do assert.equal(want[k], out[k]) end
    end
    assert.equal(1, crowd:near(65000, 65000, 0, out))
    assert.equal(crowd:size(), out[1])
  end)

  it("sees agents spawned after the first query", function()
    local world = saspu.world { grid = saspu.grid(10, 10) }
    local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {})
    local out = {}
    assert.equal(0, crowd:near(5, 5, 3, out))
    crowd:spawn { start = "start_of_day", x = 6, y = 7 }
    assert.equal(1, crowd:near(5, 5, 3, out))
    assert.equal(0, crowd:near(5, 5, 1, out))
  end)

  it("refuses a radius that is negative or not a number, and a bad max", function()
    local world = saspu.world { grid = saspu.grid(10, 10) }
    local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {})
    assert.error_matches(function() crowd:near(1, 1, -1, {}) end, "r (argument #3) must be a number >= 0, got -1", 1, true)
    assert.error_matches(function() crowd:near(1, 1, "far", {}) end, "r (argument #3) must be a number >= 0, got string", 1, true)
    assert.error_matches(function() crowd:near(1, 1, 0 / 0, {}) end, "r (argument #3) must be a number >= 0", 1, true)
    assert.error_matches(function() crowd:near(1, 1, 2, nil) end, "out (argument #4) must be a table, got nil", 1, true)
    assert.error_matches(function() crowd:near(1, 1, 2, {}, -1) end, "max (argument #5) must be an integer >= 0", 1, true)
    assert.error_matches(function() crowd:near(1.5, 1, 2, {}) end, "x (argument #1) must be an integer", 1, true)
  end)
end)

describe("world:near", function()
  it("merges the crowds: handles nearest first, crowds in creation order among equals", function()
    local world, first, rand = walking_world(3, 120, 30, 30)
    local second = world:crowd(saspu.domain_file("domains/citizen.lua"), {
      actions = { buy_food = { duration = 1, at = { kind = "market" } } }, goals = { { "have_a_meal" } } })
    scatter.spawn(second, 80, "start_of_day", rand, 30, 30, world:grid())
    for _ = 1, 5 do
      world:update(0.5)
      for _ = 1, 20 do
        local x, y, r = rand(1, 30), rand(1, 30), rand(0, 9)
        local want = scatter.near_answer({ first, second }, x, y, r)
        local got = world:near(x, y, r)
        assert.equal(#want, #got)
        for k, h in ipairs(got) do
          assert.equal(want[k][4], h:crowd())
          assert.equal(want[k][3], h:index())
        end
        local only = world:near(x, y, r, second)
        for _, h in ipairs(only) do assert.equal(second, h:crowd()) end
      end
    end
  end)

  it("refuses bad input, naming the call", function()
    local world = saspu.world { grid = saspu.grid(5, 5) }
    local other = saspu.world { grid = saspu.grid(5, 5) }
    local stranger = other:crowd(saspu.domain_file("domains/citizen.lua"), {})
    assert.error_matches(function() world:near(1, 1, -2) end, "saspu.World:near: r must be a number >= 0, got -2", 1, true)
    assert.error_matches(function() world:near(1, 1, "x") end, "saspu.World:near: r must be a number >= 0", 1, true)
    assert.error_matches(function() world:near(1, nil, 1) end, "saspu.World:near: x and y must be integers", 1, true)
    assert.error_matches(function() world:near(1, 1, 1, stranger) end, "saspu.World:near: crowd is not a crowd of this world", 1, true)
  end)
end)
