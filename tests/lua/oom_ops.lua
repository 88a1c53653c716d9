-- tests/lua/oom_ops.lua: the Lua entry points tests/lua_oom_host.c runs with an allocator that fails at the Nth allocation.
-- Returns { setup = function() -> objects, ops = { { name, function(objects) }, ... } }.
-- setup runs with memory; each op runs once with a failing allocator and once without,
-- on the same objects, so it must be repeatable.
local saspu = require "saspu"

local CITIZEN = dofile("domains/citizen.lua")
local ASCII = "==========\n=.......#=\n=.......#=\n=========="

local function setup()
  local o = {}
  o.dom = saspu.domain(CITIZEN)
  o.s0 = o.dom:encode("start_of_day")
  o.goal = o.dom:encode("have_a_meal", o.s0)
  o.out = {}
  o.pop = saspu.population(o.dom, 50)
  o.grid = saspu.grid(16, 16)
  o.world = saspu.world { grid = saspu.grid_from_ascii(ASCII),
                          places = { { name = "market", x = 2, y = 2 } } }
  o.crowd = o.world:crowd(o.dom, { actions = { buy_food = { duration = 1, at = "market" } },
                                   goals = { { "have_a_meal", priority = 1 } } })
  o.crowd:spawn { start = "start_of_day", x = 3, y = 2 }
  -- a short trace of another world, read back streamed and summed up
  o.trace = os.tmpname()
  local w = saspu.world { grid = saspu.grid_from_ascii(ASCII), places = { { name = "market", x = 2, y = 2 } } }
  local c = w:crowd(o.dom, { actions = { buy_food = { duration = 1, at = "market" } },
                             goals = { { "have_a_meal", priority = 1 } } })
  c:spawn { start = "start_of_day", x = 3, y = 2 }
  c:spawn { start = "start_of_day", x = 5, y = 3 }
  w:record { path = o.trace, positions = 1 }
  for _ = 1, 6 do w:update(0.5) end
  w:stop_recording()
  return o
end

local ops = {
  { "saspu.domain", function() saspu.domain(CITIZEN):close() end },
  { "dom:plan", function(o) assert(o.dom:plan("start_of_day", "have_a_meal")) end },
  { "dom:plan_ids", function(o) assert(o.dom:plan_ids(o.s0, o.goal, o.out) > 0) end },
  { "dom:encode", function(o) o.dom:encode({ hunger = "fed", thirst = "hydrated" }, o.s0) end },
  { "saspu.population", function(o) saspu.population(o.dom, 3000):close() end },
  { "pop:set", function(o) o.pop:set(7, "start_of_day", "have_a_meal") end },
  { "pop:plan", function(o)
      o.pop:mark_dirty()
      assert(o.pop:plan { threads = 2, oversubscribe = true }.planned == 50)
    end },
  { "saspu.grid", function() saspu.grid(40, 30):close() end },
  { "grid:path", function(o) assert(o.grid:path(1, 1, 16, 16)) end },
  { "saspu.world", function()
      saspu.world { grid = saspu.grid_from_ascii(ASCII),
                    places = { { name = "market", x = 2, y = 2 } } }:close()
    end },
  { "world:crowd", function(o)
      o.world:crowd(o.dom, { goals = { { "have_a_meal", priority = 1 } } })
    end },
  { "crowd:spawn", function(o) o.crowd:spawn { start = "start_of_day", x = 4, y = 3 } end },
  { "world:update", function(o) o.world:update(0.5) end },
  { "saspu.trace.scan", function(o)
      local t = saspu.trace.scan(o.trace, { summary = true, agents = { { 1, 2 } }, keyframes = { 1, 4 }, bin = 2,
                                            bw = 5, bh = 2 })
      assert(#t:summary().classes == 1 and #t.raw:density() == 2 and #t:history(1, 2).events > 0)
    end },
}

return { setup = setup, ops = ops }
