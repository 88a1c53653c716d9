-- spec/support/seeded_world.lua: one seeded world with ranged durations drawn in C and in the scripted path; prints its event stream (run by spec/same_events_spec.lua under several Lua versions).
local saspu = require "saspu"

local world = saspu.world { grid = saspu.grid(16, 16),
                            places = { { name = "market", x = 12, y = 4, capacity = 2 },
                                       { name = "well", x = 3, y = 12 } } }
local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {
  actions = {
    buy_food = { at = "market", duration = { 0.5, 7.25 } },  -- drawn in C
    buy_drink = { at = "well", duration = { 1, 3 } },
    -- a script with a ranged duration: drawn by world.lua through core.duration_draw
    eat = { duration = { 0.25, 9.5 }, run = function(_, wait) wait(0.5) end },
    work = { duration = { 2, 11 } },
  },
  goals = { { "work", priority = 1 }, { "buy_supplies" } },
}, { seed = 123456789 })
for k = 1, 40 do
  crowd:spawn { start = "start_of_day", x = 1 + k % 14, y = 1 + (k * 5) % 14 }
end
local out = {}
for frame = 1, 600 do
  world:update(1 / 20)
  for ev in world:events() do
    out[#out + 1] = string.format("%d %d %s %s %s", frame, ev.agent:index(), ev.kind,
                                  tostring(ev.action), tostring(ev.reason))
  end
  if frame % 100 == 0 then crowd:set_all("working", "false") end
end
io.write(table.concat(out, "\n"), "\n")
