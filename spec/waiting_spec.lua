-- spec/waiting_spec.lua: an agent waiting for a full place is quiet: one blocked (full) when the wait begins, one step_started when it gets in.
local saspu = require "saspu"
local support = require "support.agents"

-- A market of capacity 1; the first citizen takes it for 3 s, the others wait.
local function market_town(n)
  local world = saspu.world { grid = saspu.grid(12, 12),
                              places = { { name = "market", x = 9, y = 3, capacity = 1 } } }
  local crowd = world:crowd(support.citizen(), {
    actions = { buy_food = { at = "market", duration = 3 } },
    goals = { { "work" } },
  })
  local agents = {}
  for k = 1, n do agents[k] = crowd:spawn { start = "start_of_day", x = 7 + k, y = 3 } end
  return world, agents
end

-- Every buy_food event of each agent, as kind[/reason], over `frames` frames.
local function buy_food_events(world, frames, dt)
  local out = {}
  for _ = 1, frames do
    world:update(dt)
    for ev in world:events() do
      if ev.action == "buy_food" then
        local i = ev.agent:index()
        out[i] = out[i] or {}
        out[i][#out[i] + 1] = ev.kind .. (ev.reason and ("/" .. ev.reason) or "")
      end
    end
  end
  return out
end

describe("an agent waiting for a full place", function()
  it("gets one blocked when the wait begins and one step_started when it gets in", function()
    local world = market_town(3)
    local evs = buy_food_events(world, 160, 0.25)
    assert.same({ "step_started", "arrived", "step_finished" }, evs[1])
    -- its first try, the wait (blocked), then getting in: no event per retry
    assert.same({ "step_started", "blocked/full", "step_started", "arrived", "step_finished" }, evs[2])
    assert.same({ "step_started", "blocked/full", "step_started", "arrived", "step_finished" }, evs[3])
  end)

  it("shows the wait in inspect while it lasts", function()
    local world, agents = market_town(2)
    world:update(0.25)
    local info = agents[2]:inspect()
    assert.equal("blocked", info.phase)
    assert.equal("full", info.last_reason)
  end)
end)
