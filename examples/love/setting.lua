-- examples/love/setting.lua: the LÖVE example's town: its map and places, its Citizens and Horse Breeders with their routines (examples/love/town.lua runs them).
local saspu = require "saspu"
local town = require "town"

local M = {}

-- ---- the map: '#' walls, '=' roads, '.' ground, '7' marsh; letters are places ----
local MAP = [[
####################################
#..........=........#..............#
#..M.......=........#....S.....F...#
#..........=........#..............#
#..........=........###=####.......#
#=====================.=...#...T...#
#..........=.......=...=...#.......#
#..D.......=...P...=...=...##=######
#..........=.......=...=.......=...#
#..........=.......=====.......=.B.#
#####=######.......=...........=...#
#....=....#........=...........=...#
#..H.=....#........=...........=...#
#....=....#........=...7777777=7777#
#....=.............=...7777777=7R77#
#....=====================.........#
#..........=.......................#
#..W.......=.......................#
####################################
]]
local PLACE_NAMES = {
  M = "market", D = "well", P = "plaza", H = "home", W = "workshop",
  S = "hay_store", F = "feeder", T = "trough", B = "bucket_spot", R = "river",
}
local function read_map(text)
  local places, rows = {}, {}
  local y = 0
  for line in text:gmatch("[^\n]+") do
    y = y + 1
    for x = 1, #line do
      local name = PLACE_NAMES[line:sub(x, x)]
      if name then places[name] = { x, y } end
    end
    rows[y] = line:gsub("%a", ".")
  end
  return saspu.grid_from_ascii(table.concat(rows, "\n") .. "\n"), places, rows
end

-- ---- NPC classes: a domain, where its actions happen, its day ----------------
M.CITIZEN_COLOUR = { 40 / 255, 110 / 255, 240 / 255 }
M.BREEDER_COLOUR = { 235 / 255, 90 / 255, 20 / 255 }

local CITIZEN_WHERE = {
  buy_food = "market", buy_drink = "well", take = "home", store = "home", rest = "home",
  work = "workshop", end_work = "workshop", debate = "plaza", have_a_walk = "plaza",
}
local BREEDER_WHERE = {
  take_haystack = "hay_store", drop_haystack = "hay_store", fill_feeder = "feeder",
  pick_up_bucket = "bucket_spot", drop_bucket = "bucket_spot", fill_bucket = "river",
  fill_trough = "trough",
}
-- Each citizen's routine: goals taken in turn; at its end the day starts over.
local CITIZEN_DAY = {
  { "work", "eat_and_debate_while_wandering" },
  { "have_a_meal", "fetch_tools", "work" },
  { "buy_supplies", "join_a_debate", "go_for_a_walk" },
}
local BREEDER_DAY = { { "feed_horses" }, { "fill_trough", "fill_feeder" } }
M.DAY_SECONDS = 120 -- a simulated day

-- M.build(root) -> town (town.lua's), places (name -> { x, y }), rows (the map's
-- lines, places as ground): the example's town with its eight NPCs; root is the
-- repository (its domains/ folder).
function M.build(root)
  local grid, places, rows = read_map(MAP)
  local citizen = saspu.domain_file(root .. "/domains/citizen.lua")
  local breeder = saspu.domain_file(root .. "/domains/horse_breeder.lua")
  local starts_at = { { 3, 13 }, { 4, 12 }, { 2, 12 }, { 3, 14 }, { 16, 8 }, { 14, 8 } }
  local world = town.new(grid, places)
  for i, at in ipairs(starts_at) do
    world:add { name = "citizen " .. i, dom = citizen, start = "start_of_day", home = "home",
                routine = CITIZEN_DAY[(i - 1) % #CITIZEN_DAY + 1], where = CITIZEN_WHERE,
                x = at[1], y = at[2], colour = M.CITIZEN_COLOUR }
  end
  for i, at in ipairs { { 26, 8 }, { 33, 6 } } do
    world:add { name = "breeder " .. i, dom = breeder, start = "morning",
                routine = BREEDER_DAY[i], where = BREEDER_WHERE,
                x = at[1], y = at[2], colour = M.BREEDER_COLOUR }
  end
  return world, places, rows
end

return M
