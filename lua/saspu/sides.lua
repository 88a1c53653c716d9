-- lua/saspu/sides.lua: the script side of worlds and crowds (records keyed by the C userdata) and the checks every part of the world code shares.
--
-- world.lua, behaviour.lua, hooks.lua, crowd.lua and world_save.lua read and write
-- these records; the C objects (csrc/lua/world.c, crowd.c) never see them.
local type, pairs, ipairs, tostring, error = type, pairs, ipairs, tostring, error
local setmetatable, floor, string_format = setmetatable, math.floor, string.format

local M = {}

-- Script-side records, keyed by the C userdata (weak: a closed, unreachable world or
-- crowd takes its record with it).
M.worlds = setmetatable({}, { __mode = "k" })
M.crowds = setmetatable({}, { __mode = "k" })
local worlds, crowds = M.worlds, M.crowds

-- True for an integral number (an integer on 5.3+, a whole float before).
function M.is_integer(x)
  return type(x) == "number" and x == floor(x) and x - 1 ~= x
end
local is_integer = M.is_integer

-- Raises "<path>: unknown field 'k'" (no position) for a key of `t` not in `allowed`.
function M.refuse_unknown(t, allowed, path)
  for k in pairs(t) do
    if not allowed[k] then
      error(string_format("%s: unknown field '%s'", path, tostring(k)), 0)
    end
  end
end

-- Checks a 1-based cell of `world` (inside its grid and open, when it has one); raises
-- "<where>: x = 40 is outside 1..32" at the caller's caller.
function M.check_cell(world, x, y, where)
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

-- The record of world `w`; raises at the caller of the method that asks.
function M.world_side(w)
  local s = worlds[w]
  if not s then error("saspu.World: not made by saspu.world", 3) end
  return s
end

-- The record of crowd `c`; raises at `level` above the method that asks (default 2).
function M.crowd_side(c, level)
  local s = crowds[c]
  if not s then error("saspu.Crowd: not made by world:crowd", (level or 2) + 1) end
  return s
end

return M
