-- bench/support/bench_lua.lua: what the Lua benchmarks share: a median, the line naming the machine and its load, the timed crowd.
local M = {}

-- The median of a list (sorted copy; the list is left as it was).
function M.median(t)
  local s = {}
  for i = 1, #t do s[i] = t[i] end
  table.sort(s)
  return s[math.floor((#s + 1) / 2)]
end

-- "machine: <CPU model>, <n> online cores; load <1, 5, 15 min averages ...>"
function M.machine(cores)
  local f = io.open("/proc/cpuinfo")
  local model = f and f:read("a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
  if f then f:close() end
  local load = io.open("/proc/loadavg")
  local avg = load and load:read("l") or "?"
  if load then load:close() end
  return string.format("machine: %s, %d online cores; load %s", model, cores, avg)
end

-- The timed crowd of bench_lua_agents.lua without hooks: n citizens cycling work /
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

return M
