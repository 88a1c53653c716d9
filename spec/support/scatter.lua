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

-- world:near's answer by brute force over `crowds` (a world's, in creation order): the
-- agents within r as { distance, crowd number, index, crowd }, nearest first, then by
-- crowd order and index; the first `max` only when max > 0.
function M.near_answer(crowds, x, y, r, max)
  local want = {}
  for ci, c in ipairs(crowds) do
    for i = 1, c:size() do
      local ax, ay = c:position(i)
      local d = M.cheb(ax, ay, x, y)
      if d <= r then want[#want + 1] = { d, ci, i, c } end
    end
  end
  table.sort(want, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  if max and max > 0 then
    for k = #want, max + 1, -1 do want[k] = nil end
  end
  return want
end

return M
