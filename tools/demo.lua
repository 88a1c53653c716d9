-- tools/demo.lua: `./dev demo`: the Western town living one game day: seven NPC classes walking the 256x256 map, a frame-by-frame summary, pictures drawn with gnuplot, the day recorded (day.trace) with its inspector page.
--
--   lua5.4 tools/demo.lua [--npcs N] [--frames F] [--seed S] [--threads T] [--out DIR]
--                         [--budget B] [--every F] [--live] [--quiet] [--notrace] [--help]
--
-- One frame is DT = 30 game seconds, so the default 2,880 frames are one day from 05:00
-- to 05:00. The classes' behaviours are domains/town/behaviours/*.lua; this script only
-- makes the world changes their `clock`, `finished`, `reached` and `alarm` fields ask for
-- (domains/README.md, "Behaviours"): Lua reacts to this frame's events, the C update moves
-- every agent. Loaded with loadfile(...)("--module") it returns the module (the specs).
if not package.path:find("lua/?/init.lua", 1, true) then
  package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
end
if not package.cpath:find("/saspu/core.so", 1, true) then
  package.cpath = (os.getenv("SASPU_BUILD_DIR") or "build") .. "/?.so;" .. package.cpath
end
local saspu = require "saspu"
local town = require "saspu.town"
local KIND = require("saspu.core").event_kinds()

local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local format, concat, sort = string.format, table.concat, table.sort

local M = {}

M.CLASSES = { "horse_breeder", "farrier", "native_hunter", "bandit", "innkeeper", "dancer",
              "drunk_citizen" }
M.DT = 30            -- game seconds per frame
M.START_HOUR = 5     -- the hour of frame 0 (--start; dawn by default)
M.SPEED = 1.5        -- cells per game second (a cell is about a metre and a half)
M.FRAMES = 2880      -- one game day
M.SNAPSHOTS = { 6, 12, 15, 19, 22 } -- hours of the map pictures (and the last frame)
local PEOPLE_PER_SEAT = 30 -- places hold capacity x ceil(npcs / 30): the map is drawn for ~30
local RETRY = 300           -- game seconds a blocked NPC (a full place) waits before trying again
local ALARM_RADIUS = 40     -- cells around the bank where the shots are heard (Chebyshev)
local ALARM_NEAREST = 32    -- agents alarmed per robbery of a frame at most, the nearest, shared by class size
local MAX_SPARE_LISTS = 4   -- emptied timer lists kept for reuse (about one a frame is made)
local MAX_SPARE_GROUPS = 64 -- emptied groups of run_timers kept for reuse (tens a frame)
-- --budget's default: from BUDGET_FROM NPCs on, NPCS / BUDGET_SHARE choose a goal a frame
-- at most, so the dawn's first plans (every NPC at once) spread over some 25 frames
local BUDGET_FROM, BUDGET_SHARE = 50000, 25

local USAGE = [[
usage: ./dev demo [options]   (or lua5.4 tools/demo.lua [options] from the repository root)
  --npcs N      NPCs of the seven classes (default 3000)
  --frames F    frames to run; one frame is 30 game seconds (default 2880: one day from 05:00)
  --start H     the game hour of the first frame (default 5); clock changes due earlier are made at once
  --seed S      random seed: spawn places, durations (default 1)
  --threads T   worker threads shared by the seven crowds (default: every core)
  --budget B    at most about B NPCs choose a goal in one frame (the crowds' goal_budget,
                shared by class size), so the dawn's first plans spread over several frames
                (default: 0, no limit below 50,000 NPCs, else NPCs / 25)
  --every F     print one summary line every F frames (default 120: one game hour)
  --out DIR     where the pictures and their data go (default build/demo)
  --cold        build no distance field ahead: the first walker to a place builds its field
                in its frame (about 10 ms each), as the hitches of a world without world:warm()
  --live        redraw the busiest part of the map in the terminal (ANSI), NPCs as letters
  --delay MS    pause after each live redraw (default 40)
  --quiet       print only the final summary
  --notrace     do not record the day (OUT/day.trace and OUT/inspector.html)
  --help        this text]]

---------------------------------------------------------------------------------------
-- Options
---------------------------------------------------------------------------------------

local NUMBER_OPTS = { npcs = true, frames = true, seed = true, threads = true, every = true, delay = true,
                     start = true, budget = true }

