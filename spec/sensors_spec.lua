-- spec/sensors_spec.lua: a crowd's `sensors` (near = crowd, near_kind = place kind, r, period): boolean variables the C update keeps equal to a brute-force scan, that act as world changes, with clear errors.
local saspu = require "saspu"
local scatter = require "support.scatter"
local rng, cheb = scatter.rng, scatter.cheb

local WATCHER = {
  name = "watcher",
  variables = {
    { name = "bandit_near", values = { false, true } },
    { name = "saloon_near", values = { false, true } },
    { name = "alert", values = { "calm", "armed" } },
  },
  actions = {
    { name = "arm", var = "alert", pre = "calm", post = "armed", prevail = { bandit_near = true } },
    { name = "relax", var = "alert", pre = "armed", post = "calm", prevail = { bandit_near = false } },
  },
  goals = {},
}

-- A 30x20 field with two saloons; bandits and sheriffs spread at random.
local function field(seed, nb, ns, sensor_opts)
  local rand = rng(seed)
  local world = saspu.world { grid = saspu.grid(30, 20), places = {
    { name = "s1", kind = "saloon", x = 5, y = 5 }, { name = "s2", kind = "saloon", x = 25, y = 15 } } }
  local citizen = saspu.domain_file("domains/citizen.lua")
  local bandits = world:crowd(citizen, {}, { capacity = nb + 10 })
  local bl = scatter.spawn(bandits, nb, "start_of_day", rand, 30, 20)
  local dom = saspu.domain(WATCHER)
  local sensors = sensor_opts or { bandit_near = { near = bandits, r = 3 }, saloon_near = { near_kind = "saloon", r = 2 } }
  local sheriffs = world:crowd(dom, {
    actions = { arm = { duration = 0.5 }, relax = { duration = 0.5 } },
    goals = { { { alert = "armed" }, when = { bandit_near = true } }, { { alert = "calm" }, when = { bandit_near = false } } },
  }, { sensors = sensors, capacity = ns })
  local sl = scatter.spawn(sheriffs, ns, { bandit_near = false, saloon_near = false, alert = "calm" },
                          rand, 30, 20)
  return world, bandits, bl, sheriffs, sl, rand
end

local function any_near(list, x, y, r)
  for _, h in ipairs(list) do
    if h:alive() then
      local bx, by = h:position()
      if cheb(bx, by, x, y) <= r then return true end
    end
  end
  return false
end

