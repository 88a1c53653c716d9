-- bench/bench_timed.lua: a crowd of timed citizens against what a game would write for the same timers in Lua (a loop over every agent, a timer wheel, a wheel that plans) and the least the hardware does (bench/limit.c's C wheels): ms per frame and ns per step end, in one process.
-- Run: lua5.4 bench/bench_timed.lua [agents] [threads] [frames]   (from the repo root, with
-- build/ holding saspu/core.so and limit.so; SASPU_BUILD_DIR names another build directory).
--
-- Two windows of the same run: the first seconds, when the citizens are still on their
-- first plan (a step's end only starts the next step), and the steady state after
-- STEADY_S game seconds, when every step ends a plan: the agent then chooses its next
-- goal and is planned again in the frame, which the Lua wheel with plan_ids does too and
-- the other baselines never do. The steady state is the one a game lives in.
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
-- With THREADS > 1 the same crowd on one thread runs beside it, frames alternating, so the
-- threads' gain is measured in one process (the clock's median ms a frame, each side).
local world, crowd = util.timed_crowd(saspu, N, THREADS)

-- The baselines, each over N agents with the same timers (steps of 1-3 s): what a game
-- would write in Lua (the plain loop over every agent; the timer wheel that visits only
-- the agents whose step ends; the wheel that also plans each agent again with dom:plan_ids
-- at its plan's end, as the crowd does), and the least work the hardware does (bench/
-- limit.c: C wheels with records of 2 and 64 bytes and an 8-byte event per step end; the
-- 64-byte wheel doing the crowd's own work in the plainest C: at a plan's end the goal
-- reached, in the next frame a goal chosen, its plan looked up, taken and its first step
-- started, five 16-byte events a step end as the crowd says; a naive C loop over every
-- timer). ends() counts the steps finished so far.
-- The parts of an update's time (crowd:stats()), in the order an update runs them.
local PARTS = { "ms_waking", "ms_choosing", "ms_planning", "ms_taking", "ms_advancing",
                "ms_binding" }
-- Kept per frame too: the parts, and the update's time short of a worker (threads).
local KEPT = { "ms_workers_late", table.unpack(PARTS) }
-- A crowd's contestant; `after` (untimed) adds up the update's planning time and keeps
-- each frame's parts.
local function crowd_contestant(name, w, c)
  local planning, parts, stats = 0, {}, {}
  for _, part in ipairs(KEPT) do parts[part] = {} end
  return { name = name, frame = function(dt) w:update(dt) end,
           after = function()
             c:stats(stats, true)
             planning = planning + stats.ms_planning
             for _, part in ipairs(KEPT) do
               local t = parts[part]
               t[#t + 1] = stats[part]
             end
           end,
           parts = parts,
           planning = function() return planning end,
           ends = function() return c:stats(nil, true).steps_finished end,
           plans = function() return c:stats(nil, true).plans end }
end
local contestants = {
  crowd_contestant(THREADS > 1 and format("saspu crowd, %d thr.", THREADS) or "saspu crowd",
                   world, crowd),
}
if THREADS > 1 then
  local w1, c1 = util.timed_crowd(saspu, N, 1)
  contestants[2] = crowd_contestant("saspu crowd, 1 thread", w1, c1)
end
local function add(name, frame, ends, plans)
  contestants[#contestants + 1] = { name = name, frame = frame, ends = ends, plans = plans }
end
local plain_frame, plain_finished = util.plain_timers(N)
add("plain Lua loop", plain_frame, plain_finished)
add("Lua timer wheel", util.lua_wheel(N))
do
  local dom = saspu.domain_file("domains/citizen.lua")
  local start = dom:encode("start_of_day")
  local goals = { dom:encode("work", start), dom:encode({ working = false }) }
  add("Lua wheel + plan_ids", util.lua_wheel_plan(N, dom, start, goals))
end
local limit, why = util.limit(N, nil, nil, THREADS, true)
if limit then
  local wheels = { { "C wheel, 2 B/agent", limit.thin }, { "C wheel, 64 B/agent", limit.fat },
                   { "C wheel, crowd's work", limit.work }, { "C loop over all", limit.loop } }
  if limit.team then -- the same 64-byte wheel split among THREADS threads
    wheels[#wheels + 1] = { format("C wheel 64 B, %d thr.", THREADS), limit.team }
  end
  for _, c in ipairs(wheels) do
    local w = c[2]
    add(c[1], function(dt) w:frame(dt) end, function() return w:stats().ends end)
  end
else
  print("(" .. why .. ")")
end

local clock = saspu.clock_ns

-- WARM + FRAMES frames of every contestant, in an order that turns each frame (load from
-- other jobs falls on all alike); medians of the last FRAMES. Returns per contestant
-- { ms = median ms a frame (the clock), cpu = median CPU ms a frame (the process's, all
-- threads: the work, whatever share of the cores other jobs leave), ends = step ends a
-- frame, plans = plans a frame, ratio = median over frames of this contestant's CPU ms /
-- the crowd's }.
local cpu_clock = util.cpu_clock()
-- A pool's workers look for the next job for up to 50 us after each: with threads, each
-- frame is followed by 0.2 ms of waiting (untimed), so no worker still spins while the
-- next contestant's frame is timed.
local function settle()
  if THREADS < 2 then return end
  local t = clock() + 200000
  while clock() < t do end
end
local function window()
  local m = #contestants
  local ms, cpu, ratio, clock_ratio, e0, p0, q0 = {}, {}, {}, {}, {}, {}, {}
  for k = 1, m do ms[k], cpu[k], ratio[k], clock_ratio[k] = {}, {}, {}, {} end
  for f = 1, WARM + FRAMES do
    if f == WARM + 1 then
      for k, c in ipairs(contestants) do
        e0[k], p0[k], q0[k] = c.ends(), c.plans and c.plans(), c.planning and c.planning()
        c.parts_from = c.parts and #c.parts.ms_waking
      end
    end
    local t, c = {}, {}
    for j = 0, m - 1 do
      local k = (f + j) % m + 1
      local t0, c0 = clock(), cpu_clock()
      contestants[k].frame(DT)
      t[k], c[k] = (clock() - t0) / 1e6, (cpu_clock() - c0) * 1e3
      if contestants[k].after then contestants[k].after() end
      settle()
    end
    if f > WARM then
      for k = 1, m do
        ms[k][f - WARM], cpu[k][f - WARM] = t[k], c[k]
        ratio[k][f - WARM] = c[k] / math.max(c[1], 1e-3)
        clock_ratio[k][f - WARM] = t[k] / math.max(t[1], 1e-6)
      end
    end
  end
  local out = {}
  for k, c in ipairs(contestants) do
    local parts
    if c.parts then -- the window's frames' medians
      parts = {}
      for _, part in ipairs(KEPT) do
        local t = {}
        for f = c.parts_from + 1, #c.parts[part] do t[#t + 1] = c.parts[part][f] end
        parts[part] = util.median(t)
      end
    end
    out[k] = { times = ms[k], ms = util.median(ms[k]), cpu = util.median(cpu[k]), parts = parts,
               ratio = util.median(ratio[k]),
               clock_ratio = util.median(clock_ratio[k]),
               ends = (c.ends() - e0[k]) / FRAMES,
               plans = c.plans and (c.plans() - p0[k]) / FRAMES,
               planning = c.planning and (c.planning() - q0[k]) / FRAMES }
  end
  return out
end

local function report(title, rows)
  print(title)
  print(format("  %-22s %9s %9s %10s %8s %12s %13s", "", "ms/frame", "CPU ms", "step ends",
               "plans", "CPU ns/end", "CPU / saspu"))
  local function per_end(r) return r.cpu * 1e6 / math.max(r.ends, 1) end
  for k, c in ipairs(contestants) do
    local r = rows[k]
    print(format("  %-22s %9.3f %9.3f %10.0f %8s %12.1f %12.3fx", c.name, r.ms, r.cpu, r.ends,
                 r.plans and format("%.0f", r.plans) or "-", per_end(r), r.ratio))
  end
  -- the one-thread crowd when there is one: the C wheels run on one thread
  local one = THREADS > 1 and 2 or 1
  for k, c in ipairs(contestants) do
    if c.name:match("^C wheel") and not c.name:match("thr%.$") then
      print(format("  saspu's step end (1 thread) / %s's: %.1fx (CPU ns per step end)", c.name,
                   per_end(rows[one]) / per_end(rows[k])))
    end
  end
  -- how much of saspu's step end the crowd's work itself needs, at the least
  local wheel64, work
  for k, c in ipairs(contestants) do
    if c.name == "C wheel, 64 B/agent" then wheel64 = k end
    if c.name == "C wheel, crowd's work" then work = k end
  end
  if wheel64 and work then
    print(format("  C wheel, crowd's work / C wheel, 64 B/agent: %.1fx (what the crowd's work " ..
                 "adds to the timers, done in the plainest C)",
                 per_end(rows[work]) / per_end(rows[wheel64])))
  end
  local r = rows[one]
  if r.planning and r.planning > 0 and r.ends > 0 then
    print(format("  planning (1 thread), per step end: %.1f ns (the update's planning time;"
                   .. " plans the plan table holds are taken in the goal choice)",
                 r.planning * 1e6 / r.ends))
  end
  -- where the crowd's frame goes: the update's parts (median ms a frame), and with
  -- threads each part's gain, which says what the threads share and what they do not
  local names = { ms_waking = "waking", ms_choosing = "choosing", ms_planning = "planning",
                  ms_taking = "taking", ms_advancing = "advancing", ms_binding = "binding" }
  local line = {}
  for _, part in ipairs(PARTS) do
    local p = rows[1].parts[part]
    if THREADS > 1 and math.max(p, rows[2].parts[part]) < 0.0005 then
      line[#line + 1] = names[part] .. " -" -- not run, or a few microseconds
    elseif THREADS > 1 then
      local q = rows[2].parts[part]
      line[#line + 1] = format("%s %.3f/%.3f (%.2fx)", names[part], p, q, q / math.max(p, 1e-6))
    else
      line[#line + 1] = format("%s %.3f", names[part], p)
    end
  end
  print(format("  the update's parts, median ms a frame%s: %s",
               THREADS > 1 and format(" (%d threads / 1 thread, gain)", THREADS) or "",
               table.concat(line, ", ")))
  if THREADS > 1 then
    print(format("  %d threads against 1, by the clock: %.2fx faster (median of per-frame " ..
                 "ratios; medians %.3f and %.3f ms a frame)", THREADS, rows[2].clock_ratio,
                 rows[2].ms, rows[1].ms))
    print(format("  of the %d-thread update, short of a worker (stats().ms_workers_late: " ..
                 "passes waiting for a sleeping worker's wake): median %.3f ms a frame",
                 THREADS, rows[1].parts.ms_workers_late))
    -- what the machine gives: the C wheel on THREADS threads against the same on one
    local fat, team
    for k, c in ipairs(contestants) do
      if c.name == "C wheel, 64 B/agent" then fat = k end
      if c.name:match("^C wheel 64 B, %d+ thr%.$") then team = k end
    end
    if fat and team then
      local per = {}
      for f, t in ipairs(rows[fat].times) do per[f] = t / math.max(rows[team].times[f], 1e-6) end
      print(format("  the C wheel (64 B) on %d threads, one wake a frame, against 1: %.2fx " ..
                   "as fast (the machine's own gain for these timers)", THREADS,
                   util.median(per)))
    end
  end
end

print("machine: " .. util.machine(saspu.cores()))
print(format("%d agents, crowd on %d thread(s), %d frames of %.4f s after %d warm-up (medians)",
             N, THREADS, FRAMES, DT, WARM))
local first = window()
-- on to the steady state, every contestant (the Lua wheel that plans is then past its
-- first plans too); all then run WARM frames again before the window
local t_first = crowd:stats(nil, true).clock
for _ = 1, math.ceil((STEADY_S - t_first) / DT) do
  for _, c in ipairs(contestants) do c.frame(DT) end
end
local steady = window()
report(format("first %.0f s of game time (first plans: each step's end starts the next step)",
              t_first), first)
report(format("steady state, from %.0f s (each step's end ends a plan: goal choice and planning)",
              crowd:stats(nil, true).clock - (WARM + FRAMES) * DT), steady)
