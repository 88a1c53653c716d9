-- lua/saspu/facts.lua: world facts stated once (saspu.world { facts = }), world:set / world:get, and the crowds' variables tied to them (facts = { "alarm" }).
--
-- The C side (csrc/agents/facts.c) keeps each fact's value once and finds the agents a
-- change concerns; this file reads the declarations, names the call in errors and
-- translates value names. lua/saspu/world.lua installs it.
local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local format, concat, sort = string.format, table.concat, table.sort

local M = {}

--- Part of module saspu: world facts (LDoc merges it, config.ld).
-- @module saspu

--- @type World

-- A value as facts name it: booleans are the values "true" and "false".
local function value_name(v)
  if type(v) == "boolean" then return tostring(v) end
  return v
end

local function known(ws)
  local names = {}
  for name in pairs(ws.facts) do names[#names + 1] = name end
  sort(names)
  return #names > 0 and concat(names, ", ") or "none declared"
end

-- The fact record of `name`, or an error naming the call at `level`.
local function fact_of(ws, name, where, level)
  local f = type(name) == "string" and ws.facts[name]
  if not f then
    error(format("%s: unknown fact '%s' (%s)", where, tostring(name), known(ws)), level + 1)
  end
  return f
end

-- The 1-based index of value v among f.values, or nil.
local function index_of(f, v)
  v = value_name(v)
  for k, name in ipairs(f.values) do
    if name == v then return k end
  end
end

-- Makes the C fact of a record whose values are known.
local function create(world, name, f, where, level)
  local k = index_of(f, f.value)
  if not k then
    error(format("%s: '%s' is not a value of fact '%s' (%s)", where, tostring(f.value), name,
                 concat(f.values, ", ")), level + 1)
  end
  f.id = world:add_fact(name, f.values, k)
  f.value = nil -- C holds it from now on
end

--- Reads saspu.world's `facts`: { name = { values... } } (the first value holds first) or
-- { name = value } (the values are those of the variable of that name in the first
-- crowd that ties it). Names in sorted order, so ids never depend on pairs().
-- @local
function M.declare(world, ws, spec)
  ws.facts = {}
  if spec == nil then return end
  if type(spec) ~= "table" then error("saspu.world: facts: expected a table { name = values }", 3) end
  local names = {}
  for name in pairs(spec) do
    if type(name) ~= "string" then
      error("saspu.world: facts: keys must be fact names, got " .. type(name), 3)
    end
    names[#names + 1] = name
  end
  sort(names)
  for _, name in ipairs(names) do
    local d, path = spec[name], "saspu.world: facts." .. name
    local f = { booleans = false }
    if type(d) == "table" then
      if #d < 2 then error(path .. ": expected at least 2 values", 3) end
      f.values = {}
      for k, v in ipairs(d) do
        if type(v) ~= "string" and type(v) ~= "boolean" then
          error(format("%s[%d]: a value is a string or a boolean, got %s", path, k, type(v)), 3)
        end
        f.booleans = f.booleans or type(v) == "boolean"
        f.values[k] = value_name(v)
      end
      f.value = f.values[1]
      local ok, err = pcall(create, world, name, f, path, 1)
      if not ok then error(tostring(err):gsub("^saspu.World:add_fact: world: ", path .. ": "), 3) end
    elseif type(d) == "string" or type(d) == "boolean" then
      f.value, f.booleans = value_name(d), type(d) == "boolean"
    else
      error(path .. ": expected the values { ... } or the value it holds, got " .. type(d), 3)
    end
    ws.facts[name] = f
  end
end

-- Ties variable v of crowd c to fact `name` (its values come from this domain when
-- no crowd tied the fact yet); returns nil or the error's text.
local function tie_one(world, f, c, n, v, name, path)
  if not f.id then -- its values come from this domain
    f.values = {}
    for x, value in ipairs(n.value_names[v]) do f.values[x] = value_name(value) end
    local ok, err = pcall(create, world, name, f, path, 1)
    if not ok then return tostring(err) end
  end
  local ok, err = pcall(c.tie_fact, c, f.id, v)
  if not ok then return tostring(err):gsub("^saspu.Crowd:tie_fact: crowd: ", "") end
end

--- Ties the crowd's variables to the world's facts: those named in `list` (world:crowd's
-- `facts`), then every other variable named like a fact of the world, unless `own`
-- (a set of variable names, the sensors') takes it. A variable named like a fact that
-- cannot be tied (other values, an action changes it) is an error naming why: a crowd
-- never keeps a private copy of a world fact by accident. Returns { [var id] = fact
-- name } for the crowd's side.
-- @local
function M.tie(world, ws, c, n, list, where, own)
  local tied, named = {}, {}
  if list ~= nil and type(list) ~= "table" then error(where .. ": expected an array of fact names", 3) end
  for k, name in ipairs(list or {}) do
    local path = format("%s[%d]", where, k)
    local f = fact_of(ws, name, path, 2)
    local v = n.var_ids[name]
    if not v then error(format("%s: '%s' is not a variable of '%s'", path, name, n.name), 3) end
    local err = tie_one(world, f, c, n, v, name, path)
    if err then error(err:sub(1, #path) == path and err or (path .. ": " .. err), 3) end
    tied[v], named[name] = name, true
  end
  local facts = {}
  for name in pairs(ws.facts) do facts[#facts + 1] = name end
  sort(facts)
  for _, name in ipairs(facts) do
    local v = n.var_ids[name]
    if v and not named[name] and not (own and own[name]) then
      local err = tie_one(world, ws.facts[name], c, n, v, name, where)
      if err then
        error(format("%s: variable '%s' of '%s' is named like the world's fact '%s', so it is "
                     .. "tied to it, and it cannot be: %s (rename the variable to keep it the "
                     .. "crowd's own)", where, name, n.name, name,
                     err:sub(1, #where + 2) == where .. ": " and err:sub(#where + 3) or err), 3)
      end
      tied[v] = name
    end
  end
  return tied
end

--- Installs world:set and world:get on `World`; private.world_side(w) is sides.lua's.
-- @local
function M.install(World, private)
  local world_side = private.world_side

  --- Sets a world fact (`world:set(name, value)`). Every agent of every crowd that ties
  -- it sees the value at the next update; only those whose running plan or goal choice
  -- reads it react (replan, or choose a goal). Raises "saspu.World:set: unknown fact
  -- 'x' (alarm, night)" or "'loud' is not a value of fact 'alarm' (quiet, ringing)".
  -- @function World:set
  -- @string name
  -- @param value a value name (or a boolean for values declared as booleans)
  -- @raise "saspu.World:set: unknown fact 'x' (alarm, night)"; "saspu.World:set: 'loud'
  -- is not a value of fact 'alarm' (quiet, ringing)"; "saspu.World:set: fact 'alarm': a
  -- value is a string or a boolean, got number" (a fact no crowd ties yet).
  function World.set(self, name, value)
    local f = fact_of(world_side(self), name, "saspu.World:set", 2)
    if f.id then
      local k = index_of(f, value)
      if not k then
        error(format("saspu.World:set: '%s' is not a value of fact '%s' (%s)", tostring(value),
                     name, concat(f.values, ", ")), 2)
      end
      self:fact_value(f.id, k)
    elseif type(value) ~= "string" and type(value) ~= "boolean" then
      error(format("saspu.World:set: fact '%s': a value is a string or a boolean, got %s", name,
                   type(value)), 2)
    else -- no crowd ties it yet: its values are not known
      f.value = value_name(value)
    end
  end

  --- The value of a world fact (`world:get(name)`): its name, or a boolean for values
  -- declared as booleans.
  -- @function World:get
  -- @string name
  -- @return the value
  -- @raise "saspu.World:get: unknown fact 'x' (alarm, night)".
  function World.get(self, name)
    local f = fact_of(world_side(self), name, "saspu.World:get", 2)
    local v = f.id and f.values[self:fact_value(f.id)] or f.value
    if f.booleans and (v == "true" or v == "false") then return v == "true" end
    return v
  end
end

return M
