-- tools/demo_pictures.lua: the demo's pictures (gnuplot PNGs of the town with its NPCs, ms per frame) and its live terminal view.
local format, concat, floor, max, min = string.format, table.concat, math.floor, math.max, math.min

local P = {}

-- Colours and names of the seven classes, in tools/demo.lua's order.
local COLOURS = { "#8c510a", "#d73027", "#1a9850", "#000000", "#4575b4", "#c51b7d", "#fdae61" }

-- Map cell values for the image: ground, road, wall, place.
local CELL = { ["."] = 0, ["="] = 1, ["#"] = 2 }

-- write_map(sim, path): the map as a gnuplot matrix (row 1 first).
function P.write_map(sim, path)
  local f = assert(io.open(path, "w"))
  for line in sim.town.ascii:gmatch("([^\n]*)\n") do
    local row = {}
    for x = 1, #line do row[x] = CELL[line:sub(x, x)] or 0 end
    f:write(concat(row, " "), "\n")
  end
  f:close()
  -- places drawn on top, as squares
  f = assert(io.open(path:gsub("map%.dat$", "places.dat"), "w"))
  for _, p in ipairs(sim.town.places) do f:write(p.x - 1, " ", p.y - 1, "\n") end
  f:close()
end

local function have_gnuplot()
  local ok = os.execute("command -v gnuplot >/dev/null 2>&1")
  return ok == true or ok == 0
end

-- NPCs drawn per picture at most (evenly sampled); the density shading counts them all.
P.PICTURE_POINTS = 20000

-- A small deterministic offset inside a cell for the j-th NPC drawn there, so a few NPCs
-- on one cell show as a few dots while a pile stays inside its cell (the shading says
-- how many).
local function jitter(j)
  if j == 1 then return 0, 0 end
  local th = j * 2.39996
  local r = 0.38 * ((j % 7) + 1) / 7
  return r * math.cos(th), r * math.sin(th)
end

-- P.disc(count) -> radius in cells, opacity: the shading of a cell that `count` NPCs
-- share. Both grow with log2(count), the radius capped so that a pile of thousands
-- still leaves its building visible; the opacity says the rest.
function P.disc(count)
  local l = math.log(count) / math.log(2)
  return min(5, 0.6 + 0.8 * l), min(0.8, 0.12 + 0.06 * l)
end

-- write_positions(sim, path): the NPCs of one moment for a map picture: "x y class" lines
-- (a sample of at most PICTURE_POINTS), and beside them (path with "npcs" -> "cells")
-- every occupied cell with at least two NPCs: "x y count class" (count of every NPC,
-- class the most common there).
function P.write_positions(sim, path)
  local f = assert(io.open(path, "w"))
  local stride = max(1, math.ceil(sim.npcs / P.PICTURE_POINTS))
  local drawn, cells = {}, {}
  for k, cls in ipairs(sim.classes) do
    for a = 1, cls.n do
      local x, y = cls.crowd:position(a)
      local key = y * 65536 + x
      local c = cells[key]
      if not c then
        c = { x = x, y = y, n = 0, by = {} }
        cells[key] = c
      end
      c.n = c.n + 1
      c.by[k] = (c.by[k] or 0) + 1
      if (a - 1) % stride == 0 then
        local j = (drawn[key] or 0) + 1
        drawn[key] = j
        local dx, dy = jitter(j)
        f:write(format("%.2f %.2f %d\n", x + dx, y + dy, k))
      end
    end
  end
  f:close()
  local list = {}
  for _, c in pairs(cells) do
    if c.n >= 2 then list[#list + 1] = c end
  end
  table.sort(list, function(a, b) return a.n < b.n or (a.n == b.n and a.y * 65536 + a.x < b.y * 65536 + b.x) end)
  f = assert(io.open((path:gsub("npcs_([^/]*)$", "cells_%1")), "w"))
  for _, c in ipairs(list) do
    local best, bk = -1, 1
    for k, n in pairs(c.by) do
      if n > best or (n == best and k < bk) then best, bk = n, k end
    end
    local r, a = P.disc(c.n)
    f:write(format("%d %d %d %d %.2f %d\n", c.x, c.y, c.n, bk, r,
                   floor((1 - a) * 255) * 16777216 + tonumber(COLOURS[bk]:sub(2), 16)))
  end
  f:close()
end

-- The map's labels: one per group of places of a kind (places of a kind closer than
-- LABEL_JOIN cells join a group), just above the group's top place, or below it, or
-- beside it, wherever it covers no label placed before (sizes in cells, for the 8 pt
-- font on the 1100-pixel picture: about 1.4 cells a character, 3 cells a line).
local LABEL_JOIN, CHAR_W, LINE_H = 20, 1.45, 3.4

