-- lua/saspu/world.lua: worlds, crowds and agents for scripts: behaviour tables checked with path errors, names instead of ids, hooks and coroutines run after the C update.
--
-- The C side (csrc/lua/world.c, crowd.c, agent.c) moves every agent; this file only
-- translates names, validates behaviours, and runs Lua for the events of actions that
-- have hooks. A crowd without hooks never enters Lua during world:update.
local core = require "saspu.core"
local KEEP = core.KEEP

local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local getmetatable = getmetatable
local next, setmetatable, floor = next, setmetatable, math.floor
local unpack = table.unpack or unpack

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

-- True for an integral number (an integer on 5.3+, a whole float before).
local function is_integer(x)
  return type(x) == "number" and x == floor(x) and x - 1 ~= x
end
local co_create, co_resume, co_status, co_yield = coroutine.create, coroutine.resume,
  coroutine.status, coroutine.yield
local co_running, co_isyieldable, co_close = coroutine.running, coroutine.isyieldable,
  coroutine.close
local huge = math.huge
local concat, string_char, string_format = table.concat, string.char, string.format

local World, Crowd, Agent = core.World, core.Crowd, core.Agent
local facts = require "saspu.facts"
local sensors = require "saspu.sensors"
local duration_draw = core.duration_draw
local KIND_BIT = core.event_kinds()

local ANY = 0xFF
local HISTORY = 8 -- events kept per inspected agent

-- Script-side records, keyed by the C userdata (weak: a closed, unreachable world or
-- crowd takes its record with it).
local worlds = setmetatable({}, { __mode = "k" })
local crowds = setmetatable({}, { __mode = "k" })

local M = {}

-- ------------------------------------------------------------------------------------
-- Names of a domain
-- ------------------------------------------------------------------------------------

-- { var_ids, var_names, value_ids[v], value_names[v], action_ids, action_names, goals }
local function domain_names(dom)
  local n = { var_ids = {}, var_names = {}, value_ids = {}, value_names = {},
              action_ids = {}, action_names = {}, goals = dom:goals(), name = dom.name }
  for v, var in ipairs(dom:variables()) do
    n.var_ids[var.name], n.var_names[v] = v, var.name
    local ids = {}
    for x, value in ipairs(var.values) do ids[tostring(value)] = x end -- false -> "false"
    n.value_ids[v], n.value_names[v] = ids, var.values
  end
  for a, act in ipairs(dom:actions()) do
    n.action_ids[act.name], n.action_names[a] = a, act.name
  end
  return n
end

-- The 1-based ids of (var, value) or nil, message. Booleans name "true"/"false".
local function var_value(n, var, value)
  local v = n.var_ids[var]
  if not v then return nil, string_format("unknown variable '%s'", tostring(var)) end
  if type(value) == "boolean" then value = tostring(value) end
  local x = n.value_ids[v][value]
  if not x then
    local names = {}
    for k, name in ipairs(n.value_names[v]) do names[k] = tostring(name) end
    return nil, string_format("'%s' is not a value of '%s' (%s)", tostring(value), var,
                              concat(names, ", "))
  end
  return v, x
end

