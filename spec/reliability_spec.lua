-- spec/reliability_spec.lua: no script crashes the binding: objects closed by code their own methods run, stale plans, message limits, collector-visible memory.
local saspu = require "saspu"
local fixtures = require "support.domains"
local compat = require "support.compat"

local HORSE = "domains/horse_breeder.lua"

-- Runs f() while a finalizer closes `target` whenever the collector runs it: the
-- collector is set to step on (almost) every allocation, so any allocation inside a
-- method may close the method's own object. Returns how many calls raised "closed",
-- how many completed, and how many raised "closed" although the finalizer had not
-- closed their object during the call (a false "closed": must be none). Restores the
-- collector afterwards.
local function under_closing_finalizer(target, rounds, f)
  local stop, armed = false, true
  local fired -- set by the finalizer when it closed the object of the running call
  local mt = {}
  mt.__gc = function()
    if stop then return end
    if armed and target then
      fired = true
      target:close()
    end
    setmetatable({}, mt) -- the next cycle runs this finalizer again
  end
  local restore = compat.eager_collector()
  setmetatable({}, mt)
  local closed, completed, false_closed = 0, 0, 0
  for i = 1, rounds do
    local obj = target(i)
    fired, armed = false, true
    local ok, err = pcall(f, obj)
    armed = false
    if ok then
      completed = completed + 1
    elseif tostring(err):find("closed", 1, true) then
      closed = closed + 1
      if not fired then false_closed = false_closed + 1 end
    else
      stop = true
      restore()
      error(err, 0)
    end
  end
  stop = true
  collectgarbage()
  restore()
  return closed, completed, false_closed
end

-- A callable holder: holder(i) makes a fresh object with make(i) and remembers it, so
-- the finalizer closes the object of the running call; holder:close() closes it.
local function holder(make)
  local h = {}
  return setmetatable(h, {
    __call = function(_, i) h.obj = make(i); return h.obj end,
    __index = { close = function() if h.obj then h.obj:close() end end },
  })
end

