-- spec/domain_spec.lua: saspu.domain: compiling domain tables, classes, bad-input messages, introspection and lifetime.
local saspu = require "saspu"
local fixtures = require "support.domains"
local compat = require "support.compat"

local function horse() return fixtures.spec("horse_breeder") end

-- A domain whose 3-cycle on x holds a requested action: outside the classes.
local function three_cycle(extra)
  local spec = {
    name = "three_cycle",
    variables = {
      { name = "x", values = { "a", "b", "c" } },
      { name = "y", values = { "off", "on" } },
    },
    actions = {
      { name = "ab", var = "x", pre = "a", post = "b" },
      { name = "bc", var = "x", pre = "b", post = "c" },
      { name = "ca", var = "x", pre = "c", post = "a" },
      { name = "switch_on", var = "y", pre = "off", post = "on", prevail = { x = "b" } },
    },
  }
  for k, v in pairs(extra or {}) do spec[k] = v end
  return spec
end

-- Compiles a horse breeder table changed by `edit`.
local function compile_edited(edit)
  return function()
    local spec = horse()
    edit(spec)
    return saspu.domain(spec)
  end
end

describe("saspu.domain", function()
  it("compiles the three paper domains into their classes", function()
    assert.equal("SAS-PUC*2", fixtures.domain("horse_breeder").class)
    assert.equal("SAS-PUCS2", fixtures.domain("citizen").class)
    assert.equal("SAS-PUC0", fixtures.domain("acquisition_machine").class)
  end)

  it("exposes the domain name", function()
    assert.equal("horse_breeder", fixtures.domain("horse_breeder").name)
  end)

  it("accepts a domain without actions", function()
    local dom = saspu.domain { name = "still", variables = { { name = "x", values = { "a", "b" } } },
                               actions = {} }
    assert.equal("SAS-PUC0", dom.class)
    assert.same({}, dom:plan({ x = "a" }, { x = "a" }))
  end)

  it("does not keep references to the caller's table", function()
    local spec = horse()
    local dom = saspu.domain(spec)
    spec.actions[1].name = "changed"
    spec.actions[2].params = { "changed" }
    spec.variables[1].values[1] = "changed"
    assert.equal("drop_haystack", dom:action_name(1))
    assert.same({ "stored", "in_hands", "in_feeder" }, dom:variables()[1].values)
    assert.same({ "pos" }, dom:actions()[2].params)
  end)

  it("reads Lua booleans as the value names true and false", function()
    local dom = fixtures.domain("citizen")
    local a = dom:plan("start_of_day", { debating = true })
    local b = dom:plan("start_of_day", { debating = "true" })
    assert.same({ "debate" }, a)
    assert.same(a, b)
  end)

  it("assigns ids in declaration order", function()
    local dom = fixtures.domain("horse_breeder")
    local names = {}
    for i = 1, 7 do names[i] = dom:action_name(i) end
    assert.same({ "drop_haystack", "take_haystack", "fill_feeder", "drop_bucket",
                  "pick_up_bucket", "fill_bucket", "fill_trough" }, names)
    assert.equal(5, dom:action_id("pick_up_bucket"))
    assert.error_matches(function() dom:action_id("dance") end, "no action named 'dance'", 1, true)
  end)

  describe("outside the tractable classes", function()
    it("raises the core's explanation unless allowed", function()
      assert.error_matches(function() saspu.domain(three_cycle()) end,
        "saspu.domain: 'three_cycle' is outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2", 1, true)
      assert.error_matches(function() saspu.domain(three_cycle()) end,
        "the cycle of 'x' has 3 actions", 1, true)
      assert.error_matches(function() saspu.domain(three_cycle()) end,
        "(set allow_outside = true to accept it)", 1, true)
    end)

    it("compiles with allow_outside = true and says so", function()
      local dom = saspu.domain(three_cycle { allow_outside = true })
      assert.equal("outside", dom.class)
      assert.equal("saspu.Domain 'three_cycle' (4 actions, outside)", tostring(dom))
      assert.truthy(dom:explain():find("Plans are not guaranteed", 1, true))
    end)
  end)

  describe("bad input", function()
    local cases = {
      { "the name is missing", function(s) s.name = nil end,
        "saspu.domain: name: expected a non-empty string, got nil" },
      { "the name is empty", function(s) s.name = "" end,
        "saspu.domain: name: expected a non-empty string, got an empty string" },
      { "a top-level field is unknown", function(s) s.goal = {} end,
        "saspu.domain: unknown field 'goal' (expected name, variables, actions, goals, starts, allow_outside)" },
      { "allow_outside is not a boolean", function(s) s.allow_outside = "yes" end,
        "saspu.domain: allow_outside: expected a boolean, got string" },
      { "variables is missing", function(s) s.variables = nil end,
        "saspu.domain: variables: expected a table, got nil" },
      { "variables is empty", function(s) s.variables = {} end,
        "saspu.domain: variables: expected at least one variable" },
      { "a variable is not a table", function(s) s.variables[2] = "bucket" end,
        "saspu.domain: variables[2]: expected a table, got string" },
      { "a variable has no name", function(s) s.variables[2].name = nil end,
        "saspu.domain: variables[2]: name: expected a non-empty string, got nil" },
      { "a variable field is unknown", function(s) s.variables[1].vals = {} end,
        "saspu.domain: variables[1] 'haystack': unknown field 'vals' (expected name, values)" },
      { "two variables share a name", function(s) s.variables[2].name = "haystack" end,
        "saspu.domain: variables[2] 'haystack': duplicate variable name (also variables[1])" },
      { "a variable has no values", function(s) s.variables[2].values = nil end,
        "saspu.domain: variables[2] 'bucket': values: expected a table, got nil" },
      { "a variable has one value", function(s) s.variables[2].values = { "on_floor" } end,
        "saspu.domain: variables[2] 'bucket': values: expected at least 2 values, got 1" },
      { "a value is not a string", function(s) s.variables[2].values[2] = 1 end,
        "saspu.domain: variables[2] 'bucket': values[2]: expected a non-empty string or a boolean, got number" },
      { "two values share a name", function(s) s.variables[2].values[2] = "on_floor" end,
        "saspu.domain: variables[2] 'bucket': values[2] 'on_floor': duplicate value (also values[1])" },
      { "actions is missing", function(s) s.actions = nil end,
        "saspu.domain: actions: expected a table, got nil" },
      { "an action is not a table", function(s) s.actions[3] = true end,
        "saspu.domain: actions[3]: expected a table, got boolean" },
      { "an action has no name", function(s) s.actions[3].name = nil end,
        "saspu.domain: actions[3]: name: expected a non-empty string, got nil" },
      { "an action field is unknown", function(s) s.actions[3].prevails = {} end,
        "saspu.domain: actions[3] 'fill_feeder': unknown field 'prevails' (expected name, var, pre, post, prevail, params)" },
      { "two actions share a name", function(s) s.actions[3].name = "take_haystack" end,
        "saspu.domain: actions[3] 'take_haystack': duplicate action name (also actions[2])" },
      { "var is missing", function(s) s.actions[3].var = nil end,
        "saspu.domain: actions[3] 'fill_feeder': var: expected a variable name, got nil" },
      { "var is unknown", function(s) s.actions[3].var = "haystak" end,
        "saspu.domain: actions[3] 'fill_feeder': var: unknown variable 'haystak' (haystack, bucket, water)" },
      { "pre is missing", function(s) s.actions[3].pre = nil end,
        "saspu.domain: actions[3] 'fill_feeder': pre: expected a value of 'haystack', got nil" },
      { "pre is unknown", function(s) s.actions[3].pre = "held" end,
        "saspu.domain: actions[3] 'fill_feeder': pre 'held' is not a value of 'haystack' (stored, in_hands, in_feeder)" },
      { "post is unknown", function(s) s.actions[3].post = "full" end,
        "saspu.domain: actions[3] 'fill_feeder': post 'full' is not a value of 'haystack' (stored, in_hands, in_feeder)" },
      { "post is a number", function(s) s.actions[3].post = 3 end,
        "saspu.domain: actions[3] 'fill_feeder': post: expected a value of 'haystack', got number" },
      { "pre equals post", function(s) s.actions[3].post = "in_hands" end,
        "saspu.domain: actions[3] 'fill_feeder': pre and post are both 'in_hands'" },
      { "prevail is not a table", function(s) s.actions[3].prevail = "on_floor" end,
        "saspu.domain: actions[3] 'fill_feeder': prevail: expected a table, got string" },
      { "a prevail key is not a name", function(s) s.actions[3].prevail = { "on_floor" } end,
        "saspu.domain: actions[3] 'fill_feeder': prevail: expected variable names as keys, got number key 1" },
      { "a prevail variable is unknown", function(s) s.actions[3].prevail = { buckt = "on_floor" } end,
        "saspu.domain: actions[3] 'fill_feeder': prevail: unknown variable 'buckt' (haystack, bucket, water)" },
      { "a prevail value is unknown", function(s) s.actions[3].prevail = { bucket = "full" } end,
        "saspu.domain: actions[3] 'fill_feeder': prevail 'full' is not a value of 'bucket' (on_floor, in_hands)" },
      { "a prevail is on the action's own variable",
        function(s) s.actions[3].prevail = { haystack = "stored" } end,
        "saspu.domain: actions[3] 'fill_feeder': prevail on its own variable 'haystack'" },
      { "params is not a table", function(s) s.actions[3].params = "pos" end,
        "saspu.domain: actions[3] 'fill_feeder': params: expected a table, got string" },
      { "a param is not a string", function(s) s.actions[3].params = { 1 } end,
        "saspu.domain: actions[3] 'fill_feeder': params[1]: expected a non-empty string, got number" },
      { "two actions set one value", function(s) s.actions[3].post = "stored" end,
        "saspu.domain: actions[3] 'fill_feeder': post 'stored' of 'haystack' is already set by actions[1] 'drop_haystack'" },
      { "goals is not a table", function(s) s.goals = "feed_horses" end,
        "saspu.domain: goals: expected a table, got string" },
      { "a goal is not a table", function(s) s.goals.feed_horses = "all" end,
        "saspu.domain: goals.feed_horses: expected a table, got string" },
      { "a goal names an unknown variable", function(s) s.goals.feed_horses.hay = "stored" end,
        "saspu.domain: goals.feed_horses: unknown variable 'hay' (haystack, bucket, water)" },
      { "a goal names an unknown value", function(s) s.goals.feed_horses.water = "full" end,
        "saspu.domain: goals.feed_horses: 'full' is not a value of 'water' (in_source, in_bucket, in_trough)" },
      { "a start misses a variable", function(s) s.starts.morning.water = nil end,
        "saspu.domain: starts.morning: missing variable 'water'" },
      { "a start names an unknown value", function(s) s.starts.morning.bucket = "lost" end,
        "saspu.domain: starts.morning: 'lost' is not a value of 'bucket' (on_floor, in_hands)" },
    }
    for _, case in ipairs(cases) do
      it("raises when " .. case[1], function()
        assert.error_matches(compile_edited(case[2]), case[3], 1, true)
      end)
    end

    it("raises on a missing table", function()
      assert.error_matches(function() saspu.domain() end, "table expected, got no value", 1, true)
    end)

    it("cuts long lists of names", function()
      local values = {}
      for i = 1, 20 do values[i] = "v" .. i end
      assert.error_matches(function()
        saspu.domain { name = "long", variables = { { name = "x", values = values } },
                       actions = { { name = "a", var = "x", pre = "v1", post = "v99" } } }
      end, "(v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, ...)", 1, true)
    end)

    it("raises on too many values for one variable", function()
      local values = {}
      for i = 1, 256 do values[i] = "v" .. i end
      assert.error_matches(function()
        saspu.domain { name = "wide", variables = { { name = "x", values = values } }, actions = {} }
      end, "saspu.domain: variables[1] 'x': values: 256 values, at most 255 allowed (one byte per value, 255 means any)", 1, true)
    end)
  end)
end)

