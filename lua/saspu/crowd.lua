-- lua/saspu/crowd.lua: the Crowd and Agent methods written in Lua (spawn, set_all, goals and priorities, why; set, get, state, inspect), by names instead of ids.
local core = require "saspu.core"
local sides = require "saspu.sides"
local names = require "saspu.names"
local sensors = require "saspu.sensors"

local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local concat, string_format = table.concat, string.format

local Crowd, Agent = core.Crowd, core.Agent
local crowd_side, check_cell = sides.crowd_side, sides.check_cell
local is_integer, refuse_unknown = sides.is_integer, sides.refuse_unknown
local var_value, why_of = names.var_value, names.why_of

--- Part of module saspu: the Crowd and Agent methods of crowd.lua (LDoc merges it, config.ld).
-- @module saspu

--- @type Crowd

--- Spawns an agent.
-- @tparam table spec `{ start = start name | { var = value }, state = { var = value }
-- (overrides values of start), x = 1, y = 1, home = place name }`
-- @treturn Agent
-- @raise "saspu.Crowd:spawn: start: unknown start 'x' of 'horse_breeder'";
-- "saspu.Crowd:spawn: x = 99 is outside 1..4"; "saspu.Crowd:spawn: home: unknown place 'h'";
-- "saspu.Crowd:spawn: unknown field 'k'"; "saspu.Crowd:spawn: crowd: full (capacity 1)";
-- a value error naming the variable.
function Crowd:spawn(spec)
  local side = crowd_side(self)
  if type(spec) ~= "table" then error("saspu.Crowd:spawn: expected a table, got " .. type(spec), 2) end
  refuse_unknown(spec, { start = true, state = true, x = true, y = true, home = true },
                 "saspu.Crowd:spawn")
  local dom = self:domain()
  local start = spec.start
  if type(start) == "string" and not dom:starts()[start] then
    error(string_format("saspu.Crowd:spawn: start: unknown start '%s' of '%s'", start, side.names.name), 2)
  elseif type(start) ~= "string" and type(start) ~= "table" then
    error("saspu.Crowd:spawn: start: expected a start name or a state table, got " .. type(start), 2)
  end
  if spec.state ~= nil and type(spec.state) ~= "table" then
    error("saspu.Crowd:spawn: state: expected a table of variable = value, got " .. type(spec.state), 2)
  end
  local ok, packed = pcall(dom.encode, dom, spec.state or start, start)
  if not ok then error("saspu.Crowd:spawn: " .. tostring(packed):gsub("^saspu.Domain:encode: ", ""), 2) end
  local x, y = spec.x or 1, spec.y or 1
  check_cell(side.world, x, y, "saspu.Crowd:spawn")
  local home
  if spec.home ~= nil then
    home = side.wside.place_ids[spec.home]
    if not home then error(string_format("saspu.Crowd:spawn: home: unknown place '%s'", tostring(spec.home)), 2) end
  end
  local i = self:spawn_packed(packed, x, y, home)
  return self:agent(i)
end

--- Adds sensors to a crowd made already (`crowd:sense { var = { near = other, r = 3 } }`),
-- with the fields of `World:crowd`'s `sensors` option: for crowds that sense each other,
-- made first and then told what they sense. Agents spawned already read the new sensors
-- at the next update.
--     local bandits = world:crowd(bandit_dom, bandit_beh)
--     local sheriffs = world:crowd(sheriff_dom, sheriff_beh,
--                                  { sensors = { bandit_near = { near = bandits, r = 4 } } })
--     bandits:sense { sheriff_near = { near = sheriffs, r = 6 } }
-- @tparam table spec the sensors, `{ var = { near = crowd | near_kind = kind, r = cells, period =
-- seconds, values = { off, on } } }`
-- @raise "saspu.Crowd:sense: sensors.sheriff_near.near: expected a crowd of this world";
-- "saspu.Crowd:sense: sensors.sheriff_near: sensor of variable 'sheriff_near': it is a
-- sensor's or a world fact's already"; the errors of `World:crowd`'s `sensors`.
function Crowd:sense(spec)
  local side = crowd_side(self)
  if spec == nil then error("saspu.Crowd:sense: expected a table { variable = { ... } }, got nil", 2) end
  local sensed = sensors.add(side.world, self, side.names, spec, sides.crowds, "saspu.Crowd:sense: sensors")
  for v, name in pairs(sensed) do side.sensed[v] = name end
end

-- The refusal of a set on a sensor's variable.
local function sensed_message(where, var)
  return string_format("%s: variable '%s' is a sensor's (the update sets it)", where, tostring(var))
end

-- The refusal of a set on a variable tied to a world fact.
local function tied_message(where, var, fact)
  return string_format("%s: variable '%s' is the world's fact '%s' (set it with world:set)",
                       where, tostring(var), fact)
