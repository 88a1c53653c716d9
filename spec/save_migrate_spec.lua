-- spec/save_migrate_spec.lua: world:load(s, { migrate = true }): a save of the Western town made before a patch (values added, removed or renamed, actions changed, places added) loads by names and its agents go on; without migrate the fingerprint check refuses as before. Also saspu.save_info and `saspu save-info`.
local saspu = require "saspu"
local town = require "saspu.town"
local cli = require "saspu.cli"
local rng = require("support.draws").rng
local has_line = require("support.agents").has_line

local CLASSES = { "farrier", "innkeeper", "bandit", "horse_breeder", "native_hunter" }

-- The town as game code builds it; `patch` is the game after an update:
-- patch.domain(name, table), patch.behaviour(name, behaviour), patch.places(list).
local function build(patch, per_class)
  patch = patch or {}
  local t = town.load("domains/town/town.txt", "domains/town/legend.lua")
  local places = {}
  for k, p in ipairs(t.places) do
    places[k] = { name = p.name, kind = p.kind, x = p.x, y = p.y, capacity = p.capacity }
  end
  if patch.places then patch.places(places) end
  local world = saspu.world { grid = town.grid(t), places = places }
  local crowds = {}
  for k, name in ipairs(CLASSES) do
    local cls = assert(loadfile("domains/town/behaviours/" .. name .. ".lua"))()
    local spec = saspu.load("domains/" .. cls.domain .. ".lua")
    if patch.domain then patch.domain(name, spec) end
    local beh = cls.behaviour
    if patch.behaviour then patch.behaviour(name, beh) end
    local c = world:crowd(saspu.domain(spec), beh, { capacity = (per_class or 8) + 4,
                                                    seed = 31 + k, speed = 2, retry = 60,
                                                    cooldown = 60 })
    local r = rng(10 + k)
    for _ = 1, per_class or 8 do
      local p = t.places[r(#t.places)]
      c:spawn { start = cls.start, x = p.x, y = p.y }
    end
    crowds[name] = c
  end
  return world, crowds
end

-- dt = 30 s frames; the events as { kind, reason, crowd name } records.
local function run(world, frames)
  local log = {}
  for _ = 1, frames do
    world:update(30)
    for ev in world:events() do
      log[#log + 1] = { kind = ev.kind, reason = ev.reason, action = ev.action }
    end
  end
  return log
end

local function count(log, kind, reason)
  local n = 0
  for _, e in ipairs(log) do
    if e.kind == kind and (reason == nil or e.reason == reason) then n = n + 1 end
  end
  return n
end

-- Every agent's state by names: { [crowd name] = { [i] = { var = value } } }.
local function states(crowds)
  local out = {}
  for name, c in pairs(crowds) do
    out[name] = {}
    local vars = c:domain():variables()
    for i = 1, c:size() do
      local row = {}
      for _, v in ipairs(vars) do row[v.name] = c:agent(i):get(v.name) end
      out[name][i] = row
    end
  end
  return out
end

-- Renames value `from` of variable `var` to `to` everywhere in a domain table.
local function rename_value(spec, var, from, to)
  for _, v in ipairs(spec.variables) do
    if v.name == var then
      for k, x in ipairs(v.values) do if x == from then v.values[k] = to end end
    end
  end
  for _, a in ipairs(spec.actions) do
    if a.var == var then
      if a.pre == from then a.pre = to end
      if a.post == from then a.post = to end
    end
    if a.prevail and a.prevail[var] == from then a.prevail[var] = to end
  end
  for _, g in pairs(spec.goals or {}) do
    local cond = type(g) == "table" and (g.condition or g) or nil
    if type(cond) == "table" and cond[var] == from then cond[var] = to end
  end
  for _, s in pairs(spec.starts or spec.states or {}) do
    if type(s) == "table" and s[var] == from then s[var] = to end
  end
end

local saved_world, saved_crowds, saved
local function original()
  if not saved then
    saved_world, saved_crowds = build()
    run(saved_world, 60)
    saved = saved_world:save()
  end
  return saved
end

describe("world:load with migrate", function()
  it("loads the town saved before a value was added, an action changed and a place added; "
     .. "the agents go on", function()
    local s = original()
    local before = states(saved_crowds)
    local world, crowds = build {
      domain = function(name, spec)
        if name == "farrier" then
          table.insert(spec.variables[4].values, "lame") -- horse: a new value
        end
      end,
      behaviour = function(name, beh)
        if name == "farrier" then beh.actions.hammer_shoe.duration = { 100, 200 } end
      end,
      places = function(list)
        list[#list + 1] = { name = "new_well", kind = "well", x = list[1].x, y = list[1].y }
      end,
    }
    -- without migrate: the exact fingerprint check of before
    assert.error_matches(function() world:load(s) end, "differ", 1, true)
    local report = world:load(s, { migrate = true })
    assert.is_true(has_line(report, "place 'new_well' is new"))
    assert.is_true(has_line(report, "crowd 1 'farrier': variable 'horse': value 'lame' is new"))
    assert.is_true(has_line(report, "crowd 1 'farrier': action 'hammer_shoe' changed: plans using it are dropped"))
    assert.is_true(has_line(report, "crowd 1 'farrier': mapped 4 of 4 variables and 8 of 9 actions by name"))
    assert.is_true(has_line(report, "crowd 2 'innkeeper': unchanged"))
    assert.same(before, states(crowds))
    local log = run(world, 200)
    assert.is_true(count(log, "replanned", "migrated") >= 1)
    assert.is_true(count(log, "step_finished") > 100)
    -- the farriers shoe horses again, with the changed step
    local shoes = 0
    for _, e in ipairs(log) do
      if e.kind == "step_finished" and e.action == "hammer_shoe" then shoes = shoes + 1 end
    end
    assert.is_true(shoes > 0)
    world:close()
  end)

  it("maps states by variable and value names, whatever their order now", function()
    local s = original()
    local before = states(saved_crowds)
    local world, crowds = build {
      domain = function(name, spec)
        if name == "innkeeper" or name == "bandit" then
          local vars = spec.variables
          for _, v in ipairs(vars) do -- every variable's values reversed
            local r = {}
            for k = #v.values, 1, -1 do r[#r + 1] = v.values[k] end
            v.values = r
          end
          vars[1], vars[#vars] = vars[#vars], vars[1] -- and two variables swapped
        end
      end,
    }
    local report = world:load(s, { migrate = true })
    assert.same(before, states(crowds))
    assert.is_true(has_line(report, "crowd 2 'innkeeper': mapped"))
    run(world, 20)
    world:close()
  end)

  it("refuses a value that no longer exists, naming it and how many agents hold it", function()
    local s = original()
    local hot = 0
    for i = 1, saved_crowds.farrier:size() do
      if saved_crowds.farrier:agent(i):get("forge") == "hot" then hot = hot + 1 end
    end
    assert.is_true(hot > 0)
    local world, crowds = build {
      domain = function(name, spec)
        if name == "farrier" then rename_value(spec, "forge", "hot", "burning") end
      end,
    }
    local mine = world:save()
    local ok, err = pcall(world.load, world, s, { migrate = true })
    assert.is_false(ok)
    assert.matches(string.format("crowd 1 'farrier': value 'hot' of variable 'forge' no longer "
                                 .. "exists and %d agents? holds? it", hot), err)
    assert.equal(mine, world:save()) -- nothing changed
    -- defaults says what to use
    local report = world:load(s, { migrate = true, defaults = { forge = "burning" } })
    assert.is_true(has_line(report, string.format(
      "crowd 1 'farrier': variable 'forge': value 'hot' is gone: %d agent", hot)))
    local burning = 0
    for i = 1, crowds.farrier:size() do
      if crowds.farrier:agent(i):get("forge") == "burning" then burning = burning + 1 end
    end
    assert.equal(hot, burning)
    local log = run(world, 100)
    assert.is_true(count(log, "replanned", "migrated") >= 1)
    assert.is_true(count(log, "step_finished") > 50)
    world:close()
  end)

  it("needs a default for a new variable, and gives it to every agent", function()
    local s = original()
    local world, crowds = build {
      domain = function(name, spec)
        if name == "bandit" then
          table.insert(spec.variables, { name = "mood", values = { "calm", "angry" } })
          for _, start in pairs(spec.starts) do start.mood = "calm" end
        end
      end,
    }
    assert.error_matches(function() world:load(s, { migrate = true }) end,
                         "crowd 3 'bandit': variable 'mood' is new: defaults must give its value",
                         1, true)
    local report = world:load(s, { migrate = true, defaults = { mood = "angry" } })
    assert.is_true(has_line(report, "crowd 3 'bandit': variable 'mood' is new: its agents take 'angry'"))
    for i = 1, crowds.bandit:size() do assert.equal("angry", crowds.bandit:agent(i):get("mood")) end
    world:close()
  end)

  it("drops plans whose actions are gone and says so", function()
    local s = original()
    local world = build {
      domain = function(name, spec)
        if name == "farrier" then -- hang_tongs is gone, bank_forge renamed
          for k = #spec.actions, 1, -1 do
            if spec.actions[k].name == "hang_tongs" then table.remove(spec.actions, k) end
            if spec.actions[k] and spec.actions[k].name == "bank_forge" then
              spec.actions[k].name = "damp_forge"
            end
          end
        end
      end,
      behaviour = function(name, beh)
        if name == "farrier" then
          beh.actions.hang_tongs = nil
          beh.actions.damp_forge, beh.actions.bank_forge = beh.actions.bank_forge, nil
        end
      end,
    }
    local report = world:load(s, { migrate = true })
    assert.is_true(has_line(report, "crowd 1 'farrier': action 'hang_tongs' is gone"))
    assert.is_true(has_line(report, "crowd 1 'farrier': action 'bank_forge' is gone"))
    assert.is_true(has_line(report, "crowd 1 'farrier': action 'damp_forge' is new"))
    run(world, 50)
    world:close()
  end)

  it("refuses bad options by name and changes nothing", function()
    local s = original()
    local world = build()
    local mine = world:save()
    assert.error_matches(function() world:load(s, { migrate = true, defaults = { nope = "x" } }) end,
                         "saspu.World:load: saved world: migrate: defaults.nope: no crowd has a variable 'nope'",
                         1, true)
    assert.error_matches(function() world:load(s, { migrate = true, defaults = { forge = "warm" } }) end,
                         "defaults.forge: 'warm' is no value of 'forge'", 1, true)
    assert.error_matches(function() world:load(s, { migrate = true, defaults = { forge = 3 } }) end,
                         "saspu.World:load: defaults.forge: expected a value name (string), got number",
                         1, true)
    assert.error_matches(function() world:load(s, { migrate = "yes" }) end,
                         "saspu.World:load: options.migrate: expected a boolean, got string", 1, true)
    assert.error_matches(function() world:load(s, { migrat = true }) end,
                         "saspu.World:load: options: unknown field 'migrat'", 1, true)
    assert.error_matches(function() world:load(s, 5) end,
                         "saspu.World:load: options: expected a table, got number", 1, true)
    assert.error_matches(function() world:load(s, { defaults = { forge = "hot" } }) end,
                         "saspu.World:load: options.defaults needs migrate = true", 1, true)
    assert.equal(mine, world:save())
    -- an unchanged world: migrate loads it as the plain load does
    local report = world:load(s, { migrate = true })
    assert.is_true(has_line(report, "crowd 5 'native_hunter': unchanged"))
    assert.equal(s, world:save())
    world:close()
  end)

  it("refuses the grid changed", function()
    local s = original()
    local world = build { places = function() end }
    world:grid():set_cost(1, 1, 7)
    assert.error_matches(function() world:load(s, { migrate = true }) end,
                         "saved world: migrate: the grid (size or cells) differs from the saved one",
                         1, true)
    world:close()
  end)
end)

describe("saspu.save_info", function()
  it("reads a save's header without a world", function()
    local s = original()
    local info = saspu.save_info(s)
    assert.equal(10, info.format)
    assert.equal(#s, info.bytes)
    assert.equal(5, info.crowd_count)
    assert.equal("farrier", info.crowds[1].name)
    assert.equal(8, info.crowds[1].agents)
    assert.equal(#saved_crowds.farrier:domain():variables(), info.crowds[1].variables)
    assert.equal(#saved_crowds.farrier:domain():actions(), info.crowds[1].actions)
    assert.equal(saved_world:place_count(), info.places)
  end)

  it("refuses what is not a save, by name", function()
    assert.error_matches(function() saspu.save_info("nope") end,
                         "saspu.save_info: saved world: not a saspu save", 1, true)
    local s = original()
    assert.error_matches(function() saspu.save_info(s:sub(1, 40) .. "x" .. s:sub(42)) end,
                         "checksum mismatch", 1, true)
  end)

  it("is printed by `saspu save-info FILE`", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(original())
    f:close()
    local out = {}
    local sink = { write = function(_, ...) for _, x in ipairs { ... } do out[#out + 1] = x end end }
    assert.equal(0, cli.main({ "save-info", path }, sink, sink))
    local text = table.concat(out)
    assert.matches("saspu save, format 10", text, 1, true)
    assert.matches("crowds: 5", text, 1, true)
    assert.matches("crowd 1 'farrier': 8 agents, 4 variables, 9 actions", text, 1, true)
    os.remove(path)
  end)

  it("is printed as JSON by `saspu save-info --json FILE`, and takes no option for a file", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write(original())
    f:close()
    local out, err = {}, {}
    local function sink(t) return { write = function(_, ...) for _, x in ipairs { ... } do t[#t + 1] = x end end } end
    assert.equal(0, cli.main({ "save-info", "--json", path }, sink(out), sink(err)))
    local text = table.concat(out)
    assert.matches('^{.*"format":%d+', text)
    assert.matches('"crowd_count":5', text, 1, true)
    assert.matches('"crowds":[{', text, 1, true)
    assert.matches('"name":"farrier"', text, 1, true)
    assert.matches('"file":"' .. path .. '"', text, 1, true)
    os.remove(path)
    out, err = {}, {}
    assert.equal(2, cli.main({ "save-info", "--json" }, sink(out), sink(err)))
    assert.matches("saspu save-info [--json] FILE", table.concat(err), 1, true)
    assert.is_nil(table.concat(err):find("No such file", 1, true))
    out, err = {}, {}
    assert.equal(2, cli.main({ "save-info", "--yaml", "x.sav" }, sink(out), sink(err)))
    assert.matches("unknown option '--yaml'", table.concat(err), 1, true)
  end)
end)
