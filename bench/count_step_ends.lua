-- bench/count_step_ends.lua: frames of the timed crowd (or of the 64-byte C wheel, or of the C wheel doing the crowd's work) for valgrind's callgrind to count, per step end: instructions, and with its cache simulation the lines that come from memory.
-- Run (from the repo root, with build/ holding saspu/core.so and limit.so; SASPU_BUILD_DIR
-- names another build directory):
--   valgrind --tool=callgrind --cache-sim=yes --D1=32768,8,64 --LL=33554432,16,64 \
--     --toggle-collect=l_crowd_update lua5.4 bench/count_step_ends.lua crowd N [frames] [evict]
--   valgrind ... --toggle-collect=limit_frame lua5.4 bench/count_step_ends.lua wheel|work N [frames] [evict]
-- Divide callgrind's totals (callgrind_annotate) by the step ends printed.
-- crowd: util.timed_crowd (citizens cycling work / end_work, steps of 1-3 s), 900 frames of
-- 1/60 s through world:update (not counted: the steady state, where every step end ends a
-- plan), then `frames` (default 30) through crowd:update, the ones counted.
-- wheel: bench/limit.c's wheel of 64-byte records with the same steps, `frames` (default
-- 200) frames, every one counted (limit_frame runs only here).
-- work: bench/limit.c's wheel doing the crowd's work (goal choice, plan lookup, five 16-byte
-- events a step end), its first plans of one step: every step end ends a plan from the
-- first, so every frame counted is in the steady state.
-- evict: the plain Lua loop over as many agent tables (util.plain_timers) runs after each
-- counted frame (after every frame of the wheel), as a game's own frame would between two
-- of the crowd's, so the next frame finds fewer of its lines in the caches.
local util = dofile("bench/support/lua_bench.lua")
util.paths()

local WHAT, N = arg[1], tonumber(arg[2])
if (WHAT ~= "crowd" and WHAT ~= "wheel" and WHAT ~= "work") or not N or N < 1 then
  io.stderr:write("usage: lua5.4 bench/count_step_ends.lua crowd|wheel|work N [frames] [evict]\n")
  os.exit(2)
end
local FRAMES = tonumber(arg[3]) or (WHAT == "crowd" and 30 or 200)
local EVICT = arg[4] == "evict"
local between = EVICT and util.plain_timers(N) or function() end
local DT = 1 / 60

local ends
if WHAT == "crowd" then
  local saspu = require "saspu"
  local world, crowd = util.timed_crowd(saspu, N, 1)
  for _ = 1, 15 * 60 do world:update(DT) end
  local before = crowd:stats(nil, true).steps_finished
  for _ = 1, FRAMES do
    crowd:update(DT)
    between(DT)
  end
  ends = crowd:stats(nil, true).steps_finished - before
else
  local ok, limit = pcall(require, "limit")
  if not ok then error("bench/limit.c not built (cmake --build BUILD --target bench_limit)") end
  -- steps of 60-180 frames (1-3 s), as util.limit's wheels
  local wheel = WHAT == "work" and limit.work(N, 60, 121, 1) or limit.wheel(N, 64, 60, 121)
  for _ = 1, FRAMES do
    wheel:frame(DT)
    between(DT)
  end
  ends = wheel:stats().ends
end
print(string.format("%s of %d agents: %d frames counted, %d step ends%s", WHAT, N, FRAMES,
                    ends, EVICT and ", the plain Lua loop after each" or ""))
