-- spec/world_threads_spec.lua: saspu.world { threads = n }: one pool for the world's crowds, their passes run together, the same events for any thread count, bad values refused.
local saspu = require "saspu"
local support = require "support.agents"
local compat = require "support.compat"

-- Two crowds of citizens in a world (threads = nil: none), the second with a hook; a
-- crowd with `own` threads as a third. Returns the world, the crowds and the hook count.
local function make(threads, own, ahead)
  local dom = support.citizen()
  local world = saspu.world { grid = saspu.grid(16, 16), threads = threads, wake_ahead = ahead,
                              places = { { name = "market", x = 3, y = 3, capacity = 40 },
                                         { kind = "well", x = 12, y = 12 } } }
  local hooks = { n = 0 }
  local beh = {
    actions = { buy_food = { duration = { 1, 3 }, at = "market" }, work = { duration = { 1, 2 } },
                have_a_walk = { duration = 1, at = { kind = "well" } } },
    goals = { { "work", priority = 2 }, { "buy_supplies", priority = 1 } },
  }
  local hooked = {
    actions = { work = { duration = { 1, 2 } },
                buy_food = { duration = 2, at = "market", on_start = function() hooks.n = hooks.n + 1 end } },
    goals = { { "work", priority = 1 }, { "have_a_meal", priority = 1 } },
  }
  local crowds = { world:crowd(dom, beh, { capacity = 1500, seed = 3 }),
                   world:crowd(dom, hooked, { capacity = 1200, seed = 4 }) }
  if own then
    crowds[3] = world:crowd(dom, beh, { capacity = 1100, seed = 5, threads = own, wake_ahead = ahead })
  end
  local counts = { 1500, 1200, 1100 } -- two chunks of agents each (SP_CROWD_CHUNK 1024)
  for k, c in ipairs(crowds) do
    for i = 1, counts[k] do
      c:spawn { start = "start_of_day", x = (i * 7) % 16 + 1, y = (i * k) % 16 + 1 }
    end
  end
  return world, crowds, hooks
end

