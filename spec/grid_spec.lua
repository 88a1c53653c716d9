-- spec/grid_spec.lua: saspu.grid: building cost grids, Dijkstra and A* paths, argument errors, stats and lifetime.
local saspu = require "saspu"
local compat = require "support.compat"

local sqrt2 = math.sqrt(2)

-- A road loops around a field of open ground: from the top-left corner to the
-- bottom-left one, walking straight down the field (cost 7) beats the road
-- (3 + 3 + 2 + 2 * sqrt(2) = 10.83); to the bottom-right corner the road wins.
local FIELD = table.concat({
  "=====",
  "....=",
  "....=",
  "....=",
  "=====",
}, "\n")

-- Cells of a path table as "x,y x,y ..." for readable failures.
local function cells(path)
  local parts = {}
  for i, c in ipairs(path) do parts[i] = c[1] .. "," .. c[2] end
  return table.concat(parts, " ")
end

-- The cost of one move by the grid's rule, or nil when the move is illegal.
local function move_cost(g, x, y, nx, ny, corner_cutting)
  if nx < 1 or ny < 1 or nx > g:width() or ny > g:height() or g:is_blocked(nx, ny) then
    return nil
  end
  local c = (g:cost(x, y) + g:cost(nx, ny)) / 2
  if x ~= nx and y ~= ny then
    if not corner_cutting and (g:is_blocked(nx, y) or g:is_blocked(x, ny)) then
      return nil
    end
    c = c * sqrt2
  end
  return c
end

-- Shortest-path costs from (x0, y0) by Bellman-Ford: slow, obviously right.
local function brute_force(g, x0, y0, corner_cutting)
  local w, h = g:width(), g:height()
  local dist = {}
  for i = 1, w * h do dist[i] = math.huge end
  dist[(y0 - 1) * w + x0] = 0
  local changed = true
  while changed do
    changed = false
    for y = 1, h do
      for x = 1, w do
        local d = dist[(y - 1) * w + x]
        if d < math.huge and not g:is_blocked(x, y) then
          for dy = -1, 1 do
            for dx = -1, 1 do
              if dx ~= 0 or dy ~= 0 then
                local c = move_cost(g, x, y, x + dx, y + dy, corner_cutting)
                local k = (y + dy - 1) * w + x + dx
                if c and d + c < dist[k] - 1e-9 then
                  dist[k] = d + c
                  changed = true
                end
              end
            end
          end
        end
      end
    end
  end
  return function(x, y) return dist[(y - 1) * w + x] end
end

