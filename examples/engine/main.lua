-- examples/engine/main.lua: plays examples/engine/game.lua and prints its story: the game moves its characters, saspu says where they go. Run from the repository root: lua5.4 examples/engine/main.lua (after `eval "$(./dev env)"`, or with saspu installed).
package.path = "examples/engine/?.lua;" .. package.path
local game = require "game"

-- save in the middle of the chase: the sheriff is on his way to the bandit
local function mid_chase(g)
  local k = next(g.chasing)
  return k ~= nil and g.moves[k] ~= nil and g.coach
end

local final = game.play(80, { log = print, save_at = mid_chase })
print(string.format("after %d frames: alarm %s, %d bandit(s) left", final.frame,
                    final.world:get("alarm"), final.crowds.bandit:size()))
