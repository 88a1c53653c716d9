-- examples/love/main.lua: a LÖVE town where Citizens and Horse Breeders live their day on saspu.world: saspu plans and times their actions, LÖVE walks the sprites in pixels (movement = "engine").
--
-- Run it with `./dev love` (or `love examples/love` after building build-luajit/). It loads
-- saspu exactly as a game would: package.path points at lua/ and package.cpath at the
-- LuaJIT build of the C module (build-luajit/saspu/core.so; SASPU_BUILD_DIR overrides
-- the folder). Click an NPC to see its goal, plan, step and last events (saspu.love_debug).
-- With SASPU_LOVE_SHOT=file.png the example runs one whole simulated day (DAY_SECONDS) in
-- fixed steps of HEADLESS_STEP seconds, clicks an NPC at CLICK_AT of the day, saves a
-- screenshot and a report (file.png.txt: counts, and the debug panel's lines with
-- a:inspect() of the NPC it shows) and quits: the headless test of ./dev test, which fails
-- on any failed plan or step over that day, or a panel that disagrees with a:inspect().

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
local love_debug = require "saspu.love_debug"
local setting = require "setting"

local floor = math.floor

-- ---- the town: its map, its NPCs and their routines (setting.lua) ----------
local CELL = 24
local CITIZEN_COLOUR, BREEDER_COLOUR = setting.CITIZEN_COLOUR, setting.BREEDER_COLOUR
local DAY_SECONDS = setting.DAY_SECONDS
local HEADLESS_STEP = 0.5 -- simulated seconds per frame of the headless run
local CLICK_AT = 0.6      -- the headless run's click on an NPC, in days
local world, places, rows = setting.build(root)

-- ---- drawing -------------------------------------------------------------------
local TILE = {
  ["#"] = { 0.22, 0.2, 0.2 }, ["="] = { 0.72, 0.62, 0.45 }, ["."] = { 0.5, 0.66, 0.38 },
  ["7"] = { 0.3, 0.46, 0.5 },
}
local font
-- the debug panel's fonts, largest first: it takes the largest whose wrapped text fits
local PANEL_SIZES, panel_fonts = { 13, 12, 11, 10, 9 }, {}
local panel_overflow = 0 -- the most pixels the panel's text ever ran past the window
local HEADER = 82        -- pixels of the side panel's town figures above the debug panel
-- The debug overlay: a click on a cell picks the NPC nearest it; only that one keeps a
-- history of its events.
local dbg = love_debug.new(world.world, { cell = CELL, history = 6, fonts = panel_fonts,
                                          label = function(a) return a.data.npc.name end })
dbg:select(world.npcs[1].agent)

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
  return (npc.px - 0.5) * CELL + math.cos(a) * 4, (npc.py - 0.5) * CELL + math.sin(a) * 4
end

local function draw_npcs()
  for i, npc in ipairs(world.npcs) do
    local px, py = npc_pos(npc, i)
    love.graphics.setColor(npc.colour)
    love.graphics.circle("fill", px, py, 8)
    if npc.agent == dbg.agent then
      love.graphics.setColor(1, 1, 1)
      love.graphics.circle("line", px, py, 11)
    end
  end
end

