-- tests/fuzz/lua_api_driver.lua: random call sequences on every saspu object, drawn from fuzzer bytes or a seed; returns the findings (crash-free errors that name nothing, broken invariants).
--
-- driver.run_bytes(s) -> findings   the libFuzzer harness (tests/fuzz/fuzz_lua_api.c)
-- driver.run_seed(seed, steps) -> findings   plain Lua (spec/lua_api_fuzz_spec.lua)
-- A finding is a text; the caller aborts (libFuzzer) or fails the spec. saspu errors are
-- expected: every call runs under pcall and its message must be a non-empty string that
-- does not come from Lua's own checks inside saspu's Lua files ("attempt to index ...").
local saspu = require "saspu"

local type, pairs, ipairs, pcall, tostring, select = type, pairs, ipairs, pcall, tostring, select
local setmetatable, rawset, error = setmetatable, rawset, error
local collectgarbage, huge = collectgarbage, math.huge
local string_rep, string_char, format, concat = string.rep, string.char, string.format, table.concat
local newproxy = rawget(_G, "newproxy")
local unpack = table.unpack or rawget(_G, "unpack")

local M = { root = "" } -- the folder holding domains/ (the harness sets it; "" from the root)

local PAPER = { "domains/citizen.lua", "domains/horse_breeder.lua", "domains/bandit.lua",
                "domains/farrier.lua", "domains/innkeeper.lua", "domains/dancer.lua" }
local MAX_OBJECTS = 6 -- per kind: old objects are dropped (left to the collector)
local ASCII_CELLS = { "#", ".", "=", "1", "5", "9" }

---------------------------------------------------------------------------------------
-- Sources of choices: pick(n) -> 1..n
---------------------------------------------------------------------------------------

local function byte_source(s)
  local pos, len = 0, #s
  local src = { done = false }
  function src.pick(n)
    pos = pos + 1
    if pos > len then
      src.done = true
      return 1
    end
    local b = s:byte(pos)
    if n > 256 and pos < len then
      pos = pos + 1
      b = b * 256 + s:byte(pos)
    end
    return b % n + 1
  end
  return src
end

local function seed_source(seed, steps)
  local x, calls = seed % 2147483647 + 1, 0
  local src = { done = false }
  function src.pick(n)
    calls = calls + 1
    if calls > steps then src.done = true end
    x = (x * 16807) % 2147483647
    return x % n + 1
  end
  return src
end

---------------------------------------------------------------------------------------
-- The run's state: pools of objects, findings
---------------------------------------------------------------------------------------

local R -- the current run: { src, pick, pools = { kind = { objects } }, findings }

local function pick(n) return R.src.pick(n) end
local function chance(k) return pick(k) == 1 end
local function any(list) if #list > 0 then return list[pick(#list)] end end

