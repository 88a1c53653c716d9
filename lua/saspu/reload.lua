-- lua/saspu/reload.lua: hot reload of a domain file: running populations move to the new domain, values matched by name.
--
--   local live = saspu.live("domains/farrier.lua")     -- compiles it; live.domain is the domain
--   local pop = live:population("smiths", 5000)        -- a population the reload carries over
--   ...
--   local ok, err = live:reload()   -- after the file changed (or live:reload_if_changed())
--   pop = live:population("smiths") -- the population on the new domain
--
-- On reload every population is rebuilt on the new domain with the same NPC count: each
-- NPC's state and goal are carried over by variable and value name (a variable or value the
-- new file no longer has takes the variable's first value) and every NPC is dirty, so the
-- next pop:plan replans it. A file that fails to load or compile leaves the running domain
-- and populations untouched; reload returns false and the error.
-- Other holders of NPCs (crowds, agents) plug in with live:on_reload(fn): fn(new_domain,
-- old_domain, translate) runs after the populations moved, where translate(packed [, goal])
-- maps a packed state (with goal = true: a packed goal, its free bytes kept) of the old
-- domain to the new one.
local setmetatable, pcall, ipairs, pairs, concat, char, byte, io_open =
  setmetatable, pcall, ipairs, pairs, table.concat, string.char, string.byte, io.open

-- Lua 5.1 has only the global unpack (busted adds table.unpack, so specs would not see it)
local unpack = table.unpack or unpack

local ANY = 255 -- a packed goal's free variable (saspu.ANY)

local M = {}

local Live = {}
Live.__index = Live

local function file_text(path)
  local f = io_open(path, "rb")
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  return text
end

-- translate(packed [, goal]) for old -> new: one byte map per new variable.
local function translator(old, new)
  local old_vars, maps = {}, {}
  for i, v in ipairs(old:variables()) do
    old_vars[v.name] = { index = i, values = v.values }
  end
  for i, v in ipairs(new:variables()) do
    local ids, from = {}, old_vars[v.name]
    for j, value in ipairs(v.values) do ids[value] = j - 1 end
    local map = {}
    if from then
      for j, value in ipairs(from.values) do map[j - 1] = ids[value] or 0 end
    end
    maps[i] = { from = from and from.index, map = map }
  end
  -- a goal's free variable (byte 255) stays free, and so is a variable new to it
  return function(packed, goal)
    local out, other = {}, goal and ANY or 0
    for i, m in ipairs(maps) do
      out[i] = m.from and m.map[byte(packed, m.from)] or other
    end
    return char(unpack(out))
  end
end

--- Part of module saspu: the object of `saspu.live` (LDoc merges it, config.ld).
-- @module saspu

--- A domain file that hot-reloads with its populations (made by `live`).
-- Fields: `live.domain` (the running `Domain`) and `live.path`.
-- @type Live

--- The population kept under `key`, made with n NPCs on first use; a reload carries it
-- over to the new domain (every NPC dirty, states and goals moved by name).
-- @param key any table key
-- @tparam[opt] int n NPCs, to make it when there is none under `key`
-- @tparam[opt] table opts as `population`'s
-- @treturn Population the population, or nil when there is none and no n
-- @raise the errors of `population`.
function Live:population(key, n, opts)
  local entry = self.populations[key]
  if entry == nil and n ~= nil then
    entry = { pop = self.saspu.population(self.domain, n, opts), opts = opts }
    self.populations[key] = entry
  end
  return entry and entry.pop
end

--- Adds a function run after every successful reload, once the populations moved:
-- `fn(new_domain, old_domain, translate)`, where `translate(packed [, goal])` maps a
-- packed state (with goal true: a packed goal, free bytes kept) of the old domain to the
-- new one. Crowds and agents plug in here.
-- @tparam function fn
-- @raise nothing; an error raised by fn comes out of the reload that runs it.
function Live:on_reload(fn)
  self.hooks[#self.hooks + 1] = fn
end

--- Compiles the file again and moves every population to the new domain.
-- Each NPC's state and goal are carried over by variable and value name (a name the new
-- file no longer has takes the variable's first value); the old domain is closed.
-- @treturn boolean true; or false and the error, the running version left as it was
-- when the file fails to load or compile
-- @raise nothing for a bad file (it returns false); errors of the `on_reload` functions.
function Live:reload()
  local ok, new = pcall(self.saspu.domain_file, self.path)
  if not ok then return false, new end
  local old = self.domain
  local translate = translator(old, new)
  for _, entry in pairs(self.populations) do
    local pop, n = entry.pop, entry.pop:size()
    local states, goals = {}, {}
    for i = 1, n do
      states[i] = translate(pop:state(i))
      goals[i] = translate(pop:goal(i), true)
    end
    local moved = self.saspu.population(new, n, entry.opts)
    moved:set_states(1, concat(states))
    moved:set_goals(1, concat(goals))
    moved:mark_dirty()
    pop:close()
    entry.pop = moved
  end
  self.domain = new
  self.text = file_text(self.path)
  for _, fn in ipairs(self.hooks) do fn(new, old, translate) end
  old:close()
  return true
end

--- Reloads when the file's text changed since the last load.
-- @treturn boolean nil when the file is unchanged or unreadable, else `Live:reload`'s results
-- @raise as `Live:reload`.
function Live:reload_if_changed()
  local text = file_text(self.path)
  if text == nil or text == self.text then return nil end
  return self:reload()
end

-- M.live(saspu, path) -> a live domain (raises when the first compile fails).
function M.live(saspu, path)
  local dom = saspu.domain_file(path)
  return setmetatable({ saspu = saspu, path = path, domain = dom, text = file_text(path),
    populations = {}, hooks = {} }, Live)
end

return M
