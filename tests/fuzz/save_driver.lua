-- tests/fuzz/save_driver.lua: a structure-aware save fuzzer: mutates fields of a real save (agents, crowds, places, fields, names, chases, sensors, fact ties, own priorities, waiters, an engine-moved crowd, the script part), seals it again, loads it (or migrates it into a patched game), and runs updates and every reader on what loads; returns the findings.
--
-- driver.run_bytes(s) -> findings   the libFuzzer harness (tests/fuzz/fuzz_save.c, Lua 5.4)
-- A finding is a text. A refusal is fine when it says "saved world" and nothing from
-- Lua's own checks; a save that loads must run 60 frames with every reader, and the
-- world's own saves on the way must load back.
local saspu = require "saspu"

local pack, unpack, format = string.pack, string.unpack, string.format

local M = { root = "", loaded = 0, refused = 0, migrated = 0 } -- counts of the inputs run

---------------------------------------------------------------------------------------
-- The world (the same game code every time)
---------------------------------------------------------------------------------------

local dom_cache, patched_cache
local function domain()
  dom_cache = dom_cache or saspu.domain_file(M.root .. "domains/citizen.lua")
  return dom_cache
end

-- The game after a patch (the migrate path): thirst's "no_drink" renamed "parched",
-- buy_drink takes 3 s, a place added.
local function patched_domain()
  if not patched_cache then
    local spec = saspu.load(M.root .. "domains/citizen.lua")
    spec.variables[2].values[1] = "parched"
    for _, a in ipairs(spec.actions) do
      if a.pre == "no_drink" then a.pre = "parched" end
    end
    for _, st in pairs(spec.starts) do
      if st.thirst == "no_drink" then st.thirst = "parched" end
    end
    patched_cache = saspu.domain(spec)
  end
  return patched_cache
end

-- A watcher the engine moves (movement = "engine"): tied to the world fact `alarm`,
-- sensing crowd 1 near it, going to the well and to agent 1 of crowd 1.
local watcher_cache
local function watcher()
  watcher_cache = watcher_cache or saspu.domain {
    name = "watcher",
    variables = { { name = "alarm", values = { "quiet", "ringing" } },
                  { name = "near", values = { "false", "true" } },
                  { name = "task", values = { "todo", "done" } },
                  { name = "fed", values = { "no", "yes" } } },
    actions = { { name = "go", var = "task", pre = "todo", post = "done", prevail = { alarm = "quiet" } },
                { name = "eat", var = "fed", pre = "no", post = "yes", prevail = { near = "true" } } },
    goals = { work = { task = "done" }, meal = { fed = "yes" } },
    starts = { s = { alarm = "quiet", near = "false", task = "todo", fed = "no" } },
  }
  return watcher_cache
end

local function build(patched)
  local places = { { name = "market", kind = "shop", x = 3, y = 3, capacity = 1 },
                   { name = "inn", kind = "shop", x = 12, y = 4, capacity = 2 },
                   { name = "well", x = 8, y = 12 } }
  if patched then table.insert(places, 2, { name = "pump", x = 5, y = 14 }) end
  local world = saspu.world { grid = saspu.grid(16, 16), places = places,
                              facts = { alarm = { "quiet", "ringing" } } }
  local d = patched and patched_domain() or domain()
  local a = world:crowd(d, {
    actions = {
      buy_food = { at = { kind = "shop" }, duration = { 1, 3 } },
      buy_drink = { at = "market", duration = patched and 3 or 1 },
      eat = { duration = function(agent) return agent:index() % 3 + 1 end },
      drink = { run = function(_, wait) wait(2) end },
      take = { at = function(agent) return agent:index() % 16 + 1, 5 end, duration = 1 },
      rest = { at = "home", on_start = function(agent)
        if agent:index() % 4 == 0 then error("not sleepy") end
      end },
      work = { at = "well", run = function(_, wait) wait(1) wait(2) end },
      debate = { on_fail = function() end, interruptible = true, duration = 4 },
    },
    goals = { { "work", priority = 3 }, { "have_a_meal", priority = 2 }, { "join_a_debate" },
              { "go_for_a_walk", priority = 1, when = { debating = "true" } } },
  }, { capacity = 14, seed = 7, speed = 3, retry = 2, cooldown = 3 })
  for i = 1, 12 do a:spawn { start = "start_of_day", x = i, y = i % 7 + 1, home = "well" } end
  local b = world:crowd(d, { -- drinks next to agent 1 of a, wherever it walks (chases)
    actions = { buy_drink = { at = "inn", duration = 2 },
                drink = { at = { agent = a:agent(1), reach = 1 }, duration = 1 } },
    goals = { { "quench_thirst" }, { "have_a_meal" } },
    select = function(agent) return agent:index() % 2 == 0 and "quench_thirst" or "have_a_meal" end,
  }, { capacity = 8, seed = 9, speed = 2 })
  for i = 1, 6 do b:spawn { start = "start_of_day", x = 16 - i, y = 2 } end
  a:agent(2):set_priority("have_a_meal", 9) -- agents' own priorities
  a:agent(5):set_priority("work", 0)
  a:agent(5):set_priority("go_for_a_walk", 4)
  local e = world:crowd(watcher(), {
    actions = { go = { at = "well", duration = 1 }, eat = { at = { agent = a:agent(1) }, duration = 1 } },
    goals = { { "meal", priority = 2 }, { "work" } },
  }, { capacity = 6, seed = 5, movement = "engine", facts = { "alarm" },
       sensors = { near = { near = a, r = 3, period = 1 } } })
  for i = 1, 4 do e:spawn { start = "s", x = 9 + i, y = 3 } end
  return world
