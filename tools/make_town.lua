-- tools/make_town.lua: draws the Western town map domains/town/town.txt (256x256, deterministic): run `lua5.4 tools/make_town.lua > domains/town/town.txt`.
--
-- Characters: '#' wall (blocked), '=' road (cost 1), '.' ground (cost 2), a letter a
-- place whose kind and capacity domains/town/legend.lua gives (lua/saspu/town.lua turns
-- letters back into ground for saspu.grid_from_ascii). Every building has a door on a
-- road or on open ground; tests (spec/town_spec.lua) check that every place can be
-- walked to from the saloon.
local W, H = 256, 256
local rows = {}
for y = 1, H do
  local row = {}
  for x = 1, W do row[x] = "." end
  rows[y] = row
end

local function put(x, y, ch) rows[y][x] = ch end

local function fill(x0, y0, x1, y1, ch)
  for y = y0, y1 do
    for x = x0, x1 do rows[y][x] = ch end
  end
end

-- A room: walls around (x0, y0)-(x1, y1), ground inside, and doors (lists of {x, y}
-- on the wall, opened to ground).
local function room(x0, y0, x1, y1, doors)
  fill(x0, y0, x1, y0, "#")
  fill(x0, y1, x1, y1, "#")
  fill(x0, y0, x0, y1, "#")
  fill(x1, y0, x1, y1, "#")
  fill(x0 + 1, y0 + 1, x1 - 1, y1 - 1, ".")
  for _, d in ipairs(doors or {}) do put(d[1], d[2], ".") end
end

-- ---- roads ------------------------------------------------------------
fill(16, 120, 240, 124, "=")          -- Main Street, west to east
fill(126, 30, 130, 230, "=")          -- Church Street, north to south
fill(130, 30, 200, 32, "=")           -- the trail to the hunting grounds
fill(198, 14, 200, 32, "=")
fill(16, 124, 18, 236, "=")           -- the south-west trail to the hideout
fill(16, 234, 24, 236, "=")

-- ---- north side of Main Street ----------------------------------------
-- Saloon (x 24-74, y 92-118): bar, tables, piano, stage and a dressing room.
room(24, 92, 74, 118, { { 48, 118 }, { 49, 118 }, { 50, 118 } })
for x = 30, 44 do put(x, 98, "#") end           -- the bar counter
put(32, 99, "S"); put(37, 99, "S"); put(42, 99, "S")
for _, t in ipairs { { 32, 106 }, { 38, 106 }, { 44, 106 }, { 32, 112 }, { 38, 112 },
                     { 44, 112 } } do put(t[1], t[2], "T") end
fill(54, 94, 72, 100, "#")                       -- the stage, raised (walls around)
fill(55, 95, 71, 99, ".")
fill(60, 100, 64, 100, ".")                      -- steps
put(63, 97, "G")
put(56, 104, "P")                                -- the piano
room(66, 104, 73, 117, { { 66, 110 } })          -- the dressing room
put(70, 110, "D")
put(46, 119, "C"); put(52, 119, "C")             -- benches on the boardwalk
put(28, 119, "H"); put(70, 119, "H")             -- hitching posts

-- Bank (x 80-108, y 98-118): the counter and the vault behind it.
room(80, 98, 108, 118, { { 94, 118 } })
for x = 81, 107 do put(x, 108, "#") end          -- the counter line
put(94, 108, ".")                                -- the counter gate
put(94, 110, "B")
room(84, 99, 104, 106, { { 94, 106 } })          -- the vault
put(94, 102, "V")
put(84, 119, "H")

-- Inn (x 134-176, y 92-118): the desk downstairs, six rooms.
room(134, 92, 176, 118, { { 155, 118 } })
put(155, 112, "K")
for i = 0, 5 do
  local x0 = 135 + i * 7
  room(x0, 92, x0 + 6, 102, { { x0 + 3, 102 } })
  put(x0 + 3, 96, "R")
end

-- General store (x 184-206, y 100-118).
room(184, 100, 206, 118, { { 195, 118 } })
put(195, 108, "U")

-- Church (x 214-236, y 90-118).
room(214, 90, 236, 118, { { 225, 118 } })
put(225, 96, "c")

-- ---- south side of Main Street ----------------------------------------
-- Stables (x 24-62, y 126-150): stalls, the hay barn, the feeder and the trough.
room(24, 126, 62, 150, { { 43, 126 } })
put(30, 134, "L")
room(26, 140, 38, 149, { { 32, 140 } })          -- the hay barn
put(32, 145, "Y")
put(50, 136, "E"); put(54, 136, "E")             -- feeders
put(50, 144, "O"); put(54, 144, "O")             -- troughs
put(46, 125, "H")

-- Forge (x 66-96, y 126-146): forge, anvil, quench tub.
room(66, 126, 96, 146, { { 80, 126 }, { 81, 126 } })
put(72, 140, "F")
put(80, 136, "A")
put(88, 136, "Q")
put(92, 125, "H")

-- The town well, at the crossroads.
fill(122, 126, 124, 128, "#")
put(123, 129, "W")

-- Houses, on both sides of Church Street south of Main Street.
for i = 0, 4 do
  local y0 = 132 + i * 18
  room(110, y0, 122, y0 + 12, { { 122, y0 + 6 } })
  put(116, y0 + 6, "h")
  room(134, y0, 146, y0 + 12, { { 134, y0 + 6 } })
  put(140, y0 + 6, "h")
end

-- The street where the drunk staggers: spots on Main Street.
put(60, 122, "Z"); put(100, 122, "Z"); put(160, 122, "Z")

-- ---- outside town -------------------------------------------------------
-- Hunting grounds in the north-east, among rocks.
for _, r in ipairs { { 205, 10, 210, 14 }, { 220, 20, 226, 23 }, { 232, 8, 236, 16 },
                     { 212, 40, 218, 44 } } do fill(r[1], r[2], r[3], r[4], "#") end
put(210, 30, "N"); put(228, 12, "N"); put(240, 36, "N"); put(222, 50, "N")

-- The hideout: a shack in the south-west.
room(12, 238, 30, 250, { { 21, 238 } })
put(21, 244, "X")

local out = {}
for y = 1, H do out[y] = table.concat(rows[y]) end
io.write(table.concat(out, "\n"), "\n")
