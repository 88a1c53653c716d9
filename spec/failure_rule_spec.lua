-- spec/failure_rule_spec.lua: every failure of a step counts towards one back-off and max_failures / gave_up, in grid and engine mode: target_gone, move_failed and the cooldown after it; an `at` function may return nil, "reason" (the step fails so) or false (no target now: the goal waits).
local saspu = require "saspu"
local support = require "support.agents"

-- The sheriff's step buy_food goes where `at` says; bandits to despawn.
local function town(at, opts, beh)
  local world = saspu.world { grid = saspu.grid(20, 5),
                              places = { { name = "bank", x = 18, y = 3 } } }
  local bandits = world:crowd(support.citizen(), {}, {})
  local bandit = bandits:spawn { start = "start_of_day", x = 10, y = 3 }
  local behaviour = { actions = { buy_food = { duration = 1, at = at } }, goals = { { "work" } } }
  for k, v in pairs(beh or {}) do behaviour[k] = v end
  local sheriffs = world:crowd(support.citizen(), behaviour, opts)
  local sheriff = sheriffs:spawn { start = "start_of_day", x = 1, y = 1 }
  sheriff.data.prey = bandit
  return world, sheriff, bandit
end

-- Frames of 0.25 s: the sheriff's events as "kind:reason"; `answer(ev)` plays the game.
local function run(world, sheriff, frames, answer)
  local log = {}
  for _ = 1, frames do
    world:update(0.25)
    for ev in world:events() do
      if ev.agent == sheriff then
        log[#log + 1] = ev.kind .. (ev.reason and ":" .. ev.reason or "")
        if answer then answer(ev) end
      end
    end
  end
  return log
end

-- The step_failed reasons before the first gave_up, and that gave_up's reason.
local function until_gave_up(log)
  local failed = {}
  for _, e in ipairs(log) do
    local kind, reason = e:match("^([%w_]+):?(.*)$")
    if kind == "step_failed" then failed[#failed + 1] = reason end
    if kind == "gave_up" then return failed, reason end
  end
  return failed, nil
end

describe("the failure rule", function()
  for _, movement in ipairs { "grid", "engine" } do
    it("counts target_gone towards max_failures and gives up (" .. movement .. ")", function()
      local world, sheriff, bandit = town(function(a) return a.data.prey, 1 end,
                                          { movement = movement }, { max_failures = 3 })
      bandit:despawn()
      local failed, reason = until_gave_up(run(world, sheriff, 40))
      assert.same({ "target_gone", "target_gone", "target_gone" }, failed)
      assert.equal("target_gone", reason)
    end)
  end

  it("counts the cooldown after a failed move as a failure of the same step (engine)", function()
    local world, sheriff = town("bank", { movement = "engine", cooldown = 1 }, { max_failures = 3 })
    local failed, reason = until_gave_up(run(world, sheriff, 80, function(ev)
      if ev.kind == "move" then ev.agent:move_failed("no road") end
    end))
    assert.same({ "no road", "cooldown", "no road" }, failed)
    assert.equal("no road", reason)
  end)

  it("fails the step with the reason an at function returns after nil", function()
    local world, sheriff = town(function() return nil, "no bandit in town" end, {},
                                { max_failures = 2 })
    local failed, reason = until_gave_up(run(world, sheriff, 20))
    assert.same({ "no bandit in town", "no bandit in town" }, failed)
    assert.equal("no bandit in town", reason)
  end)

  for _, movement in ipairs { "grid", "engine" } do
    it("waits while an at function returns false, then goes on (" .. movement .. ")", function()
      local open = false
      local world, sheriff = town(function() if open then return "bank" end return false end,
                                  { movement = movement })
      local log = run(world, sheriff, 12)
      local text = table.concat(log, " ")
      assert.equal(1, select(2, text:gsub("blocked:no_target", "")))
      assert.not_matches("step_failed", text, 1, true)
      open = true
      text = table.concat(run(world, sheriff, 60, function(ev)
        if ev.kind == "move" then ev.agent:arrived() end
      end), " ")
      assert.matches("arrived step_finished", text, 1, true)
      assert.not_matches("step_failed", text, 1, true)
    end)
  end
end)
