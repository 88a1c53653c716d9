-- tools/gen_builtin.lua: writes csrc/builtin/western_cast.c, the C builtins of the Western town's seven classes, from their domain files (domains/<class>.lua).
--
--   lua5.4 tools/gen_builtin.lua            rewrites csrc/builtin/western_cast.c (run from the root)
--   lua5.4 tools/gen_builtin.lua -          prints it instead
--
-- The domain files stay the one truth: the C tables are generated, never edited.
-- spec/gen_builtin_spec.lua regenerates the file and fails when the committed one
-- differs. The generator reads the tables directly (no C module needed); a goal value
-- KEEP becomes keep[i] = 1, a variable a goal leaves out SP_ANY (free), as in
-- saspu's default reading. Runs on Lua 5.1 to 5.4 and LuaJIT with the same output.
local M = {}

-- The classes in the papers' order; SP_WESTERN_<NAME> in csrc/builtin/sp_builtin.h.
M.cast = { "horse_breeder", "farrier", "native_hunter", "bandit", "innkeeper", "dancer",
           "drunk_citizen" }
M.output = "csrc/builtin/western_cast.c"

local KEEP = setmetatable({}, { __tostring = function() return "KEEP" end })

-- The table a domain file returns, with KEEP bound as in saspu.load.
local function load_table(path)
  local env = { KEEP = KEEP }
  local chunk, err
  if setfenv then
    chunk, err = loadfile(path)
    if chunk then setfenv(chunk, env) end
  else
    chunk, err = loadfile(path, "t", env)
  end
  if not chunk then error("gen_builtin: " .. err, 0) end
  local ok, t = pcall(chunk)
  if not ok then error("gen_builtin: " .. path .. ": " .. tostring(t), 0) end
  if type(t) ~= "table" then error("gen_builtin: " .. path .. ": does not return a table", 0) end
  return t
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- Index of `name` in the variable `var`'s values (0-based), or an error naming `where`.
local function value_index(var, name, where)
  for i, v in ipairs(var.values) do
    if v == name then return i - 1 end
  end
  error(string.format("gen_builtin: %s: '%s' is not a value of '%s'", where, tostring(name),
                      var.name), 0)
end

local function c_string(s)
  if s:find('[^%w_%-%.%* ]') then error("gen_builtin: name not plain: " .. s, 0) end
  return '"' .. s .. '"'
end

