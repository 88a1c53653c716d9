-- domains/town/behaviours/innkeeper.lua: the Innkeeper's day: serves a drink to each customer at the saloon and, in the evening, gives the arriving guests a room.
return {
  domain = "innkeeper", start = "dawn", share = 9, letter = "i", spawn = "saloon_bar",
  behaviour = {
    actions = {
      take_bottle = { duration = 10, at = { kind = "saloon_bar" } },
      shelve_bottle = { duration = 10, at = { kind = "saloon_bar" } },
      pour_drink = { duration = { 20, 60 }, at = { kind = "saloon_bar" } },
      serve_drink = { duration = 30, at = { kind = "saloon_table" } },
      take_payment = { duration = { 30, 90 }, at = { kind = "saloon_table" } },
      sign_ledger = { duration = 120, at = { kind = "inn_desk" } },
      take_key = { duration = 15, at = { kind = "inn_desk" } },
      hand_key = { duration = 30, at = { kind = "inn_desk" } },
      make_room = { duration = { 600, 900 }, at = { kind = "inn_room" } },
    },
    goals = {
      -- a guest at the desk comes before the bar
      { "assign_a_room", priority = 20, when = { ledger = "blank" } },
      { "serve_a_drink", priority = 10 },
    },
  },
  -- guests arrive from five in the afternoon
  clock = { { hour = 17, spread = 5, set = { ledger = "blank", room = "unmade", key = "on_board" } } },
  -- the next customer sits down 10 to 40 minutes later
  reached = { serve_a_drink = { after = { 600, 2400 }, set = { glass = "empty", payment = "owed" } } },
  alarm = { bottle = "on_shelf" },
}