-- parse_args(argv) -> opts, or nil and an error message.
function M.parse_args(argv)
  local o = { npcs = 3000, frames = M.FRAMES, seed = 1, threads = saspu.cores(), every = 120,
              out = "build/demo", live = false, quiet = false, delay = 40,
              start = M.START_HOUR, warm = true }
  local i = 1
  while argv[i] do
    local a = argv[i]
    local name = a:match("^%-%-([%a]+)$")
    if a == "--help" or a == "-h" then
      o.help = true
    elseif name == "live" or name == "quiet" or name == "cold" then
      o[name] = true
    elseif name == "notrace" then
      o.trace = false
    elseif name and (NUMBER_OPTS[name] or name == "out") then
      local v = argv[i + 1]
      if v == nil then return nil, "--" .. name .. " needs a value" end
      if name == "out" then
        o.out = v
      else
        local n = tonumber(v)
        if not n or (n ~= floor(n) and name ~= "start") or n < 0 or (name == "start" and n >= 24) then
          return nil, format("--%s expects a %s, got '%s'", name,
                             name == "start" and "game hour in [0, 24)" or "whole number >= 0", v)
        end
        o[name] = n
      end
      i = i + 1
    else
      return nil, format("unknown option '%s' (--help lists them)", a)
    end
    i = i + 1
  end
  if o.npcs < #M.CLASSES then return nil, "--npcs must be at least 7 (one NPC per class)" end
  if o.every < 1 then o.every = 1 end
  o.warm = not o.cold
  if o.budget == nil then o.budget = o.npcs >= BUDGET_FROM and floor(o.npcs / BUDGET_SHARE) or 0 end
  return o
end

---------------------------------------------------------------------------------------
-- The town and its crowds
---------------------------------------------------------------------------------------

-- load_class(name) -> the behaviour file's table (plain data plus the behaviour).
function M.load_class(name)
  local chunk = assert(loadfile("domains/town/behaviours/" .. name .. ".lua"))
  local cls = chunk()
  cls.name = name
  return cls
end

-- shares(npcs, classes) -> agents per class: npcs split by share, the rest to the largest.
local function shares(npcs, classes)
  local total, counts, used, largest = 0, {}, 0, 1
  for _, cls in ipairs(classes) do total = total + cls.share end
  for k, cls in ipairs(classes) do
    counts[k] = max(1, floor(npcs * cls.share / total))
    used = used + counts[k]
    if cls.share > classes[largest].share then largest = k end
  end
  counts[largest] = counts[largest] + npcs - used
  return counts
end

