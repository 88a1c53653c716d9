-- .luacheckrc: luacheck settings for lua/, domains/, spec/, bench/ and bin/ (run by ./dev test).
std = "lua54"
max_line_length = false -- one-line file headers are long by house style
files["spec/"] = { std = "+busted" }
files["bin/saspu"] = { globals = { "arg" } }
exclude_files = { "build*/", "bench/out/" }
