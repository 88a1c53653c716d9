-- spec/support/trace_town.lua: the small world the trace specs record: three citizens and a market of capacity 1 (one waits, blocked), a sheriff whose goal has no plan.
local saspu = require "saspu"
local support = require "support.agents"

local M = {}

function M.tmp()
  local p = os.tmpname()
  return p
end

-- Two citizens and a market of capacity 1 (one waits, blocked), a sheriff with an
-- escaped outlaw (no plan), in one world.
local SHERIFF = {
  name = "sheriff",
  variables = {
    { name = "outlaw", values = { "at_large", "in_cell", "escaped" } },
    { name = "deputy", values = { "civilian", "sworn_in" } },
  },
  actions = {
    { name = "arrest", var = "outlaw", pre = "at_large", post = "in_cell", prevail = { deputy = "sworn_in" } },
    { name = "swear_in", var = "deputy", pre = "civilian", post = "sworn_in" },
  },
  starts = { escaped = { outlaw = "escaped", deputy = "civilian" } },
  goals = { bring_in_outlaw = { outlaw = "in_cell" } },
}

-- threads: the world's own pool (world:update then updates the crowds together).
function M.town(threads)
  local world = saspu.world { grid = saspu.grid(16, 16), threads = threads,
                              places = { { name = "well", x = 1, y = 1 },
                                         { name = "market", x = 9, y = 3, capacity = 1 } } }
  local citizens = world:crowd(support.citizen(), {
    actions = { buy_food = { at = "market", duration = 3 } },
    goals = { { "work" } },
  })
  local sheriffs = world:crowd(saspu.domain(SHERIFF), { goals = { { "bring_in_outlaw" } } })
  citizens:spawn { start = "start_of_day", x = 2, y = 3 }
  citizens:spawn { start = "start_of_day", x = 14, y = 12 }
  citizens:spawn { start = "start_of_day", x = 10, y = 3 }
  sheriffs:spawn { start = "escaped" }
  return world, citizens, sheriffs
end

-- Runs `frames` frames of dt, recording to `path`; the events as world:events() gave
-- them, and each agent's cell after each frame.
function M.run(world, path, frames, dt, opts)
  opts = opts or {}
  opts.path = path
  world:record(opts)
  local events, cells = {}, {}
  for f = 1, frames do
    world:update(dt)
    for ev in world:events() do
      events[#events + 1] = { frame = f, agent = ev.agent:index(), class = ev.class, kind = ev.kind,
                              action = ev.action, goal = ev.goal, reason = ev.reason,
                              place = ev.place, detail = ev.detail }
    end
    cells[f] = {}
    for k, c in ipairs(world:crowds()) do
      cells[f][k] = {}
      for i = 1, #c do
        local x, y = c:position(i)
        cells[f][k][i] = { x, y }
      end
    end
  end
  local stats = world:stop_recording()
  return events, cells, stats
end

return M
