-- lua/saspu/init.lua: the saspu module that `require "saspu"` loads: domain tables compiled in C, planning, populations planned in batches, grid pathfinding and agents from Lua.
--
-- A domain is a plain table (see domains/*.lua):
--
--   local saspu = require "saspu"
--   local dom = saspu.domain {
--     name = "horse_breeder",
--     variables = {            -- ordered: the order is the state vector's
--       { name = "haystack", values = { "stored", "in_hands", "in_feeder" } },
--       ...
--     },
--     actions = {              -- ordered: action ids follow this order
--       { name = "take_haystack", var = "haystack", pre = "stored", post = "in_hands",
--         prevail = { bucket = "on_floor" }, params = { "pos" } },
--       ...
--     },
--     goals  = { feed_horses = { haystack = "in_feeder", ... } },  -- conditions (see below)
--     starts = { morning = { haystack = "stored", ... } },         -- total states
--     allow_outside = false,   -- true accepts a domain outside the tractable classes
--   }
--
-- saspu.load(path) reads a domain file and returns its table; saspu.domain_file(path)
-- compiles it. A domain file is data with a little code: it runs in a safe environment of
-- its own with the basic functions (ipairs, pairs, next, select, type, tostring, tonumber,
-- error, assert, pcall, rawget, rawset, rawequal, rawlen, setmetatable, getmetatable) and
-- copies of string, table and math, so it may build its actions in a loop; it has no io,
-- os, require, load or debug and cannot touch the caller's globals. It may run at most
-- saspu.load_limits.instructions (1,000,000) VM instructions and grow the Lua heap by at
-- most saspu.load_limits.memory_bytes (64 MB); past either (string.rep and ("x"):rep
-- included), saspu.load raises "<path>: ran over its budget of ...". Errors name the file
-- (and, for a compile error, the caller's line):
--   spec/x_spec.lua:12: domains/farrier.lua: saspu.domain: actions[3] 'shoe': ...
-- Values may be declared as Lua booleans (values = { false, true }): they are the values
-- named "false" and "true", states may give either form, and every result (decode,
-- starts, goals, actions, variables, why.value) gives back the declared form, so a
-- value declared `false` comes back as the boolean false, one declared "false" as the
-- string. Names of variables, values, actions, goals and starts are 1 to 255 bytes
-- without zero bytes; errors quote a long name cut to its ends with its size.
-- Bad input raises an error naming the path, e.g.
--   saspu.domain: actions[3] 'fill_feeder': post 'full' is not a value of 'haystack' (stored, in_hands, in_feeder)
--
-- saspu.Domain (the compiled domain; closes with __gc or a to-be-closed variable):
--   dom.class, dom.name          "SAS-PUC0" | "SAS-PUCS2" | "SAS-PUC*2" | "outside"; the name
--   dom:plan(start, goal [, opts]) -> { action names } | nil, why
--       start: { var = value } naming every variable, a name in `starts`, or a packed state
--       goal:  a condition: { var = value }, a name in `goals`, or a packed state
--              (dom:encode). Left-out variables are free (may end with any value; byte 255,
--              saspu.ANY, in a packed goal); a value saspu.KEEP (KEEP in a domain file)
--              keeps the start value; opts { keep = true } keeps every left-out one too.
--              The plan is a shortest one ending in any state matching the goal.
--       why:   { message, code = "no_setter"|"unreachable"|"repeat"|"order",
--                action, other_action, variable, value, free_variable }   (names, nil when
--                not relevant; free_variable: the reason is about a variable left free)
--   dom:explain()                -> text: the class and why (cycles, requestable actions); for
--                                   an outside domain every problem, each fix naming every
--                                   prevail to drop
--   dom:problems()               -> { { variable, cycle = { action names }, connected,
--                                       path = { { action, variable, value, edge, forward } } } }
--   dom:plan_order(start, goal)  -> plan, { { from, to, kind = "pre" | "prevail" | "threat" |
--                                   "restore" }, ... } | nil, why: the planner's partial order
--   dom:graph()                  -> DOT text: value graphs, action graph, problems in red
--   dom:plan_graph(start, goal)  -> DOT text of the plan's partial order | nil, why
--   dom:actions()                -> { { id, name, var, pre, post, prevail, params,
--                                       requestable, in_cycle }, ... }
--   dom:variables()              -> { { id, name, values, cycles = { { action names }, ... } }, ... }
--   dom:goals(), dom:starts()    -> copies of the declared goals and starts
--   dom:action_name(id), dom:action_id(name)   (both raise on an unknown id or name)
--   dom:close()                  frees the compiled domain now (also __close / __gc)
--
-- The numeric fast path, for scripts that plan every frame:
--   dom:encode(state [, base])   -> packed state: a string of one byte per variable, each the
--                                   0-based value index. `state` is a table, a start or a goal
--                                   name; variables it leaves out (or keeps) come from `base`
--                                   (a packed state, a total table or a start name); without
--                                   a base, left-out ones are 255 (free; a KEEP raises).
--   dom:decode(packed)           -> { var = value name }, a goal's free variables absent
--   dom:plan_ids(s0, goal [, out [, why]]) -> count, out | nil, why
--       s0 and goal: packed states, or arrays of 1-based value ids ({ 1, 1, 3 }) that the
--       script may keep and update in place; a goal's free variable is byte 255 or id 0. out[1..count] receives 1-based action ids
--       (entries after count are cleared); `why` is filled like dom:plan's on failure.
--       Passing the same `out` (and `why`) tables every call allocates nothing.
--
--   local s0, goal = dom:encode("morning"), dom:encode("feed_horses", "morning")
--   local out = {}
--   local n = dom:plan_ids(s0, goal, out)     -- n == 6, out = { 5, 6, 7, 4, 2, 3 }
--   for i = 1, n do perform(dom:action_name(out[i])) end
--
-- Populations: many NPCs of one class, held and planned in C (one per NPC class; several
-- may be planned in the same frame). The loop over NPCs never calls into Lua.
--   saspu.population(dom, n [, opts]) -> saspu.Population of n NPCs (all dirty, unplanned,
--       every state and goal the first value of each variable); opts: { cache_capacity =
--       plan cache entries per worker (default 4096) }. It keeps `dom` alive; dom:close()
--       closes the domain for Lua, and its compiled form lives on until the last of its
--       populations closes. tostring: "saspu.Population 'citizen' (1000000 NPCs)".
-- NPC indices are 1-based. States and goals take the forms of dom:plan and dom:encode:
--   start: a start name, a packed state (dom:encode), or a table naming every variable;
--   goal:  a goal name, a packed state, or a table: a condition as for dom:plan; KEEP
--          variables (and, with opts { keep = true }, left-out ones) take the start's value
--          at the time it is set.
-- saspu.Population (closes with __gc, a to-be-closed variable or pop:close()):
--   pop:set(i, start, goal [, opts]) NPC i; nil keeps the current start or goal
--   pop:set_states(first, packed)  NPCs first .. first + #packed / m - 1, m bytes each
--   pop:set_goals(first, packed)   (m = the domain's variable count; dom:encode's states,
--                                   concatenated): a million NPCs load without a table each
--   pop:set_goal_all(goal [, opts]) the same goal for every NPC; variables it keeps take
--                                  each NPC's current state value
--   pop:mark_dirty([first [, count]])   replan NPCs although nothing changed (no argument:
--                                  all of them). Setting a state or goal that changes an NPC
--                                  marks it by itself.
--   pop:plan([opts])               -> report: plans the dirty NPCs
--       opts: { threads = 0 (every core) | n, cache = true | false, budget_ms = nil | ms,
--               report = a table to fill and return instead of a new one }
--       report: { planned, waiting, failures, cache_hits, cache_misses, elapsed_ms, threads }
--       With budget_ms the call stops taking new chunks of NPCs once the budget is spent and
--       the next call resumes where it stopped (no NPC starves; every call plans at least one
--       chunk of 1024 NPCs holding a dirty NPC, skipping clean ones, so budget_ms = 0 still
--       makes progress). The workers of every population
--       come from one shared thread pool. Plans are the same whatever the thread count and
--       whether the cache is on. Reusing opts and its report allocates nothing.
--   pop:status(i)                  -> "unplanned" | "planned" | "no_plan", dirty
--   pop:plan_of(i [, out])         -> { action names } | nil, why   (why as dom:plan's, or
--                                     code = "unplanned"); with `out` nothing is allocated
--   pop:plan_ids_of(i [, out])     -> count, out of 1-based action ids | nil, why
--   pop:steps(i)                   -> for k, name in pop:steps(i) do ... end
--   pop:state(i), pop:goal(i)      -> packed state (dom:decode reads it)
--   pop:stats([out])               -> { npcs, dirty, planned, no_plan, unplanned, in_cache,
--                                       cache_hits, cache_misses, cache_rejected, cache_entries,
--                                       cache_capacity, workers, bytes_per_npc, bytes_npcs,
--                                       bytes_workers, bytes_total, bytes_resident }
--   pop:size(), #pop, pop:domain(), pop:clear_cache(), pop:close()
-- A plan read while the NPC is dirty is the one of its previous state and goal.
--   local pop = saspu.population(dom, 100000)
--   pop:set_states(1, dom:encode("morning"):rep(100000))
--   pop:set_goal_all("feed_horses")
--   local opts = { budget_ms = 1.67, report = {} }
--   local r = pop:plan(opts)                 -- every frame; r.waiting NPCs are left for later
--   for k, action in pop:steps(42) do perform(action) end
-- Hot reload: saspu.live(path) -> live; live.domain, live:population(key [, n [, opts]]),
-- live:reload() / live:reload_if_changed() -> true | false, err (a broken file leaves the
-- running version), live:on_reload(fn(new, old, translate)) for crowds and agents.
-- saspu.clock_ns() -> a monotonic clock in nanoseconds; saspu.cores() -> the online cores.
--
-- Grid pathfinding (Dijkstra and A*) for walking to an action's ?pos parameter:
--   saspu.grid(w, h [, cost])    -> saspu.Grid of w x h open cells of `cost` (default 1)
--   saspu.grid_from_ascii(text)  -> saspu.Grid drawn as a picture, one line per row, top first:
--                                   '#' blocked, '.' open ground cost 2, '=' road cost 1,
--                                   '1'..'9' that cost; rows end with "\n" or "\r\n"
-- Cells are 1-based: x in 1..w (left to right), y in 1..h (top to bottom, the picture's line).
-- A move goes to one of the 8 neighbours and costs (cost(a) + cost(b)) / 2, times sqrt(2) on a
-- diagonal. Costs are numbers in [0.001, 1e6], stored as C floats.
-- saspu.Grid (closes with __gc or a to-be-closed variable; tostring: "saspu.Grid 128x128"):
--   g:width(), g:height(), g:cost(x, y), g:is_blocked(x, y)
--   g:set_cost(x, y, cost)                 a blocked cell stays blocked and keeps the new cost
--   g:set_blocked(x, y, blocked)           boolean; unblocking restores the cell's cost
--   g:fill_cost(x, y, w, h, cost), g:fill_blocked(x, y, w, h, blocked)   rectangles
--   g:set_costs(x, y, w, h, values)        w*h entries row by row: a cost, or 0 / false = blocked
--   g:set_map(x, y, text)                  paints a picture (legend above) at (x, y)
--   g:path(x0, y0, x1, y1 [, opts])        -> { { x, y }, ... }, cost   start and target included
--                                          | nil, reason, "blocked" | "unreachable"
--       opts: { algorithm = "astar" (default) | "dijkstra", corner_cutting = false }
--       corner_cutting = true lets a diagonal pass between blocked cells.
--   g:path_into(out, x0, y0, x1, y1 [, opts]) -> count, cost | nil, reason, code
--       the per-frame form: out = { x1, y1, x2, y2, ... } flat (2 * count entries, later ones
--       cleared; all cleared on failure). Reusing out and opts allocates nothing.
--   g:last_stats([out])                    -> { found, algorithm, expanded, pushed, heap_peak,
--                                               length, cost } of the last search
--   g:memory()                             -> bytes of the grid, its workspace and path buffer
--   g:close()
-- Out-of-range cells, bad costs and bad options raise an error naming the argument
-- ("x0 = 0 is outside 1..128"); a blocked endpoint or an unreachable target returns nil.
-- Each grid makes one search workspace on its first search and reuses it.
--
-- Agents (lua/saspu/world.lua; docs/agents.md): NPCs that carry out their plans, moved in C.
--   saspu.world { grid = g, places = { { name =, kind =, x =, y =, capacity = }, ... },
--                 threads = n } -> saspu.World (all optional; threads: one pool of n workers,
--                                  0: every core, shared by the world's crowds)
--   world:place(name, x, y [, { capacity =, kind = }]) -> place id   (kind defaults to name)
--   world:crowd(dom, behaviour [, opts]) -> saspu.Crowd
--       behaviour: { actions = { name = { duration, at, interruptible, on_start, on_finish,
--                    on_fail, run } }, goals = { { "goal" | { var = value }, priority =,
--                    when = { var = value } }, ... } }
--       opts: { capacity = 1024, threads = 1 (0: every core; default: the world's pool when
--               saspu.world got threads), seed, speed = 4 cells/s, cooldown = 5 s, retry = 1 s,
--               cache_capacity }
--   world:update(dt), world:events() (a reused event table), world:stats(), world:close()
--   world:threads() -> the world's pool size or nil; world:update_crowds(dt, list) (C only)
--   crowd:spawn { start =, state =, x =, y =, home = } -> saspu.Agent; crowd:set_all(var, value);
--   crowd:agent(i), crowd:stats([out [, counters]]), crowd:size(), #crowd, crowd:close()
--   a:set(var, value), a:get(var), a:state(), a:inspect(), a.data, a:index(), a:crowd()
--   saspu.wait(seconds) inside a `run` coroutine.
local core = require "saspu.core"
local graph = require "saspu.graph"

local loadfile, type, error, pcall, pairs, tostring = loadfile, type, error, pcall, pairs, tostring
local open = io.open
local setfenv, loadstring = rawget(_G, "setfenv"), rawget(_G, "loadstring")
local string_lib, table_lib, math_lib = string, table, math
local getmetatable, collectgarbage, coroutine = getmetatable, collectgarbage, coroutine
local sethook, gethook = debug.sethook, debug.gethook

local saspu = {
  _VERSION = "saspu " .. core._VERSION, -- the CMake project version
  classes = { "SAS-PUC0", "SAS-PUCS2", "SAS-PUC*2" },
}

-- saspu.domain(spec) -> saspu.Domain; raises a path-naming error on bad input.
saspu.domain = core.domain

-- Goals are conditions: saspu.KEEP as a goal value keeps the variable's start value;
-- saspu.ANY (255) is a packed goal's byte for a free variable.
saspu.KEEP, saspu.ANY = core.KEEP, core.ANY

-- Loads a text chunk with the environment `env`: loadfile's mode and env
-- arguments where they exist (5.2+), else the text through loadstring and
-- setfenv (5.1, LuaJIT), refusing precompiled chunks the same way.
local function load_data(path, env)
  if not setfenv then
    return loadfile(path, "t", env)
  end
  local f, err = open(path, "rb")
  if not f then
    return nil, "cannot open " .. err
  end
  local text = f:read("*a")
  f:close()
  if text:sub(1, 1) == "\27" then
    return nil, "attempt to load a binary chunk (mode is 't')"
  end
  local chunk
  chunk, err = loadstring(text, "@" .. path)
  if not chunk then
    return nil, err
  end
  return setfenv(chunk, env)
end


local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local safe_names = { "ipairs", "pairs", "next", "select", "type", "tostring", "tonumber",
  "error", "assert", "pcall", "rawget", "rawset", "rawequal", "rawlen", "setmetatable",
  "getmetatable" }
local safe_basics = {}
for _, name in ipairs(safe_names) do safe_basics[name] = _G[name] end

-- The budgets of one domain file (see the top of this file).
saspu.load_limits = { instructions = 1000000, memory_bytes = 64 * 1024 * 1024 }

local function over_memory(path)
  error(path .. ": ran over its budget of " .. saspu.load_limits.memory_bytes .. " bytes", 0)
end

-- A fresh environment for one domain file: the basic functions above and copies of
-- string, table and math (a file cannot change them for the caller). string.rep is
-- the one call that can make a huge string in one instruction, before the memory
-- check between instructions sees it: it is checked against the budget first.
function saspu.file_env(path)
  local env = copy(safe_basics)
  env.KEEP = core.KEEP -- a goal value: the variable keeps its start value
  env.string, env.table, env.math = copy(string_lib), copy(table_lib), copy(math_lib)
  local rep = string_lib.rep
  env.string.rep = function(str, n, sep)
    local bytes = #tostring(str) * (tonumber(n) or 0) + #tostring(sep or "") * (tonumber(n) or 0)
    if bytes > saspu.load_limits.memory_bytes then over_memory(path or "a domain file") end
    return rep(str, n, sep)
  end
  return env
end

-- saspu.load(path) -> the plain table of a domain file (see the top of this file).
function saspu.load(path)
  if type(path) ~= "string" then
    error("saspu.load: expected a file path, got " .. type(path), 2)
  end
  local env = saspu.file_env(path)
  local chunk, err = load_data(path, env)
  if not chunk then
    error("saspu.load: " .. err, 2)
  end
  local limits = saspu.load_limits
  local steps, base = 0, collectgarbage("count")
  local max_steps, max_kb = limits.instructions, limits.memory_bytes / 1024
  -- LuaJIT does not call count hooks inside compiled traces: the file runs interpreted
  local jit = rawget(_G, "jit")
  if jit then jit.off(chunk, true) end
  local hook_fn, hook_mask, hook_count = gethook()
  local co = coroutine.create(chunk)
  -- checked before every instruction: one instruction can at most double a string
  sethook(co, function()
    if coroutine.running() ~= co then return end -- LuaJIT: the hook is the whole VM's
    steps = steps + 1
    if steps > max_steps then
      error(path .. ": ran over its budget of " .. max_steps .. " instructions", 0)
    end
    if collectgarbage("count") - base > max_kb then over_memory(path) end
  end, "", 1)
  -- string methods ("x"):rep(n) reach the file's own string copy while it runs
  local string_mt = getmetatable("")
  local string_index = string_mt.__index
  string_mt.__index = env.string
  local ok, spec = coroutine.resume(co)
  string_mt.__index = string_index
  -- LuaJIT's hooks belong to the whole VM, not the coroutine: put the caller's back
  if jit then sethook(hook_fn, hook_mask, hook_count) end
  if not ok then
    error("saspu.load: " .. tostring(spec), 2) -- spec: "path:line: message"
  end
  if type(spec) ~= "table" then
    error("saspu.load: " .. path .. " returned " .. type(spec) .. ", expected a table", 2)
  end
  return spec
end

-- saspu.grid(w, h [, cost]) and saspu.grid_from_ascii(text) -> saspu.Grid.
saspu.grid = core.grid
saspu.grid_from_ascii = core.grid_from_ascii

-- saspu.population(dom, n [, opts]) -> saspu.Population; saspu.clock_ns(); saspu.cores().
saspu.population = core.population
saspu.clock_ns = core.clock_ns
saspu.cores = core.cores

-- saspu.world{ grid =, places = }, world:crowd(dom, behaviour), agents: lua/saspu/world.lua.
local world = require "saspu.world"
saspu.world = world.world
saspu.wait = world.wait

-- saspu.domain_file(path [, overrides]) -> saspu.Domain compiled from a domain file;
-- `overrides` (e.g. { allow_outside = true }) replace fields of the file's table. A
-- compile error names the file and the caller's line.
function saspu.domain_file(path, overrides)
  local ok, spec = pcall(saspu.load, path)
  if not ok then error(spec, 2) end
  for k, v in pairs(overrides or {}) do spec[k] = v end
  local dom
  ok, dom = pcall(core.domain, spec)
  if not ok then
    error(path .. ": " .. tostring(dom), 2)
  end
  return dom
end

-- saspu.live(path) -> a domain that hot-reloads with its populations (lua/saspu/reload.lua).
function saspu.live(path)
  return require("saspu.reload").live(saspu, path)
end

-- Methods written in Lua on every saspu.Domain.
core.domain_methods.graph = graph.domain
core.domain_methods.plan_graph = graph.plan

return saspu
