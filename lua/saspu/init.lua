-- lua/saspu/init.lua: the saspu module that `require "saspu"` loads: the C module saspu.core plus domain files, hot reload and agents written in Lua.

--- Shortest plans for game NPCs (SAS-PU planning, TopoPlan), from Lua 5.1-5.4 and LuaJIT.
--
-- `local saspu = require "saspu"` loads this file, which loads the C module
-- `saspu.core`. The guides in `docs/` explain each part with examples
-- (`docs/domains.md`, `populations.md`, `grid.md`, `agents.md`, `saves.md`,
-- `tools.md`); this reference lists every function. It is built by `./dev docs` from
-- the LDoc comments of `lua/saspu/*.lua` and, for functions written in C, of
-- `docs/api.luadoc`; `spec/api_reference_spec.lua` fails when a public function is
-- missing from it.
--
-- Errors: a bad argument raises a Lua error whose message names the function, the
-- argument and what is wrong (`bad argument #2 to 'set_states' (...)`); a bad table
-- names the path inside it (`saspu.domain: actions[3] 'fill_feeder': ...`). A raised
-- error changes nothing. Conditions of play (no plan, an unreachable cell) are not
-- errors: they return `nil` and a reason.
--
-- Objects (Domain, Population, Grid, World, Crowd) close with `close()`, a
-- to-be-closed variable (Lua 5.4) or the garbage collector; a method called on a
-- closed object raises "saspu.X is closed" ("saspu.World: closed" for worlds, crowds and agents), and one whose object
-- is closed while it runs (by a hook or a finalizer) raises "saspu.X was closed during
-- the call". Methods called with `.` instead of `:` raise "saspu.X expected, got ...".
-- @module saspu
local core = require("saspu.native").load() -- saspu.core, or which Lua it was built for
local graph = require "saspu.graph"

local loadfile, type, error, pcall, pairs, tostring = loadfile, type, error, pcall, pairs, tostring
local open = io.open
local setfenv, loadstring = rawget(_G, "setfenv"), rawget(_G, "loadstring")
local string_lib, table_lib, math_lib = string, table, math
local getmetatable, collectgarbage, coroutine = getmetatable, collectgarbage, coroutine
local sethook, gethook = debug.sethook, debug.gethook

local saspu = {
  _VERSION = "saspu " .. core._VERSION, -- the CMake project version
  classes = { "SAS-PUC0", "SAS-PUCS2", "SAS-PUC*2" },
}

--- `"saspu X.Y.Z"`: the CMake project version (CHANGELOG.md lists the changes).
-- @field _VERSION

--- The tractable classes, smallest first: `{ "SAS-PUC0", "SAS-PUCS2", "SAS-PUC*2" }`.
-- A compiled domain's `class` is one of them, or `"outside"`.
-- @field classes

-- saspu.domain, grid, population, clock_ns, cores, KEEP, ANY: written in C, documented
-- in docs/api.luadoc.
saspu.domain = core.domain

-- Goals are conditions: saspu.KEEP as a goal value keeps the variable's start value;
-- saspu.ANY (255) is a packed goal's byte for a free variable.
saspu.KEEP, saspu.ANY = core.KEEP, core.ANY

-- saspu.CLOCK_MAX: the latest a crowd's clock may read, in seconds (2^36, over two
-- thousand years of game time); an update that would pass it is refused.
saspu.CLOCK_MAX = core.CLOCK_MAX

-- Loads a text chunk with the environment `env`: loadfile's mode and env
-- arguments where they exist (5.2+), else the text through loadstring and
-- setfenv (5.1, LuaJIT), refusing precompiled chunks the same way.
local function load_data(path, env)
  if not setfenv then
    return loadfile(path, "t", env)
  end
  local f, err = open(path, "rb")
  if not f then
    return nil, "cannot open " .. err
  end
  local text = f:read("*a")
  f:close()
  if text:sub(1, 1) == "\27" then
    return nil, "attempt to load a binary chunk (mode is 't')"
  end
  local chunk
  chunk, err = loadstring(text, "@" .. path)
  if not chunk then
    return nil, err
  end
  return setfenv(chunk, env)
end


local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local safe_names = { "ipairs", "pairs", "next", "select", "type", "tostring", "tonumber",
  "error", "assert", "pcall", "rawget", "rawset", "rawequal", "rawlen", "setmetatable",
  "getmetatable" }
local safe_basics = {}
for _, name in ipairs(safe_names) do safe_basics[name] = _G[name] end

