-- spec/save_spec.lua: world:save() / world:load(s): a Western town with hooks and scripted steps resumes the same events after a round trip; bad saves are refused by name and change nothing.
local saspu = require "saspu"
local town = require "saspu.town"
local docs = require "support.docs"
local rng = require("support.draws").rng

local CLASSES = { "farrier", "innkeeper", "bandit", "horse_breeder", "native_hunter" }

local function load_class(name)
  local cls = assert(loadfile("domains/town/behaviours/" .. name .. ".lua"))()
  cls.name = name
  return cls
end

-- The town as game code builds it: the same calls give the same world. Hooks decide
-- only from the agent's own state, so a loaded world runs them the same way; the
-- farrier's quench is timed by Lua (a duration function), the innkeeper's payment is a
-- `run` script that ends without waiting, and the bandit's threat fails now and then.
local function build(seed, per_class)
  local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
  local places = {}
  for k, p in ipairs(t.places) do
    places[k] = { name = p.name, kind = p.kind, x = p.x, y = p.y, capacity = p.capacity }
  end
  local world = saspu.world { grid = town.grid(t), places = places }
  local crowds = {}
  for k, name in ipairs(CLASSES) do
    local cls = load_class(name)
    local dom = saspu.domain_file("domains/" .. cls.domain .. ".lua")
    local beh = cls.behaviour
    if name == "farrier" then
      beh.actions.quench_shoe.duration = function(agent) return 40 + agent:index() % 3 * 20 end
      beh.actions.tie_horse.on_finish = function(agent)
        if agent:index() % 2 == 0 then agent:set("horse", "waiting") end
      end
    elseif name == "innkeeper" then
      beh.actions.take_payment.duration = nil
      beh.actions.take_payment.run = function(agent) agent.data.paid = (agent.data.paid or 0) + 1 end
    elseif name == "bandit" then
      beh.actions.threaten_teller.on_start = function(agent)
        if agent:index() % 3 == 0 and agent:get("gun") == "drawn" then error("the teller ducks") end
      end
    end
    local c = world:crowd(dom, beh, { capacity = per_class + 4, seed = seed * 31 + k, speed = 2,
                                      retry = 60, cooldown = 60 })
    local r = rng(seed * 10 + k)
    for _ = 1, per_class do
      local p = t.places[r(#t.places)]
      c:spawn { start = cls.start, x = p.x, y = p.y }
    end
    crowds[k] = { crowd = c, dom = dom, vars = dom:variables() }
  end
  return world, crowds
end

-- Frames of dt = 30 s: every event as text, then random world changes from `r`.
local function run(world, crowds, r, frames, log)
  for _ = 1, frames do
    world:update(30)
    for ev in world:events() do
      if log then
        log[#log + 1] = table.concat({ tostring(ev.agent:index()), ev.kind, tostring(ev.action),
                                       tostring(ev.goal), tostring(ev.reason), tostring(ev.detail),
                                       tostring(ev.place) }, " ")
      end
    end
    for _, c in ipairs(crowds) do
      local n = c.crowd:size()
      if r(4) == 1 then
        local var = c.vars[r(#c.vars)]
        c.crowd:agent(r(n)):set(var.name, var.values[r(#var.values)])
      end
    end
  end
end

local function count(log, kind)
  local n = 0
  for _, e in ipairs(log) do
    if e:find(" " .. kind .. " ", 1, true) then n = n + 1 end
  end
  return n
end

describe("world:save and world:load", function()
  it("run the guide's example as printed (docs/saves.md)", function()
    local lines = docs.example("docs/saves.md", "# Saving and loading a world")
    assert.equal("1122\t5", lines[1])
    assert.equal("false\tsaspu.World:load: saved world: truncated at byte 600 in crowd 1 'citizen'",
                 lines[2])
  end)

  it("resume the same events as an uninterrupted run, and save the same bytes", function()
    local all = {}
    for seed = 1, 3 do
      local wa, ca = build(seed, 6)
      local r = rng(seed)
      run(wa, ca, r, 40 + seed * 7)
      local saved = wa:save()
      local after = r(1000) -- the world changes after the save: the same draws in A and B
      local a_log, b_log = {}, {}
      local ra, rb = rng(after), rng(after)
      run(wa, ca, ra, 80, a_log)
      local wb, cb = build(seed, 6)
      run(wb, cb, rng(99), 5) -- B lives a little first: the load replaces it
      wb:load(saved)
      run(wb, cb, rb, 80, b_log)
      assert.same(a_log, b_log)
      assert.equal(wa:save(), wb:save())
      for _, e in ipairs(a_log) do all[#all + 1] = e end
    end
    -- the runs walked, acted, failed steps in hooks and ran scripts
    assert.is_true(count(all, "arrived") > 50)
    assert.is_true(count(all, "step_finished") > 100)
    assert.is_true(count(all, "step_failed") > 3)
    assert.is_true(count(all, "waiting") > 10)
  end)

  it("restart a run script in progress from its beginning", function()
    local world = saspu.world { grid = saspu.grid(8, 8) }
    local dom = saspu.domain_file("domains/citizen.lua")
    local begun = 0
    local beh = { actions = { work = { run = function(_, wait) begun = begun + 1 wait(5) end } },
                  goals = { { "work" } } }
    local c = world:crowd(dom, beh)
    c:spawn { start = "start_of_day" }
    for _ = 1, 4 do world:update(1) end
    assert.equal(1, begun)
    local s = world:save()
    local world2 = saspu.world { grid = saspu.grid(8, 8) }
    local c2 = world2:crowd(dom, beh)
    c2:spawn { start = "start_of_day" }
    world2:load(s)
    assert.equal(1, begun)
    local finished = false
    for _ = 1, 10 do
      world2:update(1)
      for ev in world2:events() do
        if ev.kind == "step_finished" and ev.action == "work" then finished = true end
      end
    end
    assert.equal(2, begun) -- the script ran again from its start
    assert.is_true(finished)
  end)

  it("refuse bad saves by name and leave the world as it was", function()
    local w, crowds = build(4, 3)
    run(w, crowds, rng(4), 20)
    local good = w:save()
    local w2, c2 = build(4, 3)
    run(w2, c2, rng(5), 10)
    local before = w2:save()
    local function refused(s, text)
      assert.error_matches(function() w2:load(s) end, text, 1, true)
      assert.equal(before, w2:save())
    end
    refused(good:sub(1, 20), "saspu.World:load: saved world: truncated at byte 20 in the header")
    refused(good:sub(1, #good - 10), "saspu.World:load: saved world: truncated at byte")
    refused(good:sub(1, 40) .. string.char((good:byte(41) + 1) % 256) .. good:sub(42),
            "saspu.World:load: saved world: checksum mismatch")
    local version = good:byte(9) -- a newer format than this saspu reads
    refused(good:sub(1, 8) .. string.char(version + 1) .. good:sub(10),
            ("format version %d, this saspu reads 5 to %d"):format(version + 1, version))
    refused("not a save at all, but long enough to have a header", "not a saspu save")
    for cut = 0, #good - 1, 97 do
      assert.has_error(function() w2:load(good:sub(1, cut)) end)
    end
    assert.equal(before, w2:save())
    assert.error_matches(function() w2:load(42) end, "saspu.World:load: expected a string, got number", 1, true)
    -- a world built another way
    local w3 = build(5, 3)
    assert.error_matches(function() w3:load(good) end,
      "saved world: crowd 1 'farrier': action behaviours or crowd options (seed, speed, cooldown, retry, movement) differ",
      1, true)
    local w4 = saspu.world { grid = saspu.grid(4, 4) }
    assert.error_matches(function() w4:load(good) end,
      "saved world: the world: the grid (size or cells) differs from the saved one", 1, true)
    w2:load(good)
    assert.equal(good, w2:save())
  end)

  it("carry goals added with the low-level add_goal, named by index, and short name lists", function()
    local dom = saspu.domain_file("domains/citizen.lua")
    local function make()
      local world = saspu.world { grid = saspu.grid(8, 8) }
      local c = world:crowd(dom, { goals = { { "work" } } })
      for _ = 1, 3 do c:spawn { start = "start_of_day" } end
      assert.equal(2, c:add_goal(c:state(1), 3))
      assert.equal(3, c:add_goal(c:state(2), 2))
      return world, c
    end
    local w, c = make()
    assert.same({ "work", "goal 2", "goal 3" }, c:goal_names())
    for _ = 1, 5 do w:update(1) end
    local s = w:save()
    local w2, c2 = make()
    w2:load(s)
    assert.equal(s, w2:save())
    assert.same({ "work", "goal 2", "goal 3" }, c2:goal_names())
    -- the C part reads a name per place and per goal: lists shorter than that (or with
    -- holes) take the default names, never memory past their end
    local core = require "saspu.core"
    local short = core.world_save(w, { c }, "", {}, { { "work" } })
    local none = core.world_save(w, { c }, "", nil, nil)
    assert.equal(#short + #"goal 1" - #"work", #none) -- only goal 1's name differs
    assert.is_truthy(short:find("work", 1, true))
    assert.is_truthy(short:find("goal 2", 1, true))
  end)
end)
