-- bench/bench_memory.lua: what a crowd says it holds (crowd:stats().bytes_total) against what the process grows by (RSS), for the timed crowd and the Western town, 0 agents against N, after frames.
-- Run: lua5.4 bench/bench_memory.lua [agents] [frames]   (from the repo root, with build/ holding
-- saspu/core.so; SASPU_BUILD_DIR names another build directory). Each size runs in a process of
-- its own (the same interpreter), so one size's freed memory does not hide the other's growth.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local util = require "lua_bench"

local format = string.format

-- The resident set in bytes (/proc/self/statm's second field, in pages).
local function rss_bytes()
  local f = assert(io.open("/proc/self/statm"))
  local _, resident = f:read("n", "n")
  f:close()
  local p = io.popen("getconf PAGESIZE")
  local page = p and tonumber(p:read("a")) or 4096
  if p then p:close() end
  return resident * page
end

-- Where the resident set lies, in bytes (/proc/self/smaps): malloc's brk heap, where small
-- blocks and the Lua heap go, and anonymous mappings, where large arrays go.
local function rss_where()
  local f = io.open("/proc/self/smaps")
  if not f then return 0, 0 end
  local heap, mapped, kind = 0, 0, nil
  for line in f:lines() do
    local name = line:match("^%x+%-%x+ %S+ %S+ %S+ %S+%s*(.*)$")
    if name then
      kind = name == "[heap]" and "heap" or (name == "" and "mapped" or nil)
    else
      local kb = kind and tonumber(line:match("^Rss:%s+(%d+) kB"))
      if kb and kind == "heap" then heap = heap + kb * 1024 end
      if kb and kind == "mapped" then mapped = mapped + kb * 1024 end
    end
  end
  f:close()
  return heap, mapped
end

-- The timed crowd of bench_lua_agents.lua, without hooks: citizens cycling work / end_work,
-- actions of 1-3 s, no places; frames of 1/60 s.
local function timed(n, frames)
  local world, crowd = util.timed_crowd(saspu, n, 2)
  for _ = 1, frames do world:update(1 / 60) end
  return world, { crowd }
end

-- The town of ./dev demo (seven crowds on the 256x256 map, every distance field built
-- ahead by world:warm(): the map's, in the smallest case too), frames of 30 game s from 05:00.
local function town(n, frames)
  local demo = assert(loadfile("tools/demo.lua"))("--module")
  local sim = demo.build { npcs = math.max(n, 7), threads = 2, seed = 1, start = demo.START_HOUR,
                          warm = true }
  for f = 1, frames do demo.step(sim, f, demo.new_acc()) end
  local crowds = {}
  for _, cls in ipairs(sim.classes) do crowds[#crowds + 1] = cls.crowd end
  return sim.world, crowds, sim
end

-- Child: builds one case and prints "rss bytes_total agents world_bytes lua_heap heap mapped"
-- (world_bytes: the world's distance fields and its queue of waiters).
if arg[1] == "--one" then
  local kind, n, frames = arg[2], tonumber(arg[3]), tonumber(arg[4])
  local world, crowds, keep = (kind == "town" and town or timed)(n, frames)
  collectgarbage()
  collectgarbage()
  local total, agents = 0, 0
  for _, c in ipairs(crowds) do
    local s = c:stats()
    total, agents = total + s.bytes_total, agents + s.agents
  end
  local heap, mapped = rss_where()
  local ws = world:stats()
  io.write(format("%d %d %d %d %d %d %d\n", rss_bytes(), total, agents, ws.field_bytes + ws.queue_bytes,
                  math.floor(collectgarbage("count") * 1024), heap, mapped))
  assert(keep or true)
  return
end

local N = tonumber(arg[1]) or 1000000
local FRAMES = tonumber(arg[2]) or 60
local lua = arg[-1] or "lua5.4"

local function run_one(kind, n)
  local p = assert(io.popen(format("%s %s --one %s %d %d", lua, arg[0], kind, n, FRAMES)))
  local out = p:read("a")
  p:close()
  local rss, total, agents, fields, heap, brk, mapped =
    out:match("^(%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+)")
  assert(rss, "bench_memory: a child failed: " .. out)
  return { rss = tonumber(rss), total = tonumber(total), agents = tonumber(agents),
           fields = tonumber(fields), heap = tonumber(heap), brk = tonumber(brk),
           mapped = tonumber(mapped) }
end

print("machine: " .. util.machine(saspu.cores()))
print(format("RSS growth from the smallest case (no agent; the town: one per class) to %d agents\n"
  .. "after %d frames, against the crowds' own bytes_total (summed over the crowds). What else\n"
  .. "grew is listed apart: the world's own bytes (distance fields, queue of waiters) and the\n"
  .. "script's Lua heap (the demo's timers and event lists); `all` = total + world + Lua heap.\n"
  .. "Where the RSS growth lies:\n"
  .. "brk/ag = malloc's heap (small blocks, the Lua heap), maps/ag = anonymous mappings", N, FRAMES))
print(format("%-6s %9s %10s %12s %10s %10s %10s %9s %7s %7s", "case", "agents", "RSS/agent",
             "total/agent", "world/ag", "Lua/agent", "total/RSS", "all/RSS", "brk/ag", "maps/ag"))
for _, kind in ipairs { "timed", "town" } do
  local a, b = run_one(kind, 0), run_one(kind, N)
  local da = b.agents - a.agents
  local rss = (b.rss - a.rss) / da
  local total = (b.total - a.total) / da
  local fields, heap = (b.fields - a.fields) / da, (b.heap - a.heap) / da
  print(format("%-6s %9d %10.1f %12.1f %10.1f %10.1f %9.3fx %8.3fx %7.1f %7.1f", kind, b.agents,
               rss, total, fields, heap, total / rss, (total + fields + heap) / rss,
               (b.brk - a.brk) / da, (b.mapped - a.mapped) / da))
end
