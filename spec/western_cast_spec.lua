-- spec/western_cast_spec.lua: the seven NPC classes of the Western town (Red Dead Redemption 2): class, sizes, every named goal from every named start judged by BFS, exact plans, no-plan reasons.
--
-- Goals leave some variables out. Each named (start, goal) pair must have a plan of at
-- most 10 actions under both readings of a left-out variable (it keeps its start value,
-- or it is free), so the domain files work whichever the planner implements; the plan
-- is judged by spec/support/judge.lua under the reading it ends in.
local fixtures = require "support.domains"
local judge = require "support.judge"

-- Per class: its class, variables and actions, exact plans { start, goal, plan } and
-- one pair with no plan { start, goal (a total state), code, message, action }.
local cast = {
  horse_breeder = {
    class = "SAS-PUC*2", variables = 3, actions = 7,
    plans = {
      { "morning", "feed_horses", { "pick_up_bucket", "fill_bucket", "fill_trough",
        "drop_bucket", "take_haystack", "fill_feeder" } },
    },
    no_plan = { start = "morning",
      goal = { haystack = "in_feeder", bucket = "in_hands", water = "in_source" },
      code = "order", message = "each need the other", action = "take_haystack" },
  },
  farrier = {
    class = "SAS-PUCS2", variables = 4, actions = 9,
    plans = {
      { "horse_brought_in", "shoe_horse", { "tie_horse", "shoe_horse" } },
      { "dawn", "shoe_horse", { "tie_horse", "light_forge", "take_tongs", "heat_iron",
        "hammer_shoe", "bank_forge", "quench_shoe", "hang_tongs", "shoe_horse" },
        keep_only = true },
    },
    -- a shoe once made is never a bar of iron again
    no_plan = { start = { forge = "hot", tongs = "on_rack", horseshoe = "ready", horse = "shod" },
      goal = { forge = "hot", tongs = "on_rack", horseshoe = "none", horse = "shod" },
      code = "no_setter", message = "no action sets horseshoe to none" },
  },
  native_hunter = {
    class = "SAS-PUCS2", variables = 4, actions = 9,
    plans = {
      { "prey_down", "hunt", { "draw_knife", "skin_prey", "sheathe_knife", "carry_pelt",
        "sell_pelt" }, keep_only = true },
    },
    -- a pelt is carried only from a skinned animal, and a skinned animal is never
    -- merely tracked again
    no_plan = { start = "dawn",
      goal = { bow = "slung", knife = "sheathed", prey = "tracked", pelt = "carried" },
      code = "unreachable", message = "action 'carry_pelt' needs prey = skinned",
      action = "carry_pelt" },
  },
  bandit = {
    class = "SAS-PUCS2", variables = 5, actions = 10,
    plans = {
      { "riding_in", "rob_a_bank", { "threaten_teller", "open_safe", "grab_loot",
        "stash_loot" } },
    },
    -- no loot without the safe open, and an opened safe stays open
    no_plan = { start = "riding_in",
      goal = { mask = "up", gun = "drawn", horse = "mounted", teller = "calm", loot = "stashed" },
      code = "unreachable", message = "action 'grab_loot' needs teller = safe_open",
      action = "grab_loot" },
  },
  innkeeper = {
    class = "SAS-PUC*2", variables = 6, actions = 9,
    plans = {
      { "dawn", "assign_a_room", { "sign_ledger", "make_room", "take_key", "hand_key" } },
      -- a sigma-2 chain: the bottle is shelved for the key and taken back
      { "busy_bar", "assign_a_room", { "sign_ledger", "shelve_bottle", "take_key",
        "hand_key", "take_bottle" }, keep_only = true },
    },
    no_plan = { start = "dawn",
      goal = { bottle = "in_hand", glass = "empty", payment = "paid", ledger = "blank",
               room = "unmade", key = "on_board" },
      code = "unreachable", message = "action 'take_payment' needs glass = served",
      action = "take_payment" },
  },
  dancer = {
    class = "SAS-PUCS2", variables = 4, actions = 9,
    plans = {
      { "waiting_in_the_wings", "dance", { "take_stage", "perform_dance", "take_a_bow",
        "collect_tips" } },
    },
    no_plan = { start = "evening",
      goal = { dress = "off", music = "silent", show = "on_stage", tips = "collected" },
      code = "unreachable", message = "action 'collect_tips' needs show = bowed",
      action = "collect_tips" },
  },
  drunk_citizen = {
    class = "SAS-PUCS2", variables = 4, actions = 9,
    plans = {
      { "halfway", "forget", { "drown_sorrows", "drink_another", "forget_everything" } },
    },
    -- forgetting takes getting drunk, and nobody sobers up here
    no_plan = { start = "noon",
      goal = { bottle = "none", drunkenness = "sober", memory = "forgotten", wandering = "seated" },
      code = "unreachable", message = "action 'drown_sorrows' needs drunkenness = tipsy",
      action = "drown_sorrows" },
  },
}

for _, name in ipairs(fixtures.cast) do
  local c = cast[name]
  describe("the Western " .. name, function()
    local dom = fixtures.domain(name)
    local spec = fixtures.spec(name)

    it("is " .. c.class .. " with " .. c.variables .. " variables and " .. c.actions
       .. " actions", function()
      assert.equal(c.class, dom.class)
      assert.equal(c.variables, #dom:variables())
      assert.equal(c.actions, #dom:actions())
      assert.truthy(dom:explain():find("is " .. c.class, 1, true))
    end)

    it("plans every named goal from every named start like BFS, in 0 to 10 actions",
      function()
        local problems, count = {}, 0
        for _, start in ipairs(fixtures.sorted_keys(spec.starts)) do
          for _, goal in ipairs(fixtures.sorted_keys(spec.goals)) do
            local r = judge.named(dom, spec, start, goal)
            local where = start .. " -> " .. goal .. ": "
            if r.problem then problems[#problems + 1] = where .. r.problem end
            if not (r.keep and r.free and r.keep <= 10) then
              problems[#problems + 1] = where .. ("BFS distance %s (keep) / %s (free)")
                :format(tostring(r.keep), tostring(r.free))
            end
            count = count + 1
          end
        end
        assert.same({}, problems)
        assert.is_true(count >= 1)
      end)

    it("plans every pair of states like BFS", function()
      local count, solvable, failures = judge.all_pairs(dom, spec)
      assert.same({}, failures)
      assert.is_true(solvable > 0 and solvable < count)
    end)

    for _, p in ipairs(c.plans) do
      it("plans " .. p[1] .. " -> " .. p[2] .. " exactly", function()
        local r = judge.named(dom, spec, p[1], p[2])
        -- keep_only: the plan restores a left-out variable; a "don't care" planner
        -- returns a shorter one, which the BFS check above judges
        if p.keep_only and r.free < r.keep and #r.plan == r.free then return end
        assert.same(p[3], r.plan)
      end)
    end

    it("gives its reason when there is no plan (" .. c.no_plan.code .. ")", function()
      local plan, why = dom:plan(c.no_plan.start, c.no_plan.goal)
      assert.is_nil(plan)
      assert.equal(c.no_plan.code, why.code)
      assert.truthy(why.message:find(c.no_plan.message, 1, true), why.message)
      assert.equal(c.no_plan.action, why.action)
    end)
  end)
end
