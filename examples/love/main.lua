-- examples/love/main.lua: a LÖVE town where Citizens and Horse Breeders plan with saspu (dom:plan), walk with g:path and act, drawn live.
--
-- Run it with `./dev love` (or `love examples/love` after building build-luajit/). It loads
-- saspu exactly as a game would: package.path points at lua/ and package.cpath at the
-- LuaJIT build of the C module (build-luajit/saspu/core.so; SASPU_BUILD_DIR overrides
-- the folder). Click an NPC to see its plan. With SASPU_LOVE_SHOT=file.png the example
-- runs SASPU_LOVE_SECONDS seconds (default 3), saves a screenshot and a report
-- (file.png.txt) and quits: the headless test of ./dev test.

-- ---- find the repository and saspu, as a game ships it ----------------------
local source = love.filesystem.getSource()
if source:sub(1, 1) ~= "/" then
  source = love.filesystem.getWorkingDirectory() .. "/" .. source
end
local root = source .. "/../.."
local build = os.getenv("SASPU_BUILD_DIR") or (root .. "/build-luajit")
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = build .. "/?.so;" .. package.cpath

local saspu = require "saspu"
local stepper = require "stepper"

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
local CELL = 24

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
local CITIZEN_COLOUR = { 40 / 255, 110 / 255, 240 / 255 }
local BREEDER_COLOUR = { 235 / 255, 90 / 255, 20 / 255 }

local grid, places, rows = read_map(MAP)
local world = stepper.new(grid, places)
local citizen = saspu.domain_file(root .. "/domains/citizen.lua")
local breeder = saspu.domain_file(root .. "/domains/horse_breeder.lua")
local CITIZEN_WHERE = {
  buy_food = "market", buy_drink = "well", take = "home", store = "home", rest = "home",
  work = "workshop", end_work = "workshop", debate = "plaza", have_a_walk = "plaza",
}
local BREEDER_WHERE = {
  take_haystack = "hay_store", drop_haystack = "hay_store", fill_feeder = "feeder",
  pick_up_bucket = "bucket_spot", drop_bucket = "bucket_spot", fill_bucket = "river",
  fill_trough = "trough",
}
local CITIZEN_DAY = {
  { "work", "eat_and_debate_while_wandering" },
  { "have_a_meal", "fetch_tools", "work" },
  { "join_a_debate", "go_for_a_walk", "buy_supplies" },
}
local BREEDER_DAY = { { "feed_horses" }, { "fill_trough", "fill_feeder" } }

