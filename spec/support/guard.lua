-- spec/support/guard.lua: the guard domain of the world-change specs: a guard strolls to the bank only while the alarm is quiet; coffee does not care.
local saspu = require "saspu"

local M = {}

M.GUARD = {
  name = "guard",
  variables = {
    { name = "alarm", values = { "quiet", "ringing" } },
    { name = "post", values = { "home", "bank" } },
    { name = "coffee", values = { "no", "yes" } },
  },
  actions = {
    { name = "stroll", var = "post", pre = "home", post = "bank", prevail = { alarm = "quiet" } },
    { name = "flee", var = "post", pre = "bank", post = "home", prevail = { alarm = "ringing" } },
    { name = "brew", var = "coffee", pre = "no", post = "yes" },
  },
  goals = {},
}

-- The guard domain, with `changes` (fields of the domain table) made to a copy.
function M.domain(changes)
  local d = {}
  for k, v in pairs(M.GUARD) do d[k] = v end
  if changes then for k, v in pairs(changes) do d[k] = v end end
  return saspu.domain(d)
end

return M
