-- domains/native_hunter.lua: the Native Hunter of the RDR-2 town (SSCI 2022 names its goal: hunt), as a saspu domain table.
--
-- In the game the hunter rides out to the hunting grounds, follows tracks, shoots the
-- animal with his bow, skins it with his knife and brings the pelt to the general store
-- to trade it. The paper gives only the goal; the actions below are ours.
--
-- Why each prevail-condition:
--   shoot_prey  bow = in_hand: the bow is drawn to shoot.
--   skin_prey   knife = in_hand: skinning needs the knife.
--   carry_pelt  prey = skinned: there is a pelt only once the animal is skinned.
-- Only one side of each 2-cycle is requested (draw_bow, draw_knife). Asking for the
-- knife sheathed at the store (nobody trades with a bare blade in hand) would request
-- sheathe_knife too, from sell_pelt, which is linked to skin_prey through carry_pelt:
-- outside SAS-PUC*2. The plan sheathes the knife anyway when the start had it sheathed.
-- Class SAS-PUCS2.
--
-- Places (params "pos", see domains/town/places.lua): hunting_grounds, general_store;
-- "prey" is the animal hunted.
return {
  name = "native_hunter",
  variables = {
    { name = "bow",   values = { "slung", "in_hand" } },
    { name = "knife", values = { "sheathed", "in_hand" } },
    -- the animal of the current hunt: a new hunt starts again from "unseen"
    { name = "prey",  values = { "unseen", "tracked", "shot", "skinned" } },
    { name = "pelt",  values = { "none", "carried", "sold" } },
  },
  actions = {
    { name = "draw_bow",      var = "bow",   pre = "slung", post = "in_hand" },
    { name = "sling_bow",     var = "bow",   pre = "in_hand", post = "slung" },
    { name = "draw_knife",    var = "knife", pre = "sheathed", post = "in_hand" },
    { name = "sheathe_knife", var = "knife", pre = "in_hand", post = "sheathed" },
    { name = "track_prey",    var = "prey",  pre = "unseen", post = "tracked",
      params = { "prey", "pos" } },
    { name = "shoot_prey",    var = "prey",  pre = "tracked", post = "shot",
      prevail = { bow = "in_hand" }, params = { "prey", "pos" } },
    { name = "skin_prey",     var = "prey",  pre = "shot", post = "skinned",
      prevail = { knife = "in_hand" }, params = { "prey", "pos" } },
    { name = "carry_pelt",    var = "pelt",  pre = "none", post = "carried",
      prevail = { prey = "skinned" }, params = { "pos" } },
    { name = "sell_pelt",     var = "pelt",  pre = "carried", post = "sold",
      params = { "pos" } },
  },
  -- Every goal is a condition: the variables it leaves out are free (don't care, the
  -- default); none keeps a start value (saspu.KEEP), so "kept" below is the other reading.
  goals = {
    -- Hunt: the pelt sold. The prey is listed because it never goes back to "unseen";
    -- the bow is left free (kept: slung again; don't care: may stay in hand).
    hunt = { prey = "skinned", pelt = "sold" },
  },
  starts = {
    -- Dawn at the camp: bow slung, knife sheathed, nothing tracked yet.
    dawn = { bow = "slung", knife = "sheathed", prey = "unseen", pelt = "none" },
    -- Back from a kill left unskinned: the animal lies shot, the bow still drawn.
    prey_down = { bow = "in_hand", knife = "sheathed", prey = "shot", pelt = "none" },
  },
}
