-- lua/saspu/lifecycle.lua: agents the game removes, places and moves itself: a:despawn, a:teleport, and the answers to engine moves (a:arrived, a:move_failed).
--
-- The C side (csrc/agents/lifecycle.c, csrc/lua/crowd.c) does the work; these methods
-- check the arguments, name the call in errors and drop the script side's records of
-- a despawned agent. lua/saspu/crowd.lua installs them on saspu.Agent.
local type, pcall, error, tostring, ipairs = type, pcall, error, tostring, ipairs
local format, remove = string.format, table.remove

local M = {}

--- Part of module saspu: the Agent methods of lifecycle.lua (LDoc merges it, config.ld).
-- @module saspu

--- @type Agent

--- Installs the methods on `Agent`; `private` holds sides.lua's crowd_side(c [, level]),
-- check_cell(world, x, y, where) and hooks.lua's drop_running(side, agent).
-- @local
function M.install(Agent, private)
  local crowd_side, check_cell, drop_running =
    private.crowd_side, private.check_cell, private.drop_running

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
    local side = crowd_side(c)
    local i = self:index()
    c:despawn(i)
    drop_running(side, i)
    if side.watch[i] then side.watching = side.watching - 1 end
    side.pending_target[i], side.failed[i], side.watch[i] = nil, nil, nil
    for _, q in ipairs { side.extra, side.extra_next } do
      for k = #q, 1, -1 do
        if q[k].agent == i then remove(q, k) end
      end
    end
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
  -- `move` event (`a:arrived()`); the next update puts it on the target cell (event
  -- `arrived`) and its step acts. Raises when no move is pending.
  -- @function Agent:arrived
  -- @raise "saspu.Agent:arrived: agent 1 of 'horse_breeder': has no move pending (phase
  -- thinking)"; the closed and despawned errors of `Agent:teleport`.
  function Agent.arrived(self)
    local c = self:crowd()
    local i = self:index()
    local ok, err = c:control(i, "arrived")
    if not ok then error("saspu.Agent:arrived: " .. move_refusal(c, i, err), 2) end
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