local function kind_groups(places)
  local groups = {}
  for _, p in ipairs(places) do
    local joined
    for _, g in ipairs(groups) do
      if g.kind == p.kind then
        for _, q in ipairs(g) do
          if (q.x - p.x) ^ 2 + (q.y - p.y) ^ 2 <= LABEL_JOIN ^ 2 then joined = g break end
        end
      end
      if joined then break end
    end
    if not joined then
      joined = { kind = p.kind }
      groups[#groups + 1] = joined
    end
    joined[#joined + 1] = p
  end
  return groups
end

-- P.overlaps(a, list[, gap]): whether box a (centre x, y; size w, h in cells) comes
-- closer than gap cells (default 0) to any box of list.
function P.overlaps(a, list, gap)
  gap = gap or 0
  for _, b in ipairs(list) do
    if math.abs(a.x - b.x) * 2 < a.w + b.w + 2 * gap and math.abs(a.y - b.y) * 2 < a.h + b.h + 2 * gap then
      return true
    end
  end
  return false
end

function P.place_labels(places)
  local labels = {}
  for _, g in ipairs(kind_groups(places)) do
    local sx, top, bottom = 0, math.huge, -math.huge
    for _, p in ipairs(g) do sx, top, bottom = sx + p.x, min(top, p.y), max(bottom, p.y) end
    local text = g.kind:gsub("_", " ")
    local w, h, cx = #text * CHAR_W + 1, LINE_H, sx / #g
    local tries = { { cx, top - 2.4 }, { cx, bottom + 2.6 }, { cx + w / 2 + 1.5, top },
                    { cx - w / 2 - 1.5, top }, { cx, top - 2.4 - LINE_H }, { cx, bottom + 2.6 + LINE_H } }
    local label
    for _, t in ipairs(tries) do
      label = { text = text, x = t[1], y = t[2], w = w, h = h }
      if not P.overlaps(label, labels) then break end
    end
    labels[#labels + 1] = label
  end
  return labels
end

-- The q-quantile (0..1) of a list of numbers (nearest rank).
local function quantile(list, q)
  local sorted = {}
  for i, v in ipairs(list) do sorted[i] = v end
  table.sort(sorted)
  if #sorted == 0 then return 0 end
  return sorted[max(1, math.ceil(q * #sorted))]
end
P.quantile = quantile

-- The piles whose count is written beside them: the largest few, from PILE_MIN NPCs.
-- A count keeps PILE_GAP cells from every other label and stays inside the map.
local PILE_LABELS, PILE_MIN, PILE_GAP = 4, 10, 1.5

-- P.pile_labels(piles, taken, width, height) -> labels: a count label beside each
-- pile { x, y, n, r } (cells, 1-based; n NPCs, disc radius r) of PILE_MIN NPCs or
-- more, right, left, above or below its disc, farther out where those are taken; a
-- pile with no room near it goes without. Each label is added to `taken` too. Label
-- boxes are { text, x, y, w, h } (centre and size in cells), wholly inside the map
-- (cells 1..width, 1..height, each a unit square around its number).
function P.pile_labels(piles, taken, width, height)
  local labels = {}
  for _, p in ipairs(piles) do
    if p.n >= PILE_MIN then
      local text = p.n .. " NPCs"
      local w = (#text + 1) * CHAR_W -- the box's margins: half a character each side
      local label
      for far = 0, 2 do
        local dx, dy = p.r + w / 2 + PILE_GAP + far * w, p.r + LINE_H / 2 + PILE_GAP + far * LINE_H
        for _, d in ipairs { { dx, 0 }, { -dx, 0 }, { 0, -dy }, { 0, dy } } do
          local lx = max(0.5 + w / 2, min(width + 0.5 - w / 2, p.x + d[1]))
          local ly = max(0.5 + LINE_H / 2, min(height + 0.5 - LINE_H / 2, p.y + d[2]))
          local try = { text = text, x = lx, y = ly, w = w, h = LINE_H }
          if not P.overlaps(try, taken, PILE_GAP) then label = try break end
        end
        if label then break end
      end
      if label then
        taken[#taken + 1] = label
        labels[#labels + 1] = label
      end
    end
  end
  return labels
end

local function map_commands(add, sim, out, shots)
  add("set terminal pngcairo size 1100,1100 font 'sans,10'")
  add("set palette defined (0 '#f3ecdc', 1 '#d6c49f', 2 '#6b5846')")
  add("unset colorbox")
  add("set xrange [-0.5:%d.5]", sim.town.width - 1)
  add("set yrange [%d.5:-0.5]", sim.town.height - 1)
  add("set size ratio -1")
  add("set key outside bottom horizontal")
  add("set style textbox opaque fillcolor rgb '#fbf8f0' noborder margins 1,1")
  for k, c in ipairs(COLOURS) do add("set linetype %d lc rgb '%s'", k, c) end
  local labels = P.place_labels(sim.town.places)
  for i, l in ipairs(labels) do
    add("set label %d '%s' at %.1f,%.1f center front boxed font 'sans,8' tc rgb '#3d3226'",
        i, l.text, l.x - 1, l.y - 1)
  end
  local written = {}
  for _, shot in ipairs(shots) do
    local png = format("%s/town_%s.png", out, shot.clock:gsub(":", ""))
    local cells = shot.path:gsub("npcs_([^/]*)$", "cells_%1")
    add("set output '%s'", png)
    add("set title \"saspu town at %s: %d NPCs (%s); shading: NPCs sharing a cell, "
        .. "wider and darker for more\"", shot.clock, sim.npcs,
        sim.npcs > P.PICTURE_POINTS and format("dots: a sample of %d", P.PICTURE_POINTS) or "a dot each")
    local parts = {
      format("'%s/map.dat' matrix with image notitle", out),
      format("'%s/places.dat' using 1:2 with points pt 4 ps 0.7 lc rgb '#6b5846' title 'places'", out),
      -- the shading: a translucent disc per crowded cell, radius growing with log2(count)
      format("'%s' using ($1-1):($2-1):5:6 with circles lc rgb variable fs solid noborder notitle", cells),
    }
    for k, cls in ipairs(sim.classes) do
      parts[#parts + 1] = format("'%s' using ($3==%d?$1-1:NaN):($2-1) with points pt 7 ps 0.45 lt %d title '%s'",
                                 shot.path, k, k, cls.name:gsub("_", " "))
    end
    -- the largest piles get their count (the cells file is sorted by count)
    local lines, piles, taken = {}, {}, {}
    for i, l in ipairs(labels) do taken[i] = l end
    for line in io.lines(cells) do lines[#lines + 1] = line end
    for k = 1, min(PILE_LABELS, #lines) do
      local x, y, n, _, r = lines[#lines - k + 1]:match("^(%d+) (%d+) (%d+) (%d+) (%S+)")
      piles[k] = { x = tonumber(x), y = tonumber(y), n = tonumber(n), r = tonumber(r) }
    end
    for k, l in ipairs(P.pile_labels(piles, taken, sim.town.width, sim.town.height)) do
      add("set label %d '%s' at %g,%g center front boxed font 'sans,8' tc rgb '#000000'",
          #labels + k, l.text, l.x - 1, l.y - 1)
    end
    add("plot %s", concat(parts, ", "))
    for k = 1, PILE_LABELS do add("unset label %d", #labels + k) end
    written[#written + 1] = png
  end
  for i in ipairs(labels) do add("unset label %d", i) end
  return written
end

-- hours.dat: per game hour of the run, the medians of the frame and of its parts and
-- the frame's 95th percentile; returns the smallest positive value written (the log
-- axis starts below it, so no line is cut).
local function write_hours(path, frames, demo)
  local per_hour = 3600 / demo.DT
  local f = assert(io.open(path, "w"))
  f:write("# hour_start median_total p95_total median_planning median_walking median_lua\n")
  local low, last = math.huge, nil
  for first = 1, #frames, per_hour do
    local cols = { ms = {}, plan = {}, walk = {}, lua = {} }
    for i = first, min(#frames, first + per_hour - 1) do
      for key, list in pairs(cols) do list[#list + 1] = frames[i][key] end
    end
    local row = { quantile(cols.ms, 0.5), quantile(cols.ms, 0.95), quantile(cols.plan, 0.5),
                  quantile(cols.walk, 0.5), quantile(cols.lua, 0.5) }
    for _, v in ipairs(row) do
      if v > 0 then low = min(low, v) end
    end
    last = format("%.5f %.5f %.5f %.5f %.5f\n", row[1], row[2], row[3], row[4], row[5])
    f:write(format("%.4f ", demo.START_HOUR + (first - 1) * demo.DT / 3600), last)
  end
  -- the last hour's step runs to the end of the run
  if last then f:write(format("%.4f ", demo.START_HOUR + #frames * demo.DT / 3600), last) end
  f:close()
  return low
end

local function frame_commands(add, sim, out, frames, demo)
  local png = out .. "/ms_per_frame.png"
  local totals = {}
  for i, r in ipairs(frames) do totals[i] = r.ms end
  local median, p95, top = quantile(totals, 0.5), quantile(totals, 0.95), quantile(totals, 1)
  local low = min(write_hours(out .. "/hours.dat", frames, demo), quantile(totals, 0))
  local x0, x1 = demo.START_HOUR, demo.START_HOUR + #frames * demo.DT / 3600
  add("set terminal pngcairo size 1100,620 font 'sans,10'")
  add("set output '%s'", png)
  add("set autoscale")
  add("set size noratio")
  add("set key outside bottom center horizontal maxrows 3")
  add("set logscale y 10")
  add("set format y '%%g'")
  add("set yrange [%g:%g]", 10 ^ math.floor(math.log(max(low, 1e-4)) / math.log(10)), max(top * 1.5, 30))
  add("set xrange [%g:%g]", x0, x1)
  local tics = {}
  for h = math.ceil(x0), math.floor(x1), 2 do tics[#tics + 1] = format("'%02d:00' %d", h % 24, h) end
  add("set xtics (%s)", concat(tics, ", "))
  add("unset xlabel")
  add("set ylabel 'ms per frame (log scale)'")
  add("set grid ytics lc rgb '#dddddd'")
  add("set title \"saspu town: %d NPCs, ms per frame (one frame = %d game seconds), log scale\\n"
      .. "every frame: median %.3f ms, 95th percentile %.3f ms, max %.3f ms\"",
      sim.npcs, demo.DT, median, p95, top)
  -- per hour: steps at each hour's start; planning and Lua may be 0, which a log axis
  -- leaves out
  add("plot '%s/frames.dat' using 2:3 with points pt 7 ps 0.15 lc rgb '#b8b8b8' title 'each frame', "
      .. "'%s/hours.dat' using 1:3 with steps lw 2 lc rgb '#d73027' title 'hourly 95th percentile', "
      .. "'' using 1:2 with steps lw 2 lc rgb '#222222' title 'hourly median', "
      .. "'' using 1:($5>0?$5:NaN) with steps lw 1.5 lc rgb '#fdae61' title 'walking (C update), median', "
      .. "'' using 1:($6>0?$6:NaN) with steps lw 1.5 lc rgb '#c51b7d' title 'Lua, median', "
      .. "'' using 1:($4>0?$4:NaN) with steps lw 1.5 lc rgb '#4575b4' title 'planning, median', "
      .. "%g with lines dt 2 lw 1.5 lc rgb '#222222' title 'median of all frames (%.3f ms)', "
      .. "%g with lines dt 2 lw 1.5 lc rgb '#d73027' title '95th percentile (%.3f ms)', "
      .. "16.7 with lines dt 3 lc rgb '#555555' title '16.7 ms: a 60 fps frame'",
      out, out, median, median, p95, p95)
  add("unset logscale y")
  add("set format y '%%h'")
  return png
end

-- draw(sim, out, shots, frames, demo) -> the PNGs written (none without gnuplot).
function P.draw(sim, out, shots, frames, demo)
  local f = assert(io.open(out .. "/frames.dat", "w"))
  f:write("# frame game_hour ms_total ms_planning ms_walking ms_lua\n")
  for i, r in ipairs(frames) do
    f:write(format("%d %.4f %.4f %.4f %.4f %.4f\n", i, demo.START_HOUR + i * demo.DT / 3600,
                   r.ms, r.plan, r.walk, r.lua))
  end
  f:close()
  if not have_gnuplot() then return {} end
  local gp = {}
  local function add(...) gp[#gp + 1] = format(...) end
  local written = map_commands(add, sim, out, shots)
  written[#written + 1] = frame_commands(add, sim, out, frames, demo)
  f = assert(io.open(out .. "/town.gp", "w"))
  f:write(concat(gp, "\n"), "\n")
  f:close()
  local ok = os.execute("gnuplot '" .. out .. "/town.gp'")
  if not (ok == true or ok == 0) then error("demo: gnuplot failed on " .. out .. "/town.gp", 0) end
  return written
end

-- live(sim, opts) -> function(frame): redraws the busiest 100x32 window of the map in
-- place (ANSI), NPCs as their class letter, every 4 frames.
function P.live(sim, opts, demo)
  local W, H = 100, 32
  local rows = {}
  for line in sim.town.ascii:gmatch("([^\n]*)\n") do
    rows[#rows + 1] = line:gsub("%.", " ")
  end
  for _, p in ipairs(sim.town.places) do
    local r = rows[p.y]
    rows[p.y] = r:sub(1, p.x - 1) .. "+" .. r:sub(p.x + 1)
  end
  local info, x0, y0 = {}, 1, 1
  local stride = max(1, floor(sim.npcs / 20000))
  local function positions()
    local list = {}
    for _, cls in ipairs(sim.classes) do
      for a = 1, cls.n, stride do
        cls.crowd:info(a, info)
        list[#list + 1] = { info.x, info.y, cls.letter }
      end
    end
    return list
  end
  -- the window with the most NPCs, on a coarse grid of candidate corners
  local function busiest(list)
    local best, bx, by = -1, 1, 1
    for cy = 1, sim.town.height - H + 1, 8 do
      for cx = 1, sim.town.width - W + 1, 8 do
        local n = 0
        for _, p in ipairs(list) do
          if p[1] >= cx and p[1] < cx + W and p[2] >= cy and p[2] < cy + H then n = n + 1 end
        end
        if n > best then best, bx, by = n, cx, cy end
      end
    end
    return bx, by
  end
  io.write("\27[2J")
  return function(frame)
    if frame % 4 ~= 0 and frame ~= opts.frames then return end
    local list = positions()
    if frame % 240 == 4 or frame == 4 then x0, y0 = busiest(list) end
    local grid = {}
    for y = 1, H do grid[y] = {} end
    for _, p in ipairs(list) do
      local gx, gy = p[1] - x0 + 1, p[2] - y0 + 1
      if gx >= 1 and gx <= W and gy >= 1 and gy <= H then grid[gy][gx] = p[3] end
    end
    local out = { "\27[H", format("saspu town %s  frame %d/%d  %d NPCs  window (%d,%d)  "
      .. "b breeder f farrier n hunter x bandit i innkeeper d dancer z drunk\27[K\n",
      demo.clock(frame), frame, opts.frames, sim.npcs, x0, y0) }
    for y = 1, H do
      local src = rows[y0 + y - 1]
      local line = {}
      for x = 1, W do line[x] = grid[y][x] or src:sub(x0 + x - 1, x0 + x - 1) end
      out[#out + 1] = concat(line) .. "\27[K\n"
    end
    io.write(concat(out))
    io.flush()
    if opts.delay and opts.delay > 0 then os.execute(format("sleep %.3f", min(opts.delay, 1000) / 1000)) end
  end
end

return P
