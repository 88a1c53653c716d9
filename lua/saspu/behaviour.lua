-- lua/saspu/behaviour.lua: a crowd's behaviour table read and checked (actions, goals, when, select, back-off) into the records the C crowd and the hook runner use; errors name the path.
local core = require "saspu.core"
local sides = require "saspu.sides"
local names = require "saspu.names"

local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local floor = math.floor
local string_format = string.format

local Agent = core.Agent
local KIND_BIT = core.event_kinds()
local is_integer, refuse_unknown = sides.is_integer, sides.refuse_unknown
local pack_goal = names.pack_goal

local M = {}

-- The union of two bit masks, without 5.3's operators (the pure-Lua parts run on
-- 5.1 and LuaJIT too); only used while a behaviour is read.
local function union(a, b)
  local r, bit = 0, 1
  while a > 0 or b > 0 do
    if a % 2 == 1 or b % 2 == 1 then r = r + bit end
    a, b, bit = floor(a / 2), floor(b / 2), bit * 2
  end
  return r
end

M.NOT = names.NOT

-- Most goals one `when` may become (one per combination of its sets).
local WHEN_COMBINATIONS = 64

-- The packed `when` conditions of a goal (several when `when` names sets): one per
-- combination, so that exactly one of them holds in any state.
local function pack_when(n, cond, path)
  return names.pack_sets(n, cond, path, WHEN_COMBINATIONS)
end

local ACTION_FIELDS = { duration = true, at = true, on_start = true, on_finish = true,
                        on_fail = true, run = true, interruptible = true,
                        max_failures = true, give_up_for = true }
local GOAL_FIELDS = { [1] = true, priority = true, when = true, recheck = true }
local BEHAVIOUR_FIELDS = { actions = true, goals = true, select = true, facts = true,
                           sensors = true, max_failures = true, give_up_for = true }

-- The back-off of `t` (a behaviour or an action): max_failures (an integer 1..255) and
-- give_up_for (seconds > 0), each `dflt`'s where `t` leaves it out.
local function read_backoff(t, dflt, path)
  local most, pause = t.max_failures, t.give_up_for
  if most == nil then
    most = dflt.max_failures
  elseif not is_integer(most) or most < 1 or most > 255 then
    error(string_format("%s.max_failures: expected an integer from 1 to 255, got %s",
                        path, tostring(most)), 0)
  end
  if pause == nil then
    pause = dflt.give_up_for
  elseif type(pause) ~= "number" or pause ~= pause or pause <= 0 or pause == math.huge then
    error(string_format("%s.give_up_for: expected a number of seconds > 0, got %s",
                        path, tostring(pause)), 0)
  end
  return most, pause
end

-- World:crowd's options: a misspelt one is an error, never ignored (the C side checks
-- each known option's value).
local CROWD_OPTIONS = {
  capacity = true, threads = true, seed = true, speed = true, cooldown = true, retry = true,
  cache_capacity = true, parallel_min = true, goal_budget = true, movement = true, facts = true,
  sensors = true, wake_ahead = true,
}
local CROWD_OPTION_LIST = "capacity, threads, seed, speed, cooldown, retry, cache_capacity, "
  .. "parallel_min, goal_budget, movement, facts, sensors, wake_ahead"

