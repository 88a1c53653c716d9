-- spec/support/bfs.lua: a pure-Lua breadth-first search over the state space of a plain domain table, the judge for the planner.
--
-- Knows nothing of saspu: it reads the table format of domains/*.lua directly. States are
-- numbered in mixed radix (the first variable varies slowest) and also given as packed
-- strings (one byte per variable, 0-based value index), the form dom:plan_ids takes.
local ipairs, pairs, char, byte, unpack = ipairs, pairs, string.char, string.byte, table.unpack or unpack
local floor = math.floor

local M = {}

-- space(spec) -> the state space: variables, numeric actions, every state packed, and
-- the successor lists (state -> { state reached by action id, ... }).
function M.space(spec)
  local S = { sizes = {}, value_index = {}, var_index = {}, actions = {} }
  local nv = #spec.variables
  S.nv = nv
  for i, v in ipairs(spec.variables) do
    S.var_index[v.name] = i
    S.sizes[i] = #v.values
    local idx = {}
    for j, name in ipairs(v.values) do idx[name] = j - 1 end
    S.value_index[i] = idx
  end
  -- weight of variable i: product of the sizes after it
  S.weights = {}
  local w = 1
  for i = nv, 1, -1 do
    S.weights[i] = w
    w = w * S.sizes[i]
  end
  local count = w
  S.count = count
  for id, a in ipairs(spec.actions) do
    local v = S.var_index[a.var]
    local act = { id = id, name = a.name, var = v, pre = S.value_index[v][a.pre],
                  post = S.value_index[v][a.post], prevail = {} }
    for pv, value in pairs(a.prevail or {}) do
      local pi = S.var_index[pv]
      act.prevail[#act.prevail + 1] = { var = pi, value = S.value_index[pi][value] }
    end
    S.actions[id] = act
  end
  -- every state: its values and packed form
  S.values, S.packed = {}, {}
  for code = 0, count - 1 do
    local vals, rest = {}, code
    for i = 1, nv do
      vals[i] = floor(rest / S.weights[i]) -- no // before Lua 5.3
      rest = rest % S.weights[i]
    end
    S.values[code] = vals
    S.packed[code] = char(unpack(vals))
  end
  -- successors: succ[code] = { next_code, action_id, next_code, action_id, ... }
  S.succ = {}
  for code = 0, count - 1 do
    local vals, list = S.values[code], {}
    for _, act in ipairs(S.actions) do
      if M.applicable(act, vals) then
        list[#list + 1] = code + (act.post - act.pre) * S.weights[act.var]
        list[#list + 1] = act.id
      end
    end
    S.succ[code] = list
  end
  return S
end

-- Is the numeric action applicable to the state values (0-based, by variable)?
function M.applicable(act, vals)
  if vals[act.var] ~= act.pre then return false end
  for _, p in ipairs(act.prevail) do
    if vals[p.var] ~= p.value then return false end
  end
  return true
end

-- distances(S, from) -> dist[code] for every state reachable from `from` (nil if not).
function M.distances(S, from)
  local dist, queue, head = { [from] = 0 }, { from }, 1
  while head <= #queue do
    local code = queue[head]
    head = head + 1
    local d, list = dist[code] + 1, S.succ[code]
    for k = 1, #list, 2 do
      local nxt = list[k]
      if dist[nxt] == nil then
        dist[nxt] = d
        queue[#queue + 1] = nxt
      end
    end
  end
  return dist
end

-- code(S, packed) -> the state number of a packed state.
function M.code(S, packed)
  local code = 0
  for i = 1, S.nv do code = code + byte(packed, i) * S.weights[i] end
  return code
end

return M
