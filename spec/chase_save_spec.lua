-- spec/chase_save_spec.lua: a step whose target is another agent (at = { agent = handle }) survives world:save / world:load: the same events and positions as an uninterrupted run; a load with migrate keeps the walk (the target is the same agent) unless the walker's plan was dropped.
local saspu = require "saspu"
local support = require "support.agents"
local save_bytes = require "support.save_bytes"
local has_line = support.has_line

-- A field with a wall; a bandit walking east slowly; a sheriff whose buy_food step goes
-- to the bandit (a handle, or an at function returning the handle kept in its data).
local FIELD = ("....................\n"):rep(3) .. "..........#.........\n" .. ("....................\n"):rep(3)

-- `patch`: the game after an update, for world:load's migrate: "value" adds a value to
-- the citizens' `debating` (both crowds change, the sheriff's step does not); "step" also
-- makes the sheriff's buy_food last longer (a plan using it no longer fits).
local function town(form, patch)
  local domain = patch and support.citizen_heated() or support.citizen()
  local world = saspu.world { grid = saspu.grid_from_ascii(FIELD),
                              places = { { name = "east", x = 20, y = 7 } } }
  local bandits = world:crowd(domain, {
    actions = { buy_food = { duration = 60, at = "east" } }, goals = { { "work" } },
  }, { speed = 2 })
  local bandit = bandits:spawn { start = "start_of_day", x = 1, y = 7 }
  local at = { agent = bandit, reach = 1 }
  if form == "function" then at = function(a) return a.data.prey, 1 end end
  local sheriffs = world:crowd(domain, {
    actions = { buy_food = { duration = patch == "step" and 2 or 1, at = at } },
    goals = { { "work" } },
  })
  local sheriff = sheriffs:spawn { start = "start_of_day", x = 20, y = 1 }
  sheriff.data.prey = bandit
  return world, sheriff, bandit
end