-- Reads one domain file into index form: variables, actions (prevails sorted by
-- variable, as the Lua binding orders them), starts and goals sorted by name.
local function read_domain(class, root)
  local path = "domains/" .. class .. ".lua"
  local file = (root or ".") .. "/" .. path
  local t = load_table(file)
  local d = { class = class, path = path, name = t.name, vars = {}, by_name = {},
              actions = {}, starts = {}, goals = {} }
  for i, v in ipairs(t.variables) do
    d.vars[i] = { name = v.name, values = v.values }
    d.by_name[v.name] = i - 1
  end
  local function var_of(name, where)
    local id = d.by_name[name]
    if id == nil then error("gen_builtin: " .. where .. ": unknown variable '" .. tostring(name) .. "'", 0) end
    return id, d.vars[id + 1]
  end
  for i, a in ipairs(t.actions) do
    local where = string.format("%s: actions[%d] '%s'", file, i, tostring(a.name))
    local vid, var = var_of(a.var, where)
    local act = { name = a.name, var = vid, pre = value_index(var, a.pre, where),
                  post = value_index(var, a.post, where), prevails = {} }
    for _, pname in ipairs(sorted_keys(a.prevail or {})) do
      local pid, pvar = var_of(pname, where .. ": prevail")
      act.prevails[#act.prevails + 1] = { pid, value_index(pvar, a.prevail[pname], where) }
    end
    table.sort(act.prevails, function(x, y) return x[1] < y[1] end)
    d.actions[i] = act
  end
  local function states(tbl, kind)
    local out = {}
    for _, sname in ipairs(sorted_keys(tbl or {})) do
      local where = string.format("%s: %s '%s'", file, kind, sname)
      local s, values, keep, any_keep = tbl[sname], {}, {}, false
      for k in pairs(s) do var_of(k, where) end
      for i, var in ipairs(d.vars) do
        local v = s[var.name]
        if v == nil then
          if kind == "start" then error("gen_builtin: " .. where .. ": '" .. var.name .. "' left out", 0) end
          values[i], keep[i] = "SP_ANY", 0
        elseif v == KEEP then
          if kind == "start" then error("gen_builtin: " .. where .. ": KEEP in a start", 0) end
          values[i], keep[i], any_keep = "0", 1, true
        else
          values[i], keep[i] = tostring(value_index(var, v, where)), 0
        end
      end
      out[#out + 1] = { name = sname, values = values, keep = any_keep and keep or nil }
    end
    return out
  end
  d.starts = states(t.starts, "start")
  d.goals = states(t.goals, "goal")
  return d
end

local function emit_domain(out, d)
  local p = d.class .. "_"
  local w = function(...) out[#out + 1] = string.format(...) end
  w("/* ------------------------------------------------------------------ */\n")
  w("/* %-66s */\n", d.name .. " (" .. d.path .. ")")
  w("/* ------------------------------------------------------------------ */\n\n")
  for i, var in ipairs(d.vars) do
    local names = {}
    for j, v in ipairs(var.values) do names[j] = c_string(v) end
    w("static const char *const %sv%d_values[] = {%s};\n", p, i - 1, table.concat(names, ", "))
  end
  w("\nstatic const SpVariableSpec %svariables[] = {\n", p)
  for i, var in ipairs(d.vars) do
    w("  {%s, %d, %sv%d_values},\n", c_string(var.name), #var.values, p, i - 1)
  end
  w("};\n\n")
  for i, a in ipairs(d.actions) do
    if #a.prevails > 0 then
      local conds = {}
      for j, c in ipairs(a.prevails) do conds[j] = string.format("{%d, %d}", c[1], c[2]) end
      w("static const SpCondition %sa%d_prevails[] = {%s}; /* %s */\n", p, i - 1,
        table.concat(conds, ", "), a.name)
    end
  end
  w("\nstatic const SpActionSpec %sactions[] = {\n", p)
  for i, a in ipairs(d.actions) do
    w("  {%s, %d, %d, %d, %d, %s},\n", c_string(a.name), a.var, a.pre, a.post, #a.prevails,
      #a.prevails > 0 and string.format("%sa%d_prevails", p, i - 1) or "NULL")
  end
  w("};\n\n")
  for _, kind in ipairs({ "start", "goal" }) do
    local list = kind == "start" and d.starts or d.goals
    for i, s in ipairs(list) do
      w("static const SpValue %s%s%d[] = {%s}; /* %s */\n", p, kind, i - 1,
        table.concat(s.values, ", "), s.name)
      if s.keep then
        w("static const uint8_t %s%s%d_keep[] = {%s};\n", p, kind, i - 1, table.concat(s.keep, ", "))
      end
    end
    w("static const SpNamedState %s%ss[] = {\n", p, kind)
    for i, s in ipairs(list) do
      w("  {%s, %s%s%d, %s},\n", c_string(s.name), p, kind, i - 1,
        s.keep and string.format("%s%s%d_keep", p, kind, i - 1) or "NULL")
    end
    w("};\n\n")
  end
end

-- The whole C file as one string, from root/domains/ (root defaults to ".").
function M.generate(root)
  local out = {}
  local w = function(...) out[#out + 1] = string.format(...) end
  w("/* western_cast.c: the Western town's seven classes (domains/<class>.lua) as C builtins; generated by tools/gen_builtin.lua, do not edit. */\n")
  w("#include \"sp_builtin.h\"\n\n#include <stddef.h>\n\n")
  w("#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))\n\n")
  local domains = {}
  for i, class in ipairs(M.cast) do
    domains[i] = read_domain(class, root)
    emit_domain(out, domains[i])
  end
  w("/* ------------------------------------------------------------------ */\n")
  w("/* The cast, indexed by SP_WESTERN_*                                   */\n")
  w("/* ------------------------------------------------------------------ */\n\n")
  w("typedef struct CastEntry {\n  SpDomainSpec spec;\n  int start_count;\n")
  w("  const SpNamedState *starts;\n  int goal_count;\n  const SpNamedState *goals;\n} CastEntry;\n\n")
  w("static const CastEntry cast[] = {\n")
  for _, d in ipairs(domains) do
    local p = d.class .. "_"
    w("  [SP_WESTERN_%s] = {{%s, COUNT(%svariables), %svariables, COUNT(%sactions), %sactions},\n",
      d.class:upper(), c_string(d.name), p, p, p, p)
    w("    COUNT(%sstarts), %sstarts, COUNT(%sgoals), %sgoals},\n", p, p, p, p)
  end
  w("};\n\n")
  w("_Static_assert(COUNT(cast) == SP_WESTERN_COUNT, \"one entry per SP_WESTERN_* class\");\n\n")
  w("const char *sp_builtin_western_name(int which) {\n")
  w("  if (which < 0 || which >= SP_WESTERN_COUNT) return NULL;\n")
  w("  return cast[which].spec.name;\n}\n\n")
  w("SpBuiltSpec *sp_builtin_western(SpAllocator a, int which) {\n")
  w("  const CastEntry *e;\n")
  w("  if (which < 0 || which >= SP_WESTERN_COUNT) return NULL;\n")
  w("  e = &cast[which];\n")
  w("  return sp_builtin_copy(a, &e->spec, e->start_count, e->starts, e->goal_count, e->goals);\n}\n")
  return table.concat(out)
end

-- Run as a script (not loaded by a spec): write the file, or stdout with "-".
local script = arg and arg[0] and arg[0]:match("gen_builtin%.lua$")
if script then
  local text = M.generate()
  if arg[1] == "-" then
    io.write(text)
  else
    local f = assert(io.open(arg[1] or M.output, "w"))
    f:write(text)
    f:close()
    io.stderr:write("gen_builtin: wrote " .. (arg[1] or M.output) .. "\n")
  end
end

return M
