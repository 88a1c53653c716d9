-- lua/saspu/hooks.lua: the hook runner: after each crowd's C update, the Lua of this frame's events (on_start, on_finish, on_fail, select, function `at`) and the coroutines of scripted steps.
--
-- A crowd without hooks and without movement = "engine" runs none of it during
-- world:update, but for the history of the agents it inspects.
local core = require "saspu.core"
local sides = require "saspu.sides"
local names = require "saspu.names"

local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local co_create, co_resume, co_status, co_yield = coroutine.create, coroutine.resume,
  coroutine.status, coroutine.yield
local co_running, co_isyieldable, co_close = coroutine.running, coroutine.isyieldable,
  coroutine.close
local huge = math.huge
local string_format = string.format

local Agent = core.Agent
local alive = Agent.alive
local duration_draw = core.duration_draw
local crowds, is_integer = sides.crowds, sides.is_integer
local pack_condition, why_of = names.pack_condition, names.why_of

local M = {}

local function note(side, text)
  side.next_msg = side.next_msg + 1
  side.msgs[side.next_msg] = text
  return side.next_msg
end

-- A Lua event made by this file, delivered with the next frame's events.
local function lua_event(side, agent, kind, action, text)
  local q = side.extra_next
  q[#q + 1] = { agent = agent, kind = kind, action = action, reason = text }
end

-- Fails the agent's running step of `action` with `text`, walking, acting or waiting
-- alike: the next update ends it with step_failed (reason `text`, its effect not
-- applied), and the one after replans (replanned/step_failed). A step of duration 0 has
-- already finished when its on_start runs (C starts and ends it in one update): its
-- effect stays, and a hook_failed event carries `text` instead.
local function fail_step(side, agent, action, text)
  local c = side.crowd
  if not c:alive(agent) then return end -- despawned by the script that failed
  side.failed[agent], side.any_failed = true, true
  if not c:control(agent, "fail", note(side, text), action) then
    lua_event(side, agent, "hook_failed", action, text)
  end
end

-- The text of a value a script gave (an error object, a result) that never raises: an
-- object whose __tostring raises or returns no string gets a placeholder.
local function describe(v)
  local ok, text = pcall(tostring, v)
  if ok and type(text) == "string" then return text end
  return "(a " .. type(v) .. " whose __tostring failed)"
end

-- Its type and value: `string "5"`, `number inf`, `nil nil`.
local function typed(v)
  if type(v) == "string" then return "string " .. string_format("%q", v) end
  return type(v) .. " " .. describe(v)
end

-- True when a yield here would suspend the caller of world:update (which then runs in a
-- coroutine and may yield through pcall: 5.2, 5.3, 5.4 and LuaJIT).
local function yieldable()
  if co_isyieldable then return co_isyieldable() end
  local co, main = co_running()
  return co ~= nil and not main
end

-- pcall for a script's function during world:update: an error, or a yield (only `run`
-- may wait), gives false and a message; the frame goes on either way.
local function protected(f, ...)
  if not yieldable() then return pcall(f, ...) end
  local co = co_create(f)
  local ok, a, b = co_resume(co, ...)
  if ok and co_status(co) ~= "dead" then
    if co_close then co_close(co) end
    return false, "yielded (only a run script may wait)"
  end
  return ok, a, b
end

-- A hook of `agent`: true when it returned; false and a text when it failed, false
-- alone when it despawned its agent (whatever it did then is dropped with it).
local function call_hook(side, f, agent, action, name, ...)
  local handle = side.handles[agent] or side.crowd:agent(agent)
  local ok, err = protected(f, handle, ...)
  if not alive(handle) then return false end
  if ok then return true end
  local text = string_format("%s %s: %s", side.names.action_names[action], name, describe(err))
  return false, text
end

-- A coordinate a script may give: a whole number a cell can have (1 .. 65535).
local function cell_ok(x) return is_integer(x) and x >= 1 and x <= 65535 end

-- A number of seconds a script may give: finite, 0 or more.
local function seconds_ok(d) return type(d) == "number" and d >= 0 and d < huge end

-- The draw of a scripted step's duration: the function's, or uniform in [min, max].
local function step_duration(side, rec, handle)
  if rec.duration_fn then
    local d = rec.duration_fn(handle)
    if not seconds_ok(d) then
      error("duration returned " .. typed(d) .. " (expected a finite number of seconds, 0 or more)", 0)
    end
    return d
  end
  if rec.max <= rec.min then return rec.min end
  local d
  side.rng, d = duration_draw(side.rng, rec.min, rec.max) -- in C: the same on every Lua
  return d
