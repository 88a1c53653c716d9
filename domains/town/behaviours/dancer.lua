-- domains/town/behaviours/dancer.lua: the Dancer's evening: when the piano strikes up she warms up, dresses, dances, bows and collects tips, show after show until the music stops.
return {
  domain = "dancer", start = "evening", share = 8, letter = "d", spawn = "home",
  behaviour = {
    actions = {
      put_on_dress = { duration = { 300, 600 }, at = { kind = "dressing_room" } },
      take_off_dress = { duration = 300, at = { kind = "dressing_room" } },
      warm_up = { duration = { 600, 900 }, at = { kind = "dressing_room" } },
      cue_music = { duration = 30, at = { kind = "piano" } },
      stop_music = { duration = 30, at = { kind = "piano" } },
      take_stage = { duration = 30, at = { kind = "stage" } },
      perform_dance = { duration = { 900, 1500 }, at = { kind = "stage" } },
      take_a_bow = { duration = 30, at = { kind = "stage" } },
      collect_tips = { duration = { 120, 300 }, at = { kind = "stage" } },
    },
    goals = { { "dance", priority = 10, when = { music = "playing" } } },
  },
  -- the pianist plays from seven in the evening to one at night
  clock = { { hour = 19, spread = 1, set = { music = "playing" } },
            { hour = 25, spread = 0.5, set = { music = "silent" } } },
  -- the next show half an hour to an hour later
  reached = { dance = { after = { 1800, 3600 }, set = { show = "waiting", tips = "none" } } },
  alarm = { music = "silent" },
}
