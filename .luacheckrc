-- .luacheckrc: luacheck settings for lua/, domains/, spec/, bench/ and bin/ (run by ./dev test).
std = "max" -- the union of Lua 5.1 to 5.4 and LuaJIT: the pure-Lua parts run on all of them
max_line_length = false -- one-line file headers are long by house style
files["spec/"] = { std = "+busted", ignore = { "212/agent" } } -- hooks take (agent, ...) by contract
files["bin/saspu"] = { globals = { "arg" } }
-- domain files run in saspu.file_env, which gives them KEEP (saspu.KEEP)
files["domains/"] = { read_globals = { "KEEP" } }
exclude_files = { "build*/", "bench/out/" }
