-- spec/agents_readme_spec.lua: the Agents guide's first example (docs/agents.md) runs as printed and ends as it says.
local docs = require "support.docs"

describe("docs/agents.md example", function()
  it("runs and reaches its goals", function()
    local lines = docs.example("docs/agents.md", "# Agents (saspu.world): NPCs that carry out their plans")
    assert.equal("true\t1", lines[#lines])
    assert.truthy(#lines > 10)
  end)
end)