local starts_at = { { 3, 13 }, { 4, 12 }, { 2, 12 }, { 3, 14 }, { 16, 8 }, { 14, 8 } }
for i, at in ipairs(starts_at) do
  world:add { name = "citizen " .. i, dom = citizen, start = "start_of_day",
              routine = CITIZEN_DAY[(i - 1) % #CITIZEN_DAY + 1], where = CITIZEN_WHERE,
              x = at[1], y = at[2], colour = CITIZEN_COLOUR }
end
for i, at in ipairs { { 26, 8 }, { 33, 6 } } do
  world:add { name = "breeder " .. i, dom = breeder, start = "morning",
              routine = BREEDER_DAY[i], where = BREEDER_WHERE,
              x = at[1], y = at[2], colour = BREEDER_COLOUR }
end

-- ---- drawing -------------------------------------------------------------------
local TILE = {
  ["#"] = { 0.22, 0.2, 0.2 }, ["="] = { 0.72, 0.62, 0.45 }, ["."] = { 0.5, 0.66, 0.38 },
  ["7"] = { 0.3, 0.46, 0.5 },
}
local selected = world.npcs[1]
local font

local function draw_map()
  for y, line in ipairs(rows) do
    for x = 1, #line do
      love.graphics.setColor(TILE[line:sub(x, x)] or TILE["."])
      love.graphics.rectangle("fill", (x - 1) * CELL, (y - 1) * CELL, CELL, CELL)
    end
  end
  love.graphics.setColor(1, 1, 1, 0.9)
  for name, p in pairs(places) do
    love.graphics.rectangle("line", (p[1] - 1) * CELL + 1, (p[2] - 1) * CELL + 1, CELL - 2, CELL - 2)
    love.graphics.print(name, (p[1] - 1) * CELL, p[2] * CELL)
  end
end

local function npc_pos(npc, i)
  -- NPCs at one place fan out a little so each stays visible
  local a = i * 2.4
  return (npc.x - 0.5) * CELL + math.cos(a) * 4, (npc.y - 0.5) * CELL + math.sin(a) * 4
end

local function draw_npcs()
  for i, npc in ipairs(world.npcs) do
    local px, py = npc_pos(npc, i)
    love.graphics.setColor(npc.colour)
    love.graphics.circle("fill", px, py, 8)
    if npc == selected then
      love.graphics.setColor(1, 1, 1)
      love.graphics.circle("line", px, py, 11)
    end
  end
end

local function draw_panel(x)
  local s, lines = world.stats, {}
  local function add(fmt, ...) lines[#lines + 1] = fmt:format(...) end
  add("%s   %d fps, frame %.2f ms", saspu._VERSION, love.timer.getFPS(), love.timer.getAverageDelta() * 1000)
  add("plans %d (%d failed), last %.3f ms", s.plans, s.failed_plans, s.plan_ms)
  add("paths %d, last %.3f ms   actions done %d", s.paths, s.path_ms, s.actions)
  add("")
  add("%s (%s)   %s", selected.name, selected.dom.name, selected.doing)
  add("goal: %s", tostring(selected.goal))
  for i, action in ipairs(selected.plan) do
    local where = selected.where[action]
    add("%s %d. %s%s", i == selected.step and ">" or " ", i, action, where and (" @ " .. where) or "")
  end
  add("")
  for _, v in ipairs(selected.dom:variables()) do
    add("  %s = %s", v.name, selected.state[v.name])
  end
  if selected.note then add(""); add("%s", selected.note) end
  add("")
  add("click an NPC to follow its plan")
  love.graphics.setColor(0.1, 0.1, 0.12)
  love.graphics.rectangle("fill", x, 0, love.graphics.getWidth() - x, love.graphics.getHeight())
  love.graphics.setColor(0.92, 0.92, 0.92)
  love.graphics.print(table.concat(lines, "\n"), x + 10, 10)
end

-- ---- the headless test: screenshot, report, quit -------------------------------
local shot = os.getenv("SASPU_LOVE_SHOT")
local shot_after = tonumber(os.getenv("SASPU_LOVE_SECONDS") or "3")
local elapsed, shot_taken = 0, false

-- Counts the pixels of exactly each NPC colour (filled circles keep it exactly).
local function count_colour(img, colour)
  local want = { math.floor(colour[1] * 255 + 0.5), math.floor(colour[2] * 255 + 0.5),
                 math.floor(colour[3] * 255 + 0.5) }
  local n = 0
  img:mapPixel(function(_, _, r, g, b, a)
    if math.floor(r * 255 + 0.5) == want[1] and math.floor(g * 255 + 0.5) == want[2]
       and math.floor(b * 255 + 0.5) == want[3] then
      n = n + 1
    end
    return r, g, b, a
  end)
  return n
end

local function save_shot(img)
  local f = assert(io.open(shot, "wb"))
  f:write(img:encode("png"):getString())
  f:close()
  local moved = 0
  for _, npc in ipairs(world.npcs) do
    if npc.x ~= npc.home_x or npc.y ~= npc.home_y then moved = moved + 1 end
  end
  local r = assert(io.open(shot .. ".txt", "w"))
  r:write(("width %d\nheight %d\nnpcs %d\nmoved %d\nplans %d\nfailed_plans %d\npaths %d\nactions %d\n")
    :format(img:getWidth(), img:getHeight(), #world.npcs, moved, world.stats.plans,
            world.stats.failed_plans, world.stats.paths, world.stats.actions))
  r:write(("citizen_pixels %d\nbreeder_pixels %d\n"):format(count_colour(img, CITIZEN_COLOUR),
                                                             count_colour(img, BREEDER_COLOUR)))
  r:close()
  love.event.quit(0)
end

if shot then
  -- an error must end a headless run, not wait on LÖVE's error screen
  function love.errorhandler(msg)
    io.stderr:write("saspu love example: Lua error: ", tostring(msg), "\n", debug.traceback(), "\n")
    os.exit(3)
  end
end

-- ---- LÖVE callbacks -------------------------------------------------------------
function love.load()
  font = love.graphics.newFont(13)
  love.graphics.setFont(font)
end

function love.update(dt)
  world:update(math.min(dt, 0.1))
  elapsed = elapsed + dt
  if shot and not shot_taken and elapsed >= shot_after then
    shot_taken = true
    love.graphics.captureScreenshot(save_shot)
  end
end

function love.draw()
  draw_map()
  draw_npcs()
  draw_panel(#rows[1] * CELL)
end

function love.mousepressed(mx, my)
  local best, best_d = nil, (2 * CELL) ^ 2
  for i, npc in ipairs(world.npcs) do
    local px, py = npc_pos(npc, i)
    local d = (px - mx) ^ 2 + (py - my) ^ 2
    if d < best_d then best, best_d = npc, d end
  end
  selected = best or selected
end
