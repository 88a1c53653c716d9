-- spec/support/scatter.lua: random crowds for the spatial specs (perception, sensors): a deterministic generator, the Chebyshev distance, and agents spawned on random open cells.
local M = {}

-- A small deterministic generator (a spec must not depend on math.random's seed):
-- rand(lo, hi) gives an integer in lo..hi.
function M.rng(seed)
  local x = seed
  return function(lo, hi)
    x = (x * 48271) % 2147483647 -- exact in a double too (Lua 5.1, LuaJIT)
    return lo + math.floor(x / 65536) % (hi - lo + 1)
  end
end

-- The Chebyshev distance: the steps of the 8-neighbour walk.
function M.cheb(ax, ay, bx, by)
  return math.max(math.abs(ax - bx), math.abs(ay - by))
end

-- A random cell of w x h that `grid` (optional) does not block.
function M.open_cell(rand, w, h, grid)
  local x, y
  repeat x, y = rand(1, w), rand(1, h) until not (grid and grid:is_blocked(x, y))
  return x, y
end

-- Spawns n agents of `crowd` from `start` on random open cells; their handles.
function M.spawn(crowd, n, start, rand, w, h, grid)
  local out = {}
  for i = 1, n do
    local x, y = M.open_cell(rand, w, h, grid)
    out[i] = crowd:spawn { start = start, x = x, y = y }
  end
  return out
end

return M
