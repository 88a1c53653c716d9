-- spec/backoff_spec.lua: failures back off: the same step failing in a row waits longer each time (doubling, capped), and after max_failures the agent gives its goal up for give_up_for seconds (event gave_up) and takes the next one.
local saspu = require "saspu"

-- A smith whose anvil may be broken: shoeing (goal shod, first) and eating (goal fed).
local function smith()
  return saspu.domain {
    name = "smith",
    variables = { { name = "horse", values = { "unshod", "shod" } },
                  { name = "fed", values = { "false", "true" } } },
    actions = {
      { name = "shoe", var = "horse", pre = "unshod", post = "shod" },
      { name = "eat", var = "fed", pre = "false", post = "true" },
    },
    goals = { shod = { horse = "shod" }, fed = { fed = "true" } },
  }
end

local function broken() error("anvil broken", 0) end

-- A world with one smith; `extra` is merged into the behaviour, `shoe` is the shoe action.
local function forge(extra, shoe)
  local world = saspu.world {}
  local beh = { actions = { shoe = shoe or { duration = 1, on_start = broken },
                            eat = { duration = 8 } },
                goals = { { "shod", priority = 2 }, { "fed", priority = 1 } } }
  for k, v in pairs(extra or {}) do beh[k] = v end
  local crowd = world:crowd(smith(), beh)
  local a = crowd:spawn { start = { horse = "unshod", fed = "false" } }
  return world, a, crowd
end

