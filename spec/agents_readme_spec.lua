-- spec/agents_readme_spec.lua: the README's Agents example runs as printed and ends as it says.
local compat = require "support.compat"

describe("README Agents example", function()
  it("runs and reaches its goals", function()
    local f = assert(io.open("README.md"))
    local text = f:read("*a")
    f:close()
    local section = text:match("## Agents.-```lua\n(.-)```")
    assert.is_string(section)
    local lines = {}
    local env = setmetatable({ print = function(...)
      local t = { n = select("#", ...), ... }
      for i = 1, t.n do t[i] = tostring(t[i]) end
      lines[#lines + 1] = table.concat(t, "\t", 1, t.n)
    end }, { __index = _G })
    assert(compat.load_text(section, "README", env))()
    assert.equal("true\t1", lines[#lines])
    assert.truthy(#lines > 10)
  end)
end)
