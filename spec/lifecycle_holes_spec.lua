-- spec/lifecycle_holes_spec.lua: closing and despawning are one rule each: a closed crowd gives its places back and leaves the sensors and chases that point at it, a closed world closes its crowds, an agent despawned from any script context leaves no record behind, and a failed load changes nothing.
local saspu = require "saspu"
local save_bytes = require "support.save_bytes"

local WORKER = {
  name = "worker",
  variables = { { name = "done", values = { false, true } } },
  actions = { { name = "work", var = "done", pre = false, post = true } },
  goals = { finished = { done = true } },
}

local WATCHER = {
  name = "watcher",
  variables = { { name = "bandit_near", values = { false, true } },
                { name = "done", values = { false, true } } },
  actions = { { name = "work", var = "done", pre = false, post = true } },
  goals = {},
}

local GOALS = { { { done = true } } }

local function town(places)
  return saspu.world { grid = saspu.grid(10, 10), places = places }
end

-- The kinds and reasons of this frame's events of crowd c, as "kind reason" lines.
local function events_of(world, c)
  local out = {}
  for ev in world:events() do
    if ev.crowd == c then out[#out + 1] = ev.kind .. " " .. tostring(ev.reason) end
  end
  return out
end

local function has(lines, text)
  for _, l in ipairs(lines) do
    if l == text then return true end
  end
  return false
end

describe("closing a crowd", function()
  it("gives its reservations back: the place has room for the others and the world saves", function()
    local world = town { { name = "well", x = 5, y = 5, capacity = 1 } }
    local dom = saspu.domain(WORKER)
    local slow = world:crowd(dom, { actions = { work = { at = "well", duration = 1000 } }, goals = GOALS })
    local fast = world:crowd(dom, { actions = { work = { at = "well", duration = 1 } }, goals = GOALS })
    slow:spawn { start = { done = false }, x = 5, y = 5 }
    for _ = 1, 4 do world:update(0.5) end -- slow's agent holds the well
    local b = fast:spawn { start = { done = false }, x = 5, y = 5 }
    for _ = 1, 4 do world:update(0.5) end
    assert.is_false(b:get("done")) -- the well is full
    slow:close()
    local s = world:save() -- raised: place 0 has 1 reservations but the crowds given hold 0
    assert.same({}, world:load(s))
    for _ = 1, 40 do world:update(0.5) end
    assert.is_true(b:get("done"))
  end)

  it("is left by the sensors that sense it: they read 'not sensed'", function()
    local world = town()
    local bandits = world:crowd(saspu.domain(WORKER), {})
    bandits:spawn { start = { done = false }, x = 5, y = 5 }
    local sheriffs = world:crowd(saspu.domain(WATCHER), {},
                                 { sensors = { bandit_near = { near = bandits, r = 3 } } })
    local s = sheriffs:spawn { start = { bandit_near = false, done = true }, x = 5, y = 6 }
    world:update(0.1)
    assert.is_true(s:get("bandit_near"))
    bandits:close()
    world:update(0.1)
    assert.is_false(s:get("bandit_near"))
    for _, a in ipairs(world:near(5, 5, 3)) do assert.equal(sheriffs, a:crowd()) end
  end)

  it("is left by the chases toward its agents, sensed or not: they fail with target_gone", function()
    local world = town()
    local bandits = world:crowd(saspu.domain(WORKER), {})
    local bandit = bandits:spawn { start = { done = false }, x = 10, y = 10 }
    local sheriffs = world:crowd(saspu.domain(WATCHER), {
      actions = { work = { at = { agent = bandit, reach = 0 }, duration = 1 } }, goals = GOALS },
      { speed = 1, sensors = { bandit_near = { near = bandits, r = 1 } } })
    local s = sheriffs:spawn { start = { bandit_near = false, done = false }, x = 1, y = 1 }
    for _ = 1, 3 do world:update(0.5) end
    bandits:close()
    local seen = {}
    for _ = 1, 4 do
      world:update(0.5)
      for _, l in ipairs(events_of(world, sheriffs)) do seen[#seen + 1] = l end
    end
    assert.is_true(has(seen, "step_failed target_gone"), table.concat(seen, ", "))
    assert.is_false(s:get("done"))
  end)
end)

describe("closing a world", function()
  it("closes its crowds: every handle then raises closed", function()
    local world = town { { name = "well", x = 5, y = 5 } }
    local crowd = world:crowd(saspu.domain(WORKER), { actions = { work = { at = "well", duration = 5 } },
                                                     goals = GOALS })
    local a = crowd:spawn { start = { done = false } }
    world:update(0.5)
    world:close()
    assert.is_false(crowd:is_open())
    assert.is_false(a:is_open())
    assert.error_matches(function() a:get("done") end, "closed", 1, true)
    assert.error_matches(function() a:set("done", true) end, "closed", 1, true)
    assert.error_matches(function() a:position() end, "closed", 1, true)
    assert.error_matches(function() crowd:size() end, "closed", 1, true)
    assert.error_matches(function() crowd:update(0.1) end, "closed", 1, true)
    crowd:close() -- again: nothing
    world:close()
  end)

  it("closes crowds that sense each other", function()
    local world = town()
    local bandits = world:crowd(saspu.domain(WORKER), {})
    bandits:spawn { start = { done = false }, x = 5, y = 5 }
    local sheriffs = world:crowd(saspu.domain(WATCHER), {},
                                 { sensors = { bandit_near = { near = bandits, r = 3 } } })
    sheriffs:spawn { start = { bandit_near = false, done = true }, x = 5, y = 6 }
    world:update(0.1)
    world:close()
    assert.is_false(bandits:is_open())
    assert.is_false(sheriffs:is_open())
    collectgarbage()
  end)
end)

-- A world of one scripted crowd of three agents whose behaviour `make(crowd)` gives;
-- runs `frames` updates (each calls between(crowd, frame) first when given).
local function scripted(make, between, frames)
  local world = town { { name = "well", x = 5, y = 5 } }
  local holder = {}
  local crowd = world:crowd(saspu.domain(WORKER), make(holder))
  holder.crowd = crowd
  for k = 1, 3 do crowd:spawn { start = { done = false }, x = k, y = 1 } end
  for frame = 1, frames or 40 do
    if between then between(crowd, frame) end
    world:update(0.25)
  end
  return world, crowd
end

-- The world saves, loads its own save and runs on; with `same` it saves the same bytes
-- again (a `run` script restarts at a load, so only a world without one does).
local function saves_and_loads(world, same)
  local s = world:save()
  assert.same({}, world:load(s))
  if same then assert.equal(s, world:save()) end
  for _ = 1, 20 do world:update(0.25) end
end

describe("an agent despawned inside its own script", function()
  local cases = {
    { "its duration function", function()
      return { actions = { work = { duration = function(a)
        if a:index() == 1 then a:despawn() end
        return 1
      end } }, goals = GOALS }
    end },
    { "its run script before the first wait", function()
      return { actions = { work = { run = function(a, wait)
        if a:index() == 1 then a:despawn() end
        wait(1)
      end } }, goals = GOALS }
    end },
    { "its run script after a wait", function()
      return { actions = { work = { run = function(a, wait)
        wait(0.5)
        if a:index() == 1 then a:despawn() end
        wait(1)
      end } }, goals = GOALS }
    end },
    { "another agent's run script while it waits", function(holder)
      return { actions = { work = { run = function(a, wait)
        wait(0.5)
        if a:index() == 2 then holder.crowd:despawn(1) end
        wait(1)
      end } }, goals = GOALS }
    end },
    { "its on_start hook", function()
      return { actions = { work = { duration = 1, on_start = function(a)
        if a:index() == 1 then a:despawn() end
      end } }, goals = GOALS }
    end },
    { "its on_start hook that then raises", function()
      return { actions = { work = { duration = 1, on_start = function(a)
        if a:index() == 1 then a:despawn() error("gone") end
      end } }, goals = GOALS }
    end },
    { "a function at", function()
      return { actions = { work = { duration = 1, at = function(a)
        if a:index() == 1 then a:despawn() end
        return "well"
      end } }, goals = GOALS }
    end },
    { "select", function()
      return { actions = { work = { duration = 1 } }, select = function(a)
        if a:index() == 1 then a:despawn() end
        return "finished"
      end }
    end },
  }
  for _, case in ipairs(cases) do
    it("(" .. case[1] .. ") leaves no record: the updates, the save and the load go on", function()
      local world, crowd = scripted(case[2])
      assert.equal(2, crowd:size())
      saves_and_loads(world)
    end)
  end

  it("(crowd:despawn(i) between frames while its run script waits) leaves no record", function()
    local world, crowd = scripted(function()
      return { actions = { work = { run = function(_, wait) wait(5) end } }, goals = GOALS }
    end, function(crowd, frame)
      if frame == 3 then crowd:despawn(1) end
    end)
    assert.equal(2, crowd:size())
    saves_and_loads(world)
  end)

  it("(crowd:despawn(i) between frames, then a save) saves no timing of it", function()
    local world, crowd = scripted(function()
      return { actions = { work = { duration = function() return 50 end } }, goals = GOALS }
    end, nil, 3)
    crowd:despawn(1)
    saves_and_loads(world, true)
  end)

  if _VERSION ~= "Lua 5.1" then -- tables have finalizers from 5.2 on
    it("(a finalizer during the update) leaves no record", function()
      local world, crowd = scripted(function(holder)
        return { actions = { work = { run = function(a, wait)
          if a:index() == 1 then
            local victim = holder.crowd:agent(1)
            setmetatable({}, { __gc = function() if victim:alive() then victim:despawn() end end })
            collectgarbage()
          end
          wait(1)
        end } }, goals = GOALS }
      end)
      assert.equal(2, crowd:size())
      saves_and_loads(world)
    end)
  end
end)

describe("a failed load", function()
  it("changes nothing: a script part naming a despawned slot is refused before the C part is applied", function()
    local function make()
      local world = town()
      local crowd = world:crowd(saspu.domain(WORKER), {
        actions = { work = { duration = function() return 100 end } }, goals = GOALS })
      for k = 1, 2 do crowd:spawn { start = { done = false }, x = k, y = 1 } end
      for _ = 1, 2 do world:update(0.5) end -- both wait in their step, timed by Lua
      assert.matches("n2;n1;n1;", save_bytes.script_part(world:save()), 1, true) -- (2 records)
      return world, crowd
    end
    local w1 = make()
    local w2, c2 = make()
    c2:despawn(2)
    local bad = save_bytes.with_script_part(w2:save(), save_bytes.script_part(w1:save()))
    local w3 = make()
    w3:update(0.5)
    local before = w3:save()
    local ok, err = pcall(w3.load, w3, bad)
    assert.is_false(ok)
    assert.matches("agent 2 was despawned", tostring(err), 1, true)
    assert.equal(before, w3:save())
  end)
end)
