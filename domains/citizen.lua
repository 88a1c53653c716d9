-- domains/citizen.lua: the Citizen of the SSCI 2022 paper (Assassin's Creed: Origins), as a saspu domain table.
--
-- Variables and actions are exactly the paper's Table II, with the paper's action
-- parameters (a position or an item is a parameter, never a MoveTo action). Boolean
-- variables keep the paper's value names "false" and "true". Class SAS-PUCS2: the
-- cycles on has_item, wandering, debating and working each hold one requested action.
return {
  name = "citizen",
  variables = {
    { name = "hunger",    values = { "no_food", "has_food", "fed" } },
    { name = "thirst",    values = { "no_drink", "has_drink", "hydrated" } },
    { name = "has_item",  values = { "false", "true" } },
    { name = "wandering", values = { "false", "true" } },
    { name = "debating",  values = { "false", "true" } },
    { name = "rested",    values = { "false", "true" } },
    { name = "working",   values = { "false", "true" } },
  },
  actions = {
    { name = "buy_food", var = "hunger", pre = "no_food", post = "has_food",
      prevail = { working = "false" }, params = { "pos" } },
    { name = "eat", var = "hunger", pre = "has_food", post = "fed" },
    { name = "buy_drink", var = "thirst", pre = "no_drink", post = "has_drink",
      prevail = { working = "false" }, params = { "pos" } },
    { name = "drink", var = "thirst", pre = "has_drink", post = "hydrated" },
    { name = "store", var = "has_item", pre = "true", post = "false",
      prevail = { wandering = "false", working = "false" }, params = { "item", "pos" } },
    { name = "take", var = "has_item", pre = "false", post = "true",
      prevail = { wandering = "false", working = "false" }, params = { "item", "pos" } },
    { name = "stop_wandering", var = "wandering", pre = "true", post = "false" },
    { name = "have_a_walk", var = "wandering", pre = "false", post = "true",
      prevail = { thirst = "hydrated", working = "false" } },
    { name = "stop_debate", var = "debating", pre = "true", post = "false" },
    { name = "debate", var = "debating", pre = "false", post = "true",
      params = { "with", "pos" } },
    { name = "rest", var = "rested", pre = "false", post = "true",
      prevail = { wandering = "false", debating = "false", working = "false" },
      params = { "pos" } },
    { name = "end_work", var = "working", pre = "true", post = "false" },
    { name = "work", var = "working", pre = "false", post = "true",
      prevail = { hunger = "fed", thirst = "hydrated", has_item = "true", wandering = "false" },
      params = { "item", "pos" } },
  },
  goals = {
    -- A goal is a condition: a variable it leaves out is free (don't care).
    -- The paper's three listed goals are total states: where they write s0[v] the
    -- variable keeps its start value (v = KEEP, the value saspu.KEEP).
    -- Work = <2,2,1,0,s0[debating],1,1>
    work = { hunger = "fed", thirst = "hydrated", has_item = "true", wandering = "false",
             debating = KEEP, rested = "true", working = "true" },
    -- BuySupplies = <1,1,s0,s0,s0,s0,0>
    buy_supplies = { hunger = "has_food", thirst = "has_drink", has_item = KEEP,
                     wandering = KEEP, debating = KEEP, rested = KEEP, working = "false" },
    -- EatAndDebateWhileWandering = <2,2,s0,1,1,s0,0>
    eat_and_debate_while_wandering = { hunger = "fed", thirst = "hydrated", has_item = KEEP,
                                       wandering = "true", debating = "true",
                                       rested = KEEP, working = "false" },
    -- The paper uses 8 goals and lists 3. The five below are ours, conditions whose
    -- left-out variables are free (none keeps a start value); each is a routine
    -- part of a citizen's day and has a plan from the start of the day (nothing can
    -- make a citizen un-rested again, so no goal asks for rested = false).
    -- A meal on its own: buy food, then eat it.
    have_a_meal = { hunger = "fed" },
    -- Drink only: buy a drink and drink it, hunger untouched.
    quench_thirst = { thirst = "hydrated" },
    -- A stroll: have_a_walk needs the citizen hydrated, so the plan drinks first (and
    -- the goal says hydrated: nothing makes a citizen thirsty again).
    go_for_a_walk = { thirst = "hydrated", wandering = "true" },
    -- Join a conversation somewhere in town: a single parameterised action.
    join_a_debate = { debating = "true" },
    -- Fetch the work tools before work starts: take(?item, ?pos) while not working.
    fetch_tools = { has_item = "true", working = "false" },
  },
  starts = {
    -- The start of the day <0,0,0,0,0,1,0>: rested, hungry and thirsty, nothing else yet.
    start_of_day = { hunger = "no_food", thirst = "no_drink", has_item = "false",
                     wandering = "false", debating = "false", rested = "true",
                     working = "false" },
  },
}
