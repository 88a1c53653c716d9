-- spec/world_warm_spec.lua: World:warm builds the places' distance fields ahead, so no frame builds one: within the field budget, within a time limit, and without a grid; and sets up the crowds' planners.
local saspu = require "saspu"
local fixtures = require "support.domains"

local MAP = "..........\n..####....\n..........\n....##....\n..........\n"
local PLACES = { { name = "well", x = 9, y = 1 }, { name = "shop", x = 1, y = 5 },
                 { name = "inn", x = 9, y = 5 } }

local function world(opts)
  local g = saspu.grid_from_ascii(MAP)
  return saspu.world { grid = g, places = PLACES, threads = opts and opts.threads }, g
end

describe("World:warm", function()
  it("builds every place's field once, and a walker's frame builds none", function()
    local w = world()
    assert.same({ 3, 0 }, { w:warm() })
    assert.equal(3, w:stats().fields_computed)
    -- warm again: nothing left to build
    assert.same({ 0, 0 }, { w:warm() })
    local c = w:crowd(fixtures.domain("citizen"), {
      actions = { buy_food = { duration = 0.5, at = "shop" } },
      goals = { { { hunger = "has_food" }, priority = 1 } },
    }, { capacity = 2 })
    c:spawn { start = "start_of_day", x = 1, y = 1 }
    local reached = false
    for _ = 1, 200 do
      w:update(0.25)
      for k = 1, c:event_count() do
        local _, kind = c:event(k)
        reached = reached or kind == "goal_reached"
      end
    end
    assert.is_true(reached)
    assert.equal(3, w:stats().fields_computed)
  end)

  it("stops at the field budget without forgetting a field, and says what is left", function()
    local w = world()
    w:field_budget(1) -- one field is always kept, no second
    assert.same({ 1, 2 }, { w:warm() })
    assert.equal(0, w:stats().fields_evicted)
  end)

  it("starts no field past its time limit, and a later call finishes", function()
    local w = world()
    local built, left = w:warm(1e-9)
    assert.equal(3, built + left)
    assert.is_true(built <= 1)
    local more, rest = w:warm()
    assert.equal(left, more)
    assert.equal(0, rest)
  end)

  it("sets up the crowds' planners ahead, their events unchanged", function()
    local function town(warm)
      local w = world()
      local c = w:crowd(fixtures.domain("citizen"), {
        actions = { buy_food = { duration = { 0.5, 2 }, at = "shop" } },
        goals = { { { hunger = "has_food" }, priority = 1 } },
      }, { capacity = 64, seed = 3 })
      for i = 1, 40 do c:spawn { start = "start_of_day", x = i % 10 + 1, y = 1 } end
      local before = c:stats().bytes_total
      if warm then w:warm() end
      return w, c, before
    end
    local cold, cc = town(false)
    local warm, wc, before = town(true)
    assert.is_true(wc:stats().bytes_total > before) -- the plan caches, made ahead
    local function trace(w, c)
      local out = {}
      for _ = 1, 30 do
        w:update(0.25)
        for k = 1, c:event_count() do
          local i, kind = c:event(k)
          out[#out + 1] = i .. kind
        end
      end
      return table.concat(out, " ")
    end
    assert.equal(trace(cold, cc), trace(warm, wc))
  end)

  it("has nothing to build without a grid", function()
    local w = saspu.world { places = { { name = "well", x = 1, y = 1 } } }
    assert.same({ 0, 0 }, { w:warm() })
  end)

  it("rejects a negative limit", function()
    local w = world()
    assert.error_matches(function() w:warm(-1) end, "ms must be 0 (no limit) or more", 1, true)
  end)
end)
