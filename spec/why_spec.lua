-- spec/why_spec.lua: "no plan" names the real blocker (variable, value now, value needed, missing link) in events, inspect, crowd:why, dom:plan and the CLI.
local saspu = require "saspu"

-- The sheriff of issue 22: an escaped outlaw, a value no action leaves; the goal wants
-- him in a cell, which only `arrest` (from at_large) gives. A deputy must be sworn in
-- for the arrest.
local SHERIFF = {
  name = "sheriff",
  variables = {
    { name = "outlaw", values = { "at_large", "in_cell", "escaped" } },
    { name = "deputy", values = { "civilian", "sworn_in" } },
  },
  actions = {
    { name = "arrest", var = "outlaw", pre = "at_large", post = "in_cell",
      prevail = { deputy = "sworn_in" } },
    { name = "swear_in", var = "deputy", pre = "civilian", post = "sworn_in" },
  },
  starts = { escaped = { outlaw = "escaped", deputy = "civilian" },
             loose = { outlaw = "at_large", deputy = "civilian" } },
  goals = { bring_in_outlaw = { outlaw = "in_cell" } },
}

local function sheriff_world()
  local dom = saspu.domain(SHERIFF)
  local world = saspu.world {}
  local crowd = world:crowd(dom, { goals = { { "bring_in_outlaw" } } })
  return world, crowd, dom
end

describe("a no_plan event", function()
  it("names the value with no way out, not a value the goal does not ask for", function()
    local world, crowd = sheriff_world()
    crowd:spawn { start = "escaped" }
    world:update(0.1)
    local seen
    for ev in world:events() do
      if ev.kind == "no_plan" then
        seen = { reason = ev.reason, why = ev.why }
      end
    end
    assert.truthy(seen)
    assert.matches("outlaw is escaped and no action leaves escaped", seen.reason, 1, true)
    assert.is_nil(seen.reason:find("needs outlaw = at_large", 1, true))
    assert.equal("outlaw", seen.why.variable)
    assert.equal("escaped", seen.why.current)
    assert.equal("in_cell", seen.why.needs)
    assert.equal("no_way_out", seen.why.kind)
    assert.equal("bring_in_outlaw", seen.why.goal)
    assert.same({ variable = "outlaw", from = "escaped", to = "at_large" }, seen.why.link)
    assert.equal("an action setting outlaw from escaped to at_large", seen.why.missing)
  end)
end)

describe("a:inspect().why and crowd:why", function()
  it("give the same structured reason, judged from the state now", function()
    local world, crowd = sheriff_world()
    local a = crowd:spawn { start = "escaped" }
    world:update(0.1)
    local info = a:inspect()
    assert.equal("no_plan", info.last_reason)
    assert.is_nil(info.last_action) -- no step failed: nothing stale
    assert.equal("escaped", info.why.current)
    assert.equal("in_cell", info.why.needs)
    local why = crowd:why(a:index())
    assert.equal(info.why.message, why.message)
    assert.equal(why.message, tostring(why))
    -- the outlaw is caught again: the goal has a plan now, nothing blocks it
    a:set("outlaw", "at_large")
    assert.is_nil(crowd:why(a:index()))
    assert.is_nil(a:inspect().why)
  end)

  it("names a prevail nothing can give: the deputy who cannot be sworn in", function()
    local spec = { name = "sheriff2", variables = SHERIFF.variables,
                   actions = { SHERIFF.actions[1] }, starts = SHERIFF.starts, goals = SHERIFF.goals }
    local dom = saspu.domain(spec)
    local world = saspu.world {}
    local crowd = world:crowd(dom, { goals = { { "bring_in_outlaw" } } })
    local a = crowd:spawn { start = "loose" }
    world:update(0.1)
    local why = a:inspect().why
    assert.equal("deputy", why.variable)
    assert.equal("civilian", why.current)
    assert.equal("sworn_in", why.needs)
    assert.equal("arrest", why.action)
    assert.equal("nothing_sets", why.kind)
  end)

  it("is nil for an agent that never lacked a plan", function()
    local world, crowd = sheriff_world()
    local a = crowd:spawn { start = "loose" }
    world:update(0.1)
    assert.is_nil(crowd:why(a:index()))
    assert.is_nil(a:inspect().why)
  end)
end)

describe("dom:plan's why.blocker", function()
  it("names the blocker beside the planner's own reason", function()
    local dom = saspu.domain(SHERIFF)
    local plan, why = dom:plan("escaped", "bring_in_outlaw")
    assert.is_nil(plan)
    assert.equal("outlaw", why.blocker.variable)
    assert.equal("escaped", why.blocker.current)
    assert.equal("in_cell", why.blocker.needs)
    assert.equal("an action setting outlaw from escaped to at_large", why.blocker.missing)
  end)
end)

describe("bin/saspu plan", function()
  it("prints the blocker and the missing link", function()
    local f = os.tmpname()
    local h = assert(io.open(f, "w"))
    h:write([[return { name = "sheriff", variables = {
      { name = "outlaw", values = { "at_large", "in_cell", "escaped" } } },
      actions = { { name = "arrest", var = "outlaw", pre = "at_large", post = "in_cell" } } }]])
    h:close()
    local lua = os.getenv("SASPU_LUA") or "lua5.4"
    local p = io.popen(lua .. " bin/saspu plan " .. f .. " outlaw=escaped outlaw=in_cell 2>&1")
    local out = p:read("*a")
    p:close()
    os.remove(f)
    assert.matches("no plan: the goal needs outlaw = in_cell, but outlaw is escaped", out, 1, true)
    assert.matches("missing: an action setting outlaw from escaped to at_large", out, 1, true)
  end)
end)
