-- bench/bench_trace_read.lua: what reading a large trace costs: the Western town of ./dev demo recorded at a million NPCs, then `saspu trace FILE` (the summary), `--agent CLASS:N` (one life) and `--html` (the page) timed as separate processes: median wall and CPU seconds, peak RSS, the page's size; against reading the file's bytes (cat) and, for traces small enough, the reader that decodes every event and sums up in Lua.
-- Run: lua5.4 bench/bench_trace_read.lua [sizes] [frames] [repeats] [lua limit]   (from the repo
-- root, with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build directory).
-- sizes is a comma list of NPC counts (default 1000000); frames are the demo's (30 game
-- seconds each from 05:00, default 40); each command runs `repeats` times (default 3); the
-- whole-read Lua summary runs only on traces of at most `lua limit` events (default
-- 3000000). Peak RSS comes from /usr/bin/time -v. The trace goes to TMPDIR (default /tmp)
-- and is removed afterwards (SASPU_KEEP_TRACE=1 keeps it).
package.path = "bench/support/?.lua;" .. package.path
local bench = require "lua_bench"
bench.paths()
local build = os.getenv("SASPU_BUILD_DIR") or "build"
local saspu = require "saspu"
local demo = assert(loadfile("tools/demo.lua"))("--module")

local SIZES = {}
for n in (arg[1] or "1000000"):gmatch("%d+") do SIZES[#SIZES + 1] = tonumber(n) end
local FRAMES = tonumber(arg[2]) or 40
local REPEATS = tonumber(arg[3]) or 3
local LUA_LIMIT = tonumber(arg[4]) or 3000000
local TMP = os.getenv("TMPDIR") or "/tmp"
local format, median = string.format, bench.median

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

-- Runs shell command `cmd` under /usr/bin/time -v, `REPEATS` times: medians of wall and
-- CPU (user + system) seconds, the largest peak RSS (MiB), the last run's output.
local function timed(cmd)
  local wall, cpu, rss, out = {}, {}, 0, ""
  for r = 1, REPEATS do
    local log, o = os.tmpname(), os.tmpname()
    local ok = os.execute(format("/usr/bin/time -v -o %s sh -c %q > %s 2>&1", log, cmd, o))
    local v = slurp(log) or ""
    out = slurp(o) or ""
    os.remove(log)
    os.remove(o)
    if not ok then error(format("%s failed:\n%s\n%s", cmd, out, v)) end
    local user = tonumber(v:match("User time %(seconds%): ([%d.]+)"))
    local sys = tonumber(v:match("System time %(seconds%): ([%d.]+)"))
    local h, m, s = v:match("Elapsed %(wall clock%) time %(h:mm:ss or m:ss%): ([%d:]-)(%d+):([%d.]+)")
    local hours = h and h ~= "" and tonumber(h:match("%d+")) or 0
    wall[r] = hours * 3600 + tonumber(m) * 60 + tonumber(s)
    cpu[r] = user + sys
    rss = math.max(rss, tonumber(v:match("Maximum resident set size %(kbytes%): (%d+)")) / 1024)
  end
  return median(wall), median(cpu), rss, out
end

print("machine: " .. bench.machine(saspu.cores()))
print(format("town: the demo's 7 crowds on the 256x256 map, %d frames of %d game s from %02d:00, recorded "
             .. "(events every frame, cell changes every frame); each command %d times as its own process "
             .. "(medians; RSS: the largest)", FRAMES, demo.DT, demo.START_HOUR, REPEATS))
local env = format("SASPU_BUILD_DIR=%s", build)
for _, n in ipairs(SIZES) do
  local path = format("%s/saspu_bench_trace_%d.trace", TMP, n)
  local page = format("%s/saspu_bench_trace_%d.html", TMP, n)
  local t0 = saspu.clock_ns()
  local sim = demo.build { npcs = n, threads = 1, seed = 1, start = demo.START_HOUR }
  local t1 = saspu.clock_ns()
  sim.world:record { path = path }
  for frame = 1, FRAMES do demo.step(sim, frame, demo.new_acc()) end
  local s = sim.world:stop_recording()
  local t2 = saspu.clock_ns()
  sim = nil -- luacheck: ignore
  collectgarbage()
  collectgarbage()
  print(format("\n%d NPCs: built in %.1f s, %d frames recorded in %.1f s: %d events, %d cell changes, "
               .. "%.1f MiB (%.2f bytes per event, all included; events alone %.2f)", n, (t1 - t0) / 1e9,
               s.frames, (t2 - t1) / 1e9, s.events, s.cells, s.bytes / 2 ^ 20, s.bytes / math.max(1, s.events),
               s.event_bytes / math.max(1, s.events)))
  print(format("%-44s | %8s %8s | %9s | %s", "command", "wall s", "CPU s", "peak MiB", "notes"))
  local function row(name, cmd, note)
    local wall, cpu, rss, out = timed(cmd)
    print(format("%-44s | %8.2f %8.2f | %9.1f | %s", name, wall, cpu, rss, note and note(out) or ""))
    return out
  end
  row("cat FILE > /dev/null (the bytes, once)", format("cat %s > /dev/null", path))
  local summary = row("saspu trace FILE (summary, streamed)", format("%s lua5.4 bin/saspu trace %s", env, path),
                      function(out) return format("%d lines", select(2, out:gsub("\n", ""))) end)
  local agent = summary:match("stuck longest:%s+([%w_]+:%d+)") or "bandit:1"
  row("saspu trace --agent " .. agent, format("%s lua5.4 bin/saspu trace --agent %s %s", env, agent, path),
      function(out) return format("%d lines", select(2, out:gsub("\n", ""))) end)
  row("saspu trace --html (two streamed reads)", format("%s lua5.4 bin/saspu trace --html %s %s", env, page, path),
      function() return format("page %.1f KiB", #(slurp(page) or "") / 1024) end)
  if s.events <= LUA_LIMIT then
    row("whole read + Lua summary (every event)",
        format("%s lua5.4 -e 'package.path=\"lua/?.lua;lua/?/init.lua;\"..package.path; "
               .. "package.cpath=\"%s/?.so;\"..package.cpath; local t=require(\"saspu.trace\").open(\"%s\"); "
               .. "require(\"saspu.trace_report\").summary_events(t)'", env, build, path))
  else
    print(format("%-44s | skipped: %d events > %d (lua limit)", "whole read + Lua summary", s.events, LUA_LIMIT))
  end
  if os.getenv("SASPU_KEEP_TRACE") ~= "1" then os.remove(path) end
  os.remove(page)
end