-- A world change of a class: { var_id, value_id, ... } from { var = value }.
local function compile_change(dom, set, where)
  local ids, out = {}, {}
  for v, var in ipairs(dom:variables()) do
    local values = {}
    for x, name in ipairs(var.values) do values[name] = x end
    ids[var.name] = { v, values }
  end
  local names = {}
  for var in pairs(set) do names[#names + 1] = var end
  sort(names) -- a stable order whatever pairs() does
  for _, var in ipairs(names) do
    local e = ids[var]
    local x = e and e[2][set[var]]
    if not x then error(format("%s: %s = %s is not a variable/value of the domain", where, var, tostring(set[var])), 0) end
    out[#out + 1] = e[1]
    out[#out + 1] = x
  end
  return out
end

-- Per-name timed changes: { [name] = { lo, hi, change } }.
local function compile_timed(dom, t, where)
  local out = {}
  for name, spec in pairs(t or {}) do
    out[name] = { spec.after[1], spec.after[2], compile_change(dom, spec.set, where .. "." .. name) }
  end
  return out
end

-- A small deterministic generator (the same run on every Lua version).
local function rng(seed)
  local s = (seed * 7919 + 104729) % 2147483647
  if s == 0 then s = 1 end
  return function(n) -- 1..n, or [0, 1) without n
    s = (s * 48271) % 2147483647
    if n then return s % n + 1 end
    return s / 2147483647
  end
end

-- build(opts) -> the simulation state: world, town, crowds with their class data. With
-- opts.warm, every place's distance field is built before the first frame, and the crowds'
-- planners set up (world:warm(), as behind a game's loading screen; sim.warm_ms is what it
-- took), so no frame builds one.
-- opts.budget > 0: at most about that many NPCs choose a goal a frame (each crowd's
-- goal_budget, its share by size).
function M.build(opts)
  M.START_HOUR = opts.start or M.START_HOUR
  local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
  local scale = max(1, ceil(opts.npcs / PEOPLE_PER_SEAT))
  local places, by_kind = {}, {}
  for k, p in ipairs(t.places) do
    places[k] = { name = p.name, kind = p.kind, x = p.x, y = p.y, capacity = p.capacity * scale }
    by_kind[p.kind] = by_kind[p.kind] or {}
    local list = by_kind[p.kind]
    list[#list + 1] = p
  end
  -- one pool of workers for the seven crowds: each pass of all of them is one parallel job
  local world = saspu.world { grid = town.grid(t), places = places, threads = opts.threads }
  local random = rng(opts.seed)
  local classes = {}
  for k, name in ipairs(M.CLASSES) do classes[k] = M.load_class(name) end
  local counts = shares(opts.npcs, classes)
  local sim = { world = world, town = t, classes = classes, random = random, scale = scale,
                npcs = opts.npcs, by_kind = by_kind, warm_ms = 0, world_stats = {} }
  for k, cls in ipairs(classes) do
    local dom = saspu.domain_file("domains/" .. cls.domain .. ".lua")
    local where = "domains/town/behaviours/" .. cls.name .. ".lua"
    local budget = (opts.budget or 0) > 0 and max(1, floor(opts.budget * counts[k] / opts.npcs)) or nil
    local c = world:crowd(dom, cls.behaviour, { capacity = counts[k],
                                                seed = opts.seed * 31 + k, speed = M.SPEED,
                                                retry = RETRY, cooldown = RETRY,
                                                goal_budget = budget })
    cls.dom, cls.crowd, cls.n = dom, c, counts[k]
    cls.goal_names = c:goal_names()
    cls.action_names = {}
    for a, act in ipairs(dom:actions()) do cls.action_names[a] = act.name end
    cls.finished_t = compile_timed(dom, cls.finished, where .. ": finished")
    cls.reached_t = compile_timed(dom, cls.reached, where .. ": reached")
    -- the same by goal / action id, as events carry them
    cls.reached_by_goal, cls.finished_by_action = {}, {}
    for g, name in ipairs(cls.goal_names) do cls.reached_by_goal[g] = cls.reached_t[name] end
    for a, name in ipairs(cls.action_names) do cls.finished_by_action[a] = cls.finished_t[name] end
    cls.alarm_c = cls.alarm and compile_change(dom, cls.alarm, where .. ": alarm")
    cls.clock_c = {}
    for j, e in ipairs(cls.clock or {}) do
      -- a change due before the start hour is made at the first frame
      local from = max(1, M.frame_of(e.hour))
      cls.clock_c[j] = { from = from, to = max(from, M.frame_of(e.hour + (e.spread or 0))),
                         change = compile_change(dom, e.set, where .. ": clock[" .. j .. "]") }
    end
    local spawn = by_kind[cls.spawn] or error(where .. ": spawn: no place of kind " .. tostring(cls.spawn))
    local packed = dom:encode(cls.start)
    for _ = 1, counts[k] do
      local p = spawn[random(#spawn)]
      c:spawn_packed(packed, p.x, p.y)
    end
    cls.stats = { reached = 0, alarmed = 0 }
    cls.last = { plans = 0, replans = 0, events = 0, steps = 0, no_plans = 0 }
    -- the event kinds Lua reads for this class
    cls.mask = KIND.goal_reached + KIND.replanned + (next(cls.finished_t) and KIND.step_finished or 0)
               + (cls.robbery and KIND.step_started or 0)
    -- and of the step events, only those of the actions with a reaction (C drops the others)
    cls.actions = {}
    for a, name in ipairs(cls.action_names) do
      if cls.finished_t[name] or name == cls.robbery then cls.actions[#cls.actions + 1] = a end
    end
  end
  if opts.warm then -- the crowds made: their planners are set up too
    local t0 = saspu.clock_ns()
    world:warm()
    sim.warm_ms = (saspu.clock_ns() - t0) / 1e6
  end
  local bank = by_kind.bank_counter[1]
  sim.bank_x, sim.bank_y = bank.x, bank.y
  sim.timers = {}      -- frame -> { packed timer (pack_timer), ... }
  sim.event_buf = {}   -- crowd:events_of's output, reused every frame
  sim.near_buf = {}    -- crowd:near's output, reused
  sim.spare_lists = {} -- emptied timer lists, for reuse
  sim.groups, sim.group_order = {}, {} -- run_timers' agents by class and change
  sim.spare_groups = {} -- emptied groups, for reuse
  sim.changes = {}     -- change index -> { var, value, ... }
  return sim
end

-- frame_of(hour) -> the frame at which the game clock shows `hour` (hours past
-- midnight of the first day; 25 is 01:00 the next night).
function M.frame_of(hour)
  return floor((hour - M.START_HOUR) * 3600 / M.DT + 0.5)
end

-- clock(frame) -> "HH:MM" after `frame` frames.
function M.clock(frame)
  local minutes = floor(M.START_HOUR * 60 + frame * M.DT / 60)
  return format("%02d:%02d", floor(minutes / 60) % 24, minutes % 60)
end

---------------------------------------------------------------------------------------
-- World changes: timers, the clock, the alarm
---------------------------------------------------------------------------------------

local function apply(cls, agent, change)
  local c = cls.crowd
  for j = 1, #change, 2 do c:set_var(agent, change[j], change[j + 1]) end
end

-- A timer as one number: change index, class and agent (exact below 2^53 as a float,
-- so on every Lua version): a third of the stores and memory of three entries. Where
-- integers have 64 bits (Lua 5.3 and later) and every timer fits 31 bits (classes under
-- 2^23 agents, under 32 timed changes), two timers share one number, the earlier in its
-- low 32 bits: a slot is 16 bytes in Lua 5.4, and about 0.4 timers per NPC are pending.
local AGENT_SPAN, CLASS_SPAN = 2 ^ 32, 8
local PAIRED_AGENT_SPAN, PAIRED_CHANGES, PAIR_SPAN = 2 ^ 23, 32, 4294967296
local to_integer = math.tointeger -- nil before Lua 5.3
local INT64 = to_integer ~= nil and math.maxinteger ~= nil and math.maxinteger > 2 ^ 62
local function pack_timer(span, k, agent, ch)
  return (ch * CLASS_SPAN + (k - 1)) * span + agent
end

-- The timers' layout, chosen at the first timer: sim.paired, and the agent span.
local function timer_layout(sim)
  local timed, most = 0, 0
  for _, cls in ipairs(sim.classes) do
    for _ in pairs(cls.finished_t) do timed = timed + 1 end
    for _ in pairs(cls.reached_t) do timed = timed + 1 end
    most = max(most, cls.n)
  end
  sim.paired = INT64 and timed < PAIRED_CHANGES and most < PAIRED_AGENT_SPAN
  sim.timer_span = sim.paired and PAIRED_AGENT_SPAN or AGENT_SPAN
  return sim.timer_span
end

-- Schedules `change` of class k's agent `agent` between lo and hi game seconds from now.
local function schedule(sim, frame, k, agent, lo, hi, change)
  local at = frame + max(1, floor((lo + (hi - lo) * sim.random()) / M.DT + 0.5))
  local span = sim.timer_span or timer_layout(sim)
  local ch = sim.change_ids and sim.change_ids[change]
  if not ch then
    sim.change_ids = sim.change_ids or {}
    ch = #sim.changes + 1
    assert(ch < 2 ^ 53 / AGENT_SPAN / CLASS_SPAN and not (sim.paired and ch >= PAIRED_CHANGES),
           "demo: too many distinct timed changes")
    sim.changes[ch], sim.change_ids[change] = change, ch
  end
  local list = sim.timers[at]
  if not list then
    -- a list already run, emptied: its grown array part is reused (a fresh one grows
    -- by reallocations that touch new pages, a cost at a million NPCs)
    local spare = sim.spare_lists
    list = spare[#spare] or {}
    spare[#spare] = nil
    sim.timers[at] = list
  end
  local n, t = #list, pack_timer(span, k, agent, ch)
  if sim.paired then
    t = to_integer(t)
    local last = list[n]
    if last and last < PAIR_SPAN then -- the last number holds one timer: the second
      list[n] = last + t * PAIR_SPAN
      return
    end
  end
  list[n + 1] = t
end

-- Adds one timer (pack_timer's number) to its group: the agents of one class that one
-- change is due for.
local function group_timer(sim, span, t, groups, order)
  local agent = t % span
  local rest = (t - agent) / span
  local key = rest -- ch * CLASS_SPAN + (k - 1): the class and the change in one number
  local g = groups[key]
  if not g then
    local spare = sim.spare_groups
    g = spare[#spare] or { n = 0 }
    spare[#spare] = nil
    groups[key] = g
    order[#order + 1] = key
  end
  local n = g.n + 1
  g[n], g.n = agent, n
end

-- Applies the timers due at `frame`; returns how many. Timers due at the same frame
-- happen at the same game time: they are applied by class and change, each change's
-- variables to all of its agents in one crowd:set_var_many call (the first group to
-- come first), so the C side takes a list, not a call per agent.
local function run_timers(sim, frame)
  local list = sim.timers[frame]
  if not list then return 0 end
  sim.timers[frame] = nil
  local n, span, count = #list, sim.timer_span, #list
  local groups, order = sim.groups, sim.group_order
  if sim.paired then
    for j = 1, n do
      local v = list[j]
      local low = v % PAIR_SPAN
      group_timer(sim, span, low, groups, order)
      if v >= PAIR_SPAN then
        group_timer(sim, span, (v - low) / PAIR_SPAN, groups, order) -- exact: 31 bits times 2^32
        count = count + 1
      end
    end
  else
    for j = 1, n do group_timer(sim, span, list[j], groups, order) end
  end
  for j = n, 1, -1 do list[j] = nil end
  local spare = sim.spare_lists
  if #spare < MAX_SPARE_LISTS then spare[#spare + 1] = list end
  for j = 1, #order do
    local key = order[j]
    local g = groups[key]
    local k = key % CLASS_SPAN
    local change, c = sim.changes[(key - k) / CLASS_SPAN], sim.classes[k + 1].crowd
    for v = 1, #change, 2 do c:set_var_many(g, change[v], change[v + 1], g.n) end
    g.n, groups[key], order[j] = 0, nil, nil
    local spare_g = sim.spare_groups
    if #spare_g < MAX_SPARE_GROUPS then spare_g[#spare_g + 1] = g end
  end
  return count
end

-- The clock's changes: an entry spread over [from, to) frames reaches a slice of the
-- class's agents each frame (by index), every agent once.
local function run_clock(sim, frame)
  local n_set = 0
  for _, cls in ipairs(sim.classes) do
    for _, e in ipairs(cls.clock_c) do
      local span = max(1, e.to - e.from)
      if frame >= e.from and frame < e.from + span then
        local lo = floor(cls.n * (frame - e.from) / span) + 1
        local hi = floor(cls.n * (frame - e.from + 1) / span)
        for a = lo, hi do apply(cls, a, e.change) end
        n_set = n_set + hi - lo + 1
      end
    end
  end
  return n_set
end

-- The frame's robberies (all at the bank) ring one alarm: the agents nearest the bank
-- within ALARM_RADIUS (crowd:near, the crowds' spatial index: ALARM_NEAREST per robbery,
-- each class its share by size) get their class's alarm change; returns how many. One
-- query per class and frame, not per robbery: the crowds pile up around the bank in the
-- afternoon, and every query reads the pile's buckets whole.
local function alarm(sim, robberies)
  local hit, near = 0, sim.near_buf
  for _, cls in ipairs(sim.classes) do
    if cls.alarm_c then
      local quota = max(1, floor(ALARM_NEAREST * robberies * cls.n / sim.npcs + 0.5))
      local n = cls.crowd:near(sim.bank_x, sim.bank_y, ALARM_RADIUS, near, quota)
      for j = 1, n do apply(cls, near[j], cls.alarm_c) end
      cls.stats.alarmed = cls.stats.alarmed + n
      hit = hit + n
    end
  end
  return hit
end

-- This frame's events that the classes react to, and the replans' reasons: one
-- c:events_of call per class reads them (C skips the others), so Lua's share stays small
-- at a million NPCs. Plans, steps and event counts come from crowd:stats.
local function read_events(sim, frame, acc)
  local ev, robberies = sim.event_buf, 0
  for k, cls in ipairs(sim.classes) do
    local st, reached_t, finished_t = cls.stats, cls.reached_by_goal, cls.finished_by_action
    local reached = 0
    for j = 1, 5 * cls.crowd:events_of(cls.mask, ev, cls.actions), 5 do
      local agent, kind = ev[j], ev[j + 1]
      if kind == "goal_reached" then
        reached = reached + 1
        local tm = reached_t[ev[j + 3]]
        if tm then schedule(sim, frame, k, agent, tm[1], tm[2], tm[3]) end
      elseif kind == "step_finished" then
        local tm = finished_t[ev[j + 4]]
        if tm then schedule(sim, frame, k, agent, tm[1], tm[2], tm[3]) end
      elseif kind == "replanned" then
        local reason = ev[j + 2] or "?"
        acc.reasons[reason] = (acc.reasons[reason] or 0) + 1
      elseif kind == "step_started" and cls.action_names[ev[j + 4]] == cls.robbery then
        robberies = robberies + 1
      end
    end
    st.reached = st.reached + reached
    acc.reached = acc.reached + reached
  end
  if robberies > 0 then
    acc.robberies = acc.robberies + robberies
    acc.alarmed = acc.alarmed + alarm(sim, robberies)
  end
end

---------------------------------------------------------------------------------------
-- Frames
---------------------------------------------------------------------------------------

local PHASES = { "idle", "walking", "acting", "script", "blocked", "thinking" }
-- summary counter -> crowd:stats field
local COUNTED = { plans = "plans", replans = "replans", events = "events", steps = "steps_finished",
                  no_plans = "no_plans" }

function M.new_acc()
  return { events = 0, plans = 0, replans = 0, steps = 0, no_plans = 0, reached = 0, robberies = 0, alarmed = 0,
           changes = 0, reasons = {}, frames = 0, ms = 0, plan = 0, walk = 0, lua = 0 }
end

-- Phases summed over the crowds.
local function phases(sim)
  local out, st = {}, {}
  for _, p in ipairs(PHASES) do out[p] = 0 end
  for _, cls in ipairs(sim.classes) do
    cls.crowd:stats(st)
    for _, p in ipairs(PHASES) do out[p] = out[p] + (st[p] or 0) end
  end
  return out
end

local function summary_line(sim, frame, acc)
  local ph = phases(sim)
  local reasons = {}
  for r, n in pairs(acc.reasons) do reasons[#reasons + 1] = r .. " " .. n end
  sort(reasons)
  local f = max(1, acc.frames)
  return format("%s f%-5d idle %-5d walk %-5d act %-5d blocked %-4d| plans %-5d replans %-4d%s| "
    .. "events %-6d reached %-4d robberies %d (alarmed %d) changes %-5d| ms/frame plan %.2f walk %.2f lua %.2f",
    M.clock(frame), frame, ph.idle, ph.walking, ph.acting, ph.blocked, acc.plans, acc.replans,
    #reasons > 0 and (" (" .. concat(reasons, ", ") .. ") ") or " ", acc.events, acc.reached,
    acc.robberies, acc.alarmed, acc.changes, acc.plan / f, acc.walk / f, acc.lua / f)
end

local pictures = (function()
  local chunk = loadfile("tools/demo_pictures.lua")
  return chunk and chunk() or nil
end)()

-- step(sim, frame, acc) -> { ms, plan, walk, lua, cpu, fields }: one frame, the C update
-- of every crowd (plan: population planning; walk: the rest of the update) and Lua's
-- reactions (events, timers, the clock); cpu: the process's CPU ms in it (all threads; far
-- below ms when other jobs held the cores); fields: distance fields built in it (each about
-- 10 ms of walk on the 256x256 map: none after world:warm()). acc gathers the frame's
-- counters (new_acc).
function M.step(sim, frame, acc)
  local clock_ns, stats = saspu.clock_ns, sim.stats_buf or {}
  sim.stats_buf = stats
  local ws = sim.world:stats(sim.world_stats)
  local fields0 = ws.fields_computed
  local c0 = os.clock()
  local t0 = clock_ns()
  sim.world:update(M.DT)
  local t1 = clock_ns()
  read_events(sim, frame, acc)
  acc.changes = acc.changes + run_timers(sim, frame) + run_clock(sim, frame)
  local t2 = clock_ns()
  local plan = 0
  for _, cls in ipairs(sim.classes) do
    cls.crowd:stats(stats, true) -- counters only: no O(n) count of phases
    plan = plan + stats.ms_planning
    -- the C counters are totals since the start: this frame's share
    local last = cls.last
    for key, field in pairs(COUNTED) do
      acc[key] = acc[key] + stats[field] - last[key]
      last[key] = stats[field]
    end
  end
  local cpu = (os.clock() - c0) * 1e3
  local ms_update = (t1 - t0) / 1e6
  return { ms = (t2 - t0) / 1e6, plan = plan, walk = max(0, ms_update - plan), lua = (t2 - t1) / 1e6,
           cpu = cpu, fields = sim.world:stats(ws).fields_computed - fields0 }
end

-- run(opts [, print]) -> the summary: { frames, classes = { [name] = stats+agents },
-- ms = { frame list }, pictures = { paths }, wall_s }.
function M.run(opts, say)
  say = say or print
  local sim = M.build(opts)
  local frames = {}
  local snaps = {}
  for _, h in ipairs(M.SNAPSHOTS) do snaps[M.frame_of(h)] = true end
  local live = opts.live and pictures and pictures.live(sim, opts, M)
  if opts.out then
    os.execute("mkdir -p '" .. opts.out .. "'")
    if pictures then pictures.write_map(sim, opts.out .. "/map.dat") end
    -- the day's trace: `saspu trace OUT/day.trace`, and its page
    if opts.trace ~= false then sim.world:record { path = opts.out .. "/day.trace" } end
  end
  local shots = {}
  local acc, total = M.new_acc(), M.new_acc()
  local clock_ns = saspu.clock_ns
  local wall0 = clock_ns()
  if not opts.quiet and not opts.live then
    say(format("saspu town: %d NPCs of %d classes on the 256x256 map (%d places, capacity x%d), "
      .. "%d frames of %d game s, %d thread(s)", sim.npcs, #sim.classes,
      #sim.town.places, sim.scale, opts.frames, M.DT, opts.threads))
  end
  for frame = 1, opts.frames do
    local rec = M.step(sim, frame, acc)
    frames[frame] = rec
    acc.frames = acc.frames + 1
    for _, key in ipairs { "ms", "plan", "walk", "lua" } do acc[key] = acc[key] + rec[key] end
    if opts.out and pictures and (snaps[frame] or frame == opts.frames) then
      local path = format("%s/npcs_%s.dat", opts.out, M.clock(frame):gsub(":", ""))
      pictures.write_positions(sim, path)
      shots[#shots + 1] = { path = path, clock = M.clock(frame) }
    end
    if live then live(frame) end
    if frame % opts.every == 0 or frame == opts.frames then
      if not opts.quiet and not opts.live then say(summary_line(sim, frame, acc)) end
      for key, v in pairs(acc) do
        if type(v) == "number" then total[key] = total[key] + v end
      end
      for r, n in pairs(acc.reasons) do total.reasons[r] = (total.reasons[r] or 0) + n end
      acc = M.new_acc()
    end
  end
  local summary = { frames = opts.frames, npcs = sim.npcs, classes = {}, ms = frames, total = total,
                    wall_s = (clock_ns() - wall0) / 1e9, pictures = {}, warm_ms = sim.warm_ms }
  for _, cls in ipairs(sim.classes) do
    local s = cls.crowd:stats()
    summary.classes[cls.name] = { agents = cls.n, plans = s.plans, replans = s.replans,
      reached = cls.stats.reached, steps = s.steps_finished, no_plans = s.no_plans,
      alarmed = cls.stats.alarmed, bytes_per_agent = s.bytes_per_agent, phases = s }
  end
  if opts.out and pictures then
    summary.pictures = pictures.draw(sim, opts.out, shots, frames, M)
  end
  local rec = sim.world:stop_recording()
  if rec then
    local path, page = opts.out .. "/day.trace", opts.out .. "/inspector.html"
    require("saspu.inspector").write(path, page)
    summary.trace = { path = path, page = page, stats = rec }
  end
  return summary
end

---------------------------------------------------------------------------------------
-- The final table
---------------------------------------------------------------------------------------

local function quantile(sorted, q)
  if #sorted == 0 then return 0 end
  return sorted[min(#sorted, max(1, ceil(q * #sorted)))]
end

-- report(summary) -> the lines of the final table.
function M.report(s)
  local lines = {}
  local function add(...) lines[#lines + 1] = format(...) end
  add("%-14s %8s %8s %8s %8s %9s %8s %8s", "class", "agents", "plans", "replans", "reached",
      "steps", "no plan", "alarmed")
  local sum = { agents = 0, plans = 0, replans = 0, reached = 0, steps = 0, no_plans = 0, alarmed = 0 }
  for _, name in ipairs(M.CLASSES) do
    local c = s.classes[name]
    add("%-14s %8d %8d %8d %8d %9d %8d %8d", name, c.agents, c.plans, c.replans, c.reached,
        c.steps, c.no_plans, c.alarmed)
    for k in pairs(sum) do sum[k] = sum[k] + c[k] end
  end
  add("%-14s %8d %8d %8d %8d %9d %8d %8d", "total", sum.agents, sum.plans, sum.replans,
      sum.reached, sum.steps, sum.no_plans, sum.alarmed)
  local reasons = {}
  for r, n in pairs(s.total.reasons) do reasons[#reasons + 1] = r .. " " .. n end
  sort(reasons)
  add("replans by reason: %s; robberies %d, NPCs alarmed %d, world changes %d",
      #reasons > 0 and concat(reasons, ", ") or "none", s.total.robberies, s.total.alarmed,
      s.total.changes)
  for _, key in ipairs { "ms", "plan", "walk", "lua" } do
    local v = {}
    for i, f in ipairs(s.ms) do v[i] = f[key] end
    sort(v)
    add("ms per frame %-5s median %7.3f  p95 %7.3f  max %7.3f", key == "ms" and "total" or key,
        quantile(v, 0.5), quantile(v, 0.95), v[#v] or 0)
  end
  local first_hour = {}
  for i = 1, min(#s.ms, 3600 / M.DT) do first_hour[i] = s.ms[i].ms end
  sort(first_hour)
  local over, cpu_over, cpu_top = 0, 0, 0
  for _, f in ipairs(s.ms) do
    if f.ms > 16.7 then over = over + 1 end
    if (f.cpu or 0) > 16.7 then cpu_over = cpu_over + 1 end
    cpu_top = max(cpu_top, f.cpu or 0)
  end
  add("first hour: max %.3f ms; frames over 16.7 ms: %d (by CPU time: %d, the most %.3f ms); "
      .. "distance fields built ahead in %.0f ms%s", first_hour[#first_hour] or 0, over, cpu_over,
      cpu_top, s.warm_ms or 0, (s.warm_ms or 0) == 0 and " (--cold: none)" or "")
  for _, i in ipairs(pictures and pictures.worst(s.ms, 5) or {}) do
    local f = s.ms[i]
    add("slow frame %5d at %s: %8.3f ms (CPU %.3f): %s", i, M.clock(i), f.ms, f.cpu or 0,
        pictures.cause(f))
  end
  add("%d frames (game clock %s to %s) in %.1f s wall", s.frames, M.clock(0), M.clock(s.frames), s.wall_s)
  return lines
end

function M.main(argv)
  local opts, err = M.parse_args(argv)
  if not opts then
    io.stderr:write("demo: ", err, "\n")
    return 2
  end
  if opts.help then
    print(USAGE)
    return 0
  end
  local s = M.run(opts)
  if opts.live then io.write("\27[0m\n") end
  for _, line in ipairs(M.report(s)) do print(line) end
  for _, p in ipairs(s.pictures) do print("picture: " .. p) end
  if s.trace then
    local r = s.trace.stats
    print(format("trace: %s (%d bytes: %d events, %.2f bytes each; %d cell changes, %.2f bytes each; "
                 .. "encoding %.1f ms in all)", s.trace.path, r.bytes, r.events,
                 r.event_bytes / math.max(1, r.events), r.cells, r.cell_bytes / math.max(1, r.cells),
                 r.ms_encode))
    print("inspector: " .. s.trace.page .. " (saspu trace " .. s.trace.path .. " for the summary)")
  end
  return 0
end

if select(1, ...) == "--module" then return M end
os.exit(M.main(arg))
