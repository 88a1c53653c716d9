-- bench/bench_between.lua: what a game's own work between frames does to a step end's cost: the timed crowd and the 64-byte C wheel of bench/limit.c, each with nothing between its frames, with a C loop over every agent's timer between them, and with the plain Lua loop over as many agent tables between them.
-- Run: lua5.4 bench/bench_between.lua [agents] [frames]   (from the repo root, with build/
-- holding saspu/core.so and limit.so; SASPU_BUILD_DIR names another build directory).
--
-- A game runs its own code between two updates (animation, physics, its scripts), which
-- evicts from the caches what the update read. A step end of the crowd reads an agent's
-- record and population rows twice, in two frames: when its step ends (the advance pass)
-- and in the next frame, when it chooses its next goal and takes its new plan (goals are
-- chosen at the start of a frame, after the game's hooks had their say). The C wheel reads
-- its agent's record once, but does little else: its step end is nearly all memory, the
-- crowd's mostly instructions. This bench measures what each loses to the eviction, in one
-- process (CPU ns per step end, the steady state of bench_timed.lua: every step end ends a
-- plan, one thread); docs/benchmarks.md gives the figures.
local util = dofile("bench/support/lua_bench.lua")
util.paths()
package.path = "bench/support/?.lua;" .. package.path
local saspu = require "saspu"

local N = tonumber(arg[1]) or 1000000
local FRAMES = tonumber(arg[2]) or 120
local DT = 1 / 60
local STEADY_FRAMES = 15 * 60 -- every step end ends a plan from here on
local format = string.format

local limit, why = util.limit(N)
if not limit then
  print("(" .. why .. ")")
  return
end
local world, crowd = util.timed_crowd(saspu, N, 1)
local plain_frame = util.plain_timers(N)

-- What runs between two frames of a contestant.
local between = {
  { name = "nothing", run = function() end },
  { name = "C loop over all", run = function() limit.loop:frame(DT) end },
  { name = "plain Lua loop", run = function() plain_frame(DT) end },
}

local contestants = {
  { name = "saspu crowd", frame = function() world:update(DT) end,
    ends = function() return crowd:stats(nil, true).steps_finished end },
  { name = "C wheel, 64 B/agent", frame = function() limit.fat:frame(DT) end,
    ends = function() return limit.fat:stats().ends end },
}

for _ = 1, STEADY_FRAMES do
  for _, c in ipairs(contestants) do c.frame() end
end

-- FRAMES frames of contestant c, each after b.run(): CPU ns per step end (all frames'
-- CPU over all their step ends) and the median CPU ms a frame.
local cpu_clock = util.cpu_clock()
local function measure(c, b)
  local cpu, total, e0 = {}, 0, c.ends()
  for f = 1, FRAMES do
    b.run()
    local t0 = cpu_clock()
    c.frame()
    cpu[f] = (cpu_clock() - t0) * 1e3
    total = total + cpu[f]
  end
  return total * 1e6 / math.max(c.ends() - e0, 1), util.median(cpu)
end

print("machine: " .. util.machine(saspu.cores()))
print(format("%d agents, steps of 1-3 s, %d frames of %.4f s per row after %d warm-up " ..
             "frames, one thread", N, FRAMES, DT, STEADY_FRAMES))
print(format("%-20s %22s %22s %10s", "between frames", "saspu ns/end (ms/fr)",
             "C wheel ns/end (ms/fr)", "ratio"))
for _, b in ipairs(between) do
  local s_ns, s_ms = measure(contestants[1], b)
  local w_ns, w_ms = measure(contestants[2], b)
  print(format("%-20s %14.1f (%5.2f) %14.1f (%5.2f) %9.1fx", b.name, s_ns, s_ms, w_ns, w_ms,
               s_ns / w_ns))
end
print("ratio: saspu's CPU ns per step end / the C wheel's, after the same work between frames")
