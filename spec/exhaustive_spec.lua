-- spec/exhaustive_spec.lua: every (s0, s*) pair of the three paper domains, planned through the Lua API and judged by a pure-Lua BFS (#slow).
--
-- For each pair: a plan iff the goal is reachable, the plan replays from s0 to s*, no
-- action repeats, and its length is the BFS distance. One BFS per start, the fast path
-- (dom:plan_ids with reused tables) for the plans.
local fixtures = require "support.domains"
local bfs = require "support.bfs"

-- Replays the action ids out[1..n] on a copy of the start values; returns an error
-- text or nil. `seen` is reused between calls: seen[id] == stamp marks an id used.
local function judge(S, from, to, out, n, dist, seen, stamp)
  local d = dist[to]
  if n == nil then
    if d ~= nil then return "no plan, but BFS reaches the goal in " .. d end
    return nil
  end
  if d == nil then return "a plan, but BFS never reaches the goal" end
  if n ~= d then return ("a plan of %d actions, BFS distance %d"):format(n, d) end
  local vals = { (table.unpack or unpack)(S.values[from]) }
  for k = 1, n do
    local act = S.actions[out[k]]
    if seen[act.id] == stamp then return "action " .. act.name .. " repeats" end
    seen[act.id] = stamp
    if not bfs.applicable(act, vals) then
      return ("step %d %s does not apply"):format(k, act.name)
    end
    vals[act.var] = act.post
  end
  local goal = S.values[to]
  for i = 1, S.nv do
    if vals[i] ~= goal[i] then return "the plan does not end in the goal" end
  end
  return nil
end

local function check_domain(name)
  local dom = fixtures.domain(name)
  local S = bfs.space(fixtures.spec(name))
  local out, why, seen, stamp = {}, {}, {}, 0
  local pairs_count, solvable, failures = 0, 0, {}
  for from = 0, S.count - 1 do
    local dist = bfs.distances(S, from)
    local s0 = S.packed[from]
    for to = 0, S.count - 1 do
      local n = dom:plan_ids(s0, S.packed[to], out, why)
      stamp = stamp + 1
      local problem = judge(S, from, to, out, n, dist, seen, stamp)
      if problem and #failures < 10 then
        failures[#failures + 1] = ("%s: s0 = <%s>, s* = <%s>: %s%s"):format(name,
          table.concat(S.values[from], ","), table.concat(S.values[to], ","), problem,
          n == nil and (" (" .. why.message .. ")") or "")
      end
      pairs_count = pairs_count + 1
      if dist[to] then solvable = solvable + 1 end
    end
  end
  return pairs_count, solvable, failures
end

describe("the exhaustive check against BFS #slow", function()
  local expected = {
    { "horse_breeder", 324, 117 },
    { "citizen", 82944, 12512 },
    { "acquisition_machine", 65536, 1760 },
  }
  for _, e in ipairs(expected) do
    it(("plans every pair of %s like BFS (%d pairs, %d solvable)"):format(e[1], e[2], e[3]),
      function()
        local count, solvable, failures = check_domain(e[1])
        assert.same({}, failures)
        assert.equal(e[2], count)
        assert.equal(e[3], solvable)
      end)
  end
end)
