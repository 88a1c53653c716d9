-- spec/paper_names_spec.lua: domains/horse_breeder*.lua carry exactly the names of tests/support/paper_names.h, which tests/test_paper_names.c checks against the C builtins.
local fixtures = require "support.domains"
local saspu = require "saspu"

-- The PAPER_NAMES_ macros of the header, expanded: name -> text.
local function read_names(path)
  local f = assert(io.open(path, "r"))
  local src = f:read("*a")
  f:close()
  local bodies = {}
  -- a #define's body runs over the lines that end with a backslash
  for name, body in src:gmatch("#define (PAPER_NAMES_[%w_]+)(.-[^\\])\n") do
    bodies[name] = body
  end
  local texts = {}
  local function expand(name)
    if texts[name] then return texts[name] end
    -- string literals and macro names, in the order written
    local out, pos = {}, 1
    local body = bodies[name]
    while true do
      local s, e, str = body:find('^%s*\\?%s*"([^"]*)"', pos)
      if s then
        out[#out + 1] = str:gsub("\\n", "\n")
        pos = e + 1
      else
        local ms, me, macro = body:find("^%s*\\?%s*(PAPER_NAMES_[%w_]+)", pos)
        if not ms then break end
        out[#out + 1] = expand(macro)
        pos = me + 1
      end
    end
    texts[name] = table.concat(out)
    return texts[name]
  end
  return expand
end

-- The canonical text of a domain file, in the header's format.
local function dump(spec)
  local lines = { "domain " .. spec.name }
  for _, v in ipairs(spec.variables) do
    lines[#lines + 1] = "var " .. v.name .. " " .. table.concat(v.values, " ")
  end
  local function state(s)
    local out = {}
    for _, v in ipairs(spec.variables) do
      -- the header lists what a goal sets: saspu.KEEP (the start value) is left out
      if s[v.name] ~= nil and s[v.name] ~= saspu.KEEP then
        out[#out + 1] = " " .. v.name .. "=" .. tostring(s[v.name])
      end
    end
    return table.concat(out)
  end
  for _, a in ipairs(spec.actions) do
    lines[#lines + 1] = ("act %s %s %s %s%s"):format(a.name, a.var, a.pre, a.post,
                                                    state(a.prevail or {}))
  end
  for _, kind in ipairs { "start", "goal" } do
    local list = spec[kind .. "s"]
    for _, name in ipairs(fixtures.sorted_keys(list)) do
      lines[#lines + 1] = kind .. " " .. name .. state(list[name])
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

describe("the paper domains' names", function()
  local names = read_names("tests/support/paper_names.h")

  it("reads the header's texts", function()
    assert.truthy(names("PAPER_NAMES_HORSE_BREEDER"):find("^domain horse_breeder\nvar haystack"))
    assert.truthy(names("PAPER_NAMES_HORSE_BREEDER"):find(
      "act fill_feeder haystack in_hands in_feeder bucket=on_floor\n", 1, true))
    assert.truthy(names("PAPER_NAMES_HORSE_BREEDER_IJCAI"):find(
      "act fill_feeder haystack in_hands in_feeder\n", 1, true))
  end)

  it("are those of domains/horse_breeder.lua (SSCI 2022 table)", function()
    assert.equal(names("PAPER_NAMES_HORSE_BREEDER"), dump(saspu.load("domains/horse_breeder.lua")))
  end)

  it("are those of domains/horse_breeder_ijcai.lua (IJCAI 2023 / CNIA 2022 tables)", function()
    assert.equal(names("PAPER_NAMES_HORSE_BREEDER_IJCAI"),
                 dump(saspu.load("domains/horse_breeder_ijcai.lua")))
  end)

  it("differ between the variants on fill_feeder's prevail only", function()
    local ssci = saspu.domain_file("domains/horse_breeder.lua")
    local ijcai = saspu.domain_file("domains/horse_breeder_ijcai.lua")
    assert.equal("SAS-PUC*2", ssci.class)
    assert.equal("SAS-PUC*2", ijcai.class)
    -- the feeder filled with the bucket in hand: only the IJCAI table allows it
    local s = { haystack = "in_hands", bucket = "in_hands", water = "in_source" }
    local g = { haystack = "in_feeder", bucket = "in_hands", water = "in_source" }
    assert.same({ "fill_feeder" }, ijcai:plan(s, g))
    local plan, why = ssci:plan(s, g)
    assert.is_nil(plan)
    assert.equal("fill_feeder", why.action)
  end)
end)
