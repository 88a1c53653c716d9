/* builtin_paper.c: the three domains of the SSCI 2022 paper (Horse Breeder, Citizen, Acquisition Machine). */
#include "sp_builtin.h"

#include <stddef.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const false_true[] = {"false", "true"};

/* ------------------------------------------------------------------ */
/* Horse Breeder (RDR-2)                                              */
/* ------------------------------------------------------------------ */

enum { HAYSTACK, BUCKET, WATER };

static const char *const haystack_values[] = {"stored", "in_hands",
                                              "in_feeder"};
static const char *const bucket_values[] = {"on_floor", "in_hands"};
static const char *const water_values[] = {"in_source", "in_bucket",
                                           "in_trough"};

static const SpVariableSpec horse_variables[] = {
    {"haystack", 3, haystack_values},
    {"bucket", 2, bucket_values},
    {"water", 3, water_values},
};

static const SpCondition bucket_on_floor[] = {{BUCKET, 0}};
static const SpCondition bucket_in_hands[] = {{BUCKET, 1}};
static const SpCondition haystack_stored[] = {{HAYSTACK, 0}};

/* fill_feeder is the only action on which the two tables differ. */
static const SpActionSpec horse_actions_ssci[] = {
    {"drop_haystack", HAYSTACK, 1, 0, 0, NULL},
    {"take_haystack", HAYSTACK, 0, 1, 1, bucket_on_floor},
    {"fill_feeder", HAYSTACK, 1, 2, 1, bucket_on_floor},
    {"drop_bucket", BUCKET, 1, 0, 0, NULL},
    {"pick_up_bucket", BUCKET, 0, 1, 1, haystack_stored},
    {"fill_bucket", WATER, 0, 1, 1, bucket_in_hands},
    {"fill_trough", WATER, 1, 2, 1, bucket_in_hands},
};

static const SpActionSpec horse_actions_ijcai[] = {
    {"drop_haystack", HAYSTACK, 1, 0, 0, NULL},
    {"take_haystack", HAYSTACK, 0, 1, 1, bucket_on_floor},
    {"fill_feeder", HAYSTACK, 1, 2, 0, NULL},
    {"drop_bucket", BUCKET, 1, 0, 0, NULL},
    {"pick_up_bucket", BUCKET, 0, 1, 1, haystack_stored},
    {"fill_bucket", WATER, 0, 1, 1, bucket_in_hands},
    {"fill_trough", WATER, 1, 2, 1, bucket_in_hands},
};

static const SpValue horse_morning[] = {0, 0, 0};
static const SpValue horse_holding_haystack[] = {1, 0, 0};
static const SpNamedState horse_starts[] = {
    {"morning", horse_morning, NULL},
    {"holding_haystack", horse_holding_haystack, NULL},
};

/* FeedHorses is <2,0,2> in the papers. FillFeeder is <2,0,s0[v2]> (SSCI
 * text). The SSCI text writes FillTrough as <s0[v0],1,2>, which leaves
 * the bucket in hands and contradicts the worked example (<0,0,0> ->
 * <0,0,2> ends with drop_bucket); we keep the bucket on the floor, as in
 * every other goal. The names are those of domains/horse_breeder.lua:
 * tests/support/paper_names.h holds them for both sides. */
static const SpValue horse_feed[] = {2, 0, 2};
static const SpValue horse_feeder[] = {2, 0, 0};
static const uint8_t horse_feeder_keep[] = {0, 0, 1};
static const SpValue horse_trough[] = {0, 0, 2};
static const uint8_t horse_trough_keep[] = {1, 0, 0};
static const SpNamedState horse_goals[] = {
    {"feed_horses", horse_feed, NULL},
    {"fill_feeder", horse_feeder, horse_feeder_keep},
    {"fill_trough", horse_trough, horse_trough_keep},
};

