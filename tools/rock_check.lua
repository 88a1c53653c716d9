-- tools/rock_check.lua: ./dev test rocks: run from outside the checkout by each Lua on its rock's tree; the module must be the one built for this Lua, and plan.
local saspu = require "saspu"
local core = require "saspu.core"
local expect = assert(os.getenv("SASPU_EXPECT"), "SASPU_EXPECT names the interpreter")
local root = assert(os.getenv("SASPU_ROOT"), "SASPU_ROOT names the checkout")
local where = package.searchpath and package.searchpath("saspu.core", package.cpath) or "(5.1: no searchpath)"
assert(not where:find(root, 1, true), "loaded the checkout's module " .. where .. ", not the rock's")
assert(core._LUA == expect, ("the rock's saspu.core was built for %s, not %s"):format(tostring(core._LUA), expect))
local dom = saspu.domain_file(root .. "/domains/horse_breeder.lua")
local plan = assert(dom:plan("morning", "feed_horses"))
assert(#plan == 6 and plan[6] == "fill_feeder", "unexpected plan: " .. table.concat(plan, ", "))
print(("%s: %s, built for %s, plans %s"):format(expect, saspu._VERSION, core._LUA, table.concat(plan, ", ")))