end

--- Sets `var` of every agent: a world change (plans it breaks replan with `world_changed`).
-- @tparam string var
-- @param value a value of var
-- @raise "saspu.Crowd:set_all: 'x' is not a value of 'bucket' (on_floor, in_hands)";
-- "saspu.Crowd:set_all: unknown variable 'v'".
function Crowd:set_all(var, value)
  local side = crowd_side(self)
  local v, x = var_value(side.names, var, value)
  if not v then error("saspu.Crowd:set_all: " .. x, 2) end
  if side.tied[v] then error(tied_message("saspu.Crowd:set_all", var, side.tied[v]), 2) end
  if side.sensed[v] then error(sensed_message("saspu.Crowd:set_all", var), 2) end
  self:set_var_all(v, x)
end

--- Sets `var` of the agents `agents[1..n]` (indices, as `crowd:near` gives them) to one
-- value: a world change for each, as `agent:set` is, in one call. Every index is checked
-- before any agent changes, so a bad one changes nothing.
-- @tparam {int,...} agents agent indices (1-based)
-- @tparam string var
-- @param value a value of var
-- @tparam[opt=#agents] int n how many of `agents` to take
-- @raise "saspu.Crowd:set_many: 'x' is not a value of 'bucket' (on_floor, in_hands)";
-- "bad argument #1 to 'set_var_many' (agents[3] = 9 is outside 1..8)" (likewise
-- "was despawned", "is not an agent index").
-- @usage
-- local near = {}
-- local n = guards:near(bank_x, bank_y, 20, near)
-- guards:set_many(near, "alert", "raised", n)
function Crowd:set_many(agents, var, value, n)
  local side = crowd_side(self)
  local v, x = var_value(side.names, var, value)
  if not v then error("saspu.Crowd:set_many: " .. x, 2) end
  if side.tied[v] then error(tied_message("saspu.Crowd:set_many", var, side.tied[v]), 2) end
  if side.sensed[v] then error(sensed_message("saspu.Crowd:set_many", var), 2) end
  if type(agents) ~= "table" then
    error("saspu.Crowd:set_many: agents must be a table of agent indices, got " .. type(agents), 2)
  end
  self:set_var_many(agents, v, x, n)
end

-- The low-level add_goal (C) names the goal it adds "goal <index>" in the script side,
-- so the goal names stay a list by index that saves carry whole (select renames the goals
-- it adds); the behaviour's own goals are named by world:crowd, before its side exists.
local add_goal = Crowd.add_goal
function Crowd:add_goal(condition, priority, when)
  local id = add_goal(self, condition, priority, when)
  local side = sides.crowds[self]
  if side and side.goal_names[id] == nil then side.goal_names[id] = "goal " .. id end
  return id
end

--- The behaviour's goals by index (the names in events).
-- @treturn {string,...}
-- @raise "saspu.Crowd: not made by world:crowd".
function Crowd:goal_names()
  local out = {}
  for i, g in ipairs(crowd_side(self).goal_names) do out[i] = g end
  return out
end

-- The ids of the goals named `goal` (a behaviour's goal with sets in `when` is several);
-- raises "<where>: unknown goal 'x' (a, b)" at the caller's caller when there is none.
local function goal_ids_named(side, goal, where)
  local ids = {}
  for i, name in ipairs(side.goal_names) do
    if name == goal then ids[#ids + 1] = i end
  end
  if #ids == 0 then
    error(string_format("%s: unknown goal '%s' (%s)", where, tostring(goal),
                        concat(side.goal_names, ", ")), 3)
  end
  return ids
end

--- Changes a goal's priority now, for every agent of the crowd.
-- The goals are sorted again (among equal priorities, the earlier listed first); an
-- idle agent looks again, and a running plan yields to a goal now strictly higher as it
-- would to any (between steps, or mid-step when the step is interruptible). Every goal
-- of the behaviour with that name takes it.
--     crowd:set_priority("flee", 100)   -- the alarm rang
-- @function Crowd:set_priority
-- @tparam string goal a goal name of the behaviour (or one `select` added)
-- @tparam int priority
-- @raise "saspu.Crowd:set_priority: unknown goal 'sleep' (work, have_a_meal)";
-- "saspu.Crowd:set_priority: priority must be an integer, got 1.5"; "saspu.Crowd: closed".
function Crowd:set_priority(goal, priority)
  local side = crowd_side(self)
  if not is_integer(priority) then
    error("saspu.Crowd:set_priority: priority must be an integer, got " .. tostring(priority), 2)
  end
  for _, i in ipairs(goal_ids_named(side, goal, "saspu.Crowd:set_priority")) do
    self:set_goal_priority(i, priority)
  end
end

--- A goal's priority now.
-- @function Crowd:priority
-- @tparam string goal a goal name of the behaviour
-- @treturn int
-- @raise "saspu.Crowd:priority: unknown goal 'sleep' (work, have_a_meal)".
function Crowd:priority(goal)
  local side = crowd_side(self)
  local i = side.goal_ids[goal]
  if not i then
    error(string_format("saspu.Crowd:priority: unknown goal '%s' (%s)", tostring(goal),
                        concat(side.goal_names, ", ")), 2)
  end
  return self:goal_priority(i)
end

--- What blocks the goal of an agent's last `no_plan`, in the domain's words.
-- Judged from the agent's state now, so never stale: nil once that goal has a plan (or
-- when the agent's last failure was no `no_plan`).
-- @function Crowd:why
-- @tparam int i the agent's index
-- @treturn table|nil `{ kind, goal, variable, current, needs, action, missing, link,
--   message, planner }`: `variable` is at `current` and has no way toward `needs`, the
--   value every plan needs (the goal's own value, or a prevail of `action` on the only
--   way to it); `missing` is the link that would open the way ("an action setting outlaw
--   from escaped to at_large", `link = { variable, from, to }`); `kind` is
--   `"no_way_out"`, `"nothing_sets"` or `"order"` (every value is reachable, but no order
--   of the needed actions works: `planner` says why); `tostring(why)` is `message`. For a
--   goal of sets, `choice = 1` when no blocker of every member was found and this one is
--   the first member's (the message then begins "no choice of the goal has a plan").
-- @raise "saspu.Crowd: closed"; "agent 9 is outside 1..1".
function Crowd:why(i)
  return why_of(self, i)
end

--- @type Agent

--- Sets one variable of the agent: a world change (a plan it breaks replans with
-- `world_changed`).
-- @tparam string var
-- @param value a value of var
-- @raise "saspu.Agent:set: unknown variable 'nosuch'"; a value that is not var's;
-- "saspu.Agent: closed".
function Agent:set(var, value)
  local c = self:crowd()
  local side = crowd_side(c)
  local v, x = var_value(side.names, var, value)
  if not v then error("saspu.Agent:set: " .. x, 2) end
  if side.tied[v] then error(tied_message("saspu.Agent:set", var, side.tied[v]), 2) end
  if side.sensed[v] then error(sensed_message("saspu.Agent:set", var), 2) end
  c:set_var(self:index(), v, x)
end

--- One variable of the agent's state.
-- @tparam string var
-- @return the value, in its declared form
-- @raise "saspu.Agent:get: unknown variable 'nosuch'"; "saspu.Agent: closed".
function Agent:get(var)
  local c = self:crowd()
  local n = crowd_side(c).names
  local v = n.var_ids[var]
  if not v then error(string_format("saspu.Agent:get: unknown variable '%s'", tostring(var)), 2) end
  return n.value_names[v][c:state(self:index()):byte(v) + 1]
end

--- The agent's state.
-- @treturn table `{ var = value }`
-- @raise "saspu.Agent: closed".
function Agent:state()
  local c = self:crowd()
  return c:domain():decode(c:state(self:index()))
end

--- Gives one goal this agent's own priority (nil: the crowd's again). The agent chooses
-- among its goals as if the goal had that priority; the other agents keep the crowd's
-- (`Crowd:set_priority`). Its refusals are forgotten, an idle agent looks again, and a
-- running plan yields to a goal now strictly higher for it (between steps, or mid-step
-- when the step is interruptible). Every goal of the behaviour with that name takes it.
-- Only agents given one cost memory (12 bytes a goal); a save keeps it, a despawn drops it.
--     guard:set_priority("flee", 100)   -- this one saw the fire
-- @tparam string goal a goal name of the behaviour (or one `select` added)
-- @tparam ?int priority
-- @raise "saspu.Agent:set_priority: unknown goal 'sleep' (work, have_a_meal)";
-- "saspu.Agent:set_priority: priority must be an integer or nil, got 1.5";
-- "saspu.Agent: closed"; "saspu.Agent: despawned".
function Agent:set_priority(goal, priority)
  local c = self:crowd()
  local side = crowd_side(c)
  if priority ~= nil and not is_integer(priority) then
    error("saspu.Agent:set_priority: priority must be an integer or nil, got " .. tostring(priority), 2)
  end
  for _, g in ipairs(goal_ids_named(side, goal, "saspu.Agent:set_priority")) do
    c:set_agent_priority(self:index(), g, priority)
  end
end

--- The priority a goal has for this agent now: its own, or the crowd's.
-- @tparam string goal a goal name of the behaviour
-- @treturn int
-- @treturn boolean whether it is the agent's own (`Agent:set_priority`)
-- @raise "saspu.Agent:priority: unknown goal 'sleep' (work, have_a_meal)";
-- "saspu.Agent: closed"; "saspu.Agent: despawned".
function Agent:priority(goal)
  local c = self:crowd()
  local side = crowd_side(c)
  local g = side.goal_ids[goal]
  if not g then
    error(string_format("saspu.Agent:priority: unknown goal '%s' (%s)", tostring(goal),
                        concat(side.goal_names, ", ")), 2)
  end
  return c:agent_priority(self:index(), g)
end

-- a:despawn(), a:teleport(x, y), a:arrived(), a:move_failed([reason]): lua/saspu/lifecycle.lua.
require("saspu.lifecycle").install(Agent, { crowd_side = crowd_side, check_cell = check_cell })
-- crowd:moves(out), a:moving(), a:teleport's quick path: lua/saspu/engine.lua.
require("saspu.engine").install(Crowd, Agent, { crowd_side = crowd_side })

-- Where plan step `action` of this agent binds (a text for inspect).
local function bound(side, rec, info)
  if not rec or rec.bind == "none" then return nil end
  if rec.bind == "place" then return side.wside.place_names[rec.arg] end
  if rec.bind == "kind" then return "nearest " .. rec.arg end
  if rec.bind == "home" then return info.home and side.wside.place_names[info.home] or "home" end
  return "script"
end

-- Most events an inspected agent's history keeps.
local MAX_HISTORY = 64

--- Everything about the agent, by names, for debugging.
-- A plain `a:inspect()` reads the agent and costs nothing afterwards. To also see what
-- it did, ask for a history: `a:inspect { history = n }` keeps the agent's last `n`
-- events (1..64) from then on, returned as `events` by every later inspect;
-- `a:inspect { history = 0 }` stops keeping them. While up to 8 agents of a crowd keep a
-- history, each update finds their events in C (one scan of the frame's events per
-- agent); while more do, it reads that crowd's events once more in Lua (a debug overlay
-- that inspects every agent each frame should not ask for histories).
-- @tparam[opt] table opts `{ history = n }`: keep (n > 0) or stop keeping (0) the
-- agent's last events
-- @treturn table `{ class, crowd, state, goal, phase, plan = { { action, done, at }, ... },
-- step, action, time_left, x, y, target, target_x, target_y, home, last_reason,
-- last_action, why, events }`; `events` (`{ { kind, reason, goal, action }, ... }`,
-- oldest first) only while a history is kept
-- @raise "saspu.Agent:inspect: history must be an integer from 0 to 64, got 100";
-- "saspu.Agent:inspect: unknown field 'x'"; "saspu.Agent: closed".
function Agent:inspect(opts)
  local c = self:crowd()
  local side = crowd_side(c)
  local i = self:index()
  if opts ~= nil then
    if type(opts) ~= "table" then
      error("saspu.Agent:inspect: expected nil or a table { history = n }, got " .. type(opts), 2)
    end
    refuse_unknown(opts, { history = true }, "saspu.Agent:inspect")
    local n = opts.history
    if n ~= nil then
      if not is_integer(n) or n < 0 or n > MAX_HISTORY then
        error(string_format("saspu.Agent:inspect: history must be an integer from 0 to %d, got %s",
                            MAX_HISTORY, tostring(n)), 2)
      end
      local log = side.watch[i]
      if n == 0 and log then
        side.watch[i], side.watching = nil, side.watching - 1
        -- the last one: a new table, as an emptied one keeps its size for next() to scan
        if side.watching == 0 then side.watch = {} end
      elseif log then
        log.max = n
        while #log > n do table.remove(log, 1) end
      elseif n > 0 then
        side.watch[i], side.watching = { max = n }, side.watching + 1
      end
    end
  end
  local info = c:info(i, {})
  local n = side.names
  info.class = n.name
  info.crowd = tostring(c)
  info.state = self:state()
  info.goal = info.goal and side.goal_names[info.goal] or nil
  info.action = info.action and n.action_names[info.action] or nil
  info.last_action = info.last_action and n.action_names[info.last_action] or nil
  info.target = info.target and side.wside.place_names[info.target] or nil
  info.home = info.home and side.wside.place_names[info.home] or nil
  local ids = {}
  local len = c:plan(i, ids)
  local plan = {}
  for k = 1, len do
    local a = ids[k]
    plan[k] = { action = n.action_names[a], done = ids.done[k], at = bound(side, side.actions[a], info) }
  end
  if info.step and plan[info.step] then
    plan[info.step].at = info.target or (info.target_x and (info.target_x .. "," .. info.target_y))
                         or plan[info.step].at
  end
  info.plan = len > 0 and plan or nil
  info.why = info.last_reason == "no_plan" and why_of(c, i) or nil
  local log = side.watch[i]
  if log then
    local events = {}
    for k, e in ipairs(log) do events[k] = { kind = e.kind, reason = e.reason, goal = e.goal, action = e.action } end
    info.events = events
  end
  return info
end

return {}
