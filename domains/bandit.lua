-- domains/bandit.lua: the Bandit of the RDR-2 town (SSCI 2022 names its goal: rob a bank), as a saspu domain table.
--
-- In the game a bandit ties his horse near the bank, pulls his bandana up, draws his
-- revolver, threatens the teller until the safe is opened, bags the money and rides to
-- his hideout to stash it. The paper gives only the goal; the actions below are ours.
--
-- Why each prevail-condition:
--   threaten_teller mask = up, gun = drawn: nobody is robbed by a known face with an
--                   empty hand.
--   open_safe       gun = drawn: the teller opens the safe only at gunpoint.
--   grab_loot       teller = safe_open: the money is in the safe.
--   stash_loot      horse = mounted: the hideout is out of town, reached on horseback.
-- Only one side of each 2-cycle is requested: asking for the mask down when stashing
-- would request both mask actions from requesters linked through the teller and loot
-- chains (threaten_teller -> open_safe -> grab_loot -> stash_loot), outside SAS-PUC*2.
-- Class SAS-PUCS2.
--
-- Places (params "pos", see domains/town/places.lua): bank_counter, bank_vault,
-- hitching_post, hideout; "teller" is the teller threatened.
return {
  name = "bandit",
  variables = {
    { name = "mask",   values = { "down", "up" } },
    { name = "gun",    values = { "holstered", "drawn" } },
    { name = "horse",  values = { "hitched", "mounted" } },
    -- the teller of the current robbery, as the bandit sees him
    { name = "teller", values = { "calm", "threatened", "safe_open" } },
    { name = "loot",   values = { "none", "in_bag", "stashed" } },
  },
  actions = {
    { name = "pull_up_mask",    var = "mask",  pre = "down", post = "up" },
    { name = "pull_down_mask",  var = "mask",  pre = "up", post = "down" },
    { name = "draw_gun",        var = "gun",   pre = "holstered", post = "drawn" },
    { name = "holster_gun",     var = "gun",   pre = "drawn", post = "holstered" },
    { name = "mount_horse",     var = "horse", pre = "hitched", post = "mounted",
      params = { "pos" } },
    { name = "dismount",        var = "horse", pre = "mounted", post = "hitched",
      params = { "pos" } },
    { name = "threaten_teller", var = "teller", pre = "calm", post = "threatened",
      prevail = { mask = "up", gun = "drawn" }, params = { "teller", "pos" } },
    { name = "open_safe",       var = "teller", pre = "threatened", post = "safe_open",
      prevail = { gun = "drawn" }, params = { "teller", "pos" } },
    { name = "grab_loot",       var = "loot",  pre = "none", post = "in_bag",
      prevail = { teller = "safe_open" }, params = { "pos" } },
    { name = "stash_loot",      var = "loot",  pre = "in_bag", post = "stashed",
      prevail = { horse = "mounted" }, params = { "pos" } },
  },
  -- Every goal is a condition: the variables it leaves out are free (don't care, the
  -- default); none keeps a start value (saspu.KEEP), so "kept" below is the other reading.
  goals = {
    -- Rob a bank: the money stashed at the hideout. The teller is listed because he
    -- never calms down again; mask, gun and horse are left free (kept: the bandit ends
    -- as he started; don't care: he may ride on masked, gun in hand).
    rob_a_bank = { teller = "safe_open", loot = "stashed" },
  },
  starts = {
    -- Dawn: a quiet man by his horse.
    dawn = { mask = "down", gun = "holstered", horse = "hitched", teller = "calm",
             loot = "none" },
    -- Riding into town ready for the job: masked, gun drawn, still in the saddle.
    riding_in = { mask = "up", gun = "drawn", horse = "mounted", teller = "calm",
                  loot = "none" },
  },
}
