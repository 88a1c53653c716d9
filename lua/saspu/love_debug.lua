-- lua/saspu/love_debug.lua: a LÖVE debug overlay: click an NPC to see its class, goal, plan, current step, last events and why; only the picked agent keeps a history.
--
-- Plain Lua for LÖVE 11 (LuaJIT) and any Lua from 5.1 on: it touches the global `love`
-- only inside `draw`, so specs load it without LÖVE.
--
--   local dbg = require("saspu.love_debug").new(world, { cell = 24 })
--   function love.mousepressed(x, y, button) dbg:mousepressed(x, y, button) end
--   function love.draw() ...; dbg:draw(900, 0, 300, 470) end
--
-- A click maps the screen point to a cell (`cell` size and `offset_x`, `offset_y`, or the
-- game's own `to_cell(x, y)`), then takes the nearest agent of any crowd within `radius`
-- cells (`world:near`). The picked agent keeps its last `history` events
-- (`a:inspect { history = n }`) until another is picked or the pick is cleared
-- (`a:inspect { history = 0 }`); no other agent costs anything.
local floor, format, concat, sort = math.floor, string.format, table.concat, table.sort
local ipairs, pairs, pcall, tostring, type, error = ipairs, pairs, pcall, tostring, type, error
local setmetatable = setmetatable

local Debug = {}
Debug.__index = Debug

local OPTIONS = { cell = true, offset_x = true, offset_y = true, to_cell = true, radius = true,
                  history = true, label = true, fonts = true }

-- Screen point -> cell through the cell size and offset (cells count from 1).
local function grid_cell(self, x, y)
  local w, h = self.cell_w, self.cell_h
  return floor((x - self.offset_x) / w) + 1, floor((y - self.offset_y) / h) + 1
end

-- False for a despawned agent or one of a closed crowd (whose history went with it).
local function is_alive(a)
  local ok, alive = pcall(a.alive, a)
  return ok and alive
end

--- A debug overlay on `world`.
-- @tparam saspu.World world
-- @tparam table opts `cell` (pixels per cell, a number or `{ w, h }`) with `offset_x`,
-- `offset_y` (the screen point of the grid's corner, default 0), or `to_cell = function(x, y)
-- return cx, cy end`; `radius` (cells around the click searched, default 1); `history`
-- (events kept for the picked agent, 1..64, default 8); `label = function(agent) return
-- text end` (the panel's title, default "class #index"); `fonts` (LÖVE fonts, largest
-- first: `draw` uses the first whose wrapped text fits its box)
-- @treturn table the overlay (`agent`: the picked one or nil; `lines`: the last drawn)
-- @raise "saspu.love_debug.new: unknown option 'x'"; "...: give cell or to_cell"
local function new(world, opts)
  opts = opts or {}
  for k in pairs(opts) do
    if not OPTIONS[k] then error(format("saspu.love_debug.new: unknown option '%s'", tostring(k)), 2) end
  end
  local self = setmetatable({ world = world, radius = opts.radius or 1, history = opts.history or 8,
                              label = opts.label, fonts = opts.fonts, lines = {} }, Debug)
  if opts.to_cell then
    self.to_cell = opts.to_cell
  elseif opts.cell then
    local cell = opts.cell
    self.cell_w = type(cell) == "table" and cell[1] or cell
    self.cell_h = type(cell) == "table" and cell[2] or cell
    self.offset_x, self.offset_y = opts.offset_x or 0, opts.offset_y or 0
    self.to_cell = function(x, y) return grid_cell(self, x, y) end
  else
    error("saspu.love_debug.new: give cell (pixels per cell) or to_cell(x, y)", 2)
  end
  if type(self.history) ~= "number" or self.history < 1 or self.history > 64 then
    error("saspu.love_debug.new: history must be from 1 to 64, got " .. tostring(self.history), 2)
  end
  return self
end

--- Watches `agent` (nil: none): it keeps a history, the one watched before stops keeping it.
function Debug:select(agent)
  local old = self.agent
  if old == agent then return agent end
  if old and is_alive(old) then old:inspect { history = 0 } end
  self.agent = agent
  if agent then agent:inspect { history = self.history } end
  return agent
end

--- Picks the agent nearest the cell under screen point (x, y), within `radius` cells.
-- A point off the grid changes nothing; a point on the grid with no agent near clears
-- the pick.
-- @treturn saspu.Agent|nil the picked agent
function Debug:pick(x, y)
  local cx, cy = self.to_cell(x, y)
  local g = self.world:grid()
  if not cx or cx < 1 or cy < 1 or (g and (cx > g:width() or cy > g:height())) then
    return self.agent
  end
  return self:select(self.world:near(cx, cy, self.radius, nil, 1)[1])
end

--- The LÖVE callback: the first button (or none given) picks; true when it did.
function Debug:mousepressed(x, y, button)
  if button ~= nil and button ~= 1 then return false end
  self:pick(x, y)
  return true
end

-- "kind action -> goal (reason)" of an event or a failure, the parts it has.
local function what(kind, e)
  local parts = { kind }
  if e.action then parts[#parts + 1] = e.action end
  if e.goal then parts[#parts + 1] = "-> " .. e.goal end
  if e.reason then parts[#parts + 1] = "(" .. tostring(e.reason) .. ")" end
  return concat(parts, " ")
end

--- The panel's lines for the picked agent, from one `a:inspect()`.
-- Title, `phase: p`, `goal: g`, `plan:` with a line per step (`> 2. fill_bucket @ river`,
-- `>` the current step, `(done)` the steps done), `step: 2 of 4, fill_bucket, 0.4 s left`,
-- `why: ...` after a no_plan, `last failure: ...`, `state:` by variable, `events:` oldest
-- first. One line `click an NPC to inspect it` when none is picked.
-- @treturn table lines, and the inspect table they were made from (nil when none)
function Debug:panel()
  local a = self.agent
  if a and not is_alive(a) then a, self.agent = nil, nil end
  if not a then return { "click an NPC to inspect it" }, nil end
  local info = a:inspect()
  local lines = {}
  local function add(...) lines[#lines + 1] = format(...) end
  add("%s", self.label and self.label(a) or format("%s #%d", info.class, a:index()))
  add("phase: %s", tostring(info.phase))
  add("goal: %s", tostring(info.goal))
  local plan = info.plan or {}
  add("plan:%s", #plan == 0 and " none" or "")
  for i, step in ipairs(plan) do
    add("%s %d. %s%s%s", i == info.step and ">" or " ", i, step.action,
        step.at and (" @ " .. step.at) or "", step.done and " (done)" or "")
  end
  if info.step and plan[info.step] then
    local left = (info.time_left or 0) > 0 and format(", %.1f s left", info.time_left) or ""
    add("step: %d of %d, %s%s", info.step, #plan, plan[info.step].action, left)
  end
  if info.why then add("why: %s", tostring(info.why)) end
  if info.last_reason then add("last failure: %s", what(info.last_reason, { action = info.last_action })) end
  local vars = {}
  for name in pairs(info.state) do vars[#vars + 1] = name end
  sort(vars)
  add("state:")
  for _, name in ipairs(vars) do add("  %s = %s", name, tostring(info.state[name])) end
  local events = info.events or {}
  add("events:")
  for _, e in ipairs(events) do add("  %s", what(e.kind, e)) end
  return lines, info
end

--- Draws the panel in the box (x, y, w, h) with love.graphics (default: 320 pixels wide
-- at the window's top left, as high as the window). Keeps the lines in `self.lines`.
-- @treturn number pixels the wrapped text runs past the box (0 when it fits)
function Debug:draw(x, y, w, h)
  local gr = love.graphics -- luacheck: globals love
  x, y = x or 0, y or 0
  w, h = w or 320, h or gr.getHeight() - y
  local lines = self:panel()
  self.lines = lines
  local text, pad = concat(lines, "\n"), 8
  local font, over = gr.getFont(), 0
  for _, f in ipairs(self.fonts or { font }) do
    local widest, wrapped = f:getWrap(text, w - 2 * pad)
    font = f
    over = math.max(widest - (w - 2 * pad), #wrapped * f:getHeight() - (h - 2 * pad), 0)
    if over == 0 then break end
  end
  local r, g, b, alpha = gr.getColor()
  local old_font = gr.getFont()
  gr.setColor(0.08, 0.08, 0.1, 0.9)
  gr.rectangle("fill", x, y, w, h)
  gr.setColor(0.92, 0.92, 0.92, 1)
  gr.setFont(font)
  gr.printf(text, x + pad, y + pad, w - 2 * pad)
  gr.setFont(old_font)
  gr.setColor(r, g, b, alpha)
  return over
end

return { new = new }