-- A packed condition from { var = value } (0xFF where not given); path names errors.
local function pack_condition(n, cond, path)
  if type(cond) ~= "table" then
    error(string_format("%s: expected a table { variable = value }, got %s", path, type(cond)), 0)
  end
  local bytes = {}
  for v = 1, #n.var_names do bytes[v] = ANY end
  for var, value in pairs(cond) do
    if type(var) ~= "string" then
      error(string_format("%s: keys must be variable names, got %s", path, type(var)), 0)
    end
    -- KEEP (a domain goal's "keep the start value") has no fixed value an agent's
    -- standing goal could hold: for agents the variable does not matter
    if type(value) == "table" and value ~= KEEP then
      error(string_format("%s.%s: a set of values or saspu.NOT works in `when` only (a goal "
                          .. "names one value per variable)", path, var), 0)
    end
    if value ~= KEEP then
      local v, x = var_value(n, var, value)
      if not v then error(path .. "." .. var .. ": " .. x, 0) end
      bytes[v] = x - 1
    end
  end
  return string_char(unpack(bytes))
end

-- saspu.NOT(value, ...): in a `when`, any value of the variable but these.
local NOT_MT = { __name = "saspu.NOT" }
function M.NOT(...)
  local values = { ... }
  if #values == 0 then error("saspu.NOT: expected at least one value", 2) end
  return setmetatable(values, NOT_MT)
end

-- Most goals one `when` may become (one per combination of its sets).
local WHEN_COMBINATIONS = 64

-- The packed `when` conditions of a goal (several when `when` names sets): a value, a
-- set { a, b } (any of) or saspu.NOT(a, ...) (any but) per variable; one packed
-- condition per combination, so that exactly one of them holds in any state.
local function pack_when(n, cond, path)
  if type(cond) ~= "table" then
    error(string_format("%s: expected a table { variable = value }, got %s", path, type(cond)), 0)
  end
  local allowed = {} -- per variable id: its value ids (0-based), or nil
  for var, value in pairs(cond) do
    if type(var) ~= "string" then
      error(string_format("%s: keys must be variable names, got %s", path, type(var)), 0)
    end
    -- KEEP: the variable does not matter (as in goals)
    if value ~= KEEP then
      local v = n.var_ids[var]
      if not v then error(string_format("%s.%s: unknown variable '%s'", path, var, var), 0) end
      local list = (type(value) == "table" and value ~= KEEP) and value or { value }
      local seen = {}
      for k, x in ipairs(list) do
        local ok, id = var_value(n, var, x)
        if not ok then
          error(string_format("%s.%s%s: %s", path, var, list == value and ("[" .. k .. "]") or "", id), 0)
        end
        seen[id - 1] = true
      end
      if #list == 0 then error(string_format("%s.%s: an empty set of values", path, var), 0) end
      local ids = {}
      for x = 0, #n.value_names[v] - 1 do
        local inside = seen[x] or false
        if getmetatable(value) == NOT_MT then inside = not inside end
        if inside then ids[#ids + 1] = x end
      end
      if #ids == 0 then error(string_format("%s.%s: saspu.NOT leaves no value", path, var), 0) end
      allowed[v] = ids
    end
  end
  local combos, count = { {} }, 1
  for v = 1, #n.var_names do -- declaration order: the same goals on every run
    local ids = allowed[v]
    if ids then
      count = count * #ids
      if count > WHEN_COMBINATIONS then
        error(string_format("%s: its sets make more than %d combinations", path, WHEN_COMBINATIONS), 0)
      end
      local next_combos = {}
      for _, partial in ipairs(combos) do
        for _, x in ipairs(ids) do
          local c = {}
          for k, y in pairs(partial) do c[k] = y end
          c[v] = x
          next_combos[#next_combos + 1] = c
        end
      end
      combos = next_combos
    end
  end
  local out = {}
  for i, combo in ipairs(combos) do
    local bytes = {}
    for v = 1, #n.var_names do bytes[v] = combo[v] or ANY end
    out[i] = string_char(unpack(bytes))
  end
  return out
end

-- ------------------------------------------------------------------------------------
-- Behaviour tables
-- ------------------------------------------------------------------------------------

local ACTION_FIELDS = { duration = true, at = true, on_start = true, on_finish = true,
                        on_fail = true, run = true, interruptible = true,
                        max_failures = true, give_up_for = true }
local GOAL_FIELDS = { [1] = true, priority = true, when = true }
local BEHAVIOUR_FIELDS = { actions = true, goals = true, select = true, facts = true,
                           max_failures = true, give_up_for = true }

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

local function refuse_unknown(t, allowed, path)
  for k in pairs(t) do
    if not allowed[k] then
      error(string_format("%s: unknown field '%s'", path, tostring(k)), 0)
    end
  end
end

-- World:crowd's options: a misspelt one is an error, never ignored (the C side checks
-- each known option's value).
local CROWD_OPTIONS = {
  capacity = true, threads = true, seed = true, speed = true, cooldown = true, retry = true,
  cache_capacity = true, movement = true, facts = true, sensors = true,
}
local CROWD_OPTION_LIST = "capacity, threads, seed, speed, cooldown, retry, cache_capacity, "
  .. "movement, facts, sensors"

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

-- One goal entry -> { name, cond (packed), priority, when (packed or nil) }.
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
    rec.name, rec.cond = what, pack_condition(n, cond, path .. "[1]")
  elseif type(what) == "table" then
    rec.name, rec.cond = path:match("goals%[%d+%]$") or path, pack_condition(n, what, path .. "[1]")
  else
    error(path .. "[1]: expected a goal name or a condition table, got " .. type(what), 0)
  end
  if g.when ~= nil then rec.whens = pack_when(n, g.when, path .. ".when") end
  return rec
end

-- Validates a behaviour; returns { actions = { [id] = rec }, goals = { rec... }, hooked }.
local function read_behaviour(b, n, wside)
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

-- ------------------------------------------------------------------------------------
-- Worlds
-- ------------------------------------------------------------------------------------

-- Checks a 1-based cell of `world` (inside its grid and open, when it has one); raises
-- "<where>: x = 40 is outside 1..32" at the caller's caller.
local function check_cell(world, x, y, where)
  for _, c in ipairs { { "x", x }, { "y", y } } do
    if not is_integer(c[2]) then
      error(string_format("%s: %s must be an integer, got %s", where, c[1], tostring(c[2])), 3)
    end
  end
  local g = world:grid()
  local w, h = math.huge, math.huge
  if g then w, h = g:width(), g:height() end
  if x < 1 or x > w then error(string_format("%s: x = %d is outside 1..%s", where, x, w), 3) end
  if y < 1 or y > h then error(string_format("%s: y = %d is outside 1..%s", where, y, h), 3) end
  if g and g:is_blocked(x, y) then
    error(string_format("%s: cell (%d, %d) is blocked", where, x, y), 3)
  end
end

local function world_side(w)
  local s = worlds[w]
  if not s then error("saspu.World: not made by saspu.world", 3) end
  return s
end

--- Part of module saspu: worlds, crowds and agents written in Lua (LDoc merges it, config.ld).
-- @module saspu

--- @type World

--- Adds a named place. Agents go to it by name (`at = "well"`) or by kind
-- (`at = { kind = "well" }`: the nearest with room).
-- @tparam string name unique in the world
-- @tparam int x
-- @tparam int y
-- @tparam[opt] table opts `{ capacity = agents at once (0, the default: unlimited), kind = name }`
-- @treturn int the place id, 1-based
-- @raise "saspu.World:place: a place is already named 'well'";
-- "saspu.World:place: x = 9 is outside 1..4"; "saspu.World:place: cell (2, 3) is blocked";
-- "saspu.World:place: capacity must be an integer >= 0 (0: unlimited)";
-- "saspu.World:place: name must be a string"; "saspu.World:place: opts: unknown field 'k'".
function World:place(name, x, y, opts)
  local s = world_side(self)
  if type(name) ~= "string" then error("saspu.World:place: name must be a string", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("saspu.World:place: opts must be a table", 2) end
  opts = opts or {}
  refuse_unknown(opts, { capacity = true, kind = true }, "saspu.World:place: opts")
  if s.place_ids[name] then
    error(string_format("saspu.World:place: a place is already named '%s'", name), 2)
  end
  check_cell(self, x, y, "saspu.World:place")
  local cap = opts.capacity or 0
  if not is_integer(cap) or cap < 0 then
    error("saspu.World:place: capacity must be an integer >= 0 (0: unlimited)", 2)
  end
  local id = self:add_place(opts.kind or name, x, y, cap)
  s.place_ids[name], s.place_names[id] = id, name
  return id
end

--- A place's name.
-- @tparam int id
-- @treturn string the name, or nil for an id that is not a place
-- @raise "saspu.World: not made by saspu.world".
function World:place_name(id)
  return world_side(self).place_names[id]
end

--- Makes a crowd: the agents of one domain, with a behaviour (docs/agents.md).
-- `behaviour.actions[name]`: `duration` (seconds, `{ min, max }` drawn per step, or
-- `function(agent)`), `at` (a place name, `{ kind = k }` for the nearest with room,
-- `"home"`, `{ agent = handle, reach = 1 }` for another agent, followed as it moves, or
-- `function(agent)` returning a place name, `x, y` or an agent handle [and a reach]),
-- `interruptible`, `max_failures` and `give_up_for` (as the behaviour's, for this action),
-- hooks `on_start(agent)`, `on_finish(agent)`, `on_fail(agent, reason)`, or
-- `run(agent, wait)` (a coroutine; `return false, "reason"` fails the step). Actions left
-- out take no time and no place. `behaviour.goals`: `{ "goal_name" | { var = value },
-- priority = n, when = { var = value } }`, each a condition (left-out variables free).
-- `behaviour.select = function(agent)` chooses goals instead of priorities (a goal name
-- or nil), called only when an agent needs a goal. `behaviour.max_failures` (default 3,
-- an integer 1..255) failures in a row of one step give its goal up for
-- `behaviour.give_up_for` seconds (default 30, > 0): event `gave_up`; the k-th failure
-- in a row waits `retry * 2^(k-2)` s (at most 16 retries) before the replan.
-- @tparam Domain dom
-- @tparam table behaviour `{ actions = { ... }, goals = { ... }, select = f, max_failures = 3, give_up_for = 30 }`
-- @tparam[opt] table opts `{ capacity = 1024, threads = 1 (0: every core; default: the
-- world's pool), seed, speed = 4 cells/s, cooldown = 5 s, retry = 1 s, cache_capacity,
-- movement = "grid" | "engine" (the game moves its agents: events `move`, then
-- `a:arrived()` or `a:move_failed(reason)`) }`
-- @treturn Crowd
-- @raise errors that name the path: "behaviour.actions.buy_food.at: unknown place 'markt'",
-- "behaviour.goals[2].when.rested: 'maybe' is not a value of 'rested' (false, true)",
-- "behaviour.actions.nosuch: 'nosuch' is not an action of 'horse_breeder'",
-- "behaviour: unknown field 'x'", "behaviour.actions.arrest.at.agent: a handle of
-- another world"; "saspu.World:crowd: unknown option 'sped' (options: capacity, ...)";
-- bad values of the crowd's options.
function World:crowd(dom, behaviour, opts)
  local ws = world_side(self)
  local unknown = type(opts) == "table" and unknown_option(opts) or nil
  if unknown then
    error(string_format("saspu.World:crowd: unknown option '%s' (options: %s)", unknown,
                        CROWD_OPTION_LIST), 2)
  end
  local n = domain_names(dom)
  local beh = read_behaviour(behaviour, n, ws)
  local fact_list = behaviour.facts
  if opts ~= nil and type(opts) == "table" and opts.facts ~= nil then
    if fact_list ~= nil then error("saspu.World:crowd: facts given in both the behaviour and the options", 2) end
    fact_list = opts.facts
  end
  local c = core.crowd(self, dom, opts)
  local tied = facts.tie(self, ws, c, n, fact_list, "saspu.World:crowd: facts")
  local sensed = sensors.add(self, c, n, opts ~= nil and type(opts) == "table" and opts.sensors or nil,
                             crowds, "saspu.World:crowd: sensors")
  for a, rec in pairs(beh.actions) do
    -- a scripted step walks first, then waits in C until Lua finishes or fails it
    c:set_action(a, rec.min, rec.max, rec.bind, rec.arg, rec.interruptible, rec.scripted, rec.hook,
                 rec.max_failures, rec.give_up_for)
  end
  local goal_names, goal_ids = {}, {}
  for _, g in ipairs(beh.goals) do
    -- a `when` with sets is one C goal per combination (exactly one can hold)
    for _, when in ipairs(g.whens or { false }) do
      local i = c:add_goal(g.cond, g.priority, when or nil)
      goal_names[i] = g.name
      goal_ids[g.name] = goal_ids[g.name] or i
    end
  end
  if beh.select then c:set_selector(true) end
  local side = {
    crowd = c, world = self, wside = ws, names = n, actions = beh.actions,
    handles = c:handles(), -- the crowd's own table of handles, read without a C call
    goal_names = goal_names, goal_ids = goal_ids, hooked = beh.hooked, kinds = beh.kinds,
    select = beh.select, -- function(agent) -> a goal name or nil, when an agent needs one
    running = {},        -- agents whose scripted step Lua is timing, in start order
    pending_target = {}, -- agent -> true while a function `at` has to be asked
    msgs = {}, msgs_old = {}, next_msg = 0, -- failure texts by event detail (this frame's, last frame's)
    failed = {}, any_failed = false,        -- agents whose step Lua failed this frame
    extra = {}, extra_next = {},            -- events made in Lua (hook_failed)
    watch = {},          -- agent -> its last events (agents that were inspected)
    engine = opts ~= nil and type(opts) == "table" and opts.movement == "engine",
    tied = tied,         -- variable id -> the world fact it shows
    sensed = sensed,     -- variable id -> its sensor's name (a:set refuses both)
    rng = ((opts and opts.seed) or 1) * 2 + 1,
  }
  crowds[c] = side
  ws.crowds[#ws.crowds + 1] = c
  return c
end

--- The world's crowds, in creation order (closed ones included).
-- @treturn {Crowd,...} a new array
-- @raise "saspu.World: not made by saspu.world".
function World:crowds()
  local out = {}
  for i, c in ipairs(world_side(self).crowds) do out[i] = c end
  return out
end

-- ------------------------------------------------------------------------------------
-- Perception
-- ------------------------------------------------------------------------------------

local near_found = {} -- crowd:near's answer, reused

--- The agents near a cell, nearest first.
-- Distance is Chebyshev: max(|dx|, |dy|) <= r, the steps of the 8-neighbour walk on open
-- ground. Agents at the same distance come in crowd order (creation), then by index.
-- @tparam int x a cell, 1-based
-- @tparam int y
-- @tparam number r the radius in cells, >= 0 (a fraction is cut)
-- @tparam[opt] Crowd crowd only this crowd of the world
-- @treturn {Agent,...} the handles, a new table
-- @raise "saspu.World:near: x and y must be integers, got 1.5, 1";
-- "saspu.World:near: r must be a number >= 0, got -1";
-- "saspu.World:near: crowd is not a crowd of this world".
function World:near(x, y, r, crowd)
  local ws = world_side(self)
  if not is_integer(x) or not is_integer(y) then
    error(string_format("saspu.World:near: x and y must be integers, got %s, %s", tostring(x),
                        tostring(y)), 2)
  end
  if type(r) ~= "number" or r ~= r or r < 0 then
    error("saspu.World:near: r must be a number >= 0, got " .. tostring(r), 2)
  end
  local list = ws.crowds
  if crowd ~= nil then
    local side = crowds[crowd]
    if not side or side.world ~= self then
      error("saspu.World:near: crowd is not a crowd of this world", 2)
    end
    list = { crowd }
  end
  local hits = {}
  for ci = 1, #list do
    local c = list[ci]
    if c:is_open() then
      for k = 1, c:near(x, y, r, near_found) do
        local i = near_found[k]
        local ax, ay = c:position(i)
        local dx, dy = ax - x, ay - y
        if dx < 0 then dx = -dx end
        if dy < 0 then dy = -dy end
        hits[#hits + 1] = { dx > dy and dx or dy, ci, i, c }
      end
    end
  end
  table.sort(hits, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  for k = 1, #hits do hits[k] = hits[k][4]:agent(hits[k][3]) end
  return hits
end

-- ------------------------------------------------------------------------------------
-- Hooks and scripted steps (run after the C update, only for hooked crowds)
-- ------------------------------------------------------------------------------------

local function note(side, text)
  side.next_msg = side.next_msg + 1
  side.msgs[side.next_msg] = text
  return side.next_msg
end

-- A Lua event made by this file, delivered with the next frame's events.
local function lua_event(side, agent, kind, action, text)
  local q = side.extra_next
  q[#q + 1] = { agent = agent, kind = kind, action = action, reason = text }
end

-- Fails the agent's running step of `action` with `text`, walking, acting or waiting
-- alike: the next update ends it with step_failed (reason `text`, its effect not
-- applied), and the one after replans (replanned/step_failed). A step of duration 0 has
-- already finished when its on_start runs (C starts and ends it in one update): its
-- effect stays, and a hook_failed event carries `text` instead.
local function fail_step(side, agent, action, text)
  local c = side.crowd
  side.failed[agent], side.any_failed = true, true
  if not c:control(agent, "fail", note(side, text), action) then
    lua_event(side, agent, "hook_failed", action, text)
  end
end

-- The text of a value a script gave (an error object, a result) that never raises: an
-- object whose __tostring raises or returns no string gets a placeholder.
local function describe(v)
  local ok, text = pcall(tostring, v)
  if ok and type(text) == "string" then return text end
  return "(a " .. type(v) .. " whose __tostring failed)"
end

-- Its type and value: `string "5"`, `number inf`, `nil nil`.
local function typed(v)
  if type(v) == "string" then return "string " .. string_format("%q", v) end
  return type(v) .. " " .. describe(v)
end

-- True when a yield here would suspend the caller of world:update (which then runs in a
-- coroutine and may yield through pcall: 5.2, 5.3, 5.4 and LuaJIT).
local function yieldable()
  if co_isyieldable then return co_isyieldable() end
  local co, main = co_running()
  return co ~= nil and not main
end

-- pcall for a script's function during world:update: an error, or a yield (only `run`
-- may wait), gives false and a message; the frame goes on either way.
local function protected(f, ...)
  if not yieldable() then return pcall(f, ...) end
  local co = co_create(f)
  local ok, a, b = co_resume(co, ...)
  if ok and co_status(co) ~= "dead" then
    if co_close then co_close(co) end
    return false, "yielded (only a run script may wait)"
  end
  return ok, a, b
end

local function call_hook(side, f, agent, action, name, ...)
  local ok, err = protected(f, side.handles[agent] or side.crowd:agent(agent), ...)
  if ok then return true end
  local text = string_format("%s %s: %s", side.names.action_names[action], name, describe(err))
  return false, text
end

-- A coordinate a script may give: a whole number a cell can have (1 .. 65535).
local function cell_ok(x) return is_integer(x) and x >= 1 and x <= 65535 end

-- A number of seconds a script may give: finite, 0 or more.
local function seconds_ok(d) return type(d) == "number" and d >= 0 and d < huge end

-- The draw of a scripted step's duration: the function's, or uniform in [min, max].
local function step_duration(side, rec, handle)
  if rec.duration_fn then
    local d = rec.duration_fn(handle)
    if not seconds_ok(d) then
      error("duration returned " .. typed(d) .. " (expected a finite number of seconds, 0 or more)", 0)
    end
    return d
  end
  if rec.max <= rec.min then return rec.min end
  local d
  side.rng, d = duration_draw(side.rng, rec.min, rec.max) -- in C: the same on every Lua
  return d
end

-- saspu.wait (documented in init.lua, where it is exported)
local function wait(seconds) return co_yield(seconds) end
M.wait = wait

-- Resumes a running record once its wait is over; returns true when it is over
-- (finished or failed).
local function resume(side, r)
  local c = side.crowd
  if not r.co then -- a duration only
    c:control(r.agent, "finish")
    return true
  end
  local ok, a, b = co_resume(r.co, c:agent(r.agent), wait)
  local name = side.names.action_names[r.action]
  if not ok then
    fail_step(side, r.agent, r.action, string_format("%s run: %s", name, describe(a)))
    return true
  end
  if co_status(r.co) ~= "dead" then
    if not seconds_ok(a) then
      if co_close then co_close(r.co) end
      fail_step(side, r.agent, r.action, string_format(
        "%s run: wait(%s): expected a finite number of seconds, 0 or more", name, typed(a)))
      return true
    end
    r.wait = a
    return false
  end
  if a == false then
    fail_step(side, r.agent, r.action, string_format("%s: %s", name, describe(b or "failed")))
  else
    c:control(r.agent, "finish")
  end
  return true
end

-- The step waits for Lua: ask a function `at` for its target, or start timing it.
local function on_waiting(side, agent, action, rec)
  if side.failed[agent] then -- its on_start raised: the step ends at the next update
    side.pending_target[agent] = nil
    return
  end
  local c, handle = side.crowd, side.crowd:agent(agent)
  if side.pending_target[agent] then
    side.pending_target[agent] = nil
    local ok, p, y = protected(rec.at_fn, handle)
    local name = side.names.action_names[action]
    if not ok then return fail_step(side, agent, action, name .. " at: " .. describe(p)) end
    local done, err
    if type(p) == "userdata" and pcall(Agent.alive, p) then
      -- an agent: followed as it moves; gone (despawned) fails the step as target_gone
      local okc
      okc, done, err = pcall(c.chase, c, agent, p, rec.reach or (is_integer(y) and y) or 1)
      if not okc then done, err = false, describe(done) end
      if err == "target_gone" then return fail_step(side, agent, action, "target_gone") end
    elseif type(p) == "string" and side.wside.place_ids[p] then
      done, err = c:control(agent, "target", side.wside.place_ids[p])
    elseif cell_ok(p) and cell_ok(y) then -- the grid's own bounds are C's to check
      done, err = c:control(agent, "target", nil, p, y)
    else
      done, err = false, string_format("returned %s, %s (expected a place name, the x, y "
                                       .. "of a cell on the grid, or an agent)", typed(p), typed(y))
    end
    if not done then fail_step(side, agent, action, name .. " at: " .. err) end
    return
  end
  local ok, d = protected(step_duration, side, rec, handle)
  if not ok then
    return fail_step(side, agent, action, side.names.action_names[action] .. " duration: " .. describe(d))
  end
  local r = { agent = agent, action = action, wait = d, fresh = true,
              co = rec.run and co_create(rec.run) or nil }
  -- a script starts at once (it runs until its first wait); a duration waits
  if r.co and r.wait <= 0 and resume(side, r) then return end
  side.running[#side.running + 1] = r
end

-- The index of goal `name` for select: a behaviour goal, or a goal of the domain, added
-- to the crowd on first use (priority 0). nil, message when there is none.
local function selected_goal(side, name)
  local id = side.goal_ids[name]
  if id then return id end
  local cond = type(name) == "string" and side.names.goals[name]
  if not cond then return nil, string_format("unknown goal '%s' of '%s'", tostring(name), side.names.name) end
  id = side.crowd:add_goal(pack_condition(side.names, cond, "select"), 0)
  side.goal_names[id], side.goal_ids[name] = name, id
  return id
end

-- An agent needs a goal: ask behaviour.select. An error, or a name that is no goal,
-- leaves the agent idle (no_goal) after a hook_failed event; nil means nothing to do.
local function on_select(side, agent)
  local ok, name = protected(side.select, side.handles[agent] or side.crowd:agent(agent))
  local id, err
  if not ok then
    err = "select: " .. describe(name)
  elseif name ~= nil and name ~= false then
    id, err = selected_goal(side, name)
    if err then err = "select: " .. err end
  end
  if err then lua_event(side, agent, "hook_failed", nil, err) end
  side.crowd:select_goal(agent, id)
end

-- Drops the running record of `agent` (its step ended in C).
local function drop_running(side, agent)
  local run = side.running
  for k = 1, #run do
    if run[k].agent == agent then table.remove(run, k) return end
  end
end

-- A "why" reads as its message.
local WHY_MT = { __tostring = function(w) return w.message end }
local names_of_domain = setmetatable({}, { __mode = "k" })

-- What blocks the goal of agent i's last no_plan, named (see Crowd:why); nil when its
-- last failure is no no_plan or that goal has a plan now. With at_no_plan: as recorded
-- at that no_plan (for its event; no goal).
local function why_of(c, i, at_no_plan)
  local b = c:blocker(i, at_no_plan)
  if not b or b.kind == "none" then return nil end
  local side = crowds[c]
  local n = side and side.names
  if not n then
    local dom = c:domain()
    n = names_of_domain[dom] or domain_names(dom)
    names_of_domain[dom] = n
  end
  local var, values = b.variable, b.variable and n.value_names[b.variable]
  local w = { kind = b.kind, message = b.message, missing = b.link, planner = b.planner,
              goal = side and side.goal_names[b.goal] or b.goal,
              variable = var and n.var_names[var],
              current = values and b.current and values[b.current],
              needs = values and b.needed and values[b.needed],
              action = b.action and n.action_names[b.action] or nil }
  if b.link_to then
    w.link = { variable = w.variable, from = values[b.link_from], to = values[b.link_to] }
  end
  return setmetatable(w, WHY_MT)
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
--   of the needed actions works: `planner` says why); `tostring(why)` is `message`.
-- @raise "saspu.Crowd: closed"; "agent 9 is outside 1..1".
function Crowd:why(i)
  return why_of(self, i)
end

-- The text of an event's reason.
local function reason_text(side, agent, kind, reason, detail)
  if kind == "no_plan" then
    local w = why_of(side.crowd, agent, true)
    return w and w.message or reason
  end
  if reason == "script" then return side.msgs_old[detail] or reason end
  return reason
end

-- Dispatches this frame's hooked events of one crowd, then advances the steps Lua was
-- already timing (those the events did not end; new ones wait from the next frame).
local function run_hooks(side, dt)
  local c, acts = side.crowd, side.actions
  local kinds = side.kinds
  local k, agent, kind, reason, action, detail = c:next_hook(1, kinds)
  while k do
    if action == 0 then -- an agent waits for its goal (the only hooked event without one)
      on_select(side, agent)
    elseif not acts[action] then
      -- hooked through c:set_action alone: no Lua part to run; a step waiting for Lua ends
      if kind == "waiting" then c:control(agent, "finish") end
    else
      local rec = acts[action]
      if kind == "step_started" then
        if rec.at_fn then side.pending_target[agent] = true end
        if rec.on_start then
          local ok, text = call_hook(side, rec.on_start, agent, action, "on_start")
          if not ok then fail_step(side, agent, action, text) end
        end
      elseif kind == "waiting" then
        on_waiting(side, agent, action, rec)
      elseif kind == "step_finished" then
        if rec.on_finish then
          local ok, text = call_hook(side, rec.on_finish, agent, action, "on_finish")
          if not ok then lua_event(side, agent, "hook_failed", action, text) end
        end
      elseif kind == "step_failed" then
        side.pending_target[agent] = nil
        drop_running(side, agent)
        if rec.on_fail then
          local ok, text = call_hook(side, rec.on_fail, agent, action, "on_fail",
                                     reason_text(side, agent, kind, reason, detail))
          if not ok then lua_event(side, agent, "hook_failed", action, text) end
        end
      end
    end
    k, agent, kind, reason, action, detail = c:next_hook(k + 1, kinds)
  end
  local list = side.running
  if #list == 0 then return end
  local kept = {}
  for i = 1, #list do
    local r = list[i]
    if r.fresh then
      r.fresh = nil
      kept[#kept + 1] = r
    else
      r.wait = r.wait - dt
      if r.wait > 0 or not resume(side, r) then kept[#kept + 1] = r end
    end
  end
  side.running = kept
end

-- Keeps the last events of inspected agents.
local function record_watched(side)
  local c, watch = side.crowd, side.watch
  for k = 1, c:event_count() do
    local agent, kind, reason, _, goal, action = c:event(k)
    local log = watch[agent]
    if log then
      if #log >= HISTORY then table.remove(log, 1) end
      log[#log + 1] = { kind = kind, reason = reason, goal = side.goal_names[goal],
                        action = side.names.action_names[action] }
    end
  end
end

-- Before a hooked crowd's update: texts noted last frame name this update's step_failed
-- events (ids restart); last frame's failures and Lua-made events are dropped.
local function before_update(side)
  side.msgs_old, side.msgs, side.next_msg = side.msgs, side.msgs_old, 0
  for k in pairs(side.msgs) do side.msgs[k] = nil end
  if side.any_failed then
    for k in pairs(side.failed) do side.failed[k] = nil end
    side.any_failed = false
  end
  side.extra, side.extra_next = side.extra_next, side.extra
  for k = #side.extra_next, 1, -1 do side.extra_next[k] = nil end
end

local function after_update(side, dt)
  if side.hooked then run_hooks(side, dt) end
  if next(side.watch) then record_watched(side) end
end

-- world:update_crowds runs each pass of all the pool's crowds as one parallel job; a
-- hook's change to another crowd is then seen at the next frame.
local FLOAT_MAX = 3.4028234663852886e38 -- C keeps dt as a float
local function update_all(self, ws, dt)
  local list = ws.crowds
  if ws.threads then
    local open = ws.open
    for i = #open, 1, -1 do open[i] = nil end
    for i = 1, #list do
      local c = list[i]
      if c:is_open() then
        local side = crowds[c]
        if side.hooked or side.engine then before_update(side) end
        open[#open + 1] = c
      end
    end
    self:update_crowds(dt, open)
    for i = 1, #open do after_update(crowds[open[i]], dt) end
    return
  end
  for i = 1, #list do
    local c = list[i]
    if c:is_open() then
      local side = crowds[c]
      if side.hooked or side.engine then before_update(side) end
      c:update(dt)
      after_update(side, dt)
    end
  end
end

--- One frame: every open crowd advances by dt seconds in C (choose goals, plan, walk,
-- act, apply effects, replan), then the Lua hooks of this frame's events run. With
-- `threads` the crowds update together and then each runs its hooks in creation order;
-- without, each crowd's hooks run before the next crowd's update. A hook that raises,
-- yields (outside `run`), or closes, loads, saves or updates the world fails its step
-- (`step_failed` or `hook_failed` at the next update); the frame's other hooks run and
-- the crowd keeps running.
-- @tparam number dt seconds, finite, 0 or more
-- @raise "saspu.World:update: dt must be a finite number of seconds, 0 or more, got -1".
function World:update(dt)
  local ws = world_side(self)
  if type(dt) ~= "number" or not (dt >= 0 and dt <= FLOAT_MAX) then
    -- checked here too, so a world without open crowds says so as well
    error("saspu.World:update: dt must be a finite number of seconds, 0 or more, got " .. tostring(dt), 2)
  end
  if ws.updating then error("saspu.World:update: called from a hook during world:update", 2) end
  ws.updating = true
  local ok, err = pcall(update_all, self, ws, dt)
  ws.updating = false
  if not ok then error(err, 0) end
end

-- While world:update runs its hooks, nothing may close, load or update the world or
-- its crowds: the hook that tries fails (hook_failed) and the frame goes on.
local function not_updating(ws, what)
  if ws and ws.updating then
    error(what .. ": not allowed from a hook during world:update (do it after update returns)", 3)
  end
end

local world_close, crowd_close = World.close, Crowd.close
function World:close()
  not_updating(worlds[self], "saspu.World:close")
  return world_close(self)
end
function Crowd:close()
  local side = crowds[self]
  not_updating(side and side.wside, "saspu.Crowd:close")
  return crowd_close(self)
end

-- ------------------------------------------------------------------------------------
-- Events
-- ------------------------------------------------------------------------------------

-- Events whose C detail is a place (1-based from c:event): reasons of step_failed that name one.
local PLACE_REASONS = { full = true, unreachable = true, cooldown = true }

--- Iterates this frame's events: crowds in creation order, each crowd's Lua-made
-- events (`hook_failed`) first, then its C events in the C order (the same for any
-- thread count). Each step yields the SAME reused table, so copy what you keep:
-- `{ agent, crowd, class, kind, action, goal, reason, place, detail, why, x, y }`:
-- `agent` a `saspu.Agent`; `crowd` its `saspu.Crowd`; `class` the domain's name;
-- `action` and `goal` names or nil; `reason` a text or nil; `place` the name of the
-- place the event is about (`arrived`, `blocked`, `move`, and `step_failed` for `full`,
-- `unreachable`, `cooldown`), else nil; `detail` the place's id (1-based, as
-- `world:place` returns it) with `place`, the plan's length for `planned` and
-- `replanned`, else nil; `why` for `no_plan`: the blocker (see `Crowd:why`); `x, y`: the
-- target cell of a `move`, else nil. Kinds: `goal_chosen`, `planned`, `replanned`,
-- `step_started`, `step_finished`, `step_failed`, `step_skipped`, `arrived`,
-- `goal_reached`, `no_plan`, `blocked`, `idle`, `waiting`, `move` (crowds with
-- movement = "engine"), `hook_failed`. Events of agents despawned after the update are
-- skipped.
-- @treturn function the iterator: `for ev in world:events() do ... end`
-- @raise "saspu.World: closed"; "saspu.World: not made by saspu.world".
function World:events()
  local list = world_side(self).crowds
  local ci, k, side, n, extra = 0, 0, nil, 0, nil
  local ev = {}
  return function()
    while true do
      if side and k < n then
        k = k + 1
        local c = side.crowd
        ev.crowd = c
        ev.x, ev.y = nil, nil
        if k <= #extra then
          local e = extra[k]
          ev.agent, ev.kind, ev.reason, ev.detail = c:agent(e.agent), e.kind, e.reason, nil
          ev.action, ev.goal, ev.place = side.names.action_names[e.action], nil, nil
          ev.class = side.names.name
          ev.why = nil
          return ev
        end
        local agent, kind, reason, _, goal, action, detail, live = c:event(k - #extra)
        if live then -- events of agents despawned since are skipped
          ev.agent, ev.kind, ev.class = c:agent(agent), kind, side.names.name
          ev.action = action and side.names.action_names[action] or nil
          ev.goal = goal and side.goal_names[goal] or nil
          local why = kind == "no_plan" and why_of(c, agent, true) or nil
          if why then why.goal = side.goal_names[goal] end
          ev.why = why
          ev.reason = why and why.message or reason_text(side, agent, kind, reason, detail)
          ev.place, ev.detail = nil, nil
          if kind == "planned" or kind == "replanned" then
            ev.detail = detail
          elseif (kind == "arrived" or kind == "blocked" or kind == "move" or PLACE_REASONS[reason])
                 and detail >= 1 then
            ev.place, ev.detail = side.wside.place_names[detail], detail -- 1-based from c:event
          end
          if kind == "move" then ev.x, ev.y = c:target_cell(agent) end
          return ev
        end
      else
        ci = ci + 1
        local c = list[ci]
        if not c then return nil end
        side = crowds[c]
        if c:is_open() then
          extra = side.extra
          k, n = 0, #extra + c:event_count()
        else
          n = 0
        end
      end
    end
  end
end

-- ------------------------------------------------------------------------------------
-- Crowds and agents
-- ------------------------------------------------------------------------------------

local function crowd_side(c, level)
  local s = crowds[c]
  if not s then error("saspu.Crowd: not made by world:crowd", (level or 2) + 1) end
  return s
end

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

--- The behaviour's goals by index (the names in events).
-- @treturn {string,...}
-- @raise "saspu.Crowd: not made by world:crowd".
function Crowd:goal_names()
  local out = {}
  for i, g in ipairs(crowd_side(self).goal_names) do out[i] = g end
  return out
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
  local found = false
  for i, name in ipairs(side.goal_names) do
    if name == goal then
      self:set_goal_priority(i, priority)
      found = true
    end
  end
  if not found then
    error(string_format("saspu.Crowd:set_priority: unknown goal '%s' (%s)", tostring(goal),
                        concat(side.goal_names, ", ")), 2)
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

-- a:despawn(), a:teleport(x, y), a:arrived(), a:move_failed([reason]): lua/saspu/lifecycle.lua.
require("saspu.lifecycle").install(Agent, { crowd_side = crowd_side, check_cell = check_cell,
                                            drop_running = drop_running })
-- world:set(name, value), world:get(name): lua/saspu/facts.lua.
facts.install(World, { world_side = world_side })

-- Where plan step `action` of this agent binds (a text for inspect).
local function bound(side, rec, info)
  if not rec or rec.bind == "none" then return nil end
  if rec.bind == "place" then return side.wside.place_names[rec.arg] end
  if rec.bind == "kind" then return "nearest " .. rec.arg end
  if rec.bind == "home" then return info.home and side.wside.place_names[info.home] or "home" end
  return "script"
end

--- Everything about the agent, by names, for debugging.
-- @treturn table `{ class, crowd, state, goal, phase, plan = { { action, done, at }, ... },
-- step, action, time_left, x, y, target, target_x, target_y, home, last_reason,
-- last_action, events }`; `events` are the agent's last events since its first inspect
-- @raise "saspu.Agent: closed".
function Agent:inspect()
  local c = self:crowd()
  local side = crowd_side(c)
  local i = self:index()
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
  if not log then log = {} side.watch[i] = log end
  local events = {}
  for k, e in ipairs(log) do events[k] = { kind = e.kind, reason = e.reason, goal = e.goal, action = e.action } end
  info.events = events
  return info
end

-- ------------------------------------------------------------------------------------
-- Save and load
-- ------------------------------------------------------------------------------------
-- The C save (csrc/agents/save.c) carries every agent; the script side of each crowd
-- rides in its "extra" bytes: goal names (select may add goals), the duration draws,
-- the steps Lua is timing, targets still to ask, texts of failures not yet reported and
-- Lua events queued for the next frame. A `run` coroutine cannot be saved: its step
-- restarts its script from the beginning at the first update after the load (a step
-- timed by a duration keeps its remaining time). Inspection history is not saved.

local SCRIPT_TAG = "saspu-lua-1"

local function put(out, v)
  if type(v) == "string" then
    out[#out + 1] = "s" .. #v .. ":" .. v
  else
    out[#out + 1] = "n" .. string_format("%.17g", v) .. ";"
  end
end

-- The keys of a set or map, sorted (saves must not depend on pairs()).
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

local function save_side(side, out)
  put(out, #side.goal_names)
  for _, name in ipairs(side.goal_names) do put(out, name) end
  put(out, side.rng)
  put(out, side.next_msg)
  local ids = sorted_keys(side.msgs)
  put(out, #ids)
  for _, id in ipairs(ids) do put(out, id) put(out, side.msgs[id]) end
  put(out, #side.running)
  for _, r in ipairs(side.running) do
    put(out, r.agent) put(out, r.action) put(out, r.wait)
    put(out, r.fresh and 1 or 0) put(out, r.co and 1 or 0)
  end
  for _, set in ipairs { side.pending_target, side.failed } do
    local agents = sorted_keys(set)
    put(out, #agents)
    for _, a in ipairs(agents) do put(out, a) end
  end
  put(out, #side.extra_next)
  for _, e in ipairs(side.extra_next) do
    put(out, e.agent) put(out, e.kind) put(out, e.action or 0) put(out, e.reason)
  end
end

-- A reader of put's tokens; errors say what is wrong and at which byte of the part.
local function reader(s)
  local pos = 1
  local function fail(what)
    error(string_format("saved world: the script part: %s at byte %d", what, pos), 0)
  end
  local r = {}
  function r.num()
    if s:sub(pos, pos) ~= "n" then fail("expected a number") end
    local e = s:find(";", pos, true)
    local x = e and tonumber(s:sub(pos + 1, e - 1))
    if not x then fail("bad number") end
    pos = e + 1
    return x
  end
  function r.int(lo, what)
    local x = r.num()
    if not is_integer(x) or x < lo then fail(what .. " " .. tostring(x) .. " is out of range") end
    return x
  end
  function r.str()
    if s:sub(pos, pos) ~= "s" then fail("expected a string") end
    local e = s:find(":", pos, true)
    local len = e and tonumber(s:sub(pos + 1, e - 1))
    if not len or len < 0 or e + len > #s then fail("bad string") end
    pos = e + len + 1
    return s:sub(e + 1, e + len)
  end
  function r.left() return #s - pos + 1 end
  return r
end

-- Parses one crowd's script side; checks it against the behaviour and against the saved
-- crowd (`agents` agents, `goals` goals): every agent it names exists, every action is one
-- of the crowd's, every goal name is one of the saved goals.
local function read_side(side, r, k, agents, goals)
  local p = { goal_names = {}, msgs = {}, running = {}, pending = {}, failed = {}, extra = {} }
  local function bad(fmt, ...)
    error(string_format("saved world: crowd %d '%s': the script part: " .. fmt, k,
                        side.names.name, ...), 0)
  end
  local function agent()
    local a = r.int(1, "agent")
    if a > agents then bad("agent %d does not exist (%d agents saved)", a, agents) end
    return a
  end
  local count = r.int(0, "goal count")
  if count ~= goals then bad("%d goal names for %d saved goals", count, goals) end
  for i = 1, count do p.goal_names[i] = r.str() end
  p.rng = r.int(0, "draw state")
  p.next_msg = r.int(0, "message count")
  for _ = 1, r.int(0, "message count") do
    local id = r.int(1, "message id")
    p.msgs[id] = r.str()
  end
  for i = 1, r.int(0, "running count") do
    local rec = { agent = agent(), action = r.int(1, "action"), wait = r.num(),
                  fresh = r.int(0, "flag") == 1 or nil, co = r.int(0, "flag") == 1 }
    local act = side.actions[rec.action]
    if not act or not act.scripted or (rec.co and not act.run) then
      bad("action %d is not a scripted step of its behaviour", rec.action)
    end
    if not (rec.wait >= 0 and rec.wait < huge) then
      bad("agent %d waits %s seconds", rec.agent, tostring(rec.wait))
    end
    p.running[i] = rec
  end
  for _, set in ipairs { p.pending, p.failed } do
    for _ = 1, r.int(0, "agent count") do set[agent()] = true end
  end
  for i = 1, r.int(0, "event count") do
    local e = { agent = agent(), kind = r.str(), action = r.int(0, "action"),
                reason = r.str() }
    if e.kind ~= "hook_failed" then bad("event kind '%s' is not one saspu makes in Lua", e.kind) end
    if e.action == 0 then
      e.action = nil
    elseif not side.names.action_names[e.action] then
      bad("action %d does not exist", e.action)
    end
    p.extra[i] = e
  end
  return p
end

-- Restores the parsed script side (the C load is done). A running record whose agent is
-- not waiting in that scripted step (a save edited by hand) is dropped, and said so in
-- `report`: its agent goes on as the C part says.
local function apply_side(side, p, report)
  local info = {}
  for i = #p.running, 1, -1 do
    local rec = p.running[i]
    side.crowd:info(rec.agent, info)
    if info.phase ~= "script" or info.action ~= rec.action then
      table.remove(p.running, i)
      report[#report + 1] = string_format("crowd '%s' agent %d: dropped the timing of step '%s' "
                                          .. "(the agent is not waiting in it)", side.names.name,
                                          rec.agent, side.names.action_names[rec.action])
    end
  end
  side.goal_names, side.goal_ids = p.goal_names, {}
  for i, name in ipairs(p.goal_names) do side.goal_ids[name] = side.goal_ids[name] or i end
  side.rng, side.next_msg, side.msgs, side.msgs_old = p.rng, p.next_msg, p.msgs, {}
  for _, rec in ipairs(p.running) do
    if rec.co then -- a script restarts: from its beginning, at the next update
      rec.co, rec.wait, rec.fresh = co_create(side.actions[rec.action].run), 0, nil
    else
      rec.co = nil
    end
  end
  side.running, side.pending_target, side.failed = p.running, p.pending, p.failed
  side.any_failed = next(p.failed) ~= nil
  side.extra, side.extra_next = {}, p.extra
end

local function open_crowds(ws)
  local out = {}
  for _, c in ipairs(ws.crowds) do
    if c:is_open() then out[#out + 1] = c end
  end
  return out
end

--- Saves the world and every open crowd to a string (docs/saves.md). Call it between
-- updates. `a.data` tables and inspection history are not saved.
-- @treturn string
-- @raise "saspu.World: not made by saspu.world"; "saspu.World: closed".
function World:save()
  local ws = world_side(self)
  not_updating(ws, "saspu.World:save")
  local list = open_crowds(ws)
  local out = { SCRIPT_TAG }
  for _, c in ipairs(list) do save_side(crowds[c], out) end
  return core.world_save(self, list, concat(out))
end

--- Restores a save onto this world, which the same game code built: the same grid,
-- places, and crowds in the same order with the same domains, behaviours and options.
-- The agents then resume exactly. Everything is checked before anything changes: every
-- saved agent against what the update relies on (a save edited by hand is refused naming
-- the crowd, the agent and the field), and the script part against the saved crowds.
-- @tparam string s a string from `World:save`
-- @treturn {string,...} a report: one line per thing the load dropped (a step timing
-- whose agent was not waiting in it); empty for a save as `World:save` wrote it
-- @raise "saspu.World:load: expected a string, got TYPE";
-- "saspu.World:load: saved world: truncated at byte 100 in crowd 1 'citizen'";
-- "saspu.World:load: saved world: crowd 2 'farrier': domain differs from the saved one";
-- "...: format version 3, this saspu reads 1"; a checksum mismatch. The world is left as it was.
function World:load(s)
  local ws = world_side(self)
  not_updating(ws, "saspu.World:load")
  if type(s) ~= "string" then error("saspu.World:load: expected a string, got " .. type(s), 2) end
  local list = open_crowds(ws)
  local checked, extra, agents, goals = pcall(core.world_load, self, list, s, true)
  if not checked then error((tostring(extra):gsub("^[^\n]-:%d+: ", "")), 2) end
  local ok, parsed = pcall(function()
    if extra:sub(1, #SCRIPT_TAG) ~= SCRIPT_TAG then
      error("saved world: the script part is not saspu's (" .. SCRIPT_TAG .. ")", 0)
    end
    local r = reader(extra:sub(#SCRIPT_TAG + 1))
    local all = {}
    for k, c in ipairs(list) do all[k] = read_side(crowds[c], r, k, agents[k], goals[k]) end
    if r.left() ~= 0 then error("saved world: the script part has bytes after the end", 0) end
    return all
  end)
  if not ok then error("saspu.World:load: " .. tostring(parsed), 2) end
  core.world_load(self, list, s)
  local report = {}
  for k, c in ipairs(list) do apply_side(crowds[c], parsed[k], report) end
  return report
end

-- ------------------------------------------------------------------------------------
-- Closed objects and error positions
-- ------------------------------------------------------------------------------------
-- Every method of a closed world, crowd or agent handle raises "saspu.World: closed"
-- (Crowd, Agent likewise); the C methods check for themselves. An error from a method
-- written here names the caller's line: the method runs under pcall, and a position in
-- saspu's own files is dropped before the message is raised again at level 2.

local function strip_own(msg)
  if type(msg) ~= "string" then return msg end
  return (msg:gsub("^[^\n]-saspu/[%w_]+%.lua:%d+: ", ""))
end

-- Wraps every method of `methods` written in Lua (the C ones check for themselves).
local function guard(methods, what)
  local is_open, names = methods.is_open, {}
  for name, f in pairs(methods) do
    -- close stays callable: closing twice does nothing
    if type(f) == "function" and name ~= "close" and debug.getinfo(f, "S").what == "Lua" then
      names[#names + 1] = name
    end
  end
  for _, name in ipairs(names) do
    local f = methods[name]
    methods[name] = function(self, ...)
      if not is_open(self) then error(what .. ": closed", 2) end
      local ok, a, b, c, d = pcall(f, self, ...)
      if not ok then error(strip_own(a), 2) end
      return a, b, c, d
    end
  end
end

guard(World, "saspu.World")
guard(Crowd, "saspu.Crowd")
guard(Agent, "saspu.Agent")
M.strip_own = strip_own

-- ------------------------------------------------------------------------------------
-- saspu.world
-- ------------------------------------------------------------------------------------

-- saspu.world (documented in init.lua, where it is exported)
function M.world(spec)
  spec = spec or {}
  if type(spec) ~= "table" then error("saspu.world: expected a table, got " .. type(spec), 2) end
  refuse_unknown(spec, { grid = true, places = true, threads = true, facts = true }, "saspu.world")
  local threads = spec.threads
  if threads ~= nil and (not is_integer(threads) or threads < 0) then
    error("saspu.world: threads must be an integer >= 0 (0: every core), got " .. tostring(threads), 2)
  end
  local w = core.world(spec.grid, threads)
  worlds[w] = { world = w, crowds = {}, place_ids = {}, place_names = {}, threads = threads ~= nil,
                open = {} }
  if spec.places ~= nil then
    if type(spec.places) ~= "table" then error("saspu.world: places: expected an array", 2) end
    local counts = {}
    for k, p in ipairs(spec.places) do
      local path = "saspu.world: places[" .. k .. "]"
      if type(p) ~= "table" then error(path .. ": expected a table", 2) end
      refuse_unknown(p, { name = true, kind = true, x = true, y = true, capacity = true }, path)
      local kind = p.kind or p.name
      if type(kind) ~= "string" then error(path .. ": needs a kind or a name", 2) end
      local name = p.name
      if not name then
        counts[kind] = (counts[kind] or 0) + 1
        name = kind .. counts[kind]
      end
      local ok, err = pcall(World.place, w, name, p.x, p.y, { kind = kind, capacity = p.capacity })
      if not ok then error(path .. ": " .. tostring(err):gsub("^saspu.World:place: ", ""), 2) end
    end
  end
  facts.declare(w, worlds[w], spec.facts)
  return w
end

return M
