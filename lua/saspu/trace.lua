-- lua/saspu/trace.lua: saspu.trace: reads a trace written by world:record (decoded in C, csrc/record/trace_read.c; a large one streamed and summed up, trace_scan.c, trace_summary.c): events with filters, frames, one agent's history, counts per hour, an agent's state at a time.
--
--   local trace = require "saspu.trace"
--   local t = trace.open("day.trace")            -- damaged chunks: t.problems
--   for ev in t:events { class = "bandit", kind = "step_failed" } do print(ev.time, ev.agent, ev.reason) end
--   local life = t:history("bandit", 3)          -- goals, plans, steps, waits, failures
--   local s = t:state_at(3600, "bandit", 3)      -- cell, goal, action at that time
--   -- a million NPCs' day: read once, a chunk at a time, summed up in C, one agent kept
--   local big = trace.scan("day.trace", { summary = true, agents = { { "bandit", 3 } } })
local core = require "saspu.core"

local type, pairs, ipairs, tostring, error, setmetatable = type, pairs, ipairs, tostring, error, setmetatable
local floor, huge = math.floor, math.huge
local format, concat = string.format, table.concat
local open = io.open

local M = {}

local Trace = {}
Trace.__index = Trace

-- reasons that say nothing (world:events gives nil for them)
local NO_REASON = { none = true }

--- Opens a trace file. Damage (a chunk whose checksum or contents are wrong, a cut
-- end) is reported in `t.problems` (a list of lines) and the chunk skipped.
-- @tparam string path
-- @treturn table the trace: `{ header, problems, frame_count, event_count, ... }`
-- @raise "saspu.trace.open: day.trace: No such file or directory";
-- "saspu.trace.open: day.trace: trace: not a saspu trace (...)".
function M.open(path)
  if type(path) ~= "string" then error("saspu.trace.open: path must be a string, got " .. type(path), 2) end
  local f, err = open(path, "rb")
  if not f then error("saspu.trace.open: " .. tostring(err), 2) end
  local data = f:read("*a")
  f:close()
  return M.read(data, path)
end

-- The reader's object around a decoded trace `t` (core.trace_read or core.trace_read_file).
local function wrap(t, name)
  local h = t:header()
  local problems = {}
  for line in h.problems:gmatch("[^\n]+") do problems[#problems + 1] = line end
  local class_crowd = {}
  for k, c in ipairs(h.crowds) do class_crowd[c.class] = class_crowd[c.class] or k end
  local self = setmetatable({
    raw = t, header = h, problems = problems, path = name,
    frame_count = h.frames, event_count = h.events, cell_count = h.cells, sensed_count = h.sensed,
    all_events = h.all_events, all_cells = h.all_cells,
    class_crowd = class_crowd, notes = t:notes(), clocks = {},
  }, Trace)
  for k = 1, h.frames do self.clocks[k] = t:frame(k) end
  return self
end

--- Reads a trace from its bytes (see `open`).
function M.read(data, name)
  local ok, t = pcall(core.trace_read, data)
  if not ok then error(format("saspu.trace.open: %s: %s", name or "trace", tostring(t)), 2) end
  return wrap(t, name)
end

-- The header chunk of the trace file at `path` alone, decoded: its names (classes,
-- places, kinds), read without the rest of the file.
local function header_of(path)
  local f, err = open(path, "rb")
  if not f then error("saspu.trace.scan: " .. tostring(err), 3) end
  local head = f:read(16 + 24) or ""
  local len = #head == 40 and head:byte(25) and (head:byte(25) + head:byte(26) * 256 + head:byte(27) * 65536
                                                   + head:byte(28) * 16777216) or 0
  local body = #head == 40 and f:read(math.min(len, 2 ^ 30)) or ""
  f:close()
  local ok, t = pcall(core.trace_read, head .. (body or ""))
  if not ok then error(format("saspu.trace.scan: %s: %s", path, tostring(t)), 3) end
  return t:header()
end

