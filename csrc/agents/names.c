/* names.c: the names of phases, event kinds and reasons. */
#include "sp_agents.h"

/* ------------------------------------------------------------------ */
/* Names                                                              */
/* ------------------------------------------------------------------ */

const char *sp_phase_name(SpPhase p) {
  static const char *const names[] = {"free",     "idle",   "walking",
                                      "acting",   "script", "blocked",
                                      "thinking", "moving"};
  return (unsigned)p < SP_PHASE_COUNT ? names[p] : "?";
}

const char *sp_event_kind_name(SpEventKind k) {
  static const char *const names[] = {
      "goal_chosen",   "planned",     "replanned",    "step_started",
      "step_finished", "step_failed", "step_skipped", "arrived",
      "goal_reached",  "no_plan",     "blocked",      "idle",
      "waiting",       "move",        "gave_up",      "goal_dropped",
      "move_cancelled"};
  return (unsigned)k < SP_EV_COUNT ? names[k] : "?";
}

const char *sp_reason_name(SpReason r) {
  static const char *const names[] = {
      "none",       "world_changed", "step_failed", "higher_goal",
      "conditions", "unreachable",   "full",        "script",
      "no_plan",    "all_satisfied", "no_goal",     "no_plan_any",
      "cooldown",   "select",        "target_gone", "migrated",
      "when_lapsed"};
  return (unsigned)r < SP_REASON_COUNT ? names[r] : "?";
}
