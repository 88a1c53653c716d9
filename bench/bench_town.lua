-- bench/bench_town.lua: the Western town of ./dev demo (seven crowds on the 256x256 map, the demo's own frame): median ms per frame split into planning / walking / Lua, at several sizes, 1 vs 2 threads in one process.
-- Run: lua5.4 bench/bench_town.lua [realtime] [sizes] [warm-up frames] [frames] [hours]   (from
-- the repo root, with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build
-- directory). sizes is a comma list (default 10000,100000,1000000). Frames are 30 game seconds
-- from 05:00, as in the demo (the time-lapse day); with `realtime` they are 1/60 s (the demo's
-- durations and walking speeds, the world's C update alone, on one thread) against the plain
-- Lua timer loop of bench_timed over as many agents, in the same process (issue 24: at least
-- 8x cheaper). hours (realtime only, a comma list, default 5,10,15) are the game hours the
-- real-time frames start at: 5 is the dawn, when every NPC starts its first plan at once;
-- a later hour is reached first by the demo's own time-lapse frames (its Lua included), so
-- the real-time frames then meet the town as a game runs it, its NPCs long out of step.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local demo = assert(loadfile("tools/demo.lua"))("--module")

local REALTIME = arg[1] == "realtime"
local args = {}
for k = REALTIME and 2 or 1, #arg do args[#args + 1] = arg[k] end
local SIZES = {}
for n in (args[1] or "10000,100000,1000000"):gmatch("%d+") do SIZES[#SIZES + 1] = tonumber(n) end
local WARM = tonumber(args[2]) or 60
local FRAMES = tonumber(args[3]) or 120
local HOURS = {}
for h in (args[4] or "5,10,15"):gmatch("[%d.]+") do HOURS[#HOURS + 1] = tonumber(h) end
local KEYS = { "ms", "plan", "walk", "lua", "cpu" }
-- the baselines' steps in the real-time rows: the town's actions last 60 s to an hour
local WHEEL_LO, WHEEL_HI = 60, 3600

local function median(t)
  local s = {}
  for i = 1, #t do s[i] = t[i] end
  table.sort(s)
  return s[math.floor((#s + 1) / 2)]
end

local function machine()
  local f = io.open("/proc/cpuinfo")
  local model = f and f:read("*a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
  if f then f:close() end
  return string.format("%s, %d online cores", model, saspu.cores())
end

-- The demo's town for `npcs` NPCs on `threads` threads (no pictures, no output).
local function town(npcs, threads)
  return demo.build { npcs = npcs, threads = threads, seed = 1, start = demo.START_HOUR }
end

-- Real time: the town's frames of 1/60 s against the plain Lua timer loop, alternating.
local function realtime()
  local util = require "lua_bench"
  local DT = 1 / 60
  print("machine: " .. util.machine(saspu.cores()))
  print(string.format("town in real time: 7 crowds, 256x256 map, frames of %.4f s from the hour"
    .. " of each row, 1 thread; %d warm-up frames, then %d timed (medians)", DT, WARM, FRAMES))
  print(string.format("(from %02d:00 the walkers that start together reach their cells in the same"
    .. " frames: the mean and the worst frame say what the median does not; a later hour is"
    .. " reached by the demo's frames of %d s first)", demo.START_HOUR, demo.DT))
  print(string.format("baselines over as many agents: the plain Lua loop over every agent's timer"
    .. " (steps of 1-3 s), a Lua timer wheel and bench/limit.c's C wheel of 64-byte records with"
    .. " an 8-byte event per step end, both with the town's steps of %d-%d s;"
    .. " x/town: median of per-frame ratios", WHEEL_LO, WHEEL_HI))
  print(string.format("%9s %5s | %9s %9s %9s %7s | %9s %8s | %9s %8s | %9s %8s", "NPCs", "from",
                      "town ms", "mean", "max", "ends", "plain ms", "/town", "wheel ms", "/town",
                      "C ms", "/town"))
  local function mean(t)
    local sum = 0
    for k = 1, #t do sum = sum + t[k] end
    return sum / #t
  end
  for _, n in ipairs(SIZES) do
    for _, hour in ipairs(HOURS) do
      local sim = town(n, 1)
      -- the time-lapse day up to the hour, as ./dev demo plays it
      local acc = demo.new_acc()
      for frame = 0, demo.frame_of(hour) - 1 do demo.step(sim, frame, acc) end
      local plain = util.plain_timers(n)
      local wheel = util.lua_wheel(n, WHEEL_LO, WHEEL_HI)
      local limit = util.limit(n, WHEEL_LO, WHEEL_HI)
      local cw = limit and limit.fat
      local runs = { function() sim.world:update(DT) end, function() plain(DT) end,
                     function() wheel(DT) end, function() if cw then cw:frame(DT) end end }
      local clock = saspu.clock_ns
      local ms, ratio = { {}, {}, {}, {} }, { {}, {}, {}, {} }
      local function ends()
        local e = 0
        for _, cls in ipairs(sim.classes) do e = e + cls.crowd:stats(nil, true).steps_finished end
        return e
      end
      local e0
      for f = 1, WARM + FRAMES do
        if f == WARM + 1 then e0 = ends() end
        local t = {}
        for j = 0, 3 do -- the order turns each frame: load falls on all alike
          local k = (f + j) % 4 + 1
          local t0 = clock()
          runs[k]()
          t[k] = (clock() - t0) / 1e6
        end
        if f > WARM then
          for k = 1, 4 do
            ms[k][#ms[k] + 1], ratio[k][#ratio[k] + 1] = t[k], t[k] / math.max(t[1], 1e-6)
          end
        end
      end
      local top = 0
      for k = 1, #ms[1] do top = math.max(top, ms[1][k]) end
      print(string.format("%9d %5s | %9.3f %9.3f %9.3f %7.2f | %9.3f %7.2fx | %9.4f %7.3fx | "
                          .. "%9.4f %7.3fx", n, demo.clock(demo.frame_of(hour)), median(ms[1]),
                          mean(ms[1]), top, (ends() - e0) / FRAMES, median(ms[2]),
                          median(ratio[2]), median(ms[3]), median(ratio[3]),
                          cw and median(ms[4]) or 0, cw and median(ratio[4]) or 0))
      sim, plain, wheel, limit, cw, runs = nil, nil, nil, nil, nil, nil -- luacheck: ignore
      collectgarbage()
      collectgarbage()
    end
  end
end
if REALTIME then
  realtime()
  return
end

print(string.format("machine: %s", machine()))
print(string.format("town: 7 crowds, 256x256 map, frames of %d game s from %02d:00; %d warm-up "
  .. "frames, then %d timed (medians; the two towns' frames alternate)", demo.DT, demo.START_HOUR,
  WARM, FRAMES))
print(string.format("%9s %7s | %8s %8s %8s %8s | %8s | %s", "NPCs", "threads", "total", "plan",
                    "walk", "lua", "cpu", "ms per frame (cpu: CPU ms, all threads)"))
for _, n in ipairs(SIZES) do
  -- both towns live side by side and alternate frames, so load from other jobs on the
  -- machine falls on both alike; the ratio is the median of per-frame ratios
  local towns = { town(n, 1), town(n, 2) }
  local rec, ratio = { {}, {} }, {}
  for f = 1, WARM + FRAMES do
    local r = {}
    for k = 1, 2 do
      -- cpu: the process's CPU time in the frame (all threads): the work, whatever
      -- share of the cores the machine's other jobs leave
      local c0 = os.clock()
      r[k] = demo.step(towns[k], f, demo.new_acc())
      r[k].cpu = (os.clock() - c0) * 1e3
    end
    if f > WARM then
      for k = 1, 2 do
        for _, key in ipairs(KEYS) do
          rec[k][key] = rec[k][key] or {}
          local list = rec[k][key]
          list[#list + 1] = r[k][key]
        end
      end
      ratio[#ratio + 1] = r[1].ms / math.max(r[2].ms, 1e-6)
    end
  end
  for k = 1, 2 do
    print(string.format("%9d %7d | %8.2f %8.2f %8.2f %8.2f | %8.2f |", n, k, median(rec[k].ms),
                        median(rec[k].plan), median(rec[k].walk), median(rec[k].lua),
                        median(rec[k].cpu)))
  end
  print(string.format("%9d  1 vs 2 threads: %.2fx (median of per-frame ratios)", n, median(ratio)))
  towns = nil -- luacheck: ignore
  collectgarbage()
  collectgarbage()
end
