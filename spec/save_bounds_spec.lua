-- spec/save_bounds_spec.lua: what a save carries is only what an update could have made: a crowd's movement is in its fingerprint, a migration carries no plan of a despawned slot, names of any length come back whole, and a migration's report gives each crowd one verdict.
local saspu = require "saspu"
local has_line = require("support.agents").has_line

-- Six chores, each its own variable: a plan of the goal `all` does the six.
local function chores(count)
  local vars, acts, all = {}, {}, {}
  for k = 1, count do
    local v = "chore" .. k
    vars[k] = { name = v, values = { "no", "yes" } }
    acts[k] = { name = "do_" .. k, var = v, pre = "no", post = "yes" }
    all[v] = "yes"
  end
  local start = {}
  for k = 1, count do start["chore" .. k] = "no" end
  return saspu.domain { name = "chores", variables = vars, actions = acts,
                        goals = { all = all }, starts = { morning = start } }
end

local function chores_world(count, opts)
  local world = saspu.world { grid = saspu.grid(8, 8),
                              places = (opts or {}).places }
  local c = world:crowd(chores(count), { actions = {}, goals = { { "all" } } },
                        { movement = (opts or {}).movement })
  return world, c
end

describe("a crowd's movement in the save's fingerprint", function()
  it("refuses a save of a crowd saspu moves in a crowd the engine moves, naming movement",
     function()
    local world, c = chores_world(6)
    c:spawn { start = "morning" }
    world:update(1)
    local s = world:save()
    local other = chores_world(6, { movement = "engine" })
    local before = other:save()
    assert.error_matches(function() other:load(s) end,
                         "saved world: crowd 1 'chores': action behaviours or crowd options "
                         .. "(seed, speed, cooldown, retry, movement) differ", 1, true)
    assert.equal(before, other:save())
    local same = chores_world(6)
    same:load(s)
    assert.equal(s, same:save())
  end)
end)

describe("world:load with migrate into a crowd whose movement changed", function()
  it("drops the plan of an agent that waited for the engine's arrived(); it walks the grid",
     function()
    local function town(movement)
      local world = saspu.world { grid = saspu.grid(8, 8), places = { { name = "well", x = 6, y = 6 } } }
      local c = world:crowd(chores(2), { actions = { do_1 = { at = "well", duration = 1 } },
                                         goals = { { "all" } } }, { movement = movement })
      c:spawn { start = "morning", x = 1, y = 1 }
      return world, c
    end
    local engine, ec = town("engine")
    engine:update(0.5)
    assert.equal("moving", ec:agent(1):inspect().phase)
    local s = engine:save()
    local grid, gc = town()
    assert.error_matches(function() grid:load(s) end, "movement) differ", 1, true)
    local report = grid:load(s, { migrate = true })
    assert.is_true(has_line(report, "crowd 1 'chores': 1 agent dropped its plan"))
    for _ = 1, 20 do grid:update(0.5) end
    assert.equal("yes", gc:agent(1):get("chore1"))
  end)
end)

describe("world:load with migrate and despawned slots", function()
  it("loads a save whose despawned slot held a plan longer than the patched domain's "
     .. "actions", function()
    local world, c = chores_world(6)
    c:spawn { start = "morning" }
    local gone = c:spawn { start = "morning" }
    world:update(0.5)
    assert.equal(6, #gone:inspect().plan)
    gone:despawn()
    local s = world:save()
    local patched, pc = chores_world(5) -- chore 6 is gone
    local report = patched:load(s, { migrate = true })
    assert.is_true(has_line(report, "crowd 1 'chores': action 'do_6' is gone"))
    assert.equal(1, pc:size())
    for _ = 1, 20 do patched:update(1) end
  end)
end)

describe("names over 255 bytes", function()
  local long1, long2 = ("north_"):rep(60), ("north_"):rep(60) .. "x"

  it("come back whole: a world's own save migrates into the same game unchanged", function()
    local places = { { name = long1, x = 2, y = 2 }, { name = long2, x = 5, y = 5 } }
    local world, c = chores_world(6, { places = places })
    c:spawn { start = "morning" }
    world:update(1)
    local s = world:save()
    local again = chores_world(6, { places = places })
    local report = again:load(s, { migrate = true })
    assert.same({ "crowd 1 'chores': unchanged" }, report)
  end)
end)

describe("a migration's report", function()
  it("gives a crowd one verdict: never 'unchanged' beside an agent that dropped its plan",
     function()
    local places = { { name = "well", x = 2, y = 2 }, { name = "inn", x = 6, y = 6 } }
    local function town(list)
      local world = saspu.world { grid = saspu.grid(8, 8), places = list }
      local c = world:crowd(chores(2), { actions = { do_1 = { at = "inn", duration = 30 } },
                                         goals = { { "all" } } })
      return world, c
    end
    local world, c = town(places)
    c:spawn { start = "morning", x = 1, y = 1 }
    world:update(0.25)
    local s = world:save()
    local other = town { { name = "well", x = 2, y = 2 }, { name = "inn", x = 7, y = 6 } }
    local report = other:load(s, { migrate = true })
    assert.is_true(has_line(report, "crowd 1 'chores': 1 agent dropped its plan"))
    assert.is_false(has_line(report, "crowd 1 'chores': unchanged"))
  end)
end)
