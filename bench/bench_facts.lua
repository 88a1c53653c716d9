-- bench/bench_facts.lua: a world fact whose change concerns 1 agent of a million: the frame it costs against a frame with no change, against the same change made to that one agent alone (a:set: what the one agent costs), and against the same change made with crowd:set_all (medians, one process).
-- Run: lua5.4 bench/bench_facts.lua [agents] [threads] [frames]   (from the repo root,
-- with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
package.path = "bench/support/?.lua;" .. package.path
local lb = require "lua_bench"
lb.paths()
local saspu = require "saspu"

local N = tonumber(arg[1]) or 1000000
local THREADS = tonumber(arg[2]) or 2
local FRAMES = tonumber(arg[3]) or 31
local DT = 1 / 60
local median = lb.median

-- A guard walks to the bank while the alarm is quiet: only its plan reads the alarm.
-- Everybody else brews coffee for ever (a plan that does not read it). `alarm` is the
-- world's fact; `alarm2` the same variable kept per agent, for the set_all way. A change
-- breaks the guard's plan (it replans: no plan, idle); between timed frames an untimed
-- one puts everything back and wakes it (`shift`).
local dom = saspu.domain {
  name = "bench_guard",
  variables = {
    { name = "alarm", values = { "quiet", "ringing" } },
    { name = "alarm2", values = { "quiet", "ringing" } },
    { name = "post", values = { "home", "bank" } },
    { name = "coffee", values = { "no", "yes" } },
    { name = "shift", values = { "a", "b" } },
  },
  actions = {
    { name = "stroll", var = "post", pre = "home", post = "bank", prevail = { alarm = "quiet", alarm2 = "quiet" } },
    { name = "brew", var = "coffee", pre = "no", post = "yes" },
    { name = "a_to_b", var = "shift", pre = "a", post = "b", prevail = { coffee = "no" } },
  },
  goals = {},
}
local world = saspu.world { facts = { alarm = { "quiet", "ringing" } }, threads = THREADS }
local long = { duration = 1e6 } -- nobody finishes during the bench
local crowd = world:crowd(dom, {
  actions = { stroll = long, brew = long },
  goals = { { { coffee = "yes" }, priority = 2 }, { { post = "bank" }, priority = 1 } },
}, { capacity = N, facts = { "alarm" } })
local start = { alarm = "quiet", alarm2 = "quiet", post = "home", coffee = "yes", shift = "a" }
crowd:spawn_packed(dom:encode(start), 1, 1)
local guard = crowd:agent(1)
start.coffee = "no"
local brewer = dom:encode(start)
for _ = 2, N do crowd:spawn_packed(brewer, 1, 1) end
for _ = 1, 5 do world:update(DT) end -- plans made, buffers grown
assert(guard:inspect().action == "stroll", "the guard strolls to the bank")

-- Untimed: the alarm quiet again and the guard strolling again.
local shifts = { "a", "b" }
local function reset(f)
  world:set("alarm", "quiet")
  crowd:set_all("alarm2", "quiet")
  guard:set("shift", shifts[f % 2 + 1])
  world:update(DT)
  world:update(DT)
  assert(guard:inspect().action == "stroll", "the guard strolls again")
end

local clock = saspu.clock_ns
local plain, fact, all, one = {}, {}, {}, {}
local no_plans0 = crowd:stats({}, true).no_plans
-- A frame after `change` (timed), then the untimed reset; the change reached the guard.
local function after(change, f)
  local t0 = clock()
  change()
  world:update(DT)
  local ms = (clock() - t0) / 1e6
  assert(guard:inspect().phase ~= "acting", "the change reached the guard")
  reset(f)
  return ms
end
local function set_fact() world:set("alarm", "ringing") end
local function set_every() crowd:set_all("alarm2", "ringing") end
local function set_guard() guard:set("alarm2", "ringing") end
for f = 1, FRAMES do
  local t0 = clock()
  world:update(DT)
  plain[f] = (clock() - t0) / 1e6
  fact[f] = after(set_fact, f)
  all[f] = after(set_every, f)
  one[f] = after(set_guard, f)
end
local no_plans = crowd:stats({}, true).no_plans - no_plans0
local mp, mf, ma, mo = median(plain), median(fact), median(all), median(one)
print(string.format("bench_facts: %s; %d agents, %d threads, %d frames of each",
                    lb.machine(saspu.cores()), N,
                    THREADS, FRAMES))
print(string.format("frame, no change                      median %8.3f ms", mp))
print(string.format("frame after world:set (1 agent reads) median %8.3f ms  (%.2fx the plain frame)",
                    mf, mf / mp))
print(string.format("the guard's a:set alone + frame        median %8.3f ms  (world:set frame %.2fx this)",
                    mo, mf / mo))
print(string.format("set_all of the same change + frame    median %8.3f ms  (%.1fx the world:set frame)",
                    ma, ma / mf))
print(string.format("no_plan events: %d (the guard, once per timed change: %d expected)", no_plans, 3 * FRAMES))
