-- lua/saspu/town.lua: reads a town map drawn in ASCII with places marked by letters, and its legend: the picture for saspu.grid_from_ascii and the list of places.
--
--   local town = require "saspu.town"
--   local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
--   local g = saspu.grid_from_ascii(t.ascii)        -- or town.grid(t)
--   for _, p in ipairs(t.places) do print(p.name, p.kind, p.x, p.y, p.capacity) end
--
-- The map uses grid_from_ascii's characters ('#' blocked, '.' ground, '=' road, '1'-'9'
-- a cost) plus letters. A letter is a place: the legend gives its kind and capacity,
--   { S = { kind = "saloon_bar", capacity = 3 }, ... }
-- and the cell becomes ground ('.'). Places are listed in reading order (top row first,
-- left to right), 1-based like saspu.Grid cells, each named kind_N (N counts the places
-- of that kind in reading order): { name, kind, x, y, capacity, letter }.
-- Errors name the file, line and column: "saspu.town: town.txt line 12, column 40: letter 'q' is not
-- in the legend".
local type, pairs, ipairs, error, tostring, loadfile, require =
  type, pairs, ipairs, error, tostring, loadfile, require
local open, concat, sort, floor = io.open, table.concat, table.sort, math.floor

local M = {}

local function fail(where, fmt, ...)
  error("saspu.town: " .. where .. ": " .. fmt:format(...), 3)
end

-- check_legend(legend, where): each key a single letter, each entry
-- { kind = non-empty string, capacity = positive integer }.
local function check_legend(legend, where)
  if type(legend) ~= "table" then fail(where, "the legend must be a table, got %s", type(legend)) end
  for letter, entry in pairs(legend) do
    if type(letter) ~= "string" or not letter:match("^%a$") then
      fail(where, "legend key %s is not a single letter", tostring(letter))
    end
    if type(entry) ~= "table" then
      fail(where, "legend['%s'] must be a table, got %s", letter, type(entry))
    end
    for k in pairs(entry) do
      if k ~= "kind" and k ~= "capacity" then
        fail(where, "legend['%s']: unknown field '%s' (expected kind, capacity)", letter, tostring(k))
      end
    end
    if type(entry.kind) ~= "string" or entry.kind == "" then
      fail(where, "legend['%s'].kind must be a non-empty string", letter)
    end
    local c = entry.capacity
    if c ~= nil and (type(c) ~= "number" or c ~= floor(c) or c < 1) then
      fail(where, "legend['%s'].capacity must be a positive integer, got %s", letter, tostring(c))
    end
  end
end

-- parse(text, legend [, name]) -> { ascii, places, width, height }.
-- `name` is the file name used in error messages (default "map").
function M.parse(text, legend, name)
  name = name or "map"
  if type(text) ~= "string" then fail(name, "the map must be a string, got %s", type(text)) end
  check_legend(legend, name)
  local lines, places, count = {}, {}, {}
  local y = 0
  for line in (text:sub(-1) == "\n" and text or text .. "\n"):gmatch("(.-)\r?\n") do
    y = y + 1
    lines[y] = line:gsub("()(%a)", function(x, letter)
      local entry = legend[letter]
      if entry == nil then
        fail(name .. " line " .. y .. ", column " .. x, "letter '%s' is not in the legend", letter)
      end
      count[entry.kind] = (count[entry.kind] or 0) + 1
      places[#places + 1] = { name = entry.kind .. "_" .. count[entry.kind], kind = entry.kind,
                              x = x, y = y, capacity = entry.capacity or 1, letter = letter }
      return "."
    end)
  end
  if y == 0 then fail(name, "the map is empty") end
  return { ascii = concat(lines, "\n") .. "\n", places = places, width = #lines[1], height = y }
end

-- load(map_path, legend) -> as parse; `legend` is a table or the path of a Lua file
-- returning one (run as data, with no globals).
function M.load(map_path, legend)
  local f, err = open(map_path, "r")
  if not f then error("saspu.town: " .. err, 2) end
  local text = f:read("*a")
  f:close()
  if type(legend) == "string" then
    local chunk, lerr = loadfile(legend, "t", {})
    if not chunk then error("saspu.town: " .. lerr, 2) end
    legend = chunk()
  end
  return M.parse(text, legend, map_path:match("[^/]*$"))
end

-- grid(town) -> the saspu.Grid of a parsed town.
function M.grid(town)
  return require("saspu.core").grid_from_ascii(town.ascii)
end

-- kinds(town) -> the sorted list of the place kinds on the map.
function M.kinds(town)
  local seen, list = {}, {}
  for _, p in ipairs(town.places) do
    if not seen[p.kind] then
      seen[p.kind] = true
      list[#list + 1] = p.kind
    end
  end
  sort(list)
  return list
end

return M
