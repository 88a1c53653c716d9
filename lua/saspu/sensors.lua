-- lua/saspu/sensors.lua: a crowd's `sensors` option: two-valued variables the C update keeps equal to a spatial test (an agent of a crowd, or a place of a kind, within r cells).
local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local format, sort = string.format, table.sort

local M = {}

local FIELDS = { near = true, near_kind = true, r = true, period = true }

--- Reads world:crowd's `sensors = { var = { near = crowd, r = 8 } | { near_kind = "saloon",
-- r = 3 }, period = seconds } }` and adds them to crowd c. The variable must be
-- boolean-like (values false and true, declared as booleans or named so): true when the
-- test holds. `crowds` is sides.lua's table of crowd sides (to know a crowd of the world).
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
    local on, off
    for x, value in ipairs(n.value_names[v]) do
      if tostring(value) == "true" then on = x elseif tostring(value) == "false" then off = x end
    end
    if #n.value_names[v] ~= 2 or not on or not off then
      error(format("%s: variable '%s' is not boolean-like (values false, true), it has %d values",
                   path, name, #n.value_names[v]), 3)
    end
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
