-- bench/bench_engine_sync.lua: 100,000 NPCs the game moves itself (movement = "engine"): the game's own position arithmetic per frame against saspu's share (world:update, reading the moves, the arrived() answers and the position sync), with the sync done by a:teleport, crowd:teleport or one crowd:move_to; then a:teleport against crowd:teleport per call and crowd:move_to's cells a second (medians, one process).
-- Run: lua5.4 bench/bench_engine_sync.lua [agents] [frames] [threads]   (from the repo
-- root, with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
package.path = "bench/support/?.lua;" .. package.path
local lb = require "lua_bench"
lb.paths()
local saspu = require "saspu"

local N = tonumber(arg[1]) or 100000
local FRAMES = tonumber(arg[2]) or 61
local THREADS = tonumber(arg[3]) or 1
local DT = 1 / 60
local SPEED = 4 -- cells a second, the game's own
local W, H = 200, 100
local median, clock = lb.median, os.clock

-- A guard walks between two posts for ever: its next post is the other one.
local dom = saspu.domain {
  name = "bench_guard",
  variables = { { name = "post", values = { "west", "east" } } },
  actions = {
    { name = "go_east", var = "post", pre = "west", post = "east" },
    { name = "go_west", var = "post", pre = "east", post = "west" },
  },
  goals = {},
}

-- One world of n guards; the game's arrays: position (float), target, moving.
local function setup()
  local world = saspu.world { grid = saspu.grid(W, H), threads = THREADS,
                              places = { { name = "west", x = 1, y = H // 2 },
                                         { name = "east", x = W, y = H // 2 } } }
  local crowd = world:crowd(dom, {
    actions = { go_east = { duration = 0.5, at = "east" }, go_west = { duration = 0.5, at = "west" } },
    goals = { { { post = "east" }, when = { post = "west" } }, { { post = "west" }, when = { post = "east" } } },
  }, { capacity = N, movement = "engine", seed = 1 })
  local west, east = dom:encode { post = "west" }, dom:encode { post = "east" }
  local g = { world = world, crowd = crowd, px = {}, py = {}, tx = {}, ty = {}, moving = {},
              handle = {}, ids = {}, xs = {}, ys = {} }
  math.randomseed(7)
  for i = 1, N do
    local x, y = math.random(1, W), math.random(1, H)
    crowd:spawn_packed(i % 2 == 0 and west or east, x, y)
    g.px[i], g.py[i], g.moving[i] = x + 0.5, y + 0.5, false
    g.handle[i] = crowd:agent(i)
  end
  return g
end

-- The game's frame: every moving guard steps SPEED * DT toward its target cell; those
-- that change cell are listed for the sync (ids, xs, ys); those there are listed to
-- answer arrived(). Returns the count changed and the arrivals.
local function arithmetic(g, arrivals)
  local px, py, tx, ty, moving = g.px, g.py, g.tx, g.ty, g.moving
  local ids, xs, ys = g.ids, g.xs, g.ys
  local step, n, na = SPEED * DT, 0, 0
  for i = 1, N do
    if moving[i] then
      local x, y = px[i], py[i]
      local dx, dy = tx[i] + 0.5 - x, ty[i] + 0.5 - y
      local d = math.sqrt(dx * dx + dy * dy)
      local ox, oy = x // 1, y // 1
      if d <= step then
        x, y = tx[i] + 0.5, ty[i] + 0.5
        moving[i] = false
        na = na + 1
        arrivals[na] = i
      else
        x, y = x + dx / d * step, y + dy / d * step
      end
      px[i], py[i] = x, y
      local cx, cy = x // 1, y // 1
      if cx ~= ox or cy ~= oy then
        n = n + 1
        ids[n], xs[n], ys[n] = i, cx, cy
      end
    end
  end
  return n, na
end

-- saspu's frame: the update, the new moves read from the events, the sync of the cells
-- that changed (`sync`), and the answers.
local function saspu_frame(g, n, na, arrivals, sync)
  local crowd, handle = g.crowd, g.handle
  sync(g, n)
  for k = 1, na do handle[arrivals[k]]:arrived() end
  g.world:update(DT)
  local tx, ty, moving = g.tx, g.ty, g.moving
  for ev in g.world:events() do
    if ev.kind == "move" then
      local i = ev.agent:index()
      tx[i], ty[i], moving[i] = ev.x, ev.y, true
    end
  end
  return crowd
end

local syncs = {
  { "a:teleport", function(g, n)
      local handle, ids, xs, ys = g.handle, g.ids, g.xs, g.ys
      for k = 1, n do handle[ids[k]]:teleport(xs[k], ys[k]) end
    end },
  { "crowd:teleport", function(g, n)
      local crowd, ids, xs, ys = g.crowd, g.ids, g.xs, g.ys
      for k = 1, n do crowd:teleport(ids[k], xs[k], ys[k]) end
    end },
  { "crowd:move_to", function(g, n) g.crowd:move_to(g.ids, g.xs, g.ys, n) end },
}

local nproc = io.popen("nproc")
local cores = tonumber(nproc and nproc:read("*l")) or 1
if nproc then nproc:close() end
print(string.format("bench_engine_sync: %d engine-moved guards, dt 1/60, %d frames, %d thread(s); %s",
                    N, FRAMES, THREADS, lb.machine(cores)))
print(string.format("%-16s %12s %12s %10s %12s %10s", "sync", "game ms", "saspu ms",
                    "ratio", "cells/frame", "moves"))
for _, s in ipairs(syncs) do
  local g = setup()
  local arrivals = {}
  for _ = 1, 10 do -- moves announced, buffers grown
    local n, na = arithmetic(g, arrivals)
    saspu_frame(g, n, na, arrivals, s[2])
  end
  local game, mine, cells = {}, {}, {}
  for f = 1, FRAMES do
    local t0 = clock()
    local n, na = arithmetic(g, arrivals)
    local t1 = clock()
    saspu_frame(g, n, na, arrivals, s[2])
    local t2 = clock()
    game[f], mine[f], cells[f] = (t1 - t0) * 1e3, (t2 - t1) * 1e3, n
  end
  local out = {}
  local pending = g.crowd:moves(out)
  print(string.format("%-16s %12.2f %12.2f %10.2f %12d %10d", s[1], median(game), median(mine),
                      median(mine) / median(game), median(cells), pending))
  g.world:close()
end

-- Per call: a:teleport against crowd:teleport on the same agents and cells; one
-- crowd:move_to of every agent.
do
  local g = setup()
  local handle, crowd = g.handle, g.crowd
  local xs, ys, ids = {}, {}, {}
  for i = 1, N do ids[i], xs[i], ys[i] = i, (i % W) + 1, (i // W % H) + 1 end
  local a_t, c_t, m_t = {}, {}, {}
  for r = 1, 9 do
    local t0 = clock()
    for i = 1, N do handle[i]:teleport(xs[i], ys[i]) end
    local t1 = clock()
    for i = 1, N do crowd:teleport(i, xs[i], ys[i]) end
    local t2 = clock()
    crowd:move_to(ids, xs, ys, N)
    local t3 = clock()
    a_t[r], c_t[r], m_t[r] = (t1 - t0) / N * 1e9, (t2 - t1) / N * 1e9, t3 - t2
    -- back to other cells so every call moves an agent
    for i = 1, N do xs[i] = xs[i] % W + 1 end
  end
  print(string.format("per call: a:teleport %.0f ns, crowd:teleport %.0f ns, ratio %.2f; "
                      .. "crowd:move_to %.1f million cells a second",
                      median(a_t), median(c_t), median(a_t) / median(c_t), N / median(m_t) / 1e6))
  g.world:close()
end
