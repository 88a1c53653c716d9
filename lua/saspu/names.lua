-- lua/saspu/names.lua: a domain's names and ids for scripts (variables, values, actions, goals), packed conditions, and what blocks an agent's goal said in those names.
local core = require "saspu.core"
local sides = require "saspu.sides"
local KEEP = core.KEEP

local type, pairs, ipairs, tostring, error = type, pairs, ipairs, tostring, error
local setmetatable = setmetatable
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

-- A packed condition from { var = value } (0xFF where not given); path names errors.
function M.pack_condition(n, cond, path)
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
      local v, x = M.var_value(n, var, value)
      if not v then error(path .. "." .. var .. ": " .. x, 0) end
      bytes[v] = x - 1
    end
  end
  return string_char(unpack(bytes))
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
              action = b.action and n.action_names[b.action] or nil }
  if b.link_to then
    w.link = { variable = w.variable, from = values[b.link_from], to = values[b.link_to] }
  end
  return setmetatable(w, WHY_MT)
end

return M
