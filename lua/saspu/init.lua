-- lua/saspu/init.lua: the saspu module that `require "saspu"` loads: domain tables compiled in C, planning from Lua.
--
-- A domain is a plain table (see domains/*.lua):
--
--   local saspu = require "saspu"
--   local dom = saspu.domain {
--     name = "horse_breeder",
--     variables = {            -- ordered: the order is the state vector's
--       { name = "haystack", values = { "stored", "in_hands", "in_feeder" } },
--       ...
--     },
--     actions = {              -- ordered: action ids follow this order
--       { name = "take_haystack", var = "haystack", pre = "stored", post = "in_hands",
--         prevail = { bucket = "on_floor" }, params = { "pos" } },
--       ...
--     },
--     goals  = { feed_horses = { haystack = "in_feeder", ... } },  -- partial states
--     starts = { morning = { haystack = "stored", ... } },         -- total states
--     allow_outside = false,   -- true accepts a domain outside the tractable classes
--   }
--
-- saspu.load(path) reads a domain file (run as data, with no globals) and returns its
-- table; saspu.domain_file(path) compiles it.
-- Value names may be given as Lua booleans when the values are named "true"/"false".
-- Bad input raises an error naming the path, e.g.
--   saspu.domain: actions[3] 'fill_feeder': post 'full' is not a value of 'haystack' (stored, in_hands, in_feeder)
--
-- saspu.Domain (the compiled domain; closes with __gc or a to-be-closed variable):
--   dom.class, dom.name          "SAS-PUC0" | "SAS-PUCS2" | "SAS-PUC*2" | "outside"; the name
--   dom:plan(start, goal)        -> { action names } | nil, why
--       start: { var = value } naming every variable, or a name in `starts`
--       goal:  { var = value }, left-out variables keep their start value, or a name in `goals`
--       why:   { message, code = "no_setter"|"unreachable"|"repeat"|"order",
--                action, other_action, variable, value }   (names, nil when not relevant)
--   dom:explain()                -> text: the class and why (cycles, requestable actions)
--   dom:actions()                -> { { id, name, var, pre, post, prevail, params,
--                                       requestable, in_cycle }, ... }
--   dom:variables()              -> { { id, name, values, cycles = { { action names }, ... } }, ... }
--   dom:goals(), dom:starts()    -> copies of the declared goals and starts
--   dom:action_name(id), dom:action_id(name)
--   dom:close()                  frees the compiled domain now (also __close / __gc)
--
-- The numeric fast path, for scripts that plan every frame:
--   dom:encode(state [, base])   -> packed state: a string of one byte per variable, each the
--                                   0-based value index. `state` is a table, a start or a goal
--                                   name; variables it leaves out come from `base` (a packed
--                                   state, a table or a start name).
--   dom:decode(packed)           -> { var = value name }
--   dom:plan_ids(s0, goal [, out [, why]]) -> count, out | nil, why
--       s0 and goal: packed states, or arrays of 1-based value ids ({ 1, 1, 3 }) that the
--       script may keep and update in place. out[1..count] receives 1-based action ids
--       (entries after count are cleared); `why` is filled like dom:plan's on failure.
--       Passing the same `out` (and `why`) tables every call allocates nothing.
--
--   local s0, goal = dom:encode("morning"), dom:encode("feed_horses", "morning")
--   local out = {}
--   local n = dom:plan_ids(s0, goal, out)     -- n == 6, out = { 5, 6, 7, 4, 2, 3 }
--   for i = 1, n do perform(dom:action_name(out[i])) end
local core = require "saspu.core"

local loadfile, type, error = loadfile, type, error

local saspu = {
  _VERSION = "saspu 0.1.0",
  classes = { "SAS-PUC0", "SAS-PUCS2", "SAS-PUC*2" },
}

-- saspu.domain(spec) -> saspu.Domain; raises a path-naming error on bad input.
saspu.domain = core.domain

-- saspu.load(path) -> the plain table of a domain file. The file is data: it runs
-- with an empty environment, so it can build tables but call nothing.
function saspu.load(path)
  if type(path) ~= "string" then
    error("saspu.load: expected a file path, got " .. type(path), 2)
  end
  local chunk, err = loadfile(path, "t", {})
  if not chunk then
    error("saspu.load: " .. err, 2)
  end
  local spec = chunk()
  if type(spec) ~= "table" then
    error("saspu.load: " .. path .. " returned " .. type(spec) .. ", expected a table", 2)
  end
  return spec
end

-- saspu.domain_file(path) -> saspu.Domain compiled from a domain file.
function saspu.domain_file(path)
  return core.domain(saspu.load(path))
end

return saspu
