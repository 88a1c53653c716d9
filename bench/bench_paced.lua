-- bench/bench_paced.lua: the timed crowd updated at a steady pace, as a game's frames come, on 2+ threads with the workers woken ahead of each frame (wake_ahead) and without, beside the same crowd on one thread: ms per update, the threads' gain and the time each update ran short of a worker (stats().ms_workers_late), in one process.
-- Run: lua5.4 bench/bench_paced.lua [agents] [threads] [period_ms] [frames] [wake_ahead_ms]
-- (from the repo root; SASPU_BUILD_DIR names another build directory than build/).
--
-- Three worlds, each with the timed crowd of bench_timed.lua: one on one thread, two on
-- THREADS threads, one of them with wake_ahead = AHEAD ms. Each world is updated once a
-- period, at its own third of it, and the main thread busy-waits in between (a game doing
-- its own work). A worker thread sleeps between frames; waking it costs the update a
-- system call and the thread's wake-up. With wake_ahead the pool sees the steady period
-- and its workers are awake when the next update starts.
local util = dofile("bench/support/lua_bench.lua")
util.paths()
local saspu = require "saspu"

local N = tonumber(arg[1]) or 1000000
local THREADS = tonumber(arg[2]) or 2
-- Each world's third of the period must hold its one-thread update (a million agents: 2-5
-- ms on the 2-core guests), or updates start late and the workers never sleep between them.
local PERIOD_MS = tonumber(arg[3]) or 20
local FRAMES = tonumber(arg[4]) or 200
local AHEAD = tonumber(arg[5]) or 0.25
local WARM = 60
local STEADY_S = 15 -- game seconds before the timed frames: every step then ends a plan
local DT = 1 / 60
local format = string.format
assert(THREADS >= 2, "bench_paced: threads must be 2 or more")

local contestants = {}
local function add(name, threads, ahead)
  local world, crowd = util.timed_crowd(saspu, N, threads, ahead)
  contestants[#contestants + 1] = { name = name, world = world, crowd = crowd, ms = {},
                                    late = {} }
end
add("1 thread", 1)
add(format("%d threads, wake_ahead %g ms", THREADS, AHEAD), THREADS, AHEAD)
add(format("%d threads, no wake_ahead", THREADS), THREADS, 0)

for _, c in ipairs(contestants) do -- into the steady state, unpaced
  for _ = 1, STEADY_S / DT do c.world:update(DT) end
end

local clock = saspu.clock_ns
local period = PERIOD_MS * 1e6
local late, stats = 0, {}
local start = clock() + period
for f = 1, WARM + FRAMES do
  for k, c in ipairs(contestants) do
    local at = start + (f - 1) * period + (k - 1) * period / #contestants
    if clock() > at then late = late + 1 end
    while clock() < at do end -- the game's own work
    local t0 = clock()
    c.world:update(DT)
    if f > WARM then
      c.ms[f - WARM] = (clock() - t0) / 1e6
      c.late[f - WARM] = c.crowd:stats(stats, true).ms_workers_late
    end
  end
end

local function quantile(t, q)
  local s = {}
  for k, v in ipairs(t) do s[k] = v end
  table.sort(s)
  return s[math.max(1, math.ceil(#s * q))]
end
-- how much faster contestant b's updates are than contestant a's: the median of per-frame
-- ratios
local function faster(a, b)
  local r = {}
  for f, ms in ipairs(contestants[a].ms) do r[f] = ms / math.max(contestants[b].ms[f], 1e-6) end
  return util.median(r)
end

print("machine: " .. util.machine(saspu.cores()))
print(format("%d agents, %d frames paced %g ms apart after %d (each world at its third of " ..
             "the period), %d updates late", N, FRAMES, PERIOD_MS, WARM, late))
-- late: stats().ms_workers_late, the update's time short of a worker (a sleeping one's wake)
print(format("  %-34s %10s %10s %10s %10s", "crowd", "median ms", "p90 ms", "gain", "late ms"))
for k, c in ipairs(contestants) do
  print(format("  %-34s %10.3f %10.3f %9.2fx %10.3f", c.name, util.median(c.ms),
               quantile(c.ms, 0.9), faster(1, k), util.median(c.late)))
end
print(format("  wake_ahead against none: %.2fx as fast (median of per-frame ratios)", faster(3, 2)))
