-- tests/lua/western_plans.lua: one Western class as tests/lua_western_cast.c writes it from the C builtin: domain, actions, starts, goals and the plan of every state to every goal.
local saspu = require "saspu"

-- describe(class, root) -> text: what root/domains/<class>.lua compiles to in the Lua module.
return function(class, root)
  local spec = saspu.load((root or ".") .. "/domains/" .. class .. ".lua")
  local dom = saspu.domain(spec)
  local out = {}
  local function line(s) out[#out + 1] = s end
  local vars = dom:variables()
  line("domain " .. dom.name .. " " .. dom.class)
  for _, v in ipairs(vars) do
    line("variable " .. v.name .. " " .. table.concat(v.values, " "))
  end
  for _, a in ipairs(dom:actions()) do
    local conds = {}
    for i, v in ipairs(vars) do
      if a.prevail[v.name] ~= nil then conds[#conds + 1] = v.name .. "=" .. a.prevail[v.name] end
      if i == #vars then conds[#conds + 1] = "" end
    end
    line(string.format("action %s %s %s->%s %s%s", a.name, a.var, a.pre, a.post,
                       table.concat(conds, " "), a.requestable and "requestable" or "-"))
  end
  -- a state or goal: value names, "*" for free, "KEEP" for a kept start value
  local function show(s)
    local words = {}
    for i, v in ipairs(vars) do
      local x = s[v.name]
      words[i] = x == nil and "*" or x == saspu.KEEP and "KEEP" or x
    end
    return table.concat(words, " ")
  end
  local function names(t)
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys)
    return keys
  end
  local goal_names = names(spec.goals)
  for _, n in ipairs(names(spec.starts)) do line("start " .. n .. " = " .. show(spec.starts[n])) end
  for _, n in ipairs(goal_names) do line("goal " .. n .. " = " .. show(spec.goals[n])) end
  -- every state (first variable fastest) to every named goal
  local idx = {}
  for i = 1, #vars do idx[i] = 1 end
  while true do
    local s = {}
    for i, v in ipairs(vars) do s[v.name] = v.values[idx[i]] end
    for _, g in ipairs(goal_names) do
      local plan, why = dom:plan(s, g)
      local steps = plan and (#plan > 0 and " " .. table.concat(plan, " ") or "")
      line(string.format("plan %s -> %s:%s", show(s), g, steps or " none (" .. why.code .. ")"))
    end
    local i = 1
    while i <= #vars and idx[i] == #vars[i].values do
      idx[i] = 1
      i = i + 1
    end
    if i > #vars then break end
    idx[i] = idx[i] + 1
  end
  dom:close()
  return table.concat(out, "\n") .. "\n"
end
