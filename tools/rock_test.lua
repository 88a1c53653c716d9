-- tools/rock_test.lua: what `luarocks test` runs (the rockspecs' test section): busted, as installed (Debian's lua-busted or a busted rock), on LuaRocks' own Lua.
--
-- LuaRocks runs this script with the interpreter it builds for and passes the
-- test flags (--run=rock: the installed module, no path of the checkout) and the
-- caller's arguments. busted is not a test dependency, so nothing is fetched from
-- the network: a machine without busted gets a message naming how to install it.
-- luarocks.loader, where present, finds the rock in any of LuaRocks' trees.
pcall(require, "luarocks.loader")
local ok, runner = pcall(require, "busted.runner")
if not ok then
  io.stderr:write("saspu's tests need busted for ", _VERSION, ": apt-get install lua-busted (Debian), ",
    "or luarocks --lua-version ", _VERSION:match("%d+%.%d+"), " install busted\n")
  os.exit(1)
end
runner({ standalone = false })
