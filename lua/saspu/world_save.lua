-- lua/saspu/world_save.lua: world:save and world:load for scripts: the C save of every open crowd (csrc/lua/world_save.c) plus each crowd's script side, checked before anything changes.
local core = require "saspu.core"
local sides = require "saspu.sides"
local hooks = require "saspu.hooks"

local type, pairs, ipairs, tostring, error, pcall = type, pairs, ipairs, tostring, error, pcall
local next, tonumber = next, tonumber
local co_create = coroutine.create
local huge = math.huge
local concat, string_format = table.concat, string.format

local World = core.World
local crowds, world_side, is_integer = sides.crowds, sides.world_side, sides.is_integer
local not_updating = hooks.not_updating

--- Part of module saspu: World:save and World:load (LDoc merges it, config.ld).
-- @module saspu

--- @type World

-- The C save (csrc/save/save.c) carries every agent; the script side of each crowd
-- rides in its "extra" bytes: goal names (select may add goals), the duration draws,
-- the steps Lua is timing, targets still to ask, texts of failures not yet reported, the
-- texts that began the failure runs a `gave_up` may still name, and
-- Lua events queued for the next frame. A `run` coroutine cannot be saved: its step
-- restarts its script from the beginning at the first update after the load (a step
-- timed by a duration keeps its remaining time). Inspection history is not saved.

local SCRIPT_TAG = "saspu-lua-1"

