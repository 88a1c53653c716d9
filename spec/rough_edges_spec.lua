-- spec/rough_edges_spec.lua: inputs a new user met that were silently accepted or confusingly rejected.
local saspu = require "saspu"
local check = require "saspu.test"

local HORSE = "domains/horse_breeder.lua"

-- Writes text to a temporary domain file; returns its path.
local function domain_file(text)
  local f = os.tmpname()
  local h = assert(io.open(f, "w"))
  h:write(text)
  h:close()
  return f
end

describe("saspu.domain shapes", function()
  it("rejects actions given as a map keyed by name", function()
    assert.error_matches(function()
      saspu.domain({ name = "x", variables = { { name = "a", values = { "0", "1" } } },
        actions = { go = { var = "a", pre = "0", post = "1" } } })
    end, "saspu.domain: actions: expected an array in declaration order, { { name = ", 1, true)
  end)
  it("says what shape variables take when given a map", function()
    assert.error_matches(function()
      saspu.domain({ name = "x", variables = { a = { values = { "0", "1" } } }, actions = {} })
    end, "variables: expected an array in declaration order, { { name = \"bucket\", values = "
      .. "{ \"on_floor\", \"in_hands\" } }, ... }, got a table with the key 'a'", 1, true)
  end)
end)

describe("saspu.domain_file", function()
  it("names the file and the caller's line on a compile error", function()
    local f = domain_file('return { name = "x", variables = { { name = "a", values = { "0" } } }, actions = {} }')
    local line = debug.getinfo(1, "l").currentline + 1
    local ok, err = pcall(function() local dom = saspu.domain_file(f); return dom end)
    os.remove(f)
    assert.is_false(ok)
    assert.matches("rough_edges_spec.lua:" .. line .. ": " .. f .. ": saspu.domain: variables[1]", err, 1, true)
  end)
  it("names the file and line of an error the file raises", function()
    local f = domain_file("local x = nil\nreturn x.y\n")
    local ok, err = pcall(saspu.domain_file, f)
    os.remove(f)
    assert.is_false(ok)
    assert.matches("saspu.load: " .. f .. ":2:", err, 1, true)
  end)
  it("runs files with ipairs, string, table and math but no io or os", function()
    local f = domain_file([[
      local actions = {}
      for i, v in ipairs({ "0", "1", "2" }) do
        if i > 1 then
          actions[#actions + 1] = { name = string.format("up%d", i), var = "n", pre = ({ "0", "1", "2" })[i - 1], post = v }
        end
      end
      assert(io == nil and os == nil and require == nil and load == nil)
      table.sort(actions, function(a, b) return a.name < b.name end)
      return { name = "counter", variables = { { name = "n", values = { "0", "1", "2" } } },
        actions = actions, starts = { zero = { n = "0" } }, goals = { two = { n = tostring(math.max(1, 2)) } } }
    ]])
    local dom = saspu.domain_file(f)
    os.remove(f)
    assert.same({ "up2", "up3" }, dom:plan("zero", "two"))
  end)
  it("keeps a file from changing the caller's string library", function()
    local f = domain_file('string.upper = nil\nreturn { name = "y", variables = { { name = "a", values = { "0", "1" } } }, actions = {} }')
    saspu.domain_file(f)
    os.remove(f)
    assert.equal("ABC", string.upper("abc"))
  end)
end)

describe("dom:plan, dom:plan_ids, dom:action_id", function()
  local dom = saspu.domain_file(HORSE)
  it("accepts packed states", function()
    assert.same(dom:plan("morning", "feed_horses"),
      dom:plan(dom:encode("morning"), dom:encode("feed_horses", "morning")))
  end)
  it("lists the starts and the packed form for an unknown start", function()
    assert.error_matches(function() dom:plan("noon", "feed_horses") end,
      "start: unknown start 'noon' (holding_haystack, morning; or a packed state of 3 bytes from dom:encode)", 1, true)
  end)
  it("tells plan_ids that value names need dom:encode", function()
    assert.error_matches(function() dom:plan_ids({ "stored", "on_floor", "in_source" }, dom:encode("morning")) end,
      "got value names; this fast path takes a packed state (dom:encode(state))", 1, true)
    assert.error_matches(function() dom:plan_ids({ haystack = "stored" }, dom:encode("morning")) end,
      "got value names", 1, true)
  end)
  it("raises on an unknown action name", function()
    assert.error_matches(function() dom:action_id("dance") end,
      "saspu.Domain:action_id: no action named 'dance' (drop_bucket, ", 1, true)
  end)
end)

describe("saspu.test checks that do not pin the order", function()
  local dom = saspu.domain_file(HORSE)
  it("reaches, contains and plan_length pass on the planner's plan", function()
    assert.reaches(dom, "morning", "feed_horses")
    assert.contains(dom, "morning", "feed_horses", { "fill_feeder", "fill_bucket" })
    assert.plan_length(dom, "morning", "fill_trough", 4)
    assert.replays(dom, "morning", { "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket" },
                   "fill_trough")
  end)
  it("fail with a message naming what differs", function()
    assert.error_matches(function() check.plan_length(dom, "morning", "fill_trough", 2) end,
      "expected a plan of 2 actions, got 4", 1, true)
    assert.error_matches(function() check.contains(dom, "morning", "fill_trough", { "fill_feeder" }) end,
      "expected the plan to use 'fill_feeder'", 1, true)
    -- the haystack and the bucket both in hand: each needs the other put down first
    local both_in_hand = { haystack = "in_hands", bucket = "in_hands", water = "in_trough" }
    assert.error_matches(function() check.reaches(dom, "holding_haystack", both_in_hand) end,
      "expected a plan, got none", 1, true)
  end)
  it("works without this repository's .busted (plain interpreter, paths from ./dev env)", function()
    local pwd = io.popen("pwd")
    local root = pwd:read("*l")
    pwd:close()
    local build = os.getenv("SASPU_BUILD_DIR") or "build"
    if build:sub(1, 1) ~= "/" then build = root .. "/" .. build end
    local lua = os.getenv("SASPU_LUA") or "lua5.4" -- the interpreter the module was built for
    local cmd = "cd /tmp && LUA_PATH='" .. root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;;' "
      .. "LUA_CPATH='" .. build .. "/?.so;;' " .. lua .. " -e 'local t = require \"saspu.test\"; "
      .. "local s = require \"saspu\"; t.plan_length(s.domain_file(\"" .. root .. "/" .. HORSE
      .. "\"), \"morning\", \"fill_trough\", 4)'"
    local ok = os.execute(cmd)
    assert.is_true(ok == true or ok == 0) -- 5.1 and LuaJIT return the exit status
  end)
end)

describe("world:crowd's options", function()
  it("refuses a misspelt option at the caller's line, naming it and the options there are", function()
    local dom = saspu.domain_file(HORSE)
    local world = saspu.world()
    local ok, err = pcall(function() local c = world:crowd(dom, {}, { sped = 3, capacity = 4 }); return c end)
    assert.is_false(ok)
    assert.matches("rough_edges_spec.lua:%d+: saspu.World:crowd: unknown option 'sped' %(options: capacity,", err)
    assert.same({}, world:crowds()) -- nothing made
    local c = world:crowd(dom, {}, { speed = 3, capacity = 4, movement = "grid", seed = 2 })
    assert.equal(0, c:size())
    world:close()
  end)
end)
