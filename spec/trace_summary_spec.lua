-- spec/trace_summary_spec.lua: the summary summed up in C while a trace is read a chunk at a time agrees with the one computed in Lua from every event; a streamed read keeps the agents asked for as a whole read gives them; density and counts agree with plain loops over the cells and events.
local saspu = require "saspu"
local trace = require "saspu.trace"
local report = require "saspu.trace_report"
local support = require "support.agents"
local tt = require "support.trace_town"

-- A random town: citizens at random cells, a market of random capacity, a hook that
-- fails for some (Lua-made events with texts), a sheriff without a plan.
local function random_town(seed)
  local rng = saspu.rng and saspu.rng(seed) or nil
  math.randomseed(seed)
  local rand = rng and function(a, b) return rng:int(a, b) end or math.random
  local world = saspu.world { grid = saspu.grid(24, 24),
                              places = { { name = "well", x = rand(1, 24), y = rand(1, 24) },
                                         { name = "market", x = rand(1, 24), y = rand(1, 24),
                                           capacity = rand(1, 3) } } }
  local citizens = world:crowd(support.citizen(), {
    actions = { buy_food = { at = "market", duration = rand(1, 4) } },
    goals = { { "work" } },
  })
  local failing = world:crowd(support.citizen(), {
    actions = { buy_food = { on_start = function() error(rand(1, 2) == 1 and "no coins" or "", 0) end } },
    goals = { { "work", priority = 10 } },
  })
  for _ = 1, rand(3, 30) do citizens:spawn { start = "start_of_day", x = rand(1, 24), y = rand(1, 24) } end
  for _ = 1, rand(1, 4) do failing:spawn { start = "start_of_day", x = rand(1, 24), y = rand(1, 24) } end
  return world
end

-- Runs the demo town for `frames` frames, recording to `path`.
local function demo_trace(path, frames)
  local demo = assert(loadfile("tools/demo.lua"))("--module")
  local sim = demo.build { npcs = 140, threads = 1, seed = 3, start = 7 }
  sim.world:record { path = path }
  local acc = demo.new_acc()
  for f = 1, frames do demo.step(sim, f, acc) end
  sim.world:stop_recording()
end

-- The summaries as data, the C one judged by the Lua one.
local function same_summary(t)
  local lua_sum, c_sum = report.summary_events(t), report.summary(t)
  assert.same(lua_sum, c_sum)
  -- read a chunk at a time, without keeping an event, the file sums up the same
  local s = trace.scan(t.path, { summary = true })
  assert.equal(0, s.event_count)
  assert.same(lua_sum, report.summary(s))
  -- every chunk checked first, then read a block at a time: the same
  assert.same(lua_sum, report.summary(trace.scan(t.path, { summary = true, twice_above = 1 })))
  assert.same(report.summary_text(lua_sum, "x"), report.summary_text(report.summary(s), "x"))
  return lua_sum
end

