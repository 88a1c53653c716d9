-- bench/bench_lua_agents.lua: a million citizens cycling work / end_work with a Lua on_start on every action: ms per frame on N threads and ns per hook event (medians).
-- Run: lua5.4 bench/bench_lua_agents.lua [agents] [threads] [frames]   (from the repo root,
-- with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local saspu = require "saspu"

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
collectgarbage()
local plain_ms, hook_ms, diff, events = {}, {}, {}, {}
for f = 1, FRAMES do
  local t0 = saspu.clock_ns()
  plain_world:update(DT)
  local t1 = saspu.clock_ns()
  counter.n = 0
  hook_world:update(DT)
  local t2 = saspu.clock_ns()
  plain_ms[f], hook_ms[f] = (t1 - t0) / 1e6, (t2 - t1) / 1e6
  diff[f], events[f] = hook_ms[f] - plain_ms[f], counter.n
end
local s0, s1 = plain:stats(), hooked:stats()
local d, ev = median(diff), median(events)
print(string.format("machine: %s", machine()))
print(string.format("%d agents, %d threads, %d frames of %.4f s (medians)", N, THREADS, FRAMES, DT))
print(string.format("  no hooks:            %8.2f ms/frame", median(plain_ms)))
print(string.format("  on_start everywhere: %8.2f ms/frame, %d hook calls/frame", median(hook_ms), ev))
if ev > 0 then
  print(string.format("  per hook call:       %8.0f ns (median frame-pair difference / calls)", d * 1e6 / ev))
end
print(string.format("  bytes per agent %d; steps finished %d / %d", s1.bytes_per_agent,
                    s0.steps_finished, s1.steps_finished))
