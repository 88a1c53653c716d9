-- examples/engine/game.lua: a small game in plain Lua that moves its characters itself (movement = "engine"): a bandit robs the bank, the alarm (a world fact) rings, the sheriff chases him through the street and cuffs him. Sensors, world:near, despawn, teleport and a save and load in the middle of the chase.
--
-- saspu chooses what each character does and where it has to go (event `move`); this
-- file is the game: it keeps where everybody is, walks them a cell at a time, tells
-- saspu where they are (`a:teleport`) and when they got there (`a:arrived()`).
-- examples/engine/main.lua plays it and prints the story; spec/examples_engine_spec.lua
-- checks it.
local saspu = require "saspu"

local M = {}

-- The street: the jail on the left, the bank, the hideout on the right.
local WIDTH, HEIGHT = 40, 12
local PLACES = {
  { name = "jail", x = 2, y = 2 },
  { name = "bank", x = 10, y = 6 },
  { name = "hideout", x = 38, y = 6 },
}

-- The bandit robs the bank while no sheriff is near (a sensor), then takes the loot to
-- the hideout.
local BANDIT = saspu.domain {
  name = "bandit",
  variables = {
    { name = "loot", values = { "none", "carried", "stashed" } },
    { name = "sheriff_near", values = { "no", "yes" } }, -- a sensor: "no" = not sensed
  },
  actions = {
    { name = "rob", var = "loot", pre = "none", post = "carried", prevail = { sheriff_near = "no" } },
    { name = "stash", var = "loot", pre = "carried", post = "stashed" },
  },
  goals = { rich = { loot = "stashed" } },
}

