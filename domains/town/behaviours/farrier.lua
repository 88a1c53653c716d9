-- domains/town/behaviours/farrier.lua: the Farrier's day: shoes the horses brought in, stocks horseshoes between them; the forge goes cold an hour after it is lit.
return {
  domain = "farrier", start = "dawn", share = 10, letter = "f", spawn = "forge",
  behaviour = {
    actions = {
      light_forge = { duration = { 300, 600 }, at = { kind = "forge" } },
      bank_forge = { duration = 120, at = { kind = "forge" } },
      heat_iron = { duration = { 300, 480 }, at = { kind = "forge" } },
      take_tongs = { duration = 20, at = { kind = "anvil" } },
      hang_tongs = { duration = 20, at = { kind = "anvil" } },
      hammer_shoe = { duration = { 420, 900 }, at = { kind = "anvil" } },
      quench_shoe = { duration = 60, at = { kind = "quench_tub" } },
      tie_horse = { duration = 120, at = { kind = "hitching_post" } },
      shoe_horse = { duration = { 1200, 2400 }, at = { kind = "hitching_post" } },
    },
    goals = {
      -- a waiting horse first; a shoe in stock otherwise
      { "shoe_horse", priority = 20, when = { horse = "waiting" } },
      { "forge_horseshoes", priority = 5 },
    },
  },
  -- the fire burns down: 45 to 90 minutes after it is lit the forge is cold (a step
  -- that still needs it replans with world_changed and lights it again)
  finished = { light_forge = { after = { 2700, 5400 }, set = { forge = "cold" } } },
  -- the next horse is brought in one to two hours after the last is shod
  reached = { shoe_horse = { after = { 3600, 7200 }, set = { horse = "waiting", horseshoe = "none" } } },
  alarm = { tongs = "on_rack" },
}
