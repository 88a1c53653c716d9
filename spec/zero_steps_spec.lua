-- spec/zero_steps_spec.lua: steps of 0 s end in the frame they start, and one frame's visit of an agent runs a bounded number of them (the rest go on at the next frame), whichever pass starts the plan's first step.
local saspu = require "saspu"

-- Six chores, each its own variable, each done by a step of 0 s: the goal `all` needs
-- the six.
local function chores()
  local vars, acts, all, start = {}, {}, {}, {}
  for k = 1, 6 do
    local v = "chore" .. k
    vars[k] = { name = v, values = { "no", "yes" } }
    acts[k] = { name = "do_" .. k, var = v, pre = "no", post = "yes" }
    all[v], start[v] = "yes", "no"
  end
  return saspu.domain { name = "chores", variables = vars, actions = acts,
                        goals = { all = all }, starts = { morning = start } }
end

local function frame_events(world)
  local out = {}
  for ev in world:events() do
    out[#out + 1] = ev.agent:index() .. ":" .. ev.kind .. (ev.action and ("/" .. ev.action) or "")
  end
  return out
end

describe("steps of 0 s", function()
  it("run five to a frame's visit, each agent's in order, the rest at the next frame", function()
    local world = saspu.world {}
    local c = world:crowd(chores(), { actions = {}, goals = { { "all" } } })
    local a = c:spawn { start = "morning" }
    local b = c:spawn { start = "morning" }
    world:update(0.5)
    local first = frame_events(world)
    for _, agent in ipairs { a, b } do
      local mine = {}
      for _, e in ipairs(first) do
        if e:match("^" .. agent:index() .. ":") then mine[#mine + 1] = e:gsub("^%d+:", "") end
      end
      assert.same({ "goal_chosen", "planned", "step_started/do_1", "step_finished/do_1",
                    "step_started/do_2", "step_finished/do_2", "step_started/do_3",
                    "step_finished/do_3", "step_started/do_4", "step_finished/do_4",
                    "step_started/do_5", "step_finished/do_5" }, mine)
      assert.equal(6, #agent:inspect().plan)
    end
    world:update(0.5)
    local i = a:index()
    local second = frame_events(world)
    assert.same({ i .. ":step_started/do_6", i .. ":step_finished/do_6", i .. ":goal_reached" },
                { second[1], second[2], second[3] })
    assert.equal(6, #second)
  end)
end)
