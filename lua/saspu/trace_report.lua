-- lua/saspu/trace_report.lua: what `saspu trace FILE` prints: a per-class summary of a trace (goals reached, failed, given up; top failure reasons with place and time; agents stuck longest; agents that never reached a goal) and one agent's life as a timeline.
local ipairs, pairs, tostring = ipairs, pairs, tostring
local format, concat, sort, floor = string.format, table.concat, table.sort, math.floor

local M = {}

-- "h:mm:ss" of a clock in seconds.
local function clock(t)
  if t == nil then return "-" end
  t = floor(t + 0.5)
  return format("%d:%02d:%02d", floor(t / 3600), floor(t / 60) % 60, t % 60)
end
M.clock = clock

local FAILURE = { step_failed = true, no_plan = true, blocked = true, gave_up = true }
local PROGRESS = { step_finished = true, step_skipped = true, goal_reached = true }
local TOP = 5

local CLASS_FIELDS = { "class", "crowd", "agents", "goals", "reached", "failed", "gave_up", "dropped",
                       "step_failures", "reasons", "stuck", "never", "never_agents" }

--- The summary of trace `t` (saspu.trace.open, or saspu.trace.scan with `summary =
-- true`), summed up in C in one pass over the events: `{ frames, events, start, finish,
-- problems, classes = { { class, agents, goals, reached, failed, gave_up, dropped,
-- step_failures, reasons = { { kind, reason, action, place, count, first, last } },
-- stuck = { { agent, seconds, from, to, reason } }, never = count, never_agents } } }`.
function M.summary(t)
  local sum = t.raw:summary { top = TOP }
  local classes = {}
  for i, c in ipairs(sum.classes) do
    local s = {}
    for _, k in ipairs(CLASS_FIELDS) do s[k] = c[k] end
    classes[i] = s
  end
  return { frames = t.frame_count, events = t.all_events or t.event_count, cells = t.all_cells or t.cell_count,
           start = sum.start, finish = sum.finish, problems = t.problems, classes = classes }
end

