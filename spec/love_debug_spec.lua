-- spec/love_debug_spec.lua: saspu.love_debug without LÖVE: a stub love.graphics records what the panel prints, checked against a:inspect() of the picked agent.
local saspu = require "saspu"

-- The module must load with no `love` about (specs, tools).
assert(rawget(_G, "love") == nil, "love_debug_spec: a global love is set before the spec")
local love_debug = require "saspu.love_debug"

local CELL, OX, OY = 10, 100, 50 -- the stub screen: 10 pixels a cell, grid corner at (100, 50)

-- The centre of cell (x, y) on that screen.
local function screen(x, y) return OX + (x - 0.5) * CELL, OY + (y - 0.5) * CELL end

-- A stub `love`: a font 7 pixels per character and 12 high, and the texts printed.
local function stub_love()
  local printed = {}
  local font = {}
  function font.getHeight() return 12 end
  function font.getWrap(_, text, width)
    local widest, lines = 0, {}
    for line in (text .. "\n"):gmatch("(.-)\n") do
      widest = math.max(widest, #line * 7)
      lines[#lines + 1] = line
    end
    return math.min(widest, width), lines
  end
  local current = font
  local graphics = {
    getHeight = function() return 600 end,
    getFont = function() return current end,
    setFont = function(f) current = f end,
    getColor = function() return 1, 1, 1, 1 end,
    setColor = function() end,
    rectangle = function() end,
    printf = function(text) printed[#printed + 1] = text end,
  }
  return { graphics = graphics }, printed
end

local function town()
  local world = saspu.world { grid = saspu.grid(20, 20), places = {
    { name = "market", x = 15, y = 5 }, { name = "well", x = 5, y = 15 },
    { name = "workshop", x = 15, y = 15 } } }
  local citizens = world:crowd(saspu.domain_file("domains/citizen.lua"), {
    actions = { buy_food = { at = "market", duration = 1 }, buy_drink = { at = "well", duration = 1 },
                work = { at = "workshop", duration = 2 } },
    goals = { { "work", priority = 10 } } })
  local a = citizens:spawn { start = "start_of_day", x = 3, y = 3 }
  local b = citizens:spawn { start = "start_of_day", x = 12, y = 12 }
  return world, citizens, a, b
end

local function lines_of(text)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do out[#out + 1] = line end
  return out
end

-- What the panel says, read back from its lines: goal, plan actions, the marked step,
-- the event kinds and the why.
local function read_panel(lines)
  local p = { plan = {}, events = {} }
  local in_events = false
  for _, line in ipairs(lines) do
    local goal = line:match("^goal: (.*)$")
    local mark, n, action = line:match("^([> ]) (%d+)%. (%S+)")
    if goal then p.goal = goal end
    if mark then
      p.plan[tonumber(n)] = action
      if mark == ">" then p.step = tonumber(n) end
    end
    p.why = p.why or line:match("^why: (.*)$")
    if in_events then p.events[#p.events + 1] = line:match("^  (%S+)") end
    if line == "events:" then in_events = true end
  end
  return p
end

describe("saspu.love_debug", function()
  local printed
  before_each(function()
    local stub
    stub, printed = stub_love()
    _G.love = stub
  end)
  after_each(function() _G.love = nil end)

  it("prints the picked agent's goal, plan, current step and events as a:inspect() says", function()
    local world, _, a = town()
    local dbg = love_debug.new(world, { cell = CELL, offset_x = OX, offset_y = OY })
    assert.equal(a, dbg:pick(screen(3, 3)))
    for _ = 1, 6 do world:update(0.5) end
    assert.equal(0, dbg:draw(0, 0, 400, 600))
    local info = a:inspect()
    assert.equal(table.concat(dbg.lines, "\n"), printed[1])
    local p = read_panel(lines_of(printed[1]))
    assert.equal("work", info.goal)
    assert.equal(info.goal, p.goal)
    local actions = {}
    for i, step in ipairs(info.plan) do actions[i] = step.action end
    assert.is_true(#actions >= 3)
    assert.same(actions, p.plan)
    assert.is_number(info.step)
    assert.equal(info.step, p.step)
    local kinds = {}
    for i, e in ipairs(info.events) do kinds[i] = e.kind end
    assert.is_true(#kinds >= 3)
    assert.same(kinds, p.events)
    assert.is_nil(p.why)
  end)

  it("keeps a history for the picked agent only, and stops it when another is picked", function()
    local world, _, a, b = town()
    local dbg = love_debug.new(world, { cell = CELL, offset_x = OX, offset_y = OY, history = 3 })
    dbg:pick(screen(3, 3))
    world:update(0.5)
    world:update(0.5)
    assert.equal(3, #a:inspect().events)
    assert.is_nil(b:inspect().events)
    local x, y = screen(b:position())
    assert.is_true(dbg:mousepressed(x, y, 1))
    assert.equal(b, dbg.agent)
    assert.is_nil(a:inspect().events)
    assert.same({}, b:inspect().events)
  end)

  it("clears the pick on an empty cell; a point off the grid or another button keeps it", function()
    local world, _, a = town()
    local dbg = love_debug.new(world, { to_cell = function(x, y) return x, y end, radius = 0 })
    assert.equal(a, dbg:pick(3, 3))
    assert.is_false(dbg:mousepressed(12, 12, 2))
    assert.equal(a, dbg:pick(0, 3))
    assert.equal(a, dbg:pick(21, 3))
    assert.is_nil(dbg:pick(4, 3)) -- radius 0: the agent's own cell only
    assert.is_nil(a:inspect().events)
    dbg:draw()
    assert.same({ "click an NPC to inspect it" }, dbg.lines)
  end)

  it("prints why the planner found no plan", function()
    local world = saspu.world {}
    local crowd = world:crowd(saspu.domain_file("domains/citizen.lua"), {
      goals = { { { hunger = "no_food", working = true }, priority = 5 } } })
    local a = crowd:spawn { start = "start_of_day", x = 1, y = 1 }
    local dbg = love_debug.new(world, { cell = CELL })
    dbg:pick(5, 5)
    world:update(0.1)
    dbg:draw()
    local info = a:inspect()
    assert.is_not_nil(info.why)
    local p = read_panel(dbg.lines)
    assert.equal(tostring(info.why), p.why)
    assert.same({ "no_plan", "idle" }, p.events)
  end)

  it("forgets a despawned agent", function()
    local world, _, a = town()
    local dbg = love_debug.new(world, { cell = CELL, offset_x = OX, offset_y = OY,
                                        label = function(agent) return "npc " .. agent:index() end })
    dbg:pick(screen(3, 3))
    dbg:draw()
    assert.equal("npc 1", dbg.lines[1])
    a:despawn()
    dbg:draw()
    assert.is_nil(dbg.agent)
    assert.same({ "click an NPC to inspect it" }, dbg.lines)
  end)

  it("takes the largest font whose text fits, and says how far it runs over otherwise", function()
    local world = town()
    local dbg = love_debug.new(world, { cell = CELL, offset_x = OX, offset_y = OY })
    dbg:pick(screen(3, 3))
    local fits = dbg:draw(0, 0, 400, 600)
    assert.equal(0, fits)
    local over = dbg:draw(0, 0, 400, 100)
    assert.equal(#dbg.lines * 12 - (100 - 16), over)
  end)

  it("names a bad option", function()
    local world = town()
    assert.error_matches(function() love_debug.new(world, { cells = 3 }) end,
                         "saspu.love_debug.new: unknown option 'cells'", 1, true)
    assert.error_matches(function() love_debug.new(world, {}) end,
                         "saspu.love_debug.new: give cell (pixels per cell) or to_cell(x, y)", 1, true)
    assert.error_matches(function() love_debug.new(world, { cell = 8, history = 65 }) end,
                         "saspu.love_debug.new: history must be from 1 to 64, got 65", 1, true)
  end)
end)
