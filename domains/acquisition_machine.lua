-- domains/acquisition_machine.lua: the Acquisition Machine of the SSCI 2022 paper (Horizon Zero Dawn), as a saspu domain table.
--
-- Variables and actions are exactly the paper's Table III, with the paper's action
-- parameters. No variable has a cycle, so the class is SAS-PUC0. Boolean variables keep
-- the paper's value names "false" and "true".
return {
  name = "acquisition_machine",
  variables = {
    { name = "ore_found",   values = { "false", "true" } },
    { name = "ore_shared",  values = { "false", "true" } },
    { name = "harvest",     values = { "none", "harvested", "refined", "stored" } },
    { name = "charged",     values = { "false", "true" } },
    { name = "system",      values = { "damaged", "operational" } },
    { name = "disturbance", values = { "false", "true" } },
    { name = "threatened",  values = { "false", "true" } },
  },
  actions = {
    { name = "scan_ore_deposit", var = "ore_found", pre = "false", post = "true",
      prevail = { charged = "true", system = "operational", disturbance = "false",
                  threatened = "false" },
      params = { "from" } },
    { name = "share_ore_pos", var = "ore_shared", pre = "false", post = "true",
      prevail = { ore_found = "true", disturbance = "false", threatened = "false" },
      params = { "list" } },
    { name = "harvest_ore", var = "harvest", pre = "none", post = "harvested",
      prevail = { ore_found = "true", charged = "true", system = "operational",
                  disturbance = "false", threatened = "false" },
      params = { "type", "pos" } },
    { name = "refine_ore", var = "harvest", pre = "harvested", post = "refined",
      prevail = { charged = "true", system = "operational", disturbance = "false",
                  threatened = "false" } },
    { name = "store_refined_ore", var = "harvest", pre = "refined", post = "stored",
      prevail = { charged = "true", system = "operational", disturbance = "false",
                  threatened = "false" },
      params = { "pos" } },
    { name = "rest", var = "charged", pre = "false", post = "true",
      prevail = { disturbance = "false", threatened = "false" }, params = { "pos" } },
    { name = "repair", var = "system", pre = "damaged", post = "operational",
      prevail = { charged = "true", disturbance = "false", threatened = "false" } },
    { name = "scan_disturbance", var = "disturbance", pre = "true", post = "false",
      prevail = { threatened = "false" } },
    { name = "attack", var = "threatened", pre = "true", post = "false" },
  },
  goals = {
    -- The machine's only goal, Harvest = <1,1,3,1,1,0,0>: total, so "keep" and "free"
    -- (a left-out variable's readings) do not arise.
    harvest = { ore_found = "true", ore_shared = "true", harvest = "stored",
                charged = "true", system = "operational", disturbance = "false",
                threatened = "false" },
  },
  starts = {
    -- The paper's two listed starts.
    -- <1,1,1,1,0,0,1>: ore found, shared and harvested; charged, but damaged and under
    -- attack. Plan: attack, repair, refine_ore, store_refined_ore.
    under_attack = { ore_found = "true", ore_shared = "true", harvest = "harvested",
                     charged = "true", system = "damaged", disturbance = "false",
                     threatened = "true" },
    -- <0,0,0,1,1,0,0>: ready to work, no ore deposit known yet.
    ready_to_work = { ore_found = "false", ore_shared = "false", harvest = "none",
                      charged = "true", system = "operational", disturbance = "false",
                      threatened = "false" },
    -- The paper uses 6 starts and lists 2. The four below are ours, each a situation
    -- the machine meets in the game and each with a plan to Harvest.
    -- <1,1,0,0,1,0,0>: the batteries ran out before harvesting a known deposit:
    -- rest, then harvest, refine and store.
    out_of_charge = { ore_found = "true", ore_shared = "true", harvest = "none",
                      charged = "false", system = "operational", disturbance = "false",
                      threatened = "false" },
    -- <0,0,0,1,1,1,0>: something moved nearby: scan the disturbance away before scanning
    -- for ore, then the full harvest routine.
    disturbed = { ore_found = "false", ore_shared = "false", harvest = "none",
                  charged = "true", system = "operational", disturbance = "true",
                  threatened = "false" },
    -- <1,0,2,0,0,1,1>: caught mid-routine by a hunter: fight, scan the disturbance,
    -- recharge, repair, then share the deposit and store the refined ore.
    after_an_ambush = { ore_found = "true", ore_shared = "false", harvest = "refined",
                        charged = "false", system = "damaged", disturbance = "true",
                        threatened = "true" },
    -- <1,0,1,1,1,0,0>: ore harvested but the deposit not shared yet: share it, refine
    -- and store.
    harvested_unshared = { ore_found = "true", ore_shared = "false", harvest = "harvested",
                           charged = "true", system = "operational", disturbance = "false",
                           threatened = "false" },
  },
}
