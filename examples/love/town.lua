-- examples/love/town.lua: the LÖVE town's NPCs on saspu.world with movement = "engine": saspu chooses goals, plans and times actions; the game walks the sprites in pixels and reports arrival.
--
-- Each NPC class is a crowd (`movement = "engine"`). Its behaviour says where each action
-- happens (a place of the map) and how long it takes; `select` hands out the NPC's
-- routine (goal names, taken in turn, skipping those that hold already). When the routine
-- is done the NPC's day starts over: its state goes back to the start and `select` is
-- asked again. A `move` event gives the target cell: the game finds a path with g:path
-- and moves the sprite along it, telling saspu each new cell (a:teleport) and the arrival
-- (a:arrived); with no path it says a:move_failed("no path").
local saspu = require "saspu"

local floor, sqrt, min = math.floor, math.sqrt, math.min

local M = {}
local Town = {}
Town.__index = Town

local WALK_SPEED = 7    -- cells per second, in pixels on screen
local ACT_SECONDS = 0.7 -- every action
local STEP = 0.25       -- the longest update of the world (seconds)

-- M.new(grid, places) -> town. places: name -> { x, y } (cells). town.npcs (array) and
-- town.stats = { plans, failed_plans, failed_steps, paths, actions, routines,
-- plan_ms } (counts since the start; the last update's planning time), town.clock
-- (simulated seconds).
function M.new(grid, places)
  local list = {}
  for name, p in pairs(places) do list[#list + 1] = { name = name, x = p[1], y = p[2] } end
  table.sort(list, function(a, b) return a.name < b.name end) -- ids never follow pairs()
  local world = saspu.world { grid = grid, places = list }
  return setmetatable({ grid = grid, world = world, npcs = {}, crowds = {}, clock = 0,
                        stats = { plans = 0, failed_plans = 0, failed_steps = 0, paths = 0,
                                  actions = 0, routines = 0, plan_ms = 0 } }, Town)
end

-- True when the domain goal `cond` ({ var = value }, saspu.KEEP: any) holds for `agent`.
local function holds(agent, cond)
  for var, value in pairs(cond) do
    if value ~= saspu.KEEP and agent:get(var) ~= value then return false end
  end
  return true
end

-- The next goal of the NPC's routine that does not hold yet, or nil at its end.
local function next_goal(agent)
  local npc = agent.data.npc
  local goals = npc.goals
  while npc.routine_at < #npc.routine do
    npc.routine_at = npc.routine_at + 1
    local name = npc.routine[npc.routine_at]
    if not holds(agent, goals[name]) then
      npc.goal = name
      return name
    end
  end
  npc.goal = nil
  return nil
end

-- The crowd of one class: every action at its place (or where the NPC stands).
function Town:crowd_of(dom, where)
  local c = self.crowds[dom]
  if c then return c end
  local actions = {}
  for _, a in ipairs(dom:actions()) do
    actions[a.name] = { duration = ACT_SECONDS, at = where[a.name] }
  end
  c = self.world:crowd(dom, { actions = actions, select = next_goal },
                       { movement = "engine", capacity = 64 })
  self.crowds[dom] = c
  return c
end

-- town:add{ name, dom, start = start name, routine = { goal names }, where = { action ->
-- place name ("home": the NPC's home) }, x, y (a cell), home = place name, colour } ->
-- the npc. Fields main.lua reads: px, py (cell coordinates, fractional while walking),
-- agent (its saspu.Agent), goal, note (the last failure or event), moved.
function Town:add(npc)
  local c = self:crowd_of(npc.dom, npc.where)
  npc.agent = c:spawn { start = npc.start, x = npc.x, y = npc.y, home = npc.home }
  npc.agent.data.npc = npc
  npc.goals = npc.dom:goals()
  npc.start_state = npc.dom:starts()[npc.start]
  npc.routine_at = 0
  npc.px, npc.py = npc.x, npc.y
  self.npcs[#self.npcs + 1] = npc
  return npc
end

-- A new day for the NPC: its state back to the start, its routine from the top.
local function new_day(town, npc)
  for var, value in pairs(npc.start_state) do npc.agent:set(var, value) end
  npc.routine_at = 0
  npc.note = "a new day"
  town.stats.routines = town.stats.routines + 1
end

-- Walks the sprite along its path by dt; saspu hears of each new cell and the arrival.
local function walk(npc, dt)
  local path = npc.path
  local dist = WALK_SPEED * dt
  while dist > 0 and npc.path_at < #path do
    local nx, ny = path[npc.path_at + 1][1], path[npc.path_at + 1][2]
    local dx, dy = nx - npc.px, ny - npc.py
    local len = sqrt(dx * dx + dy * dy)
    if len <= dist then
      npc.px, npc.py, npc.path_at, dist = nx, ny, npc.path_at + 1, dist - len
      npc.agent:teleport(nx, ny)
      npc.moved = true
    else
      npc.px, npc.py, dist = npc.px + dx / len * dist, npc.py + dy / len * dist, 0
    end
  end
  if npc.path_at >= #path then
    npc.path = nil
    npc.agent:arrived()
  end
end

-- The game's side of a `move`: a path from the sprite's cell to the target.
local function start_move(town, npc, ev)
  local x, y = npc.agent:position()
  local path = town.grid:path(x, y, ev.x, ev.y)
  town.stats.paths = town.stats.paths + 1
  if not path then
    npc.agent:move_failed("no path")
    return
  end
  npc.path, npc.path_at = path, 1
end

local function on_event(town, ev)
  local npc = ev.agent.data.npc
  local s, kind = town.stats, ev.kind
  if kind == "planned" or kind == "replanned" then
    s.plans = s.plans + 1
  elseif kind == "no_plan" then
    s.failed_plans = s.failed_plans + 1
    npc.note = "no plan: " .. tostring(ev.reason)
  elseif kind == "step_failed" then
    s.failed_steps = s.failed_steps + 1
    npc.note = ev.action .. " failed: " .. tostring(ev.reason)
  elseif kind == "step_finished" then
    s.actions = s.actions + 1
  elseif kind == "move" then
    start_move(town, npc, ev)
  elseif kind == "goal_reached" then
    npc.note = "reached " .. tostring(ev.goal)
  elseif kind == "idle" and ev.reason == "no_goal" then
    new_day(town, npc) -- the routine is done
  end
end

-- town:update(dt): the sprites walk, then saspu advances, in steps of at most STEP.
function Town:update(dt)
  while dt > 0 do
    local step = min(dt, STEP)
    dt = dt - step
    for _, npc in ipairs(self.npcs) do
      if npc.path then walk(npc, step) end
    end
    self.world:update(step)
    self.clock = self.clock + step
    for ev in self.world:events() do on_event(self, ev) end
    for _, npc in ipairs(self.npcs) do
      if not npc.path then npc.px, npc.py = npc.agent:position() end
    end
  end
  local ms = 0
  for _, c in pairs(self.crowds) do ms = ms + c:stats({}, true).ms_planning end
  self.stats.plan_ms = ms
end

-- The cell a fractional position rounds to.
function M.cell(x, y) return floor(x + 0.5), floor(y + 0.5) end

return M
