-- domains/horse_breeder_ijcai.lua: the Horse Breeder as the IJCAI 2023 and CNIA 2022 tables give it (fill_feeder has no prevail), as a saspu domain table.
--
-- In the game the breeder feeds his horses: he fills the trough with water carried in a
-- bucket from the well, then the feeder with a haystack from the barn.
-- The same as domains/horse_breeder.lua (the SSCI 2022 table) but for fill_feeder, which
-- has no prevail here: the breeder may fill the feeder with the bucket in hand. The C
-- builtin sp_builtin_horse_breeder(.., SP_HORSE_IJCAI) has the same names, starts and
-- goals: tests/support/paper_names.h holds them for both sides.
--
-- Why each prevail-condition (the paper: "the NPC does not carry a haystack and the
-- bucket at the same time, as it is physically demanding"):
--   take_haystack                bucket = on_floor: hands free for the haystack.
--   pick_up_bucket               haystack = stored: hands free for the bucket.
--   fill_bucket, fill_trough     bucket = in_hands: the water is carried in the bucket.
-- Class SAS-PUC*2: both bucket actions are requested, by the haystack actions
-- (bucket = on_floor) and by the water actions (bucket = in_hands).
--
-- Places (params "pos", see domains/town/places.lua): hay_barn, feeder, stables (where
-- the bucket hangs), well, trough. Dropping happens where the breeder stands.
return {
  name = "horse_breeder_ijcai",
  variables = {
    { name = "haystack", values = { "stored", "in_hands", "in_feeder" } },
    { name = "bucket",   values = { "on_floor", "in_hands" } },
    { name = "water",    values = { "in_source", "in_bucket", "in_trough" } },
  },
  actions = {
    { name = "drop_haystack",  var = "haystack", pre = "in_hands", post = "stored",
      params = { "pos" } },
    { name = "take_haystack",  var = "haystack", pre = "stored",   post = "in_hands",
      prevail = { bucket = "on_floor" }, params = { "pos" } },
    { name = "fill_feeder",    var = "haystack", pre = "in_hands", post = "in_feeder",
      params = { "pos" } },
    { name = "drop_bucket",    var = "bucket",   pre = "in_hands", post = "on_floor",
      params = { "pos" } },
    { name = "pick_up_bucket", var = "bucket",   pre = "on_floor", post = "in_hands",
      prevail = { haystack = "stored" }, params = { "pos" } },
    { name = "fill_bucket",    var = "water",    pre = "in_source", post = "in_bucket",
      prevail = { bucket = "in_hands" }, params = { "pos" } },
    { name = "fill_trough",    var = "water",    pre = "in_bucket", post = "in_trough",
      prevail = { bucket = "in_hands" }, params = { "pos" } },
  },
  -- A goal is a condition: a variable it leaves out is free (don't care). The papers'
  -- goals are total states; where they write s0[v], the variable keeps its start value
  -- (v = KEEP, the value saspu.KEEP): the sub-goals must not undo the other's progress.
  goals = {
    -- FeedHorses = <2,0,2>: feeder and trough filled, bucket back on the floor (total).
    feed_horses = { haystack = "in_feeder", bucket = "on_floor", water = "in_trough" },
    -- FillFeeder = <2,0,s0[water]>: the water keeps its start value (KEEP).
    fill_feeder = { haystack = "in_feeder", bucket = "on_floor", water = KEEP },
    -- FillTrough = <s0[haystack],0,2>: the haystack keeps its start value (KEEP): held
    -- at the start, it is dropped for the bucket and taken again. The SSCI text writes
    -- <s0,1,2> (bucket in hands), but its worked example <0,0,0> -> <0,0,2> ends with
    -- drop_bucket, and every other goal leaves the hands free.
    fill_trough = { haystack = KEEP, bucket = "on_floor", water = "in_trough" },
  },
  starts = {
    -- The two starts of the paper's worked examples.
    morning = { haystack = "stored", bucket = "on_floor", water = "in_source" },
    holding_haystack = { haystack = "in_hands", bucket = "on_floor", water = "in_source" },
  },
}
