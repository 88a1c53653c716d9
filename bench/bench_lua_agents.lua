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
  return t[(#t + 1) // 2]
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

local function measure(hook, counter)
  local world, crowd = setup(hook)
  for _ = 1, 60 do world:update(DT) end -- warm-up: plans cached, buffers grown
  if hook then
    -- every agent's handle exists in a running game; made here, not in timed frames
    for i = 1, N do crowd:agent(i) end
  end
  collectgarbage()
  local ms, events = {}, {}
  for f = 1, FRAMES do
    counter.n = 0
    local t0 = saspu.clock_ns()
    world:update(DT)
    ms[f] = (saspu.clock_ns() - t0) / 1e6
    events[f] = counter.n
  end
  local s = crowd:stats()
  crowd:close()
  return median(ms), median(events), s
end

local counter = { n = 0 }
local function on_start() counter.n = counter.n + 1 end

local plain_ms, _, s0 = measure(nil, counter)
local hook_ms, hook_events, s1 = measure(on_start, counter)
print(string.format("machine: %s", machine()))
print(string.format("%d agents, %d threads, %d frames of %.4f s (medians)", N, THREADS, FRAMES, DT))
print(string.format("  no hooks:            %8.2f ms/frame", plain_ms))
print(string.format("  on_start everywhere: %8.2f ms/frame, %d hook events/frame", hook_ms, hook_events))
if hook_events > 0 then
  print(string.format("  per hook event:      %8.0f ns (difference / events)",
                      (hook_ms - plain_ms) * 1e6 / hook_events))
end
print(string.format("  bytes per agent %d; steps finished %d / %d", s1.bytes_per_agent,
                    s0.steps_finished, s1.steps_finished))
