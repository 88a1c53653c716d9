-- domains/innkeeper.lua: the Innkeeper of the RDR-2 town (SSCI 2022 names its goals: serve a drink, assign a room), as a saspu domain table.
--
-- In the game the innkeeper stands behind the saloon bar, takes a bottle from the shelf,
-- pours, serves and takes the coins; at the inn desk he has the guest sign the ledger,
-- sends for the room to be made and hands over the key from the board. The paper gives
-- only the goals; the actions below are ours.
--
-- Why each prevail-condition:
--   pour_drink    bottle = in_hand: the drink comes from the bottle.
--   take_payment  glass = served: the customer pays for a drink he has.
--   take_key      bottle = on_shelf: one hand for the key board, never a bottle at the
--                 desk.
--   hand_key      ledger = signed, room = made: no key before the guest signs and the
--                 room is ready.
-- Class SAS-PUC*2, like the Horse Breeder: both bottle actions are requested
-- (take_bottle by pour_drink, shelve_bottle by take_key), and the two requesters are
-- not connected without the bottle (the bar's glass/payment chain and the desk's
-- ledger/room/key chain share nothing).
--
-- Places (params "pos", see domains/town/places.lua): saloon_bar, inn_desk, inn_room;
-- "customer" and "guest" are the people served.
return {
  name = "innkeeper",
  variables = {
    { name = "bottle",  values = { "on_shelf", "in_hand" } },
    -- the glass and payment of the current customer
    { name = "glass",   values = { "empty", "filled", "served" } },
    { name = "payment", values = { "owed", "paid" } },
    -- the ledger line, room and key of the current guest
    { name = "ledger",  values = { "blank", "signed" } },
    { name = "room",    values = { "unmade", "made" } },
    { name = "key",     values = { "on_board", "in_hand", "given" } },
  },
  actions = {
    { name = "take_bottle",   var = "bottle",  pre = "on_shelf", post = "in_hand",
      params = { "pos" } },
    { name = "shelve_bottle", var = "bottle",  pre = "in_hand", post = "on_shelf",
      params = { "pos" } },
    { name = "pour_drink",    var = "glass",   pre = "empty", post = "filled",
      prevail = { bottle = "in_hand" }, params = { "pos" } },
    { name = "serve_drink",   var = "glass",   pre = "filled", post = "served",
      params = { "customer", "pos" } },
    { name = "take_payment",  var = "payment", pre = "owed", post = "paid",
      prevail = { glass = "served" }, params = { "customer", "pos" } },
    { name = "sign_ledger",   var = "ledger",  pre = "blank", post = "signed",
      params = { "guest", "pos" } },
    { name = "make_room",     var = "room",    pre = "unmade", post = "made",
      params = { "pos" } },
    { name = "take_key",      var = "key",     pre = "on_board", post = "in_hand",
      prevail = { bottle = "on_shelf" }, params = { "pos" } },
    { name = "hand_key",      var = "key",     pre = "in_hand", post = "given",
      prevail = { ledger = "signed", room = "made" }, params = { "guest", "pos" } },
  },
  -- Every goal is a condition: the variables it leaves out are free (don't care, the
  -- default); none keeps a start value (saspu.KEEP), so "kept" below is the other reading.
  goals = {
    -- Serve a drink: served and paid. The bottle is left free (kept: shelved again when
    -- it started on the shelf; don't care: it may stay in hand for the next customer).
    serve_a_drink = { glass = "served", payment = "paid" },
    -- Assign a room: signed, made, key given; the bottle is left free.
    assign_a_room = { ledger = "signed", room = "made", key = "given" },
  },
  starts = {
    -- Dawn: the bottle on the shelf, nobody served, no guest yet.
    dawn = { bottle = "on_shelf", glass = "empty", payment = "owed", ledger = "blank",
             room = "unmade", key = "on_board" },
    -- A busy bar: bottle in hand, a guest comes in and the rooms were made this morning.
    busy_bar = { bottle = "in_hand", glass = "empty", payment = "owed", ledger = "blank",
                 room = "made", key = "on_board" },
  },
}
