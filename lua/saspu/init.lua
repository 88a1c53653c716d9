-- lua/saspu/init.lua: the saspu module that `require "saspu"` loads: domain tables compiled in C, planning and grid pathfinding from Lua.
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
--
-- Grid pathfinding (Dijkstra and A*) for walking to an action's ?pos parameter:
--   saspu.grid(w, h [, cost])    -> saspu.Grid of w x h open cells of `cost` (default 1)
--   saspu.grid_from_ascii(text)  -> saspu.Grid drawn as a picture, one line per row, top first:
--                                   '#' blocked, '.' open ground cost 2, '=' road cost 1,
--                                   '1'..'9' that cost; rows end with "\n" or "\r\n"
-- Cells are 1-based: x in 1..w (left to right), y in 1..h (top to bottom, the picture's line).
-- A move goes to one of the 8 neighbours and costs (cost(a) + cost(b)) / 2, times sqrt(2) on a
-- diagonal. Costs are numbers in [0.001, 1e6], stored as C floats.
-- saspu.Grid (closes with __gc or a to-be-closed variable; tostring: "saspu.Grid 128x128"):
--   g:width(), g:height(), g:cost(x, y), g:is_blocked(x, y)
--   g:set_cost(x, y, cost)                 a blocked cell stays blocked and keeps the new cost
--   g:set_blocked(x, y, blocked)           boolean; unblocking restores the cell's cost
--   g:fill_cost(x, y, w, h, cost), g:fill_blocked(x, y, w, h, blocked)   rectangles
--   g:set_costs(x, y, w, h, values)        w*h entries row by row: a cost, or 0 / false = blocked
--   g:set_map(x, y, text)                  paints a picture (legend above) at (x, y)
--   g:path(x0, y0, x1, y1 [, opts])        -> { { x, y }, ... }, cost   start and target included
--                                          | nil, reason, "blocked" | "unreachable"
--       opts: { algorithm = "astar" (default) | "dijkstra", corner_cutting = false }
--       corner_cutting = true lets a diagonal pass between blocked cells.
--   g:path_into(out, x0, y0, x1, y1 [, opts]) -> count, cost | nil, reason, code
--       the per-frame form: out = { x1, y1, x2, y2, ... } flat (2 * count entries, later ones
--       cleared; all cleared on failure). Reusing out and opts allocates nothing.
--   g:last_stats([out])                    -> { found, algorithm, expanded, pushed, heap_peak,
--                                               length, cost } of the last search
--   g:memory()                             -> bytes of the grid, its workspace and path buffer
--   g:close()
-- Out-of-range cells, bad costs and bad options raise an error naming the argument
-- ("x0 = 0 is outside 1..128"); a blocked endpoint or an unreachable target returns nil.
-- Each grid makes one search workspace on its first search and reuses it.
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

-- saspu.grid(w, h [, cost]) and saspu.grid_from_ascii(text) -> saspu.Grid.
saspu.grid = core.grid
saspu.grid_from_ascii = core.grid_from_ascii

-- saspu.domain_file(path) -> saspu.Domain compiled from a domain file.
function saspu.domain_file(path)
  return core.domain(saspu.load(path))
end

return saspu
