-- spec/town_spec.lua: saspu.town and the Western town map: letters and legend, the places the cast's actions need, the grid, every place reachable from the saloon.
local saspu = require "saspu"
local town = require "saspu.town"
local fixtures = require "support.domains"

local MAP, LEGEND = "domains/town/town.txt", "domains/town/legend.lua"

describe("saspu.town.parse", function()
  local legend = { S = { kind = "saloon_bar", capacity = 3 }, w = { kind = "well" } }

  it("turns letters into ground and lists the places in reading order, 1-based", function()
    local t = town.parse("#S=\n.w.\n=S#\n", legend)
    assert.equal("#.=\n...\n=.#\n", t.ascii)
    assert.equal(3, t.width)
    assert.equal(3, t.height)
    assert.same({
      { name = "saloon_bar_1", kind = "saloon_bar", x = 2, y = 1, capacity = 3, letter = "S" },
      { name = "well_1", kind = "well", x = 2, y = 2, capacity = 1, letter = "w" },
      { name = "saloon_bar_2", kind = "saloon_bar", x = 2, y = 3, capacity = 3, letter = "S" },
    }, t.places)
    assert.same({ "saloon_bar", "well" }, town.kinds(t))
  end)

  it("names the file, line and column of a letter not in the legend", function()
    assert.error_matches(function() town.parse("..\n.q\n", legend, "town.txt") end,
      "saspu.town: town.txt line 2, column 2: letter 'q' is not in the legend", 1, true)
  end)

  it("refuses a bad legend", function()
    assert.error_matches(function() town.parse(".", { S = { kind = "" } }) end,
      "saspu.town: map: legend['S'].kind must be a non-empty string", 1, true)
    assert.error_matches(function() town.parse(".", { S = { kind = "bar", capacity = 0 } }) end,
      "legend['S'].capacity must be a positive integer, got 0", 1, true)
    assert.error_matches(function() town.parse(".", { S = { kind = "bar", size = 2 } }) end,
      "legend['S']: unknown field 'size' (expected kind, capacity)", 1, true)
    assert.error_matches(function() town.parse(".", { ["1"] = { kind = "bar" } }) end,
      "legend key 1 is not a single letter", 1, true)
  end)
end)

describe("the Western town map", function()
  local t = town.load(MAP, LEGEND)
  local legend = saspu.load(LEGEND)

  it("is 256x256 and every letter on it is in the legend", function()
    assert.equal(256, t.width)
    assert.equal(256, t.height)
    local f = assert(io.open(MAP))
    local text = f:read("*a")
    f:close()
    for letter in text:gmatch("%a") do assert.is_table(legend[letter]) end
    -- and the map is only walls, ground, roads and letters, every row 256 wide
    for line in text:gmatch("(.-)\n") do
      assert.equal(256, #line)
      assert.is_nil(line:find("[^#.=%a]"))
    end
  end)

  it("is what tools/make_town.lua draws", function()
    local pipe = assert(io.popen("lua5.4 tools/make_town.lua"))
    local drawn = pipe:read("*a")
    pipe:close()
    local f = assert(io.open(MAP))
    assert.equal(f:read("*a"), drawn)
    f:close()
  end)

  it("has a place of every kind the cast's actions happen at", function()
    local places, kinds, missing = saspu.load("domains/town/places.lua"), {}, {}
    for _, kind in ipairs(town.kinds(t)) do kinds[kind] = true end
    for _, class in ipairs(fixtures.cast) do
      local at = places[class]
      assert.is_table(at, class)
      local dom = fixtures.domain(class)
      local with_pos = {}
      for _, a in ipairs(dom:actions()) do
        for _, p in ipairs(a.params) do
          if p == "pos" then with_pos[a.name] = true end
        end
        if with_pos[a.name] and not at[a.name] then
          missing[#missing + 1] = class .. "." .. a.name .. ": no place kind"
        end
      end
      for action, kind in pairs(at) do
        if not with_pos[action] then
          missing[#missing + 1] = class .. "." .. action .. ": not an action with a pos param"
        end
        if not kinds[kind] then
          missing[#missing + 1] = class .. "." .. action .. ": kind '" .. kind .. "' not on the map"
        end
      end
    end
    table.sort(missing)
    assert.same({}, missing)
  end)

  it("loads into a grid where every place can be walked to from the saloon", function()
    local g = town.grid(t)
    assert.equal(256, g:width())
    local from
    for _, p in ipairs(t.places) do
      if p.kind == "saloon_bar" then from = from or p end
    end
    local unreachable = {}
    for _, p in ipairs(t.places) do
      assert.is_false(g:is_blocked(p.x, p.y))
      local path, why = g:path(from.x, from.y, p.x, p.y)
      if not path then unreachable[#unreachable + 1] = p.name .. ": " .. why end
    end
    assert.same({}, unreachable)
    g:close()
  end)
end)
