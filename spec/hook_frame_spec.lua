-- spec/hook_frame_spec.lua: hooks cannot break the frame: an error object whose __tostring raises, a hook that yields outside `run`, a hook that closes, loads, saves or updates the world: the step fails, the frame's other hooks run, world:update returns normally.
local saspu = require "saspu"

local dom = saspu.domain_file("domains/citizen.lua")

-- A world of two crowds of 3 citizens: the first crowd's buy_food runs `hook` as its
-- on_start (hook(world)); every on_start of the second crowd is counted (the rest of the
-- frame).
local function two_crowds(hook)
  local world = saspu.world { grid = saspu.grid(8, 8) }
  local inner = hook
  hook = function() return inner(world) end
  local counted = { n = 0 }
  local a = world:crowd(dom, { actions = { buy_food = { on_start = hook } },
                               goals = { { "have_a_meal" } } })
  local b = world:crowd(dom, { actions = { buy_food = { on_start = function() counted.n = counted.n + 1 end } },
                               goals = { { "have_a_meal" } } })
  for _ = 1, 3 do
    a:spawn { start = "start_of_day" }
    b:spawn { start = "start_of_day" }
  end
  return world, counted
end

-- One frame in a coroutine (as a game whose main loop is one): update returns there,
-- without yielding to the caller of resume. The frame's events, as text.
local function frame_in_coroutine(world)
  local co = coroutine.create(function()
    world:update(1)
    return "returned"
  end)
  local ok, what = coroutine.resume(co)
  assert.is_true(ok, tostring(what))
  assert.equal("returned", what)
  assert.equal("dead", coroutine.status(co))
  local out = {}
  if world:crowds()[1]:is_open() then
    for ev in world:events() do out[#out + 1] = ev.kind .. ": " .. tostring(ev.reason) end
  end
  return table.concat(out, "\n")
end

-- A hook_failed event says so at the next frame: two frames.
local function expect_failed_and_rest_ran(hook, text)
  local world, counted = two_crowds(hook)
  local seen = frame_in_coroutine(world) .. "\n" .. frame_in_coroutine(world)
  assert.is_truthy(seen:find(text, 1, true), seen)
  assert.equal(3, counted.n) -- the other crowd's hooks of the frame ran
  for _ = 1, 20 do world:update(1) end -- and the world goes on
  world:load(world:save())
end

describe("world:update with a hook that misbehaves", function()
  it("fails the step with a placeholder when the error's __tostring raises", function()
    local bad = setmetatable({}, { __tostring = function() error("no text for you") end })
    expect_failed_and_rest_ran(function() error(bad) end,
                               "buy_food on_start: (a table whose __tostring failed)")
  end)

  it("fails the step when the error's __tostring returns no string", function()
    local bad = setmetatable({}, { __tostring = function() return {} end })
    expect_failed_and_rest_ran(function() error(bad) end, "(a table whose __tostring failed)")
  end)

  it("fails the step when a hook yields outside run, with update running in a coroutine", function()
    expect_failed_and_rest_ran(function() coroutine.yield(5) end, "buy_food on_start: ")
  end)

  it("fails the step when a hook closes its crowd or the world, which stay open", function()
    local world = two_crowds(function(w) w:crowds()[1]:close() end)
    local seen = frame_in_coroutine(world) .. frame_in_coroutine(world)
    assert.is_truthy(seen:find("saspu.Crowd:close: not allowed from a hook during world:update",
                               1, true), seen)
    assert.is_true(world:crowds()[1]:is_open())
    expect_failed_and_rest_ran(function(w) w:close() end, "saspu.World:close: not allowed")
  end)

  it("fails the step when a hook updates, saves or loads the world", function()
    local saved = two_crowds(function() end):save()
    expect_failed_and_rest_ran(function(w) w:update(1) end,
                               "saspu.World:update: called from a hook during world:update")
    expect_failed_and_rest_ran(function(w) w:save() end,
                               "saspu.World:save: not allowed from a hook during world:update")
    expect_failed_and_rest_ran(function(w) w:load(saved) end,
                               "saspu.World:load: not allowed from a hook during world:update")
  end)

  it("closes after update returns as before", function()
    local world = two_crowds(function() end)
    world:update(1)
    world:close()
  end)
end)
