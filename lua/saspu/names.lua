-- lua/saspu/names.lua: a domain's names and ids for scripts (variables, values, actions, goals), packed conditions, and what blocks an agent's goal said in those names.
local core = require "saspu.core"
local sides = require "saspu.sides"
local KEEP = core.KEEP

local type, pairs, ipairs, tostring, error = type, pairs, ipairs, tostring, error
local setmetatable, getmetatable = setmetatable, getmetatable
local unpack = table.unpack or unpack
local concat, string_char, string_format = table.concat, string.char, string.format
local crowds = sides.crowds

local M = {}

-- The byte of a packed condition for "any value".
local ANY = 0xFF
M.ANY = ANY

-- { var_ids, var_names, value_ids[v], value_names[v], action_ids, action_names, goals }
function M.domain_names(dom)
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
function M.var_value(n, var, value)
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

-- saspu.NOT(value, ...): in a `when` or a goal, any value of the variable but these.
local NOT_MT = { __name = "saspu.NOT" }
function M.NOT(...)
  local values = { ... }
  if #values == 0 then error("saspu.NOT: expected at least one value", 2) end
  return setmetatable(values, NOT_MT)
end

-- The packed conditions of `cond` (one per combination of its sets, the first variable
-- varying slowest, members in value order): per variable a value, a set { a, b } (any
-- of) or saspu.NOT(a, ...) (any but); KEEP or a variable left out: any value. More
-- than `most` combinations is an error naming the variable that passes the cap.
function M.pack_sets(n, cond, path, most)
  if type(cond) ~= "table" then
    error(string_format("%s: expected a table { variable = value }, got %s", path, type(cond)), 0)
  end
  local allowed = {} -- per variable id: its value ids (0-based), or nil
  for var, value in pairs(cond) do
    if type(var) ~= "string" then
      error(string_format("%s: keys must be variable names, got %s", path, type(var)), 0)
    end
    -- KEEP (a domain goal's "keep the start value") has no fixed value an agent's
    -- standing goal could hold: for agents the variable does not matter
    if value ~= KEEP then
      local v = n.var_ids[var]
      if not v then error(string_format("%s.%s: unknown variable '%s'", path, var, var), 0) end
      local list = type(value) == "table" and value or { value }
      local seen = {}
      for k, x in ipairs(list) do
        local ok, id = M.var_value(n, var, x)
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
  for v = 1, #n.var_names do -- declaration order: the same conditions on every run
    local ids = allowed[v]
    if ids then
      count = count * #ids
      if count > most then
        error(string_format("%s.%s: the sets make more than %d combinations", path,
                            n.var_names[v], most), 0)
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

-- Most combinations one goal's sets may make: the planner weighs each (saspu.h,
-- SP_GOAL_CHOICES_MAX).
M.GOAL_CHOICES = core.GOAL_CHOICES_MAX

-- The packed conditions of a goal (several when it names sets); path names errors.
function M.pack_goal(n, cond, path)
  return M.pack_sets(n, cond, path, M.GOAL_CHOICES)
end

-- The packed condition of a goal of the domain (a value or KEEP per variable: one
-- combination); path names errors.
function M.pack_condition(n, cond, path)
  return M.pack_goal(n, cond, path)[1]
end

-- A "why" reads as its message.
local WHY_MT = { __tostring = function(w) return w.message end }
local names_of_domain = setmetatable({}, { __mode = "k" })

-- What blocks the goal of agent i's last no_plan, named (see Crowd:why); nil when its
-- last failure is no no_plan or that goal has a plan now. With at_no_plan: as recorded
-- at that no_plan (for its event; no goal).
function M.why_of(c, i, at_no_plan)
  local b = c:blocker(i, at_no_plan)
  if not b or b.kind == "none" then return nil end
  local side = crowds[c]
  local n = side and side.names
  if not n then
    local dom = c:domain()
    n = names_of_domain[dom] or M.domain_names(dom)
    names_of_domain[dom] = n
  end
  local var, values = b.variable, b.variable and n.value_names[b.variable]
  local w = { kind = b.kind, message = b.message, missing = b.link, planner = b.planner,
              goal = side and side.goal_names[b.goal] or b.goal,
              variable = var and n.var_names[var],
              current = values and b.current and values[b.current],
              needs = values and b.needed and values[b.needed],
              action = b.action and n.action_names[b.action] or nil,
              choice = b.choice } -- a goal of sets: the member (combination) it blocks
  if b.link_to then
    w.link = { variable = w.variable, from = values[b.link_from], to = values[b.link_to] }
  end
  return setmetatable(w, WHY_MT)
end

return M
