-- lua/saspu/cli.lua: the `saspu` command (bin/saspu): check, explain, plan, graph, order and bench a domain file; save-info reads a save's header; trace sums up a recording.
--
-- cli.main(args, out, err) -> exit status; out and err are file-like (write).
local saspu = require "saspu"

local format, concat, ipairs, pairs, pcall, tostring, tonumber, type =
  string.format, table.concat, ipairs, pairs, pcall, tostring, tonumber, type
local unpack = table.unpack or unpack

local M = {}

local usage = {
  check = "saspu check [--json] FILE...\n  Compiles each domain file: validation, class, every class problem with its fix.\n"
    .. "  Exit status 0 when every file compiles (an outside domain needs allow_outside = true).",
  explain = "saspu explain FILE\n  The domain's class and why: cycles, requestable actions, problems and fixes.",
  plan = "saspu plan [--keep] FILE START GOAL\n  Plans from START to GOAL (declared names, or var=value,var=value) and prints\n"
    .. "  the state after each step, or why there is no plan (exit status 1). The goal is a\n"
    .. "  condition: variables it leaves out may end with any value; with --keep they keep\n"
    .. "  their start value. A goal's var=a|b takes any of a, b; var!=a any value but a\n"
    .. "  (a shortest plan to any of them).",
  graph = "saspu graph [-o OUT.svg|OUT.png] FILE [START GOAL]\n  DOT of the value graphs and action graph "
    .. "(problems in red), or of the plan's\n  partial order with START GOAL; with -o, rendered by Graphviz's dot.",
  order = "saspu order FILE START GOAL\n  The plan and its partial order: pre, prevail, threat and restore edges.",
  bench = "saspu bench [--npcs N] [--runs R] FILE\n  Plans per second on the domain with a population of N NPCs (default 10000)\n"
    .. "  over every declared start x goal: cold (no plan cache) and cached; the median\n"
    .. "  of R runs (default 5) and their range.",
  ["save-info"] = "saspu save-info [--json] FILE\n  A save's header without a world: its format, places, facts, and per crowd its\n"
    .. "  domain, agents, variables, actions and goals (format 6 on; format 5 names none);\n"
    .. "  with --json, as one JSON object.",
  trace = "saspu trace [--json] [--agent CLASS:N] [--html OUT.html [--pick CLASS:N]...] FILE\n  A trace written by world:record: "
    .. "per class, goals reached, failed and given up,\n  the top failure reasons with place and time, the agents "
    .. "stuck longest and those\n  that never reached a goal; --agent one agent's life as a timeline; --html the\n"
    .. "  inspector page (one self-contained file: map, density, time slider, search;\n"
    .. "  --pick adds an agent to those shown as dots, whose lives it holds).",
}
local order = { "check", "explain", "plan", "graph", "order", "bench", "save-info", "trace" }