describe("trace:summary (C) and trace_report.summary_events (Lua)", function()
  it("agree on the small town's trace", function()
    local path = tt.tmp()
    tt.run(tt.town(), path, 40, 0.5)
    local sum = same_summary(trace.open(path))
    assert.equal(1, sum.classes[2].never)
    assert.equal("blocked", sum.classes[1].reasons[1].kind)
    os.remove(path)
  end)

  for seed = 1, 12 do
    it("agree on random town " .. seed .. " (Lua-made events, texts as reasons)", function()
      local path = tt.tmp()
      tt.run(random_town(seed), path, 20 + seed * 3, 0.25 * (1 + seed % 4))
      same_summary(trace.open(path))
      os.remove(path)
    end)
  end

  it("agree on the demo town's trace (140 NPCs, 7 classes)", function()
    local path = tt.tmp()
    demo_trace(path, 60)
    local t = trace.open(path)
    assert.is_true(t.event_count > 1000)
    local sum = same_summary(t)
    assert.equal(7, #sum.classes)
    os.remove(path)
  end)

  it("agree on a damaged trace: the chunks skipped are skipped by both", function()
    local path = tt.tmp()
    tt.run(random_town(5), path, 60, 0.5, { positions = 1 })
    local f = assert(io.open(path, "rb"))
    local data = f:read("*a")
    f:close()
    -- cut the end and spoil a byte in the middle
    local mid = math.floor(#data / 2)
    data = data:sub(1, mid - 1) .. string.char((data:byte(mid) + 1) % 256) .. data:sub(mid + 1, #data - 7)
    f = assert(io.open(path, "wb"))
    f:write(data)
    f:close()
    local t = trace.open(path)
    assert.is_true(#t.problems > 0)
    same_summary(t)
    assert.same(t.problems, trace.scan(path, { summary = true }).problems)
    os.remove(path)
  end)

  it("counts events by kind per period as a loop over the events does", function()
    local path = tt.tmp()
    tt.run(random_town(3), path, 80, 0.5)
    local t = trace.open(path)
    for _, period in ipairs { 3600, 7, 1.5 } do
      local want, keys = {}, {}
      for ev in t:events() do
        local p = math.floor(ev.time / period)
        if not want[p] then
          want[p] = {}
          keys[#keys + 1] = p
        end
        want[p][ev.kind] = (want[p][ev.kind] or 0) + 1
      end
      table.sort(keys)
      local got, got_keys = t:counts(period)
      assert.same(want, got)
      assert.same(keys, got_keys)
    end
    os.remove(path)
  end)
end)

describe("saspu.trace.scan", function()
  it("keeps the agents asked for: their history, events and state as a whole read gives them", function()
    local path = tt.tmp()
    tt.run(random_town(7), path, 60, 0.5, { positions = 1 })
    local whole = trace.open(path)
    local s = trace.scan(path, { agents = { { "citizen", 2 }, { 2, 1 } }, twice_above = 1 })
    assert.equal(whole.event_count, s.all_events)
    assert.is_true(s.event_count < whole.event_count)
    -- an event's index counts the events the read kept
    local function unindexed(life)
      for _, ev in ipairs(life.events) do ev.index = nil end
      return life
    end
    local life = unindexed(whole:history("citizen", 2))
    assert.is_true(#life.events > 5)
    assert.same(life, unindexed(s:history("citizen", 2)))
    assert.same(unindexed(whole:history(2, 1)), unindexed(s:history(2, 1)))
    for _, time in ipairs { 0, 3.5, 12, 30 } do
      local a, b = whole:state_at(time, "citizen", 2), s:state_at(time, "citizen", 2)
      if a.last then a.last.index, b.last.index = nil, nil end
      assert.same(a, b)
    end
    assert.error_matches(function() s:history("citizen", 3) end,
                         "citizen:3 was not kept by saspu.trace.scan", 1, true)
    assert.error_matches(function() trace.scan(path, { agents = { { "bandit", 1 } } }) end,
                         "no crowd or class bandit in the trace (citizen, citizen)", 1, true)
    os.remove(path)
  end)

  it("counts each class's agents per block of cells at keyframes as a loop over the cells does", function()
    local path = tt.tmp()
    tt.run(random_town(9), path, 50, 0.5, { positions = 1 })
    local t = trace.open(path)
    local keyframes, bin, bw, bh = { 1, 5, 17, 50 }, 5, 5, 5
    -- the plain loop: the first snapshot, then every cell change up to each keyframe
    local cur, want = {}, {}
    for k = 1, #t.header.crowds do
      cur[k] = {}
      for sn = 1, t.header.snapshots do
        local number, crowd, count = t.raw:snapshot(sn)
        if crowd == k and number == 0 and not cur[k].done then
          for i = 1, count do cur[k][i] = { t.raw:snapshot_cell(sn, i) } end
          cur[k].done = true
        end
      end
    end
    local ci = 1
    for f, frame in ipairs(keyframes) do
      while ci <= t.cell_count do
        local cf, crowd, agent, x, y = t.raw:cell(ci)
        if cf > frame then break end
        cur[crowd][agent] = { x, y }
        ci = ci + 1
      end
      want[f] = {}
      for k = 1, #t.header.crowds do
        local bins = {}
        for _, c in pairs(cur[k]) do
          if type(c) == "table" and c[1] then
            local b = math.floor((c[2] - 1) / bin) * bw + math.floor((c[1] - 1) / bin)
            bins[b] = (bins[b] or 0) + 1
          end
        end
        local list, ids = {}, {}
        for b in pairs(bins) do ids[#ids + 1] = b end
        table.sort(ids)
        for _, b in ipairs(ids) do
          list[#list + 1] = b
          list[#list + 1] = bins[b]
        end
        want[f][k] = list
      end
    end
    local s = trace.scan(path, { keyframes = keyframes, bin = bin, bw = bw, bh = bh, twice_above = 1 })
    assert.same(want, s.raw:density())
    os.remove(path)
  end)

  it("names what is wrong with its options", function()
    local path = tt.tmp()
    tt.run(tt.town(), path, 4, 0.5)
    assert.error_matches(function() trace.scan(path, { agents = { { 1, 99999999 } } }) end,
                         "trace: no agent 99999999 in crowd 1 to keep", 1, true)
    assert.error_matches(function() trace.scan(path, { keyframes = { 3, 1 }, bin = 1, bw = 4, bh = 4 }) end,
                         "trace: keyframes must ascend (0 after 2)", 1, true)
    assert.error_matches(function() trace.scan("/nonexistent/day.trace") end,
                         "saspu.trace.scan: /nonexistent/day.trace: No such file or directory", 1, true)
    assert.error_matches(function() trace.scan(path):summary() end,
                         "this trace was streamed without a summary", 1, true)
    os.remove(path)
  end)
end)