--- Reads a large trace file once, a chunk at a time, in memory bounded by its agents,
-- places and names (never by its events): keeps only the events, cells and sensed
-- values of the agents in `opts.agents` and sums the rest up in C as it reads
-- (`t:summary()`; `saspu trace FILE` prints it).
--     local t = trace.scan("day.trace", { summary = true, agents = { { "bandit", 3 } } })
--     local life = t:history("bandit", 3)
-- @tparam string path
-- @tparam[opt] table opts `{ summary = true, agents = { { class or crowd, agent }, ... },
-- top = 5, period = 3600, keyframes = { frame, ... }, bin =, bw =, bh = }` (density at
-- those frames, see saspu.inspector), `twice_above = bytes` (a chunk larger is checked
-- first, then read a crowd's part of a frame at a time; default 1 MiB)
-- @treturn table a trace like `open`'s, `streamed = true`: its events, cells and
-- sensed values are the kept agents' only (`all_events` counts every event)
-- @raise "saspu.trace.scan: day.trace: No such file or directory",
-- "saspu.trace.scan: no crowd or class bandit in the trace (...)".
function M.scan(path, opts)
  if type(path) ~= "string" then error("saspu.trace.scan: path must be a string, got " .. type(path), 2) end
  opts = opts or {}
  local keep = {}
  if opts.agents and #opts.agents > 0 then
    local h = header_of(path)
    for _, a in ipairs(opts.agents) do
      local c = a[1]
      if type(c) ~= "number" then
        local found
        for k, x in ipairs(h.crowds) do
          if x.class == c then found = found or k end
        end
        if not found then
          local names = {}
          for _, x in ipairs(h.crowds) do names[#names + 1] = x.class end
          error(format("saspu.trace.scan: no crowd or class %s in the trace (%s)", tostring(c),
                       concat(names, ", ")), 2)
        end
        c = found
      end
      keep[#keep + 1] = { c, a[2] }
    end
  end
  local ok, t = pcall(core.trace_read_file, path, {
    stream = true, keep = keep, summary = opts.summary, top = opts.top, period = opts.period,
    keyframes = opts.keyframes, bin = opts.bin, bw = opts.bw, bh = opts.bh, twice_above = opts.twice_above })
  if not ok then error("saspu.trace.scan: " .. tostring(t), 2) end
  local self = wrap(t, path)
  self.streamed, self.kept = true, {}
  for _, k in ipairs(keep) do self.kept[k[1] .. ":" .. k[2]] = true end
  return self
end

-- The crowd index named by a crowd index or a class name, or an error.
local function crowd_of(self, c, where)
  if type(c) == "number" and self.header.crowds[c] then return c end
  local k = self.class_crowd[c]
  if not k then
    local names = {}
    for _, x in ipairs(self.header.crowds) do names[#names + 1] = x.class end
    error(format("%s: no crowd or class %s in the trace (%s)", where, tostring(c), concat(names, ", ")), 3)
  end
  return k
end

--- The time (the crowds' clock, seconds) after frame k (1-based).
function Trace:time(k) return self.clocks[k] end

--- Iterates the frames: `for k, time in t:frames() do ... end`.
function Trace:frames()
  local k, clocks = 0, self.clocks
  return function()
    k = k + 1
    if clocks[k] then return k, clocks[k] end
  end
end

-- Event k of the trace as a new table.
local function event(self, k)
  local h = self.header
  local frame, crowd, agent, kind, reason, goal, action, detail = self.raw:event(k)
  local c = h.crowds[crowd]
  local ev = { index = k, frame = frame, time = self.clocks[frame], crowd = crowd, class = c.class,
               agent = agent, kind = h.kinds[kind], detail = detail }
  local r = h.reasons[reason]
  if not NO_REASON[r] then ev.reason = r end
  if goal then ev.goal = c.goals[goal] or ("goal " .. goal) end
  if action then ev.action = c.actions[action] end
  local k_ = ev.kind
  if k_ == "arrived" or k_ == "blocked" or k_ == "move"
     or (k_ == "step_failed" and (r == "full" or r == "unreachable" or r == "cooldown")) then
    ev.detail = nil
    if detail >= 1 then
      ev.place, ev.detail = h.places[detail] and h.places[detail].name, detail
    end
  elseif k_ ~= "planned" and k_ ~= "replanned" then
    ev.detail = nil
  end
  local note = self.notes[k] -- why a no_plan had no plan; the text of an event made in Lua
  if note then
    if k_ == "no_plan" then ev.why = note end
    ev.reason = note
  end
  return ev
end

-- A set from a value or a list of values (nil: nil).
local function set_of(v)
  if v == nil then return nil end
  local s = {}
  if type(v) == "table" then
    for _, x in ipairs(v) do s[x] = true end
  else
    s[v] = true
  end
  return s
end

local FILTER_FIELDS = { crowd = true, class = true, kind = true, reason = true, action = true,
                        place = true, goal = true, agent = true, from = true, to = true }

--- Iterates the recorded events in the order `world:events()` gave them (frames in
-- order; in a frame, crowds in creation order, each crowd's events in C order), each
-- a new table `{ index, frame, time, crowd, class, agent, kind, action, goal, reason,
-- place, detail, why }` (`crowd` and `agent` are indices; `why` the blocker's message of
-- a `no_plan`, also its `reason`).
-- @tparam[opt] table filter `{ crowd = index or class, class =, kind =, reason =, action =,
-- place =, goal =, agent = index, from = seconds, to = seconds }` (each field a value or a
-- list of values; from/to bound the time, inclusive)
-- @treturn function the iterator
-- @raise "saspu.Trace:events: unknown filter field 'kinds'".
function Trace:events(filter)
  filter = filter or {}
  for k in pairs(filter) do
    if not FILTER_FIELDS[k] then error(format("saspu.Trace:events: unknown filter field '%s'", tostring(k)), 2) end
  end
  local crowd = filter.crowd and crowd_of(self, filter.crowd, "saspu.Trace:events")
  local classes, kinds, reasons = set_of(filter.class), set_of(filter.kind), set_of(filter.reason)
  local actions, places, goals, agents = set_of(filter.action), set_of(filter.place), set_of(filter.goal),
                                         set_of(filter.agent)
  local from, to = filter.from or -huge, filter.to or huge
  local list -- one agent: only its events
  if crowd and filter.agent and type(filter.agent) == "number" then
    list = self.raw:agent_items(crowd, filter.agent, "events")
  end
  local k, n = 0, list and #list or self.event_count
  local raw, clocks, kind_names = self.raw, self.clocks, self.header.kinds
  return function()
    while k < n do
      k = k + 1
      local i = list and list[k] or k
      -- the cheap fields first: most events of a filtered pass go no further
      local frame, c, agent, kind = raw:event(i)
      if clocks[frame] > to then return nil end
      local ev = clocks[frame] >= from and (not crowd or c == crowd) and (not agents or agents[agent])
                 and (not kinds or kinds[kind_names[kind]]) and event(self, i)
      if ev and (not classes or classes[ev.class]) and (not reasons or reasons[ev.reason])
         and (not actions or actions[ev.action]) and (not places or places[ev.place])
         and (not goals or goals[ev.goal]) and (not agents or agents[ev.agent]) then
        return ev
      end
    end
  end
end

--- Iterates the values the crowds' sensors read, in frame order: at the first frame a
-- sensor is recorded, every agent's value; then each value that changed, at the frame
-- of the reading. Each a new table `{ frame, time, crowd, class, agent, variable,
-- value }`.
--     for s in t:sensed { class = "watcher", agent = 1 } do print(s.time, s.variable, s.value) end
-- @tparam[opt] table filter `{ crowd = index or class, class =, agent =, variable = }`
-- (each one value)
-- @treturn function the iterator
-- @raise "saspu.Trace:sensed: unknown filter field 'x'".
function Trace:sensed(filter)
  filter = filter or {}
  for k in pairs(filter) do
    if k ~= "crowd" and k ~= "class" and k ~= "agent" and k ~= "variable" then
      error(format("saspu.Trace:sensed: unknown filter field '%s'", tostring(k)), 2)
    end
  end
  local crowd = (filter.crowd or filter.class) and crowd_of(self, filter.crowd or filter.class,
                                                             "saspu.Trace:sensed")
  local raw, crowds, k = self.raw, self.header.crowds, 0
  return function()
    while k < self.sensed_count do
      k = k + 1
      local frame, c, agent, var, value = raw:sensed(k)
      local v = crowds[c].variables[var]
      if (not crowd or c == crowd) and (not filter.agent or agent == filter.agent)
         and (not filter.variable or v.name == filter.variable) then
        return { frame = frame, time = self.clocks[frame], crowd = c, class = crowds[c].class,
                 agent = agent, variable = v.name, value = v.values[value] }
      end
    end
  end
end

--- One agent's life: its goals in order, each with the plans made for it (the actions
-- its steps ran, in order, and the plan's length), its steps (action, start, finish,
-- outcome, restarts: a step started again after a wait counts once), waits (blocked, waiting, idle), failures (step_failed and no_plan, with
-- reason, place and `why`) and how it ended (`reached`, `gave_up`, `dropped`, `no_plan`,
-- or nil while it ran at the end of the trace or was set aside for another goal).
-- @tparam int|string crowd a crowd index or a class name
-- @tparam int agent the agent's index in its crowd
-- @treturn table `{ class, crowd, agent, goals = { ... }, events = { ... }, reached, failures }`
-- @raise "saspu.Trace:history: no crowd or class 'x' in the trace (...)".
function Trace:history(crowd, agent)
  local k = crowd_of(self, crowd, "saspu.Trace:history")
  if self.streamed and not self.kept[k .. ":" .. tostring(agent)] then
    error(format("saspu.Trace:history: %s:%s was not kept by saspu.trace.scan (pass it in opts.agents)",
                 self.header.crowds[k].class, tostring(agent)), 2)
  end
  local life = { class = self.header.crowds[k].class, crowd = k, agent = agent, goals = {},
                 events = {}, reached = 0, failures = 0, idle = {} }
  local goal, plan
  local function new_goal(name, time)
    goal = { goal = name, start = time, plans = {}, steps = {}, waits = {}, failures = {} }
    life.goals[#life.goals + 1] = goal
    plan = nil
  end
  for ev in self:events { crowd = k, agent = agent } do
    life.events[#life.events + 1] = ev
    local kind, time = ev.kind, ev.time
    if kind == "goal_chosen" then
      new_goal(ev.goal, time)
    elseif kind == "idle" then
      life.idle[#life.idle + 1] = { time = time, reason = ev.reason }
      goal = nil
    elseif goal == nil and ev.goal then
      new_goal(ev.goal, time)
    end
    if goal then
      if kind == "planned" or kind == "replanned" then
        plan = { time = time, length = ev.detail, actions = {}, replanned = kind == "replanned",
                 reason = kind == "replanned" and ev.reason or nil }
        goal.plans[#goal.plans + 1] = plan
      elseif kind == "step_started" and #goal.steps > 0 and goal.steps[#goal.steps].action == ev.action
             and not goal.steps[#goal.steps].finish then
        -- the step starts again (after a wait for a full place): the same step
        local step = goal.steps[#goal.steps]
        step.restarts = (step.restarts or 0) + 1
      elseif kind == "step_started" or kind == "step_skipped" then
        local step = { action = ev.action, start = time }
        if kind == "step_skipped" then step.finish, step.outcome = time, "skipped" end
        goal.steps[#goal.steps + 1] = step
        if plan then plan.actions[#plan.actions + 1] = ev.action end
      elseif kind == "step_finished" or kind == "step_failed" then
        for s = #goal.steps, 1, -1 do
          local step = goal.steps[s]
          if step.action == ev.action and not step.finish then
            step.finish, step.outcome = time, kind == "step_finished" and "finished" or "failed"
            break
          end
        end
        if kind == "step_failed" then
          goal.failures[#goal.failures + 1] = { time = time, action = ev.action, reason = ev.reason,
                                                place = ev.place }
          life.failures = life.failures + 1
        end
      elseif kind == "no_plan" then
        goal.failures[#goal.failures + 1] = { time = time, reason = "no_plan", why = ev.why }
        goal.outcome, goal.finish = "no_plan", time
        life.failures = life.failures + 1
      elseif kind == "blocked" or kind == "waiting" or kind == "arrived" then
        if kind ~= "arrived" then
          goal.waits[#goal.waits + 1] = { time = time, kind = kind, reason = ev.reason, place = ev.place }
        end
      elseif kind == "goal_reached" then
        goal.outcome, goal.finish = "reached", time
        life.reached = life.reached + 1
      elseif kind == "gave_up" then
        goal.outcome, goal.finish = "gave_up", time
      elseif kind == "goal_dropped" then
        goal.outcome, goal.finish = "dropped", time
      end
    end
  end
  return life
end

--- Counts of events by kind per period (3600 s: per hour of the crowds' clock), summed
-- in C (a streamed trace: as it was read, with its `period`).
-- @tparam[opt] number period seconds (default 3600)
-- @treturn table `{ [period index] = { [kind] = count } }` (index floor(time / period))
-- and the sorted list of the indices
function Trace:counts(period)
  local sum = self.raw:summary { period = period or 3600 }
  local out, keys = {}, {}
  for i, p in ipairs(sum.periods) do
    out[p], keys[i] = sum.counts[i], p
  end
  return out, keys
end

--- The trace summed up in C: per class goals, failure reasons, stuck agents, counts.
-- @tparam[opt] table opts `{ top = 5, period = 3600 }`
-- @treturn table see trace_report.summary, which prints it
function Trace:summary(opts)
  return self.raw:summary(opts)
end

-- The number of frames recorded up to frame k (1-based; 0: none): a snapshot whose
-- number is at most this one shows the agents at or before frame k.
local function upto(raw, k)
  if k == 0 then return 0 end
  local _, number = raw:frame(k)
  return number + 1
end

-- The last snapshot of crowd k at or before frame `frame`, or nil.
local function snapshot_before(self, k, frame)
  local raw, limit, best = self.raw, upto(self.raw, frame), nil
  for s = 1, self.header.snapshots do
    local number, c = raw:snapshot(s)
    if c == k and number <= limit then best = s end
  end
  return best
end

-- The last frame whose time is at most `time` (0: before the first).
local function frame_at(self, time)
  local lo, hi = 0, self.frame_count
  while lo < hi do
    local mid = floor((lo + hi + 1) / 2)
    if self.clocks[mid] <= time then lo = mid else hi = mid - 1 end
  end
  return lo
end
M.frame_at = frame_at

--- An agent's state at `time`, rebuilt from the trace: its cell (the last snapshot
-- before, then the cell changes), from its events up to then its goal, the step it
-- was running, its last event, and the values its sensors had read.
-- @tparam number time seconds (the crowds' clock)
-- @tparam int|string crowd a crowd index or a class name
-- @tparam int agent
-- @treturn table `{ time, frame, x, y, goal, action, last = event, sensed = { variable =
-- value } }` (x, y nil: not there; sensed nil: no sensor recorded for it yet)
-- @raise "saspu.Trace:state_at: no crowd or class ..."
function Trace:state_at(time, crowd, agent)
  local k = crowd_of(self, crowd, "saspu.Trace:state_at")
  if self.streamed and not self.kept[k .. ":" .. tostring(agent)] then
    error(format("saspu.Trace:state_at: %s:%s was not kept by saspu.trace.scan (pass it in opts.agents)",
                 self.header.crowds[k].class, tostring(agent)), 2)
  end
  local frame = frame_at(self, time)
  local raw = self.raw
  local state = { time = time, frame = frame }
  local best = snapshot_before(self, k, frame)
  local from_frame = 0
  if best then
    state.x, state.y = raw:snapshot_cell(best, agent)
    from_frame = raw:snapshot(best) -- its frames start at number + 1 (1-based index)
  end
  for _, ci in ipairs(raw:agent_items(k, agent, "cells")) do
    local f, _, _, x, y = raw:cell(ci)
    if f > frame then break end
    local _, number = raw:frame(f)
    if number >= from_frame then state.x, state.y = x, y end
  end
  for sv in self:sensed { crowd = k, agent = agent } do
    if sv.frame > frame then break end
    state.sensed = state.sensed or {}
    state.sensed[sv.variable] = sv.value
  end
  for ev in self:events { crowd = k, agent = agent } do
    if ev.frame > frame then break end
    state.last = ev
    if ev.kind == "goal_chosen" then state.goal = ev.goal
    elseif ev.kind == "idle" or ev.kind == "goal_reached" or ev.kind == "gave_up"
           or ev.kind == "goal_dropped" then state.goal, state.action = nil, nil
    elseif ev.kind == "step_started" then state.action = ev.action
    elseif ev.kind == "step_finished" or ev.kind == "step_failed" then state.action = nil
    end
  end
  return state
end

--- Every recorded agent's cell at the end of frame `frame` of crowd `crowd`, as an
-- array of y * 65536 + x (0-based; false: no agent), for maps.
function Trace:cells_at(frame, crowd)
  local k = crowd_of(self, crowd, "saspu.Trace:cells_at")
  local raw, cells = self.raw, {}
  local base = snapshot_before(self, k, frame)
  if not base then return cells end
  local number, _, count = raw:snapshot(base)
  for i = 1, count do
    local x, y = raw:snapshot_cell(base, i)
    cells[i] = x and (y - 1) * 65536 + (x - 1) or false
  end
  for ci = 1, self.cell_count do
    local f, c, agent, x, y = raw:cell(ci)
    if f > frame then break end
    if c == k and select(2, raw:frame(f)) >= number then
      cells[agent] = x and (y - 1) * 65536 + (x - 1) or false
    end
  end
  return cells
end

M.Trace = Trace
return M