--- The budgets of one domain file run by `saspu.load`. A script may change them; the
-- next load reads them.
-- @table load_limits
-- @field instructions VM instructions, default 1,000,000
-- @field memory_bytes growth of the Lua heap, default 64 MB
saspu.load_limits = { instructions = 1000000, memory_bytes = 64 * 1024 * 1024 }

local function over_memory(path)
  error(path .. ": ran over its budget of " .. saspu.load_limits.memory_bytes .. " bytes", 0)
end

-- string.rep is the one call that can make a huge string in one instruction, before
-- the memory check between instructions sees it: it is checked against the budget first.

--- A fresh environment for one domain file, as `saspu.load` gives it: the basic functions
-- `ipairs`, `pairs`, `next`, `select`, `type`, `tostring`, `tonumber`, `error`, `assert`,
-- `pcall`, `rawget`, `rawset`, `rawequal`, `rawlen`, `setmetatable`, `getmetatable`;
-- copies of `string`, `table` and `math` (a file cannot change them for the caller), and
-- `KEEP`. No `io`, `os`, `require`, `load`, `debug` and no access to the caller's globals.
-- `string.rep` refuses a result larger than `saspu.load_limits.memory_bytes`.
-- @tparam[opt] string path the file, named in the budget error
-- @treturn table the environment
-- @raise nothing by itself; its `string.rep` raises "PATH: ran over its budget of N bytes"
function saspu.file_env(path)
  local env = copy(safe_basics)
  env.KEEP = core.KEEP -- a goal value: the variable keeps its start value
  env.string, env.table, env.math = copy(string_lib), copy(table_lib), copy(math_lib)
  local rep = string_lib.rep
  env.string.rep = function(str, n, sep)
    local bytes = #tostring(str) * (tonumber(n) or 0) + #tostring(sep or "") * (tonumber(n) or 0)
    if bytes > saspu.load_limits.memory_bytes then over_memory(path or "a domain file") end
    return rep(str, n, sep)
  end
  return env
end

--- Runs a domain file and returns its table, not compiled.
-- The file runs as data with a little code: in the environment of `saspu.file_env` (it
-- may build its actions in a loop, but reach nothing outside), interpreted (LuaJIT's JIT
-- is off for it), within `saspu.load_limits`. Text only: a precompiled chunk is refused.
-- @tparam string path the domain file
-- @treturn table the table the file returns
-- @raise "saspu.load: expected a file path, got TYPE"; "saspu.load: cannot open PATH...";
-- "saspu.load: PATH:LINE: message" (a syntax error or an error the file raises);
-- "saspu.load: PATH: ran over its budget of N instructions" (or "of N bytes");
-- "saspu.load: PATH returned TYPE, expected a table".
function saspu.load(path)
  if type(path) ~= "string" then
    error("saspu.load: expected a file path, got " .. type(path), 2)
  end
  local env = saspu.file_env(path)
  local chunk, err = load_data(path, env)
  if not chunk then
    error("saspu.load: " .. err, 2)
  end
  local limits = saspu.load_limits
  local steps, base = 0, collectgarbage("count")
  local max_steps, max_kb = limits.instructions, limits.memory_bytes / 1024
  -- LuaJIT does not call count hooks inside compiled traces: the file runs interpreted
  local jit = rawget(_G, "jit")
  if jit then jit.off(chunk, true) end
  local hook_fn, hook_mask, hook_count = gethook()
  local co = coroutine.create(chunk)
  -- checked before every instruction: one instruction can at most double a string
  sethook(co, function()
    if coroutine.running() ~= co then return end -- LuaJIT: the hook is the whole VM's
    steps = steps + 1
    if steps > max_steps then
      error(path .. ": ran over its budget of " .. max_steps .. " instructions", 0)
    end
    if collectgarbage("count") - base > max_kb then over_memory(path) end
  end, "", 1)
  -- string methods ("x"):rep(n) reach the file's own string copy while it runs
  local string_mt = getmetatable("")
  local string_index = string_mt.__index
  string_mt.__index = env.string
  local ok, spec = coroutine.resume(co)
  string_mt.__index = string_index
  -- LuaJIT's hooks belong to the whole VM, not the coroutine: put the caller's back
  if jit then sethook(hook_fn, hook_mask, hook_count) end
  if not ok then
    error("saspu.load: " .. tostring(spec), 2) -- spec: "path:line: message"
  end
  if type(spec) ~= "table" then
    error("saspu.load: " .. path .. " returned " .. type(spec) .. ", expected a table", 2)
  end
  return spec
