-- spec/support/compat.lua: what the specs need to run unchanged on Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT.
local load, floor, math_type = load, math.floor, math.type

local M = {}

-- M.with_close(make, use): binds make()'s result to a to-be-closed local,
-- calls use(x) and leaves the scope. Nil before Lua 5.4, where the syntax
-- does not parse: specs mark those cases pending. Compiled from text so
-- that older versions can load this file.
M.with_close = _VERSION >= "Lua 5.4"
  and load("local make, use = ... do local x <close> = make(); use(x) end")
  or nil

-- True when x is an integer: an integer subtype on 5.3+, an integral
-- number where Lua has no integers.
function M.is_integer(x)
  if math_type then
    return math_type(x) == "integer"
  end
  return type(x) == "number" and x == floor(x)
end

-- M.eager_collector() -> restore: makes the collector run a step at
-- almost every allocation (pause 1%, step multiplier 1000), so finalizers
-- run in the middle of C functions; restore() puts the old settings back.
-- 5.4 switches to incremental mode for it (busted runs generational).
function M.eager_collector()
  if _VERSION >= "Lua 5.4" then
    local mode = collectgarbage("incremental", 1, 1000)
    collectgarbage()
    return function() collectgarbage(mode) end
  end
  local pause = collectgarbage("setpause", 1)
  local stepmul = collectgarbage("setstepmul", 1000)
  collectgarbage()
  return function()
    collectgarbage("setpause", pause)
    collectgarbage("setstepmul", stepmul)
  end
end

-- M.heap_growth_kib(fn) -> how many KiB the Lua heap grew by while fn()
-- ran with the collector stopped. fn runs once before, unmeasured, so
-- one-off growth is not counted (5.2 and 5.3 shrink the stack and call
-- list on a full collection; the next deep call grows them again).
-- LuaJIT's compiler is off meanwhile: its traces are collectable objects.
function M.heap_growth_kib(fn)
  local jit = rawget(_G, "jit")
  if jit then
    jit.off()
    jit.flush()
  end
  fn()
  collectgarbage("collect")
  collectgarbage("stop")
  fn()
  local before = collectgarbage("count")
  fn()
  local grown = collectgarbage("count") - before
  collectgarbage("restart")
  if jit then
    jit.on()
  end
  return grown
end

return M