-- Runs `frames` frames of `dt` from time `t0`; returns { { t, kind, action, goal, reason } }.
local function run(world, frames, dt, t0, out)
  out = out or {}
  local t = t0 or 0
  for _ = 1, frames do
    world:update(dt)
    t = t + dt
    for ev in world:events() do
      out[#out + 1] = { t = t, kind = ev.kind, action = ev.action, goal = ev.goal, reason = ev.reason }
    end
  end
  return out, t
end

local function of_kind(evs, kind)
  local out = {}
  for _, e in ipairs(evs) do if e.kind == kind then out[#out + 1] = e end end
  return out
end

-- The waits between each failure of shoe and the replan after it.
local function waits(evs)
  local out, failed_at = {}, nil
  for _, e in ipairs(evs) do
    if e.kind == "step_failed" and e.action == "shoe" then failed_at = e.t end
    if e.kind == "replanned" and e.goal == "shod" and failed_at then
      out[#out + 1] = e.t - failed_at
      failed_at = nil
    end
  end
  return out
end

describe("failures back off", function()
  it("wait twice as long after each failure of the same step, up to the cap", function()
    local world = forge { max_failures = 8, give_up_for = 100 }
    local evs = run(world, 400, 0.25)
    -- the first failure replans at once; then 1, 2, 4, 8 s (retry = 1 s), capped at 16
    assert.same({ 0, 1, 2, 4, 8, 16, 16 }, waits(evs))
  end)

  it("give the goal up after 3 failures, take the next goal, and try the old one again later", function()
    local world = forge { give_up_for = 5 }
    local evs = run(world, 80, 0.25)
    local gave = of_kind(evs, "gave_up")
    assert.equal(2, #gave) -- once at 2 s, again after the retry at 10.25 s
    assert.equal("shod", gave[1].goal)
    assert.equal("shoe", gave[1].action)
    assert.equal("shoe on_start: anvil broken", gave[1].reason)
    assert.equal(2, gave[1].t)
    local before = 0
    for _, e in ipairs(of_kind(evs, "step_failed")) do
      if e.t <= gave[1].t then before = before + 1 end
    end
    assert.equal(3, before)
    -- right after giving up it eats (the next goal), and shoeing waits its 5 s out
    local after = {}
    for _, e in ipairs(evs) do
      if e.t > 2 and e.t <= 10 then after[#after + 1] = e.goal end
    end
    for _, g in ipairs(after) do assert.equal("fed", g) end
    local tried = false
    for _, e in ipairs(evs) do
      if e.t > 10 and e.kind == "step_started" and e.action == "shoe" then tried = true end
    end
    assert.is_true(tried)
  end)

  it("keep a goal given up aside until give_up_for has passed", function()
    -- eating ends at 10 s and the smith chooses again: shod is given up until 22 s
    -- (with give_up_for = 5 it shoes again at 10.25 s, as the spec above shows)
    local world = forge({ give_up_for = 20 }, nil)
    local evs = run(world, 80, 0.25)
    local starts = 0
    for _, e in ipairs(evs) do
      if e.kind == "step_started" and e.action == "shoe" then starts = starts + 1 end
    end
    assert.equal(3, starts)
  end)

  it("give up at the first failure with max_failures = 1 (per action)", function()
    local world = forge(nil, { duration = 1, on_start = broken, max_failures = 1 })
    local evs = run(world, 8, 0.25)
    assert.equal(1, #of_kind(evs, "step_failed"))
    local gave = of_kind(evs, "gave_up")
    assert.equal(1, #gave)
    assert.equal(0.5, gave[1].t)
    assert.equal("shod", gave[1].goal)
  end)

  it("start over after a success of the step", function()
    -- the anvil fails twice, works once, then fails for good
    local calls = 0
    local shoe = { duration = 1, on_start = function()
      calls = calls + 1
      if calls ~= 3 then error("anvil broken", 0) end
    end }
    local world, a = forge({ give_up_for = 100 }, shoe)
    local evs = run(world, 12, 0.25)
    assert.equal("shod", a:get("horse"))
    assert.equal(0, #of_kind(evs, "gave_up"))
    -- unshod again: the count starts over, so 3 more failures before giving up
    a:set("horse", "unshod")
    evs = run(world, 60, 0.25)
    local fails = of_kind(evs, "step_failed")
    local gave = of_kind(evs, "gave_up")
    assert.equal(1, #gave)
    local before = 0
    for _, e in ipairs(fails) do if e.t <= gave[1].t then before = before + 1 end end
    assert.equal(3, before)
  end)

  it("reject bad options by name", function()
    local cases = {
      { { max_failures = "3" }, "behaviour.max_failures: expected an integer from 1 to 255, got 3" },
      { { max_failures = 0 }, "behaviour.max_failures: expected an integer from 1 to 255, got 0" },
      { { max_failures = 1.5 }, "behaviour.max_failures: expected an integer from 1 to 255, got 1.5" },
      { { give_up_for = -1 }, "behaviour.give_up_for: expected a number of seconds > 0, got -1" },
      { { give_up_for = "x" }, "behaviour.give_up_for: expected a number of seconds > 0, got x" },
      { { give_up_for = 0 / 0 }, "behaviour.give_up_for: expected a number of seconds > 0" },
      { { give_up_for = math.huge }, "behaviour.give_up_for: expected a number of seconds > 0" },
    }
    for _, case in ipairs(cases) do
      local ok, err = pcall(forge, case[1])
      assert.is_false(ok)
      assert.truthy(err:find(case[2], 1, true), err)
    end
    local ok, err = pcall(forge, nil, { on_start = broken, max_failures = -2 })
    assert.is_false(ok)
    assert.truthy(err:find("behaviour.actions.shoe.max_failures: expected an integer from 1 to 255, got -2",
                           1, true), err)
  end)

  it("are checked by Crowd:set_action too", function()
    local _, _, crowd = forge()
    local ok, err = pcall(crowd.set_action, crowd, 1, 1, 1, "none", nil, false, false, false, -1)
    assert.is_false(ok)
    assert.truthy(err:find("max_failures must be 0..255", 1, true), err)
    ok, err = pcall(crowd.set_action, crowd, 1, 1, 1, "none", nil, false, false, false, 3, -1)
    assert.is_false(ok)
    assert.truthy(err:find("give_up_for a finite number >= 0", 1, true), err)
  end)

  it("keep the counts across a save and load: the same events after", function()
    local function fresh() return forge { max_failures = 5, give_up_for = 5 } end
    local wa = fresh()
    run(wa, 5, 0.25) -- two failures so far, in the 1 s back-off
    local saved = wa:save()
    local rest_a = run(wa, 120, 0.25)
    local wb = fresh()
    run(wb, 2, 0.25)
    wb:load(saved)
    local rest_b = run(wb, 120, 0.25)
    assert.same(rest_a, rest_b)
    -- a fresh world that did not fail before gives up later: the counts were kept
    local gave_a = of_kind(rest_a, "gave_up")
    assert.equal(2, #gave_a)
    local wc = fresh()
    local rest_c = run(wc, 120, 0.25)
    assert.is_true(of_kind(rest_c, "gave_up")[1].t > gave_a[1].t)
  end)
end)
