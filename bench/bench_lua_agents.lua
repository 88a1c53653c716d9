-- bench/bench_lua_agents.lua: a million citizens cycling work / end_work with a Lua on_start on every action: ms per frame on N threads and ns per hook event (medians), beside a Lua timer wheel that plans with dom:plan_ids and calls the same hook, and bench/limit.c's C wheel.
-- Run: lua5.4 bench/bench_lua_agents.lua [agents] [threads] [frames]   (from the repo root,
-- with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local util = require "lua_bench"

local N = tonumber(arg[1]) or 1000000
local THREADS = tonumber(arg[2]) or 2
local FRAMES = tonumber(arg[3]) or 120
local DT = 1 / 60

local function median(t)
  table.sort(t)
  return t[math.floor((#t + 1) / 2)]
end

local function machine()
  local f = io.open("/proc/cpuinfo")
  local model = f and f:read("a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
  if f then f:close() end
  return string.format("%s, %d online cores", model, saspu.cores())
end

-- One crowd of N citizens; `hook` (or nil) is every action's on_start.
local function setup(hook)
  local dom = saspu.domain_file("domains/citizen.lua")
  local world = saspu.world {}
  local actions = {}
  for _, a in ipairs(dom:actions()) do actions[a.name] = { duration = { 1, 3 }, on_start = hook } end
  local crowd = world:crowd(dom, {
    actions = actions,
    -- two goals that undo each other: every agent keeps working and stopping
    goals = { { "work", priority = 1 }, { { working = false }, priority = 1 } },
  }, { capacity = N, threads = THREADS, seed = 1 })
  local packed = dom:encode("start_of_day")
  for _ = 1, N do crowd:spawn_packed(packed, 1, 1) end
  return world, crowd
end

local counter = { n = 0 }
local function on_start() counter.n = counter.n + 1 end

-- Both crowds live side by side and their frames alternate, so load from other jobs on
-- the machine falls on both alike; the hook cost is the median of per-pair differences.
local plain_world, plain = setup(nil)
local hook_world, hooked = setup(on_start)
for _ = 1, 60 do plain_world:update(DT) hook_world:update(DT) end -- plans cached, buffers grown
for i = 1, N do hooked:agent(i) end -- a running game has every handle; not made in timed frames
-- The same agents as a Lua script would run them: a timer wheel planning with plan_ids at
-- each plan's end, the hook called at each step's end (where the next step starts); and
-- the least the hardware does, a C wheel of 64-byte records (bench/limit.c).
local wheel_frame, wheel_ends
do
  local dom = saspu.domain_file("domains/citizen.lua")
  local start = dom:encode("start_of_day")
  local frame, ends = util.lua_wheel_plan(N, dom, start,
                                          { dom:encode("work", start), dom:encode({ working = false }) })
  local before = 0
  wheel_frame = function(dt)
    frame(dt)
    local e = ends()
    for _ = 1, e - before do on_start() end
    before = e
  end
  wheel_ends = ends
  for _ = 1, 60 do wheel_frame(DT) end
end
local limit = util.limit(N)
local cw = limit and limit.fat
collectgarbage()
local plain_ms, hook_ms, diff, events, wheel_ms, cw_ms = {}, {}, {}, {}, {}, {}
local ends0, cw0 = wheel_ends(), cw and cw:stats().ends
for f = 1, FRAMES do
  local t0 = saspu.clock_ns()
  plain_world:update(DT)
  local t1 = saspu.clock_ns()
  counter.n = 0
  hook_world:update(DT)
  local t2 = saspu.clock_ns()
  plain_ms[f], hook_ms[f] = (t1 - t0) / 1e6, (t2 - t1) / 1e6
  diff[f], events[f] = hook_ms[f] - plain_ms[f], counter.n
  wheel_frame(DT)
  local t3 = saspu.clock_ns()
  wheel_ms[f] = (t3 - t2) / 1e6
  if cw then cw:frame(DT) end
  cw_ms[f] = (saspu.clock_ns() - t3) / 1e6
end
local wheel_per = (wheel_ends() - ends0) / FRAMES
local cw_per = cw and (cw:stats().ends - cw0) / FRAMES
local s0, s1 = plain:stats(), hooked:stats()
local d, ev = median(diff), median(events)
print(string.format("machine: %s", machine()))
print(string.format("%d agents, %d threads, %d frames of %.4f s (medians)", N, THREADS, FRAMES, DT))
print(string.format("  no hooks:            %8.2f ms/frame", median(plain_ms)))
print(string.format("  on_start everywhere: %8.2f ms/frame, %d hook calls/frame, %.0f ns per step", median(hook_ms),
                    ev, median(hook_ms) * 1e6 / math.max(ev, 1)))
if ev > 0 then
  print(string.format("  per hook call:       %8.0f ns (median frame-pair difference / calls)", d * 1e6 / ev))
end
print(string.format("  Lua wheel + plan_ids + hook: %8.2f ms/frame, %.0f step ends/frame, %.0f ns each",
                    median(wheel_ms), wheel_per, median(wheel_ms) * 1e6 / math.max(wheel_per, 1)))
if cw then
  print(string.format("  C wheel, 64 B/agent: %8.3f ms/frame, %.0f step ends/frame, %.1f ns each",
                      median(cw_ms), cw_per, median(cw_ms) * 1e6 / math.max(cw_per, 1)))
end
print(string.format("  bytes per agent %d; steps finished %d / %d", s1.bytes_per_agent,
                    s0.steps_finished, s1.steps_finished))
