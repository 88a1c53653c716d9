-- domains/town/behaviours/bandit.lua: the Bandit's day: waits at the hideout, draws his gun in the afternoon and robs the bank (the shots draw the town's attention).
return {
  domain = "bandit", start = "dawn", share = 3, letter = "x", spawn = "hideout",
  behaviour = {
    actions = {
      pull_up_mask = { duration = 5 }, pull_down_mask = { duration = 5 },
      draw_gun = { duration = 2 }, holster_gun = { duration = 2 },
      mount_horse = { duration = 20, at = { kind = "hitching_post" } },
      dismount = { duration = 20, at = { kind = "hitching_post" } },
      threaten_teller = { duration = { 60, 120 }, at = { kind = "bank_counter" } },
      open_safe = { duration = { 120, 300 }, at = { kind = "bank_vault" } },
      grab_loot = { duration = 60, at = { kind = "bank_vault" } },
      stash_loot = { duration = 120, at = { kind = "hideout" } },
    },
    -- the gun drawn is the signal: no robbery before the clock says so
    goals = { { "rob_a_bank", priority = 10, when = { gun = "drawn" } } },
  },
  clock = { { hour = 13, spread = 4, set = { gun = "drawn" } } },
  -- the loot stashed, the gang lies low: guns holstered, masks down until tomorrow
  reached = { rob_a_bank = { after = { 600, 1200 },
                             set = { gun = "holstered", mask = "down", teller = "calm", loot = "none" } } },
  -- the demo's alarm: threaten_teller starting draws the attention of agents near the bank
  robbery = "threaten_teller",
}
