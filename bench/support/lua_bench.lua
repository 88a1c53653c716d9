-- bench/support/lua_bench.lua: what the Lua benchmarks share: the module paths, a median and the machine line (CPU, cores, load).
local M = {}

--- Points package.path / cpath at the repository's Lua files and build (SASPU_BUILD_DIR).
function M.paths()
  local build = os.getenv("SASPU_BUILD_DIR") or "build"
  package.cpath = build .. "/?.so;" .. package.cpath
  package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
end

--- The median of the numbers in t (a sorted copy: t is left as it was).
function M.median(t)
  local s = {}
  for i = 1, #t do s[i] = t[i] end
  table.sort(s)
  return s[math.floor((#s + 1) / 2)]
end

--- "model, n online cores, load average x": the machine a figure was measured on.
function M.machine(cores)
  local f = io.open("/proc/cpuinfo")
  local model = f and f:read("*a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
  if f then f:close() end
  local l = io.open("/proc/loadavg")
  local load = l and l:read("*l"):match("^(%S+)") or "?"
  if l then l:close() end
  return string.format("%s, %d online cores, load average %s", model, cores, load)
end

--- The timed crowd of bench_lua_agents.lua without hooks: n citizens cycling work /
-- end_work, actions of 1-3 s, no places; `wake_ahead` (optional) is the crowd option of
-- that name. Returns the world and the crowd.
function M.timed_crowd(saspu, n, threads, wake_ahead)
  local dom = saspu.domain_file("domains/citizen.lua")
  local world = saspu.world {}
  local actions = {}
  for _, a in ipairs(dom:actions()) do actions[a.name] = { duration = { 1, 3 } } end
  local crowd = world:crowd(dom, {
    actions = actions,
    goals = { { "work", priority = 1 }, { { working = false }, priority = 1 } },
  }, { capacity = math.max(n, 1), threads = threads, seed = 1, wake_ahead = wake_ahead })
  local packed = dom:encode("start_of_day")
  for _ = 1, n do crowd:spawn_packed(packed, 1, 1) end
  return world, crowd
end

--- The plain Lua loop a game would write for n timed agents (a table per agent, a plan of
-- two steps, a step index, a timer of 1-3 s): returns frame(dt), which advances every agent,
-- and count(), the steps finished so far.
function M.plain_timers(n)
  local random = math.random
  math.randomseed(1)
  local agents = {}
  for i = 1, n do
    agents[i] = { plan = { "work", "end_work" }, step = 1, timer = 1 + 2 * random() }
  end
  local finished = 0
  local function frame(dt)
    for i = 1, n do
      local a = agents[i]
      local t = a.timer - dt
      if t <= 0 then
        finished = finished + 1
        local s = a.step + 1
        if s > #a.plan then s = 1 end
        a.step = s
        t = t + 1 + 2 * random()
      end
      a.timer = t
    end
  end
  return frame, function() return finished end
end

-- A wheel of frames: wheel[f] lists the agents whose step ends in frame f (count[f] of
-- them; a list's table is used again once its frame has passed). Returns push(f, i) and
-- take(f) -> list, count (the list of frame f, emptied).
local function frame_wheel()
  local wheel, count, spare = {}, {}, {}
  local function push(f, i)
    local list = wheel[f]
    if not list then
      list = spare[#spare] or {}
      spare[#spare] = nil
      wheel[f], count[f] = list, 0
    end
    local c = count[f] + 1
    list[c], count[f] = i, c
  end
  local function take(f)
    local list, c = wheel[f], count[f]
    if not list then return nil, 0 end
    wheel[f], count[f] = nil, nil
    spare[#spare + 1] = list
    return list, c
  end
  return push, take
end

--- The timer wheel a careful game writes for the same n timed agents: each agent's step
-- index in an array, the agents in lists keyed by the frame their step ends (steps of lo
-- to hi s, default 1-3 s), so a frame visits only the agents whose step ends in it.
-- Returns frame(dt) and count(), the steps finished so far. dt must be the same in every
-- frame (1/60 s: the first step ends are spread at 60 frames a second).
function M.lua_wheel(n, lo, hi)
  lo, hi = lo or 1, hi or 3
  local random, floor = math.random, math.floor
  math.randomseed(1)
  local push, take = frame_wheel()
  local step = {}
  local now, finished = 0, 0
  for i = 1, n do
    step[i] = 1
    push(1 + floor((lo + (hi - lo) * random()) * 60), i)
  end
  local function frame(dt)
    now = now + 1
    local list, c = take(now)
    local fps = 1 / dt
    for k = 1, c do
      local i = list[k]
      local s = step[i] + 1
      if s > 2 then s = 1 end -- the plan { "work", "end_work" }
      step[i] = s
      push(now + floor((lo + (hi - lo) * random()) * fps + 0.5), i)
    end
    finished = finished + c
  end
  return frame, function() return finished end
end

--- The same wheel for agents that plan: n agents of `dom` start in the packed state
-- `start`; at each plan's end an agent takes the other of the goals `goals` (two packed
-- goals) and is planned again by dom:plan_ids, the Lua planning API; each step's end
-- applies the action's effect to the agent's packed state (the new state looked up in a
-- table the script fills once per state and action). Steps of lo to hi s (default 1-3 s).
-- Returns frame(dt), count() (steps finished) and plans() (plans made).
function M.lua_wheel_plan(n, dom, start, goals, lo, hi)
  lo, hi = lo or 1, hi or 3
  local random, floor, byte, char, unpack = math.random, math.floor, string.byte, string.char,
                                             table.unpack or unpack
  math.randomseed(1)
  local actions = dom:actions()
  local var_of, post_of = {}, {}
  for _, a in ipairs(actions) do var_of[a.id], post_of[a.id] = a.var, a.post end
  -- after[state][action]: the packed state once the action's effect is applied
  local after = setmetatable({}, { __index = function(t, state)
    local row = setmetatable({}, { __index = function(r, a)
      local s = dom:decode(state)
      s[var_of[a]] = post_of[a]
      local packed = dom:encode(s)
      r[a] = packed
      return packed
    end })
    t[state] = row
    return row
  end })
  local out = {}
  local push, take = frame_wheel()
  local state, plan, step, goal = {}, {}, {}, {}
  local now, finished, planned = 0, 0, 0
  local function replan(i)
    local g = goal[i] == 1 and 2 or 1
    goal[i] = g
    local count = dom:plan_ids(state[i], goals[g], out)
    planned = planned + 1
    plan[i], step[i] = count and count > 0 and char(unpack(out, 1, count)) or "", 1
  end
  for i = 1, n do
    state[i], goal[i] = start, 2
    replan(i)
    push(1 + floor((lo + (hi - lo) * random()) * 60), i)
  end
  local function frame(dt)
    now = now + 1
    local list, c = take(now)
    local fps = 1 / dt
    for k = 1, c do
      local i = list[k]
      local p, s = plan[i], step[i]
      local a = byte(p, s)
      if a then state[i] = after[state[i]][a] end
      s = s + 1
      if s > #p then replan(i) else step[i] = s end
      push(now + floor((lo + (hi - lo) * random()) * fps + 0.5), i)
    end
    finished = finished + c
  end
  return frame, function() return finished end, function() return planned end
end

--- The least work the hardware does for n timed agents (bench/limit.c, built as
-- build/limit.so), steps of lo to hi s (default 1-3 s) at 60 frames a second: returns the
-- C wheels with records of 2 and 64 bytes (thin, fat) and the naive C loop over every
-- agent's timer (loop); with `threads` > 1 also a team of that many 64-byte wheels sharing
-- the n agents, one thread each (the machine's own gain from threads for this work); with
-- `work` also the wheel of 64-byte records doing the timed crowd's work at each step end
-- (work: goal choice, plan lookup, five 16-byte events). Or nil and a message when the
-- module is not built.
function M.limit(n, lo, hi, threads, work)
  local ok, limit = pcall(require, "limit")
  if not ok then return nil, "bench/limit.c not built (cmake --build BUILD --target bench_limit)" end
  lo, hi = lo or 1, hi or 3
  local min, span = math.floor(lo * 60 + 0.5), math.floor((hi - lo) * 60 + 0.5) + 1
  local out = { thin = limit.wheel(n, 2, min, span), fat = limit.wheel(n, 64, min, span),
                work = work and limit.work(n, min, span) or nil, loop = limit.loop(n) }
  if threads and threads > 1 then
    local parts = {}
    for k = 1, threads do
      parts[k] = limit.wheel(n * k // threads - n * (k - 1) // threads, 64, min, span)
    end
    out.team = limit.team(table.unpack(parts))
  end
  return out
end

--- The process's CPU time in seconds (all threads), to the nanosecond where bench/limit.c
-- is built (limit.cpu_clock), else os.clock's microseconds: a frame of 10,000 timed agents
-- in the C wheels lasts one to three.
function M.cpu_clock()
  local ok, limit = pcall(require, "limit")
  return ok and limit.cpu_clock or os.clock
end

return M
