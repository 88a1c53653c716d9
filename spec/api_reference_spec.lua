-- spec/api_reference_spec.lua: the LDoc reference (./dev docs) documents every public function of the module, each with the errors it raises, and nothing that does not exist.
--
-- It runs ldoc (Debian's lua-ldoc, in ./dev's PACKAGES) on config.ld into a temporary
-- folder, reads the entries of the pages it writes, and walks the module's tables: saspu,
-- the methods of saspu.Domain, Population, Grid, World, Crowd, Agent and of saspu.live's
-- object, and saspu.test. This spec starts processes, so the TSan stage skips it.
local saspu = require "saspu"
local core = require "saspu.core"

-- "module page name" -> { [entry name] = entry html }, and ldoc's own output.
local function reference()
  local dir = os.tmpname()
  os.remove(dir)
  local cmd = "ldoc -c config.ld -d " .. dir .. " . 2>&1"
  local p = assert(io.popen(cmd))
  local log = p:read("*a")
  p:close()
  local pages = {}
  local ls = assert(io.popen("ls " .. dir .. "/index.html " .. dir .. "/modules/*.html 2>/dev/null"))
  for path in ls:lines() do
    local f = assert(io.open(path))
    local html = f:read("*a")
    f:close()
    local name = path:match("modules/(.-)%.html$")
    if not name then name = html:match("<h1>Module <code>(.-)</code></h1>") end
    if name then
      local entries = pages[name] or {}
      pages[name] = entries
      for entry, body in html:gmatch('<dt>%s*<a name = "([^"]+)"></a>(.-)</dd>') do
        entries[entry] = body
      end
    end
  end
  os.execute("rm -rf " .. dir)
  return pages, log
end

local function has_ldoc()
  local p = io.popen("command -v ldoc")
  local found = p:read("*a") ~= ""
  p:close()
  return found
end

-- The public functions: { { page, entry name, label } } from the live module.
local function public_functions()
  local list = {}
  local function add(page, prefix, t, label)
    for k, v in pairs(t) do
      if type(k) == "string" and type(v) == "function" and not k:match("^_") then
        list[#list + 1] = { page, prefix .. k, label .. k }
      end
    end
  end
  add("saspu", "", saspu, "saspu.")
  add("saspu.test", "", require "saspu.test", "saspu.test.")
  local dom = saspu.domain_file "domains/horse_breeder.lua"
  add("saspu", "Domain:", core.domain_methods, "saspu.Domain:")
  local pop = saspu.population(dom, 1)
  add("saspu", "Population:", getmetatable(pop).__index, "saspu.Population:")
  local g = saspu.grid(2, 2)
  add("saspu", "Grid:", getmetatable(g).__index, "saspu.Grid:")
  local world = saspu.world { grid = g }
  add("saspu", "World:", getmetatable(world).__index, "saspu.World:")
  local crowd = world:crowd(dom, {})
  add("saspu", "Crowd:", getmetatable(crowd).__index, "saspu.Crowd:")
  local agent = crowd:spawn { start = "morning", x = 1, y = 1 }
  assert.equal(agent.index, core.Agent.index)
  add("saspu", "Agent:", core.Agent, "saspu.Agent:")
  local live = saspu.live "domains/horse_breeder.lua"
  add("saspu", "Live:", getmetatable(live).__index, "saspu.live(path):")
  world:close()
  pop:close()
  g:close()
  dom:close()
  table.sort(list, function(a, b) return a[3] < b[3] end)
  return list
end

describe("the API reference", function()
  if not has_ldoc() then
    it("needs ldoc (apt-get install lua-ldoc, or ./dev deps)", function()
      error("ldoc not found: install lua-ldoc (./dev deps installs it)")
    end)
    return
  end
  local pages, log = reference()

  it("builds without a warning from ldoc", function()
    local warnings = {}
    for line in log:gmatch("[^\n]+") do
      if line:match("^[^%s:]+:%d+:") or line:match("[Ww]arning") or line:match("not found") then
        warnings[#warnings + 1] = line
      end
    end
    assert.same({}, warnings)
  end)

  it("has the module saspu and saspu.test and no page for tests, tools or the demo", function()
    local names = {}
    for name in pairs(pages) do names[#names + 1] = name end
    table.sort(names)
    assert.same({ "saspu", "saspu.test" }, names)
  end)

  it("documents every public function, with the errors it raises", function()
    local missing, no_raise = {}, {}
    for _, f in ipairs(public_functions()) do
      local body = (pages[f[1]] or {})[f[2]]
      if not body then
        missing[#missing + 1] = f[3]
      elseif not body:find("<h3>Raises:</h3>", 1, true) then
        no_raise[#no_raise + 1] = f[3]
      end
    end
    assert.same({}, missing)
    assert.same({}, no_raise)
  end)

  it("documents every constant of saspu (an upper-case field)", function()
    local missing = {}
    for k, v in pairs(saspu) do
      if type(k) == "string" and k:match("^[A-Z][A-Z0-9_]*$") and type(v) ~= "function"
          and not (pages.saspu or {})[k] then
        missing[#missing + 1] = k
      end
    end
    table.sort(missing)
    assert.same({}, missing)
  end)

  it("documents no function that does not exist", function()
    local exists = {}
    for _, f in ipairs(public_functions()) do exists[f[1] .. " " .. f[2]] = true end
    local stale = {}
    for page, entries in pairs(pages) do
      for entry, body in pairs(entries) do
        -- fields and types are entries too; functions show their arguments in parentheses
        local is_function = body:match("<strong>[^<]-%(") ~= nil
        if is_function and not exists[page .. " " .. entry] then stale[#stale + 1] = page .. " " .. entry end
      end
    end
    table.sort(stale)
    assert.same({}, stale)
  end)
end)
