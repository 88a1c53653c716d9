-- spec/goal_sets_spec.lua: a behaviour's goal takes a set of values (any of) and saspu.NOT (any but): the agent plans a shortest plan to any member (judged by breadth-first search), holds it while any member holds, and says truthfully why none has a plan.
local saspu = require "saspu"
local bfs = require "support.bfs"

-- A farrier's horse: `trip` makes a shod horse lame in one step, pulling its shoes takes
-- two (the tools first); a sold horse never changes; broken tools never mend.
local FARRIER = {
  name = "farrier",
  variables = {
    { name = "horse", values = { "shod", "unshod", "lame", "sold" } },
    { name = "tools", values = { "stored", "in_hands", "broken" } },
    { name = "rested", values = { "false", "true" } },
  },
  actions = {
    { name = "take_tools", var = "tools", pre = "stored", post = "in_hands" },
    { name = "drop_tools", var = "tools", pre = "in_hands", post = "stored" },
    { name = "pull_shoes", var = "horse", pre = "shod", post = "unshod", prevail = { tools = "in_hands" } },
    { name = "shoe", var = "horse", pre = "unshod", post = "shod", prevail = { tools = "in_hands" } },
    { name = "trip", var = "horse", pre = "shod", post = "lame", prevail = { rested = "false" } },
    { name = "rest", var = "rested", pre = "false", post = "true" },
  },
}

local function farrier_world(goals, actions)
  local world = saspu.world {}
  return world, world:crowd(saspu.domain(FARRIER), { goals = goals, actions = actions })
end

