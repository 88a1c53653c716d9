-- bench/bench_record.lua: what world:record costs the Western town of ./dev demo: median ms per frame of the same town with and without a recording (events and cell changes every frame), side by side in one process, and the bytes per event and per cell change.
-- Run: lua5.4 bench/bench_record.lua [sizes] [warm-up frames] [frames] [threads]   (from the
-- repo root, with build/ holding saspu/core.so; SASPU_BUILD_DIR names another build
-- directory). sizes is a comma list (default 100000,1000000); frames are the demo's (30 game
-- seconds from 05:00); the two towns alternate frames, so load from other jobs falls on both
-- alike. The trace goes to TMPDIR (default /tmp) and is removed afterwards.
local build = os.getenv("SASPU_BUILD_DIR") or "build"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;bench/support/?.lua;" .. package.path
local saspu = require "saspu"
local demo = assert(loadfile("tools/demo.lua"))("--module")

local SIZES = {}
for n in (arg[1] or "100000,1000000"):gmatch("%d+") do SIZES[#SIZES + 1] = tonumber(n) end
local WARM = tonumber(arg[2]) or 20
local FRAMES = tonumber(arg[3]) or 60
local THREADS = tonumber(arg[4]) or 1

local function median(t)
  local s = {}
  for i = 1, #t do s[i] = t[i] end
  table.sort(s)
  return s[math.floor((#s + 1) / 2)]
end

local function mean(t)
  local sum = 0
  for i = 1, #t do sum = sum + t[i] end
  return sum / #t
end

local f = io.open("/proc/cpuinfo")
local model = f and f:read("*a"):match("model name%s*:%s*([^\n]+)") or "unknown CPU"
if f then f:close() end
print(string.format("machine: %s, %d online cores", model, saspu.cores()))
print(string.format("town: 7 crowds, 256x256 map, frames of %d game s from %02d:00, %d thread(s); %d warm-up "
  .. "frames, then %d timed (medians; the two towns' frames alternate; the recording starts at frame 1)",
  demo.DT, demo.START_HOUR, THREADS, WARM, FRAMES))
print("(ms per frame: median and mean; recorded / plain: ratio of the means and median of per-frame"
  .. " ratios; encode: the recorder's part of the recorded frame, of which wait: for its writer thread)")
print(string.format("%9s | %9s %9s %9s %9s | %7s %7s | %9s %9s | %7s %7s | %s", "NPCs", "plain", "mean",
                    "recorded", "mean", "means", "median", "events/f", "cells/f", "B/event", "B/cell",
                    "encode, wait ms/frame"))
for _, n in ipairs(SIZES) do
  local plain = demo.build { npcs = n, threads = THREADS, seed = 1, start = demo.START_HOUR }
  local rec = demo.build { npcs = n, threads = THREADS, seed = 1, start = demo.START_HOUR }
  local path = (os.getenv("TMPDIR") or "/tmp") .. "/saspu_bench_record_" .. n .. ".trace"
  rec.world:record { path = path }
  local a, b, ratio, ca, cb = {}, {}, {}, {}, {}
  local before
  for frame = 1, WARM + FRAMES do
    -- cpu: the process's CPU time in the frame (all threads: the writer's included)
    local c0, u0 = saspu.clock_ns(), os.clock()
    demo.step(plain, frame, demo.new_acc())
    local c1, u1 = saspu.clock_ns(), os.clock()
    demo.step(rec, frame, demo.new_acc())
    local c2, u2 = saspu.clock_ns(), os.clock()
    if frame == WARM then before = rec.world:recording() end
    if frame > WARM then
      local p, r = (c1 - c0) / 1e6, (c2 - c1) / 1e6
      a[#a + 1], b[#b + 1], ratio[#ratio + 1] = p, r, r / math.max(p, 1e-6)
      ca[#ca + 1], cb[#cb + 1] = (u1 - u0) * 1e3, (u2 - u1) * 1e3
    end
  end
  local s = rec.world:stop_recording()
  local ev, cells = s.events - before.events, s.cells - before.cells
  print(string.format("%9d | %9.2f %9.2f %9.2f %9.2f | %7.3f %7.3f | %9.0f %9.0f | %7.2f %7.2f | %.3f, %.3f",
                      n, median(a), mean(a), median(b), mean(b), mean(b) / mean(a), median(ratio),
                      ev / FRAMES, cells / FRAMES, (s.event_bytes - before.event_bytes) / math.max(1, ev),
                      (s.cell_bytes - before.cell_bytes) / math.max(1, cells),
                      (s.ms_encode - before.ms_encode) / FRAMES, (s.ms_wait - before.ms_wait) / FRAMES))
  print(string.format("%9s   CPU ms per frame (all threads): plain %.2f, recorded %.2f (means), %.3fx;"
                      .. " trace: %d bytes for %d frames (%d events, %d cell changes)", "", mean(ca), mean(cb),
                      mean(cb) / math.max(mean(ca), 1e-6), s.bytes, s.frames, s.events, s.cells))
  os.remove(path)
  plain, rec = nil, nil -- luacheck: ignore
  collectgarbage()
  collectgarbage()
end
