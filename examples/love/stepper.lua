-- examples/love/stepper.lua: a small stand-in executor: NPCs plan with dom:plan, walk with g:path and act, one step per frame.
--
-- Each NPC has a domain, a state (variable -> value name), a routine (goal names, taken
-- in turn) and a table saying where each action happens (action name -> place name;
-- an action with no place happens where the NPC stands). The loop for one NPC:
--   plan the next goal of the routine from its state -> for each action of the plan:
--   walk there along g:path, act for a moment, then set the action's variable to its post
--   value. When the routine is done the day ends: the state goes back to its start.
-- Swap this file for saspu's own executor when it exists: main.lua only calls
-- stepper.new, world:add, world:update and reads the fields documented below.
local saspu = require "saspu"

local clock_ns, floor, sqrt = saspu.clock_ns, math.floor, math.sqrt

local M = {}
local World = {}
World.__index = World

local WALK_SPEED = 7   -- cells per second
local ACT_SECONDS = 0.7

-- stepper.new(grid, places) -> world. places: name -> { x, y } (cells).
-- world.npcs (array), world.stats = { plans, failed_plans, paths, actions, plan_ms, path_ms }
-- (counts since the start; the last plan's and path's time in milliseconds).
function M.new(grid, places)
  return setmetatable({ grid = grid, places = places, npcs = {},
                        stats = { plans = 0, failed_plans = 0, paths = 0, actions = 0,
                                  plan_ms = 0, path_ms = 0 } }, World)
end

-- Action name -> { var, post } of a compiled domain, cached per domain.
local effects_of = setmetatable({}, { __mode = "k" })
local function effects(dom)
  local e = effects_of[dom]
  if not e then
    e = {}
    for _, a in ipairs(dom:actions()) do e[a.name] = { var = a.var, post = a.post } end
    effects_of[dom] = e
  end
  return e
end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- world:add{ name, dom, start = start name, routine = { goal names }, where = { action -> place },
--            x, y (a cell), colour } -> the npc. Fields main.lua reads: x, y (cell, fractional
-- while walking), goal, plan (action names), step (index in plan), doing ("plan" | "walk" |
-- "act" | "idle"), note (the last failure or event).
function World:add(npc)
  npc.start_state = copy(npc.dom:starts()[npc.start])
  npc.state = copy(npc.start_state)
  npc.routine_at, npc.doing, npc.step, npc.plan = 0, "idle", 0, {}
  npc.home_x, npc.home_y = npc.x, npc.y
  self.npcs[#self.npcs + 1] = npc
  return npc
end

local function ms_since(t0)
  return (clock_ns() - t0) / 1e6
end

-- Plans the next goal of the routine; at the end of the routine a new day starts.
local function next_goal(world, npc)
  npc.routine_at = npc.routine_at + 1
  if npc.routine_at > #npc.routine then
    npc.routine_at = 1
    npc.state = copy(npc.start_state)
    npc.note = "a new day"
  end
  npc.goal = npc.routine[npc.routine_at]
  local t0 = clock_ns()
  local plan, why = npc.dom:plan(npc.state, npc.goal)
  world.stats.plan_ms = ms_since(t0)
  world.stats.plans = world.stats.plans + 1
  if not plan then
    world.stats.failed_plans = world.stats.failed_plans + 1
    npc.plan, npc.note = {}, "no plan: " .. why.message
  else
    npc.plan = plan
  end
  npc.step = 0
end

-- Starts step `npc.step` of the plan: a walk to the action's place, or the action itself.
local function start_step(world, npc)
  local action = npc.plan[npc.step]
  local place = world.places[npc.where[action]]
  local cx, cy = floor(npc.x + 0.5), floor(npc.y + 0.5)
  if place and (place[1] ~= cx or place[2] ~= cy) then
    local t0 = clock_ns()
    local path, why = world.grid:path(cx, cy, place[1], place[2])
    world.stats.path_ms = ms_since(t0)
    world.stats.paths = world.stats.paths + 1
    if path then
      npc.path, npc.path_at, npc.doing = path, 1, "walk"
      return
    end
    npc.note = "no path to " .. npc.where[action] .. ": " .. why
  end
  npc.doing, npc.timer = "act", ACT_SECONDS
end

-- Moves along the path by `dist` cells; true on arrival.
local function walk(npc, dist)
  local path = npc.path
  while dist > 0 and npc.path_at < #path do
    local nx, ny = path[npc.path_at + 1][1], path[npc.path_at + 1][2]
    local dx, dy = nx - npc.x, ny - npc.y
    local len = sqrt(dx * dx + dy * dy)
    if len <= dist then
      npc.x, npc.y, npc.path_at, dist = nx, ny, npc.path_at + 1, dist - len
    else
      npc.x, npc.y, dist = npc.x + dx / len * dist, npc.y + dy / len * dist, 0
    end
  end
  return npc.path_at >= #path
end

local function update_npc(world, npc, dt)
  if npc.doing == "idle" then
    next_goal(world, npc)
    npc.doing = "plan"
  end
  if npc.doing == "plan" then
    npc.step = npc.step + 1
    if npc.step > #npc.plan then
      npc.doing = "idle"
      return
    end
    start_step(world, npc)
  elseif npc.doing == "walk" then
    if walk(npc, WALK_SPEED * dt) then
      npc.doing, npc.timer = "act", ACT_SECONDS
    end
  elseif npc.doing == "act" then
    npc.timer = npc.timer - dt
    if npc.timer <= 0 then
      local e = effects(npc.dom)[npc.plan[npc.step]]
      npc.state[e.var] = e.post
      world.stats.actions = world.stats.actions + 1
      npc.doing = "plan"
    end
  end
end

-- world:update(dt): advances every NPC by dt seconds.
function World:update(dt)
  for _, npc in ipairs(self.npcs) do
    update_npc(self, npc, dt)
  end
end

return M