SpBuiltSpec *sp_builtin_horse_breeder(SpAllocator a, int variant) {
  SpDomainSpec spec;
  if (variant != SP_HORSE_SSCI && variant != SP_HORSE_IJCAI) return NULL;
  spec.variable_count = COUNT(horse_variables);
  spec.variables = horse_variables;
  if (variant == SP_HORSE_SSCI) {
    spec.name = "horse_breeder";
    spec.action_count = COUNT(horse_actions_ssci);
    spec.actions = horse_actions_ssci;
  } else {
    spec.name = "horse_breeder_ijcai";
    spec.action_count = COUNT(horse_actions_ijcai);
    spec.actions = horse_actions_ijcai;
  }
  return sp_builtin_copy(a, &spec, COUNT(horse_starts), horse_starts,
                         COUNT(horse_goals), horse_goals);
}

/* ------------------------------------------------------------------ */
/* Citizen (ACO)                                                      */
/* ------------------------------------------------------------------ */

enum { HUNGER, THIRST, HAS_ITEM, WANDERING, DEBATING, RESTED, WORKING };

static const char *const hunger_values[] = {"no_food", "has_food", "fed"};
static const char *const thirst_values[] = {"no_drink", "has_drink",
                                            "hydrated"};

static const SpVariableSpec citizen_variables[] = {
    {"hunger", 3, hunger_values}, {"thirst", 3, thirst_values},
    {"has_item", 2, false_true},  {"wandering", 2, false_true},
    {"debating", 2, false_true},  {"rested", 2, false_true},
    {"working", 2, false_true},
};

static const SpCondition not_working[] = {{WORKING, 0}};
static const SpCondition still_and_free[] = {{WANDERING, 0}, {WORKING, 0}};
static const SpCondition walk_needs[] = {{THIRST, 2}, {WORKING, 0}};
static const SpCondition rest_needs[] = {
    {WANDERING, 0}, {DEBATING, 0}, {WORKING, 0}};
static const SpCondition work_needs[] = {
    {HUNGER, 2}, {THIRST, 2}, {HAS_ITEM, 1}, {WANDERING, 0}};

/* The action parameters (?pos, ?item, ...) are bound at execution time. */
static const SpActionSpec citizen_actions[] = {
    {"buy_food", HUNGER, 0, 1, 1, not_working},
    {"eat", HUNGER, 1, 2, 0, NULL},
    {"buy_drink", THIRST, 0, 1, 1, not_working},
    {"drink", THIRST, 1, 2, 0, NULL},
    {"store", HAS_ITEM, 1, 0, 2, still_and_free},
    {"take", HAS_ITEM, 0, 1, 2, still_and_free},
    {"stop_wandering", WANDERING, 1, 0, 0, NULL},
    {"have_a_walk", WANDERING, 0, 1, 2, walk_needs},
    {"stop_debate", DEBATING, 1, 0, 0, NULL},
    {"debate", DEBATING, 0, 1, 0, NULL},
    {"rest", RESTED, 0, 1, 3, rest_needs},
    {"end_work", WORKING, 1, 0, 0, NULL},
    {"work", WORKING, 0, 1, 4, work_needs},
};

static const SpValue citizen_day[] = {0, 0, 0, 0, 0, 1, 0};
static const SpNamedState citizen_starts[] = {
    {"start_of_day", citizen_day, NULL}};

static const SpValue citizen_work[] = {2, 2, 1, 0, 0, 1, 1};
static const uint8_t citizen_work_keep[] = {0, 0, 0, 0, 1, 0, 0};
static const SpValue citizen_buy[] = {1, 1, 0, 0, 0, 0, 0};
static const uint8_t citizen_buy_keep[] = {0, 0, 1, 1, 1, 1, 0};
static const SpValue citizen_eat[] = {2, 2, 0, 1, 1, 0, 0};
static const uint8_t citizen_eat_keep[] = {0, 0, 1, 0, 0, 1, 0};
static const SpNamedState citizen_goals[] = {
    {"work", citizen_work, citizen_work_keep},
    {"buy_supplies", citizen_buy, citizen_buy_keep},
    {"eat_and_debate_while_wandering", citizen_eat, citizen_eat_keep},
};

