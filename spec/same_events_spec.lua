-- spec/same_events_spec.lua: one seeded world gives the same events on Lua 5.1, 5.4 and LuaJIT (each a child process with its own build of the module).
local function read_all(cmd)
  local p = assert(io.popen(cmd))
  local text = p:read("*a")
  p:close()
  return text
end

local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

local root = read_all("pwd"):gsub("%s+$", "")
-- SASPU_BUILD_DIR is the 5.4 build only when this run is on 5.4 (./dev runs the specs
-- on each Lua with that Lua's build there)
local on_54 = (os.getenv("SASPU_LUA") or "lua5.4") == "lua5.4"
local main_build = on_54 and os.getenv("SASPU_BUILD_DIR") or "build"
if main_build:sub(1, 1) ~= "/" then main_build = root .. "/" .. main_build end

-- interpreter, build dir (./dev's run_specs_on names them so)
local RUNS = {
  { "lua5.4", main_build },
  { "lua5.1", root .. "/build-lua51" },
  { "luajit", root .. "/build-luajit" },
}

local function run_on(lua, build)
  return read_all("cd '" .. root .. "' && LUA_PATH='" .. root .. "/lua/?.lua;" .. root
    .. "/lua/?/init.lua;;' LUA_CPATH='" .. build .. "/?.so;;' " .. lua
    .. " spec/support/seeded_world.lua 2>&1")
end

describe("one seeded world", function()
  it("gives the same events on Lua 5.1, 5.4 and LuaJIT", function()
    local missing = {}
    for _, r in ipairs(RUNS) do
      if not exists(r[2] .. "/saspu/core.so") then missing[#missing + 1] = r[1] .. " (" .. r[2] .. ")" end
    end
    if #missing > 0 then
      pending("no build of the module for " .. table.concat(missing, ", ")
              .. ": build it as ./dev's run_specs_on does (see docs/development.md)")
      return
    end
    local base = run_on(RUNS[1][1], RUNS[1][2])
    assert.is_true(select(2, base:gsub("\n", "")) > 300, base:sub(1, 300))
    for k = 2, #RUNS do
      local other = run_on(RUNS[k][1], RUNS[k][2])
      if other ~= base then -- the first line that differs, not two long texts
        local a, b, line = base .. "\n", other .. "\n", 1
        for la in a:gmatch("(.-)\n") do
          local lb = b:match(("[^\n]*\n"):rep(line - 1) .. "([^\n]*)")
          if la ~= lb then
            error(string.format("%s differs from %s at event %d: %q vs %q", RUNS[k][1],
                                RUNS[1][1], line, la, tostring(lb)))
          end
          line = line + 1
        end
        error(RUNS[k][1] .. " gave more events than " .. RUNS[1][1])
      end
    end
  end)
end)
