-- spec/population_spec.lua: saspu.population: batch plans equal dom:plan, threads and the cache change nothing, budgets resume, bulk setters, errors and lifetimes.
local saspu = require "saspu"
local fixtures = require "support.domains"
local compat = require "support.compat"

local DOMAINS = { "horse_breeder", "citizen", "acquisition_machine" }

-- A random number generator of its own, so the specs do not depend on the order
-- they run in (a 31-bit linear congruential generator is plenty here).
local function rng(seed)
  local x = seed
  return function(n)
    x = (x * 1103515245 + 12345) % 2147483648
    return x % n + 1
  end
end

-- A random total state of dom as a table.
local function random_state(vars, rand)
  local s = {}
  for _, v in ipairs(vars) do s[v.name] = v.values[rand(#v.values)] end
  return s
end

-- `count` random (start, goal) pairs: random total starts; goals alternately a declared
-- goal name (partial: the rest keeps the start's values) and a random total state.
local function random_pairs(dom, count, seed)
  local rand, vars = rng(seed), dom:variables()
  local goal_names = fixtures.sorted_keys(dom:goals())
  local pairs_ = {}
  for k = 1, count do
    local goal
    if k % 2 == 0 then goal = goal_names[rand(#goal_names)] else goal = random_state(vars, rand) end
    pairs_[k] = { start = random_state(vars, rand), goal = goal }
  end
  return pairs_
end

-- What dom:plan gives for a pair, in the form `outcome` gives for an NPC.
local function expected(dom, pair)
  local plan, why = dom:plan(pair.start, pair.goal)
  return plan or ("no plan: " .. why.code)
end

-- NPC i's result: its plan, or "no plan: <code>".
local function outcome(pop, i)
  local plan, why = pop:plan_of(i)
  return plan or ("no plan: " .. why.code)
end

local function outcomes(pop)
  local all = {}
  for i = 1, pop:size() do all[i] = outcome(pop, i) end
  return all
end

-- A population of n NPCs, NPC i on pair ((i - 1) % #pairs) + 1, set through pop:set
-- with the start and goal in turn as tables, packed states and names.
local function populate(dom, pairs_, n)
  local pop = saspu.population(dom, n)
  for i = 1, n do
    local pair = pairs_[(i - 1) % #pairs_ + 1]
    if i % 3 == 0 then -- a named goal stays a name: it may keep start values (saspu.KEEP)
      pop:set(i, dom:encode(pair.start), type(pair.goal) == "table" and dom:encode(pair.goal) or pair.goal)
    else
      pop:set(i, pair.start, pair.goal)
    end
  end
  return pop
end

describe("saspu.population", function()
  it("creates a population of unplanned, dirty NPCs", function()
    local dom = fixtures.domain("horse_breeder")
    local pop = saspu.population(dom, 10)
    assert.equal(10, pop:size())
    assert.equal(10, #pop)
    assert.equal(dom, pop:domain())
    assert.equal("saspu.Population 'horse_breeder' (10 NPCs)", tostring(pop))
    assert.equal("saspu.Population 'horse_breeder' (1 NPC)", tostring(saspu.population(dom, 1)))
    assert.same({ "unplanned", true }, { pop:status(10) })
    assert.equal(dom:encode { haystack = "stored", bucket = "on_floor", water = "in_source" },
                 pop:state(1))
    local stats = pop:stats()
    assert.same({ 10, 10, 10, 0, 0 }, { stats.npcs, stats.dirty, stats.unplanned,
                                        stats.planned, stats.no_plan })
    assert.equal(18, stats.bytes_per_npc)
  end)

  it("accepts an empty population", function()
    local pop = saspu.population(fixtures.domain("citizen"), 0)
    local r = pop:plan()
    assert.same({ 0, 0 }, { r.planned, r.waiting })
    assert.error_matches(function() pop:status(1) end, "npc 1: the population is empty", 1, true)
  end)

  it("refuses bad arguments", function()
    local dom = fixtures.domain("horse_breeder")
    assert.error_matches(function() saspu.population({}, 3) end, "saspu.Domain expected, got table",
                         1, true)
    assert.error_matches(function() saspu.population(dom, -1) end, "n = -1 is outside 0..", 1, true)
    assert.error_matches(function() saspu.population(dom, 1.5) end, "number has no integer", 1, true)
    assert.error_matches(function() saspu.population(dom, 3, { capacity = 8 }) end,
                         "unknown option 'capacity' (expected cache_capacity)", 1, true)
    assert.error_matches(function() saspu.population(dom, 3, { cache_capacity = -2 }) end,
                         "cache_capacity: expected an integer in 0..", 1, true)
    dom:close()
    assert.error_matches(function() saspu.population(dom, 3) end, "saspu.Domain is closed", 1, true)
  end)

  it("takes a cache capacity", function()
    local pop = saspu.population(fixtures.domain("horse_breeder"), 4, { cache_capacity = 16 })
    pop:plan { threads = 1 }
    assert.equal(16, pop:stats().cache_capacity)
  end)
end)

describe("saspu.Population:plan", function()
  for _, name in ipairs(DOMAINS) do
    it("gives every NPC dom:plan's plan for random pairs of " .. name, function()
      local dom = fixtures.domain(name)
      local pairs_ = random_pairs(dom, 150, #name)
      local pop = populate(dom, pairs_, #pairs_)
      local r = pop:plan { threads = 1 }
      assert.same({ #pairs_, 0, 1 }, { r.planned, r.waiting, r.threads })
      local failures = 0
      for i, pair in ipairs(pairs_) do
        local want = expected(dom, pair)
        if type(want) == "string" then failures = failures + 1 end
        assert.same(want, outcome(pop, i))
        assert.equal(type(want) == "table" and "planned" or "no_plan", (pop:status(i)))
      end
      assert.equal(failures, r.failures)
      assert.is_true(failures > 0 and failures < #pairs_) -- both kinds were met
    end)
  end

  it("gives the same plans on 1 and 2 threads, with the cache on and off", function()
    local dom = fixtures.domain("citizen")
    local pairs_ = random_pairs(dom, 100, 7)
    local n = 2600 -- three chunks of 1024 NPCs, so two workers both take some
    local pop = populate(dom, pairs_, n)
    local r = pop:plan { threads = 1, cache = false }
    assert.same({ n, 0, 0 }, { r.planned, r.cache_hits, r.cache_misses })
    local reference = outcomes(pop)
    -- oversubscribe: two workers even on a single core
    for _, opts in ipairs { { threads = 2, oversubscribe = true }, { threads = 1 },
                            { threads = 2, oversubscribe = true, cache = false },
                            { threads = 0 } } do
      pop:mark_dirty()
      r = pop:plan(opts)
      assert.equal(n, r.planned)
      assert.equal(opts.threads == 0 and saspu.cores() or opts.threads, r.threads)
      if opts.cache == false then
        assert.same({ 0, 0 }, { r.cache_hits, r.cache_misses })
      else
        assert.equal(n, r.cache_hits + r.cache_misses)
      end
      assert.same(reference, outcomes(pop))
    end
    -- a second population on 2 threads from the start
    local other = populate(dom, pairs_, n)
    other:plan { threads = 2 }
    assert.same(reference, outcomes(other))
    local stats = pop:stats()
    assert.is_true(stats.cache_hits > 0 and stats.in_cache > 0)
  end)

  it("plans only the dirty NPCs", function()
    local dom = fixtures.domain("horse_breeder")
    local pop = saspu.population(dom, 20)
    pop:set_goal_all("feed_horses")
    assert.equal(20, pop:plan().planned)
    assert.same({ 0, 0 }, { pop:plan().planned, pop:stats().dirty })
    pop:mark_dirty(3, 2)
    pop:mark_dirty(20)
    assert.same({ "planned", true }, { pop:status(4) })
    assert.same({ "planned", false }, { pop:status(5) })
    assert.equal(3, pop:plan().planned)
    pop:set(7, "morning", "feed_horses") -- unchanged: not dirty
    pop:set(8, "holding_haystack")        -- changed
    assert.equal(1, pop:plan().planned)
    assert.same(dom:plan("holding_haystack", "feed_horses"), pop:plan_of(8))
  end)

  it("fills and returns the report table it is given, allocating nothing", function()
    local pop = saspu.population(fixtures.domain("acquisition_machine"), 50)
    pop:set_goal_all("harvest")
    local report = {}
    local opts = { threads = 1, report = report }
    assert.equal(report, pop:plan(opts))
    for _, k in ipairs { "planned", "waiting", "failures", "cache_hits", "cache_misses", "threads" } do
      assert.is_number(report[k])
    end
    assert.is_true(report.elapsed_ms >= 0)
    local grown = compat.heap_growth_kib(function()
      for _ = 1, 100 do
        pop:mark_dirty()
        pop:plan(opts)
      end
    end)
    assert.equal(0, grown)
    assert.equal(50, report.planned)
  end)

  it("stops at the budget and resumes where it stopped until every NPC is planned", function()
    local dom = fixtures.domain("horse_breeder")
    local pairs_ = random_pairs(dom, 40, 3)
    local n = 4500 -- five chunks
    local pop = populate(dom, pairs_, n)
    local r = pop:plan { threads = 1, budget_ms = 0 } -- a spent budget plans one chunk
    assert.same({ 1024, n - 1024 }, { r.planned, r.waiting })
    assert.equal("unplanned", (pop:status(1025)))
    assert.not_equal("unplanned", (pop:status(1024)))
    local calls, planned = 1, r.planned
    while r.waiting > 0 do
      r = pop:plan { threads = 2, budget_ms = 0 }
      calls, planned = calls + 1, planned + r.planned
      assert.is_true(calls <= 10)
    end
    assert.same({ 5, n }, { calls, planned })
    local reference = populate(dom, pairs_, n)
    reference:plan { threads = 1 }
    assert.same(outcomes(reference), outcomes(pop))
    -- no NPC starves: with everything dirty again each call takes the next chunk
    pop:mark_dirty()
    pop:plan { threads = 1, budget_ms = 0 }
    assert.same({ false, true }, { select(2, pop:status(1)), select(2, pop:status(1025)) })
    pop:mark_dirty()
    pop:plan { threads = 1, budget_ms = 0 }
    assert.same({ true, false }, { select(2, pop:status(1)), select(2, pop:status(1025)) })
    -- a frame budget in milliseconds gets there too
    repeat r = pop:plan { budget_ms = 1.67 } until r.waiting == 0
    assert.same(outcomes(reference), outcomes(pop))
  end)

  it("plans several populations in one frame", function()
    local pops, doms, pairs_ = {}, {}, {}
    for k, name in ipairs(DOMAINS) do
      doms[k] = fixtures.domain(name)
      pairs_[k] = random_pairs(doms[k], 60, 100 + k)
      pops[k] = populate(doms[k], pairs_[k], 1500)
    end
    for _ = 1, 2 do -- two frames, every NPC replanning
      for k = 1, #pops do
        pops[k]:mark_dirty()
        assert.equal(1500, pops[k]:plan({ threads = 2 }).planned)
      end
    end
    for k = 1, #pops do
      for i = 1, 1500, 37 do
        assert.same(expected(doms[k], pairs_[k][(i - 1) % 60 + 1]), outcome(pops[k], i))
      end
    end
  end)

  it("refuses bad options", function()
    local pop = saspu.population(fixtures.domain("horse_breeder"), 3)
    assert.error_matches(function() pop:plan { thread = 2 } end,
                         "unknown option 'thread' (expected threads, oversubscribe, cache, budget_ms, report)",
                         1, true)
    assert.error_matches(function() pop:plan { threads = -1 } end,
                         "threads: expected an integer in 0..64, got -1", 1, true)
    assert.error_matches(function() pop:plan { threads = "2" } end, "threads: expected an integer",
                         1, true)
    assert.error_matches(function() pop:plan { cache = 1 } end,
                         "cache: expected a boolean, got number", 1, true)
    assert.error_matches(function() pop:plan { threads = 2, oversubscribe = 1 } end,
                         "oversubscribe: expected a boolean, got number", 1, true)
    assert.error_matches(function() pop:plan { budget_ms = -1 } end,
                         "budget_ms: expected a number of milliseconds >= 0, got -1", 1, true)
    assert.error_matches(function() pop:plan { budget_ms = 0 / 0 } end, "budget_ms: expected", 1,
                         true)
    assert.error_matches(function() pop:plan { report = true } end,
                         "report: expected a table, got boolean", 1, true)
    assert.error_matches(function() pop:plan(3) end, "table expected, got number", 1, true)
    assert.equal(3, pop:plan({ budget_ms = math.huge }).planned)
  end)
end)

describe("saspu.Population:set", function()
  local dom = fixtures.domain("horse_breeder")

  it("takes names, tables and packed states, and keeps what is nil", function()
    local pop = saspu.population(dom, 4)
    pop:set(1, "morning", "fill_trough")
    pop:set(2, { haystack = "in_hands", bucket = "on_floor", water = "in_source" },
            { haystack = "in_feeder" })
    pop:set(3, dom:encode("holding_haystack"), dom:encode("feed_horses", "morning"))
    pop:set(4, "holding_haystack")
    pop:set(4, nil, "fill_feeder") -- the goal keeps the water of the NPC's state
    assert.equal(dom:encode("fill_trough", "morning"), pop:goal(1)) -- keeps the haystack
    assert.equal(dom:encode { haystack = "in_feeder" }, pop:goal(2)) -- the rest is free
    assert.equal("\255\255\255", dom:encode {})
    assert.equal(dom:encode("fill_feeder", "holding_haystack"), pop:goal(4))
    pop:plan()
    assert.same(dom:plan("morning", "fill_trough"), pop:plan_of(1))
    assert.same({ "fill_feeder" }, pop:plan_of(2))
    assert.same(dom:plan("holding_haystack", "feed_horses"), pop:plan_of(3))
    assert.same(dom:plan("holding_haystack", "fill_feeder"), pop:plan_of(4))
  end)

  it("names the argument, the NPC, the variable and the value in its errors", function()
    local pop = saspu.population(dom, 5)
    assert.error_matches(function() pop:set(0, "morning") end,
                         "bad argument #1 to 'set' (npc 0 is outside 1..5)", 1, true)
    assert.error_matches(function() pop:set(6, "morning") end, "npc 6 is outside 1..5", 1, true)
    assert.error_matches(function() pop:set(1, "mornin") end,
                         "bad argument #2 to 'set' (unknown start 'mornin' (holding_haystack, "
                         .. "morning), and not a packed state of 3 bytes)", 1, true)
    assert.error_matches(function() pop:set(1, nil, "feed") end,
                         "unknown goal 'feed' (feed_horses, fill_feeder, fill_trough)", 1, true)
    assert.error_matches(function() pop:set(1, "\0\3\0") end,
                         "packed start: byte 2 ('bucket') is 3, out of range (2 values: 0..1)", 1,
                         true)
    assert.error_matches(function() pop:set(1, { haystack = "stored" }) end,
                         "saspu.Population:set: start: missing variable 'bucket'", 1, true)
    assert.error_matches(function() pop:set(1, nil, { water = "full" }) end,
                         "saspu.Population:set: goal: 'full' is not a value of 'water' "
                         .. "(in_source, in_bucket, in_trough)", 1, true)
    assert.error_matches(function() pop:set(1, 42) end,
                         "start name, packed state or table expected, got number", 1, true)
    -- nothing changed on a refusal
    assert.same({ "unplanned", true }, { pop:status(1) })
    assert.equal(dom:encode("morning"), pop:state(1))
  end)
end)

describe("the bulk setters", function()
  local dom = fixtures.domain("citizen")
  local m = #dom:variables()
  local day = dom:encode("start_of_day")
  local work = dom:encode("work", "start_of_day")
  local meal = dom:encode("have_a_meal", "start_of_day")

  it("set_states and set_goals load packed states", function()
    local pop = saspu.population(dom, 6)
    pop:set_states(1, day:rep(6))
    pop:set_goals(1, work:rep(3) .. meal:rep(3))
    pop:set_goals(6, work) -- one state at the end
    pop:set_goals(3, "") -- nothing
    for i = 1, 6 do assert.equal(day, pop:state(i)) end
    assert.same({ work, meal, work }, { pop:goal(3), pop:goal(4), pop:goal(6) })
    pop:plan()
    local out = {}
    assert.equal(select(1, dom:plan_ids(day, work, out)), (pop:plan_ids_of(1)))
    assert.same(dom:plan("start_of_day", "work"), pop:plan_of(2))
    assert.same(dom:plan("start_of_day", "have_a_meal"), pop:plan_of(5))
    assert.same(dom:plan("start_of_day", "work"), pop:plan_of(6))
  end)

  it("set_goal_all gives every NPC the goal, kept variables from its own state", function()
    local pop = saspu.population(dom, 3)
    local walking = dom:encode({ wandering = "true", thirst = "hydrated" }, "start_of_day")
    pop:set_states(1, day .. walking .. day)
    pop:set_goal_all("join_a_debate") -- partial: debating = true only, the rest free
    for i = 1, 3 do assert.equal(dom:encode("join_a_debate"), pop:goal(i)) end
    pop:set_goal_all("join_a_debate", { keep = true }) -- the rest kept
    assert.equal(dom:encode("join_a_debate", "start_of_day"), pop:goal(1))
    assert.equal(dom:encode("join_a_debate", walking), pop:goal(2))
    pop:set_goal_all(work) -- total
    for i = 1, 3 do assert.equal(work, pop:goal(i)) end
    pop:set_goal_all { hunger = "fed", wandering = saspu.KEEP }
    assert.equal("\2\255\255\1\255\255\255", pop:goal(2)) -- wandering kept: true
    assert.equal("\2\255\255\0\255\255\255", pop:goal(3))
    pop:plan()
    assert.same({ "buy_food", "eat" }, pop:plan_of(3))
  end)

  it("refuses wrong lengths, ranges and values, changing nothing", function()
    local pop = saspu.population(dom, 4)
    assert.error_matches(function() pop:set_states(1, day .. "\0") end,
                         "bad argument #2 to 'set_states' (8 bytes is not a whole number of "
                         .. "states of 7 bytes)", 1, true)
    assert.error_matches(function() pop:set_states(0, day) end,
                         "bad argument #1 to 'set_states' (npcs 0..0 are outside 1..4)", 1, true)
    assert.error_matches(function() pop:set_goals(4, work:rep(2)) end,
                         "npcs 4..5 are outside 1..4", 1, true)
    local bad = day:sub(1, 2) .. "\2" .. day:sub(4) -- has_item = 2
    assert.error_matches(function() pop:set_states(2, day .. bad) end,
                         "bad argument #2 to 'set_states' (byte 10 (npc 3, 'has_item') is 2, "
                         .. "out of range (2 values: 0..1))", 1, true)
    assert.equal(dom:encode({ hunger = "no_food" }, string.rep("\0", m)), pop:state(2))
    assert.error_matches(function() pop:set_goal_all(bad) end,
                         "bad argument #1 to 'set_goal_all' (packed goal: byte 3 ('has_item') is "
                         .. "2, out of range (2 values: 0..1))", 1, true)
    assert.error_matches(function() pop:set_goal_all("lunch") end, "unknown goal 'lunch'", 1, true)
    assert.error_matches(function() pop:mark_dirty(2, 4) end, "npcs 2..5 are outside 1..4", 1, true)
    assert.error_matches(function() pop:mark_dirty(1, -1) end, "count = -1 is negative", 1, true)
  end)
end)

describe("reading results", function()
  local dom = fixtures.domain("horse_breeder")
  local pop = saspu.population(dom, 3)
  pop:set(1, "morning", "feed_horses")
  pop:set(2, { haystack = "in_feeder", bucket = "on_floor", water = "in_source" },
          { water = "in_trough" })
  pop:set(3, "morning", dom:encode("morning")) -- already there: the empty plan
  local feed = dom:plan("morning", "feed_horses")

  it("says why before planning", function()
    local plan, why = pop:plan_of(1)
    assert.is_nil(plan)
    assert.same({ code = "unplanned", message = "npc 1 has not been planned yet" }, why)
    assert.is_nil(pop:plan_ids_of(1))
    for _ in pop:steps(1) do error("no step expected") end
  end)

  it("reads plans as names, ids and steps, into tables it is given", function()
    pop:plan()
    assert.same(feed, pop:plan_of(1))
    assert.same({}, pop:plan_of(3))
    local out = { "x", "x", "x", "x", "x", "x", "x", "x", "x" }
    assert.equal(out, pop:plan_of(1, out))
    assert.same(feed, out)
    local count, ids = pop:plan_ids_of(1, out)
    assert.equal(#feed, count)
    assert.equal(out, ids)
    for k = 1, count do assert.equal(feed[k], dom:action_name(ids[k])) end
    local seen = {}
    for k, name in pop:steps(1) do seen[k] = name end
    assert.same(feed, seen)
    assert.same({ "planned", false }, { pop:status(1) })
  end)

  it("says why an NPC has no plan, as dom:plan does", function()
    local plan, why = pop:plan_of(2)
    local _, want = dom:plan({ haystack = "in_feeder", bucket = "on_floor", water = "in_source" },
                             { water = "in_trough" })
    assert.is_nil(plan)
    assert.same(want, why)
    assert.same({ "no_plan", false }, { pop:status(2) })
    local count, why2 = pop:plan_ids_of(2)
    assert.is_nil(count)
    assert.equal("unreachable", why2.code)
    -- once the NPC changed, the old result is kept with its code only
    pop:set(2, nil, { water = "in_source" })
    assert.same({ "no_plan", true }, { pop:status(2) })
    plan, why = pop:plan_of(2)
    assert.is_nil(plan)
    assert.equal("unreachable", why.code)
    assert.matches("have changed since", why.message)
    pop:plan()
    assert.same({}, pop:plan_of(2))
  end)

  it("keeps reading the previous plan while an NPC is dirty", function()
    pop:set(1, "holding_haystack")
    assert.same({ "planned", true }, { pop:status(1) })
    assert.same(feed, pop:plan_of(1))
  end)

  it("refuses NPC indices out of range", function()
    assert.error_matches(function() pop:plan_of(4) end,
                         "bad argument #1 to 'plan_of' (npc 4 is outside 1..3)", 1, true)
    assert.error_matches(function() pop:steps(0) end, "npc 0 is outside 1..3", 1, true)
    assert.error_matches(function() pop:status("x") end, "number expected, got string", 1, true)
    assert.error_matches(function() pop:plan_of(1, 5) end, "table expected, got number", 1, true)
  end)
end)

describe("the lifetime of a population", function()
  it("keeps its domain alive after the last other reference is dropped", function()
    local dom = fixtures.domain("acquisition_machine")
    local pop = saspu.population(dom, 4)
    local weak = setmetatable({ dom }, { __mode = "v" })
    dom = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.is_not_nil(weak[1])
    pop:set_goal_all("harvest")
    pop:set(2, "ready_to_work")
    pop:plan()
    assert.same(weak[1]:plan("ready_to_work", "harvest"), pop:plan_of(2))
  end)

  it("lets the domain be collected once its populations are", function()
    local weak = setmetatable({}, { __mode = "v" })
    do
      local dom = fixtures.domain("citizen")
      weak[1], weak[2] = dom, saspu.population(dom, 8)
    end
    collectgarbage()
    collectgarbage()
    assert.is_nil(weak[1])
    assert.is_nil(weak[2])
  end)

  it("keeps planning after dom:close(): the compiled domain outlives it", function()
    local dom = fixtures.domain("horse_breeder")
    local a, b = saspu.population(dom, 2), saspu.population(dom, 2)
    dom:close()
    assert.error_matches(function() dom:plan("morning", "feed_horses") end,
                         "saspu.Domain is closed", 1, true)
    a:set(1, "morning", "feed_horses")
    a:plan()
    assert.same({ "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket", "take_haystack",
                  "fill_feeder" }, a:plan_of(1))
    a:close()
    b:set(2, "holding_haystack", "fill_feeder")
    b:plan()
    assert.same({ "fill_feeder" }, b:plan_of(2))
    assert.equal("saspu.Population 'horse_breeder' (2 NPCs)", tostring(b))
    b:close()
  end)

  it("closes once, by close(), __close or __gc", function()
    local dom = fixtures.domain("horse_breeder")
    local pop = saspu.population(dom, 3)
    pop:close()
    pop:close()
    assert.equal("saspu.Population (closed)", tostring(pop))
    assert.error_matches(function() pop:plan() end, "saspu.Population is closed", 1, true)
    assert.error_matches(function() return #pop end, "saspu.Population is closed", 1, true)
    if compat.with_close then -- to-be-closed variables exist from Lua 5.4
      compat.with_close(function() return saspu.population(dom, 3) end, function(scoped)
        pop = scoped
      end)
      assert.equal("saspu.Population (closed)", tostring(pop))
    end
    assert.error_matches(function() pop.plan(dom) end, "saspu.Population expected, got saspu.Domain",
                         1, true)
  end)
end)

describe("saspu.clock_ns and saspu.cores", function()
  it("give a monotonic clock and the core count", function()
    local t0 = saspu.clock_ns()
    local t1 = saspu.clock_ns()
    assert.is_true(compat.is_integer(t0) and t1 >= t0)
    assert.is_true(saspu.cores() >= 1)
  end)
end)

-- Threads of this process (Linux: /proc/self/status), or nil elsewhere.
local function live_threads()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  return tonumber(text:match("Threads:%s*(%d+)"))
end

-- Threads of this process once `want` are left, or after 2 s: the kernel counts a joined
-- thread until it has reaped it, a moment after pthread_join returned.
local function threads_after_join(want)
  local deadline = saspu.clock_ns() + 2000000000
  local n = live_threads()
  while n ~= want and saspu.clock_ns() < deadline do n = live_threads() end
  return n
end

describe("the shared thread pool", function()
  it("caps threads at the cores unless oversubscribe = true, and joins the extra threads "
     .. "after 64 calls within the cores", function()
    if not live_threads() then return end -- no /proc: nothing to count
    local cores = saspu.cores()
    local pop = saspu.population(fixtures.domain("citizen"), 10)
    pop:plan { threads = cores } -- the pool at the cores (none on one core)
    local at_cores = live_threads()
    pop:mark_dirty()
    assert.equal(cores, pop:plan({ threads = 64 }).threads)
    assert.equal(at_cores, live_threads())
    pop:mark_dirty()
    local r = pop:plan { threads = cores + 3, oversubscribe = true }
    assert.same({ 10, cores + 3 }, { r.planned, r.threads })
    assert.equal(at_cores + 3, live_threads())
    -- SASPU_POOL_IDLE_CALLS (64) calls in a row within the cores
    for _ = 1, 63 do pop:plan { threads = 1 } end
    assert.equal(at_cores + 3, live_threads())
    pop:mark_dirty()
    assert.equal(10, pop:plan().planned)
    assert.equal(at_cores, threads_after_join(at_cores))
    -- and it grows again on request
    pop:mark_dirty()
    assert.equal(cores + 1, pop:plan({ threads = cores + 1, oversubscribe = true }).threads)
    assert.equal(at_cores + 1, threads_after_join(at_cores + 1))
    pop:close()
  end)
end)
