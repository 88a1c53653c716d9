-- bench/bench_timed.lua: a crowd of timed citizens against the plain Lua loop a game would write for the same timers (a table per agent, a plan array, a step index, a timer): median ms per frame and their ratio, in one process.
-- Run: lua5.4 bench/bench_timed.lua [agents] [threads] [frames]   (from the repo root, with
-- build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory). Issue 24's
-- target for 1,000,000 agents: the plain loop costs at least 20x the crowd's frame.
--
-- Two windows of the same run: the first seconds, when the citizens are still on their
-- first plan (a step's end only starts the next step), and the steady state after
-- STEADY_S game seconds, when every step ends a plan: the agent then chooses its next
-- goal and is planned again in the frame, which the plain loop never does. The steady
-- state is the one a game lives in.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local util = require "lua_bench"

local N = tonumber(arg[1]) or 1000000
local THREADS = tonumber(arg[2]) or 1
local FRAMES = tonumber(arg[3]) or 120
local WARM = 60
local STEADY_S = 15
local DT = 1 / 60
local format = string.format

-- The crowd: citizens cycling work / end_work, actions of 1-3 s, no places, no hooks.
local world, crowd = util.timed_crowd(saspu, N, THREADS)

-- The plain loop: each agent a table with its plan (two steps, as the crowd's agents
-- alternate work and end_work), a step index and the time left in its step.
local plain_frame, plain_finished = util.plain_timers(N)

local clock = saspu.clock_ns
local unpack = table.unpack or unpack

-- WARM + FRAMES frames of both, medians of the last FRAMES: crowd ms, plain ms, ratio,
-- and the crowd's steps finished and plans made in them.
local function window()
  local c_ms, lua_ms, ratio = {}, {}, {}
  local before
  for f = 1, WARM + FRAMES do
    if f == WARM + 1 then before = crowd:stats(nil, true) end
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
  local after = crowd:stats(nil, true)
  return util.median(c_ms), util.median(lua_ms), util.median(ratio),
         (after.steps_finished - before.steps_finished) / FRAMES,
         (after.plans - before.plans) / FRAMES
end

local function report(title, c, l, r, steps, plans)
  print(title)
  print(format("  saspu crowd:      %8.2f ms/frame (%.0f steps finished, %.0f plans a frame)",
               c, steps, plans))
  print(format("  plain Lua loop:   %8.2f ms/frame", l))
  print(format("  plain / saspu:    %8.2fx (median of per-frame ratios; target 20x)", r))
end

print("machine: " .. util.machine(saspu.cores()))
print(format("%d agents, crowd on %d thread(s), %d frames of %.4f s after %d warm-up (medians)",
             N, THREADS, FRAMES, DT, WARM))
local first = { window() }
-- on to the steady state: the crowd alone (the plain loop's timers are as spread at any
-- time as at its start); both then run WARM frames again before the window
local t_first = crowd:stats(nil, true).clock
for _ = 1, math.ceil((STEADY_S - t_first) / DT) do world:update(DT) end
local steady = { window() }
report(format("first %.0f s of game time (first plans: each step's end starts the next step)",
              t_first), unpack(first))
report(format("steady state, from %.0f s (each step's end ends a plan: goal choice and planning)",
              crowd:stats(nil, true).clock - (WARM + FRAMES) * DT), unpack(steady))
print(format("  in all: crowd %d steps finished, plain loop %d", crowd:stats(nil, true).steps_finished,
             plain_finished()))
