-- spec/support/judge.lua: judges the planner's plans against the pure-Lua BFS of spec/support/bfs.lua, for every pair or for named starts and goals.
--
-- Works on a compiled domain and its plain table. Every plan must replay (each action
-- applicable), end in the goal, use no action twice and be as short as BFS allows.
local bfs = require "support.bfs"
local saspu = require "saspu"

local ipairs, pairs, type, tostring = ipairs, pairs, type, tostring
local concat, unpack = table.concat, table.unpack or unpack

local M = {}

-- Replays the action ids out[1..n] from state `from`; returns the final values and
-- nil, or nil and an error text. `seen[id] == stamp` marks an id already used.
local function replay(S, from, out, n, seen, stamp)
  local vals = { unpack(S.values[from]) }
  for k = 1, n do
    local act = S.actions[out[k]]
    if seen[act.id] == stamp then return nil, "action " .. act.name .. " repeats" end
    seen[act.id] = stamp
    if not bfs.applicable(act, vals) then
      return nil, ("step %d %s does not apply"):format(k, act.name)
    end
    vals[act.var] = act.post
  end
  return vals
end

-- Error text for plan out[1..n] (n nil: no plan) from `from` to the total state
-- `to`, given the BFS distances from `from`; nil when the plan is right.
local function judge_total(S, from, to, out, n, dist, seen, stamp)
  local d = dist[to]
  if n == nil then
    if d ~= nil then return "no plan, but BFS reaches the goal in " .. d end
    return nil
  end
  if d == nil then return "a plan, but BFS never reaches the goal" end
  if n ~= d then return ("a plan of %d actions, BFS distance %d"):format(n, d) end
  local vals, err = replay(S, from, out, n, seen, stamp)
  if not vals then return err end
  local goal = S.values[to]
  for i = 1, S.nv do
    if vals[i] ~= goal[i] then return "the plan does not end in the goal" end
  end
  return nil
end

-- all_pairs(dom, spec) -> pairs, solvable, failures (at most 10 texts): every
-- (s0, s*) pair of total states, planned with dom:plan_ids and judged by BFS.
function M.all_pairs(dom, spec)
  local S = bfs.space(spec)
  local out, why, seen, stamp = {}, {}, {}, 0
  local count, solvable, failures = 0, 0, {}
  for from = 0, S.count - 1 do
    local dist = bfs.distances(S, from)
    local s0 = S.packed[from]
    for to = 0, S.count - 1 do
      local n = dom:plan_ids(s0, S.packed[to], out, why)
      stamp = stamp + 1
      local problem = judge_total(S, from, to, out, n, dist, seen, stamp)
      if problem and #failures < 10 then
        failures[#failures + 1] = ("%s: s0 = <%s>, s* = <%s>: %s%s"):format(spec.name,
          concat(S.values[from], ","), concat(S.values[to], ","), problem,
          n == nil and (" (" .. why.message .. ")") or "")
      end
      count = count + 1
      if dist[to] then solvable = solvable + 1 end
    end
  end
  return count, solvable, failures
end

-- The shortest BFS distance from the start values to a state that gives every
-- variable of `want` (0-based value by variable index, nil = any value) its value.
local function distance_to(S, dist, want)
  local best
  for code, d in pairs(dist) do
    if best == nil or d < best then
      local vals, ok = S.values[code], true
      for i = 1, S.nv do
        if want[i] ~= nil and vals[i] ~= want[i] then ok = false break end
      end
      if ok then best = d end
    end
  end
  return best
end

-- named(dom, spec, start, goal) -> result: a declared start and goal planned with
-- dom:plan and judged under both readings of a goal's left-out variables: `keep`
-- (they keep their start value) and `free` (don't care); a saspu.KEEP value is the start
-- value under both. result = { plan, why,
-- keep = BFS distance or nil, free = BFS distance or nil, problem = text or nil }.
-- A plan is right when it replays, uses no action twice, and is as short as BFS
-- under the reading whose goal it ends in.
function M.named(dom, spec, start_name, goal_name)
  local S = bfs.space(spec)
  local start, goal = spec.starts[start_name], spec.goals[goal_name]
  local from, want_keep, want_free = 0, {}, {}
  for i, v in ipairs(spec.variables) do
    local s0 = S.value_index[i][start[v.name]]
    from = from + s0 * S.weights[i]
    local g = goal[v.name]
    if type(g) == "boolean" then g = tostring(g) end
    if g == saspu.KEEP then -- kept under both readings
      want_free[i] = s0
    else
      want_free[i] = g and S.value_index[i][g]
    end
    want_keep[i] = want_free[i] or s0
  end
  local dist = bfs.distances(S, from)
  local r = { keep = distance_to(S, dist, want_keep), free = distance_to(S, dist, want_free) }
  r.plan, r.why = dom:plan(start_name, goal_name)
  if r.plan == nil then
    if r.keep or r.free then r.problem = "no plan, but BFS reaches the goal" end
    return r
  end
  local ids = {}
  for k, name in ipairs(r.plan) do ids[k] = dom:action_id(name) end
  local vals, err = replay(S, from, ids, #ids, {}, 1)
  if not vals then r.problem = err return r end
  local function ends_in(want)
    for i = 1, S.nv do
      if want[i] ~= nil and vals[i] ~= want[i] then return false end
    end
    return true
  end
  if not (ends_in(want_keep) and #ids == r.keep) and not (ends_in(want_free) and #ids == r.free) then
    r.problem = ("a plan of %d actions, BFS distance %s (keep) / %s (free)"):format(#ids,
      tostring(r.keep), tostring(r.free))
  end
  return r
end

return M
