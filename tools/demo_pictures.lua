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
  local gp, written = {}, {}
  local function add(...) gp[#gp + 1] = format(...) end
  add("set terminal pngcairo size 900,900 font 'sans,10'")
  add("set palette defined (0 '#efe6d2', 1 '#c9b58f', 2 '#5b4a3a')")
  add("unset colorbox")
  add("set xrange [-0.5:%d.5]", sim.town.width - 1)
  add("set yrange [%d.5:-0.5]", sim.town.height - 1)
  add("set size ratio -1")
  add("set key outside bottom horizontal")
  for k, c in ipairs(COLOURS) do add("set linetype %d lc rgb '%s'", k, c) end
  for _, shot in ipairs(shots) do
    local png = format("%s/town_%s.png", out, shot.clock:gsub(":", ""))
    add("set output '%s'", png)
    add("set title 'saspu town at %s: %d NPCs (%s)'", shot.clock, sim.npcs,
        sim.npcs > 20000 and "a sample drawn" or "every NPC")
    local parts = { format("'%s/map.dat' matrix with image notitle", out),
                    format("'%s/places.dat' using 1:2 with points pt 5 ps 0.6 lc rgb '#7f7f7f' title 'places'", out) }
    for k, cls in ipairs(sim.classes) do
      parts[#parts + 1] = format("'%s' using ($3==%d?$1-1:NaN):($2-1) with points pt 7 ps 0.45 lt %d title '%s'",
                                 shot.path, k, k, cls.name:gsub("_", " "))
    end
    add("plot %s", concat(parts, ", "))
    written[#written + 1] = png
  end
  local png = out .. "/ms_per_frame.png"
  add("set terminal pngcairo size 1000,500 font 'sans,10'")
  add("set output '%s'", png)
  add("set autoscale")
  add("set size noratio")
  add("set key inside top left vertical")
  add("set yrange [0:*]")
  add("set xlabel 'game hour'")
  add("set ylabel 'ms per frame'")
  add("set title 'saspu town: %d NPCs, ms per frame (one frame = %d game seconds)'", sim.npcs, demo.DT)
  add("plot '%s/frames.dat' using 2:3 with lines lw 1 title 'total', '' using 2:4 with lines title 'planning', "
      .. "'' using 2:5 with lines title 'walking (C update)', '' using 2:6 with lines title 'Lua'", out)
  written[#written + 1] = png
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
