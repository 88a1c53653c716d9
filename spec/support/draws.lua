-- spec/support/draws.lua: the save specs' deterministic draws (where each agent of their Western town spawns), the same on every Lua version.
local M = {}

-- rng(seed) -> draw, draw(n) an integer in 1..n; the same seed gives the same draws.
function M.rng(seed)
  local s = (seed * 7919 + 104729) % 2147483647
  return function(n)
    s = (s * 48271) % 2147483647
    return s % n + 1
  end
end

return M
