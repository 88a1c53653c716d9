-- lua/saspu/record.lua: world:record and world:stop_recording: a trace of every frame (events, cells, fact changes) written by the C recorder (csrc/record/); lua/saspu/world.lua installs it.
local core = require "saspu.core"
local sides = require "saspu.sides"
local naming = require "saspu.names"

local type, ipairs, tostring, error, pcall = type, ipairs, tostring, error, pcall
local format = string.format

local M = {}

--- Part of module saspu: recording a world (LDoc merges it, config.ld).
-- @module saspu

--- @type World

local function check_opts(opts, ws)
  if type(opts) ~= "table" then error("saspu.World:record: expected a table { path = ... }", 3) end
  sides.refuse_unknown(opts, { path = true, positions = true, agents = true }, "saspu.World:record")
  if type(opts.path) ~= "string" then
    error("saspu.World:record: path must be a string, got " .. type(opts.path), 3)
  end
  local p = opts.positions
  if p ~= nil and (not sides.is_integer(p) or p < 0) then
    error("saspu.World:record: positions must be an integer >= 0 (frames between cells; 0: none), got "
          .. tostring(p), 3)
  end
  local a = opts.agents
  if a ~= nil and type(a) ~= "table" then
    error("saspu.World:record: agents must be a list of classes or crowds, got " .. type(a), 3)
  end
  if ws.recorder then error("saspu.World:record: already recording (world:stop_recording() first)", 3) end
end

-- Whether crowd c (class `class`) is in the filter `agents` (nil: every crowd).
local function picked(agents, c, class)
  if agents == nil then return true end
  for _, x in ipairs(agents) do
    if x == c or x == class then return true end
  end
  return false
end

local crowds = sides.crowds

function M.install(World, private)
  local world_side = private.world_side

  --- Starts recording the world to a trace file: after each `world:update`, the frame's
  -- events, the cells of agents that changed cell and the facts that changed are
  -- appended (in checksummed chunks, written by a thread of their own). Read it with
  -- `saspu.trace.open(path)` or `saspu trace FILE`. Crowds made after this call are
  -- not recorded.
  --     world:record { path = "day.trace" }
  -- @tparam table opts `{ path = file, positions = frames between cell records (1: every
  -- frame, 0: none), agents = { class name or crowd, ... } (nil: every crowd) }`
  -- @raise "saspu.World:record: already recording"; "saspu.World:record: cannot open
  -- 'x/y.trace': No such file or directory"; "saspu.World:record: agents[1]: 'bandt' is
  -- not a class or an open crowd of this world".
  function World:record(opts)
    local ws = world_side(self)
    check_opts(opts, ws)
    local list, classes, goals, mask = {}, {}, {}, {}
    for _, c in ipairs(ws.crowds) do
      if c:is_open() then
        local side = crowds[c]
        list[#list + 1] = c
        classes[#list] = side.names.name
        goals[#list] = side.goal_names
        mask[#list] = picked(opts.agents, c, side.names.name)
      end
    end
    for k, x in ipairs(opts.agents or {}) do
      local known = false
      for i, c in ipairs(list) do known = known or x == c or x == classes[i] end
      if not known then
        error(format("saspu.World:record: agents[%d]: %s is not a class or an open crowd of this world", k,
                     type(x) == "string" and ("'" .. x .. "'") or tostring(x)), 2)
      end
    end
    local rec = core.record_start(self, list, opts.path, ws.place_names, classes, goals,
                                  opts.positions or 1, mask)
    ws.recorder, ws.recorded, ws.recorded_no_plans = rec, list, {}
  end

  --- Stops recording and closes the trace file. Nothing when not recording.
  -- @treturn table|nil `{ frames, events, cells, facts, bytes, event_bytes, cell_bytes,
  -- ms_encode, ms_wait }` of the recording (ms_encode: the frames' recording on the
  -- caller's thread, of which ms_wait waiting for the writer thread)
  -- @raise "saspu.World:stop_recording: record: writing the trace failed: No space left on
  -- device" (the file is closed all the same).
  function World:stop_recording()
    local ws = world_side(self)
    local rec = ws.recorder
    if not rec then return nil end
    ws.recorder, ws.recorded = nil, nil
    return rec:stop()
  end

  --- What the recording has written so far, or nil when not recording.
  -- @treturn table|nil as `stop_recording` returns
  -- @raise "saspu.World: closed".
  function World:recording()
    local rec = world_side(self).recorder
    return rec and rec:stats() or nil
  end
end

local NO_PLAN = core.event_kinds().no_plan -- its bit in next_event's mask

local counters = {}

-- Notes why each no_plan of the frame had no plan (the blocker's message). A crowd
-- whose no_plan count did not move is not scanned.
local function note_why(rec, list, seen)
  for k = 1, #list do
    local c = list[k]
    local no_plans = c:is_open() and c:stats(counters, true).no_plans
    if no_plans and no_plans ~= seen[k] then
      seen[k] = no_plans
      local e, agent = c:next_event(1, NO_PLAN)
      while e do
        local why = naming.why_of(c, agent, true)
        if why then rec:note(k, e, why.message) end
        e, agent = c:next_event(e + 1, NO_PLAN)
      end
    end
  end
end

-- The events made in Lua this frame (hook_failed, blocked for want of a target), which
-- world:events gives before each crowd's C events.
local function lua_events(rec, list)
  for k = 1, #list do
    local c = list[k]
    local extra = c:is_open() and crowds[c].extra
    if extra then
      for _, e in ipairs(extra) do
        if not e.gone then
          local text = e.reason
          if text ~= nil and type(text) ~= "string" then text = tostring(text) end
          rec:lua_event(k, e.agent, e.kind, e.action, text)
        end
      end
    end
  end
end

-- After world:update: the frame into the trace (crowds closed since are left out).
function M.frame(ws)
  local ok, err = pcall(note_why, ws.recorder, ws.recorded, ws.recorded_no_plans)
  if ok then ok, err = pcall(lua_events, ws.recorder, ws.recorded) end
  if ok then ok, err = pcall(ws.recorder.frame, ws.recorder, ws.recorded) end
  if not ok then
    local rec = ws.recorder
    ws.recorder, ws.recorded = nil, nil
    pcall(rec.stop, rec)
    error(format("%s (recording stopped)", tostring(err)), 0)
  end
end

-- Before world:close: the file is closed.
function M.close(ws)
  if ws and ws.recorder then
    local rec = ws.recorder
    ws.recorder, ws.recorded = nil, nil
    pcall(rec.stop, rec)
  end
end

return M
