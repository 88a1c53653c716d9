-- domains/town/legend.lua: the letters of domains/town/town.txt: the kind of place each marks and how many NPCs it holds at once.
--
-- A letter may mark several cells: each is a place of that kind. The kinds are those
-- domains/town/places.lua binds the cast's "pos" params to, plus homes and the church.
return {
  S = { kind = "saloon_bar", capacity = 3 },      -- three stools per stretch of bar
  T = { kind = "saloon_table", capacity = 4 },
  P = { kind = "piano", capacity = 1 },
  G = { kind = "stage", capacity = 4 },
  D = { kind = "dressing_room", capacity = 3 },
  C = { kind = "bench", capacity = 2 },
  H = { kind = "hitching_post", capacity = 4 },
  B = { kind = "bank_counter", capacity = 2 },
  V = { kind = "bank_vault", capacity = 2 },
  K = { kind = "inn_desk", capacity = 1 },
  R = { kind = "inn_room", capacity = 2 },
  U = { kind = "general_store", capacity = 3 },
  c = { kind = "church", capacity = 40 },
  L = { kind = "stables", capacity = 2 },
  Y = { kind = "hay_barn", capacity = 2 },
  E = { kind = "feeder", capacity = 1 },
  O = { kind = "trough", capacity = 1 },
  F = { kind = "forge", capacity = 1 },
  A = { kind = "anvil", capacity = 1 },
  Q = { kind = "quench_tub", capacity = 1 },
  W = { kind = "well", capacity = 2 },
  h = { kind = "home", capacity = 4 },
  Z = { kind = "street", capacity = 6 },
  N = { kind = "hunting_grounds", capacity = 5 },
  X = { kind = "hideout", capacity = 6 },
}
