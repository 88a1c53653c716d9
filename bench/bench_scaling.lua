-- bench/bench_scaling.lua: frame cost against agents: timed crowds from 10k to 3.4M citizens (steps of 1-3 s, so the same share of steps ends in each frame), median ms per frame, steps ended per frame, and the cost per step ended against the smallest crowd's, in one process.
-- Run: lua5.4 bench/bench_scaling.lua [sizes] [frames] [threads]   (from the repo root, with
-- build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory). sizes: a comma
-- list (default 10000,100000,1000000,3400000). Writes bench/out/scaling.csv for
-- bench/plot_scaling.gp. Issue 24: the cost per frame grows with the steps ending, not with the
-- agents.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local util = require "lua_bench"

local SIZES = {}
for n in (arg[1] or "10000,100000,1000000,3400000"):gmatch("%d+") do SIZES[#SIZES + 1] = tonumber(n) end
local FRAMES = tonumber(arg[2]) or 120
local THREADS = tonumber(arg[3]) or 1
-- 20 s: the steady state, where every step's end also ends a plan (the agent chooses its next
-- goal and is planned again); the first plans of the citizens take some 10 s
local WARM = 1200
local DT = 1 / 60
local format = string.format
local clock = saspu.clock_ns

print("machine: " .. util.machine(saspu.cores()))
print(format("timed citizens (steps of 1-3 s), %d thread(s), frames of %.4f s: %d warm-up, %d timed "
             .. "(medians)", THREADS, DT, WARM, FRAMES))
print(format("%9s | %9s %9s | %11s %11s | %s", "agents", "ms/frame", "ended", "ns/ended",
             "ns/agent", "cost per step ended vs the first size"))
os.execute("mkdir -p bench/out")
local csv = assert(io.open("bench/out/scaling.csv", "w"))
csv:write("agents,ms_per_frame,steps_ended,ns_per_ended,ns_per_agent,threads\n")
local first
for _, n in ipairs(SIZES) do
  local world, crowd = util.timed_crowd(saspu, n, THREADS)
  local ms, ended, per = {}, {}, {}
  local st = {}
  local last = 0
  for f = 1, WARM + FRAMES do
    local t0 = clock()
    world:update(DT)
    local t = (clock() - t0) / 1e6
    crowd:stats(st, true)
    if f > WARM then
      local k = f - WARM
      ms[k], ended[k] = t, st.steps_finished - last
      per[k] = t * 1e6 / math.max(ended[k], 1)
    end
    last = st.steps_finished
  end
  local row = { n = n, ms = util.median(ms), ended = util.median(ended), per = util.median(per) }
  first = first or row
  print(format("%9d | %9.3f %9d | %11.1f %11.2f | %.2fx (agents %.0fx)", n, row.ms, row.ended,
               row.per, row.ms * 1e6 / n, row.per / first.per, n / first.n))
  csv:write(format("%d,%.4f,%d,%.2f,%.3f,%d\n", n, row.ms, row.ended, row.per, row.ms * 1e6 / n,
                   THREADS))
  world, crowd = nil, nil -- luacheck: ignore
  collectgarbage()
  collectgarbage()
end
csv:close()
print("wrote bench/out/scaling.csv (plot: gnuplot bench/plot_scaling.gp)")
