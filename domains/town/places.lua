-- domains/town/places.lua: where each action of the Western cast happens: the place kind its "pos" param binds to on domains/town/town.txt.
--
-- The convention of the cast's domain files: an action with a "pos" param happens at a
-- place of the kind given here (a behaviour table's `at = { kind = ... }`); an action
-- without one happens where the NPC stands (dropping, drawing a weapon, passing out).
-- spec/town_spec.lua checks that every "pos" action has an entry, every entry is such
-- an action, and every kind is on the map.
return {
  horse_breeder = {
    drop_haystack = "hay_barn", take_haystack = "hay_barn", fill_feeder = "feeder",
    drop_bucket = "stables", pick_up_bucket = "stables", fill_bucket = "well",
    fill_trough = "trough",
  },
  farrier = {
    light_forge = "forge", bank_forge = "forge", heat_iron = "forge",
    take_tongs = "anvil", hang_tongs = "anvil", hammer_shoe = "anvil",
    quench_shoe = "quench_tub", tie_horse = "hitching_post", shoe_horse = "hitching_post",
  },
  native_hunter = {
    track_prey = "hunting_grounds", shoot_prey = "hunting_grounds",
    skin_prey = "hunting_grounds", carry_pelt = "hunting_grounds",
    sell_pelt = "general_store",
  },
  bandit = {
    mount_horse = "hitching_post", dismount = "hitching_post",
    threaten_teller = "bank_counter", open_safe = "bank_vault", grab_loot = "bank_vault",
    stash_loot = "hideout",
  },
  innkeeper = {
    take_bottle = "saloon_bar", shelve_bottle = "saloon_bar", pour_drink = "saloon_bar",
    serve_drink = "saloon_table", take_payment = "saloon_table",
    sign_ledger = "inn_desk", take_key = "inn_desk", hand_key = "inn_desk",
    make_room = "inn_room",
  },
  dancer = {
    put_on_dress = "dressing_room", take_off_dress = "dressing_room",
    warm_up = "dressing_room", cue_music = "piano", stop_music = "piano",
    take_stage = "stage", perform_dance = "stage", take_a_bow = "stage",
    collect_tips = "stage",
  },
  drunk_citizen = {
    buy_bottle = "saloon_bar", finish_bottle = "saloon_table",
    drink_a_glass = "saloon_table", drink_another = "saloon_table",
    drown_sorrows = "saloon_table", forget_everything = "saloon_table",
    stagger_out = "street", sit_down = "bench",
  },
}
