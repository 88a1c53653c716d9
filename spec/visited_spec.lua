-- spec/visited_spec.lua: crowd:stats().visited counts the agents an update woke: agents waiting on a timer sleep, so a frame where no step ends visits none.
local saspu = require "saspu"
local support = require "support.agents"

describe("crowd:stats().visited", function()
  it("is the agents whose wait ended, not the crowd's size", function()
    local world = saspu.world {}
    local actions = {}
    for _, name in ipairs { "buy_food", "eat", "buy_drink", "drink", "take", "store",
                            "have_a_walk", "stop_wandering", "debate", "stop_debate",
                            "rest", "end_work", "work" } do
      actions[name] = { duration = { 5, 15 } }
    end
    local crowd = world:crowd(support.citizen(), { actions = actions, goals = { { "work" } } })
    for _ = 1, 200 do crowd:spawn { start = "start_of_day" } end
    world:update(0.1) -- everyone plans and starts a 10 s step
    for _ in world:events() do end
    local quiet, woke = 0, 0
    for _ = 1, 150 do
      world:update(0.1)
      local touched = {}
      for ev in world:events() do touched[ev.agent] = true end
      local n = 0
      for _ in pairs(touched) do n = n + 1 end
      local visited = crowd:stats({}, true).visited
      assert.is_true(visited >= n, "every agent with an event was visited")
      if n == 0 then
        assert.equal(0, visited)
        quiet = quiet + 1
      else
        assert.is_true(visited < 200, "a frame where steps end visits only those agents")
        woke = woke + 1
      end
    end
    assert.is_true(quiet >= 50 and woke >= 20, quiet .. " quiet frames, " .. woke .. " with events")
    world:close()
  end)
end)
