-- lua/saspu/world.lua: saspu.world and the World methods for scripts (places, crowds, near, update, events), and the guard that makes every Lua method of a closed object raise.
--
-- The C side (csrc/lua/world.c, crowd.c, agent.c) moves every agent. The other parts
-- of the script side: sides.lua (the records), names.lua (a domain's names),
-- behaviour.lua (behaviour tables), hooks.lua (the hook runner), crowd.lua (Crowd and
-- Agent methods), world_save.lua (save and load), facts.lua, sensors.lua, lifecycle.lua.
local core = require "saspu.core"
local sides = require "saspu.sides"
local naming = require "saspu.names"
local behaviours = require "saspu.behaviour"
local hooks = require "saspu.hooks"
local facts = require "saspu.facts"
local sensors = require "saspu.sensors"
local engine = require "saspu.engine"
local record = require "saspu.record"

local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local string_format = string.format

local World, Crowd, Agent = core.World, core.Crowd, core.Agent
local worlds, crowds = sides.worlds, sides.crowds
local world_side, check_cell = sides.world_side, sides.check_cell
local is_integer, refuse_unknown = sides.is_integer, sides.refuse_unknown
local why_of, reason_text, not_updating = naming.why_of, hooks.reason_text, hooks.not_updating

local M = {}
M.NOT = behaviours.NOT -- saspu.NOT (documented in init.lua, where it is exported)
M.wait = hooks.wait   -- saspu.wait (likewise)

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
-- priority = n, when = { var = value }, recheck = true }`, each a condition (left-out
-- variables free); `recheck = true` checks `when` again while the goal runs (between
-- steps, and every frame of an interruptible step) and drops the goal once it stops
-- holding (event `goal_dropped`, reason `when_lapsed`; the agent chooses again).
-- `behaviour.select = function(agent)` chooses goals instead of priorities (a goal name
-- or nil), called only when an agent needs a goal. `behaviour.facts` and
-- `behaviour.sensors`: as the options of those names (in one place or the other).
-- `behaviour.max_failures` (default 3,
-- an integer 1..255) failures in a row of one step give its goal up for
-- `behaviour.give_up_for` seconds (default 30, > 0): event `gave_up`; the k-th failure
-- in a row waits `retry * 2^(k-2)` s (at most 16 retries) before the replan.
-- @tparam Domain dom
-- @tparam table behaviour `{ actions = { ... }, goals = { ... }, select = f, max_failures = 3, give_up_for = 30 }`
-- @tparam[opt] table opts `{ capacity = 1024, threads = 1 (0: every core; default: the
-- world's pool), wake_ahead = 0 (with threads: ms the crowd's own workers wake before
-- a steady frame is due; 0: off; as saspu.world's), seed, speed = 4 cells/s, cooldown = 5 s, retry = 1 s, cache_capacity,
-- parallel_min = 256 (agents a worker thread gets at least before a frame's pass is
-- shared with it; 1 shares every pass with work in two chunks), goal_budget = 0 (at most
-- this many agents thinking with nothing pending, new ones or at a plan's end, choose a
-- goal in one update, lowest index first; the others wait asleep for the next updates,
-- so a first frame of many agents is spread over several; 0: no limit),
-- movement = "grid" | "engine" (the game moves its agents: events `move`, then
-- `a:arrived()` or `a:move_failed(reason)`), facts = { "alarm", ... } (variables tied to
-- the world's facts of those names; a variable named like a world fact is tied to it
-- even when left out, and a crowd whose variable cannot be tied, because its values
-- differ or an action changes it, is refused naming why), sensors = { var = { near =
-- crowd | near_kind = "saloon", r = cells, period = seconds (default 0: every update),
-- values = { off, on } (default: false, true, or the variable's first and second
-- value) } } (a variable the update keeps equal to "an agent of that crowd / a place of
-- that kind within r cells"; `Crowd:sense` adds sensors later) }`
-- @treturn Crowd
-- @raise errors that name the path: "behaviour.actions.buy_food.at: unknown place 'markt'",
-- "behaviour.goals[2].when.rested: 'maybe' is not a value of 'rested' (false, true)",
-- "behaviour.goals[1].recheck: expected a boolean, got string",
-- "behaviour.actions.nosuch: 'nosuch' is not an action of 'horse_breeder'",
-- "behaviour: unknown field 'x'", "behaviour.actions.arrest.at.agent: a handle of
-- another world"; "saspu.World:crowd: unknown option 'sped' (options: capacity, ...)";
-- bad values of the crowd's options.
function World:crowd(dom, behaviour, opts)
  local ws = world_side(self)
  local unknown = type(opts) == "table" and behaviours.unknown_option(opts) or nil
  if unknown then
    error(string_format("saspu.World:crowd: unknown option '%s' (options: %s)", unknown,
                        behaviours.CROWD_OPTION_LIST), 2)
  end
  local n = naming.domain_names(dom)
  local beh = behaviours.read(behaviour, n, ws)
  local fact_list, sensor_spec = behaviour.facts, behaviour.sensors
  if opts ~= nil and type(opts) == "table" then
    for _, k in ipairs { "facts", "sensors" } do
      if opts[k] ~= nil and behaviour[k] ~= nil then
        error("saspu.World:crowd: " .. k .. " given in both the behaviour and the options", 2)
      end
    end
    fact_list, sensor_spec = fact_list or opts.facts, sensor_spec or opts.sensors
  end
  local c = core.crowd(self, dom, opts)
  -- a sensor's variable is the crowd's own, even when a world fact has its name
  local own = {}
  if type(sensor_spec) == "table" then
    for name in pairs(sensor_spec) do own[name] = true end
  end
  local tied = facts.tie(self, ws, c, n, fact_list, "saspu.World:crowd: facts", own)
  local sensed = sensors.add(self, c, n, sensor_spec, crowds, "saspu.World:crowd: sensors")
  for a, rec in pairs(beh.actions) do
    -- a scripted step walks first, then waits in C until Lua finishes or fails it
    c:set_action(a, rec.min, rec.max, rec.bind, rec.arg, rec.interruptible, rec.scripted, rec.hook,
                 rec.max_failures, rec.give_up_for)
  end
  local goal_names, goal_ids = {}, {}
  for _, g in ipairs(beh.goals) do
    -- a `when` with sets is one C goal per combination (exactly one can hold)
    local first
    for _, when in ipairs(g.whens or { false }) do
      local i = c:add_goal(g.conds[1], g.priority, when or nil)
      -- a goal with sets is reached by any of its combinations
      if #g.conds > 1 then c:set_goal_choices(i, g.conds) end
      goal_names[i] = g.name
      goal_ids[g.name] = goal_ids[g.name] or i
      first = first or i
      -- recheck: the goal is dropped once no `when` of this entry holds
      if g.recheck then c:set_goal_recheck(i, first) end
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
    first_text = {}, -- agent -> the text of the failure that started its run (gave_up's)
    extra = {}, extra_next = {},            -- events made in Lua (hook_failed)
    watch = {},          -- agent -> its last events (agents inspected with a history)
    watching = 0,        -- how many (next() on a table emptied of 100k keys scans them all)
    engine = opts ~= nil and type(opts) == "table" and opts.movement == "engine",
    tied = tied,         -- variable id -> the world fact it shows
    sensed = sensed,     -- variable id -> its sensor's name (a:set refuses both)
    rng = ((opts and opts.seed) or 1) * 2 + 1,
    -- seconds between the questions to an `at` that had no target (the crowd's retry)
    retry = type(opts) == "table" and type(opts.retry) == "number" and opts.retry > 0
            and opts.retry or 1,
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
-- @tparam[opt] Crowd crowd only this crowd of the world (nil: every crowd)
-- @tparam[opt] int max at most this many, the nearest in that order (nil or 0: all); each
-- crowd's index then stops once it holds its nearest `max`, as `crowd:near` does
-- @treturn {Agent,...} the handles, a new table
-- @raise "saspu.World:near: x and y must be integers, got 1.5, 1";
-- "saspu.World:near: r must be a number >= 0, got -1";
-- "saspu.World:near: crowd is not a crowd of this world";
-- "saspu.World:near: max must be an integer >= 0 (0: all), got -1".
function World:near(x, y, r, crowd, max)
  local ws = world_side(self)
  if not is_integer(x) or not is_integer(y) then
    error(string_format("saspu.World:near: x and y must be integers, got %s, %s", tostring(x),
                        tostring(y)), 2)
  end
  if x < -65536 or x > 131072 or y < -65536 or y > 131072 then
    error(string_format("saspu.World:near: x and y must be in -65536..131072, got %d, %d", x, y), 2)
  end
  if type(r) ~= "number" or r ~= r or r < 0 then
    error("saspu.World:near: r must be a number >= 0, got " .. tostring(r), 2)
  end
  if max ~= nil and (not is_integer(max) or max < 0) then
    error("saspu.World:near: max must be an integer >= 0 (0: all), got " .. tostring(max), 2)
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
      for k = 1, c:near(x, y, r, near_found, max) do
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
  local keep = (max and max > 0 and max < #hits) and max or #hits
  for k = #hits, keep + 1, -1 do hits[k] = nil end
  for k = 1, keep do hits[k] = hits[k][4]:agent(hits[k][3]) end
  return hits
end

-- ------------------------------------------------------------------------------------
-- One frame
-- ------------------------------------------------------------------------------------

local FLOAT_MAX = 3.4028234663852886e38 -- C keeps dt as a float
local CLOCK_MAX = core.CLOCK_MAX

-- Refuses a dt that takes an open crowd's clock past CLOCK_MAX before any crowd moves
-- (crowd:update refuses it too, but the crowds before it would have moved on).
local clock_stats = {}
local function check_clocks(ws, dt)
  local list = ws.crowds
  for k = 1, #list do
    local c = list[k]
    if c:is_open() then
      local clock = c:stats(clock_stats, true).clock
      if clock + dt > CLOCK_MAX then
        error(string_format("saspu.World:update: dt %.17g takes the clock of crowd %d '%s' (%.17g s) "
                            .. "past %.0f s, the latest it may read", dt, k, crowds[c].names.name,
                            clock, CLOCK_MAX), 3)
      end
    end
  end
end

--- One frame: every open crowd advances by dt seconds in C (choose goals, plan, walk,
-- act, apply effects, replan), then the Lua hooks of this frame's events run. The crowds
-- made without their own `threads` update together (each pass of all of them at once, on
-- the world's pool if it has one: the events are the same with a pool of any size and
-- without one, where crowds meet too), then those with their own threads one by one,
-- then each crowd runs its hooks in creation order. A hook that raises,
-- yields (outside `run`), or closes, loads, saves or updates the world fails its step
-- (`step_failed` or `hook_failed` at the next update); the frame's other hooks run and
-- the crowd keeps running.
-- @tparam number dt seconds, finite, 0 or more
-- @raise "saspu.World:update: dt must be a finite number of seconds, 0 or more, got -1";
-- a dt that takes a crowd's clock past `saspu.CLOCK_MAX` is refused before any crowd moves.
function World:update(dt)
  local ws = world_side(self)
  if type(dt) ~= "number" or not (dt >= 0 and dt <= FLOAT_MAX) then
    -- checked here too, so a world without open crowds says so as well
    error("saspu.World:update: dt must be a finite number of seconds, 0 or more, got " .. tostring(dt), 2)
  end
  if ws.updating then error("saspu.World:update: called from a hook during world:update", 2) end
  check_clocks(ws, dt)
  ws.updating = true
  local ok, err = pcall(hooks.update_all, self, ws, dt)
  ws.updating = false
  if not ok then error(err, 0) end
  if ws.recorder then record.frame(ws) end
end

-- While world:update runs its hooks, nothing may close, load or update the world or
-- its crowds: the hook that tries fails (hook_failed) and the frame goes on.
local world_close, crowd_close = World.close, Crowd.close
function World:close()
  not_updating(worlds[self], "saspu.World:close")
  record.close(worlds[self])
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
-- `{ agent, crowd, class, kind, action, goal, reason, place, detail, why, x, y, target,
-- repeated }`:
-- `agent` a `saspu.Agent`; `crowd` its `saspu.Crowd`; `class` the domain's name;
-- `action` and `goal` names or nil; `reason` a text or nil; `place` the name of the
-- place the event is about (`arrived`, `blocked`, `move`, and `step_failed` for `full`,
-- `unreachable`, `cooldown`), else nil; `detail` the place's id (1-based, as
-- `world:place` returns it) with `place`, the plan's length for `planned` and
-- `replanned`, else nil; `why` for `no_plan`: the blocker (see `Crowd:why`); `x, y`: the
-- target cell of a `move`, else nil; `target`: for a `move` to another agent, that
-- agent (a `saspu.Agent`; false once it is gone), else nil; `repeated`: true for a
-- `move` told again (the first update after `world:load` repeats every pending one).
-- Kinds: `goal_chosen`, `planned`, `replanned`, `step_started`, `step_finished`,
-- `step_failed`, `step_skipped`, `arrived`, `goal_reached`, `no_plan`, `blocked`,
-- `idle`, `waiting`, `move` and `move_cancelled` (crowds with movement = "engine": the
-- step of a move not answered yet ended otherwise; `reason` says why), `gave_up`,
-- `goal_dropped`, `hook_failed`. Events of agents despawned after the update are
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
        ev.x, ev.y, ev.target, ev.repeated = nil, nil, nil, nil
        local e = k <= #extra and extra[k]
        if e then
          if not e.gone then -- (the events of agents despawned since are skipped)
            ev.agent, ev.kind, ev.reason, ev.detail = c:agent(e.agent), e.kind, e.reason, nil
            ev.action, ev.goal, ev.place = side.names.action_names[e.action], nil, nil
            ev.class = side.names.name
            ev.why = nil
            return ev
          end
        end
        local agent, kind, reason, _, goal, action, detail, live, repeated
        if not e then
          agent, kind, reason, _, goal, action, detail, live, repeated = c:event(k - #extra)
        end
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
          elseif (kind == "arrived" or kind == "blocked" or kind == "move"
                  or kind == "move_cancelled" or PLACE_REASONS[reason])
                 and detail >= 1 then
            ev.place, ev.detail = side.wside.place_names[detail], detail -- 1-based from c:event
          end
          if kind == "move" then
            ev.x, ev.y = c:target_cell(agent)
            ev.target, ev.repeated = engine.target_of(c, agent), repeated
          end
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

-- Crowd and Agent methods: lua/saspu/crowd.lua; world:save, world:load:
-- lua/saspu/world_save.lua.
require "saspu.crowd"
require "saspu.world_save"
-- world:set(name, value), world:get(name): lua/saspu/facts.lua.
facts.install(World, { world_side = world_side })
-- world:record, world:stop_recording: lua/saspu/record.lua.
record.install(World, { world_side = world_side })

-- ------------------------------------------------------------------------------------
-- Closed objects and error positions
-- ------------------------------------------------------------------------------------
-- Every method of a closed world, crowd or agent handle raises "saspu.World: closed"
-- (Crowd, Agent likewise), and one closed while its method runs "saspu.World was closed
-- during the call"; the C methods check for themselves. An error from a method
-- written here names the caller's line: the method runs under pcall, and a position in
-- saspu's own files is dropped before the message is raised again at level 2.

local function strip_own(msg)
  if type(msg) ~= "string" then return msg end
  return (msg:gsub("^[^\n]-saspu/[%w_]+%.lua:%d+: ", ""))
end

-- The level of a tail-called function's caller: Lua 5.1 keeps a "(tail call)" frame
-- between them, later versions and LuaJIT do not.
local CALLER_LEVEL = (function()
  local function callee()
    local info = debug.getinfo(2, "S")
    return info
  end
  local function caller() return callee() end
  return caller().what == "tail" and 3 or 2
end)()

-- The results of a guarded method, as many as it returned (a fixed list of names would
-- pad them with nils: print(a:get(v)) would print them). It is tail-called, so no table
-- is made per call. A method that failed because its object was closed while it ran
-- (by a finalizer or a hook) says so.
local function pass_results(is_open, self, what, ok, ...)
  if not ok then
    if not is_open(self) then error(what .. " was closed during the call", CALLER_LEVEL) end
    error(strip_own((...)), CALLER_LEVEL)
  end
  return ...
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
      return pass_results(is_open, self, what, pcall(f, self, ...))
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

-- The fields of saspu.world's table (spec/api_reference_spec.lua checks that the
-- reference names each).
M.WORLD_OPTIONS = { grid = true, places = true, threads = true, facts = true, wake_ahead = true }

-- saspu.world (documented in init.lua, where it is exported)
function M.world(spec)
  spec = spec or {}
  if type(spec) ~= "table" then error("saspu.world: expected a table, got " .. type(spec), 2) end
  refuse_unknown(spec, M.WORLD_OPTIONS, "saspu.world")
  local threads = spec.threads
  if threads ~= nil and (not is_integer(threads) or threads < 0) then
    error("saspu.world: threads must be an integer >= 0 (0: every core), got " .. tostring(threads), 2)
  end
  local ahead = spec.wake_ahead
  if ahead ~= nil then
    if type(ahead) ~= "number" or not (ahead >= 0 and ahead <= 1000) then
      error("saspu.world: wake_ahead must be a number of ms from 0 (off) to 1000, got " .. tostring(ahead), 2)
    end
    if threads == nil then
      error("saspu.world: wake_ahead sets the world's threads: name threads too", 2)
    end
  end
  if spec.places ~= nil then
    if type(spec.places) ~= "table" then error("saspu.world: places: expected an array", 2) end
    -- a keyed entry (places = { trough = {...} }) would be no place at all: name it
    local n = 0
    for _ in pairs(spec.places) do n = n + 1 end
    for k in pairs(spec.places) do
      if not (is_integer(k) and k >= 1 and k <= n) then
        error(string_format("saspu.world: places: expected an array, found key %s (a place names itself: "
          .. "places = { { name = %s, x = ..., y = ... } })", type(k) == "string" and "'" .. k .. "'" or tostring(k),
          type(k) == "string" and string_format("%q", k) or '"..."'), 2)
      end
    end
  end
  local w = core.world(spec.grid, threads, ahead)
  worlds[w] = { world = w, crowds = {}, place_ids = {}, place_names = {}, open = {} }
  if spec.places ~= nil then
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
