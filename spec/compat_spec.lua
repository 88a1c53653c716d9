-- spec/compat_spec.lua: the module behaves and words its errors the same on Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT.
local saspu = require "saspu"
local fixtures = require "support.domains"

describe("saspu._VERSION", function()
  it("names the CMake project version", function()
    assert.matches("^saspu %d+%.%d+%.%d+$", saspu._VERSION)
    assert.equal("saspu " .. require("saspu.core")._VERSION, saspu._VERSION)
  end)
end)

describe("integer arguments", function()
  local g = saspu.grid(4, 3)

  it("accept a float with an integral value", function()
    g:set_cost(2.0, 3, 7)
    assert.equal(7, g:cost(2, 3.0))
  end)

  it("reject a fraction with 5.4's message", function()
    assert.error_matches(function() g:cost(1.5, 1) end,
                         "bad argument #1 to 'cost' (number has no integer representation)", 1, true)
  end)

  it("reject a string that is no number with 5.4's message", function()
    assert.error_matches(function() g:cost("x", 1) end,
                         "bad argument #1 to 'cost' (number expected, got string)", 1, true)
  end)

  it("print as integers inside messages", function()
    assert.error_matches(function() g:cost(5, 1) end,
                         "bad argument #1 to 'cost' (x = 5 is outside 1..4)", 1, true)
  end)
end)

describe("type errors", function()
  it("name a saspu type by its metatable's __name", function()
    local dom = fixtures.domain("horse_breeder")
    local g = saspu.grid(2, 2)
    assert.error_matches(function() g.cost(dom, 1, 1) end, "saspu.Grid expected, got saspu.Domain", 1, true)
  end)

  it("show a number as 5.4 shows it: integral values without a fraction", function()
    local dom = fixtures.domain("horse_breeder")
    assert.error_matches(function() dom:plan({ [3] = "stored" }, "feed_horses") end,
                         "expected variable names as keys, got number key 3", 1, true)
    assert.error_matches(function() dom:plan({ [2.5] = "stored" }, "feed_horses") end,
                         "expected variable names as keys, got number key 2.5", 1, true)
  end)
end)

describe("user values", function()
  it("keep a population's domain alive after the domain is dropped", function()
    local pop = saspu.population(fixtures.domain("horse_breeder"), 2)
    collectgarbage("collect")
    collectgarbage("collect")
    pop:set_goal_all("feed_horses")
    pop:set(1, "morning", "feed_horses")
    pop:set(2, "morning", "feed_horses")
    pop:plan({ threads = 1 })
    assert.same({ "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket",
                  "take_haystack", "fill_feeder" }, pop:plan_of(1))
  end)
end)
