-- spec/binding_layout_spec.lua: the binding's files (csrc/lua/*.c) call each other in one direction only: no circle of calls between files (docs/STYLE: a type file never calls the files built on it).
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function c_files()
  local list = {}
  local p = assert(io.popen("ls csrc/lua/*.c"))
  for path in p:lines() do list[#list + 1] = path end
  p:close()
  return list
end

-- The functions binding.h declares (the ones the files share): name -> true.
local function shared_functions()
  local names = {}
  for line in read("csrc/lua/binding.h"):gmatch("[^\n]+") do
    local name = line:match("^[%a_][%w_ %*]-[%s%*]([%a_][%w_]*)%(")
    if name and not line:match("^typedef") then names[name] = true end
  end
  return names
end

-- file -> { [other file] = the first shared function of it that this file calls }.
local function call_graph()
  local shared, defined_in, bodies = shared_functions(), {}, {}
  for _, path in ipairs(c_files()) do
    local file = path:match("[^/]+$")
    local text = read(path):gsub("/%*.-%*/", "") -- comments name functions too
    bodies[file] = text
    for line in text:gmatch("[^\n]+") do
      local name = line:match("^[%a_][%w_ %*]-[%s%*]([%a_][%w_]*)%(")
      if name and shared[name] and not line:match("^static") and not line:match(";%s*$") then
        defined_in[name] = file
      end
    end
  end
  local graph = {}
  for file, text in pairs(bodies) do
    graph[file] = {}
    for name, home in pairs(defined_in) do
      if home ~= file and text:find("%f[%w_]" .. name .. "%s*%(") then graph[file][home] = name end
    end
  end
  return graph, defined_in
end

-- A circle of files, as "a.c -(f)-> b.c -(g)-> a.c", or nil.
local function find_circle(graph)
  local state, stack = {}, {}
  local function visit(file)
    state[file] = "open"
    stack[#stack + 1] = file
    for next_file in pairs(graph[file]) do
      if state[next_file] == "open" then
        local parts, from = {}, nil
        for i = 1, #stack do if stack[i] == next_file then from = i end end
        for i = from, #stack do
          local to = stack[i + 1] or next_file
          parts[#parts + 1] = stack[i] .. " -(" .. graph[stack[i]][to] .. ")-> "
        end
        return table.concat(parts) .. next_file
      elseif not state[next_file] then
        local found = visit(next_file)
        if found then return found end
      end
    end
    stack[#stack] = nil
    state[file] = "done"
  end
  local files = {}
  for file in pairs(graph) do files[#files + 1] = file end
  table.sort(files)
  for _, file in ipairs(files) do
    if not state[file] then
      local found = visit(file)
      if found then return found end
    end
  end
end

describe("csrc/lua/", function()
  it("has no circle of calls between its files", function()
    local graph, defined_in = call_graph()
    assert.is_truthy(defined_in.check_crowd, "the scan finds the shared functions")
    assert.is_truthy(graph["crowd_agents.c"]["crowd.c"], "the scan finds calls between files")
    assert.is_nil(find_circle(graph))
  end)

  it("finds a circle when there is one", function()
    assert.equal("a.c -(f)-> b.c -(g)-> a.c",
                 find_circle { ["a.c"] = { ["b.c"] = "f" }, ["b.c"] = { ["a.c"] = "g" } })
    assert.is_nil(find_circle { ["a.c"] = { ["b.c"] = "f" }, ["b.c"] = {} })
  end)
end)
