-- lua/saspu/inspector.lua: `saspu trace FILE --html OUT`: one self-contained HTML page (plain JavaScript and a canvas, data embedded, no network) showing a trace: the map with its places, NPC density per class over time, picked agents as dots, a time slider, a search box, and a picked agent's life.
local report = require "saspu.trace_report"
local trace = require "saspu.trace"

local ipairs, pairs, tostring, tonumber, type, next = ipairs, pairs, tostring, tonumber, type, next
local format, concat, floor, ceil, max, min = string.format, table.concat, math.floor, math.ceil, math.max,
                                              math.min
local open, huge = io.open, math.huge

local M = {}

M.KEYFRAMES = 96 -- density pictures over the trace
M.BINS = 96      -- density bins along the longer side of the map, at most
M.PICKS = 6      -- agents picked per class by default

-- JSON: strings, numbers, booleans, arrays, maps (keys sorted), nil as null.
local function json(v, out)
  local t = type(v)
  if t == "string" then
    out[#out + 1] = '"' .. v:gsub('[%c"\\<>&]', function(c)
      local named = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t" }
      return named[c] or format("\\u%04x", c:byte())
    end) .. '"'
  elseif t == "number" then
    if v ~= v or v == huge or v == -huge then out[#out + 1] = "null"
    elseif v == floor(v) and v > -2 ^ 53 and v < 2 ^ 53 then out[#out + 1] = format("%d", v)
    else out[#out + 1] = format("%.17g", v) end
  elseif t == "table" then
    if #v > 0 or next(v) == nil then
      out[#out + 1] = "["
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = "," end
        json(x, out)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        json(k, out)
        out[#out + 1] = ":"
        json(v[k] == nil and v[tonumber(k)] or v[k], out)
      end
      out[#out + 1] = "}"
    end
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  else
    out[#out + 1] = "null"
  end
end

-- The walls as runs of open, blocked, open, ... cells in reading order.
local function wall_runs(h)
  local s = h.blocked
  if not s then return {} end
  local runs, state, len = {}, 0, 0
  for i = 1, #s do
    local b = s:byte(i)
    if b ~= state then
      runs[#runs + 1] = len
      state, len = b, 0
    end
    len = len + 1
  end
  runs[#runs + 1] = len
  return runs
end

-- An agent's track: { time, x, y } from its first cell on (x, y 0: gone).
local function track(t, crowd, agent)
  local raw, h = t.raw, t.header
  local out = {}
  for s = 1, h.snapshots do
    local number, c = raw:snapshot(s)
    if c == crowd and number == 0 then
      local x, y = raw:snapshot_cell(s, agent)
      out[1] = { h.start_clock, x or 0, y or 0 }
      break
    end
  end
  for _, ci in ipairs(raw:agent_items(crowd, agent, "cells")) do
    local frame, _, _, x, y = raw:cell(ci)
    out[#out + 1] = { t:time(frame), x or 0, y or 0 }
  end
  return out
end

-- The agents shown as dots: those asked for, then per class the stuck-longest, those
-- that never reached a goal and the first to reach one, up to M.PICKS a class.
local function picks(h, sum, reachers, asked)
  local list, seen, crowd_of = {}, {}, {}
  for k, c in ipairs(h.crowds) do crowd_of[c.class] = crowd_of[c.class] or k end
  local function add(class, agent)
    local key = class .. ":" .. agent
    local crowd = crowd_of[class]
    if seen[key] or not crowd or agent < 1 or agent > h.crowds[crowd].slots then return end
    seen[key] = true
    list[#list + 1] = { class = class, crowd = crowd, agent = agent }
  end
  for _, a in ipairs(asked or {}) do
    local class, n = a:match("^(.+):(%d+)$")
    if class then add(class, tonumber(n)) end
  end
  for j, s in ipairs(sum.classes) do
    local n = 0
    local function try(agent)
      if n < M.PICKS and not seen[s.class .. ":" .. agent] then
        add(s.class, agent)
        n = n + 1
      end
    end
    for _, a in ipairs(s.stuck) do try(a.agent) end
    for _, a in ipairs(s.never_agents) do try(a) end
    for _, a in ipairs(reachers[j]) do try(a) end
  end
  return list
end

--- The page's data: map, places, densities, picked agents with their lives and events.
-- The trace file is read twice a chunk at a time (saspu.trace.scan): once summed up,
-- once keeping the picked agents' events and counting each class's agents per block
-- of cells at M.KEYFRAMES frames. The page's size is bounded whatever the trace: the
-- density grid (at most M.BINS x M.BINS blocks per class and keyframe), the picked
-- agents' lives (M.PICKS per class and those asked for) and the summary.
-- @tparam string|table src the trace file's path, or a trace read from one (its path)
-- @tparam[opt] table opts `{ pick = { "CLASS:N", ... } }`
function M.data(src, opts)
  opts = opts or {}
  local path = type(src) == "table" and src.path or src
  local first = trace.scan(path, { summary = true })
  local h = first.header
  local sum = report.summary(first)
  local reachers = {}
  for j, c in ipairs(first:summary().classes) do reachers[j] = c.reachers end
  local csum = first:summary()
  local w, hh = max(h.grid_w, 1), max(h.grid_h, 1)
  if h.grid_w == 0 then w, hh = max(w, csum.cells_w), max(hh, csum.cells_h) end -- no grid: the cells used
  local bin = max(1, ceil(max(w, hh) / M.BINS))
  local bw, bh = ceil(w / bin), ceil(hh / bin)
  local keyframes, times = {}, {}
  local n = min(M.KEYFRAMES, first.frame_count)
  for k = 1, n do
    local f = max(1, floor(k * first.frame_count / n))
    keyframes[k], times[k] = f, first:time(f)
  end
  local picked = picks(h, sum, reachers, opts.pick)
  local keep = {}
  for i, p in ipairs(picked) do keep[i] = { p.crowd, p.agent } end
  local t = trace.scan(path, { agents = keep, keyframes = n > 0 and keyframes or nil, bin = bin, bw = bw,
                               bh = bh })
  local classes = {}
  for k, c in ipairs(h.crowds) do
    if c.recorded then classes[#classes + 1] = h.crowds[k].class end
  end
  local agents = {}
  for _, p in ipairs(picked) do
    local life = t:history(p.crowd, p.agent)
    local evs = {}
    for _, ev in ipairs(life.events) do
      evs[#evs + 1] = { ev.time, ev.kind, ev.action or "", ev.goal or "", ev.reason or "", ev.place or "" }
    end
    agents[#agents + 1] = { class = p.class, agent = p.agent, track = track(t, p.crowd, p.agent),
                            life = report.life_data(life), events = evs }
  end
  local places = {}
  for k, p in ipairs(h.places) do places[k] = { p.name, p.x, p.y } end
  return { name = path or "trace", w = w, h = hh, walls = wall_runs(h), places = places, classes = classes,
           bin = bin, bw = bw, bh = bh, times = times, density = t.raw:density() or {}, agents = agents,
           summary = report.summary_text(sum, path or "trace"), start = sum.start, finish = sum.finish }
end

local PAGE = [==[<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>saspu inspector: %%TITLE%%</title>
<style>
body{font:13px sans-serif;margin:0;display:flex;height:100vh;background:#f4f1ea;color:#222}
#left{flex:1;display:flex;flex-direction:column;min-width:0}
#bar{padding:6px;background:#e4dccb;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
#map{flex:1;min-height:0;overflow:auto}
canvas{image-rendering:pixelated;cursor:crosshair}
#side{width:430px;overflow:auto;padding:6px;border-left:1px solid #bbb;background:#fff}
#timeline,#results{list-style:none;padding:0;margin:0;font:12px monospace;white-space:pre}
#results li{cursor:pointer}#results li:hover{background:#eee}
#summary{font:11px monospace;white-space:pre;max-height:220px;overflow:auto;background:#f8f8f8}
.swatch{display:inline-block;width:10px;height:10px;margin-right:3px}
</style></head><body>
<div id="left"><div id="bar">
<button id="play">play</button><input id="slider" type="range" min="0" value="0" style="width:260px">
<span id="clock"></span><span id="legend"></span>
<input id="search" placeholder="search: class, class:N, goal, action, kind, reason" size="38">
</div><div id="map"><canvas id="canvas"></canvas></div></div>
<div id="side"><h3 id="picked">no agent picked</h3><ol id="timeline"></ol>
<h4>search</h4><ol id="results"></ol><h4>summary</h4><div id="summary"></div></div>
<script>
"use strict";
var D = %%DATA%%;
var COLORS = ["#d62728","#1f77b4","#2ca02c","#9467bd","#ff7f0e","#8c564b","#e377c2","#17becf","#7f7f7f","#bcbd22"];
var canvas = document.getElementById("canvas"), ctx = canvas.getContext("2d");
var scale = Math.max(1, Math.floor(900 / Math.max(D.w, D.h)));
canvas.width = D.w * scale; canvas.height = D.h * scale;
var shown = D.classes.map(function () { return true; });
var frame = D.times.length ? D.times.length - 1 : 0, picked = null, playing = null;
var slider = document.getElementById("slider");
slider.max = Math.max(0, D.times.length - 1); slider.value = frame;
function clock(t) {
  if (t === undefined || t === null) return "-";
  t = Math.floor(t + 0.5);
  var m = Math.floor(t / 60) % 60, s = t % 60;
  return Math.floor(t / 3600) + ":" + (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
}
function str(v) { return v === undefined || v === null ? "nil" : String(v); }
// The same lines as `saspu trace --agent` (lua/saspu/trace_report.lua, timeline_text).
function timelineLines(life) {
  var out = [];
  out.push(life.class + ":" + life.agent + ": " + life.goals.length + " goals, " + life.reached +
           " reached, " + life.failures + " failures");
  life.goals.forEach(function (g) {
    out.push(clock(g.start) + "  goal " + str(g.goal) + (g.outcome ? ": " + g.outcome + " at " + clock(g.finish) : ""));
    g.plans.forEach(function (p) {
      out.push(clock(p.time) + "    " + (p.replanned ? "replanned" : "planned") + " (" + (p.length || 0) +
               " steps): " + p.actions.join(", ") + (p.reason ? "  (" + p.reason + ")" : ""));
    });
    g.steps.forEach(function (s) {
      out.push(clock(s.start) + "    step " + str(s.action) + " until " + clock(s.finish) +
               (s.outcome ? ": " + s.outcome : ""));
    });
    g.waits.forEach(function (w) {
      out.push(clock(w.time) + "    " + w.kind + (w.reason ? " " + w.reason : "") + (w.place ? " at " + w.place : ""));
    });
    g.failures.forEach(function (f) {
      out.push(clock(f.time) + "    failed: " + str(f.reason) + (f.action ? " in " + f.action : "") +
               (f.place ? " at " + f.place : "") + (f.why ? ": " + f.why : ""));
    });
  });
  life.idle.forEach(function (i) { out.push(clock(i.time) + "  idle: " + str(i.reason)); });
  return out;
}
var walls = document.createElement("canvas");
(function () {
  walls.width = D.w; walls.height = D.h;
  var c = walls.getContext("2d"), img = c.createImageData(D.w, D.h), at = 0, blocked = false;
  for (var i = 0; i < img.data.length; i += 4) { img.data[i] = 236; img.data[i + 1] = 230; img.data[i + 2] = 214; img.data[i + 3] = 255; }
  D.walls.forEach(function (run) {
    if (blocked) for (var k = at; k < at + run; k++) { var p = k * 4; img.data[p] = 90; img.data[p + 1] = 80; img.data[p + 2] = 70; }
    at += run; blocked = !blocked;
  });
  c.putImageData(img, 0, 0);
})();
function positionAt(a, t) {
  var p = null;
  for (var k = 0; k < a.track.length && a.track[k][0] <= t; k++) p = a.track[k];
  return p && p[1] > 0 ? p : null;
}
function hex(c) { return [parseInt(c.substr(1, 2), 16), parseInt(c.substr(3, 2), 16), parseInt(c.substr(5, 2), 16)]; }
function draw() {
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(walls, 0, 0, canvas.width, canvas.height);
  var rows = D.density[frame] || [], most = 1;
  rows.forEach(function (list, j) { if (shown[j]) for (var k = 1; k < list.length; k += 2) most = Math.max(most, list[k]); });
  rows.forEach(function (list, j) {
    if (!shown[j]) return;
    var rgb = hex(COLORS[j % COLORS.length]), size = D.bin * scale;
    for (var k = 0; k < list.length; k += 2) {
      var b = list[k], n = list[k + 1];
      ctx.fillStyle = "rgba(" + rgb[0] + "," + rgb[1] + "," + rgb[2] + "," + (0.15 + 0.75 * Math.sqrt(n / most)).toFixed(3) + ")";
      ctx.fillRect((b % D.bw) * size, Math.floor(b / D.bw) * size, size, size);
    }
  });
  ctx.font = "11px sans-serif";
  D.places.forEach(function (p) {
    ctx.fillStyle = "#000"; ctx.fillRect((p[1] - 1) * scale - 2, (p[2] - 1) * scale - 2, 5, 5);
    ctx.fillText(p[0], (p[1] - 1) * scale + 4, (p[2] - 1) * scale - 3);
  });
  var t = D.times[frame];
  D.agents.forEach(function (a) {
    var p = positionAt(a, t);
    if (!p) return;
    ctx.beginPath(); ctx.arc((p[1] - 0.5) * scale, (p[2] - 0.5) * scale, a === picked ? 6 : 4, 0, 7);
    ctx.fillStyle = COLORS[D.classes.indexOf(a.class) % COLORS.length]; ctx.fill();
    ctx.lineWidth = a === picked ? 3 : 1; ctx.strokeStyle = "#000"; ctx.stroke();
  });
  document.getElementById("clock").textContent = clock(t);
}
function pick(a) {
  picked = a;
  var ol = document.getElementById("timeline");
  while (ol.firstChild) ol.removeChild(ol.firstChild);
  document.getElementById("picked").textContent = a ? a.class + ":" + a.agent : "no agent picked";
  if (a) timelineLines(a.life).forEach(function (line) {
    var li = document.createElement("li"); li.textContent = line; ol.appendChild(li);
  });
  draw();
}
function find(key) {
  for (var k = 0; k < D.agents.length; k++) if (D.agents[k].class + ":" + D.agents[k].agent === key) return D.agents[k];
  return null;
}
function search(q) {
  var ol = document.getElementById("results"), n = 0;
  while (ol.firstChild) ol.removeChild(ol.firstChild);
  q = q.trim().toLowerCase();
  if (!q) return;
  var exact = find(q);
  if (exact) { pick(exact); return; }
  D.agents.forEach(function (a) {
    a.events.forEach(function (e) {
      if (n >= 200) return;
      var text = clock(e[0]) + " " + a.class + ":" + a.agent + " " + e.slice(1).filter(function (x) { return x; }).join(" ");
      if (text.toLowerCase().indexOf(q) < 0) return;
      var li = document.createElement("li"); li.textContent = text;
      li.onclick = function () { pick(a); };
      ol.appendChild(li); n++;
    });
  });
}
canvas.onclick = function (ev) {
  var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top, best = null, bd = 100;
  D.agents.forEach(function (a) {
    var p = positionAt(a, D.times[frame]);
    if (!p) return;
    var d = Math.pow((p[1] - 0.5) * scale - x, 2) + Math.pow((p[2] - 0.5) * scale - y, 2);
    if (d < bd) { bd = d; best = a; }
  });
  if (best) pick(best);
};
slider.oninput = function () { frame = +slider.value; draw(); };
document.getElementById("play").onclick = function () {
  if (playing) { clearInterval(playing); playing = null; this.textContent = "play"; return; }
  this.textContent = "pause";
  playing = setInterval(function () { frame = (frame + 1) % Math.max(1, D.times.length); slider.value = frame; draw(); }, 120);
};
document.getElementById("search").oninput = function () { search(this.value); };
var legend = document.getElementById("legend");
D.classes.forEach(function (c, j) {
  var l = document.createElement("label"), box = document.createElement("input"), sw = document.createElement("span");
  box.type = "checkbox"; box.checked = true; box.onchange = function () { shown[j] = box.checked; draw(); };
  sw.className = "swatch"; sw.style.background = COLORS[j % COLORS.length];
  l.appendChild(box); l.appendChild(sw); l.appendChild(document.createTextNode(c + " ")); legend.appendChild(l);
});
document.getElementById("summary").textContent = D.summary.join("\n");
// #agent=CLASS:N picks an agent, #search=TEXT fills the search box (links and tests)
function fromHash() {
  var h = decodeURIComponent(location.hash || ""), m = /agent=([^&]+)/.exec(h), q = /search=([^&]+)/.exec(h);
  if (m) pick(find(m[1])); else draw();
  if (q) { document.getElementById("search").value = q[1]; search(q[1]); }
}
window.onhashchange = fromHash;
fromHash();
</script></body></html>
]==]

--- Writes the page for the trace file `t` (a path, or a trace read from one) to `path`.
-- @treturn int the bytes written
function M.write(t, path, opts)
  local out = {}
  json(M.data(t, opts), out)
  local data = concat(out)
  local title = ((type(t) == "table" and t.path or t) or "trace"):gsub("[<>&\"]", "")
  local html = PAGE:gsub("%%%%TITLE%%%%", function() return title end)
                   :gsub("%%%%DATA%%%%", function() return data end)
  local f, err = open(path, "wb")
  if not f then error(err, 0) end
  f:write(html)
  f:close()
  return #html
end

M.json = function(v)
  local out = {}
  json(v, out)
  return concat(out)
end

return M