-- Checks that `path` is a legal walk from (x0, y0) to (x1, y1) costing `cost`.
local function assert_walk(g, path, cost, x0, y0, x1, y1, corner_cutting)
  assert.same({ x0, y0 }, path[1])
  assert.same({ x1, y1 }, path[#path])
  local sum = 0
  for i = 2, #path do
    local a, b = path[i - 1], path[i]
    assert.is_true(math.abs(a[1] - b[1]) <= 1 and math.abs(a[2] - b[2]) <= 1
                   and (a[1] ~= b[1] or a[2] ~= b[2]), "not a move: " .. cells(path))
    local c = move_cost(g, a[1], a[2], b[1], b[2], corner_cutting)
    assert.is_truthy(c, "illegal move in " .. cells(path))
    sum = sum + c
  end
  assert.near(sum, cost, 1e-9)
end

describe("saspu.grid", function()
  it("makes a grid of open cells with the given cost", function()
    local g = saspu.grid(4, 3, 2.5)
    assert.equal(4, g:width())
    assert.equal(3, g:height())
    assert.equal(2.5, g:cost(4, 3))
    assert.is_false(g:is_blocked(1, 1))
  end)

  it("defaults the cost to 1", function()
    assert.equal(1, saspu.grid(2, 2):cost(2, 2))
  end)

  it("refuses bad sizes and costs, naming the argument", function()
    assert.error_matches(function() return saspu.grid(0, 3) end,
                         "bad argument #1 to", 1, true)
    assert.error_matches(function() return saspu.grid(0, 3) end,
                         "(w = 0 is outside 1..32768)", 1, true)
    assert.error_matches(function() return saspu.grid(3, 40000) end,
                         "(h = 40000 is outside 1..32768)", 1, true)
    assert.error_matches(function() return saspu.grid(30000, 30000) end,
                         "(a 30000x30000 grid has more than 67108864 cells)", 1, true)
    assert.error_matches(function() return saspu.grid(3, 3, 0) end,
                         "bad argument #3 to", 1, true)
    assert.error_matches(function() return saspu.grid(3, 3, -1) end,
                         "(cost -1 is out of range: a cost is a number in [0.001, 1e+06])", 1, true)
    assert.error_matches(function() return saspu.grid(3, 3, 0 / 0) end,
                         "is out of range", 1, true)
    assert.error_matches(function() return saspu.grid(2.5, 3) end,
                         "number has no integer representation", 1, true)
  end)
end)

describe("saspu.grid_from_ascii", function()
  it("reads the legend: '#' blocked, '.' cost 2, '=' cost 1, digits their cost", function()
    local g = saspu.grid_from_ascii("#.=\n159\n")
    assert.equal(3, g:width())
    assert.equal(2, g:height())
    assert.is_true(g:is_blocked(1, 1))
    assert.same({ 2, 1, 1, 5, 9 }, { g:cost(2, 1), g:cost(3, 1), g:cost(1, 2), g:cost(2, 2),
                                    g:cost(3, 2) })
    assert.is_false(g:is_blocked(3, 2))
  end)

  it("accepts CRLF line endings and no final line ending", function()
    local g = saspu.grid_from_ascii("..\r\n.#")
    assert.equal(2, g:height())
    assert.is_true(g:is_blocked(2, 2))
  end)

  it("names the line and column of a character outside the legend", function()
    assert.error_matches(function() return saspu.grid_from_ascii("..\n.x\n") end,
                         "line 2, column 2: unknown character 'x'", 1, true)
  end)

  it("refuses ragged rows and empty pictures", function()
    assert.error_matches(function() return saspu.grid_from_ascii("..\n...\n") end,
                         "line 2 has 3 cells but line 1 has 2", 1, true)
    assert.error_matches(function() return saspu.grid_from_ascii("") end,
                         "the picture has no cells", 1, true)
    assert.error_matches(function() return saspu.grid_from_ascii({}) end,
                         "bad argument #1 to", 1, true)
  end)
end)

describe("saspu.Grid setters", function()
  it("set_cost changes one cell and keeps a blocked cell blocked", function()
    local g = saspu.grid(3, 3)
    g:set_cost(2, 3, 1.5)
    assert.equal(1.5, g:cost(2, 3))
    g:set_blocked(2, 3, true)
    g:set_cost(2, 3, 4)
    assert.is_true(g:is_blocked(2, 3))
    g:set_blocked(2, 3, false)
    assert.is_false(g:is_blocked(2, 3))
    assert.equal(4, g:cost(2, 3))
  end)

  it("fill_cost and fill_blocked paint rectangles", function()
    local g = saspu.grid(4, 4)
    g:fill_cost(2, 2, 3, 2, 7)
    g:fill_blocked(1, 4, 4, 1, true)
    g:fill_cost(1, 1, 0, 0, 9) -- empty: a no-op
    assert.same({ 1, 7, 7, 7, 1 }, { g:cost(1, 2), g:cost(2, 2), g:cost(4, 2), g:cost(4, 3),
                                    g:cost(2, 4) })
    assert.same({ false, true, true }, { g:is_blocked(4, 3), g:is_blocked(1, 4),
                                         g:is_blocked(4, 4) })
  end)

  it("set_costs reads w*h entries row by row, 0 and false blocking", function()
    local g = saspu.grid(4, 3)
    g:set_costs(2, 2, 3, 2, { 1, 0, 3,
                              false, 5, 6 })
    assert.same({ 1, 3, 5, 6 }, { g:cost(2, 2), g:cost(4, 2), g:cost(3, 3), g:cost(4, 3) })
    assert.is_true(g:is_blocked(3, 2))
    assert.is_true(g:is_blocked(2, 3))
    assert.is_false(g:is_blocked(1, 3))
  end)

  it("set_costs checks every entry before changing anything", function()
    local g = saspu.grid(2, 2)
    assert.error_matches(function() g:set_costs(1, 1, 2, 2, { 5, 5, 5 }) end,
                         "bad argument #5 to 'set_costs' (values has 3 entries, expected w*h = 4)",
                         1, true)
    assert.error_matches(function() g:set_costs(1, 1, 2, 2, { 5, 5, -3, 5 }) end,
                         "(values[3] (cell (1, 2)): cost -3 is out of range", 1, true)
    assert.error_matches(function() g:set_costs(1, 1, 2, 2, { 5, 5, true, 5 }) end,
                         "(values[3] (cell (1, 2)): expected a cost, or 0 or false for blocked, got true)",
                         1, true)
    assert.equal(1, g:cost(1, 1))
  end)

  it("set_map paints a picture at a corner", function()
    local g = saspu.grid(4, 4, 5)
    g:set_map(2, 3, "#=\n.9")
    assert.is_true(g:is_blocked(2, 3))
    assert.same({ 5, 1, 2, 9 }, { g:cost(2, 3), g:cost(3, 3), g:cost(2, 4), g:cost(3, 4) })
    assert.error_matches(function() g:set_map(3, 3, "...\n...") end,
                         "bad argument #3 to 'set_map' (picture at (3, 3) of size 3x2 does not fit in the 4x4 grid)",
                         1, true)
    assert.error_matches(function() g:set_map(1, 1, "?") end,
                         "unknown character '?'", 1, true)
  end)

  describe("bad arguments", function()
    local g = saspu.grid(8, 6)
    -- no `return g:...()`: LuaJIT loses the name and self of a C function
    -- called in tail position ("bad argument #2 to '?'")
    local cases = {
      { "x = 0", function() g:set_cost(0, 1, 1) end,
        "bad argument #1 to 'set_cost' (x = 0 is outside 1..8)" },
      { "y past the height", function() g:set_cost(1, 7, 1) end,
        "bad argument #2 to 'set_cost' (y = 7 is outside 1..6)" },
      { "a zero cost", function() g:set_cost(1, 1, 0) end,
        "bad argument #3 to 'set_cost' (cost 0 is out of range: a cost is a number in [0.001, 1e+06])" },
      { "a cost too large", function() g:fill_cost(1, 1, 2, 2, 2e6) end,
        "bad argument #5 to 'fill_cost' (cost 2e+06 is out of range" },
      { "a string cost", function() g:set_cost(1, 1, "cheap") end,
        "bad argument #3 to 'set_cost' (number expected, got string)" },
      { "a missing blocked flag", function() g:set_blocked(1, 1) end,
        "bad argument #3 to 'set_blocked' (boolean expected, got no value)" },
      { "a rectangle too wide", function() g:fill_blocked(6, 1, 4, 1, true) end,
        "bad argument #3 to 'fill_blocked' (w = 4 does not fit: from x = 6 the grid has room for 0..3)" },
      { "a rectangle too tall", function() g:fill_cost(1, 2, 1, 9, 2) end,
        "bad argument #4 to 'fill_cost' (h = 9 does not fit: from y = 2 the grid has room for 0..5)" },
      { "a negative size", function() g:fill_cost(1, 1, -1, 1, 2) end,
        "(w = -1 does not fit" },
      { "a getter outside", function() g:cost(9, 1) end,
        "bad argument #1 to 'cost' (x = 9 is outside 1..8)" },
      { "is_blocked outside", function() g:is_blocked(1, 0) end,
        "bad argument #2 to 'is_blocked' (y = 0 is outside 1..6)" },
      { "a start outside", function() g:path(0, 1, 2, 2) end,
        "bad argument #1 to 'path' (x0 = 0 is outside 1..8)" },
      { "a target outside", function() g:path(1, 1, 2, 7) end,
        "bad argument #4 to 'path' (y1 = 7 is outside 1..6)" },
      { "a target outside, path_into", function() g:path_into({}, 1, 1, 9, 2) end,
        "bad argument #4 to 'path_into' (x1 = 9 is outside 1..8)" },
      { "no out table", function() g:path_into(nil, 1, 1, 2, 2) end,
        "bad argument #1 to 'path_into' (table expected, got nil)" },
      { "an unknown algorithm", function() g:path(1, 1, 2, 2, { algorithm = "bfs" }) end,
        "bad argument #5 to 'path' (algorithm: expected 'astar' or 'dijkstra', got 'bfs')" },
      { "a misspelt option", function() g:path(1, 1, 2, 2, { algoritm = "astar" }) end,
        "(unknown option 'algoritm' (expected algorithm, corner_cutting))" },
      { "a non-boolean corner_cutting", function() g:path(1, 1, 2, 2, { corner_cutting = 1 }) end,
        "(corner_cutting: expected a boolean, got number)" },
      { "options that are not a table", function() g:path(1, 1, 2, 2, "astar") end,
        "bad argument #5 to 'path' (table expected, got string)" },
      { "not a grid", function() g.path({}, 1, 1, 2, 2) end,
        "saspu.Grid expected, got table" },
    }
    for _, case in ipairs(cases) do
      it("raises on " .. case[1], function()
        assert.error_matches(case[2], case[3], 1, true)
      end)
    end
  end)
end)

describe("saspu.Grid:path", function()
  it("walks the diagonal of an open grid", function()
    local path, cost = saspu.grid(3, 3):path(1, 1, 3, 3)
    assert.same({ { 1, 1 }, { 2, 2 }, { 3, 3 } }, path)
    assert.near(2 * sqrt2, cost, 1e-12)
  end)

  it("charges half of each crossed cell", function()
    local g = saspu.grid(5, 1)
    g:set_cost(3, 1, 5)
    local path, cost = g:path(1, 1, 5, 1)
    assert.equal(5, #path)
    assert.equal(1 + 3 + 3 + 1, cost)
  end)

  it("returns the start alone at cost 0 when start is the target", function()
    local path, cost = saspu.grid(4, 4):path(2, 3, 2, 3)
    assert.same({ { 2, 3 } }, path)
    assert.equal(0, cost)
  end)

  it("cuts across open ground when that beats the road", function()
    local g = saspu.grid_from_ascii(FIELD)
    for _, algorithm in ipairs({ "astar", "dijkstra" }) do
      local path, cost = g:path(1, 1, 1, 5, { algorithm = algorithm })
      assert.same({ { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 1, 5 } }, path)
      assert.near(1.5 + 2 + 2 + 1.5, cost, 1e-12)
    end
  end)

  it("follows the road when that is cheaper", function()
    local g = saspu.grid_from_ascii(FIELD)
    for _, algorithm in ipairs({ "astar", "dijkstra" }) do
      local path, cost = g:path(1, 1, 5, 5, { algorithm = algorithm })
      assert.equal("1,1 2,1 3,1 4,1 5,2 5,3 5,4 5,5", cells(path))
      assert.near(6 + sqrt2, cost, 1e-12)
    end
  end)

  it("goes around a wall", function()
    local g = saspu.grid_from_ascii(table.concat({
      "1111",
      "1##1",
      "1111",
    }, "\n"))
    -- around the left end: the diagonals would clip the wall's corners
    local path, cost = g:path(2, 1, 2, 3)
    assert.equal("2,1 1,1 1,2 1,3 2,3", cells(path))
    assert.equal(4, cost)
    assert_walk(g, path, cost, 2, 1, 2, 3)
    path, cost = g:path(2, 1, 2, 3, { corner_cutting = true })
    assert.equal(3, #path)
    assert.near(2 * sqrt2, cost, 1e-12)
    assert_walk(g, path, cost, 2, 1, 2, 3, true)
  end)

  it("does not cut corners by default, and does with corner_cutting", function()
    local g = saspu.grid_from_ascii("..\n#.")
    local path, cost = g:path(1, 1, 2, 2)
    assert.same({ { 1, 1 }, { 2, 1 }, { 2, 2 } }, path)
    assert.equal(4, cost)
    path, cost = g:path(1, 1, 2, 2, { corner_cutting = true })
    assert.same({ { 1, 1 }, { 2, 2 } }, path)
    assert.near(2 * sqrt2, cost, 1e-12)
    path = g:path(1, 1, 2, 2, { corner_cutting = false, algorithm = "dijkstra" })
    assert.equal(3, #path)
  end)

  it("slips between two diagonal walls only with corner_cutting", function()
    local g = saspu.grid_from_ascii(".#\n#.")
    local path, reason, code = g:path(1, 1, 2, 2)
    assert.is_nil(path)
    assert.equal("no path from (1, 1) to (2, 2): the target is unreachable", reason)
    assert.equal("unreachable", code)
    assert.equal(2, #g:path(1, 1, 2, 2, { corner_cutting = true }))
  end)

  it("returns nil and a reason for an unreachable target", function()
    local g = saspu.grid(5, 5)
    g:fill_blocked(3, 1, 1, 5, true)
    for _, algorithm in ipairs({ "astar", "dijkstra" }) do
      local path, reason, code = g:path(1, 1, 5, 5, { algorithm = algorithm })
      assert.is_nil(path)
      assert.equal("no path from (1, 1) to (5, 5): the target is unreachable", reason)
      assert.equal("unreachable", code)
    end
    g:set_blocked(3, 5, false)
    assert.is_not_nil(g:path(1, 1, 5, 5))
  end)

  it("returns nil and a reason for a blocked start or target", function()
    local g = saspu.grid(4, 4)
    g:set_blocked(4, 4, true)
    local path, reason, code = g:path(1, 1, 4, 4)
    assert.is_nil(path)
    assert.equal("target (4, 4) is blocked", reason)
    assert.equal("blocked", code)
    path, reason = g:path(4, 4, 1, 1)
    assert.is_nil(path)
    assert.equal("start (4, 4) is blocked", reason)
  end)

  it("sees changes made between searches", function()
    local g = saspu.grid(3, 1)
    assert.equal(2, select(2, g:path(1, 1, 3, 1)))
    g:set_cost(2, 1, 3)
    assert.equal(4, select(2, g:path(1, 1, 3, 1)))
    g:set_blocked(2, 1, true)
    assert.is_nil(g:path(1, 1, 3, 1))
  end)

  it("finds the brute-force cost with both algorithms on random grids", function()
    math.randomseed(20240501)
    for round = 1, 60 do
      local w, h = math.random(1, 7), math.random(1, 7)
      local g = saspu.grid(w, h)
      for y = 1, h do
        for x = 1, w do
          if math.random() < 0.25 then
            g:set_blocked(x, y, true)
          else
            g:set_cost(x, y, math.random(1, 9) * (math.random() < 0.5 and 1 or 0.5))
          end
        end
      end
      local corner_cutting = round % 3 == 0
      local x0, y0 = math.random(1, w), math.random(1, h)
      g:set_blocked(x0, y0, false)
      local dist = brute_force(g, x0, y0, corner_cutting)
      for y1 = 1, h do
        for x1 = 1, w do
          local expected = dist(x1, y1)
          local astar, dijkstra = {}, {}
          local pa, ca = g:path(x0, y0, x1, y1, { corner_cutting = corner_cutting })
          g:last_stats(astar)
          local pd, cd = g:path(x0, y0, x1, y1, { algorithm = "dijkstra",
                                                  corner_cutting = corner_cutting })
          g:last_stats(dijkstra)
          if expected == math.huge then
            assert.is_nil(pa)
            assert.is_nil(pd)
          else
            assert.near(expected, ca, 1e-9)
            assert.near(expected, cd, 1e-9)
            assert_walk(g, pa, ca, x0, y0, x1, y1, corner_cutting)
            assert_walk(g, pd, cd, x0, y0, x1, y1, corner_cutting)
            assert.is_true(astar.expanded <= dijkstra.expanded)
          end
        end
      end
    end
  end)
end)

describe("saspu.Grid:path_into", function()
  it("fills the table flat with x, y pairs and returns the count and cost", function()
    local g = saspu.grid_from_ascii(FIELD)
    local out = {}
    local n, cost = g:path_into(out, 1, 1, 1, 5)
    assert.equal(5, n)
    assert.near(7, cost, 1e-12)
    assert.same({ 1, 1, 1, 2, 1, 3, 1, 4, 1, 5 }, out)
  end)

  it("clears what a longer earlier path left", function()
    local g = saspu.grid(6, 1)
    local out = {}
    g:path_into(out, 1, 1, 6, 1)
    assert.equal(12, #out)
    assert.equal(2, g:path_into(out, 3, 1, 4, 1))
    assert.same({ 3, 1, 4, 1 }, out)
  end)

  it("empties the table and returns nil, reason, code on failure", function()
    local g = saspu.grid(3, 3)
    local out = {}
    g:path_into(out, 1, 1, 3, 3)
    g:set_blocked(3, 3, true)
    local n, reason, code = g:path_into(out, 1, 1, 3, 3)
    assert.is_nil(n)
    assert.equal("target (3, 3) is blocked", reason)
    assert.equal("blocked", code)
    assert.same({}, out)
  end)

  it("agrees with g:path", function()
    local g = saspu.grid_from_ascii(FIELD)
    local out = {}
    local path, cost = g:path(1, 1, 5, 5, { algorithm = "dijkstra" })
    local n, cost2 = g:path_into(out, 1, 1, 5, 5, { algorithm = "dijkstra" })
    assert.equal(#path, n)
    assert.equal(cost, cost2)
    for i = 1, n do
      assert.same(path[i], { out[2 * i - 1], out[2 * i] })
    end
  end)

  it("allocates nothing per call with reused tables", function()
    local g = saspu.grid(64, 64)
    g:fill_blocked(20, 1, 2, 60, true)
    g:fill_cost(30, 10, 20, 30, 4)
    local out, stats = {}, {}
    local opts = { algorithm = "astar" }
    local targets = { { 64, 64 }, { 64, 1 }, { 1, 64 }, { 40, 30 } }
    for _, t in ipairs(targets) do -- warm up: the workspace, the buffer, out
      g:path_into(out, 1, 1, t[1], t[2], opts)
    end
    g:last_stats(stats)
    local grown = compat.heap_growth_kib(function()
      for i = 1, 2000 do
        local t = targets[i % #targets + 1]
        opts.algorithm = i % 2 == 0 and "astar" or "dijkstra"
        local n = g:path_into(out, 1, 1, t[1], t[2], opts)
        assert(n and n > 0)
        g:last_stats(stats)
      end
    end)
    assert.equal(0, grown, "grew by " .. grown .. " KiB")
  end)
end)

describe("saspu.Grid:last_stats", function()
  it("says nothing was searched on a new grid", function()
    local s = saspu.grid(2, 2):last_stats()
    assert.is_false(s.found)
    assert.is_nil(s.algorithm)
    assert.equal(0, s.expanded)
  end)

  it("reports the last search's figures", function()
    local g = saspu.grid(32, 32)
    g:path(1, 1, 32, 32, { algorithm = "dijkstra" })
    local d = g:last_stats()
    g:path(1, 1, 32, 32)
    local a = g:last_stats()
    assert.same({ true, "dijkstra", 32 }, { d.found, d.algorithm, d.length })
    assert.same({ true, "astar", 32 }, { a.found, a.algorithm, a.length })
    assert.near(31 * sqrt2, a.cost, 1e-9)
    assert.is_true(a.expanded < d.expanded, a.expanded .. " vs " .. d.expanded)
    assert.is_true(a.pushed >= a.expanded and a.heap_peak >= 1)
  end)

  it("counts the cells an unreachable search expanded", function()
    local g = saspu.grid(5, 5)
    g:fill_blocked(3, 1, 1, 5, true)
    g:path(1, 1, 5, 5)
    local s = g:last_stats()
    assert.is_false(s.found)
    assert.is_nil(s.cost)
    assert.equal(10, s.expanded) -- every cell left of the wall
  end)
end)

describe("saspu.Grid lifetime", function()
  it("prints its size", function()
    assert.equal("saspu.Grid 128x128", tostring(saspu.grid(128, 128)))
    assert.equal("saspu.Grid 5x5", tostring(saspu.grid_from_ascii(FIELD)))
  end)

  it("reports its memory, workspace included after a search", function()
    local g = saspu.grid(16, 16)
    local fresh = g:memory()
    assert.is_true(fresh >= 16 * 16 * 4)
    g:path(1, 1, 16, 16)
    assert.is_true(g:memory() > fresh)
  end)

  it("closes once; later calls raise and tostring says closed", function()
    local g = saspu.grid(4, 4)
    g:path(1, 1, 4, 4)
    g:close()
    g:close() -- idempotent
    assert.equal("saspu.Grid (closed)", tostring(g))
    assert.error_matches(function() return g:path(1, 1, 2, 2) end, "saspu.Grid is closed", 1, true)
    assert.error_matches(function() return g:width() end, "saspu.Grid is closed", 1, true)
  end)

  local close_it = compat.with_close and it or pending
  close_it("closes a to-be-closed variable at the end of its scope (Lua 5.4)", function()
    local outer
    compat.with_close(function() return saspu.grid(3, 3) end, function(g)
      outer = g
      assert.equal("saspu.Grid 3x3", tostring(outer))
    end)
    assert.equal("saspu.Grid (closed)", tostring(outer))
  end)
end)
