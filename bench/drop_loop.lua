-- bench/drop_loop.lua: RSS of a loop that drops 1M-NPC populations and 1024x1024 grids without closing them (the collector must see their C memory).
-- Usage: eval "$(./dev env)"; lua5.4 bench/drop_loop.lua [rounds [npcs [nogrid]]]
local saspu = require "saspu"

local rounds, npcs = tonumber(arg[1]) or 100, tonumber(arg[2]) or 1000000
local grids = arg[3] ~= "nogrid"

local function rss_mb()
  local f = assert(io.open("/proc/self/statm"))
  f:read("*n") -- total program size; the resident size comes next
  local pages = f:read("*n")
  f:close()
  return pages * 4096 / 2^20
end

local dom = saspu.domain_file("domains/citizen.lua")
local goal = dom:encode(next(dom:goals()), next(dom:starts()))
collectgarbage()
local before = rss_mb()
local peak = before
for _ = 1, rounds do
  local pop = saspu.population(dom, npcs)
  pop:set_goal_all(goal)
  pop:mark_dirty()
  if grids then
    local g = saspu.grid(1024, 1024)
    g:path_into({}, 1, 1, 1024, 1024)
  end
  peak = math.max(peak, rss_mb())
end
print(string.format("%d rounds of a %d-NPC population and a 1024x1024 grid, dropped: " ..
                    "RSS %.1f MB before, %.1f MB after, %.1f MB peak; Lua heap %.0f KB",
                    rounds, npcs, before, rss_mb(), peak, collectgarbage("count")))
