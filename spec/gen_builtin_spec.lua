-- spec/gen_builtin_spec.lua: csrc/builtin/western_cast.c is exactly what tools/gen_builtin.lua makes of the domain files today.
local gen = dofile("tools/gen_builtin.lua")

local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

-- The first line where two texts differ, for the failure message.
local function first_difference(a, b)
  local n = 1
  local ia, ib = a:gmatch("([^\n]*)\n?"), b:gmatch("([^\n]*)\n?")
  while true do
    local la, lb = ia(), ib()
    if la ~= lb then
      return string.format("line %d: committed %q, generated %q", n, tostring(la), tostring(lb))
    end
    if la == nil then return "" end
    n = n + 1
  end
end

describe("tools/gen_builtin.lua", function()
  it("generates the committed csrc/builtin/western_cast.c from domains/", function()
    local committed, generated = read(gen.output), gen.generate()
    if committed ~= generated then
      error(gen.output .. " is out of date with domains/*.lua (" ..
            first_difference(committed, generated) ..
            "): run tools/gen_builtin.lua (lua5.4 tools/gen_builtin.lua) and commit the result", 0)
    end
  end)

  it("covers the seven classes of the Western cast in the papers' order", function()
    local fixtures = require "support.domains"
    assert.same(fixtures.cast, gen.cast)
  end)

  it("names the file and the unknown value of a broken domain table", function()
    local dir = os.tmpname()
    os.remove(dir)
    local status = os.execute("mkdir -p " .. dir .. "/domains")
    assert.is_true(status == true or status == 0) -- 5.2+ / 5.1 and LuaJIT
    local f = assert(io.open(dir .. "/domains/horse_breeder.lua", "w"))
    f:write((read("domains/horse_breeder.lua"):gsub('post = "in_feeder"', 'post = "full"')))
    f:close()
    local ok, err = pcall(gen.generate, dir)
    os.remove(dir .. "/domains/horse_breeder.lua")
    os.remove(dir .. "/domains")
    os.remove(dir)
    assert.is_false(ok)
    assert.matches("horse_breeder.lua: actions[3] 'fill_feeder': 'full' is not a value of 'haystack'",
                   err, 1, true)
  end)
end)