-- Every state of the farrier as { var = value } tables with their bfs codes.
local function all_states(S)
  local out = {}
  for code = 0, S.count - 1 do
    local vals, t = S.values[code], {}
    for i, v in ipairs(FARRIER.variables) do t[v.name] = v.values[vals[i] + 1] end
    out[#out + 1] = { code = code, state = t }
  end
  return out
end

-- members[var] = { value = true }: what a goal of sets accepts.
local function accepts(members, state)
  for var, set in pairs(members) do
    if not set[state[var]] then return false end
  end
  return true
end

describe("a goal of sets in a behaviour", function()
  local S = bfs.space(FARRIER)
  local GOALS = {
    { cond = { horse = saspu.NOT("shod") }, members = { horse = { unshod = true, lame = true, sold = true } } },
    { cond = { horse = { "unshod", "lame" } }, members = { horse = { unshod = true, lame = true } } },
    { cond = { horse = { "lame", "unshod" }, tools = saspu.NOT("broken") },
      members = { horse = { unshod = true, lame = true }, tools = { stored = true, in_hands = true } } },
    { cond = { horse = "shod", tools = { "stored", "broken" } },
      members = { horse = { shod = true }, tools = { stored = true, broken = true } } },
  }

  it("plans a shortest plan to any member from every start (breadth-first search judges)", function()
    local checked, solvable = 0, 0
    for _, g in ipairs(GOALS) do
      local long = {} -- steps that last: the plans stay in place to be read
      for _, act in ipairs(FARRIER.actions) do long[act.name] = { duration = 100 } end
      local world, crowd = farrier_world({ { g.cond } }, long)
      local starts, agents = all_states(S), {}
      for k, st in ipairs(starts) do agents[k] = crowd:spawn { start = st.state } end
      world:update(0.01)
      local outcome = {}
      for ev in world:events() do
        if ev.kind == "planned" or ev.kind == "no_plan" or ev.kind == "idle" then
          outcome[ev.agent:index()] = outcome[ev.agent:index()] or ev.kind
        end
      end
      for i, st in ipairs(starts) do
        local dist, best = bfs.distances(S, st.code), nil
        for _, other in ipairs(starts) do
          local d = dist[other.code]
          if d and accepts(g.members, other.state) and (best == nil or d < best) then best = d end
        end
        checked = checked + 1
        if best == nil then
          assert.equal("no_plan", outcome[agents[i]:index()])
        elseif best == 0 then
          assert.equal("idle", outcome[agents[i]:index()])
        else
          solvable = solvable + 1
          assert.equal("planned", outcome[agents[i]:index()])
          local ids = {}
          local n = crowd:plan(agents[i]:index(), ids)
          assert.equal(best, n)
          -- the plan replays from the start to a state the goal accepts
          local vals = {}
          for k, v in ipairs(FARRIER.variables) do
            for x, name in ipairs(v.values) do if name == st.state[v.name] then vals[k] = x - 1 end end
          end
          for k = 1, n do
            local act = S.actions[ids[k]]
            assert.is_true(bfs.applicable(act, vals))
            vals[act.var] = act.post
          end
          local final = {}
          for k, v in ipairs(FARRIER.variables) do final[v.name] = v.values[vals[k] + 1] end
          assert.is_true(accepts(g.members, final))
        end
      end
      world:close()
    end
    assert.is_true(checked == #GOALS * S.count and solvable > 0 and solvable < checked)
  end)

  it("reaches horse = saspu.NOT('shod') by the shorter member and keeps it while it holds", function()
    local world, crowd = farrier_world {
      { { horse = saspu.NOT("shod") }, priority = 5 }, { { rested = "true" }, priority = 1 } }
    local a = crowd:spawn { start = { horse = "shod", tools = "stored", rested = "false" } }
    local chosen = {}
    local function run(seconds)
      for _ = 1, seconds * 10 do
        world:update(0.1)
        for ev in world:events() do
          if ev.kind == "goal_chosen" then chosen[#chosen + 1] = ev.goal end
        end
      end
    end
    run(3)
    assert.equal("lame", a:get("horse")) -- trip: one step, not take_tools + pull_shoes
    assert.equal("true", tostring(a:get("rested")))
    assert.same({ "goals[1]", "goals[2]" }, chosen)
    a:set("horse", "unshod") -- still a member: nothing to do
    run(2)
    assert.equal(2, #chosen)
    a:set("horse", "shod")
    run(2)
    assert.equal("goals[1]", chosen[3])
    assert.equal("unshod", a:get("horse")) -- rested now: trip is closed, the shoes come off
  end)

  it("is rechecked with a `when` of sets and dropped once that stops holding", function()
    local world, crowd = farrier_world({
      { { horse = { "unshod", "lame" } }, priority = 5, when = { rested = "true", tools = { "stored", "in_hands" } },
        recheck = true } }, { take_tools = { duration = 1 }, pull_shoes = { duration = 1 } })
    local a = crowd:spawn { start = { horse = "shod", tools = "stored", rested = "true" } }
    local kinds = {}
    for f = 1, 30 do
      if f == 2 then a:set("rested", "false") end -- the plan needs nothing of it
      world:update(0.1)
      for ev in world:events() do kinds[#kinds + 1] = ev.kind .. (ev.reason and ("/" .. ev.reason) or "") end
    end
    assert.matches("goal_dropped/when_lapsed", table.concat(kinds, " "), 1, true)
    assert.equal("shod", a:get("horse"))
  end)

  it("names a blocker every member shares, else says it is one member's", function()
    local world, crowd = farrier_world { { { horse = { "unshod", "lame" }, tools = "in_hands" } } }
    local a = crowd:spawn { start = { horse = "shod", tools = "broken", rested = "false" } }
    local b = crowd:spawn { start = { horse = "sold", tools = "stored", rested = "false" } }
    world:update(0.1)
    local at_event = {} -- the no_plan event's why, as recorded then
    for ev in world:events() do
      if ev.kind == "no_plan" then at_event[ev.agent:index()] = { choice = ev.why.choice, message = ev.why.message } end
    end
    assert.is_nil(at_event[a:index()].choice)
    assert.equal(1, at_event[b:index()].choice)
    assert.equal(tostring(crowd:why(b:index())), at_event[b:index()].message)
    local wa, wb = crowd:why(a:index()), crowd:why(b:index())
    -- tools = in_hands is asked by every member: a blocker of the whole goal
    assert.equal("tools", wa.variable)
    assert.equal("in_hands", wa.needs)
    assert.is_nil(wa.choice)
    assert.is_nil(tostring(wa):find("choice", 1, true))
    -- a sold horse: each member is blocked on its own; the why says it is the first's
    assert.equal("horse", wb.variable)
    assert.equal(1, wb.choice)
    assert.matches("no choice of the goal has a plan; choice 1: the goal needs horse = unshod", tostring(wb), 1, true)
  end)
end)

describe("dom:plan with a goal of sets", function()
  local S = bfs.space(FARRIER)
  local dom = saspu.domain(FARRIER)
  local GOALS = {
    { cond = { horse = saspu.NOT("shod") }, members = { horse = { unshod = true, lame = true, sold = true } } },
    { cond = { horse = { "lame", "unshod" }, tools = { "in_hands", "broken" } },
      members = { horse = { unshod = true, lame = true }, tools = { in_hands = true, broken = true } } },
    { cond = { horse = "shod", rested = saspu.NOT("false") }, members = { horse = { shod = true }, rested = { ["true"] = true } } },
  }

  it("returns a shortest plan to any member from every start, nil iff none (breadth-first search judges)", function()
    local starts, planned, none = all_states(S), 0, 0
    for _, g in ipairs(GOALS) do
      for _, st in ipairs(starts) do
        local dist, best = bfs.distances(S, st.code), nil
        for _, other in ipairs(starts) do
          local d = dist[other.code]
          if d and accepts(g.members, other.state) and (best == nil or d < best) then best = d end
        end
        local plan, why = dom:plan(st.state, g.cond)
        if best == nil then
          none = none + 1
          assert.is_nil(plan)
          assert.is_string(why.blocker.message)
        else
          planned = planned + 1
          assert.equal(best, #plan)
          local state = {}
          for k, v in pairs(st.state) do state[k] = v end
          for _, name in ipairs(plan) do
            for _, act in ipairs(FARRIER.actions) do
              if act.name == name then
                assert.equal(act.pre, state[act.var])
                for pv, pval in pairs(act.prevail or {}) do assert.equal(pval, state[pv]) end
                state[act.var] = act.post
              end
            end
          end
          assert.is_true(accepts(g.members, state))
        end
      end
    end
    assert.is_true(planned > 0 and none > 0)
  end)

  it("says why with a blocker every member shares, or the first member's", function()
    local _, why = dom:plan({ horse = "shod", tools = "broken", rested = "false" },
                           { horse = { "unshod", "lame" }, tools = "in_hands" })
    assert.equal("tools", why.blocker.variable)
    assert.is_nil(why.blocker.choice)
    _, why = dom:plan({ horse = "sold", tools = "stored", rested = "false" }, { horse = { "unshod", "lame" } })
    assert.equal(1, why.blocker.choice)
    assert.matches("no choice of the goal has a plan; choice 1:", why.blocker.message, 1, true)
  end)

  it("refuses bad sets naming the variable", function()
    local s = { horse = "shod", tools = "stored", rested = "false" }
    assert.error_matches(function() dom:plan(s, { horse = {} }) end,
      "saspu.Domain:plan: goal: 'horse': an empty set of values", 1, true)
    assert.error_matches(function() dom:plan(s, { tools = saspu.NOT("stored", "in_hands", "broken") }) end,
      "saspu.Domain:plan: goal: 'tools': saspu.NOT leaves no value", 1, true)
    assert.error_matches(function() dom:plan(s, { horse = { "shod", "gone" } }) end,
      "saspu.Domain:plan: goal: 'gone' is not a value of 'horse'", 1, true)
  end)
end)

describe("bin/saspu plan with a goal of sets", function()
  local cli = require "saspu.cli"
  local function run(...)
    local out = {}
    local sink = { write = function(_, ...) for _, x in ipairs({ ... }) do out[#out + 1] = x end end }
    return cli.main({ ... }, sink, sink), table.concat(out)
  end

  it("reads var=a|b as any of them and var!=a as any but a", function()
    local status, out = run("plan", "domains/horse_breeder.lua", "morning", "water=in_bucket|in_trough")
    assert.equal(0, status)
    assert.matches("plan of 2 actions from morning", out, 1, true)
    status, out = run("plan", "--keep", "domains/horse_breeder.lua", "morning", "water!=in_source")
    assert.equal(0, status)
    assert.matches("plan of 3 actions from morning", out, 1, true) -- fill_bucket, bucket back down
  end)
end)

describe("a goal of sets across a save", function()
  it("still holds by any member and plans the nearest after world:load", function()
    local goals = { { { horse = saspu.NOT("shod") }, priority = 5 }, { { rested = "true" }, priority = 1 } }
    local acts = { take_tools = { duration = 1 }, pull_shoes = { duration = 1 }, trip = { duration = 1 } }
    local world, crowd = farrier_world(goals, acts)
    crowd:spawn { start = { horse = "unshod", tools = "stored", rested = "true" } } -- a member: held
    crowd:spawn { start = { horse = "shod", tools = "stored", rested = "false" } }  -- trips
    world:update(0.5)
    local saved = world:save()
    local world2, crowd2 = farrier_world(goals, acts)
    world2:load(saved)
    for _ = 1, 40 do world2:update(0.1) end
    assert.equal("unshod", crowd2:agent(1):get("horse"))
    assert.equal("lame", crowd2:agent(2):get("horse"))
    crowd2:agent(1):set("horse", "shod")
    crowd2:agent(1):set("rested", "true")
    for _ = 1, 40 do world2:update(0.1) end
    assert.equal("unshod", crowd2:agent(1):get("horse"))
  end)
end)

describe("a goal of sets refused", function()
  local function refuses(goals, message)
    assert.error_matches(function() farrier_world(goals) end, message, 1, true)
  end

  it("names the goal and the variable", function()
    refuses({ { { horse = {} } } }, "behaviour.goals[1][1].horse: an empty set of values")
    refuses({ { { horse = { "shod", "gone" } } } },
      "behaviour.goals[1][1].horse[2]: 'gone' is not a value of 'horse'")
    refuses({ { { rested = "true" } }, { { horse = saspu.NOT("shod", "unshod", "lame", "sold") } } },
      "behaviour.goals[2][1].horse: saspu.NOT leaves no value")
    refuses({ { { hoof = { "shod" } } } }, "behaviour.goals[1][1].hoof: unknown variable 'hoof'")
  end)

  it("refuses more combinations than saspu can weigh, naming the variable past the cap", function()
    local vars, acts, cond = {}, {}, {}
    for k = 1, 4 do
      vars[k] = { name = "v" .. k, values = { "a", "b", "c", "d" } }
      cond["v" .. k] = { "a", "b", "c" } -- 3^4 = 81 > 64
    end
    acts[1] = { name = "go", var = "v1", pre = "a", post = "b" }
    local world = saspu.world {}
    assert.error_matches(function()
      world:crowd(saspu.domain { name = "wide", variables = vars, actions = acts }, { goals = { { cond } } })
    end, "behaviour.goals[1][1].v4: the sets make more than 64 combinations", 1, true)
  end)
end)