end

-- saspu.grid(w, h [, cost]) and saspu.grid_from_ascii(text) -> saspu.Grid.
saspu.grid = core.grid
saspu.grid_from_ascii = core.grid_from_ascii

-- saspu.population(dom, n [, opts]) -> saspu.Population; saspu.clock_ns(); saspu.cores().
saspu.population = core.population
saspu.clock_ns = core.clock_ns
saspu.save_info = core.save_info
saspu.cores = core.cores

-- Worlds, crowds and agents: lua/saspu/world.lua (and the parts it loads).
local world = require "saspu.world"

--- A world: places on an optional grid, and the crowds that live in it.
-- Every field is optional; a place's kind defaults to its name and its name to
-- "KINDn" (well1, well2, ...). With `threads` (0: every core) the world owns one pool of
-- workers that its crowds use unless their options name threads, and `World:update`
-- runs the crowds' passes together. Once updates come at a steady pace (a game's frames),
-- the sleeping workers wake `wake_ahead` ms (default 0: off) before the next one is
-- due and spin until it starts or as long after the due time, so the update does not wait
-- for a thread to wake (tens to hundreds of microseconds): at most 3 * wake_ahead ms of a
-- core per worker a frame.
-- @function world
-- @tparam[opt] table spec `{ grid = Grid, places = { { name =, kind =, x =, y =,
-- capacity = }, ... }, threads = n, wake_ahead = 0.25, facts = { alarm = { "quiet", "ringing" } (its
-- values, the first holds) | alarm = "quiet" (its value; the values are those of the
-- variable `alarm` of the first crowd that ties it) } }`: world facts are set with
-- `World:set` and tied to every crowd variable of the same name (`World:crowd`)
-- @treturn World
-- @raise "saspu.world: unknown field 'foo'"; "saspu.world: threads must be an integer >= 0
-- (0: every core), got -1"; "saspu.world: wake_ahead sets the world's threads: name
-- threads too"; "saspu.world: places[2]: needs a kind or a name"; the errors
-- of `World:place`, as "saspu.world: places[2]: ...".
saspu.world = world.world

--- Inside a `run` script of a behaviour: waits `seconds` of game time, then resumes.
-- @function wait
-- @tparam number seconds
-- @raise a Lua error outside a coroutine ("attempt to yield from outside a coroutine" on 5.4).
saspu.wait = world.wait

--- In a behaviour goal or its `when`: any value of the variable but these (`{ horse =
-- saspu.NOT("shod") }`). Both also take a set, any of its values: `{ horse = { "lame",
-- "unshod" } }`. A goal of sets is reached by a shortest plan to ANY member (each
-- combination of members is planned, the shortest kept, the earliest combination in
-- declaration order among equals); it holds while any member holds. At most 64
-- combinations per goal or `when` (an error names the goal and the variable past it).
-- @function NOT
-- @param ... values of the variable
-- @treturn table a marker `when` reads
-- @raise "saspu.NOT: expected at least one value".
saspu.NOT = world.NOT

--- Compiles a domain file: `saspu.domain(saspu.load(path))`, with `overrides`.
-- @tparam string path the domain file
-- @tparam[opt] table overrides fields that replace the file's, e.g. `{ allow_outside = true }`
-- @treturn Domain
-- @raise the errors of `saspu.load`; a compile error as "PATH: saspu.domain: ..." (see
-- `domain`), raised at the caller's line.
function saspu.domain_file(path, overrides)
  local ok, spec = pcall(saspu.load, path)
  if not ok then error(spec, 2) end
  for k, v in pairs(overrides or {}) do spec[k] = v end
  local dom
  ok, dom = pcall(core.domain, spec)
  if not ok then
    error(path .. ": " .. tostring(dom), 2)
  end
  return dom
end

--- A domain file that hot-reloads with its populations (see `Live`).
-- @tparam string path the domain file
-- @treturn Live
-- @raise the errors of `domain_file` when the first load fails.
function saspu.live(path)
  return require("saspu.reload").live(saspu, path)
end

-- saspu.trace.open(path): a trace written by World:record (lua/saspu/trace.lua).
saspu.trace = require "saspu.trace"

-- Methods written in Lua on every saspu.Domain.
core.domain_methods.graph = graph.domain
core.domain_methods.plan_graph = graph.plan

return saspu
