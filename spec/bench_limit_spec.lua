-- spec/bench_limit_spec.lua: bench/limit.c's baselines do the work the benches say they do: the 64-byte wheel one event a step end, the wheel doing the crowd's work two events a step end that starts the next step and five a step end that ends a plan (the plan's end in one frame, the next goal, its plan and first step in the next), every agent's steps 1-3 s; its CPU clock reads finer than os.clock.
local ok, limit = pcall(require, "limit")

describe("bench/limit.c", function()
  if not ok then
    pending("limit.so is not built for this Lua (the bench_limit target)")
    return
  end

  local N = 20000

  it("the 64-byte wheel writes one event a step end, each agent every 1-3 s", function()
    local w = limit.wheel(N, 64)
    local total = 0
    for _ = 1, 600 do
      local ends = w:frame()
      assert.equal(ends, w:stats().events)
      total = total + ends
    end
    assert.equal(total, w:stats().ends)
    -- 10 s of steps of 1-3 s: between 10/3 and 10 step ends an agent
    assert.is_true(total >= math.floor(N * 10 / 3) and total <= N * 10, tostring(total))
  end)

  it("the crowd's work: two events a step that starts the next, five a plan's end", function()
    local w = limit.work(N) -- first plans of 4 steps of 1-3 s
    local last = 0
    for frame = 1, 1200 do
      local ends = w:frame()
      local events = w:stats().events
      if frame <= 180 then -- no first plan ends before its fourth step, 3 s on
        assert.equal(2 * ends, events)
      elseif frame > 720 then -- past every first plan's third step: each end ends a plan
        assert.equal(2 * ends + 3 * last, events, "frame " .. frame)
      end
      last = ends
    end
    -- the next goal comes a frame after the plan's end: about as many ends as the wheel
    local fat = limit.wheel(N, 64)
    for _ = 1, 1200 do fat:frame() end
    local ratio = w:stats().ends / fat:stats().ends
    assert.is_true(ratio > 0.97 and ratio < 1.005, tostring(ratio))
  end)

  it("the crowd's work with one-step first plans ends a plan at every step end", function()
    local w = limit.work(N, 60, 121, 1)
    local last = 0
    for _ = 1, 400 do
      local ends = w:frame()
      assert.equal(2 * ends + 3 * last, w:stats().events)
      last = ends
    end
  end)

  it("reads the process's CPU time finer than os.clock, in step with it", function()
    local c0, o0 = limit.cpu_clock(), os.clock()
    local x = 0
    for k = 1, 2e6 do x = x + k % 7 end -- some CPU time
    local c1, o1 = limit.cpu_clock(), os.clock()
    assert.is_true(x > 0 and c1 > c0)
    -- the same clock: what each counted differs by os.clock's microseconds and the calls
    assert.is_true(math.abs((c1 - c0) - (o1 - o0)) < 0.002, tostring(c1 - c0) .. " " .. tostring(o1 - o0))
    -- os.clock reads whole microseconds; this clock reads nanoseconds between them
    local finer = 0
    for _ = 1, 100 do
      local us = limit.cpu_clock() * 1e6
      if math.abs(us - math.floor(us + 0.5)) > 1e-3 then finer = finer + 1 end
    end
    assert.is_true(finer > 0, "every reading on a whole microsecond")
  end)

  it("refuses records and plans out of range", function()
    assert.error_matches(function() limit.wheel(10, 32) end, "record of 2 or 64 bytes")
    assert.error_matches(function() limit.work(10, 60, 121, 17) end, "steps out of range")
    assert.error_matches(function() limit.work(10, 0) end, "frames out of range")
  end)
end)
