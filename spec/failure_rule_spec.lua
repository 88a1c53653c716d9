-- spec/failure_rule_spec.lua: every failure of a step counts towards one back-off and max_failures / gave_up, in grid and engine mode: target_gone, move_failed and the cooldown after it; gave_up names the first failure of the run; an `at` function may return nil, "reason" (the step fails so) or false (no target now: the goal waits).
local saspu = require "saspu"
local support = require "support.agents"
local sb = require "support.save_bytes"

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

  it("names the first failure of the run in gave_up: unreachable, not the cooldown (grid)", function()
    local world = saspu.world { grid = saspu.grid_from_ascii(".#........\n##........\n..........\n"),
                                places = { { name = "market", x = 1, y = 1 } } }
    local crowd = world:crowd(support.citizen(), {
      actions = { buy_food = { duration = 1, at = "market" } }, goals = { { "work" } },
      max_failures = 2 }, { cooldown = 60 })
    local a = crowd:spawn { start = "start_of_day", x = 10, y = 3 }
    a:set("thirst", "hydrated")
    local failed, reason = until_gave_up(run(world, a, 20))
    assert.same({ "unreachable", "cooldown" }, failed)
    assert.equal("unreachable", reason)
    assert.equal("unreachable", a:inspect().last_reason)
  end)

  it("names the game's first move_failed reason in gave_up, not a later one (engine)", function()
    local world, sheriff = town("bank", { movement = "engine", cooldown = 1 }, { max_failures = 3 })
    local texts = { "no road", "bridge out" }
    local failed, reason = until_gave_up(run(world, sheriff, 80, function(ev)
      if ev.kind == "move" then ev.agent:move_failed(table.remove(texts, 1)) end
    end))
    assert.same({ "no road", "cooldown", "bridge out" }, failed)
    assert.equal("no road", reason)
  end)

  it("names the first failure in gave_up when a cooldown is the last (engine)", function()
    local world, sheriff = town("bank", { movement = "engine", cooldown = 60 }, { max_failures = 2 })
    local failed, reason = until_gave_up(run(world, sheriff, 40, function(ev)
      if ev.kind == "move" then ev.agent:move_failed("no road") end
    end))
    assert.same({ "no road", "cooldown" }, failed)
    assert.equal("no road", reason)
    assert.equal("script", sheriff:inspect().last_reason)
  end)

  it("keeps the first failure's text across a save and load, and checks it (engine)", function()
    local function fresh()
      return town("bank", { movement = "engine", cooldown = 1 }, { max_failures = 3 })
    end
    local texts = { "no road", "bridge out" }
    local answer = function(ev)
      if ev.kind == "move" then ev.agent:move_failed(table.remove(texts, 1) or "lost") end
    end
    local world, sheriff = fresh()
    local before = run(world, sheriff, 5, answer) -- "no road", then the cooldown
    assert.same({ "no road", "cooldown" }, (until_gave_up(before)))
    local saved = world:save()
    local other, sheriff_b = fresh()
    other:load(saved)
    local failed, reason = until_gave_up(run(other, sheriff_b, 80, answer))
    assert.same({ "bridge out" }, failed)
    assert.equal("no road", reason)
    -- the texts follow the crowds' parts; one naming an agent the crowd lacks is refused
    local part = sb.script_part(saved)
    local bad = part:gsub("n1;n1;s7:no road$", "n1;n99;s7:no road")
    assert.are_not.equal(part, bad)
    local ok, err = pcall(other.load, other, sb.with_script_part(saved, bad))
    assert.is_false(ok)
    assert.truthy(err:find("the failure text of agent 99, which does not exist", 1, true), err)
  end)

  for _, movement in ipairs { "grid", "engine" } do
    it("names the first hook error in gave_up (" .. movement .. ")", function()
      local raised = 0
      local on_start = function()
        raised = raised + 1
        error("boom " .. raised, 0)
      end
      local world, sheriff = town("bank", { movement = movement },
                                  { max_failures = 3,
                                    actions = { buy_food = { duration = 1, at = "bank",
                                                             on_start = on_start } } })
      local failed, reason = until_gave_up(run(world, sheriff, 80))
      assert.same({ "buy_food on_start: boom 1", "buy_food on_start: boom 2",
                    "buy_food on_start: boom 3" }, failed)
      assert.equal("buy_food on_start: boom 1", reason)
    end)
  end

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
