-- spec/support/gray.lua: a 3-bit Gray-code counter, outside the classes: two prevails on 'bit1' tie the requesters of 'bit0'.
local variables, actions = {}, {}
for i = 0, 2 do
  variables[#variables + 1] = { name = "bit" .. i, values = { "0", "1" } }
end
-- bit1 flips with bit0 = 1; bit2 flips with bit0 = 0 and bit1 = 1.
local needs = { [1] = { bit0 = "1" }, [2] = { bit0 = "0", bit1 = "1" } }
for i = 0, 2 do
  local bit = "bit" .. i
  actions[#actions + 1] = { name = "set" .. i, var = bit, pre = "0", post = "1", prevail = needs[i] }
  actions[#actions + 1] = { name = "reset" .. i, var = bit, pre = "1", post = "0", prevail = needs[i] }
end
return {
  name = "gray",
  variables = variables,
  actions = actions,
  starts = { zero = { bit0 = "0", bit1 = "0", bit2 = "0" } },
  goals = { four = { bit2 = "1" } },
}