local function put(out, v)
  if type(v) == "string" then
    out[#out + 1] = "s" .. #v .. ":" .. v
  else
    out[#out + 1] = "n" .. string_format("%.17g", v) .. ";"
  end
end

-- The keys of a set or map, sorted (saves must not depend on pairs()).
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

local function save_side(side, out)
  put(out, #side.goal_names)
  for _, name in ipairs(side.goal_names) do put(out, name) end
  put(out, side.rng)
  put(out, side.next_msg)
  local ids = sorted_keys(side.msgs)
  put(out, #ids)
  for _, id in ipairs(ids) do put(out, id) put(out, side.msgs[id]) end
  local running = {} -- those of agents despawned since the update are not saved
  for _, r in ipairs(side.running) do
    if not r.gone then running[#running + 1] = r end
  end
  put(out, #running)
  for _, r in ipairs(running) do
    put(out, r.agent) put(out, r.action) put(out, r.wait)
    put(out, r.fresh and 1 or 0) put(out, r.co and 1 or 0)
  end
  for _, set in ipairs { side.pending_target, side.failed } do
    local agents = sorted_keys(set)
    put(out, #agents)
    for _, a in ipairs(agents) do put(out, a) end
  end
  put(out, #side.extra_next)
  for _, e in ipairs(side.extra_next) do
    put(out, e.agent) put(out, e.kind) put(out, e.action or 0) put(out, e.reason)
  end
end

-- The agents of a crowd whose failure run began with a text Lua gave (a hook's error, an
-- `at` reason, a:move_failed): their last_reason is that run's first, `script`. The
-- texts ride after every crowd's side, only when there is one (as in saves before them).
local function first_text_agents(side)
  local c, info, kept = side.crowd, {}, {}
  for _, a in ipairs(sorted_keys(side.first_text)) do
    if c:alive(a) then
      c:info(a, info)
      if info.last_reason == "script" then kept[#kept + 1] = a end
    end
  end
  return kept
end

local function save_first_texts(list, out)
  local agents, any = {}, false
  for k, c in ipairs(list) do
    agents[k] = first_text_agents(crowds[c])
    any = any or #agents[k] > 0
  end
  if not any then return end
  for k, c in ipairs(list) do
    put(out, #agents[k])
    for _, a in ipairs(agents[k]) do put(out, a) put(out, crowds[c].first_text[a]) end
  end
end

-- A reader of put's tokens; errors say what is wrong and at which byte of the part.
local function reader(s)
  local pos = 1
  local function fail(what)
    error(string_format("saved world: the script part: %s at byte %d", what, pos), 0)
  end
  local r = {}
  function r.num()
    if s:sub(pos, pos) ~= "n" then fail("expected a number") end
    local e = s:find(";", pos, true)
    local x = e and tonumber(s:sub(pos + 1, e - 1))
    if not x then fail("bad number") end
    pos = e + 1
    return x
  end
  function r.int(lo, what)
    local x = r.num()
    if not is_integer(x) or x < lo then fail(what .. " " .. tostring(x) .. " is out of range") end
    return x
  end
  function r.str()
    if s:sub(pos, pos) ~= "s" then fail("expected a string") end
    local e = s:find(":", pos, true)
    local len = e and tonumber(s:sub(pos + 1, e - 1))
    if not len or len < 0 or e + len > #s then fail("bad string") end
    pos = e + len + 1
    return s:sub(e + 1, e + len)
  end
  function r.left() return #s - pos + 1 end
  return r
end

-- Parses one crowd's script side; checks it against the behaviour and against the saved
-- crowd (`agents` agents, `goals` goals, `dead` its despawned slots): every agent it names
-- exists and was not despawned, every action is one of the crowd's, every goal name is
-- one of the saved goals.
-- Under migration `amap` maps the saved action ids to this behaviour's (false: changed or
-- gone): a timing or queued event of such an action is dropped, and said in `report`.
local function read_side(side, r, k, agents, goals, dead, amap, report)
  local p = { goal_names = {}, msgs = {}, running = {}, pending = {}, failed = {}, extra = {},
              first_text = {} }
  local function bad(fmt, ...)
    error(string_format("saved world: crowd %d '%s': the script part: " .. fmt, k,
                        side.names.name, ...), 0)
  end
  local function agent()
    local a = r.int(1, "agent")
    if a > agents then bad("agent %d does not exist (%d agents saved)", a, agents) end
    if dead[a] then bad("agent %d was despawned (its slot is free in the saved crowd)", a) end
    return a
  end
  local count = r.int(0, "goal count")
  if count ~= goals then bad("%d goal names for %d saved goals", count, goals) end
  for i = 1, count do p.goal_names[i] = r.str() end
  p.rng = r.int(0, "draw state")
  p.next_msg = r.int(0, "message count")
  for _ = 1, r.int(0, "message count") do
    local id = r.int(1, "message id")
    p.msgs[id] = r.str()
  end
  -- the saved action id as this behaviour's: nil when gone or changed (said in report)
  local function action(id, agent_index, what)
    if not amap then return id end
    if amap[id] == nil then bad("action %d does not exist", id) end
    if amap[id] == false then
      report[#report + 1] = string_format("crowd %d '%s' agent %d: dropped %s of step %d (its "
                                          .. "action changed)", k, side.names.name, agent_index,
                                          what, id)
      return nil
    end
    return amap[id]
  end
  for _ = 1, r.int(0, "running count") do
    local rec = { agent = agent(), action = r.int(1, "action"), wait = r.num(),
                  fresh = r.int(0, "flag") == 1 or nil, co = r.int(0, "flag") == 1 }
    if not (rec.wait >= 0 and rec.wait < huge) then
      bad("agent %d waits %s seconds", rec.agent, tostring(rec.wait))
    end
    rec.action = action(rec.action, rec.agent, "the timing")
    local act = rec.action and side.actions[rec.action]
    if rec.action and (not act or not act.scripted or (rec.co and not act.run)) then
      bad("action %d is not a scripted step of its behaviour", rec.action)
    end
    if rec.action then p.running[#p.running + 1] = rec end
  end
  for _, set in ipairs { p.pending, p.failed } do
    for _ = 1, r.int(0, "agent count") do set[agent()] = true end
  end
  for _ = 1, r.int(0, "event count") do
    local e = { agent = agent(), kind = r.str(), action = r.int(0, "action"),
                reason = r.str() }
    if e.kind ~= "hook_failed" then bad("event kind '%s' is not one saspu makes in Lua", e.kind) end
    local keep = true
    if e.action == 0 then
      e.action = nil
    else
      e.action = action(e.action, e.agent, "a failure event")
      keep = e.action ~= nil
      if keep and not side.names.action_names[e.action] then bad("action %d does not exist", e.action) end
    end
    if keep then p.extra[#p.extra + 1] = e end
  end
  return p
end

-- Restores the parsed script side (the C load is done). A running record whose agent is
-- not waiting in that scripted step (a save edited by hand) is dropped, and said so in
-- `report`: its agent goes on as the C part says.
local function apply_side(side, p, report)
  local info = {}
  for i = #p.running, 1, -1 do
    local rec = p.running[i]
    side.crowd:info(rec.agent, info)
    if info.phase ~= "script" or info.action ~= rec.action then
      table.remove(p.running, i)
      report[#report + 1] = string_format("crowd '%s' agent %d: dropped the timing of step '%s' "
                                          .. "(the agent is not waiting in it)", side.names.name,
                                          rec.agent, side.names.action_names[rec.action])
    end
  end
  side.goal_names, side.goal_ids = p.goal_names, {}
  for i, name in ipairs(p.goal_names) do side.goal_ids[name] = side.goal_ids[name] or i end
  side.rng, side.next_msg, side.msgs, side.msgs_old = p.rng, p.next_msg, p.msgs, {}
  side.first_text = p.first_text
  for _, rec in ipairs(p.running) do
    if rec.co then -- a script restarts: from its beginning, at the next update
      rec.co, rec.wait, rec.fresh = co_create(side.actions[rec.action].run), 0, nil
    else
      rec.co = nil
    end
  end
  side.running, side.pending_target, side.failed = p.running, p.pending, p.failed
  side.any_failed = next(p.failed) ~= nil
  side.extra, side.extra_next = {}, p.extra
end

local function open_crowds(ws)
  local out = {}
  for _, c in ipairs(ws.crowds) do
    if c:is_open() then out[#out + 1] = c end
  end
  return out
end

-- The names a save carries for a later migration: places by id (false: unnamed, the C
-- part calls it "KIND#id") and each crowd's goals.
local function save_names(world, ws, list)
  local places, goals = {}, {}
  for id = 1, world:place_count() do places[id] = ws.place_names[id] or false end
  for k, c in ipairs(list) do goals[k] = crowds[c].goal_names end
  return places, goals
end

--- Saves the world and every open crowd to a string (docs/saves.md). Call it between
-- updates. `a.data` tables and inspection history are not saved.
-- @treturn string
-- @raise "saspu.World: not made by saspu.world"; "saspu.World: closed".
function World:save()
  local ws = world_side(self)
  not_updating(ws, "saspu.World:save")
  local list = open_crowds(ws)
  local out = { SCRIPT_TAG }
  for _, c in ipairs(list) do save_side(crowds[c], out) end
  save_first_texts(list, out)
  local places, goals = save_names(self, ws, list)
  return core.world_save(self, list, concat(out), places, goals)
end

-- load's options: nil, or { migrate = boolean, defaults = { var = value } } (defaults
-- only with migrate). Returns migrate and the defaults as a flat sorted list.
local function load_options(opts)
  if opts == nil then return false, nil end
  if type(opts) ~= "table" then
    error("saspu.World:load: options: expected a table, got " .. type(opts), 3)
  end
  for key in pairs(opts) do
    if key ~= "migrate" and key ~= "defaults" then
      error(string_format("saspu.World:load: options: unknown field '%s'", tostring(key)), 3)
    end
  end
  local migrate, defaults = opts.migrate, opts.defaults
  if migrate ~= nil and type(migrate) ~= "boolean" then
    error("saspu.World:load: options.migrate: expected a boolean, got " .. type(migrate), 3)
  end
  if defaults == nil then return migrate == true, {} end
  if not migrate then error("saspu.World:load: options.defaults needs migrate = true", 3) end
  if type(defaults) ~= "table" then
    error("saspu.World:load: options.defaults: expected a table, got " .. type(defaults), 3)
  end
  local list = {}
  for var, value in pairs(defaults) do
    if type(var) ~= "string" then
      error("saspu.World:load: defaults: expected variable names, got a " .. type(var) .. " key", 3)
    end
    if type(value) ~= "string" then
      error(string_format("saspu.World:load: defaults.%s: expected a value name (string), got %s",
                          var, type(value)), 3)
    end
    list[#list + 1] = var
  end
  table.sort(list)
  local flat = {}
  for _, var in ipairs(list) do flat[#flat + 1] = var flat[#flat + 1] = defaults[var] end
  return true, flat
end

--- Restores a save onto this world, which the same game code built: the same grid,
-- places, and crowds in the same order with the same domains, behaviours and options.
-- The agents then resume exactly. Everything is checked before anything changes: every
-- saved agent against what the update relies on (a save edited by hand is refused naming
-- the crowd, the agent and the field), and the script part against the saved crowds.
--
-- With `migrate = true` the save may come from before a patch of the game (format 6 on):
-- variables, values and actions are mapped by name in each crowd (the crowds still in the
-- same order), places by name; a plan using an action that changed (in its domain or its
-- behaviour) or is gone is dropped and the agent replans at the next update (event
-- `replanned`, reason `migrated`); an idle agent looks for a goal again; a walk to another
-- agent goes on (agents keep their slots), unless its walker's plan was dropped. A value
-- some agent holds that no longer exists, or a new variable, is refused unless `defaults`
-- gives the value to use. The grid must be the same. Without `migrate` a changed domain, behaviour
-- or place list is refused as before. See docs/saves.md.
-- @tparam string s a string from `World:save`
-- @tparam[opt] table opts `{ migrate = true, defaults = { variable = "value", ... } }`
-- @treturn {string,...} a report: one line per thing the load changed, mapped or dropped
-- (a step timing whose agent was not waiting in it; under migration what changed in each
-- crowd: "crowd 1 'farrier': action 'hammer_shoe' changed: plans using it are dropped",
-- "crowd 1 'farrier': 3 agents dropped their plan and replan (migrated)", "place 'well' is
-- new", "crowd 2 'innkeeper': unchanged"); empty for a save as `World:save` wrote it
-- @raise "saspu.World:load: expected a string, got TYPE";
-- "saspu.World:load: saved world: truncated at byte 600 in crowd 1 'citizen'";
-- "saspu.World:load: saved world: crowd 2 'farrier': domain differs from the saved one";
-- "...: format version 7, this saspu reads 5 to 6"; a checksum mismatch;
-- with migrate: "saspu.World:load: saved world: migrate: crowd 1 'farrier': value 'hot' of
-- variable 'forge' no longer exists and 3 agents hold it (give defaults = { forge = ... })";
-- "...: migrate: crowd 3 'bandit': variable 'mood' is new: defaults must give its value";
-- "...: migrate: defaults.nope: no crowd has a variable 'nope'"; "...: migrate: format 5
-- carries no names to map by: ..."; "saspu.World:load: options: unknown field 'x'";
-- "saspu.World:load: defaults.forge: expected a value name (string), got number";
-- "...: crowd 1 'farrier': the script part: agent 2 was despawned (its slot is free in the
-- saved crowd)". The world is left as it was: the C part and the script part are both
-- checked before either is applied.
function World:load(s, opts)
  local ws = world_side(self)
  not_updating(ws, "saspu.World:load")
  if type(s) ~= "string" then error("saspu.World:load: expected a string, got " .. type(s), 2) end
  local migrate, defaults = load_options(opts)
  local list = open_crowds(ws)
  local report, maps = {}, {}
  if migrate then
    local places, goals = save_names(self, ws, list)
    local mok, new, lines, amaps = pcall(core.world_migrate, self, list, s, places, goals, defaults)
    if not mok then error((tostring(new):gsub("^[^\n]-:%d+: ", "")), 2) end
    s, maps = new, amaps
    for _, line in ipairs(lines) do report[#report + 1] = line end
  end
  local checked, extra, agents, goals, dead = pcall(core.world_load, self, list, s, true)
  if not checked then error((tostring(extra):gsub("^[^\n]-:%d+: ", "")), 2) end
  local ok, parsed = pcall(function()
    if extra:sub(1, #SCRIPT_TAG) ~= SCRIPT_TAG then
      error("saved world: the script part is not saspu's (" .. SCRIPT_TAG .. ")", 0)
    end
    local r = reader(extra:sub(#SCRIPT_TAG + 1))
    local all = {}
    for k, c in ipairs(list) do
      all[k] = read_side(crowds[c], r, k, agents[k], goals[k], dead[k], maps[k], report)
    end
    for k = 1, r.left() ~= 0 and #list or 0 do -- the texts that began failure runs
      for _ = 1, r.int(0, "text count") do
        local a = r.int(1, "agent")
        if a > agents[k] or dead[k][a] then
          error(string_format("saved world: crowd %d: the script part: the failure text of "
                              .. "agent %d, which does not exist or was despawned", k, a), 0)
        end
        all[k].first_text[a] = r.str()
      end
    end
    if r.left() ~= 0 then error("saved world: the script part has bytes after the end", 0) end
    return all
  end)
  if not ok then error("saspu.World:load: " .. tostring(parsed), 2) end
  core.world_load(self, list, s)
  for k, c in ipairs(list) do apply_side(crowds[c], parsed[k], report) end
  return report
end

return {}
