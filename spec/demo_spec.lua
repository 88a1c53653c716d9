-- spec/demo_spec.lua: the town demo (tools/demo.lua) headless on a small crowd, the behaviour tables of domains/town/behaviours/, and a goal reached by every class.
local saspu = require "saspu"
local town = require "saspu.town"

local demo = assert(loadfile("tools/demo.lua"))("--module")

local function have_gnuplot()
  local ok = os.execute("command -v gnuplot >/dev/null 2>&1")
  return ok == true or ok == 0
end

-- A world of the town map with its places (capacities as drawn).
local function town_world()
  local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
  local places = {}
  for k, p in ipairs(t.places) do
    places[k] = { name = p.name, kind = p.kind, x = p.x, y = p.y, capacity = p.capacity }
  end
  return saspu.world { grid = town.grid(t), places = places }, t
end

-- A crowd of class `name` in the town world: n agents at dawn by the stables.
local function class_crowd(name, seed, n)
  local world = town_world()
  local cls = demo.load_class(name)
  local dom = saspu.domain_file("domains/" .. name .. ".lua")
  local crowd = world:crowd(dom, cls.behaviour, { speed = demo.SPEED, seed = seed })
  for _ = 1, n do crowd:spawn { start = "dawn", x = 30, y = 100 } end
  return world, crowd, require("saspu.core").event_kinds()
end

