-- spec/fast_path_spec.lua: the numeric fast path: dom:encode, dom:decode, dom:plan_ids with reused tables.
local fixtures = require "support.domains"
local compat = require "support.compat"
local saspu = require "saspu"

describe("saspu.Domain:encode", function()
  local dom = fixtures.domain("horse_breeder")

  it("packs a state table into one byte per variable", function()
    assert.equal("\0\0\0", dom:encode { haystack = "stored", bucket = "on_floor", water = "in_source" })
    assert.equal("\2\1\2", dom:encode { haystack = "in_feeder", bucket = "in_hands", water = "in_trough" })
  end)

  it("packs a named start, and a named goal over a base", function()
    assert.equal("\1\0\0", dom:encode("holding_haystack"))
    assert.equal("\2\0\2", dom:encode("feed_horses"))
    assert.equal("\2\0\1", dom:encode("fill_feeder", "\1\0\1"))
    assert.equal("\1\0\2", dom:encode("fill_trough", "holding_haystack"))
    assert.equal("\0\0\2", dom:encode("fill_trough",
                                      { haystack = "stored", bucket = "on_floor", water = "in_source" }))
  end)

  it("fills a partial table from the base", function()
    assert.equal("\1\0\2", dom:encode({ water = "in_trough" }, "holding_haystack"))
  end)

  it("packs a partial goal without a base: byte 255 (saspu.ANY) for a free variable", function()
    assert.equal(255, saspu.ANY)
    assert.equal("\255\255\2", dom:encode { water = "in_trough" })
    assert.equal("\2\0\2", dom:encode("feed_horses"))
    assert.equal("\1\1\255", dom:encode { haystack = "in_hands", bucket = "in_hands" })
  end)

  it("raises on a kept variable without a base", function()
    assert.error_matches(function() dom:encode("fill_trough") end,
      "saspu.Domain:encode: 'haystack' keeps its start value (saspu.KEEP): give the start as a base",
      1, true)
    assert.error_matches(function() dom:encode { water = "in_trough", bucket = saspu.KEEP } end,
      "saspu.Domain:encode: 'bucket' keeps its start value", 1, true)
    assert.equal("\0\0\2", dom:encode({ water = "in_trough", bucket = saspu.KEEP }, "morning"))
  end)

  it("raises on a partial base", function()
    assert.error_matches(function() dom:encode("feed_horses", { water = "in_trough" }) end,
      "saspu.Domain:encode: base: missing variable 'haystack' (a base gives every variable)", 1, true)
  end)

  it("raises on an unknown name", function()
    assert.error_matches(function() dom:encode("noon") end,
      "saspu.Domain:encode: no start or goal named 'noon'", 1, true)
  end)

  it("raises on a bad base", function()
    assert.error_matches(function() dom:encode("feed_horses", "\0\0") end,
      "saspu.Domain:encode: base: packed state of 2 bytes, expected 3", 1, true)
  end)
end)

describe("saspu.Domain:decode", function()
  local dom = fixtures.domain("horse_breeder")

  it("unpacks a packed state or a value-id array", function()
    local want = { haystack = "in_hands", bucket = "on_floor", water = "in_trough" }
    assert.same(want, dom:decode("\1\0\2"))
    assert.same(want, dom:decode({ 2, 1, 3 }))
  end)

  it("leaves a packed goal's free variables out", function()
    assert.same({ water = "in_trough" }, dom:decode("\255\255\2"))
    assert.same({ bucket = "in_hands" }, dom:decode({ 0, 2, 0 }))
    assert.same({ water = "in_trough" }, dom:decode(dom:encode { water = "in_trough" }))
  end)

  it("raises on a value out of range", function()
    assert.error_matches(function() dom:decode("\3\0\0") end,
      "saspu.Domain:decode: state: byte 1 is 3, out of range for 'haystack' (3 values; 255: free)",
      1, true)
    assert.error_matches(function() dom:decode({ 1, 3, 1 }) end,
      "saspu.Domain:decode: state: [2] must be a value id of 'bucket' (1 to 2; 0: free)", 1, true)
  end)
end)