--- The same summary computed in Lua from every event (t:events()): what the C one is
-- judged by (spec/trace_summary_spec.lua); slow, for traces read whole.
function M.summary_events(t)
  local h = t.header
  local finish = t.frame_count > 0 and t:time(t.frame_count) or h.start_clock
  local classes, by_crowd = {}, {}
  for k, c in ipairs(h.crowds) do
    if c.recorded then
      local s = { class = c.class, crowd = k, agents = 0, goals = 0, reached = 0, failed = 0, gave_up = 0,
                  dropped = 0, step_failures = 0, reasons = {}, stuck = {}, never = 0, never_agents = {} }
      classes[#classes + 1] = s
      by_crowd[k] = { s = s, reasons = {}, agents = {}, order = {}, seen = 0 }
    end
  end
  for ev in t:events() do
    local b = by_crowd[ev.crowd]
    local s = b.s
    local a = b.agents[ev.agent]
    if not a then
      a = { reached = 0, last_progress = h.start_clock, stuck = 0 }
      b.agents[ev.agent] = a
    end
    local kind = ev.kind
    if kind == "goal_chosen" then s.goals = s.goals + 1
    elseif kind == "goal_reached" then s.reached, a.reached = s.reached + 1, a.reached + 1
    elseif kind == "no_plan" then s.failed = s.failed + 1
    elseif kind == "gave_up" then s.gave_up = s.gave_up + 1
    elseif kind == "goal_dropped" then s.dropped = s.dropped + 1
    elseif kind == "step_failed" then s.step_failures = s.step_failures + 1
    end
    if FAILURE[kind] then
      local key = concat({ kind, ev.reason or "", ev.action or "", ev.place or "" }, "\0")
      local r = b.reasons[key]
      if not r then
        r = { kind = kind, reason = ev.reason, action = ev.action, place = ev.place, count = 0, first = ev.time }
        b.reasons[key] = r
        b.order[r], b.seen = b.seen, b.seen + 1
      end
      r.count, r.last = r.count + 1, ev.time
      a.failing, a.reason = true, ev.reason or kind
    end
    if PROGRESS[kind] then
      local gap = ev.time - a.last_progress
      if a.failing and gap > a.stuck then a.stuck, a.from, a.to, a.why = gap, a.last_progress, ev.time, a.reason end
      a.last_progress, a.failing = ev.time, false
    end
  end
  for _, b in pairs(by_crowd) do
    local s = b.s
    for _, r in pairs(b.reasons) do s.reasons[#s.reasons + 1] = r end
    sort(s.reasons, function(x, y)
      if x.count ~= y.count then return x.count > y.count end
      if x.first ~= y.first then return x.first < y.first end
      return b.order[x] < b.order[y] -- the first seen first
    end)
    for k = #s.reasons, TOP + 1, -1 do s.reasons[k] = nil end
    local ids = {}
    for i in pairs(b.agents) do ids[#ids + 1] = i end
    sort(ids)
    s.agents = #ids
    for _, i in ipairs(ids) do
      local a = b.agents[i]
      -- still failing at the end of the trace: stuck until then
      if a.failing and finish - a.last_progress > a.stuck then
        a.stuck, a.from, a.to, a.why = finish - a.last_progress, a.last_progress, finish, a.reason
      end
      if a.stuck > 0 then
        s.stuck[#s.stuck + 1] = { agent = i, seconds = a.stuck, from = a.from, to = a.to, reason = a.why }
      end
      if a.reached == 0 then
        s.never = s.never + 1
        if #s.never_agents < 10 then s.never_agents[#s.never_agents + 1] = i end
      end
    end
    sort(s.stuck, function(x, y)
      if x.seconds ~= y.seconds then return x.seconds > y.seconds end
      return x.agent < y.agent
    end)
    for k = #s.stuck, TOP + 1, -1 do s.stuck[k] = nil end
  end
  return { frames = t.frame_count, events = t.event_count, cells = t.cell_count, start = h.start_clock,
           finish = finish, problems = t.problems, classes = classes }
end

--- The summary as text lines.
function M.summary_text(sum, name)
  local out = {}
  local function add(...) out[#out + 1] = format(...) end
  add("%s: %d frames, %s to %s, %d events, %d cell changes", name, sum.frames, clock(sum.start),
      clock(sum.finish), sum.events, sum.cells)
  for _, p in ipairs(sum.problems) do add("  damaged: %s", p) end
  for _, s in ipairs(sum.classes) do
    add("")
    add("%s: %d agents, %d goals chosen: %d reached, %d without a plan, %d given up, %d dropped; %d steps failed",
        s.class, s.agents, s.goals, s.reached, s.failed, s.gave_up, s.dropped, s.step_failures)
    if #s.reasons > 0 then add("  top failures:") end
    for _, r in ipairs(s.reasons) do
      add("    %6d  %s%s%s%s  (first %s, last %s)", r.count, r.kind, r.reason and (" " .. r.reason) or "",
          r.action and (" in " .. r.action) or "", r.place and (" at " .. r.place) or "", clock(r.first),
          clock(r.last))
    end
    if #s.stuck > 0 then add("  stuck longest:") end
    for _, a in ipairs(s.stuck) do
      add("    %s:%d  %s  (%s to %s, %s)", s.class, a.agent, clock(a.seconds), clock(a.from), clock(a.to),
          tostring(a.reason))
    end
    if s.never > 0 then
      local list = {}
      for _, i in ipairs(s.never_agents) do list[#list + 1] = s.class .. ":" .. i end
      add("  never reached a goal: %d agents (%s%s)", s.never, concat(list, ", "), s.never > #list and ", ..." or "")
    end
  end
  return out
end

--- One agent's life (trace:history) as timeline lines.
function M.timeline_text(life)
  local out = {}
  local function add(...) out[#out + 1] = format(...) end
  add("%s:%d: %d goals, %d reached, %d failures", life.class, life.agent, #life.goals, life.reached, life.failures)
  for _, g in ipairs(life.goals) do
    add("%s  goal %s%s", clock(g.start), tostring(g.goal), g.outcome and (": " .. g.outcome .. " at " .. clock(g.finish))
        or "")
    for _, p in ipairs(g.plans) do
      add("%s    %s (%d steps): %s%s", clock(p.time), p.replanned and "replanned" or "planned", p.length or 0,
          concat(p.actions, ", "), p.reason and ("  (" .. p.reason .. ")") or "")
    end
    for _, st in ipairs(g.steps) do
      add("%s    step %s until %s%s", clock(st.start), tostring(st.action), clock(st.finish),
          st.outcome and (": " .. st.outcome) or "")
    end
    for _, w in ipairs(g.waits) do
      add("%s    %s%s%s", clock(w.time), w.kind, w.reason and (" " .. w.reason) or "", w.place and (" at " .. w.place) or "")
    end
    for _, f in ipairs(g.failures) do
      add("%s    failed: %s%s%s%s", clock(f.time), tostring(f.reason), f.action and (" in " .. f.action) or "",
          f.place and (" at " .. f.place) or "", f.why and (": " .. f.why) or "")
    end
  end
  for _, i in ipairs(life.idle) do add("%s  idle: %s", clock(i.time), tostring(i.reason)) end
  return out
end

--- A life without its event list (for --json and the page).
function M.life_data(life)
  return { class = life.class, crowd = life.crowd, agent = life.agent, goals = life.goals, reached = life.reached,
           failures = life.failures, idle = life.idle }
end

return M