local function help_text()
  local lines = { "usage: saspu COMMAND [ARGS]   (saspu COMMAND --help for one)", "" }
  for _, name in ipairs(order) do lines[#lines + 1] = usage[name] end
  return concat(lines, "\n") .. "\n"
end

-- A minimal JSON encoder for check --json (strings, numbers, booleans, arrays, maps).
local function json(v)
  local t = type(v)
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      local named = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t" }
      return named[c] or format("\\u%04x", c:byte())
    end) .. '"'
  elseif t == "table" then
    local parts = {}
    if #v > 0 or next(v) == nil then
      for i, x in ipairs(v) do parts[i] = json(x) end
      return "[" .. concat(parts, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do parts[#parts + 1] = json(tostring(k)) .. ":" .. json(v[k]) end
    return "{" .. concat(parts, ",") .. "}"
  elseif t == "nil" then
    return "null"
  end
  return tostring(v)
end
M.json = json

-- "START" as a declared name, or "var=value,var=value" as a table.
local function state_arg(s)
  if not s:find("=", 1, true) then return s end
  local t = {}
  for pair in s:gmatch("[^,]+") do
    local k, v = pair:match("^%s*([^=%s]+)%s*=%s*(.-)%s*$")
    if not k then error(format("cannot read '%s' as var=value", pair), 0) end
    t[k] = v
  end
  return t
end

-- A goal argument: state_arg's var=value pairs, where a value may be a set a|b (any of)
-- and var!=a|b reads saspu.NOT(a, b) (any but).
local function goal_arg(s)
  if not s:find("=", 1, true) then return s end
  local t = {}
  for pair in s:gmatch("[^,]+") do
    local k, op, v = pair:match("^%s*([^=!%s]+)%s*(!?=)%s*(.-)%s*$")
    if not k then error(format("cannot read '%s' as var=value", pair), 0) end
    local list = {}
    for x in v:gmatch("[^|]+") do list[#list + 1] = x:match("^%s*(.-)%s*$") end
    if op == "!=" then
      t[k] = saspu.NOT(unpack(list))
    else
      t[k] = #list == 1 and list[1] or list
    end
  end
  return t
end

local function open(file, allow_outside)
  return saspu.domain_file(file, allow_outside and { allow_outside = true } or nil)
end

-- check: one line per file, problems in full; exit 1 on any failure.
local function check(args, out)
  local json_out, files, results, failed = false, {}, {}, 0
  for _, a in ipairs(args) do
    if a == "--json" then json_out = true else files[#files + 1] = a end
  end
  if #files == 0 then error(usage.check, 0) end
  for _, file in ipairs(files) do
    local r = { file = file, ok = false }
    local ok, spec = pcall(saspu.load, file)
    local dom
    if ok then
      local allowed = spec.allow_outside
      spec.allow_outside = true -- every problem at once, then judge
      ok, dom = pcall(saspu.domain, spec)
      if ok then
        r.name, r.class = dom.name, dom.class
        r.actions, r.variables = #dom:actions(), #dom:variables()
        r.problems = dom:problems()
        r.ok = dom.class ~= "outside" or allowed == true
        if not r.ok then r.error = dom:explain() end
      else
        r.error = tostring(dom)
      end
    else
      r.error = tostring(spec)
    end
    if not r.ok then failed = failed + 1 end
    results[#results + 1] = r
    if not json_out then
      if r.ok then
        out:write(format("%s: ok: '%s' is %s (%d variables, %d actions)\n", file, r.name,
          r.class, r.variables, r.actions))
      else
        out:write(format("%s: FAILED: %s\n", file, r.error))
      end
    end
  end
  if json_out then out:write(json(results), "\n") end
  return failed == 0 and 0 or 1
end

local function explain(args, out)
  if #args ~= 1 then error(usage.explain, 0) end
  out:write(open(args[1], true):explain())
  return 0
end

local function show_state(dom, state)
  local parts = {}
  for i, v in ipairs(dom:variables()) do parts[i] = v.name .. "=" .. tostring(state[v.name]) end
  return concat(parts, " ")
end

local function plan(args, out)
  local keep = args[1] == "--keep"
  if keep then table.remove(args, 1) end
  if #args ~= 3 then error(usage.plan, 0) end
  local dom = open(args[1], true)
  local start, goal = state_arg(args[2]), goal_arg(args[3])
  local steps, why = dom:plan(start, goal, { keep = keep })
  if not steps then
    local b = why.blocker
    if b and b.kind ~= "order" and b.kind ~= "none" then
      out:write("no plan: ", b.message, "\n")
      out:write(format("  blocker: %s is %s, needs %s%s\n  missing: %s\n", b.variable, b.current,
        b.needs, b.action and (" (for action '" .. b.action .. "')") or "", b.missing))
    else
      out:write("no plan: ", (b and b.message) or why.message, "\n")
    end
    return 1
  end
  local info = {}
  for _, a in ipairs(dom:actions()) do info[a.name] = a end
  local state = dom:decode(dom:encode(start))
  out:write(format("plan of %d actions from %s\n   start  %s\n", #steps, args[2],
    show_state(dom, state)))
  for i, name in ipairs(steps) do
    state[info[name].var] = info[name].post
    out:write(format("%3d. %-14s %s\n", i, name, show_state(dom, state)))
  end
  return 0
end

-- Runs dot -T<format> on text into file; returns true or raises.
local function render(text, file)
  local fmt = file:match("%.(%w+)$")
  if fmt ~= "svg" and fmt ~= "png" then error("-o: give a .svg or .png file, got " .. file, 0) end
  local pipe = io.popen(format("dot -T%s -o '%s'", fmt, file:gsub("'", "'\\''")), "w")
  pipe:write(text)
  local ok, _, code = pipe:close()
  if not ok then error(format("dot failed (exit %s): is Graphviz installed?", tostring(code)), 0) end
  return true
end
M.render = render

local function graph(args, out)
  local file, rest = nil, {}
  local i = 1
  while i <= #args do
    if args[i] == "-o" then
      file, i = args[i + 1], i + 2
    else
      rest[#rest + 1], i = args[i], i + 1
    end
  end
  if #rest ~= 1 and #rest ~= 3 then error(usage.graph, 0) end
  local dom = open(rest[1], true)
  local text, why
  if #rest == 3 then
    text, why = dom:plan_graph(state_arg(rest[2]), state_arg(rest[3]))
    if not text then
      out:write("no plan: ", why.message, "\n")
      return 1
    end
  else
    text = dom:graph()
  end
  if file then render(text, file) else out:write(text) end
  return 0
end

local function order_cmd(args, out)
  if #args ~= 3 then error(usage.order, 0) end
  local dom = open(args[1], true)
  local steps, orders = dom:plan_order(state_arg(args[2]), state_arg(args[3]))
  if not steps then
    out:write("no plan: ", orders.message, "\n")
    return 1
  end
  out:write("plan: ", concat(steps, ", "), "\n")
  out:write(format("partial order (%d edges):\n", #orders))
  for _, o in ipairs(orders) do
    out:write(format("  %-14s -%s-> %s\n", o.from, o.kind, o.to))
  end
  return 0
end

-- The median of a list of numbers (sorted in place), and its smallest and largest.
local function median_range(xs)
  table.sort(xs)
  local n = #xs
  local mid = n % 2 == 1 and xs[(n + 1) / 2] or (xs[n / 2] + xs[n / 2 + 1]) / 2
  return mid, xs[1], xs[n]
end

local function bench(args, out)
  local npcs, runs, files = 10000, 5, {}
  local i = 1
  while i <= #args do
    if args[i] == "--npcs" or args[i] == "--runs" then
      local n = tonumber(args[i + 1])
      if not n or n < 1 or n ~= math.floor(n) then error(args[i] .. ": expected a positive count", 0) end
      if args[i] == "--npcs" then npcs = n else runs = n end
      i = i + 2
    elseif args[i]:sub(1, 1) == "-" then
      error(format("unknown option '%s'\n%s", args[i], usage.bench), 0)
    else
      files[#files + 1], i = args[i], i + 1
    end
  end
  if #files ~= 1 then error(usage.bench, 0) end
  local dom = open(files[1], true)
  local pairs_list = {}
  for s in pairs(dom:starts()) do
    for g in pairs(dom:goals()) do pairs_list[#pairs_list + 1] = { s, g } end
  end
  table.sort(pairs_list, function(a, b) return a[1] .. a[2] < b[1] .. b[2] end)
  if #pairs_list == 0 then error(files[1] .. ": declares no starts or goals to plan", 0) end
  local pop = saspu.population(dom, npcs)
  for k = 1, npcs do
    local case = pairs_list[(k - 1) % #pairs_list + 1]
    pop:set(k, case[1], case[2])
  end
  local function run(cache)
    pop:clear_cache()
    pop:mark_dirty()
    local t0 = saspu.clock_ns()
    local r = pop:plan({ threads = 1, cache = cache })
    if cache then -- a warm cache: plan the same NPCs again
      pop:mark_dirty()
      t0 = saspu.clock_ns()
      r = pop:plan({ threads = 1, cache = true })
    end
    local s = (saspu.clock_ns() - t0) / 1e9
    return r.planned / s, r
  end
  local cold, cached = {}, {}
  for k = 1, runs do
    cold[k] = run(false)
    cached[k] = run(true)
  end
  out:write(format("%s: '%s' %s, %d NPCs over %d start x goal pairs, 1 thread, %d run%s\n", files[1],
    dom.name, dom.class, npcs, #pairs_list, runs, runs == 1 and "" or "s"))
  for _, row in ipairs { { "cold:  ", cold }, { "cached:", cached } } do
    local mid, lo, hi = median_range(row[2])
    out:write(format("  %s %12.0f plans/s (median; range %.0f-%.0f, %+.1f%% / %+.1f%%)\n", row[1], mid, lo, hi,
      (lo / mid - 1) * 100, (hi / mid - 1) * 100))
  end
  pop:close()
  return 0
end

-- save-info [--json] FILE: the header of a save, without building a world.
local function save_info(args, out)
  local as_json, files = false, {}
  for _, a in ipairs(args) do
    if a == "--json" then
      as_json = true
    elseif a:sub(1, 1) == "-" then
      error(format("unknown option '%s'\n%s", a, usage["save-info"]), 0)
    else
      files[#files + 1] = a
    end
  end
  if #files ~= 1 then error(usage["save-info"], 0) end
  local path = files[1]
  local f, why = io.open(path, "rb")
  if not f then error(why, 0) end
  local s = f:read("*a") or "" -- "*a": Lua 5.1 and LuaJIT too
  f:close()
  local ok, info = pcall(saspu.save_info, s)
  if not ok then error(path .. ": " .. tostring(info):gsub("^saspu%.save_info: ", ""), 0) end
  if as_json then
    info.file = path
    out:write(json(info), "\n")
    return 0
  end
  out:write(format("%s: saspu save, format %d, %d bytes\n", path, info.format, info.bytes))
  if not info.crowds then
    out:write(format("crowds: %d (format %d names nothing more)\n", info.crowd_count, info.format))
    return 0
  end
  out:write(format("places: %d, facts: %d, crowds: %d\n", info.places, info.facts, info.crowd_count))
  for k, c in ipairs(info.crowds) do
    out:write(format("crowd %d '%s': %d agents, %d variables, %d actions, %d goals\n", k, c.name,
                     c.agents, c.variables, c.actions, c.goals))
  end
  return 0
end

-- trace [--json] [--agent CLASS:N] [--html OUT] FILE: a recording's summary, an agent's life, the page.
local function trace_cmd(args, out)
  local report = require "saspu.trace_report"
  local file, as_json, agent, html
  local pick = {}
  local k = 1
  while k <= #args do
    local a = args[k]
    if a == "--json" then as_json = true
    elseif a == "--agent" or a == "--html" or a == "--pick" then
      if not args[k + 1] then error(a .. " needs a value\n" .. usage.trace, 0) end
      if a == "--agent" then agent = args[k + 1]
      elseif a == "--pick" then pick[#pick + 1] = args[k + 1]
      else html = args[k + 1] end
      k = k + 1
    elseif a:sub(1, 2) == "--" then error(format("unknown option '%s'\n%s", a, usage.trace), 0)
    elseif file then error("one FILE only\n" .. usage.trace, 0)
    else file = a end
    k = k + 1
  end
  if not file then error(usage.trace, 0) end
  local f, ferr = io.open(file, "rb")
  if not f then error(tostring(ferr), 0) end
  f:close()
  -- the file is read a chunk at a time (saspu.trace.scan): a million agents' day fits
  local function scan(opts)
    local ok, t = pcall(saspu.trace.scan, file, opts)
    if not ok then error((tostring(t):gsub("^saspu%.trace%.scan: ", "")), 0) end
    return t
  end
  if html then
    local okw, n = pcall(require("saspu.inspector").write, file, html, { pick = pick })
    if not okw then error((tostring(n):gsub("^saspu%.trace%.scan: ", "")), 0) end
    out:write(format("%s: %d bytes (%s)\n", html, n, file))
    return 0
  end
  if agent then
    local class, index = agent:match("^(.+):(%d+)$")
    if not class then error(format("--agent: expected CLASS:N, got '%s'", agent), 0) end
    local t = scan { agents = { { class, tonumber(index) } } }
    local okh, life = pcall(t.history, t, class, tonumber(index))
    if not okh then error(tostring(life):gsub("^[^\n:]*saspu/[%w_]+%.lua:%d+: ", ""), 0) end
    if as_json then
      out:write(json(report.life_data(life)), "\n")
    else
      out:write(concat(report.timeline_text(life), "\n"), "\n")
    end
    return 0
  end
  local t = scan { summary = true }
  local sum = report.summary(t)
  if as_json then
    out:write(json(sum), "\n")
  else
    out:write(concat(report.summary_text(sum, file), "\n"), "\n")
  end
  return 0
end

local commands = { check = check, explain = explain, plan = plan, graph = graph,
  order = order_cmd, bench = bench, ["save-info"] = save_info, trace = trace_cmd }

-- cli.main(args, out, err) -> exit status.
function M.main(args, out, err)
  local name = args[1]
  if name == nil or name == "--help" or name == "-h" or name == "help" then
    out:write(help_text())
    return name == nil and 2 or 0
  end
  local command = commands[name]
  if not command then
    err:write(format("saspu: unknown command '%s'\n%s", tostring(name), help_text()))
    return 2
  end
  local rest = {}
  for i = 2, #args do
    if args[i] == "--help" or args[i] == "-h" then
      out:write("usage: ", usage[name], "\n")
      return 0
    end
    rest[#rest + 1] = args[i]
  end
  local ok, status = pcall(command, rest, out)
  if not ok then
    -- the message alone: a "file.lua:12: " that Lua put in front names saspu's own
    -- source, not anything the user wrote
    status = tostring(status):gsub("^[^\n:]*saspu/[%w_]+%.lua:%d+: ", "")
    err:write("saspu ", name, ": ", status, "\n")
    return 2
  end
  return status
end

return M
