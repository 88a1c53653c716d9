#!/usr/bin/env lua5.4
-- tools/check_circles.lua [MAX] [ROOT]: the circles of csrc/.
--
-- Builds a graph over the files of ROOT/csrc (default: the folder above
-- this script): an edge from a file to every file it names in an
-- #include "...", and from a .c file to every other .c file that defines
-- a function it names (a definition is a line at the left margin, not
-- static, ending in a parameter list: the house format). It prints every
-- strongly connected component of two files or more, largest first, and
-- exits 1 when one holds more than MAX files (default below: what the
-- tree holds today, so a new circle or a grown one fails the lint stage).

local DEFAULT_MAX = 3

local max = tonumber(arg[1] or DEFAULT_MAX)
if not max then
  io.stderr:write("check_circles: MAX must be a number, got '", tostring(arg[1]), "'\n")
  os.exit(2)
end
local root = arg[2] or ((arg[0]:match("^(.*)/tools/[^/]*$")) or ".")
local csrc = root .. "/csrc"

-- every .c and .h under csrc/, relative to it, sorted
local files = {}
do
  local p = io.popen("cd '" .. csrc .. "' && find . -name '*.[ch]' | sed 's|^\\./||' | LC_ALL=C sort")
  if not p then
    io.stderr:write("check_circles: cannot list ", csrc, "\n")
    os.exit(2)
  end
  for line in p:lines() do files[#files + 1] = line end
  p:close()
end
if #files == 0 then
  io.stderr:write("check_circles: no .c or .h files under ", csrc, "\n")
  os.exit(2)
end

local by_name = {} -- basename -> list of paths
for _, f in ipairs(files) do
  local base = f:match("[^/]*$")
  by_name[base] = by_name[base] or {}
  table.insert(by_name[base], f)
end

local function dir_of(f) return f:match("^(.*)/[^/]*$") or "" end

-- the file an #include "name" in `from` means: beside it, then csrc/ itself,
-- then the one file of that name anywhere under csrc/
local function resolve(from, name)
  local here = dir_of(from)
  local beside = here == "" and name or (here .. "/" .. name)
  local candidates = by_name[name:match("[^/]*$")] or {}
  for _, c in ipairs(candidates) do
    if c == beside then return c end
  end
  for _, c in ipairs(candidates) do
    if c == name then return c end
  end
  if #candidates == 1 then return candidates[1] end
  return nil
end

local KEYWORDS = { ["if"] = true, ["for"] = true, ["while"] = true, ["switch"] = true,
  ["return"] = true, ["sizeof"] = true }

local text, includes = {}, {}
for _, f in ipairs(files) do
  local h = assert(io.open(csrc .. "/" .. f, "r"))
  local s = h:read("a")
  h:close()
  -- comments and string literals name nothing
  s = s:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " ")
  local names = {}
  for name in s:gmatch('#%s*include%s*"([^"]+)"') do names[#names + 1] = name end
  includes[f] = names
  text[f] = s:gsub("'\\?.'", "0"):gsub('"[^"\n]*"', '""')
end

-- external functions and the .c file defining each
local defined_in = {}
for _, f in ipairs(files) do
  if f:match("%.c$") then
    for line in (text[f] .. "\n"):gmatch("([^\n]*)\n") do
      line = line:gsub("^__attribute__%s*%b()%s*", "")
      if line:match("^[%a_]") and not line:match("^static")
        and not line:match("^typedef") and not line:match("^extern")
        and not line:match("^struct") and not line:match("^enum") and not line:match("^union")
        and not line:match("=") and not line:match(";%s*$") then
        local name = line:match("([%a_][%w_]*)%s*%(")
        if name and not KEYWORDS[name] then defined_in[name] = f end
      end
    end
  end
end

local edges = {}
for _, f in ipairs(files) do
  local out, seen = {}, {}
  local function add(to)
    if to and to ~= f and not seen[to] then
      seen[to] = true
      out[#out + 1] = to
    end
  end
  for _, name in ipairs(includes[f]) do add(resolve(f, name)) end
  if f:match("%.c$") then
    for id in text[f]:gmatch("[%a_][%w_]*") do add(defined_in[id]) end
  end
  table.sort(out)
  edges[f] = out
end

-- Tarjan's strongly connected components, iterative (no deep recursion)
local index, low, on_stack, stack = {}, {}, {}, {}
local next_index, components = 0, {}
for _, start in ipairs(files) do
  if not index[start] then
    local work = { { start, 1 } }
    index[start], low[start] = next_index, next_index
    next_index = next_index + 1
    stack[#stack + 1], on_stack[start] = start, true
    while #work > 0 do
      local top = work[#work]
      local v, i = top[1], top[2]
      local w = edges[v][i]
      if w then
        top[2] = i + 1
        if not index[w] then
          index[w], low[w] = next_index, next_index
          next_index = next_index + 1
          stack[#stack + 1], on_stack[w] = w, true
          work[#work + 1] = { w, 1 }
        elseif on_stack[w] and index[w] < low[v] then
          low[v] = index[w]
        end
      else
        work[#work] = nil
        if #work > 0 then
          local parent = work[#work][1]
          if low[v] < low[parent] then low[parent] = low[v] end
        end
        if low[v] == index[v] then
          local comp = {}
          repeat
            local x = table.remove(stack)
            on_stack[x] = nil
            comp[#comp + 1] = x
          until x == v
          if #comp > 1 then
            table.sort(comp)
            components[#components + 1] = comp
          end
        end
      end
    end
  end
end

table.sort(components, function(a, b)
  if #a ~= #b then return #a > #b end
  return a[1] < b[1]
end)

local too_big = 0
for _, comp in ipairs(components) do
  local mark = #comp > max and "  (over " .. max .. ")" or ""
  if #comp > max then too_big = too_big + 1 end
  print(("circle of %d files%s: %s"):format(#comp, mark, table.concat(comp, " ")))
end
local largest = components[1] and #components[1] or 1
print(("csrc/: %d files, %d circles, the largest %d files (at most %d allowed)")
  :format(#files, #components, largest, max))
if too_big > 0 then
  io.stderr:write(("check_circles: %d circle(s) of more than %d files in csrc/ (listed above):"
    .. " split them so each module's header is used downward only\n"):format(too_big, max))
  os.exit(1)
end
