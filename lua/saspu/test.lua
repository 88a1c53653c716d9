-- lua/saspu/test.lua: assertions for scripters' own specs of saspu domains (busted or plain Lua).
--
--   local check = require "saspu.test"
--   check.plans_to(dom, "morning", "fill_feeder", { "take_haystack", "fill_feeder" })
--   check.has_no_plan(dom, "morning", { haystack = "in_feeder", bucket = "in_hands",
--                                       water = "in_source" }, "each need the other")
--   check.replays(dom, "morning", { "take_haystack", "fill_feeder" }, "fill_feeder")
--
-- Checks that do not pin the exact order of the plan:
--   check.reaches(dom, start, goal)                      a plan exists and replays to the goal
--   check.contains(dom, start, goal, { "fill_bucket" })  the plan uses these actions (any order)
--   check.plan_length(dom, start, goal, 3)               the plan has exactly 3 actions
--
-- Under busted the same checks are also registered as luassert assertions, and a
-- failed check is reported as a test failure:
--   assert.plans_to(dom, start, goal, { ... })
--   assert.has_no_plan(dom, start, goal, "because text")
--   assert.replays(dom, start, { actions }, goal)  every action applies in turn; the goal holds
--   assert.reaches(dom, start, goal), assert.contains(...), assert.plan_length(...)
-- From another project's specs: nothing here needs this repository's .busted. Make
-- `require "saspu"` work (install saspu, or add its lua/?.lua, lua/?/init.lua and the
-- build's ?.so to LUA_PATH / LUA_CPATH, e.g. eval "$(./dev env)"), then at the top of a
-- spec `require "saspu.test"`: requiring it under busted registers the assertions.
-- Outside busted a failed check raises an ordinary error with the same message.
-- `start` and `goal` take every form dom:plan accepts (tables or declared names). A goal
-- is a condition, as for dom:plan: the variables it leaves out may end with any value;
-- a saspu.KEEP value must end as it started.
local type, pairs, ipairs, tostring, error, pcall, require =
  type, pairs, ipairs, tostring, error, pcall, require
local concat, find, format = table.concat, string.find, string.format

local KEEP = require("saspu").KEEP

local M = {}

-- "{ a, b, c }" for a plan, "nil" for none.
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

-- Each check returns ok, message, result.
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

-- Applies `plan` (action names) to `start` checking every action; compares the
-- result with `goal` (any dom:plan goal form) when given.
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
