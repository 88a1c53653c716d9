-- bench/bench_timed.lua: a crowd of timed citizens against the plain Lua loop a game would write for the same timers (a table per agent, a plan array, a step index, a timer): median ms per frame and their ratio, in one process.
-- Run: lua5.4 bench/bench_timed.lua [agents] [threads] [frames]   (from the repo root, with
-- build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory). Issue 24's
-- target for 1,000,000 agents: the plain loop costs at least 20x the crowd's frame.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local util = require "lua_bench"

local N = tonumber(arg[1]) or 1000000
local THREADS = tonumber(arg[2]) or 1
local FRAMES = tonumber(arg[3]) or 120
local WARM = 60
local DT = 1 / 60
local format = string.format

-- The crowd: citizens cycling work / end_work, actions of 1-3 s, no places, no hooks.
local world, crowd = util.timed_crowd(saspu, N, THREADS)

-- The plain loop: each agent a table with its plan (two steps, as the crowd's agents
-- alternate work and end_work), a step index and the time left in its step.
local plain_frame, plain_finished = util.plain_timers(N)

local clock = saspu.clock_ns
local c_ms, lua_ms, ratio = {}, {}, {}
for f = 1, WARM + FRAMES do
  -- both run in every frame, in alternating order, so load from other jobs falls on both
  local c, l
  if f % 2 == 0 then
    local t0 = clock(); world:update(DT); local t1 = clock(); plain_frame(DT)
    c, l = t1 - t0, clock() - t1
  else
    local t0 = clock(); plain_frame(DT); local t1 = clock(); world:update(DT)
    l, c = t1 - t0, clock() - t1
  end
  if f > WARM then
    local k = f - WARM
    c_ms[k], lua_ms[k] = c / 1e6, l / 1e6
    ratio[k] = lua_ms[k] / math.max(c_ms[k], 1e-6)
  end
end

print("machine: " .. util.machine(saspu.cores()))
print(format("%d agents, crowd on %d thread(s), %d frames of %.4f s after %d warm-up (medians)",
             N, THREADS, FRAMES, DT, WARM))
print(format("  saspu crowd:      %8.2f ms/frame (%d steps finished in all)", util.median(c_ms),
             crowd:stats(nil, true).steps_finished))
print(format("  plain Lua loop:   %8.2f ms/frame (%d steps finished in all)", util.median(lua_ms),
             plain_finished()))
print(format("  plain / saspu:    %8.2fx (median of per-frame ratios; target 20x)", util.median(ratio)))