describe("methods whose object is closed by code they run", function()
  local total_closed = 0

  -- Every method of every type, closed by a finalizer at any allocation: each call
  -- completes or raises "closed"; valgrind (./dev test) checks no freed memory is read.
  local function check_all(name, make, calls, rounds)
    for method, call in pairs(calls) do
      local h = holder(make)
      local closed, _, false_closed = under_closing_finalizer(h, rounds or 8, call)
      total_closed = total_closed + closed
      assert.equal(0, false_closed, name .. ":" .. method .. " raised 'closed' on an object nothing closed")
    end
  end

  it("survives a finalizer closing a saspu.Domain in any method", function()
    local spec = saspu.load("domains/citizen.lua")
    local horse = saspu.load(HORSE)
    check_all("Domain", function() return saspu.domain(spec) end, {
      actions = function(d) return d:actions() end,
      variables = function(d) return d:variables() end,
      goals = function(d) return d:goals() end,
      starts = function(d) return d:starts() end,
      explain = function(d) return d:explain() end,
      tostring = function(d) return tostring(d) end,
      class = function(d) return d.class, d.name end,
      encode = function(d) return d:decode(d:encode(next(d:starts()))) end,
      plan = function(d)
        local starts, goals = d:starts(), d:goals()
        for s in pairs(starts) do for g in pairs(goals) do d:plan(s, g) end end
      end,
      population = function(d) return saspu.population(d, 50) end,
    })
    check_all("Domain", function() return saspu.domain(horse) end, {
      plan_fail = function(d)
        local s0 = d:encode { haystack = "stored", bucket = "on_floor", water = "in_trough" }
        local out = { 9, 9, 9 }
        d:plan_ids(s0, d:encode({ water = "in_source" }, s0), out, {})
        d:plan({ haystack = "stored", bucket = "on_floor", water = "in_trough" },
               { water = "in_source" })
      end,
    })
  end)

  it("survives a finalizer closing a saspu.Population in any method", function()
    local dom = fixtures.domain("horse_breeder")
    local start, goal = dom:encode("morning"), dom:encode("feed_horses", "morning")
    local s0 = dom:encode { haystack = "stored", bucket = "on_floor", water = "in_trough" }
    local bad = dom:encode({ water = "in_source" }, s0)
    check_all("Population", function()
      local p = saspu.population(dom, 40)
      p:set_states(1, start:rep(40))
      p:set_goal_all(goal)
      p:set(2, s0, bad)
      p:plan { threads = 1 }
      return p
    end, {
      set = function(p) p:set(1, dom:starts().morning, { water = "in_source" }) end,
      set_rows = function(p) p:set_states(1, start:rep(3)); p:set_goals(1, goal:rep(3)) end,
      set_goal_all = function(p) p:set_goal_all({ water = "in_source" }) end,
      mark_dirty = function(p) p:mark_dirty(1, 2); p:mark_dirty() end,
      plan = function(p) p:mark_dirty(); return p:plan { threads = 1, report = {} } end,
      plan_of = function(p) return p:plan_of(1), p:plan_of(2), p:plan_ids_of(2, { 1 }) end,
      status = function(p) return p:status(1), p:state(1), p:goal(1), tostring(p) end,
      steps = function(p) for _ in p:steps(1) do end end,
      stats = function(p) return p:stats() end,
      clear_cache = function(p) p:clear_cache(); return #p, p:size(), p:domain() end,
    })
  end)

  it("survives a finalizer closing a saspu.Grid in any method", function()
    check_all("Grid", function() return saspu.grid_from_ascii("....\n.##.\n....\n") end, {
      path = function(g) return g:path(1, 1, 4, 3) end,
      path_into = function(g) return g:path_into({}, 1, 1, 4, 3, { algorithm = "dijkstra" }) end,
      set = function(g)
        g:set_costs(1, 1, 2, 1, { 3, false }); g:set_map(1, 3, "==")
        g:set_cost(1, 1, 2); g:fill_blocked(1, 1, 1, 1, false); g:fill_cost(1, 1, 2, 2, 1)
      end,
      read = function(g) return g:cost(1, 1), g:is_blocked(2, 2), g:memory(), tostring(g) end,
      stats = function(g) g:path(1, 1, 4, 1); return g:last_stats() end,
    })
    -- the finalizer did close objects in the middle of calls (the check can fail);
    -- before 5.3 (LuaJIT too) the collector rarely steps inside these short grid calls
    if _VERSION >= "Lua 5.3" then assert.is_true(total_closed > 0) end
  end)

  -- A small town: a world on a grid, a crowd with hooks and two agents that have run a
  -- few frames. `target` picks what the finalizer closes: "world", "crowd", "grid".
  local citizen = fixtures.domain("citizen")
  local function town(target)
    return function()
      local g = saspu.grid_from_ascii("......\n.##...\n......\n")
      local w = saspu.world { grid = g, places = { { name = "well", x = 5, y = 3, capacity = 1 } } }
      local c = w:crowd(citizen, {
        actions = { buy_food = { duration = 0.5, at = "well", on_start = function() end },
                    eat = { run = function(_, wait) wait(0.2) end } },
        goals = { { "work", priority = 2 }, { { hunger = "fed" }, priority = 1 } },
      }, { capacity = 4 })
      local a = c:spawn { start = "start_of_day", x = 1, y = 1 }
      c:spawn { start = "start_of_day", x = 6, y = 1 }
      for _ = 1, 3 do w:update(0.25) end
      local t = { g = g, w = w, c = c, a = a }
      t.close = function() ({ world = w, crowd = c, grid = g })[target]:close() end
      return t
    end
  end

  local function world_calls()
    return {
      place = function(t) t.w:place("well" .. tostring(t), 2, 3); t.w:add_place(7, 3, 3, 1) end,
      read = function(t)
        return t.w:place_info(1), t.w:place_count(), t.w:has_kind(12), t.w:grid(), tostring(t.w),
               t.w:place_name(1), t.w:crowds()
      end,
      stats = function(t) t.w:field_budget(1048576); return t.w:stats(setmetatable({}, { __newindex = rawset })) end,
      update = function(t) t.w:update(0.5); for ev in t.w:events() do local _ = ev.kind .. tostring(ev.reason) end end,
      crowd = function(t) return t.w:crowd(t.c:domain(), { goals = { { "work" } } }, { capacity = 2, speed = 3 }) end,
    }
  end

  local function crowd_calls()
    return {
      spawn = function(t) t.c:spawn { start = "start_of_day", x = 2, y = 3, home = "well" } end,
      update = function(t)
        t.c:update(0.25)
        for k = 1, t.c:event_count() do t.c:event(k) end
        local k = t.c:next_hook(1, -1)
        while k do k = t.c:next_hook(k + 1, -1) end
      end,
      set = function(t)
        t.c:set_all("hunger", "fed"); t.c:set_var(1, 1, 2); t.c:set_state(2, t.c:state(1))
        t.c:set_state(1, t.c:domain():encode("start_of_day"))
      end,
      control = function(t) t.c:control(1, "rethink"); t.c:control(2, "fail", 3); t.c:control(1, "finish") end,
      setup = function(t)
        t.c:set_action(1, 0.5, 1, "kind", "well", false, false, false)
        t.c:add_goal(t.c:state(1), 3)
      end,
      read = function(t)
        local info = t.c:info(1, {})
        local n = t.c:plan(1, {})
        return info, n, t.c:why(1), t.c:stats(), t.c:goal_names(), tostring(t.c), #t.c, t.c:agent(2)
      end,
    }
  end

  local function agent_calls()
    return {
      set = function(t) t.a:set("hunger", "fed"); t.a:set("thirst", "hydrated") end,
      get = function(t) return t.a:get("hunger"), t.a:state(), t.a.data, t.a:index(), tostring(t.a) end,
      inspect = function(t) return t.a:inspect() end,
      crowd = function(t) return t.a:crowd():size() end,
    }
  end

  it("survives a finalizer closing a saspu.World, its grid or a saspu.Crowd in any method", function()
    -- The eager collector walks the whole heap at almost every allocation, so this
    -- spec costs in proportion to the heap: CTest and ./dev run each spec file in a
    -- fresh Lua state, and the garbage of earlier specs goes first (the second pass
    -- frees what the first one's finalizers left).
    collectgarbage("collect")
    collectgarbage("collect")
    -- each object with what its methods read: its own C object and the grid below it
    local before = total_closed
    for _, target in ipairs { "world", "grid" } do check_all("World", town(target), world_calls(), 4) end
    for _, target in ipairs { "crowd", "grid" } do check_all("Crowd", town(target), crowd_calls(), 4) end
    check_all("Agent", town("crowd"), agent_calls(), 4)
    if _VERSION >= "Lua 5.3" then assert.is_true(total_closed > before) end
  end)

  it("raises when a crowd is closed by an info table's __newindex or an option's __index", function()
    local t = town("crowd")()
    local out = setmetatable({}, { __newindex = function(o, k, v) t.c:close(); rawset(o, k, v) end })
    local info = t.c:info(1, out)
    assert.equal(out, info)
    assert.equal("saspu.Crowd (closed)", tostring(t.c))
    local t2 = town("world")()
    local opts = setmetatable({}, { __index = function() t2.w:close() end })
    assert.error_matches(function() require("saspu.core").crowd(t2.w, t2.c:domain(), opts) end,
                         "saspu.World was closed during the call", 1, true)
  end)

  it("says a world was closed during a Lua-written method (world:load's options)", function()
    local t = town("world")()
    local s = t.w:save()
    local opts = setmetatable({}, { __index = function() t.w:close() end })
    assert.error_matches(function() t.w:load(s, opts) end, "saspu.World was closed during the call", 1, true)
    assert.equal("saspu.World (closed)", tostring(t.w))
    assert.error_matches(function() t.w:load(s) end, "saspu.World: closed", 1, true)
    local t2 = town("world")()
    t2.w:load(t2.w:save(), setmetatable({}, { __index = function() end })) -- open: loads
  end)

  it("raises instead of reading a domain closed by a `why` table's __newindex", function()
    local dom = saspu.domain_file(HORSE)
    local s0 = dom:encode { haystack = "stored", bucket = "on_floor", water = "in_trough" }
    local why = setmetatable({}, { __newindex = function(t, k, v)
      if k == "message" then dom:close() end
      rawset(t, k, v)
    end })
    local n, w = dom:plan_ids(s0, dom:encode({ water = "in_source" }, s0), {}, why)
    assert.is_nil(n)
    assert.equal(why, w)
    assert.equal("no_setter", why.code)
    assert.equal("water", why.variable)
    assert.equal(tostring(dom), "saspu.Domain (closed)")
  end)

  it("closes the domain inside a report table's __newindex", function()
    local dom = fixtures.domain("horse_breeder")
    local pop = saspu.population(dom, 10)
    local report = setmetatable({}, { __newindex = function(t, k, v)
      pop:close(); dom:close(); rawset(t, k, v) end })
    local r = pop:plan { threads = 1, report = report }
    assert.equal(10, r.planned)
    assert.error_matches(function() pop:plan() end, "saspu.Population is closed", 1, true)
  end)
end)

describe("failed plans clear `out`", function()
  local dom = fixtures.domain("horse_breeder")
  local s0 = dom:encode { haystack = "stored", bucket = "on_floor", water = "in_trough" }
  local bad = dom:encode({ water = "in_source" }, s0)

  it("dom:plan_ids leaves no stale plan", function()
    local out = {}
    assert.is_true(dom:plan_ids(dom:encode("morning"), dom:encode("feed_horses", "morning"), out) > 0)
    local n, why = dom:plan_ids(s0, bad, out)
    assert.is_nil(n)
    assert.equal("no_setter", why.code)
    assert.same({}, out)
  end)

  it("pop:plan_of and pop:plan_ids_of leave no stale plan", function()
    local pop = saspu.population(dom, 2)
    pop:set(1, "morning", "feed_horses")
    pop:set(2, s0, bad)
    pop:plan { threads = 1 }
    local names, ids = {}, {}
    assert.is_true(#pop:plan_of(1, names) > 0)
    assert.is_true(pop:plan_ids_of(1, ids) > 0)
    assert.is_nil(pop:plan_of(2, names))
    assert.is_nil(pop:plan_ids_of(2, ids))
    assert.same({}, names)
    assert.same({}, ids)
  end)
end)

describe("messages", function()
  local function horse() return saspu.load(HORSE) end

  it("quotes a long name cut to its ends with its size", function()
    local dom = fixtures.domain("horse_breeder")
    local long = ("a"):rep(1048576)
    local ok, err = pcall(dom.plan, dom, long, "feed_horses")
    assert.is_false(ok)
    assert.is_true(#err < 300)
    assert.truthy(err:find("'" .. ("a"):rep(32) .. "...aaaaaaaa' (1048576 bytes)", 1, true))
    local spec = horse()
    spec.name = long
    ok, err = pcall(saspu.domain, spec)
    assert.is_false(ok)
    assert.truthy(err:find("name: '" .. ("a"):rep(32) .. "...aaaaaaaa' (1048576 bytes) is longer than 255 bytes", 1, true))
    ok, err = pcall(dom.encode, dom, { [long] = "x" })
    assert.is_false(ok)
    assert.truthy(err:find("unknown variable 'a", 1, true))
    assert.is_true(#err < 300)
  end)

  it("shows zero bytes and refuses them in every kind of name", function()
    local spec = horse()
    spec.goals["feed\0x"] = spec.goals.feed_horses
    assert.error_matches(function() saspu.domain(spec) end,
      "saspu.domain: goals: 'feed\\0x': a name is 1 to 255 bytes without zero bytes", 1, true)
    spec = horse()
    spec.variables[1].values[1] = "st\0red"
    assert.error_matches(function() saspu.domain(spec) end, "'st\\0red' contains a zero byte", 1, true)
  end)

  it("refuses empty goal and start names", function()
    local spec = horse()
    spec.goals[""] = spec.goals.feed_horses
    assert.error_matches(function() saspu.domain(spec) end,
      "saspu.domain: goals: expected non-empty names as keys, got ''", 1, true)
    spec = horse()
    spec.starts[""] = spec.starts.morning
    assert.error_matches(function() saspu.domain(spec) end,
      "saspu.domain: starts: expected non-empty names as keys, got ''", 1, true)
  end)

  it("names a mark_dirty range without overflowing", function()
    local pop = saspu.population(fixtures.domain("horse_breeder"), 4)
    if math.maxinteger then -- 5.3 and later: the largest integer itself
      assert.error_matches(function() pop:mark_dirty(2, math.maxinteger) end,
        "9223372036854775807 NPCs from npc 2 are outside 1..4", 1, true)
    end
    assert.error_matches(function() pop:mark_dirty(2, 2^53) end,
      "npcs 2..9007199254740993 are outside 1..4", 1, true)
    assert.error_matches(function() pop:mark_dirty(3, 5) end, "npcs 3..7 are outside 1..4", 1, true)
  end)
end)

describe("values declared as booleans", function()
  local spec = {
    name = "door",
    variables = { { name = "open", values = { false, true } },
                  { name = "word", values = { "false", "true" } } },
    actions = {
      { name = "open_door", var = "open", pre = false, post = true, prevail = { word = "true" } },
      { name = "say", var = "word", pre = "false", post = "true" },
    },
    starts = { closed = { open = false, word = false } },
    goals = { opened = { open = "true", word = true } },
  }

  it("are accepted like the states that name them", function()
    local dom = saspu.domain(spec)
    assert.same({ "say", "open_door" }, dom:plan("closed", "opened"))
    assert.same({ "say", "open_door" },
                dom:plan({ open = "false", word = "false" }, { open = true, word = true }))
  end)

  it("come back in the declared form everywhere", function()
    local dom = saspu.domain(spec)
    assert.same({ open = false, word = "false" }, dom:starts().closed)
    assert.same({ open = true, word = "true" }, dom:goals().opened)
    assert.same({ open = true, word = "true" }, dom:decode("\1\1"))
    assert.same({ false, true }, dom:variables()[1].values)
    assert.same({ "false", "true" }, dom:variables()[2].values)
    local a = dom:actions()[1]
    assert.equal(false, a.pre)
    assert.equal(true, a.post)
    assert.same({ word = "true" }, a.prevail)
    local _, why = dom:plan({ open = true, word = "true" }, { open = false })
    assert.equal(false, why.value)
    assert.error_matches(function() dom:plan({ open = "maybe", word = "false" }, "opened") end,
      "'maybe' is not a value of 'open' (false, true)", 1, true)
  end)
end)

describe("saspu.load", function()
  local function file(text)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    return path
  end

  local function load_error(text)
    local path = file(text)
    local ok, err = pcall(saspu.load, path)
    os.remove(path)
    assert.is_false(ok)
    return err
  end

  it("checks string.rep and string methods against the file's memory budget", function()
    assert.truthy(load_error('return { x = ("x"):rep(2^30) }'):find("ran over its budget of 67108864 bytes", 1, true))
    assert.truthy(load_error('return { x = string.rep("x", 2^30) }'):find("ran over its budget", 1, true))
    assert.equal("xx", ("x"):rep(2)) -- the caller's string methods are back
  end)

  it("stops a file that runs too long or grows the heap too much", function()
    assert.truthy(load_error("while true do end"):find("ran over its budget of 1000000 instructions", 1, true))
    assert.truthy(load_error('local s = "xxxxxxxx" for i = 1, 40 do s = s .. s end return {}')
                    :find("ran over its budget of 67108864 bytes", 1, true))
    local t = load_error("local t = {} for i = 1, 1e7 do t[i] = {} end return t")
    assert.truthy(t:find("ran over its budget", 1, true))
  end)

  it("still reads the domain files", function()
    assert.equal("horse_breeder", saspu.load(HORSE).name)
  end)
end)

describe("C memory the collector sees", function()
  -- Objects dropped without close, in a weak table: those still there were never
  -- collected. The loops allocate almost nothing on the Lua heap, so only the
  -- binding's accounting of C memory can make the collector run.
  local function survivors(rounds, make)
    local alive = setmetatable({}, { __mode = "v" })
    collectgarbage()
    for i = 1, rounds do alive[i] = make() end
    local count = 0
    for _ in pairs(alive) do count = count + 1 end
    return count
  end

  it("collects dropped populations in a loop", function()
    local dom = fixtures.domain("citizen")
    local n = survivors(60, function() return saspu.population(dom, 200000) end)
    assert.is_true(n < 30, n .. " of 60 populations still alive")
  end)

  it("collects dropped grids and their search workspaces in a loop", function()
    local n = survivors(40, function()
      local g = saspu.grid(1024, 1024)
      g:path_into({}, 1, 1, 2, 2)
      return g
    end)
    assert.is_true(n < 20, n .. " of 40 grids still alive")
  end)
end)
