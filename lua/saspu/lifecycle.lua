-- lua/saspu/lifecycle.lua: agents the game removes, places and moves itself: a:despawn, a:teleport, and the answers to engine moves (a:arrived, a:move_failed).
--
-- The C side (csrc/agents/lifecycle.c, csrc/lua/crowd.c) does the work; these methods
-- check the arguments, name the call in errors and drop the script side's records of
-- a despawned agent. lua/saspu/crowd.lua installs them on saspu.Agent.
local type, pcall, error, tostring = type, pcall, error, tostring
local format = string.format

local M = {}

--- Part of module saspu: the Agent methods of lifecycle.lua (LDoc merges it, config.ld).
-- @module saspu

--- @type Agent

--- Installs the methods on `Agent`; `private` holds sides.lua's crowd_side(c [, level]),
-- and check_cell(world, x, y, where).
-- @local
function M.install(Agent, private)
  local crowd_side, check_cell = private.crowd_side, private.check_cell

  --- Removes the agent from its crowd at once (`a:despawn()`). Its place reservation is
  -- released and it emits no more events (those of this frame not read yet are skipped);
  -- `a:alive()` is then false and every other method raises "saspu.Agent: despawned". A
  -- later spawn may reuse its slot (and index) but never this handle. Despawning twice
  -- raises "saspu.Agent:despawn: the agent was despawned already".
  -- @function Agent:despawn
  -- @raise "saspu.Agent:despawn: the agent was despawned already";
  -- "saspu.Agent:despawn: its crowd is closed".
  function Agent.despawn(self)
    local ok, c = pcall(self.crowd, self)
    if not ok then
      if tostring(c):find("despawned", 1, true) then
        error("saspu.Agent:despawn: the agent was despawned already", 2)
      end
      error("saspu.Agent:despawn: " .. tostring(c):gsub("^saspu.Agent: ", ""), 2)
    end
    c:despawn(self:index()) -- hooks.lua's forget drops the script side's records
  end

  --- Puts the agent on cell (x, y) now (`a:teleport(x, y)`). A walk in progress goes on
  -- from there to the same target (a bound place stays bound and reserved); with
  -- movement = "engine" this keeps saspu's idea of the position in step with the game's.
  -- A wall or a cell outside the grid raises and changes nothing.
  -- @function Agent:teleport
  -- @int x
  -- @int y
  -- @raise "saspu.Agent:teleport: x = 9 is outside 1..4"; "saspu.Agent:teleport: cell (2, 2)
  -- is blocked"; "saspu.Agent: despawned (agent 1 of 'horse_breeder')"; "saspu.Agent: its
  -- crowd is closed".
  function Agent.teleport(self, x, y)
    local c = self:crowd()
    check_cell(crowd_side(c).world, x, y, "saspu.Agent:teleport")
    c:teleport(self:index(), x, y)
  end

  -- The refusal of an engine-move answer, without the C prefix.
  local function move_refusal(c, i, err)
    return format("agent %d of '%s': %s", i, crowd_side(c, 3).names.name,
                  (tostring(err):gsub("^crowd: agent %d+:? ?", "")))
  end

  --- Crowds with movement = "engine": the game moved the agent to the target of its
  -- `move` event (`a:arrived([x, y])`); the next update says `arrived` and its step
  -- acts. A place's or a cell's target puts the agent on that cell; an agent target
  -- (`at = { agent = ... }`) leaves it where the game last put it, and is judged now:
  -- farther than the reach from the target's cell raises with the distance. `x, y` put
  -- the agent there first (as `a:teleport`). Returns true; false, "move_cancelled" when
  -- the step ended since its `move` (a `move_cancelled` event comes with the next
  -- update). Raises when no move is pending.
  -- @function Agent:arrived
  -- @int[opt] x
  -- @int[opt] y
  -- @treturn boolean
  -- @treturn[opt] string "move_cancelled"
  -- @raise "saspu.Agent:arrived: agent 1 of 'horse_breeder': has no move pending (phase
  -- thinking)"; "saspu.Agent:arrived: agent 1 of 'sheriff': is 5 cells from its target at
  -- (9, 2), reach 1"; the closed and despawned errors of `Agent:teleport`.
  function Agent.arrived(self, x, y)
    local c = self:crowd()
    local i = self:index()
    if x ~= nil or y ~= nil then
      check_cell(crowd_side(c).world, x, y, "saspu.Agent:arrived")
      if c:pending(i) then c:teleport(i, x, y) end
    end
    local ok, err = c:control(i, "arrived")
    if ok then return true end
    if tostring(err):find("its move was cancelled", 1, true) then
      return false, "move_cancelled"
    end
    error("saspu.Agent:arrived: " .. move_refusal(c, i, err), 2)
  end

  --- Crowds with movement = "engine": the game could not move the agent to its `move`
  -- target (`a:move_failed([reason])`). The next update fails the step like an
  -- unreachable target: event `step_failed` with `reason` (default "move_failed"), the
  -- place is avoided for the crowd's cooldown and the agent replans. Raises when no move
  -- is pending.
  -- @function Agent:move_failed
  -- @tparam[opt] string reason
  -- @raise "saspu.Agent:move_failed: reason must be a string, got number";
  -- "saspu.Agent:move_failed: agent 1 of 'horse_breeder': has no move pending (phase
  -- thinking)"; the closed and despawned errors of `Agent:teleport`.
  function Agent.move_failed(self, reason)
    if reason ~= nil and type(reason) ~= "string" then
      error("saspu.Agent:move_failed: reason must be a string, got " .. type(reason), 2)
    end
    local c = self:crowd()
    local side, i = crowd_side(c), self:index()
    local id = side.next_msg + 1
    local ok, err = c:control(i, "move_failed", id)
    if not ok then error("saspu.Agent:move_failed: " .. move_refusal(c, i, err), 2) end
    side.next_msg, side.msgs[id] = id, reason or "move_failed"
  end
end

return M
