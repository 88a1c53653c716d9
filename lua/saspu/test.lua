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
-- busted then reports a failed check as a failure, not as an error.
local has_luassert, luassert = pcall(require, "luassert")
if has_luassert and type(luassert) == "table" and luassert.register then
  for name, check in pairs(checks) do
    luassert:register("assertion", name, function(state, arguments)
      local ok, message = check(arguments[1], arguments[2], arguments[3], arguments[4])
      if not ok then state.failure_message = message end
      return ok
    end)
  end
else
  luassert = nil
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
