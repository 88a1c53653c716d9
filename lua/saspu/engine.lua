-- lua/saspu/engine.lua: crowds the game moves (movement = "engine"): the moves pending (crowd:moves, a:moving), their agent targets, and a:teleport's quick path.
--
-- The C side (csrc/agents/engine.c, csrc/lua/crowd_engine.c) does the work;
-- lua/saspu/crowd.lua installs these methods on saspu.Crowd and saspu.Agent.
local ipairs = ipairs

local M = {}

--- Part of module saspu: the Crowd and Agent methods of engine.lua (LDoc merges it, config.ld).
-- @module saspu

--- @type Crowd

--- Installs the methods; `private` holds sides.lua's crowd_side(c [, level]).
-- @local
function M.install(Crowd, Agent, private)
  local crowd_side = private.crowd_side
  local pending, moves_raw, move_target = Crowd.pending, Crowd._moves, Crowd._move_target
  local index, crowd_of = Agent.index, Agent.crowd

  -- The agent that agent i of crowd c goes to: a saspu.Agent, false when it is gone
  -- (the update fails the step with target_gone), nil when its target is no agent.
  local function target_of(c, i)
    local id, t, live = move_target(c, i)
    if not id then return nil end
    if not live then return false end
    for _, k in ipairs(crowd_side(c, 3).wside.crowds) do
      if k:is_open() and k:_core_id() == id then return k:agent(t) end
    end
    return false
  end
  M.target_of = target_of

  --- Lists the moves waiting for the game's answer (`crowd:moves(out)`): four entries
  -- per move in `out` from `out[1]` on: the agent's index, the target cell `x, y` and
  -- the agent it goes to (a `saspu.Agent`, or false for a place or a cell), agents in
  -- index order. Entries past those written are left as they are.
  -- @function Crowd:moves
  -- @tab out the table to fill
  -- @treturn int the number of moves
  -- @raise "bad argument #2 to 'moves' (table expected, got nil)"; "saspu.Crowd: closed".
  function Crowd.moves(self, out)
    local n, chasers = moves_raw(self, out)
    if chasers > 0 then
      for k = 1, 4 * n, 4 do
        local t = target_of(self, out[k])
        if t then out[k + 3] = t end
      end
    end
    return n
  end

  --- @type Agent

  --- True while the agent's move waits for the game (`a:moving()`): a `move` event was
  -- sent and neither `a:arrived()` nor `a:move_failed()` answered it yet. Crowds that
  -- saspu moves always say false.
  -- @function Agent:moving
  -- @treturn boolean
  -- @raise "saspu.Agent: despawned (agent 1 of 'horse_breeder')"; "saspu.Agent: closed
  -- (its crowd is closed)".
  function Agent.moving(self)
    return pending(crowd_of(self), index(self))
  end

  -- a:teleport: the C call alone when it succeeds; the checks, with their messages,
  -- otherwise.
  local teleport, try_teleport = Agent.teleport, Agent._teleport
  Agent.teleport = function(self, x, y)
    if not try_teleport(self, x, y) then return teleport(self, x, y) end
  end
end

return M
