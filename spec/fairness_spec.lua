-- spec/fairness_spec.lua: agents waiting for a full place get in first come, first served, whatever their index or thread count; the order of waiters survives save and load.
local saspu = require "saspu"
local format = string.format

-- A baker who must wash before buying bread takes longer to start waiting.
local function bakery_domain()
  return saspu.domain {
    name = "baker",
    variables = { { name = "clean", values = { "false", "true" } },
                  { name = "bread", values = { "none", "bought" } } },
    actions = {
      { name = "wash", var = "clean", pre = "false", post = "true" },
      { name = "buy", var = "bread", pre = "none", post = "bought", prevail = { clean = "true" } },
    },
    goals = { bread = { bread = "bought" } },
  }
end

-- A shop of capacity 1 (or a kind of shops); agent k washes for wash[k] seconds (0: clean
-- already) and then buys for `hold` seconds.
local function town(wash, opts)
  opts = opts or {}
  local places = opts.places or { { name = "shop", kind = "shop", x = 6, y = 1, capacity = 1 } }
  local world = saspu.world { grid = saspu.grid(12, 3), places = places }
  local crowd = world:crowd(bakery_domain(), {
    actions = { wash = { duration = function(agent) return wash[agent:index()] end },
                buy = { at = opts.at or "shop", duration = function(agent)
                  local hold = opts.hold or 4
                  return type(hold) == "table" and hold[agent:index()] or hold
                end } },
    goals = { { "bread" } },
  }, { threads = opts.threads, retry = opts.retry or 1 })
  local agents = {}
  for k = 1, #wash do
    agents[k] = crowd:spawn { x = opts.x and opts.x[k] or 6, y = 1,
                              start = { clean = wash[k] == 0 and "true" or "false", bread = "none" } }
  end
  return world, crowd, agents
end

-- Runs the world; returns the agents' indices in the order they got in (their buy
-- step started after a wait or at once), and the order they started waiting.
local function run(world, frames, dt)
  local got_in, waited, seen = {}, {}, {}
  for _ = 1, frames do
    world:update(dt)
    for ev in world:events() do
      local i = ev.agent:index()
      if ev.kind == "blocked" and ev.reason == "full" then waited[#waited + 1] = i end
      if ev.kind == "arrived" and ev.action == "buy" and not seen[i] then
        seen[i] = true
        got_in[#got_in + 1] = i
      end
    end
  end
  return got_in, waited
end

describe("agents waiting for a full place", function()
  -- Agent 1 holds the shop from the start. Agent 3 starts waiting at 0.1 s, agent 2 at
  -- 0.35 s; so agent 2's retries (every second) fall 0.25 s after agent 3's, and the shop
  -- frees (4 s) just before one of agent 2's retries: without turns, agent 2 would get in
  -- first.
  local wash = { 0, 0.35, 0.1 }

  it("get in in the order they started waiting, not by index or retry time", function()
    local world = town(wash, { hold = 4.3 })
    local got_in, waited = run(world, 300, 0.05)
    assert.same({ 3, 2 }, waited)
    assert.same({ 1, 3, 2 }, got_in)
  end)

  it("get in in the same order with 1 and 4 threads", function()
    local orders = {}
    for _, threads in ipairs { 1, 4 } do
      local world = town(wash, { hold = 4.3, threads = threads })
      orders[threads] = run(world, 300, 0.05)
    end
    assert.same({ 1, 3, 2 }, orders[1])
    assert.same(orders[1], orders[4])
  end)

  it("keep a newcomer behind them even when it tries first", function()
    -- agent 4 (clean, far from nothing) asks only once the shop is free again, at
    -- 4.3 s, while agents 3 and 2 wait for their retries: it waits behind them
    local world, crowd = town(wash, { hold = 4.3 })
    run(world, 85, 0.05) -- 4.25 s
    crowd:spawn { x = 1, y = 1, start = { clean = "true", bread = "none" } }
    local got_in = run(world, 300, 0.05)
    assert.same({ 3, 2, 4 }, got_in)
  end)

  it("wait in turn for a kind of place", function()
    local places = { { name = "a", kind = "shop", x = 2, y = 1, capacity = 1 },
                     { name = "b", kind = "shop", x = 10, y = 1, capacity = 1 } }
    -- shop a frees at 4.3 s, just before agent 3's retry; shop b only at 20 s
    local world = town({ 0, 0, 0.35, 0.1 }, { hold = { 4.3, 20, 1, 1 }, places = places,
                                             at = { kind = "shop" }, x = { 2, 10, 6, 6 } })
    local got_in, waited = run(world, 300, 0.05)
    assert.same({ 4, 3 }, waited)
    assert.same({ 1, 2, 4, 3 }, got_in)
  end)

  it("keep their turns across a save and a load", function()
    -- saved at 2.2 s: agent 2's next retry (2.35 s) comes before agent 3's (3.1 s), so a
    -- load that lost the line would put agent 2 first
    local world = town(wash, { hold = 4.3 })
    run(world, 44, 0.05)
    local saved = world:save()
    local again = town(wash, { hold = 4.3 })
    again:load(saved)
    assert.equal(saved, again:save())
    assert.same({ 3, 2 }, run(again, 300, 0.05))
  end)

  it("lose the turn of a waiter that is despawned, and keep the line in order", function()
    local world, _, agents = town({ 0, 0.35, 0.1, 0.6 }, { hold = 4.3 })
    run(world, 40, 0.05)
    agents[3]:despawn()
    local got_in = run(world, 300, 0.05)
    assert.same({ 2, 4 }, got_in)
  end)

  it("are counted by world:stats(), and their queue gives its memory back once they got in",
     function()
    local clean = {}
    for k = 1, 300 do clean[k] = 0 end
    local world = town(clean, { hold = 0.05, retry = 0.05 })
    world:update(0.05)
    local busy = world:stats()
    assert.is_true(busy.waiters >= 250, "waiters: " .. busy.waiters)
    assert.is_true(busy.queue_bytes >= busy.waiters * 16)
    local got_in = run(world, 1200, 0.05)
    assert.equal(300, #got_in)
    local idle = world:stats()
    assert.is_true(idle.waiters < 32, "waiters left: " .. idle.waiters)
    assert.is_true(idle.queue_bytes * 4 <= busy.queue_bytes,
                   format("queue bytes %d after, %d while busy", idle.queue_bytes, busy.queue_bytes))
  end)

  it("keep the turn of a waiter that is teleported", function()
    local world, _, agents = town(wash, { hold = 4.3 })
    run(world, 40, 0.05)
    agents[3]:teleport(11, 1)
    assert.same({ 3, 2 }, run(world, 300, 0.05))
  end)
end)
