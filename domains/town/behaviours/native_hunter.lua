-- domains/town/behaviours/native_hunter.lua: the Native Hunter's day: tracks, shoots and skins prey on the hunting grounds, sells the pelt at the store, goes out again.
return {
  domain = "native_hunter", start = "dawn", share = 12, letter = "n", spawn = "home",
  behaviour = {
    actions = {
      draw_bow = { duration = 5 }, sling_bow = { duration = 5 },
      draw_knife = { duration = 3 }, sheathe_knife = { duration = 3 },
      track_prey = { duration = { 1200, 3600 }, at = { kind = "hunting_grounds" } },
      shoot_prey = { duration = { 30, 120 }, at = { kind = "hunting_grounds" } },
      skin_prey = { duration = { 600, 1200 }, at = { kind = "hunting_grounds" } },
      carry_pelt = { duration = 60, at = { kind = "hunting_grounds" } },
      sell_pelt = { duration = { 300, 600 }, at = { kind = "general_store" } },
    },
    goals = { { "hunt", priority = 10 } },
  },
  -- after a rest, the next hunt
  reached = { hunt = { after = { 3600, 7200 }, set = { prey = "unseen", pelt = "none" } } },
}
