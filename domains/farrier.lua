-- domains/farrier.lua: the Farrier of the RDR-2 town (SSCI 2022 names its goals: shoe a horse, forge horseshoes), as a saspu domain table.
--
-- In the game the farrier works at the stables' forge: he lights the forge, holds a bar
-- of iron in the tongs to heat it, hammers it into a shoe on the anvil, quenches it in
-- the tub, and nails it to a horse tied at the hitching post. The paper gives only the
-- goals; the actions below are ours.
--
-- Why each prevail-condition:
--   heat_iron   forge = hot, tongs = in_hand: iron only glows in a hot forge, and it is
--               held there with the tongs, never by hand.
--   hammer_shoe tongs = in_hand: the glowing iron is held on the anvil with the tongs.
--   quench_shoe tongs = in_hand: the hot shoe is dipped in the tub with the tongs.
--   shoe_horse  horseshoe = ready: only a quenched shoe is nailed on.
-- shoe_horse does not ask for the tongs on the rack (both hands for hammer and hoof):
-- that would make both tongs actions requested by requesters linked through the
-- horseshoe chain, outside SAS-PUC*2.
-- Class SAS-PUCS2: the forge and tongs 2-cycles each hold one requested action
-- (light_forge, take_tongs).
--
-- Places (params "pos", see domains/town/places.lua): forge, anvil, quench_tub,
-- hitching_post; "horse" is the horse being shod.
return {
  name = "farrier",
  variables = {
    { name = "forge",     values = { "cold", "hot" } },
    { name = "tongs",     values = { "on_rack", "in_hand" } },
    -- the shoe of the current job: a new job starts again from "none"
    { name = "horseshoe", values = { "none", "glowing", "shaped", "ready" } },
    { name = "horse",     values = { "waiting", "tied", "shod" } },
  },
  actions = {
    { name = "light_forge", var = "forge", pre = "cold", post = "hot", params = { "pos" } },
    { name = "bank_forge",  var = "forge", pre = "hot", post = "cold", params = { "pos" } },
    { name = "take_tongs",  var = "tongs", pre = "on_rack", post = "in_hand", params = { "pos" } },
    { name = "hang_tongs",  var = "tongs", pre = "in_hand", post = "on_rack", params = { "pos" } },
    { name = "heat_iron",   var = "horseshoe", pre = "none", post = "glowing",
      prevail = { forge = "hot", tongs = "in_hand" }, params = { "pos" } },
    { name = "hammer_shoe", var = "horseshoe", pre = "glowing", post = "shaped",
      prevail = { tongs = "in_hand" }, params = { "pos" } },
    { name = "quench_shoe", var = "horseshoe", pre = "shaped", post = "ready",
      prevail = { tongs = "in_hand" }, params = { "pos" } },
    { name = "tie_horse",   var = "horse", pre = "waiting", post = "tied",
      params = { "horse", "pos" } },
    { name = "shoe_horse",  var = "horse", pre = "tied", post = "shod",
      prevail = { horseshoe = "ready" }, params = { "horse", "pos" } },
  },
  -- Every goal is a condition: the variables it leaves out are free (don't care, the
  -- default); none keeps a start value (saspu.KEEP), so "kept" below is the other reading.
  goals = {
    -- Forge horseshoes: a shoe ready and the tongs back on the rack. The forge is left
    -- free: keeping the start value banks it again, "don't care" leaves it hot.
    forge_horseshoes = { horseshoe = "ready", tongs = "on_rack" },
    -- Shoe the horse: the shoe is listed because it never goes back to "none". The
    -- forge and the tongs are left free.
    shoe_horse = { horse = "shod", horseshoe = "ready" },
  },
  starts = {
    -- Dawn: a cold forge, the tongs on the rack, no shoe, a horse waiting.
    dawn = { forge = "cold", tongs = "on_rack", horseshoe = "none", horse = "waiting" },
    -- A customer brings a horse while a shoe is ready and the forge still hot.
    horse_brought_in = { forge = "hot", tongs = "on_rack", horseshoe = "ready",
                         horse = "waiting" },
  },
}
