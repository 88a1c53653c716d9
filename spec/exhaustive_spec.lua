-- spec/exhaustive_spec.lua: every (s0, s*) pair of the three paper domains, planned through the Lua API and judged by a pure-Lua BFS (#slow).
--
-- For each pair: a plan iff the goal is reachable, the plan replays from s0 to s*, no
-- action repeats, and its length is the BFS distance (spec/support/judge.lua).
local fixtures = require "support.domains"
local judge = require "support.judge"

local function check_domain(name)
  return judge.all_pairs(fixtures.domain(name), fixtures.spec(name))
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
