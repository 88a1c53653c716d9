-- spec/events_spec.lua: world:events() says whose an event is (crowd, class) and names places, with nothing 0-based.
local saspu = require "saspu"
local support = require "support.agents"

-- A market of capacity 1 at (9, 3) and a well; two citizens who both want it.
local function market_town()
  local world = saspu.world { grid = saspu.grid(12, 12),
                              places = { { name = "well", x = 1, y = 1 },
                                         { name = "market", x = 9, y = 3, capacity = 1 } } }
  local crowd = world:crowd(support.citizen(), {
    actions = { buy_food = { at = "market", duration = 3 } },
    goals = { { "work" } },
  })
  return world, crowd
end

local function collect(world, frames, dt)
  local out = {}
  for _ = 1, frames do
    world:update(dt)
    for ev in world:events() do
      out[#out + 1] = { kind = ev.kind, crowd = ev.crowd, class = ev.class, place = ev.place,
                        detail = ev.detail, reason = ev.reason, agent = ev.agent }
    end
  end
  return out
end

describe("world:events", function()
  it("gives each event its crowd and its class", function()
    local world, crowd = market_town()
    crowd:spawn { start = "start_of_day", x = 8, y = 3 }
    local evs = collect(world, 2, 0.5)
    assert.is_true(#evs > 0)
    for _, ev in ipairs(evs) do
      assert.equal(crowd, ev.crowd)
      assert.equal("citizen", ev.class)
    end
  end)

  it("names the place of arrived, blocked and step_failed full, with its 1-based id", function()
    local world, crowd = market_town()
    crowd:spawn { start = "start_of_day", x = 8, y = 3 }
    crowd:spawn { start = "start_of_day", x = 10, y = 3 }
    local seen = {}
    for _, ev in ipairs(collect(world, 4, 0.5)) do
      if ev.kind == "arrived" or ev.kind == "blocked" then
        assert.equal("market", ev.place)
        assert.equal(2, ev.detail) -- world:place order: the well is 1
        seen[ev.kind] = true
      elseif ev.kind == "planned" then
        assert.is_true(ev.detail >= 1) -- the plan's length
      elseif ev.place == nil then
        assert.is_nil(ev.detail)
      end
    end
    assert.is_true(seen.arrived and seen.blocked)
  end)

  it("gives c:event a 1-based place in detail", function()
    local world, crowd = market_town()
    crowd:spawn { start = "start_of_day", x = 8, y = 3 }
    local found
    for _ = 1, 4 do
      world:update(0.5)
      for k = 1, crowd:event_count() do
        local _, kind, _, _, _, _, detail = crowd:event(k)
        if kind == "arrived" then found = detail end
      end
    end
    assert.equal(2, found)
  end)
end)
