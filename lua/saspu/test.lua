-- lua/saspu/test.lua: assertions for scripters' own specs of saspu domains (busted or plain Lua).

--- Assertions for your own specs of saspu domains, under busted or in plain Lua.
--
-- From another project's specs nothing here needs this repository's .busted: make
-- `require "saspu"` work (install saspu, or `eval "$(./dev env)"`), then
-- `local check = require "saspu.test"`. Under busted, requiring it also registers each
-- check as a luassert assertion (`assert.plans_to(dom, start, goal, { ... })`), so that
-- a failed check is reported as a test failure; outside busted a failed check raises an
-- ordinary error with the same message, at the caller's line.
--
-- `start` and `goal` take every form `Domain:plan` accepts (tables, declared names,
-- packed states). A goal is a condition: the variables it leaves out may end with any
-- value; a `saspu.KEEP` value must end as it started.
--
--     local check = require "saspu.test"
--     check.plans_to(dom, "morning", "fill_trough",
--                    { "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket" })
--     check.has_no_plan(dom, "morning", { haystack = "in_feeder", bucket = "in_hands",
--                                         water = "in_source" }, "each need the other")
--     check.plan_length(dom, "morning", { water = "in_trough" }, 3)
-- @module saspu.test
local type, pairs, ipairs, tostring, error, pcall, require =
  type, pairs, ipairs, tostring, error, pcall, require
local concat, find, format = table.concat, string.find, string.format

local KEEP = require("saspu").KEEP

local M = {}

--- A plan as text, for messages: `"{ a, b, c }"`, or `"nil"` for none.
-- @function show_plan
-- @tparam {string,...} plan
-- @treturn string
-- @raise nothing.
local function show_plan(plan)
  if plan == nil then return "nil" end
  local names = {}
  for i, a in ipairs(plan) do names[i] = tostring(a) end
  return "{ " .. concat(names, ", ") .. " }"
end
M.show_plan = show_plan

