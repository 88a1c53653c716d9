-- bench/bench_day.lua: the town of ./dev demo at a million NPCs (distance fields built ahead by world:warm()), with and without a goal budget: the first frame's CPU ms, the 95th percentile, the worst frames after the first with their ratio to it and their cause.
-- Run: nice lua5.4 bench/bench_day.lua [npcs] [frames] [budget] [threads]   (from the repo
-- root, with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
-- npcs default 1000000; frames (of 30 game s from 05:00, as the demo's) default 720, six
-- game hours (2880 is the whole day); budget is the NPCs that may choose a goal a frame,
-- shared by the seven crowds by size (default npcs / 25, the demo's); threads default 1.
-- The two towns, without and with the budget, live side by side and alternate frames, so
-- load from other jobs on the machine falls on both alike. Times are the process's CPU
-- ms in each frame (all threads): the work, whatever share of the cores other jobs leave.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local util = require "lua_bench"
local demo = assert(loadfile("tools/demo.lua"))("--module")

local NPCS = tonumber(arg[1]) or 1000000
local FRAMES = tonumber(arg[2]) or 720
local BUDGET = tonumber(arg[3]) or math.floor(NPCS / 25)
local THREADS = tonumber(arg[4]) or 1
local WORST = 5 -- the worst frames after the first listed per town
local format, floor, ceil = string.format, math.floor, math.ceil

local function quantile(list, q)
  local s = {}
  for k = 1, #list do s[k] = list[k] end
  table.sort(s)
  return s[math.min(#s, math.max(1, ceil(q * #s)))]
end

-- What made frame r slow, in words: its largest part and what the crowds did in it.
local function cause(r)
  local part, top = "walking and steps", r.walk
  if r.plan > top then part, top = "planning", r.plan end
  if r.lua > top then part = "Lua" end
  local extra = r.fields > 0 and format(", %d distance fields built", r.fields) or ""
  return format("%s (%d plans, %d steps ended, %d events)%s", part, r.plans, r.steps, r.events,
                extra)
end

print("machine: " .. util.machine(saspu.cores()))
print(format("town: %d NPCs in 7 crowds, 256x256 map, fields built ahead (world:warm()), %d "
  .. "thread(s); %d frames of %d game s from %02d:00; CPU ms per frame", NPCS, THREADS, FRAMES,
  demo.DT, demo.START_HOUR))

local names = { "no budget", format("budget %d", BUDGET) }
local towns, setup = {}, {}
for k, budget in ipairs { 0, BUDGET } do
  local c0 = os.clock()
  towns[k] = demo.build { npcs = NPCS, threads = THREADS, seed = 1, start = demo.START_HOUR,
                          warm = true, budget = budget }
  setup[k] = { cpu = (os.clock() - c0) * 1e3, warm = towns[k].warm_ms }
end
local rec = { {}, {} }
for f = 1, FRAMES do
  for k = 1, 2 do
    local acc = demo.new_acc()
    local r = demo.step(towns[k], f, acc)
    r.plans, r.steps, r.events = acc.plans, acc.steps, acc.events
    rec[k][f] = r
  end
end

print(format("%-14s | %9s %9s | %9s %9s %9s | %9s %9s %6s | %s", "", "build ms", "warm ms",
             "first ms", "p50 ms", "p95 ms", "max ms", "max/p95", ">3xp95", "(after the first frame)"))
for k = 1, 2 do
  local cpu = {}
  for f = 2, FRAMES do cpu[#cpu + 1] = rec[k][f].cpu end
  local p50, p95 = quantile(cpu, 0.5), quantile(cpu, 0.95)
  local top, over = 0, 0
  for _, v in ipairs(cpu) do
    top = math.max(top, v)
    if v > 3 * p95 then over = over + 1 end
  end
  print(format("%-14s | %9.0f %9.0f | %9.1f %9.2f %9.2f | %9.2f %8.2fx %6d |", names[k],
               setup[k].cpu, setup[k].warm, rec[k][1].cpu, p50, p95, top, top / p95, over))
end
for k = 1, 2 do
  local order = {}
  for f = 2, FRAMES do order[#order + 1] = f end
  table.sort(order, function(a, b) return rec[k][a].cpu > rec[k][b].cpu end)
  local cpu = {}
  for f = 2, FRAMES do cpu[#cpu + 1] = rec[k][f].cpu end
  local p95 = quantile(cpu, 0.95)
  print(format("%s: the first frame %.1f ms: %s", names[k], rec[k][1].cpu, cause(rec[k][1])))
  for j = 1, math.min(WORST, #order) do
    local f = order[j]
    local r = rec[k][f]
    print(format("  frame %4d at %s: %8.2f ms, %5.2fx the p95: %s", f, demo.clock(f), r.cpu,
                 r.cpu / p95, cause(r)))
  end
end
-- how the budget's first frames went: CPU ms and plans of the first ones
local line = { "first frames (CPU ms / plans):" }
for f = 1, math.min(FRAMES, 30) do
  line[#line + 1] = format("%d: %.0f/%d vs %.0f/%d", f, rec[1][f].cpu, rec[1][f].plans,
                           rec[2][f].cpu, rec[2][f].plans)
end
print(table.concat(line, "  "))
io.write(format("(frames: %d; %s)\n", floor(FRAMES), os.date("!%Y-%m-%d %H:%M UTC")))