-- The sheriff arrests a bandit while the alarm (the world's fact) rings.
local SHERIFF = saspu.domain {
  name = "sheriff",
  variables = {
    { name = "alarm", values = { "quiet", "ringing" } },  -- the world's fact
    { name = "bandit_seen", values = { false, true } },   -- a sensor
    { name = "prisoner", values = { "none", "cuffed" } },
  },
  actions = {
    { name = "arrest", var = "prisoner", pre = "none", post = "cuffed", prevail = { alarm = "ringing" } },
  },
  goals = { order = { prisoner = "cuffed" } },
}

-- Cells a character walks per frame: the sheriff is faster than the bandit.
local SPEED = { bandit = 0.5, sheriff = 1 }

-- A character's key in the game's tables: "bandit:1" (crowd name and index), the same
-- before and after a load (handles are not saved, indices are).
local function key_of(a)
  return a:crowd():domain().name .. ":" .. a:index()
end

-- The keys of t in sorted order (the game answers saspu in the same order every run).
local function sorted(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

local function cheb(x1, y1, x2, y2)
  return math.max(math.abs(x1 - x2), math.abs(y1 - y2))
end

--- A new game: `log(text)` gets the story line by line.
function M.new(log)
  local game = {
    log = log or function() end,
    frame = 0,
    chars = {},    -- key -> { x, y, step = cells owed } : where the game has them
    moves = {},    -- key -> { x, y, target = key or nil } : moves saspu waits for
    chasing = {},  -- sheriff key -> the key of the bandit he goes after
    held = {},     -- bandit key -> true once a sheriff got to him (the game stops him)
    story = {},    -- what happened, { frame, text }
  }
  return setmetatable(game, { __index = M })
end

function M:say(text)
  self.story[#self.story + 1] = { frame = self.frame, text = text }
  self.log(string.format("%4d  %s", self.frame, text))
end

-- The world and its crowds, built the same way for a new game and before a load.
function M:build()
  local game = self
  local world = saspu.world { grid = saspu.grid(WIDTH, HEIGHT), places = PLACES,
                              facts = { alarm = { "quiet", "ringing" } } }
  local bandits = world:crowd(BANDIT, {
    actions = {
      rob = { at = "bank", duration = 1, on_finish = function(a)
        world:set("alarm", "ringing")
        game:say(key_of(a) .. " robs the bank: the alarm rings")
      end },
      stash = { at = "hideout", duration = 1 },
    },
    goals = { { "rich" } },
  }, { movement = "engine" })
  local sheriffs = world:crowd(SHERIFF, {
    actions = {
      arrest = {
        -- the nearest bandit, found with world:near, followed as he runs (reach 1)
        at = function(a)
          local x, y = a:position()
          local found = world:near(x, y, WIDTH, bandits, 1)[1]
          if not found then return "jail" end
          game.chasing[key_of(a)] = key_of(found)
          game:say(key_of(a) .. " goes after " .. key_of(found))
          return found, 1
        end,
        duration = 0.5,
        on_finish = function(a)
          local b = game:agent(game.chasing[key_of(a)])
          if b then
            local me, him = game.chars[key_of(a)], game.chars[key_of(b)]
            game:say(string.format("%s cuffs %s, %d cell(s) away", key_of(a), key_of(b),
                                   cheb(me.x, me.y, him.x, him.y)))
            game.chars[key_of(b)] = nil
            b:despawn()
          end
          world:set("alarm", "quiet")
        end,
      },
    },
    goals = { { "order", when = { alarm = "ringing" } } },
  }, { movement = "engine", facts = { "alarm" },
       sensors = { bandit_seen = { near = bandits, r = 6 } } })
  -- the bandits sense the sheriffs: declared once both crowds exist
  bandits:sense { sheriff_near = { near = sheriffs, r = 3 } }
  self.world, self.crowds = world, { bandit = bandits, sheriff = sheriffs }
  return world
end

-- The live agent of a key, or nil.
function M:agent(key)
  if not key then return nil end
  local name, i = key:match("^(%w+):(%d+)$")
  local crowd = self.crowds[name]
  i = tonumber(i)
  if not crowd or not crowd:alive(i) then return nil end
  return crowd:agent(i)
end

--- Puts the cast in the street.
function M:start()
  self:build()
  local b = self.crowds.bandit:spawn { start = { loot = "none", sheriff_near = "no" }, x = 4, y = 10 }
  local s = self.crowds.sheriff:spawn { start = { alarm = "quiet", bandit_seen = false, prisoner = "none" },
                                        x = 2, y = 2 }
  for _, a in ipairs { b, s } do
    local x, y = a:position()
    self.chars[key_of(a)] = { x = x, y = y, step = 0 }
  end
end

-- Is the agent's move still waiting for the game?
local function move_pending(a)
  if a.moving then return a:moving() end
  return a:inspect().phase == "moving"
end

-- One frame of the game: saspu's update, then the game answers its events and walks
-- its characters.
function M:update(dt)
  self.frame = self.frame + 1
  self.world:update(dt)
  local sheriffs = self.crowds.sheriff
  for i = 1, sheriffs:slots() do
    local s = sheriffs:alive(i) and sheriffs:agent(i)
    if s and s:get("bandit_seen") and not self.seen then
      self.seen = true
      self:say(key_of(s) .. " sees a bandit (sensor bandit_seen)")
    end
  end
  for ev in self.world:events() do
    if ev.kind == "move" then
      local k = key_of(ev.agent)
      local target = ev.target or self:agent(self.chasing[k])
      self.moves[k] = { x = ev.x, y = ev.y, target = target and key_of(target) or nil }
    end
  end
  -- walk everyone who has a move, toward the target's cell now (he runs) or the place
  for _, k in ipairs(sorted(self.moves)) do
    local m = self.moves[k]
    local c, dest = self.chars[k], m.target and self.chars[m.target]
    local a = self:agent(k)
    if not a or not move_pending(a) then
      self.moves[k] = nil
    elseif m.target and not dest then -- the one he went after is gone
      self.moves[k] = nil
      a:move_failed("target_gone")
    elseif not self.held[k] then -- (a bandit caught walks no more)
      local tx, ty = m.x, m.y
      if dest then tx, ty = dest.x, dest.y end
      c.step = c.step + SPEED[k:match("^%w+")]
      while c.step >= 1 and cheb(c.x, c.y, tx, ty) > (dest and 1 or 0) do
        c.step = c.step - 1
        c.x = c.x + (tx > c.x and 1 or tx < c.x and -1 or 0)
        c.y = c.y + (ty > c.y and 1 or ty < c.y and -1 or 0)
      end
    end
  end
  self:stagecoach()
  self:sync()
  -- arrivals, once saspu knows where everybody is
  for _, k in ipairs(sorted(self.moves)) do
    local m = self.moves[k]
    local c, dest = self.chars[k], m.target and self.chars[m.target]
    local tx, ty = m.x, m.y
    if dest then tx, ty = dest.x, dest.y end
    if cheb(c.x, c.y, tx, ty) <= (dest and 1 or 0) then
      self.moves[k] = nil
      if m.target then self.held[m.target] = true end
      self:agent(k):arrived()
    end
  end
end

-- The first time a sheriff comes within 3 cells of the bandit he chases, the bandit
-- jumps on the stagecoach: 5 cells down the street at once (a teleport for saspu).
function M:stagecoach()
  if self.coach then return end
  for _, k in ipairs(sorted(self.chasing)) do
    local s, b = self.chars[k], self.chars[self.chasing[k]]
    if s and b and self.moves[k] and cheb(s.x, s.y, b.x, b.y) <= 3 then
      b.x = math.min(WIDTH, b.x + 5)
      self.coach = true
      self:say(self.chasing[k] .. " jumps on the stagecoach")
      return
    end
  end
end

--- Tells saspu where the game has its characters (a:teleport only for those it moved).
function M:sync()
  for _, k in ipairs(sorted(self.chars)) do
    local c = self.chars[k]
    local a = self:agent(k)
    if a then
      local x, y = a:position()
      if x ~= c.x or y ~= c.y then a:teleport(c.x, c.y) end
    else
      self.chars[k] = nil
    end
  end
end

--- The game's own state and saspu's, as one table a game would write to a file.
function M:save()
  local chars, moves, chasing = {}, {}, {}
  for k, c in pairs(self.chars) do chars[k] = { x = c.x, y = c.y, step = c.step } end
  for k, m in pairs(self.moves) do moves[k] = { x = m.x, y = m.y, target = m.target } end
  for k, v in pairs(self.chasing) do chasing[k] = v end
  local held = {}
  for k, v in pairs(self.held) do held[k] = v end
  return { world = self.world:save(), frame = self.frame, chars = chars, moves = moves,
           chasing = chasing, held = held, coach = self.coach, seen = self.seen }
end

--- Loads a save into a game of its own: the world is built again, then loaded; the
-- game's tables come back from the save (saspu's pending moves are the game's to keep).
function M.load(saved, log)
  local game = M.new(log)
  game:build()
  game.world:load(saved.world)
  game.frame, game.chars, game.moves, game.chasing = saved.frame, saved.chars, saved.moves,
                                                     saved.chasing
  game.coach, game.seen, game.held = saved.coach, saved.seen, saved.held
  return game
end

--- Plays `frames` frames of `dt` (0.25 s); `opts.save_at` (a function(game) -> true)
-- saves when it first says so and goes on in a game loaded from that save. Returns
-- the game playing at the end.
function M.play(frames, opts)
  opts = opts or {}
  local game = M.new(opts.log)
  game:start()
  local saved
  while game.frame < frames do
    game:update(opts.dt or 0.25)
    if opts.save_at and not saved and opts.save_at(game) then
      saved = game:save()
      game:say("saved (" .. #saved.world .. " bytes), loaded into a new world")
      local story = game.story
      game = M.load(saved, opts.log)
      game.story = story
    end
    if opts.each then opts.each(game) end
  end
  return game
end

M.key_of = key_of
M.cheb = cheb

return M
