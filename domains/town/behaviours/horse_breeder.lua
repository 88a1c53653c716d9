-- domains/town/behaviours/horse_breeder.lua: the Horse Breeder's day in the town: feeds the horses at the stables, again whenever they have eaten.
--
-- The fields every file of this folder has are described in domains/README.md
-- ("Behaviours"). Times are game seconds.
return {
  domain = "horse_breeder", start = "morning", share = 14, letter = "b", spawn = "stables",
  behaviour = {
    actions = {
      take_haystack = { duration = { 120, 300 }, at = { kind = "hay_barn" } },
      drop_haystack = { duration = 30, at = { kind = "hay_barn" } },
      fill_feeder = { duration = { 240, 420 }, at = { kind = "feeder" } },
      pick_up_bucket = { duration = 30, at = { kind = "stables" } },
      drop_bucket = { duration = 30, at = { kind = "stables" } },
      fill_bucket = { duration = { 120, 240 }, at = { kind = "well" } },
      fill_trough = { duration = { 120, 180 }, at = { kind = "trough" } },
    },
    goals = { { "feed_horses", priority = 10 } },
  },
  -- the horses eat and drink: three to five hours later the feeder and trough are empty
  reached = { feed_horses = { after = { 10800, 18000 }, set = { haystack = "stored", water = "in_source" } } },
  -- shots at the bank: the bucket is dropped where he stands
  alarm = { bucket = "on_floor" },
}
