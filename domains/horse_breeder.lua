-- domains/horse_breeder.lua: the Horse Breeder of the SSCI 2022 paper (Red Dead Redemption 2), as a saspu domain table.
--
-- Variables and actions are exactly the paper's Table I (SSCI version: fill_feeder keeps
-- the bucket on the floor, like take_haystack, so the breeder never carries the haystack
-- and the bucket at once). Class SAS-PUC*2: both bucket actions are requested, by the
-- haystack actions (bucket = on_floor) and by the water actions (bucket = in_hands).
return {
  name = "horse_breeder",
  variables = {
    { name = "haystack", values = { "stored", "in_hands", "in_feeder" } },
    { name = "bucket",   values = { "on_floor", "in_hands" } },
    { name = "water",    values = { "in_source", "in_bucket", "in_trough" } },
  },
  actions = {
    { name = "drop_haystack",  var = "haystack", pre = "in_hands", post = "stored" },
    { name = "take_haystack",  var = "haystack", pre = "stored",   post = "in_hands",
      prevail = { bucket = "on_floor" } },
    { name = "fill_feeder",    var = "haystack", pre = "in_hands", post = "in_feeder",
      prevail = { bucket = "on_floor" } },
    { name = "drop_bucket",    var = "bucket",   pre = "in_hands", post = "on_floor" },
    { name = "pick_up_bucket", var = "bucket",   pre = "on_floor", post = "in_hands",
      prevail = { haystack = "stored" } },
    { name = "fill_bucket",    var = "water",    pre = "in_source", post = "in_bucket",
      prevail = { bucket = "in_hands" } },
    { name = "fill_trough",    var = "water",    pre = "in_bucket", post = "in_trough",
      prevail = { bucket = "in_hands" } },
  },
  goals = {
    -- FeedHorses = <2,0,2>: feeder and trough filled, bucket back on the floor.
    feed_horses = { haystack = "in_feeder", bucket = "on_floor", water = "in_trough" },
    -- FillFeeder = <2,0,s0[water]>: the water is left as it is.
    fill_feeder = { haystack = "in_feeder", bucket = "on_floor" },
    -- FillTrough = <s0[haystack],1,2>: the haystack is left as it is.
    fill_trough = { bucket = "in_hands", water = "in_trough" },
  },
  starts = {
    -- The two starts of the paper's worked examples.
    morning = { haystack = "stored", bucket = "on_floor", water = "in_source" },
    holding_haystack = { haystack = "in_hands", bucket = "on_floor", water = "in_source" },
  },
}