end

-- The engine's part of a frame: it moves every other waiting agent there (the game's
-- own answer), and rings the alarm now and then.
local function engine_frame(world, f)
  local e = world:crowds()[3]
  for i = 1, e and e:size() or 0 do
    local ok, info = pcall(e.info, e, i, {})
    if ok and info and info.phase == "moving" and (i + f) % 2 == 0 then
      pcall(function() e:agent(i):arrived() end)
    end
  end
  if f % 20 == 10 then world:set("alarm", world:get("alarm") == "quiet" and "ringing" or "quiet") end
end

M.build = build

---------------------------------------------------------------------------------------
-- The layout of a save (csrc/save/sp_save.h): every field with its offset and size
---------------------------------------------------------------------------------------

-- Agent record fields: name, offset, bytes, kind.
local AGENT = {
  { "target", 0, 4, "place" }, { "draws", 4, 4, "int" }, { "done", 8, 4, "bits" },
  { "home", 12, 4, "place" }, { "cool_place", 16, 4, "place" }, { "cool_until", 20, 4, "float" },
  { "x", 24, 2, "cell" }, { "y", 26, 2, "cell" }, { "tx", 28, 2, "cell" }, { "ty", 30, 2, "cell" },
  { "cursor", 32, 2, "int" }, { "step", 34, 2, "int" }, { "refused", 36, 2, "bits" },
  { "goal", 38, 1, "int" }, { "why", 39, 1, "int" }, { "reason", 40, 1, "int" },
  { "fcode", 41, 1, "int" }, { "fail_action", 42, 2, "int" }, { "faction", 44, 2, "int" },
  { "fother", 46, 2, "int" }, { "fvar", 48, 2, "int" }, { "fvalue", 50, 1, "int" },
  { "pursued", 51, 1, "int" }, { "time", 52, 4, "float" }, { "phase", 56, 1, "int" },
  { "flags", 57, 1, "bits" }, { "generation", 58, 4, "int" }, { "fails", 62, 1, "int" },
  { "shun", 63, 1, "int" },
}
local AGENT_BYTES = 64
local LAYOUT = { version = 10, oldest = 5, header_bytes = 32, agent_bytes = AGENT_BYTES,
                 counters = 6, name_max = 254 }
