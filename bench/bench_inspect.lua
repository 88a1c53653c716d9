-- bench/bench_inspect.lua: what a debug overlay's a:inspect() on every agent costs the frames after it: the median frame before, after a plain inspect of each agent, with a history asked for each, after the histories are stopped, and while saspu.love_debug watches one picked agent (ratios against the first, one process).
-- Run: lua5.4 bench/bench_inspect.lua [agents] [frames]   (from the repo root, with
-- build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
package.path = "bench/support/?.lua;" .. package.path
local lb = require "lua_bench"
lb.paths()
local saspu = require "saspu"

local N = tonumber(arg[1]) or 100000
local FRAMES = tonumber(arg[2]) or 31
local DT = 1 / 60
local median = lb.median

-- Everyone goes back and forth between two posts for ever: each frame some steps end,
-- so each frame has events (goal_chosen, planned, step_started, ...).
local dom = saspu.domain {
  name = "bench_pacer",
  variables = { { name = "post", values = { "a", "b" } } },
  actions = {
    { name = "to_b", var = "post", pre = "a", post = "b" },
    { name = "to_a", var = "post", pre = "b", post = "a" },
  },
  goals = {},
}
local world = saspu.world { threads = 1 }
local crowd = world:crowd(dom, {
  actions = { to_b = { duration = { 0.5, 2 } }, to_a = { duration = { 0.5, 2 } } },
  goals = { { { post = "b" }, when = { post = "a" } }, { { post = "a" }, when = { post = "b" } } },
}, { capacity = N, seed = 7 })
for _ = 1, N do crowd:spawn { start = { post = "a" } } end
for _ = 1, 120 do world:update(DT) end -- steps of every length are running

local clock = os.clock
local function frames()
  local times, events = {}, 0
  for f = 1, FRAMES do
    local t0 = clock()
    world:update(DT)
    times[f] = (clock() - t0) * 1000
    for _ in world:events() do events = events + 1 end
  end
  return median(times), events / FRAMES
end

local function inspect_all(opts)
  local t0 = clock()
  for i = 1, N do crowd:agent(i):inspect(opts) end
  local ms = (clock() - t0) * 1000
  -- the tables the inspects made are the overlay's garbage, collected here so the
  -- frames below time saspu's part and not that collection
  collectgarbage()
  return ms
end

collectgarbage()
local base, ev = frames()
print(string.format("bench_inspect: %d agents, %d frames of %.4f s, 1 thread, %.0f events a frame",
                    N, FRAMES, DT, ev))
print(string.format("%-44s %10s %8s", "frame (median)", "ms", "ratio"))
print(string.format("%-44s %10.3f %8.2f", "before any inspect", base, 1))
local took = inspect_all()
local plain = frames()
print(string.format("%-44s %10.3f %8.2f", "after a:inspect() of every agent", plain, plain / base))
inspect_all { history = 8 }
local kept = frames()
print(string.format("%-44s %10.3f %8.2f", "while each keeps a history (history = 8)", kept, kept / base))
inspect_all { history = 0 }
local stopped = frames()
print(string.format("%-44s %10.3f %8.2f", "after history = 0 for every agent", stopped, stopped / base))
-- a LÖVE overlay's pick: one agent keeps a history, and the panel inspects it each frame
local dbg = require("saspu.love_debug").new(world, { cell = 1 })
dbg:select(crowd:agent(1))
local panel_times = {}
for f = 1, FRAMES do
  local t0 = clock()
  world:update(DT)
  dbg:panel()
  panel_times[f] = (clock() - t0) * 1000
end
local picked = median(panel_times)
print(string.format("%-44s %10.3f %8.2f", "one picked agent (love_debug, history = 8)", picked, picked / base))
dbg:select(nil)
local unpicked = frames()
print(string.format("%-44s %10.3f %8.2f", "after the pick is cleared", unpicked, unpicked / base))
print(string.format("(the inspect of every agent itself: %.0f ms, %.2f us an agent)", took, took * 1000 / N))
