-- lua/saspu/sensors.lua: a crowd's `sensors` option: two-valued variables the C update keeps equal to a spatial test (an agent of a crowd, or a place of a kind, within r cells).
local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local format, sort, concat = string.format, table.sort, table.concat

local M = {}

local FIELDS = { near = true, near_kind = true, r = true, period = true, values = true }

-- The 1-based index of value `want` (a name or a boolean) among the variable's values.
local function value_index(values, want)
  for x, value in ipairs(values) do
    if tostring(value) == tostring(want) then return x end
  end
end

-- The (on, off) value ids of sensor `s` on variable `v`: `values = { off, on }` names
-- them; without it the variable has two values: false and true when it is named so
-- (in either order), else the first is "not sensed" and the second "sensed".
local function on_off(n, v, s, path, name)
  local values = n.value_names[v]
  if s.values ~= nil then
    local t = s.values
    if type(t) ~= "table" or #t ~= 2 then
      error(path .. ".values: expected { off, on }, two values of '" .. name .. "'", 4)
    end
    local found = { value_index(values, t[1]), value_index(values, t[2]) }
    for k = 1, 2 do
      if not found[k] then
        local shown = {}
        for j, value in ipairs(values) do shown[j] = tostring(value) end
        error(format("%s.values[%d]: '%s' is not a value of '%s' (%s)", path, k, tostring(t[k]),
                     name, concat(shown, ", ")), 4)
      end
    end
    if found[1] == found[2] then error(path .. ".values: off and on must be two different values", 4) end
    return found[2], found[1]
  end
  if #values ~= 2 then
    error(format("%s: variable '%s' has %d values; a sensor sets a two-valued variable, or "
                 .. "one that `values = { off, on }` names two values of", path, name, #values), 4)
  end
  local on, off = value_index(values, true), value_index(values, false)
  if on and off then return on, off end
  return 2, 1
end

--- Reads world:crowd's (or crowd:sense's) `sensors = { var = { near = crowd, r = 8 } |
-- { near_kind = "saloon", r = 3 }, period = seconds, values = { off, on } } }` and adds
-- them to crowd c. The variable takes `on` while the test holds, `off` otherwise; without
-- `values` it has two values: true and false when named so, else its second value means
-- "sensed". `crowds` is sides.lua's table of crowd sides (to know a crowd of the world).
-- @local
function M.add(world, c, n, spec, crowds, where)
  if spec == nil then return {} end
  if type(spec) ~= "table" then error(where .. ": expected a table { variable = { ... } }", 3) end
  local names, sensed = {}, {}
  for name in pairs(spec) do
    if type(name) ~= "string" then error(where .. ": keys must be variable names, got " .. type(name), 3) end
    names[#names + 1] = name
  end
  sort(names)
  for _, name in ipairs(names) do
    local s, path = spec[name], where .. "." .. name
    if type(s) ~= "table" then error(path .. ": expected a table { near = crowd, r = cells }", 3) end
    for k in pairs(s) do
      if not FIELDS[k] then error(format("%s: unknown field '%s'", path, tostring(k)), 3) end
    end
    local v = n.var_ids[name]
    if not v then error(format("%s: unknown variable '%s' of '%s'", path, name, n.name), 3) end
    local on, off = on_off(n, v, s, path, name)
    if (s.near == nil) == (s.near_kind == nil) then
      error(path .. ": expected near = a crowd or near_kind = a place kind, one of them", 3)
    end
    if s.near ~= nil then
      local side = crowds[s.near]
      if s.near ~= c and (not side or side.world ~= world) then
        error(path .. ".near: expected a crowd of this world", 3)
      end
    elseif type(s.near_kind) ~= "string" or not world:has_kind(s.near_kind) then
      error(format("%s.near_kind: no place of kind '%s'", path, tostring(s.near_kind)), 3)
    end
    if type(s.r) ~= "number" or s.r ~= s.r or s.r < 0 then
      error(path .. ".r: expected a number of cells >= 0, got " .. tostring(s.r), 3)
    end
    if s.period ~= nil and (type(s.period) ~= "number" or s.period ~= s.period or s.period < 0
                            or s.period > 1e9) then
      error(path .. ".period: expected seconds >= 0, got " .. tostring(s.period), 3)
    end
    local ok, err = pcall(c.add_sensor, c, v, on, off, s.near, s.near_kind, s.r, s.period)
    if not ok then error(path .. ": " .. tostring(err):gsub("^saspu.Crowd:add_sensor: crowd: ", ""), 3) end
    sensed[v] = name
  end
  return sensed
end

return M
