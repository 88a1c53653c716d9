-- spec/inspector_spec.lua: the inspector page (saspu trace FILE --html) opened in headless Chromium as a person would: the agent picked through the page shows the reader's history, the search finds its failures, a screenshot is kept (build/inspector/).
local trace = require "saspu.trace"
local cli = require "saspu.cli"
local report = require "saspu.trace_report"
local tt = require "support.trace_town"

local BUILD = os.getenv("SASPU_BUILD_DIR") or "build"

-- Runs chromium headless on `url` with `args`; its standard output.
local function chromium(args, url)
  local profile = os.tmpname()
  os.remove(profile)
  local cmd = string.format("chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
                            .. "--user-data-dir=%s %s '%s' 2>/dev/null", profile, args, url)
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  os.execute("rm -rf " .. profile)
  return out
end

local function unescape(s)
  return (s:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&#39;", "'"):gsub("&amp;", "&"))
end

-- The texts of the <li> items of the list with this id in a dumped DOM.
local function items(dom, id)
  local list = dom:match('<ol id="' .. id .. '">(.-)</ol>')
  assert.is_truthy(list, "no list #" .. id .. " in the page")
  local out = {}
  for li in list:gmatch("<li[^>]*>(.-)</li>") do out[#out + 1] = unescape(li) end
  return out
end

describe("the inspector page", function()
  local path, page
  setup(function()
    path = tt.tmp()
    tt.run(tt.town(), path, 40, 0.5)
    page = os.tmpname() .. ".html"
    local sink = { write = function() end }
    assert.equal(0, cli.main({ "trace", path, "--html", page, "--pick", "citizen:3" }, sink, sink))
  end)
  teardown(function()
    os.remove(path)
    os.remove(page)
  end)

  it("is one file that loads nothing from elsewhere", function()
    local f = assert(io.open(page))
    local html = f:read("*a")
    f:close()
    assert.is_nil(html:find("src=", 1, true))
    assert.is_nil(html:find("https?://"))
    assert.is_nil(html:find("<link", 1, true))
  end)

  it("shows the picked agent's life as the reader's history gives it, and finds its failures", function()
    -- the page reads what a link (or a person's click and typing) asks for from its URL
    local dom = chromium("--dump-dom", "file://" .. page .. "#agent=citizen:3&search=blocked")
    local want = report.timeline_text(trace.open(path):history("citizen", 3))
    assert.same(want, items(dom, "timeline"))
    assert.truthy(dom:find('<h3 id="picked">citizen:3</h3>', 1, true))
    local found = items(dom, "results")
    assert.is_true(#found >= 1)
    for _, line in ipairs(found) do assert.truthy(line:find("blocked", 1, true)) end
    assert.truthy(found[1]:find("citizen:", 1, true))
  end)

  it("draws the map with the agent picked (a screenshot kept in build/inspector/)", function()
    os.execute("mkdir -p " .. BUILD .. "/inspector")
    local shot = BUILD .. "/inspector/inspector.png"
    os.remove(shot)
    chromium("--window-size=1300,800 --screenshot=" .. shot, "file://" .. page .. "#agent=citizen:3")
    local f = assert(io.open(shot, "rb"), "no screenshot written")
    local png = f:read("*a")
    f:close()
    assert.equal("\137PNG", png:sub(1, 4))
    assert.is_true(#png > 10000)
  end)
end)
