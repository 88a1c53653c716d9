-- spec/support/agents.lua: helpers for the agents specs: a town, a frame runner that records events as a trace.
local saspu = require "saspu"

local M = {}

M.citizen = function() return saspu.domain_file("domains/citizen.lua") end
-- The citizen with one more value of `debating` ("heated"): a changed domain for a
-- world:load with migrate, where no plan's action changed.
M.citizen_heated = function()
  local spec = saspu.load("domains/citizen.lua")
  for _, v in ipairs(spec.variables) do
    if v.name == "debating" then v.values[#v.values + 1] = "heated" end
  end
  return saspu.domain(spec)
end
M.horse = function() return saspu.domain_file("domains/horse_breeder.lua") end

-- A world without a grid and one citizen crowd with two goals, work (priority 5) above
-- buy_supplies (1): the priority specs' town. Returns the world and the crowd.
function M.two_goal_town()
  local world = saspu.world {}
  local crowd = world:crowd(M.citizen(), {
    actions = { work = { duration = 5 }, buy_food = { duration = 1 } },
    goals = { { "work", priority = 5 }, { "buy_supplies", priority = 1 } },
  })
  return world, crowd
end

-- Whether a report (a list of lines, as world:load returns) has a line containing `text`.
function M.has_line(report, text)
  for _, line in ipairs(report) do
    if line:find(text, 1, true) then return true end
  end
  return false
end

-- One event as text: kind[:action][/reason].
local function event_text(ev)
  local s = ev.kind
  if ev.action then s = s .. ":" .. ev.action end
  if ev.reason then s = s .. "/" .. ev.reason end
  return s
end
M.event_text = event_text

-- Runs `frames` updates of dt; returns the trace of `agent`'s events (every agent's
-- when nil): events of a frame joined by spaces, frames by " | ".
function M.run(world, agent, frames, dt, each)
  local out = {}
  for f = 1, frames do
    world:update(dt)
    local evs = {}
    for ev in world:events() do
      if each then each(ev) end
      if agent == nil or ev.agent == agent then evs[#evs + 1] = event_text(ev) end
    end
    out[f] = table.concat(evs, " ")
  end
  return (table.concat(out, " | "):gsub("  +", " "))
end

return M