SpBuiltSpec *sp_builtin_citizen(SpAllocator a) {
  SpDomainSpec spec;
  spec.name = "citizen";
  spec.variable_count = COUNT(citizen_variables);
  spec.variables = citizen_variables;
  spec.action_count = COUNT(citizen_actions);
  spec.actions = citizen_actions;
  return sp_builtin_copy(a, &spec, COUNT(citizen_starts), citizen_starts,
                         COUNT(citizen_goals), citizen_goals);
}

/* ------------------------------------------------------------------ */
/* Acquisition Machine (HZD)                                          */
/* ------------------------------------------------------------------ */

enum {
  ORE_FOUND,
  ORE_SHARED,
  HARVEST,
  CHARGED,
  SYSTEM,
  DISTURBANCE,
  THREATENED
};

static const char *const harvest_values[] = {"none", "harvested", "refined",
                                             "stored"};
static const char *const system_values[] = {"damaged", "operational"};

static const SpVariableSpec machine_variables[] = {
    {"ore_found", 2, false_true},   {"ore_shared", 2, false_true},
    {"harvest", 4, harvest_values}, {"charged", 2, false_true},
    {"system", 2, system_values},   {"disturbance", 2, false_true},
    {"threatened", 2, false_true},
};

static const SpCondition scan_needs[] = {
    {CHARGED, 1}, {SYSTEM, 1}, {DISTURBANCE, 0}, {THREATENED, 0}};
static const SpCondition share_needs[] = {
    {ORE_FOUND, 1}, {DISTURBANCE, 0}, {THREATENED, 0}};
static const SpCondition harvest_needs[] = {{ORE_FOUND, 1},
                                            {CHARGED, 1},
                                            {SYSTEM, 1},
                                            {DISTURBANCE, 0},
                                            {THREATENED, 0}};
static const SpCondition calm[] = {{DISTURBANCE, 0}, {THREATENED, 0}};
static const SpCondition repair_needs[] = {
    {CHARGED, 1}, {DISTURBANCE, 0}, {THREATENED, 0}};
static const SpCondition not_threatened[] = {{THREATENED, 0}};

static const SpActionSpec machine_actions[] = {
    {"scan_ore_deposit", ORE_FOUND, 0, 1, 4, scan_needs},
    {"share_ore_pos", ORE_SHARED, 0, 1, 3, share_needs},
    {"harvest_ore", HARVEST, 0, 1, 5, harvest_needs},
    {"refine_ore", HARVEST, 1, 2, 4, scan_needs},
    {"store_refined_ore", HARVEST, 2, 3, 4, scan_needs},
    {"rest", CHARGED, 0, 1, 2, calm},
    {"repair", SYSTEM, 0, 1, 3, repair_needs},
    {"scan_disturbance", DISTURBANCE, 1, 0, 1, not_threatened},
    {"attack", THREATENED, 1, 0, 0, NULL},
};

static const SpValue machine_attacked[] = {1, 1, 1, 1, 0, 0, 1};
static const SpValue machine_ready[] = {0, 0, 0, 1, 1, 0, 0};
static const SpNamedState machine_starts[] = {
    {"under_attack", machine_attacked, NULL},
    {"ready_to_work", machine_ready, NULL},
};

static const SpValue machine_harvest[] = {1, 1, 3, 1, 1, 0, 0};
static const SpNamedState machine_goals[] = {
    {"harvest", machine_harvest, NULL}};

SpBuiltSpec *sp_builtin_acquisition_machine(SpAllocator a) {
  SpDomainSpec spec;
  spec.name = "acquisition_machine";
  spec.variable_count = COUNT(machine_variables);
  spec.variables = machine_variables;
  spec.action_count = COUNT(machine_actions);
  spec.actions = machine_actions;
  return sp_builtin_copy(a, &spec, COUNT(machine_starts), machine_starts,
                         COUNT(machine_goals), machine_goals);
}
