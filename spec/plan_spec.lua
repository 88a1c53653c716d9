-- spec/plan_spec.lua: saspu.Domain:plan: the worked examples of the papers, start and goal forms, reasons for no plan, bad states.
local fixtures = require "support.domains"
local check = require "saspu.test"

describe("saspu.Domain:plan", function()
  describe("the Horse Breeder's worked examples", function()
    local dom = fixtures.domain("horse_breeder")
    local s000 = { haystack = "stored", bucket = "on_floor", water = "in_source" }
    local s100 = { haystack = "in_hands", bucket = "on_floor", water = "in_source" }

    it("fills the trough: (<0,0,0>, <0,0,2>)", function()
      assert.same({ "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket" },
                  dom:plan(s000, { haystack = "stored", bucket = "on_floor", water = "in_trough" }))
    end)

    it("fills the trough before the feeder: (<0,0,0>, FeedHorses)", function()
      local expected = { "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket",
                         "take_haystack", "fill_feeder" }
      assert.same(expected, dom:plan(s000, { haystack = "in_feeder", bucket = "on_floor",
                                             water = "in_trough" }))
      assert.same(expected, dom:plan("morning", "feed_horses"))
    end)

    it("fills the feeder from the hands: (<1,0,0>, <2,0,0>)", function()
      assert.same({ "fill_feeder" }, dom:plan(s100, { haystack = "in_feeder" }))
    end)

    it("builds a sigma-3 chain on haystack: (<1,0,0>, FeedHorses)", function()
      assert.same({ "drop_haystack", "pick_up_bucket", "fill_bucket", "fill_trough",
                    "drop_bucket", "take_haystack", "fill_feeder" },
                  dom:plan("holding_haystack", "feed_horses"))
    end)

    it("plans the sub-goals FillFeeder then FillTrough", function()
      assert.same({ "take_haystack", "fill_feeder" }, dom:plan("morning", "fill_feeder"))
      assert.same({ "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket" },
                  dom:plan("morning", "fill_trough"))
      -- after FillFeeder a new haystack is targeted: s0[haystack] = stored again
      assert.same({ "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket" },
                  dom:plan({ haystack = "stored", bucket = "on_floor", water = "in_source" },
                           "fill_trough"))
    end)

    it("cannot fill the feeder before the trough", function()
      -- the feeder is filled, so the haystack is never stored again and the
      -- bucket can never be picked up
      local plan, why = dom:plan({ haystack = "in_feeder", bucket = "on_floor", water = "in_source" },
                                 { water = "in_trough" })
      assert.is_nil(plan)
      assert.equal("unreachable", why.code)
      assert.equal("pick_up_bucket", why.action)
      assert.equal("haystack", why.variable)
      assert.equal("stored", why.value)
      assert.is_string(why.message)
    end)
  end)

  describe("the Acquisition Machine's worked examples", function()
    local dom = fixtures.domain("acquisition_machine")

    it("fights back, repairs, then finishes the routine", function()
      assert.same({ "attack", "repair", "refine_ore", "store_refined_ore" },
                  dom:plan("under_attack", "harvest"))
    end)

    it("scans, shares, harvests, refines and stores from ready_to_work", function()
      -- share_ore_pos and harvest_ore could come in either order; ties follow the
      -- declaration order, which gives the paper's plan exactly
      local paper = { "scan_ore_deposit", "share_ore_pos", "harvest_ore", "refine_ore",
                      "store_refined_ore" }
      assert.same(paper, dom:plan("ready_to_work", "harvest"))
      check.replays(dom, "ready_to_work", paper, "harvest")
    end)

    it("plans Harvest from each of the six starts", function()
      local lengths = {}
      for name in pairs(dom:starts()) do
        local plan = assert(dom:plan(name, "harvest"))
        check.replays(dom, name, plan, "harvest")
        lengths[name] = #plan
      end
      assert.same({ under_attack = 4, ready_to_work = 5, out_of_charge = 4, disturbed = 6,
                    after_an_ambush = 6, harvested_unshared = 3 }, lengths)
    end)
  end)

  describe("the Citizen's day", function()
    local dom = fixtures.domain("citizen")

    it("plans each of the eight goals from the start of the day", function()
      local goals = fixtures.sorted_keys(dom:goals())
      assert.equal(8, #goals)
      for _, goal in ipairs(goals) do
        local plan, why = dom:plan("start_of_day", goal)
        assert(plan, goal .. ": " .. (why and why.message or ""))
        check.replays(dom, "start_of_day", plan, goal)
      end
    end)

    it("works: buys and eats, buys and drinks, takes the item, then works", function()
      local plan = dom:plan("start_of_day", "work")
      assert.equal(6, #plan)
      assert.equal("work", plan[6])
    end)

    it("buys supplies without eating them", function()
      assert.same({ "buy_food", "buy_drink" }, dom:plan("start_of_day", "buy_supplies"))
    end)

    it("drinks before a walk", function()
      assert.same({ "buy_drink", "drink", "have_a_walk" }, dom:plan("start_of_day", "go_for_a_walk"))
    end)
  end)

  describe("start and goal forms", function()
    local dom = fixtures.domain("horse_breeder")

    it("returns an empty plan when the goal holds", function()
      assert.same({}, dom:plan("morning", {}))
      assert.same({}, dom:plan("morning", { bucket = "on_floor" }))
    end)

    it("keeps the start value of the variables a goal leaves out", function()
      assert.same({ "fill_feeder" }, dom:plan("holding_haystack", { haystack = "in_feeder" }))
    end)

    it("takes a named start with a goal table and a start table with a named goal", function()
      assert.same(dom:plan("morning", "fill_feeder"),
                  dom:plan("morning", { haystack = "in_feeder", bucket = "on_floor" }))
      assert.same(dom:plan("morning", "fill_feeder"),
                  dom:plan({ haystack = "stored", bucket = "on_floor", water = "in_source" },
                           "fill_feeder"))
    end)
  end)

  describe("no plan", function()
    local dom = fixtures.domain("horse_breeder")

    it("returns nil and why, with names", function()
      -- the haystack and the bucket both in hand: each needs the other put down first
      local plan, why = dom:plan("holding_haystack",
                                 { haystack = "in_hands", bucket = "in_hands", water = "in_trough" })
      assert.is_nil(plan)
      assert.equal("order", why.code)
      -- both actions on the order cycle are named, in either order
      local both = { why.action, why.other_action }
      table.sort(both)
      assert.same({ "pick_up_bucket", "take_haystack" }, both)
      assert.equal("no order works: actions 'take_haystack' and 'pick_up_bucket' each need the "
                   .. "other to come first (through their prevail-conditions)", why.message)
    end)

    it("names a value no action sets", function()
      -- nothing pours the water back into the source
      local plan, why = dom:plan({ haystack = "stored", bucket = "on_floor", water = "in_bucket" },
                                 { water = "in_source" })
      assert.is_nil(plan)
      assert.equal("no_setter", why.code)
      assert.is_nil(why.action)
      assert.is_nil(why.other_action)
      assert.equal("water", why.variable)
      assert.equal("in_source", why.value)
      assert.equal("the goal needs water = in_source, but no action sets water to in_source",
                   why.message)
    end)

    it("names a goal value that cannot be reached from the start value", function()
      -- a haystack in the feeder stays there
      local plan, why = dom:plan({ haystack = "in_feeder", bucket = "on_floor", water = "in_source" },
                                 { haystack = "stored" })
      assert.is_nil(plan)
      assert.equal("unreachable", why.code)
      assert.is_nil(why.action)
      assert.equal("haystack", why.variable)
      assert.equal("stored", why.value)
    end)
  end)

  describe("bad states", function()
    local dom = fixtures.domain("horse_breeder")
    local cases = {
      { "an unknown start name", "evening", "feed_horses",
        "saspu.Domain:plan: start: unknown start 'evening' (holding_haystack, morning; or a packed state of 3 bytes from dom:encode)" },
      { "an unknown goal name", "morning", "feed",
        "saspu.Domain:plan: goal: unknown goal 'feed' (feed_horses, fill_feeder, fill_trough; or a packed state" },
      { "a start missing a variable", { haystack = "stored", bucket = "on_floor" }, "feed_horses",
        "saspu.Domain:plan: start: missing variable 'water'" },
      { "an unknown start variable",
        { hay = "stored", haystack = "stored", bucket = "on_floor", water = "in_source" }, {},
        "saspu.Domain:plan: start: unknown variable 'hay' (haystack, bucket, water)" },
      { "an unknown start value",
        { haystack = "lost", bucket = "on_floor", water = "in_source" }, {},
        "saspu.Domain:plan: start: 'lost' is not a value of 'haystack' (stored, in_hands, in_feeder)" },
      { "an unknown goal variable", "morning", { wter = "in_trough" },
        "saspu.Domain:plan: goal: unknown variable 'wter' (haystack, bucket, water)" },
      { "an unknown goal value", "morning", { water = "full" },
        "saspu.Domain:plan: goal: 'full' is not a value of 'water' (in_source, in_bucket, in_trough)" },
      { "a goal value that is not a name", "morning", { water = 3 },
        "saspu.Domain:plan: goal: expected a value of 'water', got number" },
      { "a goal key that is not a name", "morning", { "in_trough" },
        "saspu.Domain:plan: goal: expected variable names as keys, got number key 1" },
      { "a start that is a number", 1, "feed_horses", "table or start name expected, got number" },
      { "a missing goal", "morning", nil, "table or goal name expected, got nil" },
    }
    for _, case in ipairs(cases) do
      it("raises on " .. case[1], function()
        assert.error_matches(function() dom:plan(case[2], case[3]) end, case[4], 1, true)
      end)
    end
  end)
end)
