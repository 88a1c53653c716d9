-- domains/town/behaviours/drunk_citizen.lua: the Drunk Citizen's day: drinks at the saloon until he forgets, staggers out to a street corner and passes out; sobers up and starts again.
return {
  domain = "drunk_citizen", start = "noon", share = 44, letter = "z", spawn = "home",
  behaviour = {
    actions = {
      buy_bottle = { duration = { 60, 180 }, at = { kind = "saloon_bar" } },
      finish_bottle = { duration = { 600, 1200 }, at = { kind = "saloon_table" } },
      drink_a_glass = { duration = { 1200, 2400 }, at = { kind = "saloon_table" } },
      drink_another = { duration = { 1200, 2400 }, at = { kind = "saloon_table" } },
      drown_sorrows = { duration = { 1800, 3600 }, at = { kind = "saloon_table" } },
      forget_everything = { duration = { 1800, 3600 }, at = { kind = "saloon_table" } },
      -- the drunk wanders: out to a street corner, or down to a bench
      stagger_out = { duration = { 300, 900 }, at = { kind = "street" } },
      sit_down = { duration = { 600, 1800 }, at = { kind = "bench" } },
      pass_out = { duration = 60 },
    },
    goals = {
      -- drawn out by the shots while still tipsy: sits down on a bench
      { { wandering = "seated" }, priority = 30, when = { wandering = "staggering", drunkenness = "tipsy" } },
      { "pass_out_in_the_street", priority = 10 },
    },
  },
  -- sobers up three to six hours after passing out
  reached = { pass_out_in_the_street = { after = { 10800, 21600 },
              set = { drunkenness = "sober", memory = "haunted", wandering = "seated", bottle = "none" } } },
  alarm = { wandering = "staggering" },
}
