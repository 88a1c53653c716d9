-- spec/support/save_bytes.lua: edits a world's save as a modder would (another script part, a byte changed) and seals it again with a valid checksum, on every Lua version (no 64-bit integers: 16-bit limbs in doubles).
local floor, char, byte = math.floor, string.char, string.byte

local M = {}

-- a xor b for bytes.
local function xor8(a, b)
  local r, bit = 0, 1
  for _ = 1, 8 do
    local x, y = a % 2, b % 2
    if x ~= y then r = r + bit end
    a, b, bit = (a - x) / 2, (b - y) / 2, bit * 2
  end
  return r
end

-- FNV-1a 64 of s: four 16-bit limbs, low first; the prime is 2^40 + 0x1b3.
local function fnv(s)
  local l = { 0x2325, 0x8422, 0x9ce4, 0xcbf2 }
  local xors = {}
  for a = 0, 255 do
    xors[a] = {}
    for b = 0, 255 do xors[a][b] = xor8(a, b) end
  end
  for k = 1, #s do
    local low = l[1] % 256
    l[1] = l[1] - low + xors[low][byte(s, k)]
    -- h * 0x1b3 + (h << 40), mod 2^64
    local m = { l[1] * 0x1b3, l[2] * 0x1b3, l[3] * 0x1b3, l[4] * 0x1b3 }
    m[3] = m[3] + (l[1] % 256) * 256
    m[4] = m[4] + floor(l[1] / 256) + (l[2] % 256) * 256
    local carry = 0
    for i = 1, 4 do
      local v = m[i] + carry
      l[i] = v % 65536
      carry = floor(v / 65536)
    end
  end
  return l
end

local function le(v, n)
  local out = {}
  for i = 1, n do
    out[i] = char(v % 256)
    v = floor(v / 256)
  end
  return table.concat(out)
end

-- s with its header's length and checksum made right for its payload.
function M.reseal(s)
  local payload = s:sub(33)
  local l = fnv(payload)
  local sum = {}
  for i = 1, 4 do sum[i] = char(l[i] % 256, floor(l[i] / 256)) end
  return s:sub(1, 16) .. le(#payload, 8) .. table.concat(sum) .. payload
end

-- The script part of save s (the caller's bytes at its end).
function M.script_part(s)
  local at = s:find("saspu-lua-1", 1, true)
  return s:sub(at), at
end

-- s with its script part replaced by `part`, sealed again.
function M.with_script_part(s, part)
  local _, at = M.script_part(s)
  return M.reseal(s:sub(1, at - 5) .. le(#part, 4) .. part)
end

return M
