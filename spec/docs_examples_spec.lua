-- spec/docs_examples_spec.lua: every ```lua example of README.md and docs/*.md runs and prints what the guide says.
local docs = require "support.docs"

-- README.md and docs/*.md (ls: this spec starts a process, so the TSan stage skips it).
local function guides()
  local list = {}
  local p = io.popen("ls docs/*.md")
  for name in p:lines() do list[#list + 1] = name end
  p:close()
  table.sort(list)
  table.insert(list, 1, "README.md")
  return list
end

describe("the guides' examples", function()
  for _, path in ipairs(guides()) do
    for _, prog in ipairs(docs.programs(path)) do
      it("run as printed: " .. path .. ":" .. prog.line, function()
        docs.run(path, prog)
      end)
    end
  end
end)

describe("support.docs", function()
  it("reads blocks, joins continued ones and skips those marked not run", function()
    local name = os.tmpname()
    local f = assert(io.open(name, "w"))
    f:write(table.concat({
      "```lua", "local saspu = require \"saspu\"", "local x = 2", "```",
      "text", "```lua", "print(x + 1)   --> 3", "```",
      "<!-- not run: needs a game -->", "```lua", "game.draw()", "```",
      "```lua", "local saspu = require \"saspu\"", "print(\"a\", 1.5, saspu.grid(2, 3))  --> a   1.5 saspu.Grid ...", "```",
    }, "\n"))
    f:close()
    local progs = docs.programs(name)
    assert.equal(2, #progs)
    assert.same({ 1, 13 }, { progs[1].line, progs[2].line })
    assert.same({ "3" }, progs[1].expects)
    assert.same({ "3" }, docs.run(name, progs[1]))
    assert.same({ "a\t1.5\tsaspu.Grid 2x3" }, docs.run(name, progs[2]))
    os.remove(name)
  end)

  it("fails on a wrong output and on an expectation never reached", function()
    local prog = { line = 7, code = "__expect(1, 4)", expects = { "5" } }
    assert.error_matches(function() docs.run("x.md", prog) end,
      'x.md:7: example prints "4", the guide says "5"', 1, true)
    prog = { line = 9, code = "if false then __expect(1, 4) end", expects = { "4" } }
    assert.error_matches(function() docs.run("x.md", prog) end,
      'x.md:9: the example never printed "4"', 1, true)
  end)

  it("compares whitespace runs, ... and integral floats loosely, the rest exactly", function()
    assert.is_true(docs.matches("saspu.Grid 5x5   table: ...   7.0", "saspu.Grid 5x5\ttable: 0x55d0\t7"))
    assert.is_true(docs.matches("7.0", "7.0"))
    assert.is_false(docs.matches("7.5", "7"))
    assert.is_false(docs.matches("a b", "a bc"))
    assert.is_false(docs.matches("(x)", "x"))
  end)
end)
