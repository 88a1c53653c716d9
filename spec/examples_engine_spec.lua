-- spec/examples_engine_spec.lua: examples/engine/ runs as documented: the game moves its characters, the sheriff catches the moving bandit next to him, and a save and load in the middle of the chase changes nothing of the story.
local game = dofile("examples/engine/game.lua")

-- The story as "frame text" lines, without the save's own line.
local function story(g, from)
  local out = {}
  for _, s in ipairs(from or g.story) do
    if not s.text:find("^saved") then
      out[#out + 1] = s.frame .. " " .. s.text
    end
  end
  return out
end

describe("examples/engine", function()
  it("main.lua plays the chase to the arrest and prints it", function()
    -- a process of its own, with this one's module paths, as a user runs it
    local lua = os.getenv("SASPU_LUA") or "lua5.4"
    local p = io.popen(string.format("LUA_PATH='%s' LUA_CPATH='%s' %s examples/engine/main.lua 2>&1",
                                     package.path, package.cpath, lua))
    local text = p:read("*a")
    local ok = p:close()
    assert(ok, text)
    assert.matches("bandit:1 robs the bank: the alarm rings", text, 1, true)
    assert.matches("bandit:1 jumps on the stagecoach", text, 1, true)
    assert.matches("saved (", text, 1, true)
    assert.matches("sheriff:1 cuffs bandit:1, 1 cell(s) away", text, 1, true)
    assert.matches("alarm quiet, 0 bandit(s) left", text, 1, true)
  end)

  it("catches the moving bandit where he is, not where he was when the chase began", function()
    local all = {}
    local g = game.play(80, { each = function(g)
      for _, s in ipairs(g.story) do all[#all + 1] = s end
      g.story = {}
    end })
    local lines = story(g, all)
    assert.same({ "5 sheriff:1 sees a bandit (sensor bandit_seen)",
                  "17 bandit:1 robs the bank: the alarm rings",
                  "18 sheriff:1 goes after bandit:1",
                  "29 bandit:1 jumps on the stagecoach",
                  "46 sheriff:1 cuffs bandit:1, 1 cell(s) away" }, lines)
    assert.equal(0, g.crowds.bandit:size())
    assert.equal("quiet", g.world:get("alarm"))
    assert.equal("cuffed", g.crowds.sheriff:agent(1):get("prisoner"))
    -- where the game put the sheriff is where saspu has him
    local c = g.chars["sheriff:1"]
    assert.same({ c.x, c.y }, { g.crowds.sheriff:agent(1):position() })
  end)

  it("tells the same story after a save and load in the middle of the chase", function()
    local function run(save)
      local all = {}
      local g = game.play(80, {
        save_at = save and function(g) return g.coach and next(g.moves) ~= nil end or nil,
        each = function(g)
          for _, s in ipairs(g.story) do all[#all + 1] = s end
          g.story = {}
        end })
      return story(g, all), g
    end
    local plain = run(false)
    local loaded, g = run(true)
    assert.same(plain, loaded)
    assert.equal(0, g.crowds.bandit:size())
  end)
end)