end

-- saspu.wait (documented in init.lua, where it is exported)
-- saspu.wait (documented in init.lua, where it is exported)
local function wait(seconds) return co_yield(seconds) end
M.wait = wait

local on_waiting

-- Resumes a running record once its wait is over; returns true when it is over
-- (finished, failed, or its agent despawned meanwhile).
local function resume(side, r)
  local c = side.crowd
  if r.gone then return true end
  if side.pending_target[r.agent] then -- an `at` that had no target: ask again
    if on_waiting(side, r.agent, r.action, side.actions[r.action], true) == "wait" then
      r.wait = side.retry
      return false
    end
    return true
  end
  if not r.co then -- a duration only
    c:control(r.agent, "finish")
    return true
  end
  local handle = c:agent(r.agent)
  local ok, a, b = co_resume(r.co, handle, wait)
  if r.gone or not alive(handle) then -- the script despawned its agent
    r.gone = true
    if co_close and co_status(r.co) == "suspended" then co_close(r.co) end
    return true
  end
  local name = side.names.action_names[r.action]
  if not ok then
    fail_step(side, r.agent, r.action, string_format("%s run: %s", name, describe(a)))
    return true
  end
  if co_status(r.co) ~= "dead" then
    if not seconds_ok(a) then
      if co_close then co_close(r.co) end
      fail_step(side, r.agent, r.action, string_format(
        "%s run: wait(%s): expected a finite number of seconds, 0 or more", name, typed(a)))
      return true
    end
    r.wait = a
    return false
  end
  if a == false then
    fail_step(side, r.agent, r.action, string_format("%s: %s", name, describe(b or "failed")))
  else
    c:control(r.agent, "finish")
  end
  return true
end

