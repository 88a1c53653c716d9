-- spec/reload_spec.lua: saspu.live: reloading a changed domain file moves populations over by name; a broken file changes nothing.
local saspu = require "saspu"

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function horse_text()
  local f = assert(io.open("domains/horse_breeder.lua"))
  local text = f:read("*a")
  f:close()
  return text
end

describe("saspu.live", function()
  it("carries states and goals over by name and replans every NPC", function()
    local path = os.tmpname()
    write(path, horse_text())
    local live = saspu.live(path)
    local pop = live:population("breeders", 10)
    pop:set_states(1, live.domain:encode("holding_haystack"):rep(10))
    pop:set_goal_all("fill_feeder")
    pop:plan({ threads = 1 })
    assert.same({ "fill_feeder" }, pop:plan_of(3))
    -- the new file lists the values of 'haystack' in another order and adds an action
    local text = horse_text():gsub('{ "stored", "in_hands", "in_feeder" }', '{ "in_feeder", "stored", "in_hands" }')
      :gsub('actions = {', 'actions = {\n    { name = "drain_trough", var = "water", pre = "in_trough", post = "in_source" },', 1)
    write(path, text)
    local moved = {}
    live:on_reload(function(new, old, translate)
      moved[1] = translate(old:encode("holding_haystack")) == new:encode("holding_haystack")
    end)
    assert.is_true(live:reload_if_changed())
    assert.is_nil(live:reload_if_changed())
    assert.is_true(moved[1])
    pop = live:population("breeders")
    assert.equal(8, #live.domain:actions())
    assert.equal("in_hands", live.domain:decode(pop:state(3)).haystack)
    assert.equal("dirty", select(2, pop:status(3)) and "dirty" or "clean")
    pop:plan({ threads = 1 })
    assert.same({ "fill_feeder" }, pop:plan_of(3))
    os.remove(path)
  end)
  it("reloads where table.unpack does not exist (Lua 5.1 outside busted)", function()
    local live = saspu.live("domains/horse_breeder.lua")
    local pop = live:population("breeders", 3)
    pop:set_goal_all("fill_trough")
    local saved = table.unpack
    table.unpack = nil -- luacheck: ignore
    local ok, reloaded, err = pcall(live.reload, live)
    table.unpack = saved -- luacheck: ignore
    assert.is_true(ok, tostring(reloaded))
    assert.is_true(reloaded, err)
    assert.equal(3, live:population("breeders"):size())
  end)

  it("keeps the running version when the new file has an error", function()
    local path = os.tmpname()
    write(path, horse_text())
    local live = saspu.live(path)
    local pop = live:population("breeders", 4)
    write(path, horse_text():gsub('post = "in_feeder"', 'post = "in_fedeer"'))
    local ok, err = live:reload()
    assert.is_false(ok)
    assert.matches(path .. ": saspu.domain: actions[3] 'fill_feeder': post", err, 1, true)
    assert.equal(pop, live:population("breeders"))
    assert.equal(7, #live.domain:actions())
    os.remove(path)
  end)
end)
