-- spec/tools_spec.lua: the saspu command (lua/saspu/cli.lua), DOT pictures rendered by Graphviz, and the class problems of an outside domain.
local saspu = require "saspu"
local cli = require "saspu.cli"

local GRAY = "spec/support/gray.lua"
local HORSE = "domains/horse_breeder.lua"

-- Runs the command with args; returns status, stdout text, stderr text.
local function run(...)
  local out, err = {}, {}
  local function sink(t) return { write = function(_, ...) for _, s in ipairs({ ... }) do t[#t + 1] = s end end } end
  local status = cli.main({ ... }, sink(out), sink(err))
  return status, table.concat(out), table.concat(err)
end

local function has_dot()
  return os.execute("command -v dot >/dev/null 2>&1") == true
end

-- Renders DOT text to SVG with Graphviz; returns the SVG text.
local function render_svg(text)
  local file = os.tmpname() .. ".svg"
  assert.is_true(cli.render(text, file))
  local f = assert(io.open(file))
  local svg = f:read("*a")
  f:close()
  os.remove(file)
  return svg
end

describe("saspu check", function()
  it("passes in-class domains and exits 0", function()
    local status, out = run("check", HORSE, "domains/citizen.lua")
    assert.equal(0, status)
    assert.matches("horse_breeder.lua: ok: 'horse_breeder' is SAS-PUC*2 (3 variables, 7 actions)", out, 1, true)
  end)
  it("fails an outside domain with every problem and the prevails to drop, exit 1", function()
    local status, out = run("check", HORSE, GRAY)
    assert.equal(1, status)
    assert.matches("gray.lua: FAILED: 'gray' is outside", out, 1, true)
    assert.matches("cut all 2 paths (drop the prevail 'bit1' = 1 of 'set2' and the prevail 'bit1' = 1 of 'reset2')", out, 1, true)
  end)
  it("writes JSON with --json", function()
    local status, out = run("check", "--json", GRAY)
    assert.equal(1, status)
    assert.matches('"ok":false', out, 1, true)
    assert.matches('"class":"outside"', out, 1, true)
    assert.matches('"variable":"bit0"', out, 1, true)
  end)
  it("names the file of a bad domain", function()
    local f = os.tmpname()
    local h = assert(io.open(f, "w"))
    h:write('return { name = "x", variables = { { name = "a", values = { "0", "1" } } },\n',
      '  actions = { go = { var = "a", pre = "0", post = "1" } } }\n')
    h:close()
    local status, out = run("check", f)
    os.remove(f)
    assert.equal(1, status)
    assert.matches(f .. ": FAILED: saspu.domain: actions: expected an array", out, 1, true)
  end)
end)

describe("saspu plan, order, explain, bench, help", function()
  it("prints each step with the state after it", function()
    local status, out = run("plan", HORSE, "morning", "fill_trough")
    assert.equal(0, status)
    assert.matches("  3. fill_trough    haystack=stored bucket=in_hands water=in_trough", out, 1, true)
    assert.matches("  4. drop_bucket    haystack=stored bucket=on_floor water=in_trough", out, 1, true)
  end)
  it("reads a goal as a condition, and keeps left-out start values with --keep", function()
    local status, out = run("plan", HORSE, "morning", "water=in_trough")
    assert.equal(0, status)
    assert.matches("plan of 3 actions from morning", out, 1, true)
    assert.matches("  3. fill_trough    haystack=stored bucket=in_hands water=in_trough", out, 1, true)
    status, out = run("plan", "--keep", HORSE, "morning", "water=in_trough")
    assert.equal(0, status)
    assert.matches("plan of 4 actions from morning", out, 1, true)
    assert.matches("  4. drop_bucket    haystack=stored bucket=on_floor water=in_trough", out, 1, true)
  end)
  it("takes var=value states and explains a missing plan with exit 1", function()
    local status, out = run("plan", HORSE, "haystack=in_hands,bucket=on_floor,water=in_source",
                            "haystack=in_hands,bucket=in_hands,water=in_trough")
    assert.equal(1, status)
    assert.matches("no plan: ", out, 1, true)
  end)
  it("lists the partial order by kind", function()
    local status, out = run("order", HORSE, "morning", "feed_horses")
    assert.equal(0, status)
    for _, kind in ipairs({ "pre", "prevail", "threat", "restore" }) do
      assert.matches("-" .. kind .. "-> ", out, 1, true)
    end
  end)
  it("explains an outside domain", function()
    local status, out = run("explain", GRAY)
    assert.equal(0, status)
    assert.matches("(1 problem)", out, 1, true)
  end)
  it("benches cold and cached plans per second: the median of the runs and their range", function()
    local status, out = run("bench", "--npcs", "2000", "--runs", "3", HORSE)
    assert.equal(0, status)
    assert.matches("1 thread, 3 runs\n", out, 1, true)
    for _, row in ipairs { "cold:  ", "cached:" } do
      local mid, lo, hi = out:match(row .. " +(%d+) plans/s %(median; range (%d+)%-(%d+), [-+]%d+%.%d%% / [-+]%d+%.%d%%%)")
      assert.is_string(mid, out)
      assert.is_true(tonumber(lo) <= tonumber(mid) and tonumber(mid) <= tonumber(hi), out)
    end
    local _, _, err = run("bench", "--runs", "0", HORSE)
    assert.matches("--runs: expected a positive count", err, 1, true)
    _, _, err = run("bench", "--fast", HORSE)
    assert.matches("unknown option '--fast'", err, 1, true)
  end)
  it("has --help for every command and rejects unknown ones", function()
    for _, c in ipairs({ "check", "explain", "plan", "graph", "order", "bench" }) do
      local status, out = run(c, "--help")
      assert.equal(0, status)
      assert.matches("usage: saspu " .. c, out, 1, true)
    end
    local status, _, err = run("frobnicate")
    assert.equal(2, status)
    assert.matches("unknown command 'frobnicate'", err, 1, true)
  end)
end)

describe("dom:problems", function()
  it("lists the problem cycle and a connecting path checked against the domain", function()
    local dom = saspu.domain_file(GRAY, { allow_outside = true })
    local p = dom:problems()
    assert.equal(1, #p)
    assert.equal("bit0", p[1].variable)
    assert.same({ "set0", "reset0" }, p[1].cycle)
    assert.is_true(p[1].connected)
    -- every step of the path is an edge of the action graph
    local info = {}
    for _, a in ipairs(dom:actions()) do info[a.name] = a end
    for i = 2, #p[1].path do
      local x, y = p[1].path[i - 1], p[1].path[i]
      local from, to = x, y
      if not y.forward then from, to = y, x end
      local need = info[to.action]
      if y.edge == "pre" then
        assert.equal(from.variable, need.var)
        assert.equal(from.value, need.pre)
      else
        assert.equal(from.value, need.prevail[from.variable])
      end
    end
    assert.same({}, saspu.domain_file(HORSE):problems())
  end)
end)

describe("dom:graph and dom:plan_graph", function()
  it("draws value graphs, requester edges and requestable actions", function()
    local dot = saspu.domain_file(HORSE):graph()
    assert.matches('"value bucket = on_floor" -> "value bucket = in_hands" [label="pick_up_bucket *"', dot, 1, true)
    assert.matches('"action pick_up_bucket" -> "action fill_bucket" [style=dashed, label="bucket = in_hands"]', dot, 1, true)
    assert.matches('"action drop_bucket" [shape=box, label="drop_bucket", style=filled', dot, 1, true)
  end)
  it("draws the problem cycle and its path in red", function()
    local dot = saspu.domain_file(GRAY, { allow_outside = true }):graph()
    assert.matches('"action set1" -> "action set2" [style=dashed, label="bit1 = 1", color=red', dot, 1, true)
    assert.matches('label="set0 *", style=bold, fontcolor=blue, color=red', dot, 1, true)
  end)
  it("tells the order kinds apart", function()
    local dot = saspu.domain_file(HORSE):plan_graph("morning", "feed_horses")
    assert.matches('[label="threat", style=dotted', dot, 1, true)
    assert.matches('[label="restore", style=bold', dot, 1, true)
  end)
  it("renders with Graphviz", function()
    if not has_dot() then
      pending("Graphviz dot is not installed (./dev installs it)")
      return
    end
    for _, file in ipairs({ HORSE, GRAY, "domains/citizen.lua" }) do
      local dom = saspu.domain_file(file, { allow_outside = true })
      assert.matches("<svg", render_svg(dom:graph()), 1, true)
    end
    local dom = saspu.domain_file(HORSE)
    assert.matches("<svg", render_svg(dom:plan_graph("morning", "feed_horses")), 1, true)
  end)
end)

describe("bin/saspu installed by CMake", function()
  -- true when the shell command succeeds (os.execute returns 0 on 5.1 and LuaJIT)
  local function sh(cmd)
    local r = os.execute(cmd)
    return r == true or r == 0
  end

  it("runs from its prefix with that prefix off Lua's paths", function()
    local build = os.getenv("SASPU_BUILD_DIR") or "build"
    local probe = io.open(build .. "/cmake_install.cmake")
    if not probe then
      pending("no CMake build folder at " .. build .. " (luarocks test): nothing installed to try")
      return
    end
    probe:close()
    local p = assert(io.popen("pwd"))
    local root = p:read("*l")
    p:close()
    local prefix = os.tmpname()
    os.remove(prefix)
    assert.is_true(sh("cmake --install " .. build .. " --prefix " .. prefix .. " >/dev/null 2>&1"))
    -- from /, no LUA_PATH or LUA_CPATH of any version: only Lua's built-in paths
    local clear = "env"
    for _, v in ipairs { "", "_5_1", "_5_2", "_5_3", "_5_4" } do
      clear = clear .. " -u LUA_PATH" .. v .. " -u LUA_CPATH" .. v
    end
    p = assert(io.popen("cd / && " .. clear .. " " .. prefix .. "/bin/saspu plan " .. root
                        .. "/domains/horse_breeder.lua morning feed_horses 2>&1"))
    local out = p:read("*a")
    p:close()
    sh("rm -rf " .. prefix)
    assert.matches("6. fill_feeder", out, 1, true)
  end)
end)
