-- spec/support/domains.lua: fresh copies of the paper domain tables and small helpers shared by the specs.
local saspu = require "saspu"

local M = {}

M.files = {
  horse_breeder = "domains/horse_breeder.lua",
  horse_breeder_ijcai = "domains/horse_breeder_ijcai.lua",
  citizen = "domains/citizen.lua",
  acquisition_machine = "domains/acquisition_machine.lua",
  -- the rest of the Western town's cast (Red Dead Redemption 2)
  farrier = "domains/farrier.lua",
  native_hunter = "domains/native_hunter.lua",
  bandit = "domains/bandit.lua",
  innkeeper = "domains/innkeeper.lua",
  dancer = "domains/dancer.lua",
  drunk_citizen = "domains/drunk_citizen.lua",
}

-- The seven classes of the Western town, in the papers' order.
M.cast = { "horse_breeder", "farrier", "native_hunter", "bandit", "innkeeper", "dancer",
           "drunk_citizen" }

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