-- The first unknown key of `opts` in sorted order (so the message is the same on every
-- run), or nil.
local function unknown_option(opts)
  local unknown = {}
  for k in pairs(opts) do
    if not CROWD_OPTIONS[k] then unknown[#unknown + 1] = tostring(k) end
  end
  table.sort(unknown)
  return unknown[1]
end

local function check_function(f, path)
  if f ~= nil and type(f) ~= "function" then
    error(string_format("%s: expected a function, got %s", path, type(f)), 0)
  end
  return f
end

-- duration: a number, { min, max } or function(agent) -> rec.min, rec.max, rec.duration_fn.
local function read_duration(d, rec, path)
  if d == nil then return end
  if type(d) == "number" then
    if d < 0 then error(path .. ": must be 0 or more", 0) end
    rec.min, rec.max = d, d
  elseif type(d) == "table" then
    local lo, hi = d[1], d[2]
    if type(lo) ~= "number" or type(hi) ~= "number" or lo < 0 or hi < lo or #d ~= 2 then
      error(path .. ": expected { min, max } with 0 <= min <= max", 0)
    end
    rec.min, rec.max = lo, hi
  elseif type(d) == "function" then
    rec.duration_fn = d
  else
    error(path .. ": expected a number, { min, max } or a function, got " .. type(d), 0)
  end
end

-- The reach of an agent target: an integer >= 0 (cells), default 1.
local function read_reach(reach, path)
  if reach == nil then return 1 end
  if not is_integer(reach) or reach < 0 or reach > 65534 then
    error(path .. ".reach: expected an integer in 0..65534 (cells), got " .. tostring(reach), 0)
  end
  return reach
end

-- at = { agent = handle, reach = n }: the step goes to that agent (of this world, alive),
-- through the `at` function machinery (the C chase follows it as it moves).
local function read_agent_target(at, rec, wside, path)
  local h = at.agent
  local ok, alive = pcall(Agent.alive, h)
  if not ok then error(path .. ".agent: expected a saspu.Agent, got " .. type(h), 0) end
  if not alive then error(path .. ".agent: the agent was despawned (or its crowd closed)", 0) end
  if h:crowd():world() ~= wside.world then
    error(path .. ".agent: a handle of another world", 0)
  end
  rec.reach = read_reach(at.reach, path)
  rec.bind, rec.at_fn = "script", function() return h end
end

-- at: a place name, a kind name, "home", { kind = k }, { agent = handle [, reach = n] }
-- or function(agent) (a place name, x, y, or an agent handle [and a reach]).
local function read_at(at, rec, wside, path)
  if at == nil then return end
  if type(at) == "function" then
    rec.bind, rec.at_fn = "script", at
  elseif type(at) == "string" then
    if at == "home" then
      rec.bind = "home"
    elseif wside.place_ids[at] then
      rec.bind, rec.arg = "place", wside.place_ids[at]
    elseif wside.world:has_kind(at) then
      rec.bind, rec.arg = "kind", at
    else
      error(string_format("%s: unknown place '%s'", path, at), 0)
    end
  elseif type(at) == "table" and at.agent ~= nil then
    refuse_unknown(at, { agent = true, reach = true }, path)
    read_agent_target(at, rec, wside, path)
  elseif type(at) == "table" then
    refuse_unknown(at, { kind = true }, path)
    if type(at.kind) ~= "string" then error(path .. ".kind: expected a place kind name", 0) end
    if not wside.world:has_kind(at.kind) then
      error(string_format("%s.kind: no place of kind '%s'", path, at.kind), 0)
    end
    rec.bind, rec.arg = "kind", at.kind
  else
    error(path .. ": expected a place name, { kind = ... }, { agent = ... }, \"home\" or a "
          .. "function, got " .. type(at), 0)
  end
end

-- One action's record: C settings plus the Lua parts.
local function read_action(name, spec, n, wside, path, backoff)
  if not n.action_ids[name] then
    error(string_format("%s: '%s' is not an action of '%s'", path, tostring(name), n.name), 0)
  end
  if type(spec) ~= "table" then error(path .. ": expected a table, got " .. type(spec), 0) end
  refuse_unknown(spec, ACTION_FIELDS, path)
  local rec = { min = 0, max = 0, bind = "none" }
  read_duration(spec.duration, rec, path .. ".duration")
  read_at(spec.at, rec, wside, path .. ".at")
  rec.on_start = check_function(spec.on_start, path .. ".on_start")
  rec.on_finish = check_function(spec.on_finish, path .. ".on_finish")
  rec.on_fail = check_function(spec.on_fail, path .. ".on_fail")
  rec.run = check_function(spec.run, path .. ".run")
  rec.interruptible = spec.interruptible and true or false
  rec.max_failures, rec.give_up_for = read_backoff(spec, backoff, path)
  -- Lua times the step itself when it runs a script or draws its own duration
  rec.scripted = (rec.run or rec.duration_fn) and true or false
  rec.hook = (rec.on_start or rec.on_finish or rec.on_fail or rec.scripted or rec.at_fn)
             and true or false
  -- the event kinds the hook pass must see for this action
  local steps = rec.scripted or rec.at_fn
  rec.kinds = union(union((rec.on_start or rec.at_fn) and KIND_BIT.step_started or 0,
                          steps and KIND_BIT.waiting or 0),
                    union(rec.on_finish and KIND_BIT.step_finished or 0,
                          (rec.on_fail or steps) and KIND_BIT.step_failed or 0))
  return rec
end

-- One goal entry -> { name, conds (packed, one per combination of its sets), priority,
-- whens (packed or nil), recheck }.
local function read_goal(g, n, path)
  if type(g) ~= "table" then error(path .. ": expected a table, got " .. type(g), 0) end
  refuse_unknown(g, GOAL_FIELDS, path)
  local rec = { priority = g.priority or 0 }
  if not is_integer(rec.priority) then
    error(path .. ".priority: expected an integer, got " .. tostring(g.priority), 0)
  end
  local what = g[1]
  if type(what) == "string" then
    local cond = n.goals[what]
    if not cond then
      error(string_format("%s: unknown goal '%s' of '%s'", path, what, n.name), 0)
    end
    rec.name, rec.conds = what, pack_goal(n, cond, path .. "[1]")
  elseif type(what) == "table" then
    rec.name, rec.conds = path:match("goals%[%d+%]$") or path, pack_goal(n, what, path .. "[1]")
  else
    error(path .. "[1]: expected a goal name or a condition table, got " .. type(what), 0)
  end
  if g.when ~= nil then rec.whens = pack_when(n, g.when, path .. ".when") end
  if g.recheck ~= nil and type(g.recheck) ~= "boolean" then
    error(path .. ".recheck: expected a boolean, got " .. type(g.recheck), 0)
  end
  rec.recheck = g.recheck == true and g.when ~= nil -- without `when` nothing can lapse
  return rec
end

-- Validates a behaviour; returns { actions = { [id] = rec }, goals = { rec... }, hooked }.
function M.read(b, n, wside)
  if type(b) ~= "table" then error("behaviour: expected a table, got " .. type(b), 0) end
  refuse_unknown(b, BEHAVIOUR_FIELDS, "behaviour")
  local out = { actions = {}, goals = {}, hooked = false, kinds = 0 }
  local most, pause = read_backoff(b, { max_failures = 3, give_up_for = 30 }, "behaviour")
  local backoff = { max_failures = most, give_up_for = pause }
  out.select = check_function(b.select, "behaviour.select")
  if out.select then out.hooked, out.kinds = true, KIND_BIT.waiting end
  if b.actions ~= nil then
    if type(b.actions) ~= "table" then error("behaviour.actions: expected a table", 0) end
    -- declaration order of the domain, so errors and settings never depend on pairs()
    for name in pairs(b.actions) do
      if not n.action_ids[name] then
        read_action(name, b.actions[name], n, wside, "behaviour.actions." .. tostring(name))
      end
    end
    for a, name in ipairs(n.action_names) do
      local spec = b.actions[name]
      if spec ~= nil then
        local rec = read_action(name, spec, n, wside, "behaviour.actions." .. name, backoff)
        out.actions[a] = rec
        out.hooked = out.hooked or rec.hook
        out.kinds = union(out.kinds, rec.kinds)
      elseif b.max_failures ~= nil or b.give_up_for ~= nil then
        -- an action left out still takes the behaviour's back-off
        out.actions[a] = { min = 0, max = 0, bind = "none", interruptible = false,
                           scripted = false, hook = false, kinds = 0,
                           max_failures = most, give_up_for = pause }
      end
    end
  end
  if b.goals ~= nil then
    if type(b.goals) ~= "table" then error("behaviour.goals: expected an array", 0) end
    for k in pairs(b.goals) do
      if not is_integer(k) or k < 1 or k > #b.goals then
        error("behaviour.goals: expected an array, found key " .. tostring(k), 0)
      end
    end
    for i, g in ipairs(b.goals) do out.goals[i] = read_goal(g, n, "behaviour.goals[" .. i .. "]") end
  end
  return out
end

M.unknown_option = unknown_option
M.CROWD_OPTION_LIST = CROWD_OPTION_LIST
-- what World:crowd reads, for spec/api_reference_spec.lua
M.CROWD_OPTIONS, M.BEHAVIOUR_FIELDS, M.ACTION_FIELDS = CROWD_OPTIONS, BEHAVIOUR_FIELDS, ACTION_FIELDS

return M
