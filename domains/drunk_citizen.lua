-- domains/drunk_citizen.lua: the Drunk Citizen of the RDR-2 town (SSCI 2022 names its goal: forget), as a saspu domain table.
--
-- In the game the town drunk buys a bottle at the saloon, drinks glass after glass
-- until his sorrows are numb and then forgotten, staggers out into the street and ends
-- passed out on the boardwalk. The paper gives only the goal; the actions below are
-- ours.
--
-- Why each prevail-condition:
--   drink_a_glass / drink_another  bottle = on_table: he drinks from his own bottle.
--   drown_sorrows      drunkenness = tipsy: the first glasses numb the memory...
--   forget_everything  drunkenness = drunk: ...and only a drunk man forgets.
--   stagger_out        drunkenness = drunk: a tipsy man still walks straight.
--   pass_out           wandering = staggering: he collapses in the street, not at the
--                      table.
-- Class SAS-PUCS2: the bottle and wandering 2-cycles each hold one requested action
-- (buy_bottle, stagger_out). Asking for him seated to drink would request sit_down too,
-- linked to stagger_out through the drunkenness chain: outside SAS-PUC*2.
--
-- Places (params "pos", see domains/town/places.lua): saloon_bar, saloon_table,
-- street, bench.
return {
  name = "drunk_citizen",
  variables = {
    { name = "bottle",      values = { "none", "on_table" } },
    { name = "drunkenness", values = { "sober", "tipsy", "drunk", "passed_out" } },
    { name = "memory",      values = { "haunted", "numb", "forgotten" } },
    { name = "wandering",   values = { "seated", "staggering" } },
  },
  actions = {
    { name = "buy_bottle",        var = "bottle", pre = "none", post = "on_table",
      params = { "pos" } },
    { name = "finish_bottle",     var = "bottle", pre = "on_table", post = "none",
      params = { "pos" } },
    { name = "drink_a_glass",     var = "drunkenness", pre = "sober", post = "tipsy",
      prevail = { bottle = "on_table" }, params = { "pos" } },
    { name = "drink_another",     var = "drunkenness", pre = "tipsy", post = "drunk",
      prevail = { bottle = "on_table" }, params = { "pos" } },
    { name = "pass_out",          var = "drunkenness", pre = "drunk", post = "passed_out",
      prevail = { wandering = "staggering" } },
    { name = "drown_sorrows",     var = "memory", pre = "haunted", post = "numb",
      prevail = { drunkenness = "tipsy" }, params = { "pos" } },
    { name = "forget_everything", var = "memory", pre = "numb", post = "forgotten",
      prevail = { drunkenness = "drunk" }, params = { "pos" } },
    { name = "stagger_out",       var = "wandering", pre = "seated", post = "staggering",
      prevail = { drunkenness = "drunk" }, params = { "pos" } },
    { name = "sit_down",          var = "wandering", pre = "staggering", post = "seated",
      params = { "pos" } },
  },
  -- Every goal is a condition: the variables it leaves out are free (don't care, the
  -- default); none keeps a start value (saspu.KEEP), so "kept" below is the other reading.
  goals = {
    -- Forget: the memory gone. Drunkenness is listed because it never sobers up in
    -- this domain (the game resets it overnight); the bottle is left free (kept: he
    -- finishes it; don't care: it may stay on the table).
    forget = { memory = "forgotten", drunkenness = "drunk" },
    -- Our second goal, the end of his evening: passed out in the street, everything
    -- forgotten. Listed: all three one-way variables and the staggering it needs.
    pass_out_in_the_street = { memory = "forgotten", drunkenness = "passed_out",
                               wandering = "staggering" },
  },
  starts = {
    -- Noon: sober, no bottle, haunted by his past.
    noon = { bottle = "none", drunkenness = "sober", memory = "haunted",
             wandering = "seated" },
    -- Already tipsy at his table with a bottle.
    halfway = { bottle = "on_table", drunkenness = "tipsy", memory = "haunted",
                wandering = "seated" },
  },
}