describe("saspu.Domain", function()
  describe("__tostring", function()
    it("says what it is", function()
      assert.equal("saspu.Domain 'horse_breeder' (7 actions, SAS-PUC*2)",
                   tostring(fixtures.domain("horse_breeder")))
      assert.equal("saspu.Domain 'citizen' (13 actions, SAS-PUCS2)",
                   tostring(fixtures.domain("citizen")))
      assert.equal("saspu.Domain 'acquisition_machine' (9 actions, SAS-PUC0)",
                   tostring(fixtures.domain("acquisition_machine")))
    end)
  end)

  describe("explain", function()
    it("gives the class and why", function()
      local text = fixtures.domain("horse_breeder"):explain()
      assert.truthy(text:find("'horse_breeder' is SAS-PUC*2", 1, true))
      assert.truthy(text:find("'bucket': 'drop_bucket' -> 'pick_up_bucket' -> 'drop_bucket'", 1, true))
      assert.truthy(text:find("'pick_up_bucket' ('bucket' = in_hands) requested by 'fill_bucket', 'fill_trough'",
                              1, true))
    end)

    it("says a SAS-PUC0 domain has no cycle", function()
      local text = fixtures.domain("acquisition_machine"):explain()
      assert.truthy(text:find("SAS-PUC0", 1, true))
      assert.truthy(text:find("cycles: none", 1, true))
    end)
  end)

  describe("actions", function()
    it("describes each action in declaration order", function()
      local actions = fixtures.domain("horse_breeder"):actions()
      assert.equal(7, #actions)
      assert.same({ id = 3, name = "fill_feeder", var = "haystack", pre = "in_hands",
                    post = "in_feeder", prevail = { bucket = "on_floor" }, params = { "pos" },
                    requestable = false, in_cycle = false }, actions[3])
      assert.same({ id = 4, name = "drop_bucket", var = "bucket", pre = "in_hands",
                    post = "on_floor", prevail = {}, params = { "pos" },
                    requestable = true, in_cycle = true }, actions[4])
    end)

    it("carries the parameters through", function()
      local actions = fixtures.domain("citizen"):actions()
      local params = {}
      for _, a in ipairs(actions) do params[a.name] = a.params end
      assert.same({ "pos" }, params.buy_food)
      assert.same({ "item", "pos" }, params.store)
      assert.same({ "item", "pos" }, params.take)
      assert.same({ "with", "pos" }, params.debate)
      assert.same({ "pos" }, params.rest)
      assert.same({ "item", "pos" }, params.work)
      assert.same({}, params.eat)
    end)

    it("returns copies", function()
      local dom = fixtures.domain("citizen")
      dom:actions()[1].params[1] = "changed"
      assert.same({ "pos" }, dom:actions()[1].params)
    end)
  end)

  describe("variables", function()
    it("describes each variable with its values and cycles", function()
      local vars = fixtures.domain("horse_breeder"):variables()
      assert.same({
        { id = 1, name = "haystack", values = { "stored", "in_hands", "in_feeder" },
          cycles = { { "drop_haystack", "take_haystack" } } },
        { id = 2, name = "bucket", values = { "on_floor", "in_hands" },
          cycles = { { "drop_bucket", "pick_up_bucket" } } },
        { id = 3, name = "water", values = { "in_source", "in_bucket", "in_trough" },
          cycles = {} },
      }, vars)
    end)

    it("lists one cycle per part of a disconnected domain-action graph", function()
      local dom = saspu.domain {
        name = "two_switches",
        variables = { { name = "x", values = { "a", "b", "c", "d" } } },
        actions = {
          { name = "ab", var = "x", pre = "a", post = "b" },
          { name = "ba", var = "x", pre = "b", post = "a" },
          { name = "cd", var = "x", pre = "c", post = "d" },
          { name = "dc", var = "x", pre = "d", post = "c" },
        },
      }
      assert.same({ { "ab", "ba" }, { "cd", "dc" } }, dom:variables()[1].cycles)
    end)
  end)

  describe("goals and starts", function()
    it("returns the declared goals and starts, saspu.KEEP where a goal keeps a start value", function()
      local dom = fixtures.domain("horse_breeder")
      assert.same({
        feed_horses = { haystack = "in_feeder", bucket = "on_floor", water = "in_trough" },
        fill_feeder = { haystack = "in_feeder", bucket = "on_floor", water = saspu.KEEP },
        fill_trough = { haystack = saspu.KEEP, bucket = "on_floor", water = "in_trough" },
      }, dom:goals())
      assert.same({
        morning = { haystack = "stored", bucket = "on_floor", water = "in_source" },
        holding_haystack = { haystack = "in_hands", bucket = "on_floor", water = "in_source" },
      }, dom:starts())
    end)
  end)

  describe("close", function()
    it("frees the domain; later calls raise and tostring says closed", function()
      local dom = fixtures.domain("horse_breeder")
      dom:close()
      dom:close() -- idempotent
      assert.equal("saspu.Domain (closed)", tostring(dom))
      assert.error_matches(function() dom:plan("morning", "feed_horses") end,
                           "saspu.Domain is closed", 1, true)
      assert.error_matches(function() return dom.class end, "saspu.Domain is closed", 1, true)
    end)

    local close_it = compat.with_close and it or pending
    close_it("closes a to-be-closed variable at the end of its scope (Lua 5.4)", function()
      local outer
      compat.with_close(function() return fixtures.domain("horse_breeder") end, function(dom)
        outer = dom
        assert.equal("SAS-PUC*2", dom.class)
      end)
      assert.equal("saspu.Domain (closed)", tostring(outer))
    end)

    it("checks the self argument", function()
      local dom = fixtures.domain("horse_breeder")
      assert.error_matches(function() dom.plan({}, "morning", "feed_horses") end,
                           "saspu.Domain expected, got table", 1, true)
    end)
  end)
end)

describe("saspu.load", function()
  it("returns the plain table of a domain file", function()
    local spec = saspu.load("domains/horse_breeder.lua")
    assert.equal("horse_breeder", spec.name)
    assert.equal(7, #spec.actions)
  end)

  it("runs the file in a safe environment: string, no io", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("return { name = string.rep('x', 2), io = io }")
    f:close()
    assert.same({ name = "xx" }, saspu.load(path))
    os.remove(path)
  end)

  it("compiles a domain file with saspu.domain_file", function()
    assert.equal("saspu.Domain 'citizen' (13 actions, SAS-PUCS2)",
                 tostring(saspu.domain_file("domains/citizen.lua")))
  end)

  it("raises on a missing file", function()
    assert.error_matches(function() saspu.load("domains/nope.lua") end, "saspu.load:", 1, true)
  end)
end)