describe("tools/demo.lua", function()
  it("reads its options and refuses bad ones with the option's name", function()
    local o = assert(demo.parse_args { "--npcs", "50", "--frames", "10", "--quiet", "--start", "18.5" })
    assert.equal(50, o.npcs)
    assert.equal(10, o.frames)
    assert.equal(18.5, o.start)
    assert.is_true(o.quiet)
    local _, err = demo.parse_args { "--npcs", "many" }
    assert.equal("--npcs expects a whole number >= 0, got 'many'", err)
    _, err = demo.parse_args { "--npcs", "3" }
    assert.equal("--npcs must be at least 7 (one NPC per class)", err)
    _, err = demo.parse_args { "--fast" }
    assert.equal("unknown option '--fast' (--help lists them)", err)
    _, err = demo.parse_args { "--start", "24" }
    assert.equal("--start expects a game hour in [0, 24), got '24'", err)
  end)

  it("maps frames to the game clock: 30 game seconds a frame, one day in 2,880 frames", function()
    demo.START_HOUR = 5
    assert.equal("05:00", demo.clock(0))
    assert.equal("06:00", demo.clock(120))
    assert.equal("05:00", demo.clock(demo.FRAMES))
    assert.equal(120, demo.frame_of(6))
  end)

  it("runs 70 NPCs for 200 frames: every class plans and finishes steps, pictures when gnuplot is there", function()
    local out = os.tmpname()
    os.remove(out)
    local lines = {}
    local s = demo.run({ npcs = 70, frames = 200, seed = 3, threads = 1, every = 100, start = 18.5,
                         out = out, quiet = false }, function(l) lines[#lines + 1] = l end)
    assert.equal(3, #lines) -- the header and one line per 100 frames
    assert.matches("^saspu town: 70 NPCs of 7 classes", lines[1])
    assert.matches("^19:20 f100 ", lines[2])
    local agents = 0
    for _, name in ipairs(demo.CLASSES) do
      local c = s.classes[name]
      assert.is_true(c.plans > 0, name .. " made no plan")
      assert.is_true(c.steps > 0, name .. " finished no step")
      assert.equal(0, c.no_plans, name)
      agents = agents + c.agents
    end
    assert.equal(70, agents)
    assert.equal(200, #s.ms)
    -- the bandits are armed at once (their 13:00 change is due before 18:30) and rob the bank
    assert.is_true(s.total.robberies > 0)
    local report = table.concat(demo.report(s), "\n")
    assert.matches("drunk_citizen%s+33", report)
    assert.matches("200 frames %(game clock 18:30 to 20:10%)", report)
    if have_gnuplot() then
      -- 19:00 is a snapshot hour; the last frame is always drawn; then ms per frame
      assert.same({ out .. "/town_1900.png", out .. "/town_2010.png", out .. "/ms_per_frame.png" },
                  s.pictures)
      for _, p in ipairs(s.pictures) do
        local f = assert(io.open(p, "rb"))
        assert.equal("\137PNG", f:read(4))
        f:close()
      end
    else
      assert.same({}, s.pictures)
    end
    -- the day is recorded, and its inspector page written
    assert.equal(out .. "/day.trace", s.trace.path)
    local t = require("saspu.trace").open(s.trace.path)
    assert.same({}, t.problems)
    assert.equal(200, t.frame_count)
    assert.equal(s.trace.stats.events, t.event_count)
    local f = assert(io.open(out .. "/inspector.html"))
    assert.truthy(f:read("*a"):find("saspu inspector", 1, true))
    f:close()
    os.execute("rm -rf '" .. out .. "'")
  end)
end)

describe("tools/demo.lua timers", function()
  -- n frames of a seeded town; forced = true runs the timers one to a number.
  local function day(frames, forced)
    local sim = demo.build { npcs = 140, threads = 1, seed = 3, start = 7 }
    if forced then sim.paired, sim.timer_span = false, 2 ^ 32 end
    local changes, phases, st = {}, {}, {}
    for f = 1, frames do
      local acc = demo.new_acc()
      demo.step(sim, f, acc)
      changes[f] = acc.changes
    end
    for k, cls in ipairs(sim.classes) do
      cls.crowd:stats(st)
      phases[k] = { st.plans, st.steps_finished, st.idle, st.acting, st.walking }
    end
    return sim, changes, phases
  end

  -- The numbers pending and those holding two timers.
  local function pending(sim)
    local numbers, two = 0, 0
    for _, list in pairs(sim.timers) do
      for _, v in ipairs(list) do
        numbers = numbers + 1
        if v >= 2 ^ 32 then two = two + 1 end
      end
    end
    return numbers, two
  end

  it("keeps two timers in one number where integers have 64 bits, with the same day", function()
    local paired, changes, phases = day(150)
    local single, changes1, phases1 = day(150, true)
    assert.same(changes1, changes)
    assert.same(phases1, phases)
    local numbers, two = pending(paired)
    local timers = pending(single)
    if math.tointeger == nil then -- Lua 5.1, 5.2, LuaJIT: one to a number
      assert.equal(timers, numbers)
      return
    end
    assert.is_true(paired.paired)
    assert.is_true(two > 0)
    assert.equal(timers, numbers + two)
  end)
end)

describe("domains/town/behaviours", function()
  for _, name in ipairs(demo.CLASSES) do
    it(name .. " loads into a crowd on the town map and reaches a goal", function()
      local cls = demo.load_class(name)
      local world = town_world()
      local dom = saspu.domain_file("domains/" .. cls.domain .. ".lua")
      local crowd = world:crowd(dom, cls.behaviour, { speed = demo.SPEED, seed = 1 })
      local starts = {}
      for _, p in ipairs(select(2, town_world()).places) do
        if p.kind == cls.spawn then starts[#starts + 1] = p end
      end
      assert.is_true(#starts > 0, "no place of the spawn kind " .. tostring(cls.spawn))
      for k = 1, 3 do
        local p = starts[(k - 1) % #starts + 1]
        local a = crowd:spawn { start = cls.start, x = p.x, y = p.y }
        -- the clock's changes at once: the bandit's gun, the dancer's music
        for _, e in ipairs(cls.clock or {}) do
          if e.hour < 24 then
            for var, value in pairs(e.set) do a:set(var, value) end
          end
        end
      end
      local reached, kinds = 0, {}
      for _ = 1, 600 do -- five game hours
        world:update(demo.DT)
        for ev in world:events() do
          kinds[ev.kind] = true
          if ev.kind == "goal_reached" then reached = reached + 1 end
        end
        if reached > 0 then break end
      end
      assert.is_true(reached > 0, name .. " reached no goal in five game hours")
      assert.is_nil(kinds.no_plan)
    end)
  end

  it("names the file and the bad value of a world change", function()
    local cls = demo.load_class("farrier")
    cls.reached.shoe_horse.set.horse = "flying"
    local load_class = demo.load_class
    demo.load_class = function(name) return name == "farrier" and cls or load_class(name) end
    local ok, err = pcall(demo.build, { npcs = 7, seed = 1, threads = 1 })
    demo.load_class = load_class
    assert.is_false(ok)
    assert.matches("domains/town/behaviours/farrier.lua: reached.shoe_horse: horse = flying is not "
                   .. "a variable/value of the domain", err, 1, true)
  end)
end)

describe("crowd:next_event", function()
  it("visits exactly the events of the kinds asked for, with c:event's values", function()
    local world, crowd, kinds = class_crowd("innkeeper", 2, 4)
    local mask = kinds.step_finished + kinds.goal_reached
    local seen = 0
    for _ = 1, 60 do
      world:update(demo.DT)
      local want = {}
      for k = 1, crowd:event_count() do
        local _, kind = crowd:event(k)
        if kind == "step_finished" or kind == "goal_reached" then want[#want + 1] = k end
      end
      local got, e = {}, 0
      while true do
        local k = crowd:next_event(e + 1, mask)
        if not k then break end
        assert.same({ crowd:event(k) }, { select(2, crowd:next_event(k, mask)) })
        got[#got + 1], e = k, k
      end
      assert.same(want, got)
      seen = seen + #got
    end
    assert.is_true(seen > 0)
  end)
end)

describe("crowd:events_of", function()
  it("gives the events of the kinds asked for, in order, five entries each as c:event has them", function()
    local world, crowd, kinds = class_crowd("farrier", 3, 40)
    local masks = { kinds.step_finished + kinds.replanned, kinds.step_started + kinds.blocked
                    + kinds.step_failed, 0 }
    local out, seen, stale = {}, 0, 0
    for frame = 1, 80 do
      world:update(demo.DT)
      local mask = masks[frame % #masks + 1]
      local want = {}
      for k = 1, crowd:event_count() do
        local agent, kind, reason, _, goal, action = crowd:event(k)
        if kinds[kind] and (mask % (2 * kinds[kind])) >= kinds[kind] then
          for _, v in ipairs { agent, kind, reason or false, goal or false, action or false } do
            want[#want + 1] = v
          end
        end
      end
      local n = crowd:events_of(mask, out)
      assert.equal(#want / 5, n)
      -- entries past 5n are left from an earlier call: compare the first 5n only
      local got = {}
      for j = 1, 5 * n do got[j] = out[j] end
      assert.same(want, got)
      seen = seen + n
      if #out > 5 * n then stale = stale + 1 end
    end
    assert.is_true(seen > 100)
    assert.is_true(stale > 0) -- a shorter frame after a longer one was read
    assert.error_matches(function() crowd:events_of(1) end, "table expected", 1, true)
    assert.error_matches(function() crowd:events_of(1, out, { 0 }) end, "actions[1] is not an action id",
                         1, true)
  end)

  it("keeps, given a list of actions, the events of those actions and the events of none", function()
    local world, crowd, kinds = class_crowd("farrier", 4, 40)
    local mask = kinds.step_started + kinds.step_finished + kinds.goal_reached + kinds.replanned
    local out, seen, dropped = {}, 0, 0
    for frame = 1, 160 do -- waits for a full place are quiet: enough events takes longer
      world:update(demo.DT)
      local keep = { frame % 5 + 1, frame % 3 + 2 }
      local want = {}
      for k = 1, crowd:event_count() do
        local agent, kind, reason, _, goal, action = crowd:event(k)
        if kinds[kind] and (mask % (2 * kinds[kind])) >= kinds[kind] then
          if not action or action == keep[1] or action == keep[2] then
            for _, v in ipairs { agent, kind, reason or false, goal or false, action or false } do
              want[#want + 1] = v
            end
          else
            dropped = dropped + 1
          end
        end
      end
      local n = crowd:events_of(mask, out, keep)
      local got = {}
      for j = 1, 5 * n do got[j] = out[j] end
      assert.same(want, got)
      seen = seen + n
    end
    assert.is_true(seen > 50 and dropped > 50)
    crowd:close()
    assert.error_matches(function() crowd:events_of(1, {}) end, "saspu.Crowd: closed", 1, true)
  end)
end)

describe("tools/demo_pictures.lua", function()
  local pictures = assert(loadfile("tools/demo_pictures.lua"))()

  it("names every kind of place on the map once per group, no two labels over each other", function()
    local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
    local labels = pictures.place_labels(t.places)
    local named, kinds = {}, {}
    for _, l in ipairs(labels) do named[l.text] = true end
    for _, p in ipairs(t.places) do kinds[(p.kind:gsub("_", " "))] = true end
    assert.same(kinds, named)
    assert.is_true(#labels < #t.places) -- the ten homes, six inn rooms, ... share labels
    for i, l in ipairs(labels) do
      local others = {}
      for j, o in ipairs(labels) do if j ~= i then others[#others + 1] = o end end
      assert.is_false(pictures.overlaps(l, others), l.text)
    end
  end)

  it("writes pile counts apart from each other and from the place labels, inside the map", function()
    -- the 06:00 saloon of the demo's day: three piles in a row near the left edge
    local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
    local places = pictures.place_labels(t.places)
    local taken = {}
    for i, l in ipairs(places) do taken[i] = l end
    local piles = { { x = 38, y = 106, n = 480, r = 5 }, { x = 32, y = 106, n = 420, r = 5 },
                    { x = 44, y = 106, n = 418, r = 5 }, { x = 50, y = 136, n = 221, r = 5 },
                    { x = 3, y = 2, n = 30, r = 2 } } -- in the map's corner
    local labels = pictures.pile_labels(piles, taken, t.width, t.height)
    assert.is_true(#labels >= 3)
    for i, l in ipairs(labels) do
      local others = {}
      for _, o in ipairs(places) do others[#others + 1] = o end
      for j, o in ipairs(labels) do if j ~= i then others[#others + 1] = o end end
      assert.is_false(pictures.overlaps(l, others, 1), l.text .. " touches another label")
      assert.is_true(l.x - l.w / 2 >= 0.5 and l.x + l.w / 2 <= t.width + 0.5, l.text .. " crosses a side")
      assert.is_true(l.y - l.h / 2 >= 0.5 and l.y + l.h / 2 <= t.height + 0.5, l.text .. " crosses the top or bottom")
    end
  end)

  it("counts every NPC of a crowded cell, and draws a sample of dots", function()
    local world = saspu.world { grid = saspu.grid(8, 8) }
    local dom = saspu.domain_file "domains/horse_breeder.lua"
    local crowd = world:crowd(dom, {})
    for i = 1, 30 do crowd:spawn { start = "morning", x = i <= 25 and 3 or i - 24, y = 2 } end
    local sim = { npcs = 30, classes = { { n = 30, crowd = crowd } } }
    local dir = os.tmpname()
    local saved = pictures.PICTURE_POINTS
    pictures.PICTURE_POINTS = 10
    pictures.write_positions(sim, dir .. "npcs_1200.dat")
    pictures.PICTURE_POINTS = saved
    local dots, cells = 0, {}
    for _ in io.lines(dir .. "npcs_1200.dat") do dots = dots + 1 end
    for line in io.lines(dir .. "cells_1200.dat") do cells[#cells + 1] = line end
    os.remove(dir .. "npcs_1200.dat")
    os.remove(dir .. "cells_1200.dat")
    os.remove(dir)
    assert.equal(10, dots) -- every third NPC
    -- (3, 2) holds the first 25 and the 27th; the 26th, 28th, 29th and 30th stand alone
    local r, a = pictures.disc(26)
    assert.same({ string.format("3 2 26 1 %.2f %d", r, math.floor((1 - a) * 255) * 16777216 + 0x8c510a) },
                cells)
  end)

  it("shades a pile wider and darker the more NPCs share the cell, the radius capped", function()
    local last_r, last_a = 0, 0
    for _, n in ipairs { 2, 4, 16, 64 } do
      local r, a = pictures.disc(n)
      assert.is_true(r > last_r and a > last_a, tostring(n))
      last_r, last_a = r, a
    end
    local r, a = pictures.disc(1000000)
    assert.equal(5, r)
    assert.is_true(a < 1)
  end)

  it("plots ms per frame on a log axis with the median and the 95th percentile", function()
    local frames = {}
    for i = 1, 240 do
      local ms = i % 10 == 0 and 40 or 0.2 + (i % 7) / 100
      frames[i] = { ms = ms, plan = 0, walk = ms * 0.8, lua = ms * 0.1 }
    end
    local totals = {}
    for i, f in ipairs(frames) do totals[i] = f.ms end
    assert.equal(0.23, pictures.quantile(totals, 0.5))
    assert.equal(40, pictures.quantile(totals, 0.95))
    local out = os.tmpname()
    os.remove(out)
    os.execute("mkdir -p '" .. out .. "'")
    local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
    local written = pictures.draw({ npcs = 3, town = t, classes = {} }, out, {}, frames,
                                  { START_HOUR = 5, DT = 30 })
    local f = io.open(out .. "/hours.dat")
    local hours = 0
    for _ in f:lines() do hours = hours + 1 end
    f:close()
    assert.equal(1 + 2 + 1, hours) -- a header, two game hours, the end of the last step
    if have_gnuplot() then
      assert.same({ out .. "/ms_per_frame.png" }, written)
      f = assert(io.open(out .. "/town.gp"))
      local gp = f:read("*a")
      f:close()
      assert.truthy(gp:find("set logscale y", 1, true))
      assert.truthy(gp:find("median of all frames (0.230 ms)", 1, true))
      assert.truthy(gp:find("95th percentile (40.000 ms)", 1, true))
      assert.truthy(gp:find("log scale", 1, true))
      -- the slowest frames are labelled with their cause
      assert.truthy(gp:find(" 40.0 ms: walking\" at ", 1, true))
    end
    os.execute("rm -rf '" .. out .. "'")
  end)
end)
