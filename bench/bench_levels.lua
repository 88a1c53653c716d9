-- bench/bench_levels.lua: does memory come back? A game loads level after level (a world of N walking citizens on a 256x256 grid, script data on every fourth agent, a few frames, a save), closes it, collects; RSS before, at the peak and after each level (MB).
-- Run: lua5.4 bench/bench_levels.lua [agents] [levels] [nodata] [crowds=K] [max=MB]   (from the
-- repo root, with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
-- crowds=K splits the N agents over K crowds, each with its own pool of 2 worker threads (whose
-- allocations live in arenas of their own). With max=MB it exits 1 when RSS after a level
-- exceeds RSS before the first by more (CTest's lua_memory_return).
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local saspu = require "saspu"

local N = tonumber(arg[1]) or 1000000
local LEVELS = tonumber(arg[2]) or 3
local DATA, MAX, CROWDS = true, nil, 1 -- agent handles and `data` tables made by the script
for k = 3, #arg do
  if arg[k] == "nodata" then DATA = false
  elseif arg[k]:match("^max=") then MAX = assert(tonumber(arg[k]:sub(5)), "max=MB: a number")
  elseif arg[k]:match("^crowds=") then
    CROWDS = assert(math.tointeger(tonumber(arg[k]:sub(8))), "crowds=K: an integer")
  else error("bench_levels: unknown argument '" .. arg[k] .. "' (nodata, crowds=K, max=MB)") end
end

local function rss_mb()
  local f = assert(io.open("/proc/self/statm"))
  f:read("n")
  local pages = f:read("n")
  f:close()
  return pages * 4096 / 2 ^ 20
end

local function machine()
  local f = io.open("/proc/cpuinfo")
  local model = f and f:read("a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
  if f then f:close() end
  local l = io.open("/proc/loadavg")
  local load = l and l:read("l") or "?"
  if l then l:close() end
  return string.format("%s, %d online cores, load %s", model, saspu.cores(), load)
end

local dom = saspu.domain_file("domains/citizen.lua")
local packed = dom:encode("start_of_day")

-- One level: the world, its crowd, frames and a save; everything dropped at the end.
local function level()
  local places = {}
  for k = 1, 40 do places[k] = { name = "market" .. k, kind = "market", x = k * 6, y = k * 5 % 250 + 1 } end
  local world = saspu.world { grid = saspu.grid(256, 256), places = places }
  local actions = {}
  for _, a in ipairs(dom:actions()) do actions[a.name] = { duration = { 1, 3 } } end
  actions.buy_food.at, actions.buy_drink.at = { kind = "market" }, { kind = "market" }
  local crowds = {}
  for k = 1, CROWDS do
    local n = N // CROWDS + (k <= N % CROWDS and 1 or 0)
    local crowd = world:crowd(dom, { actions = actions, goals = { { "work" } } },
                              { capacity = n, threads = 2, seed = k, speed = 4 })
    for i = 1, n do crowd:spawn_packed(packed, i % 256 + 1, i // 256 % 256 + 1) end
    if DATA then
      for i = 1, n, 4 do crowd:agent(i).data.level = i end
    end
    crowds[k] = crowd
  end
  for _ = 1, 4 do
    world:update(0.5)
    for _ in world:events() do end
  end
  local saved = world:save()
  local peak = rss_mb()
  for _, crowd in ipairs(crowds) do crowd:close() end
  world:close()
  return peak, #saved
end

collectgarbage()
collectgarbage()
local before = rss_mb()
print(string.format("bench_levels: %s; %d agents per level in %d crowd%s", machine(), N,
                    CROWDS, CROWDS == 1 and "" or "s"))
print(string.format("RSS before the first level: %.1f MB", before))
local worst = 0
for l = 1, LEVELS do
  local peak, bytes = level()
  collectgarbage()
  collectgarbage()
  local after = rss_mb()
  local lua_mb = collectgarbage("count") / 1024
  worst = math.max(worst, after - before)
  print(string.format("level %d: peak %.1f MB (save %.1f MB); after close and collect %.1f MB "
                      .. "(%+.1f MB from before; Lua's own heap %.1f MB)", l, peak, bytes / 1e6,
                      after, after - before, lua_mb))
end
print(string.format("worst RSS after a level, from before: %+.1f MB", worst))
if MAX and worst > MAX then
  print(string.format("FAILED: %+.1f MB stayed, more than max=%g", worst, MAX))
  os.exit(1)
end
