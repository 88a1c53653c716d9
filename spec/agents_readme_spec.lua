-- spec/agents_readme_spec.lua: the README's Agents example runs as printed and ends as it says.
local support = require "support.agents"

describe("README Agents example", function()
  it("runs and reaches its goals", function()
    local lines = support.readme_example("## Agents")
    assert.equal("true\t1", lines[#lines])
    assert.truthy(#lines > 10)
  end)
end)
