-- domains/dancer.lua: the Dancer of the RDR-2 town (SSCI 2022 names its goal: dance), as a saspu domain table.
--
-- In the game the saloon dancer changes into her dress backstage, warms up, waits for
-- the pianist to strike up, dances the number, bows and collects the tips thrown on the
-- stage. The paper gives only the goal; the actions below are ours. The show is the
-- town's largest variable, 5 values (the papers' largest domain has 5).
--
-- Why each prevail-condition:
--   take_stage    dress = on: nobody goes on stage in street clothes.
--   perform_dance music = playing: she dances to the piano.
--   collect_tips  show = bowed: the audience throws coins after the bow.
-- Class SAS-PUCS2: the dress and music 2-cycles each hold one requested action
-- (put_on_dress, cue_music).
--
-- Places (params "pos", see domains/town/places.lua): dressing_room, stage, piano;
-- "pianist" is the musician cued.
return {
  name = "dancer",
  variables = {
    { name = "dress", values = { "off", "on" } },
    { name = "music", values = { "silent", "playing" } },
    -- the show of tonight: a new show starts again from "waiting"
    { name = "show",  values = { "waiting", "warmed_up", "on_stage", "danced", "bowed" } },
    { name = "tips",  values = { "none", "collected" } },
  },
  actions = {
    { name = "put_on_dress",  var = "dress", pre = "off", post = "on", params = { "pos" } },
    { name = "take_off_dress", var = "dress", pre = "on", post = "off", params = { "pos" } },
    { name = "cue_music",     var = "music", pre = "silent", post = "playing",
      params = { "pianist", "pos" } },
    { name = "stop_music",    var = "music", pre = "playing", post = "silent",
      params = { "pianist", "pos" } },
    { name = "warm_up",       var = "show",  pre = "waiting", post = "warmed_up",
      params = { "pos" } },
    { name = "take_stage",    var = "show",  pre = "warmed_up", post = "on_stage",
      prevail = { dress = "on" }, params = { "pos" } },
    { name = "perform_dance", var = "show",  pre = "on_stage", post = "danced",
      prevail = { music = "playing" }, params = { "pos" } },
    { name = "take_a_bow",    var = "show",  pre = "danced", post = "bowed",
      params = { "pos" } },
    { name = "collect_tips",  var = "tips",  pre = "none", post = "collected",
      prevail = { show = "bowed" }, params = { "pos" } },
  },
  -- Every goal is a condition: the variables it leaves out are free (don't care, the
  -- default); none keeps a start value (saspu.KEEP), so "kept" below is the other reading.
  goals = {
    -- Dance: the number danced and the tips collected. The show is listed because it
    -- never goes back to "waiting"; the dress and the music are left free (kept: she
    -- changes back and the piano stops; don't care: they may stay as they are).
    dance = { show = "bowed", tips = "collected" },
  },
  starts = {
    -- Evening: in street clothes, the piano silent, the show not begun.
    evening = { dress = "off", music = "silent", show = "waiting", tips = "none" },
    -- Already dressed and warmed up while the pianist plays for the bar.
    waiting_in_the_wings = { dress = "on", music = "playing", show = "warmed_up",
                             tips = "none" },
  },
}
