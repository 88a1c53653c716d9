-- spec/save_crafted_spec.lua: saves are untrusted input: a script part that disagrees with its crowds is refused by name and changes nothing, and a world never writes a save it would refuse (duration, wait and at results are checked when the script gives them).
local saspu = require "saspu"
local sb = require "support.save_bytes"

local dom = saspu.domain_file("domains/citizen.lua")

-- A small world of 12 citizens whose `work` step is a `run` script that waits.
local function scripted_world()
  local world = saspu.world { grid = saspu.grid(8, 8) }
  local beh = { actions = { work = { run = function(_, wait) wait(5) end } },
                goals = { { "work" } } }
  local c = world:crowd(dom, beh)
  for _ = 1, 12 do c:spawn { start = "start_of_day" } end
  return world, c
end

-- Runs `frames` frames; every event's reason, as text.
local function reasons(world, frames, dt)
  local out = {}
  for _ = 1, frames do
    world:update(dt or 1)
    for ev in world:events() do out[#out + 1] = ev.kind .. ": " .. tostring(ev.reason) end
  end
  return table.concat(out, "\n")
end

-- The script part of a fresh scripted world after a few frames, with edit(part)'s
-- change, sealed again: a save a modder could make.
local function edited(edit)
  local world = scripted_world()
  for _ = 1, 4 do world:update(1) end
  local s = world:save()
  local part = sb.script_part(s)
  local changed = edit(part)
  assert.are_not.equal(part, changed) -- the edit applies to this save
  return sb.with_script_part(s, changed)
end

local function refused_unchanged(s, text)
  local world = scripted_world()
  for _ = 1, 2 do world:update(1) end
  local before = world:save()
  local ok, err = pcall(world.load, world, s)
  assert.is_false(ok)
  assert.is_truthy(err:find(text, 1, true), err)
  assert.equal(before, world:save())
  reasons(world, 20) -- and it runs on
end

describe("world:load of an edited script part", function()
  it("refuses an agent the saved crowd does not have, naming it", function()
    -- the running record of agent 1 names agent 9999 of the 12
    local s = edited(function(part) return (part:gsub("n12;n1;n13;", "n12;n9999;n13;", 1)) end)
    refused_unchanged(s, "saved world: crowd 1 'citizen': the script part: agent 9999 does not "
                         .. "exist (12 agents saved)")
  end)

  it("refuses goal names that are not the saved goals", function()
    local s = edited(function(part) return (part:gsub("^saspu%-lua%-1n1;s4:work", "saspu-lua-1n2;s4:works4:rest")) end)
    refused_unchanged(s, "the script part: 2 goal names for 1 saved goals")
  end)

  it("refuses an event kind saspu never makes in Lua", function()
    local s = edited(function(part)
      return (part:gsub("n0;n0;n0;$", "n0;n0;n1;n3;s5:burstn0;s2:hi"))
    end)
    refused_unchanged(s, "event kind 'burst' is not one saspu makes in Lua")
  end)

  it("refuses a wait that is not a finite number of seconds", function()
    local s = edited(function(part) return (part:gsub("n12;n1;n13;n2;", "n12;n1;n13;n1e999;", 1)) end)
    refused_unchanged(s, "the script part: ")
  end)

  it("drops the timing of an agent that is not waiting in that step, says so, and runs on", function()
    -- agent 1's record moved to agent 12, which times its own step already: two records,
    -- and the one of agent 1 is gone (agent 1 waits for nothing from Lua)
    local world = scripted_world()
    for _ = 1, 4 do world:update(1) end
    world:crowds()[1]:agent(12):set("working", "true") -- agent 12 leaves its step
    world:update(1)
    local s = world:save()
    local part = sb.script_part(s)
    local count = tonumber(part:match("n0;n0;n(%d+);n1;n13;"))
    assert.is_truthy(count)
    local world2 = scripted_world()
    local report = world2:load(s)
    assert.equal(0, #report) -- a save as written drops nothing
    local moved = sb.with_script_part(s, (part:gsub("n1;n13;n([%d.]+);n0;n1;n2;", "n12;n13;n%1;n0;n1;n2;", 1)))
    local world3 = scripted_world()
    report = world3:load(moved)
    assert.equal(1, #report)
    assert.matches("agent 12: dropped the timing of step 'work'", report[1], 1, true)
    local text = reasons(world3, 300)
    assert.is_truthy(text:find("step_finished", 1, true))
  end)
end)

describe("a world never writes a save it would refuse", function()
  local function world_with(action)
    local world = saspu.world { grid = saspu.grid(8, 8) }
    local c = world:crowd(dom, { actions = { buy_food = action }, goals = { { "have_a_meal" } } })
    for _ = 1, 3 do c:spawn { start = "start_of_day" } end
    return world
  end

  local function fails_then_loads(action, text)
    local world = world_with(action)
    local seen = reasons(world, 6)
    assert.is_truthy(seen:find(text, 1, true), seen)
    local s = world:save()
    local other = world_with(action)
    other:load(s) -- its own save loads back
    assert.equal(s, other:save())
  end

  it("fails the step when duration returns math.huge, naming the type and value", function()
    fails_then_loads({ duration = function() return math.huge end },
                     "buy_food duration: duration returned number " .. tostring(math.huge))
  end)

  it("fails the step when duration returns a string, naming the type and value", function()
    fails_then_loads({ duration = function() return "5" end },
                     'buy_food duration: duration returned string "5"')
  end)

  it("fails the step when duration returns NaN or a negative number", function()
    fails_then_loads({ duration = function() return 0 / 0 end }, "duration returned number ")
    fails_then_loads({ duration = function() return -1 end }, "duration returned number -1")
  end)

  it("fails the step when run waits for ever", function()
    fails_then_loads({ run = function(_, wait) wait(math.huge) end },
                     "buy_food run: wait(number " .. tostring(math.huge) .. ")")
  end)

  it("fails the step when at returns a cell past any grid, with no truncation", function()
    for _, x in ipairs { 4294967301, 2 ^ 31, 2 ^ 53, math.huge, 2.5 } do
      local world = world_with({ at = function() return x, 3 end })
      local seen = reasons(world, 4)
      assert.is_truthy(seen:find("buy_food at: returned number " .. tostring(x) .. ", number 3",
                                 1, true), seen)
      for i = 1, 3 do -- 4294967301 mod 2^32 is 5: never a target
        assert.are_not.equal(5, world:crowds()[1]:info(i, {}).target_x)
      end
      world:load(world:save())
    end
  end)
end)
