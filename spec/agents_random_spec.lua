-- spec/agents_random_spec.lua: random crowds driven from Lua, every event checked against a model of each agent's state (conditions at step_started, effects at step_finished), and the same events for 1 and 2 threads.
local saspu = require "saspu"
local support = require "support.agents"

-- A small deterministic generator (the spec must not depend on math.random's seed).
local function rng(seed)
  local x = seed
  return function(n)
    x = (x * 1103515245 + 12345) % 2147483648
    return x % n + 1
  end
end

-- The actions of `dom` by name: { var, pre, post, prevail }.
local function action_table(dom)
  local out = {}
  for _, a in ipairs(dom:actions()) do out[a.name] = a end
  return out
end

local function check_conditions(act, state, where)
  assert(state[act.var] == act.pre, string.format("%s: %s needs %s = %s, state has %s",
         where, act.name, act.var, act.pre, state[act.var]))
  for var, value in pairs(act.prevail or {}) do
    assert(state[var] == value, string.format("%s: %s needs prevail %s = %s, state has %s",
           where, act.name, var, value, state[var]))
  end
end

-- Runs `frames` frames of n agents with random world changes and failing hooks.
-- Returns the trace of every event (for the thread comparison).
local function random_run(domain_file, n, frames, seed, threads, check)
  local dom = saspu.domain_file(domain_file)
  local rand = rng(seed)
  local acts = action_table(dom)
  local vars = dom:variables()
  local world = saspu.world { grid = saspu.grid(24, 24), places = {
    { kind = "spot", x = 3, y = 3, capacity = 3 }, { kind = "spot", x = 20, y = 20, capacity = 5 },
    { kind = "spot", x = 12, y = 4 } } }
  local fail_next = {}
  local actions = {}
  for name in pairs(acts) do
    actions[name] = { duration = { 0.1, 1.5 }, at = rand(3) == 1 and { kind = "spot" } or nil,
                      on_start = function(agent)
                        if fail_next[agent:index()] then
                          fail_next[agent:index()] = nil
                          error("random failure")
                        end
                      end }
  end
  local goals, names = {}, {}
  for name in pairs(dom:goals()) do names[#names + 1] = name end
  table.sort(names)
  for k, name in ipairs(names) do goals[k] = { name, priority = rand(5) } end
  local crowd = world:crowd(dom, { actions = actions, goals = goals },
                            { capacity = n, threads = threads, seed = seed })
  local starts = {}
  for name in pairs(dom:starts()) do starts[#starts + 1] = name end
  table.sort(starts)
  local model, agents, last = {}, {}, {}
  for i = 1, n do
    agents[i] = crowd:spawn { start = starts[rand(#starts)], x = rand(24), y = rand(24) }
    model[i] = agents[i]:state()
  end
  local trace = {}
  for f = 1, frames do
    world:update(0.25)
    for ev in world:events() do
      local i = ev.agent:index()
      trace[#trace + 1] = i .. support.event_text(ev)
      last[i] = ev.kind
      if check then
        local act = ev.action and acts[ev.action]
        if ev.kind == "step_started" then
          check_conditions(act, model[i], "frame " .. f .. " agent " .. i)
        elseif ev.kind == "step_finished" then
          check_conditions(act, model[i], "frame " .. f .. " agent " .. i .. " (finish)")
          model[i][act.var] = act.post
        end
      end
    end
    if check then
      for i = 1, n do
        assert.same(model[i], agents[i]:state())
        local info = crowd:info(i, {})
        if info.phase == "idle" then assert.equal("idle", last[i]) end
        local x, y = crowd:position(i)
        assert.same({ info.x, info.y }, { x, y })
        assert.same({ x, y }, { agents[i]:position() })
      end
    end
    -- world changes and failures for the next frame
    for _ = 1, math.floor(n / 10) do
      local i, v = rand(n), vars[rand(#vars)]
      local value = v.values[rand(#v.values)]
      agents[i]:set(v.name, value)
      model[i][v.name] = value
      fail_next[rand(n)] = true
    end
  end
  return table.concat(trace, "\n"), crowd
end

describe("random crowds", function()
  for _, file in ipairs { "domains/citizen.lua", "domains/horse_breeder.lua" } do
    it("keep every step's conditions and effects (" .. file .. ")", function()
      local _, crowd = random_run(file, 200, 80, 7, 1, true)
      local s = crowd:stats()
      assert.is_true(s.steps_finished > 200, "steps finished: " .. s.steps_finished)
      assert.is_true(s.replans > 0)
    end)
  end

  it("give the same events for 1 and 2 threads", function()
    local one = random_run("domains/citizen.lua", 1500, 16, 11, 1, false)
    local two = random_run("domains/citizen.lua", 1500, 16, 11, 2, false)
    assert.is_true(#one > 5000) -- two chunks of 1024 agents
    assert.equal(one, two)
  end)
end)