M.LAYOUT, M.AGENT = LAYOUT, AGENT
-- The fields of save s: { at = offset (1-based), bytes, kind, group } (group: fields of
-- the same meaning in other agents, for copies); and where the script part starts.
local function layout(s, crowd_vars, crowd_actions)
  local f = {}
  local function add(at, bytes, kind, group) f[#f + 1] = { at = at, bytes = bytes, kind = kind, group = group } end
  local at = M.names_layout(s, add)
  add(at + 8, 8, "int", "places print")
  local np = unpack("<I4", s, at + 16)
  at = at + 20
  for p = 1, np do add(at + 4 * (p - 1), 4, "int", "reserved") end
  at = at + 4 * np
  add(at, 8, "int", "world clock")
  local nf = unpack("<I4", s, at + 8)
  add(at + 8, 4, "int", "field count")
  at = at + 12
  for _ = 1, nf do
    add(at, 4, "int", "field key")
    add(at + 4, 8, "int", "field use")
    at = at + 12
  end
  local facts = unpack("<I4", s, at)
  add(at, 4, "int", "fact count")
  for q = 1, facts do add(at + 3 + q, 1, "int", "fact value") end
  at = at + 4 + facts
  local count = unpack("<I4", s, at)
  at = at + 4
  for k = 1, count do
    local m, idb = crowd_vars[k], crowd_actions[k] <= 255 and 1 or 2
    local n = unpack("<I8", s, at + 16)
    add(at + 16, 8, "int", "agent count")
    add(at + 24, 8, "double", "crowd clock")
    add(at + 32, 1, "int", "selector")
    at = at + 33
    local goals = unpack("<I4", s, at)
    add(at, 4, "int", "goal count")
    at = at + 4
    for _ = 1, goals do
      add(at, 4, "int", "priority")
      add(at + 4, 4, "int", "goal index")
      for v = 0, 2 * m - 1 do add(at + 8 + v, 1, "value", "goal value") end
      at = at + 8 + 2 * m
    end
    for c = 0, LAYOUT.counters - 1 do add(at + 8 * c, 8, "int", "counter") end
    at = at + 8 * LAYOUT.counters
    local words = unpack("<I4", s, at)
    at = at + 4
    for _ = 1, n do
      for _, fd in ipairs(AGENT) do add(at + fd[2], fd[3], fd[4], fd[1]) end
      at = at + AGENT_BYTES
      for _ = 1, words do add(at, 4, "bits", "refused word") at = at + 4 end
      for v = 0, 2 * m - 1 do add(at + v, 1, "value", v < m and "state" or "goal row") end
      at = at + 2 * m
      add(at, 1, "bits", "result")
      local res = s:byte(at)
      at = at + 1
      if res % 4 == 1 then
        local len = unpack("<I2", s, at)
        add(at, 2, "int", "plan length")
        at = at + 2
        for q = 0, len - 1 do add(at + q * idb, idb, "int", "plan step") end
        at = at + len * idb
      end
    end
    local free = unpack("<I4", s, at) -- despawned slots, then their indices
    add(at, 4, "int", "free count")
    for q = 1, free do add(at + 4 * q, 4, "int", "free slot") end
    at = at + 4 + 4 * free
    local ties = s:byte(at) -- fact ties, then their last values
    add(at, 1, "int", "tie count")
    for q = 1, ties do add(at + q, 1, "int", "tie value") end
    at = at + 1 + ties
    local sensors = s:byte(at) -- sensors, then the clock of each one's next reading
    add(at, 1, "int", "sensor count")
    for q = 0, sensors - 1 do add(at + 1 + 8 * q, 8, "double", "sensor clock") end
    at = at + 1 + 8 * sensors
    local chases = unpack("<I4", s, at) -- walks to other agents, each with its path
    add(at, 4, "int", "chase count")
    at = at + 4
    for _ = 1, chases do
      add(at, 4, "int", "chase agent")
      add(at + 4, 4, "int", "chase target crowd")
      add(at + 8, 4, "int", "chase target slot")
      add(at + 12, 4, "int", "chase generation")
      add(at + 16, 2, "int", "chase reach")
      add(at + 18, 1, "int", "chase path cells")
      add(at + 19, 1, "int", "chase next cell")
      add(at + 20, 2, "int", "chase target x")
      add(at + 22, 2, "int", "chase target y")
      local cells = s:byte(at + 18)
      for q = 0, 2 * cells - 1 do add(at + 24 + 2 * q, 2, "int", "chase path cell") end
      at = at + 24 + 4 * cells
    end
    local own = unpack("<I4", s, at) -- agents' own priorities: agent, goal, priority
    add(at, 4, "int", "own count")
    for q = 0, own - 1 do
      add(at + 4 + 12 * q, 4, "int", "own agent")
      add(at + 8 + 12 * q, 4, "int", "own goal")
      add(at + 12 + 12 * q, 4, "int", "own priority")
    end
    at = at + 4 + 12 * own
  end
  local waiters = unpack("<I4", s, at) -- agents waiting for full places, oldest first
  add(at, 4, "int", "waiter count")
  for q = 0, waiters - 1 do
    local w = at + 4 + 14 * q
    add(w, 4, "int", "waiter crowd")
    add(w + 4, 4, "int", "waiter agent")
    add(w + 8, 4, "int", "waiter key")
    add(w + 12, 2, "int", "waiter action")
  end
  at = at + 4 + 14 * waiters
  return f, at + 4 -- past the extra part's length
end
M.layout = layout

-- The names block (format 6 on): its counts, name lengths and a byte of each name go
-- to add(); returns where the world's part starts (1-based).
function M.names_layout(s, add)
  local at = LAYOUT.header_bytes + 1
  local function count(group)
    local n = unpack("<I4", s, at)
    add(at, 4, "int", group)
    at = at + 4
    return n
  end
  local function name(group)
    local n = s:byte(at)
    add(at, 1, "int", "name length")
    if n == 255 then -- a long name (format 9): its u32 length next
      n = unpack("<I4", s, at + 1)
      add(at + 1, 4, "int", "long name length")
      at = at + 4
    end
    add(at + 1, 1, "int", group)
    at = at + 1 + n
  end
  local function values(group)
    name(group)
    local nv = s:byte(at)
    add(at, 1, "int", "value count")
    at = at + 1
    for _ = 1, nv do name("value name") end
  end
  for _ = 1, count("place count") do name("place name") end
  for _ = 1, count("fact count") do values("fact name") end
  for _ = 1, count("crowd count") do
    name("domain name")
    add(at, 8, "int", "named agents")
    at = at + 8
    for _ = 1, count("variable count") do values("variable name") end
    for _ = 1, count("action count") do
      name("action name")
      add(at, 8, "int", "action signature")
      at = at + 8
    end
    for _ = 1, count("goal count") do name("goal name") end
  end
  return at
end

---------------------------------------------------------------------------------------
-- Mutations
---------------------------------------------------------------------------------------

local INTS = { 0, 1, 2, 3, 0xFF, 0xFE, 0xFFFF, 0xFFFE, 0x7FFF, 0x8000, 0xFFFFFFFF, 16, 17, 31, 32,
               254, 255, 256, 65535, 4294967295, -1, 13, 14, 7 }
local FLOATS = { 0 / 0, math.huge, -math.huge, -1e30, 1e30, -0.0, 1e-45, -1, 0.5, 3.4e38, 1e9 }
local NUMBERS = { "0", "-1", "9999", "1e999", "-1e999", "nan", "2.5", "9007199254740993", "13",
                  "4294967301", "1e308" }

local function put(s, at, bytes, v)
  local bytes_v
  if bytes < 8 then
    bytes_v = pack("<I" .. bytes, v % (1 << (8 * bytes)))
  else
    bytes_v = pack("<i8", v)
  end
  return s:sub(1, at - 1) .. bytes_v .. s:sub(at + bytes)
end

local function mutate(s, fields, extra_at, op, sel, val)
  local fd = fields[sel % #fields + 1]
  local kind = op % 8
  if kind == 0 then
    return put(s, fd.at, fd.bytes, INTS[val % #INTS + 1])
  elseif kind == 1 then
    return put(s, fd.at, fd.bytes, unpack("<I" .. fd.bytes, s, fd.at) + val - 128)
  elseif kind == 2 then
    local b = s:byte(fd.at) ~ (1 << (val % 8))
    return s:sub(1, fd.at - 1) .. string.char(b) .. s:sub(fd.at + 1)
  elseif kind == 3 then -- the same field of another agent (a state that looks sound)
    local others = {}
    for _, g in ipairs(fields) do if g.group == fd.group and g ~= fd then others[#others + 1] = g end end
    if #others == 0 then return s end
    local g = others[val % #others + 1]
    return s:sub(1, fd.at - 1) .. s:sub(g.at, g.at + fd.bytes - 1) .. s:sub(fd.at + fd.bytes)
  elseif kind == 4 and fd.bytes == 4 then
    return s:sub(1, fd.at - 1) .. pack("<f", FLOATS[val % #FLOATS + 1]) .. s:sub(fd.at + 4)
  elseif kind == 5 then -- a number token of the script part
    local part = s:sub(extra_at)
    local spots = {}
    for a, e in part:gmatch("()n[^;]*();") do spots[#spots + 1] = { a, e } end
    if #spots == 0 then return s end
    local spot = spots[sel % #spots + 1]
    part = part:sub(1, spot[1]) .. NUMBERS[val % #NUMBERS + 1] .. part:sub(spot[2])
    return s:sub(1, extra_at - 5) .. pack("<I4", #part) .. part
  elseif kind == 6 and fd.bytes == 8 then
    return s:sub(1, fd.at - 1) .. pack("<d", FLOATS[val % #FLOATS + 1]) .. s:sub(fd.at + 8)
  end
  return put(s, fd.at, fd.bytes, val)
end

local function reseal(s)
  local payload = s:sub(33)
  local h = 0xcbf29ce484222325
  for k = 1, #payload do h = (h ~ payload:byte(k)) * 0x100000001b3 end
  return s:sub(1, 16) .. pack("<I8", #payload) .. pack("<I8", h) .. payload
end

---------------------------------------------------------------------------------------
-- The run
---------------------------------------------------------------------------------------

local base, fields, extra_at
local function prepare()
  local world = build()
  for _ = 1, 10 do world:update(0.7) end -- crowd 2 has two chases then
  base = world:save()
  local vars, acts = {}, {}
  for k, c in ipairs(world:crowds()) do
    vars[k], acts[k] = #c:domain():variables(), #c:domain():actions()
  end
  fields, extra_at = layout(base, vars, acts)
  world:close()
end

-- Every reader on every agent: why, inspect, info, position, plan, and the events.
local function read_all(world, findings)
  local info = {}
  for _, c in ipairs(world:crowds()) do
    for i = 1, c:size() do
      c:why(i)
      c:info(i, info)
      c:agent(i):inspect()
      c:position(i)
    end
  end
  for ev in world:events() do
    if ev.kind == nil then findings[#findings + 1] = "an event without a kind" end
  end
end

-- An input of an odd length loads under migration into the patched game (the same
-- mutations, framing and checksum), an even one into the same game.
function M.run_bytes(s)
  if not base then prepare() end
  local findings = {}
  local save = base
  for k = 1, #s - 3, 4 do
    local op, hi, lo, val = s:byte(k, k + 3)
    save = mutate(save, fields, extra_at, op, hi * 256 + lo, val)
  end
  save = reseal(save)
  local migrate = #s % 2 == 1
  local world = build(migrate)
  local opts = migrate and { migrate = true, defaults = { thirst = "parched" } } or nil
  local ok, err = pcall(world.load, world, save, opts)
  if ok and migrate then M.migrated = M.migrated + 1 end
  if not ok then
    M.refused = M.refused + 1
    M.last = err
    if type(err) ~= "string" or not err:find("saved world", 1, true) or err:find("attempt to", 1, true) then
      findings[#findings + 1] = "a refusal that names nothing: " .. tostring(err)
    end
    world:close()
    return findings
  end
  M.loaded = M.loaded + 1
  for f = 1, 60 do
    engine_frame(world, f)
    local uok, uerr = pcall(world.update, world, (f % 5) * 0.4)
    if not uok then
      findings[#findings + 1] = format("frame %d: world:update raised: %s", f, tostring(uerr))
      break
    end
    read_all(world, findings)
    if f % 30 == 0 then -- what the world writes, it loads
      local again = world:save()
      local lok, lerr = pcall(world.load, world, again)
      if not lok then findings[#findings + 1] = "its own save refused: " .. tostring(lerr) end
    end
  end
  world:close()
  if #findings == 0 then collectgarbage("step", 200) end
  return findings
end

-- A few inputs for the seed corpus: each mutation kind on a few fields, and each also
-- with one byte more (the migrate path).
function M.seeds()
  local out = {}
  for kind = 0, 6 do
    for j = 0, 3 do
      local one = string.char(kind, j * 7 % 256, (j * 131 + kind * 17) % 256, j * 37 % 256)
      out[#out + 1] = one
      out[#out + 1] = one .. "m"
    end
  end
  out[#out + 1] = "m" -- the save as written, migrated
  return out
end

return M
