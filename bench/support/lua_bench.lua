-- bench/support/lua_bench.lua: what the Lua benchmarks share: the module paths, a median and the machine line (CPU, cores, load).
local M = {}

--- Points package.path / cpath at the repository's Lua files and build (SASPU_BUILD_DIR).
function M.paths()
  local build = os.getenv("SASPU_BUILD_DIR") or "build"
  package.cpath = build .. "/?.so;" .. package.cpath
  package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
end

--- The median of the numbers in t (a sorted copy: t is left as it was).
function M.median(t)
  local s = {}
  for i = 1, #t do s[i] = t[i] end
  table.sort(s)
  return s[math.floor((#s + 1) / 2)]
end

--- "model, n online cores, load average x": the machine a figure was measured on.
function M.machine(cores)
  local f = io.open("/proc/cpuinfo")
  local model = f and f:read("*a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
  if f then f:close() end
  local l = io.open("/proc/loadavg")
  local load = l and l:read("*l"):match("^(%S+)") or "?"
  if l then l:close() end
  return string.format("%s, %d online cores, load average %s", model, cores, load)
end

--- The timed crowd of bench_lua_agents.lua without hooks: n citizens cycling work /
-- end_work, actions of 1-3 s, no places. Returns the world and the crowd.
function M.timed_crowd(saspu, n, threads)
  local dom = saspu.domain_file("domains/citizen.lua")
  local world = saspu.world {}
  local actions = {}
  for _, a in ipairs(dom:actions()) do actions[a.name] = { duration = { 1, 3 } } end
  local crowd = world:crowd(dom, {
    actions = actions,
    goals = { { "work", priority = 1 }, { { working = false }, priority = 1 } },
  }, { capacity = math.max(n, 1), threads = threads, seed = 1 })
  local packed = dom:encode("start_of_day")
  for _ = 1, n do crowd:spawn_packed(packed, 1, 1) end
  return world, crowd
end

--- The plain Lua loop a game would write for n timed agents (a table per agent, a plan of
-- two steps, a step index, a timer of 1-3 s): returns frame(dt), which advances every agent,
-- and count(), the steps finished so far.
function M.plain_timers(n)
  local random = math.random
  math.randomseed(1)
  local agents = {}
  for i = 1, n do
    agents[i] = { plan = { "work", "end_work" }, step = 1, timer = 1 + 2 * random() }
  end
  local finished = 0
  local function frame(dt)
    for i = 1, n do
      local a = agents[i]
      local t = a.timer - dt
      if t <= 0 then
        finished = finished + 1
        local s = a.step + 1
        if s > #a.plan then s = 1 end
        a.step = s
        t = t + 1 + 2 * random()
      end
      a.timer = t
    end
  end
  return frame, function() return finished end
end

return M
