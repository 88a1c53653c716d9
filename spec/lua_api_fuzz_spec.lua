-- spec/lua_api_fuzz_spec.lua: short random call sequences on every saspu object (tests/fuzz/lua_api_driver.lua, seeded), and the failures the fuzzer found.
package.path = "tests/fuzz/?.lua;" .. package.path
local saspu = require "saspu"
local driver = require "lua_api_driver"

-- Under valgrind (its preload library is in the environment) each call is ~30x
-- slower: fewer sequences. SASPU_FUZZ_SEQUENCES overrides both.
local preload = os.getenv("LD_PRELOAD") or ""
local SEQUENCES = tonumber(os.getenv("SASPU_FUZZ_SEQUENCES") or "")
  or (preload:find("vgpreload", 1, true) and 20 or 150)
local CHOICES = 300 -- per sequence: about 40 calls

describe("random call sequences on the Lua API", function()
  it("raise only messages naming what is wrong and keep every checked invariant", function()
    local failed = {}
    for seed = 1, SEQUENCES do
      for _, f in ipairs(driver.run_seed(seed, CHOICES)) do
        failed[#failed + 1] = "seed " .. seed .. ": " .. f
        if #failed >= 10 then break end
      end
    end
    assert.same({}, failed)
  end)

  it("find a broken invariant when there is one (the driver's checks can fail)", function()
    -- a plan that skips a step must not replay: the same check the sequences use
    local dom = saspu.domain_file "domains/horse_breeder.lua"
    local plan = dom:plan("morning", "feed_horses")
    table.remove(plan, 1)
    local state, goal = dom:decode(dom:encode("morning")), dom:decode(dom:encode("feed_horses"))
    local ok, why = driver.replays(dom:actions(), state, goal, plan)
    assert.is_false(ok)
    assert.matches("^step 1 ", why)
    assert.is_true(driver.replays(dom:actions(), state, goal, dom:plan("morning", "feed_horses")))
    dom:close()
  end)
end)

describe("world:crowd options", function()
  it("refuses NaN, infinities and numbers beyond the limits, naming the option", function()
    local dom = saspu.domain_file "domains/citizen.lua"
    local world = saspu.world {}
    local cases = {
      { { capacity = 0 / 0 }, "options.capacity must be a number in 1..2147483648" },
      { { capacity = math.huge }, "options.capacity must be a number in 1..2147483648" },
      { { capacity = 2 ^ 40 }, "options.capacity must be a number in 1..2147483648" },
      { { threads = 1e300 }, "options.threads must be a number in 0..64" },
      { { seed = -1 }, "options.seed must be a number in 0..9" },
      { { seed = 2 ^ 60 }, "options.seed must be a number in 0..9" },
      { { speed = math.huge }, "options.speed must be a number in 0..1000000000" },
      { { cooldown = 0 / 0 }, "options.cooldown must be a number in 0..1000000000" },
      { { cache_capacity = 2 ^ 32 }, "options.cache_capacity must be a number in 0..16777216" },
      { { parallel_min = -1 }, "options.parallel_min must be a number in 0..2147483648" },
    }
    for _, case in ipairs(cases) do
      assert.error_matches(function() world:crowd(dom, {}, case[1]) end, case[2], 1, true)
    end
    assert.equal(0, #world:crowds())
    local c = world:crowd(dom, {}, { capacity = 2, threads = 1, seed = 2 ^ 53 })
    assert.equal(0, c:size())
    world:close()
    dom:close()
  end)
end)

describe("a step hooked through crowd:set_action alone", function()
  it("ends without a Lua record instead of failing world:update", function()
    local dom = saspu.domain_file "domains/citizen.lua"
    local world = saspu.world {}
    local started = 0
    local crowd = world:crowd(dom, { goals = { { "have_a_meal", priority = 1 } },
      actions = { eat = { duration = 0.5, on_start = function() started = started + 1 end } } })
    -- buy_food hooked in C, unknown to the behaviour (of a hooked crowd)
    crowd:set_action(dom:action_id("buy_food"), 0, 0, "none", nil, false, false, true)
    local agent = crowd:spawn { start = "start_of_day" }
    local finished = 0
    for _ = 1, 20 do
      world:update(0.25)
      for ev in world:events() do
        if ev.kind == "step_finished" then finished = finished + 1 end
      end
    end
    assert.is_true(finished >= 2, "steps finished: " .. finished)
    assert.equal("fed", agent:get("hunger"))
    assert.equal(1, started)
    world:close()
    dom:close()
  end)
end)

describe("tostring of a world whose grid is closed", function()
  it("says so instead of reading the freed grid", function()
    local grid = saspu.grid(8, 6)
    local world = saspu.world { grid = grid }
    assert.equal("saspu.World 8x6 (0 places, 0 kinds, 0 crowds)", tostring(world))
    grid:close()
    assert.equal("saspu.World (its grid is closed)", tostring(world))
    assert.error_matches(function() world:stats() end, "its grid is closed", 1, true)
    world:close()
  end)
end)
