-- spec/support/domains.lua: fresh copies of the paper domain tables and small helpers shared by the specs.
local saspu = require "saspu"

local M = {}

M.files = {
  horse_breeder = "domains/horse_breeder.lua",
  citizen = "domains/citizen.lua",
  acquisition_machine = "domains/acquisition_machine.lua",
}

-- A fresh plain table (specs may edit it freely).
function M.spec(name)
  return saspu.load(M.files[name])
end

-- A freshly compiled domain.
function M.domain(name)
  return saspu.domain(M.spec(name))
end

-- The keys of a table, sorted.
function M.sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

return M
