-- spec/wide_plan_spec.lua: a crowd runs plans of action ids past 255 (two bytes each, read where the population keeps them) step by step.
local saspu = require "saspu"

-- 300 actions: 297 on 99 variables the goal leaves alone, then the chain
-- the goal needs, whose ids (297..299, 0-based) do not fit in a byte.
local function wide_domain()
  local vars, acts = {}, {}
  local steps = { "p", "q", "r", "t" }
  for v = 1, 99 do
    vars[v] = { name = "f" .. v, values = steps }
    for k = 1, 3 do
      acts[#acts + 1] = { name = "fill_" .. v .. "_" .. k, var = "f" .. v, pre = steps[k], post = steps[k + 1] }
    end
  end
  vars[100] = { name = "b", values = { "s0", "s1", "s2", "s3" } }
  acts[298] = { name = "go_1", var = "b", pre = "s0", post = "s1" }
  acts[299] = { name = "go_2", var = "b", pre = "s1", post = "s2" }
  acts[300] = { name = "go_3", var = "b", pre = "s2", post = "s3" }
  return saspu.domain {
    name = "wide_ids",
    variables = vars,
    actions = acts,
  }
end

describe("saspu.Crowd with more than 255 actions", function()
  for _, cache in ipairs { true, false } do
    it("starts and finishes each step of the plan in order (plan cache " .. tostring(cache) .. ")", function()
      local world = saspu.world {}
      local crowd = world:crowd(wide_domain(), {
        goals = { { { b = "s3" } } },
        actions = { go_1 = { duration = 1 }, go_2 = { duration = 1 }, go_3 = { duration = 1 } },
      }, { cache_capacity = cache and 64 or 0 })
      local function start(b)
        local t = { b = b }
        for v = 1, 99 do t["f" .. v] = "p" end
        return t
      end
      crowd:spawn { start = start "s0" }
      crowd:spawn { start = start "s1" }
      local seen = { {}, {} }
      for _ = 1, 8 do
        world:update(0.5)
        for ev in world:events() do
          if ev.kind == "step_started" or ev.kind == "step_finished" or ev.kind == "goal_reached"
             or ev.kind == "step_failed" then
            local t = seen[ev.agent:index()]
            t[#t + 1] = ev.kind .. " " .. tostring(ev.action)
          end
        end
      end
      assert.same({ "step_started go_1", "step_finished go_1", "step_started go_2", "step_finished go_2",
                    "step_started go_3", "step_finished go_3", "goal_reached nil" }, seen[1])
      assert.same({ "step_started go_2", "step_finished go_2", "step_started go_3", "step_finished go_3",
                    "goal_reached nil" }, seen[2])
    end)
  end
end)