local function same_plan(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

local function describe_case(dom, start, goal)
  local function show(x)
    if type(x) == "string" then return "'" .. x .. "'" end
    return "a table"
  end
  return format("%s from %s to %s", tostring(dom), show(start), show(goal))
end

-- Each check returns ok, message, result; M's functions below raise on a failure.

--- Checks that the plan from start to goal is exactly `expected`.
-- @function plans_to
-- @tparam Domain dom
-- @param start a start (table, name or packed state)
-- @param goal a goal (condition table, name or packed state)
-- @tparam {string,...} expected action names, in order
-- @treturn {string,...} the plan
-- @raise "DOMAIN from 'morning' to 'feed_horses': expected the plan { ... }, got { ... }"
-- (or "got no plan: REASON"); the errors of `Domain:plan` for bad input.
local function check_plans_to(dom, start, goal, expected)
  local plan, why = dom:plan(start, goal)
  if plan == nil then
    return false, format("%s: expected the plan %s, got no plan: %s",
      describe_case(dom, start, goal), show_plan(expected), why.message)
  end
  if not same_plan(plan, expected) then
    return false, format("%s: expected the plan %s, got %s",
      describe_case(dom, start, goal), show_plan(expected), show_plan(plan))
  end
  return true, nil, plan
end

--- Checks that there is no plan, and that the reason's message contains `because`.
-- @function has_no_plan
-- @tparam Domain dom
-- @param start
-- @param goal
-- @tparam[opt] string because text the reason must contain (plain text, not a pattern)
-- @treturn table the `why` table
-- @raise "...: expected no plan, got { ... }"; "...: expected no plan because of 'X', got: REASON".
local function check_has_no_plan(dom, start, goal, because)
  local plan, why = dom:plan(start, goal)
  if plan ~= nil then
    return false, format("%s: expected no plan, got %s",
      describe_case(dom, start, goal), show_plan(plan))
  end
  if because ~= nil and not find(why.message, because, 1, true) then
    return false, format("%s: expected no plan because of '%s', got: %s",
      describe_case(dom, start, goal), because, why.message)
  end
  return true, nil, why
end

-- The start as a table of value names, whatever form it was given in.
local function start_state(dom, start)
  return dom:decode(dom:encode(start))
end

-- What a goal asks, as { var = value name } without its free variables: saspu.KEEP
-- values read from the start.
local function goal_condition(dom, start, goal)
  local g = type(goal) == "string" and dom:goals()[goal] or goal
  if type(g) == "string" then return dom:decode(g) end -- a packed goal
  local s, partial = start_state(dom, start), {}
  for var, value in pairs(g) do
    if value == KEEP then partial[var] = s[var] else partial[var] = value end
  end
  return dom:decode(dom:encode(partial))
end

--- Checks that the actions apply in turn from start (each pre and prevail holds) and,
-- with a goal, that the final state meets it.
-- @function replays
-- @tparam Domain dom
-- @param start
-- @tparam {string,...} plan action names
-- @param[opt] goal
-- @treturn table the final state, `{ var = value }`
-- @raise "step 2 'fill_trough': needs water = in_bucket, but it is in_source" (or a
-- prevail, or an unknown action); "after { ... }: water = in_bucket, the goal wants in_trough".
local function check_replays(dom, start, plan, goal)
  local info = {}
  for _, a in ipairs(dom:actions()) do info[a.name] = a end
  local state = start_state(dom, start)
  for i, name in ipairs(plan) do
    local a = info[name]
    if a == nil then
      return false, format("step %d: %s has no action '%s'", i, tostring(dom), tostring(name))
    end
    if state[a.var] ~= a.pre then
      return false, format("step %d '%s': needs %s = %s, but it is %s", i, name, a.var,
        a.pre, state[a.var])
    end
    for var, value in pairs(a.prevail) do
      if state[var] ~= value then
        return false, format("step %d '%s': prevail %s = %s, but it is %s", i, name, var,
          value, state[var])
      end
    end
    state[a.var] = a.post
  end
  if goal ~= nil then
    for var, value in pairs(goal_condition(dom, start, goal)) do
      if state[var] ~= value then
        return false, format("after %s: %s = %s, the goal wants %s", show_plan(plan), var,
          state[var], value)
      end
    end
  end
  return true, nil, state
end

--- Checks that a plan exists and replays to the goal, whatever its order.
-- @function reaches
-- @tparam Domain dom
-- @param start
-- @param goal
-- @treturn {string,...} the plan
-- @raise "...: expected a plan, got none: REASON"; a failed replay as `replays`'.
local function check_reaches(dom, start, goal)
  local plan, why = dom:plan(start, goal)
  if plan == nil then
    return false, format("%s: expected a plan, got none: %s", describe_case(dom, start, goal),
      why.message)
  end
  local ok, message = check_replays(dom, start, plan, goal)
  if not ok then return false, message end
  return true, nil, plan
end

--- Checks that the plan reaches the goal and uses these actions, in any order.
-- @function contains
-- @tparam Domain dom
-- @param start
-- @param goal
-- @tparam {string,...} actions
-- @treturn {string,...} the plan
-- @raise "...: expected the plan to use 'X', got { ... }"; the failures of `reaches`.
local function check_contains(dom, start, goal, actions)
  local ok, message, plan = check_reaches(dom, start, goal)
  if not ok then return false, message end
  local used = {}
  for _, a in ipairs(plan) do used[a] = true end
  for _, a in ipairs(actions) do
    if not used[a] then
      return false, format("%s: expected the plan to use '%s', got %s",
        describe_case(dom, start, goal), tostring(a), show_plan(plan))
    end
  end
  return true, nil, plan
end

--- Checks that the plan reaches the goal in exactly `length` actions.
-- @function plan_length
-- @tparam Domain dom
-- @param start
-- @param goal
-- @tparam int length
-- @treturn {string,...} the plan
-- @raise "...: expected a plan of 4 actions, got 3: { ... }"; the failures of `reaches`.
local function check_plan_length(dom, start, goal, length)
  local ok, message, plan = check_reaches(dom, start, goal)
  if not ok then return false, message end
  if #plan ~= length then
    return false, format("%s: expected a plan of %d actions, got %d: %s",
      describe_case(dom, start, goal), length, #plan, show_plan(plan))
  end
  return true, nil, plan
end

local checks = {
  reaches = check_reaches,
  contains = check_contains,
  plan_length = check_plan_length,
  plans_to = check_plans_to,
  has_no_plan = check_has_no_plan,
  replays = check_replays,
}

-- Register the checks with luassert when it is there (it is under busted):
-- busted then reports a failed check as a failure, not as an error. The world checks,
-- which must not run twice, report through one more assertion that only carries the
-- message of a check made already.
local has_luassert, luassert = pcall(require, "luassert")
if has_luassert and type(luassert) == "table" and luassert.register then
  for name, check in pairs(checks) do
    luassert:register("assertion", name, function(state, arguments)
      local ok, message = check(arguments[1], arguments[2], arguments[3], arguments[4])
      if not ok then state.failure_message = message end
      return ok
    end)
  end
  luassert:register("assertion", "saspu_world_check", function(state, arguments)
    state.failure_message = arguments[2]
    return arguments[1] == true
  end)
else
  luassert = nil
end

-- Reports a failed world check: a luassert failure under busted, else an error, at the
-- caller of the check.
local function world_failure(message)
  if luassert then luassert.saspu_world_check(false, message) end
  error(message, 3)
end

-- ------------------------------------------------------------------------------------
-- Worlds: run one for a while, then check what its agents did
-- ------------------------------------------------------------------------------------

-- The events `run` recorded, per world (weak: a dropped world takes its log with it).
local logs = setmetatable({}, { __mode = "k" })

-- A copy of a reused event table (every field it has: `x`, `y`, `target` of a `move`
-- and any other), with the world's clock.
local function copy_event(ev, time)
  local out = {}
  for k, v in pairs(ev) do out[k] = v end
  out.time = time
  return out
end

local function log_of(world)
  local log = logs[world]
  if not log then log = { clock = 0 } logs[world] = log end
  return log
end

-- One event as text for messages: "3.5 s agent 2 step_failed buy_food (full)".
local function event_text(ev)
  local idx = ev.agent and ev.agent.index and ev.agent:index() or "?"
  return format("%.2f s agent %s %s%s%s%s", ev.time, tostring(idx), ev.kind,
    ev.action and (" " .. ev.action) or "", ev.goal and (" goal " .. ev.goal) or "",
    ev.reason and (" (" .. tostring(ev.reason) .. ")") or "")
end

-- The options of run and assert_reaches: the fourth argument is the frame time or a table
-- { dt, stop, engine }.
local RUN_OPTIONS = { dt = true, stop = true, engine = true }

local function run_options(where, dt, stop)
  local opts = { dt = dt, stop = stop }
  if type(dt) == "table" then
    opts = dt
    for k in pairs(opts) do
      if not RUN_OPTIONS[k] then
        error(format("%s: unknown option '%s' (dt, stop, engine)", where, tostring(k)), 3)
      end
    end
  end
  if opts.dt == nil then opts.dt = 0.1 end
  if type(opts.dt) ~= "number" or opts.dt ~= opts.dt or opts.dt <= 0 then
    error(where .. ": dt must be a number > 0, got " .. tostring(opts.dt), 3)
  end
  if opts.stop ~= nil and type(opts.stop) ~= "function" then
    error(where .. ": stop must be a function, got " .. type(opts.stop), 3)
  end
  local e = opts.engine
  if e ~= nil and type(e) ~= "function" and (type(e) ~= "number" or e ~= e or e < 0) then
    error(where .. ": engine must be a function(ev) or a delay in seconds >= 0, got "
          .. tostring(e), 3)
  end
  return opts
end

-- Is the agent's move still waiting for the game? (a:moving() where the binding has it)
local function move_pending(agent)
  if not agent:alive() then return false end
  if agent.moving then return agent:moving() end
  return agent:crowd():info(agent:index(), {}).phase == "moving"
end

-- The built-in engine of `engine = delay`: each `move` is answered `delay` seconds later
-- (the agent's latest move wins) by putting the agent on the target (the agent it
-- follows, where it is then, else the move's cell) and calling a:arrived().
local function delayed_engine(delay)
  local due = {} -- agent -> { ev, at }
  local order = {}
  local self = {}
  function self.move(ev, clock)
    if due[ev.agent] == nil then order[#order + 1] = ev.agent end
    due[ev.agent] = { ev = ev, at = clock + delay }
  end
  function self.answer(clock)
    local kept = {}
    for _, agent in ipairs(order) do
      local d = due[agent]
      if d.at > clock + 1e-9 then
        kept[#kept + 1] = agent
      else
        due[agent] = nil
        if move_pending(agent) then
          local t, x, y = d.ev.target, d.ev.x, d.ev.y
          if type(t) == "userdata" and t.alive and t:alive() then x, y = t:position() end
          agent:teleport(x, y)
          agent:arrived()
        end
      end
    end
    order = kept
  end
  return self
end

-- run's loop, once its options are read.
local function run_with(world, seconds, opts)
  local dt, stop, engine = opts.dt, opts.stop, opts.engine
  local machine = type(engine) == "number" and delayed_engine(engine) or nil
  local log, out, done = log_of(world), {}, false
  local frames = math.floor(seconds / dt + 0.5)
  for _ = 1, frames do
    world:update(dt)
    log.clock = log.clock + dt
    local moves
    for ev in world:events() do
      local e = copy_event(ev, log.clock)
      out[#out + 1] = e
      log[#log + 1] = e
      if e.kind == "move" and engine then
        moves = moves or {}
        moves[#moves + 1] = e
      end
      if stop and stop(e) then done = true end
    end
    -- the game answers after the frame's events (world:events is not re-entrant)
    for _, e in ipairs(moves or {}) do
      if machine then machine.move(e, log.clock) else engine(e) end
    end
    if machine then machine.answer(log.clock) end
    if done then break end
  end
  return out
end

--- Runs a world for `seconds` in frames of `dt`, collecting its events.
-- Every event is copied with every field it has (`x`, `y`, `target` of a `move`, ...)
-- and `time`, the seconds since the first `run` of this world, and kept for
-- `assert_events` and `assert_no_failures`.
-- A crowd with `movement = "engine"` waits for the game after each `move` event: give
-- `engine` to play the game. A function is called with each `move` event's copy after
-- its frame (it answers with `ev.agent:arrived()`, now or in a later call, or
-- `ev.agent:move_failed()`); a number is a delay in seconds after which saspu.test
-- answers each move itself: it puts the agent on the move's cell (or on the agent it
-- follows, where that one is then) and calls `a:arrived()` (0: in the same frame).
--     local events = check.run(world, 10)          -- ten seconds at 0.1 s a frame
--     check.run(world, 10, { dt = 0.25, engine = 0.5 }) -- moves take half a second
-- @function run
-- @tparam World world
-- @tparam number seconds how long to run
-- @tparam[opt=0.1] number|table dt the frame time, or `{ dt = 0.1, stop = f, engine = f | delay }`
-- @tparam[opt] function stop called with each event copy; true stops the run after its frame
-- @treturn {table,...} the events of this run, in order
-- @raise "saspu.test.run: seconds must be a number >= 0, got nil"; "saspu.test.run:
-- unknown option 'delay' (dt, stop, engine)"; "saspu.test.run: engine must be a
-- function(ev) or a delay in seconds >= 0, got -1".
function M.run(world, seconds, dt, stop)
  if type(seconds) ~= "number" or seconds < 0 then
    error("saspu.test.run: seconds must be a number >= 0, got " .. tostring(seconds), 2)
  end
  local opts = run_options("saspu.test.run", dt, stop)
  return run_with(world, seconds, opts)
end

-- The recorded events of one agent.
local function events_of(agent)
  local world = agent:crowd():world()
  local mine = {}
  for _, e in ipairs(log_of(world)) do
    if e.agent == agent then mine[#mine + 1] = e end
  end
  return mine
end

local function last_lines(events, n)
  local lines = {}
  for i = math.max(1, #events - n + 1), #events do lines[#lines + 1] = "  " .. event_text(events[i]) end
  return #lines > 0 and concat(lines, "\n") or "  (no events)"
end

--- Runs the agent's world until the agent reaches `goal` (a `goal_reached` event of that
-- goal), for at most `seconds`; fails naming the agent's last events and, when it had no
-- plan, what blocks it.
--     check.assert_reaches(a, "work", 30)
-- @function assert_reaches
-- @tparam Agent agent
-- @tparam string goal the goal's name (as the behaviour lists it)
-- @tparam number seconds the longest wait
-- @tparam[opt=0.1] number|table dt the frame time, or `{ dt = 0.1, engine = f | delay }` as
-- for `run` (an engine crowd needs `engine`)
-- @treturn number the seconds it took
-- @raise "expected agent 1 (citizen) to reach 'work' within 5 s; its last events: ...".
function M.assert_reaches(agent, goal, seconds, dt)
  local opts = run_options("saspu.test.assert_reaches", dt)
  local world = agent:crowd():world()
  local start = log_of(world).clock
  local reached
  local stop = opts.stop
  run_with(world, seconds, { dt = opts.dt, engine = opts.engine, stop = function(e)
    local halt = stop and stop(e)
    if e.agent == agent and e.kind == "goal_reached" and e.goal == goal then
      reached = reached or e.time
      return true
    end
    return halt
  end })
  if reached then return reached - start end
  local info = agent:alive() and agent:inspect() or { class = "despawned" }
  local why = info.why
  world_failure(format("expected agent %d (%s) to reach '%s' within %s s; its last events:\n%s%s",
    agent:index(), info.class, tostring(goal), tostring(seconds),
    last_lines(events_of(agent), 8), why and ("\n  blocked: " .. why.message) or ""))
end

--- Checks that the agent's recorded events contain these kinds in this order (others
-- may come between them).
--     check.assert_events(a, { "goal_chosen", "planned", "step_started", "goal_reached" })
-- @function assert_events
-- @tparam Agent agent
-- @tparam {string,...} kinds event kinds, optionally "kind:action" ("step_started:eat")
-- @treturn {table,...} the agent's recorded events
-- @raise "expected agent 1's events to go on with 'goal_reached' after 'planned'; its events: ...".
function M.assert_events(agent, kinds)
  local mine, k = events_of(agent), 1
  for _, e in ipairs(mine) do
    local want = kinds[k]
    if want and (want == e.kind or want == e.kind .. ":" .. tostring(e.action)) then k = k + 1 end
  end
  if k <= #kinds then
    world_failure(format("expected agent %d's events to go on with '%s'%s; its events:\n%s",
      agent:index(), kinds[k], k > 1 and (" after '" .. kinds[k - 1] .. "'") or "",
      last_lines(mine, 12)))
  end
  return mine
end

-- Kinds that mean something went wrong.
local FAILURES = { step_failed = true, no_plan = true, hook_failed = true }

--- Checks that no recorded event of the world is a failure: `step_failed`, `no_plan`,
-- `hook_failed`, or `blocked` for any reason but `full` (a wait).
--     check.run(world, 60); check.assert_no_failures(world)
-- @function assert_no_failures
-- @tparam World world
-- @raise "expected no failures, got 2: ...".
function M.assert_no_failures(world)
  local bad = {}
  for _, e in ipairs(log_of(world)) do
    if FAILURES[e.kind] or (e.kind == "blocked" and e.reason ~= "full") then bad[#bad + 1] = e end
  end
  if #bad > 0 then
    world_failure(format("expected no failures, got %d:\n%s", #bad, last_lines(bad, 10)))
  end
end

for name, check in pairs(checks) do
  -- check(dom, ...) -> the plan / the why table / the final state, or a failure
  M[name] = function(dom, a, b, c)
    local ok, message, result = check(dom, a, b, c)
    if not ok then
      if luassert then luassert[name](dom, a, b, c) end
      error(message, 2)
    end
    return result
  end
end

return M
