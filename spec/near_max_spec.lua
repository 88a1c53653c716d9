-- spec/near_max_spec.lua: world:near's optional max: the first `max` of the full answer (nearest first, crowd order then index among equals), checked against a brute-force scan on two walking crowds.
local saspu = require "saspu"

local scatter = require "support.scatter"
local rng = scatter.rng

-- two crowds of citizens spread over a 24x24 grid, walking to three markets
local function two_crowds(seed)
  local rand = rng(seed)
  local places = {}
  for k = 1, 3 do places[k] = { name = "m" .. k, kind = "market", x = rand(1, 24), y = rand(1, 24) } end
  local world = saspu.world { grid = saspu.grid(24, 24), places = places }
  local dom = saspu.domain_file("domains/citizen.lua")
  local beh = { actions = { buy_food = { duration = 1, at = { kind = "market" } } },
                goals = { { "have_a_meal" } } }
  local crowds = { world:crowd(dom, beh), world:crowd(dom, beh) }
  for _, c in ipairs(crowds) do
    scatter.spawn(c, 90, "start_of_day", rand, 24, 24)
  end
  return world, crowds, rand
end

-- the brute-force answer: { crowd, index } nearest first, crowd order then index
local brute = scatter.near_answer

describe("world:near with max", function()
  it("returns the max nearest, in the order of the full answer, of every crowd or one", function()
    local world, crowds, rand = two_crowds(7)
    local cut = 0
    for _ = 1, 6 do
      world:update(0.5)
      for _ = 1, 25 do
        local x, y, r, max = rand(1, 24), rand(1, 24), rand(0, 10), rand(0, 12)
        local want = brute(crowds, x, y, r, max)
        local got = world:near(x, y, r, nil, max)
        assert.equal(#want, #got)
        for k, h in ipairs(got) do
          assert.equal(want[k][4], h:crowd())
          assert.equal(want[k][3], h:index())
        end
        if max > 0 and #world:near(x, y, r) > max then cut = cut + 1 end
        local one = brute({ crowds[2] }, x, y, r, max)
        local only = world:near(x, y, r, crowds[2], max)
        assert.equal(#one, #only)
        for k, h in ipairs(only) do assert.equal(one[k][3], h:index()) end
      end
    end
    assert.is_true(cut > 20) -- max did cut the answer, often
  end)

  it("gives everything with max nil or 0", function()
    local world = two_crowds(3)
    assert.equal(#world:near(12, 12, 30), #world:near(12, 12, 30, nil, 0))
    assert.equal(180, #world:near(12, 12, 30, nil, nil))
  end)

  it("refuses a max that is not an integer >= 0, naming the call", function()
    local world = two_crowds(1)
    assert.error_matches(function() world:near(1, 1, 2, nil, -1) end,
                         "saspu.World:near: max must be an integer >= 0 (0: all), got -1", 1, true)
    assert.error_matches(function() world:near(1, 1, 2, nil, 1.5) end,
                         "saspu.World:near: max must be an integer >= 0 (0: all), got 1.5", 1, true)
    assert.error_matches(function() world:near(1, 1, 2, nil, "3") end,
                         "saspu.World:near: max must be an integer >= 0 (0: all), got 3", 1, true)
  end)
end)