local function draw_panel(x)
  local s, lines = world.stats, {}
  local npc = dbg.agent and dbg.agent.data.npc
  local function add(fmt, ...) lines[#lines + 1] = fmt:format(...) end
  local t = world.clock % DAY_SECONDS
  add("%s   %d fps, frame %.2f ms", saspu._VERSION, love.timer.getFPS(), love.timer.getAverageDelta() * 1000)
  add("day %d, %02d:%02d   plans %d (%d failed), planning %.3f ms", floor(world.clock / DAY_SECONDS) + 1,
      floor(t / DAY_SECONDS * 24), floor(t / DAY_SECONDS * 1440) % 60, s.plans, s.failed_plans, s.plan_ms)
  add("paths %d   actions done %d   routines done %d", s.paths, s.actions, s.routines)
  add("%s", npc and npc.note or "click an NPC to follow it")
  local w, h = love.graphics.getWidth() - x, love.graphics.getHeight()
  love.graphics.setColor(0.1, 0.1, 0.12)
  love.graphics.rectangle("fill", x, 0, w, HEADER)
  local text, f = table.concat(lines, "\n"), panel_fonts[#panel_fonts - 1]
  local widest, wrapped = f:getWrap(text, w - 20)
  panel_overflow = math.max(panel_overflow, widest - (w - 20), #wrapped * f:getHeight() - (HEADER - 10))
  love.graphics.setColor(0.92, 0.92, 0.92)
  love.graphics.setFont(f)
  love.graphics.printf(text, x + 10, 10, w - 20)
  love.graphics.setFont(font)
  -- the picked NPC below, in the largest font whose wrapped lines fit
  panel_overflow = math.max(panel_overflow, dbg:draw(x, HEADER, w, h - HEADER))
end

-- ---- the headless test: screenshot, report, quit -------------------------------
local shot = os.getenv("SASPU_LOVE_SHOT")
local shot_taken = false

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

-- The headless run's click: at the sprite of the first NPC after the first with no other
-- NPC within 2 cells (a walking sprite is a little ahead of its cell), through
-- love.mousepressed as a mouse would.
local clicked
local function click_an_npc()
  for i = 2, #world.npcs do
    local npc = world.npcs[i]
    local x, y = npc.agent:position()
    if #world.world:near(x, y, 2) == 1 then
      local px, py = npc_pos(npc, i)
      clicked = npc.name
      love.mousepressed(px, py, 1)
      return
    end
  end
end

-- The debug panel's lines as last drawn, and a:inspect() of the NPC it shows, for
-- ./dev test to compare.
local function write_overlay(r)
  local a = dbg.agent
  r:write(("overlay_clicked %s\noverlay_picked %s\n"):format(clicked or "-", a and a.data.npc.name or "-"))
  if a then
    local info = a:inspect()
    local plan, kinds = {}, {}
    for i, step in ipairs(info.plan or {}) do plan[i] = step.action end
    for i, e in ipairs(info.events or {}) do kinds[i] = e.kind end
    r:write(("overlay_goal %s\noverlay_step %s\noverlay_plan %s\noverlay_events %s\noverlay_why %s\n")
      :format(tostring(info.goal), tostring(info.step), table.concat(plan, " "), table.concat(kinds, " "),
              info.why and tostring(info.why) or "-"))
  end
  for _, line in ipairs(dbg.lines) do r:write("overlay_panel ", line, "\n") end
end

local function save_shot(img)
  local f = assert(io.open(shot, "wb"))
  f:write(img:encode("png"):getString())
  f:close()
  local moved = 0
  for _, npc in ipairs(world.npcs) do
    if npc.moved then moved = moved + 1 end
  end
  local st = world.stats
  local r = assert(io.open(shot .. ".txt", "w"))
  r:write(("width %d\nheight %d\nnpcs %d\nmoved %d\nplans %d\nfailed_plans %d\nfailed_steps %d\n")
    :format(img:getWidth(), img:getHeight(), #world.npcs, moved, st.plans, st.failed_plans,
            st.failed_steps))
  r:write(("paths %d\nactions %d\nroutines %d\nsim_seconds %d\nday_seconds %d\n")
    :format(st.paths, st.actions, st.routines, floor(world.clock), DAY_SECONDS))
  r:write(("citizen_pixels %d\nbreeder_pixels %d\n"):format(count_colour(img, CITIZEN_COLOUR),
                                                             count_colour(img, BREEDER_COLOUR)))
  r:write(("panel_overflow %d\n"):format(math.ceil(panel_overflow)))
  write_overlay(r)
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
  for i, size in ipairs(PANEL_SIZES) do panel_fonts[i] = love.graphics.newFont(size) end
end

function love.update(dt)
  if shot then
    -- the headless run: a whole day in fixed steps, whatever the frame rate
    if shot_taken then return end
    world:update(HEADLESS_STEP)
    if not clicked and world.clock >= CLICK_AT * DAY_SECONDS then click_an_npc() end
    if world.clock >= DAY_SECONDS then
      shot_taken = true
      love.graphics.captureScreenshot(save_shot)
    end
    return
  end
  world:update(math.min(dt, 0.1))
end

function love.draw()
  draw_map()
  draw_npcs()
  draw_panel(#rows[1] * CELL)
end

function love.mousepressed(mx, my, button)
  dbg:mousepressed(mx, my, button)
end