-- 30 frames: every event as text, crowd by crowd, and the hook calls.
local function trace(world, crowds, hooks)
  local out = {}
  for f = 1, 30 do
    if f % 10 == 0 then crowds[1]:set_all("working", false) end
    world:update(0.5)
    for ev in world:events() do out[#out + 1] = ev.agent:index() .. support.event_text(ev) end
  end
  out[#out + 1] = "hooks " .. hooks.n
  return table.concat(out, " ")
end

describe("saspu.world { threads = n }", function()
  it("owns one pool that its crowds use unless they name threads", function()
    local world = make(2)
    assert.equal(2, world:threads())
    assert.is_nil(make(nil):threads())
    assert.equal(saspu.cores(), make(0):threads())
  end)

  it("gives the same events for 1, 2 and 4 threads, hooks included", function()
    local base = trace(make(1))
    assert.is_true(#base > 100000)
    assert.is_true(base:find("hooks [1-9]") ~= nil)
    assert.equal(base, trace(make(2)))
    assert.equal(base, trace(make(4)))
  end)

  it("updates crowds on their own pool too, after the shared ones", function()
    local base = trace(make(1, 1))
    assert.equal(base, trace(make(2, 2)))
    -- the third crowd moves like it does alone in a world without a pool
    local _, crowds = make(2, 2)
    local world = crowds[1]:world()
    world:update(0.5)
    assert.is_true(crowds[3]:stats().plans > 0)
  end)

  it("gives the same events with the workers woken ahead of paced frames", function()
    local base = trace(make(1, 1))
    local world, crowds, hooks = make(2, 2, 0.5)
    local out = {}
    for f = 1, 30 do -- 2 ms apart: a steady beat the pools wake ahead of
      local at = saspu.clock_ns() + 2e6
      while saspu.clock_ns() < at do end
      if f % 10 == 0 then crowds[1]:set_all("working", false) end
      world:update(0.5)
      for ev in world:events() do out[#out + 1] = ev.agent:index() .. support.event_text(ev) end
    end
    out[#out + 1] = "hooks " .. hooks.n
    assert.equal(base, table.concat(out, " "))
    assert.equal(base, trace(make(2, 2, 0))) -- 0: off
  end)

  it("refuses a bad wake_ahead, and one without threads of its own", function()
    assert.error_matches(function() saspu.world { threads = 2, wake_ahead = -1 } end,
                         "saspu.world: wake_ahead must be a number of ms from 0 (off) to 1000, got -1", 1, true)
    assert.error_matches(function() saspu.world { threads = 2, wake_ahead = "soon" } end,
                         "wake_ahead must be a number of ms", 1, true)
    assert.error_matches(function() saspu.world { wake_ahead = 0.25 } end,
                         "saspu.world: wake_ahead sets the world's threads: name threads too", 1, true)
    local dom = support.citizen()
    local world = saspu.world { threads = 2 }
    assert.error_matches(function() world:crowd(dom, {}, { wake_ahead = 0.25 }) end,
                         "options.wake_ahead sets the crowd's own threads: name threads too", 1, true)
    assert.error_matches(function() world:crowd(dom, {}, { threads = 2, wake_ahead = 0 / 0 }) end,
                         "options.wake_ahead must be a number in 0..1000", 1, true)
    assert.equal(0, #world:crowds())
  end)

  it("refuses bad thread counts and bad lists", function()
    assert.error_matches(function() saspu.world { threads = -1 } end,
                         "saspu.world: threads must be an integer >= 0 (0: every core), got -1", 1, true)
    assert.error_matches(function() saspu.world { threads = 1.5 } end, "threads must be an integer", 1, true)
    local world, crowds = make(2)
    local other = make(2)
    assert.error_matches(function() other:update_crowds(0.5, { crowds[1] }) end,
                         "list[1] is not an open crowd of this world", 1, true)
    assert.error_matches(function() world:update_crowds(0.5, { crowds[1], "x" }) end,
                         "list[2] is not an open crowd of this world", 1, true)
    assert.error_matches(function() world:update_crowds(0.5, { crowds[1], crowds[1] }) end,
                         "crowd 2 is listed twice (also 1)", 1, true)
    crowds[2]:close()
    assert.error_matches(function() world:update_crowds(0.5, { crowds[2] }) end,
                         "list[1] is not an open crowd of this world", 1, true)
    world:update(0.5) -- closed crowds are left out
  end)

  it("reads a crowd's counters without counting phases", function()
    local world, crowds = make(2)
    for _ = 1, 5 do world:update(0.5) end
    local full, quick = crowds[1]:stats(), crowds[1]:stats({}, true)
    for _, k in ipairs { "agents", "plans", "replans", "no_plans", "events", "steps_finished",
                         "events_lost", "visited", "ms_update", "ms_planning",
                         "ms_binding", "ms_waking", "ms_choosing", "ms_taking",
                         "ms_advancing", "ms_workers_late" } do
      assert.equal(full[k], quick[k], k)
    end
    assert.is_true(full.plans > 0)
    assert.is_nil(quick.walking)
    assert.is_nil(quick.bytes_per_agent)
  end)

  it("splits an update's time into its parts", function()
    local parts = { "ms_waking", "ms_choosing", "ms_planning", "ms_taking", "ms_advancing",
                    "ms_binding" }
    for _, threads in ipairs { false, 2 } do
      local world, crowds = make(threads or nil)
      -- the first update chooses, plans and starts every agent's first step
      world:update(0.5)
      for k, c in ipairs(crowds) do
        local s, sum = c:stats({}, true), 0
        for _, part in ipairs(parts) do
          assert.is_true(s[part] >= 0, part)
          sum = sum + s[part]
        end
        -- disjoint parts of the call's time (binding and planning are the crowd's own)
        assert.is_true(sum <= s.ms_update + 1e-9, ("crowd %d: %g > %g"):format(k, sum, s.ms_update))
        for _, part in ipairs { "ms_choosing", "ms_planning", "ms_taking", "ms_advancing" } do
          assert.is_true(s[part] > 0, ("crowd %d, %s"):format(k, part))
        end
        -- the passes' time short of a worker: a part of the call's, none on one thread
        assert.is_true(s.ms_workers_late >= 0 and s.ms_workers_late <= s.ms_update)
        if not threads then assert.equal(0, s.ms_workers_late) end
      end
      -- the crowds of one update share its parts
      local a, b = crowds[1]:stats({}, true), crowds[2]:stats({}, true)
      for _, part in ipairs { "ms_update", "ms_waking", "ms_choosing", "ms_taking",
                              "ms_advancing", "ms_workers_late" } do
        assert.equal(a[part], b[part], part)
      end
    end
  end)

  it("allocates nothing in Lua per frame after warm-up", function()
    local world, crowds = make(2)
    crowds[2]:close()
    for _ = 1, 30 do world:update(0.5) end
    local grew = compat.heap_growth_kib(function()
      for _ = 1, 60 do world:update(0.5) end
    end)
    assert.is_true(grew < 1, "grew by " .. grew .. " KiB")
  end)
end)
