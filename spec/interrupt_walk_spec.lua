-- spec/interrupt_walk_spec.lua: an interruptible step gives way to a higher goal (higher_goal) or a lapsed `when` (when_lapsed) while walking, while waiting for the engine's move and while waiting for a place, not only while acting, with the same events in grid and engine mode where the modes agree; a step that is not interruptible is never interrupted.
local saspu = require "saspu"

-- A bandit who robs the bank (far east) unless the sheriff is near: then hiding (next
-- to it) comes first. `rob` is the step under test.
local function bandit_domain()
  return saspu.domain {
    name = "bandit",
    variables = { { name = "cash", values = { "none", "some" } },
                  { name = "safe", values = { "false", "true" } },
                  { name = "sheriff_near", values = { "false", "true" } } },
    actions = {
      { name = "rob", var = "cash", pre = "none", post = "some" },
      { name = "hide", var = "safe", pre = "false", post = "true" },
    },
    goals = { rich = { cash = "some" }, hidden = { safe = "true" } },
  }
end

-- opts: interruptible (rob's), movement, recheck (rich's `when` is sheriff_near =
-- false, rechecked), full (the bank's one slot is taken by another bandit first).
local function town(opts)
  local world = saspu.world { grid = saspu.grid(30, 3),
                              places = { { name = "bank", x = 30, y = 1, capacity = opts.full and 1 or nil },
                                         { name = "den", x = 2, y = 1 } } }
  local goals = { { "hidden", priority = 5, when = { sheriff_near = "true" } },
                  { "rich", priority = 1 } }
  if opts.recheck then
    goals = { { "rich", priority = 1, when = { sheriff_near = "false" }, recheck = true },
              { "hidden", priority = 0 } }
  end
  local crowd = world:crowd(bandit_domain(), {
    actions = { rob = { duration = 30, at = "bank", interruptible = opts.interruptible },
                hide = { duration = 1, at = "den" } },
    goals = goals,
  }, { movement = opts.movement, speed = 2 })
  if opts.full then
    crowd:spawn { start = { cash = "none", safe = "false", sheriff_near = "false" }, x = 30, y = 2 }
  end
  local a = crowd:spawn { start = { cash = "none", safe = "false", sheriff_near = "false" }, x = 1, y = 1 }
  return world, a
end

-- Frames of 0.25 s; at frame `at` the sheriff comes near. The bandit's events, and
-- whether it was interrupted before rob finished.
local function run(world, a, frames, at)
  local log = {}
  for f = 1, frames do
    if f == at then a:set("sheriff_near", "true") end
    world:update(0.25)
    for ev in world:events() do
      if ev.agent == a then
        log[#log + 1] = ev.kind .. (ev.action and ":" .. ev.action or "")
                        .. (ev.reason and "/" .. ev.reason or "")
      end
    end
  end
  return table.concat(log, " ")
end

local function without_moves(text)
  return (text:gsub(" move[%w_]*:rob[/%w_]*", ""):gsub(" move:hide", ""):gsub(" arrived:hide", "")
              :gsub(" arrived:rob", ""))
end

describe("an interruptible step", function()
  for _, movement in ipairs { "grid", "engine" } do
    it("gives way to a higher goal while walking or waiting for the engine (" .. movement .. ")", function()
      local world, a = town { interruptible = true, movement = movement }
      local log = run(world, a, 8, 4)
      assert.matches("step_failed:rob/higher_goal", log, 1, true)
      assert.matches("replanned/higher_goal", log, 1, true)
      assert.not_matches("arrived:rob", log, 1, true)
      if movement == "engine" then
        assert.matches("step_failed:rob/higher_goal move_cancelled:rob/higher_goal", log, 1, true)
        local out = {}
        for k = 1, a:crowd():moves(out) do assert.same({ 2, 1 }, { out[4 * k - 2], out[4 * k - 1] }) end
      end
      assert.equal("none", a:get("cash"))
    end)

    it("drops a rechecked goal whose when lapsed while walking (" .. movement .. ")", function()
      local world, a = town { interruptible = true, movement = movement, recheck = true }
      local log = run(world, a, 8, 4)
      assert.matches("goal_dropped/when_lapsed", log, 1, true)
      assert.matches("step_failed:rob/when_lapsed", log, 1, true)
      if movement == "engine" then
        assert.matches("move_cancelled:rob/when_lapsed", log, 1, true)
      end
    end)

    it("is never interrupted when not interruptible (" .. movement .. ")", function()
      local world, a = town { interruptible = false, movement = movement }
      local log = run(world, a, 8, 4)
      assert.not_matches("higher_goal", log, 1, true)
      if movement == "engine" then assert.is_true(a:moving()) end
    end)
  end

  it("gives way while waiting for a place", function()
    local world, a = town { interruptible = true, full = true }
    local log = run(world, a, 12, 8)
    -- a wait for room is quiet (its step has not started): no step_failed
    assert.matches("blocked:rob/full goal_chosen replanned/higher_goal", log, 1, true)
  end)

  it("has the same events in grid and engine mode where the modes agree", function()
    local logs = {}
    for _, movement in ipairs { "grid", "engine" } do
      local world, a = town { interruptible = true, movement = movement }
      logs[movement] = without_moves(run(world, a, 8, 4))
    end
    assert.equal(logs.grid, logs.engine)
  end)
end)