describe("saspu.Domain:plan_ids", function()
  local dom = fixtures.domain("horse_breeder")
  local s0, goal = dom:encode("morning"), dom:encode("feed_horses", "morning")

  it("returns the count and the 1-based action ids", function()
    local n, out = dom:plan_ids(s0, goal)
    assert.equal(6, n)
    assert.same({ 5, 6, 7, 4, 2, 3 }, out)
    local names = {}
    for i = 1, n do names[i] = dom:action_name(out[i]) end
    assert.same(dom:plan("morning", "feed_horses"), names)
  end)

  it("fills and trims the caller's table", function()
    local out = { 9, 9, 9, 9, 9, 9, 9, 9, 9 }
    local n, same = dom:plan_ids(s0, goal, out)
    assert.equal(out, same)
    assert.equal(6, n)
    assert.same({ 5, 6, 7, 4, 2, 3 }, out)
    n = dom:plan_ids("\1\0\0", "\2\0\0", out)
    assert.equal(1, n)
    assert.same({ 3 }, out)
    n = dom:plan_ids(s0, s0, out)
    assert.equal(0, n)
    assert.same({}, out)
  end)

  it("takes arrays of 1-based value ids that a script updates in place", function()
    local state = { 1, 1, 1 }
    local out = {}
    local n = dom:plan_ids(state, { 3, 1, 3 }, out)
    assert.equal(6, n)
    -- play the plan on the same array, then plan again from it
    local actions = dom:actions()
    local var_id = {}
    for _, v in ipairs(dom:variables()) do var_id[v.name] = v end
    for i = 1, n do
      local a = actions[out[i]]
      local v = var_id[a.var]
      for id, value in ipairs(v.values) do
        if value == a.post then state[v.id] = id end
      end
    end
    assert.same({ 3, 1, 3 }, state)
    assert.equal(0, dom:plan_ids(state, { 3, 1, 3 }, out))
  end)

  it("returns nil and fills the caller's why table", function()
    local why = { stale = true, action = "stale" }
    local n, same = dom:plan_ids("\1\0\0", "\1\1\2", {}, why)
    assert.is_nil(n)
    assert.equal(why, same)
    assert.equal("order", why.code)
    assert.truthy(why.action == "take_haystack" or why.action == "pick_up_bucket")
    assert.is_string(why.message)
    assert.is_true(why.stale) -- other fields are left alone
    local _, fresh = dom:plan_ids("\0\0\1", "\0\0\0")
    assert.equal("no_setter", fresh.code)
    assert.is_nil(fresh.action)
  end)

  it("gives the same plans as dom:plan for every pair of the Horse Breeder", function()
    local bfs = require "support.bfs"
    local S = bfs.space(fixtures.spec("horse_breeder"))
    local out = {}
    local compared = 0
    for i = 0, S.count - 1 do
      local start = dom:decode(S.packed[i])
      for j = 0, S.count - 1 do
        local plan, why = dom:plan(start, dom:decode(S.packed[j]))
        local n, why_ids = dom:plan_ids(S.packed[i], S.packed[j], out)
        if plan then
          local names = {}
          for k = 1, n do names[k] = dom:action_name(out[k]) end
          assert.same(plan, names)
        else
          assert.is_nil(n)
          -- the fast path names the planner's reason but does not search for the blocker
          assert.is_table(why.blocker)
          assert.is_nil(why_ids.blocker)
          why.blocker = nil
          assert.same(why, why_ids)
        end
        compared = compared + 1
      end
    end
    assert.equal(324, compared)
  end)

  it("allocates nothing per call with reused tables", function()
    local out, why = {}, {}
    local grown = compat.heap_growth_kib(function()
      for _ = 1, 10000 do
        dom:plan_ids(s0, goal, out, why)
      end
    end)
    assert.is_true(grown < 1, "grew by " .. grown .. " KiB")
  end)

  describe("bad arguments", function()
    local cases = {
      { "a packed state of the wrong length", "\0\0", goal,
        "saspu.Domain:plan_ids: s0: packed state of 2 bytes, expected 3" },
      { "a packed value out of range", s0, "\2\2\2",
        "saspu.Domain:plan_ids: goal: byte 2 is 2, out of range for 'bucket' (2 values; 255: free)" },
      { "a value id out of range", { 1, 1, 4 }, goal,
        "saspu.Domain:plan_ids: s0: [3] must be a value id of 'water' (1 to 3)" },
      { "a short value-id array", { 1, 1 }, goal,
        "saspu.Domain:plan_ids: s0: [3] must be a value id of 'water' (1 to 3)" },
      { "a state that is a number", 7, goal,
        "packed state string or array of value ids expected, got number" },
    }
    for _, case in ipairs(cases) do
      it("raises on " .. case[1], function()
        assert.error_matches(function() dom:plan_ids(case[2], case[3]) end, case[4], 1, true)
      end)
    end

    it("raises on an out argument that is not a table", function()
      assert.error_matches(function() dom:plan_ids(s0, goal, "out") end,
        "table expected, got string", 1, true)
    end)
  end)
end)