-- frames of the world: every event and both positions, one line per frame
local function run(world, sheriff, bandit, frames)
  local log = {}
  for f = 1, frames do
    world:update(0.25)
    local line = {}
    for ev in world:events() do
      line[#line + 1] = (ev.agent == sheriff and "S:" or "B:") .. ev.kind
                        .. (ev.reason and "/" .. ev.reason or "")
    end
    local sx, sy = sheriff:position()
    local bx, by = bandit:position()
    log[f] = string.format("%s | S %d,%d B %d,%d", table.concat(line, " "), sx, sy, bx, by)
  end
  return log
end

local function count(log, text)
  local n = 0
  for _, l in ipairs(log) do
    for _ in l:gmatch(text) do n = n + 1 end
  end
  return n
end

describe("a step that goes to another agent, across world:save and world:load", function()
  for _, form in ipairs { "handle", "function" } do
    for _, at_frame in ipairs { 2, 3, 6, 9 } do
      it("goes on as an uninterrupted run (at as a " .. form .. ", saved at frame "
         .. at_frame .. ")", function()
        local wa, sa, ba = town(form)
        run(wa, sa, ba, at_frame)
        local saved = wa:save()
        local a_log = run(wa, sa, ba, 70)
        local wb, sb, bb = town(form)
        wb:load(saved)
        local b_log = run(wb, sb, bb, 70)
        assert.same(a_log, b_log)
        assert.equal(wa:save(), wb:save())
        -- the sheriff was on its way at the save, and arrived after it
        assert.is_true(count(a_log, "S:arrived") >= 1)
      end)
    end
  end

  it("goes on the same after a load with migrate = true when nothing changed", function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local saved = wa:save()
    local a_log = run(wa, sa, ba, 70)
    local wb, sb, bb = town("handle")
    wb:load(saved, { migrate = true })
    assert.same(a_log, run(wb, sb, bb, 70))
  end)

  -- The first frame the sheriff arrives: its line, and the Chebyshev distance to the
  -- bandit then.
  local function arrival(log)
    for f, l in ipairs(log) do
      if l:find("S:arrived", 1, true) then
        local sx, sy, bx, by = l:match("S (%d+),(%d+) B (%d+),(%d+)$")
        return f, math.max(math.abs(sx - bx), math.abs(sy - by)), tonumber(bx)
      end
    end
  end

  for _, form in ipairs { "handle", "function" } do
    it("keeps the chase across a load with migrate where both crowds changed: the sheriff "
       .. "follows the bandit and arrives within reach (at as a " .. form .. ")", function()
      local wa, sa, ba = town(form)
      run(wa, sa, ba, 6)
      local saved = wa:save()
      local saved_bx = ba:position()
      local a_log = run(wa, sa, ba, 70)
      local wb, sb, bb = town(form, "value")
      assert.error_matches(function() wb:load(saved) end, "differs", 1, true)
      local report = wb:load(saved, { migrate = true })
      assert.is_true(has_line(report, "crowd 2 'citizen': 1 walk to another agent kept"))
      assert.is_false(has_line(report, "dropped"))
      assert.equal("walking", sb:inspect().phase)
      local b_log = run(wb, sb, bb, 70)
      local f, dist, bx = arrival(b_log)
      assert.is_truthy(f, "the sheriff arrives")
      assert.is_true(dist <= 1, "within reach of the bandit at arrival: " .. b_log[f])
      assert.is_true(bx > saved_bx + 1, "the bandit moved on since the save")
      assert.same(a_log, b_log) -- as the run that was never saved
    end)
  end

  it("drops the chase of a walker whose step changed, saying why; it replans and chases "
     .. "again", function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local saved = wa:save()
    local wb, sb, bb = town("handle", "step")
    local report = wb:load(saved, { migrate = true })
    assert.is_true(has_line(report, "crowd 2 'citizen': 1 walk to another agent dropped: "
                                    .. "the walker's plan was dropped (it replans)"))
    local b_log = run(wb, sb, bb, 70)
    assert.is_true(count(b_log, "S:replanned/migrated") >= 1)
    local f, dist = arrival(b_log)
    assert.is_truthy(f, "the sheriff arrives")
    assert.is_true(dist <= 1, "within reach of the bandit at arrival: " .. b_log[f])
  end)

  it("was saved mid-chase: the sheriff walked toward a bandit that moved", function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    assert.equal("walking", sa:inspect().phase)
    local bx = ba:position()
    local saved = wa:save()
    local wb, sb, bb = town("handle")
    wb:load(saved)
    assert.equal("walking", sb:inspect().phase)
    assert.equal(bx, (bb:position()))
  end)

  -- little-endian integers of `bytes` bytes, on every Lua version (no string.pack on 5.1)
  local function u_at(s, at, bytes)
    local v = 0
    for k = bytes - 1, 0, -1 do v = v * 256 + s:byte(at + k) end
    return v
  end
  local function le(v, bytes)
    local out = {}
    for k = 1, bytes do
      out[k] = string.char(v % 256)
      v = math.floor(v / 256)
    end
    return table.concat(out)
  end

  -- The sheriff's chase in save s: the byte where its record starts (1-based) and its
  -- path's cells. It is the last crowd's only chase, just before the crowd's u32 own
  -- priorities (none), the world's u32 waiters (none) and the script part.
  local function chase_of(s)
    local _, part = save_bytes.script_part(s)
    local stop = part - 12 -- the script part's u32 length, waiters, own priorities
    assert(u_at(s, stop, 4) == 0 and u_at(s, stop + 4, 4) == 0)
    for cells = 0, 17 do
      local at = stop - 24 - 4 * cells
      if s:byte(at + 18) == cells and u_at(s, at - 4, 4) == 1 then return at, cells end
    end
    error("no chase found")
  end

  local function put(s, at, bytes, v)
    return save_bytes.reseal(s:sub(1, at - 1) .. le(v, bytes) .. s:sub(at + bytes))
  end

  it("refuses a crafted chase, naming the crowd, the agent and the field, and changes nothing",
     function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local good = wa:save()
    local at, cells = chase_of(good)
    assert.is_true(cells > 1)
    local cases = {
      { 0, 4, 1, "chase of agent 2: not an agent walking to a target" },
      { 0, 4, 9, "chase of agent 10: not an agent walking to a target" },
      { 4, 4, 6, "chase of agent 1: target crowd 7 slot 1 does not exist" },
      { 8, 4, 1000000000, "chase of agent 1: target crowd 1 slot 1000000001 does not exist" },
      { 16, 2, 65535, "chase of agent 1: reach 65535" },
      { 19, 1, cells + 1, "chase of agent 1: path of " .. cells .. " cells, next " .. (cells + 1) },
      { 20, 2, 300, "chase of agent 1: cell (300, " },
      { 24 + 4 * (cells - 1), 2, 19, "path cell " .. cells .. " is off the grid or not next" },
      { 24 + 4 * (cells - 1), 2, 20, "path cell " .. cells .. " is off the grid" },
      { -4, 4, 2, "2 chases of 1 agents" },
    }
    local wb, sb, bb = town("handle")
    run(wb, sb, bb, 2)
    local before = wb:save()
    for _, case in ipairs(cases) do
      local bad = put(good, at + case[1], case[2], case[3])
      local ok, err = pcall(wb.load, wb, bad)
      assert.is_false(ok, case[4])
      assert.matches("saved world: crowd 2 'citizen'", err, 1, true)
      assert.matches(case[4], err, 1, true)
      assert.equal(before, wb:save())
    end
    wb:load(good)
    assert.equal(good, wb:save())
  end)

  -- The chasing sheriff's record in save s (its crowd's only agent): the byte where its
  -- `time` (the chase's progress, a float) starts. Its record ends before the crowd's
  -- u32 free slots, u8 ties, u8 sensors and u32 chases (at: the chase's start): the
  -- result byte, the u16 plan length and one byte per step come last.
  local function progress_at(s, at)
    local stop = at - 10 -- one past the record
    for steps = 0, 13 do
      local res = stop - steps - 3
      if s:byte(res) % 4 == 1 and u_at(s, res + 1, 2) == steps then
        local rec = res - 14 - 64 -- 7 state and 7 goal bytes, then the fixed part
        assert(s:byte(rec + 56) == 2 and math.floor(s:byte(rec + 57) / 64) % 2 == 1) -- walking, F_BIND
        return rec + 52
      end
    end
    error("no record found")
  end

  it("refuses a chase's progress past a cell, which the update would walk in one frame, "
     .. "and changes nothing", function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local good = wa:save()
    local at = progress_at(good, (chase_of(good)))
    local wb, sb, bb = town("handle")
    run(wb, sb, bb, 2)
    local before = wb:save()
    -- 1e30 and 1.0 as float bits (a negative one is no walking progress at all)
    for _, bits in ipairs { 0x7149F2CA, 0x3F800000 } do
      local ok, err = pcall(wb.load, wb, put(good, at, 4, bits))
      assert.is_false(ok)
      assert.matches("saved world: crowd 2 'citizen'", err, 1, true)
      assert.matches("chase of agent 1: field 'time': progress", err, 1, true)
      assert.equal(before, wb:save())
    end
    wb:load(good)
    assert.equal(good, wb:save())
  end)

  it("refuses a chase whose walker walks to a place (its target then could not follow "
     .. "the agent), and changes nothing", function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local good = wa:save()
    local rec = progress_at(good, (chase_of(good))) - 52
    -- target place 1 ("east", cell (19, 6) from 0), the target cell its cell
    local bad = put(put(put(good, rec, 4, 0), rec + 28, 2, 19), rec + 30, 2, 6)
    local wb, sb, bb = town("handle")
    run(wb, sb, bb, 2)
    local before = wb:save()
    local ok, err = pcall(wb.load, wb, bad)
    assert.is_false(ok)
    assert.matches("saved world: crowd 2 'citizen'", err, 1, true)
    assert.matches("chase of agent 1: the agent walks to a place (field 'target'), not to "
                   .. "another agent", err, 1, true)
    assert.equal(before, wb:save())
  end)

  it("refuses a crafted chase kept by a migration: the rewritten save is checked as any",
     function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local good = wa:save()
    local at = chase_of(good)
    local wb, sb, bb = town("handle", "value")
    run(wb, sb, bb, 2)
    local before = wb:save()
    for _, case in ipairs {
      { 0, 4, 9, "chase of agent 10: not an agent walking to a target" },
      { 4, 4, 6, "chase of agent 1: target crowd 7 slot 1 does not exist" },
      { 16, 2, 65535, "chase of agent 1: reach 65535" },
    } do
      local bad = put(good, at + case[1], case[2], case[3])
      local ok, err = pcall(wb.load, wb, bad, { migrate = true })
      assert.is_false(ok, case[4])
      assert.matches("saved world: crowd 2 'citizen'", err, 1, true)
      assert.matches(case[4], err, 1, true)
      assert.equal(before, wb:save())
    end
  end)

  it("loads a chase whose target's crowd was gone, and fails the step with target_gone", function()
    local wa, sa, ba = town("handle")
    run(wa, sa, ba, 6)
    local good = wa:save()
    local at = chase_of(good)
    local wb, sb = town("handle")
    wb:load(put(good, at + 4, 4, 0xFFFFFFFF))
    assert.equal("walking", sb:inspect().phase)
    wb:update(0.25)
    assert.equal("target_gone", sb:inspect().last_reason)
  end)
end)