-- The step waits for Lua: ask a function `at` for its target, or start timing it.
-- `again`: asked once more after it answered false (no target now).
function on_waiting(side, agent, action, rec, again)
  if side.failed[agent] then -- its on_start raised: the step ends at the next update
    side.pending_target[agent] = nil
    return
  end
  local c, handle = side.crowd, side.crowd:agent(agent)
  if side.pending_target[agent] then
    local ok, p, y = protected(rec.at_fn, handle)
    if not alive(handle) then return end -- `at` despawned its agent
    local name = side.names.action_names[action]
    if ok and p == false then
      -- no target now: the goal waits (one blocked event), asked again every retry
      -- seconds; a running record while pending_target holds means that (and a save
      -- keeps both)
      if again then return "wait" end -- its record waits once more
      lua_event(side, agent, "blocked", action, "no_target")
      side.running[#side.running + 1] = { agent = agent, action = action, fresh = true,
                                          wait = side.retry }
      return
    end
    side.pending_target[agent] = nil
    if not ok then return fail_step(side, agent, action, name .. " at: " .. describe(p)) end
    if p == nil and type(y) == "string" then return fail_step(side, agent, action, y) end
    local done, err
    if type(p) == "userdata" and pcall(Agent.alive, p) then
      -- an agent: followed as it moves; gone (despawned) fails the step as target_gone
      local okc
      okc, done, err = pcall(c.chase, c, agent, p, rec.reach or (is_integer(y) and y) or 1)
      if not okc then done, err = false, describe(done) end
      if err == "target_gone" then return fail_step(side, agent, action, "target_gone") end
    elseif type(p) == "string" and side.wside.place_ids[p] then
      done, err = c:control(agent, "target", side.wside.place_ids[p])
    elseif cell_ok(p) and cell_ok(y) then -- the grid's own bounds are C's to check
      done, err = c:control(agent, "target", nil, p, y)
    else
      done, err = false, string_format("returned %s, %s (expected a place name, the x, y "
                                       .. "of a cell on the grid, or an agent)", typed(p), typed(y))
    end
    if not done then fail_step(side, agent, action, name .. " at: " .. err) end
    return
  end
  local ok, d = protected(step_duration, side, rec, handle)
  if not alive(handle) then return end -- `duration` despawned its agent
  if not ok then
    return fail_step(side, agent, action, side.names.action_names[action] .. " duration: " .. describe(d))
  end
  local r = { agent = agent, action = action, wait = d, fresh = true,
              co = rec.run and co_create(rec.run) or nil }
  -- a script starts at once (it runs until its first wait); a duration waits
  if r.co and r.wait <= 0 and resume(side, r) then return end
  if not alive(handle) then return end -- a finalizer despawned it meanwhile
  side.running[#side.running + 1] = r
end

-- The index of goal `name` for select: a behaviour goal, or a goal of the domain, added
-- to the crowd on first use (priority 0). nil, message when there is none.
local function selected_goal(side, name)
  local id = side.goal_ids[name]
  if id then return id end
  local cond = type(name) == "string" and side.names.goals[name]
  if not cond then return nil, string_format("unknown goal '%s' of '%s'", tostring(name), side.names.name) end
  id = side.crowd:add_goal(pack_condition(side.names, cond, "select"), 0)
  side.goal_names[id], side.goal_ids[name] = name, id
  return id
end

-- An agent needs a goal: ask behaviour.select. An error, or a name that is no goal,
-- leaves the agent idle (no_goal) after a hook_failed event; nil means nothing to do.
local function on_select(side, agent)
  local handle = side.handles[agent] or side.crowd:agent(agent)
  local ok, name = protected(side.select, handle)
  if not alive(handle) then return end -- select despawned its agent
  local id, err
  if not ok then
    err = "select: " .. describe(name)
  elseif name ~= nil and name ~= false then
    id, err = selected_goal(side, name)
    if err then err = "select: " .. err end
  end
  if err then lua_event(side, agent, "hook_failed", nil, err) end
  side.crowd:select_goal(agent, id)
end

-- Drops the running record of `agent` (its step ended in C); one of an agent despawned
-- from that slot before is not its own.
local function drop_running(side, agent)
  local run = side.running
  for k = 1, #run do
    if run[k].agent == agent and not run[k].gone then table.remove(run, k) return end
  end
end

-- Forgets every script record of `agent`, despawned now from any context (a hook, a
-- `run` script, `select`, `at`, `duration`, a finalizer, between frames): its running
-- record is marked gone (the loop that may be resuming the records drops it), and it
-- leaves the targets to ask, the failures, the inspection history and the Lua events
-- not read yet (those of this frame are marked, so World:events skips them).
local function forget(side, agent)
  for _, r in ipairs(side.running) do
    if r.agent == agent then r.gone = true end
  end
  if side.watch[agent] then side.watching = side.watching - 1 end
  side.pending_target[agent], side.failed[agent], side.watch[agent] = nil, nil, nil
  side.first_text[agent] = nil
  for _, e in ipairs(side.extra) do
    if e.agent == agent then e.gone = true end
  end
  local q = side.extra_next
  for k = #q, 1, -1 do
    if q[k].agent == agent then table.remove(q, k) end
  end
end

-- The text of an event's reason.
local function reason_text(side, agent, kind, reason, detail)
  if kind == "no_plan" then
    local w = why_of(side.crowd, agent, true)
    return w and w.message or reason
  end
  if reason == "script" then
    -- gave_up names the first failure of its run, maybe frames ago
    if kind == "gave_up" then return side.first_text[agent] or reason end
    return side.msgs_old[detail] or reason
  end
  return reason
end

local STEP_FAILED = core.event_kinds().step_failed

-- After an update that ended steps with texts Lua gave (hooks, `at`, a:move_failed):
-- keeps the text of each one that starts a run of failures, for that run's gave_up.
local function keep_first_texts(side)
  local c, msgs = side.crowd, side.msgs_old
  local k, agent, _, reason, _, _, _, detail, _, _, first = c:next_event(1, STEP_FAILED)
  while k do
    if first and reason == "script" then side.first_text[agent] = msgs[detail] end
    k, agent, _, reason, _, _, _, detail, _, _, first = c:next_event(k + 1, STEP_FAILED)
  end
end

-- Dispatches this frame's hooked events of one crowd, then advances the steps Lua was
-- already timing (those the events did not end; new ones wait from the next frame).
local function run_hooks(side, dt)
  local c, acts = side.crowd, side.actions
  local kinds = side.kinds
  local k, agent, kind, reason, action, detail = c:next_hook(1, kinds)
  while k do
    if action == 0 then -- an agent waits for its goal (the only hooked event without one)
      on_select(side, agent)
    elseif not acts[action] then
      -- hooked through c:set_action alone: no Lua part to run; a step waiting for Lua ends
      if kind == "waiting" then c:control(agent, "finish") end
    else
      local rec = acts[action]
      if kind == "step_started" then
        if rec.at_fn then side.pending_target[agent] = true end
        if rec.on_start then
          local ok, text = call_hook(side, rec.on_start, agent, action, "on_start")
          if not ok and text then fail_step(side, agent, action, text) end
        end
      elseif kind == "waiting" then
        on_waiting(side, agent, action, rec)
      elseif kind == "step_finished" then
        if rec.on_finish then
          local ok, text = call_hook(side, rec.on_finish, agent, action, "on_finish")
          if not ok and text then lua_event(side, agent, "hook_failed", action, text) end
        end
      elseif kind == "step_failed" then
        side.pending_target[agent] = nil
        drop_running(side, agent)
        if rec.on_fail then
          local ok, text = call_hook(side, rec.on_fail, agent, action, "on_fail",
                                     reason_text(side, agent, kind, reason, detail))
          if not ok and text then lua_event(side, agent, "hook_failed", action, text) end
        end
      end
    end
    k, agent, kind, reason, action, detail = c:next_hook(k + 1, kinds)
  end
  local list = side.running
  if #list == 0 then return end
  local kept = {}
  for i = 1, #list do
    local r = list[i]
    if r.gone then -- its agent was despawned
      r.fresh = nil
    elseif r.fresh then
      r.fresh = nil
      kept[#kept + 1] = r
    else
      r.wait = r.wait - dt
      if r.wait > 0 or not resume(side, r) then kept[#kept + 1] = r end
    end
  end
  -- records added while the loop ran: none are (steps start in C), but keep any
  for i = #list + 1, #side.running do kept[#kept + 1] = side.running[i] end
  for i = #kept, 1, -1 do
    if kept[i].gone then table.remove(kept, i) end
  end
  side.running = kept
end

-- Up to this many agents of a crowd keeping a history, each one's events are found in
-- C (one scan of the frame's events per agent, no Lua per event of the others: a debug
-- overlay's picked agent); more are found in one Lua walk over the frame's events.
local WATCH_IN_C = 8
local found = {} -- c:agent_events's output, reused

local function keep(log, side, kind, reason, goal, action)
  if #log >= log.max then table.remove(log, 1) end
  log[#log + 1] = { kind = kind, reason = reason or nil, goal = goal and side.goal_names[goal] or nil,
                    action = action and side.names.action_names[action] or nil }
end

-- Keeps the last events of inspected agents.
local function record_watched(side)
  local c, watch = side.crowd, side.watch
  if side.watching <= WATCH_IN_C then
    for agent, log in pairs(watch) do
      for k = 0, c:agent_events(agent, found) - 1 do
        local at = 5 * k
        keep(log, side, found[at + 2], found[at + 3], found[at + 4], found[at + 5])
      end
    end
    return
  end
  for k = 1, c:event_count() do
    local agent, kind, reason, _, goal, action = c:event(k)
    local log = watch[agent]
    if log then keep(log, side, kind, reason, goal, action) end
  end
end

-- Before a hooked crowd's update: texts noted last frame name this update's step_failed
-- events (ids restart); last frame's failures and Lua-made events are dropped.
local function before_update(side)
  side.texts_old = side.next_msg > 0 -- this update's step_failed may carry texts
  side.msgs_old, side.msgs, side.next_msg = side.msgs, side.msgs_old, 0
  for k in pairs(side.msgs) do side.msgs[k] = nil end
  if side.any_failed then
    for k in pairs(side.failed) do side.failed[k] = nil end
    side.any_failed = false
  end
  side.extra, side.extra_next = side.extra_next, side.extra
  for k = #side.extra_next, 1, -1 do side.extra_next[k] = nil end
end

local function after_update(side, dt)
  if side.texts_old then keep_first_texts(side) end
  if side.hooked then run_hooks(side, dt) end
  if side.watching > 0 then record_watched(side) end
end

-- world:update_crowds runs each pass of all the crowds made without their own threads
-- as one job (on the world's pool, or on the calling thread without one: the same
-- events either way); then the hooks of each crowd run, in creation order. A hook's
-- change to another crowd is seen at the next frame.
local function update_all(self, ws, dt)
  local list, open = ws.crowds, ws.open
  for i = #open, 1, -1 do open[i] = nil end
  for i = 1, #list do
    local c = list[i]
    if c:is_open() then
      local side = crowds[c]
      if side.hooked or side.engine then before_update(side) end
      open[#open + 1] = c
    end
  end
  self:update_crowds(dt, open)
  for i = 1, #open do after_update(crowds[open[i]], dt) end
end

local function not_updating(ws, what)
  if ws and ws.updating then
    error(what .. ": not allowed from a hook during world:update (do it after update returns)", 3)
  end
end

-- Every despawn (c:despawn(i), a:despawn(), from any context) forgets the agent.
core.on_despawn(function(c, i)
  local side = crowds[c]
  if side then forget(side, i) end
end)

M.reason_text = reason_text
M.update_all = update_all
M.not_updating = not_updating

return M
