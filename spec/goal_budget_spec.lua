-- spec/goal_budget_spec.lua: the crowd option goal_budget: at most that many agents choose a goal in one update, the others wait asleep, lowest index first, with the same events for any thread count.
local saspu = require "saspu"
local support = require "support.agents"

local N = 3000 -- three chunks of agents (SP_CROWD_CHUNK 1024)

-- A world of `threads` with one crowd of N citizens (work 1-2 s, buy_food at the market);
-- opts are the crowd's options beyond capacity and seed.
local function town(threads, opts)
  local world = saspu.world { grid = saspu.grid(16, 16), threads = threads,
                              places = { { name = "market", x = 3, y = 3, capacity = 40 } } }
  local o = { capacity = N, seed = 7 }
  for k, v in pairs(opts or {}) do o[k] = v end
  local crowd = world:crowd(support.citizen(), {
    actions = { work = { duration = { 1, 2 } }, buy_food = { duration = { 1, 3 }, at = "market" } },
    goals = { { "work", priority = 2 }, { "buy_supplies", priority = 1 } },
  }, o)
  for i = 1, N do crowd:spawn { start = "start_of_day", x = (i * 7) % 16 + 1, y = (i * 3) % 16 + 1 } end
  return world, crowd
end

-- The agents that chose a goal in one update of dt, in event order.
local function choosers(world, dt)
  world:update(dt)
  local who = {}
  for ev in world:events() do
    if ev.kind == "goal_chosen" then who[#who + 1] = ev.agent:index() end
  end
  return who
end

describe("crowd option goal_budget", function()
  it("lets that many agents choose a frame, lowest index first, the rest asleep", function()
    local world, crowd = town(nil, { goal_budget = 700 })
    local seen = 0
    for f = 1, 5 do
      local who = choosers(world, 0.1) -- no plan ends within these frames
      assert.equal(f < 5 and 700 or N - 4 * 700, #who)
      for k, i in ipairs(who) do assert.equal(seen + k, i) end
      seen = seen + #who
      -- the waiting are not visited by the advance pass
      if f == 1 then assert.is_true(crowd:stats().visited <= 700) end
    end
    assert.equal(0, #choosers(world, 0.1))
    -- without the option the whole crowd chooses in the first frame
    local all = town(nil)
    assert.equal(N, #choosers(all, 0.1))
  end)

  it("keeps every agent's events in order: a budget only delays them", function()
    local world = town(nil, { goal_budget = 100000 })
    local base = town(nil)
    assert.equal(support.run(base, nil, 20, 0.5), support.run(world, nil, 20, 0.5))
  end)

  it("gives the same events for 1, 2 and 4 threads", function()
    local function trace(threads)
      local world, crowd = town(threads, { goal_budget = 450, parallel_min = 1 })
      local out = {}
      for f = 1, 40 do
        if f % 10 == 0 then crowd:set_all("working", false) end
        world:update(0.5)
        for ev in world:events() do out[#out + 1] = ev.agent:index() .. support.event_text(ev) end
      end
      return table.concat(out, " "), crowd:stats().workers_woken
    end
    local base = trace(1)
    assert.is_true(#base > 50000)
    local two, woken = trace(2)
    assert.is_true(woken > 0) -- the passes ran on two threads
    assert.equal(base, two)
    assert.equal(base, (trace(4)))
  end)

  it("refuses bad values", function()
    local world = saspu.world {}
    assert.error_matches(function()
      world:crowd(support.citizen(), { actions = {}, goals = { { "work" } } }, { goal_budget = -1 })
    end, "options.goal_budget must be a number in 0..2147483648", 1, true)
  end)
end)
