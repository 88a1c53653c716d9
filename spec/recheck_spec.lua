-- spec/recheck_spec.lua: a goal with recheck = true is dropped (event goal_dropped) once its `when` stops holding while it runs, and the agent chooses again.
local saspu = require "saspu"

local function smith()
  return saspu.domain {
    name = "smith",
    variables = { { name = "alarm", values = { "quiet", "low", "ringing" } },
                  { name = "horse", values = { "unshod", "filed", "shod" } },
                  { name = "rested", values = { "false", "true" } } },
    actions = {
      { name = "file", var = "horse", pre = "unshod", post = "filed" },
      { name = "shoe", var = "horse", pre = "filed", post = "shod" },
      { name = "rest", var = "rested", pre = "false", post = "true" },
    },
    goals = { shod = { horse = "shod" }, rested = { rested = "true" } },
  }
end

-- One smith; `when` and `recheck` for the goal shod, `shoe` options merged in.
local function forge(when, recheck, shoe)
  local world = saspu.world {}
  local actions = { file = { duration = 2 }, shoe = { duration = 2 }, rest = { duration = 1 } }
  for k, v in pairs(shoe or {}) do actions.shoe[k] = v end
  local crowd = world:crowd(smith(), {
    actions = actions,
    goals = { { "shod", priority = 5, when = when, recheck = recheck }, { "rested", priority = 1 } },
  })
  return world, crowd:spawn { start = { alarm = "quiet", horse = "unshod", rested = "false" } }
end

-- Runs `seconds` in frames of 0.25 s, calling at[t] at time t; the events as text.
local function run(world, seconds, at)
  local out = {}
  for f = 1, seconds * 4 do
    if at and at[f / 4] then at[f / 4]() end
    world:update(0.25)
    for ev in world:events() do
      out[#out + 1] = ev.kind .. (ev.action and (":" .. ev.action) or "") .. (ev.goal and ("@" .. ev.goal) or "")
                      .. (ev.reason and ("/" .. ev.reason) or "")
    end
  end
  return table.concat(out, " ")
end

describe("a goal with recheck = true", function()
  it("is dropped between steps once its when stops holding, and the agent chooses again", function()
    local world, a = forge({ alarm = "quiet" }, true)
    local evs = run(world, 8, { [1] = function() a:set("alarm", "ringing") end })
    assert.matches("step_finished:file@shod goal_dropped@shod/when_lapsed", evs, 1, true)
    assert.matches("goal_chosen@rested", evs, 1, true)
    assert.not_matches("step_started:shoe", evs, 1, true)
    assert.equal("filed", a:get("horse"))
    assert.equal("true", a:get("rested"))
  end)

  it("runs on without recheck (when is checked only when a goal is chosen)", function()
    local world, a = forge({ alarm = "quiet" }, nil)
    local evs = run(world, 8, { [1] = function() a:set("alarm", "ringing") end })
    assert.not_matches("goal_dropped", evs, 1, true)
    assert.equal("shod", a:get("horse"))
  end)

  it("stops an interruptible step at once", function()
    local world, a = forge({ alarm = "quiet" }, true, { interruptible = true })
    local evs = run(world, 8, { [3] = function() a:set("alarm", "ringing") end })
    assert.matches("goal_dropped@shod/when_lapsed", evs, 1, true)
    assert.matches("step_failed:shoe@shod/when_lapsed", evs, 1, true)
    assert.equal("filed", a:get("horse"))
  end)

  it("holds while any value of a set holds, and is dropped when none does", function()
    local when = { alarm = { "quiet", "low" } }
    local world, a = forge(when, true)
    local evs = run(world, 8, { [1] = function() a:set("alarm", "low") end })
    assert.not_matches("goal_dropped", evs, 1, true)
    assert.equal("shod", a:get("horse"))
    world, a = forge({ alarm = saspu.NOT("ringing") }, true)
    evs = run(world, 8, { [1] = function() a:set("alarm", "ringing") end })
    assert.matches("goal_dropped@shod/when_lapsed", evs, 1, true)
  end)

  it("refuses a recheck that is no boolean", function()
    local world = saspu.world {}
    assert.error_matches(function()
      world:crowd(smith(), { goals = { { "shod", when = { alarm = "quiet" }, recheck = "yes" } } })
    end, "behaviour.goals[1].recheck: expected a boolean, got string", 1, true)
  end)
end)