local function finding(text)
  R.findings[#R.findings + 1] = text
end

local function pool(kind) return R.pools[kind] end

local function keep(kind, obj)
  local p = R.pools[kind]
  if #p >= MAX_OBJECTS then table.remove(p, pick(#p)) end
  p[#p + 1] = obj
  return obj
end

-- Any object of any kind (often closed ones).
local function any_object()
  local kinds = { "dom", "pop", "grid", "world", "crowd", "agent" }
  return any(pool(kinds[pick(#kinds)]))
end

-- Closes an object of any kind, as a finalizer or a hook would.
local function close_one(obj)
  if obj and obj.close then obj:close() end
end

-- An error message is a finding unless it is a string naming what is wrong.
local LUA_INTERNAL = { "attempt to index", "attempt to call", "attempt to perform",
                       "attempt to compare", "attempt to concatenate",
                       "stack overflow", "C stack overflow" }
local function check_error(what, err)
  if type(err) ~= "string" then
    finding(format("%s: raised a %s, not a message", what, type(err)))
    return
  end
  if err == "" then finding(what .. ": an empty message") return end
  if err:find("fuzz: ", 1, true) then return end -- raised by the driver's own hooks
  if err:find("not enough memory", 1, true) then return end
  for _, pattern in ipairs(LUA_INTERNAL) do
    if err:find(pattern) and err:find("saspu", 1, true) then
      finding(format("%s: a message from Lua's own checks: %s", what, err))
      return
    end
  end
end

-- Calls f(...) under pcall; a failure must carry a message. Returns ok, results.
local function try(what, f, ...)
  local res = { pcall(f, ...) }
  if not res[1] then check_error(what, res[2]) end
  return unpack(res, 1, 8)
end

---------------------------------------------------------------------------------------
-- Values: junk of every type, numbers in and out of range, hostile tables
---------------------------------------------------------------------------------------

local function hostile_table(base)
  -- a table whose reads and writes run code that closes objects and collects garbage
  local victim = any_object()
  local t = {}
  local mode = pick(3)
  return setmetatable(t, {
    __index = function(_, k)
      if mode ~= 2 then close_one(victim) end
      if mode == 3 then collectgarbage("step", 1) end
      return base and base[k]
    end,
    __newindex = function(tt, k, v)
      if mode ~= 1 then close_one(victim) end
      collectgarbage("step", 1)
      rawset(tt, k, v)
    end,
  })
end

local JUNK = {
  function() return nil end,
  function() return true end,
  function() return 0 end,
  function() return -1 end,
  function() return 1.5 end,
  function() return 0 / 0 end,
  function() return huge end,
  function() return -huge end,
  function() return 2 ^ 53 end,
  function() return 2 ^ 31 end,
  function() return "" end,
  function() return "x\0y" end,
  function() return string_rep("long", 300) end,
  function() return {} end,
  function() return { 1, 2, 3 } end,
  function() return function() end end,
  function() return any_object() end,
  function() return hostile_table() end,
  function() return coroutine.create(function() end) end,
}

local function junk() return JUNK[pick(#JUNK)]() end

-- A number in lo..hi, or (1 time in `odds`) junk.
local function num(lo, hi, odds)
  if chance(odds or 12) then return junk() end
  return lo + pick(hi - lo + 1) - 1
end

-- A count in lo..hi, or a wrong one that the limits refuse (never a huge valid one:
-- a 2^31-NPC population is allowed and would take the fuzzer's memory).
local BAD_COUNTS = { -1, 1.5, 0 / 0, huge, -huge, 2 ^ 31 + 1, 2 ^ 53, 2 ^ 64, "12", false }
local function count(lo, hi)
  if chance(12) then return BAD_COUNTS[pick(#BAD_COUNTS)] end
  return lo + pick(hi - lo + 1) - 1
end

-- A finalizer: an object that, once collected, closes `victim` (chosen now).
local function finalizer()
  local victim = any_object()
  local gc = function() close_one(victim) end
  if newproxy then
    local p = newproxy(true)
    getmetatable(p).__gc = gc
    return p
  end
  return setmetatable({}, { __gc = gc })
end

---------------------------------------------------------------------------------------
-- Invariants
---------------------------------------------------------------------------------------

-- Replays `names` (action names) from `state` ({ var = value }); true when every
-- action's pre and prevail hold and `goal` holds at the end, else false, why.
local function replays(actions, state, goal, names)
  local acts = {}
  for _, a in ipairs(actions) do acts[a.name] = a end
  local s = {}
  for k, v in pairs(state) do s[k] = v end
  for i, name in ipairs(names) do
    local a = acts[name]
    if not a then return false, "step " .. i .. ": unknown action " .. tostring(name) end
    if a.pre ~= nil and s[a.var] ~= a.pre then
      return false, format("step %d %s: %s = %s, needs %s", i, name, a.var, tostring(s[a.var]), a.pre)
    end
    for var, value in pairs(a.prevail or {}) do
      if s[var] ~= value then return false, format("step %d %s: prevail %s", i, name, var) end
    end
    s[a.var] = a.post
  end
  for var, value in pairs(goal) do
    if s[var] ~= value then return false, format("goal %s = %s not reached", var, value) end
  end
  return true
end

M.replays = replays -- for the spec: the check must be able to fail

local function check_replay(what, dom, s0, goal, names)
  local ok1, state = pcall(dom.decode, dom, s0)
  local ok2, cond = pcall(dom.decode, dom, goal)
  local ok3, actions = pcall(dom.actions, dom)
  if not (ok1 and ok2 and ok3) then return end -- closed meanwhile (a finalizer)
  local ok, why = replays(actions, state, cond, names)
  if not ok then finding(what .. ": the plan does not replay: " .. why) end
end

---------------------------------------------------------------------------------------
-- Domains
---------------------------------------------------------------------------------------

local VALUE_NAMES = { "a", "b", "c", "d", "e" }

-- A small random domain table; one time in three, a malformed one.
local function random_domain_table()
  local vars, acts = {}, {}
  local nv = pick(4)
  for v = 1, nv do
    local values = {}
    for x = 1, 1 + pick(3) do values[x] = VALUE_NAMES[x] end
    vars[v] = { name = "v" .. v, values = values }
  end
  for a = 1, pick(8) do
    local v = vars[pick(nv)]
    local act = { name = "act" .. a, var = v.name, pre = any(v.values), post = any(v.values) }
    if chance(3) then
      local w = vars[pick(nv)]
      if w ~= v then act.prevail = { [w.name] = any(w.values) } end
    end
    if act.pre == act.post then act.pre = nil end
    acts[a] = act
  end
  local t = { name = "random", variables = vars, actions = acts,
              goals = { g = { v1 = any(vars[1].values) } },
              starts = { s = {} } }
  for _, v in ipairs(vars) do t.starts.s[v.name] = v.values[1] end
  if chance(3) then
    -- malformed: one field replaced by junk, anywhere in the table
    local targets = { t, vars[pick(nv)], acts[pick(#acts)], t.goals, t.starts.s }
    local target = targets[pick(#targets)]
    local keys = {}
    for k in pairs(target) do keys[#keys + 1] = k end
    table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
    local key = chance(4) and "unknown_field" or any(keys)
    target[key] = junk()
  end
  if chance(6) then t = hostile_table(t) end
  return t
end

local function op_domain()
  local dom
  local ok, d
  if chance(3) then
    ok, d = try("saspu.domain", saspu.domain, random_domain_table())
  else
    ok, d = try("saspu.domain_file", saspu.domain_file, M.root .. PAPER[pick(#PAPER)])
  end
  if ok then dom = d end
  if dom then keep("dom", dom) end
end

-- A state for `dom`: a start name, a packed state, a table, or junk.
local function some_state(dom)
  local k = pick(5)
  if k == 1 then
    local ok, starts = pcall(dom.starts, dom)
    if ok then for name in pairs(starts) do if chance(2) then return name end end end
  elseif k == 2 then
    local ok, vars = pcall(dom.variables, dom)
    if ok then
      local t = {}
      for _, v in ipairs(vars) do t[v.name] = v.values[pick(#v.values)] end
      if chance(5) then return hostile_table(t) end
      return t
    end
  elseif k == 3 then
    local ok, vars = pcall(dom.variables, dom)
    if ok then
      local b = {}
      for i, v in ipairs(vars) do b[i] = string_char(pick(#v.values + 1) - 1) end
      return concat(b)
    end
  elseif k == 4 then
    return junk()
  end
  return "no_such_start"
end

local function some_goal(dom)
  local k = pick(4)
  if k == 1 then
    local ok, goals = pcall(dom.goals, dom)
    if ok then for name in pairs(goals) do if chance(2) then return name end end end
  elseif k == 2 then
    local ok, vars = pcall(dom.variables, dom)
    if ok and #vars > 0 then
      local v = vars[pick(#vars)]
      return { [v.name] = v.values[pick(#v.values)] }
    end
  elseif k == 3 then
    return some_state(dom)
  end
  return junk()
end

local function op_domain_call()
  local dom = any(pool("dom"))
  if not dom then return op_domain() end
  local k = pick(12)
  if k == 1 then
    local s0, goal = some_state(dom), some_goal(dom)
    local keep_all = chance(4)
    local ok, plan = try("dom:plan", dom.plan, dom, s0, goal, keep_all and { keep = true } or nil)
    if ok and type(plan) == "table" then
      -- left-out goal variables are free, or keep the start's values with keep = true
      local ok1, ps = pcall(dom.encode, dom, s0)
      local ok2, pg = pcall(dom.encode, dom, goal, keep_all and s0 or nil)
      if ok1 and ok2 then check_replay("dom:plan", dom, ps, pg, plan) end
    end
  elseif k == 2 or k == 3 then
    local ok1, s0 = try("dom:encode", dom.encode, dom, some_state(dom))
    local ok2, goal = try("dom:encode", dom.encode, dom, some_goal(dom), chance(2) and s0 or nil)
    if not (ok1 and ok2) then return end
    local out = chance(3) and hostile_table() or {}
    local why = chance(3) and hostile_table() or {}
    local ok, n = try("dom:plan_ids", dom.plan_ids, dom, s0, goal, out, why)
    if ok and type(n) == "number" then
      local okn, names = true, {}
      for i = 1, n do
        local okk, name = pcall(dom.action_name, dom, out[i])
        if not okk then okn = false break end
        names[i] = name
      end
      if okn then check_replay("dom:plan_ids", dom, s0, goal, names) end
    end
  elseif k == 4 then
    try("dom:decode", dom.decode, dom, chance(2) and some_state(dom) or junk())
  elseif k == 5 then
    try("dom:explain", dom.explain, dom)
    try("dom:problems", dom.problems, dom)
  elseif k == 6 then
    try("dom:plan_order", dom.plan_order, dom, some_state(dom), some_goal(dom))
  elseif k == 7 then
    try("dom:actions", dom.actions, dom)
    try("dom:variables", dom.variables, dom)
  elseif k == 8 then
    try("dom:action_name", dom.action_name, dom, num(0, 20))
    try("dom:action_id", dom.action_id, dom, chance(2) and "eat" or junk())
  elseif k == 9 then
    try("dom:goals", dom.goals, dom)
    try("dom:starts", dom.starts, dom)
    try("tostring(dom)", tostring, dom)
  elseif k == 10 then
    if dom.graph then try("dom:graph", dom.graph, dom) end
  elseif k == 11 then
    try("dom:close", dom.close, dom)
  else
    try("dom:encode", dom.encode, junk(), some_state(dom))
  end
end

---------------------------------------------------------------------------------------
-- Populations
---------------------------------------------------------------------------------------

local function op_population()
  local dom = chance(10) and junk() or any(pool("dom"))
  if not dom then return op_domain() end
  local opts = chance(3) and { cache_capacity = count(0, 64) } or nil
  local ok, pop = try("saspu.population", saspu.population, dom, count(0, 300), opts)
  if ok and pop then keep("pop", pop) end
end

-- Checks every clean, planned NPC of `pop` (up to a few) replays to its goal.
local function check_population(pop)
  local okd, dom = pcall(pop.domain, pop)
  local oks, size = pcall(pop.size, pop)
  if not (okd and oks) then return end
  for _ = 1, 4 do
    if size == 0 then return end
    local i = pick(size)
    local ok, status, dirty = pcall(pop.status, pop, i)
    if ok and status == "planned" and not dirty then
      local okp, plan = pcall(pop.plan_of, pop, i)
      local ok1, s = pcall(pop.state, pop, i)
      local ok2, g = pcall(pop.goal, pop, i)
      if okp and ok1 and ok2 and type(plan) == "table" then
        check_replay("pop:plan_of", dom, s, g, plan)
      end
    end
  end
end

local function op_population_call()
  local pop = any(pool("pop"))
  if not pop then return op_population() end
  local okd, dom = pcall(pop.domain, pop)
  if not okd then dom = any(pool("dom")) end
  local size = 1
  do local ok, n = pcall(pop.size, pop) if ok then size = n + 1 end end
  local k = pick(12)
  if k <= 2 then
    try("pop:set", pop.set, pop, num(1, size), dom and some_state(dom) or junk(),
        dom and some_goal(dom) or junk(), chance(4) and { keep = chance(2) } or nil)
  elseif k == 3 then
    local opts = { threads = num(1, 3), cache = chance(2), report = chance(3) and hostile_table() or nil }
    if chance(2) then opts.budget_ms = chance(2) and 0 or pick(5) / 10 end
    if chance(3) then opts.oversubscribe = true end
    if chance(6) then opts = hostile_table(opts) end
    try("pop:plan", pop.plan, pop, opts)
    check_population(pop)
  elseif k == 4 then
    try("pop:mark_dirty", pop.mark_dirty, pop, num(1, size), num(0, size))
  elseif k == 5 then
    local out = chance(2) and hostile_table() or nil
    try("pop:plan_of", pop.plan_of, pop, num(1, size), out)
    try("pop:plan_ids_of", pop.plan_ids_of, pop, num(1, size), out or {})
  elseif k == 6 then
    try("pop:stats", pop.stats, pop, chance(3) and hostile_table() or nil)
    try("pop:status", pop.status, pop, num(1, size))
  elseif k == 7 then
    local ok, iter, st, ctl = try("pop:steps", pop.steps, pop, num(1, size))
    if ok and type(iter) == "function" then
      for _ = 1, 20 do
        local okk, key = pcall(iter, st, ctl)
        if not okk or key == nil then break end
        ctl = key
        if chance(8) then close_one(any_object()) end
      end
    end
  elseif k == 8 then
    local ok, s = pcall(pop.state, pop, num(1, size))
    if ok and chance(2) then try("pop:set_states", pop.set_states, pop, num(1, size), string_rep(s, pick(4)))
    else try("pop:set_states", pop.set_states, pop, num(1, size), junk()) end
    try("pop:set_goals", pop.set_goals, pop, num(1, size), ok and s or junk())
  elseif k == 9 then
    try("pop:set_goal_all", pop.set_goal_all, pop, dom and some_goal(dom) or junk(),
        chance(3) and { keep = true } or nil)
  elseif k == 10 then
    try("pop:goal", pop.goal, pop, num(1, size))
    try("pop:clear_cache", pop.clear_cache, pop)
    try("tostring(pop)", tostring, pop)
  elseif k == 11 then
    try("pop:close", pop.close, pop)
  else
    try("pop:size", pop.size, junk())
  end
end

---------------------------------------------------------------------------------------
-- Grids
---------------------------------------------------------------------------------------

local function random_ascii()
  local w, h = pick(12), pick(8)
  local rows = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do row[x] = ASCII_CELLS[pick(#ASCII_CELLS)] end
    if chance(20) then row[#row + 1] = "?" end
    rows[y] = concat(row)
  end
  return concat(rows, chance(4) and "\r\n" or "\n")
end

local function op_grid()
  local ok, g
  if chance(2) then
    ok, g = try("saspu.grid_from_ascii", saspu.grid_from_ascii, chance(10) and junk() or random_ascii())
  else
    ok, g = try("saspu.grid", saspu.grid, num(1, 40), num(1, 40), chance(3) and num(1, 9) or nil)
  end
  if ok and g then keep("grid", g) end
end

local function check_path(g, path, x0, y0, x1, y1)
  local n = #path
  if n == 0 or path[1][1] ~= x0 or path[1][2] ~= y0 or path[n][1] ~= x1 or path[n][2] ~= y1 then
    finding(format("grid:path: the path does not join (%d,%d) to (%d,%d)", x0, y0, x1, y1))
    return
  end
  for i = 2, n do
    local dx, dy = path[i][1] - path[i - 1][1], path[i][2] - path[i - 1][2]
    if dx < -1 or dx > 1 or dy < -1 or dy > 1 or (dx == 0 and dy == 0) then
      finding(format("grid:path: step %d is not a move to a neighbour", i))
      return
    end
    local ok, blocked = pcall(g.is_blocked, g, path[i][1], path[i][2])
    if ok and blocked then finding(format("grid:path: step %d crosses a blocked cell", i)) return end
  end
end

local function op_grid_call()
  local g = any(pool("grid"))
  if not g then return op_grid() end
  local w, h = 8, 8
  do
    local ok1, gw = pcall(g.width, g)
    local ok2, gh = pcall(g.height, g)
    if ok1 and ok2 then w, h = gw, gh end
  end
  local k = pick(10)
  if k <= 3 then
    local x0, y0, x1, y1 = num(1, w), num(1, h), num(1, w), num(1, h)
    local opts
    if chance(2) then
      opts = { algorithm = chance(2) and "dijkstra" or "astar", corner_cutting = chance(2) }
      if chance(8) then opts.algorithm = junk() end
      if chance(6) then opts = hostile_table(opts) end
    end
    local ok, path = try("grid:path", g.path, g, x0, y0, x1, y1, opts)
    if ok and type(path) == "table" then check_path(g, path, x0, y0, x1, y1) end
  elseif k == 4 then
    local out = chance(3) and hostile_table() or {}
    try("grid:path_into", g.path_into, g, out, num(1, w), num(1, h), num(1, w), num(1, h))
  elseif k == 5 then
    try("grid:set_cost", g.set_cost, g, num(1, w), num(1, h), chance(8) and junk() or pick(20) / 2)
    try("grid:set_blocked", g.set_blocked, g, num(1, w), num(1, h), chance(2))
  elseif k == 6 then
    try("grid:fill_cost", g.fill_cost, g, num(1, w), num(1, h), num(0, w), num(0, h), pick(9))
    try("grid:fill_blocked", g.fill_blocked, g, num(1, w), num(1, h), num(0, w), num(0, h), chance(2))
  elseif k == 7 then
    local cw, ch = pick(3), pick(3)
    local values = {}
    for i = 1, cw * ch + (chance(5) and 1 or 0) do values[i] = chance(4) and false or pick(9) end
    try("grid:set_costs", g.set_costs, g, num(1, w), num(1, h), cw, ch,
        chance(6) and hostile_table(values) or values)
  elseif k == 8 then
    try("grid:set_map", g.set_map, g, num(1, w), num(1, h), random_ascii())
  elseif k == 9 then
    try("grid:last_stats", g.last_stats, g, chance(3) and hostile_table() or nil)
    try("grid:memory", g.memory, g)
    try("grid:cost", g.cost, g, num(1, w), num(1, h))
    try("tostring(grid)", tostring, g)
  else
    try("grid:close", g.close, g)
  end
end

---------------------------------------------------------------------------------------
-- Worlds, crowds, agents
---------------------------------------------------------------------------------------

local function op_world()
  local grid = chance(4) and nil or any(pool("grid"))
  local places = {}
  for i = 1, pick(4) - 1 do
    places[i] = { kind = chance(2) and "spot" or "well", x = num(1, 12), y = num(1, 8),
                  capacity = chance(2) and num(0, 3) or nil }
    if chance(12) then places[i].name = junk() end
  end
  local spec = { grid = grid, places = places }
  if chance(3) then spec.threads = num(1, 2) end
  if chance(10) then spec = junk() end
  local ok, w = try("saspu.world", saspu.world, spec)
  if ok and w then keep("world", w) end
end

-- A hook: does nothing, raises, closes something, collects, or changes the agent.
local function random_hook()
  local victim = any_object()
  local mode = pick(7)
  return function(agent)
    if mode == 1 then error("fuzz: hook raised", 0)
    elseif mode == 2 then close_one(victim)
    elseif mode == 3 then collectgarbage("step", 4)
    elseif mode == 4 then error({ "fuzz: a table error" })
    elseif mode == 5 and agent then pcall(agent.inspect, agent)
    elseif mode == 6 then close_one(agent and agent:crowd())
    end
  end
end

local function random_behaviour(dom)
  local actions, goals = {}, {}
  local ok, acts = pcall(dom.actions, dom)
  if ok then
    for _, a in ipairs(acts) do
      if chance(2) then
        local spec = { duration = chance(2) and pick(4) / 4 or { 0, pick(3) } }
        if chance(3) then spec.at = chance(2) and { kind = "spot" } or "home" end
        if chance(4) then spec.on_start = random_hook() end
        if chance(4) then spec.on_finish = random_hook() end
        if chance(4) then spec.on_fail = random_hook() end
        if chance(5) then
          local hook = random_hook()
          spec.run = function(agent)
            saspu.wait(pick(3) / 4)
            hook(agent)
          end
        end
        if chance(8) then spec.at = function() return pick(12), pick(8) end end
        if chance(10) then -- another agent, maybe of another world, maybe gone
          local prey = any(pool("agent"))
          spec.at = chance(2) and { agent = prey or junk(), reach = chance(6) and junk() or pick(3) - 1 }
            or function() return prey, pick(3) - 1 end
        end
        if chance(15) then spec.duration = junk() end
        if chance(20) then spec.unknown = true end
        actions[a.name] = spec
      end
    end
  end
  local okg, gs = pcall(dom.goals, dom)
  if okg then
    for name in pairs(gs) do
      goals[#goals + 1] = { name, priority = num(0, 5) }
    end
    table.sort(goals, function(x, y) return x[1] < y[1] end)
  end
  if chance(12) then goals[#goals + 1] = { junk() } end
  local b = { actions = actions, goals = goals }
  if chance(4) then
    b.select = function(agent)
      if chance(6) then close_one(any_object()) end
      if chance(8) then error("fuzz: select raised", 0) end
      local names = {}
      for name in pairs(gs or {}) do names[#names + 1] = name end
      table.sort(names)
      if chance(6) then return junk() end
      return names[pick(#names + 1)] or (agent and nil)
    end
  end
  return b
end

local function op_crowd()
  local w, dom = any(pool("world")), any(pool("dom"))
  if not w then return op_world() end
  if not dom then return op_domain() end
  local opts = { capacity = count(1, 64), threads = num(1, 2), seed = pick(100) }
  if chance(3) then opts.movement = "engine" elseif chance(12) then opts.movement = junk() end
  if chance(10) then opts = junk() end
  local ok, c = try("world:crowd", w.crowd, w, dom, chance(15) and junk() or random_behaviour(dom), opts)
  if ok and c then keep("crowd", c) end
end

local function op_spawn()
  local c = any(pool("crowd"))
  if not c then return op_crowd() end
  local spec = { x = num(1, 12), y = num(1, 8) }
  local okd, dom = pcall(c.domain, c)
  if okd then spec.start = some_state(dom) end
  if chance(5) then spec.home = "spot1" end
  if chance(10) then spec.state = junk() end
  local ok, a = try("crowd:spawn", c.spawn, c, chance(15) and junk() or spec)
  if ok and a then keep("agent", a) end
end

-- Every place of every world: reservations never exceed a capacity.
local function check_places()
  for _, w in ipairs(pool("world")) do
    local ok, n = pcall(w.place_count, w)
    if ok then
      for id = 1, n do
        local okp, _, _, _, cap, reserved = pcall(w.place_info, w, id)
        if okp and cap > 0 and reserved > cap then
          finding(format("place %d holds %d agents, capacity %d", id, reserved, cap))
        end
      end
    end
  end
end

local function op_update()
  local w = any(pool("world"))
  if not w then return op_world() end
  local dt = chance(10) and junk() or pick(8) / 8
  try("world:update", w.update, w, dt)
  local ok, iter = try("world:events", w.events, w)
  if ok and type(iter) == "function" then
    for _ = 1, 200 do
      local okk, ev = pcall(iter)
      if not okk then check_error("world:events iterator", ev) break end
      if ev == nil then break end
      local oko, open = pcall(ev.crowd.is_open, ev.crowd)
      if oko and open and not ev.agent:alive() then
        finding("world:events gave an event of a despawned agent (" .. tostring(ev.kind) .. ")")
      end
      if ev.kind == "move" and chance(2) then
        if type(ev.x) ~= "number" or type(ev.y) ~= "number" then
          finding("a move event without its target cell")
        end
        if chance(3) then
          try("agent:move_failed", ev.agent.move_failed, ev.agent, chance(4) and junk() or "blocked")
        else
          try("agent:arrived", ev.agent.arrived, ev.agent)
        end
      end
      if chance(30) then close_one(any_object()) end
    end
  end
  check_places()
end

-- A save loads back onto its own world; a damaged one is refused and
-- leaves the world saving the same bytes.
local function save_and_load(w)
  local ok, s = try("world:save", w.save, w)
  if not ok or type(s) ~= "string" then return end
  if chance(2) then
    local okl, err = pcall(w.load, w, s)
    local closed = not w:is_open() -- by a finalizer while it loaded
    if not okl and not (closed and tostring(err):find("was closed during the call", 1, true)) then
      finding("world:load of its own fresh save: " .. tostring(err))
    end
    return
  end
  local at = pick(#s)
  local bad = chance(2) and s:sub(1, at - 1)
    or s:sub(1, at - 1) .. string.char((s:byte(at) + pick(255)) % 256) .. s:sub(at + 1)
  local okl = pcall(w.load, w, bad)
  local oka, after = pcall(w.save, w)
  if not okl and oka and after ~= s then finding("a refused world:load changed the world") end
end

local function op_world_call()
  local w = any(pool("world"))
  if not w then return op_world() end
  local k = pick(7)
  if k == 7 then return save_and_load(w) end
  if k == 1 then
    try("world:place", w.place, w, chance(3) and junk() or "p" .. pick(20), num(1, 12), num(1, 8),
        chance(2) and { capacity = num(0, 3), kind = chance(2) and "spot" or "well" } or nil)
  elseif k == 2 then
    try("world:place_info", w.place_info, w, num(1, 5))
    try("world:stats", w.stats, w)
  elseif k == 3 then
    try("world:crowds", w.crowds, w)
    try("world:field_budget", w.field_budget, w, num(0, 100))
    try("world:warm", w.warm, w, chance(2) and num(-1, 3) or nil)
  elseif k == 4 then
    try("world:grid", w.grid, w)
    try("tostring(world)", tostring, w)
  elseif k == 5 then
    try("world:close", w.close, w)
  elseif chance(2) then
    -- perception and world facts (unknown names, bad values and radii included)
    try("world:near", w.near, w, num(0, 13), num(0, 9), chance(4) and junk() or num(0, 6),
        chance(3) and any(pool("crowd")) or nil)
    try("world:set", w.set, w, chance(2) and "alarm" or junk(), chance(2) and "ringing" or junk())
    try("world:get", w.get, w, chance(2) and "alarm" or junk())
    try("world:fact_value", w.fact_value, w, num(0, 3), chance(2) and num(0, 3) or nil)
  else
    try("world:update", w.update, junk(), 0.5)
  end
end

local function op_agent_call()
  local a = any(pool("agent"))
  if not a then return op_spawn() end
  local okc, c = pcall(a.crowd, a)
  if not okc or type(c) ~= "userdata" then c = any(pool("crowd")) end
  if not c then return op_spawn() end
  local okd, dom = pcall(c.domain, c)
  if not okd then dom = nil end
  local vars = dom and select(2, pcall(dom.variables, dom))
  if type(vars) ~= "table" then vars = nil end
  local k = pick(11)
  if k <= 2 then
    local v = vars and vars[pick(#vars)]
    if v and not chance(8) then
      try("agent:set", a.set, a, v.name, v.values[pick(#v.values)])
    else
      try("agent:set", a.set, a, junk(), junk())
    end
  elseif k == 3 then
    local v = vars and vars[pick(#vars)]
    try("agent:get", a.get, a, v and v.name or junk())
    try("agent:state", a.state, a)
  elseif k == 4 then
    try("agent:inspect", a.inspect, a)
    try("agent:position", a.position, a)
  elseif k == 5 then
    -- fail or finish the running step, as a hook would, or retarget it
    local ops = { "fail", "finish", "target", "rethink", "nonsense" }
    try("crowd:control", c.control, c, num(1, 70), ops[pick(#ops)], num(0, 3), num(1, 12), num(1, 8))
  elseif k == 6 then
    try("crowd:set_all", c.set_all, c, vars and vars[1].name or junk(), junk())
    try("crowd:stats", c.stats, c)
    try("crowd:info", c.info, c, num(1, 70), chance(3) and hostile_table() or {})
    try("crowd:position", c.position, c, num(1, 70))
    try("crowd:near", c.near, c, num(0, 13), num(0, 9), chance(4) and junk() or num(0, 6),
        chance(5) and junk() or {}, chance(2) and num(0, 4) or nil)
    try("crowd:tie_fact", c.tie_fact, c, num(0, 3), num(0, 8))
    try("crowd:add_sensor", c.add_sensor, c, num(0, 8), num(0, 3), num(0, 3),
        chance(2) and any(pool("crowd")) or nil, chance(2) and "spot" or nil, num(0, 5), num(0, 2))
  elseif k == 7 then
    local goal = dom and select(2, pcall(dom.encode, dom, some_goal(dom))) or junk()
    try("crowd:add_goal", c.add_goal, c, goal, num(0, 5), chance(3) and junk() or nil)
    try("crowd:select_goal", c.select_goal, c, num(1, 70), num(0, 5))
  elseif k == 8 then
    try("crowd:plan", c.plan, c, num(1, 70), chance(3) and hostile_table() or {})
    try("crowd:why", c.why, c, num(1, 70))
    try("crowd:goal_names", c.goal_names, c)
  elseif k == 9 then
    -- the low-level methods with raw ids
    try("crowd:set_var", c.set_var, c, num(1, 70), num(1, 8), num(1, 4))
    try("crowd:set_state", c.set_state, c, num(1, 70), dom and some_state(dom) or junk())
    try("crowd:set_action", c.set_action, c, num(1, 12), num(0, 2), num(0, 2),
        ({ "none", "place", "kind", "home", "script", "bad" })[pick(6)], num(1, 3), chance(2),
        chance(2), chance(2))
    try("crowd:spawn_packed", c.spawn_packed, c, dom and some_state(dom) or junk(), num(1, 12), num(1, 8))
  elseif k == 10 then
    try("crowd:next_hook", c.next_hook, c, num(0, 20), num(0, 255))
    try("crowd:next_event", c.next_event, c, num(0, 20), num(0, 255))
    try("crowd:events_of", c.events_of, c, num(0, 8191), chance(3) and hostile_table() or {},
        chance(2) and { num(0, 14), num(1, 12) } or nil)
    try("crowd:agent_events", c.agent_events, c, num(-2, 20), chance(3) and hostile_table() or {})
    try("crowd:event", c.event, c, num(1, 20))
    try("#crowd", function() return #c end)
    try("tostring(crowd)", tostring, c)
  else
    try("crowd:close", c.close, c)
  end
end

-- Despawn, teleport and engine-move answers, on live and dead handles alike: a despawned
-- handle must say so and refuse every other method.
local function op_agent_life()
  local a = any(pool("agent"))
  if not a then return op_spawn() end
  local k = pick(8)
  if k == 1 then
    local was = select(2, pcall(a.alive, a))
    local ok = try("agent:despawn", a.despawn, a)
    if ok and was then
      if a:alive() then finding("agent:despawn left the agent alive") end
      local okg, err = pcall(a.get, a, "x")
      if okg or not tostring(err):find("despawned", 1, true) then
        finding("a despawned agent's get did not raise 'despawned': " .. tostring(err))
      end
    end
  elseif k == 2 then
    try("agent:teleport", a.teleport, a, chance(6) and junk() or num(0, 13), num(0, 9))
  elseif k == 3 then
    try("agent:arrived", a.arrived, a)
  elseif k == 4 then
    try("agent:move_failed", a.move_failed, a, chance(4) and junk() or nil)
  elseif k == 5 then
    try("agent:alive", a.alive, a)
    try("tostring(agent)", tostring, a)
  else
    local c = any(pool("crowd"))
    if not c then return end
    try("crowd:despawn", c.despawn, c, num(0, 70))
    try("crowd:alive", c.alive, c, num(0, 70))
    try("crowd:slots", c.slots, c)
    try("crowd:teleport", c.teleport, c, num(1, 70), num(0, 13), num(0, 9))
    try("crowd:target_cell", c.target_cell, c, num(1, 70))
    local ops = { "arrived", "move_failed" }
    try("crowd:control", c.control, c, num(1, 70), ops[pick(2)], num(0, 3))
    try("crowd:chase", c.chase, c, num(1, 70), chance(5) and junk() or a, chance(5) and junk() or num(0, 3))
  end
end

---------------------------------------------------------------------------------------
-- The collector
---------------------------------------------------------------------------------------

local function op_collector()
  local k = pick(5)
  if k == 1 then
    collectgarbage("step", pick(64))
  elseif k == 2 then
    R.finalizers = R.finalizers + 1
    finalizer() -- dropped at once: runs at a later collection
  elseif k == 3 then
    if _VERSION >= "Lua 5.4" then
      collectgarbage(chance(2) and "incremental" or "generational")
    end
    collectgarbage("setpause", chance(2) and 1 or 200)
  elseif k == 4 then
    -- drop an object without closing it
    local kinds = { "dom", "pop", "grid", "world", "crowd", "agent" }
    local p = pool(kinds[pick(#kinds)])
    if #p > 0 then table.remove(p, pick(#p)) end
  else
    collectgarbage()
  end
end

---------------------------------------------------------------------------------------
-- Runs
---------------------------------------------------------------------------------------

local OPS = { op_domain, op_domain_call, op_domain_call, op_population, op_population_call,
              op_population_call, op_grid, op_grid_call, op_world, op_crowd, op_spawn,
              op_spawn, op_update, op_update, op_world_call, op_agent_call, op_agent_call,
              op_agent_life, op_collector }

local function run(src, max_ops)
  -- the caller's collector settings come back at the end (5.4: its mode too)
  local saved_mode = _VERSION >= "Lua 5.4" and collectgarbage("incremental") or nil
  local saved_pause = collectgarbage("setpause", 100)
  R = { src = src, findings = {}, finalizers = 0,
        pools = { dom = {}, pop = {}, grid = {}, world = {}, crowd = {}, agent = {} } }
  local ops = 0
  while not src.done and ops < max_ops do
    ops = ops + 1
    local op = OPS[pick(#OPS)]
    local ok, err = pcall(op)
    if not ok then
      -- the driver's own code must not fail: a failure here is a saspu value of the wrong shape
      finding("driver: " .. tostring(err))
    end
  end
  local findings = R.findings
  -- close what is left, in a random order, then collect (finalizers included)
  for _, kind in ipairs { "agent", "crowd", "world", "pop", "grid", "dom" } do
    for _, obj in ipairs(R.pools[kind]) do
      local ok, err = pcall(close_one, obj)
      if not ok then check_error("close", err) end
    end
  end
  R = nil
  collectgarbage()
  collectgarbage()
  collectgarbage("setpause", saved_pause)
  if saved_mode then collectgarbage(saved_mode) end
  return findings
end

-- driver.run_bytes(s) -> findings (a list of texts; empty when all is well)
function M.run_bytes(s)
  return run(byte_source(s), 200)
end

-- driver.run_seed(seed, steps) -> findings: about `steps` choices from a seed
function M.run_seed(seed, steps)
  return run(seed_source(seed, steps), steps)
end

return M