describe("sensors", function()
  it("keep a variable equal to 'an agent of that crowd within r' and 'a place of that kind within r'", function()
    local world, _, bandits, _, sheriffs, rand = field(3, 30, 60)
    local saloons = { { 5, 5 }, { 25, 15 } }
    local flips = 0
    for frame = 1, 12 do
      -- move some bandits and sheriffs, despawn a bandit now and then
      for _ = 1, 8 do
        local b = bandits[rand(1, #bandits)]
        if b:alive() then b:teleport(rand(1, 30), rand(1, 20)) end
        sheriffs[rand(1, #sheriffs)]:teleport(rand(1, 30), rand(1, 20))
      end
      if frame % 4 == 0 and bandits[frame]:alive() then bandits[frame]:despawn() end
      world:update(0.25)
      for _, s in ipairs(sheriffs) do
        local x, y = s:position()
        local want = any_near(bandits, x, y, 3)
        assert.equal(want, s:get("bandit_near"), string.format("frame %d sheriff %d", frame, s:index()))
        local sal = false
        for _, p in ipairs(saloons) do sal = sal or cheb(p[1], p[2], x, y) <= 2 end
        assert.equal(sal, s:get("saloon_near"))
        if want then flips = flips + 1 end
      end
    end
    assert.is_true(flips > 20, "some bandits were near")
  end)

  it("act like a world change: only the agents whose value changed react", function()
    local world, _, bandits, _, sheriffs = field(5, 1, 3, nil)
    bandits[1]:teleport(1, 1)
    for i, s in ipairs(sheriffs) do s:teleport(10 + 5 * i, 10) end
    for _ = 1, 4 do world:update(0.25) end
    for ev in world:events() do error("nothing should happen, got " .. ev.kind) end
    bandits[1]:teleport(16, 11) -- near sheriff 1 (at 15, 10) only
    world:update(0.25)
    local seen = {}
    for ev in world:events() do
      if ev.crowd == sheriffs[1]:crowd() then seen[ev.agent:index()] = (seen[ev.agent:index()] or "") .. ev.kind .. " " end
    end
    assert.equal(true, sheriffs[1]:get("bandit_near"))
    assert.matches("goal_chosen", seen[1] or "")
    assert.is_nil(seen[2])
    assert.is_nil(seen[3])
    for _ = 1, 4 do world:update(0.25) end
    assert.equal("armed", sheriffs[1]:get("alert"))
  end)

  it("read every `period` seconds", function()
    local world = saspu.world { grid = saspu.grid(20, 20) }
    local bandits = world:crowd(saspu.domain_file("domains/citizen.lua"), {})
    local b = bandits:spawn { start = "start_of_day", x = 1, y = 1 }
    local sheriffs = world:crowd(saspu.domain(WATCHER), {}, { sensors = { bandit_near = { near = bandits, r = 2, period = 1 } } })
    local s = sheriffs:spawn { start = { bandit_near = false, saloon_near = false, alert = "calm" }, x = 10, y = 10 }
    world:update(0.25) -- the first reading
    b:teleport(10, 11)
    local seen = {}
    for f = 1, 6 do
      world:update(0.25)
      seen[f] = s:get("bandit_near")
    end
    -- read before a frame moves the clock: at 0, then at 1.0 (the 5th update); 0.25 to 0.75 wait
    assert.same({ false, false, false, true, true, true }, seen)
  end)

  it("are saved with the world (the next reading included)", function()
    local function run(save_at)
      local world, _, bl, _, sl = field(7, 10, 10, nil)
      local trace = {}
      for f = 1, 10 do
        if f == save_at then
          local s = world:save()
          world, _, bl, _, sl = field(7, 10, 10, nil)
          world:load(s)
        end
        bl[f]:teleport(sl[f]:position())
        world:update(0.25)
        for ev in world:events() do trace[#trace + 1] = f .. ev.kind .. ev.agent:index() end
        trace[#trace + 1] = tostring(sl[f]:get("bandit_near"))
      end
      return trace
    end
    assert.same(run(nil), run(4))
  end)

  it("refuse bad sensors and a:set of a sensed variable, naming them", function()
    local world = saspu.world { grid = saspu.grid(10, 10), places = { { name = "s", kind = "saloon", x = 2, y = 2 } } }
    local other = saspu.world { grid = saspu.grid(10, 10) }
    local dom = saspu.domain(WATCHER)
    local cit = saspu.domain_file("domains/citizen.lua")
    local bandits = world:crowd(cit, {})
    local stranger = other:crowd(cit, {})
    local function crowd(sensors) return function() world:crowd(dom, {}, { sensors = sensors }) end end
    assert.error_matches(crowd { bandit_nearby = { near = bandits, r = 1 } },
      "saspu.World:crowd: sensors.bandit_nearby: unknown variable 'bandit_nearby' of 'watcher'", 1, true)
    assert.error_matches(crowd { alert = { near = bandits, r = 1 } },
      "saspu.World:crowd: sensors.alert: sensor of variable 'alert': an action changes it", 1, true)
    assert.error_matches(crowd { bandit_near = { near = bandits, near_kind = "saloon", r = 1 } },
      "sensors.bandit_near: expected near = a crowd or near_kind = a place kind, one of them", 1, true)
    assert.error_matches(crowd { bandit_near = { near = stranger, r = 1 } },
      "sensors.bandit_near.near: expected a crowd of this world", 1, true)
    assert.error_matches(crowd { bandit_near = { near_kind = "church", r = 1 } },
      "sensors.bandit_near.near_kind: no place of kind 'church'", 1, true)
    assert.error_matches(crowd { bandit_near = { near = bandits, r = -1 } },
      "sensors.bandit_near.r: expected a number of cells >= 0, got -1", 1, true)
    assert.error_matches(crowd { bandit_near = { near = bandits, r = 1, period = -2 } },
      "sensors.bandit_near.period: expected seconds >= 0, got -2", 1, true)
    assert.error_matches(crowd { bandit_near = { near = bandits, radius = 1 } },
      "sensors.bandit_near: unknown field 'radius'", 1, true)
    local armed = saspu.domain { name = "armed", variables = WATCHER.variables, goals = {},
      actions = { { name = "spot", var = "bandit_near", pre = false, post = true } } }
    assert.error_matches(function() world:crowd(armed, {}, { sensors = { bandit_near = { near = bandits, r = 1 } } }) end,
      "an action changes it (the sensor sets it)", 1, true)
    local ok = world:crowd(dom, {}, { sensors = { bandit_near = { near = bandits, r = 1 } } })
    local a = ok:spawn { start = { bandit_near = false, saloon_near = false, alert = "calm" }, x = 5, y = 5 }
    assert.error_matches(function() a:set("bandit_near", true) end,
      "saspu.Agent:set: variable 'bandit_near' is a sensor's (the update sets it)", 1, true)
    a:set("saloon_near", true) -- not a sensor here
  end)

  it("keep a sensed crowd's agents until the sensing crowd closes", function()
    local world, bandit_crowd, _, sheriff_crowd, sheriffs = field(9, 5, 5)
    bandit_crowd:close()
    world:update(0.25) -- reads the closed crowd's last positions, without a crash
    assert.is_boolean(sheriffs[1]:get("bandit_near"))
    sheriff_crowd:close()
    collectgarbage()
    collectgarbage()
  end)
end)
