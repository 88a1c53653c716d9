-- spec/support/docs.lua: runs the ```lua examples of the guides (README.md, docs/*.md) and checks their printed output.
--
-- A guide's ```lua blocks run in order. A block that starts with `local saspu = require`
-- begins a new program; any other block continues the one before it (its locals are
-- seen), as a reader reads them. A line `<!-- not run: why -->` right above the fence
-- leaves a block out. On a line `print(...) --> text`, the printed values (joined by
-- tabs) must read `text`: whitespace runs compare equal, `...` stands for any text, and
-- an integral number may be written `7.0` or `7` (Lua before 5.3 prints the latter).
local compat = require "support.compat"

local M = {}

local NOT_RUN = "^%s*<!%-%- not run:.*%-%->%s*$"

-- M.programs(path) -> { { line = first block's line, code = text, expects = { text, ... } } }
function M.programs(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = line end
  local programs, i = {}, 1
  while i <= #lines do
    if lines[i]:match("^```lua%s*$") then
      local skip = i > 1 and lines[i - 1]:match(NOT_RUN)
      local first, body = i, {}
      i = i + 1
      while i <= #lines and not lines[i]:match("^```%s*$") do
        body[#body + 1] = lines[i]
        i = i + 1
      end
      assert(i <= #lines, path .. ":" .. first .. ": unclosed ```lua block")
      if not skip then
        local starts = (body[1] or ""):match("^local saspu = require")
        local prog = programs[#programs]
        if starts or not prog then
          prog = { line = first, lines = {}, expects = {} }
          programs[#programs + 1] = prog
        end
        for _, l in ipairs(body) do prog.lines[#prog.lines + 1] = M.rewrite(l, prog.expects) end
      end
    end
    i = i + 1
  end
  for _, p in ipairs(programs) do p.code = table.concat(p.lines, "\n") end
  return programs
end

-- A line `... print(args) --> text` becomes `... __expect(k, args)` with text as expects[k].
function M.rewrite(line, expects)
  local at = line:find("print(", 1, true)
  if not at then return line end
  local args = line:match("^%b()", at + 5)
  if not args then return line end
  local want = line:sub(at + 5 + #args):match("^%s*%-%->%s?(.*)$")
  if not want then return line end
  expects[#expects + 1] = want
  return line:sub(1, at - 1) .. "__expect(" .. #expects .. ", " .. args:sub(2)
end

local function normal(s)
  s = s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  return (s:gsub("(%d)%.0+(%f[^%d])", "%1%2"))
end

-- True when the printed text `got` reads as `want`.
function M.matches(want, got)
  want, got = normal(want), normal(got)
  local pattern = {}
  for piece in (want .. "..."):gmatch("(.-)%.%.%.") do
    pattern[#pattern + 1] = piece:gsub("%p", "%%%0")
  end
  return got:match("^" .. table.concat(pattern, ".-") .. "$") ~= nil
end

local function joined(...)
  local t = { n = select("#", ...), ... }
  for k = 1, t.n do t[k] = tostring(t[k]) end
  return table.concat(t, "\t", 1, t.n)
end

-- M.run(path, prog) -> printed lines; raises naming the guide's line on an error, a
-- wrong output or an expectation never reached.
function M.run(path, prog)
  local printed, seen = {}, {}
  local where = path .. ":" .. prog.line
  local env = setmetatable({
    print = function(...) printed[#printed + 1] = joined(...) end,
    __expect = function(k, ...)
      local got = joined(...)
      printed[#printed + 1] = got
      seen[k] = true
      if not M.matches(prog.expects[k], got) then
        error(string.format("%s: example prints %q, the guide says %q", where, got,
          prog.expects[k]), 2)
      end
    end,
  }, { __index = _G })
  local chunk = assert(compat.load_text(prog.code, "@" .. where, env))
  chunk()
  for k, want in ipairs(prog.expects) do
    if not seen[k] then error(where .. ": the example never printed " .. string.format("%q", want)) end
  end
  return printed
end

-- M.example(path, heading) -> the printed lines of the program holding the first
-- ```lua block after `heading` in a guide.
function M.example(path, heading)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  local at = assert(("\n" .. text):find("\n" .. heading .. "\n", 1, true), path .. ": no heading " .. heading)
  local line = select(2, text:sub(1, at):gsub("\n", "")) + 1
  for _, prog in ipairs(M.programs(path)) do
    if prog.line > line then return M.run(path, prog) end
  end
  error(path .. ": no example after " .. heading)
end

return M
