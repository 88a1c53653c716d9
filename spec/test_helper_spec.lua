-- spec/test_helper_spec.lua: saspu.test, the assertions offered to scripters for their own domain specs.
local fixtures = require "support.domains"
local check = require "saspu.test"

describe("saspu.test", function()
  local dom = fixtures.domain("horse_breeder")
  -- the haystack and the bucket both in hand, the trough filled: no order works
  local both_in_hands = { haystack = "in_hands", bucket = "in_hands", water = "in_trough" }

  describe("plans_to", function()
    it("passes and returns the plan when it matches", function()
      assert.same({ "take_haystack", "fill_feeder" },
                  check.plans_to(dom, "morning", "fill_feeder", { "take_haystack", "fill_feeder" }))
    end)

    it("fails with both plans when it does not match", function()
      assert.error_matches(function()
        check.plans_to(dom, "morning", "fill_feeder", { "fill_feeder" })
      end, "expected the plan { fill_feeder }, got { take_haystack, fill_feeder }", 1, true)
    end)

    it("fails with the reason when there is no plan", function()
      assert.error_matches(function()
        check.plans_to(dom, "holding_haystack", both_in_hands, {})
      end, "got no plan: no order works", 1, true)
    end)

    it("is a luassert assertion too", function()
      assert.plans_to(dom, "morning", "fill_trough",
                      { "pick_up_bucket", "fill_bucket", "fill_trough", "drop_bucket" })
      assert.error_matches(function()
        assert.plans_to(dom, "morning", "fill_trough", {})
      end, "expected the plan {  }, got { pick_up_bucket, fill_bucket, fill_trough, drop_bucket }",
        1, true)
    end)
  end)

  describe("has_no_plan", function()
    it("passes and returns why when there is no plan for the reason given", function()
      local why = check.has_no_plan(dom, "holding_haystack", both_in_hands, "each need the other")
      assert.equal("order", why.code)
      assert.has_no_plan(dom, "holding_haystack", both_in_hands, "'pick_up_bucket'")
      assert.has_no_plan(dom, "holding_haystack", both_in_hands)
    end)

    it("fails when there is a plan", function()
      assert.error_matches(function()
        check.has_no_plan(dom, "morning", "fill_feeder", "whatever")
      end, "expected no plan, got { take_haystack, fill_feeder }", 1, true)
    end)

    it("fails when the reason differs", function()
      assert.error_matches(function()
        assert.has_no_plan(dom, "holding_haystack", both_in_hands, "the moon")
      end, "expected no plan because of 'the moon', got: no order works", 1, true)
    end)
  end)

  describe("replays", function()
    it("returns the final state of a plan that applies", function()
      assert.same({ haystack = "in_feeder", bucket = "on_floor", water = "in_source" },
                  check.replays(dom, "morning", { "take_haystack", "fill_feeder" }, "fill_feeder"))
    end)

    it("fails on an action whose prevail does not hold", function()
      assert.error_matches(function()
        check.replays(dom, "holding_haystack", { "pick_up_bucket" })
      end, "step 1 'pick_up_bucket': prevail haystack = stored, but it is in_hands", 1, true)
      assert.error_matches(function()
        check.replays(dom, "holding_haystack", { "drop_haystack", "pick_up_bucket", "take_haystack" })
      end, "step 3 'take_haystack': prevail bucket = on_floor, but it is in_hands", 1, true)
    end)

    it("fails when the goal is not reached", function()
      assert.error_matches(function()
        check.replays(dom, "morning", { "take_haystack" }, "fill_feeder")
      end, "haystack = in_hands, the goal wants in_feeder", 1, true)
    end)

    it("fails on an unknown action", function()
      assert.error_matches(function()
        check.replays(dom, "morning", { "dance" })
      end, "has no action 'dance'", 1, true)
    end)
  end)
end)
